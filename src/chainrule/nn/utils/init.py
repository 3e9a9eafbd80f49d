"""``nn.utils.skip_init``: build a module without running its initialisation."""

from __future__ import annotations

import inspect
from typing import Any, TypeVar

from ..modules.module import Module, class_repr

__all__ = ["skip_init"]

T = TypeVar("T", bound=Module)


def skip_init(module_cls: type[T], *args: Any, **kwargs: Any) -> T:
    """``module_cls(*args, **kwargs)``, whose parameters' values are to be set by the caller
    (PyTorch builds it on the meta device and leaves the memory uninitialised; chainrule,
    which has no meta device, builds it as usual: the values are as arbitrary to the caller).
    The class must take a ``device`` argument, as PyTorch requires."""
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {class_repr(module_cls)}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    return module_cls(*args, **kwargs)
