"""A CPU stand-in for CuPy: the 'cuda' device of machines without a GPU, for tests.

With ``CHAINRULE_CUDA=standin`` in the environment, ``_backend`` loads this module as the
'cuda' device's array module instead of CuPy. Its arrays are NumPy arrays wrapped in a
distinct type (``ndarray`` here, not a subclass of NumPy's) that behaves as CuPy's does
where chainrule can tell: NumPy's ufuncs and array functions hand it over to this module
(NEP 13 and 18), its methods and operators give arrays of its own type (a reduction a 0-d
array, not a NumPy scalar), and it refuses what CuPy refuses: implicit conversion to a
NumPy array (``numpy.asarray(a)`` raises TypeError) and NumPy arrays mixed into its
computations. So an op that bypasses the backend, or mixes a host array into a device
computation, fails here as it would on a GPU, and the very code paths of 'cuda' run in CI.

The module answers the few runtime queries ``chainrule.cuda`` asks (``runtime``): one
device, named "chainrule CPU stand-in".
"""

from __future__ import annotations

import time
from typing import Any

import numpy

__all__ = ["ndarray", "asarray", "asnumpy"]


def _unwrap(x: Any) -> Any:
    """The NumPy array inside ``x``; a NumPy array (even 0-d) is refused, as CuPy refuses
    one."""
    t = type(x)
    if t is ndarray:
        return x._a
    if isinstance(x, numpy.ndarray):
        raise TypeError(f"Unsupported type {t}")  # CuPy's message
    if t is list or t is tuple:
        return t(_unwrap(v) for v in x)
    if t is dict:
        return {k: _unwrap(v) for k, v in x.items()}
    return x


def _wrap(x: Any) -> Any:
    if isinstance(x, numpy.ndarray):
        return ndarray(x)
    if isinstance(x, numpy.generic):
        return ndarray(numpy.asarray(x))  # CuPy's reductions give 0-d arrays, not scalars
    if type(x) is tuple or type(x) is list:
        return type(x)(_wrap(v) for v in x)
    if isinstance(x, tuple):  # NumPy's named results (EighResult, SVDResult ...): a tuple
        return tuple(_wrap(v) for v in x)  # as CuPy gives
    return x


def _wrapped(fn: Any) -> Any:
    def call(*args: Any, **kwargs: Any) -> Any:
        return _wrap(fn(*_unwrap(args), **_unwrap(kwargs)))

    call.__name__ = getattr(fn, "__name__", "fn")
    return call


# what a NumPy array has and CuPy's has not: NumPy reads a host array's memory through the
# first two (``numpy.asarray(a)`` would succeed without them refused)
_HOST_ONLY = frozenset(("__array_interface__", "__array_struct__", "ctypes", "tofile"))


