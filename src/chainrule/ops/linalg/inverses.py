"""Inverses and solves: inv, det and log|det|, solve, solve_triangular, pinv,
lstsq; PyTorch's LinAlgError for singular inputs.

Notation: Xᵀ is the transpose of the last two dims (mT), Xᴴ its conjugate (mH; Xᵀ for a
real X), G the output gradient, T an input's tangent. d(A⁻¹) = -A⁻¹ dA A⁻¹,
d det A = det A tr(A⁻¹ dA).

Complex values: inv, det, solve and solve_triangular are analytic (``complex="holomorphic"``:
the real formulas, conjugated by the engine); log|det|, the sign of det, pinv and lstsq are
not, and their VJPs are written with Xᴴ for complex values (``complex="wirtinger"``)."""

from __future__ import annotations

import math
import threading

from ... import _dtypes
from ..._backend import on_device_of, xp
from ..._tensor import Tensor, wrap
from ...autograd.recording import KEEP, defop, np_dtype
from .. import complex_parts, indexing, reductions, shapes
from . import factorizations, matrices, products


class LinAlgError(RuntimeError):
    """A matrix that a decomposition or solver cannot handle (singular, not positive-definite)."""


# named as PyTorch's class, so a traceback prints the same text
LinAlgError.__module__ = "torch._C"

LinAlgError.__name__ = LinAlgError.__qualname__ = "_LinAlgError"


# ----- helpers that work on arrays (plain backward) and tensors (create_graph) -----------


def _eye(n: int, like, m: int | None = None, k: int = 0):
    """An identity of ``like``'s dtype: a constant in the formulas below (a tensor when
    ``like`` is one, so that ``@`` with it stays among tensors)."""
    tensor = isinstance(like, Tensor)
    with on_device_of(like._data if tensor else like):  # on like's device
        eye = xp.eye(n, m, k, dtype=np_dtype(like))
    return wrap(eye) if tensor else eye


def _unsq(x, dim: int):
    """x with a new dim of size 1 at ``dim`` (negative: counted from the end)."""
    shape = tuple(x.shape)
    d = dim if dim >= 0 else len(shape) + 1 + dim
    return shapes.reshape(x, shape[:d] + (1,) + shape[d:])


def _diag_of(x):
    """The diagonals of a batch of matrices: (..., n, n) -> (..., n)."""
    return matrices.diagonal(x, offset=0, dim1=x.ndim - 2, dim2=x.ndim - 1)


def _diag_matrix(v):
    """The diagonal matrices of a batch of vectors: (..., n) -> (..., n, n)."""
    return matrices.diag_embed(v, offset=0, dim1=-2, dim2=-1)


def _btrace(x):
    """The traces of a batch of matrices."""
    return reductions.sum(_diag_of(x), dim=-1)


def _skew_divide(m, values):
    """m_ij / (λ_j - λ_i) off the diagonal, 0 on it: the Sylvester solve in eigh and svd."""
    n = values.shape[-1]
    eye = _eye(n, values)
    gap = _unsq(values, -2) - _unsq(values, -1) + eye  # λ_j - λ_i, and 1 on the diagonal
    return m / gap * (1 - eye)


def _mH(x):  # noqa: N802 - the math's name
    """Xᴴ: the conjugate transpose of the last two dims (Xᵀ for a real X)."""
    xt = products._mT(x)
    return complex_parts.conj_physical(xt) if complex_parts.is_complex_value(xt) else xt


def _conj(x):
    """x̄ (x itself when real)."""
    return complex_parts.conj_physical(x) if complex_parts.is_complex_value(x) else x


def _getitem(x, key):
    return indexing.getitem(x, key=key)


def _check_floating(name: str, x, low_precision: bool = False, prefix: str = "linalg.") -> None:
    """x is floating or complex (float16 too where ``low_precision``): PyTorch's
    checkFloatingOrComplex, its message under ``prefix + name``."""
    if x.dtype.kind not in "fc":
        raise RuntimeError(
            f"{prefix}{name}: Expected a floating point or complex tensor as input. Got "
            f"{_dtypes.scalar_name(x.dtype)}"
        )
    if x.dtype.itemsize < 4 and not low_precision:
        raise RuntimeError(f"{prefix}{name}: Low precision dtypes not supported. Got Half")


