"""``torch.distributed.fsdp``: FSDP's policy values; chainrule does not shard modules.

``MixedPrecisionPolicy``, ``OffloadPolicy`` and ``CPUOffloadPolicy`` are the plain
dataclasses PyTorch has, as are FSDP version 1's ``CPUOffload``, ``ShardingStrategy`` and
``BackwardPrefetch`` (and the auto-wrap policies of ``fsdp.wrap``). ``fully_shard`` and
``FullyShardedDataParallel`` raise ``NotImplementedError`` naming the gap; ``FSDPModule``
exists for ``isinstance`` checks (no chainrule module is one).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from .fully_sharded_data_parallel import _MISSING, FullyShardedDataParallel

__all__ = [
    "BackwardPrefetch",
    "CPUOffload",
    "CPUOffloadPolicy",
    "FSDPModule",
    "FullyShardedDataParallel",
    "MixedPrecisionPolicy",
    "OffloadPolicy",
    "ShardingStrategy",
    "fully_shard",
]


class ShardingStrategy(enum.Enum):
    """What FSDP (version 1) shards: parameters, gradients and optimizer state, or less."""

    FULL_SHARD = enum.auto()
    SHARD_GRAD_OP = enum.auto()
    NO_SHARD = enum.auto()
    HYBRID_SHARD = enum.auto()
    _HYBRID_SHARD_ZERO2 = enum.auto()


class BackwardPrefetch(enum.Enum):
    """When FSDP (version 1) gathers the next parameters in the backward pass."""

    BACKWARD_PRE = enum.auto()
    BACKWARD_POST = enum.auto()


@dataclass
class CPUOffload:
    """FSDP (version 1)'s offloading setting: keep parameters on the CPU."""

    offload_params: bool = False


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
