"""Special functions: erf, erfc and erfinv, the gamma family (lgamma, digamma,
polygamma), the modified Bessel functions I0 and I1 (and their scaled forms), logit, and the
standard normal CDF.

NumPy has none of them, so their forwards are computed here, in float64, with their
accuracy stated and tested (erf, erfc and Φ of float32 tensors by their own fits, block by
block, within an ulp); the derivatives are the classical ones, stated beside each rule."""

from __future__ import annotations

import functools
import math

from .. import _dtypes
from .._backend import clip_ufunc, ndarray, xp
from .._promotion import result_type
from ..autograd.recording import array_of, defop, floating_only
from . import copies, logical, unary


def double_kernels(kernel: str):
    """A dtype rule for a function PyTorch's CPU build computes in float32 and float64 only:
    the default float dtype for integers and bools, and PyTorch's NotImplementedError for
    a complex, half or bfloat16 result type (``"erfcx_cpu" not implemented for 'Half'``)."""
    real = unary.real_only(kernel)

    def rule(args, params):
        dtype = result_type(args)
        if dtype in (_dtypes.float16, _dtypes.bfloat16):
            raise _dtypes.not_implemented(kernel, dtype)
        return real(args, params)

    return rule


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


def _horner_into(z, coeffs, out):
    """c0 + z (c1 + z (c2 + ...)) written into out (an array shaped as z), in place: two
    passes over the data per coefficient and no temporaries."""
    if coeffs[-1] == 1.0:  # monic: one pass less
        xp.add(z, coeffs[-2], out=out)
    else:
        xp.multiply(z, coeffs[-1], out=out)
        xp.add(out, coeffs[-2], out=out)
    for c in reversed(coeffs[:-2]):
        xp.multiply(out, z, out=out)
        xp.add(out, c, out=out)
    return out


def _rational(z, p, q):
    """P(z)/Q(z) as a new array, Horner in place."""
    num = _horner_into(z, p, xp.empty_like(z))
    return xp.divide(num, _horner_into(z, q, xp.empty_like(z)), out=num)


# The ranges of |x|: [0, 0.84375) (erf's series; erfc from it two ways, split at 1/4),
# [0.84375, 1.25), [1.25, 28) (erfc's tail; its rational split at 1/0.35) and [28, inf]
# (erfc(28) < 1e-341 is 0 in float64).
_BOUNDS = (0.84375, 1.25, 28.0)


def _fdlibm(x, erf_out, erfc_out):
    """erf(|x|) into erf_out and erfc(|x|) into erfc_out (either may be None), x a
    contiguous 1-d float64 array, in float64 by fdlibm's formulas. Each range is gathered
    by an index array (boolean masks and np.where cost ~20x more on mixed data: branches)."""
    ax = xp.abs(x)
    key = xp.zeros(ax.shape, dtype=xp.int8)  # which range each element lies in; nan: 0
    for b in _BOUNDS:
        xp.add(key, ax >= b, out=key)
    for r in range(len(_BOUNDS) + 1):
        idx = xp.flatnonzero(key == r)
        if idx.size == 0:
            continue
        s = ax[idx]
        if r == 0:  # erf(s) = s + s P(s²)/Q(s²)
            sy = _rational(s * s, _PP, _QQ)
            xp.multiply(sy, s, out=sy)
            if erf_out is not None:
                erf_out[idx] = s + sy
            if erfc_out is not None:
                # below 1/4, 1 - erf loses nothing; above, the second order keeps the last
                # bits: blended by 0/1 factors (exact; np.where branches)
                below = s < 0.25
                near = 1.0 - (s + sy)
                near *= below
                sy += s - 0.5
                xp.subtract(0.5, sy, out=sy)
                sy *= ~below
                erfc_out[idx] = near + sy
        elif r == 1:  # erf(1 + t) = erx + P(t)/Q(t)
            xp.subtract(s, 1.0, out=s)
            pq = _rational(s, _PA, _QA)
            if erf_out is not None:
                erf_out[idx] = _ERX + pq
            if erfc_out is not None:
                erfc_out[idx] = (1.0 - _ERX) - pq
        elif r == 2:  # erfc(s) = e^(-s² - 0.5625 + R(1/s²)/S(1/s²)) / s
            w = xp.multiply(s, s)
            xp.divide(1.0, w, out=w)
            near = xp.flatnonzero(s < 1.0 / 0.35)
            if near.size == s.size:
                rs = _rational(w, _RA, _SA)
            elif near.size == 0:
                rs = _rational(w, _RB, _SB)
            else:
                far = xp.flatnonzero(s >= 1.0 / 0.35)
                rs = xp.empty_like(w)
                rs[near] = _rational(w[near], _RA, _SA)
                rs[far] = _rational(w[far], _RB, _SB)
            # e^(-s²) as e^(-z²) e^((z - s)(z + s)), z = s with its low 32 bits cleared: z²
            # is exact, so the large exponent carries no rounding error
            z = (s.view(xp.uint64) & xp.uint64(0xFFFFFFFF00000000)).view(xp.float64)
            xp.subtract(z, s, out=w)
            w *= z + s
            w += rs
            xp.exp(w, out=w)
            xp.multiply(z, z, out=z)
            xp.negative(z, out=z)
            z -= 0.5625
            xp.exp(z, out=z)
            z *= w
            z /= s
            if erfc_out is not None:
                erfc_out[idx] = z
            if erf_out is not None:
                erf_out[idx] = 1.0 - z
        else:  # erf(inf) = 1, erfc(inf) = 0
            nan = s != s
            if erf_out is not None:
                erf_out[idx] = xp.where(nan, s, 1.0)
            if erfc_out is not None:
                erfc_out[idx] = xp.where(nan, s, 0.0)


