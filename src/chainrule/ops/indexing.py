"""Indexing: ``x[key]`` (getitem), writes into a copy at a key (index_put),
masked_fill, masked_select and take.

Reading at a key is linear: its VJP writes the gradient into zeros at the key
(``index_into_zeros``), where repeated indices add up."""

from __future__ import annotations

import math

import numpy

from .._backend import is_array, like, ndarray, xp
from ..autograd.recording import KEEP, array_of, contiguous, defop, np_dtype
from . import shapes

# ----- masked_fill, masked_select, take ---------------------------------------------------


def _masked_fill(x, mask, value=0.0):
    """x with value where mask is True (mask broadcasts)"""
    return xp.where(mask, xp.asarray(value, dtype=x.dtype), x)


masked_fill = defop(
    "masked_fill",
    contiguous(_masked_fill),
    args=("x", "mask"),
    dtypes=KEEP,
    vjp=(
        lambda g, mask: masked_fill(g, mask, value=0.0),  # ∂/∂x = [not mask]
        None,
    ),
    jvp=(
        lambda t, mask: masked_fill(t, mask, value=0.0),  # as the VJP
        None,
    ),
    complex="wirtinger",
)


def _masked_fill_tensor(x, mask, value):
    """x with the 0-d value where mask is True (mask broadcasts); a complex value into a
    real x: its real part (nonzero-ness for bool; the parser refuses an imaginary part)"""
    if value.dtype.kind == "c" and x.dtype.kind != "c":
        value = value != 0 if x.dtype == xp.bool_ else value.real
    return xp.where(mask, value.astype(x.dtype), x)


masked_fill_tensor = defop(
    "masked_fill_tensor",
    contiguous(_masked_fill_tensor),
    args=("x", "mask", "value"),
    dtypes=KEEP,
    node="MaskedFillBackward1",
    vjp=(
        lambda g, mask: masked_fill(g, mask, value=0.0),  # ∂/∂x = [not mask]
        None,
        lambda g, mask: masked_fill(g, ~mask, value=0.0),  # ∂/∂value = [mask], summed to ()
    ),
    jvp=(
        lambda t, mask: masked_fill(t, mask, value=0.0),  # as the VJP
        None,
        lambda t, mask: t * mask,  # J t = t where mask, else 0
    ),
    complex="wirtinger",
)


def _masked_select(x, mask):
    """x's elements where mask is True, in order, as a 1-D tensor (both broadcast)"""
    x, mask = xp.broadcast_arrays(x, mask)
    return x[mask]


def _unmask(g, x_shape, mask):
    """The VJP of masked_select: g put back where the mask is True, in mask's broadcast shape."""
    shape = numpy.broadcast_shapes(tuple(x_shape), array_of(mask).shape)
    return index_into_zeros(g, shape=shape, key=xp.broadcast_to(array_of(mask), shape))


masked_select = defop(
    "masked_select",
    _masked_select,
    args=("x", "mask"),
    dtypes=KEEP,
    vjp=(
        lambda g, x_shape, mask: _unmask(g, x_shape, mask),  # Jᵀg = zeros, g where mask, in order
        None,
    ),
    jvp=(
        lambda t, mask: masked_select(t, mask),  # J t = t's elements where mask is True
        None,
    ),
    complex="wirtinger",
)


def _take(x, index):
    """x's elements at index (into the flattened x), in index's shape"""
    return x.reshape(-1)[index]


take = defop(
    "take",
    _take,
    args=("x", "index"),
    dtypes=KEEP,
    vjp=(
        lambda g, x_shape, index: shapes.reshape(
            index_into_zeros(g, shape=(math.prod(x_shape),), key=array_of(index)), x_shape
        ),  # Jᵀg = zeros of x's shape with g added at index (repeats add up)
        None,
    ),
    jvp=(
        lambda t, index: take(t, index),  # J t = t's elements at index
        None,
    ),
    complex="wirtinger",
)


# ----- x[key]: reading, and writing into a copy ---------------------------------------------


def _getitem(x, key=()):
    """x[key] (an element of an array is a 0-d view, as in PyTorch, not a copy)"""
    out = x[key]
    if not (isinstance(out, ndarray) or is_array(out)):  # (a MetaArray is an array)
        out = x[(*key, Ellipsis) if isinstance(key, tuple) else (key, Ellipsis)]
    # advanced indexing of a contiguous x gives a contiguous result, as PyTorch's does
    # (NumPy's ``x[:, index]`` comes out column-major, which would refuse ``view(-1)``)
    elif (
        type(out) is ndarray
        and not out.flags.c_contiguous
        and x.flags.c_contiguous
        and not _is_basic(key)
    ):
        out = xp.ascontiguousarray(out)
    return out


