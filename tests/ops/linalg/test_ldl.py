"""linalg.ldl_factor, ldl_factor_ex and ldl_solve against PyTorch (LAPACK's sytrf and
sytrs): the packed LD, the 1-based pivots (negative on 2×2 blocks) and info equal torch's
on symmetric indefinite matrices with every kind of pivot, batched, in float32 and
float64; the solves equal torch's and numpy.linalg.solve's; no derivative, as in PyTorch;
PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import cases
import chainrule as cr
from oracle import FLOATS, compare, randn


def _indefinite(n: int, seed: int, diagonal: float = 1.0) -> np.ndarray:
    """A random symmetric matrix whose diagonal is scaled by ``diagonal``: a small one
    makes Bunch-Kaufman swap rows and take 2×2 pivots."""
    a = randn((n, n), seed)
    a = a + a.T
    return a - np.diag(np.diag(a)) * (1 - diagonal)


SWAPS = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 3.0], [2.0, 3.0, 0.0]])  # a 2×2 block first
PLAIN = randn((4, 4), 1) @ randn((4, 4), 1).T + 4 * np.eye(4)  # positive definite: no swaps
BATCH = np.stack([_indefinite(6, s, d) for s, d in [(2, 1.0), (3, 0.01), (4, 0.0), (5, 0.1)]])

CASES = {
    "plain": (lambda L, a: tuple(L.linalg.ldl_factor(a)), PLAIN),
    "swap_1x1": (lambda L, a: tuple(L.linalg.ldl_factor(a)), _indefinite(5, 0, 0.01)),
    "block_2x2": (lambda L, a: tuple(L.linalg.ldl_factor(a)), SWAPS),
    "batched": (lambda L, a: tuple(L.linalg.ldl_factor(a)), BATCH),
    "ex": (lambda L, a: tuple(L.linalg.ldl_factor_ex(a)), BATCH),
    "hermitian": (lambda L, a: tuple(L.linalg.ldl_factor(a, hermitian=True)), BATCH[1]),
    "one_by_one": (lambda L, a: tuple(L.linalg.ldl_factor_ex(a)), np.array([[-2.0]])),
    "lower_triangle_read": (
        lambda L, a: tuple(L.linalg.ldl_factor(a.tril())),
        _indefinite(5, 6, 0.05),
    ),
    "solve": (
        lambda L, a, b: L.linalg.ldl_solve(*L.linalg.ldl_factor(a), b),
        BATCH,
        randn((4, 6, 2), 7),
    ),
    "solve_broadcast": (
        lambda L, a, b: L.linalg.ldl_solve(*L.linalg.ldl_factor(a), b),
        SWAPS,
        randn((2, 3, 3), 8),
    ),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=["f32", "f64"])
@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch(name, dtype):
    fn, *inputs = CASES[name]
    tol = 1e-4 if dtype == np.float32 else 1e-10
    compare(lambda L: fn(L, *(L.tensor(x.astype(dtype)) for x in inputs)), rtol=tol, atol=tol)


def test_cases_hold_every_kind_of_pivot():
    """Per torch's own pivots: unswapped 1×1, swapped 1×1 and 2×2 blocks all occur."""
    pivots = np.concatenate(
        [
            torch.linalg.ldl_factor(torch.tensor(a)).pivots.reshape(-1).numpy(force=True)
            for a in (PLAIN, _indefinite(5, 0, 0.01), SWAPS, BATCH)
        ]
    )
    assert (pivots < 0).any()
    assert any(p > 0 and p != i % 6 + 1 for i, p in enumerate(pivots[-24:]))
    assert (
        torch.linalg.ldl_factor(torch.tensor(PLAIN)).pivots.numpy(force=True) == [1, 2, 3, 4]
    ).all()


@pytest.mark.parametrize("seed", range(12))
def test_random_indefinite_matrices_match_torch(seed):
    """Many shapes and diagonals: the pivot choices are LAPACK's, value for value."""
    n = 2 + seed % 7
    a = _indefinite(n, 100 + seed, [1.0, 0.1, 0.01, 0.0][seed % 4])
    want = torch.linalg.ldl_factor_ex(torch.tensor(a))
    got = cr.linalg.ldl_factor_ex(cr.tensor(a))
    np.testing.assert_array_equal(got.pivots.numpy(force=True), want.pivots.numpy(force=True))
    np.testing.assert_allclose(
        got.LD.numpy(force=True), want.LD.numpy(force=True), rtol=1e-10, atol=1e-12
    )
    assert int(got.info) == int(want.info) == 0


