"""``torch.ao.nn.quantized.dynamic``: dynamically quantized modules (chainrule: ``Linear``
and ``LSTM``)."""

from .modules import LSTM, Linear

__all__ = ["LSTM", "Linear"]
