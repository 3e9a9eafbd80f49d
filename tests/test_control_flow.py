"""The control-flow operators, ``torch.cond``, ``torch.while_loop`` and
``torch._higher_order_ops``' ``scan``, ``map`` and ``associative_scan``: values, gradients,
``grad_fn`` names and the refusals of PyTorch's subgraph capture, against PyTorch (whose
eager calls compile each function first, about a second a call: the oracle runs are few)."""

from __future__ import annotations

import functorch.experimental.control_flow as torch_control_flow
import numpy as np
import pytest
import torch
from torch import _higher_order_ops as torch_hops

import chainrule as cr
from chainrule import _higher_order_ops as cr_hops
from oracle import assert_close, error_of

X = np.array([-1.25, 0.5, 2.0])


def hops(lib):
    return cr_hops if lib is cr else torch_hops


def both(fn):
    return fn(cr), fn(torch)


def same_refusal(fn, phrase: str) -> None:
    """Both raise an exception of one class name, with ``phrase`` in both messages."""
    got, want = both(lambda lib: error_of(fn, lib))
    assert type(got).__name__ == type(want).__name__, (got, want)
    assert isinstance(got, RuntimeError) == isinstance(want, RuntimeError)
    assert phrase in str(want), want
    assert phrase in str(got), got


# ----- cond ------------------------------------------------------------------------------


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_cond_runs_the_taken_branch_with_its_gradient(sign):
    def run(lib):
        x = lib.tensor(sign * X, requires_grad=True)
        w = lib.tensor([0.5, -2.0, 1.5], requires_grad=True)  # a closure's tensor

        def true_fn(a, d):
            return (a.sin() * w, {"s": (a * d["k"]).sum()})

        def false_fn(a, d):
            return (a.cos() * w * w, {"s": (a - d["k"]).exp().sum()})

        k = lib.tensor([2.0, 3.0, 4.0])
        out, extra = lib.cond(x.sum() > 0, true_fn, false_fn, (x, {"k": k}))
        (out.sum() + extra["s"]).backward()
        return out, extra["s"], x.grad, w.grad, type(out.grad_fn).__name__

    ours, theirs = both(run)
    assert ours[-1] == theirs[-1] == "CondAutogradOpBackward"
    assert_close(ours[:-1], theirs[:-1], 1e-12, 1e-12)


def test_a_constant_predicate_runs_the_branch_as_it_is():
    def run(lib):
        x = lib.tensor(X, requires_grad=True)
        return [
            type(lib.cond(p, lambda a: a.sin(), lambda a: a.cos(), (x,)).grad_fn).__name__
            for p in (True, 0, 2.5)
        ]

    ours, theirs = both(run)
    assert ours == theirs == ["SinBackward0", "CosBackward0", "SinBackward0"]


def test_cond_without_operands_differentiates_its_closures():
    def run(lib):
        x = lib.tensor(X, requires_grad=True)
        y = lib.cond(lib.tensor(False), lambda: x.exp().sum(), lambda: (x * x).sum())
        y.backward()
        return y, x.grad

    assert_close(*both(run), 1e-12, 1e-12)


def test_cond_changes_no_input_of_a_refused_branch():
    def run(lib):
        x = lib.tensor(X)
        try:
            lib.cond(x.sum() > 0, lambda a: a.add_(1.0) * 2, lambda a: a * 3, (x,))
        except RuntimeError:
            pass
        return x

    assert_close(*both(run), 0.0, 0.0)
    assert np.array_equal(run(cr).numpy(), X)


@pytest.mark.parametrize(
    "case,phrase",
    [
        ("vector pred", "Expected pred to be bool or single-element tensor"),
        ("not callable", "Expect both branches to be callable."),
        ("int operand", "only consists of tensor leaves"),
        ("mutation", "Encountered input mutation during higher order op tracing"),
        ("aliasing", "Encountered aliasing during higher order op tracing"),
        ("view", "Encountered aliasing during higher order op tracing"),
        ("untaken aliasing", "Encountered aliasing during higher order op tracing"),
        ("dims", "When merging two branches' output in torch.cond,  expected same dim"),
        ("dtypes", "expected same dtype but got torch.float64 and torch.int64"),
        ("structure", "Unmatched output spec from torch.cond branches"),
    ],
)
def test_cond_refuses_what_pytorch_refuses(case, phrase):
    def run(lib):
        x = lib.tensor(X)
        p = x.sum() > 0
        sin = lambda a: a.sin()  # noqa: E731
        fns = {
            "vector pred": (x > 0, sin, sin, (x,)),
            "not callable": (p, 1, sin, (x,)),
            "int operand": (p, lambda a, n: a * n, lambda a, n: a + n, (x, 2)),
            "mutation": (p, lambda a: a.mul_(2), sin, (x,)),
            "aliasing": (p, lambda a: a, sin, (x,)),
            "view": (p, lambda a: a[:2], sin, (x,)),
            "untaken aliasing": (p, sin, lambda a: a, (x,)),
            "dims": (p, sin, lambda a: a.sum(), (x,)),
            "dtypes": (p, sin, lambda a: a.long(), (x,)),
            "structure": (p, lambda a: (a.sin(), a.cos()), sin, (x,)),
        }
        return lib.cond(*fns[case])

    same_refusal(run, phrase)


