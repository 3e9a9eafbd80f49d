"""Backbones for the detection models: a classification network's intermediate stages
(``IntermediateLayerGetter``) followed by a feature pyramid (``BackboneWithFPN``), for
ResNets (``resnet_fpn_backbone``, ``_resnet_fpn_extractor``) and MobileNets
(``mobilenet_backbone``, ``_mobilenet_extractor``), with the leading layers frozen."""

from __future__ import annotations

import warnings
from collections.abc import Callable

from chainrule import nn

from ...._tensor import Tensor
from ...ops import misc as misc_nn_ops
from ...ops.feature_pyramid_network import ExtraFPNBlock, FeaturePyramidNetwork, LastLevelMaxPool
from .. import mobilenetv2, mobilenetv3, resnet
from .._api import WeightsEnum, _get_enum_from_fn
from .._utils import IntermediateLayerGetter, handle_legacy_interface

__all__ = ["BackboneWithFPN", "mobilenet_backbone", "resnet_fpn_backbone"]


class BackboneWithFPN(nn.Module):
    """``body`` (the ``return_layers`` of ``backbone``) then ``fpn`` (a feature pyramid with
    ``out_channels`` channels on every map, ``LastLevelMaxPool`` by default)."""

    def __init__(
        self,
        backbone: nn.Module,
        return_layers: dict[str, str],
        in_channels_list: list[int],
        out_channels: int,
        extra_blocks: ExtraFPNBlock | None = None,
        norm_layer: Callable[..., nn.Module] | None = None,
    ) -> None:
        super().__init__()
        if extra_blocks is None:
            extra_blocks = LastLevelMaxPool()
        self.body = IntermediateLayerGetter(backbone, return_layers=return_layers)
        self.fpn = FeaturePyramidNetwork(
            in_channels_list=in_channels_list,
            out_channels=out_channels,
            extra_blocks=extra_blocks,
            norm_layer=norm_layer,
        )
        self.out_channels = out_channels

    def forward(self, x: Tensor) -> dict[str, Tensor]:
        return self.fpn(self.body(x))


def _resnet_backbone_weights(kwargs: dict) -> WeightsEnum:
    return _get_enum_from_fn(resnet.__dict__[kwargs["backbone_name"]])["IMAGENET1K_V1"]


@handle_legacy_interface(weights=("pretrained", _resnet_backbone_weights))
def resnet_fpn_backbone(
    *,
    backbone_name: str,
    weights: WeightsEnum | None,
    norm_layer: Callable[..., nn.Module] = misc_nn_ops.FrozenBatchNorm2d,
    trainable_layers: int = 3,
    returned_layers: list[int] | None = None,
    extra_blocks: ExtraFPNBlock | None = None,
) -> BackboneWithFPN:
    """The ResNet ``backbone_name`` with an FPN on ``returned_layers`` (all four stages by
    default) and ``trainable_layers`` trainable stages counted from the top."""
    backbone = resnet.__dict__[backbone_name](weights=weights, norm_layer=norm_layer)
    return _resnet_fpn_extractor(backbone, trainable_layers, returned_layers, extra_blocks)


def _resnet_fpn_extractor(
    backbone: resnet.ResNet,
    trainable_layers: int,
    returned_layers: list[int] | None = None,
    extra_blocks: ExtraFPNBlock | None = None,
    norm_layer: Callable[..., nn.Module] | None = None,
) -> BackboneWithFPN:
    if trainable_layers < 0 or trainable_layers > 5:
        raise ValueError(f"Trainable layers should be in the range [0,5], got {trainable_layers}")
    layers_to_train = ["layer4", "layer3", "layer2", "layer1", "conv1"][:trainable_layers]
    if trainable_layers == 5:
        layers_to_train.append("bn1")
    for name, parameter in backbone.named_parameters():
        if all(not name.startswith(layer) for layer in layers_to_train):
            parameter.requires_grad_(False)
    if extra_blocks is None:
        extra_blocks = LastLevelMaxPool()
    if returned_layers is None:
        returned_layers = [1, 2, 3, 4]
    if min(returned_layers) <= 0 or max(returned_layers) >= 5:
        raise ValueError(f"Each returned layer should be in the range [1,4]. Got {returned_layers}")
    return_layers = {f"layer{k}": str(v) for v, k in enumerate(returned_layers)}
    in_channels_stage2 = backbone.inplanes // 8
    in_channels_list = [in_channels_stage2 * 2 ** (i - 1) for i in returned_layers]
    return BackboneWithFPN(
        backbone,
        return_layers,
        in_channels_list,
        256,
        extra_blocks=extra_blocks,
        norm_layer=norm_layer,
    )


