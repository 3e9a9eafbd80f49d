"""RegNet (Radosavovic et al., 2020): stages of residual bottleneck blocks (grouped 3x3
convolution, optional squeeze-and-excitation) whose widths and depths follow a
quantised linear rule, ``w_j = w_0 + w_a * j`` snapped to powers of ``w_m``."""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from ... import flatten, nn
from ..._tensor import Tensor
from ..ops.misc import Conv2dNormActivation, SqueezeExcitation
from ._api import WeightsEnum, register_model
from ._regnet_weights import (
    RegNet_X_1_6GF_Weights,
    RegNet_X_3_2GF_Weights,
    RegNet_X_8GF_Weights,
    RegNet_X_16GF_Weights,
    RegNet_X_32GF_Weights,
    RegNet_X_400MF_Weights,
    RegNet_X_800MF_Weights,
    RegNet_Y_1_6GF_Weights,
    RegNet_Y_3_2GF_Weights,
    RegNet_Y_8GF_Weights,
    RegNet_Y_16GF_Weights,
    RegNet_Y_32GF_Weights,
    RegNet_Y_128GF_Weights,
    RegNet_Y_400MF_Weights,
    RegNet_Y_800MF_Weights,
)
from ._utils import (
    _make_divisible,
    _ovewrite_named_param,
    handle_legacy_interface,
)

__all__ = [
    "RegNet",
    "RegNet_Y_400MF_Weights",
    "RegNet_Y_800MF_Weights",
    "RegNet_Y_1_6GF_Weights",
    "RegNet_Y_3_2GF_Weights",
    "RegNet_Y_8GF_Weights",
    "RegNet_Y_16GF_Weights",
    "RegNet_Y_32GF_Weights",
    "RegNet_Y_128GF_Weights",
    "RegNet_X_400MF_Weights",
    "RegNet_X_800MF_Weights",
    "RegNet_X_1_6GF_Weights",
    "RegNet_X_3_2GF_Weights",
    "RegNet_X_8GF_Weights",
    "RegNet_X_16GF_Weights",
    "RegNet_X_32GF_Weights",
    "regnet_y_400mf",
    "regnet_y_800mf",
    "regnet_y_1_6gf",
    "regnet_y_3_2gf",
    "regnet_y_8gf",
    "regnet_y_16gf",
    "regnet_y_32gf",
    "regnet_y_128gf",
    "regnet_x_400mf",
    "regnet_x_800mf",
    "regnet_x_1_6gf",
    "regnet_x_3_2gf",
    "regnet_x_8gf",
    "regnet_x_16gf",
    "regnet_x_32gf",
]


class SimpleStemIN(Conv2dNormActivation):
    """The stem: a 3x3 convolution at stride 2, norm and activation."""

    def __init__(
        self,
        width_in: int,
        width_out: int,
        norm_layer: Callable[..., nn.Module],
        activation_layer: Callable[..., nn.Module],
    ) -> None:
        super().__init__(
            width_in,
            width_out,
            kernel_size=3,
            stride=2,
            norm_layer=norm_layer,
            activation_layer=activation_layer,
        )


class BottleneckTransform(nn.Sequential):
    """``a`` (1x1), ``b`` (grouped 3x3, strided), ``se`` (if ``se_ratio``), ``c`` (1x1, no
    activation); the bottleneck width is ``width_out * bottleneck_multiplier``."""

    def __init__(
        self,
        width_in: int,
        width_out: int,
        stride: int,
        norm_layer: Callable[..., nn.Module],
        activation_layer: Callable[..., nn.Module],
        group_width: int,
        bottleneck_multiplier: float,
        se_ratio: float | None,
    ) -> None:
        layers: OrderedDict[str, nn.Module] = OrderedDict()
        w_b = int(round(width_out * bottleneck_multiplier))
        g = w_b // group_width
        layers["a"] = Conv2dNormActivation(
            width_in,
            w_b,
            kernel_size=1,
            stride=1,
            norm_layer=norm_layer,
            activation_layer=activation_layer,
        )
        layers["b"] = Conv2dNormActivation(
            w_b,
            w_b,
            kernel_size=3,
            stride=stride,
            groups=g,
            norm_layer=norm_layer,
            activation_layer=activation_layer,
        )
        if se_ratio:
            width_se_out = int(round(se_ratio * width_in))
            layers["se"] = SqueezeExcitation(
                input_channels=w_b, squeeze_channels=width_se_out, activation=activation_layer
            )
        layers["c"] = Conv2dNormActivation(
            w_b, width_out, kernel_size=1, stride=1, norm_layer=norm_layer, activation_layer=None
        )
        super().__init__(layers)