def _check_matrix(
    name: str,
    x,
    square: bool = True,
    *,
    kernel: str | None = None,
    floating: bool = True,
    prefix: str = "linalg.",
) -> None:
    """PyTorch's checks on a (batch of) matrix input, in its order and under its name
    (``prefix + name``): at least 2 dims, square (where ``square``), floating or complex
    (where ``floating``; float16 refused unless a ``kernel`` takes the dtypes over), and the
    CPU ``kernel``'s refusal of what it has no version for (integers, float16)."""
    if x.ndim < 2:
        raise RuntimeError(f"{prefix}{name}: The input tensor A must have at least 2 dimensions.")
    if square and x.shape[-1] != x.shape[-2]:
        raise RuntimeError(
            f"{prefix}{name}: A must be batches of square matrices, but they are "
            f"{x.shape[-2]} by {x.shape[-1]} matrices"
        )
    if floating:
        _check_floating(name, x, low_precision=kernel is not None, prefix=prefix)
    if kernel is not None and (x.dtype.kind not in "fc" or x.dtype.itemsize < 4):
        raise _dtypes.not_implemented(kernel, x.dtype)


def _matrices(x):
    """x as a flat batch of its matrices: (..., m, n) -> (b, m, n), b the batch size (0 or
    empty matrices included, where reshape's -1 would be ambiguous)."""
    return x.reshape((math.prod(x.shape[:-2]),) + tuple(x.shape[-2:]))


def _batch_prefix(x, failed) -> str:
    """'(Batch element i): ' for a batched input, as PyTorch names the failing matrix."""
    if x.ndim <= 2:
        return ""
    return f"(Batch element {failed}): "


def _first_zero_pivot(a) -> int:
    """The 1-based index of the first zero pivot of LU with partial pivoting (LAPACK's info)."""
    u = xp.array(a, dtype=xp.complex128 if a.dtype.kind == "c" else xp.float64)
    n = u.shape[0]
    for j in range(n):
        p = j + int(xp.argmax(factorizations._pivot_size(u[j:, j])))
        if u[p, j] == 0:
            return j + 1
        u[[j, p]] = u[[p, j]]
        u[j + 1 :] -= xp.outer(u[j + 1 :, j] / u[j, j], u[j])
    return n


class _Shared(threading.local):
    """Within one public call that returns several factors (eigh, svd, qr, slogdet), the
    ops of its outputs share one factorization of the input instead of one each."""

    active = False
    factors: dict | None = None
    full = True  # full_matrices of the svd being shared


_shared = _Shared()


def _factor(kind: tuple, x, compute):
    """compute(), or the result already computed for the same array in this public call."""
    if not _shared.active:
        return compute()
    key = (kind, id(x))
    hit = _shared.factors.get(key)
    if hit is not None and hit[0] is x:
        return hit[1]
    out = compute()
    _shared.factors[key] = (x, out)
    return out


def _singular_batch(x) -> int:
    """The index (flattened over the batch) of the first singular matrix in x."""
    for i, a in enumerate(_matrices(x)):
        try:
            xp.linalg.inv(a)
        except xp.linalg.LinAlgError:
            return i
    return 0


# ----- inverse, determinants, solve ------------------------------------------------------------


def _inv(x):
    """X⁻¹"""
    _check_matrix("inv", x)
    try:
        return xp.linalg.inv(x)
    except xp.linalg.LinAlgError:
        b = _singular_batch(x)
        pivot = _first_zero_pivot(_matrices(x)[b])
        raise LinAlgError(
            f"linalg.inv: {_batch_prefix(x, b)}The diagonal element {pivot} is zero, the "
            "inversion could not be completed because the input matrix is singular."
        ) from None


inv = defop(
    "inv",
    _inv,
    dtypes=KEEP,
    node="LinalgInvExBackward0",
    complex="holomorphic",
    vjp=lambda g, ans: (
        -(products._mT(ans) @ g @ products._mT(ans))
    ),  # d(X⁻¹) = -X⁻¹ dX X⁻¹: gX = -X⁻ᵀ G X⁻ᵀ
    jvp=lambda t, ans: -(ans @ t @ ans),  # d(X⁻¹) = -X⁻¹ dX X⁻¹
)


