"""Gathering and scattering against PyTorch: gather, scatter (with src, value, reduce),
scatter_add, index_select, index_add, index_fill, index_copy: values, dtypes, node
names, gradients (a src larger than the index included), finite differences, tangents
(also where the input is infinite), second derivatives, in-place variants, errors.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import cases
import chainrule as cr
from cases import GATHER_INDEX, SCATTER_INDEX
from oracle import (
    L64,
    NoGrad,
    R,
    check,
    check_fd,
    to_numpy,
)

# PyTorch's C++ deprecation of scatter's reduce= (once per process, attributed to
# whichever test calls it first): torch's, not chainrule's, which reads reduce= as PyTorch does
pytestmark = pytest.mark.filterwarnings("ignore:The reduce argument of torch.scatter:UserWarning")

# ----- gathering and scattering -----------------------------------------------------------


CASES = {
    # gathering and scattering
    "gather": (lambda L, x, i: L.gather(x, 1, i), R(3, 4), GATHER_INDEX),
    "gather_dim0": (lambda L, x, i: x.gather(0, i), R(4, 3), GATHER_INDEX.T.copy()),
    "gather_neg_dim_smaller_index": (
        lambda L, x, i: x.gather(-1, i[:2, :1]),
        R(3, 4),
        GATHER_INDEX,
    ),
    "gather_repeated": (lambda L, x, i: x.gather(1, i), R(2, 3), L64([0, 0, 0], [2, 2, 1])),
    "scatter": (lambda L, x, s, i: L.scatter(x, 1, i, s), R(3, 4), R(3, 2), SCATTER_INDEX),
    # (PyTorch's own backward fails for a src larger than index; its gradient is checked by
    # finite differences below)
    "scatter_src_bigger": (
        lambda L, x, s, i: x.scatter(1, i, s),
        R(3, 4),
        NoGrad(R(3, 3)),
        SCATTER_INDEX,
    ),
    "scatter_value": (lambda L, x, i: L.scatter(x, 1, i, 2.5), R(3, 4), GATHER_INDEX),
    "scatter_value_kw": (lambda L, x, i: x.scatter(0, i[:2], value=-1.0), R(4, 3), GATHER_INDEX),
    "scatter_src_kw": (lambda L, x, s, i: x.scatter(1, i, src=s), R(3, 4), R(3, 2), SCATTER_INDEX),
    "scatter_add": (lambda L, x, s, i: L.scatter_add(x, 1, i, s), R(3, 4), R(3, 2), GATHER_INDEX),
    "scatter_add_repeated": (
        lambda L, x, s, i: x.scatter_add(-1, i, s),
        R(2, 3),
        R(2, 3),
        L64([0, 0, 0], [2, 2, 1]),
    ),
    "index_select": (lambda L, x, i: L.index_select(x, 1, i), R(3, 4), L64(3, 0, 3)),
    "index_select_dim0": (lambda L, x, i: x.index_select(-2, i), R(3, 4), L64(2, 2)),
    "index_select_0d_index": (lambda L, x, i: x.index_select(0, i), R(3, 4), np.int64(1)),
    "index_add": (lambda L, x, s, i: L.index_add(x, 1, i, s), R(3, 4), R(3, 3), L64(3, 0, 3)),
    "index_add_alpha": (
        lambda L, x, s, i: x.index_add(0, i, s, alpha=-2.0),
        R(3, 4),
        R(2, 4),
        L64(1, 1),
    ),
    "index_fill": (lambda L, x, i: L.index_fill(x, 1, i, -1.5), R(3, 4), L64(0, 2, 2)),
    "index_fill_tensor": (lambda L, x, v, i: x.index_fill(0, i, v), R(3, 4), R(), L64(2, 0, 2)),
    "index_copy": (lambda L, x, s, i: L.index_copy(x, 1, i, s), R(3, 4), R(3, 2), L64(3, 0)),
    "gather_empty_index": (lambda L, x, i: x.gather(1, i), R(3, 4), np.zeros((3, 0), np.int64)),
    "index_select_empty": (lambda L, x, i: x.index_select(0, i), R(3, 4), np.zeros(0, np.int64)),
}

test_matches_torch = cases.index_matches_torch(CASES)

FD = [
    "index_fill_tensor",
    "index_copy",
    "gather_repeated",
    "scatter",
    "scatter_src_bigger",
    "scatter_value",
    "scatter_add_repeated",
    "index_select",
    "index_add_alpha",
]

test_finite_differences = cases.index_finite_differences(CASES, FD)

DOUBLE = [
    "index_fill_tensor",
    "gather_repeated",
    "scatter",
    "index_add",
]

test_second_derivatives = cases.index_second_derivatives(CASES, DOUBLE)

TANGENTS = [
    "index_fill_tensor",
    "index_copy",
    "gather",
    "scatter",
    "scatter_value",
    "scatter_add",
    "index_select",
    "index_add_alpha",
]

test_tangents_match_torch = cases.index_tangents_match_torch(CASES, TANGENTS)


# ----- 0-d inputs -------------------------------------------------------------------------


SCALAR_INPUT = {
    "index_select": lambda L, x: x.index_select(0, L.tensor(0)),
    "index_select_1": lambda L, x: x.index_select(0, L.tensor([0])),
    "gather": lambda L, x: x.gather(0, L.tensor([0, 0])),
    "scatter": lambda L, x: x.scatter(0, L.tensor(0), 5.0),
    "scatter_add": lambda L, x: x.scatter_add(0, L.tensor([0, 0]), x.expand(2) * 2),
    "index_add": lambda L, x: x.index_add(0, L.tensor([0]), x * 3),
    "index_fill": lambda L, x: x.index_fill(0, L.tensor([0]), 1.0),
}

test_scalar_inputs_match_torch = cases.scalar_inputs_match_torch(SCALAR_INPUT)

SCALAR_INPUT_ERRORS = {
    "index_select": lambda L, x: x.index_select(0, L.tensor([0, 0])),
    "index_add": lambda L, x: x.index_add(0, L.tensor([0]), L.ones(1)),
}

test_scalar_input_errors_match_torch = cases.scalar_input_errors_match_torch(SCALAR_INPUT_ERRORS)


# ----- in-place variants ------------------------------------------------------------------


INPLACE = {
    "scatter_": lambda L, x, s: (x * 1).scatter_(1, L.tensor(SCATTER_INDEX), s),
    "scatter_value_": lambda L, x, s: (x * 1).scatter_(1, L.tensor(GATHER_INDEX), 0.5) * s.sum(),
    "scatter_add_": lambda L, x, s: (x * 1).scatter_add_(1, L.tensor(GATHER_INDEX), s),
    "index_add_": lambda L, x, s: (x * 1).index_add_(1, L.tensor([1, 1]), s, alpha=3),
    "index_fill_": lambda L, x, s: (x * 1).index_fill_(1, L.tensor([3]), s[1, 1]),
    "index_copy_": lambda L, x, s: (x * 1).index_copy_(1, L.tensor([3, 1]), s),
}

test_inplace_variants_match_torch = cases.inplace_variants_match_torch(INPLACE)


# ----- errors -----------------------------------------------------------------------------


ERRORS = {
    "gather_out_of_bounds": lambda L, x: x.gather(1, L.tensor([[5]])),
    "gather_negative_index": lambda L, x: x.gather(1, L.tensor([[-1]])),
    "gather_float_index": lambda L, x: x.gather(1, L.tensor([[1.0]])),
    "gather_index_ndim": lambda L, x: x.gather(1, L.tensor([1])),
    "gather_index_too_big": lambda L, x: x.gather(1, L.zeros(4, 1, dtype=L.long)),
    "gather_dim": lambda L, x: x.gather(2, L.tensor([[1]])),
    "scatter_dtype": lambda L, x: x.scatter(1, L.tensor([[0]]), L.ones(1, 1, dtype=L.float32)),
    "scatter_out_of_bounds": lambda L, x: x.scatter(1, L.tensor([[4]]), 1.0),
    "scatter_bad_reduce": lambda L, x: x.scatter(1, L.tensor([[0]]), 1.0, reduce="mean"),
    "index_select_out_of_bounds": lambda L, x: x.index_select(1, L.tensor([4])),
    "index_select_2d_index": lambda L, x: x.index_select(1, L.tensor([[1]])),
    "index_add_count": lambda L, x: x.index_add(1, L.tensor([0]), L.ones(3, 2)),
    "index_add_out_of_bounds": lambda L, x: x.index_add(1, L.tensor([7]), L.ones(3, 1)),
    "index_fill_out_of_range": lambda L, x: x.index_fill(1, L.tensor([4]), 1.0),
    "index_fill_1d_value": lambda L, x: x.index_fill(1, L.tensor([0]), L.ones(2)),
    "index_copy_count": lambda L, x: x.index_copy(1, L.tensor([0]), L.ones(3, 2)),
}

test_errors_match_torch = cases.raises_like_torch(ERRORS, R(3, 4), sort=True)

ERROR_MESSAGES = [
    (lambda L, x: x.gather(1, L.tensor([[5]])), "index 5 is out of bounds for dimension 1"),
]

test_error_messages_are_torch_messages = cases.error_messages_as_torch(ERROR_MESSAGES)


# ----- a src larger than the index, reduce, infinite inputs -------------------------------


def test_scatter_from_a_larger_src_finite_differences():
    """src's elements outside index's shape are not written: their gradient is zero."""
    check_fd(lambda L, x, s, i: x.scatter(1, i, s), R(3, 4), R(3, 3), SCATTER_INDEX)
    check_fd(lambda L, x, s, i: x.scatter_add(0, i, s), R(4, 2), R(4, 3), SCATTER_INDEX[:2])


def test_scatter_with_reduce_has_no_derivative():
    for lib in (cr, torch):
        x = lib.ones(2, 3, requires_grad=True)
        out = x.scatter(1, lib.tensor([[0, 0]]), 2.0, reduce="add")
        assert out.grad_fn.name() == "torch::autograd::NotImplemented"
        with pytest.raises(RuntimeError, match="derivative for aten::scatter is not implemented"):
            out.sum().backward()
    check(lambda L, x, i: x.scatter(1, i, 2.0, reduce="multiply"), NoGrad(R(2, 3)), L64([0, 0]))
    check(
        lambda L, x, s, i: x.scatter(1, i, s, reduce="add"),
        NoGrad(R(2, 3)),
        NoGrad(R(1, 2)),
        L64([0, 0]),
    )


def test_tangents_where_the_input_is_infinite():
    """A scatter's tangent is the tangents scattered, not ``ans * 0`` (which is nan at inf)."""
    x = np.array([[np.inf, 1.0, 2.0], [3.0, -np.inf, 4.0]])
    tx, src, tsrc = np.ones((2, 3)), np.full((1, 2), 5.0), np.full((1, 2), 2.0)
    for fn in (
        lambda L, a, s: a.scatter(1, L.tensor([[2, 1]]), s),
        lambda L, a, s: a.scatter_add(1, L.tensor([[2, 1]]), s),
        lambda L, a, s: a.index_add(1, L.tensor([2, 1]), s.expand(2, 2)),
        lambda L, a, s: _setter_value(a, s),
    ):
        results = []
        for lib in (cr, torch):
            fwd = lib.autograd.forward_ad
            with fwd.dual_level():
                a = fwd.make_dual(lib.tensor(x), lib.tensor(tx))
                s = fwd.make_dual(lib.tensor(src), lib.tensor(tsrc))
                results.append(to_numpy(fwd.unpack_dual(fn(lib, a, s)).tangent))
        np.testing.assert_array_equal(results[0], results[1])


