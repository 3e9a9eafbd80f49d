"""Tensors in memory shared between processes, as PyTorch's CPU tensors.

A chainrule tensor is a NumPy array, and its storage is the array that owns that memory (a
view's base). ``share_`` moves a storage into a fresh shared mapping of a memory file
(``memfd``) in place: its bytes are copied there and the tensor, the tensors it is a view
of, and every other live tensor (and storage object) found over the old memory are
re-pointed to the same places in the mapping, so views stay views of one another. A process
forked after keeps the mapping; one that receives the tensor through
``torch.multiprocessing`` maps the same file, its descriptor passed as PyTorch's
``file_descriptor`` strategy passes it, once per process (a second tensor of the same
storage lands in the same mapping). Writes on any side are seen on every other.

What cannot follow a move: NumPy arrays that are no tensor's (``Tensor.numpy()`` results,
arrays a graph saved for backward) keep the old memory; a tensor made from one of them
later is brought over (its values copied to its place in the mapping) when it is shared."""

from __future__ import annotations

import ctypes
import gc
import mmap
import os
import threading
import weakref
from typing import Any

import numpy as np

from ._backend import address

__all__ = ["is_shared", "rebuild_shared", "share_", "shared_handle", "shared_root"]

_fds: dict[int, int] = {}  # id of a mapping -> the descriptor of its memory file
_by_file: dict[tuple, weakref.ref] = {}  # (inode, device) of a memory file -> its root here
# id of a storage moved to shared memory -> (a weak reference to it, its root, its start)
_moved: dict[int, tuple] = {}
_lock = threading.RLock()


def _root(array: Any) -> Any:
    while isinstance(array, np.ndarray) and array.base is not None:
        array = array.base
    return array


def is_shared(array: Any) -> bool:
    """Whether ``array`` lies in a shared mapping."""
    return isinstance(_root(array), mmap.mmap)


def _mapping(fd: int, nbytes: int) -> mmap.mmap:
    """The shared mapping of the memory file ``fd``, which stays open while it lives (to be
    passed on to other processes) and is closed with it."""
    mm = mmap.mmap(fd, nbytes)
    _fds[id(mm)] = fd
    weakref.finalize(mm, _close, id(mm), fd)
    return mm


def _close(key: int, fd: int) -> None:
    _fds.pop(key, None)
    os.close(fd)


def _file_key(fd: int) -> tuple:
    st = os.fstat(fd)
    return (st.st_ino, st.st_dev)


def _remember(key: tuple, root: np.ndarray) -> None:
    """Record ``root`` as this process's mapping of the memory file ``key``, and as a
    storage of its own (tensors over it count their storage offsets from its start)."""
    from . import storage

    def forget(ref: weakref.ref, key: tuple = key) -> None:
        if _by_file.get(key) is ref:
            del _by_file[key]

    _by_file[key] = weakref.ref(root, forget)
    storage.register(root)


def shared_root(nbytes: int) -> np.ndarray:
    """``nbytes`` zero bytes in a new shared mapping: the root array that tensors moved
    there view."""
    size = max(nbytes, 1)  # (a mapping cannot be empty)
    if not hasattr(os, "memfd_create"):  # (no memory files: shared with forked processes only)
        return np.ndarray((nbytes,), np.uint8, buffer=mmap.mmap(-1, size))
    fd = os.memfd_create("chainrule-shared-tensor", os.MFD_CLOEXEC)
    os.ftruncate(fd, size)
    root = np.ndarray((nbytes,), np.uint8, buffer=_mapping(fd, size))
    _remember(_file_key(fd), root)
    return root


def _bounds(array: np.ndarray) -> tuple[int, int]:
    """The first and one-past-last byte addresses ``array``'s elements occupy."""
    lo = hi = address(array)
    if array.size == 0:
        return lo, hi
    for n, stride in zip(array.shape, array.strides):
        reach = (n - 1) * stride
        lo, hi = (lo + reach, hi) if reach < 0 else (lo, hi + reach)
    return lo, hi + array.itemsize


