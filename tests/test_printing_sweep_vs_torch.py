"""A compact grid from the printing sweep against PyTorch: ``repr``, ``str`` and
``format`` of the same tensor built in both libraries must be equal character for
character, over dtypes, shapes, summarisation, every value style, suffixes and print
options; then ``torch._tensor_str``'s helpers that tensor subclasses build their repr from.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
import torch

import chainrule as cr
from chainrule._printing import format_meta, format_tensor

Build = Callable[[Any], Any]  # lib -> a tensor of that library

_HALF_WIDTH = ("float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz")


@pytest.fixture(autouse=True)
def _defaults_in_both() -> Iterator[None]:
    """Each case starts and ends with PyTorch's default options and dtype, in both."""
    for lib in (torch, cr):
        lib.set_printoptions(profile="default")
    yield
    for lib in (torch, cr):
        lib.set_printoptions(profile="default")
        lib.set_default_dtype(lib.float32)


def _values(values: Any, dtype: str = "float32", shape: tuple | None = None) -> Build:
    """A builder: NumPy ``values`` (reshaped) cast to ``dtype``, through float32 for the
    narrow floats (PyTorch rounds float64 to float16 twice, through float32)."""
    array = np.asarray(values)
    array = array.astype(np.result_type(array, np.float64))
    if shape is not None:
        array = array.reshape(shape)

    def build(lib: Any) -> Any:
        t = lib.from_numpy(array.copy())
        if dtype in _HALF_WIDTH:
            t = t.to(lib.float32)
        return t.to(getattr(lib, dtype))

    return build


_rng = np.random.default_rng(2013)

