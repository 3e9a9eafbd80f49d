"""Bilinear and bicubic resizing of uint8 images in fixed point, as PyTorch's CPU kernels
compute it (so that results equal torchvision's to the last level, ties included).

The resize is separable: a horizontal pass, then a vertical one, each skipped when that
size does not change, each rounding to uint8. A pass multiplies by integer weights: the
real weights times ``2**p``, rounded half away from zero, with ``p`` the largest precision
for which twice the largest weight still fits in an int16; a pixel is
``clamp((sum + 2**(p - 1)) >> p, 0, 255)``. The real weights are those of the antialiased
kernels (a window of ``support`` around each output pixel's center, normalized to sum 1;
with antialiasing, widened by the scale when shrinking) for bilinear and antialiased
bicubic (Keys' cubic, ``a = -0.5``); non-antialiased bicubic takes the four taps around
the source point (``a = -0.75``), clamped to the border, with repeated taps merged."""

from __future__ import annotations

import numpy as np

import chainrule
from chainrule import Tensor


def _triangle(x: np.ndarray) -> np.ndarray:
    x = np.abs(x)
    return np.where(x < 1.0, 1.0 - x, 0.0)


def _keys_cubic(x: np.ndarray, a: float) -> np.ndarray:
    x = np.abs(x)
    near = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    far = (((x - 5.0) * x + 8.0) * x - 4.0) * a
    return np.where(x < 1.0, near, np.where(x < 2.0, far, 0.0))


def _window_weights(n_in: int, n_out: int, mode: str, antialias: bool) -> np.ndarray:
    """``(n_out, n_in)`` real weights of the (antialiased) windowed kernel."""
    scale = n_in / n_out
    half = 1.0 if mode == "bilinear" else 2.0
    widen = antialias and scale > 1.0
    support = half * scale if widen else half
    inv_scale = 1.0 / scale if widen else 1.0
    weights = np.zeros((n_out, n_in))
    for i in range(n_out):
        center = scale * (i + 0.5)
        lo = max(int(center - support + 0.5), 0)
        hi = min(int(center + support + 0.5), n_in)
        arg = (np.arange(lo, hi) - center + 0.5) * inv_scale
        w = _triangle(arg) if mode == "bilinear" else _keys_cubic(arg, -0.5)
        total = w.sum()
        weights[i, lo:hi] = w / total if total != 0 else w
    return weights


def _cubic_tap_weights(n_in: int, n_out: int) -> np.ndarray:
    """``(n_out, n_in)`` real weights of plain bicubic (four clamped taps, ``a = -0.75``)."""
    scale = n_in / n_out
    weights = np.zeros((n_out, n_in))
    offsets = np.arange(-1, 3)
    for i in range(n_out):
        source = (i + 0.5) * scale - 0.5
        base = int(np.floor(source))
        w = _keys_cubic(source - (base + offsets), -0.75)
        np.add.at(weights[i], np.clip(base + offsets, 0, n_in - 1), w)
    return weights


def _to_fixed(weights: np.ndarray) -> tuple[np.ndarray, int]:
    """Integer weights and their precision ``p`` (twice the largest still an int16)."""
    largest = float(weights.max())
    precision = 0
    while precision < 31 and int(0.5 + largest * (1 << (precision + 1))) < (1 << 15):
        precision += 1
    scaled = weights * float(1 << precision)
    fixed = np.where(scaled < 0, np.trunc(scaled - 0.5), np.trunc(scaled + 0.5))
    return fixed, precision


def _pass(x: np.ndarray, n_out: int, axis: int, mode: str, antialias: bool) -> np.ndarray:
    """One separable pass along ``axis`` (-1: width, -2: height), rounded to uint8 levels."""
    n_in = x.shape[axis]
    if mode == "bicubic" and not antialias:
        real = _cubic_tap_weights(n_in, n_out)
    else:
        real = _window_weights(n_in, n_out, mode, antialias)
    fixed, precision = _to_fixed(real)
    moved = np.moveaxis(x, axis, -1)
    # integers below 2**53 throughout: float64 sums are exact
    acc = moved @ fixed.T + float(1 << (precision - 1))
    out = np.clip(np.floor(acc / float(1 << precision)), 0, 255)
    return np.moveaxis(out, -1, axis)


def resize_uint8(image: Tensor, size: list[int], mode: str, antialias: bool) -> Tensor:
    """``image`` (uint8, ``(..., H, W)``) resized to ``size = [h, w]`` by ``mode``
    (``"bilinear"`` or ``"bicubic"``) in PyTorch's fixed-point arithmetic."""
    x = image.detach().numpy().astype(np.float64)
    height, width = size
    if x.shape[-1] != width:
        x = _pass(x, width, -1, mode, antialias)
    if x.shape[-2] != height:
        x = _pass(x, height, -2, mode, antialias)
    return chainrule.from_numpy(np.ascontiguousarray(x.astype(np.uint8)))
