"""Sparse tensors: the tensor type, ``torch.sparse_coo_tensor``, ``Tensor.to_sparse``,
sparse Parameters, what a sparse tensor says about itself (sizes, printing, PyTorch's
errors) and its dispatch (the ops are in ``_ops.py``, the CSR and CSC layouts' forms in
``_compressed.py``).

A sparse tensor is a Tensor (a subclass, made only here) whose array is a ``COO`` and which
keeps its values as a tensor (``_vals``), graph and all. Every op on it is written with
dense ops on those values and the fixed indices: ``to_dense`` adds the values into zeros
(one op, ``sparse_to_dense``), a unary op that maps 0 to 0 is the op on the values, a
sparse-dense product is ``sparse_dense_mm`` (both in ops/sparse_products.py). So
gradients (of any order) need no rule of their own: they reach the values, and a sparse
leaf's ``.grad`` is the values' gradient at the leaf's indices. The class's
``__torch_function__`` routes each public function to the sparse form and raises
PyTorch's NotImplementedError for the others. The module is imported on the first sparse
tensor: defining a Tensor subclass turns on the ``__torch_function__`` dispatch
(chainrule/overrides.py), which programs without sparse tensors do not pay for.

Where chainrule differs from PyTorch: the gradient of a sparse leaf is always sparse with
the leaf's indices (PyTorch's ``torch.mm`` gives a dense one, of which this is the part at
the indices); ``grad_fn`` names are the dense ops' but for ``to_dense``, the constructors
and the sparse-dense product (ops/sparse_products.py), which show PyTorch's; sums of
sparse tensors are coalesced (equal as dense tensors to PyTorch's, which merges repeated
indices but keeps the result marked uncoalesced). docs/sparse.md has the whole list.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

import chainrule as cr

from .. import _dtypes, _printing, overrides
from .._backend import xp
from .._tensor import Size, Tensor, _make, _new, check_device
from ..ops import sparse_products
from ._coo import COO, linear_index, not_on_sparse

ndarray = xp.ndarray
_INVARIANTS_WARNED = [False]
CHECK_INVARIANTS = [False]  # torch.sparse.check_sparse_tensor_invariants


class SparseTensor(Tensor):
    """A tensor in the ``torch.sparse_coo`` layout (see the module's docstring)."""

    __slots__ = ("_vals", "_layout")

    # ----- what a sparse tensor is --------------------------------------------------

    @property
    def layout(self) -> Any:
        return _LAYOUTS[self._layout]

    @property
    def is_sparse(self) -> bool:
        return self._layout == "coo"

    @property
    def is_sparse_csr(self) -> bool:
        return self._layout == "csr"

    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    @property
    def dtype(self) -> Any:
        return self._dtype

    @property
    def device(self) -> Any:
        return cr.device("cpu")

    @property
    def is_cuda(self) -> bool:
        return False

    @property
    def is_meta(self) -> bool:
        return False

    @property
    def ndim(self) -> int:
        return len(self._data.shape)

    @property
    def data(self) -> SparseTensor:
        return self.detach()

    @property
    def T(self) -> SparseTensor:  # noqa: N802 - PyTorch's name
        return _ops.t(self)

    @property
    def mT(self) -> SparseTensor:  # noqa: N802 - PyTorch's name
        return _ops.transpose(self, -2, -1)

    # ----- autograd: the values' -------------------------------------------------

    @property
    def requires_grad(self) -> bool:
        return self._vals.requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self._vals.requires_grad = value

    @property
    def grad_fn(self) -> Any:
        return self._vals.grad_fn

    @property
    def is_leaf(self) -> bool:
        return self._vals.is_leaf

    @property
    def grad(self) -> SparseTensor | None:
        g = self._vals.grad
        return None if g is None else as_sparse_grad(self, g)

    def _sparse_grad(self, g: Tensor) -> SparseTensor:
        """The gradient ``g`` of the values as this tensor's sparse gradient."""
        if self._layout != "coo":
            return _sparse(self._data.indices, g, self._data.shape, True, self._layout)
        if self._data.coalesced:  # (marked uncoalesced, as PyTorch stores it)
            n = self._data.indices.shape[1]
            return _sparse(self._data.indices, g, self._data.shape, n <= 1)
        # repeated indices' values all get the gradient at their element: once per element
        keys = linear_index(self._data.indices, self._data.shape)
        _, first = xp.unique(keys, return_index=True)
        values = g[_make(first.astype(xp.int64), cr.int64)]
        return _sparse(self._data.indices[:, first], values, self._data.shape, first.size <= 1)

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is None:
            self._vals.grad = None
            return
        if not isinstance(value, SparseTensor) or not _same_indices(value, self):
            raise RuntimeError(
                "chainrule: a sparse tensor's .grad can only be set to None or a sparse "
                "tensor with its indices"
            )
        self._vals.grad = value._vals.detach()

    @grad.deleter
    def grad(self) -> None:
        self._vals.grad = None

    # ----- dispatch --------------------------------------------------------------

    def __getattr__(self, name: str) -> Any:
        """The sparse-only methods (``coalesce``, ``indices``, ``_nnz`` ...), which dense
        tensors lack; the others go through ``__torch_function__``."""
        handler = HANDLERS.get(name)
        if handler is None:
            return Tensor.__getattr__(self, name)
        return functools.partial(handler, self)

    @classmethod
    def __torch_function__(
        cls, func: Callable, types: Any, args: tuple = (), kwargs: dict | None = None
    ) -> Any:
        name = getattr(func, "__name__", "")
        if name == "__get__":  # a Tensor property this class does not define
            name = func.__self__.fget.__name__
        handler = HANDLERS.get(name)
        if handler is None:
            if name in _ops.ZERO_PRESERVING:
                return _unary_method(name)(*args, **(kwargs or {}))
            for a in args:
                if isinstance(a, SparseTensor) and a._layout != "coo":
                    layout = _compressed.LAYOUT_NAMES[a._layout]
                    raise RuntimeError(f"unsupported tensor layout: {layout}")
            raise not_on_sparse(name)
        return handler(*args, **(kwargs or {}))


def as_sparse_grad(t: SparseTensor, g: Tensor) -> SparseTensor:
    """A sparse tensor's gradient from its values' gradient ``g``, as PyTorch gives it: at
    its indices (each once), marked uncoalesced. ``autograd.grad`` with a sparse input
    would capture the gradient of ``t._vals`` and return this (autograd/__init__.py)."""
    return t._sparse_grad(g)


def _sparse(
    indices: ndarray,
    values: Tensor,
    shape: tuple,
    coalesced: bool,
    layout: str = "coo",
    cls: type | None = None,
) -> SparseTensor:
    """A sparse tensor of ``values`` (a tensor, kept with its graph) at ``indices``; a
    ``layout`` of "csr" or "csc" keeps the elements in that order (_compressed.py)."""
    if not overrides._state.classes:  # (dispatch was reset since the class was defined)
        overrides._class_defined(SparseTensor)
    t = _new(cls or SparseTensor)
    t._data = COO(indices, values._data, shape, coalesced)
    t._dtype = values._dtype
    t._requires_grad = False
    t._grad_fn = None
    t._output_nr = 0
    t._grad = None
    t._vc = None
    t._acc = None
    t._retains_grad = False
    t._hooks = None
    t._post_hooks = None
    t._view = None
    t._vals = values
    t._layout = layout
    return t


def as_parameter(data: SparseTensor, requires_grad: bool) -> SparseTensor:
    """``nn.Parameter(sparse)``: a sparse tensor that is a Parameter, its values a leaf
    sharing data's memory (requiring grad unless told otherwise)."""
    if requires_grad and data.dtype._category < 2:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    values = data._vals.detach().requires_grad_(bool(requires_grad))
    d = data._data
    return _sparse(d.indices, values, d.shape, d.coalesced, data._layout, _parameter_class())


def _parameter_class() -> type:
    """SparseParameter, made on first use (it needs nn.Parameter)."""
    if not _PARAMETER:
        from ..nn.parameter import Parameter

        class SparseParameter(SparseTensor, Parameter):
            """A Parameter in a sparse layout (``nn.Parameter(sparse_tensor)``)."""

            def __repr__(self, *, tensor_contents: Any = None) -> str:
                return "Parameter containing:\n" + _repr(self)

            __str__ = __repr__

            def __deepcopy__(self, memo: dict) -> Any:
                if id(self) not in memo:
                    memo[id(self)] = as_parameter(_deepcopy(self, memo), self.requires_grad)
                return memo[id(self)]

            def __reduce_ex__(self, protocol: Any) -> tuple:
                return (as_parameter, (_deepcopy(self, {}), self.requires_grad))

        SparseParameter.__module__ = __name__
        _PARAMETER.append(SparseParameter)
    return _PARAMETER[0]


_PARAMETER: list = []


def from_coo(coo: COO, dtype: Any) -> SparseTensor:
    """The sparse tensor of a COO array (the engine's sparse gradients)."""
    return _sparse(coo.indices, _make(coo.values, dtype), coo.shape, coo.coalesced)


def _same_indices(a: SparseTensor, b: SparseTensor) -> bool:
    ia, ib = a._data.indices, b._data.indices
    return ia is ib or (ia.shape == ib.shape and bool((ia == ib).all()))


def _index_tuple(t: SparseTensor) -> tuple:
    """The indices as a tuple of int64 tensors, one per sparse dim (for index_put)."""
    return tuple(_make(row, cr.int64) for row in t._data.indices)


def sparse_dim(t: SparseTensor) -> int:
    return t._data.indices.shape[0]


def dense_dim(t: SparseTensor) -> int:
    return len(t._data.shape) - sparse_dim(t)


def _with_values(t: SparseTensor, values: Tensor, coalesced: bool | None = None) -> SparseTensor:
    return _sparse(
        t._data.indices,
        values,
        t._data.shape,
        t._data.coalesced if coalesced is None else coalesced,
        t._layout,
    )


# ----- making sparse tensors ----------------------------------------------------------


def _warn_invariants(check_invariants: bool | None) -> None:
    if check_invariants is None and not CHECK_INVARIANTS[0] and not _INVARIANTS_WARNED[0]:
        _INVARIANTS_WARNED[0] = True
        warnings.warn(
            "Sparse invariant checks are implicitly disabled. Memory errors (e.g. SEGFAULT) "
            "will occur when operating on a sparse tensor which violates the invariants, but "
            "checks incur performance overhead. To silence this warning, explicitly opt in "
            "or out. See `torch.sparse.check_sparse_tensor_invariants.__doc__` for guidance.",
            UserWarning,
            stacklevel=3,
        )


def sparse_coo_tensor(
    indices: Any = None,
    values: Any = None,
    size: Any = None,
    *,
    dtype: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
    check_invariants: bool | None = None,
    is_coalesced: bool | None = None,
) -> SparseTensor:
    """``torch.sparse_coo_tensor``: the tensor whose elements at ``indices`` (one column per
    element) are ``values``; d(to_dense)/d(values) picks each value's position."""
    check_device(device)
    if values is None:  # (sparse_coo_tensor(size): an empty tensor of that size)
        shape = tuple(int(s) for s in (size if indices is None else indices))
        empty = cr.zeros((0,), dtype=dtype)
        return _sparse(xp.zeros((len(shape), 0), xp.int64), empty, shape, True)
    idx = indices if isinstance(indices, Tensor) else cr.tensor(indices)
    vals = values if isinstance(values, Tensor) else cr.tensor(values)
    if dtype is not None and vals.dtype is not dtype:
        vals = vals.to(dtype)
    index = xp.asarray(idx.detach()._data, dtype=xp.int64)
    if index.ndim == 1:
        index = index.reshape(-1, 1)
    if index.ndim != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(index.shape)}")
    nnz, n_sparse = index.shape[1], index.shape[0]
    if size is not None and len(size) != n_sparse + max(vals.ndim, 1) - 1:
        raise RuntimeError(
            f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = "
            f"{len(size)}, sparse_dim = {n_sparse}, dense_dim = {max(vals.ndim, 1) - 1}"
        )
    if vals.ndim == 0 and nnz == 1:
        vals = vals.reshape(1)
    if vals.ndim == 0 or vals.shape[0] != nnz:
        got = vals.shape[0] if vals.ndim else 1
        raise RuntimeError(
            "indices and values must have same nnz, but got nnz from indices: "
            f"{nnz}, nnz from values: {got}"
        )
    checks = check_invariants or CHECK_INVARIANTS[0] and check_invariants is None
    if size is None:
        _check_negative(index)
        top = index.max(axis=1) + 1 if nnz else xp.zeros(n_sparse, dtype=xp.int64)
        shape = (*(int(s) for s in top), *vals.shape[1:])
    else:
        shape = tuple(int(s) for s in size)
        if checks:
            _check_bounds(index, shape)
    if checks and is_coalesced and nnz > 1:
        keys = linear_index(index, shape)
        if bool((keys[1:] <= keys[:-1]).any()):
            raise RuntimeError(
                "cannot set is_coalesced to true if indices correspond to uncoalesced COO tensor"
            )
    _warn_invariants(check_invariants)
    if requires_grad:
        if vals.grad_fn is not None:
            raise RuntimeError(
                "chainrule: requires_grad=True takes values that are not part of a graph"
            )
        vals = vals.detach().requires_grad_()
    elif vals.requires_grad:
        vals = sparse_products.sparse_values(vals)  # (not the values' leaf: PyTorch's node)
    coalesced = bool(is_coalesced) if is_coalesced is not None else nnz <= 1
    return _sparse(index, vals, shape, coalesced)