CASES: dict[str, Build] = {
    # every dtype, values that show each one's style
    **{
        f"dtype_{name}": _values([1.5, -2.0, 0.0, 3.0], name)
        for name in (
            "float16 float32 float64 bfloat16 complex64 complex128 int8 int16 int32 int64 "
            "uint8 uint16 uint32 uint64 float8_e4m3fn float8_e5m2 float8_e4m3fnuz"
        ).split()
    },
    "dtype_bool": lambda lib: lib.tensor([True, False, True]),
    "int_extremes": lambda lib: lib.tensor([-(2**63), 2**63 - 1]),
    # 0-d, empty and 1-d to 5-d
    "scalar_float": lambda lib: lib.tensor(3.14159),
    "scalar_int8": lambda lib: lib.tensor(-7, dtype=lib.int8),
    "scalar_bool": lambda lib: lib.tensor(True),
    "scalar_complex": lambda lib: lib.tensor(1.5 - 2j),
    "scalar_sci": lambda lib: lib.tensor(1.0e-7, dtype=lib.float64),
    "empty_1d": lambda lib: lib.zeros(0),
    "empty_2d_int": lambda lib: lib.zeros(2, 0, dtype=lib.int64),
    "empty_3d_f64": lambda lib: lib.zeros(0, 3, 4, dtype=lib.float64),
    "empty_bool": lambda lib: lib.zeros(0, dtype=lib.bool),
    **{f"ndim_{n}": _values(np.arange(2**n) * 0.75 - 3, shape=(2,) * n) for n in range(1, 6)},
    "shape_with_ones": _values(np.arange(6.0), "int32", (1, 2, 1, 3)),
    # around the summarisation threshold (1000 elements, 3 edge items)
    "threshold_1000": _values(np.arange(1000.0)),
    "threshold_1001": _values(np.arange(1001.0)),
    "summary_2d": _values(_rng.standard_normal(10 * 101), shape=(10, 101)),
    "summary_4d_int": _values(np.arange(7.0**4), "int64", (7, 7, 7, 7)),
    "summary_complex": _values(_rng.standard_normal(1001) + 1j, "complex64"),
    "summary_column": _values(np.arange(1001.0), "float16", (1001, 1)),
    # value styles: whole numbers, fixed, scientific, non-finite, signed zero, subnormal
    "whole": _values([1.0, 2.0, -3.0, 100.0, 0.0]),
    "whole_sci": _values([1.0e10, 1.0e12], "float64"),
    "ratio_over_1000": _values([1.0, 1000.0, 1001.0]),
    "ratio_at_1000": _values([0.5, 500.0]),
    "mixed_magnitudes": _values([1.0e-5, 1.0, 1.0e3], "float64"),
    "over_1e8": _values([1.0e8, 2.0e8, 3.5]),
    "under_1e-4": _values([9.0e-5, 1.5e-4]),
    "very_large_small": _values([1.0e300, -1.0e-300], "float64"),
    "nan_inf": _values([np.nan, np.inf, -np.inf, 1.5]),
    "nonfinite_only": _values([np.inf, -np.inf, np.nan, 0.0]),
    "negative_zero": _values([-0.0, 0.0, 1.5]),
    "negative_zero_whole": _values([-0.0, 1.0]),
    "subnormal": _values([1.0e-310, 1.0], "float64"),
    "negatives": _values([-1.25, -3.5, -100.125]),
    "rounding_edges": _values([1.00005, 9.99995, 99999.5], "float64"),
    "complex_nonfinite": _values(
        [complex(np.nan, 1), complex(1, np.nan), complex(np.inf, -np.inf)], "complex128"
    ),
    "complex_signed_zero": _values([complex(1, -0.0), complex(-0.0, 0.0)], "complex64"),
    "complex_mixed": _values([1.0e-5 + 1.0e5j, 3 + 4j], "complex128"),
    # rows wider than the line
    "wide_row": _values(np.arange(40) * 1.5 - 3),
    "wide_rows_2d": _values(np.arange(3 * 30) * 1.5, "float64", (3, 30)),
    "wide_complex": _values(np.arange(20) * 1.37 - 20.5j * np.arange(20), "complex64"),
    # random values from several distributions
    **{
        f"random_{kind}_{seed}": _values(draw(np.random.default_rng(seed)), dtype, (2, 3, 4))
        for seed, (kind, draw, dtype) in enumerate(
            [
                ("normal", lambda r: r.standard_normal(24), "float32"),
                ("normal_scaled", lambda r: r.standard_normal(24) * 1.0e-6, "float64"),
                ("lognormal", lambda r: r.lognormal(0, 5, 24), "float32"),
                ("cauchy", lambda r: r.standard_cauchy(24), "float16"),
                ("integers", lambda r: r.integers(-1000, 1000, 24).astype(float), "bfloat16"),
                ("exp_wide", lambda r: np.exp(r.uniform(-30, 30, 24)), "float64"),
                ("uniform", lambda r: r.uniform(-1, 1, 24), "complex64"),
            ]
        )
    },
    # suffixes: requires_grad, grad_fn, device, subclasses of chainrule's own
    "requires_grad": lambda lib: lib.tensor([1.5, -2.0], requires_grad=True),
    "grad_fn_mul": lambda lib: lib.tensor([1.5, -2.0], requires_grad=True) * 2,
    "grad_fn_sum": lambda lib: lib.tensor([1.5, -2.0], requires_grad=True).sum(),
    "grad_fn_mm": lambda lib: lib.ones(2, 2, requires_grad=True) @ lib.ones(2, 2),
    "grad_fn_select": lambda lib: lib.tensor([1.5, -2.0], requires_grad=True)[0],
    "grad_fn_view": lambda lib: lib.ones(4, requires_grad=True).view(2, 2),
    "grad_fn_f64": lambda lib: lib.ones(3, requires_grad=True).double().exp(),
    "grad_fn_wraps": lambda lib: lib.arange(20.0) * 1.1 + lib.zeros(20, requires_grad=True),
    "requires_grad_empty": lambda lib: lib.zeros(2, 0, dtype=lib.float64, requires_grad=True),
    "meta": lambda lib: lib.empty(2, 3, device="meta"),
    "meta_int_0d": lambda lib: lib.empty((), dtype=lib.int64, device="meta"),
    "meta_grad": lambda lib: lib.empty(2, device="meta", requires_grad=True) * 2,
    "parameter": lambda lib: lib.nn.Parameter(lib.ones(2, 3)),
    "parameter_frozen_f64": lambda lib: lib.nn.Parameter(
        lib.ones(3, dtype=lib.float64), requires_grad=False
    ),
    "sparse_coo": lambda lib: lib.tensor([[0.0, 1.5], [2.0, 0.0]]).to_sparse(),
    "sparse_csc": lambda lib: lib.tensor([[0.0, 1.5], [2.0, 0.0]]).to_sparse_csc(),
    "nested": lambda lib: lib.nested.nested_tensor([lib.ones(2), lib.zeros(3)], layout=lib.jagged),
}