def _inv_by_lu(x):
    """X⁻¹; for a singular X through its LU factors with no check, as LAPACK's getrs in
    PyTorch's backward of log|det|: infinities and NaNs where U has a zero on its diagonal,
    rather than an error."""
    try:
        return inv(x)
    except LinAlgError:
        p, low, up = factorizations._lu_parts(x)
        y = solve_triangular(low, products._mT(p), upper=False, unitriangular=True)
        return solve_triangular(up, y, upper=True)


def _det(x):
    """det X"""
    _check_matrix("det", x, kernel="lu_cpu")
    return xp.asarray(xp.linalg.det(x))


def _cofactors(x, ans):
    """The cofactor matrix det(X) X⁻ᵀ; where X is singular, through the SVD:
    X = U S Vᵀ gives det(U) det(Vᵀ) U diag(Π_{j≠i} s_j) Vᵀ."""
    try:
        return _unsq(_unsq(ans, -1), -1) * products._mT(inv(x))
    except LinAlgError:
        pass
    # Each matrix goes through one formula; the other formula sees a harmless stand-in
    # (I for the inverse, a matrix with distinct singular values for the SVD), so neither
    # puts inf or nan into the gradient, at any order.
    data = x._data if isinstance(x, Tensor) else x
    n = data.shape[-1]
    singular = xp.array([_is_singular(a) for a in _matrices(data)]).reshape(
        data.shape[:-2] + (1, 1)
    )
    m = singular.astype(data.dtype)
    eye = _eye(n, data)
    by_inverse = _unsq(_unsq(ans, -1), -1) * products._mT(inv(x * (1 - m) + eye * m))
    stand_in = xp.diag(xp.arange(1, n + 1, dtype=data.dtype))
    u, vh, s = factorizations._svd_thin(x * m + stand_in * (1 - m), False)
    others = s * 0 + 1 if n == 1 else 0  # Π_{j≠i} s_j, one product per i
    for i in range(n if n > 1 else 0):
        prod = None
        for j in range(n):
            if j != i:
                sj = _getitem(s, (Ellipsis, j))
                prod = sj if prod is None else prod * sj
        others = others + _unsq(prod, -1) * eye[i]
    if isinstance(u, Tensor) and u.is_complex():
        # (a phase that turns with U's and Vᴴ's: differentiated, so that the cofactors do
        # not depend on the SVD's choice of phases)
        sign = _unsq(_unsq(det(u) * det(vh), -1), -1)
    else:
        u_data = u._data if isinstance(u, Tensor) else u
        vh_data = vh._data if isinstance(vh, Tensor) else vh
        sign = (xp.linalg.det(u_data) * xp.linalg.det(vh_data))[..., None, None]
    # (complex X = U S Vᴴ: the cofactors det(U) det(Vᴴ) Ū diag(Π_{j≠i} s_j) V̄ᴴ, analytic in X)
    by_svd = (_conj(u) * _unsq(others, -2)) @ _conj(vh) * sign
    return by_svd * m + by_inverse * (1 - m)


def _is_singular(a) -> bool:
    try:
        xp.linalg.inv(a)
    except xp.linalg.LinAlgError:
        return True
    return False


det = defop(
    "det",
    _det,
    dtypes=KEEP,
    node="LinalgDetBackward0",
    complex="holomorphic",
    vjp=lambda g, x, ans: (
        _unsq(_unsq(g, -1), -1) * _cofactors(x, ans)
    ),  # d det X = tr(adj(X) dX): gX = g det(X) X⁻ᵀ, the cofactor matrix
    jvp=lambda t, x, ans: reductions.sum(
        _cofactors(x, ans) * t, dim=(-2, -1)
    ),  # d det X = tr(adj(X) dX) = Σ cofactors ⊙ dX
    conventions=(
        "At a singular X the gradient is still the cofactor matrix (computed through the "
        "SVD), as PyTorch gives it with create_graph=True; PyTorch's first-order backward "
        "returns zeros at an exactly singular X instead. Known gap: at an exactly singular "
        "complex X the second derivative (through the SVD, whose phase derivatives divide by "
        "the zero singular value) differs from finite differences, as PyTorch's does too."
    ),
)


