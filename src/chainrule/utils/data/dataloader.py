"""``DataLoader``: batches from a dataset, in the main process or in worker processes."""

from __future__ import annotations

import itertools
import math
import multiprocessing
import queue
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..._random import Generator, randint
from . import _worker
from ._collate import default_collate, default_convert
from .dataset import Dataset, IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

_POLL_S = 1.0


class _InfiniteConstantSampler(Sampler):
    """Yields None forever: the index stream of an iterable dataset."""

    def __iter__(self) -> Iterator[None]:
        while True:
            yield None


def _check_options(loader: DataLoader, shuffle: Any, sampler: Any, batch_sampler: Any) -> None:
    if loader.num_workers < 0:
        raise ValueError(
            "num_workers option should be non-negative; "
            "use num_workers=0 to disable multiprocessing."
        )
    if loader.timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if loader.num_workers == 0 and loader.prefetch_factor is not None:
        raise ValueError(
            "prefetch_factor option could only be specified in multiprocessing."
            "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None."
        )
    if loader.prefetch_factor is not None and loader.prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if loader.persistent_workers and loader.num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
    if isinstance(loader.dataset, IterableDataset):
        if shuffle not in {False, None}:
            raise ValueError(
                "DataLoader with IterableDataset: expected unspecified shuffle option, "
                f"but got shuffle={shuffle}"
            )
        if sampler is not None:
            raise ValueError(
                "DataLoader with IterableDataset: expected unspecified sampler option, "
                f"but got sampler={sampler}"
            )
        if batch_sampler is not None:
            raise ValueError(
                "DataLoader with IterableDataset: expected unspecified "
                f"batch_sampler option, but got batch_sampler={batch_sampler}"
            )
    if sampler is not None and shuffle:
        raise ValueError("sampler option is mutually exclusive with shuffle")
    if batch_sampler is not None and (
        loader.batch_size != 1 or shuffle or sampler is not None or loader.drop_last
    ):
        raise ValueError(
            "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
            "drop_last"
        )
    if batch_sampler is None and loader.batch_size is None and loader.drop_last:
        raise ValueError(
            "batch_size=None option disables auto-batching and is mutually exclusive with drop_last"
        )


def _context(mp_context: Any, num_workers: int) -> Any:
    if mp_context is None:
        if num_workers == 0:
            return None
        method = "fork" if sys.platform.startswith("linux") else "spawn"
        return multiprocessing.get_context(method)
    if num_workers == 0:
        raise ValueError(
            "multiprocessing_context can only be used with multi-process loading "
            f"(num_workers > 0), but got num_workers={num_workers}"
        )
    if isinstance(mp_context, str):
        methods = multiprocessing.get_all_start_methods()
        if mp_context not in methods:
            raise ValueError(
                "multiprocessing_context option should specify a valid start method in "
                f"{methods!r}, but got multiprocessing_context={mp_context!r}"
            )
        return multiprocessing.get_context(mp_context)
    if not isinstance(mp_context, multiprocessing.context.BaseContext):
        raise TypeError(
            "multiprocessing_context option should be a valid context object or a string "
            f"specifying the start method, but got multiprocessing_context={mp_context}"
        )
    return mp_context


class DataLoader:
    """Iterates over batches of ``dataset`` drawn in sampler order and collated."""

    def __init__(
        self,
        dataset: Dataset | Iterable,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Sampler | Iterable | None = None,
        batch_sampler: Sampler | Iterable | None = None,
        num_workers: int = 0,
        collate_fn: Callable[[list], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable[[int], None] | None = None,
        multiprocessing_context: Any = None,
        generator: Generator | None = None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.persistent_workers = persistent_workers
        self.in_order = in_order
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.generator = generator
        _check_options(self, shuffle, sampler, batch_sampler)
        if num_workers > 0 and prefetch_factor is None:
            self.prefetch_factor = 2
        self._iterable = isinstance(dataset, IterableDataset)
        if batch_sampler is not None:
            self.batch_size, self.drop_last = None, False
        if sampler is None:
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)  # type: ignore[arg-type]
            else:
                sampler = SequentialSampler(dataset)  # type: ignore[arg-type]
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.multiprocessing_context = _context(multiprocessing_context, num_workers)
        self._iterator: _MultiProcessIter | None = None

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Any:
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self) -> Iterator:
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        if not self.persistent_workers:
            return _MultiProcessIter(self)
        if self._iterator is None:
            self._iterator = _MultiProcessIter(self)
        else:
            self._iterator._reset(self)
        return self._iterator

    def __len__(self) -> int:
        if self._iterable:
            length = len(self.dataset)  # type: ignore[arg-type]
            if self.batch_size is not None:
                length = (
                    length // self.batch_size
                    if self.drop_last
                    else math.ceil(length / self.batch_size)
                )
            return length
        return len(self._index_sampler)


class _BaseIter:
    def __init__(self, loader: DataLoader) -> None:
        self._index_sampler = loader._index_sampler
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = int(randint(0, 2**62, (1,), generator=loader.generator).item())

    def __iter__(self) -> _BaseIter:
        return self

    def __len__(self) -> int:
        return len(self._index_sampler)

    def _next_index(self) -> Any:
        return next(self._sampler_iter)

    def _reset(self, loader: DataLoader, first_iter: bool = False) -> None:
        """Start the sampler over (a new epoch)."""
        self._sampler_iter = iter(self._index_sampler)