# print options, each with a tensor that shows it (restored after every case)
OPTIONS: dict[str, tuple[dict, Build]] = {
    "precision_0": ({"precision": 0}, _values([1.5, -2.25, 3.0])),
    "precision_10": ({"precision": 10}, _values([1.5, -2.25, 1 / 3], "float64")),
    "threshold_5": ({"threshold": 5}, _values(np.arange(12.0), shape=(3, 4))),
    "threshold_fraction": ({"threshold": 5.5}, _values(np.arange(6.0), "int64")),
    "edgeitems_0": ({"threshold": 5, "edgeitems": 0}, _values(np.arange(24.0), shape=(2, 3, 4))),
    "edgeitems_1": ({"threshold": 5, "edgeitems": 1}, _values(np.arange(30.0), "complex64")),
    "edgeitems_over_size": ({"threshold": 3, "edgeitems": 100}, _values(np.arange(10.0))),
    "linewidth_10": ({"linewidth": 10}, _values(np.arange(12.0) - 4.5)),
    "linewidth_200": ({"linewidth": 200}, _values(_rng.standard_normal(60))),
    "profile_short": ({"profile": "short"}, _values(_rng.standard_normal(2000) * 100)),
    "profile_full": ({"profile": "full"}, _values(np.arange(1200.0), "int32")),
    "profile_default": ({"profile": "default"}, _values(np.arange(1200.0))),
    "sci_mode_on": ({"sci_mode": True}, _values([1.5, -2.0, 0.0])),
    "sci_mode_off": ({"sci_mode": False}, _values([1.0e-6, 1.0, 1.0e6], "float64")),
    "short_sci_off": ({"profile": "short", "sci_mode": False}, _values([1.0e-6, 2.0])),
    "full_narrow": ({"profile": "full", "precision": 2, "linewidth": 50}, _values(np.arange(60.0))),
    "sci_no_edges": ({"threshold": 3, "edgeitems": 0, "sci_mode": True}, _values([1.0, 2.0])),
    "precision_0_sci": ({"precision": 0, "sci_mode": True}, _values([1.5, 2.5e5], "complex64")),
}


def _texts(build: Build, lib: Any) -> tuple[str, str, str]:
    t = build(lib)
    # (a nested tensor's ragged size is a symbol numbered by how many were made before in
    # the process, j1, j2, ...: the same on both sides only where the tests ran alike)
    return tuple(re.sub(r"\bj\d+\b", "j", text) for text in (repr(t), str(t), format(t)))


# (PyTorch's warnings on making these, which chainrule repeats)
@pytest.mark.filterwarnings("ignore:Sparse CS. tensor support is in beta state:UserWarning")
@pytest.mark.parametrize("name", list(CASES))
def test_repr_str_format_match_torch(name: str) -> None:
    assert _texts(CASES[name], cr) == _texts(CASES[name], torch)


@pytest.mark.parametrize("name", list(OPTIONS))
def test_print_options_match_torch(name: str) -> None:
    options, build = OPTIONS[name]
    cr.set_printoptions(**options)
    torch.set_printoptions(**options)
    assert cr.get_printoptions() == torch._tensor_str.get_printoptions()
    assert _texts(build, cr) == _texts(build, torch)


