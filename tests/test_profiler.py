"""torch.profiler and torch.autograd.profiler: the table's layout, the events a forward
produces, record_function ranges, the schedule's actions, the Chrome trace and the
TensorBoard handler, against PyTorch; and the recipe "Profiling your PyTorch Module" run
unchanged under ``chainrule run``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import pytest
import torch

import chainrule as cr
from chainrule import _modes
from chainrule.autograd import recording
from oracle import compare, randn

ROOT = Path(__file__).resolve().parents[1]

# PyTorch's profiler prints its start and stop lines to stderr; warnings about cycles
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def mlp(lib):
    """A small model and its input (the same numbers in both libraries)."""
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(8, 16), lib.nn.ReLU(), lib.nn.Linear(16, 4))
    return model, lib.tensor(randn((5, 8)), dtype=lib.float32)


def profiled(lib, fn, **kwargs):
    """The profile of ``fn()`` with ``lib.profiler.profile(**kwargs)``."""
    with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU], **kwargs) as p:
        fn()
    return p


def columns(line: str) -> list[str]:
    """A table line's cells (columns are two or more spaces apart)."""
    return re.split(r"\s{2,}", line.strip())


# ----- the table ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, group",
    [({}, False), ({"record_shapes": True}, True), ({"profile_memory": True}, False)],
    ids=["plain", "input_shapes", "memory"],
)
def test_table_header_columns_and_footer_match_torch(kwargs, group):
    def layout(lib):
        x = lib.tensor(randn((4, 4)))

        def run():
            with lib.profiler.record_function("block"):
                lib.mm(x, x)

        table = profiled(lib, run, **kwargs).key_averages(group_by_input_shape=group)
        lines = table.table(sort_by="cpu_time_total", row_limit=10).splitlines()
        rule = lines[0]
        return {
            "header": columns(lines[1]),
            "rules": (lines[2] == rule, lines[-2] == rule),
            "widths": [len(cell) for cell in rule.split()][
                1:
            ],  # (the name's is the longest name's)
            "footer": lines[-1].startswith("Self CPU time total: "),
        }

    compare(layout)


def test_table_sorts_rows_and_limits_them():
    x = cr.tensor(randn((4, 4)))

    def run():
        for _ in range(3):
            cr.mm(x, x)
        cr.add(x, x)

    avg = profiled(cr, run).key_averages()
    lines = avg.table(sort_by="count", row_limit=1).splitlines()
    assert len(lines) == 6  # rule, header, rule, one row, rule, footer
    assert columns(lines[3])[0] == "aten::mm" and columns(lines[3])[-1] == "3"


# ----- events -------------------------------------------------------------------------


def test_a_models_forward_names_the_ops_torch_names():
    def names(lib):
        model, x = mlp(lib)
        return {e.key: e.count for e in profiled(lib, lambda: model(x)).key_averages()}

    ours, theirs = names(cr), names(torch)
    assert set(ours) <= set(theirs), set(ours) - set(theirs)
    assert ours["aten::addmm"] == theirs["aten::addmm"] == 2


def test_ops_called_by_name_are_events_named_as_torch_names_them():
    def names(lib):
        x = lib.tensor(randn((3, 3)))
        p = profiled(lib, lambda: (lib.mm(x, x), lib.add(x, x), lib.matmul(x, x)))
        return sorted(e.key for e in p.key_averages() if e.key in {"aten::mm", "aten::add"})

    compare(names)


def test_record_function_rows_count_each_range():
    def counts(lib):
        x = lib.tensor(randn((3, 3)))

        @lib.profiler.record_function("decorated")
        def f():
            return lib.mm(x, x)

        def run():
            for _ in range(3):
                with lib.profiler.record_function("block"):
                    f()

        avg = profiled(lib, run).key_averages()
        return {e.key: e.count for e in avg if e.key in ("block", "decorated")}

    compare(counts)


def test_times_are_positive_and_self_time_at_most_total():
    model, x = mlp(cr)

    def run():
        with cr.profiler.record_function("model_inference"):
            model(x)

    p = profiled(cr, run)
    events = p.events()
    assert events
    for e in events:
        assert e.cpu_time_total > 0
        assert 0 <= e.self_cpu_time_total <= e.cpu_time_total
        assert sum(c.cpu_time_total for c in e.cpu_children) <= e.cpu_time_total
    (outer,) = [e for e in events if e.name == "model_inference"]
    assert all(e.cpu_parent is outer for e in events if e is not outer)
    assert abs(events.self_cpu_time_total - outer.cpu_time_total) < 1e-6 * outer.cpu_time_total
    for a in p.key_averages():
        assert a.self_cpu_time_total <= a.cpu_time_total + 1e-9
        assert a.cpu_time == pytest.approx(a.cpu_time_total / a.count)


def test_input_shapes_of_an_op_match_torch():
    def shapes(lib):
        a, b = lib.tensor(randn((5, 8))), lib.tensor(randn((8, 16), 1))
        avg = profiled(lib, lambda: lib.mm(a, b), record_shapes=True).key_averages(
            group_by_input_shape=True
        )
        return [(e.key, str(e.input_shapes)) for e in avg if e.key == "aten::mm"]

    compare(shapes)