def test_cond_maps_under_vmap():
    def run(lib):
        xs = lib.tensor(np.stack([X, -X, 0.5 * X]), requires_grad=True)

        def f(a):
            return lib.cond(a.sum() > 0, lambda b: b * b, lambda b: b.exp(), (a,))

        out = lib.func.vmap(f)(xs)
        out.sum().backward()
        return out, xs.grad

    assert_close(*both(run), 1e-12, 1e-12)


def test_cond_gradients_differentiate_again():
    # beyond PyTorch, whose cond has no double backward: d^2/dx^2 sum(x^3) = 6x
    x = cr.tensor(X, requires_grad=True)
    y = cr.cond(x.sum() > 0, lambda a: (a**3).sum(), lambda a: (a**2).sum(), (x,))
    (g,) = cr.autograd.grad(y, x, create_graph=True)
    (h,) = cr.autograd.grad(g.sum(), x)
    assert np.array_equal(g.detach().numpy(), 3 * X**2)
    assert np.array_equal(h.numpy(), 6 * X)


def test_cond_forward_mode_tangent_is_the_branchs():
    x = cr.tensor(X)
    v = cr.tensor([1.0, 0.0, 2.0])
    f = lambda a: cr.cond(a.sum() > 0, lambda b: b.sin(), lambda b: b.cos(), (a,))  # noqa: E731
    _, tangent = cr.func.jvp(f, (x,), (v,))
    assert np.allclose(tangent.numpy(), np.cos(X) * v.numpy(), rtol=1e-15, atol=0)


def test_functorch_control_flow_names_the_same_operators():
    assert torch_control_flow.cond is torch.cond
    import chainrule.functorch.experimental.control_flow as cr_control_flow

    assert cr_control_flow.cond is cr.cond is cr_hops.cond
    assert cr_control_flow.map is cr_hops.map
    assert cr.while_loop is cr_hops.while_loop


# ----- while_loop ------------------------------------------------------------------------


def test_while_loop_values_gradients_and_node():
    def run(lib):
        x = lib.tensor(X, requires_grad=True)
        i, y = lib.while_loop(
            lambda i, a: i < 3, lambda i, a: (i + 1, a * 2 + a.sin()), (lib.tensor(0), x)
        )
        y.sum().backward()
        return i, y, x.grad, type(y.grad_fn).__name__

    ours, theirs = both(run)
    assert ours[-1] == theirs[-1] == "WhileLoopAutogradOpBackward"
    assert_close(ours[:-1], theirs[:-1], 1e-12, 1e-12)


def test_while_loop_returns_in_the_bodys_structure():
    def run(lib):
        x = lib.tensor(np.abs(X) + 0.5)
        one = lib.while_loop(lambda a: a.sum() < 10, lambda a: a * 2, (x,))
        listed = lib.while_loop(lambda i, a: i < 2, lambda i, a: [i + 1, a + 1], (lib.tensor(0), x))
        return type(one).__name__, one, type(listed).__name__, listed

    ours, theirs = both(run)
    assert (ours[0], ours[2]) == (theirs[0], theirs[2]) == ("Tensor", "list")
    assert_close((ours[1], ours[3]), (theirs[1], theirs[3]), 0.0, 0.0)


