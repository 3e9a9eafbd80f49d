"""``DataLoader``: batches from a dataset, in the main process or in worker processes."""

from __future__ import annotations

import itertools
import math
import multiprocessing
import os
import queue
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Generic, NoReturn, TypeVar

from ..._random import Generator, drawn_seed
from . import _worker
from ._collate import default_collate, default_convert
from ._fetch import _IterableDatasetFetcher, _MapDatasetFetcher
from ._worker import get_worker_info
from .dataset import Dataset, IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]

_worker_init_fn_t = Callable[[int], None]
_collate_fn_t = Callable[[list], Any]
_T_co = TypeVar("_T_co", covariant=True)

_POLL_S = 1.0


class _DatasetKind:
    """Map-style (0) or iterable-style (1), and the fetcher of each."""

    Map = 0
    Iterable = 1

    @staticmethod
    def create_fetcher(
        kind: int, dataset: Any, auto_collation: bool, collate_fn: Callable, drop_last: bool
    ) -> Any:
        fetcher = _MapDatasetFetcher if kind == _DatasetKind.Map else _IterableDatasetFetcher
        return fetcher(dataset, auto_collation, collate_fn, drop_last)


def _get_distributed_settings() -> tuple[int, int]:
    """(world size, rank) of the default process group; (1, 0) without one."""
    from ... import distributed as dist

    if dist.is_available() and dist.is_initialized():
        return dist.get_world_size(), dist.get_rank()
    return 1, 0


def _sharding_worker_init_fn(
    worker_init_fn: Callable[[int], None] | None, world_size: int, rank_id: int, worker_id: int
) -> None:
    """Shard a DataPipe graph across every worker of every rank, then run the user's
    ``worker_init_fn``."""
    from . import graph_settings
    from .datapipes.datapipe import IterDataPipe, MapDataPipe

    info = get_worker_info()
    if info is None:
        raise AssertionError("Worker info is None in sharding worker init function")
    if not isinstance(info.dataset, (IterDataPipe, MapDataPipe)):
        raise AssertionError("datapipe must be an instance of IterDataPipe or MapDataPipe")
    total_workers = info.num_workers * world_size
    global_worker_id = worker_id * world_size + rank_id
    graph_settings.apply_sharding(info.dataset, total_workers, global_worker_id)
    if worker_init_fn is not None:
        worker_init_fn(worker_id)


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


# (what the loader's sampling is built from: fixed once the loader is made)
_FIXED_AFTER_INIT = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset")
_FIXED_AFTER_INIT += ("persistent_workers",)


class DataLoader(Generic[_T_co]):
    """Iterates over batches of ``dataset`` drawn in sampler order and collated."""

    __initialized = False

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
        iterable = isinstance(dataset, IterableDataset)
        self._dataset_kind = _DatasetKind.Iterable if iterable else _DatasetKind.Map
        # len(dataset) of an iterable dataset once len(loader) asked for it (the iterators
        # warn when more batches than that come)
        self._IterableDataset_len_called: int | None = None
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
        self.multiprocessing_context = multiprocessing_context
        self._iterator: _MultiProcessingDataLoaderIter | None = None
        self.__initialized = True
        self.check_worker_number_rationality()  # (at construction, and again per iterator)

    def __setattr__(self, attr: str, val: Any) -> None:
        if self.__initialized and attr in _FIXED_AFTER_INIT:
            raise ValueError(
                f"{attr} attribute should not be set after {self.__class__.__name__} is initialized"
            )
        super().__setattr__(attr, val)

    @property
    def multiprocessing_context(self) -> Any:
        """The multiprocessing context of the workers (``None``: the platform's default)."""
        return self.__dict__.get("_multiprocessing_context")

    @multiprocessing_context.setter
    def multiprocessing_context(self, value: Any) -> None:
        # (a start method's name becomes its context; checked against num_workers)
        self.__dict__["_multiprocessing_context"] = (
            None if value is None else _context(value, self.num_workers)
        )

    @property
    def _iterable(self) -> bool:
        return self._dataset_kind == _DatasetKind.Iterable

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Any:
        return self.batch_sampler if self._auto_collation else self.sampler

    def _get_iterator(self) -> _BaseDataLoaderIter:
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessingDataLoaderIter(self)

    def __iter__(self) -> _BaseDataLoaderIter:
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()  # type: ignore[assignment]
            else:
                self._iterator._reset(self)
            return self._iterator  # type: ignore[return-value]
        return self._get_iterator()

    def check_worker_number_rationality(self) -> None:
        """Warn when more worker processes are asked for than this process may use CPUs."""
        if not self.num_workers:
            return
        from ..._utils import cpu_count

        suggest = cpu_count()
        if suggest is not None and self.num_workers <= suggest:
            return
        cpuset = "" if hasattr(os, "sched_getaffinity") else " (`cpuset` is not taken into account)"
        if suggest is None:
            advice = (
                "DataLoader is not able to compute a suggested max number of worker in current "
                "system."
            )
        else:
            advice = (
                f"Our suggested max number of worker in current system is {suggest}{cpuset}, "
                "which is smaller than what this DataLoader is going to create."
            )
        warnings.warn(
            f"This DataLoader will create {self.num_workers} worker processes in total. "
            f"{advice} Please be aware that excessive worker creation might get DataLoader "
            "running slow or even freeze, lower the worker number to avoid potential "
            "slowness/freeze if necessary.",
            stacklevel=2,
        )

    def __len__(self) -> int:
        if self._iterable:
            length = self._IterableDataset_len_called = len(self.dataset)  # type: ignore[arg-type]
            if self.batch_size is not None:
                length = (
                    length // self.batch_size
                    if self.drop_last
                    else math.ceil(length / self.batch_size)
                )
            return length
        return len(self._index_sampler)


