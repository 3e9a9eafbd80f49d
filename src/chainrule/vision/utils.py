"""``torchvision.utils``: tiling images into a grid (``make_grid``), saving it
(``save_image``, through Pillow), and drawing boxes, masks, keypoints and optical flow onto
images. All of them run outside autograd, as torchvision's do (under ``no_grad``); the
drawing is done in NumPy and Pillow."""

from __future__ import annotations

import math
import pathlib
import warnings
from typing import Any, BinaryIO

import numpy as np

import chainrule

from .._tensor import Tensor

__all__ = [
    "draw_bounding_boxes",
    "draw_keypoints",
    "draw_segmentation_masks",
    "flow_to_image",
    "make_grid",
    "save_image",
]

Color = str | tuple[int, int, int]


@chainrule.no_grad()
def make_grid(
    tensor: Tensor | list[Tensor],
    nrow: int = 8,
    padding: int = 2,
    normalize: bool = False,
    value_range: tuple[int, int] | None = None,
    scale_each: bool = False,
    pad_value: float = 0.0,
) -> Tensor:
    """Tile a batch ``(B, C, H, W)`` (or a list of ``(C, H, W)``) into one ``(C, H', W')`` image,
    ``nrow`` images a row, ``padding`` pixels of ``pad_value`` around each. Single-channel
    images become three-channel. With ``normalize`` the values are clamped to ``value_range``
    (the min and max by default; per image with ``scale_each``) and mapped to ``[0, 1]``.
    Runs under ``no_grad``, as torchvision's does."""
    if not isinstance(tensor, Tensor):
        if isinstance(tensor, list):
            for t in tensor:
                if not isinstance(t, Tensor):
                    raise TypeError(
                        f"tensor or list of tensors expected, got a list containing {type(t)}"
                    )
        else:
            raise TypeError(f"tensor or list of tensors expected, got {type(tensor)}")
    if isinstance(tensor, list):
        tensor = chainrule.stack(tensor, dim=0)
    if tensor.dim() == 2:
        tensor = tensor.unsqueeze(0)
    if tensor.dim() == 3:
        if tensor.size(0) == 1:
            tensor = chainrule.cat((tensor, tensor, tensor), 0)
        tensor = tensor.unsqueeze(0)
    if tensor.dim() == 4 and tensor.size(1) == 1:
        tensor = chainrule.cat((tensor, tensor, tensor), 1)
    if normalize is True:
        if value_range is not None and not isinstance(value_range, tuple):
            raise TypeError(
                "value_range has to be a tuple (min, max) if specified. min and max are numbers"
            )

        def rescale(t: Tensor) -> Tensor:
            low, high = value_range if value_range is not None else (float(t.min()), float(t.max()))
            return (t.clamp(min=low, max=high) - low) / max(high - low, 1e-5)

        tensor = (
            chainrule.stack([rescale(t) for t in tensor]) if scale_each is True else rescale(tensor)
        )
    if tensor.size(0) == 1:
        return tensor.squeeze(0)
    count = tensor.size(0)
    cols = min(nrow, count)
    rows = int(math.ceil(count / cols))
    height, width = int(tensor.size(2) + padding), int(tensor.size(3) + padding)
    grid = tensor.new_full(
        (tensor.size(1), height * rows + padding, width * cols + padding), pad_value
    )
    for k in range(count):
        y, x = divmod(k, cols)
        top, left = y * height + padding, x * width + padding
        grid[:, top : top + height - padding, left : left + width - padding] = tensor[k]
    return grid


def _to_uint8_hwc(grid: Tensor) -> np.ndarray:
    # save_image's rounding: x * 255 + 0.5, clamped to [0, 255], truncated
    values = grid.detach().numpy()
    scaled = values * values.dtype.type(255) + values.dtype.type(0.5)
    return np.clip(scaled, 0, 255).astype(np.uint8).transpose(1, 2, 0)


def save_image(
    tensor: Tensor | list[Tensor],
    fp: str | pathlib.Path | BinaryIO,
    format: str | None = None,
    **kwargs: Any,
) -> None:
    """Save ``make_grid(tensor, **kwargs)`` (values in ``[0, 1]``) as an image file via Pillow;
    ``format`` names the file type when ``fp`` is a file object."""
    from PIL import Image

    Image.fromarray(_to_uint8_hwc(make_grid(tensor, **kwargs))).save(fp, format=format)


def _generate_color_palette(num_objects: int) -> list[tuple[int, int, int]]:
    palette = (2**25 - 1, 2**15 - 1, 2**21 - 1)
    return [tuple((i * p) % 255 for p in palette) for i in range(num_objects)]


