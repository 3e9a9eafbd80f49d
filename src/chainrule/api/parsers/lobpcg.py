"""``lobpcg``: the k largest (or smallest) eigenpairs of the generalized symmetric problem
A x = λ B x by the locally optimal block preconditioned conjugate gradient method
(Knyazev 2001), with PyTorch's arguments, defaults, checks and stopping rule.

Each step runs Rayleigh-Ritz on the block S = [X, W, P]: X the current n Ritz vectors,
W = iK R the preconditioned residuals R = A X - B X diag(E) of the pairs not yet converged,
P the last step's change of X (its part B-orthogonal to the old X). S is made
B-orthonormal by an SVQB step (the eigendecomposition of Sᵀ B S, dropping directions
whose eigenvalue is below ``ortho_tol`` times the largest), then the projected matrix
Sᵀ A S is diagonalized. Pair j has converged when
‖R_j‖ / (‖X_j‖ (‖A X₀‖/‖X₀‖ + |E_j| ‖B X₀‖/‖X₀‖)) < tol, counted from the first pair
only; the run stops when k pairs have converged, after ``niter`` steps (default 1000;
-1 for no limit) or when the tracker sets ``worker.bvars['force_stop']``.

Where chainrule differs from PyTorch:
- ``method='ortho'`` and ``'basic'`` run this same iteration (both B-orthonormalize the
  block); PyTorch's 'basic' uses a Cholesky-based Rayleigh-Ritz and its 'ortho' the
  orthogonal-basis selection of Stathopoulos and Wu, so iteration counts differ. The
  ortho parameters are accepted and kept in ``worker.iparams``/``fparams``/``bparams``;
  only ``ortho_tol`` (the SVQB drop threshold) changes the iteration.
- The initial X is drawn as PyTorch draws it (the same seed gives PyTorch's X).
- Gradients: first derivatives of E and X equal PyTorch's (E = diag(Xᵀ A X) /
  diag(Xᵀ B X) at the converged X, X through ``_linearized_vectors``), built from
  chainrule's ops at the computed eigenpairs; their second derivatives are not exact.
  With a B, PyTorch's backward raises ("does not support backward with B != I");
  chainrule differentiates in A and B.
- Sparse A and B are not supported (chainrule has no sparse layout)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..._backend import to_host
from ..._dtypes import float32, float64
from ..args import require_tensor

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..._tensor import Tensor

__all__ = ["lobpcg"]

_EPS = {float32: 1.2e-07, float64: 2.23e-16}


class Worker:
    """The state of one LOBPCG run, as a tracker sees it: ``X`` (m×n Ritz vectors), ``E``
    (their Ritz values), ``R`` (residuals), ``iparams``/``fparams``/``bparams`` (the
    settings), ``ivars`` (``istep``, ``converged_count``, ``iterations_left``), ``fvars``
    (the norms of the convergence test), ``bvars`` (``force_stop``), ``tvars`` (``rerr``)."""

    def __init__(self, iparams: dict, fparams: dict, bparams: dict, method: str) -> None:
        self.iparams, self.fparams, self.bparams, self.method = iparams, fparams, bparams, method
        self.ivars: dict[str, int] = {"istep": 0}
        self.fvars: dict[str, float] = {}
        self.bvars: dict[str, bool] = {}
        self.tvars: dict[str, Any] = {}
        self.x: Any = None  # the arrays behind X, E, R
        self.e: Any = None
        self.r: Any = None

    @property
    def X(self) -> Tensor:  # noqa: N802
        return _as_tensor(self.x)

    @property
    def E(self) -> Tensor:  # noqa: N802
        return _as_tensor(self.e)

    @property
    def R(self) -> Tensor:  # noqa: N802
        return _as_tensor(self.r)


def _as_tensor(a: Any) -> Tensor:
    from ..._tensor import wrap

    return wrap(a.copy())


def lobpcg(
    A: Tensor,
    k: int | None = None,
    B: Tensor | None = None,
    X: Tensor | None = None,
    n: int | None = None,
    iK: Tensor | None = None,
    niter: int | None = None,
    tol: float | None = None,
    largest: bool | None = None,
    method: str | None = None,
    tracker: Callable | None = None,
    ortho_iparams: dict | None = None,
    ortho_fparams: dict | None = None,
    ortho_bparams: dict | None = None,
) -> tuple[Tensor, Tensor]:
    """(E, X): the k extreme eigenvalues of A x = λ B x (largest first, or smallest first
    when ``largest=False``) and their B-orthonormal eigenvectors as X's columns."""
    from ... import no_grad, randn, tensor

    A = require_tensor("lobpcg", A, name="A")
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {_size(A)}")
    if B is not None and tuple(A.shape) != tuple(B.shape):
        raise AssertionError(f"A and B must have same shape, got {_size(A)} vs {_size(B)}")
    dtype = A._dtype if A._dtype in (float32, float64) else float32
    tol = _EPS[dtype] ** 0.5 if tol is None else tol
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(
            f"LOBPCG algorithm is not applicable when the number of A rows (={m})"
            f" is smaller than 3 x the number of requested eigenpairs (={n})"
        )
    method = "ortho" if method is None else method
    iparams = {"m": m, "n": n, "k": k, "niter": 1000 if niter is None else niter}
    fparams = {"tol": tol}
    bparams = {"largest": True if largest is None else largest}
    if method == "ortho":
        iparams.update(ortho_iparams or {})
        fparams.update(ortho_fparams or {})
        bparams.update(ortho_bparams or {})
        iparams.setdefault("ortho_i_max", 3)
        iparams.setdefault("ortho_j_max", 3)
        for key in ("ortho_tol", "ortho_tol_drop", "ortho_tol_replace"):
            fparams.setdefault(key, tol)
        bparams.setdefault("ortho_use_drop", False)

    if A.requires_grad or (B is not None and B.requires_grad):
        # as PyTorch: the eigenproblem of the symmetric part, so gradients are symmetric
        A = (A + A.mT) / 2
        B = None if B is None else (B + B.mT) / 2
    batch = tuple(A.shape[:-2])
    count = int(np.prod(batch)) if batch else 1
    a = to_host(A.detach()._data).astype(dtype.np).reshape((count, m, m))
    b = None if B is None else to_host(B.detach()._data).astype(dtype.np).reshape(a.shape)
    ik = None if iK is None else to_host(iK.detach()._data).astype(dtype.np)
    x0 = None if X is None else to_host(X.detach()._data).astype(dtype.np)
    x0 = None if x0 is None else x0.reshape((-1,) + x0.shape[-2:])
    vectors = np.empty((count, m, k), dtype=dtype.np)
    for i in range(count):
        if x0 is None:
            start = to_host(randn((m, n), dtype=dtype)._data)
        else:
            start = x0[i if x0.shape[0] > 1 else 0]
        if start.shape != (m, n):
            raise AssertionError(
                f"X shape mismatch: got torch.Size({list(start.shape)}), expected {(m, n)}"
            )
        iparams["batch_index"] = i
        worker = Worker(dict(iparams), fparams, bparams, method)
        _run(worker, a[i], None if b is None else b[i], start, ik, tracker)
        vectors[i] = worker.x[:, :k]
    with no_grad():
        V = tensor(vectors.reshape(batch + (m, k)), device=A.device)
    E = _rayleigh_quotients(A, B, V)
    if A.requires_grad or (B is not None and B.requires_grad):
        V = _linearized_vectors(A, B, V, E.detach())
    return E, V


