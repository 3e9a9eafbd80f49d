"""Linear algebra beyond the matrix products of linalg.py: trace, diag, diagonal, tril,
triu, cross, the inverse, determinants, solve and solve_triangular, the decompositions
behind ``chainrule.linalg`` (cholesky, qr, eigh, svd, lu), pinv, lstsq and matrix_exp;
composites built from them (outer, inner, tensordot, einsum, matrix_power, the matrix
norms, cond); their public functions and the Tensor methods they provide.

Each op is one ``defop`` entry (see docs/architecture.md): the forward on arrays, one VJP
and one JVP per input written with chainrule's own ops (so ``create_graph`` works), the
derivative in a comment beside each, and any convention PyTorch's gradient follows in
``conventions``. A decomposition with several outputs is one op per output (``eigh`` is
``eigvalsh`` and ``eigh_vectors``): each output's VJP is its own term of the
decomposition's VJP, which is linear in the output gradients, so the terms add up in the
engine. Their VJPs read the factors from the outputs or recompute them with the ops,
so derivatives of every order come from the same code.

Notation: ``Xᵀ`` is the transpose of the last two dims (``mT``), ``G`` the output
gradient, ``T`` an input's tangent, ``I`` the identity.
"""

from __future__ import annotations

import math
import threading
from typing import NamedTuple

from .._backend import xp
from .._tensor import Tensor, wrap
from ..autograd.recording import KEEP, defop
from . import elementwise as ew
from . import functions
from . import linalg as la
from . import reductions as red
from . import shape as sh
from .functions import _tensor_arg, inplace
from .linalg import _mT
from .reductions import dims_of, unreduce

__all__ = [
    "matmul", "mm", "bmm", "mv", "dot", "vdot", "outer", "ger", "inner", "einsum",
    "tensordot", "trace", "diag", "diag_embed", "diagflat", "diagonal", "tril", "triu",
    "cross", "cholesky", "inverse", "det", "logdet", "slogdet", "cholesky_inverse", "cholesky_solve",
    "pinverse",
    "svd", "qr", "matrix_power", "chain_matmul", "addmm", "addmv", "addr", "baddbmm",
    "addbmm", "matrix_exp", "lu", "lu_unpack",
]  # fmt: skip


class LinAlgError(RuntimeError):
    """A matrix that a decomposition or solver cannot handle (singular, not positive-definite)."""


# named as PyTorch's class, so a traceback prints the same text
LinAlgError.__module__ = "torch._C"
LinAlgError.__name__ = LinAlgError.__qualname__ = "_LinAlgError"

_SCALAR_NAMES = la._NAMES  # PyTorch's names of the scalar types, as its errors print them


# ----- helpers that work on arrays (plain backward) and tensors (create_graph) -----------


def _np_dtype(x):
    return x._data.dtype if isinstance(x, Tensor) else xp.asarray(x).dtype


def _eye(n: int, like, m: int | None = None, k: int = 0):
    """An identity of ``like``'s dtype: a constant in the formulas below (a tensor when
    ``like`` is one, so that ``@`` with it stays among tensors)."""
    eye = xp.eye(n, m, k, dtype=_np_dtype(like))
    return wrap(eye) if isinstance(like, Tensor) else eye


def _unsq(x, dim: int):
    """x with a new dim of size 1 at ``dim`` (negative: counted from the end)."""
    shape = tuple(x.shape)
    d = dim if dim >= 0 else len(shape) + 1 + dim
    return sh.reshape(x, shape[:d] + (1,) + shape[d:])


def _diag_of(x):
    """The diagonals of a batch of matrices: (..., n, n) -> (..., n)."""
    return diagonal_op(x, offset=0, dim1=x.ndim - 2, dim2=x.ndim - 1)


def _diag_matrix(v):
    """The diagonal matrices of a batch of vectors: (..., n) -> (..., n, n)."""
    return diag_embed_op(v, offset=0, dim1=-2, dim2=-1)


def _btrace(x):
    """The traces of a batch of matrices."""
    return red.sum(_diag_of(x), dim=-1)


def _skew_divide(m, values):
    """m_ij / (λ_j - λ_i) off the diagonal, 0 on it: the Sylvester solve in eigh and svd."""
    n = values.shape[-1]
    eye = _eye(n, values)
    gap = _unsq(values, -2) - _unsq(values, -1) + eye  # λ_j - λ_i, and 1 on the diagonal
    return m / gap * (1 - eye)


def _getitem(x, key):
    return sh.getitem(x, key=key)


def _check_floating(name: str, x) -> None:
    if x.dtype.kind not in "fc":
        raise RuntimeError(
            f"linalg.{name}: Expected a floating point or complex tensor as input. Got "
            f"{_SCALAR_NAMES[x.dtype.name]}"
        )
    if x.dtype.itemsize < 4:
        raise RuntimeError(f"linalg.{name}: Low precision dtypes not supported. Got Half")


def _check_matrix(name: str, x, square: bool = True) -> None:
    """PyTorch's checks on a (batch of) matrix input to linalg.<name>."""
    if x.ndim < 2:
        raise RuntimeError(f"linalg.{name}: The input tensor A must have at least 2 dimensions.")
    _check_floating(name, x)
    if square and x.shape[-1] != x.shape[-2]:
        raise RuntimeError(
            f"linalg.{name}: A must be batches of square matrices, but they are "
            f"{x.shape[-2]} by {x.shape[-1]} matrices"
        )


def _batch_prefix(x, failed) -> str:
    """'(Batch element i): ' for a batched input, as PyTorch names the failing matrix."""
    if x.ndim <= 2:
        return ""
    return f"(Batch element {failed}): "


def _first_zero_pivot(a) -> int:
    """The 1-based index of the first zero pivot of LU with partial pivoting (LAPACK's info)."""
    u = xp.array(a, dtype=xp.float64)
    n = u.shape[0]
    for j in range(n):
        p = j + int(xp.argmax(xp.abs(u[j:, j])))
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


class _sharing:
    def __enter__(self) -> None:
        _shared.active, _shared.factors = True, {}

    def __exit__(self, *exc) -> None:
        _shared.active, _shared.factors = False, None


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
    flat = x.reshape((-1,) + x.shape[-2:])
    for i, a in enumerate(flat):
        try:
            xp.linalg.inv(a)
        except xp.linalg.LinAlgError:
            return i
    return 0


# ----- trace, diagonals, triangles ---------------------------------------------------------


def _trace(x):
    """Σᵢ xᵢᵢ"""
    if x.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {x.ndim}")
    if x.dtype.kind == "b":
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    return xp.asarray(xp.trace(x, dtype=xp.int64 if x.dtype.kind in "iu" else None))


trace_op = defop(
    "trace",
    _trace,
    dtypes=KEEP,
    vjp=lambda g, x_shape: g * _eye(x_shape[0], g, x_shape[1]),  # d tr(X)/dX = I
    jvp=lambda t: trace_op(t),
)


def _writable_diagonal(x, offset, dim1, dim2):
    out = xp.diagonal(x, offset, dim1, dim2)
    if x.flags.writeable:  # PyTorch's diagonal is a view one may write through
        out.flags.writeable = True
    return out


def _diagonal(x, offset=0, dim1=0, dim2=1):
    """the diagonal of x over dims (dim1, dim2), offset above (>0) or below (<0) the main one,
    as the last dim"""
    return _writable_diagonal(x, offset, dim1, dim2)


diagonal_op = defop(
    "diagonal",
    _diagonal,
    dtypes=KEEP,
    view=True,
    # the diagonal's VJP writes G back onto the diagonal of zeros
    vjp=lambda g, x_shape, offset, dim1, dim2: diagonal_backward(
        g, shape=x_shape, offset=offset, dim1=dim1, dim2=dim2
    ),
    jvp=lambda t, offset, dim1, dim2: diagonal_op(t, offset=offset, dim1=dim1, dim2=dim2),
)


def _diagonal_copy(x, offset=0, dim1=0, dim2=1):
    """the diagonal of x, copied"""
    return xp.diagonal(x, offset, dim1, dim2).copy()


diagonal_copy = defop(
    "diagonal_copy",
    _diagonal_copy,
    dtypes=KEEP,
    node="DiagonalBackward0_copy",
    vjp=lambda g, x_shape, offset, dim1, dim2: diagonal_backward(
        g, shape=x_shape, offset=offset, dim1=dim1, dim2=dim2
    ),
    jvp=lambda t, offset, dim1, dim2: diagonal_copy(t, offset=offset, dim1=dim1, dim2=dim2),
)


def _diagonal_backward(g, shape=(), offset=0, dim1=0, dim2=1):
    """zeros of ``shape`` with g on the diagonal (offset, dim1, dim2)"""
    out = xp.zeros(shape, dtype=g.dtype)
    _writable_diagonal(out, offset, dim1, dim2)[...] = g
    return out


diagonal_backward = defop(
    "diagonal_backward",
    _diagonal_backward,
    args=("g",),
    dtypes=KEEP,
    vjp=lambda gg, offset, dim1, dim2: diagonal_op(gg, offset=offset, dim1=dim1, dim2=dim2),
    jvp=lambda t, shape, offset, dim1, dim2: diagonal_backward(
        t, shape=shape, offset=offset, dim1=dim1, dim2=dim2
    ),
)


def _embed_shape(x_shape: tuple, offset: int, dim1: int, dim2: int) -> tuple:
    n = x_shape[-1] + abs(offset)
    rest = iter(x_shape[:-1])
    return tuple(n if i in (dim1, dim2) else next(rest) for i in range(len(x_shape) + 1))


def _diag_embed(x, offset=0, dim1=-2, dim2=-1):
    """matrices (over dims dim1, dim2) with the last dim of x on their diagonal ``offset``"""
    nd = x.ndim + 1
    d1, d2 = dim1 % nd, dim2 % nd
    return _diagonal_backward(x, _embed_shape(x.shape, offset, d1, d2), offset, d1, d2)


diag_embed_op = defop(
    "diag_embed",
    _diag_embed,
    dtypes=KEEP,
    vjp=lambda g, offset, dim1, dim2: diagonal_op(  # reading the diagonal back
        g, offset=offset, dim1=dim1 % g.ndim, dim2=dim2 % g.ndim
    ),
    jvp=lambda t, offset, dim1, dim2: diag_embed_op(t, offset=offset, dim1=dim1, dim2=dim2),
)


def _tril(x, diagonal=0):
    """x with the entries above its diagonal ``diagonal`` zeroed"""
    if x.ndim < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    return xp.tril(x, diagonal)


def _triu(x, diagonal=0):
    """x with the entries below its diagonal ``diagonal`` zeroed"""
    if x.ndim < 2:
        raise RuntimeError("triu: input tensor must have at least 2 dimensions")
    return xp.triu(x, diagonal)


tril_op = defop(
    "tril",
    _tril,
    dtypes=KEEP,
    vjp=lambda g, diagonal: tril_op(g, diagonal=diagonal),  # a mask: G masked the same way
    jvp=lambda t, diagonal: tril_op(t, diagonal=diagonal),
)
triu_op = defop(
    "triu",
    _triu,
    dtypes=KEEP,
    vjp=lambda g, diagonal: triu_op(g, diagonal=diagonal),
    jvp=lambda t, diagonal: triu_op(t, diagonal=diagonal),
)


