"""Selective checkpointing and the rest of ``utils.checkpoint`` against
``torch.utils.checkpoint``: gradients under each policy as without checkpointing, how
often the function runs again (early stop included), cached outputs read in backward, the
errors; and the policy's view of an op, the global switches, the device states.

A policy names ops: PyTorch's by aten overloads, chainrule's by its own op names
(``CheckpointedOp``), so each scenario builds its op list per library with ``_ops``."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import compare, compare_logs, error_of

ATEN = {
    "mm": torch.ops.aten.mm.default,
    "sin": torch.ops.aten.sin.default,
    "mul": torch.ops.aten.mul.Tensor,
    "exp": torch.ops.aten.exp.default,
}


def _ops(lib, *names):
    """The ops ``names`` as each library's policy takes them: aten overloads, or names."""
    return [ATEN[n] for n in names] if lib is torch else list(names)


def _always(policy_name):
    def context_fn(lib):
        policy = getattr(lib.utils.checkpoint.CheckpointPolicy, policy_name)
        return functools.partial(
            lib.utils.checkpoint.create_selective_checkpoint_contexts,
            lambda ctx, op, *args, **kwargs: policy,
        )

    return context_fn


POLICIES = {
    "no context": lambda lib: lib.utils.checkpoint.noop_context_fn,
    "MUST_SAVE": _always("MUST_SAVE"),
    "PREFER_SAVE": _always("PREFER_SAVE"),
    "MUST_RECOMPUTE": _always("MUST_RECOMPUTE"),
    "PREFER_RECOMPUTE": _always("PREFER_RECOMPUTE"),
    "list [mm]": lambda lib: functools.partial(
        lib.utils.checkpoint.create_selective_checkpoint_contexts, _ops(lib, "mm")
    ),
    "list [mm], as a function": lambda lib: functools.partial(
        lib.utils.checkpoint.create_selective_checkpoint_contexts,
        [ATEN["mm"]] if lib is torch else [cr.mm],
    ),
    "list [sin, exp]": lambda lib: functools.partial(
        lib.utils.checkpoint.create_selective_checkpoint_contexts, _ops(lib, "sin", "exp")
    ),
    "bool policy": lambda lib: functools.partial(
        lib.utils.checkpoint.create_selective_checkpoint_contexts, lambda *a, **k: True
    ),
}


