"""Tensors in memory shared between processes (``Tensor.share_memory_``, as PyTorch's for
CPU tensors): the tensor's values move into a fresh shared mapping of a memory file
(``memfd``); a process forked after keeps the mapping, and one that receives the tensor
through ``torch.multiprocessing`` (a spawned process's arguments, a Queue, a Pipe) maps
the same file, its descriptor passed as PyTorch's ``file_descriptor`` strategy passes it.
Writes on any side are seen on every other."""

from __future__ import annotations

import mmap
import os
import weakref
from typing import Any

import numpy as np

__all__ = ["is_shared", "move_to_shared", "rebuild_shared", "shared_handle"]

_fds: dict[int, int] = {}  # id of a mapping -> the descriptor of its memory file


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


def move_to_shared(array: np.ndarray) -> np.ndarray:
    """A C-contiguous copy of ``array`` in a new shared mapping."""
    nbytes = max(array.nbytes, 1)
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("chainrule-shared-tensor", os.MFD_CLOEXEC)
        os.ftruncate(fd, nbytes)
        mm = _mapping(fd, nbytes)
    else:  # (no memory files: shared with forked processes only)
        mm = mmap.mmap(-1, nbytes)
    shared = np.ndarray(array.shape, array.dtype, buffer=mm)
    shared[...] = array
    return shared


def shared_handle(array: np.ndarray) -> tuple | None:
    """What rebuilds ``array`` (a shared one) in another process: its memory file's
    descriptor (wrapped to travel), size, and the array's offset, shape, strides and dtype;
    None where the mapping has no memory file."""
    from multiprocessing.reduction import DupFd

    root = _root(array)
    fd = _fds.get(id(root))
    if fd is None:
        return None
    start = np.frombuffer(root, dtype=np.uint8).ctypes.data
    offset = array.ctypes.data - start
    return (DupFd(fd), len(root), offset, array.shape, array.strides, array.dtype)


def rebuild_shared(handle: tuple) -> np.ndarray:
    """The array ``shared_handle`` described, mapped from the same memory file."""
    wrapped, nbytes, offset, shape, strides, dtype = handle
    mm = _mapping(wrapped.detach(), nbytes)
    return np.ndarray(shape, dtype, buffer=mm, offset=offset, strides=strides)