def test_large_matrix_matches_lapacks_blocked_path():
    """n = 80 is past sytrf's block size, where LAPACK factors in blocks: same result."""
    a = _indefinite(80, 9, 0.1)
    want = torch.linalg.ldl_factor(torch.tensor(a))
    got = cr.linalg.ldl_factor(cr.tensor(a))
    np.testing.assert_array_equal(got.pivots.numpy(force=True), want.pivots.numpy(force=True))
    np.testing.assert_allclose(
        got.LD.numpy(force=True), want.LD.numpy(force=True), rtol=1e-9, atol=1e-11
    )


def test_solve_equals_numpy_solve():
    b = randn((4, 6, 3), 10)
    LD, pivots = cr.linalg.ldl_factor(cr.tensor(BATCH))
    x = cr.linalg.ldl_solve(LD, pivots, cr.tensor(b))
    np.testing.assert_allclose(
        x.numpy(force=True), np.linalg.solve(BATCH, b), rtol=1e-10, atol=1e-12
    )
    assert x.dtype == cr.float64 and pivots.dtype == cr.int32


def test_singular_d_is_reported_in_info_as_torch():
    def run(L):
        a = L.tensor(np.stack([np.zeros((3, 3)), SWAPS, np.diag([1.0, 0.0, 2.0])]))
        return tuple(L.linalg.ldl_factor_ex(a))

    compare(run)


def test_no_derivative_as_in_torch():
    for lib in (cr, torch):
        a = lib.tensor(SWAPS, requires_grad=True)
        LD, pivots = lib.linalg.ldl_factor(a)
        assert LD.requires_grad and not pivots.requires_grad
        assert LD.grad_fn.name() == "torch::autograd::NotImplemented"
        with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_factor_ex is"):
            LD.sum().backward()
        b = lib.tensor(randn((3, 2)), requires_grad=True)
        x = lib.linalg.ldl_solve(LD.detach(), pivots, b)
        with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_solve is"):
            x.sum().backward()


def test_out_writes_the_given_tensors_as_torch():
    def run(L):
        a = L.tensor(SWAPS)
        o = (L.empty(3, 3, dtype=L.float64), L.empty(3, dtype=L.int32))
        r = L.linalg.ldl_factor(a, out=o)
        o3 = (*(L.empty_like(t) for t in o), L.empty((), dtype=L.int32))
        r3 = L.linalg.ldl_factor_ex(a, out=o3)
        x = L.empty(3, 2, dtype=L.float64)
        y = L.linalg.ldl_solve(o[0], o[1], L.ones(3, 2, dtype=L.float64), out=x)
        assert r[0] is o[0] and r3[2] is o3[2] and y is x
        return o + o3 + (x,)

    compare(run)


def _solve(L, ld, piv, b):
    return L.linalg.ldl_solve(ld, piv.int(), b)


ERRORS = {
    "factor_1d": (lambda L, a: L.linalg.ldl_factor(a), [randn(3)]),
    "factor_wide": (lambda L, a: L.linalg.ldl_factor(a), [randn((3, 4))]),
    "factor_long": (lambda L, a: L.linalg.ldl_factor(a), [np.ones((3, 3), dtype=np.int64)]),
    "factor_singular": (lambda L, a: L.linalg.ldl_factor(a), [np.zeros((3, 3))]),
    "factor_ex_check": (
        lambda L, a: L.linalg.ldl_factor_ex(a, check_errors=True),
        [np.zeros((3, 3))],
    ),
    "factor_ex_1d": (lambda L, a: L.linalg.ldl_factor_ex(a), [randn(3)]),
    "solve_rows": (_solve, [randn((3, 3)), np.ones(3), randn((4, 2))]),
    "solve_dtypes": (
        lambda L, ld, piv, b: L.linalg.ldl_solve(ld.float(), piv.int(), b),
        [randn((3, 3)), np.ones(3), randn((3, 2))],
    ),
    "solve_pivots_shape": (_solve, [randn((3, 3)), np.ones(2), randn((3, 2))]),
    "solve_b_1d": (_solve, [randn((3, 3)), np.ones(3), randn(3)]),
}

test_errors_match_torch = cases.same_errors_as_torch(ERRORS)
