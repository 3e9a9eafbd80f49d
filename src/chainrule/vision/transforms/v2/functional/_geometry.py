"""v2 geometric functionals: each dispatches to the v1 kernels for images, videos and PIL
images, to nearest-neighbour versions for masks, and to coordinate arithmetic for
axis-aligned bounding boxes (flips, crops, pads, resizes)."""

from __future__ import annotations

from typing import Any

import numpy as np

import chainrule
from chainrule import Tensor

from .... import tv_tensors
from ... import _functional_tensor as F_t
from ... import functional as F1
from ...functional import InterpolationMode
from ._meta import _clamp_bounding_boxes, _convert_bounding_box_format
from ._utils import _PIL, _call, _check_interpolation, _register_kernel_internal, _renamed

BoxFormat = tv_tensors.BoundingBoxFormat
NEAREST = InterpolationMode.NEAREST
BILINEAR = InterpolationMode.BILINEAR
BICUBIC = InterpolationMode.BICUBIC


def _register(
    functional: Any, image: Any, pil: Any = None, mask: Any = None, boxes: Any = None
) -> None:
    """Registers the kernels of ``functional``: plain tensors, Image and Video share
    ``image``; PIL images take ``pil`` (default: ``image``)."""
    for cls in (Tensor, tv_tensors.Image, tv_tensors.Video):
        _register_kernel_internal(functional, cls)(image)
    _register_kernel_internal(functional, _PIL)(pil or image)
    if mask is not None:
        _register_kernel_internal(functional, tv_tensors.Mask)(mask)
    if boxes is not None:
        _register_kernel_internal(functional, tv_tensors.BoundingBoxes, tv_tensor_wrapper=False)(
            boxes
        )


