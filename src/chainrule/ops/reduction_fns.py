"""Reductions beyond sum and mean: prod, max/min (with indices), amax/amin/aminmax,
argmax/argmin, var/std (and var_mean/std_mean), cumsum/cumprod, cummax/cummin,
logcumsumexp, sort/argsort/msort, topk, median, kthvalue, mode, nansum/nanmean,
count_nonzero, all/any; their public functions with PyTorch's signatures and the Tensor
methods they provide.

Each op is one ``defop`` entry (see docs/architecture.md). ``__all__`` lists the public
functions ``chainrule`` exports from here; ``TENSOR_METHODS`` the Tensor methods.

Two gradient patterns recur:

- **Selecting reductions** (``max(dim=)``, ``min(dim=)``, ``median(dim=)``, ``sort``,
  ``topk``, ``kthvalue``, ``mode``; ``cummax``/``cummin`` with repeated indices) pick
  entries by index. The public function finds the indices on the arrays,
  and one op, ``take_along``, reads the values at them; its VJP writes the gradient back
  at those indices (``scatter_into_zeros``), so the gradient goes to the entry whose
  index is returned, as in PyTorch.
- **Sharing reductions** (``amax``, ``amin``, ``aminmax``, full ``max()``/``min()``/
  ``median()``) give each entry equal to the result an equal share of the gradient.

``prod`` and ``cumprod`` have exact gradients with zeros in the input (no division by an
entry that is 0), and ``logcumsumexp``'s rules are formed in log space.
"""

from __future__ import annotations

import math
import warnings
from typing import NamedTuple

from .._backend import xp
from .._dtypes import float64
from .._tensor import Tensor, wrap
from ..autograd.recording import KEEP, defop
from . import elementwise as ew
from .functions import inplace
from .reductions import _count, _sum, dims_of, mean, unreduce
from .reductions import sum as sum_op
from .shape import permute, reshape


def _arr(x):
    """x's array: masks and indices carry no gradient, so they are computed on arrays."""
    return x._data if isinstance(x, Tensor) else x


def _where(cond, a, b):
    """a where cond else b: the op when a or b is a tensor (create_graph), else NumPy's."""
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return ew.where(cond, a, b)
    return xp.where(cond, a, b)


def _axis(dim, ndim: int) -> int:
    """One dim as a non-negative axis (0 for a 0-d tensor), with PyTorch's IndexError."""
    axes = dims_of(int(dim), ndim)
    return 0 if axes is None else axes[0]


def _as_1d(x):
    """A 0-d array as 1-D (NumPy's along-axis functions need an axis); others unchanged."""
    return x.reshape(1) if x.ndim == 0 else x


# ===== helper ops: flip, shift, gather and scatter along a dim ===============================


def _flip(x, dim=0):
    """x reversed along dim (a copy)"""
    if x.ndim == 0:
        return x.copy()
    return xp.flip(x, axis=dim).copy()


flip_along = defop(
    "flip_along",
    _flip,
    dtypes=KEEP,
    node="FlipBackward0",
    vjp=lambda g, dim: flip_along(g, dim=dim),  # a reversal undoes itself
    jvp=lambda t, dim: flip_along(t, dim=dim),
)


def _shift(x, dim=0, fill=0.0):
    """x moved one place forward along dim, ``fill`` in the first place: out_i = x_(i-1)"""
    out = xp.empty_like(x)
    lead = (slice(None),) * dim
    out[lead + (slice(0, 1),)] = fill
    out[lead + (slice(1, None),)] = x[lead + (slice(0, -1),)]
    return out


def _unshift(x, dim=0):
    """x moved one place back along dim, 0 in the last place: out_i = x_(i+1)"""
    out = xp.zeros_like(x)
    lead = (slice(None),) * dim
    out[lead + (slice(0, -1),)] = x[lead + (slice(1, None),)]
    return out


shift_along = defop(
    "shift_along",
    _shift,
    dtypes=KEEP,
    node="CatBackward0",
    vjp=lambda g, dim: unshift_along(g, dim=dim),  # out_i = x_(i-1): g moves back by one
    jvp=lambda t, dim: shift_along(t, dim=dim, fill=0.0),
)
unshift_along = defop(
    "unshift_along",
    _unshift,
    dtypes=KEEP,
    node="CatBackward0",
    vjp=lambda g, dim: shift_along(g, dim=dim, fill=0.0),
    jvp=lambda t, dim: unshift_along(t, dim=dim),
)


def _take_along(x, index=None, dim=0, keepdim=True):
    """x's entries at ``index`` along dim (index has x's shape but along dim)"""
    if x.ndim == 0:
        return _as_1d(x)[_as_1d(index)].reshape(index.shape)
    out = xp.take_along_axis(x, index, axis=dim)
    return out if keepdim else xp.squeeze(out, axis=dim)


def _scatter_into_zeros(g, index=None, dim=0, keepdim=True, shape=()):
    """zeros of ``shape`` with g written at ``index`` along dim (indices are distinct)"""
    out = xp.zeros(shape, dtype=g.dtype)
    if len(shape) == 0:
        out[...] = xp.sum(g)  # index is 0 (or empty)
        return out
    if not keepdim:
        g = xp.expand_dims(g, dim)
    xp.put_along_axis(out, index, g, axis=dim)
    return out


def _take_along_vjp(g, x_shape, index, dim, keepdim):
    """∂x[index]/∂x = 1 at the picked entry: g is written back where it was read"""
    return scatter_into_zeros(g, index=index, dim=dim, keepdim=keepdim, shape=x_shape)


_PICKED = (
    "The gradient goes to the entry whose index is returned; entries that tie with it get none."
)


def _selecting(name: str, node: str, doc: str, conventions: str = _PICKED):
    """A values-at-indices op named as PyTorch names the reduction that picked them."""

    def forward(x, index=None, dim=0, keepdim=True):
        return _take_along(x, index=index, dim=dim, keepdim=keepdim)

    forward.__doc__ = doc
    return defop(
        name,
        forward,
        dtypes=KEEP,
        node=node,
        vjp=_take_along_vjp,
        jvp=lambda t, index, dim, keepdim: take_along(t, index=index, dim=dim, keepdim=keepdim),
        conventions=conventions,
    )


