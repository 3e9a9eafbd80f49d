"""PyTorch's dtype rules, against PyTorch itself, over a matrix of cases.

Every pair of the ten real dtypes chainrule has (bfloat16 among them), for each binary op, with each operand a
dimensioned tensor or a 0-d tensor; every dtype against Python bools, ints and floats on
either side; true division of integers; integer sums (int64) and means (an error); the
default dtype; and gradients, which always have their input's dtype. Also the promotion
of the first ops' cases, gradients cast back to each input's dtype, and shape ops that
keep integer dtypes.

A case passes when both libraries raise the same exception type, or both return a tensor
of the same dtype and shape with the same values.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import (
    L64,
    bf16,
    check,
    is_bf16,
    to_numpy,
    values,
)

DTYPES = [
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
]
FLOAT_DTYPES = ["bfloat16", "float16", "float32", "float64"]


def dtypes() -> list:
    """DTYPES on the device the case runs on: no bfloat16 on 'cuda' (CuPy has none)."""
    if cr.get_default_device().type == "cpu":
        return DTYPES
    return [d for d in DTYPES if d != "bfloat16"]


def array(dtype: str, zero_dim: bool, seed: int = 0) -> np.ndarray:
    """Small values of ``dtype``: nonzero (safe divisors), small (safe powers)."""
    r = np.random.default_rng(seed)
    shape = () if zero_dim else (2, 3)
    if dtype == "bool":
        return np.asarray(r.integers(0, 2, shape).astype(bool))
    if dtype.startswith(("int", "uint")):
        return np.asarray(r.integers(1, 5, shape).astype(dtype))
    if dtype == "bfloat16":  # float32 values rounded to bfloat16 (ml_dtypes' array)
        return np.asarray(r.uniform(0.5, 2.0, shape).astype(np.float32).astype(bf16()))
    return np.asarray(r.uniform(0.5, 2.0, shape).astype(dtype))


def tensor(lib, a: np.ndarray):
    """``a`` as ``lib``'s tensor; a bfloat16 array through float32, then ``.to``."""
    if is_bf16(a.dtype):
        return tensor(lib, a.astype(np.float32)).to(lib.bfloat16)
    return torch.from_numpy(a.copy()) if lib is torch else cr.tensor(a.copy())


def outcome(lib, fn, *args):
    """('raises', exception type) or ('ok', result)."""
    try:
        return ("ok", fn(lib, *args))
    except Exception as e:  # noqa: BLE001 - any exception is compared with torch's
        return ("raises", type(e))


def mismatch(ours, theirs) -> str | None:
    """Why ``ours`` (chainrule's outcome) differs from ``theirs`` (torch's), or None."""
    if theirs[0] == "raises":
        if ours[0] != "raises":
            return f"torch raises {theirs[1].__name__}, chainrule returns {ours[1].dtype}"
        if not issubclass(ours[1], theirs[1]):
            return f"torch raises {theirs[1].__name__}, chainrule {ours[1].__name__}"
        return None
    if ours[0] == "raises":
        return f"chainrule raises {ours[1].__name__}, torch returns {theirs[1].dtype}"
    got, want = ours[1], theirs[1]
    if str(got.dtype) != str(want.dtype):
        return f"dtype {got.dtype} != torch's {want.dtype}"
    if tuple(got.shape) != tuple(want.shape):
        return f"shape {tuple(got.shape)} != torch's {tuple(want.shape)}"
    g = np.asarray(to_numpy(got), dtype=np.float64)
    w = want.detach().double().numpy()
    rtol = {"torch.float16": 1e-3, "torch.bfloat16": 1e-2}.get(str(want.dtype), 1e-6)
    if not np.allclose(g, w, rtol=rtol, atol=rtol, equal_nan=True):
        return f"values {g.ravel()[:4]} != torch's {w.ravel()[:4]}"
    return None


