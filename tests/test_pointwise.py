"""The pointwise ops of ops/pointwise.py against PyTorch: forward values, output dtypes,
node names and gradients (float32 and float64, broadcasting, 0-d inputs, Python-number
operands), float64 finite differences, forward-mode tangents, second derivatives, the
conventions at kinks and ties, in-place variants, errors, and erf's accuracy.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import chainrule as cr
from chainrule.ops.pointwise import TENSOR_METHODS, _erf_erfc
from oracle import (
    DT_IDS,
    FLOATS,
    NoGrad,
    assert_same_tangent,
    check,
    check_double_backward,
    check_fd,
    check_raises,
    compare_tangents,
    same_node,
    values,
)

SHAPES = [(3, 4), (), (5,)]
SHAPE_IDS = ["3x4", "0d", "5"]


# ----- one input -------------------------------------------------------------------------

UNARY = {
    "exp2": (lambda L, x: L.exp2(x), "any"),
    "expm1": (lambda L, x: x.expm1(), "any"),
    "log2": (lambda L, x: L.log2(x), "pos"),
    "log10": (lambda L, x: x.log10(), "pos"),
    "log1p": (lambda L, x: L.log1p(x), "gt-1"),
    "rsqrt": (lambda L, x: x.rsqrt(), "pos"),
    "square": (lambda L, x: L.square(x), "any"),
    "square_method": (lambda L, x: x.square(), "any"),
    "tan": (lambda L, x: L.tan(x), "tan"),
    "asin": (lambda L, x: L.asin(x), "unit"),
    "arcsin": (lambda L, x: x.arcsin(), "unit"),
    "acos": (lambda L, x: x.acos(), "unit"),
    "atan": (lambda L, x: L.atan(x), "any"),
    "arctan": (lambda L, x: L.arctan(x), "any"),
    "sinh": (lambda L, x: L.sinh(x), "any"),
    "cosh": (lambda L, x: x.cosh(), "any"),
    "asinh": (lambda L, x: L.asinh(x), "any"),
    "acosh": (lambda L, x: x.acosh(), "gt1"),
    "atanh": (lambda L, x: L.atanh(x), "unit"),
    "arctanh": (lambda L, x: x.arctanh(), "unit"),
    "erf": (lambda L, x: L.erf(x), "wide"),
    "erfc": (lambda L, x: x.erfc(), "wide"),
    "floor": (lambda L, x: L.floor(x), "away"),
    "ceil": (lambda L, x: x.ceil(), "away"),
    "trunc": (lambda L, x: L.trunc(x), "away"),
    "fix": (lambda L, x: x.fix(), "away"),
    "round": (lambda L, x: L.round(x), "away"),
    "round_decimals": (lambda L, x: L.round(x, decimals=1), "away10"),
    "round_decimals_method": (lambda L, x: x.round(decimals=1), "away10"),
    "round_negative_decimals": (lambda L, x: L.round(x, decimals=-1), "away_10"),
    "frac": (lambda L, x: L.frac(x), "away"),
    "clamp": (lambda L, x: L.clamp(x, -0.5, 0.5), "clamp"),
    "clamp_min": (lambda L, x: x.clamp(min=-0.5), "clamp"),
    "clamp_max": (lambda L, x: L.clamp(x, max=0.5), "clamp"),
    "clamp_int_bounds": (lambda L, x: L.clamp(x, -1, 1), "clamp"),
    "clip": (lambda L, x: x.clip(-0.5, 0.5), "clamp"),
    "nan_to_num": (lambda L, x: L.nan_to_num(x), "any"),
    "sgn": (lambda L, x: L.sgn(x), "nonzero"),
    "sgn_method": (lambda L, x: x.sgn() * x, "nonzero"),
    "clamp_min_fn": (lambda L, x: L.clamp_min(x, -0.5), "clamp"),
    "clamp_max_method": (lambda L, x: x.clamp_max(0.5), "clamp"),
    "logit": (lambda L, x: L.logit(x), "prob"),
    "logit_eps": (lambda L, x: x.logit(eps=0.2), "prob"),
    "deg2rad": (lambda L, x: L.deg2rad(x), "any"),
    "rad2deg": (lambda L, x: x.rad2deg(), "any"),
    "sinc": (lambda L, x: L.sinc(x), "any"),
    "sinc_method": (lambda L, x: x.sinc(), "wide"),
    "float_power": (lambda L, x: L.float_power(x, 3), "any"),
    "float_power_method": (lambda L, x: x.float_power(1.5), "pos"),
    "rfloat_power": (lambda L, x: L.float_power(2.0, x), "any"),
    "positive": (lambda L, x: L.positive(x) * 2, "any"),
}
SMOOTH_UNARY = [n for n in UNARY if not n.startswith(("floor", "ceil", "trunc", "fix", "round"))]


@pytest.mark.parametrize("shape", SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_matches_torch(name, dtype, shape):
    fn, kind = UNARY[name]
    same_node(check(fn, values(kind, shape, seed=len(name)), dtype=dtype))


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_finite_differences(name):
    fn, kind = UNARY[name]
    check_fd(fn, values(kind, (2, 3), seed=len(name) + 1))


def test_nan_to_num_matches_torch():
    x = np.array([np.nan, np.inf, -np.inf, 1.5, -2.0])
    for dtype in FLOATS:
        for fn in (
            lambda L, x: L.nan_to_num(x),
            lambda L, x: L.nan_to_num(x, nan=1.0, posinf=3.0),
            lambda L, x: x.nan_to_num(neginf=-7.0),
        ):
            same_node(check(fn, x, dtype=dtype))


def test_round_ties_to_even():
    check(lambda L, x: L.round(x), np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.49]))
    check(lambda L, x: L.round(x, decimals=2), np.array([1.2345, -0.125, 2.675, 1e-3]))
    check(lambda L, x: L.round(x, decimals=2), np.array([1.2345, 0.125]), dtype=np.float32)


# ----- integer and bool inputs: dtypes as PyTorch's, no gradient -----------------------------

I = np.array([[3, -2, 0], [7, -5, 1]], dtype=np.int64)
I32 = np.array([5, -6, 1], dtype=np.int32)
J = np.array([[2, 3, -4], [-3, 2, 5]], dtype=np.int64)  # nonzero divisors
B = np.array([[True, False, True], [False, False, True]])
C = np.array([True, True, False])
F = np.array([[0.5, 0.0, -2.0], [np.nan, np.inf, 1.0]])

NO_GRAD = {
    "floor_int": (lambda L, a: L.floor(a), I),
    "ceil_int32": (lambda L, a: a.ceil(), I32),
    "round_int": (lambda L, a: L.round(a), I),
    "trunc_int": (lambda L, a: L.trunc(a), I),
    "exp2_int": (lambda L, a: L.exp2(a), I),
    "erf_int": (lambda L, a: L.erf(a), I),
    "log1p_bool": (lambda L, a: L.log1p(a), B),
    "tan_int32": (lambda L, a: a.tan(), I32),
    "square_int": (lambda L, a: L.square(a), I),
    "square_bool": (lambda L, a: a.square(), B),
    "clamp_int": (lambda L, a: L.clamp(a, -1, 2), I),
    "clamp_int_float_bound": (lambda L, a: L.clamp(a, 0.5), I),
    "clamp_bool": (lambda L, a: L.clamp(a, 0, 1), B),
    "clamp_int_tensor_bounds": (lambda L, a, b: L.clamp(a, b), I, J),
    "nan_to_num_int": (lambda L, a: L.nan_to_num(a), I),
    "nan_to_num_bool": (lambda L, a: L.nan_to_num(a), B),
    "maximum_int": (lambda L, a, b: L.maximum(a, b), I, J),
    "minimum_bool": (lambda L, a, b: L.minimum(a, b), B, C),
    "fmax_int32_int64": (lambda L, a, b: L.fmax(a, b), I32, J),
    "fmin_int_bool": (lambda L, a, b: L.fmin(a, b), I, C),
    "atan2_int": (lambda L, a, b: L.atan2(a, b), I, J),
    "remainder_int": (lambda L, a, b: L.remainder(a, b), I, J),
    "remainder_int_scalar": (lambda L, a: a % 3, I),
    "remainder_int_float_scalar": (lambda L, a: L.remainder(a, 2.5), I),
    "rmod_int": (lambda L, b: 7 % b, J),
    "remainder_number_first": (lambda L, b: L.remainder(2.5, b), J),
    "fmod_int": (lambda L, a, b: L.fmod(a, b), I, J),
    "fmod_int_scalar": (lambda L, a: a.fmod(-3), I),
    "floor_divide_int": (lambda L, a, b: L.floor_divide(a, b), I, J),
    "floordiv_int_scalar": (lambda L, a: a // 3, I),
    "rfloordiv_int": (lambda L, b: 7 // b, J),
    "div_floor_int": (lambda L, a, b: L.div(a, b, rounding_mode="floor"), I, J),
    "div_trunc_int": (lambda L, a, b: L.div(a, b, rounding_mode="trunc"), I, J),
    "div_trunc_int_scalar": (lambda L, a: a.div(-3, rounding_mode="trunc"), I),
    "div_trunc_int32": (lambda L, a: L.div(a, 4, rounding_mode="trunc"), I32),
    "div_trunc_int_float": (lambda L, a: L.div(a, 2.5, rounding_mode="trunc"), I),
    "logical_and": (lambda L, a, b: L.logical_and(a, b), B, C),
    "logical_and_mixed": (lambda L, a, b: L.logical_and(a, b), I, F),
    "logical_or": (lambda L, a, b: a.logical_or(b), I, C),
    "logical_xor": (lambda L, a, b: L.logical_xor(a, b), F, B),
    "logical_not_int": (lambda L, a: L.logical_not(a), I),
    "logical_not_float": (lambda L, a: a.logical_not(), NoGrad(F)),
    "isnan": (lambda L, a: L.isnan(a), NoGrad(F)),
    "isnan_int": (lambda L, a: a.isnan(), I),
    "isinf": (lambda L, a: L.isinf(a), NoGrad(F)),
    "isinf_bool": (lambda L, a: L.isinf(a), B),
    "isfinite": (lambda L, a: a.isfinite(), NoGrad(F)),
    "invert_bool": (lambda L, a: ~a, B),
    "invert_int": (lambda L, a: ~a, I),
    "and_bool": (lambda L, a, b: a & b, B, C),
    "and_bool_scalar": (lambda L, a: a & True, B),
    "rand_bool_scalar": (lambda L, a: True & a, B),
    "and_int_bool": (lambda L, a, b: a & b, I, C),
    "and_int_scalar": (lambda L, a: a & 3, I),
    "or_bool": (lambda L, a, b: a | b, B, C),
    "or_bool_int_scalar": (lambda L, a: a | 1, B),
    "xor_bool": (lambda L, a, b: a ^ b, B, C),
    "rxor_int": (lambda L, a: 5 ^ a, I),
    "bitwise_and_int32": (lambda L, a: L.bitwise_and(a, 6), I32),
    "bitwise_not": (lambda L, a: L.bitwise_not(a), I32),
    "sgn_int": (lambda L, a: L.sgn(a), I),
    "sgn_bool": (lambda L, a: L.sgn(a), B),
    "sign_bool": (lambda L, a: a.sign(), B),
    "clamp_min_int": (lambda L, a: L.clamp_min(a, 1), I),
    "clamp_max_int_float": (lambda L, a: a.clamp_max(0.5), I),
    "xlogy_int": (lambda L, a, b: L.xlogy(a, b), I, J),
    "logit_int": (lambda L, a: L.logit(a), I),
    "copysign_int": (lambda L, a: L.copysign(a, -1), I),
    "deg2rad_int": (lambda L, a: L.deg2rad(a), I),
    "sinc_int": (lambda L, a: a.sinc(), I),
    "float_power_int": (lambda L, a: L.float_power(a, 2), I),
    "ldexp_int": (lambda L, a, b: L.ldexp(a, b), I, J),
    "heaviside": (lambda L, a, b: L.heaviside(a, b), NoGrad(F), NoGrad(F[::-1])),
    "heaviside_int": (lambda L, a, b: a.heaviside(b), I, J),
    "signbit": (lambda L, a: L.signbit(a), NoGrad(np.array([-0.0, 0.0, -1.0, np.nan]))),
    "signbit_int": (lambda L, a: a.signbit(), I),
    "isposinf": (lambda L, a: L.isposinf(a), NoGrad(F)),
    "isneginf": (lambda L, a: a.isneginf(), NoGrad(-F)),
    "isreal": (lambda L, a: L.isreal(a), NoGrad(F)),
    "isclose": (lambda L, a, b: L.isclose(a, b), NoGrad(F), NoGrad(F + 1e-9)),
    "lshift": (lambda L, a, b: a << b.abs(), I, J),
    "rshift_scalar": (lambda L, a: a >> 1, I),
    "rlshift": (lambda L, b: 2 << b.abs(), J),
    "lshift_wide": (lambda L, a: L.bitwise_left_shift(a, 64), I),
    "rshift_wide": (lambda L, a: a.bitwise_right_shift(70), I),
    "lshift_uint8": (lambda L, a: a.to(L.uint8) << 9, I),
    "lshift_bool_scalar": (lambda L, a: a << 1, B),
    "ilshift": (lambda L, a: _ilshift(a.clone()), I),
    "nextafter": (lambda L, a, b: L.nextafter(a, b), NoGrad(F), NoGrad(F[::-1])),
    "isclose_nan": (lambda L, a, b: a.isclose(b, equal_nan=True, atol=0.1), NoGrad(F), NoGrad(F)),
}


def _ilshift(a):
    a <<= 2
    a >>= 1
    return a


@pytest.mark.parametrize("name", sorted(NO_GRAD))
def test_integer_and_bool_inputs_match_torch(name):
    fn, *inputs = NO_GRAD[name]
    check(fn, *inputs)


def test_isnan_on_a_float_tensor_requiring_grad():
    res = check(lambda L, a: L.isnan(a), F)  # a bool result never requires grad
    assert not res.cr_out.requires_grad


# ----- two inputs, broadcasting ----------------------------------------------------------------

BINARY = {
    "maximum": (lambda L, a, b: L.maximum(a, b), "any", "any"),
    "maximum_method": (lambda L, a, b: a.maximum(b), "any", "any"),
    "minimum": (lambda L, a, b: L.minimum(a, b), "any", "any"),
    "fmax": (lambda L, a, b: L.fmax(a, b), "any", "any"),
    "fmin": (lambda L, a, b: b.fmin(a), "any", "any"),
    "atan2": (lambda L, a, b: L.atan2(a, b), "any", "nonzero"),
    "arctan2": (lambda L, a, b: a.arctan2(b), "nonzero", "any"),
    "hypot": (lambda L, a, b: L.hypot(a, b), "any", "nonzero"),
    "remainder": (lambda L, a, b: L.remainder(a, b), "wide", "nonzero"),
    "mod_operator": (lambda L, a, b: a % b, "wide", "nonzero"),
    "fmod": (lambda L, a, b: L.fmod(a, b), "wide", "nonzero"),
    "fmod_method": (lambda L, a, b: a.fmod(b), "wide", "nonzero"),
    "div_floor": (lambda L, a, b: L.div(a, b, rounding_mode="floor"), "wide", "nonzero"),
    "div_trunc": (lambda L, a, b: a.div(b, rounding_mode="trunc"), "wide", "nonzero"),
    "divide_floor": (lambda L, a, b: L.divide(a, b, rounding_mode="floor"), "wide", "nonzero"),
    "lerp": (lambda L, a, b: L.lerp(a, b, 0.3), "any", "any"),
    "lerp_large_weight": (lambda L, a, b: a.lerp(b, 0.8), "any", "any"),
    "lerp_tensor_weight": (lambda L, a, b: L.lerp(a, b, (a - b).sigmoid()), "any", "any"),
    "lerp_weight_input": (lambda L, a, w: L.lerp(a, a * 2 + 1, w), "any", "any"),
    "clamp_min_tensor": (lambda L, x, lo: L.clamp(x, lo), "any", "any"),
    "clamp_max_tensor": (lambda L, x, hi: L.clamp(x, None, hi), "any", "any"),
    "clamp_tensors": (lambda L, x, lo: L.clamp(x, lo - 0.5, lo + 0.5), "any", "any"),
    "clamp_tensors_crossed": (lambda L, x, lo: x.clamp(lo + 0.5, lo - 0.5), "any", "any"),
    "clamp_min_fn_tensor": (lambda L, x, lo: L.clamp_min(x, lo), "any", "any"),
    "clamp_max_method_tensor": (lambda L, x, hi: x.clamp_max(hi), "any", "any"),
    "xlogy": (lambda L, a, b: L.xlogy(a, b), "any", "pos"),
    "xlogy_method": (lambda L, a, b: b.xlogy(a), "pos", "any"),
    "logaddexp": (lambda L, a, b: L.logaddexp(a, b), "any", "any"),
    "logaddexp2": (lambda L, a, b: a.logaddexp2(b), "any", "any"),
    "copysign": (lambda L, a, b: L.copysign(a, b), "nonzero", "nonzero"),
    "ldexp": (lambda L, a, b: L.ldexp(a, b), "any", "any"),
    "float_power_tensors": (lambda L, a, b: L.float_power(a, b), "pos", "any"),
    "nextafter": (lambda L, a, b: L.nextafter(a, b) * b, "any", "any"),
}
# floor_divide has no derivative in PyTorch: forward only (backward raises, tested below)
FORWARD_ONLY_BINARY = {
    "floor_divide": (lambda L, a, b: L.floor_divide(a, b), "wide", "nonzero"),
    "floordiv_operator": (lambda L, a, b: a // b, "wide", "nonzero"),
}
PAIRS = [
    ((3, 4), (3, 4)),
    ((3, 1), (1, 4)),
    ((2, 3, 4), (4,)),
    ((4,), (2, 3, 4)),
    ((), (3,)),
    ((5,), ()),
    ((), ()),
]
PAIR_IDS = ["x".join(map(str, a)) + "_" + "x".join(map(str, b)) for a, b in PAIRS]


@pytest.mark.parametrize("shapes", PAIRS, ids=PAIR_IDS)
@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(BINARY) + sorted(FORWARD_ONLY_BINARY))
def test_binary_matches_torch(name, dtype, shapes):
    fn, ka, kb = {**BINARY, **FORWARD_ONLY_BINARY}[name]
    a = values(ka, shapes[0], seed=len(name))
    b = values(kb, shapes[1], seed=len(name) + 7)
    same_node(check(fn, a, b, dtype=dtype, backward=name in BINARY))


def _fractional_quotient(shape, seed):
    """a, b with a/b at least 0.15 from an integer: remainder's derivative is smooth there."""
    r = np.random.default_rng(seed)
    b = values("nonzero", shape, seed)
    q = (r.integers(-3, 3, shape) + r.uniform(0.15, 0.85, shape)).astype(np.float64)
    return np.asarray(q * b), b


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_finite_differences(name):
    fn, ka, kb = BINARY[name]
    if name in ("remainder", "mod_operator", "fmod", "fmod_method"):
        a, b = _fractional_quotient((2, 3), seed=3)
        b = b[:1]  # broadcast b over a's rows
    else:
        a, b = values(ka, (2, 3), seed=1), values(kb, (3,), seed=2)
        if name.startswith(("div_", "divide_")):
            a, b = _fractional_quotient((2, 3), seed=5)
    check_fd(fn, a, b)


