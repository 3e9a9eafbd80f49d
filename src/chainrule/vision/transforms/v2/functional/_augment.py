"""``jpeg``: images and videos through a JPEG encode and decode at a given quality
(Pillow's encoder, through :mod:`chainrule.vision.io`), to simulate compression."""

from __future__ import annotations

import io
from typing import Any

import chainrule
from chainrule import Tensor

from .... import tv_tensors
from ._utils import _PIL, _call, _register_kernel_internal, _renamed


def jpeg(image: Tensor, quality: int) -> Tensor:
    """``image`` JPEG-compressed at ``quality`` (1 to 100) and decoded back."""
    return _call(jpeg, image, quality=quality)


def jpeg_image(image: Tensor, quality: int) -> Tensor:
    """Each ``(C, H, W)`` uint8 image of ``(..., C, H, W)`` encoded and decoded."""
    from ....io import decode_jpeg, encode_jpeg

    shape = image.shape
    flat = image.reshape(-1, *shape[-3:])
    if flat.shape[0] == 0:
        return image.clone()
    decoded = [decode_jpeg(encode_jpeg(flat[i], quality=quality)) for i in range(flat.shape[0])]
    return chainrule.stack(decoded, dim=0).reshape(shape)


def _jpeg_image_pil(image: Any, quality: int) -> Any:
    from PIL import Image as PILImage

    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=quality)
    buffer.seek(0)
    return PILImage.open(buffer)


jpeg_video = _renamed(jpeg_image, "video", "jpeg_video")

for _cls in (Tensor, tv_tensors.Image, tv_tensors.Video):
    _register_kernel_internal(jpeg, _cls)(jpeg_image)
_register_kernel_internal(jpeg, _PIL)(_jpeg_image_pil)

__all__ = ["jpeg", "jpeg_image", "jpeg_video"]
