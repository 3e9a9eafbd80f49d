"""``tensor([...])`` of a flat list of Python floats or ints takes a short path
(``_creation._flat_kind``): the same values, dtypes and errors as PyTorch, and as the
general path for everything else in the list."""

from __future__ import annotations

import pytest
import torch

import chainrule as cr
from chainrule import _creation
from oracle import assert_same_error, compare

FLAT = [
    [1.0, 2.5, -0.0],
    (1.0, float("inf"), float("nan")),
    [1, 2, -3],
    (0,),
    [2**62, -(2**62)],
    [1, 2.0],  # mixed: the general path
    [True, False],  # bools: the general path
    [1, True],
    [],
]


@pytest.mark.parametrize("data", FLAT, ids=repr)
@pytest.mark.parametrize("dtype", [None, "float64", "int8", "bool"])
def test_flat_lists_as_torch(data, dtype):
    def make(lib):
        return lib.tensor(data, dtype=None if dtype is None else getattr(lib, dtype))

    try:
        torch.tensor(data, dtype=None if dtype is None else getattr(torch, dtype))
    except (RuntimeError, ValueError, TypeError):
        assert_same_error(make)  # (an overflow: PyTorch's error)
        return
    compare(make)


@pytest.mark.parametrize(
    "data, kind",
    [([1.0], float), ((2, 3), int), ([1, 2.0], None), ([True], None), ([], None), ([[1]], None)],
)
def test_flat_kind(data, kind):
    assert _creation._flat_kind(data) is kind


@pytest.mark.parametrize("data", [[2**64], [300], [-1.5e300]])
def test_flat_numbers_out_of_range_raise_as_torch(data):
    assert_same_error(lambda lib: lib.tensor(data, dtype=lib.int8))
    assert cr.tensor([1, 2]).dtype is cr.int64