def _check_negative(index: ndarray) -> None:
    for d in range(index.shape[0]):
        if index[d].size and index[d].min() < 0:
            raise RuntimeError(f"found negative index {int(index[d].min())} for dim {d}")


def _check_bounds(index: ndarray, shape: tuple) -> None:
    _check_negative(index)
    for d in range(index.shape[0]):
        row = index[d]
        if row.size and row.max() >= shape[d]:
            bad = int(row.max())
            raise RuntimeError(
                f"size is inconsistent with indices: for dim {d}, size is {shape[d]} but "
                f"found index {bad}"
            )


def to_sparse(
    self: Tensor, sparse_dim: int | None = None, *, layout: Any = None, **_: Any
) -> Tensor:
    """``Tensor.to_sparse``: the nonzero elements (rows of the leading ``sparse_dim`` dims
    with any nonzero) and their positions, coalesced; the gradient reaches them only."""
    if layout is not None and layout is not cr.sparse_coo:
        kind = {"torch.sparse_csr": "csr", "torch.sparse_csc": "csc"}.get(repr(layout))
        if kind is None:
            raise not_on_sparse(f"to_sparse ({layout})")
        return _compressed._to(self, kind)
    if isinstance(self, SparseTensor):
        if sparse_dim is not None and int(sparse_dim) != self._data.indices.shape[0]:
            raise RuntimeError(
                "to_sparse: conversion from Sparse to Sparse with sparse_dim argument "
                "!=self.sparse_dim() is not supported"
            )
        return self
    n = self.ndim if sparse_dim is None else int(sparse_dim)
    if not 0 <= n <= self.ndim:
        raise RuntimeError(
            f"dense_to_sparse: sparse_dim argument must be in [0,{self.ndim}] range, but {n} "
            "is given"
        )
    if n == 0 and self.ndim:
        raise RuntimeError("dense_to_sparse: sparse_dim argument must be in >0 when self.dim()>0")
    data = self.detach()._data
    mask = data != 0
    if n < self.ndim:
        mask = mask.reshape(*data.shape[:n], -1).any(axis=-1)
    if n:
        index = xp.stack(xp.nonzero(mask)).astype(xp.int64)
        values = self[tuple(_make(row, cr.int64) for row in index)]
    else:  # (a 0-d tensor: one element, or none where it is 0)
        index = xp.zeros((0, int(bool(mask))), xp.int64)
        values = self.reshape(1)[: index.shape[1]]
    return _sparse(index, values, self.shape, True)


