"""The randomized low-rank methods: svd_lowrank, pca_lowrank and lobpcg. Their results
depend on random draws (chainrule's generator is not PyTorch's), so they are tested by
what they must satisfy: exact reconstruction of a matrix of rank ≤ q, orthonormal
factors, singular values and principal directions equal to NumPy's, gradients equal to
PyTorch's where they do not depend on the draws, finite differences on a fixed draw;
lobpcg's eigenpairs against numpy.linalg.eigh, its tracker and stopping rules; PyTorch's
argument errors."""

from __future__ import annotations

import numpy as np
import pytest

import cases
import chainrule as cr
from oracle import check_fd, compare, randn


def _low_rank(shape, rank, seed=0) -> np.ndarray:
    """A random matrix (batch) of the given rank with singular values well apart."""
    *batch, m, n = shape
    left = randn((*batch, m, rank), seed)
    right = randn((*batch, rank, n), seed + 1)
    return left @ right


def _orthonormal(q: np.ndarray, atol=1e-10) -> None:
    k = q.shape[-1]
    np.testing.assert_allclose(
        q.swapaxes(-1, -2) @ q, np.broadcast_to(np.eye(k), q.shape[:-2] + (k, k)), atol=atol
    )


@pytest.mark.parametrize("shape", [(8, 5), (5, 9), (3, 7, 6)], ids=str)
def test_svd_lowrank_reconstructs_a_low_rank_matrix(shape):
    a = _low_rank(shape, 3, 1)
    cr.manual_seed(0)
    U, S, V = cr.svd_lowrank(cr.tensor(a), q=4)
    U, S, V = U.numpy(force=True), S.numpy(force=True), V.numpy(force=True)
    assert U.shape == shape[:-1] + (4,) and V.shape == shape[:-2] + (shape[-1], 4)
    _orthonormal(U)
    _orthonormal(V)
    np.testing.assert_allclose((U * S[..., None, :]) @ V.swapaxes(-1, -2), a, atol=1e-10)
    want = np.linalg.svd(a, compute_uv=False)[..., :3]
    np.testing.assert_allclose(S[..., :3], want, rtol=1e-10)
    np.testing.assert_allclose(S[..., 3], 0, atol=1e-10)


def test_svd_lowrank_subtracts_m():
    """svd_lowrank(A, M=M) factors A - M (M broadcast to A's shape)."""
    m_row = randn((1, 6), 3)
    a = _low_rank((9, 6), 2, 4) + m_row
    U, S, V = cr.svd_lowrank(cr.tensor(a), q=2, M=cr.tensor(m_row))
    approx = (U.numpy(force=True) * S.numpy(force=True)) @ V.numpy(force=True).T
    np.testing.assert_allclose(approx, a - m_row, atol=1e-10)


def test_svd_lowrank_float32_and_defaults():
    a = _low_rank((10, 8), 6, 5).astype(np.float32)
    U, S, V = cr.svd_lowrank(cr.tensor(a))
    assert S.dtype == cr.float32 and U.shape == (10, 6) and V.shape == (8, 6)
    np.testing.assert_allclose(
        S.numpy(force=True), np.linalg.svd(a, compute_uv=False)[:6], rtol=1e-4
    )


def test_svd_lowrank_values_and_gradients_match_torch():
    """For a rank-3 matrix and q = 3, S, U S Vᵀ and the gradient of S are the draws'
    invariants: they equal PyTorch's."""
    a = _low_rank((7, 5), 3, 6)

    def run(L):
        x = L.tensor(a, requires_grad=True)
        U, S, V = L.svd_lowrank(x, q=3, niter=1)
        (S * L.tensor([1.0, 2.0, 3.0], dtype=S.dtype)).sum().backward()
        return S, (U * S) @ V.mT, x.grad

    compare(run, rtol=1e-8, atol=1e-8)


def _seeded_svd_lowrank(L, a):
    L.manual_seed(3)
    U, S, V = L.svd_lowrank(a, q=3, niter=1)
    return (U * S) @ V.mT


def _seeded_pca_values(L, a):
    L.manual_seed(4)
    return L.pca_lowrank(a, q=2)[1]


def test_svd_lowrank_gradient_by_finite_differences():
    check_fd(_seeded_svd_lowrank, randn((6, 5), 7), rtol=1e-5, atol=1e-6)


