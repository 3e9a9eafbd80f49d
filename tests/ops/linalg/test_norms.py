"""Matrix norms against PyTorch: matrix_norm (fro, nuc, ±1, ±2, ±inf), linalg.norm,
linalg.vector_norm along matrix dims, cond, matrix_rank.

Forward values, output dtypes, node names and gradients in float32 and float64, batched
and broadcast shapes, float64 finite differences, forward-mode tangents, second
derivatives, and PyTorch's errors (type and message) for shapes that do not fit.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import cases
from oracle import (
    NoGrad,
    check,
    randn,
    well,
)

# ----- cases: name -> (function of (lib, *tensors), inputs, PyTorch's node name) ----------


CASES = {
    "cond": (lambda L, a: L.linalg.cond(a), [well((2, 3, 3))], None),
    "cond_fro": (lambda L, a: L.linalg.cond(a, "fro"), [well((3, 3))], None),
    "cond_1": (lambda L, a: L.linalg.cond(a, 1), [well((3, 3))], None),
    # norms
    "matrix_norm_fro": (
        lambda L, a: L.linalg.matrix_norm(a),
        [randn((2, 3, 4))],
        "LinalgVectorNormBackward0",
    ),
    "matrix_norm_nuc": (
        lambda L, a: L.linalg.matrix_norm(a, "nuc"),
        [randn((2, 3, 4))],
        "SumBackward1",
    ),
    "matrix_norm_2": (lambda L, a: L.linalg.matrix_norm(a, 2), [randn((3, 4))], "AmaxBackward0"),
    "matrix_norm_-2": (lambda L, a: L.linalg.matrix_norm(a, -2), [randn((3, 4))], "AminBackward0"),
    "matrix_norm_1": (lambda L, a: L.linalg.matrix_norm(a, 1), [randn((2, 3, 4))], "AmaxBackward0"),
    "matrix_norm_-1": (lambda L, a: L.linalg.matrix_norm(a, -1), [randn((3, 4))], "AminBackward0"),
    "matrix_norm_inf": (
        lambda L, a: L.linalg.matrix_norm(a, math.inf),
        [randn((3, 4))],
        "AmaxBackward0",
    ),
    "matrix_norm_-inf": (
        lambda L, a: L.linalg.matrix_norm(a, -math.inf),
        [randn((3, 4))],
        "AminBackward0",
    ),
    "matrix_norm_dim_keepdim": (
        lambda L, a: L.linalg.matrix_norm(a, 1, dim=(0, 2), keepdim=True),
        [randn((3, 2, 4))],
        None,
    ),
    "matrix_norm_nuc_keepdim": (
        lambda L, a: L.linalg.matrix_norm(a, "nuc", dim=(2, 0), keepdim=True),
        [randn((3, 2, 4))],
        None,
    ),
    "norm_default": (
        lambda L, a: L.linalg.norm(a),
        [randn((2, 3, 4))],
        "LinalgVectorNormBackward0",
    ),
    "norm_vector_ord": (lambda L, a: L.linalg.norm(a, 3), [randn(5)], "LinalgVectorNormBackward0"),
    "norm_matrix_ord": (lambda L, a: L.linalg.norm(a, 2), [randn((3, 4))], "AmaxBackward0"),
    "norm_fro": (
        lambda L, a: L.linalg.norm(a, "fro"),
        [randn((3, 4))],
        "LinalgVectorNormBackward0",
    ),
    "norm_nuc_dim": (
        lambda L, a: L.linalg.norm(a, "nuc", dim=(1, 2)),
        [randn((2, 3, 4))],
        "SumBackward1",
    ),
    "norm_dim_int": (
        lambda L, a: L.linalg.norm(a, 1, dim=1, keepdim=True),
        [randn((2, 3, 4))],
        "LinalgVectorNormBackward0",
    ),
    "norm_inf_matrix": (lambda L, a: L.linalg.norm(a, math.inf), [randn((3, 4))], "AmaxBackward0"),
    "vector_norm": (
        lambda L, a: L.linalg.vector_norm(a, 1, dim=(0, 2)),
        [randn((2, 3, 4))],
        "LinalgVectorNormBackward0",
    ),
}

# PyTorch's own backward of cond with p='fro' or 1 fails (an in-place write to a value it
# saved): these are compared forward only here, and checked by finite differences below
TORCH_BACKWARD_FAILS = {"cond_fro", "cond_1"}

test_matches_torch = cases.linalg_matches_torch(CASES, torch_backward_fails=TORCH_BACKWARD_FAILS)

test_node_name = cases.linalg_node_name(CASES)

test_finite_differences = cases.linalg_finite_differences(CASES)

test_tangent_matches_torch = cases.linalg_tangents_match_torch(CASES)

test_double_backward = cases.linalg_double_backward(CASES, skip=TORCH_BACKWARD_FAILS)


# ----- errors: PyTorch's type and message -------------------------------------------------


ERRORS = {
    "matrix_norm_1d": (lambda L, a: L.linalg.matrix_norm(a), [randn(3)]),
    "matrix_norm_ord": (lambda L, a: L.linalg.matrix_norm(a, 3), [randn((3, 3))]),
    "norm_3d_ord": (lambda L, a: L.linalg.norm(a, 2), [randn((2, 3, 3))]),
    "norm_fro_1d": (lambda L, a: L.linalg.norm(a, "fro"), [randn(3)]),
    "matrix_norm_three_dims": (
        lambda L, a: L.linalg.matrix_norm(a, dim=(0, 1, 2)),
        [randn((2, 3, 4))],
    ),
    "matrix_norm_nuc_one_dim": (
        lambda L, a: L.linalg.matrix_norm(a, "nuc", dim=(0,)),
        [randn((2, 3))],
    ),
    "matrix_norm_order_before_dims": (
        lambda L, a: L.linalg.matrix_norm(a, "abc", dim=(0,)),
        [randn((2, 3))],
    ),
    "linalg_norm_three_dims": (
        lambda L, a: L.linalg.norm(a, "fro", dim=(0, 1, 2)),
        [randn((2, 3, 4))],
    ),
    "linalg_norm_no_dims": (lambda L, a: L.linalg.norm(a, dim=()), [randn(3)]),
    "torch_norm_fro_three_dims": (
        lambda L, a: L.norm(a, p="fro", dim=[0, 1, 2]),
        [randn((2, 3, 4))],
    ),
    "torch_norm_nuc_of_3d": (lambda L, a: a.norm("nuc"), [randn((2, 3, 4))]),
    "torch_norm_unknown_order": (lambda L, a: L.norm(a, p="abc", dim=1), [randn((2, 3))]),
}

test_errors_match_torch = cases.same_errors_as_torch(ERRORS)


# ----- matrix_rank ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "x",
    [
        well((3, 3)),
        np.ones((3, 3)),
        np.stack([np.eye(3), np.ones((3, 3)), np.zeros((3, 3))]),
        randn((2, 5, 3)),
    ],
    ids=["full", "rank1", "batch", "tall"],
)
def test_matrix_rank_as_torch(x):
    check(lambda L, a: L.linalg.matrix_rank(a), NoGrad(x))
