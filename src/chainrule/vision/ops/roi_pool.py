"""RoI max pooling (Girshick, Fast R-CNN): each region, rounded to whole pixels, is cut into
``output_size`` bins and a bin's value is its maximum (0 for an empty bin). The argmax is
found in NumPy; the output gathers those pixels, so the gradient reaches them."""

from __future__ import annotations

import numpy as np

import chainrule
from chainrule import nn

from ..._tensor import Tensor
from ._utils import _as_rois, _bin_edges, _pair, _round_half_away

__all__ = ["RoIPool", "roi_pool"]


def roi_pool(
    input: Tensor,
    boxes: Tensor | list[Tensor],
    output_size: int | tuple[int, int],
    spatial_scale: float = 1.0,
) -> Tensor:
    """RoI max pooling: ``(K, C, PH, PW)``. A box's corners are scaled and rounded; its size is
    ``end - start + 1`` pixels (at least 1); bin ``p`` covers ``[floor(p*s), ceil((p+1)*s))``."""
    rois = _as_rois(boxes)
    pooled_h, pooled_w = _pair(output_size)
    values = input.detach().numpy()
    n, c, height, width = values.shape
    dtype = values.dtype
    scale = dtype.type(spatial_scale)
    k_count = rois.shape[0]
    argmax = np.full((k_count, c, pooled_h, pooled_w), -1, dtype=np.int64)
    for k, (batch, x1, y1, x2, y2) in enumerate(rois.detach().numpy().astype(dtype)):
        start_w, start_h = _round_half_away(x1 * scale), _round_half_away(y1 * scale)
        end_w, end_h = _round_half_away(x2 * scale), _round_half_away(y2 * scale)
        rows = _bin_edges(start_h, max(end_h - start_h + 1, 1), pooled_h, height, dtype)
        cols = _bin_edges(start_w, max(end_w - start_w + 1, 1), pooled_w, width, dtype)
        image = values[int(batch)]
        for ph, (h0, h1) in enumerate(rows):
            for pw, (w0, w1) in enumerate(cols):
                if h1 <= h0 or w1 <= w0:
                    continue
                window = image[:, h0:h1, w0:w1].reshape(c, -1)
                best = np.argmax(window, axis=1)  # the first maximum, in raster order
                argmax[k, :, ph, pw] = (int(batch) * c + np.arange(c)) * height * width + (
                    (h0 + best // (w1 - w0)) * width + w0 + best % (w1 - w0)
                )
    found = argmax >= 0
    gathered = input.reshape(-1).index_select(
        0, chainrule.from_numpy(np.where(found, argmax, 0).ravel())
    )
    out = gathered.reshape(argmax.shape)
    return chainrule.where(chainrule.from_numpy(found), out, chainrule.zeros((), dtype=input.dtype))


class RoIPool(nn.Module):
    """:func:`roi_pool` as a module."""

    def __init__(self, output_size: int | tuple[int, int], spatial_scale: float) -> None:
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale

    def forward(self, input: Tensor, rois: Tensor | list[Tensor]) -> Tensor:
        return roi_pool(input, rois, self.output_size, self.spatial_scale)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(output_size={self.output_size}, spatial_scale={self.spatial_scale})"
