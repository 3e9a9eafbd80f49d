"""Numerical integration and differentiation of sampled functions, as PyTorch composes them
from slices, sums and cumsums (so their gradients and nodes are those of the pieces):
``trapezoid``/``trapz``, ``cumulative_trapezoid`` and ``gradient``."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

from ... import _dtypes
from ..._backend import xp
from ..._tensor import Tensor, _make
from ...ops import indexing, reductions, scans, shapes
from .shapes import _dim, cat

_NONE = object()


def _slice(t: Tensor, d: int, start: int | None, stop: int | None = None) -> Tensor:
    return indexing.getitem(t, key=shapes._key_of(d, slice(start, stop)))


def _zeros_without(y: Tensor, d: int) -> Tensor:
    """The integral over no samples: zeros of y's shape without dim d (NumPy's answer)."""
    shape = y._data.shape[:d] + y._data.shape[d + 1 :]
    return _make(xp.zeros(shape, dtype=y._dtype.np), y._dtype)


def _spacings(name: str, y: Tensor, x: Tensor, d: int) -> Tensor:
    """The differences of the sample points x, shaped to broadcast against y's along dim d."""
    if x._dtype is _dtypes.bool or y._dtype is _dtypes.bool:
        raise RuntimeError(
            f"{name}: received a bool input for `x` or `y`, but bool is not supported"
        )
    nd = y._data.ndim
    if x._data.ndim == 1:
        if x._data.shape[0] != y._data.shape[d]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        shape = [1] * nd
        shape[d] = x._data.shape[0]
        x = shapes.view(x, shape=tuple(shape))
    elif x._data.ndim < nd:
        x = shapes.view(x, shape=(1,) * (nd - x._data.ndim) + x._data.shape)
    return _slice(x, d, 1) - _slice(x, d, 0, -1)


def _args(name: str, y: Tensor, x: Any, dx: Any, dim: int) -> tuple[int, Any]:
    if x is not _NONE and dx is not _NONE:
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got (Tensor, dx, x): "
            "give either the sample points x or the spacing dx"
        )
    if not y._data.ndim:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return _dim(dim, y._data.ndim), x


def trapezoid(y: Tensor, x: Any = _NONE, *, dx: Any = _NONE, dim: int = -1) -> Tensor:
    """∫ y along dim by the trapezoidal rule: Σ (y_i + y_(i+1)) Δx_i / 2, with Δx from the
    sample points x (a tensor), or a constant spacing dx (default 1)."""
    if x is not _NONE and not isinstance(x, Tensor):  # trapz(y, dx) positionally
        raise TypeError(
            "trapezoid() received an invalid combination of arguments - got (Tensor, "
            f"{type(x).__name__}), but expected one of:\n * (Tensor y, Tensor x, *, int dim = -1)"
            "\n * (Tensor y, *, Number dx = 1, int dim = -1)\n"
        )
    d, x = _args("trapezoid", y, x, dx, dim)
    if not y._data.shape[d]:
        return _zeros_without(y, d)
    if x is not _NONE:
        spacing = _spacings("trapezoid", y, x, d)
        return reductions.sum((_slice(y, d, 0, -1) + _slice(y, d, 1)) * spacing, dim=(d,)) / 2.0
    h = 1 if dx is _NONE else dx
    if isinstance(h, bool) or not isinstance(h, numbers.Real):
        raise RuntimeError("trapezoid: Currently, we only support dx as a real number.")
    if y._dtype is _dtypes.bool:
        raise RuntimeError("trapezoid: received a bool input for `y`, but bool is not supported")
    ends = _slice(y, d, 0, 1) + _slice(y, d, -1)
    return (reductions.sum(y, dim=(d,)) - shapes.squeeze(ends, dims=(d,)) * 0.5) * float(h)