_BLOCK = 65536  # elements per block: a block's temporaries stay in the core's cache


def _blockwise(fn, flat, *outs):
    """fn(block, *out_blocks) over consecutive blocks of the 1-d arrays (outs may be None)."""
    n = flat.shape[0]
    if n <= _BLOCK:
        fn(flat, *outs)
        return
    for i in range(0, n, _BLOCK):
        j = i + _BLOCK
        fn(flat[i:j], *(None if o is None else o[i:j] for o in outs))


def _erf_erfc(x):
    """(erf(x), erfc(x)) elementwise, in float64, each within about one ulp."""
    x = xp.asarray(x, dtype=xp.float64)
    flat = x.reshape(-1)
    erf_ax = xp.empty(flat.shape)
    erfc_ax = xp.empty(flat.shape)
    _blockwise(_fdlibm, flat, erf_ax, erfc_ax)
    neg = xp.flatnonzero(flat < 0)
    erfc_ax[neg] = 1.0 + erf_ax[neg]  # erfc(-a) = 1 + erf(a)
    xp.copysign(erf_ax, flat, out=erf_ax)  # erf is odd (and erf(-0) = -0)
    return erf_ax.reshape(x.shape), erfc_ax.reshape(x.shape)


def _erf64(x):
    """erf(x) in float64 (fdlibm)."""
    x = xp.asarray(x, dtype=xp.float64)
    flat = x.reshape(-1)
    out = xp.empty(flat.shape)
    _blockwise(_fdlibm, flat, out, None)
    return xp.copysign(out, flat, out=out).reshape(x.shape)


def _erfc64(x):
    """erfc(x) in float64 (fdlibm)."""
    x = xp.asarray(x, dtype=xp.float64)
    flat = x.reshape(-1)
    out = xp.empty(flat.shape)
    _blockwise(_fdlibm, flat, None, out)
    neg = xp.flatnonzero(flat < 0)
    out[neg] = 2.0 - out[neg]  # erfc(-a) = 2 - erfc(a)
    return out.reshape(x.shape)


# ----- erf, erfc and Φ for float32 (and float16) ---------------------------------------------
#
# A float32 result needs far less than fdlibm's 2^-57. For a >= 0,
# erfc(a) = P(a) / (Q(a) e^(a²)) with P of degree 4 and Q of degree 5 (monic) is within
# 6.3e-9 (relative) of erfc on [0, 10.5], beyond which erfc(a) < 1e-49 rounds to 0 in
# float32 (P/Q tends to 1/(a√π) as erfcx does, so it stays close there too); erf(x) =
# x P(x²)/Q(x²), degrees 5 and 6, is within 2.6e-9 on [0, 4], beyond which erf rounds to
# ±1 (1 - erf(4) = 1.5e-8). erfc's form would lose erf's relative accuracy near 0, hence two.
# The coefficients were fitted here, not taken from a library: weighted least squares of
# P - f·Q on 6000 Chebyshev nodes against math.erfc(a)·e^(a²) (math.erf(x)/x), reweighted
# toward minimax; tests/ops/test_erf_fast.py refits them. Evaluated in float64, a block at
# a time (the temporaries stay in cache), and rounded once: within 0.6 ulp of the exact
# value. The sign cases are blended with copysign and signbit, never with np.where or masks
# (branchy: ~8x slower on mixed signs); on NumPy's arrays copysign by the sign bit itself
# (``_with_sign_of``) and the bound by clip, NumPy's minimum and copysign ufuncs being 3-4x
# slower than an integer pass.

_ERFCX32_TOP = 27.0  # e^(27²) overflows float64: erfc is 0 exactly there (and at inf)

_ERFCX32_P = (
    17.02885973766409,
    21.14308879701565,
    12.515370006225934,
    3.9305107321868626,
    0.5641957815780476,
)

_ERFCX32_Q = (
    17.028859632821497,
    40.358109767200474,
    41.025591603044674,
    22.675896139122056,
    6.9670722209435665,
    1.0,
)

_HALF_ERFCX32_P = tuple(0.5 * c for c in _ERFCX32_P)  # for erfc/2, Φ's tail

_ERF32_TOP = 4.0

_ERF32_P = (
    4333052.047542474,
    740669.3051206376,
    214079.28584523473,
    16229.681952374829,
    1579.198780105526,
    26.07407931310762,
)

_ERF32_Q = (
    3840067.384215448,
    1936423.9270069916,
    451188.24686731707,
    62573.352249372736,
    5457.287202205289,
    278.6121112795189,
    1.0,
)


_NO_BOUND = -math.inf
_SIGN_BIT = -(1 << 63)  # float64's sign bit, as an int64


