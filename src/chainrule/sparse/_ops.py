"""The ops on sparse COO tensors, each written with dense ops on the values (which keep
their graph) and the fixed indices, so their gradients of every order come from the dense
ops' own: ``to_dense`` is an ``index_put`` of the values (d/dvalues: a gather), a
sparse-dense product an ``index_add`` of the values times the dense rows, ``coalesce`` an
``index_add`` of repeated indices' values, a unary op that maps 0 to 0 the op on the
values (after coalescing, unless the op is linear). ``OPS`` maps Tensor method and
``torch`` function names to them (chainrule/sparse/_tensor.py dispatches on it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import chainrule as cr

from .. import _dtypes
from .._backend import xp
from .._tensor import Tensor, _make, check_device
from ..ops import sparse_products
from . import _tensor
from ._coo import COO, linear_index, not_on_sparse
from ._tensor import (
    SparseTensor,
    _index_tuple,
    _sparse,
    _with_values,
    dense_dim,
    sparse_dim,
    to_sparse,
)

ndarray = xp.ndarray


def to_dense(self: SparseTensor, dtype: Any = None, *, masked_grad: bool = True) -> Tensor:
    """The dense tensor: zeros with the values added at the indices (one op,
    ops/sparse_products.py; d/dvalues: a gather)."""
    if dtype is not None:
        raise RuntimeError("dtype argument is not supported by sparse_to_dense")
    data = self._data
    if not data.indices.shape[0]:  # (no sparse dim: the values all add into one)
        return self._vals.sum(0)
    return sparse_products.sparse_to_dense(self._vals, indices=data.indices, shape=data.shape)


def coalesce(self: SparseTensor) -> SparseTensor:
    """Sorted, unique indices; repeated indices' values summed (an index_add)."""
    if self._data.coalesced:
        return self
    keys = linear_index(self._data.indices, self._data.shape)
    unique, first, inverse = xp.unique(keys, return_index=True, return_inverse=True)
    dense_shape = self._data.shape[sparse_dim(self) :]
    values = cr.zeros((len(unique), *dense_shape), dtype=self.dtype).index_add(
        0, _make(inverse.reshape(-1).astype(xp.int64), cr.int64), self._vals
    )
    return _sparse(self._data.indices[:, first], values, self._data.shape, True)


def unary(name: str, self: SparseTensor, *args: Any, **kwargs: Any) -> SparseTensor:
    """An elementwise op that maps 0 to 0, on the values (in place for ``name_``)."""
    if name == "square":
        return pow(self, 2)
    if name.rstrip("_") not in LINEAR:  # (f(a) + f(b) is not f(a + b): one per index)
        self = coalesce(self)
    if name.endswith("_"):
        getattr(self._vals, name)(*args, **kwargs)
        self._data.values = self._vals._data
        return self
    return _with_values(self, getattr(cr, name)(self._vals, *args, **kwargs))


LINEAR = {"neg", "negative", "positive", "conj", "deg2rad", "rad2deg"}
ZERO_PRESERVING = {
    f + suffix
    for f in (
        "abs absolute neg negative sqrt sin sinh tan tanh asin asinh atan atanh arcsin "
        "arcsinh arctan arctanh expm1 log1p sign sgn ceil floor round trunc fix frac erf "
        "erfinv deg2rad rad2deg nan_to_num square relu positive conj"
    ).split()
    for suffix in ("", "_")
} | {"isnan", "isinf", "isposinf", "isneginf", "signbit"}


def pow(self: SparseTensor, exponent: Any) -> SparseTensor:  # noqa: A001 - PyTorch's name
    """The values to a positive power (0 stays 0)."""
    if not isinstance(self, SparseTensor) or not _number(exponent) or not exponent > 0:
        raise not_on_sparse("pow.Tensor_Scalar")
    result = cr.result_type(self._vals, exponent)
    if not _dtypes.can_cast(result, self.dtype):
        raise RuntimeError(
            f"result type {_dtypes.scalar_name(result)} can't be cast to the desired output "
            f"type {_dtypes.scalar_name(self.dtype)}"
        )
    self = coalesce(self)
    return _with_values(self, (self._vals**exponent).to(self.dtype))


def new_zeros(self: SparseTensor, *size: Any, dtype: Any = None, **_: Any) -> SparseTensor:
    """An empty sparse tensor of ``size`` (every dim sparse)."""
    shape = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else size
    values = cr.zeros((0,), dtype=dtype or self.dtype)
    return _sparse(xp.zeros((len(shape), 0), dtype=xp.int64), values, tuple(shape), True)


