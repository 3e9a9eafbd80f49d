"""What the detection models share: ``BoxCoder`` (boxes to regression targets and back),
``Matcher`` (each prediction to its best ground-truth box), the random
``BalancedPositiveNegativeSampler`` and small helpers."""

from __future__ import annotations

import math

import chainrule
from chainrule import nn

from ...._tensor import Tensor
from ...ops.misc import FrozenBatchNorm2d

__all__ = [
    "BalancedPositiveNegativeSampler",
    "BoxCoder",
    "Matcher",
    "overwrite_eps",
]


class BalancedPositiveNegativeSampler:
    """Draws, per image, up to ``batch_size_per_image`` labels of which at most
    ``positive_fraction`` are positive (label >= 1) and the rest negative (label 0), at
    random (``randperm``); returns uint8 masks of the positives and of the negatives."""

    def __init__(self, batch_size_per_image: int, positive_fraction: float) -> None:
        self.batch_size_per_image = batch_size_per_image
        self.positive_fraction = positive_fraction

    def __call__(self, matched_idxs: list[Tensor]) -> tuple[list[Tensor], list[Tensor]]:
        pos_idx, neg_idx = [], []
        for matched in matched_idxs:
            positive = chainrule.where(matched >= 1)[0]
            negative = chainrule.where(matched == 0)[0]
            num_pos = min(positive.numel(), int(self.batch_size_per_image * self.positive_fraction))
            num_neg = min(negative.numel(), self.batch_size_per_image - num_pos)
            chosen_pos = positive[chainrule.randperm(positive.numel())[:num_pos]]
            chosen_neg = negative[chainrule.randperm(negative.numel())[:num_neg]]
            pos_mask = chainrule.zeros_like(matched, dtype=chainrule.uint8)
            neg_mask = chainrule.zeros_like(matched, dtype=chainrule.uint8)
            pos_mask[chosen_pos] = 1
            neg_mask[chosen_neg] = 1
            pos_idx.append(pos_mask)
            neg_idx.append(neg_mask)
        return pos_idx, neg_idx


def encode_boxes(reference_boxes: Tensor, proposals: Tensor, weights: Tensor) -> Tensor:
    """Regression targets ``(wx dx / w, wy dy / h, ww log(w' / w), wh log(h' / h))`` of the
    ``reference_boxes`` relative to the ``proposals`` (centre offsets and log size ratios)."""
    wx, wy, ww, wh = weights[0], weights[1], weights[2], weights[3]
    ex_w = proposals[:, 2:3] - proposals[:, 0:1]
    ex_h = proposals[:, 3:4] - proposals[:, 1:2]
    ex_x = proposals[:, 0:1] + 0.5 * ex_w
    ex_y = proposals[:, 1:2] + 0.5 * ex_h
    gt_w = reference_boxes[:, 2:3] - reference_boxes[:, 0:1]
    gt_h = reference_boxes[:, 3:4] - reference_boxes[:, 1:2]
    gt_x = reference_boxes[:, 0:1] + 0.5 * gt_w
    gt_y = reference_boxes[:, 1:2] + 0.5 * gt_h
    return chainrule.cat(
        (
            wx * (gt_x - ex_x) / ex_w,
            wy * (gt_y - ex_y) / ex_h,
            ww * chainrule.log(gt_w / ex_w),
            wh * chainrule.log(gt_h / ex_h),
        ),
        dim=1,
    )


