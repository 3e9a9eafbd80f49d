"""Datasets, default_collate/default_convert and samplers, against torch.utils.data."""

import collections
import warnings

import numpy as np
import pytest
import torch
from data_compare import same_batch
from torch.utils import data as tdata

import chainrule
from chainrule.utils import data as cdata

Point = collections.namedtuple("Point", "x y")


def both(make):
    """The same samples built with chainrule and with torch."""
    return make(chainrule), make(torch)


SAMPLES = {
    "tensors": lambda t: [t.arange(6.0).reshape(2, 3) + i for i in range(4)],
    "int_tensors": lambda t: [t.tensor([i, -i]) for i in range(3)],
    "floats": lambda t: [0.5, 1.5, -2.0],
    "ints": lambda t: [1, 2, 3],
    "bools": lambda t: [True, False, True],
    "strings": lambda t: ["a", "bb", "c"],
    "ndarray": lambda t: [np.arange(4, dtype=np.float32) * i for i in range(3)],
    "ndarray_int": lambda t: [np.arange(3) + i for i in range(2)],
    "np_scalars": lambda t: [np.float32(1.5), np.float32(2.0)],
    "np_int_scalars": lambda t: [np.int16(1), np.int16(7)],
    "np_bool": lambda t: [np.bool_(True), np.bool_(False)],
    "tuples": lambda t: [(t.ones(2), 1, "s") for _ in range(3)],
    "lists": lambda t: [[t.zeros(2, dtype=t.float64), 2.5] for _ in range(2)],
    "dicts": lambda t: [
        {"x": t.full((2,), float(i)), "y": i, "n": {"z": [i, i]}} for i in range(3)
    ],
    "namedtuples": lambda t: [Point(t.tensor(float(i)), i) for i in range(3)],
}


@pytest.mark.parametrize("name", SAMPLES)
def test_default_collate_matches_torch(name):
    ours, theirs = both(SAMPLES[name])
    same_batch(cdata.default_collate(ours), tdata.default_collate(theirs))


@pytest.mark.parametrize("name", SAMPLES)
def test_default_convert_matches_torch(name):
    ours, theirs = both(SAMPLES[name])
    for a, b in zip(ours, theirs):
        same_batch(cdata.default_convert(a), tdata.default_convert(b))


@pytest.mark.parametrize(
    "batch",
    [[[1, 2], [1, 2, 3]], [object(), object()], [np.array(["a"]), np.array(["b"])]],
)
def test_default_collate_errors_match_torch(batch):
    with pytest.raises(Exception) as theirs:
        tdata.default_collate(batch)
    with pytest.raises(type(theirs.value)) as ours:
        cdata.default_collate(batch)
    assert str(ours.value).replace("chainrule", "torch") == str(theirs.value)


def test_tensor_dataset():
    x, y = chainrule.arange(12.0).reshape(6, 2), chainrule.arange(6)
    ds = cdata.TensorDataset(x, y)
    assert len(ds) == 6
    a, b = ds[2]
    assert a.tolist() == [4.0, 5.0] and b.item() == 2
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        cdata.TensorDataset(x, chainrule.arange(5))


def test_concat_subset_stack_and_add():
    a = cdata.TensorDataset(chainrule.arange(3))
    b = cdata.TensorDataset(chainrule.arange(10, 15))
    cat = a + b
    assert isinstance(cat, cdata.ConcatDataset) and len(cat) == 8
    assert cat.cumulative_sizes == [3, 8]
    assert [cat[i][0].item() for i in range(8)] == [0, 1, 2, 10, 11, 12, 13, 14]
    assert cat[-1][0].item() == 14
    with pytest.raises(ValueError, match="absolute value of index"):
        cat[-9]
    with pytest.raises(AssertionError, match="empty iterable"):
        cdata.ConcatDataset([])
    sub = cdata.Subset(cat, [7, 0, 4])
    assert len(sub) == 3 and [s[0].item() for s in (sub[0], sub[1], sub[2])] == [14, 0, 11]
    st = cdata.StackDataset(a, a)
    assert len(st) == 3 and st[1][0][0].item() == 1
    assert set(cdata.StackDataset(p=a, q=a)[0]) == {"p", "q"}
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        cdata.StackDataset(a, b)


