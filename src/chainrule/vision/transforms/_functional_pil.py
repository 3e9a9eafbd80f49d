"""The image kernels on PIL images, each a call into Pillow (imported here, so only when
a PIL image is transformed)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from PIL import Image, ImageEnhance, ImageOps


def _is_pil_image(img: Any) -> bool:
    return isinstance(img, Image.Image)


def _check(img: Any) -> None:
    if not _is_pil_image(img):
        raise TypeError(f"img should be PIL Image. Got {type(img)}")


def get_dimensions(img: Any) -> list[int]:
    """``[channels, height, width]``."""
    _check(img)
    channels = len(img.getbands()) if hasattr(img, "getbands") else img.channels
    width, height = img.size
    return [channels, height, width]


def get_image_size(img: Any) -> list[int]:
    _check(img)
    return list(img.size)


def get_image_num_channels(img: Any) -> int:
    _check(img)
    return len(img.getbands()) if hasattr(img, "getbands") else img.channels


def hflip(img: Image.Image) -> Image.Image:
    _check(img)
    return img.transpose(Image.FLIP_LEFT_RIGHT)


def vflip(img: Image.Image) -> Image.Image:
    _check(img)
    return img.transpose(Image.FLIP_TOP_BOTTOM)


def adjust_brightness(img: Image.Image, brightness_factor: float) -> Image.Image:
    _check(img)
    return ImageEnhance.Brightness(img).enhance(brightness_factor)


def adjust_contrast(img: Image.Image, contrast_factor: float) -> Image.Image:
    _check(img)
    return ImageEnhance.Contrast(img).enhance(contrast_factor)


def adjust_saturation(img: Image.Image, saturation_factor: float) -> Image.Image:
    _check(img)
    return ImageEnhance.Color(img).enhance(saturation_factor)


def adjust_hue(img: Image.Image, hue_factor: float) -> Image.Image:
    """The hue channel (0..255 in PIL's HSV) shifted by ``hue_factor * 255``, wrapping."""
    if not (-0.5 <= hue_factor <= 0.5):
        raise ValueError(f"hue_factor ({hue_factor}) is not in [-0.5, 0.5].")
    _check(img)
    mode = img.mode
    if mode in {"L", "1", "I", "F"}:
        return img
    h, s, v = img.convert("HSV").split()
    hue = np.array(h, dtype=np.uint8)
    # the shift is cast to uint8 first, so a negative one wraps around
    with np.errstate(over="ignore", invalid="ignore"):
        hue += np.array(hue_factor * 255).astype(np.uint8)
    h = Image.fromarray(hue, "L")
    return Image.merge("HSV", (h, s, v)).convert(mode)


def adjust_gamma(img: Image.Image, gamma: float, gain: float = 1.0) -> Image.Image:
    _check(img)
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number")
    mode = img.mode
    img = img.convert("RGB")
    table = [int((255 + 1 - 1e-3) * gain * pow(v / 255.0, gamma)) for v in range(256)] * 3
    return img.point(table).convert(mode)


def _parse_fill(
    fill: float | Sequence[float] | None, img: Image.Image, name: str = "fillcolor"
) -> dict[str, Any]:
    """Pillow's fill keyword for ``fill``: one number per band (integers unless mode F)."""
    bands = get_image_num_channels(img)
    if fill is None:
        return {}
    if isinstance(fill, (int, float)) and bands > 1:
        fill = tuple([fill] * bands)
    if isinstance(fill, (list, tuple)):
        if len(fill) == 1:
            fill = fill * bands
        if len(fill) != bands:
            raise ValueError(
                "The number of elements in 'fill' does not match the number of bands of the "
                f"image ({len(fill)} != {bands})"
            )
        fill = tuple(fill)
    if img.mode != "F":
        fill = tuple(int(x) for x in fill) if isinstance(fill, (list, tuple)) else int(fill)
    return {name: fill}


def pad(
    img: Image.Image,
    padding: int | list[int] | tuple[int, ...],
    fill: float | list[float] | tuple[float, ...] | None = 0,
    padding_mode: str = "constant",
) -> Image.Image:
    _check(img)
    if not isinstance(padding, (int, tuple, list)):
        raise TypeError("Got inappropriate padding arg")
    if fill is not None and not isinstance(fill, (int, float, tuple, list)):
        raise TypeError("Got inappropriate fill arg")
    if not isinstance(padding_mode, str):
        raise TypeError("Got inappropriate padding_mode arg")
    if isinstance(padding, list):
        padding = tuple(padding)
    if isinstance(padding, tuple) and len(padding) not in [1, 2, 4]:
        raise ValueError(
            f"Padding must be an int or a 1, 2, or 4 element tuple, not a {len(padding)} element tuple"
        )
    if isinstance(padding, tuple) and len(padding) == 1:
        padding = padding[0]
    if padding_mode not in ["constant", "edge", "reflect", "symmetric"]:
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
    if isinstance(padding, int):
        left = top = right = bottom = padding
    elif len(padding) == 2:
        left = right = padding[0]
        top = bottom = padding[1]
    else:
        left, top, right, bottom = padding

    if padding_mode == "constant":
        opts = _parse_fill(fill, img, name="fill")
        if img.mode == "P":
            palette = img.getpalette()
            out = ImageOps.expand(img, border=(left, top, right, bottom), **opts)
            out.putpalette(palette)
            return out
        return ImageOps.expand(img, border=(left, top, right, bottom), **opts)

    if min(left, top, right, bottom) < 0:
        w, h = img.size
        cl, ct, cr, cb = (-min(v, 0) for v in (left, top, right, bottom))
        img = img.crop((cl, ct, w - cr, h - cb))
        left, top, right, bottom = (max(v, 0) for v in (left, top, right, bottom))
    palette = img.getpalette() if img.mode == "P" else None
    arr = np.asarray(img)
    widths = [(top, bottom), (left, right)] + [(0, 0)] * (arr.ndim - 2)
    arr = np.pad(arr, widths, mode=padding_mode)
    out = Image.fromarray(arr)
    if palette is not None:
        out = out.convert("P") if out.mode != "P" else out
        out.putpalette(palette)
    return out


def crop(img: Image.Image, top: int, left: int, height: int, width: int) -> Image.Image:
    _check(img)
    return img.crop((left, top, left + width, top + height))


def resize(img: Image.Image, size: list[int] | int, interpolation: int = 2) -> Image.Image:
    _check(img)
    if not (isinstance(size, list) and len(size) == 2):
        raise TypeError(f"Got inappropriate size arg: {size}")
    return img.resize(tuple(size[::-1]), interpolation)


def affine(
    img: Image.Image,
    matrix: list[float],
    interpolation: int = 0,
    fill: float | Sequence[float] | None = None,
) -> Image.Image:
    _check(img)
    return img.transform(img.size, Image.AFFINE, matrix, interpolation, **_parse_fill(fill, img))


def rotate(
    img: Image.Image,
    angle: float,
    interpolation: int = 0,
    expand: bool = False,
    center: tuple[int, int] | None = None,
    fill: float | Sequence[float] | None = None,
) -> Image.Image:
    _check(img)
    return img.rotate(angle, interpolation, expand, center, **_parse_fill(fill, img))


def perspective(
    img: Image.Image,
    perspective_coeffs: list[float],
    interpolation: int = 3,
    fill: float | Sequence[float] | None = None,
) -> Image.Image:
    _check(img)
    opts = _parse_fill(fill, img)
    return img.transform(img.size, Image.PERSPECTIVE, perspective_coeffs, interpolation, **opts)


def to_grayscale(img: Image.Image, num_output_channels: int) -> Image.Image:
    _check(img)
    if num_output_channels == 1:
        return img.convert("L")
    if num_output_channels == 3:
        gray = np.array(img.convert("L"), dtype=np.uint8)
        return Image.fromarray(np.dstack([gray, gray, gray]), "RGB")
    raise ValueError("num_output_channels should be either 1 or 3")


def invert(img: Image.Image) -> Image.Image:
    _check(img)
    return ImageOps.invert(img)


def posterize(img: Image.Image, bits: int) -> Image.Image:
    _check(img)
    return ImageOps.posterize(img, bits)


def solarize(img: Image.Image, threshold: int) -> Image.Image:
    _check(img)
    return ImageOps.solarize(img, threshold)


def adjust_sharpness(img: Image.Image, sharpness_factor: float) -> Image.Image:
    _check(img)
    return ImageEnhance.Sharpness(img).enhance(sharpness_factor)


def autocontrast(img: Image.Image) -> Image.Image:
    _check(img)
    return ImageOps.autocontrast(img)


def equalize(img: Image.Image) -> Image.Image:
    _check(img)
    return ImageOps.equalize(img)
