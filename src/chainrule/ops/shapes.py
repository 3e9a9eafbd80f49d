"""Shapes and views: view, reshape, expand and sum_to, permute, transpose, t,
squeeze, unsqueeze, narrow, split.

Shape ops are linear, so each JVP is the op itself applied to the tangent and each VJP is the
op's transpose: a reshape back, a sum over broadcast dims, the inverse permutation. Ops that
return views share their input's memory and version counter (``view=True``)."""

from __future__ import annotations

from typing import Any

from .._backend import (
    REDUCED,
    add_reduce,
    add_reduce_run,
    asanyarray,
    is_array,
    ndarray,
    strided_view,
    viewable,
    widened_add_reduce,
    xp,
)
from .._tensor import Tensor
from ..autograd.recording import KEEP, defop, np_dtype
from . import indexing, joining


def _view(x, shape=()):
    """x with a new shape, sharing memory; fails where a copy would be needed"""
    out = x.view() if isinstance(x, ndarray) or is_array(x) else xp.asarray(x)
    try:
        out.shape = shape
    except AttributeError:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        ) from None
    except ValueError:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {x.size}") from None
    return out


def _reshape_copy(x, shape=()):
    """x copied into a new shape"""
    if x.__class__ is ndarray and not x.flags.c_contiguous:
        return xp.ascontiguousarray(x).reshape(shape)  # (one copy, where reshape's is one more)
    return xp.reshape(x, shape).copy()


view = defop(
    "view",
    _view,
    dtypes=KEEP,
    view=True,
    vjp=lambda g, x_shape: reshape(g, x_shape),  # Jᵀg = g reshaped back to x's shape
    jvp=lambda t, shape: reshape(t, shape),  # J t = t in the new shape
    complex="wirtinger",
)

# reshape's view of a tensor that is not contiguous (PyTorch's _reshape_alias)
reshape_alias = defop(
    "reshape_alias",
    _view,
    dtypes=KEEP,
    view=True,
    node="ReshapeAliasBackward0",
    vjp=lambda g, x_shape: reshape(g, x_shape),  # Jᵀg = g reshaped back to x's shape
    jvp=lambda t, shape: reshape(t, shape),  # J t = t in the new shape
    complex="wirtinger",
)

reshape_copy = defop(
    "reshape_copy",
    _reshape_copy,
    dtypes=KEEP,
    node="UnsafeViewBackward0",
    vjp=lambda g, x_shape: reshape(g, x_shape),  # Jᵀg = g reshaped back to x's shape
    jvp=lambda t, shape: reshape(t, shape),  # J t = t in the new shape
    complex="wirtinger",
)


def reshape(x, shape):
    """A view when the memory layout allows it, else a copy (PyTorch's rule)."""
    shape = infer_shape(shape, _size(x))
    data = x._data if hasattr(x, "_data") else xp.asarray(x)
    if data.flags.c_contiguous:
        return view(x, shape=shape)
    if _viewable(data, shape):  # (a meta array has no strides of its own: a view)
        return reshape_alias(x, shape=shape) if data.__class__ is ndarray else view(x, shape=shape)
    return reshape_copy(x, shape=shape)


_viewable = viewable


def _size(x) -> int:
    return x._data.size if hasattr(x, "_data") else x.size


