"""Arithmetic against PyTorch: add, sub, rsub, mul, div (with ``rounding_mode``), neg,
pow in every scalar/tensor form, float_power, remainder, fmod, floor_divide, ``where``,
and Python's operators on tensors (reciprocal and the comparisons run over random shapes
in test_properties.py).

Forward values, output dtypes, node names and gradients (float32 and float64,
broadcasting, 0-d and empty inputs, Python numbers), float64 finite differences,
forward-mode tangents, second derivatives, in-place variants on non-leaves, errors.
Each case is ``fn(lib, *tensors)`` run on both libraries by ``oracle.check``; the
parametrised tests over the case tables come from ``cases``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import cases
import chainrule as cr
from cases import I32, B, F, I, J
from oracle import (
    DT_IDS,
    FLOATS,
    NoGrad,
    check,
    check_fd,
    check_raises,
    nonzero,
    pair_id,
    positive,
    randn,
    shape_id,
    values,
)
from props import (
    SETTINGS,
    broadcast_pairs,
    seeds,
    shapes,
    values_for,
)

# ----- binary operators on tensors, with broadcasting -------------------------------------


BROADCAST_PAIRS = [
    ((3, 4), (3, 4)),
    ((3, 1), (1, 4)),
    ((2, 3, 4), (4,)),
    ((4,), (2, 3, 4)),
    ((), (3,)),
    ((5,), ()),
    ((), ()),
    ((4, 1, 3), (2, 1)),
    ((0,), (0,)),
    ((2, 0), (2, 1)),
    ((2, 0), ()),
    ((0, 3), (3,)),
]

OPERATORS = {
    "add": lambda lib, a, b: a + b,
    "sub": lambda lib, a, b: a - b,
    "mul": lambda lib, a, b: a * b,
    "div": lambda lib, a, b: a / b,
    "pow": lambda lib, a, b: a**b,
    "add_fn": lambda lib, a, b: lib.add(a, b),
    "add_alpha": lambda lib, a, b: lib.add(a, b, alpha=2.5),
    "sub_fn": lambda lib, a, b: lib.sub(a, b),
    "sub_alpha": lambda lib, a, b: a.sub(b, alpha=-2),
    "mul_fn": lambda lib, a, b: lib.mul(a, b),
    "div_fn": lambda lib, a, b: lib.div(a, b),
    "div_method": lambda lib, a, b: a.div(b),
    "pow_fn": lambda lib, a, b: lib.pow(a, b),
    "pow_method": lambda lib, a, b: a.pow(b),
}


def _binary_inputs(name: str, sa, sb):
    if name.startswith("pow"):
        return positive(sa, seed=1), randn(sb, seed=2)
    if name.startswith("div"):
        return randn(sa, seed=1), nonzero(sb, seed=2)
    return randn(sa, seed=1), randn(sb, seed=2)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("shapes", BROADCAST_PAIRS, ids=pair_id)
@pytest.mark.parametrize("name", list(OPERATORS))
def test_binary_tensor_tensor(name, shapes, dtype):
    a, b = _binary_inputs(name, *shapes)
    check(OPERATORS[name], a, b, dtype=dtype)


@pytest.mark.parametrize(
    "shapes", [p for p in BROADCAST_PAIRS if 0 not in p[0] + p[1]], ids=pair_id
)
@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "pow", "add_alpha", "sub_alpha"])
def test_binary_fd(name, shapes):
    a, b = _binary_inputs(name, *shapes)
    check_fd(OPERATORS[name], a, b)


def test_binary_same_tensor_both_sides():
    """x * x, x / x, x - x, x ** x: both uses' gradients add up."""
    for fn in (
        lambda lib, x: x * x,
        lambda lib, x: x / x,
        lambda lib, x: x - x,
        lambda lib, x: x + x,
        lambda lib, x: x**x,
    ):
        check(fn, positive((3, 2)), dtype=np.float64)
        check_fd(fn, positive((3, 2)))


def test_binary_mixed_float_dtypes():
    """float32 (3,4) op float64 (4,) -> float64; each grad keeps its input's dtype.

    Tolerances are float32's: torch computes some backward terms (log a for pow) on the
    float32 input before promoting.
    """
    a = positive((3, 4), seed=4).astype(np.float32)
    b = nonzero((4,), seed=5)
    for fn in OPERATORS.values():
        check(fn, a, b, rtol=2e-5, atol=2e-5)
        check(fn, b, a, rtol=2e-5, atol=2e-5)


