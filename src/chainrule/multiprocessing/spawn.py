"""``torch.multiprocessing.spawn``: run ``fn(i, *args)`` for i = 0..nprocs-1, each in a
process of its own, and report the first failure in the parent.

A child that raises writes its traceback (as text) to a file only it and the parent know
and exits with status 1; the parent, woken by the first process to end, reads that file
and raises ProcessRaisedException with the child's traceback, or ProcessExitedException for
a child that died without one (a signal, ``os._exit``), after stopping the others
(SIGTERM, then SIGKILL after a grace period).
"""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable
from typing import Any

__all__ = [
    "ProcessContext",
    "ProcessException",
    "ProcessExitedException",
    "ProcessRaisedException",
    "spawn",
    "SpawnContext",
    "start_processes",
]

# PyTorch's switch for starting forkserver processes in parallel (a start-up speed-up only:
# chainrule reads it and starts them one after another)
ENV_VAR_PARALLEL_START = "TORCH_MP_PARALLEL_START"

_log = logging.getLogger(__name__)

# SIGTERM first; this long for the others to go before SIGKILL when no grace period is given
_DEFAULT_GRACE = 30.0


class ProcessException(Exception):
    """A spawned process failed: which one (``error_index``) and its pid."""

    def __init__(self, msg: str, error_index: int, error_pid: int) -> None:
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.error_pid = error_pid

    def __reduce__(self) -> tuple:
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """A spawned process raised: the message carries its traceback."""


class ProcessExitedException(ProcessException):
    """A spawned process ended with a nonzero status or by a signal, leaving no traceback."""

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int,
                 signal_name: str | None = None) -> None:  # fmt: skip
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self) -> tuple:
        return type(self), (
            self.msg, self.error_index, self.error_pid, self.exit_code, self.signal_name
        )  # fmt: skip


def _die_with_parent() -> None:
    """On Linux, ask for SIGINT when the parent dies, so an orphan does not run on."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL(None).prctl(pr_set_pdeathsig, int(signal.SIGINT))
    except (OSError, AttributeError):
        pass


def _run_child(fn: Callable, i: int, args: tuple, error_file: str) -> None:
    """The body of process i: fn(i, *args); a raise is written to error_file, status 1."""
    _die_with_parent()
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent's SIGINT: stopped on purpose
    except Exception:
        with open(error_file, "wb") as fh:
            pickle.dump(traceback.format_exc(), fh)
        sys.exit(1)


class ProcessContext:
    """The processes ``start_processes(join=False)`` started, and their error files."""

    def __init__(self, processes: list, error_files: list) -> None:
        self.error_files = error_files
        self.processes = processes
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self) -> list[int]:
        return [int(p.pid) for p in self.processes]

    def _join_all(self, timeout: float) -> None:
        """Join every process, all within ``timeout`` seconds together."""
        deadline = time.monotonic() + timeout
        for p in self.processes:
            p.join(max(0.0, deadline - time.monotonic()))

    def join(self, timeout: float | None = None, grace_period: float | None = None) -> bool:
        """Wait (at most ``timeout`` seconds) for a process to end. True when all have ended
        well, False while some still run; when one failed, stop the others (SIGTERM, after
        ``grace_period`` if given; SIGKILL for those still alive after another) and raise
        ProcessRaisedException or ProcessExitedException for the failed one."""
        if not self.sentinels:
            return True
        ended = multiprocessing.connection.wait(list(self.sentinels), timeout=timeout)
        failed = None
        for sentinel in ended:
            index = self.sentinels.pop(sentinel)
            self.processes[index].join()
            if self.processes[index].exitcode != 0:
                failed = index
                break
        if failed is None:
            return not self.sentinels
        self._stop_others(grace_period)
        raise self._failure(failed)

    def _stop_others(self, grace_period: float | None) -> None:
        if grace_period is not None:
            self._join_all(grace_period)
        for p in self.processes:
            if p.is_alive():
                _log.warning("Terminating process %s via signal SIGTERM", p.pid)
                p.terminate()
        self._join_all(_DEFAULT_GRACE if grace_period is None else grace_period)
        for p in self.processes:
            if p.is_alive():
                _log.warning(
                    "Unable to shutdown process %s via SIGTERM , forcefully exiting via SIGKILL",
                    p.pid,
                )
                p.kill()
            p.join()

    def _failure(self, index: int) -> ProcessException:
        """The exception for process ``index``: its traceback, else its status or signal."""
        process = self.processes[index]
        if not os.access(self.error_files[index], os.R_OK):
            code = process.exitcode
            if code < 0:
                try:
                    name = signal.Signals(-code).name
                except ValueError:
                    name = f"<Unknown signal {-code}>"
                return ProcessExitedException(
                    f"process {index:d} terminated with signal {name}",
                    error_index=index, error_pid=process.pid, exit_code=code,
                    signal_name=name,
                )  # fmt: skip
            return ProcessExitedException(
                f"process {index:d} terminated with exit code {code:d}",
                error_index=index, error_pid=process.pid, exit_code=code,
            )  # fmt: skip
        with open(self.error_files[index], "rb") as fh:
            child_traceback = pickle.load(fh)
        message = f"\n\n-- Process {index:d} terminated with the following error:\n"
        return ProcessRaisedException(message + child_traceback, index, process.pid)


class SpawnContext(ProcessContext):
    """ProcessContext's name before PyTorch 1.4 (with PyTorch's warning)."""

    def __init__(self, processes: list, error_files: list) -> None:
        warnings.warn("SpawnContext is renamed to ProcessContext since 1.4 release.", stacklevel=2)
        super().__init__(processes, error_files)


def _error_file() -> str:
    """A fresh path for a child's traceback: it exists only once the child has raised."""
    with tempfile.NamedTemporaryFile(
        prefix="pytorch-errorfile-", suffix=".pickle", delete=False
    ) as tf:
        name = tf.name
    os.unlink(name)
    return name


def start_processes(fn: Callable, args: tuple = (), nprocs: int = 1, join: bool = True,
                    daemon: bool = False, start_method: str = "spawn") -> Any:  # fmt: skip
    """Start ``nprocs`` processes running ``fn(i, *args)`` with ``start_method``; with
    ``join``, wait for all of them (raising the first failure) and return None, else return
    their ProcessContext."""
    context = multiprocessing.get_context(start_method)
    processes, error_files = [], []
    for i in range(nprocs):
        error_file = _error_file()
        process = context.Process(target=_run_child, args=(fn, i, args, error_file), daemon=daemon)
        process.start()
        processes.append(process)
        error_files.append(error_file)
    running = ProcessContext(processes, error_files)
    if not join:
        return running
    while not running.join():
        pass
    return None


def spawn(fn: Callable, args: tuple = (), nprocs: int = 1, join: bool = True,
          daemon: bool = False, start_method: str = "spawn") -> Any:  # fmt: skip
    """``start_processes`` with the "spawn" start method (any other given is warned about
    and not used)."""
    if start_method != "spawn":
        warnings.warn(
            f"This method only supports start_method=spawn (got: {start_method}).\n"
            "To use a different start_method use:\n\t\t"
            " torch.multiprocessing.start_processes(...)",
            FutureWarning,
            stacklevel=2,
        )
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