def infer_shape(shape, numel: int) -> tuple:
    """Resolve one -1 in ``shape``, with PyTorch's errors for impossible shapes (checked dim
    by dim, as PyTorch's: a second -1, a size below -1)."""
    shape = tuple(int(s) for s in shape)
    inferred, known = None, 1
    for i, s in enumerate(shape):
        if s == -1:
            if inferred is not None:
                raise RuntimeError("only one dimension can be inferred")
            inferred = i
        elif s >= 0:
            known *= s
        else:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {list(shape)}")
    if inferred is None:
        if known != numel:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        return shape
    if known == 0 and numel == 0:
        raise RuntimeError(
            f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
            "unspecified dimension size -1 can be any value and is ambiguous"
        )
    if known == 0 or numel % known:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape[:inferred] + (numel // known,) + shape[inferred + 1 :]


def _sum_to(x, shape=()):
    """x summed over the dims that broadcasting to x.shape added or stretched from shape"""
    lead = x.ndim - len(shape)
    if lead == 1 and x.__class__ is ndarray and x.shape[1:] == shape:
        # a batch summed (a bias's gradient): the one reduction below, its axes known
        return asanyarray(add_reduce(x, 0))  # (by BLAS where that is faster)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and x.shape[lead + i] != 1
    )
    if not axes:
        return x.reshape(shape)
    if lead == len(axes) > 1:  # batch and time summed (a (B, T, F) gradient's bias part)
        total = add_reduce_run(x, axes)
        if total is not None:
            return total
    # (np.sum's Python wrappers skipped for NumPy's arrays: add.reduce is what they call)
    reduce = xp.add.reduce if x.__class__ is ndarray else xp.sum
    if x.dtype in REDUCED:  # bfloat16 (ml_dtypes): accumulated in float32, rounded once
        reduce = widened_add_reduce
    if lead == len(axes) or not lead:
        # one reduction straight to the shape: the result owns its memory, so a gradient
        # summed here is stored as .grad without a copy
        return asanyarray(reduce(x, axis=axes, keepdims=not lead))  # (a scalar: 0-d)
    return reduce(x, axis=axes, keepdims=True).reshape(shape)


sum_to = defop(
    "sum_to",
    _sum_to,
    dtypes=KEEP,
    node="SumBackward1",
    vjp=lambda g, x_shape: expand(g, x_shape),  # Jᵀg = g broadcast to x's shape
    jvp=lambda t, ans: sum_to(t, shape=ans.shape),  # J t = t summed to the shape (ans's)
    complex="wirtinger",
)


def _expand(x, shape=()):
    """x broadcast to shape (a read-only view)"""
    shape = tuple(x.shape[i - len(shape) + x.ndim] if s == -1 else s for i, s in enumerate(shape))
    lead = len(shape) - x.ndim
    if shape == (1,) * lead + x.shape:  # nothing repeats: a writable view
        return x[(None,) * lead + (Ellipsis,)]  # (``...``: a 0-d x's view, not a scalar copy)
    if x.__class__ is ndarray and lead >= 0 and x.size and x.flags.c_contiguous:
        return _broadcast_contiguous(x, shape, lead)
    return xp.broadcast_to(x, shape)


def _broadcast_contiguous(x, shape: tuple, lead: int):
    """``np.broadcast_to(x, shape)`` for a contiguous, non-empty array: the same read-only
    view of x's memory (stride 0 along the dims it repeats), made by the array constructor
    rather than NumPy's Python wrappers (a sum's VJP, once per backward: 0.6 µs against 2)."""
    strides = [0] * lead
    for d, s, st in zip(x.shape, shape[lead:], x.strides):
        if d == s:
            strides.append(st)
        elif d == 1:
            strides.append(0)
        else:  # (NumPy's error: does not broadcast)
            return xp.broadcast_to(x, shape)
    out = ndarray(shape, x.dtype, x, 0, tuple(strides))
    out.flags.writeable = False
    return out


expand = defop(
    "expand",
    _expand,
    dtypes=KEEP,
    view=True,
    vjp=lambda g, x_shape: sum_to(g, x_shape),  # Jᵀg = g summed back to x's shape
    jvp=lambda t, ans: expand(t, shape=ans.shape),  # J t = t broadcast to the shape
    complex="wirtinger",
)


def _permute(x, dims=()):
    """x with its dims reordered"""
    return xp.transpose(x, dims)


def _inverse(dims) -> tuple:
    inv = [0] * len(dims)
    for i, d in enumerate(dims):
        inv[d] = i
    return tuple(inv)


permute = defop(
    "permute",
    _permute,
    dtypes=KEEP,
    view=True,
    vjp=lambda g, dims: permute(g, dims=_inverse(dims)),  # Jᵀg = g by the inverse permutation
    jvp=lambda t, dims: permute(t, dims=dims),  # J t = t permuted by dims
    complex="wirtinger",
)


