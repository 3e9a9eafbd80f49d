"""The ops of PyTorch's ATen forms (api/parsers/aten_forms.py): the ``*_copy`` forms of the
view ops (alias, detach, expand, permute, select, slice, split, split_with_sizes, squeeze, t,
transpose, unbind, unfold, unsqueeze, view, narrow), native_dropout's masked product and
segment_reduce.

Each is its view op followed by a contiguous copy: the result owns fresh memory and has no
view relation to its input. Their derivatives are the view ops' own (a view op is linear,
its VJP the transpose of the selection), recorded in one node named as PyTorch names it
(``TransposeBackward0_copy``; ``NarrowCopyBackward0`` for narrow_copy). On complex values
the same VJPs hold (real-linear maps); select_copy and slice_copy refuse a complex backward
with PyTorch's error, as PyTorch does.

native_dropout is the input times a scaled keep-mask drawn outside, in one node named as
PyTorch's (NativeDropoutBackward0). segment_reduce reduces runs of rows (SegmentReduceBackward0)."""

from __future__ import annotations

from .._backend import xp
from ..autograd.recording import KEEP, array_of, defop, no_forward_ad, not_differentiable
from . import gather_scatter, indexing, logical, shapes
from .gather_scatter import _fold_windows, _unfold


def _fresh(a):
    """a copied into new, C-contiguous memory"""
    return a.copy(order="C")


def _alias_copy(x):
    """x, copied"""
    return _fresh(x)


alias_copy = defop(
    "alias_copy",
    _alias_copy,
    dtypes=KEEP,
    node="AliasBackward0_copy",
    vjp=lambda g: g,  # d/dx x = 1
    jvp=lambda t: alias_copy(t),  # J t = t
    complex="wirtinger",
)

_detach_vjp, _detach_jvp = not_differentiable("detach_copy")

detach_copy = defop(
    "detach_copy",
    _alias_copy,
    dtypes=KEEP,
    node="NotImplemented",
    vjp=_detach_vjp,
    jvp=_detach_jvp,
    doc="x, copied (PyTorch records no derivative for it: backward raises)",
    complex="wirtinger",
)


def _expand_copy(x, shape=()):
    """x broadcast to shape, copied"""
    return _fresh(xp.broadcast_to(x, shape))


expand_copy = defop(
    "expand_copy",
    _expand_copy,
    dtypes=KEEP,
    node="ExpandBackward0_copy",
    vjp=lambda g, x_shape: shapes.sum_to(g, x_shape),  # Jᵀg = g summed back to x's shape
    jvp=lambda t, shape: expand_copy(t, shape=shape),  # J t = t broadcast to the shape
    complex="wirtinger",
)


def _permute_copy(x, dims=()):
    """x with its dims reordered, copied"""
    return _fresh(xp.transpose(x, dims))


permute_copy = defop(
    "permute_copy",
    _permute_copy,
    dtypes=KEEP,
    node="PermuteBackward0_copy",
    vjp=lambda g, dims: shapes.permute(
        g, dims=shapes._inverse(dims)
    ),  # Jᵀg = g by the inverse permutation
    jvp=lambda t, dims: permute_copy(t, dims=dims),  # J t = t permuted by dims
    complex="wirtinger",
)


def _select_copy(x, key=()):
    """x[key] for a key that picks one index of one dim, copied"""
    return _fresh(x[key])


def _slice_copy(x, key=()):
    """x[key] for a key that slices one dim (start:stop:step), copied"""
    return _fresh(x[key])


select_copy = defop(
    "select_copy",
    _select_copy,
    dtypes=KEEP,
    node="SelectBackward0_copy",
    vjp=lambda g, x_shape, key: indexing.index_into_zeros(
        g, shape=x_shape, key=key
    ),  # Jᵀg = zeros of x's shape with g at the index
    jvp=lambda t, key: select_copy(t, key=key),  # J t = t at the index
    complex="refuse",
)

slice_copy = defop(
    "slice_copy",
    _slice_copy,
    dtypes=KEEP,
    node="SliceBackward0_copy",
    vjp=lambda g, x_shape, key: indexing.index_into_zeros(
        g, shape=x_shape, key=key
    ),  # Jᵀg = zeros of x's shape with g at the slice
    jvp=lambda t, key: slice_copy(t, key=key),  # J t = t's slice
    complex="refuse",
)

