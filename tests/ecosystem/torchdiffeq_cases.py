"""The torchdiffeq cases of test_torchdiffeq.py, run once per side, in float64.

``python torchdiffeq_cases.py OUT oracle`` runs every case on the real PyTorch, saving the
neural ODEs' weights to ``OUT/torchdiffeq_weights.pt`` and the results to
``OUT/torchdiffeq_oracle.npz``; ``chainrule run torchdiffeq_cases.py OUT chainrule`` loads
those weights and writes ``OUT/torchdiffeq_chainrule.npz``. A case that raises records its
traceback in ``OUT/torchdiffeq_<side>_errors.json``.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable

import numpy as np
import torch
from case_inputs import Weights
from case_runner import Cases
from torchdiffeq import odeint, odeint_adjoint, odeint_event

OUT, SIDE = sys.argv[1], sys.argv[2]
ORACLE = SIDE == "oracle"
WEIGHTS = Weights(f"{OUT}/torchdiffeq_weights.pt", ORACLE)
CASES = Cases()
case, put = CASES.case, CASES.put

FIXED = ["euler", "midpoint", "rk4", "heun3", "explicit_adams", "implicit_adams"]
ADAPTIVE = ["dopri5", "bosh3", "adaptive_heun", "dopri8", "fehlberg2"]
D = torch.float64


def arr(shape: tuple, seed: int) -> torch.Tensor:
    return torch.tensor(np.random.default_rng(seed).standard_normal(shape), dtype=D)


class ODEFunc(torch.nn.Module):
    """A small neural ODE right-hand side, dy/dt = f(t, y)."""

    def __init__(self, dim: int = 2, hidden: int = 16) -> None:
        super().__init__()
        self.net = torch.nn.Sequential(
            torch.nn.Linear(dim + 1, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, dim)
        )

    def forward(self, t: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        tt = t.expand(*y.shape[:-1], 1)
        return self.net(torch.cat([y, tt], -1))


def module(key: str, make: Callable[[], torch.nn.Module]) -> torch.nn.Module:
    """``make()`` in float64, with the oracle's weights."""
    return WEIGHTS.module(key, lambda: make().to(D))


def options(method: str) -> dict:
    """Fixed grids step 0.05; adaptive solvers' tolerances keep their error estimates far
    above float64 roundoff (dopri8's estimate cancels to roundoff at tighter ones, and
    summation order then changes its step sizes)."""
    if method in FIXED:
        return {"options": {"step_size": 0.05}}
    return {"rtol": 1e-5, "atol": 1e-7} if method == "dopri8" else {"rtol": 1e-7, "atol": 1e-9}


@case
def analytic_decay() -> None:
    # dy/dt = -k y: y(t) = y0 exp(-k t)
    k = torch.tensor([0.5, 1.0, 2.0], dtype=D)
    y0 = torch.tensor([1.0, -2.0, 0.5], dtype=D)
    t = torch.linspace(0, 2, 7, dtype=D)
    exact = y0 * torch.exp(-k * t[:, None])
    for method in FIXED + ADAPTIVE:
        y = odeint(lambda t, y: -k * y, y0, t, method=method, **options(method))
        put(f"decay.{method}", y)
        put(f"decay.{method}.err", (y - exact).abs().max())


@case
def analytic_oscillator() -> None:
    # y'' = -w^2 y as a system: y(t) = cos(w t), y'(t) = -w sin(w t)
    w = 3.0
    y0 = torch.tensor([1.0, 0.0], dtype=D)
    t = torch.linspace(0, 1.5, 5, dtype=D)
    exact = torch.stack([torch.cos(w * t), -w * torch.sin(w * t)], -1)
    for method in FIXED + ADAPTIVE:
        y = odeint(
            lambda t, y: torch.stack([y[1], -(w**2) * y[0]]),
            y0,
            t,
            method=method,
            **options(method),
        )
        put(f"osc.{method}", y)
        put(f"osc.{method}.err", (y - exact).abs().max())


@case
def time_dependent_tuple_state() -> None:
    # a tuple state: dy1/dt = cos t, dy2/dt = 2 t y1; exact y1 = sin t, y2 = 2(sin t - t cos t)
    t = torch.linspace(0, 1, 4, dtype=D)
    y0 = (torch.zeros(1, dtype=D), torch.zeros(1, dtype=D))

    def f(t: torch.Tensor, y: tuple) -> tuple:
        return torch.cos(t).reshape(1), 2 * t * y[0]

    for method in ["rk4", "dopri5", "dopri8"]:
        y1, y2 = odeint(f, y0, t, method=method, **options(method))
        put(f"tuple.{method}.y1", y1)
        put(f"tuple.{method}.y2", y2)
        put(f"tuple.{method}.err", (y1[:, 0] - torch.sin(t)).abs().max())


@case
def neural_ode_backprop() -> None:
    func = module("node", ODEFunc)
    y0 = arr((4, 2), 1).requires_grad_()
    t = torch.linspace(0, 1, 5, dtype=D)
    weights = arr((5, 4, 2), 2)
    for method in FIXED + ADAPTIVE:
        func.zero_grad()
        y0.grad = None
        y = odeint(func, y0, t, method=method, **options(method))
        (y * weights).sum().backward()
        put(f"node.{method}.y", y)
        put(f"node.{method}.grad.y0", y0.grad)
        for name, p in func.named_parameters():
            put(f"node.{method}.grad.{name}", p.grad)


