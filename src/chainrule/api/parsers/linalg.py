"""PyTorch's signatures for the linear algebra: ``chainrule.*`` and
``chainrule.linalg`` functions, their checks and errors, results as named tuples, and the
compositions PyTorch defines in terms of other public functions (matrix_power, multi_dot,
cond, matrix_rank, the norms)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ... import _dtypes
from ..._backend import on_device_of, to_host, xp
from ..._dtypes import complex64, complex128, float32, float64, not_implemented
from ..._tensor import Tensor, wrap
from ...amp import policy
from ...amp.policy import runs_in_float32
from ...autograd.entries import matmul_entry
from ...autograd.recording import np_dtype
from ...ops import complex_parts, joining, logical, reductions, shapes, unary
from ...ops.linalg import factorizations, inverses, matrices, products
from ..args import require_tensor, return_type, tensor_arg
from .linalg_norms import (  # noqa: F401 - the table's and other parsers' names for them
    _composite_into,
    matrix_norm,
    norm,
    norm_in_dtype,
    torch_norm_into,
    vector_norm,
    vector_norm_input,
)

if TYPE_CHECKING:
    from ...autograd.recording import Op
    from ..args import (
        PLU,
        QR,
        SVD,
        Eigh,
        InverseInfo,
        LInfo,
        Lstsq,
        LUPivots,
        LUPivotsInfo,
        ResultInfo,
        SignLogAbsDet,
        SVDh,
    )


def t(input: Tensor) -> Tensor:
    """The transpose of a tensor of at most 2 dims (a matrix's in one call:
    entries.view_entry; anything else through shapes.t)."""
    return products._t_matrix(input)


class _sharing:
    def __enter__(self) -> None:
        inverses._shared.active, inverses._shared.factors = True, {}

    def __exit__(self, *exc) -> None:
        inverses._shared.active, inverses._shared.factors = False, None


def _is_vector_rhs(a_shape: tuple, b_shape: tuple) -> bool:
    """linalg.solve's rule: B is a (batch of) vector(s) when 1-D or of shape A.shape[:-1]."""
    return len(b_shape) == 1 or (
        len(b_shape) == len(a_shape) - 1 and tuple(b_shape) == tuple(a_shape[:-1])
    )


# ----- products, parts, inverses, factorizations ------------------------------------------------