def _setter_value(a, s):
    y = a * 1
    y[[1], [0, 2]] = s
    return y


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize(
    ("rows", "count", "width"),
    [
        (1000, 512, 64),
        (50, 512, 64),
        (3, 200, 32),
        (64, 32, 256),
        (70000, 100, 32),
        (10, 100, 1),
        (1000, 5000, 3),
        (7, 63, 4),
    ],
    ids=[
        "few_repeats",
        "many_repeats",
        "beyond_the_rounds",
        "distinct",
        "wide_keys",
        "one_column",
        "long_narrow",
        "short",
    ],
)
def test_add_rows_at_has_add_ats_bits(rows, count, width, dt):
    """Index_add along dim 0 (an embedding's gradient) in rounds of distinct indices, then
    add.at for the repeats beyond them (narrow rows: add.at alone): add.at's bits (each
    row's additions in order); into zeros, the first round written as rows + 0 (a -0 read
    once becomes +0, as 0 + -0 does)."""
    from chainrule.ops.indexing import add_rows_at

    r = np.random.default_rng(rows + count)
    index = r.permutation(rows)[:count] if count <= rows // 2 else r.integers(0, rows, count)
    source = r.standard_normal((count, width)).astype(dt)
    source[0, 0] = -0.0
    for base in (r.standard_normal((rows, width)).astype(dt), np.zeros((rows, width), dt)):
        want = base.copy()
        np.add.at(want, index, source)
        for idx in (index, index.astype(np.uint32), index - rows):  # (negatives: add.at's)
            got = base.copy()
            add_rows_at(got, idx, source, zeros=not base.any())
            np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
