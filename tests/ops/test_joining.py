"""Joining, repeating and reversing against PyTorch: cat (concat, concatenate), stack,
hstack, vstack, dstack, column_stack, row_stack, repeat, tile, flip, roll: values,
dtypes (cat promotes), node names, gradients, finite differences, tangents, second
derivatives, errors and messages.
"""

from __future__ import annotations

import numpy as np

import cases
from oracle import (
    L64,
    NoGrad,
    R,
    check,
)

# ----- joining, repeating, reversing ------------------------------------------------------


CASES = {
    "flip_0d": (lambda L, x: x.flip(0), R()),
    "repeat_empty": (lambda L, x: x.repeat(()), R()),
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
    "dstack": (lambda L, a, b: L.dstack([a, b]), R(3, 4), R(3, 4)),
    "dstack_1d": (lambda L, a, b: L.dstack((a, b)), R(3), R(3)),
    "column_stack": (lambda L, a, b: L.column_stack([a, b]), R(3), R(3, 2)),
    "row_stack": (lambda L, a, b: L.row_stack([a, b]), R(3), R(2, 3)),
    # empty tensors
    "cat_empty_rows": (lambda L, a, b: L.cat([a, b]), R(0, 3), R(2, 3)),
    "stack_empty": (lambda L, a, b: L.stack([a, b], 1), R(0, 3), R(0, 3)),
    "repeat_empty_input": (lambda L, x: x.repeat(2, 3), R(0, 2)),
    "flip_empty": (lambda L, x: x.flip(0), R(0, 2)),
    "roll_empty": (lambda L, x: x.roll(1, 1), R(2, 0)),
}

test_matches_torch = cases.index_matches_torch(CASES)

FD = [
    "repeat_more_dims",
    "tile",
    "flip",
    "roll_many",
    "cat_three",
    "stack_neg",
    "hstack",
    "vstack",
    "stack_0d",
]

test_finite_differences = cases.index_finite_differences(CASES, FD)

DOUBLE = [
    "repeat",
    "cat_three",
]

test_second_derivatives = cases.index_second_derivatives(CASES, DOUBLE)

TANGENTS = [
    "repeat",
    "flip",
    "roll",
    "cat",
    "stack",
    "hstack_1d",
]

test_tangents_match_torch = cases.index_tangents_match_torch(CASES, TANGENTS)


# ----- 0-d inputs -------------------------------------------------------------------------


SCALAR_INPUT = {
    "tile": lambda L, x: x.tile(2, 2),
}

test_scalar_inputs_match_torch = cases.scalar_inputs_match_torch(SCALAR_INPUT)

SCALAR_INPUT_ERRORS = {
    "roll": lambda L, x: x.roll(1, 0),
    "cat": lambda L, x: L.cat([x, x]),
}

test_scalar_input_errors_match_torch = cases.scalar_input_errors_match_torch(SCALAR_INPUT_ERRORS)


# ----- errors -----------------------------------------------------------------------------


ERRORS = {
    "repeat_too_few": lambda L, x: x.repeat(2),
    "flip_repeated": lambda L, x: x.flip(0, 0),
    "roll_mismatch": lambda L, x: x.roll((1, 2), (0,)),
    "cat_empty": lambda L, x: L.cat([]),
    "cat_sizes": lambda L, x: L.cat([x, L.zeros(3, 5)]),
    "cat_ndim": lambda L, x: L.cat([x, L.zeros(3)]),
    "cat_0d": lambda L, x: L.cat([x.sum(), x.sum()]),
    "cat_dim": lambda L, x: L.cat([x, x], 2),
    "stack_sizes": lambda L, x: L.stack([x, L.zeros(3, 5)]),
    "stack_empty": lambda L, x: L.stack([]),
    "stack_dim": lambda L, x: L.stack([x, x], 3),
}

test_errors_match_torch = cases.raises_like_torch(ERRORS, R(3, 4), sort=True)

ERROR_MESSAGES = [
    (
        lambda L, x: L.cat([x, L.zeros(3, 5)]),
        "Sizes of tensors must match except in dimension 0",
    ),
]

test_error_messages_are_torch_messages = cases.error_messages_as_torch(ERROR_MESSAGES)


# ----- dtypes -----------------------------------------------------------------------------


def test_cat_promotes_dtypes():
    check(lambda L, a, b: L.cat([a, b]), R(2, 2).astype(np.float32), R(1, 2))
    check(lambda L, a, b: L.cat([a, b]), L64(1, 2), np.array([3, 4], dtype=np.int32))
    check(lambda L, a, b: L.cat([a, b]), L64(1, 2), R(2))


def test_stack_plans_per_pattern_of_inputs_needing_gradients():
    """stack keeps one save plan per (number of inputs, which need gradients): stacks of
    the same length with the gradient-needing inputs in other places, one after another,
    each give the gradients of their own pattern, as PyTorch's."""
    from oracle import compare

    def run(lib):
        a = lib.tensor(R(2, 3), requires_grad=True)
        b = lib.tensor(R(2, 3) + 1)
        grads = []
        for tensors, dim in (([a, b], 0), ([b, a], 0), ([a, a], 2), ([b, a, a], 1)):
            out = lib.stack(tensors, dim)
            grads.append(
                lib.autograd.grad(
                    out, a, lib.arange(float(out.numel())).reshape(out.shape).to(out.dtype)
                )[0]
            )
        return grads

    compare(run)
