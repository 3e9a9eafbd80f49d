"""DataLoader against torch's: same batches for the same order, workers, errors, processes."""

import gc
import multiprocessing
import random
import time

import numpy as np
import pytest
import torch
from data_compare import same_batch
from torch.utils import data as tdata

import chainrule
from chainrule.utils import data as cdata


def lib_data(lib):
    return cdata if lib is chainrule else tdata


def make_dataset(lib, kind):
    """A map-style dataset of ``kind`` samples built with ``lib`` (chainrule or torch)."""

    class Samples(lib_data(lib).Dataset):
        def __len__(self):
            return 7

        def __getitem__(self, i):
            if kind == "tensor":
                return lib.arange(3.0) * i
            if kind == "tuple":
                return lib.full((2, 2), i, dtype=lib.float64), i, f"s{i}"
            if kind == "dict":
                return {"x": lib.tensor([i, i + 1]), "y": float(i), "flag": i % 2 == 0}
            if kind == "numbers":
                return i, i / 2
            return np.arange(4, dtype=np.float32) + i, np.int64(i)

    return Samples()


KINDS = ["tensor", "tuple", "dict", "numbers", "numpy"]


def no_children():
    for _ in range(50):
        if not multiprocessing.active_children():
            return True
        time.sleep(0.1)
    return False


def batches(lib, dataset, **kwargs):
    return list(lib_data(lib).DataLoader(dataset, **kwargs))


def compare(kind, **kwargs):
    ours = batches(chainrule, make_dataset(chainrule, kind), **kwargs)
    theirs = batches(torch, make_dataset(torch, kind), **kwargs)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        same_batch(a, b)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    "options",
    [{"batch_size": 3}, {"batch_size": 3, "drop_last": True}, {"batch_size": None}, {}],
    ids=["bs3", "drop_last", "no_batching", "default"],
)
def test_same_batches_as_torch_in_process(kind, options):
    compare(kind, **options)


def test_custom_sampler_and_batch_sampler_and_collate():
    order = [6, 0, 3, 3, 1]
    compare("tuple", batch_size=2, sampler=order)
    compare("dict", batch_sampler=[[2, 5], [0], [6, 1, 4]])
    compare("tensor", batch_size=3, collate_fn=lambda b: [len(b), b[0]])


def _pairs(batch):
    """A collate function of the test's own: the batch's length and its items in order."""
    return [len(batch), batch]


@pytest.mark.parametrize("workers", [0, 2])
def test_same_sampler_order_and_collate_fn_with_and_without_workers(workers):
    """The same explicit sampler order, batch sampler and collate_fn give torch's batches,
    in process and with two worker processes."""
    order = [6, 0, 3, 3, 1, 5, 2]
    options = {"num_workers": workers}
    compare("tuple", batch_size=2, sampler=order, **options)
    compare("dict", batch_size=3, sampler=order, drop_last=True, **options)
    compare("dict", batch_sampler=[[2, 5], [0], [6, 1, 4]], **options)
    compare("tensor", batch_size=3, sampler=order, collate_fn=_pairs, **options)
    compare("numpy", batch_size=2, sampler=order[::-1], **options)
    assert no_children()


@pytest.mark.parametrize("kind", ["tuple", "dict", "numpy"])
def test_same_batches_as_torch_with_two_workers(kind):
    compare(kind, batch_size=2, num_workers=2)
    assert no_children()


def test_lengths():
    ds = make_dataset(chainrule, "tensor")
    for kw in [{"batch_size": 3}, {"batch_size": 3, "drop_last": True}, {"batch_size": None}]:
        assert len(cdata.DataLoader(ds, **kw)) == len(tdata.DataLoader(range(7), **kw))


