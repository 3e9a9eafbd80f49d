"""``torch.ao.nn.quantized.functional``: functions on quantized tensors. chainrule has
``linear`` (quint8 input, qint8 weight, requantized as ``nnq.Linear``), ``max_pool2d`` and
``adaptive_avg_pool2d`` (output size 1); the others (``conv2d``, ``avg_pool2d``,
``hardswish`` ...) are not implemented."""

from __future__ import annotations

from typing import Any

import chainrule as torch

from .modules.linear import linear_static

__all__ = ["adaptive_avg_pool2d", "linear", "max_pool2d"]


def linear(
    input: Any,  # noqa: A002
    weight: Any,
    bias: Any = None,
    scale: float | None = None,
    zero_point: int | None = None,
) -> Any:
    """``y = x W^T + b`` on quantized ``x`` (quint8) and ``W`` (qint8), requantized with
    ``scale`` and ``zero_point`` (the input's when not given)."""
    if scale is None:
        scale = input.q_scale()
    if zero_point is None:
        zero_point = input.q_zero_point()
    return linear_static(input, weight, bias, scale, zero_point)


def max_pool2d(input: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: A002
    """Quantized max pooling (same scale and zero point)."""
    return torch.nn.functional.max_pool2d(input, *args, **kwargs)


def adaptive_avg_pool2d(input: Any, output_size: Any) -> Any:  # noqa: A002
    """Quantized global average pooling (output size 1)."""
    if not input.is_quantized:
        raise ValueError("Input to 'quantized.functional.adaptive_avg_pool2d' must be quantized!")
    return torch.nn.functional.adaptive_avg_pool2d(input, output_size)
