"""Linear algebra on complex matrices against PyTorch, and linalg.eig/eigvals (complex
results, also for real matrices).

Each case runs in complex64 and complex128 (float32 and float64 for its real inputs):
forward values and dtypes, the gradient for a random complex output gradient (PyTorch's
convention: for a real loss, the gradient of z = x + iy is ∂L/∂x + i ∂L/∂y) and the
forward-mode tangent, all compared with PyTorch's. Eigenvectors and singular vectors are
fixed only up to a phase each, so cases use phase-invariant functions of them (|V|²,
projectors, U Vᴴ); a loss that depends on the phases raises PyTorch's error.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from cases import F32_TOL
from oracle import check, crandn, randn, to_numpy

# ----- helpers applied inside the cases (so the gradient flows through them) ---------------


def herm(L, a):
    """A Hermitian matrix from a: a + aᴴ."""
    return a + a.mH


def hpd(L, a):
    """A Hermitian positive-definite matrix from a: a aᴴ + n I."""
    n = a.shape[-1]
    return a @ a.mH + n * L.eye(n, dtype=a.dtype)


def upper(L, a):
    """An upper-triangular matrix with a diagonal away from 0."""
    n = a.shape[-1]
    return a.triu() + 3 * L.eye(n, dtype=a.dtype)


def weight(L, out):
    """A fixed real weighting of a real output (to mix its entries)."""
    return out * L.linspace(0.5, 1.5, out.shape[-1], dtype=out.dtype)


def svd_parts(L, a):
    """Phase-invariant functions of the SVD: U Vᴴ plus |U|² Vh's column sums."""
    u, s, vh = L.linalg.svd(a, full_matrices=False)
    return u @ vh + s[..., :1, None] * (u.abs() ** 2).sum(-1, keepdim=True)


