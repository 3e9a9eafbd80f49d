"""RetinaNet (Lin et al., 2017): one-stage detection on a ResNet-50 feature pyramid
(P3-P7), nine anchors per cell, a classification head trained with the sigmoid focal loss
and a box regression head (L1, or GIoU in v2)."""

from __future__ import annotations

import math
from collections import OrderedDict
from functools import partial
from typing import Any

import chainrule
from chainrule import nn

from ...._tensor import Tensor
from ...ops import boxes as box_ops
from ...ops import misc as misc_nn_ops
from ...ops.feature_pyramid_network import LastLevelP6P7
from ...ops.focal_loss import sigmoid_focal_loss
from .._api import Weights, WeightsEnum, register_model
from .._utils import handle_legacy_interface
from ..resnet import ResNet50_Weights, resnet50
from . import _utils as det_utils
from ._utils import _box_loss, overwrite_eps
from .anchor_utils import AnchorGenerator
from .backbone_utils import _resnet_fpn_extractor, _validate_trainable_layers
from .faster_rcnn import _COMMON_META, ObjectDetection, _num_classes
from .transform import GeneralizedRCNNTransform

__all__ = [
    "RetinaNet",
    "RetinaNet_ResNet50_FPN_Weights",
    "RetinaNet_ResNet50_FPN_V2_Weights",
    "retinanet_resnet50_fpn",
    "retinanet_resnet50_fpn_v2",
]


def _sum(x: list[Tensor]) -> Tensor:
    total = x[0]
    for item in x[1:]:
        total = total + item
    return total


def _default_anchorgen() -> AnchorGenerator:
    anchor_sizes = tuple(
        (x, int(x * 2 ** (1.0 / 3)), int(x * 2 ** (2.0 / 3))) for x in [32, 64, 128, 256, 512]
    )
    aspect_ratios = ((0.5, 1.0, 2.0),) * len(anchor_sizes)
    return AnchorGenerator(anchor_sizes, aspect_ratios)


def _conv_tower(in_channels: int, norm_layer: Any) -> nn.Sequential:
    # four 3x3 conv(-norm)-ReLU layers, weights N(0, 0.01), zero biases
    conv = nn.Sequential(
        *[
            misc_nn_ops.Conv2dNormActivation(in_channels, in_channels, norm_layer=norm_layer)
            for _ in range(4)
        ]
    )
    for layer in conv.modules():
        if isinstance(layer, nn.Conv2d):
            nn.init.normal_(layer.weight, std=0.01)
            if layer.bias is not None:
                nn.init.constant_(layer.bias, 0)
    return conv


def _v1_to_v2_weights(state_dict: dict[str, Tensor], prefix: str) -> None:
    # version-1 heads stored the tower as bare conv, ReLU pairs: ``conv.0``, ``conv.2`` ...
    for i in range(4):
        for kind in ("weight", "bias"):
            old = f"{prefix}conv.{2 * i}.{kind}"
            if old in state_dict:
                state_dict[f"{prefix}conv.{i}.0.{kind}"] = state_dict.pop(old)


def _flatten_levels(outputs: list[Tensor], per_anchor: int) -> Tensor:
    # each (N, A*K, H, W) to (N, H*W*A, K), levels concatenated
    flat = []
    for out in outputs:
        N, _, H, W = out.shape
        flat.append(
            out.view(N, -1, per_anchor, H, W).permute(0, 3, 4, 1, 2).reshape(N, -1, per_anchor)
        )
    return chainrule.cat(flat, dim=1)


