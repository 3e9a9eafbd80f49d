"""The engine's and the recording path's fast paths, pinned to the general paths they
shortcut and to PyTorch: in-place arithmetic written with ``out=`` when nothing is
recorded, relu's branch-free backward kernel, and the collector's view of a graph (one
tracked object per recorded node, no reference cycles after a training step)."""

from __future__ import annotations

import gc
import operator

import numpy as np
import pytest
import torch

import chainrule as cr
from chainrule.api import parsers
from chainrule.autograd.inplace import inplace
from oracle import assert_same_error, compare, values

IOPS = {
    "add": (operator.iadd, parsers.pointwise.add),
    "sub": (operator.isub, parsers.pointwise.sub),
    "mul": (operator.imul, parsers.pointwise.mul),
    "div": (operator.itruediv, parsers.pointwise.div),
}
OTHERS = {
    "same": lambda lib, dt: lib.tensor(values("any", (2, 3), 1), dtype=dt),
    "row": lambda lib, dt: lib.tensor(values("any", (3,), 2), dtype=dt),
    "0-d": lambda lib, dt: lib.tensor(1.5, dtype=dt),
    "float": lambda lib, dt: 0.25,
    "int": lambda lib, dt: 3,
    "zero": lambda lib, dt: 0.0,  # div: inf and nan, silently
}
DTYPES = {"f32": "float32", "f64": "float64"}


def _check_inplace_write(op: str, other: str, dt: str, **kwargs) -> None:
    """``x <op>= other`` (``x.<op>_(other, **kwargs)`` with kwargs) under no_grad into a view:
    the fast path's values and versions equal the general path's and torch's."""

    def run(lib, fast=True):
        dtype = getattr(lib, DTYPES[dt])
        base = lib.tensor(values("any", (4, 3), 0), dtype=dtype)
        x = base[1:3]  # a view: the write reaches the base, and both versions move
        o = OTHERS[other](lib, dtype)
        with lib.no_grad():
            if not fast and lib is cr:  # the general path: the out-of-place op copied back
                y = inplace(x, IOPS[op][1], (x, o), kwargs)
            elif kwargs:
                y = getattr(x, op + "_")(o, **kwargs)
            else:
                y = IOPS[op][0](x, o)
        assert y is x
        return base, x._version, base._version

    compare(run)
    got, general = run(cr), run(cr, fast=False)
    np.testing.assert_array_equal(got[0].numpy(), general[0].numpy())
    assert got[1:] == general[1:]


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("other", OTHERS)
@pytest.mark.parametrize("op", IOPS)
def test_inplace_with_out_matches_general_path_and_torch(op, other, dt):
    _check_inplace_write(op, other, dt)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("alpha", [0.01, -2, 1])
@pytest.mark.parametrize("other", ["same", "row", "0-d"])
@pytest.mark.parametrize("op", ["add", "sub"])
def test_inplace_with_alpha_matches_general_path_and_torch(op, other, alpha, dt):
    """``p.add_(g, alpha=-lr)`` under no_grad is written with the ufunc's out= too."""
    _check_inplace_write(op, other, dt, alpha=alpha)


def test_inplace_with_alpha_errors_are_torchs():
    for lib in (torch, cr):
        with pytest.raises(RuntimeError, match="Boolean alpha only supported"):
            lib.ones(3).add_(lib.ones(3), alpha=True)
        with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
            lib.ones(3).sub_(lib.ones(2, 3), alpha=0.5)


@pytest.mark.parametrize(
    "case",
    [
        lambda lib: operator.isub(lib.ones(3), lib.ones(2, 3)),  # would grow: refused
        lambda lib: operator.isub(lib.ones(3), lib.ones(2)),  # does not broadcast
        lambda lib: operator.iadd(lib.ones(3, dtype=lib.int64), 0.5),  # int result: refused
        lambda lib: operator.isub(lib.ones(3, requires_grad=True), 1.0),  # a leaf
        lambda lib: operator.isub(lib.ones(3).expand(2, 3), 1.0),  # overlapping memory
    ],
)
def test_inplace_errors_are_torchs(case):
    assert_same_error(case)


def test_inplace_fast_path_leaves_recording_to_the_general_path():
    def run(lib):
        w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        x = w * 1
        x -= w * w  # recorded: x's grad_fn is SubBackward0
        x.sum().backward()
        return x.grad_fn.name(), w.grad

    compare(run)


