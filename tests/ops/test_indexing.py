"""Indexing against PyTorch: ``x[key]`` and ``x[key] = value`` with every kind of key (ints,
slices with steps, None, Ellipsis, lists, integer tensors, masks, mixed, and random keys),
index_put, take, take_along_dim, masked_fill, masked_select, masked_scatter.

Values, dtypes, node names and gradients (repeated indices add up), finite differences,
tangents, second derivatives, in-place variants, errors and messages.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import cases
import chainrule as cr
from cases import MASK
from oracle import (
    DT_IDS,
    FLOATS,
    L64,
    NoGrad,
    R,
    assert_same_bits,
    check,
    check_fd,
    check_raises,
    randn,
    same_node,
    to_numpy,
    vjp_bits_on_arrays,
    warns_as_torch,
)

# ----- x[key]: the first cases ------------------------------------------------------------


INDEX_CASES = {
    "int": (lambda lib, x: x[1], (3, 4), []),
    "neg_int": (lambda lib, x: x[-1], (3, 4), []),
    "int_int": (lambda lib, x: x[1, 2], (3, 4), []),
    "0d_from_1d": (lambda lib, x: x[2], (5,), []),
    "slice": (lambda lib, x: x[1:3], (5, 2), []),
    "slice_step": (lambda lib, x: x[::2], (5, 2), []),
    "slice_step_start": (lambda lib, x: x[1::3, ::2], (7, 5), []),
    "slice_neg": (lambda lib, x: x[-3:-1], (5,), []),
    "slice_empty": (lambda lib, x: x[3:1], (5,), []),
    "slice_over": (lambda lib, x: x[2:100], (5,), []),
    "none": (lambda lib, x: x[None], (3, 4), []),
    "none_mid": (lambda lib, x: x[:, None, 1:], (3, 4), []),
    "ellipsis": (lambda lib, x: x[..., 1], (2, 3, 4), []),
    "ellipsis_int": (lambda lib, x: x[1, ...], (2, 3, 4), []),
    "ellipsis_none": (lambda lib, x: x[..., None], (2, 3), []),
    "mixed": (lambda lib, x: x[1, ..., None, ::2], (2, 3, 4), []),
    "0d_ellipsis": (lambda lib, x: x[...], (), []),
    "0d_none": (lambda lib, x: x[None], (), []),
    "list": (lambda lib, x: x[[0, 2, 2]], (4, 3), []),
    "list_repeated": (lambda lib, x: x[[1, 1, 1, 0]], (3,), []),
    "list_second_dim": (lambda lib, x: x[:, [0, 2, 0]], (3, 4), []),
    "two_lists": (lambda lib, x: x[[0, 1, 1], [2, 0, 2]], (3, 4), []),
    "int_tensor": (lambda lib, x, i: x[i], (4, 3), [np.array([3, 0, 3, 3])]),
    "int_tensor_2d": (lambda lib, x, i: x[i], (4, 3), [np.array([[0, 1], [1, 1]])]),
    "int_tensor_neg": (lambda lib, x, i: x[i], (4,), [np.array([-1, 0, -1])]),
    "int_tensor_dim1": (lambda lib, x, i: x[:, i], (2, 4), [np.array([1, 1, 3])]),
    "int32_tensor": (lambda lib, x, i: x[i], (4,), [np.array([1, 1, 0], dtype=np.int32)]),
    "int_tensor_0d": (lambda lib, x, i: x[i], (4, 2), [np.array(2)]),
    "two_int_tensors": (
        lambda lib, x, i, j: x[i, j],
        (3, 4),
        [np.array([0, 2, 2]), np.array([1, 3, 3])],
    ),
    "int_tensor_empty": (lambda lib, x, i: x[i], (4, 2), [np.array([], dtype=np.int64)]),
    "bool_mask": (lambda lib, x, m: x[m], (5,), [np.array([True, False, True, True, False])]),
    "bool_mask_2d": (
        lambda lib, x, m: x[m],
        (2, 3),
        [np.array([[True, False, True], [False, False, True]])],
    ),
    "bool_mask_rows": (lambda lib, x, m: x[m], (3, 2), [np.array([False, True, True])]),
    "bool_mask_dim1": (lambda lib, x, m: x[:, m], (2, 3), [np.array([True, False, True])]),
    "bool_mask_none": (lambda lib, x, m: x[m], (3,), [np.array([False, False, False])]),
    "mask_from_compare": (lambda lib, x: x[x > 0], (3, 4), []),
    "chain": (lambda lib, x: x[1:][:, [0, 0]][..., None][0], (3, 4), []),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", list(INDEX_CASES))
def test_getitem(name, dtype):
    fn, shape, extra = INDEX_CASES[name]
    check(fn, randn(shape, seed=19), *extra, dtype=dtype)


@pytest.mark.parametrize("name", list(INDEX_CASES))
def test_getitem_fd(name):
    fn, shape, extra = INDEX_CASES[name]
    check_fd(
        lambda lib, x, *k: fn(lib, x, *k) * fn(lib, x, *k).exp(), randn(shape, seed=19), *extra
    )


def test_getitem_float_index_raises():
    check_raises(lambda lib, x, i: x[i], randn((3,)), NoGrad(np.array([0.0, 1.0])))


# ----- x[key] = value: the first cases ----------------------------------------------------


def _write_value(key_fn):
    """y = x * 1 (a non-leaf copy of x); y[key] = value; return y."""

    def fn(lib, x, value, *extra):
        y = x * 1
        y[key_fn(lib, *extra)] = value
        return y

    return fn


SETITEM_CASES = {
    "int_row": (_write_value(lambda lib: 0), (3, 4), randn((4,), seed=30), []),
    "int_row_broadcast": (_write_value(lambda lib: 1), (3, 4), randn((1,), seed=30), []),
    "slice": (_write_value(lambda lib: slice(1, 3)), (3, 4), randn((2, 4), seed=30), []),
    "slice_broadcast": (_write_value(lambda lib: slice(1, 3)), (3, 4), randn((4,), seed=30), []),
    "slice_step": (_write_value(lambda lib: slice(None, None, 2)), (5,), randn((3,), seed=30), []),
    "column": (_write_value(lambda lib: (slice(None), 1)), (3, 4), randn((3,), seed=30), []),
    "element_0d": (_write_value(lambda lib: (2, 3)), (3, 4), randn((), seed=30), []),
    "ellipsis": (_write_value(lambda lib: (Ellipsis, 0)), (2, 3, 4), randn((2, 1), seed=30), []),
    "scalar_float": (_write_value(lambda lib: (slice(None), 1)), (3, 4), 5.0, []),
    "scalar_int": (_write_value(lambda lib: 0), (3, 4), 7, []),
    "list": (_write_value(lambda lib: [0, 2]), (3, 4), randn((2, 4), seed=30), []),
    "int_tensor": (
        _write_value(lambda lib, i: i),
        (4, 2),
        randn((2, 2), seed=30),
        [np.array([3, 1])],
    ),
    "int_tensor_broadcast": (
        _write_value(lambda lib, i: i),
        (4, 2),
        randn((2,), seed=30),
        [np.array([0, 2])],
    ),
    "bool_mask": (
        _write_value(lambda lib, m: m),
        (2, 3),
        randn((3,), seed=30),
        [np.array([[True, False, True], [False, False, True]])],
    ),
    "bool_mask_scalar": (
        _write_value(lambda lib, m: m),
        (2, 3),
        -1.5,
        [np.array([[True, False, True], [False, False, True]])],
    ),
    "bool_mask_0d_value": (
        _write_value(lambda lib, m: m),
        (4,),
        randn((), seed=30),
        [np.array([True, False, True, False])],
    ),
    "all": (_write_value(lambda lib: Ellipsis), (2, 3), randn((2, 3), seed=30), []),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", list(SETITEM_CASES))
def test_setitem(name, dtype):
    fn, shape, value, extra = SETITEM_CASES[name]
    check(fn, randn(shape, seed=20), value, *extra, dtype=dtype)


@pytest.mark.parametrize("name", list(SETITEM_CASES))
def test_setitem_fd(name):
    fn, shape, value, extra = SETITEM_CASES[name]

    def f(lib, x, v, *k):
        v2 = v * v if isinstance(v, type(x)) else v
        return fn(lib, x.sin(), v2, *k) * x

    check_fd(f, randn(shape, seed=20), value, *extra)


def test_setitem_value_of_other_dtype():
    """A float64 value written into float32 y: y stays float32, value's grad is float64."""
    x = randn((3, 4), seed=21).astype(np.float32)
    v = randn((4,), seed=22)
    check(_write_value(lambda lib: 1), x, v)
    check(_write_value(lambda lib: slice(0, 2)), x, v.astype(np.float32))


