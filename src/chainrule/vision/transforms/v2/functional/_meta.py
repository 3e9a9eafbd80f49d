"""Sizes of v2 inputs, and bounding-box format conversion and clamping."""

from __future__ import annotations

from typing import Any

import chainrule
from chainrule import Tensor

from .... import tv_tensors
from ... import functional as F1
from ._utils import _PIL, _call, _register_kernel_internal, _renamed, is_pure_tensor

BoxFormat = tv_tensors.BoundingBoxFormat


def get_dimensions(inpt: Tensor) -> list[int]:
    """``[channels, height, width]`` of an image or video."""
    return _call(get_dimensions, inpt)


def get_dimensions_image(image: Tensor) -> list[int]:
    chw = list(image.shape[-3:])
    if len(chw) == 3:
        return chw
    if len(chw) == 2:
        return [1, *chw]
    raise TypeError(f"Input tensor should have at least two dimensions, but got {len(chw)}")


def get_num_channels(inpt: Tensor) -> int:
    """The number of channels of an image or video."""
    return _call(get_num_channels, inpt)


def get_num_channels_image(image: Tensor) -> int:
    return get_dimensions_image(image)[0]


get_image_num_channels = get_num_channels


def get_size(inpt: Tensor) -> list[int]:
    """``[height, width]`` (boxes: their canvas size)."""
    return _call(get_size, inpt)


def get_size_image(image: Tensor) -> list[int]:
    return get_dimensions_image(image)[1:]


def get_size_mask(mask: Tensor) -> list[int]:
    if mask.ndim < 2:
        raise TypeError(f"Input tensor should have at least two dimensions, but got {mask.ndim}")
    return list(mask.shape[-2:])


def get_size_bounding_boxes(bounding_box: tv_tensors.BoundingBoxes) -> list[int]:
    return list(bounding_box.canvas_size)


def get_image_size(inpt: Tensor) -> list[int]:
    """``[width, height]`` (v1's order)."""
    return get_size(inpt)[::-1]


def get_num_frames(inpt: Tensor) -> int:
    """The number of frames of a video ``(..., T, C, H, W)``."""
    return _call(get_num_frames, inpt)


def get_num_frames_video(video: Tensor) -> int:
    return video.shape[-4]


for _functional, _image_kernel in (
    (get_dimensions, get_dimensions_image),
    (get_num_channels, get_num_channels_image),
    (get_size, get_size_image),
):
    _register_kernel_internal(_functional, Tensor)(_image_kernel)
    _register_kernel_internal(_functional, tv_tensors.Image, tv_tensor_wrapper=False)(_image_kernel)
    _register_kernel_internal(_functional, tv_tensors.Video, tv_tensor_wrapper=False)(_image_kernel)
_register_kernel_internal(get_dimensions, _PIL)(lambda img: F1.get_dimensions(img))
_register_kernel_internal(get_num_channels, _PIL)(lambda img: F1.get_image_num_channels(img))
_register_kernel_internal(get_size, _PIL)(lambda img: list(img.size[::-1]))
_register_kernel_internal(get_size, tv_tensors.Mask, tv_tensor_wrapper=False)(get_size_mask)
_register_kernel_internal(get_size, tv_tensors.BoundingBoxes, tv_tensor_wrapper=False)(
    get_size_bounding_boxes
)
_register_kernel_internal(get_num_frames, Tensor)(get_num_frames_video)
_register_kernel_internal(get_num_frames, tv_tensors.Video, tv_tensor_wrapper=False)(
    get_num_frames_video
)


def _to_xyxy(boxes: Tensor, fmt: BoxFormat) -> Tensor:
    if fmt == BoxFormat.XYXY:
        return boxes
    a, b, c, d = boxes.unbind(-1)
    if fmt == BoxFormat.XYWH:
        return chainrule.stack([a, b, a + c, b + d], dim=-1)
    if fmt == BoxFormat.CXCYWH:
        # integer boxes: each edge at the center -/+ half the size, truncated
        half_w, half_h = c / 2, d / 2
        xyxy = chainrule.stack([a - half_w, b - half_h, a + half_w, b + half_h], dim=-1)
        return xyxy.to(boxes.dtype)
    raise NotImplementedError(
        f"Conversion from rotated format {fmt} is not implemented in chainrule.vision"
    )