def test_inplace_mixed_dtypes_follow_torch():
    def run(lib):
        x = lib.ones(3)
        with lib.no_grad():
            x += lib.tensor([0.5, 1.5, 2.5], dtype=lib.float64)
            x *= lib.tensor(2, dtype=lib.int64)
        return x

    compare(run)


# ----- relu's backward kernel -----------------------------------------------------------


@pytest.mark.parametrize("dt", ["float16", "float32", "float64"])
def test_threshold_backward_select_is_where(dt):
    from chainrule.ops.activations import _threshold_backward

    r = np.random.default_rng(0)
    grad = r.standard_normal((5, 7)).astype(dt)
    grad[0, :4] = [np.inf, -np.inf, np.nan, -0.0]
    x = r.standard_normal((5, 7)).astype(dt)
    x[0, :4] = [-1, 0, 1, np.nan]
    x[1] = 0
    want = np.where(x <= 0, np.zeros((), dt), grad)
    got = _threshold_backward(grad, x)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    assert not np.signbit(got[x <= 0]).any()  # +0 where masked, as where's 0 is
    for g, a in ((grad[:, ::2], x[:, ::2]), (grad[0, 0], x[0, 0]), (grad, x[0])):  # strided, 0-d
        np.testing.assert_array_equal(
            _threshold_backward(g, a), np.where(a <= 0, np.zeros((), dt), g)
        )


def test_relu_gradient_matches_torch_with_nan_and_inf():
    def run(lib):
        x = lib.tensor([-1.0, 0.0, 2.0, float("nan"), 3.0], requires_grad=True)
        lib.relu(x).backward(lib.tensor([5.0, 6.0, float("inf"), 7.0, float("nan")]))
        return x.grad

    got, want = run(cr), run(torch)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


# ----- the collector's view of a graph --------------------------------------------------


def _tracked_growth(build) -> int:
    """How many more objects the cyclic collector tracks while ``build()``'s result lives
    (after a collection, which stops tracking tuples of numbers and shapes)."""
    gc.collect()
    before = len(gc.get_objects())
    kept = build()
    gc.collect()
    grown = len(gc.get_objects()) - before
    del kept
    return grown


@pytest.mark.parametrize(
    "step",
    [
        lambda y, x: y * 2,
        lambda y, x: y + x,  # two inputs, one a leaf
        lambda y, x: 1 - y,
        lambda y, x: y.sum(0, keepdim=True) - x,
        lambda y, x: (y * 0.5).mean(1, keepdim=True),
    ],
)
def test_one_tracked_object_per_recorded_node(step):
    """Of ops that save no tensor and no slice (a saved tensor is one more object, with its
    version check; so is the slice object a basic-indexing node saves)."""
    n = 500
    x = cr.randn(3, 3, requires_grad=True)

    def build():
        y = x * 1
        for _ in range(n):
            y = step(y, x)
        return y

    y = build()
    nodes = _count_nodes(y.grad_fn)
    assert nodes >= n
    assert _tracked_growth(build) <= nodes + 5  # the node itself, and a few objects once


def _count_nodes(root) -> int:
    seen, stack = {root}, [root]
    while stack:
        for fn, _ in stack.pop().next_functions:
            if fn is not None and fn not in seen and fn.name() != "torch::autograd::AccumulateGrad":
                seen.add(fn)
                stack.append(fn)
    return len(seen)


@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
def test_training_step_leaves_no_cycles(optimizer):
    nn, F = cr.nn, cr.nn.functional
    cr.manual_seed(0)
    model = nn.Sequential(nn.Linear(20, 16), nn.ReLU(), nn.Linear(16, 4))
    opt = getattr(cr.optim, optimizer)(model.parameters(), lr=0.1)
    x, target = cr.randn(8, 20), cr.randint(0, 4, (8,))

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), target)
        loss.backward()
        opt.step()
        with cr.no_grad():
            for p in model.parameters():
                p -= 0.01 * p.grad

    step()  # the optimizer's state is made once
    gc.collect()
    gc.disable()
    try:
        step()
        step()
        found = gc.collect()
    finally:
        gc.enable()
    assert found == 0


def test_next_functions_built_from_the_slots_match_torch():
    def run(lib):
        a = lib.randn(2, 3, requires_grad=True)
        b = lib.randn(2, 3)
        c = lib.randn(3, requires_grad=True)
        out = [a * b, b * a, lib.cat([a, b, a * 2]), lib.addcmul(a, b, c), a.sum()]
        names = []
        for t in out:
            names.append(
                [None if fn is None else (fn.name(), nr) for fn, nr in t.grad_fn.next_functions]
            )
        return names

    got, want = run(cr), run(torch)
    assert got == want