def test_setitem_value_without_grad_and_twice():
    def fn(lib, x, v):
        y = x.sin()
        y[0] = v
        y[1:, 1] = v[:2] * 2
        return y * x

    check(fn, randn((3, 4), seed=23), randn((4,), seed=24), dtype=np.float64)
    check(fn, randn((3, 4), seed=23), NoGrad(randn((4,), seed=24)), dtype=np.float32)
    check_fd(fn, randn((3, 4), seed=23), randn((4,), seed=24))


def test_setitem_on_leaf_requiring_grad_raises():
    def fn(lib, x):
        x[0] = 1.0
        return x

    check_raises(fn, randn((3,)))


def test_setitem_under_no_grad():
    def fn(lib, x, v):
        with lib.no_grad():
            x[1] = v
        return x * x

    check(fn, randn((3, 2), seed=25), randn((2,), seed=26), dtype=np.float64)


# ----- indexing functions and keys --------------------------------------------------------


CASES = {
    "masked_fill": (lambda L, x, m: L.masked_fill(x, m, 0.5), R(3, 4), MASK),
    "masked_fill_method": (lambda L, x, m: x.masked_fill(m, -2), R(3, 4), MASK),
    "masked_fill_broadcast_mask": (lambda L, x, m: x.masked_fill(m[0], 1.0), R(3, 4), MASK),
    "masked_fill_tensor": (lambda L, x, v, m: x.masked_fill(m, v), R(3, 4), R(), MASK),
    "masked_select": (lambda L, x, m: L.masked_select(x, m), R(3, 4), MASK),
    "masked_select_broadcast": (lambda L, x, m: x.masked_select(m), R(4), MASK),
    "take": (lambda L, x, i: L.take(x, i), R(3, 4), L64([0, 5], [11, -1])),
    "take_repeated": (lambda L, x, i: x.take(i), R(3, 4), L64(2, 2, 2, 7)),
    # more of PyTorch's indexing functions
    "take_along_dim": (
        lambda L, x, i: L.take_along_dim(x, i, 1),
        R(3, 4),
        L64([0, 3], [1, 1], [2, 0]),
    ),
    "take_along_dim_broadcast": (
        lambda L, x, i: x.take_along_dim(i, -1),
        R(3, 4),
        np.array([[0, 3, 3]]),
    ),
    "take_along_dim_flat": (lambda L, x, i: L.take_along_dim(x, i), R(3, 4), L64(0, 11, 5, 5)),
    "index_put": (lambda L, x, v, i: L.index_put(x, (i,), v), R(3, 4), R(4), L64(2, 0)),
    "index_put_two": (lambda L, x, v, i: x.index_put((i, i), v), R(3, 4), R(2), L64(2, 0)),
    "index_put_accumulate": (
        lambda L, x, v, i: x.index_put((i, i[:1]), v, accumulate=True),
        R(3, 4),
        R(4),
        L64(2, 0, 2, 2),
    ),
    "masked_scatter": (lambda L, x, s, m: x.masked_scatter(m, s), R(3, 4), R(3, 4), MASK),
    "masked_scatter_broadcast": (lambda L, x, s, m: L.masked_scatter(x, m, s), R(4), R(9), MASK),
    "take_empty": (lambda L, x, i: x.take(i), R(3, 4), np.zeros((2, 0), np.int64)),
    "masked_fill_empty": (lambda L, x: x.masked_fill(x > 0, 1.0), R(0, 2)),
    # getitem
    "int": (lambda L, x: x[1], R(3, 4)),
    "neg_int": (lambda L, x: x[-1, -2], R(3, 4)),
    "slice": (lambda L, x: x[1:], R(3, 4)),
    "slice_step": (lambda L, x: x[::2, 1::2], R(5, 4)),
    "slice_full_tuple": (lambda L, x: x[:, :], R(3, 4)),
    "slice_full_alone": (lambda L, x: x[:], R(3, 4)),
    "slice_out_of_range": (lambda L, x: x[1:100, -100:2], R(3, 4)),
    "none": (lambda L, x: x[None], R(3, 4)),
    "none_middle": (lambda L, x: x[:, None, 1], R(3, 4)),
    "ellipsis": (lambda L, x: x[..., 1], R(2, 3, 4)),
    "ellipsis_alone": (lambda L, x: x[...], R(2, 3)),
    "ellipsis_middle": (lambda L, x: x[0, ..., 1:], R(2, 3, 4)),
    "list": (lambda L, x: x[[0, 2, 2]], R(3, 4)),
    "list_bools": (lambda L, x: x[[True, False, True]], R(3, 4)),
    # a non-tuple list index: PyTorch warns it is deprecated (chainrule reads it as PyTorch does)
    "list_2d": (warns_as_torch(None, lambda L, x: x[[[0, 1], [2, 2]]]), R(3, 4)),
    "empty_list": (lambda L, x: x[[]], R(3, 4)),
    "tensor": (lambda L, x, i: x[i], R(3, 4), L64(2, 0, 2, 2)),
    "tensor_2d": (lambda L, x, i: x[:, i], R(3, 4), L64([0, 1], [3, 3])),
    "tensor_0d": (lambda L, x, i: x[i], R(3, 4), np.int64(1)),
    "tensor_int32": (lambda L, x, i: x[i], R(3, 4), np.array([2, 0], dtype=np.int32)),
    "two_tensors": (lambda L, x, i, j: x[i, j], R(3, 4), L64(0, 2, 2), L64(3, 1, 3)),
    "two_tensors_broadcast": (
        lambda L, x, i, j: x[i[:, None], j],
        R(3, 4),
        L64(0, 2),
        L64(3, 1, 3),
    ),
    "tensors_apart": (lambda L, x, i, j: x[i, :, j], R(3, 2, 4), L64(0, 2), L64(3, 1)),
    "tensors_adjacent_after_slice": (
        lambda L, x, i, j: x[:, i, j],
        R(2, 3, 4),
        L64(0, 2),
        L64(3, 1),
    ),
    "int_then_tensor": (lambda L, x, i: x[1, i], R(3, 4), L64(0, 0, 3)),
    "int_slice_tensor": (lambda L, x, i: x[0, :, i], R(2, 3, 4), L64(0, 3)),
    "tensor_slice_int": (lambda L, x, i: x[i, :, 0], R(3, 2, 4), L64(2, 0)),
    "tensor_int_tensor": (lambda L, x, i: x[i, 1, i], R(3, 2, 4), L64(2, 0)),
    "none_and_tensors": (lambda L, x, i: x[None, i, :, i], R(3, 2, 4), L64(2, 0)),
    "ellipsis_tensor": (lambda L, x, i: x[..., i], R(2, 3, 4), L64(1, 3)),
    "slice_step_tensor": (lambda L, x, i: x[::2, i], R(5, 4), L64(1, 3)),
    "mask": (lambda L, x, m: x[m], R(3, 4), MASK),
    "mask_rows": (lambda L, x, m: x[m[:, 0]], R(3, 4), MASK),
    "mask_and_slice": (lambda L, x, m: x[1:, m[0]], R(3, 4), MASK),
    "mask_and_int": (lambda L, x, m: x[2, m[1]], R(3, 4), MASK),
    "mask_and_tensor": (lambda L, x, m, i: x[m[:, 2], i], R(3, 4), MASK, L64(1, 3)),
    "mask_all_false": (lambda L, x, m: x[m & False], R(3, 4), MASK),
    "bool_true": (lambda L, x: x[True], R(3, 4)),
    "int_0d_input": (lambda L, x: x[None, ...], R()),
    "empty_input": (lambda L, x: x[1:], R(0, 3)),
    "repeated_then_sum": (lambda L, x, i: x[i] * x[i[:1]], R(3, 4), L64(1, 1, 2)),
}

