"""The focal loss of RetinaNet (Lin et al., 2017) for binary targets."""

from __future__ import annotations

import chainrule
from chainrule.nn import functional as F

from ..._tensor import Tensor
from ._utils import _reduce_loss

__all__ = ["sigmoid_focal_loss"]


def sigmoid_focal_loss(
    inputs: Tensor,
    targets: Tensor,
    alpha: float = 0.25,
    gamma: float = 2,
    reduction: str = "none",
) -> Tensor:
    """``alpha_t * (1 - p_t)^gamma * BCE(inputs, targets)`` with ``p = sigmoid(inputs)``,
    ``p_t = p`` where the target is 1 and ``1 - p`` where 0, ``alpha_t`` likewise
    (``alpha = -1`` leaves out the weighting)."""
    if not (0 <= alpha <= 1) and alpha != -1:
        raise ValueError(
            f"Invalid alpha value: {alpha}. alpha must be in the range [0,1] or -1 for ignore."
        )
    p = chainrule.sigmoid(inputs)
    ce = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce * ((1 - p_t) ** gamma)
    if alpha >= 0:
        loss = (alpha * targets + (1 - alpha) * (1 - targets)) * loss
    if reduction == "mean":
        return loss.mean()
    return _reduce_loss(loss, reduction)
