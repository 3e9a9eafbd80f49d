"""Conversions between box formats: corners ``xyxy``, corner and size ``xywh``, center and
size ``cxcywh``, and the rotated ``xywhr`` / ``cxcywhr`` (angle ``r`` in degrees,
counter-clockwise) and ``xyxyxyxy`` (the four corners). Integer boxes are rounded back."""

from __future__ import annotations

import math

import chainrule

from ..._tensor import Tensor


def _box_cxcywh_to_xyxy(boxes: Tensor) -> Tensor:
    cx, cy, w, h = boxes.unbind(-1)
    return chainrule.stack((cx - 0.5 * w, cy - 0.5 * h, cx + 0.5 * w, cy + 0.5 * h), dim=-1)


def _box_xyxy_to_cxcywh(boxes: Tensor) -> Tensor:
    x1, y1, x2, y2 = boxes.unbind(-1)
    return chainrule.stack(((x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1), dim=-1)


def _box_xywh_to_xyxy(boxes: Tensor) -> Tensor:
    x, y, w, h = boxes.unbind(-1)
    return chainrule.stack((x, y, x + w, y + h), dim=-1)


def _box_xyxy_to_xywh(boxes: Tensor) -> Tensor:
    x1, y1, x2, y2 = boxes.unbind(-1)
    return chainrule.stack((x1, y1, x2 - x1, y2 - y1), dim=-1)


def _rounded_like(boxes: Tensor, dtype: chainrule.dtype) -> Tensor:
    return boxes if dtype.is_floating_point else boxes.round().to(dtype)


def _cos_sin(r: Tensor) -> tuple[Tensor, Tensor]:
    radians = r * math.pi / 180.0
    return chainrule.cos(radians), chainrule.sin(radians)


def _box_cxcywhr_to_xywhr(boxes: Tensor) -> Tensor:
    cx, cy, w, h, r = boxes.unbind(-1)
    cos, sin = _cos_sin(r)
    x1 = cx - w / 2 * cos - h / 2 * sin
    y1 = cy - h / 2 * cos + w / 2 * sin
    return _rounded_like(chainrule.stack((x1, y1, w, h, r), dim=-1), boxes.dtype)


def _box_xywhr_to_cxcywhr(boxes: Tensor) -> Tensor:
    x1, y1, w, h, r = boxes.unbind(-1)
    cos, sin = _cos_sin(r)
    cx = x1 + w / 2 * cos + h / 2 * sin
    cy = y1 - w / 2 * sin + h / 2 * cos
    return _rounded_like(chainrule.stack((cx, cy, w, h, r), dim=-1), boxes.dtype)


def _box_xywhr_to_xyxyxyxy(boxes: Tensor) -> Tensor:
    x1, y1, w, h, r = boxes.unbind(-1)
    cos, sin = _cos_sin(r)
    x2, y2 = x1 + w * cos, y1 - w * sin
    x3, y3 = x2 + h * sin, y2 + h * cos
    x4, y4 = x1 + h * sin, y1 + h * cos
    return _rounded_like(chainrule.stack((x1, y1, x2, y2, x3, y3, x4, y4), dim=-1), boxes.dtype)


def _box_xyxyxyxy_to_xywhr(boxes: Tensor) -> Tensor:
    x1, y1, x2, y2, x3, y3, _, _ = boxes.unbind(-1)
    r = chainrule.atan2(y1 - y2, x2 - x1) * 180 / math.pi
    w = ((x2 - x1) ** 2 + (y1 - y2) ** 2).sqrt()
    h = ((x3 - x2) ** 2 + (y3 - y2) ** 2).sqrt()
    return _rounded_like(chainrule.stack((x1, y1, w, h, r), dim=-1), boxes.dtype)
