"""Every op in scope against PyTorch: forward values, output dtype, gradients; plus a
float64 finite-difference check of every differentiable op's VJP.

Each case is ``fn(lib, *tensors)`` run on both libraries by ``oracle.check``.
"""

from __future__ import annotations

import math
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import (
    NoGrad,
    check,
    check_fd,
    check_raises,
    nonzero,
    positive,
    randn,
    to_lib,
)

FLOATS = [np.float32, np.float64]
DT_IDS = ["f32", "f64"]


def _shape_id(shape) -> str:
    return "x".join(map(str, shape)) if shape else "0d"


def _pair_id(pair) -> str:
    return f"{_shape_id(pair[0])}_{_shape_id(pair[1])}"


# ----- binary arithmetic: tensors with broadcasting -----------------------------------

BROADCAST_PAIRS = [
    ((3, 4), (3, 4)),
    ((3, 1), (1, 4)),
    ((2, 3, 4), (4,)),
    ((4,), (2, 3, 4)),
    ((), (3,)),
    ((5,), ()),
    ((), ()),
    ((4, 1, 3), (2, 1)),
    ((0,), (0,)),
    ((2, 0), (2, 1)),
    ((2, 0), ()),
    ((0, 3), (3,)),
]

BINARY = {
    "add": lambda lib, a, b: a + b,
    "sub": lambda lib, a, b: a - b,
    "mul": lambda lib, a, b: a * b,
    "div": lambda lib, a, b: a / b,
    "pow": lambda lib, a, b: a**b,
    "add_fn": lambda lib, a, b: lib.add(a, b),
    "add_alpha": lambda lib, a, b: lib.add(a, b, alpha=2.5),
    "sub_fn": lambda lib, a, b: lib.sub(a, b),
    "sub_alpha": lambda lib, a, b: a.sub(b, alpha=-2),
    "mul_fn": lambda lib, a, b: lib.mul(a, b),
    "div_fn": lambda lib, a, b: lib.div(a, b),
    "div_method": lambda lib, a, b: a.div(b),
    "pow_fn": lambda lib, a, b: lib.pow(a, b),
    "pow_method": lambda lib, a, b: a.pow(b),
}


def _binary_inputs(name: str, sa, sb):
    if name.startswith("pow"):
        return positive(sa, seed=1), randn(sb, seed=2)
    if name.startswith("div"):
        return randn(sa, seed=1), nonzero(sb, seed=2)
    return randn(sa, seed=1), randn(sb, seed=2)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("shapes", BROADCAST_PAIRS, ids=_pair_id)
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_tensor_tensor(name, shapes, dtype):
    a, b = _binary_inputs(name, *shapes)
    check(BINARY[name], a, b, dtype=dtype)


@pytest.mark.parametrize(
    "shapes", [p for p in BROADCAST_PAIRS if 0 not in p[0] + p[1]], ids=_pair_id
)
@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "pow", "add_alpha", "sub_alpha"])
def test_binary_fd(name, shapes):
    a, b = _binary_inputs(name, *shapes)
    check_fd(BINARY[name], a, b)


def test_binary_same_tensor_both_sides():
    """x * x, x / x, x - x, x ** x: both uses' gradients add up."""
    for fn in (
        lambda lib, x: x * x,
        lambda lib, x: x / x,
        lambda lib, x: x - x,
        lambda lib, x: x + x,
        lambda lib, x: x**x,
    ):
        check(fn, positive((3, 2)), dtype=np.float64)
        check_fd(fn, positive((3, 2)))


def test_binary_mixed_float_dtypes():
    """float32 (3,4) op float64 (4,) -> float64; each grad keeps its input's dtype.

    Tolerances are float32's: torch computes some backward terms (log a for pow) on the
    float32 input before promoting.
    """
    a = positive((3, 4), seed=4).astype(np.float32)
    b = nonzero((4,), seed=5)
    for fn in BINARY.values():
        check(fn, a, b, rtol=2e-5, atol=2e-5)
        check(fn, b, a, rtol=2e-5, atol=2e-5)


def test_binary_one_input_without_grad():
    for name in ("add", "sub", "mul", "div", "pow"):
        a, b = _binary_inputs(name, (3, 4), (4,))
        check(BINARY[name], a, NoGrad(b), dtype=np.float64)
        check(BINARY[name], NoGrad(a), b, dtype=np.float64)


# ----- binary arithmetic with Python scalars -----------------------------------------

SCALAR_OPS = {
    "add_r": lambda lib, x, c: x + c,
    "add_l": lambda lib, x, c: c + x,
    "sub_r": lambda lib, x, c: x - c,
    "sub_l": lambda lib, x, c: c - x,
    "mul_r": lambda lib, x, c: x * c,
    "mul_l": lambda lib, x, c: c * x,
    "div_r": lambda lib, x, c: x / c,
    "div_l": lambda lib, x, c: c / x,
    "add_fn": lambda lib, x, c: lib.add(x, c),
    "sub_fn": lambda lib, x, c: lib.sub(x, c),
    "mul_fn": lambda lib, x, c: lib.mul(x, c),
    "div_fn": lambda lib, x, c: lib.div(x, c),
}
SCALARS = [2, -3, 2.5, -0.75]
SCALAR_SHAPES = [(3, 4), (), (5,), (0,), (2, 0)]


def _scalar_input(name: str, shape):
    return nonzero(shape, seed=3) if name == "div_l" else randn(shape, seed=3)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("shape", SCALAR_SHAPES, ids=_shape_id)
@pytest.mark.parametrize("c", SCALARS, ids=repr)
@pytest.mark.parametrize("name", list(SCALAR_OPS))
def test_scalar_arithmetic(name, c, shape, dtype):
    check(SCALAR_OPS[name], _scalar_input(name, shape), c, dtype=dtype)


@pytest.mark.parametrize("c", SCALARS, ids=repr)
@pytest.mark.parametrize("name", list(SCALAR_OPS))
def test_scalar_arithmetic_fd(name, c):
    check_fd(SCALAR_OPS[name], _scalar_input(name, (2, 3)), c)


POW_EXPONENTS = [2, 3, -1, 0, 1, 2.5, 0.5, -1.5, 0.0]


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("shape", [(3, 4), (), (0,)], ids=_shape_id)
@pytest.mark.parametrize("exponent", POW_EXPONENTS, ids=repr)
def test_pow_scalar_exponent(exponent, shape, dtype):
    x = positive(shape, seed=4)
    check(lambda lib, x: x**exponent, x, dtype=dtype)
    check(lambda lib, x: lib.pow(x, exponent), x, dtype=dtype)
    check(lambda lib, x: x.pow(exponent), x, dtype=dtype)


@pytest.mark.parametrize("exponent", [2, 3, -2], ids=repr)
def test_pow_integer_exponent_negative_base(exponent):
    check(lambda lib, x: x**exponent, nonzero((3, 4), seed=4), dtype=np.float32)
    check(lambda lib, x: x**exponent, nonzero((3, 4), seed=4), dtype=np.float64)
    check_fd(lambda lib, x: x**exponent, nonzero((3, 4), seed=4))