def _place(array: np.ndarray, root: np.ndarray, start: int) -> np.ndarray:
    """The array over ``root`` that stands where ``array`` stood in memory that began at
    address ``start`` (its shape, strides and dtype)."""
    offset = address(array) - start
    if array.size == 0:
        offset = min(max(offset, 0), root.nbytes)
    moved = np.ndarray(array.shape, array.dtype, buffer=root, offset=offset, strides=array.strides)
    if not array.flags.writeable:
        moved.flags.writeable = False
    return moved


def _copy_to_shared(old: np.ndarray) -> tuple[np.ndarray, int]:
    """A shared root holding the bytes of the storage ``old``, and the address they began at."""
    lo, hi = _bounds(old)
    root = shared_root(hi - lo)
    if hi > lo:
        root[...] = np.frombuffer((ctypes.c_ubyte * (hi - lo)).from_address(lo), np.uint8)
    return root, lo


def _repoint(t: Any, old: np.ndarray, root: np.ndarray, start: int) -> None:
    """Re-point ``t`` and the tensors it is a view of, those over ``old``, to ``root``."""
    while t is not None:
        data = getattr(t, "_data", None)
        if type(data) is np.ndarray and _owner(data) is old:
            t._data = _place(data, root, start)
        view = getattr(t, "_view", None)
        t = view[0] if view is not None else None


def _repoint_all(old: np.ndarray, root: np.ndarray, start: int) -> None:
    """Re-point every live tensor and storage object over ``old`` to ``root``."""
    from ._tensor import Tensor
    from .storage import TypedStorage, UntypedStorage

    # by type(), not isinstance: isinstance reads ``__class__``, which some objects (a
    # deprecated module attribute, a lazy proxy) turn into a warning or an import
    for obj in gc.get_objects():
        kind = type(obj)
        if issubclass(kind, Tensor):
            _repoint(obj, old, root, start)
        elif issubclass(kind, (UntypedStorage, TypedStorage)) and obj._array is old:
            obj._array = _place(old, root, start)


def _owner(array: np.ndarray) -> Any:
    from .storage import owner

    return owner(array)


def share_(t: Any) -> None:
    """Move the storage of ``t`` (a CPU tensor) into shared memory in place, with every
    tensor found over it; a no-op where it is shared already or is not a NumPy array."""
    data = t._data
    if type(data) is not np.ndarray or is_shared(data):
        return
    with _lock:
        old = _owner(data)
        entry = _moved.get(id(old))
        if entry is not None and entry[0]() is old:
            # (a tensor made over the old memory since it moved: its values go to its place)
            moved = _place(data, entry[1], entry[2])
            if moved.flags.writeable:
                moved[...] = data
            t._data = moved
            return
        root, start = _copy_to_shared(old)
        key = id(old)
        ref = weakref.ref(old, lambda _, key=key: _moved.pop(key, None))
        _moved[key] = (ref, root, start)
        _repoint(t, old, root, start)
        del data, old
        if ref() is not None:  # (something else still holds the old memory: find the tensors)
            _repoint_all(ref(), root, start)


def shared_handle(array: np.ndarray) -> tuple | None:
    """What rebuilds ``array`` (a shared one) in another process: its memory file's
    descriptor (wrapped to travel), the sizes of the mapping and of its root, and the
    array's offset, shape, strides and dtype; None where the mapping has no memory file."""
    from multiprocessing.reduction import DupFd

    root = _owner(array)
    mm = root.base if isinstance(root, np.ndarray) else None
    fd = _fds.get(id(mm))
    if fd is None:
        return None
    offset = address(array) - address(root)
    return (DupFd(fd), len(mm), root.nbytes, offset, array.shape, array.strides, array.dtype)


def rebuild_shared(handle: tuple) -> np.ndarray:
    """The array ``shared_handle`` described, over this process's mapping of the same
    memory file (made on its first arrival, found again after)."""
    wrapped, size, nbytes, offset, shape, strides, dtype = handle
    fd = wrapped.detach()
    with _lock:
        key = _file_key(fd)
        ref = _by_file.get(key)
        root = ref() if ref is not None else None
        if root is not None and root.nbytes == nbytes:
            os.close(fd)
        else:
            root = np.ndarray((nbytes,), np.uint8, buffer=_mapping(fd, size))
            _remember(key, root)
    return np.ndarray(shape, dtype, buffer=root, offset=offset, strides=strides)
