"""Reading, decoding, encoding and writing images as uint8 ``(C, H, W)`` tensors, through
Pillow (torchvision's own kernels are libpng/libjpeg/giflib/libwebp: PNG pixels decode
identically; JPEG pixels may differ by a few levels between decoders)."""

from __future__ import annotations

import io
import os
from enum import Enum
from typing import Any

import numpy as np

import chainrule

from ..._tensor import Tensor

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


class ImageReadMode(Enum):
    """What to convert a decoded image to: as stored, gray, gray + alpha, RGB or RGB + alpha
    (a string such as ``"RGB"`` may be passed instead)."""

    UNCHANGED = 0
    GRAY = 1
    GRAY_ALPHA = 2
    RGB = 3
    RGB_ALPHA = 4
    RGBA = RGB_ALPHA


def _mode(mode: ImageReadMode | str) -> ImageReadMode:
    return ImageReadMode[mode.upper()] if isinstance(mode, str) else mode


def read_file(path: str) -> Tensor:
    """The bytes of the file at ``path`` as a 1-D uint8 tensor."""
    path = str(path)
    if not os.path.exists(path):
        raise RuntimeError(f"[Errno 2] No such file or directory: '{path}'")
    with open(path, "rb") as f:
        data = f.read()
    return chainrule.from_numpy(np.frombuffer(data, dtype=np.uint8).copy())


def write_file(filename: str, data: Tensor) -> None:
    """Write a 1-D uint8 tensor's bytes to ``filename``."""
    _check_bytes(data)
    with open(str(filename), "wb") as f:
        f.write(data.numpy().tobytes())


def _check_bytes(data: Any) -> bytes:
    if not isinstance(data, Tensor):
        raise TypeError(f"Expected a tensor, got {type(data)}")
    if data.dtype != chainrule.uint8:
        raise RuntimeError("Expected a torch.uint8 tensor")
    if data.dim() != 1:
        raise RuntimeError(f"Expected a 1 dimensional tensor, got {data.dim()} dims")
    return data.numpy().tobytes()


def _open(
    data: bytes, apply_exif_orientation: bool, mode: ImageReadMode = ImageReadMode.UNCHANGED
) -> Any:
    from PIL import Image, ImageOps

    image = Image.open(io.BytesIO(data))
    if image.format == "JPEG" and mode == ImageReadMode.GRAY:
        # libjpeg's grayscale output is the decoded luma: ask Pillow's decoder for it too
        image.draft("L", image.size)
    image.load()
    return ImageOps.exif_transpose(image) if apply_exif_orientation else image


_SIXTEEN_BIT = ("I;16", "I;16B", "I;16L", "I")

# libpng's rgb_to_gray with torchvision's weights (0.2989, 0.587): 15-bit fixed point, truncated
_GRAY_WEIGHTS = (9794, 19234, 3740)


def _rgb_to_gray(rgb: np.ndarray) -> np.ndarray:
    r, g, b = (rgb[..., i].astype(np.uint32) for i in range(3))
    return ((_GRAY_WEIGHTS[0] * r + _GRAY_WEIGHTS[1] * g + _GRAY_WEIGHTS[2] * b) >> 15).astype(
        np.uint8
    )


