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


def _fake(
    x: np.ndarray, inv: Any, scale: Any, zp: Any, lo: int, hi: int, work: Any, floating: bool
) -> tuple:
    """The fake-quantized values of ``x`` and the mask of those inside the range (the
    dequantizing product is computed in ``work``: float32 per tensor, x's dtype per
    channel, as PyTorch's kernels). An integer zero point is added after rounding, a
    floating one before; a NaN lands on ``quant_min``, outside the mask."""
    with np.errstate(invalid="ignore", over="ignore"):
        r = np.rint(x * inv + zp) if floating else np.rint(x * inv) + zp
    mask = (r >= lo) & (r <= hi)
    q = np.clip(r, lo, hi)
    q[np.isnan(q)] = lo
    with np.errstate(invalid="ignore", over="ignore"):
        out = ((q - zp).astype(work) * scale).astype(x.dtype)
    return out, mask


class FakeQuantizePerTensorAffineCachemask(Function):
    """The per-tensor fake quantization, with the straight-through gradient."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, scale: float, zp: int, lo: int, hi: int) -> Tensor:
        arr = x.detach().numpy()
        s = np.float32(scale)
        with np.errstate(divide="ignore"):
            inv = np.float32(1.0) / s
        out, mask = _fake(arr, inv, s, zp, lo, hi, np.float32, False)
        ctx.mask = mask
        return _make(out, x._dtype)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        return grad * _make(ctx.mask, _dtypes.bool), None, None, None, None


class FakeQuantizePerTensorAffineCachemaskTensorQparams(FakeQuantizePerTensorAffineCachemask):
    """The per-tensor fake quantization with one-element tensors as scale and zero point
    (the zero point is then not checked against the range)."""


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
        with np.errstate(divide="ignore"):
            inv = np.float32(1.0) / s
        floating = zp.dtype.kind == "f"
        out, mask = _fake(arr, inv, s, zp.reshape(shape), lo, hi, arr.dtype, floating)
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
    """``torch.fake_quantize_per_tensor_affine`` (``scale``, ``zero_point``: numbers, or
    one-element tensors, whose zero point PyTorch does not check against the range)."""
    x = _float_tensor(input, "fake_quantize_per_tensor_affine")
    tensors = isinstance(scale, Tensor) and isinstance(zero_point, Tensor)
    if isinstance(scale, Tensor):
        scale = float(scale.item())
    if isinstance(zero_point, Tensor):
        zero_point = int(zero_point.item())
    _check_range(quant_min, quant_max)
    if tensors:
        return FakeQuantizePerTensorAffineCachemaskTensorQparams.apply(
            x, scale, zero_point, quant_min, quant_max
        )
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
    """``torch.fake_quantize_per_channel_affine``: one scale (float32 or bfloat16) and zero
    point (int32, checked against the range; or float32/half, added before rounding) per
    slice along ``axis`` (from 0, not negative)."""
    x = _float_tensor(input, "fake_quantize_per_channel_affine")
    if scale._dtype not in (_dtypes.float32, _dtypes.bfloat16):
        raise RuntimeError(f"Scale must be Float or BFloat16, found {scale._dtype.scalar_name}")
    if zero_point._dtype not in (_dtypes.int32, _dtypes.float32, _dtypes.float16):
        raise RuntimeError(
            f"Zero-point must be Int32, Float or Half, found {zero_point._dtype.scalar_name}"
        )
    if scale.dim() != 1:
        raise RuntimeError("scale should be a 1-D tensor")
    if zero_point.dim() != 1:
        raise RuntimeError("zero point should be a 1-D tensor")
    if scale.numel() != zero_point.numel():
        raise RuntimeError("scale and zero-point need to have the same dimensions")
    if scale.numel() != x.shape[_wrap_dim(axis, x.dim())]:
        raise RuntimeError(
            "dimensions of scale and zero-point are not consistent with input tensor"
        )
    _check_range(quant_min, quant_max)
    zp = zero_point.detach().numpy().reshape(-1)
    if zp.dtype.kind == "f":
        zp = zp.astype(np.float32)
    else:
        if ((zp < quant_min) | (zp > quant_max)).any():
            raise RuntimeError("`zero_point` must be between `quant_min` and `quant_max`.")
        zp = zp.astype(np.int64)
    if not 0 <= axis < x.dim():
        raise RuntimeError("`axis` must be between 0 and number of dimensions of input")
    s = scale.detach().float().numpy().reshape(-1)
    return FakeQuantizePerChannelAffineCachemask.apply(x, s, zp, axis, quant_min, quant_max)
