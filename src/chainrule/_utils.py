"""``torch._utils``: the few private helpers of PyTorch's that libraries import by name
(the available accelerator's type, a device type's module, the CPU count, and the wrapper
that carries an exception out of a worker)."""

from __future__ import annotations

import functools
import os
import sys
import traceback
from types import ModuleType

__all__ = [
    "ExceptionWrapper",
    "KeyErrorMessage",
    "_get_available_device_type",
    "_get_device_module",
    "cpu_count",
]


def _get_available_device_type() -> str | None:
    """The type of the accelerator present ("cuda", "mps", ...); ``None`` on chainrule,
    which runs on the CPU only (as PyTorch's CPU build answers)."""
    import chainrule

    for name in ("cuda", "mps", "xpu", "mtia"):
        module = getattr(chainrule, name, None) or getattr(chainrule.backends, name, None)
        if module is not None and module.is_available():
            return name
    return None


@functools.lru_cache(2)
def _get_device_module(device_type: str) -> ModuleType:
    """``torch.<device_type>`` (``torch.cpu``, ``torch.cuda``); RuntimeError for a device
    type that has none."""
    import chainrule

    module = getattr(chainrule, device_type, None)
    if module is None:
        raise RuntimeError(
            f"Device '{device_type}' does not have a corresponding module registered as "
            f"'torch.{device_type}'."
        )
    return module


def cpu_count() -> int | None:
    """The CPUs this process may run on (its affinity where the OS tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count()


class KeyErrorMessage(str):
    """A KeyError's message shown as written (KeyError's ``str`` would quote it)."""

    def __repr__(self) -> str:
        return str(self)


class ExceptionWrapper:
    """An exception caught in a thread or a worker process (its type and formatted
    traceback, picklable), re-raised elsewhere with ``reraise``."""

    def __init__(self, exc_info: tuple | None = None, where: str = "in background") -> None:
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self) -> None:
        """Raise the wrapped exception type with the original traceback in its message."""
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exception
