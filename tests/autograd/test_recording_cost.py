"""The recording path's fast paths, pinned to the general path they shortcut and to PyTorch.

``Op._fast`` makes the output and its node for the common calls (a float tensor alone, or
with a Python number or a tensor of its dtype); the operators, unary functions, ``x.sum()``
and ``x[1:]`` call it directly. ``Op._wrap`` is the general output step. Each fast path must
give what the general path gives: values bit for bit, dtype, grad_fn names, next_functions,
version counters, views, saved values and their checks, gradients and errors. Saving is
specialised per save plan (``saving._saver``); each saver is pinned to ``Op._save``.
A recorded node is one object for the cyclic collector, saved inputs included."""

from __future__ import annotations

import gc
import threading

import numpy as np
import pytest
import torch

import chainrule as cr
from chainrule import _backend
from chainrule._backend import loud, quiet, scalar
from chainrule.autograd.graph import OUTPUT_CHECK
from chainrule.autograd.recording import Op
from chainrule.autograd.registry import REGISTRY
from chainrule.ops import (
    activations,
    arithmetic,
    indexing,
    losses,
    normalizations,
    reductions,
    shapes,
    unary,
)
from chainrule.ops.linalg import products
from oracle import assert_same_error, compare, graph_names


def _general(op: Op, args: tuple, params: dict):
    """``op(*args, **params)`` through the general path: cast, forward, ``Op._wrap``."""
    token = quiet()
    try:
        arrays = op._cast_inputs(args, params)
        out = op.forward(*arrays, **params)
    finally:
        loud(token)
    return op._wrap(args, arrays, params, out)


def _leaf(shape=(3,), dtype=cr.float32, seed=0, grad=True):
    r = np.random.default_rng(seed)
    return cr.tensor(r.standard_normal(shape), dtype=dtype, requires_grad=grad)


def _assert_same_tensor(got, want) -> None:
    a, b = got.detach().numpy(), want.detach().numpy()
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(np.signbit(a), np.signbit(b))
    assert got.dtype is want.dtype
    assert got.requires_grad == want.requires_grad
    assert got.is_leaf == want.is_leaf
    assert got._version == want._version
    assert (got._view is None) == (want._view is None)
    if got._view is not None:
        assert got._view[0] is want._view[0] and got._view[2] == want._view[2]
        assert got._view[1] == want._view[1]  # the steps: (op, params) from the base
        assert got._vc is want._vc
    if got.grad_fn is not None:
        assert type(got.grad_fn) is type(want.grad_fn)
        assert got.grad_fn._plan is want.grad_fn._plan
        assert graph_names(got) == graph_names(want)


def _grads(make, inputs: list) -> list:
    for t in inputs:
        t.grad = None
    out = make()
    out.backward(cr.ones_like(out))
    return [None if t.grad is None else t.grad.numpy().copy() for t in inputs]


# ----- each fast entry gives what the general path gives ----------------------------------

x3, y3 = _leaf(seed=1), _leaf(seed=2)
m, w = _leaf((3, 4), seed=3), _leaf((4, 2), seed=4)
c3 = _leaf(seed=5, grad=False)
z = cr.tensor([-0.0, 0.0, float("nan"), -1.5, 2.0, -float("nan")], requires_grad=True)
s0 = cr.tensor(1.5, requires_grad=True)  # 0-d: NumPy gives a scalar, the general output step
h3 = _leaf(dtype=cr.float16, seed=6)
bt = _leaf((2, 3, 4), seed=7)
b2, wt = _leaf((2,), seed=8), _leaf((2, 4), seed=9)  # wt.t(): a weight stored transposed
ct = _leaf((2, 3), seed=10, grad=False)
d3 = _leaf(dtype=cr.float64, seed=11)
pm = cr.nn.Parameter(_leaf((3, 4), seed=13, grad=False))  # Parameters: plain tensors to ops
px = cr.nn.Parameter(_leaf(seed=14, grad=False))
v4 = _leaf((4,), seed=15)
hm = _leaf((3, 3), dtype=cr.float16, seed=12)
big = _leaf((50, 100), seed=16)  # summed by BLAS (_backend.whole_sum)