def _t(x, variant=0):
    """the transpose of a matrix (a 0-d or 1-D tensor is returned as is)"""
    if x.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D")
    return x.T


# variant 1: the in-place t_ and transpose_ (TBackward1, TransposeBackward1)
t = defop(
    "t",
    _t,
    dtypes=KEEP,
    view=True,
    node=lambda x, variant=0: f"TBackward{variant}",
    vjp=lambda g: g.T if g.__class__ is ndarray else t(g),  # Jᵀg = gᵀ, as (Aᵀ)ᵀ = A
    jvp=lambda tan: t(tan),  # J t = tᵀ
    complex="wirtinger",
)


def _transpose(x, dim0=0, dim1=1, variant=0):
    """x with dims dim0 and dim1 swapped"""
    return x.swapaxes(dim0, dim1) if x.ndim else x.view()  # (the array's own method: a view)


transpose = defop(
    "transpose",
    _transpose,
    dtypes=KEEP,
    view=True,
    node=lambda x, dim0=0, dim1=1, variant=0: f"TransposeBackward{variant}",
    vjp=lambda g, dim0, dim1: transpose(g, dim0=dim0, dim1=dim1),  # Jᵀg = g swapped back
    jvp=lambda t, dim0, dim1: transpose(t, dim0=dim0, dim1=dim1),  # as the VJP
    complex="wirtinger",
)


# ----- helpers ---------------------------------------------------------------------------


def _zeros(shape: tuple, like) -> Any:
    """Zeros of ``shape`` in ``like``'s dtype: the base a JVP scatters a tangent into."""
    return xp.zeros(shape, dtype=np_dtype(like))


def _ints(args: tuple) -> tuple:
    """Sizes given as varargs (``x.repeat(2, 3)``) or as one sequence (``x.repeat((2, 3))``)."""
    if len(args) == 1 and not isinstance(args[0], int) and not _is_int_tensor(args[0]):
        return tuple(int(a) for a in args[0])
    return tuple(int(a) for a in args)


def _is_int_tensor(a) -> bool:
    return isinstance(a, Tensor) and a._data.ndim == 0 and not a._dtype.is_floating_point


def _key_of(dim: int, part) -> tuple:
    """The indexing key that applies ``part`` (an int or a slice) to dim ``dim``."""
    return (slice(None),) * dim + (part,)


# ----- squeeze, unsqueeze, movedim, flatten ----------------------------------------------


def _squeeze(x, dims=None, variant=0):
    """x without its size-1 dims among dims (every size-1 dim when dims is None)"""
    if dims is None:
        out = xp.squeeze(x)
        return x.view() if out is x else out  # (NumPy's squeeze gives x itself: no view)
    axes = tuple(d for d in dims if d < x.ndim and x.shape[d] == 1)
    return xp.squeeze(x, axis=axes) if axes else x.view()


# variant: 0 squeeze(), 1 squeeze(dim), 2 squeeze(dims); 3, 4, 5 the same in place (squeeze_)
squeeze = defop(
    "squeeze",
    _squeeze,
    dtypes=KEEP,
    view=True,
    node=lambda x, dims=None, variant=0: f"SqueezeBackward{variant}",
    vjp=lambda g, x_shape: reshape(g, x_shape),  # Jᵀg = g with the size-1 dims back
    jvp=lambda t, dims: squeeze(t, dims=dims),  # J t = t squeezed
    complex="wirtinger",
)


def _unsqueeze(x, dim=0, variant=0):
    """x with a size-1 dim inserted at dim"""
    shape = x.shape
    if dim < 0:
        dim += len(shape) + 1
    if not 0 <= dim <= len(shape):
        return xp.expand_dims(x, dim)  # (its AxisError)
    return x.reshape(shape[:dim] + (1,) + shape[dim:])  # (expand_dims' own step: a view)


