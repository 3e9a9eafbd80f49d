"""Factorizations: cholesky, QR, the symmetric and the general eigendecomposition, the
SVD, LU with partial pivoting, and the matrix exponential.

A decomposition with several outputs has one op (and one node) per output; the forward
factorizes once and the outputs share it. The derivatives are the standard matrix-calculus
ones (stated beside each VJP); where a factor is not unique (eigenvector signs, repeated
singular values) the convention is stated with the op."""

from __future__ import annotations

import math

import numpy as np

from ..._backend import to_host, xp
from ..._tensor import Tensor, wrap
from ...autograd.recording import KEEP, array_of, defop
from .. import complex_parts, reductions
from . import inverses, matrices, products

# ----- cholesky -------------------------------------------------------------------------------


def _cholesky(x, upper=False):
    """the lower-triangular L with L Lᴴ = X (or Lᴴ when ``upper``)"""
    inverses._check_matrix("cholesky", x, kernel="cholesky_cpu")
    return _cholesky_factor(x, upper, "linalg.cholesky")


def _cholesky_legacy(x, upper=False):
    """torch.cholesky's L with L Lᴴ = X (or Lᴴ when ``upper``)"""
    inverses._check_matrix("cholesky", x, kernel="cholesky_cpu", floating=False, prefix="")
    return _cholesky_factor(x, upper, "cholesky")


def _hermitian_read(x, upper: bool):
    """The matrix whose lower triangle holds what LAPACK reads of x: x's lower triangle, or
    for ``upper`` its upper one (as Xᴴ's lower)."""
    return xp.conj(_mT_array(x)) if upper else x


def _cholesky_factor(x, upper: bool, where: str):
    """L (or U = Lᴴ from x's upper triangle, as LAPACK's potrf with uplo='U'), raising
    PyTorch's error, under ``where``, for a matrix that is not positive-definite."""
    read = _hermitian_read(x, upper)
    try:
        out = xp.linalg.cholesky(read)
    except xp.linalg.LinAlgError:
        raise not_positive_definite(read, where) from None
    if not upper:
        return out
    upper_factor = xp.conj(_mT_array(out))
    # + 0: LAPACK's upper factor (PyTorch's) has +0 where conj gives -0 imaginary parts
    return upper_factor + 0.0 if upper_factor.dtype.kind == "c" else upper_factor


def not_positive_definite(read, where: str) -> Exception:
    """PyTorch's error for the first matrix of ``read`` (lower triangles) that is not
    positive-definite."""
    b, order = 0, 1
    for i, a in enumerate(inverses._matrices(read)):
        order = potf2(a)[1]
        if order:
            b = i
            break
    return inverses.LinAlgError(
        f"{where}: {inverses._batch_prefix(read, b)}The factorization could not be completed "
        f"because the input is not positive-definite (the leading minor of order {order} "
        "is not positive-definite)."
    )


def _mT_array(a):  # noqa: N802
    return xp.swapaxes(a, -1, -2)


def potf2(a) -> tuple:
    """LAPACK's unblocked Cholesky (potf2, uplo='L') of one matrix's lower triangle: (the
    factor, info). Where the leading minor of order info is not positive-definite it stops
    there, as LAPACK does: columns before it factored, its diagonal entry the non-positive
    pivot, the rest of the lower triangle as it was (what PyTorch's cholesky_ex returns)."""
    a = xp.tril(a).copy()
    with xp.errstate(all="ignore"):
        for j in range(a.shape[-1]):
            row = a[j, :j]
            pivot = (a[j, j] - row @ xp.conj(row)).real
            if not pivot > 0:  # (NaN too)
                a[j, j] = pivot
                return a, j + 1
            a[j, j] = xp.sqrt(pivot)
            a[j + 1 :, j] = (a[j + 1 :, j] - a[j + 1 :, :j] @ xp.conj(row)) / a[j, j]
    return a, 0


def _cholesky_vjp(g, ans, upper):
    """gA = L⁻ᴴ Φ L⁻¹, Φ = ½(P + tril(P, -1)ᴴ), P = tril(Lᴴ G): PyTorch's symmetric gradient"""
    low = inverses._mH(ans) if upper else ans
    g_low = inverses._mH(g) if upper else g
    p = matrices.tril(inverses._mH(low) @ g_low, diagonal=0)
    phi = (p + inverses._mH(matrices.tril(p, diagonal=-1))) * 0.5
    low_inv = inverses.inv(low)
    return inverses._mH(low_inv) @ phi @ low_inv


def _cholesky_jvp(t, ans, upper):
    """dL = L Φ(L⁻¹ dA L⁻ᴴ), Φ(X) the lower triangle of X with its diagonal halved"""
    low = inverses._mH(ans) if upper else ans
    low_inv = inverses.inv(low)
    x = low_inv @ t @ inverses._mH(low_inv)
    d = low @ (matrices.tril(x, diagonal=-1) + inverses._diag_matrix(inverses._diag_of(x)) * 0.5)
    return inverses._mH(d) if upper else d


cholesky = defop(
    "cholesky",
    _cholesky,
    dtypes=KEEP,
    node="LinalgCholeskyExBackward0",
    vjp=_cholesky_vjp,
    jvp=_cholesky_jvp,
    conventions=(
        "Only the lower triangle of A is read, but the gradient is the symmetric matrix "
        "L⁻ᴴ Φ L⁻¹, as in PyTorch (the derivative along symmetric perturbations); tangents "
        "are taken to be symmetric."
    ),
    complex="wirtinger",
)

