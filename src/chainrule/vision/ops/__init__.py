"""``torchvision.ops``: box operations, RoI pooling, losses and the layers torchvision's
models are built from, each a chainrule function or module (gradients through chainrule's
ops). The names load from their modules on first use."""

from __future__ import annotations

import importlib
from typing import Any

# name -> the module of this package that defines it (torchvision's own file names)
_HOME = {
    "Conv2dNormActivation": "misc",
    "Conv3dNormActivation": "misc",
    "FrozenBatchNorm2d": "misc",
    "MLP": "misc",
    "Permute": "misc",
    "SqueezeExcitation": "misc",
    "StochasticDepth": "stochastic_depth",
    "stochastic_depth": "stochastic_depth",
    "batched_nms": "boxes",
    "box_area": "boxes",
    "box_convert": "boxes",
    "box_iou": "boxes",
    "clip_boxes_to_image": "boxes",
    "complete_box_iou": "boxes",
    "distance_box_iou": "boxes",
    "generalized_box_iou": "boxes",
    "masks_to_boxes": "boxes",
    "nms": "boxes",
    "remove_small_boxes": "boxes",
    "complete_box_iou_loss": "ciou_loss",
    "distance_box_iou_loss": "diou_loss",
    "generalized_box_iou_loss": "giou_loss",
    "sigmoid_focal_loss": "focal_loss",
    "RoIAlign": "roi_align",
    "roi_align": "roi_align",
    "RoIPool": "roi_pool",
    "roi_pool": "roi_pool",
    "PSRoIAlign": "ps_roi_align",
    "ps_roi_align": "ps_roi_align",
    "PSRoIPool": "ps_roi_pool",
    "ps_roi_pool": "ps_roi_pool",
    "DeformConv2d": "deform_conv",
    "deform_conv2d": "deform_conv",
    "DropBlock2d": "drop_block",
    "DropBlock3d": "drop_block",
    "drop_block2d": "drop_block",
    "drop_block3d": "drop_block",
    "FeaturePyramidNetwork": "feature_pyramid_network",
    "MultiScaleRoIAlign": "poolers",
}

__all__ = sorted(_HOME)

# a function named as its module: importing the module binds the package's attribute to
# the module, so these are bound here once, to the functions (as torchvision's own package
# does); the import system does not bind it again
from .ps_roi_align import ps_roi_align  # noqa: E402, F401
from .ps_roi_pool import ps_roi_pool  # noqa: E402, F401
from .roi_align import roi_align  # noqa: E402, F401
from .roi_pool import roi_pool  # noqa: E402, F401
from .stochastic_depth import stochastic_depth  # noqa: E402, F401


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'torchvision.ops' has no attribute '{name}'")
    try:
        module = importlib.import_module(f"{__name__}.{home}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{home}":
            raise
        raise NotImplementedError(
            f"chainrule does not implement torchvision.ops.{name} yet"
        ) from None
    for other, where in _HOME.items():  # (every name of that module, at once)
        if where == home:
            globals()[other] = getattr(module, other)
    return globals()[name]


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))
