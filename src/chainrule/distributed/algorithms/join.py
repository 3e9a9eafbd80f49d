"""``torch.distributed.algorithms.join``: training on uneven inputs across ranks.

``Joinable`` and ``JoinHook`` are PyTorch's interfaces (abstract base, do-nothing hooks).
chainrule's ``DistributedDataParallel`` is not joinable, so entering :class:`Join` (making
one) raises ``NotImplementedError`` naming the gap.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

__all__ = ["Join", "JoinHook", "Joinable"]


class JoinHook:
    """What a joinable does for the ranks still training once this one ran out of inputs:
    ``main_hook`` per iteration of theirs, ``post_hook`` when all have joined (by default,
    nothing)."""

    def main_hook(self) -> None:
        """Called while some rank still has inputs (does nothing by default)."""

    def post_hook(self, is_last_joiner: bool) -> None:
        """Called once every rank has joined (does nothing by default)."""


class Joinable(ABC):
    """A class that takes part in :class:`Join`: it gives a hook, a device and a group."""

    @abstractmethod
    def join_hook(self, **kwargs: Any) -> JoinHook:
        """The hook that shadows this joinable's collectives after its rank joined."""

    @property
    @abstractmethod
    def join_device(self) -> Any:
        """The device the join's collectives run on."""

    @property
    @abstractmethod
    def join_process_group(self) -> Any:
        """The process group the join's collectives run on."""


class Join:
    """PyTorch's context manager for uneven inputs; not implemented by chainrule."""

    def __init__(
        self,
        joinables: list,
        enable: bool = True,
        throw_on_early_termination: bool = False,
        **kwargs: Any,
    ) -> None:
        raise NotImplementedError(
            "chainrule does not implement torch.distributed.algorithms.join.Join yet"
        )
