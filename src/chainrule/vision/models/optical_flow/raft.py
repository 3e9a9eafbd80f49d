"""RAFT (Teed and Deng, 2020, "Recurrent All-Pairs Field Transforms for Optical Flow"): a
feature encoder maps both images to stride-8 features whose all-pairs dot products form a
4-D correlation volume (pooled into a pyramid); a context encoder gives the initial hidden
state and context of a convolutional GRU, which repeatedly looks up the correlations
around the current flow estimate and predicts an update of the flow. Each update's flow
is upsampled to full resolution (convexly, with a learned mask, or bilinearly)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import chainrule

from .... import nn
from ...._tensor import Tensor
from ....nn import functional as F
from ...ops.misc import Conv2dNormActivation
from ...transforms._presets import OpticalFlow
from .._api import Weights, WeightsEnum, register_model
from .._utils import handle_legacy_interface
from ._utils import grid_sample, make_coords_grid, upsample_flow

__all__ = (
    "RAFT",
    "raft_large",
    "raft_small",
    "Raft_Large_Weights",
    "Raft_Small_Weights",
)


class ResidualBlock(nn.Module):
    """``relu(downsample(x) + convnormrelu2(convnormrelu1(x)))`` with two 3x3
    conv-norm-ReLU layers (the first strided); the shortcut is a strided 1x1 conv-norm
    when ``stride > 1`` or ``always_project``. Convolutions keep their biases."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        *,
        norm_layer: Callable[..., nn.Module] | None,
        stride: int = 1,
        always_project: bool = False,
    ) -> None:
        super().__init__()
        self.convnormrelu1 = Conv2dNormActivation(
            in_channels,
            out_channels,
            norm_layer=norm_layer,
            kernel_size=3,
            stride=stride,
            bias=True,
        )
        self.convnormrelu2 = Conv2dNormActivation(
            out_channels, out_channels, norm_layer=norm_layer, kernel_size=3, bias=True
        )
        self.downsample: nn.Module
        if stride == 1 and not always_project:
            self.downsample = nn.Identity()
        else:
            self.downsample = Conv2dNormActivation(
                in_channels,
                out_channels,
                norm_layer=norm_layer,
                kernel_size=1,
                stride=stride,
                bias=True,
                activation_layer=None,
            )
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x: Tensor) -> Tensor:
        y = self.convnormrelu2(self.convnormrelu1(x))
        return self.relu(self.downsample(x) + y)


