"""PyTorch's CPU rejection samplers (gamma, Dirichlet, Poisson, binomial), draw for draw.

Each element is drawn in turn, its loop taking float64 uniforms (53 bits of a 64-bit
word) and float64 normals (the cached-pair Box-Muller of ``_sampling.normal_pairs``, whose
kept second value is the generator's) until it accepts, as ATen's CPU kernels do:

- gamma(α): Marsaglia and Tsang's squeeze and log tests on d = α - 1/3 (1/3 a float
  literal), c = 1/√(9d); α < 1 drawn as Gamma(α + 1)·(1 - u)^(1/α). For float32 the
  arithmetic on α itself is float32's; the draw is rounded to the dtype and at least its
  smallest normal number;
- Dirichlet(α): float64 gammas, each over the sum of its row, rounded to the dtype and
  kept within [smallest normal, largest number below 1];
- Poisson(λ): products of uniforms against e^-λ for λ < 10, Hörmann's transformed
  rejection (PTRS) from 10 on;
- binomial(n, p): inversion by geometric jumps when n·min(p, 1-p) < 10, Hörmann's BTRS
  above (count - draw for p > 1/2), float32's arithmetic where PyTorch's is float32.

The words are read from the Mersenne Twister a chunk at a time and the stream is set back
to just after the last one used. Every log, exp, pow, sin and cos is the C library's (as
PyTorch's), lgamma and float32's log1p the C library's through ctypes where it has them.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import math
import struct
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._backend import xp

if TYPE_CHECKING:
    from ._random import Generator

_MASK53 = (1 << 53) - 1
_INF = math.inf
_THIRD_F = 0.3333333432674408  # 1.0f / 3.0f
_SQUEEZE_F = 0.033100001513957977  # 0.0331f
_LANES = 4  # float64 lanes of the AVX2 sum kernel PyTorch runs (also on AVX-512 machines)
_FLOAT32 = struct.Struct("f")
_INT64_MIN = -(1 << 63)  # an out-of-range float to int64 (x86's conversion)
# log(k!) - ((k + 1/2) log(k + 1) - (k + 1) + log(2π)/2), k = 0..9 (BTRS' table)
_TAIL = (
    0.0810614667953272,
    0.0413406959554092,
    0.0276779256849983,
    0.02079067210376509,
    0.0166446911898211,
    0.0138761288230707,
    0.0118967099458917,
    0.0104112652619720,
    0.00925546218271273,
    0.00833056343336287,
)


@functools.cache
def _libm() -> Any:
    """The C library's maths (loaded on first use), or None."""
    try:
        lib = ctypes.CDLL("libm.so.6")
    except OSError:
        name = ctypes.util.find_library("m")
        if name is None:
            return None
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            return None
    try:
        lib.lgamma.restype, lib.lgamma.argtypes = ctypes.c_double, [ctypes.c_double]
        lib.log1pf.restype, lib.log1pf.argtypes = ctypes.c_float, [ctypes.c_float]
    except AttributeError:
        return None
    return lib


def _lgamma(x: float) -> float:
    """The C library's lgamma (Python's differs from it in the last bits)."""
    lib = _libm()
    return lib.lgamma(x) if lib is not None else math.lgamma(x)


def _f32(x: float) -> float:
    """x rounded to float32 (±inf past its range)."""
    try:
        return _FLOAT32.unpack(_FLOAT32.pack(x))[0]
    except OverflowError:
        return math.copysign(_INF, x)


def _log1pf(x: float) -> float:
    """float32's log1p of a float32 value."""
    lib = _libm()
    if lib is not None:
        return lib.log1pf(x)
    return _f32(math.log1p(x)) if x > -1 else (-_INF if x == -1 else math.nan)


def _log(x: float) -> float:
    """The C library's log, -inf at 0 and nan below."""
    if x > 0:
        return math.log(x)
    return -_INF if x == 0 else math.nan


def _floor(x: float) -> float:
    return float(math.floor(x)) if x - x == 0 else x


def _ceil(x: float) -> float:
    return float(math.ceil(x)) if x - x == 0 else x


def _same(x: float) -> float:
    return x


