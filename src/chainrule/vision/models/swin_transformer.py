"""Swin Transformer (Liu et al., 2021) and Swin Transformer V2 (Liu et al., 2022):
self-attention inside local windows, the windows shifted by half their size every other
block, with a learnt relative position bias, and patch merging between stages. V2 uses
cosine attention with a learnt temperature, a continuous position bias (a small MLP of
log-spaced coordinates) and post-normalisation."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import Any

from ... import (
    arange,
    cat,
    clamp,
    flatten,
    log,
    log2,
    meshgrid,
    nn,
    ones,
    roll,
    sigmoid,
    stack,
    zeros,
)
from ..._tensor import Tensor
from ...nn import functional as F
from ..ops.misc import MLP, Permute
from ..ops.stochastic_depth import StochasticDepth
from ._api import Weights, WeightsEnum, register_model
from ._meta import _IMAGENET_CATEGORIES
from ._utils import ImageClassification, _ovewrite_named_param, handle_legacy_interface

__all__ = [
    "SwinTransformer",
    "Swin_T_Weights",
    "Swin_S_Weights",
    "Swin_B_Weights",
    "Swin_V2_T_Weights",
    "Swin_V2_S_Weights",
    "Swin_V2_B_Weights",
    "swin_t",
    "swin_s",
    "swin_b",
    "swin_v2_t",
    "swin_v2_s",
    "swin_v2_b",
]


def _patch_merging_pad(x: Tensor) -> Tensor:
    """``(..., H, W, C) -> (..., H/2, W/2, 4C)``: each 2x2 neighbourhood's features
    concatenated (odd sizes padded with zeros)."""
    H, W, _ = x.shape[-3:]
    x = F.pad(x, (0, 0, 0, W % 2, 0, H % 2))
    x0 = x[..., 0::2, 0::2, :]
    x1 = x[..., 1::2, 0::2, :]
    x2 = x[..., 0::2, 1::2, :]
    x3 = x[..., 1::2, 1::2, :]
    return cat([x0, x1, x2, x3], -1)


def _get_relative_position_bias(
    relative_position_bias_table: Tensor, relative_position_index: Tensor, window_size: list[int]
) -> Tensor:
    """The ``(1, heads, N, N)`` bias between the ``N`` positions of a window, read from the
    table at the pairs' relative offsets."""
    N = window_size[0] * window_size[1]
    relative_position_bias = relative_position_bias_table[relative_position_index]
    relative_position_bias = relative_position_bias.view(N, N, -1)
    return relative_position_bias.permute(2, 0, 1).contiguous().unsqueeze(0)


class PatchMerging(nn.Module):
    """``reduction(norm(merge(x)))``: 2x2 patches merged, ``4 dim -> 2 dim`` linearly."""

    def __init__(self, dim: int, norm_layer: Callable[..., nn.Module] = nn.LayerNorm) -> None:
        super().__init__()
        self.dim = dim
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)
        self.norm = norm_layer(4 * dim)

    def forward(self, x: Tensor) -> Tensor:
        return self.reduction(self.norm(_patch_merging_pad(x)))


class PatchMergingV2(nn.Module):
    """``norm(reduction(merge(x)))`` (V2 normalises after the reduction)."""

    def __init__(self, dim: int, norm_layer: Callable[..., nn.Module] = nn.LayerNorm) -> None:
        super().__init__()
        self.dim = dim
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)
        self.norm = norm_layer(2 * dim)

    def forward(self, x: Tensor) -> Tensor:
        return self.norm(self.reduction(_patch_merging_pad(x)))


