"""``repr``/``str``/``print`` of chainrule tensors must be PyTorch's, character for character.

Each case builds the same tensor with chainrule and with torch and compares the text.
(``tests/test_printing.py`` tests the formatter on arrays; this file tests Tensors:
dtype, ``requires_grad`` and ``grad_fn`` suffixes included.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch

import chainrule as cr
from chainrule._printing import set_printoptions

NAN, INF = float("nan"), float("inf")


@pytest.fixture(autouse=True)
def _defaults():
    """Default print options and default dtype in both libraries, before and after."""
    set_printoptions(profile="default")
    torch.set_printoptions(profile="default")
    dtype = torch.get_default_dtype()
    yield
    set_printoptions(profile="default")
    torch.set_printoptions(profile="default")
    torch.set_default_dtype(dtype)


def assert_prints_like_torch(make: Callable[[Any], Any]) -> None:
    ours, theirs = make(cr), make(torch)
    assert repr(ours) == repr(theirs)
    assert str(ours) == str(theirs)


CASES = {
    # the tutorial values
    "seed_grad": lambda L: L.tensor([102.4, 1024.0, 0.1024]),
    "seed_grad_computed": lambda L: L.FloatTensor([0.1, 1.0, 0.0001]) * 2**10,
    "four_point_five": lambda L: L.full((2, 2), 4.5),
    "ones_requires_grad": lambda L: L.ones(2, 2, requires_grad=True),
    "scalar_requires_grad": lambda L: L.tensor(1.5, requires_grad=True),
    "add_grad_fn": lambda L: L.ones(2, 2, requires_grad=True) + 2,
    "mul_grad_fn": lambda L: L.ones(2, requires_grad=True) * 2,
    "mean_grad_fn": lambda L: ((L.ones(2, 2, requires_grad=True) + 2) ** 2 * 3).mean(),
    "sum_grad_fn_0d": lambda L: (L.ones(3, requires_grad=True) * 2).sum(),
    "view_grad_fn": lambda L: L.arange(6.0, requires_grad=True).view(2, 3),
    "float64_grad_fn": lambda L: L.tensor([1.0, 2.0], dtype=L.float64, requires_grad=True) * 2,
    "float64_requires_grad": lambda L: L.tensor([1.5, 2.0], dtype=L.float64, requires_grad=True),
    "float16_requires_grad": lambda L: L.tensor([1.5, 2.0], dtype=L.float16, requires_grad=True),
    "no_grad_result": lambda L: _no_grad(L, lambda: L.ones(2, requires_grad=True) * 2),
    "detached": lambda L: (L.ones(2, requires_grad=True) * 2).detach(),
    # dtypes
    "float64": lambda L: L.tensor([1.0, 0.0, 3.0], dtype=L.float64),
    "float64_fraction": lambda L: L.tensor([1.25, -0.5], dtype=L.float64),
    "int32": lambda L: L.tensor([1, 0, 3], dtype=L.int32),
    "int16": lambda L: L.tensor([-7, 300], dtype=L.int16),
    "int8": lambda L: L.tensor([-7, 100], dtype=L.int8),
    "uint8": lambda L: L.tensor([1, 0, 255], dtype=L.uint8),
    "float16": lambda L: L.tensor([1.0, 0.5, 3.0], dtype=L.float16),
    "float16_fraction": lambda L: L.tensor([0.1, 1000.0], dtype=L.float16),
    "int64": lambda L: L.tensor([1, 0, 3]),
    "int64_wide": lambda L: L.tensor([1, -20, 3000000]),
    "bool": lambda L: L.tensor([True, False, True]),
    "bool_2d": lambda L: L.tensor([[True], [False]]),
    # empty tensors
    "empty_float32": lambda L: L.zeros(0),
    "empty_float64": lambda L: L.zeros(0, dtype=L.float64),
    "empty_int64": lambda L: L.zeros(0, dtype=L.int64),
    "empty_int32": lambda L: L.zeros(0, dtype=L.int32),
    "empty_bool": lambda L: L.zeros(0, dtype=L.bool),
    "empty_uint8": lambda L: L.zeros(0, dtype=L.uint8),
    "empty_float16": lambda L: L.zeros(0, dtype=L.float16),
    "empty_2d": lambda L: L.zeros(2, 0),
    "empty_2d_int64": lambda L: L.zeros(0, 3, dtype=L.int64),
    "empty_3d": lambda L: L.zeros(2, 0, 3),
    "empty_list": lambda L: L.tensor([]),
    "empty_requires_grad": lambda L: L.zeros(0, requires_grad=True),
    # 0-d
    "0d_float": lambda L: L.tensor(3.5),
    "0d_whole_float": lambda L: L.tensor(3.0),
    "0d_int": lambda L: L.tensor(7),
    "0d_bool": lambda L: L.tensor(False),
    "0d_float64": lambda L: L.tensor(2.25, dtype=L.float64),
    "0d_int32": lambda L: L.tensor(-4, dtype=L.int32),
    "0d_nan": lambda L: L.tensor(NAN),
    "0d_small": lambda L: L.tensor(1e-10),
    # 2-D, 3-D
    "2d_fractions": lambda L: L.arange(12.0).reshape(3, 4) / 7,
    "2d_ints": lambda L: L.arange(12).reshape(3, 4) - 5,
    "2d_column": lambda L: L.tensor([[1.5], [-2.0], [300.0]]),
    "2d_eye": lambda L: L.eye(3),
    "3d_ints": lambda L: L.arange(24).reshape(2, 3, 4),
    "3d_floats": lambda L: L.arange(24.0).reshape(2, 3, 4) * 1.5,
    "3d_float64": lambda L: L.arange(8, dtype=L.float64).reshape(2, 2, 2) / 3,
    "3d_requires_grad": lambda L: L.ones(2, 1, 2, requires_grad=True),
    "4d": lambda L: L.arange(16).reshape(2, 2, 2, 2),
    # large, summarised
    "arange_2000": lambda L: L.arange(2000.0),
    "arange_2000_int": lambda L: L.arange(2000),
    "arange_1000": lambda L: L.arange(1000.0),
    "arange_1001": lambda L: L.arange(1001.0),
    "big_2d_int": lambda L: L.arange(2000).reshape(40, 50),
    "big_2d_float": lambda L: L.arange(3000.0).reshape(3, 1000) / 3,
    "big_3d": lambda L: L.arange(2400.0).reshape(12, 10, 20),
    "big_requires_grad": lambda L: L.arange(2000.0, requires_grad=True) * 2,
    "big_float64": lambda L: L.arange(1500, dtype=L.float64) / 7,
    # special values
    "nan_inf": lambda L: L.tensor([NAN, INF, -INF, 1.5]),
    "nan_one": lambda L: L.tensor([NAN, 1.0]),
    "only_inf": lambda L: L.tensor([INF, -INF]),
    "inf_int_like": lambda L: L.tensor([INF, 2.0, 3.0]),
    "nan_2d": lambda L: L.tensor([[NAN, 2.0], [3.5, INF]]),
    "nan_float64": lambda L: L.tensor([NAN, 1e-9], dtype=L.float64),
    "sci_mode": lambda L: L.tensor([1e-8, 1e8, 1.0]),
    "small_values": lambda L: L.tensor([1e-5, 2e-5]),
    "negative": lambda L: L.tensor([-1.5, 2.25]),
    "negative_zero": lambda L: L.tensor([-0.0, 1.0]),
    "large_whole": lambda L: L.tensor([1e10, 1.0]),
    "linewrap": lambda L: L.linspace(-1, 1, 17),
}


@pytest.mark.parametrize("name", list(CASES))
def test_prints_like_torch(name):
    assert_prints_like_torch(CASES[name])


def _no_grad(L, fn):
    with L.no_grad():
        return fn()


def test_grad_fn_suffix():
    y = cr.ones(2, requires_grad=True) * 2
    assert repr(y) == "tensor([2., 2.], grad_fn=<MulBackward0>)"
    assert repr(y.sum()) == "tensor(4., grad_fn=<SumBackward0>)"
    assert repr(cr.ones(1, requires_grad=True)) == "tensor([1.], requires_grad=True)"


def test_printed_gradients_of_the_tutorials(capsys):
    def run(L):
        x = L.ones(2, 2, requires_grad=True)
        out = ((x + 2) * (x + 2) * 3).mean()
        out.backward()
        print(x.grad)
        print(out)
        x = L.tensor([0.5, -1.0, 0.75], requires_grad=True)
        y = x * 2
        while y.data.norm() < 1000:
            y = y * 2
        y.backward(L.FloatTensor([0.1, 1.0, 0.0001]))
        print(x.grad)
        print(x.grad.dtype, x.grad.shape)

    run(cr)
    ours = capsys.readouterr().out
    run(torch)
    theirs = capsys.readouterr().out
    assert ours == theirs
    assert ours.splitlines()[:2] == ["tensor([[4.5000, 4.5000],", "        [4.5000, 4.5000]])"]
    assert "tensor([1.0240e+02, 1.0240e+03, 1.0240e-01])" in ours


DEFAULT_FLOAT64_CASES = {
    "float64_hidden": lambda L: L.tensor([1.5, 2.0]),
    "float64_explicit_hidden": lambda L: L.tensor([1.5, 2.0], dtype=L.float64),
    "float32_shown": lambda L: L.tensor([1.5, 2.0], dtype=L.float32),
    "float32_0d_shown": lambda L: L.tensor(1.0, dtype=L.float32),
    "float16_shown": lambda L: L.tensor(1.0, dtype=L.float16),
    "empty_default": lambda L: L.zeros(0),
    "empty_float32": lambda L: L.zeros(0, dtype=L.float32),
    "empty_int64": lambda L: L.zeros(0, dtype=L.int64),
    "int64": lambda L: L.arange(3),
    "bool": lambda L: L.tensor([True]),
    "grad_fn": lambda L: L.ones(2, requires_grad=True) * 2,
    "float32_grad_fn": lambda L: L.ones(2, dtype=L.float32, requires_grad=True) * 2,
    "requires_grad": lambda L: L.ones(2, requires_grad=True),
    "fractions": lambda L: L.arange(6.0).reshape(2, 3) / 7,
    "big": lambda L: L.arange(2000.0),
}


@pytest.mark.parametrize("name", list(DEFAULT_FLOAT64_CASES))
def test_prints_like_torch_with_default_float64(name):
    def make(L):
        L.set_default_dtype(L.float64)
        try:
            t = DEFAULT_FLOAT64_CASES[name](L)
            return repr(t), str(t)
        finally:
            L.set_default_dtype(L.float32)

    assert make(cr) == make(torch)


def test_float64_default_hides_float64_and_shows_float32():
    cr.set_default_dtype(cr.float64)
    try:
        assert repr(cr.tensor([1.5])) == "tensor([1.5000])"
        assert repr(cr.tensor([1.5], dtype=cr.float32)) == "tensor([1.5000], dtype=torch.float32)"
    finally:
        cr.set_default_dtype(cr.float32)
    assert repr(cr.tensor([1.5], dtype=cr.float64)) == "tensor([1.5000], dtype=torch.float64)"


def test_print_options_apply_to_tensors():
    def make(L):
        L.set_printoptions(precision=2)
        try:
            return repr(L.tensor([1.23456, 2.0])), repr(L.arange(10.0) / 3)
        finally:
            L.set_printoptions(profile="default")

    assert make(cr) == make(torch)


def test_format_of_0d_tensors():
    for L in (cr, torch):
        assert f"{L.tensor(2.5):.2f}" == "2.50"
        assert f"{L.tensor(3)}" == "3"
    assert f"{cr.tensor([1.0, 2.0])}" == f"{torch.tensor([1.0, 2.0])}"