def test_mixed_dtypes_promote_and_cast_gradients_back():
    a = values("any", (3,), 1)
    check(lambda L, a, b: L.maximum(a, b), a.astype(np.float32), values("any", (3,), 2))
    check(lambda L, a, b: L.atan2(a, b), a, np.array([1, -2, 3]))
    check(lambda L, a, b: L.fmod(a, b), a.astype(np.float32), np.array([2, -3, 1]))
    check(lambda L, a, b: L.minimum(a, b), np.array([0, 1, -1]), a)
    check(lambda L, a, b: L.remainder(a, b), np.asarray(2.5), a)  # 0-d tensor first


# ----- Python numbers as operands -----------------------------------------------------------

SCALAR_OPERANDS = {
    "remainder": (lambda L, x: L.remainder(x, 1.5), True),
    "mod_negative": (lambda L, x: x % -1.3, True),
    "remainder_int_scalar": (lambda L, x: x.remainder(2), True),
    "fmod": (lambda L, x: L.fmod(x, 1.3), True),
    "fmod_negative": (lambda L, x: x.fmod(-0.9), True),
    "div_floor": (lambda L, x: L.div(x, 0.7, rounding_mode="floor"), True),
    "div_trunc": (lambda L, x: x.div(-0.7, rounding_mode="trunc"), True),
    "div_floor_number_first": (lambda L, x: L.div(2.0, x, rounding_mode="floor"), True),
    "lerp": (lambda L, x: L.lerp(x, x * 2 + 1, 0.25), True),
    "lerp_int_weight": (lambda L, x: L.lerp(x, x * 2 + 1, 1), True),
    "clamp_int_and_float": (lambda L, x: L.clamp(x, -1, 0.5), True),
    "floor_divide": (lambda L, x: L.floor_divide(x, 0.7), False),
    "floordiv": (lambda L, x: x // -0.7, False),
    "rfloordiv": (lambda L, x: 2 // x, False),
    "rmod": (lambda L, x: 2.5 % x, False),
    "remainder_number_first": (lambda L, x: L.remainder(3, x), False),
    "xlogy_number": (lambda L, x: L.xlogy(x, 2.5), True),
    "xlogy_number_first": (lambda L, x: L.xlogy(2, x.abs()), True),
    "copysign_number": (lambda L, x: x.copysign(-1.0), True),
    "clamp_min_int": (lambda L, x: x.clamp_min(0), True),
}


@pytest.mark.parametrize("shape", [(4,), ()], ids=["4", "0d"])
@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(SCALAR_OPERANDS))
def test_python_number_operands(name, dtype, shape):
    fn, backward = SCALAR_OPERANDS[name]
    x = values("nonzero", shape, seed=len(name))
    same_node(check(fn, x, dtype=dtype, backward=backward))


def test_ops_without_a_derivative_raise_in_backward_as_torch():
    x = values("nonzero", (3,), 0)
    for fn in (
        lambda L, x: L.floor_divide(x, 0.7).sum().backward(),
        lambda L, x: (2 // x).sum().backward(),
        lambda L, x: (2.5 % x).sum().backward(),
    ):
        assert check_raises(fn, x) is RuntimeError


# ----- errors as PyTorch's ---------------------------------------------------------------

ERRORS = {
    "hypot_int": (lambda L, a: L.hypot(a, a), I),
    "frac_int": (lambda L, a: L.frac(a), I),
    "floor_bool": (lambda L, a: L.floor(a), B),
    "round_decimals_int": (lambda L, a: L.round(a, decimals=1), I),
    "remainder_bool": (lambda L, a: a % a, B),
    "div_floor_bool": (lambda L, a: L.div(a, a, rounding_mode="floor"), B),
    "div_bad_mode": (lambda L, a: L.div(a, 2, rounding_mode="round"), F),
    "remainder_int_zero": (lambda L, a: L.remainder(a, 0), I),
    "fmod_int_zero": (lambda L, a: L.fmod(a, a * 0), I),
    "floor_divide_int_zero": (lambda L, a: a // 0, I),
    "div_trunc_int_zero": (lambda L, a: L.div(a, 0, rounding_mode="trunc"), I),
    "maximum_scalar": (lambda L, a: L.maximum(a, 1.0), F),
    "atan2_scalar": (lambda L, a: L.atan2(a, 2.0), F),
    "hypot_number_first": (lambda L, a: L.hypot(2.0, a), F),
    "lerp_end_dtype": (lambda L, a: L.lerp(a.float(), a.double(), 0.5), F),
    "lerp_weight_dtype": (lambda L, a: L.lerp(a.float(), a.float(), a.double()), F),
    "lerp_int": (lambda L, a: L.lerp(a, a, 0.5), I),
    "lerp_end_number": (lambda L, a: L.lerp(a, 2.0, 0.5), F),
    "clamp_no_bounds": (lambda L, a: L.clamp(a), F),
    "clamp_mixed_bounds": (lambda L, a: L.clamp(a, a, 1.0), F),
    "clamp_int_inplace_float_bound": (lambda L, a: a.clamp_(0.5, 1.5), I),
    "logical_and_scalar": (lambda L, a: L.logical_and(a, True), B),
    "isnan_number": (lambda L, a: L.isnan(2.0), B),
    "invert_float": (lambda L, a: ~a, F),
    "and_float": (lambda L, a: a & a, F),
    "and_bool_float_scalar": (lambda L, a: a & 2.0, B),
    "fmod_number_first": (lambda L, a: L.fmod(2, a), F),
    "leaf_inplace": (lambda L, a: a.clamp_(0, 1), F),
    "abs_bool": (lambda L, a: L.abs(a), B),
    "relu_bool": (lambda L, a: L.relu(a), B),
    "sub_bools": (lambda L, a: a - a, B),
    "sub_bool_int": (lambda L, a: L.tensor(I) - a, B),
    "sub_bool_scalar": (lambda L, a: a - True, F),
    "rsub_bool_scalar": (lambda L, a: True - a, F),
    "pow_bools": (lambda L, a: a**a, B),
    "rpow_bool": (lambda L, a: True**a, B),
    "clamp_bool_scalar": (lambda L, a: a.clamp(min=True), B),
    "add_float_alpha_int": (lambda L, a: L.add(a, a, alpha=0.5), I),
    "add_bool_alpha_float": (lambda L, a: L.add(a, a, alpha=True), F),
    "positive_bool": (lambda L, a: L.positive(a), B),
    "logaddexp_int": (lambda L, a: L.logaddexp(a, a), I),
    "logaddexp_number": (lambda L, a: L.logaddexp(a, 1.0), F),
    "isclose_dtypes": (lambda L, a: L.isclose(a, a.float()), I),
    "heaviside_dtypes": (lambda L, a: L.heaviside(a, a.float()), I),
    "float_power_inplace_float32": (lambda L, a: a.float().float_power_(2), F),
    "xlogy_numbers": (lambda L, a: L.xlogy(2, 3), F),
    "allclose_dtypes": (lambda L, a: L.allclose(a, a.float()), F),
    "allclose_int_float": (lambda L, a: L.allclose(a.long(), a), F),
    "allclose_number": (lambda L, a: L.allclose(a, 1.0), F),
    "lshift_float": (lambda L, a: a << 1, F),
    "lshift_bools": (lambda L, a: a << a, B),
    "nextafter_int": (lambda L, a: L.nextafter(a, a), I),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name):
    fn, a = ERRORS[name]
    check_raises(fn, a)


# ----- forward mode ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SMOOTH_UNARY) + ["floor", "round_decimals"])
def test_unary_tangents_match_torch(name):
    fn, kind = UNARY[name]
    assert_same_tangent(fn, values(kind, (2, 3), seed=11))


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_tangents_match_torch(name):
    fn, ka, kb = BINARY[name]
    assert_same_tangent(fn, values(ka, (2, 3), 12), values(kb, (3,), 13))


def test_forward_mode_without_a_derivative_raises():
    fwd = cr.autograd.forward_ad
    with fwd.dual_level():
        x = fwd.make_dual(cr.tensor([1.5, 2.5]), cr.ones(2))
        with pytest.raises(NotImplementedError, match="floor_divide"):
            cr.floor_divide(x, 2)


# ----- the conventions at kinks and ties ------------------------------------------------------

TIES_X = np.array([0.0, 1.0, 0.5, -1.0, 2.0, 3.0])
TIES_LO = np.array([0.0, 0.0, 0.7, 0.7, 1.0, 2.0])
TIES_HI = np.array([1.0, 1.0, 0.2, 0.7, 1.0, 3.0])


def test_clamp_gradient_passes_at_the_bounds():
    x = cr.tensor([-1.0, 0.0, 0.5, 1.0, 2.0], requires_grad=True)
    x.clamp(0, 1).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 1.0, 1.0, 0.0]
    for fn in (
        lambda L, x: L.clamp(x, 0.0, 1.0),
        lambda L, x: L.clamp(x, min=0.0),
        lambda L, x: L.clamp(x, max=1.0),
        lambda L, x: L.clamp(x, 1.0, 0.0),  # min > max: the result is max, no gradient
    ):
        check(fn, np.array([-1.0, 0.0, 0.5, 1.0, 2.0]))
        assert_same_tangent(fn, np.array([-1.0, 0.0, 0.5, 1.0, 2.0]))


def test_clamp_tensor_bounds_at_ties():
    for fn in (
        lambda L, x, lo, hi: L.clamp(x, lo, hi),
        lambda L, x, lo, hi: L.clamp(x, lo) + 0 * hi,
        lambda L, x, lo, hi: L.clamp(x, None, hi) + 0 * lo,
    ):
        check(fn, TIES_X, TIES_LO, TIES_HI)
        assert_same_tangent(fn, TIES_X, TIES_LO, TIES_HI)


MAX_A = np.array([1.0, 2.0, 3.0, np.nan, 1.0, -0.0])
MAX_B = np.array([1.0, 3.0, 2.0, 1.0, np.nan, 0.0])


@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin"])
def test_ties_and_nan(name):
    fn = lambda L, a, b: getattr(L, name)(a, b)  # noqa: E731
    res = check(fn, MAX_A, MAX_B)
    if name in ("maximum", "minimum"):  # ties split the gradient half and half
        ga, gb = res.cr_inputs[0].grad.numpy(), res.cr_inputs[1].grad.numpy()
        assert ga[0] == gb[0] and ga[5] == gb[5]
    assert_same_tangent(fn, MAX_A, MAX_B)


def test_maximum_tie_gives_half_to_each():
    a = cr.tensor([2.0], requires_grad=True)
    b = cr.tensor([2.0], requires_grad=True)
    cr.maximum(a, b).backward(cr.tensor([1.0]))
    assert a.grad.tolist() == [0.5] and b.grad.tolist() == [0.5]


def test_rounding_has_zero_gradient_at_integers():
    x = np.array([1.0, -2.0, 0.0, 2.5, -0.5])
    for fn in (
        lambda L, x: L.floor(x),
        lambda L, x: L.ceil(x),
        lambda L, x: L.round(x),
        lambda L, x: L.trunc(x),
        lambda L, x: L.frac(x),  # derivative 1, jumps included
        lambda L, x: L.div(x, 0.5, rounding_mode="floor"),
        lambda L, x: L.remainder(x, 0.5),
    ):
        check(fn, x)


def test_nan_to_num_gradient_is_zero_where_replaced():
    x = cr.tensor([math.nan, math.inf, -math.inf, 2.0], requires_grad=True)
    cr.nan_to_num(x).backward(cr.ones(4))
    assert x.grad.tolist() == [0.0, 0.0, 0.0, 1.0]


# ----- second derivatives ---------------------------------------------------------------------

SECOND = {
    "tan": (lambda L, x: L.tan(x), ["tan"]),
    "erf": (lambda L, x: L.erf(x), ["wide"]),
    "erfc": (lambda L, x: L.erfc(x), ["wide"]),
    "asin": (lambda L, x: L.asin(x), ["unit"]),
    "acosh": (lambda L, x: L.acosh(x), ["gt1"]),
    "rsqrt": (lambda L, x: L.rsqrt(x), ["pos"]),
    "exp2": (lambda L, x: L.exp2(x), ["any"]),
    "log1p": (lambda L, x: L.log1p(x), ["gt-1"]),
    "atan2": (lambda L, a, b: L.atan2(a, b), ["any", "nonzero"]),
    "hypot": (lambda L, a, b: L.hypot(a, b), ["any", "nonzero"]),
    "lerp": (lambda L, a, b, w: L.lerp(a, b, w), ["any", "any", "any"]),
    "maximum": (lambda L, a, b: L.maximum(a, b) * a, ["any", "any"]),
    "clamp": (lambda L, x, lo: L.clamp(x, lo, lo + 1) ** 2, ["any", "any"]),
    "remainder": (lambda L, a, b: L.remainder(a, b) * b, ["wide", "nonzero"]),
    "xlogy": (lambda L, a, b: L.xlogy(a, b), ["any", "pos"]),
    "logaddexp": (lambda L, a, b: L.logaddexp(a, b), ["any", "any"]),
    "logaddexp2": (lambda L, a, b: L.logaddexp2(a, b), ["any", "any"]),
    "logit": (lambda L, x: L.logit(x, eps=0.2), ["prob"]),
    "sinc": (lambda L, x: L.sinc(x), ["wide"]),
    "copysign": (lambda L, a, b: L.copysign(a, b) * a, ["nonzero", "any"]),
    "ldexp": (lambda L, a, b: L.ldexp(a, b), ["any", "any"]),
    "clamp_min": (lambda L, x, lo: L.clamp_min(x, lo) ** 2, ["any", "any"]),
}


@pytest.mark.parametrize("name", sorted(SECOND))
def test_second_derivatives_match_torch(name):
    fn, kinds = SECOND[name]
    check_double_backward(fn, *[values(k, (2, 3), seed=i + 20) for i, k in enumerate(kinds)])


def test_second_derivative_by_grad_create_graph():
    """d²/dx² tan x = 2 tan x (1 + tan² x), through autograd.grad(create_graph=True)."""
    x = cr.tensor([0.3, -0.7], dtype=cr.float64, requires_grad=True)
    (g,) = cr.autograd.grad(cr.tan(x).sum(), x, create_graph=True)
    (h,) = cr.autograd.grad(g.sum(), x)
    t = np.tan(x.detach().numpy())
    np.testing.assert_allclose(h.numpy(), 2 * t * (1 + t * t), rtol=1e-12)
    (g,) = cr.autograd.grad(cr.erf(x).sum(), x, create_graph=True)
    (h,) = cr.autograd.grad(g.sum(), x)
    xs = x.detach().numpy()
    np.testing.assert_allclose(h.numpy(), -4 * xs / math.sqrt(math.pi) * np.exp(-xs * xs))


# ----- in place ---------------------------------------------------------------------------

INPLACE = {
    "clamp_": (lambda L, x: (x * 1).clamp_(0, 1), "any"),
    "clamp_tensor_": (lambda L, x: (x * 1).clamp_(x * 0, x * 0 + 0.5), "any"),
    "clip_": (lambda L, x: (x * 1).clip_(max=0.2), "any"),
    "exp2_": (lambda L, x: (x * 1).exp2_(), "any"),
    "log1p_": (lambda L, x: (x * 1).log1p_(), "pos"),
    "tan_": (lambda L, x: (x * 1).tan_(), "tan"),
    "arcsin_": (lambda L, x: (x * 1).arcsin_(), "unit"),
    "erf_": (lambda L, x: (x * 2).erf_(), "any"),
    "square_": (lambda L, x: (x * 1).square_(), "any"),
    "floor_": (lambda L, x: (x * 1).floor_() + x, "away"),
    "round_": (lambda L, x: (x * 1).round_(decimals=1) * x, "away10"),
    "frac_": (lambda L, x: (x * 2).frac_(), "away"),
    "nan_to_num_": (lambda L, x: (x * 1).nan_to_num_(), "any"),
    "atan2_": (lambda L, x: (x * 1).atan2_(x + 3), "any"),
    "hypot_": (lambda L, x: (x * 1).hypot_(x * x), "nonzero"),
    "lerp_": (lambda L, x: (x * 1).lerp_(x * x, 0.3), "any"),
    "remainder_": (lambda L, x: (x * 3).remainder_(x * 0 + 1.3), "any"),
    "imod": (lambda L, x: _imod(x * 3), "any"),
    "fmod_": (lambda L, x: (x * 3).fmod_(0.7), "any"),
    "div_floor_": (lambda L, x: (x * 3).div_(0.7, rounding_mode="floor") + x, "any"),
}


def _imod(y):
    y %= 1.3
    return y


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_on_a_non_leaf_matches_torch(name, dtype):
    fn, kind = INPLACE[name]
    same_node(check(fn, values(kind, (2, 3), seed=len(name)), dtype=dtype))


def test_inplace_bool_and_integer_ops():
    def logical(L, a, b):
        a = a.clone()
        a.logical_and_(b)
        a.logical_not_()
        return a

    check(logical, B, C)

    def bitwise(L, a, b):
        a = a.clone()
        a &= b
        a |= b[..., :1] if a.ndim else b
        a ^= 3
        a //= 2
        return a

    check(bitwise, I, J)

    def int_floor(L, a):
        a = a.clone()
        a.floor_()
        return a.clamp_(-1, 2)

    check(int_floor, I)


def test_inplace_returns_self_and_bumps_the_version():
    y = cr.tensor([0.5, 2.0]) * 1
    v = y._version
    assert y.clamp_(0, 1) is y and y._version == v + 1
    assert y.tolist() == [0.5, 1.0]


# ----- hypothesis: random broadcastable shapes ---------------------------------------------------

PROPERTY_BINARY = {
    "maximum": (lambda L, a, b: L.maximum(a, b), "any", "any"),
    "minimum": (lambda L, a, b: L.minimum(a, b), "any", "any"),
    "fmax": (lambda L, a, b: L.fmax(a, b), "any", "any"),
    "fmin": (lambda L, a, b: L.fmin(a, b), "any", "any"),
    "atan2": (lambda L, a, b: L.atan2(a, b), "any", "nonzero"),
    "hypot": (lambda L, a, b: L.hypot(a, b), "any", "nonzero"),
    "remainder": (lambda L, a, b: L.remainder(a, b), "wide", "nonzero"),
    "fmod": (lambda L, a, b: L.fmod(a, b), "wide", "nonzero"),
    "div_floor": (lambda L, a, b: L.div(a, b, rounding_mode="floor"), "wide", "nonzero"),
    "div_trunc": (lambda L, a, b: L.div(a, b, rounding_mode="trunc"), "wide", "nonzero"),
    "lerp": (lambda L, a, b: L.lerp(a, b, 0.7), "any", "any"),
    "lerp_weight": (lambda L, a, w: L.lerp(a, a * 3, w), "any", "any"),
    "clamp": (lambda L, x, lo: L.clamp(x, lo, lo + 0.5), "any", "any"),
}


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(sorted(PROPERTY_BINARY)),
    shapes=hnp.mutually_broadcastable_shapes(
        num_shapes=2, min_dims=0, max_dims=4, min_side=0, max_side=4
    ),
    seed=st.integers(0, 2**32 - 1),
    dtype=st.sampled_from(FLOATS),
)
def test_binary_ops_over_random_broadcastable_shapes(name, shapes, seed, dtype):
    fn, ka, kb = PROPERTY_BINARY[name]
    sa, sb = shapes.input_shapes
    same_node(check(fn, values(ka, sa, seed), values(kb, sb, seed + 1), dtype=dtype))


# ----- erf and erfc: accuracy in float64 ---------------------------------------------------------


def _erf_points() -> np.ndarray:
    r = np.random.default_rng(2024)
    edges = np.array([0.84375, 1.25, 1 / 0.35, 6.0, 0.25, 2.0**-28, 2.0**-56, 27.9, 28.0])
    return np.concatenate(
        [
            r.uniform(-6.0, 6.0, 20000),
            r.uniform(-27.0, 27.0, 5000),
            np.geomspace(1e-300, 1.0, 1000),
            -np.geomspace(1e-300, 1.0, 1000),
            edges,
            -edges,
            np.nextafter(edges, 0),
            np.nextafter(edges, 100),
        ]
    )


def test_erf_is_accurate_to_an_ulp():
    x = _erf_points()
    got, _ = _erf_erfc(x)
    want = np.array([math.erf(v) for v in x])
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)


