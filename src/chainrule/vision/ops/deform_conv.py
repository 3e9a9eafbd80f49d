"""Deformable convolution (Dai et al., 2017; v2 with a modulation mask, Zhu et al., 2018):
kernel tap ``k`` at output ``(y, x)`` reads the input at ``(y*s - p + i*d + dy_k, x*s - p + j*d
+ dx_k)`` by bilinear interpolation (zero outside the image), times the mask, then an
ordinary grouped convolution sums the taps. Built from chainrule ops: gradients reach the
input, the offsets, the mask, the weight and the bias."""

from __future__ import annotations

import math

import chainrule
from chainrule import nn
from chainrule.nn import init

from ..._tensor import Tensor
from ._utils import _pair

__all__ = ["DeformConv2d", "deform_conv2d"]


def _sample(input: Tensor, y: Tensor, x: Tensor) -> Tensor:
    """Bilinear samples ``(N, G, C/G, K, Ho, Wo)`` of ``input`` ``(N, C, H, W)`` at positions
    ``y, x`` ``(N, G, K, Ho, Wo)`` (offset group ``g`` reads channels ``g*C/G ...``): a point
    with ``y <= -1``, ``y >= H``, ``x <= -1`` or ``x >= W`` gives 0, and each of the four
    neighbouring pixels counts only when it lies in the image."""
    n, c, height, width = input.shape
    groups = y.shape[1]
    flat = input.reshape(n, groups, c // groups, 1, height * width)
    inside = (y > -1) & (y < height) & (x > -1) & (x < width)
    y_low, x_low = y.detach().floor(), x.detach().floor()
    ly, lx = y - y_low, x - x_low
    y_low, x_low = y_low.long(), x_low.long()
    result = None
    for dy, wy in ((0, 1 - ly), (1, ly)):
        for dx, wx in ((0, 1 - lx), (1, lx)):
            row, col = y_low + dy, x_low + dx
            valid = inside & (row >= 0) & (row <= height - 1) & (col >= 0) & (col <= width - 1)
            index = chainrule.where(valid, row * width + col, chainrule.zeros_like(row))
            shape = index.shape
            index = index.reshape(n, groups, 1, 1, -1).expand(
                n, groups, c // groups, 1, index[0, 0].numel()
            )
            values = flat.expand(n, groups, c // groups, 1, height * width).gather(4, index)
            values = values.reshape(n, groups, c // groups, *shape[2:])
            weight = (wy * wx * valid.to(input.dtype)).unsqueeze(2)
            term = values * weight
            result = term if result is None else result + term
    return result


def deform_conv2d(
    input: Tensor,
    offset: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: int | tuple[int, int] = (1, 1),
    padding: int | tuple[int, int] = (0, 0),
    dilation: int | tuple[int, int] = (1, 1),
    mask: Tensor | None = None,
) -> Tensor:
    """Deformable convolution of ``input`` ``(N, C, H, W)`` with ``weight`` ``(O, C/groups, KH,
    KW)``: ``offset`` ``(N, 2*G*KH*KW, Ho, Wo)`` holds ``(dy, dx)`` per offset group and tap,
    ``mask`` ``(N, G*KH*KW, Ho, Wo)`` scales each sample (v2; none: v1)."""
    out_channels, _, kernel_h, kernel_w = weight.shape
    n, in_channels, height, width = input.shape
    stride_h, stride_w = _pair(stride)
    pad_h, pad_w = _pair(padding)
    dil_h, dil_w = _pair(dilation)
    taps = kernel_h * kernel_w
    offset_groups = offset.shape[1] // (2 * taps)
    weight_groups = in_channels // weight.shape[1]
    if offset_groups == 0:
        raise RuntimeError(
            "the shape of the offset tensor at dimension 1 is not valid. It should "
            "be a multiple of 2 * weight.size[2] * weight.size[3].\n"
            f"Got offset.shape[1]={offset.shape[1]}, while 2 * weight.size[2] * weight.size[3]={2 * taps}"
        )
    out_h = (height + 2 * pad_h - dil_h * (kernel_h - 1) - 1) // stride_h + 1
    out_w = (width + 2 * pad_w - dil_w * (kernel_w - 1) - 1) // stride_w + 1
    if tuple(offset.shape[2:]) != (out_h, out_w):
        raise RuntimeError(
            f"offset output dims: ({offset.shape[2]}, {offset.shape[3]}) - computed output dims: ({out_h}, {out_w})"
        )
    # base sampling positions of each tap, (K, Ho, 1) and (K, 1, Wo)
    tap_i = chainrule.arange(kernel_h, dtype=input.dtype).repeat_interleave(kernel_w)
    tap_j = chainrule.arange(kernel_w, dtype=input.dtype).repeat(kernel_h)
    rows = chainrule.arange(out_h, dtype=input.dtype) * stride_h - pad_h
    cols = chainrule.arange(out_w, dtype=input.dtype) * stride_w - pad_w
    base_y = (rows[None, :] + tap_i[:, None] * dil_h)[:, :, None]
    base_x = (cols[None, :] + tap_j[:, None] * dil_w)[:, None, :]
    offsets = offset.reshape(n, offset_groups, taps, 2, out_h, out_w)
    sampled = _sample(
        input, base_y + offsets[:, :, :, 0], base_x + offsets[:, :, :, 1]
    )  # (N, G, C/G, K, Ho, Wo)
    if mask is not None:
        sampled = sampled * mask.reshape(n, offset_groups, 1, taps, out_h, out_w)
    columns = sampled.reshape(n, weight_groups, in_channels // weight_groups * taps, out_h * out_w)
    kernels = weight.reshape(weight_groups, out_channels // weight_groups, -1)
    out = chainrule.einsum("gok,ngkl->ngol", kernels, columns).reshape(
        n, out_channels, out_h, out_w
    )
    if bias is not None:
        out = out + bias.reshape(1, -1, 1, 1)
    return out


class DeformConv2d(nn.Module):
    """A layer of :func:`deform_conv2d`: weight Kaiming-uniform (``a = sqrt(5)``), bias uniform
    in ``±1/sqrt(fan_in)``; ``forward(input, offset, mask=None)``."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int | tuple[int, int],
        stride: int | tuple[int, int] = 1,
        padding: int | tuple[int, int] = 0,
        dilation: int | tuple[int, int] = 1,
        groups: int = 1,
        bias: bool = True,
    ) -> None:
        super().__init__()
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _pair(kernel_size)
        self.stride = _pair(stride)
        self.padding = _pair(padding)
        self.dilation = _pair(dilation)
        self.groups = groups
        self.weight = nn.Parameter(
            chainrule.empty(out_channels, in_channels // groups, *self.kernel_size)
        )
        if bias:
            self.bias = nn.Parameter(chainrule.empty(out_channels))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in)
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor, offset: Tensor, mask: Tensor | None = None) -> Tensor:
        return deform_conv2d(
            input,
            offset,
            self.weight,
            self.bias,
            stride=self.stride,
            padding=self.padding,
            dilation=self.dilation,
            mask=mask,
        )

    def __repr__(self) -> str:
        s = (
            f"{type(self).__name__}({self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}"
            f", stride={self.stride}"
        )
        if self.padding != (0, 0):
            s += f", padding={self.padding}"
        if self.dilation != (1, 1):
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        return s + ")"
