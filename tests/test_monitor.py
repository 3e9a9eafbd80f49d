"""``torch.monitor`` against PyTorch's: the same programs run on ``chainrule.monitor`` and on
``torch.monitor`` record the same events (names, data) and the same ``Stat`` results, counts
and errors: windows closing, ``max_samples``, ``Aggregation.VALUE`` (which computes nothing
in PyTorch's binding), NaN, logging on collection, handler order, data conversions, timestamps
and ``TensorboardEventHandler``; and ``torch.monitor`` under ``chainrule run``.
"""

from __future__ import annotations

import datetime
import gc
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
import torch

import chainrule as cr
from chainrule import monitor
from oracle import assert_same_error

DAY = datetime.timedelta(days=1)  # (a window that does not close during a test)
NOW = datetime.datetime(2024, 1, 1)


def _results(stat) -> dict:
    """A Stat's ``get()`` by aggregation name, in its order, with the types of the values."""
    return [(a.name, v, type(v).__name__) for a, v in stat.get().items()]


class Recorder:
    """An event handler that keeps (name, data items in order) of each event."""

    def __init__(self) -> None:
        self.events: list = []

    def __call__(self, event) -> None:
        self.events.append((event.name, list(event.data.items())))


def _with_handler(lib, program) -> list:
    """Run ``program(M, record)`` with a registered Recorder; the handler is unregistered
    after every Stat the program made is collected (they log as they go)."""
    record = Recorder()
    handle = lib.monitor.register_event_handler(record)
    try:
        seen = program(lib.monitor, record)
        gc.collect()
    finally:
        lib.monitor.unregister_event_handler(handle)
    return [seen, record.events]


def _aggregations(M, record) -> list:
    A = M.Aggregation
    seen = []
    s = M.Stat("foo", [A.VALUE, A.MEAN, A.COUNT, A.SUM, A.MAX, A.MIN], DAY)
    seen += [s.name, s.count, _results(s)]
    for v in [1, 2, 3.5, -1, True, np.float32(0.25)]:
        s.add(v)
    seen += [s.count, _results(s), list(record.events)]
    del s  # logs the open window
    gc.collect()
    seen.append(list(record.events))
    empty = M.Stat("empty", [A.SUM], DAY)
    del empty  # no values: no event
    gc.collect()
    only_value = M.Stat("v", [A.VALUE], DAY, 1)
    only_value.add(3.0)  # logs (max_samples) an event with no data
    seen += [_results(only_value), only_value.count]
    twice = M.Stat("t", [A.SUM, A.SUM, A.COUNT], DAY)
    twice.add(2)
    del twice
    return seen


def _max_samples(M, record) -> list:
    A = M.Aggregation
    seen = []
    s = M.Stat("bar", [A.SUM, A.COUNT], DAY, 3)
    for v in [1, 2, 3, 4, 5, 6, 7]:
        s.add(v)
        seen.append((v, s.count, _results(s), len(record.events)))
    neg = M.Stat("neg", [A.MEAN, A.COUNT], DAY, -1)
    for v in [1, 2, 3]:
        neg.add(v)
        seen.append((v, neg.count, _results(neg), len(record.events)))
    one = M.Stat("m", [A.MIN, A.MAX, A.MEAN], DAY, 1)
    one.add(-3.0)
    one.add(4)
    seen += [_results(one), one.count]
    nan = M.Stat("nan", [A.MAX, A.MIN, A.SUM], DAY, 3)
    for v in [float("nan"), 2.0, 1.0]:
        nan.add(v)
    seen.append(str(_results(nan)))  # (str: nan != nan)
    return seen


def _window_start(window_ms: int) -> None:
    """Sleep until just after a window boundary of the monotonic clock (both libraries
    align windows to it), so the adds that follow fall in one window."""
    now = time.monotonic_ns() // 1_000_000
    time.sleep(((window_ms - now % window_ms) % window_ms + 3) / 1000)


