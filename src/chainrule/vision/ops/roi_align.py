"""RoI Align (He et al., Mask R-CNN): each region is cut into ``output_size`` bins and a bin's
value is the mean of bilinear samples on a regular grid inside it.

The sample positions and their bilinear weights depend on the boxes only, so they are found
in NumPy; the output is then a weighted gather of input pixels summed per bin
(``index_select``, a product and a sum), which carries the gradient to ``input`` (none to
the boxes, as in torchvision)."""

from __future__ import annotations

import math

import numpy as np

import chainrule
from chainrule import nn

from ..._tensor import Tensor
from ._utils import _CHUNK, _as_rois, _grid_points, _pair, bilinear_taps

__all__ = ["RoIAlign", "roi_align"]


def roi_align(
    input: Tensor,
    boxes: Tensor | list[Tensor],
    output_size: int | tuple[int, int],
    spatial_scale: float = 1.0,
    sampling_ratio: int = -1,
    aligned: bool = False,
) -> Tensor:
    """RoI Align: ``(K, C, PH, PW)`` features of the K regions ``boxes`` (a ``(K, 5)`` tensor of
    ``(batch index, x1, y1, x2, y2)``, or a list of per-image ``(L, 4)`` tensors) scaled by
    ``spatial_scale``. Each bin averages ``sampling_ratio`` x ``sampling_ratio`` bilinear
    samples (``ceil(roi size / output size)`` per side when ``<= 0``); ``aligned`` shifts the
    box by -0.5 pixel (else a box is at least 1x1)."""
    rois = _as_rois(boxes)
    pooled_h, pooled_w = _pair(output_size)
    n, c, height, width = input.shape
    dtype = input.detach().numpy().dtype
    roi_values = rois.detach().numpy().astype(dtype)
    offset = dtype.type(0.5 if aligned else 0.0)
    scale = dtype.type(spatial_scale)
    bins = pooled_h * pooled_w
    # rois grouped by their number of taps per bin: index and weight arrays (bins, taps) each
    groups: dict[int, list[tuple[int, np.ndarray, np.ndarray]]] = {}
    for k, (batch, x1, y1, x2, y2) in enumerate(roi_values):
        start_w, start_h = x1 * scale - offset, y1 * scale - offset
        roi_w, roi_h = x2 * scale - offset - start_w, y2 * scale - offset - start_h
        if not aligned:
            roi_w, roi_h = max(roi_w, dtype.type(1)), max(roi_h, dtype.type(1))
        bin_h, bin_w = roi_h / dtype.type(pooled_h), roi_w / dtype.type(pooled_w)
        grid_h = sampling_ratio if sampling_ratio > 0 else int(math.ceil(roi_h / pooled_h))
        grid_w = sampling_ratio if sampling_ratio > 0 else int(math.ceil(roi_w / pooled_w))
        count = max(grid_h * grid_w, 1)
        ys = _grid_points(start_h, bin_h, pooled_h, grid_h, dtype)  # (PH, IY)
        xs = _grid_points(start_w, bin_w, pooled_w, grid_w, dtype)  # (PW, IX)
        y = np.broadcast_to(ys[:, None, :, None], (pooled_h, pooled_w, grid_h, grid_w))
        x = np.broadcast_to(xs[None, :, None, :], (pooled_h, pooled_w, grid_h, grid_w))
        index, weight = bilinear_taps(y, x, height, width)  # (PH, PW, IY, IX, 4)
        taps = grid_h * grid_w * 4
        groups.setdefault(taps, []).append(
            (
                k,
                int(batch) * height * width + index.reshape(bins, taps),
                (weight / dtype.type(count)).astype(dtype).reshape(bins, taps),
            )
        )
    if not groups:
        return chainrule.zeros((0, c, pooled_h, pooled_w), dtype=input.dtype)
    # pixels as rows (N*H*W, C): gathering whole rows is the fast direction
    flat = input.permute(0, 2, 3, 1).reshape(n * height * width, c)
    order, pieces = [], []
    for taps, members in groups.items():
        order.extend(k for k, _, _ in members)
        if taps == 0:
            pieces.append(chainrule.zeros((len(members) * bins, c), dtype=input.dtype))
            continue
        source = np.concatenate([index for _, index, _ in members])  # (rows, taps)
        weight = np.concatenate([w for _, _, w in members])
        step = max(_CHUNK // max(c * taps, 1), 1)
        for begin in range(0, len(source), step):
            rows = slice(begin, begin + step)
            picked = flat.index_select(0, chainrule.from_numpy(source[rows].ravel()))
            weighted = picked * chainrule.from_numpy(weight[rows].reshape(-1, 1))
            pieces.append(weighted.reshape(-1, taps, c).sum(1))
    out = chainrule.cat(pieces, dim=0).reshape(len(order), bins, c)
    position = np.empty(len(order), dtype=np.int64)
    position[np.asarray(order)] = np.arange(len(order))
    out = out.index_select(0, chainrule.from_numpy(position))
    return out.permute(0, 2, 1).reshape(len(order), c, pooled_h, pooled_w)


class RoIAlign(nn.Module):
    """:func:`roi_align` as a module."""

    def __init__(
        self,
        output_size: int | tuple[int, int],
        spatial_scale: float,
        sampling_ratio: int,
        aligned: bool = False,
    ) -> None:
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale
        self.sampling_ratio = sampling_ratio
        self.aligned = aligned

    def forward(self, input: Tensor, rois: Tensor | list[Tensor]) -> Tensor:
        return roi_align(
            input, rois, self.output_size, self.spatial_scale, self.sampling_ratio, self.aligned
        )

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(output_size={self.output_size}, spatial_scale={self.spatial_scale}, "
            f"sampling_ratio={self.sampling_ratio}, aligned={self.aligned})"
        )
