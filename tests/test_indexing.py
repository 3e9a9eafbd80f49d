"""The shape, joining and indexing ops against PyTorch: values, dtypes, node names and
gradients (float32 and float64, negative dims, 0-d and empty tensors), float64 finite
differences, forward-mode tangents, views and version counters, ``x[key]`` and
``x[key] = value`` with every kind of key, in-place writes through views, and errors.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import chainrule as cr
from oracle import (
    DT_IDS,
    FLOATS,
    L64,
    NoGrad,
    R,
    check,
    check_double_backward,
    check_fd,
    check_raises,
    compare_tangents,
    randn,
    same_node,
    to_numpy,
)

MASK = np.array([[True, False, True, True], [False, False, True, False], [True, True, False, True]])
GATHER_INDEX = L64([0, 2], [1, 1], [3, 0])
SCATTER_INDEX = L64([0, 2], [1, 3], [3, 0])  # no place written twice: the result is defined

CASES = {
    # reshaping
    "reshape": (lambda L, x: x.reshape(4, -1), R(2, 3, 2)),
    "reshape_fn": (lambda L, x: L.reshape(x, (3, 4)), R(2, 6)),
    "reshape_copy": (lambda L, x: x.t().reshape(-1), R(3, 4)),
    "reshape_0d": (lambda L, x: x.reshape(1, 1), R()),
    "view": (lambda L, x: x.view(2, 2, 3), R(3, 4)),
    "view_tuple": (lambda L, x: x.view((6, 2)), R(3, 4)),
    "view_as": (lambda L, x, y: x.view_as(y), R(3, 4), NoGrad(R(2, 6))),
    "flatten": (lambda L, x: L.flatten(x), R(2, 3, 4)),
    "flatten_dims": (lambda L, x: x.flatten(1, -1), R(2, 3, 4)),
    "flatten_neg": (lambda L, x: x.flatten(-3, -2), R(2, 3, 4)),
    "flatten_noncontig": (lambda L, x: x.transpose(0, 2).flatten(), R(2, 3, 4)),
    "flatten_0d": (lambda L, x: x.flatten(), R()),
    "unflatten": (lambda L, x: x.unflatten(1, (2, 2)), R(3, 4)),
    "unflatten_neg": (lambda L, x: L.unflatten(x, -1, (-1, 2)), R(3, 4)),
    "squeeze": (lambda L, x: x.squeeze(), R(3, 1, 4, 1)),
    "squeeze_dim": (lambda L, x: L.squeeze(x, 1), R(3, 1, 4)),
    "squeeze_neg_dim": (lambda L, x: x.squeeze(-1), R(3, 4, 1)),
    "squeeze_dim_not_one": (lambda L, x: x.squeeze(0), R(3, 1, 4)),
    "squeeze_tuple": (lambda L, x: x.squeeze((1, -1, 0)), R(3, 1, 4, 1)),
    "squeeze_0d": (lambda L, x: x.squeeze(0), R()),
    "unsqueeze": (lambda L, x: x.unsqueeze(1), R(3, 4)),
    "unsqueeze_neg": (lambda L, x: L.unsqueeze(x, -1), R(3, 4)),
    "unsqueeze_0d": (lambda L, x: x.unsqueeze(0), R()),
    "permute": (lambda L, x: x.permute(2, 0, 1), R(2, 3, 4)),
    "permute_neg": (lambda L, x: L.permute(x, (-1, 0, -2)), R(2, 3, 4)),
    "transpose": (lambda L, x: x.transpose(0, -1), R(2, 3, 4)),
    "transpose_fn": (lambda L, x: L.transpose(x, 1, 2), R(2, 3, 4)),
    "swapaxes": (lambda L, x: L.swapaxes(x, 0, 1), R(2, 3)),
    "swapdims": (lambda L, x: x.swapdims(-1, 0), R(2, 3)),
    "t": (lambda L, x: x.t(), R(2, 3)),
    "movedim": (lambda L, x: x.movedim(0, -1), R(2, 3, 4)),
    "movedim_identity": (lambda L, x: x.movedim((0, 1), (0, 1)), R(2, 3)),
    "movedim_0d": (lambda L, x: L.movedim(x, 0, -1), R()),
    "transpose_0d": (lambda L, x: x.transpose(0, -1), R()),
    "t_0d": (lambda L, x: x.t(), R()),
    "permute_0d": (lambda L, x: x.permute(()), R()),
    "squeeze_0d_none": (lambda L, x: x.squeeze(), R()),
    "flip_0d": (lambda L, x: x.flip(0), R()),
    "repeat_empty": (lambda L, x: x.repeat(()), R()),
    "movedim_tuple": (lambda L, x: L.movedim(x, (0, 1), (2, 0)), R(2, 3, 4)),
    "moveaxis": (lambda L, x: L.moveaxis(x, -1, 0), R(2, 3, 4)),
    "expand": (lambda L, x: x.expand(2, 3, 4), R(3, 1)),
    "expand_minus_one": (lambda L, x: x.expand(-1, 4), R(3, 1)),
    "expand_as": (lambda L, x, y: x.expand_as(y), R(1, 4), NoGrad(R(3, 4))),
    "contiguous": (lambda L, x: x.t().contiguous(), R(3, 4)),
    "contiguous_already": (lambda L, x: (x * 1).contiguous(), R(3, 4)),
    "clone": (lambda L, x: L.clone(x), R(3, 4)),
    "clone_method": (lambda L, x: x.t().clone(), R(3, 4)),
    # repeating, reversing
    "repeat": (lambda L, x: x.repeat(2, 3), R(3, 4)),
    "repeat_more_dims": (lambda L, x: x.repeat((2, 1, 3)), R(3, 4)),
    "repeat_0d": (lambda L, x: x.repeat(3), R()),
    "repeat_zero": (lambda L, x: x.repeat(0, 2), R(3, 4)),
    "tile": (lambda L, x: L.tile(x, (2,)), R(3, 4)),
    "tile_more": (lambda L, x: x.tile(2, 1, 2), R(3, 4)),
    "flip": (lambda L, x: L.flip(x, (0, -1)), R(2, 3, 4)),
    "flip_method": (lambda L, x: x.flip(1), R(2, 3, 4)),
    "flip_method_list": (lambda L, x: x.flip([0, 2]), R(2, 3, 4)),
    "roll": (lambda L, x: L.roll(x, 2, 1), R(3, 4)),
    "roll_flat": (lambda L, x: x.roll(-3), R(3, 4)),
    "roll_many": (lambda L, x: x.roll((1, -2), (0, -1)), R(3, 4)),
    # slicing pieces
    "narrow": (lambda L, x: x.narrow(1, 1, 2), R(3, 4)),
    "narrow_neg": (lambda L, x: L.narrow(x, -1, -3, 2), R(3, 4)),
    "narrow_empty": (lambda L, x: x.narrow(0, 3, 0), R(3, 4)),
    "select": (lambda L, x: L.select(x, 1, -1), R(3, 4)),
    "select_method": (lambda L, x: x.select(0, 2), R(3, 4)),
    "split": (lambda L, x: L.split(x, 2)[1], R(5, 3)),
    "split_last": (lambda L, x: x.split(2, dim=-1)[-1] * 2, R(3, 5)),
    "split_sizes": (lambda L, x: L.split(x, [1, 3, 1], 1)[1], R(2, 5)),
    "chunk": (lambda L, x: x.chunk(3, -1)[0], R(2, 5)),
    "unbind": (lambda L, x: L.unbind(x, 1)[2], R(3, 4)),
    "unbind_method": (lambda L, x: x.unbind()[0], R(3, 4)),
    "split_sum": (lambda L, x: sum(p.sum(0) for p in x.split(2, 0)), R(5, 3)),
    "split_all_used": (lambda L, x: L.cat(x.split([2, 1], 1)[::-1], 1), R(3, 3)),
    "unbind_all_used": (lambda L, x: L.stack(x.unbind(0), 1), R(3, 4)),
    # joining
    "cat": (lambda L, a, b: L.cat([a, b]), R(2, 3), R(4, 3)),
    "cat_dim": (lambda L, a, b: L.cat((a, b), dim=-1), R(2, 3), R(2, 1)),
    "cat_three": (lambda L, a, b: L.cat([a, b * 2, a], 1), R(2, 3), R(2, 2)),
    "cat_with_constant": (lambda L, a, b: L.cat([a, b]), R(2, 3), NoGrad(R(1, 3))),
    "cat_empty_1d": (lambda L, a, b: L.cat([a, b]), R(2, 3), NoGrad(np.zeros(0))),
    "concat": (lambda L, a, b: L.concat([a, b], dim=1), R(2, 3), R(2, 3)),
    "concatenate": (lambda L, a, b: L.concatenate([a, b], axis=1), R(2, 3), R(2, 3)),
    "stack": (lambda L, a, b: L.stack([a, b]), R(2, 3), R(2, 3)),
    "stack_neg": (lambda L, a, b: L.stack((a, b), -1), R(2, 3), R(2, 3)),
    "stack_0d": (lambda L, a, b: L.stack([a, b, a]), R(), R()),
    "hstack": (lambda L, a, b: L.hstack([a, b]), R(2, 3), R(2, 1)),
    "hstack_1d": (lambda L, a, b: L.hstack([a, b]), R(3), R(2)),
    "hstack_0d": (lambda L, a, b: L.hstack([a, b]), R(), R()),
    "vstack": (lambda L, a, b: L.vstack([a, b]), R(2, 3), R(3)),
    "vstack_1d": (lambda L, a, b: L.vstack((a, b)), R(3), R(3)),
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
    "index_fill": (lambda L, x, i: L.index_fill(x, 1, i, -1.5), R(3, 4), L64(0, 2, 2)),
    "index_fill_tensor": (lambda L, x, v, i: x.index_fill(0, i, v), R(3, 4), R(), L64(2, 0, 2)),
    "index_copy": (lambda L, x, s, i: L.index_copy(x, 1, i, s), R(3, 4), R(3, 2), L64(3, 0)),
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
    "unfold": (lambda L, x: x.unfold(1, 2, 1), R(3, 4)),
    "unfold_step": (lambda L, x: x.unfold(0, 2, 2) * 1, R(5, 3)),
    "unfold_overlap": (lambda L, x: x.unfold(-1, 3, 1), R(2, 5)),
    "atleast_1d": (lambda L, x: L.atleast_1d(x), R()),
    "atleast_2d": (lambda L, x: L.atleast_2d(x), R(3)),
    "atleast_3d": (lambda L, x: L.atleast_3d(x), R(3, 4)),
    "atleast_3d_many": (lambda L, a, b: L.cat(L.atleast_3d(a, b), 2), R(3), R(1, 3)),
    "dstack": (lambda L, a, b: L.dstack([a, b]), R(3, 4), R(3, 4)),
    "dstack_1d": (lambda L, a, b: L.dstack((a, b)), R(3), R(3)),
    "column_stack": (lambda L, a, b: L.column_stack([a, b]), R(3), R(3, 2)),
    "row_stack": (lambda L, a, b: L.row_stack([a, b]), R(3), R(2, 3)),
    # empty tensors
    "cat_empty_rows": (lambda L, a, b: L.cat([a, b]), R(0, 3), R(2, 3)),
    "stack_empty": (lambda L, a, b: L.stack([a, b], 1), R(0, 3), R(0, 3)),
    "split_empty": (lambda L, x: x.split(2, 1)[0], R(0, 3)),
    "chunk_empty_dim": (lambda L, x: x.chunk(2)[1], R(0, 3)),
    "gather_empty_index": (lambda L, x, i: x.gather(1, i), R(3, 4), np.zeros((3, 0), np.int64)),
    "index_select_empty": (lambda L, x, i: x.index_select(0, i), R(3, 4), np.zeros(0, np.int64)),
    "take_empty": (lambda L, x, i: x.take(i), R(3, 4), np.zeros((2, 0), np.int64)),
    "repeat_empty_input": (lambda L, x: x.repeat(2, 3), R(0, 2)),
    "flip_empty": (lambda L, x: x.flip(0), R(0, 2)),
    "roll_empty": (lambda L, x: x.roll(1, 1), R(2, 0)),
    "unsqueeze_empty": (lambda L, x: x.unsqueeze(1).squeeze(), R(0, 2)),
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
    "list_2d": (lambda L, x: x[[[0, 1], [2, 2]]], R(3, 4)),
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


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name, dtype):
    fn, *inputs = CASES[name]
    same_node(check(fn, *inputs, dtype=dtype))


FD = [
    "take_along_dim_broadcast",
    "index_fill_tensor",
    "index_copy",
    "index_put_accumulate",
    "masked_scatter_broadcast",
    "unfold_overlap",
    "reshape_copy",
    "squeeze_tuple",
    "unsqueeze_neg",
    "movedim_tuple",
    "repeat_more_dims",
    "tile",
    "flip",
    "roll_many",
    "narrow_neg",
    "split_sum",
    "chunk",
    "unbind_all_used",
    "cat_three",
    "stack_neg",
    "hstack",
    "vstack",
    "gather_repeated",
    "scatter",
    "scatter_src_bigger",
    "scatter_value",
    "scatter_add_repeated",
    "index_select",
    "index_add_alpha",
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
    "expand",
    "stack_0d",
]


@pytest.mark.parametrize("name", FD)
def test_finite_differences(name):
    fn, *inputs = CASES[name]
    check_fd(fn, *inputs)


def test_scatter_from_a_larger_src_finite_differences():
    """src's elements outside index's shape are not written: their gradient is zero."""
    check_fd(lambda L, x, s, i: x.scatter(1, i, s), R(3, 4), R(3, 3), SCATTER_INDEX)
    check_fd(lambda L, x, s, i: x.scatter_add(0, i, s), R(4, 2), R(4, 3), SCATTER_INDEX[:2])


DOUBLE = [
    "unfold_overlap",
    "masked_scatter",
    "index_fill_tensor",
    "repeat",
    "gather_repeated",
    "scatter",
    "index_add",
    "masked_select",
    "cat_three",
    "split_all_used",
    "tensors_apart",
    "take",
    "unbind_all_used",
    "masked_fill_tensor",
]


@pytest.mark.parametrize("name", DOUBLE)
def test_second_derivatives(name):
    fn, *inputs = CASES[name]
    check_double_backward(fn, *inputs)


SCALAR_INPUT = {
    "index_select": lambda L, x: x.index_select(0, L.tensor(0)),
    "index_select_1": lambda L, x: x.index_select(0, L.tensor([0])),
    "gather": lambda L, x: x.gather(0, L.tensor([0, 0])),
    "scatter": lambda L, x: x.scatter(0, L.tensor(0), 5.0),
    "scatter_add": lambda L, x: x.scatter_add(0, L.tensor([0, 0]), x.expand(2) * 2),
    "index_add": lambda L, x: x.index_add(0, L.tensor([0]), x * 3),
    "take": lambda L, x: x.take(L.tensor([0, 0])),
    "masked_fill": lambda L, x: x.masked_fill(L.tensor(True), 1.0),
    "masked_select": lambda L, x: x.masked_select(L.tensor(True)),
    "tile": lambda L, x: x.tile(2, 2),
    "index_fill": lambda L, x: x.index_fill(0, L.tensor([0]), 1.0),
    "take_along_dim": lambda L, x: L.take_along_dim(x, L.tensor(0)),
    "unfold": lambda L, x: x.unfold(0, 1, 1),
    "movedim": lambda L, x: x.movedim(0, 0),
    "flatten": lambda L, x: x.flatten(0, 0),
    "getitem_nones": lambda L, x: x[None, None],
    "getitem_empty_tuple": lambda L, x: x[()],
    "getitem_true": lambda L, x: x[True],
    "getitem_false": lambda L, x: x[False],
}


@pytest.mark.parametrize("name", sorted(SCALAR_INPUT))
def test_scalar_inputs_match_torch(name):
    same_node(check(SCALAR_INPUT[name], R()))


@pytest.mark.parametrize(
    "fn",
    [
        lambda L, x: x.index_select(0, L.tensor([0, 0])),
        lambda L, x: x.index_add(0, L.tensor([0]), L.ones(1)),
        lambda L, x: x.roll(1, 0),
        lambda L, x: x.unflatten(0, (1,)),
        lambda L, x: x[0],
        lambda L, x: x.narrow(0, 0, 1),
        lambda L, x: L.cat([x, x]),
        lambda L, x: x.split(1),
    ],
)
def test_scalar_input_errors_match_torch(fn):
    check_raises(fn, R())


def test_shapes_and_dtypes_of_integer_inputs():
    """Shape ops keep an integer dtype and give no gradient."""
    a = L64([1, 2, 3], [4, 5, 6])
    for fn in (
        lambda L, x: x.flip(0),
        lambda L, x: L.cat([x, x]),
        lambda L, x: L.stack([x, x], 1),
        lambda L, x: x[[1, 0], 1:],
        lambda L, x: x.repeat(2, 1),
        lambda L, x: x.unbind(1)[0],
        lambda L, x: x.gather(1, L.tensor([[0], [2]])),
        lambda L, x: x.masked_fill(x > 2, 0),
    ):
        check(fn, a)


def test_cat_promotes_dtypes():
    check(lambda L, a, b: L.cat([a, b]), R(2, 2).astype(np.float32), R(1, 2))
    check(lambda L, a, b: L.cat([a, b]), L64(1, 2), np.array([3, 4], dtype=np.int32))
    check(lambda L, a, b: L.cat([a, b]), L64(1, 2), R(2))


# ----- forward mode ----------------------------------------------------------------------

TANGENTS = [
    "take_along_dim",
    "index_fill_tensor",
    "index_copy",
    "index_put_accumulate",
    "masked_scatter",
    "unfold_step",
    "squeeze_tuple",
    "unsqueeze",
    "movedim",
    "flatten_noncontig",
    "repeat",
    "flip",
    "roll",
    "narrow",
    "split",
    "chunk",
    "unbind",
    "cat",
    "stack",
    "hstack_1d",
    "gather",
    "scatter",
    "scatter_value",
    "scatter_add",
    "index_select",
    "index_add_alpha",
    "masked_fill",
    "masked_fill_tensor",
    "masked_select",
    "take",
    "int_slice_tensor",
    "mask",
    "tensors_apart",
]


@pytest.mark.parametrize("name", TANGENTS)
def test_tangents_match_torch(name):
    fn, *inputs = CASES[name]
    rng = np.random.default_rng(5)
    tangents = [
        rng.standard_normal(np.shape(v)) if isinstance(v, np.ndarray) else None for v in inputs
    ]  # a tangent for float inputs only: integer and NoGrad inputs stay plain tensors
    tangents = [
        t if isinstance(v, np.ndarray) and v.dtype.kind == "f" else None
        for v, t in zip(inputs, tangents, strict=True)
    ]
    compare_tangents(fn, inputs, tangents)


def test_split_pieces_share_one_node():
    y = cr.randn(4, 3, requires_grad=True) * 1
    a, b = y.split(2)
    assert a.grad_fn is b.grad_fn
    assert a.grad_fn.next_functions[0][0] is y.grad_fn


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


# ----- views and version counters ---------------------------------------------------------

VIEWS = {
    "view": (lambda x: x.view(12), True),
    "reshape": (lambda x: x.reshape(4, 3), True),
    "reshape_copy": (lambda x: x.t().reshape(12), False),
    "flatten": (lambda x: x.flatten(), True),
    "unflatten": (lambda x: x.unflatten(1, (2, 2)), True),
    "squeeze": (lambda x: x.unsqueeze(0).squeeze(0), True),
    "unsqueeze": (lambda x: x.unsqueeze(-1), True),
    "permute": (lambda x: x.permute(1, 0), True),
    "transpose": (lambda x: x.transpose(0, 1), True),
    "movedim": (lambda x: x.movedim(0, 1), True),
    "expand": (lambda x: x[:1].expand(3, 4), True),
    "narrow": (lambda x: x.narrow(1, 1, 2), True),
    "select": (lambda x: x.select(1, 0), True),
    "split": (lambda x: x.split(2, 1)[1], True),
    "chunk": (lambda x: x.chunk(2)[0], True),
    "unbind": (lambda x: x.unbind(1)[3], True),
    "unfold": (lambda x: x.unfold(1, 2, 1), True),
    "basic_index": (lambda x: x[1:, ::2], True),
    "int_index": (lambda x: x[1], True),
    "advanced_index": (lambda x: x[[0, 1]], False),
    "mask_index": (lambda x: x[x > 0], False),
    "contiguous": (lambda x: x.contiguous(), True),
    "contiguous_copy": (lambda x: x.t().contiguous(), False),
    "flip": (lambda x: x.flip(0), False),
    "roll": (lambda x: x.roll(1), False),
    "repeat": (lambda x: x.repeat(1, 1), False),
    "cat": (lambda x: cr.cat([x]), False),
    "clone": (lambda x: x.clone(), False),
    "gather": (lambda x: x.gather(0, cr.zeros(1, 4, dtype=cr.long)), False),
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_views_share_memory_and_version_as_torch(name):
    """A view shares memory and the version counter with its input (as PyTorch); a copy not."""
    fn, is_view = VIEWS[name]
    torch_fn = {
        "cat": lambda x: torch.cat([x]),
        "gather": lambda x: x.gather(0, torch.zeros(1, 4, dtype=torch.long)),
    }.get(name, fn)
    t = torch.randn(3, 4)
    assert (torch_fn(t)._base is not None or torch_fn(t) is t) == is_view  # the oracle agrees
    x = cr.randn(3, 4)
    y = fn(x)
    before = x._version
    with cr.no_grad():
        x.add_(1)
    assert (y._version == before + 1) == is_view
    assert x._version == before + 1


def test_inplace_through_a_view_bumps_the_base_version():
    for lib in (cr, torch):
        x = lib.zeros(3, 4)
        v = x[1:].t()
        v.mul_(2)
        x[0] = 1
        x[:, 1].add_(3)
        x.view(12)[2] = 5
        assert x._version == 4 and v._version == 4
        assert x.tolist()[0] == [1.0, 4.0, 5.0, 1.0]


def test_inplace_shape_methods():
    for lib in (cr, torch):
        x = lib.randn(3, 1, 4, requires_grad=True)
        y = x * 1
        assert y.squeeze_() is y and tuple(y.shape) == (3, 4)
        assert y.grad_fn.name() == "SqueezeBackward3" and y._version == 1
        y.unsqueeze_(0)
        assert tuple(y.shape) == (1, 3, 4) and y.grad_fn.name() == "UnsqueezeBackward1"
        y.squeeze_(0)
        assert y.grad_fn.name() == "SqueezeBackward4"
        y.transpose_(0, -1)
        assert tuple(y.shape) == (4, 3) and y.grad_fn.name() == "TransposeBackward1"
        y.t_()
        assert tuple(y.shape) == (3, 4) and y.grad_fn.name() == "TBackward1"
        y.unsqueeze_(1).unsqueeze_(0).squeeze_((0, 2))
        assert y.grad_fn.name() == "SqueezeBackward5"
        y.swapdims_(0, 1)
        y.swapaxes_(0, 1)
        assert y._version == 10
        (y * lib.arange(12.0).view(3, 4)).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), np.arange(12.0).reshape(3, 1, 4))
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            x.squeeze_()
        with pytest.raises(RuntimeError, match="expects a tensor with <= 2 dimensions"):
            lib.zeros(2, 2, 2).t_()


def test_write_into_a_view_whose_base_changed_layout_raises():
    """After y.t_(), a view of y taken before no longer sits where its steps say: refused
    rather than given a wrong gradient (PyTorch tracks raw strides instead)."""
    y = cr.randn(3, 3, requires_grad=True) * 1
    v = y[0]
    y.t_()
    with pytest.raises(RuntimeError, match="changed its layout in place"):
        v.mul_(2)
    w = y[0]  # taken after the change: fine
    w.mul_(2)
    assert w.grad_fn is not None


def test_inplace_shape_method_on_a_view_updates_the_base():
    for lib in (cr, torch):
        x = lib.arange(6.0, requires_grad=True)
        y = x * 1
        v = y.view(2, 3)
        v.t_()
        v.mul_(lib.tensor([[1.0, 10.0], [2.0, 20.0], [3.0, 30.0]]))
        assert y.tolist() == [0.0, 2.0, 6.0, 30.0, 80.0, 150.0]
        y.sum().backward()
        assert x.grad.tolist() == [1.0, 2.0, 3.0, 10.0, 20.0, 30.0]


# ----- x[key] = value ------------------------------------------------------------------------


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


# ----- in-place writes through views ------------------------------------------------------------

THROUGH_VIEWS = {
    "column_mul": lambda L, x: _through(x, lambda y: y[:, 1].mul_(2)),
    "row_assign": lambda L, x: _through(x, lambda y: y.__setitem__(0, y[1] + 2)),
    "view_add": lambda L, x: _through(x, lambda y: y.view(12).add_(y.view(12).flip(0))),
    "transposed_narrow": lambda L, x: _through(x, lambda y: y.t().narrow(0, 1, 2).mul_(-3)),
    "squeezed": lambda L, x: _through(x, lambda y: y.unsqueeze(0).squeeze(0)[1:].add_(1)),
    "view_of_view": lambda L, x: _through(x, lambda y: y[1:][:, ::2].mul_(y[:2, 1::2].exp())),
    "read_view_after": lambda L, x: _read_after(x),
    "augmented_basic": lambda L, x: _through(x, lambda y: _augmented(y, 0, y[1] * 3)),
    "augmented_advanced": lambda L, x: _through(x, lambda y: _augmented(y, [0, 2], 2.0)),
    "augmented_mask": lambda L, x: _through(x, lambda y: _augmented(y, y > 0, -1.0)),
    "masked_fill_on_view": lambda L, x: _through(x, lambda y: y[1].masked_fill_(y[1] > 0, 0.0)),
    "scatter_on_view": lambda L, x: _through(
        x, lambda y: y[:, :2].scatter_(1, L.tensor([[1], [0], [1]]), y[:, 2:3])
    ),
    "index_add_on_view": lambda L, x: _through(
        x, lambda y: y.t().index_add_(0, L.tensor([0, 0]), y.t()[1:3] * 1, alpha=2)
    ),
    "scatter_add_inplace": lambda L, x: _through(
        x, lambda y: y.scatter_add_(1, L.tensor([[0, 0]]), y[:1, :2] * 2)
    ),
}


def _through(x, write):
    y = x * 1
    write(y)
    return y * y


def _augmented(y, key, value):
    y[key] += value  # a read, an in-place add on what was read, a write back


def _read_after(x):
    y = x * 1
    v = y[1:]
    y[2, 1] = 7.0  # v's base changed after v was taken: v sees it
    return v * x[:2]


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(THROUGH_VIEWS))
def test_inplace_through_views_matches_torch(name, dtype):
    res = check(THROUGH_VIEWS[name], R(3, 4), dtype=dtype)
    same_node(res)


RAISING_THROUGH_VIEWS = {
    # each multiplication saved a view of y that the write then changed
    "row_times_rows": lambda L, x: _through(x, lambda y: y.__setitem__(0, y[1] * y[2])),
    "view_times_view": lambda L, x: _through(x, lambda y: y[1:][:, ::2].mul_(y[:2, 1::2])),
    "column_mul_view": lambda L, x: _through(x, lambda y: y[:, 1].mul_(y[:, 2])),
}


@pytest.mark.parametrize("name", sorted(RAISING_THROUGH_VIEWS))
def test_inplace_through_views_that_torch_refuses_raise(name):
    fn = RAISING_THROUGH_VIEWS[name]
    check_raises(lambda L, x: fn(L, x).sum().backward(), R(3, 4))


def test_inplace_into_a_split_piece_raises_as_torch():
    for lib in (cr, torch):
        y = lib.randn(4, 3, requires_grad=True) * 1
        a, b = y.split(2)
        with pytest.raises(RuntimeError, match="returns multiple views"):
            a.mul_(2)
        with pytest.raises(RuntimeError, match="returns multiple views"):
            y.unbind(1)[0][0] = 1.0
        c, d = y.detach().chunk(2)  # without grad, the write is allowed
        c.mul_(0)
        assert float(y.detach()[:2].abs().sum()) == 0.0


def test_inplace_on_unfolded_windows():
    """Windows that do not overlap can be written in place; overlapping ones are refused."""
    check(lambda L, x: _through(x, lambda y: y.unfold(1, 2, 2).mul_(3)), R(3, 4))
    # PyTorch writes overlapping windows several times (values and gradient disagree):
    # chainrule refuses instead
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        (cr.ones(3, 4) * 1).unfold(1, 2, 1).mul_(3)


FORWARD_WRITES = {
    "column_mul": lambda y, v: y[:, 1].mul_(2),
    "row_assign": lambda y, v: y.__setitem__(0, v),
    "advanced_assign": lambda y, v: y.__setitem__(([0, 2], [1, 3]), v[:2]),
    "view_add": lambda y, v: y.view(12)[3:7].add_(v),
    "transpose_then_write": lambda y, v: y.t()[1].mul_(v[:3]),
    "squeeze_then_write": lambda y, v: y.unsqueeze(0).squeeze_(0)[2].sub_(v),
}


@pytest.mark.parametrize("name", sorted(FORWARD_WRITES))
def test_tangents_of_inplace_writes_through_views(name):
    """Forward mode: a write into a view changes the base's tangent in that region."""
    rng = np.random.default_rng(11)
    x, tx, v, tv = (rng.standard_normal(s) for s in ((3, 4), (3, 4), (4,), (4,)))
    results = []
    for lib in (cr, torch):
        fwd = lib.autograd.forward_ad
        with fwd.dual_level():
            y = fwd.make_dual(lib.tensor(x), lib.tensor(tx)) * 1
            FORWARD_WRITES[name](y, fwd.make_dual(lib.tensor(v), lib.tensor(tv)))
            primal, tangent = fwd.unpack_dual(y * y)
            results.append((to_numpy(primal), to_numpy(tangent)))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-10, atol=1e-12)