# ----- what a sparse tensor says about itself -------------------------------------------


def _inner(array: ndarray, column: int) -> str:
    """An inner ``tensor(...)`` of the sparse repr: no dtype, the size of an empty one."""
    if array.size == 0:
        return f"tensor([], size={tuple(array.shape)})"
    return "tensor(" + _printing._values_text(array, column) + ")"


def _suffixes(self: SparseTensor) -> list[str]:
    """size, nnz, dtype (unless the default's, int64 or bool), layout, then grad_fn or
    requires_grad, as PyTorch's sparse reprs list them."""
    items = [f"size={tuple(self._data.shape)}", f"nnz={self._data.indices.shape[1]}"]
    default = _dtypes.get_default_dtype()
    default_complex = cr.complex128 if default is cr.float64 else cr.complex64
    if self.dtype not in (default, default_complex, cr.int64, cr.bool):
        items.append(f"dtype={self.dtype!r}")
    items.append(f"layout={self.layout!r}")
    fn = self.grad_fn
    if fn is not None:
        items.append(f"grad_fn=<{type(fn).__name__}>")
    elif self.requires_grad:
        items.append("requires_grad=True")
    return items


def _repr(self: SparseTensor, *, tensor_contents: Any = None) -> str:
    """PyTorch's layout: the indices, the values, then size, nnz, dtype, layout and grad."""
    if self._layout != "coo":
        return _compressed.compressed_repr(self)
    pad = " " * len("tensor(")
    head = "tensor(indices=" + _inner(self._data.indices, len("tensor(indices=tensor(")) + ",\n"
    head += pad + "values=" + _inner(self._data.values, len(pad + "values=tensor(")) + ",\n"
    items = _suffixes(self)
    grads = [x for x in items if x.startswith(("grad_fn", "requires_grad"))]
    items = items[: len(items) - len(grads)]
    return head + _printing._join_suffixes(pad + ", ".join(items), grads, len(pad))


