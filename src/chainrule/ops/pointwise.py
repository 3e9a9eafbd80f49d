"""Pointwise ops beyond the basic arithmetic of elementwise.py: exponentials and logs,
trigonometric and hyperbolic functions, erf, rounding, clamping, the binary ops with
PyTorch's tie and NaN conventions (maximum, fmax, atan2, lerp, remainder, ...), and the
logical and bitwise ops (bool or integer results, no gradient).

Each op is one ``defop`` entry (see docs/architecture.md): the forward on arrays, one VJP
and one JVP per input written with chainrule's own ops (so ``create_graph`` works), the
derivative in a comment beside each, and the subgradient at every kink in
``conventions``. The public functions with PyTorch's signatures follow the ops, and
``TENSOR_METHODS`` lists the Tensor methods and operators they provide.
"""

from __future__ import annotations

import math

from .._backend import xp
from .._dtypes import float16, float32, float64
from .._op import FLOAT, KEEP, defop, result_type
from .._tensor import Tensor
from . import elementwise as ew
from .functions import _tensor_arg, inplace

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)

# PyTorch's names of its scalar types, as its "not implemented for 'Long'" errors print them
_SCALAR_TYPE = {
    "bool": "Bool",
    "uint8": "Byte",
    "int8": "Char",
    "int16": "Short",
    "int32": "Int",
    "int64": "Long",
    "float16": "Half",
    "float32": "Float",
    "float64": "Double",
}
_C10_NAME = {float16: "c10::Half", float32: "float", float64: "double"}


def _not_implemented(kernel: str, dtype) -> NotImplementedError:
    return NotImplementedError(f'"{kernel}" not implemented for \'{_SCALAR_TYPE[dtype.name]}\'')


def _where(condition, a, b):
    """``where`` for VJPs and JVPs: the op on tensors, ``xp.where`` on arrays and numbers.

    (``elementwise.where`` wraps two arrays in a tensor; on the array path of a VJP the
    plain ``xp.where`` gives the same values without that round trip.)
    """
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return ew.where(condition, a, b)
    return xp.where(getattr(condition, "_data", condition), a, b)


def _float_only(kernel: str):
    """A dtype rule: PyTorch's promotion, and its NotImplementedError for non-float results."""

    def rule(args, params):
        dtype = result_type(args)
        if dtype._category != 2:
            raise _not_implemented(kernel, dtype)
        return dtype

    return rule


# ----- exponentials and logarithms ---------------------------------------------------

# Elementwise ops have diagonal Jacobians: each JVP multiplies the tangent by the same
# local derivative its VJP multiplies the gradient by.
exp2_op = defop(
    "exp2", xp.exp2, dtypes=FLOAT,
    vjp=lambda g, ans: g * (ans * _LN2),  # d/dx 2^x = 2^x ln 2
    jvp=lambda t, ans: t * (ans * _LN2),
)
expm1_op = defop(
    "expm1", xp.expm1, dtypes=FLOAT,
    vjp=lambda g, ans: g * (ans + 1),  # d/dx (e^x - 1) = e^x = ans + 1
    jvp=lambda t, ans: t * (ans + 1),
)
log2_op = defop(
    "log2", xp.log2, dtypes=FLOAT,
    vjp=lambda g, x: g / (x * _LN2),  # d/dx log2 x = 1 / (x ln 2)
    jvp=lambda t, x: t / (x * _LN2),
)
log10_op = defop(
    "log10", xp.log10, dtypes=FLOAT,
    vjp=lambda g, x: g / (x * _LN10),  # d/dx log10 x = 1 / (x ln 10)
    jvp=lambda t, x: t / (x * _LN10),
)
log1p_op = defop(
    "log1p", xp.log1p, dtypes=FLOAT, node="Log1PBackward0",
    vjp=lambda g, x: g / (x + 1),  # d/dx ln(1 + x) = 1 / (1 + x)
    jvp=lambda t, x: t / (x + 1),
)


def _rsqrt(x):
    """1 / √x"""
    return xp.reciprocal(xp.sqrt(x))


rsqrt_op = defop(
    "rsqrt", _rsqrt, dtypes=FLOAT,
    vjp=lambda g, ans: g * (ans * ans * ans * -0.5),  # d/dx x^(-1/2) = -x^(-3/2) / 2
    jvp=lambda t, ans: t * (ans * ans * ans * -0.5),
    conventions="At x = 0 the gradient is -inf, as in PyTorch.",
)

# ----- trigonometric and hyperbolic -------------------------------------------------------

