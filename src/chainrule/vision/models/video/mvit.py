"""MViT (Fan et al., 2021) and MViTv2 (Li et al., 2022): a transformer on clips whose
stages trade resolution for channels by pooling the queries (and, more strongly, the
keys and values) of multi-head attention with strided depthwise 3D convolutions. V2 adds
decomposed relative position biases, a residual connection from the pooled queries, and
the channel projection after the attention."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from .... import arange, cat, einsum, matmul, nn, repeat_interleave, tensor_split, zeros
from ...._tensor import Tensor
from ....nn import functional as F
from ...ops.misc import MLP
from ...ops.stochastic_depth import StochasticDepth
from .._api import Weights, WeightsEnum, register_model
from .._utils import _ovewrite_named_param, handle_legacy_interface
from ._utils import _KINETICS400_CATEGORIES, VideoClassification

__all__ = ["MViT", "MViT_V1_B_Weights", "mvit_v1_b", "MViT_V2_S_Weights", "mvit_v2_s"]


@dataclass
class MSBlockConfig:
    """One block's heads, channels in and out, and the pooling kernels and strides of its
    queries (``q``) and keys and values (``kv``); ``[]`` means no pooling."""

    num_heads: int
    input_channels: int
    output_channels: int
    kernel_q: list[int]
    kernel_kv: list[int]
    stride_q: list[int]
    stride_kv: list[int]


def _prod(s: Sequence[int]) -> int:
    product = 1
    for v in s:
        product *= v
    return product


def _unsqueeze(x: Tensor, target_dim: int, expand_dim: int) -> tuple[Tensor, int]:
    """``x`` with a new axis at ``expand_dim`` if it has one dimension fewer than
    ``target_dim``, and its original number of dimensions."""
    tensor_dim = x.dim()
    if tensor_dim == target_dim - 1:
        x = x.unsqueeze(expand_dim)
    elif tensor_dim != target_dim:
        raise ValueError(f"Unsupported input dimension {x.shape}")
    return x, tensor_dim


def _squeeze(x: Tensor, target_dim: int, expand_dim: int, tensor_dim: int) -> Tensor:
    """Undo :func:`_unsqueeze`."""
    if tensor_dim == target_dim - 1:
        x = x.squeeze(expand_dim)
    return x


class Pool(nn.Module):
    """Pooling of token sequences ``(B, [heads,] 1 + T*H*W, C)``: the tokens after the
    class token reshaped to ``(C, T, H, W)`` and pooled by ``pool``, the class token put
    back, then ``norm`` and ``activation`` (before the pool if ``norm_before_pool``);
    returns the tokens and the new ``(T, H, W)``."""

    def __init__(
        self,
        pool: nn.Module,
        norm: nn.Module | None,
        activation: nn.Module | None = None,
        norm_before_pool: bool = False,
    ) -> None:
        super().__init__()
        self.pool = pool
        layers = [m for m in (norm, activation) if m is not None]
        self.norm_act = nn.Sequential(*layers) if layers else None
        self.norm_before_pool = norm_before_pool

    def forward(self, x: Tensor, thw: tuple[int, int, int]) -> tuple[Tensor, tuple[int, int, int]]:
        x, tensor_dim = _unsqueeze(x, 4, 1)
        class_token, x = tensor_split(x, indices=(1,), dim=2)
        x = x.transpose(2, 3)
        B, N, C = x.shape[:3]
        x = x.reshape((B * N, C) + tuple(thw)).contiguous()
        if self.norm_before_pool and self.norm_act is not None:
            x = self.norm_act(x)
        x = self.pool(x)
        T, H, W = x.shape[2:]
        x = cat((class_token, x.reshape(B, N, C, -1).transpose(2, 3)), dim=2)
        if not self.norm_before_pool and self.norm_act is not None:
            x = self.norm_act(x)
        return _squeeze(x, 4, 1, tensor_dim), (T, H, W)


def _interpolate(embedding: Tensor, d: int) -> Tensor:
    """The rows of ``embedding`` linearly resampled to ``d`` rows."""
    if embedding.shape[0] == d:
        return embedding
    resized = F.interpolate(embedding.permute(1, 0).unsqueeze(0), size=d, mode="linear")
    return resized.squeeze(0).permute(1, 0)


def _relative_distances(q_n: int, k_n: int) -> Tensor:
    # query-key offsets along one axis, scaled to the finer of the two grids, made >= 0
    q_ratio = max(k_n / q_n, 1.0)
    k_ratio = max(q_n / k_n, 1.0)
    return arange(q_n)[:, None] * q_ratio - (arange(k_n)[None, :] + (1.0 - k_n)) * k_ratio


def _add_rel_pos(
    attn: Tensor,
    q: Tensor,
    q_thw: tuple[int, int, int],
    k_thw: tuple[int, int, int],
    rel_pos_h: Tensor,
    rel_pos_w: Tensor,
    rel_pos_t: Tensor,
) -> Tensor:
    """``attn`` plus the decomposed relative position bias between the non-class tokens:
    ``q . R_t[dt] + q . R_h[dh] + q . R_w[dw]`` for query and key offsets ``dt, dh, dw``
    (the tables resampled to the largest offsets needed); ``attn`` is changed in place."""
    q_t, q_h, q_w = q_thw
    k_t, k_h, k_w = k_thw
    Rh = _interpolate(rel_pos_h, int(2 * max(q_h, k_h) - 1))[_relative_distances(q_h, k_h).long()]
    Rw = _interpolate(rel_pos_w, int(2 * max(q_w, k_w) - 1))[_relative_distances(q_w, k_w).long()]
    Rt = _interpolate(rel_pos_t, int(2 * max(q_t, k_t) - 1))[_relative_distances(q_t, k_t).long()]
    B, n_head, _, dim = q.shape
    r_q = q[:, :, 1:].reshape(B, n_head, q_t, q_h, q_w, dim)
    rel_h_q = einsum("bythwc,hkc->bythwk", r_q, Rh)
    rel_w_q = einsum("bythwc,wkc->bythwk", r_q, Rw)
    r_q = r_q.permute(2, 0, 1, 3, 4, 5).reshape(q_t, B * n_head * q_h * q_w, dim)
    rel_q_t = matmul(r_q, Rt.transpose(1, 2)).transpose(0, 1)
    rel_q_t = rel_q_t.view(B, n_head, q_h, q_w, q_t, k_t).permute(0, 1, 4, 2, 3, 5)
    rel_pos = (
        rel_h_q[:, :, :, :, :, None, :, None]
        + rel_w_q[:, :, :, :, :, None, None, :]
        + rel_q_t[:, :, :, :, :, :, None, None]
    ).reshape(B, n_head, q_t * q_h * q_w, k_t * k_h * k_w)
    attn[:, :, 1:, 1:] += rel_pos
    return attn


def _add_shortcut(x: Tensor, shortcut: Tensor, residual_with_cls_embed: bool) -> Tensor:
    """``x += shortcut`` in place (the class token's row too only if
    ``residual_with_cls_embed``)."""
    if residual_with_cls_embed:
        x.add_(shortcut)
    else:
        x[:, :, 1:, :] += shortcut[:, :, 1:, :]
    return x


def _pooling(
    head_dim: int,
    kernel: list[int],
    stride: list[int],
    norm_layer: Callable[..., nn.Module],
) -> Pool | None:
    # a depthwise strided convolution and a norm, unless neither kernel nor stride pools
    if _prod(kernel) <= 1 and _prod(stride) <= 1:
        return None
    conv = nn.Conv3d(
        head_dim,
        head_dim,
        kernel,
        stride=stride,
        padding=[int(k // 2) for k in kernel],
        groups=head_dim,
        bias=False,
    )
    return Pool(conv, norm_layer(head_dim))


class MultiscaleAttention(nn.Module):
    """Multi-head attention over ``(B, 1 + T*H*W, embed_dim)`` tokens whose queries,
    keys and values are pooled (per head) before the scores; with ``residual_pool`` the
    pooled queries are added to the result; ``project`` maps to ``output_dim``. Returns
    the tokens and the queries' ``(T, H, W)``."""

    def __init__(
        self,
        input_size: list[int],
        embed_dim: int,
        output_dim: int,
        num_heads: int,
        kernel_q: list[int],
        kernel_kv: list[int],
        stride_q: list[int],
        stride_kv: list[int],
        residual_pool: bool,
        residual_with_cls_embed: bool,
        rel_pos_embed: bool,
        dropout: float = 0.0,
        norm_layer: Callable[..., nn.Module] = nn.LayerNorm,
    ) -> None:
        super().__init__()
        self.embed_dim = embed_dim
        self.output_dim = output_dim
        self.num_heads = num_heads
        self.head_dim = output_dim // num_heads
        self.scaler = 1.0 / math.sqrt(self.head_dim)
        self.residual_pool = residual_pool
        self.residual_with_cls_embed = residual_with_cls_embed
        self.qkv = nn.Linear(embed_dim, 3 * output_dim)
        layers: list[nn.Module] = [nn.Linear(output_dim, output_dim)]
        if dropout > 0.0:
            layers.append(nn.Dropout(dropout, inplace=True))
        self.project = nn.Sequential(*layers)
        self.pool_q = _pooling(self.head_dim, kernel_q, stride_q, norm_layer)
        self.pool_k = _pooling(self.head_dim, kernel_kv, stride_kv, norm_layer)
        self.pool_v = _pooling(self.head_dim, kernel_kv, stride_kv, norm_layer)
        self.rel_pos_h: nn.Parameter | None = None
        self.rel_pos_w: nn.Parameter | None = None
        self.rel_pos_t: nn.Parameter | None = None
        if rel_pos_embed:
            size = max(input_size[1:])
            q_size = size // stride_q[1] if len(stride_q) > 0 else size
            kv_size = size // stride_kv[1] if len(stride_kv) > 0 else size
            spatial_dim = 2 * max(q_size, kv_size) - 1
            temporal_dim = 2 * input_size[0] - 1
            self.rel_pos_h = nn.Parameter(zeros(spatial_dim, self.head_dim))
            self.rel_pos_w = nn.Parameter(zeros(spatial_dim, self.head_dim))
            self.rel_pos_t = nn.Parameter(zeros(temporal_dim, self.head_dim))
            nn.init.trunc_normal_(self.rel_pos_h, std=0.02)
            nn.init.trunc_normal_(self.rel_pos_w, std=0.02)
            nn.init.trunc_normal_(self.rel_pos_t, std=0.02)

    def forward(self, x: Tensor, thw: tuple[int, int, int]) -> tuple[Tensor, tuple[int, int, int]]:
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, self.head_dim).transpose(1, 3)
        q, k, v = qkv.unbind(dim=2)
        k_thw = thw
        if self.pool_k is not None:
            k, k_thw = self.pool_k(k, thw)
        if self.pool_v is not None:
            v = self.pool_v(v, thw)[0]
        if self.pool_q is not None:
            q, thw = self.pool_q(q, thw)
        attn = matmul(self.scaler * q, k.transpose(2, 3))
        if self.rel_pos_h is not None and self.rel_pos_w is not None and self.rel_pos_t is not None:
            attn = _add_rel_pos(attn, q, thw, k_thw, self.rel_pos_h, self.rel_pos_w, self.rel_pos_t)
        x = matmul(attn.softmax(dim=-1), v)
        if self.residual_pool:
            _add_shortcut(x, q, self.residual_with_cls_embed)
        x = x.transpose(1, 2).reshape(B, -1, self.output_dim)
        return self.project(x), thw


