"""The complete IoU loss (Zheng et al., 2020) between matched boxes."""

from __future__ import annotations

import math

import chainrule

from ..._tensor import Tensor
from ._utils import _reduce_loss, _upcast_non_float
from .diou_loss import _diou_iou_loss

__all__ = ["complete_box_iou_loss"]


def complete_box_iou_loss(
    boxes1: Tensor, boxes2: Tensor, reduction: str = "none", eps: float = 1e-7
) -> Tensor:
    """DIoU loss ``+ alpha * v`` for each pair, ``v = 4/pi^2 (atan(w2/h2) - atan(w1/h1))^2``,
    ``alpha = v / (1 - IoU + v + eps)`` held constant for the gradient. (As torchvision,
    the DIoU part uses the default ``eps``.)"""
    boxes1, boxes2 = _upcast_non_float(boxes1), _upcast_non_float(boxes2)
    diou_loss, iou = _diou_iou_loss(boxes1, boxes2)
    x1, y1, x2, y2 = boxes1.unbind(dim=-1)
    x1g, y1g, x2g, y2g = boxes2.unbind(dim=-1)
    angle_gap = chainrule.atan((x2g - x1g) / (y2g - y1g)) - chainrule.atan((x2 - x1) / (y2 - y1))
    v = (4 / (math.pi**2)) * chainrule.pow(angle_gap, 2)
    with chainrule.no_grad():
        alpha = v / (1 - iou + v + eps)
    return _reduce_loss(diou_loss + alpha * v, reduction)
