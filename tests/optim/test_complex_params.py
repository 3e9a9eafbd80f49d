"""Optimizers on complex parameters follow PyTorch's trajectories: a complex parameter is
stepped as the pairs of its real and imaginary parts (torch.view_as_real), so Adam's second
moment, Adagrad's sum or Rprop's signs are per part; SGD's linear step is the same either
way. Their states are complex tensors as in PyTorch. Adafactor, Muon and SparseAdam refuse
complex parameters with PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from optim_helpers import assert_same_plain, plain

import chainrule as cr

SHAPES = [(3, 2), (4,), ()]
STEPS = 8  # (past RAdam's rectification threshold, which it reaches at step 6)

CASES = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.5, "dampening": 0.2, "maximize": True}),
    ("Adam", {"lr": 0.1}),
    ("Adam", {"lr": 0.1, "amsgrad": True, "weight_decay": 0.1, "maximize": True}),
    ("AdamW", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "weight_decay": 0.1, "initial_accumulator_value": 0.5}),
    ("Adadelta", {"lr": 0.5, "weight_decay": 0.1}),
    ("Adamax", {"lr": 0.1, "weight_decay": 0.1}),
    ("ASGD", {"lr": 0.1, "t0": 2, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.1}),
    ("NAdam", {"lr": 0.1, "decoupled_weight_decay": True, "weight_decay": 0.1}),
    ("RAdam", {"lr": 0.1}),
    ("RAdam", {"lr": 0.1, "decoupled_weight_decay": True, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.01, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5}),
    ("Rprop", {"lr": 0.1}),
]


def complex_arrays(rng, shapes):
    return [rng.standard_normal(s) + 1j * rng.standard_normal(s) for s in shapes]


def trajectory(lib, name, kwargs, dtype, steps=STEPS):
    """The parameters after ``steps`` steps with fixed gradients, and the state dict; a real
    parameter rides along with the complex ones in the same group."""
    rng = np.random.default_rng(0)
    start = complex_arrays(rng, SHAPES)
    grads = [complex_arrays(rng, SHAPES) for _ in range(steps)]
    real_start, real_grads = rng.standard_normal(3), rng.standard_normal((steps, 3))
    cdtype = getattr(lib, dtype)
    ps = [lib.nn.Parameter(lib.tensor(a.astype(cdtype_np(dtype)))) for a in start]
    ps.append(lib.nn.Parameter(lib.tensor(real_start.astype(np.float64))))
    opt = getattr(lib.optim, name)(ps, **kwargs)
    for k in range(steps):
        for p, g in zip(ps, grads[k]):
            p.grad = lib.tensor(g.astype(cdtype_np(dtype)), dtype=cdtype)
        ps[-1].grad = lib.tensor(real_grads[k])
        opt.step()
    return [p.detach().numpy().copy() for p in ps], plain(opt.state_dict())


def cdtype_np(dtype):
    return np.complex128 if dtype == "complex128" else np.complex64


@pytest.mark.parametrize(("name", "kwargs"), CASES, ids=lambda c: c if isinstance(c, str) else "")
@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_trajectory_on_complex_parameters_matches_torch(name, kwargs, dtype):
    want, want_state = trajectory(torch, name, kwargs, dtype)
    got, got_state = trajectory(cr, name, kwargs, dtype)
    rtol = 1e-12 if dtype == "complex128" else 2e-5
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)
    assert_same_plain(got_state, want_state, rtol=rtol * 10)


def lbfgs_run(lib, line_search_fn):
    """L-BFGS on |A z - b|² + |w - 1|² for a complex z and a real w."""
    rng = np.random.default_rng(1)
    a = rng.standard_normal((4, 3)) + 1j * rng.standard_normal((4, 3))
    b = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    A, B = lib.tensor(a), lib.tensor(b)
    z = lib.nn.Parameter(lib.zeros(3, dtype=lib.complex128))
    w = lib.nn.Parameter(lib.zeros(2, dtype=lib.float64))
    opt = lib.optim.LBFGS([z, w], lr=0.5, max_iter=6, line_search_fn=line_search_fn)

    def closure():
        opt.zero_grad()
        r = A @ z - B
        loss = (r * r.conj()).real.sum() + ((w - 1) * (w - 1)).sum()
        loss.backward()
        return loss

    losses = [float(opt.step(closure).detach()) for _ in range(2)]
    return losses, z.detach().numpy(), w.detach().numpy()


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_steps_a_complex_parameter_as_real_pairs(line_search_fn):
    want = lbfgs_run(torch, line_search_fn)
    got = lbfgs_run(cr, line_search_fn)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-10)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(got[2], want[2], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ["Adafactor", "Muon"])
def test_optimizers_without_a_complex_form_refuse_it(name):
    for lib in (torch, cr):
        p = lib.nn.Parameter(lib.ones(2, 2, dtype=lib.complex64))
        p.grad = lib.ones(2, 2, dtype=lib.complex64)
        opt = getattr(lib.optim, name)([p], lr=0.1)
        with pytest.raises(RuntimeError, match=f"^{name} does not support complex parameters$"):
            opt.step()
        np.testing.assert_array_equal(p.detach().numpy(), np.ones((2, 2)))


def test_sparse_adam_refuses_complex_parameters_up_front():
    messages = []
    for lib in (torch, cr):
        ps = [lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(2, dtype=lib.complex64))]
        with pytest.raises(ValueError) as err:
            lib.optim.SparseAdam(ps)
        messages.append(str(err.value))
    assert messages[0] == messages[1]
