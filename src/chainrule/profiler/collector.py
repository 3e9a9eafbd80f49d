"""The collector: while a profiler records, every op call becomes an event.

An event is one call: its name (``aten::<op name>`` for an op, the given name for a
``record_function``), its start and end on the clock, the events it called (its children)
and, as asked, its inputs' shapes and the bytes of the arrays it made. The collector is set
as ``recording.PROFILER`` and marks ``_modes`` (reason ``"profiler"``), so ops take their
general path (``Op._slow``, ``Op._wrap``) and call it; with no profiler recording, the ops'
usual path reads one flag and nothing here runs.

Times: total = end - start; self = total - the children's totals. Memory: an event's self
memory is the bytes of the arrays its op returned that own their memory (a view makes
none); its memory also counts its children's.
"""

from __future__ import annotations

import threading
import time
import traceback
from typing import Any

from .. import _modes
from .._backend import ndarray
from .._tensor import Tensor
from ..autograd import recording

_clock = time.perf_counter_ns


class Event:
    """One call, as collected: name, [start, end) in ns, nesting, shapes, bytes, stack."""

    __slots__ = (
        "name",
        "start",
        "end",
        "thread",
        "parent",
        "children",
        "input_shapes",
        "self_bytes",
        "stack",
        "is_user_annotation",
        "op",
    )

    def __init__(self, name: str, thread: int, parent: Event | None, op: Any = None) -> None:
        self.name = name
        self.thread = thread
        self.parent = parent
        self.children: list[Event] = []
        self.input_shapes: list = []
        self.self_bytes = 0
        self.stack: list[str] = []
        self.is_user_annotation = op is None
        self.op = op
        self.start = self.end = 0


def _shape_of(a: Any) -> list:
    """An input's shape as PyTorch's profiler lists it: a tensor's sizes, else []."""
    if isinstance(a, Tensor):
        return list(a._data.shape)
    if isinstance(a, (list, tuple)) and a and isinstance(a[0], Tensor):
        return [list(t._data.shape) for t in a]
    return []


def _bytes_made(result: Any) -> int:
    """Bytes of the arrays in ``result`` that own their memory (a view's are its base's)."""
    if isinstance(result, Tensor):
        data = result._data
        return data.nbytes if data.__class__ is ndarray and data.base is None else 0
    if isinstance(result, tuple):
        return sum(_bytes_made(r) for r in result)
    return 0


def _user_stack() -> list[str]:
    """The calling Python frames outside chainrule, innermost first, as ``file(line): fn``."""
    frames = traceback.extract_stack()
    return [
        f"{f.filename}({f.lineno}): {f.name}"
        for f in reversed(frames)
        if "/chainrule/" not in f.filename and not f.filename.startswith("<frozen ")
    ]


class _Open(threading.local):
    stack: list | None = None  # this thread's open events, innermost last


class Collector:
    """Collects events while on (``start``/``stop``): the hook ``recording.PROFILER`` calls."""

    def __init__(self, record_shapes: bool, profile_memory: bool, with_stack: bool) -> None:
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.events: list[Event] = []
        self._open = _Open()
        self._outer: Collector | None = None
        self._hook: Any = None  # the op hook before this one (a FlopCounterMode's, say)

    # ----- on and off -----------------------------------------------------------------

    def start(self) -> None:
        """Make ops report to this collector (a profile inside another one: until it stops,
        then to the outer one again)."""
        self._outer = ACTIVE[0]
        self._hook = recording.PROFILER[0]
        ACTIVE[0] = self
        recording.PROFILER[0] = self
        _modes.mark("profiler", True)

    def stop(self) -> None:
        """Ops no longer report here; events still open are closed now."""
        now = _clock()
        stack = self._open.stack
        while stack:
            stack.pop().end = now
        if ACTIVE[0] is self:
            outer = self._outer
            ACTIVE[0] = outer
            recording.PROFILER[0] = self._hook
            _modes.mark("profiler", outer is not None)

    # ----- events ---------------------------------------------------------------------

    def begin(self, name: str, op: Any = None, args: tuple = ()) -> Event:
        """Open an event, nested in this thread's innermost open one."""
        stack = self._open.stack
        if stack is None:
            stack = self._open.stack = []
        parent = stack[-1] if stack else None
        ev = Event(name, threading.get_ident(), parent, op)
        if parent is not None:
            parent.children.append(ev)
        if self.record_shapes:
            ev.input_shapes = [_shape_of(a) for a in args]
        if self.with_stack:
            ev.stack = _user_stack()
        self.events.append(ev)
        stack.append(ev)
        ev.start = _clock()
        return ev

    def end(self, ev: Event, result: Any = None) -> None:
        """Close ``ev`` (and any event opened inside it and left open)."""
        ev.end = now = _clock()
        stack = self._open.stack
        while stack:
            top = stack.pop()
            if top is ev:
                break
            top.end = now
        if self.profile_memory and result is not None:
            ev.self_bytes = _bytes_made(result)

    # ----- the hook recording.PROFILER --------------------------------------------------

    def open(self, op: Any) -> bool:
        """Whether this thread's innermost open event is a call of ``op``."""
        stack = self._open.stack
        return bool(stack) and stack[-1].op is op

    def call(self, op: Any, args: tuple, params: dict) -> Any:
        """``op(*args, **params)`` on its general path, inside an event."""
        ev = self.begin("aten::" + op.name, op, args)
        result = None
        try:
            result = op._slow(args, params, True)
        finally:
            self.end(ev, result)
        return result

    def run(self, op: Any, call: Any, args: tuple) -> Any:
        """``call()``, a call of ``op`` on ``args`` that recording.py does not see (an op
        over a sequence of tensors: cat, stack), inside an event; ``call`` calls ``op``
        again, which ``open(op)`` then tells apart."""
        ev = self.begin("aten::" + op.name, op, args)
        result = None
        try:
            result = call()
        finally:
            self.end(ev, result)
        return result

    def node(self, node: Any, grad_outputs: list, create_graph: bool) -> Any:
        """``node.apply(grad_outputs, create_graph)``, the backward engine running ``node``,
        inside an event named as PyTorch names it (``autograd::engine::evaluate_function:
        MulBackward0``)."""
        ev = self.begin("autograd::engine::evaluate_function: " + type(node).__name__, node)
        try:
            return node.apply(grad_outputs, create_graph)
        finally:
            self.end(ev)

    def wrap(self, op: Any, args: tuple, arrays: Any, params: dict, out: Any) -> Any:
        """``op._wrap`` inside an event, for a caller that ran op's forward itself (the
        event's time is the recording step's alone)."""
        ev = self.begin("aten::" + op.name, op, args)
        result = None
        try:
            result = op._wrap(args, arrays, params, out)
        finally:
            self.end(ev, result)
        return result


ACTIVE: list = [None]  # the collector recording now, or None


class record_function:  # noqa: N801 (PyTorch's name)
    """A named range of its own in the profile: a context manager or a decorator. Outside a
    recording profiler it does nothing."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.args = args
        self._event: Event | None = None
        self._collector: Collector | None = None

    def __enter__(self) -> record_function:
        collector = ACTIVE[0]
        if collector is not None:
            self._collector = collector
            self._event = collector.begin(self.name)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._event is not None:
            self._collector.end(self._event)
            self._event = self._collector = None

    def __call__(self, fn: Any) -> Any:
        import functools

        @functools.wraps(fn)
        def recorded(*args: Any, **kwargs: Any) -> Any:
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)

        return recorded
