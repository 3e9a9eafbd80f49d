"""PyTorch's signatures around a tensor's storage and strides: ``storage_offset``,
``dim_order``, ``as_strided``/``as_strided_scatter``, ``view(dtype)``, ``resize_``/
``resize_as_``, and the elementwise ``frexp``, ``gcd``, ``lcm`` and ``put``/``put_``.

chainrule's tensors are NumPy arrays; a view's storage is its base tensor's array, so the
storage offset of a view is the distance of its first element from its base's."""

from __future__ import annotations

import math
from typing import Any

from ... import _creation, _dtypes
from ..._backend import address, on_device_of, strided_view, xp
from ..._dtypes import dtype as DType
from ..._tensor import Tensor, _make
from ...autograd.inplace import check_inplace, inplace_view
from ...ops import arithmetic, aten_forms, gather_scatter, indexing, shapes, unary
from ...storage import file_offset
from ..args import require_tensor, return_type, shape_args

_Frexp = return_type("frexp", ("mantissa", "exponent"))


def _base_of(t: Tensor) -> Tensor:
    view = t._view
    return view[0] if view is not None and view[0] is not None else t


def storage_offset(self: Tensor) -> int:
    """The element offset of self's first element in its storage: 0 for a tensor that is
    not a view, the distance from its base's first element for a view."""
    base = _base_of(self)
    if base is self:  # (a tensor loaded from a file: its offset in the file's storage)
        return file_offset(self._data)
    return (address(self._data) - address(base._data)) // self._data.itemsize


def _storage_numel(self: Tensor) -> int:
    return _base_of(self)._data.size


def dim_order(self: Tensor, *, ambiguity_check: bool = False) -> tuple[int, ...]:
    """The dims from the outermost to the innermost in memory (by decreasing stride, as
    PyTorch orders them; ties keep the logical order)."""
    if not isinstance(ambiguity_check, bool):
        raise TypeError("The ambiguity_check argument must be a bool or a list of memory formats.")
    sizes, strides = self.shape, self.stride()
    ndim = len(sizes)
    if ambiguity_check and (
        any(a == b for a, b in zip(strides, strides[1:])) or any(s == 1 for s in sizes)
    ):
        raise RuntimeError(
            "The tensor does not have unique dim order, or cannot map to exact one of the "
            "given memory formats."
        )
    if ndim <= 1:
        return tuple(range(ndim))
    if self._data.flags.c_contiguous:
        return tuple(range(ndim))

    def at_least(a: int, b: int) -> bool:
        if b == 0:
            return True
        if a == 0:
            return False
        return a >= b or a % b == 0

    def should_swap(a: int, b: int) -> int:
        sa, sb = strides[a], strides[b]
        if sa == 0 or sb == 0:
            return 0
        if sa == sb:
            return 0 if at_least(sizes[b], sizes[a]) else 1
        if at_least(sb, sa):
            return -1
        return 1 if at_least(sa, sb) else 0

    # an insertion sort from the innermost dim out, stopping at a definite order
    perm = list(reversed(range(ndim)))
    for i in range(1, ndim):
        j = i
        for k in reversed(range(i)):
            order = should_swap(perm[k], perm[j])
            if order > 0:
                perm[k], perm[j] = perm[j], perm[k]
                j = k
            elif order < 0:
                break
    return tuple(reversed(perm))


# ----- as_strided, as_strided_scatter --------------------------------------------------------


def _check_storage(self: Tensor, size: tuple, stride: tuple, offset: int) -> None:
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    for s in stride:
        if s < 0:
            raise RuntimeError(
                "as_strided: Negative strides are not supported at the moment, got strides: "
                + str(list(stride))
            )
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    item = self._data.itemsize
    need = (
        0
        if any(n == 0 for n in size)
        else offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1
    )
    have = _storage_numel(self)
    if need > have:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {item} requiring a storage size of {need * item} are out of bounds "
            f"for storage of size {have * item}"
        )


def _placement(input: Tensor, size: Any, stride: Any, storage_offset: int | None) -> dict:  # noqa: A002
    """as_strided's parameters for input, checked against its storage: the size, the strides
    and the offset from input's first element (input's own storage offset by default), and
    input's own strides."""
    size = tuple(int(n) for n in shape_args((size,)))
    stride = tuple(int(s) for s in shape_args((stride,)))
    own = globals()["storage_offset"](input)
    offset = own if storage_offset is None else int(storage_offset)
    _check_storage(input, size, stride, offset)
    return {"size": size, "stride": stride, "offset": offset - own, "x_strides": input.stride()}


