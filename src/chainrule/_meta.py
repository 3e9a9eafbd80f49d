"""The meta device: tensors with a shape and a dtype but no data, to learn the shapes a
computation produces (PyTorch's ``device="meta"``).

A meta tensor is an ordinary Tensor whose array is a ``MetaArray``: a zero-strided view of
one zero (no memory, whatever the shape). Nothing in the ops knows about it: NumPy hands
every ufunc and array function that meets a ``MetaArray`` to the hooks below, which run it
on the zeros (silently: no warnings about log(0)) and give back the result's shape and
dtype as a new ``MetaArray``. So each op's own forward, recording and backward work
unchanged, results are meta because their inputs are, and CPU tensors never pay for it:
``Tensor.device`` reads the array's type. Writes into a meta array (in-place ops, ``copyto``,
item assignment, the initialisers) are dropped: there is nothing to write to.

The default device (``with torch.device("meta"):``, ``set_default_device``) is kept here;
``on_device`` makes a factory put its result where its ``device=`` (or the default) says.
"""

from __future__ import annotations

import functools
import inspect
import threading
import weakref
from collections.abc import Callable
from typing import Any

from . import _backend, _modes
from ._backend import xp

ndarray = xp.ndarray

# array functions whose first argument is written into: on a meta array they do nothing
_WRITERS = {
    getattr(xp, name)
    for name in ("copyto", "put", "place", "put_along_axis", "putmask", "fill_diagonal")
    if hasattr(xp, name)
}


# whether a factory is making a meta tensor (``on_device``): then it needs no values
making = [False]

# whether a meta array lives (or a device array was ever made, ``_backend``): while not, the
# ops skip ``follow`` and the device checks entirely, and the fast paths run
live = _backend.live

# how many MetaArrays live: each counts itself in when made (``__array_finalize__``, for
# every way NumPy makes one) and out when collected (a weakref finalizer); when the last
# goes and no device array was ever made, ``live`` and the "device" mode are off again
_alive = [0]
_count_lock = threading.Lock()


def _born() -> None:
    with _count_lock:
        _alive[0] += 1
        if _alive[0] == 1:
            live[0] = True
            _modes.mark("device", True)


def _gone() -> None:
    with _count_lock:
        _alive[0] -= 1
        if not _alive[0] and not _backend.device_made[0]:
            live[0] = False
            _modes.mark("device", False)


def meta_array(shape: tuple, dtype: Any) -> MetaArray:
    """An array of ``shape`` and ``dtype`` holding no data."""
    shape = tuple(shape)
    # zero strides: every element is the one zero (writable, as in-place ops check; the
    # writes that reach it are dropped below)
    zero = xp.lib.stride_tricks.as_strided(xp.zeros((), dtype=dtype), shape, (0,) * len(shape))
    return zero.view(MetaArray)


def _plain(x: Any) -> Any:
    """``x`` with every MetaArray in it seen as a plain (zero) array."""
    if isinstance(x, MetaArray):
        return x.view(ndarray)
    if isinstance(x, (list, tuple)):
        return type(x)(_plain(v) for v in x)
    return x


def _meta(x: Any) -> Any:
    """A result as meta arrays: its shapes and dtypes, not its values."""
    if isinstance(x, ndarray):
        return meta_array(x.shape, x.dtype)
    if isinstance(x, xp.generic):
        return meta_array((), x.dtype)
    if isinstance(x, (list, tuple)):
        return type(x)(_meta(v) for v in x)
    return x


