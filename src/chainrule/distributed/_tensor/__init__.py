"""``torch.distributed._tensor``: the old name of ``torch.distributed.tensor`` (the same
names; PyTorch keeps it for older code, as opacus imports it)."""

from __future__ import annotations

from .. import tensor as _tensor
from ..tensor import *  # noqa: F403 - the same names

__all__ = list(_tensor.__all__)
