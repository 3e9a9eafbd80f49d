"""PyTorch's signatures for indexing, gather and scatter: index checks with
PyTorch's errors, and ``x[key]`` and ``x[key] = value`` with PyTorch's advanced-indexing
rules (the key is split into its basic part, a view, and its advanced part)."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy

from ... import _dtypes
from ..._backend import is_array, ndarray, on_device_of, xp, xp_of
from ..._dtypes import int64
from ..._promotion import as_number
from ..._tensor import Tensor, _counter, _make, check_inference_write
from ...autograd import forward_ad, grad_mode
from ...autograd.entries import slice_entry, view_op_entry
from ...autograd.inplace import check_no_grad_view, view_scatter, writable_alias
from ...autograd.inplace import inplace as _inplace
from ...autograd.views import view_record
from ...ops import arithmetic, complex_parts, gather_scatter, indexing, shapes
from ..args import tensor_arg
from .index_errors import key_error
from .shapes import _dim, _tensor_list, cat, expanded_shape, unsqueeze


def _check_index(input: Tensor, dim: int, index: Any, what: str, src: Any = None) -> tuple:
    """Wrap dim and check index (and src) for gather/scatter, with PyTorch's errors."""
    if not isinstance(index, Tensor):
        raise TypeError(f"{what}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if index._dtype.name not in ("int64", "int32"):
        raise RuntimeError(f"{what}(): Expected dtype int32/int64 for index")
    nd = input._data.ndim
    d = _dim(dim, nd)
    idx = index._data
    if idx.ndim != max(nd, 1) and not (nd == 0 and idx.ndim == 0):
        who = "input" if what == "gather" else "self"
        raise RuntimeError(f"Index tensor must have the same number of dimensions as {who} tensor")
    shape = input._data.shape
    too_big = [k for k in range(idx.ndim) if k != d and nd and idx.shape[k] > shape[k]]
    if what == "gather":
        if too_big:
            raise RuntimeError(
                f"Size does not match at dimension {too_big[0]} expected index "
                f"{list(idx.shape)} to be no larger than self {list(shape)} apart from "
                f"dimension {d}"
            )
    else:
        src_shape = src._data.shape if isinstance(src, Tensor) and src._data.ndim else None
        if src_shape is not None and any(i > s for i, s in zip(idx.shape, src_shape)):
            raise RuntimeError(
                f"Expected index {list(idx.shape)} to be no larger than self {list(shape)} "
                f"apart from dimension {d} and to be no larger size than src {list(src_shape)}"
            )
        if too_big:
            tail = f" and to be no larger size than src {list(src_shape)}" if src_shape else ""
            raise RuntimeError(
                f"Expected index {list(idx.shape)} to be no larger than self {list(shape)} "
                f"apart from dimension {d}{tail}"
            )
    size = input._data.shape[d] if nd else 1
    if idx.size:
        bad = idx[(idx < 0) | (idx >= size)]
        if bad.size:
            raise RuntimeError(
                f"index {int(bad.flat[0])} is out of bounds for dimension {d} with size {size}"
            )
    return d, index


def gather(
    input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False, out: Tensor | None = None
) -> Tensor:
    """input's elements at ``index`` along ``dim``: out[p] = input[p with p[dim] = index[p]]."""
    d, index = _check_index(input, dim, index, "gather")
    return gather_scatter.gather(input, index, dim=d)


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
        return gather_scatter.scatter(input, index, src, dim=d, reduce=reduce)
    d, index = _check_index(input, dim, index, "scatter")
    return gather_scatter.scatter_value(input, index, dim=d, value=src, reduce=reduce)


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """A copy of input with ``src``'s elements added at ``index`` along ``dim``."""
    if src._dtype is not input._dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    d, index = _check_index(input, dim, index, "scatter_add", src)
    return gather_scatter.scatter_add(input, index, src, dim=d)


def _check_1d_index(index: Any, what: str) -> Tensor:
    """index as a tensor of at most one dim and an integer dtype, with the error of
    PyTorch's kernel for ``what`` (each checks and words these in its own way)."""
    if not isinstance(index, Tensor):
        index = tensor_arg(index)
    dt, nd = index._dtype, index._data.ndim
    if what == "index_fill":
        if dt.name != "int64":
            raise IndexError("index_fill_(): Expected dtype int64 for index.")
        if nd > 1:
            raise RuntimeError("Index has to be a vector/scalar")
        return index
    if nd > 1:
        _index_not_a_vector(index, what)
    if what == "index_copy" and dt.name != "int64":
        raise RuntimeError(
            f"index_copy_(): Expected a long tensor for index, but got {dt.scalar_name}"
        )
    if dt.name not in ("int64", "int32"):
        if what == "index_add":
            raise RuntimeError(
                f"index_add_(): Expected dtype int32/int64 for index but got: {dt.scalar_name}"
            )
        raise RuntimeError(f"{what}(): Expected dtype int32 or int64 for index")
    return index


def _index_not_a_vector(index: Tensor, what: str) -> None:
    nd = index._data.ndim
    if what == "index_copy":
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {nd})")
    if what == "index_add":
        raise IndexError(
            f"index_add_(): Index is supposed to be a vector, but got dim: {nd} with type: "
            f"{index._dtype.scalar_name} and size: {list(index._data.shape)}"
        )
    raise IndexError(f"{what}(): Index is supposed to be a vector")


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
        _index_select_out_of_range(input, d, int(bad[0]), size)
    return gather_scatter.index_select(input, _make(idx, index._dtype), dim=d)