class ResBottleneckBlock(nn.Module):
    """``activation(proj(x) + f(x))`` (``proj`` a strided 1x1 convolution when the shape
    changes, else the identity)."""

    def __init__(
        self,
        width_in: int,
        width_out: int,
        stride: int,
        norm_layer: Callable[..., nn.Module],
        activation_layer: Callable[..., nn.Module],
        group_width: int = 1,
        bottleneck_multiplier: float = 1.0,
        se_ratio: float | None = None,
    ) -> None:
        super().__init__()
        self.proj = None
        if (width_in != width_out) or (stride != 1):
            self.proj = Conv2dNormActivation(
                width_in,
                width_out,
                kernel_size=1,
                stride=stride,
                norm_layer=norm_layer,
                activation_layer=None,
            )
        self.f = BottleneckTransform(
            width_in,
            width_out,
            stride,
            norm_layer,
            activation_layer,
            group_width,
            bottleneck_multiplier,
            se_ratio,
        )
        self.activation = activation_layer(inplace=True)

    def forward(self, x: Tensor) -> Tensor:
        shortcut = x if self.proj is None else self.proj(x)
        return self.activation(shortcut + self.f(x))


class AnyStage(nn.Sequential):
    """``depth`` blocks named ``block{stage_index}-{i}``, the first one striding."""

    def __init__(
        self,
        width_in: int,
        width_out: int,
        stride: int,
        depth: int,
        block_constructor: Callable[..., nn.Module],
        norm_layer: Callable[..., nn.Module],
        activation_layer: Callable[..., nn.Module],
        group_width: int,
        bottleneck_multiplier: float,
        se_ratio: float | None = None,
        stage_index: int = 0,
    ) -> None:
        super().__init__()
        for i in range(depth):
            block = block_constructor(
                width_in if i == 0 else width_out,
                width_out,
                stride if i == 0 else 1,
                norm_layer,
                activation_layer,
                group_width,
                bottleneck_multiplier,
                se_ratio,
            )
            self.add_module(f"block{stage_index}-{i}", block)


