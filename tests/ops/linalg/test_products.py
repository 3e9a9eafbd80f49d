"""Matrix products against PyTorch: matmul (``@``) in every case of dimensions and
broadcasting, mm, bmm, mv, dot, vdot, outer, inner, addmm and its family (addmv, addr,
baddbmm, addbmm), einsum, tensordot, multi_dot, chain_matmul, vecdot, matrix_power.

Forward values, output dtypes, node names and gradients in float32 and float64, batched
and broadcast shapes, float64 finite differences, forward-mode tangents, second
derivatives, and PyTorch's errors (type and message) for shapes that do not fit.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import cases
import chainrule as cr
from oracle import (
    DT_IDS,
    FLOATS,
    NoGrad,
    check,
    check_fd,
    pair_id,
    randn,
    same_node,
    well,
)
from props import (
    SETTINGS,
    seeds,
    values_for,
)

# ----- cases: name -> (function of (lib, *tensors), inputs, PyTorch's node name) ----------


CASES = {
    # matmul in every case
    "matmul_1d_1d": (lambda L, a, b: L.matmul(a, b), [randn(4), randn(4, 1)], "DotBackward0"),
    "matmul_2d_2d": (lambda L, a, b: a @ b, [randn((3, 4)), randn((4, 2), 1)], "MmBackward0"),
    "linalg_matmul": (
        lambda L, a, b: L.linalg.matmul(a, b),
        [randn((3, 4)), randn((4, 2), 1)],
        "MmBackward0",
    ),
    "matmul_2d_1d": (lambda L, a, b: a @ b, [randn((3, 4)), randn(4, 1)], "MvBackward0"),
    "matmul_1d_2d": (lambda L, a, b: a @ b, [randn(3), randn((3, 4), 1)], "SqueezeBackward4"),
    "matmul_3d_3d": (
        lambda L, a, b: a @ b,
        [randn((2, 3, 4)), randn((2, 4, 5), 1)],
        "UnsafeViewBackward0",
    ),
    "matmul_3d_2d": (
        lambda L, a, b: a @ b,
        [randn((2, 3, 4)), randn((4, 5), 1)],
        "UnsafeViewBackward0",
    ),
    "matmul_2d_3d": (lambda L, a, b: a @ b, [randn((3, 4)), randn((2, 4, 5), 1)], "CloneBackward0"),
    "matmul_3d_1d": (lambda L, a, b: a @ b, [randn((2, 3, 4)), randn(4, 1)], "UnsafeViewBackward0"),
    "matmul_1d_3d": (lambda L, a, b: a @ b, [randn(4), randn((2, 4, 3), 1)], "UnsafeViewBackward0"),
    "matmul_broadcast": (
        lambda L, a, b: L.matmul(a, b),
        [randn((2, 1, 3, 4)), randn((5, 4, 2), 1)],
        "UnsafeViewBackward0",
    ),
    "matmul_broadcast_1": (
        lambda L, a, b: a.matmul(b),
        [randn((1, 3, 4)), randn((2, 4, 5), 1)],
        None,
    ),
    "matmul_empty_rows": (lambda L, a, b: a @ b, [randn((0, 3)), randn((3, 2), 1)], "MmBackward0"),
    "matmul_empty_inner": (lambda L, a, b: a @ b, [randn((2, 0)), randn((0, 3), 1)], "MmBackward0"),
    "matmul_empty_batch": (
        lambda L, a, b: a @ b,
        [randn((0, 2, 3)), randn((3, 2), 1)],
        "UnsafeViewBackward0",
    ),
    "mm": (lambda L, a, b: L.mm(a, b), [randn((3, 4)), randn((4, 2), 1)], "MmBackward0"),
    "mm_method": (lambda L, a, b: a.mm(b), [randn((3, 4)), randn((4, 2), 1)], "MmBackward0"),
    "bmm": (lambda L, a, b: L.bmm(a, b), [randn((2, 3, 4)), randn((2, 4, 5), 1)], "BmmBackward0"),
    "bmm_method": (
        lambda L, a, b: a.bmm(b),
        [randn((2, 3, 4)), randn((2, 4, 5), 1)],
        "BmmBackward0",
    ),
    "mv": (lambda L, a, b: L.mv(a, b), [randn((3, 4)), randn(4, 1)], "MvBackward0"),
    "mv_method": (lambda L, a, b: a.mv(b), [randn((3, 4)), randn(4, 1)], "MvBackward0"),
    "dot": (lambda L, a, b: L.dot(a, b), [randn(4), randn(4, 1)], "DotBackward0"),
    "dot_method": (lambda L, a, b: a.dot(b), [randn(4), randn(4, 1)], "DotBackward0"),
    "vdot": (lambda L, a, b: L.vdot(a, b), [randn(4), randn(4, 1)], "VdotBackward0"),
    "outer": (lambda L, a, b: L.outer(a, b), [randn(3), randn(4, 1)], "MulBackward0"),
    "ger": (lambda L, a, b: a.ger(b), [randn(3), randn(4, 1)], "MulBackward0"),
    "inner_1d": (lambda L, a, b: L.inner(a, b), [randn(4), randn(4, 1)], "ViewBackward0"),
    "inner_nd": (
        lambda L, a, b: L.inner(a, b),
        [randn((2, 3)), randn((2, 4, 3), 1)],
        "ViewBackward0",
    ),
    "inner_0d": (lambda L, a, b: a.inner(b), [randn(()), randn((2, 3), 1)], None),
    "tensordot_int": (
        lambda L, a, b: L.tensordot(a, b, dims=2),
        [randn((2, 3, 4)), randn((3, 4, 5), 1)],
        "ViewBackward0",
    ),
    "tensordot_lists": (
        lambda L, a, b: L.tensordot(a, b, dims=([0, 2], [1, 0])),
        [randn((2, 3, 4)), randn((4, 2, 5), 1)],
        "ViewBackward0",
    ),
    "tensordot_0": (lambda L, a, b: L.tensordot(a, b, dims=0), [randn(2), randn(3, 1)], None),
    "einsum_mm": (
        lambda L, a, b: L.einsum("ij,jk->ik", a, b),
        [randn((3, 4)), randn((4, 2), 1)],
        None,
    ),
    "einsum_batch": (
        lambda L, a, b: L.einsum("bij,bjk->bik", a, b),
        [randn((2, 3, 4)), randn((2, 4, 5), 1)],
        None,
    ),
    "einsum_trace": (lambda L, a: L.einsum("ii", a), [randn((3, 3))], None),
    "einsum_diag": (lambda L, a: L.einsum("ii->i", a), [randn((3, 3))], None),
    "einsum_transpose": (lambda L, a: L.einsum("ij->ji", a), [randn((3, 4))], None),
    "einsum_sum": (lambda L, a: L.einsum("ijk->j", a), [randn((2, 3, 4))], None),
    "einsum_outer": (lambda L, a, b: L.einsum("i,j", a, b), [randn(3), randn(4, 1)], None),
    "einsum_implicit": (
        lambda L, a, b: L.einsum("ba,ac", a, b),
        [randn((3, 4)), randn((4, 2), 1)],
        None,
    ),
    "einsum_ellipsis": (
        lambda L, a, b: L.einsum("...ij,...jk->...ik", a, b),
        [randn((2, 3, 4)), randn((4, 2), 1)],
        None,
    ),
    "einsum_three": (
        lambda L, a, b, c: L.einsum("ij,jk,kl->il", a, b, c),
        [randn((2, 3)), randn((3, 4), 1), randn((4, 5), 2)],
        None,
    ),
    "einsum_list": (lambda L, a, b: L.einsum("i,i->", [a, b]), [randn(3), randn(3, 1)], None),
    "einsum_broadcast": (
        lambda L, a, b: L.einsum("bij,bjk->bik", a, b),
        [randn((1, 2, 3)), randn((4, 3, 2), 1)],
        None,
    ),
    "einsum_size1_summed": (
        lambda L, a, b: L.einsum("ij,jk->ik", a, b),
        [randn((3, 1)), randn((4, 5), 1)],
        None,
    ),
    "einsum_diag_product": (
        lambda L, a, b: L.einsum("ii,ij->j", a, b),
        [randn((3, 3)), randn((3, 2), 1)],
        None,
    ),
    "einsum_hadamard": (lambda L, a, b: L.einsum("i,i->i", a, b), [randn(3), randn(3, 1)], None),
    "einsum_frobenius": (
        lambda L, a, b: L.einsum("ij,ij->", a, b),
        [randn((2, 3)), randn((2, 3), 1)],
        None,
    ),
    "einsum_batch_diag": (lambda L, a: L.einsum("...ii->...i", a), [randn((2, 3, 3))], None),
    "einsum_ellipsis_middle": (
        lambda L, a, b: L.einsum("a...b,b->...a", a, b),
        [randn((2, 3, 4, 5)), randn(5, 1)],
        None,
    ),
    "einsum_shared_by_three": (
        lambda L, a, b, c: L.einsum("i,i,i->", a, b, c),
        [randn(3), randn(3, 1), randn(3, 2)],
        None,
    ),
    "einsum_kept_batch": (
        lambda L, a, b, c: L.einsum("bi,bj,bk->bijk", a, b, c),
        [randn((2, 3)), randn((2, 2), 1), randn((2, 4), 2)],
        None,
    ),
    "einsum_attention": (
        lambda L, q, k: L.einsum("bhqd,bhkd->bhqk", q, k).softmax(-1),
        [randn((2, 2, 3, 4)), randn((2, 2, 5, 4), 1)],
        None,
    ),
    "einsum_attention_values": (
        lambda L, w, v: L.einsum("bhqk,bhkd->bqhd", w, v),
        [randn((2, 2, 3, 5)), randn((2, 2, 5, 4), 1)],
        None,
    ),
    "einsum_bilinear": (
        lambda L, a, b, c: L.einsum("bn,anm,bm->ba", a, b, c),
        [randn((2, 3)), randn((4, 3, 5), 1), randn((2, 5), 2)],
        None,
    ),
    "matrix_power_0": (lambda L, a: L.matrix_power(a, 0) + a, [randn((2, 3, 3))], None),
    "chain_matmul": (
        lambda L, a, b: L.chain_matmul(a, b, a.mT),
        [randn((2, 3)), randn((3, 3), 1)],
        None,
    ),
    "outer_promotes": (lambda L, a, b: L.outer(a, b.float()), [randn(3), randn(4, 1)], None),
    "matrix_power": (lambda L, a: L.matrix_power(a, 3), [randn((3, 3)) * 0.5], "MmBackward0"),
    "matrix_power_neg": (lambda L, a: L.linalg.matrix_power(a, -2), [well((2, 3, 3))], None),
    "multi_dot": (
        lambda L, a, b, c: L.linalg.multi_dot([a, b, c]),
        [randn(3), randn((3, 4), 1), randn((4, 2), 2)],
        None,
    ),
    "vecdot": (lambda L, a, b: L.linalg.vecdot(a, b), [randn((2, 3)), randn(3, 1)], None),
    "addmm": (
        lambda L, x, a, b: L.addmm(x, a, b),
        [randn(2), randn((3, 4), 1), randn((4, 2), 2)],
        "AddmmBackward0",
    ),
    "addmm_scaled": (
        lambda L, x, a, b: x.addmm(a, b, beta=0.5, alpha=-2),
        [randn((3, 1)), randn((3, 4), 1), randn((4, 2), 2)],
        "AddmmBackward0",
    ),
    "addmm_beta0": (
        lambda L, x, a, b: L.addmm(x, a, b, beta=0),
        [randn((3, 2)), randn((3, 4), 1), randn((4, 2), 2)],
        "AddmmBackward0",
    ),
    "addmv": (
        lambda L, x, a, v: L.addmv(x, a, v, alpha=2),
        [randn(3), randn((3, 4), 1), randn(4, 2)],
        "AddmvBackward0",
    ),
    "addr": (
        lambda L, x, u, v: x.addr(u, v, beta=2),
        [randn((3, 4)), randn(3, 1), randn(4, 2)],
        "AddrBackward0",
    ),
    "baddbmm": (
        lambda L, x, a, b: L.baddbmm(x, a, b, beta=0.5),
        [randn((3, 2)), randn((2, 3, 4), 1), randn((2, 4, 2), 2)],
        "BaddbmmBackward0",
    ),
    "addbmm": (
        lambda L, x, a, b: x.addbmm(a, b, alpha=3),
        [randn((3, 2)), randn((2, 3, 4), 1), randn((2, 4, 2), 2)],
        "AddbmmBackward0",
    ),
}

# float32 differences between LAPACK builds grow with the condition of the problem
LOOSE = {
    "matrix_power_neg",
}

test_matches_torch = cases.linalg_matches_torch(CASES, loose=LOOSE)

test_node_name = cases.linalg_node_name(CASES)

# outer_promotes: a float32 input spoils the differences
FD_SKIP = {"outer_promotes"}

test_finite_differences = cases.linalg_finite_differences(CASES, skip=FD_SKIP)

test_tangent_matches_torch = cases.linalg_tangents_match_torch(CASES)

test_double_backward = cases.linalg_double_backward(CASES)


# ----- errors: PyTorch's type and message -------------------------------------------------


ERRORS = {
    "matmul_0d": (lambda L, a, b: L.matmul(a, b), [randn(()), randn(3)]),
    "matmul_1d_1d": (lambda L, a, b: a @ b, [randn(3), randn(4)]),
    "matmul_2d_1d": (lambda L, a, b: a @ b, [randn((2, 3)), randn(4)]),
    "matmul_1d_2d": (lambda L, a, b: a @ b, [randn(3), randn((4, 5))]),
    "matmul_2d_2d": (lambda L, a, b: a @ b, [randn((2, 3)), randn((4, 5))]),
    "matmul_3d_2d": (lambda L, a, b: a @ b, [randn((2, 2, 3)), randn((4, 5))]),
    "matmul_2d_3d": (lambda L, a, b: a @ b, [randn((2, 3)), randn((2, 4, 5))]),  # no grad
    "matmul_3d_3d": (lambda L, a, b: a @ b, [randn((2, 2, 3)), randn((2, 4, 5))]),
    "matmul_3d_4d": (lambda L, a, b: a @ b, [randn((2, 2, 3)), randn((3, 2, 4, 5))]),
    "matmul_3d_1d": (lambda L, a, b: a @ b, [randn((2, 3, 4)), randn(5)]),
    "matmul_batch": (lambda L, a, b: a @ b, [randn((2, 3, 4)), randn((3, 4, 5))]),
    "matmul_dtypes": (lambda L, a, b: a @ b.float(), [randn((2, 3)), randn((3, 2))]),
    "dot_dtypes": (lambda L, a, b: L.dot(a, b.float()), [randn(3), randn(3)]),
    "mm_1d": (lambda L, a, b: L.mm(a, b), [randn(4), randn((4, 3))]),
    "mm_1d_right": (lambda L, a, b: L.mm(a, b), [randn((3, 4)), randn(4)]),
    "bmm_2d": (lambda L, a, b: L.bmm(a, b), [randn((3, 4)), randn((3, 4, 4))]),
    "bmm_2d_right": (lambda L, a, b: L.bmm(a, b), [randn((2, 3, 4)), randn((4, 4))]),
    "bmm_k": (lambda L, a, b: L.bmm(a, b), [randn((2, 3, 4)), randn((2, 5, 4))]),
    "bmm_batch": (lambda L, a, b: L.bmm(a, b), [randn((2, 3, 4)), randn((3, 4, 4))]),
    "mv_size": (lambda L, a, b: L.mv(a, b), [randn((3, 4)), randn(5)]),
    "mv_2d": (lambda L, a, b: L.mv(a, b), [randn((3, 4)), randn((4, 1))]),
    "dot_size": (lambda L, a, b: L.dot(a, b), [randn(4), randn(5)]),
    "dot_2d": (lambda L, a, b: L.dot(a, b), [randn((4, 1)), randn(4)]),
    "outer_2d": (lambda L, a, b: L.outer(a, b), [randn((3, 1)), randn(4)]),
    "inner": (lambda L, a, b: L.inner(a, b), [randn(3), randn(4)]),
    "tensordot": (lambda L, a, b: L.tensordot(a, b), [randn((3, 4)), randn((5, 4))]),
    "einsum_size": (lambda L, a, b: L.einsum("ij,jk", a, b), [randn((3, 4)), randn((5, 4))]),
    "einsum_operands": (lambda L, a: L.einsum("ij,jk", a), [randn((3, 4))]),
    "einsum_dims": (lambda L, a, b: L.einsum("ijk,jk", a, b), [randn((3, 4)), randn((4, 2))]),
    "matrix_power_shape": (lambda L, a: L.linalg.matrix_power(a, 2), [randn((3, 4))]),
}

test_errors_match_torch = cases.same_errors_as_torch(ERRORS)


# ----- integer inputs ---------------------------------------------------------------------


INTEGER_INPUTS = {
    "matmul": (lambda L, a, b: a @ b, np.arange(6).reshape(2, 3), np.arange(3)),
    "mm": (lambda L, a, b: L.mm(a, b), np.arange(6).reshape(2, 3), np.arange(6).reshape(3, 2)),
    "outer": (lambda L, a, b: L.outer(a, b), np.arange(3), np.arange(2, dtype=np.int32)),
}

test_integer_inputs_as_torch = cases.matches_torch(INTEGER_INPUTS, sort=False)


# ----- the first matmul cases -------------------------------------------------------------


MATMUL_PAIRS = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3, 4)),
    ((5, 2, 3), (3, 4)),
    ((2, 3), (5, 3, 4)),
    ((5, 2, 3), (5, 3, 4)),
    ((3,), (5, 3, 4)),
    ((5, 2, 3), (3,)),
    ((2, 1, 2, 3), (5, 3, 4)),
    ((1, 2, 3), (5, 3, 4)),
    ((5, 1, 2, 3), (1, 4, 3, 2)),
    ((0, 3), (3, 4)),
    ((2, 0), (0, 4)),
    ((0,), (0,)),
    ((2, 3), (3, 0)),
    ((0, 2, 3), (3, 4)),
]

MATMULS = {
    "@": lambda lib, a, b: a @ b,
    "matmul": lambda lib, a, b: lib.matmul(a, b),
    "method": lambda lib, a, b: a.matmul(b),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("shapes", MATMUL_PAIRS, ids=pair_id)
@pytest.mark.parametrize("form", list(MATMULS))
def test_matmul(form, shapes, dtype):
    check(MATMULS[form], randn(shapes[0], seed=13), randn(shapes[1], seed=14), dtype=dtype)


@pytest.mark.parametrize("shapes", [p for p in MATMUL_PAIRS if 0 not in p[0] + p[1]], ids=pair_id)
def test_matmul_fd(shapes):
    check_fd(MATMULS["@"], randn(shapes[0], seed=13), randn(shapes[1], seed=14))


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize(
    "shapes", [((2, 3), (3, 4)), ((1, 1), (1, 5)), ((0, 3), (3, 2))], ids=pair_id
)
def test_mm(shapes, dtype):
    a, b = randn(shapes[0], seed=15), randn(shapes[1], seed=16)
    check(lambda lib, a, b: lib.mm(a, b), a, b, dtype=dtype)
    check(lambda lib, a, b: a.mm(b), a, b, dtype=dtype)
    check(lambda lib, a, b: lib.mm(a, b), a, NoGrad(b), dtype=dtype)
    if 0 not in shapes[0]:
        check_fd(lambda lib, a, b: lib.mm(a, b), a, b)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_matmul_same_operand(dtype):
    """x @ x.T and x.T @ x: both uses of x contribute."""
    x = randn((3, 4), seed=17)
    check(lambda lib, x: x @ x.T, x, dtype=dtype)
    check(lambda lib, x: x.t() @ x, x, dtype=dtype)
    check_fd(lambda lib, x: x @ x.T, x)


# ----- errors of the first ops ------------------------------------------------------------


F32 = np.array([0.5, -1.5, 2.0], dtype=np.float32)

F64 = np.array([0.25, 1.0, -2.0])

RAISES = {
    "matmul_0d": (lambda lib, a, b: a @ b, np.array(2.0), F64),
    "matmul_mismatch": (lambda lib, a, b: a @ b, randn((2, 3)), randn((4, 2))),
    "matmul_f32_f64": (lambda lib, a, b: a @ b, F32, F64),
    "matmul_f64_f32_2d": (lambda lib, a, b: a @ b, randn((2, 3)), F32),
    "mm_1d": (lambda lib, a, b: lib.mm(a, b), randn((3,)), randn((3, 2))),
}

test_raises_like_torch = cases.raises_like_torch(RAISES)


# ----- addmm, the @ operator, random shapes -----------------------------------------------


def test_addmm_with_beta_0_ignores_nan_in_the_input():
    x = np.full((3, 2), np.nan)
    result = check(lambda L, x, a, b: L.addmm(x, a, b, beta=0), x, randn((3, 4)), randn((4, 2)))
    assert not np.isnan(result.cr_out.detach().numpy(force=True)).any()


def test_addmm_in_place_as_torch():
    def fn(L, x, a, b):
        y = x * 1
        y.addmm_(a, b, alpha=0.5)
        return y

    result = check(fn, randn((3, 2)), randn((3, 4)), randn((4, 2)))
    same_node(result)


@pytest.mark.parametrize("other", [2, 2.0, [[1.0], [2.0], [3.0]]], ids=["int", "float", "list"])
def test_matmul_operator_takes_tensors_only(other):
    for lib in (torch, cr):
        with pytest.raises(TypeError, match="unsupported operand"):
            lib.ones(2, 3) @ other
        with pytest.raises(TypeError, match="unsupported operand"):
            other @ lib.ones(3, 2)


def _random_matmul_shapes(seed: int):
    """Two operand shapes that matmul accepts: 1-D to 4-D, broadcastable batch dims."""
    r = np.random.default_rng(seed)
    n, k, m = (int(v) for v in r.integers(1, 4, 3))
    batch = tuple(int(v) for v in r.integers(1, 4, int(r.integers(0, 3))))

    def side(core):
        nd = int(r.integers(0, len(batch) + 1))
        b = tuple(1 if r.random() < 0.3 else s for s in batch[len(batch) - nd :])
        return b + core

    a = (k,) if r.random() < 0.2 else side((n, k))
    b = (k,) if r.random() < 0.2 else side((k, m))
    return a, b


@pytest.mark.parametrize("seed", range(24))
def test_matmul_random_shapes(seed):
    a, b = _random_matmul_shapes(seed)
    check(lambda L, x, y: x @ y, randn(a, seed), randn(b, seed + 100))
    check_fd(lambda L, x, y: x @ y, randn(a, seed), randn(b, seed + 100))


@st.composite
def matmul_shapes(draw):
    """Operand shapes for matmul: 1-D or matrices with broadcast-compatible batch dims."""
    n, k, m = (draw(st.integers(0, 3)) for _ in range(3))
    batch = draw(
        hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, max_side=3)
    )
    ba, bb = batch.input_shapes
    a = (k,) if draw(st.booleans()) and not ba else ba + (n, k)
    b = (k,) if draw(st.booleans()) and not bb else bb + (k, m)
    return a, b


@SETTINGS
@given(shapes=matmul_shapes(), seed=seeds)
def test_matmul_matches_torch(shapes, seed):
    sa, sb = shapes
    check(
        lambda lib, a, b: a @ b,
        values_for(sa, seed, "any"),
        values_for(sb, seed + 1, "any"),
        dtype=np.float64,
    )
