"""Spectral decompositions against PyTorch: eigh, eigvalsh, svd (``linalg.svd``,
``torch.svd``), svdvals, qr (every mode), matrix_exp: values and factors' shapes and
dtypes, gauge-invariant functions of the factors, their gradients and tangents.

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
    randn,
    sym,
    warns_as_torch,
)

# ----- cases: name -> (function of (lib, *tensors), inputs, PyTorch's node name) ----------


CASES = {
    "eigh_empty_batch": (
        lambda L, a: L.linalg.eigh(a)[0],
        [randn((0, 3, 3))],
        "LinalgEighBackward0",
    ),
    "qr_q": (lambda L, a: L.linalg.qr(a).Q, [randn((4, 3))], "LinalgQrBackward0"),
    "qr_r": (lambda L, a: L.linalg.qr(a).R, [randn((4, 3))], "LinalgQrBackward0"),
    "qr_both": (
        lambda L, a: (lambda q, r: q.sum(-1, keepdim=True) * r.sum(-2, keepdim=True))(
            *L.linalg.qr(a)
        ),
        [randn((2, 3, 3))],
        None,
    ),
    "qr_wide_q": (lambda L, a: L.linalg.qr(a)[0], [randn((3, 5))], "LinalgQrBackward0"),
    "qr_wide_r": (lambda L, a: L.linalg.qr(a)[1], [randn((3, 5))], "LinalgQrBackward0"),
    "qr_complete_square": (
        lambda L, a: L.linalg.qr(a, mode="complete").R,
        [randn((3, 3))],
        "LinalgQrBackward0",
    ),
    # torch.qr's deprecation warning: PyTorch's only (once per process, from C++)
    "qr_method": (
        warns_as_torch(None, lambda L, a: a.qr()[0]),
        [randn((4, 3))],
        "LinalgQrBackward0",
    ),
    "eigvalsh": (lambda L, a: L.linalg.eigvalsh(sym(L, a)), [randn((4, 4))], "LinalgEighBackward0"),
    "eigh_values": (
        lambda L, a: L.linalg.eigh(sym(L, a)).eigenvalues,
        [randn((2, 3, 3))],
        "LinalgEighBackward0",
    ),
    # gauge-invariant functions of the eigenvectors
    "eigh_vectors_squared": (lambda L, a: L.linalg.eigh(sym(L, a))[1] ** 2, [randn((4, 4))], None),
    "eigh_projector": (
        lambda L, a: (lambda v: v[..., :, :2] @ v[..., :, :2].mT)(
            L.linalg.eigh(sym(L, a)).eigenvectors
        ),
        [randn((2, 4, 4))],
        "UnsafeViewBackward0",
    ),
    "eigh_both": (
        lambda L, a: (lambda w, v: (v * w.unsqueeze(-2)) @ v.mT)(*L.linalg.eigh(sym(L, a))),
        [randn((3, 3))],
        None,
    ),
    "eigh_upper": (lambda L, a: L.linalg.eigh(sym(L, a), UPLO="U")[1].abs(), [randn((3, 3))], None),
    "svdvals": (lambda L, a: L.linalg.svdvals(a), [randn((3, 5))], "LinalgSvdBackward0"),
    "svd_s": (lambda L, a: L.linalg.svd(a).S, [randn((2, 4, 3))], "LinalgSvdBackward0"),
    "svd_u_squared": (
        lambda L, a: L.linalg.svd(a, full_matrices=False).U ** 2,
        [randn((4, 3))],
        None,
    ),
    "svd_u_wide": (
        lambda L, a: L.linalg.svd(a, full_matrices=False).U.abs(),
        [randn((3, 5))],
        None,
    ),
    "svd_vh_squared": (
        lambda L, a: L.linalg.svd(a, full_matrices=False).Vh ** 2,
        [randn((2, 3, 5))],
        None,
    ),
    "svd_vh_tall": (
        lambda L, a: L.linalg.svd(a, full_matrices=False).Vh.abs(),
        [randn((5, 3))],
        None,
    ),
    "svd_rank1": (
        lambda L, a: (lambda u, s, vh: u[..., :, :1] * vh[..., :1, :])(
            *L.linalg.svd(a, full_matrices=False)
        ),
        [randn((4, 3))],
        None,
    ),
    "svd_reconstruct": (
        lambda L, a: (lambda u, s, vh: (u * s.unsqueeze(-2)) @ vh)(
            *L.linalg.svd(a, full_matrices=False)
        ),
        [randn((2, 3, 4))],
        None,
    ),
    "svd_full_rank1": (
        lambda L, a: (lambda u, s, vh: u[..., :, :1] * vh[..., :1, :] * s[0])(*L.linalg.svd(a)),
        [randn((5, 3))],
        None,
    ),
    "svd_full_u": (
        lambda L, a: L.linalg.svd(a).U[..., :, :3] ** 2,
        [randn((5, 3))],
        "PowBackward0",
    ),
    "svd_full_vh": (lambda L, a: L.linalg.svd(a).Vh[..., :3, :] ** 2, [randn((2, 3, 5))], None),
    "svd_legacy": (lambda L, a: (lambda u, s, v: (u * s) @ v.mT)(*L.svd(a)), [randn((4, 3))], None),
    "matrix_exp": (
        lambda L, a: L.linalg.matrix_exp(a),
        [randn((3, 3))],
        "LinalgMatrixExpBackward0",
    ),
    "matrix_exp_scaled": (
        lambda L, a: L.matrix_exp(a * 4),
        [randn((2, 3, 3))],
        "LinalgMatrixExpBackward0",
    ),
    "matrix_exp_method": (lambda L, a: a.matrix_exp(), [randn((2, 2))], "LinalgMatrixExpBackward0"),
}

# float32 differences between LAPACK builds grow with the condition of the problem
LOOSE = {
    "svd_u_wide",
    "svd_vh_squared",
    "svd_vh_tall",
    "svd_rank1",
    "svd_u_squared",
    "svd_full_rank1",
    "svd_full_u",
    "svd_full_vh",
    "qr_wide_q",
    "qr_wide_r",
    "eigh_vectors_squared",
    "eigh_projector",
    "eigh_upper",
    "svd_legacy",
}

test_matches_torch = cases.linalg_matches_torch(CASES, loose=LOOSE)

test_node_name = cases.linalg_node_name(CASES)

test_finite_differences = cases.linalg_finite_differences(CASES)

test_tangent_matches_torch = cases.linalg_tangents_match_torch(CASES)

test_double_backward = cases.linalg_double_backward(CASES)


# ----- errors: PyTorch's type and message -------------------------------------------------


ERRORS = {
    "eigh_shape": (lambda L, a: L.linalg.eigh(a), [randn((3, 4))]),
    "svd_1d": (lambda L, a: L.linalg.svd(a), [randn(3)]),
    "qr_1d": (lambda L, a: L.linalg.qr(a), [randn(3)]),
    "qr_mode": (lambda L, a: L.linalg.qr(a, mode="full"), [randn((3, 3))]),
}

test_errors_match_torch = cases.same_errors_as_torch(ERRORS)


# ----- named tuples -----------------------------------------------------------------------


NAMED_TUPLES = {
    "linalg.eigh": lambda L, a: L.linalg.eigh(a @ a.mT),
    "linalg.svd": lambda L, a: L.linalg.svd(a),
    "svd": lambda L, a: L.svd(a),
    "linalg.qr": lambda L, a: L.linalg.qr(a),
    "qr": lambda L, a: L.qr(a),
}

test_named_tuples_as_torch = cases.named_tuples_as_torch(NAMED_TUPLES)


# ----- factors: shapes, dtypes, backward errors, forward mode -----------------------------


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3)], ids=["tall", "wide", "batch"])
@pytest.mark.parametrize(
    "fn",
    [
        lambda L, a: L.linalg.svd(a),
        lambda L, a: L.linalg.svd(a, full_matrices=False),
        lambda L, a: L.svd(a, some=False),
        lambda L, a: L.svd(a, compute_uv=False),
        lambda L, a: L.linalg.qr(a, mode="complete"),
        lambda L, a: L.linalg.qr(a, mode="r"),
        lambda L, a: L.linalg.qr(a),
    ],
    ids=["svd_full", "svd_thin", "svd_some_false", "svd_no_uv", "qr_complete", "qr_r", "qr"],
)
def test_factor_shapes_as_torch(fn, shape):
    x = randn(shape).astype(np.float32)
    for o, t in zip(fn(cr, cr.tensor(x)), fn(torch, torch.tensor(x))):
        assert tuple(o.shape) == tuple(t.shape)
        assert str(o.dtype) == str(t.dtype)


def test_svd_without_uv_gives_zero_factors():
    x = randn((3, 2))
    u, s, v = cr.svd(cr.tensor(x), compute_uv=False)
    tu, ts, tv = torch.svd(torch.tensor(x), compute_uv=False)
    np.testing.assert_array_equal(u.numpy(force=True), tu.numpy(force=True))
    np.testing.assert_array_equal(v.numpy(force=True), tv.numpy(force=True))
    np.testing.assert_allclose(s.numpy(force=True), ts.numpy(force=True), rtol=1e-12)


def test_qr_backward_errors_match_torch():
    for mode, shape in (("r", (3, 3)), ("complete", (4, 3))):
        msgs = []
        for lib in (torch, cr):
            a = lib.tensor(randn(shape), requires_grad=True)
            with pytest.raises(RuntimeError) as e:
                lib.linalg.qr(a, mode=mode).R.sum().backward()
            msgs.append(str(e.value))
        assert msgs[0] == msgs[1]


def test_forward_mode_qr_r_raises():
    fwd = cr.autograd.forward_ad
    with fwd.dual_level():
        a = fwd.make_dual(cr.tensor(randn((3, 3))), cr.tensor(randn((3, 3), 1)))
        with pytest.raises(NotImplementedError, match="mode='r'"):
            cr.linalg.qr(a, mode="r")
