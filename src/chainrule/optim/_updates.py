"""In-place updates on backend arrays, the steps PyTorch's single-tensor optimizers take.

Each writes into its first argument with ufunc ``out=`` (no temporaries beyond what the
formula needs); ``done`` bumps the parameter's version counter as an in-place op would.
"""

from __future__ import annotations

from typing import Any

from .._backend import xp
from .._tensor import Tensor

Array = Any


def grad_of(p: Tensor, maximize: bool) -> Array:
    """The parameter's gradient array, negated (a new array) under ``maximize``."""
    g = p.grad._data
    return xp.negative(g) if maximize else g


def with_weight_decay(g: Array, param: Array, weight_decay: float) -> Array:
    """``g + weight_decay * param`` (a new array; ``g`` is the caller's gradient)."""
    if weight_decay == 0:
        return g
    return g + weight_decay * param


def lerp_(a: Array, b: Array, w: float) -> None:
    """``a <- a + w (b - a)`` as PyTorch's lerp: from ``b``'s side when ``w >= 0.5``."""
    diff = xp.subtract(b, a)
    if abs(w) < 0.5:
        diff *= w
        a += diff
    else:
        diff *= 1 - w
        xp.subtract(b, diff, out=a)


def decay_add_square_(a: Array, beta: float, g: Array) -> None:
    """``a <- beta a + (1 - beta) g**2`` (``mul_(beta).addcmul_(g, g, value=1 - beta)``)."""
    a *= beta
    sq = xp.multiply(g, g)
    sq *= 1 - beta
    a += sq


def add_scaled_(a: Array, b: Array, alpha: float) -> None:
    """``a <- a + alpha b``."""
    a += alpha * b


def addcdiv_(a: Array, num: Array, den: Array, value: float) -> None:
    """``a <- a + value num / den``."""
    q = xp.divide(num, den)
    q *= value
    a += q


def done(p: Tensor) -> None:
    """Mark ``p`` written in place: bump its version counter."""
    p._bump()
