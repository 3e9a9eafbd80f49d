"""Pointwise ops beyond the basic arithmetic of elementwise.py: exponentials and logs,
trigonometric and hyperbolic functions, erf and erfinv, the gamma family (lgamma, digamma,
polygamma), modified Bessel functions, rounding, clamping, the binary ops with PyTorch's
tie and NaN conventions (maximum, fmax, atan2, lerp, remainder, xlogy, logaddexp, ...), and
the logical, bitwise and predicate ops (bool or integer results, no gradient).

Each op is one ``defop`` entry (see docs/architecture.md): the forward on arrays, one VJP
and one JVP per input written with chainrule's own ops (so ``create_graph`` works), the
derivative in a comment beside each, and the subgradient at every kink in
``conventions``. The public functions with PyTorch's signatures follow the ops (with
PyTorch's ``out=``), and ``TENSOR_METHODS`` lists the Tensor methods and operators they
provide, the ``_`` in-place variant of each elementwise op included (also for the basic
ops of functions.py: ``exp_``, ``pow_``, ``eq_``, ...).
"""

from __future__ import annotations

import functools
import math
import warnings

from .._backend import xp
from .._dtypes import float16, float32, float64
from .._promotion import result_type
from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd.inplace import inplace as _inplace
from ..autograd.recording import FLOAT, KEEP, defop
from . import activations as act
from . import elementwise as ew
from . import functions as fn
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
    return NotImplementedError(f"\"{kernel}\" not implemented for '{_SCALAR_TYPE[dtype.name]}'")


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
    "exp2",
    xp.exp2,
    dtypes=FLOAT,
    vjp=lambda g, ans: g * (ans * _LN2),  # d/dx 2^x = 2^x ln 2
    jvp=lambda t, ans: t * (ans * _LN2),
)
expm1_op = defop(
    "expm1",
    xp.expm1,
    dtypes=FLOAT,
    vjp=lambda g, ans: g * (ans + 1),  # d/dx (e^x - 1) = e^x = ans + 1
    jvp=lambda t, ans: t * (ans + 1),
)
log2_op = defop(
    "log2",
    xp.log2,
    dtypes=FLOAT,
    vjp=lambda g, x: g / (x * _LN2),  # d/dx log2 x = 1 / (x ln 2)
    jvp=lambda t, x: t / (x * _LN2),
)
log10_op = defop(
    "log10",
    xp.log10,
    dtypes=FLOAT,
    vjp=lambda g, x: g / (x * _LN10),  # d/dx log10 x = 1 / (x ln 10)
    jvp=lambda t, x: t / (x * _LN10),
)
log1p_op = defop(
    "log1p",
    xp.log1p,
    dtypes=FLOAT,
    node="Log1PBackward0",
    vjp=lambda g, x: g / (x + 1),  # d/dx ln(1 + x) = 1 / (1 + x)
    jvp=lambda t, x: t / (x + 1),
)


def _rsqrt(x):
    """1 / √x"""
    return xp.reciprocal(xp.sqrt(x))


rsqrt_op = defop(
    "rsqrt",
    _rsqrt,
    dtypes=FLOAT,
    vjp=lambda g, ans: g * (ans * ans * ans * -0.5),  # d/dx x^(-1/2) = -x^(-3/2) / 2
    jvp=lambda t, ans: t * (ans * ans * ans * -0.5),
    conventions="At x = 0 the gradient is -inf, as in PyTorch.",
)

# ----- trigonometric and hyperbolic -------------------------------------------------------

