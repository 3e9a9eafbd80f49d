"""FCOS (Tian et al., 2019): anchor-free one-stage detection. Each location of a ResNet-50
feature pyramid (P3-P7) predicts class logits, its distances to the box sides and a
centre-ness logit; training matches locations near a box's centre, inside it and in the
level's size range (the smallest box wins), with focal, GIoU and centre-ness losses."""

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
from ...ops.giou_loss import generalized_box_iou_loss
from .._api import Weights, WeightsEnum, register_model
from .._utils import handle_legacy_interface
from ..resnet import ResNet50_Weights, resnet50
from . import _utils as det_utils
from .anchor_utils import AnchorGenerator
from .backbone_utils import _resnet_fpn_extractor, _validate_trainable_layers
from .faster_rcnn import _COMMON_META, ObjectDetection, _num_classes
from .retinanet import _flatten_levels
from .transform import GeneralizedRCNNTransform

__all__ = ["FCOS", "FCOS_ResNet50_FPN_Weights", "fcos_resnet50_fpn"]


def _tower(in_channels: int, num_convs: int, norm_layer: Any) -> nn.Sequential:
    # num_convs x (3x3 conv, norm, ReLU), conv weights N(0, 0.01), zero biases
    layers: list[nn.Module] = []
    for _ in range(num_convs):
        layers += [
            nn.Conv2d(in_channels, in_channels, kernel_size=3, stride=1, padding=1),
            norm_layer(in_channels),
            nn.ReLU(),
        ]
    tower = nn.Sequential(*layers)
    for layer in tower.children():
        if isinstance(layer, nn.Conv2d):
            nn.init.normal_(layer.weight, std=0.01)
            nn.init.constant_(layer.bias, 0)
    return tower


class FCOSClassificationHead(nn.Module):
    """A conv tower (group norm by default) and a 3x3 conv to ``num_anchors * num_classes``
    logits per location (bias ``-log((1 - p) / p)``)."""

    def __init__(
        self,
        in_channels: int,
        num_anchors: int,
        num_classes: int,
        prior_probability: float = 0.01,
        num_convs: int = 4,
        norm_layer: Any = None,
    ) -> None:
        super().__init__()
        self.num_classes = num_classes
        self.num_anchors = num_anchors
        if norm_layer is None:
            norm_layer = partial(nn.GroupNorm, 32)
        self.conv = _tower(in_channels, num_convs, norm_layer)
        self.cls_logits = nn.Conv2d(
            in_channels, num_anchors * num_classes, kernel_size=3, stride=1, padding=1
        )
        nn.init.normal_(self.cls_logits.weight, std=0.01)
        nn.init.constant_(
            self.cls_logits.bias, -math.log((1 - prior_probability) / prior_probability)
        )

    def forward(self, x: list[Tensor]) -> Tensor:
        return _flatten_levels([self.cls_logits(self.conv(f)) for f in x], self.num_classes)


class FCOSRegressionHead(nn.Module):
    """A conv tower, then the ReLU'd side distances (``bbox_reg``) and the centre-ness
    logit (``bbox_ctrness``) of each location."""

    def __init__(
        self, in_channels: int, num_anchors: int, num_convs: int = 4, norm_layer: Any = None
    ) -> None:
        super().__init__()
        if norm_layer is None:
            norm_layer = partial(nn.GroupNorm, 32)
        self.conv = _tower(in_channels, num_convs, norm_layer)
        self.bbox_reg = nn.Conv2d(in_channels, num_anchors * 4, kernel_size=3, stride=1, padding=1)
        self.bbox_ctrness = nn.Conv2d(
            in_channels, num_anchors * 1, kernel_size=3, stride=1, padding=1
        )
        for layer in [self.bbox_reg, self.bbox_ctrness]:
            nn.init.normal_(layer.weight, std=0.01)
            nn.init.zeros_(layer.bias)

    def forward(self, x: list[Tensor]) -> tuple[Tensor, Tensor]:
        features = [self.conv(f) for f in x]
        regression = _flatten_levels([nn.functional.relu(self.bbox_reg(f)) for f in features], 4)
        ctrness = _flatten_levels([self.bbox_ctrness(f) for f in features], 1)
        return regression, ctrness


