"""Random numbers: ``Generator`` objects with their own state, the global one
(``default_generator``), and the random constructors (rand, randn, randint, randperm).

As in PyTorch, the global generator starts from a fresh random seed in each process;
``manual_seed`` makes a run reproducible, and a ``Generator`` passed as ``generator=``
draws from its own stream, independent of the global one. chainrule's streams are NumPy's
PCG64, not PyTorch's: the same seed gives the same numbers in chainrule, and the same
distributions as PyTorch, but not PyTorch's numbers.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from . import _dtypes, _memory_format, _meta
from ._backend import xp
from ._creation import _check_requires_grad, _size, writes_out
from ._meta import on_device, on_device_like
from ._tensor import Tensor, _make, check_device, device

if TYPE_CHECKING:
    from ._dtypes import dtype as DType
    from ._tensor import device as Device

_DEFAULT_SEED = 67280421310721  # a new torch.Generator()'s seed, as PyTorch's
_MASK64 = 0xFFFFFFFFFFFFFFFF
_STATE_BYTES = 48  # PCG64's state (16) and increment (16), its buffered word (4 + 4), the seed


def _fresh_seed() -> int:
    return int(xp.random.SeedSequence().entropy) & _MASK64


class Generator:
    """A random number generator with its own state (PCG64): ``manual_seed``, ``seed``,
    ``initial_seed``, ``get_state``, ``set_state``. Pass it as ``generator=`` to draw from
    its stream; ``chainrule.default_generator`` is the global one."""

    def __init__(self, device: str | Device = "cpu") -> None:
        self.device = _cpu(device)
        # a one-element list: the global generator's list is also ``_gen``, which code
        # that draws from the global stream reads (``_gen[0]``)
        self._box = [xp.random.default_rng(_DEFAULT_SEED)]
        self._seed = _DEFAULT_SEED

    @property
    def _rng(self) -> Any:
        return self._box[0]

    def manual_seed(self, seed: int) -> Generator:
        """Reseed: the numbers that follow are a function of ``seed`` alone."""
        if isinstance(seed, Tensor):
            seed = seed.item()
        if not isinstance(seed, numbers.Integral):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        seed = int(seed)
        if seed >= 1 << 64 or seed < -(1 << 63):
            raise ValueError("Overflow when unpacking long long")
        self._seed = seed & _MASK64
        self._box[0] = xp.random.default_rng(self._seed)
        return self

    def seed(self) -> int:
        """Reseed from fresh entropy; returns the new seed."""
        s = _fresh_seed()
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        """The seed the generator was last seeded with."""
        return self._seed

    def get_state(self) -> Tensor:
        """The generator's state as a uint8 tensor (for ``set_state``)."""
        st = self._rng.bit_generator.state
        parts = (
            (st["state"]["state"], 16),
            (st["state"]["inc"], 16),
            (st["has_uint32"], 4),
            (st["uinteger"], 4),
            (self._seed, 8),
        )
        raw = b"".join(int(v).to_bytes(n, "little") for v, n in parts)
        return _make(xp.frombuffer(raw, dtype=xp.uint8).copy(), _dtypes.uint8)

    def set_state(self, new_state: Tensor) -> Generator:
        """Restore a state ``get_state`` returned: the same numbers follow again."""
        if not isinstance(new_state, Tensor) or new_state._dtype is not _dtypes.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        if new_state.numel() != _STATE_BYTES:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {_STATE_BYTES} but found the input "
                f"RNG state size to be {new_state.numel()}"
            )
        raw = new_state._data.reshape(-1).tobytes()
        field = [0, 16, 32, 36, 40, 48]
        v = [int.from_bytes(raw[a:b], "little") for a, b in zip(field, field[1:])]
        rng = xp.random.Generator(xp.random.PCG64())
        rng.bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {"state": v[0], "inc": v[1]},
            "has_uint32": v[2],
            "uinteger": v[3],
        }
        self._box[0] = rng
        self._seed = v[4]
        return self

    def __repr__(self) -> str:
        return f"<torch._C.Generator object at {hex(id(self))}>"


