"""Convolution layers: ``Conv1d/2d/3d``, ``ConvTranspose1d/2d/3d`` and their lazy forms.

Each holds a weight of shape ``(out, in / groups, *kernel)`` (transposed:
``(in, out / groups, *kernel)``) and an optional bias, and calls ``F.conv{n}d`` /
``F.conv_transpose{n}d``; the convolution op carries the gradients. A ``padding_mode``
other than zeros pads with ``F.pad`` first (the padding tuple reversed and doubled, the
order ``F.pad`` reads). ``padding='same'`` splits each dim's total padding
``dilation * (kernel - 1)`` with the extra element on the right, as PyTorch does.
"""

from __future__ import annotations

import inspect
import math
from typing import Any

from ..._creation import empty
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module
from .utils import _pair, _reverse_repeat_tuple, _single, _triple

__all__ = [
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "ConvTranspose3d",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConv3d",
    "LazyConvTranspose1d",
    "LazyConvTranspose2d",
    "LazyConvTranspose3d",
]

_PADDING_STRINGS = {"same", "valid"}
_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}
_NTUPLE = {1: _single, 2: _pair, 3: _triple}


class _ConvNd(Module):
    """What the convolutions share: the checks of the constructor (PyTorch's errors), the
    parameters, their initialisation (Kaiming-uniform with a = sqrt(5), the bias uniform in
    ±1/sqrt(fan_in)) and the repr."""

    __constants__ = [
        "stride",
        "padding",
        "dilation",
        "groups",
        "padding_mode",
        "output_padding",
        "in_channels",
        "out_channels",
        "kernel_size",
    ]

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: tuple,
        stride: tuple,
        padding: str | tuple,
        dilation: tuple,
        transposed: bool,
        output_padding: tuple,
        groups: int,
        bias: bool,
        padding_mode: str,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in _PADDING_STRINGS:
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of {_PADDING_STRINGS}"
                )
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                f"padding_mode must be one of {_PADDING_MODES}, "
                f"but got padding_mode='{padding_mode}'"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        self._reversed_padding_repeated_twice = _explicit_padding(padding, kernel_size, dilation)
        if transposed:
            shape = (in_channels, out_channels // groups, *kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *kernel_size)
        self.weight = Parameter(empty(shape, **factory_kwargs))
        if bias:
            self.bias = Parameter(empty(out_channels, **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw the weight (Kaiming-uniform, a = sqrt(5)) and the bias (±1/sqrt(fan_in))."""
        with no_grad():
            init.kaiming_uniform_(self.weight, a=math.sqrt(5))
            if self.bias is not None:
                fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
                bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"


def _explicit_padding(padding: str | tuple, kernel_size: tuple, dilation: tuple) -> list:
    """The padding as ``F.pad`` reads it (last dim first, left then right): 'valid' is none,
    'same' is ``dilation * (kernel - 1)`` per dim, the odd element on the right."""
    if not isinstance(padding, str):
        return list(_reverse_repeat_tuple(padding, 2))
    pads = [0, 0] * len(kernel_size)
    if padding == "same":
        n = len(kernel_size)
        for i, (d, k) in enumerate(zip(dilation, kernel_size, strict=True)):
            total = d * (k - 1)
            pads[2 * (n - 1 - i)] = total // 2
            pads[2 * (n - 1 - i) + 1] = total - total // 2
    return pads


class _ConvForward(_ConvNd):
    """A convolution of ``_dims`` spatial dims (set by Conv1d/2d/3d)."""

    _init_per_subclass = True  # (each layer's __init__ is named after it: Module)

    _dims = 2

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        ntuple = _NTUPLE[self._dims]
        super().__init__(
            in_channels,
            out_channels,
            ntuple(kernel_size),
            ntuple(stride),
            padding if isinstance(padding, str) else ntuple(padding),
            ntuple(dilation),
            False,
            ntuple(0),
            groups,
            bias,
            padding_mode,
            device=device,
            dtype=dtype,
        )

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        conv = getattr(F, f"conv{self._dims}d")
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(
                padded, weight, bias, self.stride, (0,) * self._dims, self.dilation, self.groups
            )
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_ConvForward):
    """1-d convolution over ``(N, C_in, L)`` or ``(C_in, L)`` inputs."""

    _dims = 1


class Conv2d(_ConvForward):
    """2-d convolution over ``(N, C_in, H, W)`` or ``(C_in, H, W)`` inputs."""

    _dims = 2


class Conv3d(_ConvForward):
    """3-d convolution over ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)`` inputs."""

    _dims = 3


class _ConvTransposeNd(_ConvNd):
    """A transposed convolution (the gradient of a convolution with respect to its input)
    of ``_dims`` spatial dims; ``forward(input, output_size)`` picks the output padding
    that gives ``output_size``."""

    _init_per_subclass = True  # (each layer's __init__ is named after it: Module)

    _dims = 2

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: Any = 1,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        if padding_mode != "zeros":
            raise ValueError(
                f'Only "zeros" padding mode is supported for {self.__class__.__name__}'
            )
        ntuple = _NTUPLE[self._dims]
        super().__init__(
            in_channels,
            out_channels,
            ntuple(kernel_size),
            ntuple(stride),
            ntuple(padding),
            ntuple(dilation),
            True,
            ntuple(output_padding),
            groups,
            bias,
            padding_mode,
            device=device,
            dtype=dtype,
        )

    def _output_padding(
        self,
        input: Tensor,
        output_size: Any,
        stride: tuple,
        padding: tuple,
        kernel_size: tuple,
        num_spatial_dims: int,
        dilation: tuple | None = None,
    ) -> list[int]:
        """The output padding: the module's own, or what makes the output ``output_size``
        (which must lie between the smallest output and that plus stride - 1)."""
        if output_size is None:
            return list(_single(self.output_padding))
        batched = input.dim() == num_spatial_dims + 2
        non_spatial = 2 if batched else 1
        output_size = list(output_size)
        if len(output_size) == non_spatial + num_spatial_dims:
            output_size = output_size[non_spatial:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(
                f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size "
                f"must have {num_spatial_dims} or {non_spatial + num_spatial_dims} elements "
                f"(got {len(output_size)})"
            )
        min_sizes = [
            (input.size(d + non_spatial) - 1) * stride[d]
            - 2 * padding[d]
            + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1)
            + 1
            for d in range(num_spatial_dims)
        ]
        max_sizes = [m + s - 1 for m, s in zip(min_sizes, stride, strict=True)]
        for size, lo, hi in zip(output_size, min_sizes, max_sizes, strict=True):
            if size < lo or size > hi:
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes range "
                    f"from {min_sizes} to {max_sizes} (for an input of {input.size()[2:]})"
                )
        return [s - m for s, m in zip(output_size, min_sizes, strict=True)]

    def forward(self, input: Tensor, output_size: list[int] | None = None) -> Tensor:
        if self.padding_mode != "zeros":
            raise ValueError(
                f"Only `zeros` padding mode is supported for ConvTranspose{self._dims}d"
            )
        output_padding = self._output_padding(
            input,
            output_size,
            self.stride,
            self.padding,
            self.kernel_size,
            self._dims,
            self.dilation,
        )
        conv_t = getattr(F, f"conv_transpose{self._dims}d")
        return conv_t(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            output_padding,
            self.groups,
            self.dilation,
        )


class ConvTranspose1d(_ConvTransposeNd):
    """1-d transposed convolution over ``(N, C_in, L)`` or ``(C_in, L)`` inputs."""

    _dims = 1


class ConvTranspose2d(_ConvTransposeNd):
    """2-d transposed convolution over ``(N, C_in, H, W)`` or ``(C_in, H, W)`` inputs."""

    _dims = 2


class ConvTranspose3d(_ConvTransposeNd):
    """3-d transposed convolution over ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)``
    inputs."""

    _dims = 3


# ----- the lazy convolutions: in_channels from the first input ---------------------------


class _LazyConvXdMixin(LazyModuleMixin):
    """A convolution whose ``in_channels`` is read from the first input (dim 1, or dim 0
    unbatched)."""

    def __init__(self, out_channels: int, *args: Any, **kwargs: Any) -> None:
        """The arguments of the convolution it becomes, less ``in_channels``."""
        bound = inspect.signature(self.cls_to_become.__init__).bind(self, 0, 0, *args, **kwargs)
        bound.apply_defaults()
        bias = bound.arguments["bias"]
        bound.arguments["bias"] = False
        super().__init__(*bound.args[1:], **bound.kwargs)
        factory_kwargs = {"device": bound.arguments["device"], "dtype": bound.arguments["dtype"]}
        self.weight = UninitializedParameter(**factory_kwargs)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(**factory_kwargs)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:
        """Materialise the weight (and bias) from the input's channels, then draw them."""
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            with no_grad():
                if self.transposed:
                    shape = (self.in_channels, self.out_channels // self.groups)
                else:
                    shape = (self.out_channels, self.in_channels // self.groups)
                self.weight.materialize((*shape, *self.kernel_size))
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()

    def _get_in_channels(self, input: Tensor) -> int:
        unbatched = self._dims + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(
                f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) input "
                f"to {self.__class__.__name__}, but got input of size: {input.shape}"
            )
        return input.shape[1] if input.dim() == unbatched + 1 else input.shape[0]


class LazyConv1d(_LazyConvXdMixin, Conv1d):
    """A ``Conv1d`` whose ``in_channels`` comes from the first input."""

    cls_to_become = Conv1d


class LazyConv2d(_LazyConvXdMixin, Conv2d):
    """A ``Conv2d`` whose ``in_channels`` comes from the first input."""

    cls_to_become = Conv2d


class LazyConv3d(_LazyConvXdMixin, Conv3d):
    """A ``Conv3d`` whose ``in_channels`` comes from the first input."""

    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvXdMixin, ConvTranspose1d):
    """A ``ConvTranspose1d`` whose ``in_channels`` comes from the first input."""

    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvXdMixin, ConvTranspose2d):
    """A ``ConvTranspose2d`` whose ``in_channels`` comes from the first input."""

    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvXdMixin, ConvTranspose3d):
    """A ``ConvTranspose3d`` whose ``in_channels`` comes from the first input."""

    cls_to_become = ConvTranspose3d