class BottleneckBlock(nn.Module):
    """``relu(downsample(x) + ...)`` through 1x1 (to ``out_channels // 4``), 3x3 (strided)
    and 1x1 (to ``out_channels``) conv-norm-ReLU layers; the shortcut is a strided 1x1
    conv-norm when ``stride > 1``. Convolutions keep their biases."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        *,
        norm_layer: Callable[..., nn.Module] | None,
        stride: int = 1,
    ) -> None:
        super().__init__()
        width = out_channels // 4
        self.convnormrelu1 = Conv2dNormActivation(
            in_channels, width, norm_layer=norm_layer, kernel_size=1, bias=True
        )
        self.convnormrelu2 = Conv2dNormActivation(
            width, width, norm_layer=norm_layer, kernel_size=3, stride=stride, bias=True
        )
        self.convnormrelu3 = Conv2dNormActivation(
            width, out_channels, norm_layer=norm_layer, kernel_size=1, bias=True
        )
        self.relu = nn.ReLU(inplace=True)
        self.downsample: nn.Module
        if stride == 1:
            self.downsample = nn.Identity()
        else:
            self.downsample = Conv2dNormActivation(
                in_channels,
                out_channels,
                norm_layer=norm_layer,
                kernel_size=1,
                stride=stride,
                bias=True,
                activation_layer=None,
            )

    def forward(self, x: Tensor) -> Tensor:
        y = self.convnormrelu3(self.convnormrelu2(self.convnormrelu1(x)))
        return self.relu(self.downsample(x) + y)


class FeatureEncoder(nn.Module):
    """A 7x7 conv-norm-ReLU stem (stride ``strides[0]``), three stages of two ``block``s
    (the first of stage ``i`` with stride ``strides[i]``) and a 1x1 convolution to
    ``layers[4]`` channels. Used for both the matching features and the context; RAFT
    needs it to downsample by 8. Convolution weights start Kaiming-normal (fan_out)."""

    def __init__(
        self,
        *,
        block: type[ResidualBlock | BottleneckBlock] = ResidualBlock,
        layers: tuple[int, ...] = (64, 64, 96, 128, 256),
        strides: tuple[int, ...] = (2, 1, 2, 2),
        norm_layer: Callable[..., nn.Module] | None = nn.BatchNorm2d,
    ) -> None:
        super().__init__()
        if len(layers) != 5:
            raise ValueError(f"The expected number of layers is 5, instead got {len(layers)}")
        self.convnormrelu = Conv2dNormActivation(
            3, layers[0], norm_layer=norm_layer, kernel_size=7, stride=strides[0], bias=True
        )
        self.layer1 = self._make_2_blocks(block, layers[0], layers[1], norm_layer, strides[1])
        self.layer2 = self._make_2_blocks(block, layers[1], layers[2], norm_layer, strides[2])
        self.layer3 = self._make_2_blocks(block, layers[2], layers[3], norm_layer, strides[3])
        self.conv = nn.Conv2d(layers[3], layers[4], kernel_size=1)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.InstanceNorm2d, nn.GroupNorm)):
                if m.weight is not None:
                    nn.init.constant_(m.weight, 1)
                if m.bias is not None:
                    nn.init.constant_(m.bias, 0)
        # only the stride-2 steps count (torchvision's rule)
        self.output_dim = layers[-1]
        self.downsample_factor = 2 ** sum(1 for s in strides[:4] if s == 2)

    @staticmethod
    def _make_2_blocks(
        block: type[ResidualBlock | BottleneckBlock],
        in_channels: int,
        out_channels: int,
        norm_layer: Callable[..., nn.Module] | None,
        first_stride: int,
    ) -> nn.Sequential:
        return nn.Sequential(
            block(in_channels, out_channels, norm_layer=norm_layer, stride=first_stride),
            block(out_channels, out_channels, norm_layer=norm_layer, stride=1),
        )

    def forward(self, x: Tensor) -> Tensor:
        x = self.convnormrelu(x)
        x = self.layer3(self.layer2(self.layer1(x)))
        return self.conv(x)


class MotionEncoder(nn.Module):
    """Encodes the correlation features (1x1 then, with two ``corr_layers``, 3x3
    conv-ReLU) and the flow (7x7 and 3x3 conv-ReLU), fuses both with a 3x3 conv-ReLU to
    ``out_channels - 2`` channels and appends the flow itself."""

    def __init__(
        self,
        *,
        in_channels_corr: int,
        corr_layers: tuple[int, ...] = (256, 192),
        flow_layers: tuple[int, ...] = (128, 64),
        out_channels: int = 128,
    ) -> None:
        super().__init__()
        if len(flow_layers) != 2:
            raise ValueError(
                f"The expected number of flow_layers is 2, instead got {len(flow_layers)}"
            )
        if len(corr_layers) not in (1, 2):
            raise ValueError(
                f"The number of corr_layers should be 1 or 2, instead got {len(corr_layers)}"
            )
        self.convcorr1 = Conv2dNormActivation(
            in_channels_corr, corr_layers[0], norm_layer=None, kernel_size=1
        )
        self.convcorr2: nn.Module
        if len(corr_layers) == 2:
            self.convcorr2 = Conv2dNormActivation(
                corr_layers[0], corr_layers[1], norm_layer=None, kernel_size=3
            )
        else:
            self.convcorr2 = nn.Identity()
        self.convflow1 = Conv2dNormActivation(2, flow_layers[0], norm_layer=None, kernel_size=7)
        self.convflow2 = Conv2dNormActivation(
            flow_layers[0], flow_layers[1], norm_layer=None, kernel_size=3
        )
        # the flow is appended to the output, hence the 2 fewer channels here
        self.conv = Conv2dNormActivation(
            corr_layers[-1] + flow_layers[-1], out_channels - 2, norm_layer=None, kernel_size=3
        )
        self.out_channels = out_channels

    def forward(self, flow: Tensor, corr_features: Tensor) -> Tensor:
        corr = self.convcorr2(self.convcorr1(corr_features))
        flow_features = self.convflow2(self.convflow1(flow))
        motion = self.conv(chainrule.cat([corr, flow_features], dim=1))
        return chainrule.cat([motion, flow], dim=1)


class ConvGRU(nn.Module):
    """A convolutional GRU cell: with ``hx = [h, x]``, ``z = sigmoid(convz(hx))``,
    ``r = sigmoid(convr(hx))``, ``q = tanh(convq([r * h, x]))``, and the new state
    ``(1 - z) * h + z * q``."""

    def __init__(
        self,
        *,
        input_size: int,
        hidden_size: int,
        kernel_size: int | tuple[int, int],
        padding: int | tuple[int, int],
    ) -> None:
        super().__init__()
        channels = hidden_size + input_size
        self.convz = nn.Conv2d(channels, hidden_size, kernel_size=kernel_size, padding=padding)
        self.convr = nn.Conv2d(channels, hidden_size, kernel_size=kernel_size, padding=padding)
        self.convq = nn.Conv2d(channels, hidden_size, kernel_size=kernel_size, padding=padding)

    def forward(self, h: Tensor, x: Tensor) -> Tensor:
        hx = chainrule.cat([h, x], dim=1)
        z = chainrule.sigmoid(self.convz(hx))
        r = chainrule.sigmoid(self.convr(hx))
        q = chainrule.tanh(self.convq(chainrule.cat([r * h, x], dim=1)))
        return (1 - z) * h + z * q


def _pass_through_h(h: Tensor, _: Tensor) -> Tensor:
    """The state unchanged: the second GRU of a one-GRU recurrent block."""
    return h


class RecurrentBlock(nn.Module):
    """One or two ``ConvGRU`` cells applied in turn to the hidden state, each reading the
    same input (RAFT-large: a (1, 5) then a (5, 1) kernel; RAFT-small: one 3x3)."""

    def __init__(
        self,
        *,
        input_size: int,
        hidden_size: int,
        kernel_size: tuple[Any, ...] = ((1, 5), (5, 1)),
        padding: tuple[Any, ...] = ((0, 2), (2, 0)),
    ) -> None:
        super().__init__()
        if len(kernel_size) != len(padding):
            raise ValueError(
                "kernel_size should have the same length as padding, instead got "
                f"len(kernel_size) = {len(kernel_size)} and len(padding) = {len(padding)}"
            )
        if len(kernel_size) not in (1, 2):
            raise ValueError(f"kernel_size should either 1 or 2, instead got {len(kernel_size)}")
        self.convgru1 = ConvGRU(
            input_size=input_size,
            hidden_size=hidden_size,
            kernel_size=kernel_size[0],
            padding=padding[0],
        )
        self.convgru2: Callable[[Tensor, Tensor], Tensor]
        if len(kernel_size) == 2:
            self.convgru2 = ConvGRU(
                input_size=input_size,
                hidden_size=hidden_size,
                kernel_size=kernel_size[1],
                padding=padding[1],
            )
        else:
            self.convgru2 = _pass_through_h
        self.hidden_size = hidden_size

    def forward(self, h: Tensor, x: Tensor) -> Tensor:
        h = self.convgru1(h, x)
        return self.convgru2(h, x)


class FlowHead(nn.Module):
    """The flow update from the hidden state: ``conv2(relu(conv1(x)))`` (3x3 convolutions,
    the last to 2 channels)."""

    def __init__(self, *, in_channels: int, hidden_size: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, hidden_size, 3, padding=1)
        self.conv2 = nn.Conv2d(hidden_size, 2, 3, padding=1)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x: Tensor) -> Tensor:
        return self.conv2(self.relu(self.conv1(x)))


class UpdateBlock(nn.Module):
    """One refinement step: the motion features of ``(flow, corr_features)``, joined to the
    context, update the hidden state through the recurrent block; the flow head turns the
    new state into a flow update. Returns ``(hidden_state, delta_flow)``."""

    def __init__(
        self, *, motion_encoder: MotionEncoder, recurrent_block: RecurrentBlock, flow_head: FlowHead
    ) -> None:
        super().__init__()
        self.motion_encoder = motion_encoder
        self.recurrent_block = recurrent_block
        self.flow_head = flow_head
        self.hidden_state_size = recurrent_block.hidden_size

    def forward(
        self, hidden_state: Tensor, context: Tensor, corr_features: Tensor, flow: Tensor
    ) -> tuple[Tensor, Tensor]:
        motion_features = self.motion_encoder(flow, corr_features)
        x = chainrule.cat([context, motion_features], dim=1)
        hidden_state = self.recurrent_block(hidden_state, x)
        return hidden_state, self.flow_head(hidden_state)


class MaskPredictor(nn.Module):
    """The convex-upsampling weights from the hidden state: a 3x3 conv-ReLU and a 1x1
    convolution to 8 * 8 * 9 channels, scaled by ``multiplier`` (RAFT-large only)."""

    def __init__(self, *, in_channels: int, hidden_size: int, multiplier: float = 0.25) -> None:
        super().__init__()
        self.convrelu = Conv2dNormActivation(
            in_channels, hidden_size, norm_layer=None, kernel_size=3
        )
        # 8 * 8 fine pixels per coarse pixel, each weighing a 3x3 neighbourhood
        self.conv = nn.Conv2d(hidden_size, 8 * 8 * 9, 1, padding=0)
        # scaling the mask down damps its gradients (as in the paper's code)
        self.multiplier = multiplier

    def forward(self, x: Tensor) -> Tensor:
        return self.multiplier * self.conv(self.convrelu(x))


class CorrBlock(nn.Module):
    """The correlation pyramid and its lookup. ``build_pyramid`` stores, for every pixel of
    the first feature map, its dot products (divided by sqrt(channels)) with all pixels of
    the second, average-pooled by 2 ``num_levels - 1`` times; ``index_pyramid`` reads each
    level bilinearly on the ``(2 * radius + 1)**2`` grid around each pixel's estimated
    correspondence (scaled to the level), giving ``out_channels`` features per pixel."""

    def __init__(self, *, num_levels: int = 4, radius: int = 4) -> None:
        super().__init__()
        self.num_levels = num_levels
        self.radius = radius
        self.corr_pyramid: list[Tensor] = [chainrule.tensor(0)]
        self.out_channels = num_levels * (2 * radius + 1) ** 2

    def build_pyramid(self, fmap1: Tensor, fmap2: Tensor) -> None:
        """Store the correlation pyramid of the feature maps ``(B, C, H, W)``."""
        if fmap1.shape != fmap2.shape:
            raise ValueError(
                "Input feature maps should have the same shape, instead got "
                f"{fmap1.shape} (fmap1.shape) != {fmap2.shape} (fmap2.shape)"
            )
        # every level must keep at least 2 pixels per side
        min_fmap_size = 2 * (2 ** (self.num_levels - 1))
        if any(fmap_size < min_fmap_size for fmap_size in fmap1.shape[-2:]):
            raise ValueError(
                "Feature maps are too small to be down-sampled by the correlation pyramid. "
                f"H and W of feature maps should be at least {min_fmap_size}; got: "
                f"{fmap1.shape[-2:]}. Remember that input images to the model are downsampled "
                f"by 8, so that means their dimensions should be at least 8 * {min_fmap_size} "
                f"= {8 * min_fmap_size}."
            )
        corr_volume = self._compute_corr_volume(fmap1, fmap2)
        batch_size, h, w, num_channels, _, _ = corr_volume.shape  # num_channels == 1
        corr_volume = corr_volume.reshape(batch_size * h * w, num_channels, h, w)
        self.corr_pyramid = [corr_volume]
        for _ in range(self.num_levels - 1):
            corr_volume = F.avg_pool2d(corr_volume, kernel_size=2, stride=2)
            self.corr_pyramid.append(corr_volume)

    def index_pyramid(self, centroids_coords: Tensor) -> Tensor:
        """The correlation features ``(B, out_channels, H, W)`` around ``centroids_coords``
        (``(B, 2, H, W)`` pixel coordinates ``(x, y)`` in the second feature map)."""
        neighborhood_side_len = 2 * self.radius + 1
        offsets = chainrule.linspace(
            -self.radius, self.radius, neighborhood_side_len, device=centroids_coords.device
        )
        di, dj = chainrule.meshgrid(offsets, offsets, indexing="ij")
        # delta[a, b] = (offsets[a], offsets[b]): the first grid axis moves x
        delta = chainrule.stack([di, dj], dim=-1).view(
            1, neighborhood_side_len, neighborhood_side_len, 2
        )
        delta = delta.to(centroids_coords.dtype)
        batch_size, _, h, w = centroids_coords.shape
        centroids = centroids_coords.permute(0, 2, 3, 1).reshape(batch_size * h * w, 1, 1, 2)
        indexed_pyramid = []
        for corr_volume in self.corr_pyramid:
            sampling_coords = centroids + delta
            indexed = grid_sample(corr_volume, sampling_coords, align_corners=True, mode="bilinear")
            indexed_pyramid.append(indexed.view(batch_size, h, w, -1))
            centroids = centroids / 2
        return chainrule.cat(indexed_pyramid, dim=-1).permute(0, 3, 1, 2).contiguous()

    def _compute_corr_volume(self, fmap1: Tensor, fmap2: Tensor) -> Tensor:
        # (B, H, W, 1, H, W): every pixel of fmap1 against every pixel of fmap2
        batch_size, num_channels, h, w = fmap1.shape
        fmap1 = fmap1.view(batch_size, num_channels, h * w)
        fmap2 = fmap2.view(batch_size, num_channels, h * w)
        corr = chainrule.matmul(fmap1.transpose(1, 2), fmap2)
        corr = corr.view(batch_size, h, w, 1, h, w)
        # sqrt(C) rounded to float32, as torchvision computes it (float64 volumes included)
        return corr / float(np.sqrt(np.float32(num_channels)))


class RAFT(nn.Module):
    """RAFT from its parts. ``forward(image1, image2, num_flow_updates=12)`` returns the
    list of ``num_flow_updates`` flow estimates ``(B, 2, H, W)`` (from image1 to image2,
    each refining the previous one); H and W must be divisible by 8. The context
    encoder's output is split into the initial hidden state (tanh) and the context (ReLU);
    the coordinates are detached before each correlation lookup, as in the paper."""

    def __init__(
        self,
        *,
        feature_encoder: FeatureEncoder,
        context_encoder: FeatureEncoder,
        corr_block: CorrBlock,
        update_block: UpdateBlock,
        mask_predictor: MaskPredictor | None = None,
    ) -> None:
        super().__init__()
        self.feature_encoder = feature_encoder
        self.context_encoder = context_encoder
        self.corr_block = corr_block
        self.update_block = update_block
        self.mask_predictor = mask_predictor
        if not hasattr(self.update_block, "hidden_state_size"):
            raise ValueError(
                "The update_block parameter should expose a 'hidden_state_size' attribute."
            )

    def forward(self, image1: Tensor, image2: Tensor, num_flow_updates: int = 12) -> list[Tensor]:
        batch_size, _, h, w = image1.shape
        if (h, w) != image2.shape[-2:]:
            raise ValueError(
                f"input images should have the same shape, instead got ({h}, {w}) != {image2.shape[-2:]}"
            )
        if h % 8 != 0 or w % 8 != 0:
            raise ValueError(
                f"input image H and W should be divisible by 8, instead got {h} (h) and {w} (w)"
            )
        fmaps = self.feature_encoder(chainrule.cat([image1, image2], dim=0))
        fmap1, fmap2 = chainrule.chunk(fmaps, chunks=2, dim=0)
        self.corr_block.build_pyramid(fmap1, fmap2)

        context_out = self.context_encoder(image1)
        # the first hidden_state_size channels start the GRU, the rest are its context
        hidden_state_size = self.update_block.hidden_state_size
        out_channels_context = context_out.shape[1] - hidden_state_size
        if out_channels_context <= 0:
            raise ValueError(
                f"The context encoder outputs {context_out.shape[1]} channels, but it should "
                f"have at strictly more than hidden_state={hidden_state_size} channels"
            )
        hidden_state, context = chainrule.split(
            context_out, [hidden_state_size, out_channels_context], dim=1
        )
        hidden_state = chainrule.tanh(hidden_state)
        context = F.relu(context)

        coords0 = make_coords_grid(batch_size, h // 8, w // 8).to(fmap1.device).to(fmap1.dtype)
        coords1 = make_coords_grid(batch_size, h // 8, w // 8).to(fmap1.device).to(fmap1.dtype)

        flow_predictions = []
        for _ in range(num_flow_updates):
            coords1 = coords1.detach()  # gradients do not flow back through the lookups
            corr_features = self.corr_block.index_pyramid(centroids_coords=coords1)
            flow = coords1 - coords0
            hidden_state, delta_flow = self.update_block(hidden_state, context, corr_features, flow)
            coords1 = coords1 + delta_flow
            up_mask = None if self.mask_predictor is None else self.mask_predictor(hidden_state)
            flow_predictions.append(upsample_flow(flow=coords1 - coords0, up_mask=up_mask))
        return flow_predictions


_COMMON_META = {
    "min_size": (128, 128),
}

_RAFT_RECIPE = "https://github.com/princeton-vl/RAFT"
_REFERENCE_RECIPE = "https://github.com/pytorch/vision/tree/main/references/optical_flow"

_LARGE = {"num_params": 5257536, "_ops": 211.007, "_file_size": 20.129}
_SMALL = {"num_params": 990162, "_ops": 47.655, "_file_size": 3.821}

_TRAINED_ON_C_T = """These weights were ported from the original paper. They
            are trained on :class:`~torchvision.datasets.FlyingChairs` +
            :class:`~torchvision.datasets.FlyingThings3D`."""
_TRAINED_FROM_SCRATCH_ON_C_T = """These weights were trained from scratch on
            :class:`~torchvision.datasets.FlyingChairs` +
            :class:`~torchvision.datasets.FlyingThings3D`."""


def _flow_weights(url: str, size: dict[str, Any], recipe: str, metrics: dict, docs: str) -> Weights:
    meta = {**_COMMON_META, "num_params": size["num_params"], "recipe": recipe}
    meta.update({"_metrics": metrics, "_ops": size["_ops"], "_file_size": size["_file_size"]})
    meta["_docs"] = docs
    return Weights(url=url, transforms=OpticalFlow, meta=meta)


class Raft_Large_Weights(WeightsEnum):
    """RAFT-large's pretrained weights (metrics in pixels: the end-point error ``epe``,
    its per-image mean ``per_image_epe`` and KITTI's outlier rate ``fl_all``)."""

    C_T_V1 = _flow_weights(
        "https://download.pytorch.org/models/raft_large_C_T_V1-22a6c225.pth",
        _LARGE,
        _RAFT_RECIPE,
        {
            "Sintel-Train-Cleanpass": {"epe": 1.4411},
            "Sintel-Train-Finalpass": {"epe": 2.7894},
            "Kitti-Train": {"per_image_epe": 5.0172, "fl_all": 17.4506},
        },
        _TRAINED_ON_C_T,
    )
    C_T_V2 = _flow_weights(
        "https://download.pytorch.org/models/raft_large_C_T_V2-1bb1363a.pth",
        _LARGE,
        _REFERENCE_RECIPE,
        {
            "Sintel-Train-Cleanpass": {"epe": 1.3822},
            "Sintel-Train-Finalpass": {"epe": 2.7161},
            "Kitti-Train": {"per_image_epe": 4.5118, "fl_all": 16.0679},
        },
        _TRAINED_FROM_SCRATCH_ON_C_T,
    )
    C_T_SKHT_V1 = _flow_weights(
        "https://download.pytorch.org/models/raft_large_C_T_SKHT_V1-0b8c9e55.pth",
        _LARGE,
        _RAFT_RECIPE,
        {"Sintel-Test-Cleanpass": {"epe": 1.94}, "Sintel-Test-Finalpass": {"epe": 3.18}},
        """
                These weights were ported from the original paper. They are
                trained on :class:`~torchvision.datasets.FlyingChairs` +
                :class:`~torchvision.datasets.FlyingThings3D` and fine-tuned on
                Sintel. The Sintel fine-tuning step is a combination of
                :class:`~torchvision.datasets.Sintel`,
                :class:`~torchvision.datasets.KittiFlow`,
                :class:`~torchvision.datasets.HD1K`, and
                :class:`~torchvision.datasets.FlyingThings3D` (clean pass).
            """,
    )
    C_T_SKHT_V2 = _flow_weights(
        "https://download.pytorch.org/models/raft_large_C_T_SKHT_V2-ff5fadd5.pth",
        _LARGE,
        _REFERENCE_RECIPE,
        {"Sintel-Test-Cleanpass": {"epe": 1.819}, "Sintel-Test-Finalpass": {"epe": 3.067}},
        """
                These weights were trained from scratch. They are
                pre-trained on :class:`~torchvision.datasets.FlyingChairs` +
                :class:`~torchvision.datasets.FlyingThings3D` and then
                fine-tuned on Sintel. The Sintel fine-tuning step is a
                combination of :class:`~torchvision.datasets.Sintel`,
                :class:`~torchvision.datasets.KittiFlow`,
                :class:`~torchvision.datasets.HD1K`, and
                :class:`~torchvision.datasets.FlyingThings3D` (clean pass).
            """,
    )
    C_T_SKHT_K_V1 = _flow_weights(
        "https://download.pytorch.org/models/raft_large_C_T_SKHT_K_V1-4a6a5039.pth",
        _LARGE,
        _RAFT_RECIPE,
        {"Kitti-Test": {"fl_all": 5.10}},
        """
                These weights were ported from the original paper. They are
                pre-trained on :class:`~torchvision.datasets.FlyingChairs` +
                :class:`~torchvision.datasets.FlyingThings3D`,
                fine-tuned on Sintel, and then fine-tuned on
                :class:`~torchvision.datasets.KittiFlow`. The Sintel fine-tuning
                step was described above.
            """,
    )
    C_T_SKHT_K_V2 = _flow_weights(
        "https://download.pytorch.org/models/raft_large_C_T_SKHT_K_V2-b5c70766.pth",
        _LARGE,
        _REFERENCE_RECIPE,
        {"Kitti-Test": {"fl_all": 5.19}},
        """
                These weights were trained from scratch. They are
                pre-trained on :class:`~torchvision.datasets.FlyingChairs` +
                :class:`~torchvision.datasets.FlyingThings3D`,
                fine-tuned on Sintel, and then fine-tuned on
                :class:`~torchvision.datasets.KittiFlow`. The Sintel fine-tuning
                step was described above.
            """,
    )

    DEFAULT = C_T_SKHT_V2