def as_strided(
    input: Tensor,  # noqa: A002
    size: Any,
    stride: Any,
    storage_offset: int | None = None,
) -> Tensor:
    """A view of input's storage with the given size, strides (in elements) and storage
    offset (input's own by default)."""
    require_tensor("as_strided", input, 1, "input")
    return shapes.as_strided(input, **_placement(input, size, stride, storage_offset))


def as_strided_copy(
    input: Tensor,  # noqa: A002
    size: Any,
    stride: Any,
    storage_offset: int | None = None,
) -> Tensor:
    """``as_strided(input, size, stride, storage_offset)``, copied into a new row-major
    tensor."""
    require_tensor("as_strided_copy", input, 1, "input")
    return aten_forms.as_strided_copy(input, **_placement(input, size, stride, storage_offset))


def as_strided_inplace(
    self: Tensor, size: Any, stride: Any, storage_offset: int | None = None
) -> Tensor:
    """In place as_strided: self becomes the view of its storage (bumps the version)."""
    require_tensor("as_strided_", self, 1, "input")
    check_inplace(self)
    placed = _placement(self, size, stride, storage_offset)
    return inplace_view(self, shapes.as_strided(self, **placed, variant=1))


def empty_strided(
    size: Any,
    stride: Any,
    *,
    dtype: DType | None = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """An uninitialised tensor (zeros in chainrule) with the given size and strides (in
    elements), over a storage of the elements they reach."""
    size = tuple(int(n) for n in shape_args((size,)))
    stride = tuple(int(s) for s in shape_args((stride,)))
    if len(size) != len(stride):
        raise RuntimeError(
            f"dimensionality of sizes ({len(size)}) must match dimensionality of strides "
            f"({len(stride)})"
        )
    for n in size:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {list(size)}")
    if any(s < 0 for s in stride):
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(size)} and "
            f"strides={list(stride)}"
        )
    need = 0 if 0 in size else 1 + sum((n - 1) * s for n, s in zip(size, stride))
    flat = _creation.empty(need, dtype=dtype, device=device, requires_grad=requires_grad)
    item = flat._data.itemsize
    arr = strided_view(flat._data, size, tuple(s * item for s in stride), 0)
    return _make(arr, flat._dtype, flat._requires_grad)


def as_strided_scatter(
    input: Tensor,  # noqa: A002
    src: Tensor,
    size: Any,
    stride: Any,
    storage_offset: int | None = None,
) -> Tensor:
    """A copy of input with src written where ``as_strided(size, stride, storage_offset)``
    of it looks (gradients: input's where src did not land, src's from there)."""
    require_tensor("as_strided_scatter", input, 1, "input")
    require_tensor("as_strided_scatter", src, 2, "src")
    out = input.clone()
    view = as_strided(out, size, stride, 0 if storage_offset is None else storage_offset)
    if tuple(view.shape) != tuple(src.shape):
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = "
            f"{list(src.shape)}, slice size = {list(view.shape)}"
        )
    view.copy_(src)
    return out


# ----- view(dtype) -------------------------------------------------------------------------


def view_dtype(self: Tensor, dtype: DType) -> Tensor:
    """self's bytes read as ``dtype``: the same shape for the same element size, else the
    last dim scaled by the ratio of the sizes (PyTorch's checks and errors). The result
    never requires grad."""
    old, new = self._data.itemsize, xp.dtype(dtype.np).itemsize
    what = f"to view {_dtypes.scalar_name(self.dtype)} as {_dtypes.scalar_name(dtype)} (different element sizes)"
    if old != new:
        if self.dim() == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        if old > new:
            if self.stride(-1) != 1:
                raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {self.stride(-1)}")
        else:
            ratio = new // old
            if self.shape[-1] % ratio:
                raise RuntimeError(
                    f"self.size(-1) must be divisible by {ratio} {what}, but got {self.shape[-1]}"
                )
            if self.stride(-1) != 1:
                raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {self.stride(-1)}")
            offset = storage_offset(self)
            if offset % ratio:
                raise RuntimeError(
                    f"self.storage_offset() must be divisible by {ratio} {what}, but got {offset}"
                )
            for d in range(self.dim() - 1):
                if self.stride(d) % ratio:
                    raise RuntimeError(
                        f"self.stride({d}) must be divisible by {ratio} {what}, but got "
                        f"{self.stride(d)}"
                    )
    return shapes.view_dtype(self, dtype=xp.dtype(dtype.np))


# ----- resize_, resize_as_ ------------------------------------------------------------------


