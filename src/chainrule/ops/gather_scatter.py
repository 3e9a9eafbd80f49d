"""Gathering and scattering along a dim: gather, scatter, scatter_add,
index_select, index_add, index_fill, index_copy, masked_scatter, unfold.

Gather and scatter-add are each other's transposes: the VJP of a gather scatter-adds the
gradient back, and the VJP of a scatter_add's source gathers it."""

from __future__ import annotations

import math
from typing import Any

import numpy

from .. import _dtypes
from .._backend import is_array, ndarray, xp
from .._dtypes import int64
from .._tensor import _make
from ..autograd.recording import KEEP, array_of, defop, no_forward_ad, np_dtype
from . import indexing, logical, shapes

# ----- gather, scatter, scatter_add -------------------------------------------------------


def positions(shape: tuple, dim: int, index):
    """The fancy index NumPy's take_along_axis makes for a host array ``index``: per dim,
    the positions along it (``arange``, shaped to broadcast, kept per shape), ``index``
    along ``dim``."""
    key = (shape, dim)
    grid = _GRIDS.get(key)
    if grid is None:
        if len(_GRIDS) >= 256:
            _GRIDS.clear()
        ones = (1,) * len(shape)
        grid = _GRIDS[key] = [
            None if d == dim else numpy.arange(s).reshape(ones[:d] + (-1,) + ones[d + 1 :])
            for d, s in enumerate(shape)
        ]
    fancy = grid.copy()
    fancy[dim] = index
    return tuple(fancy)


_GRIDS: dict = {}


def _along(index, dim: int) -> tuple:
    """The key that picks, for every position p of index, x[p with p[dim] = index[p]]."""
    if index.__class__ is ndarray and index.ndim:  # (the grids kept per shape: np.ix_'s
        return positions(index.shape, dim, index)  # Python cost 5 µs a call)
    grids = list(xp.ix_(*[xp.arange(n) for n in index.shape])) if index.ndim else []
    grids[dim] = index
    return tuple(grids)


def _head(a, shape) -> Any:
    """a's leading block of ``shape`` (a src larger than index contributes only that block)."""
    if a.shape == tuple(shape):
        return a
    return a[tuple(slice(0, n) for n in shape)]


def _gather(x, index, dim=0):
    """x[index[p] along dim, p elsewhere], for every position p of index"""
    if x.ndim == 0:  # every index is 0: x repeated in index's shape
        return xp.broadcast_to(x, index.shape).copy()
    return x[_along(index, dim)]


def _pad_to(g, index, src_shape):
    """g (index's shape) placed at the head of zeros of src_shape."""
    if tuple(src_shape) == tuple(index.shape):
        return g
    return indexing.index_into_zeros(
        g, shape=src_shape, key=tuple(slice(0, n) for n in index.shape)
    )


gather = defop(
    "gather",
    _gather,
    args=("x", "index"),
    dtypes=KEEP,
    vjp=(
        lambda g, x_shape, index, dim: scatter_add(
            xp.zeros(x_shape, dtype=np_dtype(g)), index, g, dim=dim
        ),  # Jᵀg = zeros of x's shape with g scatter-added at index (repeats add)
        None,
    ),
    jvp=(
        lambda t, index, dim: gather(t, index, dim=dim),  # J t = t gathered at index
        None,
    ),
    conventions="An element gathered several times gets the sum of their gradients.",
    complex="wirtinger",
)


def _scatter(x, index, src, dim=0, reduce=None):
    """x with src's elements written at index along dim (reduce: added or multiplied in)"""
    out = x.copy()
    if x.ndim == 0:  # every index is 0: each element of src lands on the one element
        out = xp.array(out)  # (a 0-d array, which a NumPy scalar x is not)
        if not index.size:
            return out
        s = xp.broadcast_to(src, index.shape) if xp.ndim(src) == 0 else _head(src, index.shape)
        if reduce is None:
            out[...] = s.reshape(-1)[-1]
        elif reduce == "add":
            out[...] += s.sum(dtype=out.dtype)  # (bool: any)
        else:
            out[...] *= s.prod(dtype=out.dtype)
        return out
    key = _along(index, dim)
    s = _head(src, index.shape) if (isinstance(src, ndarray) or is_array(src)) and src.ndim else src
    if reduce is None:
        out[key] = s
    elif reduce == "add":
        xp.add.at(out, key, s)
    else:
        xp.multiply.at(out, key, s)
    return out


