"""Vision Transformer (Dosovitskiy et al., 2020): the image cut into patches by a
strided convolution, a class token and learnt position embeddings prepended and added,
a pre-norm transformer encoder, and a linear head on the class token."""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple

from ... import cat, nn, zeros
from ..._tensor import Tensor
from ...nn import functional as F
from ..ops.misc import MLP, Conv2dNormActivation
from ._api import Weights, WeightsEnum, register_model
from ._meta import _IMAGENET_CATEGORIES
from ._utils import ImageClassification, _ovewrite_named_param, handle_legacy_interface

__all__ = [
    "VisionTransformer",
    "ViT_B_16_Weights",
    "ViT_B_32_Weights",
    "ViT_L_16_Weights",
    "ViT_L_32_Weights",
    "ViT_H_14_Weights",
    "vit_b_16",
    "vit_b_32",
    "vit_l_16",
    "vit_l_32",
    "vit_h_14",
]


class ConvStemConfig(NamedTuple):
    out_channels: int
    kernel_size: int
    stride: int
    norm_layer: Callable[..., nn.Module] = nn.BatchNorm2d
    activation_layer: Callable[..., nn.Module] = nn.ReLU


class MLPBlock(MLP):
    """The transformer's MLP: ``Linear(in, mlp) -> GELU -> Dropout -> Linear(mlp, in) ->
    Dropout``, weights Xavier-uniform, biases ~ N(0, 1e-6)."""

    _version = 2

    def __init__(self, in_dim: int, mlp_dim: int, dropout: float) -> None:
        super().__init__(
            in_dim, [mlp_dim, in_dim], activation_layer=nn.GELU, inplace=None, dropout=dropout
        )
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.normal_(m.bias, std=1e-6)

    def _load_from_state_dict(
        self,
        state_dict: dict,
        prefix: str,
        local_metadata: dict,
        strict: bool,
        missing_keys: list,
        unexpected_keys: list,
        error_msgs: list,
    ) -> None:
        version = local_metadata.get("version", None)
        if version is None or version < 2:
            # checkpoints of version 1 named the linear layers linear_1 and linear_2
            for i in range(2):
                for kind in ["weight", "bias"]:
                    old_key = f"{prefix}linear_{i + 1}.{kind}"
                    if old_key in state_dict:
                        state_dict[f"{prefix}{3 * i}.{kind}"] = state_dict.pop(old_key)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )


class EncoderBlock(nn.Module):
    """``x = input + dropout(attention(ln_1(input)))``, then ``x + mlp(ln_2(x))``."""

    def __init__(
        self,
        num_heads: int,
        hidden_dim: int,
        mlp_dim: int,
        dropout: float,
        attention_dropout: float,
        norm_layer: Callable[..., nn.Module] = partial(nn.LayerNorm, eps=1e-6),
    ) -> None:
        super().__init__()
        self.num_heads = num_heads
        self.ln_1 = norm_layer(hidden_dim)
        self.self_attention = nn.MultiheadAttention(
            hidden_dim, num_heads, dropout=attention_dropout, batch_first=True
        )
        self.dropout = nn.Dropout(dropout)
        self.ln_2 = norm_layer(hidden_dim)
        self.mlp = MLPBlock(hidden_dim, mlp_dim, dropout)

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() != 3:
            raise AssertionError(f"Expected (batch_size, seq_length, hidden_dim) got {input.shape}")
        x = self.ln_1(input)
        x, _ = self.self_attention(x, x, x, need_weights=False)
        x = self.dropout(x) + input
        return x + self.mlp(self.ln_2(x))


class Encoder(nn.Module):
    """Position embeddings (~ N(0, 0.02)) added, dropout, ``num_layers`` encoder blocks and
    a final layer norm."""

    def __init__(
        self,
        seq_length: int,
        num_layers: int,
        num_heads: int,
        hidden_dim: int,
        mlp_dim: int,
        dropout: float,
        attention_dropout: float,
        norm_layer: Callable[..., nn.Module] = partial(nn.LayerNorm, eps=1e-6),
    ) -> None:
        super().__init__()
        self.pos_embedding = nn.Parameter(zeros(1, seq_length, hidden_dim))
        nn.init.normal_(self.pos_embedding, std=0.02)
        self.dropout = nn.Dropout(dropout)
        layers: OrderedDict[str, nn.Module] = OrderedDict()
        for i in range(num_layers):
            layers[f"encoder_layer_{i}"] = EncoderBlock(
                num_heads, hidden_dim, mlp_dim, dropout, attention_dropout, norm_layer
            )
        self.layers = nn.Sequential(layers)
        self.ln = norm_layer(hidden_dim)

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() != 3:
            raise AssertionError(f"Expected (batch_size, seq_length, hidden_dim) got {input.shape}")
        input = input + self.pos_embedding
        return self.ln(self.layers(self.dropout(input)))


