"""FCN (Long et al., 2014): a dilated ResNet whose last feature map (stride 8) goes
through a 3x3 convolution, batch norm, ReLU, dropout and a 1x1 convolution to class
scores, upsampled to the input size; optionally the same head on ``layer3`` as an
auxiliary output."""

from __future__ import annotations

from functools import partial
from typing import Any

from .... import nn
from .._api import Weights, WeightsEnum, register_model
from .._utils import IntermediateLayerGetter, _ovewrite_value_param, handle_legacy_interface
from ..resnet import ResNet, ResNet50_Weights, ResNet101_Weights, resnet50, resnet101
from ._utils import _VOC_CATEGORIES, SemanticSegmentation, _SimpleSegmentationModel

__all__ = ["FCN", "FCN_ResNet50_Weights", "FCN_ResNet101_Weights", "fcn_resnet50", "fcn_resnet101"]


class FCN(_SimpleSegmentationModel):
    """A fully convolutional network: ``backbone``'s ``"out"`` (and ``"aux"``) features
    through ``classifier`` (and ``aux_classifier``), upsampled to the input size."""


class FCNHead(nn.Sequential):
    """3x3 convolution to ``in_channels // 4`` channels, batch norm, ReLU, dropout (0.1)
    and a 1x1 convolution to ``channels`` scores."""

    def __init__(self, in_channels: int, channels: int) -> None:
        inter_channels = in_channels // 4
        super().__init__(
            nn.Conv2d(in_channels, inter_channels, 3, padding=1, bias=False),
            nn.BatchNorm2d(inter_channels),
            nn.ReLU(),
            nn.Dropout(0.1),
            nn.Conv2d(inter_channels, channels, 1),
        )


_COMMON_META = {
    "categories": _VOC_CATEGORIES,
    "min_size": (1, 1),
    "_docs": """
        These weights were trained on a subset of COCO, using only the 20 categories that are present in the Pascal VOC
        dataset.
    """,
}

_RECIPE = "https://github.com/pytorch/vision/tree/main/references/segmentation"


def _segmentation_weights(
    url: str, num_params: int, recipe: str, miou: float, pixel_acc: float, ops: float, size: float
) -> Weights:
    # the COCO-with-VOC-labels weights of the FCN and DeepLabV3 models
    return Weights(
        url=url,
        transforms=partial(SemanticSegmentation, resize_size=520),
        meta={
            **_COMMON_META,
            "num_params": num_params,
            "recipe": recipe,
            "_metrics": {"COCO-val2017-VOC-labels": {"miou": miou, "pixel_acc": pixel_acc}},
            "_ops": ops,
            "_file_size": size,
        },
    )


class FCN_ResNet50_Weights(WeightsEnum):
    COCO_WITH_VOC_LABELS_V1 = _segmentation_weights(
        "https://download.pytorch.org/models/fcn_resnet50_coco-1167a1af.pth",
        35322218,
        f"{_RECIPE}#fcn_resnet50",
        60.5,
        91.4,
        152.717,
        135.009,
    )
    DEFAULT = COCO_WITH_VOC_LABELS_V1


class FCN_ResNet101_Weights(WeightsEnum):
    COCO_WITH_VOC_LABELS_V1 = _segmentation_weights(
        "https://download.pytorch.org/models/fcn_resnet101_coco-7ecb50ca.pth",
        54314346,
        f"{_RECIPE}#deeplabv3_resnet101",
        63.7,
        91.9,
        232.738,
        207.711,
    )
    DEFAULT = COCO_WITH_VOC_LABELS_V1


def _fcn_resnet(backbone: ResNet, num_classes: int, aux: bool | None) -> FCN:
    return_layers = {"layer4": "out"}
    if aux:
        return_layers["layer3"] = "aux"
    features = IntermediateLayerGetter(backbone, return_layers=return_layers)
    aux_classifier = FCNHead(1024, num_classes) if aux else None
    return FCN(features, FCNHead(2048, num_classes), aux_classifier)


def _resolve(
    weights: WeightsEnum | None, num_classes: int | None, aux_loss: bool | None
) -> tuple[int, bool | None]:
    # the number of classes and the auxiliary head the chosen weights fix (21 by default)
    if weights is not None:
        num_classes = _ovewrite_value_param(
            "num_classes", num_classes, len(weights.meta["categories"])
        )
        aux_loss = _ovewrite_value_param("aux_loss", aux_loss, True)
    elif num_classes is None:
        num_classes = 21
    return num_classes, aux_loss


@register_model()
@handle_legacy_interface(
    weights=("pretrained", FCN_ResNet50_Weights.COCO_WITH_VOC_LABELS_V1),
    weights_backbone=("pretrained_backbone", ResNet50_Weights.IMAGENET1K_V1),
)
def fcn_resnet50(
    *,
    weights: FCN_ResNet50_Weights | None = None,
    progress: bool = True,
    num_classes: int | None = None,
    aux_loss: bool | None = None,
    weights_backbone: ResNet50_Weights | None = ResNet50_Weights.IMAGENET1K_V1,
    **kwargs: Any,
) -> FCN:
    """FCN on a ResNet-50 dilated in ``layer3`` and ``layer4`` (21 VOC classes by
    default); ``weights`` (which replace the backbone's) bring the auxiliary head."""
    weights = FCN_ResNet50_Weights.verify(weights)
    weights_backbone = ResNet50_Weights.verify(weights_backbone)
    if weights is not None:
        weights_backbone = None
    num_classes, aux_loss = _resolve(weights, num_classes, aux_loss)
    backbone = resnet50(weights=weights_backbone, replace_stride_with_dilation=[False, True, True])
    model = _fcn_resnet(backbone, num_classes, aux_loss)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


@register_model()
@handle_legacy_interface(
    weights=("pretrained", FCN_ResNet101_Weights.COCO_WITH_VOC_LABELS_V1),
    weights_backbone=("pretrained_backbone", ResNet101_Weights.IMAGENET1K_V1),
)
def fcn_resnet101(
    *,
    weights: FCN_ResNet101_Weights | None = None,
    progress: bool = True,
    num_classes: int | None = None,
    aux_loss: bool | None = None,
    weights_backbone: ResNet101_Weights | None = ResNet101_Weights.IMAGENET1K_V1,
    **kwargs: Any,
) -> FCN:
    """FCN on a ResNet-101 dilated in ``layer3`` and ``layer4`` (21 VOC classes by
    default); ``weights`` (which replace the backbone's) bring the auxiliary head."""
    weights = FCN_ResNet101_Weights.verify(weights)
    weights_backbone = ResNet101_Weights.verify(weights_backbone)
    if weights is not None:
        weights_backbone = None
    num_classes, aux_loss = _resolve(weights, num_classes, aux_loss)
    backbone = resnet101(weights=weights_backbone, replace_stride_with_dilation=[False, True, True])
    model = _fcn_resnet(backbone, num_classes, aux_loss)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model