def _scatter_node(x, index, src=None, dim=0, reduce=None, value=None):
    if reduce is not None:
        return "NotImplemented"
    return "ScatterBackward1" if src is None else "ScatterBackward0"


def _no_reduce_grad(reduce):
    if reduce is not None:
        raise RuntimeError("derivative for aten::scatter is not implemented")


def _scatter_vjp_x(g, index, dim, reduce):
    _no_reduce_grad(reduce)
    return scatter_value(g, index, dim=dim, value=0.0)  # overwritten places lose x


def _scatter_vjp_src(g, index, src_shape, dim, reduce):
    _no_reduce_grad(reduce)
    return _pad_to(gather(g, index, dim=dim), index, src_shape)


scatter = defop(
    "scatter",
    _scatter,
    args=("x", "index", "src"),
    dtypes=KEEP,
    node=_scatter_node,
    vjp=(
        lambda g, index, dim, reduce: _scatter_vjp_x(g, index, dim, reduce),  # ∂/∂x = [not written]
        None,
        lambda g, index, src_shape, dim, reduce: _scatter_vjp_src(
            g, index, src_shape, dim, reduce
        ),  # ∂/∂src: g gathered at index (zeros past index's shape)
    ),
    jvp=(
        lambda t, index, dim, reduce: _scatter_vjp_x(t, index, dim, reduce),  # as the VJP
        None,
        lambda t, x_shape, index, dim, reduce: scatter(
            shapes._zeros(x_shape, t), index, t, dim=dim, reduce=reduce
        ),  # J t = zeros of x's shape with t scattered at index
    ),
    conventions="Written places get no gradient from x; src gets the gradient at the places it "
    "wrote (with repeated indices, PyTorch leaves which write wins unspecified). With reduce=, "
    "backward raises, as in PyTorch.",
    complex="wirtinger",
)


def _scatter_value(x, index, dim=0, value=0.0, reduce=None):
    """x with value written at index along dim (reduce: added or multiplied in)"""
    return _scatter(x, index, xp.asarray(value, dtype=x.dtype), dim=dim, reduce=reduce)


scatter_value = defop(
    "scatter_value",
    _scatter_value,
    args=("x", "index"),
    dtypes=KEEP,
    node=lambda x, index, dim=0, value=0.0, reduce=None: _scatter_node(x, index, None, dim, reduce),
    vjp=(
        lambda g, index, dim, reduce: _scatter_vjp_x(g, index, dim, reduce),  # ∂/∂x = [not written]
        None,
    ),
    jvp=(
        lambda t, index, dim, reduce: _scatter_vjp_x(t, index, dim, reduce),  # as the VJP
        None,
    ),
    complex="wirtinger",
)


def _scatter_add(x, index, src, dim=0):
    """x with src's elements added at index along dim (repeated indices add up)"""
    return _scatter(x, index, src, dim=dim, reduce="add")


scatter_add = defop(
    "scatter_add",
    _scatter_add,
    args=("x", "index", "src"),
    dtypes=KEEP,
    vjp=(
        lambda g: g,  # ∂/∂x = 1 (x passes through)
        None,
        lambda g, index, src_shape, dim: _pad_to(
            gather(g, index, dim=dim), index, src_shape
        ),  # ∂/∂src: g gathered at index (zeros past index's shape)
    ),
    jvp=(
        lambda t: t,  # as the VJP
        None,
        lambda t, x_shape, index, dim: scatter_add(
            shapes._zeros(x_shape, t), index, t, dim=dim
        ),  # J t = zeros of x's shape with t scatter-added at index
    ),
    complex="wirtinger",
)

