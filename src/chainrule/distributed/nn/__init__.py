"""``torch.distributed.nn``: collectives that autograd differentiates (``functional``)."""

from __future__ import annotations

from . import functional  # noqa: F401

__all__ = ["functional"]