take_along = _selecting(
    "take_along", "GatherBackward0", "x's entries at ``index`` along dim (a gather)"
)
scatter_into_zeros = defop(
    "scatter_into_zeros",
    _scatter_into_zeros,
    args=("g",),
    dtypes=KEEP,
    node="ScatterBackward0",
    vjp=lambda gg, index, dim, keepdim: take_along(gg, index=index, dim=dim, keepdim=keepdim),
    jvp=lambda t, index, dim, keepdim, shape: scatter_into_zeros(
        t, index=index, dim=dim, keepdim=keepdim, shape=shape
    ),
)

max_dim_op = _selecting("max_dim", "MaxBackward0", "the max along dim, at its (first) index")
min_dim_op = _selecting("min_dim", "MinBackward0", "the min along dim, at its (first) index")
median_dim_op = _selecting(
    "median_dim", "MedianBackward1", "the lower median along dim, at its index"
)
nanmedian_dim_op = _selecting(
    "nanmedian_dim", "NanmedianBackward1", "the lower median of the non-nan entries along dim"
)
sort_op = _selecting(
    "sort",
    "SortBackward0",
    "x sorted along dim (the entries at the sorting indices)",
    "Each entry's gradient comes from the place it was sorted to. Equal entries keep their "
    "order (chainrule always sorts stably); nan sorts as the largest value. PyTorch's "
    "stable=False sort may order equal entries differently in slices longer than 16, and "
    "then the gradient of tied values sits on other (equal) entries.",
)
topk_op = _selecting(
    "topk",
    "TopkBackward0",
    "the k largest (or smallest) entries along dim, at their indices",
    "The gradient goes to the returned indices. Among tied entries chainrule returns the "
    "lowest indices first (a stable order); PyTorch's CPU kernel may return other tied "
    "indices, so with ties the gradient may sit on different (equal) entries.",
)

kthvalue_op = _selecting(
    "kthvalue",
    "KthvalueBackward0",
    "the k-th smallest entry along dim, at its index",
    _PICKED + " Among ties chainrule returns the entry at place k of a stable sort; "
    "PyTorch's CPU kernel (a selection) may return another of the tied indices.",
)
mode_op = _selecting(
    "mode",
    "ModeBackward0",
    "the most frequent entry along dim (the smallest such), at its last index",
    _PICKED + " With nan in the slice PyTorch's index may differ.",
)


def _scatter_add_into_zeros(g, index=None, dim=0, shape=()):
    """zeros of ``shape`` with g added at ``index`` along dim (repeated indices add up)"""
    out = xp.zeros(shape, dtype=g.dtype)
    if len(shape) == 0:
        out[...] = xp.sum(g)
        return out
    where = list(xp.indices(index.shape, sparse=True))
    where[dim] = index
    xp.add.at(out, tuple(where), g)
    return out


scatter_add_into_zeros = defop(
    "scatter_add_into_zeros",
    _scatter_add_into_zeros,
    args=("g",),
    dtypes=KEEP,
    node="ScatterAddBackward0",
    vjp=lambda gg, index, dim: take_along(gg, index=index, dim=dim, keepdim=True),
    jvp=lambda t, index, dim, shape: scatter_add_into_zeros(t, index=index, dim=dim, shape=shape),
)


def _cumulative_selecting(name: str, node: str, doc: str):
    """cummax / cummin values: entries read at indices that repeat, so gradients add up."""

    def forward(x, index=None, dim=0):
        return _take_along(x, index=index, dim=dim, keepdim=True)

    forward.__doc__ = doc

    def vjp(g, x_shape, index, dim):
        """∂y_i/∂x_j = [index_i = j]: each g_i is added at the entry it was read from"""
        return scatter_add_into_zeros(g, index=index, dim=dim, shape=x_shape)

    return defop(
        name,
        forward,
        dtypes=KEEP,
        node=node,
        vjp=vjp,
        jvp=lambda t, index, dim: take_along(t, index=index, dim=dim, keepdim=True),
        conventions="The gradient goes to the returned index: among ties, the latest entry "
        "(PyTorch's); after a nan, the latest nan.",
    )


cummax_op = _cumulative_selecting("cummax", "CummaxBackward0", "the running max along dim")
cummin_op = _cumulative_selecting("cummin", "CumminBackward0", "the running min along dim")


def _logcumsumexp(x, dim=0):
    """y_i = log Σ_(j≤i) e^(x_j) along dim, accumulated pairwise with logaddexp (stable)"""
    if x.ndim == 0:
        return x.copy()
    return xp.logaddexp.accumulate(x, axis=dim)


def _log_part(v, positive: bool):
    """log |v| where v has the wanted sign, else the dtype's lowest finite number (not -inf:
    -inf - -inf would be nan in the next derivative)."""
    a = _arr(v)
    keep = a > 0 if positive else a < 0
    lowest = float(xp.finfo(a.dtype).min) if a.dtype.kind == "f" else -1e308
    safe = _where(keep, v, 1.0) if positive else _where(keep, -v, 1.0)
    return _where(keep, ew.log(safe), lowest)


def _logcumsumexp_vjp(g, x, ans, dim):
    """∂y_i/∂x_k = e^(x_k - y_i) for k ≤ i: Σ_(i≥k) g_i e^(x_k - y_i), split by sign of g"""
    if _arr(x).ndim == 0:
        return g
    flipped = flip_along(ans, dim=dim)
    total = 0.0
    for positive in (True, False):
        part = flip_along(_log_part(g, positive), dim=dim) - flipped
        rev = flip_along(logcumsumexp_op(part, dim=dim), dim=dim)
        term = ew.exp(rev + x)
        total = total + term if positive else total - term
    return total


def _logcumsumexp_jvp(t, x, ans, dim):
    """Σ_(k≤i) t_k e^(x_k - y_i), split by the sign of t"""
    if _arr(x).ndim == 0:
        return t
    if _arr(x).dtype != xp.float64:
        # formed in float64 (the tangent is cast back to x's dtype): in float32,
        # log|t_k| + x_k and y_i round at the scale of x (~5e-4 near 1e4), and so
        # would every term, relatively
        x, t = ew.to_dtype(x, dtype=float64), ew.to_dtype(t, dtype=float64)
        ans = logcumsumexp_op(x, dim=dim)
    pos = logcumsumexp_op(_log_part(t, True) + x, dim=dim)
    neg = logcumsumexp_op(_log_part(t, False) + x, dim=dim)
    return ew.exp(pos - ans) - ew.exp(neg - ans)


