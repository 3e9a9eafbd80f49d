"""``torchvision.transforms.functional``: each function takes a chainrule tensor image
``(..., C, H, W)`` or a PIL image and dispatches to the tensor kernels
(:mod:`._functional_tensor`) or to Pillow (:mod:`._functional_pil`, imported on demand)."""

from __future__ import annotations

import math
import numbers
import sys
import warnings
from enum import Enum
from typing import Any

import numpy as np

import chainrule
from chainrule import Tensor

from . import _functional_tensor as F_t


class InterpolationMode(Enum):
    """How pixels are resampled: torchvision's names, with interpolate's mode as value."""

    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    BOX = "box"
    HAMMING = "hamming"
    LANCZOS = "lanczos"


# Pillow's resampling constants (Image.Resampling) for each mode
pil_modes_mapping = {
    InterpolationMode.NEAREST: 0,
    InterpolationMode.BILINEAR: 2,
    InterpolationMode.BICUBIC: 3,
    InterpolationMode.NEAREST_EXACT: 0,
    InterpolationMode.BOX: 4,
    InterpolationMode.HAMMING: 5,
    InterpolationMode.LANCZOS: 1,
}

_FROM_PIL_INT = {
    0: InterpolationMode.NEAREST,
    2: InterpolationMode.BILINEAR,
    3: InterpolationMode.BICUBIC,
    4: InterpolationMode.BOX,
    5: InterpolationMode.HAMMING,
    1: InterpolationMode.LANCZOS,
}


def _interpolation_modes_from_int(i: int) -> InterpolationMode:
    return _FROM_PIL_INT[i]


def _check_interpolation(interpolation: Any) -> InterpolationMode:
    if isinstance(interpolation, int):
        return _interpolation_modes_from_int(interpolation)
    if not isinstance(interpolation, InterpolationMode):
        raise TypeError(
            "Argument interpolation should be a InterpolationMode or a corresponding Pillow integer constant"
        )
    return interpolation


def _is_pil_image(img: Any) -> bool:
    if "PIL" not in sys.modules:
        return False
    from PIL import Image

    return isinstance(img, Image.Image)


def _pil():
    from . import _functional_pil

    return _functional_pil


def _is_numpy(img: Any) -> bool:
    return isinstance(img, np.ndarray)


def _is_numpy_image(img: Any) -> bool:
    return img.ndim in {2, 3}


def get_dimensions(img: Tensor) -> list[int]:
    """``[channels, height, width]`` of a tensor or PIL image."""
    if isinstance(img, Tensor):
        return F_t.get_dimensions(img)
    return _pil().get_dimensions(img)


def get_image_size(img: Tensor) -> list[int]:
    """``[width, height]``."""
    if isinstance(img, Tensor):
        return F_t.get_image_size(img)
    return _pil().get_image_size(img)


def get_image_num_channels(img: Tensor) -> int:
    if isinstance(img, Tensor):
        return F_t.get_image_num_channels(img)
    return _pil().get_image_num_channels(img)


# --------------------------------------------------------------------------- conversions


def to_tensor(pic: Any) -> Tensor:
    """A PIL image or ``(H, W[, C])`` array as a ``(C, H, W)`` tensor; 8-bit data scaled to
    [0, 1] in the default float dtype, other data kept as is."""
    if not (_is_pil_image(pic) or _is_numpy(pic)):
        raise TypeError(f"pic should be PIL Image or ndarray. Got {type(pic)}")
    if _is_numpy(pic) and not _is_numpy_image(pic):
        raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
    default_float_dtype = chainrule.get_default_dtype()
    if isinstance(pic, np.ndarray):
        if pic.ndim == 2:
            pic = pic[:, :, None]
        img = chainrule.from_numpy(np.ascontiguousarray(pic.transpose((2, 0, 1))))
    else:
        as_np = {
            "I": np.int32,
            "I;16" if sys.byteorder == "little" else "I;16B": np.int16,
            "F": np.float32,
        }
        arr = np.array(pic, as_np.get(pic.mode, np.uint8), copy=True)
        if pic.mode == "1":
            arr = 255 * arr
        arr = arr.reshape(pic.size[1], pic.size[0], get_image_num_channels(pic))
        img = chainrule.from_numpy(np.ascontiguousarray(arr.transpose((2, 0, 1))))
    if img.dtype == chainrule.uint8:
        return img.to(dtype=default_float_dtype).div(255)
    return img


