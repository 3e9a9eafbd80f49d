"""In-place writes through views against PyTorch: a write into a view changes its base,
whose gradient must see it (CopySlices), in both modes, through chains of views and
augmented assignment; writes PyTorch refuses (into split pieces, overlapping windows,
expanded views, views of leaves requiring grad) raise.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import (
    DT_IDS,
    FLOATS,
    R,
    check,
    check_fd,
    check_raises,
    compare,
    nonzero,
    randn,
    same_node,
    to_numpy,
)


def values(kind: str, shape=(2, 3), seed: int = 0) -> np.ndarray:
    """float64 inputs in an op's domain, away from its kinks."""
    r = np.random.default_rng(seed)
    if kind == "pos":
        return r.uniform(0.5, 2.0, shape)
    if kind == "unit":
        return r.uniform(0.1, 0.9, shape)
    if kind == "nonzero":
        return r.uniform(0.5, 2.0, shape) * r.choice([-1.0, 1.0], shape)
    return r.standard_normal(shape)


VIEW_PROGRAMS = {
    "row_mul_": lambda L, x, w: _row_op(x, lambda v: v.mul_(2)),
    "column_add_operand": lambda L, x, w: _col_op(x, lambda v: v.add_(w)),
    "setitem_value_grad": lambda L, x, w: _setitem(x, w),
    "slice_exp_": lambda L, x, w: _row_op(x, lambda v: v.exp_()),
    "step_slice_sigmoid_": lambda L, x, w: _step_op(x, lambda v: v.sigmoid_()),
    "view_then_base_op": lambda L, x, w: _base_after_view(x),
}


def _row_op(x, op):
    y = x * 1
    op(y[0])
    return y * 2


def _col_op(x, op):
    y = x * 1
    op(y[:, 1])
    return y.sin()


def _step_op(x, op):
    y = x * 1
    op(y[:, ::2])
    return y


def _setitem(x, w):
    y = x * 1
    y[:, 1] = w * 3
    return y * y


def _base_after_view(x):
    y = x * 1
    v = y[0]
    y.mul_(3)  # v now sees the new values; its graph is rebuilt from y's
    return v * 2


@pytest.mark.parametrize("name", sorted(VIEW_PROGRAMS))
def test_inplace_through_views_matches_torch(name):
    check(VIEW_PROGRAMS[name], values("any", (2, 3), 13), values("any", (2,), 14))


# ----- the engine's scenarios -------------------------------------------------------------