def _logabsdet(x):
    """log |det X|"""
    _check_matrix("slogdet", x)
    return xp.asarray(_factor(("slogdet",), x, lambda: xp.linalg.slogdet(x))[1])


def _real_part(x):
    return complex_parts.real(x) if complex_parts.is_complex_value(x) else x


logabsdet = defop(
    "logabsdet",
    _logabsdet,
    dtypes=KEEP,
    node="LinalgSlogdetBackward0",
    complex="wirtinger",
    vjp=lambda g, x: (
        _unsq(_unsq(g, -1), -1) * _mH(_inv_by_lu(x))
    ),  # d log|det X| = Re tr(X⁻¹ dX): gX = g X⁻ᴴ
    jvp=lambda t, x: _real_part(_btrace(solve(x, t, vector=False))),  # d log|det X| = Re tr(X⁻¹ dX)
    conventions=(
        "At a singular X (log |det X| = -inf) the gradient holds infinities and NaNs, as "
        "PyTorch's (X⁻ᴴ through X's LU factors); forward mode raises LinAlgError there."
    ),
)


def _det_sign(x):
    """the sign of det X (-1, 0 or 1)"""
    _check_matrix("slogdet", x)
    return xp.asarray(_factor(("slogdet",), x, lambda: xp.linalg.slogdet(x))[0])


def _det_sign_vjp(g, x, ans):
    """complex X: d s = i s Im tr(X⁻¹ dX) for s = det X / |det X|, so gX = -i Im(ḡ s) X⁻ᴴ;
    real X: 0 (s is piecewise constant)"""
    if not complex_parts.is_complex_value(x):
        return x * 0
    turn = complex_parts.imag(complex_parts.conj_physical(g) * ans) * -1j
    return _unsq(_unsq(turn, -1), -1) * _mH(_inv_by_lu(x))


def _det_sign_jvp(t, x, ans):
    """complex X: i s Im tr(X⁻¹ dX); real X: 0"""
    if not complex_parts.is_complex_value(x):
        return ans * 0
    return ans * complex_parts.imag(_btrace(solve(x, t, vector=False))) * 1j


det_sign = defop(
    "det_sign",
    _det_sign,
    dtypes=KEEP,
    node="LinalgSlogdetBackward0",
    complex="wirtinger",
    vjp=_det_sign_vjp,
    jvp=_det_sign_jvp,
    conventions=(
        "For a real X the sign of the determinant is piecewise constant: its gradient is 0. "
        "For a complex X it is the phase det X / |det X|, whose gradient is not."
    ),
)


def _solve(a, b, vector=False):
    """X with A X = B (B a vector, or a batch of vectors, when ``vector``)"""
    _check_matrix("solve", a, kernel="lu_cpu")
    rhs = b[..., None] if vector else b
    if rhs.ndim < 2 or rhs.shape[-2] != a.shape[-1]:
        shown = f"{b.shape[-1]}x1" if vector else "x".join(map(str, b.shape[-2:]))
        raise RuntimeError(
            "linalg.solve: Incompatible shapes of A and B for the equation AX = B "
            f"({a.shape[-2]}x{a.shape[-1]} and {shown})"
        )
    try:
        out = xp.linalg.solve(a, rhs)
    except xp.linalg.LinAlgError:
        batch = xp.broadcast_shapes(a.shape[:-2], rhs.shape[:-2])
        broadcast = xp.broadcast_to(a, batch + a.shape[-2:])
        where = _batch_prefix(broadcast, _singular_batch(broadcast))
        raise LinAlgError(
            f"torch.linalg.solve: {where}The solver failed because the input matrix is singular."
        ) from None
    return out[..., 0] if vector else out


def _solve_dtype(args, params):
    a, b = args
    if isinstance(b, Tensor) and a.dtype is not b.dtype:
        raise RuntimeError(
            "linalg.solve: Expected A and B to have the same dtype, but found A of type "
            f"{_dtypes.scalar_name(a.dtype)} and B of type {_dtypes.scalar_name(b.dtype)} instead"
        )
    return a.dtype