BINARY = {
    "add": lambda L, a, b: a + b,
    "add_alpha": lambda L, a, b: L.add(a, b, alpha=2),
    "sub": lambda L, a, b: a - b,
    "mul": lambda L, a, b: a * b,
    "div": lambda L, a, b: a / b,
    "true_divide": lambda L, a, b: L.true_divide(a, b),
    "floor_divide": lambda L, a, b: a // b,
    "remainder": lambda L, a, b: a % b,
    "pow": lambda L, a, b: a**b,
    "maximum": lambda L, a, b: L.maximum(a, b),
    "minimum": lambda L, a, b: L.minimum(a, b),
    "where": lambda L, a, b: L.where(L.tensor([[True, False, True]]), a, b),
    "eq": lambda L, a, b: a == b,
    "ne": lambda L, a, b: a != b,
    "lt": lambda L, a, b: a < b,
    "ge": lambda L, a, b: L.ge(a, b),
    "atan2": lambda L, a, b: L.atan2(a, b),
    "logical_and": lambda L, a, b: L.logical_and(a, b),
    "bitwise_or": lambda L, a, b: a | b,
}
FORMS = {
    "dim_dim": (False, False),
    "dim_0d": (False, True),
    "0d_dim": (True, False),
    "0d_0d": (True, True),
}


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("op", sorted(BINARY))
def test_every_dtype_pair_promotes_as_torch(op, form):
    fn = BINARY[op]
    za, zb = FORMS[form]
    failures = []
    for da, db in itertools.product(dtypes(), dtypes()):
        a, b = array(da, za, 1), array(db, zb, 2)
        ours = outcome(cr, fn, tensor(cr, a), tensor(cr, b))
        theirs = outcome(torch, fn, tensor(torch, a), tensor(torch, b))
        why = mismatch(ours, theirs)
        if why:
            failures.append(f"{da} {op} {db}: {why}")
    assert failures == []


def test_promote_types_and_result_type_of_every_pair_as_torch():
    """``promote_types`` of every pair of dtypes (complex ones too), and ``result_type`` of
    tensors and of a tensor with a 0-d tensor of each pair: torch's dtype (bfloat16 with
    float16 is float32, bfloat16 with an integer or bool bfloat16, with complex64 complex64)."""
    names = [*DTYPES, "complex64", "complex128"]
    failures = []
    for da, db in itertools.product(names, names):
        ca, cb = getattr(cr, da), getattr(cr, db)
        ta, tb = getattr(torch, da), getattr(torch, db)
        got, want = str(cr.promote_types(ca, cb)), str(torch.promote_types(ta, tb))
        if got != want:
            failures.append(f"promote_types({da}, {db}): {got} != torch's {want}")
        for shape in [(2,), ()]:
            got = str(cr.result_type(cr.ones(2, dtype=ca), cr.ones(shape, dtype=cb)))
            want = str(torch.result_type(torch.ones(2, dtype=ta), torch.ones(shape, dtype=tb)))
            if want == "torch.complex32":  # (float16 with a 0-d complex: chainrule has no
                want = "torch.complex64"  # complex32, and keeps the complex operand's dtype)
            if got != want:
                failures.append(f"result_type({da}, {db}{shape}): {got} != torch's {want}")
    assert failures == []


SCALARS = [True, False, 0, 3, -1, 300, -200, 70000, 2.5, -0.5]
SCALAR_OPS = {
    "add": lambda L, a, s: a + s,
    "radd": lambda L, a, s: s + a,
    "sub": lambda L, a, s: a - s,
    "rsub": lambda L, a, s: s - a,
    "mul": lambda L, a, s: a * s,
    "div": lambda L, a, s: a / s if s else a / 2,
    "rdiv": lambda L, a, s: s / a,
    "pow": lambda L, a, s: a ** (s if isinstance(s, bool) or s >= 0 else -s),
    "rpow": lambda L, a, s: s**a,
    "eq": lambda L, a, s: a == s,
    "lt": lambda L, a, s: a < s,
    "gt_reflected": lambda L, a, s: s > a,
    "where_scalar": lambda L, a, s: L.where(a > 1, a, s),
    "where_scalar_first": lambda L, a, s: L.where(a > 1, s, a),
    "floordiv": lambda L, a, s: a // s if s else a // 3,
    "mod": lambda L, a, s: a % s if s else a % 3,
    "clamp_max": lambda L, a, s: L.clamp(a, max=s),
    "add_method": lambda L, a, s: a.add(s),
    "mul_function": lambda L, a, s: L.mul(a, s),
}


@pytest.mark.parametrize("zero_dim", [False, True], ids=["dim", "0d"])
@pytest.mark.parametrize("op", sorted(SCALAR_OPS))
def test_every_dtype_with_python_scalars_as_torch(op, zero_dim):
    """A Python bool, int or float with a tensor: the tensor's dtype unless the scalar is
    of a higher category (then bool, int64 or the default float dtype); ints wrap into a
    narrower integer dtype as PyTorch's do (uint8 + -1 is 255 + 1)."""
    fn = SCALAR_OPS[op]
    failures = []
    for d in dtypes():
        for s in SCALARS:
            if d == "float16" and s == 70000 and op in ("mul", "mul_function", "rdiv"):
                continue  # PyTorch computes in float32 and rounds: 44000, where 70000 is inf
            a = array(d, zero_dim, 3)
            ours = outcome(cr, fn, tensor(cr, a), s)
            theirs = outcome(torch, fn, tensor(torch, a), s)
            why = mismatch(ours, theirs)
            if why:
                failures.append(f"{d} {op} {s!r}: {why}")
    assert failures == []