test_matches_torch = cases.index_matches_torch(CASES)

FD = [
    "take_along_dim_broadcast",
    "index_put_accumulate",
    "masked_scatter_broadcast",
    "masked_fill_tensor",
    "masked_select_broadcast",
    "take_repeated",
    "slice_step",
    "two_tensors_broadcast",
    "tensors_apart",
    "int_slice_tensor",
    "mask",
    "mask_and_tensor",
    "repeated_then_sum",
]

test_finite_differences = cases.index_finite_differences(CASES, FD)

DOUBLE = [
    "masked_scatter",
    "masked_select",
    "tensors_apart",
    "take",
    "masked_fill_tensor",
]

test_second_derivatives = cases.index_second_derivatives(CASES, DOUBLE)

TANGENTS = [
    "take_along_dim",
    "index_put_accumulate",
    "masked_scatter",
    "masked_fill",
    "masked_fill_tensor",
    "masked_select",
    "take",
    "int_slice_tensor",
    "mask",
    "tensors_apart",
]

test_tangents_match_torch = cases.index_tangents_match_torch(CASES, TANGENTS)


# ----- 0-d inputs -------------------------------------------------------------------------


SCALAR_INPUT = {
    "take": lambda L, x: x.take(L.tensor([0, 0])),
    "masked_fill": lambda L, x: x.masked_fill(L.tensor(True), 1.0),
    "masked_select": lambda L, x: x.masked_select(L.tensor(True)),
    "take_along_dim": lambda L, x: L.take_along_dim(x, L.tensor(0)),
    "getitem_nones": lambda L, x: x[None, None],
    "getitem_empty_tuple": lambda L, x: x[()],
    "getitem_true": lambda L, x: x[True],
    "getitem_false": lambda L, x: x[False],
}

