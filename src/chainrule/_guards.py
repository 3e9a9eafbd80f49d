"""``torch._guards``: what PyTorch's compiler tracks while tracing, as libraries query it.
chainrule has no fake tensors and traces nothing, so no fake mode is ever active."""

from __future__ import annotations

from typing import Any

__all__ = ["active_fake_mode"]


def active_fake_mode() -> Any:
    """The fake tensor mode in effect: ``None`` (PyTorch's answer outside tracing; chainrule
    has no fake tensor mode)."""
    return None
