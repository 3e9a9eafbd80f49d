"""The oracle for chainrule.vision: the real torchvision 0.28 (the test extra installs it).

PyPI's torchvision wheel is built against PyTorch's CUDA build; with the CPU build its
compiled ops library does not load, and its ``_meta_registrations`` then fails to register
fake kernels for ops that do not exist. :func:`torchvision` imports it with those
registrations skipped: everything written in Python (models, transforms, datasets,
utils, the box functions) works; the compiled kernels (``nms``, ``roi_align``, ...) do not,
and tests compare those against their definitions instead.
"""

from __future__ import annotations

import sys
from types import ModuleType

import pytest


def import_torchvision() -> ModuleType:
    """The real torchvision, on the real PyTorch."""
    if "torchvision" in sys.modules and not sys.modules["torchvision"].__name__.startswith(
        "chainrule"
    ):
        return sys.modules["torchvision"]
    import torch.library

    register_fake = torch.library.register_fake
    torch.library.register_fake = lambda *args, **kwargs: lambda fn: fn
    try:
        import torchvision
    finally:
        torch.library.register_fake = register_fake
    return torchvision


@pytest.fixture(scope="session")
def tv() -> ModuleType:
    """The real torchvision package."""
    return import_torchvision()


def _greedy_nms(dets, scores, iou_threshold: float):
    """Greedy NMS on real torch: by descending score (stable), drop boxes whose IoU with a
    kept box is > ``iou_threshold``."""
    import torch

    order = torch.sort(scores, descending=True, stable=True)[1]
    x1, y1, x2, y2 = dets.unbind(1)
    areas = (x2 - x1) * (y2 - y1)
    suppressed = torch.zeros(len(dets), dtype=torch.bool)
    keep = []
    for i in order.tolist():
        if suppressed[i]:
            continue
        keep.append(i)
        w = (torch.minimum(x2[i], x2) - torch.maximum(x1[i], x1)).clamp(min=0)
        h = (torch.minimum(y2[i], y2) - torch.maximum(y1[i], y1)).clamp(min=0)
        inter = w * h
        suppressed |= inter / (areas[i] + areas - inter) > iou_threshold
    return torch.tensor(keep, dtype=torch.int64)


_KERNELS: list = []


def _outside_is_zero(roi_module: ModuleType):
    """torchvision's Python bilinear sampling for RoI Align, with the compiled kernel's rule
    that a sample point outside ``[-1, height] x [-1, width]`` counts zero (the Python
    fallback clamps such points onto the border instead)."""
    import torch

    sample = roi_module._bilinear_interpolate

    def bilinear_interpolate(input, roi_batch_ind, y, x, ymask, xmask):
        val = sample(input, roi_batch_ind, y, x, ymask, xmask)  # [K, C, PH, PW, IY, IX]
        height, width = input.shape[-2:]
        inside_y = (y >= -1.0) & (y <= height)  # [K, PH, IY]
        inside_x = (x >= -1.0) & (x <= width)  # [K, PW, IX]
        inside = inside_y[:, None, :, None, :, None] & inside_x[:, None, None, :, None, :]
        return torch.where(inside, val, 0)

    return bilinear_interpolate


@pytest.fixture(scope="session")
def tv_detection(tv: ModuleType) -> ModuleType:
    """The real torchvision with Python kernels for the compiled ops its detection models
    call: ``torchvision::nms`` (a greedy NMS) and ``torchvision::roi_align`` (torchvision's
    own pure-Python RoI Align, uncompiled, with the compiled kernel's zero outside the
    map), registered on the real torch and used by torchvision's Python wrappers."""
    import torch
    import torch.library

    roi_module = sys.modules["torchvision.ops.roi_align"]
    python_roi_align = getattr(roi_module._roi_align, "__wrapped__", roi_module._roi_align)
    if not _KERNELS:
        lib = torch.library.Library("torchvision", "FRAGMENT")
        if not hasattr(torch.ops.torchvision, "nms"):
            lib.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
            lib.impl("nms", _greedy_nms, "CompositeExplicitAutograd")
        if not hasattr(torch.ops.torchvision, "roi_align"):
            lib.define(
                "roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, "
                "SymInt pooled_width, int sampling_ratio, bool aligned) -> Tensor"
            )
            lib.impl("roi_align", python_roi_align, "CompositeImplicitAutograd")
        _KERNELS.append(lib)
    patch = pytest.MonkeyPatch()
    # the ops exist now: let torchvision's Python wrappers call them
    patch.setattr(sys.modules["torchvision.ops.boxes"], "_assert_has_ops", lambda: None)
    patch.setattr(roi_module, "_roi_align", python_roi_align)
    patch.setattr(roi_module, "_bilinear_interpolate", _outside_is_zero(roi_module))
    yield tv
    patch.undo()
