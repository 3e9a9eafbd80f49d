"""Two-input math against PyTorch: maximum, minimum, fmax, fmin, atan2, hypot, logaddexp,
logaddexp2, xlogy, lerp, clamp (number and tensor bounds), clamp_min, clamp_max, clip,
copysign, ldexp, heaviside, nextafter.

Values, node names and gradients over broadcasting shape pairs in float32 and float64,
Python numbers as operands, finite differences, tangents, second derivatives, in-place
variants, errors, and the conventions at ties and bounds (clamp's gradient passes at the
bounds, maximum's splits at a tie).
"""

from __future__ import annotations

import numpy as np
import pytest

import cases
import chainrule as cr
from cases import I32, B, C, F, I, J
from oracle import (
    NoGrad,
    assert_same_tangent,
    check,
    check_double_backward,
)

# ----- one input: values, node names, gradients, finite differences, tangents -------------


UNARY = {
    "clamp": (lambda L, x: L.clamp(x, -0.5, 0.5), "clamp"),
    "clamp_min": (lambda L, x: x.clamp(min=-0.5), "clamp"),
    "clamp_max": (lambda L, x: L.clamp(x, max=0.5), "clamp"),
    "clamp_int_bounds": (lambda L, x: L.clamp(x, -1, 1), "clamp"),
    "clip": (lambda L, x: x.clip(-0.5, 0.5), "clamp"),
    "clamp_min_fn": (lambda L, x: L.clamp_min(x, -0.5), "clamp"),
    "clamp_max_method": (lambda L, x: x.clamp_max(0.5), "clamp"),
}

test_unary_matches_torch = cases.unary_matches_torch(UNARY)

test_unary_finite_differences = cases.unary_finite_differences(UNARY)

test_unary_tangents_match_torch = cases.unary_tangents_match_torch(UNARY, sorted(UNARY))


# ----- two inputs, broadcasting -----------------------------------------------------------


BINARY = {
    "maximum": (lambda L, a, b: L.maximum(a, b), "any", "any"),
    "maximum_method": (lambda L, a, b: a.maximum(b), "any", "any"),
    "minimum": (lambda L, a, b: L.minimum(a, b), "any", "any"),
    "fmax": (lambda L, a, b: L.fmax(a, b), "any", "any"),
    "fmin": (lambda L, a, b: b.fmin(a), "any", "any"),
    "atan2": (lambda L, a, b: L.atan2(a, b), "any", "nonzero"),
    "arctan2": (lambda L, a, b: a.arctan2(b), "nonzero", "any"),
    "hypot": (lambda L, a, b: L.hypot(a, b), "any", "nonzero"),
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
    "nextafter": (lambda L, a, b: L.nextafter(a, b) * b, "any", "any"),
}

test_binary_matches_torch = cases.binary_matches_torch(BINARY)

test_binary_finite_differences = cases.binary_finite_differences(BINARY)

test_binary_tangents_match_torch = cases.binary_tangents_match_torch(BINARY)


# ----- Python numbers as operands ---------------------------------------------------------


SCALAR_OPERANDS = {
    "lerp": (lambda L, x: L.lerp(x, x * 2 + 1, 0.25), True),
    "lerp_int_weight": (lambda L, x: L.lerp(x, x * 2 + 1, 1), True),
    "clamp_int_and_float": (lambda L, x: L.clamp(x, -1, 0.5), True),
    "xlogy_number": (lambda L, x: L.xlogy(x, 2.5), True),
    "xlogy_number_first": (lambda L, x: L.xlogy(2, x.abs()), True),
    "copysign_number": (lambda L, x: x.copysign(-1.0), True),
    "clamp_min_int": (lambda L, x: x.clamp_min(0), True),
}

test_python_number_operands = cases.python_number_operands(SCALAR_OPERANDS)


# ----- integer and bool inputs: dtypes as PyTorch's, no gradient --------------------------


