"""The optimizers on bfloat16 parameters, side by side with torch.optim: the parameters and
their state stay bfloat16 (as PyTorch's), and the trajectories are PyTorch's.

PyTorch steps a bfloat16 parameter with its for-loop kernels, each op computing in float32
and rounding once. Its ``add_(b, alpha=a)`` rounds ``a·b`` to bfloat16 first in the scalar
tail of its vector loop (the last ``n mod 32`` elements of a contiguous tensor on AVX512,
``n mod 16`` on AVX2) and not in the vector body; chainrule rounds once everywhere, as the
body does. So parameters whose size is a multiple of 32 (the vector body only) follow
PyTorch's trajectory bit for bit, and small ones (all tail) stay within 5 bfloat16 ulps of
it over 10 steps (|Δ| <= 2e-2 max(|x|, 1)). (PyTorch's foreach kernels, used only when
asked for on the CPU, round bfloat16 otherwise, some scalars to bfloat16 first: chainrule
follows the for-loop kernels whatever ``foreach`` says.)
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from test_optimizers import CASES, IDS

import chainrule

EXTRA = [
    ("Adafactor", {"lr": 0.01}),
    ("Adafactor", {"lr": 0.01, "weight_decay": 0.1, "maximize": True}),
    ("Adafactor", {"lr": 0.01, "foreach": True}),
]
ALL = CASES + EXTRA
ALL_IDS = IDS + [f"{name}-{'-'.join(kw) or 'default'}" for name, kw in EXTRA]

BODY = [(2, 64), (96,), (4, 2, 32)]  # sizes multiples of 32: PyTorch's vector body only
SMALL = [(3, 4), (5,), (2, 3, 2), ()]  # PyTorch's scalar tail only
STEPS = 10
SMALL_TOL = 2e-2  # |Δ| <= 2e-2 max(|x|, 1): 5 bfloat16 ulps


def f32(t) -> np.ndarray:
    """A tensor's values as a float32 array (NumPy has no bfloat16)."""
    return np.array(t.detach().float().numpy(), copy=True)


def run(lib, name: str, kw: dict, shapes: list, steps: int = STEPS) -> dict:
    """``steps`` steps of ``name`` on bfloat16 parameters of ``shapes``, the gradients
    drawn (bfloat16) for every step; two parameter groups, the second at half the lr."""
    rng = np.random.default_rng(0)
    ps = [
        lib.nn.Parameter(lib.tensor(rng.standard_normal(s), dtype=lib.float32).bfloat16())
        for s in shapes
    ]
    half = len(ps) // 2
    groups = [{"params": ps[:half]}, {"params": ps[half:], "lr": kw["lr"] / 2}]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        opt = getattr(lib.optim, name)(groups, **kw)
    grads = np.random.default_rng(1)
    for _ in range(steps):
        for p in ps:
            g = grads.standard_normal(tuple(p.shape))
            p.grad = lib.tensor(g, dtype=lib.float32).bfloat16()
        opt.step()
    state = opt.state_dict()["state"]
    return {
        "params": [f32(p) for p in ps],
        "dtypes": [str(p.dtype) for p in ps],
        "state_dtypes": {k: {n: str(v.dtype) for n, v in s.items()} for k, s in state.items()},
        "state": {
            (k, n): f32(v)
            for k, s in state.items()
            for n, v in s.items()
            if str(v.dtype) == "torch.bfloat16"
        },
    }


def assert_bfloat16(result: dict, want: dict) -> None:
    """The parameters bfloat16 (values on bfloat16's grid), the state dtypes torch's."""
    assert result["dtypes"] == ["torch.bfloat16"] * len(result["dtypes"]) == want["dtypes"]
    assert result["state_dtypes"] == want["state_dtypes"]
    assert result["state"].keys() == want["state"].keys()
    for p in result["params"]:
        assert np.array_equal(torch.tensor(p).bfloat16().float().numpy(), p)


@pytest.mark.parametrize("name,kw", ALL, ids=ALL_IDS)
def test_vector_body_trajectory_is_torchs_bit_for_bit(name, kw):
    got, want = run(chainrule, name, kw, BODY), run(torch, name, kw, BODY)
    assert_bfloat16(got, want)
    for g, w in zip(got["params"], want["params"]):
        np.testing.assert_array_equal(g, w)
    for key in want["state"]:
        np.testing.assert_array_equal(got["state"][key], want["state"][key], err_msg=str(key))


@pytest.mark.parametrize("name,kw", ALL, ids=ALL_IDS)
def test_small_parameters_stay_within_a_few_ulps(name, kw):
    got, want = run(chainrule, name, kw, SMALL), run(torch, name, kw, SMALL)
    assert_bfloat16(got, want)
    for g, w in zip(got["params"], want["params"]):
        np.testing.assert_allclose(g, w, rtol=SMALL_TOL, atol=SMALL_TOL)


