"""Faster R-CNN (Ren et al., 2015): a backbone with a feature pyramid, a region proposal
network and box heads on RoI-aligned proposals; builders with ResNet-50 (v1 and the v2
recipe of Li et al., 2021) and MobileNetV3-Large backbones."""

from __future__ import annotations

from typing import Any

from chainrule import nn
from chainrule.nn import functional as F

from ...._tensor import Tensor
from ...ops import misc as misc_nn_ops
from ...ops.poolers import MultiScaleRoIAlign
from .._api import Weights, WeightsEnum, register_model
from .._utils import _ovewrite_value_param, handle_legacy_interface
from ..mobilenetv3 import MobileNet_V3_Large_Weights, mobilenet_v3_large
from ..resnet import ResNet50_Weights, resnet50
from ._meta import _COCO_CATEGORIES
from ._utils import overwrite_eps
from .anchor_utils import AnchorGenerator
from .backbone_utils import _mobilenet_extractor, _resnet_fpn_extractor, _validate_trainable_layers
from .generalized_rcnn import GeneralizedRCNN
from .roi_heads import RoIHeads
from .rpn import RegionProposalNetwork, RPNHead
from .transform import GeneralizedRCNNTransform

__all__ = [
    "FasterRCNN",
    "FasterRCNN_ResNet50_FPN_Weights",
    "FasterRCNN_ResNet50_FPN_V2_Weights",
    "FasterRCNN_MobileNet_V3_Large_FPN_Weights",
    "FasterRCNN_MobileNet_V3_Large_320_FPN_Weights",
    "fasterrcnn_resnet50_fpn",
    "fasterrcnn_resnet50_fpn_v2",
    "fasterrcnn_mobilenet_v3_large_fpn",
    "fasterrcnn_mobilenet_v3_large_320_fpn",
]


def ObjectDetection(*args: Any, **kwargs: Any) -> nn.Module:
    """``transforms._presets.ObjectDetection()``, imported when called."""
    from ...transforms._presets import ObjectDetection as preset

    return preset(*args, **kwargs)


def _default_anchorgen() -> AnchorGenerator:
    anchor_sizes = ((32,), (64,), (128,), (256,), (512,))
    aspect_ratios = ((0.5, 1.0, 2.0),) * len(anchor_sizes)
    return AnchorGenerator(anchor_sizes, aspect_ratios)


class TwoMLPHead(nn.Module):
    """Flatten, then two fully connected layers with ReLU (``fc6``, ``fc7``)."""

    def __init__(self, in_channels: int, representation_size: int) -> None:
        super().__init__()
        self.fc6 = nn.Linear(in_channels, representation_size)
        self.fc7 = nn.Linear(representation_size, representation_size)

    def forward(self, x: Tensor) -> Tensor:
        x = x.flatten(start_dim=1)
        return F.relu(self.fc7(F.relu(self.fc6(x))))


class FastRCNNConvFCHead(nn.Sequential):
    """3x3 conv-norm-ReLU layers (``conv_layers`` channels), flatten, then linear + ReLU
    layers (``fc_layers`` sizes), on ``input_size = (C, H, W)`` pooled features."""

    def __init__(
        self,
        input_size: tuple[int, int, int],
        conv_layers: list[int],
        fc_layers: list[int],
        norm_layer: Any = None,
    ) -> None:
        in_channels, in_height, in_width = input_size
        blocks: list[nn.Module] = []
        previous = in_channels
        for current in conv_layers:
            blocks.append(
                misc_nn_ops.Conv2dNormActivation(previous, current, norm_layer=norm_layer)
            )
            previous = current
        blocks.append(nn.Flatten())
        previous = previous * in_height * in_width
        for current in fc_layers:
            blocks.append(nn.Linear(previous, current))
            blocks.append(nn.ReLU(inplace=True))
            previous = current
        super().__init__(*blocks)
        for layer in self.modules():
            if isinstance(layer, nn.Conv2d):
                nn.init.kaiming_normal_(layer.weight, mode="fan_out", nonlinearity="relu")
                if layer.bias is not None:
                    nn.init.zeros_(layer.bias)


class FastRCNNPredictor(nn.Module):
    """Class logits (``cls_score``) and per-class box deltas (``bbox_pred``) of each RoI."""

    def __init__(self, in_channels: int, num_classes: int) -> None:
        super().__init__()
        self.cls_score = nn.Linear(in_channels, num_classes)
        self.bbox_pred = nn.Linear(in_channels, num_classes * 4)

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor]:
        if x.dim() == 4 and list(x.shape[2:]) != [1, 1]:
            raise AssertionError(
                f"x has the wrong shape, expecting the last two dimensions to be [1,1] instead of {list(x.shape[2:])}"
            )
        x = x.flatten(start_dim=1)
        return self.cls_score(x), self.bbox_pred(x)