def test_memory_of_a_models_ops_matches_torch():
    def memory(lib):
        model, x = mlp(lib)
        avg = profiled(lib, lambda: model(x), profile_memory=True).key_averages()
        (addmm,) = [e for e in avg if e.key == "aten::addmm"]
        return addmm.cpu_memory_usage, addmm.self_cpu_memory_usage

    compare(memory)  # 5x16 and 5x4 float32 outputs: 400 bytes


def test_the_usual_path_is_back_after_the_profile():
    x = cr.tensor(randn((3, 3)))
    with cr.profiler.profile() as p:
        assert recording.PROFILER[0] is not None and not _modes.usual[0]
        cr.mm(x, x)
    assert recording.PROFILER[0] is None and _modes.usual[0]
    cr.mm(x, x)  # outside: not recorded
    assert [e.name for e in p.events()] == ["aten::mm"]


def test_a_profile_inside_another_records_its_ops_and_hands_back():
    x = cr.tensor(randn((3, 3)))
    with cr.profiler.profile() as outer:
        cr.mm(x, x)
        with cr.profiler.profile() as inner:
            cr.add(x, x)
        cr.mm(x, x)
    assert [e.name for e in inner.events()] == ["aten::add"]
    assert [e.name for e in outer.events()] == ["aten::mm", "aten::mm"]
    assert recording.PROFILER[0] is None and _modes.usual[0]


