"""Integer and bool semantics, conversions and creation functions, against PyTorch.

Beyond test_dtype_rules.py (promotion): wraparound at every integer dtype's edges,
integer division by zero and by negatives, shifts out of range, casts of floats out of an
integer dtype's range (bfloat16 too), Python conversions of complex tensors, uint64 values
beyond int64, NumPy arrays in a foreign byte order, ``arange`` with float arguments into
integer dtypes (PyTorch truncates the start and step) and its length rule, integer
``linspace``/``logspace``, ``full``'s size, ``expand``'s sizes, ``randint``'s bounds and
tensors nested in lists.

Each case is ``fn(lib)``: both libraries return the same values, dtypes and Python types,
or raise the same exception type with the same message.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import assert_close, assert_same_error


def same(fn) -> None:
    """``fn(chainrule)`` equals ``fn(torch)`` (integer values exactly), or both raise the
    same exception type and message."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = fn(torch)
    except Exception:  # noqa: BLE001 - torch's error is the expected one
        assert_same_error(fn)
        return
    got = fn(cr)
    if isinstance(want, (float, complex)):  # (nan: compared by its repr)
        assert type(got) is type(want) and repr(got) == repr(want), (got, want)
        return
    exact = not (isinstance(want, torch.Tensor) and want.is_floating_point())
    assert_close(got, want, rtol=1e-6, atol=0, exact=exact)
    assert type(got) is type(want) or isinstance(want, (torch.Tensor, tuple))


def edges(dtype: str) -> tuple[list, list]:
    """The dtype's extremes and small values, with a reversed partner for binary ops
    (no division by zero; int32/int64's min // -1 crashes PyTorch's CPU kernel)."""
    info = np.iinfo(dtype)
    a = [info.min, info.min + 1, -7, -2, -1, 1, 2, 3, 7, info.max - 1, info.max]
    a = [v for v in a if info.min <= v]
    b = [v if v != 0 else 1 for v in a[::-1]]
    return a, b


INTS = ["int8", "int16", "int32", "int64", "uint8"]
WRAPPING = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "neg": lambda a, b: -a,
    "abs": lambda a, b: a.abs(),
    "pow": lambda a, b: a**3,
    "cumsum": lambda a, b: a.cumsum(0),
    "prod": lambda a, b: a.prod(),
    "sum": lambda a, b: a.sum(),
    "floordiv": lambda a, b: a // b,
    "mod": lambda a, b: a % b,
    "fmod": lambda a, b: a.fmod(b),
    "trunc_div": lambda a, b: a.div(b, rounding_mode="trunc"),
    "lshift_neg": lambda a, b: a << -1,
    "rshift_wide": lambda a, b: a >> 100,
    "lshift_tensor": lambda a, b: a.bitwise_left_shift(b),
    "not": lambda a, b: ~a,
    "sign": lambda a, b: a.sign(),
    "round": lambda a, b: a.round(),
    "eq_negative": lambda a, b: a == -1,
    "lt_float": lambda a, b: a < 1.5,
    "clamp_float": lambda a, b: a.clamp(0.5, 2.5),
    "argmax_ties": lambda a, b: (a.abs().argmax(), a.abs().max(0)),
    "float_cast": lambda a, b: a.double(),
}


@pytest.mark.parametrize("op", sorted(WRAPPING))
@pytest.mark.parametrize("dtype", INTS)
def test_integer_ops_at_the_dtype_edges_wrap_as_in_torch(dtype, op):
    a, b = edges(dtype)
    if op in ("floordiv", "mod", "fmod", "trunc_div") and dtype in ("int32", "int64"):
        a = a[1:]  # (int32/int64 min // -1 crashes torch's CPU kernel)
        b = b[:-1]
    same(
        lambda L: WRAPPING[op](
            L.tensor(a, dtype=getattr(L, dtype)), L.tensor(b, dtype=getattr(L, dtype))
        )
    )


DIVISIONS = {
    "floordiv": lambda a, b: a // b,
    "mod": lambda a, b: a % b,
    "fmod": lambda a, b: a.fmod(b),
    "floor_div": lambda a, b: a.div(b, rounding_mode="floor"),
    "trunc_div": lambda a, b: a.div(b, rounding_mode="trunc"),
}