def test_erfc_is_accurate_in_the_tails():
    x = _erf_points()
    x = x[x < 26.5]  # beyond, erfc(x) < 1e-306 is subnormal
    _, got = _erf_erfc(x)
    want = np.array([math.erfc(v) for v in x])
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)


def test_erf_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 30.0, -30.0, 1e-310])
    e, c = _erf_erfc(x)
    np.testing.assert_array_equal(e, [0.0, -0.0, 1.0, -1.0, np.nan, 1.0, -1.0, math.erf(1e-310)])
    np.testing.assert_array_equal(c, [1.0, 1.0, 0.0, 2.0, np.nan, 0.0, 2.0, 1.0])
    assert np.signbit(e[1]) and not np.signbit(e[0])
    check(lambda L, x: L.erf(x), x[:7])
    check(lambda L, x: L.erfc(x), x[:7], dtype=np.float32)


def test_erf_float32_matches_torch_on_many_points():
    x = np.linspace(-10, 10, 4001)
    check(lambda L, x: L.erf(x), x, dtype=np.float32, rtol=1e-6, atol=1e-7)
    check(lambda L, x: L.erfc(x), x, dtype=np.float32, rtol=1e-5, atol=1e-30)


# ----- the method table ---------------------------------------------------------------------------


def test_every_method_exists_in_torch():
    missing = [name for name in TENSOR_METHODS if not hasattr(torch.Tensor, name)]
    assert missing == []
    for name in TENSOR_METHODS:
        assert hasattr(cr.Tensor, name), name