tan_op = defop(
    "tan", xp.tan, dtypes=FLOAT,
    vjp=lambda g, ans: g * (ans * ans + 1),  # d/dx tan x = 1 + tan² x
    jvp=lambda t, ans: t * (ans * ans + 1),
)
asin_op = defop(
    "asin", xp.arcsin, dtypes=FLOAT,
    vjp=lambda g, x: g * rsqrt_op(1 - x * x),  # d/dx asin x = 1 / √(1 - x²)
    jvp=lambda t, x: t * rsqrt_op(1 - x * x),
)
acos_op = defop(
    "acos", xp.arccos, dtypes=FLOAT,
    vjp=lambda g, x: g * -rsqrt_op(1 - x * x),  # d/dx acos x = -1 / √(1 - x²)
    jvp=lambda t, x: t * -rsqrt_op(1 - x * x),
)
atan_op = defop(
    "atan", xp.arctan, dtypes=FLOAT,
    vjp=lambda g, x: g / (x * x + 1),  # d/dx atan x = 1 / (1 + x²)
    jvp=lambda t, x: t / (x * x + 1),
)
sinh_op = defop(
    "sinh", xp.sinh, dtypes=FLOAT,
    vjp=lambda g, x: g * cosh_op(x),  # d/dx sinh x = cosh x
    jvp=lambda t, x: t * cosh_op(x),
)
cosh_op = defop(
    "cosh", xp.cosh, dtypes=FLOAT,
    vjp=lambda g, x: g * sinh_op(x),  # d/dx cosh x = sinh x
    jvp=lambda t, x: t * sinh_op(x),
)
asinh_op = defop(
    "asinh", xp.arcsinh, dtypes=FLOAT,
    vjp=lambda g, x: g * rsqrt_op(x * x + 1),  # d/dx asinh x = 1 / √(x² + 1)
    jvp=lambda t, x: t * rsqrt_op(x * x + 1),
)
acosh_op = defop(
    "acosh", xp.arccosh, dtypes=FLOAT,
    vjp=lambda g, x: g * rsqrt_op(x * x - 1),  # d/dx acosh x = 1 / √(x² - 1)
    jvp=lambda t, x: t * rsqrt_op(x * x - 1),
)
atanh_op = defop(
    "atanh", xp.arctanh, dtypes=FLOAT,
    vjp=lambda g, x: g / (1 - x * x),  # d/dx atanh x = 1 / (1 - x²)
    jvp=lambda t, x: t / (1 - x * x),
)

# ----- the error function -----------------------------------------------------------------
#
# erf and erfc in float64 by the method and coefficients of Sun's fdlibm (s_erf.c):
# rational approximations on [0, 0.84375), [0.84375, 1.25), and for erfc(x) x e^(x²) on
# [1.25, 1/0.35) and [1/0.35, 28); each is within 2^-57 of its target, so the results are
# within about one ulp. The fdlibm notice: "Copyright (C) 1993 by Sun Microsystems, Inc.
# All rights reserved. Developed at SunPro, a Sun Microsystems, Inc. business. Permission
# to use, copy, modify, and distribute this software is freely granted, provided that
# this notice is preserved."

_ERX = 8.45062911510467529297e-01  # erf(1) rounded to 24 bits
# erf(x) = x + x P(x²)/Q(x²) on [0, 0.84375)
_PP = (1.28379167095512558561e-01, -3.25042107247001499370e-01, -2.84817495755985104766e-02,
       -5.77027029648944159157e-03, -2.37630166566501626084e-05)
_QQ = (1.0, 3.97917223959155352819e-01, 6.50222499887672944485e-02,
       5.08130628187576562776e-03, 1.32494738004321644526e-04, -3.96022827877536812320e-06)
# erf(1 + s) = erx + P(s)/Q(s) on [0.84375, 1.25)
_PA = (-2.36211856075265944077e-03, 4.14856118683748331666e-01, -3.72207876035701323847e-01,
       3.18346619901161753674e-01, -1.10894694282396677476e-01, 3.54783043256182359371e-02,
       -2.16637559486879084300e-03)
_QA = (1.0, 1.06420880400844228286e-01, 5.40397917702171048937e-01,
       7.18286544141962662868e-02, 1.26171219808761642112e-01, 1.36370839120290507362e-02,
       1.19844998467991074170e-02)
# erfc(x) = exp(-x² - 0.5625 + R(1/x²)/S(1/x²)) / x on [1.25, 1/0.35)
_RA = (-9.86494403484714822705e-03, -6.93858572707181764372e-01, -1.05586262253232909814e01,
       -6.23753324503260060396e01, -1.62396669462573470355e02, -1.84605092906711035994e02,
       -8.12874355063065934246e01, -9.81432934416914548592e00)
_SA = (1.0, 1.96512716674392571292e01, 1.37657754143519042600e02, 4.34565877475229228821e02,
       6.45387271733267880336e02, 4.29008140027567833386e02, 1.08635005541779435134e02,
       6.57024977031928170135e00, -6.04244152148580987438e-02)
# ... and on [1/0.35, 28)
_RB = (-9.86494292470009928597e-03, -7.99283237680523006574e-01, -1.77579549177547519889e01,
       -1.60636384855821916062e02, -6.37566443368389627722e02, -1.02509513161107724954e03,
       -4.83519191608651397019e02)
_SB = (1.0, 3.03380607434824582924e01, 3.25792512996573918826e02, 1.53672958608443695994e03,
       3.19985821950859553908e03, 2.55305040643316442583e03, 4.74528541206955367215e02,
       -2.24409524465858183362e01)


def _horner(z, coeffs):
    """c0 + z (c1 + z (c2 + ...)), evaluated from the highest coefficient down."""
    acc = coeffs[-1]
    for c in reversed(coeffs[:-1]):
        acc = c + z * acc
    return acc


