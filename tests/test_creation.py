"""Constructors from data (``tensor``, ``as_tensor``, ``from_numpy``) and fills (``full``,
``fill_``, ``masked_fill``), on the inputs a careless user gives them: numbers a dtype
cannot hold, ragged lists, complex numbers, tensors inside lists, NumPy arrays that are
masked, read-only or big-endian, and sizes given as tensors. Checked against PyTorch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import assert_close, assert_same_error, both

INT_DTYPES = ["uint8", "int8", "int16", "int32", "int64"]
# Python numbers at and past the edges of the integer dtypes
EDGES = [-0.5, 255.5, 256.0, -1, -128, -129, -255, -256, 300, 2**31, 1e10, 1e300]
EDGES += [float("nan"), float("inf"), 2**63, -(2**63) - 1, True, 70000]


def outcome(fn, lib):
    """('ok', the values as text: nan equals nan) or ('raises', type, message)."""
    try:
        return ("ok", repr(fn(lib).tolist()))
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return ("raises", type(e), str(e))


@pytest.mark.parametrize("dtype", [None, *INT_DTYPES, "float16", "float32", "bool"])
@pytest.mark.parametrize("value", EDGES, ids=repr)
def test_tensor_of_a_number_a_dtype_cannot_hold_raises_as_torch(value, dtype):
    """torch.tensor(300, dtype=int8) and torch.tensor(2**63) raise PyTorch's overflow
    errors instead of wrapping; floats beyond float16's range become inf, silently."""

    def fn(L):
        return L.tensor([1, value], dtype=None if dtype is None else getattr(L, dtype))

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no NumPy overflow warning either
        assert outcome(fn, cr) == outcome(fn, torch)


def test_tensor_of_huge_ints():
    assert_same_error(lambda L: L.tensor(2**63))
    assert_same_error(lambda L: L.tensor(10**400))  # not "invalid data type 'int'"
    assert_same_error(lambda L: L.tensor([1.5, 10**400]))
    assert_same_error(lambda L: L.tensor(2**40, dtype=L.int32))
    assert_same_error(lambda L: L.tensor(300, dtype=L.int8))
    c, t = both(lambda L: L.tensor([2**63, 1], dtype=L.float64))
    assert_close(c, t, exact=True)
    c, t = both(lambda L: L.tensor(-1, dtype=L.uint8))  # negative ints wrap into uint8
    assert_close(c, t, exact=True)


@pytest.mark.parametrize("name", ["full", "fill_", "full_like", "masked_fill"])
@pytest.mark.parametrize("dtype", [*INT_DTYPES, "float16", "float32", "float64", "bool"])
def test_fills_with_a_number_a_dtype_cannot_hold_raise_as_torch(name, dtype):
    fills = {
        "full": lambda L, v, d: L.full((1,), v, dtype=d),
        "fill_": lambda L, v, d: L.zeros(1, dtype=d).fill_(v),
        "full_like": lambda L, v, d: L.full_like(L.zeros(1, dtype=d), v),
        "masked_fill": lambda L, v, d: L.zeros(2, dtype=d).masked_fill(L.tensor([True, False]), v),
    }
    failures = []
    for value in EDGES:

        def fn(L, value=value):
            return fills[name](L, value, getattr(L, dtype))

        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ours, theirs = outcome(fn, cr), outcome(fn, torch)
        if ours != theirs:
            failures.append(f"{value!r}: {ours} != torch's {theirs}")
    assert failures == []


@pytest.mark.parametrize(
    "data",
    [
        [[1, 2], [1]],
        [[1, 2], 3],
        [[[1, 2]], [[1, 2, 3]]],
        [[1, 2], []],
        [[1], [2, 3]],
        [(1.0, 2.0), (3.0,)],
    ],
    ids=repr,
)
def test_ragged_lists_raise_torchs_error(data):
    """PyTorch's "expected sequence of length 2 at dim 1 (got 1)", not NumPy's
    "inhomogeneous shape"."""
    assert_same_error(lambda L: L.tensor(data))


def test_tensors_inside_a_list_are_numbers():
    assert_same_error(lambda L: L.tensor([L.ones(2), L.ones(2)]))
    c, t = both(lambda L: L.tensor([L.ones(1), L.tensor(2.5)]))
    assert_close(c, t, exact=True)
    c, t = both(lambda L: L.tensor([L.tensor(3), 2]))
    assert_close(c, t, exact=True)