unsqueeze = defop(
    "unsqueeze",
    _unsqueeze,
    dtypes=KEEP,
    view=True,
    node=lambda x, dim=0, variant=0: f"UnsqueezeBackward{variant}",
    vjp=lambda g, dim: squeeze(g, dims=(dim,), variant=1),  # Jᵀg = g without the inserted dim
    jvp=lambda t, dim: unsqueeze(t, dim=dim),  # J t = t with the size-1 dim inserted
    complex="wirtinger",
)

# ----- narrow, select, split, chunk, unbind -----------------------------------------------


def _narrow(x, dim=0, start=0, length=0):
    """x[..., start:start + length, ...] along dim (a view)"""
    return x[_key_of(dim, slice(start, start + length))]


narrow = defop(
    "narrow",
    _narrow,
    dtypes=KEEP,
    view=True,
    node="SliceBackward0",
    vjp=lambda g, x_shape, dim, start, length: indexing.index_into_zeros(
        g, shape=x_shape, key=_key_of(dim, slice(start, start + length))
    ),  # Jᵀg = zeros of x's shape with g at the slice
    jvp=lambda t, dim, start, length: narrow(
        t, dim=dim, start=start, length=length
    ),  # J t = t's slice
    complex="wirtinger",
)


def _piece_key(dim: int, start: int, stop: int, unbind: bool) -> tuple:
    """The key of one piece; an unbound piece ends in ``...`` so that a 0-d piece is still a
    view of x (NumPy gives a scalar copy for a full integer key)."""
    return _key_of(dim, start) + (Ellipsis,) if unbind else _key_of(dim, slice(start, stop))


def _split(x, dim=0, sizes=(), unbind=False, kind="Split"):
    """x cut along dim into views of the given sizes (unbind: size-1 pieces, dim dropped)"""
    out = []
    start = 0
    for s in sizes:
        out.append(x[_piece_key(dim, start, start + s, unbind)])
        start += s
    return tuple(out)


def _unsplit(g, x_shape, dim, sizes, unbind):
    """The VJP of split: the pieces' gradients joined back, zeros for unused pieces."""
    parts = g if isinstance(g, tuple) else (g,)
    dtype = next(np_dtype(p) for p in parts if p is not None)
    filled = []
    for p, s in zip(parts, sizes):
        if p is None:
            shape = list(x_shape)
            if unbind:
                del shape[dim]
            else:
                shape[dim] = s
            p = xp.zeros(shape, dtype=dtype)
        filled.append(p)
    if unbind:
        return joining.stack(filled, dim=dim)
    offsets = tuple(sum(sizes[:i]) for i in range(len(sizes) + 1))
    return joining.cat(filled, dim=dim, offsets=offsets)


split = defop(
    "split",
    _split,
    dtypes=KEEP,
    node=lambda x, dim=0, sizes=(), unbind=False, kind="Split": f"{kind}Backward0",
    vjp=lambda g, x_shape, dim, sizes, unbind: _unsplit(
        g, x_shape, dim, sizes, unbind
    ),  # Jᵀg = the pieces' gradients joined back along dim (zeros for a piece without one)
    # forward mode: _split_views attaches the split tangent to each piece
    jvp=lambda t, dim, sizes, unbind: split(
        t, dim=dim, sizes=sizes, unbind=unbind
    ),  # J t = t split the same way
    conventions="Pieces that receive no gradient count as zeros.",
    complex="wirtinger",
)


def _piece(x, dim=0, start=0, stop=0, unbind=False, kind="Split", output=0):
    """one output of split or unbind, re-derived from its base (a view)"""
    return x[_piece_key(dim, start, stop, unbind)]


piece = defop(
    "split_piece",
    _piece,
    dtypes=KEEP,
    view=True,
    node=lambda x, kind="Split", **_: f"{kind}Backward0",
    vjp=lambda g, x_shape, dim, start, stop, unbind: indexing.index_into_zeros(
        g, shape=x_shape, key=_key_of(dim, start if unbind else slice(start, stop))
    ),  # Jᵀg = zeros of x's shape with g at the piece
    jvp=lambda t, dim, start, stop, unbind: piece(
        t, dim=dim, start=start, stop=stop, unbind=unbind
    ),  # J t = the same piece of t
    complex="wirtinger",
)