def cat(tensors: Any, dim: int = 0, *, out: Any = None) -> SparseTensor:
    """Sparse tensors joined along a sparse dim: each one's indices moved past the ones
    before it."""
    parts = list(tensors)
    first = parts[0]
    if not all(isinstance(p, SparseTensor) for p in parts):
        raise RuntimeError("cat: expected all tensors to be sparse COO (or all dense)")
    dim %= first.ndim
    if dim >= sparse_dim(first) or any(sparse_dim(p) != sparse_dim(first) for p in parts):
        raise not_on_sparse("cat (a dense dim)")
    indices, offset = [], 0
    for p in parts:
        index = p._data.indices.copy()
        index[dim] += offset
        indices.append(index)
        offset += p._data.shape[dim]
    shape = list(first._data.shape)
    shape[dim] = offset
    values = cr.cat([p._vals for p in parts])
    return _sparse(xp.concatenate(indices, axis=1), values, tuple(shape), False)


def stack(tensors: Any, dim: int = 0, *, out: Any = None) -> SparseTensor:
    return cat([unsqueeze(p, dim) for p in tensors], dim)


def index_select(self: SparseTensor, dim: int, index: Tensor) -> SparseTensor:
    """The slices at ``index`` along ``dim`` (a sparse dim), in its order."""
    dim %= self.ndim
    if dim >= sparse_dim(self):
        values = self._vals.index_select(dim - sparse_dim(self) + 1, index)
        shape = (*self._data.shape[:dim], len(index), *self._data.shape[dim + 1 :])
        return _sparse(self._data.indices, values, shape, self._data.coalesced)
    wanted = xp.asarray(index.detach()._data, dtype=xp.int64).reshape(-1)
    wanted = wanted % self._data.shape[dim]
    hit = self._data.indices[dim][None, :] == wanted[:, None]  # (position, element)
    position, element = xp.nonzero(hit)
    new_index = self._data.indices[:, element].copy()
    new_index[dim] = position
    shape = list(self._data.shape)
    shape[dim] = len(wanted)
    values = self._vals[_make(element.astype(xp.int64), cr.int64)]
    return _sparse(new_index, values, tuple(shape), False)


def narrow_copy(self: SparseTensor, dim: int, start: int, length: int) -> SparseTensor:
    """The elements with index ``start <= i < start + length`` along ``dim``, moved down by
    ``start`` (in their order; a dense dim: the values narrowed)."""
    n = self.ndim
    if not 0 <= dim < n:
        raise RuntimeError(f"Dimension {dim} out of range. Expecting 0 <= dim < {n}.")
    size = self._data.shape[dim]
    if start < 0 or length < 0 or start + length > size:
        raise RuntimeError(
            "Invalid range to narrow. range(start, start+length) must be a subset of "
            f"range(0, {size})."
        )
    shape = (*self._data.shape[:dim], length, *self._data.shape[dim + 1 :])
    ns = sparse_dim(self)
    if dim >= ns:
        values = self._vals.narrow(dim - ns + 1, start, length)
        return _sparse(self._data.indices, values, shape, self._data.coalesced)
    row = self._data.indices[dim]
    keep = xp.nonzero((row >= start) & (row < start + length))[0]
    index = self._data.indices[:, keep].copy()
    index[dim] -= start
    values = self._vals[_make(keep.astype(xp.int64), cr.int64)]
    return _sparse(index, values, shape, self._data.coalesced)


def _number(x: Any) -> bool:
    return not isinstance(x, Tensor) or x.ndim == 0 and not isinstance(x, SparseTensor)


def mul(self: Any, other: Any, *, out: Any = None) -> Any:
    """sparse * number, sparse * dense (the dense values at the indices), sparse * sparse
    (the indices both have)."""
    if not isinstance(self, SparseTensor):
        self, other = other, self
    if _number(other):
        return _with_values(self, self._vals * other)
    if not isinstance(other, SparseTensor):
        if tuple(other.shape) != tuple(self.shape):
            raise RuntimeError("mul: a sparse tensor times a dense one of another shape")
        return _with_values(self, self._vals * other[_index_tuple(self)])
    return _mul_sparse(self, other)


def _mul_sparse(a: SparseTensor, b: SparseTensor) -> SparseTensor:
    """sparse * sparse: two coalesced ones' common elements; else the elements of the
    uncoalesced one (of both: the one with fewer, the second on a tie), zeros kept, each
    times the other's (summed) value at its index, as PyTorch's."""
    if tuple(a.shape) != tuple(b.shape):
        raise RuntimeError(
            f"mul(sparse, sparse): expected 'self' and 'other' to have same size, but "
            f"{list(a.shape)} != {list(b.shape)}"
        )
    if not a._nnz() or not b._nnz():
        dtype = _dtypes.promote_types(a.dtype, b.dtype)
        return _empty_like(a, dtype)
    if a._data.coalesced and b._data.coalesced:
        ka = linear_index(a._data.indices, a._data.shape)
        kb = linear_index(b._data.indices, b._data.shape)
        _, ia, ib = xp.intersect1d(ka, kb, assume_unique=True, return_indices=True)
        va = a._vals[_make(ia.astype(xp.int64), cr.int64)]
        vb = b._vals[_make(ib.astype(xp.int64), cr.int64)]
        return _sparse(a._data.indices[:, ia], va * vb, a._data.shape, True)
    keep_b = not b._data.coalesced and (a._data.coalesced or b._nnz() <= a._nnz())
    src, other = (b, a) if keep_b else (a, b)
    other = coalesce(other)
    ks = linear_index(src._data.indices, src._data.shape)
    ko = linear_index(other._data.indices, other._data.shape)
    at = xp.searchsorted(ko, ks).clip(0, max(ko.size - 1, 0))
    found = ko[at] == ks
    picked = other._vals[_make(at.astype(xp.int64), cr.int64)]
    mask = _make(found.reshape(-1, *[1] * (picked.ndim - 1)), cr.bool)
    picked = cr.where(mask, picked, cr.zeros((), dtype=picked.dtype))
    product = picked * src._vals if keep_b else src._vals * picked
    return _sparse(src._data.indices, product, src._data.shape, False)