def test_public_functions_exist_in_torch():
    names = [
        "exp2", "expm1", "log2", "log10", "log1p", "rsqrt", "square", "tan", "asin", "acos",
        "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "arcsin", "arccos", "arctan",
        "arcsinh", "arccosh", "arctanh", "erf", "erfc", "floor", "ceil", "round", "trunc", "fix",
        "frac", "clamp", "clip", "nan_to_num", "maximum", "minimum", "fmax", "fmin", "atan2",
        "arctan2", "hypot", "lerp", "remainder", "fmod", "floor_divide", "logical_and",
        "logical_or", "logical_not", "logical_xor", "isnan", "isinf", "isfinite", "bitwise_and",
        "bitwise_or", "bitwise_xor", "bitwise_not", "sgn", "positive", "clamp_min",
        "clamp_max", "xlogy", "logaddexp", "logaddexp2", "logit", "copysign", "deg2rad",
        "rad2deg", "sinc", "float_power", "ldexp", "heaviside", "signbit", "isposinf",
        "isneginf", "isreal", "isclose", "exp_", "abs_", "sigmoid_", "clamp_min_", "xlogy_",
        "fill_", "zero_",
    ]  # fmt: skip
    for name in names:
        assert hasattr(torch, name), name
        assert callable(getattr(cr, name)), name