@pytest.mark.parametrize("op", sorted(DIVISIONS))
@pytest.mark.parametrize(
    "case",
    [
        ([1, 2], 0),  # PyTorch's RuntimeError('ZeroDivisionError')
        ([1, 2], [1, 0]),
        ([], 0),  # an empty result divides nothing: no error
        ([[]], [0]),
    ],
    ids=["scalar0", "tensor0", "empty", "empty2d"],
)
def test_integer_division_by_zero_raises_unless_nothing_is_divided(op, case):
    x, y = case
    same(lambda L: DIVISIONS[op](L.tensor(x, dtype=L.int64), L.tensor(y, dtype=L.int64)))


BIG = [2**63, 2**64 - 1]
CREATE_UINT64 = {
    "beyond_int64": lambda L: L.tensor([0, *BIG], dtype=L.uint64),
    "nested": lambda L: L.tensor([[1, 2], [3, 2**64 - 1]], dtype=L.uint64),
    "scalar": lambda L: L.tensor(2**63, dtype=L.uint64),
    "bools": lambda L: L.tensor([True, 2**64 - 1], dtype=L.uint64),
    "negative": lambda L: L.tensor([-1, 2], dtype=L.uint64),
    "too_big": lambda L: L.tensor([2**64], dtype=L.uint64),
    "float_among_big": lambda L: L.tensor([2**64 - 1, 1.5], dtype=L.uint64),  # was [0, 1]
    "float": lambda L: L.tensor([1.0], dtype=L.uint64),
    "complex_beyond": lambda L: L.tensor([2**64, 1j], dtype=L.complex128),
    "zero_d_uint8s": lambda L: L.tensor([L.tensor(255, dtype=L.uint8), L.tensor(3, dtype=L.uint8)]),
    "zero_d_uint32s": lambda L: L.tensor([L.tensor(2**32 - 1, dtype=L.uint32)] * 2),
    "uint64_tensor": lambda L: L.tensor([L.tensor(2**64 - 1, dtype=L.uint64)], dtype=L.float64),
}


@pytest.mark.parametrize("case", sorted(CREATE_UINT64))
def test_tensor_of_big_and_unsigned_ints_as_torch(case):
    same(CREATE_UINT64[case])


CASTS = [np.nan, np.inf, -np.inf, 1e10, -1e10, 3e38, -300.0, -1.0, 300.0, 128.0, 2.0**63, 65536.0]


@pytest.mark.parametrize("src", ["bfloat16", "float16", "float32", "float64"])
@pytest.mark.parametrize("dst", ["int8", "int16", "int32", "int64", "uint8", "bool"])
def test_float_to_integer_casts_out_of_range_as_torch_on_x86(src, dst):
    """Out of range the C cast is undefined; PyTorch's CPU results (x86) are matched, for
    bfloat16 through float32 as PyTorch converts it."""
    same(lambda L: L.tensor(CASTS, dtype=getattr(L, src)).to(getattr(L, dst)))


SCALARS = {
    "int": int,
    "float": float,
    "floor": math.floor,
    "index": lambda t: t.__index__(),
    "bool": bool,
    "item": lambda t: t.item(),
}


@pytest.mark.parametrize("conv", sorted(SCALARS))
@pytest.mark.parametrize(
    "value", [2.5 + 0j, -2.5 + 0j, 2.5 + 1j, complex(math.nan, 0), complex(0, math.nan)]
)
def test_python_conversions_of_complex_tensors_take_the_real_part_where_real(conv, value):
    same(lambda L: SCALARS[conv](L.tensor(value)))


NUMPY = {
    "asarray_swapped_int32": lambda L: L.asarray(
        np.arange(4, dtype=">i4" if np.little_endian else "<i4")
    ),
    "asarray_swapped_f64": lambda L: L.asarray(
        np.arange(4.0).astype(np.dtype("f8").newbyteorder())
    ),
    "swapped_longdouble": lambda L: L.from_numpy(
        np.zeros(2, np.dtype(np.longdouble).newbyteorder())
    ),
    "from_numpy_scalar": lambda L: L.from_numpy(np.float64(3.0)),
    "from_numpy_list": lambda L: L.from_numpy([1, 2]),
    "readonly": lambda L: L.from_numpy(np.arange(3, dtype=np.int16)).add(1),
}