def bmm(input: Tensor, mat2: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: F811 - the public function over the op
    """The batched matrix product of two (b, n, k) and (b, k, m) tensors."""
    return products.bmm(require_tensor("bmm", input), require_tensor("bmm", mat2, 2, "mat2"))


def mv(input: Tensor, vec: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: F811
    """The product of a matrix and a vector."""
    return products.mv(require_tensor("mv", input), require_tensor("mv", vec, 2, "vec"))


def dot(input: Tensor, tensor: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: F811
    """The dot product of two 1-D tensors (no broadcasting)."""
    return products.dot(require_tensor("dot", input), require_tensor("dot", tensor, 2, "tensor"))


def vdot(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Σᵢ conj(input)ᵢ otherᵢ: the dot product, conjugating its first argument."""
    return products.vdot(require_tensor("vdot", input), require_tensor("vdot", other, 2, "other"))


def matmul(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: F811
    """The matrix product with PyTorch's rules for 1-D and batched operands."""
    return products.matmul(input, tensor_arg(other))


def mm(input: Tensor, mat2: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: F811
    """The product of two 2-D tensors."""
    return products.mm(input, mat2)


def _addmm_family(op: Op, name: str) -> Callable[..., Tensor]:
    def fn(
        input: Tensor,
        a: Tensor,
        b: Tensor,
        *,
        beta: float = 1,
        alpha: float = 1,
        out: Tensor | None = None,
    ) -> Tensor:
        return op(input, a, b, beta=beta, alpha=alpha)

    fn.__name__ = name
    fn.__doc__ = f"beta · input + alpha · (the product of the other two): PyTorch's {name}."
    return fn


addmm = _addmm_family(products.addmm, "addmm")

addmv = _addmm_family(products.addmv, "addmv")

addr = _addmm_family(products.addr, "addr")

baddbmm = _addmm_family(products.baddbmm, "baddbmm")

addbmm = _addmm_family(products.addbmm, "addbmm")


def outer(input: Tensor, vec2: Tensor, *, out: Tensor | None = None) -> Tensor:
    """input ⊗ vec2: the matrix of products input[i] * vec2[j]."""
    for name, v in (("self", input), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v.ndim}-D")
    return inverses._unsq(input, -1) * vec2


def trace(input: Tensor) -> Tensor:
    """The sum of the main diagonal of a matrix."""
    return matrices.trace(require_tensor("trace", input))


def diag(input: Tensor, diagonal: int = 0, *, out: Tensor | None = None) -> Tensor:
    """A vector's diagonal matrix, or a matrix's diagonal (``diagonal`` above or below)."""
    if input.ndim == 1:
        return matrices.diag_embed(input, offset=diagonal, dim1=0, dim2=1)
    if input.ndim == 2:
        return matrices.diagonal_copy(input, offset=diagonal, dim1=0, dim2=1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Matrices (over dim1, dim2) with input's last dim on their diagonal ``offset``."""
    nd = input.ndim + 1
    d1, d2 = reductions.dims_of(dim1, nd)[0], reductions.dims_of(dim2, nd)[0]
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return matrices.diag_embed(input, offset=offset, dim1=d1, dim2=d2)


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """The diagonal matrix of input's flattened entries."""
    return matrices.diag_embed(shapes.reshape(input, (-1,)), offset=offset, dim1=0, dim2=1)


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal over dims (dim1, dim2), as the last dim: a view."""
    nd = max(input.ndim, 1)  # a 0-d tensor takes dims -1 and 0, which are the same
    d1, d2 = reductions.dims_of(dim1, nd)[0], reductions.dims_of(dim2, nd)[0]
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return matrices.diagonal(input, offset=offset, dim1=d1, dim2=d2)


def tril(input: Tensor, diagonal: int = 0, *, out: Tensor | None = None) -> Tensor:
    """The lower triangle (on and below the diagonal ``diagonal``) of the last two dims."""
    return matrices.tril(input, diagonal=diagonal)


def triu(input: Tensor, diagonal: int = 0, *, out: Tensor | None = None) -> Tensor:
    """The upper triangle (on and above the diagonal ``diagonal``) of the last two dims."""
    return matrices.triu(input, diagonal=diagonal)


def _cross_dim(input: Tensor, other: Tensor, dim: int) -> int:
    """dim, checked and counted from the end (so it names the same dim in both inputs)."""
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if _dtypes.bool in (input._dtype, other._dtype):
        raise not_implemented("cross", _dtypes.bool)
    d = reductions.dims_of(dim, input.ndim)[0]
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[d]} "
            f"and {other.shape[d]}"
        )
    return d - input.ndim


def cross(
    input: Tensor, other: Tensor, dim: int | None = None, *, out: Tensor | None = None
) -> Tensor:
    """input × other along dim (by default the first dim of size 3)."""
    if dim is None:
        import warnings

        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either "
            "pass the dim explicitly or simply use torch.linalg.cross.\nThe default value of "
            "dim will change to agree with that of linalg.cross in a future release.",
            UserWarning,
            stacklevel=2,
        )
        shape = xp.broadcast_shapes(tuple(input.shape), tuple(other.shape))
        dim = next((i for i, s in enumerate(shape) if s == 3), -1)
    return matrices.cross(input, other, dim=_cross_dim(input, other, dim))


def linalg_cross(
    input: Tensor, other: Tensor, *, dim: int = -1, out: Tensor | None = None
) -> Tensor:
    """input × other along dim (of size 3), broadcasting."""
    return matrices.cross(input, other, dim=_cross_dim(input, other, dim))


def inv(A: Tensor, *, out: Tensor | None = None) -> Tensor:
    """A⁻¹ for a (batch of) square matrices."""
    return inverses.inv(require_tensor("linalg_inv", A, name="A"))


def det(A: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The determinant of a (batch of) square matrices."""
    return inverses.det(require_tensor("linalg_det", A, name="A"))


_SLOGDET = return_type("slogdet", ("sign", "logabsdet"))

_LINALG_SLOGDET = return_type("linalg_slogdet", ("sign", "logabsdet"))

_LINALG_EIGH = return_type("linalg_eigh", ("eigenvalues", "eigenvectors"))

_LINALG_SVD = return_type("linalg_svd", ("U", "S", "Vh"))

_SVD = return_type("svd", ("U", "S", "V"))

_LINALG_QR = return_type("linalg_qr", ("Q", "R"))

_QR = return_type("qr", ("Q", "R"))


def linalg_slogdet(A: Tensor, *, out: Tensor | None = None) -> SignLogAbsDet:
    """(sign, log |det A|): the determinant without overflow."""
    A = require_tensor("linalg_slogdet", A, name="A")
    with _sharing():
        return _LINALG_SLOGDET(inverses.det_sign(A), inverses.logabsdet(A))


def slogdet(input: Tensor) -> SignLogAbsDet:
    """(sign, log |det input|)."""
    with _sharing():
        return _SLOGDET(inverses.det_sign(input), inverses.logabsdet(input))


def logdet(input: Tensor) -> Tensor:
    """log det input: nan where the determinant is negative, -inf where it is 0; for a
    complex input the complex log, log |det| + i arg det."""
    inverses._check_matrix("logdet", input._data, prefix="")
    with _sharing():
        sign, logabs = inverses.det_sign(input), inverses.logabsdet(input)
    if input.is_complex():
        return complex_parts.complex_from_parts(logabs, complex_parts.angle(sign))
    return logical.where(sign < 0, math.nan, logabs)


def solve(A: Tensor, B: Tensor, *, left: bool = True, out: Tensor | None = None) -> Tensor:
    """X with A X = B, or X A = B (B a matrix, a vector, or batches of them)."""
    A = require_tensor("linalg_solve", A, name="A")
    B = require_tensor("linalg_solve", B, 2, "B")
    A, B = policy.cast_early("solve", A, B)  # (autocast casts before the checks)
    vector = _check_solve(A, B, left)
    if not left:  # X A = B as Aᵀ Xᵀ = Bᵀ
        return products._mT(inverses.solve(products._mT(A), products._mT(B), vector=False))
    return inverses.solve(A, B, vector=vector)


def _check_solve(A: Tensor, B: Tensor, left: bool) -> bool:
    """linalg.solve's checks, in PyTorch's order; whether B is a (batch of) vector(s)."""
    inverses._check_floating("solve", A._data, low_precision=True)
    if A._dtype is not B._dtype:
        raise RuntimeError(
            "linalg.solve: Expected A and B to have the same dtype, but found A of type "
            f"{A._dtype.scalar_name} and B of type {B._dtype.scalar_name} instead"
        )
    vector = _is_vector_rhs(tuple(A.shape), tuple(B.shape))
    _check_solver("linalg.solve", A, tuple(B.shape) + ((1,) if vector else ()), left)
    if A._dtype.itemsize < 4:
        raise not_implemented("lu_cpu", A._dtype)
    return vector


def _check_solver(name: str, A: Tensor, b_shape: tuple, left: bool) -> None:
    """PyTorch's checkInputsSolver: A square matrices, B matrices, of shapes that fit A X = B
    (X A = B when not ``left``), batches that broadcast."""
    inverses._check_matrix(name, A._data, floating=False, prefix="")
    if len(b_shape) < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    if A.shape[-2 if left else -1] != b_shape[-2 if left else -1]:
        raise RuntimeError(
            f"{name}: Incompatible shapes of A and B for the equation "
            f"{'AX' if left else 'XA'} = B ({A.shape[-2]}x{A.shape[-1]} and "
            f"{b_shape[-2]}x{b_shape[-1]})"
        )
    products._broadcast_batch(b_shape[:-2], tuple(A.shape[:-2]))


def linalg_cholesky(A: Tensor, *, upper: bool = False, out: Tensor | None = None) -> Tensor:
    """The lower-triangular L with A = L Lᵀ (A symmetric positive-definite)."""
    return factorizations.cholesky(require_tensor("linalg_cholesky", A, name="A"), upper=upper)


def solve_triangular(
    A: Tensor,
    B: Tensor,
    *,
    upper: bool,
    left: bool = True,
    unitriangular: bool = False,
    out: Tensor | None = None,
) -> Tensor:
    """X with A X = B (or X A = B), A triangular; B is taken in A's dtype, as PyTorch's."""
    A = require_tensor("linalg_solve_triangular", A)
    B = require_tensor("linalg_solve_triangular", B, 2, "B")
    _check_solver("linalg.solve_triangular", A, tuple(B.shape), left)
    _check_kernel("triangular_solve_cpu", A)
    if B._dtype is not A._dtype:
        B = B.to(A._dtype)
    return inverses.solve_triangular(A, B, upper=upper, left=left, unitriangular=unitriangular)


def _check_kernel(kernel: str, A: Tensor) -> None:
    """The refusal of a LAPACK-backed CPU kernel for dtypes it has no version for."""
    if A._dtype not in (float32, float64, complex64, complex128):
        raise not_implemented(kernel, A._dtype)


def cholesky(input: Tensor, upper: bool = False, *, out: Tensor | None = None) -> Tensor:
    """torch.cholesky (deprecated in PyTorch in favour of linalg.cholesky)."""
    import warnings

    warnings.warn(
        "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed "
        "in a future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\n"
        "L = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\nshould be "
        "replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce "
        "equivalent results for all valid (symmetric positive definite) inputs.",
        UserWarning,
        stacklevel=2,
    )
    return factorizations.cholesky_legacy(input, upper=upper)


def matrix_rank(
    A: Tensor,
    tol: float | Tensor | None = None,
    hermitian: bool = False,
    *,
    atol: float | Tensor | None = None,
    rtol: float | Tensor | None = None,
    out: Tensor | None = None,
) -> Tensor:
    """The number of singular values (|eigenvalues| when ``hermitian``) above max(atol,
    rtol · their largest), an int64 tensor; ``tol`` (PyTorch's older form) is atol, rtol 0."""
    name = "torch.linalg.matrix_rank"
    if tol is not None:
        if atol is not None or rtol is not None:
            raise TypeError(
                "linalg_matrix_rank() received an invalid combination of arguments: tol with "
                "atol or rtol"
            )
        atol, rtol = tol, 0.0
    A = require_tensor("linalg_matrix_rank", A)
    data = A._data
    if data.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor input must have at least 2 dimensions.")
    atol, rtol = _tolerance_args(name, atol, rtol)
    with on_device_of(data):  # (the tolerances where A is)
        atol, rtol = inverses.tolerances(data, atol, rtol)
        if data.size == 0:
            return wrap(xp.zeros(data.shape[:-2], dtype=xp.int64))
    if hermitian:
        s = xp.abs(factorizations.eigvalsh(A)._data)
        s_max = s.max(axis=-1, keepdims=True)
    else:
        s = factorizations.svdvals(A)._data
        s_max = s[..., :1]
    return wrap(xp.sum(inverses.kept_values(s, s_max, atol, rtol), axis=-1).astype(xp.int64))


def _tolerance_args(name: str, atol: Any, rtol: Any) -> tuple:
    """pinv's and matrix_rank's atol and rtol as numbers or arrays (tensors: not complex)."""
    out = []
    for label, value in (("atol", atol), ("rtol", rtol)):
        if isinstance(value, Tensor):
            if value.is_complex():
                raise RuntimeError(
                    f"{name}: {label} tensor of complex type is not supported. Got "
                    f"{value._dtype.scalar_name}"
                )
            value = value._data
        out.append(value)
    return tuple(out)


_LINALG_LSTSQ = return_type("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))


@runs_in_float32  # (inside a CPU autocast: float32 as a whole, as PyTorch)
def lstsq(A: Tensor, B: Tensor, rcond: float | None = None, *, driver: str | None = None) -> Lstsq:
    """The least-squares solution of A X = B, with PyTorch's (solution, residuals, rank,
    singular_values); which of the last three are filled depends on the driver. B is a
    batch of matrices, or (one dim fewer than A) of vectors."""
    name = "torch.linalg.lstsq"
    A = require_tensor("linalg_lstsq", A)
    B = require_tensor("linalg_lstsq", B, 2, "b")
    if A.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if B.ndim < 1:
        raise RuntimeError(f"{name}: other must have at least 1 dimension.")
    if A._dtype is not B._dtype:
        raise RuntimeError(
            f"{name}: Expected input and other to have the same dtype, but got input's dtype "
            f"{A._dtype.scalar_name} and other's dtype {B._dtype.scalar_name}"
        )
    vector = A.ndim - B.ndim == 1
    if not 0 <= A.ndim - B.ndim <= 1:
        raise RuntimeError(
            f"{name}: input.dim() must be greater or equal to other.dim() and "
            "(input.dim() - other.dim()) <= 1"
        )
    if A.shape[-2] != B.shape[-1 if vector else -2]:
        raise RuntimeError(
            f"{name}: input.size(-2) should match other.size({-1 if vector else -2})"
        )
    if rcond is None:  # (LAPACK's default: eps · max(m, n))
        rcond = float(inverses.tolerances(A._data)[1])
    driver = driver or "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(
            "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)"
        )
    products._broadcast_batch(tuple(A.shape[:-2]), tuple(B.shape[: -1 if vector else -2]))
    if vector:  # (a batch of vectors: as columns, as LAPACK's; residuals of shape (..., 1))
        B = inverses._unsq(B, -1)
    solution = inverses.lstsq(A, B, rcond=rcond)
    with on_device_of(A._data):
        real = xp.zeros((), dtype=np_dtype(A)).real.dtype
        empty = wrap(xp.zeros((0,), dtype=real))
        no_rank = wrap(xp.zeros((0,), dtype=xp.int64))
    m, n = A.shape[-2], A.shape[-1]
    rank = matrix_rank(A, atol=0.0, rtol=rcond) if driver != "gels" else no_rank
    # (no residuals: an empty tensor, in the graph where the solution is, as PyTorch's)
    flat = shapes.reshape(solution, (-1,))
    flat = complex_parts.real(flat) if flat.is_complex() else flat
    residuals = inverses._getitem(flat, (slice(0, 0),))
    if driver != "gelsy" and m > n and bool((rank._data == n).all()):
        residual = A @ solution - B
        if residual.is_complex():  # |r|² = Re(r r̄)
            residual = complex_parts.real(residual * complex_parts.conj_physical(residual))
        else:
            residual = residual * residual
        residuals = reductions.sum(residual, dim=-2)
    values = empty
    if driver in ("gelsd", "gelss"):
        with on_device_of(A._data):
            values = wrap(xp.linalg.svd(A._data, compute_uv=False))
    if vector:
        solution = inverses._getitem(solution, (Ellipsis, 0))
    return _LINALG_LSTSQ(solution, residuals, rank, values)


def matrix_exp(A: Tensor) -> Tensor:
    """e^A for a (batch of) square matrices."""
    return factorizations.matrix_exp(require_tensor("linalg_matrix_exp", A, name="A"))


def cond(A: Tensor, p: float | str | None = None, *, out: Tensor | None = None) -> Tensor:
    """The condition number ‖A‖ ‖A⁻¹‖ (for p None or ±2: s_max / s_min, or its inverse); 0 for
    an empty A, inf for a singular one, as PyTorch computes it."""
    A = require_tensor("linalg_cond", A, name="A")
    if isinstance(p, str):  # 'fro' or 'nuc': square matrices only, even empty ones
        inverses._check_matrix(f"cond(ord={p})", A._data, floating=False)
    if A.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    order = 2 if p is None else p
    if order not in ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf):
        shown = order if isinstance(order, str) else f"{order:g}"
        raise RuntimeError(f"linalg.cond got an invalid norm type: {shown}")
    if A.numel() == 0:  # (no graph: PyTorch's zeros)
        with on_device_of(A._data):
            real = xp.zeros((), dtype=np_dtype(A)).real.dtype
            return wrap(xp.zeros(tuple(A.shape[:-2]), dtype=real))
    if order in (2, -2):
        s = factorizations.svdvals(A)
        first, last = inverses._getitem(s, (Ellipsis, 0)), inverses._getitem(s, (Ellipsis, -1))
        return first / last if order == 2 else last / first
    if order == "nuc":  # (the definition: matrix_norm's 'nuc' of A⁻¹ would fail at inf)
        s = factorizations.svdvals(A)
        return reductions.sum(s, dim=-1) * reductions.sum(1 / s, dim=-1)
    if not isinstance(p, str):  # (the order as C++ prints it: 1, 1.000000, inf)
        shown = str(p) if isinstance(p, int) else f"{p:f}"
        inverses._check_matrix(f"cond(ord={shown})", A._data, floating=False)
    inverse, info = inv_ex(A)
    inverse = logical.where(inverses._unsq(inverses._unsq(info, -1), -1) > 0, math.inf, inverse)
    product = matrix_norm(A, order) * matrix_norm(inverse, order)
    # (0 · inf: inf, as NumPy's)
    return unary.nan_to_num(product, nan=math.inf, posinf=math.inf, neginf=-math.inf)


_INV_EX = return_type("linalg_inv_ex", ("inverse", "info"))

_CHOLESKY_EX = return_type("linalg_cholesky_ex", ("L", "info"))

_SOLVE_EX = return_type("linalg_solve_ex", ("result", "info"))


def _info(A: Tensor, failed: Callable[[Any], int]) -> Tensor:
    """LAPACK's info per matrix: 0, or the order at which it failed."""
    data = A._data
    with on_device_of(data):  # the infos where A is
        info = xp.array([failed(a) for a in inverses._matrices(data)], dtype=xp.int32)
        return wrap(info.reshape(data.shape[:-2]))


def _pivot_info(a: Any) -> int:
    return inverses._first_zero_pivot(a) if inverses._is_singular(a) else 0


def inv_ex(A: Tensor, *, check_errors: bool = False, out: Tensor | None = None) -> InverseInfo:
    """(inverse, info): info is 0, or the first zero pivot of a singular matrix (whose
    inverse is then nan)."""
    inverses._check_matrix("inv", A._data)
    info = _info(A, _pivot_info)
    if not info._data.any():
        return _INV_EX(inverses.inv(A), info)
    if check_errors:
        inverses.inv(A)  # raises PyTorch's error
    ok = wrap((info._data == 0)[..., None, None])
    safe = logical.where(ok, A, wrap(inverses._eye(A.shape[-1], A._data)))
    # (a singular matrix's inverse: NaN, and so is its gradient, as PyTorch's)
    return _INV_EX(logical.where(ok, inverses.inv(safe), A * math.nan), info)


def cholesky_ex(
    A: Tensor, *, upper: bool = False, check_errors: bool = False, out: Tensor | None = None
) -> LInfo:
    """(L, info): info is 0, or the order of the first leading minor that is not
    positive-definite; L is then LAPACK's partial factor (potf2 stopped at that order)."""
    inverses._check_matrix("cholesky", A._data, kernel="cholesky_cpu")
    read = factorizations._hermitian_read(A._data, upper)
    partial = [factorizations.potf2(a) for a in inverses._matrices(to_host(read))]
    with on_device_of(A._data):  # the infos where A is
        info = wrap(xp.asarray([i for _, i in partial], dtype=xp.int32).reshape(A.shape[:-2]))
    if not info._data.any():
        return _CHOLESKY_EX(factorizations.cholesky(A, upper=upper), info)
    if check_errors:
        raise factorizations.not_positive_definite(read, "linalg.cholesky_ex")
    factors = xp.stack([f for f, _ in partial]).reshape(A.shape) if partial else read
    if upper:
        factors = xp.conj(factorizations._mT_array(factors))
    ok = wrap((info._data == 0)[..., None, None])
    safe = logical.where(ok, A, wrap(inverses._eye(A.shape[-1], A._data)))
    with on_device_of(A._data):
        stopped = wrap(xp.asarray(factors))
    return _CHOLESKY_EX(
        logical.where(ok, factorizations.cholesky(safe, upper=upper), stopped), info
    )


def solve_ex(
    A: Tensor,
    B: Tensor,
    *,
    left: bool = True,
    check_errors: bool = False,
    out: Tensor | None = None,
) -> ResultInfo:
    """(result, info): info is 0, or the first zero pivot of a singular A."""
    A, B = policy.cast_early("solve", A, B)
    _check_solve(A, B, left)
    info = _info(A, _pivot_info)
    if info._data.any() and check_errors:
        solve(A, B, left=left)
    return _SOLVE_EX(solve(A, B, left=left), info)


_LINALG_LU = return_type("linalg_lu", ("P", "L", "U"))

_LINALG_LU_FACTOR = return_type("linalg_lu_factor", ("LU", "pivots"))

_LINALG_LU_FACTOR_EX = return_type("linalg_lu_factor_ex", ("LU", "pivots", "info"))

_LU_UNPACK = return_type("lu_unpack", ("P", "L", "U"))


def linalg_lu(A: Tensor, *, pivot: bool = True, out: Tensor | None = None) -> PLU:
    """(P, L, U) with A = P L U: L unit lower triangular, U upper triangular."""
    A = require_tensor("linalg_lu", A, name="A")
    if not pivot:
        _no_pivot_lu(A)
        with on_device_of(A._data):  # (A is empty: no P, and L, U empty as A's)
            p = wrap(xp.zeros((0,), dtype=A._data.dtype))
        m, n = A.shape[-2], A.shape[-1]
        k = min(m, n)
        batch = tuple(A.shape[:-2])
        empty = shapes.reshape(A * 0, (-1,))
        return _LINALG_LU(p, *(shapes.reshape(empty, batch + s) for s in ((m, k), (k, n))))
    if A.ndim < 2:
        raise RuntimeError(
            f"linalg.lu: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} "
            "instead"
        )
    _check_kernel("lu_cpu", A)
    with _sharing(), on_device_of(A._data):  # P is made where A is
        p = wrap(inverses._factor(("lu",), A._data, lambda: factorizations._plu(A._data))[0])
        return _LINALG_LU(p, factorizations.lu_l(A), factorizations.lu_u(A))


def lu_factor(A: Tensor, *, pivot: bool = True, out: Tensor | None = None) -> LUPivots:
    """(LU, pivots): L and U packed in one matrix, and LAPACK's 1-based row swaps; a zero
    on U's diagonal raises (``lu_factor_ex`` reports it instead)."""
    LU, pivots, info = _lu_factor_info("lu_factor", A, pivot)
    _raise_zero_pivot("lu_factor", info)
    return _LINALG_LU_FACTOR(LU, pivots)


def lu_factor_ex(
    A: Tensor, *, pivot: bool = True, check_errors: bool = False, out: Tensor | None = None
) -> LUPivotsInfo:
    """(LU, pivots, info): ``lu_factor``'s factors and LAPACK's info per matrix, 0 or the
    1-based index of the first zero on U's diagonal (raised when ``check_errors``)."""
    LU, pivots, info = _lu_factor_info("lu_factor_ex", A, pivot)
    if check_errors:
        _raise_zero_pivot("lu_factor_ex", info)
    return _LINALG_LU_FACTOR_EX(LU, pivots, info)


def _no_pivot_lu(A: Tensor) -> None:
    """LU without pivoting: PyTorch's CPU refuses it, but for an empty A (nothing to do)."""
    if A.numel() != 0:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")


def _lu_factor_info(name: str, A: Tensor, pivot: bool) -> tuple[Tensor, Tensor, Tensor]:
    A = require_tensor(f"linalg_{name}", A, name="A")
    if not pivot:
        _no_pivot_lu(A)
    if A.ndim < 2:
        raise RuntimeError(
            "torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: "
            f"{list(A.shape)} instead"
        )
    if A._dtype not in (float32, float64, complex64, complex128):
        raise not_implemented("lu_cpu", A._dtype)
    with _sharing(), on_device_of(A._data):  # the pivots and infos are made where A is
        packed, pivots = inverses._factor(
            ("lu_factor",), A._data, lambda: factorizations._lu_compact(A._data)
        )
        k = pivots.shape[-1]
        zero = packed[..., range(k), range(k)] == 0
        # (argmax of an empty row raises: k = 0 has no zero pivot)
        first = (zero.argmax(-1) + 1) * zero.any(-1) if k else xp.zeros(zero.shape[:-1])
        first = first.astype(xp.int32)
        return factorizations.lu_packed(A), wrap(pivots), wrap(first)


def _raise_zero_pivot(name: str, info: Tensor) -> None:
    """PyTorch's error for the first matrix whose U has a zero on its diagonal."""
    flat = to_host(info._data).reshape(-1)
    bad = flat.nonzero()[0]
    if not bad.size:
        return
    b = int(bad[0])
    where = f"(Batch element {b}): " if info.ndim else ""
    i = int(flat[b])
    raise RuntimeError(
        f"torch.linalg.{name}: {where}U[{i},{i}] is zero and using it on lu_solve would result "
        "in a division by zero. If you still want to perform the factorization, consider "
        "calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
    )


def lu(
    A: Tensor, pivot: bool = True, get_infos: bool = False, out: Tensor | None = None
) -> tuple[Tensor, ...]:
    """torch.lu (deprecated in PyTorch): (LU, pivots), and the infos when ``get_infos``."""
    import warnings

    warnings.warn(
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex "
        "and will be removed in a future PyTorch release.",
        UserWarning,
        stacklevel=2,
    )
    # (PyTorch's torch.lu is lu_factor_ex that never checks: a singular A raises nothing)
    packed, pivots, infos = lu_factor_ex(A, pivot=pivot)
    return (packed, pivots, infos) if get_infos else (packed, pivots)


def lu_unpack(
    LU_data: Tensor,
    LU_pivots: Tensor,
    unpack_data: bool = True,
    unpack_pivots: bool = True,
    *,
    out: Tensor | None = None,
) -> PLU:  # noqa: N803
    """(P, L, U) from lu_factor's packed factors; what is not unpacked is an empty tensor."""
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    k = min(m, n)
    with on_device_of(LU_data._data):
        low = up = wrap(xp.zeros((0,), dtype=np_dtype(LU_data)))
    p = low
    if unpack_data:
        low = matrices.tril(
            inverses._getitem(LU_data, (Ellipsis, slice(None, k))), diagonal=-1
        ) + inverses._eye(m, LU_data, k)
        up = matrices.triu(
            inverses._getitem(LU_data, (Ellipsis, slice(None, k), slice(None))), diagonal=0
        )
    if unpack_pivots:
        with on_device_of(LU_pivots._data):  # P is made where the pivots are
            p = wrap(factorizations._permutation(LU_pivots._data, m, np_dtype(LU_data)))
    return _LU_UNPACK(p, low, up)


@runs_in_float32  # (inside a CPU autocast: float32 as a whole, as PyTorch)
def lu_solve(
    LU: Tensor,
    pivots: Tensor,
    B: Tensor,
    *,
    left: bool = True,
    adjoint: bool = False,
    out: Tensor | None = None,
) -> Tensor:  # noqa: N803
    """X with A X = B (or X A = B, or with Aᴴ) from A's packed LU factors."""
    LU = require_tensor("linalg_lu_solve", LU, name="LU")
    pivots = require_tensor("linalg_lu_solve", pivots, 2, "pivots")
    B = require_tensor("linalg_lu_solve", B, 3, "B")
    _check_lu_solve(LU, pivots, B, left)
    if not left:  # X A = B is Aᵀ Xᵀ = Bᵀ; X Aᴴ = B is A Xᴴ = Bᴴ
        if adjoint:
            return inverses._mH(_lu_solve_left(LU, pivots, inverses._mH(B), None))
        return products._mT(_lu_solve_left(LU, pivots, products._mT(B), products._mT))
    return _lu_solve_left(LU, pivots, B, inverses._mH if adjoint else None)


def _check_lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, left: bool) -> None:  # noqa: N803
    """linalg.lu_solve's checks, in PyTorch's order."""
    inverses._check_floating("lu_solve", LU._data, low_precision=True, prefix="torch.linalg.")
    if LU._dtype is not B._dtype:
        raise RuntimeError(
            "linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
            f"{LU._dtype.scalar_name} and B of type {B._dtype.scalar_name} instead"
        )
    if pivots._dtype is not _dtypes.int32:
        raise RuntimeError("linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32")
    inverses._check_matrix("lu_solve", LU._data, floating=False, prefix="torch.linalg.")
    _check_solver("linalg.lu_solve", LU, tuple(B.shape), left)
    if pivots.ndim < 1 or LU.shape[-1] != pivots.shape[-1]:
        raise RuntimeError(
            "linalg.lu_solve: Number of pivots per batch should be same as the dimension of "
            "the matrix"
        )
    if tuple(LU.shape[:-1]) != tuple(pivots.shape):
        raise RuntimeError(
            "linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, but got "
            f"pivots with shape {list(pivots.shape)} instead"
        )
    _check_kernel("lu_cpu", LU)


def _lu_solve_left(LU: Tensor, pivots: Tensor, B: Tensor, turn: Callable | None) -> Tensor:  # noqa: N803
    """X with A X = B, or with turn(A) X = B (turn: Aᵀ or Aᴴ), from A = P L U."""
    p, low, up = lu_unpack(LU, pivots)
    if turn is None:  # A X = B: U X = L⁻¹ Pᵀ B
        y = inverses.solve_triangular(
            low, products._mT(p) @ B, upper=False, left=True, unitriangular=True
        )
        return inverses.solve_triangular(up, y, upper=True, left=True, unitriangular=False)
    # turn(A) X = B: turn(U) turn(L) Pᵀ X = B (P real: turn(P) = Pᵀ)
    y = inverses.solve_triangular(turn(up), B, upper=False, left=True, unitriangular=False)
    z = inverses.solve_triangular(turn(low), y, upper=True, left=True, unitriangular=True)
    return p @ z


def vander(x: Tensor, *, N: int | None = None) -> Tensor:  # noqa: N803
    """The Vandermonde matrices [1, x, x², ..., x^(N-1)] of the last dim of x (integers in
    int64), the powers by repeated multiplication so that x = 0 has its gradient."""
    x = require_tensor("linalg_vander", x, name="x")
    if x._dtype._category == 0 or x._dtype.itemsize < 4 and x._dtype._category > 1:
        raise RuntimeError(
            "linalg.vander supports floating point, complex, and integer tensors, but got "
            f"{x._dtype.scalar_name}"
        )
    if x.ndim == 0:
        x = shapes.reshape(x, (1,))
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    if x._dtype._category == 1:
        x = x.to(_dtypes.int64)
    powers = [x]
    for _ in range(n - 2):
        powers.append(powers[-1] * x)
    with on_device_of(x._data):
        ones = wrap(xp.ones(tuple(x.shape) + (1,), dtype=np_dtype(x)))
    rest = joining.stack(powers, dim=x.ndim)
    return joining.cat([ones, rest], dim=x.ndim, offsets=(0, 1, n))


def tensorinv(A: Tensor, ind: int = 2, *, out: Tensor | None = None) -> Tensor:
    """The inverse of A for tensordot over its first ``ind`` dims."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    if math.prod(rows) != math.prod(cols):
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[ind:]) == "
            f"prod(self.shape[:ind]), but got {math.prod(cols)} != {math.prod(rows)}"
        )
    square = shapes.reshape(A, (math.prod(rows), math.prod(cols)))
    try:
        inverse = inverses.inv(square)
    except inverses.LinAlgError as error:  # (PyTorch names the inverse 'inv' here)
        raise inverses.LinAlgError(str(error).replace("linalg.inv", "inv", 1)) from None
    return shapes.reshape(inverse, cols + rows)


def tensorsolve(
    A: Tensor, B: Tensor, dims: Sequence[int] | None = None, *, out: Tensor | None = None
) -> Tensor:
    """X with tensordot(A, X, X.ndim) = B."""
    if dims is not None:
        moved = [d % A.ndim for d in dims]
        A = inverses._permute(A, [d for d in range(A.ndim) if d not in moved] + moved)
    rest = tuple(A.shape[B.ndim :])
    if math.prod(rest) != math.prod(B.shape):
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
            f"prod(self.shape[:other.ndim]), but got {math.prod(rest)} != "
            f"{math.prod(B.shape)}"
        )
    square = shapes.reshape(A, (math.prod(B.shape), math.prod(rest)))
    return shapes.reshape(inverses.solve(square, shapes.reshape(B, (-1,)), vector=True), rest)


def linalg_diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The diagonal of each matrix over dims (dim1, dim2): a view."""
    return diagonal(A, offset, dim1, dim2)


@runs_in_float32  # (inside a CPU autocast, as PyTorch's float32 list)
def cholesky_solve(
    B: Tensor, L: Tensor, upper: bool = False, *, out: Tensor | None = None
) -> Tensor:
    """X with A X = B, given A's Cholesky factor L (A = L Lᴴ, or Uᴴ U when ``upper``)."""
    B = require_tensor("cholesky_solve", B)
    L = require_tensor("cholesky_solve", L, 2, "input2")
    _linear_solve_checks(
        B,
        L,
        "cholesky_solve",
        (
            "b should have at least 2 dimensions, but has {n} dimensions instead",
            "u should have at least 2 dimensions, but has {n} dimensions instead",
        ),
    )
    _check_kernel("cholesky_solve_cpu", L)
    return inverses.cholesky_solve(B, L, upper=upper)


def _linear_solve_checks(B: Tensor, A: Tensor, name: str, dims: tuple[str, str]) -> None:
    """PyTorch's checks of B and A before a solve from A's factor (cholesky_solve,
    triangular_solve), in its order: dims (``dims``: the messages for B's and A's, of
    ``{n}`` dims), dtypes, square A, matching rows, batches (B's first)."""
    for t, message in zip((B, A), dims):
        if t.ndim < 2:
            raise RuntimeError(message.format(n=t.ndim))
    if B._dtype is not A._dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type "
            f"{B._dtype.scalar_name} and A of type {A._dtype.scalar_name} instead."
        )
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"A must be batches of square matrices, but they are {A.shape[-2]} by "
            f"{A.shape[-1]} matrices"
        )
    if A.shape[-1] != B.shape[-2]:
        raise RuntimeError(
            f"Incompatible matrix sizes for {name}: each A matrix is {A.shape[-1]} by "
            f"{A.shape[-1]} but each b matrix is {B.shape[-2]} by {B.shape[-1]}"
        )
    products._broadcast_batch(tuple(B.shape[:-2]), tuple(A.shape[:-2]))


@runs_in_float32
def cholesky_inverse(L: Tensor, upper: bool = False, *, out: Tensor | None = None) -> Tensor:
    """(L Lᴴ)⁻¹ (or (Uᴴ U)⁻¹ when ``upper``) from the triangle of the Cholesky factor."""
    return inverses.cholesky_inverse(require_tensor("cholesky_inverse", L), upper=upper)


def _check_mode(mode: str) -> None:
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
            "'r', or 'complete'"
        )


def linalg_qr(A: Tensor, mode: str = "reduced", *, out: Tensor | None = None) -> QR:
    """(Q, R) with A = QR, Q with orthonormal columns and R upper triangular."""
    _check_mode(mode)
    with _sharing():
        return _LINALG_QR(factorizations.qr_q(A, mode=mode), factorizations.qr_r(A, mode=mode))


def qr(input: Tensor, some: bool = True, *, out: Tensor | None = None) -> QR:
    """(Q, R) with input = QR (reduced when ``some``)."""
    mode = "reduced" if some else "complete"
    with _sharing():
        return _QR(factorizations.qr_q(input, mode=mode), factorizations.qr_r(input, mode=mode))


def eigh(A: Tensor, UPLO: str = "L", *, out: Tensor | None = None) -> Eigh:  # noqa: N803
    """The eigenvalues (ascending) and orthonormal eigenvectors of a symmetric A."""
    _check_uplo(UPLO)
    with _sharing():
        return _LINALG_EIGH(
            factorizations.eigvalsh(A, uplo=UPLO), factorizations.eigh_vectors(A, uplo=UPLO)
        )


_LINALG_EIG = return_type("linalg_eig", ("eigenvalues", "eigenvectors"))


def eig(A: Tensor, *, out: Tensor | None = None) -> Eigh:
    """The eigenvalues and unit-norm eigenvectors of a square A (complex, also for a real
    A): A V = V diag(λ)."""
    A = require_tensor("linalg_eig", A, name="A")
    with _sharing():  # (the vectors first: their checks and errors are linalg.eig's)
        vectors = factorizations.eig_vectors(A)
        return _LINALG_EIG(factorizations.eigvals(A), vectors)


def eigvals(A: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The eigenvalues of a square A (complex, also for a real A)."""
    return factorizations.eigvals(require_tensor("linalg_eigvals", A, name="A"))


def eigvalsh(A: Tensor, UPLO: str = "L", *, out: Tensor | None = None) -> Tensor:  # noqa: N803
    """The eigenvalues (ascending) of a symmetric A."""
    _check_uplo(UPLO)
    return factorizations.eigvalsh(A, uplo=UPLO)


def _check_uplo(uplo: str) -> None:
    if uplo not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {uplo}")


def linalg_svd(
    A: Tensor, full_matrices: bool = True, *, driver: str | None = None, out: Tensor | None = None
) -> SVDh:
    """(U, S, Vh) with A = U diag(S) Vh, singular values descending."""
    _check_driver(A, driver)
    with _sharing():
        inverses._shared.full = full_matrices
        return _LINALG_SVD(
            factorizations.svd_u(A, full_matrices=full_matrices),
            factorizations.svdvals(A),
            factorizations.svd_vh(A, full_matrices=full_matrices),
        )


def svd(
    input: Tensor, some: bool = True, compute_uv: bool = True, *, out: Tensor | None = None
) -> SVD:
    """(U, S, V) with input = U diag(S) Vᴴ (torch.svd's older form: V, not Vh)."""
    input = require_tensor("svd", input)
    if input.ndim < 2:
        raise RuntimeError(
            f"linalg.svd: input should have at least 2 dimensions, but has {input.ndim} "
            "dimensions instead"
        )
    full = not some
    if not compute_uv:  # U and V come back as zeros, of their full shapes
        batch, (m, n) = tuple(input.shape[:-2]), tuple(input.shape[-2:])
        u = wrap(xp.zeros(batch + (m, m), np_dtype(input)))
        v = wrap(xp.zeros(batch + (n, n), np_dtype(input)))
        return _SVD(u, factorizations.svdvals(input), v)
    with _sharing():
        inverses._shared.full = full
        u, s, vh = (
            factorizations.svd_u(input, full_matrices=full),
            factorizations.svdvals(input),
            factorizations.svd_vh(input, full_matrices=full),
        )
    return _SVD(u, s, inverses._mH(vh))


def svdvals(A: Tensor, *, driver: str | None = None, out: Tensor | None = None) -> Tensor:
    """The singular values of A, descending."""
    _check_driver(A, driver)
    return factorizations.svdvals(A)


def _check_driver(A: Tensor, driver: str | None) -> None:
    """An SVD ``driver`` is cuSOLVER's: PyTorch refuses one for a CPU tensor."""
    if driver is not None and A.device.type != "cuda":
        raise RuntimeError(
            "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs "
            "with cuSOLVER backend."
        )


def pinv(
    A: Tensor,
    rcond: float | Tensor | None = None,
    hermitian: bool = False,
    *,
    atol: float | Tensor | None = None,
    rtol: float | Tensor | None = None,
    out: Tensor | None = None,
) -> Tensor:
    """The Moore-Penrose pseudo-inverse, through the SVD (the eigendecomposition of A's lower
    triangle when ``hermitian``); ``rcond`` (PyTorch's older form) is rtol, atol 0."""
    A = require_tensor("linalg_pinv", A, name="A")
    if A._dtype not in (float32, float64, complex64, complex128) or A.ndim < 2:
        raise RuntimeError(
            f"linalg.pinv({A._dtype.scalar_name}{{{list(A.shape)}}}): expected a tensor with 2 "
            "or more dimensions of float, double, cfloat or cdouble types"
        )
    if rcond is not None:
        atol, rtol = 0.0, rcond
    atol, rtol = _tolerance_args("torch.linalg.pinv", atol, rtol)
    return inverses.pinv(A, atol=atol, rtol=rtol, hermitian=hermitian)


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """The pseudo-inverse, singular values below rcond · s_max dropped."""
    return pinv(require_tensor("pinverse", input), rcond)


def matrix_power(input: Tensor, n: int) -> Tensor:
    """input multiplied by itself n times (n < 0: the inverse's power; n = 0: the identity,
    as a copy of input written over, so in input's graph with a zero gradient, as PyTorch's)."""
    inverses._check_matrix("matrix_power", input._data, floating=False)
    if n == 0:
        with on_device_of(input._data):  # the identity where input is
            eye = wrap(xp.eye(input.shape[-1], dtype=np_dtype(input)))
        return input.clone().copy_(eye)
    if n == 1:
        return input.clone()
    base = inverses.inv(input) if n < 0 else input
    if abs(n) == 3:  # (PyTorch's order of the products)
        return matmul(matmul(base, base), base)
    result = None
    power = base
    k = abs(n)
    while k:  # binary powering, as PyTorch does
        if k & 1:
            result = power if result is None else matmul(result, power)
        k >>= 1
        if k:
            power = matmul(power, power)
    return result


def chain_matmul(*matrices: Tensor, out: Tensor | None = None) -> Tensor:
    """The product of the matrices, left to right: linalg.multi_dot of two or more.
    Deprecated in PyTorch, whose C++ warning of it (once a process) chainrule does not give."""
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        if m.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        return matrices[0].clone()
    return multi_dot(matrices)


def multi_dot(tensors: Sequence[Tensor], *, out: Tensor | None = None) -> Tensor:
    """The product of the matrices (the first and last may be vectors), left to right."""
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    for i in range(1, n - 1):
        if tensors[i].ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {tensors[i].ndim}D")
    for end, t in (("first", tensors[0]), ("last", tensors[-1])):
        if t.ndim not in (1, 2):
            raise RuntimeError(f"multi_dot(): the {end} tensor must be 1D or 2D but got {t.ndim}D")
    for i, t in enumerate(tensors):
        if t._dtype is not tensors[0]._dtype:
            raise RuntimeError(
                "multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                f"{_dtypes.type_meta_name(tensors[0]._dtype)} and tensor {i} "
                f"{_dtypes.type_meta_name(t._dtype)}"
            )
    for i in range(n - 1):
        a, b = tensors[i], tensors[i + 1]
        if a.shape[-1] != b.shape[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i} and {i + 1} with shapes {list(a.shape)} and "
                f"{list(b.shape)} cannot be multiplied"
            )
    out = tensors[0]
    for m in tensors[1:]:
        out = matmul(out, m)
    return out


# ----- Tensor methods -----------------------------------------------------------------------------


def _matmul_general(self: Tensor, other: Any) -> Tensor:
    """self @ other: tensors only, as in PyTorch (other operands raise TypeError)."""
    if not isinstance(other, Tensor):
        return NotImplemented
    return products.matmul._apply((self, other), _NO_PARAMS)  # (both are tensors)


_NO_PARAMS: dict = {}
_MATMUL_CLASSES: dict = {}


def _matmul_class(a: Any, b: Any) -> type:
    """matmul's node class for arrays ``a`` and ``b``: its name (products._matmul_node)
    depends on their numbers of dims alone, so the class is kept per pair of them."""
    key = (a.ndim, b.ndim)
    cls = _MATMUL_CLASSES.get(key)
    if cls is None:
        op = products.matmul
        cls = _MATMUL_CLASSES[key] = op._class(op._node_name(a, b))
    return cls


# self @ other: matmul's entry for two float vectors or matrices of one dtype, else
# _matmul_general
_matmul_operator = matmul_entry(products.matmul, _matmul_general, _matmul_class)


def _rmatmul_operator(self: Tensor, other: Any) -> Tensor:
    if not isinstance(other, Tensor):
        return NotImplemented
    return products.matmul(other, self)


def _method_cross(self: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    return cross(self, other, dim)