logcumsumexp_op = defop(
    "logcumsumexp",
    _logcumsumexp,
    dtypes=KEEP,
    vjp=_logcumsumexp_vjp,
    jvp=_logcumsumexp_jvp,
    conventions="Stable for large |x|: the sums of the rules are formed in log space.",
)


def _nansum(x, dim=None, keepdim=False, dtype=None):
    """Σ x over dim with nan counted as 0"""
    if x.dtype.kind == "f":
        x = xp.where(xp.isnan(x), 0, x)
    return _sum(x, dim=dim, keepdim=keepdim, dtype=dtype)


nansum_op = defop(
    "nansum",
    _nansum,
    dtypes=KEEP,
    # ∂/∂x_i = 1 where x_i is not nan, else 0
    # (a product, not a where: a nan or inf g stays nan at nan entries, as in PyTorch)
    vjp=lambda g, x, dim, keepdim: (
        unreduce(g, _arr(x).shape, dim, keepdim) * (~xp.isnan(_arr(x))).astype(_arr(x).dtype)
    ),
    jvp=lambda t, x, dim, keepdim, dtype: sum_op(
        _where(xp.isnan(_arr(x)), 0.0, t), dim=dim, keepdim=keepdim, dtype=dtype
    ),
    conventions="nan entries get a gradient of 0.",
)


# ===== prod ===============================================================================


def _prod(x, dim=None, keepdim=False, dtype=None):
    """Π x over dim (all dims when None); integers and bools multiply in int64"""
    if dtype is not None:
        np_dtype = dtype.np
    else:
        np_dtype = xp.int64 if x.dtype.kind in "biu" else None
    if dim is None:
        out = xp.prod(x, dtype=np_dtype)
        return xp.asarray(out).reshape((1,) * x.ndim if keepdim else ())
    return xp.asarray(xp.prod(x, axis=_axis(dim, x.ndim), keepdims=keepdim, dtype=np_dtype))


def _exclusive_products(x, dim: int):
    """Π_(j≠i) x_j along dim, exactly (zeros included): the products before i times after."""
    before = shift_along(cumprod_op(x, dim=dim), dim=dim, fill=1.0)
    flipped = flip_along(x, dim=dim)
    after = flip_along(shift_along(cumprod_op(flipped, dim=dim), dim=dim, fill=1.0), dim=dim)
    return before * after


def _prod_vjp(g, x, ans, dim, keepdim):
    """∂Πx/∂x_i = Π_(j≠i) x_j: ans / x_i when no entry is 0, else without dividing"""
    shape = x.shape
    g = unreduce(g, shape, dim, keepdim)
    if len(shape) == 0:
        return g  # the product of one entry is that entry
    if not (_arr(x) == 0).any():
        return g * (unreduce(ans, shape, dim, keepdim) / x)
    if dim is None:
        flat = reshape(x, (-1,))
        return g * reshape(_exclusive_products(flat, 0), shape)
    return g * _exclusive_products(x, _axis(dim, len(shape)))


def _reduction_node(base: str):
    return lambda x, dim=None, **_: f"{base}Backward0" if dim is None else f"{base}Backward1"


def _prod_jvp(t, x, ans, dim, keepdim):
    """Σ_i t_i ∂Πx/∂x_i"""
    return sum_op(_prod_vjp(ans * 0 + 1, x, ans, dim, keepdim) * t, dim=dim, keepdim=keepdim)


prod_op = defop(
    "prod",
    _prod,
    dtypes=KEEP,
    node=_reduction_node("Prod"),
    vjp=_prod_vjp,
    jvp=_prod_jvp,
    conventions=(
        "Exact with zeros: the gradient at x_i is the product of the other entries, so "
        "with one zero only that entry gets a gradient, and with two or more none does."
    ),
)

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
    return flip_along(cumsum_op(flip_along(g, dim=dim), dim=dim), dim=dim)


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
    last = _arr(xs).ndim - 1
    n = _arr(xs).shape[-1]
    k = xp.arange(n).reshape(n, 1)
    i = xp.arange(n).reshape(1, n)
    rows = reshape(xs, _arr(xs).shape[:-1] + (1, n))
    after_k = cumprod_op(_where(i > k, rows, 1.0), dim=last + 1)  # [k, i] = Π_(k<j≤i) x_j
    before = shift_along(cumprod_op(xs, dim=last), dim=last, fill=1.0)  # Π_(j<k) x_j
    before = reshape(before, _arr(xs).shape + (1,))
    return _where(i >= k, before * after_k, 0.0)


def _cumprod_vjp(g, x, ans, dim):
    """∂y_i/∂x_k = Π_(j≤i, j≠k) x_j (k ≤ i): (Σ_(i≥k) g_i y_i) / x_k without zeros"""
    # as PyTorch computes it; with zeros, the Jacobian itself (no division)
    a = _arr(x)
    if a.ndim == 0:
        return g
    if not (a == 0).any():
        return _reverse_cumsum(g * ans, dim) / x
    order, back = _last_axis_order(a.ndim, dim)
    w = _cumprod_jacobian(permute(x, dims=order))
    gs = permute(g, dims=order)
    gk = reshape(gs, _arr(gs).shape[:-1] + (1, a.shape[dim]))
    return permute(sum_op(w * gk, dim=a.ndim), dims=back)


def _cumprod_jvp(t, x, ans, dim):
    """J t = y_i Σ_(k≤i) t_k / x_k without zeros; with zeros, Σ_k (∂y_i/∂x_k) t_k"""
    a = _arr(x)
    if a.ndim == 0:
        return t
    if not (a == 0).any():
        return ans * cumsum_op(t / x, dim=dim)
    order, back = _last_axis_order(a.ndim, dim)
    w = _cumprod_jacobian(permute(x, dims=order))
    ts = permute(t, dims=order)
    tk = reshape(ts, _arr(ts).shape + (1,))
    return permute(sum_op(w * tk, dim=a.ndim - 1), dims=back)