def test_inplace_on_an_expanded_view_raises():
    check_raises(lambda L, x: (x * 1).expand(2, 3, 4).add_(1), R(3, 4))
    check_raises(lambda L, x: (x * 1)[:1].expand(3, 4).add_(1), R(3, 4))


def test_inplace_on_an_expand_that_repeats_nothing():
    check(lambda L, x: _through(x, lambda y: y.expand(1, 3, 4).mul_(2)), R(3, 4))
    check(lambda L, x: _through(x, lambda y: y.expand(3, -1).mul_(2)), R(3, 4))


def test_saved_tensor_modified_through_a_view_raises():
    for lib in (cr, torch):
        y = lib.randn(3, requires_grad=True) * 1
        z = y.exp()
        y[0] = 1.0  # exp saved its output z, not y: fine
        w = y.sin()
        y[1:].mul_(2)  # sin saved y, which just changed
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            w.sum().backward()
        z.sum().backward()


# ----- in-place variants ----------------------------------------------------------------------

INPLACE = {
    "scatter_": lambda L, x, s: (x * 1).scatter_(1, L.tensor(SCATTER_INDEX), s),
    "scatter_value_": lambda L, x, s: (x * 1).scatter_(1, L.tensor(GATHER_INDEX), 0.5) * s.sum(),
    "scatter_add_": lambda L, x, s: (x * 1).scatter_add_(1, L.tensor(GATHER_INDEX), s),
    "index_add_": lambda L, x, s: (x * 1).index_add_(1, L.tensor([1, 1]), s, alpha=3),
    "masked_fill_": lambda L, x, s: (x * 1).masked_fill_(L.tensor(MASK), 2.0) * s.sum(),
    "masked_fill_tensor_": lambda L, x, s: (x * 1).masked_fill_(L.tensor(MASK), s[0, 1]),
    "index_fill_": lambda L, x, s: (x * 1).index_fill_(1, L.tensor([3]), s[1, 1]),
    "index_copy_": lambda L, x, s: (x * 1).index_copy_(1, L.tensor([3, 1]), s),
    "index_put_": lambda L, x, s: (x * 1).index_put_((L.tensor([0, 2]),), s[:, 0].sum()),
    "masked_scatter_": lambda L, x, s: (x * 1).masked_scatter_(L.tensor(MASK), L.cat([s, s])),
}


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_variants_match_torch(name):
    same_node(check(INPLACE[name], R(3, 4), R(3, 2)))