def _windows(M, record) -> list:
    A = M.Aggregation
    seen = []
    for window in (datetime.timedelta(milliseconds=400), 0.4):  # a timedelta or seconds
        s = M.Stat("w", [A.SUM, A.COUNT], window)
        _window_start(400)
        s.add(1)
        s.add(2)
        seen += [s.count, _results(s), len(record.events)]
        time.sleep(0.5)  # the window closes; the next add logs it
        seen += [s.count, _results(s)]
        s.add(10)
        seen += [s.count, _results(s), record.events[-1]]
        time.sleep(0.9)  # two windows later: the add logs the window that holds 10
        s.add(5)
        seen += [s.count, _results(s), record.events[-1]]
        del s
        gc.collect()
    return seen


@pytest.mark.parametrize("program", [_aggregations, _max_samples, _windows])
def test_stats_match_torch(program):
    assert repr(_with_handler(cr, program)) == repr(_with_handler(torch, program))


def _events(M, record) -> list:
    now = datetime.datetime(2024, 3, 5, 6, 7, 8, 123456)
    data = {"a": 1, "b": 2.5, "c": True, "d": "s", "e": 2**62, "f": np.int64(-3)}
    e = M.Event(name="ev", timestamp=now, data=data)
    seen = [e.name, e.timestamp, [(k, v, type(v).__name__) for k, v in e.data.items()]]
    copy = e.data
    copy["zz"] = 1  # a copy: the event keeps its data
    seen.append(sorted(e.data))
    e.data = {"q": 1}
    e.name = "n2"
    e.timestamp = datetime.date(2020, 1, 2)
    seen += [e.data, e.name, e.timestamp]
    seen.append(M.Event("t", datetime.time(3, 4, 5, 6), {}).timestamp)
    utc = datetime.datetime(2021, 1, 1, 12, tzinfo=datetime.timezone.utc)
    seen.append(M.Event("t", utc, {}).timestamp)
    M.log_event(e)
    M.log_event(event=M.Event("second", now, {"x": -(2**63)}))
    seen.append(list(record.events))
    return seen


def test_events_match_torch():
    assert repr(_with_handler(cr, _events)) == repr(_with_handler(torch, _events))


def _orders(lib) -> list:
    """The orders of dicts PyTorch builds from C++ hash maps: event data (keys of many
    lengths, in maps of many sizes) and Stat results (every set of aggregations)."""
    rng = np.random.default_rng(0)
    letters = list("abcdefghijklmnopqrstuvwxyz._ABCDEFXYZ0123456789") + ["é", "∂"]
    seen = []
    for n in [*range(1, 30), 50, 97, 98, 104, 140, 300, 600, 1031, 1100]:
        keys = {"".join(rng.choice(letters, size=rng.integers(0, 20))) for _ in range(n)}
        e = lib.monitor.Event("e", NOW, dict.fromkeys(keys, 1))
        seen.append(list(e.data))
    A = lib.monitor.Aggregation
    members = list(A.__members__.values())
    for mask in range(1, 64):
        chosen = [a for i, a in enumerate(members) if mask >> i & 1]
        s = lib.monitor.Stat("o", chosen + chosen[:1], DAY)  # (a repeat counts once)
        seen.append([a.name for a in s.get()])
    return seen


def test_dict_orders_match_torch():
    assert _orders(cr) == _orders(torch)


def test_the_handler_gets_the_logged_event_itself():
    for lib in (cr, torch):
        got = []
        handle = lib.monitor.register_event_handler(got.append)
        try:
            e = lib.monitor.Event("x", datetime.datetime.now(), {})
            lib.monitor.log_event(e)
        finally:
            lib.monitor.unregister_event_handler(handle)
        assert got == [e] and got[0] is e


def _handlers(lib) -> list:
    M = lib.monitor
    calls = []
    first = M.register_event_handler(lambda e: calls.append(("first", e.name)))
    second = M.register_event_handler(lambda e: calls.append(("second", e.name)))
    M.log_event(M.Event("a", datetime.datetime.now(), {}))
    M.unregister_event_handler(first)
    M.log_event(M.Event("b", datetime.datetime.now(), {}))
    M.unregister_event_handler(second)
    M.log_event(M.Event("c", datetime.datetime.now(), {}))  # no handler: nothing

    def boom(e):
        raise KeyError("boom")

    bad = M.register_event_handler(boom)
    try:
        with pytest.raises(KeyError, match="boom"):
            M.log_event(M.Event("d", datetime.datetime.now(), {}))
        s = M.Stat("sb", [M.Aggregation.COUNT], DAY, 1)
        with pytest.raises(KeyError, match="boom"):
            s.add(1)  # the window was logged (to a failing handler) all the same
        calls += [s.count, _results(s)]
    finally:
        M.unregister_event_handler(bad)
    del s
    gc.collect()
    return calls


