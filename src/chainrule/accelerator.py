"""``torch.accelerator``: the current accelerator, of which chainrule has none (the CPU
is not one), so ``torch.accelerator.current_accelerator()`` is None and scripts fall back
to ``"cpu"`` as they do on a CPU-only PyTorch."""

from __future__ import annotations

from typing import Any

__all__ = ["current_accelerator", "device_count", "is_available"]


def is_available() -> bool:
    return False


def current_accelerator(check_available: bool = False) -> Any:
    """None: there is no accelerator."""
    return None


def device_count() -> int:
    return 0


def __getattr__(name: str):
    from chainrule._missing import (
        missing,
    )  # (absolute: under `chainrule run` these modules are also torch.*)

    raise missing("torch.accelerator", name)
