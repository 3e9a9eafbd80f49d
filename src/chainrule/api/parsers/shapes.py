"""PyTorch's signatures for the shape ops and joins: sizes as varargs or one
sequence, dims wrapped with PyTorch's IndexError, ``split``'s sizes, ``cat``'s checks, and the
in-place view methods (``squeeze_``, ``t_``)."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

from ... import _memory_format
from ..._backend import xp
from ..._modes import usual as _usual
from ..._tensor import Tensor, _counter, _make, _wrap_dim
from ...autograd import forward_ad
from ...autograd.entries import view_op_entry
from ...autograd.inplace import check_inplace, inplace_view
from ...autograd.recording import _is_view
from ...autograd.views import view_record
from ...ops import copies, indexing, joining, shapes
from ..args import shape_args, tensor_arg

# the view ops' entries for a tensor with checked parameters (entries.view_op_entry)
_view_op = view_op_entry(shapes.view, shapes.view.node_class)
_unsqueeze_op = view_op_entry(shapes.unsqueeze, shapes.unsqueeze._class("UnsqueezeBackward0"))
_transpose_op = view_op_entry(shapes.transpose, shapes.transpose._class("TransposeBackward0"))


def reshape(input: Tensor, shape: Sequence[int] | int) -> Tensor:
    """input with a new shape (one dim may be -1): a view when possible, else a copy."""
    shape = shape_args((shape,)) if isinstance(shape, int) else tuple(shape)
    if input.__class__ is Tensor and input._data.flags.c_contiguous:
        return _as_view(input, shape)  # (shapes.reshape's view, in one call)
    return shapes.reshape(input, shape)


def _as_view(input: Tensor, shape: tuple) -> Tensor:
    """``shapes.view(input, shape=shape)`` for a tensor, ``shape`` checked (one -1 inferred,
    PyTorch's errors) and its view made by ``entries.view_op_entry``."""
    size = input._data.size
    for s in shape:
        if s.__class__ is not int or s < 0:  # (-1 to infer, or not ints: infer_shape's checks)
            shape = shapes.infer_shape(shape, size)
            break
    else:
        if math.prod(shape) != size:
            shape = shapes.infer_shape(shape, size)  # (its error)
    return _view_op(input, {"shape": shape})


def view(input: Tensor, *shape: Any, **kwargs: Any) -> Tensor:
    """input with a new shape, sharing memory (one dim may be -1); or its memory read as
    another dtype (``view(dtype)``; ``size=`` and ``dtype=`` as keywords too)."""
    if kwargs:
        if shape or len(kwargs) != 1 or next(iter(kwargs)) not in ("size", "dtype"):
            given = [type(a).__name__ for a in shape]
            given += [f"{k}={_arg_type(v)}" for k, v in kwargs.items()]
            raise TypeError(
                f"view() received an invalid combination of arguments - got ({', '.join(given)}), "
                "but expected one of:\n * (torch.dtype dtype)\n * (tuple of ints size)\n"
            )
        shape = tuple(kwargs.values())
    if shape and shape[0].__class__ is int and input.__class__ is Tensor:  # x.view(5, 4)
        return _as_view(input, shape_args(shape))
    if not shape or len(shape) == 1 and not isinstance(shape[0], (int, tuple, list)):
        _view_signature_error(shape)
    from ..._dtypes import dtype as DType

    if len(shape) == 1 and isinstance(shape[0], DType):
        from .storage import view_dtype

        return view_dtype(input, shape[0])
    shape = shape_args(shape)
    return shapes.view(input, shape=shapes.infer_shape(shape, input._data.size))


def _arg_type(value: Any) -> str:
    """How PyTorch's argument errors name ``value``'s type."""
    from ..._dtypes import dtype as DType

    return "torch.dtype" if isinstance(value, DType) else type(value).__name__


def _view_signature_error(args: tuple) -> None:
    """PyTorch's TypeError for view() with no size, or one that is not a size or a dtype."""
    from ..._dtypes import dtype as DType

    if args and (isinstance(args[0], DType) or hasattr(args[0], "__index__")):
        return
    got = ", ".join(type(a).__name__ for a in args)
    bad = f"(!{got}!)"
    why = f"\n      didn't match because some of the arguments have invalid types: {bad}"
    raise TypeError(
        f"view() received an invalid combination of arguments - got ({got}), but expected "
        f"one of:\n * (torch.dtype dtype){why if args else ''}\n * (tuple of ints size)"
        f"{why if args else ''}\n"
    )


def keyword_sizes(args: tuple, given: Any, fname: str, name: str) -> tuple:
    """A method's sizes or dims: its varargs (``x.flip(0, 1)``), else the one keyword form
    (``x.flip(dims=(0, 1))``); both at once is PyTorch's TypeError."""
    if given is None:
        return args
    if args:
        raise TypeError(f"{fname}() got multiple values for argument '{name}'")
    return (given,)


def expand(input: Tensor, *sizes: Any, size: Any = None) -> Tensor:
    """input broadcast to ``sizes`` (a view; -1 keeps a dim), with PyTorch's errors."""
    if size is not None:
        sizes = keyword_sizes(sizes, size, "expand", "size")
    if len(sizes) == 1 and isinstance(sizes[0], (str, bytes, float, type(None))):
        raise TypeError(
            "expand(): argument 'size' (position 1) must be tuple of ints, not "
            f"{type(sizes[0]).__name__}"
        )  # (shape_args would iterate a string)
    size = _int_sizes("expand", shape_args(sizes))
    return shapes.expand(input, shape=tuple(expanded_shape(input, size)))


def _int_sizes(fname: str, sizes: tuple) -> list:
    """Each size as an int, with PyTorch's TypeError for a float, str or None among them."""
    for pos, s in enumerate(sizes):
        if isinstance(s, (float, complex, str, bytes, type(None))):
            raise TypeError(
                f"{fname}(): argument 'size' (position 1) must be tuple of ints, but found "
                f"element of type {type(s).__name__} at pos {pos}"
            )
    return [int(s) for s in sizes]


def expanded_shape(input: Tensor, size: list) -> list:
    """The shape ``input.expand(*size)`` has: size with each -1 replaced by input's size
    there; PyTorch's RuntimeError where a size cannot be expanded to."""
    shape = list(input.shape)
    if len(size) < len(shape):
        raise RuntimeError(
            f"expand({input._dtype.legacy_type}{{{shape}}}, size={size}): the number of sizes "
            f"provided ({len(size)}) must be greater or equal to the number of dimensions in "
            f"the tensor ({len(shape)})"
        )
    lead = len(size) - len(shape)
    out = []
    for k in reversed(range(len(size))):  # (PyTorch matches the dims from the last one)
        want = size[k]
        n = shape[k - lead] if k >= lead else None
        if want == -1 and n is None:
            raise RuntimeError(
                f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                f"dimension {k}"
            )
        if want < -1:
            raise RuntimeError(
                f"expand: the size {want} at dimension {k} is negative: sizes are at least 0, "
                "or -1 to keep the tensor's size there"
            )
        if want == -1:
            want = n
        elif n is not None and n != 1 and n != want:
            raise RuntimeError(
                f"The expanded size of the tensor ({want}) must match the existing size ({n}) "
                f"at non-singleton dimension {k}.  Target sizes: {size}.  Tensor sizes: "
                f"{shape}"
            )
        out.append(want)
    return out[::-1]


def _dim(dim: int, ndim: int) -> int:
    """dim wrapped into [0, ndim) with PyTorch's IndexError (a 0-d tensor takes -1 and 0)."""
    return _wrap_dim(operator.index(dim), ndim)


def _dims(dims: Sequence[int], ndim: int) -> tuple:
    """A sequence of dims, wrapped, with PyTorch's error for a repeated dim."""
    out = tuple(_dim(d, ndim) for d in dims)
    for i, d in enumerate(out):
        if d in out[:i]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return out


def squeeze(input: Tensor, dim: int | Sequence[int] | None = None, *, _inplace: int = 0) -> Tensor:
    """input without its size-1 dims (only among ``dim`` when given): a view. (The node's
    variant: 0 squeeze(), 1 squeeze(dim), 2 squeeze(dims); 3, 4, 5 the same for squeeze_.)"""
    nd = input._data.ndim
    if dim is None:
        return shapes.squeeze(input, dims=None, variant=_inplace)
    if isinstance(dim, (tuple, list)):
        return shapes.squeeze(input, dims=_dims(dim, nd), variant=2 + _inplace)
    return shapes.squeeze(input, dims=(_dim(dim, nd),), variant=1 + _inplace)


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """input with a size-1 dim inserted at ``dim`` (in [-ndim-1, ndim]): a view."""
    dim = _dim(dim, input._data.ndim + 1)
    if input.__class__ is Tensor:
        return _unsqueeze_op(input, {"dim": dim, "variant": 0})
    return shapes.unsqueeze(input, dim=dim, variant=0)


def movedim(input: Tensor, source: int | Sequence[int], destination: int | Sequence[int]) -> Tensor:
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
        return indexing.getitem(input, key=Ellipsis)  # a 0-d tensor: an alias, as in PyTorch
    order = [-1] * nd
    for a, b in zip(s, d):
        order[b] = a
    rest = iter(i for i in range(nd) if i not in s)
    order = tuple(next(rest) if o == -1 else o for o in order)
    return shapes.permute(input, dims=order)


def permute(input: Tensor, dims: Sequence[int]) -> Tensor:
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
    return shapes.permute(input, dims=wrapped if nd else ())


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """input with dims dim0 and dim1 swapped: a view."""
    nd = input._data.ndim
    if input.__class__ is Tensor:
        return _transpose_op(input, {"dim0": _dim(dim0, nd), "dim1": _dim(dim1, nd), "variant": 0})
    return shapes.transpose(input, dim0=_dim(dim0, nd), dim1=_dim(dim1, nd))


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """input with dims start_dim..end_dim merged into one."""
    x = input._data
    nd = x.ndim
    if start_dim == 0 and end_dim == -1 and nd and input.__class__ is Tensor:  # all dims
        if nd == 1:
            return input
        if x.flags.c_contiguous:
            return _view_op(input, {"shape": (x.size,)})  # (shapes.reshape's view, in one call)
    if nd == 0:
        _dim(start_dim, 0), _dim(end_dim, 0)
        return shapes.reshape(input, (1,))
    s, e = _dim(start_dim, nd), _dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shape = input._data.shape
    shape = shape[:s] + (math.prod(shape[s : e + 1]),) + shape[e + 1 :]
    if input.__class__ is Tensor and input._data.flags.c_contiguous:
        return _view_op(input, {"shape": shape})  # (shapes.reshape's view, in one call)
    return shapes.reshape(input, shape)


def unflatten(input: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:
    """input with dim ``dim`` split into ``sizes`` (one may be -1)."""
    shape = input._data.shape
    sizes = tuple(int(s) for s in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if not shape:
        raise RuntimeError(
            "unflatten got an unexpected error:\nDimension specified as 0 but tensor has no "
            "dimensions"
        )
    d = _dim(dim, input._data.ndim)
    try:
        inferred = shapes.infer_shape(sizes, shape[d])
    except RuntimeError as e:
        if "is invalid for input of size" not in str(e):  # (a second -1, a size below -1 ...)
            raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
        raise RuntimeError(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim "
            f"{d} ({shape[d]}) in the input tensor"
        ) from None
    return shapes.view(input, shape=shape[:d] + inferred + shape[d + 1 :])  # (always a view)


def contiguous(input: Tensor, memory_format: Any = None) -> Tensor:
    """input itself when its memory is C-contiguous (or laid out as ``memory_format``), else
    a copy so laid out (CloneBackward0)."""
    if memory_format is None or memory_format is _memory_format.contiguous_format:
        if input._data.flags.c_contiguous:
            return input
        return copies.clone(input, memory_format="contiguous")
    if _memory_format.is_contiguous_as(input._data, memory_format):
        return input
    if memory_format is _memory_format.preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    _memory_format.check_format(input._data.ndim, memory_format)
    return copies.clone(input, memory_format=memory_format)


def clone(input: Tensor, *, memory_format: Any = None) -> Tensor:
    """A copy of input, laid out as input is (``preserve_format``, the default) or as
    ``memory_format`` says (CloneBackward0)."""
    if memory_format is None or memory_format is _memory_format.preserve_format:
        return copies.clone(input)
    if memory_format is _memory_format.contiguous_format:
        return copies.clone(input, memory_format="contiguous")
    _memory_format.check_format(input._data.ndim, memory_format)
    return copies.clone(input, memory_format=memory_format)


def repeat(input: Tensor, *sizes: Any, repeats: Any = None) -> Tensor:
    """input tiled ``repeats[i]`` times along dim i (Tensor.repeat)."""
    given = keyword_sizes(sizes, repeats, "repeat", "repeats")
    if not given:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    repeats = shapes._ints(given)
    if len(repeats) < input._data.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions "
            "of tensor"
        )
    if any(r < 0 for r in repeats):
        raise RuntimeError(f"Trying to create tensor with negative dimension: {list(repeats)}")
    return joining.repeat(input, repeats=repeats)


def tile(input: Tensor, *sizes: Any, dims: Any = None) -> Tensor:
    """input repeated ``dims[i]`` times along dim i; missing leading dims repeat once."""
    dims = _dims_sequence("tile", sizes, dims)
    dims = (1,) * (input._data.ndim - len(dims)) + dims
    return repeat(input, dims)


def flip(input: Tensor, *args: Any, dims: Any = None) -> Tensor:
    """input with the order of elements reversed along ``dims`` (a sequence of ints: the
    function takes no single int, the method ``x.flip(0, 1)`` takes them as varargs)."""
    dims = _dims_sequence("flip", args, dims)
    return joining.flip(input, dims=_dims(dims, input._data.ndim))


def _dims_sequence(fname: str, args: tuple, dims: Any) -> tuple[int, ...]:
    """The one ``dims`` argument of ``torch.flip``/``torch.tile``, positional or keyword,
    a sequence of ints; PyTorch's TypeErrors for anything else."""
    if len(args) > 1:
        raise TypeError(f"{fname}() takes 2 positional arguments but {len(args) + 1} were given")
    given = keyword_sizes(args, dims, fname, "dims")
    if not given:
        raise TypeError(f'{fname}() missing 1 required positional arguments: "dims"')
    where = " (position 2)" if args else ""
    if not isinstance(given[0], (list, tuple)):
        kind = type(given[0]).__name__
        raise TypeError(f"{fname}(): argument 'dims'{where} must be tuple of ints, not {kind}")
    for i, d in enumerate(given[0]):
        if isinstance(d, (float, complex, bool)):
            raise TypeError(
                f"{fname}(): argument 'dims'{where} must be tuple of ints, but found element "
                f"of type {type(d).__name__} at pos {i}"
            )
    return shapes._ints(given)


def roll(
    input: Tensor, shifts: int | Sequence[int], dims: int | Sequence[int] | None = None
) -> Tensor:
    """input shifted cyclically by ``shifts`` along ``dims`` (the flattened tensor if None)."""
    shifts = (shifts,) if isinstance(shifts, int) else tuple(int(s) for s in shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return joining.roll(input, shifts=shifts, dims=None)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if not input._data.ndim and dims:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    if len(shifts) != len(dims):
        raise RuntimeError(
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}"
        )
    return joining.roll(input, shifts=shifts, dims=tuple(_dim(d, input._data.ndim) for d in dims))


def narrow(input: Tensor, dim: int, start: int | Tensor, length: int) -> Tensor:
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
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return shapes.narrow(input, dim=d, start=start, length=length)


def select(input: Tensor, dim: int, index: int) -> Tensor:
    """input at position ``index`` of dim ``dim``, that dim removed: a view."""
    return indexing.getitem(input, key=select_key(input, dim, index))


def select_key(input: Tensor, dim: int, index: int) -> tuple:
    """The basic key of ``input.select(dim, index)``, with PyTorch's errors."""
    nd = input._data.ndim
    if nd == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _dim(dim, nd)
    size = input._data.shape[d]
    index = operator.index(index)
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size "
            f"{list(input._data.shape)} at dimension {d}"
        )
    return shapes._key_of(d, index % size)


def _split_views(input: Tensor, d: int, sizes: tuple, unbind: bool, kind: str) -> tuple:
    """Run split_op and make its outputs views of input: shared memory and version counter,
    each recorded as a piece (so in-place writes into them are refused, as in PyTorch)."""
    outs = shapes.split(input, dim=d, sizes=sizes, unbind=unbind, kind=kind)
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
        if _is_view(out._data, input._data):  # (an empty piece too, as in PyTorch)
            out._vc = vc
            out._view = view_record(shapes.piece, input, params, vc)
    tangent = forward_ad.tangent_of(input)
    if tangent is not None and forward_ad.state.level:
        with forward_ad.paused():
            parts = shapes.split(tangent, dim=d, sizes=sizes, unbind=unbind, kind=kind)
        for out, part in zip(outs, parts):
            forward_ad.attach(out, _make(part._data, part._dtype))
    return outs


def split(
    tensor: Tensor, split_size_or_sections: int | Sequence[int], dim: int = 0
) -> tuple[Tensor, ...]:
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


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
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


def unbind(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """The slices of input along ``dim``, that dim removed: views."""
    nd = input._data.ndim
    if nd == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _dim(dim, nd)
    return _split_views(input, d, (1,) * input._data.shape[d], True, "Unbind")


def _tensor_list(tensors: Any, what: str) -> list:
    if isinstance(tensors, Tensor):
        raise TypeError(f"{what}(): argument 'tensors' must be tuple of Tensors, not Tensor")
    out = []
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            # (array-likes are read as tensors; a number, None or a string is PyTorch's error)
            if t is None or isinstance(t, (int, float, complex, str, bytes, xp.generic)):
                kind = type(t)
                name = kind.__name__
                if kind.__module__ != "builtins":
                    name = f"{kind.__module__}.{kind.__qualname__}"
                raise TypeError(f"expected Tensor as element {i} in argument 0, but got {name}")
            t = tensor_arg(t)
        out.append(t)
    return out


def cat(
    tensors: Sequence[Tensor], dim: int = 0, *, out: Any = None, axis: int | None = None
) -> Tensor:
    """The tensors joined along ``dim`` (or NumPy's ``axis``); dtypes promote as in PyTorch."""
    if axis is not None:
        dim = axis
    kind = tensors.__class__
    if (kind is list or kind is tuple) and tensors and dim.__class__ is int and _usual[0]:
        # the common case in one pass (float tensors of one dtype and ndim, the sizes off
        # dim equal, no 1-D empty tensor to skip, no view whose base was written since):
        # joining.cat._fast; anything else (and every error) goes on to the general path
        first = tensors[0]
        if first.__class__ is Tensor and out is None:
            dtype = first._dtype
            shape = first._data.shape
            nd = len(shape)
            if dtype._category == 2 and -nd <= dim < nd and (nd > 1 or nd and shape[0]):
                d = dim % nd
                head = shape[:d]
                tail = shape[d + 1 :]
                arrays = []
                offsets = [0]
                end = 0
                for t in tensors:
                    if t.__class__ is not Tensor or t._dtype is not dtype:
                        break
                    view = t._view
                    if view is not None and t._vc[1] > view[2]:
                        break
                    a = t._data
                    size = a.shape
                    if size != shape and (
                        len(size) != nd
                        or size[:d] != head
                        or size[d + 1 :] != tail
                        or not size[d]
                        and nd == 1
                    ):
                        break
                    arrays.append(a)
                    end += size[d]
                    offsets.append(end)
                else:
                    out = joining.cat._fast(tensors, arrays, dtype, d, (d, tuple(offsets)))
                    if nd < 4:
                        return out
                    return _memory_format.common_format_result(out, arrays)
    tensors = _tensor_list(tensors, "cat")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    used = [t for t in tensors if not (t._data.ndim == 1 and t._data.shape[0] == 0)]
    for i, t in enumerate(tensors):
        if t._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    ref = used[0] if used else tensors[0]
    nd = ref._data.ndim
    d = _dim(dim, nd) if used else 0  # (only empty 1-D tensors: any dim, as in PyTorch)
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
    sizes = [t._data.shape[d] if t._data.ndim == nd else 0 for t in tensors]
    offsets = tuple(sum(sizes[:i]) for i in range(len(sizes) + 1))
    if used and len(used) < len(tensors) and nd != 1:
        # 1-D empty tensors are skipped (joining.cat's forward) but promote the dtype and
        # get a 1-D empty gradient: the op's VJP is told which (a trailing frozenset)
        offsets += (frozenset(i for i, t in enumerate(tensors) if id(t) not in used_ids),)
    out = joining.cat(tensors, dim=d, offsets=offsets)
    return _memory_format.common_format_result(out, [t._data for t in used or tensors])


def concatenate(tensors: Sequence[Tensor], axis: int = 0, out: Any = None) -> Tensor:
    return cat(tensors, axis)


def stack(
    tensors: Sequence[Tensor], dim: int = 0, *, out: Any = None, axis: int | None = None
) -> Tensor:
    """The tensors (all of one shape) stacked along a new dim ``dim`` (or NumPy's ``axis``)."""
    if axis is not None:
        dim = axis
    kind = tensors.__class__
    if (kind is list or kind is tuple) and tensors and dim.__class__ is int and _usual[0]:
        # the common case in one pass (float tensors of one dtype and shape, no view whose
        # base was written since): joining.stack._fast; anything else (and every error) goes
        # on to the general path
        first = tensors[0]
        if first.__class__ is Tensor and out is None:
            dtype = first._dtype
            shape = first._data.shape
            nd = len(shape) + 1
            if dtype._category == 2 and -nd <= dim < nd:
                arrays = []
                for t in tensors:
                    if t.__class__ is not Tensor or t._dtype is not dtype:
                        break
                    view = t._view
                    if view is not None and t._vc[1] > view[2]:
                        break
                    a = t._data
                    if a.shape != shape:
                        break
                    arrays.append(a)
                else:
                    d = dim % nd
                    return joining.stack._fast(tensors, arrays, dtype, d, (d,))
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
    return joining.stack(tensors, dim=_dim(dim, len(shape) + 1))


def hstack(tensors: Sequence[Tensor], *, out: Any = None) -> Tensor:
    """The tensors joined column-wise (along dim 0 for 1-D tensors, else dim 1)."""
    tensors = [
        t if t._data.ndim else shapes.reshape(t, (1,)) for t in _tensor_list(tensors, "hstack")
    ]
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    return cat(tensors, 0 if tensors[0]._data.ndim == 1 else 1)


def vstack(tensors: Sequence[Tensor], *, out: Any = None) -> Tensor:
    """The tensors joined row-wise, 0-d and 1-D tensors first made rows."""
    parts = []
    for t in _tensor_list(tensors, "vstack"):
        nd = t._data.ndim
        parts.append(t if nd >= 2 else shapes.reshape(t, (1, t._data.size)))
    return cat(parts, 0)


def _inplace_shape(fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        check_inplace(self)
        return inplace_view(self, fn(self, *args, **kwargs))

    method.__name__ = fn.__name__ + "_"
    method.__doc__ = f"In place {fn.__name__}: self becomes the view (bumps the version)."
    return method


def _squeeze_inplace(self: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    return squeeze(self, dim, _inplace=3)


_squeeze_inplace.__name__ = "squeeze"


def _unsqueeze_inplace(self: Tensor, dim: int) -> Tensor:
    return shapes.unsqueeze(self, dim=_dim(dim, self._data.ndim + 1), variant=1)


_unsqueeze_inplace.__name__ = "unsqueeze"


def _transpose_inplace(self: Tensor, dim0: int, dim1: int) -> Tensor:
    nd = self._data.ndim
    return shapes.transpose(self, dim0=_dim(dim0, nd), dim1=_dim(dim1, nd), variant=1)


_transpose_inplace.__name__ = "transpose"


def _t_inplace(self: Tensor) -> Tensor:
    if self._data.ndim > 2:
        raise RuntimeError(
            f"t_() expects a tensor with <= 2 dimensions, but self is {self._data.ndim}D"
        )
    return shapes.t(self, variant=1)


_t_inplace.__name__ = "t"


def _split_method(
    self: Tensor, split_size: int | Sequence[int], dim: int = 0
) -> tuple[Tensor, ...]:
    return split(self, split_size, dim)


def _method_varargs(fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """A method taking sizes or dims as varargs or one sequence: ``x.flip(0, 1)`` (the
    keyword form takes a sequence only, as the function does)."""

    def method(self: Tensor, *args: Any, dims: Any = None) -> Tensor:
        if len(args) > 1 or (args and not isinstance(args[0], (list, tuple))):
            return fn(self, shapes._ints(keyword_sizes(args, dims, fn.__name__, "dims")))
        return fn(self, *args, dims=dims)  # (one sequence, the keyword, or nothing)

    method.__name__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


def permute_method(self: Tensor, *args: Any, dims: Any = None) -> Tensor:
    """``x.permute(1, 0)``, ``x.permute((1, 0))`` or ``x.permute(dims=(1, 0))``."""
    return permute(self, shapes._ints(keyword_sizes(args, dims, "permute", "dims")))


def view_as(self: Tensor, other: Tensor) -> Tensor:
    return view(self, tuple(other.shape))


def reshape_as(self: Tensor, other: Tensor) -> Tensor:
    return shapes.reshape(self, tuple(other.shape))


def expand_as(self: Tensor, other: Tensor) -> Tensor:
    return expand(self, *other.shape)
