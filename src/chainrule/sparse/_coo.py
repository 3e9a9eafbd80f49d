"""The sparse COO array: what a sparse tensor holds, and the form its gradients take in the
engine.

``COO`` is to a sparse tensor what an ndarray is to a dense one: ``indices`` (int64, one
row per sparse dim, one column per specified element), ``values`` (an ndarray, one entry
per column, each of the dense dims' shape), the dense ``shape`` and whether the indices are
coalesced (sorted, without repeats). The engine adds gradients with ``+`` and into a dense
``.grad`` with ``+=``: a COO answers both (``np.add`` reaches it through
``__array_ufunc__``), so a sparse gradient (an embedding's with ``sparse=True``) flows
through the engine unchanged; every other NumPy call on it raises PyTorch's error for a
sparse operand. The engine turns a COO it stores as ``.grad`` into a tensor with
``as_grad``.
"""

from __future__ import annotations

from typing import Any

from .._backend import xp

ndarray = xp.ndarray


def not_on_sparse(name: str, backend: str = "SparseCPU") -> NotImplementedError:
    """PyTorch's error for an operator without a sparse kernel."""
    return NotImplementedError(
        f"Could not run 'aten::{name}' with arguments from the '{backend}' backend. This could "
        "be because the operator doesn't exist for this backend, or was omitted during the "
        "selective/custom build process (if using custom build)."
    )


def linear_index(indices: ndarray, shape: tuple) -> ndarray:
    """Each column of ``indices`` as one row-major index into ``shape`` (its sparse dims)."""
    if indices.shape[0] == 0:
        return xp.zeros(indices.shape[1], dtype=xp.int64)
    return xp.ravel_multi_index(tuple(indices), shape[: indices.shape[0]])


class COO:
    """A sparse array in coordinate form: dense[indices[:, k]] += values[k] for each k."""

    __slots__ = ("indices", "values", "shape", "coalesced", "orders")
    is_sparse = True

    def __init__(self, indices: ndarray, values: ndarray, shape: tuple, coalesced: bool) -> None:
        self.indices = indices
        self.values = values
        self.shape = tuple(shape)
        self.coalesced = coalesced
        self.orders: tuple | None = None  # (rows' and columns' sort orders: products)

    @property
    def dtype(self) -> Any:
        return self.values.dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    def copy(self) -> COO:
        return COO(self.indices.copy(), self.values.copy(), self.shape, self.coalesced)

    def astype(self, dtype: Any, copy: bool = True) -> COO:
        return COO(self.indices, self.values.astype(dtype), self.shape, self.coalesced)

    def to_dense(self) -> ndarray:
        out = xp.zeros(self.shape, dtype=self.values.dtype)
        xp.add.at(out, tuple(self.indices), self.values)
        return out

    def coalesce(self) -> COO:
        """The same array with sorted, unique indices (repeated ones' values summed)."""
        if self.coalesced:
            return self
        keys = linear_index(self.indices, self.shape)
        unique, first, inverse = xp.unique(keys, return_index=True, return_inverse=True)
        values = xp.zeros((len(unique), *self.values.shape[1:]), dtype=self.values.dtype)
        xp.add.at(values, inverse.reshape(-1), self.values)
        return COO(self.indices[:, first], values, self.shape, True)

    # ----- what the engine does with gradients: sums ---------------------------------

    def __add__(self, other: Any) -> Any:
        if isinstance(other, COO):
            if other.shape != self.shape:
                raise RuntimeError(
                    f"add: expected 'self' and 'other' to have same size, but self has size "
                    f"{list(self.shape)} while other has size {list(other.shape)}"
                )
            return COO(
                xp.concatenate([self.indices, other.indices], axis=1),
                xp.concatenate([self.values, other.values.astype(self.dtype, copy=False)]),
                self.shape,
                False,
            )
        return xp.add(other, self)

    __radd__ = __add__
    __iadd__ = __add__

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """``dense + sparse`` (``out=``: in place, as ``.grad += g``): the dense array with the
        values added at the indices. Any other ufunc: PyTorch's error."""
        if ufunc is xp.add and method == "__call__" and len(inputs) == 2:
            dense, sparse = inputs if isinstance(inputs[1], COO) else inputs[::-1]
            if not isinstance(sparse, COO) or isinstance(dense, COO):
                return sparse + dense
            out = kwargs.get("out")
            if out is not None:
                target = out[0]
            else:
                dtype = xp.result_type(dense, sparse.values)
                target = xp.array(xp.broadcast_to(dense, sparse.shape), dtype=dtype)
            xp.add.at(target, tuple(sparse.indices), sparse.values)
            return target
        raise not_on_sparse(ufunc.__name__)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        raise not_on_sparse(func.__name__)

    def __array__(self, dtype: Any = None, copy: Any = None) -> ndarray:
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")

    def as_grad(self, dtype: Any) -> Any:
        """This gradient as the sparse tensor a leaf's ``.grad`` holds."""
        from ._tensor import from_coo

        return from_coo(self, dtype)
