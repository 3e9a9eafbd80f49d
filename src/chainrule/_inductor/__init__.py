"""``torch._inductor``: the compiler behind ``torch.compile``. chainrule runs compiled
code eagerly, so nothing is compiled and no CUDA graphs are recorded; what a library calls
around a compiled model (``cudagraph_mark_step_begin``) works, the rest is missing."""

from __future__ import annotations

from typing import Any

__all__ = ["cudagraph_mark_step_begin"]

# (the count of marked steps, as PyTorch's cudagraph trees keep it; nothing reads it
# here, there being no CUDA graphs)
_mark_step_counter = 0


def cudagraph_mark_step_begin() -> None:
    """Indicates that a new iteration of inference or training is about to begin (for the
    CUDA graphs of compiled models, which chainrule never records)."""
    global _mark_step_counter
    _mark_step_counter -= 1


def __getattr__(name: str) -> Any:
    from chainrule._missing import missing

    raise missing("torch._inductor", name)
