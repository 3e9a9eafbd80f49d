"""Helpers the box and RoI ops share: dtype upcasting, the ``(batch index, x1, y1, x2, y2)``
RoI format, the RoI ops' sampling grids and bilinear taps and their weighted gather, and
splitting a model's parameters into normalization and other ones."""

from __future__ import annotations

import math

import numpy as np

import chainrule
from chainrule import nn

from ..._tensor import Tensor

__all__ = ["check_roi_boxes_shape", "convert_boxes_to_roi_format", "split_normalization_params"]


def _cat(tensors: list[Tensor], dim: int = 0) -> Tensor:
    return tensors[0] if len(tensors) == 1 else chainrule.cat(tensors, dim)


def convert_boxes_to_roi_format(boxes: list[Tensor]) -> Tensor:
    """A list of per-image ``(K_i, 4)`` boxes as one ``(sum K_i, 5)`` tensor whose first
    column is the image index."""
    ids = [chainrule.full_like(b[:, :1], i) for i, b in enumerate(boxes)]
    return chainrule.cat([_cat(ids, 0), _cat(list(boxes), 0)], dim=1)


def check_roi_boxes_shape(boxes: Tensor | list[Tensor]) -> None:
    """Assert ``boxes`` is a ``(K, 5)`` tensor or a list of ``(L, 4)`` tensors."""
    if isinstance(boxes, (list, tuple)):
        for b in boxes:
            assert b.size(1) == 4, (
                "The shape of the tensor in the boxes list is not correct as List[Tensor[L, 4]]"
            )
    elif isinstance(boxes, Tensor):
        assert boxes.size(1) == 5, "The boxes tensor shape is not correct as Tensor[K, 5]"
    else:
        raise AssertionError("boxes is expected to be a Tensor[L, 5] or a List[Tensor[K, 4]]")


def split_normalization_params(
    model: nn.Module, norm_classes: list[type] | None = None
) -> tuple[list[Tensor], list[Tensor]]:
    """The trainable parameters of ``model``'s normalization layers, and all the others."""
    if not norm_classes:
        norm_classes = [
            nn.modules.batchnorm._BatchNorm,
            nn.LayerNorm,
            nn.GroupNorm,
            nn.modules.instancenorm._InstanceNorm,
            nn.LocalResponseNorm,
        ]
    for cls in norm_classes:
        if not issubclass(cls, nn.Module):
            raise ValueError(f"Class {cls} is not a subclass of nn.Module.")
    classes = tuple(norm_classes)
    norm_params: list[Tensor] = []
    other_params: list[Tensor] = []
    for module in model.modules():
        if next(module.children(), None) is not None:
            other_params.extend(p for p in module.parameters(recurse=False) if p.requires_grad)
        elif isinstance(module, classes):
            norm_params.extend(p for p in module.parameters() if p.requires_grad)
        else:
            other_params.extend(p for p in module.parameters() if p.requires_grad)
    return norm_params, other_params


def _upcast(t: Tensor) -> Tensor:
    """float16/bfloat16 -> float32 and small integers -> int32, so products do not overflow."""
    if t.is_floating_point():
        return t if t.dtype in (chainrule.float32, chainrule.float64) else t.float()
    return t if t.dtype in (chainrule.int32, chainrule.int64) else t.int()


def _upcast_non_float(t: Tensor) -> Tensor:
    return t if t.dtype in (chainrule.float32, chainrule.float64) else t.float()


def _loss_inter_union(boxes1: Tensor, boxes2: Tensor) -> tuple[Tensor, Tensor]:
    """Elementwise intersection and union areas of two ``(..., 4)`` xyxy box tensors."""
    x1, y1, x2, y2 = boxes1.unbind(dim=-1)
    x1g, y1g, x2g, y2g = boxes2.unbind(dim=-1)
    inter_w = chainrule.min(x2, x2g) - chainrule.max(x1, x1g)
    inter_h = chainrule.min(y2, y2g) - chainrule.max(y1, y1g)
    overlaps = (inter_w > 0) & (inter_h > 0)
    inter = chainrule.where(overlaps, inter_w * inter_h, chainrule.zeros_like(x1))
    union = (x2 - x1) * (y2 - y1) + (x2g - x1g) * (y2g - y1g) - inter
    return inter, union


def _reduce_loss(loss: Tensor, reduction: str) -> Tensor:
    """``'none'``, ``'mean'`` (0 for an empty loss, keeping the graph) or ``'sum'``."""
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean() if loss.numel() > 0 else 0.0 * loss.sum()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(
        f"Invalid Value for arg 'reduction': '{reduction} \n Supported reduction modes: 'none', 'mean', 'sum'"
    )


# ---- shared by the RoI ops

# gather at most this many (channel x tap) values at once
_CHUNK = 1 << 24


def _pair(size: int | tuple[int, int] | list[int]) -> tuple[int, int]:
    if isinstance(size, (list, tuple)):
        return (int(size[0]), int(size[1])) if len(size) == 2 else (int(size[0]), int(size[0]))
    return int(size), int(size)


