"""VGG (Simonyan and Zisserman, 2014): stacks of 3x3 convolutions (optionally batch
normalised) separated by 2x2 max pooling, then three linear layers with dropout."""

from __future__ import annotations

from functools import partial
from typing import Any

from ... import flatten, nn
from ..._tensor import Tensor
from ._api import Weights, WeightsEnum, register_model
from ._meta import _IMAGENET_CATEGORIES
from ._utils import ImageClassification, _ovewrite_named_param, handle_legacy_interface

__all__ = [
    "VGG",
    "VGG11_Weights",
    "VGG11_BN_Weights",
    "VGG13_Weights",
    "VGG13_BN_Weights",
    "VGG16_Weights",
    "VGG16_BN_Weights",
    "VGG19_Weights",
    "VGG19_BN_Weights",
    "vgg11",
    "vgg11_bn",
    "vgg13",
    "vgg13_bn",
    "vgg16",
    "vgg16_bn",
    "vgg19",
    "vgg19_bn",
]


class VGG(nn.Module):
    """``classifier(flatten(avgpool(features(x))))``: the convolutional ``features``, an
    adaptive average pool to 7x7 and ``Linear(25088, 4096) -> ReLU -> Dropout ->
    Linear(4096, 4096) -> ReLU -> Dropout -> Linear(4096, num_classes)``. With
    ``init_weights``: convolutions Kaiming-normal (fan_out, ReLU) with zero bias, norms
    at 1 and 0, linear weights ~ N(0, 0.01) with zero bias."""

    def __init__(
        self,
        features: nn.Module,
        num_classes: int = 1000,
        init_weights: bool = True,
        dropout: float = 0.5,
    ) -> None:
        super().__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(512 * 7 * 7, 4096),
            nn.ReLU(True),
            nn.Dropout(p=dropout),
            nn.Linear(4096, 4096),
            nn.ReLU(True),
            nn.Dropout(p=dropout),
            nn.Linear(4096, num_classes),
        )
        if init_weights:
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                    if m.bias is not None:
                        nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.constant_(m.weight, 1)
                    nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.Linear):
                    nn.init.normal_(m.weight, 0, 0.01)
                    nn.init.constant_(m.bias, 0)

    def forward(self, x: Tensor) -> Tensor:
        return self.classifier(flatten(self.avgpool(self.features(x)), 1))


def make_layers(cfg: list[str | int], batch_norm: bool = False) -> nn.Sequential:
    """The feature extractor of a configuration: ``'M'`` a 2x2 max pool, a number a 3x3
    convolution to that many channels (then batch norm if asked) and a ReLU."""
    layers: list[nn.Module] = []
    in_channels = 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
        else:
            conv = nn.Conv2d(in_channels, int(v), kernel_size=3, padding=1)
            layers += (
                [conv, nn.BatchNorm2d(int(v)), nn.ReLU(inplace=True)]
                if batch_norm
                else [conv, nn.ReLU(inplace=True)]
            )
            in_channels = int(v)
    return nn.Sequential(*layers)


cfgs: dict[str, list[str | int]] = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"],
    "E": [
        64,
        64,
        "M",
        128,
        128,
        "M",
        256,
        256,
        256,
        256,
        "M",
        512,
        512,
        512,
        512,
        "M",
        512,
        512,
        512,
        512,
        "M",
    ],
}


def _vgg(
    cfg: str, batch_norm: bool, weights: WeightsEnum | None, progress: bool, **kwargs: Any
) -> VGG:
    if weights is not None:
        kwargs["init_weights"] = False
        if weights.meta["categories"] is not None:
            _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
    model = VGG(make_layers(cfgs[cfg], batch_norm=batch_norm), **kwargs)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


class VGG11_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/vgg11-8a719046.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (32, 32),
            "categories": _IMAGENET_CATEGORIES,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#alexnet-and-vgg",
            "_docs": "These weights were trained from scratch by using a simplified training recipe.",
            "num_params": 132863336,
            "_metrics": {"ImageNet-1K": {"acc@1": 69.02, "acc@5": 88.628}},
            "_ops": 7.609,
            "_file_size": 506.84,
        },
    )
    DEFAULT = IMAGENET1K_V1


