"""``torch.distributed._composable.fsdp``: FSDP2's names, as in ``torch.distributed.fsdp``."""

from __future__ import annotations

from ...fsdp import (
    CPUOffloadPolicy,
    FSDPModule,
    MixedPrecisionPolicy,
    OffloadPolicy,
    fully_shard,
)

__all__ = [
    "CPUOffloadPolicy",
    "FSDPModule",
    "MixedPrecisionPolicy",
    "OffloadPolicy",
    "fully_shard",
]
