"""Box operations on ``(N, 4)`` tensors (``xyxy`` unless a format is named): areas, pairwise
IoU and its generalized / distance / complete variants, format conversion, clipping,
small-box removal, boxes from masks, and non-maximum suppression. Everything but NMS is
written with chainrule ops, so gradients flow through it."""

from __future__ import annotations

import math

import numpy as np

import chainrule

from ..._tensor import Tensor
from ._box_convert import (
    _box_cxcywh_to_xyxy,
    _box_cxcywhr_to_xywhr,
    _box_xywh_to_xyxy,
    _box_xywhr_to_cxcywhr,
    _box_xywhr_to_xyxyxyxy,
    _box_xyxy_to_cxcywh,
    _box_xyxy_to_xywh,
    _box_xyxyxyxy_to_xywhr,
)
from ._utils import _upcast

__all__ = [
    "batched_nms",
    "box_area",
    "box_convert",
    "box_iou",
    "clip_boxes_to_image",
    "complete_box_iou",
    "distance_box_iou",
    "generalized_box_iou",
    "masks_to_boxes",
    "nms",
    "remove_small_boxes",
]


def _nms_indices(boxes: np.ndarray, scores: np.ndarray, iou_threshold: float) -> np.ndarray:
    """Greedy NMS: visit boxes by descending score (ties by index), keep a box unless it
    overlaps an already kept one with IoU > ``iou_threshold``."""
    order = np.argsort(-scores, kind="stable")
    x1, y1, x2, y2 = (boxes[:, i] for i in range(4))
    areas = (x2 - x1) * (y2 - y1)
    suppressed = np.zeros(len(boxes), dtype=bool)
    keep = []
    for position, i in enumerate(order):
        if suppressed[i]:
            continue
        keep.append(i)
        rest = order[position + 1 :]
        w = np.maximum(np.minimum(x2[i], x2[rest]) - np.maximum(x1[i], x1[rest]), 0)
        h = np.maximum(np.minimum(y2[i], y2[rest]) - np.maximum(y1[i], y1[rest]), 0)
        inter = w * h
        with np.errstate(invalid="ignore", divide="ignore"):  # (0/0 of empty boxes: never kept out)
            iou = inter / (areas[i] + areas[rest] - inter)
        suppressed[rest[iou > iou_threshold]] = True
    return np.asarray(keep, dtype=np.int64)


def nms(boxes: Tensor, scores: Tensor, iou_threshold: float) -> Tensor:
    """Non-maximum suppression: the int64 indices of the kept boxes in descending score
    order; a box is dropped if its IoU with a higher-scored kept box is ``> iou_threshold``."""
    if boxes.dim() != 2 or boxes.size(1) != 4:
        raise RuntimeError(f"boxes should have 4 elements in dimension 1, got {boxes.size(-1)}")
    if scores.dim() != 1:
        raise RuntimeError(f"scores should be a 1d tensor, got {scores.dim()}")
    if boxes.size(0) != scores.size(0):
        raise RuntimeError(
            f"boxes and scores should have same number of elements in dimension 0, got {boxes.size(0)} and "
            f"{scores.size(0)}"
        )
    keep = _nms_indices(boxes.detach().numpy(), scores.detach().numpy(), iou_threshold)
    return chainrule.from_numpy(keep)


def batched_nms(boxes: Tensor, scores: Tensor, idxs: Tensor, iou_threshold: float) -> Tensor:
    """NMS within each category ``idxs`` (boxes of different categories never suppress each
    other); the kept indices in descending score order."""
    if boxes.numel() == 0:
        return chainrule.empty((0,), dtype=chainrule.int64)
    box_values, score_values = boxes.detach().numpy(), scores.detach().numpy()
    categories = idxs.numpy()
    keep_mask = np.zeros(len(score_values), dtype=bool)
    for category in np.unique(categories):
        members = np.nonzero(categories == category)[0]
        keep_mask[
            members[_nms_indices(box_values[members], score_values[members], iou_threshold)]
        ] = True
    kept = np.nonzero(keep_mask)[0]
    return chainrule.from_numpy(
        kept[np.argsort(-score_values[kept], kind="stable")].astype(np.int64)
    )


def remove_small_boxes(boxes: Tensor, min_size: float) -> Tensor:
    """Indices of the boxes whose width and height are both ``>= min_size``."""
    widths, heights = boxes[..., 2] - boxes[..., 0], boxes[..., 3] - boxes[..., 1]
    return chainrule.nonzero((widths >= min_size) & (heights >= min_size)).reshape(-1)


