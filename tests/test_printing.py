"""Printing must reproduce PyTorch's tensor repr character for character.

The first part tests the formatter (``format_tensor``, print options) on NumPy arrays;
the second ``repr``/``str``/``print`` of chainrule tensors, each built the same way with
chainrule and with torch: dtype, ``requires_grad`` and ``grad_fn`` suffixes included.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import chainrule as cr
from chainrule._printing import format_tensor, get_printoptions, set_printoptions

# dtypes PyTorch leaves out of a non-empty tensor's repr
_IMPLIED_DTYPES = {torch.float32, torch.int64, torch.bool}
_DEFAULTS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}


@pytest.fixture(autouse=True)
def _restore_print_options() -> Iterator[None]:
    """Every test starts and ends with the default options (and torch's default dtype),
    in both libraries."""
    set_printoptions(profile="default")
    torch.set_printoptions(profile="default")
    dtype = torch.get_default_dtype()
    yield
    set_printoptions(profile="default")
    torch.set_printoptions(profile="default")
    torch.set_default_dtype(dtype)


def _set_both(**options: object) -> None:
    set_printoptions(**options)
    torch.set_printoptions(**options)


def _dtype_suffixes(t: torch.Tensor) -> list[str]:
    """The dtype item a caller passes, following PyTorch's rule for when it shows."""
    shown = t.dtype not in _IMPLIED_DTYPES or (t.numel() == 0 and t.dtype != torch.float32)
    return [f"dtype={t.dtype}"] if shown else []


def _torch_tensor(arr: np.ndarray, requires_grad: bool = False) -> torch.Tensor:
    t = torch.from_numpy(np.array(arr, copy=True))
    return t.requires_grad_(True) if requires_grad else t


def _expected(arr: np.ndarray, requires_grad: bool = False) -> str:
    return repr(_torch_tensor(arr, requires_grad))


def _ours(arr: np.ndarray, requires_grad: bool = False) -> str:
    suffixes = _dtype_suffixes(_torch_tensor(arr))
    if requires_grad:
        suffixes.append("requires_grad=True")
    return format_tensor(arr, suffixes)


def _assert_matches(arr: np.ndarray, requires_grad: bool = False) -> None:
    assert _ours(arr, requires_grad) == _expected(arr, requires_grad)


_rng = np.random.default_rng(1234)
_f32 = np.float32

CASES: dict[str, np.ndarray] = {
    # floats: fixed, whole-number and scientific styles
    "seed_sci": np.array([102.4, 1024.0, 0.1024], _f32),
    "fixed": np.array([1.5, -2.25, 3.125], _f32),
    "whole": np.array([1.0, 27.0, 3.0], _f32),
    "whole_negative": np.array([-1.0, 27.0, -300.0], _f32),
    "zeros": np.zeros(4, _f32),
    "negative_zero": np.array([-0.0, 0.0, 1.0], _f32),
    "ratio_1000": np.array([1.0, 1000.0], _f32),
    "ratio_over_1000": np.array([1.0, 1000.5], _f32),
    "whole_ratio_over_1000": np.array([1.0, 1001.0], _f32),
    "max_1e8": np.array([1e8], np.float64),
    "max_over_1e8": np.array([1e8 + 1], np.float64),
    "min_1e-4": np.array([1e-4, 0.05]),
    "min_under_1e-4": np.array([9.9e-5, 0.05]),
    "huge": np.array([1e30, -3e35], _f32),
    "tiny": np.array([1e-30, 2.5e-38], _f32),
    "extreme_f64": np.array([1e300, -1e-300, 1e-320]),
    "rounding_carry": np.array([9.99995, 1.0], _f32),
    "round_to_zero": np.array([0.00004, 0.00006, 0.5]),
    # non-finite values
    "nan_mixed": np.array([np.nan, 1.5, -2.0], _f32),
    "inf_mixed": np.array([np.inf, -np.inf, 1.0, 2.0], _f32),
    "nonfinite_sci": np.array([np.nan, np.inf, 1e-7, 3.0], _f32),
    "nan_only": np.array([np.nan, np.nan], _f32),
    "inf_only": np.array([np.inf, -np.inf], _f32),
    "nan_and_zero": np.array([0.0, np.nan], _f32),
    # other float dtypes
    "float64": np.array([1.0 / 3.0, -2.0 / 3.0, 12345.678]),
    "float64_whole": np.array([1.0, 2.0, 3.0]),
    "float16": np.array([1.5, 2.0, 65504.0, -0.0009765625], np.float16),
    "float16_small": np.array([6e-8, 1.0], np.float16),
    # integer and bool dtypes
    "int64": np.arange(10),
    "int64_negative": np.array([-5, 123456789, 0]),
    "int32": np.array([1, -2, 3], np.int32),
    "int16": _rng.integers(-1000, 1000, (4, 6)).astype(np.int16),
    "int8": np.array([-128, 0, 127], np.int8),
    "uint8": np.array([0, 7, 255], np.uint8),
    "bool": np.array([True, False, True]),
    "bool_2d": _rng.integers(0, 2, (3, 4)).astype(bool),
    # 0-d
    "scalar_float": np.array(3.5, _f32),
    "scalar_whole": np.array(2.0, _f32),
    "scalar_sci": np.array(1e-9, _f32),
    "scalar_nan": np.array(np.nan, _f32),
    "scalar_neg_inf": np.array(-np.inf),
    "scalar_int": np.array(7),
    "scalar_bool": np.array(True),
    "scalar_uint8": np.array(200, np.uint8),
    "scalar_f16": np.array(0.25, np.float16),
    # empty
    "empty_f32": np.zeros(0, _f32),
    "empty_int64": np.zeros(0, np.int64),
    "empty_bool": np.zeros(0, bool),
    "empty_f64": np.zeros(0),
    "empty_2d": np.zeros((0, 3), _f32),
    "empty_2d_trailing": np.zeros((3, 0), _f32),
    "empty_3d_int": np.zeros((2, 0, 3), np.int64),
    "empty_f16": np.zeros((0, 2), np.float16),
    # several dimensions
    "matrix": _rng.standard_normal((3, 4)).astype(_f32),
    "matrix_wide_values": (_rng.standard_normal((4, 3)) * 1e4).astype(_f32),
    "cube": _rng.standard_normal((2, 3, 4)).astype(_f32),
    "hyper": _rng.standard_normal((2, 2, 2, 3)),
    "five_d_int": np.arange(32).reshape(2, 2, 2, 2, 2),
    "singletons": np.array([[[1]]], np.int8),
    "column": _rng.standard_normal((5, 1)).astype(_f32),
    # wrapping of long rows
    "long_row": _rng.standard_normal(100).astype(_f32),
    "long_row_sci": _rng.standard_normal(40) * 1e5,
    "long_int_row": np.arange(200),
    "long_rows_2d": _rng.standard_normal((3, 30)).astype(_f32),
    "long_rows_3d": _rng.standard_normal((2, 2, 25)).astype(_f32),
    # summarised (numel > 1000)
    "summary_1d": np.arange(2000, dtype=_f32),
    "summary_1d_just_over": np.arange(1001),
    "summary_1d_exact": np.arange(1000),
    "summary_2d": _rng.standard_normal((50, 50)).astype(_f32),
    "summary_2d_wide": np.arange(3000).reshape(30, 100),
    "summary_2d_few_rows": _rng.standard_normal((4, 400)).astype(_f32),
    "summary_3d": _rng.standard_normal((20, 20, 20)).astype(_f32),
    "summary_4d": np.arange(4096, dtype=np.float64).reshape(8, 8, 8, 8) / 7,
    # hidden middle values must not influence the style of the visible ones
    "summary_hidden_outlier": np.concatenate([np.ones(3), np.full(1000, 1e-9), np.ones(3) * 2]),
    "summary_hidden_fraction": np.concatenate([np.ones(3), np.full(1000, 0.5), np.ones(3) * 2]),
    "summary_hidden_2d": np.where(np.arange(40)[:, None] == 20, 1e6, np.full((40, 40), 2.5)),
    # non-contiguous views
    "transposed": np.arange(12, dtype=_f32).reshape(3, 4).T / 3,
    "strided": np.arange(40.0)[::3],
}


@pytest.mark.parametrize("arr", CASES.values(), ids=CASES.keys())
def test_matches_torch(arr: np.ndarray) -> None:
    _assert_matches(arr)


@pytest.mark.parametrize(
    "name", [name for name, arr in CASES.items() if np.issubdtype(arr.dtype, np.floating)]
)
def test_matches_torch_with_requires_grad(name: str) -> None:
    _assert_matches(CASES[name], requires_grad=True)


def test_seed_example() -> None:
    arr = np.array([102.4, 1024.0, 0.1024], _f32)
    assert format_tensor(arr, []) == "tensor([1.0240e+02, 1.0240e+03, 1.0240e-01])"
    assert (
        format_tensor(arr, ["requires_grad=True"])
        == "tensor([1.0240e+02, 1.0240e+03, 1.0240e-01], requires_grad=True)"
    )


def test_matrix_of_four_point_five() -> None:
    expected = "tensor([[4.5000, 4.5000],\n        [4.5000, 4.5000]])"
    assert format_tensor(np.full((2, 2), 4.5, _f32), []) == expected
    assert repr(torch.full((2, 2), 4.5)) == expected


@pytest.mark.parametrize(
    ("arr", "suffixes", "expected"),
    [
        (np.array(3.5, _f32), [], "tensor(3.5000)"),
        (np.array(7), [], "tensor(7)"),
        (np.array(True), [], "tensor(True)"),
        (np.array([1.0, 27.0], _f32), [], "tensor([ 1., 27.])"),
        (np.array([np.nan, -np.inf, 1.0], _f32), [], "tensor([nan, -inf, 1.])"),
        (np.zeros(0, _f32), [], "tensor([])"),
        (np.zeros((0, 3), _f32), [], "tensor([], size=(0, 3))"),
        (
            np.zeros((0, 3), np.int64),
            ["dtype=torch.int64"],
            "tensor([], size=(0, 3), dtype=torch.int64)",
        ),
        (np.array([1, 2], np.uint8), ["dtype=torch.uint8"], "tensor([1, 2], dtype=torch.uint8)"),
    ],
)
def test_hard_coded(arr: np.ndarray, suffixes: list[str], expected: str) -> None:
    assert format_tensor(arr, suffixes) == expected


@pytest.mark.parametrize("length", range(1, 16))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("scale", [1.0, 1000.0])
def test_suffix_wrapping(length: int, dtype: type, scale: float) -> None:
    """Suffixes move to their own line exactly when torch moves them."""
    row = (np.arange(length) * scale + 0.5).astype(dtype)
    _assert_matches(row, requires_grad=True)
    _assert_matches(np.stack([row, row, row]), requires_grad=True)


@pytest.mark.parametrize("length", range(1, 14))
def test_grad_fn_suffix(length: int) -> None:
    y = torch.arange(length, dtype=torch.float64, requires_grad=True) * 2
    suffixes = ["dtype=torch.float64", "grad_fn=<MulBackward0>"]
    assert format_tensor(y.detach().numpy(), suffixes) == repr(y)


def test_long_suffix_on_new_line() -> None:
    suffix = "grad_fn=<" + "X" * 90 + ">"
    assert format_tensor(np.array([1.0], _f32), [suffix]) == f"tensor([1.],\n       {suffix})"


# ------------------------------------------------------------------- print options

_OPTION_SETS = [
    {"precision": 2},
    {"precision": 0},
    {"precision": 8},
    {"linewidth": 40},
    {"linewidth": 10},
    {"linewidth": 200},
    {"threshold": 5},
    {"threshold": 0},
    {"edgeitems": 1, "threshold": 10},
    {"edgeitems": 5, "threshold": 20},
    {"edgeitems": 0, "threshold": 10},
    {"edgeitems": 0},
    {"sci_mode": True},
    {"sci_mode": False},
    {"profile": "short"},
    {"profile": "full"},
    {"profile": "short", "precision": 6},
]
_OPTION_ARRAYS = [
    np.array([102.4, 1024.0, 0.1024], _f32),
    _rng.standard_normal(30).astype(_f32),
    np.arange(2000),
    _rng.standard_normal((12, 12)),
    _rng.standard_normal((6, 7, 8)).astype(_f32),
    np.array(3.25),
    np.array(5),
    np.array([0.0, 0.0]),
    np.array([np.nan, 1.0]),
    np.array([1e12, 1.0]),
    np.array([True] * 20),
    np.zeros((0, 4)),
    np.arange(3000.0, dtype=_f32),
    np.array([0.001234, 12.5]),
    np.arange(24).reshape(2, 3, 4),
]


@pytest.mark.parametrize("options", _OPTION_SETS, ids=str)
def test_options_match_torch(options: dict[str, object]) -> None:
    _set_both(**options)
    assert get_printoptions() == torch._tensor_str.get_printoptions()
    for arr in _OPTION_ARRAYS:
        _assert_matches(arr)
        if np.issubdtype(arr.dtype, np.floating):
            _assert_matches(arr, requires_grad=True)


def test_default_options() -> None:
    assert get_printoptions() == _DEFAULTS


def test_profiles_and_overrides() -> None:
    set_printoptions(profile="short", linewidth=120)
    assert get_printoptions() == {**_DEFAULTS, "precision": 2, "edgeitems": 2, "linewidth": 120}
    set_printoptions(profile="full")
    assert get_printoptions()["threshold"] == float("inf")
    set_printoptions(profile="default")
    assert get_printoptions() == _DEFAULTS


def test_unknown_profile_is_ignored_and_sci_mode_resets() -> None:
    set_printoptions(precision=3, sci_mode=True)
    set_printoptions(profile="no-such-profile")
    assert get_printoptions() == {**_DEFAULTS, "precision": 3}  # sci_mode back to None


def test_get_printoptions_returns_a_copy() -> None:
    get_printoptions()["precision"] = 99
    assert get_printoptions()["precision"] == 4


def test_printoptions_context_manager() -> None:
    """``torch._tensor_str.printoptions``: the options inside the block, the earlier ones
    after it (an error in the block too), the same texts as PyTorch's."""
    values = np.array([1.23456, 1e-9, 250.0], dtype=np.float32)
    _set_both(precision=6, linewidth=60)
    for lib, make in ((cr, cr.tensor), (torch, torch.tensor)):
        with lib._tensor_str.printoptions(precision=2, sci_mode=False):
            inside = repr(make(values))
        assert lib._tensor_str.get_printoptions()["precision"] == 6
        with pytest.raises(KeyError), lib._tensor_str.printoptions(precision=1):
            raise KeyError("x")
        assert lib._tensor_str.get_printoptions() == {**_DEFAULTS, "precision": 6, "linewidth": 60}
        assert inside == "tensor([  1.23,   0.00, 250.00])"


def test_options_round_trip() -> None:
    set_printoptions(precision=6, linewidth=50, sci_mode=False)
    saved = get_printoptions()
    set_printoptions(profile="default")
    set_printoptions(**saved)
    assert get_printoptions() == saved


def test_precision_changes_output() -> None:
    set_printoptions(precision=2)
    assert format_tensor(np.array([1.0 / 3.0], _f32), []) == "tensor([0.33])"


# ------------------------------------------------------------------- properties

_shapes = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=7)
_float_arrays = st.sampled_from([np.float16, np.float32, np.float64]).flatmap(
    lambda dtype: hnp.arrays(dtype, _shapes, elements=hnp.from_dtype(np.dtype(dtype)))
)