class ndarray:  # noqa: N801 - CuPy's name
    """A device array of the stand-in: a NumPy array that will not be taken for one."""

    __slots__ = ("_a", "__weakref__")
    __array_priority__ = 100

    def __init__(
        self,
        shape: Any,
        dtype: Any = float,
        memptr: _Pointer | None = None,
        strides: tuple | None = None,
        order: str = "C",
    ) -> None:
        """CuPy's signature: a new array of ``shape``, or a view of the memory at ``memptr``
        with ``strides`` (in bytes); within this module, a NumPy array to wrap."""
        if isinstance(shape, numpy.ndarray):
            self._a = shape
        elif memptr is None:
            self._a = numpy.empty(shape, dtype, order=order)
        else:
            self._a = memptr.view(shape, numpy.dtype(dtype), strides)

    # what CuPy refuses
    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            "Implicit conversion to a NumPy array is not allowed. "
            "Please use `.get()` to construct a NumPy array explicitly."
        )

    def get(self) -> numpy.ndarray:
        return self._a.copy()

    # NumPy's protocols: compute on the wrapped arrays, give wrapped results
    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        out = kwargs.pop("out", None)
        kwargs = _unwrap(kwargs)
        if out is not None:
            kwargs["out"] = tuple(_unwrap(o) if type(o) is ndarray else _bad(o) for o in out)
        result = getattr(ufunc, method)(*_unwrap(inputs), **kwargs)
        if out is not None:
            return out[0] if len(out) == 1 else out
        return _wrap(result)

    def __array_function__(self, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
        if func is numpy.repeat:
            return repeat(*args, **kwargs)
        return _wrap(func(*_unwrap(args), **_unwrap(kwargs)))

    def repeat(self, repeats: Any, axis: int | None = None) -> ndarray:
        return repeat(self, repeats, axis)

    # attributes and methods: those of the wrapped array, results wrapped
    @property
    def shape(self) -> tuple:
        return self._a.shape

    @shape.setter
    def shape(self, value: tuple) -> None:  # in place, without a copy, as CuPy's
        try:
            self._a.shape = value
        except AttributeError:
            raise AttributeError("Incompatible shape") from None

    @property
    def dtype(self) -> Any:
        return self._a.dtype

    @property
    def ndim(self) -> int:
        return self._a.ndim

    @property
    def size(self) -> int:
        return self._a.size

    @property
    def itemsize(self) -> int:
        return self._a.itemsize

    @property
    def nbytes(self) -> int:
        return self._a.nbytes

    @property
    def strides(self) -> tuple:
        return self._a.strides

    @property
    def flags(self) -> Any:
        return self._a.flags

    @property
    def base(self) -> Any:
        return None if self._a.base is None else _wrap(self._a.base)

    @property
    def T(self) -> ndarray:  # noqa: N802 - NumPy's name
        return ndarray(self._a.T)

    @property
    def real(self) -> ndarray:
        return ndarray(self._a.real)

    @property
    def imag(self) -> ndarray:
        return ndarray(self._a.imag)

    @property
    def device(self) -> Any:  # CuPy's Device, its index as .id
        return _Device(0)

    @property
    def data(self) -> _Pointer:  # CuPy's MemoryPointer: its address as .ptr
        return _Pointer(self._a.__array_interface__["data"][0], self._a)

    def __getattr__(self, name: str) -> Any:
        if name in _HOST_ONLY:
            raise AttributeError(f"'cupy.ndarray' object has no attribute '{name}'")
        value = getattr(self._a, name)
        return _wrapped(value) if callable(value) else _wrap(value)

    def __getitem__(self, key: Any) -> Any:
        key = _unwrap_key(key)
        out = self._a[key]
        if not isinstance(out, numpy.ndarray):  # an element: CuPy gives a 0-d view
            out = self._a[(*key, Ellipsis) if type(key) is tuple else (key, Ellipsis)]
        return ndarray(out)

    def __setitem__(self, key: Any, value: Any) -> None:
        self._a[_unwrap_key(key)] = value._a if type(value) is ndarray else value

    def __len__(self) -> int:
        return len(self._a)

    def __iter__(self) -> Any:
        return (_wrap(v) for v in self._a)

    def __bool__(self) -> bool:
        return bool(self._a)

    def __float__(self) -> float:
        return float(self._a)

    def __int__(self) -> int:
        return int(self._a)

    def __complex__(self) -> complex:
        return complex(self._a)

    def __index__(self) -> int:
        return self._a.__index__()

    def __repr__(self) -> str:
        return f"standin.{self._a!r}"

    def __str__(self) -> str:  # as CuPy prints: NumPy's text of the values
        return str(self._a)

    def __format__(self, spec: str) -> str:
        return format(self._a, spec)

    def __reduce__(self) -> Any:
        raise TypeError("a stand-in device array is not pickled: copy it to the host first")

    def __copy__(self) -> ndarray:
        return ndarray(self._a.copy())

    def __deepcopy__(self, memo: dict) -> ndarray:
        return ndarray(self._a.copy())


class _Pointer:
    """CuPy's MemoryPointer: an address (``ptr``) in the memory of ``owner``, which it keeps
    alive; ``pointer + n`` is n bytes further."""

    __slots__ = ("ptr", "owner")

    def __init__(self, ptr: int, owner: numpy.ndarray) -> None:
        self.ptr = ptr
        self.owner = owner

    def __add__(self, offset: int) -> _Pointer:
        return _Pointer(self.ptr + int(offset), self.owner)

    def view(self, shape: Any, dtype: numpy.dtype, strides: tuple | None) -> numpy.ndarray:
        """The NumPy array of ``shape`` at this address (no bounds checked, as on a GPU)."""
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        return numpy.asarray(_Interface(self, shape, dtype, strides))


class _Interface:
    """Raw memory described to NumPy (its base: keeps the pointer's owner alive)."""

    __slots__ = ("__array_interface__", "pointer")

    def __init__(self, pointer: _Pointer, shape: tuple, dtype: Any, strides: Any) -> None:
        self.pointer = pointer
        self.__array_interface__ = {
            "version": 3,
            "shape": shape,
            "typestr": dtype.str,
            "descr": dtype.descr,
            "data": (pointer.ptr, False),
            "strides": None if strides is None else tuple(strides),
        }


def _bad(x: Any) -> Any:
    raise TypeError(f"Unsupported type {type(x)}")


def _unwrap_key(key: Any) -> Any:
    # CuPy indexes with its arrays, with Python and NumPy integers and slices, and with
    # host index arrays (lists, NumPy arrays), which it copies to the device
    if type(key) is ndarray:
        return key._a
    if type(key) is tuple:
        return tuple(k._a if type(k) is ndarray else k for k in key)
    return key


def _operator(name: str) -> Any:
    def op(self: ndarray, *args: Any) -> Any:
        return _wrap(getattr(self._a, name)(*_unwrap(args)))

    op.__name__ = name
    return op


for _name in (
    "add sub mul truediv floordiv mod pow matmul and or xor lshift rshift divmod "
    "radd rsub rmul rtruediv rfloordiv rmod rpow rmatmul rand ror rxor rlshift rrshift rdivmod "
    "iadd isub imul itruediv ifloordiv imod ipow imatmul iand ior ixor ilshift irshift "
    "lt le eq ne gt ge neg pos abs invert"
).split():
    setattr(ndarray, f"__{_name}__", _operator(f"__{_name}__"))
ndarray.__hash__ = None  # type: ignore[assignment]


def _inplace(name: str) -> Any:
    def op(self: ndarray, other: Any) -> ndarray:
        getattr(self._a, name)(_unwrap(other))
        return self

    op.__name__ = name
    return op


for _name in "iadd isub imul itruediv ifloordiv imod ipow iand ior ixor ilshift irshift".split():
    setattr(ndarray, f"__{_name}__", _inplace(f"__{_name}__"))


# ----- the module: NumPy's functions on stand-in arrays ------------------------------------


def asarray(a: Any, dtype: Any = None, order: Any = None, **kwargs: Any) -> ndarray:
    """``a`` on the device: a stand-in array as it is (cast to ``dtype``), host data copied."""
    if type(a) is ndarray:
        return a if dtype is None or a.dtype == dtype else ndarray(a._a.astype(dtype))
    return ndarray(numpy.array(a, dtype=dtype, copy=True))


def array(a: Any, dtype: Any = None, copy: bool = True, **kwargs: Any) -> ndarray:
    if type(a) is ndarray:
        return ndarray(numpy.array(a._a, dtype=dtype, copy=copy))
    return ndarray(numpy.array(a, dtype=dtype, copy=True))


# what CuPy refuses that NumPy takes: the counts of ``repeat`` as a device array (the size of
# the result must be known on the host)
def repeat(a: Any, repeats: Any, axis: int | None = None) -> ndarray:
    if type(repeats) is ndarray:
        raise ValueError("cupy.ndaray cannot be specified as `repeats` argument.")  # (sic)
    return _wrap(numpy.repeat(_unwrap(a), repeats, axis))


def asnumpy(a: Any) -> numpy.ndarray:
    """A host (NumPy) copy of ``a``, as ``cupy.asnumpy``."""
    if type(a) is ndarray:
        return a._a.copy()
    return numpy.asarray(a)


class _Namespace:
    """A NumPy submodule (``linalg``, ``lib.stride_tricks``) with its functions wrapped."""

    def __init__(self, module: Any) -> None:
        self._module = module

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._module, name)
        if isinstance(value, type(numpy)):
            return _Namespace(value)
        return _wrapped(value) if callable(value) and not isinstance(value, type) else value