def div(self: SparseTensor, other: Any, *, rounding_mode: Any = None) -> SparseTensor:
    if not isinstance(self, SparseTensor) or not _number(other):
        raise not_on_sparse("div.Tensor")
    return _with_values(self, cr.div(self._vals, other, rounding_mode=rounding_mode))


def add(self: Any, other: Any, *, alpha: Any = 1, out: Any = None) -> Any:
    """sparse + sparse (the two element lists merged, ``_merge``), dense + sparse (dense)."""
    if isinstance(self, SparseTensor):
        if not isinstance(other, SparseTensor):
            raise RuntimeError(
                "add(sparse, dense) is not supported. Use add(dense, sparse) instead."
            )
        if tuple(self.shape) != tuple(other.shape):
            raise RuntimeError(
                f"add: expected 'self' and 'other' to have same size, but self has size "
                f"{list(self.shape)} while other has size {list(other.shape)}"
            )
        dtype = _dtypes.promote_types(self.dtype, other.dtype)
        if dtype is cr.bool:
            raise NotImplementedError("\"cadd_sparse\" not implemented for 'Bool'")
        scaled = other._vals if alpha == 1 else other._vals * alpha
        if not other._nnz():
            return _with_values(self, self._vals.to(dtype))
        if not self._nnz():
            return _with_values(other, scaled.to(dtype))
        return _merge(self, other, self._vals.to(dtype), scaled.to(dtype))
    scaled = other._vals if alpha == 1 else other._vals * alpha
    return self.index_put(_index_tuple(other), scaled.to(self.dtype), accumulate=True)


def _merge(a: SparseTensor, b: SparseTensor, va: Tensor, vb: Tensor) -> SparseTensor:
    """The elements of ``a`` and ``b`` merged as two sorted lists are (PyTorch's order for
    any input): the smaller index first, equal ones summed into one element; the result is
    coalesced when both are."""
    ka = linear_index(a._data.indices, a._data.shape)
    kb = linear_index(b._data.indices, b._data.shape)
    if a._data.coalesced and b._data.coalesced:
        keys, where = xp.unique(xp.concatenate([ka, kb]), return_inverse=True)
        where = where.reshape(-1)
        sa, sb = where[: ka.size], where[ka.size :]
        n = keys.size
    else:  # (unsorted lists: the merge's walk, one step per element)
        sa, sb = _merge_walk(ka.tolist(), kb.tolist())
        n = int(max(sa.max(initial=-1), sb.max(initial=-1))) + 1
    index = xp.zeros((a._data.indices.shape[0], n), dtype=xp.int64)
    index[:, sa] = a._data.indices
    index[:, sb] = b._data.indices
    values = cr.zeros((n, *va.shape[1:]), dtype=va.dtype)
    values = values.index_add(0, _make(sa.astype(xp.int64), cr.int64), va)
    values = values.index_add(0, _make(sb.astype(xp.int64), cr.int64), vb)
    coalesced = a._data.coalesced and b._data.coalesced
    return _sparse(index, values, a._data.shape, coalesced)


def _merge_walk(ka: list, kb: list) -> tuple[ndarray, ndarray]:
    """Where each element of two key lists lands when they are merged head to head."""
    sa, sb = [0] * len(ka), [0] * len(kb)
    i = j = r = 0
    while i < len(ka) or j < len(kb):
        take_a = j >= len(kb) or (i < len(ka) and ka[i] <= kb[j])
        take_b = i >= len(ka) or (j < len(kb) and kb[j] <= ka[i])
        if take_a:
            sa[i] = r
            i += 1
        if take_b:
            sb[j] = r
            j += 1
        r += 1
    return xp.asarray(sa, dtype=xp.int64), xp.asarray(sb, dtype=xp.int64)


def sub(self: Any, other: Any, *, alpha: Any = 1, out: Any = None) -> Any:
    if self.dtype is cr.bool and other.dtype is cr.bool:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
            "`^` or `logical_xor()` operator instead."
        )
    return add(self, other, alpha=-alpha)


