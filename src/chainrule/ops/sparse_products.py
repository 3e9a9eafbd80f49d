"""Sparse tensors' ops on their values: a sparse matrix, given by its values and their (row,
column) positions, times a dense matrix (what ``torch.sparse.mm``, ``torch.mm`` and ``@``
compute for a sparse COO, CSR or CSC operand: chainrule/sparse); the dense tensor of
values at positions (``to_dense``); the values a sparse tensor is made of
(``sparse_coo_tensor``'s node).

out[r] = Σ values[k] · dense[cols[k]] over the elements k of row r, summed in element
order (the bits of adding them one by one, as PyTorch's kernel), as segment sums of the
elements sorted by row. Its VJP for the dense matrix is the same product with the
transposed pattern (rows and columns swapped), so every order of derivative is this op
again; for the values, each element's row of g dotted with its column's row of dense."""

from __future__ import annotations

from .._backend import xp
from ..autograd.recording import defop
from . import indexing, reductions


def row_order(rows):
    """The elements sorted by row, each row's in their order (None: sorted already)."""
    if rows.size < 2 or bool((rows[1:] >= rows[:-1]).all()):
        return None
    return xp.argsort(rows, kind="stable")


def _segment_sums(terms, rows, n_rows: int, order=False):
    """Σ of terms' rows per row number (element order kept within a row): (n_rows, ...);
    ``order`` is ``row_order(rows)`` where the caller knows it (False: not known)"""
    out = xp.zeros((n_rows, *terms.shape[1:]), dtype=terms.dtype)
    if not rows.size:
        return out
    if order is False:
        order = row_order(rows)
    ordered = rows if order is None else rows[order]
    if order is not None:
        terms = terms[order]
    starts = xp.flatnonzero(xp.concatenate(([True], ordered[1:] != ordered[:-1])))
    out[ordered[starts]] = xp.add.reduceat(terms, starts, axis=0)
    return out


def _sparse_dense_mm(
    values, dense, rows=None, cols=None, n_rows: int = 0, by_row=False, by_col=False
):
    """A @ dense, A the (n_rows, dense.shape[0]) matrix with values at (rows, cols)
    (``by_row``, ``by_col``: row_order of rows and of cols, where known)"""
    column = dense.ndim == 1
    right = dense[:, None] if column else dense
    terms = values[:, None] * right[cols]
    out = _segment_sums(terms, rows, n_rows, by_row)
    return out[:, 0] if column else out


def _values_vjp(g, dense, rows, cols):
    """∂/∂values[k] = g[rows[k]] · dense[cols[k]] (a dot over the columns)"""
    picked = indexing.getitem(g, key=rows) * indexing.getitem(dense, key=cols)
    if picked.ndim == 1:
        return picked
    return reductions.sum(picked, dim=-1)


sparse_dense_mm = defop(
    "sparse_dense_mm",
    _sparse_dense_mm,
    args=("values", "dense"),
    node="SparseAddmmBackward0",
    vjp=(
        _values_vjp,
        lambda g, values, rows, cols, dense_shape, by_row, by_col: sparse_dense_mm(
            values, g, rows=cols, cols=rows, n_rows=dense_shape[0], by_row=by_col, by_col=by_row
        ),  # ∂/∂dense = Aᵀ g: the same product, rows and columns swapped
    ),
    jvp=(
        lambda t, dense, rows, cols, n_rows, by_row, by_col: sparse_dense_mm(
            t, dense, rows=rows, cols=cols, n_rows=n_rows, by_row=by_row, by_col=by_col
        ),  # J t = (A with values t) @ dense
        lambda t, values, rows, cols, n_rows, by_row, by_col: sparse_dense_mm(
            values, t, rows=rows, cols=cols, n_rows=n_rows, by_row=by_row, by_col=by_col
        ),  # J t = A @ t
    ),
    conventions="The positions (rows, cols) are parameters: they get no gradient.",
)


def _sparse_to_dense(values, indices=None, shape=()):
    """zeros of shape with values added at indices (repeated indices add up)"""
    out = xp.zeros(shape, dtype=values.dtype)
    xp.add.at(out, tuple(indices), values)
    return out


sparse_to_dense = defop(
    "sparse_to_dense",
    _sparse_to_dense,
    args=("values",),
    node="ToDenseBackward0",
    vjp=lambda g, indices: indexing.getitem(g, key=tuple(indices)),  # ∂/∂values: g at indices
    jvp=lambda t, indices, shape: sparse_to_dense(t, indices=indices, shape=shape),  # linear
    complex="wirtinger",
)


def _sparse_values(values, compressed=False):
    """the values a sparse tensor is made of (the same values)"""
    return values


def _values_node(values, compressed=False) -> str:
    """PyTorch's node of the constructors: COO's, or the compressed layouts'."""
    if compressed:
        return "SparseCompressedTensorBackward0"
    return "SparseCooTensorWithDimsAndTensorsBackward0"


sparse_values = defop(
    "sparse_values",
    _sparse_values,
    args=("values",),
    node=_values_node,
    vjp=lambda g: g,  # ∂/∂values = 1
    jvp=lambda t: t,  # as the VJP
    view=True,
    complex="wirtinger",
)

__all__ = ["sparse_dense_mm", "sparse_to_dense", "sparse_values"]