def clip_boxes_to_image(boxes: Tensor, size: tuple[int, int]) -> Tensor:
    """Boxes with x clamped to ``[0, width]`` and y to ``[0, height]``, ``size = (height, width)``."""
    height, width = size
    xs = boxes[..., 0::2].clamp(min=0, max=width)
    ys = boxes[..., 1::2].clamp(min=0, max=height)
    return chainrule.stack((xs, ys), dim=boxes.dim()).reshape(boxes.shape)


_FORMATS = ("xyxy", "xywh", "cxcywh", "xywhr", "cxcywhr", "xyxyxyxy")

# (in, out) -> the conversions applied in turn
_ROUTES = {
    ("xywh", "xyxy"): (_box_xywh_to_xyxy,),
    ("cxcywh", "xyxy"): (_box_cxcywh_to_xyxy,),
    ("xyxy", "xywh"): (_box_xyxy_to_xywh,),
    ("xyxy", "cxcywh"): (_box_xyxy_to_cxcywh,),
    ("xywh", "cxcywh"): (_box_xywh_to_xyxy, _box_xyxy_to_cxcywh),
    ("cxcywh", "xywh"): (_box_cxcywh_to_xyxy, _box_xyxy_to_xywh),
    ("cxcywhr", "xywhr"): (_box_cxcywhr_to_xywhr,),
    ("xywhr", "cxcywhr"): (_box_xywhr_to_cxcywhr,),
    ("cxcywhr", "xyxyxyxy"): (_box_cxcywhr_to_xywhr, _box_xywhr_to_xyxyxyxy),
    ("xyxyxyxy", "cxcywhr"): (_box_xyxyxyxy_to_xywhr, _box_xywhr_to_cxcywhr),
    ("xywhr", "xyxyxyxy"): (_box_xywhr_to_xyxyxyxy,),
    ("xyxyxyxy", "xywhr"): (_box_xyxyxyxy_to_xywhr,),
}


def box_convert(boxes: Tensor, in_fmt: str, out_fmt: str) -> Tensor:
    """Convert boxes between ``'xyxy'``, ``'xywh'``, ``'cxcywh'`` (and among the rotated
    ``'xywhr'``, ``'cxcywhr'``, ``'xyxyxyxy'``)."""
    if in_fmt not in _FORMATS or out_fmt not in _FORMATS:
        raise ValueError(
            f"Unsupported Bounding Box Conversions for given in_fmt {in_fmt} and out_fmt {out_fmt}"
        )
    if in_fmt == out_fmt:
        return boxes.clone()
    route = _ROUTES.get((in_fmt, out_fmt))
    if route is None:
        raise NotImplementedError(
            f"Unsupported Bounding Box Conversions for given in_fmt {in_fmt} and out_fmt {out_fmt}"
        )
    for step in route:
        boxes = step(boxes)
    return boxes


def box_area(boxes: Tensor, fmt: str = "xyxy") -> Tensor:
    """Areas of ``(..., 4)`` boxes: ``(x2 - x1) * (y2 - y1)``, or ``w * h`` for xywh/cxcywh."""
    if fmt not in ("xyxy", "xywh", "cxcywh"):
        raise ValueError(f"Unsupported Bounding Box area for given format {fmt}")
    boxes = _upcast(boxes)
    if fmt == "xyxy":
        return (boxes[..., 2] - boxes[..., 0]) * (boxes[..., 3] - boxes[..., 1])
    return boxes[..., 2] * boxes[..., 3]


def _corners(boxes: Tensor, fmt: str) -> tuple[Tensor, Tensor]:
    """Top-left and bottom-right corners ``(..., 2)`` of boxes in ``fmt``."""
    if fmt == "xyxy":
        return boxes[..., :2], boxes[..., 2:]
    if fmt == "xywh":
        return boxes[..., :2], boxes[..., :2] + boxes[..., 2:]
    return boxes[..., :2] - boxes[..., 2:] / 2, boxes[..., :2] + boxes[..., 2:] / 2