def _storage_error(*_: Any, **__: Any) -> Any:
    raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")


def _numpy_error(*_: Any, **__: Any) -> Any:
    raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")


def _item(self: SparseTensor) -> Any:
    if self._data.size != 1:
        raise RuntimeError(
            f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
        )
    return _ops.to_dense(self).item()


def _size(self: SparseTensor, dim: int | None = None) -> Any:
    return self.shape if dim is None else self._data.shape[dim]


def _deepcopy(self: SparseTensor, memo: dict) -> SparseTensor:
    vals = self._vals.detach().clone().requires_grad_(self._vals.requires_grad)
    data = self._data
    return _sparse(data.indices.copy(), vals, data.shape, data.coalesced, self._layout)


def _reduce_ex(self: SparseTensor, protocol: Any) -> tuple:
    """Pickled as its indices, values (a tensor: pickled as one), size, coalesced flag and
    layout (DataLoader workers send batches so; torch.save has its own format)."""
    data = self._data
    values = self._vals.detach().requires_grad_(self._vals.is_leaf and self.requires_grad)
    return (rebuild, (data.indices, values, data.shape, data.coalesced, self._layout))


def rebuild(
    indices: ndarray, values: Tensor, shape: tuple, coalesced: bool, layout: str
) -> SparseTensor:
    """A pickled sparse tensor (``_reduce_ex``)."""
    return _sparse(indices, values, tuple(shape), bool(coalesced), layout)