MUON = [
    {"lr": 0.02},
    {"lr": 0.02, "nesterov": False},  # (PyTorch normalizes the buffer in place: below)
    {"lr": 0.02, "momentum": 0.0, "adjust_lr_fn": "match_rms_adamw"},
]


@pytest.mark.parametrize("kw", MUON, ids=["default", "no_nesterov", "no_momentum"])
def test_muon_on_bfloat16_parameters(kw):
    """Muon's orthogonalization in bfloat16 (float64-emulated in chainrule, PyTorch's float32
    matmuls): each step's update within one bfloat16 ulp mostly, the trajectory within
    SMALL_TOL; the momentum buffer bfloat16, and without Nesterov left normalized as PyTorch
    leaves it (its Newton-Schulz starts by dividing the buffer itself)."""
    shapes = [(3, 4), (64, 32), (6, 2), (16, 16)]
    got, want = run(chainrule, "Muon", kw, shapes, 5), run(torch, "Muon", kw, shapes, 5)
    assert_bfloat16(got, want)
    for g, w in zip(got["params"], want["params"]):
        np.testing.assert_allclose(g, w, rtol=SMALL_TOL, atol=SMALL_TOL)
    for key in want["state"]:
        np.testing.assert_allclose(got["state"][key], want["state"][key], rtol=SMALL_TOL, atol=1e-3)


def test_loaded_float32_state_is_cast_to_bfloat16_as_torch():
    """A float32 Adam state loaded into an optimizer of bfloat16 parameters: its moments
    become bfloat16 (``step`` stays float32), and the next step is torch's."""

    def after_load(lib):
        rng = np.random.default_rng(2)
        p32 = lib.nn.Parameter(lib.tensor(rng.standard_normal((2, 32)), dtype=lib.float32))
        opt32 = lib.optim.Adam([p32], lr=0.05)
        p32.grad = lib.tensor(rng.standard_normal((2, 32)), dtype=lib.float32)
        opt32.step()
        p = lib.nn.Parameter(p32.detach().bfloat16())
        opt = lib.optim.Adam([p], lr=0.05)
        opt.load_state_dict(opt32.state_dict())
        state = opt.state[p]
        dtypes = {n: str(v.dtype) for n, v in state.items()}
        p.grad = p32.grad.bfloat16()
        opt.step()
        return dtypes, f32(p), f32(state["exp_avg_sq"])

    got, want = after_load(chainrule), after_load(torch)
    assert (
        got[0]
        == want[0]
        == {
            "step": "torch.float32",
            "exp_avg": "torch.bfloat16",
            "exp_avg_sq": "torch.bfloat16",
        }
    )
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(got[2], want[2])


def test_grad_scaler_steps_bfloat16_parameters_as_torch():
    """GradScaler unscales bfloat16 gradients (PyTorch refuses only float16 ones), skips
    the step whose gradient is inf and halves the scale; the parameters follow torch's."""

    def run_scaled(lib):
        w = lib.nn.Parameter(lib.linspace(-1, 1, 64).reshape(2, 32).bfloat16())
        opt = lib.optim.SGD([w], lr=0.1, momentum=0.9)
        scaler = lib.amp.GradScaler("cpu", init_scale=2.0**10)
        x = lib.linspace(0.5, -0.5, 32).bfloat16()
        log = []
        for i in range(4):
            opt.zero_grad()
            loss = (w * x).float().pow(2).sum()
            scaler.scale(loss).backward()
            if i == 1:
                with lib.no_grad():
                    w.grad[0, 0] = float("inf")
            scaler.unscale_(opt)
            log.append(f32(w.grad))
            scaler.step(opt)
            scaler.update()
            log += [scaler.get_scale(), str(w.dtype), f32(w)]
        return log

    got, want = run_scaled(chainrule), run_scaled(torch)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if isinstance(w, np.ndarray):
            np.testing.assert_array_equal(g, w)
        else:
            assert g == w


def test_lbfgs_on_a_bfloat16_parameter_as_torch():
    """LBFGS on the Rosenbrock function from a bfloat16 start: the losses, iterates and
    the bfloat16 direction and gradient it keeps equal torch's."""

    def run_lbfgs(lib):
        x = lib.nn.Parameter(lib.tensor([-1.5, 2.0]).bfloat16())
        opt = lib.optim.LBFGS([x], lr=0.5, max_iter=5)

        def closure():
            opt.zero_grad()
            loss = ((1 - x[0]) ** 2 + 10 * (x[1] - x[0] ** 2) ** 2).float()
            loss.backward()
            return loss

        log = [(opt.step(closure).item(), f32(x).tolist()) for _ in range(3)]
        state = opt.state[x]
        return log, str(x.dtype), str(state["d"].dtype), str(state["prev_flat_grad"].dtype)

    got, want = run_lbfgs(chainrule), run_lbfgs(torch)
    assert got == want
    assert want[1:] == ("torch.bfloat16",) * 3
