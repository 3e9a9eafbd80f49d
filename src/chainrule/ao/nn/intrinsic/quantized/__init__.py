"""``torch.ao.nn.intrinsic.quantized``: statically quantized fused modules (chainrule:
``LinearReLU``, ``ConvReLU2d``)."""

from .modules import ConvReLU2d, LinearReLU

__all__ = ["ConvReLU2d", "LinearReLU"]
