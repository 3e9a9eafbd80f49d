"""``torch.sparse.mm(csr, dense, reduce)`` for the reductions other than sum: row ``i`` of
the result reduces ``value * dense[col]`` over the elements ``(i, col, value)`` of row ``i``
(an empty row gives 0). Written with ``scatter_reduce``, so gradients reach both the
values and ``dense``; for amax/amin, tied products share their gradient evenly, where
PyTorch gives it to one of them."""

from __future__ import annotations

from typing import Any

import chainrule as cr

from .._tensor import _make
from ._coo import not_on_sparse
from ._tensor import SparseTensor

__all__: list[str] = []

_REDUCE = {"mean": "mean", "amax": "amax", "max": "amax", "amin": "amin", "min": "amin"}


def mm_reduce(mat1: Any, mat2: Any, reduce: str) -> Any:
    """``mat1 @ mat2`` (``mat1`` sparse CSR, ``mat2`` dense 2-D), each row reduced by
    ``reduce`` (mean, amax, amin) instead of summed."""
    if reduce == "prod":
        raise RuntimeError("sparse_mm_reduce: reduce type of prod has not been enabled.")
    if reduce not in _REDUCE:
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
        )
    if not isinstance(mat1, SparseTensor):
        if not isinstance(mat2, SparseTensor):  # (no sparse argument to dispatch on)
            raise not_on_sparse("_sparse_mm_reduce_impl", "CPU")
        raise RuntimeError("sparse_mm_reduce: expect self to be SparseCsr, got Strided")
    if mat1._layout != "csr":
        raise not_on_sparse("_sparse_mm_reduce_impl", "SparseCPU" if mat1._layout == "coo"
                            else "SparseCsrCPU")  # fmt: skip
    if mat2.ndim != 2 or mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({mat1.shape[0]}x{mat1.shape[1]} and "
            f"{'x'.join(str(s) for s in mat2.shape)})"
        )
    if mat1.dtype != mat2.dtype:
        raise RuntimeError(
            f"sparse_mm_reduce: expect mat1 and mat2 to have the same dtype, got "
            f"{mat1.dtype} and {mat2.dtype}"
        )
    rows, cols = mat1._data.indices
    rows_t = _make(rows.astype("int64"), cr.int64)
    cols_t = _make(cols.astype("int64"), cr.int64)
    products = mat1._vals.unsqueeze(1) * mat2.index_select(0, cols_t)
    index = rows_t.unsqueeze(1).expand(-1, mat2.shape[1])
    how = _REDUCE[reduce]
    if how == "mean":
        out = mat2.new_zeros((mat1.shape[0], mat2.shape[1]))
        return out.scatter_reduce(0, index, products, how, include_self=False)
    # (a start that no product ties with: scatter_reduce's gradient would share with it)
    start = float("-inf") if how == "amax" else float("inf")
    out = mat2.new_full((mat1.shape[0], mat2.shape[1]), start)
    out = out.scatter_reduce(0, index, products, how, include_self=False)
    filled = cr.bincount(rows_t, minlength=mat1.shape[0]) > 0
    return cr.where(filled.unsqueeze(1), out, 0.0)