# ----- cross product -------------------------------------------------------------------------


def _cross(a, b, dim=-1):
    """a × b along dim (of size 3)"""
    return xp.cross(a, b, axis=dim)


def _cross_dtype(args, params):
    a, b = args
    if a.dtype is not b.dtype:
        raise RuntimeError(
            f"expected scalar type {_SCALAR_NAMES[a.dtype.name]} but found "
            f"{_SCALAR_NAMES[b.dtype.name]}"
        )
    return a.dtype


cross_op = defop(
    "cross",
    _cross,
    args=("a", "b"),
    dtypes=_cross_dtype,
    node="LinalgCrossBackward0",
    vjp=(
        lambda g, b, dim: cross_op(b, g, dim=dim),  # <G, a × b> = <a, b × G>
        lambda g, a, dim: cross_op(g, a, dim=dim),  # <G, a × b> = <b, G × a>
    ),
    jvp=(lambda t, b, dim: cross_op(t, b, dim=dim), lambda t, a, dim: cross_op(a, t, dim=dim)),
)


# ----- inverse, determinants, solve ------------------------------------------------------------


def _inv(x):
    """X⁻¹"""
    _check_matrix("inv", x)
    try:
        return xp.linalg.inv(x)
    except xp.linalg.LinAlgError:
        b = _singular_batch(x)
        pivot = _first_zero_pivot(x.reshape((-1,) + x.shape[-2:])[b])
        raise LinAlgError(
            f"linalg.inv: {_batch_prefix(x, b)}The diagonal element {pivot} is zero, the "
            "inversion could not be completed because the input matrix is singular."
        ) from None


inv_op = defop(
    "inv",
    _inv,
    dtypes=KEEP,
    node="LinalgInvExBackward0",
    vjp=lambda g, ans: -(_mT(ans) @ g @ _mT(ans)),  # d(X⁻¹) = -X⁻¹ dX X⁻¹
    jvp=lambda t, ans: -(ans @ t @ ans),
)


def _det(x):
    """det X"""
    _check_matrix("det", x)
    return xp.asarray(xp.linalg.det(x))


def _cofactors(x, ans):
    """The cofactor matrix det(X) X⁻ᵀ; where X is singular, through the SVD:
    X = U S Vᵀ gives det(U) det(Vᵀ) U diag(Π_{j≠i} s_j) Vᵀ."""
    try:
        return _unsq(_unsq(ans, -1), -1) * _mT(inv_op(x))
    except LinAlgError:
        pass
    # Each matrix goes through one formula; the other formula sees a harmless stand-in
    # (I for the inverse, a matrix with distinct singular values for the SVD), so neither
    # puts inf or nan into the gradient, at any order.
    data = x._data if isinstance(x, Tensor) else x
    n = data.shape[-1]
    flat = data.reshape((-1, n, n))
    singular = xp.array([_is_singular(a) for a in flat]).reshape(data.shape[:-2] + (1, 1))
    m = singular.astype(data.dtype)
    eye = _eye(n, data)
    by_inverse = _unsq(_unsq(ans, -1), -1) * _mT(inv_op(x * (1 - m) + eye * m))
    stand_in = xp.diag(xp.arange(1, n + 1, dtype=data.dtype))
    u, vh, s = _svd_thin(x * m + stand_in * (1 - m), False)
    others = s * 0 + 1 if n == 1 else 0  # Π_{j≠i} s_j, one product per i
    for i in range(n if n > 1 else 0):
        prod = None
        for j in range(n):
            if j != i:
                sj = _getitem(s, (Ellipsis, j))
                prod = sj if prod is None else prod * sj
        others = others + _unsq(prod, -1) * eye[i]
    u_data = u._data if isinstance(u, Tensor) else u
    vh_data = vh._data if isinstance(vh, Tensor) else vh
    sign = (xp.linalg.det(u_data) * xp.linalg.det(vh_data))[..., None, None]
    by_svd = (u * _unsq(others, -2)) @ vh * sign
    return by_svd * m + by_inverse * (1 - m)


def _is_singular(a) -> bool:
    try:
        xp.linalg.inv(a)
    except xp.linalg.LinAlgError:
        return True
    return False


det_op = defop(
    "det",
    _det,
    dtypes=KEEP,
    node="LinalgDetBackward0",
    # d det X = tr(adj(X) dX): the gradient is the cofactor matrix det(X) X⁻ᵀ
    vjp=lambda g, x, ans: _unsq(_unsq(g, -1), -1) * _cofactors(x, ans),
    jvp=lambda t, x, ans: red.sum(_cofactors(x, ans) * t, dim=(-2, -1)),
    conventions=(
        "At a singular X the gradient is still the cofactor matrix (computed through the "
        "SVD), as PyTorch gives it with create_graph=True; PyTorch's first-order backward "
        "returns zeros at an exactly singular X instead."
    ),
)


def _logabsdet(x):
    """log |det X|"""
    _check_matrix("slogdet", x)
    return xp.asarray(_factor(("slogdet",), x, lambda: xp.linalg.slogdet(x))[1])


logabsdet_op = defop(
    "logabsdet",
    _logabsdet,
    dtypes=KEEP,
    node="LinalgSlogdetBackward0",
    vjp=lambda g, x: _unsq(_unsq(g, -1), -1) * _mT(inv_op(x)),  # d log|det X| = tr(X⁻¹ dX)
    jvp=lambda t, x: _btrace(solve_op(x, t, vector=False)),
    conventions="At a singular X (log |det X| = -inf) backward raises LinAlgError.",
)


def _det_sign(x):
    """the sign of det X (-1, 0 or 1)"""
    _check_matrix("slogdet", x)
    return xp.asarray(_factor(("slogdet",), x, lambda: xp.linalg.slogdet(x))[0])


det_sign = defop(
    "det_sign",
    _det_sign,
    dtypes=KEEP,
    node="LinalgSlogdetBackward0",
    vjp=lambda g, x: x * 0,  # piecewise constant
    jvp=lambda t, ans: ans * 0,
    conventions="The sign of the determinant is piecewise constant: its gradient is 0.",
)


def _is_vector_rhs(a_shape: tuple, b_shape: tuple) -> bool:
    """linalg.solve's rule: B is a (batch of) vector(s) when 1-D or of shape A.shape[:-1]."""
    return len(b_shape) == 1 or (
        len(b_shape) == len(a_shape) - 1 and tuple(b_shape) == tuple(a_shape[:-1])
    )


def _solve(a, b, vector=False):
    """X with A X = B (B a vector, or a batch of vectors, when ``vector``)"""
    _check_matrix("solve", a)
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
        raise LinAlgError(
            "torch.linalg.solve: The solver failed because the input matrix is singular."
        ) from None
    return out[..., 0] if vector else out


def _solve_dtype(args, params):
    a, b = args
    if isinstance(b, Tensor) and a.dtype is not b.dtype:
        raise RuntimeError(
            "linalg.solve: Expected A and B to have the same dtype, but found A of type "
            f"{_SCALAR_NAMES[a.dtype.name]} and B of type {_SCALAR_NAMES[b.dtype.name]} instead"
        )
    return a.dtype


def _outer_last(u, v, vector: bool):
    """u vᵀ over the last dim (vectors), or U Vᵀ (matrices)."""
    if vector:
        return _unsq(u, -1) * _unsq(v, -2)
    return u @ _mT(v)


def _matvec(m, x, vector: bool):
    """M x for a batch of vectors (``vector``), or M X."""
    if vector:
        return (m @ _unsq(x, -1))[..., 0]
    return m @ x


solve_op = defop(
    "solve",
    _solve,
    args=("a", "b"),
    dtypes=_solve_dtype,
    node="LinalgSolveExBackward0",
    vjp=(
        # X = A⁻¹B: dX = -A⁻¹ dA X, so gA = -(A⁻ᵀ G) Xᵀ and gB = A⁻ᵀ G
        lambda g, a, ans, vector: -_outer_last(solve_op(_mT(a), g, vector=vector), ans, vector),
        lambda g, a, vector: solve_op(_mT(a), g, vector=vector),
    ),
    jvp=(
        lambda t, a, ans, vector: -solve_op(a, _matvec(t, ans, vector), vector=vector),
        lambda t, a, vector: solve_op(a, t, vector=vector),
    ),
)


def _triangle(a, upper, unitriangular):
    """A's upper or lower triangle, with ones on the diagonal when ``unitriangular``."""
    strict = (1 if upper else -1) if unitriangular else 0
    t = (triu_op if upper else tril_op)(a, diagonal=strict)
    return t + _eye(a.shape[-1], a) if unitriangular else t


def _solve_triangular(a, b, upper=False, left=True, unitriangular=False):
    """X with A X = B (or X A = B when not ``left``), A read from one triangle"""
    if b.ndim < 2:
        raise RuntimeError(
            "linalg.solve_triangular: The input tensor B must have at least 2 dimensions."
        )
    _check_matrix("solve_triangular", a)
    t = _triangle(a, upper, unitriangular)
    if left:
        return _solve(t, b)
    return _mT_array(_solve(_mT_array(t), _mT_array(b)))


def _solve_triangular_vjp_a(g, a, ans, upper, left, unitriangular):
    """gA = -A⁻ᵀ G Xᵀ (left) or -Xᵀ G A⁻ᵀ (right), kept to the triangle that was read"""
    g_b = solve_triangular_op(_mT(a), g, upper=not upper, left=left, unitriangular=unitriangular)
    g_a = -(g_b @ _mT(ans)) if left else -(_mT(ans) @ g_b)
    return (triu_op if upper else tril_op)(
        g_a, diagonal=(1 if upper else -1) if unitriangular else 0
    )


def _solve_triangular_jvp_a(t, a, ans, upper, left, unitriangular):
    t_a = (triu_op if upper else tril_op)(t, diagonal=(1 if upper else -1) if unitriangular else 0)
    rhs = -(t_a @ ans) if left else -(ans @ t_a)
    return solve_triangular_op(a, rhs, upper=upper, left=left, unitriangular=unitriangular)


solve_triangular_op = defop(
    "solve_triangular",
    _solve_triangular,
    args=("a", "b"),
    dtypes=_solve_dtype,
    node="LinalgSolveTriangularBackward0",
    vjp=(
        _solve_triangular_vjp_a,
        # gB = A⁻ᵀ G (left) or G A⁻ᵀ (right): the transposed system, the other triangle
        lambda g, a, upper, left, unitriangular: solve_triangular_op(
            _mT(a), g, upper=not upper, left=left, unitriangular=unitriangular
        ),
    ),
    jvp=(
        _solve_triangular_jvp_a,
        lambda t, a, upper, left, unitriangular: solve_triangular_op(
            a, t, upper=upper, left=left, unitriangular=unitriangular
        ),
    ),
    conventions=(
        "Only the triangle that is read gets a gradient (and not the diagonal when "
        "unitriangular), as in PyTorch."
    ),
)


# ----- cholesky -------------------------------------------------------------------------------


def _cholesky(x, upper=False):
    """the lower-triangular L with L Lᵀ = X (or Lᵀ when ``upper``)"""
    _check_matrix("cholesky", x)
    try:
        out = xp.linalg.cholesky(x)
    except xp.linalg.LinAlgError:
        flat = x.reshape((-1,) + x.shape[-2:])
        b, order = 0, 1
        for i, a in enumerate(flat):
            order = _failed_minor(a)
            if order:
                b = i
                break
        raise LinAlgError(
            f"linalg.cholesky: {_batch_prefix(x, b)}The factorization could not be completed "
            f"because the input is not positive-definite (the leading minor of order {order} "
            "is not positive-definite)."
        ) from None
    return _mT_array(out) if upper else out