# (fast call, op, args, params): the fast call and the general path on the same inputs
CASES = {
    "x + y": (lambda: x3 + y3, arithmetic.add, (x3, y3), {}),
    "x + 2": (lambda: x3 + 2, arithmetic.add, (x3, 2), {}),
    "2 + x": (lambda: 2 + x3, arithmetic.add, (x3, 2), {}),
    "x + c": (lambda: x3 + c3, arithmetic.add, (x3, c3), {}),
    "c + x": (lambda: c3 + x3, arithmetic.add, (c3, x3), {}),
    "x.add(y, alpha=2)": (lambda: x3.add(y3, alpha=2), arithmetic.add, (x3, y3), {"alpha": 2}),
    "x - y": (lambda: x3 - y3, arithmetic.sub, (x3, y3), {}),
    "x - 2": (lambda: x3 - 2, arithmetic.sub, (x3, 2), {}),
    "s * 3": (lambda: s0 * 3, arithmetic.mul, (s0, 3), {}),
    "h * 1e5": (lambda: h3 * 1e5, arithmetic.mul, (h3, 1e5), {}),  # overflows: inf, silently
    "h * h": (lambda: h3 * h3, arithmetic.mul, (h3, h3), {}),
    "x * h": (lambda: x3 * h3, arithmetic.mul, (x3, h3), {}),  # promoted: the general path
    "(x * 2) * y": (lambda: (x3 * 2) * y3, None, None, None),
    "x * True": (lambda: x3 * True, arithmetic.mul, (x3, True), {}),
    "x * -0.0": (lambda: x3 * -0.0, arithmetic.mul, (x3, -0.0), {}),  # signs of zeros kept
    "x * 0.0": (lambda: x3 * 0.0, arithmetic.mul, (x3, 0.0), {}),
    "x * 2**60": (lambda: x3 * 2**60 + 1, None, None, None),
    "h / 3": (lambda: h3 / 3, arithmetic.div, (h3, 3), {}),
    "x * nan": (lambda: x3 * float("nan"), arithmetic.mul, (x3, float("nan")), {}),
    "x * y": (lambda: x3 * y3, arithmetic.mul, (x3, y3), {}),
    "x * x": (lambda: x3 * x3, arithmetic.mul, (x3, x3), {}),
    "x * 0.5": (lambda: x3 * 0.5, arithmetic.mul, (x3, 0.5), {}),
    "c * x": (lambda: c3 * x3, arithmetic.mul, (c3, x3), {}),
    "x / y": (lambda: x3 / y3, arithmetic.div, (x3, y3), {}),
    "x / 0.0": (lambda: x3 / 0.0, arithmetic.div, (x3, 0.0), {}),
    "x @ y": (lambda: x3 @ y3, products.matmul, (x3, y3), {}),
    "m @ w": (lambda: m @ w, products.matmul, (m, w), {}),
    "x @ m": (lambda: x3 @ m, products.matmul, (x3, m), {}),
    "m @ w[:, 0]": (lambda: m @ w[:, 0], None, None, None),
    "w.t() @ m.t()": (lambda: w.t() @ m.t(), None, None, None),  # F layouts saved
    "b @ w": (lambda: bt @ w, products.matmul, (bt, w), {}),  # batched
    "c @ x": (lambda: c3 @ x3, products.matmul, (c3, x3), {}),
    "m @ c": (lambda: m.t() @ c3, None, None, None),
    "x @ c": (lambda: x3 @ c3, products.matmul, (x3, c3), {}),
    "c @ c": (lambda: c3 @ c3, products.matmul, (c3, c3), {}),  # no gradient: no node
    "d @ d": (lambda: d3 @ d3, products.matmul, (d3, d3), {}),  # float64: BLAS's dot
    "h @ h": (lambda: h3 @ h3, products.matmul, (h3, h3), {}),  # float16: matmul's loop
    "ct @ m": (lambda: ct @ m, products.matmul, (ct, m), {}),
    "m @ ct.t()": (lambda: m.t() @ ct.t(), None, None, None),  # F layouts, one without grad
    "hm @ hm": (lambda: hm @ hm, products.matmul, (hm, hm), {}),  # float16 matrices
    "m.view(4, 3)": (lambda: m.view(4, 3), shapes.view, (m,), {"shape": (4, 3)}),
    "m.view(-1)": (lambda: m.view(-1), shapes.view, (m,), {"shape": (12,)}),
    "m.reshape(2, 6)": (lambda: m.reshape(2, 6), shapes.view, (m,), {"shape": (2, 6)}),
    "cr.reshape(m, (6, -1))": (
        lambda: cr.reshape(m, (6, -1)),
        shapes.view,
        (m,),
        {"shape": (6, 2)},
    ),
    "m.flatten()": (lambda: m.flatten(), shapes.view, (m,), {"shape": (12,)}),
    "b.flatten(1)": (lambda: bt.flatten(1), shapes.view, (bt,), {"shape": (2, 12)}),
    "x.flatten()": (lambda: x3.flatten(), None, None, None),  # 1-D: the input itself
    "ct.view(3, 2)": (lambda: ct.view(3, 2), shapes.view, (ct,), {"shape": (3, 2)}),
    "m.unsqueeze(1)": (lambda: m.unsqueeze(1), shapes.unsqueeze, (m,), {"dim": 1, "variant": 0}),
    "m.unsqueeze(-1)": (lambda: m.unsqueeze(-1), shapes.unsqueeze, (m,), {"dim": 2, "variant": 0}),
    "m.transpose(0, 1)": (
        lambda: m.transpose(0, 1),
        shapes.transpose,
        (m,),
        {"dim0": 0, "dim1": 1, "variant": 0},
    ),
    "b.transpose(-1, 0)": (
        lambda: bt.transpose(-1, 0),
        shapes.transpose,
        (bt,),
        {"dim0": 2, "dim1": 0, "variant": 0},
    ),
    "m[0]": (lambda: m[0], indexing.getitem, (m,), {"key": 0}),
    "m[-1]": (lambda: m[-1], indexing.getitem, (m,), {"key": -1}),
    "m[:, 1]": (lambda: m[:, 1], indexing.getitem, (m,), {"key": (slice(None), 1)}),
    "m[1, 2]": (lambda: m[1, 2], indexing.getitem, (m,), {"key": (1, 2)}),  # 0-d: not a view
    "x[1]": (lambda: x3[1], indexing.getitem, (x3,), {"key": 1}),  # 0-d
    "b[..., 1:]": (
        lambda: bt[..., 1:],
        indexing.getitem,
        (bt,),
        {"key": (Ellipsis, slice(1, None))},
    ),
    "m.t().unsqueeze(0)": (lambda: m.t().unsqueeze(0), None, None, None),  # a view's view
    "p * 2": (lambda: pm * 2, arithmetic.mul, (pm, 2), {}),
    "x + p": (lambda: x3 + px, arithmetic.add, (x3, px), {}),
    "p * x": (lambda: px * x3, arithmetic.mul, (px, x3), {}),
    "p @ w": (lambda: pm @ w, products.matmul, (pm, w), {}),
    "m @ v": (lambda: m @ v4, products.matmul, (m, v4), {}),  # mv
    "m.t() @ x": (lambda: m.t() @ x3, None, None, None),  # mv, F layout
    "c @ v": (lambda: ct @ x3, products.matmul, (ct, x3), {}),  # mv, matrix without grad
    "p.exp()": (lambda: pm.exp(), unary.exp, (pm,), {}),
    "relu(p)": (lambda: cr.relu(pm), activations.relu, (pm,), {}),
    "p.t()": (lambda: pm.t(), shapes.t, (pm,), {}),
    "x.sum()": (lambda: x3.sum(), reductions.sum, (x3,), {}),
    "cr.sum(m)": (lambda: cr.sum(m), reductions.sum, (m,), {}),
    "m.t().sum()": (lambda: m.t().sum(), None, None, None),  # a view's sum
    "big.sum()": (lambda: big.sum(), reductions.sum, (big,), {}),
    "big.t().sum()": (lambda: big.t().sum(), None, None, None),  # not contiguous: add.reduce
    "h.sum()": (lambda: h3.sum(), reductions.sum, (h3,), {}),  # float16: the general path
    "c.sum()": (lambda: c3.sum(), reductions.sum, (c3,), {}),
    "s.sum()": (lambda: s0.sum(), reductions.sum, (s0,), {}),
    "relu(z)": (lambda: cr.relu(z), activations.relu, (z,), {}),
    "z.relu()": (lambda: z.relu(), activations.relu, (z,), {}),
    "x.exp()": (lambda: x3.exp(), unary.exp, (x3,), {}),
    "cr.tanh(x)": (lambda: cr.tanh(x3), unary.tanh, (x3,), {}),
    "cr.exp(c)": (lambda: cr.exp(c3), unary.exp, (c3,), {}),
    "relu(s)": (lambda: cr.relu(s0), activations.relu, (s0,), {}),  # 0-d: NumPy's scalar
    "relu(h)": (lambda: cr.relu(h3), activations.relu, (h3,), {}),
    "sqrt(x)": (lambda: cr.sqrt(x3), unary.sqrt, (x3,), {}),  # nan, silently
    "-x": (lambda: -x3, arithmetic.neg, (x3,), {}),
    "x[1:]": (lambda: x3[1:], indexing.getitem, (x3,), {"key": slice(1, None)}),
    "m[1:]": (lambda: m[1:], indexing.getitem, (m,), {"key": slice(1, None)}),
    "m[:-1]": (lambda: m[:-1], indexing.getitem, (m,), {"key": slice(None, -1)}),
    "x[5:]": (lambda: x3[5:], indexing.getitem, (x3,), {"key": slice(5, None)}),
    "x[1:][1:]": (lambda: x3[1:][1:], None, None, None),
    "c[1:]": (lambda: c3[1:], indexing.getitem, (c3,), {"key": slice(1, None)}),
    "m.t()": (lambda: m.t(), shapes.t, (m,), {}),
    "cr.t(m)": (lambda: cr.t(m), shapes.t, (m,), {}),
    "x.t()": (lambda: x3.t(), shapes.t, (x3,), {}),  # 1-D: the general path
    "m[1:].t()": (lambda: m[1:].t(), None, None, None),  # a view's transpose
    "ct.t()": (lambda: ct.t(), shapes.t, (ct,), {}),  # no gradient: a view all the same
    # ops whose forward decides the dtype (no cast), with two inputs: Op._fast too
    "threshold_backward(y, x)": (
        lambda: activations.threshold_backward(y3, x3, threshold=0.5),
        activations.threshold_backward,
        (y3, x3),
        {"threshold": 0.5},
    ),
    "threshold_backward(y, c)": (
        lambda: activations.threshold_backward(y3, c3),
        activations.threshold_backward,
        (y3, c3),
        {},
    ),
    "threshold_backward(c, x)": (
        lambda: activations.threshold_backward(c3, x3),
        activations.threshold_backward,
        (c3, x3),
        {},
    ),
    # a parameter given by position (a VJP's ``sum_to(g, x_shape)``) is the parameter
    "sum_to(m, (4,))": (lambda: shapes.sum_to(m, (4,)), shapes.sum_to, (m,), {"shape": (4,)}),
    "expand(x, (2, 3))": (
        lambda: shapes.expand(x3, (2, 3)),
        shapes.expand,
        (x3,),
        {"shape": (2, 3)},
    ),
}