def _outer_last(u, v, vector: bool):
    """u vᵀ over the last dim (vectors), or U Vᵀ (matrices)."""
    if vector:
        return _unsq(u, -1) * _unsq(v, -2)
    return u @ products._mT(v)


def _matvec(m, x, vector: bool):
    """M x for a batch of vectors (``vector``), or M X."""
    if vector:
        return (m @ _unsq(x, -1))[..., 0]
    return m @ x


solve = defop(
    "solve",
    _solve,
    args=("a", "b"),
    dtypes=_solve_dtype,
    node="LinalgSolveExBackward0",
    complex="holomorphic",
    vjp=(
        lambda g, a, ans, vector: (
            -_outer_last(solve(products._mT(a), g, vector=vector), ans, vector)
        ),  # X = A⁻¹B, dX = -A⁻¹ dA X: gA = -(A⁻ᵀ G) Xᵀ
        lambda g, a, vector: solve(products._mT(a), g, vector=vector),  # dX = A⁻¹ dB: gB = A⁻ᵀ G
    ),
    jvp=(
        lambda t, a, ans, vector: (
            -solve(a, _matvec(t, ans, vector), vector=vector)
        ),  # X = A⁻¹B: dX = -A⁻¹ dA X
        lambda t, a, vector: solve(a, t, vector=vector),  # dX = A⁻¹ dB
    ),
)


def _triangle(a, upper, unitriangular):
    """A's upper or lower triangle, with ones on the diagonal when ``unitriangular``."""
    strict = (1 if upper else -1) if unitriangular else 0
    t = (matrices.triu if upper else matrices.tril)(a, diagonal=strict)
    return t + _eye(a.shape[-1], a) if unitriangular else t


def _solve_triangular(a, b, upper=False, left=True, unitriangular=False):
    """X with A X = B (or X A = B when not ``left``), A read from one triangle"""
    if b.ndim < 2:
        raise RuntimeError(
            "linalg.solve_triangular: The input tensor B must have at least 2 dimensions."
        )
    _check_matrix("solve_triangular", a)
    n = a.shape[-1]
    if b.shape[-2 if left else -1] != n:
        raise RuntimeError(
            "linalg.solve_triangular: Incompatible shapes of A and B for the equation "
            f"{'AX' if left else 'XA'} = B ({n}x{n} and {b.shape[-2]}x{b.shape[-1]})"
        )
    t = _triangle(a, upper, unitriangular)
    if not left:  # X A = B as Aᵀ Xᵀ = Bᵀ: the other triangle
        t, b, upper = factorizations._mT_array(t), factorizations._mT_array(b), not upper
    x = None
    if xp.isfinite(t).all() and xp.isfinite(b).all():
        try:
            x = xp.linalg.solve(t, b)
        except xp.linalg.LinAlgError:  # (a zero on the diagonal: substitution divides by it)
            pass
    if x is None:
        x = _substitution(t, b, upper)
    return x if left else factorizations._mT_array(x)


def _substitution(t, b, upper):
    """X with T X = B for a triangular T, row by row (forward for a lower T, backward for
    an upper one), as LAPACK's triangular solve: a zero on T's diagonal or an infinity
    gives its infinities and NaNs rather than an error (the general solve's LU would
    raise, or spread NaN everywhere)."""
    n = t.shape[-1]
    batch = xp.broadcast_shapes(t.shape[:-2], b.shape[:-2])
    x = xp.zeros_like(b, shape=batch + b.shape[-2:], dtype=xp.result_type(t, b))
    with xp.errstate(all="ignore"):
        for i in range(n - 1, -1, -1) if upper else range(n):
            known = slice(i + 1, n) if upper else slice(0, i)
            rest = b[..., i, :] - (t[..., i : i + 1, known] @ x[..., known, :])[..., 0, :]
            x[..., i, :] = rest / t[..., i, i, None]
    return x