def _mT_array(a):  # noqa: N802
    return xp.swapaxes(a, -1, -2)


def _failed_minor(a) -> int:
    for k in range(1, a.shape[-1] + 1):
        try:
            xp.linalg.cholesky(a[:k, :k])
        except xp.linalg.LinAlgError:
            return k
    return 0


def _cholesky_vjp(g, ans, upper):
    """gA = L⁻ᵀ Φ L⁻¹, Φ = ½(P + tril(P, -1)ᵀ), P = tril(Lᵀ G): PyTorch's symmetric gradient"""
    low = _mT(ans) if upper else ans
    g_low = _mT(g) if upper else g
    p = tril_op(_mT(low) @ g_low, diagonal=0)
    phi = (p + _mT(tril_op(p, diagonal=-1))) * 0.5
    low_inv = inv_op(low)
    return _mT(low_inv) @ phi @ low_inv


def _cholesky_jvp(t, ans, upper):
    """dL = L Φ(L⁻¹ dA L⁻ᵀ), Φ(X) the lower triangle of X with its diagonal halved"""
    low = _mT(ans) if upper else ans
    low_inv = inv_op(low)
    x = low_inv @ t @ _mT(low_inv)
    d = low @ (tril_op(x, diagonal=-1) + _diag_matrix(_diag_of(x)) * 0.5)
    return _mT(d) if upper else d


cholesky_op = defop(
    "cholesky",
    _cholesky,
    dtypes=KEEP,
    node="LinalgCholeskyExBackward0",
    vjp=_cholesky_vjp,
    jvp=_cholesky_jvp,
    conventions=(
        "Only the lower triangle of A is read, but the gradient is the symmetric matrix "
        "L⁻ᵀ Φ L⁻¹, as in PyTorch (the derivative along symmetric perturbations); tangents "
        "are taken to be symmetric."
    ),
)


cholesky_legacy = defop(
    "cholesky_legacy",
    _cholesky,
    dtypes=KEEP,
    node="CholeskyBackward0",
    vjp=lambda g, ans, upper: _cholesky_vjp(g, ans, upper),
    jvp=lambda t, ans, upper: _cholesky_jvp(t, ans, upper),
    conventions="torch.cholesky, deprecated: linalg.cholesky under its older node name.",
)


# ----- QR -------------------------------------------------------------------------------------


def _qr_q(x, mode="reduced"):
    """Q of A = QR (orthonormal columns); empty for mode='r'"""
    _check_matrix("qr", x, square=False)
    if mode == "r":
        return xp.zeros((0,), dtype=x.dtype)
    return _factor(("qr", mode), x, lambda: xp.linalg.qr(x, mode=mode))[0]


def _qr_r(x, mode="reduced"):
    """R of A = QR (upper triangular)"""
    _check_matrix("qr", x, square=False)
    out = _factor(("qr", mode), x, lambda: xp.linalg.qr(x, mode=mode))
    return out if mode == "r" else out[1]


def _qr_factors(x, mode):
    if isinstance(x, Tensor):
        return qr_q(x, mode=mode), qr_r(x, mode=mode)
    return xp.linalg.qr(x, mode=mode)


def _check_qr_differentiable(m: int, n: int, mode: str) -> None:
    if mode == "r":
        raise RuntimeError(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
            "Please use linalg.qr(A, mode='reduced') if you are going to differentiate "
            "through linalg.qr."
        )
    if mode == "complete" and m > n:
        raise RuntimeError(
            "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
        )


def _qr_tall_vjp(g_q, g_r, q, r):
    """A = QR with m >= n: gA = (G_Q + Q copyltu(M)) R⁻ᵀ, M = R G_Rᵀ - G_Qᵀ Q"""
    m = 0
    if g_r is not None:
        m = r @ _mT(g_r)
    if g_q is not None:
        m = m - _mT(g_q) @ q
    low = tril_op(m, diagonal=-1)
    b = q @ (low + _mT(low) + _diag_matrix(_diag_of(m)))  # M's lower triangle mirrored up
    if g_q is not None:
        b = b + g_q
    return _mT(solve_op(r, _mT(b), vector=False))  # b R⁻ᵀ


def _qr_vjp(g_q, g_r, x, mode):
    m, n = x.shape[-2], x.shape[-1]
    _check_qr_differentiable(m, n, mode)
    q, r = _qr_factors(x, mode)
    if m >= n:
        return _qr_tall_vjp(g_q, g_r, q, r)
    # wide: A = [X | Y], X = Q R₁ square, R = [R₁ | R₂] with R₂ = Qᵀ Y
    y = _getitem(x, (Ellipsis, slice(m, None)))
    r1 = _getitem(r, (Ellipsis, slice(None, m)))
    g_r1 = g_r2 = None
    if g_r is not None:
        g_r1 = _getitem(g_r, (Ellipsis, slice(None, m)))
        g_r2 = _getitem(g_r, (Ellipsis, slice(m, None)))
        g_q = y @ _mT(g_r2) if g_q is None else g_q + y @ _mT(g_r2)
    g_x = _qr_tall_vjp(g_q, g_r1, q, r1)
    out = g_x @ _eye(m, x, n)  # [gX | 0]
    if g_r2 is not None:
        out = out + (q @ g_r2) @ _eye(n - m, x, n, m)  # + [0 | Q G_R₂]
    return out


def _qr_tall_jvp(t, q, r):
    """dA = dQ R + Q dR with QᵀdQ skew and dR upper: C = Qᵀ dA R⁻¹, Ω = tril(C,-1) - its ᵀ,
    dR = (C - Ω) R, dQ = dA R⁻¹ - Q (C - Ω)"""
    b = _mT(solve_op(_mT(r), _mT(t), vector=False))  # dA R⁻¹
    c = _mT(q) @ b
    low = tril_op(c, diagonal=-1)
    upper_part = c - low + _mT(low)  # C - Ω
    return b - q @ upper_part, upper_part @ r


def _qr_jvp(t, x, mode, which: int):
    m, n = x.shape[-2], x.shape[-1]
    if mode == "r" or (mode == "complete" and m > n):
        raise NotImplementedError(f"forward AD of linalg.qr is not supported for mode='{mode}'")
    q, r = _qr_factors(x, mode)
    if m >= n:
        return _qr_tall_jvp(t, q, r)[which]
    y = _getitem(x, (Ellipsis, slice(m, None)))
    t_x = _getitem(t, (Ellipsis, slice(None, m)))
    t_y = _getitem(t, (Ellipsis, slice(m, None)))
    d_q, d_r1 = _qr_tall_jvp(t_x, q, _getitem(r, (Ellipsis, slice(None, m))))
    if which == 0:
        return d_q
    d_r2 = _mT(d_q) @ y + _mT(q) @ t_y  # R₂ = Qᵀ Y
    return d_r1 @ _eye(m, x, n) + d_r2 @ _eye(n - m, x, n, m)


_QR_CONVENTION = (
    "Q and R as LAPACK's Householder QR gives them (R's diagonal may be negative). Not "
    "differentiable for mode='r', nor for mode='complete' with more rows than columns "
    "(PyTorch's errors)."
)
qr_q = defop(
    "qr_q",
    _qr_q,
    dtypes=KEEP,
    node="LinalgQrBackward0",
    vjp=lambda g, x, mode: _qr_vjp(g, None, x, mode),
    jvp=lambda t, x, mode: _qr_jvp(t, x, mode, 0),
    conventions=_QR_CONVENTION,
)
qr_r = defop(
    "qr_r",
    _qr_r,
    dtypes=KEEP,
    node="LinalgQrBackward0",
    vjp=lambda g, x, mode: _qr_vjp(None, g, x, mode),
    jvp=lambda t, x, mode: _qr_jvp(t, x, mode, 1),
    conventions=_QR_CONVENTION,
)


# ----- symmetric eigendecomposition --------------------------------------------------------------


def _eigvalsh(x, uplo="L"):
    """the eigenvalues of the symmetric X (from its UPLO triangle), ascending"""
    _check_matrix("eigh", x)
    if _shared.active:  # linalg.eigh: the values that come with the vectors
        return _factor(("eigh", uplo), x, lambda: xp.linalg.eigh(x, UPLO=uplo))[0]
    return xp.linalg.eigvalsh(x, UPLO=uplo)


def _eigh_vectors(x, uplo="L"):
    """the orthonormal eigenvectors of the symmetric X, as columns"""
    _check_matrix("eigh", x)
    return _factor(("eigh", uplo), x, lambda: xp.linalg.eigh(x, UPLO=uplo))[1]


def _eigh_vectors_vjp(g, x, ans, uplo):
    """gA = V (skew(VᵀG) / E) Vᵀ, skew(M) = (M - Mᵀ)/2, E_ij = λ_j - λ_i"""
    vtg = _mT(ans) @ g
    inner = _skew_divide((vtg - _mT(vtg)) * 0.5, eigvalsh_op(x, uplo=uplo))
    return ans @ inner @ _mT(ans)


_EIGH_CONVENTION = (
    "Gradients assume distinct eigenvalues (they divide by λ_j - λ_i). The eigenvectors' "
    "gradient uses only the skew-symmetric part of VᵀG, so it does not depend on each "
    "eigenvector's sign (gauge invariance), as in PyTorch. The input is taken as symmetric: "
    "the gradient is a symmetric matrix and tangents are taken to be symmetric."
)
eigvalsh_op = defop(
    "eigvalsh",
    _eigvalsh,
    dtypes=KEEP,
    node="LinalgEighBackward0",
    # dλᵢ = vᵢᵀ dA vᵢ: gA = V diag(G) Vᵀ
    vjp=lambda g, x, uplo: _vjp_values(g, eigh_vectors(x, uplo=uplo)),
    jvp=lambda t, x, uplo: _jvp_values(t, eigh_vectors(x, uplo=uplo)),
    conventions=_EIGH_CONVENTION,
)


def _vjp_values(g, v):
    return v @ (_unsq(g, -1) * _mT(v))


def _jvp_values(t, v):
    return red.sum(v * (t @ v), dim=-2)  # diag(Vᵀ T V)


eigh_vectors = defop(
    "eigh_vectors",
    _eigh_vectors,
    dtypes=KEEP,
    node="LinalgEighBackward0",
    vjp=_eigh_vectors_vjp,
    # dV = V (VᵀTV / E), zero on the diagonal
    jvp=lambda t, x, ans, uplo: ans @ _skew_divide(_mT(ans) @ t @ ans, eigvalsh_op(x, uplo=uplo)),
    conventions=_EIGH_CONVENTION,
)


# ----- singular value decomposition ----------------------------------------------------------


def _svd_u(x, full_matrices=True):
    """U of A = U diag(S) Vᴴ"""
    _check_matrix("svd", x, square=False)
    return _factor(("svd", full_matrices), x, lambda: xp.linalg.svd(x, full_matrices))[0]


