"""``chainrule.monitor`` (PyTorch's ``torch.monitor``): events, event handlers and windowed
statistics.

``log_event`` hands an ``Event`` to every handler that ``register_event_handler`` added, in
the order they were added. A ``Stat`` aggregates the values ``add`` gives it over a window of
``window_size`` (wall time, millisecond precision, windows aligned to the monotonic clock as
PyTorch's are) and logs the window's aggregates as a ``torch.monitor.Stat`` event when a value
arrives in a later window, when ``max_samples`` values have arrived (the rest of that window's
values are then dropped) or when the ``Stat`` is garbage collected. As in PyTorch,
``Aggregation.VALUE`` adds nothing to a Stat's results, and every result is a float. An
event's data and ``Stat.get()`` list their keys in the order of the C++ hash maps PyTorch
builds them from (``_cxx_order``; for event data of up to 1109 keys).

Where PyTorch's C++ code crashes or hangs (a window under a millisecond, unregistering a
handler twice, a handler that logs an event), chainrule raises an error instead.
"""

from __future__ import annotations

import datetime
import enum
import math
import numbers
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any

from . import _cxx_order

if TYPE_CHECKING:
    from .utils.tensorboard import SummaryWriter

__all__ = [
    "Aggregation",
    "Event",
    "EventHandlerHandle",
    "STAT_EVENT",
    "Stat",
    "TensorboardEventHandler",
    "data_value_t",
    "log_event",
    "register_event_handler",
    "unregister_event_handler",
]

STAT_EVENT = "torch.monitor.Stat"
_INT64_MAX = (1 << 63) - 1
_MASK64 = (1 << 64) - 1


class Aggregation(enum.Enum):
    """The aggregations a ``Stat`` can compute over its window (VALUE computes nothing: in
    PyTorch's binding it is the 'no aggregation' flag)."""

    VALUE = 0
    MEAN = 2
    COUNT = 3
    SUM = 4
    MAX = 5
    MIN = 6

    def __int__(self) -> int:
        return self.value

    def __index__(self) -> int:
        return self.value

    def __hash__(self) -> int:
        return hash(self.value)


# PyTorch's binding exports the members at module level too
VALUE, MEAN, COUNT = Aggregation.VALUE, Aggregation.MEAN, Aggregation.COUNT
SUM, MAX, MIN = Aggregation.SUM, Aggregation.MAX, Aggregation.MIN


class data_value_t:  # noqa: N801 - PyTorch's spelling
    """The type of an ``Event``'s data values: ``str``, ``float``, ``int`` or ``bool`` (a bool
    is stored as a float, as in PyTorch). Not constructible."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("torch._C._monitor.data_value_t: No constructor defined!")


def _incompatible(what: str, signature: str, args: tuple, kwargs: dict | None = None) -> TypeError:
    """pybind11's error for arguments no overload takes."""
    invoked = ", ".join(repr(a) for a in args)
    if kwargs:
        invoked += "; kwargs: " + ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
    return TypeError(
        f"{what}. The following argument types are supported:\n    1. {signature}\n\n"
        f"Invoked with: {invoked}"
    )


def _data_value(v: Any) -> int | float | str | None:
    """``v`` as PyTorch stores an Event's data value (None when it is no data value)."""
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        v = int(v)
        if not -(1 << 63) <= v <= _INT64_MAX:
            raise ValueError("Overflow when unpacking long long")
        return v
    if isinstance(v, (numbers.Real, bool)):
        return float(v)
    if isinstance(v, str):
        return v
    return None


def _data(data: Any) -> dict[str, int | float | str] | None:
    """An Event's data as PyTorch keeps it: converted values, in its C++ map's key order."""
    if not isinstance(data, Mapping):
        return None
    out = {}
    for k, v in data.items():
        value = _data_value(v)
        if not isinstance(k, str) or value is None:
            return None
        out[k] = value
    return {k: out[k] for k in _cxx_order.string_keys(list(out))}


