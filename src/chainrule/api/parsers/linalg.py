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
from ..._dtypes import dtype as DType
from ..._tensor import Tensor, wrap
from ...amp.policy import runs_in_float32
from ...autograd.entries import matmul_entry
from ...autograd.recording import np_dtype
from ...ops import complex_parts, logical, reductions, shapes
from ...ops.linalg import factorizations, inverses, matrices, products
from ..args import dim_arg, require_tensor, return_type, tensor_arg
from ..variants import out_dtype, write_out

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


def vector_norm(
    x: Tensor,
    ord: float = 2,
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    dtype: DType | None = None,
    out: Tensor | None = None,
) -> Tensor:  # noqa: A002
    """(Σ |x|^ord)^(1/ord) over dim (all entries when None), computed in ``dtype`` when given
    (real for real x, complex for complex x, and no narrower than x's: PyTorch's errors)."""
    if isinstance(ord, str):
        raise TypeError("linalg_vector_norm(): argument 'ord' (position 2) must be Number, not str")
    if out is not None:
        return _vector_norm_into(out, (x, ord, dim, keepdim), dtype)
    if dtype is not None:
        x = vector_norm_input(x, dtype)
    return reductions.vector_norm(x, ord=ord, dim=dim_arg(dim), keepdim=keepdim)


def _vector_norm_into(out: Any, args: tuple, dtype: Any) -> Tensor:
    """vector_norm's out=: a kernel's (no autograd), out of exactly the result's dtype."""

    def computed(*args: Any, **kwargs: Any) -> Tensor:
        return vector_norm(*args, **kwargs)

    return write_out("linalg_vector_norm", out_dtype(computed), args, {"dtype": dtype}, out)


def _composite_into(name: str, result: Tensor, out: Any) -> Tensor:
    """out= of a PyTorch composite (linalg.matrix_norm, linalg.norm): out of exactly the
    result's dtype, resized to its shape, gets a copy of it (recorded, as PyTorch's
    CopyBackwards, where the result requires grad)."""
    if not isinstance(out, Tensor):
        raise TypeError(
            f"{name.replace('.', '_')}(): argument 'out' must be Tensor, not {type(out).__name__}"
        )
    if out._dtype is not result._dtype:
        raise RuntimeError(
            f"{name} expected out tensor dtype {result._dtype.scalar_name} but got: "
            f"{out._dtype.scalar_name}"
        )
    if not result.requires_grad:
        return write_out(name, lambda: result, (), {}, out)
    if tuple(out.shape) != tuple(result.shape):
        out.resize_(result.shape)
    return out.copy_(result)


def torch_norm_into(input: Tensor, p: Any, dim: Any, keepdim: bool, dtype: Any, out: Any) -> Tensor:  # noqa: A002
    """torch.norm(..., out=out): linalg.vector_norm's out=, or linalg.matrix_norm's for a
    string p other than 'fro' over at most two dims (as torch.norm dispatches)."""
    dims = (dim,) if isinstance(dim, int) else None if dim is None else tuple(dim)
    if isinstance(p, str) and not (p == "fro" and (dims is None or len(dims) <= 2)):
        every = tuple(range(input.ndim)) if dims is None else dims
        return matrix_norm(input, p, every, keepdim, dtype=dtype, out=out)
    order = 2 if p is None or isinstance(p, str) else p
    return vector_norm(input, order, dims, keepdim, dtype=dtype, out=out)


def vector_norm_input(x: Tensor, dtype: Any) -> Tensor:
    """x in the dtype linalg.vector_norm (and torch.norm) is asked to compute in."""
    _check_norm_input("linalg.vector_norm", x, low_precision=True)
    return norm_in_dtype("linalg.vector_norm", x, dtype)


def _check_norm_input(name: str, x: Tensor, low_precision: bool) -> None:
    """A norm's input is floating or complex (float16 too where ``low_precision``)."""
    if x._dtype._category < 2:
        raise RuntimeError(
            f"{name}: Expected a floating point or complex tensor as input. Got "
            f"{x._dtype.scalar_name}"
        )
    if not low_precision and x._dtype is _dtypes.float16:
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got Half")