# ----- index_select, index_add ------------------------------------------------------------


def _index_select(x, index, dim=0):
    """x's slices at index along dim"""
    return xp.take(x, index, axis=dim) if x.ndim else x.copy()  # a scalar stays a scalar


def _index_add(x, index, source, dim=0, alpha=1):
    """x with alpha * source's slices added at index along dim (repeated indices add up)"""
    out = x.copy()
    if x.ndim == 0:
        out[...] += alpha * source.sum()
        return out
    rows = source * alpha if alpha != 1 else source
    if dim == 0 and out.__class__ is ndarray and index.__class__ is ndarray and index.ndim == 1:
        indexing.add_rows_at(out, index, rows)
    else:
        xp.add.at(out, shapes._key_of(dim, index), rows)
    return out


index_select = defop(
    "index_select",
    _index_select,
    args=("x", "index"),
    dtypes=KEEP,
    vjp=(
        lambda g, x_shape, index, dim: index_add(
            xp.zeros(x_shape, dtype=np_dtype(g)), index, g, dim=dim
        ),  # Jᵀg = zeros of x's shape with g's slices added at index (repeats add)
        None,
    ),
    jvp=(
        lambda t, index, dim: index_select(t, index, dim=dim),  # J t = t's slices at index
        None,
    ),
    complex="wirtinger",
)

index_add = defop(
    "index_add",
    _index_add,
    args=("x", "index", "source"),
    dtypes=KEEP,
    vjp=(
        lambda g: g,  # ∂/∂x = 1 (x passes through)
        None,
        lambda g, index, dim, alpha: _scaled(
            index_select(g, index, dim=dim), alpha
        ),  # ∂/∂source: alpha · g's slices at index
    ),
    jvp=(
        lambda t: t,  # as the VJP
        None,
        lambda t, x_shape, index, dim, alpha: index_add(
            shapes._zeros(x_shape, t), index, t, dim=dim, alpha=alpha
        ),  # J t = zeros of x's shape with alpha · t's slices added at index
    ),
    complex="wirtinger",
)


def _scaled(g, alpha):
    return g if alpha == 1 else g * alpha


# ----- index_fill, index_copy, index_put, masked_scatter, take_along_dim, unfold ----------


def _fill_key(x, dim, index):
    return shapes._key_of(dim, index) if x.ndim else ()


def _index_fill(x, index, dim=0, value=0.0):
    """x with value written into its slices at index along dim"""
    out = x.copy()
    out[_fill_key(x, dim, index)] = value
    return out


def _filled(x_shape, index, dim) -> Any:
    """A bool array of x_shape: True on the slices at index along dim."""
    mask = xp.zeros(x_shape, dtype=bool)
    mask[shapes._key_of(dim, array_of(index)) if len(x_shape) else ()] = True
    return mask


index_fill = defop(
    "index_fill",
    _index_fill,
    args=("x", "index"),
    dtypes=KEEP,
    vjp=(
        lambda g, index, dim: index_fill(g, index, dim=dim, value=0.0),  # ∂/∂x = [not filled]
        None,
    ),
    jvp=(
        lambda t, index, dim: index_fill(t, index, dim=dim, value=0.0),  # as the VJP
        None,
    ),
    complex="wirtinger",
)


def _index_fill_tensor(x, index, value, dim=0):
    """x with the 0-d value written into its slices at index along dim"""
    return _index_fill(x, index, dim=dim, value=value)


index_fill_tensor = defop(
    "index_fill_tensor",
    _index_fill_tensor,
    args=("x", "index", "value"),
    dtypes=KEEP,
    node="IndexFillBackward1",
    vjp=(
        lambda g, index, dim: index_fill(g, index, dim=dim, value=0.0),  # ∂/∂x = [not filled]
        None,
        # (a repeated index fills its place once)
        lambda g, x_shape, index, dim: indexing.masked_fill(
            g, ~_filled(x_shape, index, dim), value=0.0
        ),  # ∂/∂value = 1 at each filled place, summed to the 0-d value
    ),
    jvp=(
        lambda t, index, dim: index_fill(t, index, dim=dim, value=0.0),  # as the VJP
        None,
        lambda t, x_shape, index, dim: t * _filled(x_shape, index, dim),  # J t = t where filled
    ),
    complex="wirtinger",
)


