"""``torch.ao.nn.intrinsic.qat.modules``."""

from .conv_fused import ConvReLU2d
from .linear_relu import LinearReLU

__all__ = ["ConvReLU2d", "LinearReLU"]
