"""Random tensors from chainrule's own generator (seeded by ``manual_seed``).

As in PyTorch, each process starts from a fresh random seed; ``manual_seed`` makes a
run reproducible. chainrule does not reproduce PyTorch's random streams.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from . import _dtypes
from ._backend import xp
from ._creation import _check_requires_grad, _size
from ._tensor import Tensor, _make

if TYPE_CHECKING:
    from ._dtypes import dtype as DType
    from ._tensor import device as Device

_first_seed = int(xp.random.SeedSequence().entropy) & 0xFFFFFFFFFFFFFFFF
_gen = [xp.random.default_rng(_first_seed)]
_seed = [_first_seed]


class Generator:
    """A random generator; ``chainrule.default_generator`` is the global one.

    A ``Generator()`` of one's own holds its own stream (PyTorch's default seed until
    ``manual_seed``); ``default_generator`` drives the global stream.
    """

    def __init__(self, device: Any = "cpu") -> None:
        self._own_seed = 67280421310721
        self._own_rng: Any = None

    @property
    def _rng(self) -> Any:
        if self is default_generator:
            return _gen[0]
        if self._own_rng is None:
            self._own_rng = xp.random.default_rng(self._own_seed & 0xFFFFFFFFFFFFFFFF)
        return self._own_rng

    def manual_seed(self, seed: int) -> Generator:
        if self is default_generator:
            manual_seed(seed)
        else:
            self._own_seed = int(seed)
            self._own_rng = xp.random.default_rng(self._own_seed & 0xFFFFFFFFFFFFFFFF)
        return self

    def seed(self) -> int:
        s = int(xp.random.SeedSequence().entropy) & 0xFFFFFFFFFFFFFFFF
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return _seed[0] if self is default_generator else self._own_seed


def _rng_of(generator: Generator | None) -> Any:
    """The NumPy stream behind ``generator`` (the global one for ``None``)."""
    return _gen[0] if generator is None else generator._rng


default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    """Reseed the global generator so the random tensors that follow are reproducible."""
    seed = int(seed)
    _seed[0] = seed
    _gen[0] = xp.random.default_rng(seed & 0xFFFFFFFFFFFFFFFF)
    return default_generator


def seed() -> int:
    """Reseed from fresh entropy; returns the new seed."""
    s = int(xp.random.SeedSequence().entropy) & 0xFFFFFFFFFFFFFFFF
    manual_seed(s)
    return s


def initial_seed() -> int:
    return _seed[0]


def _float_dtype(dtype: Any, kernel: str) -> DType:
    dt = _dtypes.to_dtype(dtype) if dtype is not None else _dtypes.get_default_dtype()
    if not dt.is_floating_point:
        raise _dtypes.not_implemented(kernel, dt)
    return dt


def _sample(kind: str, shape: tuple, dt: DType) -> Any:
    gen = _gen[0]
    np_dt = dt.np if dt.np in (xp.float32, xp.float64) else xp.float32
    arr = gen.standard_normal(shape, dtype=np_dt) if kind == "n" else gen.random(shape, dtype=np_dt)
    return arr.astype(dt.np, copy=False)


def randn(
    *size: int | Sequence[int],
    dtype: DType | None = None,
    device: str | Device | None = None,
    requires_grad: bool = False,
    generator: Generator | None = None,
    out: Tensor | None = None,
    layout: Any = None,
) -> Tensor:
    """Samples of the standard normal distribution."""
    dt = _float_dtype(dtype, "normal_kernel_cpu")
    return _check_requires_grad(_make(_sample("n", _size(size, "randn"), dt), dt), requires_grad)


def rand(
    *size: int | Sequence[int],
    dtype: DType | None = None,
    device: str | Device | None = None,
    requires_grad: bool = False,
    generator: Generator | None = None,
    out: Tensor | None = None,
    layout: Any = None,
) -> Tensor:
    """Samples of the uniform distribution on [0, 1)."""
    dt = _float_dtype(dtype, "check_uniform_bounds")
    return _check_requires_grad(_make(_sample("u", _size(size, "rand"), dt), dt), requires_grad)


def randn_like(
    input: Tensor,
    *,
    dtype: DType | None = None,
    device: str | Device | None = None,
    requires_grad: bool = False,
    layout: Any = None,
    memory_format: Any = None,
) -> Tensor:
    return randn(input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def rand_like(
    input: Tensor,
    *,
    dtype: DType | None = None,
    device: str | Device | None = None,
    requires_grad: bool = False,
    layout: Any = None,
    memory_format: Any = None,
) -> Tensor:
    return rand(input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def randint(
    low: int = 0,
    high: int | Sequence[int] | None = None,
    size: Sequence[int] | None = None,
    *,
    dtype: DType | None = None,
    device: str | Device | None = None,
    requires_grad: bool = False,
    generator: Generator | None = None,
    out: Tensor | None = None,
    layout: Any = None,
) -> Tensor:
    """Integers drawn uniformly from [low, high); int64 unless dtype says otherwise."""
    if size is None:  # randint(high, size)
        low, high, size = 0, low, high
    if high is None:
        raise TypeError("randint() missing required argument 'high'")
    dt = _dtypes.to_dtype(dtype) if dtype is not None else _dtypes.int64
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    arr = _rng_of(generator).integers(low, high, size=tuple(size)).astype(dt.np)
    return _check_requires_grad(_make(arr, dt), requires_grad)


def randperm(
    n: int,
    *,
    dtype: DType | None = None,
    device: str | Device | None = None,
    requires_grad: bool = False,
    generator: Generator | None = None,
) -> Tensor:
    """A random permutation of 0..n-1 (int64)."""
    dt = _dtypes.to_dtype(dtype) if dtype is not None else _dtypes.int64
    return _make(_rng_of(generator).permutation(n).astype(dt.np), dt)
