"""The region proposal network: ``RPNHead`` scores and regresses every anchor of every
feature map; ``RegionProposalNetwork`` decodes the best anchors into proposals (top-k per
level, clipped, NMS per level) and, when training, computes the objectness and box losses
on a random balanced sample of anchors."""

from __future__ import annotations

from typing import Any

import chainrule
from chainrule import nn
from chainrule.nn import functional as F

from ...._tensor import Tensor
from ...ops import boxes as box_ops
from ...ops.misc import Conv2dNormActivation
from . import _utils as det_utils
from .anchor_utils import AnchorGenerator
from .image_list import ImageList

__all__ = ["RPNHead", "RegionProposalNetwork"]


class RPNHead(nn.Module):
    """``conv_depth`` 3x3 conv + ReLU layers, then 1x1 convs giving ``num_anchors``
    objectness logits and ``4 num_anchors`` box deltas per cell, for each feature map."""

    _version = 2

    def __init__(self, in_channels: int, num_anchors: int, conv_depth: int = 1) -> None:
        super().__init__()
        convs = [
            Conv2dNormActivation(in_channels, in_channels, kernel_size=3, norm_layer=None)
            for _ in range(conv_depth)
        ]
        self.conv = nn.Sequential(*convs)
        self.cls_logits = nn.Conv2d(in_channels, num_anchors, kernel_size=1, stride=1)
        self.bbox_pred = nn.Conv2d(in_channels, num_anchors * 4, kernel_size=1, stride=1)
        for layer in self.modules():
            if isinstance(layer, nn.Conv2d):
                nn.init.normal_(layer.weight, std=0.01)
                if layer.bias is not None:
                    nn.init.constant_(layer.bias, 0)

    def _load_from_state_dict(
        self,
        state_dict: dict[str, Tensor],
        prefix: str,
        local_metadata: dict[str, Any],
        strict: bool,
        missing_keys: list[str],
        unexpected_keys: list[str],
        error_msgs: list[str],
    ) -> None:
        # version-1 checkpoints stored the single conv bare: ``conv.weight``
        if local_metadata.get("version", None) is None or local_metadata["version"] < 2:
            for kind in ("weight", "bias"):
                old = f"{prefix}conv.{kind}"
                if old in state_dict:
                    state_dict[f"{prefix}conv.0.0.{kind}"] = state_dict.pop(old)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )

    def forward(self, x: list[Tensor]) -> tuple[list[Tensor], list[Tensor]]:
        logits, bbox_reg = [], []
        for feature in x:
            t = self.conv(feature)
            logits.append(self.cls_logits(t))
            bbox_reg.append(self.bbox_pred(t))
        return logits, bbox_reg


def permute_and_flatten(layer: Tensor, N: int, A: int, C: int, H: int, W: int) -> Tensor:
    """``(N, A*C, H, W)`` to ``(N, H*W*A, C)`` (cells outer, anchors inner)."""
    return layer.view(N, -1, C, H, W).permute(0, 3, 4, 1, 2).reshape(N, -1, C)


def concat_box_prediction_layers(
    box_cls: list[Tensor], box_regression: list[Tensor]
) -> tuple[Tensor, Tensor]:
    """All levels' class logits as ``(N * anchors, C)`` and deltas as ``(N * anchors, 4)``."""
    cls_flat, reg_flat = [], []
    for cls_level, reg_level in zip(box_cls, box_regression):
        N, AxC, H, W = cls_level.shape
        A = reg_level.shape[1] // 4
        C = AxC // A
        cls_flat.append(permute_and_flatten(cls_level, N, A, C, H, W))
        reg_flat.append(permute_and_flatten(reg_level, N, A, 4, H, W))
    return chainrule.cat(cls_flat, dim=1).flatten(0, -2), chainrule.cat(reg_flat, dim=1).reshape(
        -1, 4
    )


