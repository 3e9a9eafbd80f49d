"""sorting: TODO docstring."""

from __future__ import annotations

from .._backend import xp
from .._dtypes import float64
from ..autograd.recording import KEEP, defop
from . import copies, reductions, unary

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
        return reductions._as_1d(x)[reductions._as_1d(index)].reshape(index.shape)
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
    a = reductions._arr(v)
    keep = a > 0 if positive else a < 0
    lowest = float(xp.finfo(a.dtype).min) if a.dtype.kind == "f" else -1e308
    safe = reductions._where(keep, v, 1.0) if positive else reductions._where(keep, -v, 1.0)
    return reductions._where(keep, unary.log(safe), lowest)


def _logcumsumexp_vjp(g, x, ans, dim):
    """∂y_i/∂x_k = e^(x_k - y_i) for k ≤ i: Σ_(i≥k) g_i e^(x_k - y_i), split by sign of g"""
    if reductions._arr(x).ndim == 0:
        return g
    flipped = flip_along(ans, dim=dim)
    total = 0.0
    for positive in (True, False):
        part = flip_along(_log_part(g, positive), dim=dim) - flipped
        rev = flip_along(logcumsumexp_op(part, dim=dim), dim=dim)
        term = unary.exp(rev + x)
        total = total + term if positive else total - term
    return total


def _logcumsumexp_jvp(t, x, ans, dim):
    """Σ_(k≤i) t_k e^(x_k - y_i), split by the sign of t"""
    if reductions._arr(x).ndim == 0:
        return t
    if reductions._arr(x).dtype != xp.float64:
        # formed in float64 (the tangent is cast back to x's dtype): in float32,
        # log|t_k| + x_k and y_i round at the scale of x (~5e-4 near 1e4), and so
        # would every term, relatively
        x, t = copies.to_dtype(x, dtype=float64), copies.to_dtype(t, dtype=float64)
        ans = logcumsumexp_op(x, dim=dim)
    pos = logcumsumexp_op(_log_part(t, True) + x, dim=dim)
    neg = logcumsumexp_op(_log_part(t, False) + x, dim=dim)
    return unary.exp(pos - ans) - unary.exp(neg - ans)


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
    return reductions._sum(x, dim=dim, keepdim=keepdim, dtype=dtype)


nansum_op = defop(
    "nansum",
    _nansum,
    dtypes=KEEP,
    # ∂/∂x_i = 1 where x_i is not nan, else 0
    # (a product, not a where: a nan or inf g stays nan at nan entries, as in PyTorch)
    vjp=lambda g, x, dim, keepdim: (
        reductions.unreduce(g, reductions._arr(x).shape, dim, keepdim)
        * (~xp.isnan(reductions._arr(x))).astype(reductions._arr(x).dtype)
    ),
    jvp=lambda t, x, dim, keepdim, dtype: reductions.sum(
        reductions._where(xp.isnan(reductions._arr(x)), 0.0, t),
        dim=dim,
        keepdim=keepdim,
        dtype=dtype,
    ),
    conventions="nan entries get a gradient of 0.",
)
