"""LR-ASPP (Howard et al., 2019, "Searching for MobileNetV3"): a dilated MobileNetV3's
last feature map, gated by its globally pooled sigmoid, upsampled to a stride-8 feature
map and classified, plus a linear classifier of that stride-8 map; the sum is upsampled
to the input size."""

from __future__ import annotations

from collections import OrderedDict
from functools import partial
from typing import Any

from .... import nn
from ...._tensor import Tensor
from ....nn import functional as F
from .._api import Weights, WeightsEnum, register_model
from .._utils import IntermediateLayerGetter, _ovewrite_value_param, handle_legacy_interface
from ..mobilenetv3 import MobileNet_V3_Large_Weights, MobileNetV3, mobilenet_v3_large
from ._utils import _VOC_CATEGORIES, SemanticSegmentation
from .deeplabv3 import _stage_ends

__all__ = ["LRASPP", "LRASPP_MobileNet_V3_Large_Weights", "lraspp_mobilenet_v3_large"]


class LRASPP(nn.Module):
    """``{"out": up(classifier(backbone(x)))}``: the head's scores from the ``"low"`` and
    ``"high"`` feature maps, resized bilinearly to ``x``'s height and width."""

    def __init__(
        self,
        backbone: nn.Module,
        low_channels: int,
        high_channels: int,
        num_classes: int,
        inter_channels: int = 128,
    ) -> None:
        super().__init__()
        self.backbone = backbone
        self.classifier = LRASPPHead(low_channels, high_channels, num_classes, inter_channels)

    def forward(self, input: Tensor) -> dict[str, Tensor]:
        out = self.classifier(self.backbone(input))
        out = F.interpolate(out, size=input.shape[-2:], mode="bilinear", align_corners=False)
        result = OrderedDict()
        result["out"] = out
        return result


class LRASPPHead(nn.Module):
    """``low_classifier(low) + high_classifier(up(cbr(high) * scale(high)))``: ``cbr`` a
    1x1 convolution, batch norm and ReLU, ``scale`` the sigmoid of a 1x1 convolution of
    the pooled ``high``, ``up`` the bilinear resize to ``low``'s size."""

    def __init__(
        self, low_channels: int, high_channels: int, num_classes: int, inter_channels: int
    ) -> None:
        super().__init__()
        self.cbr = nn.Sequential(
            nn.Conv2d(high_channels, inter_channels, 1, bias=False),
            nn.BatchNorm2d(inter_channels),
            nn.ReLU(inplace=True),
        )
        self.scale = nn.Sequential(
            nn.AdaptiveAvgPool2d(1),
            nn.Conv2d(high_channels, inter_channels, 1, bias=False),
            nn.Sigmoid(),
        )
        self.low_classifier = nn.Conv2d(low_channels, num_classes, 1)
        self.high_classifier = nn.Conv2d(inter_channels, num_classes, 1)

    def forward(self, input: dict[str, Tensor]) -> Tensor:
        low, high = input["low"], input["high"]
        x = self.cbr(high) * self.scale(high)
        x = F.interpolate(x, size=low.shape[-2:], mode="bilinear", align_corners=False)
        return self.low_classifier(low) + self.high_classifier(x)


def _lraspp_mobilenetv3(backbone: MobileNetV3, num_classes: int) -> LRASPP:
    features = backbone.features
    stages = _stage_ends(features)
    low_pos, high_pos = stages[-4], stages[-1]
    low_channels = features[low_pos].out_channels
    high_channels = features[high_pos].out_channels
    getter = IntermediateLayerGetter(
        features, return_layers={str(low_pos): "low", str(high_pos): "high"}
    )
    return LRASPP(getter, low_channels, high_channels, num_classes)


class LRASPP_MobileNet_V3_Large_Weights(WeightsEnum):
    COCO_WITH_VOC_LABELS_V1 = Weights(
        url="https://download.pytorch.org/models/lraspp_mobilenet_v3_large-d234d4ea.pth",
        transforms=partial(SemanticSegmentation, resize_size=520),
        meta={
            "num_params": 3221538,
            "categories": _VOC_CATEGORIES,
            "min_size": (1, 1),
            "recipe": "https://github.com/pytorch/vision/tree/main/references/segmentation#lraspp_mobilenet_v3_large",
            "_metrics": {"COCO-val2017-VOC-labels": {"miou": 57.9, "pixel_acc": 91.2}},
            "_ops": 2.086,
            "_file_size": 12.49,
            "_docs": """
                These weights were trained on a subset of COCO, using only the 20 categories that are present in the
                Pascal VOC dataset.
            """,
        },
    )
    DEFAULT = COCO_WITH_VOC_LABELS_V1


@register_model()
@handle_legacy_interface(
    weights=("pretrained", LRASPP_MobileNet_V3_Large_Weights.COCO_WITH_VOC_LABELS_V1),
    weights_backbone=("pretrained_backbone", MobileNet_V3_Large_Weights.IMAGENET1K_V1),
)
def lraspp_mobilenet_v3_large(
    *,
    weights: LRASPP_MobileNet_V3_Large_Weights | None = None,
    progress: bool = True,
    num_classes: int | None = None,
    weights_backbone: MobileNet_V3_Large_Weights | None = MobileNet_V3_Large_Weights.IMAGENET1K_V1,
    **kwargs: Any,
) -> LRASPP:
    """LR-ASPP on a MobileNetV3-Large with its last stage dilated (21 VOC classes by
    default); it has no auxiliary head (``aux_loss=True`` raises)."""
    if kwargs.pop("aux_loss", False):
        raise NotImplementedError("This model does not use auxiliary loss")
    weights = LRASPP_MobileNet_V3_Large_Weights.verify(weights)
    weights_backbone = MobileNet_V3_Large_Weights.verify(weights_backbone)
    if weights is not None:
        weights_backbone = None
        num_classes = _ovewrite_value_param(
            "num_classes", num_classes, len(weights.meta["categories"])
        )
    elif num_classes is None:
        num_classes = 21
    backbone = mobilenet_v3_large(weights=weights_backbone, dilated=True)
    model = _lraspp_mobilenetv3(backbone, num_classes)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model