# What a CPU-only build of PyTorch raises for a generator on another device.
_NO_GENERATOR = {
    "cuda": "Cannot get CUDA generator without ATen_cuda library. PyTorch splits its backend "
    "into two shared libraries: a CPU library and a CUDA library; this error has occurred "
    "because you are trying to use some CUDA functionality, but the CUDA library has not been "
    "loaded by the dynamic linker for some reason.  The CUDA library MUST be loaded, EVEN IF "
    "you don't directly use any symbols from the CUDA library! One common culprit is a lack of "
    "-Wl,--no-as-needed in your link arguments; many dynamic linkers will delete dynamic "
    "library dependencies if you don't depend on any of their symbols.  You can check if this "
    "has occurred by using ldd on your binary to see if there is a dependency on *_cuda.so "
    "library.",
    "mps": "Cannot execute getNewGenerator() without MPS backend.",
    "xpu": "Cannot get XPU generator without ATen_xpu library.",
}


def _cpu(dev: Any) -> device:
    d = dev if isinstance(dev, device) else device(dev)
    if d.type != "cpu":
        raise RuntimeError(
            _NO_GENERATOR.get(d.type, f"Device type {d.type.upper()} is not supported")
        )
    return device("cpu")


default_generator = Generator()
default_generator.manual_seed(_fresh_seed())
_gen = default_generator._box  # the global stream: _gen[0] is its NumPy generator


def rng_of(generator: Generator | None, fn: str = "rand") -> Any:
    """The NumPy generator to draw from: ``generator``'s own, or the global one."""
    if generator is None:
        return _gen[0]
    if not isinstance(generator, Generator):
        raise TypeError(
            f"{fn}(): argument 'generator' must be torch.Generator, not {type(generator).__name__}"
        )
    return generator._rng


def manual_seed(seed: int) -> Generator:
    """Reseed the global generator so the random tensors that follow are reproducible."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Reseed the global generator from fresh entropy; returns the new seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The global generator's seed."""
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The global generator's state as a uint8 tensor."""
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    """Restore the global generator's state from ``get_rng_state``."""
    default_generator.set_state(new_state)


def _float_dtype(dtype: Any, kernel: str) -> DType:
    """The dtype of a sampler's result (floating or complex), or PyTorch's error."""
    dt = _dtypes.to_dtype(dtype) if dtype is not None else _dtypes.get_default_dtype()
    if dt._category < 2:
        raise _dtypes.not_implemented(kernel, dt)
    return dt


def _integral_dtype(dtype: Any, default: DType) -> DType:
    """The dtype of an integer sampler's result (randint's), or PyTorch's error for complex."""
    dt = _dtypes.to_dtype(dtype) if dtype is not None else default
    if dt._category == 3:
        raise RuntimeError(
            "check_random_bounds handles only integral, floating-point and boolean types"
        )
    return dt


def sample_np_dtype(dt: DType) -> Any:
    """The NumPy float dtype NumPy's samplers draw in for ``dt`` (float16 via float32)."""
    return dt.np if dt.np in (xp.float32, xp.float64) else xp.dtype(xp.float32)


def _sample(kind: str, shape: tuple, dt: DType, generator: Generator | None, fn: str) -> Any:
    """Standard normal (``kind`` "n") or uniform [0, 1) samples of ``shape`` in ``dt``;
    complex: both parts drawn (``complex_parts``)."""
    gen = rng_of(generator, fn)
    if _meta.making[0]:  # on the meta device: the shape and dtype only
        return _meta.meta_array(shape, dt.np)
    if dt._category == 3:
        return complex_parts(kind, gen, shape, dt)
    np_dt = sample_np_dtype(dt)
    arr = gen.standard_normal(shape, dtype=np_dt) if kind == "n" else gen.random(shape, dtype=np_dt)
    return arr.astype(dt.np, copy=False)


def complex_parts(kind: str, gen: Any, shape: tuple, dt: DType) -> Any:
    """Complex samples of ``shape`` in ``dt`` as PyTorch draws them, the real and imaginary
    parts independent: each N(0, 1/2) for "n" (so that E|z|² = 1), each U[0, 1) for "u"."""
    real = xp.dtype(dt.to_real().np)
    pairs = gen.standard_normal(tuple(shape) + (2,), dtype=real) if kind == "n" else None
    if pairs is None:
        pairs = gen.random(tuple(shape) + (2,), dtype=real)
    else:
        pairs *= real.type(0.5**0.5)
    return pairs.view(dt.np)[..., 0]


