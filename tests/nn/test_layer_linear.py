"""``nn.Linear``, ``NonDynamicallyQuantizableLinear``, ``Bilinear`` (and ``LazyLinear``)
side by side with torch.nn: outputs, gradients of inputs and parameters, node names,
reprs, state dicts, the default initialisation's distribution, PyTorch's errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import chainrule as cr
from nn_layers import check_module, uniform_stats
from oracle import DT_IDS, FLOATS, R, assert_same_error

LINEAR = [
    ((4, 3), {}, [(2, 4)]),
    ((4, 3), {"bias": False}, [(2, 4)]),
    ((4, 3), {}, [(4,)]),
    ((4, 3), {}, [(2, 5, 4)]),
    ((1, 1), {}, [(3, 1)]),
    ((3, 2), {}, [(0, 3)]),
]


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("args,kw,shapes", LINEAR, ids=lambda v: str(v))
def test_linear(args, kw, shapes, dtype):
    check_module(lambda lib: lib.nn.Linear(*args, **kw), *[R(*s) for s in shapes], dtype=dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_non_dynamically_quantizable_linear(dtype):
    def ctor(lib):
        return lib.nn.modules.linear.NonDynamicallyQuantizableLinear(3, 2, bias=False)

    cm, _ = check_module(ctor, R(4, 3), dtype=dtype)
    assert isinstance(cm, cr.nn.Linear)


BILINEAR = [
    ((3, 4, 2), {}, [(5, 3), (5, 4)]),
    ((3, 4, 2), {"bias": False}, [(5, 3), (5, 4)]),
    ((2, 3, 4), {}, [(2,), (3,)]),
    ((2, 3, 1), {}, [(2, 6, 2), (2, 6, 3)]),
]


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("args,kw,shapes", BILINEAR, ids=lambda v: str(v))
def test_bilinear(args, kw, shapes, dtype):
    check_module(
        lambda lib: lib.nn.Bilinear(*args, **kw),
        *[R(*s, seed=i) for i, s in enumerate(shapes)],
        dtype=dtype,
    )


def test_attributes_and_factory_kwargs():
    m = cr.nn.Linear(5, 7, dtype=cr.float64, device="cpu")
    assert (m.in_features, m.out_features) == (5, 7)
    assert m.weight.dtype == cr.float64 and m.bias.dtype == cr.float64
    assert m.weight.requires_grad and m.weight.is_leaf
    b = cr.nn.Bilinear(2, 3, 4, dtype=cr.float64)
    assert (b.in1_features, b.in2_features, b.out_features) == (2, 3, 4)
    assert b.weight.shape == (4, 2, 3) and b.bias.dtype == cr.float64
    assert cr.nn.Linear(3, 2, bias=False).bias is None
    assert list(cr.nn.Linear(3, 2, bias=False).state_dict()) == ["weight"]


def test_linear_initialisation():
    """Kaiming-uniform with a=sqrt(5) is U(-1/sqrt(fan_in), 1/sqrt(fan_in)); so is the bias."""
    m = cr.nn.Linear(400, 300)
    uniform_stats(m.weight, 1 / math.sqrt(400))
    big = cr.nn.Linear(2500, 2000)
    uniform_stats(big.bias, 1 / math.sqrt(2500))
    before = m.weight.detach().clone()
    version = m.weight._version
    m.reset_parameters()
    assert not cr.equal(before, m.weight) and m.weight._version > version


def test_bilinear_initialisation():
    m = cr.nn.Bilinear(16, 30, 40)
    uniform_stats(m.weight, 1 / math.sqrt(16))
    b = cr.nn.Bilinear(9, 2, 3000)
    uniform_stats(b.bias, 1 / 3)


def test_zero_in_features():
    """A Linear with no inputs: the bias bound is 0, the output is the (zero) bias."""
    for lib in (cr, torch):
        with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
            m = lib.nn.Linear(0, 3)
        assert float(m.bias.detach().abs().sum()) == 0.0
        assert tuple(m(lib.zeros(2, 0)).shape) == (2, 3)


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib: lib.nn.Linear(3, 2)(lib.ones(2, 4)),
        lambda lib: lib.nn.Bilinear(0, 2, 3),
        lambda lib: lib.nn.Bilinear(2, 3, 4)(lib.ones(5, 2), lib.ones(4, 3)),
        lambda lib: lib.nn.Linear(3, 2, foo=1),
    ],
    ids=["shape", "bilinear-zero", "bilinear-batch", "kwarg"],
)
def test_errors(fn):
    assert_same_error(fn)


def test_print_model():
    def model(lib):
        nn = lib.nn
        return nn.Sequential(nn.Linear(4, 8), nn.Linear(8, 2, bias=False), nn.Bilinear(2, 2, 1))

    assert str(model(cr)) == str(model(torch))
    assert np.all([k1 == k2 for k1, k2 in zip(model(cr).state_dict(), model(torch).state_dict())])


# ----- LazyLinear and the lazy-module mechanism ----------------------------------------------


def test_lazy_linear_before_first_call():
    for lib in (cr, torch):
        m = lib.nn.LazyLinear(3)
        assert repr(m) == "LazyLinear(in_features=0, out_features=3, bias=True)"
        assert repr(m.weight) == "<UninitializedParameter>"
        assert lib.nn.parameter.is_lazy(m.weight) and m.has_uninitialized_params()
        assert list(m.state_dict()) == ["weight", "bias"]
        assert isinstance(m.weight, lib.nn.parameter.UninitializedParameter)
        assert isinstance(m.weight, lib.nn.Parameter)
    assert_same_error(lambda lib: lib.nn.LazyLinear(3).weight.shape)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_lazy_linear_becomes_linear(dtype):
    x = R(2, 6, 5).astype(dtype)
    mods = {}
    for lib in (cr, torch):
        m = lib.nn.LazyLinear(4, bias=False, dtype=getattr(lib, np.dtype(dtype).name))
        y = m(lib.tensor(x))
        assert type(m) is lib.nn.Linear and m.in_features == 5
        assert type(m.weight) is lib.nn.Parameter and tuple(m.weight.shape) == (4, 5)
        assert str(m.weight.dtype) == f"torch.{np.dtype(dtype).name}" and tuple(y.shape) == (
            2,
            6,
            4,
        )
        assert not m._forward_pre_hooks and not m._load_state_dict_pre_hooks
        mods[lib] = m
    mods[cr].load_state_dict({"weight": cr.tensor(mods[torch].weight.detach().numpy())})
    assert repr(mods[cr]) == repr(mods[torch])
    out_c, out_t = mods[cr](cr.tensor(x)), mods[torch](torch.tensor(x))
    np.testing.assert_allclose(out_c.detach().numpy(), out_t.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert out_c.grad_fn.name() == out_t.grad_fn.name()


def test_lazy_linear_initialisation():
    m = cr.nn.LazyLinear(300)
    m(cr.ones(1, 400))
    uniform_stats(m.weight, 1 / 20)
    b = cr.nn.LazyLinear(2000)
    b(cr.ones(3))
    uniform_stats(b.bias, 1 / math.sqrt(3))


def test_lazy_linear_load_state_dict():
    """Loading materialises the placeholders to the loaded shapes; the module stays lazy
    until its first call."""
    for lib in (cr, torch):
        m = lib.nn.LazyLinear(2)
        src = lib.nn.Linear(3, 2)
        m.load_state_dict(src.state_dict())
        assert lib.equal(m.weight, src.weight) and not m.has_uninitialized_params()
        assert type(m).__name__ == "LazyLinear"
        m(lib.ones(4, 3))
        assert type(m) is lib.nn.Linear
    assert_same_error(
        lambda lib: lib.nn.Linear(3, 2).load_state_dict(lib.nn.LazyLinear(2).state_dict())
    )