def _timestamp(t: Any) -> datetime.datetime | None:
    """A time point as PyTorch's binding keeps one: a naive local datetime (a timezone is
    dropped, a date is its midnight, a time is that time on 1970-01-01)."""
    if isinstance(t, datetime.datetime):
        return t.replace(tzinfo=None)
    if isinstance(t, datetime.date):
        return datetime.datetime(t.year, t.month, t.day)
    if isinstance(t, datetime.time):
        return datetime.datetime(1970, 1, 1, t.hour, t.minute, t.second, t.microsecond)
    return None


_EVENT_SIGNATURE = (
    "torch._C._monitor.Event(name: str, timestamp: datetime.datetime, "
    "data: collections.abc.Mapping[str, data_value_t])"
)


class Event:
    """A named, timestamped record of data (str keys; str, float, int or bool values) for
    the registered event handlers. Reading ``data`` gives a copy."""

    def __init__(self, name: str, timestamp: datetime.datetime, data: Mapping[str, Any]) -> None:
        stamp, values = _timestamp(timestamp), _data(data)
        if not isinstance(name, str) or stamp is None or values is None:
            raise _incompatible(
                "__init__(): incompatible constructor arguments",
                _EVENT_SIGNATURE,
                (name, timestamp, data),
            )
        self._name, self._timestamp, self._data = name, stamp, values

    def _setter(self, value: Any, converted: Any, kind: str) -> None:
        if converted is None:
            raise _incompatible(
                "(): incompatible function arguments",
                f"(self: torch._C._monitor.Event, arg0: {kind}) -> None",
                (self, value),
            )

    @property
    def name(self) -> str:
        """The event's name."""
        return self._name

    @name.setter
    def name(self, value: str) -> None:
        self._setter(value, value if isinstance(value, str) else None, "str")
        self._name = value

    @property
    def timestamp(self) -> datetime.datetime:
        """When the event happened (a naive local datetime)."""
        return self._timestamp

    @timestamp.setter
    def timestamp(self, value: datetime.datetime) -> None:
        stamp = _timestamp(value)
        self._setter(value, stamp, "datetime.datetime")
        self._timestamp = stamp

    @property
    def data(self) -> dict[str, int | float | str]:
        """The event's data (a copy: change it by assigning a new dict)."""
        return dict(self._data)

    @data.setter
    def data(self, value: Mapping[str, Any]) -> None:
        values = _data(value)
        self._setter(value, values, "collections.abc.Mapping[str, data_value_t]")
        self._data = values


