"""SSD (Liu et al., 2015): single-shot detection from several feature maps of a VGG-16
(conv4_3, L2-normalised and rescaled, then fc6/fc7 and four extra stages), with default
boxes, a 3x3-conv class and box head per map and hard-negative mining (3:1) in the loss."""

from __future__ import annotations

import warnings
from collections import OrderedDict
from typing import Any

import chainrule
from chainrule import nn
from chainrule.nn import functional as F

from ...._tensor import Tensor
from ...ops import boxes as box_ops
from .._api import Weights, WeightsEnum, register_model
from .._utils import _ovewrite_value_param, handle_legacy_interface
from ..vgg import VGG, VGG16_Weights, vgg16
from . import _utils as det_utils
from .anchor_utils import DefaultBoxGenerator
from .backbone_utils import _validate_trainable_layers
from .faster_rcnn import _COMMON_META, ObjectDetection
from .transform import GeneralizedRCNNTransform

__all__ = ["SSD300_VGG16_Weights", "ssd300_vgg16"]


class SSD300_VGG16_Weights(WeightsEnum):
    COCO_V1 = Weights(
        url="https://download.pytorch.org/models/ssd300_vgg16_coco-b556d3b4.pth",
        transforms=ObjectDetection,
        meta={
            "num_params": 35641826,
            **_COMMON_META,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/detection#ssd300-vgg16",
            "_metrics": {"COCO-val2017": {"box_map": 25.1}},
            "_ops": 34.858,
            "_file_size": 135.988,
            "_docs": "These weights were produced by following a similar training recipe as on the paper.",
        },
    )
    DEFAULT = COCO_V1


def _xavier_init(conv: nn.Module) -> None:
    for layer in conv.modules():
        if isinstance(layer, nn.Conv2d):
            nn.init.xavier_uniform_(layer.weight)
            if layer.bias is not None:
                nn.init.constant_(layer.bias, 0.0)


class SSDScoringHead(nn.Module):
    """One module per feature map; outputs ``(N, HWA, num_columns)`` over all maps."""

    def __init__(self, module_list: nn.ModuleList, num_columns: int) -> None:
        super().__init__()
        self.module_list = module_list
        self.num_columns = num_columns

    def _get_result_from_module_list(self, x: Tensor, idx: int) -> Tensor:
        return self.module_list[idx](x)

    def forward(self, x: list[Tensor]) -> Tensor:
        results = []
        for i, features in enumerate(x):
            out = self._get_result_from_module_list(features, i)
            N, _, H, W = out.shape
            out = out.view(N, -1, self.num_columns, H, W).permute(0, 3, 4, 1, 2)
            results.append(out.reshape(N, -1, self.num_columns))
        return chainrule.cat(results, dim=1)


class SSDClassificationHead(SSDScoringHead):
    """A 3x3 conv per map to ``num_classes`` logits per default box (Xavier init)."""

    def __init__(self, in_channels: list[int], num_anchors: list[int], num_classes: int) -> None:
        cls_logits = nn.ModuleList()
        for channels, anchors in zip(in_channels, num_anchors):
            cls_logits.append(nn.Conv2d(channels, num_classes * anchors, kernel_size=3, padding=1))
        _xavier_init(cls_logits)
        super().__init__(cls_logits, num_classes)


class SSDRegressionHead(SSDScoringHead):
    """A 3x3 conv per map to 4 box deltas per default box (Xavier init)."""

    def __init__(self, in_channels: list[int], num_anchors: list[int]) -> None:
        bbox_reg = nn.ModuleList()
        for channels, anchors in zip(in_channels, num_anchors):
            bbox_reg.append(nn.Conv2d(channels, 4 * anchors, kernel_size=3, padding=1))
        _xavier_init(bbox_reg)
        super().__init__(bbox_reg, 4)


class SSDHead(nn.Module):
    """The classification and regression heads over the feature maps."""

    def __init__(self, in_channels: list[int], num_anchors: list[int], num_classes: int) -> None:
        super().__init__()
        self.classification_head = SSDClassificationHead(in_channels, num_anchors, num_classes)
        self.regression_head = SSDRegressionHead(in_channels, num_anchors)

    def forward(self, x: list[Tensor]) -> dict[str, Tensor]:
        return {
            "bbox_regression": self.regression_head(x),
            "cls_logits": self.classification_head(x),
        }


