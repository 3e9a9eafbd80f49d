"""Shapes, joining and indexing: squeeze/unsqueeze, movedim, repeat/tile, flip/roll, narrow/split/chunk/unbind, cat/stack, gather/scatter, index_select/index_add, masked_fill/masked_select, take; their public functions and the Tensor methods they provide.

Each op is one ``defop`` entry (see docs/architecture.md). Shape ops are linear, so each
JVP is the op itself applied to the tangent, and each VJP is the op's transpose (a
reshape back, a scatter into zeros, a sum over repeats). ``cat`` and ``stack`` take a
sequence of tensors, so they are ``SequenceOp`` entries: one VJP written for the i-th
tensor. ``split``, ``chunk`` and ``unbind`` return several views through one node.

``__all__`` lists the public functions ``chainrule`` exports from here;
``TENSOR_METHODS`` the Tensor methods.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy

from .._backend import ndarray, xp
from .._dtypes import int64
from .._tensor import Tensor, _counter, _make, _wrap_dim
from ..autograd import forward_ad, grad_mode
from ..autograd.inplace import check_inplace, view_scatter
from ..autograd.inplace import inplace as _inplace
from ..autograd.recording import KEEP, SequenceOp, defop
from ..autograd.views import view_record
from . import elementwise as ew
from . import reductions as red
from . import shape as sh
from .functions import _tensor_arg, inplace

__all__ = [
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "cat",
    "chunk",
    "column_stack",
    "concat",
    "concatenate",
    "dstack",
    "flatten",
    "flip",
    "gather",
    "hstack",
    "index_add",
    "index_copy",
    "index_fill",
    "index_put",
    "index_select",
    "masked_fill",
    "masked_scatter",
    "masked_select",
    "movedim",
    "moveaxis",
    "narrow",
    "permute",
    "roll",
    "row_stack",
    "scatter",
    "scatter_add",
    "select",
    "split",
    "squeeze",
    "stack",
    "swapaxes",
    "swapdims",
    "take",
    "take_along_dim",
    "tile",
    "transpose",
    "unbind",
    "unflatten",
    "unsqueeze",
    "vstack",
]


# ----- helpers ---------------------------------------------------------------------------


def _np_dtype(a) -> Any:
    """The NumPy dtype of a tensor or an array."""
    return a._data.dtype if isinstance(a, Tensor) else xp.asarray(a).dtype


def _zeros(shape: tuple, like) -> Any:
    """Zeros of ``shape`` in ``like``'s dtype: the base a JVP scatters a tangent into."""
    return xp.zeros(shape, dtype=_np_dtype(like))


def _arr(a) -> Any:
    """A tensor's array, or the array itself (index arguments inside VJPs)."""
    return a._data if isinstance(a, Tensor) else a


def _dim(dim: int, ndim: int) -> int:
    """dim wrapped into [0, ndim) with PyTorch's IndexError (a 0-d tensor takes -1 and 0)."""
    return _wrap_dim(operator.index(dim), ndim)


def _dims(dims, ndim: int) -> tuple:
    """A sequence of dims, wrapped, with PyTorch's error for a repeated dim."""
    out = tuple(_dim(d, ndim) for d in dims)
    for i, d in enumerate(out):
        if d in out[:i]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return out


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
        return xp.squeeze(x)
    axes = tuple(d for d in dims if d < x.ndim and x.shape[d] == 1)
    return xp.squeeze(x, axis=axes) if axes else x.view()


# variant: 0 squeeze(), 1 squeeze(dim), 2 squeeze(dims); 3, 4, 5 the same in place (squeeze_)
squeeze_op = defop(
    "squeeze",
    _squeeze,
    dtypes=KEEP,
    view=True,
    node=lambda x, dims=None, variant=0: f"SqueezeBackward{variant}",
    vjp=lambda g, x_shape: sh.reshape(g, x_shape),  # put the size-1 dims back
    jvp=lambda t, dims: squeeze_op(t, dims=dims),
)


def _unsqueeze(x, dim=0, variant=0):
    """x with a size-1 dim inserted at dim"""
    return xp.expand_dims(x, dim)


unsqueeze_op = defop(
    "unsqueeze",
    _unsqueeze,
    dtypes=KEEP,
    view=True,
    node=lambda x, dim=0, variant=0: f"UnsqueezeBackward{variant}",
    vjp=lambda g, x_shape: sh.reshape(g, x_shape),  # drop the inserted dim
    jvp=lambda t, dim: unsqueeze_op(t, dim=dim),
)