class _SingleProcessIter(_BaseIter):
    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        if loader.timeout != 0:
            raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
        kind = _worker.IterableFetcher if loader._iterable else _worker.MapFetcher
        self._fetcher = kind(
            loader.dataset, loader._auto_collation, loader.collate_fn, loader.drop_last
        )

    def __next__(self) -> Any:
        return self._fetcher.fetch(self._next_index())


class _MultiProcessIter(_BaseIter):
    """Round-robin index lists to worker processes; results come back in sampler order."""

    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        self._num_workers = loader.num_workers
        self._prefetch = loader.prefetch_factor * loader.num_workers  # type: ignore[operator]
        self._timeout = loader.timeout
        self._persistent = loader.persistent_workers
        ctx = loader.multiprocessing_context
        self._data_queue = ctx.Queue()
        self._index_queues: list = []
        self._workers: list = []
        self._shutdown = False
        for i in range(self._num_workers):
            index_queue = ctx.Queue()
            index_queue.cancel_join_thread()
            w = ctx.Process(
                target=_worker.worker_loop,
                args=(
                    loader._iterable,
                    loader.dataset,
                    index_queue,
                    self._data_queue,
                    loader._auto_collation,
                    loader.collate_fn,
                    loader.drop_last,
                    self._base_seed,
                    loader.worker_init_fn,
                    i,
                    self._num_workers,
                ),
                daemon=True,
            )
            w.start()
            self._index_queues.append(index_queue)
            self._workers.append(w)
        self._epoch = 0
        self._start_epoch()

    def _start_epoch(self) -> None:
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_info: dict[int, tuple] = {}
        self._tasks_outstanding = 0
        self._active = [True] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        for _ in range(self._prefetch):
            self._try_put_index()

    def _reset(self, loader: DataLoader, first_iter: bool = False) -> None:
        """Next epoch with the same (persistent) workers (``first_iter``, PyTorch's
        argument, changes nothing: the workers' resume handshake is safe either way)."""
        self._sampler_iter = iter(self._index_sampler)
        self._epoch += 1
        for q in self._index_queues:
            q.put((None, _worker.Resume(self._epoch)))
        waiting = self._num_workers
        while waiting > 0:
            _, data = self._get_data()
            if isinstance(data, _worker.Resume) and data.epoch == self._epoch:
                waiting -= 1
        self._start_epoch()

    def _try_put_index(self) -> None:
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):
            worker_id = next(self._worker_cycle)
            if self._active[worker_id]:
                break
        else:
            return
        self._index_queues[worker_id].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_id,)
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _get_data(self) -> tuple:
        waited = 0.0
        while True:
            wait = _POLL_S if self._timeout <= 0 else min(_POLL_S, self._timeout - waited)
            try:
                return self._data_queue.get(timeout=max(wait, 1e-3))
            except queue.Empty:
                waited += wait
                if self._timeout > 0 and waited >= self._timeout:
                    self._shutdown_workers()
                    raise RuntimeError(
                        f"DataLoader timed out after {self._timeout} seconds"
                    ) from None
                dead = [w for w in self._workers if not w.is_alive()]
                if dead:
                    pids = ", ".join(str(w.pid) for w in dead)
                    self._shutdown_workers()
                    raise RuntimeError(
                        f"DataLoader worker (pid(s) {pids}) exited unexpectedly"
                    ) from None

    def __next__(self) -> Any:
        while True:
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info is not None and (len(info) == 2 or self._active[info[0]]):
                    break
                self._task_info.pop(self._rcvd_idx, None)
                self._rcvd_idx += 1
            else:
                if not self._persistent:
                    self._shutdown_workers()
                raise StopIteration
            info = self._task_info[self._rcvd_idx]
            if len(info) == 2:
                del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
                return self._process(info[1])
            idx, data = self._get_data()
            if idx is None:  # a stale resume acknowledgement
                continue
            self._tasks_outstanding -= 1
            if isinstance(data, _worker.IterableStop):
                self._active[data.worker_id] = False
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                self._task_info[idx] += (data,)
                continue
            del self._task_info[idx]
            self._rcvd_idx += 1
            return self._process(data)

    def _process(self, data: Any) -> Any:
        self._try_put_index()
        if isinstance(data, _worker.ExceptionWrapper):
            self._shutdown_workers()
            data.reraise()
        return data

    def _shutdown_workers(self) -> None:
        if self._shutdown:
            return
        self._shutdown = True
        for q in self._index_queues:
            try:
                q.put(None)
            except (ValueError, OSError):
                pass
        for w in self._workers:
            w.join(timeout=5.0)
            if w.is_alive():
                w.terminate()
                w.join()
        for q in [*self._index_queues, self._data_queue]:
            q.cancel_join_thread()
            q.close()

    def __del__(self) -> None:
        try:
            self._shutdown_workers()
        except Exception:
            pass


# PyTorch's names for the iterator classes (libraries import and subclass them)
_BaseDataLoaderIter = _BaseIter
_SingleProcessDataLoaderIter = _SingleProcessIter
_MultiProcessingDataLoaderIter = _MultiProcessIter
