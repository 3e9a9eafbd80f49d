"""``torch.profiler``: where the time of a program goes, op by op.

``with profile(...) as prof:`` records each op call made inside it as an event named
``aten::<op name>`` (chainrule's op names are PyTorch's aten names where they match:
``aten::mm``, ``aten::addmm``, ``aten::relu``), and each ``record_function(name)`` range as
an event of its own; ``prof.key_averages().table(...)`` prints them as PyTorch's table,
``prof.export_chrome_trace(path)`` writes a Chrome trace.

Differs from PyTorch: events are the calls of chainrule's ops, not of PyTorch's dispatcher,
so composite functions PyTorch records as an aten op of their own (``aten::linear``, with
``aten::t`` and ``aten::addmm`` inside) show only the ops chainrule runs (``aten::t``,
``aten::addmm``); ops joining a sequence (cat, stack) and the backward pass are not
recorded; an op whose forward its caller ran (``F.linear``'s addmm) is timed for its
recording step only; only CPU time is measured.
"""

from __future__ import annotations

from .collector import record_function
from .events import EventList, FunctionEvent, FunctionEventAvg
from .profiler import profile, tensorboard_trace_handler
from .schedule import ProfilerAction, ProfilerActivity, schedule, supported_activities


def kineto_available() -> bool:
    """False: chainrule's profiler records its own ops, without PyTorch's Kineto library."""
    return False


__all__ = [
    "EventList",
    "FunctionEvent",
    "FunctionEventAvg",
    "ProfilerAction",
    "ProfilerActivity",
    "kineto_available",
    "profile",
    "record_function",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
]