def pil_to_tensor(pic: Any) -> Tensor:
    """A PIL image as a ``(C, H, W)`` tensor of its own values (uint8 for 8-bit modes)."""
    if not _is_pil_image(pic):
        raise TypeError(f"pic should be PIL Image. Got {type(pic)}")
    arr = np.array(pic, copy=True)
    arr = arr.reshape(pic.size[1], pic.size[0], get_image_num_channels(pic))
    return chainrule.from_numpy(np.ascontiguousarray(arr.transpose((2, 0, 1))))


def _fromarray(arr: np.ndarray, mode: str) -> Any:
    from PIL import Image

    img = Image.fromarray(arr)
    if img.mode == mode:
        return img
    if mode == "1":
        return img.convert("1")
    return Image.frombytes(mode, (arr.shape[1], arr.shape[0]), np.ascontiguousarray(arr).tobytes())


def to_pil_image(pic: Any, mode: str | None = None) -> Any:
    """A ``(C, H, W)`` tensor or ``(H, W, C)`` array as a PIL image (floats times 255 and
    cast to uint8 unless ``mode='F'``)."""
    if isinstance(pic, Tensor):
        if pic.ndim == 3:
            pic = pic.permute((1, 2, 0))
        pic = pic.detach().numpy()
    elif not isinstance(pic, np.ndarray):
        raise TypeError(f"pic should be Tensor or ndarray. Got {type(pic)}.")
    if pic.ndim == 2:
        pic = np.expand_dims(pic, 2)
    if pic.ndim != 3:
        raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
    if pic.shape[-1] > 4:
        raise ValueError(f"pic should not have > 4 channels. Got {pic.shape[-1]} channels.")
    npimg = pic
    if np.issubdtype(npimg.dtype, np.floating) and mode != "F":
        npimg = (npimg * 255).astype(np.uint8)
    if npimg.shape[2] == 1:
        expected_mode = None
        npimg = npimg[:, :, 0]
        if npimg.dtype == np.uint8:
            expected_mode = "L"
        elif npimg.dtype in (np.int16, np.uint16):
            expected_mode = "I;16" if sys.byteorder == "little" else "I;16B"
        elif npimg.dtype == np.int32:
            expected_mode = "I"
        elif npimg.dtype == np.float32:
            expected_mode = "F"
        if mode is not None and mode != expected_mode:
            raise ValueError(
                f"Incorrect mode ({mode}) supplied for input type {np.dtype}. Should be {expected_mode}"
            )
        mode = expected_mode
    elif npimg.shape[2] == 2:
        permitted = ["LA"]
        if mode is not None and mode not in permitted:
            raise ValueError(f"Only modes {permitted} are supported for 2D inputs")
        if mode is None and npimg.dtype == np.uint8:
            mode = "LA"
    elif npimg.shape[2] == 4:
        permitted = ["RGBA", "CMYK", "RGBX"]
        if mode is not None and mode not in permitted:
            raise ValueError(f"Only modes {permitted} are supported for 4D inputs")
        if mode is None and npimg.dtype == np.uint8:
            mode = "RGBA"
    else:
        permitted = ["RGB", "YCbCr", "HSV"]
        if mode is not None and mode not in permitted:
            raise ValueError(f"Only modes {permitted} are supported for 3D inputs")
        if mode is None and npimg.dtype == np.uint8:
            mode = "RGB"
    if mode is None:
        raise TypeError(f"Input type {npimg.dtype} is not supported")
    return _fromarray(npimg, mode)


def convert_image_dtype(image: Tensor, dtype: chainrule.dtype = chainrule.float32) -> Tensor:
    """The image in ``dtype``, intensities rescaled (floats span [0, 1])."""
    if not isinstance(image, Tensor):
        raise TypeError("Input img should be Tensor Image")
    return F_t.convert_image_dtype(image, dtype)