class Raft_Small_Weights(WeightsEnum):
    """RAFT-small's pretrained weights (metrics as ``Raft_Large_Weights``'s)."""

    C_T_V1 = _flow_weights(
        "https://download.pytorch.org/models/raft_small_C_T_V1-ad48884c.pth",
        _SMALL,
        _RAFT_RECIPE,
        {
            "Sintel-Train-Cleanpass": {"epe": 2.1231},
            "Sintel-Train-Finalpass": {"epe": 3.2790},
            "Kitti-Train": {"per_image_epe": 7.6557, "fl_all": 25.2801},
        },
        _TRAINED_ON_C_T,
    )
    C_T_V2 = _flow_weights(
        "https://download.pytorch.org/models/raft_small_C_T_V2-01064c6d.pth",
        _SMALL,
        _REFERENCE_RECIPE,
        {
            "Sintel-Train-Cleanpass": {"epe": 1.9901},
            "Sintel-Train-Finalpass": {"epe": 3.2831},
            "Kitti-Train": {"per_image_epe": 7.5978, "fl_all": 25.2369},
        },
        _TRAINED_FROM_SCRATCH_ON_C_T,
    )

    DEFAULT = C_T_V2


def _raft(
    *,
    weights: WeightsEnum | None = None,
    progress: bool = False,
    # feature encoder
    feature_encoder_layers: tuple[int, ...],
    feature_encoder_block: type[ResidualBlock | BottleneckBlock],
    feature_encoder_norm_layer: Callable[..., nn.Module] | None,
    # context encoder
    context_encoder_layers: tuple[int, ...],
    context_encoder_block: type[ResidualBlock | BottleneckBlock],
    context_encoder_norm_layer: Callable[..., nn.Module] | None,
    # correlation block
    corr_block_num_levels: int,
    corr_block_radius: int,
    # motion encoder
    motion_encoder_corr_layers: tuple[int, ...],
    motion_encoder_flow_layers: tuple[int, ...],
    motion_encoder_out_channels: int,
    # recurrent block
    recurrent_block_hidden_state_size: int,
    recurrent_block_kernel_size: tuple[Any, ...],
    recurrent_block_padding: tuple[Any, ...],
    # flow head
    flow_head_hidden_size: int,
    # mask predictor
    use_mask_predictor: bool,
    **kwargs: Any,
) -> RAFT:
    """A RAFT of the given sizes; a keyword its parts do not take goes to ``RAFT``
    (``feature_encoder=...`` etc. replace a part)."""
    feature_encoder = kwargs.pop("feature_encoder", None) or FeatureEncoder(
        block=feature_encoder_block,
        layers=feature_encoder_layers,
        norm_layer=feature_encoder_norm_layer,
    )
    context_encoder = kwargs.pop("context_encoder", None) or FeatureEncoder(
        block=context_encoder_block,
        layers=context_encoder_layers,
        norm_layer=context_encoder_norm_layer,
    )
    corr_block = kwargs.pop("corr_block", None) or CorrBlock(
        num_levels=corr_block_num_levels, radius=corr_block_radius
    )
    update_block = kwargs.pop("update_block", None)
    if update_block is None:
        motion_encoder = MotionEncoder(
            in_channels_corr=corr_block.out_channels,
            corr_layers=motion_encoder_corr_layers,
            flow_layers=motion_encoder_flow_layers,
            out_channels=motion_encoder_out_channels,
        )
        # the GRU reads the motion features and the context (what the context encoder
        # outputs beyond the hidden state)
        out_channels_context = context_encoder_layers[-1] - recurrent_block_hidden_state_size
        recurrent_block = RecurrentBlock(
            input_size=motion_encoder.out_channels + out_channels_context,
            hidden_size=recurrent_block_hidden_state_size,
            kernel_size=recurrent_block_kernel_size,
            padding=recurrent_block_padding,
        )
        flow_head = FlowHead(
            in_channels=recurrent_block_hidden_state_size, hidden_size=flow_head_hidden_size
        )
        update_block = UpdateBlock(
            motion_encoder=motion_encoder, recurrent_block=recurrent_block, flow_head=flow_head
        )
    mask_predictor = kwargs.pop("mask_predictor", None)
    if mask_predictor is None and use_mask_predictor:
        mask_predictor = MaskPredictor(
            in_channels=recurrent_block_hidden_state_size, hidden_size=256, multiplier=0.25
        )
    model = RAFT(
        feature_encoder=feature_encoder,
        context_encoder=context_encoder,
        corr_block=corr_block,
        update_block=update_block,
        mask_predictor=mask_predictor,
        **kwargs,
    )
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


