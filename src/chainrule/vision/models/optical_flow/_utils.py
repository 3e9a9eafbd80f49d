"""The sampling helpers of RAFT: bilinear reads at absolute pixel coordinates, the grid of
pixel coordinates, and upsampling of a flow field (bilinear, or a learned convex
combination of each coarse pixel's 3x3 neighbourhood)."""

from __future__ import annotations

import chainrule

from ...._tensor import Tensor
from ....nn import functional as F


def grid_sample(
    img: Tensor, absolute_grid: Tensor, mode: str = "bilinear", align_corners: bool | None = None
) -> Tensor:
    """``img`` read at ``absolute_grid`` (``(N, H_out, W_out, 2)``, pixel coordinates
    ``(x, y)``): the coordinates are mapped to [-1, 1] by ``2 x / (W - 1) - 1`` (and ``y``
    by ``H - 1`` when ``H > 1``) and passed to ``nn.functional.grid_sample``."""
    h, w = img.shape[-2:]
    xgrid, ygrid = absolute_grid.split([1, 1], dim=-1)
    xgrid = 2 * xgrid / (w - 1) - 1
    if h > 1:
        # a single row has no extent to normalise by: its y coordinates stay as given
        ygrid = 2 * ygrid / (h - 1) - 1
    normalized_grid = chainrule.cat([xgrid, ygrid], dim=-1)
    return F.grid_sample(img, normalized_grid, mode=mode, align_corners=align_corners)


def make_coords_grid(batch_size: int, h: int, w: int, device: str = "cpu") -> Tensor:
    """``(batch_size, 2, h, w)`` float pixel coordinates: channel 0 is ``x`` (the column),
    channel 1 is ``y`` (the row)."""
    rows, cols = chainrule.meshgrid(
        chainrule.arange(h, device=device), chainrule.arange(w, device=device), indexing="ij"
    )
    coords = chainrule.stack([cols, rows], dim=0).float()
    return coords[None].repeat(batch_size, 1, 1, 1)


def upsample_flow(flow: Tensor, up_mask: Tensor | None = None, factor: int = 8) -> Tensor:
    """``flow`` (``(B, 2, H, W)``) at ``factor`` times the size, its values scaled by
    ``factor``: bilinear (``align_corners=True``) without ``up_mask``; otherwise each fine
    pixel is a convex combination (softmax over ``up_mask``'s 9 weights per fine pixel,
    ``(B, 9 * factor**2, H, W)``) of its coarse pixel's 3x3 neighbourhood."""
    batch_size, num_channels, h, w = flow.shape
    new_h, new_w = h * factor, w * factor
    if up_mask is None:
        return factor * F.interpolate(
            flow, size=(new_h, new_w), mode="bilinear", align_corners=True
        )
    weights = up_mask.view(batch_size, 1, 9, factor, factor, h, w).softmax(dim=2)
    neighbours = F.unfold(factor * flow, kernel_size=3, padding=1)
    neighbours = neighbours.view(batch_size, num_channels, 9, 1, 1, h, w)
    upsampled = (weights * neighbours).sum(dim=2)  # (B, C, factor, factor, h, w)
    return upsampled.permute(0, 1, 4, 2, 5, 3).reshape(batch_size, num_channels, new_h, new_w)
