"""``torch.distributed.tensor._utils``: the shard arithmetic of a DTensor's local part."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .placement_types import Placement, Shard, _StridedShard

__all__ = ["compute_local_shape_and_global_offset"]


def compute_local_shape_and_global_offset(
    global_shape: Sequence[int],
    mesh: Any,
    placements: Sequence[Placement],
    skip_offset: bool = False,
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The shape of this rank's local part of a tensor of ``global_shape`` laid out by
    ``placements`` over ``mesh``, and where it starts in the global tensor (``()`` when
    ``skip_offset``). A rank outside the mesh gets ``((0,), ())``."""
    coordinate = mesh.get_coordinate()
    if coordinate is None:
        return (0,), ()
    local = list(global_shape)
    offset = [0] * len(local)
    for mesh_dim, placement in enumerate(placements):
        if isinstance(placement, _StridedShard):
            raise NotImplementedError(
                "chainrule does not implement _StridedShard placements "
                "(compute_local_shape_and_global_offset)"
            )
        if isinstance(placement, Shard):
            dim = placement.dim
            size, start = Shard.local_shard_size_and_offset(
                local[dim], mesh.shape[mesh_dim], coordinate[mesh_dim]
            )
            local[dim] = size
            offset[dim] += start
    return tuple(local), (() if skip_offset else tuple(offset))
