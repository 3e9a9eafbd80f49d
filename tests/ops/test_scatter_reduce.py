"""scatter_reduce and the region scatters (ops/gather_scatter.py) against PyTorch: every
reduce with and without include_self, ties for amax/amin, zeros for prod, repeated
indices, a src larger than index; select_scatter, slice_scatter, diagonal_scatter:
values, dtypes, node names, gradients and tangents in float32 and float64, finite
differences, second derivatives, errors."""

from __future__ import annotations

import numpy as np
import pytest

import cases
from oracle import (
    DT_IDS,
    FLOATS,
    L64,
    NoGrad,
    R,
    check,
    check_double_backward,
    check_fd,
    same_node,
)

IDX = L64([0, 1, 1], [1, 1, 3], [3, 3, 0])  # repeated places
TIES_X = np.array([[1.0, 2.0, 0.5, 3.0], [2.0, 0.0, 1.0, 1.0]])
TIES_S = np.array([[2.0, 2.0, 1.0], [0.0, 1.0, 2.0]])
TIES_I = L64([1, 1, 2], [1, 1, 0])
ZEROS_X = np.array([[0.0, 2.0, 0.5, 3.0], [2.0, 0.0, 1.0, 0.0]])
ZEROS_S = np.array([[2.0, 0.0, 1.5], [0.0, 1.5, 0.0]])
ZEROS_I = L64([1, 0, 2], [3, 3, 2])

CASES = {}
for reduce in ("sum", "prod", "mean", "amax", "amin"):
    for include in (True, False):
        tag = f"{reduce}_{'self' if include else 'noself'}"
        CASES[tag] = (
            lambda L, x, s, i, r=reduce, inc=include: L.scatter_reduce(
                x, 1, i, s, r, include_self=inc
            ),
            R(3, 4),
            R(3, 3),
            IDX,
        )
        CASES[tag + "_ties"] = (
            lambda L, x, s, i, r=reduce, inc=include: x.scatter_reduce(
                1, i, s, r, include_self=inc
            ),
            TIES_X if include else TIES_X + 0.25,
            TIES_S,
            TIES_I,
        )
# (without include_self, x's own values are kept apart from src's ties: where x equals the
# extreme at a place it does not take part in, PyTorch's VJP still counts it among the ties
# and its JVP does not, so the two disagree; chainrule follows the VJP)
CASES["prod_zeros"] = (
    lambda L, x, s, i: x.scatter_reduce(1, i, s, "prod"),
    ZEROS_X,
    ZEROS_S,
    ZEROS_I,
)
CASES["prod_zeros_noself"] = (
    lambda L, x, s, i: x.scatter_reduce(1, i, s, "prod", include_self=False),
    ZEROS_X,
    ZEROS_S,
    ZEROS_I,
)
CASES["sum_dim0_bigger_src"] = (
    lambda L, x, s, i: x.scatter_reduce(0, i, s, "sum"),
    R(4, 3),
    NoGrad(R(3, 4)),
    IDX.T[:2].copy(),
)
CASES["amax_src_no_grad"] = (
    lambda L, x, s, i: x.scatter_reduce(-1, i, s, "amax"),
    R(3, 4),
    NoGrad(R(3, 3)),
    IDX,
)
REGIONS = {
    "select_scatter": (lambda L, x, s: L.select_scatter(x, s, 1, 2), R(3, 4), R(3)),
    "select_scatter_neg": (lambda L, x, s: x.select_scatter(s, -1, -1), R(2, 3, 4), R(2, 3)),
    "slice_scatter": (lambda L, x, s: L.slice_scatter(x, s, 1, 1, 4, 2), R(3, 5), R(3, 2)),
    "slice_scatter_default": (lambda L, x, s: x.slice_scatter(s), R(3, 2), R(3, 2)),
    "slice_scatter_dim0": (lambda L, x, s: L.slice_scatter(x, s, 0, start=2), R(4, 2), R(2, 2)),
    "diagonal_scatter": (lambda L, x, s: L.diagonal_scatter(x, s), R(3, 4), R(3)),
    "diagonal_scatter_offset": (lambda L, x, s: x.diagonal_scatter(s, 1), R(3, 4), R(3)),
    "diagonal_scatter_neg_offset": (lambda L, x, s: x.diagonal_scatter(s, -2), R(4, 3), R(2)),
    "diagonal_scatter_dims": (
        lambda L, x, s: L.diagonal_scatter(x, s, 0, 2, 0),
        R(3, 2, 4),
        R(2, 3),
    ),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(CASES) + sorted(REGIONS))
