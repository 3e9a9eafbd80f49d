"""PyTorch's CPU sampling algorithms, on a generator's Mersenne Twister words, so that the
same seed gives PyTorch's numbers.

A generator hands out 32-bit words (``random()``) and 64-bit ones made of two words, the
first high (``random64()``). From them, as ATen's CPU kernels do:

- uniform on [0, 1): the low ``digits`` bits of a word times 2^-digits (53 of a 64-bit word
  for float64, 24 of a 32-bit one for the other floats, drawn as float32 and rounded); on
  [a, b): ``u·(b - a) + a``, fused (a 16-bit float rounded up to b gives a);
- normal: Box-Muller. A contiguous tensor of 16 or more elements is filled with uniforms
  first, then transformed 16 at a time, element j paired with j + 8 (radius from the
  first, angle from the second); when the size is not a multiple of 16 the last 16 are
  drawn again and transformed again (float16 and bfloat16: float32's values rounded, the
  last 16 drawn right after the whole blocks, not after all n). Otherwise each element is
  one float64 draw from a pair of uniforms (the cosine), the sine kept by the generator
  for the next one;
- integers in [a, b): a word modulo b - a, plus a (a 64-bit word when b - a >= 2^32);
- Bernoulli(p): a uniform < p; exponential, geometric, Cauchy: the inverse CDF of a float64
  uniform (with log1p where PyTorch's formulas have it); log-normal: exp of a cached-pair normal;
- a permutation: Fisher-Yates, swapping element i with i + (word mod (n - i)).

Every function returns a flat array in drawing order; ``in_visit_order`` lays it out as
PyTorch's iterator visits a tensor's elements (in memory order).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from . import _cephes
from ._backend import xp

if TYPE_CHECKING:
    from ._dtypes import dtype as DType
    from ._random import Generator

_U64 = xp.uint64
_F32, _F64 = xp.float32, xp.float64
DIGITS = {"float64": 53, "float32": 24, "float16": 11, "bfloat16": 8}  # random_()'s range
_TWO_PI = 2.0 * math.pi
_MASK53 = (1 << 53) - 1
_CHUNK = 1 << 16  # elements drawn and transformed at a time (a multiple of 16; their
# temporaries stay in a core's L2 cache: float32 randn 1.25x faster than with 1 << 18)


# ----- exact float arithmetic --------------------------------------------------------------


def _two_product_error(a: Any, b: Any, p: Any) -> Any:
    """The rounding error of p = a·b in float64 (Veltkamp's split)."""
    split = 134217729.0  # 2^27 + 1

    def halves(v: Any) -> tuple[Any, Any]:
        t = split * v
        hi = t - (t - v)
        return hi, v - hi

    ah, al = halves(a)
    bh, bl = halves(b)
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl


def fma64(a: Any, b: Any, c: Any) -> Any:
    """a·b + c in float64 with one rounding (error-free product and sum; a double rounding
    is left only where the three terms' sum lands within 2^-106 of a tie)."""
    a, b, c = xp.asarray(a, _F64), xp.asarray(b, _F64), xp.asarray(c, _F64)
    p = a * b
    e = _two_product_error(a, b, p)
    s = p + c
    bv = s - p
    t = (p - (s - bv)) + (c - bv)
    return s + (t + e)


def fused(a: Any, b: Any, c: Any, acc: Any) -> Any:
    """a·b + c rounded once in the accumulation dtype ``acc`` (float32 or float64); a itself
    for b = 1, c = 0; for c = 0 the rounded product, a -0 made +0 (as -0 + 0)."""
    if b == 1 and c == 0:
        return xp.asarray(a, acc)
    if c == 0:
        product = xp.multiply(a, b, dtype=acc)
        product += 0
        return product
    return fma64(a, b, c) if acc == _F64 else _cephes.fma32(a, b, c)


# ----- words and uniforms ------------------------------------------------------------------


def words32(gen: Generator, n: int) -> Any:
    """n 32-bit words (as uint64)."""
    return gen._bits.random_raw(n)


def words64(gen: Generator, n: int) -> Any:
    """n 64-bit words, each of two 32-bit ones, the first high."""
    w = words32(gen, 2 * n)
    return (w[0::2] << _U64(32)) | w[1::2]


def acc_dtype(dt: DType) -> Any:
    """The dtype PyTorch's CPU samplers compute in: float64 for float64, float32 else."""
    return xp.dtype(_F64) if dt.name == "float64" else xp.dtype(_F32)


def uniform01(gen: Generator, n: int, dt: DType) -> Any:
    """n uniforms on [0, 1) in dt's accumulation dtype: 53 bits for float64, 24 else."""
    if dt.name == "float64":
        w = words64(gen, n)
        w &= _U64((1 << 53) - 1)
        u = w.astype(_F64)
        u *= 2.0**-53
        return u
    w = words32(gen, n)
    w &= _U64((1 << 24) - 1)
    u = w.astype(_F32)  # (exact: 24 bits)
    u *= _F32(2.0**-24)
    return u


def uniform(gen: Generator, n: int, dt: DType, low: float, high: float, out: Any = None) -> Any:
    """n uniforms on [low, high) in dt (the bounds first rounded to dt; a value rounded up
    to high is low), written into ``out`` when given (n contiguous values of dt)."""
    acc = acc_dtype(dt)
    lo, hi = (xp.asarray(v).astype(dt.np) for v in (low, high))
    width, start = hi.astype(acc) - lo.astype(acc), lo.astype(acc)
    out = xp.empty(n, dt.np) if out is None else out
    for i in range(0, n, _CHUNK):
        m = min(_CHUNK, n - i)
        values = fused(uniform01(gen, m, dt), width, start, acc).astype(dt.np, copy=False)
        rounded_up = values == hi
        if rounded_up.any():
            values[rounded_up] = lo
        out[i : i + m] = values
    return out


# ----- normal ------------------------------------------------------------------------------


def normal_pairs(gen: Generator, n: int) -> Any:
    """n float64 standard normals one at a time: each new pair of uniforms (u1, u2) gives
    r·cos θ now and r·sin θ on the next call (r = √(-2 log(1 - u2)), θ = 2π u1); the
    generator keeps that second value between calls."""
    out = xp.empty(n, _F64)
    start = 0
    if n and gen._next_normal is not None:
        out[0], gen._next_normal = gen._next_normal, None
        start = 1
    m = n - start
    if 0 < m <= 8:  # (a few: Python's math, the C library's as NumPy's, is quicker here)
        words = words32(gen, 4 * ((m + 1) // 2)).tolist()  # (two 64-bit words a pair)
        seq = []
        for i in range(0, len(words), 4):
            u1 = (((words[i] << 32) | words[i + 1]) & _MASK53) * 2.0**-53
            u2 = (((words[i + 2] << 32) | words[i + 3]) & _MASK53) * 2.0**-53
            r = math.sqrt(-2.0 * math.log1p(-u2))
            seq += (r * math.cos(_TWO_PI * u1), r * math.sin(_TWO_PI * u1))
        out[start:] = seq[:m]
        if m % 2:
            gen._next_normal = seq[m]
    elif m:
        pairs = (m + 1) // 2
        u = uniform01(gen, 2 * pairs, _dtype64())
        r = xp.sqrt(-2.0 * c_library("log1p", -u[1::2]))
        theta = _TWO_PI * u[0::2]
        seq = xp.empty(2 * pairs, _F64)
        seq[0::2], seq[1::2] = r * xp.cos(theta), r * xp.sin(theta)
        out[start:] = seq[:m]
        if m % 2:
            gen._next_normal = float(seq[m])
    return out


# On AVX-512 machines NumPy evaluates some float64 functions with its own vector code, an
# ulp off the C library's (which PyTorch's CPU samplers call) for 0.3% (log) to 7% (log1p)
# of arguments: there, arrays of up to this many values go through Python's math (the C
# library's functions) one value at a time, some 60 ns each, so that draws of the sizes
# tests and small models make are PyTorch's to the bit; larger ones stay NumPy's.
_MATH_UP_TO = 1 << 16
_MATH = {"log": math.log, "log1p": math.log1p, "tan": math.tan, "exp": math.exp}
_NUMPY_IS_LIBM: list[bool] = []


def _numpy_is_libm() -> bool:
    """Whether NumPy's float64 log, log1p, tan and exp give the C library's values here
    (checked once, on 4000 arguments)."""
    if not _NUMPY_IS_LIBM:
        x = xp.linspace(0.0005, 0.9995, 1000)
        points = {"log": x, "log1p": -x, "tan": (x - 0.5) * math.pi, "exp": 20 * x - 10}
        _NUMPY_IS_LIBM.append(
            all(
                getattr(xp, name)(v).tolist() == list(map(_MATH[name], v.tolist()))
                for name, v in points.items()
            )
        )
    return _NUMPY_IS_LIBM[0]


def c_library(name: str, x: Any, draw: int = 0) -> Any:
    """The C library's float64 ``name`` (log, log1p, tan, exp) of the float64 array x:
    NumPy's, or where NumPy's own differ (AVX-512), Python's math for draws of up to
    ``_MATH_UP_TO`` values (``draw``: the whole draw's size when x is a part of it; an
    argument out of math's domain or range: NumPy's value)."""
    ours = getattr(xp, name)
    if max(x.size, draw) > _MATH_UP_TO or _numpy_is_libm():
        return ours(x)
    fn = _MATH[name]

    def one(v: float) -> float:
        try:
            return fn(v)
        except (ValueError, OverflowError):  # (log 0, exp of a large value)
            return float(ours(v))

    return xp.fromiter(map(one, x.ravel().tolist()), _F64, x.size).reshape(x.shape)


def _avx2() -> bool:
    """Whether PyTorch runs its AVX2 normal kernel here, as it does on every AVX2 or
    AVX-512 machine (AVX-512 falls back to the AVX2 kernel): its float32 Box-Muller is then
    Cephes' polynomials; elsewhere the C library's log, sin and cos."""
    from .backends.cpu import get_cpu_capability

    return get_cpu_capability() in ("AVX2", "AVX512")


def _dtype64() -> DType:
    from . import _dtypes

    return _dtypes.float64


def _box_muller_16(u: Any, dt: DType, mean: Any, std: Any, out: Any, draw: int) -> None:
    """Blocks of 16 uniforms (rows) to 16 normals each, written into ``out`` (rows of 16 of
    the accumulation dtype): j and j + 8 paired (``draw``: the whole draw's size)."""
    u1, u2 = u[:, :8], u[:, 8:]
    if dt.name == "float64":
        radius = xp.sqrt(-2.0 * c_library("log", 1.0 - u1, draw))
        theta = _TWO_PI * u2
        out[:, :8] = fused(radius * xp.cos(theta), std, mean, _F64)
        out[:, 8:] = fused(radius * xp.sin(theta), std, mean, _F64)
        return
    if dt.name == "float32" and _avx2():
        radius = xp.sqrt(_F32(-2) * _cephes.log(_F32(1) - u1))
        trig = _cephes.sincos(_F32(_TWO_PI) * u2)[::-1]  # (cos, sin)
    else:  # float32 elsewhere: the C library's log, sin and cos, each rounded to float32
        radius = xp.sqrt(_F32(-2) * xp.log((_F32(1) - u1).astype(_F64)).astype(_F32))
        theta = (_TWO_PI * u2.astype(_F64)).astype(_F32).astype(_F64)
        trig = (xp.cos(theta).astype(_F32), xp.sin(theta).astype(_F32))
    for half, v in zip((out[:, :8], out[:, 8:]), trig):
        v *= radius
        half[...] = fused(v, std, mean, _F32)


def normal(
    gen: Generator,
    n: int,
    dt: DType,
    mean: float,
    std: float,
    contiguous: bool = True,
    out: Any = None,
) -> Any:
    """n samples of N(mean, std²) in dt: Box-Muller by blocks of 16 for a contiguous
    tensor of 16 or more, the cached-pair draws otherwise; written into ``out`` when given
    (n contiguous values of float32 or float64)."""
    if out is not None and (n < 16 or not contiguous or acc_dtype(dt) != out.dtype):
        out[...] = normal(gen, n, dt, mean, std, contiguous)
        return out
    if n < 16 or not contiguous:
        return fused(normal_pairs(gen, n), std, mean, _F64).astype(dt.np)
    if dt.name in ("float16", "bfloat16"):  # float32's blocks, rounded; the last 16 drawn
        from ._dtypes import float32  # right after the whole blocks

        whole = n // 16 * 16
        out = xp.empty(n, dt.np)
        out[:whole] = normal(gen, whole, float32, mean, std)
        if whole != n:
            out[n - 16 :] = normal(gen, 16, float32, mean, std)
        return out
    acc = acc_dtype(dt)
    mean_, std_ = (xp.asarray(v).astype(dt.np).astype(acc) for v in (mean, std))
    whole = n // 16 * 16
    out = xp.empty(n, acc) if out is None else out
    for i in range(0, whole, _CHUNK):  # (all n uniforms drawn before the last 16)
        m = min(_CHUNK, whole - i)
        u = uniform01(gen, m, dt).reshape(-1, 16)
        _box_muller_16(u, dt, mean_, std_, out[i : i + m].reshape(-1, 16), n)
    if whole != n:  # the rest drawn, then the last 16 drawn again
        uniform01(gen, n - whole, dt)
        tail = uniform01(gen, 16, dt).reshape(1, 16)
        _box_muller_16(tail, dt, mean_, std_, out[n - 16 :].reshape(1, 16), n)
    return out.astype(dt.np, copy=False)


# ----- discrete and other continuous distributions -----------------------------------------


def bernoulli(gen: Generator, p: Any, n: int, double: bool = True) -> Any:
    """n draws of u < p (p a number or n probabilities), u float64 or (``double`` False)
    float32 and compared in float32."""
    if double and isinstance(p, (int, float)) and 0 <= p <= 1:
        return _below(words32(gen, 2 * n), math.ceil(p * 2.0**53))
    if double:
        return uniform01(gen, n, _dtype64()) < p
    from . import _dtypes

    return uniform01(gen, n, _dtypes.float32) < xp.asarray(p).astype(_F32)


def _below(words: Any, threshold: int) -> Any:
    """For each pair of words (high, low): whether its 53-bit uniform u = w·2^-53 (w the low
    53 bits of high·2^32 + low) is below p, given as ``threshold`` = ⌈p·2^53⌉: w < threshold
    is u < p exactly (w an integer), compared on the high 21 bits and, where they tie (one
    pair in 2^21), on the low word: no 64-bit words formed, no floats."""
    high = words[0::2] & _U64((1 << 21) - 1)
    top = threshold >> 32
    below = high < _U64(top)
    ties = xp.flatnonzero(high == _U64(top))
    if ties.size:
        below[ties] = words[1::2][ties] < _U64(threshold & 0xFFFFFFFF)
    return below


def exponential(gen: Generator, n: int, lambd: float) -> Any:
    """-log1p(-u)/λ, float64 (PyTorch's CPU formula: log(1 - u) differs by an ulp for some
    7% of u)."""
    return (-1.0 / lambd) * c_library("log1p", -uniform01(gen, n, _dtype64()))


def geometric(gen: Generator, n: int, p: float) -> Any:
    """⌈log u / log1p(-p)⌉, float64."""
    u = uniform01(gen, n, _dtype64())
    return xp.ceil(c_library("log", u) / c_library("log1p", xp.asarray(-p, _F64)))


def cauchy(gen: Generator, n: int, median: float, sigma: float) -> Any:
    """median + σ·tan(π(u - ½)), float64."""
    return fma64(sigma, c_library("tan", math.pi * (uniform01(gen, n, _dtype64()) - 0.5)), median)


def log_normal(gen: Generator, n: int, mean: float, std: float) -> Any:
    """exp(mean + std·z), z of the cached-pair draws, float64."""
    return c_library("exp", fused(normal_pairs(gen, n), std, mean, _F64))


def integers(gen: Generator, n: int, low: int, high: int, dt: DType) -> Any:
    """n integers on [low, high) for a tensor of dt: a word modulo high - low, plus low
    (a 64-bit word when the range is 2^32 or more and dt is int64, float64, float32 or
    bfloat16)."""
    span = high - low
    wide = span >= 1 << 32 and dt.name in ("int64", "float64", "float32", "bfloat16")
    w = words64(gen, n) if wide else words32(gen, n)
    return (w % _U64(span)).astype(xp.int64) + xp.int64(low)


def every_integer(gen: Generator, n: int, dt: DType) -> Any:
    """``random_()``: [0, 2^digits] for floats, [0, max] for integers, {0, 1} for bool
    (int64 and float64 from 64-bit words)."""
    name = dt.name
    if name == "bool":
        return (words32(gen, n) & _U64(1)).astype(bool)
    if name in DIGITS:
        modulus = (1 << DIGITS[name]) + 1
    else:
        modulus = int(xp.iinfo(dt.np).max) + 1
    w = words64(gen, n) if name in ("int64", "float64", "uint64") else words32(gen, n)
    if modulus >= 1 << 64:
        return w
    return w % _U64(modulus)


def permutation(gen: Generator, n: int) -> Any:
    """A random permutation of 0..n-1: for i < n - 1, swap i with i + (word mod (n - i))."""
    order = list(range(n))
    if n > 1:
        offsets = (words32(gen, n - 1) % xp.arange(n, 1, -1, dtype=_U64)).tolist()
        for i, z in enumerate(offsets):
            j = i + z
            order[i], order[j] = order[j], order[i]
    return xp.asarray(order, dtype=xp.int64)


def _visit_dims(target: Any) -> list[int]:
    """Target's dims from the largest stride to the smallest (memory order)."""
    return sorted(range(target.ndim), key=lambda d: -abs(target.strides[d]))


def flat_in_visit_order(values: Any, target: Any) -> Any:
    """``values`` (target's shape) in the order PyTorch's iterator visits target's."""
    if target.flags.c_contiguous:
        return values.reshape(-1)
    return values.transpose(_visit_dims(target)).reshape(-1)


def in_visit_order(flat: Any, target: Any) -> Any:
    """``flat`` laid out in target's shape in the order PyTorch's iterator visits target's
    elements: memory order (dims by decreasing stride), row-major for a contiguous one."""
    shape = target.shape
    if target.flags.c_contiguous:
        return flat.reshape(shape)
    dims = _visit_dims(target)
    out = xp.empty(shape, flat.dtype)
    out.transpose(dims)[...] = flat.reshape([shape[d] for d in dims])
    return out
