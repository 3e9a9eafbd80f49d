"""``torch.ao.nn.quantized.Conv2d``: a statically quantized 2-D convolution (quint8 in and
out, qint8 weights), computed as PyTorch's x86/fbgemm kernel rounds: exact integer sums
over the zero-point-shifted input (padded with its zero point), then the requantization of
the quantized linear layer (``linear.requantize``)."""

from __future__ import annotations

from typing import Any

import numpy as np

import chainrule as torch
from chainrule import nn
from chainrule._missing import NotImplementedInChainrule

__all__ = ["Conv2d", "conv2d_static"]


def _int_conv2d(
    x: np.ndarray, w: np.ndarray, stride: tuple, padding: tuple, dilation: tuple, groups: int
) -> np.ndarray:
    """The exact integer convolution of x (N, C, H, W) by w (O, C/groups, kh, kw)."""
    n, _, h, wd = x.shape
    out_c, per_group, kh, kw = w.shape
    x = np.pad(x, ((0, 0), (0, 0), (padding[0], padding[0]), (padding[1], padding[1])))
    ho = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    wo = (wd + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, out_c, ho, wo), np.int64)
    per_out = out_c // groups
    for g in range(groups):
        xs = x[:, g * per_group : (g + 1) * per_group]
        ws = w[g * per_out : (g + 1) * per_out]
        for i in range(kh):
            for j in range(kw):
                r0, c0 = i * dilation[0], j * dilation[1]
                patch = xs[
                    :,
                    :,
                    r0 : r0 + stride[0] * (ho - 1) + 1 : stride[0],
                    c0 : c0 + stride[1] * (wo - 1) + 1 : stride[1],
                ]
                out[:, g * per_out : (g + 1) * per_out] += np.einsum(
                    "nchw,oc->nohw", patch, ws[:, :, i, j]
                )
    return out


def conv2d_static(x: Any, module: Any) -> Any:
    """``quantized::conv2d``: ``module``'s quantized convolution of the quint8 tensor x."""
    from chainrule._quantized import QTensor

    from .linear import requantize

    if not isinstance(x, QTensor) or x._dtype is not torch.quint8 or x._axis is not None:
        raise RuntimeError("quantized::conv2d (chainrule) expects a per-tensor quint8 input")
    if x._ints.ndim != 4:
        raise ValueError("Input shape must be `(N, C, H, W)`!")
    weight, bias = module.weight(), module.bias()
    w = weight._ints.astype(np.int64)
    w = w - (weight._zp if weight._axis is None else weight._zp[:, None, None, None])
    ints = x._ints.astype(np.int64) - x._zp
    acc = _int_conv2d(ints, w, module.stride, module.padding, module.dilation, module.groups)
    acc = np.moveaxis(acc, 1, -1)  # (the output channels last, as the linear layer's)
    out = requantize(acc, x, weight, bias, module.scale, module.zero_point)
    return out._like(np.ascontiguousarray(np.moveaxis(out._ints, -1, 1)))


def _pair(value: Any) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value, value)


class Conv2d(nn.Module):
    """``QuantizedConv2d``: a statically quantized 2-D convolution."""

    _version = 3

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if padding_mode != "zeros":
            raise NotImplementedInChainrule(
                "quantized Conv2d with padding_mode other than 'zeros' is not implemented in "
                "chainrule"
            )
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride = _pair(kernel_size), _pair(stride)
        self.padding, self.dilation = _pair(padding), _pair(dilation)
        self.transposed, self.output_padding = False, (0, 0)
        self.groups, self.padding_mode = groups, padding_mode
        shape = (out_channels, in_channels // groups, *self.kernel_size)
        weight = torch.quantize_per_tensor(torch.zeros(shape), 1.0, 0, torch.qint8)
        self._weight_bias_pair: tuple = (weight, torch.zeros(out_channels) if bias else None)
        self.scale = 1.0
        self.zero_point = 0

    def _get_name(self) -> str:
        return "QuantizedConv2d"

    def extra_repr(self) -> str:
        text = (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}, scale={self.scale}, zero_point={self.zero_point}"
        )
        if self.padding != (0, 0):
            text += f", padding={self.padding}"
        if self.dilation != (1, 1):
            text += f", dilation={self.dilation}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias() is None:
            text += ", bias=False"
        return text

    def set_weight_bias(self, w: Any, b: Any) -> None:
        self._weight_bias_pair = (w, b)

    def weight(self) -> Any:
        return self._weight_bias_pair[0]

    def bias(self) -> Any:
        return self._weight_bias_pair[1]

    def _weight_bias(self) -> tuple:
        return self._weight_bias_pair

    def forward(self, input: Any) -> Any:  # noqa: A002
        return conv2d_static(input, self)

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        super()._save_to_state_dict(destination, prefix, keep_vars)
        w, b = self._weight_bias()
        destination[prefix + "weight"] = w
        destination[prefix + "bias"] = b
        destination[prefix + "scale"] = torch.tensor(self.scale)
        destination[prefix + "zero_point"] = torch.tensor(self.zero_point)

    def _load_from_state_dict(
        self,
        state_dict: dict,
        prefix: str,
        local_metadata: dict,
        strict: bool,
        missing_keys: list,
        unexpected_keys: list,
        error_msgs: list,
    ) -> None:
        names = ("weight", "bias", "scale", "zero_point")
        if all(prefix + n in state_dict for n in names):
            w, b = state_dict.pop(prefix + "weight"), state_dict.pop(prefix + "bias")
            self.set_weight_bias(w, b)
            self.scale = float(state_dict.pop(prefix + "scale"))
            self.zero_point = int(state_dict.pop(prefix + "zero_point"))
        elif strict:
            missing_keys.extend(prefix + n for n in names if prefix + n not in state_dict)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, False, missing_keys, unexpected_keys, error_msgs
        )

    @classmethod
    def from_float(cls, mod: Any, use_precomputed_fake_quant: bool = False) -> Any:
        """The quantized copy of an observed ``nn.Conv2d`` / fused ``ConvReLU2d`` (or their
        QAT versions): the weight quantized with its weight observer, the output scale and
        zero point from its ``activation_post_process``."""
        from chainrule.ao.nn.intrinsic.modules.fused import _FusedModule
        from chainrule.ao.nn.quantized.dynamic.modules.linear import quantize_weight

        conv = mod[0] if isinstance(mod, _FusedModule) else mod
        if not isinstance(conv, nn.Conv2d):
            raise AssertionError(
                f"nnq.{cls.__name__}.from_float only works for Conv2d, got {type(mod).__name__}"
            )
        if not hasattr(mod, "activation_post_process"):
            raise AssertionError("Input float module must have observer attached")
        if hasattr(conv, "weight_fake_quant"):
            observer = conv.weight_fake_quant
        else:
            observer = mod.qconfig.weight()
        if not use_precomputed_fake_quant:
            observer(conv.weight)
        act_scale, act_zp = mod.activation_post_process.calculate_qparams()
        made = cls(
            conv.in_channels, conv.out_channels, conv.kernel_size, conv.stride, conv.padding,
            conv.dilation, conv.groups, conv.bias is not None, conv.padding_mode,
        )  # fmt: skip
        made.set_weight_bias(quantize_weight(conv.weight.float(), observer), conv.bias)
        made.scale = float(act_scale)
        made.zero_point = int(act_zp)
        return made