class SSD(nn.Module):
    """SSD on ``backbone`` (an ordered dict of maps) with ``anchor_generator``'s default
    boxes; images are resized to the fixed ``size``. Training matches boxes with
    ``SSDMatcher(iou_thresh)`` and keeps ``(1 - positive_fraction) / positive_fraction``
    hardest negatives per positive; eval keeps per class the ``topk_candidates`` softmax
    scores above ``score_thresh``, then per-class NMS."""

    __annotations__ = {"box_coder": det_utils.BoxCoder, "proposal_matcher": det_utils.Matcher}

    def __init__(
        self,
        backbone: nn.Module,
        anchor_generator: DefaultBoxGenerator,
        size: tuple[int, int],
        num_classes: int,
        image_mean: list[float] | None = None,
        image_std: list[float] | None = None,
        head: nn.Module | None = None,
        score_thresh: float = 0.01,
        nms_thresh: float = 0.45,
        detections_per_img: int = 200,
        iou_thresh: float = 0.5,
        topk_candidates: int = 400,
        positive_fraction: float = 0.25,
        **kwargs: Any,
    ) -> None:
        super().__init__()
        self.backbone = backbone
        self.anchor_generator = anchor_generator
        self.box_coder = det_utils.BoxCoder(weights=(10.0, 10.0, 5.0, 5.0))
        if head is None:
            if hasattr(backbone, "out_channels"):
                out_channels = backbone.out_channels
            else:
                out_channels = det_utils.retrieve_out_channels(backbone, size)
            if len(out_channels) != len(anchor_generator.aspect_ratios):
                raise ValueError(
                    f"The length of the output channels from the backbone ({len(out_channels)}) do not match the length of the anchor generator aspect ratios ({len(anchor_generator.aspect_ratios)})"
                )
            head = SSDHead(
                out_channels, self.anchor_generator.num_anchors_per_location(), num_classes
            )
        self.head = head
        self.proposal_matcher = det_utils.SSDMatcher(iou_thresh)
        if image_mean is None:
            image_mean = [0.485, 0.456, 0.406]
        if image_std is None:
            image_std = [0.229, 0.224, 0.225]
        self.transform = GeneralizedRCNNTransform(
            min(size), max(size), image_mean, image_std, size_divisible=1, fixed_size=size, **kwargs
        )
        self.score_thresh = score_thresh
        self.nms_thresh = nms_thresh
        self.detections_per_img = detections_per_img
        self.topk_candidates = topk_candidates
        self.neg_to_pos_ratio = (1.0 - positive_fraction) / positive_fraction
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
        matched_idxs: list[Tensor],
    ) -> dict[str, Tensor]:
        """Smooth L1 (beta 1) of the matched boxes' deltas and cross entropy of the
        positives and the hardest negatives, both over the number of positives."""
        cls_logits = head_outputs["cls_logits"]
        num_foreground = 0
        bbox_loss, cls_targets = [], []
        for target, regression, logits, anchors_per_image, matched in zip(
            targets, head_outputs["bbox_regression"], cls_logits, anchors, matched_idxs
        ):
            foreground = chainrule.where(matched >= 0)[0]
            fg_matched = matched[foreground]
            num_foreground += fg_matched.numel()
            matched_gt = target["boxes"][fg_matched]
            target_regression = self.box_coder.encode_single(
                matched_gt, anchors_per_image[foreground]
            )
            bbox_loss.append(
                F.smooth_l1_loss(regression[foreground], target_regression, reduction="sum")
            )
            classes = chainrule.zeros((logits.size(0),), dtype=target["labels"].dtype)
            classes[foreground] = target["labels"][fg_matched]
            cls_targets.append(classes)
        bbox_loss_t = chainrule.stack(bbox_loss)
        cls_targets_t = chainrule.stack(cls_targets)
        num_classes = cls_logits.size(-1)
        cls_loss = F.cross_entropy(
            cls_logits.view(-1, num_classes), cls_targets_t.view(-1), reduction="none"
        ).view(cls_targets_t.size())
        # hard negatives: the highest-loss background boxes, ``neg_to_pos_ratio`` per positive
        foreground_mask = cls_targets_t > 0
        num_negative = self.neg_to_pos_ratio * foreground_mask.sum(1, keepdim=True)
        negative_loss = chainrule.where(foreground_mask, -float("inf"), cls_loss.detach())
        _, idx = negative_loss.sort(1, descending=True)
        background_mask = idx.sort(1)[1] < num_negative
        N = max(1, num_foreground)
        return {
            "bbox_regression": bbox_loss_t.sum() / N,
            "classification": (cls_loss[foreground_mask].sum() + cls_loss[background_mask].sum())
            / N,
        }

    def postprocess_detections(
        self,
        head_outputs: dict[str, Tensor],
        image_anchors: list[Tensor],
        image_shapes: list[tuple[int, int]],
    ) -> list[dict[str, Tensor]]:
        """Per image and foreground class, the ``topk_candidates`` boxes scoring above
        ``score_thresh``; then per-class NMS, at most ``detections_per_img``."""
        pred_scores = F.softmax(head_outputs["cls_logits"], dim=-1)
        num_classes = pred_scores.size(-1)
        detections = []
        for boxes, scores, anchors, image_shape in zip(
            head_outputs["bbox_regression"], pred_scores, image_anchors, image_shapes
        ):
            boxes = box_ops.clip_boxes_to_image(
                self.box_coder.decode_single(boxes, anchors), image_shape
            )
            image_boxes, image_scores, image_labels = [], [], []
            for label in range(1, num_classes):
                score = scores[:, label]
                keep = chainrule.where(score > self.score_thresh)[0]
                score, box = score[keep], boxes[keep]
                num_topk = det_utils._topk_min(score, self.topk_candidates, 0)
                score, idxs = score.topk(num_topk)
                image_boxes.append(box[idxs])
                image_scores.append(score)
                image_labels.append(chainrule.full((num_topk,), label, dtype=chainrule.int64))
            all_boxes = chainrule.cat(image_boxes, dim=0)
            all_scores = chainrule.cat(image_scores, dim=0)
            all_labels = chainrule.cat(image_labels, dim=0)
            keep = box_ops.batched_nms(all_boxes, all_scores, all_labels, self.nms_thresh)
            keep = keep[: self.detections_per_img]
            detections.append(
                {"boxes": all_boxes[keep], "scores": all_scores[keep], "labels": all_labels[keep]}
            )
        return detections

    def forward(self, images: list[Tensor], targets: list[dict[str, Tensor]] | None = None) -> Any:
        det_utils._check_targets(self.training, targets, name_type=True)
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
            losses = self.compute_loss(targets, head_outputs, anchors, matched_idxs)
        else:
            detections = self.postprocess_detections(head_outputs, anchors, images.image_sizes)
            detections = self.transform.postprocess(
                detections, images.image_sizes, original_image_sizes
            )
        return self.eager_outputs(losses, detections)


