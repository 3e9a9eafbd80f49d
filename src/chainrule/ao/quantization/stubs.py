"""``torch.ao.quantization.stubs``: where a model's quantized region starts and ends. Before
``convert`` both stubs pass their input through (``prepare`` gives ``QuantStub`` an
observer); chainrule has no ``convert`` to the static quantized modules they become."""

from __future__ import annotations

from typing import Any

from chainrule import nn

__all__ = ["DeQuantStub", "QuantStub", "QuantWrapper"]


class QuantStub(nn.Module):
    """Marks where values enter the quantized region (identity until converted)."""

    def __init__(self, qconfig: Any = None) -> None:
        super().__init__()
        if qconfig:
            self.qconfig = qconfig

    def forward(self, x: Any) -> Any:
        return x


class DeQuantStub(nn.Module):
    """Marks where values leave the quantized region (identity until converted)."""

    def __init__(self, qconfig: Any = None) -> None:
        super().__init__()
        if qconfig:
            self.qconfig = qconfig

    def forward(self, x: Any) -> Any:
        return x


class QuantWrapper(nn.Module):
    """``module`` between a QuantStub and a DeQuantStub (with its qconfig)."""

    def __init__(self, module: Any) -> None:
        super().__init__()
        qconfig = getattr(module, "qconfig", None)
        self.add_module("quant", QuantStub(qconfig))
        self.add_module("dequant", DeQuantStub(qconfig))
        self.add_module("module", module)
        self.train(module.training)

    def forward(self, X: Any) -> Any:  # noqa: N803
        return self.dequant(self.module(self.quant(X)))