def _index_select_out_of_range(input: Tensor, d: int, bad: int, size: int) -> None:
    """PyTorch's error for an index out of range, which depends on its CPU kernel's path:
    an IndexError, or a RuntimeError along dim 1 and for an empty input."""
    nd = input._data.ndim
    if nd > 1 and size == 0:
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    if nd > 1 and (d == 1 or input._data.size == 0):
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={size}")
    raise IndexError("index out of range in self")


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
    if bad.size and not (nd > 1 and input._data.size == 0):  # (PyTorch: nothing to add to)
        # (as PyTorch's CPU kernels word it: alpha != 1 and the inner dims take one path)
        if nd <= 1 or 0 < d < nd - 1 or alpha != 1:
            raise IndexError("index out of range in self")
        raise RuntimeError(
            f"index {int(bad[0])} is out of bounds for dimension {d} with size {size}"
        )
    if source._dtype is not input._dtype:
        raise RuntimeError(
            f"index_add_(): self ({input._dtype.scalar_name}) and source "
            f"({source._dtype.scalar_name}) must have the same scalar type"
        )
    if bad.size:  # (an empty input: PyTorch adds nothing and checks no index)
        idx, source = idx[:0], indexing.getitem(source, key=shapes._key_of(d, slice(0, 0)))
    return gather_scatter.index_add(input, _make(idx, index._dtype), source, dim=d, alpha=alpha)


def _bool_mask(mask: Any, what: str) -> Tensor:
    if not isinstance(mask, Tensor):
        mask = tensor_arg(mask)
    if mask._dtype.name != "bool":
        if what == "masked_select":
            raise RuntimeError("masked_select: expected BoolTensor for mask")
        # (masked_fill_ prints the C++ type name, masked_scatter_ PyTorch's own)
        name = (_dtypes.type_meta_name if what == "masked_fill_" else _dtypes.scalar_name)(
            mask._dtype
        )
        raise RuntimeError(f"{what} only supports boolean masks, but got mask with dtype {name}")
    return mask


def _real_scalar(value: Any, dtype: Any) -> Any:
    """A number to write into a tensor of ``dtype``: a complex one, into a tensor that is
    not complex, as PyTorch converts it (its real part when its imaginary part is 0; for
    bool, whether it is nonzero; else PyTorch's overflow error). Other numbers unchanged."""
    if value.__class__ is not complex or dtype._category == 3:
        return value
    if dtype is _dtypes.bool:
        return value != 0
    if value.imag:
        raise RuntimeError(f"value cannot be converted to type {dtype.c_name} without overflow")
    return value.real


def _real_tensor(value: Tensor, dtype: Any) -> Tensor:
    """A complex tensor written into a tensor of real ``dtype``, as PyTorch's copy writes
    it: its real part (a view, so the gradient flows), with PyTorch's warning; for bool,
    whether each entry is nonzero."""
    if dtype is _dtypes.bool:
        return _make(value._data != 0, _dtypes.bool)
    from ..._creation import warn_discarding_imaginary

    warn_discarding_imaginary()
    return complex_parts.real(value)


def masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    """input with ``value`` (a number or a 0-d tensor) where ``mask`` is True."""
    mask = _bool_mask(mask, "masked_fill_")
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value._data.ndim} dimension(s)."
            )
        if value._dtype._category == 3:
            _real_scalar(complex(value._data), input._dtype)  # (its checks only)
        return indexing.masked_fill_tensor(input, mask, value)
    value = _real_scalar(as_number(value), input._dtype)
    value = _dtypes.checked_fill(value, input._dtype)
    arithmetic.check_scalar_fits(value, input._dtype)  # (float16 too, as PyTorch's)
    return indexing.masked_fill(input, mask, value=value)