def norm_in_dtype(name: str, x: Tensor, dtype: Any) -> Tensor:
    """x cast to the ``dtype`` a norm is asked to compute in, after PyTorch's checks: a
    floating or complex dtype, complex exactly where x is (the norm of complex values is
    computed on them, its result is real), and one x converts to without narrowing."""
    dt = _dtypes.to_dtype(dtype)
    if dt._category < 2:
        raise RuntimeError(
            f"{name}: dtype should be floating point or complex, but got {dt.scalar_name}"
        )
    kind = "complex" if x._dtype._category == 3 else "real"
    if (dt._category == 3) != (kind == "complex"):
        raise RuntimeError(
            f"{name}: dtype should be {kind} for {kind} inputs, but got {dt.scalar_name}"
        )
    if _dtypes.promote_types(x._dtype, dt) is not dt:
        raise RuntimeError(
            f"{name}: the dtype of the input ({x._dtype.scalar_name}) should be convertible "
            f"without narrowing to the specified dtype ({dt.scalar_name})"
        )
    return x.to(dt)


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
    with _sharing():
        sign, logabs = inverses.det_sign(input), inverses.logabsdet(input)
    if input.is_complex():
        return complex_parts.complex_from_parts(logabs, complex_parts.angle(sign))
    return logical.where(sign < 0, math.nan, logabs)


def solve(A: Tensor, B: Tensor, *, left: bool = True, out: Tensor | None = None) -> Tensor:
    """X with A X = B (B a matrix, a vector, or batches of them)."""
    if not left:
        return products._mT(solve(products._mT(A), products._mT(B)))
    A = require_tensor("linalg_solve", A, name="A")
    B = require_tensor("linalg_solve", B, 2, "B")
    return inverses.solve(A, B, vector=_is_vector_rhs(tuple(A.shape), tuple(B.shape)))


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
    """X with A X = B (or X A = B), A triangular."""
    return inverses.solve_triangular(A, B, upper=upper, left=left, unitriangular=unitriangular)


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
    *,
    atol: float | Tensor | None = None,
    rtol: float | Tensor | None = None,
    hermitian: bool = False,
    out: Tensor | None = None,
) -> Tensor:
    """The number of singular values above max(atol, rtol · s_max) (an int64 tensor)."""
    inverses._check_matrix("matrix_rank", A._data, square=False)
    s = xp.linalg.svd(A._data, compute_uv=False)
    if rtol is None:
        eps = xp.finfo(A._data.dtype).eps * max(A.shape[-2:])
        rtol = eps if atol is None or atol == 0 else 0.0
    s_max = s[..., :1] if s.shape[-1] else s
    tol = xp.maximum(0.0 if atol is None else atol, rtol * s_max)
    return wrap(xp.sum(s > tol, axis=-1).astype(xp.int64))


_LINALG_LSTSQ = return_type("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))


@runs_in_float32  # (inside a CPU autocast: float32 as a whole, as PyTorch)
def lstsq(A: Tensor, B: Tensor, rcond: float | None = None, *, driver: str | None = None) -> Lstsq:
    """The least-squares solution of A X = B, with PyTorch's (solution, residuals, rank,
    singular_values); which of the last three are filled depends on the driver."""
    driver = driver or "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(
            "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)"
        )
    solution = inverses.lstsq(A, B, rcond=rcond)
    empty = wrap(xp.zeros((0,), dtype=np_dtype(A)))
    m, n = A.shape[-2], A.shape[-1]
    rank = matrix_rank(A) if driver != "gels" else wrap(xp.zeros((0,), dtype=xp.int64))
    residuals = empty
    if driver != "gelsy" and m > n and bool((rank._data == n).all()):
        residual = A @ solution - B
        residuals = reductions.sum(residual * residual, dim=-2 if B.ndim > 1 else -1)
    values = empty
    if driver in ("gelsd", "gelss"):
        values = wrap(xp.linalg.svd(A._data, compute_uv=False))
    return _LINALG_LSTSQ(solution, residuals, rank, values)


def matrix_exp(A: Tensor) -> Tensor:
    """e^A for a (batch of) square matrices."""
    return factorizations.matrix_exp(require_tensor("linalg_matrix_exp", A, name="A"))