# ----- the schedule -------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {"wait": 1, "warmup": 1, "active": 2},
        {"wait": 1, "warmup": 1, "active": 2, "repeat": 2},
        {"skip_first": 1, "wait": 1, "warmup": 1, "active": 2, "repeat": 1},
        {"skip_first": 2, "wait": 3, "warmup": 0, "active": 1, "repeat": 3},
        {"wait": 2, "warmup": 1, "active": 1, "repeat": 2, "skip_first_wait": 1},
    ],
)
def test_schedule_actions_match_torch(kwargs):
    def actions(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = lib.profiler.schedule(**kwargs)
        return [s(i).name for i in range(16)]

    compare(actions)


def test_a_scheduled_profile_saves_each_cycle_as_torch_does():
    def cycles(lib):
        x = lib.tensor(randn((3, 3)))
        saved = []

        def ready(p):
            keys = {e.key for e in p.key_averages() if not e.key.startswith("aten::")}
            saved.append((p.step_num, sorted(keys)))

        sched = lib.profiler.schedule(wait=1, warmup=1, active=2, repeat=2)
        with lib.profiler.profile(schedule=sched, on_trace_ready=ready) as p:
            for i in range(10):
                with lib.profiler.record_function(f"it{i}"):
                    lib.mm(x, x)
                p.step()
        return saved

    compare(cycles)  # [(4, ['ProfilerStep*', 'it2', 'it3']), (8, [... 'it6', 'it7'])]


# ----- traces -------------------------------------------------------------------------


def test_chrome_trace_has_torchs_keys(tmp_path):
    def trace(lib):
        path = tmp_path / f"{lib.__name__}.json"
        x = lib.tensor(randn((3, 3)))

        def run():
            with lib.profiler.record_function("block"):
                lib.mm(x, x)

        profiled(lib, run, record_shapes=True).export_chrome_trace(str(path))
        doc = json.loads(path.read_text())
        complete = [e for e in doc["traceEvents"] if e.get("ph") == "X"]
        mm = [e for e in complete if e["name"] == "aten::mm"][0]
        block = [e for e in complete if e["name"] == "block"][0]
        assert mm["ts"] >= block["ts"] and mm["ts"] + mm["dur"] <= block["ts"] + block["dur"]
        return {
            "top": sorted({"schemaVersion", "traceEvents", "displayTimeUnit"} & set(doc)),
            "event": sorted(set(mm) & {"ph", "cat", "name", "pid", "tid", "ts", "dur", "args"}),
            "cats": (mm["cat"], block["cat"]),
            "dims": mm["args"]["Input Dims"],
        }

    compare(trace)


def test_tensorboard_trace_handler_writes_a_trace_per_cycle(tmp_path):
    x = cr.tensor(randn((3, 3)))
    sched = cr.profiler.schedule(wait=0, warmup=1, active=1, repeat=2)
    handler = cr.profiler.tensorboard_trace_handler(str(tmp_path / "log"), worker_name="w")
    with cr.profiler.profile(schedule=sched, on_trace_ready=handler) as p:
        for _ in range(5):
            cr.mm(x, x)
            time.sleep(0.002)  # (the file names differ by their millisecond)
            p.step()
    files = sorted(os.listdir(tmp_path / "log"))
    assert len(files) == 2
    assert all(re.fullmatch(r"w\.\d+\.pt\.trace\.json", f) for f in files)
    for f in files:
        doc = json.loads((tmp_path / "log" / f).read_text())
        names = [e["name"] for e in doc["traceEvents"] if e.get("ph") == "X"]
        assert names.count("aten::mm") == 1 and any(n.startswith("ProfilerStep#") for n in names)


# ----- torch.autograd.profiler --------------------------------------------------------


def test_autograd_profiler_spellings():
    def legacy(lib):
        x = lib.tensor(randn((3, 3)))
        with lib.autograd.profiler.profile(record_shapes=True) as p:
            with lib.autograd.profiler.record_function("block"):
                lib.mm(x, x)
        with lib.autograd.profiler.profile(enabled=False):
            lib.mm(x, x)
        avg = p.key_averages()
        header = columns(avg.table(sort_by="self_cpu_time_total").splitlines()[1])
        return header, sorted(e.key for e in avg if e.key in ("block", "aten::mm"))

    compare(legacy)


def test_emit_nvtx_is_a_context_that_does_nothing():
    # (PyTorch's needs CUDA; with no GPU here there are no NVTX ranges to emit)
    x = cr.tensor(randn((3, 3)))
    with cr.autograd.profiler.emit_nvtx(record_shapes=True) as ctx:
        y = cr.mm(x, x)
    assert isinstance(ctx, cr.autograd.profiler.emit_nvtx) and y.shape == (3, 3)


# ----- the recipe ---------------------------------------------------------------------


def test_the_recipes_steps_run_unchanged_under_chainrule_run(tmp_path):
    script = tmp_path / "recipe.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import torch
            import torch.nn as nn
            from torch.profiler import profile, record_function, ProfilerActivity

            model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
            inputs = torch.randn(5, 32)

            with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
                with record_function("model_inference"):
                    model(inputs)
            print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))
            print(prof.key_averages(group_by_input_shape=True).table(
                sort_by="cpu_time_total", row_limit=10))

            with profile(activities=[ProfilerActivity.CPU],
                         profile_memory=True, record_shapes=True) as prof:
                model(inputs)
            print(prof.key_averages().table(sort_by="self_cpu_memory_usage", row_limit=10))

            with profile(activities=[ProfilerActivity.CPU]) as prof:
                model(inputs)
            prof.export_chrome_trace({str(tmp_path / "trace.json")!r})

            with profile(activities=[ProfilerActivity.CPU], with_stack=True) as prof:
                model(inputs)
            print(prof.key_averages(group_by_stack_n=5).table(
                sort_by="self_cpu_time_total", row_limit=2))

            my_schedule = torch.profiler.schedule(wait=1, warmup=1, active=3, repeat=1)

            def trace_handler(p):
                print(p.key_averages().table(sort_by="self_cpu_time_total", row_limit=10))
                p.export_chrome_trace({str(tmp_path)!r} + "/" + str(p.step_num) + ".json")

            with profile(activities=[ProfilerActivity.CPU], schedule=my_schedule,
                         on_trace_ready=trace_handler) as p:
                for idx in range(8):
                    model(inputs)
                    p.step()
            """
        )
    )
    proc = subprocess.run(
        [sys.executable, "-m", "chainrule", "run", str(script)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.count("Self CPU time total: ") == 5
    assert "model_inference" in out and "Input Shapes" in out and "Self CPU Mem" in out
    assert "Source Location" in out and "ProfilerStep*" in out
    assert (tmp_path / "trace.json").exists() and (tmp_path / "5.json").exists()


# Tests to append to tests/test_profiler.py once /tmp/w/P_fast_paths.patch is applied
# (they fail without it: the fast entries, cat/stack and backward nodes are not recorded).


def test_fast_entries_and_joins_are_events_named_as_torch_names_them():
    def names(lib):
        x = lib.tensor(randn((4, 4)), requires_grad=True)
        calls = [
            lambda: x + x,
            lambda: x * 2,
            lambda: lib.relu(x),
            lambda: x.sum(),
            lambda: lib.tanh(x),
            lambda: x.t(),
            lambda: lib.cat([x, x]),
            lambda: x.view(16),
        ]
        return [sorted({e.key for e in profiled(lib, f).key_averages()} & OURS) for f in calls]

    compare(names)


OURS = {
    "aten::add",
    "aten::mul",
    "aten::relu",
    "aten::sum",
    "aten::tanh",
    "aten::t",
    "aten::cat",
    "aten::view",
}


def test_backward_nodes_are_events_named_as_torch_names_them():
    def names(lib):
        lib.manual_seed(0)
        x = lib.tensor(randn((4, 4)), requires_grad=True)

        def run():
            (x * x).tanh().sum().backward()

        keys = {e.key for e in profiled(lib, run).key_averages()}
        return sorted(k for k in keys if "evaluate_function" in k and "AccumulateGrad" not in k)

    compare(names)


def test_a_linear_models_forward_has_torchs_op_rows():
    def names(lib):
        model, x = mlp(lib)
        return {e.key: e.count for e in profiled(lib, lambda: model(x)).key_averages()}

    ours, theirs = names(cr), names(torch)
    for key in ("aten::addmm", "aten::t", "aten::relu"):
        assert ours[key] == theirs[key]