class SSDFeatureExtractorVGG(nn.Module):
    """VGG features up to conv4_3 (its map L2-normalised per location and scaled by the
    learnt ``scale_weight``, 20 at first), then conv5 with a dilated fc6 and fc7, then the
    extra stages (a fifth with ``highres``); the maps as an ordered dict '0', '1', ..."""

    def __init__(self, backbone: nn.Module, highres: bool) -> None:
        super().__init__()
        _, _, maxpool3_pos, maxpool4_pos, _ = (
            i for i, layer in enumerate(backbone) if isinstance(layer, nn.MaxPool2d)
        )
        backbone[maxpool3_pos].ceil_mode = True  # the paper's map sizes
        self.scale_weight = nn.Parameter(chainrule.ones(512) * 20)
        self.features = nn.Sequential(*backbone[:maxpool4_pos])

        def stage(
            c_in: int, c_mid: int, c_out: int, stride: int, padding: int, kernel: int = 3
        ) -> nn.Sequential:
            return nn.Sequential(
                nn.Conv2d(c_in, c_mid, kernel_size=1),
                nn.ReLU(inplace=True),
                nn.Conv2d(c_mid, c_out, kernel_size=kernel, padding=padding, stride=stride),
                nn.ReLU(inplace=True),
            )

        extra = nn.ModuleList(
            [
                stage(1024, 256, 512, 2, 1),
                stage(512, 128, 256, 2, 1),
                stage(256, 128, 256, 1, 0),
                stage(256, 128, 256, 1, 0),
            ]
        )
        if highres:
            extra.append(stage(256, 128, 256, 1, 0, kernel=4))
        _xavier_init(extra)
        fc = nn.Sequential(
            nn.MaxPool2d(kernel_size=3, stride=1, padding=1, ceil_mode=False),
            nn.Conv2d(in_channels=512, out_channels=1024, kernel_size=3, padding=6, dilation=6),
            nn.ReLU(inplace=True),
            nn.Conv2d(in_channels=1024, out_channels=1024, kernel_size=1),
            nn.ReLU(inplace=True),
        )
        _xavier_init(fc)
        extra.insert(0, nn.Sequential(*backbone[maxpool4_pos:-1], fc))
        self.extra = extra

    def forward(self, x: Tensor) -> dict[str, Tensor]:
        x = self.features(x)
        output = [self.scale_weight.view(1, -1, 1, 1) * F.normalize(x)]
        for block in self.extra:
            x = block(x)
            output.append(x)
        return OrderedDict([(str(i), v) for i, v in enumerate(output)])