@pytest.mark.parametrize("grad", ["grad", "no_grad"])
@pytest.mark.parametrize("case", CASES)
def test_fast_path_gives_what_the_general_path_gives(case, grad):
    fast, op, args, params = CASES[case]
    if case in ("m @ w[:, 0]", "w.t() @ m.t()", "m @ c", "m @ ct.t()", "m.t() @ x"):  # views
        first, second = {
            "m @ w[:, 0]": (
                lambda: m,
                lambda: _general(indexing.getitem, (w,), {"key": (slice(None), 0)}),
            ),
            "w.t() @ m.t()": (
                lambda: _general(shapes.t, (w,), {}),
                lambda: _general(shapes.t, (m,), {}),
            ),
            "m @ c": (lambda: _general(shapes.t, (m,), {}), lambda: c3),
            "m @ ct.t()": (
                lambda: _general(shapes.t, (m,), {}),
                lambda: _general(shapes.t, (ct,), {}),
            ),
            "m.t() @ x": (lambda: _general(shapes.t, (m,), {}), lambda: x3),
        }[case]

        def general():
            return _general(products.matmul, (first(), second()), {})

    elif case == "x.flatten()":

        def general():
            return x3

    elif case == "m.t().unsqueeze(0)":

        def general():
            view = _general(shapes.t, (m,), {})
            return _general(shapes.unsqueeze, (view,), {"dim": 0, "variant": 0})

    elif case == "m.t().sum()":

        def general():
            return _general(reductions.sum, (_general(shapes.t, (m,), {}),), {})

    elif case == "big.t().sum()":

        def general():
            return _general(reductions.sum, (_general(shapes.t, (big,), {}),), {})

    elif case == "x * 2**60":

        def general():
            return _general(arithmetic.add, (_general(arithmetic.mul, (x3, 2**60), {}), 1), {})

    elif case == "m[1:].t()":

        def general():
            view = _general(indexing.getitem, (m,), {"key": slice(1, None)})
            return _general(shapes.t, (view,), {})

    elif case == "(x * 2) * y":  # a non-leaf operand: the general path for both steps

        def general():
            return _general(arithmetic.mul, (_general(arithmetic.mul, (x3, 2), {}), y3), {})

    elif op is None:  # a view of a view: the general path for both steps
        op, params = indexing.getitem, {"key": slice(1, None)}

        def general():
            return _general(op, (_general(op, (x3,), params),), params)

    else:

        def general():
            return _general(op, args, params)

    if grad == "no_grad":
        with cr.no_grad():
            got, want = fast(), general()
        _assert_same_tensor(got, want)
        assert got.grad_fn is None
        return
    got, want = fast(), general()
    _assert_same_tensor(got, want)
    inputs = [x3, y3, m, w, z, s0, h3, bt, d3, hm, pm, px, v4]
    if got.requires_grad:
        for g, h in zip(_grads(fast, inputs), _grads(general, inputs)):
            assert (g is None) == (h is None)
            if g is not None:
                np.testing.assert_array_equal(g, h)