def _box_inter_union(boxes1: Tensor, boxes2: Tensor, fmt: str = "xyxy") -> tuple[Tensor, Tensor]:
    """Pairwise intersection and union areas, each ``(..., N, M)``."""
    area1, area2 = box_area(boxes1, fmt=fmt), box_area(boxes2, fmt=fmt)
    if fmt not in ("xyxy", "xywh", "cxcywh"):
        raise ValueError(f"Unsupported Box IoU Calculation for given fmt {fmt}.")
    lt1, rb1 = _corners(boxes1, fmt)
    lt2, rb2 = _corners(boxes2, fmt)
    lt = chainrule.max(lt1[..., :, None, :], lt2[..., None, :, :])
    rb = chainrule.min(rb1[..., :, None, :], rb2[..., None, :, :])
    wh = _upcast(rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter, area1[..., :, None] + area2[..., None, :] - inter


def box_iou(boxes1: Tensor, boxes2: Tensor, fmt: str = "xyxy") -> Tensor:
    """Pairwise intersection over union ``(..., N, M)`` of two sets of boxes."""
    axis_aligned, rotated = ("xyxy", "xywh", "cxcywh"), ("cxcywhr", "xywhr", "xyxyxyxy")
    if fmt in axis_aligned:
        inter, union = _box_inter_union(boxes1, boxes2, fmt=fmt)
        return inter / union
    if fmt in rotated:
        if fmt != "cxcywhr":
            boxes1 = box_convert(boxes1, in_fmt=fmt, out_fmt="cxcywhr")
            boxes2 = box_convert(boxes2, in_fmt=fmt, out_fmt="cxcywhr")
        return _rotated_box_iou(boxes1, boxes2)
    raise ValueError(
        f"Unsupported format '{fmt}'. "
        f"Supported axis-aligned formats: {axis_aligned}. "
        f"Supported rotated formats: {rotated}."
    )


def _corners_of_rotated(boxes: np.ndarray) -> np.ndarray:
    """The four corners ``(N, 4, 2)`` of ``cxcywhr`` boxes, counter-clockwise on screen."""
    cx, cy, w, h, r = (boxes[:, i] for i in range(5))
    cos, sin = np.cos(np.deg2rad(r)), np.sin(np.deg2rad(r))
    dx = np.stack([-w, w, w, -w], axis=1) / 2
    dy = np.stack([-h, -h, h, h], axis=1) / 2
    xs = cx[:, None] + dx * cos[:, None] + dy * sin[:, None]
    ys = cy[:, None] - dx * sin[:, None] + dy * cos[:, None]
    return np.stack([xs, ys], axis=-1)


def _polygon_area(points: np.ndarray) -> float:
    x, y = points[:, 0], points[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def _clip(subject: list, a: np.ndarray, b: np.ndarray, sign: float) -> list:
    """The part of polygon ``subject`` on the inner side of the line ``a -> b``."""

    def side(p: np.ndarray) -> float:
        return sign * ((b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]))

    out = []
    for i, current in enumerate(subject):
        previous = subject[i - 1]
        s_cur, s_prev = side(current), side(previous)
        if s_cur >= 0:
            if s_prev < 0:
                out.append(previous + (current - previous) * (s_prev / (s_prev - s_cur)))
            out.append(current)
        elif s_prev >= 0:
            out.append(previous + (current - previous) * (s_prev / (s_prev - s_cur)))
    return out


def _convex_intersection_area(p: np.ndarray, q: np.ndarray) -> float:
    """Area of the intersection of two convex quadrilaterals (Sutherland-Hodgman clipping)."""
    orientation = 1.0 if _signed_area(q) >= 0 else -1.0
    polygon = list(p)
    for i in range(len(q)):
        polygon = _clip(polygon, q[i], q[(i + 1) % len(q)], orientation)
        if not polygon:
            return 0.0
    return _polygon_area(np.asarray(polygon))


def _signed_area(points: np.ndarray) -> float:
    x, y = points[:, 0], points[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def _rotated_box_iou(boxes1: Tensor, boxes2: Tensor) -> Tensor:
    """Pairwise IoU ``(N, M)`` of rotated ``cxcywhr`` boxes (polygon intersection; no gradient)."""
    values1, values2 = (
        boxes1.detach().numpy().astype(np.float64),
        boxes2.detach().numpy().astype(np.float64),
    )
    corners1, corners2 = _corners_of_rotated(values1), _corners_of_rotated(values2)
    areas1, areas2 = values1[:, 2] * values1[:, 3], values2[:, 2] * values2[:, 3]
    iou = np.zeros((len(values1), len(values2)))
    for i, p in enumerate(corners1):
        for j, q in enumerate(corners2):
            inter = _convex_intersection_area(p, q)
            union = areas1[i] + areas2[j] - inter
            iou[i, j] = inter / union if union > 0 else 0.0
    dtype = boxes1.dtype if boxes1.is_floating_point() else chainrule.float32
    return chainrule.from_numpy(iou).to(dtype)


def _enclosing_wh(boxes1: Tensor, boxes2: Tensor) -> Tensor:
    """Width and height ``(..., N, M, 2)`` of the smallest box enclosing each pair."""
    lt = chainrule.min(boxes1[..., :, None, :2], boxes2[..., None, :, :2])
    rb = chainrule.max(boxes1[..., :, None, 2:], boxes2[..., None, :, 2:])
    return _upcast(rb - lt).clamp(min=0)


def generalized_box_iou(boxes1: Tensor, boxes2: Tensor) -> Tensor:
    """Pairwise GIoU: ``IoU - (area(C) - union) / area(C)``, C the enclosing box."""
    inter, union = _box_inter_union(boxes1, boxes2)
    wh = _enclosing_wh(boxes1, boxes2)
    enclosing = wh[..., 0] * wh[..., 1]
    return inter / union - (enclosing - union) / enclosing


def _box_diou_iou(boxes1: Tensor, boxes2: Tensor, eps: float = 1e-7) -> tuple[Tensor, Tensor]:
    """DIoU ``IoU - d^2 / (c^2 + eps)`` (d the distance between centers, c the enclosing
    box's diagonal) and the IoU, pairwise."""
    iou = box_iou(boxes1, boxes2)
    wh = _enclosing_wh(boxes1, boxes2)
    diagonal_squared = (wh[..., 0] ** 2) + (wh[..., 1] ** 2) + eps
    cx1, cy1 = (boxes1[..., 0] + boxes1[..., 2]) / 2, (boxes1[..., 1] + boxes1[..., 3]) / 2
    cx2, cy2 = (boxes2[..., 0] + boxes2[..., 2]) / 2, (boxes2[..., 1] + boxes2[..., 3]) / 2
    centers_squared = (_upcast(cx1[..., :, None] - cx2[..., None, :]) ** 2) + (
        _upcast(cy1[..., :, None] - cy2[..., None, :]) ** 2
    )
    return iou - centers_squared / diagonal_squared, iou


def distance_box_iou(boxes1: Tensor, boxes2: Tensor, eps: float = 1e-7) -> Tensor:
    """Pairwise distance IoU (see :func:`_box_diou_iou`)."""
    diou, _ = _box_diou_iou(_upcast(boxes1), _upcast(boxes2), eps=eps)
    return diou


def complete_box_iou(boxes1: Tensor, boxes2: Tensor, eps: float = 1e-7) -> Tensor:
    """Pairwise CIoU: ``DIoU - alpha * v`` with ``v = 4/pi^2 (atan(w1/h1) - atan(w2/h2))^2``
    and ``alpha = v / (1 - IoU + v + eps)`` (a constant for the gradient)."""
    boxes1, boxes2 = _upcast(boxes1), _upcast(boxes2)
    diou, iou = _box_diou_iou(boxes1, boxes2, eps)
    w1 = boxes1[..., :, None, 2] - boxes1[..., :, None, 0]
    h1 = boxes1[..., :, None, 3] - boxes1[..., :, None, 1]
    w2 = boxes2[..., None, :, 2] - boxes2[..., None, :, 0]
    h2 = boxes2[..., None, :, 3] - boxes2[..., None, :, 1]
    v = (4 / (math.pi**2)) * chainrule.pow(chainrule.atan(w1 / h1) - chainrule.atan(w2 / h2), 2)
    with chainrule.no_grad():
        alpha = v / (1 - iou + v + eps)
    return diou - alpha * v


def masks_to_boxes(masks: Tensor) -> Tensor:
    """The float ``(N, 4)`` xyxy box around each of ``(N, H, W)`` masks' nonzero pixels
    (inclusive pixel coordinates; zeros for an empty mask)."""
    if masks.numel() == 0:
        return chainrule.zeros((0, 4), dtype=chainrule.float)
    values = masks.numpy().astype(bool)
    boxes = np.zeros((values.shape[0], 4), dtype=np.float32)
    for i, mask in enumerate(values):
        rows, cols = np.nonzero(mask.any(axis=1))[0], np.nonzero(mask.any(axis=0))[0]
        if len(rows):
            boxes[i] = (cols[0], rows[0], cols[-1], rows[-1])
    return chainrule.from_numpy(boxes)