class VGG11_BN_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/vgg11_bn-6002323d.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (32, 32),
            "categories": _IMAGENET_CATEGORIES,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#alexnet-and-vgg",
            "_docs": "These weights were trained from scratch by using a simplified training recipe.",
            "num_params": 132868840,
            "_metrics": {"ImageNet-1K": {"acc@1": 70.37, "acc@5": 89.81}},
            "_ops": 7.609,
            "_file_size": 506.881,
        },
    )
    DEFAULT = IMAGENET1K_V1


class VGG13_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/vgg13-19584684.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (32, 32),
            "categories": _IMAGENET_CATEGORIES,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#alexnet-and-vgg",
            "_docs": "These weights were trained from scratch by using a simplified training recipe.",
            "num_params": 133047848,
            "_metrics": {"ImageNet-1K": {"acc@1": 69.928, "acc@5": 89.246}},
            "_ops": 11.308,
            "_file_size": 507.545,
        },
    )
    DEFAULT = IMAGENET1K_V1


class VGG13_BN_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/vgg13_bn-abd245e5.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (32, 32),
            "categories": _IMAGENET_CATEGORIES,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#alexnet-and-vgg",
            "_docs": "These weights were trained from scratch by using a simplified training recipe.",
            "num_params": 133053736,
            "_metrics": {"ImageNet-1K": {"acc@1": 71.586, "acc@5": 90.374}},
            "_ops": 11.308,
            "_file_size": 507.59,
        },
    )
    DEFAULT = IMAGENET1K_V1


class VGG16_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/vgg16-397923af.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (32, 32),
            "categories": _IMAGENET_CATEGORIES,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#alexnet-and-vgg",
            "_docs": "These weights were trained from scratch by using a simplified training recipe.",
            "num_params": 138357544,
            "_metrics": {"ImageNet-1K": {"acc@1": 71.592, "acc@5": 90.382}},
            "_ops": 15.47,
            "_file_size": 527.796,
        },
    )
    IMAGENET1K_FEATURES = Weights(
        url="https://download.pytorch.org/models/vgg16_features-amdegroot-88682ab5.pth",
        transforms=partial(
            ImageClassification,
            crop_size=224,
            mean=(0.48235, 0.45882, 0.40784),
            std=(0.00392156862745098, 0.00392156862745098, 0.00392156862745098),
        ),
        meta={
            "min_size": (32, 32),
            "categories": None,
            "recipe": "https://github.com/amdegroot/ssd.pytorch#training-ssd",
            "_docs": (
                "\n"
                "                These weights can't be used for classification because they are missing values in the `classifier`\n"
                "                module. Only the `features` module has valid values and can be used for feature extraction. The weights\n"
                "                were trained using the original input standardization method as described in the paper.\n"
                "            "
            ),
            "num_params": 138357544,
            "_metrics": {"ImageNet-1K": {"acc@1": float("nan"), "acc@5": float("nan")}},
            "_ops": 15.47,
            "_file_size": 527.802,
        },
    )
    DEFAULT = IMAGENET1K_V1


class VGG16_BN_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/vgg16_bn-6c64b313.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (32, 32),
            "categories": _IMAGENET_CATEGORIES,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#alexnet-and-vgg",
            "_docs": "These weights were trained from scratch by using a simplified training recipe.",
            "num_params": 138365992,
            "_metrics": {"ImageNet-1K": {"acc@1": 73.36, "acc@5": 91.516}},
            "_ops": 15.47,
            "_file_size": 527.866,
        },
    )
    DEFAULT = IMAGENET1K_V1


class VGG19_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/vgg19-dcbb9e9d.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (32, 32),
            "categories": _IMAGENET_CATEGORIES,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#alexnet-and-vgg",
            "_docs": "These weights were trained from scratch by using a simplified training recipe.",
            "num_params": 143667240,
            "_metrics": {"ImageNet-1K": {"acc@1": 72.376, "acc@5": 90.876}},
            "_ops": 19.632,
            "_file_size": 548.051,
        },
    )
    DEFAULT = IMAGENET1K_V1


