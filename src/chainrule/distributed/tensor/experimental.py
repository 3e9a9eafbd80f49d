"""``torch.distributed.tensor.experimental``: ``implicit_replication``, the context in which
DTensor ops take plain tensors as replicated. chainrule makes no DTensor, so every tensor
is a plain one and the context changes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["implicit_replication"]


@contextmanager
def implicit_replication() -> Iterator[None]:
    """Let DTensor ops treat plain tensors as replicated (a no-op: chainrule has no DTensor)."""
    yield
