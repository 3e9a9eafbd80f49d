"""``torch.accelerator``: the current accelerator, CUDA when chainrule has it (CuPy and a
GPU, ``chainrule.cuda``), else none (the CPU is not one): then
``torch.accelerator.current_accelerator()`` is None and scripts fall back to ``"cpu"`` as
they do on a CPU-only PyTorch."""

from __future__ import annotations

from typing import Any

from . import cuda

__all__ = ["current_accelerator", "device_count", "is_available"]


def is_available() -> bool:
    return cuda.is_available()


def current_accelerator(check_available: bool = False) -> Any:
    """``device(type='cuda')`` when CUDA is available, else None."""
    if not cuda.is_available():
        return None
    from ._tensor import device

    return device("cuda")


def device_count() -> int:
    return cuda.device_count()


def __getattr__(name: str):
    from chainrule._missing import (
        missing,
    )  # (absolute: under `chainrule run` these modules are also torch.*)

    raise missing("torch.accelerator", name)
