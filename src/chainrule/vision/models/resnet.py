"""ResNet (He et al., 2015), ResNeXt (Xie et al., 2016) and Wide ResNet (Zagoruyko and
Komodakis, 2016): a 7x7 stem, four stages of residual blocks (``BasicBlock`` with two 3x3
convolutions, or the 1x1-3x3-1x1 ``Bottleneck``), global average pooling and a linear
classifier. ResNeXt groups the 3x3 convolution; Wide ResNet widens it."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from ... import flatten, nn
from ..._tensor import Tensor
from ._api import Weights, WeightsEnum, register_model
from ._meta import _IMAGENET_CATEGORIES
from ._utils import ImageClassification, _ovewrite_named_param, handle_legacy_interface

__all__ = [
    "ResNet",
    "ResNet18_Weights",
    "ResNet34_Weights",
    "ResNet50_Weights",
    "ResNet101_Weights",
    "ResNet152_Weights",
    "ResNeXt50_32X4D_Weights",
    "ResNeXt101_32X8D_Weights",
    "ResNeXt101_64X4D_Weights",
    "Wide_ResNet50_2_Weights",
    "Wide_ResNet101_2_Weights",
    "resnet18",
    "resnet34",
    "resnet50",
    "resnet101",
    "resnet152",
    "resnext50_32x4d",
    "resnext101_32x8d",
    "resnext101_64x4d",
    "wide_resnet50_2",
    "wide_resnet101_2",
]


def conv3x3(
    in_planes: int, out_planes: int, stride: int = 1, groups: int = 1, dilation: int = 1
) -> nn.Conv2d:
    """A 3x3 convolution without bias, padded to keep the size at stride 1."""
    return nn.Conv2d(
        in_planes,
        out_planes,
        kernel_size=3,
        stride=stride,
        padding=dilation,
        groups=groups,
        bias=False,
        dilation=dilation,
    )


def conv1x1(in_planes: int, out_planes: int, stride: int = 1) -> nn.Conv2d:
    """A 1x1 convolution without bias."""
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    """``relu(bn2(conv2(relu(bn1(conv1(x))))) + shortcut(x))`` with two 3x3 convolutions."""

    expansion: int = 1

    def __init__(
        self,
        inplanes: int,
        planes: int,
        stride: int = 1,
        downsample: nn.Module | None = None,
        groups: int = 1,
        base_width: int = 64,
        dilation: int = 1,
        norm_layer: Callable[..., nn.Module] | None = None,
    ) -> None:
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        if groups != 1 or base_width != 64:
            raise ValueError("BasicBlock only supports groups=1 and base_width=64")
        if dilation > 1:
            raise NotImplementedError("Dilation > 1 not supported in BasicBlock")
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x: Tensor) -> Tensor:
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        # (the shortcut after the main path, as torchvision runs it: traced graphs and
        # feature-extractor node names keep torchvision's order)
        identity = x if self.downsample is None else self.downsample(x)
        return self.relu(out + identity)


class Bottleneck(nn.Module):
    """``relu(bn3(conv3(...conv2(...conv1(x)))) + shortcut(x))``: 1x1 down to ``width``,
    3x3 (grouped, strided, dilated), 1x1 up to ``4 * planes``."""

    expansion: int = 4

    def __init__(
        self,
        inplanes: int,
        planes: int,
        stride: int = 1,
        downsample: nn.Module | None = None,
        groups: int = 1,
        base_width: int = 64,
        dilation: int = 1,
        norm_layer: Callable[..., nn.Module] | None = None,
    ) -> None:
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = conv1x1(inplanes, width)
        self.bn1 = norm_layer(width)
        self.conv2 = conv3x3(width, width, stride, groups, dilation)
        self.bn2 = norm_layer(width)
        self.conv3 = conv1x1(width, planes * self.expansion)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x: Tensor) -> Tensor:
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        identity = x if self.downsample is None else self.downsample(x)  # (after, as there)
        return self.relu(out + identity)


class ResNet(nn.Module):
    """The residual network: stem, ``layer1``..``layer4`` with ``layers[i]`` blocks each
    (64, 128, 256, 512 planes; stride 2 from ``layer2`` on, or dilation where
    ``replace_stride_with_dilation`` says so), average pooling and ``fc``. Convolutions
    start Kaiming-normal (fan_out, ReLU), norms at weight 1 and bias 0; with
    ``zero_init_residual`` each block's last norm weight starts at 0."""

    def __init__(
        self,
        block: type[BasicBlock | Bottleneck],
        layers: list[int],
        num_classes: int = 1000,
        zero_init_residual: bool = False,
        groups: int = 1,
        width_per_group: int = 64,
        replace_stride_with_dilation: list[bool] | None = None,
        norm_layer: Callable[..., nn.Module] | None = None,
    ) -> None:
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        self._norm_layer = norm_layer
        self.inplanes = 64
        self.dilation = 1
        if replace_stride_with_dilation is None:
            replace_stride_with_dilation = [False, False, False]
        if len(replace_stride_with_dilation) != 3:
            raise ValueError(
                "replace_stride_with_dilation should be None "
                f"or a 3-element tuple, got {replace_stride_with_dilation}"
            )
        self.groups = groups
        self.base_width = width_per_group
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = norm_layer(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(
            block, 128, layers[1], stride=2, dilate=replace_stride_with_dilation[0]
        )
        self.layer3 = self._make_layer(
            block, 256, layers[2], stride=2, dilate=replace_stride_with_dilation[1]
        )
        self.layer4 = self._make_layer(
            block, 512, layers[3], stride=2, dilate=replace_stride_with_dilation[2]
        )
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)

        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
        if zero_init_residual:
            for m in self.modules():
                if isinstance(m, Bottleneck) and m.bn3.weight is not None:
                    nn.init.constant_(m.bn3.weight, 0)
                elif isinstance(m, BasicBlock) and m.bn2.weight is not None:
                    nn.init.constant_(m.bn2.weight, 0)

    def _make_layer(
        self,
        block: type[BasicBlock | Bottleneck],
        planes: int,
        blocks: int,
        stride: int = 1,
        dilate: bool = False,
    ) -> nn.Sequential:
        norm_layer = self._norm_layer
        downsample = None
        previous_dilation = self.dilation
        if dilate:
            self.dilation *= stride
            stride = 1
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                conv1x1(self.inplanes, planes * block.expansion, stride),
                norm_layer(planes * block.expansion),
            )
        layers = [
            block(
                self.inplanes,
                planes,
                stride,
                downsample,
                self.groups,
                self.base_width,
                previous_dilation,
                norm_layer,
            )
        ]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(
                block(
                    self.inplanes,
                    planes,
                    groups=self.groups,
                    base_width=self.base_width,
                    dilation=self.dilation,
                    norm_layer=norm_layer,
                )
            )
        return nn.Sequential(*layers)

    def _forward_impl(self, x: Tensor) -> Tensor:
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(flatten(self.avgpool(x), 1))

    def forward(self, x: Tensor) -> Tensor:
        return self._forward_impl(x)