CASES = {
    "inv": (lambda L, a: L.linalg.inv(a), [crandn((2, 3, 3))]),
    "det": (lambda L, a: L.linalg.det(a), [crandn((2, 3, 3))]),
    "slogdet_sign": (lambda L, a: L.linalg.slogdet(a).sign, [crandn((3, 3))]),
    "slogdet_logabsdet": (lambda L, a: L.linalg.slogdet(a).logabsdet, [crandn((2, 3, 3))]),
    "slogdet_both": (
        lambda L, a: (lambda s, la: s * la)(*L.linalg.slogdet(a)),
        [crandn((3, 3), seed=1)],
    ),
    "logdet": (lambda L, a: L.logdet(a), [crandn((2, 3, 3), seed=2)]),
    "solve": (lambda L, a, b: L.linalg.solve(a, b), [crandn((2, 3, 3)), crandn((2, 3, 2), 1)]),
    "solve_vector": (lambda L, a, b: L.linalg.solve(a, b), [crandn((3, 3)), crandn((3,), 1)]),
    "solve_right": (
        lambda L, a, b: L.linalg.solve(a, b, left=False),
        [crandn((3, 3)), crandn((2, 3), 1)],
    ),
    "solve_triangular": (
        lambda L, a, b: L.linalg.solve_triangular(upper(L, a), b, upper=True),
        [crandn((3, 3)), crandn((3, 2), 1)],
    ),
    "solve_triangular_right_unit": (
        lambda L, a, b: L.linalg.solve_triangular(
            upper(L, a).mT, b, upper=False, left=False, unitriangular=True
        ),
        [crandn((3, 3)), crandn((2, 3), 1)],
    ),
    "cholesky": (lambda L, a: L.linalg.cholesky(hpd(L, a)), [crandn((2, 3, 3))]),
    "cholesky_upper": (lambda L, a: L.linalg.cholesky(hpd(L, a), upper=True), [crandn((3, 3))]),
    "cholesky_solve": (
        lambda L, a, b: L.cholesky_solve(b, L.linalg.cholesky(hpd(L, a))),
        [crandn((3, 3)), crandn((3, 2), 1)],
    ),
    "cholesky_inverse": (
        lambda L, a: L.cholesky_inverse(L.linalg.cholesky(hpd(L, a))),
        [crandn((3, 3))],
    ),
    "qr_q": (lambda L, a: L.linalg.qr(a).Q, [crandn((4, 3))]),
    "qr_r": (lambda L, a: L.linalg.qr(a).R, [crandn((2, 4, 3))]),
    "qr_wide": (
        lambda L, a: (lambda q, r: q @ r[..., :2] + r.sum())(*L.linalg.qr(a)),
        [crandn((3, 5))],
    ),
    "eigvalsh": (lambda L, a: L.linalg.eigvalsh(herm(L, a)), [crandn((2, 4, 4))]),
    "eigh_vectors_abs": (lambda L, a: L.linalg.eigh(herm(L, a))[1].abs() ** 2, [crandn((4, 4))]),
    "eigh_projector": (
        lambda L, a: (lambda v: v[..., :2] @ v[..., :2].mH)(L.linalg.eigh(herm(L, a))[1]),
        [crandn((2, 3, 3))],
    ),
    "svdvals": (lambda L, a: L.linalg.svdvals(a), [crandn((2, 3, 5))]),
    "svd_wide": (svd_parts, [crandn((3, 5))]),
    "svd_tall": (svd_parts, [crandn((2, 5, 3))]),
    "svd_full": (
        lambda L, a: (lambda u, s, vh: u[..., :3] @ vh[..., :3, :])(*L.linalg.svd(a)),
        [crandn((3, 4))],
    ),
    "torch_svd": (
        lambda L, a: (lambda u, s, v: u @ v.mH * s[..., :1, None])(*L.svd(a)),
        [crandn((3, 4))],
    ),
    "tensorsolve": (
        lambda L, a, b: L.linalg.tensorsolve(a, b),
        [crandn((2, 3, 6)), crandn((2, 3), 1)],
    ),
    "eigvals": (lambda L, a: L.linalg.eigvals(a), [crandn((2, 3, 3))]),
    "eigvals_of_real": (lambda L, a: L.linalg.eigvals(a), [randn((2, 3, 3))]),
    "eig_values": (lambda L, a: L.linalg.eig(a).eigenvalues, [crandn((3, 3))]),
    "eig_vectors_abs": (lambda L, a: L.linalg.eig(a).eigenvectors.abs() ** 2, [crandn((2, 3, 3))]),
    "eig_vectors_of_real": (lambda L, a: L.linalg.eig(a)[1].abs(), [randn((4, 4), seed=3)]),
    "eig_both": (
        lambda L, a: (lambda w, v: (v * w.unsqueeze(-2)) * v.conj())(*L.linalg.eig(a)),
        [crandn((3, 3), seed=4)],
    ),
    "pinv": (lambda L, a: L.linalg.pinv(a), [crandn((3, 5))]),
    "lstsq": (lambda L, a, b: L.linalg.lstsq(a, b).solution, [crandn((5, 3)), crandn((5, 2), 1)]),
    "matrix_exp": (lambda L, a: L.linalg.matrix_exp(a), [crandn((2, 3, 3))]),
    "matrix_power": (lambda L, a: L.linalg.matrix_power(a, -2), [crandn((3, 3))]),
    "lu_l": (lambda L, a: L.linalg.lu(a).L, [crandn((2, 3, 3))]),
    "lu_u_wide": (lambda L, a: L.linalg.lu(a).U, [crandn((3, 4))]),
    "lu_l_tall": (lambda L, a: L.linalg.lu(a).L, [crandn((4, 3))]),
    "lu_factor": (lambda L, a: L.linalg.lu_factor(a).LU, [crandn((3, 3))]),
    "lu_solve": (
        lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b),
        [crandn((3, 3)), crandn((3, 2), 1)],
    ),
    "lu_solve_adjoint": (
        lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, adjoint=True),
        [crandn((3, 3)), crandn((3, 2), 1)],
    ),
    "lu_solve_right_adjoint": (
        lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, left=False, adjoint=True),
        [crandn((3, 3)), crandn((2, 3), 1)],
    ),
    "householder_product": (
        lambda L, a, t: L.linalg.householder_product(a, t),
        [crandn((4, 3)), crandn((2,), 1) * 0.5],
    ),
    "ormqr_adjoint": (
        lambda L, a, t, c: L.ormqr(a, t, c, transpose=True),
        [crandn((4, 3)), crandn((3,), 1) * 0.5, crandn((4, 2), 2)],
    ),
    "matrix_norm_fro": (lambda L, a: L.linalg.matrix_norm(a), [crandn((2, 3, 4))]),
    "matrix_norm_nuc": (lambda L, a: L.linalg.matrix_norm(a, "nuc"), [crandn((2, 3, 4))]),
    "matrix_norm_2": (lambda L, a: L.linalg.matrix_norm(a, 2), [crandn((3, 3))]),
    "matrix_norm_1": (lambda L, a: L.linalg.matrix_norm(a, 1), [crandn((3, 4))]),
    "vector_norm": (lambda L, a: weight(L, L.linalg.vector_norm(a, dim=-1)), [crandn((2, 4))]),
    "cond": (lambda L, a: L.linalg.cond(a), [crandn((3, 3))]),
    "tensorinv": (lambda L, a: L.linalg.tensorinv(a, ind=2), [crandn((4, 2, 8))]),
    "vdot": (lambda L, a, b: L.vdot(a, b), [crandn((4,)), crandn((4,), 1)]),
    "inner": (lambda L, a, b: L.inner(a, b), [crandn((2, 4)), crandn((3, 4), 1)]),
    "trace": (lambda L, a: L.trace(a), [crandn((3, 4))]),
    "tril": (lambda L, a: L.tril(a, -1), [crandn((3, 4))]),
    "diag_embed": (lambda L, a: L.diag_embed(a), [crandn((2, 3))]),
    "cross": (lambda L, a, b: L.linalg.cross(a, b), [crandn((2, 3)), crandn((2, 3), 1)]),
}