def _erfc_tail32(a, p):
    """P(a) / (Q(a) e^(a²)) for a float64 block a = |x|: erfc(a), within 6.3e-9 relative,
    for p = _ERFCX32_P, half of it for _HALF_ERFCX32_P. a is overwritten with e^(a²)."""
    # (inf would make P/Q inf/inf; nan stays nan)
    if a.__class__ is ndarray and clip_ufunc is not None:
        clip_ufunc(a, _NO_BOUND, _ERFCX32_TOP, out=a)  # (minimum's values)
    else:
        xp.minimum(a, _ERFCX32_TOP, out=a)
    num = _horner_into(a, p, xp.empty_like(a))
    den = _horner_into(a, _ERFCX32_Q, xp.empty_like(a))
    xp.multiply(a, a, out=a)  # exact: a has 24 significant bits
    den *= xp.exp(a, out=a)
    num /= den
    return num


def _erfc32_block(x, out):
    """erfc(x) for a float32 block x into out: erfc(x)/2 = [x < 0] + copysign(erfc(|x|)/2, x)
    (erfc(-a) = 2 - erfc(a); erfc(-0) = 1)."""
    h = _erfc_tail32(xp.abs(x, dtype=xp.float64), _HALF_ERFCX32_P)
    xp.copysign(h, x, out=h)
    h += xp.signbit(x)
    xp.multiply(h, 2.0, out=out, casting="same_kind")


def _ndtr32_block(x, out, cdf=None, form="ndtr"):
    """Φ(x) = erfc(z)/2, z = -x/√2, for a float32 block x into out; x Φ(x) for form="gelu"
    (and Φ(x) into cdf when given), Φ(x) + x φ(x) (GELU's slope) for form="slope":
    Φ = [z < 0] + copysign(erfc(|z|)/2, z) (Φ(-0) = Φ(0) = 1/2), φ(x) = 1/(√(2π) e^(z²))."""
    z = xp.multiply(x, -_SQRT1_2, dtype=xp.float64)
    e = xp.abs(z)
    h = _erfc_tail32(e, _HALF_ERFCX32_P)  # (e is now e^(z²))
    _with_sign_of(h, z)
    h += xp.signbit(z).astype(h.dtype) if h.__class__ is ndarray else xp.signbit(z)
    if form == "gelu":
        xp.multiply(h, x, out=out, casting="same_kind")
        if cdf is not None:
            xp.copyto(cdf, h, casting="same_kind")
        return
    if form == "slope":
        e *= _SQRT_2PI
        h += xp.divide(x, e, out=e)
    xp.copyto(out, h, casting="same_kind")


def _with_sign_of(h, z):
    """h = copysign(h, z) in place, for float64 h >= 0 (or nan) and z: on NumPy's arrays z's
    sign bit ORed into h's (the same bits; copysign's ufunc takes 3-4x as long)."""
    if h.__class__ is ndarray and z.__class__ is ndarray and z.dtype == h.dtype:
        bits = h.view(xp.int64)
        xp.bitwise_or(bits, xp.bitwise_and(z.view(xp.int64), _SIGN_BIT), out=bits)
    else:
        xp.copysign(h, z, out=h)


def _erf32_block(x, out):
    """erf(x) = x P(x²)/Q(x²) for a float32 block x into out, |x| clamped to 4."""
    xc = xp.maximum(x, -_ERF32_TOP, dtype=xp.float64)  # (ufuncs: CuPy's clip takes no dtype)
    xp.minimum(xc, _ERF32_TOP, out=xc)
    z = xp.multiply(xc, xc)
    num = _horner_into(z, _ERF32_P, xp.empty_like(z))
    num /= _horner_into(z, _ERF32_Q, xp.empty_like(z))
    xp.multiply(num, xc, out=out, casting="same_kind")


def _float32_path(block_fn, x):
    """block_fn over x (float32 or float16), block by block, into a new array of x's dtype."""
    x = xp.asarray(x)
    flat = x.reshape(-1)
    out = xp.empty(flat.shape, dtype=x.dtype)
    _blockwise(block_fn, flat, out)
    return out.reshape(x.shape)


def _erf(x):
    """erf(x) = 2/√π ∫₀ˣ e^(-t²) dt"""
    if x.dtype == xp.float64:
        return _erf64(x)
    return _float32_path(_erf32_block, x)


def _erfc(x):
    """erfc(x) = 1 - erf(x), accurate where erf(x) is close to 1"""
    if x.dtype == xp.float64:
        return _erfc64(x)
    return _float32_path(_erfc32_block, x)


erf = defop(
    "erf",
    _erf,
    dtypes=unary.real_only("erf_vml_cpu"),
    vjp=lambda g, x: (
        g * (unary.exp(-(x * x)) * unary._TWO_OVER_SQRT_PI)
    ),  # d/dx erf x = 2/√π e^(-x²)
    jvp=lambda t, x: t * (unary.exp(-(x * x)) * unary._TWO_OVER_SQRT_PI),  # as the VJP
)

