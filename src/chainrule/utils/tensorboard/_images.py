"""Images for TensorBoard: layouts to HWC, batches to one grid, figures to pixels, PNG bytes."""

from __future__ import annotations

import struct
import zlib
from typing import Any

import numpy as np


def make_grid(images: np.ndarray, ncols: int = 8) -> np.ndarray:
    """A batch ``(N, C, H, W)`` (C = 1 or 3) laid out row by row, ``ncols`` wide, as one CHW
    image of 3 channels; the cells past the last image stay zero."""
    if not isinstance(images, np.ndarray):
        raise AssertionError("plugin error, should pass numpy array here")
    if images.shape[1] == 1:
        images = np.concatenate([images] * 3, 1)
    if images.ndim != 4 or images.shape[1] != 3:
        raise AssertionError("Input should be a 4D numpy array with 3 channels")
    n, _, h, w = images.shape
    ncols = min(n, ncols)
    nrows = -(-n // ncols)
    canvas = np.zeros((3, h * nrows, w * ncols), dtype=images.dtype)
    for i in range(n):
        row, col = divmod(i, ncols)
        canvas[:, row * h : (row + 1) * h, col * w : (col + 1) * w] = images[i]
    return canvas


def convert_to_HWC(tensor: np.ndarray, input_format: str) -> np.ndarray:  # noqa: N802
    """``tensor`` laid out as ``input_format`` (letters N, C, H, W) -> an HWC image.

    A batch (4 letters) becomes one grid (:func:`make_grid`); one channel, or none (HW),
    is repeated into three."""
    if len(set(input_format)) != len(input_format):
        raise AssertionError(  # (PyTorch's message, its runs of spaces included)
            "You can not use the same dimension shorthand twice."
            + " " * 13
            + f"input_format: {input_format}"
        )
    if len(tensor.shape) != len(input_format):
        raise AssertionError(
            "size of input tensor and input format are different."
            + " " * 9
            + f"tensor shape: {tensor.shape}, input_format: {input_format}"
        )
    input_format = input_format.upper()
    if len(input_format) == 4:
        nchw = tensor.transpose([input_format.find(c) for c in "NCHW"])
        return make_grid(nchw).transpose(1, 2, 0)
    if len(input_format) == 3:
        hwc = tensor.transpose([input_format.find(c) for c in "HWC"])
        return np.concatenate([hwc] * 3, 2) if hwc.shape[2] == 1 else hwc
    if len(input_format) == 2:
        hw = tensor.transpose([input_format.find(c) for c in "HW"])
        return np.stack([hw] * 3, 2)
    return None  # (PyTorch's too: other lengths fall through)


def figure_to_image(figures: Any, close: bool = True) -> np.ndarray:
    """A matplotlib figure rendered as a CHW uint8 RGB array (a list of them: NCHW)."""
    import matplotlib.backends.backend_agg as backend_agg
    import matplotlib.pyplot as plt

    def render(figure: Any) -> np.ndarray:
        canvas = backend_agg.FigureCanvasAgg(figure)
        canvas.draw()
        rgba = np.frombuffer(canvas.buffer_rgba(), dtype=np.uint8)
        w, h = figure.canvas.get_width_height()
        chw = np.moveaxis(rgba.reshape(h, w, 4)[:, :, :3], 2, 0)
        if close:
            plt.close(figure)
        return chw

    if isinstance(figures, list):
        return np.stack([render(f) for f in figures])
    return render(figures)


def prepare_video(v: np.ndarray) -> np.ndarray:
    """A batch of videos ``(B, T, C, H, W)`` -> frames ``(T, H', W', C)``, each frame a grid
    of the B videos (B padded with blank videos to a power of two)."""
    b, t, c, h, w = v.shape
    if v.dtype == np.uint8:
        v = np.float32(v) / 255.0
    if b & (b - 1):  # not a power of two
        v = np.concatenate((v, np.zeros((2 ** b.bit_length() - b, t, c, h, w))), axis=0)
    n_rows = 2 ** ((b.bit_length() - 1) // 2)
    n_cols = v.shape[0] // n_rows
    v = v.reshape(n_rows, n_cols, t, c, h, w).transpose(2, 0, 4, 1, 5, 3)
    return v.reshape(t, n_rows * h, n_cols * w, c)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


# PNG colour types by channel count: grey, grey and alpha, RGB, RGBA
_COLOR_TYPE = {1: 0, 2: 4, 3: 2, 4: 6}


def encode_png_plain(hwc: np.ndarray) -> bytes:
    """An 8-bit HWC image as PNG bytes, without Pillow: one IDAT, no row filters."""
    h, w, c = hwc.shape
    header = struct.pack(">IIBBBBB", w, h, 8, _COLOR_TYPE[c], 0, 0, 0)
    rows = np.concatenate([np.zeros((h, 1), np.uint8), hwc.reshape(h, w * c)], axis=1)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(np.ascontiguousarray(rows).tobytes(), 6))
        + _chunk(b"IEND", b"")
    )


def _pillow() -> Any:
    try:
        from PIL import Image
    except ImportError:
        return None
    return Image


def encode_png(hwc: np.ndarray, rescale: float = 1, rois: Any = None, labels: Any = None) -> bytes:
    """An HWC uint8 image as PNG bytes: through Pillow where installed (as PyTorch: boxes
    drawn, then resized by ``rescale`` with Lanczos), else :func:`encode_png_plain`."""
    Image = _pillow()  # noqa: N806
    if Image is None:
        if rois is not None or rescale != 1:
            raise ImportError("drawing boxes on and rescaling images need the pillow package")
        return encode_png_plain(hwc)
    import io

    h, w, _ = hwc.shape
    image = Image.fromarray(hwc)
    if rois is not None:
        image = draw_boxes(image, rois, labels)
    image = image.resize((int(w * rescale), int(h * rescale)), Image.Resampling.LANCZOS)
    with io.BytesIO() as out:
        image.save(out, format="PNG")
        return out.getvalue()


def draw_boxes(image: Any, boxes: np.ndarray, labels: Any = None) -> Any:
    """Red ``[x1, y1, x2, y2]`` boxes drawn on a Pillow image, each with its label if given."""
    for i in range(boxes.shape[0]):
        x1, y1, x2, y2 = boxes[i, :4]
        _draw_box(image, x1, y1, x2, y2, None if labels is None else labels[i], "Red")
    return image


def _draw_box(
    image: Any, left: Any, top: Any, right: Any, bottom: Any, text: Any, color: str
) -> None:
    from PIL import ImageDraw, ImageFont

    draw = ImageDraw.Draw(image)
    corners = [(left, top), (left, bottom), (right, bottom), (right, top), (left, top)]
    draw.line(corners, width=2, fill=color)
    if text:
        font = ImageFont.load_default()
        l, t, r, b = font.getbbox(text)
        text_w, text_h = r - l, b - t
        margin = np.ceil(0.05 * text_h)
        draw.rectangle([(left, bottom - text_h - 2 * margin), (left + text_w, bottom)], fill=color)
        draw.text((left + margin, bottom - text_h - margin), text, fill="black", font=font)
