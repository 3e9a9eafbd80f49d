"""``autograd.graph.saved_tensors_hooks`` (and ``save_on_cpu``,
``disable_saved_tensors_hooks``) against PyTorch's: which tensors each op hands to the pack
hook and in which order, when the unpack hook runs, what backward computes from what it
returns, and the errors."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import torch

import chainrule as cr
from chainrule import _modes
from oracle import compare, compare_logs, error_of


def _describe(lib, t):
    """A tensor as a log line: its shape and where it comes from."""
    fn = t.grad_fn
    origin = type(fn).__name__ if fn is not None else "leaf" if t.requires_grad else "const"
    return tuple(t.shape), origin


def _logging_hooks(lib, log):
    def pack(t):
        log.append(("pack", *_describe(lib, t)))
        return t.detach()

    def unpack(t):
        log.append(("unpack", tuple(t.shape)))
        return t

    return lib.autograd.graph.saved_tensors_hooks(pack, unpack)


def _ab(lib):
    a = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
    b = lib.tensor([1.5, 2.0, -0.5], dtype=lib.float64, requires_grad=True) * 2
    return a, b


class _Product(torch.autograd.Function):  # (and chainrule's twin below)
    @staticmethod
    def forward(ctx, x, y):
        out = x * y
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        return g * out / x, g * x


# chainrule's twin, of the same name (its node is named after it: _ProductBackward)
_CrProduct = type(
    "_Product",
    (cr.autograd.Function,),
    {"forward": _Product.forward, "backward": _Product.backward},
)


OPS = {
    "mul": lambda L, a, b: a * b,
    "mul by a constant": lambda L, a, b: a * L.ones(3, dtype=L.float64),
    "mul by a number": lambda L, a, b: a * 3,
    "div": lambda L, a, b: a / b,
    "exp (its output)": lambda L, a, b: a.exp(),
    "pow": lambda L, a, b: a.pow(3),
    "sin": lambda L, a, b: a.sin(),
    "tanh": lambda L, a, b: b.tanh(),
    "relu": lambda L, a, b: L.relu(a - 0.5),
    "sigmoid": lambda L, a, b: a.sigmoid(),
    "add (nothing saved)": lambda L, a, b: a + b,
    "sum (nothing saved)": lambda L, a, b: (a * 2).sum(),
    "a slice (nothing saved)": lambda L, a, b: a[1:],
    "linear of a constant input": lambda L, a, b: L.nn.functional.linear(
        L.ones(2, 3, dtype=L.float64), a.reshape(1, 3), b[:1]
    ),
    "softmax": lambda L, a, b: a.softmax(0),
    "log_softmax": lambda L, a, b: a.log_softmax(0),
    "a chain": lambda L, a, b: ((a * b).exp() * a).tanh(),
    "a custom Function": lambda L, a, b: (_Product if L is torch else _CrProduct).apply(a, b),
    "no_grad (nothing saved)": lambda L, a, b: _no_grad(L, a),
}


def _no_grad(L, a):
    with L.no_grad():
        return a.exp() + a.sum() * 0


@pytest.mark.parametrize("name", list(OPS))
def test_pack_and_unpack_calls_match_torch(name):
    def run(lib, log):
        a, b = _ab(lib)
        with _logging_hooks(lib, log):
            y = OPS[name](lib, a, b)
        log.append("backward")
        if y.requires_grad:
            y.sum().backward()
            grad = None if a.grad is None else np.round(a.grad.numpy(), 12).tolist()
            log.append(("grad", grad))

    compare_logs(run)


def test_matmul_packs_both_factors_in_its_own_order():
    # a known difference: PyTorch packs mat2 before self, chainrule's plan saves self first
    logs = {}
    for lib in (torch, cr):
        log = logs[lib.__name__] = []
        x = lib.ones(2, 3, requires_grad=True)
        w = lib.ones(3, 4, requires_grad=True)
        with _logging_hooks(lib, log):
            y = x @ w
        y.sum().backward()
    assert sorted(logs["torch"]) == sorted(logs["chainrule"])
    assert len(logs["chainrule"]) == 4


def test_backward_uses_what_unpack_returns():
    # the pack hook keeps a copy (the "saving to disk" pattern): writing into the saved
    # tensor afterwards changes nothing, and nothing raises (no version is checked)
    def run(lib):
        store = {}

        def pack(t):
            key = len(store)
            store[key] = t.detach().clone()
            return key

        x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        h = x * 1
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda key: store[key]):
            y = (h * h).sum() + h.exp().sum()
        with lib.no_grad():
            h.mul_(10)
        y.backward()
        return x.grad, len(store)

    compare(run, rtol=1e-12)


def test_saving_to_files_with_torch_save(tmp_path):
    def run(lib):
        paths = []

        def pack(t):
            path = tmp_path / f"{lib.__name__}-{len(paths)}.pt"
            lib.save(t.detach(), path)
            paths.append(path)
            return path

        def unpack(path):
            return lib.load(path, weights_only=True)

        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(4, 5), lib.nn.Tanh(), lib.nn.Linear(5, 2))
        with lib.no_grad():
            for i, p in enumerate(model.parameters()):
                p.copy_(lib.tensor(np.cos(np.arange(p.numel()) + i).reshape(p.shape)))
        x = lib.tensor(np.linspace(-1, 1, 12).reshape(3, 4), dtype=lib.float32)
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            loss = model(x).pow(2).mean()
        loss.backward()
        return [p.grad for p in model.parameters()], len(paths)

    compare(run, rtol=1e-5, atol=1e-6)


def test_second_order_through_packed_tensors():
    def run(lib):
        x = lib.tensor([0.5, 1.0, -0.3], dtype=lib.float64, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
            y = (x.exp() * x).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (g2,) = lib.autograd.grad(g.sum(), x)
        return g, g2

    compare(run, rtol=1e-12)


def test_unpack_runs_at_each_backward_and_the_graph_is_freed_after():
    def run(lib, log):
        a, _ = _ab(lib)
        with lib.autograd.graph.saved_tensors_hooks(
            lambda t: t.detach(), lambda t: (log.append("unpack"), t)[1]
        ):
            y = a.exp().sum()
        y.backward(retain_graph=True)
        y.backward()
        log.append(str(error_of(lambda _: y.backward(), lib)))

    compare_logs(run)


ERRORS = {
    "unpack returns a number": (lambda t: t.detach(), lambda p: 3),
    "pack writes into its input": (lambda t: t.add_(1), lambda p: p),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(name):
    pack, unpack = ERRORS[name]

    def run(lib):
        z = lib.ones(2, requires_grad=True) * 2
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = (z * z).sum()
        y.backward()

    want, got = error_of(run, torch), error_of(run, cr)
    assert (type(got), str(got)) == (type(want), str(want))


def test_nested_hooks_the_innermost_applies():
    def run(lib, log):
        a, _ = _ab(lib)
        graph = lib.autograd.graph
        with graph.saved_tensors_hooks(lambda t: (log.append("outer"), t.detach())[1], lambda t: t):
            with graph.saved_tensors_hooks(
                lambda t: (log.append("inner"), t.detach())[1], lambda t: t
            ):
                y = a.exp()
            z = a.sin()
        (y.sum() + z.sum()).backward()
        log.append(a.grad.tolist())

    compare_logs(run)


def test_disable_saved_tensors_hooks_as_torch():
    def run(lib, log):
        graph = lib.autograd.graph
        with graph.disable_saved_tensors_hooks("outer message"):
            with graph.disable_saved_tensors_hooks("inner message"):
                log.append(str(error_of(lambda _: graph.save_on_cpu().__enter__(), lib)))
            log.append(str(error_of(lambda _: graph.save_on_cpu().__enter__(), lib)))
        with graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
            log.append(
                str(error_of(lambda _: graph.disable_saved_tensors_hooks("no").__enter__(), lib))
            )
        with graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
            log.append("enabled again")

    compare_logs(run)


def test_hooks_belong_to_the_thread_that_set_them():
    def run(lib, log):
        a, _ = _ab(lib)
        with lib.autograd.graph.saved_tensors_hooks(
            lambda t: (log.append("pack"), t.detach())[1], lambda t: t
        ):
            thread = threading.Thread(target=lambda: a.exp())
            thread.start()
            thread.join()
            a.sin()

    compare_logs(run)


def test_save_on_cpu_gives_the_same_gradients():
    def run(lib):
        a, b = _ab(lib)
        with lib.autograd.graph.save_on_cpu():
            y = ((a * b).exp() * a).tanh().sum()
        y.backward()
        return a.grad

    compare(run, rtol=1e-12)


def test_fast_paths_come_back_after_the_context():
    x = cr.ones(3, requires_grad=True)
    with cr.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
        assert not _modes.usual[0]
        y = x * x
    assert _modes.usual[0]
    z = x * x
    assert z.grad_fn._checks == () and y.grad_fn._checks != ()


def test_a_pack_hook_writing_into_a_fresh_tensor_is_caught():
    # a tensor no view or write has touched yet has no version counter: packing makes one
    def run(lib):
        x = lib.ones(3, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.add_(1), lambda p: p):
            (x.exp() * 2).sum()

    want, got = error_of(run, torch), error_of(run, cr)
    assert (type(got), str(got)) == (type(want), str(want))


def test_second_order_through_a_custom_function_whose_input_was_packed_detached():
    def run(lib):
        class SinSquared(lib.autograd.Function):  # sin(x)², its derivative sin(2x)
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x.sin() ** 2

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * (2 * x).sin()

        x = lib.tensor([0.5, 2.0], dtype=lib.float64, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
            y = SinSquared.apply(x * 1).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        return g, lib.autograd.grad(g.sum(), x)

    compare(run, rtol=1e-12)
