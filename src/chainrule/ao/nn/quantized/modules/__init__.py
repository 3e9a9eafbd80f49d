"""``torch.ao.nn.quantized.modules``: what chainrule has of the quantized modules."""

from .activation import Dropout, ReLU6
from .conv import Conv2d
from .functional_modules import FloatFunctional, QFunctional
from .linear import Linear, LinearPackedParams
from .quantize_dequantize import DeQuantize, Quantize

__all__ = [
    "Conv2d",
    "DeQuantize",
    "Dropout",
    "FloatFunctional",
    "Linear",
    "LinearPackedParams",
    "QFunctional",
    "Quantize",
    "ReLU6",
]
