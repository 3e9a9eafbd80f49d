"""Kernels for ``tv_tensors.KeyPoints``: points ``(..., 2)`` moved by the geometric
transforms (flips, crops, pads, resizes, affine, rotate, perspective, elastic), and
clamping and sanitizing to the canvas. The geometric functionals dispatch to them."""

from __future__ import annotations

from typing import Any

import numpy as np

import chainrule
from chainrule import Tensor

from .... import tv_tensors
from ... import _functional_tensor as F_t
from ... import functional as F1
from . import _geometry as G
from . import _meta as M
from ._utils import _register_kernel_internal, is_pure_tensor


def _float(points: Tensor) -> Tensor:
    return points if points.is_floating_point() else points.to(chainrule.float32)


def horizontal_flip_keypoints(keypoints: Tensor, canvas_size: tuple[int, int]) -> Tensor:
    """``x -> W - 1 - x``."""
    x, y = keypoints.unbind(-1)
    return chainrule.stack([canvas_size[1] - 1 - x, y], dim=-1)


def vertical_flip_keypoints(keypoints: Tensor, canvas_size: tuple[int, int]) -> Tensor:
    """``y -> H - 1 - y``."""
    x, y = keypoints.unbind(-1)
    return chainrule.stack([x, canvas_size[0] - 1 - y], dim=-1)


def crop_keypoints(
    keypoints: Tensor, top: int, left: int, height: int, width: int
) -> tuple[Tensor, tuple[int, int]]:
    """Points relative to the crop's corner (not clamped), and the crop's size."""
    shift = chainrule.tensor([left, top], dtype=keypoints.dtype)
    return keypoints - shift, (height, width)


def pad_keypoints(
    keypoints: Tensor,
    canvas_size: tuple[int, int],
    padding: list[int],
    padding_mode: str = "constant",
) -> tuple[Tensor, tuple[int, int]]:
    """Points shifted by the left and top padding, and the padded canvas."""
    if padding_mode not in ["constant"]:
        raise ValueError(
            f"Padding mode '{padding_mode}' is not supported with KeyPoints"
            " (supported modes are constant)"
        )
    left, top, right, bottom = G._pad_ltrb(padding)
    shift = chainrule.tensor([left, top], dtype=keypoints.dtype)
    height, width = canvas_size
    return keypoints + shift, (height + top + bottom, width + left + right)


def resize_keypoints(
    keypoints: Tensor,
    size: list[int] | None,
    canvas_size: tuple[int, int],
    max_size: int | None = None,
) -> tuple[Tensor, tuple[int, int]]:
    """Points scaled by ``new / old`` along each axis, and the new canvas."""
    if isinstance(size, int):
        size = [size]
    height, width = canvas_size
    new_h, new_w = F1._compute_resized_output_size((height, width), size, max_size)
    scale = chainrule.tensor([new_w / width, new_h / height])
    out = _float(keypoints) * scale.to(_float(keypoints).dtype)
    return out.to(keypoints.dtype), (new_h, new_w)


def center_crop_keypoints(
    inpt: Tensor, canvas_size: tuple[int, int], output_size: list[int]
) -> tuple[Tensor, tuple[int, int]]:
    """Points in the central ``output_size`` crop (padded first when larger)."""
    pad_ltrb, top, left, ch, cw = G._center_crop_box(*canvas_size, output_size)
    shift = chainrule.tensor([left - pad_ltrb[0], top - pad_ltrb[1]], dtype=inpt.dtype)
    return inpt - shift, (ch, cw)


def resized_crop_keypoints(
    keypoints: Tensor, top: int, left: int, height: int, width: int, size: list[int]
) -> tuple[Tensor, tuple[int, int]]:
    """``crop_keypoints`` then ``resize_keypoints``."""
    keypoints, canvas_size = crop_keypoints(keypoints, top, left, height, width)
    return resize_keypoints(keypoints, size, canvas_size)