class RetinaNetClassificationHead(nn.Module):
    """A conv tower and a 3x3 conv to ``num_anchors * num_classes`` logits per cell (bias
    ``-log((1 - p) / p)`` for the prior ``p``); the loss is the sigmoid focal loss."""

    _version = 2

    def __init__(
        self,
        in_channels: int,
        num_anchors: int,
        num_classes: int,
        prior_probability: float = 0.01,
        norm_layer: Any = None,
    ) -> None:
        super().__init__()
        self.conv = _conv_tower(in_channels, norm_layer)
        self.cls_logits = nn.Conv2d(
            in_channels, num_anchors * num_classes, kernel_size=3, stride=1, padding=1
        )
        nn.init.normal_(self.cls_logits.weight, std=0.01)
        nn.init.constant_(
            self.cls_logits.bias, -math.log((1 - prior_probability) / prior_probability)
        )
        self.num_classes = num_classes
        self.num_anchors = num_anchors
        self.BETWEEN_THRESHOLDS = det_utils.Matcher.BETWEEN_THRESHOLDS

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
        if local_metadata.get("version", None) is None or local_metadata["version"] < 2:
            _v1_to_v2_weights(state_dict, prefix)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )

    def compute_loss(
        self,
        targets: list[dict[str, Tensor]],
        head_outputs: dict[str, Tensor],
        matched_idxs: list[Tensor],
    ) -> Tensor:
        """Mean over images of the summed focal loss of the non-ignored anchors, over the
        number of foreground anchors (at least 1)."""
        losses = []
        for target, logits, matched in zip(targets, head_outputs["cls_logits"], matched_idxs):
            foreground = chainrule.where(matched >= 0)[0]
            num_foreground = foreground.numel()
            gt_classes = chainrule.zeros_like(logits)
            gt_classes[foreground, target["labels"][matched[foreground]]] = 1.0
            valid = chainrule.where(matched != self.BETWEEN_THRESHOLDS)[0]
            loss = sigmoid_focal_loss(logits[valid], gt_classes[valid], reduction="sum")
            losses.append(loss / max(1, num_foreground))
        return _sum(losses) / len(targets)

    def forward(self, x: list[Tensor]) -> Tensor:
        return _flatten_levels([self.cls_logits(self.conv(f)) for f in x], self.num_classes)


class RetinaNetRegressionHead(nn.Module):
    """A conv tower and a 3x3 conv to ``4 num_anchors`` box deltas per cell; the loss is
    ``_loss_type`` (L1 by default) on the foreground anchors."""

    _version = 2

    __annotations__ = {"box_coder": det_utils.BoxCoder}

    def __init__(self, in_channels: int, num_anchors: int, norm_layer: Any = None) -> None:
        super().__init__()
        self.conv = _conv_tower(in_channels, norm_layer)
        self.bbox_reg = nn.Conv2d(in_channels, num_anchors * 4, kernel_size=3, stride=1, padding=1)
        nn.init.normal_(self.bbox_reg.weight, std=0.01)
        nn.init.zeros_(self.bbox_reg.bias)
        self.box_coder = det_utils.BoxCoder(weights=(1.0, 1.0, 1.0, 1.0))
        self._loss_type = "l1"

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
        if local_metadata.get("version", None) is None or local_metadata["version"] < 2:
            _v1_to_v2_weights(state_dict, prefix)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )

    def compute_loss(
        self,
        targets: list[dict[str, Tensor]],
        head_outputs: dict[str, Tensor],
        anchors: list[Tensor],
        matched_idxs: list[Tensor],
    ) -> Tensor:
        """Mean over images of the summed box loss of the foreground anchors, over their
        number (at least 1)."""
        losses = []
        for target, regression, anchors_per_image, matched in zip(
            targets, head_outputs["bbox_regression"], anchors, matched_idxs
        ):
            foreground = chainrule.where(matched >= 0)[0]
            matched_gt = target["boxes"][matched[foreground]]
            loss = _box_loss(
                self._loss_type,
                self.box_coder,
                anchors_per_image[foreground],
                matched_gt,
                regression[foreground],
            )
            losses.append(loss / max(1, foreground.numel()))
        return _sum(losses) / max(1, len(targets))

    def forward(self, x: list[Tensor]) -> Tensor:
        return _flatten_levels([self.bbox_reg(self.conv(f)) for f in x], 4)


class RetinaNetHead(nn.Module):
    """The classification and regression heads, applied to every pyramid level."""

    def __init__(
        self, in_channels: int, num_anchors: int, num_classes: int, norm_layer: Any = None
    ) -> None:
        super().__init__()
        self.classification_head = RetinaNetClassificationHead(
            in_channels, num_anchors, num_classes, norm_layer=norm_layer
        )
        self.regression_head = RetinaNetRegressionHead(
            in_channels, num_anchors, norm_layer=norm_layer
        )

    def compute_loss(
        self,
        targets: list[dict[str, Tensor]],
        head_outputs: dict[str, Tensor],
        anchors: list[Tensor],
        matched_idxs: list[Tensor],
    ) -> dict[str, Tensor]:
        """``classification`` and ``bbox_regression`` losses."""
        return {
            "classification": self.classification_head.compute_loss(
                targets, head_outputs, matched_idxs
            ),
            "bbox_regression": self.regression_head.compute_loss(
                targets, head_outputs, anchors, matched_idxs
            ),
        }

    def forward(self, x: list[Tensor]) -> dict[str, Tensor]:
        return {
            "cls_logits": self.classification_head(x),
            "bbox_regression": self.regression_head(x),
        }