def _index_copy(x, index, source, dim=0):
    """x with source's slices written at index along dim"""
    out = x.copy()
    out[_fill_key(x, dim, index)] = source
    return out


index_copy = defop(
    "index_copy",
    _index_copy,
    args=("x", "index", "source"),
    dtypes=KEEP,
    vjp=(
        lambda g, index, dim: index_fill(g, index, dim=dim, value=0.0),  # ∂/∂x = [not overwritten]
        None,
        lambda g, index, dim: index_select(g, index, dim=dim),  # ∂/∂source: g's slices at index
    ),
    jvp=(
        lambda t, index, dim: index_fill(t, index, dim=dim, value=0.0),  # as the VJP
        None,
        lambda t, x_shape, index, dim: index_copy(
            shapes._zeros(x_shape, t), index, t, dim=dim
        ),  # J t = zeros of x's shape with t's slices copied at index
    ),
    conventions="With a repeated index, which slice of source lands is unspecified (as in "
    "PyTorch); each gets the gradient of the slice it was copied to.",
    complex="wirtinger",
)


def _index_put_accumulate(x, value, key=()):
    """x with value added at key (repeated indices add up)"""
    out = x.copy()
    xp.add.at(out, key, value)
    return out


index_put_accumulate = defop(
    "index_put_accumulate",
    _index_put_accumulate,
    args=("x", "value"),
    dtypes=KEEP,
    node="IndexPutBackward0",
    vjp=(
        lambda g: g,  # ∂/∂x = 1 (x passes through)
        lambda g, key: indexing.getitem(g, key=key),  # ∂/∂value: g[key] (summed to its shape)
    ),
    jvp=(
        lambda t: t,  # as the VJP
        lambda t, x_shape, key: index_put_accumulate(
            shapes._zeros(x_shape, t), t, key=key
        ),  # J t = zeros of x's shape with t added at key
    ),
    complex="wirtinger",
)


def _masked_scatter(x, mask, source):
    """x with source's first elements, in order, written where mask is True"""
    x, mask = xp.broadcast_arrays(x, mask)
    out = x.copy()
    out[mask] = source.reshape(-1)[: int(mask.sum())]
    return out


def _masked_scatter_source_vjp(g, mask, source_shape):
    """The gradient at the masked places, in order, as the first elements of source."""
    picked = indexing.masked_select(g, mask)
    n = math.prod(source_shape)
    return shapes.reshape(
        indexing.index_into_zeros(picked, shape=(n,), key=slice(0, picked.shape[0])), source_shape
    )


masked_scatter = defop(
    "masked_scatter",
    _masked_scatter,
    args=("x", "mask", "source"),
    dtypes=KEEP,
    vjp=(
        lambda g, mask: indexing.masked_fill(g, mask, value=0.0),  # ∂/∂x = [not mask]
        None,
        lambda g, mask, source_shape: _masked_scatter_source_vjp(
            g, mask, source_shape
        ),  # ∂/∂source: g where mask is True, in order, as source's first elements
    ),
    jvp=(
        lambda t, mask: indexing.masked_fill(t, mask, value=0.0),  # as the VJP
        None,
        lambda t, x_shape, mask: masked_scatter(
            shapes._zeros(x_shape, t), mask, t
        ),  # J t = zeros of x's shape with t's first elements where mask is True
    ),
    complex="wirtinger",
)