def normalize(tensor: Tensor, mean: list[float], std: list[float], inplace: bool = False) -> Tensor:
    """``(tensor - mean[c]) / std[c]`` for each channel ``c`` of a float image."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"img should be Tensor Image. Got {type(tensor)}")
    return F_t.normalize(tensor, mean=mean, std=std, inplace=inplace)


# --------------------------------------------------------------------------- geometry


def _compute_resized_output_size(
    image_size: tuple[int, int],
    size: list[int] | None,
    max_size: int | None = None,
    allow_size_none: bool = False,
) -> list[int]:
    h, w = image_size
    if size is None:
        size = []
    return F_t._resize_output(h, w, list(size), max_size)


def resize(
    img: Tensor,
    size: list[int],
    interpolation: InterpolationMode = InterpolationMode.BILINEAR,
    max_size: int | None = None,
    antialias: bool | None = True,
) -> Tensor:
    """The image resized to ``size`` (``[h, w]``, or one number for the shorter edge)."""
    interpolation = _check_interpolation(interpolation)
    if isinstance(size, (list, tuple)):
        if len(size) not in [1, 2]:
            raise ValueError(
                f"Size must be an int or a 1 or 2 element tuple/list, not a {len(size)} element tuple/list"
            )
        if max_size is not None and len(size) != 1:
            raise ValueError(
                "max_size should only be passed if size specifies the length of the smaller edge, "
                "i.e. size should be an int or a sequence of length 1 in torchscript mode."
            )
    _, image_height, image_width = get_dimensions(img)
    if isinstance(size, int):
        size = [size]
    output_size = _compute_resized_output_size((image_height, image_width), size, max_size)
    if [image_height, image_width] == output_size:
        return img
    if not isinstance(img, Tensor):
        if antialias is False:
            warnings.warn(
                "Anti-alias option is always applied for PIL Image input. Argument antialias is ignored.",
                stacklevel=2,
            )
        return _pil().resize(img, size=output_size, interpolation=pil_modes_mapping[interpolation])
    return F_t.resize(img, size=output_size, interpolation=interpolation.value, antialias=antialias)


def pad(
    img: Tensor, padding: list[int], fill: int | float = 0, padding_mode: str = "constant"
) -> Tensor:
    """Borders of ``padding`` (left, top, right, bottom) in mode constant/edge/reflect/symmetric."""
    if not isinstance(img, Tensor):
        return _pil().pad(img, padding=padding, fill=fill, padding_mode=padding_mode)
    return F_t.pad(img, padding=padding, fill=fill, padding_mode=padding_mode)


def crop(img: Tensor, top: int, left: int, height: int, width: int) -> Tensor:
    """The ``height x width`` box at ``(top, left)`` (zero-filled outside the image)."""
    if not isinstance(img, Tensor):
        return _pil().crop(img, top, left, height, width)
    return F_t.crop(img, top, left, height, width)


def _pair(size: Any) -> tuple[int, int]:
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    if isinstance(size, (tuple, list)) and len(size) == 1:
        return size[0], size[0]
    return size


def center_crop(img: Tensor, output_size: list[int]) -> Tensor:
    """The central ``output_size`` box, zero-padded first when it is larger than the image."""
    output_size = _pair(output_size)
    _, image_height, image_width = get_dimensions(img)
    crop_height, crop_width = output_size
    if crop_width > image_width or crop_height > image_height:
        padding_ltrb = [
            (crop_width - image_width) // 2 if crop_width > image_width else 0,
            (crop_height - image_height) // 2 if crop_height > image_height else 0,
            (crop_width - image_width + 1) // 2 if crop_width > image_width else 0,
            (crop_height - image_height + 1) // 2 if crop_height > image_height else 0,
        ]
        img = pad(img, padding_ltrb, fill=0)
        _, image_height, image_width = get_dimensions(img)
        if crop_width == image_width and crop_height == image_height:
            return img
    crop_top = int(round((image_height - crop_height) / 2.0))
    crop_left = int(round((image_width - crop_width) / 2.0))
    return crop(img, crop_top, crop_left, crop_height, crop_width)


def resized_crop(
    img: Tensor,
    top: int,
    left: int,
    height: int,
    width: int,
    size: list[int],
    interpolation: InterpolationMode = InterpolationMode.BILINEAR,
    antialias: bool | None = True,
) -> Tensor:
    """``crop`` then ``resize``."""
    img = crop(img, top, left, height, width)
    return resize(img, size, interpolation, antialias=antialias)


def hflip(img: Tensor) -> Tensor:
    """Mirrored left to right."""
    if not isinstance(img, Tensor):
        return _pil().hflip(img)
    return F_t.hflip(img)


def vflip(img: Tensor) -> Tensor:
    """Mirrored top to bottom."""
    if not isinstance(img, Tensor):
        return _pil().vflip(img)
    return F_t.vflip(img)


def _get_perspective_coeffs(
    startpoints: list[list[int]], endpoints: list[list[int]]
) -> list[float]:
    """The 8 coefficients of the homography taking ``endpoints`` to ``startpoints``
    (least squares in float64, returned as float32 values)."""
    if len(startpoints) != 4 or len(endpoints) != 4:
        raise ValueError(
            f"Please provide exactly four corners, got {len(startpoints)} startpoints and {len(endpoints)} endpoints."
        )
    a = np.zeros((8, 8), dtype=np.float64)
    for i, ((ex, ey), (sx, sy)) in enumerate(zip(endpoints, startpoints)):
        a[2 * i] = [ex, ey, 1, 0, 0, 0, -sx * ex, -sx * ey]
        a[2 * i + 1] = [0, 0, 0, ex, ey, 1, -sy * ex, -sy * ey]
    b = np.array(startpoints, dtype=np.float64).reshape(8)
    solution = np.linalg.lstsq(a, b, rcond=None)[0]
    return [float(v) for v in solution.astype(np.float32)]


def perspective(
    img: Tensor,
    startpoints: list[list[int]],
    endpoints: list[list[int]],
    interpolation: InterpolationMode = InterpolationMode.BILINEAR,
    fill: list[float] | None = None,
) -> Tensor:
    """The image warped so that ``startpoints`` (4 corners) move to ``endpoints``."""
    coeffs = _get_perspective_coeffs(startpoints, endpoints)
    interpolation = _check_interpolation(interpolation)
    if not isinstance(img, Tensor):
        return _pil().perspective(
            img, coeffs, interpolation=pil_modes_mapping[interpolation], fill=fill
        )
    return F_t.perspective(img, coeffs, interpolation=interpolation.value, fill=fill)


def _get_inverse_affine_matrix(
    center: list[float],
    angle: float,
    translate: list[float],
    scale: float,
    shear: list[float],
    inverted: bool = True,
) -> list[float]:
    """The 2x3 matrix (row-major, 6 numbers) of ``T C R S Sh C^-1`` (``inverted``: of its
    inverse, the map from output to input pixels that resampling needs). The rotation
    with shears ``(sx, sy)`` is ``[[cos(a-sy)/cos(sy), -cos(a-sy)tan(sx)/cos(sy) - sin a],
    [sin(a-sy)/cos(sy), -sin(a-sy)tan(sx)/cos(sy) + cos a]]``, angles in degrees."""
    rot = math.radians(angle)
    sx, sy = math.radians(shear[0]), math.radians(shear[1])
    cx, cy = center
    tx, ty = translate
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    if inverted:
        # inverse of the rotation-scale-shear, then of the translations around the centre
        m = [d / scale, -b / scale, 0.0, -c / scale, a / scale, 0.0]
        m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty)
        m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty)
        m[2] += cx
        m[5] += cy
        return m
    m = [a * scale, b * scale, 0.0, c * scale, d * scale, 0.0]
    m[2] += m[0] * (-cx) + m[1] * (-cy)
    m[5] += m[3] * (-cx) + m[4] * (-cy)
    m[2] += cx + tx
    m[5] += cy + ty
    return m


def rotate(
    img: Tensor,
    angle: float,
    interpolation: InterpolationMode = InterpolationMode.NEAREST,
    expand: bool = False,
    center: list[int] | None = None,
    fill: list[float] | None = None,
) -> Tensor:
    """Rotated by ``angle`` degrees counter-clockwise about ``center`` (default: the middle)."""
    interpolation = _check_interpolation(interpolation)
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if center is not None and not isinstance(center, (list, tuple)):
        raise TypeError("Argument center should be a sequence")
    if not isinstance(img, Tensor):
        return _pil().rotate(
            img,
            angle=angle,
            interpolation=pil_modes_mapping[interpolation],
            expand=expand,
            center=center,
            fill=fill,
        )
    center_f = [0.0, 0.0]
    if center is not None:
        _, height, width = get_dimensions(img)
        center_f = [1.0 * (c - s * 0.5) for c, s in zip(center, [width, height])]
    matrix = _get_inverse_affine_matrix(center_f, -angle, [0.0, 0.0], 1.0, [0.0, 0.0])
    return F_t.rotate(
        img, matrix=matrix, interpolation=interpolation.value, expand=expand, fill=fill
    )


def affine(
    img: Tensor,
    angle: float,
    translate: list[int],
    scale: float,
    shear: list[float],
    interpolation: InterpolationMode = InterpolationMode.NEAREST,
    fill: list[float] | None = None,
    center: list[int] | None = None,
) -> Tensor:
    """Rotation, scale, shear about ``center`` and then translation, keeping the size."""
    interpolation = _check_interpolation(interpolation)
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if not isinstance(translate, (list, tuple)):
        raise TypeError("Argument translate should be a sequence")
    if len(translate) != 2:
        raise ValueError("Argument translate should be a sequence of length 2")
    if scale <= 0.0:
        raise ValueError("Argument scale should be positive")
    if not isinstance(shear, (numbers.Number, list, tuple)):
        raise TypeError("Shear should be either a single value or a sequence of two values")
    if isinstance(angle, int):
        angle = float(angle)
    translate = list(translate)
    if isinstance(shear, numbers.Number):
        shear = [shear, 0.0]
    shear = list(shear)
    if len(shear) == 1:
        shear = [shear[0], shear[0]]
    if len(shear) != 2:
        raise ValueError(f"Shear should be a sequence containing two values. Got {shear}")
    if center is not None and not isinstance(center, (list, tuple)):
        raise TypeError("Argument center should be a sequence")
    _, height, width = get_dimensions(img)
    if not isinstance(img, Tensor):
        if center is None:
            center = [width * 0.5, height * 0.5]
        matrix = _get_inverse_affine_matrix(center, angle, translate, scale, shear)
        return _pil().affine(
            img, matrix=matrix, interpolation=pil_modes_mapping[interpolation], fill=fill
        )
    center_f = [0.0, 0.0]
    if center is not None:
        center_f = [1.0 * (c - s * 0.5) for c, s in zip(center, [width, height])]
    translate_f = [1.0 * t for t in translate]
    matrix = _get_inverse_affine_matrix(center_f, angle, translate_f, scale, shear)
    return F_t.affine(img, matrix=matrix, interpolation=interpolation.value, fill=fill)


def five_crop(img: Tensor, size: list[int]) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    """The four corner crops and the central crop of ``size``."""
    if isinstance(size, numbers.Number):
        size = (int(size), int(size))
    elif isinstance(size, (tuple, list)) and len(size) == 1:
        size = (size[0], size[0])
    if len(size) != 2:
        raise ValueError("Please provide only two dimensions (h, w) for size.")
    _, image_height, image_width = get_dimensions(img)
    crop_height, crop_width = size
    if crop_width > image_width or crop_height > image_height:
        raise ValueError(
            f"Requested crop size {size} is bigger than input size {(image_height, image_width)}"
        )
    tl = crop(img, 0, 0, crop_height, crop_width)
    tr = crop(img, 0, image_width - crop_width, crop_height, crop_width)
    bl = crop(img, image_height - crop_height, 0, crop_height, crop_width)
    br = crop(img, image_height - crop_height, image_width - crop_width, crop_height, crop_width)
    center = center_crop(img, [crop_height, crop_width])
    return tl, tr, bl, br, center


def ten_crop(img: Tensor, size: list[int], vertical_flip: bool = False) -> tuple[Tensor, ...]:
    """``five_crop`` of the image and of its flip (horizontal unless ``vertical_flip``)."""
    if isinstance(size, numbers.Number):
        size = (int(size), int(size))
    elif isinstance(size, (tuple, list)) and len(size) == 1:
        size = (size[0], size[0])
    if len(size) != 2:
        raise ValueError("Please provide only two dimensions (h, w) for size.")
    first = five_crop(img, size)
    flipped = vflip(img) if vertical_flip else hflip(img)
    return first + five_crop(flipped, size)


def elastic_transform(
    img: Tensor,
    displacement: Tensor,
    interpolation: InterpolationMode = InterpolationMode.BILINEAR,
    fill: list[float] | None = None,
) -> Tensor:
    """The image read at each pixel's position plus ``displacement`` (1, H, W, 2)."""
    interpolation = _check_interpolation(interpolation)
    if not isinstance(displacement, Tensor):
        raise TypeError("Argument displacement should be a Tensor")
    t_img = img
    if not isinstance(img, Tensor):
        if not _is_pil_image(img):
            raise TypeError(f"img should be PIL Image or Tensor. Got {type(img)}")
        t_img = pil_to_tensor(img)
    shape = (1,) + tuple(t_img.shape[-2:]) + (2,)
    if shape != tuple(displacement.shape):
        raise ValueError(
            f"Argument displacement shape should be {shape}, but given {displacement.shape}"
        )
    output = F_t.elastic_transform(
        t_img, displacement, interpolation=interpolation.value, fill=fill
    )
    if not isinstance(img, Tensor):
        output = to_pil_image(output, mode=img.mode)
    return output