def _svdvals(x):
    """the singular values of A, descending"""
    _check_matrix("svd", x, square=False)
    if _shared.active:  # linalg.svd: the values that come with the vectors
        return _factor(("svd", _shared.full), x, lambda: xp.linalg.svd(x, _shared.full))[1]
    return xp.linalg.svd(x, compute_uv=False)


def _svd_vh(x, full_matrices=True):
    """Vᴴ of A = U diag(S) Vᴴ"""
    _check_matrix("svd", x, square=False)
    return _factor(("svd", full_matrices), x, lambda: xp.linalg.svd(x, full_matrices))[2]


def _svd_thin(x, full_matrices: bool):
    """U, S, Vh of x narrowed to k = min(m, n) singular vectors (recomputed by the ops)."""
    if isinstance(x, Tensor):
        u = svd_u(x, full_matrices=full_matrices)
        s = svdvals_op(x)
        vh = svd_vh(x, full_matrices=full_matrices)
    else:
        u, s, vh = xp.linalg.svd(x, full_matrices=full_matrices)
    return (*_narrow_uv(u, vh, x.shape[-2], x.shape[-1], full_matrices), s)


def _narrow_uv(u, vh, m, n, full_matrices):
    if full_matrices and m != n:
        k = min(m, n)
        return _getitem(u, (Ellipsis, slice(None, k))), _getitem(
            vh, (Ellipsis, slice(None, k), slice(None))
        )
    return u, vh


def _svd_vjp(g_u, g_s, g_vh, x, full_matrices):
    """PyTorch's SVD gradient, for k = min(m, n) singular triplets:

    gA = U [ (J S + S K) / E + diag(G_S) ] Vᵀ  (J = UᵀG_U - G_UᵀU, K = VᵀG_V - G_VᵀV,
    E_ij = s_j² - s_i²), plus (I - UUᵀ) G_U S⁻¹ Vᵀ when m > n and U S⁻¹ G_Vᵀ (I - VVᵀ)
    when m < n.
    """
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n)
    u, vh, s = _svd_thin(x, full_matrices)
    if full_matrices and m != n:
        if g_u is not None:
            g_u = _getitem(g_u, (Ellipsis, slice(None, k)))
        if g_vh is not None:
            g_vh = _getitem(g_vh, (Ellipsis, slice(None, k), slice(None)))
    if g_u is None and g_vh is None:
        return u @ (_unsq(g_s, -1) * vh)
    inner = 0
    if g_u is not None:
        utg = _mT(u) @ g_u
        inner = (utg - _mT(utg)) * _unsq(s, -2)
    if g_vh is not None:
        vtg = vh @ _mT(g_vh)
        inner = inner + _unsq(s, -1) * (vtg - _mT(vtg))
    inner = _skew_divide(inner, s * s)
    if g_s is not None:
        inner = inner + _diag_matrix(g_s)
    out = u @ inner @ vh
    if m > n and g_u is not None:
        out = out + ((g_u - u @ (_mT(u) @ g_u)) / _unsq(s, -2)) @ vh
    if m < n and g_vh is not None:
        out = out + u @ ((g_vh - (g_vh @ _mT(vh)) @ vh) / _unsq(s, -1))
    return out


def _svd_jvp(t, x, full_matrices, which: int):
    """dP = UᵀTV: dS = diag(dP), dU = U (F ∘ (dP S + S dPᵀ)) + (I - UUᵀ) T V S⁻¹,
    dV = V (F ∘ (S dP + dPᵀ S)) + (I - VVᵀ) Tᵀ U S⁻¹, F_ij = 1/(s_j² - s_i²)"""
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n)
    u, vh, s = _svd_thin(x, full_matrices)
    v = _mT(vh)
    dp = _mT(u) @ t @ v
    if which == 1:
        return _diag_of(dp)
    if which == 0:
        out = u @ _skew_divide(dp * _unsq(s, -2) + _unsq(s, -1) * _mT(dp), s * s)
        if m > n:
            out = out + (t @ v - u @ dp) / _unsq(s, -2)
        # with full_matrices the columns beyond min(m, n) get a zero tangent, as in PyTorch
        return out @ _eye(k, x, m) if full_matrices and m > n else out
    out = v @ _skew_divide(_unsq(s, -1) * dp + _mT(dp) * _unsq(s, -2), s * s)
    if n > m:
        out = out + (_mT(t) @ u - v @ _mT(dp)) / _unsq(s, -2)
    return _eye(n, x, k) @ _mT(out) if full_matrices and n > m else _mT(out)


_SVD_CONVENTION = (
    "Gradients through U and Vh assume distinct nonzero singular values (they divide by "
    "s_j² - s_i² and s_i) and depend only on gauge-invariant combinations (a sign flip of "
    "a pair u_i, v_i changes nothing), as in PyTorch. With full_matrices=True the columns "
    "of U and rows of Vh beyond min(m, n) get no gradient (any basis would do)."
)
svd_u = defop(
    "svd_u",
    _svd_u,
    dtypes=KEEP,
    node="LinalgSvdBackward0",
    vjp=lambda g, x, full_matrices: _svd_vjp(g, None, None, x, full_matrices),
    jvp=lambda t, x, full_matrices: _svd_jvp(t, x, full_matrices, 0),
    conventions=_SVD_CONVENTION,
)
svdvals_op = defop(
    "svdvals",
    _svdvals,
    dtypes=KEEP,
    node="LinalgSvdBackward0",
    vjp=lambda g, x: _svd_vjp(None, g, None, x, False),  # dsᵢ = uᵢᵀ dA vᵢ
    jvp=lambda t, x: _svd_jvp(t, x, False, 1),
    conventions="At repeated singular values the gradient is one of the valid subgradients.",
)
svd_vh = defop(
    "svd_vh",
    _svd_vh,
    dtypes=KEEP,
    node="LinalgSvdBackward0",
    vjp=lambda g, x, full_matrices: _svd_vjp(None, None, g, x, full_matrices),
    jvp=lambda t, x, full_matrices: _svd_jvp(t, x, full_matrices, 2),
    conventions=_SVD_CONVENTION,
)


# ----- pseudo-inverse ---------------------------------------------------------------------------


def _pinv(x, atol=None, rtol=None, hermitian=False):
    """A⁺ through the SVD, singular values at most max(atol, rtol · s_max) dropped"""
    _check_matrix("pinv", x, square=False)
    u, s, vh = xp.linalg.svd(x, full_matrices=False)
    if rtol is None:
        rtol = xp.finfo(x.dtype).eps * max(x.shape[-2:]) if atol is None or atol == 0 else 0.0
    s_max = s[..., :1] if s.shape[-1] else s
    tol = xp.maximum(0.0 if atol is None else atol, rtol * s_max)
    keep = s > tol
    s_inv = xp.where(keep, 1 / xp.where(keep, s, 1), 0).astype(x.dtype)
    return (_mT_array(vh) * s_inv[..., None, :]) @ _mT_array(u)


def _pinv_vjp(g, x, ans):
    """dA⁺ = -A⁺ dA A⁺ + A⁺A⁺ᵀ dAᵀ (I - AA⁺) + (I - A⁺A) dAᵀ A⁺ᵀA⁺, transposed"""
    p = ans
    pt = _mT(p)
    out = -(pt @ g @ pt)
    out = out + (_mT(g) - x @ (p @ _mT(g))) @ (p @ pt)  # (I - AA⁺) Gᵀ A⁺ A⁺ᵀ
    return out + (pt @ p) @ (_mT(g) - (_mT(g) @ p) @ x)  # A⁺ᵀ A⁺ Gᵀ (I - A⁺A)


def _pinv_jvp(t, x, ans):
    p = ans
    pt = _mT(p)
    out = -(p @ t @ p)
    out = out + (p @ pt) @ (_mT(t) - (_mT(t) @ x) @ p)
    return out + (_mT(t) - p @ (x @ _mT(t))) @ (pt @ p)


pinv_op = defop(
    "pinv",
    _pinv,
    dtypes=KEEP,
    node="LinalgPinvBackward0",
    vjp=_pinv_vjp,
    jvp=_pinv_jvp,
    conventions="The derivative of A⁺ holds where the rank of A is locally constant.",
)


def _lstsq(a, b, rcond=None):
    """X minimizing ‖A X - B‖ (the minimum-norm one): A⁺ B"""
    _check_matrix("lstsq", a, square=False)
    return xp.matmul(_pinv(a, rtol=rcond), b)


def _lstsq_vjp_a(g, a, b, rcond):
    """X = A⁺ B: gA is the VJP of A⁺ at G Bᵀ"""
    p = pinv_op(a, rtol=rcond)
    g_p = _unsq(g, -1) * _unsq(b, -2) if b.ndim == 1 else g @ _mT(b)
    return _pinv_vjp(g_p, a, p)


def _lstsq_jvp_a(t, a, b, rcond):
    return la.matmul(_pinv_jvp(t, a, pinv_op(a, rtol=rcond)), b)


lstsq_op = defop(
    "lstsq",
    _lstsq,
    args=("a", "b"),
    dtypes=_solve_dtype,
    node="LinalgLstsqBackward0",
    vjp=(
        _lstsq_vjp_a,
        lambda g, a, b, rcond: _lstsq_vjp_b(g, a, b, rcond),  # gB = A⁺ᵀ G
    ),
    jvp=(
        _lstsq_jvp_a,
        lambda t, a, rcond: la.matmul(pinv_op(a, rtol=rcond), t),
    ),
    conventions="The solution is A⁺ B; its derivative is that of A⁺ (constant rank).",
)


def _lstsq_vjp_b(g, a, b, rcond):
    p_t = _mT(pinv_op(a, rtol=rcond))
    return _matvec(p_t, g, True) if b.ndim == 1 else p_t @ g


# ----- LU with partial pivoting ------------------------------------------------------------------


def _lu_compact(x):
    """LAPACK's getrf: the packed factors (unit-lower L below the diagonal, U on and above)
    and the 1-based row swaps, with partial pivoting (the first largest |entry| wins)."""
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n)
    a = x.reshape((-1, m, n)).copy()
    rows = xp.arange(a.shape[0])
    pivots = xp.zeros((a.shape[0], k), dtype=xp.int32)
    for j in range(k):
        p = j + xp.argmax(xp.abs(a[:, j:, j]), axis=1)
        pivots[:, j] = p + 1
        top = a[rows, j].copy()
        a[rows, j] = a[rows, p]
        a[rows, p] = top
        pivot = a[:, j, j]
        safe = xp.where(pivot == 0, 1, pivot)
        factor = xp.where((pivot != 0)[:, None], a[:, j + 1 :, j] / safe[:, None], 0)
        a[:, j + 1 :, j] = factor
        a[:, j + 1 :, j + 1 :] -= factor[:, :, None] * a[:, j, None, j + 1 :]
    batch = x.shape[:-2]
    return a.reshape(x.shape), pivots.reshape(batch + (k,))


def _permutation(pivots, m: int, dtype):
    """P with A = P L U, from the 1-based row swaps."""
    flat = pivots.reshape((-1, pivots.shape[-1]))
    perm = xp.tile(xp.arange(m), (flat.shape[0], 1))
    rows = xp.arange(flat.shape[0])
    for j in range(flat.shape[1]):
        p = flat[:, j] - 1
        top = perm[rows, j].copy()
        perm[rows, j] = perm[rows, p]
        perm[rows, p] = top
    out = xp.zeros((flat.shape[0], m, m), dtype=dtype)
    out[rows[:, None], perm, xp.arange(m)] = 1  # row perm[i] of A is row i of L U
    return out.reshape(pivots.shape[:-1] + (m, m))


