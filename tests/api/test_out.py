"""``out=`` as PyTorch's: the result is written into the given tensor (cast to its dtype,
or PyTorch's error where the cast is not allowed), the tensor is returned and its
version bumped; an input requiring grad is refused, and a tensor of the wrong size is
resized with PyTorch's warning.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import (
    values,
)

OUT_CASES = {
    "exp": lambda L, x, out: L.exp(x, out=out),
    "add": lambda L, x, out: L.add(x, 2, alpha=3, out=out),
    "mul": lambda L, x, out: L.mul(x, x, out=out),
    "div_int": lambda L, x, out: L.div(L.tensor([1, 2, 3]), 2, out=out),
    "clamp": lambda L, x, out: L.clamp(x, -0.5, 0.5, out=out),
    "clamp_tensor": lambda L, x, out: L.clamp(x, min=x * 0, out=out),
    "clamp_min": lambda L, x, out: L.clamp_min(x, 0.5, out=out),
    "maximum": lambda L, x, out: L.maximum(x, -x, out=out),
    "atan2": lambda L, x, out: L.atan2(x, x + 3, out=out),
    "lt": lambda L, x, out: L.lt(x, 0, out=out),
    "xlogy": lambda L, x, out: L.xlogy(x, 2.0, out=out),
    "erf": lambda L, x, out: L.erf(x, out=out),
    "floor_divide": lambda L, x, out: L.floor_divide(x, 0.3, out=out),
}


@pytest.mark.parametrize("name", sorted(OUT_CASES))
def test_out_writes_into_the_given_tensor_as_torch(name):
    fn = OUT_CASES[name]
    x = values("any", (3,), 21)
    for out_dtype in ("float32", "float64", "int64"):
        got = want = None
        for lib in (cr, torch):
            out = lib.zeros(3, dtype=getattr(lib, out_dtype))
            try:
                res = fn(lib, lib.tensor(x, dtype=lib.float32), out)
            except RuntimeError as e:
                res = type(e)
            else:
                assert res is out and out._version == 1
            if lib is cr:
                got = res
            else:
                want = res
        if isinstance(want, type):
            assert got is want, f"torch raises for out={out_dtype}"
        else:
            assert str(got.dtype) == str(want.dtype)
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_out_with_an_input_requiring_grad_raises_and_resizes_with_a_warning():
    for lib in (cr, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError, match=r"exp\(\): functions with out=\.\.\. arguments"):
            lib.exp(x, out=lib.empty(2))
        with lib.no_grad():
            out = lib.empty(5)
            with pytest.warns(UserWarning, match="was resized"):
                assert lib.sin(x, out=out) is out
            assert out.shape == (2,)
            empty = lib.empty(0)
            lib.add(x, 1, out=empty)
            assert empty.tolist() == [2.0, 3.0]