class RetinaNet(nn.Module):
    """RetinaNet on ``backbone`` (with ``out_channels``): ``forward(images, targets=None)``
    gives the losses when training, else per image ``boxes``, ``scores``, ``labels``
    (per level the ``topk_candidates`` best scores above ``score_thresh``, then per-class
    NMS, at most ``detections_per_img``)."""

    __annotations__ = {"box_coder": det_utils.BoxCoder, "proposal_matcher": det_utils.Matcher}

    def __init__(
        self,
        backbone: nn.Module,
        num_classes: int,
        # transform parameters
        min_size: int = 800,
        max_size: int = 1333,
        image_mean: list[float] | None = None,
        image_std: list[float] | None = None,
        # Anchor parameters
        anchor_generator: AnchorGenerator | None = None,
        head: nn.Module | None = None,
        proposal_matcher: det_utils.Matcher | None = None,
        score_thresh: float = 0.05,
        nms_thresh: float = 0.5,
        detections_per_img: int = 300,
        fg_iou_thresh: float = 0.5,
        bg_iou_thresh: float = 0.4,
        topk_candidates: int = 1000,
        **kwargs: Any,
    ) -> None:
        super().__init__()
        if not hasattr(backbone, "out_channels"):
            raise ValueError(
                "backbone should contain an attribute out_channels "
                "specifying the number of output channels (assumed to be the "
                "same for all the levels)"
            )
        self.backbone = backbone
        if not isinstance(anchor_generator, (AnchorGenerator, type(None))):
            raise TypeError(
                f"anchor_generator should be of type AnchorGenerator or None instead of {type(anchor_generator)}"
            )
        if anchor_generator is None:
            anchor_generator = _default_anchorgen()
        self.anchor_generator = anchor_generator
        if head is None:
            head = RetinaNetHead(
                backbone.out_channels, anchor_generator.num_anchors_per_location()[0], num_classes
            )
        self.head = head
        if proposal_matcher is None:
            proposal_matcher = det_utils.Matcher(
                fg_iou_thresh, bg_iou_thresh, allow_low_quality_matches=True
            )
        self.proposal_matcher = proposal_matcher
        self.box_coder = det_utils.BoxCoder(weights=(1.0, 1.0, 1.0, 1.0))
        if image_mean is None:
            image_mean = [0.485, 0.456, 0.406]
        if image_std is None:
            image_std = [0.229, 0.224, 0.225]
        self.transform = GeneralizedRCNNTransform(
            min_size, max_size, image_mean, image_std, **kwargs
        )
        self.score_thresh = score_thresh
        self.nms_thresh = nms_thresh
        self.detections_per_img = detections_per_img
        self.topk_candidates = topk_candidates
        self._has_warned = False

    def eager_outputs(
        self, losses: dict[str, Tensor], detections: list[dict[str, Tensor]]
    ) -> dict[str, Tensor] | list[dict[str, Tensor]]:
        """The losses when training, else the detections."""
        if self.training:
            return losses
        return detections

    def compute_loss(
        self,
        targets: list[dict[str, Tensor]],
        head_outputs: dict[str, Tensor],
        anchors: list[Tensor],
    ) -> dict[str, Tensor]:
        """The head's losses, anchors matched to the targets (-1 where an image has none)."""
        matched_idxs = []
        for anchors_per_image, target in zip(anchors, targets):
            if target["boxes"].numel() == 0:
                matched_idxs.append(
                    chainrule.full((anchors_per_image.size(0),), -1, dtype=chainrule.int64)
                )
                continue
            matched_idxs.append(
                self.proposal_matcher(box_ops.box_iou(target["boxes"], anchors_per_image))
            )
        return self.head.compute_loss(targets, head_outputs, anchors, matched_idxs)

    def postprocess_detections(
        self,
        head_outputs: dict[str, list[Tensor]],
        anchors: list[list[Tensor]],
        image_shapes: list[tuple[int, int]],
    ) -> list[dict[str, Tensor]]:
        """Per image, the best-scoring (anchor, class) pairs of each level decoded and
        clipped, then per-class NMS."""
        class_logits, box_regression = head_outputs["cls_logits"], head_outputs["bbox_regression"]
        detections = []
        for index, image_shape in enumerate(image_shapes):
            image_boxes, image_scores, image_labels = [], [], []
            for regression, logits, level_anchors in zip(
                [br[index] for br in box_regression],
                [cl[index] for cl in class_logits],
                anchors[index],
            ):
                num_classes = logits.shape[-1]
                scores = chainrule.sigmoid(logits).flatten()
                keep = scores > self.score_thresh
                scores = scores[keep]
                topk_idxs = chainrule.where(keep)[0]
                num_topk = det_utils._topk_min(topk_idxs, self.topk_candidates, 0)
                scores, idxs = scores.topk(num_topk)
                topk_idxs = topk_idxs[idxs]
                anchor_idxs = chainrule.div(topk_idxs, num_classes, rounding_mode="floor")
                labels = topk_idxs % num_classes
                boxes = self.box_coder.decode_single(
                    regression[anchor_idxs], level_anchors[anchor_idxs]
                )
                image_boxes.append(box_ops.clip_boxes_to_image(boxes, image_shape))
                image_scores.append(scores)
                image_labels.append(labels)
            boxes = chainrule.cat(image_boxes, dim=0)
            scores = chainrule.cat(image_scores, dim=0)
            labels = chainrule.cat(image_labels, dim=0)
            keep = box_ops.batched_nms(boxes, scores, labels, self.nms_thresh)[
                : self.detections_per_img
            ]
            detections.append(
                {"boxes": boxes[keep], "scores": scores[keep], "labels": labels[keep]}
            )
        return detections

    def forward(self, images: list[Tensor], targets: list[dict[str, Tensor]] | None = None) -> Any:
        det_utils._check_targets(self.training, targets, name_type=False)
        original_image_sizes = det_utils._original_image_sizes(images)
        images, targets = self.transform(images, targets)
        det_utils._check_degenerate_boxes(targets)
        features = self.backbone(images.tensors)
        if isinstance(features, Tensor):
            features = OrderedDict([("0", features)])
        features = list(features.values())
        head_outputs = self.head(features)
        anchors = self.anchor_generator(images, features)
        losses: dict[str, Tensor] = {}
        detections: list[dict[str, Tensor]] = []
        if self.training:
            losses = self.compute_loss(targets, head_outputs, anchors)
        else:
            hw_per_level = [x.size(2) * x.size(3) for x in features]
            A = head_outputs["cls_logits"].size(1) // sum(hw_per_level)
            per_level = [hw * A for hw in hw_per_level]
            split_outputs = {k: list(v.split(per_level, dim=1)) for k, v in head_outputs.items()}
            split_anchors = [list(a.split(per_level)) for a in anchors]
            detections = self.postprocess_detections(
                split_outputs, split_anchors, images.image_sizes
            )
            detections = self.transform.postprocess(
                detections, images.image_sizes, original_image_sizes
            )
        return self.eager_outputs(losses, detections)


