"""``torch.nn.quantized``: PyTorch's older name of ``torch.ao.nn.quantized`` (the same
classes)."""

from ...ao.nn.quantized import (
    Conv2d,
    DeQuantize,
    FloatFunctional,
    Linear,
    LinearPackedParams,
    QFunctional,
    Quantize,
    dynamic,
)

__all__ = [
    "Conv2d",
    "DeQuantize",
    "FloatFunctional",
    "Linear",
    "LinearPackedParams",
    "QFunctional",
    "Quantize",
    "dynamic",
]