class _Draws:
    """float64 uniforms and normals from a generator's stream, read a chunk at a time;
    ``close`` leaves the stream (and the kept normal) just after the last draw used."""

    def __init__(self, gen: Generator, expected: int) -> None:
        self._gen = gen
        self._chunk = max(8, expected)
        self._values: list[float] = []
        self._pos = 0
        self._before: Any = None  # the stream's state before the current chunk
        self._normal = gen._next_normal

    def _refill(self) -> None:
        bits = self._gen._bits
        self._before = bits.state
        w = bits.random_raw(2 * self._chunk)
        u = (((w[0::2] << xp.uint64(32)) | w[1::2]) & xp.uint64(_MASK53)).astype(xp.float64)
        self._values = (u * 2.0**-53).tolist()
        self._pos = 0
        self._chunk *= 2

    def uniform(self) -> float:
        """A uniform on [0, 1): 53 bits of a 64-bit word."""
        if self._pos == len(self._values):
            self._refill()
        self._pos += 1
        return self._values[self._pos - 1]

    def normal(self) -> float:
        """A standard normal: the kept one, else r·cos θ of a new pair (r·sin θ kept)."""
        z = self._normal
        if z is not None:
            self._normal = None
            return z
        u1 = self.uniform()
        u2 = self.uniform()
        r = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        self._normal = r * math.sin(theta)
        return r * math.cos(theta)

    def close(self) -> None:
        if self._before is not None:
            bits = self._gen._bits
            bits.state = self._before
            bits.random_raw(2 * self._pos)
        self._gen._next_normal = self._normal


# ----- gamma and Dirichlet -----------------------------------------------------------------


def _gamma_one(alpha: float, draws: _Draws, rnd: Callable[[float], float]) -> float:
    """One Gamma(alpha, 1) draw in float64 (``rnd`` rounds the arithmetic on alpha)."""
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        try:
            scale = math.pow(1.0 - draws.uniform(), rnd(1.0 / alpha))
        except OverflowError:
            scale = _INF
        alpha = rnd(alpha + 1.0)
    d = rnd(alpha - _THIRD_F)
    c = 1.0 / math.sqrt(9.0 * d) if d > 0 else (math.nan if d < 0 or d != d else _INF)
    while True:
        while True:
            x = draws.normal()
            y = 1.0 + c * x
            if not y <= 0:
                break
        v = y * y * y
        u = 1.0 - draws.uniform()
        xx = x * x
        if u < 1.0 - _SQUEEZE_F * xx * xx or _log(u) < 0.5 * xx + d * (1.0 - v + _log(v)):
            return scale * d * v


def gamma(gen: Generator, alpha: Any, single: bool) -> Any:
    """Gamma(α, 1) draws for the flat float64 array ``alpha`` (float32 values when
    ``single``), as ``_standard_gamma``: rounded to the dtype, at least its smallest
    normal number. A float64 array."""
    rnd = _f32 if single else _same
    tiny = float(xp.finfo(xp.float32 if single else xp.float64).tiny)
    draws = _Draws(gen, 4 * alpha.size)
    out = []
    try:
        for a in alpha.tolist():
            s = rnd(_gamma_one(a, draws, rnd))
            out.append(s if tiny < s else tiny)
    finally:
        draws.close()
    return xp.asarray(out, dtype=xp.float64)


def dirichlet(gen: Generator, alpha: Any, dt: Any) -> Any:
    """Dirichlet draws over the last dim of float64 ``alpha`` for a tensor of NumPy dtype
    ``dt``: float64 gammas (at least float64's smallest normal) over their row's sum,
    rounded to dt, within [dt's smallest normal, the largest dt below 1]."""
    draws = _Draws(gen, 4 * alpha.size)
    tiny64 = float(xp.finfo(xp.float64).tiny)
    g = []
    try:
        for a in alpha.reshape(-1).tolist():
            s = _gamma_one(a, draws, _same)
            g.append(s if tiny64 < s else tiny64)
    finally:
        draws.close()
    gammas = xp.asarray(g, dtype=xp.float64).reshape(alpha.shape)
    rows = gammas.reshape(-1, gammas.shape[-1] if gammas.ndim else 1)
    with xp.errstate(invalid="ignore", over="ignore"):
        x = (rows / _row_sums(rows)[:, None]).reshape(alpha.shape).astype(dt)
    tiny = dt.type(xp.finfo(dt).tiny)
    below_one = xp.nextafter(dt.type(1), dt.type(0))
    x = xp.where(tiny < x, x, tiny)
    return xp.where(x < below_one, x, below_one)