def _to_array(image: Any, mode: ImageReadMode) -> np.ndarray:
    """A PIL image as an ``(H, W, C)`` array in ``mode``, converted as torchvision's decoders
    convert: UNCHANGED keeps a palette image's indices and 16-bit gray as uint16 and
    expands 1-bit gray to 0/255; PNG colour to gray uses libpng's fixed-point weights."""
    from PIL import Image

    if mode == ImageReadMode.UNCHANGED:
        if image.mode in _SIXTEEN_BIT:
            return np.asarray(image).astype(np.uint16)[:, :, None]
        if image.mode in ("L", "LA", "RGB", "RGBA", "P"):
            array = np.asarray(image)
            return array[:, :, None] if array.ndim == 2 else array
        image = image.convert("L" if image.mode == "1" else "RGBA" if "A" in image.mode else "RGB")
        array = np.asarray(image)
        return array[:, :, None] if array.ndim == 2 else array
    if image.mode in _SIXTEEN_BIT:
        # 16-bit gray converted to 8 bits keeps the high byte
        image = Image.fromarray((np.asarray(image).astype(np.uint32) >> 8).astype(np.uint8))
    if mode in (ImageReadMode.GRAY, ImageReadMode.GRAY_ALPHA) and image.mode not in (
        "1",
        "L",
        "LA",
    ):
        colour = np.asarray(image.convert("RGBA"))
        planes = [_rgb_to_gray(colour[..., :3])]
        if mode == ImageReadMode.GRAY_ALPHA:
            planes.append(colour[..., 3])
        return np.stack(planes, axis=-1)
    target = {
        ImageReadMode.GRAY: "L",
        ImageReadMode.GRAY_ALPHA: "LA",
        ImageReadMode.RGB: "RGB",
        ImageReadMode.RGB_ALPHA: "RGBA",
    }[mode]
    array = np.asarray(image if image.mode == target else image.convert(target))
    return array[:, :, None] if array.ndim == 2 else array


def _chw(array: np.ndarray) -> Tensor:
    return chainrule.from_numpy(np.array(array.transpose(2, 0, 1), order="C"))


def _decode(
    input: Tensor, mode: ImageReadMode | str, apply_exif_orientation: bool, kind: str
) -> Tensor:
    from PIL import UnidentifiedImageError

    data = _check_bytes(input)
    try:
        image = _open(data, apply_exif_orientation, _mode(mode))
    except (UnidentifiedImageError, OSError, SyntaxError) as error:
        raise RuntimeError(f"Unsupported {kind}image file: {error}") from None
    return _chw(_to_array(image, _mode(mode)))


def decode_png(
    input: Tensor,
    mode: ImageReadMode = ImageReadMode.UNCHANGED,
    apply_exif_orientation: bool = False,
) -> Tensor:
    """Decode PNG bytes (a 1-D uint8 tensor) into ``(C, H, W)`` uint8 (uint16 for 16-bit gray)."""
    if not _check_bytes(input).startswith(b"\x89PNG"):
        raise RuntimeError("Content is not png!")
    return _decode(input, mode, apply_exif_orientation, "png ")


def decode_jpeg(
    input: Tensor | list[Tensor],
    mode: ImageReadMode = ImageReadMode.UNCHANGED,
    device: Any = "cpu",
    apply_exif_orientation: bool = False,
) -> Tensor | list[Tensor]:
    """Decode JPEG bytes (a tensor, or a list of them) into ``(C, H, W)`` uint8 tensors."""
    if isinstance(input, list):
        if len(input) == 0:
            raise ValueError("Input list must contain at least one element")
        if not all(isinstance(t, Tensor) for t in input):
            raise ValueError("All elements of the input list must be tensors.")
        return [decode_jpeg(t, mode, device, apply_exif_orientation) for t in input]
    if not _check_bytes(input).startswith(b"\xff\xd8"):
        raise RuntimeError(
            "Not a JPEG file: starts with 0x{:02x} 0x{:02x}".format(*tuple(_check_bytes(input)[:2]))
        )
    return _decode(input, mode, apply_exif_orientation, "jpeg ")


def decode_gif(input: Tensor) -> Tensor:
    """Decode GIF bytes into RGB uint8: ``(3, H, W)`` for one frame, ``(N, 3, H, W)`` for N."""
    from PIL import ImageSequence

    image = _open(_check_bytes(input), False)
    frames = [np.asarray(frame.convert("RGB")) for frame in ImageSequence.Iterator(image)]
    if len(frames) == 1:
        return _chw(frames[0])
    return chainrule.from_numpy(np.ascontiguousarray(np.stack(frames).transpose(0, 3, 1, 2)))


def decode_webp(input: Tensor, mode: ImageReadMode = ImageReadMode.UNCHANGED) -> Tensor:
    """Decode WEBP bytes into ``(C, H, W)`` uint8 (RGB, or RGBA when it has alpha)."""
    return _decode(input, mode, False, "webp ")


