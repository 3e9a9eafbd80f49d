"""What runs inside a DataLoader worker process: seeding, ``get_worker_info``, the fetch loop."""

from __future__ import annotations

import os
import queue
import random
from dataclasses import dataclass
from typing import Any

from ..._backend import xp
from ..._utils import ExceptionWrapper
from ._fetch import _IterableDatasetFetcher as IterableFetcher
from ._fetch import _MapDatasetFetcher as MapFetcher


class WorkerInfo:
    """``id``, ``num_workers``, ``seed`` and the worker's copy of ``dataset``."""

    id: int
    num_workers: int
    seed: int
    dataset: Any
    __initialized = False

    def __init__(self, **kwargs: Any) -> None:
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs)
        self.__initialized = True

    def __setattr__(self, key: str, val: Any) -> None:
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        super().__setattr__(key, val)

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, k)}" for k in self.__keys)
        return f"{self.__class__.__name__}({fields})"


def get_worker_info() -> WorkerInfo | None:
    """The current worker's ``WorkerInfo``; ``None`` in the main process (it lives in
    ``torch.utils.data._utils.worker._worker_info``, which worker loops assign)."""
    from ._utils import worker

    return worker._worker_info


@dataclass(frozen=True)
class IterableStop:
    """A worker's iterable dataset is exhausted."""

    worker_id: int


@dataclass(frozen=True)
class Resume:
    """Restart the epoch (persistent workers)."""

    epoch: int


def _generate_state(base_seed: int, worker_id: int) -> list[int]:
    """The four 32-bit words PyTorch seeds a worker's NumPy stream with: NumPy's
    ``SeedSequence`` hash of the entropy ``[worker_id, base_seed]`` (base_seed as its low
    and high 32-bit halves), as in PyTorch's ``torch.utils.data._utils.worker``."""
    words = xp.random.SeedSequence([worker_id, base_seed]).generate_state(4)
    return [int(w) for w in words]


def _seed_worker(seed: int, worker_id: int) -> None:
    """Seed Python's, NumPy's and chainrule's streams from the worker's seed
    (``base_seed + worker_id``); NumPy's from the base seed and the worker's id."""
    import chainrule

    random.seed(seed)
    chainrule.manual_seed(seed)
    xp.random.seed(_generate_state(seed - worker_id, worker_id))


def worker_loop(
    iterable: bool,
    dataset: Any,
    index_queue: Any,
    data_queue: Any,
    auto_collation: bool,
    collate_fn: Any,
    drop_last: bool,
    base_seed: int,
    init_fn: Any,
    worker_id: int,
    num_workers: int,
) -> None:
    """Fetch batches for the indices that arrive on ``index_queue`` until told to stop (None)."""
    from ._utils import worker as worker_module

    parent = os.getppid()
    try:
        seed = base_seed + worker_id
        _seed_worker(seed, worker_id)
        worker_module._worker_info = WorkerInfo(
            id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset
        )
        kind = IterableFetcher if iterable else MapFetcher
        init_error = None
        fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = kind(dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_error = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        while True:
            try:
                task = index_queue.get(timeout=5.0)
            except queue.Empty:
                if os.getppid() != parent:  # the main process is gone
                    break
                continue
            if task is None:
                break
            idx, index = task
            if isinstance(index, Resume):
                data_queue.put((idx, index))
                fetcher = kind(dataset, auto_collation, collate_fn, drop_last)
                continue
            if init_error is not None:
                data, init_error = init_error, None
            else:
                try:
                    data = fetcher.fetch(index)  # type: ignore[union-attr]
                except StopIteration:
                    data = IterableStop(worker_id)
                except Exception:
                    data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            data_queue.put((idx, data))
    except KeyboardInterrupt:
        pass
    data_queue.cancel_join_thread()
    data_queue.close()
