"""``utils.checkpoint`` against ``torch.utils.checkpoint``: the same gradients with and
without checkpointing, both variants, the random draws replayed, derivatives of higher
order, the errors and warnings; and the memory it saves (chainrule alone)."""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import compare, compare_logs, error_of


def _model(lib):
    nn = lib.nn
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2))
    with lib.no_grad():
        for i, p in enumerate(model.parameters()):
            values = np.cos(np.arange(p.numel()) + i).reshape(tuple(p.shape))
            p.copy_(lib.tensor(values, dtype=lib.float64))
    return model.double()


def _x(lib):
    return lib.tensor(np.linspace(-1, 1, 12).reshape(3, 4), requires_grad=True)


def _grads(lib, model, x):
    return [p.grad for p in model.parameters()] + [x.grad]


WAYS = {
    "plain": lambda L, m, x: m(x),
    "checkpoint": lambda L, m, x: L.utils.checkpoint.checkpoint(m, x, use_reentrant=False),
    "checkpoint, reentrant": lambda L, m, x: L.utils.checkpoint.checkpoint(
        m, x, use_reentrant=True
    ),
    "sequential": lambda L, m, x: L.utils.checkpoint.checkpoint_sequential(
        m, 2, x, use_reentrant=False
    ),
    "sequential, reentrant": lambda L, m, x: L.utils.checkpoint.checkpoint_sequential(
        m, 3, x, use_reentrant=True
    ),
    "nested": lambda L, m, x: L.utils.checkpoint.checkpoint(
        lambda y: m[3:](L.utils.checkpoint.checkpoint(m[:3], y, use_reentrant=False)),
        x,
        use_reentrant=False,
    ),
}


@pytest.mark.parametrize("way", list(WAYS))
def test_gradients_as_without_checkpointing_and_as_torch(way):
    def run(lib):
        model, x = _model(lib), _x(lib)
        out = WAYS[way](lib, model, x)
        out.pow(2).sum().backward()
        return out, _grads(lib, model, x)

    compare(run, rtol=1e-12)
    plain = run(cr)[1]
    for a, b in zip(plain, run(cr)[1]):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)


def test_autograd_grad_through_the_non_reentrant_variant():
    def run(lib):
        model, x = _model(lib), _x(lib)
        out = lib.utils.checkpoint.checkpoint(model, x, use_reentrant=False).sum()
        return lib.autograd.grad(out, [x, *model.parameters()])

    compare(run, rtol=1e-12)


def test_second_derivatives_through_a_checkpoint():
    def run(lib):
        z = lib.tensor([0.5, 1.0, -0.7], dtype=lib.float64, requires_grad=True)
        y = lib.utils.checkpoint.checkpoint(
            lambda t: (t.exp() * t.tanh()).sum(), z, use_reentrant=False
        )
        (g,) = lib.autograd.grad(y, z, create_graph=True)
        (g2,) = lib.autograd.grad(g.sum(), z)
        return g, g2

    compare(run, rtol=1e-12)


def test_the_random_draws_are_replayed():
    # dropout inside the region: the recomputation draws the forward's mask again
    def run(lib):
        lib.manual_seed(3)
        drop = lib.nn.Sequential(lib.nn.Linear(4, 16), lib.nn.Dropout(0.5), lib.nn.Linear(16, 1))
        drop = drop.double()
        x = _x(lib)
        lib.manual_seed(7)
        drop(x).sum().backward()
        want = x.grad
        x.grad = None
        lib.manual_seed(7)
        lib.utils.checkpoint.checkpoint(drop, x, use_reentrant=False).sum().backward()
        return bool(np.allclose(want.numpy(), x.grad.numpy(), rtol=1e-12))

    assert run(torch) and run(cr)


def test_activations_are_freed_until_backward_needs_them():
    def chain(t):
        for _ in range(8):
            t = (t * 1.5).tanh()
        return t.sum()

    def kept(checkpointed: bool) -> int:
        x = cr.ones(1 << 17, dtype=cr.float64, requires_grad=True)  # 1 MiB
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        if checkpointed:
            y = cr.utils.checkpoint.checkpoint(chain, x, use_reentrant=False)
        else:
            y = chain(x)
        held = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        y.backward()
        assert np.isfinite(x.grad.numpy()).all()
        return held

    # without: the eight tanh outputs saved (and their inputs' scaled copies); with: none
    assert kept(False) > 8 << 20
    assert kept(True) < 1 << 20


MESSAGES = {
    "reentrant under grad()": lambda L: _reentrant_grad(L),
    "an input written in place": lambda L: _written_in_place(L),
    "keyword arguments, reentrant": lambda L: L.utils.checkpoint.checkpoint(
        lambda t, s=1.0: t * s, _x(L), s=3.0, use_reentrant=True
    ),
    "an unknown determinism check": lambda L: L.utils.checkpoint.checkpoint(
        lambda t: t, _x(L), use_reentrant=False, determinism_check="x"
    ),
    "context_fn with the reentrant variant": lambda L: L.utils.checkpoint.checkpoint(
        lambda t: t, _x(L), use_reentrant=True, context_fn=lambda: (None, None)
    ),
    "another dtype when recomputed": lambda L: _changes_dtype(L),
}


def _reentrant_grad(L):
    x = _x(L)
    L.autograd.grad(L.utils.checkpoint.checkpoint(_model(L), x, use_reentrant=True).sum(), x)


def _written_in_place(L):
    z = _x(L)
    h = z * 1
    y = L.utils.checkpoint.checkpoint(lambda t: (t * t).sum(), h, use_reentrant=False)
    with L.no_grad():
        h.mul_(10)
    y.backward()


def _changes_dtype(L):
    calls = []

    def f(t):
        calls.append(1)
        return (t if len(calls) == 1 else t.float()).exp().sum()

    L.utils.checkpoint.checkpoint(f, _x(L), use_reentrant=False).backward()


@pytest.mark.parametrize("name", list(MESSAGES))
def test_errors_as_torch(name):
    want, got = error_of(MESSAGES[name], torch), error_of(MESSAGES[name], cr)
    assert type(got).__name__ == type(want).__name__  # (CheckpointError is each library's)
    assert isinstance(got, RuntimeError) == isinstance(want, RuntimeError)
    # (PyTorch's metadata message goes on with advice about torch.compile)
    assert str(want).startswith(str(got).split("\nTip:")[0])


def test_warnings_as_torch():
    def run(lib, log):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.utils.checkpoint.checkpoint(_model(lib), _x(lib))
            lib.utils.checkpoint.checkpoint(_model(lib), _x(lib).detach(), use_reentrant=True)
            lib.utils.checkpoint.checkpoint_sequential(_model(lib), 2, _x(lib))
        log.extend((w.category.__name__, str(w.message)) for w in caught)

    compare_logs(run)


def test_keyword_arguments_and_a_context_around_each_run():
    def run(lib, log):
        class Ctx:
            def __init__(self, name):
                self.name = name

            def __enter__(self):
                log.append(("enter", self.name))

            def __exit__(self, *args):
                log.append(("exit", self.name))

        z = lib.tensor([0.5, 1.0], requires_grad=True)
        y = lib.utils.checkpoint.checkpoint(
            lambda t, s=1.0: (t * s).exp().sum(),
            z,
            s=3.0,
            use_reentrant=False,
            context_fn=lambda: (Ctx("forward"), Ctx("recompute")),
        )
        log.append("backward")
        y.backward()
        log.append(np.round(z.grad.numpy(), 10).tolist())

    compare_logs(run)