def _plu(x):
    """P, L, U with X = P L U."""
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n)
    lu, pivots = _lu_compact(x)
    low = xp.tril(lu[..., :, :k], -1) + xp.eye(m, k, dtype=x.dtype)
    up = xp.triu(lu[..., :k, :])
    return _permutation(pivots, m, x.dtype), low, up


def _lu_l(x):
    """L of X = P L U: unit lower triangular (m × min(m, n))"""
    _check_matrix("lu", x, square=False)
    return _factor(("lu",), x, lambda: _plu(x))[1]


def _lu_u(x):
    """U of X = P L U: upper triangular (min(m, n) × n)"""
    _check_matrix("lu", x, square=False)
    return _factor(("lu",), x, lambda: _plu(x))[2]


def _lu_parts(x):
    """P (a constant), L and U of x, recomputed with the ops for a tensor."""
    data = x._data if isinstance(x, Tensor) else x
    p, low, up = _plu(data)
    if isinstance(x, Tensor):
        return wrap(p), lu_l(x), lu_u(x)
    return p, low, up


def _right_solve(b, a):
    """B A⁻¹"""
    return _mT(solve_op(_mT(a), _mT(b), vector=False))


def _left_solve_t(a, b):
    """A⁻ᵀ B"""
    return solve_op(_mT(a), b, vector=False)


def _lu_vjp(g_l, g_u, x):
    """A = P L U: with Φ = tril(Lᵀ G_L, -1) + triu(G_U Uᵀ), gA = P L⁻ᵀ Φ U⁻ᵀ; for a wide A
    the columns past U's square block add L⁻ᵀ G_U₂ (and -G_U₂ U₂ᵀ to Lᵀ G_L), for a tall A
    the rows past L's square block add G_L₂ U⁻ᵀ (and -L₂ᵀ G_L₂ to G_U Uᵀ)"""
    m, n = x.shape[-2], x.shape[-1]
    p, low, up = _lu_parts(x)
    if m <= n:
        up1 = _getitem(up, (Ellipsis, slice(None, m)))
        lower = _mT(low) @ g_l if g_l is not None else 0
        upper = 0
        g_u2 = None
        if g_u is not None:
            upper = _getitem(g_u, (Ellipsis, slice(None, m))) @ _mT(up1)
            if m < n:
                g_u2 = _getitem(g_u, (Ellipsis, slice(m, None)))
                lower = lower - g_u2 @ _mT(_getitem(up, (Ellipsis, slice(m, None))))
        phi = _tril_or_zero(lower) + _triu_or_zero(upper)
        out = _right_solve(_left_solve_t(low, phi), _mT(up1))
        if m < n:
            out = out @ _eye(m, x, n)
            if g_u2 is not None:
                out = out + _left_solve_t(low, g_u2) @ _eye(n - m, x, n, m)
        return p @ out
    low1 = _getitem(low, (Ellipsis, slice(None, n), slice(None)))
    lower = (
        _mT(low1) @ _getitem(g_l, (Ellipsis, slice(None, n), slice(None))) if g_l is not None else 0
    )
    upper = g_u @ _mT(up) if g_u is not None else 0
    g_l2 = None
    if g_l is not None:
        g_l2 = _getitem(g_l, (Ellipsis, slice(n, None), slice(None)))
        upper = upper - _mT(_getitem(low, (Ellipsis, slice(n, None), slice(None)))) @ g_l2
    phi = _tril_or_zero(lower) + _triu_or_zero(upper)
    out = _eye(m, x, n) @ _right_solve(_left_solve_t(low1, phi), _mT(up))
    if g_l2 is not None:
        out = out + _eye(m, x, m - n, -n) @ _right_solve(g_l2, _mT(up))
    return p @ out


def _tril_or_zero(v):
    """tril(v, -1), where v is a matrix, or 0 (no gradient reached that factor)."""
    return tril_op(v, diagonal=-1) if not isinstance(v, int) else 0


def _triu_or_zero(v):
    return triu_op(v, diagonal=0) if not isinstance(v, int) else 0


def _lu_jvp(t, x, which: int):
    """X = L⁻¹ Pᵀ T U⁻¹ on the square block: dL = L tril(X, -1), dU = triu(X) U; the rest
    of U (wide) or L (tall) follows from U₂ = L⁻¹ Pᵀ A₂ or L₂ = (Pᵀ A)₂ U⁻¹."""
    m, n = x.shape[-2], x.shape[-1]
    p, low, up = _lu_parts(x)
    pt = _mT(p) @ t
    if m <= n:
        up1 = _getitem(up, (Ellipsis, slice(None, m)))
        inner = _right_solve(
            solve_op(low, _getitem(pt, (Ellipsis, slice(None, m))), vector=False), up1
        )
        d_low = low @ tril_op(inner, diagonal=-1)
        if which == 0:
            return d_low
        d_up = triu_op(inner, diagonal=0) @ up1
        if m == n:
            return d_up
        up2 = _getitem(up, (Ellipsis, slice(m, None)))
        d_up2 = solve_op(low, _getitem(pt, (Ellipsis, slice(m, None))) - d_low @ up2, vector=False)
        return d_up @ _eye(m, x, n) + d_up2 @ _eye(n - m, x, n, m)
    low1 = _getitem(low, (Ellipsis, slice(None, n), slice(None)))
    inner = _right_solve(
        solve_op(low1, _getitem(pt, (Ellipsis, slice(None, n), slice(None))), vector=False), up
    )
    d_up = triu_op(inner, diagonal=0) @ up
    if which == 1:
        return d_up
    d_low1 = low1 @ tril_op(inner, diagonal=-1)
    low2 = _getitem(low, (Ellipsis, slice(n, None), slice(None)))
    d_low2 = _right_solve(_getitem(pt, (Ellipsis, slice(n, None), slice(None))) - low2 @ d_up, up)
    return _eye(m, x, n) @ d_low1 + _eye(m, x, m - n, -n) @ d_low2


_LU_CONVENTION = "The gradient assumes the pivoting does not change (it is constant nearby)."
lu_l = defop(
    "lu_l",
    _lu_l,
    dtypes=KEEP,
    node="LinalgLuBackward0",
    vjp=lambda g, x: _lu_vjp(g, None, x),
    jvp=lambda t, x: _lu_jvp(t, x, 0),
    conventions=_LU_CONVENTION,
)
lu_u = defop(
    "lu_u",
    _lu_u,
    dtypes=KEEP,
    node="LinalgLuBackward0",
    vjp=lambda g, x: _lu_vjp(None, g, x),
    jvp=lambda t, x: _lu_jvp(t, x, 1),
    conventions=_LU_CONVENTION,
)


def _lu_packed(x):
    """the packed LU factors (L's strict lower part and U)"""
    _check_matrix("lu_factor", x, square=False)
    return _factor(("lu_factor",), x, lambda: _lu_compact(x))[0]


def _lu_packed_vjp(g, x):
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n)
    g_l = tril_op(_getitem(g, (Ellipsis, slice(None, k))), diagonal=-1)
    g_u = triu_op(_getitem(g, (Ellipsis, slice(None, k), slice(None))), diagonal=0)
    return _lu_vjp(g_l, g_u, x)


def _lu_packed_jvp(t, x):
    m, n = x.shape[-2], x.shape[-1]
    d_low = tril_op(_lu_jvp(t, x, 0), diagonal=-1)
    d_up = _lu_jvp(t, x, 1)
    if m >= n:
        return d_low + _eye(m, x, n) @ d_up
    return d_low @ _eye(m, x, n) + d_up


lu_packed = defop(
    "lu_packed",
    _lu_packed,
    dtypes=KEEP,
    node="LinalgLuFactorExBackward0",
    vjp=_lu_packed_vjp,
    jvp=_lu_packed_jvp,
    conventions=_LU_CONVENTION,
)


# ----- matrix exponential ------------------------------------------------------------------------

# The [13/13] Padé approximant of e^x (Higham, "The scaling and squaring method for the
# matrix exponential revisited", 2005): e^A ≈ (V - U)⁻¹ (V + U) for ‖A‖₁ ≤ θ₁₃.
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0,
           1187353796428800.0, 129060195264000.0, 10559470521600.0, 670442572800.0,
           33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)  # fmt: skip
_THETA13 = 5.371920351148152


def _matrix_exp(x):
    """e^X = Σ Xᵏ/k!, by scaling and squaring with a [13/13] Padé approximant"""
    _check_matrix("matrix_exp", x)
    a = x.astype(xp.float64)
    n = a.shape[-1]
    if a.size == 0:
        return xp.broadcast_to(xp.eye(n), a.shape).astype(x.dtype)
    norm = xp.abs(a).sum(axis=-2).max()  # the largest ‖A‖₁ in the batch
    s = max(0, int(xp.ceil(xp.log2(norm / _THETA13)))) if norm > _THETA13 else 0
    a = a / 2.0**s
    b = _PADE13
    eye = xp.eye(n)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2
             + b[1] * eye)  # fmt: skip
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    r = xp.linalg.solve(v - u, v + u)
    for _ in range(s):
        r = r @ r
    return r.astype(x.dtype)


def _exp_frechet(a, e):
    """The derivative of e^A along E: the upper-right block of exp([[A, E], [0, A]])."""
    n = a.shape[-1]
    top = _eye(n, a, 2 * n)  # [I 0]
    bottom = _eye(n, a, 2 * n, n)  # [0 I]
    block = _mT(top) @ a @ top + _mT(top) @ e @ bottom + _mT(bottom) @ a @ bottom
    return top @ matrix_exp_op(block) @ _mT(bottom)


matrix_exp_op = defop(
    "matrix_exp",
    _matrix_exp,
    dtypes=KEEP,
    node="LinalgMatrixExpBackward0",
    vjp=lambda g, x: _exp_frechet(_mT(x), g),  # the adjoint of the Fréchet derivative
    jvp=lambda t, x: _exp_frechet(x, t),
)


# ----- reductions for the matrix norms -------------------------------------------------------


def _amax(x, dim=(-1,), keepdim=False):
    """max over dim"""
    return xp.amax(x, axis=dim, keepdims=keepdim)


def _amin(x, dim=(-1,), keepdim=False):
    """min over dim"""
    return xp.amin(x, axis=dim, keepdims=keepdim)


def _extreme_vjp(g, x, ans, dim, keepdim):
    """the gradient goes to the entries equal to the extreme, shared equally among ties"""
    hit = ew.eq(x, unreduce(ans, tuple(x.shape), dim, keepdim))
    hit = hit._data if isinstance(hit, Tensor) else hit
    count = xp.sum(hit, axis=dim, keepdims=True).astype(_np_dtype(x))
    return unreduce(g, tuple(x.shape), dim, keepdim) * (hit / count)


def _extreme_jvp(t, x, ans, dim, keepdim):
    """the mean of the tangent over the entries that tie for the extreme"""
    return red.sum(
        _extreme_vjp(ew.clone(ans) * 0 + 1, x, ans, dim, keepdim) * t, dim=dim, keepdim=keepdim
    )


