"""The deprecated spellings of torch.linalg's functions against PyTorch: triangular_solve
and lu_solve (values, gradients, tangents, second derivatives, their deprecation
warnings), and the errors of solve, lstsq, symeig, eig and matrix_rank, which PyTorch has
removed."""

from __future__ import annotations

import numpy as np
import pytest

import cases
from oracle import FLOATS, check, check_double_backward, check_fd, randn, warns_as_torch, well

TRIANGULAR = "torch.triangular_solve is deprecated"
LU_SOLVE = "torch.lu_solve is deprecated"

CASES = {
    "triangular_solve": (
        warns_as_torch(TRIANGULAR, lambda L, a, b: L.triangular_solve(b, a).solution),
        [well((3, 3)), randn((3, 2), 1)],
    ),
    "triangular_solve_lower_transposed": (
        warns_as_torch(
            TRIANGULAR,
            lambda L, a, b: L.triangular_solve(b, a, upper=False, transpose=True).solution,
        ),
        [well((2, 3, 3)), randn((2, 3, 2), 2)],
    ),
    "triangular_solve_unit_method": (
        warns_as_torch(
            TRIANGULAR, lambda L, a, b: b.triangular_solve(a, unitriangular=True).solution
        ),
        [well((3, 3)), randn((3, 2), 3)],
    ),
    "triangular_solve_coefficient": (
        warns_as_torch(
            TRIANGULAR, lambda L, a, b: (lambda r: r[0] + r[1][:, :2] * 2)(L.triangular_solve(b, a))
        ),
        [well((3, 3)), randn((3, 2), 4)],
    ),
    "lu_solve": (
        warns_as_torch(LU_SOLVE, lambda L, a, b: L.lu_solve(b, *L.linalg.lu_factor(a))),
        [well((3, 3)), randn((3, 2), 5)],
    ),
    "lu_solve_method": (
        warns_as_torch(LU_SOLVE, lambda L, a, b: b.lu_solve(*L.linalg.lu_factor(a))),
        [well((2, 3, 3)), randn((2, 3, 1), 6)],
    ),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=["f32", "f64"])
@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch(name, dtype):
    fn, inputs = CASES[name]
    # PyTorch's triangular_solve tangent also reads dA's unused triangle (its
    # linalg.solve_triangular does not): checked against that one below instead
    check(fn, *inputs, dtype=dtype, forward=not name.startswith("triangular_solve"))


def test_triangular_solve_tangent_is_solve_triangulars():
    # the tangent of a solve with A's upper triangle ignores dA's lower one
    import torch
    import torch.autograd.forward_ad as tfw

    import chainrule as cr

    a, b = well((3, 3)), randn((3, 2), 7)
    da = np.tril(randn((3, 3), 8), -1) + np.triu(randn((3, 3), 9))
    with tfw.dual_level():
        dual = tfw.make_dual(torch.tensor(a), torch.tensor(da))
        want = tfw.unpack_dual(torch.linalg.solve_triangular(dual, torch.tensor(b), upper=True))
    with cr.autograd.forward_ad.dual_level():
        dual = cr.autograd.forward_ad.make_dual(cr.tensor(a), cr.tensor(da))
        with pytest.warns(UserWarning, match=TRIANGULAR):
            got = cr.triangular_solve(cr.tensor(b), dual).solution
        got = cr.autograd.forward_ad.unpack_dual(got)
    np.testing.assert_allclose(got.tangent.numpy(), want.tangent.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", list(CASES))
def test_finite_differences(name):
    fn, inputs = CASES[name]
    check_fd(fn, *inputs)


@pytest.mark.parametrize("name", list(CASES))
def test_double_backward(name):
    fn, inputs = CASES[name]
    check_double_backward(fn, *inputs)


A = np.array([[2.0, 0.5], [0.3, 1.5]])

ERRORS = {
    "solve": (lambda L, a: L.solve(a, a), [A]),
    "solve_method": (lambda L, a: a.solve(a), [A]),
    "lstsq": (lambda L, a: L.lstsq(a, a), [A]),
    "lstsq_method": (lambda L, a: a.lstsq(a), [A]),
    "symeig": (lambda L, a: L.symeig(a), [A]),
    "symeig_method": (lambda L, a: a.symeig(eigenvectors=True), [A]),
    "eig": (lambda L, a: L.eig(a), [A]),
    "eig_method": (lambda L, a: a.eig(), [A]),
    "matrix_rank": (lambda L, a: L.matrix_rank(a), [A]),
}

test_removed_functions_raise_torchs_errors = cases.same_errors_as_torch(ERRORS)