def _parse_colors(colors: Any, *, num_objects: int, floating: bool = False) -> list[tuple]:
    """One RGB tuple per object: the default palette, one color for all, or a list (scaled
    to ``[0, 1]`` when ``floating``)."""
    from PIL import ImageColor

    if colors is None:
        colors = _generate_color_palette(num_objects)
    elif isinstance(colors, list):
        if len(colors) < num_objects:
            raise ValueError(
                "Number of colors must be equal or larger than the number of objects, "
                f"but got {len(colors)} < {num_objects}."
            )
    elif not isinstance(colors, (tuple, str)):
        raise ValueError(
            f"colors must be a tuple or a string, or a list thereof, but got {colors}."
        )
    elif isinstance(colors, tuple) and len(colors) != 3:
        raise ValueError(f"If passed as tuple, colors should be an RGB triplet, but got {colors}.")
    else:
        colors = [colors] * num_objects
    colors = [ImageColor.getrgb(c) if isinstance(c, str) else tuple(c) for c in colors]
    if floating:
        colors = [tuple(v / 255 for v in c) for c in colors]
    return colors


def _check_image(image: Any, rgb_only: bool, type_message: str) -> None:
    if not isinstance(image, Tensor):
        raise TypeError(type_message.format(type(image)))
    if not (image.dtype == chainrule.uint8 or image.is_floating_point()):
        raise ValueError(f"The image dtype must be uint8 or float, got {image.dtype}")
    if image.dim() != 3:
        raise ValueError("Pass individual images, not batches")
    if rgb_only and image.size(0) != 3:
        raise ValueError("Pass an RGB image. Other Image formats are not supported")
    if not rgb_only and image.size(0) not in {1, 3}:
        raise ValueError("Only grayscale and RGB images are supported")


def _uint8_pixels(image: Tensor) -> np.ndarray:
    """``(C, H, W)`` uint8 or float in ``[0, 1]`` -> ``(H, W, C)`` uint8 (``x * 255.999`` truncated)."""
    values = image.detach().numpy()
    if values.dtype != np.uint8:
        values = (values * values.dtype.type(255 + 1.0 - 1e-3)).astype(np.uint8)
    return np.ascontiguousarray(values.transpose(1, 2, 0))


def _back_to(pixels: np.ndarray, dtype: Any) -> Tensor:
    """``(H, W, C)`` uint8 -> ``(C, H, W)`` of ``dtype`` (floats divided by 255)."""
    out = chainrule.from_numpy(np.array(pixels.transpose(2, 0, 1), order="C"))
    if dtype != chainrule.uint8:
        out = out.to(dtype) * (1.0 / 255)
    return out


def _dashed_line(
    draw: Any, start: tuple, end: tuple, fill: Any, width: int, dash: int = 5, space: int = 5
) -> None:
    (x1, y1), (x2, y2) = start, end
    length = math.hypot(x2 - x1, y2 - y1)
    if length == 0:
        return
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    position = 0.0
    while position < length:
        stop = min(position + dash, length)
        draw.line(
            ((x1 + ux * position, y1 + uy * position), (x1 + ux * stop, y1 + uy * stop)),
            fill=fill,
            width=width,
        )
        position = stop + space


def _oriented_rectangle(draw: Any, xy: list, fill: Any, outline: Any, width: int) -> None:
    """A rotated box ``x1, y1, ..., x4, y4``: the first side dashed, the others solid."""
    _dashed_line(draw, (xy[0], xy[1]), (xy[2], xy[3]), fill=outline, width=width)
    n = len(xy)
    for i in range(2, n, 2):
        draw.line(
            ((xy[i], xy[i + 1]), (xy[(i + 2) % n], xy[(i + 3) % n])), width=width, fill=outline
        )
    draw.polygon(xy, fill=fill, outline=None, width=0)