def _unfold(x, dimension=0, size=1, step=1):
    """the windows of ``size`` elements every ``step`` along dimension, as a new last dim"""
    if not x.ndim:  # a scalar is one window of one element (or none, for size 0)
        return x.reshape(1)[:size]
    # writable only without overlap, where no two elements of the view share memory
    windows = numpy.lib.stride_tricks.sliding_window_view(
        x, size, axis=dimension, writeable=step >= size
    )
    windows = windows[shapes._key_of(dimension, slice(None, None, step))]
    if not windows.size:  # an empty view of x itself (NumPy's holds no link to x's memory)
        return shapes.empty_view(x, windows.shape)
    return windows


def _fold_windows(g, x_shape, dimension, size, step):
    """The VJP of unfold: each window's gradient added back where the window came from."""
    if not len(x_shape):  # (a window of size 0 takes nothing from the scalar)
        return shapes.reshape(g, ()) if size else xp.zeros((), dtype=np_dtype(g))
    n = g.shape[dimension] if len(x_shape) else 1
    starts = xp.arange(n) * step
    places = starts[:, None] + xp.arange(size)[None, :]  # (windows, size)
    moved = _movedim(g, dimension, -2)  # (..., windows, size)
    flat = shapes.reshape(moved, tuple(moved.shape[:-2]) + (n * size,))
    index = places.reshape(-1)
    shape = list(x_shape)
    del shape[dimension]
    zeros = xp.zeros(tuple(shape) + (x_shape[dimension],), dtype=np_dtype(g))
    out = index_add(zeros, _make(index, int64), flat, dim=len(shape))
    return _movedim(out, -1, dimension)


def _movedim(t, source: int, destination: int):
    """movedim for a tensor or an array (inside VJPs)."""
    nd = len(t.shape)
    order = list(range(nd))
    s, d = source % nd, destination % nd
    order.insert(d, order.pop(s))
    return shapes.permute(t, dims=tuple(order))


unfold = defop(
    "unfold",
    _unfold,
    dtypes=KEEP,
    view=True,
    vjp=lambda g, x_shape, dimension, size, step: _fold_windows(
        g, x_shape, dimension, size, step
    ),  # Jᵀg = each window's gradient added back where the window came from
    jvp=lambda t, dimension, size, step: unfold(
        t, dimension=dimension, size=size, step=step
    ),  # J t = t's windows
    conventions="Overlapping windows add their gradients.",
    complex="wirtinger",
)


# ----- conf-names: scatter_reduce ----------------------------------------------------------

_REDUCE_UFUNC = {
    "sum": "add",
    "prod": "multiply",
    "mean": "add",
    "amax": "maximum",
    "amin": "minimum",
}


def _scattered(x_shape, index, dim) -> Any:
    """A bool array of x's shape: True where index writes."""
    hit = xp.zeros(x_shape, dtype=bool)
    if index.size:
        hit[_along(index, dim) if len(x_shape) else ()] = True
    return hit


def _counts(x_shape, index, dim, include_self) -> Any:
    """How many values each place of x reduces (itself if included, and what index sends)."""
    n = xp.full(x_shape, 1 if include_self else 0, dtype=xp.int64)
    if index.size:
        xp.add.at(n, _along(index, dim) if len(x_shape) else (), 1)
    return n


def _scatter_reduce(x, index, src, dim=0, reduce="sum", include_self=True):
    """x with src's elements reduced (sum, prod, mean, amax, amin) into the places index
    names along dim, x's own value included unless ``include_self`` is False"""
    if x.dtype.kind == "c" and reduce in ("amax", "amin"):  # (no order: PyTorch's error)
        raise _dtypes.not_implemented(f"scatter_gather_tensor_cpu_reduce_{reduce}", x.dtype)
    s = _head(src, index.shape)
    key = _along(index, dim) if x.ndim else ()
    out = x.copy()
    if not include_self and index.size:
        if reduce in ("sum", "mean", "prod"):
            identity = 1 if reduce == "prod" else 0
        elif x.dtype.kind == "f":
            identity = -xp.inf if reduce == "amax" else xp.inf
        elif x.dtype.kind == "b":
            identity = reduce == "amin"
        else:
            limits = xp.iinfo(x.dtype)
            identity = limits.min if reduce == "amax" else limits.max
        out[key] = identity
    if index.size:
        getattr(xp, _REDUCE_UFUNC[reduce]).at(out, key, s)
    if reduce == "mean":
        n = xp.maximum(_counts(x.shape, index, dim, include_self), 1)
        out = out / n if x.dtype.kind in "fc" else xp.floor_divide(out, n)
        out = out.astype(x.dtype)
    return out