def _register_hook(self: SparseTensor, hook: Callable) -> Any:
    """A gradient hook: it sees the gradient as a sparse tensor at this one's indices (and
    may return one in its place); it runs as a hook of the values."""
    data, layout = self._data, self._layout

    def on_values(g: Tensor) -> Tensor | None:
        out = hook(_sparse(data.indices, g, data.shape, data.coalesced, layout))
        if out is None:
            return None
        return out._vals if isinstance(out, SparseTensor) else out[_index_tuple(self)]

    return self._vals.register_hook(on_values)


def _eq(self: SparseTensor, other: Any) -> Any:
    raise not_on_sparse("eq.Tensor")


def _reshape_error(*_: Any, **__: Any) -> Any:
    raise RuntimeError("reshape is not implemented for sparse tensors")


def _is_coalesced(self: SparseTensor) -> bool:
    return self._data.coalesced


def _coalesced_(self: SparseTensor, coalesced: bool) -> SparseTensor:
    self._data.coalesced = bool(coalesced)
    return self


def _nnz(self: SparseTensor) -> int:
    return self._data.indices.shape[1]


def indices(self: SparseTensor) -> Tensor:
    """The indices (int64, sparse_dim x nnz) of a coalesced tensor."""
    _need_coalesced(self, "indices")
    return _make(self._data.indices, cr.int64)