def _resnet(
    block: type[BasicBlock | Bottleneck],
    layers: list[int],
    weights: WeightsEnum | None,
    progress: bool,
    **kwargs: Any,
) -> ResNet:
    if weights is not None:
        _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
    model = ResNet(block, layers, **kwargs)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


class ResNet18_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/resnet18-f37072fd.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 11689512,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#resnet",
            "_metrics": {"ImageNet-1K": {"acc@1": 69.758, "acc@5": 89.078}},
            "_ops": 1.814,
            "_file_size": 44.661,
            "_docs": "These weights reproduce closely the results of the paper using a simple training recipe.",
        },
    )
    DEFAULT = IMAGENET1K_V1


class ResNet34_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/resnet34-b627a593.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 21797672,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#resnet",
            "_metrics": {"ImageNet-1K": {"acc@1": 73.314, "acc@5": 91.42}},
            "_ops": 3.664,
            "_file_size": 83.275,
            "_docs": "These weights reproduce closely the results of the paper using a simple training recipe.",
        },
    )
    DEFAULT = IMAGENET1K_V1


class ResNet50_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/resnet50-0676ba61.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 25557032,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#resnet",
            "_metrics": {"ImageNet-1K": {"acc@1": 76.13, "acc@5": 92.862}},
            "_ops": 4.089,
            "_file_size": 97.781,
            "_docs": "These weights reproduce closely the results of the paper using a simple training recipe.",
        },
    )
    IMAGENET1K_V2 = Weights(
        url="https://download.pytorch.org/models/resnet50-11ad3fa6.pth",
        transforms=partial(ImageClassification, crop_size=224, resize_size=232),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 25557032,
            "recipe": "https://github.com/pytorch/vision/issues/3995#issuecomment-1013906621",
            "_metrics": {"ImageNet-1K": {"acc@1": 80.858, "acc@5": 95.434}},
            "_ops": 4.089,
            "_file_size": 97.79,
            "_docs": (
                "\n"
                "                These weights improve upon the results of the original paper by using TorchVision's `new training recipe\n"
                "                <https://pytorch.org/blog/how-to-train-state-of-the-art-models-using-torchvision-latest-primitives/>`_.\n"
                "            "
            ),
        },
    )
    DEFAULT = IMAGENET1K_V2