def _erf_erfc(x):
    """(erf(x), erfc(x)) elementwise, in float64, each within about one ulp."""
    x = xp.asarray(x, dtype=xp.float64)
    ax = xp.abs(x)
    erf_ax = xp.full(x.shape, xp.nan)  # erf(|x|) and erfc(|x|); nan stays nan
    erfc_ax = xp.full(x.shape, xp.nan)
    with xp.errstate(all="ignore"):
        m = ax < 0.84375
        if m.any():
            s = ax[m]
            y = _horner(s * s, _PP) / _horner(s * s, _QQ)
            erf_ax[m] = s + s * y
            # below 1/4, 1 - erf loses nothing; above, this order keeps the last bits
            erfc_ax[m] = xp.where(s < 0.25, 1.0 - (s + s * y), 0.5 - (s * y + (s - 0.5)))
        m = (ax >= 0.84375) & (ax < 1.25)
        if m.any():
            s = ax[m] - 1.0
            pq = _horner(s, _PA) / _horner(s, _QA)
            erf_ax[m] = _ERX + pq
            erfc_ax[m] = (1.0 - _ERX) - pq
        m = (ax >= 1.25) & (ax < 28.0)
        if m.any():
            s = ax[m]
            w = 1.0 / (s * s)
            near = s < 1.0 / 0.35
            rs = xp.where(near, _horner(w, _RA) / _horner(w, _SA), _horner(w, _RB) / _horner(w, _SB))
            # e^(-x²) as e^(-z²) e^((z - x)(z + x)), z = x with its low 32 bits cleared: z² is
            # exact, so the large exponent carries no rounding error
            z = (xp.ascontiguousarray(s).view(xp.uint64) & xp.uint64(0xFFFFFFFF00000000)).view(
                xp.float64
            )
            tail = xp.exp(-z * z - 0.5625) * xp.exp((z - s) * (z + s) + rs) / s
            erfc_ax[m] = tail
            erf_ax[m] = 1.0 - tail
        m = ax >= 28.0  # erfc(28) < 1e-341: 0 in float64 (inf included)
        erf_ax[m] = 1.0
        erfc_ax[m] = 0.0
    erf_x = xp.copysign(erf_ax, x)  # erf is odd (and erf(-0) = -0)
    erfc_x = xp.where(x < 0, 1.0 + erf_ax, erfc_ax)  # erfc(-a) = 1 + erf(a)
    return erf_x, erfc_x


def _erf(x):
    """erf(x) = 2/√π ∫₀ˣ e^(-t²) dt (computed in float64)"""
    return _erf_erfc(x)[0].astype(x.dtype)


def _erfc(x):
    """erfc(x) = 1 - erf(x), accurate where erf(x) is close to 1 (computed in float64)"""
    return _erf_erfc(x)[1].astype(x.dtype)


erf_op = defop(
    "erf", _erf, dtypes=FLOAT,
    vjp=lambda g, x: g * (ew.exp(-(x * x)) * _TWO_OVER_SQRT_PI),  # d/dx erf x = 2/√π e^(-x²)
    jvp=lambda t, x: t * (ew.exp(-(x * x)) * _TWO_OVER_SQRT_PI),
)
erfc_op = defop(
    "erfc", _erfc, dtypes=FLOAT,
    vjp=lambda g, x: g * (ew.exp(-(x * x)) * -_TWO_OVER_SQRT_PI),  # d/dx erfc x = -2/√π e^(-x²)
    jvp=lambda t, x: t * (ew.exp(-(x * x)) * -_TWO_OVER_SQRT_PI),
)

# ----- rounding ------------------------------------------------------------------------


def _rounding_dtype(kernel: str):
    """Rounding keeps the dtype (integers are already whole); bool is not implemented."""

    def rule(args, params):
        dtype = args[0]._dtype
        if "decimals" in params and dtype._category != 2:  # round(int, decimals=...) raises
            raise _not_implemented("round_cpu" if params["decimals"] else kernel, dtype)
        if dtype._category == 0:
            raise _not_implemented(kernel, dtype)
        return dtype

    return rule


def _whole(fn):
    def forward(x):
        return fn(x) if x.dtype.kind == "f" else x.copy()

    forward.__doc__ = f"{fn.__name__}(x); integer tensors are returned as a copy"
    return forward


_STEP = (
    "The derivative is 0 everywhere, the jumps included (PyTorch's zeros_like(grad))."
)
floor_op = defop(
    "floor", _whole(xp.floor), dtypes=_rounding_dtype("floor_vml_cpu"),
    vjp=lambda g: ew.zero(g),  # d/dx ⌊x⌋ = 0 (almost everywhere)
    jvp=lambda t: ew.zero(t),
    conventions=_STEP,
)
ceil_op = defop(
    "ceil", _whole(xp.ceil), dtypes=_rounding_dtype("ceil_vml_cpu"),
    vjp=lambda g: ew.zero(g),  # d/dx ⌈x⌉ = 0 (almost everywhere)
    jvp=lambda t: ew.zero(t),
    conventions=_STEP,
)
trunc_op = defop(
    "trunc", _whole(xp.trunc), dtypes=_rounding_dtype("trunc_vml_cpu"),
    vjp=lambda g: ew.zero(g),  # d/dx trunc x = 0 (almost everywhere)
    jvp=lambda t: ew.zero(t),
    conventions=_STEP,
)


def _round(x, decimals=0):
    """x rounded half to even, to ``decimals`` decimal places (negative: tens, hundreds)

    As PyTorch computes it, in x's dtype: rint(x * 10^d) / 10^d, or rint(x / 10^-d) * 10^-d.
    """
    if x.dtype.kind != "f":
        return x.copy()
    if decimals == 0:
        return xp.rint(x)
    scale = x.dtype.type(10.0 ** (decimals if decimals > 0 else -decimals))
    if decimals > 0:
        return xp.rint(x * scale) / scale
    return xp.rint(x / scale) * scale


round_op = defop(
    "round", _round, dtypes=_rounding_dtype("round_vml_cpu"),
    node=lambda x, **params: "RoundBackward1" if "decimals" in params else "RoundBackward0",
    vjp=lambda g: ew.zero(g),  # d/dx round(x) = 0 (almost everywhere)
    jvp=lambda t: ew.zero(t),
    conventions=_STEP + " Ties round half to even.",
)


def _frac(x):
    """x - trunc(x): the fractional part, with x's sign"""
    return x - xp.trunc(x)


