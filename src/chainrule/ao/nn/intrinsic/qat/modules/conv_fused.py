"""``torch.ao.nn.intrinsic.qat.ConvReLU2d``: a fused Conv2d + ReLU for quantization-aware
training (the weight fake quantized, then the ReLU)."""

from __future__ import annotations

from typing import Any

from chainrule.ao.nn.qat.modules.conv import Conv2d as QATConv2d
from chainrule.nn import functional as F  # noqa: N812

from ...modules.fused import ConvReLU2d as FusedConvReLU2d

__all__ = ["ConvReLU2d"]


class ConvReLU2d(QATConv2d):
    """``nn.qat.Conv2d`` followed by ReLU."""

    _FLOAT_MODULE = FusedConvReLU2d

    def forward(self, input: Any) -> Any:  # noqa: A002
        return F.relu(self._conv_forward(input, self.weight_fake_quant(self.weight), self.bias))

    @classmethod
    def from_float(cls, mod: Any, use_precomputed_fake_quant: bool = False) -> Any:
        """The QAT copy of a fused ``ConvReLU2d`` (its Conv2d's parameters)."""
        if type(mod) is not FusedConvReLU2d:
            raise AssertionError("qat.ConvReLU2d.from_float only works for ConvReLU2d")
        return cls._from_conv(mod[0], mod.qconfig)
