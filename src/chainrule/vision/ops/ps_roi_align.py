"""Position-sensitive RoI Align (R-FCN's pooling with RoI Align's sampling): bin ``(i, j)``
of output channel ``c`` reads input channel ``(c * PH + i) * PW + j`` only."""

from __future__ import annotations

import math

import numpy as np

import chainrule
from chainrule import nn

from ..._tensor import Tensor
from ._utils import _as_rois, _channels_out, _grid_points, _pair, bilinear_taps, weighted_gather

__all__ = ["PSRoIAlign", "ps_roi_align"]


def ps_roi_align(
    input: Tensor,
    boxes: Tensor | list[Tensor],
    output_size: int | tuple[int, int],
    spatial_scale: float = 1.0,
    sampling_ratio: int = -1,
) -> Tensor:
    """``(K, C / (PH * PW), PH, PW)``: boxes shifted by -0.5 pixel (no minimum size), each bin
    the mean of bilinear samples (``sampling_ratio`` per side, else ``ceil(size / bins)``)."""
    rois = _as_rois(boxes)
    pooled_h, pooled_w = _pair(output_size)
    n, c, height, width = input.shape
    c_out = _channels_out(c, pooled_h, pooled_w)
    dtype = input.detach().numpy().dtype
    scale, half = dtype.type(spatial_scale), dtype.type(0.5)
    sources, channels, targets, weights = [], [], [], []
    bins = pooled_h * pooled_w
    for k, (batch, x1, y1, x2, y2) in enumerate(rois.detach().numpy().astype(dtype)):
        start_w, start_h = x1 * scale - half, y1 * scale - half
        roi_w, roi_h = (x2 * scale - half) - start_w, (y2 * scale - half) - start_h
        grid_h = sampling_ratio if sampling_ratio > 0 else int(math.ceil(roi_h / pooled_h))
        grid_w = sampling_ratio if sampling_ratio > 0 else int(math.ceil(roi_w / pooled_w))
        count = dtype.type(grid_h * grid_w)
        ys = _grid_points(start_h, roi_h / dtype.type(pooled_h), pooled_h, grid_h, dtype)
        xs = _grid_points(start_w, roi_w / dtype.type(pooled_w), pooled_w, grid_w, dtype)
        y = np.broadcast_to(ys[:, None, :, None], (pooled_h, pooled_w, grid_h, grid_w))
        x = np.broadcast_to(xs[None, :, None, :], (pooled_h, pooled_w, grid_h, grid_w))
        index, weight = bilinear_taps(y, x, height, width)  # (PH, PW, IY, IX, 4)
        taps = index.size // bins
        bin_ids = np.arange(bins).repeat(taps)
        for co in range(c_out):
            sources.append(int(batch) * height * width + index.ravel())
            channels.append(co * bins + bin_ids)
            targets.append((k * c_out + co) * bins + bin_ids)
            weights.append((weight / count).astype(dtype).ravel())
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


class PSRoIAlign(nn.Module):
    """:func:`ps_roi_align` as a module."""

    def __init__(
        self, output_size: int | tuple[int, int], spatial_scale: float, sampling_ratio: int
    ) -> None:
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale
        self.sampling_ratio = sampling_ratio

    def forward(self, input: Tensor, rois: Tensor | list[Tensor]) -> Tensor:
        return ps_roi_align(input, rois, self.output_size, self.spatial_scale, self.sampling_ratio)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(output_size={self.output_size}, spatial_scale={self.spatial_scale}, "
            f"sampling_ratio={self.sampling_ratio})"
        )
