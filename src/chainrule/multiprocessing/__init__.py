"""``torch.multiprocessing``: Python's ``multiprocessing`` (every name it exports, the same
objects), with PyTorch's additions: ``spawn``/``start_processes`` (run ``fn(i, *args)`` in
``nprocs`` processes and raise the first failure in the parent), the tensor reductions
(``reductions``) and the sharing strategies.

A CPU tensor sent to another process (through a Queue, a Pipe, a Pool, a spawned Process's
arguments) travels as PyTorch's does: its storage moves to shared memory in place and the
receiver maps the same memory file (PyTorch's ``file_descriptor`` strategy), so writes on
either side are seen on the other (Hogwild training), and views sent together arrive as
views of one storage. As in PyTorch, a non-leaf tensor that requires grad is refused
(autograd does not cross processes).

Where chainrule differs from PyTorch: the ``file_system`` strategy is only recorded
(``set_sharing_strategy`` checks the name and ``get_sharing_strategy`` reports it, as
PyTorch's do), tensors travel by file descriptor whichever is set; NumPy arrays over a
tensor's old memory (``numpy()`` results) do not follow its move (``_shared_memory``).
"""

from __future__ import annotations

import multiprocessing
import sys
from multiprocessing import *  # noqa: F403  (torch.multiprocessing re-exports all of it)

from .reductions import init_reductions
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
    chainrule's tensors travel by file descriptor whatever it is."""
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


init_reductions()