def test_binary_one_input_without_grad():
    for name in ("add", "sub", "mul", "div", "pow"):
        a, b = _binary_inputs(name, (3, 4), (4,))
        check(OPERATORS[name], a, NoGrad(b), dtype=np.float64)
        check(OPERATORS[name], NoGrad(a), b, dtype=np.float64)


# ----- binary operators with Python scalars -----------------------------------------------


SCALAR_OPS = {
    "add_r": lambda lib, x, c: x + c,
    "add_l": lambda lib, x, c: c + x,
    "sub_r": lambda lib, x, c: x - c,
    "sub_l": lambda lib, x, c: c - x,
    "mul_r": lambda lib, x, c: x * c,
    "mul_l": lambda lib, x, c: c * x,
    "div_r": lambda lib, x, c: x / c,
    "div_l": lambda lib, x, c: c / x,
    "add_fn": lambda lib, x, c: lib.add(x, c),
    "sub_fn": lambda lib, x, c: lib.sub(x, c),
    "mul_fn": lambda lib, x, c: lib.mul(x, c),
    "div_fn": lambda lib, x, c: lib.div(x, c),
}

SCALARS = [2, -3, 2.5, -0.75]

SCALAR_SHAPES = [(3, 4), (), (5,), (0,), (2, 0)]


def _scalar_input(name: str, shape):
    return nonzero(shape, seed=3) if name == "div_l" else randn(shape, seed=3)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("shape", SCALAR_SHAPES, ids=shape_id)
@pytest.mark.parametrize("c", SCALARS, ids=repr)
@pytest.mark.parametrize("name", list(SCALAR_OPS))
def test_scalar_arithmetic(name, c, shape, dtype):
    check(SCALAR_OPS[name], _scalar_input(name, shape), c, dtype=dtype)


@pytest.mark.parametrize("c", SCALARS, ids=repr)
@pytest.mark.parametrize("name", list(SCALAR_OPS))
def test_scalar_arithmetic_fd(name, c):
    check_fd(SCALAR_OPS[name], _scalar_input(name, (2, 3)), c)


# ----- pow: scalar exponents and bases, zeros ---------------------------------------------


POW_EXPONENTS = [2, 3, -1, 0, 1, 2.5, 0.5, -1.5, 0.0]


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("shape", [(3, 4), (), (0,)], ids=shape_id)
@pytest.mark.parametrize("exponent", POW_EXPONENTS, ids=repr)
def test_pow_scalar_exponent(exponent, shape, dtype):
    x = positive(shape, seed=4)
    check(lambda lib, x: x**exponent, x, dtype=dtype)
    check(lambda lib, x: lib.pow(x, exponent), x, dtype=dtype)
    check(lambda lib, x: x.pow(exponent), x, dtype=dtype)


@pytest.mark.parametrize("exponent", [2, 3, -2], ids=repr)
def test_pow_integer_exponent_negative_base(exponent):
    check(lambda lib, x: x**exponent, nonzero((3, 4), seed=4), dtype=np.float32)
    check(lambda lib, x: x**exponent, nonzero((3, 4), seed=4), dtype=np.float64)
    check_fd(lambda lib, x: x**exponent, nonzero((3, 4), seed=4))


@pytest.mark.parametrize("exponent", POW_EXPONENTS, ids=repr)
def test_pow_scalar_exponent_fd(exponent):
    check_fd(lambda lib, x: x**exponent, positive((2, 3), seed=4))


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("shape", [(3, 4), (), (0,)], ids=shape_id)
@pytest.mark.parametrize("base", [2, 2.5, 0.5, 1, 0], ids=repr)
def test_pow_scalar_base(base, shape, dtype):
    """base ** x; for base 0 only x >= 0 (see the negative-exponent case below)."""
    x = np.abs(randn(shape, seed=6)) if base == 0 else randn(shape, seed=6)
    check(lambda lib, x: base**x, x, dtype=dtype)
    check(lambda lib, x: lib.pow(base, x), x, dtype=dtype)


