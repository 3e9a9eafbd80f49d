"""``torch.autograd._profiler_enabled`` and ``_disable_profiler``: whether a profiler is
recording now, and stopping it from outside its ``profile`` object."""

from __future__ import annotations

import warnings
from typing import Any

from ..profiler import collector as _collector

__all__ = ["_KinetoEvent", "_ProfilerResult", "_disable_profiler", "_profiler_enabled"]


def _profiler_enabled() -> bool:
    """Whether a profiler (``torch.profiler.profile`` or ``torch.autograd.profiler.profile``)
    is recording ops now."""
    return _collector.ACTIVE[0] is not None


class _KinetoEvent:
    """One recorded call, read through PyTorch's methods (a subset of them): ``name()``,
    ``start_ns()``, ``end_ns()``, ``duration_ns()``, ``shapes()``,
    ``is_user_annotation()``."""

    def __init__(self, event: Any) -> None:
        self._event = event

    def name(self) -> str:
        return self._event.name

    def start_ns(self) -> int:
        return self._event.start

    def end_ns(self) -> int:
        return self._event.end

    def duration_ns(self) -> int:
        return self._event.end - self._event.start

    def shapes(self) -> list:
        return list(self._event.input_shapes)

    def is_user_annotation(self) -> bool:
        return self._event.is_user_annotation


class _ProfilerResult:
    """What :func:`_disable_profiler` stopped: its events, in start order (``events()``)."""

    def __init__(self, events: list) -> None:
        self._events = sorted(events, key=lambda ev: ev.start)

    def events(self) -> list[_KinetoEvent]:
        return [_KinetoEvent(ev) for ev in self._events]


def _disable_profiler() -> _ProfilerResult:
    """Stop the profiler recording now (the innermost one) and give its events; where none
    is recording, PyTorch's warning and no events. The ``profile`` object that started it
    can still be exited."""
    active = _collector.ACTIVE[0]
    if active is None:
        warnings.warn(
            "disableProfiler called but no active profiling session found. This can happen "
            "if profiling was cancelled during warmup.",
            stacklevel=2,
        )
        return _ProfilerResult([])
    active.stop()
    return _ProfilerResult(active.events)