def _solve_triangular_vjp_a(g, a, ans, upper, left, unitriangular):
    """gA = -A⁻ᵀ G Xᵀ (left) or -Xᵀ G A⁻ᵀ (right), kept to the triangle that was read"""
    g_b = solve_triangular(
        products._mT(a), g, upper=not upper, left=left, unitriangular=unitriangular
    )
    g_a = -(g_b @ products._mT(ans)) if left else -(products._mT(ans) @ g_b)
    return (matrices.triu if upper else matrices.tril)(
        g_a, diagonal=(1 if upper else -1) if unitriangular else 0
    )


def _solve_triangular_jvp_a(t, a, ans, upper, left, unitriangular):
    """dX = -A⁻¹ dA X (left) or -X dA A⁻¹ (right), dA kept to the triangle that is read"""
    t_a = (matrices.triu if upper else matrices.tril)(
        t, diagonal=(1 if upper else -1) if unitriangular else 0
    )
    rhs = -(t_a @ ans) if left else -(ans @ t_a)
    return solve_triangular(a, rhs, upper=upper, left=left, unitriangular=unitriangular)


solve_triangular = defop(
    "solve_triangular",
    _solve_triangular,
    args=("a", "b"),
    dtypes=_solve_dtype,
    node="LinalgSolveTriangularBackward0",
    complex="holomorphic",
    vjp=(
        _solve_triangular_vjp_a,
        # (the transposed system: the other triangle)
        lambda g, a, upper, left, unitriangular: solve_triangular(
            products._mT(a), g, upper=not upper, left=left, unitriangular=unitriangular
        ),  # gB = A⁻ᵀ G (left) or G A⁻ᵀ (right)
    ),
    jvp=(
        _solve_triangular_jvp_a,
        lambda t, a, upper, left, unitriangular: solve_triangular(
            a, t, upper=upper, left=left, unitriangular=unitriangular
        ),  # dX = A⁻¹ dB (left) or dB A⁻¹ (right)
    ),
    conventions=(
        "Only the triangle that is read gets a gradient (and not the diagonal when "
        "unitriangular), as in PyTorch."
    ),
)

# ----- from a Cholesky factor ------------------------------------------------------------------


def _triangle_read(x, upper: bool):
    """The triangle of a Cholesky factor that LAPACK reads (upper, or lower)."""
    return (matrices.triu if upper else matrices.tril)(x, diagonal=0)


def _cholesky_inverse(x, upper=False):
    """A⁻¹ for A = L Lᴴ (or Uᴴ U when ``upper``), from the triangle of the factor that is read"""
    _check_matrix(
        "cholesky_inverse", x, kernel="cholesky_inverse_out_cpu", floating=False, prefix=""
    )
    t = xp.triu(x) if upper else xp.tril(x)
    eye = xp.broadcast_to(xp.eye(x.shape[-1], dtype=x.dtype), x.shape)
    t_inv = _solve_triangular(t, eye, upper=upper)  # L⁻¹ (U⁻¹)
    n = x.shape[-1]
    last = t_inv[..., n - 1, n - 1].copy() if n else None
    if t_inv.dtype.kind == "c":  # (LAPACK's lauum takes the diagonal to be real, as a factor's is)
        t_inv[..., range(n), range(n)] = t_inv[..., range(n), range(n)].real
    t_inv_h = xp.conj(factorizations._mT_array(t_inv))
    out = t_inv @ t_inv_h if upper else t_inv_h @ t_inv  # U⁻¹ U⁻ᴴ, L⁻ᴴ L⁻¹
    if n and out.dtype.kind == "c":  # (and scales the last row by that real part alone)
        out[..., n - 1, n - 1] = last.real * last
    return out


def _cholesky_inverse_vjp(g, x, ans, upper):
    """gL = -A⁻¹ (G + Gᴴ) A⁻¹ L (-U A⁻¹ (G + Gᴴ) A⁻¹): PyTorch's, with the whole factor"""
    common = ans @ (g + _mH(g)) @ ans
    return -(x @ common) if upper else -(common @ x)


def _cholesky_inverse_jvp(t, x, ans, upper):
    """dA⁻¹ = -A⁻¹ dA A⁻¹, dA = dL Lᴴ + L dLᴴ (dUᴴ U + Uᴴ dU) on the triangle that is read"""
    f, d = _triangle_read(x, upper), _triangle_read(t, upper)
    part = _mH(d) @ f if upper else d @ _mH(f)
    return -(ans @ (part + _mH(part)) @ ans)