def _refuse_inplace(params: dict) -> str:
    """PyTorch's refusal to modify in place a view that shares its node with other views."""
    return (
        f"Output {params['output']} of {params['kind']} is a view and is being "
        "modified inplace. This view is the output of a function that returns multiple views. "
        "Such functions do not allow the output views to be modified inplace. You should "
        "replace the inplace operation by an out-of-place one."
    )


piece.refuse_inplace = _refuse_inplace  # read by autograd/inplace.py


# ----- conf2: as_strided, view(dtype) -----------------------------------------------------


def empty_view(x, shape: tuple):
    """An empty array of ``shape`` that is a NumPy view of x (its base is x's memory)."""
    return (x[(slice(0, 0),) * x.ndim] if x.ndim else x[None][:0]).reshape(shape)


def _as_strided(x, size=(), stride=(), offset=0, x_strides=(), variant=0):
    """the elements of x's storage at offset + Σ i_k stride_k (offset relative to x's first
    element), a view of that memory (``x_strides``, x's own strides, serve the derivatives;
    ``variant`` 1 names the node of the in-place form)"""
    if 0 in size:  # (no element to place: x's storage may even be empty)
        return empty_view(x, tuple(size))
    item = x.itemsize
    out = strided_view(x, size, tuple(s * item for s in stride), offset * item)
    if any(s == 0 and n > 1 for n, s in zip(size, stride)):  # (elements sharing a place:
        out.flags.writeable = False  # PyTorch refuses writes into it, as into an expand)
    return out


def _grid(shape, strides, start=0):
    """start + Σ i_k strides_k over the index grid of ``shape``"""
    out = xp.full(tuple(shape), start, dtype=xp.int64)
    for d, s in enumerate(strides):
        ones = [1] * len(shape)
        ones[d] = shape[d]
        out = out + (xp.arange(shape[d]) * s).reshape(ones)
    return out


def _strided_positions(x_shape, x_strides, size, stride, offset):
    """(index into x's flattened elements, found) for each element of as_strided(x, ...):
    the x element at the same storage place, if any."""
    own = _grid(x_shape, x_strides).reshape(-1)
    out = _grid(size, stride, offset)
    if own.size == 0:
        return xp.zeros(out.shape, dtype=xp.int64), xp.zeros(out.shape, dtype=bool)
    order = xp.argsort(own, kind="stable")
    ranked = own[order]
    place = xp.clip(xp.searchsorted(ranked, out), 0, ranked.size - 1)
    return order[place], ranked[place] == out


def _as_strided_vjp(g, x_shape, x_strides, size, stride, offset):
    """Jᵀg: each output element's gradient added to the input element at its storage place
    (overlapping outputs add up), as PyTorch's AsStridedBackward0"""
    index, found = _strided_positions(x_shape, x_strides, size, stride, offset)
    numel = int(xp.prod(x_shape, dtype=xp.int64)) if x_shape else 1
    flat = indexing.index_into_zeros(g * found.astype(np_dtype(g)), shape=(numel,), key=index)
    return reshape(flat, x_shape)


def _as_strided_jvp(t, x_shape, x_strides, size, stride, offset):
    """J t = t's elements at the output's storage places (0 outside the input's elements)"""
    index, found = _strided_positions(x_shape, x_strides, size, stride, offset)
    return indexing.take(t, index) * found.astype(np_dtype(t))


as_strided = defop(
    "as_strided",
    _as_strided,
    dtypes=KEEP,
    view=True,
    node=lambda x, variant=0, **_: f"AsStridedBackward{variant}",
    vjp=_as_strided_vjp,
    jvp=_as_strided_jvp,
    conventions="Output elements that share a storage place add their gradients there; "
    "places outside the input's own elements get no gradient (and tangent 0).",
    complex="wirtinger",
)


def _view_dtype(x, dtype=None):
    """x's bytes read as another dtype (the last dim rescaled by the ratio of the sizes)"""
    return x.view(dtype)


view_dtype = defop("view_dtype", _view_dtype, dtypes=KEEP, view=True, vjp=None)
