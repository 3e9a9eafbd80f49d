"""``chainrule.testing`` against ``torch.testing``: which inputs pass, and for those that do
not, the exception type and the whole message, on the same cases run with both."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

import chainrule

F32 = np.float32


def _outcome(lib, case):
    """None when ``assert_close`` passes, else (exception type name, message) with
    chainrule's class paths written as PyTorch's."""
    actual, expected, kwargs = case(lib)
    try:
        lib.testing.assert_close(actual, expected, **kwargs)
    except Exception as exc:  # noqa: BLE001 - the type is part of what is compared
        text = str(exc).replace("chainrule._tensor.Tensor", "torch.Tensor")
        text = text.replace("chainrule.nn.parameter.Parameter", "torch.nn.parameter.Parameter")
        return type(exc).__name__, text
    return None


def _t(lib, values, dtype=None, **kw):
    return lib.tensor(values, dtype=dtype, **kw)


CASES = {
    "equal": lambda L: (_t(L, [1.0, 2.0]), _t(L, [1.0, 2.0]), {}),
    "within the float32 tolerance": lambda L: (_t(L, [1.0]), _t(L, [1.0000001]), {}),
    "values differ": lambda L: (_t(L, [1.0, 4.0, 5.0]), _t(L, [1.0, 2.0, 3.0]), {}),
    "a matrix": lambda L: (
        _t(L, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]]),
        _t(L, [[1.0, 2.5, 3.0], [4.0, 5.0, 6.0]]),
        {},
    ),
    "an expected zero": lambda L: (_t(L, [0.5, 0.0]), _t(L, [0.0, 0.0]), {}),
    "shapes": lambda L: (_t(L, [1.0, 2.0]), _t(L, [1.0, 2.0, 3.0]), {}),
    "dtypes": lambda L: (_t(L, [1.0]), _t(L, [1.0], L.float64), {}),
    "dtypes unchecked, close": lambda L: (
        _t(L, [1.0]),
        _t(L, [1.0], L.float64),
        {"check_dtype": False},
    ),
    "dtypes unchecked, apart": lambda L: (
        _t(L, [1.0, 3.0]),
        _t(L, [1.0, 2.0], L.float64),
        {"check_dtype": False},
    ),
    "integers": lambda L: (_t(L, [1, 5, 3]), _t(L, [1, 3, 3]), {}),
    "integers by thirds": lambda L: (_t(L, [4, 2]), _t(L, [3, 2]), {}),
    "booleans in tensors": lambda L: (_t(L, [True, False]), _t(L, [True, True]), {}),
    "0-d": lambda L: (_t(L, 1.5), _t(L, 1.0), {}),
    "nan": lambda L: (_t(L, [math.nan]), _t(L, [math.nan]), {}),
    "nan equal": lambda L: (_t(L, [math.nan]), _t(L, [math.nan]), {"equal_nan": True}),
    "nan against a number": lambda L: (_t(L, [1.0, math.nan]), _t(L, [1.0, 2.0]), {}),
    "infinities": lambda L: (_t(L, [math.inf, -math.inf]), _t(L, [math.inf, -math.inf]), {}),
    "opposite infinities": lambda L: (_t(L, [math.inf]), _t(L, [-math.inf]), {}),
    "float16": lambda L: (_t(L, [1.0, 2.0], L.float16), _t(L, [1.0, 2.01], L.float16), {}),
    "float64 tolerance": lambda L: (
        _t(L, [1.0], L.float64),
        _t(L, [1.0 + 1e-6], L.float64),
        {},
    ),
    "own tolerances": lambda L: (_t(L, [1.0]), _t(L, [1.1]), {"rtol": 0.2, "atol": 0.0}),
    "exact": lambda L: (_t(L, [1.0]), _t(L, [1.0000001]), {"rtol": 0.0, "atol": 0.0}),
    "rtol alone": lambda L: (_t(L, [1.0]), _t(L, [1.0]), {"rtol": 1e-3}),
    "atol alone": lambda L: (_t(L, [1.0]), _t(L, [1.0]), {"atol": 1e-3}),
    "floats": lambda L: (1.0, 1.1, {}),
    "ints": lambda L: (1, 2, {}),
    "an int and a float": lambda L: (1.0, 1, {}),
    "an int and a float, unchecked": lambda L: (1.0, 1, {"check_dtype": False}),
    "numpy numbers": lambda L: (np.float32(1.5), np.float32(1.5), {}),
    "booleans": lambda L: (True, False, {}),
    "None": lambda L: (None, None, {}),
    "None and a number": lambda L: (None, 1, {}),
    "lists": lambda L: ([_t(L, [1.0]), _t(L, [2.0])], [_t(L, [1.0]), _t(L, [3.0])], {}),
    "nested": lambda L: (
        [1, [_t(L, [1.0]), _t(L, [5.0])]],
        [1, [_t(L, [1.0]), _t(L, [2.0])]],
        {},
    ),
    "lengths": lambda L: ([1, [2, 3]], [1, [2, 3, 4]], {}),
    "a length before a value": lambda L: ([5, [2, 3]], [1, [2, 3, 4]], {}),
    "dicts": lambda L: ({"a": _t(L, [1.0]), "b": 2.0}, {"a": _t(L, [1.0]), "b": 2.5}, {}),
    "keys": lambda L: ({"a": 1, "b": 2}, {"a": 1, "c": 2}, {}),
    "message": lambda L: (_t(L, [1.0]), _t(L, [2.0]), {"msg": "not close, as expected"}),
    "message callable": lambda L: (
        [_t(L, [1.0]), _t(L, [2.0])],
        [_t(L, [1.0]), _t(L, [3.0])],
        {"msg": lambda m: f"Header\n\n{m}\n\nFooter"},
    ),
    "a tensor and a list": lambda L: (_t(L, [1.0]), [1.0], {}),
    "a string and a number": lambda L: ("1", 1, {}),
    "numpy arrays": lambda L: (np.array([1.0, 2.0]), np.array([1.0, 2.5]), {}),
    "a parameter and a tensor": lambda L: (L.nn.Parameter(_t(L, [1.0])), _t(L, [1.0]), {}),
    "a parameter and a tensor, no subclasses": lambda L: (
        L.nn.Parameter(_t(L, [1.0])),
        _t(L, [1.0]),
        {"allow_subclasses": False},
    ),
    "requiring grad": lambda L: (
        _t(L, [1.0, 2.0], requires_grad=True) * 2,
        _t(L, [2.0, 4.5]),
        {},
    ),
    "strides": lambda L: (
        _t(L, [[1.0, 2.0], [3.0, 4.0]]),
        _t(L, [[1.0, 3.0], [2.0, 4.0]]).t(),
        {"check_stride": True},
    ),
    "strides unchecked": lambda L: (
        _t(L, [[1.0, 2.0], [3.0, 4.0]]),
        _t(L, [[1.0, 3.0], [2.0, 4.0]]).t(),
        {},
    ),
    "meta": lambda L: (L.empty(2, 3, device="meta"), L.empty(2, 3, device="meta"), {}),
    "meta shapes": lambda L: (L.empty(2, 3, device="meta"), L.empty(3, 2, device="meta"), {}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_assert_close_passes_and_fails_as_torch(name):
    want = _outcome(torch, CASES[name])
    got = _outcome(chainrule, CASES[name])
    assert got == want


def test_the_messages_say_what_differs():
    # (the oracle above compares whole messages; here one is spelled out)
    with pytest.raises(AssertionError) as info:
        chainrule.testing.assert_close(
            chainrule.tensor([1.0, 4.0, 5.0]), chainrule.tensor([1.0, 2.0, 3.0])
        )
    assert str(info.value) == (
        "Tensor-likes are not close!\n\n"
        "Mismatched elements: 2 / 3 (66.7%)\n"
        "Greatest absolute difference: 2.0 at index (1,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 1.0 at index (1,) (up to 1.3e-06 allowed)"
    )


def test_assert_allclose_is_deprecated_and_looser():
    for lib in (torch, chainrule):
        with pytest.warns(FutureWarning, match="assert_allclose"):
            lib.testing.assert_allclose(lib.tensor([1.0]), lib.tensor([1.00005]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            with pytest.raises(AssertionError):
                lib.testing.assert_allclose(lib.tensor([1.0]), lib.tensor([1.001]))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8", "bool"])
def test_make_tensor_shape_dtype_range_and_flags(dtype):
    dt = getattr(chainrule, dtype)
    t = chainrule.testing.make_tensor(4, 5, dtype=dt, exclude_zero=dtype != "bool")
    assert t.shape == (4, 5) and t.dtype == dt
    values = t.numpy().astype(np.float64)
    low, high = (0, 10) if dtype == "uint8" else (0, 1) if dtype == "bool" else (-9, 9)
    assert values.min() >= low and values.max() <= high
    if dtype != "bool":
        assert (values != 0).all()
    n = chainrule.testing.make_tensor((2, 3), dtype=chainrule.float64, noncontiguous=True,
                                      requires_grad=True)  # fmt: skip
    assert not n.is_contiguous() and n.requires_grad and n.is_leaf
    b = chainrule.testing.make_tensor(3, dtype=chainrule.float32, low=2.0, high=3.0)
    assert ((b.numpy() >= 2) & (b.numpy() < 3)).all()


def test_torch_testing_is_an_attribute_and_a_module():
    import importlib

    assert chainrule.testing is importlib.import_module("chainrule.testing")
    assert chainrule.testing.assert_close is not None