class RetinaNet_ResNet50_FPN_Weights(WeightsEnum):
    COCO_V1 = Weights(
        url="https://download.pytorch.org/models/retinanet_resnet50_fpn_coco-eeacb38b.pth",
        transforms=ObjectDetection,
        meta={
            **_COMMON_META,
            "num_params": 34014999,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/detection#retinanet",
            "_metrics": {"COCO-val2017": {"box_map": 36.4}},
            "_ops": 151.54,
            "_file_size": 130.267,
            "_docs": "These weights were produced by following a similar training recipe as on the paper.",
        },
    )
    DEFAULT = COCO_V1


class RetinaNet_ResNet50_FPN_V2_Weights(WeightsEnum):
    COCO_V1 = Weights(
        url="https://download.pytorch.org/models/retinanet_resnet50_fpn_v2_coco-5905b1c5.pth",
        transforms=ObjectDetection,
        meta={
            **_COMMON_META,
            "num_params": 38198935,
            "recipe": "https://github.com/pytorch/vision/pull/5756",
            "_metrics": {"COCO-val2017": {"box_map": 41.5}},
            "_ops": 152.238,
            "_file_size": 146.037,
            "_docs": "These weights were produced using an enhanced training recipe to boost the model accuracy.",
        },
    )
    DEFAULT = COCO_V1