frac_op = defop(
    "frac", _frac, dtypes=_float_only("frac_cpu"),
    vjp=lambda g: g,  # d/dx (x - trunc x) = 1 (almost everywhere)
    jvp=lambda t: t,
    conventions="The derivative is 1 everywhere, the jumps at integers included.",
)

# ----- clamping -------------------------------------------------------------------------


def _clamp(x, lo=None, hi=None):
    """min(max(x, lo), hi), a bound left out when None; lo > hi gives hi, as in PyTorch"""
    if lo is not None:
        x = xp.maximum(x, lo)
    if hi is not None:
        x = xp.minimum(x, hi)
    return x


def _inside(x, lo, hi):
    """lo <= x <= hi, a missing bound always satisfied: where the gradient passes."""
    if lo is None:
        return x <= hi
    if hi is None:
        return x >= lo
    return logical_and_op(x >= lo, x <= hi)


def _clamp_scalar(x, min=None, max=None):  # noqa: A002
    """min(max(x, min), max) with Python-number bounds"""
    return _clamp(x, min, max)


_CLAMP = (
    "The gradient passes where min <= x <= max, at the bounds themselves included "
    "(PyTorch's convention); it is 0 everywhere when min > max."
)
clamp_scalar = defop(
    "clamp", _clamp_scalar, node="ClampBackward1",
    dtypes=lambda args, params: result_type((args[0], params.get("min"), params.get("max"))),
    vjp=lambda g, x, min, max: _where(_inside(x, min, max), g, 0),  # d/dx clamp = [min ≤ x ≤ max]
    jvp=lambda t, x, min, max: _where(_inside(x, min, max), t, 0),
    conventions=_CLAMP,
)


def _clamp_lo_vjp(g, x, lo, hi):
    # d/dlo clamp = [x < lo] (and lo < hi when both bounds are given)
    if hi is None:
        return _where(x < lo, g, 0)
    return _where(logical_and_op(x < lo, lo < hi), g, 0)


def _clamp_hi_vjp(g, x, lo, hi):
    # d/dhi clamp = [x > hi] (or hi < lo: then the result is hi everywhere)
    if lo is None:
        return _where(x > hi, g, 0)
    return _where(logical_or_op(x > hi, hi < lo), g, 0)


# Forward mode follows PyTorch's clamp_jvp, which differs from backward at ties: with one
# tensor bound, x = lo takes lo's tangent and x = hi takes hi's; with both, x < lo = hi
# takes lo's tangent (where backward gives no input a gradient).
def _clamp_x_jvp(t, x, lo, hi):
    if lo is None:
        return _where(x < hi, t, 0)
    if hi is None:
        return _where(x > lo, t, 0)
    return _where(_inside(x, lo, hi), t, 0)


def _clamp_lo_jvp(t, x, lo, hi):
    if hi is None:
        return _where(x > lo, 0, t)
    return _where(logical_and_op(x < lo, lo <= hi), t, 0)


def _clamp_hi_jvp(t, x, lo, hi):
    if lo is None:
        return _where(x < hi, 0, t)
    return _where(logical_or_op(lo > hi, logical_and_op(x >= lo, x > hi)), t, 0)


clamp_tensor = defop(
    "clamp_tensor", _clamp, args=("x", "lo", "hi"), node="ClampBackward0",
    vjp=(
        lambda g, x, lo, hi: _where(_inside(x, lo, hi), g, 0),  # d/dx = [lo ≤ x ≤ hi]
        _clamp_lo_vjp,
        _clamp_hi_vjp,
    ),
    jvp=(_clamp_x_jvp, _clamp_lo_jvp, _clamp_hi_jvp),
    conventions=_CLAMP + " A bound gets the gradient where it is the result: x < lo < hi "
    "for lo, x > hi or hi < lo for hi (at lo = hi > x, no input gets it, as in PyTorch).",
)


def _nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """x with nan, +inf and -inf replaced (the infinities by the dtype's largest values)"""
    if x.dtype.kind != "f":
        return x.copy()
    return xp.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)


nan_to_num_op = defop(
    "nan_to_num", _nan_to_num, node="NanToNumBackward0",
    vjp=lambda g, x: _where(isfinite_op(x), g, 0),  # d/dx = 1 where x is finite, else 0
    jvp=lambda t, x: _where(isfinite_op(x), t, 0),
    conventions="The gradient is 0 where x is nan or ±inf (the value was replaced).",
)

# ----- maximum and minimum ----------------------------------------------------------------

_TIES = (
    "Where a = b the gradient is split, g/2 to each; where one is nan, both get g "
    "(PyTorch's masks compare false)."
)
maximum_op = defop(
    "maximum", xp.maximum, args=("a", "b"),
    vjp=(
        lambda g, a, b: _where(a == b, g / 2, _where(a < b, 0, g)),  # d/da max = [a > b]
        lambda g, a, b: _where(a == b, g / 2, _where(a > b, 0, g)),  # d/db max = [b > a]
    ),
    # PyTorch: other_t + where(a == b, 1/2, a > b) (self_t - other_t)
    jvp=(
        lambda t, a, b: _where(a == b, t / 2, _where(a > b, t, 0)),
        lambda t, a, b: _where(a == b, t / 2, _where(a > b, 0, t)),
    ),
    conventions=_TIES + " Forward mode: a nan takes b's tangent.",
)
minimum_op = defop(
    "minimum", xp.minimum, args=("a", "b"),
    vjp=(
        lambda g, a, b: _where(a == b, g / 2, _where(a > b, 0, g)),  # d/da min = [a < b]
        lambda g, a, b: _where(a == b, g / 2, _where(a < b, 0, g)),  # d/db min = [b < a]
    ),
    jvp=(
        lambda t, a, b: _where(a == b, t / 2, _where(a < b, t, 0)),
        lambda t, a, b: _where(a == b, t / 2, _where(a < b, 0, t)),
    ),
    conventions=_TIES + " Forward mode: a nan takes b's tangent.",
)