NO_GRAD = {
    "clamp_int": (lambda L, a: L.clamp(a, -1, 2), I),
    "clamp_int_float_bound": (lambda L, a: L.clamp(a, 0.5), I),
    "clamp_bool": (lambda L, a: L.clamp(a, 0, 1), B),
    "clamp_int_tensor_bounds": (lambda L, a, b: L.clamp(a, b), I, J),
    "maximum_int": (lambda L, a, b: L.maximum(a, b), I, J),
    "minimum_bool": (lambda L, a, b: L.minimum(a, b), B, C),
    "fmax_int32_int64": (lambda L, a, b: L.fmax(a, b), I32, J),
    "fmin_int_bool": (lambda L, a, b: L.fmin(a, b), I, C),
    "atan2_int": (lambda L, a, b: L.atan2(a, b), I, J),
    "clamp_min_int": (lambda L, a: L.clamp_min(a, 1), I),
    "clamp_max_int_float": (lambda L, a: a.clamp_max(0.5), I),
    "xlogy_int": (lambda L, a, b: L.xlogy(a, b), I, J),
    "copysign_int": (lambda L, a: L.copysign(a, -1), I),
    "ldexp_int": (lambda L, a, b: L.ldexp(a, b), I, J),
    "heaviside": (lambda L, a, b: L.heaviside(a, b), NoGrad(F), NoGrad(F[::-1])),
    "heaviside_int": (lambda L, a, b: a.heaviside(b), I, J),
    "nextafter": (lambda L, a, b: L.nextafter(a, b), NoGrad(F), NoGrad(F[::-1])),
}

test_integer_and_bool_inputs_match_torch = cases.matches_torch(NO_GRAD)


# ----- second derivatives -----------------------------------------------------------------


SECOND = {
    "atan2": (lambda L, a, b: L.atan2(a, b), ["any", "nonzero"]),
    "hypot": (lambda L, a, b: L.hypot(a, b), ["any", "nonzero"]),
    "lerp": (lambda L, a, b, w: L.lerp(a, b, w), ["any", "any", "any"]),
    "maximum": (lambda L, a, b: L.maximum(a, b) * a, ["any", "any"]),
    "clamp": (lambda L, x, lo: L.clamp(x, lo, lo + 1) ** 2, ["any", "any"]),
    "xlogy": (lambda L, a, b: L.xlogy(a, b), ["any", "pos"]),
    "logaddexp": (lambda L, a, b: L.logaddexp(a, b), ["any", "any"]),
    "logaddexp2": (lambda L, a, b: L.logaddexp2(a, b), ["any", "any"]),
    "copysign": (lambda L, a, b: L.copysign(a, b) * a, ["nonzero", "any"]),
    "ldexp": (lambda L, a, b: L.ldexp(a, b), ["any", "any"]),
    "clamp_min": (lambda L, x, lo: L.clamp_min(x, lo) ** 2, ["any", "any"]),
}

test_second_derivatives_match_torch = cases.second_derivatives_match_torch(SECOND)


# ----- in place on a non-leaf -------------------------------------------------------------


INPLACE = {
    "clamp_": (lambda L, x: (x * 1).clamp_(0, 1), "any"),
    "clamp_tensor_": (lambda L, x: (x * 1).clamp_(x * 0, x * 0 + 0.5), "any"),
    "clip_": (lambda L, x: (x * 1).clip_(max=0.2), "any"),
    "atan2_": (lambda L, x: (x * 1).atan2_(x + 3), "any"),
    "hypot_": (lambda L, x: (x * 1).hypot_(x * x), "nonzero"),
    "lerp_": (lambda L, x: (x * 1).lerp_(x * x, 0.3), "any"),
}

test_inplace_on_a_non_leaf_matches_torch = cases.inplace_on_a_non_leaf_matches_torch(INPLACE)


# ----- errors as PyTorch's ----------------------------------------------------------------


