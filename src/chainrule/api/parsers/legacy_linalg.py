"""The linear-algebra functions PyTorch deprecated in favour of ``torch.linalg``:
``triangular_solve`` and ``lu_solve`` still work (with PyTorch's deprecation warning, their
arguments in the old order), ``solve``, ``lstsq``, ``symeig``, ``eig`` and
``matrix_rank`` raise PyTorch's error saying what replaces them."""

from __future__ import annotations

import warnings

from ..._tensor import Tensor
from ...ops.linalg import inverses, products
from ..args import return_type
from . import linalg

__all__ = ["eig", "lstsq", "lu_solve", "matrix_rank", "solve", "symeig", "triangular_solve"]

_TRIANGULAR_SOLVE = return_type("triangular_solve", ("solution", "cloned_coefficient"))

_REMOVED = "This function was deprecated since version 1.9 and is now removed."


def triangular_solve(
    input: Tensor,
    A: Tensor,  # noqa: N803
    upper: bool = True,
    transpose: bool = False,
    unitriangular: bool = False,
    *,
    out: object = None,
) -> tuple[Tensor, Tensor]:
    """(X, a copy of A) with A X = input (Aᵀ X = input when ``transpose``), A triangular:
    ``linalg.solve_triangular(A, input)`` with the arguments in the old order."""
    warnings.warn(
        "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand "
        "will be removed in a future PyTorch release.\ntorch.linalg.solve_triangular has its "
        "arguments reversed and does not return a copy of one of the inputs.\n"
        "X = torch.triangular_solve(B, A).solution\nshould be replaced with\n"
        "X = torch.linalg.solve_triangular(A, B).",
        UserWarning,
        stacklevel=2,
    )
    linalg._linear_solve_checks(
        input,
        A,
        "triangular_solve",
        (
            "torch.triangular_solve: Expected b to have at least 2 dimensions, but it has {n} "
            "dimensions instead",
            "torch.triangular_solve: Expected A to have at least 2 dimensions, but it has {n} "
            "dimensions instead",
        ),
    )
    linalg._check_kernel("triangular_solve_cpu", A)
    coefficient = products._mT(A) if transpose else A
    solution = inverses.solve_triangular(
        coefficient, input, upper=upper != transpose, left=True, unitriangular=unitriangular
    )
    return _TRIANGULAR_SOLVE(solution, A.clone())


def lu_solve(
    input: Tensor,
    LU_data: Tensor,  # noqa: N803
    LU_pivots: Tensor,  # noqa: N803
    *,
    out: object = None,
) -> Tensor:
    """X with A X = input from A's packed LU factors: ``linalg.lu_solve`` with the
    arguments in the old order."""
    warnings.warn(
        "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in "
        "a future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments "
        "reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be replaced with\n"
        "X = torch.linalg.lu_solve(LU, pivots, B)",
        UserWarning,
        stacklevel=2,
    )
    return linalg.lu_solve(LU_data, LU_pivots, input)


def solve(input: object, A: object = None, *, out: object = None) -> None:  # noqa: N803
    """Removed from PyTorch: its error, naming ``torch.linalg.solve``."""
    raise RuntimeError(
        f"{_REMOVED} `torch.solve` is deprecated in favor of `torch.linalg.solve`. "
        "`torch.linalg.solve` has its arguments reversed and does not return the LU "
        "factorization.\n\nTo get the LU factorization see `torch.lu`, which can be used with "
        "`torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A).solution should be "
        "replaced with:\nX = torch.linalg.solve(A, B)"
    )


def lstsq(input: object, A: object = None, *, out: object = None) -> None:  # noqa: N803
    """Removed from PyTorch: its error, naming ``torch.linalg.lstsq``."""
    raise RuntimeError(
        f"{_REMOVED} `torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n"
        "`torch.linalg.lstsq` has reversed arguments and does not return the QR decomposition "
        "in the returned tuple (although it returns other information about the problem).\n\n"
        "To get the QR decomposition consider using `torch.linalg.qr`.\n\nThe returned "
        "solution in `torch.lstsq` stored the residuals of the solution in the last m - n "
        "columns of the returned value whenever m > n. In torch.linalg.lstsq, the residuals "
        "are in the field 'residuals' of the returned named tuple.\n\nThe unpacking of the "
        "solution, as in\nX, _ = torch.lstsq(B, A).solution[:A.size(1)]\nshould be replaced "
        "with:\nX = torch.linalg.lstsq(A, B).solution"
    )


def symeig(
    input: object, eigenvectors: bool = False, upper: bool = True, *, out: object = None
) -> None:
    """Removed from PyTorch: its error, naming ``torch.linalg.eigh``."""
    raise RuntimeError(
        f"{_REMOVED} The default behavior has changed from using the upper triangular portion "
        "of the matrix by default to using the lower triangular portion.\n\n"
        "L, _ = torch.symeig(A, upper=upper) should be replaced with:\n"
        "L = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\n"
        "L, V = torch.symeig(A, eigenvectors=True) should be replaced with:\n"
        "L, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')"
    )


def eig(input: object, eigenvectors: bool = False, *, out: object = None) -> None:
    """Removed from PyTorch: its error, naming ``torch.linalg.eig``."""
    raise RuntimeError(
        f"{_REMOVED} `torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` "
        "rather than real tensors mimicking complex tensors.\n\nL, _ = torch.eig(A) should be "
        "replaced with:\nL_complex = torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, "
        "eigenvectors=True) should be replaced with:\nL_complex, V_complex = torch.linalg.eig(A)"
    )


def matrix_rank(
    input: object, tol: object = None, symmetric: bool = False, *, out: object = None
) -> None:
    """Removed from PyTorch: its error, naming ``torch.linalg.matrix_rank``."""
    raise RuntimeError(
        f"{_REMOVED}\nPlease use the `torch.linalg.matrix_rank` function instead. The "
        "parameter 'symmetric' was renamed in `torch.linalg.matrix_rank()` to 'hermitian'."
    )
