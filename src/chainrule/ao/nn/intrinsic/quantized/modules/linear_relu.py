"""``torch.ao.nn.intrinsic.quantized.LinearReLU``: a statically quantized Linear whose
requantized output is clamped below at its zero point (the ReLU), as PyTorch's fused
kernel does."""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrule.ao.nn.quantized.modules.linear import Linear, linear_static

__all__ = ["LinearReLU"]


class LinearReLU(Linear):
    """``QuantizedLinearReLU``: quantized linear, then ReLU."""

    def _get_name(self) -> str:
        return "QuantizedLinearReLU"

    def forward(self, x: Any) -> Any:
        weight, bias = self._packed_params._weight_bias()
        out = linear_static(x, weight, bias, self.scale, self.zero_point)
        return out._like(np.maximum(out._ints, np.uint8(self.zero_point)))

    @classmethod
    def from_float(cls, mod: Any, use_precomputed_fake_quant: bool = False) -> LinearReLU:
        """The quantized copy of an observed fused ``LinearReLU`` (or its QAT version)."""
        from chainrule.ao.nn.intrinsic.modules.fused import LinearReLU as FusedLinearReLU
        from chainrule.ao.nn.intrinsic.qat import LinearReLU as QATLinearReLU
        from chainrule.ao.nn.quantized.dynamic.modules.linear import quantize_weight

        if isinstance(mod, QATLinearReLU):
            linear, weight_observer = mod, mod.weight_fake_quant
        elif type(mod) is FusedLinearReLU:
            linear, weight_observer = mod[0], mod.qconfig.weight()
        else:
            raise AssertionError("nniq.LinearReLU.from_float only works for LinearReLU")
        if not hasattr(mod, "activation_post_process"):
            raise AssertionError("Input float module must have observer attached")
        if not use_precomputed_fake_quant:
            weight_observer(linear.weight)
        act_scale, act_zp = mod.activation_post_process.calculate_qparams()
        qweight = quantize_weight(linear.weight.float(), weight_observer)
        made = cls(linear.in_features, linear.out_features, dtype=weight_observer.dtype)
        made.set_weight_bias(qweight, linear.bias)
        made.scale = float(act_scale)
        made.zero_point = int(act_zp)
        return made
