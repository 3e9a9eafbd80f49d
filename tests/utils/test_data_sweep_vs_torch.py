"""torch.utils.data cases a sweep against PyTorch found wrong (StackDataset batches, the
abstract IterableDataset, the collate module users extend, sampler and collate errors),
and the random streams of samplers and splits pinned to PyTorch's for the same seed."""

import warnings
from importlib import import_module

import numpy as np
import pytest
import torch
from data_compare import same_batch

import chainrule
from oracle import assert_same_error


def dataset_pair(lib):
    """A TensorDataset (fetched one index at a time) and a Subset (which has __getitems__)."""
    d = lib.utils.data
    return d.TensorDataset(lib.arange(4) * 10), d.Subset([5, 6, 7, 8], [3, 2, 1, 0])


@pytest.mark.parametrize("keyword", [False, True])
def test_stack_dataset_getitems_matches_torch(keyword):
    def batch(lib):
        first, second = dataset_pair(lib)
        d = lib.utils.data
        stack = d.StackDataset(a=first, b=second) if keyword else d.StackDataset(first, second)
        return stack.__getitems__([2, 0, 3]), list(d.DataLoader(stack, batch_size=3))

    same_batch(batch(chainrule), batch(torch))


def test_stack_dataset_nested_size_mismatch():
    def short(lib):
        class Short(lib.utils.data.Dataset):
            def __len__(self):
                return 3

            def __getitems__(self, indices):
                return indices[:-1]

        return lib.utils.data.StackDataset(Short(), [1, 2, 3]).__getitems__([0, 1])

    assert_same_error(short)


def test_iterable_dataset_is_abstract():
    assert_same_error(lambda lib: lib.utils.data.IterableDataset())

    def subclass_runs(lib):
        class Count(lib.utils.data.IterableDataset):
            def __iter__(self):
                return iter(range(3))

        return list(Count() + Count())

    assert subclass_runs(chainrule) == subclass_runs(torch)


def test_collate_module_extended_with_own_rule():
    """The documented way to collate a new type: a copy of default_collate_fn_map plus a rule."""

    def batch(lib):
        m = collate_module(lib)
        rules = {**m.default_collate_fn_map, type(None): lambda b, *, collate_fn_map: len(b)}
        return m.collate([{"a": None, "b": 1.5}, {"a": None, "b": 2}], collate_fn_map=rules)

    same_batch(batch(chainrule), batch(torch))
    assert_same_error(lambda lib: collate_module(lib).collate([1, 2], collate_fn_map={}))


def collate_module(lib):
    return import_module(lib.__name__ + ".utils.data._utils.collate")


@pytest.mark.parametrize(
    "samples",
    [
        pytest.param(lambda lib: [1, "a"], id="int_then_str"),
        pytest.param(lambda lib: [lib.tensor(1), 2], id="tensor_then_int"),
        pytest.param(lambda lib: [lib.tensor(1.0), None], id="tensor_then_none"),
        pytest.param(lambda lib: [{"x": (1, b"z")}, {"x": (b"y", 2)}], id="nested_int_bytes"),
    ],
)
def test_default_collate_mixed_types_error(samples):
    assert_same_error(lambda lib: lib.utils.data.default_collate(samples(lib)))


@pytest.mark.parametrize(
    ("weights", "num_samples"),
    [
        ([1.0, -2.0], 2),
        ([float("nan"), 1.0], 3),
        ([1.0, float("inf")], 2),
        ([float("inf"), -1.0], 2),
        ([], 2),
        ([0.0, 0.0], 2),
    ],
)
def test_weighted_sampler_bad_weights_error(weights, num_samples):
    assert_same_error(lambda lib: list(lib.utils.data.WeightedRandomSampler(weights, num_samples)))


def test_multinomial_rows_checked_in_order():
    rows = [[0.0, 0.0], [-1.0, 1.0]]  # the first bad row names the error
    assert_same_error(lambda lib: lib.multinomial(lib.tensor(rows), 2, True))


def test_worker_batches_with_odd_objects_alive():
    """Moving a batch to shared memory walks every live object: by type, so an object
    whose ``__class__`` warns (a deprecated alias) stays untouched."""

    class Odd:
        @property
        def __class__(self):
            warnings.warn("__class__ read", FutureWarning, stacklevel=2)
            return Odd

    keep = Odd()
    t = chainrule.arange(4.0)
    held = t.numpy()  # (the old memory still held: every live object is walked)
    t.share_memory_()
    assert t.is_shared() and keep is not None and held.tolist() == [0.0, 1.0, 2.0, 3.0]
    got = list(chainrule.utils.data.DataLoader(list(range(5)), batch_size=2, num_workers=2))
    want = list(torch.utils.data.DataLoader(list(range(5)), batch_size=2, num_workers=0))
    same_batch(got, want)


@pytest.mark.parametrize("replacement", [False, True])
@pytest.mark.parametrize("num_samples", [None, 1, 31, 33, 70])
def test_random_sampler_stream_matches_torch(replacement, num_samples):
    def indices(lib):
        g = lib.Generator().manual_seed(11)
        s = lib.utils.data.RandomSampler(range(10), replacement, num_samples, generator=g)
        lib.manual_seed(3)
        unseeded = lib.utils.data.RandomSampler(range(10), replacement, num_samples)
        return list(s), list(s), list(unseeded), len(s), lib.rand(2).tolist()

    assert indices(chainrule) == indices(torch)


@pytest.mark.parametrize("replacement", [False, True])
def test_weighted_and_subset_samplers_match_torch(replacement):
    def indices(lib):
        d = lib.utils.data
        g = lib.Generator().manual_seed(5)
        weighted = d.WeightedRandomSampler([0.5, 0, 2, 1, 1, 3], 4, replacement, generator=g)
        subset = d.SubsetRandomSampler([9, 4, 7, 1], generator=g)
        return list(weighted), list(subset), list(weighted)

    assert indices(chainrule) == indices(torch)


@pytest.mark.parametrize(
    "lengths", [[0.3, 0.3, 0.4], [1 / 3] * 3, [0.1] * 10, [0.7, 0.2, 0.1], [4, 0, 7]]
)
def test_random_split_matches_torch(lengths):
    def parts(lib):
        split = lib.utils.data.random_split(range(11), lengths, lib.Generator().manual_seed(42))
        return [list(p.indices) for p in split]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (a split of length 0 warns)
        assert parts(chainrule) == parts(torch)


@pytest.mark.parametrize("drop_last", [False, True])
def test_shuffled_loader_matches_torch(drop_last):
    def batches(lib):
        d = lib.utils.data
        data = d.TensorDataset(lib.arange(14.0).reshape(7, 2), lib.arange(7) % 2 == 0)
        g = lib.Generator().manual_seed(8)
        loader = d.DataLoader(data, batch_size=3, shuffle=True, drop_last=drop_last, generator=g)
        return list(loader) + list(loader) + [np.int64(len(loader))]

    ours, theirs = batches(chainrule), batches(torch)
    same_batch(ours[:-1], theirs[:-1])
    assert ours[-1] == theirs[-1]


def test_too_many_workers_warned_at_construction():
    def warning(lib):
        with pytest.warns(UserWarning, match="worker processes in total") as record:
            lib.utils.data.DataLoader([1, 2], num_workers=4096)
        return [str(w.message) for w in record]

    assert warning(chainrule) == warning(torch)