@pytest.mark.parametrize("default", ["float64", "float16"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128", "int64"])
def test_dtype_suffix_follows_default_dtype(default: str, dtype: str) -> None:
    """``dtype=`` is left out for the default dtype, its complex partner, int64 and bool;
    an empty tensor shows every dtype but the default."""
    for lib in (torch, cr):
        lib.set_default_dtype(getattr(lib, default))
    for build in (_values([1.5, 2.0], dtype), _values(np.zeros((2, 0)), dtype)):
        assert _texts(build, cr) == _texts(build, torch)


@pytest.mark.parametrize(
    ("dtype", "value"),
    [("float32", 3.14159), ("float64", -0.0), ("bfloat16", 1.0e10), ("int64", 42)]
    + [("bool", True), ("complex64", 1.5 - 2j), ("float16", float("nan"))],
)
@pytest.mark.parametrize("spec", ["", ".3f", ">10", ".2e", "g", "+.1%", "08.2f", "x", "c"])
def test_format_spec_on_0d(dtype: str, value: Any, spec: str) -> None:
    """A 0-d tensor formats as its Python number does (f"{t:.3f}")."""

    def formatted(lib: Any) -> str:
        try:
            return format(lib.tensor(value, dtype=getattr(lib, dtype)), spec)
        except (TypeError, ValueError) as exc:  # a spec the number's type refuses
            return type(exc).__name__ + str(exc)

    assert formatted(cr) == formatted(torch)


def test_format_spec_on_a_vector_is_refused() -> None:
    for lib in (torch, cr):
        assert format(lib.ones(2), "") == "tensor([1., 1.])"
        with pytest.raises(TypeError, match="unsupported format string passed to Tensor"):
            format(lib.ones(2), ".3f")


# ----- torch._tensor_str: what tensor subclasses build their repr from ------------------


@pytest.mark.parametrize("force_newline", [False, True])
@pytest.mark.parametrize("linewidth", [80, 20])
@pytest.mark.parametrize(
    "suffixes",
    [[], ["nnz=4"], ["sparse_size=(3, 3)", "nnz=4", "sort_order=row", "is_undirected=True"]],
)
def test_add_suffixes(force_newline: bool, linewidth: int, suffixes: list[str]) -> None:
    """PyG's EdgeIndex closes its repr with ``_add_suffixes``: wrapped at the line width,
    the first suffix on its own line when forced (a sparse COO repr)."""
    head = "EdgeIndex([[0, 1, 1, 2],\n           [1, 0, 2, 1]]"
    for lib in (torch, cr):
        lib.set_printoptions(linewidth=linewidth)
    ours = cr._tensor_str._add_suffixes(head, suffixes, 10, force_newline)
    assert ours == torch._tensor_str._add_suffixes(head, suffixes, 10, force_newline)


@pytest.mark.parametrize(
    "build",
    [
        lambda lib: lib.arange(30.0).reshape(3, 10) / 7,
        lambda lib: lib.ones(2, requires_grad=True) * 3,
        lambda lib: lib.zeros(2, 0, dtype=lib.int32),
        lambda lib: lib.empty(3, device="meta"),
        lambda lib: lib.nn.Parameter(lib.ones(2)),  # (no "Parameter containing:")
    ],
)
def test_str_and_str_intern(build: Build) -> None:
    expected = torch._tensor_str._str(build(torch))
    assert cr._tensor_str._str(build(cr)) == expected
    assert cr._tensor_str._str_intern(build(cr)) == expected


@pytest.mark.parametrize("contents", ["[7, 8]", "[...]\n[...]"])
@pytest.mark.parametrize("shape", [(2,), (2, 0)])
def test_values_replaced_by_tensor_contents(contents: str, shape: tuple) -> None:
    """``tensor_contents`` takes the values' place; the size and suffixes stay."""
    t = torch.ones(shape, dtype=torch.float64, requires_grad=True)
    suffixes = ["dtype=torch.float64", "requires_grad=True"]
    expected = t.__repr__(tensor_contents=contents)
    assert format_tensor(np.ones(shape), suffixes, contents) == expected

    meta = torch.empty(shape, device="meta", requires_grad=True)
    expected = meta.__repr__(tensor_contents=contents)
    assert format_meta(shape, ["requires_grad=True"], contents) == expected