def test_pca_lowrank_gradient_by_finite_differences():
    check_fd(_seeded_pca_values, randn((3, 7, 4), 8), rtol=1e-5, atol=1e-6)


def test_pca_lowrank_gives_the_principal_directions():
    rng = np.random.default_rng(9)
    directions = np.linalg.qr(rng.standard_normal((5, 2)))[0]
    data = rng.standard_normal((40, 2)) * [5.0, 2.0] @ directions.T + rng.standard_normal(5)
    U, S, V = cr.pca_lowrank(cr.tensor(data), q=2)
    centred = data - data.mean(0)
    _, s, vt = np.linalg.svd(centred)
    np.testing.assert_allclose(S.numpy(force=True), s[:2], rtol=1e-10)
    np.testing.assert_allclose(np.abs(V.numpy(force=True).T @ vt[:2].T), np.eye(2), atol=1e-10)
    np.testing.assert_allclose(
        (U.numpy(force=True) * S.numpy(force=True)) @ V.numpy(force=True).T, centred, atol=1e-10
    )


def test_pca_lowrank_without_centering_and_default_q():
    a = _low_rank((9, 4), 4, 10)
    U, S, V = cr.pca_lowrank(cr.tensor(a), center=False)
    assert S.shape == (4,)  # q = min(6, m, n)
    np.testing.assert_allclose(S.numpy(force=True), np.linalg.svd(a, compute_uv=False), rtol=1e-10)


# ----- lobpcg -----------------------------------------------------------------------------


def _spectrum(m, seed):
    """A symmetric m×m matrix with eigenvalues 1..m² spread out, and an SPD B."""
    rng = np.random.default_rng(seed)
    q = np.linalg.qr(rng.standard_normal((m, m)))[0]
    a = (q * np.linspace(1.0, 10.0, m) ** 2) @ q.T
    g = rng.standard_normal((m, m))
    return a, g @ g.T / m + np.eye(m)


A30, B30 = _spectrum(30, 11)


def _generalized_eigh(a, b):
    """eigh of A x = λ B x through B = L Lᵀ: eigenvalues ascending, B-orthonormal vectors."""
    low = np.linalg.cholesky(b)
    inv = np.linalg.inv(low)
    w, y = np.linalg.eigh(inv @ a @ inv.T)
    return w, inv.T @ y


@pytest.mark.parametrize("method", ["ortho", "basic"])
@pytest.mark.parametrize("largest", [True, False], ids=["largest", "smallest"])
@pytest.mark.parametrize("generalized", [False, True], ids=["standard", "generalized"])
def test_lobpcg_eigenpairs_match_numpy(method, largest, generalized):
    b = B30 if generalized else None
    cr.manual_seed(0)
    E, X = cr.lobpcg(
        cr.tensor(A30), k=3, B=None if b is None else cr.tensor(b), largest=largest, method=method
    )
    w, v = _generalized_eigh(A30, np.eye(30) if b is None else b)
    pick = slice(-1, -4, -1) if largest else slice(0, 3)
    np.testing.assert_allclose(E.numpy(force=True), w[pick], rtol=1e-9)
    # eigenvectors up to sign, B-orthonormal
    x = X.numpy(force=True)
    np.testing.assert_allclose(
        np.abs(v[:, pick].T @ (np.eye(30) if b is None else b) @ x), np.eye(3), atol=1e-6
    )


