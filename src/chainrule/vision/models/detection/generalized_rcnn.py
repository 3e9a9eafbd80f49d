"""``GeneralizedRCNN``: transform, backbone, region proposals, RoI heads, and the
detections mapped back to the input sizes (the losses when training)."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import chainrule
from chainrule import nn

from ...._tensor import Tensor

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
        if self.training:
            if targets is None:
                raise AssertionError("targets should not be none when in training mode")
            for target in targets:
                boxes = target["boxes"]
                if not isinstance(boxes, Tensor):
                    raise AssertionError(
                        f"Expected target boxes to be of type Tensor, got {type(boxes)}."
                    )
                if not (len(boxes.shape) == 2 and boxes.shape[-1] == 4):
                    raise AssertionError(
                        f"Expected target boxes to be a tensor of shape [N, 4], got {boxes.shape}."
                    )
        original_image_sizes: list[tuple[int, int]] = []
        for img in images:
            val = img.shape[-2:]
            if len(val) != 2:
                raise AssertionError(
                    f"expecting the last two dimensions of the Tensor to be H and W instead got {img.shape[-2:]}"
                )
            original_image_sizes.append((int(val[0]), int(val[1])))

        images, targets = self.transform(images, targets)
        if targets is not None:
            for target_idx, target in enumerate(targets):
                boxes = target["boxes"]
                degenerate = (boxes[:, 2:] <= boxes[:, :2]).any(dim=1)
                if degenerate.any():
                    bb_idx = int(chainrule.where(degenerate)[0][0])
                    degen_bb = boxes[bb_idx].tolist()
                    raise AssertionError(
                        "All bounding boxes should have positive height and width."
                        f" Found invalid box {degen_bb} for target at index {target_idx}."
                    )

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