def masked_select(input: Tensor, mask: Tensor, *, out: Any = None) -> Tensor:
    """input's elements where ``mask`` is True, as a 1-D tensor."""
    mask = _bool_mask(mask, "masked_select")
    return indexing.masked_select(input, mask)


def take(input: Tensor, index: Tensor) -> Tensor:
    """input's elements at ``index`` into the flattened input (negative indices count back)."""
    if not isinstance(index, Tensor):
        index = tensor_arg(index)
    if index._dtype is not int64:
        raise RuntimeError(
            f"take(): Expected a long tensor for index, but got {index._dtype.scalar_name}"
        )
    n = input._data.size
    idx = index._data
    if n == 0 and idx.size:
        raise IndexError("take(): tried to take from an empty tensor")
    bad = idx[(idx < -n) | (idx >= n)]
    if bad.size:
        raise IndexError(
            f"out of range: tried to access index {int(bad.flat[0])} on a tensor of {n} elements."
        )
    return indexing.take(input, index)


def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """A copy of input with ``value`` (a number or 0-d tensor) in its slices at ``index``."""
    index = _check_1d_index(index, "index_fill")
    d = _dim(dim, input._data.ndim)
    idx = _make(_checked_slices(input, d, index, "index_fill"), index._dtype)
    complex_value = (
        value._dtype._category == 3 if isinstance(value, Tensor) else (value.__class__ is complex)
    )
    if complex_value and input._dtype._category != 3:
        raise RuntimeError(
            "index_fill_(): Converting complex Scalar to non-complex type is not supported"
        )
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(
                "index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value._data.ndim} dimension(s)."
            )
        return gather_scatter.index_fill_tensor(input, idx, value, dim=d)
    if input._dtype._category == 1:  # (an integer dtype: PyTorch's checked conversion)
        value = _dtypes.checked_fill(value, input._dtype)
    return gather_scatter.index_fill(input, idx, dim=d, value=value)


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
    idx = index._data.reshape(-1)
    nd, nd_src = input._data.ndim, source._data.ndim
    if nd and nd_src and nd != nd_src:
        raise IndexError(
            "index_copy_(): When source and destination are not scalars, their dimensionality "
            f"must match. Source dimensionality ({nd_src}), destination dimensionality ({nd})"
        )
    if source._dtype is not input._dtype and _autocast_promotes(input, source):
        # (inside a CPU autocast, PyTorch's "promote" list: both to the wider dtype)
        from ..._promotion import result_type

        dtype = result_type([input, source])
        input, source = input.to(dtype), source.to(dtype)
    if source._dtype is not input._dtype:
        raise RuntimeError(
            "index_copy_(): self and source expected to have the same dtype, but got (self) "
            f"{input._dtype.scalar_name} and (source) {source._dtype.scalar_name}"
        )
    n_src = source._data.shape[d] if nd_src else 1
    if idx.size != n_src:
        raise IndexError(
            f"index_copy_(): Number of indices ({idx.size}) should be equal to source.size(dim) "
            f"({n_src})"
        )
    size = input._data.shape[d] if nd else 1
    bad = idx[(idx < 0) | (idx >= size)]
    if bad.size:  # (index_copy takes no negative index)
        raise IndexError(
            f"index_copy_(): index {int(bad[0])} is out of bounds for dimension {d} "
            f"with size {size}"
        )
    return gather_scatter.index_copy(input, _make(idx, index._dtype), source, dim=d)


def _autocast_promotes(*tensors: Tensor) -> bool:
    """Whether a CPU autocast is on and the tensors are floating (PyTorch's promote list)."""
    from ..._modes import usual
    from ...autograd.recording import AUTOCAST

    if usual[0] or AUTOCAST[0] is None:
        return False
    from ...amp.autocast_mode import switches

    return switches.enabled["cpu"] and all(t._dtype.is_floating_point for t in tensors)


