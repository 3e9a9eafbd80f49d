"""The building blocks torchvision's models share: convolution + normalisation +
activation blocks, a frozen batch norm, an MLP, a permutation and squeeze-and-excitation.

Each is a plain chainrule ``nn`` module (the ``...NormActivation`` blocks are
``nn.Sequential`` subclasses, so their children are ``0``, ``1``, ``2`` as in torchvision)."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

from ... import nn
from ..._tensor import Tensor

__all__ = [
    "Conv2dNormActivation",
    "Conv3dNormActivation",
    "ConvNormActivation",
    "FrozenBatchNorm2d",
    "MLP",
    "Permute",
    "SqueezeExcitation",
]


class FrozenBatchNorm2d(nn.Module):
    """Batch norm with fixed statistics and affine parameters (all buffers):
    ``y = (x - running_mean) / sqrt(running_var + eps) * weight + bias``."""

    def __init__(self, num_features: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.register_buffer("weight", _fill(num_features, 1.0))
        self.register_buffer("bias", _fill(num_features, 0.0))
        self.register_buffer("running_mean", _fill(num_features, 0.0))
        self.register_buffer("running_var", _fill(num_features, 1.0))

    def _load_from_state_dict(
        self,
        state_dict: dict,
        prefix: str,
        local_metadata: dict,
        strict: bool,
        missing_keys: list,
        unexpected_keys: list,
        error_msgs: list,
    ) -> None:
        # a BatchNorm2d's counter has no place here: drop it rather than report it
        state_dict.pop(prefix + "num_batches_tracked", None)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )

    def forward(self, x: Tensor) -> Tensor:
        shape = (1, -1, 1, 1)
        scale = self.weight.reshape(shape) * (self.running_var.reshape(shape) + self.eps).rsqrt()
        shift = self.bias.reshape(shape) - self.running_mean.reshape(shape) * scale
        return x * scale + shift

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self.weight.shape[0]}, eps={self.eps})"


def _fill(n: int, value: float) -> Tensor:
    from ... import full

    return full((n,), value)


class ConvNormActivation(nn.Sequential):
    """``conv -> norm -> activation`` (norm and activation optional); the padding
    defaults to ``(kernel_size - 1) // 2 * dilation`` ("same" for odd kernels at stride 1),
    the convolution has a bias only when there is no norm layer."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int | tuple[int, ...] = 3,
        stride: int | tuple[int, ...] = 1,
        padding: int | tuple[int, ...] | str | None = None,
        groups: int = 1,
        norm_layer: Callable[..., nn.Module] | None = nn.BatchNorm2d,
        activation_layer: Callable[..., nn.Module] | None = nn.ReLU,
        dilation: int | tuple[int, ...] = 1,
        inplace: bool | None = True,
        bias: bool | None = None,
        conv_layer: Callable[..., nn.Module] = nn.Conv2d,
    ) -> None:
        if padding is None:
            padding = _default_padding(kernel_size, dilation)
        if bias is None:
            bias = norm_layer is None
        layers: list[nn.Module] = [
            conv_layer(
                in_channels,
                out_channels,
                kernel_size,
                stride,
                padding,
                dilation=dilation,
                groups=groups,
                bias=bias,
            )
        ]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer(**({} if inplace is None else {"inplace": inplace})))
        super().__init__(*layers)
        self.out_channels = out_channels
        if type(self) is ConvNormActivation:
            warnings.warn(
                "Don't use ConvNormActivation directly, please use Conv2dNormActivation and "
                "Conv3dNormActivation instead.",
                stacklevel=2,
            )