tan_op = defop(
    "tan",
    xp.tan,
    dtypes=FLOAT,
    vjp=lambda g, ans: g * (ans * ans + 1),  # d/dx tan x = 1 + tan² x
    jvp=lambda t, ans: t * (ans * ans + 1),
)
asin_op = defop(
    "asin",
    xp.arcsin,
    dtypes=FLOAT,
    vjp=lambda g, x: g * rsqrt_op(1 - x * x),  # d/dx asin x = 1 / √(1 - x²)
    jvp=lambda t, x: t * rsqrt_op(1 - x * x),
)
acos_op = defop(
    "acos",
    xp.arccos,
    dtypes=FLOAT,
    vjp=lambda g, x: g * -rsqrt_op(1 - x * x),  # d/dx acos x = -1 / √(1 - x²)
    jvp=lambda t, x: t * -rsqrt_op(1 - x * x),
)
atan_op = defop(
    "atan",
    xp.arctan,
    dtypes=FLOAT,
    vjp=lambda g, x: g / (x * x + 1),  # d/dx atan x = 1 / (1 + x²)
    jvp=lambda t, x: t / (x * x + 1),
)
sinh_op = defop(
    "sinh",
    xp.sinh,
    dtypes=FLOAT,
    vjp=lambda g, x: g * cosh_op(x),  # d/dx sinh x = cosh x
    jvp=lambda t, x: t * cosh_op(x),
)
cosh_op = defop(
    "cosh",
    xp.cosh,
    dtypes=FLOAT,
    vjp=lambda g, x: g * sinh_op(x),  # d/dx cosh x = sinh x
    jvp=lambda t, x: t * sinh_op(x),
)
asinh_op = defop(
    "asinh",
    xp.arcsinh,
    dtypes=FLOAT,
    vjp=lambda g, x: g * rsqrt_op(x * x + 1),  # d/dx asinh x = 1 / √(x² + 1)
    jvp=lambda t, x: t * rsqrt_op(x * x + 1),
)
acosh_op = defop(
    "acosh",
    xp.arccosh,
    dtypes=FLOAT,
    vjp=lambda g, x: g * rsqrt_op(x * x - 1),  # d/dx acosh x = 1 / √(x² - 1)
    jvp=lambda t, x: t * rsqrt_op(x * x - 1),
)
atanh_op = defop(
    "atanh",
    xp.arctanh,
    dtypes=FLOAT,
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
_PP = (
    1.28379167095512558561e-01,
    -3.25042107247001499370e-01,
    -2.84817495755985104766e-02,
    -5.77027029648944159157e-03,
    -2.37630166566501626084e-05,
)
_QQ = (
    1.0,
    3.97917223959155352819e-01,
    6.50222499887672944485e-02,
    5.08130628187576562776e-03,
    1.32494738004321644526e-04,
    -3.96022827877536812320e-06,
)
# erf(1 + s) = erx + P(s)/Q(s) on [0.84375, 1.25)
_PA = (
    -2.36211856075265944077e-03,
    4.14856118683748331666e-01,
    -3.72207876035701323847e-01,
    3.18346619901161753674e-01,
    -1.10894694282396677476e-01,
    3.54783043256182359371e-02,
    -2.16637559486879084300e-03,
)
_QA = (
    1.0,
    1.06420880400844228286e-01,
    5.40397917702171048937e-01,
    7.18286544141962662868e-02,
    1.26171219808761642112e-01,
    1.36370839120290507362e-02,
    1.19844998467991074170e-02,
)
# erfc(x) = exp(-x² - 0.5625 + R(1/x²)/S(1/x²)) / x on [1.25, 1/0.35)
_RA = (
    -9.86494403484714822705e-03,
    -6.93858572707181764372e-01,
    -1.05586262253232909814e01,
    -6.23753324503260060396e01,
    -1.62396669462573470355e02,
    -1.84605092906711035994e02,
    -8.12874355063065934246e01,
    -9.81432934416914548592e00,
)
_SA = (
    1.0,
    1.96512716674392571292e01,
    1.37657754143519042600e02,
    4.34565877475229228821e02,
    6.45387271733267880336e02,
    4.29008140027567833386e02,
    1.08635005541779435134e02,
    6.57024977031928170135e00,
    -6.04244152148580987438e-02,
)
# ... and on [1/0.35, 28)
_RB = (
    -9.86494292470009928597e-03,
    -7.99283237680523006574e-01,
    -1.77579549177547519889e01,
    -1.60636384855821916062e02,
    -6.37566443368389627722e02,
    -1.02509513161107724954e03,
    -4.83519191608651397019e02,
)
_SB = (
    1.0,
    3.03380607434824582924e01,
    3.25792512996573918826e02,
    1.53672958608443695994e03,
    3.19985821950859553908e03,
    2.55305040643316442583e03,
    4.74528541206955367215e02,
    -2.24409524465858183362e01,
)


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
            rs = xp.where(
                near, _horner(w, _RA) / _horner(w, _SA), _horner(w, _RB) / _horner(w, _SB)
            )
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
    "erf",
    _erf,
    dtypes=FLOAT,
    vjp=lambda g, x: g * (ew.exp(-(x * x)) * _TWO_OVER_SQRT_PI),  # d/dx erf x = 2/√π e^(-x²)
    jvp=lambda t, x: t * (ew.exp(-(x * x)) * _TWO_OVER_SQRT_PI),
)
erfc_op = defop(
    "erfc",
    _erfc,
    dtypes=FLOAT,
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


_STEP = "The derivative is 0 everywhere, the jumps included (PyTorch's zeros_like(grad))."
floor_op = defop(
    "floor",
    _whole(xp.floor),
    dtypes=_rounding_dtype("floor_vml_cpu"),
    vjp=lambda g: ew.zero(g),  # d/dx ⌊x⌋ = 0 (almost everywhere)
    jvp=lambda t: ew.zero(t),
    conventions=_STEP,
)
ceil_op = defop(
    "ceil",
    _whole(xp.ceil),
    dtypes=_rounding_dtype("ceil_vml_cpu"),
    vjp=lambda g: ew.zero(g),  # d/dx ⌈x⌉ = 0 (almost everywhere)
    jvp=lambda t: ew.zero(t),
    conventions=_STEP,
)
trunc_op = defop(
    "trunc",
    _whole(xp.trunc),
    dtypes=_rounding_dtype("trunc_vml_cpu"),
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
    "round",
    _round,
    dtypes=_rounding_dtype("round_vml_cpu"),
    node=lambda x, **params: "RoundBackward1" if "decimals" in params else "RoundBackward0",
    vjp=lambda g: ew.zero(g),  # d/dx round(x) = 0 (almost everywhere)
    jvp=lambda t: ew.zero(t),
    conventions=_STEP + " Ties round half to even.",
)


def _frac(x):
    """x - trunc(x): the fractional part, with x's sign"""
    return x - xp.trunc(x)


frac_op = defop(
    "frac",
    _frac,
    dtypes=_float_only("frac_cpu"),
    vjp=lambda g: g,  # d/dx (x - trunc x) = 1 (almost everywhere)
    jvp=lambda t: t,
    conventions="The derivative is 1 everywhere, the jumps at integers included.",
)

# ----- clamping -------------------------------------------------------------------------


def _clamp(x, lo=None, hi=None):
    """min(max(x, lo), hi), a bound left out when None; lo > hi gives hi, as in PyTorch"""
    if x.dtype is ew.F16:  # (float tensors skip the dtype rule, which checks the rest)
        ew.check_scalar_fits(lo, float16)
        ew.check_scalar_fits(hi, float16)
    lo, hi = ew.wrap_int(lo, x), ew.wrap_int(hi, x)
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


def _clamp_scalar_dtype(args, params):
    """Promotion of input and bounds; PyTorch has no kernel for bool."""
    lo, hi = params.get("min"), params.get("max")
    dtype = result_type((args[0], lo, hi))
    ew.check_scalar_fits(lo, dtype)
    ew.check_scalar_fits(hi, dtype)
    if dtype._category == 0:
        kernel = "clamp_max_scalar_cpu" if lo is None else "clamp_min_scalar_cpu"
        raise _not_implemented(
            "clamp_scalar_cpu" if lo is not None and hi is not None else kernel, dtype
        )
    return dtype


clamp_scalar = defop(
    "clamp",
    _clamp_scalar,
    node="ClampBackward1",
    dtypes=_clamp_scalar_dtype,
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
    "clamp_tensor",
    _clamp,
    args=("x", "lo", "hi"),
    node="ClampBackward0",
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
    "nan_to_num",
    _nan_to_num,
    node="NanToNumBackward0",
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
    "maximum",
    xp.maximum,
    args=("a", "b"),
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
    "minimum",
    xp.minimum,
    args=("a", "b"),
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
    "fmax",
    xp.fmax,
    args=("a", "b"),
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
    "fmin",
    xp.fmin,
    args=("a", "b"),
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
    # d/db atan2(a, b) = -a / (a² + b²)   (negated last: a may be a bool)
    return -(g * (a / (a * a + b * b)))


atan2_op = defop(
    "atan2",
    xp.arctan2,
    args=("a", "b"),
    dtypes=FLOAT,
    vjp=(_atan2_a, _atan2_b),
    jvp=(_atan2_a, _atan2_b),  # elementwise: VJP and JVP coincide
    conventions="At a = b = 0 the gradient is nan (0/0), as in PyTorch.",
)
hypot_op = defop(
    "hypot",
    xp.hypot,
    args=("a", "b"),
    dtypes=_float_only("hypot_cpu"),
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
    "lerp",
    _lerp,
    args=("start", "end", "weight"),
    dtypes=_lerp_dtype,
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
    "remainder",
    _remainder,
    args=("a", "b"),
    dtypes=_divides("remainder_cpu"),
    node=_remainder_node,
    vjp=(
        lambda g: g,  # d/da (a - b⌊a/b⌋) = 1 (almost everywhere)
        lambda g, a, b: -g * div_rounding_op(a, b, rounding_mode="floor"),  # d/db = -⌊a/b⌋
    ),
    jvp=(lambda t: t, lambda t, a, b: -t * div_rounding_op(a, b, rounding_mode="floor")),
    conventions="d/da = 1 and d/db = -⌊a/b⌋ everywhere, the jumps where b divides a included.",
)
fmod_op = defop(
    "fmod",
    _fmod,
    args=("a", "b"),
    dtypes=_divides("fmod_cpu"),
    node=_fmod_node,
    vjp=(
        lambda g: g,  # d/da (a - b trunc(a/b)) = 1 (almost everywhere)
        lambda g, a, b: -g * div_rounding_op(a, b, rounding_mode="trunc"),  # d/db = -trunc(a/b)
    ),
    jvp=(lambda t: t, lambda t, a, b: -t * div_rounding_op(a, b, rounding_mode="trunc")),
    conventions="d/da = 1 and d/db = -trunc(a/b) everywhere, the jumps included.",
)
div_rounding_op = defop(
    "div_rounding",
    _div_rounding,
    args=("a", "b"),
    dtypes=_divides("div_{}_cpu"),
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
    "floor_divide",
    _floor_divide,
    args=("a", "b"),
    dtypes=_divides("div_floor_cpu"),
    node="NotImplemented",
    vjp=(_FLOOR_DIVIDE[0], _FLOOR_DIVIDE[0]),
    jvp=(_FLOOR_DIVIDE[1], _FLOOR_DIVIDE[1]),
    conventions="No derivative: backward raises, as in PyTorch (use div(rounding_mode='floor')"
    " for a zero gradient).",
)
_REMAINDER = _no_derivative("remainder")
remainder_scalar_tensor = defop(
    "remainder_scalar_tensor",
    _remainder,
    args=("a", "b"),
    dtypes=_divides("remainder_cpu"),
    node="NotImplemented",
    vjp=(_REMAINDER[0], _REMAINDER[0]),
    jvp=(_REMAINDER[1], _REMAINDER[1]),
    conventions="remainder(number, tensor) has no derivative in PyTorch: backward raises.",
)

# ----- logical, bitwise and predicates: no gradient ----------------------------------------

logical_and_op = defop(
    "logical_and", xp.logical_and, args=("a", "b"), dtypes=KEEP, vjp=(None, None)
)
logical_or_op = defop("logical_or", xp.logical_or, args=("a", "b"), dtypes=KEEP, vjp=(None, None))
logical_xor_op = defop(
    "logical_xor", xp.logical_xor, args=("a", "b"), dtypes=KEEP, vjp=(None, None)
)
logical_not_op = defop("logical_not", xp.logical_not, dtypes=KEEP, vjp=None)
isnan_op = defop("isnan", xp.isnan, dtypes=KEEP, vjp=None)
isinf_op = defop("isinf", xp.isinf, dtypes=KEEP, vjp=None)
isfinite_op = defop("isfinite", xp.isfinite, dtypes=KEEP, vjp=None)


def _bitwise(name: str, fn):
    def forward(a, b):
        dtype = xp.result_type(a, b)
        if dtype.kind == "f":
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for 'Float'")
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


# ----- more pointwise ops: sgn, one-sided clamps, xlogy, logaddexp, logit, copysign, ... ---

sgn_op = defop(
    "sgn",
    ew.sign.forward,
    vjp=lambda g: ew.zero(g),  # d/dx sgn x = 0 (almost everywhere)
    jvp=lambda t: ew.zero(t),
    conventions=_STEP,
)


def _clamp_min(x, min=0.0):  # noqa: A002 - PyTorch's name
    """max(x, min), min a Python number"""
    if x.dtype is ew.F16:
        ew.check_scalar_fits(min, float16)
    return xp.maximum(x, ew.wrap_int(min, x))


def _clamp_max(x, max=0.0):  # noqa: A002
    """min(x, max), max a Python number"""
    if x.dtype is ew.F16:
        ew.check_scalar_fits(max, float16)
    return xp.minimum(x, ew.wrap_int(max, x))


def _one_bound_dtype(name: str):
    def rule(args, params):
        bound = params.get(name)
        dtype = result_type((args[0], bound))
        ew.check_scalar_fits(bound, dtype)
        return dtype

    return rule


def _clamp_lo(x, lo):
    """max(x, lo), lo a tensor"""
    return xp.maximum(x, lo)


def _clamp_hi(x, hi):
    """min(x, hi), hi a tensor"""
    return xp.minimum(x, hi)


def _logaddexp(a, b):
    """ln(e^a + e^b), without overflow"""
    return xp.logaddexp(a, b)


def _copysign(a, b):
    """|a| with the sign of b"""
    return xp.copysign(a, b)


_ONE_SIDED = "The gradient passes at the bound itself (x = bound), as in PyTorch."
clamp_min_scalar = defop(
    "clamp_min",
    _clamp_min,
    node="ClampMinBackward0",
    dtypes=_one_bound_dtype("min"),
    vjp=lambda g, x, min: _where(x >= min, g, 0),  # d/dx max(x, m) = [x ≥ m]
    jvp=lambda t, x, min: _where(x >= min, t, 0),
    conventions=_ONE_SIDED,
)
clamp_max_scalar = defop(
    "clamp_max",
    _clamp_max,
    node="ClampMaxBackward0",
    dtypes=_one_bound_dtype("max"),
    vjp=lambda g, x, max: _where(x <= max, g, 0),  # d/dx min(x, m) = [x ≤ m]
    jvp=lambda t, x, max: _where(x <= max, t, 0),
    conventions=_ONE_SIDED,
)
clamp_min_tensor = defop(
    "clamp_min_tensor",
    _clamp_lo,
    args=("x", "lo"),
    node="ClampMinBackward1",
    vjp=(
        lambda g, x, lo: _where(x >= lo, g, 0),  # d/dx max(x, lo) = [x ≥ lo]
        lambda g, x, lo: _where(x < lo, g, 0),  # d/dlo max(x, lo) = [x < lo]
    ),
    jvp=(lambda t, x, lo: _where(x >= lo, t, 0), lambda t, x, lo: _where(x < lo, t, 0)),
    conventions=_ONE_SIDED + " The bound gets the gradient where x < lo.",
)
clamp_max_tensor = defop(
    "clamp_max_tensor",
    _clamp_hi,
    args=("x", "hi"),
    node="ClampMaxBackward1",
    vjp=(
        lambda g, x, hi: _where(x <= hi, g, 0),  # d/dx min(x, hi) = [x ≤ hi]
        lambda g, x, hi: _where(x > hi, g, 0),  # d/dhi min(x, hi) = [x > hi]
    ),
    jvp=(lambda t, x, hi: _where(x <= hi, t, 0), lambda t, x, hi: _where(x > hi, t, 0)),
    conventions=_ONE_SIDED + " The bound gets the gradient where x > hi.",
)


def _xlogy(a, b):
    """a · ln b, 0 where a = 0 (unless b is nan)"""
    if not hasattr(b, "dtype"):  # a Python number: computed in a's (floating) dtype
        b = xp.asarray(b, dtype=a.dtype if a.dtype.kind == "f" else xp.float64)
    out = a * xp.log(ew.as_float(b))
    return xp.where((xp.asarray(a) == 0) & ~xp.isnan(b), xp.zeros_like(out), out)


def _xlogy_node(a, b):
    if not hasattr(a, "shape"):
        return "XlogyBackward1"
    return "XlogyBackward0" if hasattr(b, "shape") else "XlogyBackward2"


def _xlogy_da(g, a, b):
    # d/da a ln b = ln b, 0 where a = 0 (PyTorch's xlogy(a != 0, b)). A Python number b
    # is taken in g's dtype, as the forward takes it in a's: xlogy(bool, 2.5) alone would
    # compute ln 2.5 in the default float32.
    if not hasattr(b, "dtype"):
        b = xp.asarray(b, dtype=(g._data if isinstance(g, Tensor) else xp.asarray(g)).dtype)
    return g * xlogy_op(a != 0, b)


xlogy_op = defop(
    "xlogy",
    _xlogy,
    args=("a", "b"),
    dtypes=FLOAT,
    node=_xlogy_node,
    vjp=(
        _xlogy_da,  # d/da a ln b = ln b (0 where a = 0)
        lambda g, a, b: g * (a / b),  # d/db a ln b = a / b
    ),
    jvp=(_xlogy_da, lambda t, a, b: t * (a / b)),
    conventions="d/da at a = 0 is 0 (PyTorch's xlogy(a != 0, b)).",
)


def _logaddexp2(a, b):
    """log2(2^a + 2^b)"""
    return xp.logaddexp2(a, b)


logaddexp_op = defop(
    "logaddexp",
    _logaddexp,
    args=("a", "b"),
    dtypes=_float_only("logaddexp_cpu"),
    vjp=(
        lambda g, a, b: g * ew.sigmoid(a - b),  # d/da ln(e^a + e^b) = σ(a - b)
        lambda g, a, b: g * ew.sigmoid(b - a),
    ),
    jvp=(lambda t, a, b: t * ew.sigmoid(a - b), lambda t, a, b: t * ew.sigmoid(b - a)),
)
logaddexp2_op = defop(
    "logaddexp2",
    _logaddexp2,
    args=("a", "b"),
    dtypes=_float_only("logaddexp2_cpu"),
    vjp=(
        lambda g, a, b: g * ew.sigmoid((a - b) * _LN2),  # d/da log2(2^a + 2^b) = σ((a-b) ln 2)
        lambda g, a, b: g * ew.sigmoid((b - a) * _LN2),
    ),
    jvp=(
        lambda t, a, b: t * ew.sigmoid((a - b) * _LN2),
        lambda t, a, b: t * ew.sigmoid((b - a) * _LN2),
    ),
)


def _logit(x, eps=None):
    """ln(x / (1 - x)), x first clamped to [eps, 1 - eps] when eps is given"""
    if eps is not None:
        x = xp.clip(x, eps, 1 - eps)
    return xp.log(x / (1 - x))


def _logit_vjp(g, x, eps):
    # d/dx ln(x / (1 - x)) = 1 / (x (1 - x)); outside [eps, 1 - eps] 0 (nan outside [0, 1]
    # without eps), as PyTorch
    inside = g / (x * (1 - x))
    lo, hi, outside = (0.0, 1.0, math.nan) if eps is None else (eps, 1 - eps, 0.0)
    return _where(logical_or_op(x < lo, x > hi), outside, inside)


logit_op = defop(
    "logit",
    _logit,
    dtypes=FLOAT,
    vjp=_logit_vjp,
    jvp=_logit_vjp,
    conventions="With eps, the gradient is 0 where x < eps or x > 1 - eps (the clamped "
    "region, its bounds excluded); without, nan outside [0, 1].",
)


def _copysign_node(a, b):
    return "CopysignBackward0" if hasattr(b, "shape") else "CopysignBackward1"


def _copysign_vjp(g, a, ans):
    # d/da copysign(a, b) = ±1: the result's sign over a's (0 where a = 0, as PyTorch)
    return _where(a == 0, 0.0, g * (ans / _where(a == 0, 1.0, a)))


copysign_op = defop(
    "copysign",
    _copysign,
    args=("a", "b"),
    dtypes=FLOAT,
    node=_copysign_node,
    vjp=(_copysign_vjp, lambda g: ew.zero(g)),  # d/db = 0
    jvp=(_copysign_vjp, lambda t: ew.zero(t)),
    conventions="d/da is 0 at a = 0; the sign source b has gradient 0.",
)
_DEG = math.pi / 180.0


def _deg2rad(x):
    """x · π/180"""
    return x * x.dtype.type(_DEG)


def _rad2deg(x):
    """x · 180/π"""
    return x * x.dtype.type(1 / _DEG)


deg2rad_op = defop(
    "deg2rad",
    _deg2rad,
    dtypes=FLOAT,
    node="Deg2RadBackward0",
    vjp=lambda g: g * _DEG,  # d/dx (π/180) x = π/180
    jvp=lambda t: t * _DEG,
)
rad2deg_op = defop(
    "rad2deg",
    _rad2deg,
    dtypes=FLOAT,
    node="Rad2DegBackward0",
    vjp=lambda g: g * (1 / _DEG),  # d/dx (180/π) x = 180/π
    jvp=lambda t: t * (1 / _DEG),
)


def _sinc(x):
    """sin(πx) / (πx), 1 at x = 0"""
    px = x * x.dtype.type(math.pi)
    return xp.where(x == 0, xp.ones_like(px), xp.sin(px) / xp.where(x == 0, 1, px))


def _sinc_vjp(g, x):
    # d/dx sin(πx)/(πx) = (πx cos(πx) - sin(πx)) / (πx²), 0 at x = 0 (x = 1 stands in there,
    # so no 0/0 reaches a higher derivative)
    zero = x == 0
    safe = _where(zero, 1.0, x)
    px = safe * math.pi
    return _where(zero, 0.0, g * ((px * ew.cos(px) - ew.sin(px)) / (px * safe)))


sinc_op = defop(
    "sinc",
    _sinc,
    dtypes=FLOAT,
    vjp=_sinc_vjp,
    jvp=_sinc_vjp,
    conventions="sinc'(0) = 0.",
)


def _ldexp(a, b):
    """a · 2^b"""
    return a * xp.exp2(b)


ldexp_op = defop(
    "ldexp",
    _ldexp,
    args=("a", "b"),
    dtypes=FLOAT,
    vjp=(
        lambda g, b: g * exp2_op(ew.as_float(b)),  # d/da a 2^b = 2^b
        lambda g, ans: g * (ans * _LN2),  # d/db a 2^b = a 2^b ln 2
    ),
    jvp=(lambda t, b: t * exp2_op(ew.as_float(b)), lambda t, ans: t * (ans * _LN2)),
)


def _same_dtype(message: str):
    """A dtype rule: both inputs must have one dtype (PyTorch's RuntimeError otherwise)."""

    def rule(args, params):
        a, b = args
        if a._dtype is not b._dtype:
            raise RuntimeError(
                message.format(a=_SCALAR_TYPE[a._dtype.name], b=_SCALAR_TYPE[b._dtype.name])
            )
        return a._dtype

    return rule


def _heaviside(x, values):
    """0 for x < 0, values for x = 0, 1 for x > 0"""
    return xp.where(x == 0, values, (x > 0).astype(x.dtype)).astype(x.dtype)


_HEAVISIDE = _no_derivative("heaviside")
heaviside_op = defop(
    "heaviside",
    _heaviside,
    args=("x", "values"),
    node="NotImplemented",
    dtypes=_same_dtype("heaviside is not yet implemented for tensors with different dtypes."),
    vjp=(_HEAVISIDE[0], _HEAVISIDE[0]),
    jvp=(_HEAVISIDE[1], _HEAVISIDE[1]),
    conventions="No derivative: backward raises, as in PyTorch.",
)


def _signbit(x):
    """True where x's sign bit is set (-0.0 and -nan included)"""
    return xp.signbit(x)


def _isposinf(x):
    """True where x is +inf"""
    return xp.isposinf(x)


def _isneginf(x):
    """True where x is -inf"""
    return xp.isneginf(x)


signbit_op = defop("signbit", _signbit, dtypes=KEEP, vjp=None)
isposinf_op = defop("isposinf", _isposinf, dtypes=KEEP, vjp=None)
isneginf_op = defop("isneginf", _isneginf, dtypes=KEEP, vjp=None)


def _isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|a - b| <= atol + rtol |b| (infinities equal only to themselves)"""
    return xp.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


isclose_op = defop(
    "isclose",
    _isclose,
    args=("a", "b"),
    vjp=(None, None),
    dtypes=_same_dtype("{a} did not match {b}"),
)


def _comparison_inplace(name: str, fn):
    """``x.eq_(y)``: the comparison written into x; for a float x, its gradient is 0."""

    def forward(a, b, dtype=None):
        out = fn(a, b)
        return out if dtype is None else out.astype(dtype)

    forward.__doc__ = f"{name}(a, b), as 1 and 0 of ``dtype`` when given"
    return defop(
        f"{name}_",
        forward,
        args=("a", "b"),
        node=f"{name.capitalize()}Backward0",
        vjp=(lambda g: ew.zero(g), lambda g: ew.zero(g)),  # a step function of a and b
        jvp=(lambda t: ew.zero(t), lambda t: ew.zero(t)),
        conventions="The gradient is 0 everywhere, as PyTorch's.",
    )


_COMPARE_INPLACE = {
    name: _comparison_inplace(name, getattr(ew, name).forward)
    for name in ("eq", "ne", "lt", "le", "gt", "ge")
}


def _nextafter(a, b):
    """the next floating value after a in the direction of b"""
    return xp.nextafter(a, b)


nextafter_op = defop(
    "nextafter",
    _nextafter,
    args=("a", "b"),
    dtypes=_float_only("nextafter_cpu"),
    vjp=(lambda g: g, lambda g: ew.zero(g)),  # d/da = 1, d/db = 0 (PyTorch's: a step of an ulp)
    jvp=(lambda t: t, lambda t: ew.zero(t)),
)


def _shift(name: str, left: bool):
    def forward(a, b):
        dtype = xp.result_type(a, b)
        if dtype.kind == "b":
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for 'Bool'")
        if dtype.kind == "f":
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for 'Float'")
        a = xp.asarray(a).astype(dtype)
        b = xp.asarray(b).astype(dtype)
        bits = dtype.itemsize * 8
        wide = b >= bits  # shifting by the width or more: 0, or the sign, as PyTorch
        b = xp.where(wide, 0, b)
        if left:
            return xp.where(wide, 0, xp.left_shift(a, b)).astype(dtype)
        return xp.where(wide, xp.where(a < 0, -1, 0), xp.right_shift(a, b)).astype(dtype)

    forward.__doc__ = f"a {'<<' if left else '>>'} b on integers"
    return defop(
        f"bitwise_{'left' if left else 'right'}_shift", forward, args=("a", "b"), vjp=(None, None)
    )


bitwise_left_shift_op = _shift("lshift", True)
bitwise_right_shift_op = _shift("rshift", False)


# ----- the gamma family and erfinv ----------------------------------------------------------
#
# Computed in float64 and cast to the input's dtype. lgamma uses Python's math.lgamma per
# element (exact to an ulp or two; a Python loop, so it is slow on large tensors); digamma
# and polygamma shift x up by their recurrences until an asymptotic series in 1/x is exact
# to double precision; erfinv refines a closed-form first guess by Halley's method on erf
# (erfc in the tail, where 1 - |y| is exact).

_SQRT_PI = math.sqrt(math.pi)
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)
_lgamma_elementwise = xp.frompyfunc(math.lgamma, 1, 1)


def _f64(x):
    return xp.asarray(x, dtype=xp.float64)


def _poles(x):
    """Where x is 0 or a negative integer: the poles of Γ."""
    return (x <= 0) & (x == xp.floor(x))


def _lgamma(x):
    """ln |Γ(x)|: inf at the poles (0, -1, -2, ...), inf at ±inf"""
    x64 = _f64(x)
    out = xp.full(x64.shape, xp.inf)
    ok = ~_poles(x64) & xp.isfinite(x64)
    out[ok] = _lgamma_elementwise(x64[ok]).astype(xp.float64)
    out[xp.isnan(x64)] = xp.nan
    return out.astype(x.dtype)


def _digamma64(x):
    """ψ(x) = Γ'(x)/Γ(x) in float64: -inf at 0, nan at the negative integers and -inf"""
    x = _f64(x)
    out = xp.empty(x.shape)
    neg = x < 0.5
    # reflection: ψ(x) = ψ(1 - x) - π / tan(πx)
    z = xp.where(neg, 1.0 - x, x)
    acc = xp.zeros(x.shape)
    for _ in range(10):  # ψ(z) = ψ(z + 1) - 1/z until z >= 10
        small = z < 10
        acc = acc - xp.where(small, 1.0 / xp.where(small, z, 1.0), 0.0)
        z = xp.where(small, z + 1.0, z)
    inv2 = 1.0 / (z * z)
    series = xp.zeros(x.shape)
    for k in range(len(_BERNOULLI), 0, -1):  # Σ B_2k / (2k z^2k), from the smallest term
        series = (series + _BERNOULLI[k - 1] / (2 * k)) * inv2
    out = xp.log(z) - 0.5 / z - series + acc
    with xp.errstate(all="ignore"):
        reflected = out - math.pi / xp.tan(math.pi * xp.where(neg, x, 0.25))
    out = xp.where(neg, reflected, out)
    out = xp.where(_poles(x), xp.nan, out)
    out = xp.where(x == 0, -xp.inf, out)
    out = xp.where(x == xp.inf, xp.inf, out)
    return out


def _digamma(x):
    """ψ(x) = d/dx ln Γ(x): -inf at 0, nan at the negative integers"""
    return _digamma64(x).astype(x.dtype)


def _polygamma64(n: int, x):
    """ψ⁽ⁿ⁾(x) = (-1)^(n+1) n! Σ_k 1/(x + k)^(n+1), n >= 1, in float64"""
    x = _f64(x)
    sign_fact = (-1.0) ** (n + 1) * math.factorial(n)
    start = 20.0 + n  # beyond this the asymptotic series is exact to double precision
    steps = xp.clip(xp.ceil(start - xp.where(xp.isfinite(x), x, start)), 0, 10000)
    z = x.copy()
    acc = xp.zeros(x.shape)
    with xp.errstate(all="ignore"):
        for _ in range(int(steps.max(initial=0))):
            shift = z < start
            acc = acc + xp.where(shift, 1.0 / xp.where(shift, z, 1.0) ** (n + 1), 0.0)
            z = xp.where(shift, z + 1.0, z)
        # ψ⁽ⁿ⁾(z) ≈ (-1)^(n+1) [(n-1)!/z^n + n!/(2 z^(n+1)) + Σ B_2k (2k+n-1)!/((2k)! z^(2k+n))]
        tail = math.factorial(n - 1) / z**n + math.factorial(n) / (2 * z ** (n + 1))
        for k, b in enumerate(_BERNOULLI, start=1):
            coef = b * math.factorial(2 * k + n - 1) / math.factorial(2 * k)
            tail = tail + coef / z ** (2 * k + n)
        out = sign_fact * acc + (-1.0) ** (n + 1) * tail
    out = xp.where(_poles(x), xp.inf if n % 2 else -xp.inf, out)
    # at ±inf, PyTorch's values: ψ⁽¹⁾(inf) = 0 and ψ⁽¹⁾(-inf) = nan; for n >= 2, nan at inf
    # and (-1)^(n+1) inf at -inf
    out = xp.where(x == xp.inf, 0.0 if n == 1 else xp.nan, out)
    out = xp.where(x == -xp.inf, xp.nan if n == 1 else (-1.0) ** (n + 1) * xp.inf, out)
    return xp.where(steps >= 10000, xp.nan, out)


def _polygamma(x, n=1):
    """ψ⁽ⁿ⁾(x), the n-th derivative of ψ (ψ itself for n = 0)"""
    return (_polygamma64(n, x) if n else _digamma64(x)).astype(x.dtype)


lgamma_op = defop(
    "lgamma",
    _lgamma,
    dtypes=FLOAT,
    vjp=lambda g, x: g * digamma_op(x),  # d/dx ln Γ(x) = ψ(x)
    jvp=lambda t, x: t * digamma_op(x),
)
digamma_op = defop(
    "digamma",
    _digamma,
    dtypes=FLOAT,
    vjp=lambda g, x: g * polygamma_op(x, n=1),  # d/dx ψ(x) = ψ⁽¹⁾(x)
    jvp=lambda t, x: t * polygamma_op(x, n=1),
)
polygamma_op = defop(
    "polygamma",
    _polygamma,
    dtypes=FLOAT,
    vjp=lambda g, x, n: g * polygamma_op(x, n=n + 1),  # d/dx ψ⁽ⁿ⁾(x) = ψ⁽ⁿ⁺¹⁾(x)
    jvp=lambda t, x, n: t * polygamma_op(x, n=n + 1),
)


def _erfinv(y):
    """The x with erf(x) = y, for -1 <= y <= 1 (±inf at ±1, nan outside)"""
    y64 = _f64(y)
    a = xp.abs(y64)
    inside = a < 1
    a_in = xp.where(inside, a, 0.5)
    # first guess (Winitzki's closed form, ~1e-3 relative), then Halley's method
    ln = xp.log1p(-a_in) + xp.log1p(a_in)  # ln(1 - a²)
    t = 2 / (math.pi * 0.147) + ln / 2
    x = xp.sqrt(xp.sqrt(t * t - ln / 0.147) - t)
    tail = a_in > 0.5
    for _ in range(3):
        erf_x, erfc_x = _erf_erfc(x)
        # f(x) = erf(x) - a, or (1 - a) - erfc(x) in the tail (1 - a is exact there)
        f = xp.where(tail, (1.0 - a_in) - erfc_x, erf_x - a_in)
        step = f / (2 / _SQRT_PI * xp.exp(-x * x))
        x = x - step / (1 + x * step)  # Halley: f''/f' = -2x
    out = xp.where(inside, x, xp.where(a == 1, xp.inf, xp.nan))
    return xp.copysign(out, y64).astype(y.dtype)


erfinv_op = defop(
    "erfinv",
    _erfinv,
    dtypes=FLOAT,
    vjp=lambda g, ans: g * (ew.exp(ans * ans) * (_SQRT_PI / 2)),  # d/dy erf⁻¹ y = √π/2 e^(x²)
    jvp=lambda t, ans: t * (ew.exp(ans * ans) * (_SQRT_PI / 2)),
)


# ----- modified Bessel functions I0, I1 (and their exponentially scaled forms) ----------------
#
# In float64: the power series Σ (x²/4)^k / (k! (k + ν)!) below |x| = 15 (all terms positive:
# no cancellation), and Hankel's asymptotic series e^|x| / √(2π|x|) Σ (-1)^k a_k(ν) / |x|^k
# above, whose terms shrink until k ≈ 2|x| (30 terms are exact to double precision there).


def _bessel_i_scaled(x, nu: int):
    """e^-|x| I_nu(|x|) for nu = 0 or 1, in float64 (the sign of I1 is applied by callers)."""
    a = xp.abs(_f64(x))
    out = xp.empty(a.shape)
    small = a < 15
    s = a[small]
    q = s * s / 4
    term = xp.ones(s.shape) if nu == 0 else s / 2
    total = term.copy()
    for k in range(1, 60):
        term = term * q / (k * (k + nu))
        total = total + term
    out[small] = total * xp.exp(-s)
    big = a[~small]
    term = xp.ones(big.shape)
    total = term.copy()
    with xp.errstate(all="ignore"):
        for k in range(1, 30):  # a_k / a_(k-1) = -(4ν² - (2k - 1)²) / (8k)
            term = term * (-(4 * nu * nu - (2 * k - 1) ** 2) / (8 * k)) / big
            total = total + term
        out[~small] = total / xp.sqrt(2 * math.pi * big)
    out[xp.isinf(a)] = 0.0
    out[xp.isnan(a)] = xp.nan
    return out


def _i0(x):
    """I0(x) = Σ (x²/4)^k / (k!)², the modified Bessel function of order 0"""
    x64 = _f64(x)
    with xp.errstate(over="ignore", invalid="ignore"):  # at ±inf: 0 · inf = nan, as PyTorch
        out = _bessel_i_scaled(x64, 0) * xp.exp(xp.abs(x64))
    return out.astype(x.dtype)


def _i0e(x):
    """e^-|x| I0(x)"""
    return _bessel_i_scaled(x, 0).astype(x.dtype)


def _i1(x):
    """I1(x) = (x/2) Σ (x²/4)^k / (k! (k + 1)!), the modified Bessel function of order 1"""
    x64 = _f64(x)
    with xp.errstate(over="ignore", invalid="ignore"):  # at ±inf: nan, as PyTorch
        out = xp.copysign(_bessel_i_scaled(x64, 1) * xp.exp(xp.abs(x64)), x64)
    return out.astype(x.dtype)


def _i1e(x):
    """e^-|x| I1(x)"""
    x64 = _f64(x)
    return xp.copysign(_bessel_i_scaled(x64, 1), x64).astype(x.dtype)


def _i1_vjp(g, x, ans):
    # d/dx I1(x) = I0(x) - I1(x)/x, 1/2 at x = 0
    zero = x == 0
    return g * _where(zero, 0.5, i0_op(x) - ans / _where(zero, 1.0, x))


def _i1e_vjp(g, x, ans):
    # d/dx e^-|x| I1(x) = e^-|x| I0(x) - (sgn x + 1/x) e^-|x| I1(x), 1/2 at x = 0
    zero = x == 0
    return g * _where(zero, 0.5, i0e_op(x) - ans * (ew.sign(x) + 1 / _where(zero, 1.0, x)))


i0_op = defop(
    "i0",
    _i0,
    dtypes=FLOAT,
    vjp=lambda g, x: g * i1_op(x),  # d/dx I0(x) = I1(x)
    jvp=lambda t, x: t * i1_op(x),
)
i0e_op = defop(
    "i0e",
    _i0e,
    dtypes=FLOAT,
    node="SpecialI0EBackward0",
    vjp=lambda g, x, ans: g * (i1e_op(x) - ew.sign(x) * ans),  # e^-|x| (I1 - sgn x I0)
    jvp=lambda t, x, ans: t * (i1e_op(x) - ew.sign(x) * ans),
)
i1_op = defop(
    "i1",
    _i1,
    dtypes=FLOAT,
    node="SpecialI1Backward0",
    vjp=_i1_vjp,
    jvp=_i1_vjp,
    conventions="d/dx I1(x) at x = 0 is 1/2 (the limit).",
)
i1e_op = defop(
    "i1e",
    _i1e,
    dtypes=FLOAT,
    node="SpecialI1EBackward0",
    vjp=_i1e_vjp,
    jvp=_i1e_vjp,
    conventions="d/dx at x = 0 is 1/2 (the limit).",
)


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


# ----- the ops added after the first pointwise set ------------------------------------------


def sgn(input, *, out=None):  # noqa: A002
    """The sign of input (sign, for real tensors); the gradient is 0."""
    return sgn_op(input)


def positive(input):  # noqa: A002
    """input itself (PyTorch returns the same tensor); bool raises, as PyTorch's ``+``."""
    if input._dtype._category == 0:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def clamp_min(input, min, *, out=None):  # noqa: A002
    """max(input, min); min a Python number or a tensor (broadcasting)."""
    if isinstance(min, Tensor):
        return clamp_min_tensor(input, min)
    return clamp_min_scalar(input, min=_bound(min))


def clamp_max(input, max, *, out=None):  # noqa: A002
    """min(input, max); max a Python number or a tensor (broadcasting)."""
    if isinstance(max, Tensor):
        return clamp_max_tensor(input, max)
    return clamp_max_scalar(input, max=_bound(max))


def xlogy(input, other, *, out=None):  # noqa: A002
    """input · ln(other), 0 where input is 0; either may be a Python number."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        _require_tensor("xlogy", other, 2, "other")
    return xlogy_op(_tensor_arg(input), _tensor_arg(other))


logaddexp = _tensors_only(logaddexp_op)
logaddexp2 = _tensors_only(logaddexp2_op)


def logit(input, eps=None, *, out=None):  # noqa: A002
    """ln(input / (1 - input)), input first clamped to [eps, 1 - eps] when eps is given."""
    return logit_op(input, eps=eps)


def copysign(input, other, *, out=None):  # noqa: A002
    """|input| with the sign of other (a tensor or a Python number)."""
    _require_tensor("copysign", input, 1, "input")
    return copysign_op(input, _tensor_arg(other))


deg2rad = _unary(deg2rad_op)
rad2deg = _unary(rad2deg_op)
sinc = _unary(sinc_op)


def float_power(input, exponent, *, out=None):  # noqa: A002
    """input ** exponent computed in float64 (PyTorch's graph: a cast, then pow)."""
    if isinstance(input, Tensor):
        input = input.to(float64)  # noqa: A001
    if isinstance(exponent, Tensor):
        exponent = exponent.to(float64)
    elif not isinstance(input, Tensor):
        _require_tensor("float_power", exponent, 2, "exponent")
    return fn.pow(input, exponent)


def ldexp(input, other, *, out=None):  # noqa: A002
    """input · 2^other."""
    _require_tensor("ldexp", input, 1, "input")
    _require_tensor("ldexp", other, 2, "other")
    return ldexp_op(input, other)


def heaviside(input, values, *, out=None):  # noqa: A002
    """0 where input < 0, values where input = 0, 1 where input > 0 (no derivative)."""
    _require_tensor("heaviside", input, 1, "input")
    _require_tensor("heaviside", values, 2, "values")
    return heaviside_op(input, values)


signbit = _predicate(signbit_op, "True where the sign bit is set (-0.0 included): a bool tensor.")
isposinf = _predicate(isposinf_op, "True where input is +inf: a bool tensor.")
isneginf = _predicate(isneginf_op, "True where input is -inf: a bool tensor.")


def isreal(input):  # noqa: A002
    """True everywhere: chainrule has no complex dtypes."""
    from .._creation import ones_like
    from .._dtypes import bool as b

    return ones_like(_require_tensor("isreal", input, 1, "input"), dtype=b)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002
    """|input - other| <= atol + rtol |other|, elementwise: a bool tensor."""
    _require_tensor("isclose", input, 1, "input")
    _require_tensor("isclose", other, 2, "other")
    return isclose_op(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan)


lgamma = _unary(lgamma_op)
i0 = _unary(i0_op)
digamma = _unary(digamma_op)
erfinv = _unary(erfinv_op)


def polygamma(n, input, *, out=None):  # noqa: A002
    """ψ⁽ⁿ⁾(input), the n-th derivative of the digamma function ψ (n = 0: ψ itself)."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return polygamma_op(input, n=int(n))


def _polygamma_method(self, n):
    return polygamma(n, self)


def nextafter(input, other, *, out=None):  # noqa: A002
    """The next floating value after input toward other (the gradient passes to input)."""
    _require_tensor("nextafter", input, 1, "input")
    _require_tensor("nextafter", other, 2, "other")
    return nextafter_op(input, other)


def bitwise_left_shift(input, other, *, out=None):  # noqa: A002
    """input << other, on integers."""
    return bitwise_left_shift_op(_tensor_arg(input), _tensor_arg(other))


def bitwise_right_shift(input, other, *, out=None):  # noqa: A002
    """input >> other, on integers (arithmetic: the sign is kept)."""
    return bitwise_right_shift_op(_tensor_arg(input), _tensor_arg(other))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:  # noqa: A002
    """Whether |input - other| <= atol + rtol |other| everywhere (broadcasting; one dtype)."""
    _require_tensor("allclose", input, 1, "input")
    _require_tensor("allclose", other, 2, "other")
    return bool(isclose_op(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan)._data.all())


def fill_(input, value):  # noqa: A002
    """Fill input with value in place: a Python number, or a 0-d tensor (which then gets
    the gradient: the sum of the output gradient, FillBackward3)."""
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value.ndim} dimensions."
            )
        return _inplace(input, ew.fill_tensor, (input, value), {})
    return _inplace(input, ew.fill, (input,), {"value": value})


def zero_(input):  # noqa: A002
    """input.zero_()."""
    return input.zero_()


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
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
        )
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


# In-place variants and aliases of the basic ops (functions.py, methods.py) and of the ops
# added above; PyTorch has each as a Tensor method, most also as ``torch.<name>_``.
_MORE_WITH_INPLACE = {
    "exp": fn.exp, "log": fn.log, "sin": fn.sin, "cos": fn.cos, "tanh": fn.tanh,
    "sigmoid": fn.sigmoid, "sqrt": fn.sqrt, "abs": fn.abs, "absolute": fn.abs,
    "neg": fn.neg, "negative": fn.neg, "sign": fn.sign, "reciprocal": fn.reciprocal,
    "pow": fn.pow, "divide": fn.div, "true_divide": fn.div, "multiply": fn.mul,
    "subtract": fn.sub,
    "sgn": sgn, "clamp_min": clamp_min, "clamp_max": clamp_max, "xlogy": xlogy,
    "logit": logit, "copysign": copysign, "deg2rad": deg2rad, "rad2deg": rad2deg,
    "sinc": sinc, "ldexp": ldexp, "heaviside": heaviside,
    "lgamma": lgamma, "digamma": digamma, "erfinv": erfinv, "polygamma": _polygamma_method,
    "nextafter": nextafter, "bitwise_left_shift": bitwise_left_shift, "i0": i0,
    "bitwise_right_shift": bitwise_right_shift,
}  # fmt: skip


def _float_power_(self, exponent):
    if self._dtype is not float64:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {self._dtype.name.capitalize()} but "
            "the operation's result requires dtype Double"
        )
    return _inplace(self, float_power, (self, exponent), {})


def _compare_inplace(name: str):
    op = _COMPARE_INPLACE[name]

    def method(self, other):
        # a float tensor keeps a (zero-gradient) node, as PyTorch's EqBackward0 ...
        params = {"dtype": self._dtype.np} if self._dtype._category == 2 else {}
        return _inplace(self, op, (self, _tensor_arg(other)), params)

    method.__name__ = name + "_"
    method.__doc__ = f"In-place {name}: 1 where true, 0 elsewhere, in self's dtype."
    return method


_COMPARISONS = {
    "eq": "eq", "ne": "ne", "lt": "lt", "le": "le", "gt": "gt", "ge": "ge",
    "not_equal": "ne", "less": "lt", "less_equal": "le", "greater": "gt",
    "greater_equal": "ge",
}  # fmt: skip

TENSOR_METHODS.update(
    {
        **_MORE_WITH_INPLACE,
        **{name + "_": inplace(f) for name, f in _MORE_WITH_INPLACE.items()},
        **{alias: getattr(fn, name) for alias, name in _COMPARISONS.items()},
        **{alias + "_": _compare_inplace(name) for alias, name in _COMPARISONS.items()},
        "__ipow__": inplace(fn.pow),
        "float_power": float_power,
        "float_power_": _float_power_,
        "logaddexp": logaddexp,
        "logaddexp2": logaddexp2,
        "positive": positive,
        "signbit": signbit,
        "isposinf": isposinf,
        "isneginf": isneginf,
        "isreal": isreal,
        "isclose": isclose,
        "allclose": allclose,
        "__lshift__": _operator(bitwise_left_shift),
        "__rlshift__": _operator(bitwise_left_shift, reflected=True),
        "__rshift__": _operator(bitwise_right_shift),
        "__rrshift__": _operator(bitwise_right_shift, reflected=True),
        "__ilshift__": inplace(bitwise_left_shift),
        "__irshift__": inplace(bitwise_right_shift),
        "fill_": fill_,
        "hardshrink": act.hardshrink,
        "prelu": act.prelu,
    }
)

# torch.exp_(x), torch.clamp_(x, ...): the in-place variants as functions
_INPLACE_FUNCTIONS = (
    "abs acos acosh arccos arccosh arcsin arcsinh arctan arctanh asin asinh atan atanh ceil "
    "clamp clip cos cosh erf erfc exp2 exp expm1 fix floor frac log10 log1p log2 log "
    "nan_to_num neg negative reciprocal round rsqrt sigmoid sin sinh sqrt square tan tanh "
    "trunc clamp_max clamp_min deg2rad rad2deg logit sinc xlogy ldexp i0"
).split()  # (lgamma_, digamma_, erfinv_, polygamma_ are methods only, as in PyTorch)
globals().update({name + "_": TENSOR_METHODS[name + "_"] for name in _INPLACE_FUNCTIONS})

__all__ = sorted(
    [name + "_" for name in _INPLACE_FUNCTIONS]
    + """acos acosh arccos arccosh arcsin arcsinh arctan arctan2 arctanh asin asinh atan atan2
    atanh bitwise_and bitwise_not bitwise_or bitwise_xor ceil clamp clamp_max clamp_min clip
    copysign cosh deg2rad erf erfc exp2 expm1 fill_ fix float_power floor floor_divide fmax
    fmin fmod frac heaviside hypot isclose isfinite isinf isnan isneginf isposinf isreal ldexp
    lerp log1p log2 log10 logaddexp logaddexp2 logical_and logical_not logical_or logical_xor
    logit maximum minimum nan_to_num positive rad2deg remainder round rsqrt sgn signbit sinc
    sinh square tan trunc xlogy zero_ lgamma digamma polygamma erfinv allclose nextafter bitwise_left_shift i0
    bitwise_right_shift""".split()
)


# ----- out= ------------------------------------------------------------------------------------


def _write_out(name: str, function, args: tuple, kwargs: dict, out, exact: bool = False):
    """``function(*args, **kwargs)`` written into ``out`` (resized if its shape differs), as
    PyTorch's out= does; no autograd through it, so inputs requiring grad raise. ``exact``:
    out must have the result's dtype (PyTorch's clamp with number bounds)."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if grad_mode._state.enabled and any(
        isinstance(a, Tensor) and a._requires_grad for a in (*args, *kwargs.values(), out)
    ):
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    result = function(*args, **kwargs)
    bounds = (*args[1:], *kwargs.values())
    if exact and out._dtype is not result._dtype and not any(isinstance(b, Tensor) for b in bounds):
        raise RuntimeError(
            f"Found dtype {_SCALAR_TYPE[out._dtype.name]} but expected "
            f"{_SCALAR_TYPE[result._dtype.name]}"
        )
    if result._dtype._category > out._dtype._category:
        raise RuntimeError(
            f"result type {_SCALAR_TYPE[result._dtype.name]} can't be cast to the desired "
            f"output type {_SCALAR_TYPE[out._dtype.name]}"
        )
    if out._data.shape != result._data.shape:
        if out._data.size:
            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"{list(out.shape)}, which does not match the required output shape "
                f"{list(result.shape)}. This behavior is deprecated, and in a future PyTorch "
                "release outputs will not be resized unless they have zero elements. You can "
                "explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
                "with t.resize_(0).",
                UserWarning,
                stacklevel=3,
            )
        out._data = xp.empty(result._data.shape, dtype=out._dtype.np)
    xp.copyto(out._data, result._data, casting="unsafe")
    out._bump()
    return out


