"""``torch.storage``: the memory a tensor's elements live in, as PyTorch's storage objects.

A chainrule tensor is a NumPy array; its storage is the array that owns the memory (a
view's base, followed to its owner), seen as bytes (``UntypedStorage``) or as elements of
the tensor's dtype (``TypedStorage``, deprecated in PyTorch, with its warning). They read
and address that memory (``data_ptr``, ``nbytes``, ``tolist``, indexing) and share it with
the tensor; swapping a tensor's storage (``set_``) is not modelled."""

from __future__ import annotations

import warnings
import weakref
from typing import Any

from . import _backend
from ._backend import xp


def owner(arr: Any) -> Any:
    """The array that owns ``arr``'s memory (views followed to their base, through the
    interface object NumPy's ``as_strided`` keeps as a view's base)."""
    kind = type(arr)
    while True:
        base = getattr(arr, "base", None)
        if not isinstance(base, kind):
            base = getattr(base, "base", None)
            if not isinstance(base, kind):
                return arr
        arr = base


# arrays that are storages of their own, a file's (id -> weak reference): tensors over one
# count their storage offsets from its start, as PyTorch's loaded tensors do; any other
# tensor that is no view counts 0, as a PyTorch op's result does (chainrule's results may
# be NumPy views of a temporary)
_FILE_STORAGES: dict = {}


def register(arr: Any) -> None:
    """Mark ``arr``, an owning array, as a storage read from a file."""
    key = id(arr)
    if key not in _FILE_STORAGES:
        _FILE_STORAGES[key] = weakref.ref(arr, lambda _, key=key: _FILE_STORAGES.pop(key, None))


def file_offset(arr: Any) -> int:
    """The element offset of ``arr`` in a file's storage it views (0 if none)."""
    if not _FILE_STORAGES:
        return 0
    root = owner(arr)
    ref = _FILE_STORAGES.get(id(root))
    if ref is None or ref() is not root:
        return 0
    return (_backend.address(arr) - _backend.address(root)) // arr.itemsize


def _flat(arr: Any) -> Any:
    """An owning array's elements in memory order, as one dimension (a view)."""
    return xp.ravel(arr, order="K")


class StorageBase:
    """``torch.StorageBase`` (``torch._C.StorageBase``): the base class of
    :class:`UntypedStorage`, for ``isinstance`` checks."""

    __slots__ = ()