cumprod_op = defop(
    "cumprod",
    _cumprod,
    dtypes=KEEP,
    vjp=_cumprod_vjp,
    jvp=lambda t, x, ans, dim, dtype: _cumprod_jvp(t, x, ans, dim),  # Jacobian × tangent
    conventions="Exact with zeros (no division where an entry is 0).",
)


# ===== amax, amin, and the full max, min, median: the gradient shared among ties =============


def _share(x, ans, dim, keepdim, nan_ties: bool):
    """Each entry's share of the gradient: 1/count where x equals the result, else 0."""
    xa = _arr(x)
    full = _arr(unreduce(_arr(ans), xa.shape, dim, keepdim))
    hit = xa == full
    if nan_ties:
        hit = hit | (xp.isnan(xa) & xp.isnan(full))
    hit = hit.astype(xa.dtype)
    axes = dims_of(dim, xa.ndim)
    count = xp.sum(hit, axis=axes, keepdims=True)
    return hit / count  # 0/0 = nan where no entry equals a nan result (amax's nan case)


def _sharing(name: str, forward, node, nan_ties: bool, conventions: str):
    def vjp(g, x, ans, dim, keepdim):
        """∂max/∂x_i = 1/count for the count entries equal to the result, else 0"""
        return unreduce(g, _arr(x).shape, dim, keepdim) * _share(x, ans, dim, keepdim, nan_ties)

    def jvp(t, x, ans, dim, keepdim):
        """the mean of the tangents of the entries equal to the result"""
        return sum_op(t * _share(x, ans, dim, keepdim, nan_ties), dim=dim, keepdim=keepdim)

    return defop(name, forward, dtypes=KEEP, node=node, vjp=vjp, jvp=jvp, conventions=conventions)


def _extreme(np_fn, name: str):
    def forward(x, dim=None, keepdim=False):
        axes = dims_of(dim, x.ndim)
        if x.size == 0:
            if axes is None:
                raise _no_identity(name, x, None)
            for a in axes:
                if x.shape[a] == 0:
                    raise _no_identity(name, x, a)
        if axes is None:
            out = np_fn(x)
            return xp.asarray(out).reshape((1,) * x.ndim if keepdim else ())
        return xp.asarray(np_fn(x, axis=axes, keepdims=keepdim))

    forward.__doc__ = f"{name} of x over dim (all dims when None); nan propagates"
    return forward


def _no_identity(name: str, x, axis):
    if axis is None:
        return RuntimeError(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
        )
    return IndexError(f"{name}(): Expected reduction dim {axis} to have non-zero size.")


_SHARED = "Entries tying for the result share its gradient equally."
amax_op = _sharing(
    "amax",
    _extreme(xp.max, "amax"),
    "AmaxBackward0",
    False,
    _SHARED + " Where the result is nan every entry's gradient is nan (PyTorch's).",
)
amin_op = _sharing(
    "amin",
    _extreme(xp.min, "amin"),
    "AminBackward0",
    False,
    _SHARED + " Where the result is nan every entry's gradient is nan (PyTorch's).",
)
max_all_op = _sharing(
    "max",
    _extreme(xp.max, "max"),
    "MaxBackward1",
    True,
    _SHARED + " A nan result shares it among the nan entries.",
)
min_all_op = _sharing(
    "min",
    _extreme(xp.min, "min"),
    "MinBackward1",
    True,
    _SHARED + " A nan result shares it among the nan entries.",
)

_NAN_ALL = " Where the result is nan every entry's gradient is nan (PyTorch's)."
aminmax_min_op = _sharing(
    "aminmax_min", _extreme(xp.min, "aminmax"), "AminmaxBackward0", False, _SHARED + _NAN_ALL
)
aminmax_max_op = _sharing(
    "aminmax_max", _extreme(xp.max, "aminmax"), "AminmaxBackward0", False, _SHARED + _NAN_ALL
)