def decode_avif(input: Tensor, mode: ImageReadMode = ImageReadMode.UNCHANGED) -> Tensor:
    """Decode AVIF bytes into ``(C, H, W)`` uint8 (needs a Pillow built with AVIF support)."""
    return _decode(input, mode, False, "avif ")


def decode_heic(input: Tensor, mode: ImageReadMode = ImageReadMode.UNCHANGED) -> Tensor:
    """Decode HEIC bytes into ``(C, H, W)`` uint8 (needs a Pillow HEIF plugin, e.g. pillow-heif)."""
    return _decode(input, mode, False, "heic ")


def decode_image(
    input: Tensor | str,
    mode: ImageReadMode = ImageReadMode.UNCHANGED,
    apply_exif_orientation: bool = False,
) -> Tensor:
    """Decode image bytes (or the file at a path) of any format Pillow reads into ``(C, H, W)``."""
    if not isinstance(input, Tensor):
        input = read_file(str(input))
    data = _check_bytes(input)
    if data.startswith(b"GIF8"):
        return decode_gif(input)
    return _decode(input, mode, apply_exif_orientation, "")


def read_image(
    path: str,
    mode: ImageReadMode = ImageReadMode.UNCHANGED,
    apply_exif_orientation: bool = False,
) -> Tensor:
    """The image file at ``path`` as a ``(C, H, W)`` uint8 tensor (:func:`decode_image` of its bytes)."""
    return decode_image(read_file(path), mode, apply_exif_orientation)


def _pil_image(input: Tensor, what: str) -> Any:
    from PIL import Image

    if not isinstance(input, Tensor):
        raise TypeError(f"Expected a tensor, got {type(input)}")
    if input.dtype != chainrule.uint8:
        raise RuntimeError(f"Input tensor dtype should be uint8, got {input.dtype}")
    if input.dim() != 3:
        raise RuntimeError(f"Input data should be a 3-dimensional tensor, got {input.dim()} dims.")
    channels = input.size(0)
    if channels not in (1, 3):
        raise RuntimeError(f"The number of channels should be 1 or 3, got: {channels}")
    pixels = np.ascontiguousarray(input.numpy().transpose(1, 2, 0))
    return Image.fromarray(pixels[:, :, 0] if channels == 1 else pixels)


def _encoded(image: Any, **options: Any) -> Tensor:
    buffer = io.BytesIO()
    image.save(buffer, **options)
    return chainrule.from_numpy(np.frombuffer(buffer.getvalue(), dtype=np.uint8).copy())


def encode_png(input: Tensor, compression_level: int = 6) -> Tensor:
    """Encode a ``(C, H, W)`` uint8 image (C = 1 or 3) as PNG bytes (a 1-D uint8 tensor)."""
    if compression_level < 0 or compression_level > 9:
        raise RuntimeError(f"Compression level should be between 0 and 9, got {compression_level}")
    return _encoded(_pil_image(input, "png"), format="PNG", compress_level=compression_level)


def write_png(input: Tensor, filename: str, compression_level: int = 6) -> None:
    """Encode ``input`` as PNG and write it to ``filename``."""
    write_file(filename, encode_png(input, compression_level))


def encode_jpeg(input: Tensor | list[Tensor], quality: int = 75) -> Tensor | list[Tensor]:
    """Encode ``(C, H, W)`` uint8 images (C = 1 or 3) as JPEG bytes at ``quality`` (1 to 100)."""
    if quality < 1 or quality > 100:
        raise ValueError("Image quality should be a positive number between 1 and 100")
    if isinstance(input, list):
        if not input:
            raise ValueError("encode_jpeg requires at least one input tensor when a list is passed")
        return [encode_jpeg(image, quality) for image in input]
    return _encoded(_pil_image(input, "jpeg"), format="JPEG", quality=quality)


def write_jpeg(input: Tensor, filename: str, quality: int = 75) -> None:
    """Encode ``input`` as JPEG and write it to ``filename``."""
    write_file(filename, encode_jpeg(input, quality))