def _index_node_name(x, key=()) -> str:
    """PyTorch applies basic indexing one part at a time; the last real step names the node.

    A lone slice is always sliced (SliceBackward0); inside a tuple, a slice PyTorch sees
    as whole (``_whole_slice``) is skipped, and a key that does nothing is an alias.
    """
    if isinstance(key, slice):
        return "SliceBackward0"
    parts = key if isinstance(key, tuple) else (key,)
    name = "AliasBackward0"
    dim = 0
    for p in parts:
        if isinstance(p, bool) or not isinstance(p, (int, slice, type(None), type(Ellipsis))):
            return "IndexBackward0"
        if isinstance(p, int):
            name = "SelectBackward0"
            dim += 1
        elif isinstance(p, slice):
            if not _whole_slice(p, x.shape[dim] if dim < x.ndim else 0):
                name = "SliceBackward0"
            dim += 1
        elif p is None:
            name = "UnsqueezeBackward0"
        else:  # Ellipsis: skips the dims that the parts after it do not consume
            dim += x.ndim - sum(1 for q in parts if q is not None and q is not Ellipsis)
    return name


def _whole_slice(p: slice, size: int) -> bool:
    """Whether PyTorch skips this slice: start None or 0 (never negative), stop at least the
    size, step 1."""
    stop = size if p.stop is None else min(p.stop + (size if p.stop < 0 else 0), size)
    return p.start in (None, 0) and stop == size and p.step in (None, 1)


getitem = defop(
    "getitem",
    _getitem,
    dtypes=KEEP,
    view=True,
    node=_index_node_name,
    vjp=lambda g, x_shape, key: index_into_zeros(
        g, shape=x_shape, key=key
    ),  # Jᵀg = zeros of x's shape with g added at key
    jvp=lambda t, key: getitem(t, key=key),  # J t = t[key]
    conventions="Repeated indices accumulate their gradients.",
    complex="wirtinger",
)


def _index_into_zeros(g, shape=(), key=()):
    """zeros of ``shape`` with g added at ``key`` (repeated indices add up)"""
    out = xp.zeros(shape, dtype=g.dtype)
    if _is_basic(key):  # no index can repeat: plain assignment, much faster than add.at
        out[key] = g
    elif out.__class__ is ndarray and _rows_at(key, g, shape):
        add_rows_at(out, key, g, zeros=True)  # (x[index]'s gradient: add.at's bits, faster)
    else:
        xp.add.at(out, _indices_like(out, key), g)
    return out


def _rows_at(key, g, shape: tuple) -> bool:
    """Whether ``key`` is one 1-d integer host array picking rows of ``shape`` and ``g``
    holds one row per index: what ``add_rows_at`` takes."""
    return (
        key.__class__ is ndarray
        and key.ndim == 1
        and key.dtype.kind in "iu"
        and g.__class__ is ndarray
        and g.shape == key.shape + shape[1:]
    )


# add_rows_at: at most this many rounds of one fancy add each; later repeats go to add.at
_ROUNDS = 8

# add.at costs some 7 ns an element added, the rounds some 15 µs and 80 ns an index: they
# take rows wider than _NARROW elements, _FEW elements or more (tools/layer_scan.py's
# embedding, 512 rows of 64: 45 µs against 225)
_NARROW = 16
_FEW = 2048

# up to this many rows the indices are sorted as 16-bit keys (NumPy's radix sort, twice
# as fast); a round only needs equal indices next to each other, in their order
_RADIX_ROWS = 1 << 16


def add_rows_at(out, index, rows, zeros: bool = False) -> None:
    """out[index[i]] += rows[i] for each i in turn (repeats add up, in order: add.at's bits).
    add.at walks the elements one by one; for wide rows the first occurrence of every index
    is one fancy add (the indices of a round are distinct), the second occurrences the
    next, ..., up to _ROUNDS rounds, the rest add.at's. With ``zeros`` (out holds +0 only)
    the first round writes rows + 0, 0 + r's bits (-0 becomes +0), without reading out."""
    n = index.shape[0]
    if (
        rows.size < _FEW
        or rows.size <= _NARROW * n
        or index.dtype.kind not in "iu"
        or (index.dtype.kind == "i" and index.min() < 0)
    ):
        xp.add.at(out, index, rows)  # (a negative index and its positive alias: one row)
        return
    keys = index.astype(xp.uint16) if out.shape[0] <= _RADIX_ROWS else index
    order = xp.argsort(keys, kind="stable")  # (a group's positions in their order)
    rank = _ranks(index[order])
    top = int(rank.max())
    if top == 0:  # distinct indices: one round, in the rows' order
        _add_round(out, index, rows, zeros)
        return
    for r in range(min(top + 1, _ROUNDS)):
        at = order[rank == r]
        _add_round(out, index[at], rows.take(at, axis=0), zeros and r == 0)
    if top >= _ROUNDS:
        rest = xp.sort(order[rank >= _ROUNDS])  # (in the rows' order, as add.at takes them)
        xp.add.at(out, index[rest], rows[rest])