# The ops issue 3 lists (elementwise, one and two inputs; activations and softmax): each
# exists under PyTorch's name wherever PyTorch has it, as torch.X, torch.nn.functional.X,
# Tensor.X and Tensor.X_ (the in-place variant).
ISSUE_ELEMENTWISE = (
    "neg abs sign exp exp2 expm1 log log2 log10 log1p sqrt rsqrt square reciprocal sin cos tan "
    "asin acos atan sinh cosh tanh asinh acosh atanh sigmoid relu erf erfc floor ceil round "
    "trunc frac clamp clip pow nan_to_num add sub mul div true_divide floor_divide remainder "
    "fmod maximum minimum fmax fmin atan2 hypot lerp where eq ne lt le gt ge logical_and "
    "logical_or logical_not logical_xor isnan isinf isfinite allclose equal negative absolute "
    "arcsin arccos arctan arcsinh arccosh arctanh arctan2 fix subtract multiply divide less "
    "less_equal greater greater_equal not_equal sgn clamp_min clamp_max positive xlogy "
    "logaddexp logaddexp2 logit copysign deg2rad rad2deg sinc float_power ldexp heaviside "
    "signbit isposinf isneginf isreal isclose lgamma digamma polygamma erfinv nextafter i0 "
    "bitwise_left_shift bitwise_right_shift"
).split()
ISSUE_ACTIVATIONS = (
    "relu relu6 leaky_relu elu selu celu gelu silu mish softplus softsign hardtanh hardsigmoid "
    "hardswish logsigmoid sigmoid tanh softmax log_softmax softmin normalize logsumexp "
    "threshold hardshrink softshrink tanhshrink glu prelu rrelu"
).split()


