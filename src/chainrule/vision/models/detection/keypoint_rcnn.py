"""Keypoint R-CNN (He et al., 2017): Faster R-CNN with a keypoint branch, a 14x14 RoI
Align, eight 512-channel 3x3 convolutions and a transposed convolution plus 2x bilinear
upsampling to one 56x56 heatmap per keypoint; the COCO person-keypoint builder."""

from __future__ import annotations

from typing import Any

from chainrule import nn
from chainrule.nn import functional as F

from ...._tensor import Tensor
from ...ops import misc as misc_nn_ops
from ...ops.poolers import MultiScaleRoIAlign
from .._api import Weights, WeightsEnum, register_model
from .._utils import _ovewrite_value_param, handle_legacy_interface
from ..resnet import ResNet50_Weights, resnet50
from ._meta import _COCO_PERSON_CATEGORIES, _COCO_PERSON_KEYPOINT_NAMES
from ._utils import overwrite_eps
from .anchor_utils import AnchorGenerator
from .backbone_utils import _resnet_fpn_extractor, _validate_trainable_layers
from .faster_rcnn import FasterRCNN, ObjectDetection

__all__ = ["KeypointRCNN", "KeypointRCNN_ResNet50_FPN_Weights", "keypointrcnn_resnet50_fpn"]


class KeypointRCNNHeads(nn.Sequential):
    """3x3 conv + ReLU layers with ``layers`` channels."""

    def __init__(self, in_channels: int, layers: list[int]) -> None:
        blocks: list[nn.Module] = []
        previous = in_channels
        for out_channels in layers:
            blocks.append(nn.Conv2d(previous, out_channels, 3, stride=1, padding=1))
            blocks.append(nn.ReLU(inplace=True))
            previous = out_channels
        super().__init__(*blocks)
        for m in self.children():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                nn.init.constant_(m.bias, 0)


class KeypointRCNNPredictor(nn.Module):
    """A 4x4 stride-2 transposed conv to one map per keypoint, then 2x bilinear
    upsampling."""

    def __init__(self, in_channels: int, num_keypoints: int) -> None:
        super().__init__()
        deconv_kernel = 4
        self.kps_score_lowres = nn.ConvTranspose2d(
            in_channels, num_keypoints, deconv_kernel, stride=2, padding=deconv_kernel // 2 - 1
        )
        nn.init.kaiming_normal_(self.kps_score_lowres.weight, mode="fan_out", nonlinearity="relu")
        nn.init.constant_(self.kps_score_lowres.bias, 0)
        self.up_scale = 2
        self.out_channels = num_keypoints

    def forward(self, x: Tensor) -> Tensor:
        x = self.kps_score_lowres(x)
        return F.interpolate(
            x,
            scale_factor=float(self.up_scale),
            mode="bilinear",
            align_corners=False,
            recompute_scale_factor=False,
        )


class KeypointRCNN(FasterRCNN):
    """Faster R-CNN whose detections also carry ``keypoints`` ``(N, K, 3)`` and
    ``keypoints_scores``; training adds ``loss_keypoint`` (targets need ``keypoints``,
    float32). ``min_size`` defaults to a random choice of 640-800 when training."""

    def __init__(
        self,
        backbone: nn.Module,
        num_classes: int | None = None,
        # transform parameters
        min_size: int | tuple[int, ...] | None = None,
        max_size: int = 1333,
        image_mean: list[float] | None = None,
        image_std: list[float] | None = None,
        # RPN parameters
        rpn_anchor_generator: AnchorGenerator | None = None,
        rpn_head: nn.Module | None = None,
        rpn_pre_nms_top_n_train: int = 2000,
        rpn_pre_nms_top_n_test: int = 1000,
        rpn_post_nms_top_n_train: int = 2000,
        rpn_post_nms_top_n_test: int = 1000,
        rpn_nms_thresh: float = 0.7,
        rpn_fg_iou_thresh: float = 0.7,
        rpn_bg_iou_thresh: float = 0.3,
        rpn_batch_size_per_image: int = 256,
        rpn_positive_fraction: float = 0.5,
        rpn_score_thresh: float = 0.0,
        # Box parameters
        box_roi_pool: MultiScaleRoIAlign | None = None,
        box_head: nn.Module | None = None,
        box_predictor: nn.Module | None = None,
        box_score_thresh: float = 0.05,
        box_nms_thresh: float = 0.5,
        box_detections_per_img: int = 100,
        box_fg_iou_thresh: float = 0.5,
        box_bg_iou_thresh: float = 0.5,
        box_batch_size_per_image: int = 512,
        box_positive_fraction: float = 0.25,
        bbox_reg_weights: tuple[float, float, float, float] | None = None,
        # keypoint parameters
        keypoint_roi_pool: MultiScaleRoIAlign | None = None,
        keypoint_head: nn.Module | None = None,
        keypoint_predictor: nn.Module | None = None,
        num_keypoints: int | None = None,
        **kwargs: Any,
    ) -> None:
        if not isinstance(keypoint_roi_pool, (MultiScaleRoIAlign, type(None))):
            raise TypeError(
                "keypoint_roi_pool should be of type MultiScaleRoIAlign or None instead of {type(keypoint_roi_pool)}"
            )
        if min_size is None:
            min_size = (640, 672, 704, 736, 768, 800)
        if num_keypoints is not None:
            if keypoint_predictor is not None:
                raise ValueError(
                    "num_keypoints should be None when keypoint_predictor is specified"
                )
        else:
            num_keypoints = 17
        out_channels = backbone.out_channels
        if keypoint_roi_pool is None:
            keypoint_roi_pool = MultiScaleRoIAlign(
                featmap_names=["0", "1", "2", "3"], output_size=14, sampling_ratio=2
            )
        if keypoint_head is None:
            keypoint_head = KeypointRCNNHeads(out_channels, tuple(512 for _ in range(8)))
        if keypoint_predictor is None:
            keypoint_predictor = KeypointRCNNPredictor(512, num_keypoints)
        super().__init__(
            backbone,
            num_classes,
            min_size,
            max_size,
            image_mean,
            image_std,
            rpn_anchor_generator,
            rpn_head,
            rpn_pre_nms_top_n_train,
            rpn_pre_nms_top_n_test,
            rpn_post_nms_top_n_train,
            rpn_post_nms_top_n_test,
            rpn_nms_thresh,
            rpn_fg_iou_thresh,
            rpn_bg_iou_thresh,
            rpn_batch_size_per_image,
            rpn_positive_fraction,
            rpn_score_thresh,
            box_roi_pool,
            box_head,
            box_predictor,
            box_score_thresh,
            box_nms_thresh,
            box_detections_per_img,
            box_fg_iou_thresh,
            box_bg_iou_thresh,
            box_batch_size_per_image,
            box_positive_fraction,
            bbox_reg_weights,
            **kwargs,
        )
        self.roi_heads.keypoint_roi_pool = keypoint_roi_pool
        self.roi_heads.keypoint_head = keypoint_head
        self.roi_heads.keypoint_predictor = keypoint_predictor