cholesky_legacy = defop(
    "cholesky_legacy",
    _cholesky_legacy,
    dtypes=KEEP,
    node="CholeskyBackward0",
    vjp=lambda g, ans, upper: _cholesky_vjp(g, ans, upper),  # gA = L⁻ᴴ Φ L⁻¹, as cholesky
    jvp=lambda t, ans, upper: _cholesky_jvp(t, ans, upper),  # dL = L Φ(L⁻¹ dA L⁻ᴴ), as cholesky
    conventions="torch.cholesky, deprecated: linalg.cholesky under its older node name.",
    complex="wirtinger",
)

# ----- QR -------------------------------------------------------------------------------------


def _qr_q(x, mode="reduced"):
    """Q of A = QR (orthonormal columns); empty for mode='r'"""
    inverses._check_matrix("qr", x, square=False, kernel="geqrf_cpu")
    if mode == "r":
        return xp.zeros((0,), dtype=x.dtype)
    return inverses._factor(("qr", mode), x, lambda: xp.linalg.qr(x, mode=mode))[0]


def _qr_r(x, mode="reduced"):
    """R of A = QR (upper triangular)"""
    inverses._check_matrix("qr", x, square=False, kernel="geqrf_cpu")
    out = inverses._factor(("qr", mode), x, lambda: xp.linalg.qr(x, mode=mode))
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
    """A = QR with m >= n: gA = (G_Q + Q copyltu(M)) R⁻ᴴ, M = R G_Rᴴ - G_Qᴴ Q, copyltu(M) =
    tril(M, -1) + tril(M, -1)ᴴ + Re diag(M) (R's diagonal is real)"""
    m = 0
    if g_r is not None:
        m = r @ inverses._mH(g_r)
    if g_q is not None:
        m = m - inverses._mH(g_q) @ q
    low = matrices.tril(m, diagonal=-1)
    b = q @ (
        low + inverses._mH(low) + inverses._diag_matrix(inverses._real_part(inverses._diag_of(m)))
    )  # M's lower triangle mirrored up
    if g_q is not None:
        b = b + g_q
    return inverses._mH(inverses.solve(r, inverses._mH(b), vector=False))  # b R⁻ᴴ


def _qr_vjp(g_q, g_r, x, mode):
    m, n = x.shape[-2], x.shape[-1]
    _check_qr_differentiable(m, n, mode)
    q, r = _qr_factors(x, mode)
    if m >= n:
        return _qr_tall_vjp(g_q, g_r, q, r)
    # wide: A = [X | Y], X = Q R₁ square, R = [R₁ | R₂] with R₂ = Qᴴ Y
    y = inverses._getitem(x, (Ellipsis, slice(m, None)))
    r1 = inverses._getitem(r, (Ellipsis, slice(None, m)))
    g_r1 = g_r2 = None
    if g_r is not None:
        g_r1 = inverses._getitem(g_r, (Ellipsis, slice(None, m)))
        g_r2 = inverses._getitem(g_r, (Ellipsis, slice(m, None)))
        g_q = y @ inverses._mH(g_r2) if g_q is None else g_q + y @ inverses._mH(g_r2)
    g_x = _qr_tall_vjp(g_q, g_r1, q, r1)
    out = g_x @ inverses._eye(m, x, n)  # [gX | 0]
    if g_r2 is not None:
        out = out + (q @ g_r2) @ inverses._eye(n - m, x, n, m)  # + [0 | Q G_R₂]
    return out


def _qr_tall_jvp(t, q, r):
    """dA = dQ R + Q dR with QᴴdQ skew-Hermitian and dR upper with a real diagonal:
    C = Qᴴ dA R⁻¹, Ω = tril(C,-1) - its ᴴ + i Im diag(C), dR = (C - Ω) R, dQ = dA R⁻¹ - Q (C - Ω)"""
    b = inverses._mH(inverses.solve(inverses._mH(r), inverses._mH(t), vector=False))  # dA R⁻¹
    c = inverses._mH(q) @ b
    low = matrices.tril(c, diagonal=-1)
    upper_part = c - low + inverses._mH(low)  # C - Ω
    if complex_parts.is_complex_value(c):
        upper_part = upper_part - inverses._diag_matrix(
            complex_parts.imag(inverses._diag_of(c)) * 1j
        )
    return b - q @ upper_part, upper_part @ r


def _qr_jvp(t, x, mode, which: int):
    m, n = x.shape[-2], x.shape[-1]
    if mode == "r" or (mode == "complete" and m > n):
        raise NotImplementedError(f"forward AD of linalg.qr is not supported for mode='{mode}'")
    q, r = _qr_factors(x, mode)
    if m >= n:
        return _qr_tall_jvp(t, q, r)[which]
    y = inverses._getitem(x, (Ellipsis, slice(m, None)))
    t_x = inverses._getitem(t, (Ellipsis, slice(None, m)))
    t_y = inverses._getitem(t, (Ellipsis, slice(m, None)))
    d_q, d_r1 = _qr_tall_jvp(t_x, q, inverses._getitem(r, (Ellipsis, slice(None, m))))
    if which == 0:
        return d_q
    d_r2 = inverses._mH(d_q) @ y + inverses._mH(q) @ t_y  # R₂ = Qᴴ Y
    return d_r1 @ inverses._eye(m, x, n) + d_r2 @ inverses._eye(n - m, x, n, m)


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
    vjp=lambda g, x, mode: _qr_vjp(
        g, None, x, mode
    ),  # gA = (G_Q + Q copyltu(M)) R⁻ᴴ, M = -G_Qᴴ Q (m ≥ n; wide A = [X | Y]: R₂ = Qᴴ Y)
    jvp=lambda t, x, mode: _qr_jvp(
        t, x, mode, 0
    ),  # dQ = dA R⁻¹ - Q (C - Ω), C = Qᴴ dA R⁻¹, Ω = tril(C, -1) - tril(C, -1)ᴴ
    conventions=_QR_CONVENTION,
    complex="wirtinger",
)