def cond(A: Tensor, p: float | str | None = None, *, out: Tensor | None = None) -> Tensor:
    """The condition number ‖A‖ ‖A⁻¹‖ (for p None or 2: s_max / s_min)."""
    if p is None or p in (2, -2):
        s = factorizations.svdvals(A)
        first, last = inverses._getitem(s, (Ellipsis, 0)), inverses._getitem(s, (Ellipsis, -1))
        return first / last if p != -2 else last / first
    return matrix_norm(A, p) * matrix_norm(inverses.inv(A), p)


_INV_EX = return_type("linalg_inv_ex", ("inverse", "info"))

_CHOLESKY_EX = return_type("linalg_cholesky_ex", ("L", "info"))

_SOLVE_EX = return_type("linalg_solve_ex", ("result", "info"))


def _info(A: Tensor, failed: Callable[[Any], int]) -> Tensor:
    """LAPACK's info per matrix: 0, or the order at which it failed."""
    data = A._data
    n = data.shape[-1]
    flat = data.reshape((-1, n, n))
    with on_device_of(data):  # the infos where A is
        info = xp.array([failed(a) for a in flat], dtype=xp.int32)
        return wrap(info.reshape(data.shape[:-2]))


def _pivot_info(a: Any) -> int:
    return inverses._first_zero_pivot(a) if inverses._is_singular(a) else 0


def inv_ex(A: Tensor, *, check_errors: bool = False, out: Tensor | None = None) -> InverseInfo:
    """(inverse, info): info is 0, or the first zero pivot of a singular matrix (whose
    inverse is then nan)."""
    inverses._check_matrix("inv_ex", A._data)
    info = _info(A, _pivot_info)
    if not info._data.any():
        return _INV_EX(inverses.inv(A), info)
    if check_errors:
        inverses.inv(A)  # raises PyTorch's error
    ok = wrap((info._data == 0)[..., None, None])
    safe = logical.where(ok, A, wrap(inverses._eye(A.shape[-1], A._data)))
    return _INV_EX(logical.where(ok, inverses.inv(safe), math.nan), info)


def cholesky_ex(
    A: Tensor, *, upper: bool = False, check_errors: bool = False, out: Tensor | None = None
) -> LInfo:
    """(L, info): info is 0, or the order of the first leading minor that is not
    positive-definite (L is then nan)."""
    inverses._check_matrix("cholesky", A._data)
    info = _info(A, factorizations._failed_minor)
    if not info._data.any():
        return _CHOLESKY_EX(factorizations.cholesky(A, upper=upper), info)
    if check_errors:
        factorizations.cholesky(A)
    ok = wrap((info._data == 0)[..., None, None])
    safe = logical.where(ok, A, wrap(inverses._eye(A.shape[-1], A._data)))
    return _CHOLESKY_EX(
        logical.where(ok, factorizations.cholesky(safe, upper=upper), math.nan), info
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
    inverses._check_matrix("solve", A._data)
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
    if not pivot:
        raise NotImplementedError("linalg.lu(pivot=False) is not implemented in chainrule yet")
    A = require_tensor("linalg_lu", A, name="A")
    inverses._check_matrix("lu", A._data, square=False)
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


def _lu_factor_info(name: str, A: Tensor, pivot: bool) -> tuple[Tensor, Tensor, Tensor]:
    if not pivot:
        raise NotImplementedError(f"linalg.{name}(pivot=False) is not implemented yet")
    A = require_tensor(f"linalg_{name}", A, name="A")
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
        first = xp.where(zero.any(-1), zero.argmax(-1) + 1, 0).astype(xp.int32)
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
    packed, pivots = lu_factor(A, pivot=pivot)
    if get_infos:
        return packed, pivots, _info(A, _pivot_info)
    return packed, pivots


def lu_unpack(
    LU_data: Tensor,
    LU_pivots: Tensor,
    unpack_data: bool = True,
    unpack_pivots: bool = True,
    *,
    out: Tensor | None = None,
) -> PLU:  # noqa: N803
    """(P, L, U) from lu_factor's packed factors."""
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    k = min(m, n)
    low = matrices.tril(
        inverses._getitem(LU_data, (Ellipsis, slice(None, k))), diagonal=-1
    ) + inverses._eye(m, LU_data, k)
    up = matrices.triu(
        inverses._getitem(LU_data, (Ellipsis, slice(None, k), slice(None))), diagonal=0
    )
    with on_device_of(LU_pivots._data):  # P is made where the pivots are
        p = wrap(factorizations._permutation(LU_pivots._data, m, np_dtype(LU_data)))
    return _LU_UNPACK(p, low, up)


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
    if not left:  # X A = B is Aᵀ Xᵀ = Bᵀ; X Aᴴ = B is A Xᴴ = Bᴴ
        if adjoint:
            return inverses._mH(_lu_solve_left(LU, pivots, inverses._mH(B), None))
        return products._mT(_lu_solve_left(LU, pivots, products._mT(B), products._mT))
    return _lu_solve_left(LU, pivots, B, inverses._mH if adjoint else None)


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
    """The Vandermonde matrices [1, x, x², ..., x^(N-1)] of the last dim of x."""
    n = x.shape[-1] if N is None else N
    if N is not None and N < 1:
        raise RuntimeError("N must be greater than 1.")
    column = x * 0 + 1  # x⁰, built from x so that it has x's shape and dtype
    out = 0
    for k in range(n):  # columns by repeated multiplication: no 0 ** -1 in the gradient
        out = out + inverses._unsq(column, -1) * inverses._eye(n, x)[k]
        column = column * x
    return out


def tensorinv(A: Tensor, ind: int = 2, *, out: Tensor | None = None) -> Tensor:
    """The inverse of A for tensordot over its first ``ind`` dims."""
    rows, cols = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    if math.prod(rows) != math.prod(cols):
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[ind:]) == "
            f"prod(self.shape[:ind]), but got {math.prod(cols)} != {math.prod(rows)}"
        )
    square = shapes.reshape(A, (math.prod(rows), math.prod(cols)))
    return shapes.reshape(inverses.inv(square), cols + rows)


