"""``chainrule.cpu`` (PyTorch's ``torch.cpu``): the CPU as a device module, the way
``torch.cuda`` describes GPUs: one device, always available, whose work is done when a call
returns (streams and events exist for code written against the device-generic API), and
``amp``, the deprecated ``torch.cpu.amp`` spellings of ``torch.amp``."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from . import amp

__all__ = [
    "Event",
    "Stream",
    "StreamContext",
    "amp",
    "current_device",
    "current_stream",
    "device_count",
    "is_available",
    "is_initialized",
    "set_device",
    "stream",
    "synchronize",
]


def is_available() -> bool:
    """Always True: the CPU is there."""
    return True


def is_initialized() -> bool:
    """Always True: the CPU needs no initialization."""
    return True


def device_count() -> int:
    """One: every CPU core is one device, as in PyTorch."""
    return 1


def current_device() -> str:
    return "cpu"


def set_device(device: Any) -> None:
    """Accepted and ignored: there is one CPU device."""


def synchronize(device: Any = None) -> None:
    """Nothing to wait for: CPU work is done when its call returns."""


class Stream:
    """A CPU stream: the one order work runs in (``wait_stream``, ``synchronize`` and the
    rest return at once, as PyTorch's do)."""

    def __init__(self, priority: int = -1) -> None:
        self.priority = priority

    def wait_stream(self, stream: Stream) -> None:
        pass

    def record_event(self, event: Event | None = None) -> Event:
        return event if event is not None else Event()

    def wait_event(self, event: Event) -> None:
        pass

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        pass


class Event:
    """A CPU event: complete as soon as it is recorded."""

    def record(self, stream: Stream | None = None) -> None:
        pass

    def query(self) -> bool:
        return True

    def wait(self, stream: Stream | None = None) -> None:
        pass

    def synchronize(self) -> None:
        pass


_default_stream = Stream()


def current_stream(device: Any = None) -> Stream:
    return _default_stream


class StreamContext(contextlib.AbstractContextManager):
    """``with StreamContext(s)``: work inside runs on ``s`` (on the CPU: as it would)."""

    def __init__(self, stream: Stream | None) -> None:
        self.stream = stream

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


@contextlib.contextmanager
def stream(stream: Stream | None) -> Iterator[None]:
    with StreamContext(stream):
        yield
