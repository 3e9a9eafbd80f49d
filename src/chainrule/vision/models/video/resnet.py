"""Video ResNets (Tran et al., 2017, "A Closer Look at Spatiotemporal Convolutions"):
ResNet-18 on clips ``(B, 3, T, H, W)`` with full 3D convolutions (R3D), 3D convolutions in
the first stage and 2D ones after (MC3), or each 3x3x3 convolution factored into a
spatial 1x3x3 and a temporal 3x1x1 one (R(2+1)D)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from .... import flatten, nn
from ...._tensor import Tensor
from .._api import Weights, WeightsEnum, register_model
from .._utils import _ovewrite_named_param, handle_legacy_interface
from ._utils import _KINETICS400_CATEGORIES, VideoClassification

__all__ = [
    "VideoResNet",
    "R3D_18_Weights",
    "MC3_18_Weights",
    "R2Plus1D_18_Weights",
    "r3d_18",
    "mc3_18",
    "r2plus1d_18",
]


class Conv3DSimple(nn.Conv3d):
    """A 3x3x3 convolution without bias, striding time and space alike."""

    def __init__(
        self,
        in_planes: int,
        out_planes: int,
        midplanes: int | None = None,
        stride: int = 1,
        padding: int = 1,
    ) -> None:
        super().__init__(
            in_planes, out_planes, kernel_size=(3, 3, 3), stride=stride, padding=padding, bias=False
        )

    @staticmethod
    def get_downsample_stride(stride: int) -> tuple[int, int, int]:
        """The shortcut's stride: ``stride`` in time, height and width."""
        return stride, stride, stride


class Conv2Plus1D(nn.Sequential):
    """A 1x3x3 spatial convolution to ``midplanes`` channels, batch norm, ReLU and a 3x1x1
    temporal convolution to ``out_planes``: a factored 3x3x3 convolution."""

    def __init__(
        self, in_planes: int, out_planes: int, midplanes: int, stride: int = 1, padding: int = 1
    ) -> None:
        super().__init__(
            nn.Conv3d(
                in_planes,
                midplanes,
                kernel_size=(1, 3, 3),
                stride=(1, stride, stride),
                padding=(0, padding, padding),
                bias=False,
            ),
            nn.BatchNorm3d(midplanes),
            nn.ReLU(inplace=True),
            nn.Conv3d(
                midplanes,
                out_planes,
                kernel_size=(3, 1, 1),
                stride=(stride, 1, 1),
                padding=(padding, 0, 0),
                bias=False,
            ),
        )

    @staticmethod
    def get_downsample_stride(stride: int) -> tuple[int, int, int]:
        """The shortcut's stride: ``stride`` in time, height and width."""
        return stride, stride, stride


class Conv3DNoTemporal(nn.Conv3d):
    """A 1x3x3 convolution without bias: 2D in space, frame by frame."""

    def __init__(
        self,
        in_planes: int,
        out_planes: int,
        midplanes: int | None = None,
        stride: int = 1,
        padding: int = 1,
    ) -> None:
        super().__init__(
            in_planes,
            out_planes,
            kernel_size=(1, 3, 3),
            stride=(1, stride, stride),
            padding=(0, padding, padding),
            bias=False,
        )

    @staticmethod
    def get_downsample_stride(stride: int) -> tuple[int, int, int]:
        """The shortcut's stride: ``stride`` in height and width only."""
        return 1, stride, stride


def _midplanes(inplanes: int, planes: int) -> int:
    # R(2+1)D's intermediate width: as many parameters as a full 3x3x3 convolution
    return (inplanes * planes * 3 * 3 * 3) // (inplanes * 3 * 3 + 3 * planes)


class BasicBlock(nn.Module):
    """``relu(conv2(conv1(x)) + shortcut(x))``, each ``conv`` a ``conv_builder``
    convolution and batch norm (ReLU after the first)."""

    expansion = 1

    def __init__(
        self,
        inplanes: int,
        planes: int,
        conv_builder: Callable[..., nn.Module],
        stride: int = 1,
        downsample: nn.Module | None = None,
    ) -> None:
        midplanes = _midplanes(inplanes, planes)
        super().__init__()
        self.conv1 = nn.Sequential(
            conv_builder(inplanes, planes, midplanes, stride),
            nn.BatchNorm3d(planes),
            nn.ReLU(inplace=True),
        )
        self.conv2 = nn.Sequential(conv_builder(planes, planes, midplanes), nn.BatchNorm3d(planes))
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x: Tensor) -> Tensor:
        shortcut = x if self.downsample is None else self.downsample(x)
        return self.relu(self.conv2(self.conv1(x)) + shortcut)


