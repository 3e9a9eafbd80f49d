"""The distance IoU loss (Zheng et al., 2019) between matched boxes."""

from __future__ import annotations

import chainrule

from ..._tensor import Tensor
from ._utils import _loss_inter_union, _reduce_loss, _upcast_non_float

__all__ = ["distance_box_iou_loss"]


def _diou_iou_loss(boxes1: Tensor, boxes2: Tensor, eps: float = 1e-7) -> tuple[Tensor, Tensor]:
    """``1 - IoU + d^2 / c^2`` (d between the centers, c the enclosing box's diagonal, plus
    ``eps``) and the IoU, for each pair."""
    inter, union = _loss_inter_union(boxes1, boxes2)
    iou = inter / (union + eps)
    x1, y1, x2, y2 = boxes1.unbind(dim=-1)
    x1g, y1g, x2g, y2g = boxes2.unbind(dim=-1)
    diagonal_squared = (
        ((chainrule.max(x2, x2g) - chainrule.min(x1, x1g)) ** 2)
        + ((chainrule.max(y2, y2g) - chainrule.min(y1, y1g)) ** 2)
        + eps
    )
    centers_squared = (((x2 + x1) / 2 - (x1g + x2g) / 2) ** 2) + (
        ((y2 + y1) / 2 - (y1g + y2g) / 2) ** 2
    )
    return 1 - iou + (centers_squared / diagonal_squared), iou


def distance_box_iou_loss(
    boxes1: Tensor, boxes2: Tensor, reduction: str = "none", eps: float = 1e-7
) -> Tensor:
    """``1 - DIoU`` of each pair of xyxy boxes (``boxes1[i]`` with ``boxes2[i]``)."""
    loss, _ = _diou_iou_loss(_upcast_non_float(boxes1), _upcast_non_float(boxes2), eps)
    return _reduce_loss(loss, reduction)