class VisionTransformer(nn.Module):
    """``heads(encoder(cat([class_token, patches(x)]))[:, 0])`` for square images of
    ``image_size`` pixels cut into ``patch_size`` patches (or a convolutional stem given by
    ``conv_stem_configs``); ``representation_size`` adds a tanh pre-logits layer. The
    patch projection starts ~ N(0, 1/fan_in) truncated, the head at zero."""

    def __init__(
        self,
        image_size: int,
        patch_size: int,
        num_layers: int,
        num_heads: int,
        hidden_dim: int,
        mlp_dim: int,
        dropout: float = 0.0,
        attention_dropout: float = 0.0,
        num_classes: int = 1000,
        representation_size: int | None = None,
        norm_layer: Callable[..., nn.Module] = partial(nn.LayerNorm, eps=1e-6),
        conv_stem_configs: list[ConvStemConfig] | None = None,
    ) -> None:
        super().__init__()
        if image_size % patch_size != 0:
            raise AssertionError("Input shape indivisible by patch size!")
        self.image_size = image_size
        self.patch_size = patch_size
        self.hidden_dim = hidden_dim
        self.mlp_dim = mlp_dim
        self.attention_dropout = attention_dropout
        self.dropout = dropout
        self.num_classes = num_classes
        self.representation_size = representation_size
        self.norm_layer = norm_layer

        if conv_stem_configs is not None:
            seq_proj = nn.Sequential()
            prev_channels = 3
            for i, conv_stem_layer_config in enumerate(conv_stem_configs):
                seq_proj.add_module(
                    f"conv_bn_relu_{i}",
                    Conv2dNormActivation(
                        in_channels=prev_channels,
                        out_channels=conv_stem_layer_config.out_channels,
                        kernel_size=conv_stem_layer_config.kernel_size,
                        stride=conv_stem_layer_config.stride,
                        norm_layer=conv_stem_layer_config.norm_layer,
                        activation_layer=conv_stem_layer_config.activation_layer,
                    ),
                )
                prev_channels = conv_stem_layer_config.out_channels
            seq_proj.add_module(
                "conv_last",
                nn.Conv2d(in_channels=prev_channels, out_channels=hidden_dim, kernel_size=1),
            )
            self.conv_proj: nn.Module = seq_proj
        else:
            self.conv_proj = nn.Conv2d(
                in_channels=3, out_channels=hidden_dim, kernel_size=patch_size, stride=patch_size
            )

        seq_length = (image_size // patch_size) ** 2
        self.class_token = nn.Parameter(zeros(1, 1, hidden_dim))
        seq_length += 1
        self.encoder = Encoder(
            seq_length,
            num_layers,
            num_heads,
            hidden_dim,
            mlp_dim,
            dropout,
            attention_dropout,
            norm_layer,
        )
        self.seq_length = seq_length

        heads_layers: OrderedDict[str, nn.Module] = OrderedDict()
        if representation_size is None:
            heads_layers["head"] = nn.Linear(hidden_dim, num_classes)
        else:
            heads_layers["pre_logits"] = nn.Linear(hidden_dim, representation_size)
            heads_layers["act"] = nn.Tanh()
            heads_layers["head"] = nn.Linear(representation_size, num_classes)
        self.heads = nn.Sequential(heads_layers)

        if isinstance(self.conv_proj, nn.Conv2d):
            fan_in = (
                self.conv_proj.in_channels
                * self.conv_proj.kernel_size[0]
                * self.conv_proj.kernel_size[1]
            )
            nn.init.trunc_normal_(self.conv_proj.weight, std=math.sqrt(1 / fan_in))
            if self.conv_proj.bias is not None:
                nn.init.zeros_(self.conv_proj.bias)
        elif self.conv_proj.conv_last is not None and isinstance(
            self.conv_proj.conv_last, nn.Conv2d
        ):
            nn.init.normal_(
                self.conv_proj.conv_last.weight,
                mean=0.0,
                std=math.sqrt(2.0 / self.conv_proj.conv_last.out_channels),
            )
            if self.conv_proj.conv_last.bias is not None:
                nn.init.zeros_(self.conv_proj.conv_last.bias)
        if hasattr(self.heads, "pre_logits") and isinstance(self.heads.pre_logits, nn.Linear):
            fan_in = self.heads.pre_logits.in_features
            nn.init.trunc_normal_(self.heads.pre_logits.weight, std=math.sqrt(1 / fan_in))
            nn.init.zeros_(self.heads.pre_logits.bias)
        if isinstance(self.heads.head, nn.Linear):
            nn.init.zeros_(self.heads.head.weight)
            nn.init.zeros_(self.heads.head.bias)

    def _process_input(self, x: Tensor) -> Tensor:
        """``(n, c, h, w)`` images to ``(n, patches, hidden_dim)`` patch embeddings."""
        n, _, h, w = x.shape
        p = self.patch_size
        if h != self.image_size:
            raise AssertionError(f"Wrong image height! Expected {self.image_size} but got {h}!")
        if w != self.image_size:
            raise AssertionError(f"Wrong image width! Expected {self.image_size} but got {w}!")
        n_h = h // p
        n_w = w // p
        x = self.conv_proj(x)
        x = x.reshape(n, self.hidden_dim, n_h * n_w)
        return x.permute(0, 2, 1)

    def forward(self, x: Tensor) -> Tensor:
        x = self._process_input(x)
        n = x.shape[0]
        batch_class_token = self.class_token.expand(n, -1, -1)
        x = cat([batch_class_token, x], dim=1)
        x = self.encoder(x)
        return self.heads(x[:, 0])


def _vision_transformer(
    patch_size: int,
    num_layers: int,
    num_heads: int,
    hidden_dim: int,
    mlp_dim: int,
    weights: WeightsEnum | None,
    progress: bool,
    **kwargs: Any,
) -> VisionTransformer:
    if weights is not None:
        _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
        if weights.meta["min_size"][0] != weights.meta["min_size"][1]:
            raise AssertionError
        _ovewrite_named_param(kwargs, "image_size", weights.meta["min_size"][0])
    image_size = kwargs.pop("image_size", 224)
    model = VisionTransformer(
        image_size=image_size,
        patch_size=patch_size,
        num_layers=num_layers,
        num_heads=num_heads,
        hidden_dim=hidden_dim,
        mlp_dim=mlp_dim,
        **kwargs,
    )
    if weights:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


class ViT_B_16_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/vit_b_16-c867db91.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 86567656,
            "min_size": (224, 224),
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#vit_b_16",
            "_metrics": {"ImageNet-1K": {"acc@1": 81.072, "acc@5": 95.318}},
            "_ops": 17.564,
            "_file_size": 330.285,
            "_docs": "\n                These weights were trained from scratch by using a modified version of `DeIT\n                <https://arxiv.org/abs/2012.12877>`_'s training recipe.\n            ",
        },
    )
    IMAGENET1K_SWAG_E2E_V1 = Weights(
        url="https://download.pytorch.org/models/vit_b_16_swag-9ac1b537.pth",
        transforms=partial(
            ImageClassification, crop_size=384, resize_size=384, interpolation="bicubic"
        ),
        meta={
            "categories": _IMAGENET_CATEGORIES,
            "recipe": "https://github.com/facebookresearch/SWAG",
            "license": "https://github.com/facebookresearch/SWAG/blob/main/LICENSE",
            "num_params": 86859496,
            "min_size": (384, 384),
            "_metrics": {"ImageNet-1K": {"acc@1": 85.304, "acc@5": 97.65}},
            "_ops": 55.484,
            "_file_size": 331.398,
            "_docs": (
                "\n"
                "                These weights are learnt via transfer learning by end-to-end fine-tuning the original\n"
                "                `SWAG <https://arxiv.org/abs/2201.08371>`_ weights on ImageNet-1K data.\n"
                "            "
            ),
        },
    )
    IMAGENET1K_SWAG_LINEAR_V1 = Weights(
        url="https://download.pytorch.org/models/vit_b_16_lc_swag-4e70ced5.pth",
        transforms=partial(
            ImageClassification, crop_size=224, resize_size=224, interpolation="bicubic"
        ),
        meta={
            "categories": _IMAGENET_CATEGORIES,
            "recipe": "https://github.com/pytorch/vision/pull/5793",
            "license": "https://github.com/facebookresearch/SWAG/blob/main/LICENSE",
            "num_params": 86567656,
            "min_size": (224, 224),
            "_metrics": {"ImageNet-1K": {"acc@1": 81.886, "acc@5": 96.18}},
            "_ops": 17.564,
            "_file_size": 330.285,
            "_docs": (
                "\n"
                "                These weights are composed of the original frozen `SWAG <https://arxiv.org/abs/2201.08371>`_ trunk\n"
                "                weights and a linear classifier learnt on top of them trained on ImageNet-1K data.\n"
                "            "
            ),
        },
    )
    DEFAULT = IMAGENET1K_V1