test_scalar_inputs_match_torch = cases.scalar_inputs_match_torch(SCALAR_INPUT)

SCALAR_INPUT_ERRORS = {
    "getitem": lambda L, x: x[0],
}

test_scalar_input_errors_match_torch = cases.scalar_input_errors_match_torch(SCALAR_INPUT_ERRORS)


# ----- in-place variants ------------------------------------------------------------------


INPLACE = {
    "masked_fill_": lambda L, x, s: (x * 1).masked_fill_(L.tensor(MASK), 2.0) * s.sum(),
    "masked_fill_tensor_": lambda L, x, s: (x * 1).masked_fill_(L.tensor(MASK), s[0, 1]),
    "index_put_": lambda L, x, s: (x * 1).index_put_((L.tensor([0, 2]),), s[:, 0].sum()),
    "masked_scatter_": lambda L, x, s: (x * 1).masked_scatter_(L.tensor(MASK), L.cat([s, s])),
}

test_inplace_variants_match_torch = cases.inplace_variants_match_torch(INPLACE)


# ----- errors -----------------------------------------------------------------------------


ERRORS = {
    "masked_fill_float_mask": lambda L, x: x.masked_fill(L.ones(3, 4), 1.0),
    "masked_fill_1d_value": lambda L, x: x.masked_fill(x > 0, L.ones(4)),
    "masked_select_float_mask": lambda L, x: x.masked_select(L.ones(3, 4)),
    "take_out_of_range": lambda L, x: x.take(L.tensor([12])),
    "take_along_dim_ndim": lambda L, x: L.take_along_dim(x, L.tensor([1]), 1),
    "index_put_dtype": lambda L, x: x.index_put((L.tensor([0]),), L.ones(4, dtype=L.float32)),
    "masked_scatter_short_source": lambda L, x: x.masked_scatter(x > -100, L.ones(3)),
    "take_int32": lambda L, x: x.take(L.tensor([1], dtype=L.int32)),
    "index_int_out_of_range": lambda L, x: x[3],
    "index_second_int_out_of_range": lambda L, x: x[0, -5],
    "index_tensor_out_of_range": lambda L, x: x[L.tensor([0, 3])],
    "index_list_out_of_range": lambda L, x: x[:, [0, 4]],
    "index_too_many": lambda L, x: x[0, 0, 0],
    "index_float_tensor": lambda L, x: x[L.tensor([0.0])],
    "index_negative_step": lambda L, x: x[::-1],
    "index_zero_step": lambda L, x: x[::0],
    "index_mask_shape": lambda L, x: x[L.tensor([True, False])],
    "setitem_shape": lambda L, x: (x * 1).__setitem__(slice(0, 2), L.ones(3)),
    "setitem_too_many_dims": lambda L, x: (x * 1).__setitem__(0, L.ones(2, 4)),
    "setitem_index_out_of_range": lambda L, x: (x * 1).__setitem__([5], 1.0),
}

