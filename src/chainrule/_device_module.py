"""``torch.get_device_module``: the ``torch.<backend>`` module of a device type."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

__all__ = ["get_device_module"]


def get_device_module(device: Any = None) -> ModuleType:
    """The module of ``device``'s type (``torch.cpu``, ``torch.cuda`` ...); with none,
    the current accelerator's module, or ``torch.cpu`` when there is no accelerator."""
    from . import accelerator
    from ._tensor import device as make_device

    if device is None:
        current = accelerator.current_accelerator()
        kind = "cpu" if current is None else current.type
    elif isinstance(device, (str, make_device)):
        kind = make_device(device).type
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or None")
    package = __name__.rsplit(".", 1)[0]
    try:
        return importlib.import_module(f"{package}.{kind}")
    except ImportError:
        raise RuntimeError(
            f"Device '{kind}' does not have a corresponding module registered as 'torch.{kind}'."
        ) from None
