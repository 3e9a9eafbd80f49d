"""``torch.distributed.tensor``: the placement types (plain values, as in PyTorch) and the
``DTensor`` name; chainrule has no device meshes, so no DTensor can be made (making one
raises ``NotImplementedError``)."""

from __future__ import annotations

from ..device_mesh import DeviceMesh, init_device_mesh
from ._api import DTensor, distribute_module, distribute_tensor
from .placement_types import Partial, Placement, Replicate, Shard

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
