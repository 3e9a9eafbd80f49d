"""Padding layers: constant (and zero), reflection, replication and circular padding of
the last 1, 2 or 3 dims, each ``F.pad`` with its mode. ``padding`` is an int (the same on
every side) or a tuple ``(left, right, top, bottom, front, back)``, last dim first."""

from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from .. import functional as F
from .module import Module
from .utils import _ntuple, _pair, _quadruple

__all__ = [
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
]

_SIDES = {1: _pair, 2: _quadruple, 3: _ntuple(6)}


class _PadNd(Module):
    """``F.pad(input, padding, _mode)`` over ``_dims`` dims; the repr is the padding."""

    _init_per_subclass = True  # (each layer's __init__ is named after it: Module)

    __constants__ = ["padding"]
    _mode = "reflect"
    _dims = 1

    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _SIDES[self._dims](padding)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _CircularPadNd(_PadNd):
    """Circular padding, which checks the input's rank first (PyTorch's message)."""

    _init_per_subclass = True  # (each layer's __init__ is named after it: Module)

    _mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (self._dims + 1, self._dims + 2):
            raise ValueError(
                f"expected {self._dims + 1}D or {self._dims + 2}D input (got {input.dim()}D input)"
            )
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """Wrap-around padding of the last dim."""

    _dims = 1


class CircularPad2d(_CircularPadNd):
    """Wrap-around padding of the last 2 dims."""

    _dims = 2


class CircularPad3d(_CircularPadNd):
    """Wrap-around padding of the last 3 dims."""

    _dims = 3


class ReflectionPad1d(_PadNd):
    """Mirror padding (the edge not repeated) of the last dim."""

    _dims = 1


class ReflectionPad2d(_PadNd):
    """Mirror padding (the edge not repeated) of the last 2 dims."""

    _dims = 2


class ReflectionPad3d(_PadNd):
    """Mirror padding (the edge not repeated) of the last 3 dims."""

    _dims = 3


class ReplicationPad1d(_PadNd):
    """Edge-repeating padding of the last dim."""

    _mode = "replicate"
    _dims = 1


class ReplicationPad2d(_PadNd):
    """Edge-repeating padding of the last 2 dims."""

    _mode = "replicate"
    _dims = 2


class ReplicationPad3d(_PadNd):
    """Edge-repeating padding of the last 3 dims."""

    _mode = "replicate"
    _dims = 3


class _ConstantPadNd(Module):
    """Padding with the constant ``value``."""

    _init_per_subclass = True  # (each layer's __init__ is named after it: Module)

    __constants__ = ["padding", "value"]
    _dims = 1

    def __init__(self, padding: Any, value: float) -> None:
        super().__init__()
        self.value = value
        self.padding = _SIDES[self._dims](padding)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Constant padding of the last dim."""

    _dims = 1


class ConstantPad2d(_ConstantPadNd):
    """Constant padding of the last 2 dims."""

    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Constant padding of the last 3 dims."""

    _dims = 3


class ZeroPad1d(ConstantPad1d):
    """Zero padding of the last dim."""

    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Zero padding of the last 2 dims."""

    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Zero padding of the last 3 dims."""

    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"