def _from_xyxy(boxes: Tensor, fmt: BoxFormat) -> Tensor:
    if fmt == BoxFormat.XYXY:
        return boxes
    x1, y1, x2, y2 = boxes.unbind(-1)
    w, h = x2 - x1, y2 - y1
    if fmt == BoxFormat.XYWH:
        return chainrule.stack([x1, y1, w, h], dim=-1)
    if fmt == BoxFormat.CXCYWH:
        if boxes.is_floating_point():
            cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        else:
            cx = chainrule.div(x1 + x2, 2, rounding_mode="floor")
            cy = chainrule.div(y1 + y2, 2, rounding_mode="floor")
        return chainrule.stack([cx, cy, w, h], dim=-1)
    raise NotImplementedError(
        f"Conversion to rotated format {fmt} is not implemented in chainrule.vision"
    )


def _convert_bounding_box_format(
    boxes: Tensor, old_format: BoxFormat, new_format: BoxFormat
) -> Tensor:
    if new_format == old_format:
        return boxes
    return _from_xyxy(_to_xyxy(boxes, old_format), new_format)


def _as_format(fmt: Any) -> BoxFormat | None:
    return BoxFormat[fmt.upper()] if isinstance(fmt, str) else fmt


def convert_bounding_box_format(
    inpt: Tensor,
    old_format: BoxFormat | None = None,
    new_format: BoxFormat | None = None,
    inplace: bool = False,
) -> Tensor:
    """Boxes in ``new_format`` (XYXY, XYWH, CXCYWH)."""
    if new_format is None:
        raise TypeError("convert_bounding_box_format() missing 1 required argument: 'new_format'")
    old_format, new_format = _as_format(old_format), _as_format(new_format)
    if is_pure_tensor(inpt):
        if old_format is None:
            raise ValueError("For pure tensor inputs, `old_format` has to be passed.")
        return _convert_bounding_box_format(inpt, old_format, new_format)
    if isinstance(inpt, tv_tensors.BoundingBoxes):
        if old_format is not None:
            raise ValueError("For bounding box tv_tensor inputs, `old_format` must not be passed.")
        out = _convert_bounding_box_format(inpt.as_subclass(Tensor), inpt.format, new_format)
        return tv_tensors.wrap(out, like=inpt, format=new_format)
    raise TypeError(
        f"Input can either be a plain tensor or a bounding box tv_tensor, but got {type(inpt)} instead."
    )


def _clamp_bounding_boxes(boxes: Tensor, format: BoxFormat, canvas_size: tuple[int, int]) -> Tensor:
    xyxy = _to_xyxy(boxes, format)
    height, width = canvas_size
    x1, y1, x2, y2 = xyxy.unbind(-1)
    xyxy = chainrule.stack(
        [x1.clamp(0, width), y1.clamp(0, height), x2.clamp(0, width), y2.clamp(0, height)], dim=-1
    )
    return _from_xyxy(xyxy, format).to(boxes.dtype)


def clamp_bounding_boxes(
    inpt: Tensor,
    format: BoxFormat | None = None,
    canvas_size: tuple[int, int] | None = None,
    clamping_mode: str | None = "auto",
) -> Tensor:
    """Boxes clipped to the canvas ``[0, W] x [0, H]`` (axis-aligned formats, for which
    every ``clamping_mode`` clamps the same way)."""
    if is_pure_tensor(inpt):
        if format is None or canvas_size is None:
            raise ValueError(
                "For pure tensor inputs, `format` and `canvas_size` have to be passed."
            )
        return _clamp_bounding_boxes(inpt, _as_format(format), canvas_size)
    if isinstance(inpt, tv_tensors.BoundingBoxes):
        if format is not None or canvas_size is not None:
            raise ValueError(
                "For bounding box tv_tensor inputs, `format` and `canvas_size` must not be passed."
            )
        out = _clamp_bounding_boxes(inpt.as_subclass(Tensor), inpt.format, inpt.canvas_size)
        return tv_tensors.wrap(out, like=inpt)
    raise TypeError(
        f"Input can either be a plain tensor or a bounding box tv_tensor, but got {type(inpt)} instead."
    )