cholesky_inverse = defop(
    "cholesky_inverse",
    _cholesky_inverse,
    dtypes=KEEP,
    node="CholeskyInverseBackward0",
    complex="wirtinger",
    vjp=_cholesky_inverse_vjp,
    jvp=_cholesky_inverse_jvp,
    conventions=(
        "The forward reads one triangle of the factor; the gradient is PyTorch's, computed "
        "with the whole factor (so entries off the triangle get one too)."
    ),
)


def _cholesky_solve(b, x, upper=False):
    """X with A X = B for A = L Lᴴ (or Uᴴ U when ``upper``), from the triangle of the factor
    that is read"""
    t = xp.triu(x) if upper else xp.tril(x)
    t_h = xp.conj(factorizations._mT_array(t))
    low, up = (t_h, t) if upper else (t, t_h)  # A = low @ up
    return _solve_triangular(up, _solve_triangular(low, b, upper=False), upper=True)


def _cholesky_solve_vjp_l(g, x, ans, upper):
    """gL = -(C + Cᴴ) L (-U (C + Cᴴ)), C = A⁻¹ G Xᴴ: PyTorch's, with the whole factor"""
    common = cholesky_solve(g, x, upper=upper) @ _mH(ans)
    common = common + _mH(common)
    return -(x @ common) if upper else -(common @ x)


def _cholesky_solve_jvp_l(t, x, ans, upper):
    """dX = -A⁻¹ dA X, dA = dL Lᴴ + L dLᴴ (dUᴴ U + Uᴴ dU) on the triangle that is read"""
    f, d = _triangle_read(x, upper), _triangle_read(t, upper)
    part = _mH(d) @ f if upper else d @ _mH(f)
    return -cholesky_solve((part + _mH(part)) @ ans, x, upper=upper)


cholesky_solve = defop(
    "cholesky_solve",
    _cholesky_solve,
    args=("b", "x"),
    dtypes=KEEP,
    node="CholeskySolveBackward0",
    complex="wirtinger",
    vjp=(
        lambda g, x, upper: cholesky_solve(g, x, upper=upper),  # gB = A⁻¹ G (A Hermitian)
        _cholesky_solve_vjp_l,
    ),
    jvp=(
        lambda t, x, upper: cholesky_solve(t, x, upper=upper),  # dX = A⁻¹ dB
        _cholesky_solve_jvp_l,
    ),
    conventions=(
        "The forward reads one triangle of the factor; the gradient is PyTorch's, computed "
        "with the whole factor (so entries off the triangle get one too)."
    ),
)


# ----- pseudo-inverse ---------------------------------------------------------------------------


def tolerances(x, atol=None, rtol=None):
    """PyTorch's (atol, rtol) for pinv and matrix_rank, as float64 arrays (a number, or one
    per matrix): atol 0 by default; rtol by default eps · max(m, n), or 0 where atol > 0."""
    atol_a = xp.asarray(0.0 if atol is None else atol, dtype=xp.float64)
    if rtol is not None:
        return atol_a, xp.asarray(rtol, dtype=xp.float64)
    if x.dtype.kind not in "fc" or x.dtype.itemsize < 4:
        raise RuntimeError("This function doesn't handle types other than float and double")
    default = xp.finfo(x.dtype).eps * max(x.shape[-2:])
    if atol is None:
        return atol_a, xp.asarray(default)
    return atol_a, xp.where(atol_a > 0, 0.0, default)


def kept_values(s, s_max, atol, rtol):
    """Which singular values (or |eigenvalues|) s are above max(atol, rtol · s_max)."""
    return s > xp.maximum(atol[..., None], rtol[..., None] * s_max)


