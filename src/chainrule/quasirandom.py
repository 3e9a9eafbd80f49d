"""``chainrule.quasirandom`` (PyTorch's ``torch.quasirandom``): ``SobolEngine``, the Sobol'
low-discrepancy sequence in up to 21201 dimensions, with Owen-style scrambling.

The points are PyTorch's, bit for bit: the same direction numbers (Joe & Kuo's
"new-joe-kuo-6.21201", shipped in ``_data/sobol_directions.npz`` and read on first use), the
same Gray-code order and the same float rounding. A scrambled engine with a ``seed`` draws its
random bits as PyTorch does, from a fresh Mersenne Twister seeded with ``seed``, so its points
equal PyTorch's too; with ``seed=None`` the bits come from chainrule's global generator (as
PyTorch's come from its global one), whose stream is not PyTorch's.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _dtypes
from ._tensor import Tensor, _make

if TYPE_CHECKING:
    from ._dtypes import dtype as DType

__all__ = ["SobolEngine"]

_MAXBIT = 30
_MAXDIM = 21201
_TABLE: list[Any] = []  # [poly, vinit] once loaded


def _directions() -> tuple[np.ndarray, np.ndarray]:
    """The table's primitive polynomials and initial direction numbers (loaded once)."""
    if not _TABLE:
        from pathlib import Path

        path = Path(__file__).parent / "_data" / "sobol_directions.npz"
        if not path.is_file():
            raise RuntimeError(
                f"SobolEngine: chainrule's table of Sobol direction numbers ({path}) is "
                "missing from this installation (package data of chainrule)"
            )
        with np.load(path) as packed:
            poly = np.cumsum(packed["poly_steps"].astype(np.int64))
            degree = np.array([int(p).bit_length() - 1 for p in poly])
            vinit = np.zeros((len(poly), int(degree.max())), dtype=np.int64)
            vinit[degree > 0, 0] = 1
            for k in range(1, vinit.shape[1]):
                rows = degree > k
                count = int(rows.sum())
                bits = np.unpackbits(packed[f"m{k}"], count=count * k, bitorder="little")
                upper = bits.reshape(count, k).astype(np.int64) @ (2 << np.arange(k))
                vinit[rows, k] = upper | 1
        _TABLE[:] = [poly, vinit]
    return _TABLE[0], _TABLE[1]


def _initial_state(dimension: int) -> np.ndarray:
    """The direction numbers v[d, j] (scaled to 30 bits) of the first ``dimension`` dimensions:
    the first dimension's are all 1; the others follow Bratley & Fox's recurrence."""
    poly, vinit = _directions()
    v = np.zeros((dimension, _MAXBIT), dtype=np.int64)
    v[0] = 1
    degree = np.array([int(p).bit_length() - 1 for p in poly[:dimension]])
    for m in np.unique(degree[1:]):  # one pass per degree, over all its dimensions at once
        rows = np.nonzero(degree == m)[0]
        rows = rows[rows > 0]
        p = poly[rows]
        v[rows, :m] = vinit[rows, :m]
        for j in range(m, _MAXBIT):
            new = v[rows, j - m].copy()
            for k in range(m):
                on = ((p >> (m - 1 - k)) & 1).astype(bool)
                new ^= np.where(on, v[rows, j - k - 1] << (k + 1), 0)
            v[rows, j] = new
    return v << np.arange(_MAXBIT - 1, -1, -1)


