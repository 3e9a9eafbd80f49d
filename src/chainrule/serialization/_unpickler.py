"""Reading ``data.pkl`` without running code from it: a restricted unpickler whose only
globals are the ones PyTorch's ``weights_only`` loader admits (tensor rebuild functions,
storage types, dtypes, ``torch.Size``, ``torch.device``, ``OrderedDict``, ``Counter``,
``set``, ``complex``, ``bytearray``, ``_codecs.encode`` for bytes) plus the ones the user
allows (``add_safe_globals``). Any other global is refused with PyTorch's message, so a
crafted ``__reduce__`` (``os.system``, ``eval``, ...) never runs.

With ``weights_only=False`` (a whole model saved with ``torch.save(model)``) the unpickler
also admits the classes of ``nn.Module``'s family and of the distributions' constraints
(pyro's param store keeps them beside its tensors), found in modules already imported (the
script's own model classes, chainrule's layers for PyTorch's ``torch.nn`` names): nothing
is imported, and no function the file names is ever called. A class is made as pickle
makes it, with ``__new__`` and its saved state (a crafted file could call its constructor
instead: the class's own code, already on the machine, never code from the file)."""

from __future__ import annotations

import _compat_pickle
import builtins
import codecs
import io
import pickle
import sys
from collections import Counter, OrderedDict
from collections.abc import Callable
from typing import Any

from .. import _dtypes
from .._backend import on_device_of, xp
from .._meta import is_meta, meta_array
from .._tensor import Size, Tensor, _make, device
from ._numpy_globals import numpy_global
from ._storages import DTYPE_OF_STORAGE, view_of
from ._torch_names import chainrule_modules, torch_name

_LOAD_DOC = (
    "Check the documentation of torch.load to learn more about types accepted by default "
    "with weights_only https://pytorch.org/docs/stable/generated/torch.load.html."
)

_user_globals: dict[str, Any] = {}


def global_name(obj: Any) -> str:
    """``module.qualname`` of a class or function, as the pickle names it."""
    if isinstance(obj, tuple):  # (obj, "module.name") as PyTorch accepts
        return obj[1]
    found = torch_name(obj)  # (chainrule's own under PyTorch's name, as files name them)
    return ".".join(found) if found else f"{obj.__module__}.{obj.__qualname__}"


class StorageType:
    """A storage class named in the file (``torch.FloatStorage``): its dtype."""

    __slots__ = ("dtype", "name")

    def __init__(self, name: str) -> None:
        self.name = name
        self.dtype = DTYPE_OF_STORAGE[name]

    def __repr__(self) -> str:
        return f"StorageType(dtype={self.dtype})"


class LoadedStorage:
    """A storage read from the archive (its flat array and dtype), marked once a tensor
    views it: chainrule has tensors, not storage objects, to load one into. An untyped
    storage (dtype None) is read when a tensor names its dtype: ``read_as(dtype)``."""

    __slots__ = ("flat", "dtype", "used", "read_as")

    def __init__(self, flat: Any, dtype: Any, read_as: Callable[[Any], Any] | None = None) -> None:
        self.flat, self.dtype, self.used, self.read_as = flat, dtype, False, read_as


UNTYPED_STORAGE = "UntypedStorage"  # (what the allowlist maps PyTorch's class to)


def _bare_storage() -> Exception:
    from .._missing import NotImplementedInChainrule

    return NotImplementedInChainrule(
        "the file holds a storage saved on its own (tensor.storage() or "
        "tensor.untyped_storage()): chainrule has no storage objects and loads tensors only "
        "(save the tensor instead)"
    )


def _rebuild_tensor_v2(
    storage: Any,
    storage_offset: int,
    size: tuple,
    stride: tuple,
    requires_grad: bool,
    backward_hooks: Any,
    metadata: Any = None,
) -> Tensor:
    """A tensor over ``storage`` (shared with every other tensor of the file that views it)."""
    flat, dt = _storage(storage)
    if is_meta(flat):  # (map_location="meta": a shape and a dtype, no data)
        t = _make(meta_array(tuple(size), flat.dtype), dt)
    else:
        with on_device_of(flat):  # the view where the storage was loaded
            t = _make(view_of(flat, storage_offset, tuple(size), tuple(stride)), dt)
    if metadata:
        t = _resolved(t, metadata)
    if requires_grad:
        t.requires_grad_(bool(requires_grad))
    return t


