"""Random numbers: ``Generator`` objects with their own state, the global one
(``default_generator``), and the random constructors (rand, randn, randint, randperm).

As in PyTorch, the global generator starts from a fresh random seed in each process;
``manual_seed`` makes a run reproducible, and a ``Generator`` passed as ``generator=``
draws from its own stream, independent of the global one. A generator is PyTorch's CPU
generator: a 32-bit Mersenne Twister seeded with the low 32 bits of the seed, with
PyTorch's state layout (``get_state``/``set_state`` exchange states with PyTorch), and
the samplers turn its words into numbers as PyTorch's CPU kernels do (chainrule/_sampling,
and chainrule/_sampling_rejection for gamma, Dirichlet, Poisson and binomial draws), so the
same seed gives PyTorch's numbers.
"""

from __future__ import annotations

import numbers
import struct
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from . import _dtypes, _memory_format, _meta, _sampling
from ._backend import xp
from ._creation import _check_requires_grad, _size, writes_out
from ._meta import on_device, on_device_like
from ._tensor import Tensor, _make, check_device, device

if TYPE_CHECKING:
    from ._dtypes import dtype as DType
    from ._tensor import device as Device

_DEFAULT_SEED = 67280421310721  # a new torch.Generator()'s seed, as PyTorch's
_MASK64 = 0xFFFFFFFFFFFFFFFF
_MASK32 = 0xFFFFFFFF
_N = 624  # the Mersenne Twister's words of state
# PyTorch's CPUGeneratorImplState: its legacy part (initial seed, left, seeded, next, the
# 624 words as 64-bit, normal_x, normal_y = the float64 normal kept, normal_rho,
# normal_is_valid), then the float normal kept and whether it is valid
_LEGACY = struct.Struct(f"<QiiQ{_N}Qdddi4x")
_CURRENT = struct.Struct(f"<{_LEGACY.size}sf?3x")


def _fresh_seed() -> int:
    return int(xp.random.SeedSequence().entropy) & _MASK64


def _seeded_key(seed: int) -> Any:
    """The Mersenne Twister's words right after seeding with a 32-bit seed (Knuth's)."""
    key = [seed & _MASK32]
    for i in range(1, _N):
        prev = key[-1]
        key.append((1812433253 * (prev ^ (prev >> 30)) + i) & _MASK32)
    return xp.asarray(key, dtype=xp.uint32)


def _just_seeded(key: Any) -> bool:
    k0 = int(key[0])
    return int(key[1]) == (1812433253 * (k0 ^ (k0 >> 30)) + 1) & _MASK32


class Generator:
    """A random number generator with its own state (PyTorch's Mersenne Twister):
    ``manual_seed``, ``seed``, ``initial_seed``, ``get_state``, ``set_state``. Pass it as
    ``generator=`` to draw from its stream; ``chainrule.default_generator`` is the global
    one."""

    def __init__(self, device: str | Device = "cpu") -> None:
        self.device = _cpu(device)
        self._bits = xp.random.MT19937()
        self.manual_seed(_DEFAULT_SEED)

    def _set_words(self, key: Any, pos: int) -> None:
        self._bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}

    def manual_seed(self, seed: int) -> Generator:
        """Reseed: the numbers that follow are a function of ``seed`` alone (of its low 32
        bits, as in PyTorch)."""
        if isinstance(seed, Tensor):
            seed = seed.item()
        if not isinstance(seed, numbers.Integral):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        seed = int(seed)
        if seed >= 1 << 64 or seed < -(1 << 63):
            raise ValueError("Overflow when unpacking long long")
        self._seed = seed & _MASK64
        self._set_words(_seeded_key(self._seed), _N)
        self._next_normal: float | None = None  # the sine of the last Box-Muller pair
        self._next_float_normal: float | None = None
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
        """The generator's state as a uint8 tensor of PyTorch's layout (5056 bytes)."""
        st = self._bits.state["state"]
        key, pos = st["key"], int(st["pos"])
        if pos >= _N:  # the words are used up (or fresh): twisted before the next draw
            left, nxt = 1, 0 if _just_seeded(key) else _N
        else:
            left, nxt = _N + 1 - pos, pos
        normal = self._next_normal
        legacy = _LEGACY.pack(
            self._seed, left, 1, nxt, *key.tolist(), 0.0, normal or 0.0, 0.0, normal is not None
        )
        flt = self._next_float_normal
        raw = _CURRENT.pack(legacy, flt or 0.0, flt is not None)
        return _make(xp.frombuffer(raw, dtype=xp.uint8).copy(), _dtypes.uint8)

    def set_state(self, new_state: Tensor) -> Generator:
        """Restore a state ``get_state`` returned (chainrule's or PyTorch's): the same
        numbers follow again. (PyTorch 2.13 takes only its current 5056-byte layout.)"""
        if not isinstance(new_state, Tensor) or new_state._dtype is not _dtypes.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        raw = new_state._data.reshape(-1).tobytes()
        if len(raw) != _CURRENT.size:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {_CURRENT.size} but found the input "
                f"RNG state size to be {len(raw)}"
            )
        legacy, flt, flt_valid = _CURRENT.unpack(raw)
        seed, left, seeded, nxt, *rest = _LEGACY.unpack(legacy)
        words, normal, normal_valid = rest[:_N], rest[_N + 1], rest[_N + 3]
        if not (seeded and 0 < left <= _N and 0 <= nxt <= _N):
            raise RuntimeError("Invalid mt19937 state")
        key = xp.asarray([w & _MASK32 for w in words], dtype=xp.uint32)
        self._set_words(key, _N if left == 1 else nxt)
        self._seed = seed
        self._next_normal = normal if normal_valid else None
        self._next_float_normal = flt if flt_valid else None
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


