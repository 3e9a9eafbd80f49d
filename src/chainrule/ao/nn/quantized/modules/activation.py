"""``torch.ao.nn.quantized.ReLU6`` and ``Dropout``: what ``convert`` makes of ``nn.ReLU6``
and ``nn.Dropout``."""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrule import nn

__all__ = ["Dropout", "ReLU6"]


class ReLU6(nn.ReLU):
    """``QuantizedReLU6``: the integers clamped to [zero point, the quantized 6]."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(inplace)

    def _get_name(self) -> str:
        return "QuantizedReLU6"

    def forward(self, input: Any) -> Any:  # noqa: A002
        from chainrule._quantized import RANGES, quantize_array

        six = quantize_array(np.array([6.0], np.float32), input._scale, input._zp, input._dtype)
        _, lo, _ = RANGES[input._dtype]
        out = np.clip(input._ints, max(input._zp, lo), six[0])
        if self.inplace:
            input._ints[...] = out
            return input
        return input._like(out)

    @staticmethod
    def from_float(mod: Any, use_precomputed_fake_quant: bool = False) -> ReLU6:
        return ReLU6(mod.inplace)


class Dropout(nn.Dropout):
    """``QuantizedDropout``: the identity on quantized tensors (eval mode)."""

    def _get_name(self) -> str:
        return "QuantizedDropout"

    def forward(self, input: Any) -> Any:  # noqa: A002
        return input

    @classmethod
    def from_float(cls, mod: Any, use_precomputed_fake_quant: bool = False) -> Dropout:
        return cls(mod.p, mod.inplace)
