"""``linalg.ldl_factor``, ``linalg.ldl_factor_ex`` and ``linalg.ldl_solve``: PyTorch's
signatures and checks around the Bunch-Kaufman ops of ``ops/linalg/ldl.py``.

As in PyTorch, ``ldl_factor`` (and ``ldl_factor_ex(check_errors=True)``) meets a singular
D with PyTorch's own internal-assert message ("Unknown error code"); ``ldl_factor_ex``
reports it in ``info`` (the 1-based index of D's first zero pivot)."""

from __future__ import annotations

from typing import Any

from ..._backend import to_host
from ..._dtypes import complex64, complex128, float32, float64, not_implemented
from ..._tensor import Tensor, wrap
from ...ops.linalg import ldl, products
from ..args import require_tensor, return_type
from ..variants import composite_out, out_dtype, write_out

__all__ = ["ldl_factor", "ldl_factor_ex", "ldl_solve"]

_LDL_FACTOR = return_type("linalg_ldl_factor", ("LD", "pivots"))
_LDL_FACTOR_EX = return_type("linalg_ldl_factor_ex", ("LD", "pivots", "info"))


def ldl_factor(A: Tensor, *, hermitian: bool = False, out: object = None) -> Any:
    """(LD, pivots) with P A Pᵀ = L D Lᵀ (Bunch-Kaufman); raises when D is singular."""
    LD, pivots, info = _factor("ldl_factor", A, hermitian)
    _raise_info("ldl_factor", info)
    return _LDL_FACTOR(*_written("linalg_ldl_factor", (LD, pivots), out))


def ldl_factor_ex(
    A: Tensor, *, hermitian: bool = False, check_errors: bool = False, out: object = None
) -> Any:
    """(LD, pivots, info): ``ldl_factor``'s factors and LAPACK's info, 0 or the 1-based
    index of D's first zero pivot."""
    LD, pivots, info = _factor("ldl_factor_ex", A, hermitian)
    if check_errors:
        _raise_info("ldl_factor_ex", info)
    return _LDL_FACTOR_EX(*_written("linalg_ldl_factor_ex", (LD, pivots, info), out))


def ldl_solve(
    LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False, out: object = None
) -> Tensor:
    """X with A X = B, A given by ``ldl_factor``'s (LD, pivots); batches broadcast."""
    name = "torch.linalg.ldl_solve"
    LD = require_tensor("linalg_ldl_solve", LD, name="LD")
    pivots = require_tensor("linalg_ldl_solve", pivots, 2, name="pivots")
    B = require_tensor("linalg_ldl_solve", B, 3, name="B")
    if LD.ndim < 2:
        raise RuntimeError(f"{name}: LD must have at least 2 dimensions, but it has {LD.ndim}")
    if B.ndim == 0:
        raise IndexError("Dimension specified as -2 but tensor has no dimensions")
    if B.ndim < 2:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got -2)")
    if LD.shape[-1] != LD.shape[-2]:
        raise RuntimeError(
            f"{name}: LD must be batches of square matrices, but they are "
            f"{LD.shape[-2]} by {LD.shape[-1]} matrices"
        )
    if tuple(pivots.shape) != tuple(LD.shape[:-1]):
        raise RuntimeError(
            f"{name}: Expected LD.shape[:-1] and pivots.shape to be the same, but got "
            f"pivots with shape {list(pivots.shape)} instead"
        )
    if pivots._dtype.is_floating_point or pivots._dtype.is_complex:
        raise RuntimeError(
            f"{name}: Expected pivots to be integers. Got {pivots._dtype.scalar_name}"
        )
    if B.shape[-2] != LD.shape[-1]:
        raise RuntimeError(
            f"Incompatible matrix sizes for {name}: each A matrix is {LD.shape[-1]} by "
            f"{LD.shape[-1]} but each b matrix is {B.shape[-2]} by {B.shape[-1]}"
        )
    if B._dtype is not LD._dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type "
            f"{B._dtype.scalar_name} and A of type {LD._dtype.scalar_name} instead."
        )
    products._broadcast_batch(tuple(B.shape[:-2]), tuple(LD.shape[:-2]))
    X = ldl.ldl_solve(LD, B, pivots=pivots._data, hermitian=hermitian)
    return _written("linalg_ldl_solve", X, out)


def _written(name: str, results: Any, out: Any) -> Any:
    """``results`` (a tensor or a tuple of them), or written into ``out`` by the shared
    out= (``api/variants.write_out``): out of the results' dtypes, copied with the graph
    where they require grad, as PyTorch's composite does."""
    if out is None:
        return results

    def computed() -> Any:
        return results

    return write_out(name, composite_out(out_dtype(computed)), (), {}, out)


def _factor(name: str, A: Tensor, hermitian: bool) -> tuple[Tensor, Tensor, Tensor]:
    A = require_tensor(f"linalg_{name}", A, name="A")
    where = "torch.linalg.ldl_factor_ex"
    if A.ndim < 2:
        raise RuntimeError(f"{where}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"{where}: A must be batches of square matrices, but they are "
            f"{A.shape[-2]} by {A.shape[-1]} matrices"
        )
    if A._dtype._category >= 2 and A._dtype not in (float32, float64, complex64, complex128):
        raise not_implemented("ldl_factor_kernel_cpu", A._dtype)
    if A._dtype not in (float32, float64, complex64, complex128):
        raise RuntimeError(
            f"{where}: Expected a floating point or complex tensor as input. "
            f"Got {A._dtype.scalar_name}"
        )
    from .linalg import _sharing

    with _sharing():  # the LD op and the pivots share one factorization
        _, pivots, info = ldl.ldl_factor_arrays(A._data, hermitian)
        return ldl.ldl_ld(A, hermitian=hermitian), wrap(pivots), wrap(info)


def _raise_info(name: str, info: Tensor) -> None:
    """PyTorch's message for a singular D: its LAPACK error handling has no case for it."""
    flat = to_host(info._data).reshape(-1)
    bad = flat.nonzero()[0]
    if bad.size:
        raise RuntimeError(
            'false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/native/'
            'BatchLinearAlgebra.cpp":1642, please report a bug to PyTorch. '
            f"torch.linalg.{name}: Unknown error code: {int(flat[bad[0]])}."
        )
