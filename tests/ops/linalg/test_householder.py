"""QR in Householder form against PyTorch: geqrf (no derivative), linalg.householder_product
and orgqr (Q from the reflectors), ormqr (Q applied on either side, transposed or not),
and linalg.lu_factor_ex (the LU factors with LAPACK's info): values, gradients,
tangents, second derivatives, float64 finite differences, and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import cases
import chainrule as cr
from oracle import FLOATS, check, check_double_backward, check_fd, randn, well


def _reflectors(shape, seed=0):
    """geqrf's packed reflectors and scales of a random matrix, as float64 arrays."""
    h, tau = torch.geqrf(torch.tensor(randn(shape, seed)))
    return h.numpy(), tau.numpy()


H43, T43 = _reflectors((4, 3))
H253, T253 = _reflectors((2, 5, 3), 1)
H34, T34 = _reflectors((3, 4), 2)

CASES = {
    "householder_product": (lambda L, a, t: L.linalg.householder_product(a, t), [H43, T43]),
    "householder_product_batched": (
        lambda L, a, t: L.linalg.householder_product(a, t),
        [H253, T253],
    ),
    "householder_product_fewer": (
        lambda L, a, t: L.linalg.householder_product(a, t),
        [H43, T43[:2].copy()],
    ),
    "orgqr": (lambda L, a, t: L.orgqr(a, t), [H43, T43]),
    "orgqr_method": (lambda L, a, t: a.orgqr(t), [H43, T43]),
    "ormqr_left": (lambda L, a, t, c: L.ormqr(a, t, c), [H43, T43, randn((4, 2), 3)]),
    "ormqr_left_t": (
        lambda L, a, t, c: L.ormqr(a, t, c, transpose=True),
        [H43, T43, randn((4, 2), 3)],
    ),
    "ormqr_right": (
        lambda L, a, t, c: L.ormqr(a, t, c, left=False),
        [H43, T43, randn((5, 4), 4)],
    ),
    "ormqr_right_t": (
        lambda L, a, t, c: a.ormqr(t, c, left=False, transpose=True),
        [H43, T43, randn((5, 4), 4)],
    ),
    "ormqr_batched": (lambda L, a, t, c: L.ormqr(a, t, c), [H253, T253, randn((2, 5, 3), 5)]),
    "ormqr_wide": (lambda L, a, t, c: L.ormqr(a, t, c), [H34, T34, randn((3, 2), 6)]),
    "lu_factor_ex": (lambda L, a: L.linalg.lu_factor_ex(a).LU, [well((3, 3))]),
    "lu_factor_ex_tall": (lambda L, a: L.linalg.lu_factor_ex(a)[0], [randn((2, 4, 3), 7)]),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=["f32", "f64"])
@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch(name, dtype):
    fn, inputs = CASES[name]
    # torch has no forward mode for ormqr
    check(fn, *inputs, dtype=dtype, forward=not name.startswith("ormqr"))


@pytest.mark.parametrize("name", list(CASES))
def test_finite_differences(name):
    fn, inputs = CASES[name]
    check_fd(fn, *inputs)


@pytest.mark.parametrize("name", list(CASES))
def test_double_backward(name):
    fn, inputs = CASES[name]
    check_double_backward(fn, *inputs)


def test_householder_product_of_geqrf_is_qr_q():
    a = cr.tensor(randn((2, 5, 3), 8))
    h, tau = cr.geqrf(a)
    q, r = cr.linalg.qr(a)
    q_h = cr.linalg.householder_product(h, tau)
    np.testing.assert_allclose(q_h.numpy(force=True), q.numpy(force=True), atol=1e-12)
    np.testing.assert_allclose(
        h.triu().numpy(force=True)[..., :3, :], r.numpy(force=True), atol=1e-12
    )


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 4, 4), (0, 3, 2)], ids=str)
@pytest.mark.parametrize("dtype", FLOATS, ids=["f32", "f64"])
def test_geqrf_as_torch(shape, dtype):
    x = randn(shape, 9).astype(dtype)
    got, want = cr.geqrf(cr.tensor(x)), torch.geqrf(torch.tensor(x))
    assert type(got).__name__ == type(want).__name__ == "geqrf"
    tol = 1e-4 if dtype == np.float32 else 1e-12
    for g, w in zip(got, want, strict=True):
        assert g.dtype == cr.float32 if dtype == np.float32 else g.dtype == cr.float64
        np.testing.assert_allclose(g.numpy(force=True), w.cpu().numpy(), rtol=tol, atol=tol)