def _apply_matrix(points: Tensor, matrix: list[float]) -> Tensor:
    """``(x, y)`` through the 2x3 affine ``matrix`` (row-major)."""
    dtype = _float(points).dtype
    m = chainrule.tensor([[matrix[0], matrix[3]], [matrix[1], matrix[4]]], dtype=dtype)
    t = chainrule.tensor([matrix[2], matrix[5]], dtype=dtype)
    return _float(points) @ m + t


def _affine_matrix(
    canvas_size: tuple[int, int],
    angle: float,
    translate: Any,
    scale: float,
    shear: Any,
    center: Any,
) -> list[float]:
    height, width = canvas_size
    if center is None:
        center = [width * 0.5, height * 0.5]
    shear = [shear, 0.0] if isinstance(shear, (int, float)) else list(shear)
    if len(shear) == 1:
        shear = [shear[0], shear[0]]
    return F1._get_inverse_affine_matrix(
        list(center), angle, list(translate), scale, shear, inverted=False
    )


def affine_keypoints(
    keypoints: Tensor,
    canvas_size: tuple[int, int],
    angle: float,
    translate: list[float],
    scale: float,
    shear: list[float],
    center: list[float] | None = None,
) -> tuple[Tensor, tuple[int, int]]:
    """Points through the forward affine map about ``center`` (not clamped)."""
    matrix = _affine_matrix(canvas_size, angle, translate, scale, shear, center)
    return _apply_matrix(keypoints, matrix).to(keypoints.dtype), tuple(canvas_size)


def rotate_keypoints(
    keypoints: Tensor,
    canvas_size: tuple[int, int],
    angle: float,
    expand: bool = False,
    center: list[float] | None = None,
) -> tuple[Tensor, tuple[int, int]]:
    """Points rotated ``angle`` degrees counter-clockwise; with ``expand``, moved onto the
    canvas that holds the whole rotated image."""
    height, width = canvas_size
    matrix = _affine_matrix(canvas_size, -angle, [0.0, 0.0], 1.0, [0.0, 0.0], center)
    out = _apply_matrix(keypoints, matrix)
    if expand:
        frame = chainrule.tensor(
            [[0.0, 0.0], [0.0, height], [width, height], [width, 0.0]], dtype=out.dtype
        )
        out = out - _apply_matrix(frame, matrix).amin(dim=0)
        # torchvision sizes this canvas from the inverse map about the actual center
        if center is None:
            center = [width * 0.5, height * 0.5]
        inverse = F1._get_inverse_affine_matrix(
            list(center), -angle, [0.0, 0.0], 1.0, [0.0, 0.0], inverted=True
        )
        new_w, new_h = F_t._compute_affine_output_size(inverse, width, height)
        canvas_size = (new_h, new_w)
    return out.to(keypoints.dtype), tuple(canvas_size)


def perspective_keypoints(
    keypoints: Tensor,
    canvas_size: tuple[int, int],
    startpoints: list[list[int]] | None,
    endpoints: list[list[int]] | None,
    coefficients: list[float] | None = None,
) -> Tensor:
    """Points through the homography taking ``startpoints`` to ``endpoints`` (the inverse of
    the coefficients, which map output pixels to input pixels)."""
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
    c = coefficients
    inverse = np.linalg.inv(
        np.array([[c[0], c[1], c[2]], [c[3], c[4], c[5]], [c[6], c[7], 1.0]], np.float64)
    )
    points = keypoints.to(chainrule.float64)
    ones = chainrule.ones(*points.shape[:-1], 1, dtype=chainrule.float64)
    moved = chainrule.cat([points, ones], dim=-1) @ chainrule.tensor(inverse.T)
    out = moved[..., :2] / moved[..., 2:]
    return out.to(_float(keypoints).dtype).to(keypoints.dtype)