class Bottleneck(nn.Module):
    """``relu(conv3(conv2(conv1(x))) + shortcut(x))``: 1x1x1 reduction, a
    ``conv_builder`` convolution, 1x1x1 expansion by 4, each with batch norm."""

    expansion = 4

    def __init__(
        self,
        inplanes: int,
        planes: int,
        conv_builder: Callable[..., nn.Module],
        stride: int = 1,
        downsample: nn.Module | None = None,
    ) -> None:
        super().__init__()
        midplanes = _midplanes(inplanes, planes)
        self.conv1 = nn.Sequential(
            nn.Conv3d(inplanes, planes, kernel_size=1, bias=False),
            nn.BatchNorm3d(planes),
            nn.ReLU(inplace=True),
        )
        self.conv2 = nn.Sequential(
            conv_builder(planes, planes, midplanes, stride),
            nn.BatchNorm3d(planes),
            nn.ReLU(inplace=True),
        )
        self.conv3 = nn.Sequential(
            nn.Conv3d(planes, planes * self.expansion, kernel_size=1, bias=False),
            nn.BatchNorm3d(planes * self.expansion),
        )
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x: Tensor) -> Tensor:
        shortcut = x if self.downsample is None else self.downsample(x)
        return self.relu(self.conv3(self.conv2(self.conv1(x))) + shortcut)


class BasicStem(nn.Sequential):
    """A 3x7x7 convolution to 64 channels (stride 1 in time, 2 in space), batch norm, ReLU."""

    def __init__(self) -> None:
        super().__init__(
            nn.Conv3d(
                3, 64, kernel_size=(3, 7, 7), stride=(1, 2, 2), padding=(1, 3, 3), bias=False
            ),
            nn.BatchNorm3d(64),
            nn.ReLU(inplace=True),
        )


class R2Plus1dStem(nn.Sequential):
    """The R(2+1)D stem: a 1x7x7 convolution to 45 channels (stride 2 in space) and a
    3x1x1 one to 64, each with batch norm and ReLU."""

    def __init__(self) -> None:
        super().__init__(
            nn.Conv3d(
                3, 45, kernel_size=(1, 7, 7), stride=(1, 2, 2), padding=(0, 3, 3), bias=False
            ),
            nn.BatchNorm3d(45),
            nn.ReLU(inplace=True),
            nn.Conv3d(
                45, 64, kernel_size=(3, 1, 1), stride=(1, 1, 1), padding=(1, 0, 0), bias=False
            ),
            nn.BatchNorm3d(64),
            nn.ReLU(inplace=True),
        )