class _BaseDataLoaderIter:
    """The state every DataLoader iterator shares (PyTorch's ``_BaseDataLoaderIter``, with
    its attribute names, which libraries such as torchdata subclass): subclasses give
    ``_next_data``; ``__next__`` counts the batches yielded."""

    def __init__(self, loader: DataLoader) -> None:
        self._dataset = loader.dataset
        self._shared_seed: int | None = None
        self._pg = None
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._world_size, self._rank = _get_distributed_settings()
        if loader.pin_memory:
            warnings.warn(
                "'pin_memory' argument is set as true but no accelerator is found, then device "
                "pinned memory won't be used.",
                stacklevel=3,
            )
        self._pin_memory = False  # (page-locked memory needs an accelerator)
        self._pin_memory_device = None
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = drawn_seed(loader.generator)
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0
        self._profile_name = f"enumerate(DataLoader)#{self.__class__.__name__}.__next__"

    def __iter__(self) -> _BaseDataLoaderIter:
        return self

    def __len__(self) -> int:
        return len(self._index_sampler)

    def _next_index(self) -> Any:
        return next(self._sampler_iter)

    def _next_data(self) -> NoReturn:
        raise NotImplementedError

    def __next__(self) -> Any:
        if self._sampler_iter is None:
            self._reset()  # type: ignore[call-arg]
        data = self._next_data()
        self._num_yielded += 1
        if (
            self._dataset_kind == _DatasetKind.Iterable
            and self._IterableDataset_len_called is not None
            and self._num_yielded > self._IterableDataset_len_called
        ):
            msg = (
                f"Length of IterableDataset {self._dataset} was reported to be "
                f"{self._IterableDataset_len_called}(when accessing len(dataloader)), but "
                f"{self._num_yielded} samples have been fetched. "
            )
            if self._num_workers > 0:
                msg += (
                    "For multiprocessing data-loading, this could be caused by not properly "
                    "configuring the IterableDataset replica at each worker. Please see "
                    "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset "
                    "for examples."
                )
            warnings.warn(msg, stacklevel=2)
        return data

    def __getstate__(self) -> NoReturn:
        raise NotImplementedError(f"{self.__class__.__name__} cannot be pickled")

    def _reset(self, loader: DataLoader, first_iter: bool = False) -> None:
        """Start the sampler over (a new epoch)."""
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        if loader.timeout != 0:
            raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
        self._dataset_fetcher = _DatasetKind.create_fetcher(
            self._dataset_kind,
            self._dataset,
            self._auto_collation,
            self._collate_fn,
            self._drop_last,
        )

    def _next_data(self) -> Any:
        return self._dataset_fetcher.fetch(self._next_index())


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Round-robin index lists to worker processes; results come back in sampler order."""

    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        self._num_workers = loader.num_workers
        self._prefetch = loader.prefetch_factor * loader.num_workers  # type: ignore[operator]
        self._timeout = loader.timeout
        self._persistent = loader.persistent_workers
        ctx = loader.multiprocessing_context or _context(None, loader.num_workers)
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
        super()._reset(loader, first_iter)
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

    def _next_data(self) -> Any:
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