@pytest.mark.parametrize("name", ISSUE_ELEMENTWISE + ISSUE_ACTIVATIONS)
def test_issue_ops_exist_where_torch_has_them(name):
    tf = torch.nn.functional
    for variant in (name, name + "_"):
        for ours, theirs, where in (
            (cr, torch, "torch"),
            (cr.nn.functional, tf, "torch.nn.functional"),
            (cr.Tensor, torch.Tensor, "Tensor"),
        ):
            if hasattr(theirs, variant):
                assert callable(getattr(ours, variant, None)), f"{where}.{variant} is missing"


def test_allclose_and_equal_as_torch():
    a, b = np.array([1.0, 2.0]), np.array([1.0, 2.000001])
    for x, y, kw in (
        (a, b, {}),
        (a, b, {"rtol": 0, "atol": 1e-9}),
        (a, np.stack([a, b]), {}),
        (np.array([np.nan]), np.array([np.nan]), {"equal_nan": True}),
        (np.array([np.nan]), np.array([np.nan]), {}),
        (np.array([np.inf, 1.0]), np.array([np.inf, 1.0]), {}),
    ):
        ours = cr.allclose(cr.tensor(x), cr.tensor(y), **kw)
        assert ours is torch.allclose(torch.tensor(x), torch.tensor(y), **kw)
        assert cr.tensor(x).allclose(cr.tensor(y), **kw) is ours
        assert cr.equal(cr.tensor(x), cr.tensor(y)) is torch.equal(torch.tensor(x), torch.tensor(y))