def tensorsolve(
    A: Tensor, B: Tensor, dims: Sequence[int] | None = None, *, out: Tensor | None = None
) -> Tensor:
    """X with tensordot(A, X, X.ndim) = B."""
    if dims is not None:
        moved = [d % A.ndim for d in dims]
        A = inverses._permute(A, [d for d in range(A.ndim) if d not in moved] + moved)
    rest = tuple(A.shape[B.ndim :])
    if math.prod(rest) != math.prod(B.shape) or tuple(A.shape[: B.ndim]) != tuple(B.shape):
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


def cholesky_solve(
    B: Tensor, L: Tensor, upper: bool = False, *, out: Tensor | None = None
) -> Tensor:
    """X with A X = B, given A's Cholesky factor L (A = L Lᴴ, or Uᴴ U when ``upper``)."""
    a = inverses._mH(L) @ L if upper else L @ inverses._mH(L)
    return inverses.solve(a, B, vector=False)


def cholesky_inverse(L: Tensor, upper: bool = False, *, out: Tensor | None = None) -> Tensor:
    """(L Lᴴ)⁻¹ from the Cholesky factor L."""
    if upper:
        return inverses.inv(inverses._mH(L) @ L)
    return inverses.inv(L @ inverses._mH(L))


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
    return factorizations.svdvals(A)


def pinv(
    A: Tensor,
    *,
    atol: float | Tensor | None = None,
    rtol: float | Tensor | None = None,
    hermitian: bool = False,
    out: Tensor | None = None,
) -> Tensor:
    """The Moore-Penrose pseudo-inverse, through the SVD."""
    A = require_tensor("linalg_pinv", A, name="A")
    return inverses.pinv(A, atol=atol, rtol=rtol, hermitian=hermitian)


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """The pseudo-inverse, singular values below rcond · s_max dropped."""
    return inverses.pinv(input, atol=None, rtol=rcond, hermitian=False)


def matrix_power(input: Tensor, n: int) -> Tensor:
    """input multiplied by itself n times (n < 0: the inverse's power; n = 0: the identity)."""
    if input.ndim < 2 or input.shape[-1] != input.shape[-2]:
        raise RuntimeError(
            "linalg.matrix_power: A must be batches of square matrices, but they are "
            f"{input.shape[-2] if input.ndim > 1 else 1} by {input.shape[-1]} matrices"
        )
    if n == 0:
        with on_device_of(input._data):  # the identity where input is
            eye = xp.broadcast_to(xp.eye(input.shape[-1], dtype=np_dtype(input)), input.shape)
            return wrap(eye.copy())
    base = inverses.inv(input) if n < 0 else input
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