def index_put(
    input: Tensor, indices: Sequence[Tensor | None], values: Any, accumulate: bool = False
) -> Tensor:
    """A copy of input with ``values`` written (or with ``accumulate`` added) at the advanced
    index ``indices`` (a tuple of tensors)."""
    key = _plain(tuple(_index_part(i) for i in indices))
    values = values if isinstance(values, Tensor) else tensor_arg(values)
    if values._dtype is not input._dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{input._dtype.scalar_name} for the destination and "
            f"{values._dtype.scalar_name} for the source."
        )
    try:
        if accumulate:
            return gather_scatter.index_put_accumulate(input, values, key=key)
        return indexing.index_put(input, values, key=key)
    except IndexError as exc:
        error = _index_error(exc, input._data.shape, key)
    except ValueError:
        raise _shape_mismatch(input, key, values) from None
    clipped = _retry_key(input, key)
    if clipped is None:
        raise error
    return index_put(input, clipped, values, accumulate)


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """A copy of input with ``source``'s first elements, in order, where ``mask`` is True."""
    mask = _bool_mask(mask, "masked_scatter_")
    if source._dtype is not input._dtype:  # (PyTorch's words, no space after "got")
        raise RuntimeError(
            "masked_scatter: expected self and source to have same dtypes but got"
            f"{input._dtype.scalar_name} and {source._dtype.scalar_name}"
        )
    n = int(numpy.broadcast_to(mask._data, numpy.broadcast_shapes(input.shape, mask.shape)).sum())
    if source._data.size < n:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return gather_scatter.masked_scatter(input, mask, source)


def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    """input's elements at ``indices`` along ``dim`` (of the flattened input when None),
    input and indices broadcast against each other in the other dims."""
    if dim is None:
        return gather(
            shapes.reshape(input, (-1,)), 0, _make(indices._data.reshape(-1), indices._dtype)
        )
    nd = input._data.ndim
    d = _dim(dim, nd)
    if indices._data.ndim != nd:
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of "
            f"dimensions, but got {nd} dimensions for input, and {indices._data.ndim} "
            "dimensions for indices"
        )
    ones_at = lambda shape: shape[:d] + (1,) + shape[d + 1 :]  # noqa: E731
    a, b = ones_at(input._data.shape), ones_at(indices._data.shape)
    clash = [k for k in range(nd) if a[k] != b[k] and 1 not in (a[k], b[k])]
    if clash:  # (PyTorch names the last dim that does not broadcast)
        k = clash[-1]
        raise RuntimeError(
            f"The size of tensor a ({a[k]}) must match the size of tensor b ({b[k]}) at "
            f"non-singleton dimension {k}"
        )
    shape = list(numpy.broadcast_shapes(a, b))
    x_shape, i_shape = list(shape), list(shape)
    x_shape[d], i_shape[d] = input._data.shape[d], indices._data.shape[d]
    if tuple(x_shape) != input._data.shape:
        input = shapes.expand(input, shape=tuple(x_shape))
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
    return gather_scatter.unfold(self, dimension=d, size=size, step=step)


def atleast_1d(*tensors: Any) -> Tensor | tuple[Tensor, ...]:
    """Each tensor with at least 1 dim (0-d tensors become shape (1,))."""
    return _atleast(tensors, 1)


def atleast_2d(*tensors: Any) -> Tensor | tuple[Tensor, ...]:
    """Each tensor with at least 2 dims (leading size-1 dims added)."""
    return _atleast(tensors, 2)


def atleast_3d(*tensors: Any) -> Tensor | tuple[Tensor, ...]:
    """Each tensor with at least 3 dims: (n,) -> (1, n, 1), (m, n) -> (m, n, 1)."""
    return _atleast(tensors, 3)


def _atleast(tensors: tuple, n: int) -> Tensor | tuple[Tensor, ...]:
    many = len(tensors) != 1 or isinstance(tensors[0], (list, tuple))
    items = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors
    out = []
    for t in items:
        nd = t._data.ndim
        if nd >= n:
            out.append(t)
        elif n == 1:
            out.append(shapes.reshape(t, (1,)))
        elif n == 2:
            out.append(unsqueeze(t, 0) if nd == 1 else shapes.reshape(t, (1, 1)))
        elif nd == 0:
            out.append(shapes.reshape(t, (1, 1, 1)))
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
        parts.append(shapes.reshape(t, (t._data.size, 1)) if t._data.ndim <= 1 else t)
    return cat(parts, 1)


# ----- x[key] and x[key] = value -----------------------------------------------------------


def _index_part(k: Any) -> Any:
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
        return slice(*(None if v is None else operator.index(v) for v in (k.start, k.stop, k.step)))
    if isinstance(k, numpy.integer):
        return int(k)
    if (isinstance(k, ndarray) or is_array(k)) and k.dtype.kind not in "biu":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return k


