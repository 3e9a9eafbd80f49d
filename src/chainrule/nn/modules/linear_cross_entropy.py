"""``LinearCrossEntropyLoss``: a linear layer to class logits and cross entropy in one loss
(``F.linear_cross_entropy``), and ``LinearCrossEntropyOptions``, the settings PyTorch's
chunked computation of it takes."""

from __future__ import annotations

import math
from typing import Any

from ..._tensor import Tensor
from .. import functional as F
from .linear import Linear
from .linear_cross_entropy_options import LinearCrossEntropyOptions
from .loss import _WeightedLoss

__all__ = ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]


class LinearCrossEntropyLoss(_WeightedLoss):
    """cross_entropy(input Wᵀ + b, target) with a learned W of shape
    (C·d_1···d_K, in_features) (the child ``linear``, stored flat and viewed as
    (C, d_1..d_K, in_features) in forward), for class indices or probabilities."""

    __constants__ = ["num_classes", "out_features", "reduction", "ignore_index", "label_smoothing"]

    def __init__(
        self,
        in_features: int,
        num_classes: int,
        *,
        out_features: tuple[int, ...] = (),
        bias: bool = False,
        device: Any = None,
        dtype: Any = None,
        reduction: str = "mean",
        weight: Tensor | None = None,
        ignore_index: int | None = None,
        label_smoothing: float = 0.0,
        options: LinearCrossEntropyOptions | None = None,
    ) -> None:
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(
                f"expected weight shape to be {(num_classes,)}, got {tuple(weight.shape)}"
            )
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(
                f"expected label_smoothing to be in range [0, 1], got {label_smoothing}"
            )
        super().__init__(weight=weight, reduction=reduction)
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        rows = math.prod(out_features, start=num_classes)
        self.linear = Linear(in_features, rows, bias=bias, device=device, dtype=dtype)
        self.options = options

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        classes_shape = (self.num_classes, *self.out_features)
        linear_weight = self.linear.weight.reshape((*classes_shape, self.linear.in_features))
        bias = self.linear.bias
        return F.linear_cross_entropy(
            input,
            linear_weight,
            target,
            linear_bias=None if bias is None else bias.reshape(classes_shape),
            weight=self.weight,
            reduction=self.reduction,
            ignore_index=self.ignore_index,
            label_smoothing=self.label_smoothing,
            options=self.options,
        )

    def extra_repr(self) -> str:
        return (
            f"in_features={self.linear.in_features}, num_classes={self.num_classes},"
            f" out_features={self.out_features}, bias={self.linear.bias is not None},"
            f" reduction={self.reduction}, ignore_index={self.ignore_index},"
            f" label_smoothing={self.label_smoothing}, options={self.options}"
        )
