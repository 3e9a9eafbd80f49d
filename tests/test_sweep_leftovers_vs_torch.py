"""Leftovers of the sweeps against PyTorch: nll_loss's gradient as a function of its input
(double backward), the subnormal tails of softplus' and log_sigmoid's gradients, in-place
casts refused before the kernel (``a |= 1.5``) and clamp_'s C type names, linspace's and
logspace's refusal of a steps that is no int, and a second backward into a .grad made by a
create_graph backward (added in place, its graph kept)."""

from __future__ import annotations

import operator

import numpy as np
import pytest
import torch

import chainrule as cr

LIBS = (torch, cr)


def _outcome(fn):
    """``fn``'s result as a list, or its exception's type and message."""
    try:
        return ("ok", fn().tolist())
    except Exception as e:  # noqa: BLE001 (the oracle's exception, whatever it is)
        return (type(e).__name__, str(e))


def _same_outcome(fn) -> None:
    assert _outcome(lambda: fn(cr)) == _outcome(lambda: fn(torch))


# ----- nll_loss: a gradient that depends on x (derivative 0) ---------------------------------

NLL_CASES = {
    "mean": lambda lib, x: lib.nn.functional.nll_loss(x, lib.tensor([0, 1, 2])),
    "sum": lambda lib, x: lib.nn.functional.nll_loss(x, lib.tensor([0, 3, 2]), reduction="sum"),
    "none": lambda lib, x: lib.nn.functional.nll_loss(x, lib.tensor([1, 1, 2]), reduction="none"),
    "weighted_ignored": lambda lib, x: lib.nn.functional.nll_loss(
        x, lib.tensor([0, -100, 2]), weight=lib.tensor([1.0, 2.0, 3.0, 4.0])
    ),
    "2d": lambda lib, x: lib.nn.functional.nll_loss(
        x.reshape(1, 3, 2, 2), lib.tensor([[[0, 1], [2, 0]]])
    ),
}


def _nll_double_backward(lib, name):
    x = lib.tensor(np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(3, 4), requires_grad=True)
    loss = NLL_CASES[name](lib, x)
    g = lib.ones_like(loss).mul(0.5).requires_grad_()
    (gx,) = lib.autograd.grad(loss, x, g, create_graph=True)
    (gx * gx).sum().backward()
    return gx.detach().numpy(), gx.grad_fn.name(), x.grad.numpy(), g.grad.numpy()


@pytest.mark.parametrize("name", list(NLL_CASES))
def test_nll_loss_gradient_is_a_function_of_the_input_as_torch(name):
    """The gradient penalty of nll_loss backpropagates zeros to x (PyTorch's
    NllLossBackwardBackward0 takes x), and g its loss of the gradient's square."""
    got, want = _nll_double_backward(cr, name), _nll_double_backward(torch, name)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
    assert got[1] == want[1]
    np.testing.assert_array_equal(got[2], want[2])
    np.testing.assert_allclose(got[3], want[3], rtol=1e-6)


# ----- softplus and log_sigmoid: subnormal gradients kept ------------------------------------

TAILS = [-200.0, -104.0, -103.0, -100.0, -95.0, -90.0, -88.0, -50.0, -1.0, 0.0, 1.0, 20.0]
TAILS += [87.0, 90.0, 100.0, 103.0, 200.0]
ACTIVATIONS = {
    "softplus": lambda F, x: F.softplus(x),
    "softplus_beta": lambda F, x: F.softplus(x, beta=2.0, threshold=30.0),
    "softplus_half": lambda F, x: F.softplus(x, beta=0.5, threshold=80.0),
    "logsigmoid": lambda F, x: F.logsigmoid(x),
}


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_gradient_tails_keep_subnormals_as_torch(name, dt, create_graph):
    grads = []
    for lib in LIBS:
        x = lib.tensor(TAILS, dtype=getattr(lib, dt), requires_grad=True)
        y = ACTIVATIONS[name](lib.nn.functional, x)
        (gx,) = lib.autograd.grad(y.sum(), x, create_graph=create_graph)
        grads.append(gx.detach().numpy())
    got, want = grads
    # exact on the tails (e^x/(1 + e^x) there, as PyTorch's kernels), near 1 within rounding
    np.testing.assert_allclose(got, want, rtol=3e-7 if dt == "float32" else 1e-15, atol=0)


def test_softplus_tail_gradient_of_a_0d_tensor_as_torch():
    grads = []
    for lib in LIBS:
        x = lib.tensor(-95.0, requires_grad=True)
        lib.nn.functional.softplus(x).backward()
        grads.append(x.grad.item())
    assert grads[0] == grads[1] > 0


# ----- in place: a result type the tensor cannot hold, refused before the kernel --------------