def gaussian_blur(img: Tensor, kernel_size: list[int], sigma: list[float] | None = None) -> Tensor:
    """Convolution with a Gaussian of odd ``kernel_size`` (reflect-padded)."""
    if not isinstance(kernel_size, (int, list, tuple)):
        raise TypeError(
            f"kernel_size should be int or a sequence of integers. Got {type(kernel_size)}"
        )
    if isinstance(kernel_size, int):
        kernel_size = [kernel_size, kernel_size]
    if len(kernel_size) != 2:
        raise ValueError(
            f"If kernel_size is a sequence its length should be 2. Got {len(kernel_size)}"
        )
    for ksize in kernel_size:
        if ksize % 2 == 0 or ksize < 0:
            raise ValueError(
                f"kernel_size should have odd and positive integers. Got {kernel_size}"
            )
    if sigma is None:
        sigma = [ksize * 0.15 + 0.35 for ksize in kernel_size]
    if not isinstance(sigma, (int, float, list, tuple)):
        raise TypeError(f"sigma should be either float or sequence of floats. Got {type(sigma)}")
    if isinstance(sigma, (int, float)):
        sigma = [float(sigma), float(sigma)]
    if isinstance(sigma, (list, tuple)) and len(sigma) == 1:
        sigma = [sigma[0], sigma[0]]
    if len(sigma) != 2:
        raise ValueError(f"If sigma is a sequence, its length should be 2. Got {len(sigma)}")
    for s in sigma:
        if s <= 0.0:
            raise ValueError(f"sigma should have positive values. Got {sigma}")
    t_img = img
    if not isinstance(img, Tensor):
        if not _is_pil_image(img):
            raise TypeError(f"img should be PIL Image or Tensor. Got {type(img)}")
        t_img = pil_to_tensor(img)
    output = F_t.gaussian_blur(t_img, list(kernel_size), list(sigma))
    if not isinstance(img, Tensor):
        output = to_pil_image(output, mode=img.mode)
    return output