def _normalize(key: Any, ndim: int) -> tuple:
    parts = _key_parts(key)
    if ndim and _used_dims(parts) > ndim:  # (PyTorch counts before it reads any part)
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    if any(isinstance(p, slice) and p.step is not None and p.step <= 0 for p in parts):
        raise ValueError("step must be greater than zero")
    if len(parts) > 1 and any(p is Ellipsis for p in parts):
        used = _used_dims(parts)
        if used == ndim:  # an Ellipsis standing for no dims does not separate indices
            parts = tuple(p for p in parts if p is not Ellipsis)
        elif sum(p is Ellipsis for p in parts) > 1:
            parts = _one_ellipsis(parts, used, ndim)
    return parts


def _used_dims(parts: tuple) -> int:
    """How many of the tensor's dims the key's parts index (None, Ellipsis and bools none)."""
    return sum(
        p.ndim if (isinstance(p, ndarray) or is_array(p)) and p.dtype == bool else 1
        for p in parts
        if p is not None and p is not Ellipsis and not isinstance(p, bool)
    )


def _key_parts(key: Any) -> tuple:
    """The key's parts as NumPy takes them (a list of indices read as a tuple)."""
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
    return tuple(_index_part(k) for k in parts)


def _one_ellipsis(parts: tuple, used: int, ndim: int) -> tuple:
    """A key with several Ellipsis as PyTorch reads it: each one skips the ``ndim - used``
    dims the other parts leave, so past the first one, an Ellipsis is harmless only when
    nothing but Ellipsis follows it (used == ndim is handled by the caller)."""
    if used > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    second = [i for i, p in enumerate(parts) if p is Ellipsis][1]
    if any(p is not Ellipsis for p in parts[second + 1 :]):
        raise IndexError(
            f"too many indices for tensor of dimension {ndim}: each '...' skips the "
            f"{ndim - used} dims the other indices leave, so nothing can follow a second one"
        )
    return parts[:second]


def _empty_result_key(parts: tuple, shape: tuple) -> tuple | None:
    """PyTorch skips the bounds check of integer-array indices when the result has no
    elements, unless an indexed dim has size 0: the key with its arrays clipped into range
    (any in-range index gives that empty result), or None when PyTorch checks it."""
    clipped, dim, mod = [], 0, xp  # (mod: the index arrays' module, a device's too)
    used = sum(
        p.ndim if _is_advanced(p) and not isinstance(p, bool) and p.dtype == bool else 1
        for p in parts
        if p is not None and p is not Ellipsis and not isinstance(p, bool)
    )
    for p in parts:
        if p is Ellipsis:
            dim += len(shape) - used
        elif isinstance(p, bool) or p is None:
            pass
        elif _is_advanced(p) and p.dtype == bool:
            dim += p.ndim
        elif _is_advanced(p):
            if dim >= len(shape):
                return None
            if shape[dim] == 0 and p.size and _broadcasts(parts):
                raise key_error(parts, shape) or IndexError(
                    "index is out of bounds for dimension with size 0"
                )
            mod = xp_of(p)
            p = mod.clip(p, 0, max(shape[dim] - 1, 0))
            dim += 1
        else:
            dim += 1
        clipped.append(p)
    try:
        empty = not mod.empty(shape, dtype=bool)[_plain(tuple(clipped))].size
    except IndexError:
        return None
    return tuple(clipped) if empty else None


def _broadcasts(parts: tuple) -> bool:
    """Whether the key's index arrays broadcast together (PyTorch checks that first)."""
    try:
        numpy.broadcast_shapes(
            *(p.shape for p in parts if _is_advanced(p) and not isinstance(p, bool))
        )
    except ValueError:
        return False
    return True


def _is_advanced(p: Any) -> bool:
    return isinstance(p, (ndarray, bool)) or is_array(p)


def _split_key(parts: tuple, always: bool = False) -> tuple[tuple, tuple | None]:
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
        elif isinstance(p, ndarray) or is_array(p):
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


def _plain_part(p: Any) -> bool:
    c = p.__class__
    return c is int or p is None or p is Ellipsis or c is slice and _plain_slice(p)


def _plain(parts: tuple) -> Any:
    """A one-part key as itself (x[0] names its node as PyTorch does), else the tuple."""
    return parts[0] if len(parts) == 1 else parts