@pytest.mark.parametrize("exponent", POW_EXPONENTS, ids=repr)
def test_pow_scalar_exponent_fd(exponent):
    check_fd(lambda lib, x: x**exponent, positive((2, 3), seed=4))


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("shape", [(3, 4), (), (0,)], ids=_shape_id)
@pytest.mark.parametrize("base", [2, 2.5, 0.5, 1, 0], ids=repr)
def test_pow_scalar_base(base, shape, dtype):
    """base ** x; for base 0 only x >= 0 (see the negative-exponent case below)."""
    x = np.abs(randn(shape, seed=6)) if base == 0 else randn(shape, seed=6)
    check(lambda lib, x: base**x, x, dtype=dtype)
    check(lambda lib, x: lib.pow(base, x), x, dtype=dtype)


@pytest.mark.parametrize("base", [2, 2.5, 0.5], ids=repr)
def test_pow_scalar_base_fd(base):
    check_fd(lambda lib, x: base**x, randn((2, 3), seed=6))


# ----- unary functions -----------------------------------------------------------------

UNARY = {
    # name: (function form, method form, domain)
    "exp": (lambda lib, x: lib.exp(x), lambda lib, x: x.exp(), "any"),
    "log": (lambda lib, x: lib.log(x), lambda lib, x: x.log(), "pos"),
    "sin": (lambda lib, x: lib.sin(x), lambda lib, x: x.sin(), "any"),
    "cos": (lambda lib, x: lib.cos(x), lambda lib, x: x.cos(), "any"),
    "tanh": (lambda lib, x: lib.tanh(x), lambda lib, x: x.tanh(), "any"),
    "sigmoid": (lambda lib, x: lib.sigmoid(x), lambda lib, x: x.sigmoid(), "any"),
    "relu": (lambda lib, x: lib.relu(x), lambda lib, x: x.relu(), "nonzero"),
    "sqrt": (lambda lib, x: lib.sqrt(x), lambda lib, x: x.sqrt(), "pos"),
    "abs": (lambda lib, x: lib.abs(x), lambda lib, x: abs(x), "nonzero"),
    "neg": (lambda lib, x: lib.neg(x), lambda lib, x: -x, "any"),
    "neg_method": (lambda lib, x: x.neg(), lambda lib, x: x.negative(), "any"),
    "relu_nn": (lambda lib, x: lib.nn.functional.relu(x), lambda lib, x: x.relu(), "nonzero"),
}
UNARY_SHAPES = [(), (7,), (2, 3), (2, 3, 2), (0,), (2, 0)]