def erase(img: Tensor, i: int, j: int, h: int, w: int, v: Tensor, inplace: bool = False) -> Tensor:
    """``img[..., i:i+h, j:j+w] = v`` (on a copy unless ``inplace``)."""
    if not isinstance(img, Tensor):
        raise TypeError(f"img should be Tensor Image. Got {type(img)}")
    return F_t.erase(img, i, j, h, w, v, inplace=inplace)


# --------------------------------------------------------------------------- colour


def to_grayscale(img: Any, num_output_channels: int = 1) -> Any:
    """A PIL image in grey (``L``), or as three equal RGB bands."""
    if _is_pil_image(img):
        return _pil().to_grayscale(img, num_output_channels)
    raise TypeError("Input should be PIL Image")


def rgb_to_grayscale(img: Tensor, num_output_channels: int = 1) -> Tensor:
    """``0.2989 R + 0.587 G + 0.114 B``, in 1 or 3 channels."""
    if not isinstance(img, Tensor):
        return _pil().to_grayscale(img, num_output_channels)
    return F_t.rgb_to_grayscale(img, num_output_channels)


def adjust_brightness(img: Tensor, brightness_factor: float) -> Tensor:
    """``factor * img``, clamped to the intensity range."""
    if not isinstance(img, Tensor):
        return _pil().adjust_brightness(img, brightness_factor)
    return F_t.adjust_brightness(img, brightness_factor)