def _median_all(x, dim=None, keepdim=False):
    """the lower median of all entries (the ⌊(n-1)/2⌋-th smallest); nan if any is nan"""
    flat = xp.sort(x.reshape(-1))
    if flat.size == 0:
        return xp.asarray(xp.nan, dtype=x.dtype)
    if flat.dtype.kind == "f" and xp.isnan(flat[-1]):
        return xp.asarray(flat[-1])
    return xp.asarray(flat[(flat.size - 1) // 2])


median_all_op = _sharing(
    "median",
    _median_all,
    "MedianBackward0",
    True,
    _SHARED + " A nan result shares it among the nan entries.",
)


def _nanmedian_all(x, dim=None, keepdim=False):
    """the lower median of the entries that are not nan; nan if all are"""
    flat = x.reshape(-1)
    if flat.dtype.kind == "f":
        flat = flat[~xp.isnan(flat)]
    if flat.size == 0:
        return xp.asarray(xp.nan, dtype=x.dtype)
    return xp.asarray(xp.sort(flat)[(flat.size - 1) // 2])


nanmedian_all_op = _sharing(
    "nanmedian",
    _nanmedian_all,
    "NanmedianBackward0",
    True,
    _SHARED + " With every entry nan, the nan entries share it.",
)

# ===== var and std ==========================================================================


def _var(x, dim=None, correction=1, keepdim=False):
    """Σ (x - mean x)² / (N - correction) over dim"""
    axes = dims_of(dim, x.ndim)
    n = x.size if axes is None else math.prod(x.shape[a] for a in axes)
    dof = n - correction if n > correction else 0.0
    if axes is None:
        m = xp.mean(x) if x.size else xp.asarray(xp.nan, dtype=x.dtype)
        out = xp.sum((x - m) ** 2) / x.dtype.type(dof) if dof else xp.asarray(xp.nan)
        out = xp.asarray(out, dtype=x.dtype)
        return out.reshape((1,) * x.ndim) if keepdim else out
    with xp.errstate(all="ignore"):
        m = xp.mean(x, axis=axes, keepdims=True)
        s = xp.sum((x - m) ** 2, axis=axes, keepdims=keepdim)
        out = s / x.dtype.type(dof) if dof else s * xp.nan
    return xp.asarray(out, dtype=x.dtype)


def _var_vjp(g, x, dim, correction, keepdim):
    """∂var/∂x_i = 2 (x_i - mean x) / (N - correction)"""
    shape = _arr(x).shape
    dof = _count(shape, dim) - correction
    centred = x - mean(x, dim=dim, keepdim=True)
    return unreduce(g, shape, dim, keepdim) * centred * (2.0 / dof if dof > 0 else math.nan)


def _var_jvp(t, x, dim, correction, keepdim):
    """Σ_i t_i 2 (x_i - mean x) / (N - correction)"""
    n = _count(_arr(x).shape, dim)
    dof = n - correction
    centred = x - mean(x, dim=dim, keepdim=True)
    # over an empty slice (N = 0) the tangent is an empty sum, 0 (PyTorch's), not nan
    scale = 2.0 / dof if dof > 0 else (0.0 if n == 0 else math.nan)
    return sum_op(centred * t, dim=dim, keepdim=keepdim) * scale


var_op = defop(
    "var",
    _var,
    dtypes=KEEP,
    vjp=_var_vjp,
    jvp=_var_jvp,
    conventions="With N - correction <= 0 the value and gradient are nan (PyTorch warns); "
    "the forward-mode tangent over an empty slice is 0.",
)


def _std(x, dim=None, correction=1, keepdim=False):
    """√var(x)"""
    return xp.sqrt(_var(x, dim=dim, correction=correction, keepdim=keepdim))


def _inverse_or_zero(ans):
    # 1/(2 std), 0 where std = 0: PyTorch's gradient of std at a constant input is 0
    a = _arr(ans)
    return _where(a == 0, 0.0, 0.5 / _where(a == 0, 1.0, ans))


std_op = defop(
    "std",
    _std,
    dtypes=KEEP,
    vjp=lambda g, x, ans, dim, correction, keepdim: _var_vjp(  # ∂std = ∂var / (2 std)
        g * _inverse_or_zero(ans), x, dim, correction, keepdim
    ),
    jvp=lambda t, x, ans, dim, correction, keepdim: (
        _var_jvp(t, x, dim, correction, keepdim) * _inverse_or_zero(ans)
    ),
    conventions="Where std is 0 (a constant input) the gradient is 0, as in PyTorch.",
)

# ===== named tuples, as torch.return_types ===================================================


def _return_type(name: str):
    class ReturnType(NamedTuple):
        values: Tensor
        indices: Tensor

        def __repr__(self) -> str:
            return f"torch.return_types.{name}(\nvalues={self.values!r},\nindices={self.indices!r})"

    ReturnType.__name__ = ReturnType.__qualname__ = name
    ReturnType.__module__ = "torch.return_types"
    return ReturnType


_MAX, _MIN, _SORT, _TOPK, _KTHVALUE, _MODE = (
    _return_type(n) for n in ("max", "min", "sort", "topk", "kthvalue", "mode")
)


def _index_tensor(index, dim: int, keepdim: bool, ndim: int) -> Tensor:
    out = index if keepdim or ndim == 0 else xp.squeeze(index, axis=dim)
    return wrap(xp.asarray(out, dtype=xp.int64))


def _require_tensor(fn: str, value) -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(
            f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(value).__name__}"
        )
    return value


# ===== public functions ======================================================================


def prod(input, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A002
    """Π input (over one dim when given). Exact gradient with zeros in the input."""
    _require_tensor("prod", input)
    if dim is not None and not isinstance(dim, int):
        raise TypeError(
            f"prod(): argument 'dim' (position 2) must be int, not {type(dim).__name__}"
        )
    if dim is not None:
        _axis(dim, input.ndim)
    return prod_op(input, dim=dim, keepdim=keepdim, dtype=dtype)


def _arg_extreme(input, dim, keepdim: bool, largest: bool, name: str = ""):
    """Index of the max (min) along dim: the first one; a nan counts as the extreme."""
    data = input._data
    name = name or ("argmax" if largest else "argmin")
    if dim is None:
        if data.size == 0:
            raise IndexError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
            )
        flat = data.reshape(-1)
        i = xp.argmax(flat) if largest else xp.argmin(flat)
        return xp.asarray(i, dtype=xp.int64).reshape((1,) * data.ndim if keepdim else ())
    axis = _axis(dim, data.ndim)
    a = _as_1d(data)
    if a.shape[axis] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {axis} to have non-zero size.")
    i = (
        xp.argmax(a, axis=axis, keepdims=True)
        if largest
        else xp.argmin(a, axis=axis, keepdims=True)
    )
    if data.ndim == 0:
        return i.reshape(())
    return i if keepdim else xp.squeeze(i, axis=axis)


def _no_bool(fn: str, input, message: str | None = None) -> None:
    if input._dtype.name == "bool":
        raise (RuntimeError if message else NotImplementedError)(
            message or f"\"{fn}\" not implemented for 'Bool'"
        )


def argmax(input, dim=None, keepdim=False, *, out=None):  # noqa: A002
    """The index of the largest entry (of the flattened input when dim is None); the first
    on ties; a nan counts as largest."""
    _no_bool("argmax", input, "argmax(): does not support bool input")
    return wrap(xp.asarray(_arg_extreme(input, dim, keepdim, True), dtype=xp.int64))


def argmin(input, dim=None, keepdim=False, *, out=None):  # noqa: A002
    """The index of the smallest entry; the first on ties; a nan counts as smallest."""
    _no_bool("argmin", input, "argmin(): does not support bool input")
    return wrap(xp.asarray(_arg_extreme(input, dim, keepdim, False), dtype=xp.int64))


def _max_min(name: str, all_op, dim_op, pair, binary, largest: bool):
    def function(input, dim=None, keepdim=False, *, out=None):  # noqa: A002
        _require_tensor(name, input)
        if isinstance(dim, Tensor):  # max(input, other): the elementwise maximum
            return binary(input, dim)
        if dim is None:
            if keepdim:
                raise TypeError(f"{name}() received an invalid combination of arguments")
            return all_op(input)
        axis = _axis(dim, input.ndim)
        index = _arg_extreme(input, dim, True, largest, name)
        values = dim_op(input, index=index, dim=axis, keepdim=keepdim)
        return pair(values, _index_tensor(index, axis, keepdim, input.ndim))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = (
        f"{name}(input): the {name} of all entries (ties share the gradient equally); "
        f"{name}(input, dim, keepdim=False): a named tuple (values, indices), the first "
        f"index on ties, the gradient to that index; {name}(input, other): the elementwise "
        f"{'maximum' if largest else 'minimum'}."
    )
    return function


def _binary(op_name: str):
    def binary(input, other):
        from . import pointwise

        return getattr(pointwise, op_name)(input, other)

    return binary


max = _max_min("max", max_all_op, max_dim_op, _MAX, _binary("maximum"), True)  # noqa: A001
min = _max_min("min", min_all_op, min_dim_op, _MIN, _binary("minimum"), False)  # noqa: A001


def _amax_amin(name: str, op):
    def function(input, dim=(), keepdim=False, *, out=None):  # noqa: A002
        _require_tensor(name, input)
        if isinstance(dim, list):
            dim = tuple(dim)
        if dim == ():
            dim = None
        dims_of(dim, input.ndim)
        return op(input, dim=dim, keepdim=keepdim)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = (
        f"The {name[1:]} over dim (an int or a tuple; every dim by default). Entries tying "
        "for it share the gradient equally."
    )
    return function


amax = _amax_amin("amax", amax_op)
amin = _amax_amin("amin", amin_op)


def _parse_correction(fn: str, dim, unbiased, correction):
    """(dim, correction) from PyTorch's var/std overloads: var(x, unbiased), var(x, dim,
    unbiased, keepdim), var(x, dim, *, correction, keepdim)."""
    if isinstance(dim, bool):
        if unbiased is not None:
            raise TypeError(f"{fn}() received an invalid combination of arguments")
        unbiased, dim = dim, None
    if isinstance(dim, list):
        dim = tuple(dim)
    if unbiased is not None and correction is not None:
        raise TypeError(
            f"{fn}() received an invalid combination of arguments: unbiased and correction "
            "cannot both be given"
        )
    if correction is None:
        correction = 0 if unbiased is False else 1
    return dim, correction


def _warn_dof(fn: str, input, dim, correction) -> None:
    if _count(tuple(input.shape), dim) - correction <= 0:
        warnings.warn(
            f"{fn}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=3,
        )


def _var_std(fn: str, op):
    def function(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):  # noqa: A002
        _require_tensor(fn, input)
        dim, correction = _parse_correction(fn, dim, unbiased, correction)
        if input._dtype._category != 2:
            raise RuntimeError("std and var only support floating point and complex dtypes")
        if dim == ():
            dim = None
        dims_of(dim, input.ndim)
        _warn_dof(fn, input, dim, correction)
        return op(input, dim=dim, correction=correction, keepdim=keepdim)

    function.__name__ = function.__qualname__ = fn
    function.__doc__ = (
        f"The {'variance' if fn == 'var' else 'standard deviation'} over dim, dividing by "
        "N - correction (correction=1, Bessel's, by default; unbiased=False means 0)."
    )
    return function


var = _var_std("var", var_op)
std = _var_std("std", std_op)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):  # noqa: A002
    """(var, mean) over dim, as two tensors (each with its own gradient node)."""
    v = var(input, dim, unbiased, keepdim, correction=correction)
    d = None if isinstance(dim, bool) or dim == () else dim
    return v, mean(input, dim=dims_of(d, input.ndim) if d is not None else None, keepdim=keepdim)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):  # noqa: A002
    """(std, mean) over dim, as two tensors."""
    s = std(input, dim, unbiased, keepdim, correction=correction)
    d = None if isinstance(dim, bool) or dim == () else dim
    return s, mean(input, dim=dims_of(d, input.ndim) if d is not None else None, keepdim=keepdim)


def _cumulative(name: str, op):
    def function(input, dim, *, dtype=None, out=None):  # noqa: A002
        _require_tensor(name, input)
        axis = _axis(dim, input.ndim)
        return op(input, dim=axis, dtype=dtype)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = (
        f"The cumulative {'sum' if name == 'cumsum' else 'product'} along dim; integers "
        "and bools accumulate in int64."
    )
    return function


cumsum = _cumulative("cumsum", cumsum_op)
cumprod = _cumulative("cumprod", cumprod_op)


def _stable_order(data, axis: int, descending: bool):
    """Indices that sort ``data`` along axis, equal entries in their original order; nan is
    the largest value."""
    if data.dtype.kind == "b":
        data = data.astype(xp.int8)
    if not descending:
        return xp.argsort(data, axis=axis, kind="stable")
    n = data.shape[axis]
    rev = xp.argsort(xp.flip(data, axis=axis), axis=axis, kind="stable")
    return (n - 1) - xp.flip(rev, axis=axis)


def sort(input, dim=-1, descending=False, stable=False, *, out=None):  # noqa: A002
    """(values, indices) sorted along dim; always stable, nan sorted as the largest."""
    _require_tensor("sort", input)
    if isinstance(dim, bool):  # sort(input, stable, dim, descending) is not supported
        raise TypeError("sort(): argument 'dim' must be int, not bool")
    axis = _axis(dim, input.ndim)
    data = _as_1d(input._data)
    index = _stable_order(data, axis, descending)
    if input.ndim == 0:
        index = index.reshape(())
    values = sort_op(input, index=index, dim=axis, keepdim=True)
    return _SORT(values, wrap(xp.asarray(index, dtype=xp.int64)))


def argsort(input, dim=-1, descending=False, stable=False):  # noqa: A002
    """The indices that sort input along dim (stable, nan as the largest)."""
    return sort(input, dim, descending, stable).indices


def msort(input, *, out=None):  # noqa: A002
    """input sorted along its first dim."""
    return sort(input, 0).values


def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):  # noqa: A002
    """(values, indices) of the k largest (smallest) entries along dim, largest first
    (smallest first); among ties the lowest indices first. Always sorted."""
    _require_tensor("topk", input)
    _no_bool("topk", input, "topk does not support bool dtypes on CPU")
    axis = _axis(dim, input.ndim)
    data = _as_1d(input._data)
    k = int(k)
    if not 0 <= k <= data.shape[axis]:
        raise RuntimeError("selected index k out of range")
    order = _stable_order(data, axis, largest)
    index = xp.take(order, xp.arange(k), axis=axis)
    if input.ndim == 0:
        index = index.reshape(())
    values = topk_op(input, index=index, dim=axis, keepdim=True)
    return _TOPK(values, wrap(xp.asarray(index, dtype=xp.int64)))


