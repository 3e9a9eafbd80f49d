"""The optimizers side by side with torch.optim: 50-step trajectories from the same
parameters and gradients (every optimizer, every flag), state dicts taken mid-run and
loaded across libraries, LBFGS on a Rosenbrock function, reprs, defaults and errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from optim_helpers import assert_same_plain, convert, initial, numpy_of, params, plain

import chainrule

# (optimizer, keyword arguments): each hyperparameter flag on at least once.
CASES = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "maximize": True}),
    ("Adam", {"lr": 0.05}),
    ("Adam", {"lr": 0.05, "amsgrad": True, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.05, "maximize": True, "betas": (0.8, 0.99), "eps": 1e-3}),
    ("Adam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("AdamW", {"lr": 0.05}),
    ("AdamW", {"lr": 0.05, "amsgrad": True, "maximize": True, "weight_decay": 0.2}),
    ("Adamax", {"lr": 0.05}),
    ("Adamax", {"lr": 0.05, "weight_decay": 0.1, "maximize": True}),
    ("NAdam", {"lr": 0.05}),
    ("NAdam", {"lr": 0.05, "weight_decay": 0.1, "momentum_decay": 0.01}),
    ("NAdam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True}),
    ("RAdam", {"lr": 0.05}),
    ("RAdam", {"lr": 0.05, "weight_decay": 0.1, "maximize": True}),
    ("RAdam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "centered": True, "alpha": 0.9}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.8, "weight_decay": 0.1, "maximize": True}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.8, "centered": True}),
    ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.05, "initial_accumulator_value": 0.5}),
    ("Adagrad", {"lr": 0.1, "weight_decay": 0.1, "maximize": True, "eps": 1e-3}),
    ("Adadelta", {"lr": 1.0}),
    ("Adadelta", {"lr": 0.5, "rho": 0.7, "weight_decay": 0.1, "maximize": True}),
    ("ASGD", {"lr": 0.05}),
    ("ASGD", {"lr": 0.05, "lambd": 0.01, "alpha": 0.5, "t0": 10, "weight_decay": 0.1}),
    ("ASGD", {"lr": 0.05, "t0": 5, "maximize": True}),
    ("Rprop", {"lr": 0.01}),
    ("Rprop", {"lr": 0.01, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.05), "maximize": True}),
]
IDS = [f"{name}-{'-'.join(kw) or 'default'}" for name, kw in CASES]
STEPS = 50


def _optimizer(lib, name, kw, ps):
    """Two parameter groups, the second with half the learning rate."""
    groups = [{"params": ps[:2]}, {"params": ps[2:], "lr": kw["lr"] / 2}]
    return getattr(lib.optim, name)(groups, **kw)


def _gradients(seed: int, n: int) -> list[list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    base = initial()
    return [[rng.standard_normal(a.shape) for a in base] for _ in range(n)]


def _step(lib, opt, ps, grads, dtype):
    for p, g in zip(ps, grads):
        p.grad = lib.tensor(g, dtype=getattr(lib, dtype))
    opt.step()


def _assert_params(cps, tps, rtol):
    for c, t in zip(cps, tps):
        assert str(c.dtype) == str(t.dtype)
        np.testing.assert_allclose(numpy_of(c), numpy_of(t), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("dtype,rtol", [("float64", 1e-10), ("float32", 1e-4)])
@pytest.mark.parametrize("name,kw", CASES, ids=IDS)
def test_trajectory(name, kw, dtype, rtol):
    """50 steps from the same start and gradients equal torch's; a state dict taken at
    step 25 (and loaded into fresh optimizers across libraries) continues the same way."""
    grads = _gradients(1, STEPS)
    cps, tps = params(chainrule, initial(), dtype), params(torch, initial(), dtype)
    copt, topt = _optimizer(chainrule, name, kw, cps), _optimizer(torch, name, kw, tps)
    for g in grads[:25]:
        _step(chainrule, copt, cps, g, dtype)
        _step(torch, topt, tps, g, dtype)
    _assert_params(cps, tps, rtol)
    csd, tsd = copt.state_dict(), topt.state_dict()
    assert_same_plain(plain(csd), plain(tsd), rtol)
    # fresh optimizers on copies of the current parameters, each loading the other's dict
    cps2 = params(chainrule, [numpy_of(p) for p in tps], dtype)
    tps2 = params(torch, [numpy_of(p) for p in cps], dtype)
    copt2, topt2 = (
        _optimizer(chainrule, name, {**kw, "lr": 9.0}, cps2),
        _optimizer(torch, name, {**kw, "lr": 9.0}, tps2),
    )
    copt2.load_state_dict(convert(tsd, chainrule))
    topt2.load_state_dict(convert(csd, torch))
    assert_same_plain(plain(copt2.state_dict()), plain(topt2.state_dict()), rtol)
    for g in grads[25:]:
        for lib, opt, ps in (
            (chainrule, copt, cps),
            (torch, topt, tps),
            (chainrule, copt2, cps2),
            (torch, topt2, tps2),
        ):
            _step(lib, opt, ps, g, dtype)
    _assert_params(cps, tps, rtol)
    _assert_params(cps2, tps, rtol)
    _assert_params(tps2, tps, rtol)
    assert_same_plain(plain(copt.state_dict()), plain(topt.state_dict()), rtol)
