"""``torch.fx.passes``: passes over GraphModules (``shape_prop.ShapeProp``,
``split_module.split_module``, ``pass_manager`` and ``infra``'s pass interface)."""

from __future__ import annotations

from . import infra, pass_manager, shape_prop, split_module, split_utils, utils

__all__ = ["infra", "pass_manager", "shape_prop", "split_module", "split_utils", "utils"]
