"""S3D (Xie et al., 2018, "Rethinking Spatiotemporal Feature Learning"): Inception
(GoogLeNet) on clips, every 3x3 convolution made separable into a 1x3x3 spatial and a
3x1x1 temporal one; average pooling and a 1x1x1 convolution classifier, averaged over
the remaining time and space."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from .... import cat, mean, nn
from ...._tensor import Tensor
from ...ops.misc import Conv3dNormActivation
from .._api import Weights, WeightsEnum, register_model
from .._utils import _ovewrite_named_param, handle_legacy_interface
from ._utils import _KINETICS400_CATEGORIES, VideoClassification

__all__ = ["S3D", "S3D_Weights", "s3d"]


class TemporalSeparableConv(nn.Sequential):
    """A ``1 x k x k`` convolution (stride and padding in space) then a ``k x 1 x 1`` one
    (in time), each with ``norm_layer`` and ReLU."""

    def __init__(
        self,
        in_planes: int,
        out_planes: int,
        kernel_size: int,
        stride: int,
        padding: int,
        norm_layer: Callable[..., nn.Module],
    ) -> None:
        super().__init__(
            Conv3dNormActivation(
                in_planes,
                out_planes,
                kernel_size=(1, kernel_size, kernel_size),
                stride=(1, stride, stride),
                padding=(0, padding, padding),
                bias=False,
                norm_layer=norm_layer,
            ),
            Conv3dNormActivation(
                out_planes,
                out_planes,
                kernel_size=(kernel_size, 1, 1),
                stride=(stride, 1, 1),
                padding=(padding, 0, 0),
                bias=False,
                norm_layer=norm_layer,
            ),
        )


class SepInceptionBlock3D(nn.Module):
    """Four branches concatenated over channels: a 1x1x1 convolution; two 1x1x1
    reductions each followed by a separable 3x3x3 convolution; a 3x3x3 max pool and a
    1x1x1 convolution."""

    def __init__(
        self,
        in_planes: int,
        b0_out: int,
        b1_mid: int,
        b1_out: int,
        b2_mid: int,
        b2_out: int,
        b3_out: int,
        norm_layer: Callable[..., nn.Module],
    ) -> None:
        super().__init__()
        self.branch0 = Conv3dNormActivation(
            in_planes, b0_out, kernel_size=1, stride=1, norm_layer=norm_layer
        )
        self.branch1 = nn.Sequential(
            Conv3dNormActivation(in_planes, b1_mid, kernel_size=1, stride=1, norm_layer=norm_layer),
            TemporalSeparableConv(
                b1_mid, b1_out, kernel_size=3, stride=1, padding=1, norm_layer=norm_layer
            ),
        )
        self.branch2 = nn.Sequential(
            Conv3dNormActivation(in_planes, b2_mid, kernel_size=1, stride=1, norm_layer=norm_layer),
            TemporalSeparableConv(
                b2_mid, b2_out, kernel_size=3, stride=1, padding=1, norm_layer=norm_layer
            ),
        )
        self.branch3 = nn.Sequential(
            nn.MaxPool3d(kernel_size=(3, 3, 3), stride=1, padding=1),
            Conv3dNormActivation(in_planes, b3_out, kernel_size=1, stride=1, norm_layer=norm_layer),
        )

    def forward(self, x: Tensor) -> Tensor:
        branches = (self.branch0, self.branch1, self.branch2, self.branch3)
        return cat([branch(x) for branch in branches], 1)


# in_planes, b0_out, b1_mid, b1_out, b2_mid, b2_out, b3_out of the Inception blocks
_MIXED_3 = [(192, 64, 96, 128, 16, 32, 32), (256, 128, 128, 192, 32, 96, 64)]
_MIXED_4 = [
    (480, 192, 96, 208, 16, 48, 64),
    (512, 160, 112, 224, 24, 64, 64),
    (512, 128, 128, 256, 24, 64, 64),
    (512, 112, 144, 288, 32, 64, 64),
    (528, 256, 160, 320, 32, 128, 128),
]
_MIXED_5 = [(832, 256, 160, 320, 32, 128, 128), (832, 384, 192, 384, 48, 128, 128)]


class S3D(nn.Module):
    """``mean(classifier(avgpool(features(x))), dims (T, H, W))`` on clips
    ``(B, 3, T, H, W)``; ``features`` is the separable Inception network (1024 channels
    at 1/8 the frames and 1/32 the height and width)."""

    def __init__(
        self,
        num_classes: int = 400,
        dropout: float = 0.2,
        norm_layer: Callable[..., nn.Module] | None = None,
    ) -> None:
        super().__init__()
        if norm_layer is None:
            norm_layer = partial(nn.BatchNorm3d, eps=0.001, momentum=0.001)

        def inception(planes: tuple[int, ...]) -> SepInceptionBlock3D:
            return SepInceptionBlock3D(*planes, norm_layer)

        self.features = nn.Sequential(
            TemporalSeparableConv(3, 64, 7, 2, 3, norm_layer),
            nn.MaxPool3d(kernel_size=(1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1)),
            Conv3dNormActivation(64, 64, kernel_size=1, stride=1, norm_layer=norm_layer),
            TemporalSeparableConv(64, 192, 3, 1, 1, norm_layer),
            nn.MaxPool3d(kernel_size=(1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1)),
            *[inception(planes) for planes in _MIXED_3],
            nn.MaxPool3d(kernel_size=(3, 3, 3), stride=(2, 2, 2), padding=(1, 1, 1)),
            *[inception(planes) for planes in _MIXED_4],
            nn.MaxPool3d(kernel_size=(2, 2, 2), stride=(2, 2, 2), padding=(0, 0, 0)),
            *[inception(planes) for planes in _MIXED_5],
        )
        self.avgpool = nn.AvgPool3d(kernel_size=(2, 7, 7), stride=1)
        self.classifier = nn.Sequential(
            nn.Dropout(p=dropout),
            nn.Conv3d(1024, num_classes, kernel_size=1, stride=1, bias=True),
        )

    def forward(self, x: Tensor) -> Tensor:
        x = self.classifier(self.avgpool(self.features(x)))
        return mean(x, dim=(2, 3, 4))


class S3D_Weights(WeightsEnum):
    KINETICS400_V1 = Weights(
        url="https://download.pytorch.org/models/s3d-d76dad2f.pth",
        transforms=partial(VideoClassification, crop_size=(224, 224), resize_size=(256, 256)),
        meta={
            "min_size": (224, 224),
            "min_temporal_size": 14,
            "categories": _KINETICS400_CATEGORIES,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/video_classification#s3d",
            "_docs": (
                "The weights aim to approximate the accuracy of the paper. The accuracies are "
                "estimated on clip-level with parameters `frame_rate=15`, `clips_per_video=1`, "
                "and `clip_len=128`."
            ),
            "num_params": 8320048,
            "_metrics": {"Kinetics-400": {"acc@1": 68.368, "acc@5": 88.05}},
            "_ops": 17.979,
            "_file_size": 31.972,
        },
    )
    DEFAULT = KINETICS400_V1


@register_model()
@handle_legacy_interface(weights=("pretrained", S3D_Weights.KINETICS400_V1))
def s3d(*, weights: S3D_Weights | None = None, progress: bool = True, **kwargs: Any) -> S3D:
    """S3D for clips of at least 14 frames of 224x224 (400 Kinetics classes)."""
    weights = S3D_Weights.verify(weights)
    if weights is not None:
        _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
    model = S3D(**kwargs)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model
