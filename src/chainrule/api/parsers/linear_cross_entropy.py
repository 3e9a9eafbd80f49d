"""``torch.nn.functional.linear_cross_entropy``: cross_entropy of the logits of a linear
layer, composed of ``linear`` and ``cross_entropy`` (their nodes, their derivatives)."""

from __future__ import annotations

import math
import warnings
from typing import Any

from ..._tensor import Tensor
from ...ops import shapes
from .class_losses import cross_entropy
from .linear import linear

_CHUNKABLE = ("mean", "sum", "none")


def _check_shapes(input: Tensor, linear_weight: Tensor, linear_bias: Tensor | None) -> None:
    """PyTorch's checks: input (F,) or (N, F), weight (C, d_1..d_K, F), bias (C, d_1..d_K),
    K > 0 only for a batch."""
    if input.ndim < 1 or input.ndim > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.ndim}")
    if linear_weight.ndim < 2:
        raise RuntimeError(
            f"expected linear_weight with dimensionality at least 2, got {linear_weight.ndim}"
        )
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError(
            "expected equal input and linear_weight last dimensions (in_features), "
            f"got {in_features} and {linear_weight.shape[-1]}, respectively"
        )
    classes_shape = tuple(linear_weight.shape[:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != classes_shape:
        raise RuntimeError(
            f"expected linear_bias shape {classes_shape}, got {tuple(linear_bias.shape)}"
        )
    if len(classes_shape) > 1 and input.ndim == 1:
        raise RuntimeError(
            f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)}"
            f" requires batched input, (N, {in_features}), got unbatched"
            f" input with shape {tuple(input.shape)}"
        )


def _warn_unchunkable(
    target: Tensor,
    linear_bias: Tensor | None,
    out_features: tuple,
    reduction: str,
    label_smoothing: float,
) -> None:
    """PyTorch's warning where ``options`` asks for the chunked path and the call does not
    allow it (it then computes the reference way, as chainrule always does)."""
    if (
        out_features
        or reduction not in _CHUNKABLE
        or label_smoothing != 0.0
        or target.dtype.name != "int64"
    ):
        bias_shape = tuple(linear_bias.shape) if linear_bias is not None else None
        warnings.warn(
            "linear_cross_entropy: ``options`` ignored; chunked path needs "
            "reduction in {'mean','sum','none'}, label_smoothing == 0, target.dtype"
            " == int64, out_features == (). Got "
            f"reduction={reduction!r}, label_smoothing={label_smoothing}, "
            f"target.dtype={target.dtype}, out_features={out_features}"
            f", tracing=False, linear_bias.shape={bias_shape}.",
            stacklevel=3,
        )


def linear_cross_entropy(
    input: Tensor,
    linear_weight: Tensor,
    target: Tensor,
    *,
    linear_bias: Tensor | None = None,
    weight: Tensor | None = None,
    reduction: str = "mean",
    ignore_index: int | None = None,
    label_smoothing: float = 0.0,
    options: Any = None,
) -> Tensor:
    """cross_entropy(input Wᵀ + b, target): logits (N, C, d_1..d_K) from a weight
    (C, d_1..d_K, F) flattened to ((C·d_1···d_K), F), the gradients those of linear and
    cross_entropy. ``ignore_index=None`` ignores no class (-100 for class indices, as
    PyTorch maps it); with probability targets it must stay None.

    Differs from PyTorch: ``options`` (a ``LinearCrossEntropyOptions``) is accepted, but the
    values are always computed the reference way, whose values the chunked path equals
    (PyTorch's same warning where the chunked path would not apply; the chunked path's own
    errors, such as a ``batch_chunk_size`` that disagrees with ``chunking_method``, are not
    raised); higher-order and forward-mode derivatives work with any ``options``."""
    _check_shapes(input, linear_weight, linear_bias)
    num_classes, *out_features = linear_weight.shape[:-1]
    in_features = input.shape[-1]
    logits_shape = (*input.shape[:-1], num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    if options is not None:
        _warn_unchunkable(target, linear_bias, tuple(out_features), reduction, label_smoothing)
    if out_features:
        rows = math.prod(out_features, start=num_classes)
        linear_weight = shapes.reshape(linear_weight, (rows, in_features))
        if linear_bias is not None:
            linear_bias = shapes.reshape(linear_bias, (rows,))
    logits = shapes.reshape(linear(input, linear_weight, linear_bias), logits_shape)
    return cross_entropy(
        logits,
        target,
        weight=weight,
        reduction=reduction,
        ignore_index=-100 if ignore_index is None else ignore_index,
        label_smoothing=label_smoothing,
    )
