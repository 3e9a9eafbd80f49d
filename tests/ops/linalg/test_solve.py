"""Inverses, determinants and solvers against PyTorch: inv (inverse, inv_ex), det,
slogdet, logdet, solve (solve_ex), solve_triangular, the LU family (lu, lu_factor,
lu_solve, lu_unpack), cholesky (cholesky_ex, cholesky_solve, cholesky_inverse, the
deprecated torch.cholesky), lstsq, pinv, tensorinv, tensorsolve; the determinant's
gradient at singular matrices; the ``_ex`` variants' info.

Forward values, output dtypes, node names and gradients in float32 and float64, batched
and broadcast shapes, float64 finite differences, forward-mode tangents, second
derivatives, and PyTorch's errors (type and message) for shapes that do not fit.

Decompositions are compared through gauge-invariant functions of their factors (an
eigenvector's or singular pair's sign is arbitrary), and eigh/cholesky inputs are made
symmetric inside the tested function, as PyTorch's documentation suggests.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import cases
import chainrule as cr
from oracle import (
    NoGrad,
    check,
    check_double_backward,
    check_fd,
    randn,
    spd,
    tangent,
    warns_as_torch,
    well,
)

# ----- cases: name -> (function of (lib, *tensors), inputs, PyTorch's node name) ----------


CHOLESKY_DEPRECATED = "torch.cholesky is deprecated"  # PyTorch's warning, and chainrule's

CASES = {
    "inv_empty_batch": (lambda L, a: L.linalg.inv(a), [randn((0, 3, 3))], "LinalgInvExBackward0"),
    "det_empty_matrices": (lambda L, a: L.linalg.det(a), [randn((2, 0, 0))], "LinalgDetBackward0"),
    # inverse, determinants, solve
    "inv": (lambda L, a: L.linalg.inv(a), [well((3, 3))], "LinalgInvExBackward0"),
    "inv_batched": (lambda L, a: L.linalg.inv(a), [well((2, 3, 3))], "LinalgInvExBackward0"),
    "inverse": (lambda L, a: L.inverse(a), [well((3, 3))], "LinalgInvExBackward0"),
    "inverse_method": (lambda L, a: a.inverse(), [well((3, 3))], "LinalgInvExBackward0"),
    "det": (lambda L, a: L.linalg.det(a), [well((3, 3))], "LinalgDetBackward0"),
    "det_batched": (lambda L, a: L.det(a), [well((2, 3, 3))], "LinalgDetBackward0"),
    "det_method": (lambda L, a: a.det(), [randn((3, 3))], "LinalgDetBackward0"),
    "slogdet": (
        lambda L, a: L.linalg.slogdet(a).logabsdet,
        [randn((3, 3))],
        "LinalgSlogdetBackward0",
    ),
    "slogdet_batched": (
        lambda L, a: L.linalg.slogdet(a)[1],
        [well((2, 3, 3))],
        "LinalgSlogdetBackward0",
    ),
    "slogdet_sign": (lambda L, a: L.slogdet(a)[0] * a.sum(), [randn((3, 3))], None),
    "slogdet_method": (lambda L, a: a.slogdet()[1], [randn((3, 3))], "LinalgSlogdetBackward0"),
    "logdet": (lambda L, a: L.logdet(spd(L, a)), [randn((3, 3))], "WhereBackward0"),
    "logdet_method": (lambda L, a: a.logdet(), [well((2, 3, 3))], "WhereBackward0"),
    "solve": (
        lambda L, a, b: L.linalg.solve(a, b),
        [well((3, 3)), randn((3, 2), 1)],
        "LinalgSolveExBackward0",
    ),
    "solve_vector": (
        lambda L, a, b: L.linalg.solve(a, b),
        [well((3, 3)), randn(3, 1)],
        "LinalgSolveExBackward0",
    ),
    "solve_batch_vector": (
        lambda L, a, b: L.linalg.solve(a, b),
        [well((2, 3, 3)), randn((2, 3), 1)],
        "LinalgSolveExBackward0",
    ),
    "solve_vector_broadcast": (
        lambda L, a, b: L.linalg.solve(a, b),
        [well((2, 3, 3)), randn(3, 1)],
        "LinalgSolveExBackward0",
    ),
    "solve_broadcast": (
        lambda L, a, b: L.linalg.solve(a, b),
        [well((2, 3, 3)), randn((4, 1, 3, 2), 1)],
        "LinalgSolveExBackward0",
    ),
    "solve_right": (
        lambda L, a, b: L.linalg.solve(a, b, left=False),
        [well((3, 3)), randn((2, 3), 1)],
        None,
    ),
    "cholesky_inverse": (
        lambda L, a: L.cholesky_inverse(L.linalg.cholesky(spd(L, a))),
        [randn((3, 3))],
        None,
    ),
    "cholesky_solve": (
        lambda L, b, a: L.cholesky_solve(b, L.linalg.cholesky(spd(L, a))),
        [randn((3, 2)), randn((3, 3), 1)],
        None,
    ),
    "cholesky_solve_upper": (
        lambda L, b, a: b.cholesky_solve(L.linalg.cholesky(spd(L, a), upper=True), upper=True),
        [randn((2, 3, 2)), randn((3, 3), 1)],
        None,
    ),
    "cholesky_inverse_upper": (
        lambda L, a: L.cholesky_inverse(L.linalg.cholesky(spd(L, a), upper=True), upper=True),
        [randn((3, 3))],
        None,
    ),
    "solve_triangular_upper": (
        lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True),
        [well((3, 3)), randn((3, 2), 1)],
        "LinalgSolveTriangularBackward0",
    ),
    "solve_triangular_lower_right": (
        lambda L, a, b: L.linalg.solve_triangular(a, b, upper=False, left=False),
        [well((2, 3, 3)), randn((4, 3), 1)],
        "LinalgSolveTriangularBackward0",
    ),
    "solve_triangular_unit": (
        lambda L, a, b: L.linalg.solve_triangular(a, b, upper=False, unitriangular=True),
        [randn((3, 3)), randn((2, 3, 2), 1)],
        "LinalgSolveTriangularBackward0",
    ),
    "solve_triangular_unit_right": (
        lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True, left=False, unitriangular=True),
        [randn((3, 3)), randn((2, 3), 1)],
        "LinalgSolveTriangularBackward0",
    ),
    # decompositions
    "cholesky_legacy": (
        warns_as_torch(CHOLESKY_DEPRECATED, lambda L, a: L.cholesky(spd(L, a))),
        [randn((3, 3))],
        "CholeskyBackward0",
    ),
    "cholesky_legacy_upper": (
        warns_as_torch(CHOLESKY_DEPRECATED, lambda L, a: spd(L, a).cholesky(upper=True)),
        [randn((3, 3))],
        "CholeskyBackward0",
    ),
    "cholesky": (
        lambda L, a: L.linalg.cholesky(spd(L, a)),
        [randn((3, 3))],
        "LinalgCholeskyExBackward0",
    ),
    "cholesky_upper": (
        lambda L, a: L.linalg.cholesky(spd(L, a), upper=True),
        [randn((2, 3, 3))],
        "LinalgCholeskyExBackward0",
    ),
    "cholesky_batched": (
        lambda L, a: L.linalg.cholesky(spd(L, a)),
        [randn((2, 4, 4))],
        "LinalgCholeskyExBackward0",
    ),
    "pinv": (lambda L, a: L.linalg.pinv(a), [randn((3, 5))], "LinalgPinvBackward0"),
    "pinv_tall": (lambda L, a: L.linalg.pinv(a), [randn((2, 5, 3))], "LinalgPinvBackward0"),
    "pinverse": (lambda L, a: a.pinverse(), [well((3, 3))], "LinalgPinvBackward0"),
    "lstsq": (
        lambda L, a, b: L.linalg.lstsq(a, b).solution,
        [randn((5, 3)), randn((5, 2), 1)],
        "LinalgLstsqBackward0",
    ),
    "lstsq_wide_batched": (
        lambda L, a, b: L.linalg.lstsq(a, b)[0],
        [randn((2, 3, 5)), randn((2, 3, 2), 1)],
        "LinalgLstsqBackward0",
    ),
    "lstsq_residuals": (
        lambda L, a, b: L.linalg.lstsq(a, b, driver="gelsd").residuals,
        [randn((5, 3)), randn((5, 2), 1)],
        None,
    ),
    "inv_ex": (lambda L, a: L.linalg.inv_ex(a).inverse, [well((2, 3, 3))], "LinalgInvExBackward0"),
    "cholesky_ex": (
        lambda L, a: L.linalg.cholesky_ex(spd(L, a)).L,
        [randn((3, 3))],
        "LinalgCholeskyExBackward0",
    ),
    "solve_ex": (
        lambda L, a, b: L.linalg.solve_ex(a, b).result,
        [well((3, 3)), randn((3, 2), 1)],
        "LinalgSolveExBackward0",
    ),
    "lu_l": (lambda L, a: L.linalg.lu(a).L, [randn((3, 3))], "LinalgLuBackward0"),
    "lu_u": (lambda L, a: L.linalg.lu(a).U, [randn((2, 4, 4))], "LinalgLuBackward0"),
    "lu_both": (
        lambda L, a: (lambda p, lo, up: p @ lo @ up * lo.sum())(*L.linalg.lu(a)),
        [randn((3, 3))],
        None,
    ),
    "lu_wide": (
        lambda L, a: (lambda p, lo, up: lo.sum(-1, keepdim=True) * up.sum(-2, keepdim=True))(
            *L.linalg.lu(a)
        ),
        [randn((3, 5))],
        None,
    ),
    "lu_tall": (
        lambda L, a: (lambda p, lo, up: lo.sum(-1, keepdim=True) * up.sum(-2, keepdim=True))(
            *L.linalg.lu(a)
        ),
        [randn((2, 5, 3))],
        None,
    ),
    "lu_u_wide": (lambda L, a: L.linalg.lu(a).U, [randn((3, 5))], "LinalgLuBackward0"),
    "lu_l_tall": (lambda L, a: L.linalg.lu(a).L, [randn((5, 3))], "LinalgLuBackward0"),
    "lu_factor": (
        lambda L, a: L.linalg.lu_factor(a).LU,
        [randn((2, 3, 3))],
        "LinalgLuFactorExBackward0",
    ),
    "lu_factor_wide": (
        lambda L, a: L.linalg.lu_factor(a)[0],
        [randn((3, 5))],
        "LinalgLuFactorExBackward0",
    ),
    "lu_factor_tall": (
        lambda L, a: L.linalg.lu_factor(a)[0],
        [randn((5, 3))],
        "LinalgLuFactorExBackward0",
    ),
    "lu_solve": (
        lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b),
        [well((3, 3)), randn((3, 2), 1)],
        None,
    ),
    "lu_solve_adjoint": (
        lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, adjoint=True),
        [well((2, 3, 3)), randn((2, 3, 2), 1)],
        None,
    ),
    "lu_solve_right": (
        lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, left=False),
        [well((3, 3)), randn((2, 3), 1)],
        None,
    ),
    "lu_unpack": (
        lambda L, a: (lambda p, lo, up: p @ lo @ up)(*L.lu_unpack(*L.linalg.lu_factor(a))),
        [randn((3, 3))],
        None,
    ),
    "lu_legacy": (
        warns_as_torch("torch.lu is deprecated", lambda L, a: L.lu(a)[0]),
        [randn((3, 3))],
        "LinalgLuFactorExBackward0",
    ),
    "tensorinv": (lambda L, a: L.linalg.tensorinv(a, ind=1), [well((6, 6)).reshape(6, 2, 3)], None),
    "tensorsolve": (
        lambda L, a, b: L.linalg.tensorsolve(a, b),
        [well((6, 6)).reshape(2, 3, 6), randn((2, 3), 1)],
        None,
    ),
    "tensorsolve_dims": (
        lambda L, a, b: L.linalg.tensorsolve(a, b, dims=(0,)),
        [well((6, 6)).reshape(2, 3, 6).transpose(2, 0, 1).copy(), randn((2, 3), 1)],
        None,
    ),
}

# float32 differences between LAPACK builds grow with the condition of the problem
LOOSE = {
    "pinv",
    "pinv_tall",
    "det_method",
    "slogdet",
    "slogdet_method",
}

# PyTorch's own forward-mode rule for cholesky_inverse disagrees with finite differences
# (checked below against them instead)
TORCH_JVP_WRONG = {"cholesky_inverse", "cholesky_inverse_upper"}

TORCH_NO_JVP = {"cholesky_legacy", "cholesky_legacy_upper"}  # torch.cholesky has none

test_matches_torch = cases.linalg_matches_torch(CASES, loose=LOOSE, torch_jvp_wrong=TORCH_JVP_WRONG)

test_node_name = cases.linalg_node_name(CASES)

# slogdet_sign: piecewise constant
FD_SKIP = {"slogdet_sign"}

test_finite_differences = cases.linalg_finite_differences(CASES, skip=FD_SKIP)

test_tangent_matches_torch = cases.linalg_tangents_match_torch(
    CASES, skip=TORCH_JVP_WRONG | TORCH_NO_JVP
)

test_double_backward = cases.linalg_double_backward(CASES)


# ----- errors: PyTorch's type and message -------------------------------------------------


ERRORS = {
    "inv_shape": (lambda L, a: L.linalg.inv(a), [randn((3, 4))]),
    "inv_1d": (lambda L, a: L.linalg.inv(a), [randn(3)]),
    "inv_long": (lambda L, a: L.linalg.inv(a), [np.ones((3, 3), dtype=np.int64)]),
    "inv_singular": (lambda L, a: L.linalg.inv(a), [np.zeros((3, 3))]),
    "inv_singular_batch": (lambda L, a: L.linalg.inv(a), [np.stack([np.eye(3), np.ones((3, 3))])]),
    "inv_half": (lambda L, a: L.linalg.inv(a.half()), [well((3, 3))]),
    "det_shape": (lambda L, a: L.linalg.det(a), [randn((3, 4))]),
    "det_long": (lambda L, a: L.linalg.det(a), [np.ones((3, 3), dtype=np.int64)]),
    "slogdet_shape": (lambda L, a: L.linalg.slogdet(a), [randn((3, 4))]),
    "solve_vector": (lambda L, a, b: L.linalg.solve(a, b), [randn((3, 3)), randn(4)]),
    "solve_matrix": (lambda L, a, b: L.linalg.solve(a, b), [randn((3, 3)), randn((4, 2))]),
    "solve_rows": (lambda L, a, b: L.linalg.solve(a, b), [randn((3, 3)), randn((2, 3))]),
    "solve_dtypes": (lambda L, a, b: L.linalg.solve(a, b.float()), [randn((3, 3)), randn(3)]),
    "solve_singular": (lambda L, a, b: L.linalg.solve(a, b), [np.zeros((3, 3)), randn(3)]),
    "cholesky_not_pd": (lambda L, a: L.linalg.cholesky(a), [-np.eye(3)]),
    "cholesky_minor": (lambda L, a: L.linalg.cholesky(a), [np.diag([1.0, 2.0, -1.0])]),
    "cholesky_batch": (lambda L, a: L.linalg.cholesky(a), [np.stack([np.eye(2), -np.eye(2)])]),
    "cholesky_shape": (lambda L, a: L.linalg.cholesky(a), [randn((3, 4))]),
    "tensorsolve_shape": (
        lambda L, a, b: L.linalg.tensorsolve(a, b, dims=(0,)),
        [randn((3, 2, 6)), randn((2, 3))],
    ),
    "tensorinv_shape": (lambda L, a: L.linalg.tensorinv(a, ind=1), [randn((6, 2, 2))]),
}

test_errors_match_torch = cases.same_errors_as_torch(ERRORS)


# ----- named tuples -----------------------------------------------------------------------


NAMED_TUPLES = {
    "linalg.slogdet": lambda L, a: L.linalg.slogdet(a),
    "slogdet": lambda L, a: L.slogdet(a),
}

test_named_tuples_as_torch = cases.named_tuples_as_torch(NAMED_TUPLES)


# ----- the determinant at singular matrices -----------------------------------------------


SINGULAR = np.array([[1.0, 2, 3], [2, 4, 6], [0, 1, 5]])  # rank 2


def test_det_gradient_at_a_singular_matrix_is_the_cofactor_matrix():
    """PyTorch's first-order backward gives zeros here; its create_graph path (and the
    math) give the cofactor matrix, which chainrule gives in both."""
    a = cr.tensor(SINGULAR, requires_grad=True)
    cr.linalg.det(a).backward()
    cofactors = np.array([[14.0, -10, 2], [-7, 5, -1], [0, 0, 0]])
    np.testing.assert_allclose(a.grad.numpy(force=True), cofactors, atol=1e-12)


def test_det_singular_and_regular_batch_second_order():
    batch = np.stack([SINGULAR, 2 * np.eye(3), randn((3, 3))])
    check_double_backward(lambda L, a: L.linalg.det(a), batch, rtol=1e-7, atol=1e-9)
    check_fd(lambda L, a: L.linalg.det(a), batch)


# ----- forward mode where PyTorch's rule is missing or wrong ------------------------------


@pytest.mark.parametrize("name", sorted(TORCH_JVP_WRONG | TORCH_NO_JVP))
def test_tangent_matches_finite_differences(name):
    fn, inputs, _ = CASES[name]
    tangents = [randn(np.shape(x), seed=7 + i) for i, x in enumerate(inputs)]
    _, t = tangent(cr, fn, inputs, tangents)
    eps = 1e-6
    with cr.no_grad():
        plus = fn(cr, *[cr.tensor(x + eps * t) for x, t in zip(inputs, tangents)]).numpy(force=True)
        minus = fn(cr, *[cr.tensor(x - eps * t) for x, t in zip(inputs, tangents)]).numpy(
            force=True
        )
    np.testing.assert_allclose(t, (plus - minus) / (2 * eps), rtol=1e-6, atol=1e-8)


# ----- errors, lstsq's outputs, the _ex variants ------------------------------------------


def test_linalg_error_is_a_runtime_error():
    with pytest.raises(cr.linalg.LinAlgError, match="singular"):
        cr.linalg.inv(cr.zeros(2, 2))
    assert issubclass(cr.linalg.LinAlgError, RuntimeError)


@pytest.mark.parametrize("driver", [None, "gels", "gelsd", "gelss"])
def test_lstsq_outputs_as_torch(driver):
    a, b = randn((5, 3)), randn((5, 2), 1)
    ours = cr.linalg.lstsq(cr.tensor(a), cr.tensor(b), driver=driver)
    theirs = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver=driver)
    for o, t in zip(ours, theirs):
        assert tuple(o.shape) == tuple(t.shape)
        assert str(o.dtype) == str(t.dtype)
        np.testing.assert_allclose(
            o.detach().numpy(force=True), t.detach().numpy(force=True), rtol=1e-10, atol=1e-12
        )


@pytest.mark.parametrize(
    "fn, x",
    [
        (lambda L, a: L.linalg.inv_ex(a).info, np.stack([np.eye(3), np.zeros((3, 3))])),
        (lambda L, a: L.linalg.inv_ex(a).info, np.ones((3, 3))),
        (lambda L, a: L.linalg.cholesky_ex(a).info, np.stack([np.eye(3), np.diag([1.0, -1, 1])])),
        (lambda L, a: L.linalg.solve_ex(a, a).info, well((2, 3, 3))),
    ],
    ids=["inv_batch", "inv_rank1", "cholesky", "solve"],
)
def test_ex_info_as_torch(fn, x):
    check(fn, NoGrad(x))


def test_ex_check_errors_raises():
    with pytest.raises(RuntimeError, match="singular"):
        cr.linalg.inv_ex(cr.zeros(2, 2), check_errors=True)
    with pytest.raises(RuntimeError, match="positive-definite"):
        cr.linalg.cholesky_ex(-cr.eye(2), check_errors=True)