NUMPY_SCALARS = [
    np.float64(2.5),
    np.float32(-0.5),
    np.float16(0.5),
    np.int64(3),
    np.int32(-1),
    np.uint8(7),
    np.bool_(True),
]
NUMPY_SCALAR_OPS = {
    **SCALAR_OPS,
    "clamp": lambda L, a, s: L.clamp(a, s, s),
    "clamp_method": lambda L, a, s: a.clamp(min=s),
    "pow_function": lambda L, a, s: L.pow(a, abs(s)),
    "rpow_function": lambda L, a, s: L.pow(s, a),
    "add_alpha": lambda L, a, s: L.add(a, a, alpha=s),
    "full": lambda L, a, s: L.full((2,), s, dtype=a.dtype),
    "masked_fill": lambda L, a, s: a.masked_fill(a > 1, s),
}


@pytest.mark.parametrize("zero_dim", [False, True], ids=["dim", "0d"])
@pytest.mark.parametrize("op", sorted(NUMPY_SCALAR_OPS))
def test_numpy_scalars_are_python_numbers_as_in_torch(op, zero_dim):
    """To PyTorch a NumPy scalar is the Python number it holds: ``ones(2) * np.sqrt(2.0)``
    stays float32 (NumPy's own promotion would make it float64), a NumPy int is an int,
    and ``np.bool_`` (not a Python bool to PyTorch's argument parser) a float."""
    fn = NUMPY_SCALAR_OPS[op]
    failures = []
    for d in dtypes():
        for s in NUMPY_SCALARS:
            a = array(d, zero_dim, 3)
            ours = outcome(cr, fn, tensor(cr, a), s)
            theirs = outcome(torch, fn, tensor(torch, a), s)
            why = mismatch(ours, theirs)
            if why:
                failures.append(f"{d} {op} {s!r}: {why}")
    assert failures == []


def test_a_numpy_float_keeps_a_float32_product_float32_for_matmul():
    def fn(L):
        return (L.ones(2, 2) * np.sqrt(2.0)) @ L.ones(2, 2)

    got, want = fn(cr), fn(torch)
    assert str(got.dtype) == str(want.dtype) == "torch.float32"
    np.testing.assert_allclose(got.numpy(force=True), want.numpy(force=True))


UNARY = {
    "exp": lambda L, a: L.exp(a),
    "sqrt": lambda L, a: a.sqrt(),
    "sin": lambda L, a: L.sin(a),
    "sigmoid": lambda L, a: L.sigmoid(a),
    "tanh": lambda L, a: a.tanh(),
    "log1p": lambda L, a: L.log1p(a),
    "reciprocal": lambda L, a: L.reciprocal(a),
    "abs": lambda L, a: L.abs(a),
    "neg": lambda L, a: -a,
    "sign": lambda L, a: L.sign(a),
    "square": lambda L, a: L.square(a),
    "relu": lambda L, a: L.relu(a),
    "floor": lambda L, a: L.floor(a),
    "round": lambda L, a: L.round(a),
    "clamp": lambda L, a: L.clamp(a, 1, 3),
    "clamp_float_bounds": lambda L, a: L.clamp(a, 0.5, 3.5),
    "pow_int": lambda L, a: a**2,
    "pow_float": lambda L, a: a**0.5,
    "pow_bool": lambda L, a: a**True,
    "rpow_int": lambda L, a: 2**a,
    "div_int": lambda L, a: a / 2,
    "logical_not": lambda L, a: L.logical_not(a),
    "isnan": lambda L, a: L.isnan(a),
    "nan_to_num": lambda L, a: L.nan_to_num(a),
    "sum": lambda L, a: a.sum(),
    "sum_dim": lambda L, a: L.sum(a, 0),
    "sum_dtype": lambda L, a: a.sum(dtype=L.float64),
    "mean": lambda L, a: a.mean(),
    "mean_dtype": lambda L, a: a.mean(dtype=L.float32),
    "softmax": lambda L, a: L.softmax(a, 0),
    "hardtanh": lambda L, a: L.nn.functional.hardtanh(a),
    "relu6": lambda L, a: L.nn.functional.relu6(a),
    "gelu": lambda L, a: L.nn.functional.gelu(a),
}