@pytest.mark.parametrize(
    "case,phrase",
    [
        ("shape", "Expected body_fn_output and carried_inputs to have same metadata"),
        ("dtype", "'dtype: torch.float32 vs torch.int64'"),
        ("count", "Expected body_fn_output and carried_inputs to have same number of outputs"),
        ("vector cond", "Expected cond_fn to return a scalar tensor or a bool"),
        ("not callable", "Expect cond_fn and body_fn to be callable."),
    ],
)
def test_while_loop_refuses_what_pytorch_refuses(case, phrase):
    def run(lib):
        x = lib.tensor(X, requires_grad=True)
        i = lib.tensor(0)
        cases = {
            "shape": (lambda i, a: i < 3, lambda i, a: (i + 1, a.sum()), (i, x)),
            "dtype": (lambda i, a: i < 3, lambda i, a: (i + 1.0, a * 2), (i, x)),
            "count": (lambda i, a: i < 3, lambda i, a: (i + 1,), (i, x)),
            "vector cond": (lambda i, a: a < 3, lambda i, a: (i + 1, a * 2), (i, x)),
            "not callable": (3, lambda i, a: (i + 1, a * 2), (i, x)),
        }
        return lib.while_loop(*cases[case])

    same_refusal(run, phrase)


# ----- scan, map, associative_scan ---------------------------------------------------------


# (PyTorch's scan, compiling, reaches a TorchScript name that warns of its deprecation)
@pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated:DeprecationWarning")
@pytest.mark.parametrize("dim,reverse", [(0, False), (1, True), (-1, False)])
def test_scan_carries_and_stacks_as_pytorchs(dim, reverse):
    def run(lib):
        xs = lib.tensor(np.linspace(-1.0, 2.0, 12).reshape(3, 4), requires_grad=True)
        w = lib.tensor(0.75, requires_grad=True)
        init = {"h": lib.zeros(4 if dim == 0 else 3, dtype=xs.dtype), "n": lib.tensor(1.0)}

        def step(carry, x):
            h = (carry["h"] * w + x).tanh()
            return {"h": h, "n": carry["n"] * 2}, (h * carry["n"], x.exp())

        carry, (ys, es) = hops(lib).scan(step, init, xs, dim=dim, reverse=reverse)
        (carry["h"].sum() + ys.sum() + es.sum()).backward()
        names = type(carry["h"].grad_fn).__name__, type(ys.grad_fn).__name__
        return carry, ys, es, xs.grad, w.grad, names

    ours, theirs = both(run)
    # the stacked outputs are the node's, then flipped back and moved to dim (PyTorch's order)
    assert ours[-1] == theirs[-1]
    assert ours[-1][0] == "ScanAutogradOpBackward"
    assert_close(ours[:-1], theirs[:-1], 1e-12, 1e-12)


def test_map_applies_to_each_slice_with_extra_arguments():
    def run(lib):
        xs = lib.tensor(np.linspace(-1.0, 2.0, 6).reshape(3, 2), requires_grad=True)
        b = lib.tensor([0.5, -1.0], requires_grad=True)
        out = hops(lib).map(lambda x, b: {"y": (x * b).sin()}, xs, b)
        out["y"].sum().backward()
        return out["y"], xs.grad, b.grad, type(out["y"].grad_fn).__name__

    ours, theirs = both(run)
    assert ours[-1] == theirs[-1] == "MapAutogradOpBackward"
    assert_close(ours[:-1], theirs[:-1], 1e-12, 1e-12)


@pytest.mark.parametrize("n,dim,reverse", [(7, 0, False), (8, 1, True), (1, 0, False)])
def test_associative_scan_rounds_as_pytorchs_parallel_scan(n, dim, reverse):
    # float32 sums: only the same association of the terms gives the same bits
    values = np.random.default_rng(n).standard_normal((n, 3)).astype(np.float32)

    def run(lib):
        xs = lib.tensor(values if dim == 0 else values.T.copy(), requires_grad=True)
        out = hops(lib).associative_scan(
            lambda a, b: a + b, xs, dim, reverse=reverse, combine_mode="generic"
        )
        prod = hops(lib).associative_scan(
            lambda a, b: {"p": a["p"] * b["p"]}, {"p": xs}, dim, combine_mode="generic"
        )
        (out.sum() + prod["p"].sum()).backward()
        return out, prod["p"], xs.grad

    ours, theirs = both(run)
    assert_close(ours[:2], theirs[:2], 0.0, 0.0)
    assert_close(ours[2], theirs[2], 1e-5, 1e-6)


def test_associative_scan_pointwise_needs_a_gpu():
    same_refusal(
        lambda lib: hops(lib).associative_scan(lambda a, b: a + b, lib.ones(3), 0),
        "For combine_mode='pointwise', all input tensors need to be on CUDA or XPU",
    )
