"""``torch.utils.data._utils.fetch``: the fetchers that turn an index (or a batch of
indices) into a collated sample, for map-style and iterable-style datasets."""

from .._fetch import _BaseDatasetFetcher, _IterableDatasetFetcher, _MapDatasetFetcher

__all__ = ["_BaseDatasetFetcher", "_IterableDatasetFetcher", "_MapDatasetFetcher"]
