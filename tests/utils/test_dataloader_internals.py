"""The internals of ``torch.utils.data`` that libraries (torchdata, Lightning, ...) import
by name, against torch's: ``torch._utils.ExceptionWrapper``, ``_utils`` (constants,
fetchers, the worker protocol, worker-failure signals, pinning), ``_DatasetKind``, the
iterators' attributes, DataPipe base classes and ``graph_settings``."""

import multiprocessing
import os
import signal
import warnings

import numpy as np
import pytest
import torch
import torch.utils.data._utils as t_utils
from torch.utils.data import graph_settings as t_graph

import chainrule
import chainrule.utils.data._utils as c_utils
from chainrule.utils.data import graph_settings as c_graph

LIBS = [torch, chainrule]


def wrapped(lib, exc):
    try:
        raise exc
    except Exception:
        return lib._utils.ExceptionWrapper(where="in test worker")


@pytest.mark.parametrize("exc", [KeyError("k"), ValueError("bad value"), OSError(2, "gone")])
def test_exception_wrapper_reraises_as_torch(exc):
    raised = []
    for lib in LIBS:
        w = wrapped(lib, exc)
        assert w.where == "in test worker" and w.exc_type is type(exc)
        with pytest.raises(type(exc)) as info:
            w.reraise()
        raised.append(str(info.value).splitlines()[0])
    assert raised[0] == raised[1]
    assert raised[1].startswith(f"Caught {type(exc).__name__} in test worker.")


def test_constants_and_submodules():
    for name in ("MP_STATUS_CHECK_INTERVAL", "IS_WINDOWS", "HAS_NUMPY", "python_exit_status"):
        assert getattr(c_utils, name) == getattr(t_utils, name), name
    for mod in ("collate", "fetch", "worker", "signal_handling", "pin_memory"):
        assert hasattr(c_utils, mod)
    assert chainrule.utils.data._DatasetKind.Map == torch.utils.data._DatasetKind.Map == 0
    assert chainrule.utils.data._DatasetKind.Iterable == torch.utils.data._DatasetKind.Iterable


@pytest.mark.parametrize("auto_collation", [True, False])
def test_fetchers(auto_collation):
    out = []
    for lib in LIBS:
        kind = lib.utils.data._DatasetKind
        data = [lib.tensor([float(i), 2.0 * i]) for i in range(5)]
        collate = lib.utils.data.default_collate if auto_collation else (lambda x: x)
        mapf = kind.create_fetcher(kind.Map, data, auto_collation, collate, False)
        itf = kind.create_fetcher(kind.Iterable, iter(data), auto_collation, collate, True)
        index = [3, 1] if auto_collation else 2
        got = [mapf.fetch(index), itf.fetch([None] * 2 if auto_collation else None)]
        if auto_collation:
            got.append(itf.fetch([None] * 2))
            with pytest.raises(StopIteration):
                itf.fetch([None] * 2)  # one sample left: dropped (drop_last)
            assert itf.ended
        out.append([np.asarray(g) for g in got])
    for a, b in zip(*out):
        np.testing.assert_array_equal(a, b)


def test_worker_protocol():
    for lib_utils in (t_utils, c_utils):
        w = lib_utils.worker
        assert w._IterableDatasetStopIteration(3).worker_id == 3
        assert w._ResumeIteration().seed is None and w._ResumeIteration(5).seed == 5
        assert w.ManagerWatchdog().is_alive()
        assert w._worker_info is None and w.get_worker_info() is None
        state = w._generate_state(2**40 + 7, 3)
        assert len(state) == 4
    assert c_utils.worker._generate_state(123, 1) == t_utils.worker._generate_state(123, 1)


def exit_with(code):
    os._exit(code)


def kill_self():
    os.kill(os.getpid(), signal.SIGTERM)


@pytest.mark.parametrize("target,args", [(exit_with, (3,)), (kill_self, ())])
def test_dead_worker_is_reported(target, args):
    messages = []
    for lib_utils in (t_utils, c_utils):
        p = multiprocessing.get_context("fork").Process(target=target, args=args)
        p.start()
        os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)  # exited, not yet reaped
        key = id(p)
        lib_utils.signal_handling._set_worker_pids(key, (p.pid,))
        with pytest.raises(ValueError, match="only once"):
            lib_utils.signal_handling._set_worker_pids(key, (p.pid,))
        try:
            with pytest.raises(RuntimeError) as info:
                lib_utils.signal_handling._error_if_any_worker_fails()
            messages.append(str(info.value).replace(str(p.pid), "PID"))
        finally:
            lib_utils.signal_handling._remove_worker_pids(key)
            p.join()
    assert messages[0] == messages[1]
    for lib_utils in (t_utils, c_utils):
        with pytest.raises(ValueError, match="Cannot find worker information"):
            lib_utils.signal_handling._remove_worker_pids(12345)


