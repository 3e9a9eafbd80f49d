"""v2 functionals that are neither geometry nor colour: normalize, blur, noise, dtype
conversion and erasing."""

from __future__ import annotations

from typing import Any

import chainrule
from chainrule import Tensor

from .... import tv_tensors
from ... import _functional_tensor as F_t
from ... import functional as F1
from ._utils import _PIL, _call, _register_kernel_internal, _renamed, is_pure_tensor

_IMAGE_TYPES = (Tensor, tv_tensors.Image, tv_tensors.Video)


def normalize_image(
    image: Tensor, mean: list[float], std: list[float], inplace: bool = False
) -> Tensor:
    return F_t.normalize(image, mean, std, inplace=inplace)


def normalize(inpt: Tensor, mean: list[float], std: list[float], inplace: bool = False) -> Tensor:
    """``(x - mean[c]) / std[c]``."""
    return _call(normalize, inpt, mean=mean, std=std, inplace=inplace)


def gaussian_blur_image(
    image: Tensor, kernel_size: list[int], sigma: list[float] | None = None
) -> Tensor:
    return F1.gaussian_blur(image, kernel_size, sigma)


def gaussian_blur(inpt: Tensor, kernel_size: list[int], sigma: list[float] | None = None) -> Tensor:
    """Convolution with a Gaussian (reflect-padded)."""
    return _call(gaussian_blur, inpt, kernel_size=kernel_size, sigma=sigma)


def gaussian_noise_image(
    image: Tensor, mean: float = 0.0, sigma: float = 0.1, clip: bool = True
) -> Tensor:
    if sigma < 0:
        raise ValueError(f"sigma shouldn't be negative. Got {sigma}")
    if not image.is_floating_point():
        # integer images: the noise is added on the [0, 1] scale and rounded back
        noisy = gaussian_noise_image(
            F_t.convert_image_dtype(image, chainrule.float32), mean, sigma, clip
        )
        return chainrule.round(noisy * F_t._max_value(image.dtype)).to(image.dtype)
    out = image + (mean + chainrule.randn_like(image) * sigma)
    return out.clamp(0, 1) if clip else out


def gaussian_noise(
    inpt: Tensor, mean: float = 0.0, sigma: float = 0.1, clip: bool = True
) -> Tensor:
    """The image plus ``N(mean, sigma^2)`` noise, clipped to [0, 1]."""
    return _call(gaussian_noise, inpt, mean=mean, sigma=sigma, clip=clip)


def to_dtype_image(
    image: Tensor, dtype: chainrule.dtype = chainrule.float32, scale: bool = False
) -> Tensor:
    if not scale:
        return image.to(dtype)
    if image.is_floating_point() and not dtype.is_floating_point:
        if (image.dtype == chainrule.float32 and dtype in (chainrule.int32, chainrule.int64)) or (
            image.dtype == chainrule.float64 and dtype == chainrule.int64
        ):
            raise RuntimeError(
                f"The conversion from {image.dtype} to {dtype} cannot be performed safely."
            )
    return F_t.convert_image_dtype(image, dtype)


def to_dtype(
    inpt: Tensor, dtype: chainrule.dtype = chainrule.float32, scale: bool = False
) -> Tensor:
    """``inpt`` in ``dtype``; ``scale`` rescales image intensities to the new range."""
    if is_pure_tensor(inpt) or isinstance(inpt, (tv_tensors.Image, tv_tensors.Video)):
        out = to_dtype_image(inpt.as_subclass(Tensor), dtype, scale=scale)
        return out if is_pure_tensor(inpt) else tv_tensors.wrap(out, like=inpt)
    if isinstance(inpt, tv_tensors.TVTensor):
        return inpt.to(dtype)
    raise TypeError(
        f"Input can either be a plain tensor or a TVTensor, but got {type(inpt)} instead."
    )


def convert_image_dtype(image: Tensor, dtype: chainrule.dtype = chainrule.float32) -> Tensor:
    """``to_dtype(image, dtype, scale=True)``."""
    return to_dtype(image, dtype, scale=True)


def erase_image(
    image: Tensor, i: int, j: int, h: int, w: int, v: Tensor, inplace: bool = False
) -> Tensor:
    return F_t.erase(image, i, j, h, w, v, inplace=inplace)


def erase(inpt: Tensor, i: int, j: int, h: int, w: int, v: Tensor, inplace: bool = False) -> Tensor:
    """``inpt[..., i:i+h, j:j+w] = v``."""
    return _call(erase, inpt, i=i, j=j, h=h, w=w, v=v, inplace=inplace)


def _pil_via_tensor(kernel: Any) -> Any:
    def run(image: Any, *args: Any, **kwargs: Any) -> Any:
        out = kernel(F1.pil_to_tensor(image), *args, **kwargs)
        return F1.to_pil_image(out, mode=image.mode)

    return run


for _cls in _IMAGE_TYPES:
    _register_kernel_internal(normalize, _cls)(normalize_image)
    _register_kernel_internal(gaussian_blur, _cls)(gaussian_blur_image)
    _register_kernel_internal(gaussian_noise, _cls)(gaussian_noise_image)
    _register_kernel_internal(erase, _cls)(erase_image)
_register_kernel_internal(gaussian_blur, _PIL)(gaussian_blur_image)
_register_kernel_internal(erase, _PIL)(_pil_via_tensor(erase_image))

normalize_video = _renamed(normalize_image, "video", "normalize_video")
gaussian_blur_video = _renamed(gaussian_blur_image, "video", "gaussian_blur_video")
gaussian_noise_video = _renamed(gaussian_noise_image, "video", "gaussian_noise_video")
to_dtype_video = _renamed(to_dtype_image, "video", "to_dtype_video")
erase_video = _renamed(erase_image, "video", "erase_video")

__all__ = [
    "convert_image_dtype",
    "erase",
    "erase_image",
    "erase_video",
    "gaussian_blur",
    "gaussian_blur_image",
    "gaussian_blur_video",
    "gaussian_noise",
    "gaussian_noise_image",
    "gaussian_noise_video",
    "normalize",
    "normalize_image",
    "normalize_video",
    "to_dtype",
    "to_dtype_image",
    "to_dtype_video",
]