def _scatter_reduce_x(g, x, index, src, ans, dim, reduce, include_self):
    """∂/∂x: g (sum); g/N (mean, N the values reduced); g·(others' product) (prod); g shared
    among the tied extremes (amax, amin); 0 at the places reduced without x"""
    xa, ia = array_of(x), array_of(index)
    if reduce == "sum":
        grad = g
    elif reduce == "mean":
        grad = g / xp.maximum(_counts(xa.shape, ia, dim, include_self), 1).astype(xa.dtype)
    elif reduce == "prod":
        masked = logical.select(xa == 0, xp.ones((), xa.dtype), x)
        grad = (
            g
            * scatter_reduce(masked, index, src, dim=dim, reduce=reduce, include_self=include_self)
            / masked
        )
    else:
        grad = g * (xa == array_of(ans)) / _ties(xa, ia, array_of(src), array_of(ans), dim)
    if not include_self:
        grad = logical.select(_scattered(xa.shape, ia, dim), xp.zeros((), np_dtype(g)), grad)
    return grad


def _ties(xa, ia, sa, ansa, dim) -> Any:
    """How many values equal the extreme at each place (x's own, and src's sent there)."""
    s = _head(sa, ia.shape)
    hits = (s == _gather(ansa, ia, dim)).astype(xa.dtype)
    return _scatter_add((xa == ansa).astype(xa.dtype), ia, hits, dim=dim)


def _scatter_reduce_src(g, x, index, src, ans, dim, reduce, include_self):
    """∂/∂src: g gathered at index (sum); divided by N (mean); times the others' product
    (prod); shared among the tied extremes (amax, amin)"""
    xa, ia, sa = array_of(x), array_of(index), array_of(src)
    src_shape = sa.shape
    s = _head(sa, ia.shape)
    if reduce == "sum":
        grad = gather(g, index, dim=dim)
    elif reduce == "mean":
        n = xp.maximum(_counts(xa.shape, ia, dim, include_self), 1).astype(xa.dtype)
        grad = gather(g / n, index, dim=dim)
    elif reduce == "prod":
        zero = s == 0
        zeros_there = _gather(
            _scatter_add(xp.zeros(xa.shape), ia, zero.astype(xp.float64), dim=dim), ia, dim
        )
        single = zero & (zeros_there == 1)
        head = src if s is sa else _head_op(src, ia.shape)
        masked_src = logical.select(single, xp.ones((), sa.dtype), head)
        others = scatter_reduce(
            x, index, masked_src, dim=dim, reduce=reduce, include_self=include_self
        )
        grad = logical.select(
            single,
            gather(g * others, index, dim=dim),
            gather(g * ans, index, dim=dim) / logical.select(zero, xp.ones((), sa.dtype), head),
        )
    else:
        hit = s == _gather(array_of(ans), ia, dim)
        ties = _ties(xa, ia, sa, array_of(ans), dim)
        grad = gather(g / ties, index, dim=dim) * hit
    return _pad_to(grad, index, src_shape)


def _head_op(src, shape):
    """src's leading block of ``shape``, as an op (so create_graph records it)."""
    return indexing.getitem(src, key=tuple(slice(0, n) for n in shape))


def _scatter_reduce_node(x, index, src, dim=0, reduce="sum", include_self=True):
    return "ScatterReduceBackward0"


