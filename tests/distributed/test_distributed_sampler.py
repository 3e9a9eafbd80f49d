"""DistributedSampler against PyTorch's, with explicit num_replicas and rank (no group)."""

from __future__ import annotations

import pytest
import torch
from torch.utils.data.distributed import DistributedSampler as TorchSampler

import chainrule
from chainrule.utils.data import DistributedSampler

SIZES = [0, 1, 3, 7, 10, 12, 13]
REPLICAS = [1, 2, 3, 4, 5]


def _torch_indices(n, replicas, rank, drop_last):
    return list(TorchSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last))


@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("replicas", REPLICAS)
@pytest.mark.parametrize("n", SIZES)
def test_unshuffled_indices_and_padding_match_torch(n, replicas, drop_last):
    for rank in range(replicas):
        ours = DistributedSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        theirs = TorchSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        assert list(ours) == _torch_indices(n, replicas, rank, drop_last)
        assert len(ours) == len(theirs)
        assert (ours.num_samples, ours.total_size) == (theirs.num_samples, theirs.total_size)


@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("n,replicas", [(10, 3), (13, 4), (5, 2), (2, 5), (100, 7)])
def test_shuffled_indices_are_torchs_split_of_the_epochs_permutation(n, replicas, drop_last):
    # chainrule's random stream is not PyTorch's: the permutation is chainrule.randperm's
    # with seed + epoch; padding and split are PyTorch's (its unshuffled positions, mapped)
    seed, epoch = 7, 3
    g = chainrule.Generator().manual_seed(seed + epoch)
    perm = chainrule.randperm(n, generator=g).tolist()
    for rank in range(replicas):
        ours = DistributedSampler(range(n), replicas, rank, seed=seed, drop_last=drop_last)
        ours.set_epoch(epoch)
        positions = _torch_indices(n, replicas, rank, drop_last)
        assert list(ours) == [perm[i] for i in positions]


def test_each_epoch_reshuffles_and_the_ranks_cover_the_dataset():
    n, replicas = 20, 4
    samplers = [DistributedSampler(range(n), replicas, r, seed=1) for r in range(replicas)]
    first = [list(s) for s in samplers]
    assert sorted(i for part in first for i in part) == list(range(n))
    for s in samplers:
        s.set_epoch(1)
    assert [list(s) for s in samplers] != first
    assert [list(s) for s in samplers] == [list(s) for s in samplers]  # deterministic


@pytest.mark.parametrize("rank", [-1, 3])
def test_a_rank_out_of_range_raises_as_torch(rank):
    with pytest.raises(ValueError) as ours:
        DistributedSampler(range(5), 3, rank)
    with pytest.raises(ValueError) as theirs:
        TorchSampler(range(5), 3, rank)
    assert str(ours.value) == str(theirs.value)


def test_without_a_group_or_replicas_raises_as_torch():
    with pytest.raises(ValueError) as ours:
        DistributedSampler(range(5))
    assert "Default process group has not been initialized" in str(ours.value)
    if torch.distributed.is_initialized():  # never in this suite
        return
    with pytest.raises(ValueError) as theirs:
        TorchSampler(range(5))
    assert str(ours.value) == str(theirs.value)
