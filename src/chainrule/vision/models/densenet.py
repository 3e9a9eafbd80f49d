"""DenseNet (Huang et al., 2016): dense blocks in which every layer (BN-ReLU-1x1 conv,
BN-ReLU-3x3 conv) sees the concatenation of all earlier feature maps, joined by
transition layers (BN-ReLU-1x1 conv-2x2 average pool)."""

from __future__ import annotations

import re
from collections import OrderedDict
from functools import partial
from typing import Any

from ... import cat, flatten, nn
from ..._tensor import Tensor
from ...nn import functional as F
from ._api import Weights, WeightsEnum, register_model
from ._meta import _IMAGENET_CATEGORIES
from ._utils import ImageClassification, _ovewrite_named_param, handle_legacy_interface

__all__ = [
    "DenseNet",
    "DenseNet121_Weights",
    "DenseNet161_Weights",
    "DenseNet169_Weights",
    "DenseNet201_Weights",
    "densenet121",
    "densenet161",
    "densenet169",
    "densenet201",
]


class _DenseLayer(nn.Module):
    """``growth_rate`` new feature maps from the concatenation of the earlier ones:
    ``conv2(relu2(norm2(conv1(relu1(norm1(cat(inputs)))))))``, then dropout."""

    def __init__(
        self,
        num_input_features: int,
        growth_rate: int,
        bn_size: int,
        drop_rate: float,
        memory_efficient: bool = False,
    ) -> None:
        super().__init__()
        self.norm1 = nn.BatchNorm2d(num_input_features)
        self.relu1 = nn.ReLU(inplace=True)
        self.conv1 = nn.Conv2d(
            num_input_features, bn_size * growth_rate, kernel_size=1, stride=1, bias=False
        )
        self.norm2 = nn.BatchNorm2d(bn_size * growth_rate)
        self.relu2 = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(
            bn_size * growth_rate, growth_rate, kernel_size=3, stride=1, padding=1, bias=False
        )
        self.drop_rate = float(drop_rate)
        # torchvision recomputes the bottleneck in backward to save memory; chainrule keeps it
        self.memory_efficient = memory_efficient

    def bn_function(self, inputs: list[Tensor]) -> Tensor:
        return self.conv1(self.relu1(self.norm1(cat(inputs, 1))))

    def forward(self, input: Tensor | list[Tensor]) -> Tensor:
        prev_features = [input] if isinstance(input, Tensor) else input
        new_features = self.conv2(self.relu2(self.norm2(self.bn_function(prev_features))))
        if self.drop_rate > 0:
            new_features = F.dropout(new_features, p=self.drop_rate, training=self.training)
        return new_features


class _DenseBlock(nn.ModuleDict):
    """``num_layers`` dense layers; the output concatenates the input and every layer's."""

    _version = 2

    def __init__(
        self,
        num_layers: int,
        num_input_features: int,
        bn_size: int,
        growth_rate: int,
        drop_rate: float,
        memory_efficient: bool = False,
    ) -> None:
        super().__init__()
        for i in range(num_layers):
            layer = _DenseLayer(
                num_input_features + i * growth_rate,
                growth_rate=growth_rate,
                bn_size=bn_size,
                drop_rate=drop_rate,
                memory_efficient=memory_efficient,
            )
            self.add_module(f"denselayer{i + 1}", layer)

    def forward(self, init_features: Tensor) -> Tensor:
        features = [init_features]
        for _, layer in self.items():
            features.append(layer(features))
        return cat(features, 1)


class _Transition(nn.Sequential):
    """``norm -> relu -> 1x1 conv -> 2x2 average pool``, between dense blocks."""

    def __init__(self, num_input_features: int, num_output_features: int) -> None:
        super().__init__()
        self.norm = nn.BatchNorm2d(num_input_features)
        self.relu = nn.ReLU(inplace=True)
        self.conv = nn.Conv2d(
            num_input_features, num_output_features, kernel_size=1, stride=1, bias=False
        )
        self.pool = nn.AvgPool2d(kernel_size=2, stride=2)


