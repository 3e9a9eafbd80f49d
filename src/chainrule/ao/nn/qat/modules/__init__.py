"""``torch.ao.nn.qat.modules``."""

from .conv import Conv2d
from .linear import Linear

__all__ = ["Conv2d", "Linear"]
