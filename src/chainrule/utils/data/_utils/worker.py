"""``torch.utils.data._utils.worker``: what a DataLoader worker process uses: its
``WorkerInfo`` (``_worker_info``, which worker loops assign and ``get_worker_info`` reads),
seeding, the parent-process watchdog, and the messages of the worker protocol."""

from __future__ import annotations

import os
from dataclasses import dataclass

from .._worker import WorkerInfo, _generate_state, get_worker_info

__all__ = [
    "ManagerWatchdog",
    "WorkerInfo",
    "_IterableDatasetStopIteration",
    "_ResumeIteration",
    "_generate_state",
    "_worker_info",
    "get_worker_info",
]

_worker_info: WorkerInfo | None = None


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    """A worker's iterable dataset ran out: the main process sends it no more indices."""

    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    """Start a new epoch with the same (persistent) workers; ``seed`` is the shared seed
    of DataPipe graphs."""

    seed: int | None = None


class ManagerWatchdog:
    """Whether the process that started this worker is still alive (its parent pid has
    not changed; once gone, it stays gone)."""

    def __init__(self) -> None:
        self.manager_pid = os.getppid()
        self.manager_dead = False

    def is_alive(self) -> bool:
        if not self.manager_dead:
            self.manager_dead = os.getppid() != self.manager_pid
        return not self.manager_dead
