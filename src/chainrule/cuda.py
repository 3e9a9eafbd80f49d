"""``torch.cuda`` as a CPU-only build of PyTorch has it: no device is available, the
queries answer so, seeding is accepted (and does nothing), and anything that needs a
device raises PyTorch's error. Scripts that pick ``"cuda" if torch.cuda.is_available()
else "cpu"`` run unchanged; CUDA arrays through CuPy are planned."""

from __future__ import annotations

from typing import Any

__all__ = [
    "current_device",
    "device_count",
    "empty_cache",
    "get_device_name",
    "is_available",
    "is_bf16_supported",
    "is_initialized",
    "manual_seed",
    "manual_seed_all",
    "seed",
    "seed_all",
    "set_device",
    "synchronize",
]


def _not_compiled() -> AssertionError:
    return AssertionError("Torch not compiled with CUDA enabled")


def is_available() -> bool:
    """False: chainrule has no CUDA device."""
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def manual_seed(seed: int) -> None:
    """Accepted and ignored, as PyTorch ignores it when CUDA is unavailable."""


def manual_seed_all(seed: int) -> None:
    """Accepted and ignored, as PyTorch ignores it when CUDA is unavailable."""


def seed() -> None:
    """Accepted and ignored, as PyTorch ignores it when CUDA is unavailable."""


def seed_all() -> None:
    """Accepted and ignored, as PyTorch ignores it when CUDA is unavailable."""


def empty_cache() -> None:
    """Nothing is cached: a no-op, as in PyTorch without CUDA."""


def current_device() -> int:
    raise _not_compiled()


def set_device(device: Any) -> None:
    raise _not_compiled()


def synchronize(device: Any = None) -> None:
    raise _not_compiled()


def get_device_name(device: Any = None) -> str:
    raise _not_compiled()


def __getattr__(name: str):
    from chainrule._missing import (
        missing,
    )  # (absolute: under `chainrule run` these modules are also torch.*)

    raise missing("torch.cuda", name)
