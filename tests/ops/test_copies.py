"""Copies and casts against PyTorch: clone, ``.to`` and the dtype methods (``.float()``,
``.double()``, ...), ``type``, fill_, zero_, copy_: values, dtypes, that a copy is one,
that a cast to the same dtype returns the tensor itself, and the gradients through casts.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import cases
import chainrule as cr
from oracle import (
    DT_IDS,
    FLOATS,
    R,
    assert_close,
    both,
    check,
    check_fd,
    randn,
    shape_id,
)

# ----- clone and casts through the oracle -------------------------------------------------


CAST_OPS = {
    "clone": lambda lib, x: x.clone(),
    "clone_fn": lambda lib, x: lib.clone(x) * x,
    "double": lambda lib, x: x.double(),
    "to_float64": lambda lib, x: x.to(lib.float64) * 3,
    "to_float32": lambda lib, x: x.to(lib.float32),
    "to_dtype_kw": lambda lib, x: x.to(dtype=lib.float64),
    "float": lambda lib, x: x.float(),
    "to_same": lambda lib, x: x.to(x.dtype),
    "double_then_float": lambda lib, x: x.double().sin().float(),
    "to_int64": lambda lib, x: x.to(lib.int64),
}


@pytest.mark.parametrize("shape", [(3, 4), (), (0,)], ids=shape_id)
@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", list(CAST_OPS))
def test_clone_and_casts(name, dtype, shape):
    check(CAST_OPS[name], randn(shape, seed=27) * 3, dtype=dtype)


@pytest.mark.parametrize(
    "name", ["clone", "clone_fn", "double", "to_float64", "to_dtype_kw", "to_same"]
)
def test_clone_and_casts_fd(name):
    """The float64 -> float64 casts (a float32 round trip is beyond finite differences)."""
    check_fd(lambda lib, x: CAST_OPS[name](lib, x).double() * x, randn((3, 4), seed=27))


def test_clone_is_a_copy():
    res = check(lambda lib, x: x.clone(), randn((3,)), dtype=np.float64)
    res.cr_out.detach()[0] = 100.0
    assert res.cr_inputs[0].detach().numpy(force=True)[0] != 100.0


CASES = {
    "clone": (lambda L, x: L.clone(x), R(3, 4)),
    "clone_method": (lambda L, x: x.t().clone(), R(3, 4)),
}

test_clones_match_torch = cases.index_matches_torch(CASES)


# ----- clone, fill_, zero_, copy_ and the dtype conversions -------------------------------


def test_clone():
    def f(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        y = x.clone()
        (y * y).sum().backward()
        with L.no_grad():
            y[0] = 5.0
        return x, y, y.grad_fn.name(), x.grad

    (cx, cy, cn, cg), (tx, ty, tn, tg) = both(f)
    assert_close(cx, tx, exact=True)
    assert_close(cy, ty, exact=True)
    assert cn == tn == "CloneBackward0"
    assert_close(cg, tg, exact=True)
    a = cr.tensor([1, 2])
    b = a.clone()
    b[0] = 9
    assert a.tolist() == [1, 2] and b.dtype is cr.int64


def test_zero_fill_copy():
    def f(L):
        a = L.tensor([1.0, 2.0])
        b = L.tensor([1, 2])
        c = L.zeros(2, 2)
        return [
            a.zero_(),
            L.tensor([1.0, 2.0]).fill_(3),
            b.fill_(2.7),
            c.copy_(L.tensor([1, 2])),
            L.zeros(2, dtype=L.int32).copy_(L.tensor([1.9, -1.9])),
            a,
        ], a.zero_() is a

    (cs, cself), (ts, tself) = both(f)
    for c, t in zip(cs, ts, strict=True):
        assert_close(c, t, exact=True)
    assert cself == tself is True


@pytest.mark.parametrize(
    "convert",
    [
        lambda t: t.float(),
        lambda t: t.double(),
        lambda t: t.half(),
        lambda t: t.long(),
        lambda t: t.int(),
        lambda t: t.short(),
        lambda t: t.char(),
        lambda t: t.byte(),
        lambda t: t.bool(),
        lambda t: t.to(torch.float64 if isinstance(t, torch.Tensor) else cr.float64),
        lambda t: t.to(torch.int32 if isinstance(t, torch.Tensor) else cr.int32),
        lambda t: t.type(torch.int16 if isinstance(t, torch.Tensor) else cr.int16),
        lambda t: t.type("torch.IntTensor"),
        lambda t: t.type("torch.DoubleTensor"),
    ],
)
@pytest.mark.parametrize("data", [[-1.5, 0.0, 2.7], [3, 0, 1], [True, False]])
def test_conversions(convert, data):
    c, t = both(lambda L: convert(L.tensor(data)))
    assert_close(c, t, exact=True)


def test_conversion_to_same_dtype_returns_self():
    def f(L):
        x = L.tensor([1.0, 2.0])
        return (
            x.float() is x,
            x.to(L.float32) is x,
            x.to(x.device) is x,
            x.double() is x,
            x.to(L.float32, copy=True) is x,
            x.type(L.float32) is x,
        )

    c, t = both(f)
    assert c == t


def test_conversion_positional_non_blocking_and_copy():
    """to(dtype, non_blocking, copy) and to(device, dtype, non_blocking, copy): the second
    positional boolean is copy."""

    def f(L):
        x = L.tensor([1.0, 2.0])
        return (
            x.to(L.float32, False, True) is x,
            x.to(L.float32, True) is x,
            x.to("cpu", L.float32, False, True) is x,
            x.to(L.float64, False, True).dtype == L.float64,
            x.to(x, False, True) is x,
        )

    c, t = both(f)
    assert c == t == (False, True, False, True, False)


def test_conversion_records_the_graph():
    x = cr.tensor([1.0, 2.0], requires_grad=True)
    y = x.double()
    assert y.grad_fn.name() == "ToCopyBackward0"
    (y * y).sum().backward()
    assert x.grad.dtype is cr.float32 and x.grad.tolist() == [2.0, 4.0]
