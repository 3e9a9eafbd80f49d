"""The symmetric-indefinite LDLᵀ factorization with Bunch-Kaufman pivoting (LAPACK's
sytrf, lower triangle) and the solve from its factors (sytrs); for complex matrices the
complex-symmetric LDLᵀ (zsytrf, zsytrs) or, with ``hermitian``, the Hermitian LDLᴴ (zhetrf,
zhetrs: D real, L's multipliers conjugated where LAPACK conjugates them).

P A Pᵀ = L D Lᵀ with L unit lower-triangular and D block-diagonal of 1×1 and 2×2 blocks.
The factors are packed as LAPACK packs them: D's blocks on and just below the diagonal,
L's multipliers below them, the strict upper triangle zero; the pivots are 1-based, k
for a 1×1 block whose row was swapped with row k, and -k on both columns of a 2×2 block
whose second row was swapped with row k. The pivot choices are LAPACK's (Bunch and
Kaufman's test with α = (1 + √17)/8; sizes of complex entries |Re| + |Im| as LAPACK's
cabs1), so factors equal LAPACK's up to rounding.

No derivatives, as in PyTorch: the factors are not smooth where the pivot order changes."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._backend import like, to_host
from ...autograd.recording import KEEP, defop
from . import inverses

__all__ = ["ldl_factor_arrays", "ldl_ld", "ldl_solve"]

_ALPHA = (1.0 + np.sqrt(17.0)) / 8.0


def _size(z):
    """LAPACK's size of an entry when choosing pivots: |x|, or |Re z| + |Im z| (cabs1)."""
    return np.abs(z.real) + np.abs(z.imag) if np.iscomplexobj(z) else np.abs(z)


def _bunch_kaufman(a: np.ndarray, hermitian: bool = False) -> tuple[np.ndarray, np.ndarray, int]:
    """(LD, pivots, info) of one symmetric (or Hermitian) matrix from its lower triangle, in
    place on a copy: LAPACK's unblocked dsytf2, zsytf2 or zhetf2 with uplo='L' (0-based
    indices inside)."""
    a = np.tril(a)
    hermitian = hermitian and np.iscomplexobj(a)
    n = a.shape[0]
    piv = np.zeros(n, dtype=np.int32)
    info = 0
    k = 0
    diag = (lambda z: abs(z.real)) if hermitian else _size  # (a Hermitian diagonal is real)
    while k < n:
        step = 1
        akk = diag(a[k, k])
        if k + 1 < n:
            imax = k + 1 + int(np.argmax(_size(a[k + 1 :, k])))
            colmax = _size(a[imax, k])
        else:
            imax, colmax = k, 0.0
        if max(akk, colmax) == 0 or np.isnan(akk):
            info = info or k + 1  # a zero column: D is singular, nothing to eliminate
            piv[k] = k + 1
            if hermitian:
                a[k, k] = a[k, k].real
            k += 1
            continue
        if akk >= _ALPHA * colmax:
            kp = k
        else:
            # the largest off-diagonal entry of row/column imax in the trailing matrix
            rowmax = np.max(_size(a[imax, k:imax]))
            if imax + 1 < n:
                rowmax = max(rowmax, np.max(_size(a[imax + 1 :, imax])))
            if akk >= _ALPHA * colmax * (colmax / rowmax):
                kp = k
            elif diag(a[imax, imax]) >= _ALPHA * rowmax:
                kp = imax
            else:
                kp, step = imax, 2
        kk = k + step - 1
        if hermitian:
            _swap_hermitian(a, k, kk, kp, step)
        elif kp != kk:
            _swap_symmetric(a, k, kk, kp, step)
        if step == 1:
            if k + 1 < n:
                x = a[k + 1 :, k].copy()
                if hermitian:  # A₂₂ - x xᴴ / a_kk, its diagonal kept real (zher)
                    r1 = 1.0 / a[k, k].real
                    a[k + 1 :, k + 1 :] -= np.tril(np.outer(x, x.conj())) * r1
                    _real_diagonal(a, k + 1)
                    a[k + 1 :, k] = x * r1
                else:
                    a[k + 1 :, k + 1 :] -= np.tril(np.outer(x, x)) / a[k, k]
                    a[k + 1 :, k] = x / a[k, k]
            piv[k] = kp + 1
        else:
            if k + 2 < n:
                (_eliminate_hermitian_block if hermitian else _eliminate_block)(a, k)
            piv[k] = piv[k + 1] = -(kp + 1)
        k += step
    return a, piv, info


def _real_diagonal(a: np.ndarray, start: int) -> None:
    """Drop the imaginary parts of a's diagonal from ``start`` on (a Hermitian matrix's)."""
    d = np.arange(start, a.shape[0])
    a[d, d] = a[d, d].real


