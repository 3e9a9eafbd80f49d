"""Logical and bitwise ops against PyTorch: logical_*, bitwise_* and the operators
``~ & | ^``, the shifts, isnan/isinf/isfinite/isposinf/isneginf/signbit/isreal, isclose,
allclose and equal. Their results are bool or integer: dtypes and values as PyTorch's,
no gradient; in-place variants; errors.
"""

from __future__ import annotations

import numpy as np
import torch

import cases
import chainrule as cr
from cases import I32, B, C, F, I, J
from oracle import (
    NoGrad,
    check,
)

# ----- integer and bool inputs: dtypes as PyTorch's, no gradient --------------------------


NO_GRAD = {
    "logical_and": (lambda L, a, b: L.logical_and(a, b), B, C),
    "logical_and_mixed": (lambda L, a, b: L.logical_and(a, b), I, F),
    "logical_or": (lambda L, a, b: a.logical_or(b), I, C),
    "logical_xor": (lambda L, a, b: L.logical_xor(a, b), F, B),
    "logical_not_int": (lambda L, a: L.logical_not(a), I),
    "logical_not_float": (lambda L, a: a.logical_not(), NoGrad(F)),
    "isnan": (lambda L, a: L.isnan(a), NoGrad(F)),
    "isnan_int": (lambda L, a: a.isnan(), I),
    "isinf": (lambda L, a: L.isinf(a), NoGrad(F)),
    "isinf_bool": (lambda L, a: L.isinf(a), B),
    "isfinite": (lambda L, a: a.isfinite(), NoGrad(F)),
    "invert_bool": (lambda L, a: ~a, B),
    "invert_int": (lambda L, a: ~a, I),
    "and_bool": (lambda L, a, b: a & b, B, C),
    "and_bool_scalar": (lambda L, a: a & True, B),
    "rand_bool_scalar": (lambda L, a: True & a, B),
    "and_int_bool": (lambda L, a, b: a & b, I, C),
    "and_int_scalar": (lambda L, a: a & 3, I),
    "or_bool": (lambda L, a, b: a | b, B, C),
    "or_bool_int_scalar": (lambda L, a: a | 1, B),
    "xor_bool": (lambda L, a, b: a ^ b, B, C),
    "rxor_int": (lambda L, a: 5 ^ a, I),
    "bitwise_and_int32": (lambda L, a: L.bitwise_and(a, 6), I32),
    "bitwise_not": (lambda L, a: L.bitwise_not(a), I32),
    "signbit": (lambda L, a: L.signbit(a), NoGrad(np.array([-0.0, 0.0, -1.0, np.nan]))),
    "signbit_int": (lambda L, a: a.signbit(), I),
    "isposinf": (lambda L, a: L.isposinf(a), NoGrad(F)),
    "isneginf": (lambda L, a: a.isneginf(), NoGrad(-F)),
    "isreal": (lambda L, a: L.isreal(a), NoGrad(F)),
    "isclose": (lambda L, a, b: L.isclose(a, b), NoGrad(F), NoGrad(F + 1e-9)),
    "lshift": (lambda L, a, b: a << b.abs(), I, J),
    "rshift_scalar": (lambda L, a: a >> 1, I),
    "rlshift": (lambda L, b: 2 << b.abs(), J),
    "lshift_wide": (lambda L, a: L.bitwise_left_shift(a, 64), I),
    "rshift_wide": (lambda L, a: a.bitwise_right_shift(70), I),
    "lshift_uint8": (lambda L, a: a.to(L.uint8) << 9, I),
    "lshift_bool_scalar": (lambda L, a: a << 1, B),
    "ilshift": (lambda L, a: _ilshift(a.clone()), I),
    "isclose_nan": (lambda L, a, b: a.isclose(b, equal_nan=True, atol=0.1), NoGrad(F), NoGrad(F)),
    "bitwise_or_xor": (lambda L, a, b: L.stack([L.bitwise_or(a, b), L.bitwise_xor(a, 6)]), I, J),
    "ror_rrshift": (lambda L, b: L.stack([5 | b, 64 >> b.abs()]), J),
    "eq_ne_lt_le_gt": (
        lambda L, a, b: L.stack([L.eq(a, b), L.ne(a, b), L.lt(a, b), L.le(a, 2), L.gt(a, b)]),
        I,
        J,
    ),
    "compare_inplace": (lambda L, a, b: _compare_inplace(L, a, b), I, J),
}

