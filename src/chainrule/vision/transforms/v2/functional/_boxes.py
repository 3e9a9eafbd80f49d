"""The public ``*_bounding_boxes`` kernels: boxes as a plain tensor with their ``format``
and ``canvas_size`` (axis-aligned formats), moved by a geometric transform and clamped to
the new canvas unless ``clamping_mode`` is None. Those that change the canvas return
``(boxes, canvas_size)``. Also the boxes' elastic kernel, which the ``elastic``
functional dispatches to."""

from __future__ import annotations

from typing import Any

import chainrule
from chainrule import Tensor

from .... import tv_tensors
from . import _geometry as G
from ._keypoints import elastic_keypoints
from ._meta import _as_format
from ._utils import _register_kernel_internal

BoxFormat = tv_tensors.BoundingBoxFormat
CanvasSize = tuple[int, int]


def _boxes(
    bounding_boxes: Tensor, format: Any, canvas_size: Any, clamping_mode: str | None = "soft"
) -> tv_tensors.BoundingBoxes:
    return tv_tensors.BoundingBoxes._wrap(
        bounding_boxes.as_subclass(Tensor),
        format=_as_format(format),
        canvas_size=tuple(canvas_size),
        clamping_mode=clamping_mode,
    )


def _plain(out: Any) -> Tensor:
    return out.as_subclass(Tensor)


def _with_canvas(out: Any) -> tuple[Tensor, CanvasSize]:
    return out.as_subclass(Tensor), tuple(out.canvas_size)


def horizontal_flip_bounding_boxes(
    bounding_boxes: Tensor, format: BoxFormat, canvas_size: CanvasSize
) -> Tensor:
    """Boxes mirrored left to right."""
    return _plain(G._horizontal_flip_boxes(_boxes(bounding_boxes, format, canvas_size)))


def vertical_flip_bounding_boxes(
    bounding_boxes: Tensor, format: BoxFormat, canvas_size: CanvasSize
) -> Tensor:
    """Boxes mirrored top to bottom."""
    return _plain(G._vertical_flip_boxes(_boxes(bounding_boxes, format, canvas_size)))


def crop_bounding_boxes(
    bounding_boxes: Tensor,
    format: BoxFormat,
    top: int,
    left: int,
    height: int,
    width: int,
    clamping_mode: str | None = "soft",
) -> tuple[Tensor, CanvasSize]:
    """Boxes relative to the crop's corner, clamped to it, and the crop's size."""
    boxes = _boxes(bounding_boxes, format, (height, width), clamping_mode)
    return _with_canvas(G._crop_boxes(boxes, top, left, height, width))


def pad_bounding_boxes(
    bounding_boxes: Tensor,
    format: BoxFormat,
    canvas_size: CanvasSize,
    padding: list[int],
    padding_mode: str = "constant",
    clamping_mode: str | None = "soft",
) -> tuple[Tensor, CanvasSize]:
    """Boxes shifted by the left and top padding, and the padded canvas."""
    boxes = _boxes(bounding_boxes, format, canvas_size, clamping_mode)
    return _with_canvas(G._pad_boxes(boxes, padding, padding_mode=padding_mode))


def resize_bounding_boxes(
    bounding_boxes: Tensor,
    canvas_size: CanvasSize,
    size: list[int] | None,
    max_size: int | None = None,
    format: BoxFormat = BoxFormat.XYXY,
    clamping_mode: str | None = "soft",
) -> tuple[Tensor, CanvasSize]:
    """Boxes scaled by ``new / old`` along each axis, and the new canvas."""
    if isinstance(size, int):
        size = [size]
    boxes = _boxes(bounding_boxes, format, canvas_size, clamping_mode)
    return _with_canvas(G._resize_boxes(boxes, size, max_size=max_size))


def center_crop_bounding_boxes(
    bounding_boxes: Tensor,
    format: BoxFormat,
    canvas_size: CanvasSize,
    output_size: list[int],
    clamping_mode: str | None = "soft",
) -> tuple[Tensor, CanvasSize]:
    """Boxes in the central ``output_size`` crop, clamped to it."""
    boxes = _boxes(bounding_boxes, format, canvas_size, clamping_mode)
    return _with_canvas(G._center_crop_boxes(boxes, output_size))