class BoxCoder:
    """Encodes boxes as regression targets relative to reference boxes and decodes them
    back, with per-coordinate ``weights``; decoded log sizes are clamped at
    ``bbox_xform_clip``."""

    def __init__(
        self,
        weights: tuple[float, float, float, float],
        bbox_xform_clip: float = math.log(1000.0 / 16),
    ) -> None:
        self.weights = weights
        self.bbox_xform_clip = bbox_xform_clip

    def encode(self, reference_boxes: list[Tensor], proposals: list[Tensor]) -> list[Tensor]:
        """Per image, the targets of ``reference_boxes`` relative to ``proposals``."""
        boxes_per_image = [len(b) for b in reference_boxes]
        targets = self.encode_single(chainrule.cat(reference_boxes, 0), chainrule.cat(proposals, 0))
        return list(targets.split(boxes_per_image, 0))

    def encode_single(self, reference_boxes: Tensor, proposals: Tensor) -> Tensor:
        """The targets of ``reference_boxes`` relative to ``proposals`` (one tensor)."""
        weights = chainrule.as_tensor(self.weights, dtype=reference_boxes.dtype)
        return encode_boxes(reference_boxes, proposals, weights)

    def decode(self, rel_codes: Tensor, boxes: list[Tensor]) -> Tensor:
        """The boxes the codes ``rel_codes`` describe relative to the concatenated ``boxes``:
        ``(total, K, 4)``."""
        if not isinstance(boxes, (list, tuple)):
            raise AssertionError("This function expects boxes of type list or tuple.")
        if not isinstance(rel_codes, Tensor):
            raise AssertionError("This function expects rel_codes of type torch.Tensor.")
        box_sum = sum(int(b.size(0)) for b in boxes)
        concat_boxes = chainrule.cat(list(boxes), dim=0)
        if box_sum > 0:
            rel_codes = rel_codes.reshape(box_sum, -1)
        pred_boxes = self.decode_single(rel_codes, concat_boxes)
        if box_sum > 0:
            pred_boxes = pred_boxes.reshape(box_sum, -1, 4)
        return pred_boxes

    def decode_single(self, rel_codes: Tensor, boxes: Tensor) -> Tensor:
        """Boxes ``(x1, y1, x2, y2)`` from codes ``(N, 4K)`` relative to ``boxes (N, 4)``."""
        boxes = boxes.to(rel_codes.dtype)
        widths = boxes[:, 2] - boxes[:, 0]
        heights = boxes[:, 3] - boxes[:, 1]
        ctr_x = boxes[:, 0] + 0.5 * widths
        ctr_y = boxes[:, 1] + 0.5 * heights
        wx, wy, ww, wh = self.weights
        dx = rel_codes[:, 0::4] / wx
        dy = rel_codes[:, 1::4] / wy
        dw = chainrule.clamp(rel_codes[:, 2::4] / ww, max=self.bbox_xform_clip)
        dh = chainrule.clamp(rel_codes[:, 3::4] / wh, max=self.bbox_xform_clip)
        pred_ctr_x = dx * widths[:, None] + ctr_x[:, None]
        pred_ctr_y = dy * heights[:, None] + ctr_y[:, None]
        half_w = 0.5 * (chainrule.exp(dw) * widths[:, None])
        half_h = 0.5 * (chainrule.exp(dh) * heights[:, None])
        corners = (
            pred_ctr_x - half_w,
            pred_ctr_y - half_h,
            pred_ctr_x + half_w,
            pred_ctr_y + half_h,
        )
        return chainrule.stack(corners, dim=2).flatten(1)


class Matcher:
    """Assigns each prediction (column of an ``(M gt, N predictions)`` quality matrix) the
    index of its best ground truth, or ``BELOW_LOW_THRESHOLD`` (-1) when that quality is
    below ``low_threshold``, ``BETWEEN_THRESHOLDS`` (-2) when below ``high_threshold``.
    With ``allow_low_quality_matches``, each ground truth's best predictions keep it."""

    BELOW_LOW_THRESHOLD = -1
    BETWEEN_THRESHOLDS = -2

    __annotations__ = {"BELOW_LOW_THRESHOLD": int, "BETWEEN_THRESHOLDS": int}

    def __init__(
        self, high_threshold: float, low_threshold: float, allow_low_quality_matches: bool = False
    ) -> None:
        if low_threshold > high_threshold:
            raise AssertionError("low_threshold should be <= high_threshold")
        self.high_threshold = high_threshold
        self.low_threshold = low_threshold
        self.allow_low_quality_matches = allow_low_quality_matches

    def __call__(self, match_quality_matrix: Tensor) -> Tensor:
        if match_quality_matrix.numel() == 0:
            if match_quality_matrix.shape[0] == 0:
                raise ValueError(
                    "No ground-truth boxes available for one of the images during training"
                )
            raise ValueError("No proposal boxes available for one of the images during training")
        matched_vals, matches = match_quality_matrix.max(dim=0)
        all_matches = matches.clone() if self.allow_low_quality_matches else None
        below = matched_vals < self.low_threshold
        between = (matched_vals >= self.low_threshold) & (matched_vals < self.high_threshold)
        matches = chainrule.where(below, self.BELOW_LOW_THRESHOLD, matches)
        matches = chainrule.where(between, self.BETWEEN_THRESHOLDS, matches)
        if all_matches is not None:
            matches = self.set_low_quality_matches_(matches, all_matches, match_quality_matrix)
        return matches

    def set_low_quality_matches_(
        self, matches: Tensor, all_matches: Tensor, match_quality_matrix: Tensor
    ) -> Tensor:
        """Give back to every prediction that is some ground truth's best (ties included)
        its original best match."""
        highest_quality_foreach_gt, _ = match_quality_matrix.max(dim=1)
        best = (match_quality_matrix == highest_quality_foreach_gt[:, None]).any(dim=0)
        matches.copy_(chainrule.where(best, all_matches, matches))
        return matches