_TIES = "Ties share the gradient equally, as in PyTorch's amax/amin."
norm_amax = defop(
    "norm_amax",
    _amax,
    dtypes=KEEP,
    node="AmaxBackward0",
    vjp=_extreme_vjp,
    jvp=_extreme_jvp,
    conventions=_TIES,
)
norm_amin = defop(
    "norm_amin",
    _amin,
    dtypes=KEEP,
    node="AminBackward0",
    vjp=_extreme_vjp,
    jvp=_extreme_jvp,
    conventions=_TIES,
)


# ===== public functions ======================================================================


def _require_tensor(name: str, value, position: int = 1, arg: str = "input") -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(
            f"{name}(): argument '{arg}' (position {position}) must be Tensor, not "
            f"{type(value).__name__}"
        )
    return value


def bmm(input, mat2, *, out=None):  # noqa: F811 - the public function over the op
    """The batched matrix product of two (b, n, k) and (b, k, m) tensors."""
    return la.bmm(_require_tensor("bmm", input), _require_tensor("bmm", mat2, 2, "mat2"))


def mv(input, vec, *, out=None):  # noqa: F811
    """The product of a matrix and a vector."""
    return la.mv(_require_tensor("mv", input), _require_tensor("mv", vec, 2, "vec"))


def dot(input, tensor, *, out=None):  # noqa: F811
    """The dot product of two 1-D tensors (no broadcasting)."""
    return la.dot(_require_tensor("dot", input), _require_tensor("dot", tensor, 2, "tensor"))


def vdot(input, other, *, out=None):
    """Σᵢ conj(input)ᵢ otherᵢ: the dot product (real tensors only, so no conjugation)."""
    return la.vdot(_require_tensor("vdot", input), _require_tensor("vdot", other, 2, "other"))


def matmul(input, other, *, out=None):  # noqa: F811
    """The matrix product with PyTorch's rules for 1-D and batched operands."""
    return la.matmul(input, _tensor_arg(other))


def mm(input, mat2, *, out=None):  # noqa: F811
    """The product of two 2-D tensors."""
    return la.mm(input, mat2)


def _addmm_family(op, name: str):
    def fn(input, a, b, *, beta=1, alpha=1, out=None):
        return op(input, a, b, beta=beta, alpha=alpha)

    fn.__name__ = name
    fn.__doc__ = f"beta · input + alpha · (the product of the other two): PyTorch's {name}."
    return fn


addmm = _addmm_family(la.addmm, "addmm")
addmv = _addmm_family(la.addmv, "addmv")
addr = _addmm_family(la.addr, "addr")
baddbmm = _addmm_family(la.baddbmm, "baddbmm")
addbmm = _addmm_family(la.addbmm, "addbmm")


def outer(input, vec2, *, out=None):
    """input ⊗ vec2: the matrix of products input[i] * vec2[j]."""
    for name, v in (("self", input), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v.ndim}-D")
    return _unsq(input, -1) * vec2


ger = outer


def inner(input, other, *, out=None):
    """Σ over the last dims: input[..., k] * other[..., k] for every pair of leading indices."""
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(
            "inner() the last dimension must match on both input tensors but got shapes "
            f"{list(input.shape)} and {list(other.shape)}"
        )
    return tensordot(input, other, dims=([-1], [-1]))


def _wrap_dims(dims, ndim: int) -> list:
    return [dims_of(d, ndim)[0] for d in dims]


def tensordot(a, b, dims=2, out=None):
    """Σ over the paired dims (the last ``dims`` of a with the first of b, or explicit lists)."""
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        dims_a = list(range(-dims, 0))
        dims_b = list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
        if len(dims_a) != len(dims_b):
            raise RuntimeError("both dimension lists should have same length")
    for da, db in zip(dims_a, dims_b):
        if a.shape[da] != b.shape[db]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {a.shape[da]} in dim "
                f"{da} and second has size {b.shape[db]} in dim {db}"
            )
    dims_a, dims_b = _wrap_dims(dims_a, a.ndim), _wrap_dims(dims_b, b.ndim)
    free_a = [d for d in range(a.ndim) if d not in dims_a]
    free_b = [d for d in range(b.ndim) if d not in dims_b]
    size = math.prod(a.shape[d] for d in dims_a)
    left = sh.reshape(_permute(a, free_a + dims_a), (math.prod(a.shape[d] for d in free_a), size))
    right = sh.reshape(_permute(b, dims_b + free_b), (size, math.prod(b.shape[d] for d in free_b)))
    shape = tuple(a.shape[d] for d in free_a) + tuple(b.shape[d] for d in free_b)
    return sh.reshape(la.mm(left, right), shape)


def _permute(x, dims):
    dims = tuple(dims)
    if dims == tuple(range(x.ndim)):
        return x
    return sh.permute(x, dims=dims)


def trace(input):
    """The sum of the main diagonal of a matrix."""
    return trace_op(_require_tensor("trace", input))


def diag(input, diagonal=0, *, out=None):
    """A vector's diagonal matrix, or a matrix's diagonal (``diagonal`` above or below)."""
    if input.ndim == 1:
        return diag_embed_op(input, offset=diagonal, dim1=0, dim2=1)
    if input.ndim == 2:
        return diagonal_copy(input, offset=diagonal, dim1=0, dim2=1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Matrices (over dim1, dim2) with input's last dim on their diagonal ``offset``."""
    nd = input.ndim + 1
    d1, d2 = dims_of(dim1, nd)[0], dims_of(dim2, nd)[0]
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return diag_embed_op(input, offset=offset, dim1=d1, dim2=d2)


def diagflat(input, offset=0):
    """The diagonal matrix of input's flattened entries."""
    return diag_embed_op(sh.reshape(input, (-1,)), offset=offset, dim1=0, dim2=1)


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal over dims (dim1, dim2), as the last dim: a view."""
    nd = input.ndim
    d1, d2 = dims_of(dim1, nd)[0], dims_of(dim2, nd)[0]
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return diagonal_op(input, offset=offset, dim1=d1, dim2=d2)


def tril(input, diagonal=0, *, out=None):
    """The lower triangle (on and below the diagonal ``diagonal``) of the last two dims."""
    return tril_op(input, diagonal=diagonal)


def triu(input, diagonal=0, *, out=None):
    """The upper triangle (on and above the diagonal ``diagonal``) of the last two dims."""
    return triu_op(input, diagonal=diagonal)


def _cross_dim(input, other, dim) -> int:
    """dim, checked and counted from the end (so it names the same dim in both inputs)."""
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = dims_of(dim, input.ndim)[0]
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[d]} "
            f"and {other.shape[d]}"
        )
    return d - input.ndim


def cross(input, other, dim=None, *, out=None):
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
    return cross_op(input, other, dim=_cross_dim(input, other, dim))


def linalg_cross(input, other, *, dim=-1, out=None):
    """input × other along dim (of size 3), broadcasting."""
    return cross_op(input, other, dim=_cross_dim(input, other, dim))


def inv(A, *, out=None):
    """A⁻¹ for a (batch of) square matrices."""
    return inv_op(_require_tensor("linalg_inv", A, arg="A"))


inverse = inv


def det(A, *, out=None):
    """The determinant of a (batch of) square matrices."""
    return det_op(_require_tensor("linalg_det", A, arg="A"))


def _return_type(name: str, fields: tuple):
    """A named tuple that prints as torch.return_types.<name>."""
    cls = NamedTuple(name, [(f, Tensor) for f in fields])

    def __repr__(self) -> str:  # noqa: N807
        body = ",\n".join(f"{f}={getattr(self, f)!r}" for f in fields)
        return f"torch.return_types.{name}(\n{body})"

    cls.__repr__ = __repr__
    cls.__module__ = "torch.return_types"
    return cls


_SLOGDET = _return_type("slogdet", ("sign", "logabsdet"))
_LINALG_SLOGDET = _return_type("linalg_slogdet", ("sign", "logabsdet"))
_LINALG_EIGH = _return_type("linalg_eigh", ("eigenvalues", "eigenvectors"))
_LINALG_SVD = _return_type("linalg_svd", ("U", "S", "Vh"))
_SVD = _return_type("svd", ("U", "S", "V"))
_LINALG_QR = _return_type("linalg_qr", ("Q", "R"))
_QR = _return_type("qr", ("Q", "R"))


def linalg_slogdet(A, *, out=None):
    """(sign, log |det A|): the determinant without overflow."""
    A = _require_tensor("linalg_slogdet", A, arg="A")
    with _sharing():
        return _LINALG_SLOGDET(det_sign(A), logabsdet_op(A))


def slogdet(input):
    """(sign, log |det input|)."""
    with _sharing():
        return _SLOGDET(det_sign(input), logabsdet_op(input))


def logdet(input):
    """log det input: nan where the determinant is negative, -inf where it is 0."""
    sign = det_sign(input)
    return ew.where(sign < 0, math.nan, logabsdet_op(input))


def solve(A, B, *, left=True, out=None):
    """X with A X = B (B a matrix, a vector, or batches of them)."""
    if not left:
        return _mT(solve(_mT(A), _mT(B)))
    A = _require_tensor("linalg_solve", A, arg="A")
    B = _require_tensor("linalg_solve", B, 2, "B")
    return solve_op(A, B, vector=_is_vector_rhs(tuple(A.shape), tuple(B.shape)))


def linalg_cholesky(A, *, upper=False, out=None):
    """The lower-triangular L with A = L Lᵀ (A symmetric positive-definite)."""
    return cholesky_op(_require_tensor("linalg_cholesky", A, arg="A"), upper=upper)


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """X with A X = B (or X A = B), A triangular."""
    return solve_triangular_op(A, B, upper=upper, left=left, unitriangular=unitriangular)


def cholesky(input, upper=False, *, out=None):
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
    return cholesky_legacy(input, upper=upper)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """The number of singular values above max(atol, rtol · s_max) (an int64 tensor)."""
    _check_matrix("matrix_rank", A._data, square=False)
    s = xp.linalg.svd(A._data, compute_uv=False)
    if rtol is None:
        eps = xp.finfo(A._data.dtype).eps * max(A.shape[-2:])
        rtol = eps if atol is None or atol == 0 else 0.0
    s_max = s[..., :1] if s.shape[-1] else s
    tol = xp.maximum(0.0 if atol is None else atol, rtol * s_max)
    return wrap(xp.sum(s > tol, axis=-1).astype(xp.int64))


_LINALG_LSTSQ = _return_type("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))


def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution of A X = B, with PyTorch's (solution, residuals, rank,
    singular_values); which of the last three are filled depends on the driver."""
    driver = driver or "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(
            "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)"
        )
    solution = lstsq_op(A, B, rcond=rcond)
    empty = wrap(xp.zeros((0,), dtype=_np_dtype(A)))
    m, n = A.shape[-2], A.shape[-1]
    rank = matrix_rank(A) if driver != "gels" else wrap(xp.zeros((0,), dtype=xp.int64))
    residuals = empty
    if driver != "gelsy" and m > n and bool((rank._data == n).all()):
        residual = A @ solution - B
        residuals = red.sum(residual * residual, dim=-2 if B.ndim > 1 else -1)
    values = empty
    if driver in ("gelsd", "gelss"):
        values = wrap(xp.linalg.svd(A._data, compute_uv=False))
    return _LINALG_LSTSQ(solution, residuals, rank, values)