def adjust_contrast(img: Tensor, contrast_factor: float) -> Tensor:
    """Blend of the image with its mean grey level, weight ``factor`` on the image."""
    if not isinstance(img, Tensor):
        return _pil().adjust_contrast(img, contrast_factor)
    return F_t.adjust_contrast(img, contrast_factor)


def adjust_saturation(img: Tensor, saturation_factor: float) -> Tensor:
    """Blend of the image with its grey version, weight ``factor`` on the image."""
    if not isinstance(img, Tensor):
        return _pil().adjust_saturation(img, saturation_factor)
    return F_t.adjust_saturation(img, saturation_factor)


def adjust_hue(img: Tensor, hue_factor: float) -> Tensor:
    """The hue shifted by ``hue_factor`` (in turns, within [-0.5, 0.5]) through HSV."""
    if not isinstance(img, Tensor):
        return _pil().adjust_hue(img, hue_factor)
    return F_t.adjust_hue(img, hue_factor)


def adjust_gamma(img: Tensor, gamma: float, gain: float = 1) -> Tensor:
    """``gain * img ** gamma`` on intensities in [0, 1]."""
    if not isinstance(img, Tensor):
        return _pil().adjust_gamma(img, gamma, gain)
    return F_t.adjust_gamma(img, gamma, gain)


