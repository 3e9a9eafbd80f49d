"""``torch.Stream`` and ``torch.Event``: the device-generic stream and event classes.

chainrule runs every op synchronously on the host, so a CPU (or meta) stream has nothing
queued: ``query`` is always true and ``synchronize`` returns at once, as on PyTorch's CPU
build. What PyTorch's CPU backend refuses (events recorded on a stream, native handles)
raises the same ``RuntimeError`` here; other device types raise as on a CPU-only build.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Event", "Stream"]

_HOST = ("cpu", "meta")
# (c10's DeviceType numbering, which ``Stream.device_type`` reports)
_TYPES = (
    "cpu cuda mkldnn opengl opencl ideep hip fpga maia xla vulkan metal xpu mps meta hpu ve "
    "lazy ipu mtia privateuseone"
).split()


def _device_type(device: Any) -> str:
    """The device type of a stream's or event's ``device`` argument (cpu when omitted)."""
    if device is None:
        return "cpu"
    if isinstance(device, int):
        raise RuntimeError("Cannot access accelerator device when none is available.")
    from ._tensor import device as make_device

    kind = make_device(device).type
    if kind not in _HOST:
        raise RuntimeError(f"PyTorch is not linked with support for {kind} devices")
    return kind


def _no_events() -> RuntimeError:
    return RuntimeError("cpu backend doesn't support events.")


class Stream:
    """A queue of work on a device; on the host every op has finished when it returns."""

    def __init__(
        self,
        device: Any = None,
        *,
        priority: int = 0,
        stream_id: int | None = None,
        device_index: int | None = None,
        device_type: int | None = None,
    ) -> None:
        if stream_id is not None:  # (the low-level form: a stream by its numbers)
            self._kind = _TYPES[device_type or 0]
            self.device_index = -1 if device_index is None else device_index
            self.stream_id = stream_id
            return
        self._kind = _device_type(device)
        self.device_index = -1
        self.stream_id = 0

    @property
    def device_type(self) -> int:
        """The number of the stream's device type (0 for the CPU)."""
        return _TYPES.index(self._kind)

    @property
    def device(self) -> Any:
        """The stream's device."""
        from ._tensor import device as make_device

        if self.device_index < 0:
            return make_device(self._kind)
        return make_device(self._kind, self.device_index)

    @property
    def native_handle(self) -> int:
        """Refused, as by PyTorch's CPU backend."""
        raise RuntimeError("Backend doesn't support getting stream native handle.")

    def query(self) -> bool:
        """Whether all work queued on the stream has finished (always, on the host)."""
        return True

    def synchronize(self) -> None:
        """Wait for the stream's work: nothing is ever pending on the host."""

    def is_capturing(self) -> bool:
        """Whether a graph capture is under way (never, on the host)."""
        return False

    def wait_stream(self, stream: Stream) -> None:
        """Refused, as by PyTorch's CPU backend (waiting records an event on ``stream``)."""
        raise _no_events()

    def wait_event(self, event: Event) -> None:
        """Make later work wait for ``event``: an unrecorded event is complete."""

    def record_event(self, event: Event | None = None) -> Event:
        """Refused, as by PyTorch's CPU backend (it has no events)."""
        raise _no_events()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Stream):
            return NotImplemented
        mine = (self.device_type, self.device_index, self.stream_id)
        return mine == (other.device_type, other.device_index, other.stream_id)

    def __hash__(self) -> int:
        return hash((self.device_type, self.device_index, self.stream_id))

    def __repr__(self) -> str:
        return (
            f"torch.Stream device_type={self._kind}, "
            f"device_index={self.device_index}, stream_id={self.stream_id}"
        )


class Event:
    """A mark in a stream's queue; the host backend cannot record one (as PyTorch's CPU)."""

    def __init__(
        self,
        device: Any = None,
        *,
        enable_timing: bool = False,
        blocking: bool = False,
        interprocess: bool = False,
    ) -> None:
        self._device_type = _device_type(device)
        self.event_flag = 1 if enable_timing else 0
        self.event_id = 0

    @property
    def device(self) -> Any:
        """The event's device."""
        from ._tensor import device as make_device

        return make_device(self._device_type)

    def query(self) -> bool:
        """Whether the event's work has finished (an unrecorded event has)."""
        return True

    def record(self, stream: Stream | None = None) -> None:
        """Refused, as by PyTorch's CPU backend (it has no events)."""
        raise _no_events()

    def synchronize(self) -> None:
        """Wait for the event: an unrecorded event is complete."""

    def wait(self, stream: Stream | None = None) -> None:
        """Make ``stream`` wait for the event: an unrecorded event is complete."""

    def elapsed_time(self, end_event: Event) -> float:
        """Refused: it needs two timing events, recorded (host events never are)."""
        if not (self.event_flag and end_event.event_flag):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        raise ValueError("Both events must be recorded before calculating elapsed time.")

    def ipc_handle(self) -> Any:
        """Not supported by PyTorch either."""
        raise NotImplementedError(
            "torch.Event ipc is not supported yet, please open an issue if you need this!"
        )

    def __repr__(self) -> str:
        return (
            f"torch.Event device_type={self._device_type}, device_index=-1, "
            f"event_flag={self.event_flag}, event_id={self.event_id}"
        )