def values(self: SparseTensor) -> Tensor:
    """The values of a coalesced (or compressed) tensor, in its graph."""
    if self._layout == "coo":
        _need_coalesced(self, "values")
    return self._vals


def _need_coalesced(self: SparseTensor, what: str) -> None:
    if not self._data.coalesced:
        raise RuntimeError(
            f"Cannot get {what} on an uncoalesced tensor, please call .coalesce() first"
        )


def _indices(self: SparseTensor) -> Tensor:
    return _make(self._data.indices, cr.int64)


def _values(self: SparseTensor) -> Tensor:
    return self._vals.detach()


def _format(self: SparseTensor, spec: str) -> str:
    return _repr(self) if not spec else format(_item(self), spec)


def _dim(self: SparseTensor) -> int:
    return len(self._data.shape)


def _numel(self: SparseTensor) -> int:
    return self._data.size


def _len(self: SparseTensor) -> int:
    return self._data.shape[0]


def _stride(self: SparseTensor, dim: int | None = None) -> Any:
    return (0,) * len(self._data.shape) if dim is None else 0  # (PyTorch's: no strides)


def _zero(self: SparseTensor, *_: Any, **__: Any) -> int:
    return 0


def _false(self: SparseTensor, *_: Any, **__: Any) -> bool:
    return False


def _itself(self: SparseTensor, *_: Any, **__: Any) -> SparseTensor:
    return self


def _is_floating_point(self: SparseTensor) -> bool:
    return self.dtype.is_floating_point


def _is_complex(self: SparseTensor) -> bool:
    return self.dtype.is_complex


def _is_signed(self: SparseTensor) -> bool:
    return self._vals.is_signed()


def _element_size(self: SparseTensor) -> int:
    return self._vals.element_size()


def _get_device(self: SparseTensor) -> int:
    return -1


def _is_set_to(self: SparseTensor, other: Tensor) -> bool:
    return self is other


def _version(self: SparseTensor) -> int:
    return self._vals._version


def _retains_grad(self: SparseTensor) -> bool:
    return self._vals.retains_grad


def _retain_grad(self: SparseTensor) -> None:
    self._vals.retain_grad()


def _names(self: SparseTensor) -> tuple:
    return (None,) * len(self._data.shape)


def _itemsize(self: SparseTensor) -> int:
    return self._vals.itemsize


def _no_base(self: SparseTensor) -> None:
    return None


def _mean(self: SparseTensor, *_: Any, **__: Any) -> Any:
    raise not_on_sparse("mean.dim")


def _crow_indices(self: SparseTensor) -> Tensor:
    return _compressed.crow_indices(self)


def _col_indices(self: SparseTensor) -> Tensor:
    return _compressed.col_indices(self)


def _ccol_indices(self: SparseTensor) -> Tensor:
    return _compressed.ccol_indices(self)


def _row_indices(self: SparseTensor) -> Tensor:
    return _compressed.row_indices(self)


def _to_sparse_csr(self: SparseTensor, dense_dim: int | None = None) -> SparseTensor:
    return _compressed.to_sparse_csr(self)


def _to_sparse_csc(self: SparseTensor, dense_dim: int | None = None) -> SparseTensor:
    return _compressed.to_sparse_csc(self)


