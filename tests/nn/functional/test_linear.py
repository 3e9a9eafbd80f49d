"""nn.functional.linear and bilinear against PyTorch: every input shape PyTorch records a
different graph for (addmm, mm, a view of addmm, matmul's nodes), with and without bias,
float32 and float64, gradients, tangents, node names, finite differences, second
derivatives, and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

from oracle import (
    DT_IDS,
    FLOATS,
    assert_same_error,
    check,
    check_double_backward,
    check_fd,
    randn,
    same_node,
)


def F(lib):
    return lib.nn.functional


W = randn((5, 4), seed=1)
B = randn((5,), seed=2)

LINEAR = {
    "2d_bias": (lambda L, x, w, b: F(L).linear(x, w, b), randn((3, 4)), W, B),
    "2d": (lambda L, x, w: F(L).linear(x, w), randn((3, 4)), W),
    "3d_bias": (lambda L, x, w, b: F(L).linear(x, w, b), randn((2, 3, 4)), W, B),
    "3d": (lambda L, x, w: F(L).linear(x, w), randn((2, 3, 4)), W),
    "4d_bias": (lambda L, x, w, b: F(L).linear(x, w, b), randn((2, 1, 3, 4)), W, B),
    "4d_scalar_bias": (lambda L, x, w, b: F(L).linear(x, w, b), randn((2, 2, 3, 4)), W, B[0]),
    "1d_bias": (lambda L, x, w, b: F(L).linear(x, w, b), randn((4,)), W, B),
    "1d": (lambda L, x, w: F(L).linear(x, w), randn((4,)), W),
    "1d_weight_1d": (lambda L, x, w: F(L).linear(x, w), randn((4,)), W[0]),
    "2d_weight_1d": (lambda L, x, w: F(L).linear(x, w), randn((3, 4)), W[0]),
    "2d_scalar_bias": (lambda L, x, w, b: F(L).linear(x, w, b), randn((3, 4)), W, B[0]),
    "2d_broadcast_bias": (lambda L, x, w, b: F(L).linear(x, w, b), randn((3, 4)), W, B[:1]),
    "empty_batch": (lambda L, x, w, b: F(L).linear(x, w, b), randn((0, 4)), W, B),
}

BILINEAR = {
    "bias": (
        lambda L, a, b, w, c: F(L).bilinear(a, b, w, c),
        randn((3, 4)),
        randn((3, 2), seed=3),
        randn((5, 4, 2), seed=4),
        B,
    ),
    "no_bias": (
        lambda L, a, b, w: F(L).bilinear(a, b, w),
        randn((3, 4)),
        randn((3, 2), seed=3),
        randn((5, 4, 2), seed=4),
    ),
    "batch_3d": (
        lambda L, a, b, w, c: F(L).bilinear(a, b, w, c),
        randn((2, 3, 4)),
        randn((2, 3, 2), seed=3),
        randn((5, 4, 2), seed=4),
        B,
    ),
    "one_sample": (
        lambda L, a, b, w: F(L).bilinear(a, b, w),
        randn((4,)),
        randn((2,), seed=3),
        randn((5, 4, 2), seed=4),
    ),
}

CASES = {
    **{f"linear_{k}": v for k, v in LINEAR.items()},
    **{f"bilinear_{k}": v for k, v in BILINEAR.items()},
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name, dtype):
    fn, *inputs = CASES[name]
    same_node(check(fn, *inputs, dtype=dtype, rtol=1e-4 if dtype is np.float32 else None))


@pytest.mark.parametrize("name", sorted(CASES))
def test_finite_differences(name):
    fn, *inputs = CASES[name]
    check_fd(fn, *inputs)


@pytest.mark.parametrize("name", sorted(CASES))
def test_second_derivatives_match_torch(name):
    fn, *inputs = CASES[name]
    check_double_backward(fn, *inputs)


ERRORS = {
    "linear_0d": lambda L: F(L).linear(L.ones(()), L.ones(2, 4)),
    "linear_shapes": lambda L: F(L).linear(L.ones(2, 3), L.ones(2, 4)),
    "linear_3d_shapes": lambda L: F(L).linear(L.ones(5, 2, 3), L.ones(2, 4)),
    "linear_bias_size": lambda L: F(L).linear(L.ones(2, 3), L.ones(2, 3), L.ones(3)),
    "linear_dtypes": lambda L: F(L).linear(L.ones(2, 3, dtype=L.float64), L.ones(2, 3)),
    "linear_bias_dtype": lambda L: F(L).linear(
        L.ones(2, 3, dtype=L.float64), L.ones(2, 3, dtype=L.float64), L.ones(2)
    ),
    "linear_1d_weight_bias": lambda L: F(L).linear(L.ones(3, 4), L.ones(4), L.ones(())),
    "bilinear_dims": lambda L: F(L).bilinear(L.ones(3, 4), L.ones(2), L.ones(5, 4, 2)),
    "bilinear_batch": lambda L: F(L).bilinear(L.ones(3, 4), L.ones(2, 2), L.ones(5, 4, 2)),
    "bilinear_input1": lambda L: F(L).bilinear(L.ones(3, 3), L.ones(3, 2), L.ones(5, 4, 2)),
    "bilinear_input2": lambda L: F(L).bilinear(L.ones(3, 4), L.ones(3, 3), L.ones(5, 4, 2)),
    "bilinear_bias": lambda L: F(L).bilinear(
        L.ones(3, 4), L.ones(3, 2), L.ones(5, 4, 2), L.ones(4)
    ),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name):
    assert_same_error(ERRORS[name])
