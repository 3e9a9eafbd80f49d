"""``torch.ao.nn.qat.Conv2d``: a 2-D convolution for quantization-aware training, its
weight fake quantized (``weight_fake_quant``, from its qconfig) on every forward."""

from __future__ import annotations

from typing import Any

from chainrule import nn

__all__ = ["Conv2d"]


class Conv2d(nn.Conv2d):
    """``nn.Conv2d`` whose weight goes through ``weight_fake_quant`` in forward."""

    _FLOAT_MODULE: Any = nn.Conv2d

    def __init__(self, *args: Any, qconfig: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not qconfig:
            raise AssertionError("qconfig must be provided for QAT module")
        self.qconfig = qconfig
        self.weight_fake_quant = qconfig.weight()

    def forward(self, input: Any) -> Any:  # noqa: A002
        return self._conv_forward(input, self.weight_fake_quant(self.weight), self.bias)

    @classmethod
    def _from_conv(cls, conv: Any, qconfig: Any) -> Any:
        made = cls(
            conv.in_channels,
            conv.out_channels,
            conv.kernel_size,
            stride=conv.stride,
            padding=conv.padding,
            dilation=conv.dilation,
            groups=conv.groups,
            bias=conv.bias is not None,
            padding_mode=conv.padding_mode,
            qconfig=qconfig,
        )
        made.weight = conv.weight
        made.bias = conv.bias
        return made

    @classmethod
    def from_float(cls, mod: Any, use_precomputed_fake_quant: bool = False) -> Any:
        """The QAT copy of a float ``nn.Conv2d`` (with a qconfig): the same parameters."""
        if type(mod) is not cls._FLOAT_MODULE:
            raise AssertionError(
                f"qat.{cls.__name__}.from_float only works for {cls._FLOAT_MODULE.__name__}"
            )
        if not getattr(mod, "qconfig", None):
            raise AssertionError("Input float module must have a valid qconfig")
        return cls._from_conv(mod, mod.qconfig)