scatter_reduce = defop(
    "scatter_reduce",
    _scatter_reduce,
    args=("x", "index", "src"),
    dtypes=KEEP,
    node=_scatter_reduce_node,
    vjp=(
        lambda g, x, index, src, ans, dim, reduce, include_self: _scatter_reduce_x(
            g, x, index, src, ans, dim, reduce, include_self
        ),  # see _scatter_reduce_x
        None,
        lambda g, x, index, src, ans, dim, reduce, include_self: _scatter_reduce_src(
            g, x, index, src, ans, dim, reduce, include_self
        ),  # see _scatter_reduce_src
    ),
    jvp=(
        lambda t, x, index, src, ans, dim, reduce, include_self: _scatter_reduce_jvp_x(
            t, x, index, src, ans, dim, reduce, include_self
        ),  # the x part of the directional derivative
        None,
        lambda t, x, index, src, ans, dim, reduce, include_self: _scatter_reduce_jvp_src(
            t, x, index, src, ans, dim, reduce, include_self
        ),  # the src part of the directional derivative
    ),
    conventions="amax/amin share the gradient equally among tied extremes; prod gives each "
    "factor the product of the others (exact with zeros), as PyTorch does. No backward on "
    "complex values (PyTorch refuses it); forward mode takes them.",
    complex="refuse",
)


def _scatter_reduce_jvp_x(t, x, index, src, ans, dim, reduce, include_self):
    """J_x t: the elementwise factor of the VJP (the VJP of x is diagonal) times t"""
    ones = xp.ones(array_of(x).shape, dtype=np_dtype(t))
    factor = _scatter_reduce_x(ones, x, index, src, ans, dim, reduce, include_self)
    return t * factor


def _scatter_reduce_jvp_src(t, x, index, src, ans, dim, reduce, include_self):
    """J_src t: t times its factor in the VJP, added into the places index names"""
    ones = xp.ones(array_of(x).shape, dtype=np_dtype(t))
    factor = _scatter_reduce_src(ones, x, index, src, ans, dim, reduce, include_self)
    return scatter_add(shapes._zeros(array_of(x).shape, t), index, t * factor, dim=dim)


# ----- conf-names: select_scatter, slice_scatter, diagonal_scatter -------------------------


def _put_region(x, src, key=()):
    """x with src written into the region x[key]"""
    out = x.copy()
    out[key] = src
    return out


select_scatter = defop(
    "select_scatter",
    _put_region,
    args=("x", "src"),
    dtypes=KEEP,
    vjp=(
        lambda g, src_shape, key: select_scatter(
            g, shapes._zeros(src_shape, g), key=key
        ),  # ∂/∂x = 1 outside the region, 0 inside
        lambda g, key: indexing.getitem(g, key=key),  # ∂/∂src: g's region
    ),
    jvp=(
        lambda t, src_shape, key: select_scatter(t, shapes._zeros(src_shape, t), key=key),  # VJP
        lambda t, x_shape, key: select_scatter(shapes._zeros(x_shape, t), t, key=key),  # t placed
    ),
    conventions="No backward on complex values (PyTorch refuses it); forward mode takes them.",
    complex="refuse",
)

slice_scatter = defop(
    "slice_scatter",
    _put_region,
    args=("x", "src"),
    dtypes=KEEP,
    vjp=(
        lambda g, src_shape, key: slice_scatter(
            g, shapes._zeros(src_shape, g), key=key
        ),  # ∂/∂x = 1 outside the slice, 0 inside
        lambda g, key: indexing.getitem(g, key=key),  # ∂/∂src: g's slice
    ),
    jvp=(
        lambda t, src_shape, key: slice_scatter(t, shapes._zeros(src_shape, t), key=key),  # VJP
        lambda t, x_shape, key: slice_scatter(shapes._zeros(x_shape, t), t, key=key),  # t placed
    ),
    conventions="No backward on complex values (PyTorch refuses it); forward mode takes them.",
    complex="refuse",
)