def generator_of(generator: Generator | None, fn: str = "rand") -> Generator:
    """The generator to draw from: ``generator``, or the global one."""
    if generator is None:
        generator = default_generator
    elif not isinstance(generator, Generator):
        raise TypeError(
            f"{fn}(): argument 'generator' must be torch.Generator, not {type(generator).__name__}"
        )
    if vmap_levels:  # (a draw inside a vmap's function)
        _drawn_in_vmap(generator)
    return generator


class VmapLevel:
    """One running ``vmap``'s ``randomness`` and, for "same", the state each generator had
    before its first draw in the function (restored before each later batch element, so
    every element draws the same numbers, as PyTorch's one unbatched draw)."""

    __slots__ = ("randomness", "states")

    def __init__(self, randomness: str) -> None:
        self.randomness = randomness
        self.states: dict[int, tuple] = {}

    def restore(self) -> None:
        """Each generator back to its state before the first element's draws."""
        for gen, bits, normal, float_normal in self.states.values():
            gen._bits.state = bits
            gen._next_normal, gen._next_float_normal = normal, float_normal


vmap_levels: list[VmapLevel] = []  # the vmaps running their function, innermost last


def _drawn_in_vmap(gen: Generator) -> None:
    """A random draw inside vmap: PyTorch's error where a level's randomness is "error";
    else, for each "same" level, ``gen``'s state kept before its first draw."""
    for level in vmap_levels:
        if level.randomness == "error":
            raise RuntimeError(
                "vmap: called random operation while in randomness error mode. Please either "
                "use the 'same' or 'different' randomness flags on vmap or perform the "
                "randomness operation out of vmap"
            )
    for level in vmap_levels:
        if level.randomness == "same" and id(gen) not in level.states:
            level.states[id(gen)] = (
                gen,
                gen._bits.state,
                gen._next_normal,
                gen._next_float_normal,
            )


def drawn_seed(generator: Generator | None = None) -> int:
    """A seed drawn from ``generator`` (or the global one) as PyTorch draws one for a new
    stream (a DataLoader's base seed, a sampler's generator): ``random_()`` of one int64."""
    return int(_sampling.every_integer(generator_of(generator), 1, _dtypes.int64)[0])


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


def draw(
    kind: str, gen: Generator, target: Any, dt: DType, a: float, b: float, into: bool = False
) -> Any:
    """PyTorch's samples for every element of the array ``target`` (its shape and layout),
    in dt: "u" uniform on [a, b), "n" normal N(a, b²); complex: both parts so (the normal
    ones with std b/√2, so that E|z - a|² is b²), as PyTorch draws them on the real view.
    ``into``: written into ``target`` itself (a row-major float32 or float64 host array),
    which is returned."""
    real = dt.to_real() if dt._category == 3 else dt
    n = target.size * (2 if real is not dt else 1)
    out = target.reshape(-1) if into else None  # (a view: target is row-major)
    if kind == "u":
        flat = _sampling.uniform(gen, n, real, a, b, out)
    else:
        std = b / 2**0.5 if real is not dt else b
        flat = _sampling.normal(gen, n, real, a, std, target.flags.c_contiguous, out)
    if into:
        return target
    if real is not dt:
        flat = flat.view(dt.np)
    return _sampling.in_visit_order(flat, target)


def _sample(kind: str, shape: tuple, dt: DType, generator: Generator | None, fn: str) -> Any:
    """Standard normal (``kind`` "n") or uniform [0, 1) samples of ``shape`` in ``dt``
    (complex: each part drawn, as ``draw``)."""
    gen = generator_of(generator, fn)
    if _meta.making[0]:  # on the meta device: the shape and dtype only
        return _meta.meta_array(shape, dt.np)
    return draw(kind, gen, xp.empty(shape, dt.np), dt, 0.0, 1.0)


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
    _check_integer_bounds(low, high, dt)
    gen = generator_of(generator, "randint")
    n = int(xp.prod(tuple(size), dtype=xp.int64))
    arr = _sampling.integers(gen, n, int(low), int(high), dt).astype(dt.np).reshape(size)
    return _check_requires_grad(_make(arr, dt), requires_grad)


# the C++ type names PyTorch's bounds errors give
_C_TYPES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char"}
_C_TYPES.update({"int16": "short int", "int32": "int", "int64": "long int"})


def _check_integer_bounds(low: int, high: int, dt: DType) -> None:
    """PyTorch's error where low or high - 1 is outside an integer dtype's range."""
    name = _C_TYPES.get(dt.name)
    if name is None:
        return
    least, most = (0, 1) if dt.name == "bool" else (xp.iinfo(dt.np).min, xp.iinfo(dt.np).max)
    if not least <= low <= most:
        raise RuntimeError(f"from is out of bounds for {name}")
    if not least <= high - 1 <= most:
        raise RuntimeError(f"to - 1 is out of bounds for {name}")


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
    arr = _sampling.permutation(generator_of(generator, "randperm"), int(n)).astype(dt.np)
    return _check_requires_grad(_make(arr, dt), requires_grad)