class ResNet101_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/resnet101-63fe2227.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 44549160,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#resnet",
            "_metrics": {"ImageNet-1K": {"acc@1": 77.374, "acc@5": 93.546}},
            "_ops": 7.801,
            "_file_size": 170.511,
            "_docs": "These weights reproduce closely the results of the paper using a simple training recipe.",
        },
    )
    IMAGENET1K_V2 = Weights(
        url="https://download.pytorch.org/models/resnet101-cd907fc2.pth",
        transforms=partial(ImageClassification, crop_size=224, resize_size=232),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 44549160,
            "recipe": "https://github.com/pytorch/vision/issues/3995#new-recipe",
            "_metrics": {"ImageNet-1K": {"acc@1": 81.886, "acc@5": 95.78}},
            "_ops": 7.801,
            "_file_size": 170.53,
            "_docs": (
                "\n"
                "                These weights improve upon the results of the original paper by using TorchVision's `new training recipe\n"
                "                <https://pytorch.org/blog/how-to-train-state-of-the-art-models-using-torchvision-latest-primitives/>`_.\n"
                "            "
            ),
        },
    )
    DEFAULT = IMAGENET1K_V2


class ResNet152_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/resnet152-394f9c45.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 60192808,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#resnet",
            "_metrics": {"ImageNet-1K": {"acc@1": 78.312, "acc@5": 94.046}},
            "_ops": 11.514,
            "_file_size": 230.434,
            "_docs": "These weights reproduce closely the results of the paper using a simple training recipe.",
        },
    )
    IMAGENET1K_V2 = Weights(
        url="https://download.pytorch.org/models/resnet152-f82ba261.pth",
        transforms=partial(ImageClassification, crop_size=224, resize_size=232),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 60192808,
            "recipe": "https://github.com/pytorch/vision/issues/3995#new-recipe",
            "_metrics": {"ImageNet-1K": {"acc@1": 82.284, "acc@5": 96.002}},
            "_ops": 11.514,
            "_file_size": 230.474,
            "_docs": (
                "\n"
                "                These weights improve upon the results of the original paper by using TorchVision's `new training recipe\n"
                "                <https://pytorch.org/blog/how-to-train-state-of-the-art-models-using-torchvision-latest-primitives/>`_.\n"
                "            "
            ),
        },
    )
    DEFAULT = IMAGENET1K_V2