def matrix_exp(A):
    """e^A for a (batch of) square matrices."""
    return matrix_exp_op(_require_tensor("linalg_matrix_exp", A, arg="A"))


def cond(A, p=None, *, out=None):
    """The condition number ‖A‖ ‖A⁻¹‖ (for p None or 2: s_max / s_min)."""
    if p is None or p in (2, -2):
        s = svdvals_op(A)
        first, last = _getitem(s, (Ellipsis, 0)), _getitem(s, (Ellipsis, -1))
        return first / last if p != -2 else last / first
    return matrix_norm(A, p) * matrix_norm(inv_op(A), p)


_INV_EX = _return_type("linalg_inv_ex", ("inverse", "info"))
_CHOLESKY_EX = _return_type("linalg_cholesky_ex", ("L", "info"))
_SOLVE_EX = _return_type("linalg_solve_ex", ("result", "info"))


def _info(A, failed) -> Tensor:
    """LAPACK's info per matrix: 0, or the order at which it failed."""
    data = A._data
    n = data.shape[-1]
    flat = data.reshape((-1, n, n))
    info = xp.array([failed(a) for a in flat], dtype=xp.int32)
    return wrap(info.reshape(data.shape[:-2]))


def _pivot_info(a) -> int:
    return _first_zero_pivot(a) if _is_singular(a) else 0


def inv_ex(A, *, check_errors=False, out=None):
    """(inverse, info): info is 0, or the first zero pivot of a singular matrix (whose
    inverse is then nan)."""
    _check_matrix("inv_ex", A._data)
    info = _info(A, _pivot_info)
    if not info._data.any():
        return _INV_EX(inv_op(A), info)
    if check_errors:
        inv_op(A)  # raises PyTorch's error
    ok = wrap((info._data == 0)[..., None, None])
    safe = ew.where(ok, A, wrap(_eye(A.shape[-1], A._data)))
    return _INV_EX(ew.where(ok, inv_op(safe), math.nan), info)


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """(L, info): info is 0, or the order of the first leading minor that is not
    positive-definite (L is then nan)."""
    _check_matrix("cholesky", A._data)
    info = _info(A, _failed_minor)
    if not info._data.any():
        return _CHOLESKY_EX(cholesky_op(A, upper=upper), info)
    if check_errors:
        cholesky_op(A)
    ok = wrap((info._data == 0)[..., None, None])
    safe = ew.where(ok, A, wrap(_eye(A.shape[-1], A._data)))
    return _CHOLESKY_EX(ew.where(ok, cholesky_op(safe, upper=upper), math.nan), info)


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """(result, info): info is 0, or the first zero pivot of a singular A."""
    _check_matrix("solve", A._data)
    info = _info(A, _pivot_info)
    if info._data.any() and check_errors:
        solve(A, B, left=left)
    return _SOLVE_EX(solve(A, B, left=left), info)


_LINALG_LU = _return_type("linalg_lu", ("P", "L", "U"))
_LINALG_LU_FACTOR = _return_type("linalg_lu_factor", ("LU", "pivots"))
_LU_UNPACK = _return_type("lu_unpack", ("P", "L", "U"))


def linalg_lu(A, *, pivot=True, out=None):
    """(P, L, U) with A = P L U: L unit lower triangular, U upper triangular."""
    if not pivot:
        raise NotImplementedError("linalg.lu(pivot=False) is not implemented in chainrule yet")
    A = _require_tensor("linalg_lu", A, arg="A")
    _check_matrix("lu", A._data, square=False)
    with _sharing():
        p = wrap(_factor(("lu",), A._data, lambda: _plu(A._data))[0])
        return _LINALG_LU(p, lu_l(A), lu_u(A))


def lu_factor(A, *, pivot=True, out=None):
    """(LU, pivots): L and U packed in one matrix, and LAPACK's 1-based row swaps."""
    if not pivot:
        raise NotImplementedError("linalg.lu_factor(pivot=False) is not implemented yet")
    A = _require_tensor("linalg_lu_factor", A, arg="A")
    _check_matrix("lu_factor", A._data, square=False)
    with _sharing():
        pivots = wrap(_factor(("lu_factor",), A._data, lambda: _lu_compact(A._data))[1])
        return _LINALG_LU_FACTOR(lu_packed(A), pivots)


def lu(A, pivot=True, get_infos=False, out=None):
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


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):  # noqa: N803
    """(P, L, U) from lu_factor's packed factors."""
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    k = min(m, n)
    low = tril_op(_getitem(LU_data, (Ellipsis, slice(None, k))), diagonal=-1) + _eye(m, LU_data, k)
    up = triu_op(_getitem(LU_data, (Ellipsis, slice(None, k), slice(None))), diagonal=0)
    p = wrap(_permutation(LU_pivots._data, m, _np_dtype(LU_data)))
    return _LU_UNPACK(p, low, up)


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):  # noqa: N803
    """X with A X = B (or X A = B, or with Aᵀ) from A's packed LU factors."""
    p, low, up = lu_unpack(LU, pivots)
    if left and not adjoint:  # A X = B: U X = L⁻¹ Pᵀ B
        y = solve_triangular_op(low, _mT(p) @ B, upper=False, left=True, unitriangular=True)
        return solve_triangular_op(up, y, upper=True, left=True, unitriangular=False)
    if left:  # Aᵀ X = B: Uᵀ Lᵀ Pᵀ X = B
        y = solve_triangular_op(_mT(up), B, upper=False, left=True, unitriangular=False)
        z = solve_triangular_op(_mT(low), y, upper=True, left=True, unitriangular=True)
        return p @ z
    return _mT(lu_solve(LU, pivots, _mT(B), left=True, adjoint=not adjoint))


def vander(x, *, N=None):  # noqa: N803
    """The Vandermonde matrices [1, x, x², ..., x^(N-1)] of the last dim of x."""
    n = x.shape[-1] if N is None else N
    if N is not None and N < 1:
        raise RuntimeError("N must be greater than 1.")
    column = x * 0 + 1  # x⁰, built from x so that it has x's shape and dtype
    out = 0
    for k in range(n):  # columns by repeated multiplication: no 0 ** -1 in the gradient
        out = out + _unsq(column, -1) * _eye(n, x)[k]
        column = column * x
    return out


def tensorinv(A, ind=2, *, out=None):
    """The inverse of A for tensordot over its first ``ind`` dims."""
    rows, cols = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    if math.prod(rows) != math.prod(cols):
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[ind:]) == "
            f"prod(self.shape[:ind]), but got {math.prod(cols)} != {math.prod(rows)}"
        )
    square = sh.reshape(A, (math.prod(rows), math.prod(cols)))
    return sh.reshape(inv_op(square), cols + rows)


def tensorsolve(A, B, dims=None, *, out=None):
    """X with tensordot(A, X, X.ndim) = B."""
    if dims is not None:
        moved = [d % A.ndim for d in dims]
        A = _permute(A, [d for d in range(A.ndim) if d not in moved] + moved)
    rest = tuple(A.shape[B.ndim :])
    if math.prod(rest) != math.prod(B.shape) or tuple(A.shape[: B.ndim]) != tuple(B.shape):
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
            f"prod(self.shape[:other.ndim]), but got {math.prod(rest)} != "
            f"{math.prod(B.shape)}"
        )
    square = sh.reshape(A, (math.prod(B.shape), math.prod(rest)))
    return sh.reshape(solve_op(square, sh.reshape(B, (-1,)), vector=True), rest)


def linalg_diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonal of each matrix over dims (dim1, dim2): a view."""
    return diagonal(A, offset, dim1, dim2)


def cholesky_solve(B, L, upper=False, *, out=None):
    """X with A X = B, given A's Cholesky factor L (A = L Lᵀ, or Uᵀ U when ``upper``)."""
    a = _mT(L) @ L if upper else L @ _mT(L)
    return solve_op(a, B, vector=False)


def cholesky_inverse(L, upper=False, *, out=None):
    """(L Lᵀ)⁻¹ from the Cholesky factor L."""
    if upper:
        return inv_op(_mT(L) @ L)
    return inv_op(L @ _mT(L))


def _check_mode(mode: str) -> None:
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
            "'r', or 'complete'"
        )


def linalg_qr(A, mode="reduced", *, out=None):
    """(Q, R) with A = QR, Q with orthonormal columns and R upper triangular."""
    _check_mode(mode)
    with _sharing():
        return _LINALG_QR(qr_q(A, mode=mode), qr_r(A, mode=mode))


def qr(input, some=True, *, out=None):
    """(Q, R) with input = QR (reduced when ``some``)."""
    mode = "reduced" if some else "complete"
    with _sharing():
        return _QR(qr_q(input, mode=mode), qr_r(input, mode=mode))


def eigh(A, UPLO="L", *, out=None):  # noqa: N803
    """The eigenvalues (ascending) and orthonormal eigenvectors of a symmetric A."""
    _check_uplo(UPLO)
    with _sharing():
        return _LINALG_EIGH(eigvalsh_op(A, uplo=UPLO), eigh_vectors(A, uplo=UPLO))


def eigvalsh(A, UPLO="L", *, out=None):  # noqa: N803
    """The eigenvalues (ascending) of a symmetric A."""
    _check_uplo(UPLO)
    return eigvalsh_op(A, uplo=UPLO)


def _check_uplo(uplo: str) -> None:
    if uplo not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {uplo}")


def linalg_svd(A, full_matrices=True, *, driver=None, out=None):
    """(U, S, Vh) with A = U diag(S) Vh, singular values descending."""
    with _sharing():
        _shared.full = full_matrices
        return _LINALG_SVD(
            svd_u(A, full_matrices=full_matrices),
            svdvals_op(A),
            svd_vh(A, full_matrices=full_matrices),
        )


def svd(input, some=True, compute_uv=True, *, out=None):
    """(U, S, V) with input = U diag(S) Vᵀ (torch.svd's older form: V, not Vh)."""
    full = not some
    if not compute_uv:  # U and V come back as zeros, of their full shapes
        batch, (m, n) = tuple(input.shape[:-2]), tuple(input.shape[-2:])
        u = wrap(xp.zeros(batch + (m, m), _np_dtype(input)))
        v = wrap(xp.zeros(batch + (n, n), _np_dtype(input)))
        return _SVD(u, svdvals_op(input), v)
    with _sharing():
        _shared.full = full
        u, s, vh = (
            svd_u(input, full_matrices=full),
            svdvals_op(input),
            svd_vh(input, full_matrices=full),
        )
    return _SVD(u, s, _mT(vh))


def svdvals(A, *, driver=None, out=None):
    """The singular values of A, descending."""
    return svdvals_op(A)


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """The Moore-Penrose pseudo-inverse, through the SVD."""
    A = _require_tensor("linalg_pinv", A, arg="A")
    return pinv_op(A, atol=atol, rtol=rtol, hermitian=hermitian)


def pinverse(input, rcond=1e-15):
    """The pseudo-inverse, singular values below rcond · s_max dropped."""
    return pinv_op(input, atol=None, rtol=rcond, hermitian=False)


def matrix_power(input, n):
    """input multiplied by itself n times (n < 0: the inverse's power; n = 0: the identity)."""
    if input.ndim < 2 or input.shape[-1] != input.shape[-2]:
        raise RuntimeError(
            "linalg.matrix_power: A must be batches of square matrices, but they are "
            f"{input.shape[-2] if input.ndim > 1 else 1} by {input.shape[-1]} matrices"
        )
    if n == 0:
        eye = xp.broadcast_to(xp.eye(input.shape[-1], dtype=_np_dtype(input)), input.shape)
        return wrap(eye.copy())
    base = inv_op(input) if n < 0 else input
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


