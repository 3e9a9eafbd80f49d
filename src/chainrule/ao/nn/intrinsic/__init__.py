"""``torch.ao.nn.intrinsic``: fused modules (``LinearReLU``, ``ConvReLU2d`` ...), and their
QAT and quantized versions where chainrule has them (``LinearReLU``)."""

from . import qat, quantized
from .modules import (
    BNReLU2d,
    BNReLU3d,
    ConvReLU1d,
    ConvReLU2d,
    ConvReLU3d,
    LinearReLU,
    _FusedModule,  # noqa: F401
)

__all__ = [
    "BNReLU2d",
    "BNReLU3d",
    "ConvReLU1d",
    "ConvReLU2d",
    "ConvReLU3d",
    "LinearReLU",
    "qat",
    "quantized",
]