def test_parameter_given_by_position_is_a_parameter_as_torch():
    """``sum_to(g, shape)``, as VJPs call it: one input, one edge (PyTorch's SumBackward1
    has one), the shape saved as the parameter; given twice, Python's TypeError."""
    got = shapes.sum_to(m, (1, 4))
    want = torch.from_numpy(m.detach().numpy()).requires_grad_().sum_to_size(1, 4)
    assert got.grad_fn.name() == want.grad_fn.name() == "SumBackward1"
    assert len(got.grad_fn.next_functions) == len(want.grad_fn.next_functions) == 1
    with pytest.raises(TypeError, match="multiple values for argument 'shape'"):
        shapes.sum_to(m, (4,), shape=(4,))


def test_fast_path_output_is_fresh_and_nodes_are_not_shared():
    a, b = x3 * y3, x3 * y3
    assert a is not b and a.grad_fn is not b.grad_fn
    assert a.grad_fn.next_functions[0][0] is b.grad_fn.next_functions[0][0]  # one AccumulateGrad


@pytest.mark.parametrize(
    "case",
    [
        lambda lib: lib.ones(3, requires_grad=True) + lib.ones(2),  # shapes do not broadcast
        lambda lib: lib.ones(3, requires_grad=True) @ lib.ones(2, requires_grad=True),
        lambda lib: lib.ones(2, 3, requires_grad=True) @ lib.ones(2, 3),
        lambda lib: lib.ones(3, requires_grad=True)[::-1],  # a negative step
        lambda lib: lib.relu(lib.tensor([True])),
    ],
)
def test_fast_path_errors_are_torchs(case):
    assert_same_error(case)


