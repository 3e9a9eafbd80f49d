"""One-input math against PyTorch: exp, exp2, expm1, the logs, sqrt, rsqrt, square, the
trigonometric and hyperbolic functions and their inverses, abs, sign, sgn, the
roundings (floor, ceil, trunc, frac, round with decimals), deg2rad, rad2deg, sinc,
nan_to_num, positive.

Forward values, dtypes, node names and gradients in float32 and float64, finite
differences, tangents, second derivatives, in-place variants, the conventions at kinks
(zero gradients at the roundings' integers, at nan_to_num's replaced values) and errors.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import cases
import chainrule as cr
from cases import I32, B, I
from oracle import (
    DT_IDS,
    FLOATS,
    check,
    same_node,
)

# ----- function and method forms (the first ops) ------------------------------------------


FORMS = {
    # name: (function form, method form, domain)
    "exp": (lambda lib, x: lib.exp(x), lambda lib, x: x.exp(), "any"),
    "log": (lambda lib, x: lib.log(x), lambda lib, x: x.log(), "pos"),
    "sin": (lambda lib, x: lib.sin(x), lambda lib, x: x.sin(), "any"),
    "cos": (lambda lib, x: lib.cos(x), lambda lib, x: x.cos(), "any"),
    "tanh": (lambda lib, x: lib.tanh(x), lambda lib, x: x.tanh(), "any"),
    "sqrt": (lambda lib, x: lib.sqrt(x), lambda lib, x: x.sqrt(), "pos"),
    "abs": (lambda lib, x: lib.abs(x), lambda lib, x: abs(x), "nonzero"),
}

test_function_and_method = cases.function_and_method(FORMS)

test_function_and_method_fd = cases.function_and_method_fd(FORMS)

test_saturation = cases.saturation(FORMS, ["exp", "tanh"])


# ----- outside the domain and at kinks ----------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_log_sqrt_outside_domain(dtype):
    """log(0) = -inf (grad inf), log(-1) = nan, sqrt(-1) = nan: as torch."""
    x = np.array([0.0, -1.0, 1.0])
    check(lambda lib, x: lib.log(x), x, dtype=dtype)
    check(lambda lib, x: lib.sqrt(x), x, dtype=dtype)


KINK = np.array([-2.0, -0.0, 0.0, 0.0, 1.5, 3.0])


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_abs_at_zero(dtype):
    res = check(lambda lib, x: lib.abs(x), KINK, dtype=dtype)
    np.testing.assert_array_equal(res.cr_inputs[0].grad.numpy(force=True)[1:4], 0.0)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_sqrt_at_zero(dtype):
    """The gradient of sqrt at 0 is ±inf (g / 0), as in PyTorch."""
    res = check(lambda lib, x: lib.sqrt(x), np.array([0.0, 0.0, 1.0, 4.0]), dtype=dtype)
    assert np.isinf(res.cr_inputs[0].grad.numpy(force=True)[:2]).all()


# ----- one input: values, node names, gradients, finite differences, tangents -------------


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
    "floor": (lambda L, x: L.floor(x), "away"),
    "ceil": (lambda L, x: x.ceil(), "away"),
    "trunc": (lambda L, x: L.trunc(x), "away"),
    "fix": (lambda L, x: x.fix(), "away"),
    "round": (lambda L, x: L.round(x), "away"),
    "round_decimals": (lambda L, x: L.round(x, decimals=1), "away10"),
    "round_decimals_method": (lambda L, x: x.round(decimals=1), "away10"),
    "round_negative_decimals": (lambda L, x: L.round(x, decimals=-1), "away_10"),
    "frac": (lambda L, x: L.frac(x), "away"),
    "nan_to_num": (lambda L, x: L.nan_to_num(x), "any"),
    "sgn": (lambda L, x: L.sgn(x), "nonzero"),
    "sgn_method": (lambda L, x: x.sgn() * x, "nonzero"),
    "deg2rad": (lambda L, x: L.deg2rad(x), "any"),
    "rad2deg": (lambda L, x: x.rad2deg(), "any"),
    # (away from 0: torch's float32 gradient cancels there, 1e-3 off near x = 0.005;
    # chainrule's series is checked against float64 in test_float32_accuracy_vs_torch.py)
    "sinc": (lambda L, x: L.sinc(x), "nonzero"),
    "sinc_method": (lambda L, x: x.sinc(), "wide"),
    "positive": (lambda L, x: L.positive(x) * 2, "any"),
}

SMOOTH_UNARY = [n for n in UNARY if not n.startswith(("floor", "ceil", "trunc", "fix", "round"))]

test_unary_matches_torch = cases.unary_matches_torch(UNARY)

test_unary_finite_differences = cases.unary_finite_differences(UNARY)

test_unary_tangents_match_torch = cases.unary_tangents_match_torch(
    UNARY, sorted(SMOOTH_UNARY) + ["floor", "round_decimals"]
)


# ----- integer and bool inputs: dtypes as PyTorch's, no gradient --------------------------


NO_GRAD = {
    "floor_int": (lambda L, a: L.floor(a), I),
    "ceil_int32": (lambda L, a: a.ceil(), I32),
    "round_int": (lambda L, a: L.round(a), I),
    "trunc_int": (lambda L, a: L.trunc(a), I),
    "exp2_int": (lambda L, a: L.exp2(a), I),
    "log1p_bool": (lambda L, a: L.log1p(a), B),
    "tan_int32": (lambda L, a: a.tan(), I32),
    "square_int": (lambda L, a: L.square(a), I),
    "square_bool": (lambda L, a: a.square(), B),
    "nan_to_num_int": (lambda L, a: L.nan_to_num(a), I),
    "nan_to_num_bool": (lambda L, a: L.nan_to_num(a), B),
    "sgn_int": (lambda L, a: L.sgn(a), I),
    "sgn_bool": (lambda L, a: L.sgn(a), B),
    "sign_bool": (lambda L, a: a.sign(), B),
    "deg2rad_int": (lambda L, a: L.deg2rad(a), I),
    "sinc_int": (lambda L, a: a.sinc(), I),
}

test_integer_and_bool_inputs_match_torch = cases.matches_torch(NO_GRAD)


# ----- second derivatives -----------------------------------------------------------------


SECOND = {
    "tan": (lambda L, x: L.tan(x), ["tan"]),
    "asin": (lambda L, x: L.asin(x), ["unit"]),
    "acosh": (lambda L, x: L.acosh(x), ["gt1"]),
    "rsqrt": (lambda L, x: L.rsqrt(x), ["pos"]),
    "exp2": (lambda L, x: L.exp2(x), ["any"]),
    "log1p": (lambda L, x: L.log1p(x), ["gt-1"]),
    "sinc": (lambda L, x: L.sinc(x), ["wide"]),
}

test_second_derivatives_match_torch = cases.second_derivatives_match_torch(SECOND)


# ----- in place on a non-leaf -------------------------------------------------------------


INPLACE = {
    "exp2_": (lambda L, x: (x * 1).exp2_(), "any"),
    "log1p_": (lambda L, x: (x * 1).log1p_(), "pos"),
    "tan_": (lambda L, x: (x * 1).tan_(), "tan"),
    "arcsin_": (lambda L, x: (x * 1).arcsin_(), "unit"),
    "square_": (lambda L, x: (x * 1).square_(), "any"),
    "floor_": (lambda L, x: (x * 1).floor_() + x, "away"),
    "round_": (lambda L, x: (x * 1).round_(decimals=1) * x, "away10"),
    "frac_": (lambda L, x: (x * 2).frac_(), "away"),
    "nan_to_num_": (lambda L, x: (x * 1).nan_to_num_(), "any"),
}

test_inplace_on_a_non_leaf_matches_torch = cases.inplace_on_a_non_leaf_matches_torch(INPLACE)


# ----- errors as PyTorch's ----------------------------------------------------------------


ERRORS = {
    "frac_int": (lambda L, a: L.frac(a), I),
    "floor_bool": (lambda L, a: L.floor(a), B),
    "round_decimals_int": (lambda L, a: L.round(a, decimals=1), I),
    "abs_bool": (lambda L, a: L.abs(a), B),
    "positive_bool": (lambda L, a: L.positive(a), B),
}

test_errors_match_torch = cases.raises_like_torch(ERRORS, sort=True)


# ----- nan_to_num, rounding ---------------------------------------------------------------


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


def test_second_derivative_by_grad_create_graph():
    """d²/dx² tan x = 2 tan x (1 + tan² x), through autograd.grad(create_graph=True)."""
    x = cr.tensor([0.3, -0.7], dtype=cr.float64, requires_grad=True)
    (g,) = cr.autograd.grad(cr.tan(x).sum(), x, create_graph=True)
    (h,) = cr.autograd.grad(g.sum(), x)
    t = np.tan(x.detach().numpy(force=True))
    np.testing.assert_allclose(h.numpy(force=True), 2 * t * (1 + t * t), rtol=1e-12)
    (g,) = cr.autograd.grad(cr.erf(x).sum(), x, create_graph=True)
    (h,) = cr.autograd.grad(g.sum(), x)
    xs = x.detach().numpy(force=True)
    np.testing.assert_allclose(h.numpy(force=True), -4 * xs / math.sqrt(math.pi) * np.exp(-xs * xs))


@pytest.mark.parametrize("name", ["sign", "sgn", "abs"])
@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_sign_of_nan_is_zero_and_abs_has_zero_gradient_there(name, dtype):
    """PyTorch's sign(nan) is 0, so abs'(nan) = sign(nan) = 0 (NumPy's sign(nan) is nan)."""
    check(lambda L, x: getattr(L, name)(x), np.array([np.nan, -2.0, 0.0, 3.0]), dtype=dtype)