def _resolved(t: Tensor, metadata: Any) -> Tensor:
    """The values of a tensor PyTorch saved with its conjugate or negative bit set
    (``{"conj": True}``, ``{"neg": True}``): chainrule has no such bits, so the values are
    conjugated or negated into a tensor of their own (it shares no storage then)."""
    if not isinstance(metadata, dict) or not set(metadata) <= {"conj", "neg"}:
        raise pickle.UnpicklingError(f"unknown tensor metadata in the archive: {metadata!r}")
    data = t._data
    if metadata.get("conj"):
        data = xp.conj(data)
    if metadata.get("neg"):
        data = xp.negative(data)
    return _make(xp.ascontiguousarray(data), t._dtype)


def _rebuild_tensor_v3(
    storage: Any,
    storage_offset: int,
    size: tuple,
    stride: tuple,
    requires_grad: bool,
    backward_hooks: Any,
    dtype: Any,
    metadata: Any = None,
) -> Tensor:
    """A tensor of ``dtype`` over an untyped storage (PyTorch's files name float8 tensors
    so): the storage's bytes read as ``dtype``, shared as with ``_rebuild_tensor_v2``."""
    if not isinstance(dtype, _dtypes.dtype):
        raise pickle.UnpicklingError(f"expected a dtype in the archive, got {dtype!r}")
    if not isinstance(storage, LoadedStorage):
        raise pickle.UnpicklingError("expected a storage in the archive")
    if storage.read_as is not None:
        storage.used = True
        storage = LoadedStorage(storage.read_as(dtype), dtype)
    elif storage.dtype is not dtype:
        raise pickle.UnpicklingError(
            f"a {dtype} tensor over a storage of {storage.dtype} (the file is damaged)"
        )
    return _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, None, metadata)


def _rebuild_tensor(storage: Any, storage_offset: int, size: tuple, stride: tuple) -> Tensor:
    return _rebuild_tensor_v2(storage, storage_offset, size, stride, False, None)


def _rebuild_parameter(data: Tensor, requires_grad: bool, backward_hooks: Any) -> Any:
    from ..nn.parameter import Parameter

    return Parameter(_tensor(data), bool(requires_grad))


def _rebuild_parameter_with_state(
    data: Tensor, requires_grad: bool, backward_hooks: Any, state: Any
) -> Any:
    param = _rebuild_parameter(data, requires_grad, backward_hooks)
    if state:
        raise pickle.UnpicklingError(
            "a Parameter with Python attributes: chainrule loads a Parameter's data and "
            "requires_grad only"
        )
    return param


def _rebuild_from_type_v2(func: Callable, new_type: Any, args: tuple, state: Any) -> Any:
    from ..nn.parameter import Parameter

    if new_type not in (Tensor, Parameter):
        raise pickle.UnpicklingError(f"a tensor of type {new_type!r}: chainrule loads Tensor")
    out = func(*args)
    if state:
        raise pickle.UnpicklingError(
            "a tensor with Python attributes: chainrule loads a tensor's data only"
        )
    return out


def _tensor(obj: Any) -> Tensor:
    if not isinstance(obj, Tensor):
        raise pickle.UnpicklingError(f"expected a tensor in the archive, got {type(obj).__name__}")
    return obj


def _storage(obj: Any) -> tuple[Any, Any]:
    if not isinstance(obj, LoadedStorage):
        raise pickle.UnpicklingError("expected a storage in the archive")
    if obj.read_as is not None:
        raise pickle.UnpicklingError(
            "a tensor over an untyped storage that names no dtype (PyTorch's files name "
            "it: _rebuild_tensor_v3)"
        )
    obj.used = True
    return obj.flat, obj.dtype


def _get_layout(name: str) -> Any:
    """The layout PyTorch's files name (``"torch.sparse_coo"``)."""
    from .. import _layout

    found = getattr(_layout, str(name).removeprefix("torch."), None)
    if not isinstance(found, _layout.layout):
        raise pickle.UnpicklingError(f"an unknown layout {name!r}")
    return found


def _rebuild_sparse_tensor(layout: Any, data: Any) -> Tensor:
    """A sparse COO tensor from its indices, values, size and whether coalesced (the indices
    checked against the size: a file cannot make one that reads out of bounds)."""
    kind = repr(layout)
    if not isinstance(data, tuple) or len(data) != 4:
        raise pickle.UnpicklingError(f"a sparse tensor of layout {layout}: unknown contents")
    if kind in ("torch.sparse_csr", "torch.sparse_csc"):
        from ..sparse._compressed import sparse_compressed_tensor

        first, second, values, size = data
        return sparse_compressed_tensor(
            _tensor(first), _tensor(second), _tensor(values), tuple(size), layout=layout,
            check_invariants=True,
        )  # fmt: skip
    if kind != "torch.sparse_coo":
        raise pickle.UnpicklingError(f"a sparse tensor of layout {layout}: chainrule loads "
                                     "COO, CSR and CSC")  # fmt: skip
    from ..sparse._tensor import sparse_coo_tensor

    indices, values, size, coalesced = data
    return sparse_coo_tensor(
        _tensor(indices),
        _tensor(values),
        tuple(size),
        check_invariants=True,
        is_coalesced=bool(coalesced),
    )


