"""``torchvision.io``: images to and from uint8 tensors (through Pillow). Video reading and
writing are not implemented: their names raise ``NotImplementedError``."""

from __future__ import annotations

from typing import Any

from .image import (
    ImageReadMode,
    decode_avif,
    decode_gif,
    decode_heic,
    decode_image,
    decode_jpeg,
    decode_png,
    decode_webp,
    encode_jpeg,
    encode_png,
    read_file,
    read_image,
    write_file,
    write_jpeg,
    write_png,
)

__all__ = [
    "ImageReadMode",
    "decode_avif",
    "decode_gif",
    "decode_heic",
    "decode_image",
    "decode_jpeg",
    "decode_png",
    "decode_webp",
    "encode_jpeg",
    "encode_png",
    "read_file",
    "read_image",
    "write_file",
    "write_jpeg",
    "write_png",
]

_VIDEO = ("VideoReader", "read_video", "read_video_timestamps", "write_video")


def __getattr__(name: str) -> Any:
    if name in _VIDEO:
        raise NotImplementedError(f"chainrule does not implement torchvision.io.{name} (video) yet")
    raise AttributeError(f"module 'torchvision.io' has no attribute '{name}'")