def _unary_input(domain: str, shape, seed: int = 7):
    if domain == "pos":
        return positive(shape, seed=seed, low=0.2, high=3.0)
    if domain == "nonzero":
        return nonzero(shape, seed=seed)
    return randn(shape, seed=seed) * 1.5


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("shape", UNARY_SHAPES, ids=_shape_id)
@pytest.mark.parametrize("form", [0, 1], ids=["function", "method"])
@pytest.mark.parametrize("name", list(UNARY))
def test_unary(name, form, shape, dtype):
    fn, domain = UNARY[name][form], UNARY[name][2]
    check(fn, _unary_input(domain, shape), dtype=dtype)


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_fd(name):
    fn, _, domain = UNARY[name]
    check_fd(fn, _unary_input(domain, (3, 4)))


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", ["exp", "sigmoid", "tanh"])
def test_unary_saturation(name, dtype):
    """Large |x|: exp overflows to inf, sigmoid and tanh saturate without nan."""
    x = np.array([-1000.0, -100.0, -30.0, 0.0, 30.0, 100.0, 1000.0])
    if name == "exp":
        x = np.array([-1000.0, -100.0, 0.0, 50.0, 80.0])
    check(UNARY[name][0], x, dtype=dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_log_sqrt_outside_domain(dtype):
    """log(0) = -inf (grad inf), log(-1) = nan, sqrt(-1) = nan: as torch."""
    x = np.array([0.0, -1.0, 1.0])
    check(lambda lib, x: lib.log(x), x, dtype=dtype)
    check(lambda lib, x: lib.sqrt(x), x, dtype=dtype)


# ----- gradients at non-differentiable points -------------------------------------------


KINK = np.array([-2.0, -0.0, 0.0, 0.0, 1.5, 3.0])


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_relu_at_zero(dtype):
    res = check(lambda lib, x: lib.relu(x), KINK, dtype=dtype)
    np.testing.assert_array_equal(res.cr_inputs[0].grad.numpy()[1:4], 0.0)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_abs_at_zero(dtype):
    res = check(lambda lib, x: lib.abs(x), KINK, dtype=dtype)
    np.testing.assert_array_equal(res.cr_inputs[0].grad.numpy()[1:4], 0.0)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_sqrt_at_zero(dtype):
    """The gradient of sqrt at 0 is ±inf (g / 0), as in PyTorch."""
    res = check(lambda lib, x: lib.sqrt(x), np.array([0.0, 0.0, 1.0, 4.0]), dtype=dtype)
    assert np.isinf(res.cr_inputs[0].grad.numpy()[:2]).all()


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("p", [None, 2, 1, math.inf, 3], ids=repr)
def test_norm_at_zero_vector(p, dtype):
    """The gradient of a norm at the zero vector is 0 (PyTorch's choice)."""
    fn = (lambda lib, x: x.norm()) if p is None else (lambda lib, x: x.norm(p=p))
    res = check(fn, np.zeros(4), dtype=dtype)
    np.testing.assert_array_equal(res.cr_inputs[0].grad.numpy(), 0.0)
    # one zero row among nonzero rows, reduced along dim 1
    x = randn((3, 4), seed=8)
    x[1] = 0.0
    if p is None:
        check(lambda lib, x: x.norm(dim=1), x, dtype=dtype)
    else:
        check(lambda lib, x: x.norm(p=p, dim=1), x, dtype=dtype)
        check(lambda lib, x: lib.linalg.vector_norm(x, ord=p, dim=1), x, dtype=dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("exponent", [0, 0.0], ids=repr)
def test_pow_zero_exponent(exponent, dtype):
    """d/dx x**0 = 0 everywhere, x = 0 included."""
    res = check(lambda lib, x: x**exponent, np.array([0.0, -1.0, 2.0, 0.0]), dtype=dtype)
    np.testing.assert_array_equal(res.cr_inputs[0].grad.numpy(), 0.0)
    np.testing.assert_array_equal(res.cr_out.numpy(force=True), 1.0)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_pow_scalar_exponent_at_zero_base(dtype):
    x = np.array([0.0, 0.0, 1.0])
    for exponent in (1, 2, 3, 0.5, 1.5):
        check(lambda lib, x, e=exponent: x**e, x, dtype=dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_pow_tensor_zero_base_and_zero_exponent(dtype):
    """a ** b with zeros in a and in b (b >= 0 where a == 0)."""
    a = np.array([0.0, 0.0, 0.0, 2.0, 2.0, 1.5, 0.0])
    b = np.array([0.0, 2.0, 0.5, 0.0, -1.0, 3.0, 1.0])
    res = check(lambda lib, a, b: a**b, a, b, dtype=dtype)
    np.testing.assert_array_equal(res.cr_out.numpy(force=True)[[0, 3]], 1.0)
    check(lambda lib, a, b: lib.pow(a, b), a, b, dtype=dtype)
    # broadcast: one exponent row containing 0 against bases containing 0
    check(
        lambda lib, a, b: a**b,
        np.array([[0.0], [1.0], [3.0]]),
        np.array([0.0, 1.0, 2.0]),
        dtype=dtype,
    )


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_pow_zero_base_negative_exponent(dtype):
    """0 ** b for b < 0 is inf; PyTorch's exponent gradient there is grad * inf * log(0)
    (= ∓inf), zeroed only where b >= 0."""
    a = np.array([0.0, 0.0, 2.0])
    b = np.array([-1.0, -0.5, -1.0])
    check(lambda lib, a, b: a**b, a, b, dtype=dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_pow_scalar_zero_base_negative_exponent(dtype):
    """0 ** x with x < 0: PyTorch's gradient is grad * inf * log(0) where x < 0."""
    check(lambda lib, x: 0**x, np.array([-1.0, -2.0, 0.0, 1.0]), dtype=dtype)


def test_pow_tensor_fd():
    check_fd(lambda lib, a, b: a**b, positive((3, 1), seed=9), randn((4,), seed=10))
    check_fd(lambda lib, a, b: a**b, positive((), seed=9), randn((2, 3), seed=10))


# ----- dtype promotion ---------------------------------------------------------------

I64 = np.array([1, 2, -3], dtype=np.int64)
I32 = np.array([4, 5, 6], dtype=np.int32)
BOOL = np.array([True, False, True])
F32 = np.array([0.5, -1.5, 2.0], dtype=np.float32)
F64 = np.array([0.25, 1.0, -2.0])

PROMOTION = {
    "int64*2.5": (lambda lib, a: a * 2.5, [I64]),
    "2.5*int64": (lambda lib, a: 2.5 * a, [I64]),
    "int64*2": (lambda lib, a: a * 2, [I64]),
    "int64+True": (lambda lib, a: a + True, [I64]),
    "int/int": (lambda lib, a, b: a / b, [I64, I32]),
    "int/2": (lambda lib, a: a / 2, [I64]),
    "7/int": (lambda lib, a: 7 / a, [I32]),
    "2-int": (lambda lib, a: 2 - a, [I32]),
    "2.5-int": (lambda lib, a: 2.5 - a, [I32]),
    "int32+int64": (lambda lib, a, b: a + b, [I32, I64]),
    "int32*int64_0d": (lambda lib, a, b: a * b, [I32, np.array(3, dtype=np.int64)]),
    "int32+float64_0d": (lambda lib, a, b: a + b, [I32, np.array(0.5)]),
    "bool+int": (lambda lib, a: a + 1, [BOOL]),
    "bool+int_tensor": (lambda lib, a, b: a + b, [BOOL, I32]),
    "bool*bool": (lambda lib, a, b: a * b, [BOOL, BOOL]),
    "bool+bool": (lambda lib, a, b: a + b, [BOOL, BOOL]),
    "bool*2.5": (lambda lib, a: a * 2.5, [BOOL]),
    "bool+float32": (lambda lib, a, b: a + b, [BOOL, F32]),
    "int64+float32": (lambda lib, a, b: a + b, [I64, F32]),
    "float32*int": (lambda lib, a: a * 3, [F32]),
    "int*float32": (lambda lib, a: 3 * a, [F32]),
    "float32+float64_0d": (lambda lib, a, b: a + b, [F32, np.array(2.0)]),
    "float64_0d+float32": (lambda lib, a, b: b + a, [F32, np.array(2.0)]),
    "float32_0d+float64_0d": (
        lambda lib, a, b: a + b,
        [np.float32(1.5) * np.ones((), np.float32), np.array(2.0)],
    ),
    "float32*float64": (lambda lib, a, b: a * b, [F32, F64]),
    "float32/float64_0d": (lambda lib, a, b: a / b, [F32, np.array(4.0)]),
    "float32**float64_0d": (lambda lib, a, b: abs(a) ** b, [F32, np.array(2.0)]),
    "int**2": (lambda lib, a: a**2, [I32]),
    "int**2.5": (lambda lib, a: abs(a) ** 2.5, [I64]),
    "2**int": (lambda lib, a: 2**a, [abs(I64)]),
    "2.5**int": (lambda lib, a: 2.5**a, [I32]),
    "int_sum": (lambda lib, a: a.sum(), [I32]),
    "int_sum_dim": (lambda lib, a: lib.sum(a.reshape(1, 3), dim=1), [I32]),
    "int64_sum": (lambda lib, a: a.sum(), [I64]),
    "bool_sum": (lambda lib, a: a.sum(), [BOOL]),
    "exp(int)": (lambda lib, a: lib.exp(a), [I64]),
    "log(int32)": (lambda lib, a: lib.log(abs(a)), [I32]),
    "sqrt(int)": (lambda lib, a: lib.sqrt(a), [I32]),
    "sin(bool)": (lambda lib, a: lib.sin(a), [BOOL]),
    "sigmoid(int)": (lambda lib, a: lib.sigmoid(a), [I64]),
    "tanh(int)": (lambda lib, a: lib.tanh(a), [I32]),
    "abs(int)": (lambda lib, a: lib.abs(a), [I64]),
    "relu(int)": (lambda lib, a: lib.relu(a), [I32]),
    "neg(int)": (lambda lib, a: -a, [I32]),
    "where(f32,f64)": (lambda lib, c, a, b: lib.where(c, a, b), [BOOL, F32, F64]),
    "where(f32,0.0)": (lambda lib, c, a: lib.where(c, a, 0.0), [BOOL, F32]),
    "where(int,2.5)": (lambda lib, c, a: lib.where(c, a, 2.5), [BOOL, I32]),
    "where(1.0,0.0)": (lambda lib, c: lib.where(c, 1.0, 0.0), [BOOL]),
    "where(1,0)": (lambda lib, c: lib.where(c, 1, 0), [BOOL]),
    "where(f64_0d,2.5)": (lambda lib, c, a: lib.where(c, a, 2.5), [BOOL, np.array(1.0)]),
    "float32*True": (lambda lib, a: a * True, [F32]),
    "2**float32": (lambda lib, a: 2**a, [F32]),
    "float64_0d**2": (lambda lib, a: a**2, [np.array(1.5)]),
    "matmul_int": (lambda lib, a, b: a @ b, [I64, I64]),
    "clone(int)": (lambda lib, a: a.clone(), [I32]),
    "to_int": (lambda lib, a: a.to(lib.int32), [F32]),
    "to_float64": (lambda lib, a: a.to(lib.float64), [I32]),
    "double": (lambda lib, a: a.double(), [I64]),
}


@pytest.mark.parametrize("name", list(PROMOTION))
def test_dtype_promotion(name):
    """Output dtypes follow torch's promotion. Tolerances are float32's: where a float64
    0-d tensor meets a float32 tensor torch computes the backward in float32."""
    fn, inputs = PROMOTION[name]
    check(fn, *inputs, rtol=2e-5, atol=2e-5)


def test_int_mean_raises():
    check_raises(lambda lib, a: a.mean(), I64)
    check_raises(lambda lib, a: lib.mean(a, dim=0), I32)
    check_raises(lambda lib, a: a.mean(), BOOL)


RAISES = {
    "neg(bool)": (lambda lib, a: -a, [BOOL]),
    "bool-bool": (lambda lib, a, b: a - b, [BOOL, BOOL]),
    "int**-1": (lambda lib, a: a**-1, [I64]),
    "matmul_0d": (lambda lib, a, b: a @ b, [np.array(2.0), F64]),
    "matmul_mismatch": (lambda lib, a, b: a @ b, [randn((2, 3)), randn((4, 2))]),
    "matmul_f32_f64": (lambda lib, a, b: a @ b, [F32, F64]),
    "matmul_f64_f32_2d": (lambda lib, a, b: a @ b, [randn((2, 3)), F32]),
    "mm_1d": (lambda lib, a, b: lib.mm(a, b), [randn((3,)), randn((3, 2))]),
    "broadcast_mismatch": (lambda lib, a, b: a + b, [randn((3,)), randn((4,))]),
    "view_noncontiguous": (lambda lib, a: a.t().view(-1), [randn((2, 3))]),
    "sum_bad_dim": (lambda lib, a: a.sum(dim=2), [randn((2, 3))]),
    "norm_inf_empty": (lambda lib, a: lib.linalg.vector_norm(a, ord=math.inf), [randn((0,))]),
    "norm_inf_empty_dim": (lambda lib, a: a.norm(p=math.inf, dim=0), [randn((2, 0)).T]),
    "t_3d": (lambda lib, a: a.t(), [randn((2, 3, 4))]),
    "index_out_of_range": (lambda lib, a: a[5], [randn((3,))]),
    "negative_step": (lambda lib, a: a[::-1], [randn((3,))]),
    "expand_bad": (lambda lib, a: a.expand(3, 3), [randn((2, 3))]),
    "reshape_two_minus1": (lambda lib, a: a.reshape(-1, -1), [randn((2, 3))]),
    "reshape_bad_size": (lambda lib, a: a.reshape(4, 2), [randn((2, 3))]),
    "sum_repeated_dim": (lambda lib, a: a.sum(dim=(0, 0)), [randn((2, 3))]),
    "permute_wrong_len": (lambda lib, a: a.permute(1, 0), [randn((2, 3, 4))]),
}


@pytest.mark.parametrize("name", list(RAISES))
def test_raises_like_torch(name):
    fn, inputs = RAISES[name]
    check_raises(fn, *inputs)


# ----- reductions: sum and mean --------------------------------------------------------

REDUCE_CASES = [
    ((), None),
    ((), 0),
    ((), -1),
    ((5,), None),
    ((5,), 0),
    ((5,), -1),
    ((2, 3, 4), None),
    ((2, 3, 4), 1),
    ((2, 3, 4), -1),
    ((2, 3, 4), (0, 2)),
    ((2, 3, 4), (-1, 0)),
    ((2, 3, 4), [1, 2]),
    ((2, 3, 4), (0, 1, 2)),
    ((2, 3, 4), ()),
    ((0,), None),
    ((0,), 0),
    ((2, 0), None),
    ((2, 0), 0),
    ((2, 0), 1),
]


def _reduce_id(case) -> str:
    return f"{_shape_id(case[0])}-dim{case[1]}"


REDUCTIONS = {
    "sum": lambda dim, keepdim: lambda lib, x: x.sum(dim=dim, keepdim=keepdim),
    "sum_fn": lambda dim, keepdim: lambda lib, x: lib.sum(x, dim, keepdim),
    "mean": lambda dim, keepdim: lambda lib, x: x.mean(dim=dim, keepdim=keepdim),
    "mean_fn": lambda dim, keepdim: lambda lib, x: lib.mean(x, dim, keepdim=keepdim),
}


def _reduction(name, dim, keepdim):
    if dim is None:  # the no-dim overloads take no keepdim
        return (lambda lib, x: x.sum()) if name.startswith("sum") else (lambda lib, x: x.mean())
    return REDUCTIONS[name](dim, keepdim)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("keepdim", [False, True], ids=["", "keepdim"])
@pytest.mark.parametrize("case", REDUCE_CASES, ids=_reduce_id)
@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_sum_mean(name, case, keepdim, dtype):
    shape, dim = case
    check(_reduction(name, dim, keepdim), randn(shape, seed=11), dtype=dtype)


@pytest.mark.parametrize("keepdim", [False, True], ids=["", "keepdim"])
@pytest.mark.parametrize("case", [c for c in REDUCE_CASES if 0 not in c[0]], ids=_reduce_id)
@pytest.mark.parametrize("name", ["sum", "mean"])
def test_sum_mean_fd(name, case, keepdim):
    shape, dim = case
    check_fd(_reduction(name, dim, keepdim), randn(shape, seed=11))


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_sum_keepdim_none_dim(dtype):
    check(lambda lib, x: lib.sum(x, dim=None, keepdim=True) * 1.0, randn((2, 3)), dtype=dtype)


# ----- norms ---------------------------------------------------------------------------

NORM_PS = [None, 2, 1, math.inf, 3]
NORM_CASES = [
    ((5,), None),
    ((5,), 0),
    ((3, 4), None),
    ((3, 4), 0),
    ((3, 4), 1),
    ((3, 4), -1),
    ((3, 4), (0, 1)),
    ((2, 3, 4), (0, 2)),
    ((2, 3, 4), (-1, -2)),
    ((), None),
    ((0,), None),
    ((2, 0), 0),
]


def _norm_fn(kind, p, dim, keepdim):
    if kind == "method":
        if p is None:
            return lambda lib, x: x.norm(dim=dim, keepdim=keepdim)
        return lambda lib, x: x.norm(p=p, dim=dim, keepdim=keepdim)
    if kind == "function":
        if p is None:
            return lambda lib, x: lib.norm(x, dim=dim, keepdim=keepdim)
        return lambda lib, x: lib.norm(x, p, dim, keepdim)
    ord_ = 2 if p is None else p
    return lambda lib, x: lib.linalg.vector_norm(x, ord=ord_, dim=dim, keepdim=keepdim)


def _norm_supported(shape, dim, p) -> bool:
    """torch refuses the inf norm over an empty reduction (no identity)."""
    if p != math.inf or 0 not in shape:
        return True
    dims = range(len(shape)) if dim is None else ([dim] if isinstance(dim, int) else dim)
    return all(shape[d] != 0 for d in dims)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("keepdim", [False, True], ids=["", "keepdim"])
@pytest.mark.parametrize("case", NORM_CASES, ids=_reduce_id)
@pytest.mark.parametrize("p", NORM_PS, ids=repr)
@pytest.mark.parametrize("kind", ["method", "function", "vector_norm"])
def test_norm(kind, p, case, keepdim, dtype):
    shape, dim = case
    fn = _norm_fn(kind, p, dim, keepdim)
    if not _norm_supported(shape, dim, p):  # torch raises: chainrule must raise the same
        check_raises(fn, randn(shape, seed=12), dtype=dtype)
        return
    check(fn, randn(shape, seed=12), dtype=dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("p", [math.inf, 1], ids=repr)
def test_norm_ties(p, dtype):
    """Entries tying for max |x| share the inf-norm gradient equally; exact zeros for p=1."""
    x = np.array([[1.0, -3.0, 3.0, 0.0], [2.0, 2.0, -2.0, 0.5]])
    check(lambda lib, x: x.norm(p=p), x, dtype=dtype)
    check(lambda lib, x: x.norm(p=p, dim=1), x, dtype=dtype)
    check(lambda lib, x: lib.linalg.vector_norm(x, ord=p, dim=0), x, dtype=dtype)


@pytest.mark.parametrize("keepdim", [False, True], ids=["", "keepdim"])
@pytest.mark.parametrize("case", [c for c in NORM_CASES if 0 not in c[0]], ids=_reduce_id)
@pytest.mark.parametrize("p", NORM_PS, ids=repr)
def test_norm_fd(p, case, keepdim):
    shape, dim = case
    check_fd(_norm_fn("vector_norm", p, dim, keepdim), nonzero(shape, seed=12))


# ----- matrix products -----------------------------------------------------------------

MATMUL_PAIRS = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3, 4)),
    ((5, 2, 3), (3, 4)),
    ((2, 3), (5, 3, 4)),
    ((5, 2, 3), (5, 3, 4)),
    ((3,), (5, 3, 4)),
    ((5, 2, 3), (3,)),
    ((2, 1, 2, 3), (5, 3, 4)),
    ((1, 2, 3), (5, 3, 4)),
    ((5, 1, 2, 3), (1, 4, 3, 2)),
    ((0, 3), (3, 4)),
    ((2, 0), (0, 4)),
    ((0,), (0,)),
    ((2, 3), (3, 0)),
    ((0, 2, 3), (3, 4)),
]

MATMULS = {
    "@": lambda lib, a, b: a @ b,
    "matmul": lambda lib, a, b: lib.matmul(a, b),
    "method": lambda lib, a, b: a.matmul(b),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("shapes", MATMUL_PAIRS, ids=_pair_id)
@pytest.mark.parametrize("form", list(MATMULS))
def test_matmul(form, shapes, dtype):
    check(MATMULS[form], randn(shapes[0], seed=13), randn(shapes[1], seed=14), dtype=dtype)


@pytest.mark.parametrize("shapes", [p for p in MATMUL_PAIRS if 0 not in p[0] + p[1]], ids=_pair_id)
def test_matmul_fd(shapes):
    check_fd(MATMULS["@"], randn(shapes[0], seed=13), randn(shapes[1], seed=14))


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize(
    "shapes", [((2, 3), (3, 4)), ((1, 1), (1, 5)), ((0, 3), (3, 2))], ids=_pair_id
)
def test_mm(shapes, dtype):
    a, b = randn(shapes[0], seed=15), randn(shapes[1], seed=16)
    check(lambda lib, a, b: lib.mm(a, b), a, b, dtype=dtype)
    check(lambda lib, a, b: a.mm(b), a, b, dtype=dtype)
    check(lambda lib, a, b: lib.mm(a, b), a, NoGrad(b), dtype=dtype)
    if 0 not in shapes[0]:
        check_fd(lambda lib, a, b: lib.mm(a, b), a, b)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_matmul_same_operand(dtype):
    """x @ x.T and x.T @ x: both uses of x contribute."""
    x = randn((3, 4), seed=17)
    check(lambda lib, x: x @ x.T, x, dtype=dtype)
    check(lambda lib, x: x.t() @ x, x, dtype=dtype)
    check_fd(lambda lib, x: x @ x.T, x)


# ----- shape ops -----------------------------------------------------------------------

SHAPE_OPS = {
    "t_2d": (lambda lib, x: x.t(), (3, 4)),
    "t_fn": (lambda lib, x: lib.t(x), (3, 4)),
    "t_1d": (lambda lib, x: x.t(), (5,)),
    "t_0d": (lambda lib, x: x.t(), ()),
    "T_2d": (lambda lib, x: x.T, (3, 4)),
    "transpose": (lambda lib, x: x.transpose(0, 1), (3, 4)),
    "transpose_3d": (lambda lib, x: x.transpose(0, 2), (2, 3, 4)),
    "transpose_neg": (lambda lib, x: x.transpose(-1, -2), (2, 3, 4)),
    "transpose_same": (lambda lib, x: x.transpose(1, 1), (2, 3, 4)),
    "transpose_fn": (lambda lib, x: lib.transpose(x, 1, 0), (3, 4)),
    "permute": (lambda lib, x: x.permute(2, 0, 1), (2, 3, 4)),
    "permute_tuple": (lambda lib, x: x.permute((1, 2, 0)), (2, 3, 4)),
    "permute_neg": (lambda lib, x: x.permute(-1, 0, -2), (2, 3, 4)),
    "permute_fn": (lambda lib, x: lib.permute(x, (1, 0)), (3, 4)),
    "reshape": (lambda lib, x: x.reshape(4, 3), (3, 4)),
    "reshape_tuple": (lambda lib, x: x.reshape((2, -1)), (3, 4)),
    "reshape_flat": (lambda lib, x: x.reshape(-1), (2, 3, 4)),
    "reshape_0d": (lambda lib, x: x.reshape(1, 1), ()),
    "reshape_to_0d": (lambda lib, x: x.reshape(()), (1,)),
    "reshape_empty": (lambda lib, x: x.reshape(0, 3), (3, 0)),
    "reshape_fn": (lambda lib, x: lib.reshape(x, (6, 2)), (3, 4)),
    "reshape_noncontig": (lambda lib, x: x.t().reshape(-1), (3, 4)),
    "reshape_perm": (lambda lib, x: x.permute(2, 0, 1).reshape(4, 6), (2, 3, 4)),
    "view": (lambda lib, x: x.view(2, 6), (3, 4)),
    "view_infer": (lambda lib, x: x.view(-1, 2), (3, 4)),
    "view_tuple": (lambda lib, x: x.view((12,)), (3, 4)),
    "view_0d": (lambda lib, x: x.view(1), ()),
    "expand": (lambda lib, x: x.expand(3, 4), (3, 1)),
    "expand_new_dims": (lambda lib, x: x.expand(2, 3, 4), (4,)),
    "expand_minus1": (lambda lib, x: x.expand(2, -1, 4), (3, 1)),
    "expand_0d": (lambda lib, x: x.expand(2, 3), ()),
    "expand_tuple": (lambda lib, x: x.expand((2, 5)), (1, 5)),
    "expand_to_empty": (lambda lib, x: x.expand(0, 4), (1, 4)),
    "expand_as": (lambda lib, x: x.expand_as(x * lib.ones(2, 3, dtype=x.dtype)), (3,)),
    "flatten": (lambda lib, x: x.flatten(), (2, 3, 4)),
    "flatten_start": (lambda lib, x: x.flatten(1), (2, 3, 4)),
    "flatten_range": (lambda lib, x: x.flatten(0, 1), (2, 3, 4)),
    "flatten_neg": (lambda lib, x: lib.flatten(x, -2, -1), (2, 3, 4)),
    "flatten_0d": (lambda lib, x: x.flatten(), ()),
    "flatten_empty": (lambda lib, x: x.flatten(), (2, 0, 3)),
    "view_as": (lambda lib, x: x.view_as(lib.ones(6, 2)), (3, 4)),
    "reshape_as": (lambda lib, x: x.reshape_as(lib.ones(2, 6)), (3, 4)),
    "mT": (lambda lib, x: x.mT, (2, 3, 4)),
    "chain": (lambda lib, x: x.t().reshape(2, 6).permute(1, 0).flatten().view(3, 4), (3, 4)),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", list(SHAPE_OPS))
def test_shape_op(name, dtype):
    fn, shape = SHAPE_OPS[name]
    check(fn, randn(shape, seed=18), dtype=dtype)


@pytest.mark.parametrize("name", [n for n, (_, s) in SHAPE_OPS.items() if 0 not in s])
def test_shape_op_fd(name):
    fn, shape = SHAPE_OPS[name]
    # multiply by a function of x so that the gradient depends on the layout
    check_fd(lambda lib, x: fn(lib, x) * fn(lib, x.sin()), randn(shape, seed=18))


# ----- indexing ------------------------------------------------------------------------

INDEX_CASES = {
    "int": (lambda lib, x: x[1], (3, 4), []),
    "neg_int": (lambda lib, x: x[-1], (3, 4), []),
    "int_int": (lambda lib, x: x[1, 2], (3, 4), []),
    "0d_from_1d": (lambda lib, x: x[2], (5,), []),
    "slice": (lambda lib, x: x[1:3], (5, 2), []),
    "slice_step": (lambda lib, x: x[::2], (5, 2), []),
    "slice_step_start": (lambda lib, x: x[1::3, ::2], (7, 5), []),
    "slice_neg": (lambda lib, x: x[-3:-1], (5,), []),
    "slice_empty": (lambda lib, x: x[3:1], (5,), []),
    "slice_over": (lambda lib, x: x[2:100], (5,), []),
    "none": (lambda lib, x: x[None], (3, 4), []),
    "none_mid": (lambda lib, x: x[:, None, 1:], (3, 4), []),
    "ellipsis": (lambda lib, x: x[..., 1], (2, 3, 4), []),
    "ellipsis_int": (lambda lib, x: x[1, ...], (2, 3, 4), []),
    "ellipsis_none": (lambda lib, x: x[..., None], (2, 3), []),
    "mixed": (lambda lib, x: x[1, ..., None, ::2], (2, 3, 4), []),
    "0d_ellipsis": (lambda lib, x: x[...], (), []),
    "0d_none": (lambda lib, x: x[None], (), []),
    "list": (lambda lib, x: x[[0, 2, 2]], (4, 3), []),
    "list_repeated": (lambda lib, x: x[[1, 1, 1, 0]], (3,), []),
    "list_second_dim": (lambda lib, x: x[:, [0, 2, 0]], (3, 4), []),
    "two_lists": (lambda lib, x: x[[0, 1, 1], [2, 0, 2]], (3, 4), []),
    "int_tensor": (lambda lib, x, i: x[i], (4, 3), [np.array([3, 0, 3, 3])]),
    "int_tensor_2d": (lambda lib, x, i: x[i], (4, 3), [np.array([[0, 1], [1, 1]])]),
    "int_tensor_neg": (lambda lib, x, i: x[i], (4,), [np.array([-1, 0, -1])]),
    "int_tensor_dim1": (lambda lib, x, i: x[:, i], (2, 4), [np.array([1, 1, 3])]),
    "int32_tensor": (lambda lib, x, i: x[i], (4,), [np.array([1, 1, 0], dtype=np.int32)]),
    "int_tensor_0d": (lambda lib, x, i: x[i], (4, 2), [np.array(2)]),
    "two_int_tensors": (
        lambda lib, x, i, j: x[i, j],
        (3, 4),
        [np.array([0, 2, 2]), np.array([1, 3, 3])],
    ),
    "int_tensor_empty": (lambda lib, x, i: x[i], (4, 2), [np.array([], dtype=np.int64)]),
    "bool_mask": (lambda lib, x, m: x[m], (5,), [np.array([True, False, True, True, False])]),
    "bool_mask_2d": (
        lambda lib, x, m: x[m],
        (2, 3),
        [np.array([[True, False, True], [False, False, True]])],
    ),
    "bool_mask_rows": (lambda lib, x, m: x[m], (3, 2), [np.array([False, True, True])]),
    "bool_mask_dim1": (lambda lib, x, m: x[:, m], (2, 3), [np.array([True, False, True])]),
    "bool_mask_none": (lambda lib, x, m: x[m], (3,), [np.array([False, False, False])]),
    "mask_from_compare": (lambda lib, x: x[x > 0], (3, 4), []),
    "chain": (lambda lib, x: x[1:][:, [0, 0]][..., None][0], (3, 4), []),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", list(INDEX_CASES))
def test_getitem(name, dtype):
    fn, shape, extra = INDEX_CASES[name]
    check(fn, randn(shape, seed=19), *extra, dtype=dtype)


@pytest.mark.parametrize("name", list(INDEX_CASES))
def test_getitem_fd(name):
    fn, shape, extra = INDEX_CASES[name]
    check_fd(
        lambda lib, x, *k: fn(lib, x, *k) * fn(lib, x, *k).exp(), randn(shape, seed=19), *extra
    )


def test_getitem_float_index_raises():
    check_raises(lambda lib, x, i: x[i], randn((3,)), NoGrad(np.array([0.0, 1.0])))


# ----- setitem ------------------------------------------------------------------------


def _setter(key_fn):
    """y = x * 1 (a non-leaf copy of x); y[key] = value; return y."""

    def fn(lib, x, value, *extra):
        y = x * 1
        y[key_fn(lib, *extra)] = value
        return y

    return fn


SETITEM_CASES = {
    "int_row": (_setter(lambda lib: 0), (3, 4), randn((4,), seed=30), []),
    "int_row_broadcast": (_setter(lambda lib: 1), (3, 4), randn((1,), seed=30), []),
    "slice": (_setter(lambda lib: slice(1, 3)), (3, 4), randn((2, 4), seed=30), []),
    "slice_broadcast": (_setter(lambda lib: slice(1, 3)), (3, 4), randn((4,), seed=30), []),
    "slice_step": (_setter(lambda lib: slice(None, None, 2)), (5,), randn((3,), seed=30), []),
    "column": (_setter(lambda lib: (slice(None), 1)), (3, 4), randn((3,), seed=30), []),
    "element_0d": (_setter(lambda lib: (2, 3)), (3, 4), randn((), seed=30), []),
    "ellipsis": (_setter(lambda lib: (Ellipsis, 0)), (2, 3, 4), randn((2, 1), seed=30), []),
    "scalar_float": (_setter(lambda lib: (slice(None), 1)), (3, 4), 5.0, []),
    "scalar_int": (_setter(lambda lib: 0), (3, 4), 7, []),
    "list": (_setter(lambda lib: [0, 2]), (3, 4), randn((2, 4), seed=30), []),
    "int_tensor": (_setter(lambda lib, i: i), (4, 2), randn((2, 2), seed=30), [np.array([3, 1])]),
    "int_tensor_broadcast": (
        _setter(lambda lib, i: i),
        (4, 2),
        randn((2,), seed=30),
        [np.array([0, 2])],
    ),
    "bool_mask": (
        _setter(lambda lib, m: m),
        (2, 3),
        randn((3,), seed=30),
        [np.array([[True, False, True], [False, False, True]])],
    ),
    "bool_mask_scalar": (
        _setter(lambda lib, m: m),
        (2, 3),
        -1.5,
        [np.array([[True, False, True], [False, False, True]])],
    ),
    "bool_mask_0d_value": (
        _setter(lambda lib, m: m),
        (4,),
        randn((), seed=30),
        [np.array([True, False, True, False])],
    ),
    "all": (_setter(lambda lib: Ellipsis), (2, 3), randn((2, 3), seed=30), []),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", list(SETITEM_CASES))
def test_setitem(name, dtype):
    fn, shape, value, extra = SETITEM_CASES[name]
    check(fn, randn(shape, seed=20), value, *extra, dtype=dtype)


@pytest.mark.parametrize("name", list(SETITEM_CASES))
def test_setitem_fd(name):
    fn, shape, value, extra = SETITEM_CASES[name]

    def f(lib, x, v, *k):
        v2 = v * v if isinstance(v, type(x)) else v
        return fn(lib, x.sin(), v2, *k) * x

    check_fd(f, randn(shape, seed=20), value, *extra)


def test_setitem_value_of_other_dtype():
    """A float64 value written into float32 y: y stays float32, value's grad is float64."""
    x = randn((3, 4), seed=21).astype(np.float32)
    v = randn((4,), seed=22)
    check(_setter(lambda lib: 1), x, v)
    check(_setter(lambda lib: slice(0, 2)), x, v.astype(np.float32))


def test_setitem_value_without_grad_and_twice():
    def fn(lib, x, v):
        y = x.sin()
        y[0] = v
        y[1:, 1] = v[:2] * 2
        return y * x

    check(fn, randn((3, 4), seed=23), randn((4,), seed=24), dtype=np.float64)
    check(fn, randn((3, 4), seed=23), NoGrad(randn((4,), seed=24)), dtype=np.float32)
    check_fd(fn, randn((3, 4), seed=23), randn((4,), seed=24))


def test_setitem_on_leaf_requiring_grad_raises():
    def fn(lib, x):
        x[0] = 1.0
        return x

    check_raises(fn, randn((3,)))


def test_setitem_under_no_grad():
    def fn(lib, x, v):
        with lib.no_grad():
            x[1] = v
        return x * x

    check(fn, randn((3, 2), seed=25), randn((2,), seed=26), dtype=np.float64)


# ----- clone, casts, where --------------------------------------------------------------

CAST_OPS = {
    "clone": lambda lib, x: x.clone(),
    "clone_fn": lambda lib, x: lib.clone(x) * x,
    "double": lambda lib, x: x.double(),
    "to_float64": lambda lib, x: x.to(lib.float64) * 3,
    "to_float32": lambda lib, x: x.to(lib.float32),
    "to_dtype_kw": lambda lib, x: x.to(dtype=lib.float64),
    "float": lambda lib, x: x.float(),
    "to_same": lambda lib, x: x.to(x.dtype),
    "double_then_float": lambda lib, x: x.double().sin().float(),
    "to_int64": lambda lib, x: x.to(lib.int64),
}


@pytest.mark.parametrize("shape", [(3, 4), (), (0,)], ids=_shape_id)
@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", list(CAST_OPS))
def test_clone_and_casts(name, dtype, shape):
    check(CAST_OPS[name], randn(shape, seed=27) * 3, dtype=dtype)


@pytest.mark.parametrize(
    "name", ["clone", "clone_fn", "double", "to_float64", "to_dtype_kw", "to_same"]
)
def test_clone_and_casts_fd(name):
    """The float64 -> float64 casts (a float32 round trip is beyond finite differences)."""
    check_fd(lambda lib, x: CAST_OPS[name](lib, x).double() * x, randn((3, 4), seed=27))


def test_clone_is_a_copy():
    res = check(lambda lib, x: x.clone(), randn((3,)), dtype=np.float64)
    res.cr_out.detach()[0] = 100.0
    assert res.cr_inputs[0].detach().numpy()[0] != 100.0


WHERE_CASES = {
    "same_shape": (lambda lib, c, a, b: lib.where(c, a, b), [(3, 4), (3, 4), (3, 4)]),
    "broadcast": (lambda lib, c, a, b: lib.where(c, a, b), [(3, 1), (1, 4), ()]),
    "broadcast_cond": (lambda lib, c, a, b: lib.where(c, a, b), [(4,), (3, 4), (3, 1)]),
    "method": (lambda lib, c, a, b: a.where(c, b), [(3, 4), (3, 4), (4,)]),
    "scalar_other": (lambda lib, c, a, b: lib.where(c, a, 0.0) * b, [(3, 4), (3, 4), (3, 4)]),
    "scalar_input": (lambda lib, c, a, b: lib.where(c, 2.5, a) + b, [(3, 4), (4,), ()]),
    "0d": (lambda lib, c, a, b: lib.where(c, a, b), [(), (), ()]),
    "empty": (lambda lib, c, a, b: lib.where(c, a, b), [(0,), (0,), (1,)]),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", list(WHERE_CASES))
def test_where(name, dtype):
    fn, (sc, sa, sb) = WHERE_CASES[name]
    cond = randn(sc, seed=28) > 0
    check(fn, np.asarray(cond), randn(sa, seed=29), randn(sb, seed=30), dtype=dtype)


@pytest.mark.parametrize("name", [n for n in WHERE_CASES if n != "empty"])
def test_where_fd(name):
    fn, (sc, sa, sb) = WHERE_CASES[name]
    cond = np.asarray(randn(sc, seed=28) > 0)
    check_fd(fn, cond, randn(sa, seed=29), randn(sb, seed=30))


def test_where_condition_from_input():
    """The classic safe pattern: where(x > 0, x, x * 0.1)."""
    x = nonzero((3, 4), seed=31)
    check(lambda lib, x: lib.where(x > 0, x, x * 0.1), x, dtype=np.float32)
    check_fd(lambda lib, x: lib.where(x > 0, x.exp(), x * 0.1), x)


# ----- in-place ops ------------------------------------------------------------------------


def _inplace_fns():
    def add_(lib, x, b):
        y = x * 1.0
        y.add_(b)
        return y

    def sub_(lib, x, b):
        y = x.sin()
        y.sub_(b)
        return y

    def mul_(lib, x, b):
        y = x * 1.0
        y.mul_(b)
        return y

    def div_(lib, x, b):
        y = x * 1.0
        y.div_(b)
        return y

    def iadd(lib, x, b):
        y = x.sin()
        y += b
        return y

    def isub(lib, x, b):
        y = x * 2.0
        y -= b
        return y

    def imul(lib, x, b):
        y = x * 2.0
        y *= b
        return y

    def idiv(lib, x, b):
        y = x * 2.0
        y /= b
        return y

    def chain(lib, x, b):
        y = x * 1.0
        y += b
        y *= 2
        y -= 1.5
        y /= 4
        y.mul_(b)
        y.sub_(x)
        return y

    def add_alpha_(lib, x, b):
        y = x.clone()
        y.add_(b, alpha=3)
        return y

    return {
        f.__name__: f for f in (add_, sub_, mul_, div_, iadd, isub, imul, idiv, chain, add_alpha_)
    }


INPLACE = _inplace_fns()
INPLACE_OPERANDS = {
    "tensor": lambda: nonzero((3, 4), seed=32),
    "broadcast": lambda: nonzero((4,), seed=32),
    "0d": lambda: nonzero((), seed=32),
    "no_grad_tensor": lambda: NoGrad(nonzero((4,), seed=32)),
    "int": lambda: 3,
    "float": lambda: -2.5,
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("operand", list(INPLACE_OPERANDS))
@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_on_nonleaf(name, operand, dtype):
    """In-place ops on a non-leaf are recorded: gradients reach x and the operand."""
    check(INPLACE[name], randn((3, 4), seed=33), INPLACE_OPERANDS[operand](), dtype=dtype)


@pytest.mark.parametrize("operand", ["tensor", "broadcast", "0d", "float"])
@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_on_nonleaf_fd(name, operand):
    check_fd(INPLACE[name], randn((3, 4), seed=33), INPLACE_OPERANDS[operand]())


def test_inplace_operand_of_other_dtype():
    """y (float32) += b (float64): y stays float32, b's grad is float64."""
    x = randn((3, 4), seed=34).astype(np.float32)
    b = nonzero((4,), seed=35)
    for fn in INPLACE.values():
        if fn.__name__ != "add_alpha_":
            check(fn, x, b)


def test_inplace_version_and_grad_fn():
    """After y.add_(b) the result is y itself, with a new grad_fn and a bumped version."""
    for lib in (cr, torch):
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        before = y._version
        out = y.add_(1.0)
        assert out is y
        assert y._version == before + 1
        assert y.grad_fn is not None
        assert y.grad_fn.name() == "AddBackward0"


def _sgd_step(lib, w, g):
    """An optimizer step on a leaf, under no_grad; then the leaf is used again."""
    with lib.no_grad():
        w -= 0.1 * g
        w.add_(g, alpha=0.5)
        w.mul_(0.9)
        w *= 1.1
        w.div_(2.0)
        w /= 0.5
        w += 1
        w.sub_(0.25)
    assert w.is_leaf and w.requires_grad
    return (w * w).sum() * w


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_inplace_on_leaf_under_no_grad(dtype):
    # forward=False: _sgd_step asserts w.requires_grad, which a dual input does not have
    res = check(
        _sgd_step, randn((3,), seed=36), NoGrad(randn((3,), seed=37)), dtype=dtype, forward=False
    )
    assert res.cr_inputs[0].grad_fn is None


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_inplace_on_leaf_under_no_grad_updates_values(dtype):
    def fn(lib, w):
        with lib.no_grad():
            w.add_(lib.ones_like(w))
            w -= 0.5
        return w.clone()

    res = check(fn, randn((2, 2), seed=38), dtype=dtype)
    np.testing.assert_allclose(
        res.cr_inputs[0].detach().numpy(), res.torch_inputs[0].detach().numpy(), rtol=1e-6
    )


INPLACE_RAISES = {
    "leaf_add_": lambda lib, x: x.add_(1.0),
    "leaf_iadd": lambda lib, x: x.__iadd__(1.0),
    "leaf_mul_": lambda lib, x: x.mul_(2),
    "int_iadd_float": lambda lib, x: (x.detach().to(lib.int64)).add_(1.5),
    "int_idiv": lambda lib, x: (x.detach().to(lib.int64)).div_(2),
    "broadcast_self": lambda lib, x: (x * 1)[0:1].add_(x),
    "saved_then_modified": lambda lib, x: _modify_saved(lib, x),
}


def _modify_saved(lib, x):
    y = x.exp()  # exp saves its output
    y.mul_(2)
    y.sum().backward()


@pytest.mark.parametrize("name", list(INPLACE_RAISES))
def test_inplace_raises(name):
    check_raises(INPLACE_RAISES[name], randn((3, 2), seed=39))


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("shape", [(2, 3, 4), (5,), ()], ids=_shape_id)
def test_T_not_2d_warns_like_torch(shape, dtype):
    """x.T on a tensor that is not 2-D reverses its dims, with torch's deprecation warning
    (torch 2.13 warns for 0-d tensors too, once per process, so only chainrule's is
    asserted here)."""
    x = randn(shape, seed=40)
    with pytest.warns(UserWarning, match="T"):
        assert to_lib(cr, x).T.shape == x.shape[::-1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check(lambda lib, x: x.T, x, dtype=dtype)


NUMERIC_EDGE_CASES = {
    "mean_empty": "x.mean()",
    "mean_empty_dim": "x.mean(dim=1)",
    "log_div_zero": "x.log() + 1 / x",
    "sqrt_sum": "x.sqrt().sum()",
}


@pytest.mark.parametrize("name", list(NUMERIC_EDGE_CASES))
def test_no_numpy_warnings(name):
    """PyTorch is silent about empty means, log(0) and 1/0; so must chainrule be.

    Run as a user would, in a fresh interpreter with ``-W error``: chainrule's own
    filter applies, nothing of pytest's.
    """
    expr = NUMERIC_EDGE_CASES[name]
    script = (
        "import numpy as np, chainrule as torch\n"
        "for shape in ((2, 0), (2, 1)):\n"
        "    x = torch.zeros(*shape, dtype=torch.float64, requires_grad=True)\n"
        f"    out = {expr}\n"
        "    out.backward(torch.ones_like(out))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-W", "error", "-c", script], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, f"chainrule warned or failed: {proc.stderr.strip()[-600:]}"
    fn = eval(f"lambda lib, x: {expr}")  # noqa: S307 - a fixed expression above
    for shape in ((2, 0), (2, 1)):
        check(fn, np.zeros(shape), dtype=np.float64)


# ----- in-place writes through views -----------------------------------------------------


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