def _as_rois(boxes: Tensor | list[Tensor]) -> Tensor:
    check_roi_boxes_shape(boxes)
    return boxes if isinstance(boxes, Tensor) else convert_boxes_to_roi_format(list(boxes))


def bilinear_taps(
    y: np.ndarray, x: np.ndarray, height: int, width: int
) -> tuple[np.ndarray, np.ndarray]:
    """The four pixels (flat indices) and weights of bilinear sampling at ``(y, x)``, as RoI
    Align defines it: a point outside ``[-1, height] x [-1, width]`` counts zero; one in
    ``[-1, 0]`` is moved to 0; one past the last row/column samples that row/column."""
    inside = (y >= -1.0) & (y <= height) & (x >= -1.0) & (x <= width)
    y = np.where(inside, np.maximum(y, 0), 0).astype(y.dtype)
    x = np.where(inside, np.maximum(x, 0), 0).astype(x.dtype)
    y_low, x_low = y.astype(np.int64), x.astype(np.int64)
    bottom, right = y_low >= height - 1, x_low >= width - 1
    y_low = np.where(bottom, height - 1, y_low)
    x_low = np.where(right, width - 1, x_low)
    y_high = np.where(bottom, height - 1, y_low + 1)
    x_high = np.where(right, width - 1, x_low + 1)
    ly = np.where(bottom, 0, y - y_low).astype(y.dtype)
    lx = np.where(right, 0, x - x_low).astype(x.dtype)
    hy, hx = 1 - ly, 1 - lx
    index = np.stack(
        [
            y_low * width + x_low,
            y_low * width + x_high,
            y_high * width + x_low,
            y_high * width + x_high,
        ]
    )
    weight = np.stack([hy * hx, hy * lx, ly * hx, ly * lx]) * inside
    return np.moveaxis(index, 0, -1), np.moveaxis(weight, 0, -1)


def _grid_points(
    start: float, bin_size: float, bins: int, grid: int, dtype: np.dtype
) -> np.ndarray:
    """Sample coordinates ``(bins, grid)``: ``start + p * bin + (i + 0.5) * bin / grid``."""
    t = dtype.type
    p = np.arange(bins, dtype=dtype)[:, None]
    i = np.arange(grid, dtype=dtype)[None, :]
    return t(start) + p * t(bin_size) + (i + t(0.5)) * t(bin_size) / t(grid)


def weighted_gather(
    input: Tensor,
    source: np.ndarray,
    channel: np.ndarray,
    target: np.ndarray,
    weight: np.ndarray,
    out_shape: tuple,
) -> Tensor:
    """``out.flat[target] += weight * input.flat[source]`` channel by channel, for the
    positions of ``out_shape`` ``(K, C_out, ...)``: ``source`` indexes ``input`` as
    ``(N*H*W)`` per channel ``channel[j]`` (``None``: every channel maps to itself)."""
    n, c, h, w = input.shape
    flat = input.permute(1, 0, 2, 3).reshape(c, n * h * w)
    if channel is not None:
        flat = flat.reshape(c * n * h * w)
        source = channel * (n * h * w) + source
        gathered = flat.index_select(0, chainrule.from_numpy(source)) * chainrule.from_numpy(weight)
        out = chainrule.zeros(int(np.prod(out_shape)), dtype=input.dtype)
        return out.index_add(0, chainrule.from_numpy(target), gathered).reshape(out_shape)
    k = out_shape[0]
    positions = int(np.prod(out_shape[2:]))
    out = chainrule.zeros((c, k * positions), dtype=input.dtype)
    step = max(_CHUNK // max(c, 1), 1)
    for begin in range(0, len(source), step):
        part = slice(begin, begin + step)
        gathered = flat.index_select(1, chainrule.from_numpy(source[part])) * chainrule.from_numpy(
            weight[part]
        )
        out = out.index_add(1, chainrule.from_numpy(target[part]), gathered)
    return out.reshape(c, k, *out_shape[2:]).movedim(0, 1)


def _round_half_away(v: float) -> int:
    """C's ``round``: halves go away from zero."""
    return int(math.copysign(math.floor(abs(v) + 0.5), v))


def _bin_edges(
    start: int, size: int, bins: int, limit: int, dtype: np.dtype
) -> list[tuple[int, int]]:
    """``[lo, hi)`` pixel ranges of the ``bins`` bins of a span ``size`` long from ``start``,
    clipped to ``[0, limit]``."""
    bin_size = dtype.type(size) / dtype.type(bins)
    edges = []
    for p in range(bins):
        lo = int(math.floor(dtype.type(p) * bin_size)) + start
        hi = int(math.ceil(dtype.type(p + 1) * bin_size)) + start
        edges.append((min(max(lo, 0), limit), min(max(hi, 0), limit)))
    return edges


def _channels_out(channels: int, pooled_h: int, pooled_w: int) -> int:
    if channels % (pooled_h * pooled_w) != 0:
        raise RuntimeError("input channels must be a multiple of pooling height * pooling width")
    return channels // (pooled_h * pooled_w)
