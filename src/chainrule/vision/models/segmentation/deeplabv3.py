"""DeepLabV3 (Chen et al., 2017): a dilated ResNet or MobileNetV3 whose last feature map
goes through atrous spatial pyramid pooling (a 1x1 convolution, three 3x3 convolutions
dilated 12, 24 and 36, and image-level pooling, concatenated and projected), a 3x3
convolution and a 1x1 convolution to class scores, upsampled to the input size."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .... import cat, nn
from ...._tensor import Tensor
from ....nn import functional as F
from .._api import WeightsEnum, register_model
from .._utils import IntermediateLayerGetter, handle_legacy_interface
from ..mobilenetv3 import MobileNet_V3_Large_Weights, MobileNetV3, mobilenet_v3_large
from ..resnet import ResNet, ResNet50_Weights, ResNet101_Weights, resnet50, resnet101
from ._utils import _SimpleSegmentationModel
from .fcn import _RECIPE, FCNHead, _resolve, _segmentation_weights

__all__ = [
    "DeepLabV3",
    "DeepLabV3_ResNet50_Weights",
    "DeepLabV3_ResNet101_Weights",
    "DeepLabV3_MobileNet_V3_Large_Weights",
    "deeplabv3_mobilenet_v3_large",
    "deeplabv3_resnet50",
    "deeplabv3_resnet101",
]


class DeepLabV3(_SimpleSegmentationModel):
    """DeepLabV3: ``backbone``'s ``"out"`` (and ``"aux"``) features through
    ``classifier`` (and ``aux_classifier``), upsampled to the input size."""


class ASPPConv(nn.Sequential):
    """A 3x3 convolution dilated by ``dilation`` (size kept), batch norm and ReLU."""

    def __init__(self, in_channels: int, out_channels: int, dilation: int) -> None:
        super().__init__(
            nn.Conv2d(
                in_channels, out_channels, 3, padding=dilation, dilation=dilation, bias=False
            ),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(),
        )


class ASPPPooling(nn.Sequential):
    """Global average pooling, a 1x1 convolution, batch norm and ReLU, then bilinear
    upsampling back to the input's height and width."""

    def __init__(self, in_channels: int, out_channels: int) -> None:
        super().__init__(
            nn.AdaptiveAvgPool2d(1),
            nn.Conv2d(in_channels, out_channels, 1, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(),
        )

    def forward(self, x: Tensor) -> Tensor:
        size = x.shape[-2:]
        for module in self:
            x = module(x)
        return F.interpolate(x, size=size, mode="bilinear", align_corners=False)


class ASPP(nn.Module):
    """Atrous spatial pyramid pooling: a 1x1 branch, one dilated 3x3 branch per rate and
    a pooling branch, concatenated over channels and projected back to ``out_channels``
    (1x1 convolution, batch norm, ReLU, dropout 0.5)."""

    def __init__(self, in_channels: int, atrous_rates: list[int], out_channels: int = 256) -> None:
        super().__init__()
        branches = [
            nn.Sequential(
                nn.Conv2d(in_channels, out_channels, 1, bias=False),
                nn.BatchNorm2d(out_channels),
                nn.ReLU(),
            )
        ]
        branches += [ASPPConv(in_channels, out_channels, rate) for rate in tuple(atrous_rates)]
        branches.append(ASPPPooling(in_channels, out_channels))
        self.convs = nn.ModuleList(branches)
        self.project = nn.Sequential(
            nn.Conv2d(len(self.convs) * out_channels, out_channels, 1, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(),
            nn.Dropout(0.5),
        )

    def forward(self, x: Tensor) -> Tensor:
        return self.project(cat([conv(x) for conv in self.convs], dim=1))


class DeepLabHead(nn.Sequential):
    """ASPP (256 channels), a 3x3 convolution, batch norm, ReLU and a 1x1 convolution to
    ``num_classes`` scores."""

    def __init__(
        self, in_channels: int, num_classes: int, atrous_rates: Sequence[int] = (12, 24, 36)
    ) -> None:
        super().__init__(
            ASPP(in_channels, atrous_rates),
            nn.Conv2d(256, 256, 3, padding=1, bias=False),
            nn.BatchNorm2d(256),
            nn.ReLU(),
            nn.Conv2d(256, num_classes, 1),
        )


class DeepLabV3_ResNet50_Weights(WeightsEnum):
    COCO_WITH_VOC_LABELS_V1 = _segmentation_weights(
        "https://download.pytorch.org/models/deeplabv3_resnet50_coco-cd0a2569.pth",
        42004074,
        f"{_RECIPE}#deeplabv3_resnet50",
        66.4,
        92.4,
        178.722,
        160.515,
    )
    DEFAULT = COCO_WITH_VOC_LABELS_V1


class DeepLabV3_ResNet101_Weights(WeightsEnum):
    COCO_WITH_VOC_LABELS_V1 = _segmentation_weights(
        "https://download.pytorch.org/models/deeplabv3_resnet101_coco-586e9e4e.pth",
        60996202,
        f"{_RECIPE}#fcn_resnet101",
        67.4,
        92.4,
        258.743,
        233.217,
    )
    DEFAULT = COCO_WITH_VOC_LABELS_V1


class DeepLabV3_MobileNet_V3_Large_Weights(WeightsEnum):
    COCO_WITH_VOC_LABELS_V1 = _segmentation_weights(
        "https://download.pytorch.org/models/deeplabv3_mobilenet_v3_large-fc3c493d.pth",
        11029328,
        f"{_RECIPE}#deeplabv3_mobilenet_v3_large",
        60.3,
        91.2,
        10.452,
        42.301,
    )
    DEFAULT = COCO_WITH_VOC_LABELS_V1


def _deeplabv3_resnet(backbone: ResNet, num_classes: int, aux: bool | None) -> DeepLabV3:
    return_layers = {"layer4": "out"}
    if aux:
        return_layers["layer3"] = "aux"
    features = IntermediateLayerGetter(backbone, return_layers=return_layers)
    aux_classifier = FCNHead(1024, num_classes) if aux else None
    return DeepLabV3(features, DeepLabHead(2048, num_classes), aux_classifier)


def _stage_ends(features: nn.Sequential) -> list[int]:
    # the first block, each block that halves the resolution, and the last block
    strided = [i for i, block in enumerate(features) if getattr(block, "_is_cn", False)]
    return [0] + strided + [len(features) - 1]


def _deeplabv3_mobilenetv3(backbone: MobileNetV3, num_classes: int, aux: bool | None) -> DeepLabV3:
    features = backbone.features
    stages = _stage_ends(features)
    out_pos, aux_pos = stages[-1], stages[-4]
    return_layers = {str(out_pos): "out"}
    if aux:
        return_layers[str(aux_pos)] = "aux"
    aux_classifier = FCNHead(features[aux_pos].out_channels, num_classes) if aux else None
    classifier = DeepLabHead(features[out_pos].out_channels, num_classes)
    getter = IntermediateLayerGetter(features, return_layers=return_layers)
    return DeepLabV3(getter, classifier, aux_classifier)


@register_model()
@handle_legacy_interface(
    weights=("pretrained", DeepLabV3_ResNet50_Weights.COCO_WITH_VOC_LABELS_V1),
    weights_backbone=("pretrained_backbone", ResNet50_Weights.IMAGENET1K_V1),
)
def deeplabv3_resnet50(
    *,
    weights: DeepLabV3_ResNet50_Weights | None = None,
    progress: bool = True,
    num_classes: int | None = None,
    aux_loss: bool | None = None,
    weights_backbone: ResNet50_Weights | None = ResNet50_Weights.IMAGENET1K_V1,
    **kwargs: Any,
) -> DeepLabV3:
    """DeepLabV3 on a ResNet-50 dilated in ``layer3`` and ``layer4`` (21 VOC classes by
    default); ``weights`` (which replace the backbone's) bring the auxiliary head."""
    weights = DeepLabV3_ResNet50_Weights.verify(weights)
    weights_backbone = ResNet50_Weights.verify(weights_backbone)
    if weights is not None:
        weights_backbone = None
    num_classes, aux_loss = _resolve(weights, num_classes, aux_loss)
    backbone = resnet50(weights=weights_backbone, replace_stride_with_dilation=[False, True, True])
    model = _deeplabv3_resnet(backbone, num_classes, aux_loss)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


@register_model()
@handle_legacy_interface(
    weights=("pretrained", DeepLabV3_ResNet101_Weights.COCO_WITH_VOC_LABELS_V1),
    weights_backbone=("pretrained_backbone", ResNet101_Weights.IMAGENET1K_V1),
)
def deeplabv3_resnet101(
    *,
    weights: DeepLabV3_ResNet101_Weights | None = None,
    progress: bool = True,
    num_classes: int | None = None,
    aux_loss: bool | None = None,
    weights_backbone: ResNet101_Weights | None = ResNet101_Weights.IMAGENET1K_V1,
    **kwargs: Any,
) -> DeepLabV3:
    """DeepLabV3 on a ResNet-101 dilated in ``layer3`` and ``layer4`` (21 VOC classes by
    default); ``weights`` (which replace the backbone's) bring the auxiliary head."""
    weights = DeepLabV3_ResNet101_Weights.verify(weights)
    weights_backbone = ResNet101_Weights.verify(weights_backbone)
    if weights is not None:
        weights_backbone = None
    num_classes, aux_loss = _resolve(weights, num_classes, aux_loss)
    backbone = resnet101(weights=weights_backbone, replace_stride_with_dilation=[False, True, True])
    model = _deeplabv3_resnet(backbone, num_classes, aux_loss)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


@register_model()
@handle_legacy_interface(
    weights=("pretrained", DeepLabV3_MobileNet_V3_Large_Weights.COCO_WITH_VOC_LABELS_V1),
    weights_backbone=("pretrained_backbone", MobileNet_V3_Large_Weights.IMAGENET1K_V1),
)
def deeplabv3_mobilenet_v3_large(
    *,
    weights: DeepLabV3_MobileNet_V3_Large_Weights | None = None,
    progress: bool = True,
    num_classes: int | None = None,
    aux_loss: bool | None = None,
    weights_backbone: MobileNet_V3_Large_Weights | None = MobileNet_V3_Large_Weights.IMAGENET1K_V1,
    **kwargs: Any,
) -> DeepLabV3:
    """DeepLabV3 on a MobileNetV3-Large with its last stage dilated (21 VOC classes by
    default); ``weights`` (which replace the backbone's) bring the auxiliary head."""
    weights = DeepLabV3_MobileNet_V3_Large_Weights.verify(weights)
    weights_backbone = MobileNet_V3_Large_Weights.verify(weights_backbone)
    if weights is not None:
        weights_backbone = None
    num_classes, aux_loss = _resolve(weights, num_classes, aux_loss)
    backbone = mobilenet_v3_large(weights=weights_backbone, dilated=True)
    model = _deeplabv3_mobilenetv3(backbone, num_classes, aux_loss)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model
