"""The generalized IoU loss (Rezatofighi et al., 2019) between matched boxes."""

from __future__ import annotations

import chainrule

from ..._tensor import Tensor
from ._utils import _loss_inter_union, _reduce_loss, _upcast_non_float

__all__ = ["generalized_box_iou_loss"]


def generalized_box_iou_loss(
    boxes1: Tensor, boxes2: Tensor, reduction: str = "none", eps: float = 1e-7
) -> Tensor:
    """``1 - GIoU`` of each pair of xyxy boxes (``boxes1[i]`` with ``boxes2[i]``):
    ``GIoU = I/(U + eps) - (C - U)/(C + eps)``, C the area of the enclosing box."""
    boxes1, boxes2 = _upcast_non_float(boxes1), _upcast_non_float(boxes2)
    inter, union = _loss_inter_union(boxes1, boxes2)
    iou = inter / (union + eps)
    x1, y1, x2, y2 = boxes1.unbind(dim=-1)
    x1g, y1g, x2g, y2g = boxes2.unbind(dim=-1)
    enclosing = (chainrule.max(x2, x2g) - chainrule.min(x1, x1g)) * (
        chainrule.max(y2, y2g) - chainrule.min(y1, y1g)
    )
    return _reduce_loss(1 - (iou - (enclosing - union) / (enclosing + eps)), reduction)