qr_r = defop(
    "qr_r",
    _qr_r,
    dtypes=KEEP,
    node="LinalgQrBackward0",
    vjp=lambda g, x, mode: _qr_vjp(
        None, g, x, mode
    ),  # gA = Q copyltu(M) R⁻ᴴ, M = R G_Rᴴ (m ≥ n; wide A = [X | Y]: R₂ = Qᴴ Y)
    jvp=lambda t, x, mode: _qr_jvp(
        t, x, mode, 1
    ),  # dR = (C - Ω) R, C = Qᴴ dA R⁻¹, Ω = tril(C, -1) - tril(C, -1)ᴴ
    conventions=_QR_CONVENTION,
    complex="wirtinger",
)

# ----- QR in Householder form (LAPACK's geqrf) -----------------------------------------------


def _geqrf_raw(x):
    """(a, τ) of LAPACK's geqrf: R on and above a's diagonal, the reflectors' vectors
    below it, and their scales"""
    if not x.size:
        k = min(x.shape[-2], x.shape[-1])
        return x.copy(), xp.zeros(x.shape[:-2] + (k,), dtype=x.dtype)
    h, tau = xp.linalg.qr(x, mode="raw")  # (h is a transposed: Fortran's order)
    return xp.ascontiguousarray(xp.swapaxes(h, -1, -2)).astype(x.dtype), tau.astype(x.dtype)


def _geqrf_a(x):
    """a of geqrf(A): R and the Householder vectors packed in one matrix"""
    return inverses._factor(("geqrf",), x, lambda: _geqrf_raw(x))[0]


def _geqrf_tau(x):
    """τ of geqrf(A): the Householder scales"""
    return inverses._factor(("geqrf",), x, lambda: _geqrf_raw(x))[1]


def _no_geqrf_derivative(g):
    """No derivative: raises PyTorch's NotImplementedError."""
    raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


def _no_geqrf_tangent(t):
    """No forward mode: raises PyTorch's NotImplementedError."""
    raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


geqrf_a = defop(
    "geqrf_a",
    _geqrf_a,
    dtypes=KEEP,
    node="GeqrfBackward0",
    vjp=_no_geqrf_derivative,
    jvp=_no_geqrf_tangent,
    conventions="No derivative, as in PyTorch.",
    complex="wirtinger",
)

geqrf_tau = defop(
    "geqrf_tau",
    _geqrf_tau,
    dtypes=KEEP,
    node="GeqrfBackward0",
    vjp=_no_geqrf_derivative,
    jvp=_no_geqrf_tangent,
    conventions="No derivative, as in PyTorch.",
    complex="wirtinger",
)

# ----- symmetric eigendecomposition --------------------------------------------------------------


def _eigvalsh(x, uplo="L"):
    """the eigenvalues of the symmetric X (from its UPLO triangle), ascending"""
    inverses._check_matrix("eigh", x, kernel="linalg_eigh_cpu", floating=False)
    if inverses._shared.active:  # linalg.eigh: the values that come with the vectors
        return inverses._factor(("eigh", uplo), x, lambda: xp.linalg.eigh(x, UPLO=uplo))[0]
    return xp.linalg.eigvalsh(x, UPLO=uplo)


def _eigh_vectors(x, uplo="L"):
    """the orthonormal eigenvectors of the symmetric X, as columns"""
    inverses._check_matrix("eigh", x, kernel="linalg_eigh_cpu", floating=False)
    return inverses._factor(("eigh", uplo), x, lambda: xp.linalg.eigh(x, UPLO=uplo))[1]


def _check_phase_free(vhg, name: str) -> None:
    """PyTorch's error where a loss depends on the phases of complex eigenvectors: the
    diagonal of Vᴴ G, the loss's derivative along V ↦ V e^{iφ}, must be (nearly) real."""
    if not complex_parts.is_complex_value(vhg):
        return
    turn = to_host(xp.imag(xp.diagonal(array_of(vhg), 0, -2, -1)))  # (checked on the host)
    if not np.allclose(turn, 0, rtol=1e-2, atol=1e-2):
        raise RuntimeError(
            f"{name}: The eigenvectors in the complex case are specified up to multiplication "
            f"by e^{{i phi}}. The specified loss function depends on this quantity, so it is "
            f"ill-defined."
        )


def _eigh_vectors_vjp(g, x, ans, uplo):
    """gA = V (skew(VᴴG) / E) Vᴴ, skew(M) = (M - Mᴴ)/2, E_ij = λ_j - λ_i (complex V: a
    loss that depends on the eigenvectors' phases raises, as in PyTorch)"""
    vtg = inverses._mH(ans) @ g
    _check_phase_free(vtg, "linalg_eigh_backward")
    inner = inverses._skew_divide((vtg - inverses._mH(vtg)) * 0.5, eigvalsh(x, uplo=uplo))
    return ans @ inner @ inverses._mH(ans)


_EIGH_CONVENTION = (
    "Gradients assume distinct eigenvalues (they divide by λ_j - λ_i). The eigenvectors' "
    "gradient uses only the skew-symmetric part of VᴴG, so it does not depend on each "
    "eigenvector's sign (gauge invariance), as in PyTorch. The input is taken as symmetric: "
    "the gradient is a symmetric matrix and tangents are taken to be symmetric."
)