def resize_(self: Tensor, *sizes: Any, memory_format: Any = None) -> Tensor:
    """self reshaped in place to ``sizes``, keeping its first elements (in memory order);
    new elements are uninitialised. Refused on a tensor that requires grad."""
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    shape = tuple(int(n) for n in shape_args(sizes))
    if any(n < 0 for n in shape):
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {min(shape)}: {list(shape)}"
        )
    n = math.prod(shape)
    base = _base_of(self)
    offset = storage_offset(self)
    storage = base._data.reshape(-1) if base._data.flags.c_contiguous else None
    if storage is not None and storage.dtype != self._data.dtype:  # (self: base's bytes
        usable = storage.nbytes - storage.nbytes % self._data.itemsize  # as another dtype)
        storage = storage.view(xp.uint8)[:usable].view(self._data.dtype)
    if storage is not None and offset + n <= storage.size:
        # the storage is large enough: self now reads it from its offset, contiguously
        self._data = storage[offset : offset + n].reshape(shape)
    else:
        old = storage[offset:] if storage is not None else self._data.reshape(-1)
        with on_device_of(old):  # the new storage where the old one is
            fresh = xp.zeros(n, dtype=self._data.dtype)  # the new elements: uninitialised (0)
        keep = min(n, old.size)
        fresh[:keep] = old[:keep]
        self._data = fresh.reshape(shape)
    return self


def resize_as_(self: Tensor, the_template: Tensor, *, memory_format: Any = None) -> Tensor:
    """``resize_`` to the_template's shape."""
    return resize_(self, tuple(the_template.shape))


def resize(self: Tensor, *sizes: Any) -> Tensor:
    """The deprecated ``Tensor.resize`` (autograd's): self viewed as ``sizes``, its number of
    elements unchanged (a view, with PyTorch's warning)."""
    import warnings

    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    return _autograd_resize(self, tuple(int(n) for n in shape_args(sizes)))


def resize_as(self: Tensor, tensor: Tensor) -> Tensor:
    """The deprecated ``Tensor.resize_as``: ``resize`` to tensor's shape."""
    import warnings

    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    return _autograd_resize(self, tuple(tensor.shape))


def _autograd_resize(self: Tensor, shape: tuple) -> Tensor:
    n = math.prod(shape)
    if n != self.numel():
        raise RuntimeError(
            f"requested resize to {'x'.join(str(d) for d in shape)} ({n} elements in total), "
            f"but the given tensor has a size of {'x'.join(str(d) for d in self.shape)} "
            f"({self.numel()} elements). autograd's resize can only change the shape of a "
            "given tensor, while preserving the number of elements. "
        )
    return self.view(shape) if self.is_contiguous() else self.reshape(shape)


def set_(
    self: Tensor, source: Any = None, storage_offset: int = 0, size: Any = None,
    stride: Any = None,
) -> Tensor:  # fmt: skip
    """self made a view of ``source``'s memory: a tensor's (same offset, size and strides),
    or a storage's from ``storage_offset`` with ``size`` and ``stride`` (elements); with no
    source, empty. Refused on a leaf that requires grad (an in-place op)."""
    if self._requires_grad and self._grad_fn is None:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )
    if source is None:
        self._data = xp.zeros((0,), dtype=self._data.dtype)
    elif isinstance(source, Tensor):
        if source._dtype is not self._dtype:
            raise RuntimeError(
                f"Could not set tensor of type {_C_NAMES.get(source._dtype.name, source._dtype)}"
                f" to a tensor of type {_C_NAMES.get(self._dtype.name, self._dtype)}"
            )
        self._data = source._data
    else:
        flat = _storage_elements(source, self._data.dtype)
        shape = tuple(int(n) for n in (size if size is not None else (flat.size,)))
        if stride is None:
            stride = [1] * len(shape)
            for d in range(len(shape) - 2, -1, -1):
                stride[d] = stride[d + 1] * max(shape[d + 1], 1)
        step = flat.itemsize
        self._data = xp.lib.stride_tricks.as_strided(
            flat[int(storage_offset) :], shape, tuple(int(k) * step for k in stride)
        )
    self._bump()
    return self


# dtypes as PyTorch's C++ messages name them
_C_NAMES = {
    "float32": "float", "float64": "double", "float16": "c10::Half",
    "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int", "int16": "short int",
    "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
    "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
}  # fmt: skip


def _storage_elements(storage: Any, dtype: Any) -> Any:
    """A storage object's memory as one dimension of ``dtype`` (chainrule/storage.py)."""
    from ...storage import TypedStorage, UntypedStorage

    if isinstance(storage, UntypedStorage):
        return storage._bytes().view(dtype)
    if isinstance(storage, TypedStorage):
        return storage._elements()
    raise TypeError(f"set_(): expected a Tensor or a storage, got {type(storage).__name__}")


def record_stream(self: Tensor, stream: Any) -> None:
    """CUDA streams: PyTorch's error for anything but a stream (chainrule has none)."""
    raise RuntimeError("unknown parameter type")