class ViT_B_32_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/vit_b_32-d86f8d99.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 88224232,
            "min_size": (224, 224),
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#vit_b_32",
            "_metrics": {"ImageNet-1K": {"acc@1": 75.912, "acc@5": 92.466}},
            "_ops": 4.409,
            "_file_size": 336.604,
            "_docs": "\n                These weights were trained from scratch by using a modified version of `DeIT\n                <https://arxiv.org/abs/2012.12877>`_'s training recipe.\n            ",
        },
    )
    DEFAULT = IMAGENET1K_V1


class ViT_L_16_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/vit_l_16-852ce7e3.pth",
        transforms=partial(ImageClassification, crop_size=224, resize_size=242),
        meta={
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 304326632,
            "min_size": (224, 224),
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#vit_l_16",
            "_metrics": {"ImageNet-1K": {"acc@1": 79.662, "acc@5": 94.638}},
            "_ops": 61.555,
            "_file_size": 1161.023,
            "_docs": (
                "\n"
                "                These weights were trained from scratch by using a modified version of TorchVision's\n"
                "                `new training recipe\n"
                "                <https://pytorch.org/blog/how-to-train-state-of-the-art-models-using-torchvision-latest-primitives/>`_.\n"
                "            "
            ),
        },
    )
    IMAGENET1K_SWAG_E2E_V1 = Weights(
        url="https://download.pytorch.org/models/vit_l_16_swag-4f3808c9.pth",
        transforms=partial(
            ImageClassification, crop_size=512, resize_size=512, interpolation="bicubic"
        ),
        meta={
            "categories": _IMAGENET_CATEGORIES,
            "recipe": "https://github.com/facebookresearch/SWAG",
            "license": "https://github.com/facebookresearch/SWAG/blob/main/LICENSE",
            "num_params": 305174504,
            "min_size": (512, 512),
            "_metrics": {"ImageNet-1K": {"acc@1": 88.064, "acc@5": 98.512}},
            "_ops": 361.986,
            "_file_size": 1164.258,
            "_docs": (
                "\n"
                "                These weights are learnt via transfer learning by end-to-end fine-tuning the original\n"
                "                `SWAG <https://arxiv.org/abs/2201.08371>`_ weights on ImageNet-1K data.\n"
                "            "
            ),
        },
    )
    IMAGENET1K_SWAG_LINEAR_V1 = Weights(
        url="https://download.pytorch.org/models/vit_l_16_lc_swag-4d563306.pth",
        transforms=partial(
            ImageClassification, crop_size=224, resize_size=224, interpolation="bicubic"
        ),
        meta={
            "categories": _IMAGENET_CATEGORIES,
            "recipe": "https://github.com/pytorch/vision/pull/5793",
            "license": "https://github.com/facebookresearch/SWAG/blob/main/LICENSE",
            "num_params": 304326632,
            "min_size": (224, 224),
            "_metrics": {"ImageNet-1K": {"acc@1": 85.146, "acc@5": 97.422}},
            "_ops": 61.555,
            "_file_size": 1161.023,
            "_docs": (
                "\n"
                "                These weights are composed of the original frozen `SWAG <https://arxiv.org/abs/2201.08371>`_ trunk\n"
                "                weights and a linear classifier learnt on top of them trained on ImageNet-1K data.\n"
                "            "
            ),
        },
    )
    DEFAULT = IMAGENET1K_V1