test_errors_match_torch = cases.raises_like_torch(ERRORS, R(3, 4), sort=True)

ERROR_MESSAGES = [
    (lambda L, x: x[3], "index 3 is out of bounds for dimension 0 with size 3"),
    (lambda L, x: x[0, 0, 0], "too many indices for tensor of dimension 2"),
    (lambda L, x: x[::-1], "step must be greater than zero"),
]

test_error_messages_are_torch_messages = cases.error_messages_as_torch(ERROR_MESSAGES)

_MASK = np.array([[True, False, True], [False, True, False], [False, False, False]])

# a value that does not fit the region: PyTorch's message, written without a graph
# (detach) and recorded (x * 1)
SHAPE_MISMATCHES = {
    f"{name}_{how}": (
        lambda L, x, m, f=f, write=write: f(L, write(x), m),
        [np.zeros((3, 3)), _MASK],
    )
    for name, f in {
        "mask": lambda L, x, m: x.__setitem__(m, L.ones(4, dtype=x.dtype)),
        "mask_row": lambda L, x, m: x.__setitem__((slice(None), m[0]), L.ones(4, dtype=x.dtype)),
        "index": lambda L, x, m: x.__setitem__(L.tensor([0, 1]), L.ones(3, 3, dtype=x.dtype)),
        "indices": lambda L, x, m: x.__setitem__(
            (L.tensor([0, 1]), L.tensor([1, 2])), L.ones(3, dtype=x.dtype)
        ),
        "index_put_": lambda L, x, m: x.index_put_(
            (L.tensor([0, 1]),), L.ones(3, 3, dtype=x.dtype)
        ),
    }.items()
    for how, write in (("unrecorded", lambda x: x.detach()), ("recorded", lambda x: x * 1))
}

