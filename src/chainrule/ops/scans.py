"""scans: TODO docstring."""

from __future__ import annotations

from .._backend import xp
from ..autograd.recording import KEEP, defop
from . import reductions, shapes, sorting

# ===== cumsum and cumprod ===================================================================


def _cum_dtype(x, dtype):
    if dtype is not None:
        return dtype.np
    return xp.int64 if x.dtype.kind in "biu" else x.dtype


def _cumsum(x, dim=0, dtype=None):
    """y_i = Σ_(j≤i) x_j along dim; integers and bools add up in int64"""
    if x.ndim == 0:
        return x.astype(_cum_dtype(x, dtype))
    return xp.cumsum(x, axis=dim, dtype=_cum_dtype(x, dtype))


def _reverse_cumsum(g, dim: int):
    """Σ_(i≥j) g_i along dim: the VJP of a cumulative sum."""
    return sorting.flip_along(cumsum_op(sorting.flip_along(g, dim=dim), dim=dim), dim=dim)


cumsum_op = defop(
    "cumsum",
    _cumsum,
    dtypes=KEEP,
    vjp=lambda g, dim: _reverse_cumsum(g, dim),  # ∂y_i/∂x_j = [j ≤ i]
    jvp=lambda t, dim, dtype: cumsum_op(t, dim=dim, dtype=dtype),
)


def _cumprod(x, dim=0, dtype=None):
    """y_i = Π_(j≤i) x_j along dim; integers and bools multiply in int64"""
    if x.ndim == 0:
        return x.astype(_cum_dtype(x, dtype))
    return xp.cumprod(x, axis=dim, dtype=_cum_dtype(x, dtype))


def _last_axis_order(ndim: int, dim: int):
    """A permutation moving dim to the end, and its inverse."""
    order = [d for d in range(ndim) if d != dim] + [dim]
    back = [0] * ndim
    for i, d in enumerate(order):
        back[d] = i
    return tuple(order), tuple(back)


def _cumprod_jacobian(xs):
    """W[..., k, i] = ∂y_i/∂x_k = Π_(j≤i, j≠k) x_j for k ≤ i, else 0, along the last dim:
    (Π_(j<k) x_j)(Π_(k<j≤i) x_j), products only, so exact with zeros (n² values a slice)."""
    last = reductions._arr(xs).ndim - 1
    n = reductions._arr(xs).shape[-1]
    k = xp.arange(n).reshape(n, 1)
    i = xp.arange(n).reshape(1, n)
    rows = shapes.reshape(xs, reductions._arr(xs).shape[:-1] + (1, n))
    after_k = cumprod_op(
        reductions._where(i > k, rows, 1.0), dim=last + 1
    )  # [k, i] = Π_(k<j≤i) x_j
    before = sorting.shift_along(cumprod_op(xs, dim=last), dim=last, fill=1.0)  # Π_(j<k) x_j
    before = shapes.reshape(before, reductions._arr(xs).shape + (1,))
    return reductions._where(i >= k, before * after_k, 0.0)


def _cumprod_vjp(g, x, ans, dim):
    """∂y_i/∂x_k = Π_(j≤i, j≠k) x_j (k ≤ i): (Σ_(i≥k) g_i y_i) / x_k without zeros"""
    # as PyTorch computes it; with zeros, the Jacobian itself (no division)
    a = reductions._arr(x)
    if a.ndim == 0:
        return g
    if not (a == 0).any():
        return _reverse_cumsum(g * ans, dim) / x
    order, back = _last_axis_order(a.ndim, dim)
    w = _cumprod_jacobian(shapes.permute(x, dims=order))
    gs = shapes.permute(g, dims=order)
    gk = shapes.reshape(gs, reductions._arr(gs).shape[:-1] + (1, a.shape[dim]))
    return shapes.permute(reductions.sum(w * gk, dim=a.ndim), dims=back)


def _cumprod_jvp(t, x, ans, dim):
    """J t = y_i Σ_(k≤i) t_k / x_k without zeros; with zeros, Σ_k (∂y_i/∂x_k) t_k"""
    a = reductions._arr(x)
    if a.ndim == 0:
        return t
    if not (a == 0).any():
        return ans * cumsum_op(t / x, dim=dim)
    order, back = _last_axis_order(a.ndim, dim)
    w = _cumprod_jacobian(shapes.permute(x, dims=order))
    ts = shapes.permute(t, dims=order)
    tk = shapes.reshape(ts, reductions._arr(ts).shape + (1,))
    return shapes.permute(reductions.sum(w * tk, dim=a.ndim - 1), dims=back)


cumprod_op = defop(
    "cumprod",
    _cumprod,
    dtypes=KEEP,
    vjp=_cumprod_vjp,
    jvp=lambda t, x, ans, dim, dtype: _cumprod_jvp(t, x, ans, dim),  # Jacobian × tangent
    conventions="Exact with zeros (no division where an entry is 0).",
)
