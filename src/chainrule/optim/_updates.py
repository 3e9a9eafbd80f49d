"""In-place updates on backend arrays, the steps PyTorch's single-tensor optimizers take.

Each writes into its first argument with ufunc ``out=`` (no temporaries beyond what the
formula needs); ``done`` bumps the parameter's version counter as an in-place op would.

A complex parameter is stepped as PyTorch steps it: as the pairs of its real and imaginary
parts (``torch.view_as_real``), each part a real number of its own (``pairs``).
"""

from __future__ import annotations

from typing import Any

from .._backend import axpy, xp
from .._tensor import Tensor

Array = Any


def pairs(a: Array) -> Array:
    """A complex array as the (real, imag) pairs of its elements, shape (..., 2), sharing
    its memory (``torch.view_as_real``); a real array as it is."""
    if a.dtype.kind != "c":
        return a
    return a[..., None].view(a.real.dtype)  # (the new unit axis is contiguous: any strides)


def grad_of(p: Tensor, maximize: bool) -> Array:
    """The parameter's gradient array (as real pairs where complex), negated (a new
    array) under ``maximize``."""
    g = pairs(p.grad._data)
    return xp.negative(g) if maximize else g


def with_weight_decay(g: Array, param: Array, weight_decay: float) -> Array:
    """``g + weight_decay * param`` (a new array; ``g`` is the caller's gradient)."""
    if weight_decay == 0:
        return g
    return scaled_sum(g, param, weight_decay)


def scaled_sum(a: Array, b: Array, alpha: float) -> Array:
    """``a + alpha b``, a new array: PyTorch's ``a.add(b, alpha=alpha)``, fused where
    ``add_scaled_`` is."""
    out = a.copy()
    if isinstance(out, xp.generic):  # (a 0-d array's ufunc result is a NumPy scalar)
        out = xp.asarray(out)
    add_scaled_(out, b, alpha)
    return out


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
    """``a <- a + alpha b``: by BLAS's axpy where it takes the arrays (fused, PyTorch's
    ``add_(b, alpha=alpha)`` bits, no temporary: ``_backend.axpy``), else by NumPy."""
    if not axpy(a, b, alpha):
        a += alpha * b


def addcdiv_(a: Array, num: Array, den: Array, value: float) -> None:
    """``a <- a + value num / den``."""
    q = xp.divide(num, den)
    q *= value
    a += q


def done(p: Tensor) -> None:
    """Mark ``p`` written in place: bump its version counter."""
    p._bump()