def _ranks(ordered):
    """Per entry of a sorted index array, how many equal entries come before it."""
    n = ordered.shape[0]
    new = xp.empty(n, dtype=bool)
    new[0] = True
    xp.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    positions = xp.arange(n)
    starts = positions * new  # (where a run of equal entries starts, else 0)
    xp.maximum.accumulate(starts, out=starts)
    positions -= starts
    return positions


def _add_round(out, index, rows, zeros: bool) -> None:
    """out[index] += rows for distinct indices; rows + 0 written where out holds zeros (a
    float's sum with +0, without reading out)."""
    if zeros and rows.dtype.kind in "fc":
        out[index] = rows + 0
    else:
        out[index] += rows


def _indices_like(arr, key):
    """``key`` with its index arrays on ``arr``'s device (a device's ufunc.at, CuPy's, takes
    no host arrays; its indexing does, so a forward's key may hold them)."""
    if arr.__class__ is ndarray:
        return key
    parts = key if isinstance(key, tuple) else (key,)
    moved = tuple(like(arr, p) if isinstance(p, ndarray) else p for p in parts)
    return moved if isinstance(key, tuple) else moved[0]


def _is_basic(key) -> bool:
    parts = key if isinstance(key, tuple) else (key,)
    return all(p is None or p is Ellipsis or isinstance(p, slice) or type(p) is int for p in parts)


index_into_zeros = defop(
    "index_into_zeros",
    _index_into_zeros,
    args=("g",),
    dtypes=KEEP,
    node="IndexPutBackward0",
    vjp=lambda gg, key: getitem(gg, key=key),  # Jᵀgg = gg[key]
    jvp=lambda t, shape, key: index_into_zeros(t, shape=shape, key=key),  # J t = zeros, t at key
    complex="wirtinger",
)


def _index_put(x, value, key=()):
    """x with x[key] replaced by value"""
    out = x.copy()
    try:
        out[key] = value
    except ValueError:
        raise shape_mismatch(x[key].shape, xp.shape(value)) from None
    return out


def shape_mismatch(region: tuple, value: tuple) -> RuntimeError:
    """PyTorch's error for a value that does not broadcast to the indexed region."""
    return RuntimeError(
        f"shape mismatch: value tensor of shape {list(value)} cannot be broadcast to indexing "
        f"result of shape {list(region)}"
    )


index_put = defop(
    "index_put",
    _index_put,
    args=("x", "value"),
    node="IndexPutBackward0",
    dtypes=KEEP,
    vjp=(
        lambda g, key: index_put(g, 0, key=key),  # ∂/∂x = 1 but 0 at key (overwritten)
        lambda g, key: getitem(g, key=key),  # ∂/∂value: g[key] (summed to value's shape)
    ),
    jvp=(
        lambda t, key: index_put(t, 0, key=key),  # as the VJP
        lambda t, x_shape, key: index_put(
            xp.zeros(x_shape, dtype=np_dtype(t)), t, key=key
        ),  # J t = zeros of x's shape with t written at key
    ),
    complex="wirtinger",
)


# ----- conf2: put -------------------------------------------------------------------------


def _put(x, index, source, accumulate=False):
    """x with its flattened elements at index replaced by (or, accumulating, increased by)
    source's"""
    out = x.copy()
    flat = out.reshape(-1)
    if accumulate:
        xp.add.at(flat, index.reshape(-1), source.reshape(-1))
    else:
        flat[index.reshape(-1)] = source.reshape(-1)
    return out


def _put_vjp_x(g, index, source, accumulate):
    """∂/∂x = 1, but 0 at index when source overwrites it (not when accumulating)"""
    return g if accumulate else put(g, index, xp.zeros(source.shape, np_dtype(g)))


put = defop(
    "put",
    _put,
    args=("x", "index", "source"),
    dtypes=KEEP,
    vjp=(
        _put_vjp_x,
        None,
        lambda g, index, source_shape: shapes.reshape(
            take(g, index), source_shape
        ),  # ∂/∂source: g at the flat indices
    ),
    jvp=(
        _put_vjp_x,
        None,
        lambda t, x_shape, index, accumulate: put(
            xp.zeros(x_shape, np_dtype(t)), index, t, accumulate=accumulate
        ),  # J t = zeros of x's shape with t put at index
    ),
    complex="wirtinger",
)