def _default_padding(kernel_size: Any, dilation: Any) -> int | tuple[int, ...]:
    if isinstance(kernel_size, int) and isinstance(dilation, int):
        return (kernel_size - 1) // 2 * dilation
    n = len(kernel_size) if isinstance(kernel_size, Sequence) else len(dilation)
    kernel = tuple(kernel_size) if isinstance(kernel_size, Sequence) else (kernel_size,) * n
    dil = tuple(dilation) if isinstance(dilation, Sequence) else (dilation,) * n
    return tuple((k - 1) // 2 * d for k, d in zip(kernel, dil))


class Conv2dNormActivation(ConvNormActivation):
    """``Conv2d -> norm (BatchNorm2d) -> activation (ReLU)``."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int | tuple[int, int] = 3,
        stride: int | tuple[int, int] = 1,
        padding: int | tuple[int, int] | str | None = None,
        groups: int = 1,
        norm_layer: Callable[..., nn.Module] | None = nn.BatchNorm2d,
        activation_layer: Callable[..., nn.Module] | None = nn.ReLU,
        dilation: int | tuple[int, int] = 1,
        inplace: bool | None = True,
        bias: bool | None = None,
    ) -> None:
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            groups,
            norm_layer,
            activation_layer,
            dilation,
            inplace,
            bias,
            nn.Conv2d,
        )


class Conv3dNormActivation(ConvNormActivation):
    """``Conv3d -> norm (BatchNorm3d) -> activation (ReLU)``."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int | tuple[int, int, int] = 3,
        stride: int | tuple[int, int, int] = 1,
        padding: int | tuple[int, int, int] | str | None = None,
        groups: int = 1,
        norm_layer: Callable[..., nn.Module] | None = nn.BatchNorm3d,
        activation_layer: Callable[..., nn.Module] | None = nn.ReLU,
        dilation: int | tuple[int, int, int] = 1,
        inplace: bool | None = True,
        bias: bool | None = None,
    ) -> None:
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            groups,
            norm_layer,
            activation_layer,
            dilation,
            inplace,
            bias,
            nn.Conv3d,
        )


class SqueezeExcitation(nn.Module):
    """Squeeze-and-excitation: ``x * scale_activation(fc2(activation(fc1(avgpool(x)))))``,
    the two 1x1 convolutions going ``input_channels -> squeeze_channels -> input_channels``."""

    def __init__(
        self,
        input_channels: int,
        squeeze_channels: int,
        activation: Callable[..., nn.Module] = nn.ReLU,
        scale_activation: Callable[..., nn.Module] = nn.Sigmoid,
    ) -> None:
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2d(squeeze_channels, input_channels, 1)
        self.activation = activation()
        self.scale_activation = scale_activation()

    def _scale(self, x: Tensor) -> Tensor:
        return self.scale_activation(self.fc2(self.activation(self.fc1(self.avgpool(x)))))

    def forward(self, input: Tensor) -> Tensor:
        return self._scale(input) * input


class MLP(nn.Sequential):
    """``Linear -> [norm] -> activation -> Dropout`` for each hidden width but the last,
    then ``Linear -> Dropout`` to ``hidden_channels[-1]``."""

    def __init__(
        self,
        in_channels: int,
        hidden_channels: list[int],
        norm_layer: Callable[..., nn.Module] | None = None,
        activation_layer: Callable[..., nn.Module] | None = nn.ReLU,
        inplace: bool | None = None,
        bias: bool = True,
        dropout: float = 0.0,
    ) -> None:
        params = {} if inplace is None else {"inplace": inplace}
        layers: list[nn.Module] = []
        width = in_channels
        for hidden in hidden_channels[:-1]:
            layers.append(nn.Linear(width, hidden, bias=bias))
            if norm_layer is not None:
                layers.append(norm_layer(hidden))
            layers.append(activation_layer(**params))
            layers.append(nn.Dropout(dropout, **params))
            width = hidden
        layers.append(nn.Linear(width, hidden_channels[-1], bias=bias))
        layers.append(nn.Dropout(dropout, **params))
        super().__init__(*layers)


class Permute(nn.Module):
    """``x.permute(*dims)`` as a module."""

    def __init__(self, dims: list[int]) -> None:
        super().__init__()
        self.dims = dims

    def forward(self, x: Tensor) -> Tensor:
        return x.permute(*self.dims)
