"""``torch.ao.nn.intrinsic.quantized.modules``."""

from .conv_relu import ConvReLU2d
from .linear_relu import LinearReLU

__all__ = ["ConvReLU2d", "LinearReLU"]