def test_pin_memory_without_accelerator():
    for lib, lib_utils in ((torch, t_utils), (chainrule, c_utils)):
        with pytest.raises(RuntimeError, match="Cannot access accelerator device"):
            lib_utils.pin_memory.pin_memory({"x": lib.ones(2)})
        assert lib_utils.pin_memory.pin_memory({"a": (1, "s"), "b": [2]}) == {
            "a": (1, "s"),
            "b": [2],
        }


def iterator_attributes(lib):
    loader = lib.utils.data.DataLoader(list(range(10)), batch_size=3, drop_last=True)
    it = iter(loader)
    next(it)
    return {
        "kind": it._dataset_kind,
        "auto": it._auto_collation,
        "drop": it._drop_last,
        "yielded": it._num_yielded,
        "workers": it._num_workers,
        "world": (it._world_size, it._rank),
        "len_called": it._IterableDataset_len_called,
        "sampler": type(it._index_sampler).__name__,
        "fetcher": type(it._dataset_fetcher).__name__,
        "pin": it._pin_memory,
        "persistent": it._persistent_workers,
        "profile": it._profile_name,
    }


def test_iterator_attributes():
    assert iterator_attributes(chainrule) == iterator_attributes(torch)
    for lib in LIBS:
        loader = lib.utils.data.DataLoader([1, 2])
        with pytest.raises(NotImplementedError, match="cannot be pickled"):
            iter(loader).__getstate__()
        for attr in ("batch_size", "sampler", "dataset", "drop_last"):
            with pytest.raises(ValueError, match=f"{attr} attribute should not be set after"):
                setattr(loader, attr, getattr(loader, attr))
        loader.num_workers = 0  # (the rest may change)


def test_iterable_length_warning():
    messages = []
    for lib in LIBS:

        class Lying(lib.utils.data.IterableDataset):
            def __iter__(self):
                return iter(range(5))

            def __len__(self):
                return 2

        loader = lib.utils.data.DataLoader(Lying(), batch_size=None)
        assert len(loader) == 2
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert [int(x) for x in loader] == list(range(5))
        messages.append([str(w.message).split(" was reported")[1] for w in caught])
    assert messages[0] == messages[1] and len(messages[1]) == 3


def pipe_classes(lib):
    """Source -> Shuffler (set_seed, set_shuffle) -> Sharder (apply_sharding): a user's
    own IterDataPipes on ``lib``, defined at module level (PyTorch walks the graph by
    pickling it)."""
    data = lib.utils.data

    class Source(data.IterDataPipe):
        def __iter__(self):
            return iter(range(8))

    class Shuffler(data.IterDataPipe):
        def __init__(self, dp):
            self.dp, self.seed, self.shuffle = dp, None, None

        def set_seed(self, seed):
            self.seed = seed

        def set_shuffle(self, shuffle):
            self.shuffle = shuffle

        def __iter__(self):
            return iter(self.dp)

    class Sharder(data.IterDataPipe):
        def __init__(self, dp):
            self.dp, self.args = dp, None

        def apply_sharding(self, num, idx):
            self.args = (num, idx)

        def __iter__(self):
            return (x for i, x in enumerate(self.dp) if i % self.args[0] == self.args[1])

    classes = []
    for cls in (Source, Shuffler, Sharder):
        cls.__qualname__ = cls.__name__ = f"{cls.__name__}_{lib.__name__}"
        globals()[cls.__name__] = cls
        classes.append(cls)
    return classes


PIPES = {lib: pipe_classes(lib) for lib in LIBS}


def test_graph_settings():
    got = []
    for lib, graph in ((torch, t_graph), (chainrule, c_graph)):
        source, shuffler, sharder = PIPES[lib]
        top = sharder(shuffler(source()))
        graph.apply_sharding(top, 3, 1)
        graph.apply_shuffle_settings(top, shuffle=False)
        rng = lib.Generator()
        rng.manual_seed(0)
        graph.apply_random_seed(top, rng)
        assert isinstance(top.dp.seed, int)
        got.append((top.args, top.dp.shuffle, list(top)))
        with pytest.raises(RuntimeError, match="Sharding twice"):
            graph.apply_sharding(sharder(top), 2, 0)
    assert got[0] == got[1] == ((3, 1), False, [1, 4, 7])


def test_set_vital_is_deprecated():
    for lib in LIBS:
        with pytest.warns(UserWarning, match="'set_vital' is deprecated"):
            fn = lib.set_vital
        assert fn("Dataloader", "enabled", "True") is None