class FasterRCNN(GeneralizedRCNN):
    """Faster R-CNN on ``backbone`` (which has ``out_channels``); ``num_classes`` includes
    the background. Components left None get torchvision's defaults (five anchor sizes
    32-512 x three ratios, ``RPNHead``, 7x7 ``MultiScaleRoIAlign`` on maps '0'-'3',
    ``TwoMLPHead`` of 1024, ``FastRCNNPredictor``)."""

    def __init__(
        self,
        backbone: nn.Module,
        num_classes: int | None = None,
        # transform parameters
        min_size: int = 800,
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
        **kwargs: Any,
    ) -> None:
        if not hasattr(backbone, "out_channels"):
            raise ValueError(
                "backbone should contain an attribute out_channels "
                "specifying the number of output channels (assumed to be the "
                "same for all the levels)"
            )
        if not isinstance(rpn_anchor_generator, (AnchorGenerator, type(None))):
            raise TypeError(
                f"rpn_anchor_generator should be of type AnchorGenerator or None instead of {type(rpn_anchor_generator)}"
            )
        if not isinstance(box_roi_pool, (MultiScaleRoIAlign, type(None))):
            raise TypeError(
                f"box_roi_pool should be of type MultiScaleRoIAlign or None instead of {type(box_roi_pool)}"
            )
        if num_classes is not None:
            if box_predictor is not None:
                raise ValueError("num_classes should be None when box_predictor is specified")
        elif box_predictor is None:
            raise ValueError("num_classes should not be None when box_predictor is not specified")

        out_channels = backbone.out_channels
        if rpn_anchor_generator is None:
            rpn_anchor_generator = _default_anchorgen()
        if rpn_head is None:
            rpn_head = RPNHead(out_channels, rpn_anchor_generator.num_anchors_per_location()[0])
        rpn = RegionProposalNetwork(
            rpn_anchor_generator,
            rpn_head,
            rpn_fg_iou_thresh,
            rpn_bg_iou_thresh,
            rpn_batch_size_per_image,
            rpn_positive_fraction,
            dict(training=rpn_pre_nms_top_n_train, testing=rpn_pre_nms_top_n_test),
            dict(training=rpn_post_nms_top_n_train, testing=rpn_post_nms_top_n_test),
            rpn_nms_thresh,
            score_thresh=rpn_score_thresh,
        )
        if box_roi_pool is None:
            box_roi_pool = MultiScaleRoIAlign(
                featmap_names=["0", "1", "2", "3"], output_size=7, sampling_ratio=2
            )
        if box_head is None:
            resolution = box_roi_pool.output_size[0]
            box_head = TwoMLPHead(out_channels * resolution**2, 1024)
        if box_predictor is None:
            box_predictor = FastRCNNPredictor(1024, num_classes)
        roi_heads = RoIHeads(
            box_roi_pool,
            box_head,
            box_predictor,
            box_fg_iou_thresh,
            box_bg_iou_thresh,
            box_batch_size_per_image,
            box_positive_fraction,
            bbox_reg_weights,
            box_score_thresh,
            box_nms_thresh,
            box_detections_per_img,
        )
        if image_mean is None:
            image_mean = [0.485, 0.456, 0.406]
        if image_std is None:
            image_std = [0.229, 0.224, 0.225]
        transform = GeneralizedRCNNTransform(min_size, max_size, image_mean, image_std, **kwargs)
        super().__init__(backbone, rpn, roi_heads, transform)


_COMMON_META = {"categories": _COCO_CATEGORIES, "min_size": (1, 1)}


class FasterRCNN_ResNet50_FPN_Weights(WeightsEnum):
    COCO_V1 = Weights(
        url="https://download.pytorch.org/models/fasterrcnn_resnet50_fpn_coco-258fb6c6.pth",
        transforms=ObjectDetection,
        meta={
            **_COMMON_META,
            "num_params": 41755286,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/detection#faster-r-cnn-resnet-50-fpn",
            "_metrics": {"COCO-val2017": {"box_map": 37.0}},
            "_ops": 134.38,
            "_file_size": 159.743,
            "_docs": "These weights were produced by following a similar training recipe as on the paper.",
        },
    )
    DEFAULT = COCO_V1


class FasterRCNN_ResNet50_FPN_V2_Weights(WeightsEnum):
    COCO_V1 = Weights(
        url="https://download.pytorch.org/models/fasterrcnn_resnet50_fpn_v2_coco-dd69338a.pth",
        transforms=ObjectDetection,
        meta={
            **_COMMON_META,
            "num_params": 43712278,
            "recipe": "https://github.com/pytorch/vision/pull/5763",
            "_metrics": {"COCO-val2017": {"box_map": 46.7}},
            "_ops": 280.371,
            "_file_size": 167.104,
            "_docs": "These weights were produced using an enhanced training recipe to boost the model accuracy.",
        },
    )
    DEFAULT = COCO_V1


