"""In-place writes through views against PyTorch: a write into a view changes its base,
whose gradient must see it (CopySlices), in both modes; writes PyTorch refuses raise.
"""

from __future__ import annotations

import numpy as np
import pytest

from oracle import (
    check,
    compare,
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
