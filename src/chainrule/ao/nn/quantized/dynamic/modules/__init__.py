"""``torch.ao.nn.quantized.dynamic.modules``."""

from .linear import Linear
from .rnn import LSTM, PackedParameter

__all__ = ["LSTM", "Linear", "PackedParameter"]