@case
def neural_ode_adjoint() -> None:
    func = module("node_adj", ODEFunc)
    y0 = arr((3, 2), 3).requires_grad_()
    t = torch.linspace(0, 1, 4, dtype=D).requires_grad_()
    weights = arr((4, 3, 2), 4)
    for method in ["dopri5", "rk4", "bosh3"]:
        for adjoint in (False, True):
            func.zero_grad()
            y0.grad = t.grad = None
            solve = odeint_adjoint if adjoint else odeint
            if method in FIXED:
                kw = {"options": {"step_size": 0.05}}
                if adjoint:
                    kw["adjoint_options"] = {"step_size": 0.05}
            else:
                kw = {"rtol": 1e-10, "atol": 1e-12}
                if adjoint:
                    kw.update(adjoint_rtol=1e-10, adjoint_atol=1e-12)
            y = solve(func, y0, t, method=method, **kw)
            (y * weights).sum().backward()
            tag = f"adj.{method}.{'adjoint' if adjoint else 'direct'}"
            put(f"{tag}.y", y)
            put(f"{tag}.grad.y0", y0.grad)
            put(f"{tag}.grad.t", t.grad)
            for name, p in func.named_parameters():
                put(f"{tag}.grad.{name}", p.grad)


@case
def adjoint_seminorm_and_params() -> None:
    func = module("node_semi", ODEFunc)
    y0 = arr((3, 2), 6).requires_grad_()
    t = torch.linspace(0, 1, 3, dtype=D)
    weights = arr((3, 3, 2), 7)
    params = tuple(func.net[0].parameters())  # gradients for the first layer only
    for norm in ("default", "seminorm"):
        func.zero_grad()
        y0.grad = None
        opts = {"norm": "seminorm"} if norm == "seminorm" else {}
        y = odeint_adjoint(
            func,
            y0,
            t,
            rtol=1e-9,
            atol=1e-11,
            adjoint_params=params,
            adjoint_options=opts,
        )
        (y * weights).sum().backward()
        put(f"semi.{norm}.grad.y0", y0.grad)
        put(f"semi.{norm}.grad.w0", func.net[0].weight.grad)
        put(f"semi.{norm}.w2_untouched", func.net[2].weight.grad is None)


@case
def float32_solves() -> None:
    # float32 state and weights: the solver's steps in float32 arithmetic
    f32 = module("node_f32", ODEFunc).float()
    y0 = arr((4, 2), 8).float().requires_grad_()
    t = torch.linspace(0, 1, 4)
    for method in ("rk4", "dopri5"):
        y0.grad = None
        f32.zero_grad()
        y = odeint(f32, y0, t, method=method, **options(method))
        y.square().sum().backward()
        put(f"f32.{method}.y", y)
        put(f"f32.{method}.grad.y0", y0.grad)
        put(f"f32.{method}.grad.w0", f32.net[0].weight.grad)


@case
def scipy_solver() -> None:
    k = torch.tensor([0.5, 1.5], dtype=D)
    y0 = torch.tensor([1.0, 2.0], dtype=D)
    t = torch.linspace(0, 2, 5, dtype=D)
    for solver in ("RK45", "LSODA"):
        y = odeint(
            lambda t, y: -k * y,
            y0,
            t,
            method="scipy_solver",
            rtol=1e-10,
            atol=1e-12,
            options={"solver": solver},
        )
        put(f"scipy.{solver}", y)
        put(f"scipy.{solver}.err", (y - y0 * torch.exp(-k * t[:, None])).abs().max())


@case
def options_grid_and_jump_t() -> None:
    func = module("node_opts", ODEFunc)
    y0 = arr((2,), 5)
    t = torch.linspace(0, 2, 6, dtype=D)
    with torch.no_grad():
        put("opts.grid", odeint(func, y0, t, method="rk4", options={"grid_constructor": None}))
        put("opts.perturb_interp", odeint(func, y0, t, method="euler", options={"step_size": 0.3}))
        put(
            "opts.first_step",
            odeint(
                func, y0, t, method="dopri5", options={"first_step": 0.01, "max_num_steps": 10000}
            ),
        )
        jump = torch.tensor([0.7, 1.3], dtype=D)
        put("opts.jump_t", odeint(func, y0, t, method="dopri5", options={"jump_t": jump}))
        put("opts.step_t", odeint(func, y0, t, method="dopri5", options={"step_t": jump}))
        put("opts.backward_time", odeint(func, y0, t.flip(0), method="dopri5"))


@case
def events() -> None:
    # a ball thrown up with gravity: the time it hits the ground, and its gradient
    g = 9.81
    v0 = torch.tensor(4.0, dtype=D, requires_grad=True)
    h0 = torch.tensor(1.5, dtype=D, requires_grad=True)
    y0 = torch.stack([h0, v0])

    def f(t: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.stack([y[1], torch.full_like(y[1], -g)])

    def ground(t: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return y[0]

    t0 = torch.tensor(0.0, dtype=D)
    for method in ["dopri5", "bosh3"]:
        v0.grad = h0.grad = None
        event_t, sol = odeint_event(
            f,
            y0,
            t0,
            event_fn=ground,
            method=method,
            rtol=1e-10,
            atol=1e-12,
            odeint_interface=odeint,
        )
        event_t.backward()
        exact = (v0 + torch.sqrt(v0**2 + 2 * g * h0)) / g
        put(f"event.{method}.t", event_t)
        put(f"event.{method}.sol", sol[-1])
        put(f"event.{method}.err", (event_t - exact).abs())
        put(f"event.{method}.grad", torch.stack([h0.grad, v0.grad]))
    put("event.exact_dt_dh0", 1 / math.sqrt(16.0 + 2 * g * 1.5))


CASES.run(f"{OUT}/torchdiffeq_{SIDE}")
WEIGHTS.save()