def elastic_keypoints(
    keypoints: Tensor, canvas_size: tuple[int, int], displacement: Tensor
) -> Tensor:
    """Each point moved against the displacement (normalized units, ``(1, H, W, 2)``) at the
    pixel it falls in: ``p_pixel - d * (W / 2, H / 2)`` (an approximate inverse of the image
    warp, as torchvision computes it)."""
    if not isinstance(displacement, Tensor):
        raise TypeError("Argument displacement should be a Tensor")
    height, width = canvas_size
    if tuple(displacement.shape) != (1, height, width, 2):
        raise ValueError(
            f"Argument displacement shape should be {(1, height, width, 2)}, "
            f"but given {displacement.shape}"
        )
    dtype = _float(keypoints).dtype
    index = keypoints.to(chainrule.int64)
    ix = index[..., 0].clamp(0, width - 1)
    iy = index[..., 1].clamp(0, height - 1)
    d = displacement.to(dtype)[0][iy, ix]
    scale = chainrule.tensor([width / 2, height / 2], dtype=dtype)
    out = chainrule.stack([ix, iy], dim=-1).to(dtype) - d * scale
    return out.to(keypoints.dtype)


def clamp_keypoints(inpt: Tensor, canvas_size: tuple[int, int] | None = None) -> Tensor:
    """Points clipped to the canvas ``[0, W - 1] x [0, H - 1]``."""
    if is_pure_tensor(inpt):
        if canvas_size is None:
            raise ValueError("For pure tensor inputs, `canvas_size` has to be passed.")
        return _clamp_keypoints(inpt, canvas_size)
    if isinstance(inpt, tv_tensors.KeyPoints):
        if canvas_size is not None:
            raise ValueError("For keypoints tv_tensor inputs, `canvas_size` must not be passed.")
        out = _clamp_keypoints(inpt.as_subclass(Tensor), inpt.canvas_size)
        return tv_tensors.wrap(out, like=inpt)
    raise TypeError(
        f"Input can either be a plain tensor or a keypoints tv_tensor, but got {type(inpt)} instead."
    )


def _clamp_keypoints(keypoints: Tensor, canvas_size: tuple[int, int]) -> Tensor:
    x, y = keypoints.unbind(-1)
    height, width = canvas_size
    return chainrule.stack([x.clamp(0, width - 1), y.clamp(0, height - 1)], dim=-1)


def sanitize_keypoints(
    key_points: Tensor, canvas_size: tuple[int, int] | None = None
) -> tuple[Tensor, Tensor]:
    """The points (or groups of points, along the first dim of a tensor of 3 or more dims)
    that lie inside the canvas ``[0, W) x [0, H)``, and the mask of which were kept."""
    if is_pure_tensor(key_points):
        if canvas_size is None:
            raise ValueError(
                "canvas_size cannot be None if key_points is a pure tensor. Set it to an "
                "appropriate value or pass key_points as a tv_tensors.KeyPoints object."
            )
    elif isinstance(key_points, tv_tensors.KeyPoints):
        if canvas_size is not None:
            raise ValueError(
                "canvas_size must be None when key_points is a tv_tensors.KeyPoints. "
                f"Got canvas_size={canvas_size}."
            )
        canvas_size = key_points.canvas_size
    else:
        raise ValueError("key_points must be a tv_tensors.KeyPoints instance or a pure tensor.")
    points = key_points.as_subclass(Tensor)
    height, width = canvas_size
    x, y = points[..., 0], points[..., 1]
    inside = (x >= 0) & (x < width) & (y >= 0) & (y < height)
    if inside.ndim > 1:
        inside = inside.reshape(inside.shape[0], -1).all(dim=1)
    kept = points[inside]
    if isinstance(key_points, tv_tensors.KeyPoints):
        kept = tv_tensors.wrap(kept, like=key_points)
    return kept, inside


def get_size_keypoints(keypoints: tv_tensors.KeyPoints) -> list[int]:
    return list(keypoints.canvas_size)


# ---------------------------------------------------------------- dispatch


