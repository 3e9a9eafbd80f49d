"""v2 geometric transforms: resizes, crops, pads, flips and the resampling warps. Each
draws its parameters once per call and applies the same to every input it touches."""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Sequence
from typing import Any

import chainrule

from ... import tv_tensors
from .. import functional as F1
from ..functional import InterpolationMode
from ..transforms import RandomPerspective as _V1Perspective
from ..transforms import _check_sequence_input, _setup_angle
from . import functional as F
from ._transform import Transform, _RandomApplyTransform
from ._utils import _get_fill, _setup_fill_arg, _setup_size, has_any, query_size
from .functional._utils import _check_interpolation

_SIZE_MSG = "Please provide only two dimensions (h, w) for size."


def _uniform(low: float, high: float) -> float:
    return float(chainrule.empty(1).uniform_(low, high).item())


def _randint(low: int, high: int) -> int:
    return int(chainrule.randint(low, high, size=(1,)).item())


def _mode_value(interpolation: Any) -> str | InterpolationMode | int:
    """The interpolation as given (a mode, its string or a Pillow constant), once checked."""
    _check_interpolation(interpolation)
    return interpolation


class RandomHorizontalFlip(_RandomApplyTransform):
    """Mirrored left to right with probability ``p``."""

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(F.horizontal_flip, inpt)


class RandomVerticalFlip(_RandomApplyTransform):
    """Mirrored top to bottom with probability ``p``."""

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(F.vertical_flip, inpt)


class Resize(Transform):
    """Resize to ``size`` (``[h, w]``, or one number for the shorter edge)."""

    def __init__(
        self,
        size: int | Sequence[int] | None,
        interpolation: str | InterpolationMode | int = "bilinear",
        max_size: int | None = None,
        antialias: bool | None = True,
    ) -> None:
        super().__init__()
        if isinstance(size, int):
            size = [size]
        elif isinstance(size, Sequence) and len(size) in {1, 2}:
            size = list(size)
        elif size is None:
            if not isinstance(max_size, int):
                raise ValueError(
                    f"max_size must be an integer when size is None, but got {max_size} instead."
                )
        else:
            raise ValueError(
                f"size can be an integer, a sequence of one or two integers, or None, but got {size} instead."
            )
        self.size = size
        self.interpolation = _mode_value(interpolation)
        self.max_size = max_size
        self.antialias = antialias

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(
            F.resize,
            inpt,
            self.size,
            interpolation=self.interpolation,
            max_size=self.max_size,
            antialias=self.antialias,
        )


class CenterCrop(Transform):
    """The central ``size`` box."""

    def __init__(self, size: int | Sequence[int]) -> None:
        super().__init__()
        self.size = _setup_size(size, error_msg=_SIZE_MSG)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(F.center_crop, inpt, output_size=self.size)


