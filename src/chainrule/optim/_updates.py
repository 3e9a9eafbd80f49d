"""In-place updates on backend arrays, the steps PyTorch's single-tensor optimizers take.

Each writes into its first argument with ufunc ``out=`` (no temporaries beyond what the
formula needs); ``done`` bumps the parameter's version counter as an in-place op would.

A complex parameter is stepped as PyTorch steps it: as the pairs of its real and imaginary
parts (``torch.view_as_real``), each part a real number of its own (``pairs``).

A bfloat16 parameter (its state bfloat16 too) is stepped as PyTorch's for-loop kernels (its
CPU default; chainrule's whatever ``foreach`` says) step it: each helper stands for one
PyTorch op, computes in float32 and rounds to bfloat16 once; a Python number is used in
float32 by ``mul_``, ``div_``, ``lerp_``, ``addcmul_`` and ``addcdiv_``, rounded to
bfloat16 first by ``add_`` (a scalar or ``alpha``), as PyTorch's CPU vector kernels do.
(NumPy's bfloat16 ufuncs would round the number and every intermediate.)
"""

from __future__ import annotations

from typing import Any

from .._backend import REDUCED, axpy, xp
from .._tensor import Tensor

Array = Any


def narrow(a: Array) -> bool:
    """Whether ``a`` holds bfloat16 (ml_dtypes' dtype, the only one of kind "V" here)."""
    return a.dtype in REDUCED


def _wide(a: Array) -> Array:
    """A float32 copy of a bfloat16 array (float32 and float64 arrays as they are)."""
    return a.astype(xp.float32) if narrow(a) else a


def _rounded(x: float, like: Array) -> Any:
    """The Python number ``x`` rounded to bfloat16 (PyTorch's cast of ``alpha`` and of an
    added scalar), as a float32."""
    return xp.float32(xp.asarray(x, dtype=like.dtype))


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


def fresh(x: Array) -> Array:
    """``x`` (a ufunc's new result) as an array the helpers may write into: a ufunc on a 0-d
    array returns a NumPy scalar."""
    return xp.asarray(x) if isinstance(x, xp.generic) else x


def mul_(a: Array, s: float) -> None:
    """``a <- s a`` (``mul_(s)``; bfloat16: s in float32, one rounding)."""
    if narrow(a):
        a[...] = _wide(a) * xp.float32(s)
    else:
        a *= s


def div_(a: Array, s: float) -> None:
    """``a <- a / s`` (``div_(s)``; bfloat16: s in float32, one rounding)."""
    if narrow(a):
        a[...] = _wide(a) / xp.float32(s)
    else:
        a /= s


def add_(a: Array, s: float) -> None:
    """``a <- a + s`` (``add_(s)``; bfloat16: s rounded to bfloat16, as PyTorch's)."""
    if narrow(a):
        a[...] = _wide(a) + _rounded(s, a)
    else:
        a += s


def scaled(a: Array, s: float) -> Array:
    """``s a``, a new array (``a * s``)."""
    out = xp.array(a, copy=True)
    mul_(out, s)
    return out


def divided(a: Array, s: float) -> Array:
    """``a / s``, a new array (``a / s``)."""
    out = xp.array(a, copy=True)
    div_(out, s)
    return out


def scalar_over(s: float, a: Array) -> Array:
    """``s / a``, a new array: PyTorch's ``s / tensor`` is ``a.reciprocal() * s``, which
    for bfloat16 rounds twice."""
    if narrow(a):
        return scaled(xp.reciprocal(a), s)
    return s / a


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
    if narrow(a):  # (float32 operands, fused multiply-add as PyTorch's vector kernel)
        a32, b32, w32 = _wide(a), _wide(b), xp.float32(w)
        diff = (b32 - a32).astype(xp.float64)
        if abs(w) < 0.5:
            a[...] = (a32 + xp.float64(w32) * diff).astype(xp.float32)
        else:
            a[...] = (b32 - diff * xp.float64(1 - w32)).astype(xp.float32)
        return
    diff = xp.subtract(b, a)
    if abs(w) < 0.5:
        diff *= w
        a += diff
    else:
        diff *= 1 - w
        xp.subtract(b, diff, out=a)


def decay_add_square_(a: Array, beta: float, g: Array) -> None:
    """``a <- beta a + (1 - beta) g**2`` (``mul_(beta).addcmul_(g, g, value=1 - beta)``)."""
    if narrow(a):
        mul_(a, beta)
        addcmul_(a, g, g, 1 - beta)
        return
    a *= beta
    sq = xp.multiply(g, g)
    sq *= 1 - beta
    a += sq


def add_scaled_(a: Array, b: Array, alpha: float) -> None:
    """``a <- a + alpha b``: by BLAS's axpy where it takes the arrays (fused, PyTorch's
    ``add_(b, alpha=alpha)`` bits, no temporary: ``_backend.axpy``), else by NumPy;
    bfloat16: ``alpha`` rounded to bfloat16, one rounding of the sum."""
    if narrow(a):
        a[...] = _wide(a) + _rounded(alpha, a) * _wide(b)
    elif not axpy(a, b, alpha):
        a += alpha * b


def addcmul_(a: Array, t1: Array, t2: Array, value: float) -> None:
    """``a <- a + value t1 t2`` (bfloat16: one rounding)."""
    if narrow(a):  # (PyTorch's vector kernel: fma(value t1, t2, a) in float32)
        scaled_t1 = xp.float32(value) * _wide(t1)
        a[...] = (_wide(a) + scaled_t1 * _wide(t2).astype(xp.float64)).astype(xp.float32)
        return
    q = xp.multiply(t1, t2)
    q *= value
    a += q


def addcmul(a: Array, t1: Array, t2: Array, value: float) -> Array:
    """``a + value t1 t2``, a new array."""
    out = xp.array(a, copy=True)
    addcmul_(out, t1, t2, value)
    return out


def addcdiv_(a: Array, num: Array, den: Array, value: float) -> None:
    """``a <- a + value num / den`` (bfloat16: one rounding)."""
    if narrow(a):  # (PyTorch's vector kernel: a + (value num) / den in float32)
        a[...] = _wide(a) + (xp.float32(value) * _wide(num)) / _wide(den)
        return
    q = xp.divide(num, den)
    q *= value
    a += q


def done(p: Tensor) -> None:
    """Mark ``p`` written in place: bump its version counter."""
    p._bump()
