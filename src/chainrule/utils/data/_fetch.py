"""The DataLoader's fetchers (PyTorch's ``torch.utils.data._utils.fetch``): an index (or a
batch of indices) to a collated sample, for map-style and iterable-style datasets."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["_BaseDatasetFetcher", "_IterableDatasetFetcher", "_MapDatasetFetcher"]


class _BaseDatasetFetcher:
    """The dataset, whether indices come batched (auto-collation), the collate function
    and ``drop_last``; ``fetch`` is the subclass's."""

    def __init__(
        self, dataset: Any, auto_collation: bool, collate_fn: Callable, drop_last: bool
    ) -> None:
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last

    def fetch(self, possibly_batched_index: Any) -> Any:
        raise NotImplementedError


class _IterableDatasetFetcher(_BaseDatasetFetcher):
    """The next sample (or ``len(index)`` samples) of an iterable dataset; ``ended`` once
    its iterator ran out (``dataset_iter``, which torchdata's state saving replaces)."""

    def __init__(
        self, dataset: Any, auto_collation: bool, collate_fn: Callable, drop_last: bool
    ) -> None:
        super().__init__(dataset, auto_collation, collate_fn, drop_last)
        self.dataset_iter = iter(dataset)
        self.ended = False

    def fetch(self, possibly_batched_index: Any) -> Any:
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.dataset_iter))
        data = []
        for _ in possibly_batched_index:
            try:
                data.append(next(self.dataset_iter))
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(possibly_batched_index)):
            raise StopIteration
        return self.collate_fn(data)


class _MapDatasetFetcher(_BaseDatasetFetcher):
    """The samples of a map-style dataset at the given indices (through the dataset's
    ``__getitems__`` where it has one), collated."""

    def fetch(self, possibly_batched_index: Any) -> Any:
        if not self.auto_collation:
            return self.collate_fn(self.dataset[possibly_batched_index])
        getitems = getattr(self.dataset, "__getitems__", None)
        if getitems:
            data = getitems(possibly_batched_index)
        else:
            data = [self.dataset[idx] for idx in possibly_batched_index]
        return self.collate_fn(data)