def _on_mask(kernel: Any, mask: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """An image kernel on a mask ``(..., H, W)`` (given a channel dim while it runs)."""
    squeeze = mask.ndim < 3
    out = kernel(mask.unsqueeze(0) if squeeze else mask, *args, **kwargs)
    if isinstance(out, tuple):
        return tuple(o.squeeze(0) if squeeze else o for o in out)
    return out.squeeze(0) if squeeze else out


def _boxes_xyxy(boxes: tv_tensors.BoundingBoxes, exact: bool = True) -> Tensor:
    """The boxes as XYXY (integer CXCYWH boxes as float, their corners half-integers;
    truncated to integers unless ``exact``)."""
    plain = boxes.as_subclass(Tensor)
    if exact and boxes.format == BoxFormat.CXCYWH and not plain.is_floating_point():
        plain = plain.to(chainrule.float32)
    return _convert_bounding_box_format(plain, boxes.format, BoxFormat.XYXY)


def _rewrap_boxes(
    xyxy: Tensor,
    like: tv_tensors.BoundingBoxes,
    canvas_size: tuple[int, int],
    clamp: bool,
    cast_first: bool = False,
) -> Any:
    """XYXY boxes clamped (unless ``clamping_mode`` is None) and put back in ``like``'s
    format and dtype (integer boxes: cast before or after the format conversion)."""
    if clamp and getattr(like, "clamping_mode", "soft") is not None:
        xyxy = _clamp_bounding_boxes(xyxy, BoxFormat.XYXY, canvas_size)
    if cast_first:
        xyxy = xyxy.to(like.dtype)
    out = _convert_bounding_box_format(xyxy, BoxFormat.XYXY, like.format).to(like.dtype)
    return tv_tensors.wrap(out, like=like, canvas_size=tuple(canvas_size))


# ---------------------------------------------------------------- flips


def horizontal_flip_image(image: Tensor) -> Tensor:
    return image.flip(-1)


def horizontal_flip_mask(mask: Tensor) -> Tensor:
    return mask.flip(-1)


def _horizontal_flip_boxes(boxes: tv_tensors.BoundingBoxes) -> Any:
    x1, y1, x2, y2 = _boxes_xyxy(boxes).unbind(-1)
    width = boxes.canvas_size[1]
    return _rewrap_boxes(
        chainrule.stack([width - x2, y1, width - x1, y2], -1), boxes, boxes.canvas_size, False
    )


def horizontal_flip(inpt: Tensor) -> Tensor:
    """Mirrored left to right."""
    return _call(horizontal_flip, inpt)


def vertical_flip_image(image: Tensor) -> Tensor:
    return image.flip(-2)


def vertical_flip_mask(mask: Tensor) -> Tensor:
    return mask.flip(-2)


def _vertical_flip_boxes(boxes: tv_tensors.BoundingBoxes) -> Any:
    x1, y1, x2, y2 = _boxes_xyxy(boxes).unbind(-1)
    height = boxes.canvas_size[0]
    return _rewrap_boxes(
        chainrule.stack([x1, height - y2, x2, height - y1], -1), boxes, boxes.canvas_size, False
    )


def vertical_flip(inpt: Tensor) -> Tensor:
    """Mirrored top to bottom."""
    return _call(vertical_flip, inpt)


hflip = horizontal_flip
vflip = vertical_flip
_register(
    horizontal_flip, horizontal_flip_image, F1.hflip, horizontal_flip_mask, _horizontal_flip_boxes
)
_register(vertical_flip, vertical_flip_image, F1.vflip, vertical_flip_mask, _vertical_flip_boxes)


# ---------------------------------------------------------------- resize


def resize_image(
    image: Tensor,
    size: list[int] | None,
    interpolation: InterpolationMode | str | int = BILINEAR,
    max_size: int | None = None,
    antialias: bool | None = True,
) -> Tensor:
    interpolation = _check_interpolation(interpolation)
    h, w = image.shape[-2:]
    out_size = F1._compute_resized_output_size((h, w), size, max_size)
    if out_size == [h, w]:
        return image
    if image.dtype == chainrule.uint8 and interpolation in (BILINEAR, BICUBIC) and image.numel():
        # as torchvision: uint8 images straight to interpolate, which resamples in fixed point
        batch = image.reshape(-1, 1, h, w)
        out = chainrule.nn.functional.interpolate(
            batch, size=out_size, mode=interpolation.value, antialias=bool(antialias)
        )
        return out.reshape(tuple(image.shape[:-2]) + tuple(out_size))
    return F_t.resize(image, out_size, interpolation=interpolation.value, antialias=antialias)


def _resize_image_pil(
    image: Any,
    size: list[int] | None,
    interpolation: InterpolationMode | str | int = BILINEAR,
    max_size: int | None = None,
    antialias: bool | None = True,
) -> Any:
    interpolation = _check_interpolation(interpolation)
    w, h = image.size
    out_size = F1._compute_resized_output_size((h, w), size, max_size)
    return F1._pil().resize(image, out_size, F1.pil_modes_mapping[interpolation])


def _mask_mode(interpolation: Any) -> InterpolationMode:
    """Masks keep their labels: nearest-exact when asked for, nearest otherwise."""
    exact = (
        interpolation is not None
        and _check_interpolation(interpolation) == InterpolationMode.NEAREST_EXACT
    )
    return InterpolationMode.NEAREST_EXACT if exact else NEAREST


def resize_mask(
    mask: Tensor,
    size: list[int] | None,
    interpolation: InterpolationMode | str | int = BILINEAR,
    max_size: int | None = None,
) -> Tensor:
    return _on_mask(
        resize_image, mask, size, interpolation=_mask_mode(interpolation), max_size=max_size
    )


def _resize_mask_kernel(
    mask: Tensor, size: Any, interpolation: Any = None, max_size: Any = None, **kwargs: Any
) -> Any:
    return resize_mask(mask, size, interpolation=interpolation, max_size=max_size)


def _resize_boxes(
    boxes: tv_tensors.BoundingBoxes,
    size: Any,
    interpolation: Any = None,
    max_size: Any = None,
    **kwargs: Any,
) -> Any:
    h, w = boxes.canvas_size
    new_h, new_w = F1._compute_resized_output_size((h, w), size, max_size)
    scale = chainrule.tensor([new_w / w, new_h / h, new_w / w, new_h / h])
    xyxy = _boxes_xyxy(boxes)
    return _rewrap_boxes(xyxy.to(scale.dtype) * scale, boxes, (new_h, new_w), False)


def resize(
    inpt: Tensor,
    size: list[int] | None,
    interpolation: InterpolationMode | str | int = BILINEAR,
    max_size: int | None = None,
    antialias: bool | None = True,
) -> Tensor:
    """Resized to ``size`` (``[h, w]``, or one number for the shorter edge)."""
    if isinstance(size, int):
        size = [size]
    return _call(
        resize, inpt, size, interpolation=interpolation, max_size=max_size, antialias=antialias
    )


_register(resize, resize_image, _resize_image_pil, _resize_mask_kernel, _resize_boxes)


# ---------------------------------------------------------------- crops and pads


def crop_image(image: Tensor, top: int, left: int, height: int, width: int) -> Tensor:
    return F_t.crop(image, top, left, height, width)


def crop_mask(mask: Tensor, top: int, left: int, height: int, width: int) -> Tensor:
    return _on_mask(crop_image, mask, top, left, height, width)


def _crop_boxes(
    boxes: tv_tensors.BoundingBoxes, top: int, left: int, height: int, width: int
) -> Any:
    shift = chainrule.tensor([left, top, left, top], dtype=boxes.dtype)
    return _rewrap_boxes(_boxes_xyxy(boxes) - shift, boxes, (height, width), True)


def crop(inpt: Tensor, top: int, left: int, height: int, width: int) -> Tensor:
    """The ``height x width`` box at ``(top, left)``."""
    return _call(crop, inpt, top, left, height, width)


_register(crop, crop_image, F1.crop, crop_mask, _crop_boxes)


def _pad_ltrb(padding: Any) -> list[int]:
    if isinstance(padding, int):
        return [padding] * 4
    padding = list(padding)
    if len(padding) == 1:
        return padding * 4
    if len(padding) == 2:
        return [padding[0], padding[1], padding[0], padding[1]]
    return padding


def pad_image(
    image: Tensor, padding: list[int], fill: Any = None, padding_mode: str = "constant"
) -> Tensor:
    if fill is None:
        fill = 0
    if isinstance(fill, (list, tuple)) and len(fill) == 1:
        fill = fill[0]
    if not isinstance(fill, (list, tuple)) or padding_mode != "constant":
        return F_t.pad(
            image,
            padding,
            fill=float(fill) if not isinstance(fill, (list, tuple)) else 0,
            padding_mode=padding_mode,
        )
    # one fill value per channel: pad with zeros, then fill where a padded mask is zero
    padded = F_t.pad(image, padding, fill=0, padding_mode="constant")
    inside = F_t.pad(chainrule.ones(image.shape[-2:], dtype=chainrule.bool), padding, fill=0)
    values = chainrule.tensor(fill, dtype=image.dtype).view(-1, 1, 1)
    return chainrule.where(inside, padded, values)


def pad_mask(
    mask: Tensor, padding: list[int], fill: Any = None, padding_mode: str = "constant"
) -> Tensor:
    return _on_mask(pad_image, mask, padding, fill=fill, padding_mode=padding_mode)


def _pad_boxes(
    boxes: tv_tensors.BoundingBoxes, padding: Any, fill: Any = None, padding_mode: str = "constant"
) -> Any:
    if padding_mode not in ["constant"]:
        raise ValueError(f"Padding mode '{padding_mode}' is not supported with bounding boxes")
    left, top, right, bottom = _pad_ltrb(padding)
    shift = chainrule.tensor([left, top, left, top], dtype=boxes.dtype)
    h, w = boxes.canvas_size
    return _rewrap_boxes(
        _boxes_xyxy(boxes) + shift, boxes, (h + top + bottom, w + left + right), True
    )


def pad(
    inpt: Tensor, padding: list[int], fill: Any = None, padding_mode: str = "constant"
) -> Tensor:
    """Borders of ``padding`` (left, top, right, bottom) in mode constant/edge/reflect/symmetric."""
    return _call(pad, inpt, padding, fill=fill, padding_mode=padding_mode)


def _pad_pil(image: Any, padding: Any, fill: Any = None, padding_mode: str = "constant") -> Any:
    return F1.pad(image, padding, fill=0 if fill is None else fill, padding_mode=padding_mode)


_register(pad, pad_image, _pad_pil, pad_mask, _pad_boxes)


def _center_crop_box(h: int, w: int, output_size: Any) -> tuple[list[int], int, int, int, int]:
    """Padding (ltrb, all zero when none) and the crop box ``(top, left, ch, cw)``."""
    ch, cw = F1._pair(output_size)
    pad_ltrb = [0, 0, 0, 0]
    if cw > w or ch > h:
        pad_ltrb = [
            (cw - w) // 2 if cw > w else 0,
            (ch - h) // 2 if ch > h else 0,
            (cw - w + 1) // 2 if cw > w else 0,
            (ch - h + 1) // 2 if ch > h else 0,
        ]
        h, w = h + pad_ltrb[1] + pad_ltrb[3], w + pad_ltrb[0] + pad_ltrb[2]
    return pad_ltrb, int(round((h - ch) / 2.0)), int(round((w - cw) / 2.0)), ch, cw


def center_crop_image(image: Tensor, output_size: list[int]) -> Tensor:
    return F1.center_crop(image, output_size)


def center_crop_mask(mask: Tensor, output_size: list[int]) -> Tensor:
    return _on_mask(center_crop_image, mask, output_size)


def _center_crop_boxes(boxes: tv_tensors.BoundingBoxes, output_size: Any) -> Any:
    pad_ltrb, top, left, ch, cw = _center_crop_box(*boxes.canvas_size, output_size)
    shift = chainrule.tensor([left - pad_ltrb[0], top - pad_ltrb[1]] * 2, dtype=boxes.dtype)
    return _rewrap_boxes(_boxes_xyxy(boxes) - shift, boxes, (ch, cw), True)


def center_crop(inpt: Tensor, output_size: list[int]) -> Tensor:
    """The central ``output_size`` box (zero-padded first when larger)."""
    return _call(center_crop, inpt, output_size)


_register(center_crop, center_crop_image, F1.center_crop, center_crop_mask, _center_crop_boxes)


def resized_crop_image(
    image: Tensor,
    top: int,
    left: int,
    height: int,
    width: int,
    size: list[int],
    interpolation: InterpolationMode | str | int = BILINEAR,
    antialias: bool | None = True,
) -> Tensor:
    image = crop_image(image, top, left, height, width)
    return resize_image(image, size, interpolation=interpolation, antialias=antialias)


def _resized_crop_pil(
    image: Any,
    top: int,
    left: int,
    height: int,
    width: int,
    size: Any,
    interpolation: Any = BILINEAR,
    antialias: Any = True,
) -> Any:
    return _resize_image_pil(
        F1.crop(image, top, left, height, width), size, interpolation=interpolation
    )


def resized_crop_mask(
    mask: Tensor, top: int, left: int, height: int, width: int, size: list[int]
) -> Tensor:
    return resize_mask(crop_mask(mask, top, left, height, width), size)


def _resized_crop_mask_kernel(
    mask: Tensor, top: int, left: int, height: int, width: int, size: Any, **kwargs: Any
) -> Any:
    return resized_crop_mask(mask, top, left, height, width, size)


def _resized_crop_boxes(
    boxes: tv_tensors.BoundingBoxes,
    top: int,
    left: int,
    height: int,
    width: int,
    size: Any,
    **kwargs: Any,
) -> Any:
    return _resize_boxes(_crop_boxes(boxes, top, left, height, width), size)


def resized_crop(
    inpt: Tensor,
    top: int,
    left: int,
    height: int,
    width: int,
    size: list[int],
    interpolation: InterpolationMode | str | int = BILINEAR,
    antialias: bool | None = True,
) -> Tensor:
    """``crop`` then ``resize``."""
    return _call(
        resized_crop,
        inpt,
        top,
        left,
        height,
        width,
        size,
        interpolation=interpolation,
        antialias=antialias,
    )


_register(
    resized_crop,
    resized_crop_image,
    _resized_crop_pil,
    _resized_crop_mask_kernel,
    _resized_crop_boxes,
)


def five_crop_image(image: Tensor, size: list[int]) -> tuple[Tensor, ...]:
    return F1.five_crop(image, size)


def five_crop(inpt: Tensor, size: list[int]) -> tuple[Tensor, ...]:
    """The four corner crops and the central crop."""
    return _call(five_crop, inpt, size)


def ten_crop_image(
    image: Tensor, size: list[int], vertical_flip: bool = False
) -> tuple[Tensor, ...]:
    return F1.ten_crop(image, size, vertical_flip)


def ten_crop(inpt: Tensor, size: list[int], vertical_flip: bool = False) -> tuple[Tensor, ...]:
    """``five_crop`` of the image and of its flip."""
    return _call(ten_crop, inpt, size, vertical_flip=vertical_flip)


def _tuple_wrapping(kernel: Any) -> Any:
    def wrapper(inpt: Any, *args: Any, **kwargs: Any) -> Any:
        outs = kernel(inpt.as_subclass(Tensor), *args, **kwargs)
        return tuple(tv_tensors.wrap(o, like=inpt) for o in outs)

    return wrapper


for _functional, _kernel in ((five_crop, five_crop_image), (ten_crop, ten_crop_image)):
    _register_kernel_internal(_functional, Tensor)(_kernel)
    _register_kernel_internal(_functional, _PIL)(_kernel)
    for _cls in (tv_tensors.Image, tv_tensors.Video):
        _register_kernel_internal(_functional, _cls, tv_tensor_wrapper=False)(
            _tuple_wrapping(_kernel)
        )


# ---------------------------------------------------------------- resampling


def _fill_list(fill: Any) -> Any:
    if fill is None or isinstance(fill, (list, tuple)):
        return None if fill is None else [float(f) for f in fill]
    return [float(fill)]


def affine_image(
    image: Tensor,
    angle: float,
    translate: list[float],
    scale: float,
    shear: list[float],
    interpolation: InterpolationMode | str | int = NEAREST,
    fill: Any = None,
    center: list[float] | None = None,
) -> Tensor:
    interpolation = _check_interpolation(interpolation)
    return F1.affine(image, angle, translate, scale, shear, interpolation, _fill_list(fill), center)


def _affine_pil(
    image: Any,
    angle: float,
    translate: Any,
    scale: float,
    shear: Any,
    interpolation: Any = NEAREST,
    fill: Any = None,
    center: Any = None,
) -> Any:
    return F1.affine(
        image, angle, translate, scale, shear, _check_interpolation(interpolation), fill, center
    )


def affine_mask(
    mask: Tensor,
    angle: float,
    translate: list[float],
    scale: float,
    shear: list[float],
    fill: Any = None,
    center: list[float] | None = None,
) -> Tensor:
    return _on_mask(affine_image, mask, angle, translate, scale, shear, NEAREST, fill, center)


def _affine_mask_kernel(
    mask: Tensor,
    angle: float,
    translate: Any,
    scale: float,
    shear: Any,
    interpolation: Any = None,
    fill: Any = 0,
    center: Any = None,
) -> Any:
    return affine_mask(mask, angle, translate, scale, shear, fill=fill, center=center)


def _affine_boxes(
    boxes: tv_tensors.BoundingBoxes,
    angle: float,
    translate: Any,
    scale: float,
    shear: Any,
    center: Any = None,
    expand: bool = False,
) -> Any:
    """Each box's four corners through the forward affine map; the box around them,
    shifted onto the expanded canvas when ``expand``, clamped to the canvas."""
    height, width = boxes.canvas_size
    if center is None:
        center = [width * 0.5, height * 0.5]
    shear = [shear, 0.0] if isinstance(shear, (int, float)) else list(shear)
    if len(shear) == 1:
        shear = [shear[0], shear[0]]
    m = F1._get_inverse_affine_matrix(
        list(center), angle, list(translate), scale, shear, inverted=False
    )
    dtype = boxes.dtype if boxes.is_floating_point() else chainrule.float32
    matrix_t = chainrule.tensor([[m[0], m[3]], [m[1], m[4]], [m[2], m[5]]], dtype=dtype)
    xyxy = _boxes_xyxy(boxes).to(dtype)
    corners = xyxy[:, [[0, 1], [2, 1], [0, 3], [2, 3]]]  # (N, 4, 2)
    ones = chainrule.ones(*corners.shape[:2], 1, dtype=dtype)
    moved = chainrule.cat([corners, ones], dim=-1) @ matrix_t
    out = chainrule.cat([moved.amin(dim=1), moved.amax(dim=1)], dim=-1)
    canvas = (height, width)
    if expand:
        frame = chainrule.tensor(
            [[0.0, 0.0, 1.0], [0.0, height, 1.0], [width, height, 1.0], [width, 0.0, 1.0]],
            dtype=dtype,
        )
        shift = (frame @ matrix_t).amin(dim=0)
        out = out - shift.repeat(2)
        # torchvision sizes this canvas from the inverse map about the actual center
        inverse = F1._get_inverse_affine_matrix(
            list(center), angle, list(translate), scale, shear, inverted=True
        )
        new_w, new_h = F_t._compute_affine_output_size(inverse, width, height)
        canvas = (new_h, new_w)
    return _rewrap_boxes(out, boxes, canvas, True)


def _affine_boxes_kernel(
    boxes: tv_tensors.BoundingBoxes,
    angle: float,
    translate: Any,
    scale: float,
    shear: Any,
    interpolation: Any = None,
    fill: Any = None,
    center: Any = None,
) -> Any:
    return _affine_boxes(boxes, angle, translate, scale, shear, center=center)


def _rotate_boxes_kernel(
    boxes: tv_tensors.BoundingBoxes,
    angle: float,
    interpolation: Any = None,
    expand: bool = False,
    center: Any = None,
    fill: Any = None,
) -> Any:
    return _affine_boxes(boxes, -angle, [0.0, 0.0], 1.0, [0.0, 0.0], center=center, expand=expand)


def affine(
    inpt: Tensor,
    angle: float,
    translate: list[float],
    scale: float,
    shear: list[float],
    interpolation: InterpolationMode | str | int = NEAREST,
    fill: list[float] | None = None,
    center: list[float] | None = None,
) -> Tensor:
    """Rotation, scale and shear about ``center``, then translation (same size)."""
    return _call(
        affine,
        inpt,
        angle,
        translate,
        scale,
        shear,
        interpolation=interpolation,
        fill=fill,
        center=center,
    )


_register(affine, affine_image, _affine_pil, _affine_mask_kernel, _affine_boxes_kernel)


def rotate_image(
    image: Tensor,
    angle: float,
    interpolation: InterpolationMode | str | int = NEAREST,
    expand: bool = False,
    center: list[float] | None = None,
    fill: Any = None,
) -> Tensor:
    return F1.rotate(
        image, angle, _check_interpolation(interpolation), expand, center, _fill_list(fill)
    )


def _rotate_pil(
    image: Any,
    angle: float,
    interpolation: Any = NEAREST,
    expand: bool = False,
    center: Any = None,
    fill: Any = None,
) -> Any:
    return F1.rotate(image, angle, _check_interpolation(interpolation), expand, center, fill)


def rotate_mask(
    mask: Tensor,
    angle: float,
    expand: bool = False,
    center: list[float] | None = None,
    fill: Any = None,
) -> Tensor:
    return _on_mask(rotate_image, mask, angle, NEAREST, expand, center, fill)


def _rotate_mask_kernel(
    mask: Tensor,
    angle: float,
    interpolation: Any = None,
    expand: bool = False,
    center: Any = None,
    fill: Any = 0,
) -> Any:
    return rotate_mask(mask, angle, expand=expand, center=center, fill=fill)


def rotate(
    inpt: Tensor,
    angle: float,
    interpolation: InterpolationMode | str | int = NEAREST,
    expand: bool = False,
    center: list[float] | None = None,
    fill: list[float] | None = None,
) -> Tensor:
    """Rotated ``angle`` degrees counter-clockwise."""
    return _call(
        rotate, inpt, angle, interpolation=interpolation, expand=expand, center=center, fill=fill
    )


_register(rotate, rotate_image, _rotate_pil, _rotate_mask_kernel, _rotate_boxes_kernel)


def perspective_image(
    image: Tensor,
    startpoints: list[list[int]] | None,
    endpoints: list[list[int]] | None,
    interpolation: InterpolationMode | str | int = BILINEAR,
    fill: Any = None,
    coefficients: list[float] | None = None,
) -> Tensor:
    interpolation = _check_interpolation(interpolation)
    if coefficients is None:
        if startpoints is None or endpoints is None:
            raise ValueError(
                "The perspective transform needs either startpoints and endpoints or coefficients."
            )
        coefficients = F1._get_perspective_coeffs(startpoints, endpoints)
    elif startpoints is not None or endpoints is not None:
        raise ValueError(
            "The startpoints/endpoints and the coefficients shouldn't be defined concurrently."
        )
    if len(coefficients) != 8:
        raise ValueError(
            f"Argument coefficients should have 8 float values, but got {len(coefficients)} instead."
        )
    if isinstance(image, Tensor):
        return F_t.perspective(
            image, coefficients, interpolation=interpolation.value, fill=_fill_list(fill)
        )
    return F1._pil().perspective(image, coefficients, F1.pil_modes_mapping[interpolation], fill)


def perspective_mask(
    mask: Tensor, startpoints: Any, endpoints: Any, fill: Any = None, coefficients: Any = None
) -> Tensor:
    return _on_mask(perspective_image, mask, startpoints, endpoints, NEAREST, fill, coefficients)


def _perspective_mask_kernel(
    mask: Tensor,
    startpoints: Any,
    endpoints: Any,
    interpolation: Any = None,
    fill: Any = 0,
    coefficients: Any = None,
) -> Any:
    return perspective_mask(mask, startpoints, endpoints, fill=fill, coefficients=coefficients)


def _perspective_boxes_kernel(
    boxes: tv_tensors.BoundingBoxes,
    startpoints: Any,
    endpoints: Any,
    interpolation: Any = None,
    fill: Any = None,
    coefficients: Any = None,
) -> Any:
    """Each box's corners through the homography (the inverse of the coefficients, which
    map output pixels to input pixels); the box around them, clamped to the canvas."""
    if coefficients is None:
        if startpoints is None or endpoints is None:
            raise ValueError(
                "The perspective transform needs either startpoints and endpoints or coefficients."
            )
        coefficients = F1._get_perspective_coeffs(startpoints, endpoints)
    c = coefficients
    inverse = np.linalg.inv(
        np.array([[c[0], c[1], c[2]], [c[3], c[4], c[5]], [c[6], c[7], 1.0]], np.float64)
    )
    dtype = boxes.dtype if boxes.is_floating_point() else chainrule.float32
    xyxy = _boxes_xyxy(boxes, exact=False).to(chainrule.float64)
    corners = xyxy[:, [[0, 1], [2, 1], [0, 3], [2, 3]]]
    ones = chainrule.ones(*corners.shape[:2], 1, dtype=chainrule.float64)
    moved = chainrule.cat([corners, ones], dim=-1) @ chainrule.tensor(inverse.T)
    points = moved[..., :2] / moved[..., 2:]
    out = chainrule.cat([points.amin(dim=1), points.amax(dim=1)], dim=-1).to(dtype)
    return _rewrap_boxes(out, boxes, boxes.canvas_size, True)


def perspective(
    inpt: Tensor,
    startpoints: list[list[int]] | None,
    endpoints: list[list[int]] | None,
    interpolation: InterpolationMode | str | int = BILINEAR,
    fill: list[float] | None = None,
    coefficients: list[float] | None = None,
) -> Tensor:
    """The perspective warp taking ``startpoints`` to ``endpoints`` (or given coefficients)."""
    return _call(
        perspective,
        inpt,
        startpoints,
        endpoints,
        interpolation=interpolation,
        fill=fill,
        coefficients=coefficients,
    )


_register(
    perspective,
    perspective_image,
    perspective_image,
    _perspective_mask_kernel,
    _perspective_boxes_kernel,
)


def elastic_image(
    image: Tensor,
    displacement: Tensor,
    interpolation: InterpolationMode | str | int = BILINEAR,
    fill: Any = None,
) -> Tensor:
    interpolation = _check_interpolation(interpolation)
    if not isinstance(displacement, Tensor):
        raise TypeError("Argument displacement should be a Tensor")
    expected = (
        (1, *image.shape[-2:], 2)
        if isinstance(image, Tensor)
        else (1, image.size[1], image.size[0], 2)
    )
    if tuple(displacement.shape) != expected:
        raise ValueError(
            f"Argument displacement shape should be {expected}, but given {displacement.shape}"
        )
    if isinstance(image, Tensor):
        return F_t.elastic_transform(
            image, displacement, interpolation=interpolation.value, fill=_fill_list(fill)
        )
    return F1.elastic_transform(image, displacement, interpolation, _fill_list(fill))


def elastic_mask(mask: Tensor, displacement: Tensor, fill: Any = None) -> Tensor:
    return _on_mask(elastic_image, mask, displacement, NEAREST, fill)


def _elastic_mask_kernel(
    mask: Tensor, displacement: Tensor, interpolation: Any = None, fill: Any = 0
) -> Any:
    return elastic_mask(mask, displacement, fill=fill)


def elastic(
    inpt: Tensor,
    displacement: Tensor,
    interpolation: InterpolationMode | str | int = BILINEAR,
    fill: list[float] | None = None,
) -> Tensor:
    """The image read at each pixel plus ``displacement`` (1, H, W, 2)."""
    return _call(elastic, inpt, displacement, interpolation=interpolation, fill=fill)


elastic_transform = elastic
_register(elastic, elastic_image, elastic_image, _elastic_mask_kernel)

# the video kernels are the image kernels: all of them take any leading dims
horizontal_flip_video = _renamed(horizontal_flip_image, "video", "horizontal_flip_video")
vertical_flip_video = _renamed(vertical_flip_image, "video", "vertical_flip_video")
resize_video = _renamed(resize_image, "video", "resize_video")
crop_video = _renamed(crop_image, "video", "crop_video")
pad_video = _renamed(pad_image, "video", "pad_video")
center_crop_video = _renamed(center_crop_image, "video", "center_crop_video")
resized_crop_video = _renamed(resized_crop_image, "video", "resized_crop_video")
five_crop_video = _renamed(five_crop_image, "video", "five_crop_video")
ten_crop_video = _renamed(ten_crop_image, "video", "ten_crop_video")
affine_video = _renamed(affine_image, "video", "affine_video")
rotate_video = _renamed(rotate_image, "video", "rotate_video")
perspective_video = _renamed(perspective_image, "video", "perspective_video")
elastic_video = _renamed(elastic_image, "video", "elastic_video")

__all__ = [
    "affine",
    "affine_image",
    "affine_mask",
    "affine_video",
    "center_crop",
    "center_crop_image",
    "center_crop_mask",
    "center_crop_video",
    "crop",
    "crop_image",
    "crop_mask",
    "crop_video",
    "elastic",
    "elastic_image",
    "elastic_mask",
    "elastic_transform",
    "elastic_video",
    "five_crop",
    "five_crop_image",
    "five_crop_video",
    "hflip",
    "horizontal_flip",
    "horizontal_flip_image",
    "horizontal_flip_mask",
    "horizontal_flip_video",
    "pad",
    "pad_image",
    "pad_mask",
    "pad_video",
    "perspective",
    "perspective_image",
    "perspective_mask",
    "perspective_video",
    "resize",
    "resize_image",
    "resize_mask",
    "resize_video",
    "resized_crop",
    "resized_crop_image",
    "resized_crop_mask",
    "resized_crop_video",
    "rotate",
    "rotate_image",
    "rotate_mask",
    "rotate_video",
    "ten_crop",
    "ten_crop_image",
    "ten_crop_video",
    "vertical_flip",
    "vertical_flip_image",
    "vertical_flip_mask",
    "vertical_flip_video",
    "vflip",
]
