"""Video Swin Transformer (Liu et al., 2021): the Swin Transformer on clips, with 3D
patches (2x4x4), self-attention inside 3D windows (8x7x7) shifted by half a window every
other block, a learnt relative position bias over 3D offsets, and 2x2 spatial patch
merging between stages."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from .... import arange, flatten, meshgrid, nn, roll, stack, zeros
from ...._tensor import Tensor
from ....nn import functional as F
from .._api import Weights, WeightsEnum, register_model
from .._utils import _ovewrite_named_param, handle_legacy_interface
from ..swin_transformer import PatchMerging, SwinTransformerBlock
from ._utils import _KINETICS400_CATEGORIES, VideoClassification

__all__ = [
    "SwinTransformer3d",
    "Swin3D_T_Weights",
    "Swin3D_S_Weights",
    "Swin3D_B_Weights",
    "swin3d_t",
    "swin3d_s",
    "swin3d_b",
]


def _get_window_and_shift_size(
    shift_size: list[int], size_dhw: list[int], window_size: list[int]
) -> tuple[list[int], list[int]]:
    """The window shrunk to the input along each axis it covers whole, and no shift there
    (``window_size`` and ``shift_size`` are changed in place)."""
    for i in range(3):
        if size_dhw[i] <= window_size[i]:
            window_size[i] = size_dhw[i]
            shift_size[i] = 0
    return window_size, shift_size


def _get_relative_position_bias(
    relative_position_bias_table: Tensor, relative_position_index: Tensor, window_size: list[int]
) -> Tensor:
    """The ``(1, heads, N, N)`` bias between the ``N = wd * wh * ww`` positions of a
    window, read from the table through the first ``N x N`` block of the index."""
    window_vol = window_size[0] * window_size[1] * window_size[2]
    index = relative_position_index[:window_vol, :window_vol].flatten()
    bias = relative_position_bias_table[index].view(window_vol, window_vol, -1)
    return bias.permute(2, 0, 1).contiguous().unsqueeze(0)


def _compute_pad_size_3d(
    size_dhw: tuple[int, int, int], patch_size: tuple[int, int, int]
) -> tuple[int, int, int]:
    """The padding that makes each of ``size_dhw`` a multiple of ``patch_size``."""
    pad = [(patch_size[i] - size_dhw[i] % patch_size[i]) % patch_size[i] for i in range(3)]
    return pad[0], pad[1], pad[2]


def _compute_attention_mask_3d(
    x: Tensor,
    size_dhw: tuple[int, int, int],
    window_size: tuple[int, int, int],
    shift_size: tuple[int, int, int],
) -> Tensor:
    """``(num_windows, N, N)``: 0 between positions of the same region of the shifted
    clip, -100 across regions (which the cyclic shift brought next to each other)."""
    attn_mask = x.new_zeros(size_dhw)
    num_windows = (
        (size_dhw[0] // window_size[0])
        * (size_dhw[1] // window_size[1])
        * (size_dhw[2] // window_size[2])
    )
    slices = [
        ((0, -window_size[i]), (-window_size[i], -shift_size[i]), (-shift_size[i], None))
        for i in range(3)
    ]
    count = 0
    for d in slices[0]:
        for h in slices[1]:
            for w in slices[2]:
                attn_mask[d[0] : d[1], h[0] : h[1], w[0] : w[1]] = count
                count += 1
    attn_mask = attn_mask.view(
        size_dhw[0] // window_size[0],
        window_size[0],
        size_dhw[1] // window_size[1],
        window_size[1],
        size_dhw[2] // window_size[2],
        window_size[2],
    )
    attn_mask = attn_mask.permute(0, 2, 4, 1, 3, 5).reshape(
        num_windows, window_size[0] * window_size[1] * window_size[2]
    )
    attn_mask = attn_mask.unsqueeze(1) - attn_mask.unsqueeze(2)
    return attn_mask.masked_fill(attn_mask != 0, -100.0).masked_fill(attn_mask == 0, 0.0)


def shifted_window_attention_3d(
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
    training: bool = True,
) -> Tensor:
    """Multi-head self-attention of ``(B, T, H, W, C)`` within windows of ``window_size``
    (the clip zero-padded to whole windows and cyclically shifted by ``-shift_size``,
    attention across the shift's seams masked), with ``relative_position_bias`` added to
    the scaled scores; the result is shifted back and cropped to ``(B, T, H, W, C)``."""
    b, t, h, w, c = input.shape
    pad_size = _compute_pad_size_3d((t, h, w), tuple(window_size))
    x = F.pad(input, (0, 0, 0, pad_size[2], 0, pad_size[1], 0, pad_size[0]))
    _, tp, hp, wp, _ = x.shape
    padded_size = (tp, hp, wp)
    shifted = sum(shift_size) > 0
    if shifted:
        x = roll(x, shifts=(-shift_size[0], -shift_size[1], -shift_size[2]), dims=(1, 2, 3))
    wd, wh, ww = window_size
    num_windows = (tp // wd) * (hp // wh) * (wp // ww)
    x = x.view(b, tp // wd, wd, hp // wh, wh, wp // ww, ww, c)
    x = x.permute(0, 1, 3, 5, 2, 4, 6, 7).reshape(b * num_windows, wd * wh * ww, c)
    n = x.size(1)
    qkv = F.linear(x, qkv_weight, qkv_bias)
    qkv = qkv.reshape(x.size(0), n, 3, num_heads, c // num_heads).permute(2, 0, 3, 1, 4)
    q, k, v = qkv[0], qkv[1], qkv[2]
    q = q * (c // num_heads) ** -0.5
    attn = q.matmul(k.transpose(-2, -1)) + relative_position_bias
    if shifted:
        attn_mask = _compute_attention_mask_3d(
            x, padded_size, (wd, wh, ww), (shift_size[0], shift_size[1], shift_size[2])
        )
        attn = attn.view(x.size(0) // num_windows, num_windows, num_heads, n, n)
        attn = (attn + attn_mask.unsqueeze(1)).view(-1, num_heads, n, n)
    attn = F.softmax(attn, dim=-1)
    attn = F.dropout(attn, p=attention_dropout, training=training)
    x = attn.matmul(v).transpose(1, 2).reshape(x.size(0), n, c)
    x = F.linear(x, proj_weight, proj_bias)
    x = F.dropout(x, p=dropout, training=training)
    x = x.view(b, tp // wd, hp // wh, wp // ww, wd, wh, ww, c)
    x = x.permute(0, 1, 4, 2, 5, 3, 6, 7).reshape(b, tp, hp, wp, c)
    if shifted:
        x = roll(x, shifts=(shift_size[0], shift_size[1], shift_size[2]), dims=(1, 2, 3))
    return x[:, :t, :h, :w, :].contiguous()


class ShiftedWindowAttention3d(nn.Module):
    """:func:`shifted_window_attention_3d` with its ``qkv`` and ``proj`` linear layers and
    a learnt table of relative position biases over 3D offsets (~ N(0, 0.02) truncated);
    windows larger than the clip shrink to it."""

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
        if len(window_size) != 3 or len(shift_size) != 3:
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
        wd, wh, ww = self.window_size
        self.relative_position_bias_table = nn.Parameter(
            zeros((2 * wd - 1) * (2 * wh - 1) * (2 * ww - 1), self.num_heads)
        )
        nn.init.trunc_normal_(self.relative_position_bias_table, std=0.02)

    def define_relative_position_index(self) -> None:
        """Buffer ``(N, N)``: for each pair of window positions, the table row of their
        3D offset."""
        wd, wh, ww = self.window_size
        coords = stack(meshgrid(arange(wd), arange(wh), arange(ww), indexing="ij"))
        coords_flatten = flatten(coords, 1)
        relative = (coords_flatten[:, :, None] - coords_flatten[:, None, :]).permute(1, 2, 0)
        dd = relative[:, :, 0] + (wd - 1)
        dh = relative[:, :, 1] + (wh - 1)
        dw = relative[:, :, 2] + (ww - 1)
        index = dd * ((2 * wh - 1) * (2 * ww - 1)) + dh * (2 * ww - 1) + dw
        self.register_buffer("relative_position_index", index.contiguous())

    def get_relative_position_bias(self, window_size: list[int]) -> Tensor:
        return _get_relative_position_bias(
            self.relative_position_bias_table, self.relative_position_index, window_size
        )

    def forward(self, x: Tensor) -> Tensor:
        _, t, h, w, _ = x.shape
        window_size, shift_size = _get_window_and_shift_size(
            self.shift_size.copy(), [t, h, w], self.window_size.copy()
        )
        return shifted_window_attention_3d(
            x,
            self.qkv.weight,
            self.proj.weight,
            self.get_relative_position_bias(window_size),
            window_size,
            self.num_heads,
            shift_size=shift_size,
            attention_dropout=self.attention_dropout,
            dropout=self.dropout,
            qkv_bias=self.qkv.bias,
            proj_bias=self.proj.bias,
            training=self.training,
        )


class PatchEmbed3d(nn.Module):
    """``(B, C, T, H, W) -> (B, T', H', W', embed_dim)``: the clip zero-padded to whole
    patches, each patch embedded linearly (a strided convolution), then ``norm``."""

    def __init__(
        self,
        patch_size: list[int],
        in_channels: int = 3,
        embed_dim: int = 96,
        norm_layer: Callable[..., nn.Module] | None = None,
    ) -> None:
        super().__init__()
        self.tuple_patch_size = (patch_size[0], patch_size[1], patch_size[2])
        self.proj = nn.Conv3d(
            in_channels,
            embed_dim,
            kernel_size=self.tuple_patch_size,
            stride=self.tuple_patch_size,
        )
        self.norm = norm_layer(embed_dim) if norm_layer is not None else nn.Identity()

    def forward(self, x: Tensor) -> Tensor:
        _, _, t, h, w = x.shape
        pad = _compute_pad_size_3d((t, h, w), self.tuple_patch_size)
        x = F.pad(x, (0, pad[2], 0, pad[1], 0, pad[0]))
        return self.norm(self.proj(x).permute(0, 2, 3, 4, 1))


class SwinTransformer3d(nn.Module):
    """``head(avgpool(norm(features(patch_embed(x)))))`` on clips ``(B, 3, T, H, W)``:
    stages of ``depths[i]`` Swin blocks (``embed_dim * 2**i`` channels, ``num_heads[i]``
    heads, windows shifted every other block, stochastic depth rising linearly to
    ``stochastic_depth_prob``), joined by patch merging."""

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
        num_classes: int = 400,
        norm_layer: Callable[..., nn.Module] | None = None,
        block: Callable[..., nn.Module] | None = None,
        downsample_layer: Callable[..., nn.Module] = PatchMerging,
        patch_embed: Callable[..., nn.Module] | None = None,
    ) -> None:
        super().__init__()
        self.num_classes = num_classes
        if block is None:
            block = partial(SwinTransformerBlock, attn_layer=ShiftedWindowAttention3d)
        if norm_layer is None:
            norm_layer = partial(nn.LayerNorm, eps=1e-5)
        if patch_embed is None:
            patch_embed = PatchEmbed3d
        self.patch_embed = patch_embed(
            patch_size=patch_size, embed_dim=embed_dim, norm_layer=norm_layer
        )
        self.pos_drop = nn.Dropout(p=dropout)
        layers: list[nn.Module] = []
        total_blocks = sum(depths)
        block_id = 0
        for i_stage, depth in enumerate(depths):
            dim = embed_dim * 2**i_stage
            stage = []
            for i_layer in range(depth):
                stage.append(
                    block(
                        dim,
                        num_heads[i_stage],
                        window_size=window_size,
                        shift_size=[0 if i_layer % 2 == 0 else w // 2 for w in window_size],
                        mlp_ratio=mlp_ratio,
                        dropout=dropout,
                        attention_dropout=attention_dropout,
                        stochastic_depth_prob=stochastic_depth_prob
                        * float(block_id)
                        / (total_blocks - 1),
                        norm_layer=norm_layer,
                    )
                )
                block_id += 1
            layers.append(nn.Sequential(*stage))
            if i_stage < len(depths) - 1:
                layers.append(downsample_layer(dim, norm_layer))
        self.features = nn.Sequential(*layers)
        self.num_features = embed_dim * 2 ** (len(depths) - 1)
        self.norm = norm_layer(self.num_features)
        self.avgpool = nn.AdaptiveAvgPool3d(1)
        self.head = nn.Linear(self.num_features, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def forward(self, x: Tensor) -> Tensor:
        x = self.pos_drop(self.patch_embed(x))
        x = self.norm(self.features(x)).permute(0, 4, 1, 2, 3)
        return self.head(flatten(self.avgpool(x), 1))


def _swin_transformer3d(
    patch_size: list[int],
    embed_dim: int,
    depths: list[int],
    num_heads: list[int],
    window_size: list[int],
    stochastic_depth_prob: float,
    weights: WeightsEnum | None,
    progress: bool,
    **kwargs: Any,
) -> SwinTransformer3d:
    if weights is not None:
        _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
    model = SwinTransformer3d(
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


_COMMON_META = {
    "categories": _KINETICS400_CATEGORIES,
    "min_size": (1, 1),
    "min_temporal_size": 1,
}

_DOCS = (
    "The weights were ported from the paper. The accuracies are estimated on video-level with "
    "parameters `frame_rate=15`, `clips_per_video=12`, and `clip_len=32`"
)


def _swin3d_weights(
    url: str, num_params: int, acc1: float, acc5: float, ops: float, size: float
) -> Weights:
    return Weights(
        url=url,
        transforms=partial(
            VideoClassification,
            crop_size=(224, 224),
            resize_size=(256,),
            mean=(0.4850, 0.4560, 0.4060),
            std=(0.2290, 0.2240, 0.2250),
        ),
        meta={
            **_COMMON_META,
            "recipe": "https://github.com/SwinTransformer/Video-Swin-Transformer#kinetics-400",
            "_docs": _DOCS,
            "num_params": num_params,
            "_metrics": {"Kinetics-400": {"acc@1": acc1, "acc@5": acc5}},
            "_ops": ops,
            "_file_size": size,
        },
    )


class Swin3D_T_Weights(WeightsEnum):
    KINETICS400_V1 = _swin3d_weights(
        "https://download.pytorch.org/models/swin3d_t-7615ae03.pth",
        28158070,
        77.715,
        93.519,
        43.882,
        121.543,
    )
    DEFAULT = KINETICS400_V1


class Swin3D_S_Weights(WeightsEnum):
    KINETICS400_V1 = _swin3d_weights(
        "https://download.pytorch.org/models/swin3d_s-da41c237.pth",
        49816678,
        79.521,
        94.158,
        82.841,
        218.288,
    )
    DEFAULT = KINETICS400_V1


class Swin3D_B_Weights(WeightsEnum):
    KINETICS400_V1 = _swin3d_weights(
        "https://download.pytorch.org/models/swin3d_b_1k-24f7c7c6.pth",
        88048984,
        79.427,
        94.386,
        140.667,
        364.134,
    )
    KINETICS400_IMAGENET22K_V1 = _swin3d_weights(
        "https://download.pytorch.org/models/swin3d_b_22k-7c6ae6fa.pth",
        88048984,
        81.643,
        95.574,
        140.667,
        364.134,
    )
    DEFAULT = KINETICS400_V1


@register_model()
@handle_legacy_interface(weights=("pretrained", Swin3D_T_Weights.KINETICS400_V1))
def swin3d_t(
    *, weights: Swin3D_T_Weights | None = None, progress: bool = True, **kwargs: Any
) -> SwinTransformer3d:
    """Swin3D-T: 96 channels, depths (2, 2, 6, 2), 8x7x7 windows."""
    weights = Swin3D_T_Weights.verify(weights)
    return _swin_transformer3d(
        [2, 4, 4], 96, [2, 2, 6, 2], [3, 6, 12, 24], [8, 7, 7], 0.1, weights, progress, **kwargs
    )


@register_model()
@handle_legacy_interface(weights=("pretrained", Swin3D_S_Weights.KINETICS400_V1))
def swin3d_s(
    *, weights: Swin3D_S_Weights | None = None, progress: bool = True, **kwargs: Any
) -> SwinTransformer3d:
    """Swin3D-S: 96 channels, depths (2, 2, 18, 2), 8x7x7 windows."""
    weights = Swin3D_S_Weights.verify(weights)
    return _swin_transformer3d(
        [2, 4, 4], 96, [2, 2, 18, 2], [3, 6, 12, 24], [8, 7, 7], 0.1, weights, progress, **kwargs
    )


@register_model()
@handle_legacy_interface(weights=("pretrained", Swin3D_B_Weights.KINETICS400_V1))
def swin3d_b(
    *, weights: Swin3D_B_Weights | None = None, progress: bool = True, **kwargs: Any
) -> SwinTransformer3d:
    """Swin3D-B: 128 channels, depths (2, 2, 18, 2), 8x7x7 windows."""
    weights = Swin3D_B_Weights.verify(weights)
    return _swin_transformer3d(
        [2, 4, 4], 128, [2, 2, 18, 2], [4, 8, 16, 32], [8, 7, 7], 0.1, weights, progress, **kwargs
    )