def _size(t: Tensor) -> str:
    return f"torch.Size({list(t.shape)})"


def _rayleigh_quotients(A: Tensor, B: Tensor | None, V: Tensor) -> Tensor:
    """E_j = v_jᵀ A v_j / v_jᵀ B v_j, differentiable in A and B (exact at eigenvectors)."""
    num = (V * (A @ V)).sum(-2)
    return num if B is None else num / (V * (B @ V)).sum(-2)


def _linearized_vectors(A: Tensor, B: Tensor | None, X: Tensor, E: Tensor) -> Tensor:
    """X as a function of (A, B) that equals X at the computed eigenpairs and has the
    eigenvectors' exact first derivative there (A X = B X Λ, Xᵀ B X = I):

    dx_j = Σ_{i≠j} x_i x_iᵀ (dA - λ_j dB) x_j / (λ_j - λ_i) - ½ x_j x_jᵀ dB x_j
           + (λ_j B - A)⁺ (I - B X Xᵀ)(dA - λ_j dB) x_j,

    the last term on the B-orthogonal complement of X, found by a solve with
    λ_j B - A + B X Xᵀ B (invertible there, and mapping the complement to itself). Each
    term is linear in (A, B) with (X, Λ) held fixed and vanishes at the solution, so the
    value is X and the gradient is exact; second derivatives are not (PyTorch's are)."""
    from ... import eye, linalg

    m, k = X.shape[-2], X.shape[-1]
    Xd, Ad = X.detach(), A.detach()
    Bd = None if B is None else B.detach()
    I = eye(m, dtype=X.dtype, device=X.device)  # noqa: E741
    Bm = I if B is None else B
    BXd = Xd if Bd is None else Bd @ Xd
    lam = E.unsqueeze(-2)  # 1×k: λ_j over columns
    R = A @ Xd - (Bm @ Xd) * lam  # column j: (A - λ_j B) x_j, zero at the solution
    C = Xd.mT @ R  # C_ij = x_iᵀ (A - λ_j B) x_j
    gap = lam - E.unsqueeze(-1)  # λ_j - λ_i
    Ik = eye(k, dtype=X.dtype, device=X.device)
    coupling = C * (1 - Ik) / (gap + Ik)  # i = j left out
    norm = (Xd * (Bm @ Xd)).sum(-2, keepdim=True) - 1.0  # x_jᵀ B x_j - 1
    inside = Xd @ coupling - 0.5 * Xd * norm
    R_perp = R - BXd @ (Xd.mT @ R)
    shifted = (I if Bd is None else Bd).unsqueeze(-3) * E.unsqueeze(-1).unsqueeze(-1)
    K = shifted - Ad.unsqueeze(-3) + (BXd @ BXd.mT).unsqueeze(-3)  # k×m×m
    outside = linalg.solve(K, R_perp.mT.unsqueeze(-1)).squeeze(-1).mT
    return Xd + inside + outside