def test_lobpcg_largest_first_as_torch():
    a = randn((12, 12), 12)
    a = a @ a.T
    want = np.linalg.eigvalsh(a)
    compare(lambda L: L.lobpcg(L.tensor(a), k=2)[0], rtol=1e-6, atol=1e-8)
    compare(lambda L: L.lobpcg(L.tensor(a), k=2, largest=False)[0], rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(
        cr.lobpcg(cr.tensor(a), k=2)[0].numpy(force=True), want[::-1][:2], rtol=1e-6
    )


def test_lobpcg_batched_with_start_x_n_and_preconditioner():
    a = np.stack([A30, _spectrum(30, 13)[0]])
    x0 = randn((2, 30, 4), 14)
    ik = np.diag(1.0 / np.diag(A30))
    E, X = cr.lobpcg(cr.tensor(a), k=2, X=cr.tensor(x0), iK=cr.tensor(ik))
    assert E.shape == (2, 2) and X.shape == (2, 30, 2)
    want = np.linalg.eigvalsh(a)[:, ::-1][:, :2]
    np.testing.assert_allclose(E.numpy(force=True), want, rtol=1e-9)


def test_lobpcg_tracker_sees_each_step_and_can_stop():
    seen = []

    def tracker(worker):
        seen.append((worker.ivars["istep"], worker.ivars["converged_count"], tuple(worker.X.shape)))
        assert worker.E.shape == (3,) and worker.R.shape == (30, 3)
        if worker.ivars["istep"] == 4:
            worker.bvars["force_stop"] = True

    cr.lobpcg(cr.tensor(A30), k=3, tracker=tracker, tol=1e-300)
    assert [s[0] for s in seen] == [1, 2, 3, 4] and seen[0][2] == (30, 3)


def test_lobpcg_niter_bounds_the_steps():
    steps = []
    cr.lobpcg(cr.tensor(A30), k=2, niter=3, tol=1e-300, tracker=lambda w: steps.append(1))
    assert len(steps) == 3


def test_lobpcg_eigenvalue_gradient_matches_torch():
    a = randn((12, 12), 15)
    a = a @ a.T + np.diag(np.arange(12.0)) * 3

    def run(L):
        x = L.tensor(a, requires_grad=True)
        E, _ = L.lobpcg(x, k=2, tol=1e-12)  # converged well past the default
        (E * L.tensor([1.0, -2.0], dtype=E.dtype)).sum().backward()
        return x.grad

    compare(run, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("largest", [True, False], ids=["largest", "smallest"])
def test_lobpcg_eigenvector_gradient_matches_torch(largest):
    """A sign-free function of the eigenvectors and eigenvalues: PyTorch's gradient."""
    a = _spectrum(15, 16)[0]
    w = randn((15, 2), 17)

    def run(L):
        x = L.tensor(a, requires_grad=True)
        E, X = L.lobpcg(x, k=2, tol=1e-13, largest=largest)
        ((X**2) * L.tensor(w)).sum().add((E * L.tensor([1.0, 3.0], dtype=E.dtype)).sum()).backward()
        return x.grad

    compare(run, rtol=1e-7, atol=1e-9)


def _seeded_generalized_lobpcg(L, a, g):
    """The squared eigenvectors (free of the sign) of a symmetric A and SPD B = G Gᵀ + I."""
    L.manual_seed(5)
    b = g @ g.mT + L.eye(g.shape[-1], dtype=g.dtype)
    E, X = L.lobpcg((a + a.mT) * 0.5, k=2, B=b, tol=1e-14, niter=300)
    return L.cat([X**2, E.unsqueeze(0)])


def test_lobpcg_generalized_gradient_by_finite_differences():
    """chainrule differentiates in B too (PyTorch's backward raises for a B)."""
    a, _ = _spectrum(12, 18)
    check_fd(_seeded_generalized_lobpcg, a, randn((12, 12), 19) / 4, rtol=1e-5, atol=1e-6)


ERRORS = {
    "lobpcg_not_square": (lambda L, a: L.lobpcg(a), [randn((4, 5))]),
    "lobpcg_too_many": (lambda L, a: L.lobpcg(a, k=5), [randn((12, 12))]),
    "lobpcg_n_too_big": (lambda L, a: L.lobpcg(a, k=1, n=5), [randn((12, 12))]),
    "lobpcg_b_shape": (lambda L, a, b: L.lobpcg(a, B=b), [randn((12, 12)), np.eye(3)]),
    "lobpcg_x_shape": (lambda L, a, x: L.lobpcg(a, X=x), [randn((12, 12)), randn((5, 2))]),
    "pca_q_too_big": (lambda L, a: L.pca_lowrank(a, q=20), [randn((12, 12))]),
    "pca_q_negative": (lambda L, a: L.pca_lowrank(a, q=-1), [randn((12, 12))]),
    "pca_niter_negative": (lambda L, a: L.pca_lowrank(a, niter=-1), [randn((12, 12))]),
}

test_errors_match_torch = cases.same_errors_as_torch(ERRORS)
