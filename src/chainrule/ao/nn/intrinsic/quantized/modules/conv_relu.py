"""``torch.ao.nn.intrinsic.quantized.ConvReLU2d``: a statically quantized Conv2d whose
requantized output is clamped below at its zero point (the ReLU)."""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrule.ao.nn.quantized.modules.conv import Conv2d, conv2d_static

__all__ = ["ConvReLU2d"]


class ConvReLU2d(Conv2d):
    """``QuantizedConvReLU2d``: quantized 2-D convolution, then ReLU."""

    def _get_name(self) -> str:
        return "QuantizedConvReLU2d"

    def forward(self, input: Any) -> Any:  # noqa: A002
        out = conv2d_static(input, self)
        return out._like(np.maximum(out._ints, np.uint8(self.zero_point)))
