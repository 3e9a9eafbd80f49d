"""Writing ``data.pkl`` as PyTorch writes it (pickle protocol 2): a tensor is a call of
``torch._utils._rebuild_tensor_v2`` on a persistent storage reference
``('storage', torch.FloatStorage, key, 'cpu', numel)``, a Parameter one of
``torch._utils._rebuild_parameter``, a dtype the global ``torch.float32``. A float8 tensor
(a dtype with no typed storage class) is a call of ``torch._utils._rebuild_tensor_v3``, the
same arguments and its dtype, on ``('storage', torch.storage.UntypedStorage, key, 'cpu',
nbytes)``, as PyTorch 2.13 writes it. The globals are written by name, so the file names
PyTorch's functions without chainrule importing torch."""

from __future__ import annotations

import pickle
from collections import OrderedDict
from types import FunctionType
from typing import Any

from .. import _backend, _dtypes, _layout
from .._backend import ndarray, xp
from .._memory_format import memory_format
from .._tensor import Size, Tensor, device
from ._storages import STORAGE_OF, StorageRef, StorageTable
from ._torch_names import torch_name


class Global:
    """A reference to ``module.name``, written as pickle's GLOBAL opcode."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def __call__(self, *args: Any) -> Any:  # pickle checks that a reduce function is callable
        raise TypeError(f"{self.module}.{self.name} is a name written into a file, not a function")


REBUILD_TENSOR = Global("torch._utils", "_rebuild_tensor_v2")
REBUILD_TENSOR_V3 = Global("torch._utils", "_rebuild_tensor_v3")  # (its dtype an argument)
REBUILD_PARAMETER = Global("torch._utils", "_rebuild_parameter")
REBUILD_SPARSE = Global("torch._utils", "_rebuild_sparse_tensor")
GET_LAYOUT = Global("torch.serialization", "_get_layout")
# one object per storage class, so that the pickle names each class once and refers back
# to it after (its memo), as PyTorch's files do; the dtypes without one share UntypedStorage
STORAGE_CLASS = {d: Global("torch", name) for d, name in STORAGE_OF.items()}
UNTYPED_STORAGE_CLASS = Global("torch.storage", "UntypedStorage")
# quantized tensors (chainrule/_quantized.py): torch.QInt8Storage ... and _rebuild_qtensor
QUANTIZED = (_dtypes.qint8, _dtypes.quint8, _dtypes.qint32)
STORAGE_CLASS.update({d: Global("torch", f"{d.scalar_name}Storage") for d in QUANTIZED})
REBUILD_QTENSOR = Global("torch._utils", "_rebuild_qtensor")


class TorchPickler(pickle._Pickler):  # the Python pickler: its dispatch can be extended
    """A pickler that writes chainrule's tensors, dtypes, sizes and devices under
    PyTorch's names, collecting the storages to write beside ``data.pkl``."""

    dispatch = pickle._Pickler.dispatch.copy()

    def __init__(self, file: Any, storages: StorageTable, protocol: int = 2) -> None:
        super().__init__(file, protocol)
        self.storages = storages
        self.locations: dict[Any, str] = {}  # storage key -> device, for those not on the CPU
        self.hosted: dict[tuple[int, int], Any] = {}  # a device root -> (it, its host copy)

    def persistent_id(self, obj: Any) -> Any:
        if type(obj) is StorageRef:
            typed = obj.dtype in STORAGE_CLASS  # (else untyped: its size counted in bytes)
            return (
                "storage",
                STORAGE_CLASS[obj.dtype] if typed else UNTYPED_STORAGE_CLASS,
                obj.key,
                self.locations.get(obj.key, "cpu"),
                obj.flat.size if typed else obj.flat.nbytes,
            )
        return None

    def reducer_override(self, obj: Any) -> Any:
        from ..nn.parameter import Buffer, Parameter

        if isinstance(obj, Parameter):
            return (REBUILD_PARAMETER, (_plain(obj, False), obj.requires_grad, OrderedDict()))
        if isinstance(obj, Buffer):
            return self._rebuild(_plain(obj, obj.requires_grad))
        if isinstance(obj, Tensor):
            if obj.is_sparse:  # its indices, values, size and whether coalesced, as PyTorch's
                parts = (obj._indices(), obj._values(), obj.shape, obj.is_coalesced())
                return (REBUILD_SPARSE, (obj.layout, parts))
            layout = repr(obj.layout)
            if layout in ("torch.sparse_csr", "torch.sparse_csc"):  # (compressed and plain)
                csr = layout == "torch.sparse_csr"
                first = obj.crow_indices() if csr else obj.ccol_indices()
                second = obj.col_indices() if csr else obj.row_indices()
                parts = (first, second, obj.values().detach(), obj.shape)
                return (REBUILD_SPARSE, (obj.layout, parts))
            if obj.is_quantized:  # (its integers, and its scheme, scale(s) and zero point(s))
                from .._quantized import save_args

                ref, offset, stride = self.storages.place(obj._ints, obj._dtype)
                return (REBUILD_QTENSOR, save_args(obj, ref, offset, stride))
            if type(obj) is not Tensor:
                raise pickle.PicklingError(
                    f"chainrule saves Tensor and Parameter objects, not the subclass "
                    f"{type(obj).__name__}"
                )
            return self._rebuild(obj)
        if type(obj) is Size:
            return (Global("torch", "Size"), (tuple(obj),))
        if type(obj) is _layout.layout:  # (as PyTorch pickles one: by its name)
            return (GET_LAYOUT, (repr(obj),))
        if type(obj) is device:
            return (Global("torch", "device"), (str(obj),))
        if type(obj) in (_dtypes.finfo, _dtypes.iinfo):  # (PyTorch's cannot be pickled)
            raise TypeError(f"cannot pickle 'torch.{type(obj).__name__}' object")
        return NotImplemented

    def _rebuild(self, t: Tensor) -> tuple:
        """The call that rebuilds ``t``: ``_rebuild_tensor_v2`` over a typed storage, or
        ``_rebuild_tensor_v3`` over an untyped one with the dtype last (float8)."""
        if t._dtype in STORAGE_CLASS:
            return (REBUILD_TENSOR, self._tensor_args(t))
        return (REBUILD_TENSOR_V3, (*self._tensor_args(t), t._dtype))

    def _tensor_args(self, t: Tensor) -> tuple:
        where = _backend.device_type(t._data)
        data = xp.asarray(t._data) if where == "cpu" else self._host_view(t._data)
        ref, offset, stride = self.storages.place(data, t._dtype)
        if where != "cpu":  # the storage is named with its device, as PyTorch names it
            self.locations[ref.key] = str(t.device)
        return (ref, offset, tuple(data.shape), stride, t.requires_grad, OrderedDict())

    def _host_view(self, arr: Any) -> Any:
        """A device array as the same view of a host copy of its device storage (copied
        once per storage), so that views saved together share their storage in the file."""
        root = arr
        while root.base is not None:
            root = root.base
        if not root.flags.c_contiguous:
            return _backend.to_host(arr)  # (no flat storage to map it into: a copy of its own)
        key = (_backend.address(root), root.nbytes)
        if key not in self.hosted:
            self.hosted[key] = (root, _backend.to_host(root))
        host = self.hosted[key][1]
        offset = _backend.address(arr) - _backend.address(root)
        return ndarray(arr.shape, arr.dtype, buffer=host, offset=offset, strides=arr.strides)

    def save_dtype(self, obj: _dtypes.dtype) -> None:
        self.save_global_name("torch", obj.name, obj)

    def save_marker(self, obj: Global) -> None:
        self.save_global_name(obj.module, obj.name, obj)

    def save_global(self, obj: Any, name: str | None = None) -> None:
        """chainrule's classes and functions under PyTorch's names (``torch.nn.modules.linear
        Linear``), so that PyTorch loads a whole model chainrule saved; anything else as
        pickle names it."""
        found = torch_name(obj) if name is None else None
        if found is None:
            super().save_global(obj, name)
        else:
            self.save_global_name(*found, obj)

    def save_global_name(self, module: str, name: str, obj: Any) -> None:
        self.write(pickle.GLOBAL + f"{module}\n{name}\n".encode())
        self.memoize(obj)

    # every dtype's class (bfloat16's is a subclass: the dispatch goes by exact type)
    dispatch.update(dict.fromkeys({type(d) for d in _dtypes.ALL}, save_dtype))
    dispatch[Global] = save_marker
    dispatch[_dtypes._Quantized] = save_dtype

    def save_qscheme(self, obj: Any) -> None:
        self.save_global_name("torch", obj.name, obj)  # (torch.per_tensor_affine ...)

    dispatch[FunctionType] = save_global

    def save_memory_format(self, obj: Any) -> None:
        self.save_global_name("torch", repr(obj).removeprefix("torch."), obj)

    dispatch[memory_format] = save_memory_format


def _plain(t: Tensor, requires_grad: bool) -> Tensor:
    """The tensor's data as a plain Tensor (same memory)."""
    from .._tensor import _make

    return _make(t._data, t._dtype, requires_grad)