class ViT_L_32_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/vit_l_32-c7638314.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 306535400,
            "min_size": (224, 224),
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#vit_l_32",
            "_metrics": {"ImageNet-1K": {"acc@1": 76.972, "acc@5": 93.07}},
            "_ops": 15.378,
            "_file_size": 1169.449,
            "_docs": "\n                These weights were trained from scratch by using a modified version of `DeIT\n                <https://arxiv.org/abs/2012.12877>`_'s training recipe.\n            ",
        },
    )
    DEFAULT = IMAGENET1K_V1


class ViT_H_14_Weights(WeightsEnum):
    IMAGENET1K_SWAG_E2E_V1 = Weights(
        url="https://download.pytorch.org/models/vit_h_14_swag-80465313.pth",
        transforms=partial(
            ImageClassification, crop_size=518, resize_size=518, interpolation="bicubic"
        ),
        meta={
            "categories": _IMAGENET_CATEGORIES,
            "recipe": "https://github.com/facebookresearch/SWAG",
            "license": "https://github.com/facebookresearch/SWAG/blob/main/LICENSE",
            "num_params": 633470440,
            "min_size": (518, 518),
            "_metrics": {"ImageNet-1K": {"acc@1": 88.552, "acc@5": 98.694}},
            "_ops": 1016.717,
            "_file_size": 2416.643,
            "_docs": (
                "\n"
                "                These weights are learnt via transfer learning by end-to-end fine-tuning the original\n"
                "                `SWAG <https://arxiv.org/abs/2201.08371>`_ weights on ImageNet-1K data.\n"
                "            "
            ),
        },
    )
    IMAGENET1K_SWAG_LINEAR_V1 = Weights(
        url="https://download.pytorch.org/models/vit_h_14_lc_swag-c1eb923e.pth",
        transforms=partial(
            ImageClassification, crop_size=224, resize_size=224, interpolation="bicubic"
        ),
        meta={
            "categories": _IMAGENET_CATEGORIES,
            "recipe": "https://github.com/pytorch/vision/pull/5793",
            "license": "https://github.com/facebookresearch/SWAG/blob/main/LICENSE",
            "num_params": 632045800,
            "min_size": (224, 224),
            "_metrics": {"ImageNet-1K": {"acc@1": 85.708, "acc@5": 97.73}},
            "_ops": 167.295,
            "_file_size": 2411.209,
            "_docs": (
                "\n"
                "                These weights are composed of the original frozen `SWAG <https://arxiv.org/abs/2201.08371>`_ trunk\n"
                "                weights and a linear classifier learnt on top of them trained on ImageNet-1K data.\n"
                "            "
            ),
        },
    )
    DEFAULT = IMAGENET1K_SWAG_E2E_V1