class FCOSHead(nn.Module):
    """The classification and regression heads; ``compute_loss`` gives the focal
    ``classification``, GIoU ``bbox_regression`` and BCE ``bbox_ctrness`` losses, each over
    the number of foreground locations."""

    __annotations__ = {"box_coder": det_utils.BoxLinearCoder}

    def __init__(
        self, in_channels: int, num_anchors: int, num_classes: int, num_convs: int | None = 4
    ) -> None:
        super().__init__()
        self.box_coder = det_utils.BoxLinearCoder(normalize_by_size=True)
        self.classification_head = FCOSClassificationHead(
            in_channels, num_anchors, num_classes, num_convs=num_convs
        )
        self.regression_head = FCOSRegressionHead(in_channels, num_anchors, num_convs=num_convs)

    def compute_loss(
        self,
        targets: list[dict[str, Tensor]],
        head_outputs: dict[str, Tensor],
        anchors: list[Tensor],
        matched_idxs: list[Tensor],
    ) -> dict[str, Tensor]:
        """The three losses of the matched locations (``matched_idxs`` -1: background)."""
        cls_logits = head_outputs["cls_logits"]
        gt_classes, gt_boxes = [], []
        for target, matched in zip(targets, matched_idxs):
            if len(target["labels"]) == 0:
                classes = chainrule.zeros((len(matched),), dtype=target["labels"].dtype)
                boxes = chainrule.zeros((len(matched), 4), dtype=target["boxes"].dtype)
            else:
                classes = target["labels"][matched.clip(min=0)]
                boxes = target["boxes"][matched.clip(min=0)]
            gt_classes.append(chainrule.where(matched < 0, -1, classes))
            gt_boxes.append(boxes)
        all_boxes, all_classes, all_anchors = (
            chainrule.stack(gt_boxes),
            chainrule.stack(gt_classes),
            chainrule.stack(anchors),
        )
        foreground = all_classes >= 0
        num_foreground = max(1, int(foreground.sum().item()))
        fg_n, fg_a = chainrule.where(foreground)
        classes_target = chainrule.zeros_like(cls_logits)
        classes_target[fg_n, fg_a, all_classes[fg_n, fg_a]] = 1.0
        loss_cls = sigmoid_focal_loss(cls_logits, classes_target, reduction="sum")
        pred_boxes = self.box_coder.decode(head_outputs["bbox_regression"], all_anchors)
        loss_bbox_reg = generalized_box_iou_loss(
            pred_boxes[fg_n, fg_a], all_boxes[fg_n, fg_a], reduction="sum"
        )
        reg_targets = self.box_coder.encode(all_anchors, all_boxes)
        if len(reg_targets) == 0:
            ctrness_targets = chainrule.zeros(
                tuple(reg_targets.shape[:-1]), dtype=reg_targets.dtype
            )
        else:
            left_right = reg_targets[:, :, [0, 2]]
            top_bottom = reg_targets[:, :, [1, 3]]
            ctrness_targets = chainrule.sqrt(
                (left_right.min(dim=-1)[0] / left_right.max(dim=-1)[0])
                * (top_bottom.min(dim=-1)[0] / top_bottom.max(dim=-1)[0])
            )
        pred_ctrness = head_outputs["bbox_ctrness"].squeeze(dim=2)
        loss_ctrness = nn.functional.binary_cross_entropy_with_logits(
            pred_ctrness[fg_n, fg_a], ctrness_targets[fg_n, fg_a], reduction="sum"
        )
        return {
            "classification": loss_cls / num_foreground,
            "bbox_regression": loss_bbox_reg / num_foreground,
            "bbox_ctrness": loss_ctrness / num_foreground,
        }

    def forward(self, x: list[Tensor]) -> dict[str, Tensor]:
        cls_logits = self.classification_head(x)
        bbox_regression, bbox_ctrness = self.regression_head(x)
        return {
            "cls_logits": cls_logits,
            "bbox_regression": bbox_regression,
            "bbox_ctrness": bbox_ctrness,
        }