erfc = defop(
    "erfc",
    _erfc,
    dtypes=unary.real_only("erfc_vml_cpu"),
    vjp=lambda g, x: (
        g * (unary.exp(-(x * x)) * -unary._TWO_OVER_SQRT_PI)
    ),  # d/dx erfc x = -2/√π e^(-x²)
    jvp=lambda t, x: t * (unary.exp(-(x * x)) * -unary._TWO_OVER_SQRT_PI),  # as the VJP
)


def _logit(x, eps=None):
    """ln(x / (1 - x)), x first clamped to [eps, 1 - eps] when eps >= 0 is given (below eps
    it is eps, else above 1 - eps it is 1 - eps: PyTorch's order where eps > 1/2)"""
    if eps is not None and eps >= 0:
        lo, hi = xp.asarray(eps, dtype=x.dtype), xp.asarray(1 - eps, dtype=x.dtype)
        x = xp.where(x < lo, lo, xp.where(x > hi, hi, x))
    return xp.log(x / (1 - x))


def _logit_vjp(g, x, eps):
    """d/dx ln(x / (1 - x)) = 1 / (x (1 - x)); 0 outside [eps, 1 - eps] (nan outside [0, 1]
    without eps or with a negative one), as PyTorch"""
    inside = g / ((x + 0.0) * (1 - x))  # (+ 0.0: at x = -0 the slope is +inf, not -inf)
    clamped = eps is not None and eps >= 0
    lo, hi, outside = (eps, 1 - eps, 0.0) if clamped else (0.0, 1.0, math.nan)
    return logical.select(logical.logical_or(x < lo, x > hi), outside, inside)


logit = defop(
    "logit",
    _logit,
    dtypes=unary.real_only("logit_cpu"),
    # bfloat16 as it is: each step of ln(x / (1 - x)) rounds to bfloat16, as PyTorch's kernel
    storage=True,
    vjp=_logit_vjp,
    jvp=_logit_vjp,
    conventions="With eps, the gradient is 0 where x < eps or x > 1 - eps (the clamped "
    "region, its bounds excluded); without, nan outside [0, 1].",
)

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
    # above 1e300, Stirling's (x - 1/2) ln x - x + ln √(2π) to double precision (math.lgamma
    # raises OverflowError past 2.5e305, where the value is still finite up to 2.6e305);
    # every float below -2^52 is a pole
    huge = ok & (x64 > 1e300)
    if huge.any():
        ok = ok & ~huge
        t = x64[huge]
        with xp.errstate(over="ignore"):
            out[huge] = t * (xp.log(t) - 1.0) - 0.5 * xp.log(t) + 0.5 * math.log(2 * math.pi)
    out[ok] = _lgamma_elementwise(x64[ok]).astype(xp.float64)
    near = ok & (xp.abs(x64 - 1.5) < 1.0)  # (around its zeros at 1 and 2, math.lgamma loses digits)
    if near.any():
        from .zeta_gamma import _lgam1p  # (zeta_gamma builds on this module)

        t = x64[near]
        below = t < 1.5
        a = xp.where(below, t - 1.0, t - 2.0)  # lgamma(2 + a) = ln(1 + a) + lgamma(1 + a)
        out[near] = _lgam1p(a) + xp.where(below, 0.0, xp.log1p(a))
    out[xp.isnan(x64)] = xp.nan
    return out.astype(x.dtype)


def _digamma64(x):
    """ψ(x) = Γ'(x)/Γ(x) in float64: -inf at +0 and inf at -0 (ψ(x) ~ -1/x), nan at the
    negative integers and -inf"""
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
    out = xp.where(x == 0, xp.copysign(xp.inf, -x), out)
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
    far = (steps >= 10000) & xp.isfinite(x)
    if far.any():  # far below 0: the reflection of ψ⁽ⁿ⁾(1 - x), its recurrence short
        out[far] = _polygamma_reflected(n, x[far])
    out = xp.where(_poles(x), xp.inf if n % 2 else -xp.inf, out)
    # at ±inf, PyTorch's values: ψ⁽¹⁾(inf) = 0 and ψ⁽¹⁾(-inf) = nan; for n >= 2, nan at inf
    # and (-1)^(n+1) inf at -inf
    out = xp.where(x == xp.inf, 0.0 if n == 1 else xp.nan, out)
    return xp.where(x == -xp.inf, xp.nan if n == 1 else (-1.0) ** (n + 1) * xp.inf, out)


def _polygamma_reflected(n: int, x):
    """ψ⁽ⁿ⁾(x) = (-1)^(n+1) [(-1)^n π dⁿ/dxⁿ cot(πx) - ψ⁽ⁿ⁾(1 - x)] for x < 0, the n-th
    derivative of cot(πx) a polynomial in c = cot(πx): each derivative maps p(c) to
    -π (1 + c²) p'(c)."""
    poly = xp.polynomial.Polynomial([0.0, 1.0])  # cot itself, in c
    for _ in range(n):
        poly = -math.pi * xp.polynomial.Polynomial([1.0, 0.0, 1.0]) * poly.deriv()
    with xp.errstate(all="ignore"):
        c = 1.0 / xp.tan(math.pi * (x - xp.round(x)))  # (cot has period 1: reduced first)
        cot_n = poly(c)
    sign = (-1.0) ** (n + 1)
    return sign * ((-1.0) ** n * math.pi * cot_n - _polygamma64(n, 1.0 - x))