def _pinv(x, atol=None, rtol=None, hermitian=False):
    """A⁺ through the SVD (the eigendecomposition of A's lower triangle when ``hermitian``),
    singular values at most max(atol, rtol · s_max) dropped"""
    atol, rtol = tolerances(x, atol, rtol)
    if hermitian and x.size:
        _check_matrix("eigh", x)
        w, v = xp.linalg.eigh(x)
        size = xp.abs(w)
        keep = kept_values(size, size.max(axis=-1, keepdims=True), atol, rtol)
        w_inv = xp.where(keep, 1 / xp.where(keep, w, 1), 0).astype(x.dtype)
        return (v * w_inv[..., None, :]) @ xp.conj(factorizations._mT_array(v))
    u, s, vh = xp.linalg.svd(x, full_matrices=False)
    keep = kept_values(s, s[..., :1], atol, rtol) if s.shape[-1] else s > 0
    s_inv = xp.where(keep, 1 / xp.where(keep, s, 1), 0).astype(x.dtype)
    return (xp.conj(factorizations._mT_array(vh)) * s_inv[..., None, :]) @ xp.conj(
        factorizations._mT_array(u)
    )


def _pinv_vjp(g, x, ans):
    """dA⁺ = -A⁺ dA A⁺ + A⁺A⁺ᴴ dAᴴ (I - AA⁺) + (I - A⁺A) dAᴴ A⁺ᴴA⁺, adjoint"""
    p = ans
    pt = _mH(p)
    gt = _mH(g)
    out = -(pt @ g @ pt)
    out = out + (gt - x @ (p @ gt)) @ (p @ pt)  # (I - AA⁺) Gᴴ A⁺ A⁺ᴴ
    return out + (pt @ p) @ (gt - (gt @ p) @ x)  # A⁺ᴴ A⁺ Gᴴ (I - A⁺A)


def _pinv_jvp(t, x, ans):
    """dA⁺ = -A⁺ dA A⁺ + A⁺A⁺ᴴ dAᴴ (I - AA⁺) + (I - A⁺A) dAᴴ A⁺ᴴA⁺"""
    p = ans
    pt = _mH(p)
    tt = _mH(t)
    out = -(p @ t @ p)
    out = out + (p @ pt) @ (tt - (tt @ x) @ p)
    return out + (tt - p @ (x @ tt)) @ (pt @ p)


pinv = defop(
    "pinv",
    _pinv,
    dtypes=KEEP,
    node="LinalgPinvBackward0",
    complex="wirtinger",
    vjp=_pinv_vjp,
    jvp=_pinv_jvp,
    conventions="The derivative of A⁺ holds where the rank of A is locally constant.",
)


def _lstsq(a, b, rcond=None):
    """X minimizing ‖A X - B‖ (the minimum-norm one): A⁺ B"""
    _check_matrix("lstsq", a, square=False)
    return xp.matmul(_pinv(a, rtol=rcond), b)


def _lstsq_vjp_a(g, a, b, rcond):
    """X = A⁺ B: gA is the VJP of A⁺ at G Bᴴ"""
    p = pinv(a, rtol=rcond)
    g_p = _unsq(g, -1) * _unsq(_conj(b), -2) if b.ndim == 1 else g @ _mH(b)
    return _pinv_vjp(g_p, a, p)


def _lstsq_jvp_a(t, a, b, rcond):
    """X = A⁺ B: dX = dA⁺ B, dA⁺ as in pinv"""
    return products.matmul(_pinv_jvp(t, a, pinv(a, rtol=rcond)), b)


lstsq = defop(
    "lstsq",
    _lstsq,
    args=("a", "b"),
    dtypes=_solve_dtype,
    node="LinalgLstsqBackward0",
    complex="wirtinger",
    vjp=(
        _lstsq_vjp_a,
        lambda g, a, b, rcond: _lstsq_vjp_b(g, a, b, rcond),  # gB = A⁺ᴴ G
    ),
    jvp=(
        _lstsq_jvp_a,
        lambda t, a, rcond: products.matmul(pinv(a, rtol=rcond), t),  # dX = A⁺ dB
    ),
    conventions="The solution is A⁺ B; its derivative is that of A⁺ (constant rank).",
)


def _lstsq_vjp_b(g, a, b, rcond):
    p_t = _mH(pinv(a, rtol=rcond))
    return _matvec(p_t, g, True) if b.ndim == 1 else p_t @ g


def _permute(x, dims):
    dims = tuple(dims)
    if dims == tuple(range(x.ndim)):
        return x
    return shapes.permute(x, dims=dims)