@pytest.mark.parametrize(
    "step, written, raises",
    [
        (lambda lib, x, y: x * y, "inputs", True),
        (lambda lib, x, y: x @ y, "inputs", True),
        (lambda lib, x, y: y / x, "inputs", True),
        (lambda lib, x, y: x * 2, "inputs", False),  # saves no tensor
        (lambda lib, x, y: lib.relu(x), "output", True),
        (lambda lib, x, y: x.exp(), "output", True),
        (lambda lib, x, y: x.sum(), "inputs", False),  # saves a shape
    ],
)
def test_saved_value_written_in_place_raises_torchs_error(step, written, raises):
    def run(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = lib.tensor([4.0, 5.0, 6.0], requires_grad=True)
        a, b = x * 1, y * 1
        out = step(lib, a, b)
        with lib.no_grad():
            for t in (a, b) if written == "inputs" else (out,):
                t.mul_(2)
        out.sum().backward()
        return x.grad, y.grad

    if raises:
        assert_same_error(run)
    else:
        compare(run)


def test_saved_input_read_at_backward_as_torch():
    """A saved input is read from its tensor at backward, as PyTorch's saved variables: a
    ``.data`` swap (no version bump) is seen."""

    def run(lib):
        x = lib.ones(3, requires_grad=True)
        w = lib.full((3,), 2.0, requires_grad=True)
        y = x * w
        w.data = lib.full((3,), 5.0)
        y.sum().backward()
        return x.grad, w.grad

    compare(run)


def test_leaf_accumulator_made_when_the_edges_are_read():
    """A leaf's edge is recorded as the leaf; its AccumulateGrad is made once and shared,
    and a hook registered on it through next_functions stays with the graph, as PyTorch's."""

    def run(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        calls = []
        y = x * 2
        acc = y.grad_fn.next_functions[0][0]
        acc.register_hook(lambda gi, go: calls.append(go[0].sum().item()))
        z = x * 3
        same = z.grad_fn.next_functions[0][0] is acc
        del acc
        (y + z).sum().backward()
        return same, calls, x.grad, y.grad_fn.next_functions[0][0].variable is x

    compare(run)


# ----- relu: NumPy's clip ufunc (or maximum) against cached bounds, bit for bit PyTorch's ---


@pytest.mark.parametrize("kernel", ["clip", "maximum"])
@pytest.mark.parametrize("dt", ["float16", "float32", "float64"])
@pytest.mark.parametrize("shape", [(9,), (100, 100)])
def test_relu_matches_torch_bit_for_bit(dt, shape, kernel, monkeypatch):
    if kernel == "maximum":  # the path without NumPy 2's clip ufunc
        monkeypatch.setattr(activations, "clip_ufunc", None)
        monkeypatch.setattr(activations, "_BOUNDS", {})
    special = np.array([-0.0, 0.0, np.nan, -np.nan, -1.0, 2.0, np.inf, -np.inf, 1e-8])
    a = np.resize(special, shape).astype(dt)
    for arr in (a, a[..., ::2], a.T):
        got = cr.relu(cr.from_numpy(arr)).numpy()
        want = torch.relu(torch.from_numpy(arr.copy())).numpy()
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


# ----- savers specialised per plan, pinned to Op._save ------------------------------------

SAVES = [
    (arithmetic.mul, (x3, y3), {}),
    (arithmetic.mul, (x3, 2.0), {}),
    (arithmetic.mul, (c3, x3), {}),
    (arithmetic.div, (x3, y3), {}),
    (products.matmul, (m, w), {}),
    (products.matmul, (x3, m), {}),
    (products.matmul, (c3, m), {}),
    (products.mm, (m, w), {}),
    (products.mm, (w.t(), m.t()), {}),  # F layouts
    (arithmetic.add, (x3, y3), {"alpha": 3}),
    (arithmetic.add, (x3, y3), {}),
    (reductions.sum, (m,), {"dim": 1, "keepdim": True}),
    (reductions.sum, (m,), {}),
    (reductions.mean, (m,), {"dim": 0}),
    (activations.relu, (x3,), {}),
    (unary.exp, (x3,), {}),
    (indexing.getitem, (m,), {"key": (slice(1, None), 2)}),
    (products.addmm, (b2, m, w), {}),  # inputs, layouts and parameters, interleaved
    (products.addmm, (b2, m, wt.t()), {"alpha": 2.0, "beta": 0.5}),
    (products.addmm, (b2, c3.reshape(1, 3).t(), w[:1]), {}),
    (activations.threshold_backward, (y3, x3), {}),  # an input and a parameter
    (activations.threshold_backward, (y3, x3), {"threshold": 0.5}),
    (normalizations.log_softmax, (m,), {"dim": 1}),  # the output and a parameter
    (normalizations.log_softmax, (m,), {}),
    (normalizations.log_softmax_backward_data, (m, m.exp()), {"dim": 0}),
    (normalizations.softmax, (m,), {"dim": 0}),
    (losses.nll_loss, (m.log_softmax(1),), {"target": np.array([1, 0, 3]), "reduction": "sum"}),
    (losses.nll_loss, (m.log_softmax(1),), {"target": np.array([1, 0, 3])}),
]


@pytest.mark.parametrize("op, args, params", SAVES, ids=lambda v: getattr(v, "name", None))
def test_saver_saves_what_op_save_saves(op, args, params):
    out = _general(op, args, params)
    node, plan = out.grad_fn, out.grad_fn._plan
    assert plan.save is not None
    by_plan = list(node._saved_values(False))
    checks = node._checks
    op._save(
        node,
        plan,
        args,
        [a._data if isinstance(a, cr.Tensor) else a for a in args],
        params,
        out._data,
        out,
    )
    general = list(node._saved_values(False))
    assert len(by_plan) == len(general)
    for a, b in zip(by_plan, general):
        assert type(a) is type(b)
        if isinstance(a, np.ndarray):
            assert a is b or np.array_equal(a, b)
        else:
            assert a == b
    if checks is OUTPUT_CHECK:  # the output's version, kept in the node's slots
        checks = ((out._vc, node._out_v, 0),)
        assert node._out_id == id(out) and node._out_vc is out._vc  # linked when made
    assert [(id(vc), v, i) for vc, v, i in checks] == [(id(vc), v, i) for vc, v, i in node._checks]


# ----- one object per recorded node for the collector ------------------------------------


def _tracked_growth(build) -> tuple[int, int]:
    """(objects the collector tracks while ``build()``'s result lives, nodes in its graph)."""
    build()  # once first: what is made once (save plans, caches) is not counted
    gc.collect()
    before = len(gc.get_objects())
    kept = build()
    gc.collect()
    gc.collect()  # (a tuple of shape tuples is untracked once the shapes are)
    grown = len(gc.get_objects()) - before
    nodes, stack, seen = 0, [kept.grad_fn], set()
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen or fn.name() == "torch::autograd::AccumulateGrad":
            continue
        seen.add(fn)
        nodes += 1
        stack.extend(f for f, _ in fn.next_functions)
    del kept
    return grown, nodes


@pytest.mark.parametrize(
    "step",
    [
        lambda y, c, v, mat: y * c,  # saves the constant tensor c, in the node's slot
        lambda y, c, v, mat: c * y,
        lambda y, c, v, mat: y / c,
        lambda y, c, v, mat: y * 2 + c,
        lambda y, c, v, mat: y.sum() * c,
        lambda y, c, v, mat: y - y.sum(),
        lambda y, c, v, mat: y.exp(),  # saves its output: its version in the node's slots
        lambda y, c, v, mat: cr.relu(y) + c,
        lambda y, c, v, mat: y.tanh() * c,
        lambda y, c, v, mat: y.sigmoid(),
    ],
)
def test_one_tracked_object_per_recorded_node_saving_inputs(step):
    """Ops that save their inputs keep them in the node's slots: the node is the one object
    the collector tracks per op (the inputs saved here exist anyway)."""
    n = 300
    x = cr.randn(3, requires_grad=True)
    c, v, mat = cr.randn(3), cr.randn(3), cr.randn(3, 3)

    def build():
        y = x * 1
        for _ in range(n):
            y = step(y, c, v, mat)
        return y

    grown, nodes = _tracked_growth(build)
    assert nodes >= n
    assert grown <= nodes + 5


@pytest.mark.parametrize(
    "write, raises",
    [
        (lambda lib, out: out.mul_(2), True),
        (lambda lib, out: out[1:].mul_(2), True),  # through a view made after the save
        (lambda lib, out: out.detach().mul_(2), True),  # through a detached alias
        (lambda lib, out: out.data.mul_(2), False),  # .data: unchecked, as in PyTorch
    ],
)
@pytest.mark.parametrize("op", ["exp", "relu", "tanh", "sigmoid"])
def test_saved_output_written_later_raises_torchs_error(op, write, raises):
    """An output saved before it had a version counter: every way of writing it later is
    seen (the counter, made on first need, is linked to the node)."""

    def run(lib):
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        out = getattr(lib, op)(x * 1)
        write(lib, out)
        out.sum().backward()
        return x.grad

    if raises:
        assert_same_error(run)
    else:
        compare(run)


@pytest.mark.parametrize(
    "op",
    [
        lambda lib, y: lib.log_softmax(y, 0),  # the output and a parameter
        lambda lib, y: lib.cumprod(y, 0),  # an input, the output and a parameter
        lambda lib, y: lib.logcumsumexp(y, 0),
    ],
)
@pytest.mark.parametrize("written", [True, False])
def test_saved_output_beside_other_values_is_checked_as_torch(op, written):
    """A saver keeping the output with inputs and parameters (saving._mixed_saver) checks
    it through the node's slots: a write raises PyTorch's error, naming the output."""

    def run(lib):
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        out = op(lib, x * 1)
        if written:
            out.mul_(2)
        out.sum().backward()
        return x.grad

    if written:
        assert_same_error(run)
    else:
        compare(run)


def test_saved_output_of_inplace_op_is_checked_as_torch():
    def run(lib):
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        y = x * 1
        y.exp_()  # saves its result, which is y now
        z = y * 1
        with lib.no_grad():
            y.add_(1)
        (z + y).sum().backward()

    assert_same_error(run)


def test_saved_output_unwritten_backward_as_torch():
    def run(lib):
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        out = x.exp()
        v = out[1:]  # a view: the counter is made and linked, nothing is written
        d = out.detach()
        (out.sum() + v.sum() + d.sum()).backward()
        return x.grad, out._version

    compare(run)


def test_operator_entry_in_inference_mode_with_grad_enabled_makes_an_inference_tensor():
    """Inside inference_mode, an op's output is an inference tensor whatever the grad mode,
    on the operators' entry as on the general path."""
    with cr.inference_mode(), cr.enable_grad():
        fast, general = x3 * 2, _general(arithmetic.mul, (x3, 2), {})
        assert fast.is_inference() and general.is_inference()
        assert (fast.grad_fn is None) == (general.grad_fn is None)


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("value", [0.1, 3, 1e5, -2.5, 1e-8, 2**53, float("inf")])
def test_kept_scalar_is_the_number_as_an_operand(dt, value):
    """A number as a kept 0-d array (_backend.scalar) gives a ufunc the result the number
    gives, bit for bit; zero (its sign) and nan are given back as they are."""
    a = np.random.default_rng(0).standard_normal(7).astype(dt)
    with np.errstate(all="ignore"):
        for ufunc in (np.multiply, np.add, np.true_divide, np.subtract):
            got = ufunc(a, scalar(value, a.dtype))
            want = ufunc(a, value)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
    assert scalar(-0.0, a.dtype) is not scalar(0.0, a.dtype)
    assert scalar(float("nan"), a.dtype) != scalar(float("nan"), a.dtype)


def test_operator_entry_refuses_to_save_an_inference_tensor_as_torch():
    def run(lib):
        with lib.inference_mode():
            c = lib.ones(3)
        x = lib.ones(3, requires_grad=True)
        return x * c

    assert_same_error(run)


def test_nodes_keep_one_tuple_per_input_shape():
    """A chain of ops on one shape keeps one shape tuple for all its nodes, not one each."""
    x = cr.randn(4, 3, requires_grad=True)
    y = x * 1
    nodes = []
    for step in (lambda t: t * 2, lambda t: t + x, lambda t: cr.relu(t), lambda t: t[1:]):
        y = step(y)
        nodes.append(y.grad_fn)
    shapes = [n._shape0 for n in nodes[:3]]
    assert shapes == [(4, 3)] * 3 and shapes[0] is shapes[1] is shapes[2]
    assert nodes[1]._shape1 is shapes[0]
    assert nodes[3]._shape0 is shapes[0] and nodes[3]._saved[0] is shapes[0]


# ----- the forwards' quiet context (_backend.quietly) and its fallback ----------------------


def _overflowing():
    """Ops whose forwards overflow float16 (inf, silently, as PyTorch), through each entry."""
    h = cr.tensor([60000.0, 1.0], dtype=cr.float16, requires_grad=True)
    return [h + h, h * h, h * 4.0, cr.exp(h), h.sum(), (h @ h)]


def test_an_op_run_while_the_quiet_context_is_in_use_falls_back_to_setting_the_state():
    want = [t.detach().numpy() for t in _overflowing()]
    # inside the context already (as a forward calling an op would be): entering it again
    # is refused before anything runs, and each op sets NumPy's error state instead
    got = _backend.quietly(_overflowing)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.detach().numpy(), w)
        assert g.grad_fn is not None
    assert np.isinf(want[0]).any()  # (the case overflows: a warning would be an error here)


def test_an_op_run_while_another_thread_holds_the_quiet_context():
    inside, release = threading.Event(), threading.Event()

    def holder():
        inside.set()
        release.wait(10)

    t = threading.Thread(target=lambda: _backend.quietly(holder))
    t.start()
    assert inside.wait(10)
    try:
        got = _overflowing()  # (the context is taken: every forward falls back)
    finally:
        release.set()
        t.join()
    want = _overflowing()
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.detach().numpy(), w.detach().numpy())