@pytest.mark.parametrize(
    "make",
    [
        lambda L: L.tensor([1 + 2j]),
        lambda L: L.tensor(1j),
        lambda L: L.tensor([1.0, 1j]),
        lambda L: L.tensor(np.array([1j])),
        lambda L: L.from_numpy(np.array([1j])),
        lambda L: L.as_tensor(np.array([1 + 1j], dtype=np.complex64)),
    ],
)
def test_complex_values_make_complex_tensors_as_in_torch(make):
    """Complex Python numbers and complex NumPy arrays become complex tensors of PyTorch's
    dtype and values (they used to be refused: chainrule had no complex dtypes)."""
    t = make(torch)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = make(cr)
    assert repr(c.dtype) == repr(t.dtype)
    np.testing.assert_array_equal(c.numpy(), t.numpy())


@pytest.mark.parametrize("make", ["from_numpy", "tensor", "as_tensor"])
def test_a_masked_array_gives_its_data_not_its_mask(make):
    def fn(L):
        return getattr(L, make)(np.ma.array([1.0, 2.0], mask=[0, 1])).sum()

    c, t = both(fn)
    assert_close(c, t)
    assert type(cr.from_numpy(np.ma.array([1.0])).numpy()) is np.ndarray


def test_a_read_only_array_warns_once_then_is_written_as_in_torch(monkeypatch):
    """PyTorch warns that the array is not writable, then writes into its memory."""
    import chainrule._creation as creation

    monkeypatch.setattr(creation, "_warned_read_only", [False])
    results = []
    for lib in (cr, torch):
        a = np.ones(2)
        a.flags.writeable = False
        with pytest.warns(UserWarning, match="The given NumPy array is not writable"):
            t = lib.from_numpy(a)
        t.add_(1)
        results.append((a.tolist(), t.tolist()))
    assert results[0] == results[1] == ([2.0, 2.0], [2.0, 2.0])


def test_read_only_memory_numpy_does_not_own_is_refused_with_a_clear_error():
    t = cr.from_numpy(np.frombuffer(bytearray(16), dtype=np.float64).copy())
    t.add_(1)  # (a copy: writable)
    buffer = np.frombuffer(b"\0" * 16, dtype=np.float64)  # the memory of a bytes object
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = cr.from_numpy(buffer)
    with pytest.raises(RuntimeError, match="read-only"):
        t.add_(1)


@pytest.mark.parametrize("make", ["from_numpy", "tensor", "as_tensor"])
def test_a_big_endian_array_gives_torchs_error(make):
    assert_same_error(lambda L: getattr(L, make)(np.array([1.0, 2.0], dtype=">f8")))


@pytest.mark.parametrize(
    "make",
    [
        lambda L: L.ones(L.tensor(3)),
        lambda L: L.zeros(2, L.tensor(3)),
        lambda L: L.ones((L.tensor(2), 3)),
        lambda L: L.empty(L.tensor([2])),
        lambda L: L.ones(L.tensor(3, dtype=L.int32)),
        lambda L: L.zeros(np.int64(3)),
        lambda L: L.randn(L.tensor(3)),
        lambda L: L.rand(L.tensor(2), 2),
    ],
)
def test_a_size_may_be_an_integer_tensor(make):
    c, t = both(make)
    assert tuple(c.shape) == tuple(t.shape)


@pytest.mark.parametrize(
    "make", [lambda L: L.ones(L.tensor(3.0)), lambda L: L.ones(3.0), lambda L: L.rand(2.0)]
)
def test_a_size_that_is_not_an_int_raises_torchs_type_error(make):
    assert_same_error(make)


ASARRAY = {
    "list": lambda L: L.asarray([1.0, 2.0]),
    "numpy": lambda L: L.asarray(np.arange(3.0)),
    "tensor": lambda L: L.asarray(L.arange(3.0)),
    "dtype": lambda L: L.asarray([1, 2], dtype=L.float64),
    "copy": lambda L: L.asarray(L.ones(2), copy=True, requires_grad=True),
}


@pytest.mark.parametrize("name", sorted(ASARRAY))
def test_asarray_matches_torch(name):
    got, want = both(ASARRAY[name])
    assert_close(got, want, exact=True)
    assert got.device == cr.empty(0).device  # on the default device, as PyTorch's