test_shape_mismatch_errors_match_torch = cases.same_errors_as_torch(SHAPE_MISMATCHES)

RAISES = {
    "index_out_of_range": (lambda lib, a: a[5], randn((3,))),
    "negative_step": (lambda lib, a: a[::-1], randn((3,))),
}

test_raises_like_torch = cases.raises_like_torch(RAISES)


# ----- x[key] = value ---------------------------------------------------------------------


def _setter(key, value_fn=None):
    """A check function: y = x * 1; y[key] = value (the value from v if given); y * 1."""

    def fn(L, x, *rest):
        y = x * 1
        k = key(L, *[r for r in rest if not r.is_floating_point()]) if callable(key) else key
        y[k] = value_fn(L, x, *rest) if value_fn is not None else 0.5
        return y

    return fn


SETITEM = {
    "int_scalar": (_setter(1), R(3, 4)),
    "slice_tensor": (_setter((slice(None), slice(1, 3)), lambda L, x, v: v), R(3, 4), R(3, 2)),
    "broadcast_value": (_setter(slice(0, 2), lambda L, x, v: v), R(3, 4), R(4)),
    "broadcast_value_column": (
        _setter((Ellipsis, slice(1, None)), lambda L, x, v: v),
        R(3, 4),
        R(3, 1),
    ),
    "leading_ones_value": (_setter(0, lambda L, x, v: v), R(3, 4), R(1, 1, 4)),
    "step_slice": (_setter((slice(None, None, 2), 0), lambda L, x, v: v), R(5, 4), R(3)),
    "none_key": (_setter((None, 1), lambda L, x, v: v), R(3, 4), R(1, 4)),
    "list": (_setter(lambda L: [0, 2], lambda L, x, v: v), R(3, 4), R(2, 4)),
    "tensor_broadcast": (_setter(lambda L, i: i, lambda L, x, v, i: v), R(3, 4), R(4), L64(2, 0)),
    "two_tensors": (
        _setter(lambda L, i, j: (i, j), lambda L, x, v, i, j: v),
        R(3, 4),
        R(2),
        L64(2, 0),
        L64(1, 3),
    ),
    "int_and_tensor": (
        _setter(lambda L, i: (1, i), lambda L, x, v, i: v),
        R(3, 4),
        R(2),
        L64(2, 0),
    ),
    "int_slice_tensor": (
        _setter(lambda L, i: (0, slice(None), i), lambda L, x, v, i: v),
        R(2, 3, 4),
        R(3, 2),
        L64(2, 0),
    ),
    "mask_scalar": (_setter(lambda L, m: m), R(3, 4), MASK),
    "mask_values": (_setter(lambda L, m: m, lambda L, x, v, m: v), R(3, 4), R(7), MASK),
    "mask_rows": (_setter(lambda L, m: m[:, 0], lambda L, x, v, m: v), R(3, 4), R(4), MASK),
    "value_from_x": (_setter(0, lambda L, x: x[2] * 3), R(3, 4)),
    "float64_value": (_setter(1, lambda L, x, v: v.double()), R(3, 4), R(4)),
    "ellipsis": (_setter(Ellipsis, lambda L, x, v: v), R(3, 4), R(4)),
    "whole_slices": (_setter((slice(None), slice(0, 9)), lambda L, x, v: v), R(3, 4), R(4)),
    "whole_scalar": (_setter(slice(None)), R(3, 4)),
    "none_ellipsis": (_setter((None, Ellipsis), lambda L, x, v: v), R(3, 4), R(4)),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(SETITEM))
