"""Pooling layers: max, average, power-average (LP), adaptive max and average pooling over
1-3 spatial dims, and max unpooling. No parameters: each holds its window arguments and
calls its ``F.*`` function (the pooling ops carry the gradients). The reprs are PyTorch's:
the max and LP pools keep their arguments as given, the 1-d average pool and the unpools
as tuples."""

from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from .. import functional as F
from .module import Module
from .utils import _pair, _single, _triple

__all__ = [
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d",
    "AvgPool1d",
    "AvgPool2d",
    "AvgPool3d",
    "FractionalMaxPool2d",
    "FractionalMaxPool3d",
    "LPPool1d",
    "LPPool2d",
    "LPPool3d",
    "MaxPool1d",
    "MaxPool2d",
    "MaxPool3d",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "MaxUnpool3d",
]


class _MaxPoolNd(Module):
    """The maximum over each window (``stride`` defaults to ``kernel_size``); with
    ``return_indices`` also the flat index of each maximum in its plane."""

    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode"]
    _dims = 2

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        dilation: Any = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Any:
        pool = getattr(F, f"max_pool{self._dims}d")
        return pool(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class MaxPool1d(_MaxPoolNd):
    """Max pooling over ``(N, C, L)`` or ``(C, L)``."""

    _dims = 1


class MaxPool2d(_MaxPoolNd):
    """Max pooling over ``(N, C, H, W)`` or ``(C, H, W)``."""

    _dims = 2


class MaxPool3d(_MaxPoolNd):
    """Max pooling over ``(N, C, D, H, W)`` or ``(C, D, H, W)``."""

    _dims = 3


class _MaxUnpoolNd(Module):
    """The inverse of max pooling: each value written at its index, zeros elsewhere."""

    _init_per_subclass = True  # (each layer's __init__ is named after it: Module)

    _dims = 2

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__()
        ntuple = {1: _single, 2: _pair, 3: _triple}[self._dims]
        self.kernel_size = ntuple(kernel_size)
        self.stride = ntuple(stride if stride is not None else kernel_size)
        self.padding = ntuple(padding)

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        unpool = getattr(F, f"max_unpool{self._dims}d")
        return unpool(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """Max unpooling over ``(N, C, L)`` or ``(C, L)``."""

    _dims = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """Max unpooling over ``(N, C, H, W)`` or ``(C, H, W)``."""

    _dims = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """Max unpooling over ``(N, C, D, H, W)`` or ``(C, D, H, W)``."""

    _dims = 3


class _AvgPoolNd(Module):
    """The mean over each window (``count_include_pad``: padding counts in the divisor)."""

    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """Average pooling over ``(N, C, L)`` or ``(C, L)``."""

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
    ) -> None:
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
        )


class _AvgPoolDivisor(_AvgPoolNd):
    """2-d and 3-d average pooling, which also take a ``divisor_override``."""

    _init_per_subclass = True  # (each layer's __init__ is named after it: Module)

    __constants__ = [*_AvgPoolNd.__constants__, "divisor_override"]
    _dims = 2

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        pool = getattr(F, f"avg_pool{self._dims}d")
        return pool(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )


class AvgPool2d(_AvgPoolDivisor):
    """Average pooling over ``(N, C, H, W)`` or ``(C, H, W)``."""

    _dims = 2


class AvgPool3d(_AvgPoolDivisor):
    """Average pooling over ``(N, C, D, H, W)`` or ``(C, D, H, W)``."""

    _dims = 3


class _LPPoolNd(Module):
    """Power-average pooling: ``(sum over the window of x^p)^(1/p)``."""

    __constants__ = ["norm_type", "kernel_size", "stride", "ceil_mode"]
    _dims = 2

    def __init__(
        self, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False
    ) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        pool = getattr(F, f"lp_pool{self._dims}d")
        return pool(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self) -> str:
        return (
            f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}, ceil_mode={self.ceil_mode}"
        )


class LPPool1d(_LPPoolNd):
    """Power-average pooling over ``(N, C, L)`` or ``(C, L)``."""

    _dims = 1


class LPPool2d(_LPPoolNd):
    """Power-average pooling over ``(N, C, H, W)`` or ``(C, H, W)``."""

    _dims = 2


class LPPool3d(_LPPoolNd):
    """Power-average pooling over ``(N, C, D, H, W)`` or ``(C, D, H, W)``."""

    _dims = 3


class _AdaptiveMaxPoolNd(Module):
    """Max pooling to a fixed ``output_size`` (None keeps that dim's input size)."""

    __constants__ = ["output_size", "return_indices"]
    _dims = 2

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input: Tensor) -> Any:
        pool = getattr(F, f"adaptive_max_pool{self._dims}d")
        return pool(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Adaptive max pooling over ``(N, C, L)`` or ``(C, L)``."""

    _dims = 1


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Adaptive max pooling over ``(N, C, H, W)`` or ``(C, H, W)``."""

    _dims = 2


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Adaptive max pooling over ``(N, C, D, H, W)`` or ``(C, D, H, W)``."""

    _dims = 3


class _AdaptiveAvgPoolNd(Module):
    """Average pooling to a fixed ``output_size`` (None keeps that dim's input size)."""

    __constants__ = ["output_size"]
    _dims = 2

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return getattr(F, f"adaptive_avg_pool{self._dims}d")(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Adaptive average pooling over ``(N, C, L)`` or ``(C, L)``."""

    _dims = 1


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Adaptive average pooling over ``(N, C, H, W)`` or ``(C, H, W)``."""

    _dims = 2


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Adaptive average pooling over ``(N, C, D, H, W)`` or ``(C, D, H, W)``."""

    _dims = 3


class _FractionalMaxPoolNd(Module):
    """Fractional max pooling (Graham): windows of ``kernel_size`` placed pseudo-randomly,
    per plane, so that the output has ``output_size`` or ``output_ratio`` of the input's
    spatial size. ``_random_samples`` (a buffer) fixes the placement."""

    _init_per_subclass = True  # (each layer's __init__ is named after it: Module)

    __constants__ = ["kernel_size", "return_indices", "output_size", "output_ratio"]
    _dims = 2

    def __init__(
        self,
        kernel_size: Any,
        output_size: Any = None,
        output_ratio: Any = None,
        return_indices: bool = False,
        _random_samples: Any = None,
    ) -> None:
        super().__init__()
        ntuple = _pair if self._dims == 2 else _triple
        name = type(self).__name__
        self.kernel_size = ntuple(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = ntuple(output_size) if output_size is not None else None
        self.output_ratio = ntuple(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(
                f"{name} requires specifying either an output size, or a pooling ratio"
            )
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor) -> Any:
        pool = getattr(F, f"fractional_max_pool{self._dims}d")
        return pool(
            input,
            self.kernel_size,
            self.output_size,
            self.output_ratio,
            self.return_indices,
            _random_samples=self._random_samples,
        )


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Fractional max pooling over ``(N, C, H, W)`` or ``(C, H, W)``."""

    _dims = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Fractional max pooling over ``(N, C, T, H, W)`` or ``(C, T, H, W)``."""

    _dims = 3