class ResNeXt50_32X4D_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/resnext50_32x4d-7cdf4587.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 25028904,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#resnext",
            "_metrics": {"ImageNet-1K": {"acc@1": 77.618, "acc@5": 93.698}},
            "_ops": 4.23,
            "_file_size": 95.789,
            "_docs": "These weights reproduce closely the results of the paper using a simple training recipe.",
        },
    )
    IMAGENET1K_V2 = Weights(
        url="https://download.pytorch.org/models/resnext50_32x4d-1a0047aa.pth",
        transforms=partial(ImageClassification, crop_size=224, resize_size=232),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 25028904,
            "recipe": "https://github.com/pytorch/vision/issues/3995#new-recipe",
            "_metrics": {"ImageNet-1K": {"acc@1": 81.198, "acc@5": 95.34}},
            "_ops": 4.23,
            "_file_size": 95.833,
            "_docs": (
                "\n"
                "                These weights improve upon the results of the original paper by using TorchVision's `new training recipe\n"
                "                <https://pytorch.org/blog/how-to-train-state-of-the-art-models-using-torchvision-latest-primitives/>`_.\n"
                "            "
            ),
        },
    )
    DEFAULT = IMAGENET1K_V2


class ResNeXt101_32X8D_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/resnext101_32x8d-8ba56ff5.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 88791336,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#resnext",
            "_metrics": {"ImageNet-1K": {"acc@1": 79.312, "acc@5": 94.526}},
            "_ops": 16.414,
            "_file_size": 339.586,
            "_docs": "These weights reproduce closely the results of the paper using a simple training recipe.",
        },
    )
    IMAGENET1K_V2 = Weights(
        url="https://download.pytorch.org/models/resnext101_32x8d-110c445d.pth",
        transforms=partial(ImageClassification, crop_size=224, resize_size=232),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 88791336,
            "recipe": "https://github.com/pytorch/vision/issues/3995#new-recipe-with-fixres",
            "_metrics": {"ImageNet-1K": {"acc@1": 82.834, "acc@5": 96.228}},
            "_ops": 16.414,
            "_file_size": 339.673,
            "_docs": (
                "\n"
                "                These weights improve upon the results of the original paper by using TorchVision's `new training recipe\n"
                "                <https://pytorch.org/blog/how-to-train-state-of-the-art-models-using-torchvision-latest-primitives/>`_.\n"
                "            "
            ),
        },
    )
    DEFAULT = IMAGENET1K_V2


class ResNeXt101_64X4D_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/resnext101_64x4d-173b62eb.pth",
        transforms=partial(ImageClassification, crop_size=224, resize_size=232),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 83455272,
            "recipe": "https://github.com/pytorch/vision/pull/5935",
            "_metrics": {"ImageNet-1K": {"acc@1": 83.246, "acc@5": 96.454}},
            "_ops": 15.46,
            "_file_size": 319.318,
            "_docs": (
                "\n"
                "                These weights were trained from scratch by using TorchVision's `new training recipe\n"
                "                <https://pytorch.org/blog/how-to-train-state-of-the-art-models-using-torchvision-latest-primitives/>`_.\n"
                "            "
            ),
        },
    )
    DEFAULT = IMAGENET1K_V1


class Wide_ResNet50_2_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/wide_resnet50_2-95faca4d.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 68883240,
            "recipe": "https://github.com/pytorch/vision/pull/912#issue-445437439",
            "_metrics": {"ImageNet-1K": {"acc@1": 78.468, "acc@5": 94.086}},
            "_ops": 11.398,
            "_file_size": 131.82,
            "_docs": "These weights reproduce closely the results of the paper using a simple training recipe.",
        },
    )
    IMAGENET1K_V2 = Weights(
        url="https://download.pytorch.org/models/wide_resnet50_2-9ba9bcbe.pth",
        transforms=partial(ImageClassification, crop_size=224, resize_size=232),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 68883240,
            "recipe": "https://github.com/pytorch/vision/issues/3995#new-recipe-with-fixres",
            "_metrics": {"ImageNet-1K": {"acc@1": 81.602, "acc@5": 95.758}},
            "_ops": 11.398,
            "_file_size": 263.124,
            "_docs": (
                "\n"
                "                These weights improve upon the results of the original paper by using TorchVision's `new training recipe\n"
                "                <https://pytorch.org/blog/how-to-train-state-of-the-art-models-using-torchvision-latest-primitives/>`_.\n"
                "            "
            ),
        },
    )
    DEFAULT = IMAGENET1K_V2