def test_setitem_matches_torch(name, dtype):
    fn, *inputs = SETITEM[name]
    same_node(check(fn, *inputs, dtype=dtype))


@pytest.mark.parametrize(
    "name",
    [
        "slice_tensor",
        "broadcast_value",
        "two_tensors",
        "mask_values",
        "int_slice_tensor",
        "value_from_x",
    ],
)
def test_setitem_finite_differences(name):
    fn, *inputs = SETITEM[name]
    check_fd(fn, *inputs)


def test_setitem_into_a_tensor_without_grad():
    """Writing a value that requires grad into a plain tensor makes it part of the graph."""

    def fn(L, v):
        y = L.zeros(3, 4, dtype=v.dtype)
        y[1:, 2] = v
        y[0, [0, 3]] = v * 2
        return y

    same_node(check(fn, R(2)))


def test_setitem_on_a_leaf_requiring_grad_raises():
    check_raises(lambda L, x: x.__setitem__(0, 1.0), R(3))
    check_raises(lambda L, x: x.__setitem__([0, 1], 1.0), R(3))


def test_setitem_under_no_grad_writes_a_leaf():
    for lib in (cr, torch):
        x = lib.zeros(2, 3, requires_grad=True)
        with lib.no_grad():
            x[0, 1:] = 2.0
            x[[1], [0]] = lib.tensor([5.0])
        assert x.tolist() == [[0.0, 2.0, 2.0], [5.0, 0.0, 0.0]] and x.is_leaf
        assert x._version == 2


# ----- random keys: every kind of index, mixed, against PyTorch ---------------------------


def _random_key(rng: np.random.Generator, shape: tuple) -> list:
    """Parts of a random key for a tensor of ``shape``: ints, slices (steps, out-of-range and
    negative bounds), None, Ellipsis, integer tensors (1-D and 2-D, repeats), lists and masks.
    Tensors and masks are kept as ("T", array) / ("M", array) until built for a library."""
    parts, dim, ndim = [], 0, len(shape)
    for _ in range(int(rng.integers(1, ndim + 2))):
        r = rng.random()
        if dim >= ndim:
            if r < 0.3:
                parts.append(None)
            break
        size = shape[dim]
        if r < 0.2:
            parts.append(int(rng.integers(-size, size)))
        elif r < 0.4:
            bounds = [
                int(b) if rng.random() < 0.7 else None for b in rng.integers(-size - 1, size + 2, 2)
            ]
            parts.append(slice(*bounds, int(rng.integers(1, 3)) if rng.random() < 0.5 else None))
        elif r < 0.5:
            parts.append(None)
            continue
        elif r < 0.55 and not any(p is Ellipsis for p in parts):
            parts.append(Ellipsis)
            break
        elif r < 0.75:
            n = int(rng.integers(0, 4))
            parts.append(("T", rng.integers(-size, size, n if rng.random() < 0.7 else (2, n))))
        elif r < 0.85:
            parts.append([int(v) for v in rng.integers(-size, size, int(rng.integers(1, 3)))])
        else:
            parts.append(("M", rng.random(size) < 0.5))
        dim += 1
    return parts


def _build_key(lib, parts: list, as_tuple: bool):
    built = [lib.tensor(p[1]) if isinstance(p, tuple) else p for p in parts]
    return tuple(built) if as_tuple or len(built) != 1 else built[0]


def _outcome(lib, run, *args):
    """What ``run(lib, *args)`` gives: ("ok", arrays..., node, version) or ("error", type)."""
    try:
        return run(lib, *args)
    except (IndexError, RuntimeError, ValueError) as exc:
        return ("error", type(exc).__name__)


def _read(lib, x, parts, as_tuple, seed):
    t = lib.tensor(x, requires_grad=True)
    y = (t * 1)[_build_key(lib, parts, as_tuple)]
    y.backward(lib.tensor(np.random.default_rng(seed).standard_normal(tuple(y.shape))))
    return ("ok", to_numpy(y), to_numpy(t.grad), y.grad_fn.name(), 0)


