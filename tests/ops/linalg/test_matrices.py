"""Matrix-shaped ops against PyTorch: trace, diag, diag_embed, diagflat, diagonal
(``linalg.diagonal``), tril, triu (and in place), cross (``linalg.cross``), vander;
writes through a diagonal view.

Forward values, output dtypes, node names and gradients in float32 and float64, batched
and broadcast shapes, float64 finite differences, forward-mode tangents, second
derivatives, and PyTorch's errors (type and message) for shapes that do not fit.
"""

from __future__ import annotations

import numpy as np

import cases
import chainrule as cr
from oracle import (
    check,
    randn,
    same_node,
)

# ----- cases: name -> (function of (lib, *tensors), inputs, PyTorch's node name) ----------


CASES = {
    "trace": (lambda L, a: L.trace(a), [randn((3, 4))], "TraceBackward0"),
    "trace_method": (lambda L, a: a.trace(), [randn((3, 3))], "TraceBackward0"),
    "diag_vector": (lambda L, a: L.diag(a), [randn(3)], "DiagEmbedBackward0"),
    "diag_vector_offset": (lambda L, a: a.diag(2), [randn(3)], "DiagEmbedBackward0"),
    "diag_vector_below": (lambda L, a: L.diag(a, -1), [randn(3)], "DiagEmbedBackward0"),
    "diag_matrix": (lambda L, a: L.diag(a), [randn((3, 4))], "DiagonalBackward0_copy"),
    "diag_matrix_offset": (lambda L, a: a.diag(1), [randn((3, 4))], "DiagonalBackward0_copy"),
    "diag_matrix_below": (lambda L, a: L.diag(a, -2), [randn((3, 4))], "DiagonalBackward0_copy"),
    "diag_embed": (lambda L, a: L.diag_embed(a), [randn((2, 3))], "DiagEmbedBackward0"),
    "diag_embed_dims": (
        lambda L, a: L.diag_embed(a, 1, 0, 2),
        [randn((2, 3))],
        "DiagEmbedBackward0",
    ),
    "diag_embed_reversed": (
        lambda L, a: a.diag_embed(-1, 2, 0),
        [randn((2, 3))],
        "DiagEmbedBackward0",
    ),
    "diagonal_reversed": (
        lambda L, a: L.diagonal(a, 1, 2, 0),
        [randn((3, 2, 4))],
        "DiagonalBackward0",
    ),
    "diagflat": (lambda L, a: L.diagflat(a), [randn((2, 2))], "DiagEmbedBackward0"),
    "diagonal": (lambda L, a: L.diagonal(a), [randn((3, 4))], "DiagonalBackward0"),
    "diagonal_dims": (lambda L, a: a.diagonal(1, 0, 2), [randn((3, 2, 4))], "DiagonalBackward0"),
    "diagonal_negative": (
        lambda L, a: L.diagonal(a, -1, dim1=-1, dim2=-2),
        [randn((2, 3, 4))],
        "DiagonalBackward0",
    ),
    "tril": (lambda L, a: L.tril(a), [randn((3, 4))], "TrilBackward0"),
    "tril_offset": (lambda L, a: a.tril(-1), [randn((2, 3, 4))], "TrilBackward0"),
    "triu": (lambda L, a: L.triu(a, 1), [randn((3, 4))], "TriuBackward0"),
    "triu_method": (lambda L, a: a.triu(), [randn((2, 4, 3))], "TriuBackward0"),
    "cross": (
        lambda L, a, b: L.cross(a, b, dim=1),
        [randn((4, 3)), randn((4, 3), 1)],
        "LinalgCrossBackward0",
    ),
    "cross_method": (
        lambda L, a, b: a.cross(b, dim=0),
        [randn((3, 2)), randn((3, 2), 1)],
        "LinalgCrossBackward0",
    ),
    "linalg_cross": (
        lambda L, a, b: L.linalg.cross(a, b),
        [randn((4, 3)), randn((1, 3), 1)],
        "LinalgCrossBackward0",
    ),
    "linalg_cross_dim": (
        lambda L, a, b: L.linalg.cross(a, b, dim=0),
        [randn((3, 2)), randn((3, 1), 1)],
        "LinalgCrossBackward0",
    ),
    "linalg_diagonal": (
        lambda L, a: L.linalg.diagonal(a, offset=1),
        [randn((2, 3, 4))],
        "DiagonalBackward0",
    ),
    "vander": (lambda L, x: L.linalg.vander(x), [np.array([0.0, 1.0, -2.0, 0.5])], None),
    "vander_n": (lambda L, x: L.linalg.vander(x, N=3), [randn((2, 4))], None),
}