def adjust_sharpness(img: Tensor, sharpness_factor: float) -> Tensor:
    """Blend of the image with a smoothed copy (weight ``factor`` on the image)."""
    if not isinstance(img, Tensor):
        return _pil().adjust_sharpness(img, sharpness_factor)
    return F_t.adjust_sharpness(img, sharpness_factor)


def invert(img: Tensor) -> Tensor:
    """``max - img``."""
    if not isinstance(img, Tensor):
        return _pil().invert(img)
    return F_t.invert(img)


def posterize(img: Tensor, bits: int) -> Tensor:
    """Each uint8 value keeping only its ``bits`` highest bits."""
    if not (0 <= bits <= 8):
        raise ValueError(f"The number if bits should be between 0 and 8. Got {bits}")
    if not isinstance(img, Tensor):
        return _pil().posterize(img, bits)
    return F_t.posterize(img, bits)


def solarize(img: Tensor, threshold: float) -> Tensor:
    """Values at or above ``threshold`` inverted."""
    if not isinstance(img, Tensor):
        return _pil().solarize(img, threshold)
    return F_t.solarize(img, threshold)


def autocontrast(img: Tensor) -> Tensor:
    """Each channel stretched to span the full intensity range."""
    if not isinstance(img, Tensor):
        return _pil().autocontrast(img)
    return F_t.autocontrast(img)


def equalize(img: Tensor) -> Tensor:
    """Each uint8 channel mapped through its cumulative histogram."""
    if not isinstance(img, Tensor):
        return _pil().equalize(img)
    return F_t.equalize(img)