class FasterRCNN_MobileNet_V3_Large_FPN_Weights(WeightsEnum):
    COCO_V1 = Weights(
        url="https://download.pytorch.org/models/fasterrcnn_mobilenet_v3_large_fpn-fb6a3cc7.pth",
        transforms=ObjectDetection,
        meta={
            **_COMMON_META,
            "num_params": 19386354,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/detection#faster-r-cnn-mobilenetv3-large-fpn",
            "_metrics": {"COCO-val2017": {"box_map": 32.8}},
            "_ops": 4.494,
            "_file_size": 74.239,
            "_docs": "These weights were produced by following a similar training recipe as on the paper.",
        },
    )
    DEFAULT = COCO_V1


class FasterRCNN_MobileNet_V3_Large_320_FPN_Weights(WeightsEnum):
    COCO_V1 = Weights(
        url="https://download.pytorch.org/models/fasterrcnn_mobilenet_v3_large_320_fpn-907ea3f9.pth",
        transforms=ObjectDetection,
        meta={
            **_COMMON_META,
            "num_params": 19386354,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/detection#faster-r-cnn-mobilenetv3-large-320-fpn",
            "_metrics": {"COCO-val2017": {"box_map": 22.8}},
            "_ops": 0.719,
            "_file_size": 74.239,
            "_docs": "These weights were produced by following a similar training recipe as on the paper.",
        },
    )
    DEFAULT = COCO_V1


def _num_classes(weights: WeightsEnum | None, num_classes: int | None) -> int:
    # the weights fix the number of classes; COCO's 91 otherwise
    if weights is not None:
        return _ovewrite_value_param("num_classes", num_classes, len(weights.meta["categories"]))
    return 91 if num_classes is None else num_classes


@register_model()
@handle_legacy_interface(
    weights=("pretrained", FasterRCNN_ResNet50_FPN_Weights.COCO_V1),
    weights_backbone=("pretrained_backbone", ResNet50_Weights.IMAGENET1K_V1),
)
def fasterrcnn_resnet50_fpn(
    *,
    weights: FasterRCNN_ResNet50_FPN_Weights | None = None,
    progress: bool = True,
    num_classes: int | None = None,
    weights_backbone: ResNet50_Weights | None = ResNet50_Weights.IMAGENET1K_V1,
    trainable_backbone_layers: int | None = None,
    **kwargs: Any,
) -> FasterRCNN:
    """Faster R-CNN with a ResNet-50-FPN backbone (frozen batch norm when pretrained;
    ``trainable_backbone_layers`` of 5, 3 by default); ``kwargs`` go to :class:`FasterRCNN`."""
    weights = FasterRCNN_ResNet50_FPN_Weights.verify(weights)
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
    backbone = _resnet_fpn_extractor(backbone, trainable_backbone_layers)
    model = FasterRCNN(backbone, num_classes=num_classes, **kwargs)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
        if weights == FasterRCNN_ResNet50_FPN_Weights.COCO_V1:
            overwrite_eps(model, 0.0)
    return model


@register_model()
@handle_legacy_interface(
    weights=("pretrained", FasterRCNN_ResNet50_FPN_V2_Weights.COCO_V1),
    weights_backbone=("pretrained_backbone", ResNet50_Weights.IMAGENET1K_V1),
)
def fasterrcnn_resnet50_fpn_v2(
    *,
    weights: FasterRCNN_ResNet50_FPN_V2_Weights | None = None,
    progress: bool = True,
    num_classes: int | None = None,
    weights_backbone: ResNet50_Weights | None = None,
    trainable_backbone_layers: int | None = None,
    **kwargs: Any,
) -> FasterRCNN:
    """Faster R-CNN v2: ResNet-50-FPN with batch norm in the FPN, a two-conv RPN head and a
    four-conv one-FC box head."""
    weights = FasterRCNN_ResNet50_FPN_V2_Weights.verify(weights)
    weights_backbone = ResNet50_Weights.verify(weights_backbone)
    if weights is not None:
        weights_backbone = None
    num_classes = _num_classes(weights, num_classes)
    is_trained = weights is not None or weights_backbone is not None
    trainable_backbone_layers = _validate_trainable_layers(
        is_trained, trainable_backbone_layers, 5, 3
    )
    backbone = resnet50(weights=weights_backbone, progress=progress)
    backbone = _resnet_fpn_extractor(backbone, trainable_backbone_layers, norm_layer=nn.BatchNorm2d)
    rpn_anchor_generator = _default_anchorgen()
    rpn_head = RPNHead(
        backbone.out_channels, rpn_anchor_generator.num_anchors_per_location()[0], conv_depth=2
    )
    box_head = FastRCNNConvFCHead(
        (backbone.out_channels, 7, 7), [256, 256, 256, 256], [1024], norm_layer=nn.BatchNorm2d
    )
    model = FasterRCNN(
        backbone,
        num_classes=num_classes,
        rpn_anchor_generator=rpn_anchor_generator,
        rpn_head=rpn_head,
        box_head=box_head,
        **kwargs,
    )
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