# ----- frexp, gcd, lcm, put -----------------------------------------------------------------


def frexp(input: Tensor, *, out: Any = None) -> Any:  # noqa: A002
    """(mantissa, exponent) with input = mantissa · 2^exponent, 0.5 <= |mantissa| < 1;
    the exponent is int32 (no gradient), the mantissa's gradient is 2^-exponent."""
    require_tensor("frexp", input, 1, "input")
    mantissa = unary.frexp(input)
    exponent = _make(unary.frexp_exponent(input._data), _dtypes.int32)
    return _Frexp(mantissa, exponent)


def gcd(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """The greatest common divisor of |input| and |other|, elementwise (integers only)."""
    require_tensor("gcd", input, 1, "input")
    require_tensor("gcd", other, 2, "other")
    return arithmetic.gcd(input, other)


def lcm(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """The least common multiple of |input| and |other|, elementwise (integers only)."""
    require_tensor("lcm", input, 1, "input")
    require_tensor("lcm", other, 2, "other")
    return arithmetic.lcm(input, other)


def put(
    input: Tensor,  # noqa: A002
    index: Tensor,
    source: Tensor,
    accumulate: bool = False,
) -> Tensor:
    """A copy of input with the elements at ``index`` (into input flattened; negative
    indices count from the end) set to source's, or increased by them (accumulate)."""
    if index.dtype is not _dtypes.int64:
        raise RuntimeError(
            f"put_(): Expected a long tensor for index, but got {_dtypes.scalar_name(index.dtype)}"
        )
    if input.dtype is not source.dtype:
        raise RuntimeError(
            "put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{_dtypes.scalar_name(input.dtype)} and source.dtype = "
            f"{_dtypes.scalar_name(source.dtype)}"
        )
    if source.numel() != index.numel():
        raise IndexError(
            "put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source.numel()}, index.numel() = {index.numel()}"
        )
    n = input.numel()
    idx = index._data
    if n == 0 and idx.size:
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    bad = (idx >= n) | (idx < -n)
    if bad.any():
        raise IndexError(
            f"out of range: tried to access index {int(idx[bad].reshape(-1)[0])} on a tensor "
            f"of {n} elements."
        )
    wrapped = _make(xp.where(idx < 0, idx + n, idx), _dtypes.int64)
    return indexing.put(input, wrapped, source, accumulate=bool(accumulate))


# ----- index_reduce ----------------------------------------------------------------------------

_INDEX_REDUCES = ("prod", "mean", "amax", "amin")


def index_reduce(
    input: Tensor,  # noqa: A002
    dim: int,
    index: Tensor,
    source: Tensor,
    reduce: str,
    *,
    include_self: bool = True,
    out: Any = None,
) -> Tensor:
    """A copy of input with source's slices reduced into input's slices at ``index`` along
    dim: ``reduce`` is prod, mean, amax or amin; input's own values take part unless
    ``include_self`` is False."""
    if reduce not in _INDEX_REDUCES:
        raise RuntimeError(
            "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
            f"{reduce}."
        )
    ndim = max(input.dim(), 1)
    if not -ndim <= dim < ndim:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but "
            f"got {dim})"
        )
    d = dim % ndim
    if index.dim() > 1:
        raise IndexError(
            "index_reduce_(): Index is supposed to be a vector, but got dim: "
            f"{index.dim()} with type: {_dtypes.scalar_name(index.dtype)} and size: "
            f"{list(index.shape)}"
        )
    if index.dtype not in (_dtypes.int64, _dtypes.int32):
        raise RuntimeError("index_reduce_(): Expected dtype int32/int64 for index")
    source_size = source.shape[d] if source.dim() else 1
    if index.numel() != source_size:
        raise RuntimeError(
            f"index_reduce_(): Number of indices ({index.numel()}) should be equal to "
            f"source.size(dim): ({source_size}), for dim: {dim}"
        )
    if input.dtype is not source.dtype:
        raise RuntimeError(
            f"index_reduce_(): self ({_dtypes.scalar_name(input.dtype)}) and source "
            f"({_dtypes.scalar_name(source.dtype)}) must have the same scalar type"
        )
    size = input.shape[d] if input.dim() else 1
    idx = index._data.reshape(-1)
    if not include_self and input.numel():  # (PyTorch first fills the places, as index_fill)
        bad = idx[(idx < -size) | (idx >= size)]
        if bad.size:
            raise IndexError(
                f"index {int(bad[0])} is out of bounds for dimension {d} with size {size}"
            )
    if idx.size and (idx.min() < 0 or idx.max() >= size):
        raise IndexError("index out of range in self")
    return gather_scatter.index_reduce(
        input, index.long(), source, dim=d, reduce=reduce, include_self=bool(include_self)
    )