@pytest.mark.parametrize("zero_dim", [False, True], ids=["dim", "0d"])
@pytest.mark.parametrize("op", sorted(UNARY))
def test_every_dtype_through_one_input_ops_as_torch(op, zero_dim):
    fn = UNARY[op]
    failures = []
    for d in dtypes():
        a = array(d, zero_dim, 4)
        why = mismatch(outcome(cr, fn, tensor(cr, a)), outcome(torch, fn, tensor(torch, a)))
        if why:
            failures.append(f"{op}({d}): {why}")
    assert failures == []


# ----- the rules named one by one ------------------------------------------------------


def test_integer_true_division_gives_the_default_float():
    for lib in (cr, torch):
        a, b = lib.tensor([1, 2, 3]), lib.tensor([2, 2, 2])
        assert str((a / b).dtype) == "torch.float32"
        assert str(lib.div(a, b).dtype) == "torch.float32"
        assert str((a / 2).dtype) == "torch.float32"
        assert str((7 / a).dtype) == "torch.float32"
        np.testing.assert_allclose((a / b).numpy(force=True), [0.5, 1.0, 1.5])
        assert str((a // b).dtype) == "torch.int64"
        assert str(lib.div(a, b, rounding_mode="floor").dtype) == "torch.int64"


def test_integer_and_bool_sums_give_int64_and_means_raise():
    for d in dtypes()[:6]:
        for lib in (cr, torch):
            a = tensor(lib, array(d, False, 5))
            assert str(a.sum().dtype) == "torch.int64", d
            assert str(a.sum(dim=1).dtype) == "torch.int64", d
            with pytest.raises(RuntimeError, match="mean"):
                a.mean()
        assert cr.tensor(array(d, False, 5)).sum().item() == int(array(d, False, 5).sum())


def test_dimensioned_tensors_win_over_zero_dim_tensors_and_scalars_of_their_category():
    cases = [
        (np.ones(3, np.int8), np.array(1000, np.int64)),  # int8 wins over a 0-d int64
        (np.ones(3, np.float16), np.array(1.5, np.float64)),  # float16 over a 0-d float64
        (np.ones(3, np.int32), np.array(1.5, np.float64)),  # higher category: 0-d float64
        (np.ones(3, np.uint8), np.array(True)),
        (np.ones(3, bool), np.array(7, np.int16)),
        (np.ones(3, np.int16), np.array(2.5, np.float16)),
    ]
    for a, b in cases:
        for fn in (lambda L, a, b: a + b, lambda L, a, b: b * a, lambda L, a, b: L.maximum(a, b)):
            why = mismatch(
                outcome(cr, fn, tensor(cr, a), tensor(cr, b)),
                outcome(torch, fn, tensor(torch, a), tensor(torch, b)),
            )
            assert why is None, (a.dtype, b.dtype, why)


@pytest.mark.parametrize("default", ["float64", "float16"])
def test_the_default_dtype_decides_for_python_floats_and_int_division(default):
    exprs = [
        lambda L: L.tensor([1, 2]) * 1.5,
        lambda L: L.tensor([1, 2]) / L.tensor([2, 4]),
        lambda L: L.tensor([True]) + 0.5,
        lambda L: L.exp(L.tensor([1, 2])),
        lambda L: L.tensor(3) / 2,
        lambda L: L.tensor([1.0, 2.0]),
        lambda L: L.tensor([1.0], dtype=L.float32) * 2.5,  # float32 tensor wins over a float
    ]
    for lib in (cr, torch):
        lib.set_default_dtype(getattr(lib, default))
    try:
        for expr in exprs:
            assert mismatch(outcome(cr, expr), outcome(torch, expr)) is None
    finally:
        for lib in (cr, torch):
            lib.set_default_dtype(lib.float32)


def test_python_ints_are_int64_and_bools_bool():
    for lib in (cr, torch):
        assert str(lib.tensor(3).dtype) == "torch.int64"
        assert str(lib.tensor(True).dtype) == "torch.bool"
        assert str((lib.tensor([True]) + True).dtype) == "torch.bool"
        assert str((lib.tensor([True]) + 1).dtype) == "torch.int64"
        assert str((lib.tensor([True]) * lib.tensor([2], dtype=lib.uint8)).dtype) == "torch.uint8"


# ----- gradients have their input's dtype -------------------------------------------------------

GRAD_OPS = {
    "add": lambda L, a, b: a + b,
    "mul": lambda L, a, b: a * b,
    "div": lambda L, a, b: a / b,
    "pow": lambda L, a, b: a**b,
    "maximum": lambda L, a, b: L.maximum(a, b),
    "where": lambda L, a, b: L.where(a > 1, a, b),
    "atan2": lambda L, a, b: L.atan2(a, b),
}


# a gradient computed in a lower precision and cast up carries that precision's rounding
# (PyTorch and NumPy sum in different orders): compare at the lowest precision involved
TOLERANCE = {"bfloat16": 2e-2, "float16": 2e-3, "float32": 2e-5, "float64": None}


@pytest.mark.parametrize("op", sorted(GRAD_OPS))
def test_gradients_have_their_inputs_dtypes(op):
    fn = GRAD_OPS[op]
    for da, db in itertools.product(FLOAT_DTYPES, FLOAT_DTYPES):
        tol = TOLERANCE[min(da, db, key=FLOAT_DTYPES.index)]
        for za, zb in FORMS.values():
            check(fn, array(da, za, 6), array(db, zb, 7), rtol=tol, atol=tol)
    for dint in ("int64", "int32", "uint8", "bool"):  # an integer operand gets no gradient
        if op == "pow" and dint == "bool":
            continue  # torch's d/da a^b computes b - 1, which raises for a bool b
        if op == "atan2" and dint in ("uint8", "bool"):
            continue  # torch's d/db = -a/(a²+b²) negates a first: uint8 wraps, bool raises
        check(fn, array("float32", False, 8), array(dint, False, 9))
        # torch takes ln of an integer in float32 (its kernels and NumPy's differ by an ulp)
        check(fn, array(dint, True, 9), array("float64", False, 8), rtol=1e-7)


def test_gradients_through_casts_and_unary_ops_have_their_inputs_dtypes():
    for d in FLOAT_DTYPES:
        tol = TOLERANCE["float32" if d == "float64" else d]  # through float32 and back
        check(lambda L, x: (x.double() * 2).float().exp(), array(d, False, 10), rtol=tol, atol=tol)
        check(lambda L, x: L.sigmoid(x) * L.tensor([1, 2, 3]), array(d, False, 11))
        check(lambda L, x: x.sum() * 3, array(d, False, 12))
        check(lambda L, x: x.mean(dim=0), array(d, False, 13))


# ----- promotion through the first ops ----------------------------------------------------


I64 = np.array([1, 2, -3], dtype=np.int64)

I32 = np.array([4, 5, 6], dtype=np.int32)

BOOL = np.array([True, False, True])

F32 = np.array([0.5, -1.5, 2.0], dtype=np.float32)

F64 = np.array([0.25, 1.0, -2.0])

PROMOTION = {
    "int64*2.5": (lambda lib, a: a * 2.5, [I64]),
    "2.5*int64": (lambda lib, a: 2.5 * a, [I64]),
    "int64*2": (lambda lib, a: a * 2, [I64]),
    "int64+True": (lambda lib, a: a + True, [I64]),
    "int/int": (lambda lib, a, b: a / b, [I64, I32]),
    "int/2": (lambda lib, a: a / 2, [I64]),
    "7/int": (lambda lib, a: 7 / a, [I32]),
    "2-int": (lambda lib, a: 2 - a, [I32]),
    "2.5-int": (lambda lib, a: 2.5 - a, [I32]),
    "int32+int64": (lambda lib, a, b: a + b, [I32, I64]),
    "int32*int64_0d": (lambda lib, a, b: a * b, [I32, np.array(3, dtype=np.int64)]),
    "int32+float64_0d": (lambda lib, a, b: a + b, [I32, np.array(0.5)]),
    "bool+int": (lambda lib, a: a + 1, [BOOL]),
    "bool+int_tensor": (lambda lib, a, b: a + b, [BOOL, I32]),
    "bool*bool": (lambda lib, a, b: a * b, [BOOL, BOOL]),
    "bool+bool": (lambda lib, a, b: a + b, [BOOL, BOOL]),
    "bool*2.5": (lambda lib, a: a * 2.5, [BOOL]),
    "bool+float32": (lambda lib, a, b: a + b, [BOOL, F32]),
    "int64+float32": (lambda lib, a, b: a + b, [I64, F32]),
    "float32*int": (lambda lib, a: a * 3, [F32]),
    "int*float32": (lambda lib, a: 3 * a, [F32]),
    "float32+float64_0d": (lambda lib, a, b: a + b, [F32, np.array(2.0)]),
    "float64_0d+float32": (lambda lib, a, b: b + a, [F32, np.array(2.0)]),
    "float32_0d+float64_0d": (
        lambda lib, a, b: a + b,
        [np.float32(1.5) * np.ones((), np.float32), np.array(2.0)],
    ),
    "float32*float64": (lambda lib, a, b: a * b, [F32, F64]),
    "float32/float64_0d": (lambda lib, a, b: a / b, [F32, np.array(4.0)]),
    "float32**float64_0d": (lambda lib, a, b: abs(a) ** b, [F32, np.array(2.0)]),
    "int**2": (lambda lib, a: a**2, [I32]),
    "int**2.5": (lambda lib, a: abs(a) ** 2.5, [I64]),
    "2**int": (lambda lib, a: 2**a, [abs(I64)]),
    "2.5**int": (lambda lib, a: 2.5**a, [I32]),
    "int_sum": (lambda lib, a: a.sum(), [I32]),
    "int_sum_dim": (lambda lib, a: lib.sum(a.reshape(1, 3), dim=1), [I32]),
    "int64_sum": (lambda lib, a: a.sum(), [I64]),
    "bool_sum": (lambda lib, a: a.sum(), [BOOL]),
    "exp(int)": (lambda lib, a: lib.exp(a), [I64]),
    "log(int32)": (lambda lib, a: lib.log(abs(a)), [I32]),
    "sqrt(int)": (lambda lib, a: lib.sqrt(a), [I32]),
    "sin(bool)": (lambda lib, a: lib.sin(a), [BOOL]),
    "sigmoid(int)": (lambda lib, a: lib.sigmoid(a), [I64]),
    "tanh(int)": (lambda lib, a: lib.tanh(a), [I32]),
    "abs(int)": (lambda lib, a: lib.abs(a), [I64]),
    "relu(int)": (lambda lib, a: lib.relu(a), [I32]),
    "neg(int)": (lambda lib, a: -a, [I32]),
    "where(f32,f64)": (lambda lib, c, a, b: lib.where(c, a, b), [BOOL, F32, F64]),
    "where(f32,0.0)": (lambda lib, c, a: lib.where(c, a, 0.0), [BOOL, F32]),
    "where(int,2.5)": (lambda lib, c, a: lib.where(c, a, 2.5), [BOOL, I32]),
    "where(1.0,0.0)": (lambda lib, c: lib.where(c, 1.0, 0.0), [BOOL]),
    "where(1,0)": (lambda lib, c: lib.where(c, 1, 0), [BOOL]),
    "where(f64_0d,2.5)": (lambda lib, c, a: lib.where(c, a, 2.5), [BOOL, np.array(1.0)]),
    "float32*True": (lambda lib, a: a * True, [F32]),
    "2**float32": (lambda lib, a: 2**a, [F32]),
    "float64_0d**2": (lambda lib, a: a**2, [np.array(1.5)]),
    "matmul_int": (lambda lib, a, b: a @ b, [I64, I64]),
    "clone(int)": (lambda lib, a: a.clone(), [I32]),
    "to_int": (lambda lib, a: a.to(lib.int32), [F32]),
    "to_float64": (lambda lib, a: a.to(lib.float64), [I32]),
    "double": (lambda lib, a: a.double(), [I64]),
}


@pytest.mark.parametrize("name", list(PROMOTION))
def test_dtype_promotion(name):
    """Output dtypes follow torch's promotion. Tolerances are float32's: where a float64
    0-d tensor meets a float32 tensor torch computes the backward in float32."""
    fn, inputs = PROMOTION[name]
    check(fn, *inputs, rtol=2e-5, atol=2e-5)


# ----- mixed dtypes, integer inputs of shape ops ------------------------------------------


def test_mixed_dtypes_promote_and_cast_gradients_back():
    a = values("any", (3,), 1)
    check(lambda L, a, b: L.maximum(a, b), a.astype(np.float32), values("any", (3,), 2))
    check(lambda L, a, b: L.atan2(a, b), a, np.array([1, -2, 3]))
    check(lambda L, a, b: L.fmod(a, b), a.astype(np.float32), np.array([2, -3, 1]))
    check(lambda L, a, b: L.minimum(a, b), np.array([0, 1, -1]), a)
    check(lambda L, a, b: L.remainder(a, b), np.asarray(2.5), a)  # 0-d tensor first


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
