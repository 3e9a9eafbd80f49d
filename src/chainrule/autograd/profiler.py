"""``torch.autograd.profiler``: the older spellings of ``torch.profiler``'s profile and
record_function, and ``emit_nvtx`` (NVTX ranges for NVIDIA's tools: nothing to emit on the
CPU, so a context that does nothing)."""

from __future__ import annotations

from typing import Any

from ..profiler import profiler as _profiler
from ..profiler.collector import record_function
from ..profiler.events import EventList, FunctionEvent, FunctionEventAvg

__all__ = [
    "EventList",
    "FunctionEvent",
    "FunctionEventAvg",
    "emit_nvtx",
    "profile",
    "record_function",
]


class profile(_profiler.profile):  # noqa: N801 (PyTorch's name)
    """The older profiler: records every op inside it (no schedule); ``enabled=False``
    records nothing. ``use_cuda``/``use_device`` add nothing: CPU time only."""

    def __init__(
        self,
        enabled: bool = True,
        *,
        use_cuda: bool = False,
        use_device: str | None = None,
        record_shapes: bool = False,
        with_flops: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_modules: bool = False,
        use_kineto: bool = False,
        use_cpu: bool = True,
        experimental_config: Any = None,
        acc_events: bool = False,
        custom_trace_id_callback: Any = None,
        post_processing_timeout_s: float | None = None,
        activity_filters: Any = None,
    ) -> None:
        super().__init__(
            record_shapes=record_shapes,
            profile_memory=profile_memory,
            with_stack=with_stack,
            with_flops=with_flops,
            with_modules=with_modules,
        )
        self.enabled = enabled

    def __enter__(self) -> profile:
        if self.enabled:
            self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.enabled:
            self.stop()

    def table(self, sort_by: str | None = None, row_limit: int = 100, **kwargs: Any) -> str:
        """The events' table (one row per call, not averaged)."""
        return self.events().table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    @property
    def function_events(self) -> EventList:
        """The recorded events."""
        return self.events()

    @property
    def self_cpu_time_total(self) -> float:
        """The sum of the events' self times, in microseconds."""
        return self.events().self_cpu_time_total

    def total_average(self) -> FunctionEventAvg:
        """All events summed into one average."""
        return self.events().total_average()

    def __str__(self) -> str:
        return self.table()


class emit_nvtx:  # noqa: N801 (PyTorch's name)
    """NVTX ranges around each op for NVIDIA's profilers: there is no GPU here, so the
    context does nothing."""

    def __init__(self, enabled: bool = True, record_shapes: bool = False) -> None:
        self.enabled = enabled
        self.record_shapes = record_shapes

    def __enter__(self) -> emit_nvtx:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None