# ----- norms --------------------------------------------------------------------------------------


def _last_two(A: Tensor, dim: Sequence[int]) -> tuple:
    """A with the matrix dims ``dim`` moved last, and those dims normalized."""
    if A.ndim < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    d = reductions.wrap_dims(list(dim), A.ndim)
    if len(d) != 2:
        raise RuntimeError(
            f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}"
        )
    if d[0] == d[1]:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d[0]}, {d[1]})")
    rest = [i for i in range(A.ndim) if i not in d]
    return inverses._permute(A, rest + d), d


def _keep(out: Tensor, dims: list, keepdim: bool) -> Tensor:
    if not keepdim:
        return out
    shape = list(out.shape)
    for d in sorted(dims):
        shape.insert(d, 1)
    return shapes.reshape(out, tuple(shape))


def matrix_norm(
    A: Tensor,
    ord: float | str = "fro",
    dim: Sequence[int] = (-2, -1),
    keepdim: bool = False,
    *,
    dtype: DType | None = None,
    out: Tensor | None = None,
) -> Tensor:  # noqa: A002
    """The matrix norm: 'fro', 'nuc', ±1 (column sums), ±2 (singular values), ±inf (row sums),
    computed in ``dtype`` when given (checked as vector_norm's)."""
    if out is not None:
        return _composite_into(
            "linalg.matrix_norm", matrix_norm(A, ord, dim, keepdim, dtype=dtype), out
        )
    if isinstance(ord, complex):
        raise RuntimeError(
            "linalg.matrix_norm: Expected a non-complex scalar as the order of norm."
        )
    if ord not in ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if A.ndim < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    # (float16 only where no SVD is needed: 'fro', ±1, ±inf)
    _check_norm_input("linalg.matrix_norm", A, low_precision=ord not in ("nuc", 2, -2))
    if len(dim) != 2:
        raise RuntimeError(
            f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dim)}"
        )
    if dtype is not None:
        d = reductions.wrap_dims(list(dim), A.ndim)
        if d[0] == d[1]:
            raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d[0]}, {d[1]})")
        A = norm_in_dtype("linalg.matrix_norm", A, dtype)
    if ord == "fro":
        d = reductions.wrap_dims(list(dim), A.ndim)
        return reductions.vector_norm(A, ord=2, dim=tuple(d), keepdim=keepdim)
    moved, d = _last_two(A, dim)
    if ord == "nuc":
        out = reductions.sum(factorizations.svdvals(moved), dim=-1)
    elif ord in (2, -2):
        op = reductions.amax if ord == 2 else reductions.amin
        out = op(factorizations.svdvals(moved), dim=(-1,))
    else:
        axis = -2 if abs(ord) == 1 else -1  # column sums for ±1, row sums for ±inf
        op = reductions.amax if ord > 0 else reductions.amin
        out = op(reductions.vector_norm(moved, ord=1, dim=axis), dim=(-1,))
    return _keep(out, d, keepdim)


def norm(
    A: Tensor,
    ord: float | str | None = None,
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    out: Tensor | None = None,
    dtype: DType | None = None,
) -> Tensor:  # noqa: A002
    """A vector norm (1-D input, an int dim) or a matrix norm (2-D input, a 2-tuple dim)."""
    if out is not None:
        return _composite_into("linalg.norm", norm(A, ord, dim, keepdim, dtype=dtype), out)
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None and len(dim) not in (1, 2):
        raise RuntimeError(
            f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}"
        )
    if dim is None and ord is not None and A.ndim not in (1, 2):
        raise RuntimeError(
            "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
            f"Got {A.ndim}D."
        )
    if dim is None and ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype)
    if dim is None:
        matrix = A.ndim == 2 or isinstance(ord, str)
    else:
        matrix = len(dim) == 2
    if matrix:
        return matrix_norm(
            A, "fro" if ord is None else ord, (-2, -1) if dim is None else dim, keepdim, dtype=dtype
        )
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: Order {ord} not supported.")
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


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