def _fmax_picks_a(a, b):
    # backward: a where a >= b or b is nan (ties go to a)
    return logical_or_op(a >= b, isnan_op(b))


def _fmin_picks_a(a, b):
    return logical_or_op(a <= b, isnan_op(b))


def _fmax_jvp_picks_a(a, b):
    # PyTorch's forward formula: a where a > b or b is nan (ties go to b)
    return logical_or_op(a > b, isnan_op(b))


fmax_op = defop(
    "fmax", xp.fmax, args=("a", "b"),
    vjp=(
        lambda g, a, b: _where(_fmax_picks_a(a, b), g, 0),  # d/da fmax = [a ≥ b or b is nan]
        lambda g, a, b: _where(_fmax_picks_a(a, b), 0, g),  # d/db fmax = the rest
    ),
    jvp=(
        lambda t, a, b: _where(_fmax_jvp_picks_a(a, b), t, 0),
        lambda t, a, b: _where(_fmax_jvp_picks_a(a, b), 0, t),
    ),
    conventions="nan is ignored (the other input gets the gradient). Ties: the whole "
    "gradient goes to a; in forward mode the tangent is b's (PyTorch's formulas).",
)
fmin_op = defop(
    "fmin", xp.fmin, args=("a", "b"),
    vjp=(
        lambda g, a, b: _where(_fmin_picks_a(a, b), g, 0),  # d/da fmin = [a ≤ b or b is nan]
        lambda g, a, b: _where(_fmin_picks_a(a, b), 0, g),  # d/db fmin = the rest
    ),
    jvp=(
        lambda t, a, b: _where(_fmin_picks_a(a, b), t, 0),
        lambda t, a, b: _where(_fmin_picks_a(a, b), 0, t),
    ),
    conventions="nan is ignored (the other input gets the gradient). Ties: the whole "
    "gradient (and tangent) goes to a.",
)

# ----- atan2, hypot, lerp ------------------------------------------------------------


def _atan2_a(g, a, b):
    # d/da atan2(a, b) = b / (a² + b²)
    return g * (b / (a * a + b * b))


def _atan2_b(g, a, b):
    # d/db atan2(a, b) = -a / (a² + b²)
    return g * (-a / (a * a + b * b))


atan2_op = defop(
    "atan2", xp.arctan2, args=("a", "b"), dtypes=FLOAT,
    vjp=(_atan2_a, _atan2_b),
    jvp=(_atan2_a, _atan2_b),  # elementwise: VJP and JVP coincide
    conventions="At a = b = 0 the gradient is nan (0/0), as in PyTorch.",
)
hypot_op = defop(
    "hypot", xp.hypot, args=("a", "b"), dtypes=_float_only("hypot_cpu"),
    vjp=(
        lambda g, a, ans: g * (a / ans),  # d/da √(a² + b²) = a / hypot
        lambda g, b, ans: g * (b / ans),  # d/db √(a² + b²) = b / hypot
    ),
    jvp=(lambda t, a, ans: t * (a / ans), lambda t, b, ans: t * (b / ans)),
    conventions="At a = b = 0 the gradient is nan (0/0), as in PyTorch.",
)


def _lerp(start, end, weight):
    """start + weight (end - start), as PyTorch evaluates it: from end when |weight| >= 1/2"""
    diff = end - start
    return xp.where(xp.abs(weight) < 0.5, start + weight * diff, end - diff * (1 - weight))


def _lerp_dtype(args, params):
    start, end, weight = args
    dtype = start._dtype
    if dtype._category != 2:
        kind = "tensor" if isinstance(weight, Tensor) else "scalar"
        raise _not_implemented(f"lerp_kernel_{kind}", dtype)
    for name, v in (("end", end), ("weight", weight)):
        if isinstance(v, Tensor) and v._dtype is not dtype and (name == "end" or v.ndim):
            raise RuntimeError(
                f"expected dtype {_C10_NAME[dtype]} for `{name}` but got dtype "
                f"{_C10_NAME.get(v._dtype, v._dtype.name)}"
            )
    return dtype


lerp_op = defop(
    "lerp", _lerp, args=("start", "end", "weight"), dtypes=_lerp_dtype,
    node=lambda start, end, weight: (
        "LerpBackward1" if hasattr(weight, "shape") else "LerpBackward0"
    ),
    vjp=(
        lambda g, weight: g * (1 - weight),  # d/dstart = 1 - w
        lambda g, weight: g * weight,  # d/dend = w
        lambda g, start, end: g * (end - start),  # d/dw = end - start
    ),
    jvp=(
        lambda t, weight: t * (1 - weight),
        lambda t, weight: t * weight,
        lambda t, start, end: t * (end - start),
    ),
)

# ----- remainder, fmod, floor and truncating division -------------------------------------


def _integer_divisor_check(a, b):
    """PyTorch raises for an integer division by zero (NumPy returns 0 and warns)."""
    if xp.result_type(a, b).kind in "iu" and xp.any(xp.asarray(b) == 0):
        raise RuntimeError("ZeroDivisionError")


def _divides(kernel: str):
    """Division-like dtype rule: promotion, with bool not implemented."""

    def rule(args, params):
        dtype = result_type(args)
        if dtype._category == 0:
            raise _not_implemented(kernel.format(params.get("rounding_mode")), dtype)
        return dtype

    return rule