def test_inplace_variants_bump_the_version_and_return_self():
    for lib in (cr, torch):
        x = lib.zeros(3, 4)
        assert x.scatter_(1, lib.tensor(GATHER_INDEX), 1.0) is x
        assert x.index_add_(0, lib.tensor([0]), lib.ones(1, 4)) is x
        assert x.masked_fill_(lib.tensor(MASK), 3.0) is x
        assert x.scatter_add_(0, lib.tensor([[1]]), lib.ones(1, 1)) is x
        assert x._version == 4


# ----- errors ------------------------------------------------------------------------------------

ERRORS = {
    "squeeze_dim": lambda L, x: x.squeeze(3),
    "squeeze_repeated": lambda L, x: x.squeeze((0, 0)),
    "unsqueeze_dim": lambda L, x: x.unsqueeze(-4),
    "permute_repeated": lambda L, x: x.permute(0, 0),
    "permute_count": lambda L, x: x.permute(0),
    "transpose_dim": lambda L, x: x.transpose(0, 2),
    "movedim_count": lambda L, x: x.movedim((0,), (1, 0)),
    "movedim_repeated": lambda L, x: x.movedim((0, 1), (1, 1)),
    "flatten_order": lambda L, x: x.flatten(1, 0),
    "flatten_dim": lambda L, x: x.flatten(0, 5),
    "unflatten_sizes": lambda L, x: x.unflatten(1, (3, 2)),
    "view_size": lambda L, x: x.view(5),
    "view_noncontiguous": lambda L, x: x.t().view(12),
    "reshape_size": lambda L, x: x.reshape(5, -1),
    "expand_shrink": lambda L, x: x.expand(3, 2),
    "repeat_too_few": lambda L, x: x.repeat(2),
    "flip_repeated": lambda L, x: x.flip(0, 0),
    "roll_mismatch": lambda L, x: x.roll((1, 2), (0,)),
    "narrow_too_long": lambda L, x: x.narrow(1, 3, 2),
    "narrow_start": lambda L, x: x.narrow(1, 5, 0),
    "narrow_negative_length": lambda L, x: x.narrow(1, 1, -1),
    "split_zero": lambda L, x: x.split(0, 1),
    "split_sizes_sum": lambda L, x: x.split([1, 2], 1),
    "chunk_zero": lambda L, x: x.chunk(0),
    "unbind_dim": lambda L, x: x.unbind(2),
    "unbind_0d": lambda L, x: x.sum().unbind(),
    "cat_empty": lambda L, x: L.cat([]),
    "cat_sizes": lambda L, x: L.cat([x, L.zeros(3, 5)]),
    "cat_ndim": lambda L, x: L.cat([x, L.zeros(3)]),
    "cat_0d": lambda L, x: L.cat([x.sum(), x.sum()]),
    "cat_dim": lambda L, x: L.cat([x, x], 2),
    "stack_sizes": lambda L, x: L.stack([x, L.zeros(3, 5)]),
    "stack_empty": lambda L, x: L.stack([]),
    "stack_dim": lambda L, x: L.stack([x, x], 3),
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
    "masked_fill_float_mask": lambda L, x: x.masked_fill(L.ones(3, 4), 1.0),
    "masked_fill_1d_value": lambda L, x: x.masked_fill(x > 0, L.ones(4)),
    "masked_select_float_mask": lambda L, x: x.masked_select(L.ones(3, 4)),
    "take_out_of_range": lambda L, x: x.take(L.tensor([12])),
    "take_along_dim_ndim": lambda L, x: L.take_along_dim(x, L.tensor([1]), 1),
    "index_fill_out_of_range": lambda L, x: x.index_fill(1, L.tensor([4]), 1.0),
    "index_fill_1d_value": lambda L, x: x.index_fill(1, L.tensor([0]), L.ones(2)),
    "index_copy_count": lambda L, x: x.index_copy(1, L.tensor([0]), L.ones(3, 2)),
    "index_put_dtype": lambda L, x: x.index_put((L.tensor([0]),), L.ones(4, dtype=L.float32)),
    "masked_scatter_short_source": lambda L, x: x.masked_scatter(x > -100, L.ones(3)),
    "unfold_too_big": lambda L, x: x.unfold(1, 5, 1),
    "unfold_step": lambda L, x: x.unfold(1, 2, 0),
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


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name):
    check_raises(ERRORS[name], R(3, 4))