test_matches_torch = cases.linalg_matches_torch(CASES)

test_node_name = cases.linalg_node_name(CASES)

test_finite_differences = cases.linalg_finite_differences(CASES)

test_tangent_matches_torch = cases.linalg_tangents_match_torch(CASES)

test_double_backward = cases.linalg_double_backward(CASES)


# ----- errors: PyTorch's type and message -------------------------------------------------


ERRORS = {
    "trace_1d": (lambda L, a: L.trace(a), [randn(3)]),
    "trace_3d": (lambda L, a: L.trace(a), [randn((2, 3, 3))]),
    "diag_3d": (lambda L, a: L.diag(a), [randn((2, 3, 3))]),
    "diagonal_same": (lambda L, a: L.diagonal(a, 0, 1, 1), [randn((3, 4))]),
    "diagonal_range": (lambda L, a: L.diagonal(a, 0, 1, 2), [randn((3, 4))]),
    "tril_1d": (lambda L, a: L.tril(a), [randn(3)]),
    "triu_1d": (lambda L, a: L.triu(a), [randn(3)]),
    "cross_size": (lambda L, a, b: L.cross(a, b, dim=0), [randn((4, 3)), randn((4, 3))]),
    "linalg_cross_size": (lambda L, a, b: L.linalg.cross(a, b), [randn((4, 2)), randn((4, 2))]),
    "cross_ndim": (lambda L, a, b: L.linalg.cross(a, b), [randn((4, 3)), randn(3)]),
    "cross_dtypes": (lambda L, a, b: L.linalg.cross(a, b.float()), [randn((4, 3)), randn((4, 3))]),
}

test_errors_match_torch = cases.same_errors_as_torch(ERRORS)


# ----- integer inputs ---------------------------------------------------------------------


INTEGER_INPUTS = {
    "trace": (lambda L, a: L.trace(a), np.arange(9, dtype=np.int32).reshape(3, 3)),
    "tril": (lambda L, a: L.tril(a, 1), np.arange(12, dtype=np.int32).reshape(3, 4)),
    "triu_bool": (lambda L, a: L.triu(a), np.ones((3, 3), dtype=bool)),
    "diag": (lambda L, a: L.diag(a), np.arange(3)),
    "diagonal": (lambda L, a: L.diagonal(a), np.arange(6).reshape(2, 3)),
    "cross": (
        lambda L, a, b: L.linalg.cross(a, b),
        np.arange(6).reshape(2, 3),
        np.ones((1, 3), int),
    ),
}

test_integer_inputs_as_torch = cases.matches_torch(INTEGER_INPUTS, sort=False)


# ----- views and in-place -----------------------------------------------------------------


def test_tril_triu_in_place_as_torch():
    def fn(L, a):
        y = a * 1
        y.tril_(-1)
        z = a * 2
        z.triu_(1)
        return y + z

    result = check(fn, randn((3, 4)))
    same_node(result)


def test_writes_through_diagonal_as_torch():
    def fn(L, a):
        y = a * 1
        y.diagonal().mul_(3)
        y.diagonal(1).zero_()
        return y

    check(fn, randn((3, 4)))


def test_diagonal_shares_memory():
    x = cr.zeros(3, 3)
    d = x.diagonal()
    d.add_(1)
    np.testing.assert_array_equal(x.numpy(force=True), np.eye(3))
