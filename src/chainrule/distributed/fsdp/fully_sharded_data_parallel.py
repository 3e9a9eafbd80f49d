"""``torch.distributed.fsdp.fully_sharded_data_parallel``: FSDP1's wrapper; not
implemented by chainrule (making one raises ``NotImplementedError`` naming the gap)."""

from __future__ import annotations

from typing import Any

__all__ = ["FullyShardedDataParallel"]

_MISSING = "chainrule does not implement FSDP ({}) yet"


class FullyShardedDataParallel:
    """FSDP1's wrapper module; not implemented by chainrule."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(_MISSING.format("FullyShardedDataParallel"))