# tangents not compared with PyTorch's: it has no forward-mode rule for the first two, and
# its complex cholesky_inverse tangent is off from finite differences (see the test below)
NO_TORCH_TANGENT = {"householder_product", "ormqr_adjoint", "cholesky_inverse"}


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["c64", "c128"])
@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch(name, dtype):
    fn, inputs = CASES[name]
    check(fn, *inputs, dtype=dtype, forward=name not in NO_TORCH_TANGENT, **F32_TOL[dtype])


def test_cholesky_inverse_tangent_matches_finite_differences():
    """PyTorch's forward mode of cholesky_inverse is wrong for complex L (its tangent differs
    from central differences by ~1e-2 here); chainrule's composition is not."""
    a, t = crandn((3, 3), seed=10), crandn((3, 3), seed=11)
    fn = CASES["cholesky_inverse"][0]
    fwd = cr.autograd.forward_ad
    with fwd.dual_level():
        tangent = fwd.unpack_dual(fn(cr, fwd.make_dual(cr.tensor(a), cr.tensor(t)))).tangent
    eps = 1e-6
    plus, minus = fn(torch, torch.tensor(a + eps * t)), fn(torch, torch.tensor(a - eps * t))
    np.testing.assert_allclose(to_numpy(tangent), to_numpy((plus - minus) / (2 * eps)), atol=1e-8)


@pytest.mark.parametrize(
    ("name", "node"),
    [
        ("eigvals", "LinalgEigBackward0"),
        ("eig_values", "LinalgEigBackward0"),
        ("inv", "LinalgInvExBackward0"),
        ("det", "LinalgDetBackward0"),
        ("cholesky", "LinalgCholeskyExBackward0"),
        ("svdvals", "LinalgSvdBackward0"),
    ],
)
def test_node_name(name, node):
    fn, inputs = CASES[name]
    result = check(fn, *inputs, dtype=np.float64, backward=False, forward=False)
    assert result.torch_out.grad_fn.name() == result.cr_out.grad_fn.name() == node