@register_model()
@handle_legacy_interface(weights=("pretrained", ViT_B_16_Weights.IMAGENET1K_V1))
def vit_b_16(
    *, weights: ViT_B_16_Weights | None = None, progress: bool = True, **kwargs: Any
) -> VisionTransformer:
    """ViT-B/16 (12 layers, 12 heads, width 768, MLP 3072); ``weights`` a :class:`ViT_B_16_Weights`
    member (or its name), ``kwargs`` go to :class:`VisionTransformer` (``image_size``, ...)."""
    weights = ViT_B_16_Weights.verify(weights)
    return _vision_transformer(
        patch_size=16,
        num_layers=12,
        num_heads=12,
        hidden_dim=768,
        mlp_dim=3072,
        weights=weights,
        progress=progress,
        **kwargs,
    )


@register_model()
@handle_legacy_interface(weights=("pretrained", ViT_B_32_Weights.IMAGENET1K_V1))
def vit_b_32(
    *, weights: ViT_B_32_Weights | None = None, progress: bool = True, **kwargs: Any
) -> VisionTransformer:
    """ViT-B/32 (12 layers, 12 heads, width 768, MLP 3072); ``weights`` a :class:`ViT_B_32_Weights`
    member (or its name), ``kwargs`` go to :class:`VisionTransformer` (``image_size``, ...)."""
    weights = ViT_B_32_Weights.verify(weights)
    return _vision_transformer(
        patch_size=32,
        num_layers=12,
        num_heads=12,
        hidden_dim=768,
        mlp_dim=3072,
        weights=weights,
        progress=progress,
        **kwargs,
    )


