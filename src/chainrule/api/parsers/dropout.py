"""``torch.nn.functional``'s dropouts: dropout, dropout1d/2d/3d (whole channels),
alpha_dropout and feature_alpha_dropout (SELU's self-normalizing kind).

As in PyTorch they are the input times a random mask (MulBackward0; the alpha kinds add
a shift, AddBackward0): the gradient is the output gradient times the mask that was
drawn. The masks are PyTorch's Bernoulli draws from the global generator: the same seed
gives PyTorch's mask. Out of training, with p = 0 or an empty input, the input itself comes
back; with p = 1 the input times 0."""

from __future__ import annotations

import math
import warnings
from typing import Any

from ... import _backend, _memory_format, _sampling
from ..._backend import xp
from ..._creation import tensor, zeros
from ..._tensor import Tensor, move, wrap

# SELU's negative saturation, -scale·alpha: where alpha dropout sets the dropped elements
ALPHA = 1.7580993408473766


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _bernoulli(shape: tuple, keep: float, like: Tensor, layout: Any = None) -> Any:
    """1 with probability ``keep``, else 0, in like's dtype: PyTorch's ``bernoulli_(keep)``
    from the global generator on a tensor of ``shape``, laid out as the array ``layout``
    (row-major when None)."""
    from ..._random import generator_of

    draws = _sampling.bernoulli(generator_of(None, "dropout"), keep, math.prod(shape))
    if layout is None:
        return draws.reshape(shape).astype(like._data.dtype)
    return _sampling.in_visit_order(draws, layout).astype(like._data.dtype)


def dropout_impl(input: Tensor, p: float, train: bool, feature: bool, alpha: bool, inplace: bool):
    """PyTorch's one dropout: the mask over elements or (feature) over channels; the alpha
    kinds scale by a and shift by b so that mean and variance are kept."""
    if p < 0 or p > 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        nothing = zeros((), dtype=input.dtype)
        return input.mul_(nothing) if inplace else input * nothing
    if feature:
        if input.ndim < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    else:
        shape = tuple(input.shape)
    noise = _bernoulli(shape, 1 - p, input, None if feature else input._data)
    shift = None
    if alpha:
        a = 1.0 / math.sqrt((ALPHA * ALPHA * p + 1) * (1 - p))
        shift = tensor((noise - 1) * (ALPHA * a) + ALPHA * a * p)
        noise = noise * a
    elif noise.dtype.itemsize <= 2 and noise.dtype.kind != "b":  # (float16, bfloat16)
        # PyTorch's mask.div_(1 - p): in float32, the divisor read as float32, one rounding
        noise = (noise.astype(xp.float32) / xp.float32(1 - p)).astype(noise.dtype)
    else:
        noise = noise / (1 - p)
    if not feature:  # (an element mask laid out as the input: PyTorch's keeps the format)
        noise = _memory_format.follow(noise, input._data)
        if shift is not None:
            shift = wrap(_memory_format.follow(shift._data, input._data))
    mask = wrap(noise.astype(input._data.dtype, copy=False))
    if _backend.live[0]:  # a device exists: the mask and shift go where the input is
        mask = move(mask, input.device)
        shift = None if shift is None else move(shift, input.device)
    out = input.mul_(mask) if inplace else input * mask
    if shift is None:
        return out
    return out.add_(shift) if inplace else out + shift


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Each element zeroed with probability p, the others scaled by 1/(1 - p)."""
    _check_p(p)
    return dropout_impl(input, p, training, feature=False, alpha=False, inplace=inplace)


def alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """Each element set with probability p to SELU's saturation value, then all scaled and
    shifted (a·x + b) to keep zero mean and unit variance."""
    _check_p(p)
    return dropout_impl(input, p, training, feature=False, alpha=True, inplace=inplace)


def feature_alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """alpha_dropout of whole channels (dim 1) at once."""
    _check_p(p)
    return dropout_impl(input, p, training, feature=True, alpha=True, inplace=inplace)


def _unbatched(input: Tensor, inplace: bool) -> Tensor:
    return input.unsqueeze_(0) if inplace else input.unsqueeze(0)


def _rebatched(result: Tensor, inplace: bool) -> Tensor:
    return result.squeeze_(0) if inplace else result.squeeze(0)


def dropout1d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Whole channels zeroed with probability p, of an (N, C, L) or (C, L) input."""
    _check_p(p)
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs)."
        )
    batched = input.ndim == 3
    if not batched:
        input = _unbatched(input, inplace)
    result = dropout_impl(input, p, training, feature=True, alpha=False, inplace=inplace)
    return result if batched else _rebatched(result, inplace)


def dropout2d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Whole channels zeroed with probability p, of an (N, C, H, W) input (PyTorch's warnings
    for other ranks: a 3-D input is taken as (N, C, L))."""
    _check_p(p)
    nd = input.ndim
    if nd not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {nd}-D input to dropout2d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout2d exists to provide "
            "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 3D or 4D inputs).",
            UserWarning,
            stacklevel=2,
        )
    if nd == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            UserWarning,
            stacklevel=2,
        )
    return dropout_impl(input, p, training, feature=True, alpha=False, inplace=inplace)


def dropout3d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Whole channels zeroed with probability p, of an (N, C, D, H, W) or (C, D, H, W)
    input."""
    _check_p(p)
    nd = input.ndim
    if nd not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {nd}-D input to dropout3d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout3d exists to provide "
            "channel-wise dropout on inputs with 3 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 4D or 5D inputs).",
            UserWarning,
            stacklevel=2,
        )
    batched = nd == 5
    if not batched:
        input = _unbatched(input, inplace)
    result = dropout_impl(input, p, training, feature=True, alpha=False, inplace=inplace)
    return result if batched else _rebatched(result, inplace)