def _allowed() -> dict[str, Any]:
    from ..nn.parameter import Parameter

    allowed: dict[str, Any] = {
        "collections.OrderedDict": OrderedDict,
        "collections.Counter": Counter,
        "torch.nn.parameter.Parameter": Parameter,
        "torch.serialization._get_layout": _get_layout,
        "torch.Size": Size,
        "torch.Tensor": Tensor,
        "torch.device": device,
        "_codecs.encode": codecs.encode,
        "builtins.bytearray": bytearray,
        "builtins.set": builtins.set,
        "builtins.complex": complex,
        "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
        "torch._utils._rebuild_tensor_v3": _rebuild_tensor_v3,
        "torch._utils._rebuild_tensor": _rebuild_tensor,
        "torch._utils._rebuild_parameter": _rebuild_parameter,
        "torch._utils._rebuild_sparse_tensor": _rebuild_sparse_tensor,
        "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
        "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
        "torch.strided": _get_layout("torch.strided"),
        "torch.sparse_coo": _get_layout("torch.sparse_coo"),
        "torch.sparse_csr": _get_layout("torch.sparse_csr"),
        "torch.sparse_csc": _get_layout("torch.sparse_csc"),
    }
    for d in _dtypes.ALL:
        allowed[f"torch.{d.name}"] = d
    for name in DTYPE_OF_STORAGE:
        allowed[f"torch.{name}"] = StorageType(name)
    allowed["torch.UntypedStorage"] = allowed["torch.storage.UntypedStorage"] = UNTYPED_STORAGE
    from .._quantized import load_names  # (quantized tensors: their dtypes, storages, schemes)

    for full, value in load_names(StorageType.__new__(StorageType)).items():
        allowed[full] = value
    return allowed


