"""``torch.utils.dlpack``: tensors shared with other array libraries through DLPack, without
a copy (NumPy's own DLPack support underneath: a chainrule tensor is a NumPy array).

``from_dlpack(x)`` takes any object with ``__dlpack__`` (a PyTorch tensor, a NumPy array,
a JAX array on the CPU ...) or a legacy DLPack capsule, and gives a tensor over the same
memory (writable, as PyTorch takes it, also where NumPy marks a capsule's read-only); ``to_dlpack(t)`` gives a capsule; ``Tensor.__dlpack__`` lets the others'
``from_dlpack`` take chainrule tensors."""

from __future__ import annotations

import enum
from typing import Any

from .._backend import xp
from .._tensor import Tensor

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]


class DLDeviceType(enum.IntEnum):
    """DLPack's device codes."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


class _Capsule:
    """A legacy DLPack capsule as an object NumPy's ``from_dlpack`` takes."""

    def __init__(self, capsule: Any) -> None:
        self.capsule = capsule

    def __dlpack__(self, **_: Any) -> Any:
        return self.capsule

    def __dlpack_device__(self) -> tuple:
        return (DLDeviceType.kDLCPU, 0)


def from_dlpack(ext_tensor: Any) -> Tensor:
    """A tensor over the memory of ``ext_tensor`` (an object with ``__dlpack__``, or a
    DLPack capsule): no copy; writes through either show in both."""
    from .. import _dtypes
    from .._tensor import _make

    source = ext_tensor if hasattr(ext_tensor, "__dlpack__") else _Capsule(ext_tensor)
    device = source.__dlpack_device__()[0]
    if int(device) != DLDeviceType.kDLCPU:
        raise RuntimeError(
            f"chainrule takes DLPack tensors on the CPU only (this one is on device type "
            f"{int(device)})"
        )
    array = xp.from_dlpack(source)
    if not array.flags.writeable and source is not ext_tensor:
        array = _writable(array)  # (a legacy capsule: NumPy marks it read-only, PyTorch not)
    return _make(array, _dtypes.from_numpy_dtype(array.dtype))


def _writable(array: Any) -> Any:
    """A writable view of the memory of ``array`` (kept alive with it): a legacy capsule
    says nothing of read-only memory, and PyTorch takes such memory as writable."""
    import ctypes

    if array.nbytes == 0:
        return array.copy()
    start = array.__array_interface__["data"][0]
    low = min(0, *(s * (n - 1) for s, n in zip(array.strides, array.shape) if n))
    high = max(0, *(s * (n - 1) for s, n in zip(array.strides, array.shape) if n))
    memory = (ctypes.c_char * (high - low + array.itemsize)).from_address(start + low)
    memory._keep = array  # (the producer's memory lives while this view does)
    flat = xp.frombuffer(memory, dtype=xp.uint8)
    return xp.lib.stride_tricks.as_strided(
        flat[-low:].view(array.dtype), array.shape, array.strides, writeable=True
    )


def to_dlpack(tensor: Tensor) -> Any:
    """A DLPack capsule of the tensor's memory (for a library's ``from_dlpack``)."""
    return tensor._data.__dlpack__()


def tensor_dlpack(
    self: Tensor, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
    copy: Any = None,
) -> Any:  # fmt: skip
    """``Tensor.__dlpack__``: the tensor's memory for another library (not while it
    requires grad, as PyTorch refuses)."""
    if self.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    kwargs: dict = {}
    if max_version is not None:
        kwargs["max_version"] = max_version
    if copy is not None:
        kwargs["copy"] = copy
    return self._data.__dlpack__(**kwargs)


def tensor_dlpack_device(self: Tensor) -> tuple:
    """``Tensor.__dlpack_device__``: the CPU, device 0."""
    return (DLDeviceType.kDLCPU, 0)
