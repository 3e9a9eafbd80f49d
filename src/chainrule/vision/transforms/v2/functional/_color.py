"""v2 colour functionals: the v1 kernels for images, videos and PIL images, plus float
support for ``posterize`` and ``equalize``."""

from __future__ import annotations

from typing import Any

import chainrule
from chainrule import Tensor

from .... import tv_tensors
from ... import _functional_tensor as F_t
from ... import functional as F1
from ._utils import _PIL, _call, _register_kernel_internal, _renamed


def _register(functional: Any, image: Any, pil: Any = None) -> None:
    for cls in (Tensor, tv_tensors.Image, tv_tensors.Video):
        _register_kernel_internal(functional, cls)(image)
    _register_kernel_internal(functional, _PIL)(pil or image)


def rgb_to_grayscale_image(image: Tensor, num_output_channels: int = 1) -> Tensor:
    if num_output_channels not in (1, 3):
        raise ValueError(f"num_output_channels must be 1 or 3, got {num_output_channels}.")
    return F_t.rgb_to_grayscale(image, num_output_channels)


def rgb_to_grayscale(inpt: Tensor, num_output_channels: int = 1) -> Tensor:
    """``0.2989 R + 0.587 G + 0.114 B`` in 1 or 3 channels."""
    return _call(rgb_to_grayscale, inpt, num_output_channels=num_output_channels)


to_grayscale = rgb_to_grayscale
_register(rgb_to_grayscale, rgb_to_grayscale_image, F1.rgb_to_grayscale)


def grayscale_to_rgb_image(image: Tensor) -> Tensor:
    if image.shape[-3] >= 3:
        return image
    return image.expand(*image.shape[:-3], 3, *image.shape[-2:]).clone()


def grayscale_to_rgb(inpt: Tensor) -> Tensor:
    """One channel repeated to three (three-channel inputs unchanged)."""
    return _call(grayscale_to_rgb, inpt)


_register(grayscale_to_rgb, grayscale_to_rgb_image, lambda img: img.convert(mode="RGB"))


def permute_channels_image(image: Tensor, permutation: list[int]) -> Tensor:
    return image[..., list(permutation), :, :]


def permute_channels(inpt: Tensor, permutation: list[int]) -> Tensor:
    """The channels in the order ``permutation``."""
    return _call(permute_channels, inpt, permutation=permutation)


def _permute_pil(image: Any, permutation: list[int]) -> Any:
    return F1.to_pil_image(
        permute_channels_image(F1.pil_to_tensor(image), permutation), mode=image.mode
    )


_register(permute_channels, permute_channels_image, _permute_pil)


def posterize_image(image: Tensor, bits: int) -> Tensor:
    if image.is_floating_point():
        levels = 1 << bits
        return (image * levels).floor().clamp(0, levels - 1) * (1.0 / levels)
    return F_t.posterize(image, bits)


def posterize(inpt: Tensor, bits: int) -> Tensor:
    """Only the ``bits`` highest bits of each value kept."""
    return _call(posterize, inpt, bits=bits)


_register(posterize, posterize_image, F1.posterize)


def solarize_image(image: Tensor, threshold: float) -> Tensor:
    if threshold > F_t._max_value(image.dtype):
        raise TypeError(
            f"Threshold should be less or equal the maximum value of the dtype, but got {threshold}"
        )
    return F_t.solarize(image, threshold)


def solarize(inpt: Tensor, threshold: float) -> Tensor:
    """Values at or above ``threshold`` inverted."""
    return _call(solarize, inpt, threshold=threshold)


_register(solarize, solarize_image, F1.solarize)


def equalize_image(image: Tensor) -> Tensor:
    if image.dtype == chainrule.uint8:
        return F_t.equalize(image) if image.ndim <= 4 else _batched(F_t.equalize, image)
    as_uint8 = F_t.convert_image_dtype(image, chainrule.uint8)
    return F_t.convert_image_dtype(equalize_image(as_uint8), image.dtype)


def _batched(kernel: Any, image: Tensor) -> Tensor:
    flat = image.reshape(-1, *image.shape[-3:])
    return kernel(flat).reshape(image.shape)


def equalize(inpt: Tensor) -> Tensor:
    """Each channel through its cumulative histogram (computed on 8-bit values)."""
    return _call(equalize, inpt)


_register(equalize, equalize_image, F1.equalize)

adjust_brightness_image = _renamed(F_t.adjust_brightness, "image", "adjust_brightness_image")
adjust_contrast_image = _renamed(F_t.adjust_contrast, "image", "adjust_contrast_image")
adjust_saturation_image = _renamed(F_t.adjust_saturation, "image", "adjust_saturation_image")
adjust_hue_image = _renamed(F_t.adjust_hue, "image", "adjust_hue_image")
adjust_gamma_image = _renamed(F_t.adjust_gamma, "image", "adjust_gamma_image")
adjust_sharpness_image = _renamed(F_t.adjust_sharpness, "image", "adjust_sharpness_image")
autocontrast_image = _renamed(F_t.autocontrast, "image", "autocontrast_image")
invert_image = _renamed(F_t.invert, "image", "invert_image")


