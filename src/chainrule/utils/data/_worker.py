"""What runs inside a DataLoader worker process: seeding, ``get_worker_info``, the fetch loop."""

from __future__ import annotations

import os
import queue
import random
import sys
import traceback
from dataclasses import dataclass
from typing import Any

from ..._backend import xp

_worker_info: WorkerInfo | None = None


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
    """The current worker's ``WorkerInfo``; ``None`` in the main process."""
    return _worker_info


class ExceptionWrapper:
    """An exception caught in a worker, re-raised in the main process with its traceback."""

    def __init__(self, where: str) -> None:
        exc_type, exc, tb = sys.exc_info()
        self.exc_type = exc_type
        self.exc_msg = "".join(traceback.format_exception(exc_type, exc, tb))
        self.where = where

    def reraise(self) -> None:
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exception


@dataclass(frozen=True)
class IterableStop:
    """A worker's iterable dataset is exhausted."""

    worker_id: int


@dataclass(frozen=True)
class Resume:
    """Restart the epoch (persistent workers)."""

    epoch: int


class MapFetcher:
    """Samples of a map-style dataset at given indices, collated."""

    def __init__(self, dataset: Any, auto_collation: bool, collate_fn: Any, drop_last: bool):
        self.dataset, self.auto_collation, self.collate_fn = dataset, auto_collation, collate_fn

    def fetch(self, index: Any) -> Any:
        if not self.auto_collation:
            return self.collate_fn(self.dataset[index])
        getitems = getattr(self.dataset, "__getitems__", None)
        data = getitems(index) if callable(getitems) else [self.dataset[i] for i in index]
        return self.collate_fn(data)


class IterableFetcher:
    """The next sample (or batch of samples) of an iterable dataset."""

    def __init__(self, dataset: Any, auto_collation: bool, collate_fn: Any, drop_last: bool):
        self.iterator = iter(dataset)
        self.auto_collation, self.collate_fn, self.drop_last = auto_collation, collate_fn, drop_last
        self.ended = False

    def fetch(self, index: Any) -> Any:
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.iterator))
        data = []
        for _ in index:
            try:
                data.append(next(self.iterator))
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return self.collate_fn(data)


def _seed_worker(seed: int, worker_id: int) -> None:
    """Seed Python's, NumPy's and chainrule's streams from the worker's seed."""
    import chainrule

    random.seed(seed)
    chainrule.manual_seed(seed)
    state = xp.random.SeedSequence([worker_id, seed & 0xFFFFFFFFFFFFFFFF]).generate_state(4)
    xp.random.seed(state)


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
    global _worker_info
    parent = os.getppid()
    try:
        seed = base_seed + worker_id
        _seed_worker(seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        kind = IterableFetcher if iterable else MapFetcher
        init_error = None
        fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = kind(dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_error = ExceptionWrapper(f"in DataLoader worker process {worker_id}")
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
                    data = ExceptionWrapper(f"in DataLoader worker process {worker_id}")
            data_queue.put((idx, data))
    except KeyboardInterrupt:
        pass
    data_queue.cancel_join_thread()
    data_queue.close()