class UntypedStorage(StorageBase):
    """A tensor's memory as bytes: ``tensor.untyped_storage()``, or ``UntypedStorage(n)``
    (n bytes of zeros)."""

    __slots__ = ("_array",)

    def __init__(self, size: int = 0, *, device: Any = None) -> None:
        self._array = xp.zeros(int(size), xp.uint8)

    @classmethod
    def _of(cls, arr: Any) -> UntypedStorage:
        storage = cls.__new__(cls)
        storage._array = owner(arr)
        return storage

    @classmethod
    def _new_shared(cls, size: int, *, device: Any = "cpu") -> UntypedStorage:
        """A new storage of ``size`` zero bytes in shared memory, as PyTorch makes for worker
        processes to hand over."""
        from ._shared_memory import shared_root

        storage = cls.__new__(cls)
        storage._array = shared_root(int(size))
        return storage

    def _bytes(self) -> Any:
        return _flat(self._array).view(xp.uint8)

    def data_ptr(self) -> int:
        return _backend.address(self._array)

    def nbytes(self) -> int:
        return int(self._array.nbytes)

    def size(self) -> int:
        return self.nbytes()

    def __len__(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        return 1

    @property
    def device(self) -> Any:
        from ._tensor import device_of_array

        return device_of_array(self._array)

    def __getitem__(self, i: int | slice) -> Any:
        """Byte ``i`` as an int; a slice gives a storage over those bytes (sharing them)."""
        if isinstance(i, slice):
            if i.step not in (None, 1):
                raise RuntimeError(
                    f"Trying to slice with a step of {i.step}, but only a step of 1 is supported"
                )
            part = UntypedStorage.__new__(UntypedStorage)
            part._array = self._bytes()[i]
            return part
        return int(self._bytes()[i])

    @classmethod
    def from_file(cls, filename: str, shared: bool = False, nbytes: int = 0) -> UntypedStorage:
        """The first ``nbytes`` bytes of file ``filename``, memory-mapped: written through to
        the file if ``shared``, else a private copy-on-write mapping."""
        import os

        import numpy

        storage = cls.__new__(cls)
        if nbytes == 0:
            storage._array = numpy.zeros(0, numpy.uint8)
            return storage
        size = os.path.getsize(filename)
        if size < nbytes:
            raise RuntimeError(
                f"file <{filename}> size <{size}> is smaller than the required mapping size "
                f"<{nbytes}>"
            )
        mode = "r+" if shared else "c"
        storage._array = numpy.memmap(filename, numpy.uint8, mode, shape=(nbytes,)).view(
            numpy.ndarray
        )
        return storage

    def tolist(self) -> list:
        return self._bytes().tolist()

    def untyped(self) -> UntypedStorage:
        """This storage itself (it is already untyped)."""
        return self

    def is_shared(self) -> bool:
        from ._shared_memory import is_shared

        return is_shared(self._array)

    def is_pinned(self, device: Any = "cuda") -> bool:
        return False

    def cpu(self) -> UntypedStorage:
        return self

    def type(self) -> str:
        return "torch.storage.UntypedStorage"

    def __repr__(self) -> str:
        values = "".join(f" {b}\n" for b in self.tolist())
        return f"{values}[torch.storage.UntypedStorage(device={self.device}) of size {len(self)}]"


class TypedStorage:
    """A tensor's memory as elements of its dtype (``tensor.storage()``, deprecated in
    PyTorch in favour of ``untyped_storage()``)."""

    __slots__ = ("_array", "dtype")

    @classmethod
    def _of(cls, arr: Any, dtype: Any) -> TypedStorage:
        storage = cls.__new__(cls)
        storage._array, storage.dtype = owner(arr), dtype
        return storage

    def _elements(self) -> Any:
        flat = _flat(self._array)
        return flat if flat.dtype == self.dtype.np else flat.view(self.dtype.np)

    def data_ptr(self) -> int:
        return _backend.address(self._array)

    def nbytes(self) -> int:
        return int(self._array.nbytes)

    def size(self) -> int:
        return self.nbytes() // self.dtype.itemsize

    def __len__(self) -> int:
        return self.size()

    def element_size(self) -> int:
        return self.dtype.itemsize

    @property
    def device(self) -> Any:
        from ._tensor import device_of_array

        return device_of_array(self._array)

    def __getitem__(self, i: int) -> Any:
        return self._elements()[i].item()

    def tolist(self) -> list:
        return self._elements().tolist()

    def untyped(self) -> UntypedStorage:
        return UntypedStorage._of(self._array)

    def is_shared(self) -> bool:
        from ._shared_memory import is_shared

        return is_shared(self._array)

    def is_pinned(self, device: Any = "cuda") -> bool:
        return False

    def type(self) -> str:
        return f"torch.{self.dtype.scalar_name}Storage"

    def __repr__(self) -> str:
        from ._tensor import _make

        values = "".join(f" {line}\n" for line in _printed(_make(self._elements(), self.dtype)))
        return (
            f"{values}[torch.storage.TypedStorage(dtype={self.dtype}, device={self.device}) "
            f"of size {len(self)}]"
        )


def _printed(t: Any) -> list:
    """Each element as PyTorch's printing of the flat tensor shows it."""
    text = repr(t)
    inner = text[text.index("[") + 1 : text.rindex("]")]
    return [v.strip() for v in inner.replace("\n", " ").split(",") if v.strip()]


_warned_typed = [False]


def untyped_storage(self: Any) -> UntypedStorage:
    """The tensor's storage, as bytes."""
    return UntypedStorage._of(self._data)


def storage(self: Any) -> TypedStorage:
    """The tensor's storage, as elements of its dtype (with PyTorch's deprecation warning,
    once)."""
    if not _warned_typed[0]:
        _warned_typed[0] = True
        warnings.warn(
            "TypedStorage is deprecated. It will be removed in the future and UntypedStorage "
            "will be the only storage class. This should only matter to you if you are using "
            "storages directly.  To access UntypedStorage directly, use "
            "tensor.untyped_storage() instead of tensor.storage()",
            UserWarning,
            stacklevel=2,
        )
    return TypedStorage._of(self._data, self._dtype)


__all__ = ["StorageBase", "TypedStorage", "UntypedStorage"]
