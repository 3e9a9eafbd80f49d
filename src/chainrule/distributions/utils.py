"""Helpers shared by the distributions: parameters broadcast together, probabilities and
logits converted into each other, and ``lazy_property``."""

from __future__ import annotations

import functools
from typing import Any

__all__ = [
    "BinaryProbs",
    "broadcast_all",
    "clamp_probs",
    "euler_constant",
    "lazy_property",
    "logits_to_probs",
    "probs_to_logits",
    "sum_rightmost",
]

euler_constant = 0.57721566490153286060  # γ, the Euler-Mascheroni constant


def broadcast_all(*values: Any) -> tuple:
    """The values as tensors of one shape: numbers become tensors of the dtype (and device)
    of the first tensor among them, else of the default dtype."""
    from .. import broadcast_tensors, get_default_dtype, tensor
    from .._tensor import Tensor

    like = next((v for v in values if isinstance(v, Tensor)), None)
    if not all(isinstance(v, (Tensor, int, float)) for v in values):
        raise ValueError(
            "Input arguments must all be instances of numbers.Number, torch.Tensor or objects "
            "implementing __torch_function__."
        )
    if like is None:
        dtype, device = get_default_dtype(), None
    else:
        dtype, device = like.dtype, like.device
    tensors = [
        v if isinstance(v, Tensor) else tensor(v, dtype=dtype, device=device) for v in values
    ]
    return tuple(broadcast_tensors(*tensors))


def _standard_normal(shape: Any, dtype: Any, device: Any) -> Any:
    """A tensor of ``shape`` filled with draws from N(0, 1) (the generator's stream)."""
    from .. import empty

    return empty(shape, dtype=dtype, device=device).normal_()


def sum_rightmost(value: Any, dims: int) -> Any:
    """``value`` summed over its ``dims`` rightmost dims (none for dims <= 0)."""
    if dims <= 0:
        return value
    return value.reshape(tuple(value.shape[: value.dim() - dims]) + (-1,)).sum(-1)


_sum_rightmost = sum_rightmost  # (PyTorch's private name, which libraries import)


def clamp_probs(probs: Any) -> Any:
    """Probabilities clamped to [eps, 1 - eps], eps the dtype's machine epsilon."""
    from .. import finfo

    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Any, is_binary: bool = False) -> Any:
    """log p (log p - log(1 - p) for a binary event), p clamped away from 0 and 1."""
    p = clamp_probs(probs)
    return p.log() - (-p).log1p() if is_binary else p.log()


def logits_to_probs(logits: Any, is_binary: bool = False) -> Any:
    """σ(logits) for a binary event, else the softmax over the last dim."""
    return logits.sigmoid() if is_binary else logits.softmax(-1)


class lazy_property:  # noqa: N801 - PyTorch's spelling
    """A property computed on first access and then stored in the instance's ``__dict__``."""

    def __init__(self, wrapped: Any) -> None:
        self.wrapped = wrapped
        functools.update_wrapper(self, wrapped)

    def __get__(self, instance: Any, obj_type: Any = None) -> Any:
        if instance is None:
            return self
        from .. import enable_grad

        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class BinaryProbs:
    """The two parameterizations of a success probability, for the families given ``probs``
    p or ``logits`` log(p/(1 - p)): the one not given is computed when first read."""

    @lazy_property
    def logits(self) -> Any:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Any:
        return logits_to_probs(self.logits, is_binary=True)