def _view_mul(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.view(2, 1).mul_(3)
    y.sum().backward()
    return y, x.grad


def _row_mul(L):
    x = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x * 2
    y[0].mul_(3)
    y.sum().backward()
    return y, x.grad


def _base_mul_then_view_backward(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    v = y.view(2)
    y.mul_(3)
    v.sum().backward()
    return v, x.grad


@pytest.mark.parametrize("program", [_view_mul, _row_mul, _base_mul_then_view_backward])
def test_gradient_through_in_place_ops_on_views(program):
    """An in-place write through a view changes its base's gradient (or raises): never stale."""
    compare(program)


# ----- writes through views of non-leaves and leaves (the first ops) ----------------------


def _view_write(kind: str):
    """y = x * 1, then an in-place write through a view of y; y is returned."""

    def fn(lib, x, b):
        y = x * 1
        if kind == "row_mul_":
            y[0].mul_(b)
        elif kind == "slice_iadd":
            z = y[1:]
            z += b
        elif kind == "t_add_":
            y.t().add_(b.reshape(-1)[:3])
        elif kind == "view_sub_":
            y.view(-1)[:4].sub_(b)
        elif kind == "chained_setitem":
            y[0][1] = b[0]
        elif kind == "setitem_on_slice":
            y[:2][:, 1] = b[:2]
        return y * y

    return fn


VIEW_WRITES = [
    "row_mul_",
    "slice_iadd",
    "t_add_",
    "view_sub_",
    "chained_setitem",
    "setitem_on_slice",
]


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("kind", VIEW_WRITES)
def test_inplace_through_view_of_nonleaf(kind, dtype):
    """Writing into a view of y changes y, so y's gradient must see the write (CopySlices)."""
    check(_view_write(kind), randn((3, 4), seed=41), nonzero((4,), seed=42), dtype=dtype)


@pytest.mark.parametrize("kind", VIEW_WRITES)
def test_inplace_through_view_of_nonleaf_fd(kind):
    check_fd(_view_write(kind), randn((3, 4), seed=41), nonzero((4,), seed=42))


def _leaf_view_write(kind: str):
    def fn(lib, x):
        if kind == "row_add_":
            x[0].add_(1.0)
        elif kind == "t_setitem":
            x.t()[0] = 1.0
        elif kind == "view_mul_":
            x.view(-1).mul_(2)
        elif kind == "slice_isub":
            z = x[1:]
            z -= 1
        return x

    return fn


@pytest.mark.parametrize("kind", ["row_add_", "t_setitem", "view_mul_", "slice_isub"])
def test_inplace_on_view_of_leaf_requiring_grad_raises(kind):
    """torch refuses in-place writes into a view of a leaf that requires grad."""
    check_raises(_leaf_view_write(kind), randn((3, 4), seed=43))


def test_inplace_on_view_of_leaf_under_no_grad():
    def fn(lib, x):
        with lib.no_grad():
            x[0].add_(1.0)
            x.t()[1] = 2.0
        return x.sin()

    check(fn, randn((3, 4), seed=44), dtype=np.float64)


# ----- writes through chains of views, split pieces, unfolded windows, expanded views -----


THROUGH_VIEWS = {
    "column_mul": lambda L, x: _through(x, lambda y: y[:, 1].mul_(2)),
    "row_assign": lambda L, x: _through(x, lambda y: y.__setitem__(0, y[1] + 2)),
    "view_add": lambda L, x: _through(x, lambda y: y.view(12).add_(y.view(12).flip(0))),
    "transposed_narrow": lambda L, x: _through(x, lambda y: y.t().narrow(0, 1, 2).mul_(-3)),
    "squeezed": lambda L, x: _through(x, lambda y: y.unsqueeze(0).squeeze(0)[1:].add_(1)),
    "view_of_view": lambda L, x: _through(x, lambda y: y[1:][:, ::2].mul_(y[:2, 1::2].exp())),
    "read_view_after": lambda L, x: _read_after(x),
    "augmented_basic": lambda L, x: _through(x, lambda y: _augmented(y, 0, y[1] * 3)),
    "augmented_advanced": lambda L, x: _through(x, lambda y: _augmented(y, [0, 2], 2.0)),
    "augmented_mask": lambda L, x: _through(x, lambda y: _augmented(y, y > 0, -1.0)),
    "masked_fill_on_view": lambda L, x: _through(x, lambda y: y[1].masked_fill_(y[1] > 0, 0.0)),
    "scatter_on_view": lambda L, x: _through(
        x, lambda y: y[:, :2].scatter_(1, L.tensor([[1], [0], [1]]), y[:, 2:3])
    ),
    "index_add_on_view": lambda L, x: _through(
        x, lambda y: y.t().index_add_(0, L.tensor([0, 0]), y.t()[1:3] * 1, alpha=2)
    ),
    "scatter_add_inplace": lambda L, x: _through(
        x, lambda y: y.scatter_add_(1, L.tensor([[0, 0]]), y[:1, :2] * 2)
    ),
}


def _through(x, write):
    y = x * 1
    write(y)
    return y * y


def _augmented(y, key, value):
    y[key] += value  # a read, an in-place add on what was read, a write back


def _read_after(x):
    y = x * 1
    v = y[1:]
    y[2, 1] = 7.0  # v's base changed after v was taken: v sees it
    return v * x[:2]


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(THROUGH_VIEWS))
def test_writes_through_views_match_torch(name, dtype):
    res = check(THROUGH_VIEWS[name], R(3, 4), dtype=dtype)
    same_node(res)


RAISING_THROUGH_VIEWS = {
    # each multiplication saved a view of y that the write then changed
    "row_times_rows": lambda L, x: _through(x, lambda y: y.__setitem__(0, y[1] * y[2])),
    "view_times_view": lambda L, x: _through(x, lambda y: y[1:][:, ::2].mul_(y[:2, 1::2])),
    "column_mul_view": lambda L, x: _through(x, lambda y: y[:, 1].mul_(y[:, 2])),
}


@pytest.mark.parametrize("name", sorted(RAISING_THROUGH_VIEWS))
def test_inplace_through_views_that_torch_refuses_raise(name):
    fn = RAISING_THROUGH_VIEWS[name]
    check_raises(lambda L, x: fn(L, x).sum().backward(), R(3, 4))


def test_inplace_into_a_split_piece_raises_as_torch():
    for lib in (cr, torch):
        y = lib.randn(4, 3, requires_grad=True) * 1
        a, b = y.split(2)
        with pytest.raises(RuntimeError, match="returns multiple views"):
            a.mul_(2)
        with pytest.raises(RuntimeError, match="returns multiple views"):
            y.unbind(1)[0][0] = 1.0
        c, d = y.detach().chunk(2)  # without grad, the write is allowed
        c.mul_(0)
        assert float(y.detach()[:2].abs().sum()) == 0.0


def test_inplace_on_unfolded_windows():
    """Windows that do not overlap can be written in place; overlapping ones are refused."""
    check(lambda L, x: _through(x, lambda y: y.unfold(1, 2, 2).mul_(3)), R(3, 4))
    # PyTorch writes overlapping windows several times (values and gradient disagree):
    # chainrule refuses instead
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        (cr.ones(3, 4) * 1).unfold(1, 2, 1).mul_(3)


FORWARD_WRITES = {
    "column_mul": lambda y, v: y[:, 1].mul_(2),
    "row_assign": lambda y, v: y.__setitem__(0, v),
    "advanced_assign": lambda y, v: y.__setitem__(([0, 2], [1, 3]), v[:2]),
    "view_add": lambda y, v: y.view(12)[3:7].add_(v),
    "transpose_then_write": lambda y, v: y.t()[1].mul_(v[:3]),
    "squeeze_then_write": lambda y, v: y.unsqueeze(0).squeeze_(0)[2].sub_(v),
}


@pytest.mark.parametrize("name", sorted(FORWARD_WRITES))
def test_tangents_of_inplace_writes_through_views(name):
    """Forward mode: a write into a view changes the base's tangent in that region."""
    rng = np.random.default_rng(11)
    x, tx, v, tv = (rng.standard_normal(s) for s in ((3, 4), (3, 4), (4,), (4,)))
    results = []
    for lib in (cr, torch):
        fwd = lib.autograd.forward_ad
        with fwd.dual_level():
            y = fwd.make_dual(lib.tensor(x), lib.tensor(tx)) * 1
            FORWARD_WRITES[name](y, fwd.make_dual(lib.tensor(v), lib.tensor(tv)))
            primal, tangent = fwd.unpack_dual(y * y)
            results.append((to_numpy(primal), to_numpy(tangent)))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-10, atol=1e-12)


def test_inplace_on_an_expanded_view_raises():
    check_raises(lambda L, x: (x * 1).expand(2, 3, 4).add_(1), R(3, 4))
    check_raises(lambda L, x: (x * 1)[:1].expand(3, 4).add_(1), R(3, 4))


def test_inplace_on_an_expand_that_repeats_nothing():
    check(lambda L, x: _through(x, lambda y: y.expand(1, 3, 4).mul_(2)), R(3, 4))
    check(lambda L, x: _through(x, lambda y: y.expand(3, -1).mul_(2)), R(3, 4))