def test_special_names_exist():
    for name in (
        "gammaln psi digamma polygamma erf erfc erfinv expit logit exp2 expm1 log1p ndtr "
        "round sinc xlogy softmax log_softmax logsumexp i0 i0e i1 i1e"
    ).split():
        assert hasattr(torch.special, name), name
        assert callable(getattr(cr.special, name)), name


def test_augmented_assignment_operators_exist():
    for op in "iadd isub imul itruediv ipow ifloordiv imod iand ior ixor ilshift irshift".split():
        assert hasattr(cr.Tensor, f"__{op}__"), op


# ----- out= ---------------------------------------------------------------------------------

OUT_CASES = {
    "exp": lambda L, x, out: L.exp(x, out=out),
    "add": lambda L, x, out: L.add(x, 2, alpha=3, out=out),
    "mul": lambda L, x, out: L.mul(x, x, out=out),
    "div_int": lambda L, x, out: L.div(L.tensor([1, 2, 3]), 2, out=out),
    "clamp": lambda L, x, out: L.clamp(x, -0.5, 0.5, out=out),
    "clamp_tensor": lambda L, x, out: L.clamp(x, min=x * 0, out=out),
    "clamp_min": lambda L, x, out: L.clamp_min(x, 0.5, out=out),
    "maximum": lambda L, x, out: L.maximum(x, -x, out=out),
    "atan2": lambda L, x, out: L.atan2(x, x + 3, out=out),
    "lt": lambda L, x, out: L.lt(x, 0, out=out),
    "xlogy": lambda L, x, out: L.xlogy(x, 2.0, out=out),
    "erf": lambda L, x, out: L.erf(x, out=out),
    "floor_divide": lambda L, x, out: L.floor_divide(x, 0.3, out=out),
}


@pytest.mark.parametrize("name", sorted(OUT_CASES))
def test_out_writes_into_the_given_tensor_as_torch(name):
    fn = OUT_CASES[name]
    x = values("any", (3,), 21)
    for out_dtype in ("float32", "float64", "int64"):
        got = want = None
        for lib in (cr, torch):
            out = lib.zeros(3, dtype=getattr(lib, out_dtype))
            try:
                res = fn(lib, lib.tensor(x, dtype=lib.float32), out)
            except RuntimeError as e:
                res = type(e)
            else:
                assert res is out and out._version == 1
            if lib is cr:
                got = res
            else:
                want = res
        if isinstance(want, type):
            assert got is want, f"torch raises for out={out_dtype}"
        else:
            assert str(got.dtype) == str(want.dtype)
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_out_with_an_input_requiring_grad_raises_and_resizes_with_a_warning():
    for lib in (cr, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError, match=r"exp\(\): functions with out=\.\.\. arguments"):
            lib.exp(x, out=lib.empty(2))
        with lib.no_grad():
            out = lib.empty(5)
            with pytest.warns(UserWarning, match="was resized"):
                assert lib.sin(x, out=out) is out
            assert out.shape == (2,)
            empty = lib.empty(0)
            lib.add(x, 1, out=empty)
            assert empty.tolist() == [2.0, 3.0]


# ----- lgamma, digamma, polygamma, erfinv and torch.special -----------------------------------

