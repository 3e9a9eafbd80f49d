"""``torch.ao.nn.qat.Linear``: a linear layer for quantization-aware training, its weight
fake quantized (``weight_fake_quant``, from its qconfig) on every forward."""

from __future__ import annotations

from typing import Any

from chainrule import nn
from chainrule.nn import functional as F  # noqa: N812

__all__ = ["Linear"]


class Linear(nn.Linear):
    """``nn.Linear`` whose weight goes through ``weight_fake_quant`` in forward."""

    _FLOAT_MODULE = nn.Linear

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        qconfig: Any = None,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(in_features, out_features, bias, device=device, dtype=dtype)
        if not qconfig:
            raise AssertionError("qconfig must be provided for QAT module")
        self.qconfig = qconfig
        self.weight_fake_quant = qconfig.weight()

    def forward(self, input: Any) -> Any:  # noqa: A002
        return F.linear(input, self.weight_fake_quant(self.weight), self.bias)

    @classmethod
    def from_float(cls, mod: Any, use_precomputed_fake_quant: bool = False) -> Linear:
        """The QAT copy of a float ``nn.Linear`` (with a qconfig): the same parameters."""
        if type(mod) is not cls._FLOAT_MODULE:
            raise AssertionError(
                f" qat.{cls.__name__}.from_float only works for {cls._FLOAT_MODULE.__name__}"
            )
        if not hasattr(mod, "qconfig"):
            raise AssertionError("Input float module must have qconfig defined")
        if not mod.qconfig:
            raise AssertionError("Input float module must have a valid qconfig")
        made = cls(
            mod.in_features, mod.out_features, bias=mod.bias is not None, qconfig=mod.qconfig
        )
        made.weight = mod.weight
        made.bias = mod.bias
        return made

    def to_float(self) -> Any:
        """The float ``nn.Linear`` with these parameters."""
        linear = nn.Linear(self.in_features, self.out_features, self.bias is not None)
        linear.weight = nn.Parameter(self.weight.detach())
        if self.bias is not None:
            linear.bias = nn.Parameter(self.bias.detach())
        linear.train(self.training)
        return linear