def _diagonal_scatter(x, src, offset=0, dim1=0, dim2=1):
    """x with src written on its diagonal (offset, dim1, dim2)"""
    out = x.copy()
    moved = xp.moveaxis(out, (dim1, dim2), (-2, -1))
    n, m = moved.shape[-2:]
    k = xp.arange(max(0, min(n + min(offset, 0), m - max(offset, 0))))
    moved[..., k - min(offset, 0), k + max(offset, 0)] = src
    return out


def _diag_of(g, offset, dim1, dim2):
    from .linalg import matrices

    return matrices.diagonal_copy(g, offset=offset, dim1=dim1, dim2=dim2)


diagonal_scatter = defop(
    "diagonal_scatter",
    _diagonal_scatter,
    args=("x", "src"),
    dtypes=KEEP,
    vjp=(
        lambda g, src_shape, offset, dim1, dim2: diagonal_scatter(
            g, shapes._zeros(src_shape, g), offset=offset, dim1=dim1, dim2=dim2
        ),  # ∂/∂x = 1 off the diagonal, 0 on it
        lambda g, offset, dim1, dim2: _diag_of(g, offset, dim1, dim2),  # ∂/∂src: g's diagonal
    ),
    jvp=(
        lambda t, src_shape, offset, dim1, dim2: diagonal_scatter(
            t, shapes._zeros(src_shape, t), offset=offset, dim1=dim1, dim2=dim2
        ),  # as the VJP
        lambda t, x_shape, offset, dim1, dim2: diagonal_scatter(
            shapes._zeros(x_shape, t), t, offset=offset, dim1=dim1, dim2=dim2
        ),  # t placed on the diagonal
    ),
    complex="wirtinger",
)


# ----- conf2: index_reduce ---------------------------------------------------------------
#
# index_reduce(x, dim, index, source, reduce) is scatter_reduce with the 1-D index spread
# over source's shape (source's slice i along dim goes to x's slice index[i]): the forward
# and the derivatives are scatter_reduce's, at that index.


def _spread(index, source_shape, dim) -> Any:
    """The 1-D index as a scatter index of source's shape: index[i] along dim."""
    ia = array_of(index).reshape(-1)
    if not source_shape:
        return ia.reshape(())
    shape = [1] * len(source_shape)
    shape[dim] = ia.size
    return xp.broadcast_to(ia.reshape(shape), source_shape)


def _index_reduce(x, index, source, dim=0, reduce="prod", include_self=True):
    """x with source's slices reduced (prod, mean, amax, amin) into x's slices at index along
    dim, x's own value included unless ``include_self`` is False"""
    if x.dtype.kind == "c" and reduce in ("amax", "amin"):  # (no order: PyTorch's error)
        raise _dtypes.not_implemented(
            f"{'maximum' if reduce == 'amax' else 'minimum'}_cpu", x.dtype
        )
    return _scatter_reduce(
        x,
        _spread(index, source.shape, dim),
        source,
        dim=dim,
        reduce=reduce,
        include_self=include_self,
    )


def _index_reduce_x(g, x, index, source, ans, dim, reduce, include_self):
    """∂/∂x: scatter_reduce's, at the spread index"""
    spread = _spread(index, array_of(source).shape, dim)
    return _scatter_reduce_x(g, x, spread, source, ans, dim, reduce, include_self)


def _index_reduce_source(g, x, index, source, ans, dim, reduce, include_self):
    """∂/∂source: scatter_reduce's, at the spread index"""
    spread = _spread(index, array_of(source).shape, dim)
    return _scatter_reduce_src(g, x, spread, source, ans, dim, reduce, include_self)


index_reduce = defop(
    "index_reduce",
    _index_reduce,
    args=("x", "index", "source"),
    dtypes=KEEP,
    vjp=(_index_reduce_x, None, _index_reduce_source),
    jvp=(no_forward_ad("index_reduce"), None, no_forward_ad("index_reduce")),
    conventions="As scatter_reduce: amax/amin share the gradient equally among tied "
    "extremes; prod gives each factor the product of the others (exact with zeros). No "
    "forward mode (PyTorch has none), no backward on complex values (PyTorch refuses it).",
    complex="refuse",
)