def _median(name: str, all_op, dim_op, skip_nan: bool):
    def function(input, dim=None, keepdim=False, *, out=None):  # noqa: A002
        _require_tensor(name, input)
        _no_bool(f"{name}_cpu" if dim is None else f"{name}_out", input)
        if dim is None:
            return all_op(input)
        axis = _axis(dim, input.ndim)
        data = _as_1d(input._data)
        n = data.shape[axis]
        if n == 0:
            raise IndexError(f"{name}(): Expected reduction dim {axis} to have non-zero size.")
        order = _stable_order(data, axis, False)  # nan last
        pos = xp.full(data.shape[:axis] + (1,) + data.shape[axis + 1 :], (n - 1) // 2)
        if data.dtype.kind == "f":
            finite = xp.sum(~xp.isnan(data), axis=axis, keepdims=True)
            if skip_nan:  # the median of the non-nan entries (all nan: the middle one)
                pos = xp.where(finite > 0, (finite - 1) // 2, pos)
            else:  # a nan in the slice: the result is its first nan
                pos = xp.where(finite < n, finite, pos)
        index = xp.take_along_axis(order, pos, axis=axis)
        if input.ndim == 0:
            index = index.reshape(())
        values = dim_op(input, index=index, dim=axis, keepdim=keepdim)
        return pair(values, _index_tensor(index, axis, keepdim, input.ndim))

    pair = _return_type(name)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = (
        f"{name}(input): the lower median of all {'non-nan ' if skip_nan else ''}entries "
        f"(ties share the gradient); {name}(input, dim, keepdim=False): (values, indices), "
        "the gradient to that index."
    )
    return function


median = _median("median", median_all_op, median_dim_op, False)
nanmedian = _median("nanmedian", nanmedian_all_op, nanmedian_dim_op, True)


def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):  # noqa: A002
    """(values, indices): the k-th smallest entry along dim (k from 1); the gradient goes
    to that index."""
    _require_tensor("kthvalue", input)
    _no_bool("kthvalue_cpu", input)
    axis = _axis(dim, input.ndim)
    data = _as_1d(input._data)
    n = data.shape[axis]
    k = int(k)
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {axis}")
    order = _stable_order(data, axis, False)
    index = xp.take(order, [k - 1], axis=axis)
    if input.ndim == 0:
        index = index.reshape(())
    values = kthvalue_op(input, index=index, dim=axis, keepdim=keepdim)
    return _KTHVALUE(values, _index_tensor(index, axis, keepdim, input.ndim))


def _mode_index(data, axis: int):
    """Per slice along axis: the index of the last occurrence of the most frequent value
    (the smallest such value)."""
    moved = xp.moveaxis(data, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    out = xp.empty(rows.shape[0], dtype=xp.int64)
    n = rows.shape[1]
    for r, row in enumerate(rows):
        values, counts = xp.unique(row, return_counts=True)
        value = values[xp.argmax(counts)]
        same = (
            (row == value) | (xp.isnan(row) & xp.isnan(value))
            if row.dtype.kind == "f"
            else row == value
        )
        out[r] = n - 1 - xp.argmax(same[::-1])
    index = out.reshape(moved.shape[:-1] + (1,))
    return xp.moveaxis(index, -1, axis)


def mode(input, dim=-1, keepdim=False, *, out=None):  # noqa: A002
    """(values, indices): the most frequent entry along dim (the smallest of equally frequent
    ones) and its last index; the gradient goes to that index."""
    _require_tensor("mode", input)
    axis = _axis(dim, input.ndim)
    data = _as_1d(input._data)
    if data.shape[axis] == 0:
        raise IndexError(f"mode(): Expected reduction dim {axis} to have non-zero size.")
    index = _mode_index(data, axis)
    if input.ndim == 0:
        index = index.reshape(())
    values = mode_op(input, index=index, dim=axis, keepdim=keepdim)
    return _MODE(values, _index_tensor(index, axis, keepdim, input.ndim))


def _running_index(data, axis: int, largest: bool):
    """For cummax (cummin): the index each running extreme was read from, the latest among
    ties, the latest nan once a nan has been seen."""
    if data.dtype.kind == "b":
        data = data.astype(xp.int8)
    acc = (xp.maximum if largest else xp.minimum).accumulate(data, axis=axis)
    hit = data == acc
    if data.dtype.kind == "f":
        hit |= xp.isnan(data)
    shape = [1] * data.ndim
    shape[axis] = data.shape[axis]
    positions = xp.arange(data.shape[axis]).reshape(shape)
    return xp.maximum.accumulate(xp.where(hit, positions, 0), axis=axis)


def _cum_extreme(name: str, op, largest: bool, pair):
    def function(input, dim, *, out=None):  # noqa: A002
        _require_tensor(name, input)
        axis = _axis(dim, input.ndim)
        data = _as_1d(input._data)
        index = _running_index(data, axis, largest) if data.size else xp.zeros(data.shape, xp.int64)
        if input.ndim == 0:
            index = index.reshape(())
        values = op(input, index=index, dim=axis)
        return pair(values, wrap(xp.asarray(index, dtype=xp.int64)))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = (
        f"(values, indices): the running {name[3:]} along dim and where each was read (the "
        "latest among ties); the gradient adds up at those indices."
    )
    return function


_CUMMAX, _CUMMIN = _return_type("cummax"), _return_type("cummin")
cummax = _cum_extreme("cummax", cummax_op, True, _CUMMAX)
cummin = _cum_extreme("cummin", cummin_op, False, _CUMMIN)


def logcumsumexp(input, dim, *, out=None):  # noqa: A002
    """log Σ_(j≤i) e^(x_j) along dim, stable for large |x|."""
    _require_tensor("logcumsumexp", input)
    if input._dtype._category != 2:
        name = _TORCH_NAME.get(input._dtype.name, input._dtype.name)
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for '{name}'")
    return logcumsumexp_op(input, dim=_axis(dim, input.ndim))


def _dims_arg(dim):
    if isinstance(dim, list):
        dim = tuple(dim)
    return None if dim == () else dim


def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A002
    """Σ input over dim, nan counted as 0 (nan entries get no gradient)."""
    _require_tensor("nansum", input)
    dim = _dims_arg(dim)
    dims_of(dim, input.ndim)
    return nansum_op(input, dim=dim, keepdim=keepdim, dtype=dtype)


def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A002
    """The mean over dim of the entries that are not nan: nansum / their count."""
    _require_tensor("nanmean", input)
    if input._dtype._category != 2 and dtype is None:
        raise RuntimeError(
            "nanmean(): expected input to have floating point or complex dtype but got "
            f"{_TORCH_NAME.get(input._dtype.name, input._dtype.name)}"
        )
    dim = _dims_arg(dim)
    axes = dims_of(dim, input.ndim)
    count = xp.sum(~xp.isnan(input._data), axis=axes, keepdims=keepdim)
    total = nansum(input, dim, keepdim, dtype=dtype)
    return total / wrap(xp.asarray(count, dtype=total._data.dtype))


_TORCH_NAME = {
    "int64": "Long",
    "int32": "Int",
    "int16": "Short",
    "int8": "Char",
    "uint8": "Byte",
    "bool": "Bool",
}


class _AminmaxResult(NamedTuple):
    min: Tensor
    max: Tensor

    def __repr__(self) -> str:
        return f"torch.return_types.aminmax(\nmin={self.min!r},\nmax={self.max!r})"


_AminmaxResult.__name__ = _AminmaxResult.__qualname__ = "aminmax"


def aminmax(input, *, dim=None, keepdim=False, out=None):  # noqa: A002
    """(min, max) over dim (every dim when None); ties share each gradient equally."""
    _require_tensor("aminmax", input)
    if dim is not None:
        dim = _axis(dim, input.ndim)
    return _AminmaxResult(
        aminmax_min_op(input, dim=dim, keepdim=keepdim),
        aminmax_max_op(input, dim=dim, keepdim=keepdim),
    )


def count_nonzero(input, dim=None):  # noqa: A002
    """The number of nonzero entries over dim (an int or a tuple), as int64."""
    _require_tensor("count_nonzero", input)
    dim = _dims_arg(dim)
    axes = dims_of(dim, input.ndim)
    return wrap(xp.asarray(xp.count_nonzero(input._data, axis=axes), dtype=xp.int64))


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):  # noqa: A002
    """torch.norm: the vector p-norm over dim (every entry when None) for a number p or
    'fro'; p='nuc' is the nuclear norm of the matrices over dim (the last two by default)."""
    _require_tensor("norm", input)
    if isinstance(dim, list):
        dim = tuple(dim)
    if isinstance(dim, int):
        dim = (dim,)
    if isinstance(p, str):
        if p == "nuc":
            from .linalg_fns import matrix_norm

            return matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
        if p != "fro":
            raise RuntimeError(f"norm(): the p argument '{p}' is not supported")
        p = 2
    elif p is None:
        p = 2
    x = input if dtype is None else input.to(dtype)
    dims_of(dim, x.ndim)
    from .reductions import vector_norm

    return vector_norm(x, ord=p, dim=dim, keepdim=keepdim)


def _norm_method(self, p="fro", dim=None, keepdim=False, dtype=None):
    return norm(self, p, dim, keepdim, dtype=dtype)


def _logical_reduction(name: str, np_fn):
    def function(input, dim=None, keepdim=False, *, out=None):  # noqa: A002
        _require_tensor(name, input)
        if isinstance(dim, list):
            dim = tuple(dim)
        axes = dims_of(dim, input.ndim)
        data = input._data
        result = np_fn(data, axis=axes, keepdims=keepdim)
        if dim is None and keepdim:
            result = xp.asarray(result).reshape((1,) * data.ndim)
        # PyTorch keeps uint8 for uint8 inputs; every other dtype gives bool
        return wrap(xp.asarray(result, dtype=xp.uint8 if data.dtype == xp.uint8 else xp.bool_))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = (
        f"True where {'every' if name == 'all' else 'some'} entry over dim (an int or a "
        "tuple; every dim by default) is nonzero. bool, or uint8 for a uint8 input."
    )
    return function


all = _logical_reduction("all", xp.all)  # noqa: A001
any = _logical_reduction("any", xp.any)  # noqa: A001


__all__: list[str] = [
    "all", "amax", "amin", "aminmax", "any", "argmax", "argmin", "argsort", "count_nonzero",
    "cummax", "cummin", "cumprod", "cumsum", "kthvalue", "logcumsumexp", "max", "median", "min",
    "mode", "msort", "nanmean", "nanmedian", "nansum", "norm", "prod", "sort", "std", "std_mean",
    "topk", "var", "var_mean",
]  # fmt: skip


def _cumulative_method(fn):
    def method(self, dim, *, dtype=None):
        return fn(self, dim, dtype=dtype)

    method.__name__ = fn.__name__
    return method


TENSOR_METHODS: dict = {
    "aminmax": aminmax,
    "count_nonzero": count_nonzero,
    "cummax": cummax,
    "cummin": cummin,
    "kthvalue": kthvalue,
    "logcumsumexp": logcumsumexp,
    "mode": mode,
    "nanmean": nanmean,
    "nansum": nansum,
    "nanmedian": nanmedian,
    "norm": _norm_method,
    "all": all,
    "any": any,
    "amax": amax,
    "amin": amin,
    "argmax": argmax,
    "argmin": argmin,
    "argsort": argsort,
    "cumsum": cumsum,
    "cumprod": cumprod,
    "cumsum_": inplace(_cumulative_method(cumsum)),
    "cumprod_": inplace(_cumulative_method(cumprod)),
    "max": max,
    "min": min,
    "median": median,
    "msort": msort,
    "prod": prod,
    "sort": sort,
    "std": std,
    "topk": topk,
    "var": var,
}
