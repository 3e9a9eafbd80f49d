"""DropBlock (Ghiasi et al., 2018): during training, zero whole ``block_size``-wide square
(or cubic) regions of each feature map and rescale the rest to keep the mean."""

from __future__ import annotations

import chainrule
from chainrule import nn
from chainrule.nn import functional as F

from ..._tensor import Tensor

__all__ = ["DropBlock2d", "DropBlock3d", "drop_block2d", "drop_block3d"]


def _drop_block(
    input: Tensor, p: float, block_size: int, inplace: bool, eps: float, training: bool, dims: int
) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"drop probability has to be between 0 and 1, but got {p}.")
    if input.ndim != dims + 2:
        raise ValueError(f"input should be {dims + 2} dimensional. Got {input.ndim} dimensions.")
    if not training or p == 0.0:
        return input
    sizes = tuple(input.shape[2:])
    block_size = min(block_size, *sizes)
    if block_size % 2 == 0:
        raise ValueError(f"block size should be odd. Got {block_size} which is even.")
    # block centres are drawn where a whole block fits, with the rate that drops about p of the map
    valid = [s - block_size + 1 for s in sizes]
    gamma = p
    for s, v in zip(sizes, valid):
        gamma *= s / (block_size * v)
    seeds = chainrule.empty((*input.shape[:2], *valid), dtype=input.dtype).bernoulli_(gamma)
    seeds = F.pad(seeds, [block_size // 2] * (2 * dims), value=0)
    pool = F.max_pool2d if dims == 2 else F.max_pool3d
    dropped = pool(
        seeds, kernel_size=(block_size,) * dims, stride=(1,) * dims, padding=block_size // 2
    )
    keep = 1 - dropped
    scale = keep.numel() / (eps + keep.sum())
    if inplace:
        return input.mul_(keep).mul_(scale)
    return input * keep * scale


def drop_block2d(
    input: Tensor,
    p: float,
    block_size: int,
    inplace: bool = False,
    eps: float = 1e-06,
    training: bool = True,
) -> Tensor:
    """DropBlock on ``(N, C, H, W)``: blocks centred at Bernoulli(gamma) points are zeroed,
    ``gamma = p H W / (b^2 (H - b + 1)(W - b + 1))``, and the result scaled by
    ``numel / (eps + kept)``. Identity when not ``training`` or ``p == 0``."""
    return _drop_block(input, p, block_size, inplace, eps, training, 2)


def drop_block3d(
    input: Tensor,
    p: float,
    block_size: int,
    inplace: bool = False,
    eps: float = 1e-06,
    training: bool = True,
) -> Tensor:
    """DropBlock on ``(N, C, D, H, W)`` with cubic blocks (see :func:`drop_block2d`)."""
    return _drop_block(input, p, block_size, inplace, eps, training, 3)


class DropBlock2d(nn.Module):
    """:func:`drop_block2d` as a module (active in training mode)."""

    def __init__(
        self, p: float, block_size: int, inplace: bool = False, eps: float = 1e-06
    ) -> None:
        super().__init__()
        self.p = p
        self.block_size = block_size
        self.inplace = inplace
        self.eps = eps

    def forward(self, input: Tensor) -> Tensor:
        return drop_block2d(input, self.p, self.block_size, self.inplace, self.eps, self.training)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(p={self.p}, block_size={self.block_size}, inplace={self.inplace})"


class DropBlock3d(DropBlock2d):
    """:func:`drop_block3d` as a module (active in training mode)."""

    def forward(self, input: Tensor) -> Tensor:
        return drop_block3d(input, self.p, self.block_size, self.inplace, self.eps, self.training)
