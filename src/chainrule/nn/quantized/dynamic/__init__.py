"""``torch.nn.quantized.dynamic``: PyTorch's older name of ``torch.ao.nn.quantized.dynamic``."""

from ....ao.nn.quantized.dynamic import LSTM, Linear

__all__ = ["LSTM", "Linear"]