class WeightsUnpickler(pickle.Unpickler):
    """The restricted unpickler: globals from the allowlist only, storages from the archive."""

    def __init__(
        self,
        file: io.BytesIO,
        load_storage: Callable[..., Any],
        modules: bool = False,
        encoding: str = "utf-8",
        legacy: bool = False,
    ) -> None:
        super().__init__(file, encoding=encoding)
        self.allowed = {**_allowed(), **_user_globals}
        self.load_storage = load_storage
        self.modules = modules  # weights_only=False: admit nn.Module classes too
        self.legacy = legacy  # a legacy file's storage ids: a sixth item, view_metadata
        self.storages: list[LoadedStorage] = []

    def load(self) -> Any:
        """The object, once every storage the file names is viewed by a tensor."""
        out = super().load()
        if not all(s.used for s in self.storages):
            raise _bare_storage()
        return out

    def find_class(self, module: str, name: str) -> Any:
        # protocol 2 writes Python 2's names (``__builtin__.set``): map them as pickle does
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        full = f"{module}.{name}"
        if module in BLOCKED_MODULES:
            raise pickle.UnpicklingError(_refusal(module, name))
        if full in self.allowed:
            return self.allowed[full]
        if self.modules:
            found = _PLAIN_VALUES.get(full) or module_class(module, name)
            found = found or functional(module, name)
            if found is None:  # (a NumPy array saved beside the tensors)
                found = numpy_global(module, name)
            if found is not None:
                return found
        raise pickle.UnpicklingError(_refusal(module, name))

    def persistent_load(self, pid: Any) -> Any:
        size = 6 if self.legacy else 5
        if not (isinstance(pid, tuple) and len(pid) == size and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"unsupported persistent id in the archive: {pid!r}")
        _, kind, key, location, numel = pid[:5]
        if self.legacy and pid[5] is not None:  # (a storage view: written before PyTorch 1.0)
            return self._storage_view(pid)
        if not (kind is UNTYPED_STORAGE or isinstance(kind, StorageType)):
            raise pickle.UnpicklingError(
                f"unsupported storage type in the archive: {kind!r} (chainrule reads typed "
                "storages of its dtypes, and untyped ones of its tensors)"
            )
        if not (isinstance(key, str) and isinstance(numel, int)):
            raise pickle.UnpicklingError("invalid storage reference in the archive")
        if kind is UNTYPED_STORAGE:  # (numel bytes, read once a tensor names their dtype)
            storage = LoadedStorage(None, None, self._reader(key, numel, location))
            self.storages.append(storage)
            return storage
        read = kind.dtype
        if isinstance(read, _dtypes._Quantized):  # (a quantized tensor's integers)
            from .._quantized import INT_DTYPES

            read = INT_DTYPES[read]
        storage = LoadedStorage(self.load_storage(key, read, numel, location), kind.dtype)
        self.storages.append(storage)
        return storage

    def _storage_view(self, pid: tuple) -> LoadedStorage:
        """A legacy file's view of a storage: ``(view key, offset, size)`` of its root."""
        _, kind, key, location, numel, view = pid
        if not (
            isinstance(kind, StorageType)
            and isinstance(view, tuple)
            and len(view) == 3
            and all(isinstance(n, int) and n >= 0 for n in (numel, *view[1:]))
            and view[1] + view[2] <= numel
        ):
            raise pickle.UnpicklingError(f"invalid storage view in the archive: {pid!r}")
        flat = self.load_storage(key, kind.dtype, numel, location)
        storage = LoadedStorage(flat[view[1] : view[1] + view[2]], kind.dtype)
        self.storages.append(storage)
        return storage

    def _reader(self, key: str, nbytes: int, location: Any) -> Callable[[Any], Any]:
        """Reads the untyped storage ``key`` of ``nbytes`` bytes as elements of a dtype."""

        def read_as(dtype: Any) -> Any:
            if nbytes % dtype.itemsize:
                raise RuntimeError(
                    f"storage has wrong byte size: {nbytes} bytes are no whole number of "
                    f"{dtype} elements (the file is damaged)"
                )
            return self.load_storage(key, dtype, nbytes // dtype.itemsize, location)

        return read_as


def _plain_values() -> dict[str, Any]:
    """What ``weights_only=False`` admits besides: builtins that only hold values (slice,
    range, frozenset) and PyTorch's memory formats, by the names pickles give them."""
    from .. import _memory_format

    found: dict[str, Any] = {f"builtins.{c.__name__}": c for c in (slice, range, frozenset)}
    for value in vars(_memory_format).values():
        if isinstance(value, _memory_format.memory_format):
            found[repr(value)] = value  # ("torch.channels_last")
    return found


_PLAIN_VALUES = _plain_values()


def _is_namedtuple(obj: Any) -> bool:
    return isinstance(obj, type) and issubclass(obj, tuple) and hasattr(obj, "_fields")


def module_class(module: str, name: str) -> type | None:
    """The ``nn.Module`` (or distributions ``Constraint``, or namedtuple) class
    ``module.name`` (PyTorch's ``torch.`` modules read as chainrule's), if that module is
    already imported; else None. Nothing is imported and nothing but attribute lookups
    runs (a namedtuple is then made by its class from the file's values)."""
    from ..distributions.constraints import Constraint
    from ..nn import Module

    for place in chainrule_modules(module, name) or [module]:
        obj: Any = sys.modules.get(place)
        for part in name.split("."):  # a nested class's qualified name
            namespace = getattr(obj, "__dict__", None)
            obj = namespace.get(part) if isinstance(namespace, dict) else None
        if isinstance(obj, type) and issubclass(obj, (Module, Constraint)) or _is_namedtuple(obj):
            return obj
    return None


# where PyTorch's files name the functions of ``torch.nn.functional`` (its C ones under
# ``torch._C._nn``)
_FUNCTIONAL = ("torch.nn.functional", "torch._C._nn")


def functional(module: str, name: str) -> Any:
    """The function ``torch.nn.functional.name`` that a layer keeps as an attribute (the
    activation of ``TransformerEncoderLayer``), or None. A file may call it on its own
    values: these functions compute on tensors and touch nothing else."""
    if module not in _FUNCTIONAL or name.startswith("_"):
        return None
    from ..nn import functional as F

    found = vars(F).get(name)
    return found if callable(found) and not isinstance(found, type) else None


# modules whose globals are refused even where the user allowed them, as in PyTorch
BLOCKED_MODULES = ("sys", "os", "posix", "nt")


def _refusal(module: str, name: str) -> str:
    if module in BLOCKED_MODULES:
        why = f"Trying to load unsupported GLOBAL {module}.{name} whose module {module} is blocked."
    else:
        shown = name if module == "builtins" else f"{module}.{name}"  # (PyTorch's spelling)
        why = (
            f"Unsupported global: GLOBAL {shown} was not an allowed global by default. "
            f"Please use `torch.serialization.add_safe_globals([{shown}])` or the "
            f"`torch.serialization.safe_globals([{shown}])` context manager to "
            "allowlist this global if you trust this class/function."
        )
    return (
        "Weights only load failed. chainrule loads only tensors, containers, numbers, "
        "strings and the globals you allow (and, with weights_only=False, NumPy arrays and "
        "the classes of nn.Module's family and of constraints already imported); it never "
        "runs code from a file.\n\n"
        f"WeightsUnpickler error: {why}\n\n{_LOAD_DOC}"
    )
