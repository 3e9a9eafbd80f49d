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

from ...backends import _sdp

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


# each backend's switch (chainrule/backends/_sdp.py)
_KERNELS = {
    SDPBackend.MATH: "math",
    SDPBackend.FLASH_ATTENTION: "flash",
    SDPBackend.EFFICIENT_ATTENTION: "mem_efficient",
    SDPBackend.CUDNN_ATTENTION: "cudnn",
}


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
    previous = dict(_sdp.FLAGS)  # (the switches torch.backends.cuda also reads and sets)
    _sdp.set_all({kernel: backend in chosen for backend, kernel in _KERNELS.items()})
    try:
        yield {}
    finally:
        _sdp.set_all(previous)
