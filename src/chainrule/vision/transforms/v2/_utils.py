"""Helpers the v2 transforms share: finding the image size in a sample, and the
per-type ``fill`` table."""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from typing import Any

from chainrule import Tensor

from ... import tv_tensors
from ..functional import _is_pil_image
from .functional import get_dimensions, get_size, is_pure_tensor


def check_type(obj: Any, types_or_checks: tuple) -> bool:
    """Whether ``obj`` is an instance of one of the types or passes one of the checks."""
    for check in types_or_checks:
        if isinstance(check, type):
            if isinstance(obj, check):
                return True
        elif check(obj):
            return True
    return False


def has_any(flat_inputs: list[Any], *types_or_checks: type | Callable) -> bool:
    return any(check_type(inpt, types_or_checks) for inpt in flat_inputs)


def has_all(flat_inputs: list[Any], *types_or_checks: type | Callable) -> bool:
    return all(any(check_type(inpt, (check,)) for inpt in flat_inputs) for check in types_or_checks)


def _sequence_to_str(seq: Sequence, separate_last: str = "") -> str:
    if not seq:
        return ""
    if len(seq) == 1:
        return f"'{seq[0]}'"
    head = "'" + "', '".join(str(item) for item in seq[:-1]) + "'"
    tail = f"{'' if len(seq) == 2 else ','} {separate_last}'{seq[-1]}'"
    return head + tail


def query_chw(flat_inputs: list[Any]) -> tuple[int, int, int]:
    """The one ``(C, H, W)`` of the images and videos in a sample."""
    chws = {
        tuple(get_dimensions(inpt))
        for inpt in flat_inputs
        if check_type(inpt, (is_pure_tensor, tv_tensors.Image, _is_pil_image, tv_tensors.Video))
    }
    if not chws:
        raise TypeError("No image or video was found in the sample")
    if len(chws) > 1:
        raise ValueError(
            f"Found multiple CxHxW dimensions in the sample: {_sequence_to_str(sorted(chws))}"
        )
    c, h, w = chws.pop()
    return c, h, w


def query_size(flat_inputs: list[Any]) -> tuple[int, int]:
    """The one ``(H, W)`` of the images, videos, masks, boxes and keypoints in a sample."""
    sizes = {
        tuple(get_size(inpt))
        for inpt in flat_inputs
        if check_type(
            inpt,
            (
                is_pure_tensor,
                tv_tensors.Image,
                _is_pil_image,
                tv_tensors.Video,
                tv_tensors.Mask,
                tv_tensors.BoundingBoxes,
                tv_tensors.KeyPoints,
            ),
        )
    }
    if not sizes:
        raise TypeError("No image, video, mask, bounding box of keypoint was found in the sample")
    if len(sizes) > 1:
        raise ValueError(
            f"Found multiple HxW dimensions in the sample: {_sequence_to_str(sorted(sizes))}"
        )
    h, w = sizes.pop()
    return h, w


def get_bounding_boxes(flat_inputs: list[Any]) -> tv_tensors.BoundingBoxes:
    """The BoundingBoxes of a sample."""
    for inpt in flat_inputs:
        if isinstance(inpt, tv_tensors.BoundingBoxes):
            return inpt
    raise ValueError("No bounding boxes were found in the sample")


def get_keypoints(flat_inputs: list[Any]) -> tv_tensors.KeyPoints:
    """The KeyPoints of a sample."""
    for inpt in flat_inputs:
        if isinstance(inpt, tv_tensors.KeyPoints):
            return inpt
    raise ValueError("No keypoints were found in the sample")


def _check_fill_arg(fill: Any) -> None:
    if isinstance(fill, dict):
        for value in fill.values():
            _check_fill_arg(value)
    elif fill is not None and not isinstance(fill, (numbers.Number, tuple, list)):
        raise TypeError(
            "Got inappropriate fill arg, only Numbers, tuples, lists and dicts are allowed."
        )


def _setup_fill_arg(fill: Any) -> dict:
    """``fill`` per input type: a dict as given, else ``{"others": fill}``."""
    _check_fill_arg(fill)
    return dict(fill) if isinstance(fill, dict) else {"others": fill}


def _get_fill(fill_args: dict, inpt_type: type) -> Any:
    if inpt_type in fill_args:
        return fill_args[inpt_type]
    if "others" in fill_args:
        return fill_args["others"]
    raise RuntimeError(
        "This should never happen, please open an issue on the torchvision repo if you hit this."
    )


def _setup_size(size: Any, error_msg: str) -> Sequence[int]:
    """``(h, w)`` from one number or a sequence of one or two (a pair kept as given)."""
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    if isinstance(size, Sequence) and len(size) == 1:
        return size[0], size[0]
    if len(size) != 2:
        raise ValueError(error_msg)
    return size


def _plain(inpt: Any) -> Any:
    return inpt.as_subclass(Tensor) if isinstance(inpt, Tensor) else inpt
