"""``svd_lowrank`` and ``pca_lowrank``: the randomized truncated SVD of Halko, Martinsson
and Tropp (2009, algorithms 4.4 and 5.1) with power iterations, composed of chainrule's
differentiable ops (matmul, QR, SVD), so gradients of any order flow through them.

For A (m×n, batched) and a rank q: draw a Gaussian n×q matrix Ω, take Q = orth(A Ω),
then ``niter`` times Q = orth(A Q̃) with Q̃ = orth(Aᴴ Q); the SVD of the small B = Qᴴ A
gives A ≈ (Q U_B) S Vᴴ. A wide A is handled through its transpose. ``M`` (broadcast to
A's shape) is subtracted from A without forming A - M; ``pca_lowrank`` subtracts the
column means.

The random basis is drawn as PyTorch draws it: for one seed the results are PyTorch's (to
the rounding of the factorizations)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..._dtypes import float32
from ..args import require_tensor

if TYPE_CHECKING:
    from ..._tensor import Tensor

__all__ = ["pca_lowrank", "svd_lowrank"]


def svd_lowrank(
    A: Tensor, q: int | None = 6, niter: int | None = 2, M: Tensor | None = None
) -> tuple[Tensor, Tensor, Tensor]:
    """(U, S, V) with A - M ≈ U diag(S) Vᴴ, U m×q and V n×q with orthonormal columns."""
    A = require_tensor("svd_lowrank", A, name="A")
    return _svd_lowrank(A, 6 if q is None else q, 2 if niter is None else niter, M)


def pca_lowrank(
    A: Tensor, q: int | None = None, center: bool = True, niter: int = 2
) -> tuple[Tensor, Tensor, Tensor]:
    """(U, S, V) of the centred A - mean over rows (or A when not ``center``): V's columns
    are the principal directions, S²/(m-1) the variances along them."""
    A = require_tensor("pca_lowrank", A, name="A")
    m, n = A.shape[-2], A.shape[-1]
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError(
            f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}"
        )
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter, None)
    return _svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter, None)


def _svd_lowrank(A: Tensor, q: int, niter: int, M: Tensor | None) -> tuple[Tensor, Tensor, Tensor]:
    """Algorithm 5.1 of Halko et al. on the tall one of A and Aᴴ."""
    from ... import linalg

    m, n = A.shape[-2], A.shape[-1]
    if M is not None:
        M = M.broadcast_to(A.shape)
    if m < n:
        A = A.mH
        M = None if M is None else M.mH
    Q = _range_basis(A, q, niter, M)
    B = Q.mH @ A
    if M is not None:
        B = B - Q.mH @ M
    U, S, Vh = linalg.svd(B, full_matrices=False)
    U, V = Q @ U, Vh.mH
    return (V, S, U) if m < n else (U, S, V)


def _range_basis(A: Tensor, q: int, niter: int, M: Tensor | None) -> Tensor:
    """Q with orthonormal columns whose span approximates the range of A - M
    (algorithm 4.4 of Halko et al.: a Gaussian sketch and ``niter`` power iterations,
    re-orthonormalized after every product)."""
    from ... import linalg, randn

    # (a complex A gets a complex sketch, as PyTorch's; integers a float32 one)
    dtype = A.dtype if A._dtype._category >= 2 else float32
    R = randn(A.shape[-1], q, dtype=dtype, device=A.device)

    def times(X: Tensor, Y: Tensor, Z: Tensor | None) -> Tensor:
        return X @ Y if Z is None else X @ Y - Z @ Y

    Q = linalg.qr(times(A, R, M)).Q
    for _ in range(niter):
        Q = linalg.qr(times(A.mH, Q, None if M is None else M.mH)).Q
        Q = linalg.qr(times(A, Q, M)).Q
    return Q