def _remainder(a, b):
    """a - b ⌊a/b⌋: the remainder with the divisor's sign (Python's %)"""
    _integer_divisor_check(a, b)
    return xp.remainder(a, b)


def _fmod(a, b):
    """a - b trunc(a/b): the remainder with the dividend's sign (C's fmod)"""
    _integer_divisor_check(a, b)
    return xp.fmod(a, b)


def _floor_divide(a, b):
    """⌊a / b⌋ (for floats as PyTorch and Python compute it, from fmod)"""
    _integer_divisor_check(a, b)
    return xp.floor_divide(a, b)


def _trunc_divide(a, b):
    """trunc(a / b): the quotient rounded toward zero"""
    _integer_divisor_check(a, b)
    if xp.result_type(a, b).kind == "f":
        return xp.trunc(xp.true_divide(a, b))
    q = xp.floor_divide(a, b)
    inexact = (q * b != a) & ((xp.asarray(a) < 0) != (xp.asarray(b) < 0))
    return q + inexact.astype(q.dtype)


def _div_rounding(a, b, rounding_mode="floor"):
    """a / b rounded toward -inf ('floor') or toward zero ('trunc')"""
    return (_floor_divide if rounding_mode == "floor" else _trunc_divide)(a, b)


def _remainder_node(a, b):
    return "RemainderBackward1" if hasattr(b, "shape") else "RemainderBackward0"


def _fmod_node(a, b):
    return "FmodBackward1" if hasattr(b, "shape") else "FmodBackward0"


remainder_op = defop(
    "remainder", _remainder, args=("a", "b"), dtypes=_divides("remainder_cpu"),
    node=_remainder_node,
    vjp=(
        lambda g: g,  # d/da (a - b⌊a/b⌋) = 1 (almost everywhere)
        lambda g, a, b: -g * div_rounding_op(a, b, rounding_mode="floor"),  # d/db = -⌊a/b⌋
    ),
    jvp=(lambda t: t, lambda t, a, b: -t * div_rounding_op(a, b, rounding_mode="floor")),
    conventions="d/da = 1 and d/db = -⌊a/b⌋ everywhere, the jumps where b divides a included.",
)
fmod_op = defop(
    "fmod", _fmod, args=("a", "b"), dtypes=_divides("fmod_cpu"), node=_fmod_node,
    vjp=(
        lambda g: g,  # d/da (a - b trunc(a/b)) = 1 (almost everywhere)
        lambda g, a, b: -g * div_rounding_op(a, b, rounding_mode="trunc"),  # d/db = -trunc(a/b)
    ),
    jvp=(lambda t: t, lambda t, a, b: -t * div_rounding_op(a, b, rounding_mode="trunc")),
    conventions="d/da = 1 and d/db = -trunc(a/b) everywhere, the jumps included.",
)
div_rounding_op = defop(
    "div_rounding", _div_rounding, args=("a", "b"), dtypes=_divides("div_{}_cpu"),
    node="DivBackward2",
    vjp=(
        lambda g: ew.zero(g),  # d/da ⌊a/b⌋ = 0 (almost everywhere)
        lambda g: ew.zero(g),  # d/db ⌊a/b⌋ = 0 (almost everywhere)
    ),
    jvp=(lambda t: ew.zero(t), lambda t: ew.zero(t)),
    conventions="The derivative is 0 everywhere, as PyTorch's div(rounding_mode=...) gives.",
)


def _no_derivative(name: str):
    """PyTorch has no derivative for this op: its output requires grad, backward raises."""

    def vjp(g):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")

    def jvp(t):
        raise NotImplementedError(
            f"Trying to use forward AD with aten::{name} that does not support it."
        )

    return vjp, jvp


_FLOOR_DIVIDE = _no_derivative("floor_divide")
floor_divide_op = defop(
    "floor_divide", _floor_divide, args=("a", "b"), dtypes=_divides("div_floor_cpu"),
    node="NotImplemented",
    vjp=(_FLOOR_DIVIDE[0], _FLOOR_DIVIDE[0]),
    jvp=(_FLOOR_DIVIDE[1], _FLOOR_DIVIDE[1]),
    conventions="No derivative: backward raises, as in PyTorch (use div(rounding_mode='floor')"
    " for a zero gradient).",
)
_REMAINDER = _no_derivative("remainder")
remainder_scalar_tensor = defop(
    "remainder_scalar_tensor", _remainder, args=("a", "b"), dtypes=_divides("remainder_cpu"),
    node="NotImplemented",
    vjp=(_REMAINDER[0], _REMAINDER[0]),
    jvp=(_REMAINDER[1], _REMAINDER[1]),
    conventions="remainder(number, tensor) has no derivative in PyTorch: backward raises.",
)

# ----- logical, bitwise and predicates: no gradient ----------------------------------------

logical_and_op = defop("logical_and", xp.logical_and, args=("a", "b"), dtypes=KEEP,
                       vjp=(None, None))
logical_or_op = defop("logical_or", xp.logical_or, args=("a", "b"), dtypes=KEEP,
                      vjp=(None, None))
logical_xor_op = defop("logical_xor", xp.logical_xor, args=("a", "b"), dtypes=KEEP,
                       vjp=(None, None))
logical_not_op = defop("logical_not", xp.logical_not, dtypes=KEEP, vjp=None)
isnan_op = defop("isnan", xp.isnan, dtypes=KEEP, vjp=None)
isinf_op = defop("isinf", xp.isinf, dtypes=KEEP, vjp=None)
isfinite_op = defop("isfinite", xp.isfinite, dtypes=KEEP, vjp=None)