def _shift_mask(
    pad_H: int, pad_W: int, window_size: list[int], shift_size: list[int], like: Tensor
) -> Tensor:
    """``(num_windows, N, N)``: 0 between positions of the same region of the shifted
    image, -100 across regions (which the cyclic shift brought next to each other)."""
    attn_mask = like.new_zeros((pad_H, pad_W))
    h_slices = ((0, -window_size[0]), (-window_size[0], -shift_size[0]), (-shift_size[0], None))
    w_slices = ((0, -window_size[1]), (-window_size[1], -shift_size[1]), (-shift_size[1], None))
    count = 0
    for h in h_slices:
        for w in w_slices:
            attn_mask[h[0] : h[1], w[0] : w[1]] = count
            count += 1
    num_windows = (pad_H // window_size[0]) * (pad_W // window_size[1])
    attn_mask = attn_mask.view(
        pad_H // window_size[0], window_size[0], pad_W // window_size[1], window_size[1]
    )
    attn_mask = attn_mask.permute(0, 2, 1, 3).reshape(num_windows, window_size[0] * window_size[1])
    attn_mask = attn_mask.unsqueeze(1) - attn_mask.unsqueeze(2)
    return attn_mask.masked_fill(attn_mask != 0, (-100.0)).masked_fill(attn_mask == 0, 0.0)


def shifted_window_attention(
    input: Tensor,
    qkv_weight: Tensor,
    proj_weight: Tensor,
    relative_position_bias: Tensor,
    window_size: list[int],
    num_heads: int,
    shift_size: list[int],
    attention_dropout: float = 0.0,
    dropout: float = 0.0,
    qkv_bias: Tensor | None = None,
    proj_bias: Tensor | None = None,
    logit_scale: Tensor | None = None,
    training: bool = True,
) -> Tensor:
    """Multi-head self-attention within windows of a ``(B, H, W, C)`` input (padded to
    whole windows), the image cyclically shifted by ``-shift_size`` first and back after;
    scaled dot-product attention, or cosine attention times ``exp(min(logit_scale,
    log 100))`` when ``logit_scale`` is given (V2)."""
    B, H, W, C = input.shape
    pad_r = (window_size[1] - W % window_size[1]) % window_size[1]
    pad_b = (window_size[0] - H % window_size[0]) % window_size[0]
    x = F.pad(input, (0, 0, 0, pad_r, 0, pad_b))
    _, pad_H, pad_W, _ = x.shape
    shift_size = list(shift_size)
    # a window covering the whole padded image has nothing to shift
    if window_size[0] >= pad_H:
        shift_size[0] = 0
    if window_size[1] >= pad_W:
        shift_size[1] = 0
    shifted = sum(shift_size) > 0
    if shifted:
        x = roll(x, shifts=(-shift_size[0], -shift_size[1]), dims=(1, 2))

    num_windows = (pad_H // window_size[0]) * (pad_W // window_size[1])
    x = x.view(
        B, pad_H // window_size[0], window_size[0], pad_W // window_size[1], window_size[1], C
    )
    x = x.permute(0, 1, 3, 2, 4, 5).reshape(B * num_windows, window_size[0] * window_size[1], C)

    if logit_scale is not None and qkv_bias is not None:
        # V2 has no key bias
        length = qkv_bias.numel() // 3
        qkv_bias = cat(
            [qkv_bias[:length], zeros(length, dtype=qkv_bias.dtype), qkv_bias[2 * length :]]
        )
    qkv = F.linear(x, qkv_weight, qkv_bias)
    qkv = qkv.reshape(x.size(0), x.size(1), 3, num_heads, C // num_heads).permute(2, 0, 3, 1, 4)
    q, k, v = qkv[0], qkv[1], qkv[2]
    if logit_scale is not None:
        attn = F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-2, -1)
        attn = attn * clamp(logit_scale, max=math.log(100.0)).exp()
    else:
        q = q * (C // num_heads) ** -0.5
        attn = q.matmul(k.transpose(-2, -1))
    attn = attn + relative_position_bias

    if shifted:
        attn_mask = _shift_mask(pad_H, pad_W, window_size, shift_size, x)
        attn = attn.view(x.size(0) // num_windows, num_windows, num_heads, x.size(1), x.size(1))
        attn = attn + attn_mask.unsqueeze(1).unsqueeze(0)
        attn = attn.view(-1, num_heads, x.size(1), x.size(1))

    attn = F.softmax(attn, dim=-1)
    attn = F.dropout(attn, p=attention_dropout, training=training)
    x = attn.matmul(v).transpose(1, 2).reshape(x.size(0), x.size(1), C)
    x = F.linear(x, proj_weight, proj_bias)
    x = F.dropout(x, p=dropout, training=training)

    x = x.view(
        B, pad_H // window_size[0], pad_W // window_size[1], window_size[0], window_size[1], C
    )
    x = x.permute(0, 1, 3, 2, 4, 5).reshape(B, pad_H, pad_W, C)
    if shifted:
        x = roll(x, shifts=(shift_size[0], shift_size[1]), dims=(1, 2))
    return x[:, :H, :W, :].contiguous()


class ShiftedWindowAttention(nn.Module):
    """:func:`shifted_window_attention` with its ``qkv`` and ``proj`` linear layers and a
    learnt table of relative position biases (~ N(0, 0.02) truncated)."""

    def __init__(
        self,
        dim: int,
        window_size: list[int],
        shift_size: list[int],
        num_heads: int,
        qkv_bias: bool = True,
        proj_bias: bool = True,
        attention_dropout: float = 0.0,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        if len(window_size) != 2 or len(shift_size) != 2:
            raise ValueError("window_size and shift_size must be of length 2")
        self.window_size = window_size
        self.shift_size = shift_size
        self.num_heads = num_heads
        self.attention_dropout = attention_dropout
        self.dropout = dropout
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.proj = nn.Linear(dim, dim, bias=proj_bias)
        self.define_relative_position_bias_table()
        self.define_relative_position_index()

    def define_relative_position_bias_table(self) -> None:
        ws = self.window_size
        self.relative_position_bias_table = nn.Parameter(
            zeros((2 * ws[0] - 1) * (2 * ws[1] - 1), self.num_heads)
        )
        nn.init.trunc_normal_(self.relative_position_bias_table, std=0.02)

    def define_relative_position_index(self) -> None:
        """Buffer: for each pair of window positions, the table row of their offset."""
        ws = self.window_size
        coords = stack(meshgrid(arange(ws[0]), arange(ws[1]), indexing="ij"))
        coords_flatten = flatten(coords, 1)
        relative_coords = coords_flatten[:, :, None] - coords_flatten[:, None, :]
        relative_coords = relative_coords.permute(1, 2, 0).contiguous()
        dh = relative_coords[:, :, 0] + (ws[0] - 1)
        dw = relative_coords[:, :, 1] + (ws[1] - 1)
        relative_position_index = (dh * (2 * ws[1] - 1) + dw).flatten()
        self.register_buffer("relative_position_index", relative_position_index)

    def get_relative_position_bias(self) -> Tensor:
        return _get_relative_position_bias(
            self.relative_position_bias_table, self.relative_position_index, self.window_size
        )

    def forward(self, x: Tensor) -> Tensor:
        return shifted_window_attention(
            x,
            self.qkv.weight,
            self.proj.weight,
            self.get_relative_position_bias(),
            self.window_size,
            self.num_heads,
            shift_size=self.shift_size,
            attention_dropout=self.attention_dropout,
            dropout=self.dropout,
            qkv_bias=self.qkv.bias,
            proj_bias=self.proj.bias,
            training=self.training,
        )


class ShiftedWindowAttentionV2(ShiftedWindowAttention):
    """V2's window attention: cosine similarity times a learnt per-head temperature
    (``logit_scale``, starting at log 10), and position biases ``16 sigmoid(cpb_mlp(c))`` of
    the log-spaced relative coordinates ``c``."""

    def __init__(
        self,
        dim: int,
        window_size: list[int],
        shift_size: list[int],
        num_heads: int,
        qkv_bias: bool = True,
        proj_bias: bool = True,
        attention_dropout: float = 0.0,
        dropout: float = 0.0,
    ) -> None:
        super().__init__(
            dim,
            window_size,
            shift_size,
            num_heads,
            qkv_bias=qkv_bias,
            proj_bias=proj_bias,
            attention_dropout=attention_dropout,
            dropout=dropout,
        )
        self.logit_scale = nn.Parameter(log(10 * ones((num_heads, 1, 1))))
        self.cpb_mlp = nn.Sequential(
            nn.Linear(2, 512, bias=True),
            nn.ReLU(inplace=True),
            nn.Linear(512, num_heads, bias=False),
        )
        if qkv_bias:
            length = self.qkv.bias.numel() // 3
            self.qkv.bias.data[length : 2 * length] = 0

    def define_relative_position_bias_table(self) -> None:
        """Buffer: the relative offsets scaled to ±8 and mapped by
        ``sign(c) * log2(|c| + 1) / 3``."""
        ws = self.window_size
        relative_coords_h = arange(-(ws[0] - 1), ws[0]).float()
        relative_coords_w = arange(-(ws[1] - 1), ws[1]).float()
        table = stack(meshgrid([relative_coords_h, relative_coords_w], indexing="ij"))
        table = table.permute(1, 2, 0).contiguous().unsqueeze(0)
        table = stack([table[..., 0] / (ws[0] - 1), table[..., 1] / (ws[1] - 1)], dim=-1) * 8
        table = table.sign() * log2(table.abs() + 1.0) / 3.0
        self.register_buffer("relative_coords_table", table)

    def get_relative_position_bias(self) -> Tensor:
        relative_position_bias = _get_relative_position_bias(
            self.cpb_mlp(self.relative_coords_table).view(-1, self.num_heads),
            self.relative_position_index,
            self.window_size,
        )
        return 16 * sigmoid(relative_position_bias)

    def forward(self, x: Tensor) -> Tensor:
        return shifted_window_attention(
            x,
            self.qkv.weight,
            self.proj.weight,
            self.get_relative_position_bias(),
            self.window_size,
            self.num_heads,
            shift_size=self.shift_size,
            attention_dropout=self.attention_dropout,
            dropout=self.dropout,
            qkv_bias=self.qkv.bias,
            proj_bias=self.proj.bias,
            logit_scale=self.logit_scale,
            training=self.training,
        )


class SwinTransformerBlock(nn.Module):
    """Pre-norm block: ``x + sd(attn(norm1(x)))``, then ``x + sd(mlp(norm2(x)))``."""

    def __init__(
        self,
        dim: int,
        num_heads: int,
        window_size: list[int],
        shift_size: list[int],
        mlp_ratio: float = 4.0,
        dropout: float = 0.0,
        attention_dropout: float = 0.0,
        stochastic_depth_prob: float = 0.0,
        norm_layer: Callable[..., nn.Module] = nn.LayerNorm,
        attn_layer: Callable[..., nn.Module] = ShiftedWindowAttention,
    ) -> None:
        super().__init__()
        self.norm1 = norm_layer(dim)
        self.attn = attn_layer(
            dim,
            window_size,
            shift_size,
            num_heads,
            attention_dropout=attention_dropout,
            dropout=dropout,
        )
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")
        self.norm2 = norm_layer(dim)
        self.mlp = MLP(
            dim,
            [int(dim * mlp_ratio), dim],
            activation_layer=nn.GELU,
            inplace=None,
            dropout=dropout,
        )
        for m in self.mlp.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.normal_(m.bias, std=1e-6)

    def forward(self, x: Tensor) -> Tensor:
        x = x + self.stochastic_depth(self.attn(self.norm1(x)))
        return x + self.stochastic_depth(self.mlp(self.norm2(x)))


class SwinTransformerBlockV2(SwinTransformerBlock):
    """Post-norm block (V2): ``x + sd(norm1(attn(x)))``, then ``x + sd(norm2(mlp(x)))``."""

    def __init__(
        self,
        dim: int,
        num_heads: int,
        window_size: list[int],
        shift_size: list[int],
        mlp_ratio: float = 4.0,
        dropout: float = 0.0,
        attention_dropout: float = 0.0,
        stochastic_depth_prob: float = 0.0,
        norm_layer: Callable[..., nn.Module] = nn.LayerNorm,
        attn_layer: Callable[..., nn.Module] = ShiftedWindowAttentionV2,
    ) -> None:
        super().__init__(
            dim,
            num_heads,
            window_size,
            shift_size,
            mlp_ratio=mlp_ratio,
            dropout=dropout,
            attention_dropout=attention_dropout,
            stochastic_depth_prob=stochastic_depth_prob,
            norm_layer=norm_layer,
            attn_layer=attn_layer,
        )

    def forward(self, x: Tensor) -> Tensor:
        x = x + self.stochastic_depth(self.norm1(self.attn(x)))
        return x + self.stochastic_depth(self.norm2(self.mlp(x)))


class SwinTransformer(nn.Module):
    """Patch embedding (``patch_size`` strided conv, channels last, norm), stages of
    ``depths`` blocks (width ``embed_dim * 2**i``, windows alternately unshifted and
    shifted by half) with patch merging between them, a final norm, average pooling and
    ``head``. Linear weights start ~ N(0, 0.02) truncated, biases at 0."""

    def __init__(
        self,
        patch_size: list[int],
        embed_dim: int,
        depths: list[int],
        num_heads: list[int],
        window_size: list[int],
        mlp_ratio: float = 4.0,
        dropout: float = 0.0,
        attention_dropout: float = 0.0,
        stochastic_depth_prob: float = 0.1,
        num_classes: int = 1000,
        norm_layer: Callable[..., nn.Module] | None = None,
        block: Callable[..., nn.Module] | None = None,
        downsample_layer: Callable[..., nn.Module] = PatchMerging,
    ) -> None:
        super().__init__()
        self.num_classes = num_classes
        if block is None:
            block = SwinTransformerBlock
        if norm_layer is None:
            norm_layer = partial(nn.LayerNorm, eps=1e-5)
        layers: list[nn.Module] = [
            nn.Sequential(
                nn.Conv2d(
                    3,
                    embed_dim,
                    kernel_size=(patch_size[0], patch_size[1]),
                    stride=(patch_size[0], patch_size[1]),
                ),
                Permute([0, 2, 3, 1]),
                norm_layer(embed_dim),
            )
        ]
        total_stage_blocks = sum(depths)
        stage_block_id = 0
        for i_stage in range(len(depths)):
            stage: list[nn.Module] = []
            dim = embed_dim * 2**i_stage
            for i_layer in range(depths[i_stage]):
                sd_prob = stochastic_depth_prob * float(stage_block_id) / (total_stage_blocks - 1)
                stage.append(
                    block(
                        dim,
                        num_heads[i_stage],
                        window_size=window_size,
                        shift_size=[0 if i_layer % 2 == 0 else w // 2 for w in window_size],
                        mlp_ratio=mlp_ratio,
                        dropout=dropout,
                        attention_dropout=attention_dropout,
                        stochastic_depth_prob=sd_prob,
                        norm_layer=norm_layer,
                    )
                )
                stage_block_id += 1
            layers.append(nn.Sequential(*stage))
            if i_stage < (len(depths) - 1):
                layers.append(downsample_layer(dim, norm_layer))
        self.features = nn.Sequential(*layers)
        num_features = embed_dim * 2 ** (len(depths) - 1)
        self.norm = norm_layer(num_features)
        self.permute = Permute([0, 3, 1, 2])
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.flatten = nn.Flatten(1)
        self.head = nn.Linear(num_features, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def forward(self, x: Tensor) -> Tensor:
        x = self.permute(self.norm(self.features(x)))
        return self.head(self.flatten(self.avgpool(x)))


def _swin_transformer(
    patch_size: list[int],
    embed_dim: int,
    depths: list[int],
    num_heads: list[int],
    window_size: list[int],
    stochastic_depth_prob: float,
    weights: WeightsEnum | None,
    progress: bool,
    **kwargs: Any,
) -> SwinTransformer:
    if weights is not None:
        _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
    model = SwinTransformer(
        patch_size=patch_size,
        embed_dim=embed_dim,
        depths=depths,
        num_heads=num_heads,
        window_size=window_size,
        stochastic_depth_prob=stochastic_depth_prob,
        **kwargs,
    )
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


class Swin_T_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/swin_t-704ceda3.pth",
        transforms=partial(
            ImageClassification, crop_size=224, resize_size=232, interpolation="bicubic"
        ),
        meta={
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 28288354,
            "min_size": (224, 224),
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#swintransformer",
            "_metrics": {"ImageNet-1K": {"acc@1": 81.474, "acc@5": 95.776}},
            "_ops": 4.491,
            "_file_size": 108.19,
            "_docs": "These weights reproduce closely the results of the paper using a similar training recipe.",
        },
    )
    DEFAULT = IMAGENET1K_V1


class Swin_S_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/swin_s-5e29d889.pth",
        transforms=partial(
            ImageClassification, crop_size=224, resize_size=246, interpolation="bicubic"
        ),
        meta={
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 49606258,
            "min_size": (224, 224),
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#swintransformer",
            "_metrics": {"ImageNet-1K": {"acc@1": 83.196, "acc@5": 96.36}},
            "_ops": 8.741,
            "_file_size": 189.786,
            "_docs": "These weights reproduce closely the results of the paper using a similar training recipe.",
        },
    )
    DEFAULT = IMAGENET1K_V1


class Swin_B_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/swin_b-68c6b09e.pth",
        transforms=partial(
            ImageClassification, crop_size=224, resize_size=238, interpolation="bicubic"
        ),
        meta={
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 87768224,
            "min_size": (224, 224),
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#swintransformer",
            "_metrics": {"ImageNet-1K": {"acc@1": 83.582, "acc@5": 96.64}},
            "_ops": 15.431,
            "_file_size": 335.364,
            "_docs": "These weights reproduce closely the results of the paper using a similar training recipe.",
        },
    )
    DEFAULT = IMAGENET1K_V1


class Swin_V2_T_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/swin_v2_t-b137f0e2.pth",
        transforms=partial(
            ImageClassification, crop_size=256, resize_size=260, interpolation="bicubic"
        ),
        meta={
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 28351570,
            "min_size": (256, 256),
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#swintransformer-v2",
            "_metrics": {"ImageNet-1K": {"acc@1": 82.072, "acc@5": 96.132}},
            "_ops": 5.94,
            "_file_size": 108.626,
            "_docs": "These weights reproduce closely the results of the paper using a similar training recipe.",
        },
    )
    DEFAULT = IMAGENET1K_V1


class Swin_V2_S_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/swin_v2_s-637d8ceb.pth",
        transforms=partial(
            ImageClassification, crop_size=256, resize_size=260, interpolation="bicubic"
        ),
        meta={
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 49737442,
            "min_size": (256, 256),
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#swintransformer-v2",
            "_metrics": {"ImageNet-1K": {"acc@1": 83.712, "acc@5": 96.816}},
            "_ops": 11.546,
            "_file_size": 190.675,
            "_docs": "These weights reproduce closely the results of the paper using a similar training recipe.",
        },
    )
    DEFAULT = IMAGENET1K_V1


class Swin_V2_B_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/swin_v2_b-781e5279.pth",
        transforms=partial(
            ImageClassification, crop_size=256, resize_size=272, interpolation="bicubic"
        ),
        meta={
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 87930848,
            "min_size": (256, 256),
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#swintransformer-v2",
            "_metrics": {"ImageNet-1K": {"acc@1": 84.112, "acc@5": 96.864}},
            "_ops": 20.325,
            "_file_size": 336.372,
            "_docs": "These weights reproduce closely the results of the paper using a similar training recipe.",
        },
    )
    DEFAULT = IMAGENET1K_V1


@register_model()
@handle_legacy_interface(weights=("pretrained", Swin_T_Weights.IMAGENET1K_V1))
def swin_t(
    *, weights: Swin_T_Weights | None = None, progress: bool = True, **kwargs: Any
) -> SwinTransformer:
    """Swin-T (width 96, depths [2, 2, 6, 2], heads [3, 6, 12, 24], window [7, 7]); ``weights`` a
    :class:`Swin_T_Weights` member (or its name), ``kwargs`` go to :class:`SwinTransformer`."""
    weights = Swin_T_Weights.verify(weights)
    return _swin_transformer(
        patch_size=[4, 4],
        embed_dim=96,
        depths=[2, 2, 6, 2],
        num_heads=[3, 6, 12, 24],
        window_size=[7, 7],
        stochastic_depth_prob=0.2,
        weights=weights,
        progress=progress,
        **kwargs,
    )


@register_model()
@handle_legacy_interface(weights=("pretrained", Swin_S_Weights.IMAGENET1K_V1))
def swin_s(
    *, weights: Swin_S_Weights | None = None, progress: bool = True, **kwargs: Any
) -> SwinTransformer:
    """Swin-S (width 96, depths [2, 2, 18, 2], heads [3, 6, 12, 24], window [7, 7]); ``weights`` a
    :class:`Swin_S_Weights` member (or its name), ``kwargs`` go to :class:`SwinTransformer`."""
    weights = Swin_S_Weights.verify(weights)
    return _swin_transformer(
        patch_size=[4, 4],
        embed_dim=96,
        depths=[2, 2, 18, 2],
        num_heads=[3, 6, 12, 24],
        window_size=[7, 7],
        stochastic_depth_prob=0.3,
        weights=weights,
        progress=progress,
        **kwargs,
    )


@register_model()
@handle_legacy_interface(weights=("pretrained", Swin_B_Weights.IMAGENET1K_V1))
def swin_b(
    *, weights: Swin_B_Weights | None = None, progress: bool = True, **kwargs: Any
) -> SwinTransformer:
    """Swin-B (width 128, depths [2, 2, 18, 2], heads [4, 8, 16, 32], window [7, 7]); ``weights`` a
    :class:`Swin_B_Weights` member (or its name), ``kwargs`` go to :class:`SwinTransformer`."""
    weights = Swin_B_Weights.verify(weights)
    return _swin_transformer(
        patch_size=[4, 4],
        embed_dim=128,
        depths=[2, 2, 18, 2],
        num_heads=[4, 8, 16, 32],
        window_size=[7, 7],
        stochastic_depth_prob=0.5,
        weights=weights,
        progress=progress,
        **kwargs,
    )


@register_model()
@handle_legacy_interface(weights=("pretrained", Swin_V2_T_Weights.IMAGENET1K_V1))
def swin_v2_t(
    *, weights: Swin_V2_T_Weights | None = None, progress: bool = True, **kwargs: Any
) -> SwinTransformer:
    """Swin-V2-T (width 96, depths [2, 2, 6, 2], heads [3, 6, 12, 24], window [8, 8]); ``weights`` a
    :class:`Swin_V2_T_Weights` member (or its name), ``kwargs`` go to :class:`SwinTransformer`."""
    weights = Swin_V2_T_Weights.verify(weights)
    return _swin_transformer(
        patch_size=[4, 4],
        embed_dim=96,
        depths=[2, 2, 6, 2],
        num_heads=[3, 6, 12, 24],
        window_size=[8, 8],
        stochastic_depth_prob=0.2,
        weights=weights,
        progress=progress,
        block=SwinTransformerBlockV2,
        downsample_layer=PatchMergingV2,
        **kwargs,
    )


@register_model()
@handle_legacy_interface(weights=("pretrained", Swin_V2_S_Weights.IMAGENET1K_V1))
def swin_v2_s(
    *, weights: Swin_V2_S_Weights | None = None, progress: bool = True, **kwargs: Any
) -> SwinTransformer:
    """Swin-V2-S (width 96, depths [2, 2, 18, 2], heads [3, 6, 12, 24], window [8, 8]); ``weights`` a
    :class:`Swin_V2_S_Weights` member (or its name), ``kwargs`` go to :class:`SwinTransformer`."""
    weights = Swin_V2_S_Weights.verify(weights)
    return _swin_transformer(
        patch_size=[4, 4],
        embed_dim=96,
        depths=[2, 2, 18, 2],
        num_heads=[3, 6, 12, 24],
        window_size=[8, 8],
        stochastic_depth_prob=0.3,
        weights=weights,
        progress=progress,
        block=SwinTransformerBlockV2,
        downsample_layer=PatchMergingV2,
        **kwargs,
    )


@register_model()
@handle_legacy_interface(weights=("pretrained", Swin_V2_B_Weights.IMAGENET1K_V1))
def swin_v2_b(
    *, weights: Swin_V2_B_Weights | None = None, progress: bool = True, **kwargs: Any
) -> SwinTransformer:
    """Swin-V2-B (width 128, depths [2, 2, 18, 2], heads [4, 8, 16, 32], window [8, 8]); ``weights`` a
    :class:`Swin_V2_B_Weights` member (or its name), ``kwargs`` go to :class:`SwinTransformer`."""
    weights = Swin_V2_B_Weights.verify(weights)
    return _swin_transformer(
        patch_size=[4, 4],
        embed_dim=128,
        depths=[2, 2, 18, 2],
        num_heads=[4, 8, 16, 32],
        window_size=[8, 8],
        stochastic_depth_prob=0.5,
        weights=weights,
        progress=progress,
        block=SwinTransformerBlockV2,
        downsample_layer=PatchMergingV2,
        **kwargs,
    )
