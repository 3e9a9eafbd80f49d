"""Constructors: tensor, zeros, ones, arange, rand, ... and the legacy typed constructors."""

from __future__ import annotations

import builtins
import functools
import math
import numbers
import operator
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from . import _dtypes, _memory_format, _meta, _tensor
from ._backend import ndarray, to_host, xp, xp_of
from ._dtypes import dtype as DType
from ._meta import on_device, on_device_like
from ._promotion import as_number
from ._tensor import Tensor, _grad_enabled, _make, check_device

if TYPE_CHECKING:
    from ._tensor import device as Device


def writes_out(factory: Callable) -> Callable:
    """A factory with PyTorch's ``out=``: the result made in out's dtype (a ``dtype=`` must
    be out's) on out's device, then written into out, which is resized to it silently, as
    PyTorch's factories resize; out itself is returned. An out requiring grad raises while
    grad mode is on."""
    name = factory.__name__

    @functools.wraps(factory)
    def make(*args: Any, out: Tensor | None = None, **kwargs: Any) -> Any:
        if out is None:
            return factory(*args, **kwargs)
        if not isinstance(out, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
        if out._requires_grad and _grad_enabled():
            raise RuntimeError(
                f"aten::{name}(): functions with out=... arguments don't support automatic "
                "differentiation, but one of the arguments requires grad."
            )
        dtype = kwargs.get("dtype")
        if dtype is not None and _dtypes.to_dtype(dtype) is not out._dtype:
            raise RuntimeError(
                f"dtype {_dtypes.to_dtype(dtype).scalar_name} does not match dtype of out "
                f"parameter ({out._dtype.scalar_name})"
            )
        kwargs["dtype"] = out._dtype
        kwargs.setdefault("device", out.device)
        result = factory(*args, **kwargs)
        if out._data.shape == result._data.shape:
            out._data[...] = result._data
        else:  # (a new storage of the result's size)
            out._data = result._data
        out._bump()
        return out

    return make


# ----- from data -----------------------------------------------------------------------


def _infer_array(data: Any, dtype: DType | None) -> tuple[Any, DType]:
    """``data`` (nested sequences, numbers, arrays, tensors) as an array of PyTorch's dtype."""
    if isinstance(data, Tensor):
        arr = data._data
    elif isinstance(data, ndarray):
        arr = numpy_array(data)
    else:
        if isinstance(data, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
        return _from_python(data, dtype)
    if dtype is None:
        dtype = _dtypes.from_numpy_dtype(arr.dtype)
    else:
        dtype = _dtypes.to_dtype(dtype)
    return arr, dtype


def numpy_array(a: ndarray) -> ndarray:
    """A NumPy array as a tensor holds it: a plain ndarray (a masked array's data, not its
    mask, as PyTorch takes it), refused if its dtype has no tensor dtype (PyTorch's error)."""
    if type(a) is not ndarray:
        a = a.view(ndarray)
    if a.dtype.byteorder in "<>":  # (NumPy writes the native order "=")
        _dtypes.from_numpy_dtype(a.dtype.newbyteorder("="))  # (PyTorch checks the type first)
        raise ValueError(
            "given numpy array has byte order different from the native byte order. "
            "Conversion between byte orders is currently not supported."
        )
    _dtypes.from_numpy_dtype(a.dtype)
    return a


def _from_python(data: Any, dtype: DType | None) -> tuple[Any, DType]:
    """Python numbers and nested sequences as an array, with PyTorch's errors: ragged
    sequences, and ints or floats a dtype cannot hold."""
    flat = _flat_kind(data)
    items = data if flat is not None else _unwrap(data)
    try:
        arr = xp.array(items)
    except ValueError:
        _check_rectangular(data)  # PyTorch's error, where the sequences are ragged
        raise
    kind = arr.dtype.kind
    if flat is None:
        try:
            inferred = _scalar_type(data)
        except RuntimeError:  # complex numbers with a bfloat16 default: fine given a dtype
            if dtype is None:
                raise
            inferred = None
    else:  # (_scalar_type's answer for a flat sequence of floats or of ints)
        inferred = _dtypes.get_default_dtype() if flat is float else _dtypes.int64
    dt = inferred if dtype is None else _dtypes.to_dtype(dtype)
    if dt is _dtypes.uint64 and dtype is not None:
        return _uint64_array(items), dt
    if kind == "O" and inferred is not None or inferred is _dtypes.int64 and kind not in "ib":
        # an int beyond int64's range (NumPy made uint64, float64 or object)
        if dt is _dtypes.uint64 and kind == "u":  # (uint64 holds it)
            return arr, dt
        if dt._category == 1:
            raise ValueError("Overflow when unpacking long long")
        wide = {2: xp.float64, 3: xp.complex128}.get(dt._category, object)
        arr = xp.array(items, dtype=wide)
        if dt._category == 0:
            arr = arr.astype(xp.bool_)
        kind = arr.dtype.kind
    if kind in "UOS":
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if kind == "c" and dt is not None and dt._category != 3:
        # Python complex numbers for a real dtype: PyTorch's errors (bool takes them)
        if dt._category == 1:
            raise TypeError("'complex' object cannot be interpreted as an integer")
        if dt._category == 2:
            raise TypeError("must be real number, not complex")
    if dt is None:
        dt = _dtypes.from_numpy_dtype(arr.dtype)
    if dt._category == 1 and kind in "if" and not (flat is int and arr.dtype == dt.np):
        _check_fits(arr, dt)  # (Python ints NumPy made an array of dt hold: they fit)
    return arr, dt


def _uint64_array(items: Any) -> ndarray:
    """Integers and bools as uint64, as PyTorch reads them (unsigned 64-bit integers:
    floats and complex numbers are refused, and so are ints outside [0, 2^64)). PyTorch
    also refuses NumPy integers and integer tensors here; chainrule takes them."""

    def number(x: Any) -> int:
        if isinstance(x, (xp.generic, ndarray)) and x.dtype.kind in "biu":
            x = x.item()  # (a NumPy integer, or an integer tensor's one value)
        if not isinstance(x, (builtins.int, builtins.bool)):
            raise TypeError("an integer is required")
        if x < 0:
            raise OverflowError("can't convert negative int to unsigned")
        if x >= 2**64:
            raise OverflowError("int too big to convert")
        return x

    def walk(x: Any) -> Any:
        if isinstance(x, (list, tuple)):
            return [walk(d) for d in x]
        return number(x)

    return xp.array(walk(items), dtype=xp.uint64)


def _check_fits(arr: ndarray, dt: DType) -> None:
    """PyTorch's error for Python numbers an integer dtype cannot hold: ints out of its
    range (an unsigned dtype also takes negatives down to -max: they wrap), floats out of
    it or nan."""
    info = xp.iinfo(dt.np)
    if arr.dtype.kind == "i":
        low = -info.max if info.min == 0 else info.min
        fits = (arr >= low) & (arr <= info.max)
    else:  # (nan compares false; int64's max as a float is 2^63, which does not fit)
        fits = (arr >= info.min) & ((arr < 2.0**63) if info.max == 2**63 - 1 else (arr <= info.max))
    if not fits.all():
        raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow")


def _check_rectangular(data: Any) -> None:
    """PyTorch's error for nested sequences that do not form an array: the sizes are read
    off the first element at each depth, and every sequence must have its depth's size."""
    sizes = []
    seq = data
    while isinstance(seq, _SEQUENCES):
        sizes.append(len(seq))
        if not len(seq):
            break
        seq = seq[0]

    def walk(seq: Any, dim: int) -> None:
        if isinstance(seq, Tensor) and seq.ndim and dim < len(sizes):
            seq = to_host(seq._data)  # (a tensor where a sequence goes: its values)
        if dim == len(sizes):
            if isinstance(seq, _SEQUENCES):
                raise TypeError(
                    f"'{type(seq).__name__}' object cannot be interpreted as an integer"
                )
            return
        if not isinstance(seq, _SEQUENCES):
            raise TypeError("not a sequence")
        if len(seq) != sizes[dim]:
            raise ValueError(
                f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(seq)})"
            )
        for item in seq:
            walk(item, dim + 1)

    walk(data, 0)