eigvalsh = defop(
    "eigvalsh",
    _eigvalsh,
    dtypes=KEEP,
    node="LinalgEighBackward0",
    vjp=lambda g, x, uplo: _vjp_values(
        g, eigh_vectors(x, uplo=uplo)
    ),  # dλᵢ = vᵢᴴ dA vᵢ: gA = V diag(G) Vᴴ
    jvp=lambda t, x, uplo: _jvp_values(
        t, eigh_vectors(x, uplo=uplo)
    ),  # dλᵢ = vᵢᴴ dA vᵢ: dλ = diag(Vᴴ dA V)
    conventions=_EIGH_CONVENTION,
    complex="wirtinger",
)


def _vjp_values(g, v):
    return v @ (inverses._unsq(g, -1) * inverses._mH(v))


def _jvp_values(t, v):
    return inverses._real_part(reductions.sum(inverses._conj(v) * (t @ v), dim=-2))  # diag(Vᴴ T V)


eigh_vectors = defop(
    "eigh_vectors",
    _eigh_vectors,
    dtypes=KEEP,
    node="LinalgEighBackward0",
    vjp=_eigh_vectors_vjp,
    jvp=lambda t, x, ans, uplo: (
        ans @ inverses._skew_divide(inverses._mH(ans) @ t @ ans, eigvalsh(x, uplo=uplo))
    ),  # dV = V ((Vᴴ dA V) / E), E_ij = λ_j - λ_i, zero on the diagonal
    conventions=_EIGH_CONVENTION,
    complex="wirtinger",
)

# ----- general eigendecomposition ---------------------------------------------------------------


def _check_eig(name: str, x) -> None:
    """PyTorch's checks on linalg.eig's and eigvals' input (complex results of a real one):
    the complex result type first, then the shape, then the kernel's dtypes."""
    if x.dtype.kind not in "fc":
        from ... import _dtypes

        raise RuntimeError(f"Unknown Complex ScalarType for {_dtypes.scalar_name(x.dtype)}")
    inverses._check_matrix(name, x, kernel="linalg_eig_out_cpu", floating=False)


def _complex_type(x):
    return xp.complex64 if x.dtype in (xp.float32, xp.complex64) else xp.complex128


def _eig_raw(x):
    """(λ, V) of LAPACK's geev, complex even for a real x whose eigenvalues are real"""
    ctype = _complex_type(x)
    if not x.size:
        return xp.zeros(x.shape[:-1], ctype), xp.zeros(x.shape, ctype)
    w, v = xp.linalg.eig(x)
    return w.astype(ctype), v.astype(ctype)


def _eigvals(x):
    """the eigenvalues λ of X (complex), in LAPACK's order"""
    _check_eig("eigvals", x)
    if inverses._shared.active:  # linalg.eig: the values that come with the vectors
        return inverses._factor(("eig",), x, lambda: _eig_raw(x))[0]
    if not x.size:
        return xp.zeros(x.shape[:-1], _complex_type(x))
    return xp.linalg.eigvals(x).astype(_complex_type(x))


def _eig_vectors(x):
    """the eigenvectors of X as columns, each of unit norm with its largest entry real
    (LAPACK's normalisation, as PyTorch's)"""
    _check_eig("eig", x)
    if not xp.isfinite(x).all():
        raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")
    return inverses._factor(("eig",), x, lambda: _eig_raw(x))[1]


def _eigvals_vjp(g, x):
    """dλ = diag(V⁻¹ dA V): gA = V⁻ᴴ diag(G) Vᴴ (real A: its real part)"""
    v = eig_vectors(x)
    return inverses.solve(inverses._mH(v), inverses._unsq(g, -1) * inverses._mH(v), vector=False)


def _eigvals_jvp(t, x):
    """dλ = diag(V⁻¹ dA V)"""
    v = eig_vectors(x)
    return inverses._diag_of(inverses.solve(v, _as_complex(t, v) @ v, vector=False))


def _as_complex(t, like):
    """t, promoted to complex to meet ``like`` (a real tangent of a real A)."""
    return t if complex_parts.is_complex_value(t) else t * (1 + 0j)


def _eig_vectors_vjp(g, x, ans):
    """M = VᴴG projected on unit-norm columns, M - VᴴV diag(Re M_ii); gA = V⁻ᴴ (M / Ē) Vᴴ,
    E_ij = λ_j - λ_i, zero on the diagonal (a loss that depends on the eigenvectors' phases
    raises, as in PyTorch)"""
    vh = inverses._mH(ans)
    vhg = vh @ g
    _check_phase_free(vhg, "linalg_eig_backward")
    vhg = vhg - vh @ (ans * inverses._unsq(inverses._real_part(inverses._diag_of(vhg)), -2))
    inner = inverses._skew_divide(vhg, inverses._conj(eigvals(x)))
    return inverses.solve(vh, inner @ vh, vector=False)


def _eig_vectors_jvp(t, x, ans):
    """X = V⁻¹ dA V, C = X / E off the diagonal: dV = V (C - diag(Re (VᴴV C)_ii)), which
    keeps each column of unit norm (and its phase where it was)"""
    inner = inverses._skew_divide(
        inverses.solve(ans, _as_complex(t, ans) @ ans, vector=False), eigvals(x)
    )
    drift = inverses._real_part(inverses._diag_of(inverses._mH(ans) @ ans @ inner))
    return ans @ (inner - inverses._diag_matrix(drift))


_EIG_CONVENTION = (
    "Gradients assume distinct eigenvalues (they divide by λ_j - λ_i). Eigenvectors are "
    "fixed up to a phase each; the gradient of a loss that depends on it raises PyTorch's "
    "error. For a real A the gradient is the real part of the complex one, as in PyTorch."
)