ERRORS = {
    "hypot_int": (lambda L, a: L.hypot(a, a), I),
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
    "leaf_inplace": (lambda L, a: a.clamp_(0, 1), F),
    "clamp_bool_scalar": (lambda L, a: a.clamp(min=True), B),
    "logaddexp_int": (lambda L, a: L.logaddexp(a, a), I),
    "logaddexp_number": (lambda L, a: L.logaddexp(a, 1.0), F),
    "heaviside_dtypes": (lambda L, a: L.heaviside(a, a.float()), I),
    "xlogy_numbers": (lambda L, a: L.xlogy(2, 3), F),
    "nextafter_int": (lambda L, a: L.nextafter(a, a), I),
}

test_errors_match_torch = cases.raises_like_torch(ERRORS, sort=True)


# ----- the conventions at kinks and ties --------------------------------------------------


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
        ga, gb = res.cr_inputs[0].grad.numpy(force=True), res.cr_inputs[1].grad.numpy(force=True)
        assert ga[0] == gb[0] and ga[5] == gb[5]
    assert_same_tangent(fn, MAX_A, MAX_B)


def test_maximum_tie_gives_half_to_each():
    a = cr.tensor([2.0], requires_grad=True)
    b = cr.tensor([2.0], requires_grad=True)
    cr.maximum(a, b).backward(cr.tensor([1.0]))
    assert a.grad.tolist() == [0.5] and b.grad.tolist() == [0.5]


def test_atan2_gradient_at_the_origin_is_torchs():
    """PyTorch's gradient of atan2 at a = b = 0 is 0 (not 0/0); its second derivative there
    and its forward-mode tangent stay nan."""
    import torch

    values = ([0.0, 1.0, -0.5], [0.0, 2.0, 0.0])
    got = {}
    for L in (torch, cr):
        a, b = (L.tensor(v, dtype=L.float64, requires_grad=True) for v in values)
        ga, gb = L.autograd.grad(L.atan2(a, b).sum(), (a, b), create_graph=True)
        second = L.autograd.grad((ga * ga + gb).sum(), (a, b))
        got[L] = [t.detach().numpy(force=True) for t in (ga, gb, *second)]
    for ours, theirs in zip(got[cr], got[torch]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=0)
    assert got[cr][0][0] == 0 and np.isnan(got[cr][2][0])
    with cr.autograd.forward_ad.dual_level():
        dual = cr.autograd.forward_ad.make_dual(
            cr.zeros(1, dtype=cr.float64), cr.ones(1, dtype=cr.float64)
        )
        tangent = cr.autograd.forward_ad.unpack_dual(
            cr.atan2(dual, cr.zeros(1, dtype=cr.float64))
        ).tangent
    assert np.isnan(tangent.numpy(force=True)).all()


XLOG_A = np.array([0.0, 0.0, 1.0, 0.0, 2.0, 0.0, 0.0])

XLOG_B = np.array([0.4, 0.0, 0.0, np.nan, 0.5, -1.0, -1.5])


@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
def test_xlogy_gradient_in_a_at_zero_is_torchs(name):
    """PyTorch's d/da of xlogy(a, b) is ln b even where a = 0, masked to 0 only where also
    b ≤ 0 (b ≤ -1 for xlog1py); the tangent and the second derivatives follow."""
    fn = {
        "xlogy": lambda L, a, b: L.xlogy(a, b),
        "xlog1py": lambda L, a, b: L.special.xlog1py(a, b - 1),
    }[name]
    check(fn, XLOG_A, XLOG_B)
    a = cr.tensor(XLOG_A, requires_grad=True)
    (grad,) = cr.autograd.grad(fn(cr, a, cr.tensor(XLOG_B)).sum(), a)
    assert grad[0].item() != 0 and grad[1].item() == 0  # (b = 0.4, and b ≤ 0)
    assert_same_tangent(fn, XLOG_A, XLOG_B)
    check_double_backward(fn, XLOG_A[[0, 2, 4]], XLOG_B[[0, 2, 4]] + 0.5)
