"""``torch.profiler.profile``: a context manager that records the ops run inside it, step
by step as its schedule says, and hands each recorded cycle to ``on_trace_ready``."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Iterable
from typing import Any

from .collector import Collector, record_function
from .events import EventList, event_list
from .schedule import ProfilerAction, _default_schedule

_RECORDING = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)


class profile:  # noqa: N801 (PyTorch's name)
    """Record the ops run inside ``with profile(...) as prof:`` (CPU time, and as asked
    input shapes, memory made, Python stacks).

    With a ``schedule``, ``prof.step()`` ends a step: the steps whose action is RECORD or
    RECORD_AND_SAVE are recorded, each inside a ``ProfilerStep#<n>`` range, and at the end
    of a cycle (its RECORD_AND_SAVE step, or the exit while recording) ``on_trace_ready(prof)``
    is called with the cycle's events. Without one, every step records.

    Differs from PyTorch: only CPU activity is traced (CUDA and the others are accepted and
    add nothing); ``with_flops`` and ``with_modules`` are accepted and add no column; events
    are chainrule's op calls, which are not always the aten ops PyTorch calls (see
    ``chainrule.profiler``'s docstring); memory counts the arrays ops make, never frees;
    input shapes list the tensor inputs (``[]`` for a number), not PyTorch's scalar
    arguments such as addmm's beta and alpha; a profile opened inside another records its
    own ops and the outer one records again after it (PyTorch's outer profile ends with
    nothing recorded).
    """

    def __init__(
        self,
        *,
        activities: Iterable | None = None,
        schedule: Callable[[int], ProfilerAction] | None = None,
        on_trace_ready: Callable[..., Any] | None = None,
        record_shapes: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_flops: bool = False,
        with_modules: bool = False,
        experimental_config: Any = None,
        execution_trace_observer: Any = None,
        acc_events: bool = False,
        use_cuda: bool | None = None,
        custom_trace_id_callback: Callable[[], str] | None = None,
        post_processing_timeout_s: float | None = None,
    ) -> None:
        self.activities = set(activities) if activities is not None else None
        self.record_steps = schedule is not None
        self.schedule = schedule or _default_schedule
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self.acc_events = acc_events
        self.step_num = 0
        self.current_action = self.schedule(0)
        self._collector: Collector | None = None
        self._step_range: record_function | None = None
        self._events: EventList | None = None
        self._kept: list = []  # with acc_events: the events of earlier cycles

    # ----- the context ----------------------------------------------------------------

    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def start(self) -> None:
        """Begin: step 0, recording if its action says so."""
        if self.current_action in _RECORDING:
            self._begin()
        self._open_step()

    def stop(self) -> None:
        """End: a cycle still recording is finished (and handed to on_trace_ready)."""
        self._close_step()
        if self._collector is not None:
            self._finish()

    def step(self) -> None:
        """End the current step and begin the next, as the schedule says."""
        self._close_step()
        previous = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        recording = self.current_action in _RECORDING
        if previous == ProfilerAction.RECORD_AND_SAVE or (previous in _RECORDING and not recording):
            self._finish()
        if recording and self._collector is None:
            self._begin()
        self._open_step()

    # ----- cycles -----------------------------------------------------------------------

    def _begin(self) -> None:
        self._collector = Collector(self.record_shapes, self.profile_memory, self.with_stack)
        self._collector.start()

    def _finish(self) -> None:
        collector = self._collector
        self._collector = None
        collector.stop()
        events = collector.events
        if self.acc_events:
            self._kept.extend(events)
            events = self._kept
        self._events = event_list(events, self.profile_memory, self.record_shapes)
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def _open_step(self) -> None:
        if self.record_steps and self._collector is not None:
            self._step_range = record_function(f"ProfilerStep#{self.step_num}")
            self._step_range.__enter__()

    def _close_step(self) -> None:
        if self._step_range is not None:
            self._step_range.__exit__(None, None, None)
            self._step_range = None

    # ----- results ----------------------------------------------------------------------

    def events(self) -> EventList:
        """The last recorded cycle's events, in start order."""
        if self._events is None:
            raise AssertionError("Profiler must be initialized before getting events")
        return self._events

    def key_averages(
        self,
        group_by_input_shape: bool = False,
        group_by_stack_n: int = 0,
        group_by_overload_name: bool = False,
    ) -> EventList:
        """The events averaged per name (and input shapes, and innermost stack entries)."""
        return self.events().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path: str) -> None:
        """Write the recorded events as a Chrome trace (JSON)."""
        self.events().export_chrome_trace(path)

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        """Write each event's stack, outermost first, and its ``metric`` per line (the
        folded format flame graph tools read); needs ``with_stack=True``."""
        if not self.with_stack:
            raise AssertionError("export_stacks() requires with_stack=True")
        with open(path, "w") as f:
            for e in self.events():
                if e.stack:
                    f.write(";".join(reversed(e.stack)) + f" {int(getattr(e, metric))}\n")

    def __repr__(self) -> str:
        return f"<chainrule.profiler.profile step_num={self.step_num}>"


def tensorboard_trace_handler(
    dir_name: str,
    worker_name: str | None = None,
    use_gzip: bool = False,
    use_python_export: bool = False,
) -> Callable[[profile], None]:
    """An ``on_trace_ready`` that writes each cycle's Chrome trace to
    ``dir_name/<worker_name>.<ms since epoch>.pt.trace.json`` (``.gz`` with ``use_gzip``);
    the worker name defaults to ``<host name>_<process id>``."""

    def handler(prof: profile) -> None:
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker}.{time.time_ns() // 1_000_000}.pt.trace.json"
        path = os.path.join(dir_name, name)
        if use_gzip:
            import gzip
            import shutil

            prof.export_chrome_trace(path)
            with open(path, "rb") as src, gzip.open(path + ".gz", "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.remove(path)
        else:
            prof.export_chrome_trace(path)

    return handler