class MultiscaleBlock(nn.Module):
    """``x' = skip(x) + sd(attn(norm1(x)))``, then ``proj(x') + sd(mlp(norm2(x')))``:
    ``skip`` max-pools like the queries; the channel projection (when channels change)
    is taken of ``norm1(x)`` before the skip if ``proj_after_attn``, else of
    ``norm2(x')``."""

    def __init__(
        self,
        input_size: list[int],
        cnf: MSBlockConfig,
        residual_pool: bool,
        residual_with_cls_embed: bool,
        rel_pos_embed: bool,
        proj_after_attn: bool,
        dropout: float = 0.0,
        stochastic_depth_prob: float = 0.0,
        norm_layer: Callable[..., nn.Module] = nn.LayerNorm,
    ) -> None:
        super().__init__()
        self.proj_after_attn = proj_after_attn
        self.pool_skip: Pool | None = None
        if _prod(cnf.stride_q) > 1:
            kernel_skip = [s + 1 if s > 1 else s for s in cnf.stride_q]
            padding_skip = [int(k // 2) for k in kernel_skip]
            self.pool_skip = Pool(
                nn.MaxPool3d(kernel_skip, stride=cnf.stride_q, padding=padding_skip), None
            )
        attn_dim = cnf.output_channels if proj_after_attn else cnf.input_channels
        self.norm1 = norm_layer(cnf.input_channels)
        self.norm2 = norm_layer(attn_dim)
        self.needs_transposal = isinstance(self.norm1, nn.BatchNorm1d)
        self.attn = MultiscaleAttention(
            input_size,
            cnf.input_channels,
            attn_dim,
            cnf.num_heads,
            kernel_q=cnf.kernel_q,
            kernel_kv=cnf.kernel_kv,
            stride_q=cnf.stride_q,
            stride_kv=cnf.stride_kv,
            rel_pos_embed=rel_pos_embed,
            residual_pool=residual_pool,
            residual_with_cls_embed=residual_with_cls_embed,
            dropout=dropout,
            norm_layer=norm_layer,
        )
        self.mlp = MLP(
            attn_dim,
            [4 * attn_dim, cnf.output_channels],
            activation_layer=nn.GELU,
            dropout=dropout,
            inplace=None,
        )
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")
        self.project: nn.Linear | None = None
        if cnf.input_channels != cnf.output_channels:
            self.project = nn.Linear(cnf.input_channels, cnf.output_channels)

    def _norm(self, norm: nn.Module, x: Tensor) -> Tensor:
        return norm(x.transpose(1, 2)).transpose(1, 2) if self.needs_transposal else norm(x)

    def forward(self, x: Tensor, thw: tuple[int, int, int]) -> tuple[Tensor, tuple[int, int, int]]:
        x_norm1 = self._norm(self.norm1, x)
        x_attn, thw_new = self.attn(x_norm1, thw)
        if self.project is not None and self.proj_after_attn:
            x = self.project(x_norm1)
        x_skip = x if self.pool_skip is None else self.pool_skip(x, thw)[0]
        x = x_skip + self.stochastic_depth(x_attn)
        x_norm2 = self._norm(self.norm2, x)
        x_proj = x if self.project is None or self.proj_after_attn else self.project(x_norm2)
        return x_proj + self.stochastic_depth(self.mlp(x_norm2)), thw_new


class PositionalEncoding(nn.Module):
    """A learnt class token prepended to the tokens; unless the attention uses relative
    positions, plus learnt absolute embeddings (temporal + spatial, and one for the class
    token)."""

    def __init__(
        self,
        embed_size: int,
        spatial_size: tuple[int, int],
        temporal_size: int,
        rel_pos_embed: bool,
    ) -> None:
        super().__init__()
        self.spatial_size = spatial_size
        self.temporal_size = temporal_size
        self.class_token = nn.Parameter(zeros(embed_size))
        self.spatial_pos: nn.Parameter | None = None
        self.temporal_pos: nn.Parameter | None = None
        self.class_pos: nn.Parameter | None = None
        if not rel_pos_embed:
            self.spatial_pos = nn.Parameter(zeros(spatial_size[0] * spatial_size[1], embed_size))
            self.temporal_pos = nn.Parameter(zeros(temporal_size, embed_size))
            self.class_pos = nn.Parameter(zeros(embed_size))

    def forward(self, x: Tensor) -> Tensor:
        class_token = self.class_token.expand(x.size(0), -1).unsqueeze(1)
        x = cat((class_token, x), dim=1)
        if (
            self.spatial_pos is not None
            and self.temporal_pos is not None
            and self.class_pos is not None
        ):
            hw_size, embed_size = self.spatial_pos.shape
            pos = repeat_interleave(self.temporal_pos, hw_size, dim=0)
            pos = pos + self.spatial_pos.unsqueeze(0).expand(self.temporal_size, -1, -1).reshape(
                -1, embed_size
            )
            pos = cat((self.class_pos.unsqueeze(0), pos), dim=0).unsqueeze(0)
            x = x + pos
        return x


class MViT(nn.Module):
    """``head(norm(blocks(pos_encoding(conv_proj(x))))[:, 0])`` on clips
    ``(B, 3, temporal_size, *spatial_size)`` (or images ``(B, 3, H, W)``): a strided 3D
    convolution into tokens, a class token, the multiscale blocks of ``block_setting``
    (stochastic depth rising linearly to ``stochastic_depth_prob``), and a linear head on
    the class token."""

    def __init__(
        self,
        spatial_size: tuple[int, int],
        temporal_size: int,
        block_setting: Sequence[MSBlockConfig],
        residual_pool: bool,
        residual_with_cls_embed: bool,
        rel_pos_embed: bool,
        proj_after_attn: bool,
        dropout: float = 0.5,
        attention_dropout: float = 0.0,
        stochastic_depth_prob: float = 0.0,
        num_classes: int = 400,
        block: Callable[..., nn.Module] | None = None,
        norm_layer: Callable[..., nn.Module] | None = None,
        patch_embed_kernel: tuple[int, int, int] = (3, 7, 7),
        patch_embed_stride: tuple[int, int, int] = (2, 4, 4),
        patch_embed_padding: tuple[int, int, int] = (1, 3, 3),
    ) -> None:
        super().__init__()
        total_stage_blocks = len(block_setting)
        if total_stage_blocks == 0:
            raise ValueError("The configuration parameter can't be empty.")
        if block is None:
            block = MultiscaleBlock
        if norm_layer is None:
            norm_layer = partial(nn.LayerNorm, eps=1e-6)
        self.conv_proj = nn.Conv3d(
            in_channels=3,
            out_channels=block_setting[0].input_channels,
            kernel_size=patch_embed_kernel,
            stride=patch_embed_stride,
            padding=patch_embed_padding,
        )
        input_size = [
            size // stride
            for size, stride in zip((temporal_size,) + tuple(spatial_size), self.conv_proj.stride)
        ]
        self.pos_encoding = PositionalEncoding(
            embed_size=block_setting[0].input_channels,
            spatial_size=(input_size[1], input_size[2]),
            temporal_size=input_size[0],
            rel_pos_embed=rel_pos_embed,
        )
        self.blocks = nn.ModuleList()
        for stage_block_id, cnf in enumerate(block_setting):
            sd_prob = stochastic_depth_prob * stage_block_id / (total_stage_blocks - 1.0)
            self.blocks.append(
                block(
                    input_size=input_size,
                    cnf=cnf,
                    residual_pool=residual_pool,
                    residual_with_cls_embed=residual_with_cls_embed,
                    rel_pos_embed=rel_pos_embed,
                    proj_after_attn=proj_after_attn,
                    dropout=attention_dropout,
                    stochastic_depth_prob=sd_prob,
                    norm_layer=norm_layer,
                )
            )
            if len(cnf.stride_q) > 0:
                input_size = [size // stride for size, stride in zip(input_size, cnf.stride_q)]
        self.norm = norm_layer(block_setting[-1].output_channels)
        self.head = nn.Sequential(
            nn.Dropout(dropout, inplace=True),
            nn.Linear(block_setting[-1].output_channels, num_classes),
        )
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.constant_(m.bias, 0.0)
            elif isinstance(m, nn.LayerNorm):
                if m.weight is not None:
                    nn.init.constant_(m.weight, 1.0)
                if m.bias is not None:
                    nn.init.constant_(m.bias, 0.0)
            elif isinstance(m, PositionalEncoding):
                for weights in m.parameters():
                    nn.init.trunc_normal_(weights, std=0.02)

    def forward(self, x: Tensor) -> Tensor:
        x = _unsqueeze(x, 5, 2)[0]
        x = self.conv_proj(x).flatten(2).transpose(1, 2)
        x = self.pos_encoding(x)
        thw = (self.pos_encoding.temporal_size,) + tuple(self.pos_encoding.spatial_size)
        for block in self.blocks:
            x, thw = block(x, thw)
        return self.head(self.norm(x)[:, 0])


def _mvit(
    block_setting: list[MSBlockConfig],
    stochastic_depth_prob: float,
    weights: WeightsEnum | None,
    progress: bool,
    **kwargs: Any,
) -> MViT:
    if weights is not None:
        _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
        assert weights.meta["min_size"][0] == weights.meta["min_size"][1]
        _ovewrite_named_param(kwargs, "spatial_size", weights.meta["min_size"])
        _ovewrite_named_param(kwargs, "temporal_size", weights.meta["min_temporal_size"])
    model = MViT(
        spatial_size=kwargs.pop("spatial_size", (224, 224)),
        temporal_size=kwargs.pop("temporal_size", 16),
        block_setting=block_setting,
        residual_pool=kwargs.pop("residual_pool", False),
        residual_with_cls_embed=kwargs.pop("residual_with_cls_embed", True),
        rel_pos_embed=kwargs.pop("rel_pos_embed", False),
        proj_after_attn=kwargs.pop("proj_after_attn", False),
        stochastic_depth_prob=stochastic_depth_prob,
        **kwargs,
    )
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


def _mvit_weights(
    url: str, recipe: str, num_params: int, acc1: float, acc5: float, ops: float, size: float
) -> Weights:
    return Weights(
        url=url,
        transforms=partial(
            VideoClassification,
            crop_size=(224, 224),
            resize_size=(256,),
            mean=(0.45, 0.45, 0.45),
            std=(0.225, 0.225, 0.225),
        ),
        meta={
            "min_size": (224, 224),
            "min_temporal_size": 16,
            "categories": _KINETICS400_CATEGORIES,
            "recipe": recipe,
            "_docs": (
                "The weights were ported from the paper. The accuracies are estimated on "
                "video-level with parameters `frame_rate=7.5`, `clips_per_video=5`, and "
                "`clip_len=16`"
            ),
            "num_params": num_params,
            "_metrics": {"Kinetics-400": {"acc@1": acc1, "acc@5": acc5}},
            "_ops": ops,
            "_file_size": size,
        },
    )


class MViT_V1_B_Weights(WeightsEnum):
    KINETICS400_V1 = _mvit_weights(
        "https://download.pytorch.org/models/mvit_v1_b-dbeb1030.pth",
        "https://github.com/facebookresearch/pytorchvideo/blob/main/docs/source/model_zoo.md",
        36610672,
        78.477,
        93.582,
        70.599,
        139.764,
    )
    DEFAULT = KINETICS400_V1


class MViT_V2_S_Weights(WeightsEnum):
    KINETICS400_V1 = _mvit_weights(
        "https://download.pytorch.org/models/mvit_v2_s-ae3be167.pth",
        "https://github.com/facebookresearch/SlowFast/blob/main/MODEL_ZOO.md",
        34537744,
        80.757,
        94.665,
        64.224,
        131.884,
    )
    DEFAULT = KINETICS400_V1


_HEADS = [1, 2, 2, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 8, 8]
_STRIDE_KV = [[1, 8, 8], [1, 4, 4], [1, 4, 4]] + [[1, 2, 2]] * 11 + [[1, 1, 1]] * 2


def _block_setting(
    input_channels: list[int],
    output_channels: list[int],
    kernel_q: list[list[int]],
    stride_q: list[list[int]],
) -> list[MSBlockConfig]:
    # the 16 blocks of both models: 3x3x3 key/value kernels, keys and values pooled to a
    # 7x7 grid (queries halve the grid at blocks 1, 3 and 14)
    return [
        MSBlockConfig(
            num_heads=_HEADS[i],
            input_channels=input_channels[i],
            output_channels=output_channels[i],
            kernel_q=kernel_q[i],
            kernel_kv=[3, 3, 3],
            stride_q=stride_q[i],
            stride_kv=_STRIDE_KV[i],
        )
        for i in range(16)
    ]


@register_model()
@handle_legacy_interface(weights=("pretrained", MViT_V1_B_Weights.KINETICS400_V1))
def mvit_v1_b(
    *, weights: MViT_V1_B_Weights | None = None, progress: bool = True, **kwargs: Any
) -> MViT:
    """MViT-v1-B for 16 frames of 224x224: absolute position embeddings, queries pooled
    only where the grid halves."""
    weights = MViT_V1_B_Weights.verify(weights)
    pooled = {1, 3, 14}
    block_setting = _block_setting(
        [96, 192, 192] + [384] * 11 + [768, 768],
        [192, 192] + [384] * 11 + [768, 768, 768],
        [[3, 3, 3] if i in pooled else [] for i in range(16)],
        [[1, 2, 2] if i in pooled else [] for i in range(16)],
    )
    return _mvit(
        spatial_size=(224, 224),
        temporal_size=16,
        block_setting=block_setting,
        residual_pool=False,
        residual_with_cls_embed=False,
        stochastic_depth_prob=kwargs.pop("stochastic_depth_prob", 0.2),
        weights=weights,
        progress=progress,
        **kwargs,
    )


@register_model()
@handle_legacy_interface(weights=("pretrained", MViT_V2_S_Weights.KINETICS400_V1))
def mvit_v2_s(
    *, weights: MViT_V2_S_Weights | None = None, progress: bool = True, **kwargs: Any
) -> MViT:
    """MViT-v2-S for 16 frames of 224x224: relative position biases, residual pooling,
    every query pooled, channels projected after the attention."""
    weights = MViT_V2_S_Weights.verify(weights)
    pooled = {1, 3, 14}
    block_setting = _block_setting(
        [96, 96, 192, 192] + [384] * 11 + [768],
        [96, 192, 192] + [384] * 11 + [768, 768],
        [[3, 3, 3]] * 16,
        [[1, 2, 2] if i in pooled else [1, 1, 1] for i in range(16)],
    )
    return _mvit(
        spatial_size=(224, 224),
        temporal_size=16,
        block_setting=block_setting,
        residual_pool=True,
        residual_with_cls_embed=False,
        rel_pos_embed=True,
        proj_after_attn=True,
        stochastic_depth_prob=kwargs.pop("stochastic_depth_prob", 0.2),
        weights=weights,
        progress=progress,
        **kwargs,
    )