def _region(lib, log):
    """mm, sin, mm, exp, a custom Function: each step logged as it runs."""

    class Twice(lib.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            log.append("Twice.forward")
            ctx.save_for_backward(t)
            return t * 2

        @staticmethod
        def backward(ctx, g):
            (t,) = ctx.saved_tensors
            return g * 2 + 0 * t

    def f(x, w):
        log.append("start")
        y = lib.mm(x, w).sin()
        log.append("after sin")
        z = Twice.apply(lib.mm(y, w).exp())
        log.append("end")
        return (z * 3).sum()

    return f


def _inputs(lib):
    x = lib.tensor(np.linspace(-1, 1, 6).reshape(2, 3), requires_grad=True)
    w = lib.tensor(np.cos(np.arange(9.0)).reshape(3, 3), requires_grad=True)
    return x, w


@pytest.mark.parametrize("early_stop", [True, False])
@pytest.mark.parametrize("policy", list(POLICIES))
def test_gradients_and_recomputed_calls_under_each_policy(policy, early_stop):
    def run(lib, log):
        x, w = _inputs(lib)
        plain = _region(lib, [])(x, w)
        want = lib.autograd.grad(plain, (x, w))
        out = lib.utils.checkpoint.checkpoint(
            _region(lib, log),
            x,
            w,
            use_reentrant=False,
            context_fn=POLICIES[policy](lib),
            early_stop=early_stop,
        )
        log.append("backward")
        got = lib.autograd.grad(out, (x, w))
        log.append(round(float(out.detach()), 10))
        log.extend(bool(np.allclose(a.numpy(), b.numpy(), rtol=1e-12)) for a, b in zip(got, want))
        log.extend(np.round(g.numpy(), 10).tolist() for g in got)

    compare_logs(run)


def test_early_stop_switched_off_globally_overrides_the_argument():
    def run(lib, log):
        cp = lib.utils.checkpoint
        x, w = _inputs(lib)
        with cp.set_checkpoint_early_stop(False):
            out = cp.checkpoint(_region(lib, log), x, w, use_reentrant=False, early_stop=True)
        log.append("backward, outside the switch")
        out.backward()
        with cp.set_checkpoint_early_stop(True):
            out = cp.checkpoint(_region(lib, log), x, w, use_reentrant=False, early_stop=False)
        log.append("backward")
        out.backward()

    compare_logs(run)


def test_a_cached_output_is_read_as_the_forward_made_it():
    # the region reads a global that changes before backward: the tensor saved by the cached
    # op is the forward's, a recomputed one is made with the new value
    def run(lib, log):
        for ops in ((), ("mul",)):
            k = [3.0]
            x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)

            def f(t, k=k):
                y = t * k[0]
                return (y * y).sum()

            out = lib.utils.checkpoint.checkpoint(
                f,
                x,
                use_reentrant=False,
                context_fn=functools.partial(
                    lib.utils.checkpoint.create_selective_checkpoint_contexts, _ops(lib, *ops)
                ),
            )
            k[0] = 5.0
            out.backward()
            log.append((ops, x.grad.numpy().tolist()))

    compare_logs(run)
    # (d/dx (x k)^2 = 2 x k^2 with the forward's k = 3; recomputed: 2 x k' k = 2 x 15)
    log = []
    run(cr, log)
    assert log[0][1] == [15.0, -30.0, 60.0] and log[1][1] == [9.0, -18.0, 36.0]


def _sac(lib, names, **kw):
    return functools.partial(
        lib.utils.checkpoint.create_selective_checkpoint_contexts, _ops(lib, *names), **kw
    )


def _mutated_after_caching(lib, allow=False):
    def f(t):
        y = t.sin()
        z = y * y  # (saves y, which sin made: cached)
        y.mul_(2)
        return z.sum() + y.sum()

    x = lib.tensor([0.5, 1.0], dtype=lib.float64, requires_grad=True)
    out = lib.utils.checkpoint.checkpoint(
        f, x, use_reentrant=False, context_fn=_sac(lib, ["sin"], allow_cache_entry_mutation=allow)
    )
    out.backward()
    return x.grad


def _backward_twice(lib):
    x = lib.tensor([0.5, 1.0], dtype=lib.float64, requires_grad=True)
    y = lib.utils.checkpoint.checkpoint(
        lambda t: (t.sin() * t.sin()).sum(), x, use_reentrant=False, context_fn=_sac(lib, ["sin"])
    )
    y.backward(retain_graph=True)
    y.backward()


MESSAGES = {
    "a cached output written in place": _mutated_after_caching,
    "backward twice through cached outputs": _backward_twice,
    "a list holding no op": lambda L: L.utils.checkpoint.create_selective_checkpoint_contexts([3]),
    "neither a list nor a function": lambda L: (
        L.utils.checkpoint.create_selective_checkpoint_contexts(3)
    ),
    "debug with a context_fn": lambda L: L.utils.checkpoint.checkpoint(
        lambda t: t.sin(), _inputs(L)[0], use_reentrant=False, debug=True, context_fn=_sac(L, [])
    ),
    "debug switched on globally, with a context_fn": lambda L: _debug_globally(L),
}


def _debug_globally(L):
    with L.utils.checkpoint.set_checkpoint_debug_enabled(True):
        L.utils.checkpoint.checkpoint(
            lambda t: t.sin(), _inputs(L)[0], use_reentrant=False, context_fn=_sac(L, [])
        )