class FCOS(nn.Module):
    """FCOS on ``backbone`` (with ``out_channels``), one anchor point per location (sizes
    8-128 over five levels): the losses when training, else per image ``boxes``,
    ``scores`` (``sqrt(class probability x centre-ness)``) and ``labels``."""

    __annotations__ = {"box_coder": det_utils.BoxLinearCoder}

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
        center_sampling_radius: float = 1.5,
        score_thresh: float = 0.2,
        nms_thresh: float = 0.6,
        detections_per_img: int = 100,
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
                f"anchor_generator should be of type AnchorGenerator or None, instead  got {type(anchor_generator)}"
            )
        if anchor_generator is None:
            anchor_sizes = ((8,), (16,), (32,), (64,), (128,))
            aspect_ratios = ((1.0,),) * len(anchor_sizes)
            anchor_generator = AnchorGenerator(anchor_sizes, aspect_ratios)
        self.anchor_generator = anchor_generator
        if self.anchor_generator.num_anchors_per_location()[0] != 1:
            raise ValueError(
                f"anchor_generator.num_anchors_per_location()[0] should be 1 instead of {anchor_generator.num_anchors_per_location()[0]}"
            )
        if head is None:
            head = FCOSHead(
                backbone.out_channels, anchor_generator.num_anchors_per_location()[0], num_classes
            )
        self.head = head
        self.box_coder = det_utils.BoxLinearCoder(normalize_by_size=True)
        if image_mean is None:
            image_mean = [0.485, 0.456, 0.406]
        if image_std is None:
            image_std = [0.229, 0.224, 0.225]
        self.transform = GeneralizedRCNNTransform(
            min_size, max_size, image_mean, image_std, **kwargs
        )
        self.center_sampling_radius = center_sampling_radius
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
        num_anchors_per_level: list[int],
    ) -> dict[str, Tensor]:
        """The head's losses, each location matched to the smallest ground-truth box whose
        centre is within ``center_sampling_radius`` strides, that contains it, and whose
        largest side distance is in the level's range (4 to 8 strides; open at the ends)."""
        matched_idxs = []
        for anchors_per_image, target in zip(anchors, targets):
            if target["boxes"].numel() == 0:
                matched_idxs.append(
                    chainrule.full((anchors_per_image.size(0),), -1, dtype=chainrule.int64)
                )
                continue
            gt_boxes = target["boxes"]
            gt_centers = (gt_boxes[:, :2] + gt_boxes[:, 2:]) / 2
            anchor_centers = (anchors_per_image[:, :2] + anchors_per_image[:, 2:]) / 2
            anchor_sizes = anchors_per_image[:, 2] - anchors_per_image[:, 0]
            match = (anchor_centers[:, None, :] - gt_centers[None, :, :]).abs().max(
                dim=2
            ).values < (self.center_sampling_radius * anchor_sizes[:, None])
            x, y = anchor_centers[:, 0:1], anchor_centers[:, 1:2]
            x0, y0, x1, y1 = (gt_boxes[None, :, i] for i in range(4))
            dist = chainrule.stack([x - x0, y - y0, x1 - x, y1 - y], dim=2)
            match = match & (dist.min(dim=2).values > 0)
            n_first, n_last = num_anchors_per_level[0], num_anchors_per_level[-1]
            count = anchor_sizes.shape[0]
            lower = chainrule.where(chainrule.arange(count) < n_first, 0.0, anchor_sizes * 4)
            upper = chainrule.where(
                chainrule.arange(count) >= count - n_last, float("inf"), anchor_sizes * 8
            )
            largest = dist.max(dim=2).values
            match = match & (largest > lower[:, None]) & (largest < upper[:, None])
            gt_areas = (gt_boxes[:, 2] - gt_boxes[:, 0]) * (gt_boxes[:, 3] - gt_boxes[:, 1])
            weighted = match.to(chainrule.float32) * (1e8 - gt_areas[None, :])
            min_values, matched = weighted.max(dim=1)
            matched_idxs.append(chainrule.where(min_values < 1e-5, -1, matched))
        return self.head.compute_loss(targets, head_outputs, anchors, matched_idxs)

    def postprocess_detections(
        self,
        head_outputs: dict[str, list[Tensor]],
        anchors: list[list[Tensor]],
        image_shapes: list[tuple[int, int]],
    ) -> list[dict[str, Tensor]]:
        """Per image, the best (location, class) pairs of each level above
        ``score_thresh`` decoded and clipped, then per-class NMS."""
        detections = []
        for index, image_shape in enumerate(image_shapes):
            image_boxes, image_scores, image_labels = [], [], []
            for regression, logits, ctrness, level_anchors in zip(
                [br[index] for br in head_outputs["bbox_regression"]],
                [cl[index] for cl in head_outputs["cls_logits"]],
                [bc[index] for bc in head_outputs["bbox_ctrness"]],
                anchors[index],
            ):
                num_classes = logits.shape[-1]
                scores = chainrule.sqrt(
                    chainrule.sigmoid(logits) * chainrule.sigmoid(ctrness)
                ).flatten()
                keep = scores > self.score_thresh
                scores = scores[keep]
                topk_idxs = chainrule.where(keep)[0]
                num_topk = det_utils._topk_min(topk_idxs, self.topk_candidates, 0)
                scores, idxs = scores.topk(num_topk)
                topk_idxs = topk_idxs[idxs]
                anchor_idxs = chainrule.div(topk_idxs, num_classes, rounding_mode="floor")
                boxes = self.box_coder.decode(regression[anchor_idxs], level_anchors[anchor_idxs])
                image_boxes.append(box_ops.clip_boxes_to_image(boxes, image_shape))
                image_scores.append(scores)
                image_labels.append(topk_idxs % num_classes)
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
        num_anchors_per_level = [x.size(2) * x.size(3) for x in features]
        losses: dict[str, Tensor] = {}
        detections: list[dict[str, Tensor]] = []
        if self.training:
            losses = self.compute_loss(targets, head_outputs, anchors, num_anchors_per_level)
        else:
            split_outputs = {
                k: list(v.split(num_anchors_per_level, dim=1)) for k, v in head_outputs.items()
            }
            split_anchors = [list(a.split(num_anchors_per_level)) for a in anchors]
            detections = self.postprocess_detections(
                split_outputs, split_anchors, images.image_sizes
            )
            detections = self.transform.postprocess(
                detections, images.image_sizes, original_image_sizes
            )
        return self.eager_outputs(losses, detections)


