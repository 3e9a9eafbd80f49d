"""``torch.fx.passes.utils``: helpers for passes that make submodules (``common``)."""

from __future__ import annotations

from . import common
from .common import HolderModule, lift_subgraph_as_module

__all__ = ["HolderModule", "common", "lift_subgraph_as_module"]