@pytest.mark.parametrize("base", [2, 2.5, 0.5], ids=repr)
def test_pow_scalar_base_fd(base):
    check_fd(lambda lib, x: base**x, randn((2, 3), seed=6))


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("exponent", [0, 0.0], ids=repr)
def test_pow_zero_exponent(exponent, dtype):
    """d/dx x**0 = 0 everywhere, x = 0 included."""
    res = check(lambda lib, x: x**exponent, np.array([0.0, -1.0, 2.0, 0.0]), dtype=dtype)
    np.testing.assert_array_equal(res.cr_inputs[0].grad.numpy(force=True), 0.0)
    np.testing.assert_array_equal(res.cr_out.numpy(force=True), 1.0)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_pow_scalar_exponent_at_zero_base(dtype):
    x = np.array([0.0, 0.0, 1.0])
    for exponent in (1, 2, 3, 0.5, 1.5):
        check(lambda lib, x, e=exponent: x**e, x, dtype=dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_pow_tensor_zero_base_and_zero_exponent(dtype):
    """a ** b with zeros in a and in b (b >= 0 where a == 0)."""
    a = np.array([0.0, 0.0, 0.0, 2.0, 2.0, 1.5, 0.0])
    b = np.array([0.0, 2.0, 0.5, 0.0, -1.0, 3.0, 1.0])
    res = check(lambda lib, a, b: a**b, a, b, dtype=dtype)
    np.testing.assert_array_equal(res.cr_out.numpy(force=True)[[0, 3]], 1.0)
    check(lambda lib, a, b: lib.pow(a, b), a, b, dtype=dtype)
    # broadcast: one exponent row containing 0 against bases containing 0
    check(
        lambda lib, a, b: a**b,
        np.array([[0.0], [1.0], [3.0]]),
        np.array([0.0, 1.0, 2.0]),
        dtype=dtype,
    )


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_pow_zero_base_negative_exponent(dtype):
    """0 ** b for b < 0 is inf; PyTorch's exponent gradient there is grad * inf * log(0)
    (= ∓inf), zeroed only where b >= 0."""
    a = np.array([0.0, 0.0, 2.0])
    b = np.array([-1.0, -0.5, -1.0])
    check(lambda lib, a, b: a**b, a, b, dtype=dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_pow_scalar_zero_base_negative_exponent(dtype):
    """0 ** x with x < 0: PyTorch's gradient is grad * inf * log(0) where x < 0."""
    check(lambda lib, x: 0**x, np.array([-1.0, -2.0, 0.0, 1.0]), dtype=dtype)


def test_pow_tensor_fd():
    check_fd(lambda lib, a, b: a**b, positive((3, 1), seed=9), randn((4,), seed=10))
    check_fd(lambda lib, a, b: a**b, positive((), seed=9), randn((2, 3), seed=10))


# ----- function and method forms (the first ops) ------------------------------------------


FORMS = {
    "neg": (lambda lib, x: lib.neg(x), lambda lib, x: -x, "any"),
    "neg_method": (lambda lib, x: x.neg(), lambda lib, x: x.negative(), "any"),
}

test_function_and_method = cases.function_and_method(FORMS)

test_function_and_method_fd = cases.function_and_method_fd(FORMS)


# ----- where ------------------------------------------------------------------------------


WHERE_CASES = {
    "same_shape": (lambda lib, c, a, b: lib.where(c, a, b), [(3, 4), (3, 4), (3, 4)]),
    "broadcast": (lambda lib, c, a, b: lib.where(c, a, b), [(3, 1), (1, 4), ()]),
    "broadcast_cond": (lambda lib, c, a, b: lib.where(c, a, b), [(4,), (3, 4), (3, 1)]),
    "method": (lambda lib, c, a, b: a.where(c, b), [(3, 4), (3, 4), (4,)]),
    "scalar_other": (lambda lib, c, a, b: lib.where(c, a, 0.0) * b, [(3, 4), (3, 4), (3, 4)]),
    "scalar_input": (lambda lib, c, a, b: lib.where(c, 2.5, a) + b, [(3, 4), (4,), ()]),
    "0d": (lambda lib, c, a, b: lib.where(c, a, b), [(), (), ()]),
    "empty": (lambda lib, c, a, b: lib.where(c, a, b), [(0,), (0,), (1,)]),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", list(WHERE_CASES))
def test_where(name, dtype):
    fn, (sc, sa, sb) = WHERE_CASES[name]
    cond = randn(sc, seed=28) > 0
    check(fn, np.asarray(cond), randn(sa, seed=29), randn(sb, seed=30), dtype=dtype)


@pytest.mark.parametrize("name", [n for n in WHERE_CASES if n != "empty"])
def test_where_fd(name):
    fn, (sc, sa, sb) = WHERE_CASES[name]
    cond = np.asarray(randn(sc, seed=28) > 0)
    check_fd(fn, cond, randn(sa, seed=29), randn(sb, seed=30))


def test_where_condition_from_input():
    """The classic safe pattern: where(x > 0, x, x * 0.1)."""
    x = nonzero((3, 4), seed=31)
    check(lambda lib, x: lib.where(x > 0, x, x * 0.1), x, dtype=np.float32)
    check_fd(lambda lib, x: lib.where(x > 0, x.exp(), x * 0.1), x)


# ----- one input: values, node names, gradients, finite differences, tangents -------------


UNARY = {
    "float_power": (lambda L, x: L.float_power(x, 3), "any"),
    "float_power_method": (lambda L, x: x.float_power(1.5), "pos"),
    "rfloat_power": (lambda L, x: L.float_power(2.0, x), "any"),
}

test_unary_matches_torch = cases.unary_matches_torch(UNARY)

# the other names of arithmetic ops
OTHER_NAMES = {
    "pos": (lambda L, x: +x, randn((2, 3))),
    "absolute": (lambda L, x: L.absolute(x), nonzero((2, 3))),
    "rsub": (lambda L, x, y: L.rsub(x, y, alpha=2), randn((2, 3)), randn((3,), 1)),
    "type_as": (lambda L, x: x.type_as(L.zeros((), dtype=L.float32)), randn((2, 3))),
}

test_other_names_match_torch = cases.matches_torch(OTHER_NAMES)

test_unary_finite_differences = cases.unary_finite_differences(UNARY)

test_unary_tangents_match_torch = cases.unary_tangents_match_torch(UNARY, sorted(UNARY))


# ----- two inputs, broadcasting -----------------------------------------------------------


BINARY = {
    "remainder": (lambda L, a, b: L.remainder(a, b), "wide", "nonzero"),
    "mod_operator": (lambda L, a, b: a % b, "wide", "nonzero"),
    "fmod": (lambda L, a, b: L.fmod(a, b), "wide", "nonzero"),
    "fmod_method": (lambda L, a, b: a.fmod(b), "wide", "nonzero"),
    "div_floor": (lambda L, a, b: L.div(a, b, rounding_mode="floor"), "wide", "nonzero"),
    "div_trunc": (lambda L, a, b: a.div(b, rounding_mode="trunc"), "wide", "nonzero"),
    "divide_floor": (lambda L, a, b: L.divide(a, b, rounding_mode="floor"), "wide", "nonzero"),
    "float_power_tensors": (lambda L, a, b: L.float_power(a, b), "pos", "any"),
}

# floor_divide has no derivative in PyTorch: forward only (backward raises, tested below)
FORWARD_ONLY_BINARY = {
    "floor_divide": (lambda L, a, b: L.floor_divide(a, b), "wide", "nonzero"),
    "floordiv_operator": (lambda L, a, b: a // b, "wide", "nonzero"),
}

test_binary_matches_torch = cases.binary_matches_torch(BINARY, FORWARD_ONLY_BINARY)

test_binary_finite_differences = cases.binary_finite_differences(BINARY)

test_binary_tangents_match_torch = cases.binary_tangents_match_torch(BINARY)


# ----- Python numbers as operands ---------------------------------------------------------


SCALAR_OPERANDS = {
    "remainder": (lambda L, x: L.remainder(x, 1.5), True),
    "mod_negative": (lambda L, x: x % -1.3, True),
    "remainder_int_scalar": (lambda L, x: x.remainder(2), True),
    "fmod": (lambda L, x: L.fmod(x, 1.3), True),
    "fmod_negative": (lambda L, x: x.fmod(-0.9), True),
    "div_floor": (lambda L, x: L.div(x, 0.7, rounding_mode="floor"), True),
    "div_trunc": (lambda L, x: x.div(-0.7, rounding_mode="trunc"), True),
    "div_floor_number_first": (lambda L, x: L.div(2.0, x, rounding_mode="floor"), True),
    "floor_divide": (lambda L, x: L.floor_divide(x, 0.7), False),
    "floordiv": (lambda L, x: x // -0.7, False),
    "rfloordiv": (lambda L, x: 2 // x, False),
    "rmod": (lambda L, x: 2.5 % x, False),
    "remainder_number_first": (lambda L, x: L.remainder(3, x), False),
}

test_python_number_operands = cases.python_number_operands(SCALAR_OPERANDS)


# ----- integer and bool inputs: dtypes as PyTorch's, no gradient --------------------------


NO_GRAD = {
    "remainder_int": (lambda L, a, b: L.remainder(a, b), I, J),
    "remainder_int_scalar": (lambda L, a: a % 3, I),
    "remainder_int_float_scalar": (lambda L, a: L.remainder(a, 2.5), I),
    "rmod_int": (lambda L, b: 7 % b, J),
    "remainder_number_first": (lambda L, b: L.remainder(2.5, b), J),
    "fmod_int": (lambda L, a, b: L.fmod(a, b), I, J),
    "fmod_int_scalar": (lambda L, a: a.fmod(-3), I),
    "floor_divide_int": (lambda L, a, b: L.floor_divide(a, b), I, J),
    "floordiv_int_scalar": (lambda L, a: a // 3, I),
    "rfloordiv_int": (lambda L, b: 7 // b, J),
    "div_floor_int": (lambda L, a, b: L.div(a, b, rounding_mode="floor"), I, J),
    "div_trunc_int": (lambda L, a, b: L.div(a, b, rounding_mode="trunc"), I, J),
    "div_trunc_int_scalar": (lambda L, a: a.div(-3, rounding_mode="trunc"), I),
    "div_trunc_int32": (lambda L, a: L.div(a, 4, rounding_mode="trunc"), I32),
    "div_trunc_int_float": (lambda L, a: L.div(a, 2.5, rounding_mode="trunc"), I),
    "float_power_int": (lambda L, a: L.float_power(a, 2), I),
}

test_integer_and_bool_inputs_match_torch = cases.matches_torch(NO_GRAD)


# ----- second derivatives -----------------------------------------------------------------


SECOND = {
    "remainder": (lambda L, a, b: L.remainder(a, b) * b, ["wide", "nonzero"]),
}

test_second_derivatives_match_torch = cases.second_derivatives_match_torch(SECOND)


# ----- in place on a non-leaf -------------------------------------------------------------


INPLACE = {
    "remainder_": (lambda L, x: (x * 3).remainder_(x * 0 + 1.3), "any"),
    "imod": (lambda L, x: _imod(x * 3), "any"),
    "fmod_": (lambda L, x: (x * 3).fmod_(0.7), "any"),
    "div_floor_": (lambda L, x: (x * 3).div_(0.7, rounding_mode="floor") + x, "any"),
    "iadd_isub_imul_itruediv_ipow": (lambda L, x: _iarith(x * 3, x), "pos"),
    "float_power_": (lambda L, x: (x.double() * 2).float_power_(1.5), "pos"),
}


def _iarith(y, x):
    y += x
    y -= 0.5
    y *= x
    y /= 1.5
    y **= 2
    return y


def _imod(y):
    y %= 1.3
    return y


test_inplace_on_a_non_leaf_matches_torch = cases.inplace_on_a_non_leaf_matches_torch(INPLACE)


# ----- errors as PyTorch's ----------------------------------------------------------------


ERRORS = {
    "remainder_bool": (lambda L, a: a % a, B),
    "div_floor_bool": (lambda L, a: L.div(a, a, rounding_mode="floor"), B),
    "div_bad_mode": (lambda L, a: L.div(a, 2, rounding_mode="round"), F),
    "remainder_int_zero": (lambda L, a: L.remainder(a, 0), I),
    "fmod_int_zero": (lambda L, a: L.fmod(a, a * 0), I),
    "floor_divide_int_zero": (lambda L, a: a // 0, I),
    "div_trunc_int_zero": (lambda L, a: L.div(a, 0, rounding_mode="trunc"), I),
    "fmod_number_first": (lambda L, a: L.fmod(2, a), F),
    "sub_bools": (lambda L, a: a - a, B),
    "sub_bool_int": (lambda L, a: L.tensor(I) - a, B),
    "sub_bool_scalar": (lambda L, a: a - True, F),
    "rsub_bool_scalar": (lambda L, a: True - a, F),
    "pow_bools": (lambda L, a: a**a, B),
    "rpow_bool": (lambda L, a: True**a, B),
    "add_float_alpha_int": (lambda L, a: L.add(a, a, alpha=0.5), I),
    "add_bool_alpha_float": (lambda L, a: L.add(a, a, alpha=True), F),
    "float_power_inplace_float32": (lambda L, a: a.float().float_power_(2), F),
}

test_errors_match_torch = cases.raises_like_torch(ERRORS, sort=True)


# ----- ops without a derivative -----------------------------------------------------------


def test_ops_without_a_derivative_raise_in_backward_as_torch():
    x = values("nonzero", (3,), 0)
    for fn in (
        lambda L, x: L.floor_divide(x, 0.7).sum().backward(),
        lambda L, x: (2 // x).sum().backward(),
        lambda L, x: (2.5 % x).sum().backward(),
    ):
        assert check_raises(fn, x) is RuntimeError


def test_forward_mode_without_a_derivative_raises():
    fwd = cr.autograd.forward_ad
    with fwd.dual_level():
        x = fwd.make_dual(cr.tensor([1.5, 2.5]), cr.ones(2))
        with pytest.raises(NotImplementedError, match="floor_divide"):
            cr.floor_divide(x, 2)


# ----- errors of the first ops ------------------------------------------------------------


I64 = np.array([1, 2, -3], dtype=np.int64)

BOOL = np.array([True, False, True])

RAISES = {
    "neg(bool)": (lambda lib, a: -a, BOOL),
    "bool-bool": (lambda lib, a, b: a - b, BOOL, BOOL),
    "int**-1": (lambda lib, a: a**-1, I64),
    "broadcast_mismatch": (lambda lib, a, b: a + b, randn((3,)), randn((4,))),
}

test_raises_like_torch = cases.raises_like_torch(RAISES)


# ----- property tests: random broadcast shapes and Python scalars -------------------------


PROPERTY_OPS = {
    "add": (lambda lib, a, b: a + b, "any", "any"),
    "sub": (lambda lib, a, b: a - b, "any", "any"),
    "mul": (lambda lib, a, b: a * b, "any", "any"),
    "div": (lambda lib, a, b: a / b, "any", "nonzero"),
    "pow": (lambda lib, a, b: a**b, "positive", "any"),
}


@SETTINGS
@given(op=st.sampled_from(sorted(PROPERTY_OPS)), shapes=broadcast_pairs, seed=seeds)
def test_binary_broadcast_matches_torch(op, shapes, seed):
    fn, ka, kb = PROPERTY_OPS[op]
    sa, sb = shapes.input_shapes
    check(fn, values_for(sa, seed, ka), values_for(sb, seed + 1, kb), dtype=np.float64)


@SETTINGS
@given(
    op=st.sampled_from(sorted(PROPERTY_OPS)),
    shape=shapes,
    scalar=st.one_of(
        st.integers(-3, 3), st.floats(-3, 3, allow_nan=False).map(lambda f: round(f, 3))
    ),
    left=st.booleans(),
    seed=seeds,
)
def test_binary_with_python_scalar_matches_torch(op, shape, scalar, left, seed):
    fn, ka, kb = PROPERTY_OPS[op]
    if left:  # scalar op tensor
        if op == "pow" and scalar <= 0:
            scalar = abs(scalar) + 0.5
        x = values_for(shape, seed, kb)
        check(lambda lib, x: fn(lib, scalar, x), x, dtype=np.float64)
    else:  # tensor op scalar
        if op == "div" and scalar == 0:
            scalar = 1.5
        x = values_for(shape, seed, ka)
        check(lambda lib, x: fn(lib, x, scalar), x, dtype=np.float64)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_remainder_keeps_the_dividends_sign_of_zero_as_torch(dtype):
    """PyTorch's remainder is fmod moved by b where the signs differ: a zero result keeps
    a's sign (-0 % 3 is -0, 0 % -3 is 0), where NumPy's takes b's; infinities and tiny
    values as PyTorch's."""
    import torch

    vals = [-0.0, 0.0, -2.0, 2.0, 5.0, -5.0, 7.5, -7.5, np.inf, -np.inf, 1e-30, -1e-30]
    a, b = np.array(vals, dtype)[:, None], np.array(vals, dtype)[None, :]
    ours = cr.remainder(cr.tensor(a), cr.tensor(b)).numpy(force=True)
    theirs = torch.remainder(torch.tensor(a), torch.tensor(b)).numpy()
    np.testing.assert_array_equal(ours, theirs)  # (nan where the two are nan)
    number = ~np.isnan(theirs)
    np.testing.assert_array_equal(np.signbit(ours)[number], np.signbit(theirs)[number])
    assert str((cr.tensor([-0.0, 0.0]) % 3.0).cpu()) == str((torch.tensor([-0.0, 0.0]) % 3.0).cpu())
