"""``torch.ao.nn.quantized``: quantized modules. chainrule has ``Linear`` and ``Conv2d``
(static), ``Quantize``, ``DeQuantize`` and the dynamic ones (``dynamic.Linear``,
``dynamic.LSTM``), ``FloatFunctional``/``QFunctional`` (quantized add, add_relu); ``ReLU6``,
``Dropout``; ``functional`` (linear, max_pool2d, adaptive_avg_pool2d); the other static modules (``Conv1d``/``Conv3d``, ``BatchNorm2d``,
``Hardswish`` ...) are not implemented."""

from . import dynamic, functional
from .modules import (
    Conv2d,
    DeQuantize,
    Dropout,
    FloatFunctional,
    Linear,
    LinearPackedParams,
    QFunctional,
    Quantize,
    ReLU6,
)

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
    "dynamic",
    "functional",
]
