"""``torch.distributed.fsdp``: FSDP's policy values; chainrule does not shard modules.

``MixedPrecisionPolicy``, ``OffloadPolicy`` and ``CPUOffloadPolicy`` are the plain
dataclasses PyTorch has. ``fully_shard`` and ``FullyShardedDataParallel`` raise
``NotImplementedError`` naming the gap; ``FSDPModule`` exists for ``isinstance`` checks
(no chainrule module is one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .fully_sharded_data_parallel import _MISSING, FullyShardedDataParallel

__all__ = [
    "CPUOffloadPolicy",
    "FSDPModule",
    "FullyShardedDataParallel",
    "MixedPrecisionPolicy",
    "OffloadPolicy",
    "fully_shard",
]


@dataclass(frozen=True)
class MixedPrecisionPolicy:
    """The dtypes FSDP2 computes, reduces and outputs in."""

    param_dtype: Any = None
    reduce_dtype: Any = None
    output_dtype: Any = None
    cast_forward_inputs: bool = True


@dataclass
class OffloadPolicy:
    """No offloading (the base of the offload policies)."""


@dataclass
class CPUOffloadPolicy(OffloadPolicy):
    """Keep sharded parameters on the CPU (``pin_memory``: in pinned memory)."""

    pin_memory: bool = True


class FSDPModule:
    """The class ``fully_shard`` mixes into a module; chainrule never makes one."""


def fully_shard(*args: Any, **kwargs: Any) -> Any:
    """Not implemented by chainrule: raises ``NotImplementedError``."""
    raise NotImplementedError(_MISSING.format("fully_shard"))