class RandomResizedCrop(Transform):
    """A crop of random area fraction and aspect ratio, resized to ``size``."""

    def __init__(
        self,
        size: int | Sequence[int],
        scale: tuple[float, float] = (0.08, 1.0),
        ratio: tuple[float, float] = (3.0 / 4.0, 4.0 / 3.0),
        interpolation: str | InterpolationMode | int = "bilinear",
        antialias: bool | None = True,
    ) -> None:
        super().__init__()
        self.size = _setup_size(size, error_msg=_SIZE_MSG)
        if not isinstance(scale, Sequence):
            raise TypeError("Scale should be a sequence")
        if not isinstance(ratio, Sequence):
            raise TypeError("Ratio should be a sequence")
        if (scale[0] > scale[1]) or (ratio[0] > ratio[1]):
            warnings.warn("Scale and ratio should be of kind (min, max)", stacklevel=2)
        self.scale = scale
        self.ratio = ratio
        self.interpolation = _mode_value(interpolation)
        self.antialias = antialias

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        height, width = query_size(flat_inputs)
        area = height * width
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(10):
            target_area = area * _uniform(self.scale[0], self.scale[1])
            aspect_ratio = math.exp(_uniform(*log_ratio))
            w = int(round(math.sqrt(target_area * aspect_ratio)))
            h = int(round(math.sqrt(target_area / aspect_ratio)))
            if 0 < w <= width and 0 < h <= height:
                return {
                    "top": _randint(0, height - h + 1),
                    "left": _randint(0, width - w + 1),
                    "height": h,
                    "width": w,
                }
        in_ratio = float(width) / float(height)
        if in_ratio < min(self.ratio):
            w, h = width, int(round(width / min(self.ratio)))
        elif in_ratio > max(self.ratio):
            h, w = height, int(round(height * max(self.ratio)))
        else:
            w, h = width, height
        return {"top": (height - h) // 2, "left": (width - w) // 2, "height": h, "width": w}

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(
            F.resized_crop,
            inpt,
            **params,
            size=self.size,
            interpolation=self.interpolation,
            antialias=self.antialias,
        )


def _no_masks_or_boxes(transform: Transform, flat_inputs: list[Any]) -> None:
    if has_any(flat_inputs, tv_tensors.BoundingBoxes, tv_tensors.Mask):
        raise TypeError(
            f"BoundingBoxes'es and Mask's are not supported by {type(transform).__name__}()"
        )


class FiveCrop(Transform):
    """The four corner crops and the central crop, as a tuple."""

    def check_inputs(self, flat_inputs: list[Any]) -> None:
        _no_masks_or_boxes(self, flat_inputs)

    def __init__(self, size: int | Sequence[int]) -> None:
        super().__init__()
        self.size = _setup_size(size, error_msg=_SIZE_MSG)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(F.five_crop, inpt, self.size)


class TenCrop(Transform):
    """``FiveCrop`` of the image and of its flip."""

    def check_inputs(self, flat_inputs: list[Any]) -> None:
        _no_masks_or_boxes(self, flat_inputs)

    def __init__(self, size: int | Sequence[int], vertical_flip: bool = False) -> None:
        super().__init__()
        self.size = _setup_size(size, error_msg=_SIZE_MSG)
        self.vertical_flip = vertical_flip

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(F.ten_crop, inpt, self.size, vertical_flip=self.vertical_flip)


def _check_padding(padding: Any) -> None:
    if not isinstance(padding, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate padding arg")
    if isinstance(padding, (tuple, list)) and len(padding) not in [1, 2, 4]:
        raise ValueError(
            f"Padding must be an int or a 1, 2, or 4 element of tuple or list, got {len(padding)}."
        )


def _check_padding_mode(padding_mode: str) -> None:
    if padding_mode not in ["constant", "edge", "reflect", "symmetric"]:
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")


class Pad(Transform):
    """Fixed borders (see :func:`.functional.pad`)."""

    def __init__(
        self, padding: int | Sequence[int], fill: Any = 0, padding_mode: str = "constant"
    ) -> None:
        super().__init__()
        _check_padding(padding)
        _check_padding_mode(padding_mode)
        self.padding = padding
        self.fill = fill
        self._fill = _setup_fill_arg(fill)
        self.padding_mode = padding_mode

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        fill = _get_fill(self._fill, type(inpt))
        return self._call_kernel(
            F.pad, inpt, padding=self.padding, fill=fill, padding_mode=self.padding_mode
        )


def _lrtb(padding: Any) -> list[int]:
    """``[left, right, top, bottom]`` from torchvision's 1-, 2- or 4-number padding."""
    if isinstance(padding, int):
        return [padding] * 4
    padding = list(padding)
    if len(padding) == 1:
        return padding * 4
    if len(padding) == 2:
        return [padding[0], padding[0], padding[1], padding[1]]
    return [padding[0], padding[2], padding[1], padding[3]]


class RandomCrop(Transform):
    """A ``size`` box at a uniform position, after optional padding."""

    def __init__(
        self,
        size: int | Sequence[int],
        padding: int | Sequence[int] | None = None,
        pad_if_needed: bool = False,
        fill: Any = 0,
        padding_mode: str = "constant",
    ) -> None:
        super().__init__()
        self.size = _setup_size(size, error_msg=_SIZE_MSG)
        if padding is not None:
            _check_padding(padding)
        _check_padding_mode(padding_mode)
        self.padding = _lrtb(padding) if padding is not None else None
        self.pad_if_needed = pad_if_needed
        self.fill = fill
        self._fill = _setup_fill_arg(fill)
        self.padding_mode = padding_mode

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        height, width = query_size(flat_inputs)
        left, right, top, bottom = self.padding if self.padding is not None else [0, 0, 0, 0]
        height, width = height + top + bottom, width + left + right
        crop_h, crop_w = self.size
        if self.pad_if_needed:
            if height < crop_h:
                diff = crop_h - height
                top, bottom, height = top + diff, bottom + diff, height + 2 * diff
            if width < crop_w:
                diff = crop_w - width
                left, right, width = left + diff, right + diff, width + 2 * diff
        if height < crop_h or width < crop_w:
            raise ValueError(
                f"Required crop size {(crop_h, crop_w)} is larger than input image size {(height, width)}."
            )
        padding = [left, top, right, bottom]
        return {
            "padding": padding,
            "needs_pad": any(padding),
            "top": _randint(0, height - crop_h + 1) if height > crop_h else 0,
            "left": _randint(0, width - crop_w + 1) if width > crop_w else 0,
            "needs_crop": height > crop_h or width > crop_w,
        }

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        if params["needs_pad"]:
            fill = _get_fill(self._fill, type(inpt))
            inpt = self._call_kernel(
                F.pad, inpt, padding=params["padding"], fill=fill, padding_mode=self.padding_mode
            )
        if params["needs_crop"]:
            inpt = self._call_kernel(
                F.crop, inpt, params["top"], params["left"], self.size[0], self.size[1]
            )
        return inpt


class RandomZoomOut(_RandomApplyTransform):
    """The image placed at a random spot of a canvas ``side_range`` times larger."""

    def __init__(
        self, fill: Any = 0, side_range: Sequence[float] = (1.0, 4.0), p: float = 0.5
    ) -> None:
        super().__init__(p=p)
        self.fill = fill
        self._fill = _setup_fill_arg(fill)
        _check_sequence_input(side_range, "side_range", req_sizes=(2,))
        self.side_range = side_range
        if side_range[0] < 1.0 or side_range[0] > side_range[1]:
            raise ValueError(f"Invalid side range provided {side_range}.")

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        orig_h, orig_w = query_size(flat_inputs)
        r = self.side_range[0] + chainrule.rand(1).item() * (
            self.side_range[1] - self.side_range[0]
        )
        canvas_w, canvas_h = int(orig_w * r), int(orig_h * r)
        u = chainrule.rand(2).tolist()
        left = int((canvas_w - orig_w) * u[0])
        top = int((canvas_h - orig_h) * u[1])
        return {"padding": [left, top, canvas_w - (left + orig_w), canvas_h - (top + orig_h)]}

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(F.pad, inpt, **params, fill=_get_fill(self._fill, type(inpt)))


class RandomRotation(Transform):
    """Rotation by a uniform angle in ``degrees``."""

    def __init__(
        self,
        degrees: float | Sequence[float],
        interpolation: str | InterpolationMode | int = "nearest",
        expand: bool = False,
        center: list[float] | None = None,
        fill: Any = 0,
    ) -> None:
        super().__init__()
        self.degrees = _setup_angle(degrees, name="degrees", req_sizes=(2,))
        self.interpolation = _mode_value(interpolation)
        self.expand = expand
        self.fill = fill
        self._fill = _setup_fill_arg(fill)
        if center is not None:
            _check_sequence_input(center, "center", req_sizes=(2,))
        self.center = center

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        return {"angle": _uniform(self.degrees[0], self.degrees[1])}

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(
            F.rotate,
            inpt,
            **params,
            interpolation=self.interpolation,
            expand=self.expand,
            center=self.center,
            fill=_get_fill(self._fill, type(inpt)),
        )


class RandomAffine(Transform):
    """Random rotation, translation, scale and shear."""

    def __init__(
        self,
        degrees: float | Sequence[float],
        translate: Sequence[float] | None = None,
        scale: Sequence[float] | None = None,
        shear: float | Sequence[float] | None = None,
        interpolation: str | InterpolationMode | int = "nearest",
        fill: Any = 0,
        center: list[float] | None = None,
    ) -> None:
        super().__init__()
        self.degrees = _setup_angle(degrees, name="degrees", req_sizes=(2,))
        if translate is not None:
            _check_sequence_input(translate, "translate", req_sizes=(2,))
            for t in translate:
                if not (0.0 <= t <= 1.0):
                    raise ValueError("translation values should be between 0 and 1")
        self.translate = translate
        if scale is not None:
            _check_sequence_input(scale, "scale", req_sizes=(2,))
            for s in scale:
                if s <= 0:
                    raise ValueError("scale values should be positive")
        self.scale = scale
        self.shear = (
            _setup_angle(shear, name="shear", req_sizes=(2, 4)) if shear is not None else None
        )
        self.interpolation = _mode_value(interpolation)
        self.fill = fill
        self._fill = _setup_fill_arg(fill)
        if center is not None:
            _check_sequence_input(center, "center", req_sizes=(2,))
        self.center = center

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        height, width = query_size(flat_inputs)
        angle = _uniform(self.degrees[0], self.degrees[1])
        translate = (0, 0)
        if self.translate is not None:
            max_dx, max_dy = float(self.translate[0] * width), float(self.translate[1] * height)
            translate = (
                int(round(_uniform(-max_dx, max_dx))),
                int(round(_uniform(-max_dy, max_dy))),
            )
        scale = _uniform(self.scale[0], self.scale[1]) if self.scale is not None else 1.0
        shear_x = shear_y = 0.0
        if self.shear is not None:
            shear_x = _uniform(self.shear[0], self.shear[1])
            if len(self.shear) == 4:
                shear_y = _uniform(self.shear[2], self.shear[3])
        return {"angle": angle, "translate": translate, "scale": scale, "shear": (shear_x, shear_y)}

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(
            F.affine,
            inpt,
            **params,
            interpolation=self.interpolation,
            fill=_get_fill(self._fill, type(inpt)),
            center=self.center,
        )


class RandomPerspective(_RandomApplyTransform):
    """With probability ``p``, a perspective warp of random corners."""

    def __init__(
        self,
        distortion_scale: float = 0.5,
        p: float = 0.5,
        interpolation: str | InterpolationMode | int = "bilinear",
        fill: Any = 0,
    ) -> None:
        super().__init__(p=p)
        if not (0 <= distortion_scale <= 1):
            raise ValueError("Argument distortion_scale value should be between 0 and 1")
        self.distortion_scale = distortion_scale
        self.interpolation = _mode_value(interpolation)
        self.fill = fill
        self._fill = _setup_fill_arg(fill)

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        height, width = query_size(flat_inputs)
        startpoints, endpoints = _V1Perspective.get_params(width, height, self.distortion_scale)
        return {"coefficients": F1._get_perspective_coeffs(startpoints, endpoints)}

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(
            F.perspective,
            inpt,
            None,
            None,
            fill=_get_fill(self._fill, type(inpt)),
            interpolation=self.interpolation,
            **params,
        )


class ElasticTransform(Transform):
    """Pixels displaced by smoothed random noise."""

    def __init__(
        self,
        alpha: float | Sequence[float] = 50.0,
        sigma: float | Sequence[float] = 5.0,
        interpolation: str | InterpolationMode | int = "bilinear",
        fill: Any = 0,
    ) -> None:
        super().__init__()
        self.alpha = _setup_number_or_seq(alpha, "alpha")
        self.sigma = _setup_number_or_seq(sigma, "sigma")
        self.interpolation = _mode_value(interpolation)
        self.fill = fill
        self._fill = _setup_fill_arg(fill)

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        from ..transforms import ElasticTransform as V1Elastic

        size = list(query_size(flat_inputs))
        return {"displacement": V1Elastic.get_params(self.alpha, self.sigma, size)}

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(
            F.elastic,
            inpt,
            **params,
            fill=_get_fill(self._fill, type(inpt)),
            interpolation=self.interpolation,
        )


def _setup_number_or_seq(arg: Any, name: str) -> list[float]:
    if not isinstance(arg, (int, float, Sequence)):
        raise TypeError(f"{name} should be a number or a sequence of numbers. Got {type(arg)}")
    if isinstance(arg, Sequence) and len(arg) not in (1, 2):
        raise ValueError(f"If {name} is a sequence its length should be 1 or 2. Got {len(arg)}")
    if isinstance(arg, Sequence):
        arg = [float(a) for a in arg]
    if isinstance(arg, (int, float)):
        arg = [float(arg), float(arg)]
    elif len(arg) == 1:
        arg = [arg[0], arg[0]]
    return arg


class ScaleJitter(Transform):
    """Resize by ``scale`` (uniform in ``scale_range``) times the factor fitting ``target_size``."""

    def __init__(
        self,
        target_size: tuple[int, int],
        scale_range: tuple[float, float] = (0.1, 2.0),
        interpolation: str | InterpolationMode | int = "bilinear",
        antialias: bool | None = True,
    ) -> None:
        super().__init__()
        self.target_size = target_size
        self.scale_range = scale_range
        self.interpolation = _mode_value(interpolation)
        self.antialias = antialias

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        orig_h, orig_w = query_size(flat_inputs)
        scale = self.scale_range[0] + chainrule.rand(1).item() * (
            self.scale_range[1] - self.scale_range[0]
        )
        r = min(self.target_size[1] / orig_h, self.target_size[0] / orig_w) * scale
        return {"size": (int(orig_h * r), int(orig_w * r))}

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(
            F.resize,
            inpt,
            list(params["size"]),
            interpolation=self.interpolation,
            antialias=self.antialias,
        )


class RandomShortestSize(Transform):
    """Shorter edge resized to a random one of ``min_size`` (longer edge capped by ``max_size``)."""

    def __init__(
        self,
        min_size: int | Sequence[int],
        max_size: int | None = None,
        interpolation: str | InterpolationMode | int = "bilinear",
        antialias: bool | None = True,
    ) -> None:
        super().__init__()
        self.min_size = [min_size] if isinstance(min_size, int) else list(min_size)
        self.max_size = max_size
        self.interpolation = _mode_value(interpolation)
        self.antialias = antialias

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        orig_h, orig_w = query_size(flat_inputs)
        min_size = self.min_size[_randint(0, len(self.min_size))]
        r = min_size / min(orig_h, orig_w)
        if self.max_size is not None:
            r = min(r, self.max_size / max(orig_h, orig_w))
        return {"size": (int(orig_h * r), int(orig_w * r))}

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(
            F.resize,
            inpt,
            list(params["size"]),
            interpolation=self.interpolation,
            antialias=self.antialias,
        )


class RandomResize(Transform):
    """Shorter edge resized to a uniform integer in ``[min_size, max_size)``."""

    def __init__(
        self,
        min_size: int,
        max_size: int,
        interpolation: str | InterpolationMode | int = "bilinear",
        antialias: bool | None = True,
    ) -> None:
        super().__init__()
        self.min_size = min_size
        self.max_size = max_size
        self.interpolation = _mode_value(interpolation)
        self.antialias = antialias

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        return {"size": [_randint(self.min_size, self.max_size)]}

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._call_kernel(
            F.resize,
            inpt,
            params["size"],
            interpolation=self.interpolation,
            antialias=self.antialias,
        )