def _with_out(function, exact: bool = False):
    """``function`` with PyTorch's ``out=`` keyword."""

    def wrapper(*args, out=None, **kwargs):
        if out is None:
            return function(*args, **kwargs)
        return _write_out(function.__name__, function, args, kwargs, out, exact)

    functools.update_wrapper(wrapper, function)
    return wrapper


# the functions that take out= in PyTorch (methods never do): this module's, and the basic
# arithmetic of functions.py, which names them again here so they replace its versions
_OUT_FUNCTIONS = (
    "exp2 expm1 log2 log10 log1p rsqrt tan asin arcsin acos arccos atan arctan sinh cosh asinh "
    "arcsinh acosh arccosh atanh arctanh erf erfc floor ceil trunc fix frac square round clamp "
    "clip nan_to_num maximum minimum fmax fmin atan2 arctan2 hypot logical_and logical_or "
    "logical_xor lerp remainder fmod floor_divide logical_not bitwise_not bitwise_and "
    "bitwise_or bitwise_xor sgn clamp_min clamp_max xlogy logaddexp logaddexp2 logit "
    "copysign deg2rad rad2deg sinc float_power ldexp heaviside lgamma digamma polygamma erfinv "
    "nextafter bitwise_left_shift bitwise_right_shift i0"
).split()
_BASIC_OUT_FUNCTIONS = (
    "add sub subtract mul multiply div divide true_divide pow neg negative reciprocal exp log "
    "sin cos tanh sigmoid sqrt abs absolute sign eq ne lt le gt ge not_equal less less_equal "
    "greater greater_equal"
).split()
_EXACT_OUT = ("clamp", "clip", "clamp_min", "clamp_max")
globals().update({name: _with_out(globals()[name], name in _EXACT_OUT) for name in _OUT_FUNCTIONS})
globals().update({name: _with_out(getattr(fn, name)) for name in _BASIC_OUT_FUNCTIONS})
__all__ = sorted(set(__all__) | set(_BASIC_OUT_FUNCTIONS))