def draw_bounding_boxes(
    image: Tensor,
    boxes: Tensor,
    labels: list[str] | None = None,
    colors: list[Color] | Color | None = None,
    fill: bool | None = False,
    width: int = 1,
    font: str | None = None,
    font_size: int | None = None,
    label_colors: list[Color] | Color | None = None,
    label_background_colors: list[Color] | Color | None = None,
    fill_labels: bool = False,
) -> Tensor:
    """Draw ``(xmin, ymin, xmax, ymax)`` boxes (or 8-coordinate rotated boxes) on a ``(C, H, W)``
    uint8 or float image with Pillow, optionally filled (alpha 100) and labelled; returns
    a new image of the input's dtype."""
    from PIL import Image, ImageDraw, ImageFont

    _check_image(image, rgb_only=False, type_message="Tensor expected, got {}")
    box_values = boxes.detach().numpy()
    if box_values.shape[-1] == 4 and (
        (box_values[:, 0] > box_values[:, 2]).any() or (box_values[:, 1] > box_values[:, 3]).any()
    ):
        raise ValueError(
            "Boxes need to be in (xmin, ymin, xmax, ymax) format. Use torchvision.ops.box_convert to convert them"
        )
    num_boxes = box_values.shape[0]
    if num_boxes == 0:
        warnings.warn("boxes doesn't contain any box. No box was drawn", stacklevel=2)
        return image
    if labels is None:
        labels = [None] * num_boxes
    elif len(labels) != num_boxes:
        raise ValueError(
            f"Number of boxes ({num_boxes}) and labels ({len(labels)}) mismatch. Please specify labels for each box."
        )
    box_colors = _parse_colors(colors, num_objects=num_boxes)
    if label_colors or fill_labels:
        text_colors = _parse_colors(
            label_colors if label_colors else "black", num_objects=num_boxes
        )
    else:
        text_colors = list(box_colors)
    if fill_labels and label_background_colors:
        background_colors = _parse_colors(label_background_colors, num_objects=num_boxes)
    else:
        background_colors = list(box_colors)
    if font is None:
        if font_size is not None:
            warnings.warn(
                "Argument 'font_size' will be ignored since 'font' is not set.", stacklevel=2
            )
        text_font = ImageFont.load_default()
    else:
        text_font = ImageFont.truetype(font=font, size=font_size or 10)
    if image.size(0) == 1:
        image = image.repeat(3, 1, 1)
    canvas = Image.fromarray(_uint8_pixels(image))
    draw = ImageDraw.Draw(canvas, "RGBA" if fill else None)
    rows = box_values.astype(np.int64).tolist()
    for bbox, color, label, text_color, background in zip(
        rows, box_colors, labels, text_colors, background_colors
    ):
        fill_color = tuple(color) + (100,) if fill else None
        if len(bbox) > 4:
            _oriented_rectangle(draw, bbox, fill=fill_color, outline=color, width=width)
        else:
            draw.rectangle(bbox, width=width, outline=color, fill=fill_color)
        if label is not None:
            box_margin = 1
            origin = (bbox[0] + width + box_margin, bbox[1] + width + box_margin)
            if fill_labels:
                left, top, right, bottom = draw.textbbox(origin, label, font=text_font)
                draw.rectangle(
                    (left - box_margin, top - box_margin, right + box_margin, bottom + box_margin),
                    fill=background,
                )
            draw.text(origin, label, fill=text_color, font=text_font)
    return _back_to(np.asarray(canvas), image.dtype)


def draw_segmentation_masks(
    image: Tensor,
    masks: Tensor,
    alpha: float = 0.8,
    colors: list[Color] | Color | None = None,
) -> Tensor:
    """Blend boolean ``masks`` ``(N, H, W)`` (or ``(H, W)``) onto an RGB image:
    ``image * (1 - alpha) + painted * alpha``, where ``painted`` has each mask's color and
    black where masks overlap."""
    _check_image(image, rgb_only=True, type_message="The image must be a tensor, got {}")
    if masks.ndim == 2:
        masks = masks[None, :, :]
    if masks.ndim != 3:
        raise ValueError("masks must be of shape (H, W) or (batch_size, H, W)")
    if masks.dtype != chainrule.bool:
        raise ValueError(f"The masks must be of dtype bool. Got {masks.dtype}")
    if masks.shape[-2:] != image.shape[-2:]:
        raise ValueError("The image and the masks must have the same height and width")
    num_masks = masks.size()[0]
    if num_masks == 0:
        warnings.warn("masks doesn't contain any mask. No mask was drawn", stacklevel=2)
        return image
    mask_values = masks.numpy()
    pixels = image.detach().numpy()
    painted = pixels.copy()
    for mask, color in zip(
        mask_values,
        _parse_colors(colors, num_objects=num_masks, floating=image.is_floating_point()),
    ):
        painted[:, mask] = np.asarray(color, dtype=pixels.dtype)[:, None]
    painted[:, mask_values.sum(axis=0) > 1] = 0
    # PyTorch's arithmetic: a uint8 image times a Python float becomes float32
    compute = pixels.dtype.type if pixels.dtype != np.uint8 else np.float32
    blended = pixels.astype(compute) * compute(1 - alpha) + painted.astype(compute) * compute(alpha)
    return chainrule.from_numpy(blended.astype(pixels.dtype))


