"""``torch.distributed._tensor.experimental``: the old name of
``torch.distributed.tensor.experimental``."""

from __future__ import annotations

from ..tensor.experimental import implicit_replication

__all__ = ["implicit_replication"]