def _bitwise(name: str, fn):
    def forward(a, b):
        dtype = xp.result_type(a, b)
        if dtype.kind == "f":
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'Float\'')
        a = a.astype(dtype) if hasattr(a, "astype") else xp.asarray(a).astype(dtype)
        b = b.astype(dtype) if hasattr(b, "astype") else xp.asarray(b).astype(dtype)
        return fn(a, b)

    forward.__doc__ = f"{name}(a, b): logical on bools, bitwise on integers"
    return defop(name, forward, args=("a", "b"), vjp=(None, None))


bitwise_and_op = _bitwise("bitwise_and", xp.bitwise_and)
bitwise_or_op = _bitwise("bitwise_or", xp.bitwise_or)
bitwise_xor_op = _bitwise("bitwise_xor", xp.bitwise_xor)


def _bitwise_not(x):
    """~x: logical not on bools, two's complement not on integers"""
    if x.dtype.kind == "f":
        raise _not_implemented("bitwise_not_cpu", _dtype_of(x))
    return xp.invert(x)


def _dtype_of(arr):
    from .._dtypes import _FROM_NP

    return _FROM_NP[arr.dtype]


bitwise_not_op = defop("bitwise_not", _bitwise_not, dtypes=KEEP, vjp=None)




# ===== public functions, with PyTorch's signatures ==========================================


def _require_tensor(fn: str, value, position: int, name: str):
    """PyTorch's TypeError for a Python number (or anything else) where a tensor must be."""
    if not isinstance(value, Tensor):
        raise TypeError(
            f"{fn}(): argument '{name}' (position {position}) must be Tensor, "
            f"not {type(value).__name__}"
        )
    return value


def _named(function, name: str, doc: str):
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


def _unary(op):
    def function(input, *, out=None):  # noqa: A002
        return op(input)

    doc = f"Elementwise {op.name}." + (f" {op.conventions}" if op.conventions else "")
    return _named(function, op.name, doc)


exp2 = _unary(exp2_op)
expm1 = _unary(expm1_op)
log2 = _unary(log2_op)
log10 = _unary(log10_op)
log1p = _unary(log1p_op)
rsqrt = _unary(rsqrt_op)
tan = _unary(tan_op)
asin = arcsin = _unary(asin_op)
acos = arccos = _unary(acos_op)
atan = arctan = _unary(atan_op)
sinh = _unary(sinh_op)
cosh = _unary(cosh_op)
asinh = arcsinh = _unary(asinh_op)
acosh = arccosh = _unary(acosh_op)
atanh = arctanh = _unary(atanh_op)
erf = _unary(erf_op)
erfc = _unary(erfc_op)
floor = _unary(floor_op)
ceil = _unary(ceil_op)
trunc = fix = _unary(trunc_op)
frac = _unary(frac_op)


def square(input, *, out=None):  # noqa: A002
    """input ** 2, as PyTorch computes it (pow): integers stay integers, bool gives int64."""
    return ew.pow_scalar(input, exponent=2)


def round(input, *, decimals=None, out=None):  # noqa: A001, A002
    """input rounded half to even, to ``decimals`` decimal places (0 when not given)."""
    if decimals is None:
        return round_op(input)
    return round_op(input, decimals=int(decimals))


