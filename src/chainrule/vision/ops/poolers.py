"""``MultiScaleRoIAlign``: RoI Align over a feature pyramid, each box pooled from the level
that suits its size (FPN's rule ``k = floor(k0 + log2(sqrt(area) / 224))``, clamped)."""

from __future__ import annotations

import sys

import numpy as np

import chainrule
from chainrule import nn

from ..._tensor import Tensor
from ._utils import convert_boxes_to_roi_format
from .boxes import box_area
from .roi_align import roi_align

# importing the submodule bound the package's name ``roi_align`` to the module: give the
# name back to the function (``torchvision.ops.roi_align`` is the function)
sys.modules[__package__].roi_align = roi_align

__all__ = ["LevelMapper", "MultiScaleRoIAlign", "initLevelMapper"]


class LevelMapper:
    """Maps boxes to pyramid levels ``k_min .. k_max`` (returned as ``level - k_min``):
    ``floor(canonical_level + log2(sqrt(area) / canonical_scale) + eps)``, clamped."""

    def __init__(
        self,
        k_min: int,
        k_max: int,
        canonical_scale: int = 224,
        canonical_level: int = 4,
        eps: float = 1e-6,
    ) -> None:
        self.k_min = k_min
        self.k_max = k_max
        self.s0 = canonical_scale
        self.lvl0 = canonical_level
        self.eps = eps

    def __call__(self, boxlists: list[Tensor]) -> Tensor:
        s = chainrule.sqrt(chainrule.cat([box_area(boxes) for boxes in boxlists]))
        levels = chainrule.floor(
            self.lvl0 + chainrule.log2(s / self.s0) + chainrule.tensor(self.eps, dtype=s.dtype)
        )
        levels = chainrule.clamp(levels, min=self.k_min, max=self.k_max)
        return levels.to(chainrule.int64) - self.k_min


def initLevelMapper(
    k_min: int, k_max: int, canonical_scale: int = 224, canonical_level: int = 4, eps: float = 1e-6
) -> LevelMapper:
    """A :class:`LevelMapper`."""
    return LevelMapper(k_min, k_max, canonical_scale, canonical_level, eps)


def _infer_scale(feature: Tensor, original_size: tuple[int, int]) -> float:
    """The power of two nearest to ``feature height / image height``."""
    ratio = np.float32(float(feature.shape[-2]) / float(original_size[0]))
    return 2 ** float(np.round(np.log2(ratio)))


def _setup_scales(
    features: list[Tensor],
    image_shapes: list[tuple[int, int]],
    canonical_scale: int,
    canonical_level: int,
) -> tuple[list[float], LevelMapper]:
    if not image_shapes:
        raise ValueError("images list should not be empty")
    largest = (max(shape[0] for shape in image_shapes), max(shape[1] for shape in image_shapes))
    scales = [_infer_scale(feature, largest) for feature in features]
    lvl_min = -float(np.log2(np.float32(scales[0])))
    lvl_max = -float(np.log2(np.float32(scales[-1])))
    return scales, initLevelMapper(
        int(lvl_min), int(lvl_max), canonical_scale=canonical_scale, canonical_level=canonical_level
    )


def _filter_input(x: dict[str, Tensor], featmap_names: list[str]) -> list[Tensor]:
    return [v for k, v in x.items() if k in featmap_names]


def _multiscale_roi_align(
    features: list[Tensor],
    boxes: list[Tensor],
    output_size: tuple[int, int],
    sampling_ratio: int,
    scales: list[float] | None,
    mapper: LevelMapper | None,
) -> Tensor:
    if scales is None or mapper is None:
        raise ValueError("scales and mapper should not be None")
    rois = convert_boxes_to_roi_format(list(boxes))
    if len(features) == 1:
        return roi_align(
            features[0],
            rois,
            output_size=output_size,
            spatial_scale=scales[0],
            sampling_ratio=sampling_ratio,
        )
    levels = mapper(boxes).numpy()
    # boxes of a level with no map (names that skip a level) stay zero, as in torchvision
    result = chainrule.zeros(
        (len(levels), features[0].shape[1], *output_size), dtype=features[0].dtype
    )
    for level, (feature, scale) in enumerate(zip(features, scales)):
        members = chainrule.from_numpy(np.nonzero(levels == level)[0])
        if members.numel() == 0:
            continue
        pooled = roi_align(
            feature,
            rois.index_select(0, members),
            output_size=output_size,
            spatial_scale=scale,
            sampling_ratio=sampling_ratio,
        )
        result = result.index_add(0, members, pooled.to(result.dtype))
    return result


class MultiScaleRoIAlign(nn.Module):
    """RoI Align of image-coordinate ``boxes`` (one ``(L, 4)`` tensor per image) over the maps
    ``featmap_names`` of an ordered dict; the levels' scales are inferred (powers of two)
    from the maps' sizes and ``image_shapes`` on the first call."""

    __annotations__ = {"scales": list[float] | None, "map_levels": LevelMapper | None}

    def __init__(
        self,
        featmap_names: list[str],
        output_size: int | tuple[int] | list[int],
        sampling_ratio: int,
        *,
        canonical_scale: int = 224,
        canonical_level: int = 4,
    ) -> None:
        super().__init__()
        if isinstance(output_size, int):
            output_size = (output_size, output_size)
        self.featmap_names = featmap_names
        self.sampling_ratio = sampling_ratio
        self.output_size = tuple(output_size)
        self.scales = None
        self.map_levels = None
        self.canonical_scale = canonical_scale
        self.canonical_level = canonical_level

    def forward(
        self, x: dict[str, Tensor], boxes: list[Tensor], image_shapes: list[tuple[int, int]]
    ) -> Tensor:
        features = _filter_input(x, self.featmap_names)
        if self.scales is None or self.map_levels is None:
            self.scales, self.map_levels = _setup_scales(
                features, image_shapes, self.canonical_scale, self.canonical_level
            )
        return _multiscale_roi_align(
            features, boxes, self.output_size, self.sampling_ratio, self.scales, self.map_levels
        )

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(featmap_names={self.featmap_names}, "
            f"output_size={self.output_size}, sampling_ratio={self.sampling_ratio})"
        )
