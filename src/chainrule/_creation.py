"""Constructors: tensor, zeros, ones, arange, rand, ... and the legacy typed constructors."""

from __future__ import annotations

import builtins
import numbers
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from . import _dtypes
from ._backend import ndarray, xp
from ._dtypes import dtype as DType
from ._tensor import Tensor, _make, check_device

if TYPE_CHECKING:
    from ._tensor import device as Device

# ----- from data -----------------------------------------------------------------------


def _infer_array(data: Any, dtype: DType | None) -> tuple[Any, DType]:
    """``data`` (nested sequences, numbers, arrays, tensors) as an array of PyTorch's dtype."""
    if isinstance(data, Tensor):
        arr = data._data
    elif isinstance(data, ndarray):
        arr = data
    else:
        if isinstance(data, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
        arr = xp.array(_unwrap(data))
        if arr.dtype.kind in "UOS":
            raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
        if dtype is None:
            dtype = _scalar_type(data)
    if dtype is None:
        dtype = _dtypes.from_numpy_dtype(arr.dtype)
    else:
        dtype = _dtypes.to_dtype(dtype)
    return arr, dtype


def _unwrap(data: Any) -> Any:
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (list, tuple)):
        return [_unwrap(d) for d in data]
    return data


def _scalar_type(data: Any) -> DType | None:
    """PyTorch's dtype for nested data: each element's own (a Python float the default
    dtype, an int int64, a tensor or NumPy value its dtype), promoted over all of them."""
    if isinstance(data, (xp.generic, ndarray)):  # before float: np.float64 is a float
        return _dtypes.from_numpy_dtype(data.dtype)
    if isinstance(data, builtins.bool):
        return _dtypes.bool
    if isinstance(data, numbers.Integral):
        return _dtypes.int64
    if isinstance(data, builtins.float):
        return _dtypes.get_default_dtype()
    if isinstance(data, Tensor):
        return data._dtype
    if isinstance(data, (list, tuple)):
        found = None
        for item in data:
            d = _scalar_type(item)
            found = d if found is None or d is found else _dtypes.promote_types(found, d)
        return found if found is not None else _dtypes.get_default_dtype()
    return None  # anything else: the dtype NumPy gives it


def _check_requires_grad(t: Tensor, requires_grad: bool) -> Tensor:
    if requires_grad:
        if not t._dtype.is_floating_point:
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        t._requires_grad = True
    return t


def tensor(
    data: Any,
    *,
    dtype: DType | None = None,
    device: str | Device | None = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """A new tensor holding a copy of ``data``; Python floats give the default dtype."""
    _check_device(device)
    arr, dt = _infer_array(data, dtype)
    return _check_requires_grad(_make(xp.array(arr, dtype=dt.np), dt), requires_grad)


def as_tensor(data: Any, dtype: DType | None = None, device: str | Device | None = None) -> Tensor:
    """``data`` as a tensor, sharing memory with an array or tensor of the same dtype."""
    _check_device(device)
    if isinstance(data, Tensor):
        if dtype is None or _dtypes.to_dtype(dtype) is data._dtype:
            return data
        return data.to(dtype)
    arr, dt = _infer_array(data, dtype)
    return _make(xp.asarray(arr, dtype=dt.np), dt)


def from_numpy(array: ndarray) -> Tensor:
    """A tensor sharing memory with a NumPy array (writes to one show in the other)."""
    if not isinstance(array, ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    return _make(array, _dtypes.from_numpy_dtype(array.dtype))


def _check_device(dev: Any) -> None:
    check_device(dev)


# ----- filled ----------------------------------------------------------------------------


def _size(size: Sequence) -> tuple:
    if len(size) == 1 and not isinstance(size[0], numbers.Integral):
        size = tuple(size[0])
    return tuple(int(s) for s in size)


def _filled(
    fill: Any, size: Any, dtype: DType | None, requires_grad: bool, default: DType | None = None
) -> Tensor:
    dt = _dtypes.to_dtype(dtype) if dtype is not None else (default or _dtypes.get_default_dtype())
    arr = xp.full(_size(size), fill, dtype=dt.np)
    return _check_requires_grad(_make(arr, dt), requires_grad)


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
    return _filled(0, size, dtype, requires_grad)


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
    return _filled(1, size, dtype, requires_grad)


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
    """An uninitialised tensor (chainrule fills it with zeros)."""
    _check_device(device)
    return _filled(0, size, dtype, requires_grad)


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
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    return _filled(fill_value, (size,), dtype, requires_grad, _dtypes.scalar_dtype(fill_value))


def _like(t: Tensor, fill: Any, dtype: DType | None, requires_grad: bool) -> Tensor:
    dt = t._dtype if dtype is None else _dtypes.to_dtype(dtype)
    return _check_requires_grad(_make(xp.full(t._data.shape, fill, dtype=dt.np), dt), requires_grad)


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
    return _like(input, 0, dtype, requires_grad)


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
    return _like(input, 1, dtype, requires_grad)


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
    return _like(input, 0, dtype, requires_grad)


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
    return _like(input, fill_value, dtype, requires_grad)


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
    arr = xp.eye(n, n if m is None else m, dtype=dt.np)
    return _check_requires_grad(_make(arr, dt), requires_grad)


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
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if dtype is None:
        integral = all(isinstance(v, numbers.Integral) for v in values)
        dt = _dtypes.int64 if integral else _dtypes.get_default_dtype()
    else:
        dt = _dtypes.to_dtype(dtype)
    start, end, step = values
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    n = max(0, int(-(-(end - start) // step)))
    arr = start + xp.arange(n, dtype=xp.float64 if dt.is_floating_point else xp.int64) * step
    return _check_requires_grad(_make(arr.astype(dt.np), dt), requires_grad)


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
    """``steps`` evenly spaced values from start to end inclusive."""
    _check_device(device)
    dt = _dtypes.to_dtype(dtype) if dtype is not None else _dtypes.get_default_dtype()
    if int(steps) < 0:
        raise RuntimeError("number of steps must be non-negative")
    arr = xp.linspace(float(start), float(end), int(steps)).astype(dt.np)
    return _check_requires_grad(_make(arr, dt), requires_grad)


# ----- legacy typed constructors ---------------------------------------------------------


def tensor_new(cls: type, *args: Any, **kwargs: Any) -> Tensor:
    """``Tensor(2, 3)`` is an (uninitialised) 2x3 tensor of the default dtype;
    ``Tensor([1, 2])`` copies data: PyTorch's legacy constructor."""
    return _legacy_new(cls, _dtypes.get_default_dtype(), args, kwargs)


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
LongTensor = _typed("LongTensor", _dtypes.int64)
IntTensor = _typed("IntTensor", _dtypes.int32)
ShortTensor = _typed("ShortTensor", _dtypes.int16)
CharTensor = _typed("CharTensor", _dtypes.int8)
ByteTensor = _typed("ByteTensor", _dtypes.uint8)
BoolTensor = _typed("BoolTensor", _dtypes.bool)
