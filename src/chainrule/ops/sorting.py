"""Selections by value along a dim: sort, topk, kthvalue, mode, median and max/min
with dim.

Each is one op that reads the input at the indices the forward found (``_selecting``); its
VJP writes the gradient back at those indices (a scatter), so the gradient goes to the
entry whose index is returned, as in PyTorch."""

from __future__ import annotations

from .._backend import ndarray, xp
from ..autograd.recording import KEEP, defop, no_forward_ad, not_differentiable, np_dtype
from . import gather_scatter, reductions, shapes

# ----- shifting along a dim, and the selecting ops ------------------------------------------


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
    vjp=lambda g, dim: unshift_along(g, dim=dim),  # ∂out_i/∂x_j = [j = i - 1]: g moves back one
    jvp=lambda t, dim: shift_along(t, dim=dim, fill=0.0),  # J t = t moved forward one, 0 first
    complex="wirtinger",
)

unshift_along = defop(
    "unshift_along",
    _unshift,
    dtypes=KEEP,
    node="CatBackward0",
    vjp=lambda g, dim: shift_along(g, dim=dim, fill=0.0),  # ∂out_i/∂x_j = [j = i + 1]
    jvp=lambda t, dim: unshift_along(t, dim=dim),  # J t = t moved back one, 0 last
    complex="wirtinger",
)


def _take_along(x, index=None, dim=0, keepdim=True):
    """x's entries at ``index`` along dim (index has x's shape but along dim)"""
    n = x.ndim
    if n == 0:
        return reductions._as_1d(x)[reductions._as_1d(index)].reshape(index.shape)
    if x.__class__ is ndarray and index.__class__ is ndarray and index.ndim == n and 0 <= dim < n:
        # take_along_axis's own indexing, its Python checks and index making skipped: the
        # positions along the other dims kept per shape
        out = x[gather_scatter.positions(x.shape, dim, index)]
    else:
        out = xp.take_along_axis(x, index, axis=dim)
    return out if keepdim else out.squeeze(dim)


def _take_along_vjp(g, x_shape, index, dim, keepdim):
    """∂x[index]/∂x = 1 at the picked entry: g is written back where it was read (zeros
    elsewhere), as PyTorch's value_selecting_reduction_backward."""
    if not keepdim:
        g = shapes.unsqueeze(g, dim=dim)
    return gather_scatter.scatter(xp.zeros(x_shape, dtype=np_dtype(g)), index, g, dim=dim)


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
        jvp=lambda t, index, dim, keepdim: gather_along(t, index, dim, keepdim),  # J t = t[index]
        conventions=conventions,
        complex="refuse",  # (a 0-d complex kthvalue: PyTorch's error; the rest refuse complex)
    )


def gather_along(t, index, dim: int, keepdim: bool):
    """t's entries at ``index`` (keepdim-shaped) along dim: a gather, squeezed when not
    keepdim (PyTorch's gather_with_keepdimed_indices)."""
    out = gather_scatter.gather(t, index, dim=dim)
    return out if keepdim else shapes.squeeze(out, dims=(dim,), variant=1)


max_dim = _selecting("max_dim", "MaxBackward0", "the max along dim, at its (first) index")

min_dim = _selecting("min_dim", "MinBackward0", "the min along dim, at its (first) index")

median_dim = _selecting("median_dim", "MedianBackward1", "the lower median along dim, at its index")

nanmedian_dim = _selecting(
    "nanmedian_dim", "NanmedianBackward1", "the lower median of the non-nan entries along dim"
)

sort = _selecting(
    "sort",
    "SortBackward0",
    "x sorted along dim (the entries at the sorting indices)",
    "Each entry's gradient comes from the place it was sorted to. Equal entries keep their "
    "order (chainrule always sorts stably); nan sorts as the largest value. PyTorch's "
    "stable=False sort may order equal entries differently in slices longer than 16, and "
    "then the gradient of tied values sits on other (equal) entries.",
)

topk = _selecting(
    "topk",
    "TopkBackward0",
    "the k largest (or smallest) entries along dim, at their indices",
    "The gradient goes to the returned indices. Among tied entries chainrule returns the "
    "lowest indices first (a stable order); PyTorch's CPU kernel may return other tied "
    "indices, so with ties the gradient may sit on different (equal) entries.",
)

kthvalue = _selecting(
    "kthvalue",
    "KthvalueBackward0",
    "the k-th smallest entry along dim, at its index",
    _PICKED + " Among ties chainrule returns the entry at place k of a stable sort; "
    "PyTorch's CPU kernel (a selection) may return another of the tied indices.",
)

mode = _selecting(
    "mode",
    "ModeBackward0",
    "the most frequent entry along dim (the smallest such), at its last index",
    _PICKED + " With nan in the slice PyTorch's index may differ.",
)


# ----- results PyTorch records without a derivative -------------------------------------------


def _computed(x, value=None, kernel="", node="NotImplemented"):
    """a result the caller computed from x (distinct values, counts, bin edges)"""
    return value


def _no_vjp(g, kernel):
    """No derivative: raises PyTorch's error for ``kernel``."""
    if kernel.startswith("aten::"):
        not_differentiable(kernel[6:])[0](g)
    raise NotImplementedError(f"the derivative for '{kernel}' is not implemented.")


def _no_jvp(t, kernel):
    """No forward mode: raises PyTorch's NotImplementedError for ``kernel``."""
    if kernel.startswith("aten::"):
        not_differentiable(kernel[6:])[1](t)
    no_forward_ad(kernel)(t)


underivable = defop(
    "underivable",
    _computed,
    dtypes=KEEP,
    node=lambda x, value, kernel, node="NotImplemented": node,
    vjp=_no_vjp,
    jvp=_no_jvp,
    storage=True,
    fp_errors=False,
    conventions="The output requires grad as PyTorch's does; backward raises PyTorch's error "
    "(unique, histogram, bincount have no derivative there).",
)