def clamp(input, min=None, max=None, *, out=None):  # noqa: A002
    """min(max(input, min), max); the bounds both Python numbers or both tensors (None for
    no bound). The gradient passes where min <= input <= max, at the bounds included."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    lo, hi = _bound(min), _bound(max)
    if isinstance(lo, Tensor) or isinstance(hi, Tensor):
        if not (lo is None or isinstance(lo, Tensor)) or not (hi is None or isinstance(hi, Tensor)):
            raise TypeError(
                "clamp() received an invalid combination of arguments - got (Tensor, "
                f"{type(lo).__name__}, {type(hi).__name__}): min and max are both tensors "
                "or both numbers (either may be None)"
            )
        return clamp_tensor(input, lo, hi)
    return clamp_scalar(input, min=lo, max=hi)


def _bound(b):
    if b is None or isinstance(b, (Tensor, int, float)):
        return b
    return _tensor_arg(b)


clip = clamp


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):  # noqa: A002
    """input with nan, +inf and -inf replaced (the infinities by the dtype's extremes unless
    given); the gradient is 0 at the replaced elements."""
    return nan_to_num_op(input, nan=nan, posinf=posinf, neginf=neginf)


def _tensors_only(op, name: str | None = None):
    name = name or op.name

    def function(input, other, *, out=None):  # noqa: A002
        _require_tensor(name, input, 1, "input")
        _require_tensor(name, other, 2, "other")
        return op(input, other)

    doc = f"Elementwise {name} of two tensors, broadcasting." + (
        f" {op.conventions}" if op.conventions else ""
    )
    return _named(function, name, doc)


maximum = _tensors_only(maximum_op)
minimum = _tensors_only(minimum_op)
fmax = _tensors_only(fmax_op)
fmin = _tensors_only(fmin_op)
atan2 = arctan2 = _tensors_only(atan2_op)
hypot = _tensors_only(hypot_op)
logical_and = _tensors_only(logical_and_op)
logical_or = _tensors_only(logical_or_op)
logical_xor = _tensors_only(logical_xor_op)


def lerp(input, end, weight, *, out=None):  # noqa: A002
    """input + weight (end - input); weight a Python number or a tensor, broadcasting."""
    _require_tensor("lerp", input, 1, "input")
    _require_tensor("lerp", end, 2, "end")
    if not isinstance(weight, (int, float)):
        weight = _require_tensor("lerp", _tensor_arg(weight), 3, "weight")
    return lerp_op(input, end, weight)


def remainder(input, other, *, out=None):  # noqa: A002
    """input - other ⌊input/other⌋ (the sign of other, as Python's %); input or other may
    be a Python number. (PyTorch has no derivative for remainder(number, tensor).)"""
    if not isinstance(input, Tensor):
        return remainder_scalar_tensor(input, _require_tensor("remainder", other, 2, "other"))
    return remainder_op(input, _tensor_arg(other))


def fmod(input, other, *, out=None):  # noqa: A002
    """input - other trunc(input/other) (the sign of input, as C's fmod)."""
    _require_tensor("fmod", input, 1, "input")
    return fmod_op(input, _tensor_arg(other))


def floor_divide(input, other, *, out=None):  # noqa: A002
    """⌊input / other⌋; integers stay integers. PyTorch has no derivative for it (backward
    raises): div(input, other, rounding_mode='floor') has the zero gradient."""
    if not isinstance(input, Tensor):
        _require_tensor("floor_divide", other, 2, "other")
    return floor_divide_op(_tensor_arg(input), _tensor_arg(other))


def rounded_div(input, other, rounding_mode):
    """div(input, other, rounding_mode='trunc' or 'floor'): functions.div calls this."""
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"'{rounding_mode}'"
        )
    return div_rounding_op(_tensor_arg(input), _tensor_arg(other), rounding_mode=rounding_mode)


def _predicate(op, doc: str):
    def function(input, *, out=None):  # noqa: A002
        return op(_require_tensor(op.name, input, 1, "input"))

    return _named(function, op.name, doc)


logical_not = _predicate(logical_not_op, "not input (nonzero is True): a bool tensor.")
isnan = _predicate(isnan_op, "True where input is nan: a bool tensor.")
isinf = _predicate(isinf_op, "True where input is +inf or -inf: a bool tensor.")
isfinite = _predicate(isfinite_op, "True where input is neither nan nor ±inf: a bool tensor.")
bitwise_not = _predicate(bitwise_not_op, "~input: logical on bools, bitwise on integers.")


def _bitwise_function(op):
    def function(input, other, *, out=None):  # noqa: A002
        return op(_tensor_arg(input), _tensor_arg(other))

    return _named(function, op.name, f"{op.name}: logical on bools, bitwise on integers.")


bitwise_and = _bitwise_function(bitwise_and_op)
bitwise_or = _bitwise_function(bitwise_or_op)
bitwise_xor = _bitwise_function(bitwise_xor_op)


# ===== Tensor methods and operators (methods.py adds these to its table) ==================


def _operator(fn, reflected: bool = False):
    """``self <op> other``, or ``other <op> self`` for a reflected operator."""

    def method(self, other):
        if other is None:
            return NotImplemented
        if not isinstance(other, (Tensor, int, float, bool)):
            other = _tensor_arg(other)
        return fn(other, self) if reflected else fn(self, other)

    return method


def _invert(self):
    if self._dtype._category == 2:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return bitwise_not(self)


def _round_method(self, *, decimals=None):
    return round(self, decimals=decimals)


_WITH_INPLACE = {
    "exp2": exp2, "expm1": expm1, "log2": log2, "log10": log10, "log1p": log1p,
    "rsqrt": rsqrt, "square": square, "tan": tan,
    "asin": asin, "acos": acos, "atan": atan, "arcsin": asin, "arccos": acos, "arctan": atan,
    "sinh": sinh, "cosh": cosh, "asinh": asinh, "acosh": acosh, "atanh": atanh,
    "arcsinh": asinh, "arccosh": acosh, "arctanh": atanh,
    "erf": erf, "erfc": erfc,
    "floor": floor, "ceil": ceil, "trunc": trunc, "fix": trunc, "frac": frac,
    "round": _round_method, "clamp": clamp, "clip": clamp, "nan_to_num": nan_to_num,
    "atan2": atan2, "arctan2": atan2, "hypot": hypot, "lerp": lerp,
    "remainder": remainder, "fmod": fmod, "floor_divide": floor_divide,
    "logical_and": logical_and, "logical_or": logical_or, "logical_xor": logical_xor,
    "logical_not": logical_not,
    "bitwise_and": bitwise_and, "bitwise_or": bitwise_or, "bitwise_xor": bitwise_xor,
    "bitwise_not": bitwise_not,
}  # fmt: skip

TENSOR_METHODS = {
    **_WITH_INPLACE,
    **{name + "_": inplace(fn) for name, fn in _WITH_INPLACE.items()},
    "maximum": maximum,
    "minimum": minimum,
    "fmax": fmax,
    "fmin": fmin,
    "isnan": isnan,
    "isinf": isinf,
    "isfinite": isfinite,
    "__invert__": _invert,
    "__and__": _operator(bitwise_and),
    "__rand__": _operator(bitwise_and, reflected=True),
    "__or__": _operator(bitwise_or),
    "__ror__": _operator(bitwise_or, reflected=True),
    "__xor__": _operator(bitwise_xor),
    "__rxor__": _operator(bitwise_xor, reflected=True),
    "__mod__": _operator(remainder),
    "__rmod__": _operator(remainder, reflected=True),
    "__floordiv__": _operator(floor_divide),
    "__rfloordiv__": _operator(floor_divide, reflected=True),
    "__iand__": inplace(bitwise_and),
    "__ior__": inplace(bitwise_or),
    "__ixor__": inplace(bitwise_xor),
    "__imod__": inplace(remainder),
    "__ifloordiv__": inplace(floor_divide),
}
