"""Cephes' single-precision logarithm and sine/cosine, evaluated step by step as PyTorch's
AVX2 CPU kernels evaluate them (its ``avx_mathfun.h``, compiled with fused multiply-adds),
so that ``torch.randn``'s Box-Muller transform gives PyTorch's float32 numbers to the bit.

Every step is one float32 operation; ``fma32`` is a fused multiply-add: the float32
product is exact in float64, so one float64 addition rounded to float32 is the fused
result (but for a double rounding, about once in 2**29 operations).
"""

from __future__ import annotations

from typing import Any

from ._backend import xp

_F32 = xp.float32
_LOG_P = (
    7.0376836292e-2,
    -1.1514610310e-1,
    1.1676998740e-1,
    -1.2420140846e-1,
    1.4249322787e-1,
    -1.6668057665e-1,
    2.0000714765e-1,
    -2.4999993993e-1,
    3.3333331174e-1,
)
_LOG_Q1, _LOG_Q2 = _F32(-2.12194440e-4), _F32(0.693359375)
_SQRT_HALF = _F32(0.707106781186547524)
_MIN_NORMAL = _F32(1.1754943508222875e-38)  # 0x00800000
_MINUS_DP = (_F32(-0.78515625), _F32(-2.4187564849853515625e-4), _F32(-3.77489497744594108e-8))
_FOUR_OVER_PI = _F32(1.27323954473516)
_COS_P = (2.443315711809948e-005, -1.388731625493765e-003, 4.166664568298827e-002)
_SIN_P = (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1)
_ONE, _HALF = _F32(1.0), _F32(0.5)
_U32 = xp.uint32
_SIGN = _U32(0x80000000)


def fma32(a: Any, b: Any, c: Any) -> Any:
    """a·b + c rounded once to float32 (a, b, c float32)."""
    t = xp.array(a, xp.float64)
    t *= b
    t += c
    return t.astype(_F32)


def horner(x: Any, coefficients: tuple) -> Any:
    """fma32(...fma32(fma32(c0, x, c1), x, c2)..., x, cn): the polynomial by fused steps,
    each rounded to float32, run in float64 (x converted once; each step's exact product,
    its sum rounded once, then to float32 and back)."""
    x64 = x.astype(xp.float64)
    t = x64 * xp.float64(_F32(coefficients[0]))
    rounded = xp.empty(x.shape, _F32)
    for c in coefficients[1:-1]:
        t += xp.float64(_F32(c))
        rounded[...] = t
        t[...] = rounded
        t *= x64
    t += xp.float64(_F32(coefficients[-1]))
    rounded[...] = t
    return rounded


def _select(keep: Any, a: Any, b: Any) -> Any:
    """``a`` where ``keep`` (bool), else ``b`` (float32 arrays), by their bits: where's
    result without its branch per element (several times slower on a random mask)."""
    flips = xp.bitwise_xor(a.view(_U32), b.view(_U32))
    flips &= -keep.astype(_U32)  # (all ones where keep)
    flips ^= b.view(_U32)
    return flips.view(_F32)


def log(x: Any) -> Any:
    """ln x for float32 x > 0: x = m·2^e with m in [√½, √2), ln m by a degree-9 polynomial
    in m - 1, e·ln 2 added in two parts."""
    x = xp.maximum(x, _MIN_NORMAL)
    bits = x.view(xp.int32)
    e = ((bits >> 23) - 0x7F).astype(_F32) + _ONE
    x = ((bits & ~0x7F800000) | 0x3F000000).view(_F32)  # the mantissa in [0.5, 1)
    small = x < _SQRT_HALF
    shifted = x * small  # (x where small, else +0: x is positive)
    x = x - _ONE
    e = e - small  # (less one where small)
    x = x + shifted
    z = x * x
    y = horner(x, _LOG_P)
    y = y * x
    y = fma32(y, z, e * _LOG_Q1)
    y = y - z * _HALF  # (exact products, |e| < 2^8 and Q2 of 9 bits: no fused add needed)
    return (x + y) + e * _LOG_Q2


def sincos(x: Any) -> tuple[Any, Any]:
    """(sin x, cos x) for float32 x, |x| < 3000 (Box-Muller's angles are below 2π): reduced
    by the octant j of x·4/π (three-part π/4), then the sine or cosine polynomial on
    [-π/4, π/4] as the octant says, the signs set on the bits."""
    sign_sin = x.view(_U32) & _SIGN
    x = xp.abs(x)
    j = (x * _FOUR_OVER_PI).astype(xp.int32)
    j = (j + 1) & ~1
    y = j.astype(_F32)
    octant = j.view(_U32)
    sign_sin ^= (octant & 4) << 29  # (bit 2 of j moved to the sign bit)
    sign_cos = (~(octant - 2) & 4) << 29
    use_sin_poly = (octant & 2) == 0
    x = x + y * _MINUS_DP[0]  # (y even and below 2^12: these two products are exact)
    x = x + y * _MINUS_DP[1]
    x = fma32(y, _MINUS_DP[2], x)
    z = x * x
    c = horner(z, _COS_P)
    c = c * z
    c = fma32(c, z, -(z * _HALF))
    c = c + _ONE
    s = horner(z, _SIN_P)
    s = s * z
    s = fma32(s, x, x)
    sin, cos = _select(use_sin_poly, s, c), _select(use_sin_poly, c, s)
    sin.view(_U32)[...] ^= sign_sin
    cos.view(_U32)[...] ^= sign_cos
    return sin, cos
