"""``torch.multiprocessing``: Python's ``multiprocessing`` (every name it exports, the same
objects), with PyTorch's additions: ``spawn``/``start_processes`` (run ``fn(i, *args)`` in
``nprocs`` processes and raise the first failure in the parent) and the sharing strategies.

Where chainrule differs from PyTorch: a tensor sent to another process (through a Queue, a
Pipe, a Process's arguments) is pickled by value, its array copied: the receiver gets a
tensor with the same values, dtype and ``requires_grad``, but not a view of the sender's
memory, so writes on one side are not seen on the other (PyTorch moves the tensor to shared
memory and sends a handle). The sharing strategies are therefore only recorded:
``set_sharing_strategy`` checks the name and ``get_sharing_strategy`` reports it, as
PyTorch's do, and neither changes how tensors travel. As in PyTorch, a non-leaf tensor
that requires grad is refused (autograd does not cross processes).
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
    """How a tensor crosses a process boundary: by value, unless it is a non-leaf that
    requires grad (its graph cannot follow it)."""
    if t.requires_grad and not t.is_leaf:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since "
            "autograd does not support crossing process boundaries.  If you just want to "
            "transfer the data, call detach() on the tensor before serializing (e.g., "
            "putting it on the queue)."
        )
    return t.__reduce_ex__(4)


def _register_reductions() -> None:
    from .._tensor import Tensor
    from ..nn.parameter import Parameter

    for cls in (Tensor, Parameter):
        ForkingPickler.register(cls, _reduce_tensor)


_register_reductions()
