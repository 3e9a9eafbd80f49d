"""What the segmentation models share: a backbone returning named feature maps, a head
turning the last one into per-pixel class scores, and the bilinear upsampling of those
scores to the input's size; and the 21 Pascal VOC categories their weights predict."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from .... import nn
from ...._tensor import Tensor
from ....nn import functional as F

_VOC_CATEGORIES = [
    "__background__",
    "aeroplane",
    "bicycle",
    "bird",
    "boat",
    "bottle",
    "bus",
    "car",
    "cat",
    "chair",
    "cow",
    "diningtable",
    "dog",
    "horse",
    "motorbike",
    "person",
    "pottedplant",
    "sheep",
    "sofa",
    "train",
    "tvmonitor",
]


def SemanticSegmentation(*args: Any, **kwargs: Any) -> Any:
    """``transforms._presets.SemanticSegmentation(*args, **kwargs)``, imported only when
    called so the models load without the transforms."""
    from ...transforms import _presets

    return _presets.SemanticSegmentation(*args, **kwargs)


class _SimpleSegmentationModel(nn.Module):
    """``{"out": up(classifier(f["out"])), "aux": up(aux_classifier(f["aux"]))}`` with
    ``f = backbone(x)`` and ``up`` the bilinear resize (``align_corners=False``) to ``x``'s
    height and width; ``"aux"`` only when there is an auxiliary classifier."""

    __constants__ = ["aux_classifier"]

    def __init__(
        self, backbone: nn.Module, classifier: nn.Module, aux_classifier: nn.Module | None = None
    ) -> None:
        super().__init__()
        self.backbone = backbone
        self.classifier = classifier
        self.aux_classifier = aux_classifier

    def forward(self, x: Tensor) -> dict[str, Tensor]:
        size = x.shape[-2:]
        features = self.backbone(x)
        result = OrderedDict()
        out = self.classifier(features["out"])
        result["out"] = F.interpolate(out, size=size, mode="bilinear", align_corners=False)
        if self.aux_classifier is not None:
            aux = self.aux_classifier(features["aux"])
            result["aux"] = F.interpolate(aux, size=size, mode="bilinear", align_corners=False)
        return result