@register_model()
@handle_legacy_interface(weights=("pretrained", ViT_L_16_Weights.IMAGENET1K_V1))
def vit_l_16(
    *, weights: ViT_L_16_Weights | None = None, progress: bool = True, **kwargs: Any
) -> VisionTransformer:
    """ViT-L/16 (24 layers, 16 heads, width 1024, MLP 4096); ``weights`` a :class:`ViT_L_16_Weights`
    member (or its name), ``kwargs`` go to :class:`VisionTransformer` (``image_size``, ...)."""
    weights = ViT_L_16_Weights.verify(weights)
    return _vision_transformer(
        patch_size=16,
        num_layers=24,
        num_heads=16,
        hidden_dim=1024,
        mlp_dim=4096,
        weights=weights,
        progress=progress,
        **kwargs,
    )


@register_model()
@handle_legacy_interface(weights=("pretrained", ViT_L_32_Weights.IMAGENET1K_V1))
def vit_l_32(
    *, weights: ViT_L_32_Weights | None = None, progress: bool = True, **kwargs: Any
) -> VisionTransformer:
    """ViT-L/32 (24 layers, 16 heads, width 1024, MLP 4096); ``weights`` a :class:`ViT_L_32_Weights`
    member (or its name), ``kwargs`` go to :class:`VisionTransformer` (``image_size``, ...)."""
    weights = ViT_L_32_Weights.verify(weights)
    return _vision_transformer(
        patch_size=32,
        num_layers=24,
        num_heads=16,
        hidden_dim=1024,
        mlp_dim=4096,
        weights=weights,
        progress=progress,
        **kwargs,
    )


@register_model()
@handle_legacy_interface(weights=("pretrained", None))
def vit_h_14(
    *, weights: ViT_H_14_Weights | None = None, progress: bool = True, **kwargs: Any
) -> VisionTransformer:
    """ViT-H/14 (32 layers, 16 heads, width 1280, MLP 5120); ``weights`` a :class:`ViT_H_14_Weights`
    member (or its name), ``kwargs`` go to :class:`VisionTransformer` (``image_size``, ...)."""
    weights = ViT_H_14_Weights.verify(weights)
    return _vision_transformer(
        patch_size=14,
        num_layers=32,
        num_heads=16,
        hidden_dim=1280,
        mlp_dim=5120,
        weights=weights,
        progress=progress,
        **kwargs,
    )


def interpolate_embeddings(
    image_size: int,
    patch_size: int,
    model_state: OrderedDict[str, Tensor],
    interpolation_mode: str = "bicubic",
    reset_heads: bool = False,
) -> OrderedDict[str, Tensor]:
    """``model_state`` with ``encoder.pos_embedding`` resized (2-d interpolation of the
    patch positions, class token kept) for images of ``image_size`` pixels; the head's
    entries dropped when ``reset_heads``."""
    pos_embedding = model_state["encoder.pos_embedding"]
    n, seq_length, hidden_dim = pos_embedding.shape
    if n != 1:
        raise ValueError(f"Unexpected position embedding shape: {pos_embedding.shape}")
    new_seq_length = (image_size // patch_size) ** 2 + 1
    if new_seq_length != seq_length:
        seq_length -= 1
        new_seq_length -= 1
        pos_embedding_token = pos_embedding[:, :1, :]
        pos_embedding_img = pos_embedding[:, 1:, :].permute(0, 2, 1)
        seq_length_1d = int(math.sqrt(seq_length))
        if seq_length_1d * seq_length_1d != seq_length:
            raise ValueError(
                f"seq_length is not a perfect square! Instead got seq_length_1d * seq_length_1d = "
                f"{seq_length_1d * seq_length_1d} and seq_length = {seq_length}"
            )
        pos_embedding_img = pos_embedding_img.reshape(1, hidden_dim, seq_length_1d, seq_length_1d)
        new_seq_length_1d = image_size // patch_size
        new_pos_embedding_img = F.interpolate(
            pos_embedding_img, size=new_seq_length_1d, mode=interpolation_mode, align_corners=True
        )
        new_pos_embedding_img = new_pos_embedding_img.reshape(1, hidden_dim, new_seq_length)
        new_pos_embedding_img = new_pos_embedding_img.permute(0, 2, 1)
        new_pos_embedding = cat([pos_embedding_token, new_pos_embedding_img], dim=1)
        model_state["encoder.pos_embedding"] = new_pos_embedding
        if reset_heads:
            model_state_copy: OrderedDict[str, Tensor] = OrderedDict()
            for k, v in model_state.items():
                if not k.startswith("heads"):
                    model_state_copy[k] = v
            model_state = model_state_copy
    return model_state