_COMPARE_INPLACE = (
    "eq_ ne_ not_equal_ lt_ less_ le_ less_equal_ gt_ greater_ ge_ greater_equal_".split()
)


def _compare_inplace(L, a, b):  # noqa: N803 - the library
    """Each in-place comparison of a copy of a with b: 1 or 0 in a's dtype."""
    return L.stack([getattr(a.clone(), name)(b) for name in _COMPARE_INPLACE])


def _ilshift(a):
    a <<= 2
    a >>= 1
    return a


test_integer_and_bool_inputs_match_torch = cases.matches_torch(NO_GRAD)


# ----- errors as PyTorch's ----------------------------------------------------------------


ERRORS = {
    "logical_and_scalar": (lambda L, a: L.logical_and(a, True), B),
    "isnan_number": (lambda L, a: L.isnan(2.0), B),
    "invert_float": (lambda L, a: ~a, F),
    "and_float": (lambda L, a: a & a, F),
    "and_bool_float_scalar": (lambda L, a: a & 2.0, B),
    "isclose_dtypes": (lambda L, a: L.isclose(a, a.float()), I),
    "allclose_dtypes": (lambda L, a: L.allclose(a, a.float()), F),
    "allclose_int_float": (lambda L, a: L.allclose(a.long(), a), F),
    "allclose_number": (lambda L, a: L.allclose(a, 1.0), F),
    "lshift_float": (lambda L, a: a << 1, F),
    "lshift_bools": (lambda L, a: a << a, B),
}

test_errors_match_torch = cases.raises_like_torch(ERRORS, sort=True)


# ----- bool results of float inputs, in place, allclose and equal -------------------------


def test_isnan_on_a_float_tensor_requiring_grad():
    res = check(lambda L, a: L.isnan(a), F)  # a bool result never requires grad
    assert not res.cr_out.requires_grad


def test_inplace_bool_and_integer_ops():
    def logical(L, a, b):
        a = a.clone()
        a.logical_and_(b)
        a.logical_not_()
        return a

    check(logical, B, C)

    def bitwise(L, a, b):
        a = a.clone()
        a &= b
        a |= b[..., :1] if a.ndim else b
        a ^= 3
        a //= 2
        return a

    check(bitwise, I, J)

    def int_floor(L, a):
        a = a.clone()
        a.floor_()
        return a.clamp_(-1, 2)

    check(int_floor, I)


def test_allclose_and_equal_as_torch():
    a, b = np.array([1.0, 2.0]), np.array([1.0, 2.000001])
    for x, y, kw in (
        (a, b, {}),
        (a, b, {"rtol": 0, "atol": 1e-9}),
        (a, np.stack([a, b]), {}),
        (np.array([np.nan]), np.array([np.nan]), {"equal_nan": True}),
        (np.array([np.nan]), np.array([np.nan]), {}),
        (np.array([np.inf, 1.0]), np.array([np.inf, 1.0]), {}),
    ):
        ours = cr.allclose(cr.tensor(x), cr.tensor(y), **kw)
        assert ours is torch.allclose(torch.tensor(x), torch.tensor(y), **kw)
        assert cr.tensor(x).allclose(cr.tensor(y), **kw) is ours
        assert cr.equal(cr.tensor(x), cr.tensor(y)) is torch.equal(torch.tensor(x), torch.tensor(y))