class SSDMatcher(Matcher):
    """A :class:`Matcher` (low = high threshold) that also matches each ground truth to
    its single best prediction, whatever the quality."""

    def __init__(self, threshold: float) -> None:
        super().__init__(threshold, threshold, allow_low_quality_matches=False)

    def __call__(self, match_quality_matrix: Tensor) -> Tensor:
        matches = super().__call__(match_quality_matrix)
        _, highest_quality_pred_foreach_gt = match_quality_matrix.max(dim=1)
        matches[highest_quality_pred_foreach_gt] = chainrule.arange(
            highest_quality_pred_foreach_gt.size(0), dtype=chainrule.int64
        )
        return matches


def overwrite_eps(model: nn.Module, eps: float) -> None:
    """Set ``eps`` of every ``FrozenBatchNorm2d`` of ``model`` (older checkpoints used 0)."""
    for module in model.modules():
        if isinstance(module, FrozenBatchNorm2d):
            module.eps = eps


def _topk_min(input: Tensor, orig_kval: int, axis: int) -> int:
    """``orig_kval``, at most the size of ``input`` along ``axis``."""
    return min(orig_kval, int(input.size(axis)))


def _box_loss(
    type: str,
    box_coder: BoxCoder,
    anchors_per_image: Tensor,
    matched_gt_boxes_per_image: Tensor,
    bbox_regression_per_image: Tensor,
    cnf: dict[str, float] | None = None,
) -> Tensor:
    """The summed box loss ``type`` of the predicted deltas: L1 or smooth L1 (``beta``) on
    the encoded targets, or an IoU loss (``ciou``, ``diou``, ``giou``, ``eps``) on the
    decoded boxes."""
    if type not in ["l1", "smooth_l1", "ciou", "diou", "giou"]:
        raise AssertionError(f"Unsupported loss: {type}")
    if type in ("l1", "smooth_l1"):
        target = box_coder.encode_single(matched_gt_boxes_per_image, anchors_per_image)
        if type == "l1":
            return nn.functional.l1_loss(bbox_regression_per_image, target, reduction="sum")
        beta = cnf["beta"] if cnf is not None and "beta" in cnf else 1.0
        return nn.functional.smooth_l1_loss(
            bbox_regression_per_image, target, reduction="sum", beta=beta
        )
    from ...ops import complete_box_iou_loss, distance_box_iou_loss, generalized_box_iou_loss

    boxes = box_coder.decode_single(bbox_regression_per_image, anchors_per_image)
    eps = cnf["eps"] if cnf is not None and "eps" in cnf else 1e-7
    loss = {
        "ciou": complete_box_iou_loss,
        "diou": distance_box_iou_loss,
        "giou": generalized_box_iou_loss,
    }[type]
    return loss(boxes, matched_gt_boxes_per_image, reduction="sum", eps=eps)


