"""Special functions against PyTorch: erf, erfc, erfinv, lgamma, digamma, polygamma, the
Bessel functions i0, i0e, i1, i1e, ndtr, logit, and the ``chainrule.special``
namespace. Values, gradients, tangents and second derivatives, the accuracy of erf and
erfc in float64, special values and poles.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import cases
import chainrule as cr
from cases import I
from chainrule.ops.special import _erf_erfc
from oracle import (
    DT_IDS,
    FLOATS,
    check,
    check_double_backward,
    check_fd,
    check_raises,
    compare_tangents,
    same_node,
    values,
)

# ----- one input: values, node names, gradients, finite differences, tangents -------------


UNARY = {
    "erf": (lambda L, x: L.erf(x), "wide"),
    "erfc": (lambda L, x: x.erfc(), "wide"),
    "logit": (lambda L, x: L.logit(x), "prob"),
    "logit_eps": (lambda L, x: x.logit(eps=0.2), "prob"),
}

test_unary_matches_torch = cases.unary_matches_torch(UNARY)

test_unary_finite_differences = cases.unary_finite_differences(UNARY)

test_unary_tangents_match_torch = cases.unary_tangents_match_torch(UNARY, sorted(UNARY))


# ----- integer and bool inputs: dtypes as PyTorch's, no gradient --------------------------


NO_GRAD = {
    "erf_int": (lambda L, a: L.erf(a), I),
    "logit_int": (lambda L, a: L.logit(a), I),
}

test_integer_and_bool_inputs_match_torch = cases.matches_torch(NO_GRAD)


# ----- second derivatives -----------------------------------------------------------------


SECOND = {
    "erf": (lambda L, x: L.erf(x), ["wide"]),
    "erfc": (lambda L, x: L.erfc(x), ["wide"]),
    "logit": (lambda L, x: L.logit(x, eps=0.2), ["prob"]),
}

test_second_derivatives_match_torch = cases.second_derivatives_match_torch(SECOND)


# ----- in place on a non-leaf -------------------------------------------------------------


INPLACE = {
    "erf_": (lambda L, x: (x * 2).erf_(), "any"),
}

test_inplace_on_a_non_leaf_matches_torch = cases.inplace_on_a_non_leaf_matches_torch(INPLACE)


# ----- erf and erfc: accuracy in float64 --------------------------------------------------


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


# ----- lgamma, digamma, polygamma, erfinv, Bessel functions and torch.special -------------


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
    # the special names of ops defined in other families
    "special.digamma": (lambda L, x: L.special.digamma(x), "gamma"),
    "special.polygamma": (lambda L, x: L.special.polygamma(2, x), "gamma"),
    "special.erf": (lambda L, x: L.special.erf(x), "wide"),
    "special.erfc": (lambda L, x: L.special.erfc(x), "wide"),
    "special.exp2": (lambda L, x: L.special.exp2(x), "any"),
    "special.expm1": (lambda L, x: L.special.expm1(x), "any"),
    "special.log1p": (lambda L, x: L.special.log1p(x), "gt-1"),
    "special.sinc": (lambda L, x: L.special.sinc(x), "any"),
    "special.round": (lambda L, x: L.special.round(x), "away"),
    "special.i0": (lambda L, x: L.special.i0(x * 4), "any"),
    "special.log_softmax": (lambda L, x: L.special.log_softmax(x, 1), "any"),
    "special.logsumexp": (lambda L, x: L.special.logsumexp(x, 1), "any"),
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
    # PyTorch's ndtr is Mul(Add(Erf(Mul))): its MulBackward1 is ours 0; its special.round is
    # round(decimals=0), RoundBackward1 (ours is round's RoundBackward0)
    if name not in ("special.ndtr", "special.round"):
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


def test_special_names_exist():
    for name in (
        "gammaln psi digamma polygamma erf erfc erfinv expit logit exp2 expm1 log1p ndtr "
        "round sinc xlogy softmax log_softmax logsumexp i0 i0e i1 i1e"
    ).split():
        assert hasattr(torch.special, name), name
        assert callable(getattr(cr.special, name)), name
