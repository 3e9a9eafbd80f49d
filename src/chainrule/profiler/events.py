"""What a profile reports: events (one call each), their averages per name, and the
two ways out, a table and a Chrome trace.

Times are in microseconds, as PyTorch's profiler reports them. For an event, ``cpu_time_total``
is end - start and ``self_cpu_time_total`` that less its children's totals; an average
(``FunctionEventAvg``) sums both over its calls, and ``cpu_time`` is the total per call.
"""

from __future__ import annotations

import json
import os
import re
import time
from typing import Any

from .collector import Event

_STEP = re.compile(r"ProfilerStep#\d+")


class Interval:
    """[start, end) in microseconds."""

    def __init__(self, start: float, end: float) -> None:
        self.start = start
        self.end = end

    def elapsed_us(self) -> float:
        """end - start."""
        return self.end - self.start


def _format_time(us: float) -> str:
    """A time in the unit PyTorch's table picks: s from 1e6 us, ms from 1e3 us, else us."""
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _in_unit(us: float, unit: str | None) -> str:
    """A time in ``unit`` ("s", "ms", "us"), or in the unit ``_format_time`` picks."""
    if unit == "s":
        return f"{us / 1e6:.3f}s"
    if unit == "ms":
        return f"{us / 1e3:.3f}ms"
    if unit == "us":
        return f"{us:.3f}us"
    return _format_time(us)


def _format_memory(nbytes: int) -> str:
    """Bytes in GB, MB or KB (powers of 1024, two decimals), or plain bytes below a KB."""
    for size, unit in ((1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "KB")):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{nbytes} B"


def _share(us: float, total: float) -> str:
    """``us`` as a percentage of ``total`` (NaN for a total of 0)."""
    return "NaN" if total == 0 else f"{us * 100.0 / total:.2f}%"


class _Times:
    """The formatted times and memory both events and averages print."""

    cpu_time_total: float
    self_cpu_time_total: float
    count: int

    @property
    def cpu_time(self) -> float:
        """The total time per call, in microseconds."""
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    @property
    def cpu_time_str(self) -> str:
        return _format_time(self.cpu_time)

    @property
    def cpu_time_total_str(self) -> str:
        return _format_time(self.cpu_time_total)

    @property
    def self_cpu_time_total_str(self) -> str:
        return _format_time(self.self_cpu_time_total)

    # a CPU-only profile: no device time, as PyTorch's CPU profile reports it
    device_time_total = self_device_time_total = cuda_time_total = self_cuda_time_total = 0.0
    device_memory_usage = self_device_memory_usage = 0
    cuda_memory_usage = self_cuda_memory_usage = 0
    is_async = False
    is_remote = False
    node_id = -1
    overload_name = ""
    flops = 0


class FunctionEvent(_Times):
    """One call: its name, time range, children and parent, shapes and memory."""

    def __init__(self, id: int, ev: Event, origin: int) -> None:
        self.id = id
        self.name = ev.name
        self.key = ev.name
        self.thread = ev.thread
        self.time_range = Interval((ev.start - origin) / 1e3, (ev.end - origin) / 1e3)
        self.input_shapes = ev.input_shapes
        self.stack = ev.stack
        self.is_user_annotation = ev.is_user_annotation
        self.count = 1
        self.cpu_parent: FunctionEvent | None = None
        self.cpu_children: list[FunctionEvent] = []
        self.self_cpu_memory_usage = ev.self_bytes
        self.cpu_memory_usage = ev.self_bytes  # (plus the children's: EventList)

    @property
    def cpu_time_total(self) -> float:
        """end - start, in microseconds."""
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self) -> float:
        """The total less the children's totals."""
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    def __repr__(self) -> str:
        return (
            f"<FunctionEvent id={self.id} name={self.name} "
            f"cpu_time={self.cpu_time_total_str} self_cpu_time={self.self_cpu_time_total_str}"
            f" input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage}>"
        )


class FunctionEventAvg(_Times):
    """The calls of one name (and shapes, and stack, when grouped by them), summed."""

    def __init__(self) -> None:
        self.key: str | None = None
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.input_shapes: Any = None
        self.stack: Any = None
        self.is_user_annotation = False
        self.cpu_parent = None
        self.cpu_children: list = []

    def add(self, other: Any) -> FunctionEventAvg:
        """Sum ``other`` (an event or an average of the same key) into this average."""
        if self.key is None:
            self.key = other.key
            self.is_user_annotation = other.is_user_annotation
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        return self

    def __iadd__(self, other: Any) -> FunctionEventAvg:
        return self.add(other)

    def __repr__(self) -> str:
        return (
            f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
            f"cpu_time={self.cpu_time_total_str} input_shapes={self.input_shapes or ''} "
            f"cpu_memory_usage={self.cpu_memory_usage}>"
        )