eigvals = defop(
    "eigvals",
    _eigvals,
    dtypes=KEEP,  # (the forward makes the complex result)
    node="LinalgEigBackward0",
    vjp=_eigvals_vjp,
    jvp=_eigvals_jvp,
    conventions=_EIG_CONVENTION,
    complex="wirtinger",
)

eig_vectors = defop(
    "eig_vectors",
    _eig_vectors,
    dtypes=KEEP,  # (the forward makes the complex result)
    node="LinalgEigBackward0",
    vjp=_eig_vectors_vjp,
    jvp=_eig_vectors_jvp,
    conventions=_EIG_CONVENTION,
    complex="wirtinger",
)

# ----- singular value decomposition ----------------------------------------------------------


def _svd_u(x, full_matrices=True):
    """U of A = U diag(S) Vᴴ"""
    inverses._check_matrix("svd", x, square=False, kernel="linalg_svd_cpu")
    return inverses._factor(("svd", full_matrices), x, lambda: xp.linalg.svd(x, full_matrices))[0]


def _svdvals(x):
    """the singular values of A, descending"""
    inverses._check_matrix("svd", x, square=False, kernel="linalg_svd_cpu")
    if inverses._shared.active:  # linalg.svd: the values that come with the vectors
        return inverses._factor(
            ("svd", inverses._shared.full), x, lambda: xp.linalg.svd(x, inverses._shared.full)
        )[1]
    return xp.linalg.svd(x, compute_uv=False)


def _svd_vh(x, full_matrices=True):
    """Vᴴ of A = U diag(S) Vᴴ"""
    inverses._check_matrix("svd", x, square=False, kernel="linalg_svd_cpu")
    return inverses._factor(("svd", full_matrices), x, lambda: xp.linalg.svd(x, full_matrices))[2]


def _svd_thin(x, full_matrices: bool):
    """U, S, Vh of x narrowed to k = min(m, n) singular vectors (recomputed by the ops)."""
    if isinstance(x, Tensor):
        u = svd_u(x, full_matrices=full_matrices)
        s = svdvals(x)
        vh = svd_vh(x, full_matrices=full_matrices)
    else:
        u, s, vh = xp.linalg.svd(x, full_matrices=full_matrices)
    return (*_narrow_uv(u, vh, x.shape[-2], x.shape[-1], full_matrices), s)


def _narrow_uv(u, vh, m, n, full_matrices):
    if full_matrices and m != n:
        k = min(m, n)
        return inverses._getitem(u, (Ellipsis, slice(None, k))), inverses._getitem(
            vh, (Ellipsis, slice(None, k), slice(None))
        )
    return u, vh


def _svd_vjp(g_u, g_s, g_vh, x, full_matrices):
    """PyTorch's SVD gradient, for k = min(m, n) singular triplets:

    gA = U [ (J S + S K) / E + diag(G_S) ] Vᴴ  (J = UᴴG_U - G_UᴴU, K = VᴴG_V - G_VᴴV,
    E_ij = s_j² - s_i²), plus (I - UUᴴ) G_U S⁻¹ Vᴴ when m > n and U S⁻¹ G_Vᴴ (I - VVᴴ)
    when m < n. Complex A: U and V are fixed up to phases u_i e^{iφ}, v_i e^{iφ}, and
    Im (UᴴdU - VᴴdV)_ii = Im (UᴴdA V)_ii / s_i; half of it is taken as U's, half as V's,
    which adds diag(i Im(UᴴG_U)_ii - i Im(VᴴG_V)_ii) / (2S) to the bracket.
    """
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n)
    u, vh, s = _svd_thin(x, full_matrices)
    if full_matrices and m != n:
        if g_u is not None:
            g_u = inverses._getitem(g_u, (Ellipsis, slice(None, k)))
        if g_vh is not None:
            g_vh = inverses._getitem(g_vh, (Ellipsis, slice(None, k), slice(None)))
    if g_u is None and g_vh is None:
        return u @ (inverses._unsq(g_s, -1) * vh)
    inner = 0
    phase = 0  # (complex A) i Im(UᴴG_U)_ii - i Im(VᴴG_V)_ii
    if g_u is not None:
        utg = inverses._mH(u) @ g_u
        inner = (utg - inverses._mH(utg)) * inverses._unsq(s, -2)
        if complex_parts.is_complex_value(utg):
            phase = complex_parts.imag(inverses._diag_of(utg))
    if g_vh is not None:
        vtg = vh @ inverses._mH(g_vh)
        inner = inner + inverses._unsq(s, -1) * (vtg - inverses._mH(vtg))
        if complex_parts.is_complex_value(vtg):
            phase = phase - complex_parts.imag(inverses._diag_of(vtg))
    inner = inverses._skew_divide(inner, s * s)
    if not isinstance(phase, int):
        inner = inner + inverses._diag_matrix(phase * 0.5j / s)
    if g_s is not None:
        inner = inner + inverses._diag_matrix(g_s)
    out = u @ inner @ vh
    if m > n and g_u is not None:
        out = out + ((g_u - u @ (inverses._mH(u) @ g_u)) / inverses._unsq(s, -2)) @ vh
    if m < n and g_vh is not None:
        out = out + u @ ((g_vh - (g_vh @ inverses._mH(vh)) @ vh) / inverses._unsq(s, -1))
    return out