def _validate_trainable_layers(
    is_trained: bool,
    trainable_backbone_layers: int | None,
    max_value: int,
    default_value: int,
) -> int:
    # all layers train from scratch; pretrained backbones freeze all but the top ones
    if not is_trained:
        if trainable_backbone_layers is not None:
            warnings.warn(
                "Changing trainable_backbone_layers has no effect if "
                "neither pretrained nor pretrained_backbone have been set to True, "
                f"falling back to trainable_backbone_layers={max_value} so that all layers are trainable",
                stacklevel=1,
            )
        trainable_backbone_layers = max_value
    if trainable_backbone_layers is None:
        trainable_backbone_layers = default_value
    if trainable_backbone_layers < 0 or trainable_backbone_layers > max_value:
        raise ValueError(
            f"Trainable backbone layers should be in the range [0,{max_value}], "
            f"got {trainable_backbone_layers} "
        )
    return trainable_backbone_layers


def _mobilenet_backbone_weights(kwargs: dict) -> WeightsEnum:
    module = mobilenetv3 if kwargs["backbone_name"].startswith("mobilenet_v3") else mobilenetv2
    return _get_enum_from_fn(module.__dict__[kwargs["backbone_name"]])["IMAGENET1K_V1"]


@handle_legacy_interface(weights=("pretrained", _mobilenet_backbone_weights))
def mobilenet_backbone(
    *,
    backbone_name: str,
    weights: WeightsEnum | None,
    fpn: bool,
    norm_layer: Callable[..., nn.Module] = misc_nn_ops.FrozenBatchNorm2d,
    trainable_layers: int = 2,
    returned_layers: list[int] | None = None,
    extra_blocks: ExtraFPNBlock | None = None,
) -> nn.Module:
    """The features of MobileNet ``backbone_name``, with an FPN on ``returned_layers``
    (``fpn=True``) or a 1x1 conv to 256 channels."""
    module = mobilenetv3 if backbone_name.startswith("mobilenet_v3") else mobilenetv2
    backbone = module.__dict__[backbone_name](weights=weights, norm_layer=norm_layer)
    return _mobilenet_extractor(backbone, fpn, trainable_layers, returned_layers, extra_blocks)


def _mobilenet_extractor(
    backbone: nn.Module,
    fpn: bool,
    trainable_layers: int,
    returned_layers: list[int] | None = None,
    extra_blocks: ExtraFPNBlock | None = None,
    norm_layer: Callable[..., nn.Module] | None = None,
) -> nn.Module:
    backbone = backbone.features
    # stages end where a block downsamples; the first and last blocks bound them too
    stage_indices = (
        [0]
        + [i for i, b in enumerate(backbone) if getattr(b, "_is_cn", False)]
        + [len(backbone) - 1]
    )
    num_stages = len(stage_indices)
    if trainable_layers < 0 or trainable_layers > num_stages:
        raise ValueError(
            f"Trainable layers should be in the range [0,{num_stages}], got {trainable_layers} "
        )
    freeze_before = (
        len(backbone) if trainable_layers == 0 else stage_indices[num_stages - trainable_layers]
    )
    for b in backbone[:freeze_before]:
        for parameter in b.parameters():
            parameter.requires_grad_(False)
    out_channels = 256
    if fpn:
        if extra_blocks is None:
            extra_blocks = LastLevelMaxPool()
        if returned_layers is None:
            returned_layers = [num_stages - 2, num_stages - 1]
        if min(returned_layers) < 0 or max(returned_layers) >= num_stages:
            raise ValueError(
                f"Each returned layer should be in the range [0,{num_stages - 1}], got {returned_layers} "
            )
        return_layers = {f"{stage_indices[k]}": str(v) for v, k in enumerate(returned_layers)}
        in_channels_list = [backbone[stage_indices[i]].out_channels for i in returned_layers]
        return BackboneWithFPN(
            backbone,
            return_layers,
            in_channels_list,
            out_channels,
            extra_blocks=extra_blocks,
            norm_layer=norm_layer,
        )
    m = nn.Sequential(backbone, nn.Conv2d(backbone[-1].out_channels, out_channels, 1))
    m.out_channels = out_channels
    return m