def _fasterrcnn_mobilenet_v3_large_fpn(
    *,
    weights: WeightsEnum | None,
    progress: bool,
    num_classes: int | None,
    weights_backbone: MobileNet_V3_Large_Weights | None,
    trainable_backbone_layers: int | None,
    **kwargs: Any,
) -> FasterRCNN:
    if weights is not None:
        weights_backbone = None
    num_classes = _num_classes(weights, num_classes)
    is_trained = weights is not None or weights_backbone is not None
    trainable_backbone_layers = _validate_trainable_layers(
        is_trained, trainable_backbone_layers, 6, 3
    )
    norm_layer = misc_nn_ops.FrozenBatchNorm2d if is_trained else nn.BatchNorm2d
    backbone = mobilenet_v3_large(
        weights=weights_backbone, progress=progress, norm_layer=norm_layer
    )
    backbone = _mobilenet_extractor(backbone, True, trainable_backbone_layers)
    anchor_sizes = ((32, 64, 128, 256, 512),) * 3
    aspect_ratios = ((0.5, 1.0, 2.0),) * len(anchor_sizes)
    model = FasterRCNN(
        backbone,
        num_classes,
        rpn_anchor_generator=AnchorGenerator(anchor_sizes, aspect_ratios),
        **kwargs,
    )
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


@register_model()
@handle_legacy_interface(
    weights=("pretrained", FasterRCNN_MobileNet_V3_Large_320_FPN_Weights.COCO_V1),
    weights_backbone=("pretrained_backbone", MobileNet_V3_Large_Weights.IMAGENET1K_V1),
)
def fasterrcnn_mobilenet_v3_large_320_fpn(
    *,
    weights: FasterRCNN_MobileNet_V3_Large_320_FPN_Weights | None = None,
    progress: bool = True,
    num_classes: int | None = None,
    weights_backbone: MobileNet_V3_Large_Weights | None = MobileNet_V3_Large_Weights.IMAGENET1K_V1,
    trainable_backbone_layers: int | None = None,
    **kwargs: Any,
) -> FasterRCNN:
    """Faster R-CNN with a MobileNetV3-Large-FPN backbone for low-resolution images
    (``min_size=320``, ``max_size=640``, 150 proposals, RPN score threshold 0.05)."""
    weights = FasterRCNN_MobileNet_V3_Large_320_FPN_Weights.verify(weights)
    weights_backbone = MobileNet_V3_Large_Weights.verify(weights_backbone)
    defaults = {
        "min_size": 320,
        "max_size": 640,
        "rpn_pre_nms_top_n_test": 150,
        "rpn_post_nms_top_n_test": 150,
        "rpn_score_thresh": 0.05,
    }
    kwargs = {**defaults, **kwargs}
    return _fasterrcnn_mobilenet_v3_large_fpn(
        weights=weights,
        progress=progress,
        num_classes=num_classes,
        weights_backbone=weights_backbone,
        trainable_backbone_layers=trainable_backbone_layers,
        **kwargs,
    )


@register_model()
@handle_legacy_interface(
    weights=("pretrained", FasterRCNN_MobileNet_V3_Large_FPN_Weights.COCO_V1),
    weights_backbone=("pretrained_backbone", MobileNet_V3_Large_Weights.IMAGENET1K_V1),
)
def fasterrcnn_mobilenet_v3_large_fpn(
    *,
    weights: FasterRCNN_MobileNet_V3_Large_FPN_Weights | None = None,
    progress: bool = True,
    num_classes: int | None = None,
    weights_backbone: MobileNet_V3_Large_Weights | None = MobileNet_V3_Large_Weights.IMAGENET1K_V1,
    trainable_backbone_layers: int | None = None,
    **kwargs: Any,
) -> FasterRCNN:
    """Faster R-CNN with a MobileNetV3-Large-FPN backbone (RPN score threshold 0.05)."""
    weights = FasterRCNN_MobileNet_V3_Large_FPN_Weights.verify(weights)
    weights_backbone = MobileNet_V3_Large_Weights.verify(weights_backbone)
    kwargs = {**{"rpn_score_thresh": 0.05}, **kwargs}
    return _fasterrcnn_mobilenet_v3_large_fpn(
        weights=weights,
        progress=progress,
        num_classes=num_classes,
        weights_backbone=weights_backbone,
        trainable_backbone_layers=trainable_backbone_layers,
        **kwargs,
    )