class MetaArray(ndarray):
    """A meta tensor's array: a shape and a dtype; computations on it give meta arrays."""

    def __array_finalize__(self, obj: Any) -> None:
        _born()  # (counted while it lives: see _alive)
        weakref.finalize(self, _gone).atexit = False

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        out = kwargs.get("out")
        if method == "at" or (out and any(isinstance(o, MetaArray) for o in out)):
            return out[0] if out and len(out) == 1 else out  # a write: nothing to write
        if out:
            kwargs["out"] = _plain(out)
        with xp.errstate(all="ignore"):
            result = getattr(ufunc, method)(*_plain(inputs), **kwargs)
        return result if out else _meta(result)

    def __array_function__(self, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
        if func in _WRITERS and isinstance(args[0], MetaArray):
            return None
        with xp.errstate(all="ignore"):
            result = func(*_plain(args), **{k: _plain(v) for k, v in kwargs.items()})
        return _meta(result)

    def __setitem__(self, key: Any, value: Any) -> None:  # nothing to write
        return None

    def fill(self, value: Any) -> None:  # nothing to write
        return None

    def astype(self, dtype: Any, *args: Any, **kwargs: Any) -> MetaArray:
        return meta_array(self.shape, xp.dtype(dtype))

    def copy(self, order: str = "C") -> MetaArray:
        return meta_array(self.shape, self.dtype)


def is_meta(arr: Any) -> bool:
    return type(arr) is MetaArray


def follow(arrays: Any, out: Any) -> Any:
    """An op's output, made meta when one of its input arrays is (a forward may have lost
    the type on the way, through ``asarray`` or ``as_strided``)."""
    if type(out) is MetaArray or not isinstance(out, ndarray):
        return out
    for a in arrays:
        if type(a) is MetaArray:
            return meta_array(out.shape, out.dtype)
    return out


def follow_grads(grad_outputs: Any, grad_inputs: list) -> list:
    """A node's input gradients (its VJPs' results, arrays), made meta when a gradient of its
    outputs is (a VJP working on the arrays' bits, or writing into zeros, loses the type)."""
    for g in grad_outputs:
        if type(g) is MetaArray:
            return [follow((g,), gi) for gi in grad_inputs]
    return grad_inputs


# ----- the default device ------------------------------------------------------------------

_default: list[Any] = [None]  # None: the CPU


def default_device() -> Any:
    return _default[0]


def set_default(dev: Any) -> Any:
    """Make ``dev`` (a device, or None for the CPU) the default; returns the previous one."""
    previous, _default[0] = _default[0], dev
    return previous


def wants_meta(dev: Any) -> bool:
    """Whether ``device=dev`` (None: the default device) names the meta device."""
    if dev is None:
        dev = _default[0]
        if dev is None:
            return False
    return str(dev).partition(":")[0] == "meta"


def to_meta(t: Any) -> Any:
    """The tensor ``t``'s array replaced by a meta array of its shape and dtype (in place)."""
    t._data = meta_array(t._data.shape, t._data.dtype)
    return t


def data_device(dev: Any) -> str | None:
    """The device type ('cuda') when ``device=dev`` (None: the default device) names a
    device with an array library of its own (``_backend``); None for the CPU and meta."""
    if dev is None:
        dev = _default[0]
        if dev is None:
            return None
    kind = str(dev).partition(":")[0]
    return kind if kind == "cuda" else None


def to_data_device(t: Any, kind: str) -> Any:
    """The new tensor ``t``'s array moved onto the device type ``kind`` (in place)."""
    from ._tensor import check_device

    if kind != "cpu":
        check_device(kind)  # PyTorch's error when there is no such device
    t._data = _backend.to_device(t._data, kind)
    return t


def on_device(factory: Callable) -> Callable:
    """A factory that puts its result on the meta device when ``device=`` (or the default
    device, when none is given) is 'meta', or makes it on the CPU and moves it to a device
    with arrays of its own ('cuda'); the factory itself checks other devices."""

    first = next(iter(inspect.signature(factory).parameters.values()), None)
    sized = first is not None and first.kind is first.VAR_POSITIONAL  # zeros(*size)

    @functools.wraps(factory)
    def make(*args: Any, **kwargs: Any) -> Any:
        if sized and "size" in kwargs:  # zeros(size=(2, 3)), as PyTorch takes it
            if args:
                raise TypeError(f"{factory.__name__}() got multiple values for argument 'size'")
            args = (kwargs.pop("size"),)
        dev = kwargs.get("device")
        kind = data_device(dev)
        if kind is not None:
            from ._tensor import check_device

            check_device(_default[0] if dev is None else dev)  # PyTorch's errors first
            kwargs["device"] = "cpu"
            return to_data_device(factory(*args, **kwargs), kind)
        if wants_meta(dev):
            kwargs.pop("device", None)
            making[0] = True  # the filled and random factories then allocate nothing
            try:
                return to_meta(factory(*args, **kwargs))
            finally:
                making[0] = False
        return factory(*args, **kwargs)

    return make


def on_device_like(factory: Callable) -> Callable:
    """A ``*_like`` factory: on the meta device when ``device=`` says so, or, without one,
    when its input is there (the default device does not apply, as in PyTorch)."""

    @functools.wraps(factory)
    def make(input: Any, *args: Any, **kwargs: Any) -> Any:
        dev = kwargs.get("device")
        if (
            dev is not None
            and type(getattr(input, "_data", None)) is MetaArray
            and str(dev).partition(":")[0] != "meta"
        ):  # a meta input's shape and dtype, made on a real device: a real stand-in
            from ._tensor import _make

            input = _make(input._data.view(xp.ndarray), input._dtype)
        here = _backend.device_type(getattr(input, "_data", None))
        kind = here if dev is None else (data_device(dev) or "cpu")
        if kind != "cpu" or here != "cpu":  # made where the input is, then moved
            if dev is not None:
                from ._tensor import check_device

                check_device(dev)
            kwargs["device"] = "cpu"
            return to_data_device(factory(input, *args, **kwargs), kind)
        if dev is None:
            meta = type(getattr(input, "_data", None)) is MetaArray
        else:
            meta = str(dev).partition(":")[0] == "meta"
        if meta:
            kwargs.pop("device", None)
            return to_meta(factory(input, *args, **kwargs))
        return factory(input, *args, **kwargs)

    return make