def trapz(y: Tensor, x: Any = _NONE, *, dx: Any = _NONE, dim: int = -1) -> Tensor:
    """The old name of ``trapezoid``."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x: Any = _NONE, *, dx: Any = _NONE, dim: int = -1) -> Tensor:
    """The running trapezoidal integral of y along dim: one value fewer than y has there."""
    d, x = _args("cumulative_trapezoid", y, x, dx, dim)
    pairs = _slice(y, d, 0, -1) + _slice(y, d, 1)
    if x is not _NONE:
        spacing = _spacings("cumulative_trapezoid", y, x, d)
        return scans.cumsum(pairs * spacing, dim=d) / 2.0
    h = 1 if dx is _NONE else dx
    return scans.cumsum((float(h) / 2.0) * pairs, dim=d)


def _gradient_dims(input: Tensor, spacing: Any, dim: Any, edge_order: int) -> tuple:
    nd = input._data.ndim
    dims = tuple(range(nd)) if dim is None else (dim,) if isinstance(dim, int) else tuple(dim)
    dims = tuple(_dim(d, nd) for d in dims)
    if isinstance(spacing, (list, tuple)):
        if dim is None and len(spacing) != nd:
            raise RuntimeError(
                "torch.gradient expected spacing to be unspecified, a scalar, or a list of "
                f"length equal to 'self.dim() = {nd}', since dim argument was not given, but "
                f"got a list of length {len(spacing)}"
            )
        if dim is not None and len(spacing) != len(dims):
            raise RuntimeError(
                "torch.gradient expected spacing to be unspecified, a scalar or it's spacing "
                "and dim arguments to have the same length, but got a spacing argument of "
                f"length {len(spacing)} and a dim argument of length {len(dims)}."
            )
        spacings = tuple(spacing)
    else:
        spacings = (1.0 if spacing is None else spacing,) * len(dims)
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    for d in dims:
        if input._data.shape[d] < edge_order + 1:
            raise RuntimeError(
                "torch.gradient expected each dimension size to be at least edge_order+1"
            )
    return dims, spacings


def _uniform(f: Tensor, d: int, h: float, edge_order: int) -> Tensor:
    """∂f along dim d on a grid of spacing h: central differences inside, one-sided (first
    or second order) at the two ends."""
    s = lambda a, b=None: _slice(f, d, a, b)  # noqa: E731
    center = (s(2) - s(0, -2)) / (2.0 * h)
    if edge_order == 1:
        first = (s(1, 2) - s(0, 1)) / h
        last = (s(-1) - s(-2, -1)) / h
    else:
        first = (s(0, 1) * -1.5 + s(1, 2) * 2.0 - s(2, 3) * 0.5) / h
        last = (s(-3, -2) * 0.5 - s(-2, -1) * 2.0 + s(-1) * 1.5) / h
    return cat((first, center, last), d)


def _coordinates(f: Tensor, d: int, x: Tensor, edge_order: int) -> Tensor:
    """∂f along dim d at sample points x (a 1-d tensor): NumPy's second-order differences
    for uneven spacing inside, one-sided (first or second order) at the ends."""
    if x._data.ndim != 1:
        raise RuntimeError(
            "torch.gradient expected each element of spacing to have one dimension, but got "
            f"an element with {x._data.ndim} dimensions!"
        )
    shape = [1] * f._data.ndim
    shape[d] = -1
    h = _slice(x, 0, 1) - _slice(x, 0, 0, -1)
    h1, h2 = _slice(h, 0, 0, -1), _slice(h, 0, 1)
    shaped = lambda t: shapes.reshape(t, tuple(shape))  # noqa: E731
    a = shaped(-h2 / (h1 * (h1 + h2)))
    b = shaped((h2 - h1) / (h1 * h2))
    c = shaped(h1 / (h2 * (h1 + h2)))
    s = lambda lo, hi=None: _slice(f, d, lo, hi)  # noqa: E731
    center = a * s(0, -2) + b * s(1, -1) + c * s(2)
    g0, g1, gl, gm = h[0], h[1] if len(h) > 1 else h[0], h[-1], h[-2] if len(h) > 1 else h[-1]
    if edge_order == 1:
        first = (s(1, 2) - s(0, 1)) / g0
        last = (s(-1) - s(-2, -1)) / gl
    else:
        first = (
            s(0, 1) * (-(2.0 * g0 + g1) / (g0 * (g0 + g1)))
            + s(1, 2) * ((g0 + g1) / (g0 * g1))
            + s(2, 3) * (-g0 / (g1 * (g0 + g1)))
        )
        last = (
            s(-3, -2) * (gl / (gm * (gl + gm)))
            + s(-2, -1) * (-(gl + gm) / (gl * gm))
            + s(-1) * ((2.0 * gl + gm) / (gl * (gl + gm)))
        )
    return cat((first, center, last), d)


def gradient(
    input: Tensor,
    *,
    spacing: Any = None,
    dim: int | Sequence[int] | None = None,
    edge_order: int = 1,
) -> tuple[Tensor, ...]:
    """∂input/∂x_d for each dim d (all, or ``dim``) by finite differences: second-order
    central differences inside, first- or second-order (``edge_order``) one-sided ones at the
    ends; ``spacing`` a number (the grid step), a list of numbers (one per dim), or a list of
    1-d tensors (the sample points of each dim)."""
    if input._dtype is _dtypes.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    dims, spacings = _gradient_dims(input, spacing, dim, edge_order)
    out = []
    for d, h in zip(dims, spacings):
        if isinstance(h, Tensor):
            out.append(_coordinates(input, d, h, edge_order))
        else:
            h = h.item() if isinstance(h, Tensor) else h
            out.append(_uniform(input, d, float(h), edge_order))
    return tuple(out)
