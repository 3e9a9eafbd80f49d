"""``DistributedSampler``: each rank's share of a dataset's indices, as PyTorch splits them.

The indices (shuffled with a generator seeded ``seed + epoch`` if ``shuffle``) are padded by
repeating their head until they divide evenly among the ``num_replicas`` ranks (or cut to
the largest multiple with ``drop_last``); rank r takes every ``num_replicas``-th from r.
The shuffled order, the padding and the split are PyTorch's.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sized
from typing import TypeVar

from ..._backend import xp
from ..._random import Generator, randperm
from .sampler import Sampler

T_co = TypeVar("T_co", covariant=True)

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler[T_co]):
    """The indices of ``dataset`` that rank ``rank`` of ``num_replicas`` visits (both from
    the default process group unless given); ``set_epoch`` reshuffles."""

    def __init__(
        self,
        dataset: Sized,
        num_replicas: int | None = None,
        rank: int | None = None,
        shuffle: bool = True,
        seed: int = 0,
        drop_last: bool = False,
    ) -> None:
        from ... import distributed as dist

        if num_replicas is None:
            num_replicas = dist.get_world_size()
        if rank is None:
            rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(
                f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]"
            )
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[T_co]:
        n = len(self.dataset)
        if self.shuffle:
            g = Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = randperm(n, generator=g)._data
        else:
            indices = xp.arange(n)
        if self.total_size > n:  # pad by repeating the indices from the start
            indices = xp.resize(indices, self.total_size) if n else indices
        indices = indices[: self.total_size]
        if len(indices) != self.total_size:
            raise AssertionError(
                f"Number of indices ({len(indices)}) does not match total_size ({self.total_size})"
            )
        return iter(indices[self.rank : self.total_size : self.num_replicas].tolist())

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Shuffle with ``seed + epoch`` from now on: a new order each epoch, the same on every rank."""
        self.epoch = epoch