class BoxLinearCoder:
    """Encodes a box relative to a reference box as the distances ``(left, top, right,
    bottom)`` from the reference's centre to the box's sides (divided by the reference's
    width and height with ``normalize_by_size``), and decodes them back."""

    def __init__(self, normalize_by_size: bool = True) -> None:
        self.normalize_by_size = normalize_by_size

    def _sizes(self, boxes: Tensor) -> Tensor:
        w = boxes[..., 2] - boxes[..., 0]
        h = boxes[..., 3] - boxes[..., 1]
        return chainrule.stack((w, h, w, h), dim=-1)

    def encode(self, reference_boxes: Tensor, boxes: Tensor) -> Tensor:
        """The side distances of ``boxes`` from the centres of ``reference_boxes``."""
        ctr_x = 0.5 * (reference_boxes[..., 0] + reference_boxes[..., 2])
        ctr_y = 0.5 * (reference_boxes[..., 1] + reference_boxes[..., 3])
        targets = chainrule.stack(
            (
                ctr_x - boxes[..., 0],
                ctr_y - boxes[..., 1],
                boxes[..., 2] - ctr_x,
                boxes[..., 3] - ctr_y,
            ),
            dim=-1,
        )
        if self.normalize_by_size:
            targets = targets / self._sizes(reference_boxes)
        return targets

    def decode(self, rel_codes: Tensor, boxes: Tensor) -> Tensor:
        """Boxes whose sides lie ``rel_codes`` from the centres of ``boxes``."""
        boxes = boxes.to(dtype=rel_codes.dtype)
        ctr_x = 0.5 * (boxes[..., 0] + boxes[..., 2])
        ctr_y = 0.5 * (boxes[..., 1] + boxes[..., 3])
        if self.normalize_by_size:
            rel_codes = rel_codes * self._sizes(boxes)
        return chainrule.stack(
            (
                ctr_x - rel_codes[..., 0],
                ctr_y - rel_codes[..., 1],
                ctr_x + rel_codes[..., 2],
                ctr_y + rel_codes[..., 3],
            ),
            dim=-1,
        )


def retrieve_out_channels(model: nn.Module, size: tuple[int, int]) -> list[int]:
    """The channels of each feature map ``model`` returns for a zero image of ``size``
    (found by running it once in eval mode)."""
    was_training = model.training
    model.eval()
    with chainrule.no_grad():
        features = model(chainrule.zeros((1, 3, size[1], size[0])))
        if isinstance(features, Tensor):
            features = {"0": features}
        out_channels = [x.size(1) for x in features.values()]
    if was_training:
        model.train()
    return out_channels


# ----- the checks every detector's forward makes on its inputs -------------------------------


def _check_targets(
    training: bool, targets: list[dict[str, Tensor]] | None, name_type: bool
) -> None:
    """In training, targets are given and each one's ``boxes`` is an (N, 4) tensor
    (``name_type``: the type error names the type found, as the R-CNNs' and SSD's do)."""
    if not training:
        return
    if targets is None:
        raise AssertionError("targets should not be none when in training mode")
    for target in targets:
        boxes = target["boxes"]
        if not isinstance(boxes, Tensor):
            found = f", got {type(boxes)}" if name_type else ""
            raise AssertionError(f"Expected target boxes to be of type Tensor{found}.")
        if not (len(boxes.shape) == 2 and boxes.shape[-1] == 4):
            raise AssertionError(
                f"Expected target boxes to be a tensor of shape [N, 4], got {boxes.shape}."
            )


def _original_image_sizes(images: list[Tensor]) -> list[tuple[int, int]]:
    """Each image's (H, W), before the transform resizes it."""
    sizes = []
    for img in images:
        val = img.shape[-2:]
        if len(val) != 2:
            raise AssertionError(
                f"expecting the last two dimensions of the Tensor to be H and W instead got {img.shape[-2:]}"
            )
        sizes.append((int(val[0]), int(val[1])))
    return sizes


def _check_degenerate_boxes(targets: list[dict[str, Tensor]] | None) -> None:
    """Every target box (after the transform) has a positive width and height."""
    for target_idx, target in enumerate(targets or []):
        boxes = target["boxes"]
        degenerate = (boxes[:, 2:] <= boxes[:, :2]).any(dim=1)
        if degenerate.any():
            bb_idx = int(chainrule.where(degenerate)[0][0])
            raise AssertionError(
                "All bounding boxes should have positive height and width."
                f" Found invalid box {boxes[bb_idx].tolist()} for target at index {target_idx}."
            )