_COMMON_META = {
    "categories": _COCO_PERSON_CATEGORIES,
    "keypoint_names": _COCO_PERSON_KEYPOINT_NAMES,
    "min_size": (1, 1),
}


class KeypointRCNN_ResNet50_FPN_Weights(WeightsEnum):
    COCO_LEGACY = Weights(
        url="https://download.pytorch.org/models/keypointrcnn_resnet50_fpn_coco-9f466800.pth",
        transforms=ObjectDetection,
        meta={
            **_COMMON_META,
            "num_params": 59137258,
            "recipe": "https://github.com/pytorch/vision/issues/1606",
            "_metrics": {"COCO-val2017": {"box_map": 50.6, "kp_map": 61.1}},
            "_ops": 133.924,
            "_file_size": 226.054,
            "_docs": (
                "\n                These weights were produced by following a similar training recipe as on the paper but use a checkpoint\n"
                "                from an early epoch.\n            "
            ),
        },
    )
    COCO_V1 = Weights(
        url="https://download.pytorch.org/models/keypointrcnn_resnet50_fpn_coco-fc266e95.pth",
        transforms=ObjectDetection,
        meta={
            **_COMMON_META,
            "num_params": 59137258,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/detection#keypoint-r-cnn",
            "_metrics": {"COCO-val2017": {"box_map": 54.6, "kp_map": 65.0}},
            "_ops": 137.42,
            "_file_size": 226.054,
            "_docs": "These weights were produced by following a similar training recipe as on the paper.",
        },
    )
    DEFAULT = COCO_V1


def _legacy_weights(kwargs: dict[str, Any]) -> KeypointRCNN_ResNet50_FPN_Weights:
    if kwargs["pretrained"] == "legacy":
        return KeypointRCNN_ResNet50_FPN_Weights.COCO_LEGACY
    return KeypointRCNN_ResNet50_FPN_Weights.COCO_V1


@register_model()
@handle_legacy_interface(
    weights=("pretrained", _legacy_weights),
    weights_backbone=("pretrained_backbone", ResNet50_Weights.IMAGENET1K_V1),
)
def keypointrcnn_resnet50_fpn(
    *,
    weights: KeypointRCNN_ResNet50_FPN_Weights | None = None,
    progress: bool = True,
    num_classes: int | None = None,
    num_keypoints: int | None = None,
    weights_backbone: ResNet50_Weights | None = ResNet50_Weights.IMAGENET1K_V1,
    trainable_backbone_layers: int | None = None,
    **kwargs: Any,
) -> KeypointRCNN:
    """Keypoint R-CNN with a ResNet-50-FPN backbone (2 classes and 17 keypoints by
    default); ``kwargs`` go to :class:`KeypointRCNN`."""
    weights = KeypointRCNN_ResNet50_FPN_Weights.verify(weights)
    weights_backbone = ResNet50_Weights.verify(weights_backbone)
    if weights is not None:
        weights_backbone = None
        num_classes = _ovewrite_value_param(
            "num_classes", num_classes, len(weights.meta["categories"])
        )
        num_keypoints = _ovewrite_value_param(
            "num_keypoints", num_keypoints, len(weights.meta["keypoint_names"])
        )
    else:
        if num_classes is None:
            num_classes = 2
        if num_keypoints is None:
            num_keypoints = 17
    is_trained = weights is not None or weights_backbone is not None
    trainable_backbone_layers = _validate_trainable_layers(
        is_trained, trainable_backbone_layers, 5, 3
    )
    norm_layer = misc_nn_ops.FrozenBatchNorm2d if is_trained else nn.BatchNorm2d
    backbone = resnet50(weights=weights_backbone, progress=progress, norm_layer=norm_layer)
    backbone = _resnet_fpn_extractor(backbone, trainable_backbone_layers)
    model = KeypointRCNN(backbone, num_classes, num_keypoints=num_keypoints, **kwargs)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
        if weights == KeypointRCNN_ResNet50_FPN_Weights.COCO_V1:
            overwrite_eps(model, 0.0)
    return model