def adjust_brightness(inpt: Tensor, brightness_factor: float) -> Tensor:
    """``factor * img``, clamped."""
    return _call(adjust_brightness, inpt, brightness_factor=brightness_factor)


def adjust_contrast(inpt: Tensor, contrast_factor: float) -> Tensor:
    """Blend with the mean grey level."""
    return _call(adjust_contrast, inpt, contrast_factor=contrast_factor)


def adjust_saturation(inpt: Tensor, saturation_factor: float) -> Tensor:
    """Blend with the grey image."""
    return _call(adjust_saturation, inpt, saturation_factor=saturation_factor)


def adjust_hue(inpt: Tensor, hue_factor: float) -> Tensor:
    """Hue shifted by ``hue_factor`` turns."""
    return _call(adjust_hue, inpt, hue_factor=hue_factor)


def adjust_gamma(inpt: Tensor, gamma: float, gain: float = 1) -> Tensor:
    """``gain * img ** gamma`` on [0, 1] intensities."""
    return _call(adjust_gamma, inpt, gamma=gamma, gain=gain)


def adjust_sharpness(inpt: Tensor, sharpness_factor: float) -> Tensor:
    """Blend with a smoothed copy."""
    return _call(adjust_sharpness, inpt, sharpness_factor=sharpness_factor)


def autocontrast(inpt: Tensor) -> Tensor:
    """Each channel stretched to the full range."""
    return _call(autocontrast, inpt)


def invert(inpt: Tensor) -> Tensor:
    """``max - img``."""
    return _call(invert, inpt)


for _functional, _kernel, _pil_kernel in (
    (adjust_brightness, adjust_brightness_image, F1.adjust_brightness),
    (adjust_contrast, adjust_contrast_image, F1.adjust_contrast),
    (adjust_saturation, adjust_saturation_image, F1.adjust_saturation),
    (adjust_hue, adjust_hue_image, F1.adjust_hue),
    (adjust_gamma, adjust_gamma_image, F1.adjust_gamma),
    (adjust_sharpness, adjust_sharpness_image, F1.adjust_sharpness),
    (autocontrast, autocontrast_image, F1.autocontrast),
    (invert, invert_image, F1.invert),
):
    _register(_functional, _kernel, _pil_kernel)

adjust_brightness_video = _renamed(adjust_brightness_image, "video", "adjust_brightness_video")
adjust_contrast_video = _renamed(adjust_contrast_image, "video", "adjust_contrast_video")
adjust_saturation_video = _renamed(adjust_saturation_image, "video", "adjust_saturation_video")
adjust_hue_video = _renamed(adjust_hue_image, "video", "adjust_hue_video")
adjust_gamma_video = _renamed(adjust_gamma_image, "video", "adjust_gamma_video")
adjust_sharpness_video = _renamed(adjust_sharpness_image, "video", "adjust_sharpness_video")
autocontrast_video = _renamed(autocontrast_image, "video", "autocontrast_video")
invert_video = _renamed(invert_image, "video", "invert_video")
posterize_video = _renamed(posterize_image, "video", "posterize_video")
solarize_video = _renamed(solarize_image, "video", "solarize_video")
equalize_video = _renamed(equalize_image, "video", "equalize_video")
permute_channels_video = _renamed(permute_channels_image, "video", "permute_channels_video")

__all__ = [
    "adjust_brightness",
    "adjust_brightness_image",
    "adjust_brightness_video",
    "adjust_contrast",
    "adjust_contrast_image",
    "adjust_contrast_video",
    "adjust_gamma",
    "adjust_gamma_image",
    "adjust_gamma_video",
    "adjust_hue",
    "adjust_hue_image",
    "adjust_hue_video",
    "adjust_saturation",
    "adjust_saturation_image",
    "adjust_saturation_video",
    "adjust_sharpness",
    "adjust_sharpness_image",
    "adjust_sharpness_video",
    "autocontrast",
    "autocontrast_image",
    "autocontrast_video",
    "equalize",
    "equalize_image",
    "equalize_video",
    "grayscale_to_rgb",
    "grayscale_to_rgb_image",
    "invert",
    "invert_image",
    "invert_video",
    "permute_channels",
    "permute_channels_image",
    "permute_channels_video",
    "posterize",
    "posterize_image",
    "posterize_video",
    "rgb_to_grayscale",
    "rgb_to_grayscale_image",
    "solarize",
    "solarize_image",
    "solarize_video",
    "to_grayscale",
]