@pytest.mark.parametrize("name", list(MESSAGES))
def test_errors_as_torch(name):
    want, got = error_of(MESSAGES[name], torch), error_of(MESSAGES[name], cr)
    assert type(got) is type(want)
    assert str(got) == str(want)


def test_a_cached_output_may_be_written_when_allowed():
    compare(lambda lib: _mutated_after_caching(lib, allow=True), rtol=1e-12)


def _one_more_save(L):
    calls = []

    def f(t):
        calls.append(1)
        y = t.exp()
        if len(calls) > 1:
            y = y.sin()  # (saves one more tensor when recomputed)
        return y.sum()

    x = L.tensor([0.5, 1.0], dtype=L.float64, requires_grad=True)
    L.utils.checkpoint.checkpoint(f, x, use_reentrant=False, early_stop=False).backward()


def test_a_recomputation_that_saves_more_raises_without_early_stop():
    want, got = error_of(_one_more_save, torch), error_of(_one_more_save, cr)
    assert type(got).__name__ == type(want).__name__ == "CheckpointError"
    assert str(want).startswith(str(got).split("\nTip:")[0])


def test_debug_mode_reports_both_runs():
    def f(t, calls=[]):  # noqa: B006 - counts the runs
        calls.append(1)
        return (t if len(calls) == 1 else t.float()).exp().sum()

    x = cr.tensor([0.5, 1.0], dtype=cr.float64, requires_grad=True)
    y = cr.utils.checkpoint.checkpoint(f, x, use_reentrant=False, debug=True)
    with pytest.raises(cr.utils.checkpoint.CheckpointError) as caught:
        y.backward()
    message = str(caught.value)
    assert message.startswith("An error happened while unpacking tensors")
    assert "Detected non-determinism while running activation checkpointing" in message
    assert "Recomputed values for the following tensors have different metadata" in message
    forward, recompute = message.split("Tensors saved during recomputation:")
    assert "output of exp, {'shape': torch.Size([2]), 'dtype': torch.float64" in forward
    assert "output of exp, {'shape': torch.Size([2]), 'dtype': torch.float32" in recompute
    assert "test_checkpoint_selective.py" in forward  # (where the function saved it)
    # and the same region without debug: the message alone, as PyTorch's starts
    want = error_of(_changes_dtype, torch)
    got = error_of(_changes_dtype, cr)
    assert str(want).startswith(str(got).split("\nTip:")[0])


def _changes_dtype(L):
    calls = []

    def f(t):
        calls.append(1)
        return (t if len(calls) == 1 else t.float()).exp().sum()

    x = L.tensor([0.5, 1.0], dtype=L.float64, requires_grad=True)
    L.utils.checkpoint.checkpoint(f, x, use_reentrant=False).backward()


def test_the_policy_is_told_the_op_and_its_output():
    seen = []
    cp = cr.utils.checkpoint

    def policy(ctx, op, *args, **kwargs):
        seen.append((op, ctx.is_recompute, ctx.op_output.tolist(), args, kwargs))
        return cp.CheckpointPolicy.PREFER_RECOMPUTE

    x = cr.tensor([0.0, 1.0], dtype=cr.float64, requires_grad=True)
    out = cp.checkpoint(
        lambda t: (t.sin() * t).sum(),
        x,
        use_reentrant=False,
        context_fn=functools.partial(cp.create_selective_checkpoint_contexts, policy),
    )
    out.backward()
    # only sin's output is saved (by the product): sin is the one op asked about, once
    assert len(seen) == 1
    op, is_recompute, output, args, kwargs = seen[0]
    assert (is_recompute, output, args, kwargs) == (False, [0.0, np.sin(1.0)], (), {})
    for spelling in ("sin", "aten.sin", "aten.sin.default", "aten::sin", "torch.sin", cr.sin):
        assert op == spelling
    assert op != "sinh" and op != cr.mm and op.fn is cr.sin
    assert op in [cr.mm, cr.sin] and op in {cp.CheckpointedOp("sin")}