def test_a_forwards_own_runtime_error_is_not_taken_for_the_context_in_use():
    with pytest.raises(RuntimeError, match="must match the size"):
        cr.ones(2, requires_grad=True) + cr.ones(3)
    with pytest.raises(RuntimeError, match="inconsistent tensor size"):
        cr.ones(2, requires_grad=True) @ cr.ones(3)
    assert not _backend.in_use(RuntimeError("The size of tensor a (2) must match"))


def test_an_ops_plain_forward_is_its_forward_with_the_parameters_at_their_defaults():
    r = np.random.default_rng(0)
    ops = [op for op in REGISTRY.values() if isinstance(op, Op) and op.plain is not op.forward]
    assert {op.name for op in ops} >= {"add", "sub"}
    for op in ops:
        for dtype in (np.float16, np.float32, np.float64, np.int64):
            arrays = [(r.standard_normal((4, 3)) * 100).astype(dtype) for _ in op.args]
            with np.errstate(all="ignore"):
                want = op.forward(*arrays)
                got = op.plain(*arrays)
                number = op.plain(arrays[0], 3) if len(arrays) == 2 else None
                assert number is None or np.array_equal(number, op.forward(arrays[0], 3))
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)


def test_a_matrix_transpose_in_one_call_follows_its_base_as_torch():
    """``m.t()`` (entries.view_entry): a view sharing the base's version counter; written
    in place through the base, its graph is re-derived; t of 3 dims raises PyTorch's error;
    under create_graph the products' VJPs record TBackward0 through it."""

    def run(lib):
        a = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        b = a * 1
        v = b.t()
        versions = [v._version]
        b.mul_(2)
        versions.append(v._version)
        (v * v).sum().backward()
        w = lib.tensor([[0.5, -1.0], [2.0, 1.5], [1.0, 1.0]], requires_grad=True)
        (gw,) = lib.autograd.grad((a @ w).sum(), [w], create_graph=True)
        return a.grad, versions, v.grad_fn.name(), gw.grad_fn.name(), gw

    got, want = run(cr), run(torch)
    np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())
    assert got[1] == want[1] and got[3] == want[3]
    # re-derived by replaying its step on the base, the view names that step (PyTorch
    # re-derives it as an as_strided: AsStridedBackward0; docs/architecture.md)
    assert (got[2], want[2]) == ("TBackward0", "AsStridedBackward0")
    np.testing.assert_array_equal(got[4].detach().numpy(), want[4].detach().numpy())
    assert_same_error(lambda lib: lib.ones(2, 2, 2).t())