_SEQUENCES = (list, tuple, ndarray)


def _flat_kind(data: Any) -> type | None:
    """float or int for a flat list or tuple of Python floats, or of ints (bools are not
    ints here), the common ``tensor([...])``: nothing inside to unwrap, its dtype known;
    else None."""
    c = data.__class__
    if c is list or c is tuple:
        kinds = set(map(type, data))
        if len(kinds) == 1:
            kind = kinds.pop()
            if kind is float or kind is int:
                return kind
    return None


def _unwrap(data: Any, depth: int | None = None) -> Any:
    """Nested sequences with each tensor inside as its one value (a tensor of more
    elements is not a number: PyTorch's error), or as its values where the first elements
    say a sequence goes (``[[1, 2], tensor([3, 4])]``): ``depth`` levels above the numbers."""
    if depth is None:
        depth, first = 0, data
        while isinstance(first, (list, tuple)) and first:
            depth, first = depth + 1, first[0]
    if isinstance(data, Tensor):
        if depth > 0 and data._data.ndim:
            return to_host(data._data)
        if data._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return to_host(data._data).reshape(())  # (a number: on the host, as .item())
    if isinstance(data, (list, tuple)):
        return [_unwrap(d, depth - 1) for d in data]
    return data


def _scalar_type(data: Any) -> DType | None:
    """PyTorch's dtype for nested data: each element's own (a Python float the default
    dtype, an int int64, a tensor or NumPy value its dtype), promoted over all of them."""
    if isinstance(data, (xp.generic, ndarray)):  # before float: np.float64 is a float
        return _dtypes.from_numpy_dtype(data.dtype)
    if data is None:
        raise RuntimeError("Could not infer dtype of NoneType")
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if isinstance(data, builtins.bool):
        return _dtypes.bool
    if isinstance(data, numbers.Integral):
        return _dtypes.int64
    if isinstance(data, builtins.float):
        return _dtypes.get_default_dtype()
    if isinstance(data, builtins.complex):
        return _dtypes.default_complex()
    if isinstance(data, Tensor):
        return data._dtype
    if isinstance(data, (list, tuple, range)):
        found = None
        for item in data:
            d = _scalar_type(item)
            if d is None:  # an element only NumPy can type: so is the whole
                return None
            found = d if found is None or d is found else _dtypes.promote_types(found, d)
        return found if found is not None else _dtypes.get_default_dtype()
    return None  # anything else: the dtype NumPy gives it