def test_a_custom_function_is_an_op_of_its_own():
    class Square(cr.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * t

        @staticmethod
        def backward(ctx, g):
            return g

    log = []
    cp = cr.utils.checkpoint

    def policy(ctx, op, *args, **kwargs):
        log.append(op == Square)
        return op == Square

    x = cr.tensor([1.0, 2.0], requires_grad=True)
    cp.checkpoint(
        lambda t: Square.apply(t).exp().sum(),
        x,
        use_reentrant=False,
        context_fn=functools.partial(cp.create_selective_checkpoint_contexts, policy),
    ).backward()
    assert log == [False]  # (exp saved its own output; Square's output is saved by no node)


def test_policy_values_as_torch():
    def run(lib):
        P = lib.utils.checkpoint.CheckpointPolicy
        return {p.name: p.value for p in P}

    assert run(cr) == run(torch)


def test_device_states_and_the_default_device_type():
    def run(lib):
        cp = lib.utils.checkpoint
        ids, states = cp.get_device_states(lib.ones(2), (lib.zeros(1), {"a": 3}))
        cp.set_device_states(ids, states)
        return ids, states, cp.DefaultDeviceType.get_device_type()

    assert run(cr) == run(torch) == ([], [], "cpu")


def test_set_device_states_restores_the_draws():
    cp = cr.utils.checkpoint
    states = [cr.get_rng_state()]
    first = cr.rand(3)
    cp.set_device_states([0], states, device_type="cpu")
    assert cr.equal(cr.rand(3), first)


def test_checkpoint_function_is_the_reentrant_variant():
    def run(lib):
        cp = lib.utils.checkpoint
        x, w = _inputs(lib)
        out = cp.CheckpointFunction.apply(lambda t: (t @ w).tanh(), True, x)
        out.sum().backward()
        return out, x.grad, w.grad

    compare(run, rtol=1e-12)
    assert "CheckpointFunction" in cr.utils.checkpoint.__all__


def test_graph_exec_groups_do_not_nest():
    def nest(lib):
        with lib.utils.checkpoint.GraphExecGroup():
            with lib.utils.checkpoint.GraphExecGroup():
                pass

    want, got = error_of(nest, torch), error_of(nest, cr)
    assert type(got) is type(want)
    assert str(want).startswith(str(got).split("Already inside group")[0])


def test_recomputed_once_for_backward_calls_in_a_group():
    # (two backward calls through separate parts of the region: neither unpacks the same
    # saved tensor; PyTorch outside a group would recompute for each, chainrule does not)
    def run(lib, log):
        x = lib.tensor([0.5, 1.0], dtype=lib.float64, requires_grad=True)

        def f(t):
            log.append("run")
            return t[0].exp(), t[1].sin()

        a, b = lib.utils.checkpoint.checkpoint(f, x, use_reentrant=False)
        with lib.utils.checkpoint.GraphExecGroup():
            log.append(lib.autograd.grad(a, x, retain_graph=True)[0].tolist())
            log.append(lib.autograd.grad(b, x)[0].tolist())

    compare_logs(run)


def test_a_selective_region_inside_a_checkpoint():
    def run(lib):
        x, w = _inputs(lib)
        cp = lib.utils.checkpoint

        def inner(t):
            return cp.checkpoint(
                lambda u: lib.mm(u, w).sin().exp(),
                t,
                use_reentrant=False,
                context_fn=_sac(lib, ["sin"]),
            )

        out = cp.checkpoint(lambda t: inner(t.tanh()).sum(), x, use_reentrant=False)
        return lib.autograd.grad(out, (x, w))

    compare(run, rtol=1e-12)
    assert cr.utils.checkpoint.CheckpointedOp("detach") in cr.utils.checkpoint.SAC_IGNORED_OPS
