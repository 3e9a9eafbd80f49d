"""Fake quantization: ``torch.fake_quantize_per_tensor_affine`` and
``torch.fake_quantize_per_channel_affine``, what quantization-aware training inserts.

The values are quantized and dequantized at once, ``(clamp(round(x * (1/scale)) +
zero_point, quant_min, quant_max) - zero_point) * scale``, rounded as PyTorch's CPU kernel
(``x * (1/scale)`` in float32, ties to even, then the zero point added); the gradient is
the straight-through estimator: the incoming gradient where ``round(x/scale) + zero_point``
lies in ``[quant_min, quant_max]``, zero elsewhere. (The gradient node is
``FakeQuantizePerTensorAffineCachemaskBackward``; PyTorch's name ends in ``Backward0``.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _dtypes
from ._tensor import Tensor, _make, _wrap_dim
from .autograd.function import Function

__all__ = ["fake_quantize_per_channel_affine", "fake_quantize_per_tensor_affine"]


def _check_range(quant_min: int, quant_max: int) -> None:
    if quant_min > quant_max:
        raise RuntimeError("`quant_min` should be less than or         equal to `quant_max`.")


def _fake(x: np.ndarray, inv: Any, scale: Any, zp: Any, lo: int, hi: int, work: Any) -> tuple:
    """The fake-quantized values of ``x`` and the mask of those inside the range (the
    dequantizing product is computed in ``work``: float32 per tensor, x's dtype per
    channel, as PyTorch's kernels)."""
    r = np.rint(x * inv) + zp
    mask = (r >= lo) & (r <= hi)
    out = ((np.clip(r, lo, hi) - zp).astype(work) * scale).astype(x.dtype)
    return out, mask


class FakeQuantizePerTensorAffineCachemask(Function):
    """The per-tensor fake quantization, with the straight-through gradient."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, scale: float, zp: int, lo: int, hi: int) -> Tensor:
        arr = x.detach().numpy()
        s = np.float32(scale)
        out, mask = _fake(arr, np.float32(1.0) / s, s, zp, lo, hi, np.float32)
        ctx.mask = mask
        return _make(out, x._dtype)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        return grad * _make(ctx.mask, _dtypes.bool), None, None, None, None


class FakeQuantizePerChannelAffineCachemask(Function):
    """The per-channel fake quantization, with the straight-through gradient."""

    @staticmethod
    def forward(
        ctx: Any, x: Tensor, scale: np.ndarray, zp: np.ndarray, axis: int, lo: int, hi: int
    ) -> Tensor:
        arr = x.detach().numpy()
        shape = [1] * arr.ndim
        shape[axis] = -1
        s = scale.astype(np.float32).reshape(shape)
        out, mask = _fake(arr, np.float32(1.0) / s, s, zp.reshape(shape), lo, hi, arr.dtype)
        ctx.mask = mask
        return _make(out, x._dtype)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        return grad * _make(ctx.mask, _dtypes.bool), None, None, None, None, None


def _float_tensor(x: Any, name: str) -> Tensor:
    if not isinstance(x, Tensor) or not x._dtype.is_floating_point:
        raise RuntimeError(f"{name}: expected a floating point tensor as input")
    return x


def fake_quantize_per_tensor_affine(
    input: Tensor,  # noqa: A002
    scale: Any,
    zero_point: Any,
    quant_min: int,
    quant_max: int,
) -> Tensor:
    """``torch.fake_quantize_per_tensor_affine`` (``scale``, ``zero_point``: numbers or
    one-element tensors)."""
    x = _float_tensor(input, "fake_quantize_per_tensor_affine")
    if isinstance(scale, Tensor):
        scale = float(scale.item())
    if isinstance(zero_point, Tensor):
        zero_point = int(zero_point.item())
    _check_range(quant_min, quant_max)
    if not quant_min <= zero_point <= quant_max:
        raise RuntimeError("`zero_point` must be between `quant_min` and `quant_max`.")
    return FakeQuantizePerTensorAffineCachemask.apply(x, scale, zero_point, quant_min, quant_max)


def fake_quantize_per_channel_affine(
    input: Tensor,  # noqa: A002
    scale: Tensor,
    zero_point: Tensor,
    axis: int,
    quant_min: int,
    quant_max: int,
) -> Tensor:
    """``torch.fake_quantize_per_channel_affine``: one scale and zero point (int32, float or
    half) per slice along ``axis``."""
    x = _float_tensor(input, "fake_quantize_per_channel_affine")
    if zero_point._dtype not in (_dtypes.int32, _dtypes.float32, _dtypes.float16):
        raise RuntimeError(
            f"Zero-point must be Int32, Float or Half, found {zero_point._dtype.scalar_name}"
        )
    _check_range(quant_min, quant_max)
    zp = zero_point.detach().numpy().reshape(-1)
    if ((zp < quant_min) | (zp > quant_max)).any():
        raise RuntimeError("`zero_point` must be between `quant_min` and `quant_max`.")
    axis = _wrap_dim(axis, x.dim())
    s = scale.detach().numpy().reshape(-1)
    if s.shape[0] != x.shape[axis] or zp.shape[0] != x.shape[axis]:
        raise RuntimeError(
            "dimensions of scale and zero-point are not consistent with input tensor"
        )
    return FakeQuantizePerChannelAffineCachemask.apply(
        x, s, np.rint(zp).astype(np.int64), axis, quant_min, quant_max
    )