def test_handlers_match_torch():
    assert _handlers(cr) == _handlers(torch)


def test_aggregation_enum():
    for lib in (cr, torch):
        A = lib.monitor.Aggregation
        assert [(n, a.value) for n, a in A.__members__.items()] == [
            ("VALUE", 0),
            ("MEAN", 2),
            ("COUNT", 3),
            ("SUM", 4),
            ("MAX", 5),
            ("MIN", 6),
        ]
        assert repr(A.MEAN) == "<Aggregation.MEAN: 2>" and str(A.MEAN) == "Aggregation.MEAN"
        assert int(A.SUM) == 4 and hash(A.MAX) == hash(5) and A.MEAN != 2 and A(3) == A.COUNT
        assert lib.monitor.MEAN is A.MEAN and lib.monitor.VALUE is A.VALUE
        assert lib.monitor.STAT_EVENT == "torch.monitor.Stat"
        with pytest.raises(TypeError):
            A.MEAN < A.SUM  # noqa: B015


ERRORS = [
    lambda lib: lib.monitor.Stat("x", [lib.monitor.Aggregation.MEAN], 2),
    lambda lib: lib.monitor.Stat("x", [2], DAY),
    lambda lib: lib.monitor.Stat(3, [lib.monitor.Aggregation.MEAN], DAY),
    lambda lib: lib.monitor.Stat("x", [lib.monitor.Aggregation.SUM], DAY, max_samples=2**63),
    lambda lib: lib.monitor.Stat("x", [lib.monitor.Aggregation.SUM], DAY, max_samples=1.5),
    lambda lib: lib.monitor.Stat("x", [lib.monitor.Aggregation.MEAN], DAY).add("a"),
    lambda lib: lib.monitor.Stat("x", [lib.monitor.Aggregation.MEAN], DAY).add("3"),
    lambda lib: lib.monitor.Stat("x", [lib.monitor.Aggregation.MEAN], DAY).add(None),
    lambda lib: lib.monitor.Event("ev", NOW, {"a": None}),
    lambda lib: lib.monitor.Event("ev", NOW, {"a": [1]}),
    lambda lib: lib.monitor.Event("ev", NOW, {1: 1}),
    lambda lib: lib.monitor.Event("ev", 5, {}),
    lambda lib: lib.monitor.Event(5, NOW, {}),
    lambda lib: lib.monitor.Event("ev", NOW, {"a": 2**63}),
    lambda lib: setattr(lib.monitor.Event("ev", NOW, {}), "data", {"a": None}),
    lambda lib: lib.monitor.log_event(3),
    lambda lib: lib.monitor.register_event_handler(3),
    lambda lib: lib.monitor.EventHandlerHandle(),
    lambda lib: lib.monitor.data_value_t(),
]


@pytest.mark.parametrize("fn", ERRORS, ids=range(len(ERRORS)))
def test_errors_match_torch(fn):
    """The same exception type; the messages are pybind11's (their first sentence, the
    signature, the arguments), naming torch._C._monitor's types as PyTorch's do."""
    expected = type(_error(fn, torch))
    got = _error(fn, cr)
    assert type(got) is expected
    theirs = str(_error(fn, torch)).replace("torch._C._monitor.", "").split("\n")[0]
    ours = str(got).replace("torch._C._monitor.", "").split("\n")[0]
    assert ours == theirs


def _error(fn, lib) -> BaseException:
    try:
        fn(lib)
    except Exception as exc:  # noqa: BLE001 - compared by the caller
        return exc
    raise AssertionError(f"{lib.__name__} raised nothing")