class DenseNet(nn.Module):
    """Stem (7x7 conv, BN, ReLU, max pool), dense blocks of ``block_config`` layers
    (transitions halve the channels between them), a final BN, ReLU, average pooling and
    ``classifier``. Convolutions start Kaiming-normal (fan_in), norms at 1 and 0, the
    classifier's bias at 0."""

    def __init__(
        self,
        growth_rate: int = 32,
        block_config: tuple[int, int, int, int] = (6, 12, 24, 16),
        num_init_features: int = 64,
        bn_size: int = 4,
        drop_rate: float = 0,
        num_classes: int = 1000,
        memory_efficient: bool = False,
    ) -> None:
        super().__init__()
        self.features = nn.Sequential(
            OrderedDict(
                [
                    (
                        "conv0",
                        nn.Conv2d(
                            3, num_init_features, kernel_size=7, stride=2, padding=3, bias=False
                        ),
                    ),
                    ("norm0", nn.BatchNorm2d(num_init_features)),
                    ("relu0", nn.ReLU(inplace=True)),
                    ("pool0", nn.MaxPool2d(kernel_size=3, stride=2, padding=1)),
                ]
            )
        )
        num_features = num_init_features
        for i, num_layers in enumerate(block_config):
            block = _DenseBlock(
                num_layers=num_layers,
                num_input_features=num_features,
                bn_size=bn_size,
                growth_rate=growth_rate,
                drop_rate=drop_rate,
                memory_efficient=memory_efficient,
            )
            self.features.add_module(f"denseblock{i + 1}", block)
            num_features = num_features + num_layers * growth_rate
            if i != len(block_config) - 1:
                trans = _Transition(
                    num_input_features=num_features, num_output_features=num_features // 2
                )
                self.features.add_module(f"transition{i + 1}", trans)
                num_features = num_features // 2
        self.features.add_module("norm5", nn.BatchNorm2d(num_features))
        self.classifier = nn.Linear(num_features, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
            elif isinstance(m, nn.Linear):
                nn.init.constant_(m.bias, 0)

    def forward(self, x: Tensor) -> Tensor:
        out = F.relu(self.features(x), inplace=True)
        out = F.adaptive_avg_pool2d(out, (1, 1))
        return self.classifier(flatten(out, 1))


# the published checkpoints name a dense layer's children "norm.1", "conv.2", ...
_OLD_KEY = re.compile(
    r"^(.*denselayer\d+\.(?:norm|relu|conv))\.((?:[12])\.(?:weight|bias|running_mean|running_var))$"
)


def _load_state_dict(model: nn.Module, weights: WeightsEnum, progress: bool) -> None:
    state_dict = weights.get_state_dict(progress=progress, check_hash=True)
    for key in list(state_dict.keys()):
        res = _OLD_KEY.match(key)
        if res:
            state_dict[res.group(1) + res.group(2)] = state_dict.pop(key)
    model.load_state_dict(state_dict)


def _densenet(
    growth_rate: int,
    block_config: tuple[int, int, int, int],
    num_init_features: int,
    weights: WeightsEnum | None,
    progress: bool,
    **kwargs: Any,
) -> DenseNet:
    if weights is not None:
        _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
    model = DenseNet(growth_rate, block_config, num_init_features, **kwargs)
    if weights is not None:
        _load_state_dict(model=model, weights=weights, progress=progress)
    return model


class DenseNet121_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/densenet121-a639ec97.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (29, 29),
            "categories": _IMAGENET_CATEGORIES,
            "recipe": "https://github.com/pytorch/vision/pull/116",
            "_docs": "These weights are ported from LuaTorch.",
            "num_params": 7978856,
            "_metrics": {"ImageNet-1K": {"acc@1": 74.434, "acc@5": 91.972}},
            "_ops": 2.834,
            "_file_size": 30.845,
        },
    )
    DEFAULT = IMAGENET1K_V1