class Wide_ResNet101_2_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/wide_resnet101_2-32ee1156.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 126886696,
            "recipe": "https://github.com/pytorch/vision/pull/912#issue-445437439",
            "_metrics": {"ImageNet-1K": {"acc@1": 78.848, "acc@5": 94.284}},
            "_ops": 22.753,
            "_file_size": 242.896,
            "_docs": "These weights reproduce closely the results of the paper using a simple training recipe.",
        },
    )
    IMAGENET1K_V2 = Weights(
        url="https://download.pytorch.org/models/wide_resnet101_2-d733dc28.pth",
        transforms=partial(ImageClassification, crop_size=224, resize_size=232),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 126886696,
            "recipe": "https://github.com/pytorch/vision/issues/3995#new-recipe",
            "_metrics": {"ImageNet-1K": {"acc@1": 82.51, "acc@5": 96.02}},
            "_ops": 22.753,
            "_file_size": 484.747,
            "_docs": (
                "\n"
                "                These weights improve upon the results of the original paper by using TorchVision's `new training recipe\n"
                "                <https://pytorch.org/blog/how-to-train-state-of-the-art-models-using-torchvision-latest-primitives/>`_.\n"
                "            "
            ),
        },
    )
    DEFAULT = IMAGENET1K_V2


@register_model()
@handle_legacy_interface(weights=("pretrained", ResNet18_Weights.IMAGENET1K_V1))
def resnet18(
    *, weights: ResNet18_Weights | None = None, progress: bool = True, **kwargs: Any
) -> ResNet:
    """resnet18 (BasicBlocks [2, 2, 2, 2]); ``weights`` a
    :class:`ResNet18_Weights` member (or its name) to load, ``kwargs`` go to :class:`ResNet`."""
    weights = ResNet18_Weights.verify(weights)
    return _resnet(BasicBlock, [2, 2, 2, 2], weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ResNet34_Weights.IMAGENET1K_V1))
def resnet34(
    *, weights: ResNet34_Weights | None = None, progress: bool = True, **kwargs: Any
) -> ResNet:
    """resnet34 (BasicBlocks [3, 4, 6, 3]); ``weights`` a
    :class:`ResNet34_Weights` member (or its name) to load, ``kwargs`` go to :class:`ResNet`."""
    weights = ResNet34_Weights.verify(weights)
    return _resnet(BasicBlock, [3, 4, 6, 3], weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ResNet50_Weights.IMAGENET1K_V1))
def resnet50(
    *, weights: ResNet50_Weights | None = None, progress: bool = True, **kwargs: Any
) -> ResNet:
    """resnet50 (Bottlenecks [3, 4, 6, 3]); ``weights`` a
    :class:`ResNet50_Weights` member (or its name) to load, ``kwargs`` go to :class:`ResNet`."""
    weights = ResNet50_Weights.verify(weights)
    return _resnet(Bottleneck, [3, 4, 6, 3], weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ResNet101_Weights.IMAGENET1K_V1))
def resnet101(
    *, weights: ResNet101_Weights | None = None, progress: bool = True, **kwargs: Any
) -> ResNet:
    """resnet101 (Bottlenecks [3, 4, 23, 3]); ``weights`` a
    :class:`ResNet101_Weights` member (or its name) to load, ``kwargs`` go to :class:`ResNet`."""
    weights = ResNet101_Weights.verify(weights)
    return _resnet(Bottleneck, [3, 4, 23, 3], weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ResNet152_Weights.IMAGENET1K_V1))
