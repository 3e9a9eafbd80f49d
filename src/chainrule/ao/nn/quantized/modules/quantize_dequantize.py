"""``torch.ao.nn.quantized.Quantize`` and ``DeQuantize``: what ``convert`` makes of the
stubs (float to quantized with a fixed scale and zero point, and back)."""

from __future__ import annotations

from typing import Any

import chainrule as torch
from chainrule import nn

__all__ = ["DeQuantize", "Quantize"]


class Quantize(nn.Module):
    """Quantizes its input per tensor (``scale`` and ``zero_point`` buffers, ``dtype``)."""

    def __init__(
        self, scale: float, zero_point: int, dtype: Any, factory_kwargs: Any = None
    ) -> None:
        super().__init__()
        self.register_buffer("scale", torch.tensor([scale]))
        self.register_buffer("zero_point", torch.tensor([zero_point], dtype=torch.long))
        self.dtype = dtype

    def forward(self, X: Any) -> Any:  # noqa: N803
        return torch.quantize_per_tensor(X, float(self.scale), int(self.zero_point), self.dtype)

    @staticmethod
    def from_float(mod: Any, use_precomputed_fake_quant: bool = False) -> Quantize:
        """The Quantize of an observed QuantStub: its observer's scale and zero point."""
        if not hasattr(mod, "activation_post_process"):
            raise AssertionError("Input float module must have observer attached")
        scale, zero_point = mod.activation_post_process.calculate_qparams()
        return Quantize(
            scale.float().item(), zero_point.long().item(), mod.activation_post_process.dtype
        )

    def extra_repr(self) -> str:
        return f"scale={self.scale}, zero_point={self.zero_point}, dtype={self.dtype}"


class DeQuantize(nn.Module):
    """Dequantizes its input."""

    def forward(self, Xq: Any) -> Any:  # noqa: N803
        return Xq.dequantize()

    @staticmethod
    def from_float(mod: Any, use_precomputed_fake_quant: bool = False) -> DeQuantize:
        return DeQuantize()
