"""``RoIHeads``: the second stage of the R-CNNs. Proposals are matched to the ground truth
and sampled (training), pooled from the feature maps, classified and refined
(``fastrcnn_loss``; ``postprocess_detections`` at inference), and, with the mask parts, given
per-class masks (``maskrcnn_loss``, ``maskrcnn_inference``, ``paste_masks_in_image``)."""

from __future__ import annotations

import chainrule
from chainrule import nn
from chainrule.nn import functional as F

from ...._tensor import Tensor
from ...ops import boxes as box_ops
from ...ops.roi_align import roi_align
from . import _utils as det_utils

__all__ = [
    "RoIHeads",
    "fastrcnn_loss",
    "keypointrcnn_inference",
    "keypointrcnn_loss",
    "maskrcnn_inference",
    "maskrcnn_loss",
    "paste_masks_in_image",
]


def fastrcnn_loss(
    class_logits: Tensor,
    box_regression: Tensor,
    labels: list[Tensor],
    regression_targets: list[Tensor],
) -> tuple[Tensor, Tensor]:
    """Cross entropy of the class logits, and the smooth L1 loss (beta 1/9, summed, divided
    by the number of samples) of the positive samples' box deltas of their own class."""
    labels_all = chainrule.cat(labels, dim=0)
    targets = chainrule.cat(regression_targets, dim=0)
    classification_loss = F.cross_entropy(class_logits, labels_all)
    positive = chainrule.where(labels_all > 0)[0]
    labels_pos = labels_all[positive]
    n = class_logits.shape[0]
    box_regression = box_regression.reshape(n, box_regression.size(-1) // 4, 4)
    box_loss = F.smooth_l1_loss(
        box_regression[positive, labels_pos], targets[positive], beta=1 / 9, reduction="sum"
    )
    return classification_loss, box_loss / labels_all.numel()


def maskrcnn_inference(x: Tensor, labels: list[Tensor]) -> list[Tensor]:
    """Per image, the sigmoid of each detection's mask logits for its label, ``(n, 1, M, M)``."""
    mask_prob = x.sigmoid()
    boxes_per_image = [label.shape[0] for label in labels]
    labels_all = chainrule.cat(labels)
    mask_prob = mask_prob[chainrule.arange(x.shape[0]), labels_all][:, None]
    return list(mask_prob.split(boxes_per_image, dim=0))


def project_masks_on_boxes(gt_masks: Tensor, boxes: Tensor, matched_idxs: Tensor, M: int) -> Tensor:
    """The matched ground-truth masks cropped to ``boxes`` and resampled to ``M x M``
    (RoI Align)."""
    rois = chainrule.cat([matched_idxs.to(boxes.dtype)[:, None], boxes], dim=1)
    masks = gt_masks[:, None].to(rois.dtype)
    return roi_align(masks, rois, (M, M), 1.0)[:, 0]


def maskrcnn_loss(
    mask_logits: Tensor,
    proposals: list[Tensor],
    gt_masks: list[Tensor],
    gt_labels: list[Tensor],
    mask_matched_idxs: list[Tensor],
) -> Tensor:
    """Binary cross entropy of each positive proposal's mask logits of its class against
    its ground-truth mask projected onto the proposal."""
    size = mask_logits.shape[-1]
    labels = [gt_label[idxs] for gt_label, idxs in zip(gt_labels, mask_matched_idxs)]
    targets = [
        project_masks_on_boxes(m, p, i, size)
        for m, p, i in zip(gt_masks, proposals, mask_matched_idxs)
    ]
    labels_all = chainrule.cat(labels, dim=0)
    targets_all = chainrule.cat(targets, dim=0)
    if targets_all.numel() == 0:
        return mask_logits.sum() * 0
    return F.binary_cross_entropy_with_logits(
        mask_logits[chainrule.arange(labels_all.shape[0]), labels_all], targets_all
    )


def expand_masks(mask: Tensor, padding: int) -> tuple[Tensor, float]:
    """Masks zero-padded by ``padding`` on each side, and the scale that padding adds."""
    m = mask.shape[-1]
    scale = float(m + 2 * padding) / m
    return F.pad(mask, (padding,) * 4), scale


def expand_boxes(boxes: Tensor, scale: float) -> Tensor:
    """Boxes scaled by ``scale`` about their centres."""
    w_half = (boxes[:, 2] - boxes[:, 0]) * 0.5 * scale
    h_half = (boxes[:, 3] - boxes[:, 1]) * 0.5 * scale
    x_c = (boxes[:, 2] + boxes[:, 0]) * 0.5
    y_c = (boxes[:, 3] + boxes[:, 1]) * 0.5
    return chainrule.stack((x_c - w_half, y_c - h_half, x_c + w_half, y_c + h_half), dim=1)


def paste_mask_in_image(mask: Tensor, box: Tensor, im_h: int, im_w: int) -> Tensor:
    """An ``(im_h, im_w)`` image, zero but for ``mask`` resized (bilinear) to the integer
    ``box`` (inclusive corners) and placed there."""
    x1, y1, x2, y2 = (int(v) for v in box.tolist())
    w, h = max(x2 - x1 + 1, 1), max(y2 - y1 + 1, 1)
    resized = F.interpolate(
        mask.expand((1, 1, -1, -1)), size=(h, w), mode="bilinear", align_corners=False
    )[0][0]
    x_0, x_1 = max(x1, 0), min(x2 + 1, im_w)
    y_0, y_1 = max(y1, 0), min(y2 + 1, im_h)
    im_mask = chainrule.zeros((im_h, im_w), dtype=resized.dtype)
    if y_1 > y_0 and x_1 > x_0:
        im_mask[y_0:y_1, x_0:x_1] = resized[y_0 - y1 : y_1 - y1, x_0 - x1 : x_1 - x1]
    return im_mask


def paste_masks_in_image(
    masks: Tensor, boxes: Tensor, img_shape: tuple[int, int], padding: int = 1
) -> Tensor:
    """Masks ``(N, 1, M, M)`` pasted into ``(N, 1, H, W)`` images at their ``boxes`` (padded
    by ``padding`` cells, the boxes grown to match, then truncated to integers)."""
    masks, scale = expand_masks(masks, padding=padding)
    boxes = expand_boxes(boxes, scale).to(dtype=chainrule.int64)
    im_h, im_w = img_shape
    pasted = [paste_mask_in_image(m[0], b, im_h, im_w) for m, b in zip(masks, boxes)]
    if pasted:
        return chainrule.stack(pasted, dim=0)[:, None]
    return masks.new_empty((0, 1, im_h, im_w))


def keypoints_to_heatmap(
    keypoints: Tensor, rois: Tensor, heatmap_size: int
) -> tuple[Tensor, Tensor]:
    """Each keypoint ``(x, y, visibility)`` as the flat index of its cell in a
    ``heatmap_size``-square grid over its RoI (points on the right or bottom edge go to
    the last cell), and whether it is visible and inside."""
    offset_x, offset_y = rois[:, 0:1], rois[:, 1:2]
    scale_x = heatmap_size / (rois[:, 2] - rois[:, 0])[:, None]
    scale_y = heatmap_size / (rois[:, 3] - rois[:, 1])[:, None]
    x, y = keypoints[..., 0], keypoints[..., 1]
    on_right = x == rois[:, 2][:, None]
    on_bottom = y == rois[:, 3][:, None]
    x = ((x - offset_x) * scale_x).floor().long()
    y = ((y - offset_y) * scale_y).floor().long()
    x = chainrule.where(on_right, heatmap_size - 1, x)
    y = chainrule.where(on_bottom, heatmap_size - 1, y)
    inside = (x >= 0) & (y >= 0) & (x < heatmap_size) & (y < heatmap_size)
    valid = (inside & (keypoints[..., 2] > 0)).long()
    return (y * heatmap_size + x) * valid, valid


def heatmaps_to_keypoints(maps: Tensor, rois: Tensor) -> tuple[Tensor, Tensor]:
    """Per RoI and keypoint, the centre of the best cell of its heatmap resized (bicubic)
    to the RoI's ceiled size, in image coordinates ``(x, y, 1)``, and that cell's value
    (float32, as torchvision)."""
    widths = (rois[:, 2] - rois[:, 0]).clamp(min=1)
    heights = (rois[:, 3] - rois[:, 1]).clamp(min=1)
    num_keypoints = maps.shape[1]
    xy_preds, end_scores = [], []
    for i in range(len(rois)):
        map_w, map_h = int(widths[i].ceil().item()), int(heights[i].ceil().item())
        roi_map = F.interpolate(
            maps[i][:, None], size=(map_h, map_w), mode="bicubic", align_corners=False
        )[:, 0]
        pos = roi_map.reshape(num_keypoints, -1).argmax(dim=1)
        x_int = pos % map_w
        y_int = chainrule.div(pos - x_int, map_w, rounding_mode="floor")
        x = (x_int.float() + 0.5) * (widths[i] / map_w)
        y = (y_int.float() + 0.5) * (heights[i] / map_h)
        ones = chainrule.ones(num_keypoints, dtype=chainrule.float32)
        xy_preds.append(
            chainrule.stack([(x + rois[i, 0]).float(), (y + rois[i, 1]).float(), ones], dim=1)
        )
        end_scores.append(roi_map[chainrule.arange(num_keypoints), y_int, x_int].float())
    if not xy_preds:
        return (
            chainrule.zeros((0, num_keypoints, 3), dtype=chainrule.float32),
            chainrule.zeros((0, num_keypoints), dtype=chainrule.float32),
        )
    return chainrule.stack(xy_preds), chainrule.stack(end_scores)


def keypointrcnn_loss(
    keypoint_logits: Tensor,
    proposals: list[Tensor],
    gt_keypoints: list[Tensor],
    keypoint_matched_idxs: list[Tensor],
) -> Tensor:
    """Cross entropy over the ``H x W`` cells of each visible keypoint's heatmap logits
    against the cell of its matched ground-truth keypoint."""
    N, K, H, W = keypoint_logits.shape
    if H != W:
        raise ValueError(
            "keypoint_logits height and width (last two elements of shape) should be equal. "
            f"Instead got H = {H} and W = {W}"
        )
    heatmaps, valid = [], []
    for proposals_per_image, gt_kp, midx in zip(proposals, gt_keypoints, keypoint_matched_idxs):
        heatmaps_per_image, valid_per_image = keypoints_to_heatmap(
            gt_kp[midx], proposals_per_image, H
        )
        heatmaps.append(heatmaps_per_image.view(-1))
        valid.append(valid_per_image.view(-1))
    targets = chainrule.cat(heatmaps, dim=0)
    valid_idx = chainrule.where(chainrule.cat(valid, dim=0) > 0)[0]
    if targets.numel() == 0 or len(valid_idx) == 0:
        return keypoint_logits.sum() * 0
    logits = keypoint_logits.view(N * K, H * W)
    return F.cross_entropy(logits[valid_idx], targets[valid_idx])


def keypointrcnn_inference(x: Tensor, boxes: list[Tensor]) -> tuple[list[Tensor], list[Tensor]]:
    """Per image, the keypoints ``(n, K, 3)`` and their scores ``(n, K)``."""
    kp_probs, kp_scores = [], []
    for xx, bb in zip(x.split([b.size(0) for b in boxes], dim=0), boxes):
        prob, scores = heatmaps_to_keypoints(xx, bb)
        kp_probs.append(prob)
        kp_scores.append(scores)
    return kp_probs, kp_scores


class RoIHeads(nn.Module):
    """Box (and optionally mask) heads on the proposals: ``forward(features, proposals,
    image_shapes, targets)`` gives the detections (eval) or the losses (training)."""

    __annotations__ = {
        "box_coder": det_utils.BoxCoder,
        "proposal_matcher": det_utils.Matcher,
        "fg_bg_sampler": det_utils.BalancedPositiveNegativeSampler,
    }

    def __init__(
        self,
        box_roi_pool: nn.Module,
        box_head: nn.Module,
        box_predictor: nn.Module,
        fg_iou_thresh: float,
        bg_iou_thresh: float,
        batch_size_per_image: int,
        positive_fraction: float,
        bbox_reg_weights: tuple[float, float, float, float] | None,
        score_thresh: float,
        nms_thresh: float,
        detections_per_img: int,
        mask_roi_pool: nn.Module | None = None,
        mask_head: nn.Module | None = None,
        mask_predictor: nn.Module | None = None,
        keypoint_roi_pool: nn.Module | None = None,
        keypoint_head: nn.Module | None = None,
        keypoint_predictor: nn.Module | None = None,
    ) -> None:
        super().__init__()
        self.box_similarity = box_ops.box_iou
        self.proposal_matcher = det_utils.Matcher(
            fg_iou_thresh, bg_iou_thresh, allow_low_quality_matches=False
        )
        self.fg_bg_sampler = det_utils.BalancedPositiveNegativeSampler(
            batch_size_per_image, positive_fraction
        )
        if bbox_reg_weights is None:
            bbox_reg_weights = (10.0, 10.0, 5.0, 5.0)
        self.box_coder = det_utils.BoxCoder(bbox_reg_weights)
        self.box_roi_pool = box_roi_pool
        self.box_head = box_head
        self.box_predictor = box_predictor
        self.score_thresh = score_thresh
        self.nms_thresh = nms_thresh
        self.detections_per_img = detections_per_img
        self.mask_roi_pool = mask_roi_pool
        self.mask_head = mask_head
        self.mask_predictor = mask_predictor
        self.keypoint_roi_pool = keypoint_roi_pool
        self.keypoint_head = keypoint_head
        self.keypoint_predictor = keypoint_predictor

    def has_mask(self) -> bool:
        """Whether the mask pool, head and predictor are all present."""
        return None not in (self.mask_roi_pool, self.mask_head, self.mask_predictor)

    def has_keypoint(self) -> bool:
        """Whether the keypoint pool, head and predictor are all present."""
        return None not in (self.keypoint_roi_pool, self.keypoint_head, self.keypoint_predictor)

    def assign_targets_to_proposals(
        self, proposals: list[Tensor], gt_boxes: list[Tensor], gt_labels: list[Tensor]
    ) -> tuple[list[Tensor], list[Tensor]]:
        """Per image, each proposal's matched ground-truth index (clamped at 0) and label
        (0 background, -1 ignored)."""
        matched_idxs, labels = [], []
        for proposals_in_image, gt_boxes_in_image, gt_labels_in_image in zip(
            proposals, gt_boxes, gt_labels
        ):
            if gt_boxes_in_image.numel() == 0:
                clamped = chainrule.zeros((proposals_in_image.shape[0],), dtype=chainrule.int64)
                labels_in_image = chainrule.zeros(
                    (proposals_in_image.shape[0],), dtype=chainrule.int64
                )
            else:
                quality = self.box_similarity(gt_boxes_in_image, proposals_in_image)
                matched = self.proposal_matcher(quality)
                clamped = matched.clamp(min=0)
                labels_in_image = gt_labels_in_image[clamped].to(dtype=chainrule.int64)
                labels_in_image = chainrule.where(
                    matched == self.proposal_matcher.BELOW_LOW_THRESHOLD, 0, labels_in_image
                )
                labels_in_image = chainrule.where(
                    matched == self.proposal_matcher.BETWEEN_THRESHOLDS, -1, labels_in_image
                )
            matched_idxs.append(clamped)
            labels.append(labels_in_image)
        return matched_idxs, labels

    def subsample(self, labels: list[Tensor]) -> list[Tensor]:
        """Per image, the indices of the sampled positives and negatives (ascending)."""
        sampled_pos, sampled_neg = self.fg_bg_sampler(labels)
        return [
            chainrule.where(pos.bool() | neg.bool())[0]
            for pos, neg in zip(sampled_pos, sampled_neg)
        ]

    def add_gt_proposals(self, proposals: list[Tensor], gt_boxes: list[Tensor]) -> list[Tensor]:
        """The ground-truth boxes appended to each image's proposals."""
        return [chainrule.cat((p, g)) for p, g in zip(proposals, gt_boxes)]

    def check_targets(self, targets: list[dict[str, Tensor]] | None) -> None:
        """Raise unless every target has boxes, labels (and masks with the mask head)."""
        if targets is None:
            raise ValueError("targets should not be None")
        if not all(["boxes" in t for t in targets]):
            raise ValueError("Every element of targets should have a boxes key")
        if not all(["labels" in t for t in targets]):
            raise ValueError("Every element of targets should have a labels key")
        if self.has_mask():
            if not all(["masks" in t for t in targets]):
                raise ValueError("Every element of targets should have a masks key")

    def select_training_samples(
        self, proposals: list[Tensor], targets: list[dict[str, Tensor]] | None
    ) -> tuple[list[Tensor], list[Tensor], list[Tensor], list[Tensor]]:
        """The sampled proposals (ground truth added) with their matched indices, labels and
        regression targets."""
        self.check_targets(targets)
        dtype = proposals[0].dtype
        gt_boxes = [t["boxes"].to(dtype) for t in targets]
        gt_labels = [t["labels"] for t in targets]
        proposals = self.add_gt_proposals(proposals, gt_boxes)
        matched_idxs, labels = self.assign_targets_to_proposals(proposals, gt_boxes, gt_labels)
        sampled_inds = self.subsample(labels)
        matched_gt_boxes = []
        for img_id, inds in enumerate(sampled_inds):
            proposals[img_id] = proposals[img_id][inds]
            labels[img_id] = labels[img_id][inds]
            matched_idxs[img_id] = matched_idxs[img_id][inds]
            gt = gt_boxes[img_id]
            if gt.numel() == 0:
                gt = chainrule.zeros((1, 4), dtype=dtype)
            matched_gt_boxes.append(gt[matched_idxs[img_id]])
        regression_targets = self.box_coder.encode(matched_gt_boxes, proposals)
        return proposals, matched_idxs, labels, regression_targets

    def postprocess_detections(
        self,
        class_logits: Tensor,
        box_regression: Tensor,
        proposals: list[Tensor],
        image_shapes: list[tuple[int, int]],
    ) -> tuple[list[Tensor], list[Tensor], list[Tensor]]:
        """Per image: one box per (proposal, foreground class) with softmax score above
        ``score_thresh``, not tiny, after per-class NMS, at most ``detections_per_img``."""
        num_classes = class_logits.shape[-1]
        boxes_per_image = [p.shape[0] for p in proposals]
        pred_boxes = self.box_coder.decode(box_regression, proposals)
        pred_scores = F.softmax(class_logits, -1)
        all_boxes, all_scores, all_labels = [], [], []
        for boxes, scores, image_shape in zip(
            pred_boxes.split(boxes_per_image, 0),
            pred_scores.split(boxes_per_image, 0),
            image_shapes,
        ):
            boxes = box_ops.clip_boxes_to_image(boxes, image_shape)
            labels = chainrule.arange(num_classes).view(1, -1).expand_as(scores)
            boxes = boxes[:, 1:].reshape(-1, 4)
            scores = scores[:, 1:].reshape(-1)
            labels = labels[:, 1:].reshape(-1)
            inds = chainrule.where(scores > self.score_thresh)[0]
            boxes, scores, labels = boxes[inds], scores[inds], labels[inds]
            keep = box_ops.remove_small_boxes(boxes, min_size=1e-2)
            boxes, scores, labels = boxes[keep], scores[keep], labels[keep]
            keep = box_ops.batched_nms(boxes, scores, labels, self.nms_thresh)
            keep = keep[: self.detections_per_img]
            all_boxes.append(boxes[keep])
            all_scores.append(scores[keep])
            all_labels.append(labels[keep])
        return all_boxes, all_scores, all_labels

    def forward(
        self,
        features: dict[str, Tensor],
        proposals: list[Tensor],
        image_shapes: list[tuple[int, int]],
        targets: list[dict[str, Tensor]] | None = None,
    ) -> tuple[list[dict[str, Tensor]], dict[str, Tensor]]:
        if targets is not None:
            for t in targets:
                if t["boxes"].dtype not in (chainrule.float, chainrule.double, chainrule.half):
                    raise TypeError(
                        f"target boxes must of float type, instead got {t['boxes'].dtype}"
                    )
                if t["labels"].dtype != chainrule.int64:
                    raise TypeError(
                        f"target labels must of int64 type, instead got {t['labels'].dtype}"
                    )
                if self.has_keypoint() and t["keypoints"].dtype != chainrule.float32:
                    raise TypeError(
                        f"target keypoints must of float type, instead got {t['keypoints'].dtype}"
                    )
        if self.training:
            proposals, matched_idxs, labels, regression_targets = self.select_training_samples(
                proposals, targets
            )
        else:
            labels, regression_targets, matched_idxs = None, None, None

        box_features = self.box_roi_pool(features, proposals, image_shapes)
        box_features = self.box_head(box_features)
        class_logits, box_regression = self.box_predictor(box_features)

        result: list[dict[str, Tensor]] = []
        losses: dict[str, Tensor] = {}
        if self.training:
            loss_classifier, loss_box_reg = fastrcnn_loss(
                class_logits, box_regression, labels, regression_targets
            )
            losses = {"loss_classifier": loss_classifier, "loss_box_reg": loss_box_reg}
        else:
            boxes, scores, labels_out = self.postprocess_detections(
                class_logits, box_regression, proposals, image_shapes
            )
            for i in range(len(boxes)):
                result.append({"boxes": boxes[i], "labels": labels_out[i], "scores": scores[i]})

        if self.has_mask():
            losses.update(
                self._mask_forward(
                    features, proposals, image_shapes, targets, result, labels, matched_idxs
                )
            )
        if self.has_keypoint():
            losses.update(
                self._keypoint_forward(
                    features, proposals, image_shapes, targets, result, labels, matched_idxs
                )
            )
        return result, losses

    def _mask_forward(
        self,
        features: dict[str, Tensor],
        proposals: list[Tensor],
        image_shapes: list[tuple[int, int]],
        targets: list[dict[str, Tensor]] | None,
        result: list[dict[str, Tensor]],
        labels: list[Tensor] | None,
        matched_idxs: list[Tensor] | None,
    ) -> dict[str, Tensor]:
        # masks of the positive proposals (training) or of the detections (eval)
        if self.training:
            if matched_idxs is None:
                raise ValueError("if in training, matched_idxs should not be None")
            mask_proposals, pos_matched_idxs = [], []
            for img_id in range(len(proposals)):
                pos = chainrule.where(labels[img_id] > 0)[0]
                mask_proposals.append(proposals[img_id][pos])
                pos_matched_idxs.append(matched_idxs[img_id][pos])
        else:
            mask_proposals = [p["boxes"] for p in result]
            pos_matched_idxs = None
        mask_features = self.mask_roi_pool(features, mask_proposals, image_shapes)
        mask_features = self.mask_head(mask_features)
        mask_logits = self.mask_predictor(mask_features)
        if self.training:
            if targets is None or pos_matched_idxs is None or mask_logits is None:
                raise ValueError(
                    "targets, pos_matched_idxs, mask_logits cannot be None when training"
                )
            gt_masks = [t["masks"] for t in targets]
            gt_labels = [t["labels"] for t in targets]
            loss = maskrcnn_loss(mask_logits, mask_proposals, gt_masks, gt_labels, pos_matched_idxs)
            return {"loss_mask": loss}
        masks_probs = maskrcnn_inference(mask_logits, [r["labels"] for r in result])
        for mask_prob, r in zip(masks_probs, result):
            r["masks"] = mask_prob
        return {}

    def _keypoint_forward(
        self,
        features: dict[str, Tensor],
        proposals: list[Tensor],
        image_shapes: list[tuple[int, int]],
        targets: list[dict[str, Tensor]] | None,
        result: list[dict[str, Tensor]],
        labels: list[Tensor] | None,
        matched_idxs: list[Tensor] | None,
    ) -> dict[str, Tensor]:
        # keypoints of the positive proposals (training) or of the detections (eval)
        if self.training:
            if matched_idxs is None:
                raise ValueError("if in trainning, matched_idxs should not be None")
            kp_proposals, pos_matched_idxs = [], []
            for img_id in range(len(proposals)):
                pos = chainrule.where(labels[img_id] > 0)[0]
                kp_proposals.append(proposals[img_id][pos])
                pos_matched_idxs.append(matched_idxs[img_id][pos])
        else:
            kp_proposals = [p["boxes"] for p in result]
            pos_matched_idxs = None
        kp_features = self.keypoint_roi_pool(features, kp_proposals, image_shapes)
        kp_logits = self.keypoint_predictor(self.keypoint_head(kp_features))
        if self.training:
            if targets is None or pos_matched_idxs is None:
                raise ValueError(
                    "both targets and pos_matched_idxs should not be None when in training mode"
                )
            gt_keypoints = [t["keypoints"] for t in targets]
            loss = keypointrcnn_loss(kp_logits, kp_proposals, gt_keypoints, pos_matched_idxs)
            return {"loss_keypoint": loss}
        keypoints_probs, kp_scores = keypointrcnn_inference(kp_logits, kp_proposals)
        for keypoint_prob, kps, r in zip(keypoints_probs, kp_scores, result):
            r["keypoints"] = keypoint_prob
            r["keypoints_scores"] = kps
        return {}