@pytest.mark.parametrize("case", sorted(NUMPY))
def test_numpy_interop_errors_and_values_as_torch(case):
    same(NUMPY[case])


ARANGE_ARGS = [
    (0, 1, 0.1),
    (1, 2.5, 0.5),
    (-1, 1, 0.2),
    (0, 1, 1 / 3),  # the length is ceil((end - start) / step) in doubles: 3
    (0, 10, 2.5),
    (-5, 5, 1.5),
    (2.3, 7.1, 0.7),
    (10, 9.7, -0.1),
    (0.7, 5.9, 1.5),
    (300.7, 302),
    (5.5,),
    (0, 5, -0.5),
    (0, -5, -0.5),
    (0, math.inf),
    (-math.inf, 1.5),
    (0, 1, math.nan),
    (0, 1, math.inf),
    (0, 1, 0),
]


@pytest.mark.parametrize("args", ARANGE_ARGS, ids=str)
@pytest.mark.parametrize("dtype", [None, "int64", "int32", "uint8", "float32", "float64", "bool"])
def test_arange_with_float_arguments_as_torch(args, dtype):
    same(lambda L: L.arange(*args, dtype=dtype and getattr(L, dtype)))


SPACES = [
    (-1.5, 2.5, 5),
    (0.5, 9.5, 10),
    (-3, 3, 7),
    (0, 255, 6),
    (1, 1000, 4),
    (-1, 3, 3),
    (-1.0, 3, 3),
    (2.7, 5, 1),
    (0, 1, 2),
    (0, 100, 4),
]


@pytest.mark.parametrize("args", SPACES, ids=str)
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "int8", "bool"])
@pytest.mark.parametrize("fn", ["linspace", "logspace2", "logspace10", "logspace_half"])
def test_integer_linspace_and_logspace_as_torch(fn, dtype, args):
    base = {"logspace2": 2, "logspace10": 10, "logspace_half": 0.5}.get(fn)

    def space(L):
        d = getattr(L, dtype)
        if base is None:
            return L.linspace(*args, dtype=d)
        return L.logspace(*args, base=base, dtype=d)

    same(space)


MISC = {
    "linspace_1d_end": lambda L: L.linspace(0, L.tensor([1.0]), 3),
    "logspace_1d_start": lambda L: L.logspace(L.tensor([0.0]), 1, 3),
    "full_int_size": lambda L: L.full(3, 1),
    "full_size_list": lambda L: L.full([2, 1], True),
    "expand_float_size": lambda L: L.zeros(1).expand((3.0,)),
    "expand_float": lambda L: L.zeros(1).expand(3.0),
    "expand_str": lambda L: L.zeros(1).expand("3"),
    "expand_tensor_size": lambda L: L.zeros(1).expand(L.tensor(3), 2),
    "randint_uint8_high": lambda L: L.randint(300, (3,), dtype=L.uint8),
    "randint_uint8_low": lambda L: L.randint(-1, 5, (3,), dtype=L.uint8),
    "randint_bool": lambda L: L.randint(10, (3,), dtype=L.bool),
    "randint_int16": lambda L: L.randint(40000, (3,), dtype=L.int16),
    "randint_bool_ok": lambda L: str(L.randint(2, (3,), dtype=L.bool).dtype),
    "randint_order": lambda L: L.randint(300, 200, (3,), dtype=L.uint8),
    "tensor_in_list": lambda L: L.tensor([[1, 2], L.tensor([3, 4])]),
    "tensor_in_list_float": lambda L: L.tensor([[1.5, 2], L.tensor([3, 4])], dtype=L.float64),
    "tensor_in_list_ragged": lambda L: L.tensor([[1, 2], L.tensor([3, 4, 5])]),
    "tensor_first_in_list": lambda L: L.tensor([L.ones(2), L.ones(2)]),
    "none_in_list": lambda L: L.tensor([1, None]),
    "none": lambda L: L.tensor(None),
    "nested_ranges": lambda L: L.tensor([range(2), range(2)]),  # int64, not the default float
}


@pytest.mark.parametrize("case", sorted(MISC))
def test_creation_sizes_bounds_and_nested_tensors_as_torch(case):
    same(MISC[case])