class BlockParams:
    """Per-stage depths, widths, group widths, bottleneck multipliers and strides."""

    def __init__(
        self,
        depths: list[int],
        widths: list[int],
        group_widths: list[int],
        bottleneck_multipliers: list[float],
        strides: list[int],
        se_ratio: float | None = None,
    ) -> None:
        self.depths = depths
        self.widths = widths
        self.group_widths = group_widths
        self.bottleneck_multipliers = bottleneck_multipliers
        self.strides = strides
        self.se_ratio = se_ratio

    @classmethod
    def from_init_params(
        cls,
        depth: int,
        w_0: int,
        w_a: float,
        w_m: float,
        group_width: int,
        bottleneck_multiplier: float = 1.0,
        se_ratio: float | None = None,
        **kwargs: Any,
    ) -> BlockParams:
        """The stages of the design space's rule: block ``j`` has width
        ``w_0 * w_m ** round(log(u_j / w_0) / log(w_m))`` (a multiple of 8) with
        ``u_j = w_0 + w_a * j``; consecutive blocks of equal width form a stage."""
        quant = 8
        stride = 2
        if w_a < 0 or w_0 <= 0 or w_m <= 1 or w_0 % 8 != 0:
            raise ValueError("Invalid RegNet settings")
        # float32 arithmetic, as the published models were derived
        f32 = np.float32
        widths_cont = np.arange(depth, dtype=f32) * f32(w_a) + f32(w_0)
        block_capacity = np.round(np.log(widths_cont / f32(w_0)) / f32(math.log(w_m)))
        block_widths = (
            np.round(f32(w_0) * np.power(f32(w_m), block_capacity) / f32(quant)) * quant
        ).astype(int)
        block_widths = [int(w) for w in block_widths]
        num_stages = len(set(block_widths))
        split_helper = zip(
            block_widths + [0], [0] + block_widths, block_widths + [0], [0] + block_widths
        )
        splits = [w != wp or r != rp for w, wp, r, rp in split_helper]
        stage_widths = [w for w, t in zip(block_widths, splits[:-1]) if t]
        stage_depths = [int(d) for d in np.diff([d for d, t in enumerate(splits) if t])]
        strides = [stride] * num_stages
        bottleneck_multipliers = [bottleneck_multiplier] * num_stages
        group_widths = [group_width] * num_stages
        stage_widths, group_widths = cls._adjust_widths_groups_compatibilty(
            stage_widths, bottleneck_multipliers, group_widths
        )
        return cls(
            depths=stage_depths,
            widths=stage_widths,
            group_widths=group_widths,
            bottleneck_multipliers=bottleneck_multipliers,
            strides=strides,
            se_ratio=se_ratio,
        )

    def _get_expanded_params(self) -> list[tuple[int, int, int, int, float]]:
        return list(
            zip(
                self.widths,
                self.strides,
                self.depths,
                self.group_widths,
                self.bottleneck_multipliers,
            )
        )

    @staticmethod
    def _adjust_widths_groups_compatibilty(
        stage_widths: list[int], bottleneck_ratios: list[float], group_widths: list[int]
    ) -> tuple[list[int], list[int]]:
        """Widths whose bottlenecks divide into whole groups, and the group widths (at
        most the bottleneck width)."""
        widths = [int(w * b) for w, b in zip(stage_widths, bottleneck_ratios)]
        group_widths_min = [min(g, w_bot) for g, w_bot in zip(group_widths, widths)]
        ws_bot = [_make_divisible(w_bot, g) for w_bot, g in zip(widths, group_widths_min)]
        stage_widths = [int(w_bot / b) for w_bot, b in zip(ws_bot, bottleneck_ratios)]
        return stage_widths, group_widths_min


class RegNet(nn.Module):
    """``stem``, ``trunk_output`` (one :class:`AnyStage` per stage of ``block_params``),
    average pooling and ``fc``. Convolutions start ~ N(0, sqrt(2 / fan_out)), norms at 1
    and 0, ``fc`` ~ N(0, 0.01) with zero bias."""

    def __init__(
        self,
        block_params: BlockParams,
        num_classes: int = 1000,
        stem_width: int = 32,
        stem_type: Callable[..., nn.Module] | None = None,
        block_type: Callable[..., nn.Module] | None = None,
        norm_layer: Callable[..., nn.Module] | None = None,
        activation: Callable[..., nn.Module] | None = None,
    ) -> None:
        super().__init__()
        if stem_type is None:
            stem_type = SimpleStemIN
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        if block_type is None:
            block_type = ResBottleneckBlock
        if activation is None:
            activation = nn.ReLU
        self.stem = stem_type(3, stem_width, norm_layer, activation)
        current_width = stem_width
        blocks = []
        for i, (width_out, stride, depth, group_width, bottleneck_multiplier) in enumerate(
            block_params._get_expanded_params()
        ):
            blocks.append(
                (
                    f"block{i + 1}",
                    AnyStage(
                        current_width,
                        width_out,
                        stride,
                        depth,
                        block_type,
                        norm_layer,
                        activation,
                        group_width,
                        bottleneck_multiplier,
                        block_params.se_ratio,
                        stage_index=i + 1,
                    ),
                )
            )
            current_width = width_out
        self.trunk_output = nn.Sequential(OrderedDict(blocks))
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(in_features=current_width, out_features=num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                fan_out = m.kernel_size[0] * m.kernel_size[1] * m.out_channels
                nn.init.normal_(m.weight, mean=0.0, std=math.sqrt(2.0 / fan_out))
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, mean=0.0, std=0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x: Tensor) -> Tensor:
        x = self.trunk_output(self.stem(x))
        return self.fc(flatten(self.avgpool(x), start_dim=1))


