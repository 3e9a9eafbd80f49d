"""``torch.ao.nn.quantized.dynamic.Linear``: a linear layer of qint8 weights whose input is
quantized on the fly, batch by batch.

The forward is PyTorch's x86/fbgemm recipe (outputs equal PyTorch's bit for bit, tests/ao):
the input's scale and zero point are chosen from its range for quint8 with the range
reduced to 0..127 (``reduce_range``), the input is quantized, the products are summed
exactly in integers, and each sum ``acc`` becomes ``acc * (input_scale * weight_scale) +
bias`` with one rounding to float32 (a fused multiply-add). Only qint8 weights, per tensor
or per channel, are supported (PyTorch also has float16 ones).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import chainrule as torch
from chainrule import _dtypes, nn
from chainrule._quantized import QTensor, choose_qparams, quantize_array
from chainrule._tensor import _make

from ...modules.linear import Linear as _QuantizedLinear

__all__ = ["Linear"]


def linear_dynamic(x: Any, weight: QTensor, bias: Any, reduce_range: bool = True) -> Any:
    """``quantized::linear_dynamic``: ``x @ weight.T + bias`` with x quantized to quint8."""
    from chainrule.backends.quantized import check_engine

    check_engine("quantized::linear_dynamic")
    if x._dtype is not _dtypes.float32:
        raise RuntimeError(
            f"expected scalar type Float but found {x._dtype.scalar_name} (quantized "
            "dynamic linear takes float32 inputs)"
        )
    arr = x.detach().numpy()
    lo, hi = (float(arr.min()), float(arr.max())) if arr.size else (0.0, 0.0)
    scale, zero_point = choose_qparams(lo, hi, 0, 255, reduce_range)
    xq = quantize_array(arr, scale, zero_point, _dtypes.quint8).astype(np.int64) - zero_point
    w = weight._ints.astype(np.int64)
    if weight._axis is None:
        w = w - weight._zp
        w_scale = np.float32(weight._scale)
    else:
        if weight._axis != 0:
            raise NotImplementedError("quantized linear weights are per channel along axis 0")
        w = w - weight._zp[:, None]
        w_scale = weight._scale.astype(np.float32)
    acc = xq.reshape(-1, arr.shape[-1]) @ w.T  # (exact: int64)
    factor = (np.float32(scale) * w_scale).astype(np.float64)
    out = acc.astype(np.float32).astype(np.float64) * factor
    if bias is not None:
        out = out + bias.detach().numpy().astype(np.float64)
    out = out.astype(np.float32).reshape(*arr.shape[:-1], w.shape[0])
    return _make(out, _dtypes.float32)


class Linear(_QuantizedLinear):
    """A dynamically quantized linear layer (``DynamicQuantizedLinear``), a quantized
    ``Linear`` (as in PyTorch) whose input and output are float."""

    _version = 4

    def __init__(
        self, in_features: int, out_features: int, bias_: bool = True, dtype: Any = None
    ) -> None:
        super().__init__(in_features, out_features, bias_, torch.qint8 if dtype is None else dtype)

    def _get_name(self) -> str:
        return "DynamicQuantizedLinear"

    def extra_repr(self) -> str:
        text = (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"dtype={self._packed_params.dtype}"
        )
        if self._packed_params.dtype is torch.qint8:
            text += f", qscheme={self.weight().qscheme()}"
        return text

    def forward(self, x: Any) -> Any:
        weight, bias = self._packed_params._weight_bias()
        return linear_dynamic(x, weight, bias, reduce_range=True).to(x.dtype)

    @classmethod
    def from_float(cls, mod: Any, use_precomputed_fake_quant: bool = False) -> Linear:
        """The dynamically quantized copy of a float ``nn.Linear``: its weight quantized
        with the weight observer of its ``qconfig`` (the default dynamic qconfig's, a
        symmetric per-tensor qint8 MinMaxObserver, without one); the bias kept as it is."""
        from chainrule.ao.quantization.qconfig import default_dynamic_qconfig

        if type(mod) not in (nn.Linear,) and not isinstance(mod, nn.Linear):
            raise AssertionError(
                "nn.quantized.dynamic.Linear.from_float only works for nn.Linear, got "
                f"{type(mod).__name__}"
            )
        qconfig = getattr(mod, "qconfig", None) or default_dynamic_qconfig
        observer = qconfig.weight()
        if observer.dtype is not torch.qint8:
            raise NotImplementedError(
                f"chainrule's dynamic quantized Linear supports qint8 weights (got {observer.dtype})"
            )
        observer(mod.weight)
        qweight = quantize_weight(mod.weight.float(), observer)
        made = cls(mod.in_features, mod.out_features, dtype=observer.dtype)
        made.set_weight_bias(qweight, mod.bias)
        return made


def quantize_weight(weight: Any, observer: Any) -> QTensor:
    """A float weight quantized with the scale and zero point its observer chose."""
    scale, zero_point = observer.calculate_qparams()
    if observer.qscheme in (torch.per_tensor_symmetric, torch.per_tensor_affine):
        return torch.quantize_per_tensor(weight, float(scale), int(zero_point), observer.dtype)
    if observer.qscheme in (torch.per_channel_symmetric, torch.per_channel_affine):
        return torch.quantize_per_channel(
            weight,
            scale.to(torch.double),
            zero_point.to(torch.int64),
            observer.ch_axis,
            observer.dtype,
        )
    raise ValueError(f"Unrecognized qscheme: {observer.qscheme}")
