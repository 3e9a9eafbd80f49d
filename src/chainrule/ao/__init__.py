"""``torch.ao``: quantization (``torch.ao.quantization``) and quantized modules
(``torch.ao.nn.quantized``), as far as chainrule has them: quantized tensors, observers,
fake quantization and dynamic quantization of ``nn.Linear``."""

from . import nn, quantization

__all__ = ["nn", "quantization"]