@register_model()
@handle_legacy_interface(weights=("pretrained", Raft_Large_Weights.C_T_SKHT_V2))
def raft_large(
    *, weights: Raft_Large_Weights | None = None, progress: bool = True, **kwargs: Any
) -> RAFT:
    """RAFT-large: residual encoders (instance norm for the features, batch norm for the
    context), a 4-level correlation pyramid read within radius 4, two separable ConvGRUs
    ((1, 5) and (5, 1) kernels, 128 channels) and convex upsampling. ``weights``: a
    ``Raft_Large_Weights`` (or its name) to load; ``kwargs`` go to ``RAFT``."""
    weights = Raft_Large_Weights.verify(weights)
    return _raft(
        weights=weights,
        progress=progress,
        feature_encoder_layers=(64, 64, 96, 128, 256),
        feature_encoder_block=ResidualBlock,
        feature_encoder_norm_layer=nn.InstanceNorm2d,
        context_encoder_layers=(64, 64, 96, 128, 256),
        context_encoder_block=ResidualBlock,
        context_encoder_norm_layer=nn.BatchNorm2d,
        corr_block_num_levels=4,
        corr_block_radius=4,
        motion_encoder_corr_layers=(256, 192),
        motion_encoder_flow_layers=(128, 64),
        motion_encoder_out_channels=128,
        recurrent_block_hidden_state_size=128,
        recurrent_block_kernel_size=((1, 5), (5, 1)),
        recurrent_block_padding=((0, 2), (2, 0)),
        flow_head_hidden_size=256,
        use_mask_predictor=True,
        **kwargs,
    )