linalg = _Namespace(numpy.linalg)
lib = _Namespace(numpy.lib)
fft = _Namespace(numpy.fft)
random = _Namespace(numpy.random)


def __getattr__(name: str) -> Any:
    value = getattr(numpy, name)
    if isinstance(value, numpy.ufunc):
        return value  # ufuncs hand stand-in arrays to __array_ufunc__
    if callable(value) and not isinstance(value, type):
        return _wrapped(value)
    return value


# ----- the runtime parts of CuPy that chainrule.cuda asks for ----------------------------------


class _Runtime:
    device = 0

    def getDeviceCount(self) -> int:  # noqa: N802 - CuPy's names
        return 1

    def getDevice(self) -> int:  # noqa: N802
        return self.device

    def setDevice(self, index: int) -> None:  # noqa: N802
        self.device = index

    def getDeviceProperties(self, index: int) -> dict:  # noqa: N802
        return {"name": b"chainrule CPU stand-in", "totalGlobalMem": 0}

    def deviceSynchronize(self) -> None:  # noqa: N802
        return None


class _Event:
    """A timing event: the host's clock, standing in for a CUDA event's."""

    def __init__(
        self, block: bool = False, disable_timing: bool = False, interprocess: bool = False
    ) -> None:
        self.t: float | None = None

    def record(self, stream: Any = None) -> None:
        self.t = time.perf_counter()

    def synchronize(self) -> None:
        return None

    @property
    def done(self) -> bool:
        return True


class _Device:
    def __init__(self, index: int | None = None) -> None:
        self.id = cuda.runtime.device if index is None else index

    def use(self) -> None:
        cuda.runtime.setDevice(self.id)

    def synchronize(self) -> None:
        return None


class _Cuda:
    runtime = _Runtime()
    Event = _Event
    Device = _Device

    @staticmethod
    def get_elapsed_time(start: _Event, end: _Event) -> float:
        return (end.t - start.t) * 1000.0


cuda = _Cuda()


class _MemoryPool:
    def used_bytes(self) -> int:
        return 0

    def total_bytes(self) -> int:
        return 0

    def free_all_blocks(self) -> None:
        return None


_pool = _MemoryPool()


def get_default_memory_pool() -> _MemoryPool:
    return _pool
