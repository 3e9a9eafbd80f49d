"""Position-sensitive RoI average pooling (Dai et al., R-FCN): bin ``(i, j)`` of output
channel ``c`` is the mean of input channel ``(c * PH + i) * PW + j`` over the bin."""

from __future__ import annotations

import numpy as np

import chainrule
from chainrule import nn

from ..._tensor import Tensor
from ._utils import _as_rois, _bin_edges, _channels_out, _pair, _round_half_away, weighted_gather

__all__ = ["PSRoIPool", "ps_roi_pool"]


def ps_roi_pool(
    input: Tensor,
    boxes: Tensor | list[Tensor],
    output_size: int | tuple[int, int],
    spatial_scale: float = 1.0,
) -> Tensor:
    """``(K, C / (PH * PW), PH, PW)``: a box's corners scaled and rounded, its size
    ``end - start`` pixels (at least 1), each bin ``[floor(p*s), ceil((p+1)*s))`` averaged
    (0 when empty)."""
    rois = _as_rois(boxes)
    pooled_h, pooled_w = _pair(output_size)
    n, c, height, width = input.shape
    c_out = _channels_out(c, pooled_h, pooled_w)
    dtype = input.detach().numpy().dtype
    scale = dtype.type(spatial_scale)
    pooled_h * pooled_w
    sources, channels, targets, weights = [], [], [], []
    for k, (batch, x1, y1, x2, y2) in enumerate(rois.detach().numpy().astype(dtype)):
        start_w, start_h = _round_half_away(x1 * scale), _round_half_away(y1 * scale)
        end_w, end_h = _round_half_away(x2 * scale), _round_half_away(y2 * scale)
        rows = _bin_edges(start_h, max(end_h - start_h, 1), pooled_h, height, dtype)
        cols = _bin_edges(start_w, max(end_w - start_w, 1), pooled_w, width, dtype)
        for ph, (h0, h1) in enumerate(rows):
            for pw, (w0, w1) in enumerate(cols):
                if h1 <= h0 or w1 <= w0:
                    continue
                pixels = (np.arange(h0, h1)[:, None] * width + np.arange(w0, w1)[None, :]).ravel()
                area = dtype.type((h1 - h0) * (w1 - w0))
                for co in range(c_out):
                    sources.append(int(batch) * height * width + pixels)
                    channels.append(np.full(pixels.size, (co * pooled_h + ph) * pooled_w + pw))
                    targets.append(
                        np.full(pixels.size, ((k * c_out + co) * pooled_h + ph) * pooled_w + pw)
                    )
                    weights.append(np.full(pixels.size, dtype.type(1) / area, dtype=dtype))
    out_shape = (rois.shape[0], c_out, pooled_h, pooled_w)
    if not sources:
        return chainrule.zeros(out_shape, dtype=input.dtype)
    return weighted_gather(
        input,
        np.concatenate(sources),
        np.concatenate(channels),
        np.concatenate(targets),
        np.concatenate(weights),
        out_shape,
    )


class PSRoIPool(nn.Module):
    """:func:`ps_roi_pool` as a module."""

    def __init__(self, output_size: int | tuple[int, int], spatial_scale: float) -> None:
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale

    def forward(self, input: Tensor, rois: Tensor | list[Tensor]) -> Tensor:
        return ps_roi_pool(input, rois, self.output_size, self.spatial_scale)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(output_size={self.output_size}, spatial_scale={self.spatial_scale})"