class VideoResNet(nn.Module):
    """``fc(avgpool(layer4(...layer1(stem(x)))))`` on clips ``(B, 3, T, H, W)``: four
    stages of ``block`` (64, 128, 256, 512 planes; the last three halve the resolution)
    with ``conv_makers[i]`` convolutions in stage ``i``."""

    def __init__(
        self,
        block: type[BasicBlock | Bottleneck],
        conv_makers: Sequence[type[Conv3DSimple | Conv3DNoTemporal | Conv2Plus1D]],
        layers: list[int],
        stem: Callable[..., nn.Module],
        num_classes: int = 400,
        zero_init_residual: bool = False,
    ) -> None:
        super().__init__()
        self.inplanes = 64
        self.stem = stem()
        self.layer1 = self._make_layer(block, conv_makers[0], 64, layers[0], stride=1)
        self.layer2 = self._make_layer(block, conv_makers[1], 128, layers[1], stride=2)
        self.layer3 = self._make_layer(block, conv_makers[2], 256, layers[2], stride=2)
        self.layer4 = self._make_layer(block, conv_makers[3], 512, layers[3], stride=2)
        self.avgpool = nn.AdaptiveAvgPool3d((1, 1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv3d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                if m.bias is not None:
                    nn.init.constant_(m.bias, 0)
            elif isinstance(m, nn.BatchNorm3d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.constant_(m.bias, 0)
        if zero_init_residual:
            for m in self.modules():
                if isinstance(m, Bottleneck):
                    # torchvision names a ``bn3`` that its Bottleneck lacks (an AttributeError)
                    nn.init.constant_(m.bn3.weight, 0)

    def forward(self, x: Tensor) -> Tensor:
        x = self.stem(x)
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(flatten(self.avgpool(x), 1))

    def _make_layer(
        self,
        block: type[BasicBlock | Bottleneck],
        conv_builder: type[Conv3DSimple | Conv3DNoTemporal | Conv2Plus1D],
        planes: int,
        blocks: int,
        stride: int = 1,
    ) -> nn.Sequential:
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                nn.Conv3d(
                    self.inplanes,
                    planes * block.expansion,
                    kernel_size=1,
                    stride=conv_builder.get_downsample_stride(stride),
                    bias=False,
                ),
                nn.BatchNorm3d(planes * block.expansion),
            )
        layers = [block(self.inplanes, planes, conv_builder, stride, downsample)]
        self.inplanes = planes * block.expansion
        layers += [block(self.inplanes, planes, conv_builder) for _ in range(1, blocks)]
        return nn.Sequential(*layers)


def _video_resnet(
    block: type[BasicBlock | Bottleneck],
    conv_makers: Sequence[type[Conv3DSimple | Conv3DNoTemporal | Conv2Plus1D]],
    layers: list[int],
    stem: Callable[..., nn.Module],
    weights: WeightsEnum | None,
    progress: bool,
    **kwargs: Any,
) -> VideoResNet:
    if weights is not None:
        _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
    model = VideoResNet(block, conv_makers, layers, stem, **kwargs)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


_COMMON_META = {
    "min_size": (1, 1),
    "categories": _KINETICS400_CATEGORIES,
    "recipe": "https://github.com/pytorch/vision/tree/main/references/video_classification",
    "_docs": (
        "The weights reproduce closely the accuracy of the paper. The accuracies are estimated on "
        "video-level with parameters `frame_rate=15`, `clips_per_video=5`, and `clip_len=16`."
    ),
}


def _kinetics_weights(
    url: str, num_params: int, acc1: float, acc5: float, ops: float, size: float
) -> Weights:
    return Weights(
        url=url,
        transforms=partial(VideoClassification, crop_size=(112, 112), resize_size=(128, 171)),
        meta={
            **_COMMON_META,
            "num_params": num_params,
            "_metrics": {"Kinetics-400": {"acc@1": acc1, "acc@5": acc5}},
            "_ops": ops,
            "_file_size": size,
        },
    )


class R3D_18_Weights(WeightsEnum):
    KINETICS400_V1 = _kinetics_weights(
        "https://download.pytorch.org/models/r3d_18-b3b3357e.pth",
        33371472,
        63.2,
        83.479,
        40.697,
        127.359,
    )
    DEFAULT = KINETICS400_V1


class MC3_18_Weights(WeightsEnum):
    KINETICS400_V1 = _kinetics_weights(
        "https://download.pytorch.org/models/mc3_18-a90a0ba3.pth",
        11695440,
        63.96,
        84.13,
        43.343,
        44.672,
    )
    DEFAULT = KINETICS400_V1


class R2Plus1D_18_Weights(WeightsEnum):
    KINETICS400_V1 = _kinetics_weights(
        "https://download.pytorch.org/models/r2plus1d_18-91a641e6.pth",
        31505325,
        67.463,
        86.175,
        40.519,
        120.318,
    )
    DEFAULT = KINETICS400_V1


@register_model()
@handle_legacy_interface(weights=("pretrained", R3D_18_Weights.KINETICS400_V1))
def r3d_18(
    *, weights: R3D_18_Weights | None = None, progress: bool = True, **kwargs: Any
) -> VideoResNet:
    """R3D-18: ResNet-18 with 3x3x3 convolutions throughout (400 Kinetics classes)."""
    weights = R3D_18_Weights.verify(weights)
    return _video_resnet(
        BasicBlock, [Conv3DSimple] * 4, [2, 2, 2, 2], BasicStem, weights, progress, **kwargs
    )


@register_model()
@handle_legacy_interface(weights=("pretrained", MC3_18_Weights.KINETICS400_V1))
def mc3_18(
    *, weights: MC3_18_Weights | None = None, progress: bool = True, **kwargs: Any
) -> VideoResNet:
    """MC3-18: 3x3x3 convolutions in the first stage, 1x3x3 ones in the other three."""
    weights = MC3_18_Weights.verify(weights)
    return _video_resnet(
        BasicBlock,
        [Conv3DSimple] + [Conv3DNoTemporal] * 3,
        [2, 2, 2, 2],
        BasicStem,
        weights,
        progress,
        **kwargs,
    )


@register_model()
@handle_legacy_interface(weights=("pretrained", R2Plus1D_18_Weights.KINETICS400_V1))
def r2plus1d_18(
    *, weights: R2Plus1D_18_Weights | None = None, progress: bool = True, **kwargs: Any
) -> VideoResNet:
    """R(2+1)D-18: every 3x3x3 convolution factored into 1x3x3 and 3x1x1 ones."""
    weights = R2Plus1D_18_Weights.verify(weights)
    return _video_resnet(
        BasicBlock, [Conv2Plus1D] * 4, [2, 2, 2, 2], R2Plus1dStem, weights, progress, **kwargs
    )
