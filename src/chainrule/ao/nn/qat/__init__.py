"""``torch.ao.nn.qat``: modules for quantization-aware training (chainrule: ``Linear``,
``Conv2d``)."""

from .modules import Conv2d, Linear

__all__ = ["Conv2d", "Linear"]
