"""The compressed sparse layouts, CSR and CSC (``torch.sparse_csr``, ``torch.sparse_csc``):
2-D sparse tensors whose elements are kept in row order (CSR) or column order (CSC), their
rows' (columns') starts given by ``crow_indices`` (``ccol_indices``).

A compressed tensor is a sparse tensor of ``_tensor.py`` whose ``_layout`` says "csr" or
"csc": its indices are the COO indices of its elements, in that order. An op on it runs on
the same tensor seen as COO (``as_coo``: for CSR the indices are coalesced already) and,
for the ops that keep the layout in PyTorch (products by numbers, unary ops that keep 0,
sums, casts, clones), its result is compressed again (``compressed``: the elements put in
the layout's order, the values gathered: differentiable). So gradients reach the values as
they do for COO. ``call`` is that dispatch; every other op raises PyTorch's error."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import chainrule as cr

from .._backend import xp
from .._tensor import Tensor, _make
from ..ops import sparse_products
from ._coo import not_on_sparse
from ._tensor import SparseTensor, _sparse, check_device

ndarray = xp.ndarray
_BETA_WARNED = [False]

# PyTorch's layout names and the backends its messages name
LAYOUT_NAMES = {"csr": "SparseCsr", "csc": "SparseCsc"}

# ops whose result keeps a compressed input's layout (the COO op, compressed again)
KEEP_LAYOUT = {
    "mul", "multiply", "__mul__", "__rmul__", "div", "divide", "true_divide", "__truediv__",
    "__neg__", "add", "__add__", "__radd__", "sub", "subtract", "__sub__", "pow", "__pow__",
    "clone", "detach", "to", "double", "float", "half", "long", "int", "bool", "zeros_like",
}  # fmt: skip

# ops that give a dense tensor (or a COO one: indexing), run on the COO form as they are
AS_COO = {
    "to_dense", "mm", "matmul", "__matmul__", "__rmatmul__", "mv", "addmm", "smm", "dsmm",
    "spmm", "norm", "backward", "select", "__getitem__", "to_sparse", "to_sparse_coo", "sum",
}  # fmt: skip

# what a tensor says about itself: run on the compressed tensor as it is
AS_IS = {
    "__repr__", "__str__", "__format__", "size", "dim", "ndimension", "numel", "nelement",
    "__len__", "_nnz", "sparse_dim", "dense_dim", "is_floating_point", "is_complex",
    "is_signed", "element_size", "get_device", "item", "data_ptr", "tolist", "numpy",
    "__array__", "untyped_storage", "reshape", "view", "_version", "retains_grad",
    "retain_grad", "is_inference", "is_shared", "is_pinned", "is_neg", "is_conj",
    "is_quantized", "is_nested", "is_mkldnn", "is_xpu", "is_mps", "is_maia", "is_ipu",
    "names", "itemsize", "output_nr", "_base", "cpu", "values", "requires_grad_",
    "__deepcopy__", "crow_indices", "col_indices", "ccol_indices", "row_indices",
    "to_sparse_csr", "to_sparse_csc", "__reduce_ex__", "register_hook",
}  # fmt: skip

# the COO-only accessors: PyTorch's "expected sparse coordinate tensor layout" error
COO_ONLY = {"indices", "_indices", "coalesce", "is_coalesced", "_coalesced_", "sparse_sum"}


def _warn_beta() -> None:
    if not _BETA_WARNED[0]:
        _BETA_WARNED[0] = True
        warnings.warn(
            "Sparse CSR tensor support is in beta state. If you miss a functionality in the "
            "sparse tensor support, please submit a feature request to "
            "https://github.com/pytorch/pytorch/issues.",
            UserWarning,
            stacklevel=4,
        )


def as_coo(t: SparseTensor) -> SparseTensor:
    """A compressed tensor as the COO tensor of the same elements (coalesced)."""
    from ._ops import coalesce

    coo = _sparse(t._data.indices, t._vals, t._data.shape, t._layout == "csr")
    return coalesce(coo)


def compressed(t: SparseTensor, layout: str) -> SparseTensor:
    """A COO tensor's elements in the order of ``layout`` ("csr": by row, "csc": by
    column), as a tensor of that layout (its values gathered: differentiable)."""
    from ._ops import coalesce

    if t.ndim != 2 or t.dense_dim() != 0:
        raise RuntimeError(
            f"to_sparse_{layout}: expected a 2-D tensor without dense dims, got {t.ndim}-D"
        )
    t = coalesce(t)
    index = t._data.indices
    if layout == "csr":
        return _sparse(index, t._vals, t._data.shape, True, "csr")
    order = xp.lexsort((index[0], index[1]))  # by column, then row
    values = t._vals[_make(order.astype(xp.int64), cr.int64)]
    return _sparse(index[:, order], values, t._data.shape, False, "csc")


def call(name: str, handler: Callable, args: tuple, kwargs: dict) -> Any:
    """``name`` on arguments one of which is compressed (see the module's docstring)."""
    first = next(a for a in args if isinstance(a, SparseTensor) and a._layout != "coo")
    layout = first._layout
    if name in AS_IS:
        return handler(*args, **kwargs)
    if name in ("t", "transpose", "swapaxes", "swapdims", "mT", "T"):
        return _transposed(first)
    if name in COO_ONLY:
        what = "coalesce" if name == "sparse_sum" else name.lstrip("_")
        raise RuntimeError(
            f"{what} expected sparse coordinate tensor layout but got {LAYOUT_NAMES[layout]}"
        )
    if name in ("stride", "is_contiguous"):
        what = "strides" if name == "stride" else "is_contiguous"
        raise RuntimeError(f"Sparse CSR tensors do not have {what}")
    if name == "type":
        raise RuntimeError(f"Unimplemented backend {LAYOUT_NAMES[layout]}CPU")
    if name == "sum" and (len(args) > 1 or kwargs.get("dim") is not None):
        raise RuntimeError("reduction operations on CSR tensors with keepdim=False is unsupported")
    from ._ops import ZERO_PRESERVING

    if name not in KEEP_LAYOUT and name not in AS_COO and name not in ZERO_PRESERVING:
        if name in ("softmax", "log_softmax"):
            raise not_on_sparse(name, LAYOUT_NAMES[layout] + "CPU")
        raise RuntimeError(f"unsupported tensor layout: {LAYOUT_NAMES[layout]}")
    if name in ("to_sparse", "to_sparse_coo") and layout == "csc" and not kwargs and len(args) < 2:
        # (the elements in the column order they have, so not coalesced: PyTorch's)
        return _sparse(first._data.indices, first._vals, first._data.shape, False)
    plain = tuple(as_coo(a) if isinstance(a, SparseTensor) and a._layout != "coo" else a
                  for a in args)  # fmt: skip
    out = handler(*plain, **kwargs)
    if not isinstance(out, SparseTensor) or name in ("to_sparse", "to_sparse_coo"):
        return out
    if name in AS_COO:  # (a product of two compressed matrices: CSR, as PyTorch's)
        return compressed(out, "csr") if out._layout == "coo" and name in _PRODUCTS else out
    return compressed(out, layout)


_PRODUCTS = {"mm", "matmul", "__matmul__", "__rmatmul__", "smm", "dsmm", "spmm"}


def _transposed(t: SparseTensor) -> SparseTensor:
    """CSR <-> CSC: the same elements, in the same order, with rows and columns swapped."""
    index = t._data.indices[::-1].copy()
    shape = t._data.shape[::-1]
    layout = "csc" if t._layout == "csr" else "csr"
    return _sparse(index, t._vals, shape, layout == "csr", layout)


# ----- accessors ------------------------------------------------------------------------


def _starts(positions: ndarray, n: int) -> ndarray:
    """Where each of n rows (columns) starts in the element order: 0, then running counts."""
    counts = xp.bincount(positions, minlength=n) if positions.size else xp.zeros(n, xp.int64)
    return xp.concatenate([xp.zeros(1, dtype=xp.int64), xp.cumsum(counts).astype(xp.int64)])


def _need(t: SparseTensor, layout: str, name: str) -> None:
    if t._layout != layout:
        kind = "row" if layout == "csr" else "column"
        got = "Sparse" if t._layout == "coo" else LAYOUT_NAMES[t._layout]
        raise RuntimeError(f"{name} expected sparse {kind} compressed tensor layout but got {got}")


def crow_indices(self: SparseTensor) -> Tensor:
    _need(self, "csr", "crow_indices")
    return _make(_starts(self._data.indices[0], self._data.shape[0]), cr.int64)


def col_indices(self: SparseTensor) -> Tensor:
    _need(self, "csr", "col_indices")
    return _make(self._data.indices[1], cr.int64)


def ccol_indices(self: SparseTensor) -> Tensor:
    _need(self, "csc", "ccol_indices")
    return _make(_starts(self._data.indices[1], self._data.shape[1]), cr.int64)


def row_indices(self: SparseTensor) -> Tensor:
    _need(self, "csc", "row_indices")
    return _make(self._data.indices[0], cr.int64)


def to_sparse_csr(self: Tensor, dense_dim: int | None = None) -> SparseTensor:
    """``Tensor.to_sparse_csr``: a dense or sparse 2-D tensor's nonzero elements by row."""
    return _to(self, "csr")


def to_sparse_csc(self: Tensor, dense_dim: int | None = None) -> SparseTensor:
    return _to(self, "csc")


def _to(self: Tensor, layout: str) -> SparseTensor:
    from ._tensor import to_sparse

    if isinstance(self, SparseTensor):
        if self._layout == layout:
            return self
        coo = as_coo(self) if self._layout != "coo" else self
    else:
        if self.ndim != 2:
            raise RuntimeError(f"to_sparse_{layout}: expected a 2-D tensor, got {self.ndim}-D")
        coo = to_sparse(self)
    _warn_beta()
    return compressed(coo, layout)


# ----- making them ------------------------------------------------------------------------


def sparse_compressed_tensor(
    compressed_indices: Any,
    plain_indices: Any,
    values: Any,
    size: Any = None,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
    check_invariants: bool | None = None,
) -> SparseTensor:
    """``torch.sparse_compressed_tensor`` (CSR or CSC): element k of row (column) r lies
    between compressed_indices[r] and [r + 1], at column (row) plain_indices[k]."""
    from ._tensor import CHECK_INVARIANTS, _warn_invariants

    check_device(device)
    kind = {"torch.sparse_csr": "csr", "torch.sparse_csc": "csc"}.get(repr(layout))
    if kind is None:
        raise RuntimeError(f"sparse_compressed_tensor: a CSR or CSC layout, got {layout}")
    starts = _index_array(compressed_indices)
    plain = _index_array(plain_indices)
    vals = values if isinstance(values, Tensor) else cr.tensor(values)
    if dtype is not None and vals.dtype is not dtype:
        vals = vals.to(dtype)
    if starts.ndim != 1 or plain.ndim != 1 or vals.ndim != 1 or plain.size != vals.shape[0]:
        raise RuntimeError(
            "chainrule: compressed sparse tensors take 1-D compressed and plain indices and "
            "1-D values (no batch or dense dims), as many values as plain indices"
        )
    if size is None:
        inner = int(plain.max()) + 1 if plain.size else 0
        size = (starts.size - 1, inner) if kind == "csr" else (inner, starts.size - 1)
    shape = tuple(int(s) for s in size)
    if check_invariants or CHECK_INVARIANTS[0] and check_invariants is None:
        _check(starts, plain, shape, kind)
    outer = xp.repeat(xp.arange(starts.size - 1), xp.diff(starts)) if starts.size else starts
    index = xp.stack([outer, plain] if kind == "csr" else [plain, outer]).astype(xp.int64)
    _warn_invariants(check_invariants)
    _warn_beta()
    if requires_grad:
        vals = vals.detach().requires_grad_()
    elif vals.requires_grad:
        vals = sparse_products.sparse_values(vals, compressed=True)
    return _sparse(index, vals, shape, kind == "csr", kind)


def _index_array(x: Any) -> ndarray:
    t = x if isinstance(x, Tensor) else cr.tensor(x)
    return xp.asarray(t.detach()._data, dtype=xp.int64)


def _check(starts: ndarray, plain: ndarray, shape: tuple, kind: str) -> None:
    """PyTorch's invariants of compressed indices, checked in its order (its messages)."""
    outer, inner = (shape[0], shape[1]) if kind == "csr" else (shape[1], shape[0])
    name, plain_name = ("crow_indices", "col_indices") if kind == "csr" else (
        "ccol_indices", "row_indices")  # fmt: skip
    outer_name, inner_name = ("rows", "ncols") if kind == "csr" else ("columns", "nrows")
    if starts.size != outer + 1:
        raise RuntimeError(
            f"{name}.shape[-1] must be equal to the number of {outer_name} + 1 "
            f"(={outer + 1}), but got {starts.size}"
        )

    def fail(what: str) -> RuntimeError:
        return RuntimeError(f"`{what}` is not satisfied.")

    if starts[0] != 0:
        raise fail(f"{name}[..., 0] == 0")
    if starts[-1] != plain.size:
        raise fail(f"{name}[..., -1] == nnz")
    if plain.size and (plain.min() < 0 or plain.max() >= inner):
        raise fail(f"0 <= {plain_name} < {inner_name}")
    for i in range(1, starts.size):  # (row by row: its length, then its order)
        if not 0 <= starts[i] - starts[i - 1] <= inner:
            raise fail(f"0 <= {name}[..., 1:] - {name}[..., :-1] <= {inner_name}")
        if (xp.diff(plain[starts[i - 1] : starts[i]]) <= 0).any():
            raise fail(
                f"{plain_name}[..., {name}[..., i - 1]:{name}[..., i]] for all i = 1, ..., "
                f"{'nrows' if kind == 'csr' else 'ncols'} are sorted and distinct along the "
                "last dimension values"
            )


def sparse_csr_tensor(crow_indices: Any, col_indices: Any, values: Any, size: Any = None,
                      **kwargs: Any) -> SparseTensor:  # fmt: skip
    return sparse_compressed_tensor(
        crow_indices, col_indices, values, size, layout=cr.sparse_csr, **kwargs
    )


def sparse_csc_tensor(ccol_indices: Any, row_indices: Any, values: Any, size: Any = None,
                      **kwargs: Any) -> SparseTensor:  # fmt: skip
    return sparse_compressed_tensor(
        ccol_indices, row_indices, values, size, layout=cr.sparse_csc, **kwargs
    )


def sampled_addmm(
    input: SparseTensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1.0, alpha: Any = 1.0,
    out: Any = None,
) -> SparseTensor:  # fmt: skip
    """``torch.sparse.sampled_addmm``: beta * input + alpha * (mat1 @ mat2) at input's
    elements only (a CSR tensor): each element the dot of mat1's row and mat2's column."""
    if not isinstance(input, SparseTensor) or input._layout != "csr":
        raise RuntimeError(
            "sampled_addmm: Expected input to be a sparse CSR tensor (strided or COO given)"
        )
    rows, cols = (_make(r, cr.int64) for r in input._data.indices)
    dots = (mat1[rows] * mat2.t()[cols]).sum(-1)
    return _sparse(
        input._data.indices, input._vals * beta + dots * alpha, input._data.shape, True, "csr"
    )


# ----- printing ---------------------------------------------------------------------------


def compressed_repr(self: SparseTensor) -> str:
    """PyTorch's layout: the compressed and plain indices, then the values with size, nnz,
    dtype, layout and grad after them."""
    from .. import _printing
    from ._tensor import _inner, _suffixes

    names = ("crow_indices", "col_indices") if self._layout == "csr" else (
        "ccol_indices", "row_indices")  # fmt: skip
    first = (crow_indices if self._layout == "csr" else ccol_indices)(self)._data
    second = self._data.indices[1 if self._layout == "csr" else 0]
    pad = " " * len("tensor(")
    text = f"tensor({names[0]}=" + _inner(first, len(f"tensor({names[0]}=tensor(")) + ",\n"
    text += pad + f"{names[1]}=" + _inner(second, len(pad + f"{names[1]}=tensor(")) + ",\n"
    values = pad + "values=" + _inner(self._data.values, len(pad + "values=tensor("))
    return text + _printing._join_suffixes(values, _suffixes(self), len(pad))