def _svd_jvp(t, x, full_matrices, which: int):
    """dP = UᴴTV: dS = Re diag(dP), dU = U (F ∘ (dP S + S dPᴴ) + Φ) + (I - UUᴴ) T V S⁻¹,
    dV = V (F ∘ (S dP + dPᴴ S) - Φ) + (I - VVᴴ) Tᴴ U S⁻¹, F_ij = 1/(s_j² - s_i²),
    Φ = diag(i Im dP_ii / (2 s_i)) (complex A: the phase split evenly, as in the VJP)"""
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n)
    u, vh, s = _svd_thin(x, full_matrices)
    v = inverses._mH(vh)
    dp = inverses._mH(u) @ t @ v
    if which == 1:
        return inverses._real_part(inverses._diag_of(dp))
    phase = 0
    if complex_parts.is_complex_value(dp):
        phase = inverses._diag_matrix(complex_parts.imag(inverses._diag_of(dp)) * 0.5j / s)
    if which == 0:
        out = u @ (
            inverses._skew_divide(
                dp * inverses._unsq(s, -2) + inverses._unsq(s, -1) * inverses._mH(dp), s * s
            )
            + phase
        )
        if m > n:
            out = out + (t @ v - u @ dp) / inverses._unsq(s, -2)
        # with full_matrices the columns beyond min(m, n) get a zero tangent, as in PyTorch
        return out @ inverses._eye(k, x, m) if full_matrices and m > n else out
    out = v @ (
        inverses._skew_divide(
            inverses._unsq(s, -1) * dp + inverses._mH(dp) * inverses._unsq(s, -2), s * s
        )
        - phase
    )
    if n > m:
        out = out + (inverses._mH(t) @ u - v @ inverses._mH(dp)) / inverses._unsq(s, -2)
    return (
        inverses._eye(n, x, k) @ inverses._mH(out) if full_matrices and n > m else inverses._mH(out)
    )


_SVD_CONVENTION = (
    "Gradients through U and Vh assume distinct nonzero singular values (they divide by "
    "s_j² - s_i² and s_i) and depend only on gauge-invariant combinations (a sign flip of "
    "a pair u_i, v_i changes nothing), as in PyTorch. With full_matrices=True the columns "
    "of U and rows of Vh beyond min(m, n) get no gradient (any basis would do). Complex A: "
    "each pair (u_i, v_i) is fixed up to a common phase e^{iφ}; half of Im (Uᴴ dA V)_ii / s_i "
    "is taken as U's phase and half as V's. Difference: PyTorch raises for a loss that "
    "depends on these phases; chainrule's U and Vh nodes are separate and cannot see the "
    "whole loss, so it does not raise (such a loss gets the gradient of the even split)."
)

svd_u = defop(
    "svd_u",
    _svd_u,
    dtypes=KEEP,
    node="LinalgSvdBackward0",
    vjp=lambda g, x, full_matrices: _svd_vjp(
        g, None, None, x, full_matrices
    ),  # gA = U ((J S) / E) Vᴴ + (I - UUᴴ) G_U S⁻¹ Vᴴ, J = UᴴG_U - G_UᴴU, E_ij = s_j² - s_i²
    jvp=lambda t, x, full_matrices: _svd_jvp(
        t, x, full_matrices, 0
    ),  # dU = U (F ∘ (dP S + S dPᴴ)) + (I - UUᴴ) dA V S⁻¹, dP = Uᴴ dA V, F_ij = 1/(s_j² - s_i²)
    conventions=_SVD_CONVENTION,
    complex="wirtinger",
)

svdvals = defop(
    "svdvals",
    _svdvals,
    dtypes=KEEP,
    node="LinalgSvdBackward0",
    vjp=lambda g, x: _svd_vjp(None, g, None, x, False),  # dsᵢ = uᵢᴴ dA vᵢ: gA = U diag(G) Vᴴ
    jvp=lambda t, x: _svd_jvp(t, x, False, 1),  # dsᵢ = uᵢᴴ dA vᵢ: ds = diag(Uᴴ dA V)
    conventions="At repeated singular values the gradient is one of the valid subgradients.",
    complex="wirtinger",
)

svd_vh = defop(
    "svd_vh",
    _svd_vh,
    dtypes=KEEP,
    node="LinalgSvdBackward0",
    vjp=lambda g, x, full_matrices: _svd_vjp(
        None, None, g, x, full_matrices
    ),  # G_V = G_Vhᴴ: gA = U ((S K) / E) Vᴴ + U S⁻¹ G_Vᴴ (I - VVᴴ), K = VᴴG_V - G_VᴴV
    jvp=lambda t, x, full_matrices: _svd_jvp(
        t, x, full_matrices, 2
    ),  # dVh = dVᴴ, dV = V (F ∘ (S dP + dPᴴ S)) + (I - VVᴴ) dAᴴ U S⁻¹, dP = Uᴴ dA V
    conventions=_SVD_CONVENTION,
    complex="wirtinger",
)

# ----- LU with partial pivoting ------------------------------------------------------------------


def _lu_compact(x):
    """LAPACK's getrf: the packed factors (unit-lower L below the diagonal, U on and above)
    and the 1-based row swaps, with partial pivoting (the first largest |entry| wins; for
    complex entries LAPACK's |Re| + |Im|)."""
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n)
    a = inverses._matrices(x).copy()
    rows = xp.arange(a.shape[0])
    pivots = xp.zeros((a.shape[0], k), dtype=xp.int32)
    for j in range(k):
        p = j + xp.argmax(_pivot_size(a[:, j:, j]), axis=1)
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


def _pivot_size(column):
    """The size getrf compares to choose a pivot: |x|, or |Re x| + |Im x| (izamax's)."""
    if column.dtype.kind == "c":
        return xp.abs(column.real) + xp.abs(column.imag)
    return xp.abs(column)


