"""``GeneralizedRCNN``: transform, backbone, region proposals, RoI heads, and the
detections mapped back to the input sizes (the losses when training)."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from chainrule import nn

from ...._tensor import Tensor
from . import _utils as det_utils

__all__ = ["GeneralizedRCNN"]


class GeneralizedRCNN(nn.Module):
    """``forward(images, targets=None)``: a dict of losses when training (targets with
    ``boxes`` ``(N, 4)`` and ``labels``), else per image a dict of ``boxes``, ``labels``,
    ``scores`` (and ``masks`` / ``keypoints``)."""

    def __init__(
        self, backbone: nn.Module, rpn: nn.Module, roi_heads: nn.Module, transform: nn.Module
    ) -> None:
        super().__init__()
        self.transform = transform
        self.backbone = backbone
        self.rpn = rpn
        self.roi_heads = roi_heads
        self._has_warned = False

    def eager_outputs(
        self, losses: dict[str, Tensor], detections: list[dict[str, Tensor]]
    ) -> dict[str, Tensor] | list[dict[str, Tensor]]:
        """The losses when training, else the detections."""
        if self.training:
            return losses
        return detections

    def forward(self, images: list[Tensor], targets: list[dict[str, Tensor]] | None = None) -> Any:
        det_utils._check_targets(self.training, targets, name_type=True)
        original_image_sizes = det_utils._original_image_sizes(images)
        images, targets = self.transform(images, targets)
        det_utils._check_degenerate_boxes(targets)

        features = self.backbone(images.tensors)
        if isinstance(features, Tensor):
            features = OrderedDict([("0", features)])
        proposals, proposal_losses = self.rpn(images, features, targets)
        detections, detector_losses = self.roi_heads(
            features, proposals, images.image_sizes, targets
        )
        detections = self.transform.postprocess(
            detections, images.image_sizes, original_image_sizes
        )
        losses: dict[str, Tensor] = {}
        losses.update(detector_losses)
        losses.update(proposal_losses)
        return self.eager_outputs(losses, detections)