# ----- linalg.eig: the factors themselves -------------------------------------------------


@pytest.mark.parametrize("complex_input", [True, False], ids=["complex", "real"])
def test_eig_gives_torchs_eigenvectors(complex_input):
    """A V = V diag(λ), each column of unit norm with its largest entry real (LAPACK's
    normalisation): the same values and vectors as PyTorch's."""
    a = crandn((2, 4, 4), seed=5) if complex_input else randn((2, 4, 4), seed=5)
    w, v = cr.linalg.eig(cr.tensor(a))
    tw, tv = torch.linalg.eig(torch.tensor(a))
    assert w.dtype == cr.complex128 and v.dtype == cr.complex128
    np.testing.assert_allclose(to_numpy(w), to_numpy(tw), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(to_numpy(v), to_numpy(tv), rtol=1e-8, atol=1e-10)
    vn = to_numpy(v)
    np.testing.assert_allclose(a @ vn, vn * to_numpy(w)[..., None, :], atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(vn, axis=-2), 1.0, rtol=1e-12)


def test_eig_of_float32_is_complex64_and_real_eigenvalues_come_as_complex():
    a = np.array([[2.0, 1.0], [1.0, 2.0]], dtype=np.float32)
    w, v = cr.linalg.eig(cr.tensor(a))
    tw = torch.linalg.eigvals(torch.tensor(a))
    assert w.dtype == cr.complex64 and v.dtype == cr.complex64
    assert cr.linalg.eigvals(cr.tensor(a)).dtype == cr.complex64
    np.testing.assert_allclose(to_numpy(w), to_numpy(tw), rtol=1e-6)
    np.testing.assert_array_equal(to_numpy(w).imag, 0)


def test_eig_of_an_empty_matrix():
    w, v = cr.linalg.eig(cr.zeros(0, 0))
    tw, tv = torch.linalg.eig(torch.zeros(0, 0))
    assert (tuple(w.shape), tuple(v.shape), str(w.dtype)) == (
        tuple(tw.shape),
        tuple(tv.shape),
        str(tw.dtype),
    )


def test_eig_returns_torchs_named_tuple():
    ours, theirs = cr.linalg.eig(cr.eye(2)), torch.linalg.eig(torch.eye(2))
    assert type(ours).__name__ == type(theirs).__name__ == "linalg_eig"
    assert repr(ours).split("(")[0] == repr(theirs).split("(")[0]
    assert ours.eigenvalues is ours[0] and ours.eigenvectors is ours[1]
    assert len(ours) == len(theirs) == 2


@pytest.mark.parametrize(
    "fn",
    [
        lambda L: L.linalg.eig(L.ones(2, 3)),
        lambda L: L.linalg.eigvals(L.ones(2, 3)),
        lambda L: L.linalg.eig(L.ones(3)),
        lambda L: L.linalg.eigvals(L.ones(3)),
        lambda L: L.linalg.eig(L.ones(2, 2, dtype=L.int64)),
        lambda L: L.linalg.eig(L.tensor([[1.0, float("nan")], [0.0, 1.0]])),
    ],
    ids=["eig_not_square", "eigvals_not_square", "eig_1d", "eigvals_1d", "eig_int", "eig_nan"],
)
def test_eig_errors_match_torch(fn):
    with pytest.raises(RuntimeError) as theirs:
        fn(torch)
    with pytest.raises(RuntimeError) as ours:
        fn(cr)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize(
    "fn",
    [
        lambda L, a: L.linalg.eig(a)[1].real.sum(),
        lambda L, a: L.linalg.eigh(herm(L, a))[1].imag.sum(),
    ],
    ids=["eig", "eigh"],
)
def test_a_loss_that_depends_on_the_eigenvectors_phases_raises_as_in_torch(fn):
    a = crandn((3, 3), seed=6)
    messages = []
    for lib in (torch, cr):
        x = lib.tensor(a, requires_grad=True)
        with pytest.raises(RuntimeError) as err:
            fn(lib, x).backward()
        messages.append(str(err.value))
    assert messages[0] == messages[1]
    assert "specified up to multiplication by e^{i phi}" in messages[1]


def test_eigvals_gradient_of_a_real_matrix_is_real():
    a = randn((3, 3), seed=7)
    grads = []
    for lib in (torch, cr):
        x = lib.tensor(a, requires_grad=True)
        w = lib.linalg.eigvals(x)
        (w * lib.tensor([1 + 2j, -0.5j, 0.25])).real.sum().backward()
        assert x.grad.dtype == lib.float64
        grads.append(to_numpy(x.grad))
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-10, atol=1e-12)