def add_(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """In place: dense += sparse (at the indices), sparse += sparse."""
    if isinstance(self, SparseTensor):
        if isinstance(other, SparseTensor) and _tensor._same_indices(self, other):
            # the same elements (a parameter and its gradient): the values in place, so a
            # leaf stays the leaf it is (an optimizer's step)
            scaled = other._vals if alpha == 1 else other._vals * alpha
            self._vals.add_(scaled.to(self.dtype))
            return self
        total = add(self, other, alpha=alpha)
        self._data, self._vals, self._dtype = total._data, total._vals, total._dtype
        return self
    scaled = other._vals if alpha == 1 else other._vals * alpha
    return self.index_put_(_index_tuple(other), scaled.to(self.dtype), accumulate=True)


def sub_(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    return add_(self, other, alpha=-alpha)


def mul_(self: SparseTensor, other: Any) -> SparseTensor:
    total = mul(self, other)
    self._data, self._vals = total._data, total._vals
    return self


def div_(self: SparseTensor, other: Any) -> SparseTensor:
    total = div(self, other)
    self._data, self._vals = total._data, total._vals
    return self


def copy_(self: SparseTensor, src: Any, non_blocking: bool = False) -> SparseTensor:
    """self becomes a copy of the sparse tensor ``src`` (its elements, size and dtype kept as
    self's: load_state_dict of a sparse buffer)."""
    if not isinstance(src, SparseTensor) or not isinstance(self, SparseTensor):
        raise not_on_sparse("copy_")
    values = src._vals.detach().to(self.dtype).clone()
    if self._vals.is_leaf and self._vals.requires_grad:  # (a parameter stays one)
        values.requires_grad_()
    data = src._data
    self._data = COO(data.indices.copy(), values._data, data.shape, data.coalesced)
    self._vals = values
    self._layout = src._layout
    return self


def zero_(self: SparseTensor) -> SparseTensor:
    empty = _empty_like(self)
    self._data, self._vals = empty._data, empty._vals
    return self


def _empty_like(self: SparseTensor, dtype: Any = None) -> SparseTensor:
    n = sparse_dim(self)
    values = cr.zeros((0, *self._data.shape[n:]), dtype=dtype or self.dtype)
    return _sparse(xp.zeros((n, 0), dtype=xp.int64), values, self._data.shape, True)


def zeros_like(self: SparseTensor, *, dtype: Any = None, **_: Any) -> SparseTensor:
    return _empty_like(self, dtype)


def _matmul(self: Any, other: Any) -> Any:
    """sparse @ dense: out[i] += v * dense[j] for each element (i, j, v) (one op,
    ops/sparse_products.py);
    dense @ sparse as (sparse^T @ dense^T)^T; sparse @ sparse made sparse again."""
    if not isinstance(self, SparseTensor):
        return _matmul(_transpose(other, 0, 1), self.t()).t()
    if self.ndim != 2 or dense_dim(self) != 0:
        if sparse_dim(self) == 2 and dense_dim(self):
            raise RuntimeError(f"addmm: scalar values expected, got {dense_dim(self)}D values")
        raise not_on_sparse("mm")
    if isinstance(other, SparseTensor):
        if self.dtype is not other.dtype:
            raise RuntimeError(
                f"mat1 dtype {_dtypes.scalar_name(self.dtype)} does not match mat2 dtype "
                f"{_dtypes.scalar_name(other.dtype)}"
            )
        if not (self.dtype.is_floating_point or self.dtype.is_complex):
            raise NotImplementedError(
                f"\"sparse_matmul\" not implemented for '{_dtypes.scalar_name(self.dtype)}'"
            )
        return to_sparse(_matmul(self, to_dense(other)))
    vector = other.ndim == 1
    dense = other.unsqueeze(1) if vector else other
    if dense.ndim == 2 and not vector and dense.shape[0] != self.shape[1]:
        raise RuntimeError(
            f"addmm: Argument #3 (dense): Expected dim 0 size {self.shape[1]}, got {dense.shape[0]}"
        )
    if dense.ndim != 2 or dense.shape[0] != self.shape[1]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({self.shape[0]}x{self.shape[1]} and "
            f"{'x'.join(str(s) for s in other.shape)})"
        )
    _check_mm_dtypes(self, other)
    data = self._data
    rows, cols = data.indices
    if data.orders is None:  # (kept with the indices: a fixed matrix is sorted once)
        data.orders = (sparse_products.row_order(rows), sparse_products.row_order(cols))
    dtype = _dtypes.promote_types(self.dtype, other.dtype)
    values = self._vals if self._vals.dtype is dtype else self._vals.to(dtype)
    return sparse_products.sparse_dense_mm(
        values, other if other.dtype is dtype else other.to(dtype),
        rows=rows, cols=cols, n_rows=self.shape[0], by_row=data.orders[0],
        by_col=data.orders[1],
    )  # fmt: skip


def _check_mm_dtypes(sparse: SparseTensor, *dense: Tensor) -> None:
    """PyTorch's sparse @ dense kernel: no bool; every operand of the sparse one's dtype."""
    for d in dense:
        if isinstance(d, Tensor) and d.dtype is not sparse.dtype:
            raise RuntimeError(
                f"expected scalar type {_dtypes.scalar_name(sparse.dtype)} but found "
                f"{_dtypes.scalar_name(d.dtype)}"
            )
    if sparse.dtype is cr.bool:
        raise NotImplementedError("\"addmm_sparse_dense\" not implemented for 'Bool'")


def bmm(self: SparseTensor, mat2: Tensor, *, out: Any = None) -> Tensor:
    """A batch of sparse matrices (3 sparse dims) @ a batch of dense ones: one sparse
    product of the block-diagonal matrix (batch b's rows and columns moved by b) with the
    batches stacked, cut back into the batch."""
    if not isinstance(self, SparseTensor) or isinstance(mat2, SparseTensor):
        raise not_on_sparse("bmm")
    if self.ndim != 3 or sparse_dim(self) != 3 or mat2.ndim != 3:
        raise RuntimeError("bmm_sparse: Expected self and mat2 to be 3-D (a batch of matrices)")
    batch, n, k = self.shape
    if mat2.shape[0] != batch:
        raise RuntimeError("bmm_sparse: 'self.size(0)' and 'mat2.size(0)' must match")
    if mat2.shape[1] != k:
        raise RuntimeError(
            f"bmm_sparse: Expected self.size(2) == mat2.size(1), got {k} and {mat2.shape[1]}"
        )
    b, i, j = self._data.indices
    flat = _sparse(xp.stack([b * n + i, b * k + j]), self._vals, (batch * n, batch * k), False)
    product = _matmul(flat, mat2.reshape(batch * k, mat2.shape[2]))
    return product.reshape(batch, n, mat2.shape[2])


def mm(self: Any, mat2: Any, *, out: Any = None) -> Any:
    return _matmul(self, mat2)


def addmm(
    input: Any, mat1: Any, mat2: Any, *, beta: Any = 1, alpha: Any = 1, out: Any = None
) -> Tensor:
    if isinstance(mat1, SparseTensor) and not isinstance(mat2, SparseTensor):
        _check_mm_dtypes(mat1, mat2, input)
    product = _matmul(mat1, mat2)
    if isinstance(input, SparseTensor):
        input = to_dense(input)
    return input * beta + product * alpha if (beta, alpha) != (1, 1) else input + product


def _transpose(self: SparseTensor, dim0: int, dim1: int) -> SparseTensor:
    nd, ns = self.ndim, sparse_dim(self)
    d0, d1 = dim0 % nd, dim1 % nd
    shape = list(self._data.shape)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    if d0 < ns and d1 < ns:
        index = self._data.indices.copy()
        index[[d0, d1]] = index[[d1, d0]]
        return _sparse(index, self._vals, tuple(shape), False)
    if d0 >= ns and d1 >= ns:
        moved = self._vals.transpose(d0 - ns + 1, d1 - ns + 1)
        return _sparse(self._data.indices, moved, tuple(shape), self._data.coalesced)
    raise RuntimeError(
        f"sparse transpose: transposed dimensions must be sparse Got sparse_dim: {ns}, "
        f"d0: {dim0}, d1: {dim1}"
    )


def t(self: SparseTensor) -> SparseTensor:
    if self.ndim > 2 or dense_dim(self):
        raise RuntimeError(
            f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got "
            f"{sparse_dim(self)} sparse and {dense_dim(self)} dense dimensions"
        )
    return self if self.ndim < 2 else _transpose(self, 0, 1)


def transpose(self: SparseTensor, dim0: int, dim1: int) -> SparseTensor:
    return _transpose(self, dim0, dim1)


def sparse_sum(self: SparseTensor, dim: Any = None, dtype: Any = None) -> Tensor:
    """Sum over ``dim`` (all: a dense scalar); summing sparse dims leaves the others' indices
    (coalesced), summing every sparse dim gives a dense tensor."""
    if dtype is not None and dtype is not self.dtype:
        self = _with_values(self, self._vals.to(dtype))
    self = coalesce(self)
    vals = self._vals
    if dim is None:
        return vals.sum()
    dims = sorted({d % self.ndim for d in ((dim,) if isinstance(dim, int) else dim)})
    ns = sparse_dim(self)
    dense_dims = [d - ns + 1 for d in dims if d >= ns]
    if dense_dims:
        vals = vals.sum(dim=dense_dims)
    sparse_dims = [d for d in dims if d < ns]
    kept = [d for d in range(ns) if d not in sparse_dims]
    shape = tuple(s for d, s in enumerate(self._data.shape) if d not in dims)
    if not kept:
        return vals.sum(0)
    if not sparse_dims:
        return _sparse(self._data.indices, vals, shape, self._data.coalesced)
    partial = _sparse(self._data.indices[kept], vals, shape, False)
    return coalesce(partial)


def tensor_sum(
    self: SparseTensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None
) -> Tensor:
    if keepdim:
        raise not_on_sparse("sum.dim_IntList")
    if dtype is None and not (self.dtype.is_floating_point or self.dtype.is_complex):
        dtype = cr.int64  # (integers and bools are summed as int64)
    if dim is None:
        return sparse_sum(self, None, dtype)
    return sparse_sum(self, dim, dtype)


def _grouped(self: SparseTensor, dim: int) -> tuple[Tensor, int, Tensor, Any]:
    """For softmax over ``dim`` (a sparse dim): each element's group (the other sparse
    indices), the number of groups, and each group's largest value (a constant shift)."""
    index = self._data.indices
    others = [d for d in range(index.shape[0]) if d != dim]
    shape = tuple(self._data.shape[d] for d in others)
    keys = xp.ravel_multi_index(tuple(index[others]), shape) if others else xp.zeros_like(index[0])
    _, group = xp.unique(keys, return_inverse=True)
    group = group.reshape(-1).astype(xp.int64)
    count = int(group.max()) + 1 if group.size else 0
    raw = self._vals.detach()._data
    top = xp.full((count, *raw.shape[1:]), -xp.inf, dtype=raw.dtype)
    xp.maximum.at(top, group, raw)
    g = _make(group, cr.int64)
    return g, count, _make(top, self._vals.dtype), g


def _softmax_parts(
    self: SparseTensor, dim: int, dtype: Any, log: bool = False
) -> tuple[Tensor, Tensor, Tensor]:
    """The values (shifted), the log of their sums' exp along ``dim``'s groups, and the
    coalesced tensor."""
    self = coalesce(self)
    vals = self._vals if dtype is None else self._vals.to(dtype)
    if not vals.dtype.is_floating_point or vals.dtype in (cr.float16, cr.bfloat16):
        what = "log_softmax" if log else "softmax"
        raise NotImplementedError(
            f"\"{what}\" not implemented for '{_dtypes.scalar_name(vals.dtype)}'"
        )
    ns = sparse_dim(self)
    dim = dim % self.ndim
    if dim >= ns:  # (a dense dim: each value's own softmax)
        along = dim - ns + 1
        return vals, vals.logsumexp(along, keepdim=True), self
    g, count, top, _ = _grouped(_with_values(self, vals), dim)
    shifted = vals - top[g]
    totals = cr.zeros((count, *vals.shape[1:]), dtype=vals.dtype).index_add(0, g, shifted.exp())
    return shifted, totals[g].log(), self


def softmax(input: SparseTensor, dim: int, dtype: Any = None) -> SparseTensor:
    """Softmax over the specified elements of each slice along ``dim`` (the unspecified ones
    count as -inf, not 0)."""
    shifted, log_total, coalesced = _softmax_parts(input, dim, dtype)
    return _with_values(coalesced, (shifted - log_total).exp())


def log_softmax(input: SparseTensor, dim: int, dtype: Any = None) -> SparseTensor:
    shifted, log_total, coalesced = _softmax_parts(input, dim, dtype, log=True)
    return _with_values(coalesced, shifted - log_total)


def sparse_mask(self: Tensor, mask: SparseTensor) -> SparseTensor:
    """The dense tensor's elements at the mask's indices."""
    return _with_values(mask, self[_index_tuple(mask)].to(self.dtype))


def _convert(self: SparseTensor, *args: Any, **kwargs: Any) -> SparseTensor:
    dtype = kwargs.get("dtype")
    for a in args:
        if isinstance(a, _dtypes.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype = a.dtype
        elif a is not None:
            check_device(a)
    if kwargs.get("device") is not None:
        check_device(kwargs["device"])
    if dtype is None or dtype is self.dtype:
        return self
    return _with_values(self, self._vals.to(dtype))


def _to_dtype(dtype: Any) -> Callable:
    def convert(self: SparseTensor, *_: Any, **__: Any) -> SparseTensor:
        return _convert(self, dtype)

    return convert


def _type(self: SparseTensor, dtype: Any = None, non_blocking: bool = False, **_: Any) -> Any:
    """``'torch.sparse.FloatTensor'`` (no ``dtype``), or the tensor in ``dtype``."""
    if dtype is None:
        return self._vals.type().replace("torch.", "torch.sparse.", 1)
    return _convert(self, dtype)


def clone(self: SparseTensor, *, memory_format: Any = None) -> SparseTensor:
    return _sparse(
        self._data.indices.copy(), self._vals.clone(), self._data.shape, self._data.coalesced
    )


def detach(self: SparseTensor) -> SparseTensor:
    return _with_values(self, self._vals.detach())


def requires_grad_(self: SparseTensor, requires_grad: bool = True) -> SparseTensor:
    self._vals.requires_grad_(requires_grad)
    return self


def backward(self: SparseTensor, gradient: Any = None, *args: Any, **kwargs: Any) -> None:
    """The values' backward, with the gradient's elements at this tensor's indices."""
    if gradient is None:
        raise RuntimeError("grad can be implicitly created only for scalar outputs")
    dense = to_dense(gradient) if isinstance(gradient, SparseTensor) else gradient
    self._vals.backward(dense[_index_tuple(self)], *args, **kwargs)


def select(self: SparseTensor, dim: int, index: int) -> Any:
    dim %= self.ndim
    if dim >= sparse_dim(self):
        return _with_values(self, self._vals.select(dim - sparse_dim(self) + 1, index))
    index %= self._data.shape[dim]
    keep = xp.nonzero(self._data.indices[dim] == index)[0]
    rest = [d for d in range(sparse_dim(self)) if d != dim]
    vals = self._vals[_make(keep.astype(xp.int64), cr.int64)]
    shape = tuple(s for d, s in enumerate(self._data.shape) if d != dim)
    if not rest:
        return vals.sum(0)
    return _sparse(self._data.indices[rest][:, keep], vals, shape, self._data.coalesced)


def getitem(self: SparseTensor, key: Any) -> Any:
    if isinstance(key, int) and not isinstance(key, bool):
        return select(self, 0, key)
    raise not_on_sparse("index.Tensor")


def norm(
    self: SparseTensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, **k: Any
) -> Tensor:
    if dim is not None:
        raise not_on_sparse("norm.ScalarOpt_dim")
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError(
            "norm(): input dtype should be either floating point or complex. Got "
            f"{_dtypes.scalar_name(self.dtype)} instead."
        )
    vals = coalesce(self)._vals
    return vals.norm(2 if p == "fro" else p)


def unsqueeze(self: SparseTensor, dim: int) -> SparseTensor:
    dim = dim % (self.ndim + 1)
    shape = (*self._data.shape[:dim], 1, *self._data.shape[dim:])
    ns = sparse_dim(self)
    if dim <= ns:
        index = xp.insert(self._data.indices, dim, 0, axis=0)
        return _sparse(index, self._vals, shape, self._data.coalesced)
    return _sparse(self._data.indices, self._vals.unsqueeze(dim - ns + 1), shape, True)


def hspmm(mat1: SparseTensor, mat2: Tensor, *, out: Any = None) -> SparseTensor:
    """``torch.hspmm``: sparse @ dense as a hybrid sparse tensor, one element (a dense row)
    per row of ``mat1`` with an element (its product row, gathered: differentiable)."""
    product = _matmul(mat1, mat2)
    rows = xp.unique(mat1._data.indices[0]) if mat1._nnz() else xp.zeros(0, dtype=xp.int64)
    values = product[_make(rows.astype(xp.int64), cr.int64)]
    return _sparse(rows.reshape(1, -1).astype(xp.int64), values, tuple(product.shape), True)


def sspaddmm(
    input: SparseTensor, mat1: SparseTensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1
) -> SparseTensor:
    """``torch.sspaddmm``: beta * input + alpha * (mat1 @ mat2), sparse: input's elements,
    then every element of the product's rows that ``mat1`` reaches (uncoalesced)."""
    if not isinstance(input, SparseTensor):
        raise RuntimeError("tensor.sspaddmm(...) can only be called on sparse tensors")
    shape = (mat1.shape[0], mat2.shape[-1])
    if tuple(input.shape) != tuple(shape):
        raise RuntimeError(
            f"sspaddmm: Argument #1: Expected dim 0 size {shape[0]}, got {input.shape[0]}"
            if input.shape[0] != shape[0]
            else f"sspaddmm: Argument #1: Expected dim 1 size {shape[1]}, got {input.shape[1]}"
        )
    rows = hspmm(mat1, mat2)
    r = rows._data.indices[0]
    index = xp.stack([xp.repeat(r, shape[1]), xp.tile(xp.arange(shape[1]), r.size)])
    values = cr.cat([input._vals * beta, rows._vals.reshape(-1) * alpha])
    joined = xp.concatenate([input._data.indices, index.astype(xp.int64)], axis=1)
    return _sparse(joined, values, shape, False)


def _radd(self: SparseTensor, other: Any) -> Any:
    return add(other, self)


def _neg(self: SparseTensor) -> SparseTensor:
    return unary("neg", self)


def _rmatmul(self: SparseTensor, other: Any) -> Any:
    return mm(other, self)


def smm(self: SparseTensor, mat2: Tensor) -> SparseTensor:
    """``torch.smm``: sparse @ dense, as a sparse tensor."""
    return to_sparse(mm(self, mat2))


# ----- embeddings with sparse gradients -------------------------------------------------


def embedding(weight: Tensor, index: Tensor, padding_idx: int, rows: Callable) -> Tensor:
    """``F.embedding(..., sparse=True)``: the rows (``rows()``, the dense embedding, run
    without recording), and a node whose gradient for ``weight`` is sparse: one element per
    index read (its row of the incoming gradient), none for ``padding_idx``."""
    return _SparseEmbedding.apply(weight, index, padding_idx, rows)


class _SparseEmbedding(cr.autograd.Function):
    @staticmethod
    def forward(ctx: Any, weight: Tensor, index: Tensor, padding_idx: int, rows: Callable):
        ctx.index = index.detach()._data.reshape(-1).astype(xp.int64)
        ctx.padding_idx = padding_idx
        ctx.shape = tuple(weight.shape)
        ctx.dtype = weight.dtype
        return rows()

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        index = ctx.index
        values = grad.reshape(-1, ctx.shape[1])
        if ctx.padding_idx >= 0:
            keep = xp.nonzero(index != ctx.padding_idx)[0]
            index = index[keep]
            values = values[_make(keep.astype(xp.int64), cr.int64)]
        out = _sparse(index.reshape(1, -1), values.to(ctx.dtype), ctx.shape, index.size <= 1)
        return out, None, None, None


def embedding_bag(
    weight: Tensor, weights: Tensor | None, indices: ndarray, padding: int | None, bag: Callable
) -> Tensor:
    """``F.embedding_bag(..., sparse=True)``: the bags (``bag``, the dense op, run on the
    rows read, one per index), and a node whose gradient for ``weight`` is sparse: each
    index read gets its row's gradient (none for ``padding``); ``per_sample_weights`` get
    theirs."""
    return _SparseBag.apply(weight, weights, indices, padding, bag)


class _SparseBag(cr.autograd.Function):
    @staticmethod
    def forward(
        ctx: Any, weight: Tensor, weights: Any, indices: ndarray, padding: Any, bag: Callable
    ) -> Tensor:
        n = indices.size
        keep = indices != padding if padding is not None else xp.ones(n, dtype=bool)
        at = xp.where(keep, xp.arange(n), n)  # (the padding reads row n: zeros, no gradient)
        read = weight.detach()[_make(indices, cr.int64)]
        rows = cr.cat([read, cr.zeros((1, weight.shape[1]), dtype=weight.dtype)])
        rows.requires_grad_()
        scales = None if weights is None else weights.detach().requires_grad_(weights.requires_grad)
        with cr.enable_grad():
            out = bag(rows, scales, at, n)
        ctx.graph = (out, rows, scales)
        ctx.index, ctx.keep, ctx.shape = indices, keep, tuple(weight.shape)
        return out.detach()

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        out, rows, scales = ctx.graph
        wanted = [rows] + ([scales] if scales is not None and scales.requires_grad else [])
        grads = cr.autograd.grad(out, wanted, grad)
        kept = xp.nonzero(ctx.keep)[0]
        values = grads[0][_make(kept.astype(xp.int64), cr.int64)]
        index = ctx.index[kept].reshape(1, -1)
        sparse = _sparse(index, values, ctx.shape, index.size <= 1)
        return sparse, grads[1] if len(grads) > 1 else None, None, None, None


# Tensor method and torch function names -> the sparse ops
OPS: dict[str, Callable] = {
    "to_dense": to_dense,
    "coalesce": coalesce,
    "sparse_dim": sparse_dim,
    "dense_dim": dense_dim,
    "to_sparse": to_sparse,
    "to_sparse_coo": to_sparse,
    "mul": mul,
    "multiply": mul,
    "__mul__": mul,
    "__rmul__": mul,
    "mul_": mul_,
    "div": div,
    "divide": div,
    "true_divide": div,
    "__truediv__": div,
    "div_": div_,
    "add": add,
    "__add__": add,
    "__radd__": _radd,
    "add_": add_,
    "__iadd__": add_,
    "sub": sub,
    "subtract": sub,
    "__sub__": sub,
    "sub_": sub_,
    "__neg__": _neg,
    "zero_": zero_,
    "copy_": copy_,
    "zeros_like": zeros_like,
    "mm": mm,
    "matmul": mm,
    "__matmul__": mm,
    "__rmatmul__": _rmatmul,
    "smm": smm,
    "pow": pow,
    "hspmm": hspmm,
    "hsmm": hspmm,
    "dsmm": mm,
    "spmm": mm,
    "sspaddmm": sspaddmm,
    "saddmm": sspaddmm,
    "cat": cat,
    "concat": cat,
    "concatenate": cat,
    "stack": stack,
    "index_select": index_select,
    "narrow_copy": narrow_copy,
    "__pow__": pow,
    "new_zeros": new_zeros,
    "mv": mm,
    "bmm": bmm,
    "addmm": addmm,
    "t": t,
    "transpose": transpose,
    "swapaxes": transpose,
    "swapdims": transpose,
    "sum": tensor_sum,
    "norm": norm,
    "sparse_mask": sparse_mask,
    "select": select,
    "__getitem__": getitem,
    "unsqueeze": unsqueeze,
    "to": _convert,
    "type": _type,
    "double": _to_dtype(cr.float64),
    "float": _to_dtype(cr.float32),
    "half": _to_dtype(cr.float16),
    "long": _to_dtype(cr.int64),
    "int": _to_dtype(cr.int32),
    "bool": _to_dtype(cr.bool),
    "clone": clone,
    "detach": detach,
    "requires_grad_": requires_grad_,
    "backward": backward,
}

_tensor.install(OPS, ZERO_PRESERVING)