def _index_error(exc: IndexError, shape: tuple, key: Any = None) -> IndexError:
    """NumPy's IndexError in PyTorch's words (PyTorch's own, found from ``key``, first)."""
    if key is not None:
        try:
            error = key_error(_key_parts(key), shape)
        except (IndexError, ValueError, TypeError):
            error = None
        if error is not None:
            return error
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
    if (
        c is slice
        and input.__class__ is Tensor
        and key.step is None
        and (key.start is None or key.start.__class__ is int)
        and (key.stop is None or key.stop.__class__ is int)
    ):  # (a plain slice: _plain_slice, inlined)
        # x[1:]: straight to the op, its node known (SliceBackward0, as _index_node_name
        # names it); the same tensor, node and errors as below (test_recording_cost.py)
        try:
            return _slice(input, key)
        except IndexError as exc:
            raise _index_error(exc, input._data.shape, key) from None
    if c is int or c is slice and _plain_slice(key) or c is tuple and all(map(_plain_part, key)):
        if input.__class__ is Tensor:  # basic indexing: a view, in one call
            try:
                if c is int:
                    return _basic(input, {"key": key})
                name = indexing._index_node_name(input._data, key)
                return _basic(input, {"key": key}, indexing.getitem._class(name))
            except IndexError as exc:
                if not (c is tuple and sum(p is Ellipsis for p in key) > 1):
                    raise _index_error(exc, input._data.shape, key) from None
            return getitem(input, _normalize(key, input._data.ndim))  # several Ellipsis
        basic, advanced = key, None  # basic indexing: NumPy takes the key as it is
    elif c is Tensor and key._data.ndim and key._data.dtype.kind == "i":
        basic, advanced = key._data, None  # one integer tensor
    else:
        with on_device_of(input._data):  # index arrays made where the input is
            basic, advanced = _split_key(_normalize(key, input._data.ndim))
        if advanced is not None or not isinstance(key, tuple):
            basic = _plain(basic)  # x[:] is sliced, x[:,] an alias: keep the tuple as given
    try:
        out = indexing.getitem._apply((input,), {"key": basic})  # (input is a tensor)
        if advanced is not None:
            out = indexing.getitem(out, key=_plain(advanced))
    except IndexError as exc:
        error = _index_error(exc, input._data.shape, key)
    else:
        return out
    if c is tuple and sum(p is Ellipsis for p in key) > 1:
        return getitem(input, _normalize(key, input._data.ndim))
    clipped = _retry_key(input, key)
    if clipped is None:
        raise error
    basic, advanced = _split_key(clipped)
    out = indexing.getitem._apply((input,), {"key": _plain(basic)})
    return out if advanced is None else indexing.getitem(out, key=_plain(advanced))


def _retry_key(input: Tensor, key: Any) -> tuple | None:
    """After an IndexError: a key PyTorch reads without its error (an empty result), or None."""
    with on_device_of(input._data):
        parts = _normalize(key, input._data.ndim)
    if not any(_is_advanced(p) and not isinstance(p, bool) and p.dtype != bool for p in parts):
        return None
    return _empty_result_key(parts, input._data.shape)


_slice = slice_entry(indexing.getitem, indexing.getitem._class("SliceBackward0"))
# basic indexing's view (entries.view_op_entry): x[0] selects (SelectBackward0); a tuple's
# node is named per key (indexing._index_node_name)
_basic = view_op_entry(indexing.getitem, indexing.getitem._class("SelectBackward0"))


def _value_tensor(value: Any, like: Tensor) -> Any:
    """The value to write: numbers stay numbers; anything else a tensor without the leading
    size-1 dims PyTorch ignores."""
    if isinstance(value, (int, float, bool)):
        return value
    if not isinstance(value, Tensor):
        from ..._creation import as_tensor

        value = as_tensor(value, dtype=like._dtype)
    shape = value._data.shape
    lead = 0
    while lead < len(shape) and shape[lead] == 1:
        lead += 1
    if lead:
        value = shapes.reshape(value, shape[lead:])
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
    return all(indexing._whole_slice(p, shape[d]) for p, d in zip(slices, dims))