class EventHandlerHandle:
    """What ``register_event_handler`` returns, for ``unregister_event_handler``. Not
    constructible."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("torch._C._monitor.EventHandlerHandle: No constructor defined!")

    @classmethod
    def _wrap(cls, callback: Callable[[Event], None] | None) -> EventHandlerHandle:
        handle = object.__new__(cls)
        handle._callback = callback
        return handle

    def _handle(self, event: Event) -> None:
        if self._callback is None:  # PyTorch's empty std::function
            raise RuntimeError("bad_function_call")
        self._callback(event)


_handlers: list[EventHandlerHandle] = []
_handlers_lock = threading.Lock()


def log_event(event: Event) -> None:
    """Hand ``event`` to every registered handler, in registration order (nothing happens
    when there is none)."""
    if not isinstance(event, Event):
        raise _incompatible(
            "log_event(): incompatible function arguments",
            "(event: torch._C._monitor.Event) -> None",
            (event,),
        )
    with _handlers_lock:
        handlers = list(_handlers)
    for handler in handlers:
        handler._handle(event)


def register_event_handler(callback: Callable[[Event], None]) -> EventHandlerHandle:
    """Call ``callback(event)`` for every event logged from now on; returns the handle that
    ``unregister_event_handler`` takes. Handlers run inside ``log_event``: keep them short."""
    if callback is not None and not callable(callback):
        raise _incompatible(
            "register_event_handler(): incompatible function arguments",
            "(callback: collections.abc.Callable[[torch._C._monitor.Event], None]) -> "
            "torch._C._monitor.EventHandlerHandle",
            (callback,),
        )
    handle = EventHandlerHandle._wrap(callback)
    with _handlers_lock:
        _handlers.append(handle)
    return handle


def unregister_event_handler(handler: EventHandlerHandle) -> None:
    """Stop calling the handler ``register_event_handler`` returned ``handler`` for."""
    if not isinstance(handler, EventHandlerHandle):
        raise _incompatible(
            "unregister_event_handler(): incompatible function arguments",
            "(handler: torch._C._monitor.EventHandlerHandle) -> None",
            (handler,),
        )
    with _handlers_lock:
        for i, h in enumerate(_handlers):
            if h is handler:
                del _handlers[i]
                return
    # (PyTorch's C++ erases past the end of its list here: undefined behaviour, a crash)
    raise ValueError("unregister_event_handler: this handler is not registered")


_STAT_SIGNATURE = (
    "torch._C._monitor.Stat(name: str, aggregations: "
    "collections.abc.Sequence[torch._C._monitor.Aggregation], window_size: datetime.timedelta, "
    "max_samples: typing.SupportsInt | typing.SupportsIndex = 9223372036854775807)"
)
_NAMES = {MEAN: "mean", COUNT: "count", SUM: "sum", MAX: "max", MIN: "min"}


def _window_ms(window_size: Any) -> int | None:
    """A window as whole milliseconds (truncated, as a C++ duration cast), or None."""
    if isinstance(window_size, datetime.timedelta):
        us = (window_size.days * 86400 + window_size.seconds) * 1_000_000
        us += window_size.microseconds
        return us // 1000 if us >= 0 else -(-us // 1000)
    if isinstance(window_size, float) and math.isfinite(window_size):
        return math.trunc(window_size * 1000)  # (seconds)
    return None


class _Window:
    """One window's running values."""

    __slots__ = ("sum", "min", "max", "count")

    def __init__(self) -> None:
        self.sum = self.min = self.max = 0.0
        self.count = 0