BITWISE = ["ior", "iand", "ixor", "ilshift", "irshift"]
OTHERS = {
    "float": 1.5,
    "complex": 2j,
    "float_tensor": lambda lib: lib.tensor([1.0, 0.0, 2.0]),
    "0d_double": lambda lib: lib.tensor(0.5, dtype=lib.float64),
    "int": 1,
    "bool_tensor": lambda lib: lib.tensor([True, False, True]),
}


@pytest.mark.parametrize("other", list(OTHERS))
@pytest.mark.parametrize("op", BITWISE)
@pytest.mark.parametrize("dt", ["int64", "uint8", "bool", "float32"])
def test_inplace_bitwise_refuses_the_cast_as_torch(dt, op, other):
    def run(lib):
        a = lib.tensor([1, 2, 3]).to(getattr(lib, dt))
        value = OTHERS[other]
        return getattr(operator, op)(a, value(lib) if callable(value) else value)

    _same_outcome(run)


CLAMPS = {
    "clamp_": lambda lib, a: a.clamp_(0.5),
    "clamp_both": lambda lib, a: a.clamp_(0.5, 1.5),
    "clamp_max": lambda lib, a: a.clamp_(max=0.5),
    "clamp_min_": lambda lib, a: a.clamp_min_(0.5),
    "clamp_max_": lambda lib, a: a.clamp_max_(1),
    "clip_": lambda lib, a: a.clip_(0.5),
    "torch.clamp_": lambda lib, a: lib.clamp_(a, 0.5),
    "tensor_bound": lambda lib, a: a.clamp_(lib.tensor([0.5, 1.0, 1.0])),
    "tensor_max": lambda lib, a: a.clamp_(max=lib.tensor(0.5)),
}


@pytest.mark.parametrize("case", list(CLAMPS))
@pytest.mark.parametrize("dt", ["int64", "int32", "int16", "int8", "uint8", "bool"])
def test_inplace_clamp_names_the_c_type_as_torch(dt, case):
    """A number bound names the destination's C type ('long int'), a tensor bound its
    dtype ('Long'), as PyTorch."""
    _same_outcome(lambda lib: CLAMPS[case](lib, lib.tensor([0, 1, 2]).to(getattr(lib, dt))))


# ----- linspace, logspace: steps must be an int ----------------------------------------------

STEPS = {
    "int": 5,
    "zero": 0,
    "float": 5.0,
    "bool": True,
    "numpy_int": np.int64(4),
    "numpy_float": np.float64(4),
    "str": "5",
    "none": None,
    "int_tensor": lambda lib: lib.tensor(5),
    "float_tensor": lambda lib: lib.tensor(5.0),
    "1d_tensor": lambda lib: lib.tensor([5]),
}


@pytest.mark.parametrize("steps", list(STEPS))
@pytest.mark.parametrize("start", ["int", "tensor"])
@pytest.mark.parametrize("fn", ["linspace", "logspace", "logspace_base"])
def test_spacing_refuses_steps_that_are_no_int_as_torch(fn, start, steps):
    def run(lib):
        s = lib.tensor(0.0) if start == "tensor" else 0
        n = STEPS[steps](lib) if callable(STEPS[steps]) else STEPS[steps]
        if fn == "logspace_base":
            return lib.logspace(s, 1, n, 2.0)
        return getattr(lib, fn)(s, 1, n)

    got, want = _outcome(lambda: run(cr)), _outcome(lambda: run(torch))
    assert got[0] == want[0]
    if got[0] == "ok":
        np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
    else:
        assert got[1] == want[1]


# ----- a second backward into a .grad that requires grad -------------------------------------


def _accumulated(lib, first_graph, second_graph):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    (x**3).sum().backward(create_graph=first_graph)
    before = x.grad
    (x**2).sum().backward(create_graph=second_graph)
    after = x.grad
    fn = after.grad_fn.name() if after.grad_fn is not None else None
    out = (after is before, after.requires_grad, fn, after.tolist(), before.tolist())
    if after.requires_grad:  # the accumulated .grad differentiates to x as PyTorch's
        (gg,) = lib.autograd.grad(after.sum(), x)
        out += (gg.tolist(),)
    return out + (after._version - before._version,)


@pytest.mark.parametrize("second_graph", [False, True])
@pytest.mark.parametrize("first_graph", [False, True])
def test_second_backward_into_a_grad_with_a_graph_as_torch(first_graph, second_graph):
    """Without create_graph the new gradient is added into the .grad in place (its
    CopyBackwards kept, its version bumped); with it .grad becomes old + new."""
    got = _accumulated(cr, first_graph, second_graph)
    assert got == _accumulated(torch, first_graph, second_graph)


def test_backward_into_a_grad_that_is_a_leaf_requiring_grad_as_torch():
    outs = []
    for lib in LIBS:
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        x.grad = lib.zeros(2, requires_grad=True)
        before = x.grad
        (x**2).sum().backward()
        outs.append((x.grad is before, x.grad.requires_grad, x.grad.tolist()))
    assert outs[0] == outs[1]
