"""``torch.distributed._tensor``: the old name of ``torch.distributed.tensor`` (the same
names; PyTorch keeps it for older code, as opacus imports it)."""

from __future__ import annotations

from ..tensor import (
    DeviceMesh,
    DTensor,
    Partial,
    Placement,
    Replicate,
    Shard,
    distribute_module,
    distribute_tensor,
    init_device_mesh,
)

__all__ = [
    "DTensor",
    "DeviceMesh",
    "Partial",
    "Placement",
    "Replicate",
    "Shard",
    "distribute_module",
    "distribute_tensor",
    "init_device_mesh",
]