class EventList(list):
    """A list of events (or of averages) that prints as PyTorch's profiler table."""

    def __init__(self, *args: Any, profile_memory: bool = False, **kwargs: Any) -> None:
        super().__init__(*args)
        self._profile_memory = profile_memory
        self._record_shapes = bool(kwargs.get("record_shapes", False))

    @property
    def self_cpu_time_total(self) -> float:
        """The sum of the events' self times: the whole profile's time."""
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(
        self, group_by_input_shape: bool = False, group_by_stack_n: int = 0, **_: Any
    ) -> EventList:
        """One average per name (``ProfilerStep#<n>`` counting as ``ProfilerStep*``), or
        per name and input shapes, and the innermost ``group_by_stack_n`` stack entries."""
        groups: dict = {}
        for e in self:
            key = _STEP.sub("ProfilerStep*", e.key)
            group = (key,)
            if group_by_input_shape:
                group += (str(e.input_shapes),)
            if group_by_stack_n > 0:
                group += (tuple(e.stack[:group_by_stack_n]),)
            avg = groups.get(group)
            if avg is None:
                avg = groups[group] = FunctionEventAvg()
                avg.key = key
                avg.is_user_annotation = e.is_user_annotation
                if group_by_input_shape:
                    avg.input_shapes = e.input_shapes
                if group_by_stack_n > 0:
                    avg.stack = list(e.stack[:group_by_stack_n])
            avg.add(e)
        return EventList(groups.values(), profile_memory=self._profile_memory)

    def total_average(self) -> FunctionEventAvg:
        """All events summed into one average (key "Total")."""
        total = FunctionEventAvg()
        for e in self:
            total.add(e)
        total.key = "Total"
        return total

    def table(
        self,
        sort_by: str | None = None,
        row_limit: int = 100,
        max_src_column_width: int = 75,
        max_name_column_width: int = 55,
        max_shapes_column_width: int = 80,
        header: str | None = None,
        top_level_events_only: bool = False,
        time_unit: str | None = None,
    ) -> str:
        """The events as PyTorch's profiler table: one row each (sorted by the attribute
        ``sort_by``, largest first, at most ``row_limit`` rows), and the footer "Self CPU
        time total", the sum of every event's self time."""
        return build_table(
            self,
            sort_by=sort_by,
            row_limit=row_limit,
            max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width,
            header=header,
            profile_memory=self._profile_memory,
            top_level_events_only=top_level_events_only,
            time_unit=time_unit,
        )

    def __str__(self) -> str:
        return self.table()

    def export_chrome_trace(self, path: str) -> None:
        """Write the events as a Chrome trace (JSON: chrome://tracing, Perfetto)."""
        write_chrome_trace(self, path, self._profile_memory, self._record_shapes)


def _sort_key(sort_by: str):
    attr = sort_by.replace("cuda", "device")

    def key(e: Any) -> Any:
        return getattr(e, attr)

    return key