class Stat:
    """Summary statistics (``aggregations``) of the values ``add`` gives over windows of
    ``window_size`` (a ``timedelta``, or float seconds), logged as a ``torch.monitor.Stat``
    event whose keys are ``"{name}.{aggregation}"`` when a window closes, when
    ``max_samples`` values have arrived in it, or when the Stat is collected. ``get``
    returns the last logged window's aggregates; ``count`` the open window's number of
    values."""

    def __init__(
        self,
        name: str,
        aggregations: Sequence[Aggregation],
        window_size: datetime.timedelta,
        max_samples: int = _INT64_MAX,
    ) -> None:
        window = _window_ms(window_size)
        ok = isinstance(name, str) and window is not None
        ok = ok and isinstance(aggregations, Sequence) and not isinstance(aggregations, str)
        ok = ok and all(isinstance(a, Aggregation) for a in aggregations)
        ok = ok and isinstance(max_samples, numbers.Integral)
        if ok:
            ok = -(1 << 63) <= int(max_samples) <= _INT64_MAX
        if not ok:
            args = (name, aggregations, window_size)
            kwargs = {} if max_samples is _INT64_MAX else {"max_samples": max_samples}
            raise _incompatible(
                "__init__(): incompatible constructor arguments", _STAT_SIGNATURE, args, kwargs
            )
        self._name = name
        # in aggregation order; VALUE (PyTorch's 'no aggregation' flag) computes nothing,
        # but takes room in the C++ map of results
        self._aggregations = [a for a in _NAMES if a in aggregations]
        self._reserved = len(set(aggregations))
        self._window = window
        self._max_samples = int(max_samples)
        self._lock = threading.RLock()
        self._current = _Window()
        self._previous = _Window()
        self._window_id = 0
        self._last_logged = 0

    @property
    def name(self) -> str:
        """The name given at construction."""
        return self._name

    @property
    def count(self) -> int:
        """How many values the open window holds (0 again once it is logged)."""
        with self._lock:
            return self._current.count

    def add(self, v: float) -> None:
        """Add a value to the open window (dropped once this window logged for reaching
        ``max_samples``)."""
        try:  # (what pybind11 takes as a double: a __float__ or an __index__, not a str)
            if not hasattr(type(v), "__float__") and not hasattr(type(v), "__index__"):
                raise TypeError
            v = float(v)
        except (TypeError, ValueError, OverflowError):
            raise _incompatible(
                "add(): incompatible function arguments",
                "(self: torch._C._monitor.Stat, v: typing.SupportsFloat | typing.SupportsIndex)"
                " -> None",
                (self, v),
            ) from None
        with self._lock:
            self._maybe_log()
            if self._logged_this_window():
                return
            w = self._current
            w.sum += v
            if w.max < v or w.count == 0:
                w.max = v
            if w.min > v or w.count == 0:
                w.min = v
            w.count += 1
            self._maybe_log()

    def get(self) -> dict[Aggregation, float]:
        """The aggregates of the last logged window (zeros before any)."""
        with self._lock:
            return self._results()

    def _results(self) -> dict[Aggregation, float]:
        w = self._previous
        values = {
            MEAN: w.sum / w.count if w.count else 0.0,
            COUNT: float(w.count),
            SUM: w.sum,
            MAX: w.max,
            MIN: w.min,
        }
        # (in the order of the C++ hash map PyTorch's dict comes from)
        keys = self._aggregations
        ordered = _cxx_order.order(keys, [a.value for a in keys], self._reserved)
        return {a: values[a] for a in ordered}

    def _current_window(self) -> int:
        if self._window == 0:  # (PyTorch's C++ divides by zero here: a crash)
            raise ZeroDivisionError("torch.monitor.Stat: window_size is under a millisecond")
        now = time.monotonic_ns() // 1_000_000
        q = abs(now) // abs(self._window)
        q = q if (now < 0) == (self._window < 0) else -q
        return (q + 1) & _MASK64

    def _logged_this_window(self) -> bool:
        return self._last_logged == self._current_window()

    def _maybe_log(self) -> None:
        window = self._current_window()
        due = self._window_id != window or self._current.count >= self._max_samples
        if due and not self._logged_this_window():
            self._log()
            self._last_logged = self._window_id
            self._window_id = window

    def _log(self) -> None:
        self._previous, self._current = self._current, _Window()
        if self._previous.count == 0:
            return
        data = {f"{self._name}.{_NAMES[a]}": v for a, v in self._results().items()}
        log_event(Event(STAT_EVENT, datetime.datetime.now(), data))

    def __del__(self) -> None:
        # a Stat logs what its open window holds when it goes away, as PyTorch's does
        lock = getattr(self, "_lock", None)
        if lock is not None:
            with lock:
                self._log()


class TensorboardEventHandler:
    """An event handler that writes ``torch.monitor.Stat`` events to a ``SummaryWriter``, one
    scalar per key, at the event's time."""

    def __init__(self, writer: SummaryWriter) -> None:
        self._writer = writer

    def __call__(self, event: Event) -> None:
        if event.name == STAT_EVENT:
            for key, value in event.data.items():
                self._writer.add_scalar(key, value, walltime=event.timestamp.timestamp())


class _WaitCounterTracker:
    """The context manager ``_WaitCounter.guard`` returns. PyTorch's CPU build registers no
    wait-counter backend, so entering and leaving it records nothing there either."""

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        exc_type: type[BaseException] | None = None,
        exc_value: BaseException | None = None,
        traceback: TracebackType | None = None,
    ) -> None:
        return None


class _WaitCounter:
    """A named wait counter (PyTorch-internal); see ``_WaitCounterTracker``."""

    def __init__(self, key: str) -> None:
        self._key = key

    def guard(self) -> _WaitCounterTracker:
        return _WaitCounterTracker()