def _run(worker: Worker, a, b, x, ik, tracker: Callable | None) -> None:
    """LOBPCG steps until k pairs converge, the steps run out or the tracker stops it."""
    n, k = worker.iparams["n"], worker.iparams["k"]
    largest = worker.bparams["largest"]
    drop = worker.fparams.get("ortho_tol", worker.fparams["tol"])

    def times_b(y):
        return y if b is None else b @ y

    x_norm = np.linalg.norm(x)
    worker.fvars["X_norm"] = float(x_norm)
    worker.fvars["A_norm"] = float(np.linalg.norm(a @ x) / x_norm)
    worker.fvars["B_norm"] = float(np.linalg.norm(times_b(x)) / x_norm)
    worker.ivars.update(iterations_left=worker.iparams["niter"], converged_count=0)
    p = np.zeros((x.shape[0], 0), dtype=x.dtype)
    basis = x
    while True:
        q = _b_orthonormal(basis, times_b, drop)
        theta, z = np.linalg.eigh(q.T @ a @ q)
        order = np.argsort(-theta if largest else theta, kind="stable")[:n]
        new_x = q @ z[:, order]
        if worker.x is not None:
            old = worker.x
            p = new_x - old @ (old.T @ times_b(new_x))
        worker.x, worker.e = new_x, theta[order]
        worker.r = a @ new_x - times_b(new_x) * worker.e
        nc = _converged(worker)
        worker.ivars["iterations_left"] -= 1
        worker.ivars["istep"] += 1
        if tracker is not None:
            tracker(worker)
        if worker.bvars.get("force_stop", False) or worker.ivars["iterations_left"] == 0 or nc >= k:
            return
        w = worker.r[:, nc:]
        w = w if ik is None else ik @ w
        basis = np.concatenate([new_x, w, p[:, nc:]], axis=1)


def _b_orthonormal(s, times_b, drop: float):
    """A B-orthonormal basis of span(S) by SVQB: with Sᵀ B S = V Λ Vᵀ (after scaling S's
    columns to unit B-norm), S V Λ^(-1/2) over the eigenvalues above drop·max(Λ)."""
    bs = times_b(s)
    d = np.sqrt(np.abs(np.einsum("ij,ij->j", s, bs)))
    keep = d > 0
    s, bs, d = s[:, keep], bs[:, keep], d[keep]
    s, bs = s / d, bs / d
    lam, v = np.linalg.eigh(s.T @ bs)
    big = lam > drop * lam.max()
    q = s @ (v[:, big] / np.sqrt(lam[big]))
    # one more pass: the first leaves an error of order eps/drop in Qᵀ B Q
    bq = times_b(q)
    lam, v = np.linalg.eigh(q.T @ bq)
    return q @ (v / np.sqrt(lam))


def _converged(worker: Worker) -> int:
    """The number of leading pairs whose relative residual is under tol."""
    f = worker.fvars
    rerr = np.linalg.norm(worker.r, axis=0) / (
        np.linalg.norm(worker.x, axis=0) * (f["A_norm"] + np.abs(worker.e) * f["B_norm"])
    )
    worker.tvars["rerr"] = rerr
    ok = rerr < worker.fparams["tol"]
    count = int(np.argmin(ok)) if not ok.all() else len(ok)
    worker.ivars["converged_count"] = max(count, worker.ivars["converged_count"])
    return worker.ivars["converged_count"]