def squeeze(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    """input without its size-1 dims (only among ``dim`` when given): a view."""
    nd = input._data.ndim
    if dim is None:
        return squeeze_op(input, dims=None, variant=0)
    if isinstance(dim, (tuple, list)):
        return squeeze_op(input, dims=_dims(dim, nd), variant=2)
    return squeeze_op(input, dims=(_dim(dim, nd),), variant=1)


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """input with a size-1 dim inserted at ``dim`` (in [-ndim-1, ndim]): a view."""
    return unsqueeze_op(input, dim=_dim(dim, input._data.ndim + 1), variant=0)


def movedim(input: Tensor, source, destination) -> Tensor:
    """input with dims ``source`` moved to positions ``destination`` (a permute)."""
    nd = input._data.ndim
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(src)} dims) should "
            f"contain the same number of dims as destination ({list(dst)} dims)"
        )
    s = tuple(_dim(d, nd) for d in src)
    d = tuple(_dim(v, nd) for v in dst)
    for what, given, dims in (("source", src, s), ("destination", dst, d)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{what}` ({list(given)})")
    if not nd:
        return sh.getitem(input, key=Ellipsis)  # a 0-d tensor: an alias, as in PyTorch
    order = [-1] * nd
    for a, b in zip(s, d):
        order[b] = a
    rest = iter(i for i in range(nd) if i not in s)
    order = tuple(next(rest) if o == -1 else o for o in order)
    return sh.permute(input, dims=order)


moveaxis = movedim


def permute(input: Tensor, dims) -> Tensor:
    """input with its dims reordered: a view."""
    dims = tuple(dims)
    nd = input._data.ndim
    if len(dims) != nd:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {nd} is not equal "
            f"to len(dims) = {len(dims)}"
        )
    wrapped = tuple(_dim(d, nd) for d in dims)
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return sh.permute(input, dims=wrapped if nd else ())


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """input with dims dim0 and dim1 swapped: a view."""
    nd = input._data.ndim
    return sh.transpose(input, dim0=_dim(dim0, nd), dim1=_dim(dim1, nd))


swapaxes = swapdims = transpose


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """input with dims start_dim..end_dim merged into one."""
    nd = input._data.ndim
    if nd == 0:
        return sh.reshape(input, (1,))
    s, e = _dim(start_dim, nd), _dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shape = input._data.shape
    return sh.reshape(input, shape[:s] + (math.prod(shape[s : e + 1]),) + shape[e + 1 :])


def unflatten(input: Tensor, dim: int, sizes) -> Tensor:
    """input with dim ``dim`` split into ``sizes`` (one may be -1)."""
    shape = input._data.shape
    if not shape:
        raise RuntimeError(
            "unflatten got an unexpected error:\nDimension specified as 0 but tensor has no "
            "dimensions"
        )
    d = _dim(dim, input._data.ndim)
    sizes = tuple(int(s) for s in sizes)
    known = math.prod(s for s in sizes if s != -1)
    if -1 in sizes and known:
        sizes = tuple(shape[d] // known if s == -1 else s for s in sizes)
    if math.prod(sizes) != shape[d]:
        raise RuntimeError(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim "
            f"{dim} ({shape[d]}) in the input tensor"
        )
    return sh.reshape(input, shape[:d] + sizes + shape[d + 1 :])


def contiguous(input: Tensor, memory_format: Any = None) -> Tensor:
    """input itself when its memory is C-contiguous, else a contiguous copy (CloneBackward0)."""
    if input._data.flags.c_contiguous:
        return input
    return ew.clone(input)


# ----- repeat, tile, flip, roll -----------------------------------------------------------


def _repeat(x, repeats=()):
    """x tiled repeats[i] times along dim i (leading size-1 dims added as needed)"""
    return xp.tile(x.reshape((1,) * (len(repeats) - x.ndim) + x.shape), repeats)


def _unrepeat(g, x_shape, repeats):
    """The VJP of repeat: view g as (r0, s0, r1, s1, ...) and sum over the repeats."""
    padded = (1,) * (len(repeats) - len(x_shape)) + tuple(x_shape)
    g = sh.reshape(g, tuple(v for r, s in zip(repeats, padded) for v in (r, s)))
    if repeats:
        g = red.sum(g, dim=tuple(range(0, 2 * len(repeats), 2)))
    return sh.reshape(g, tuple(x_shape))


repeat_op = defop(
    "repeat",
    _repeat,
    dtypes=KEEP,
    vjp=lambda g, x_shape, repeats: _unrepeat(g, x_shape, repeats),  # each copy adds to x
    jvp=lambda t, repeats: repeat_op(t, repeats=repeats),
)


def _flip(x, dims=()):
    """x reversed along dims (a copy, as in PyTorch)"""
    return xp.flip(x, axis=dims).copy() if x.ndim else x.copy()


flip_op = defop(
    "flip",
    _flip,
    dtypes=KEEP,
    vjp=lambda g, dims: flip_op(g, dims=dims),  # a reversal undoes itself
    jvp=lambda t, dims: flip_op(t, dims=dims),
)


def _roll(x, shifts=(), dims=None):
    """x shifted cyclically by shifts along dims (over the flattened tensor when dims is None)"""
    if dims is None:
        return xp.roll(x, shifts[0])
    return xp.roll(x, shifts, axis=dims)


roll_op = defop(
    "roll",
    _roll,
    dtypes=KEEP,
    vjp=lambda g, shifts, dims: roll_op(g, shifts=tuple(-s for s in shifts), dims=dims),
    jvp=lambda t, shifts, dims: roll_op(t, shifts=shifts, dims=dims),
)


def repeat(input: Tensor, *repeats) -> Tensor:
    """input tiled ``repeats[i]`` times along dim i (Tensor.repeat)."""
    repeats = _ints(repeats)
    if len(repeats) < input._data.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions "
            "of tensor"
        )
    if any(r < 0 for r in repeats):
        raise RuntimeError(f"Trying to create tensor with negative dimension: {list(repeats)}")
    return repeat_op(input, repeats=repeats)


def tile(input: Tensor, *dims) -> Tensor:
    """input repeated ``dims[i]`` times along dim i; missing leading dims repeat once."""
    dims = _ints(dims)
    dims = (1,) * (input._data.ndim - len(dims)) + dims
    return repeat(input, dims)


def flip(input: Tensor, *dims) -> Tensor:
    """input with the order of elements reversed along ``dims``."""
    return flip_op(input, dims=_dims(_ints(dims), input._data.ndim))


def roll(input: Tensor, shifts, dims=None) -> Tensor:
    """input shifted cyclically by ``shifts`` along ``dims`` (the flattened tensor if None)."""
    shifts = (shifts,) if isinstance(shifts, int) else tuple(int(s) for s in shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return roll_op(input, shifts=shifts, dims=None)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if not input._data.ndim and dims:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    if len(shifts) != len(dims):
        raise RuntimeError(
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}"
        )
    return roll_op(input, shifts=shifts, dims=tuple(_dim(d, input._data.ndim) for d in dims))


# ----- narrow, select, split, chunk, unbind -----------------------------------------------


def _narrow(x, dim=0, start=0, length=0):
    """x[..., start:start + length, ...] along dim (a view)"""
    return x[_key_of(dim, slice(start, start + length))]


narrow_op = defop(
    "narrow",
    _narrow,
    dtypes=KEEP,
    view=True,
    node="SliceBackward0",
    vjp=lambda g, x_shape, dim, start, length: sh.index_into_zeros(
        g, shape=x_shape, key=_key_of(dim, slice(start, start + length))
    ),  # the slice's gradient in place, zeros elsewhere
    jvp=lambda t, dim, start, length: narrow_op(t, dim=dim, start=start, length=length),
)


def narrow(input: Tensor, dim: int, start, length: int) -> Tensor:
    """The ``length`` elements of input from ``start`` along ``dim``: a view."""
    nd = input._data.ndim
    if nd == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = _dim(dim, nd)
    size = input._data.shape[d]
    start, length = operator.index(start), operator.index(length)
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    start %= max(size, 1)
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return narrow_op(input, dim=d, start=start, length=length)


def select(input: Tensor, dim: int, index: int) -> Tensor:
    """input at position ``index`` of dim ``dim``, that dim removed: a view."""
    nd = input._data.ndim
    if nd == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _dim(dim, nd)
    size = input._data.shape[d]
    index = operator.index(index)
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size "
            f"{list(input._data.shape)} at dimension {dim}"
        )
    return sh.getitem(input, key=_key_of(d, index % size))


def _split(x, dim=0, sizes=(), unbind=False, kind="Split"):
    """x cut along dim into views of the given sizes (unbind: size-1 pieces, dim dropped)"""
    out = []
    start = 0
    for s in sizes:
        out.append(x[_key_of(dim, start if unbind else slice(start, start + s))])
        start += s
    return tuple(out)


def _unsplit(g, x_shape, dim, sizes, unbind):
    """The VJP of split: the pieces' gradients joined back, zeros for unused pieces."""
    parts = g if isinstance(g, tuple) else (g,)
    dtype = next(_np_dtype(p) for p in parts if p is not None)
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
        return stack_op(filled, dim=dim)
    offsets = tuple(sum(sizes[:i]) for i in range(len(sizes) + 1))
    return cat_op(filled, dim=dim, offsets=offsets)


split_op = defop(
    "split",
    _split,
    dtypes=KEEP,
    node=lambda x, dim=0, sizes=(), unbind=False, kind="Split": f"{kind}Backward0",
    vjp=lambda g, x_shape, dim, sizes, unbind: _unsplit(g, x_shape, dim, sizes, unbind),
    # forward mode: _split_views attaches the split tangent to each piece
    jvp=lambda t, dim, sizes, unbind: split_op(t, dim=dim, sizes=sizes, unbind=unbind),
    conventions="Pieces that receive no gradient count as zeros.",
)


def _piece(x, dim=0, start=0, stop=0, unbind=False, kind="Split", output=0):
    """one output of split or unbind, re-derived from its base (a view)"""
    return x[_key_of(dim, start if unbind else slice(start, stop))]


piece_op = defop(
    "split_piece",
    _piece,
    dtypes=KEEP,
    view=True,
    node=lambda x, kind="Split", **_: f"{kind}Backward0",
    vjp=lambda g, x_shape, dim, start, stop, unbind: sh.index_into_zeros(
        g, shape=x_shape, key=_key_of(dim, start if unbind else slice(start, stop))
    ),  # the piece's gradient in place, zeros elsewhere
    jvp=lambda t, dim, start, stop, unbind: piece_op(
        t, dim=dim, start=start, stop=stop, unbind=unbind
    ),
)


def _refuse_inplace(params: dict) -> str:
    """PyTorch's refusal to modify in place a view that shares its node with other views."""
    return (
        f"Output {params['output']} of {params['kind']}Backward0 is a view and is being "
        "modified inplace. This view is the output of a function that returns multiple views. "
        "Such functions do not allow the output views to be modified inplace. You should "
        "replace the inplace operation by an out-of-place one."
    )


piece_op.refuse_inplace = _refuse_inplace  # read by autograd/inplace.py


def _split_views(input: Tensor, d: int, sizes: tuple, unbind: bool, kind: str) -> tuple:
    """Run split_op and make its outputs views of input: shared memory and version counter,
    each recorded as a piece (so in-place writes into them are refused, as in PyTorch)."""
    outs = split_op(input, dim=d, sizes=sizes, unbind=unbind, kind=kind)
    if not isinstance(outs, tuple):  # split_op called on an array
        return outs
    vc = _counter(input)
    start = 0
    for i, (out, s) in enumerate(zip(outs, sizes)):
        params = {
            "dim": d,
            "start": start,
            "stop": start + s,
            "unbind": unbind,
            "kind": kind,
            "output": i,
        }
        start += s
        if out._data.size and xp.may_share_memory(out._data, input._data):
            out._vc = vc
            out._view = view_record(piece_op, input, params, vc)
    tangent = forward_ad.tangent_of(input)
    if tangent is not None and forward_ad.state.level:
        with forward_ad.paused():
            parts = split_op(tangent, dim=d, sizes=sizes, unbind=unbind, kind=kind)
        for out, part in zip(outs, parts):
            forward_ad.attach(out, _make(part._data, part._dtype))
    return outs


def split(tensor: Tensor, split_size_or_sections, dim: int = 0) -> tuple:
    """tensor cut along ``dim`` into pieces of ``split_size`` (the last may be smaller), or of
    the sizes in a list: views."""
    nd = tensor._data.ndim
    if nd == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _dim(dim, nd)
    n = tensor._data.shape[d]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = tuple(int(s) for s in split_size_or_sections)
        if sum(sizes) != n or any(s < 0 for s in sizes):
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's "
                f"size at dimension {d}), but got split_sizes={list(sizes)}"
            )
        return _split_views(tensor, d, sizes, False, "SplitWithSizes")
    size = operator.index(split_size_or_sections)
    if size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={size}")
    if size == 0:
        if n:
            raise RuntimeError(
                f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}"
            )
        return _split_views(tensor, d, (0,), False, "Split")
    sizes = (size,) * (n // size) + ((n % size,) if n % size or n == 0 else ())
    return _split_views(tensor, d, sizes, False, "Split")


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """input cut along ``dim`` into at most ``chunks`` pieces of equal size (the last may be
    smaller): views."""
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    nd = input._data.ndim
    if nd == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    d = _dim(dim, nd)
    n = input._data.shape[d]
    if n == 0:
        return _split_views(input, d, (0,) * chunks, False, "SplitWithSizes")
    return split(input, -(-n // chunks), d)


def unbind(input: Tensor, dim: int = 0) -> tuple:
    """The slices of input along ``dim``, that dim removed: views."""
    nd = input._data.ndim
    if nd == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _dim(dim, nd)
    return _split_views(input, d, (1,) * input._data.shape[d], True, "Unbind")


# ----- cat and stack: ops over a sequence of tensors ---------------------------------------


def _cat(arrays, dim=0, offsets=()):
    """the arrays joined along dim (1-D empty arrays are skipped, as in PyTorch)"""
    kept = [a for a in arrays if not (a.ndim == 1 and a.shape[0] == 0)] or arrays[:1]
    return xp.concatenate(kept, axis=dim)


cat_op = SequenceOp(
    "cat",
    _cat,
    node="CatBackward0",
    vjp=lambda g, i, dim, offsets: sh.getitem(
        g, key=_key_of(dim, slice(offsets[i], offsets[i + 1]))
    ),  # the i-th tensor's block of the gradient
    jvp=lambda tangents, dim, offsets: cat_op(tangents, dim=dim, offsets=offsets),
)


def _stack(arrays, dim=0):
    """the arrays stacked along a new dim"""
    return xp.stack(arrays, axis=dim)


stack_op = SequenceOp(
    "stack",
    _stack,
    node="StackBackward0",
    vjp=lambda g, i, dim: sh.getitem(g, key=_key_of(dim, i)),  # the i-th slice of the gradient
    jvp=lambda tangents, dim: stack_op(tangents, dim=dim),
)


def _tensor_list(tensors, what: str) -> list:
    if isinstance(tensors, Tensor):
        raise TypeError(f"{what}(): argument 'tensors' must be tuple of Tensors, not Tensor")
    return [t if isinstance(t, Tensor) else _tensor_arg(t) for t in tensors]


def cat(tensors: Sequence[Tensor], dim: int = 0, *, out: Any = None) -> Tensor:
    """The tensors joined along ``dim``; dtypes promote as in PyTorch."""
    tensors = _tensor_list(tensors, "cat")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    used = [t for t in tensors if not (t._data.ndim == 1 and t._data.shape[0] == 0)]
    for i, t in enumerate(tensors):
        if t._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    ref = used[0] if used else tensors[0]
    nd = ref._data.ndim
    d = _dim(dim, nd)
    used_ids = {id(t) for t in used}
    for i, t in enumerate(tensors):
        if id(t) not in used_ids:
            continue
        if t._data.ndim != nd:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {nd} and {t._data.ndim}"
            )
        for k in range(nd):
            if k != d and t._data.shape[k] != ref._data.shape[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{ref._data.shape[k]} but got size {t._data.shape[k]} for tensor number "
                    f"{i} in the list."
                )
    if used and len(used) < len(tensors):
        tensors = used  # 1-D empty tensors are skipped (they get no gradient)
    sizes = [t._data.shape[d] if t._data.ndim == nd else 0 for t in tensors]
    offsets = tuple(sum(sizes[:i]) for i in range(len(sizes) + 1))
    return cat_op(tensors, dim=d, offsets=offsets)


def concatenate(tensors: Sequence[Tensor], axis: int = 0, out: Any = None) -> Tensor:
    return cat(tensors, axis)


concat = cat


def stack(tensors: Sequence[Tensor], dim: int = 0, *, out: Any = None) -> Tensor:
    """The tensors (all of one shape) stacked along a new dim ``dim``."""
    tensors = _tensor_list(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shape = tensors[0]._data.shape
    for i, t in enumerate(tensors):
        if t._data.shape != shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 "
                f"and {list(t._data.shape)} at entry {i}"
            )
    return stack_op(tensors, dim=_dim(dim, len(shape) + 1))


def hstack(tensors: Sequence[Tensor], *, out: Any = None) -> Tensor:
    """The tensors joined column-wise (along dim 0 for 1-D tensors, else dim 1)."""
    tensors = [t if t._data.ndim else sh.reshape(t, (1,)) for t in _tensor_list(tensors, "hstack")]
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    return cat(tensors, 0 if tensors[0]._data.ndim == 1 else 1)


def vstack(tensors: Sequence[Tensor], *, out: Any = None) -> Tensor:
    """The tensors joined row-wise, 0-d and 1-D tensors first made rows."""
    parts = []
    for t in _tensor_list(tensors, "vstack"):
        nd = t._data.ndim
        parts.append(t if nd >= 2 else sh.reshape(t, (1, t._data.size)))
    return cat(parts, 0)


# ----- gather, scatter, scatter_add -------------------------------------------------------


def _along(index, dim: int) -> tuple:
    """The key that picks, for every position p of index, x[p with p[dim] = index[p]]."""
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
    return sh.index_into_zeros(g, shape=src_shape, key=tuple(slice(0, n) for n in index.shape))


gather_op = defop(
    "gather",
    _gather,
    args=("x", "index"),
    dtypes=KEEP,
    vjp=(
        # each gathered element's gradient goes back to where it came from (repeats add)
        lambda g, x_shape, index, dim: scatter_add_op(
            xp.zeros(x_shape, dtype=_np_dtype(g)), index, g, dim=dim
        ),
        None,
    ),
    jvp=(lambda t, index, dim: gather_op(t, index, dim=dim), None),
    conventions="An element gathered several times gets the sum of their gradients.",
)


def _scatter(x, index, src, dim=0, reduce=None):
    """x with src's elements written at index along dim (reduce: added or multiplied in)"""
    out = x.copy()
    if x.ndim == 0:  # every index is 0: each element of src lands on the one element
        if not index.size:
            return out
        s = xp.broadcast_to(src, index.shape) if xp.ndim(src) == 0 else _head(src, index.shape)
        if reduce is None:
            out[...] = s.reshape(-1)[-1]
        elif reduce == "add":
            out[...] += s.sum()
        else:
            out[...] *= s.prod()
        return out
    key = _along(index, dim)
    s = _head(src, index.shape) if isinstance(src, ndarray) and src.ndim else src
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
    return scatter_value_op(g, index, dim=dim, value=0.0)  # overwritten places lose x


def _scatter_vjp_src(g, index, src_shape, dim, reduce):
    _no_reduce_grad(reduce)
    return _pad_to(gather_op(g, index, dim=dim), index, src_shape)


scatter_op = defop(
    "scatter",
    _scatter,
    args=("x", "index", "src"),
    dtypes=KEEP,
    node=_scatter_node,
    vjp=(
        lambda g, index, dim, reduce: _scatter_vjp_x(g, index, dim, reduce),
        None,
        lambda g, index, src_shape, dim, reduce: _scatter_vjp_src(g, index, src_shape, dim, reduce),
    ),
    jvp=(
        lambda t, index, dim, reduce: _scatter_vjp_x(t, index, dim, reduce),
        None,
        lambda t, x_shape, index, dim, reduce: scatter_op(
            _zeros(x_shape, t), index, t, dim=dim, reduce=reduce
        ),
    ),
    conventions="Written places get no gradient from x; src gets the gradient at the places it "
    "wrote (with repeated indices, PyTorch leaves which write wins unspecified). With reduce=, "
    "backward raises, as in PyTorch.",
)


def _scatter_value(x, index, dim=0, value=0.0, reduce=None):
    """x with value written at index along dim (reduce: added or multiplied in)"""
    return _scatter(x, index, xp.asarray(value, dtype=x.dtype), dim=dim, reduce=reduce)


scatter_value_op = defop(
    "scatter_value",
    _scatter_value,
    args=("x", "index"),
    dtypes=KEEP,
    node=lambda x, index, dim=0, value=0.0, reduce=None: _scatter_node(x, index, None, dim, reduce),
    vjp=(lambda g, index, dim, reduce: _scatter_vjp_x(g, index, dim, reduce), None),
    jvp=(lambda t, index, dim, reduce: _scatter_vjp_x(t, index, dim, reduce), None),
)


def _scatter_add(x, index, src, dim=0):
    """x with src's elements added at index along dim (repeated indices add up)"""
    return _scatter(x, index, src, dim=dim, reduce="add")


scatter_add_op = defop(
    "scatter_add",
    _scatter_add,
    args=("x", "index", "src"),
    dtypes=KEEP,
    vjp=(
        lambda g: g,  # x passes through
        None,
        lambda g, index, src_shape, dim: _pad_to(gather_op(g, index, dim=dim), index, src_shape),
    ),
    jvp=(
        lambda t: t,
        None,
        lambda t, x_shape, index, dim: scatter_add_op(_zeros(x_shape, t), index, t, dim=dim),
    ),
)


def _check_index(input: Tensor, dim: int, index, what: str, src: Any = None) -> tuple:
    """Wrap dim and check index (and src) for gather/scatter, with PyTorch's errors."""
    if not isinstance(index, Tensor):
        raise TypeError(f"{what}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if index._dtype.name not in ("int64", "int32"):
        raise RuntimeError(f"{what}(): Expected dtype int32/int64 for index")
    nd = input._data.ndim
    d = _dim(dim, nd)
    idx = index._data
    if idx.ndim != max(nd, 1) and not (nd == 0 and idx.ndim == 0):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for k in range(idx.ndim):
        if k != d and nd and idx.shape[k] > input._data.shape[k]:
            raise RuntimeError(
                f"Size does not match at dimension {k} expected index {list(idx.shape)} to be "
                f"no larger than self {list(input._data.shape)} apart from dimension {d}"
            )
        if src is not None and isinstance(src, Tensor) and src._data.ndim:
            if idx.shape[k] > src._data.shape[k]:
                raise RuntimeError(
                    f"Size does not match at dimension {k} expected index {list(idx.shape)} to "
                    f"be no larger than src {list(src._data.shape)}"
                )
    size = input._data.shape[d] if nd else 1
    if idx.size:
        bad = idx[(idx < 0) | (idx >= size)]
        if bad.size:
            raise RuntimeError(
                f"index {int(bad.flat[0])} is out of bounds for dimension {d} with size {size}"
            )
    return d, index


def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False, out=None):
    """input's elements at ``index`` along ``dim``: out[p] = input[p with p[dim] = index[p]]."""
    d, index = _check_index(input, dim, index, "gather")
    return gather_op(input, index, dim=d)


def scatter(
    input: Tensor,
    dim: int,
    index: Tensor,
    src: Any = None,
    value: Any = None,
    *,
    reduce: str | None = None,
    out: Any = None,
) -> Tensor:
    """A copy of input with ``src`` (a tensor) or ``value`` (a number) written at ``index``
    along ``dim``; ``reduce='add'`` or ``'multiply'`` combines instead of overwriting."""
    if src is None:
        src = value
    if reduce is not None and reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    if isinstance(src, Tensor):
        if src._dtype is not input._dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
        d, index = _check_index(input, dim, index, "scatter", src)
        return scatter_op(input, index, src, dim=d, reduce=reduce)
    d, index = _check_index(input, dim, index, "scatter")
    return scatter_value_op(input, index, dim=d, value=src, reduce=reduce)


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """A copy of input with ``src``'s elements added at ``index`` along ``dim``."""
    if src._dtype is not input._dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    d, index = _check_index(input, dim, index, "scatter_add", src)
    return scatter_add_op(input, index, src, dim=d)


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
    xp.add.at(out, _key_of(dim, index), source * alpha if alpha != 1 else source)
    return out


index_select_op = defop(
    "index_select",
    _index_select,
    args=("x", "index"),
    dtypes=KEEP,
    vjp=(
        lambda g, x_shape, index, dim: index_add_op(
            xp.zeros(x_shape, dtype=_np_dtype(g)), index, g, dim=dim
        ),  # each selected slice's gradient goes back to it (repeats add)
        None,
    ),
    jvp=(lambda t, index, dim: index_select_op(t, index, dim=dim), None),
)
index_add_op = defop(
    "index_add",
    _index_add,
    args=("x", "index", "source"),
    dtypes=KEEP,
    vjp=(
        lambda g: g,  # x passes through
        None,
        lambda g, index, dim, alpha: _scaled(index_select_op(g, index, dim=dim), alpha),
    ),
    jvp=(
        lambda t: t,
        None,
        lambda t, x_shape, index, dim, alpha: index_add_op(
            _zeros(x_shape, t), index, t, dim=dim, alpha=alpha
        ),
    ),
)


def _scaled(g, alpha):
    return g if alpha == 1 else g * alpha


def _check_1d_index(index, what: str) -> Tensor:
    if not isinstance(index, Tensor):
        index = _tensor_arg(index)
    if index._dtype.is_floating_point or index._dtype.name == "bool":
        raise RuntimeError(f"{what}(): Expected dtype int32/int64 for index")
    if index._data.ndim > 1:
        raise IndexError(f"{what}(): Index is supposed to be a vector")
    return index


def index_select(input: Tensor, dim: int, index: Tensor, *, out: Any = None) -> Tensor:
    """The slices of input at ``index`` (a vector) along ``dim``."""
    index = _check_1d_index(index, "index_select")
    nd = input._data.ndim
    d = _dim(dim, nd)
    size = input._data.shape[d] if nd else 1
    idx = index._data.reshape(-1)
    if not nd and idx.size != 1:
        raise RuntimeError(
            f"index_select(): Index to scalar can have only 1 value, got {idx.size} value(s)"
        )
    bad = idx[(idx < 0) | (idx >= size)]
    if bad.size:
        raise RuntimeError(
            f"INDICES element is out of DATA bounds, id={int(bad[0])} axis_dim={size}"
        )
    return index_select_op(input, _make(idx, index._dtype), dim=d)


def index_add(
    input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1, out: Any = None
) -> Tensor:
    """A copy of input with ``alpha * source``'s slices added at ``index`` along ``dim``."""
    index = _check_1d_index(index, "index_add")
    nd = input._data.ndim
    d = _dim(dim, nd)
    idx = index._data.reshape(-1)
    if not nd and source._data.ndim:
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = [] source.shape = {list(source._data.shape)}"
        )
    n_src = source._data.shape[d] if source._data.ndim else 1
    if idx.size != n_src:
        raise RuntimeError(
            f"index_add_(): Number of indices ({idx.size}) should be equal to source.size(dim): "
            f"({n_src}), for dim: {d}"
        )
    size = input._data.shape[d] if nd else 1
    bad = idx[(idx < 0) | (idx >= size)]
    if bad.size:
        raise RuntimeError(
            f"index {int(bad[0])} is out of bounds for dimension {d} with size {size}"
        )
    if source._dtype is not input._dtype:
        raise RuntimeError(
            f"index_add_(): self ({input._dtype.name.capitalize()}) and source "
            f"({source._dtype.name.capitalize()}) must have the same scalar type"
        )
    return index_add_op(input, _make(idx, index._dtype), source, dim=d, alpha=alpha)


# ----- masked_fill, masked_select, take ---------------------------------------------------


def _masked_fill(x, mask, value=0.0):
    """x with value where mask is True (mask broadcasts)"""
    return xp.where(mask, xp.asarray(value, dtype=x.dtype), x)


masked_fill_op = defop(
    "masked_fill",
    _masked_fill,
    args=("x", "mask"),
    dtypes=KEEP,
    vjp=(lambda g, mask: masked_fill_op(g, mask, value=0.0), None),  # filled places lose x
    jvp=(lambda t, mask: masked_fill_op(t, mask, value=0.0), None),
)


def _masked_fill_tensor(x, mask, value):
    """x with the 0-d value where mask is True (mask broadcasts)"""
    return xp.where(mask, value.astype(x.dtype), x)


masked_fill_tensor_op = defop(
    "masked_fill_tensor",
    _masked_fill_tensor,
    args=("x", "mask", "value"),
    dtypes=KEEP,
    node="MaskedFillBackward1",
    vjp=(
        lambda g, mask: masked_fill_op(g, mask, value=0.0),
        None,
        lambda g, mask: masked_fill_op(g, ~mask, value=0.0),  # summed to the 0-d value
    ),
    jvp=(
        lambda t, mask: masked_fill_op(t, mask, value=0.0),
        None,
        lambda t, mask: t * mask,
    ),
)


def _masked_select(x, mask):
    """x's elements where mask is True, in order, as a 1-D tensor (both broadcast)"""
    x, mask = xp.broadcast_arrays(x, mask)
    return x[mask]


def _unmask(g, x_shape, mask):
    """The VJP of masked_select: g put back where the mask is True, in mask's broadcast shape."""
    shape = numpy.broadcast_shapes(tuple(x_shape), _arr(mask).shape)
    return sh.index_into_zeros(g, shape=shape, key=xp.broadcast_to(_arr(mask), shape))


masked_select_op = defop(
    "masked_select",
    _masked_select,
    args=("x", "mask"),
    dtypes=KEEP,
    vjp=(lambda g, x_shape, mask: _unmask(g, x_shape, mask), None),
    jvp=(lambda t, mask: masked_select_op(t, mask), None),
)


def _take(x, index):
    """x's elements at index (into the flattened x), in index's shape"""
    return x.reshape(-1)[index]


take_op = defop(
    "take",
    _take,
    args=("x", "index"),
    dtypes=KEEP,
    vjp=(
        lambda g, x_shape, index: sh.reshape(
            sh.index_into_zeros(g, shape=(math.prod(x_shape),), key=_arr(index)), x_shape
        ),  # repeated indices add up
        None,
    ),
    jvp=(lambda t, index: take_op(t, index), None),
)


def _bool_mask(mask, what: str) -> Tensor:
    if not isinstance(mask, Tensor):
        mask = _tensor_arg(mask)
    if mask._dtype.name != "bool":
        if what == "masked_select":
            raise RuntimeError("masked_select: expected BoolTensor for mask")
        raise RuntimeError(
            f"{what} only supports boolean masks, but got mask with dtype {mask._dtype.name}"
        )
    return mask


def masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    """input with ``value`` (a number or a 0-d tensor) where ``mask`` is True."""
    mask = _bool_mask(mask, "masked_fill_")
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value._data.ndim} dimension(s)."
            )
        return masked_fill_tensor_op(input, mask, value)
    return masked_fill_op(input, mask, value=value)


def masked_select(input: Tensor, mask: Tensor, *, out: Any = None) -> Tensor:
    """input's elements where ``mask`` is True, as a 1-D tensor."""
    mask = _bool_mask(mask, "masked_select")
    return masked_select_op(input, mask)


def take(input: Tensor, index: Tensor) -> Tensor:
    """input's elements at ``index`` into the flattened input (negative indices count back)."""
    if not isinstance(index, Tensor):
        index = _tensor_arg(index)
    if index._dtype is not int64:
        raise RuntimeError(
            f"take(): Expected a long tensor for index, but got {_TYPE[index._dtype.name]}"
        )
    n = input._data.size
    idx = index._data
    bad = idx[(idx < -n) | (idx >= n)]
    if bad.size:
        raise IndexError(
            f"out of range: tried to access index {int(bad.flat[0])} on a tensor of {n} elements."
        )
    return take_op(input, index)


_TYPE = {
    "bool": "Bool",
    "uint8": "Byte",
    "int8": "Char",
    "int16": "Short",
    "int32": "Int",
    "int64": "Long",
    "float16": "Half",
    "float32": "Float",
    "float64": "Double",
}


# ----- index_fill, index_copy, index_put, masked_scatter, take_along_dim, unfold ----------


def _fill_key(x, dim, index):
    return _key_of(dim, index) if x.ndim else ()


def _index_fill(x, index, dim=0, value=0.0):
    """x with value written into its slices at index along dim"""
    out = x.copy()
    out[_fill_key(x, dim, index)] = value
    return out


def _filled(x_shape, index, dim) -> Any:
    """A bool array of x_shape: True on the slices at index along dim."""
    mask = xp.zeros(x_shape, dtype=bool)
    mask[_key_of(dim, _arr(index)) if len(x_shape) else ()] = True
    return mask


index_fill_op = defop(
    "index_fill",
    _index_fill,
    args=("x", "index"),
    dtypes=KEEP,
    vjp=(lambda g, index, dim: index_fill_op(g, index, dim=dim, value=0.0), None),  # filled: 0
    jvp=(lambda t, index, dim: index_fill_op(t, index, dim=dim, value=0.0), None),
)


def _index_fill_tensor(x, index, value, dim=0):
    """x with the 0-d value written into its slices at index along dim"""
    return _index_fill(x, index, dim=dim, value=value)


index_fill_tensor_op = defop(
    "index_fill_tensor",
    _index_fill_tensor,
    args=("x", "index", "value"),
    dtypes=KEEP,
    node="IndexFillBackward1",
    vjp=(
        lambda g, index, dim: index_fill_op(g, index, dim=dim, value=0.0),
        None,
        # each filled place once (a repeated index fills it once): summed to the 0-d value
        lambda g, x_shape, index, dim: masked_fill_op(g, ~_filled(x_shape, index, dim), value=0.0),
    ),
    jvp=(
        lambda t, index, dim: index_fill_op(t, index, dim=dim, value=0.0),
        None,
        lambda t, x_shape, index, dim: t * _filled(x_shape, index, dim),
    ),
)


def _index_copy(x, index, source, dim=0):
    """x with source's slices written at index along dim"""
    out = x.copy()
    out[_fill_key(x, dim, index)] = source
    return out


index_copy_op = defop(
    "index_copy",
    _index_copy,
    args=("x", "index", "source"),
    dtypes=KEEP,
    vjp=(
        lambda g, index, dim: index_fill_op(g, index, dim=dim, value=0.0),  # overwritten: 0
        None,
        lambda g, index, dim: index_select_op(g, index, dim=dim),
    ),
    jvp=(
        lambda t, index, dim: index_fill_op(t, index, dim=dim, value=0.0),
        None,
        lambda t, x_shape, index, dim: index_copy_op(_zeros(x_shape, t), index, t, dim=dim),
    ),
    conventions="With a repeated index, which slice of source lands is unspecified (as in "
    "PyTorch); each gets the gradient of the slice it was copied to.",
)


def _index_put_accumulate(x, value, key=()):
    """x with value added at key (repeated indices add up)"""
    out = x.copy()
    xp.add.at(out, key, value)
    return out


index_put_accumulate_op = defop(
    "index_put_accumulate",
    _index_put_accumulate,
    args=("x", "value"),
    dtypes=KEEP,
    node="IndexPutBackward0",
    vjp=(
        lambda g: g,  # x passes through
        lambda g, key: sh.getitem(g, key=key),  # summed to value's shape by the engine
    ),
    jvp=(
        lambda t: t,
        lambda t, x_shape, key: index_put_accumulate_op(_zeros(x_shape, t), t, key=key),
    ),
)


def _masked_scatter(x, mask, source):
    """x with source's first elements, in order, written where mask is True"""
    x, mask = xp.broadcast_arrays(x, mask)
    out = x.copy()
    out[mask] = source.reshape(-1)[: int(mask.sum())]
    return out


def _masked_scatter_source_vjp(g, mask, source_shape):
    """The gradient at the masked places, in order, as the first elements of source."""
    picked = masked_select_op(g, mask)
    n = math.prod(source_shape)
    return sh.reshape(
        sh.index_into_zeros(picked, shape=(n,), key=slice(0, picked.shape[0])), source_shape
    )


masked_scatter_op = defop(
    "masked_scatter",
    _masked_scatter,
    args=("x", "mask", "source"),
    dtypes=KEEP,
    vjp=(
        lambda g, mask: masked_fill_op(g, mask, value=0.0),  # overwritten places lose x
        None,
        lambda g, mask, source_shape: _masked_scatter_source_vjp(g, mask, source_shape),
    ),
    jvp=(
        lambda t, mask: masked_fill_op(t, mask, value=0.0),
        None,
        lambda t, x_shape, mask: masked_scatter_op(_zeros(x_shape, t), mask, t),
    ),
)


def _unfold(x, dimension=0, size=1, step=1):
    """the windows of ``size`` elements every ``step`` along dimension, as a new last dim"""
    if not x.ndim:  # a scalar is one window of one element
        return x.reshape(1)
    # writable only without overlap, where no two elements of the view share memory
    windows = numpy.lib.stride_tricks.sliding_window_view(
        x, size, axis=dimension, writeable=step >= size
    )
    return windows[_key_of(dimension, slice(None, None, step))]


def _fold_windows(g, x_shape, dimension, size, step):
    """The VJP of unfold: each window's gradient added back where the window came from."""
    if not len(x_shape):
        return sh.reshape(g, ())
    n = g.shape[dimension] if len(x_shape) else 1
    starts = xp.arange(n) * step
    places = starts[:, None] + xp.arange(size)[None, :]  # (windows, size)
    moved = ew_movedim(g, dimension, -2)  # (..., windows, size)
    flat = sh.reshape(moved, tuple(moved.shape[:-2]) + (n * size,))
    index = places.reshape(-1)
    shape = list(x_shape)
    del shape[dimension]
    zeros = xp.zeros(tuple(shape) + (x_shape[dimension],), dtype=_np_dtype(g))
    out = index_add_op(zeros, _make(index, int64), flat, dim=len(shape))
    return ew_movedim(out, -1, dimension)


def ew_movedim(t, source: int, destination: int):
    """movedim for a tensor or an array (inside VJPs)."""
    nd = len(t.shape)
    order = list(range(nd))
    s, d = source % nd, destination % nd
    order.insert(d, order.pop(s))
    return sh.permute(t, dims=tuple(order))


unfold_op = defop(
    "unfold",
    _unfold,
    dtypes=KEEP,
    view=True,
    vjp=lambda g, x_shape, dimension, size, step: _fold_windows(g, x_shape, dimension, size, step),
    jvp=lambda t, dimension, size, step: unfold_op(t, dimension=dimension, size=size, step=step),
    conventions="Overlapping windows add their gradients.",
)


def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """A copy of input with ``value`` (a number or 0-d tensor) in its slices at ``index``."""
    index = _check_1d_index(index, "index_fill")
    d = _dim(dim, input._data.ndim)
    idx = _make(_checked_slices(input, d, index, "index_fill"), index._dtype)
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(
                "index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value._data.ndim} dimension(s)."
            )
        return index_fill_tensor_op(input, idx, value, dim=d)
    return index_fill_op(input, idx, dim=d, value=value)


def _checked_slices(input: Tensor, d: int, index: Tensor, what: str) -> Any:
    idx = index._data.reshape(-1)
    size = input._data.shape[d] if input._data.ndim else 1
    bad = idx[(idx < -size) | (idx >= size)]
    if bad.size:
        raise IndexError(f"index {int(bad[0])} is out of bounds for dimension {d} with size {size}")
    return idx % max(size, 1)


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """A copy of input with ``source``'s slices written at ``index`` along ``dim``."""
    index = _check_1d_index(index, "index_copy")
    d = _dim(dim, input._data.ndim)
    idx = _checked_slices(input, d, index, "index_copy")
    n_src = source._data.shape[d] if source._data.ndim else 1
    if idx.size != n_src:
        raise RuntimeError(
            f"index_copy_(): Number of indices ({idx.size}) should be equal to source.size(dim) "
            f"({n_src})"
        )
    if source._dtype is not input._dtype:
        raise RuntimeError(
            "index_copy_(): self and source expected to have the same dtype, but got (self) "
            f"{_TYPE[input._dtype.name]} and (source) {_TYPE[source._dtype.name]}"
        )
    return index_copy_op(input, _make(idx, index._dtype), source, dim=d)


def index_put(input: Tensor, indices, values: Any, accumulate: bool = False) -> Tensor:
    """A copy of input with ``values`` written (or with ``accumulate`` added) at the advanced
    index ``indices`` (a tuple of tensors)."""
    key = _plain(tuple(_index_part(i) for i in indices))
    values = values if isinstance(values, Tensor) else _tensor_arg(values)
    if values._dtype is not input._dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{_TYPE[input._dtype.name]} for the destination and "
            f"{_TYPE[values._dtype.name]} for the source."
        )
    try:
        if accumulate:
            return index_put_accumulate_op(input, values, key=key)
        return sh.index_put(input, values, key=key)
    except IndexError as exc:
        raise _index_error(exc, input._data.shape) from None


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """A copy of input with ``source``'s first elements, in order, where ``mask`` is True."""
    mask = _bool_mask(mask, "masked_scatter_")
    n = int(numpy.broadcast_to(mask._data, numpy.broadcast_shapes(input.shape, mask.shape)).sum())
    if source._data.size < n:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    if source._dtype is not input._dtype:
        raise RuntimeError(
            "masked_scatter_: expected self and source to have same dtypes but got "
            f"{_TYPE[input._dtype.name]} and {_TYPE[source._dtype.name]}"
        )
    return masked_scatter_op(input, mask, source)


def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    """input's elements at ``indices`` along ``dim`` (of the flattened input when None),
    input and indices broadcast against each other in the other dims."""
    if dim is None:
        return gather(sh.reshape(input, (-1,)), 0, _make(indices._data.reshape(-1), indices._dtype))
    nd = input._data.ndim
    d = _dim(dim, nd)
    if indices._data.ndim != nd:
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of "
            f"dimensions, but got {nd} dimensions for input, and {indices._data.ndim} "
            "dimensions for indices"
        )
    ones_at = lambda shape: shape[:d] + (1,) + shape[d + 1 :]  # noqa: E731
    shape = list(numpy.broadcast_shapes(ones_at(input._data.shape), ones_at(indices._data.shape)))
    x_shape, i_shape = list(shape), list(shape)
    x_shape[d], i_shape[d] = input._data.shape[d], indices._data.shape[d]
    if tuple(x_shape) != input._data.shape:
        input = sh.expand(input, shape=tuple(x_shape))
    idx = _make(xp.broadcast_to(indices._data, tuple(i_shape)), indices._dtype)
    return gather(input, d, idx)


def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """The windows of ``size`` elements every ``step`` along ``dimension``, as a new last dim
    (Tensor.unfold): a view."""
    nd = self._data.ndim
    d = _dim(dimension, nd)
    n = self._data.shape[d] if nd else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return unfold_op(self, dimension=d, size=size, step=step)


def atleast_1d(*tensors):
    """Each tensor with at least 1 dim (0-d tensors become shape (1,))."""
    return _atleast(tensors, 1)


def atleast_2d(*tensors):
    """Each tensor with at least 2 dims (leading size-1 dims added)."""
    return _atleast(tensors, 2)


def atleast_3d(*tensors):
    """Each tensor with at least 3 dims: (n,) -> (1, n, 1), (m, n) -> (m, n, 1)."""
    return _atleast(tensors, 3)


def _atleast(tensors: tuple, n: int):
    many = len(tensors) != 1 or isinstance(tensors[0], (list, tuple))
    items = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors
    out = []
    for t in items:
        nd = t._data.ndim
        if nd >= n:
            out.append(t)
        elif n == 1:
            out.append(sh.reshape(t, (1,)))
        elif n == 2:
            out.append(unsqueeze(t, 0) if nd == 1 else sh.reshape(t, (1, 1)))
        elif nd == 0:
            out.append(sh.reshape(t, (1, 1, 1)))
        elif nd == 1:
            out.append(unsqueeze(unsqueeze(t, 0), -1))
        else:
            out.append(unsqueeze(t, -1))
    return tuple(out) if many else out[0]


def dstack(tensors: Sequence[Tensor], *, out: Any = None) -> Tensor:
    """The tensors joined depth-wise (along dim 2, each made at least 3-D)."""
    return cat(atleast_3d(list(_tensor_list(tensors, "dstack"))), 2)


def column_stack(tensors: Sequence[Tensor], *, out: Any = None) -> Tensor:
    """The tensors as columns: 0-d and 1-D tensors become (n, 1) columns, then joined on dim 1."""
    parts = []
    for t in _tensor_list(tensors, "column_stack"):
        parts.append(sh.reshape(t, (t._data.size, 1)) if t._data.ndim <= 1 else t)
    return cat(parts, 1)


row_stack = vstack


# ----- x[key] and x[key] = value -----------------------------------------------------------


def _index_part(k):
    """One part of a key as NumPy takes it: tensors and lists become arrays."""
    if isinstance(k, Tensor):
        if k._dtype.is_floating_point:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if k._dtype.name == "uint8":
            return k._data.astype(bool)
        if k._data.ndim == 0 and k._dtype.name != "bool":
            return int(k._data)  # a 0-d integer tensor indexes like an int, as in PyTorch
        return k._data
    if isinstance(k, (list, tuple)):
        parts = [_index_part(i) for i in k]
        if not parts:
            return xp.zeros((0,), dtype=xp.int64)
        arr = xp.asarray(parts)
        if arr.dtype.kind not in "biu":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        return arr
    if isinstance(k, slice):
        if k.step is not None and operator.index(k.step) <= 0:
            raise ValueError("step must be greater than zero")
        return slice(*(None if v is None else operator.index(v) for v in (k.start, k.stop, k.step)))
    if isinstance(k, numpy.integer):
        return int(k)
    if isinstance(k, ndarray) and k.dtype.kind not in "biu":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return k


def _normalize(key, ndim: int) -> tuple:
    if (
        isinstance(key, list)
        and 0 < len(key) < 32
        and any(
            isinstance(k, (list, tuple, Tensor, ndarray, slice)) or k is None or k is Ellipsis
            for k in key
        )
    ):
        key = tuple(key)  # PyTorch (still) reads such a list as a tuple of indices
    parts = key if isinstance(key, tuple) else (key,)
    parts = tuple(_index_part(k) for k in parts)
    if len(parts) > 1 and any(p is Ellipsis for p in parts):
        used = sum(
            p.ndim if isinstance(p, ndarray) and p.dtype == bool else 0 if p is None else 1
            for p in parts
            if p is not Ellipsis and not isinstance(p, bool)
        )
        if used == ndim:  # an Ellipsis standing for no dims does not separate indices
            parts = tuple(p for p in parts if p is not Ellipsis)
    return parts


def _is_advanced(p) -> bool:
    return isinstance(p, (ndarray, bool))


def _split_key(parts: tuple, always: bool = False):
    """(basic, advanced): PyTorch applies ints before advanced indices, so with both the key
    splits into a basic step (a view) and an advanced step on it; advanced is None otherwise
    (``always``: split whenever there are advanced indices)."""
    if not any(_is_advanced(p) for p in parts) or not (
        always or any(type(p) is int for p in parts)
    ):
        return parts, None
    basic, advanced = [], []
    for p in parts:
        if type(p) is int:
            basic.append(p)
        elif isinstance(p, ndarray):
            n = p.ndim if p.dtype == bool else 1
            basic.extend([slice(None)] * n)
            advanced.append(p)
        elif p is None or isinstance(p, slice):
            basic.append(p)
            advanced.append(slice(None))
        elif p is Ellipsis:
            basic.append(p)
            advanced.append(p)
        else:  # a Python bool
            advanced.append(p)
    return tuple(basic), tuple(advanced)


def _plain_slice(k: slice) -> bool:
    """A slice of ints (or None) with no step: NumPy takes it as PyTorch would."""
    return (
        k.step is None
        and (k.start is None or k.start.__class__ is int)
        and (k.stop is None or k.stop.__class__ is int)
    )


def _plain_part(p) -> bool:
    c = p.__class__
    return c is int or p is None or p is Ellipsis or c is slice and _plain_slice(p)


def _plain(parts: tuple):
    """A one-part key as itself (x[0] names its node as PyTorch does), else the tuple."""
    return parts[0] if len(parts) == 1 else parts


def _index_error(exc: IndexError, shape: tuple) -> IndexError:
    """NumPy's IndexError in PyTorch's words."""
    text = str(exc)
    if text.startswith("too many indices") and not shape:
        return IndexError(
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
            "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
        )
    if text.startswith("too many indices"):
        return IndexError(f"too many indices for tensor of dimension {len(shape)}")
    return IndexError(text.replace("axis", "dimension"))


def getitem(input: Tensor, key: Any) -> Tensor:
    """input[key]: ints, slices (step > 0), None, Ellipsis, lists, integer and bool tensors,
    with PyTorch's rules: basic indexing gives a view; ints apply before advanced indices."""
    c = key.__class__
    if c is int or c is slice and _plain_slice(key) or c is tuple and all(map(_plain_part, key)):
        basic, advanced = key, None  # basic indexing: NumPy takes the key as it is
    elif c is Tensor and key._data.ndim and key._data.dtype.kind == "i":
        basic, advanced = key._data, None  # one integer tensor
    else:
        basic, advanced = _split_key(_normalize(key, input._data.ndim))
        if advanced is not None or not isinstance(key, tuple):
            basic = _plain(basic)  # x[:] is sliced, x[:,] an alias: keep the tuple as given
    try:
        out = sh.getitem(input, key=basic)
        if advanced is not None:
            out = sh.getitem(out, key=_plain(advanced))
    except IndexError as exc:
        raise _index_error(exc, input._data.shape) from None
    return out


def _value_tensor(value: Any, like: Tensor) -> Any:
    """The value to write: numbers stay numbers; anything else a tensor without the leading
    size-1 dims PyTorch ignores."""
    if isinstance(value, (int, float, bool)):
        return value
    if not isinstance(value, Tensor):
        from .._creation import as_tensor

        value = as_tensor(value, dtype=like._dtype)
    shape = value._data.shape
    lead = 0
    while lead < len(shape) and shape[lead] == 1:
        lead += 1
    if lead:
        value = sh.reshape(value, shape[lead:])
    return value


def _is_whole(parts: tuple, shape: tuple) -> bool:
    """Whether the key selects all of a tensor of ``shape`` (full slices and Ellipsis only)."""
    if not all(p is Ellipsis or isinstance(p, slice) for p in parts):
        return False
    slices = [p for p in parts if p is not Ellipsis]
    if len(slices) > len(shape) or parts.count(Ellipsis) > 1:
        return False
    at = parts.index(Ellipsis) if Ellipsis in parts else len(parts)
    dims = list(range(at)) + list(range(len(shape) - (len(slices) - at), len(shape)))
    return all(sh._whole_slice(p, shape[d]) for p, d in zip(slices, dims))


def setitem(input: Tensor, key: Any, value: Any) -> None:
    """input[key] = value, in place, as PyTorch does it: the basic part of the key (ints,
    slices, None) picks a view, and the value is copied into it (the base's node is
    CopySlices) or, with advanced indices, index_put into it (IndexPutBackward0 when the
    view is the whole input). A key selecting all of input fills or copies into it directly.
    Gradients reach both input's old value (outside the region) and value.
    """
    parts = _normalize(key, input._data.ndim)
    recording = grad_mode._state.enabled and (
        input._requires_grad or isinstance(value, Tensor) and value._requires_grad
    )
    if not (recording or forward_ad.state.level) and input._data.flags.writeable:
        _write_array(input, parts, value)  # nothing to record: write the array directly
        return
    scalar = not isinstance(value, Tensor) or not value._data.ndim  # before leading 1s go
    value = _value_tensor(value, input)
    try:
        if not any(_is_advanced(p) for p in parts):
            _write_region(input, parts, value, scalar)
            return
        if isinstance(value, Tensor) and value._dtype is not input._dtype:
            raise RuntimeError(
                "Index put requires the source and destination dtypes match, got "
                f"{_TYPE[input._dtype.name]} for the destination and "
                f"{_TYPE[value._dtype.name]} for the source."
            )
        basic, advanced = _split_key(parts, always=True)
        target = input
        if not _is_whole(basic, input._data.shape):
            target = _region(input, basic)
            parts = advanced
        _inplace(target, sh.index_put, (target, value), {"key": _plain(parts)})
    except IndexError as exc:
        raise _index_error(exc, input._data.shape) from None
    except ValueError as exc:
        raise RuntimeError(f"shape mismatch: {exc}") from None


def _region(input: Tensor, key: tuple) -> Tensor:
    """input[key] for a basic key: a view, even when empty (NumPy shares no memory then)."""
    region = sh.getitem(input, key=key)
    if region._view is None and not region._data.size:
        vc = _counter(input)
        region._vc = vc
        region._view = view_record(sh.getitem, input, {"key": key}, vc)
    return region


def _write_array(input: Tensor, parts: tuple, value: Any) -> None:
    """input[parts] = value on the arrays, with PyTorch's rules and errors; bumps the version."""
    if isinstance(value, Tensor):
        if value._dtype is not input._dtype and any(_is_advanced(p) for p in parts):
            raise RuntimeError(
                "Index put requires the source and destination dtypes match, got "
                f"{_TYPE[input._dtype.name]} for the destination and "
                f"{_TYPE[value._dtype.name]} for the source."
            )
        value = value._data
    elif not isinstance(value, (int, float, bool)):
        value = xp.asarray(value)
    basic, advanced = _split_key(parts)
    try:
        if advanced is None:
            input._data[_plain(basic)] = value
        else:
            input._data[_plain(basic)][_plain(advanced)] = value
    except IndexError as exc:
        raise _index_error(exc, input._data.shape) from None
    except ValueError as exc:
        raise RuntimeError(f"shape mismatch: {exc}") from None
    input._bump()


def _write_region(input: Tensor, parts: tuple, value: Any, scalar: bool) -> None:
    """input[parts] = value for a basic key: a copy (or fill) into the view it selects."""
    if _is_whole(parts, input._data.shape):  # PyTorch writes into input itself
        fill_tensor = getattr(ew, "fill_tensor", None)
        if fill_tensor is not None and scalar:
            if not isinstance(value, Tensor):
                value = _make(xp.asarray(value, dtype=input._dtype.np), input._dtype)
            _inplace(input, fill_tensor, (input, value), {})  # PyTorch's FillBackward3
        elif isinstance(value, Tensor):
            input.copy_(value)
        else:
            input.fill_(value)
        return
    key = _plain(parts)
    region = sh.getitem.forward(input._data, key=key)
    if isinstance(value, Tensor) and value._data.ndim > region.ndim:
        raise RuntimeError(
            f"expand({_TYPE[value._dtype.name]}Tensor{{{list(value._data.shape)}}}, "
            f"size={list(region.shape)}): the number of sizes provided "
            f"({region.ndim}) must be greater or equal to the number of "
            f"dimensions in the tensor ({value._data.ndim})"
        )
    # one CopySlices node: input with the region replaced by the value
    _inplace(input, view_scatter, (input, value), {"steps": ((sh.getitem, {"key": key}),)})


# ----- in-place shape changes: squeeze_, unsqueeze_, t_, transpose_ -------------------------


def _inplace_view(self: Tensor, out: Tensor) -> Tensor:
    """Make self the view ``out`` (same memory, new shape): its data, node and tangent."""
    self._data = out._data
    if out._grad_fn is not None:
        self._grad_fn, self._output_nr = out._grad_fn, out._output_nr
        self._requires_grad = True
    if self._view is not None and out._view is not None:
        self._view = out._view
    tangent = getattr(out, "_fw", None)
    if tangent is not None:
        forward_ad.attach(self, tangent)
    self._bump()
    return self


def _inplace_shape(fn: Callable) -> Callable:
    def method(self, *args, **kwargs):
        check_inplace(self)
        return _inplace_view(self, fn(self, *args, **kwargs))

    method.__name__ = fn.__name__ + "_"
    method.__doc__ = f"In place {fn.__name__}: self becomes the view (bumps the version)."
    return method


def _squeeze_inplace(self: Tensor, dim=None) -> Tensor:
    nd = self._data.ndim
    if dim is None:
        return squeeze_op(self, dims=None, variant=3)
    if isinstance(dim, (tuple, list)):
        return squeeze_op(self, dims=_dims(dim, nd), variant=5)
    return squeeze_op(self, dims=(_dim(dim, nd),), variant=4)


_squeeze_inplace.__name__ = "squeeze"


def _unsqueeze_inplace(self: Tensor, dim: int) -> Tensor:
    return unsqueeze_op(self, dim=_dim(dim, self._data.ndim + 1), variant=1)


_unsqueeze_inplace.__name__ = "unsqueeze"


def _transpose_inplace(self: Tensor, dim0: int, dim1: int) -> Tensor:
    nd = self._data.ndim
    return sh.transpose(self, dim0=_dim(dim0, nd), dim1=_dim(dim1, nd), variant=1)


_transpose_inplace.__name__ = "transpose"


def _t_inplace(self: Tensor) -> Tensor:
    if self._data.ndim > 2:
        raise RuntimeError(
            f"t_() expects a tensor with <= 2 dimensions, but self is {self._data.ndim}D"
        )
    return sh.t(self, variant=1)


_t_inplace.__name__ = "t"


# ----- Tensor methods -----------------------------------------------------------------------


def _method_varargs(fn: Callable) -> Callable:
    """A method taking sizes or dims as varargs or one sequence: ``x.flip(0, 1)``."""

    def method(self, *args):
        return fn(self, _ints(args))

    method.__name__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


def _split_method(self, split_size, dim=0):
    return split(self, split_size, dim)


def _scatter_method(self, dim, index, src=None, value=None, *, reduce=None):
    return scatter(self, dim, index, src, value, reduce=reduce)


TENSOR_METHODS: dict = {
    "__getitem__": getitem,
    "__setitem__": setitem,
    "squeeze": squeeze,
    "unsqueeze": unsqueeze,
    "squeeze_": _inplace_shape(_squeeze_inplace),
    "unsqueeze_": _inplace_shape(_unsqueeze_inplace),
    "permute": lambda self, *dims: permute(self, _ints(dims)),
    "transpose": transpose,
    "swapaxes": transpose,
    "swapdims": transpose,
    "transpose_": _inplace_shape(_transpose_inplace),
    "swapaxes_": _inplace_shape(_transpose_inplace),
    "swapdims_": _inplace_shape(_transpose_inplace),
    "t_": _inplace_shape(_t_inplace),
    "movedim": movedim,
    "moveaxis": movedim,
    "flatten": flatten,
    "unflatten": unflatten,
    "contiguous": contiguous,
    "repeat": repeat,
    "tile": _method_varargs(tile),
    "flip": _method_varargs(flip),
    "roll": roll,
    "narrow": narrow,
    "select": select,
    "split": _split_method,
    "chunk": chunk,
    "unbind": unbind,
    "gather": gather,
    "scatter": _scatter_method,
    "scatter_": inplace(_scatter_method),
    "scatter_add": scatter_add,
    "scatter_add_": inplace(scatter_add),
    "index_select": index_select,
    "index_add": index_add,
    "index_add_": inplace(index_add),
    "masked_fill": masked_fill,
    "masked_fill_": inplace(masked_fill),
    "masked_select": masked_select,
    "take": take,
    "take_along_dim": take_along_dim,
    "index_fill": index_fill,
    "index_fill_": inplace(index_fill),
    "index_copy": index_copy,
    "index_copy_": inplace(index_copy),
    "index_put": index_put,
    "index_put_": inplace(index_put),
    "masked_scatter": masked_scatter,
    "masked_scatter_": inplace(masked_scatter),
    "unfold": unfold,
}