@register_model()
@handle_legacy_interface(
    weights=("pretrained", RetinaNet_ResNet50_FPN_Weights.COCO_V1),
    weights_backbone=("pretrained_backbone", ResNet50_Weights.IMAGENET1K_V1),
)
def retinanet_resnet50_fpn(
    *,
    weights: RetinaNet_ResNet50_FPN_Weights | None = None,
    progress: bool = True,
    num_classes: int | None = None,
    weights_backbone: ResNet50_Weights | None = ResNet50_Weights.IMAGENET1K_V1,
    trainable_backbone_layers: int | None = None,
    **kwargs: Any,
) -> RetinaNet:
    """RetinaNet with a ResNet-50-FPN backbone (P3-P5 and P6, P7 from P5 of the FPN);
    ``kwargs`` go to :class:`RetinaNet`."""
    weights = RetinaNet_ResNet50_FPN_Weights.verify(weights)
    weights_backbone = ResNet50_Weights.verify(weights_backbone)
    if weights is not None:
        weights_backbone = None
    num_classes = _num_classes(weights, num_classes)
    is_trained = weights is not None or weights_backbone is not None
    trainable_backbone_layers = _validate_trainable_layers(
        is_trained, trainable_backbone_layers, 5, 3
    )
    norm_layer = misc_nn_ops.FrozenBatchNorm2d if is_trained else nn.BatchNorm2d
    backbone = resnet50(weights=weights_backbone, progress=progress, norm_layer=norm_layer)
    # no P2: it would give too many anchors
    backbone = _resnet_fpn_extractor(
        backbone,
        trainable_backbone_layers,
        returned_layers=[2, 3, 4],
        extra_blocks=LastLevelP6P7(256, 256),
    )
    model = RetinaNet(backbone, num_classes, **kwargs)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
        if weights == RetinaNet_ResNet50_FPN_Weights.COCO_V1:
            overwrite_eps(model, 0.0)
    return model


@register_model()
@handle_legacy_interface(
    weights=("pretrained", RetinaNet_ResNet50_FPN_V2_Weights.COCO_V1),
    weights_backbone=("pretrained_backbone", ResNet50_Weights.IMAGENET1K_V1),
)
def retinanet_resnet50_fpn_v2(
    *,
    weights: RetinaNet_ResNet50_FPN_V2_Weights | None = None,
    progress: bool = True,
    num_classes: int | None = None,
    weights_backbone: ResNet50_Weights | None = None,
    trainable_backbone_layers: int | None = None,
    **kwargs: Any,
) -> RetinaNet:
    """RetinaNet v2: P6 from C5, group-norm heads and the GIoU box loss."""
    weights = RetinaNet_ResNet50_FPN_V2_Weights.verify(weights)
    weights_backbone = ResNet50_Weights.verify(weights_backbone)
    if weights is not None:
        weights_backbone = None
    num_classes = _num_classes(weights, num_classes)
    is_trained = weights is not None or weights_backbone is not None
    trainable_backbone_layers = _validate_trainable_layers(
        is_trained, trainable_backbone_layers, 5, 3
    )
    backbone = resnet50(weights=weights_backbone, progress=progress)
    backbone = _resnet_fpn_extractor(
        backbone,
        trainable_backbone_layers,
        returned_layers=[2, 3, 4],
        extra_blocks=LastLevelP6P7(2048, 256),
    )
    anchor_generator = _default_anchorgen()
    head = RetinaNetHead(
        backbone.out_channels,
        anchor_generator.num_anchors_per_location()[0],
        num_classes,
        norm_layer=partial(nn.GroupNorm, 32),
    )
    head.regression_head._loss_type = "giou"
    model = RetinaNet(backbone, num_classes, anchor_generator=anchor_generator, head=head, **kwargs)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model