def _rewrap(out: Any, like: tv_tensors.KeyPoints) -> Any:
    if isinstance(out, tuple):
        points, canvas_size = out
        return tv_tensors.wrap(points, like=like, canvas_size=tuple(canvas_size))
    return tv_tensors.wrap(out, like=like)


def _plain(kp: tv_tensors.KeyPoints) -> Tensor:
    return kp.as_subclass(Tensor)


def _hflip(kp: Any) -> Any:
    return _rewrap(horizontal_flip_keypoints(_plain(kp), kp.canvas_size), kp)


def _vflip(kp: Any) -> Any:
    return _rewrap(vertical_flip_keypoints(_plain(kp), kp.canvas_size), kp)


def _crop(kp: Any, top: int, left: int, height: int, width: int) -> Any:
    return _rewrap(crop_keypoints(_plain(kp), top, left, height, width), kp)


def _pad(kp: Any, padding: Any, fill: Any = None, padding_mode: str = "constant") -> Any:
    return _rewrap(pad_keypoints(_plain(kp), kp.canvas_size, padding, padding_mode), kp)


def _resize(kp: Any, size: Any, interpolation: Any = None, max_size: Any = None, **kw: Any) -> Any:
    return _rewrap(resize_keypoints(_plain(kp), size, kp.canvas_size, max_size), kp)


def _center_crop(kp: Any, output_size: Any) -> Any:
    return _rewrap(center_crop_keypoints(_plain(kp), kp.canvas_size, output_size), kp)


def _resized_crop(
    kp: Any, top: int, left: int, height: int, width: int, size: Any, **kw: Any
) -> Any:
    return _rewrap(resized_crop_keypoints(_plain(kp), top, left, height, width, size), kp)


def _affine(
    kp: Any,
    angle: float,
    translate: Any,
    scale: float,
    shear: Any,
    interpolation: Any = None,
    fill: Any = None,
    center: Any = None,
) -> Any:
    out = affine_keypoints(_plain(kp), kp.canvas_size, angle, translate, scale, shear, center)
    return _rewrap(out, kp)


def _rotate(
    kp: Any,
    angle: float,
    interpolation: Any = None,
    expand: bool = False,
    center: Any = None,
    fill: Any = None,
) -> Any:
    return _rewrap(rotate_keypoints(_plain(kp), kp.canvas_size, angle, expand, center), kp)


def _perspective(
    kp: Any,
    startpoints: Any,
    endpoints: Any,
    interpolation: Any = None,
    fill: Any = None,
    coefficients: Any = None,
) -> Any:
    out = perspective_keypoints(_plain(kp), kp.canvas_size, startpoints, endpoints, coefficients)
    return _rewrap(out, kp)


def _elastic(kp: Any, displacement: Tensor, interpolation: Any = None, fill: Any = None) -> Any:
    return _rewrap(elastic_keypoints(_plain(kp), kp.canvas_size, displacement), kp)


for _functional, _kernel in (
    (G.horizontal_flip, _hflip),
    (G.vertical_flip, _vflip),
    (G.crop, _crop),
    (G.pad, _pad),
    (G.resize, _resize),
    (G.center_crop, _center_crop),
    (G.resized_crop, _resized_crop),
    (G.affine, _affine),
    (G.rotate, _rotate),
    (G.perspective, _perspective),
    (G.elastic, _elastic),
    (M.get_size, get_size_keypoints),
):
    _register_kernel_internal(_functional, tv_tensors.KeyPoints, tv_tensor_wrapper=False)(_kernel)

__all__ = [
    "affine_keypoints",
    "center_crop_keypoints",
    "clamp_keypoints",
    "crop_keypoints",
    "elastic_keypoints",
    "get_size_keypoints",
    "horizontal_flip_keypoints",
    "pad_keypoints",
    "perspective_keypoints",
    "resize_keypoints",
    "resized_crop_keypoints",
    "rotate_keypoints",
    "sanitize_keypoints",
    "vertical_flip_keypoints",
]