def _polygamma(x, n=1):
    """ψ⁽ⁿ⁾(x), the n-th derivative of ψ (ψ itself for n = 0)"""
    return (_polygamma64(n, x) if n else _digamma64(x)).astype(x.dtype)


lgamma = defop(
    "lgamma",
    _lgamma,
    dtypes=unary.real_only("lgamma_vml_cpu"),
    vjp=lambda g, x: g * digamma(x),  # d/dx ln Γ(x) = ψ(x)
    jvp=lambda t, x: t * digamma(x),  # as the VJP
)

digamma = defop(
    "digamma",
    _digamma,
    dtypes=unary.real_only("digamma"),
    vjp=lambda g, x: g * polygamma(x, n=1),  # d/dx ψ(x) = ψ⁽¹⁾(x)
    jvp=lambda t, x: t * polygamma(x, n=1),  # as the VJP
)


def _polygamma_dtype(args, params):
    """FLOAT, and PyTorch's error for complex input: its kernel by n (digamma for n = 0,
    trigamma for n = 1)."""
    n = params.get("n", 0)
    kernel = "digamma" if n == 0 else "trigamma" if n == 1 else "polygamma"
    return unary.real_only(kernel)(args, params)


polygamma = defop(
    "polygamma",
    _polygamma,
    dtypes=_polygamma_dtype,
    vjp=lambda g, x, n: g * polygamma(x, n=n + 1),  # d/dx ψ⁽ⁿ⁾(x) = ψ⁽ⁿ⁺¹⁾(x)
    jvp=lambda t, x, n: t * polygamma(x, n=n + 1),  # as the VJP
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


erfinv = defop(
    "erfinv",
    _erfinv,
    dtypes=unary.real_only("erfinv_vml_cpu"),
    vjp=lambda g, ans: g * (unary.exp(ans * ans) * (_SQRT_PI / 2)),  # d/dx erf⁻¹ x = √π/2 e^(ans²)
    jvp=lambda t, ans: t * (unary.exp(ans * ans) * (_SQRT_PI / 2)),  # as the VJP
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
        out[~small] = total / (xp.sqrt(big) * math.sqrt(2 * math.pi))  # (2π·big overflows)
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


# Below |x| = 1e-6 the derivatives of I1 and e^-|x| I1 are their Taylor polynomials (the
# next terms, 5x⁴/384 and |x|³, are below float64's ulp there): the closed forms divide
# I1(x) by x, which underflows to 0 for tiny float32 x (and 1/x overflows)
_I1_SMALL = 1e-6


def _i1_vjp(g, x, ans):
    """d/dx I1(x) = I0(x) - I1(x)/x = 1/2 + 3x²/16 + ... (the series below |x| = 1e-6)"""
    small = unary.abs(array_of(x)) < _I1_SMALL
    x_small = logical.select(small, x, 0.0)
    series = 0.5 + 0.1875 * (x_small * x_small)
    return g * logical.select(small, series, i0(x) - ans / logical.select(small, 1.0, x))


def _in_float64(slope):
    """``slope(x)`` formed in float64 and cast back to x's dtype: the scaled Bessel slopes
    are differences of nearly equal values for large |x| (e^-|x| I0 - e^-|x| I1 -> 0 as
    e^-|x| I0 / 2|x|), which would keep few of float32's digits."""

    def wide(x):
        dtype = array_of(x).dtype
        if dtype == xp.float64:
            return slope(x)
        narrow = _dtypes.from_numpy_dtype(dtype)
        return copies.to_dtype(slope(copies.to_dtype(x, dtype=_dtypes.float64)), dtype=narrow)

    return wide


@_in_float64
def _i0e_slope(x):
    """d/dx e^-|x| I0(x) = e^-|x| (I1(x) - sgn x I0(x))"""
    return i1e(x) - unary.sign(x) * i0e(x)


@_in_float64
def _i1e_slope(x):
    """d/dx e^-|x| I1(x) = e^-|x| I0(x) - (sgn x + 1/x) e^-|x| I1(x) = 1/2 - |x| + 15x²/16
    + ... (the series below |x| = 1e-6)"""
    small = unary.abs(array_of(x)) < _I1_SMALL
    x_small = logical.select(small, x, 0.0)
    series = 0.5 - unary.abs(x_small) + 0.9375 * (x_small * x_small)
    closed = i0e(x) - i1e(x) * (unary.sign(x) + 1 / logical.select(small, 1.0, x))
    return logical.select(small, series, closed)


def _i1e_vjp(g, x):
    """d/dx e^-|x| I1(x) = e^-|x| I0(x) - (sgn x + 1/x) e^-|x| I1(x), in float64 (its
    series 1/2 - |x| + 15x²/16 below |x| = 1e-6)"""
    return g * _i1e_slope(x)


i0 = defop(
    "i0",
    _i0,
    dtypes=unary.real_only("i0_vml_cpu"),
    vjp=lambda g, x: g * i1(x),  # d/dx I0(x) = I1(x)
    jvp=lambda t, x: t * i1(x),  # as the VJP
)

i0e = defop(
    "i0e",
    _i0e,
    dtypes=unary.real_only("i0e_cpu"),
    node="SpecialI0EBackward0",
    vjp=lambda g, x: g * _i0e_slope(x),  # d/dx e^-|x| I0(x) = e^-|x| (I1(x) - sgn x I0(x))
    jvp=lambda t, x: t * _i0e_slope(x),  # as the VJP
)

i1 = defop(
    "i1",
    _i1,
    dtypes=unary.real_only("i1_cpu"),
    node="SpecialI1Backward0",
    vjp=_i1_vjp,
    jvp=_i1_vjp,
    conventions="d/dx I1(x) at x = 0 is 1/2 (the limit).",
)

i1e = defop(
    "i1e",
    _i1e,
    dtypes=unary.real_only("i1e_cpu"),
    node="SpecialI1EBackward0",
    vjp=_i1e_vjp,
    jvp=_i1e_vjp,
    conventions="d/dx at x = 0 is 1/2 (the limit).",
)

# ----- the standard normal CDF ----------------------------------------------------------

_SQRT1_2 = math.sqrt(0.5)

_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)

_SQRT_2PI = math.sqrt(2.0 * math.pi)

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def _ndtr(x):
    """Φ(x) = erfc(-x/√2)/2, the standard normal CDF"""
    if x.dtype == xp.float64:
        return 0.5 * _erfc64(x * -_SQRT1_2)
    return _float32_path(_ndtr32_block, x)


def _gelu_none(x):
    """x Φ(x), GELU's forward (activations.gelu), in one pass over x for float32"""
    if x.dtype == xp.float64:
        return x * _ndtr(x)
    return _float32_path(functools.partial(_ndtr32_block, form="gelu"), x)


def gelu_and_cdf(x):
    """(x Φ(x), Φ(x)) for a float32 array x, each rounded once from one evaluation: GELU's
    forward, and the Φ its backward reads (``activations.gelu``'s ``cdf``)"""
    flat = x.reshape(-1)
    out = xp.empty(flat.shape, x.dtype)
    cdf = xp.empty(flat.shape, x.dtype)
    _blockwise(functools.partial(_ndtr32_block, form="gelu"), flat, out, cdf)
    return out.reshape(x.shape), cdf.reshape(x.shape)


def _gelu_slope(x):
    """Φ(x) + x φ(x), GELU's derivative"""
    if x.dtype == xp.float64:
        return _ndtr(x) + x * xp.exp(-0.5 * (x * x)) * _INV_SQRT_2PI
    return _float32_path(functools.partial(_ndtr32_block, form="slope"), x)


def _gelu_slope_grad(g, x):
    """d/dx (Φ(x) + x φ(x)) = (2 - x²) φ(x)"""
    return g * ((2 - x * x) * (unary.exp(-0.5 * (x * x)) * _INV_SQRT_2PI))


# private: GELU's VJP is g · gelu_slope(x), one pass for float32; an op for create_graph
gelu_slope = defop(
    "_gelu_slope",
    _gelu_slope,
    node="GeluBackwardBackward0",
    dtypes=floating_only("GeluKernelImpl"),
    vjp=_gelu_slope_grad,
    jvp=_gelu_slope_grad,
)


def _ndtr_grad(g, x):
    """Φ'(x) = φ(x) = e^(-x²/2)/√(2π)"""
    return g * (unary.exp(-0.5 * (x * x)) * _INV_SQRT_2PI)


# private: GELU's derivative is Φ(x) + xφ(x), and Φ must be an op for create_graph
normal_cdf = defop(
    "_ndtr",
    _ndtr,
    node="SpecialNdtrBackward0",
    dtypes=floating_only("ndtr"),
    vjp=_ndtr_grad,
    jvp=_ndtr_grad,
)


def ndtr(input):  # noqa: A002
    """Φ(input) = (1 + erf(input/√2))/2, the standard normal CDF, as PyTorch composes it."""
    return (erf(input * _SQRT1_2) + 1) * 0.5


# ----- conf-names: entr, xlog1py ---------------------------------------------------------


def _entr(x):
    """-x ln x for x > 0, 0 at x = 0, -inf for x < 0"""
    with xp.errstate(divide="ignore", invalid="ignore"):
        out = -x * xp.log(x)
    out = xp.where(x == 0, xp.zeros((), out.dtype), out)
    return xp.where(x < 0, xp.asarray(-xp.inf, out.dtype), out)


entr = defop(
    "entr",
    _entr,
    dtypes=unary.real_only("entr_cpu"),
    node="SpecialEntrBackward0",
    vjp=lambda g, x: g * -(1 + unary.log(x)),  # d/dx (-x ln x) = -(1 + ln x)
    jvp=lambda t, x: t * -(1 + unary.log(x)),  # as the VJP
)


def _xlog1py(a, b):
    """a · ln(1 + b), 0 where a = 0 (unless b is nan)"""
    ref = a if hasattr(a, "dtype") else b
    if not hasattr(b, "dtype"):  # a Python number: computed in a's dtype
        b = xp.asarray(b, dtype=ref.dtype)
    if not hasattr(a, "dtype"):
        a = xp.asarray(a, dtype=ref.dtype)
    with xp.errstate(divide="ignore", invalid="ignore"):
        out = a * xp.log1p(b)
    return xp.where((a == 0) & ~xp.isnan(b), xp.zeros_like(out), out)


def _xlog1py_node(a, b):
    if not hasattr(a, "shape"):
        return "SpecialXlog1PyBackward1"
    return "SpecialXlog1PyBackward0" if hasattr(b, "shape") else "SpecialXlog1PyBackward2"


def _xlog1py_da(g, a, b):
    """d/da a ln(1 + b) = ln(1 + b); 0 where a = 0 and b ≤ -1 (as PyTorch)"""
    if not hasattr(b, "dtype"):
        b = xp.asarray(b, dtype=(g._data if hasattr(g, "_data") else xp.asarray(g)).dtype)
    zero = (array_of(a) == 0) & (array_of(b) <= -1)
    return logical.select(zero, 0, xlog1py(g, b))


xlog1py = defop(
    "xlog1py",
    _xlog1py,
    args=("a", "b"),
    dtypes=unary.real_only("xlog1py_cpu"),
    node=_xlog1py_node,
    vjp=(
        _xlog1py_da,
        lambda g, a, b: g * (a / (1 + b)),  # d/db a ln(1 + b) = a / (1 + b)
    ),
    jvp=(
        _xlog1py_da,
        lambda t, a, b: t * (a / (1 + b)),  # as the VJP
    ),
    conventions="d/da is 0 where a = 0 and b ≤ -1, as PyTorch's.",
)


# ----- erfcx, log_ndtr, ndtri ---------------------------------------------------------------
#
# erfcx(x) = e^(x²) erfc(x): for 1.25 <= x < 28 it is fdlibm's e^(-0.5625 + R/S)/x exactly
# (the e^(-x²) of erfc cancels), beyond the asymptotic series 1/(x√π) Σ (-1)^k (2k-1)!!/(2x²)^k
# (8 terms: below an ulp for x >= 28), below 1.25 e^(x²) erfc(x) (x² < 1.6, no loss); for
# x < 0, 2e^(x²) - erfcx(-x) (inf below -26.7, as PyTorch). ndtri uses Cephes' rational
# approximations (Moshier, Cephes Math Library 2.1, 1989): x = √(2π)(w + w³R(w²)) around
# the middle, z - ln(z)/z - P(1/z)/(z Q(1/z)), z = √(-2 ln y), in the tails.

_INV_SQRT_PI = 1.0 / _SQRT_PI


def _erfcx64(x):
    """e^(x²) erfc(x) in float64."""
    x = xp.asarray(x, dtype=xp.float64)
    a = xp.abs(x)
    with xp.errstate(all="ignore"):
        near = xp.exp(a * a) * _erf_erfc(a)[1]
        w = 1.0 / (a * a)
        rs = xp.where(
            a < 1.0 / 0.35, _horner(w, _RA) / _horner(w, _SA), _horner(w, _RB) / _horner(w, _SB)
        )
        mid = xp.exp(-0.5625 + rs) / a
        series = xp.zeros(a.shape)
        half_w = 0.5 * w
        for k in range(8, 0, -1):  # Σ_k (-1)^k (2k-1)!! / (2x²)^k, nested
            series = -(2 * k - 1) * half_w * (1.0 + series)
        far = (1.0 + series) * _INV_SQRT_PI / a
        pos = xp.where(a < 1.25, near, xp.where(a < 28.0, mid, far))
        neg = xp.where(x < -26.7, xp.inf, 2.0 * xp.exp(x * x) - pos)
    return xp.where(x < 0, neg, pos)


def _erfcx(x):
    """erfcx(x) = e^(x²) erfc(x), the scaled complementary error function"""
    return _erfcx64(x).astype(x.dtype)


def _erfcx_slope(x):
    """d/dx erfcx(x) = 2x erfcx(x) - 2/√π, which cancels as x grows (to -1/(√π x²)): formed
    in float64, and beyond x = 28 as the asymptotic series (2/√π) Σ_(k≥1) (-1)^k
    (2k-1)!! / (2x²)^k (8 terms, as erfcx's own)"""
    dtype = array_of(x).dtype
    if dtype != xp.float64:
        x = copies.to_dtype(x, dtype=_dtypes.float64)
    far = array_of(x) >= 28.0
    x_far = logical.select(far, x, 28.0)
    half_w = 0.5 / (x_far * x_far)
    series = 0.0
    for k in range(8, 0, -1):
        series = -(2 * k - 1) * half_w * (1.0 + series)
    near = 2 * x * erfcx(logical.select(far, 0.0, x)) - unary._TWO_OVER_SQRT_PI
    slope = logical.select(far, series * unary._TWO_OVER_SQRT_PI, near)
    if dtype != xp.float64:
        slope = copies.to_dtype(slope, dtype=_dtypes.from_numpy_dtype(dtype))
    return slope


erfcx = defop(
    "special_erfcx",
    _erfcx,
    dtypes=double_kernels("erfcx_cpu"),
    vjp=lambda g, x: g * _erfcx_slope(x),  # d/dx erfcx(x) = 2x erfcx(x) - 2/√π
    jvp=lambda t, x: t * _erfcx_slope(x),  # as the VJP
)


def _log_ndtr(x):
    """ln Φ(x): ln(erfcx(-x/√2)/2) - x²/2 for x < -1, else ln(1 - erfc(x/√2)/2)"""
    x64 = xp.asarray(x, dtype=xp.float64)
    t = x64 * _SQRT1_2
    with xp.errstate(all="ignore"):
        left = xp.log(_erfcx64(-t) / 2) - t * t
        right = xp.log1p(-_erf_erfc(t)[1] / 2)
    return xp.where(x64 < -1.0, left, right).astype(x.dtype)


def _log_ndtr_grad(g, x):
    """d/dx ln Φ(x) = φ(x)/Φ(x) = √(2/π) / erfcx(-x/√2) (the e^(-x²/2) of φ and Φ cancel:
    no difference of ln Φ(x) and -x²/2, which loses every digit for large negative x)"""
    return g * (_SQRT_2_OVER_PI / erfcx(x * -_SQRT1_2))


log_ndtr = defop(
    "special_log_ndtr",
    _log_ndtr,
    dtypes=double_kernels("log_ndtr_cpu"),
    vjp=_log_ndtr_grad,
    jvp=_log_ndtr_grad,
)

_NDTRI_P0 = (
    -5.99633501014107895267e1,
    9.80010754185999661536e1,
    -5.66762857469070293439e1,
    1.39312609387279679503e1,
    -1.23916583867381258016e0,
)
_NDTRI_Q0 = (
    1.0,
    1.95448858338141759834e0,
    4.67627912898881538453e0,
    8.63602421390890590575e1,
    -2.25462687854119370527e2,
    2.00260212380060660359e2,
    -8.20372256168333339912e1,
    1.59056225126211695515e1,
    -1.18331621121330003142e0,
)
_NDTRI_P1 = (
    4.05544892305962419923e0,
    3.15251094599893866154e1,
    5.71628192246421288162e1,
    4.40805073893200834700e1,
    1.46849561928858024014e1,
    2.18663306850790267539e0,
    -1.40256079171354495875e-1,
    -3.50424626827848203418e-2,
    -8.57456785154685413611e-4,
)
_NDTRI_Q1 = (
    1.0,
    1.57799883256466749731e1,
    4.53907635128879210584e1,
    4.13172038254672030440e1,
    1.50425385692907503408e1,
    2.50464946208309415979e0,
    -1.42182922854787788574e-1,
    -3.80806407691578277194e-2,
    -9.33259480895457427372e-4,
)
_NDTRI_P2 = (
    3.23774891776946035970e0,
    6.91522889068984211695e0,
    3.93881025292474443415e0,
    1.33303460815807542389e0,
    2.01485389549179081538e-1,
    1.23716634817820021358e-2,
    3.01581553508235416007e-4,
    2.65806974686737550832e-6,
    6.23974539184983293730e-9,
)
_NDTRI_Q2 = (
    1.0,
    6.02427039364742014255e0,
    3.67983563856160859403e0,
    1.37702099489081330271e0,
    2.16236993594496635890e-1,
    1.34204006088543189037e-2,
    3.28014464682127739104e-4,
    2.89247864745380683936e-6,
    6.79019408009981274425e-9,
)
_EXP_M2 = 0.13533528323661269189  # e^-2


def _highest_first(z, coeffs):
    return _horner(z, coeffs[::-1])


def _ndtri(p):
    """Φ⁻¹(p), the standard normal quantile: -inf at 0, inf at 1, nan outside [0, 1]"""
    p64 = xp.asarray(p, dtype=xp.float64)
    upper = p64 > 1.0 - _EXP_M2
    y = xp.where(upper, 1.0 - p64, p64)
    with xp.errstate(all="ignore"):
        w = y - 0.5
        w2 = w * w
        middle = w + w * (w2 * _highest_first(w2, _NDTRI_P0) / _highest_first(w2, _NDTRI_Q0))
        middle = middle * math.sqrt(2 * math.pi)
        z = xp.sqrt(-2.0 * xp.log(y))
        inv = 1.0 / z
        near = inv * _highest_first(inv, _NDTRI_P1) / _highest_first(inv, _NDTRI_Q1)
        far = inv * _highest_first(inv, _NDTRI_P2) / _highest_first(inv, _NDTRI_Q2)
        tail = z - xp.log(z) / z - xp.where(z < 8.0, near, far)
        tail = xp.where(upper, tail, -tail)
    out = xp.where(y > _EXP_M2, middle, tail)
    out = xp.where(p64 == 0, -xp.inf, xp.where(p64 == 1, xp.inf, out))
    return xp.where((p64 < 0) | (p64 > 1), xp.nan, out).astype(p.dtype)


ndtri = defop(
    "special_ndtri",
    _ndtri,
    dtypes=double_kernels("ndtri_cpu"),
    vjp=lambda g, ans: g * (unary.exp(ans * ans / 2) * math.sqrt(2 * math.pi)),  # 1/φ(ans)
    jvp=lambda t, ans: t * (unary.exp(ans * ans / 2) * math.sqrt(2 * math.pi)),  # as the VJP
)