def draw_keypoints(
    image: Tensor,
    keypoints: Tensor,
    connectivity: list[tuple[int, int]] | None = None,
    colors: str | tuple[int, int, int] | None = None,
    radius: int = 2,
    width: int = 3,
    visibility: Tensor | None = None,
) -> Tensor:
    """Draw each visible keypoint ``(num_instances, K, 2)`` as a filled circle of ``radius``
    and each ``connectivity`` pair of visible points as a line of ``width``."""
    from PIL import Image, ImageDraw

    _check_image(image, rgb_only=True, type_message="The image must be a tensor, got {}")
    if keypoints.ndim != 3:
        raise ValueError("keypoints must be of shape (num_instances, K, 2)")
    if visibility is None:
        visible = np.ones(tuple(keypoints.shape[:-1]), dtype=bool)
    else:
        visible = visibility.numpy()
        if visible.ndim == 3:
            visible = visible.squeeze(-1)
        if visible.ndim != 2:
            raise ValueError(
                f"visibility must be of shape (num_instances, K). Got ndim={visible.ndim}"
            )
        if visible.shape != tuple(keypoints.shape[:-1]):
            raise ValueError(
                "keypoints and visibility must have the same dimensionality for num_instances and K. "
                f"Got visibility.shape={visibility.shape} and keypoints.shape={keypoints.shape}"
            )
    canvas = Image.fromarray(_uint8_pixels(image))
    draw = ImageDraw.Draw(canvas)
    points = keypoints.detach().numpy().astype(np.int64).tolist()
    for instance, seen in zip(points, visible.astype(bool).tolist()):
        for (x, y), show in zip(instance, seen):
            if show:
                draw.ellipse(
                    [x - radius, y - radius, x + radius, y + radius],
                    fill=colors,
                    outline=None,
                    width=0,
                )
        for a, b in connectivity or ():
            if seen[a] and seen[b]:
                draw.line(
                    ((instance[a][0], instance[a][1]), (instance[b][0], instance[b][1])),
                    width=width,
                )
    return _back_to(np.array(canvas), image.dtype)


def _make_colorwheel() -> np.ndarray:
    """The 55 hues of the Middlebury flow color wheel (red, yellow, green, cyan, blue, magenta)."""
    segments = [
        (15, 0, 1, True),  # red -> yellow: green rises
        (6, 1, 0, False),  # yellow -> green: red falls
        (4, 1, 2, True),  # green -> cyan: blue rises
        (11, 2, 1, False),  # cyan -> blue: green falls
        (13, 2, 0, True),  # blue -> magenta: red rises
        (6, 0, 2, False),  # magenta -> red: blue falls
    ]
    wheel = []
    for n, full, changing, rising in segments:
        ramp = np.floor((255 * np.arange(n)).astype(np.float32) / np.float32(n))
        block = np.zeros((n, 3), dtype=np.float32)
        block[:, full] = 255
        block[:, changing] = ramp if rising else 255 - ramp
        wheel.append(block)
    return np.concatenate(wheel)


def flow_to_image(flow: Tensor) -> Tensor:
    """A float32 flow ``(2, H, W)`` or ``(N, 2, H, W)`` as an RGB uint8 image: the hue is the
    direction on the Middlebury color wheel, the saturation the length (scaled by the
    largest length)."""
    if flow.dtype != chainrule.float:
        raise ValueError(f"Flow should be of dtype torch.float, got {flow.dtype}.")
    shape = flow.shape
    values = flow.detach().numpy()
    if values.ndim == 3:
        values = values[None]
    if values.ndim != 4 or values.shape[1] != 2:
        raise ValueError(f"Input flow should have shape (2, H, W) or (N, 2, H, W), got {shape}.")
    max_norm = np.sqrt(np.sum(values**2, axis=1)).max()
    unit = values / (max_norm + np.finfo(np.float32).eps)
    wheel = _make_colorwheel()
    ncols = wheel.shape[0]
    norm = np.sqrt(np.sum(unit**2, axis=1))
    angle = np.arctan2(-unit[:, 1], -unit[:, 0]) / np.float32(np.pi)
    fk = (angle + 1) / 2 * (ncols - 1)
    k0 = np.floor(fk).astype(np.int64)
    k1 = np.where(k0 + 1 == ncols, 0, k0 + 1)
    f = fk - k0.astype(np.float32)
    image = np.zeros((values.shape[0], 3, *values.shape[2:]), dtype=np.uint8)
    for c in range(3):
        col = (1 - f) * (wheel[k0, c] / np.float32(255)) + f * (wheel[k1, c] / np.float32(255))
        image[:, c] = np.floor(255 * (1 - norm * (1 - col))).astype(np.uint8)
    return chainrule.from_numpy(image[0] if len(shape) == 3 else image)


def _log_api_usage_once(obj: Any) -> None:
    """torchvision reports API usage to PyTorch's logger here; chainrule records nothing."""


def _make_ntuple(x: Any, n: int) -> tuple[Any, ...]:
    """``x`` as a tuple: an iterable as it is, anything else repeated ``n`` times."""
    from collections.abc import Iterable

    return tuple(x) if isinstance(x, Iterable) else (x,) * n