def test_stat_property_is_read_only():
    assert_same_error(
        lambda lib: setattr(lib.monitor.Stat("x", [], DAY), "name", "y"), phrase="has no setter"
    )


def test_where_torch_crashes_chainrule_raises():
    """PyTorch's C++ divides by zero for a window under a millisecond, erases past its
    handler list when a handle is unregistered twice, and calls an empty function for a None
    handler; chainrule raises (the first two), or raises PyTorch's error (the third)."""
    with pytest.raises(ZeroDivisionError):
        monitor.Stat("x", [monitor.SUM], datetime.timedelta(microseconds=500)).add(1)
    handle = monitor.register_event_handler(print)
    monitor.unregister_event_handler(handle)
    with pytest.raises(ValueError, match="not registered"):
        monitor.unregister_event_handler(handle)
    for lib in (cr, torch):
        none = lib.monitor.register_event_handler(None)
        try:
            with pytest.raises(RuntimeError, match="bad_function_call"):
                lib.monitor.log_event(lib.monitor.Event("x", NOW, {}))
        finally:
            lib.monitor.unregister_event_handler(none)


class Writer:
    """A stand-in SummaryWriter that records add_scalar's calls."""

    def __init__(self) -> None:
        self.calls: list = []

    def add_scalar(self, tag, value, walltime=None) -> None:
        self.calls.append((tag, value, walltime))


def _tensorboard(lib) -> list:
    M = lib.monitor
    writer = Writer()
    handle = M.register_event_handler(M.TensorboardEventHandler(writer))
    try:
        stamp = datetime.datetime(2024, 5, 6, 7, 8, 9, 250000)
        M.log_event(M.Event(M.STAT_EVENT, stamp, {"loss.mean": 0.5, "loss.count": 4.0}))
        M.log_event(M.Event("other", stamp, {"x": 1.0}))  # not a Stat event: not written
        s = M.Stat("acc", [M.Aggregation.MAX], DAY, 2)
        s.add(0.25)
        s.add(0.75)
    finally:
        M.unregister_event_handler(handle)
    tags = sorted((tag, value) for tag, value, _ in writer.calls)
    walltimes = [w for _, _, w in writer.calls]
    return [tags, walltimes[:2], all(isinstance(w, float) for w in walltimes)]


def test_tensorboard_handler_matches_torch():
    assert _tensorboard(cr) == _tensorboard(torch)


def test_tensorboard_handler_with_summary_writer(tmp_path):
    pytest.importorskip("tensorboard")
    from chainrule.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(tmp_path))
    handle = monitor.register_event_handler(monitor.TensorboardEventHandler(writer))
    try:
        s = monitor.Stat("loss", [monitor.MEAN], DAY, 2)
        s.add(1.0)
        s.add(2.0)
    finally:
        monitor.unregister_event_handler(handle)
        writer.close()
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(tmp_path))
    acc.Reload()
    assert [e.value for e in acc.Scalars("loss.mean")] == [1.5]


def test_wait_counter_guard():
    """PyTorch-internal, used by its own modules; the CPU build records nothing."""
    for lib in (cr, torch):
        with lib.monitor._WaitCounter("pytorch.test").guard() as g:
            assert g is None


def test_under_chainrule_run(tmp_path):
    script = tmp_path / "monitor_script.py"
    script.write_text(
        textwrap.dedent(
            """
            import datetime
            import json
            import sys

            import torch
            from torch.monitor import Aggregation, Stat, register_event_handler

            assert "chainrule" in torch.__version__
            events = []
            register_event_handler(lambda e: events.append([e.name, e.data]))
            s = Stat("loss", [Aggregation.MEAN, Aggregation.MAX], datetime.timedelta(days=1), 2)
            s.add(1.0)
            s.add(3.0)
            print(json.dumps(events))
            """
        )
    )
    env = dict(os.environ, OMP_NUM_THREADS="1")
    run = [sys.executable, "-m", "chainrule", "run", str(script)]
    proc = subprocess.run(run, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    import json

    assert json.loads(proc.stdout) == [["torch.monitor.Stat", {"loss.mean": 2.0, "loss.max": 3.0}]]