class FCOS_ResNet50_FPN_Weights(WeightsEnum):
    COCO_V1 = Weights(
        url="https://download.pytorch.org/models/fcos_resnet50_fpn_coco-99b0c9b7.pth",
        transforms=ObjectDetection,
        meta={
            "num_params": 32269600,
            **_COMMON_META,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/detection#fcos-resnet-50-fpn",
            "_metrics": {"COCO-val2017": {"box_map": 39.2}},
            "_ops": 128.207,
            "_file_size": 123.608,
            "_docs": "These weights were produced by following a similar training recipe as on the paper.",
        },
    )
    DEFAULT = COCO_V1


@register_model()
@handle_legacy_interface(
    weights=("pretrained", FCOS_ResNet50_FPN_Weights.COCO_V1),
    weights_backbone=("pretrained_backbone", ResNet50_Weights.IMAGENET1K_V1),
)
def fcos_resnet50_fpn(
    *,
    weights: FCOS_ResNet50_FPN_Weights | None = None,
    progress: bool = True,
    num_classes: int | None = None,
    weights_backbone: ResNet50_Weights | None = ResNet50_Weights.IMAGENET1K_V1,
    trainable_backbone_layers: int | None = None,
    **kwargs: Any,
) -> FCOS:
    """FCOS with a ResNet-50-FPN backbone (P3-P5, P6 and P7 from P5); ``kwargs`` go to
    :class:`FCOS`."""
    weights = FCOS_ResNet50_FPN_Weights.verify(weights)
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
    backbone = _resnet_fpn_extractor(
        backbone,
        trainable_backbone_layers,
        returned_layers=[2, 3, 4],
        extra_blocks=LastLevelP6P7(256, 256),
    )
    model = FCOS(backbone, num_classes, **kwargs)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model