class DenseNet161_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/densenet161-8d451a50.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (29, 29),
            "categories": _IMAGENET_CATEGORIES,
            "recipe": "https://github.com/pytorch/vision/pull/116",
            "_docs": "These weights are ported from LuaTorch.",
            "num_params": 28681000,
            "_metrics": {"ImageNet-1K": {"acc@1": 77.138, "acc@5": 93.56}},
            "_ops": 7.728,
            "_file_size": 110.369,
        },
    )
    DEFAULT = IMAGENET1K_V1


class DenseNet169_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/densenet169-b2777c0a.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (29, 29),
            "categories": _IMAGENET_CATEGORIES,
            "recipe": "https://github.com/pytorch/vision/pull/116",
            "_docs": "These weights are ported from LuaTorch.",
            "num_params": 14149480,
            "_metrics": {"ImageNet-1K": {"acc@1": 75.6, "acc@5": 92.806}},
            "_ops": 3.36,
            "_file_size": 54.708,
        },
    )
    DEFAULT = IMAGENET1K_V1


class DenseNet201_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/densenet201-c1103571.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (29, 29),
            "categories": _IMAGENET_CATEGORIES,
            "recipe": "https://github.com/pytorch/vision/pull/116",
            "_docs": "These weights are ported from LuaTorch.",
            "num_params": 20013928,
            "_metrics": {"ImageNet-1K": {"acc@1": 76.896, "acc@5": 93.37}},
            "_ops": 4.291,
            "_file_size": 77.373,
        },
    )
    DEFAULT = IMAGENET1K_V1


@register_model()
@handle_legacy_interface(weights=("pretrained", DenseNet121_Weights.IMAGENET1K_V1))
def densenet121(
    *, weights: DenseNet121_Weights | None = None, progress: bool = True, **kwargs: Any
) -> DenseNet:
    """DenseNet-121 (growth rate 32, blocks (6, 12, 24, 16), 64 initial features); ``weights`` a
    :class:`DenseNet121_Weights` member (or its name), ``kwargs`` go to :class:`DenseNet`."""
    weights = DenseNet121_Weights.verify(weights)
    return _densenet(32, (6, 12, 24, 16), 64, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", DenseNet161_Weights.IMAGENET1K_V1))
def densenet161(
    *, weights: DenseNet161_Weights | None = None, progress: bool = True, **kwargs: Any
) -> DenseNet:
    """DenseNet-161 (growth rate 48, blocks (6, 12, 36, 24), 96 initial features); ``weights`` a
    :class:`DenseNet161_Weights` member (or its name), ``kwargs`` go to :class:`DenseNet`."""
    weights = DenseNet161_Weights.verify(weights)
    return _densenet(48, (6, 12, 36, 24), 96, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", DenseNet169_Weights.IMAGENET1K_V1))
def densenet169(
    *, weights: DenseNet169_Weights | None = None, progress: bool = True, **kwargs: Any
) -> DenseNet:
    """DenseNet-169 (growth rate 32, blocks (6, 12, 32, 32), 64 initial features); ``weights`` a
    :class:`DenseNet169_Weights` member (or its name), ``kwargs`` go to :class:`DenseNet`."""
    weights = DenseNet169_Weights.verify(weights)
    return _densenet(32, (6, 12, 32, 32), 64, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", DenseNet201_Weights.IMAGENET1K_V1))
def densenet201(
    *, weights: DenseNet201_Weights | None = None, progress: bool = True, **kwargs: Any
) -> DenseNet:
    """DenseNet-201 (growth rate 32, blocks (6, 12, 48, 32), 64 initial features); ``weights`` a
    :class:`DenseNet201_Weights` member (or its name), ``kwargs`` go to :class:`DenseNet`."""
    weights = DenseNet201_Weights.verify(weights)
    return _densenet(32, (6, 12, 48, 32), 64, weights, progress, **kwargs)
