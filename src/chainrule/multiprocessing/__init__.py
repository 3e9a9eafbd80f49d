"""``torch.multiprocessing``: Python's ``multiprocessing`` (every name it exports, the same
objects), with PyTorch's additions: ``spawn``/``start_processes`` (run ``fn(i, *args)`` in
``nprocs`` processes and raise the first failure in the parent) and the sharing strategies.

A tensor in shared memory (``share_memory_()``, ``Module.share_memory()``) travels as a
handle, as PyTorch's ``file_descriptor`` strategy sends it: the receiver maps the same
memory file, and writes on either side are seen on the other (Hogwild training).

Where chainrule differs from PyTorch: any other tensor sent to another process (through a
Queue, a Pipe, a spawned Process's arguments) is pickled by value, its array copied: the
receiver gets a tensor with the same values, dtype and ``requires_grad``, but not a view
of the sender's memory (PyTorch moves every tensor it sends to shared memory first; call
``share_memory_()`` for that). The sharing strategies are only recorded:
``set_sharing_strategy`` checks the name and ``get_sharing_strategy`` reports it, as
PyTorch's do. As in PyTorch, a non-leaf tensor that requires grad is refused (autograd does
not cross processes).
"""

from __future__ import annotations

import multiprocessing
import sys
from multiprocessing import *  # noqa: F403  (torch.multiprocessing re-exports all of it)
from multiprocessing.reduction import ForkingPickler
from typing import Any

from .spawn import (  # noqa: F401  (torch.multiprocessing.spawn and the rest)
    ENV_VAR_PARALLEL_START,
    ProcessContext,
    ProcessException,
    ProcessExitedException,
    ProcessRaisedException,
    SpawnContext,
    spawn,
    start_processes,
)

__all__ = [
    "set_sharing_strategy",
    "get_sharing_strategy",
    "get_all_sharing_strategies",
    *multiprocessing.__all__,
]

# PyTorch's strategies per platform: file descriptors where the OS passes them (Linux)
if sys.platform in ("darwin", "win32"):
    _all_sharing_strategies = {"file_system"}
    _sharing_strategy = "file_system"
else:
    _all_sharing_strategies = {"file_descriptor", "file_system"}
    _sharing_strategy = "file_descriptor"


def set_sharing_strategy(new_strategy: str) -> None:
    """Record the strategy for sharing CPU tensors (one of ``get_all_sharing_strategies()``);
    chainrule's tensors travel by value whatever it is."""
    global _sharing_strategy
    if new_strategy not in _all_sharing_strategies:
        raise AssertionError(
            f"invalid sharing strategy {new_strategy!r}, expected one of {_all_sharing_strategies}"
        )
    _sharing_strategy = new_strategy


def get_sharing_strategy() -> str:
    """The strategy last set (PyTorch's default for the platform until then)."""
    return _sharing_strategy


def get_all_sharing_strategies() -> set:
    """The strategies PyTorch supports on this platform."""
    return _all_sharing_strategies


def _reduce_tensor(t: Any) -> tuple:
    """How a tensor crosses a process boundary: a shared one as a handle to its memory, any
    other by value; a non-leaf that requires grad is refused (its graph cannot follow it)."""
    if t.requires_grad and not t.is_leaf:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since "
            "autograd does not support crossing process boundaries.  If you just want to "
            "transfer the data, call detach() on the tensor before serializing (e.g., "
            "putting it on the queue)."
        )
    from .. import _shared_memory

    if type(t) in _SHAREABLE and _shared_memory.is_shared(t._data):
        handle = _shared_memory.shared_handle(t._data)
        if handle is not None:
            return (_rebuild_shared, (type(t), handle, t._dtype, t.requires_grad))
    return t.__reduce_ex__(4)


def _rebuild_shared(cls: type, handle: tuple, dtype: Any, requires_grad: bool) -> Any:
    """The tensor (or Parameter) ``_reduce_tensor`` sent, on the receiver's side: a view of
    the same shared memory."""
    from .. import _shared_memory
    from .._tensor import _make

    t = _make(_shared_memory.rebuild_shared(handle), dtype, requires_grad and cls is not _param())
    return _param()(t, requires_grad) if cls is _param() else t


def _param() -> type:
    from ..nn.parameter import Parameter

    return Parameter


_SHAREABLE: tuple = ()  # (Tensor, Parameter): the classes sent as handles when shared


def _register_reductions() -> None:
    global _SHAREABLE
    from .._tensor import Tensor
    from ..nn.parameter import Parameter

    _SHAREABLE = (Tensor, Parameter)
    for cls in (Tensor, Parameter):
        ForkingPickler.register(cls, _reduce_tensor)


_register_reductions()