class Count(cdata.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


def test_iterable_and_chain():
    chained = Count(2) + Count(3)
    assert isinstance(chained, cdata.ChainDataset)
    assert list(chained) == [0, 1, 0, 1, 2] and len(chained) == 5
    with pytest.raises(AssertionError, match="ConcatDataset does not support IterableDataset"):
        cdata.ConcatDataset([Count(2)])
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(cdata.ChainDataset([cdata.TensorDataset(chainrule.arange(2))]))
    with pytest.raises(NotImplementedError):
        cdata.Dataset()[0]


@pytest.mark.parametrize(
    "n, lengths", [(10, [3, 7]), (30, [0.3, 0.3, 0.4]), (11, [0.5, 0.5]), (7, [0.2, 0.2, 0.6])]
)
def test_random_split_structure_matches_torch(n, lengths):
    ours = cdata.random_split(range(n), lengths, generator=chainrule.Generator().manual_seed(1))
    theirs = tdata.random_split(range(n), lengths, generator=torch.Generator().manual_seed(1))
    assert [len(s) for s in ours] == [len(s) for s in theirs]
    assert sorted(i for s in ours for i in s) == list(range(n))
    again = cdata.random_split(range(n), lengths, generator=chainrule.Generator().manual_seed(1))
    assert [list(s) for s in ours] == [list(s) for s in again]


def test_random_split_errors_and_warnings():
    with pytest.raises(ValueError, match="Sum of input lengths does not equal"):
        cdata.random_split(range(5), [2, 2])
    with pytest.raises(ValueError, match="Fraction at index 0 is not between 0 and 1"):
        cdata.random_split(range(5), [1.5, -0.5])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cdata.random_split(range(2), [0.1, 0.1, 0.8])
    assert any("Length of split at index" in str(w.message) for w in caught)


def test_sequential_and_batch_sampler():
    assert list(cdata.SequentialSampler(range(4))) == [0, 1, 2, 3]
    for drop_last in (False, True):
        ours = cdata.BatchSampler(cdata.SequentialSampler(range(10)), 3, drop_last)
        theirs = tdata.BatchSampler(tdata.SequentialSampler(range(10)), 3, drop_last)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)
    for bad, msg in [(0, "batch_size should be a positive integer"), (True, "batch_size")]:
        with pytest.raises(ValueError, match=msg):
            cdata.BatchSampler(range(3), bad, False)
    with pytest.raises(ValueError, match="drop_last should be a boolean value"):
        cdata.BatchSampler(range(3), 2, 1)


def test_random_sampler():
    g = chainrule.Generator().manual_seed(3)
    order = list(cdata.RandomSampler(range(50), generator=g))
    assert sorted(order) == list(range(50)) and order != list(range(50))
    same = list(cdata.RandomSampler(range(50), generator=chainrule.Generator().manual_seed(3)))
    assert same == order
    chainrule.manual_seed(0)
    first = list(cdata.RandomSampler(range(20)))
    chainrule.manual_seed(0)
    assert list(cdata.RandomSampler(range(20))) == first
    long = list(cdata.RandomSampler(range(5), num_samples=12))
    assert len(long) == 12 and sorted(long[:5]) == sorted(long[5:10]) == list(range(5))
    drawn = list(cdata.RandomSampler(range(4), replacement=True, num_samples=400))
    assert len(drawn) == 400 and set(drawn) == {0, 1, 2, 3}
    with pytest.raises(TypeError, match="replacement should be a boolean value"):
        cdata.RandomSampler(range(3), replacement=1)
    with pytest.raises(ValueError, match="num_samples should be a positive integer value"):
        cdata.RandomSampler(range(3), num_samples=0)


def test_subset_random_sampler():
    idx = [5, 9, 2, 7]
    got = list(cdata.SubsetRandomSampler(idx, generator=chainrule.Generator().manual_seed(0)))
    assert sorted(got) == sorted(idx) and len(cdata.SubsetRandomSampler(idx)) == 4


def test_weighted_random_sampler_frequencies():
    w = [0.1, 0.2, 0.7, 0.0]
    g = chainrule.Generator().manual_seed(0)
    draws = np.array(list(cdata.WeightedRandomSampler(w, 20000, generator=g)))
    freq = np.bincount(draws, minlength=4) / len(draws)
    np.testing.assert_allclose(freq, w, atol=0.015)
    no_rep = list(cdata.WeightedRandomSampler([1, 1, 1, 1], 4, replacement=False))
    assert sorted(no_rep) == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="num_samples should be a positive integer value"):
        cdata.WeightedRandomSampler(w, 0)
    with pytest.raises(ValueError, match="weights should be a 1d sequence"):
        cdata.WeightedRandomSampler([[1.0, 2.0]], 2)