def test_matches_torch(name, dtype):
    fn, *inputs = CASES.get(name) or REGIONS[name]
    same_node(check(fn, *inputs, dtype=dtype))


FD = [
    "sum_noself",
    "mean_self",
    "mean_noself",
    "prod_self",
    "prod_noself",
    "prod_zeros",
    "amax_self",
    "amin_noself",
]


@pytest.mark.parametrize("name", FD + sorted(REGIONS))
def test_finite_differences(name):
    fn, *inputs = CASES.get(name) or REGIONS[name]
    check_fd(fn, *inputs)


@pytest.mark.parametrize("name", ["sum_noself", "mean_self", "prod_self", "amax_self"])
def test_second_derivatives(name):
    fn, *inputs = CASES[name]
    check_double_backward(fn, *inputs)


NO_GRAD = {
    "int_sum": (
        lambda L, x, s, i: x.scatter_reduce(1, i, s, "sum"),
        L64([1, 2], [3, 4]),
        L64([5, 6], [7, 8]),
        L64([0, 0], [1, 0]),
    ),
    "int_mean": (
        lambda L, x, s, i: x.scatter_reduce(1, i, s, "mean"),
        L64([1, 2], [3, 4]),
        L64([5, 6], [7, 8]),
        L64([0, 0], [1, 0]),
    ),
    "int_amin_noself": (
        lambda L, x, s, i: x.scatter_reduce(1, i, s, "amin", include_self=False),
        L64([1, 2], [3, 4]),
        L64([5, 6], [7, 8]),
        L64([0, 0], [1, 0]),
    ),
    "inplace": (
        lambda L, x, s, i: x.clone().scatter_reduce_(1, i, s, "prod"),
        L64([1, 2], [3, 4]),
        L64([5, 6], [7, 8]),
        L64([0, 0], [1, 0]),
    ),
    "region_cast": (lambda L, x, s: L.select_scatter(x, s, 0, 0), NoGrad(R(2, 3)), L64(1, 2, 3)),
}
test_no_grad_matches_torch = cases.matches_torch(NO_GRAD)

ERRORS = {
    "reduce_name": (
        lambda L, x, s, i: x.scatter_reduce(1, i, s, "foo"),
        [R(2, 3), R(2, 2), L64([0, 1], [1, 1])],
    ),
    "dtype": (
        lambda L, x, s, i: x.scatter_reduce(1, i, s.double(), "sum"),
        [R(2, 3).astype(np.float32), R(2, 2).astype(np.float32), L64([0, 1], [1, 1])],
    ),
    "select_index": (lambda L, x, s: L.select_scatter(x, s, 1, 5), [R(2, 3), R(2)]),
    "slice_size": (lambda L, x, s: L.slice_scatter(x, s, 1, 0, 1), [R(2, 3), R(2, 2)]),
    "diagonal_size": (lambda L, x, s: L.diagonal_scatter(x, s), [R(2, 3), R(3)]),
}
test_errors_as_torch = cases.same_errors_as_torch(ERRORS)


# ----- fill_diagonal_ -------------------------------------------------------------------------

FILL_DIAGONAL = {
    f"{'x'.join(map(str, shape))}_{'wrap' if wrap else 'nowrap'}": (
        lambda L, x, w=wrap: (x * 1).fill_diagonal_(-2.5, wrap=w),
        R(*shape),
    )
    for shape in ((3, 3), (5, 3), (7, 3), (3, 5), (2, 2, 2))
    for wrap in (False, True)
}
test_fill_diagonal_matches_torch = cases.matches_torch(FILL_DIAGONAL)

FILL_DIAGONAL_ERRORS = {
    "1d": (lambda L, x: x.fill_diagonal_(1), [np.zeros(3)]),
    "unequal": (lambda L, x: x.fill_diagonal_(1), [np.zeros((3, 3, 2))]),
}
test_fill_diagonal_errors = cases.same_errors_as_torch(FILL_DIAGONAL_ERRORS)


def test_fill_diagonal_int_and_leaf():
    from oracle import assert_same_error, compare

    compare(lambda L: L.zeros(4, 3, dtype=L.int64).fill_diagonal_(7, wrap=True))
    assert_same_error(lambda L: L.zeros(2, 2, requires_grad=True).fill_diagonal_(1.0))
