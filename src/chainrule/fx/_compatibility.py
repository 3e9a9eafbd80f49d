"""``torch.fx._compatibility``: the decorator that marks an FX API as backward compatible
(or not). PyTorch records the mark in the docstring; chainrule returns the object as is."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["compatibility"]


def compatibility(is_backward_compatible: bool) -> Callable[[Any], Any]:
    """A decorator giving back what it decorates (the mark is documentation only)."""

    def mark(fn: Any) -> Any:
        return fn

    return mark