get_dimensions_video = _renamed(get_dimensions_image, "video", "get_dimensions_video")
get_num_channels_video = _renamed(get_num_channels_image, "video", "get_num_channels_video")
get_size_video = _renamed(get_size_image, "video", "get_size_video")


def sanitize_bounding_boxes(
    bounding_boxes: Tensor,
    format: BoxFormat | None = None,
    canvas_size: tuple[int, int] | None = None,
    min_size: float = 1.0,
    min_area: float = 1.0,
) -> tuple[Tensor, Tensor]:
    """The boxes at least ``min_size`` wide and high, of area at least ``min_area`` and
    inside the canvas, and the mask of which were kept."""
    if is_pure_tensor(bounding_boxes):
        if format is None or canvas_size is None:
            raise ValueError(
                "format and canvas_size cannot be None if bounding_boxes is a pure tensor. "
                f"Got format={format} and canvas_size={canvas_size}."
                "Set those to appropriate values or pass bounding_boxes as a tv_tensors.BoundingBoxes object."
            )
        fmt, size = _as_format(format), canvas_size
    elif isinstance(bounding_boxes, tv_tensors.BoundingBoxes):
        if format is not None or canvas_size is not None:
            raise ValueError(
                "format and canvas_size must be None when bounding_boxes is a tv_tensors.BoundingBoxes. "
                f"Got format={format} and canvas_size={canvas_size}."
            )
        fmt, size = bounding_boxes.format, bounding_boxes.canvas_size
    else:
        raise ValueError(
            "bounding_boxes must be a tv_tensors.BoundingBoxes instance or a pure tensor."
        )
    xyxy = _to_xyxy(bounding_boxes.as_subclass(Tensor), fmt)
    ws, hs = xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1]
    height, width = size
    valid = (ws >= min_size) & (hs >= min_size) & (xyxy >= 0).all(dim=-1) & (ws * hs >= min_area)
    valid = (
        valid
        & (xyxy[:, 0] <= width)
        & (xyxy[:, 2] <= width)
        & (xyxy[:, 1] <= height)
        & (xyxy[:, 3] <= height)
    )
    return bounding_boxes[valid], valid


def uniform_temporal_subsample(inpt: Tensor, num_samples: int) -> Tensor:
    """``num_samples`` frames evenly spaced along the time dim ``-4``."""
    return _call(uniform_temporal_subsample, inpt, num_samples=num_samples)


def uniform_temporal_subsample_video(video: Tensor, num_samples: int) -> Tensor:
    t_max = video.shape[-4] - 1
    indices = chainrule.linspace(0, t_max, num_samples).long()
    return chainrule.index_select(video, -4, indices)


_register_kernel_internal(uniform_temporal_subsample, Tensor)(uniform_temporal_subsample_video)
_register_kernel_internal(uniform_temporal_subsample, tv_tensors.Video)(
    uniform_temporal_subsample_video
)

__all__ = [
    "get_dimensions_video",
    "get_num_channels_video",
    "get_size_video",
    "sanitize_bounding_boxes",
    "uniform_temporal_subsample",
    "uniform_temporal_subsample_video",
    "clamp_bounding_boxes",
    "convert_bounding_box_format",
    "get_dimensions",
    "get_dimensions_image",
    "get_image_num_channels",
    "get_image_size",
    "get_num_channels",
    "get_num_channels_image",
    "get_num_frames",
    "get_num_frames_video",
    "get_size",
    "get_size_bounding_boxes",
    "get_size_image",
    "get_size_mask",
]
