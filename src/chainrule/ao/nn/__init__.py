"""``torch.ao.nn``: chainrule has ``quantized``, ``qat`` and ``intrinsic`` (in part)."""

from . import intrinsic, qat, quantized

__all__ = ["intrinsic", "qat", "quantized"]