def test_geqrf_has_no_derivative_as_in_torch():
    for lib in (cr, torch):
        a, tau = lib.geqrf(lib.tensor(randn((3, 3)), requires_grad=True))
        assert a.requires_grad and tau.requires_grad
        assert a.grad_fn.name() == "GeqrfBackward0"
        with pytest.raises(NotImplementedError, match="the derivative for 'geqrf' is not"):
            (a.sum() + tau.sum()).backward()


def test_lu_factor_ex_reports_zero_pivots_as_torch():
    def run(L):
        singular = L.tensor([[[1.0, 2.0], [2.0, 4.0]], [[1.0, 0.0], [0.0, 1.0]], [[0.0] * 2] * 2])
        return tuple(L.linalg.lu_factor_ex(singular)) + tuple(L.linalg.lu_factor_ex(L.eye(3)))

    from oracle import compare

    compare(run)


ERRORS = {
    "householder_1d": (lambda L, a, t: L.linalg.householder_product(a, t), [randn(3), randn(1)]),
    "householder_wide": (
        lambda L, a, t: L.linalg.householder_product(a, t),
        [randn((3, 4)), randn(3)],
    ),
    "householder_tau_long": (
        lambda L, a, t: L.linalg.householder_product(a, t),
        [randn((4, 3)), randn(4)],
    ),
    "householder_tau_dims": (
        lambda L, a, t: L.linalg.householder_product(a, t),
        [randn((2, 4, 3)), randn(2)],
    ),
    "householder_tau_batch": (
        lambda L, a, t: L.linalg.householder_product(a, t),
        [randn((2, 4, 3)), randn((3, 2))],
    ),
    "householder_dtypes": (
        lambda L, a, t: L.linalg.householder_product(a.float(), t),
        [randn((4, 3)), randn(2)],
    ),
    "geqrf_1d": (lambda L, a: L.geqrf(a), [randn(3)]),
    "geqrf_long": (lambda L, a: L.geqrf(a), [np.ones((3, 3), dtype=np.int64)]),
    "ormqr_1d": (lambda L, a, t, c: L.ormqr(a, t, c), [randn(4), randn(2), randn((4, 2))]),
    "ormqr_other_1d": (lambda L, a, t, c: L.ormqr(a, t, c), [randn((4, 3)), randn(2), randn(4)]),
    "ormqr_rows": (lambda L, a, t, c: L.ormqr(a, t, c), [randn((4, 3)), randn(2), randn((5, 2))]),
    "ormqr_tau": (lambda L, a, t, c: L.ormqr(a, t, c), [randn((4, 3)), randn(2), randn((4, 2))]),
    "ormqr_right_cols": (
        lambda L, a, t, c: L.ormqr(a, t, c, left=False),
        [randn((4, 3)), randn(3), randn((5, 3))],
    ),
    "ormqr_tau_dims": (
        lambda L, a, t, c: L.ormqr(a, t, c),
        [randn((2, 4, 3)), randn(3), randn((2, 4, 2))],
    ),
    "ormqr_other_dims": (
        lambda L, a, t, c: L.ormqr(a, t, c),
        [randn((2, 4, 3)), randn((2, 3)), randn((4, 2))],
    ),
    "ormqr_other_batch": (
        lambda L, a, t, c: L.ormqr(a, t, c),
        [randn((2, 4, 3)), randn((2, 3)), randn((3, 4, 2))],
    ),
    "ormqr_dtypes": (
        lambda L, a, t, c: L.ormqr(a.float(), t, c.float()),
        [randn((4, 3)), randn(3), randn((4, 2))],
    ),
    "lu_factor_singular": (
        lambda L, a: L.linalg.lu_factor(a),
        [np.array([[1.0, 2.0], [2.0, 4.0]])],
    ),
    "lu_factor_singular_batch": (
        lambda L, a: L.linalg.lu_factor(a),
        [np.stack([np.eye(2), np.ones((2, 2))])],
    ),
    "lu_factor_wide_singular": (lambda L, a: L.linalg.lu_factor(a), [np.ones((2, 3))]),
    "lu_factor_ex_check": (
        lambda L, a: L.linalg.lu_factor_ex(a, check_errors=True),
        [np.zeros((3, 3))],
    ),
    "lu_factor_ex_1d": (lambda L, a: L.linalg.lu_factor_ex(a), [randn(3)]),
    "lu_factor_ex_long": (lambda L, a: L.linalg.lu_factor_ex(a), [np.ones((3, 3), dtype=np.int64)]),
}

test_errors_match_torch = cases.same_errors_as_torch(ERRORS)
