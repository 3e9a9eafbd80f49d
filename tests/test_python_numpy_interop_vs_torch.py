"""Tensors meeting Python and NumPy values in operators, NumPy ufuncs and built-ins, as in
PyTorch: a non-numeric operand (``None``, a string, a ``Decimal``, a list) makes the
operator return ``NotImplemented``, so Python tries the other side and raises its own
TypeError (or repeats the list); a NumPy ufunc on tensors gives a tensor back."""

from __future__ import annotations

import decimal
import fractions
import operator
import warnings
from typing import Any

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import assert_close, assert_same, assert_same_error

BINARY = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "@": operator.matmul,
    "&": operator.and_, "|": operator.or_, "^": operator.xor, "<<": operator.lshift,
    ">>": operator.rshift, "==": operator.eq, "!=": operator.ne, "<": operator.lt,
    "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}  # fmt: skip

NON_NUMBERS = {
    "None": None,
    "str": "ab",
    "Decimal": decimal.Decimal("1.5"),
    "Fraction": fractions.Fraction(1, 2),
    "list": [1, 2, 3],
    "tuple": (1.0, 2.0, 3.0),
}

TENSORS = {
    "f32_grad": lambda lib: lib.tensor([1.5, -2.0, 3.0], requires_grad=True),
    "i64_0d": lambda lib: lib.tensor(3),
}


def _rounded(values: Any) -> str:
    """Values as text to 6 significant digits (NaN equals NaN)."""
    return str(np.vectorize(lambda v: f"{v:.6g}", otypes=[object])(np.asarray(values)).tolist())


def _outcome(fn: Any, lib: Any) -> tuple:
    """What ``fn(lib)`` gives: the exception (type, message), or the value described, with
    the gradient of the tensor operand when the result carries one."""
    try:
        t, result = fn(lib)
    except Exception as exc:  # noqa: BLE001 - the exception itself is compared
        return ("raises", type(exc).__name__, str(exc))
    if isinstance(result, lib.Tensor):
        grad = None
        if result.requires_grad:
            result.sum().backward()
            grad = _rounded(t.grad.tolist())
        return ("tensor", str(result.dtype), _rounded(result.detach().tolist()), grad)
    return ("value", type(result).__name__, result)


@pytest.mark.parametrize("tensor", list(TENSORS))
@pytest.mark.parametrize("other", list(NON_NUMBERS))
@pytest.mark.parametrize("op", list(BINARY))
@pytest.mark.parametrize("side", ["tensor_first", "tensor_second"])
def test_operator_with_a_non_number(op: str, other: str, tensor: str, side: str) -> None:
    f, value = BINARY[op], NON_NUMBERS[other]

    def fn(lib: Any) -> Any:
        t = TENSORS[tensor](lib)
        return t, f(t, value) if side == "tensor_first" else f(value, t)

    assert _outcome(fn, cr) == _outcome(fn, torch)


def test_list_times_integer_tensor_repeats_the_list() -> None:
    assert [1, 2] * cr.tensor(3) == [1, 2] * torch.tensor(3) == [1, 2, 1, 2, 1, 2]
    assert_same_error(lambda lib: [1, 2] * lib.tensor(2.0))
    assert (cr.tensor([1, 2]) == [1, 2]) is (torch.tensor([1, 2]) == [1, 2]) is False


def test_power_by_a_fraction_goes_through_float() -> None:
    def fn(lib: Any) -> Any:
        t = lib.tensor([1.5, 2.0, 3.0], requires_grad=True)
        y = t ** fractions.Fraction(1, 2)
        y.sum().backward()
        return y, t.grad

    got, want = fn(cr), fn(torch)
    assert_same(got[0], want[0])
    assert_same(got[1], want[1], "grad")


def test_pow_with_a_modulus_is_python_s_type_error() -> None:
    assert_same_error(lambda lib: pow(lib.tensor([2.0]), 2, 5))


UFUNCS = {
    "exp": lambda t: np.exp(t),
    "add": lambda t: np.add(t, 1),
    "sqrt": lambda t: np.sqrt(t),
    "maximum": lambda t: np.maximum(t, 1),
    "isfinite": lambda t: np.isfinite(t),  # bool comes back as uint8, as in PyTorch
    "greater": lambda t: np.greater(t, 0),
}
UFUNC_INPUTS = {
    "f32": lambda lib: lib.tensor([1.5, 2.0, 3.0]),
    "f32_0d": lambda lib: lib.tensor(1.5),
    "i64": lambda lib: lib.tensor([1, 0, 3]),
    "f16_0d": lambda lib: lib.tensor(2.5, dtype=lib.float16),
}


def _torch_quietly(fn: Any) -> Any:
    """PyTorch's ``__array_wrap__`` draws NumPy 2's DeprecationWarning about its signature."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return fn()


@pytest.mark.parametrize("x", list(UFUNC_INPUTS))
@pytest.mark.parametrize("ufunc", list(UFUNCS))
def test_numpy_ufunc_on_a_tensor_gives_a_tensor(ufunc: str, x: str) -> None:
    f, make = UFUNCS[ufunc], UFUNC_INPUTS[x]
    assert_same(f(make(cr)), _torch_quietly(lambda: f(make(torch))))


def test_numpy_ufunc_on_a_tensor_that_requires_grad_raises() -> None:
    def fn(lib: Any) -> Any:
        return _torch_quietly(lambda: np.exp(lib.tensor([1.0], requires_grad=True)))

    assert_same_error(fn)


def test_array_wrap_called_directly() -> None:
    for array in (np.array([1.0, 2.0]), np.array([True, False])):
        got = cr.tensor(1.0).__array_wrap__(array)
        assert_same(got, torch.tensor(1.0).__array_wrap__(array))


@pytest.mark.parametrize(
    "make", [lambda lib: lib.tensor([1.0, 2.0, 3.0]), lambda lib: lib.tensor([[1, 2], [3, 4]])]
)
def test_reversed_flips_dim_0(make: Any) -> None:
    got, want = reversed(make(cr)), reversed(make(torch))
    assert_same(got, want)
    assert_close(list(got), list(want))


def test_reversed_of_a_0d_tensor_raises_on_iteration() -> None:
    assert_same_error(lambda lib: list(reversed(lib.tensor(1.0))))


INPLACE = {
    "+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
    "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow, "&=": operator.iand,
    "|=": operator.ior, "^=": operator.ixor, "<<=": operator.ilshift, ">>=": operator.irshift,
}  # fmt: skip


@pytest.mark.parametrize("other", ["None", "str", "Decimal", "list"])
@pytest.mark.parametrize("op", list(INPLACE))
def test_inplace_operator_with_a_non_number(op: str, other: str) -> None:
    value = NON_NUMBERS[other]

    def fn(lib: Any) -> Any:
        t = lib.tensor([1.5, -2.0, 3.0])
        return t, INPLACE[op](t, value)

    assert _outcome(fn, cr) == _outcome(fn, torch)


def test_asarray_of_a_bfloat16_tensor_that_requires_grad_names_the_grad_first() -> None:
    assert_same_error(
        lambda lib: np.asarray(lib.tensor([1.5], dtype=lib.bfloat16, requires_grad=True))
    )
