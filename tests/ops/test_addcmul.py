"""addcmul and addcdiv (ops/arithmetic.py) against PyTorch: values, dtypes, node names,
gradients and tangents of all three inputs with broadcasting, float32 and float64, the
value keyword, in-place and out= variants, finite differences, second derivatives,
errors."""

from __future__ import annotations

import numpy as np
import pytest

import cases
from oracle import (
    DT_IDS,
    FLOATS,
    NoGrad,
    R,
    check,
    check_double_backward,
    check_fd,
    nonzero,
    same_node,
)

CASES = {
    "addcmul": (lambda L, x, a, b: L.addcmul(x, a, b), R(2, 3), R(2, 3), R(2, 3)),
    "addcmul_value_broadcast": (
        lambda L, x, a, b: L.addcmul(x, a, b, value=-0.5),
        R(3),
        R(2, 1),
        R(2, 3),
    ),
    "addcmul_method_0d": (lambda L, x, a, b: x.addcmul(a, b, value=2), R(2, 3), R(), R(3)),
    "addcmul_empty": (lambda L, x, a, b: L.addcmul(x, a, b), R(0, 3), R(3), R(1)),
    "addcdiv": (lambda L, x, a, b: L.addcdiv(x, a, b), R(2, 3), R(2, 3), nonzero((2, 3))),
    "addcdiv_value_broadcast": (
        lambda L, x, a, b: L.addcdiv(x, a, b, value=3),
        R(2, 1),
        R(3),
        nonzero((2, 3)),
    ),
    "addcdiv_method": (lambda L, x, a, b: x.addcdiv(a, b, value=0.25), R(3), R(3), nonzero(())),
    "addcmul_no_grad_x": (lambda L, x, a, b: L.addcmul(x, a, b), NoGrad(R(3)), R(3), R(3)),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name, dtype):
    fn, *inputs = CASES[name]
    result = check(fn, *inputs, dtype=dtype)
    same_node(result)


@pytest.mark.parametrize("name", ["addcmul_value_broadcast", "addcdiv_value_broadcast"])
def test_finite_differences(name):
    fn, *inputs = CASES[name]
    check_fd(fn, *inputs)


@pytest.mark.parametrize("name", ["addcmul_value_broadcast", "addcdiv"])
def test_second_derivatives(name):
    fn, *inputs = CASES[name]
    check_double_backward(fn, *inputs)


INPLACE = {
    "addcmul_": (lambda L, x, a, b: (x * 1).addcmul_(a, b, value=2), R(2, 3), R(3), R(2, 1)),
    "addcdiv_": (lambda L, x, a, b: (x * 1).addcdiv_(a, b), R(2, 3), R(3), nonzero((2, 3))),
}
test_inplace_matches_torch = cases.matches_torch(INPLACE)

NO_GRAD = {
    "addcmul_int": (
        lambda L, x, a, b: L.addcmul(x, a, b, value=3),
        np.array([1, 2]),
        np.array([3, 4]),
        np.array([-1, 2]),
    ),
    "addcmul_int_float": (
        lambda L, x, a, b: L.addcmul(x, a, b, value=2),
        np.array([1, 2]),
        NoGrad(R(2)),
        np.array([-1, 2]),
    ),
    "addcdiv_int_x": (
        lambda L, x, a, b: L.addcdiv(x, a, b),
        NoGrad(R(2)),
        np.array([3, 4]),
        NoGrad(nonzero((2,))),
    ),
    "addcmul_int_float_value": (  # truncated to 1, as PyTorch does
        lambda L, x, a, b: L.addcmul(x, a, b, value=1.7),
        np.array([1, 2]),
        np.array([3, 4]),
        np.array([1, 2]),
    ),
    "addcmul_out": (
        lambda L, x, a, b: L.addcmul(x, a, b, out=L.empty(2, dtype=L.int64)),
        np.array([1, 2]),
        np.array([3, 4]),
        np.array([5, 6]),
    ),
}
test_no_grad_matches_torch = cases.matches_torch(NO_GRAD)

ERRORS = {
    "addcdiv_int": (
        lambda L, x, a, b: L.addcdiv(x, a, b),
        [np.array([1, 2]), np.array([3, 4]), np.array([1, 2])],
    ),
    "addcmul_shapes": (
        lambda L, x, a, b: L.addcmul(x, a, b),
        [np.ones(2), np.ones(3), np.ones(3)],
    ),
}
test_errors_as_torch = cases.same_errors_as_torch(ERRORS)


def test_number_operand_is_refused():
    from oracle import assert_same_error

    assert_same_error(lambda L: L.addcmul(L.ones(2), 2.0, L.ones(2)))
