"""``functorch.experimental.control_flow``: ``cond`` and ``map``, the control-flow operators
of chainrule/_higher_order_ops under their older home."""

from __future__ import annotations

from ..._higher_order_ops import cond, map  # noqa: A004 - PyTorch's name

__all__ = ["cond", "map"]