# what a sparse tensor says about itself, by Tensor method name
METHODS: dict[str, Callable] = {
    "crow_indices": _crow_indices,
    "col_indices": _col_indices,
    "ccol_indices": _ccol_indices,
    "row_indices": _row_indices,
    "to_sparse_csr": _to_sparse_csr,
    "to_sparse_csc": _to_sparse_csc,
    "is_coalesced": _is_coalesced,
    "_coalesced_": _coalesced_,
    "_nnz": _nnz,
    "indices": indices,
    "values": values,
    "_indices": _indices,
    "_values": _values,
    "__repr__": _repr,
    "__str__": _repr,
    "__format__": _format,
    "__deepcopy__": _deepcopy,
    "__reduce_ex__": _reduce_ex,
    "register_hook": _register_hook,
    "size": _size,
    "dim": _dim,
    "ndimension": _dim,
    "numel": _numel,
    "nelement": _numel,
    "__len__": _len,
    "stride": _stride,
    "storage_offset": _zero,
    "is_contiguous": _false,
    "is_floating_point": _is_floating_point,
    "is_complex": _is_complex,
    "is_signed": _is_signed,
    "element_size": _element_size,
    "get_device": _get_device,
    "data_ptr": _storage_error,
    "tolist": _storage_error,
    "untyped_storage": _storage_error,
    "numpy": _numpy_error,
    "__array__": _numpy_error,
    "item": _item,
    "reshape": _reshape_error,
    "view": _reshape_error,
    "is_set_to": _is_set_to,
    "_version": _version,
    "retains_grad": _retains_grad,
    "retain_grad": _retain_grad,
    "is_inference": _false,
    "is_shared": _false,
    "is_pinned": _false,
    "is_neg": _false,
    "is_conj": _false,
    "is_quantized": _false,
    "is_nested": _false,
    "is_mkldnn": _false,
    "is_xpu": _false,
    "is_mps": _false,
    "is_maia": _false,
    "is_ipu": _false,
    "names": _names,
    "itemsize": _itemsize,
    "output_nr": _zero,
    "_base": _no_base,
    "cpu": _itself,
    "__eq__": _eq,
    "eq": _eq,
    "mean": _mean,
}

# the names above that are properties of a tensor (the others are methods)
PROPERTIES = {"itemsize", "names", "output_nr", "_base", "_version", "retains_grad"}


def install(ops: dict[str, Callable], zero_preserving: set[str]) -> None:
    """The ops (``_ops.OPS``) with the methods above as SparseTensor's methods and
    properties (over Tensor's: some of Tensor's methods are not dispatched through
    ``__torch_function__``), and the unary ops that keep zeros."""
    HANDLERS.update(ops)
    for name, handler in list(HANDLERS.items()):
        HANDLERS[name] = handler = _gated(name, handler)
        setattr(SparseTensor, name, property(handler) if name in PROPERTIES else handler)
    for name in zero_preserving:
        if hasattr(Tensor, name):
            setattr(SparseTensor, name, _unary_method(name))
    SparseTensor.__hash__ = Tensor.__hash__


def _unary_method(name: str) -> Callable:
    """The method ``name`` of a unary op that keeps zeros."""

    def method(self: SparseTensor, *args: Any, **kwargs: Any) -> SparseTensor:
        return _ops.unary(name, self, *args, **kwargs)

    method.__name__ = name
    return _gated(name, method)


def _gated(name: str, handler: Callable) -> Callable:
    """``handler``, or for a call with a compressed (CSR, CSC) argument ``_compressed.call``."""

    def run(*args: Any, **kwargs: Any) -> Any:
        for a in args:
            if a.__class__ is SparseTensor and a._layout != "coo":
                return _compressed.call(name, handler, args, kwargs)
        return handler(*args, **kwargs)

    run.__name__ = name
    run.__wrapped__ = handler  # type: ignore[attr-defined]
    return run


def public(name: str) -> Callable:
    """The ``torch.<name>`` function of sparse tensors (chainrule/__init__.py loads it)."""
    if name == "sparse_coo_tensor":
        return sparse_coo_tensor
    if name in ("sparse_csr_tensor", "sparse_csc_tensor", "sparse_compressed_tensor"):
        return getattr(_compressed, name)
    return HANDLERS[name]


# every name dispatched: METHODS and the ops (``install``, called by ``_ops``)
HANDLERS: dict[str, Callable] = dict(METHODS)

_LAYOUTS = {"coo": cr.sparse_coo, "csr": cr.sparse_csr, "csc": cr.sparse_csc}

from . import _compressed, _ops  # noqa: E402  (the ops, which install themselves)