def _swap_hermitian(a: np.ndarray, k: int, kk: int, kp: int, step: int) -> None:
    """zhetf2's interchange of rows and columns kk and kp of the trailing Hermitian matrix
    (the entries that cross the diagonal are conjugated), and its real diagonal."""
    if kp == kk:
        a[k, k] = a[k, k].real
        if step == 2:
            a[k + 1, k + 1] = a[k + 1, k + 1].real
        return
    a[kp + 1 :, [kk, kp]] = a[kp + 1 :, [kp, kk]]
    between = a[kk + 1 : kp, kk].conj()
    a[kk + 1 : kp, kk] = a[kp, kk + 1 : kp].conj()
    a[kp, kk + 1 : kp] = between
    a[kp, kk] = np.conj(a[kp, kk])
    a[kk, kk], a[kp, kp] = a[kp, kp].real, a[kk, kk].real
    if step == 2:
        a[k, k] = a[k, k].real
        a[k + 1, k], a[kp, k] = a[kp, k], a[k + 1, k]


def _eliminate_hermitian_block(a: np.ndarray, k: int) -> None:
    """zhetf2's update for a 2×2 pivot block E at (k, k): the trailing matrix loses
    C E⁻¹ Cᴴ, C becomes the multipliers C E⁻¹, diagonal kept real."""
    d = abs(a[k + 1, k])
    d11 = a[k + 1, k + 1].real / d
    d22 = a[k, k].real / d
    tt = 1.0 / (d11 * d22 - 1.0)
    d21 = a[k + 1, k] / d
    d = tt / d
    c0, c1 = a[k + 2 :, k].copy(), a[k + 2 :, k + 1].copy()
    wk = d * (d11 * c0 - d21 * c1)
    wkp1 = d * (d22 * c1 - np.conj(d21) * c0)
    a[k + 2 :, k + 2 :] -= np.tril(np.outer(c0, wk.conj()) + np.outer(c1, wkp1.conj()))
    a[k + 2 :, k] = wk
    a[k + 2 :, k + 1] = wkp1
    _real_diagonal(a, k + 2)


def _swap_symmetric(a: np.ndarray, k: int, kk: int, kp: int, step: int) -> None:
    """Swap rows and columns kk and kp of the trailing symmetric matrix a[k:, k:], held in
    its lower triangle."""
    a[kp + 1 :, [kk, kp]] = a[kp + 1 :, [kp, kk]]
    between = a[kk + 1 : kp, kk].copy()
    a[kk + 1 : kp, kk] = a[kp, kk + 1 : kp]
    a[kp, kk + 1 : kp] = between
    a[kk, kk], a[kp, kp] = a[kp, kp], a[kk, kk]
    if step == 2:
        a[k + 1, k], a[kp, k] = a[kp, k], a[k + 1, k]


def _eliminate_block(a: np.ndarray, k: int) -> None:
    """The Schur complement update of a 2×2 pivot block E at (k, k): the trailing matrix
    loses C E⁻¹ Cᵀ and C becomes the multipliers C E⁻¹ (LAPACK's scaled form of E⁻¹)."""
    d21 = a[k + 1, k]
    d11 = a[k + 1, k + 1] / d21
    d22 = a[k, k] / d21
    t = 1.0 / (d11 * d22 - 1.0)
    d21 = t / d21
    c0, c1 = a[k + 2 :, k].copy(), a[k + 2 :, k + 1].copy()
    wk = d21 * (d11 * c0 - c1)
    wkp1 = d21 * (d22 * c1 - c0)
    a[k + 2 :, k + 2 :] -= np.tril(np.outer(c0, wk) + np.outer(c1, wkp1))
    a[k + 2 :, k] = wk
    a[k + 2 :, k + 1] = wkp1


def ldl_factor_arrays(x, hermitian: bool = False) -> tuple:
    """(LD, pivots, info) of a batch of symmetric (or Hermitian) matrices (lower triangles),
    on x's device; computed once per public call."""
    return inverses._factor(("ldl", hermitian), x, lambda: _factor_batch(x, hermitian))


def _factor_batch(x, hermitian: bool = False) -> tuple:
    host = to_host(x)
    flat = inverses._matrices(host)
    n = host.shape[-1]
    ld = np.zeros_like(flat)
    piv = np.zeros((flat.shape[0], n), dtype=np.int32)
    info = np.zeros(flat.shape[0], dtype=np.int32)
    with np.errstate(all="ignore"):
        for b, a in enumerate(flat):
            ld[b], piv[b], info[b] = _bunch_kaufman(a.copy(), hermitian)
    batch = host.shape[:-2]
    return (
        like(x, ld.reshape(host.shape)),
        like(x, piv.reshape(batch + (n,))),
        like(x, info.reshape(batch)),
    )


