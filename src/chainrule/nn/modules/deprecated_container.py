"""``nn.Container``: the deprecated forerunner of ``Module``, kept for old code.

Making one, or subclassing it, warns (``FutureWarning``) as PyTorch does; it is a Module
whose keyword arguments become submodules.
"""

from __future__ import annotations

import warnings
from typing import Any

from .module import Module

__all__ = ["Container"]

_DEPRECATED = (
    "`nn.Container` is deprecated. "
    "All of its functionality is now implemented in `nn.Module`. Subclass that instead."
)


class Container(Module):
    """``Container(**modules)``: a Module with each keyword argument added as a submodule
    under its name. Deprecated: subclass ``Module``."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        warnings.warn(_DEPRECATED, FutureWarning, stacklevel=2)
        super().__init_subclass__(**kwargs)

    def __new__(cls, *args: Any, **kwargs: Any) -> Container:
        warnings.warn(_DEPRECATED, FutureWarning, stacklevel=2)
        return super().__new__(cls)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)
