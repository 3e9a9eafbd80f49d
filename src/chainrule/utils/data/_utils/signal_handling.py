"""``torch.utils.data._utils.signal_handling``: noticing DataLoader workers that die.

The main process registers its workers' pids per iterator; ``_error_if_any_worker_fails``
raises RuntimeError when one of them has exited with an error or was killed by a signal,
and the SIGCHLD handler runs that check as soon as a child process changes state. In a
worker, fatal signals print a traceback (Python's ``faulthandler``) before the process
dies of them, which the main process then reports, and the parent's SIGTERM at shutdown
ends the worker cleanly.
"""

from __future__ import annotations

import faulthandler
import os
import signal
import sys
import threading
from typing import Any

__all__ = [
    "_error_if_any_worker_fails",
    "_remove_worker_pids",
    "_set_SIGCHLD_handler",
    "_set_worker_pids",
    "_set_worker_signal_handlers",
]

_worker_pids: dict[int, tuple[int, ...]] = {}
_SIGCHLD_handler_set = False


def _set_worker_signal_handlers() -> None:
    """In a worker: report a segmentation fault, bus error or floating-point exception
    with a traceback on stderr before the process dies of it; and exit cleanly (status 0)
    on SIGTERM while the parent lives, as PyTorch's workers do when their parent
    terminates them at shutdown (Python's handlers cannot see the sender's pid, so a
    SIGTERM from another process while the parent lives exits cleanly too)."""
    faulthandler.enable(all_threads=False)
    parent = os.getppid()

    def on_sigterm(signum: int, frame: Any) -> None:
        if os.getppid() == parent:
            os._exit(0)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, on_sigterm)


def _set_worker_pids(key: int, pids: tuple[int, ...]) -> None:
    """Register the worker pids of the iterator ``key``."""
    if key in _worker_pids:
        raise ValueError(
            "_set_worker_pids should be called only once for each _BaseDataLoaderIter."
        )
    _worker_pids[key] = tuple(pids)


def _remove_worker_pids(key: int) -> None:
    """Forget the worker pids of the iterator ``key``."""
    if _worker_pids.pop(key, None) is None:
        raise ValueError(f"Cannot find worker information for _BaseDataLoaderIter with id {key}")


def _error_if_any_worker_fails() -> None:
    """RuntimeError when a registered worker exited with a nonzero code or a signal
    (the child is left for its owner to join)."""
    if not hasattr(os, "waitid"):
        return
    for pids in list(_worker_pids.values()):
        for pid in pids:
            try:
                info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                continue
            if info is None or info.si_pid == 0:
                continue
            if info.si_code == os.CLD_EXITED and info.si_status != 0:
                raise RuntimeError(
                    f"DataLoader worker (pid {pid}) exited unexpectedly with exit code "
                    f"{info.si_status}. Details are lost due to multiprocessing. Rerunning "
                    "with num_workers=0 may give better error trace."
                )
            if info.si_code in (os.CLD_KILLED, os.CLD_DUMPED):
                name = signal.Signals(info.si_status).name
                raise RuntimeError(
                    f"DataLoader worker (pid {pid}) is killed by signal: "
                    f"{signal.strsignal(info.si_status) or name}. "
                )


def _set_SIGCHLD_handler() -> None:
    """Check the workers whenever a child process changes state (main thread, POSIX;
    any previous handler still runs)."""
    global _SIGCHLD_handler_set
    if _SIGCHLD_handler_set or sys.platform == "win32":
        return
    if threading.current_thread() is not threading.main_thread():
        return
    previous = signal.getsignal(signal.SIGCHLD)
    if not callable(previous):
        previous = None

    def handler(signum: int, frame: Any) -> None:
        _error_if_any_worker_fails()
        if previous is not None:
            previous(signum, frame)

    signal.signal(signal.SIGCHLD, handler)
    _SIGCHLD_handler_set = True