def _chunked_sum(items: Callable[[int], Any], size: int) -> Any:
    """Sums of ``items(0..size-1)`` as PyTorch's row_sum: four interleaved running sums
    (items 4i + k), each a cascade of levels of 16 or more, the rest added to the first,
    then the four added in order."""
    n4 = size // 4
    power = max(4, (n4 - 1).bit_length() // 4)
    step, mask = 1 << power, (1 << power) - 1
    acc: list[list[Any]] = [[0.0] * 4 for _ in range(4)]
    i = 0
    while i + step <= n4:
        for _ in range(step):
            for k in range(4):
                acc[0][k] = acc[0][k] + items(4 * i + k)
            i += 1
        for j in range(1, 4):
            for k in range(4):
                acc[j][k] = acc[j][k] + acc[j - 1][k]
                acc[j - 1][k] = 0.0
            if i & (mask << (j * power)):
                break
    for rest in range(i, n4):
        for k in range(4):
            acc[0][k] = acc[0][k] + items(4 * rest + k)
    for j in range(1, 4):
        for k in range(4):
            acc[0][k] = acc[0][k] + acc[j][k]
    total = acc[0][0]
    for m in range(4 * n4, size):
        total = total + items(m)
    for k in range(1, 4):
        total = total + acc[0][k]
    return total


def _row_sums(rows: Any) -> Any:
    """Each row's sum added in PyTorch's order for a contiguous last dim: by vectors of
    ``_LANES`` values (then the leftover values from 0, then the lanes in order) when the
    row has that many, else value by value."""
    n = rows.shape[1]
    lanes = _LANES
    if n < lanes:
        return xp.asarray(_chunked_sum(lambda m: rows[:, m], n), dtype=xp.float64)
    nvec = n // lanes
    vec = _chunked_sum(lambda m: rows[:, m * lanes : (m + 1) * lanes], nvec)
    total: Any = 0.0
    for m in range(nvec * lanes, n):
        total = total + rows[:, m]
    for k in range(lanes):
        total = total + vec[:, k]
    return total


# ----- Poisson -----------------------------------------------------------------------------


def _to_int64(k: float) -> int:
    return int(k) if -(2.0**63) <= k < 2.0**63 else _INT64_MIN


def _proposal(draws: _Draws, a: float, b: float, *shifts: float) -> tuple[float, float, float]:
    """One proposal of Hörmann's transformed rejection (Poisson's PTRS, binomial's BTRS):
    u = U - 1/2, v = U', us = 1/2 - |u|, k = ⌊(2a/us + b)·u + shifts⌋, the shifts added
    one after the other (nan for us = 0, where k is -inf and the proposal rejected)."""
    u = draws.uniform() - 0.5
    v = draws.uniform()
    us = 0.5 - abs(u)
    if us == 0:
        return math.nan, us, v
    k = (2 * a / us + b) * u
    for shift in shifts:
        k = k + shift
    return _floor(k), us, v


def _poisson_one(lam: float, draws: _Draws) -> int:
    if lam >= 10:  # transformed rejection (PTRS)
        slam = math.sqrt(lam)
        loglam = _log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        log_invalpha = math.log(invalpha)
        while True:
            k, us, v = _proposal(draws, a, b, lam, 0.43)
            if us == 0:  # k = -inf: rejected
                continue
            if us >= 0.07 and v <= vr:
                return _to_int64(k)
            if k < 0 or (us < 0.013 and v > us):
                continue
            if _log(v) + log_invalpha - _log(a / (us * us) + b) <= (
                -lam + k * loglam - _lgamma(k + 1.0)
            ):
                return _to_int64(k)
    if lam == 0:
        return 0
    enlam = math.exp(-lam)
    x = 0
    prod = 1.0
    while True:
        prod *= draws.uniform()
        if prod > enlam:
            x += 1
        else:
            return x


def poisson(gen: Generator, rates: Any) -> Any:
    """Poisson draws for the flat float64 array ``rates`` (non-negative), as int64."""
    draws = _Draws(gen, 2 * rates.size)
    try:
        out = [_poisson_one(lam, draws) for lam in rates.tolist()]
    finally:
        draws.close()
    return xp.asarray(out, dtype=xp.int64)


# ----- binomial ----------------------------------------------------------------------------


def _stirling_tail(k: float) -> float:
    """log(k!) less its Stirling approximation (a table below 10)."""
    if k < 10:
        return _TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _inversion(count: float, prob: float, draws: _Draws, rnd: Callable[[float], float]) -> float:
    if count != count:  # PyTorch's loop never ends
        return math.nan
    logprob = _log1pf(-prob) if rnd is _f32 else math.log1p(-prob)
    geom_sum = 0.0
    num_geom = 0.0
    while True:
        geom_sum += _ceil(_log(draws.uniform()) / logprob)
        if geom_sum > count:
            return num_geom
        num_geom = rnd(num_geom + 1)


@functools.lru_cache(maxsize=256)
def _btrs_setup(count: float, prob: float, rnd: Callable[[float], float]) -> tuple:
    """BTRS' constants a, b, c, v_r, r, alpha, m for (count, prob)."""
    mean = rnd(count * prob)
    stddev = rnd(math.sqrt(rnd(mean * rnd(1 - prob))))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    v_r = 0.92 - 4.2 / b
    r = rnd(prob / rnd(1 - prob))
    alpha = (2.83 + 5.1 / b) * stddev
    return a, b, mean + 0.5, v_r, r, alpha, _floor(rnd(rnd(count + 1) * prob))


def _btrs(count: float, prob: float, draws: _Draws, rnd: Callable[[float], float]) -> float:
    """Hörmann's BTRS; ``rnd`` rounds what PyTorch computes in the tensor's dtype."""
    a, b, c, v_r, r, alpha, m = _btrs_setup(count, prob, rnd)
    while True:
        k, us, v = _proposal(draws, a, b, c)
        if us == 0:  # k = -inf: rejected
            continue
        k = rnd(k)
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = _log(v * alpha / (a / (us * us) + b))
        left = rnd(rnd(count - k) + 1)
        bound = (
            (m + 0.5) * _log((m + 1) / (r * (count - m + 1)))
            + rnd(count + 1) * _log((count - m + 1) / left)
            + (k + 0.5) * _log(r * left / rnd(k + 1))
            + _stirling_tail(m)
            + _stirling_tail(count - m)
            - _stirling_tail(k)
            - _stirling_tail(rnd(count - k))
        )
        if v <= bound:
            return k


def _binomial_one(count: float, prob: float, draws: _Draws, rnd: Callable[[float], float]) -> float:
    if count <= 0 or prob <= 0:
        return 0.0
    if prob >= 1:
        return count
    if prob <= 0.5:
        if rnd(count * prob) >= 10:
            return _btrs(count, prob, draws, rnd)
        return _inversion(count, prob, draws, rnd)
    if prob > 0.5:
        q = rnd(1.0 - prob)
        if rnd(count * q) >= 10:
            return rnd(count - _btrs(count, q, draws, rnd))
        return rnd(count - _inversion(count, q, draws, rnd))
    return math.nan


def binomial(gen: Generator, count: Any, prob: Any, single: bool) -> Any:
    """Binomial draws for the flat float64 arrays ``count`` and ``prob`` (float32 values
    when ``single``): 0 for count <= 0 or prob <= 0, count for prob >= 1, nan for a nan
    probability, and for a nan count otherwise (where PyTorch's loop never ends). A
    float64 array."""
    rnd = _f32 if single else _same
    draws = _Draws(gen, 2 * count.size)
    out = []
    try:
        for n, p in zip(count.tolist(), prob.tolist()):
            out.append(_binomial_one(n, p, draws, rnd))
    finally:
        draws.close()
    return xp.asarray(out, dtype=xp.float64)