class VGG19_BN_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/vgg19_bn-c79401a0.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (32, 32),
            "categories": _IMAGENET_CATEGORIES,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#alexnet-and-vgg",
            "_docs": "These weights were trained from scratch by using a simplified training recipe.",
            "num_params": 143678248,
            "_metrics": {"ImageNet-1K": {"acc@1": 74.218, "acc@5": 91.842}},
            "_ops": 19.632,
            "_file_size": 548.143,
        },
    )
    DEFAULT = IMAGENET1K_V1


@register_model()
@handle_legacy_interface(weights=("pretrained", VGG11_Weights.IMAGENET1K_V1))
def vgg11(*, weights: VGG11_Weights | None = None, progress: bool = True, **kwargs: Any) -> VGG:
    """VGG-11 (configuration "A"); ``weights`` a :class:`VGG11_Weights`
    member (or its name) to load, ``kwargs`` go to :class:`VGG`."""
    weights = VGG11_Weights.verify(weights)
    return _vgg("A", False, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", VGG11_BN_Weights.IMAGENET1K_V1))
def vgg11_bn(
    *, weights: VGG11_BN_Weights | None = None, progress: bool = True, **kwargs: Any
) -> VGG:
    """VGG-11 with batch normalization (configuration "A"); ``weights`` a :class:`VGG11_BN_Weights`
    member (or its name) to load, ``kwargs`` go to :class:`VGG`."""
    weights = VGG11_BN_Weights.verify(weights)
    return _vgg("A", True, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", VGG13_Weights.IMAGENET1K_V1))
def vgg13(*, weights: VGG13_Weights | None = None, progress: bool = True, **kwargs: Any) -> VGG:
    """VGG-13 (configuration "B"); ``weights`` a :class:`VGG13_Weights`
    member (or its name) to load, ``kwargs`` go to :class:`VGG`."""
    weights = VGG13_Weights.verify(weights)
    return _vgg("B", False, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", VGG13_BN_Weights.IMAGENET1K_V1))
def vgg13_bn(
    *, weights: VGG13_BN_Weights | None = None, progress: bool = True, **kwargs: Any
) -> VGG:
    """VGG-13 with batch normalization (configuration "B"); ``weights`` a :class:`VGG13_BN_Weights`
    member (or its name) to load, ``kwargs`` go to :class:`VGG`."""
    weights = VGG13_BN_Weights.verify(weights)
    return _vgg("B", True, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", VGG16_Weights.IMAGENET1K_V1))
def vgg16(*, weights: VGG16_Weights | None = None, progress: bool = True, **kwargs: Any) -> VGG:
    """VGG-16 (configuration "D"); ``weights`` a :class:`VGG16_Weights`
    member (or its name) to load, ``kwargs`` go to :class:`VGG`."""
    weights = VGG16_Weights.verify(weights)
    return _vgg("D", False, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", VGG16_BN_Weights.IMAGENET1K_V1))
def vgg16_bn(
    *, weights: VGG16_BN_Weights | None = None, progress: bool = True, **kwargs: Any
) -> VGG:
    """VGG-16 with batch normalization (configuration "D"); ``weights`` a :class:`VGG16_BN_Weights`
    member (or its name) to load, ``kwargs`` go to :class:`VGG`."""
    weights = VGG16_BN_Weights.verify(weights)
    return _vgg("D", True, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", VGG19_Weights.IMAGENET1K_V1))
def vgg19(*, weights: VGG19_Weights | None = None, progress: bool = True, **kwargs: Any) -> VGG:
    """VGG-19 (configuration "E"); ``weights`` a :class:`VGG19_Weights`
    member (or its name) to load, ``kwargs`` go to :class:`VGG`."""
    weights = VGG19_Weights.verify(weights)
    return _vgg("E", False, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", VGG19_BN_Weights.IMAGENET1K_V1))
def vgg19_bn(
    *, weights: VGG19_BN_Weights | None = None, progress: bool = True, **kwargs: Any
) -> VGG:
    """VGG-19 with batch normalization (configuration "E"); ``weights`` a :class:`VGG19_BN_Weights`
    member (or its name) to load, ``kwargs`` go to :class:`VGG`."""
    weights = VGG19_BN_Weights.verify(weights)
    return _vgg("E", True, weights, progress, **kwargs)
