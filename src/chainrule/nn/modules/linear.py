"""Linear layers. For now ``nn.Identity``; ``Linear``, ``Bilinear`` and ``LazyLinear`` join
it here (each holds its weight and bias as Parameters and calls ``F.linear``)."""

from __future__ import annotations

from typing import Any

from .module import Module

__all__ = ["Identity"]


class Identity(Module):
    """Returns its input unchanged; any arguments to the constructor are ignored."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Any) -> Any:
        return input