@settings(max_examples=300, deadline=None)
@given(arr=_float_arrays, requires_grad=st.booleans())
def test_property_random_floats(arr: np.ndarray, requires_grad: bool) -> None:
    _assert_matches(arr, requires_grad)


_int_arrays = st.sampled_from([np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64]).flatmap(
    lambda dtype: hnp.arrays(dtype, _shapes)
)


@settings(max_examples=150, deadline=None)
@given(arr=_int_arrays)
def test_property_random_ints_and_bools(arr: np.ndarray) -> None:
    _assert_matches(arr)


@settings(max_examples=100, deadline=None)
@given(
    arr=hnp.arrays(
        np.float32,
        hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=12),
        elements=st.floats(-1e6, 1e6, width=32),
    ),
    threshold=st.integers(0, 60),
    edgeitems=st.integers(0, 4),
    linewidth=st.integers(10, 120),
)
def test_property_random_options(
    arr: np.ndarray, threshold: int, edgeitems: int, linewidth: int
) -> None:
    _set_both(threshold=threshold, edgeitems=edgeitems, linewidth=linewidth)
    _assert_matches(arr)


def test_module_imports_only_numpy_and_stdlib() -> None:
    import chainrule._printing as printing

    tree = ast.parse(Path(printing.__file__).read_text())
    modules = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    modules |= {
        node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
    }
    roots = {name.split(".")[0] for name in modules}
    assert roots <= set(sys.stdlib_module_names) | {"numpy"}


# ----- tensors: repr, str and print of chainrule's Tensor ---------------------------------


NAN, INF = float("nan"), float("inf")


def assert_prints_like_torch(make: Callable[[Any], Any]) -> None:
    ours, theirs = make(cr), make(torch)
    assert repr(ours) == repr(theirs)
    assert str(ours) == str(theirs)


TENSOR_CASES = {
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


@pytest.mark.parametrize("name", list(TENSOR_CASES))
def test_prints_like_torch(name):
    assert_prints_like_torch(TENSOR_CASES[name])


def _no_grad(L, fn):
    with L.no_grad():
        return fn()


def test_tensor_grad_fn_suffix():
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