narrow_copy = defop(
    "narrow_copy",
    _slice_copy,
    dtypes=KEEP,
    node="NarrowCopyBackward0",
    vjp=lambda g, x_shape, key: indexing.index_into_zeros(
        g, shape=x_shape, key=key
    ),  # Jᵀg = zeros of x's shape with g at the slice
    jvp=lambda t, key: narrow_copy(t, key=key),  # J t = t's slice
    doc="x[key] for a key that narrows one dim (start:start + length), copied",
    complex="wirtinger",
)


def _split_copy(x, dim=0, sizes=(), unbind=False, kind="Split"):
    """x cut along dim into pieces of the given sizes (unbind: size-1 pieces, dim dropped),
    each copied"""
    return tuple(_fresh(p) for p in shapes._split(x, dim, sizes, unbind))


split_copy = defop(
    "split_copy",
    _split_copy,
    dtypes=KEEP,
    node=lambda x, dim=0, sizes=(), unbind=False, kind="Split": f"{kind}Backward0_copy",
    vjp=lambda g, x_shape, dim, sizes, unbind: shapes._unsplit(
        g, x_shape, dim, sizes, unbind
    ),  # Jᵀg = the pieces' gradients joined back along dim (zeros for a piece without one)
    jvp=lambda t, dim, sizes, unbind, kind: split_copy(
        t, dim=dim, sizes=sizes, unbind=unbind, kind=kind
    ),  # J t = t split the same way
    conventions="Pieces that receive no gradient count as zeros.",
    complex="wirtinger",
)


def _reshape_copy(x, shape=(), kind="ViewBackward0"):
    """x in a new shape with the same elements in order, copied (``kind`` names the node:
    ViewBackward0, SqueezeBackward0/1/2, UnsqueezeBackward0)"""
    return _fresh(xp.reshape(x, shape))


# squeeze_copy, unsqueeze_copy and view_copy are all reshapes: one op, three node names
reshape_copy = defop(
    "view_reshape_copy",
    _reshape_copy,
    dtypes=KEEP,
    node=lambda x, shape=(), kind="ViewBackward0": f"{kind}_copy",
    vjp=lambda g, x_shape: shapes.reshape(g, x_shape),  # Jᵀg = g reshaped back to x's shape
    jvp=lambda t, shape, kind: reshape_copy(t, shape=shape, kind=kind),  # J t = t reshaped
    complex="wirtinger",
)


def _transpose_copy(x, dim0=0, dim1=1, kind="Transpose"):
    """x with dims dim0 and dim1 swapped, copied (``kind`` names the node: Transpose, or T
    for t_copy)"""
    return _fresh(xp.swapaxes(x, dim0, dim1) if x.ndim > 1 else x)


transpose_copy = defop(
    "transpose_copy",
    _transpose_copy,
    dtypes=KEEP,
    node=lambda x, dim0=0, dim1=1, kind="Transpose": f"{kind}Backward0_copy",
    vjp=lambda g, dim0, dim1: shapes.transpose(
        g, dim0=dim0, dim1=dim1
    ),  # Jᵀg = g with the dims swapped back
    jvp=lambda t, dim0, dim1, kind: transpose_copy(
        t, dim0=dim0, dim1=dim1, kind=kind
    ),  # J t = t swapped
    complex="wirtinger",
)


def _as_strided_copy(x, size=(), stride=(), offset=0, x_strides=()):
    """the elements of x's storage at offset + Σ i_k stride_k, copied (as as_strided)"""
    return _fresh(shapes._as_strided(x, size, stride, offset, x_strides))


as_strided_copy = defop(
    "as_strided_copy",
    _as_strided_copy,
    dtypes=KEEP,
    node="AsStridedBackward0_copy",
    vjp=shapes._as_strided_vjp,
    jvp=shapes._as_strided_jvp,
    conventions=shapes.as_strided.conventions,
    complex="wirtinger",
)


def _unfold_copy(x, dimension=0, size=1, step=1):
    """the windows of ``size`` elements every ``step`` along dimension, as a new last dim,
    copied"""
    return _fresh(_unfold(x, dimension, size, step))


unfold_copy = defop(
    "unfold_copy",
    _unfold_copy,
    dtypes=KEEP,
    node="UnfoldBackward0_copy",
    vjp=lambda g, x_shape, dimension, size, step: _fold_windows(
        g, x_shape, dimension, size, step
    ),  # Jᵀg = each window's gradient added back where the window came from
    jvp=lambda t, dimension, size, step: unfold_copy(
        t, dimension=dimension, size=size, step=step
    ),  # J t = t's windows
    conventions="Overlapping windows add their gradients.",
    complex="wirtinger",
)