def _vgg_extractor(backbone: VGG, highres: bool, trainable_layers: int) -> SSDFeatureExtractorVGG:
    features = backbone.features
    stage_indices = [0] + [i for i, b in enumerate(features) if isinstance(b, nn.MaxPool2d)][:-1]
    num_stages = len(stage_indices)
    if not 0 <= trainable_layers <= num_stages:
        raise AssertionError(
            f"trainable_layers should be in the range [0, {num_stages}]. Instead got {trainable_layers}"
        )
    freeze_before = (
        len(features) if trainable_layers == 0 else stage_indices[num_stages - trainable_layers]
    )
    for b in features[:freeze_before]:
        for parameter in b.parameters():
            parameter.requires_grad_(False)
    return SSDFeatureExtractorVGG(features, highres)


@register_model()
@handle_legacy_interface(
    weights=("pretrained", SSD300_VGG16_Weights.COCO_V1),
    weights_backbone=("pretrained_backbone", VGG16_Weights.IMAGENET1K_FEATURES),
)
def ssd300_vgg16(
    *,
    weights: SSD300_VGG16_Weights | None = None,
    progress: bool = True,
    num_classes: int | None = None,
    weights_backbone: VGG16_Weights | None = VGG16_Weights.IMAGENET1K_FEATURES,
    trainable_backbone_layers: int | None = None,
    **kwargs: Any,
) -> SSD:
    """SSD300 with a VGG-16 backbone (300x300 inputs, six maps, 8732 default boxes)."""
    weights = SSD300_VGG16_Weights.verify(weights)
    weights_backbone = VGG16_Weights.verify(weights_backbone)
    if "size" in kwargs:
        warnings.warn(
            "The size of the model is already fixed; ignoring the parameter.", stacklevel=1
        )
    if weights is not None:
        weights_backbone = None
        num_classes = _ovewrite_value_param(
            "num_classes", num_classes, len(weights.meta["categories"])
        )
    elif num_classes is None:
        num_classes = 91
    trainable_backbone_layers = _validate_trainable_layers(
        weights is not None or weights_backbone is not None, trainable_backbone_layers, 5, 4
    )
    backbone = vgg16(weights=weights_backbone, progress=progress)
    backbone = _vgg_extractor(backbone, False, trainable_backbone_layers)
    anchor_generator = DefaultBoxGenerator(
        [[2], [2, 3], [2, 3], [2, 3], [2], [2]],
        scales=[0.07, 0.15, 0.33, 0.51, 0.69, 0.87, 1.05],
        steps=[8, 16, 32, 64, 100, 300],
    )
    defaults = {
        "image_mean": [0.48235, 0.45882, 0.40784],
        "image_std": [1.0 / 255.0, 1.0 / 255.0, 1.0 / 255.0],
    }
    kwargs = {**defaults, **kwargs}
    model = SSD(backbone, anchor_generator, (300, 300), num_classes, **kwargs)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model
