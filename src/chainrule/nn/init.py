"""``nn.init``: fill a tensor in place with the values a layer's weights start from.

Each function writes under ``no_grad`` (so a parameter that requires grad can be
filled) through the tensor's in-place samplers, ``copy_``, ``fill_`` and ``zero_``, which
bump the version counter, and returns the tensor. The draws are PyTorch's, in PyTorch's
order, so the same seed gives PyTorch's initial weights (``torch.manual_seed(0)`` then
``nn.Linear(3, 2)`` has PyTorch's weight). ``generator=`` draws from that generator's
own stream.

The fans of a weight of shape ``(out, in, *kernel)`` are ``fan_in = in * prod(kernel)``
and ``fan_out = out * prod(kernel)``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

from .. import _random
from .._backend import like, xp
from .._tensor import Tensor, wrap
from ..autograd.grad_mode import no_grad

__all__ = [
    "calculate_gain",
    "uniform_",
    "normal_",
    "trunc_normal_",
    "constant_",
    "ones_",
    "zeros_",
    "eye_",
    "dirac_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
    "orthogonal_",
    "sparse_",
]


# ----- writing --------------------------------------------------------------------------


def _write(tensor: Tensor, values: Any) -> Tensor:
    """Copy the array ``values`` into ``tensor`` in place (no_grad, version bumped); drawn
    on the host, as chainrule's random numbers are, they go where the tensor is."""
    with no_grad():
        tensor.copy_(wrap(like(tensor._data, values).reshape(tensor.shape)))
    return tensor


# ----- gains and fans --------------------------------------------------------------------


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The gain that keeps activations' variance steady through ``nonlinearity``: 1 for
    linear layers and sigmoid, 5/3 for tanh, sqrt(2) for relu, sqrt(2 / (1 + slope^2)) for
    leaky_relu (slope ``param``, default 0.01), 3/4 for selu."""
    linear_fns = [
        "linear",
        "conv1d",
        "conv2d",
        "conv3d",
        "conv_transpose1d",
        "conv_transpose2d",
        "conv_transpose3d",
    ]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, int) or isinstance(param, float):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """(in * prod(kernel), out * prod(kernel)) for a weight of shape (out, in, *kernel)."""
    if tensor.dim() < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive_field_size = 1
    for s in tensor.shape[2:]:
        receptive_field_size *= s
    return tensor.size(1) * receptive_field_size, tensor.size(0) * receptive_field_size


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


# ----- the initialisers --------------------------------------------------------------


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    """Values from the uniform distribution U(a, b) (complex: each part, as Tensor.uniform_)."""
    if tensor.is_meta:  # no values to draw
        return tensor
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    """Values from the normal distribution N(mean, std^2) (complex: as Tensor.normal_)."""
    if tensor.is_meta:  # no values to draw
        return tensor
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator: Any = None,
) -> Tensor:
    """Values from N(mean, std^2) conditioned on [a, b], by rejection, PyTorch's draws in
    PyTorch's order: when [a, b] holds more than 0.3 of the normal's mass, normal draws,
    every element outside [a, b] redrawn from a whole fresh tensor of them until none is;
    else uniform draws on [a, b], each accepted where log u' <= log(pdf(x) / max pdf) for
    a fresh uniform u', the rejected ones drawn again (whole tensors each round)."""
    if tensor.is_meta:
        return tensor
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
            "The distribution of values may be incorrect.",
            stacklevel=2,
        )

    def cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    from .._creation import empty_like
    from ..api.parsers.pointwise import where

    with no_grad():
        if cdf((b - mean) / std) - cdf((a - mean) / std) > 0.3:
            lo, hi = tensor.new_tensor(a).item(), tensor.new_tensor(b).item()
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                outside = (result < lo) | (result > hi)
                if not outside.any():
                    break
                fresh = empty_like(result).normal_(mean, std, generator=generator)
                result = where(outside, fresh, result)
            return result if result is tensor else tensor.copy_(result)
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2

        def rejected(x: Tensor, u: Tensor) -> Tensor:
            log_pdf = x.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
            return u.uniform_(generator=generator).log_().gt(log_pdf)

        x = tensor.uniform_(a, b, generator=generator).clone()
        u = empty_like(tensor)
        pending = rejected(x, u)
        result = tensor
        while pending.any():
            x.uniform_(a, b, generator=generator)
            result = where(pending, x, result)
            pending = where(pending, rejected(x, u), pending)
        return tensor if result is tensor else tensor.copy_(result)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Every element ``val``."""
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    """Every element 1."""
    with no_grad():
        return tensor.fill_(1.0)


def zeros_(tensor: Tensor) -> Tensor:
    """Every element 0."""
    with no_grad():
        return tensor.zero_()


def eye_(tensor: Tensor) -> Tensor:
    """The identity matrix (of a 2-d tensor; ones on the diagonal of a non-square one)."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _write(tensor, xp.eye(*tensor.shape, dtype=tensor._dtype.np))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """The Dirac delta of a convolution weight (out, in, *kernel): output channel d of each
    group is input channel d at the kernel's centre, so the convolution is the identity
    on as many channels as it can be."""
    dimensions = tensor.ndimension()
    if dimensions not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = sizes[0] // groups
    min_dim = min(out_per_group, sizes[1])
    values = xp.zeros(tuple(sizes), dtype=tensor._dtype.np)
    d = xp.arange(min_dim)
    rows = (xp.arange(groups)[:, None] * out_per_group + d[None, :]).ravel()
    cols = xp.tile(d, groups)
    centre = tuple(s // 2 for s in sizes[2:])
    values[(rows, cols, *centre)] = 1
    return _write(tensor, values)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot and Bengio, 2010)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out)) (Glorot and Bengio, 2010)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor: Tensor, a: float, mode: str, nonlinearity: str) -> float:
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Tensor:
    """U(-bound, bound) with bound = gain * sqrt(3 / fan) (He et al., 2015); fan is
    fan_in or fan_out (``mode``), the gain that of ``nonlinearity`` with slope ``a``."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Tensor:
    """N(0, std^2) with std = gain / sqrt(fan) (He et al., 2015)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator: Any = None) -> Tensor:
    """A (semi-)orthogonal matrix times ``gain``, with the dims after the first flattened:
    the Q of the QR factorization of a Gaussian matrix, its columns' signs fixed by R's
    diagonal so that Q is uniform over the orthogonal group (Mezzadri, 2007)."""
    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flattened = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)._data
    if rows < cols:
        flattened = flattened.T
    q, r = xp.linalg.qr(flattened)
    q = q * xp.sign(xp.diagonal(r))
    if rows < cols:
        q = q.T
    return _write(tensor, q * gain)


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator: Any = None) -> Tensor:
    """A 2-d matrix from N(0, std^2) with ceil(sparsity * rows) zeros in each column, at
    random rows (Martens, 2010)."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):  # (PyTorch draws these from the global generator)
            tensor[_random.randperm(rows)[:num_zeros], col] = 0
    return tensor


# ----- the old names, without the trailing underscore --------------------------------------


def _deprecated(meth: Callable[..., Tensor]) -> Callable[..., Tensor]:
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args: Any, **kwargs: Any) -> Tensor:
        warnings.warn(
            f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
            FutureWarning,
            stacklevel=2,
        )
        return meth(*args, **kwargs)

    deprecated_init.__doc__ = f"Deprecated: use ``nn.init.{new_name}``."
    deprecated_init.__name__ = old_name
    return deprecated_init


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