def build_table(
    events: list,
    sort_by: str | None,
    row_limit: int,
    max_src_column_width: int | None,
    max_name_column_width: int | None,
    max_shapes_column_width: int | None,
    header: str | None,
    profile_memory: bool,
    top_level_events_only: bool,
    time_unit: str | None,
) -> str:
    """PyTorch's table: right-aligned columns two spaces apart, the name column as wide as
    the longest name plus 4 (at most ``max_name_column_width``), the others 12, then the
    input shapes and source location columns where events have them."""
    if not events:
        return ""
    if sort_by is not None:
        events = sorted(events, key=_sort_key(sort_by), reverse=True)
    has_shapes = any(e.input_shapes for e in events)
    stacks = [e.stack for e in events if e.stack]
    name_width = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_width = min(name_width, max_name_column_width)
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
    headers.append("# of Calls")
    widths = [name_width] + [12] * (len(headers) - 1)
    aligns = [">"] * len(headers)
    if has_shapes:
        shapes_width = max(len(str(e.input_shapes)) for e in events) + 4
        if max_shapes_column_width is not None:
            shapes_width = min(shapes_width, max_shapes_column_width)
        headers.append("Input Shapes")
        widths.append(shapes_width)
        aligns.append(">")
    src_width = 0
    if stacks:
        src_width = max(len(entry) for s in stacks for entry in s) + 4
        if max_src_column_width is not None:
            src_width = min(src_width, max_src_column_width)
        headers.append("Source Location")
        widths.append(src_width)
        aligns.append("<")
    row = "".join("{:" + a + str(w) + "}  " for a, w in zip(aligns, widths))
    rule = "".join("-" * w + "  " for w in widths)
    line_length = sum(w + 2 for w in widths) - 2

    def trim(path: str) -> str:
        if len(path) > src_width:
            path = path[len(path) - src_width :]
            if len(path) > 3:
                path = "..." + path[3:]
        return path

    total = sum(e.self_cpu_time_total for e in events)
    lines = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [rule, row.format(*headers), rule]
    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[: max_name_column_width - 3] + "..."
        values = [
            name,
            _share(e.self_cpu_time_total, total),
            _in_unit(e.self_cpu_time_total, time_unit),
            _share(e.cpu_time_total, total),
            _in_unit(e.cpu_time_total, time_unit),
            _in_unit(e.cpu_time, time_unit),
        ]
        if profile_memory:
            values += [_format_memory(e.cpu_memory_usage), _format_memory(e.self_cpu_memory_usage)]
        values.append(e.count)
        if has_shapes:
            values.append(str(e.input_shapes)[:shapes_width])
        if stacks:
            values.append(trim(e.stack[0]) if e.stack else "")
        lines.append(row.format(*values))
        if stacks:
            blank = [""] * (len(headers) - 1)
            for entry in (e.stack or [])[1:]:
                lines.append(row.format(*blank, trim(entry)))
            lines.append(row.format(*blank, ""))
    lines += [rule, f"Self CPU time total: {_in_unit(total, time_unit)}"]
    return "".join(line + "\n" for line in lines)


def write_chrome_trace(
    events: list, path: str, profile_memory: bool = False, record_shapes: bool = False
) -> None:
    """The events as Chrome's trace event format: one complete event ("ph": "X") per call
    (ts and dur in microseconds), and with ``profile_memory`` one instant "[memory]" event
    per call that made arrays."""
    pid = os.getpid()
    trace: list[dict] = [
        {
            "ph": "M",
            "name": "process_name",
            "ts": 0,
            "pid": pid,
            "tid": 0,
            "args": {"name": "python"},
        }
    ]
    allocated = 0
    for i, e in enumerate(events):
        args: dict = {"External id": e.id, "Ev Idx": i}
        if e.input_shapes:
            args["Input Dims"] = e.input_shapes
        trace.append(
            {
                "ph": "X",
                "cat": "user_annotation" if e.is_user_annotation else "cpu_op",
                "name": e.name,
                "pid": pid,
                "tid": e.thread,
                "ts": e.time_range.start,
                "dur": e.cpu_time_total,
                "args": args,
            }
        )
        if profile_memory and e.self_cpu_memory_usage:
            allocated += e.self_cpu_memory_usage
            trace.append(
                {
                    "ph": "i",
                    "cat": "cpu_instant_event",
                    "s": "t",
                    "name": "[memory]",
                    "pid": pid,
                    "tid": e.thread,
                    "ts": e.time_range.end,
                    "args": {
                        "Total Allocated": allocated,
                        "Bytes": e.self_cpu_memory_usage,
                        "Device Id": -1,
                        "Device Type": 0,
                        "Ev Idx": i,
                    },
                }
            )
    document = {
        "schemaVersion": 1,
        "deviceProperties": [],
        "profile_memory": int(profile_memory),
        "record_shapes": int(record_shapes),
        "displayTimeUnit": "ms",
        "baseTimeNanoseconds": time.time_ns() - time.perf_counter_ns(),
        "traceEvents": trace,
        "traceName": path,
    }
    with open(path, "w") as f:
        json.dump(document, f, indent=1)


def event_list(collected: list[Event], profile_memory: bool, record_shapes: bool) -> EventList:
    """The collector's events as FunctionEvents, in start order, with parents, children
    and memory totals (an event's plus its children's)."""
    if not collected:
        return EventList(profile_memory=profile_memory, record_shapes=record_shapes)
    origin = min(ev.start for ev in collected)
    made = {}
    out = []
    for i, ev in enumerate(sorted(collected, key=lambda ev: ev.start)):
        fe = made[id(ev)] = FunctionEvent(i + 1, ev, origin)
        if ev.parent is not None and id(ev.parent) in made:
            parent = made[id(ev.parent)]
            fe.cpu_parent = parent
            parent.cpu_children.append(fe)
        out.append(fe)
    for fe in reversed(out):  # children after parents: add each one's total to its parent
        if fe.cpu_parent is not None:
            fe.cpu_parent.cpu_memory_usage += fe.cpu_memory_usage
    return EventList(out, profile_memory=profile_memory, record_shapes=record_shapes)
