"""``torch.distributed.algorithms``: the join context's names (``join``)."""

from __future__ import annotations

from .join import Join, Joinable, JoinHook

__all__ = ["Join", "JoinHook", "Joinable"]