def _sytrs(ld: np.ndarray, piv: np.ndarray, b: np.ndarray, hermitian: bool = False) -> np.ndarray:
    """X with A X = B from one matrix's packed factors (LAPACK's dsytrs, zsytrs or zhetrs,
    uplo='L'): forward through P and L D, then back through Lᵀ (Lᴴ) and Pᵀ."""
    n = ld.shape[0]
    b = b.copy()
    # zhetrs where A is Hermitian: D's 1×1 blocks are real, a 2×2 block's lower entry is
    # conjugated above it, and the back substitution runs through Lᴴ; zsytrs conjugates none
    conj = np.conj if hermitian and np.iscomplexobj(ld) else _same
    k = 0
    while k < n:
        if piv[k] > 0:
            kp = piv[k] - 1
            b[[k, kp]] = b[[kp, k]]
            b[k + 1 :] -= np.outer(ld[k + 1 :, k], b[k])
            b[k] /= ld[k, k].real if conj is np.conj else ld[k, k]
            k += 1
        else:
            kp = -piv[k] - 1
            b[[k + 1, kp]] = b[[kp, k + 1]]
            b[k + 2 :] -= np.outer(ld[k + 2 :, k], b[k]) + np.outer(ld[k + 2 :, k + 1], b[k + 1])
            e21 = ld[k + 1, k]
            e11, e22 = ld[k, k] / conj(e21), ld[k + 1, k + 1] / e21
            denom = e11 * e22 - 1.0
            b0, b1 = b[k] / conj(e21), b[k + 1] / e21
            b[k], b[k + 1] = (e22 * b0 - b1) / denom, (e11 * b1 - b0) / denom
            k += 2
    k = n - 1
    while k >= 0:
        if piv[k] > 0:
            b[k] -= conj(ld[k + 1 :, k]) @ b[k + 1 :]
            kp = piv[k] - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 1
        else:
            b[k] -= conj(ld[k + 1 :, k]) @ b[k + 1 :]
            b[k - 1] -= conj(ld[k + 1 :, k - 1]) @ b[k + 1 :]
            kp = -piv[k] - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 2
    return b


def _same(v: Any) -> Any:
    """v itself (no conjugation: a symmetric, not Hermitian, factorization)"""
    return v


def _ldl_solve(ld, b, pivots=None, hermitian=False):
    """X = A⁻¹ B for A = Pᵀ L D Lᵀ P given by ldl_factor's (LD, pivots); LD, pivots and B
    broadcast over their batch dimensions"""
    h_ld, h_b, h_piv = to_host(ld), to_host(b), to_host(pivots)
    batch = np.broadcast_shapes(h_ld.shape[:-2], h_piv.shape[:-1], h_b.shape[:-2])
    n = h_ld.shape[-1]
    h_ld = inverses._matrices(np.broadcast_to(h_ld, batch + h_ld.shape[-2:]))
    h_piv = np.broadcast_to(h_piv, batch + (n,)).reshape((math.prod(batch), n))
    h_b = inverses._matrices(np.broadcast_to(h_b, batch + h_b.shape[-2:]))
    out = np.empty(h_b.shape, dtype=np.result_type(h_ld, h_b))
    with np.errstate(all="ignore"):
        for i in range(out.shape[0]):
            out[i] = _sytrs(h_ld[i], h_piv[i], h_b[i].astype(out.dtype), hermitian)
    return like(b, out.reshape(batch + h_b.shape[-2:]))


def _ldl_ld(a, hermitian=False):
    """LD of ldl_factor(A): D's blocks and L's multipliers packed in one lower triangle"""
    return ldl_factor_arrays(a, hermitian)[0]


def _no_factor_derivative(g):
    """No derivative: raises PyTorch's RuntimeError."""
    raise RuntimeError("derivative for aten::linalg_ldl_factor_ex is not implemented")


def _no_factor_tangent(t):
    """No forward mode: raises PyTorch's RuntimeError."""
    raise RuntimeError("derivative for aten::linalg_ldl_factor_ex is not implemented")


def _no_solve_derivative(g):
    """No derivative: raises PyTorch's RuntimeError."""
    raise RuntimeError("derivative for aten::linalg_ldl_solve is not implemented")


def _no_solve_tangent(t):
    """No forward mode: raises PyTorch's RuntimeError."""
    raise RuntimeError("derivative for aten::linalg_ldl_solve is not implemented")


ldl_ld = defop(
    "ldl_ld",
    _ldl_ld,
    args=("a",),
    dtypes=KEEP,
    node="torch::autograd::NotImplemented",
    vjp=_no_factor_derivative,
    jvp=_no_factor_tangent,
    conventions="No derivative, as in PyTorch.",
    complex="wirtinger",
)

ldl_solve = defop(
    "ldl_solve",
    _ldl_solve,
    args=("ld", "b"),
    node="torch::autograd::NotImplemented",
    vjp=(_no_solve_derivative, _no_solve_derivative),
    jvp=(_no_solve_tangent, _no_solve_tangent),
    conventions="No derivative, as in PyTorch.",
    complex="wirtinger",
)