def setitem(input: Tensor, key: Any, value: Any) -> None:
    """input[key] = value, in place, as PyTorch does it: the basic part of the key (ints,
    slices, None) picks a view, and the value is copied into it (the base's node is
    CopySlices) or, with advanced indices, index_put into it (IndexPutBackward0 when the
    view is the whole input). A key selecting all of input fills or copies into it directly.
    Gradients reach both input's old value (outside the region) and value.
    """
    check_inference_write(input)
    if key.__class__ is bool:  # (PyTorch: x[True] writes as x[None] does, x[False] nothing)
        if key:
            setitem(input, None, value)
        return
    _check_byte_fill(input, key, value)
    value = _real_scalar(value, input._dtype)
    with on_device_of(input._data):  # index arrays made where the input is
        parts = _normalize(key, input._data.ndim)
    if (
        isinstance(value, Tensor)
        and value._dtype._category == 3
        and input._dtype._category != 3
        and not any(_is_advanced(p) for p in parts)  # (index_put refuses two dtypes)
    ):
        value = _real_tensor(value, input._dtype)
    recording = grad_mode._state.enabled and (
        input._requires_grad or isinstance(value, Tensor) and value._requires_grad
    )
    check_no_grad_view(input)
    if not (recording or forward_ad.state.level):
        if input._data.flags.writeable:
            _write_array(input, parts, value)  # nothing to record: write the array directly
            return
        alias = _region_alias(input, parts)
        if alias is not None:  # a region of an expand whose elements are apart: written
            kept, input._data = input._data, alias
            try:
                _write_array(input, parts, value)
            finally:
                input._data = kept
            return
    scalar = not isinstance(value, Tensor) or not value._data.ndim  # before leading 1s go
    given, key_given = value, _plain(parts)
    value = _value_tensor(value, input)
    try:
        if not any(_is_advanced(p) for p in parts):
            _write_region(input, parts, value, scalar)
            return
        if isinstance(value, Tensor) and value._dtype is not input._dtype:
            value = _other_dtype_value(input, parts, value)
        basic, advanced = _split_key(parts, always=True)
        target = input
        if not _is_whole(basic, input._data.shape):
            target = _region(input, basic)
            parts = advanced
        _inplace(target, indexing.index_put, (target, value), {"key": _plain(parts)})
    except IndexError as exc:
        error = _index_error(exc, input._data.shape, key)
    except (ValueError, TypeError) as exc:
        if isinstance(exc, TypeError) and not str(exc).startswith("NumPy boolean array"):
            raise
        raise _shape_mismatch(input, key_given, given) from None
    else:
        return
    clipped = _retry_key(input, key_given)
    if clipped is None:
        raise error
    setitem(input, clipped, given)


def _check_byte_fill(input: Tensor, key: Any, value: Any) -> None:
    """PyTorch writes one element under one mask as masked_fill_, which refuses uint8 masks
    (after reading the key: its errors first)."""
    parts = key if isinstance(key, tuple) else (key,)
    advanced = [p for p in parts if isinstance(p, (Tensor, list, bool))]
    if (
        len(advanced) == 1
        and isinstance(advanced[0], Tensor)
        and advanced[0]._dtype.name == "uint8"
        and advanced[0]._data.ndim
        and (not isinstance(value, Tensor) or value._data.size == 1)
    ):
        error = key_error(_key_parts(key), input._data.shape)
        if error is not None:
            raise error
        raise RuntimeError(
            "masked_fill_ only supports boolean masks, but got mask with dtype unsigned char"
        )


def _shape_mismatch(input: Tensor, key: Any, value: Any) -> RuntimeError:
    """PyTorch's error for a value that does not broadcast to the region ``key`` selects:
    for a basic key (a view, which PyTorch copies into), that of expanding the value (its
    leading size-1 dims dropped) to the region's shape."""
    shape = tuple(value.shape if isinstance(value, Tensor) else xp.shape(value))
    while shape and shape[0] == 1:
        shape = shape[1:]
    region = input._data[key].shape
    parts = key if isinstance(key, tuple) else (key,)
    if any(_is_advanced(p) for p in parts):
        return indexing.shape_mismatch(region, shape)
    dtype = value._dtype if isinstance(value, Tensor) else input._dtype
    like = _make(xp.empty(shape, dtype=dtype.np), dtype)
    try:
        expanded_shape(like, list(region))
    except RuntimeError as exc:
        return exc
    return indexing.shape_mismatch(region, shape)


def _region(input: Tensor, key: tuple) -> Tensor:
    """input[key] for a basic key: a view, even when empty (NumPy shares no memory then)."""
    region = indexing.getitem(input, key=key)
    if region._view is None and not region._data.size:
        vc = _counter(input)
        region._vc = vc
        region._view = view_record(indexing.getitem, input, {"key": key}, vc)
    return region


