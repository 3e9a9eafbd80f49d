"""``torch.ao.nn.intrinsic.modules``."""

from .fused import BNReLU2d, BNReLU3d, ConvReLU1d, ConvReLU2d, ConvReLU3d, LinearReLU, _FusedModule  # noqa: F401

__all__ = ["BNReLU2d", "BNReLU3d", "ConvReLU1d", "ConvReLU2d", "ConvReLU3d", "LinearReLU"]