def _check_requires_grad(t: Tensor, requires_grad: bool) -> Tensor:
    if requires_grad:
        if t._dtype._category < 2:
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        t._requires_grad = True
    return t


def warn_copy_construct(call: str, stacklevel: int) -> None:
    """PyTorch's warning for ``torch.tensor(t)`` and ``x.new_tensor(t)`` of a tensor ``t``
    (on every such call); ``stacklevel`` as warnings.warn's, counted from the caller."""
    warnings.warn(
        "To copy construct from a tensor, it is recommended to use sourceTensor.detach()"
        ".clone() or sourceTensor.detach().clone().requires_grad_(True), rather than "
        f"{call}(sourceTensor).",
        UserWarning,
        stacklevel=stacklevel + 1,
    )


def tensor(
    data: Any,
    *,
    dtype: DType | None = None,
    device: str | Device | None = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """A new tensor holding a copy of ``data``; Python floats give the default dtype."""
    if isinstance(data, Tensor):
        warn_copy_construct("torch.tensor", stacklevel=2)
    return copy_of(data, dtype=dtype, device=device, requires_grad=requires_grad)


@on_device
def copy_of(
    data: Any,
    *,
    dtype: DType | None = None,
    device: str | Device | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """``torch.tensor`` without its warning for a tensor's copy (chainrule's own calls)."""
    _check_device(device)
    arr, dt = _infer_array(data, dtype)
    if _discards_imaginary(arr, dt):
        warn_discarding_imaginary()
        arr = arr.real
    with xp.errstate(over="ignore"):  # beyond a float dtype's range: inf, as in PyTorch
        if (
            dt._keep_lane == 4
            and getattr(arr, "dtype", None) is not None
            and (dt._reduced or arr.__class__ is xp.ndarray)
        ):  # (float8: saturate; float16 from float64 through float32, as PyTorch)
            from .autograd.bfloat16 import into

            arr = into(xp.asarray(arr, xp.float64) if arr.dtype.kind in "iub" else arr, dt.np)
        else:
            arr = xp_of(arr).array(arr, dtype=dt.np)  # (a device tensor's copy stays there,
    if device is not None:  # unless a device is named: on_device moves it from the host)
        arr = to_host(arr)
    return _check_requires_grad(_make(arr, dt), requires_grad)


@on_device
def as_tensor(data: Any, dtype: DType | None = None, device: str | Device | None = None) -> Tensor:
    """``data`` as a tensor, sharing memory with an array or tensor of the same dtype."""
    _check_device(device)
    if isinstance(data, Tensor):
        if dtype is None or _dtypes.to_dtype(dtype) is data._dtype:
            return data
        return data.to(dtype)
    arr, dt = _infer_array(data, dtype)
    if _discards_imaginary(arr, dt):
        warn_discarding_imaginary()
        arr = arr.real
    with xp.errstate(over="ignore"):
        arr = xp.asarray(arr, dtype=dt.np)
    return _make(arr, dt)


def from_numpy(array: ndarray) -> Tensor:
    """A tensor sharing memory with a NumPy array (writes to one show in the other)."""
    if not isinstance(array, ndarray):
        kind = type(array)
        named = f"numpy.{kind.__name__}" if kind.__module__ == "numpy" else kind.__name__
        raise TypeError(f"expected np.ndarray (got {named})")
    array = numpy_array(array)
    if not array.flags.writeable:
        array = _writable(array)
    return _make(array, _dtypes.from_numpy_dtype(array.dtype))


def frombuffer(
    buffer: Any,
    *,
    dtype: DType,
    count: int = -1,
    offset: int = 0,
    requires_grad: bool = False,
) -> Tensor:
    """A 1-D tensor sharing the memory of an object with the buffer protocol (``bytes``,
    ``bytearray``, ``memoryview``, ``array.array``): ``count`` elements of ``dtype`` from
    byte ``offset`` (all that fit, for -1). A read-only buffer gives a tensor whose writes
    raise (PyTorch's, which warns, would write into it)."""
    dt = _dtypes.to_dtype(dtype)
    view = memoryview(buffer)
    length, size = view.nbytes, dt.itemsize
    if length == 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(
            f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
            f"({length} bytes) minus 1"
        )
    if count < 0 and (length - offset) % size:
        raise ValueError(
            f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a "
            f"multiple of element size ({size})"
        )
    if count > 0 and count * size > length - offset:
        raise ValueError(
            f"requested buffer length ({count} * {size} bytes) after offset ({offset} bytes) "
            f"must not be greater than actual buffer length ({length} bytes)"
        )
    if view.readonly and not _warned_read_only_buffer[0]:
        _warned_read_only_buffer[0] = True
        warnings.warn(
            "The given buffer is not writable, and PyTorch does not support non-writable "
            "tensors. This means you can write to the underlying (supposedly non-writable) "
            "buffer using the tensor. You may want to copy the buffer to protect its data or "
            "make it writable before converting it to a tensor. This type of warning will be "
            "suppressed for the rest of this program.",
            UserWarning,
            stacklevel=2,
        )
    arr = xp.frombuffer(view.cast("B"), dtype=dt.np, count=count, offset=offset)
    return _check_requires_grad(_make(arr, dt), requires_grad)


_warned_read_only = [False]
_warned_read_only_buffer = [False]
_warned_discarding = [False]


def _discards_imaginary(arr: Any, dt: DType) -> bool:
    """Whether casting ``arr`` to ``dt`` takes complex values to integers or floats (bool
    takes them as nonzero or not)."""
    return (
        getattr(arr, "dtype", None) is not None and arr.dtype.kind == "c" and dt._category in (1, 2)
    )


def warn_discarding_imaginary() -> None:
    """PyTorch's warning for a cast of complex values to a real dtype (its real part is
    kept), once per process as PyTorch's (TORCH_WARN_ONCE)."""
    if not _warned_discarding[0]:
        _warned_discarding[0] = True
        warnings.warn(
            "Casting complex values to real discards the imaginary part", UserWarning, stacklevel=4
        )


def _writable(a: ndarray) -> ndarray:
    """A read-only NumPy array's memory as a writable array, with PyTorch's warning (once):
    PyTorch shares the memory and writes into it. Memory NumPy does not own (a bytes
    object's, say) stays read-only: in-place ops on the tensor then raise."""
    if not _warned_read_only[0]:
        _warned_read_only[0] = True
        warnings.warn(
            "The given NumPy array is not writable, and PyTorch does not support non-writable "
            "tensors. This means writing to this tensor will result in undefined behavior. You "
            "may want to copy the array to protect its data or make it writable before "
            "converting it to a tensor. This type of warning will be suppressed for the rest "
            "of this program.",
            UserWarning,
            stacklevel=3,
        )
    owner = a
    while isinstance(owner.base, ndarray):
        owner = owner.base
    if owner.base is not None or any(st == 0 for st in a.strides):
        return a  # foreign memory, or elements sharing memory: not written into
    return xp.asarray(_Memory(a))


class _Memory:
    """Exposes an array's memory as writable (it keeps the array alive)."""

    def __init__(self, a: ndarray) -> None:
        self.array = a
        iface = dict(a.__array_interface__)
        iface["data"] = (iface["data"][0], False)
        self.__array_interface__ = iface


def _check_device(dev: Any) -> None:
    check_device(dev)


# ----- filled ----------------------------------------------------------------------------


def _size(size: Sequence, fn: str) -> tuple:
    """A size given as ints or one sequence of them; an integer tensor of one element
    counts as an int (PyTorch's), anything else is PyTorch's TypeError."""
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = size[0]
    try:
        return tuple(operator.index(s) for s in size)
    except TypeError:
        bad = next(s for s in size if not _is_index(s))
        raise TypeError(
            f"{fn}(): argument 'size' (position 1) must be tuple of ints, not {type(bad).__name__}"
        ) from None


def _is_index(s: Any) -> bool:
    try:
        operator.index(s)
    except TypeError:
        return False
    return True


def converted_fill(value: Any, d: DType) -> Any:
    """A Python number as PyTorch converts it to fill a tensor of dtype ``d`` (``full``,
    ``fill_``): ``_dtypes.checked_fill``, complex numbers and dtypes included."""
    return _dtypes.checked_fill(value, d)


def _filled(fill: Any, size: Any, dtype: DType | None, requires_grad: bool, fn: str) -> Tensor:
    dt = _dtypes.to_dtype(dtype) if dtype is not None else _dtypes.get_default_dtype()
    if _meta.making[0]:  # on the meta device: the shape and dtype only
        arr = _meta.meta_array(_size(size, fn), dt.np)
        return _check_requires_grad(_make(arr, dt), requires_grad)
    try:
        if fill.__class__ is int and (fill == 0 or fill == 1):  # zeros, ones: no overflow
            arr = (xp.zeros if fill == 0 else xp.ones)(_size(size, fn), dtype=dt.np)
        else:
            with xp.errstate(over="ignore"):  # beyond float16's range: inf, as in PyTorch
                arr = xp.full(_size(size, fn), fill, dtype=dt.np)
    except ValueError:
        raise _negative_size(_size(size, fn), fn) from None
    return _check_requires_grad(_make(arr, dt), requires_grad)


def _negative_size(shape: tuple, fn: str) -> Exception:
    """PyTorch's error for a size with a negative dim (zeros words its own)."""
    bad = [s for s in shape if s < 0]
    if not bad:
        return ValueError(f"{fn}(): invalid size {list(shape)}")
    if fn == "zeros":
        return RuntimeError("zeros: Dimension size must be non-negative.")
    return RuntimeError(f"Trying to create tensor with negative dimension {bad[0]}: {list(shape)}")


@writes_out
@on_device
def zeros(
    *size: int | Sequence[int],
    dtype: DType | None = None,
    device: str | Device | None = None,
    requires_grad: bool = False,
    out: Tensor | None = None,
    layout: Any = None,
) -> Tensor:
    """A tensor of zeros of the given size."""
    _check_device(device)
    return _filled(0, size, dtype, requires_grad, fn="zeros")


@writes_out
@on_device
def ones(
    *size: int | Sequence[int],
    dtype: DType | None = None,
    device: str | Device | None = None,
    requires_grad: bool = False,
    out: Tensor | None = None,
    layout: Any = None,
) -> Tensor:
    """A tensor of ones of the given size."""
    _check_device(device)
    return _filled(1, size, dtype, requires_grad, fn="ones")


@writes_out
@on_device
def empty(
    *size: int | Sequence[int],
    dtype: DType | None = None,
    device: str | Device | None = None,
    requires_grad: bool = False,
    out: Tensor | None = None,
    layout: Any = None,
    memory_format: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """An uninitialised tensor (chainrule fills it with zeros), laid out as ``memory_format``
    (row-major unless given; ``preserve_format`` has nothing to preserve: an error)."""
    _check_device(device)
    if memory_format is None:
        return _filled(0, size, dtype, requires_grad, fn="empty")
    if memory_format is _memory_format.preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    return _memory_format.relaid(_filled(0, size, dtype, requires_grad, fn="empty"), memory_format)


@writes_out
@on_device
def full(
    size: Sequence[int],
    fill_value: float,
    *,
    dtype: DType | None = None,
    device: str | Device | None = None,
    requires_grad: bool = False,
    out: Tensor | None = None,
) -> Tensor:
    """A tensor filled with ``fill_value``; the dtype follows the value's type."""
    _check_device(device)
    if not isinstance(size, (list, tuple)):  # (torch.Size is a tuple; a bare int is refused)
        raise TypeError(
            f"full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}"
        )
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    fill_value = as_number(fill_value)
    default = _dtypes.scalar_dtype(fill_value)
    dt = _dtypes.to_dtype(dtype) if dtype is not None else default
    return _filled(converted_fill(fill_value, dt), (size,), dt, requires_grad, fn="full")


def _like(t: Tensor, fill: Any, dtype: DType | None, requires_grad: bool) -> Tensor:
    dt = t._dtype if dtype is None else _dtypes.to_dtype(dtype)
    if fill.__class__ is int and (fill == 0 or fill == 1):  # (zeros, ones: no overflow)
        arr = xp.full_like(t._data, fill, dtype=dt.np)  # (laid out as t is: preserve_format)
    else:
        with xp.errstate(over="ignore"):
            arr = xp.full_like(t._data, fill, dtype=dt.np)
    return _check_requires_grad(_make(arr, dt), requires_grad)


@on_device_like
def zeros_like(
    input: Tensor,
    *,
    dtype: DType | None = None,
    device: str | Device | None = None,
    requires_grad: bool = False,
    memory_format: Any = None,
    layout: Any = None,
) -> Tensor:
    _check_device(device)
    return _memory_format.relaid(_like(input, 0, dtype, requires_grad), memory_format)


@on_device_like
def ones_like(
    input: Tensor,
    *,
    dtype: DType | None = None,
    device: str | Device | None = None,
    requires_grad: bool = False,
    memory_format: Any = None,
    layout: Any = None,
) -> Tensor:
    _check_device(device)
    return _memory_format.relaid(_like(input, 1, dtype, requires_grad), memory_format)


@on_device_like
def empty_like(
    input: Tensor,
    *,
    dtype: DType | None = None,
    device: str | Device | None = None,
    requires_grad: bool = False,
    memory_format: Any = None,
    layout: Any = None,
) -> Tensor:
    _check_device(device)
    return _memory_format.relaid(_like(input, 0, dtype, requires_grad), memory_format)


@on_device_like
def full_like(
    input: Tensor,
    fill_value: float,
    *,
    dtype: DType | None = None,
    device: str | Device | None = None,
    requires_grad: bool = False,
    memory_format: Any = None,
    layout: Any = None,
) -> Tensor:
    _check_device(device)
    dt = input._dtype if dtype is None else _dtypes.to_dtype(dtype)
    fill = converted_fill(as_number(fill_value), dt)
    return _memory_format.relaid(_like(input, fill, dt, requires_grad), memory_format)


@writes_out
@on_device
def eye(
    n: int,
    m: int | None = None,
    *,
    dtype: DType | None = None,
    device: str | Device | None = None,
    requires_grad: bool = False,
    out: Tensor | None = None,
    layout: Any = None,
) -> Tensor:
    """The n×m identity matrix."""
    _check_device(device)
    dt = _dtypes.to_dtype(dtype) if dtype is not None else _dtypes.get_default_dtype()
    try:
        arr = xp.eye(n, n if m is None else m, dtype=dt.np)
    except ValueError:
        name, k = ("n", n) if n < 0 else ("m", m)
        raise RuntimeError(f"{name} must be greater or equal to 0, got {k}") from None
    return _check_requires_grad(_make(arr, dt), requires_grad)


@writes_out
@on_device
def arange(
    start: float = 0,
    end: float | None = None,
    step: float = 1,
    *,
    dtype: DType | None = None,
    device: str | Device | None = None,
    requires_grad: bool = False,
    out: Tensor | None = None,
    layout: Any = None,
) -> Tensor:
    """Values from start to end (exclusive) in steps; integers give int64, else the default float."""
    _check_device(device)
    if end is None:
        start, end = 0, start
    values = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if any(isinstance(v, builtins.complex) for v in values):  # (PyTorch reads them as doubles)
        raise RuntimeError("value cannot be converted to type double without overflow")
    if dtype is None:
        integral = all(isinstance(v, numbers.Integral) for v in values)
        dt = _dtypes.int64 if integral else _dtypes.get_default_dtype()
    else:
        dt = _dtypes.to_dtype(dtype)
        if dt._category == 3 or dt._category == 0:
            raise _dtypes.not_implemented("arange_cpu", dt)
    start, end, step = values
    if not step == step != 0:  # (nan too)
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start:g} -> {end:g}")
    if not (step > 0 and end >= start or step < 0 and end <= start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dt._category == 2:  # n = ceil((end - start) / step) in doubles; start + i step
        n = math.ceil((end - start) / step)
        # (a fused multiply-add in PyTorch's kernel: carried in long double, where i step
        # is exact for i up to 2^11)
        wide = xp.arange(n, dtype=xp.longdouble) * xp.longdouble(step) + xp.longdouble(start)
        arr = wide.astype(xp.float64)
        return _check_requires_grad(_make(arr.astype(dt.np), dt), requires_grad)
    # integer dtypes: PyTorch truncates start and step to int64 (the length is in doubles,
    # except for int64, where the end is truncated too)
    if not math.isfinite(step):
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    start, step = int(start), int(step)
    if dt is _dtypes.int64:
        if step == 0:
            raise ValueError("step must be nonzero")
        n = math.ceil(float(int(end) - start) / step)
    else:
        n = math.ceil((end - values[0]) / values[2])
    arr = start + xp.arange(n, dtype=xp.int64) * step
    return _check_requires_grad(_make(arr.astype(dt.np), dt), requires_grad)


@writes_out
@on_device
def linspace(
    start: float | Tensor,
    end: float | Tensor,
    steps: int,
    *,
    dtype: DType | None = None,
    device: str | Device | None = None,
    requires_grad: bool = False,
    out: Tensor | None = None,
    layout: Any = None,
) -> Tensor:
    """``steps`` evenly spaced values from start to end inclusive (complex where start or
    end is, or dtype says so)."""
    _check_device(device)
    if steps_refused(steps):
        raise TypeError(invalid_spacing("linspace", (start, end, steps), ""))
    dt = _dtypes.to_dtype(dtype) if dtype is not None else _dtypes.get_default_dtype()
    if int(steps) < 0:
        raise RuntimeError("number of steps must be non-negative")
    for label, v in (("start", start), ("end", end)):
        if isinstance(v, Tensor) and v.ndim:
            raise RuntimeError(
                "linspace only supports 0-dimensional start and end tensors, but got "
                f"{label} with {v.ndim} dimension(s)."
            )
    ends = [v.item() if isinstance(v, Tensor) else v for v in (start, end)]
    if any(isinstance(v, builtins.complex) for v in ends):
        inferred = _dtypes.default_complex()
        if dtype is None:
            dt = inferred
        elif dt._category != 3:
            raise RuntimeError(
                f"torch.linspace(): inferred dtype {inferred.c_name} can't be safely cast to "
                f"passed dtype {dt.scalar_name}"
            )
    if dt._category < 2 and int(steps) > 1:
        if dt._category == 0:
            raise _dtypes.not_implemented("linspace_cpu", dt)
    if dt._category == 1 and int(steps):  # (the ends cast to dt: PyTorch's checked cast)
        ends = [_dtypes.checked_fill(v, dt) for v in ends]
    if dt._category == 3:
        arr = xp.linspace(*map(builtins.complex, ends), int(steps)).astype(dt.np)
    else:
        arr = _linspace_real(float(ends[0]), float(ends[1]), int(steps), dt.np)
    return _check_requires_grad(_make(arr, dt), requires_grad)


def steps_refused(steps: Any) -> bool:
    """Whether ``steps`` is no int to PyTorch: a bool, a float, or a tensor other than a 0-d
    integer one (an object with ``__index__``, a NumPy integer say, is one)."""
    if isinstance(steps, Tensor):
        return steps.ndim != 0 or steps._dtype._category != 1
    return isinstance(steps, bool) or not hasattr(type(steps), "__index__")


def invalid_spacing(name: str, values: tuple, base: str, keywords: str = "") -> str:
    """PyTorch's TypeError for linspace or logspace arguments none of its signatures takes
    (``base``: the signature's text for a base argument, if any; ``keywords``: what the
    message shows of the arguments given by keyword, ", base=complex" say)."""
    got = ", ".join(
        "Tensor"
        if isinstance(v, Tensor)
        else type(v).__qualname__
        if type(v).__module__ == "builtins"
        else f"{type(v).__module__.split('.')[0]}.{type(v).__qualname__}"
        for v in values
    )
    rest = (
        f"int steps, {base}*, Tensor out = None, torch.dtype dtype = None, torch.layout layout "
        "= None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)"
    )
    forms = [("Tensor", "Tensor"), ("Number", "Tensor"), ("Tensor", "Number"), ("Number", "Number")]
    lines = "".join(f" * ({a} start, {b} end, {rest}\n" for a, b in forms)
    return (
        f"{name}() received an invalid combination of arguments - got ({got}{keywords}), but "
        f"expected one of:\n{lines}"
    )


def _linspace_real(start: float, end: float, steps: int, dtype: Any) -> Any:
    """PyTorch's linspace: step = (end - start) / (steps - 1), then start + step·i for the
    first half of the points and end - step·(steps - 1 - i) for the second (both ends
    exact), as PyTorch's kernel computes them: for float32 and float64 each point a fused
    multiply-add rounded once (carried here in float64, and in long double for float64,
    where a product by an index up to 2^11 is exact and a rare sum may round twice); for
    float16 and bfloat16 every operation rounded to the dtype, the index too; for integers
    the ends first cast to the dtype, the points in double, truncated."""
    if steps <= 1:
        return xp.full(steps, start, dtype=xp.float64).astype(dtype)
    half = steps // 2
    if dtype.kind in "fV" and dtype.itemsize < 4:  # (V: bfloat16, from ml_dtypes)
        f = xp.float32
        first, last = xp.asarray(start, dtype), xp.asarray(end, dtype)
        count = xp.asarray(steps - 1).astype(dtype).astype(f)  # (2999 in float16: 3000)
        step = ((last.astype(f) - first.astype(f)) / count).astype(dtype)
        i = xp.arange(steps).astype(dtype).astype(f)
        j = xp.arange(steps - 1, -1, -1).astype(dtype).astype(f)
        ahead = first.astype(f) + (step.astype(f) * i[:half]).astype(dtype).astype(f)
        behind = last.astype(f) - (step.astype(f) * j[half:]).astype(dtype).astype(f)
        return xp.concatenate([ahead, behind]).astype(dtype)
    if dtype.kind in "iub":
        start, end = (float(xp.asarray(v).astype(dtype)) for v in (start, end))
    precise = xp.float32 if dtype == xp.float32 else xp.float64
    first, last = precise(start), precise(end)
    step = (last - first) / precise(steps - 1)
    wide = xp.float64 if precise is xp.float32 else xp.longdouble
    ahead = xp.arange(half, dtype=wide) * wide(step) + wide(first)
    behind = xp.arange(steps - 1 - half, -1, -1, dtype=wide) * -wide(step) + wide(last)
    return xp.concatenate([ahead, behind]).astype(precise).astype(dtype)


# ----- legacy typed constructors ---------------------------------------------------------


def tensor_new(cls: type, *args: Any, **kwargs: Any) -> Tensor:
    """``Tensor(2, 3)`` is an (uninitialised) 2x3 tensor of the default dtype;
    ``Tensor([1, 2])`` copies data: PyTorch's legacy constructor (an instance of ``cls``,
    a subclass's own ``__new__`` calling ``super().__new__(cls, data)``). ``Tensor(t)`` of a
    tensor ``t`` is an alias of it (same memory, dtype and graph: ``AliasBackward0``)."""
    if len(args) == 1 and not kwargs and isinstance(args[0], Tensor):
        return args[0].as_subclass(cls)
    t = _legacy_new(cls, _dtypes.get_default_dtype(), args, kwargs)
    return t if cls is Tensor else _tensor._retype(t, cls)


def _legacy_new(cls: type, dt: DType, args: tuple, kwargs: dict) -> Tensor:
    """``FloatTensor(2, 3)`` is an (uninitialised) 2x3 tensor; ``FloatTensor([1, 2])`` copies data."""
    check_device(kwargs.get("device"))
    if not args:
        return _make(xp.zeros((0,), dtype=dt.np), dt)
    if all(isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in args):
        return _make(xp.zeros(tuple(int(a) for a in args), dtype=dt.np), dt)
    if len(args) != 1:
        raise TypeError(f"new(): invalid arguments {args!r}")
    data = args[0]
    arr, _ = _infer_array(data, dt)
    return _make(xp.array(arr, dtype=dt.np), dt)


class _TypedTensorMeta(type):
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and obj._dtype is cls._dtype

    def __call__(cls, *args: Any, **kwargs: Any) -> Tensor:
        return _legacy_new(Tensor, cls._dtype, args, kwargs)


def _typed(name: str, dt: DType) -> type:
    return _TypedTensorMeta(name, (), {"_dtype": dt, "__doc__": f"Legacy constructor: {dt!r}."})


FloatTensor = _typed("FloatTensor", _dtypes.float32)
DoubleTensor = _typed("DoubleTensor", _dtypes.float64)
HalfTensor = _typed("HalfTensor", _dtypes.float16)
BFloat16Tensor = _typed("BFloat16Tensor", _dtypes.bfloat16)
LongTensor = _typed("LongTensor", _dtypes.int64)
IntTensor = _typed("IntTensor", _dtypes.int32)
ShortTensor = _typed("ShortTensor", _dtypes.int16)
CharTensor = _typed("CharTensor", _dtypes.int8)
ByteTensor = _typed("ByteTensor", _dtypes.uint8)
BoolTensor = _typed("BoolTensor", _dtypes.bool)
