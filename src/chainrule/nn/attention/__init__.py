"""``chainrule.nn.attention`` (PyTorch's ``torch.nn.attention``): ``sdpa_kernel`` picks
the kernels ``scaled_dot_product_attention`` may use.

chainrule has one kernel, the math one, whose values the flash kernel of PyTorch's CPU
build also gives: it serves ``SDPBackend.MATH`` and ``SDPBackend.FLASH_ATTENTION``. With
neither enabled, attention raises PyTorch's error (as PyTorch's CPU build does; its CUDA
build also has the efficient and cuDNN kernels)."""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Iterator
from typing import Any

from ...api.parsers import attention as _sdpa

__all__ = ["WARN_FOR_UNFUSED_KERNELS", "SDPBackend", "sdpa_kernel"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.IntEnum):
    """The kernels of scaled dot-product attention, with PyTorch's numbers."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __repr__(self) -> str:
        return f"<SDPBackend.{self.name}: {self.value}>"


_SERVED = frozenset({SDPBackend.MATH, SDPBackend.FLASH_ATTENTION})


@contextlib.contextmanager
def sdpa_kernel(backends: Any, set_priority: bool = False) -> Iterator[dict]:
    """Within the block, attention may use only ``backends`` (one or a list); the kernels
    enabled before come back on leaving it. ``set_priority`` (an order among them) has
    nothing to order here: one kernel serves."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError(
            "Backend must be an instance of SDPBackend or a list of SDPBackend instances, got "
            f"{type(backends).__name__}"
        )
    chosen = {backends} if isinstance(backends, SDPBackend) else set(backends)
    previous = _sdpa.KERNEL_ENABLED[0]
    _sdpa.KERNEL_ENABLED[0] = bool(chosen & _SERVED)
    try:
        yield {}
    finally:
        _sdpa.KERNEL_ENABLED[0] = previous