# ----- factors and pivots ----------------------------------------------------------------


def test_lu_pivots_of_complex_matrices_are_lapacks():
    """getrf picks the pivot of largest |Re| + |Im|, not of largest modulus."""
    a = np.array([[1.0 + 0.0j, 0.0], [0.8 + 0.8j, 1.0]])  # |1| > |0.8+0.8i|, 1 < 1.6
    ours = cr.linalg.lu_factor(cr.tensor(a))
    theirs = torch.linalg.lu_factor(torch.tensor(a))
    np.testing.assert_array_equal(to_numpy(ours.pivots), to_numpy(theirs.pivots))
    np.testing.assert_allclose(to_numpy(ours.LU), to_numpy(theirs.LU), rtol=1e-14)


def test_cholesky_upper_is_the_conjugate_transpose():
    a = crandn((3, 3), seed=8)
    h = a @ a.conj().T + 3 * np.eye(3)
    up = to_numpy(cr.linalg.cholesky(cr.tensor(h), upper=True))
    np.testing.assert_allclose(up.conj().T @ up, h, rtol=1e-12)
    np.testing.assert_allclose(
        up, to_numpy(torch.linalg.cholesky(torch.tensor(h), upper=True)), rtol=1e-12
    )


def test_qr_r_has_a_real_diagonal_as_lapacks():
    q, r = cr.linalg.qr(cr.tensor(crandn((4, 3), seed=9)))
    tq, tr = torch.linalg.qr(torch.tensor(crandn((4, 3), seed=9)))
    np.testing.assert_array_equal(np.diagonal(to_numpy(r)).imag, 0)
    np.testing.assert_allclose(to_numpy(r), to_numpy(tr), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("hermitian", [False, True], ids=["symmetric", "hermitian"])
@pytest.mark.parametrize("seed", range(6))
def test_ldl_of_complex_matrices_is_lapacks(seed, hermitian):
    """Complex-symmetric LDLᵀ (zsytrf) or Hermitian LDLᴴ (zhetrf, D real): LD, pivots and
    ldl_solve's X as PyTorch's, with 1×1 and 2×2 pivot blocks."""
    n = 2 + seed % 4
    a = crandn((2, n, n), seed=20 + seed)
    if seed % 2:
        a[..., 0, 0] = 0.01  # a small first pivot: Bunch-Kaufman takes a 2×2 block
    m = a + (a.conj() if hermitian else a).swapaxes(-1, -2)
    b = crandn((2, n, 2), seed=40 + seed)
    got = cr.linalg.ldl_factor(cr.tensor(m), hermitian=hermitian)
    want = torch.linalg.ldl_factor(torch.tensor(m), hermitian=hermitian)
    np.testing.assert_array_equal(to_numpy(got.pivots), to_numpy(want.pivots))
    np.testing.assert_allclose(to_numpy(got.LD), to_numpy(want.LD), rtol=1e-10, atol=1e-12)
    x = cr.linalg.ldl_solve(got.LD, got.pivots, cr.tensor(b), hermitian=hermitian)
    tx = torch.linalg.ldl_solve(want.LD, want.pivots, torch.tensor(b), hermitian=hermitian)
    np.testing.assert_allclose(to_numpy(x), to_numpy(tx), rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(m @ to_numpy(x), b, atol=1e-10)