def _mt19937_bits(seed: int):
    """The lowest bits of the outputs of a Mersenne Twister seeded as PyTorch's CPU generator
    is by ``manual_seed(seed)``: ``torch.randint(2, ...)``'s values, in order."""
    key = [seed & 0xFFFFFFFF]
    for i in range(1, 624):
        prev = key[-1]
        key.append((1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF)
    twister = np.random.MT19937()
    twister.state = {
        "bit_generator": "MT19937",
        "state": {"key": np.array(key, dtype=np.uint32), "pos": 624},
    }

    def draw(shape: tuple[int, ...]) -> np.ndarray:
        return (twister.random_raw(int(np.prod(shape))) & 1).astype(np.uint8).reshape(shape)

    return draw


def _scramble_rows(v: np.ndarray, ltm: np.ndarray) -> np.ndarray:
    """Left-multiply the bits of each direction number (most significant first) by its
    dimension's lower-triangular 0/1 matrix, unit diagonal, over GF(2)."""
    lower = np.tril(ltm.astype(np.float32), -1) + np.eye(_MAXBIT, dtype=np.float32)
    shifts = np.arange(_MAXBIT - 1, -1, -1)
    bits = ((v[:, None, :] >> shifts[None, :, None]) & 1).astype(np.float32)  # [d, bit, j]
    mixed = (np.matmul(lower, bits).astype(np.int64) & 1) << shifts[None, :, None]
    return mixed.sum(axis=1)


def _check_seed(seed: Any) -> int:
    """``seed`` as the 64-bit value PyTorch's ``Generator.manual_seed`` takes."""
    if not isinstance(seed, numbers.Integral) or isinstance(seed, bool):
        raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
    seed = int(seed)
    if seed >= 1 << 64 or seed < -(1 << 63):
        raise ValueError("Overflow when unpacking long long")
    return seed & 0xFFFFFFFFFFFFFFFF


def _check_n(n: Any, op: str) -> int:
    if not isinstance(n, numbers.Integral) or isinstance(n, bool):
        raise TypeError(f"{op}(): argument 'n' (position 2) must be int, not {type(n).__name__}")
    return int(n)


def _gray_steps(start: int, n: int) -> np.ndarray:
    """The column of the direction numbers each of the ``n`` steps from point ``start`` XORs
    in: the number of trailing one bits of the step's index (0 for a negative index)."""
    index = np.arange(start, start + n, dtype=np.int64)
    low = (index + 1) & -(index + 1)
    steps = np.zeros(n, dtype=np.int64)
    positive = index >= 0
    steps[positive] = np.frexp(low[positive].astype(np.float64))[1] - 1
    return steps


class SobolEngine:
    """An engine for (scrambled) Sobol' sequences in ``dimension`` dimensions (1 to 21201),
    with Joe & Kuo's direction numbers. ``scramble=True`` applies a random linear matrix
    scramble and digital shift drawn from a generator seeded with ``seed`` (or from the global
    generator when ``seed`` is None)."""

    MAXBIT = _MAXBIT
    MAXDIM = _MAXDIM

    def __init__(self, dimension: int, scramble: bool = False, seed: int | None = None) -> None:
        if dimension > self.MAXDIM or dimension < 1:
            raise ValueError(
                f"Supported range of dimensionality for SobolEngine is [1, {self.MAXDIM}]"
            )
        if not isinstance(dimension, numbers.Integral) or isinstance(dimension, bool):
            raise TypeError("zeros() takes 1 positional argument but 2 were given")
        self.seed = seed
        self.scramble = scramble
        self.dimension = dimension
        state = _initial_state(int(dimension))
        if self.scramble:
            state, shift = self._scrambled(state)
        else:
            shift = np.zeros(int(dimension), dtype=np.int64)
        self.sobolstate = _make(state, _dtypes.int64)
        self.shift = _make(shift, _dtypes.int64)
        self.quasi = _make(shift.copy(), _dtypes.int64)
        # (PyTorch's long / int in the default dtype: the shift rounded to it, then divided
        # in float32 (float64 for float64), so a half's large values are inf)
        default = _dtypes.get_default_dtype()
        wide = np.float64 if default is _dtypes.float64 else np.float32
        with np.errstate(over="ignore"):
            first = shift.astype(default.np).astype(wide) / wide(2**self.MAXBIT)
            self._first_point = _make(first.astype(default.np).reshape(1, -1), default)
        self.num_generated = 0

    def _scrambled(self, state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The scrambled direction numbers and the digital shift."""
        d = state.shape[0]
        if self.seed is None:  # the global generator's stream (chainrule's own)
            from ._random import randint

            def draw(shape: tuple[int, ...]) -> np.ndarray:
                return np.asarray(randint(2, shape)._data)

        else:
            draw = _mt19937_bits(_check_seed(self.seed))
        shift = draw((d, self.MAXBIT)).astype(np.int64) @ (1 << np.arange(self.MAXBIT))
        block = 1024  # dimensions per step (a seeded stream gives the same bits as one draw)
        out = np.empty_like(state)
        for lo in range(0, d, block):
            hi = min(lo + block, d)
            out[lo:hi] = _scramble_rows(state[lo:hi], draw((hi - lo, self.MAXBIT, self.MAXBIT)))
        return out, shift

    def _advance(self, n: int, start: int, op: str) -> np.ndarray:
        """The states of the ``n`` points after ``start`` (rows), from ``self.quasi``."""
        n = _check_n(n, op)
        steps = _gray_steps(start, max(n, 0))
        columns = self.sobolstate._data.T[steps]  # [n, dimension]
        return np.bitwise_xor.accumulate(columns, axis=0) ^ self.quasi._data

    def _draw(self, n: int, start: int, dtype: DType) -> Tensor:
        n = _check_n(n, "_sobol_engine_draw")
        if n < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {n}: [{n}, {self.dimension}]"
            )
        if dtype not in (_dtypes.float32, _dtypes.float64):
            raise NotImplementedError(
                f"\"_sobol_engine_draw\" not implemented for '{dtype.scalar_name}'"
            )
        points = self._advance(n, start, "_sobol_engine_draw")
        if n:
            self.quasi = _make(points[-1].copy(), _dtypes.int64)
        else:
            self.quasi = _make(self.quasi._data.copy(), _dtypes.int64)
        scale = dtype.np.type(2.0**-self.MAXBIT)
        return _make(points.astype(dtype.np) * scale, dtype)

    def draw(self, n: int = 1, out: Tensor | None = None, dtype: DType | None = None) -> Tensor:
        """The next ``n`` points of the sequence, an ``(n, dimension)`` tensor (of ``dtype``,
        the default dtype if None; written into ``out`` if given)."""
        if dtype is None:
            dtype = _dtypes.get_default_dtype()
        if self.num_generated == 0:
            if n == 1:
                result = self._first_point.to(dtype)
            else:
                rest = self._draw(n - 1, self.num_generated, dtype)
                first = self._first_point.to(dtype)._data
                result = _make(np.concatenate([first, rest._data]), dtype)
        else:
            result = self._draw(n, self.num_generated - 1, dtype)
        self.num_generated += n
        if out is not None:
            out.resize_as_(result).copy_(result)
            return out
        return result

    def draw_base2(self, m: int, out: Tensor | None = None, dtype: DType | None = None) -> Tensor:
        """The next ``2**m`` points; the total drawn must stay a power of 2, which keeps the
        sequence's balance properties (ValueError otherwise)."""
        n = 2**m
        total_n = self.num_generated + n
        if not (total_n & (total_n - 1) == 0):
            raise ValueError(
                "The balance properties of Sobol' points require "
                f"n to be a power of 2. {self.num_generated} points have been "
                f"previously generated, then: n={self.num_generated}+2**{m}={total_n}. "
                "If you still want to do this, please use "
                "'SobolEngine.draw()' instead."
            )
        return self.draw(n=n, out=out, dtype=dtype)

    def reset(self) -> SobolEngine:
        """Back to the sequence's first point."""
        self.quasi.copy_(self.shift)
        self.num_generated = 0
        return self

    def fast_forward(self, n: int) -> SobolEngine:
        """Skip ``n`` points, as drawing them would."""
        if self.num_generated == 0:
            count, start = n - 1, self.num_generated
        else:
            count, start = n, self.num_generated - 1
        points = self._advance(count, start, "_sobol_engine_ff_")
        if len(points):
            self.quasi._data[...] = points[-1]
        self.num_generated += n
        return self

    def __repr__(self) -> str:
        parts = [f"dimension={self.dimension}"]
        if self.scramble:
            parts.append("scramble=True")
        if self.seed is not None:
            parts.append(f"seed={self.seed}")
        return f"{type(self).__name__}({', '.join(parts)})"
