"""``torch.ao.nn.intrinsic.qat``: fused modules for quantization-aware training
(chainrule: ``LinearReLU``, ``ConvReLU2d``)."""

from .modules import ConvReLU2d, LinearReLU

__all__ = ["ConvReLU2d", "LinearReLU"]