def _other_dtype_value(input: Tensor, parts: tuple, value: Tensor) -> Tensor:
    """A value of another dtype for an advanced key, as PyTorch takes it: one element under
    one bool mask is a fill (of input's dtype); else its error for the value's shape, then
    for the dtype."""
    advanced = [p for p in parts if _is_advanced(p) and not isinstance(p, bool)]
    if len(advanced) == 1 and advanced[0].dtype == bool and value._data.size == 1:
        return value.to(input._dtype)
    if not _fits(value._data.shape, input._data[_plain(parts)].shape):
        raise _shape_mismatch(input, _plain(parts), value)
    raise RuntimeError(
        "Index put requires the source and destination dtypes match, got "
        f"{input._dtype.scalar_name} for the destination and "
        f"{value._dtype.scalar_name} for the source."
    )


def _write_array(input: Tensor, parts: tuple, value: Any) -> None:
    """input[parts] = value on the arrays, with PyTorch's rules and errors; bumps the version."""
    given = value
    if isinstance(value, Tensor):
        if value._dtype is not input._dtype and any(_is_advanced(p) for p in parts):
            value = _other_dtype_value(input, parts, value)
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
        error = _index_error(exc, input._data.shape, parts)
    except (ValueError, TypeError) as exc:
        if isinstance(exc, TypeError) and not str(exc).startswith("NumPy boolean array"):
            raise
        raise _shape_mismatch(input, _plain(parts), given) from None
    except OverflowError:  # NumPy's for a number an integer dtype cannot hold: PyTorch's
        value = _dtypes.checked_fill(value, input._dtype)  # check (or negatives that wrap)
        _write_array(input, parts, xp.asarray(value, dtype=input._dtype.np))
        return
    else:
        input._bump()
        return
    clipped = _retry_key(input, parts)
    if clipped is None:
        raise error
    _write_array(input, clipped, value)


def _region_alias(input: Tensor, parts: list) -> Any:
    """A writable view of the read-only array of ``input`` (an expand, an unfold) where
    the basic key ``parts`` selects elements that are all at different places (PyTorch
    writes there: ``x.expand(2, 3)[0] = v``); None otherwise."""
    if any(_is_advanced(p) for p in parts) or input._data.__class__ is not ndarray:
        return None
    if writable_alias(input._data[_plain(parts)]) is None:
        return None
    return writable_alias(input._data, overlap=True)


def _write_region(input: Tensor, parts: tuple, value: Any, scalar: bool) -> None:
    """input[parts] = value for a basic key: a copy (or fill) into the view it selects."""
    if _is_whole(parts, input._data.shape):  # PyTorch writes into input itself
        from ...ops.copies import fill_tensor

        if fill_tensor is not None and scalar:
            if not isinstance(value, Tensor):
                value = _make(xp.asarray(value, dtype=input._dtype.np), input._dtype)
            _inplace(input, fill_tensor, (input, value), {})  # PyTorch's FillBackward3
        elif isinstance(value, Tensor):
            try:
                input.copy_(value)
            except (RuntimeError, ValueError):
                if not _fits(value._data.shape, input._data.shape):
                    raise _shape_mismatch(input, _plain(parts), value) from None
                raise
        else:
            input.fill_(value)
        return
    key = _plain(parts)
    region = indexing.getitem.forward(input._data, key=key)
    if isinstance(value, Tensor) and value._data.ndim > region.ndim:
        raise _shape_mismatch(input, key, value)
    if input._requires_grad and input._grad_fn is None and grad_mode._state.enabled:
        raise RuntimeError(  # (PyTorch writes into the region's view of the leaf)
            "a view of a leaf Variable that requires grad is being used in an in-place operation."
        )
    # one CopySlices node: input with the region replaced by the value
    try:
        _inplace(
            input, view_scatter, (input, value), {"steps": ((indexing.getitem, {"key": key}),)}
        )
    except (RuntimeError, ValueError):
        if isinstance(value, Tensor) and not _fits(value._data.shape, region.shape):
            raise _shape_mismatch(input, key, value) from None
        raise


def _fits(shape: tuple, region: tuple) -> bool:
    """Whether a value of ``shape`` broadcasts to ``region`` (a shape)."""
    try:
        return numpy.broadcast_shapes(shape, region) == tuple(region)
    except ValueError:
        return False


def _scatter_method(
    self: Tensor,
    dim: int,
    index: Tensor,
    src: Any = None,
    value: Any = None,
    *,
    reduce: str | None = None,
) -> Tensor:
    return scatter(self, dim, index, src, value, reduce=reduce)