# ----- native_dropout ------------------------------------------------------------------------


def _masked(x, mask=None):
    """x·m, m the scaled keep-mask (kept elements 1/(1 - p), dropped ones 0)"""
    return x * mask


native_dropout = defop(
    "native_dropout",
    _masked,
    dtypes=KEEP,
    node="NativeDropoutBackward0",
    vjp=lambda g, mask: g * mask,  # d/dx (x·m) = m
    jvp=lambda t, mask: t * mask,  # J t = t·m
)


# ----- segment_reduce ----------------------------------------------------------------------------


def _segment_reduce(data, reduce="sum", ids=None, m=0, n=0, initial=None):
    """out[s] = the reduction (sum, mean, max, min, prod) of the rows data[i], i < m, with
    ids[i] = s, starting from ``initial`` (an empty segment gives initial, or the
    reduction's identity: 0, nan for mean, -inf/inf, 1)"""
    rows, seg = data[:m], ids[:m]
    shape = (n,) + data.shape[1:]
    start = {"sum": 0, "mean": 0, "max": -xp.inf, "min": xp.inf, "prod": 1}[reduce]
    if initial is not None and reduce != "mean":
        start = initial
    out = xp.full(shape, start, dtype=data.dtype)
    ufunc = {"sum": xp.add, "mean": xp.add, "max": xp.maximum, "min": xp.minimum}
    ufunc.get(reduce, xp.multiply).at(out, seg, rows)
    if reduce == "mean":
        counts = _counts(seg, n, data)
        if initial is not None:
            out = xp.where(counts > 0, (out + initial) / xp.maximum(counts, 1), initial)
        else:
            out = out / counts
    return out.astype(data.dtype, copy=False)


def _counts(seg, n, like):
    """The rows per segment, shaped to broadcast against the output, in like's dtype."""
    counts = xp.bincount(seg, minlength=n).astype(like.dtype)
    return counts.reshape((n,) + (1,) * (like.ndim - 1))


def _spread(g, ids, m, x_shape):
    """Each row i < m of the input gets its segment's g[ids[i]]; rows past m get 0."""
    used = (xp.arange(x_shape[0]) < m).astype(array_of(g).dtype)
    used = used.reshape((x_shape[0],) + (1,) * (len(x_shape) - 1))
    return gather_scatter.index_select(g, ids, dim=0) * used


def _segment_reduce_vjp(g, data, ans, reduce, ids, m, n, initial):
    """sum: g of the segment; mean: g/count; max, min: g split evenly among the rows that
    equal the result; prod: g times the product of the segment's other rows (and initial)"""
    x, shape = array_of(data), array_of(data).shape
    if reduce == "sum":
        return _spread(g, ids, m, shape)
    if reduce == "mean":
        return _spread(g / xp.maximum(_counts(ids[:m], n, x), 1), ids, m, shape)
    if reduce in ("max", "min"):
        hit = x == xp.take(array_of(ans), ids, axis=0)
        hit[m:] = False
        ties = xp.zeros((n,) + shape[1:], dtype=x.dtype)
        xp.add.at(ties, ids[:m], hit[:m].astype(x.dtype))
        share = g / xp.maximum(ties, 1)
        return logical.where(hit, _spread(share, ids, m, shape), 0)
    zero = x == 0
    zeros = xp.zeros((n,) + shape[1:], dtype=xp.int64)
    xp.add.at(zeros, ids[:m], zero[:m].astype(xp.int64))
    nonzero = logical.where(zero, 1, data)
    others = segment_reduce(nonzero, reduce="prod", ids=ids, m=m, n=n, initial=initial)
    zeros_of_row = xp.take(zeros, ids, axis=0)
    spread = _spread(g * others, ids, m, shape)
    alone = logical.where(zeros_of_row == 1, spread, 0)
    rest = logical.where(zeros_of_row == 0, spread / nonzero, 0)
    return logical.where(zero, alone, rest)


segment_reduce = defop(
    "segment_reduce",
    _segment_reduce,
    args=("data",),
    dtypes=KEEP,
    node="SegmentReduceBackward0",
    vjp=_segment_reduce_vjp,
    jvp=no_forward_ad("segment_reduce"),
    conventions="max, min: tied rows share the gradient evenly; prod: a row that is one of "
    "two or more zeros of its segment gets 0.",
)