def test_error_messages_are_torch_messages():
    cases = [
        (lambda L, x: x[3], "index 3 is out of bounds for dimension 0 with size 3"),
        (lambda L, x: x[0, 0, 0], "too many indices for tensor of dimension 2"),
        (
            lambda L, x: x.squeeze(3),
            r"Dimension out of range \(expected to be in range of \[-2, 1\]",
        ),
        (
            lambda L, x: L.cat([x, L.zeros(3, 5)]),
            "Sizes of tensors must match except in dimension 0",
        ),
        (lambda L, x: x.gather(1, L.tensor([[5]])), "index 5 is out of bounds for dimension 1"),
        (
            lambda L, x: x.split([1, 2], 1),
            "split_with_sizes expects split_sizes to sum exactly to 4",
        ),
        (
            lambda L, x: x.narrow(1, 3, 2),
            r"start \(3\) \+ length \(2\) exceeds dimension size \(4\)",
        ),
        (lambda L, x: x[::-1], "step must be greater than zero"),
    ]
    for fn, message in cases:
        for lib in (cr, torch):
            with pytest.raises((IndexError, RuntimeError, ValueError), match=message):
                fn(lib, lib.zeros(3, 4))


# ----- random keys: every kind of index, mixed, against PyTorch ------------------------------


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