def _permutation(pivots, m: int, dtype):
    """P with A = P L U, from the 1-based row swaps."""
    flat = pivots.reshape((math.prod(pivots.shape[:-1]), pivots.shape[-1]))
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
    inverses._check_matrix("lu", x, square=False, kernel="lu_cpu", floating=False)
    return inverses._factor(("lu",), x, lambda: _plu(x))[1]


def _lu_u(x):
    """U of X = P L U: upper triangular (min(m, n) × n)"""
    inverses._check_matrix("lu", x, square=False, kernel="lu_cpu", floating=False)
    return inverses._factor(("lu",), x, lambda: _plu(x))[2]


def _lu_parts(x):
    """P (a constant), L and U of x, recomputed with the ops for a tensor."""
    data = x._data if isinstance(x, Tensor) else x
    p, low, up = _plu(data)
    if isinstance(x, Tensor):
        return wrap(p), lu_l(x), lu_u(x)
    return p, low, up


# (triangular solves, as LAPACK's getrs: a zero on U's diagonal gives infinities and NaNs
# in the gradient, as PyTorch's, rather than a singular-matrix error)


def _l_solve(low, b, transpose: bool = False):
    """L⁻¹ B (L⁻ᵀ B when ``transpose``), L unit lower triangular"""
    if transpose:
        low = products._mT(low)
    return inverses.solve_triangular(low, b, upper=transpose, left=True, unitriangular=True)


def _u_solve_right(b, up, transpose: bool = False):
    """B U⁻¹ (B U⁻ᵀ when ``transpose``), U upper triangular"""
    if transpose:
        up = products._mT(up)
    return inverses.solve_triangular(up, b, upper=not transpose, left=False, unitriangular=False)


def _lu_vjp(g_l, g_u, x):
    """A = P L U: with Φ = tril(Lᵀ G_L, -1) + triu(G_U Uᵀ), gA = P L⁻ᵀ Φ U⁻ᵀ; for a wide A
    the columns past U's square block add L⁻ᵀ G_U₂ (and -G_U₂ U₂ᵀ to Lᵀ G_L), for a tall A
    the rows past L's square block add G_L₂ U⁻ᵀ (and -L₂ᵀ G_L₂ to G_U Uᵀ)"""
    m, n = x.shape[-2], x.shape[-1]
    p, low, up = _lu_parts(x)
    if m <= n:
        up1 = inverses._getitem(up, (Ellipsis, slice(None, m)))
        lower = products._mT(low) @ g_l if g_l is not None else 0
        upper = 0
        g_u2 = None
        if g_u is not None:
            upper = inverses._getitem(g_u, (Ellipsis, slice(None, m))) @ products._mT(up1)
            if m < n:
                g_u2 = inverses._getitem(g_u, (Ellipsis, slice(m, None)))
                lower = lower - g_u2 @ products._mT(
                    inverses._getitem(up, (Ellipsis, slice(m, None)))
                )
        phi = _tril_or_zero(lower) + _triu_or_zero(upper)
        out = _u_solve_right(_l_solve(low, phi, True), up1, True)
        if m < n:
            out = out @ inverses._eye(m, x, n)
            if g_u2 is not None:
                out = out + _l_solve(low, g_u2, True) @ inverses._eye(n - m, x, n, m)
        return p @ out
    low1 = inverses._getitem(low, (Ellipsis, slice(None, n), slice(None)))
    lower = (
        products._mT(low1) @ inverses._getitem(g_l, (Ellipsis, slice(None, n), slice(None)))
        if g_l is not None
        else 0
    )
    upper = g_u @ products._mT(up) if g_u is not None else 0
    g_l2 = None
    if g_l is not None:
        g_l2 = inverses._getitem(g_l, (Ellipsis, slice(n, None), slice(None)))
        upper = (
            upper
            - products._mT(inverses._getitem(low, (Ellipsis, slice(n, None), slice(None)))) @ g_l2
        )
    phi = _tril_or_zero(lower) + _triu_or_zero(upper)
    out = inverses._eye(m, x, n) @ _u_solve_right(_l_solve(low1, phi, True), up, True)
    if g_l2 is not None:
        out = out + inverses._eye(m, x, m - n, -n) @ _u_solve_right(g_l2, up, True)
    return p @ out


def _tril_or_zero(v):
    """tril(v, -1), where v is a matrix, or 0 (no gradient reached that factor)."""
    return matrices.tril(v, diagonal=-1) if not isinstance(v, int) else 0


def _triu_or_zero(v):
    return matrices.triu(v, diagonal=0) if not isinstance(v, int) else 0