def chain_matmul(*matrices, out=None):
    """The product of the matrices, left to right."""
    out = matrices[0]
    for m in matrices[1:]:
        out = mm(out, m)
    return out


def vecdot(x, y, *, dim=-1, out=None):
    """Σ x * y over dim, broadcasting."""
    return red.sum(x * y, dim=dim)


def multi_dot(tensors, *, out=None):
    """The product of the matrices (the first and last may be vectors), left to right."""
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    out = tensors[0]
    for m in tensors[1:]:
        out = matmul(out, m)
    return out


# ----- norms --------------------------------------------------------------------------------------


def _last_two(A, dim) -> tuple:
    """A with the matrix dims ``dim`` moved last, and those dims normalized."""
    if A.ndim < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    d = _wrap_dims(list(dim), A.ndim)
    if len(d) != 2:
        raise RuntimeError(
            f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}"
        )
    if d[0] == d[1]:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d[0]}, {d[1]})")
    rest = [i for i in range(A.ndim) if i not in d]
    return _permute(A, rest + d), d


def _keep(out, dims: list, keepdim: bool):
    if not keepdim:
        return out
    shape = list(out.shape)
    for d in sorted(dims):
        shape.insert(d, 1)
    return sh.reshape(out, tuple(shape))


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):  # noqa: A002
    """The matrix norm: 'fro', 'nuc', ±1 (column sums), ±2 (singular values), ±inf (row sums)."""
    if dtype is not None:
        A = A.to(dtype)
    if A.ndim < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    _check_floating("matrix_norm", A._data)
    if ord == "fro":
        d = _wrap_dims(list(dim), A.ndim)
        return red.vector_norm(A, ord=2, dim=tuple(d), keepdim=keepdim)
    if ord not in ("nuc", 1, -1, 2, -2, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    moved, d = _last_two(A, dim)
    if ord == "nuc":
        out = red.sum(svdvals_op(moved), dim=-1)
    elif ord in (2, -2):
        op = norm_amax if ord == 2 else norm_amin
        out = op(svdvals_op(moved), dim=(-1,))
    else:
        axis = -2 if abs(ord) == 1 else -1  # column sums for ±1, row sums for ±inf
        op = norm_amax if ord > 0 else norm_amin
        out = op(red.vector_norm(moved, ord=1, dim=axis), dim=(-1,))
    return _keep(out, d, keepdim)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A002
    """(Σ |x|^ord)^(1/ord) over dim (all entries when None)."""
    return functions.vector_norm(x, ord, dim, keepdim, dtype=dtype)


def norm(A, ord=None, dim=None, keepdim=False, *, out=None, dtype=None):  # noqa: A002
    """A vector norm (1-D input, an int dim) or a matrix norm (2-D input, a 2-tuple dim)."""
    if isinstance(dim, int):
        dim = (dim,)
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


# ----- einsum -------------------------------------------------------------------------------------

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _parse_einsum(equation: str, operands) -> tuple[list[list[str]], list[str]]:
    """Each operand's labels (ellipsis dims as labels of their own) and the output's."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    ell_dims = 0
    for i, (term, op) in enumerate(zip(terms, operands)):
        named = len(term.replace("...", ""))
        if "..." in term:
            ell_dims = max(ell_dims, op.ndim - named)
        elif named != op.ndim:
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({named}) does not match "
                f"the number of dimensions ({op.ndim}) for operand {i} and no ellipsis was given"
            )
    ell = [f"…{j}" for j in range(ell_dims)]  # labels for the ellipsis dims, right-aligned

    def labels(term: str, ndim: int) -> list[str]:
        if "..." not in term:
            return list(term)
        before, after = term.split("...")
        k = ndim - len(before) - len(after)
        return list(before) + ell[ell_dims - k :] + list(after)

    ins = [labels(t, op.ndim) for t, op in zip(terms, operands)]
    for lab in ins:
        for c in lab:
            if not c.startswith("…") and c not in _LETTERS:
                raise RuntimeError(
                    f"einsum(): invalid subscript given at index {eq.index(c)} in "
                    "the equation string, subscripts must be in [a-zA-Z]"
                )
    if arrow:
        out = labels(rhs, len(rhs.replace("...", "")) + ell_dims)
    else:
        counts: dict[str, int] = {}
        for lab in ins:
            for c in lab:
                counts[c] = counts.get(c, 0) + 1
        out = ell + sorted(c for c, n in counts.items() if n == 1 and not c.startswith("…"))
    return ins, out


def _einsum_diagonals(x, lab: list[str]):
    """x with repeated labels reduced to their diagonal (each label once)."""
    while len(set(lab)) != len(lab):
        c = next(c for c in lab if lab.count(c) > 1)
        i = lab.index(c)
        j = lab.index(c, i + 1)
        if x.shape[i] != x.shape[j]:
            raise RuntimeError(
                f"einsum(): subscript {c} is repeated for operand but the sizes don't match, "
                f"{x.shape[i]} != {x.shape[j]}"
            )
        x = diagonal_op(x, offset=0, dim1=i, dim2=j)
        lab = [c2 for k, c2 in enumerate(lab) if k not in (i, j)] + [c]
    return x, lab


def _einsum_sum_out(x, lab: list[str], keep: set):
    """x summed over the labels not in ``keep``."""
    drop = [i for i, c in enumerate(lab) if c not in keep]
    if not drop:
        return x, lab
    return red.sum(x, dim=tuple(drop)), [c for c in lab if c in keep]


def _einsum_pair(a, lab_a: list[str], b, lab_b: list[str], keep: set):
    """The contraction of two operands over their shared labels not in ``keep``, by matmul."""
    batch = [c for c in lab_a if c in lab_b and c in keep]
    summed = [c for c in lab_a if c in lab_b and c not in keep]
    left = [c for c in lab_a if c not in lab_b]
    right = [c for c in lab_b if c not in lab_a]
    size = {}
    for x, lab in ((a, lab_a), (b, lab_b)):
        for c, s in zip(lab, x.shape):
            if c in size and size[c] != s and 1 not in (size[c], s):
                raise RuntimeError(
                    f"einsum(): operands do not broadcast with remapped shapes "
                    f"(original->remapped): subscript {c} has sizes {size[c]} and {s}"
                )
            size[c] = max(size.get(c, s), s)
    for c in summed:  # a contracted label of size 1 on one side: sum the other side first
        ia, ib = lab_a.index(c), lab_b.index(c)
        if a.shape[ia] != b.shape[ib]:
            if a.shape[ia] == 1:
                b = red.sum(b, dim=ib, keepdim=True)
            else:
                a = red.sum(a, dim=ia, keepdim=True)
            size[c] = 1
    a2 = _permute(a, [lab_a.index(c) for c in batch + left + summed])
    b2 = _permute(b, [lab_b.index(c) for c in batch + summed + right])
    nb = len(batch)
    k = math.prod(size[c] for c in summed)
    a2 = sh.reshape(a2, tuple(a2.shape[:nb]) + (math.prod(size[c] for c in left), k))
    b2 = sh.reshape(b2, tuple(b2.shape[:nb]) + (k, math.prod(size[c] for c in right)))
    out = la.matmul(a2, b2)
    shape = tuple(out.shape[:nb]) + tuple(size[c] for c in left) + tuple(size[c] for c in right)
    return sh.reshape(out, shape), batch + left + right


def einsum(equation, *operands):
    """Einstein summation: products of the operands summed over the labels not in the output."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        raise NotImplementedError("einsum in sublist format is not implemented in chainrule yet")
    ins, out = _parse_einsum(equation, operands)
    if len(set(out)) != len(out):
        raise RuntimeError("einsum(): output subscript appears more than once in the output")
    every = {c for lab in ins for c in lab}
    for c in out:
        if c not in every:
            raise RuntimeError(
                f"einsum(): output subscript {c} does not appear in the equation for any input "
                "operand"
            )
    seen: dict[str, int] = {}
    for i, (x, lab) in enumerate(zip(operands, ins)):
        for c, size in zip(lab, x.shape):
            if c.startswith("…"):
                continue
            if seen.setdefault(c, size) != size and 1 not in (size, seen[c]):
                raise RuntimeError(
                    f"einsum(): subscript {c} has size {size} for operand {i} which does not "
                    f"broadcast with previously seen size {seen[c]}"
                )
            seen[c] = max(seen[c], size)
    xs = []
    for x, lab in zip(operands, ins):
        x, lab = _einsum_diagonals(x, lab)
        xs.append((x, lab))
    # contract left to right; a label is kept while the output or a later operand needs it
    for i in range(len(xs)):
        later = {c for _, lab in xs[i + 1 :] for c in lab} | set(out)
        if i == 0:
            acc, acc_lab = _einsum_sum_out(*xs[0], later)
            continue
        x, lab = _einsum_sum_out(*xs[i], later | set(acc_lab))
        acc, acc_lab = _einsum_sum_out(acc, acc_lab, later | set(lab))
        acc, acc_lab = _einsum_pair(acc, acc_lab, x, lab, later)
    acc, acc_lab = _einsum_sum_out(acc, acc_lab, set(out))
    return _permute(acc, [acc_lab.index(c) for c in out])


# ----- Tensor methods -----------------------------------------------------------------------------


def _matmul_operator(self, other):
    """self @ other: tensors only, as in PyTorch (other operands raise TypeError)."""
    if not isinstance(other, Tensor):
        return NotImplemented
    return la.matmul(self, other)


def _rmatmul_operator(self, other):
    if not isinstance(other, Tensor):
        return NotImplemented
    return la.matmul(other, self)


def _method_cross(self, other, dim=None):
    return cross(self, other, dim)


TENSOR_METHODS: dict = {
    "__matmul__": _matmul_operator,
    "__rmatmul__": _rmatmul_operator,
    "matmul": matmul,
    "mm": mm,
    "addmm": addmm,
    "addmv": addmv,
    "addr": addr,
    "baddbmm": baddbmm,
    "addbmm": addbmm,
    "addmm_": inplace(addmm),
    "addmv_": inplace(addmv),
    "addr_": inplace(addr),
    "baddbmm_": inplace(baddbmm),
    "addbmm_": inplace(addbmm),
    "bmm": bmm,
    "mv": mv,
    "dot": dot,
    "vdot": vdot,
    "outer": outer,
    "ger": ger,
    "inner": inner,
    "trace": trace,
    "diag": diag,
    "diag_embed": diag_embed,
    "diagflat": diagflat,
    "diagonal": diagonal,
    "tril": tril,
    "triu": triu,
    "tril_": inplace(tril),
    "triu_": inplace(triu),
    "cross": _method_cross,
    "inverse": inverse,
    "det": det,
    "logdet": logdet,
    "slogdet": slogdet,
    "cholesky": cholesky,
    "cholesky_inverse": cholesky_inverse,
    "cholesky_solve": cholesky_solve,
    "qr": qr,
    "svd": svd,
    "pinverse": pinverse,
    "matrix_power": matrix_power,
    "matrix_exp": matrix_exp,
    "lu": lu,
}
