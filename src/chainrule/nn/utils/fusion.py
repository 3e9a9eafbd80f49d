"""``nn.utils.fusion``: fold an eval-mode batch norm into the convolution or linear layer
before it, W' = W·γ/√(σ² + ε) (per output channel), b' = (b - μ)·γ/√(σ² + ε) + β."""

from __future__ import annotations

import copy
from typing import Any, TypeVar

from ..._creation import ones_like, zeros_like
from ..._tensor import Tensor
from ..parameter import Parameter

__all__ = [
    "fuse_conv_bn_eval",
    "fuse_conv_bn_weights",
    "fuse_linear_bn_eval",
    "fuse_linear_bn_weights",
]

ConvT = TypeVar("ConvT")
LinearT = TypeVar("LinearT")


def fuse_conv_bn_eval(conv: ConvT, bn: Any, transpose: bool = False) -> ConvT:
    """A copy of ``conv`` computing conv followed by ``bn`` (both in eval mode)."""
    if conv.training or bn.training:  # type: ignore[attr-defined]
        raise AssertionError("Fusion only for eval!")
    fused_conv = copy.deepcopy(conv)
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused_conv.weight, fused_conv.bias = fuse_conv_bn_weights(  # type: ignore[attr-defined]
        fused_conv.weight,  # type: ignore[attr-defined]
        fused_conv.bias,  # type: ignore[attr-defined]
        bn.running_mean,
        bn.running_var,
        bn.eps,
        bn.weight,
        bn.bias,
        transpose,
    )
    return fused_conv


def fuse_conv_bn_weights(
    conv_w: Tensor,
    conv_b: Tensor | None,
    bn_rm: Tensor,
    bn_rv: Tensor,
    bn_eps: float,
    bn_w: Tensor | None,
    bn_b: Tensor | None,
    transpose: bool = False,
) -> tuple[Parameter, Parameter]:
    """The fused convolution's weight and bias, as Parameters (the output channels are dim
    0 of the weight, dim 1 when ``transpose``)."""
    conv_weight_dtype = conv_w.dtype
    conv_bias_dtype = conv_b.dtype if conv_b is not None else conv_weight_dtype
    if conv_b is None:
        conv_b = zeros_like(bn_rm)
    if bn_w is None:
        bn_w = ones_like(bn_rm)
    if bn_b is None:
        bn_b = zeros_like(bn_rm)
    bn_var_rsqrt = (bn_rv + bn_eps).rsqrt()
    ones = [1] * (conv_w.ndim - 2)
    shape = [1, -1, *ones] if transpose else [-1, 1, *ones]
    fused_w = (conv_w * (bn_w * bn_var_rsqrt).reshape(shape)).to(dtype=conv_weight_dtype)
    fused_b = ((conv_b - bn_rm) * bn_var_rsqrt * bn_w + bn_b).to(dtype=conv_bias_dtype)
    return Parameter(fused_w, conv_w.requires_grad), Parameter(fused_b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear: LinearT, bn: Any) -> LinearT:
    """A copy of ``linear`` computing linear followed by ``bn`` (both in eval mode)."""
    if linear.training or bn.training:  # type: ignore[attr-defined]
        raise AssertionError("Fusion only for eval!")
    fused_linear = copy.deepcopy(linear)
    out_features = linear.out_features  # type: ignore[attr-defined]
    if out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(
            "To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
            f"linear.out_features={out_features} and bn.num_features={bn.num_features}"
        )
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused_linear.weight, fused_linear.bias = fuse_linear_bn_weights(  # type: ignore[attr-defined]
        fused_linear.weight,  # type: ignore[attr-defined]
        fused_linear.bias,  # type: ignore[attr-defined]
        bn.running_mean,
        bn.running_var,
        bn.eps,
        bn.weight,
        bn.bias,
    )
    return fused_linear


def fuse_linear_bn_weights(
    linear_w: Tensor,
    linear_b: Tensor | None,
    bn_rm: Tensor,
    bn_rv: Tensor,
    bn_eps: float,
    bn_w: Tensor,
    bn_b: Tensor,
) -> tuple[Parameter, Parameter]:
    """The fused linear layer's weight and bias, as Parameters."""
    linear_weight_dtype = linear_w.dtype
    linear_bias_dtype = linear_b.dtype if linear_b is not None else linear_weight_dtype
    if linear_b is None:
        linear_b = zeros_like(bn_rm)
    bn_scale = bn_w * (bn_rv + bn_eps).rsqrt()
    fused_w = linear_w * bn_scale.unsqueeze(-1).to(dtype=linear_weight_dtype)
    fused_b = ((linear_b - bn_rm) * bn_scale + bn_b).to(dtype=linear_bias_dtype)
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_b.requires_grad)
