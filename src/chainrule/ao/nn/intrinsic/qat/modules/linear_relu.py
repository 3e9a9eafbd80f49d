"""``torch.ao.nn.intrinsic.qat.LinearReLU``: a fused Linear + ReLU for quantization-aware
training (the weight fake quantized, then the ReLU)."""

from __future__ import annotations

from typing import Any

from chainrule.ao.nn.qat.modules.linear import Linear as QATLinear
from chainrule.nn import functional as F  # noqa: N812

from ...modules.fused import LinearReLU as FusedLinearReLU

__all__ = ["LinearReLU"]


class LinearReLU(QATLinear):
    """``nn.qat.Linear`` followed by ReLU."""

    _FLOAT_MODULE = FusedLinearReLU  # type: ignore[assignment]

    def forward(self, input: Any) -> Any:  # noqa: A002
        return F.relu(F.linear(input, self.weight_fake_quant(self.weight), self.bias))

    @classmethod
    def from_float(cls, mod: Any, use_precomputed_fake_quant: bool = False) -> LinearReLU:
        """The QAT copy of a fused ``LinearReLU`` (its Linear's parameters)."""
        if type(mod) is not FusedLinearReLU:
            raise AssertionError("qat.LinearReLU.from_float only works for LinearReLU")
        linear = mod[0]
        made = cls(
            linear.in_features,
            linear.out_features,
            bias=linear.bias is not None,
            qconfig=mod.qconfig,
        )
        made.weight = linear.weight
        made.bias = linear.bias
        return made