@writes_out
@on_device
def randn(
    *size: int | Sequence[int],
    dtype: DType | None = None,
    device: str | Device | None = None,
    requires_grad: bool = False,
    generator: Generator | None = None,
    out: Tensor | None = None,
    layout: Any = None,
) -> Tensor:
    """Samples of the standard normal distribution (complex: each part N(0, 1/2))."""
    check_device(device)
    dt = _float_dtype(dtype, "normal_kernel_cpu")
    arr = _sample("n", _size(size, "randn"), dt, generator, "randn")
    return _check_requires_grad(_make(arr, dt), requires_grad)


@writes_out
@on_device
def rand(
    *size: int | Sequence[int],
    dtype: DType | None = None,
    device: str | Device | None = None,
    requires_grad: bool = False,
    generator: Generator | None = None,
    out: Tensor | None = None,
    layout: Any = None,
) -> Tensor:
    """Samples of the uniform distribution on [0, 1) (complex: each part)."""
    check_device(device)
    dt = _float_dtype(dtype, "check_uniform_bounds")
    arr = _sample("u", _size(size, "rand"), dt, generator, "rand")
    return _check_requires_grad(_make(arr, dt), requires_grad)


def _like_layout(out: Tensor, input: Tensor, fmt: Any, requires_grad: bool) -> Tensor:
    """A fresh ``*_like`` sample laid out as ``fmt`` says: ``preserve_format`` (the default)
    takes input's layout (the samples are drawn in row-major order whatever the layout)."""
    if fmt is None or fmt is _memory_format.preserve_format:
        out = _memory_format.preserved(out, input._data)
    else:
        out = _memory_format.relaid(out, fmt)
    return _check_requires_grad(out, requires_grad)


@on_device_like
def randn_like(
    input: Tensor,
    *,
    dtype: DType | None = None,
    device: str | Device | None = None,
    requires_grad: bool = False,
    layout: Any = None,
    memory_format: Any = None,
    generator: Generator | None = None,
) -> Tensor:
    """Standard normal samples of input's shape (and dtype, unless given)."""
    check_device(device)
    out = randn(input.shape, dtype=dtype or input.dtype, generator=generator)
    return _like_layout(out, input, memory_format, requires_grad)


@on_device_like
def rand_like(
    input: Tensor,
    *,
    dtype: DType | None = None,
    device: str | Device | None = None,
    requires_grad: bool = False,
    layout: Any = None,
    memory_format: Any = None,
    generator: Generator | None = None,
) -> Tensor:
    """Uniform samples on [0, 1) of input's shape (and dtype, unless given)."""
    check_device(device)
    out = rand(input.shape, dtype=dtype or input.dtype, generator=generator)
    return _like_layout(out, input, memory_format, requires_grad)


@writes_out
@on_device
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
    check_device(device)
    if size is None:  # randint(high, size)
        low, high, size = 0, low, high
    elif high is None:  # randint(high, size=size)
        low, high = 0, low
    if high is None:
        raise TypeError("randint() missing required argument 'high'")
    dt = _integral_dtype(dtype, _dtypes.int64)
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    arr = rng_of(generator, "randint").integers(low, high, size=tuple(size)).astype(dt.np)
    return _check_requires_grad(_make(arr, dt), requires_grad)


@on_device_like
def randint_like(
    input: Tensor,
    low: int = 0,
    high: int | None = None,
    *,
    dtype: DType | None = None,
    device: str | Device | None = None,
    requires_grad: bool = False,
    layout: Any = None,
    memory_format: Any = None,
    generator: Generator | None = None,
) -> Tensor:
    """Integers uniform on [low, high) of input's shape, in input's dtype unless given."""
    check_device(device)
    if high is None:
        low, high = 0, low
    out = randint(low, high, tuple(input.shape), dtype=dtype or input.dtype, generator=generator)
    return _like_layout(out, input, memory_format, requires_grad)


@writes_out
@on_device
def randperm(
    n: int,
    *,
    dtype: DType | None = None,
    device: str | Device | None = None,
    requires_grad: bool = False,
    generator: Generator | None = None,
    out: Tensor | None = None,
    layout: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """A random permutation of 0..n-1 (int64 unless dtype says otherwise)."""
    check_device(device)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    dt = _dtypes.to_dtype(dtype) if dtype is not None else _dtypes.int64
    if dt._category == 3:
        raise _dtypes.not_implemented("randperm", dt)
    arr = rng_of(generator, "randperm").permutation(int(n)).astype(dt.np)
    return _check_requires_grad(_make(arr, dt), requires_grad)
