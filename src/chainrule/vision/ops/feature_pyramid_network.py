"""The Feature Pyramid Network (Lin et al., 2017): lateral 1x1 convolutions bring each level
to ``out_channels``, a top-down path adds the nearest-upsampled coarser level, and a 3x3
convolution smooths each sum; optional extra levels (a max-pooled one, or RetinaNet's P6/P7)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from chainrule import nn
from chainrule.nn import functional as F

from ..._tensor import Tensor
from .misc import Conv2dNormActivation

__all__ = ["ExtraFPNBlock", "FeaturePyramidNetwork", "LastLevelMaxPool", "LastLevelP6P7"]


class ExtraFPNBlock(nn.Module):
    """Base of the blocks that add levels after the FPN: ``forward(results, x, names)``
    returns the extended results and names (``x`` being the FPN's inputs)."""

    def forward(
        self, results: list[Tensor], x: list[Tensor], names: list[str]
    ) -> tuple[list[Tensor], list[str]]:
        pass


class FeaturePyramidNetwork(nn.Module):
    """FPN over an ordered dict of feature maps (finest first); returns a dict with the same
    names (plus the extra block's), every map with ``out_channels`` channels."""

    _version = 2

    def __init__(
        self,
        in_channels_list: list[int],
        out_channels: int,
        extra_blocks: ExtraFPNBlock | None = None,
        norm_layer: Callable[..., nn.Module] | None = None,
    ) -> None:
        super().__init__()
        self.inner_blocks = nn.ModuleList()
        self.layer_blocks = nn.ModuleList()
        for in_channels in in_channels_list:
            if in_channels == 0:
                raise ValueError("in_channels=0 is currently not supported")
            self.inner_blocks.append(
                Conv2dNormActivation(
                    in_channels,
                    out_channels,
                    kernel_size=1,
                    padding=0,
                    norm_layer=norm_layer,
                    activation_layer=None,
                )
            )
            self.layer_blocks.append(
                Conv2dNormActivation(
                    out_channels,
                    out_channels,
                    kernel_size=3,
                    norm_layer=norm_layer,
                    activation_layer=None,
                )
            )
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_uniform_(m.weight, a=1)
                if m.bias is not None:
                    nn.init.constant_(m.bias, 0)
        if extra_blocks is not None and not isinstance(extra_blocks, ExtraFPNBlock):
            raise TypeError(
                f"extra_blocks should be of type ExtraFPNBlock not {type(extra_blocks)}"
            )
        self.extra_blocks = extra_blocks

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ) -> None:
        # version-1 checkpoints stored each block as a bare conv: ``inner_blocks.0.weight``
        version = local_metadata.get("version", None)
        if version is None or version < 2:
            for block in ("inner_blocks", "layer_blocks"):
                for i in range(len(self.inner_blocks)):
                    for kind in ("weight", "bias"):
                        old = f"{prefix}{block}.{i}.{kind}"
                        if old in state_dict:
                            state_dict[f"{prefix}{block}.{i}.0.{kind}"] = state_dict.pop(old)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )

    def get_result_from_inner_blocks(self, x: Tensor, idx: int) -> Tensor:
        """``self.inner_blocks[idx](x)``."""
        return self.inner_blocks[idx](x)

    def get_result_from_layer_blocks(self, x: Tensor, idx: int) -> Tensor:
        """``self.layer_blocks[idx](x)``."""
        return self.layer_blocks[idx](x)

    def forward(self, x: dict[str, Tensor]) -> dict[str, Tensor]:
        names = list(x.keys())
        features = list(x.values())
        last_inner = self.get_result_from_inner_blocks(features[-1], -1)
        results = [self.get_result_from_layer_blocks(last_inner, -1)]
        for idx in range(len(features) - 2, -1, -1):
            lateral = self.get_result_from_inner_blocks(features[idx], idx)
            top_down = F.interpolate(last_inner, size=tuple(lateral.shape[-2:]), mode="nearest")
            last_inner = lateral + top_down
            results.insert(0, self.get_result_from_layer_blocks(last_inner, idx))
        if self.extra_blocks is not None:
            results, names = self.extra_blocks(results, features, names)
        return OrderedDict(zip(names, results))


class LastLevelMaxPool(ExtraFPNBlock):
    """Adds ``'pool'``: the last level subsampled by 2 (a 1x1 max-pool of stride 2)."""

    def forward(
        self, x: list[Tensor], y: list[Tensor], names: list[str]
    ) -> tuple[list[Tensor], list[str]]:
        names.append("pool")
        x.append(F.max_pool2d(x[-1], kernel_size=1, stride=2, padding=0))
        return x, names


class LastLevelP6P7(ExtraFPNBlock):
    """RetinaNet's extra levels: ``p6`` a stride-2 3x3 conv of P5 (or of C5 when the channel
    counts differ) and ``p7`` a stride-2 3x3 conv of ``relu(p6)``."""

    def __init__(self, in_channels: int, out_channels: int) -> None:
        super().__init__()
        self.p6 = nn.Conv2d(in_channels, out_channels, 3, 2, 1)
        self.p7 = nn.Conv2d(out_channels, out_channels, 3, 2, 1)
        for module in (self.p6, self.p7):
            nn.init.kaiming_uniform_(module.weight, a=1)
            nn.init.constant_(module.bias, 0)
        self.use_P5 = in_channels == out_channels

    def forward(
        self, p: list[Tensor], c: list[Tensor], names: list[str]
    ) -> tuple[list[Tensor], list[str]]:
        p6 = self.p6(p[-1] if self.use_P5 else c[-1])
        p7 = self.p7(F.relu(p6))
        p.extend([p6, p7])
        names.extend(["p6", "p7"])
        return p, names
