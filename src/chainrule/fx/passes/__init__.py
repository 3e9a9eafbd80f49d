"""``torch.fx.passes``: passes over GraphModules (``shape_prop.ShapeProp``)."""

from __future__ import annotations

from . import shape_prop

__all__ = ["shape_prop"]