# ----- random shapes ----------------------------------------------------------------------------

SHAPE_OPS = {
    "movedim": lambda L, x, r: x.movedim(r % x.ndim, -1 - (r % x.ndim)),
    "flip": lambda L, x, r: x.flip(r % x.ndim),
    "roll": lambda L, x, r: x.roll(r - 2, r % x.ndim),
    "repeat": lambda L, x, r: x.repeat(*([1] * (x.ndim - 1)), r % 3 + 1),
    "split_cat": lambda L, x, r: L.cat(x.split(r % 3 + 1, -1)[::-1], -1),
    "chunk_stack": lambda L, x, r: L.stack([c.sum(0) for c in x.chunk(r % 4 + 1)], -1),
    "unbind_stack": lambda L, x, r: L.stack(x.unbind(r % x.ndim)[::-1], 0),
    "narrow": lambda L, x, r: x.narrow(-1, r % x.shape[-1], x.shape[-1] - r % x.shape[-1]),
    "flatten_unflatten": lambda L, x, r: x.flatten().unflatten(0, x.shape[::-1]),
    "squeeze_unsqueeze": lambda L, x, r: x.unsqueeze(r % (x.ndim + 1)).squeeze(),
    "gather": lambda L, x, r: x.gather(-1, (x.detach().abs() * 10).long() % x.shape[-1]),
    "masked": lambda L, x, r: x.masked_fill(x > 0.5, r).masked_select(x < 1),
}


@settings(max_examples=25, deadline=None)
@given(
    shape=hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=4),
    r=st.integers(0, 11),
    name=st.sampled_from(sorted(SHAPE_OPS)),
)
def test_shape_ops_on_random_shapes_match_torch(shape, r, name):
    fn = SHAPE_OPS[name]
    same_node(check(lambda L, x: fn(L, x, r), randn(shape, seed=r)))