class RegionProposalNetwork(nn.Module):
    """Proposals from anchors: ``forward(images, features, targets)`` gives per image up to
    ``post_nms_top_n`` boxes, and the losses ``loss_objectness`` and ``loss_rpn_box_reg``
    when training."""

    __annotations__ = {
        "box_coder": det_utils.BoxCoder,
        "proposal_matcher": det_utils.Matcher,
        "fg_bg_sampler": det_utils.BalancedPositiveNegativeSampler,
    }

    def __init__(
        self,
        anchor_generator: AnchorGenerator,
        head: nn.Module,
        fg_iou_thresh: float,
        bg_iou_thresh: float,
        batch_size_per_image: int,
        positive_fraction: float,
        pre_nms_top_n: dict[str, int],
        post_nms_top_n: dict[str, int],
        nms_thresh: float,
        score_thresh: float = 0.0,
    ) -> None:
        super().__init__()
        self.anchor_generator = anchor_generator
        self.head = head
        self.box_coder = det_utils.BoxCoder(weights=(1.0, 1.0, 1.0, 1.0))
        self.box_similarity = box_ops.box_iou
        self.proposal_matcher = det_utils.Matcher(
            fg_iou_thresh, bg_iou_thresh, allow_low_quality_matches=True
        )
        self.fg_bg_sampler = det_utils.BalancedPositiveNegativeSampler(
            batch_size_per_image, positive_fraction
        )
        self._pre_nms_top_n = pre_nms_top_n
        self._post_nms_top_n = post_nms_top_n
        self.nms_thresh = nms_thresh
        self.score_thresh = score_thresh
        self.min_size = 1e-3

    def pre_nms_top_n(self) -> int:
        """Anchors kept per level before NMS (training or testing value)."""
        return self._pre_nms_top_n["training" if self.training else "testing"]

    def post_nms_top_n(self) -> int:
        """Proposals kept per image after NMS (training or testing value)."""
        return self._post_nms_top_n["training" if self.training else "testing"]

    def assign_targets_to_anchors(
        self, anchors: list[Tensor], targets: list[dict[str, Tensor]]
    ) -> tuple[list[Tensor], list[Tensor]]:
        """Per image, anchor labels (1 object, 0 background, -1 ignored) and matched boxes."""
        labels, matched_gt_boxes = [], []
        for anchors_per_image, targets_per_image in zip(anchors, targets):
            gt_boxes = targets_per_image["boxes"]
            if gt_boxes.numel() == 0:
                matched = chainrule.zeros(anchors_per_image.shape, dtype=chainrule.float32)
                labels_per_image = chainrule.zeros(
                    (anchors_per_image.shape[0],), dtype=chainrule.float32
                )
            else:
                quality = self.box_similarity(gt_boxes, anchors_per_image)
                matched_idxs = self.proposal_matcher(quality)
                matched = gt_boxes[matched_idxs.clamp(min=0)]
                labels_per_image = (matched_idxs >= 0).to(dtype=chainrule.float32)
                labels_per_image = chainrule.where(
                    matched_idxs == self.proposal_matcher.BELOW_LOW_THRESHOLD, 0.0, labels_per_image
                )
                labels_per_image = chainrule.where(
                    matched_idxs == self.proposal_matcher.BETWEEN_THRESHOLDS, -1.0, labels_per_image
                )
            labels.append(labels_per_image)
            matched_gt_boxes.append(matched)
        return labels, matched_gt_boxes

    def _get_top_n_idx(self, objectness: Tensor, num_anchors_per_level: list[int]) -> Tensor:
        """Indices of each image's ``pre_nms_top_n`` best anchors of every level."""
        r, offset = [], 0
        for ob in objectness.split(num_anchors_per_level, 1):
            k = det_utils._topk_min(ob, self.pre_nms_top_n(), 1)
            _, top_n_idx = ob.topk(k, dim=1)
            r.append(top_n_idx + offset)
            offset += ob.shape[1]
        return chainrule.cat(r, dim=1)

    def filter_proposals(
        self,
        proposals: Tensor,
        objectness: Tensor,
        image_shapes: list[tuple[int, int]],
        num_anchors_per_level: list[int],
    ) -> tuple[list[Tensor], list[Tensor]]:
        """Per image: the top anchors of each level, clipped, without tiny or low-score
        boxes, after NMS within each level, at most ``post_nms_top_n``; with their
        objectness probabilities."""
        num_images = proposals.shape[0]
        objectness = objectness.detach().reshape(num_images, -1)
        levels = chainrule.cat(
            [
                chainrule.full((n,), idx, dtype=chainrule.int64)
                for idx, n in enumerate(num_anchors_per_level)
            ],
            0,
        )
        levels = levels.reshape(1, -1).expand_as(objectness)
        top_n_idx = self._get_top_n_idx(objectness, num_anchors_per_level)
        batch_idx = chainrule.arange(num_images)[:, None]
        objectness = objectness[batch_idx, top_n_idx]
        levels = levels[batch_idx, top_n_idx]
        proposals = proposals[batch_idx, top_n_idx]
        objectness_prob = chainrule.sigmoid(objectness)
        final_boxes, final_scores = [], []
        for boxes, scores, lvl, img_shape in zip(proposals, objectness_prob, levels, image_shapes):
            boxes = box_ops.clip_boxes_to_image(boxes, img_shape)
            keep = box_ops.remove_small_boxes(boxes, self.min_size)
            boxes, scores, lvl = boxes[keep], scores[keep], lvl[keep]
            keep = chainrule.where(scores >= self.score_thresh)[0]
            boxes, scores, lvl = boxes[keep], scores[keep], lvl[keep]
            keep = box_ops.batched_nms(boxes, scores, lvl, self.nms_thresh)
            keep = keep[: self.post_nms_top_n()]
            final_boxes.append(boxes[keep])
            final_scores.append(scores[keep])
        return final_boxes, final_scores

    def compute_loss(
        self,
        objectness: Tensor,
        pred_bbox_deltas: Tensor,
        labels: list[Tensor],
        regression_targets: list[Tensor],
    ) -> tuple[Tensor, Tensor]:
        """Binary cross entropy of the sampled anchors' objectness, and smooth L1 (beta 1/9,
        summed, over the number of samples) of the positive anchors' deltas."""
        sampled_pos, sampled_neg = self.fg_bg_sampler(labels)
        pos = chainrule.where(chainrule.cat(sampled_pos, dim=0))[0]
        neg = chainrule.where(chainrule.cat(sampled_neg, dim=0))[0]
        sampled = chainrule.cat([pos, neg], dim=0)
        objectness = objectness.flatten()
        labels_all = chainrule.cat(labels, dim=0)
        targets = chainrule.cat(regression_targets, dim=0)
        box_loss = (
            F.smooth_l1_loss(pred_bbox_deltas[pos], targets[pos], beta=1 / 9, reduction="sum")
            / sampled.numel()
        )
        objectness_loss = F.binary_cross_entropy_with_logits(
            objectness[sampled], labels_all[sampled]
        )
        return objectness_loss, box_loss

    def forward(
        self,
        images: ImageList,
        features: dict[str, Tensor],
        targets: list[dict[str, Tensor]] | None = None,
    ) -> tuple[list[Tensor], dict[str, Tensor]]:
        feature_list = list(features.values())
        objectness, pred_bbox_deltas = self.head(feature_list)
        anchors = self.anchor_generator(images, feature_list)
        num_images = len(anchors)
        num_anchors_per_level = [o[0].shape[0] * o[0].shape[1] * o[0].shape[2] for o in objectness]
        objectness, pred_bbox_deltas = concat_box_prediction_layers(objectness, pred_bbox_deltas)
        proposals = self.box_coder.decode(pred_bbox_deltas.detach(), anchors)
        proposals = proposals.view(num_images, -1, 4)
        boxes, scores = self.filter_proposals(
            proposals, objectness, images.image_sizes, num_anchors_per_level
        )
        losses: dict[str, Tensor] = {}
        if self.training:
            if targets is None:
                raise ValueError("targets should not be None")
            labels, matched_gt_boxes = self.assign_targets_to_anchors(anchors, targets)
            regression_targets = self.box_coder.encode(matched_gt_boxes, anchors)
            loss_objectness, loss_rpn_box_reg = self.compute_loss(
                objectness, pred_bbox_deltas, labels, regression_targets
            )
            losses = {"loss_objectness": loss_objectness, "loss_rpn_box_reg": loss_rpn_box_reg}
        return boxes, losses