def _regnet(
    block_params: BlockParams, weights: WeightsEnum | None, progress: bool, **kwargs: Any
) -> RegNet:
    if weights is not None:
        _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
    norm_layer = kwargs.pop("norm_layer", partial(nn.BatchNorm2d, eps=1e-05, momentum=0.1))
    model = RegNet(block_params, norm_layer=norm_layer, **kwargs)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


@register_model()
@handle_legacy_interface(weights=("pretrained", RegNet_Y_400MF_Weights.IMAGENET1K_V1))
def regnet_y_400mf(
    *, weights: RegNet_Y_400MF_Weights | None = None, progress: bool = True, **kwargs: Any
) -> RegNet:
    """RegNetY_400MF (depth 16, w_0 48, w_a 27.89, w_m 2.09, group width 8, se_ratio=0.25); ``weights`` a
    :class:`RegNet_Y_400MF_Weights` member (or its name), ``kwargs`` go to :class:`RegNet`."""
    weights = RegNet_Y_400MF_Weights.verify(weights)
    params = BlockParams.from_init_params(
        depth=16, w_0=48, w_a=27.89, w_m=2.09, group_width=8, se_ratio=0.25, **kwargs
    )
    return _regnet(params, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", RegNet_Y_800MF_Weights.IMAGENET1K_V1))
def regnet_y_800mf(
    *, weights: RegNet_Y_800MF_Weights | None = None, progress: bool = True, **kwargs: Any
) -> RegNet:
    """RegNetY_800MF (depth 14, w_0 56, w_a 38.84, w_m 2.4, group width 16, se_ratio=0.25); ``weights`` a
    :class:`RegNet_Y_800MF_Weights` member (or its name), ``kwargs`` go to :class:`RegNet`."""
    weights = RegNet_Y_800MF_Weights.verify(weights)
    params = BlockParams.from_init_params(
        depth=14, w_0=56, w_a=38.84, w_m=2.4, group_width=16, se_ratio=0.25, **kwargs
    )
    return _regnet(params, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", RegNet_Y_1_6GF_Weights.IMAGENET1K_V1))
def regnet_y_1_6gf(
    *, weights: RegNet_Y_1_6GF_Weights | None = None, progress: bool = True, **kwargs: Any
) -> RegNet:
    """RegNetY_1_6GF (depth 27, w_0 48, w_a 20.71, w_m 2.65, group width 24, se_ratio=0.25); ``weights`` a
    :class:`RegNet_Y_1_6GF_Weights` member (or its name), ``kwargs`` go to :class:`RegNet`."""
    weights = RegNet_Y_1_6GF_Weights.verify(weights)
    params = BlockParams.from_init_params(
        depth=27, w_0=48, w_a=20.71, w_m=2.65, group_width=24, se_ratio=0.25, **kwargs
    )
    return _regnet(params, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", RegNet_Y_3_2GF_Weights.IMAGENET1K_V1))
def regnet_y_3_2gf(
    *, weights: RegNet_Y_3_2GF_Weights | None = None, progress: bool = True, **kwargs: Any
) -> RegNet:
    """RegNetY_3_2GF (depth 21, w_0 80, w_a 42.63, w_m 2.66, group width 24, se_ratio=0.25); ``weights`` a
    :class:`RegNet_Y_3_2GF_Weights` member (or its name), ``kwargs`` go to :class:`RegNet`."""
    weights = RegNet_Y_3_2GF_Weights.verify(weights)
    params = BlockParams.from_init_params(
        depth=21, w_0=80, w_a=42.63, w_m=2.66, group_width=24, se_ratio=0.25, **kwargs
    )
    return _regnet(params, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", RegNet_Y_8GF_Weights.IMAGENET1K_V1))
def regnet_y_8gf(
    *, weights: RegNet_Y_8GF_Weights | None = None, progress: bool = True, **kwargs: Any
) -> RegNet:
    """RegNetY_8GF (depth 17, w_0 192, w_a 76.82, w_m 2.19, group width 56, se_ratio=0.25); ``weights`` a
    :class:`RegNet_Y_8GF_Weights` member (or its name), ``kwargs`` go to :class:`RegNet`."""
    weights = RegNet_Y_8GF_Weights.verify(weights)
    params = BlockParams.from_init_params(
        depth=17, w_0=192, w_a=76.82, w_m=2.19, group_width=56, se_ratio=0.25, **kwargs
    )
    return _regnet(params, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", RegNet_Y_16GF_Weights.IMAGENET1K_V1))
def regnet_y_16gf(
    *, weights: RegNet_Y_16GF_Weights | None = None, progress: bool = True, **kwargs: Any
) -> RegNet:
    """RegNetY_16GF (depth 18, w_0 200, w_a 106.23, w_m 2.48, group width 112, se_ratio=0.25); ``weights`` a
    :class:`RegNet_Y_16GF_Weights` member (or its name), ``kwargs`` go to :class:`RegNet`."""
    weights = RegNet_Y_16GF_Weights.verify(weights)
    params = BlockParams.from_init_params(
        depth=18, w_0=200, w_a=106.23, w_m=2.48, group_width=112, se_ratio=0.25, **kwargs
    )
    return _regnet(params, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", RegNet_Y_32GF_Weights.IMAGENET1K_V1))
def regnet_y_32gf(
    *, weights: RegNet_Y_32GF_Weights | None = None, progress: bool = True, **kwargs: Any
) -> RegNet:
    """RegNetY_32GF (depth 20, w_0 232, w_a 115.89, w_m 2.53, group width 232, se_ratio=0.25); ``weights`` a
    :class:`RegNet_Y_32GF_Weights` member (or its name), ``kwargs`` go to :class:`RegNet`."""
    weights = RegNet_Y_32GF_Weights.verify(weights)
    params = BlockParams.from_init_params(
        depth=20, w_0=232, w_a=115.89, w_m=2.53, group_width=232, se_ratio=0.25, **kwargs
    )
    return _regnet(params, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", None))
def regnet_y_128gf(
    *, weights: RegNet_Y_128GF_Weights | None = None, progress: bool = True, **kwargs: Any
) -> RegNet:
    """RegNetY_128GF (depth 27, w_0 456, w_a 160.83, w_m 2.52, group width 264, se_ratio=0.25); ``weights`` a
    :class:`RegNet_Y_128GF_Weights` member (or its name), ``kwargs`` go to :class:`RegNet`."""
    weights = RegNet_Y_128GF_Weights.verify(weights)
    params = BlockParams.from_init_params(
        depth=27, w_0=456, w_a=160.83, w_m=2.52, group_width=264, se_ratio=0.25, **kwargs
    )
    return _regnet(params, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", RegNet_X_400MF_Weights.IMAGENET1K_V1))
def regnet_x_400mf(
    *, weights: RegNet_X_400MF_Weights | None = None, progress: bool = True, **kwargs: Any
) -> RegNet:
    """RegNetX_400MF (depth 22, w_0 24, w_a 24.48, w_m 2.54, group width 16); ``weights`` a
    :class:`RegNet_X_400MF_Weights` member (or its name), ``kwargs`` go to :class:`RegNet`."""
    weights = RegNet_X_400MF_Weights.verify(weights)
    params = BlockParams.from_init_params(
        depth=22, w_0=24, w_a=24.48, w_m=2.54, group_width=16, **kwargs
    )
    return _regnet(params, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", RegNet_X_800MF_Weights.IMAGENET1K_V1))
def regnet_x_800mf(
    *, weights: RegNet_X_800MF_Weights | None = None, progress: bool = True, **kwargs: Any
) -> RegNet:
    """RegNetX_800MF (depth 16, w_0 56, w_a 35.73, w_m 2.28, group width 16); ``weights`` a
    :class:`RegNet_X_800MF_Weights` member (or its name), ``kwargs`` go to :class:`RegNet`."""
    weights = RegNet_X_800MF_Weights.verify(weights)
    params = BlockParams.from_init_params(
        depth=16, w_0=56, w_a=35.73, w_m=2.28, group_width=16, **kwargs
    )
    return _regnet(params, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", RegNet_X_1_6GF_Weights.IMAGENET1K_V1))
def regnet_x_1_6gf(
    *, weights: RegNet_X_1_6GF_Weights | None = None, progress: bool = True, **kwargs: Any
) -> RegNet:
    """RegNetX_1_6GF (depth 18, w_0 80, w_a 34.01, w_m 2.25, group width 24); ``weights`` a
    :class:`RegNet_X_1_6GF_Weights` member (or its name), ``kwargs`` go to :class:`RegNet`."""
    weights = RegNet_X_1_6GF_Weights.verify(weights)
    params = BlockParams.from_init_params(
        depth=18, w_0=80, w_a=34.01, w_m=2.25, group_width=24, **kwargs
    )
    return _regnet(params, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", RegNet_X_3_2GF_Weights.IMAGENET1K_V1))
def regnet_x_3_2gf(
    *, weights: RegNet_X_3_2GF_Weights | None = None, progress: bool = True, **kwargs: Any
) -> RegNet:
    """RegNetX_3_2GF (depth 25, w_0 88, w_a 26.31, w_m 2.25, group width 48); ``weights`` a
    :class:`RegNet_X_3_2GF_Weights` member (or its name), ``kwargs`` go to :class:`RegNet`."""
    weights = RegNet_X_3_2GF_Weights.verify(weights)
    params = BlockParams.from_init_params(
        depth=25, w_0=88, w_a=26.31, w_m=2.25, group_width=48, **kwargs
    )
    return _regnet(params, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", RegNet_X_8GF_Weights.IMAGENET1K_V1))
def regnet_x_8gf(
    *, weights: RegNet_X_8GF_Weights | None = None, progress: bool = True, **kwargs: Any
) -> RegNet:
    """RegNetX_8GF (depth 23, w_0 80, w_a 49.56, w_m 2.88, group width 120); ``weights`` a
    :class:`RegNet_X_8GF_Weights` member (or its name), ``kwargs`` go to :class:`RegNet`."""
    weights = RegNet_X_8GF_Weights.verify(weights)
    params = BlockParams.from_init_params(
        depth=23, w_0=80, w_a=49.56, w_m=2.88, group_width=120, **kwargs
    )
    return _regnet(params, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", RegNet_X_16GF_Weights.IMAGENET1K_V1))
def regnet_x_16gf(
    *, weights: RegNet_X_16GF_Weights | None = None, progress: bool = True, **kwargs: Any
) -> RegNet:
    """RegNetX_16GF (depth 22, w_0 216, w_a 55.59, w_m 2.1, group width 128); ``weights`` a
    :class:`RegNet_X_16GF_Weights` member (or its name), ``kwargs`` go to :class:`RegNet`."""
    weights = RegNet_X_16GF_Weights.verify(weights)
    params = BlockParams.from_init_params(
        depth=22, w_0=216, w_a=55.59, w_m=2.1, group_width=128, **kwargs
    )
    return _regnet(params, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", RegNet_X_32GF_Weights.IMAGENET1K_V1))
def regnet_x_32gf(
    *, weights: RegNet_X_32GF_Weights | None = None, progress: bool = True, **kwargs: Any
) -> RegNet:
    """RegNetX_32GF (depth 23, w_0 320, w_a 69.86, w_m 2.0, group width 168); ``weights`` a
    :class:`RegNet_X_32GF_Weights` member (or its name), ``kwargs`` go to :class:`RegNet`."""
    weights = RegNet_X_32GF_Weights.verify(weights)
    params = BlockParams.from_init_params(
        depth=23, w_0=320, w_a=69.86, w_m=2.0, group_width=168, **kwargs
    )
    return _regnet(params, weights, progress, **kwargs)