@register_model()
@handle_legacy_interface(weights=("pretrained", Raft_Small_Weights.C_T_V2))
def raft_small(
    *, weights: Raft_Small_Weights | None = None, progress: bool = True, **kwargs: Any
) -> RAFT:
    """RAFT-small: bottleneck encoders (instance norm for the features, none for the
    context), a 4-level correlation pyramid read within radius 3, one 3x3 ConvGRU (96
    channels) and bilinear upsampling. ``weights``: a ``Raft_Small_Weights`` (or its
    name) to load; ``kwargs`` go to ``RAFT``."""
    weights = Raft_Small_Weights.verify(weights)
    return _raft(
        weights=weights,
        progress=progress,
        feature_encoder_layers=(32, 32, 64, 96, 128),
        feature_encoder_block=BottleneckBlock,
        feature_encoder_norm_layer=nn.InstanceNorm2d,
        context_encoder_layers=(32, 32, 64, 96, 160),
        context_encoder_block=BottleneckBlock,
        context_encoder_norm_layer=None,
        corr_block_num_levels=4,
        corr_block_radius=3,
        motion_encoder_corr_layers=(96,),
        motion_encoder_flow_layers=(64, 32),
        motion_encoder_out_channels=82,
        recurrent_block_hidden_state_size=96,
        recurrent_block_kernel_size=(3,),
        recurrent_block_padding=(1,),
        flow_head_hidden_size=128,
        use_mask_predictor=False,
        **kwargs,
    )
