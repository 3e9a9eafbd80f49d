"""``torch.distributed.constants``: the process groups' default timeout.

``default_pg_nccl_timeout`` is ``None``, as on PyTorch's builds without NCCL."""

from __future__ import annotations

from datetime import timedelta

__all__ = ["default_pg_nccl_timeout", "default_pg_timeout"]

default_pg_timeout: timedelta = timedelta(minutes=30)
default_pg_nccl_timeout: timedelta | None = None