def _write(lib, x, v, parts, as_tuple, repeated, g):
    t = lib.tensor(x, requires_grad=True)
    value = lib.tensor(v, requires_grad=True)
    y = t * 1
    # with a place written twice PyTorch leaves the winner unspecified: write a number there
    y[_build_key(lib, parts, as_tuple)] = 0.25 if repeated else value
    (y * 1).backward(lib.tensor(g))
    v_grad = None if value.grad is None else to_numpy(value.grad)
    return ("ok", to_numpy(y), to_numpy(t.grad), v_grad, y.grad_fn.name(), y._version)


def _same_outcome(mine, theirs, what) -> None:
    assert mine[0] == theirs[0], (what, mine, theirs)
    if mine[0] == "error":
        assert mine[1] == theirs[1], (what, mine, theirs)
        return
    *arrays, node, version = mine[1:]
    *want_arrays, want_node, want_version = theirs[1:]
    assert node == want_node and version == want_version, (what, node, want_node)
    for a, b in zip(arrays, want_arrays):
        assert (a is None) == (b is None), what
        if a is not None:
            assert a.shape == b.shape, (what, a.shape, b.shape)
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=str(what))


@pytest.mark.parametrize("seed", range(4))
def test_random_keys_read_as_torch(seed):
    """x[key] for 60 random keys per seed: values, node, gradient (repeats add) or the error."""
    rng = np.random.default_rng(100 + seed)
    for _ in range(60):
        shape = tuple(int(s) for s in rng.integers(1, 5, int(rng.integers(1, 4))))
        parts, as_tuple = _random_key(rng, shape), bool(rng.random() < 0.5)
        args = (rng.standard_normal(shape), parts, as_tuple, int(rng.integers(1000)))
        _same_outcome(_outcome(cr, _read, *args), _outcome(torch, _read, *args), (shape, parts))


@pytest.mark.parametrize("seed", range(4))
def test_random_keys_written_as_torch(seed):
    """y[key] = value for 60 random keys per seed: the result, y's node and version, and the
    gradients of both the written tensor and the value (broadcast values summed)."""
    rng = np.random.default_rng(200 + seed)
    for _ in range(60):
        shape = tuple(int(s) for s in rng.integers(1, 5, int(rng.integers(1, 4))))
        parts, as_tuple = _random_key(rng, shape), bool(rng.random() < 0.5)
        try:
            where = torch.arange(int(np.prod(shape))).reshape(shape)[
                _build_key(torch, parts, as_tuple)
            ]
            region = tuple(where.shape)
            repeated = where.numel() != len(set(where.flatten().tolist()))
        except (IndexError, RuntimeError, ValueError):
            region, repeated = (), True
        x = rng.standard_normal(shape)
        v = rng.standard_normal(region[int(rng.integers(0, len(region) + 1)) :])
        args = (x, v, parts, as_tuple, repeated, rng.standard_normal(shape))
        _same_outcome(_outcome(cr, _write, *args), _outcome(torch, _write, *args), (shape, parts))


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize(
    ("count", "width"), [(200, 64), (40, 64), (200, 3)], ids=["rounds", "distinct", "add_at"]
)
def test_integer_index_gradient_has_add_ats_bits(count, width, dt):
    """x[index]'s gradient, an index array along dim 0 (repeats, or none): zeros with g's
    rows added in order (the rounds of add_rows_at for wide rows, a -0 read once becoming
    +0 as 0 + -0 does), add.at's bits; against create_graph=True too."""
    r = np.random.default_rng(9)
    x = r.standard_normal((50, width)).astype(dt)
    index = r.integers(0, 49, count) if count > 49 else r.permutation(49)[:count]
    index[0] = 49  # (read once: its -0 becomes +0, as 0 + -0 does)
    g = r.standard_normal((count, width)).astype(dt)
    g[:3, 0] = [-0.0, np.inf, np.nan]
    t = cr.tensor(x, requires_grad=True)
    t[cr.tensor(index)].backward(cr.tensor(g))
    want = np.zeros_like(x)
    np.add.at(want, index, g)
    assert_same_bits(to_numpy(t.grad), want)
    vjp_bits_on_arrays(lambda L, a, i: a[i], [x, index], g)