GAMMA = {
    "lgamma": (lambda L, x: L.lgamma(x), "gamma"),
    "lgamma_method": (lambda L, x: x.lgamma(), "gamma"),
    "digamma": (lambda L, x: L.digamma(x), "gamma"),
    "digamma_method": (lambda L, x: x.digamma(), "gamma"),
    "polygamma0": (lambda L, x: L.polygamma(0, x), "gamma"),
    "polygamma1": (lambda L, x: L.polygamma(1, x), "gamma"),
    "polygamma3_method": (lambda L, x: x.polygamma(3), "gamma"),
    "erfinv": (lambda L, x: L.erfinv(x), "unit"),
    "erfinv_method": (lambda L, x: x.erfinv(), "unit"),
    "special.gammaln": (lambda L, x: L.special.gammaln(x), "gamma"),
    "special.psi": (lambda L, x: L.special.psi(x), "gamma"),
    "special.expit": (lambda L, x: L.special.expit(x), "any"),
    "special.ndtr": (lambda L, x: L.special.ndtr(x), "any"),
    "special.erfinv": (lambda L, x: L.special.erfinv(x), "unit"),
    "special.logit": (lambda L, x: L.special.logit(x), "prob"),
    "special.xlogy": (lambda L, x: L.special.xlogy(x, 3.0), "any"),
    "special.softmax": (lambda L, x: L.special.softmax(x, 0), "any"),
    "i0": (lambda L, x: L.i0(x * 4), "any"),
    "i0_method": (lambda L, x: x.i0(), "any"),
    "special.i0e": (lambda L, x: L.special.i0e(x * 4), "any"),
    "special.i1": (lambda L, x: L.special.i1(x * 4), "any"),
    "special.i1e": (lambda L, x: L.special.i1e(x * 4), "any"),
}


def gamma_values(shape, seed):
    """Positive and negative x away from the poles of Γ (0, -1, -2, ...)."""
    r = np.random.default_rng(seed)
    v = r.uniform(0.1, 6.0, shape) * r.choice([1.0, 1.0, -1.0], shape)
    return np.where(np.abs(v - np.round(v)) < 0.1, v + 0.3, v)


# PyTorch's trigamma and higher polygammas are accurate to ~1e-9 relative (chainrule's series
# to ~1e-15), so float64 comparisons of anything through ψ⁽ⁿ⁾ (n >= 1) use 1e-8
@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(GAMMA))
def test_gamma_family_and_special_match_torch(name, dtype):
    fn, kind = GAMMA[name]
    x = gamma_values((3, 4), len(name)) if kind == "gamma" else values(kind, (3, 4), len(name))
    tol = 1e-8 if dtype is np.float64 and kind == "gamma" else None
    res = check(fn, x, dtype=dtype, rtol=tol, atol=tol)
    if name != "special.ndtr":  # PyTorch's is Mul(Add(Erf(Mul))): its MulBackward1 is ours 0
        same_node(res)


@pytest.mark.parametrize(
    "name", ["lgamma", "digamma", "polygamma1", "erfinv", "i0", "special.i0e", "special.i1e"]
)
def test_gamma_family_finite_differences_and_second_derivatives(name):
    fn, kind = GAMMA[name]
    x = gamma_values((2, 3), 5) if kind == "gamma" else values(kind, (2, 3), 5)
    check_fd(fn, x, rtol=1e-5)
    check_double_backward(fn, x, rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize(
    "name", ["lgamma", "digamma", "polygamma1", "erfinv", "i0", "special.i0e", "special.i1e"]
)
def test_gamma_family_tangents_match_torch(name):
    fn, kind = GAMMA[name]
    x = gamma_values((2, 3), 7) if kind == "gamma" else values(kind, (2, 3), 7)
    r = np.random.default_rng(0)
    t = r.standard_normal(x.shape)
    compare_tangents(fn, [x], [t], rtol=1e-7, atol=0, primal_rtol=1e-8, primal_atol=0)


def test_gamma_family_special_values():
    x = np.array([0.0, -2.0, -0.5, 1.0, 2.0, 100.0, 1e-300, np.inf, -np.inf, np.nan, 1e5])
    check(lambda L, x: L.lgamma(x), x, backward=False)
    # digamma's tangent is trigamma: torch's is rounding noise at the pole -2 (1.6e32, not
    # +inf) and 5e-10 off at 1 and 2 (ours matches mpmath); compared at rtol 1e-8 elsewhere
    check(lambda L, x: L.digamma(x), x, backward=False, forward=False)
    for n in (1, 2, 3):
        finite = x[[2, 3, 4, 5, 7, 8, 9, 10]]  # PyTorch's values at the poles are rounding noise
        check(lambda L, x, n=n: L.polygamma(n, x), finite, backward=False, rtol=1e-8)
    y = np.array([0.0, -0.0, 0.5, -0.999999, 1 - 1e-16, 1.0, -1.0, 1.5, np.nan, 1e-300, 0.9])
    check(lambda L, y: L.erfinv(y), y, backward=False, rtol=1e-14, atol=0)
    check(lambda L, y: L.erfinv(y), y, dtype=np.float32, backward=False)
    check(lambda L, y: L.erfinv(y), np.linspace(-0.999, 0.999, 2001), rtol=1e-13, atol=1e-15)


def test_bessel_functions_at_special_points():
    x = np.array([0.0, 1e-8, -3.0, 14.99, 15.0, 20.0, -40.0, 700.0, np.inf, -np.inf, np.nan])
    for fn in (
        lambda L, x: L.i0(x),
        lambda L, x: L.special.i0e(x),
        lambda L, x: L.special.i1(x),
        lambda L, x: L.special.i1e(x),
    ):
        # tangents at the next line's tolerance: e^-|x| (I1 - sgn x I0) cancels at large |x|,
        # and both libraries are ~5e-13 from the exact derivative there (mpmath)
        check(fn, x, backward=False, rtol=1e-13, atol=0, forward=False)
        check(fn, x[:8], rtol=1e-12, atol=1e-300)  # the gradients too (d/dx I1 = 1/2 at 0)
        # torch's tangent of i1 and i1e at nan is 0.5 (its value at 0), ours nan
        check(fn, x, dtype=np.float32, backward=False, forward=False)
        check(fn, x[:-1], dtype=np.float32, backward=False)


def test_gamma_family_integer_inputs_and_errors():
    check(lambda L, a: L.lgamma(a), np.array([1, 2, 5]))
    check(lambda L, a: L.polygamma(2, a), np.array([1, 2, 5]), rtol=1e-6)
    check(lambda L, a: L.erfinv(a), np.array([0, 1]))
    check_raises(lambda L, x: L.polygamma(-1, x), values("any", (3,), 1))


def test_gamma_family_inplace_methods():
    def fn(L, x):
        y = x * 1
        y.lgamma_()
        z = x * 1
        z.digamma_()
        w = x * 0.1
        w.erfinv_()
        v = x * 1
        v.polygamma_(1)
        return y + z + w + v

    check(fn, values("pos", (2, 3), 6), rtol=1e-8, atol=1e-8)