def _lu_jvp(t, x, which: int):
    """X = L⁻¹ Pᵀ T U⁻¹ on the square block: dL = L tril(X, -1), dU = triu(X) U; the rest
    of U (wide) or L (tall) follows from U₂ = L⁻¹ Pᵀ A₂ or L₂ = (Pᵀ A)₂ U⁻¹."""
    m, n = x.shape[-2], x.shape[-1]
    p, low, up = _lu_parts(x)
    pt = products._mT(p) @ t
    if m <= n:
        up1 = inverses._getitem(up, (Ellipsis, slice(None, m)))
        inner = _u_solve_right(
            _l_solve(low, inverses._getitem(pt, (Ellipsis, slice(None, m)))), up1
        )
        d_low = low @ matrices.tril(inner, diagonal=-1)
        if which == 0:
            return d_low
        d_up = matrices.triu(inner, diagonal=0) @ up1
        if m == n:
            return d_up
        up2 = inverses._getitem(up, (Ellipsis, slice(m, None)))
        d_up2 = _l_solve(low, inverses._getitem(pt, (Ellipsis, slice(m, None))) - d_low @ up2)
        return d_up @ inverses._eye(m, x, n) + d_up2 @ inverses._eye(n - m, x, n, m)
    low1 = inverses._getitem(low, (Ellipsis, slice(None, n), slice(None)))
    inner = _u_solve_right(
        _l_solve(low1, inverses._getitem(pt, (Ellipsis, slice(None, n), slice(None)))), up
    )
    d_up = matrices.triu(inner, diagonal=0) @ up
    if which == 1:
        return d_up
    d_low1 = low1 @ matrices.tril(inner, diagonal=-1)
    low2 = inverses._getitem(low, (Ellipsis, slice(n, None), slice(None)))
    d_low2 = _u_solve_right(
        inverses._getitem(pt, (Ellipsis, slice(n, None), slice(None))) - low2 @ d_up, up
    )
    return inverses._eye(m, x, n) @ d_low1 + inverses._eye(m, x, m - n, -n) @ d_low2


_LU_CONVENTION = "The gradient assumes the pivoting does not change (it is constant nearby)."

lu_l = defop(
    "lu_l",
    _lu_l,
    dtypes=KEEP,
    node="LinalgLuBackward0",
    vjp=lambda g, x: _lu_vjp(
        g, None, x
    ),  # gA = P L⁻ᵀ tril(Lᵀ G, -1) U⁻ᵀ (square; else lu_packed's)
    jvp=lambda t, x: _lu_jvp(t, x, 0),  # dL = L tril(L⁻¹ Pᵀ dA U⁻¹, -1) (square; else lu_packed's)
    conventions=_LU_CONVENTION,
    complex="holomorphic",
)

lu_u = defop(
    "lu_u",
    _lu_u,
    dtypes=KEEP,
    node="LinalgLuBackward0",
    vjp=lambda g, x: _lu_vjp(None, g, x),  # gA = P L⁻ᵀ triu(G Uᵀ) U⁻ᵀ (square; else lu_packed's)
    jvp=lambda t, x: _lu_jvp(t, x, 1),  # dU = triu(L⁻¹ Pᵀ dA U⁻¹) U (square; else lu_packed's)
    conventions=_LU_CONVENTION,
    complex="holomorphic",
)


def _lu_packed(x):
    """the packed LU factors (L's strict lower part and U)"""
    inverses._check_matrix("lu_factor", x, square=False, kernel="lu_cpu", floating=False)
    return inverses._factor(("lu_factor",), x, lambda: _lu_compact(x))[0]


def _lu_packed_vjp(g, x):
    """A = P L U, G split into G_L (below the diagonal) and G_U: gA = P L⁻ᵀ Φ U⁻ᵀ,
    Φ = tril(Lᵀ G_L, -1) + triu(G_U Uᵀ); for a wide A the columns past U's square block add
    L⁻ᵀ G_U₂ (and -G_U₂ U₂ᵀ to Lᵀ G_L), for a tall A the rows past L's square block add
    G_L₂ U⁻ᵀ (and -L₂ᵀ G_L₂ to G_U Uᵀ)"""
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n)
    g_l = matrices.tril(inverses._getitem(g, (Ellipsis, slice(None, k))), diagonal=-1)
    g_u = matrices.triu(inverses._getitem(g, (Ellipsis, slice(None, k), slice(None))), diagonal=0)
    return _lu_vjp(g_l, g_u, x)


def _lu_packed_jvp(t, x):
    """X = L⁻¹ Pᵀ dA U⁻¹ on the square block: dL = L tril(X, -1) below the diagonal, dU =
    triu(X) U on and above; the rest of U (wide) or L (tall) follows from U₂ = L⁻¹ Pᵀ A₂ or
    L₂ = (Pᵀ A)₂ U⁻¹"""
    m, n = x.shape[-2], x.shape[-1]
    d_low = matrices.tril(_lu_jvp(t, x, 0), diagonal=-1)
    d_up = _lu_jvp(t, x, 1)
    if m >= n:
        return d_low + inverses._eye(m, x, n) @ d_up
    return d_low @ inverses._eye(m, x, n) + d_up


lu_packed = defop(
    "lu_packed",
    _lu_packed,
    dtypes=KEEP,
    node="LinalgLuFactorExBackward0",
    vjp=_lu_packed_vjp,
    jvp=_lu_packed_jvp,
    conventions=_LU_CONVENTION,
    complex="holomorphic",
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
    inverses._check_matrix("matrix_exp", x)
    a = x.astype(xp.complex128 if x.dtype.kind == "c" else xp.float64)
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
    top = inverses._eye(n, a, 2 * n)  # [I 0]
    bottom = inverses._eye(n, a, 2 * n, n)  # [0 I]
    block = (
        products._mT(top) @ a @ top
        + products._mT(top) @ e @ bottom
        + products._mT(bottom) @ a @ bottom
    )
    return top @ matrix_exp(block) @ products._mT(bottom)


matrix_exp = defop(
    "matrix_exp",
    _matrix_exp,
    dtypes=KEEP,
    node="LinalgMatrixExpBackward0",
    vjp=lambda g, x: _exp_frechet(
        products._mT(x), g
    ),  # gA = L(Aᵀ, G), L the Fréchet derivative of the JVP
    jvp=lambda t, x: _exp_frechet(
        x, t
    ),  # d e^A = L(A, dA), the upper-right block of exp([[A, dA], [0, A]])
    complex="holomorphic",
)