def resized_crop_bounding_boxes(
    bounding_boxes: Tensor,
    format: BoxFormat,
    top: int,
    left: int,
    height: int,
    width: int,
    size: list[int],
    clamping_mode: str | None = "soft",
) -> tuple[Tensor, CanvasSize]:
    """``crop_bounding_boxes`` then ``resize_bounding_boxes``."""
    boxes = _boxes(bounding_boxes, format, (height, width), clamping_mode)
    return _with_canvas(G._resized_crop_boxes(boxes, top, left, height, width, size))


def affine_bounding_boxes(
    bounding_boxes: Tensor,
    format: BoxFormat,
    canvas_size: CanvasSize,
    angle: float,
    translate: list[float],
    scale: float,
    shear: list[float],
    center: list[float] | None = None,
    clamping_mode: str | None = "soft",
) -> Tensor:
    """The box around each box's corners through the forward affine map, clamped."""
    boxes = _boxes(bounding_boxes, format, canvas_size, clamping_mode)
    return _plain(G._affine_boxes(boxes, angle, translate, scale, shear, center=center))


def rotate_bounding_boxes(
    bounding_boxes: Tensor,
    format: BoxFormat,
    canvas_size: CanvasSize,
    angle: float,
    expand: bool = False,
    center: list[float] | None = None,
    clamping_mode: str | None = "soft",
) -> tuple[Tensor, CanvasSize]:
    """The box around each rotated box, on the (expanded) canvas, clamped."""
    boxes = _boxes(bounding_boxes, format, canvas_size, clamping_mode)
    return _with_canvas(G._rotate_boxes_kernel(boxes, angle, expand=expand, center=center))


def perspective_bounding_boxes(
    bounding_boxes: Tensor,
    format: BoxFormat,
    canvas_size: CanvasSize,
    startpoints: list[list[int]] | None,
    endpoints: list[list[int]] | None,
    coefficients: list[float] | None = None,
    clamping_mode: str | None = "soft",
) -> Tensor:
    """The box around each box's corners through the homography, clamped."""
    boxes = _boxes(bounding_boxes, format, canvas_size, clamping_mode)
    return _plain(
        G._perspective_boxes_kernel(boxes, startpoints, endpoints, coefficients=coefficients)
    )


def _elastic_boxes(boxes: tv_tensors.BoundingBoxes, displacement: Tensor) -> Any:
    """Each box's four corners, rounded up to whole pixels, moved as keypoints; the box
    around them, clamped."""
    xyxy = G._boxes_xyxy(boxes, exact=False)
    dtype = xyxy.dtype if xyxy.is_floating_point() else chainrule.float32
    corners = xyxy[:, [[0, 1], [2, 1], [0, 3], [2, 3]]]  # (N, 4, 2)
    corners = (corners.ceil() if corners.is_floating_point() else corners).to(dtype)
    moved = elastic_keypoints(corners, boxes.canvas_size, displacement)
    out = chainrule.cat([moved.amin(dim=1), moved.amax(dim=1)], dim=-1)
    return G._rewrap_boxes(out, boxes, boxes.canvas_size, True, cast_first=True)


def elastic_bounding_boxes(
    bounding_boxes: Tensor,
    format: BoxFormat,
    canvas_size: CanvasSize,
    displacement: Tensor,
    clamping_mode: str | None = "soft",
) -> Tensor:
    """The box around each box's corners moved as by ``elastic_keypoints``, clamped."""
    boxes = _boxes(bounding_boxes, format, canvas_size, clamping_mode)
    return _plain(_elastic_boxes(boxes, displacement))


def _elastic_boxes_kernel(
    boxes: tv_tensors.BoundingBoxes,
    displacement: Tensor,
    interpolation: Any = None,
    fill: Any = None,
) -> Any:
    return _elastic_boxes(boxes, displacement)


_register_kernel_internal(G.elastic, tv_tensors.BoundingBoxes, tv_tensor_wrapper=False)(
    _elastic_boxes_kernel
)

__all__ = [
    "affine_bounding_boxes",
    "center_crop_bounding_boxes",
    "crop_bounding_boxes",
    "elastic_bounding_boxes",
    "horizontal_flip_bounding_boxes",
    "pad_bounding_boxes",
    "perspective_bounding_boxes",
    "resize_bounding_boxes",
    "resized_crop_bounding_boxes",
    "rotate_bounding_boxes",
    "vertical_flip_bounding_boxes",
]
