"""The activation layers of ``nn`` side by side with torch.nn: outputs, input gradients and
forward-mode tangents (``oracle.check``), node names, ``inplace=True``, reprs, PReLU's
weight (its initialisation, gradient and state_dict), RReLU in training and eval mode, the
legacy implicit softmax dim and PyTorch's errors, in float32 and float64."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import DT_IDS, FLOATS, assert_close, assert_same_error, check, compare, same_node

# (class name, constructor args, constructor kwargs, input shape)
CASES = [
    ("ReLU", (), {}, (2, 3)),
    ("LeakyReLU", (), {}, (2, 3)),
    ("LeakyReLU", (0.2,), {}, (4,)),
    ("PReLU", (), {}, (2, 3, 4)),
    ("PReLU", (3,), {"init": 0.1}, (2, 3, 4)),
    ("ELU", (), {}, (2, 3)),
    ("ELU", (0.5,), {}, (2, 3)),
    ("SELU", (), {}, (2, 3)),
    ("CELU", (), {}, (2, 3)),
    ("CELU", (2.0,), {}, (5,)),
    ("GELU", (), {}, (2, 3)),
    ("GELU", ("tanh",), {}, (2, 3)),
    ("SiLU", (), {}, (2, 3)),
    ("Mish", (), {}, (2, 3)),
    ("Sigmoid", (), {}, (2, 3)),
    ("Tanh", (), {}, (2, 3)),
    ("Softplus", (), {}, (2, 3)),
    ("Softplus", (2.0, 1.0), {}, (2, 3)),
    ("Softsign", (), {}, (2, 3)),
    ("Softmax", (1,), {}, (2, 3, 4)),
    ("Softmax", (-1,), {}, (2, 3)),
    ("LogSoftmax", (0,), {}, (2, 3)),
    ("Softmin", (1,), {}, (2, 3)),
    ("Softmax2d", (), {}, (2, 3, 2, 2)),
    ("Softmax2d", (), {}, (3, 2, 2)),
    ("Hardtanh", (), {}, (2, 3)),
    ("Hardtanh", (-0.5, 0.7), {}, (2, 3)),
    ("ReLU6", (), {}, (2, 3)),
    ("Hardswish", (), {}, (2, 3)),
    ("Hardsigmoid", (), {}, (2, 3)),
    ("Hardshrink", (), {}, (2, 3)),
    ("Hardshrink", (0.3,), {}, (2, 3)),
    ("Softshrink", (), {}, (2, 3)),
    ("Softshrink", (0.2,), {}, (2, 3)),
    ("Tanhshrink", (), {}, (2, 3)),
    ("Threshold", (0.1, 20.0), {}, (2, 3)),
    ("GLU", (), {}, (2, 4)),
    ("GLU", (0,), {}, (4, 3)),
    ("LogSigmoid", (), {}, (2, 3)),
]

# PyTorch's float64 hardsigmoid derivative is the float32 constant 1/6f
# (as tests/ops/test_activations.py's LOOSE_F64)
LOOSE_F64 = {"Hardsigmoid": 1e-7}


def rtol_of(name, dtype):
    return LOOSE_F64.get(name) if dtype is np.float64 else None


INPLACE = ["ReLU", "LeakyReLU", "ELU", "SELU", "CELU", "SiLU", "Mish", "Hardtanh", "ReLU6"]
INPLACE += ["Hardswish", "Hardsigmoid", "Threshold", "RReLU"]


def case_id(case) -> str:
    name, args, kwargs, shape = case
    return "-".join([name, *map(str, args), *map(str, kwargs.values())]) + f"-{len(shape)}d"


def away_from_kinks(shape, seed=0) -> np.ndarray:
    """Values in (-4, 4), kept away from 0, ±0.1 ... ±3 (the activations' kinks) by 0.02."""
    r = np.random.default_rng(seed)
    v = r.uniform(-4.0, 4.0, shape)
    kinks = np.array([0.0, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 3.0, 6.0])
    near = np.min(np.abs(np.abs(v)[..., None] - kinks), axis=-1) < 0.02
    return np.where(near, v + 0.05, v)


def make(lib, name, args=(), kwargs=None):
    return getattr(lib.nn, name)(*args, **(kwargs or {}))


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_activation_modules_match_torch(case, dtype):
    name, args, kwargs, shape = case

    def fn(lib, x):
        return make(lib, name, args, kwargs).to(x.dtype)(x)

    same_node(check(fn, away_from_kinks(shape), dtype=dtype, rtol=rtol_of(name, dtype)))


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", INPLACE)
def test_inplace_modules_match_torch(name, dtype):
    args = (0.1, 20.0) if name == "Threshold" else ()

    def fn(lib, x):
        m = make(lib, name, args, {"inplace": True})
        m.eval()  # RReLU: the mean slope
        y = x * 1.0
        out = m(y)
        assert out is y  # the input itself, written in place
        return out

    same_node(check(fn, away_from_kinks((2, 3)), dtype=dtype, rtol=rtol_of(name, dtype)))


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("num", [1, 3])
def test_prelu_weight_gradient_and_state(num, dtype):
    x = away_from_kinks((2, 3, 4), seed=1).astype(dtype)
    g = np.random.default_rng(2).standard_normal((2, 3, 4)).astype(dtype)

    def fn(lib):
        torch_dtype = getattr(lib, np.dtype(dtype).name)
        m = lib.nn.PReLU(num, init=0.3, dtype=torch_dtype)
        xt = lib.tensor(x.copy(), requires_grad=True)
        out = m(xt)
        out.backward(lib.tensor(g.copy()))
        sd = m.state_dict()
        names = [n for n, _ in m.named_parameters()]
        return out, xt.grad, m.weight.grad, m.weight, list(sd), names, str(m), type(m.weight)

    got, want = fn(cr), fn(torch)
    assert_close(got[:5], want[:5], 1e-5, 1e-6, requires_grad=False)
    assert got[5:7] == want[5:7]
    assert got[7].__name__ == want[7].__name__ == "Parameter"


def test_prelu_reset_parameters_and_conversion():
    def fn(lib):
        m = lib.nn.PReLU(4, init=-0.5)
        with lib.no_grad():
            m.weight.fill_(2.0)
        m.reset_parameters()
        m.double()
        return m.weight, m.weight.requires_grad

    compare(fn, exact=True)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_rrelu_eval_is_the_mean_slope(dtype):
    def fn(lib, x):
        m = lib.nn.RReLU(0.1, 0.3)
        m.eval()
        return m(x)

    same_node(check(fn, away_from_kinks((3, 4)), dtype=dtype))


@pytest.mark.parametrize("inplace", [False, True])
def test_rrelu_training_samples_slopes_in_bounds(inplace):
    x = away_from_kinks((200,), seed=3)
    results = {}
    for lib in (cr, torch):
        m = lib.nn.RReLU(0.1, 0.3, inplace=inplace)
        assert m.training
        xt = lib.tensor(x.copy(), requires_grad=True)
        out = m(xt * 1.0)
        out.sum().backward()
        y = out.detach().numpy()
        slope = y[x < 0] / x[x < 0]
        assert np.allclose(y[x > 0], x[x > 0])
        assert (slope >= 0.1 - 1e-12).all() and (slope <= 0.3 + 1e-12).all()
        assert slope.std() > 0.01  # drawn, not the mean
        grad = xt.grad.numpy()
        np.testing.assert_allclose(grad[x < 0], slope)  # the drawn slope is the derivative
        np.testing.assert_allclose(grad[x > 0], 1.0)
        results[lib.__name__] = out.grad_fn.name()
    assert results["chainrule"] == results["torch"]


REPRS = [
    ("ReLU", (), {}),
    ("ReLU", (), {"inplace": True}),
    ("LeakyReLU", (), {}),
    ("LeakyReLU", (0.2, True), {}),
    ("PReLU", (), {}),
    ("PReLU", (5, 0.1), {}),
    ("RReLU", (), {}),
    ("RReLU", (0.1, 0.2, True), {}),
    ("ELU", (), {}),
    ("ELU", (0.5, True), {}),
    ("CELU", (2,), {}),
    ("SELU", (True,), {}),
    ("GELU", (), {}),
    ("GELU", ("tanh",), {}),
    ("SiLU", (), {"inplace": True}),
    ("Mish", (), {}),
    ("Sigmoid", (), {}),
    ("Tanh", (), {}),
    ("Softplus", (), {}),
    ("Softplus", (2, 5), {}),
    ("Softsign", (), {}),
    ("Softmax", (), {}),
    ("Softmax", (1,), {}),
    ("Softmin", (0,), {}),
    ("LogSoftmax", (-1,), {}),
    ("Softmax2d", (), {}),
    ("Hardtanh", (), {}),
    ("Hardtanh", (-2, 3, True), {}),
    ("ReLU6", (), {}),
    ("ReLU6", (True,), {}),
    ("Hardswish", (True,), {}),
    ("Hardsigmoid", (), {}),
    ("Hardshrink", (), {}),
    ("Softshrink", (0.3,), {}),
    ("Tanhshrink", (), {}),
    ("Threshold", (0.1, 20), {}),
    ("Threshold", (0.1, 20, True), {}),
    ("GLU", (), {}),
    ("LogSigmoid", (), {}),
]


def test_reprs_and_state_as_torch():
    def fn(lib):
        out = []
        for name, args, kwargs in REPRS:
            m = make(lib, name, args, kwargs)
            out.append((repr(m), list(m.state_dict())))
        model = lib.nn.Sequential(lib.nn.ReLU(), lib.nn.PReLU(2), lib.nn.Softmax(dim=-1))
        out.append(str(model))
        return out

    got, want = fn(cr), fn(torch)
    assert got == want


def test_class_hierarchy_as_torch():
    for name in ["ReLU6", "CELU", "Softshrink", "Softmin", "LogSoftmax", "Softmax2d"]:
        ours = getattr(cr.nn, name)
        theirs = getattr(torch.nn, name)
        for other in ["Hardtanh", "ELU", "Hardshrink", "Softmax"]:
            assert issubclass(ours, getattr(cr.nn, other)) == issubclass(
                theirs, getattr(torch.nn, other)
            ), (name, other)
        assert issubclass(ours, cr.nn.Module)


def test_implicit_softmax_dim_warns_as_torch():
    x = np.random.default_rng(0).standard_normal((2, 3, 4))
    for name in ["Softmax", "Softmin", "LogSoftmax"]:
        results = []
        for lib in (cr, torch):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                out = make(lib, name)(lib.tensor(x))
            results.append((out, [str(w.message) for w in caught], [w.category for w in caught]))
        (c_out, c_msg, c_cat), (t_out, t_msg, t_cat) = results
        assert_close(c_out, t_out)
        assert c_msg == t_msg and len(t_msg) == 1
        assert [c.__name__ for c in c_cat] == [c.__name__ for c in t_cat]


def test_softmax_setstate_restores_a_missing_dim():
    for lib in (cr, torch):
        m = lib.nn.Softmax(1)
        state = dict(m.__dict__)
        del state["dim"]
        m2 = lib.nn.Softmax.__new__(lib.nn.Softmax)
        m2.__setstate__(state)
        assert m2.dim is None


def test_hardtanh_deprecated_argument_names_warn_as_torch():
    def fn(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m = lib.nn.Hardtanh(min_value=-2.0, max_value=2.5)
        return repr(m), [(str(w.message), w.category.__name__) for w in caught]

    compare(fn)


ERRORS = {
    "hardtanh_bounds": lambda lib: lib.nn.Hardtanh(1.0, -1.0),
    "hardtanh_equal_bounds": lambda lib: lib.nn.Hardtanh(0.5, 0.5),
    "softmax2d_2d": lambda lib: lib.nn.Softmax2d()(lib.ones(2, 3)),
    "softmax2d_5d": lambda lib: lib.nn.Softmax2d()(lib.ones(1, 2, 3, 2, 2)),
    "gelu_approximate": lambda lib: lib.nn.GELU("fast")(lib.ones(2)),
    "glu_odd": lambda lib: lib.nn.GLU()(lib.ones(2, 3)),
    "prelu_channels": lambda lib: lib.nn.PReLU(3)(lib.ones(2, 4)),
    "relu_inplace_leaf": lambda lib: lib.nn.ReLU(True)(lib.ones(2, requires_grad=True)),
    "forward_arity": lambda lib: lib.nn.ReLU()(lib.ones(2), lib.ones(2)),
    "forward_arity_relu6": lambda lib: lib.nn.ReLU6()(lib.ones(2), lib.ones(2)),
    "forward_arity_softmin": lambda lib: lib.nn.Softmin(0)(lib.ones(2), lib.ones(2)),
    "forward_arity_celu": lambda lib: lib.nn.CELU()(lib.ones(2), lib.ones(2)),
    "ctor_kwarg": lambda lib: lib.nn.Sigmoid(inplace=True),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_as_torch(name):
    assert_same_error(ERRORS[name])
