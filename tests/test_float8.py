"""The float8 dtypes (float8_e4m3fn, float8_e5m2 and their fnuz forms): casts, storage ops,
promotion, printing and errors as PyTorch's; the ops PyTorch refuses to compute in float8
compute in float32 and round, as chainrule's bfloat16 ones (docs/bfloat16.md)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch

import chainrule as cr

NAMES = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz"]
# nan left out: PyTorch's casts give some formats' nan other bits than ml_dtypes'
VALUES = [1.1, -2.5, 448, 465, 500, 1e-3, 1e-9, float("inf"), float("-inf"), 57344, 70000,
          2.0**-17, -0.0, 0.3, 240, 241]  # fmt: skip


def bits(t) -> list:
    return t.view(cr.uint8 if isinstance(t, cr.Tensor) else torch.uint8).tolist()


def same(fn) -> None:
    """fn(lib) gives the same dtype, shape and bits in both libraries."""
    got, want = fn(cr), fn(torch)
    assert str(got.dtype) == str(want.dtype) and tuple(got.shape) == tuple(want.shape)
    if got.dtype.itemsize == 1 and got.dtype.is_floating_point:
        assert bits(got) == bits(want)
    else:  # (nan equal to nan)
        np.testing.assert_array_equal(np.array(got.tolist()), np.array(want.tolist()))


@pytest.mark.parametrize("name", NAMES)
def test_the_dtypes_as_torch(name):
    d, t = getattr(cr, name), getattr(torch, name)
    assert repr(d) == repr(t) and d.itemsize == 1 and d.is_floating_point and d.is_signed
    assert repr(cr.finfo(d)) == repr(torch.finfo(t))
    for other in ("float32", "int64", "bool", "bfloat16", NAMES[(NAMES.index(name) + 1) % 4]):
        with pytest.raises(RuntimeError) as ours:
            cr.promote_types(d, getattr(cr, other))
        with pytest.raises(RuntimeError) as theirs:
            torch.promote_types(t, getattr(torch, other))
        assert str(ours.value) == str(theirs.value)
    assert cr.promote_types(d, d) is d


@pytest.mark.parametrize("name", NAMES)
def test_casts_as_torch(name):
    """Round to nearest even; float8_e4m3fn (no infinity) saturates at ±448, the others as
    their formats say (fnuz: nan beyond the largest)."""
    same(lambda lib: lib.tensor(VALUES).to(getattr(lib, name)))
    same(lambda lib: lib.tensor(VALUES, dtype=lib.float64).to(getattr(lib, name)))
    same(lambda lib: lib.tensor(VALUES).to(getattr(lib, name)).float())
    same(lambda lib: lib.tensor(VALUES[:6]).to(getattr(lib, name)).to(lib.bfloat16))
    same(lambda lib: lib.tensor([1.3, 100.0], dtype=getattr(lib, name)))
    same(lambda lib: lib.full((2,), 3.3, dtype=getattr(lib, name)))
    same(lambda lib: lib.zeros(4, dtype=getattr(lib, name)).copy_(lib.tensor([1.0, 2, 3, 500])))


X = [1.1, -2.5, 448, 0.5]


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib, x: x.view(lib.uint8),
        lambda lib, x: lib.tensor([56, 200], dtype=lib.uint8).view(x.dtype),
        lambda lib, x: lib.cat([x, x]),
        lambda lib, x: lib.stack([x, x]),
        lambda lib, x: x.index_select(0, lib.tensor([0, 2])),
        lambda lib, x: x[lib.tensor([3, 1])],
        lambda lib, x: x.reshape(2, 2).t().contiguous(),
        lambda lib, x: x[None].expand(2, 4),
        lambda lib, x: x.chunk(2)[1],
        lambda lib, x: x.clone().fill_(1.5),
        lambda lib, x: x.clone().zero_(),
        lambda lib, x: lib.zeros_like(x),
        lambda lib, x: (
            lib.where(lib.tensor([True, False, True, False]), x, x.flip(0))
            if lib is cr
            else lib.where(lib.tensor([True, False, True, False]), x, x[[3, 2, 1, 0]])
        ),
        lambda lib, x: x.abs(),
        lambda lib, x: x == x.abs(),
        lambda lib, x: x != x.abs(),
        lambda lib, x: x.isnan(),
        lambda lib, x: x.any(),
    ],
)
@pytest.mark.parametrize("name", NAMES)
def test_what_torch_computes_in_float8_as_torch(fn, name):
    same(lambda lib: fn(lib, lib.tensor(X).to(getattr(lib, name))))


def test_setitem_and_python_values_as_torch():
    for lib in (cr, torch):
        x = lib.tensor(X).to(lib.float8_e4m3fn)
        x[0] = 2.3
        assert x.tolist() == [2.25, -2.5, 448.0, 0.5] and x[2].item() == 448.0
        with pytest.raises(TypeError, match="Got unsupported ScalarType Float8_e4m3fn"):
            x.numpy()
        assert x.element_size() == 1 and x.nbytes == 4
    for name in NAMES:
        x = cr.tensor([[1.1, 1e-3], [448, -0.5]]).to(getattr(cr, name))
        assert repr(x) == repr(torch.tensor([[1.1, 1e-3], [448, -0.5]]).to(getattr(torch, name)))


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib, x: x + x,
        lambda lib, x: x * 2,
        lambda lib, x: x.sum(),
        lambda lib, x: x.sort().values,
        lambda lib, x: lib.relu(x),
    ],
)
def test_what_torch_refuses_computes_in_float32_and_rounds(fn):
    """PyTorch raises NotImplementedError ("... not implemented for 'Float8_e4m3fn'");
    chainrule gives PyTorch's float32 result on the same values, rounded to float8."""
    x = torch.tensor(X).to(torch.float8_e4m3fn)
    with pytest.raises(NotImplementedError, match="not implemented for 'Float8_e4m3fn'"):
        fn(torch, x)
    got = fn(cr, cr.tensor(X).to(cr.float8_e4m3fn))
    want = fn(torch, x.float()).to(torch.float8_e4m3fn)
    assert str(got.dtype) == "torch.float8_e4m3fn" and bits(got) == bits(want)


def test_without_ml_dtypes_float8_names_the_extra():
    code = (
        "import sys; sys.modules['ml_dtypes'] = None\n"
        "import chainrule as cr\n"
        "print(cr.float8_e4m3fn, cr.finfo(cr.float8_e4m3fn).max)\n"
        "try:\n"
        "    cr.ones(2).to(cr.float8_e4m3fn)\n"
        "except NotImplementedError as e:\n"
        "    print(e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out[0] == "torch.float8_e4m3fn 448.0"
    assert out[1] == (
        "torch.float8_e4m3fn needs the optional package ml_dtypes (NumPy has no "
        "float8_e4m3fn dtype): pip install 'chainrule[bfloat16]'"
    )


def test_fill_values_and_constructors_as_torch():
    for lib in (cr, torch):
        with pytest.raises(RuntimeError, match="c10::Float8_e4m3fn without overflow"):
            lib.full((2,), 1000.0, dtype=lib.float8_e4m3fn)
        with pytest.raises(RuntimeError, match="c10::Float8_e4m3fnuz without overflow"):
            lib.full((2,), 241.0, dtype=lib.float8_e4m3fnuz)
    same(lambda lib: lib.tensor([1000.0, -3, 7], dtype=lib.float8_e4m3fn))  # (saturated)
    same(lambda lib: lib.tensor([1, 2, 300], dtype=lib.float8_e5m2))
