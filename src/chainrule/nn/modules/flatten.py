"""``nn.Flatten`` and ``nn.Unflatten``: reshaping layers (no parameters), each one call of
``Tensor.flatten`` / ``Tensor.unflatten``, whose views carry the gradient back."""

from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Flatten dims ``start_dim`` to ``end_dim`` into one (by default all but the batch dim)."""

    __constants__ = ["start_dim", "end_dim"]

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dim ``dim`` into the shape ``unflattened_size`` (a tuple or list of ints)."""

    __constants__ = ["dim", "unflattened_size"]

    def __init__(self, dim: int, unflattened_size: Any) -> None:
        super().__init__()
        _require_tuple_int(unflattened_size)
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


def _require_tuple_int(size: Any) -> None:
    if not isinstance(size, (tuple, list)):
        raise TypeError(
            f"unflattened_size must be a tuple of ints, but found type {type(size).__name__}"
        )
    for idx, elem in enumerate(size):
        if not isinstance(elem, int):
            raise TypeError(
                "unflattened_size must be tuple of ints, "
                f"but found element of type {type(elem).__name__} at pos {idx}"
            )