def resnet152(
    *, weights: ResNet152_Weights | None = None, progress: bool = True, **kwargs: Any
) -> ResNet:
    """resnet152 (Bottlenecks [3, 8, 36, 3]); ``weights`` a
    :class:`ResNet152_Weights` member (or its name) to load, ``kwargs`` go to :class:`ResNet`."""
    weights = ResNet152_Weights.verify(weights)
    return _resnet(Bottleneck, [3, 8, 36, 3], weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ResNeXt50_32X4D_Weights.IMAGENET1K_V1))
def resnext50_32x4d(
    *, weights: ResNeXt50_32X4D_Weights | None = None, progress: bool = True, **kwargs: Any
) -> ResNet:
    """resnext50_32x4d (Bottlenecks [3, 4, 6, 3], groups=32, width_per_group=4); ``weights`` a
    :class:`ResNeXt50_32X4D_Weights` member (or its name) to load, ``kwargs`` go to :class:`ResNet`."""
    weights = ResNeXt50_32X4D_Weights.verify(weights)
    _ovewrite_named_param(kwargs, "groups", 32)
    _ovewrite_named_param(kwargs, "width_per_group", 4)
    return _resnet(Bottleneck, [3, 4, 6, 3], weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ResNeXt101_32X8D_Weights.IMAGENET1K_V1))
def resnext101_32x8d(
    *, weights: ResNeXt101_32X8D_Weights | None = None, progress: bool = True, **kwargs: Any
) -> ResNet:
    """resnext101_32x8d (Bottlenecks [3, 4, 23, 3], groups=32, width_per_group=8); ``weights`` a
    :class:`ResNeXt101_32X8D_Weights` member (or its name) to load, ``kwargs`` go to :class:`ResNet`."""
    weights = ResNeXt101_32X8D_Weights.verify(weights)
    _ovewrite_named_param(kwargs, "groups", 32)
    _ovewrite_named_param(kwargs, "width_per_group", 8)
    return _resnet(Bottleneck, [3, 4, 23, 3], weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ResNeXt101_64X4D_Weights.IMAGENET1K_V1))
def resnext101_64x4d(
    *, weights: ResNeXt101_64X4D_Weights | None = None, progress: bool = True, **kwargs: Any
) -> ResNet:
    """resnext101_64x4d (Bottlenecks [3, 4, 23, 3], groups=64, width_per_group=4); ``weights`` a
    :class:`ResNeXt101_64X4D_Weights` member (or its name) to load, ``kwargs`` go to :class:`ResNet`."""
    weights = ResNeXt101_64X4D_Weights.verify(weights)
    _ovewrite_named_param(kwargs, "groups", 64)
    _ovewrite_named_param(kwargs, "width_per_group", 4)
    return _resnet(Bottleneck, [3, 4, 23, 3], weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", Wide_ResNet50_2_Weights.IMAGENET1K_V1))
def wide_resnet50_2(
    *, weights: Wide_ResNet50_2_Weights | None = None, progress: bool = True, **kwargs: Any
) -> ResNet:
    """wide_resnet50_2 (Bottlenecks [3, 4, 6, 3], width_per_group=128); ``weights`` a
    :class:`Wide_ResNet50_2_Weights` member (or its name) to load, ``kwargs`` go to :class:`ResNet`."""
    weights = Wide_ResNet50_2_Weights.verify(weights)
    _ovewrite_named_param(kwargs, "width_per_group", 128)
    return _resnet(Bottleneck, [3, 4, 6, 3], weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", Wide_ResNet101_2_Weights.IMAGENET1K_V1))
def wide_resnet101_2(
    *, weights: Wide_ResNet101_2_Weights | None = None, progress: bool = True, **kwargs: Any
) -> ResNet:
    """wide_resnet101_2 (Bottlenecks [3, 4, 23, 3], width_per_group=128); ``weights`` a
    :class:`Wide_ResNet101_2_Weights` member (or its name) to load, ``kwargs`` go to :class:`ResNet`."""
    weights = Wide_ResNet101_2_Weights.verify(weights)
    _ovewrite_named_param(kwargs, "width_per_group", 128)
    return _resnet(Bottleneck, [3, 4, 23, 3], weights, progress, **kwargs)
