"""Constructors and dtype queries against PyTorch (api/parsers/creation.py, _dtypes.py):
the ``new_*`` methods, tril_indices/triu_indices, finfo, iinfo, result_type, can_cast,
promote_types, the constants, torch.vmap."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import assert_close, assert_same_error

DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]

NEW = {
    "new_tensor": lambda L, x: x.new_tensor([1, 2]),
    "new_tensor_dtype": lambda L, x: x.new_tensor([[1.5], [2.0]], dtype=L.int32),
    "new_zeros": lambda L, x: x.new_zeros(2, 3),
    "new_zeros_tuple": lambda L, x: x.new_zeros((2,)),
    "new_ones": lambda L, x: x.new_ones([3, 1]),
    "new_ones_dtype": lambda L, x: x.new_ones(2, dtype=L.int32),
    "new_full": lambda L, x: x.new_full((2, 2), 3),
    "new_full_float": lambda L, x: x.new_full((2,), 2.5),
    "new_empty": lambda L, x: x.new_empty(2, 3).zero_(),
    "new_empty_strided": lambda L, x: x.new_empty_strided((2, 3), (3, 1)).zero_(),
    "new_zeros_grad": lambda L, x: x.new_zeros(2, requires_grad=True),
}


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "bool"])
@pytest.mark.parametrize("name", list(NEW))
def test_new_methods_match_torch(name, dtype):
    fn = NEW[name]
    if name == "new_zeros_grad" and dtype in ("int64", "bool"):
        assert_same_error(lambda L: fn(L, L.ones(2, dtype=getattr(L, dtype))))
        return
    if name == "new_full_float" and dtype in ("int64", "bool"):
        dtype = "float32"
    got = fn(cr, cr.ones(2, dtype=getattr(cr, dtype)))
    want = fn(torch, torch.ones(2, dtype=getattr(torch, dtype)))
    assert_close(got, want, exact=True)


def test_new_empty_strided_error():
    assert_same_error(lambda L: L.ones(2).new_empty_strided((2, 3), (1,)))


TRIANGLES = [(3, 4, 0), (4, 3, -1), (3, 3, 1), (0, 2, 0), (2, 5, 3), (5, 2, -4), (3, 3, 7)]


@pytest.mark.parametrize("row,col,offset", TRIANGLES)
@pytest.mark.parametrize("fn", ["tril_indices", "triu_indices"])
def test_triangle_indices_match_torch(fn, row, col, offset):
    got = getattr(cr, fn)(row, col, offset)
    want = getattr(torch, fn)(row, col, offset)
    assert_close(got, want, exact=True)
    assert_close(
        getattr(cr, fn)(row, col, dtype=cr.int32),
        getattr(torch, fn)(row, col, dtype=torch.int32),
        exact=True,
    )


@pytest.mark.parametrize(
    "fn",
    [
        lambda L: L.tril_indices(-1, 2),
        lambda L: L.triu_indices(2, -2),
        lambda L: L.tril_indices(2, 2, dtype=L.float32),
    ],
)
def test_triangle_errors(fn):
    assert_same_error(fn)


@pytest.mark.parametrize("name", ["float16", "float32", "float64", None])
def test_finfo_matches_torch(name):
    got = cr.finfo(getattr(cr, name)) if name else cr.finfo()
    want = torch.finfo(getattr(torch, name)) if name else torch.finfo()
    assert repr(got) == repr(want)
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(got, attr) == getattr(want, attr), attr


@pytest.mark.parametrize("name", ["int8", "int16", "int32", "int64", "uint8"])
def test_iinfo_matches_torch(name):
    got, want = cr.iinfo(getattr(cr, name)), torch.iinfo(getattr(torch, name))
    assert repr(got) == repr(want)
    for attr in ("bits", "max", "min", "dtype"):
        assert getattr(got, attr) == getattr(want, attr), attr


@pytest.mark.parametrize(
    "fn",
    [
        lambda L: L.finfo(L.int64),
        lambda L: L.finfo(L.bool),
        lambda L: L.iinfo(L.float32),
        lambda L: L.iinfo(L.bool),
    ],
)
def test_info_errors(fn):
    assert_same_error(fn)


@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("b", DTYPES)
def test_can_cast_and_promote_types_match_torch(a, b):
    assert cr.can_cast(getattr(cr, a), getattr(cr, b)) == torch.can_cast(
        getattr(torch, a), getattr(torch, b)
    )
    assert str(cr.promote_types(getattr(cr, a), getattr(cr, b))) == str(
        torch.promote_types(getattr(torch, a), getattr(torch, b))
    )


RESULT_TYPES = [
    lambda L: L.result_type(L.tensor([1]), 1.0),
    lambda L: L.result_type(L.tensor([1], dtype=L.uint8), -1),
    lambda L: L.result_type(L.tensor(1.0, dtype=L.float64), L.tensor([1], dtype=L.int32)),
    lambda L: L.result_type(L.tensor([1.0], dtype=L.float16), L.tensor(1.0)),
    lambda L: L.result_type(2, 3.0),
    lambda L: L.result_type(True, L.tensor([1], dtype=L.int8)),
]


@pytest.mark.parametrize("fn", RESULT_TYPES)
def test_result_type_matches_torch(fn):
    assert str(fn(cr)) == str(fn(torch))


def test_constants():
    for name in ("pi", "e", "inf"):
        assert getattr(cr, name) == getattr(torch, name)
    assert math.isnan(cr.nan) and math.isnan(torch.nan)


def test_vmap_is_func_vmap():
    assert cr.vmap is cr.func.vmap
    x = np.arange(6.0).reshape(2, 3)
    got = cr.vmap(lambda r: (r * r).sum())(cr.tensor(x))
    want = torch.vmap(lambda r: (r * r).sum())(torch.tensor(x))
    assert_close(got, want, exact=True)