STALE = {
    "dot": lambda v, w: v[0] @ w[:, 1],  # entries.matmul_entry
    "mm": lambda v, w: v.t() @ w,
    "view": lambda v, w: v.view(4) * w.view(4),  # entries.view_op_entry
    "reshape": lambda v, w: v.reshape(-1) * w.flatten(),
    "unsqueeze": lambda v, w: v.unsqueeze(0) * w,
    "transpose": lambda v, w: v.transpose(0, 1) * w,
    "select": lambda v, w: v[1] * w[:, 0],
}


@pytest.mark.parametrize("kind", STALE)
def test_an_op_on_a_view_written_through_its_base_as_torch(kind):
    """An entry's op on ``v``, a view whose base was written in place since: the op sees
    the written values, the graph is re-derived (the view's own names) and the gradients
    flow back through the write to the leaf, as in PyTorch."""

    def run(lib):
        a = lib.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)
        w = lib.tensor([[0.5, 1.0], [-1.0, 2.0]], requires_grad=True)
        b = a * 1
        v = b[:]  # (a view of b, stale once b is written)
        b.mul_(3)
        out = STALE[kind](v, w)
        out.sum().backward()
        return out.detach(), a.grad, w.grad, v._version

    for got, want in zip(run(cr), run(torch)):
        if isinstance(got, int):
            assert got == want
        else:
            np.testing.assert_array_equal(got.numpy(), want.numpy())