def test_shuffle_is_a_reproducible_permutation():
    ds = cdata.TensorDataset(chainrule.arange(20))

    def epoch(seed):
        loader = cdata.DataLoader(
            ds, batch_size=4, shuffle=True, generator=chainrule.Generator().manual_seed(seed)
        )
        return [i for (b,) in loader for i in b.tolist()]

    assert sorted(epoch(1)) == list(range(20))
    assert epoch(1) == epoch(1) and epoch(1) != epoch(2)


class Shards:
    """The documented IterableDataset example: each worker reads its own range."""

    @staticmethod
    def make(lib, start=3, end=10):
        data = lib_data(lib)

        class Ranges(data.IterableDataset):
            def __iter__(self):
                info = data.get_worker_info()
                lo, hi = start, end
                if info is not None:
                    per = -(-(end - start) // info.num_workers)
                    lo = start + info.id * per
                    hi = min(lo + per, end)
                return iter(range(lo, hi))

        return Ranges()


class Plain:
    @staticmethod
    def make(lib):
        class Stream(lib_data(lib).IterableDataset):
            def __iter__(self):
                return iter([lib.tensor(float(i)) for i in range(5)])

        return Stream()


@pytest.mark.parametrize("workers", [0, 2])
def test_iterable_dataset_sharding_matches_torch(workers):
    for kw in [{"batch_size": 2}, {"batch_size": 2, "drop_last": True}, {"batch_size": None}]:
        ours = batches(chainrule, Shards.make(chainrule), num_workers=workers, **kw)
        theirs = batches(torch, Shards.make(torch), num_workers=workers, **kw)
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            same_batch(a, b)
    assert no_children()


def test_iterable_dataset_is_duplicated_per_worker_as_in_torch():
    ours = batches(chainrule, Plain.make(chainrule), batch_size=2, num_workers=2)
    theirs = batches(torch, Plain.make(torch), batch_size=2, num_workers=2)
    assert len(ours) == len(theirs) == 6
    for a, b in zip(ours, theirs):
        same_batch(a, b)


class Introspect(cdata.Dataset):
    """Reports which worker fetched each sample and draws from every random stream."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = cdata.get_worker_info()
        return {
            "id": info.id,
            "num_workers": info.num_workers,
            "seed": info.seed,
            "same_dataset": info.dataset.__class__.__name__ == "Introspect",
            "init": INIT_MARK[0],
            "py": random.random(),
            "np": float(np.random.rand()),
            "cr": chainrule.rand(()).item(),
        }


INIT_MARK = [-1]


def mark_init(worker_id):
    INIT_MARK[0] = 100 + worker_id


def test_worker_info_seeds_and_worker_init_fn():
    assert cdata.get_worker_info() is None

    def run(seed):
        loader = cdata.DataLoader(
            Introspect(),
            batch_size=2,
            num_workers=2,
            worker_init_fn=mark_init,
            generator=chainrule.Generator().manual_seed(seed),
        )
        return list(loader)

    out = run(5)
    assert [b["id"].tolist() for b in out] == [[0, 0], [1, 1], [0, 0], [1, 1]]
    assert all(b["num_workers"].tolist() == [2, 2] for b in out)
    assert all(b["same_dataset"].all() for b in out)
    assert [b["init"].tolist()[0] for b in out] == [100, 101, 100, 101]
    seeds = [b["seed"][0].item() for b in out]
    assert seeds[1] == seeds[0] + 1 and seeds[2] == seeds[0]
    for stream in ("py", "np", "cr"):  # the two workers draw different numbers
        assert out[0][stream][0].item() != out[1][stream][0].item()
    again = run(5)
    for a, b in zip(out, again):
        for stream in ("seed", "py", "np", "cr"):
            assert a[stream].tolist() == b[stream].tolist()
    assert no_children()


class Faulty(cdata.Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 4:
            raise ValueError("bad sample 4")
        return i


def test_worker_error_names_the_worker_and_leaves_no_process():
    loader = cdata.DataLoader(Faulty(), batch_size=2, num_workers=2)
    with pytest.raises(ValueError) as caught:
        list(loader)
    msg = str(caught.value)
    assert msg.startswith("Caught ValueError in DataLoader worker process 0.\nOriginal Traceback")
    assert "bad sample 4" in msg and "__getitem__" in msg
    assert no_children()


class Slow(cdata.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        time.sleep(1.5)
        return i


def test_timeout_and_delete_mid_epoch_leave_no_process():
    loader = cdata.DataLoader(Slow(), batch_size=1, num_workers=2, timeout=0.5)
    with pytest.raises(RuntimeError, match=r"DataLoader timed out after 0.5 seconds"):
        next(iter(loader))
    assert no_children()
    it = iter(cdata.DataLoader(cdata.TensorDataset(chainrule.arange(50)), num_workers=2))
    assert next(it)[0].tolist() == [0]
    assert multiprocessing.active_children()
    del it
    gc.collect()
    assert no_children()


def test_persistent_workers_prefetch_and_spawn():
    ds = cdata.TensorDataset(chainrule.arange(10.0), chainrule.arange(10))
    loader = cdata.DataLoader(
        ds, batch_size=3, num_workers=2, persistent_workers=True, prefetch_factor=1
    )
    first = [b.tolist() for _, b in loader]
    pids = sorted(p.pid for p in multiprocessing.active_children())
    assert [b.tolist() for _, b in loader] == first == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert sorted(p.pid for p in multiprocessing.active_children()) == pids
    del loader
    gc.collect()
    assert no_children()
    spawned = cdata.DataLoader(
        ds, batch_size=4, num_workers=2, multiprocessing_context="spawn", pin_memory=True
    )
    # (pin_memory without an accelerator: PyTorch's CPU build warns and does not pin)
    with pytest.warns(UserWarning, match="no accelerator is found"):
        batches = [b.tolist() for _, b in spawned]
    assert batches == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert no_children()


BAD_OPTIONS = [
    {"num_workers": -1},
    {"timeout": -1},
    {"prefetch_factor": 2},
    {"persistent_workers": True},
    {"sampler": [0, 1], "shuffle": True},
    {"batch_sampler": [[0]], "batch_size": 2},
    {"batch_sampler": [[0]], "drop_last": True},
    {"batch_size": None, "drop_last": True},
    {"multiprocessing_context": "spawn"},
    {"num_workers": 1, "multiprocessing_context": "nonsense"},
]


@pytest.mark.parametrize("options", BAD_OPTIONS)
def test_option_errors_match_torch(options):
    with pytest.raises(Exception) as theirs:
        tdata.DataLoader(range(4), **options)
    with pytest.raises(type(theirs.value)) as ours:
        cdata.DataLoader(range(4), **options)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("options", [{"shuffle": True}, {"sampler": [0]}, {"batch_sampler": [[0]]}])
def test_iterable_dataset_option_errors(options):
    with pytest.raises(ValueError) as theirs:
        tdata.DataLoader(Shards.make(torch), **options)
    with pytest.raises(ValueError) as ours:
        cdata.DataLoader(Shards.make(chainrule), **options)
    assert str(ours.value).split(", but")[0] == str(theirs.value).split(", but")[0]


def test_timeout_needs_workers_as_in_torch():
    with pytest.raises(AssertionError) as theirs:
        iter(tdata.DataLoader(range(3), timeout=1))
    with pytest.raises(AssertionError) as ours:
        iter(cdata.DataLoader(range(3), timeout=1))
    assert str(ours.value) == str(theirs.value)


def test_worker_info_is_read_only():
    info = cdata.WorkerInfo(id=0, num_workers=1, seed=3, dataset=None)
    assert repr(info) == "WorkerInfo(id=0, num_workers=1, seed=3, dataset=None)"
    with pytest.raises(RuntimeError, match="Cannot assign attributes to WorkerInfo objects"):
        info.id = 1
