"""Adafactor and Muon side by side with torch.optim: trajectories from the same parameters
and gradients (each option), state dicts taken mid-run and loaded across libraries, a
small least-squares model trained with a closure, reprs, defaults and argument errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from optim_helpers import (
    assert_same_plain,
    initial,
    numpy_of,
    params,
    plain,
    step,
    trajectory_across_libraries,
)

import chainrule
from oracle import assert_same_error

STEPS = 12

# Adafactor on every shape of ``initial()``: a matrix, a vector, a 3-d tensor (factored
# over its last two dims) and a scalar.
ADAFACTOR = [
    {},
    {"lr": 0.05, "weight_decay": 0.1},
    {"lr": 0.05, "maximize": True},
    {"lr": 0.5, "beta2_decay": -0.5, "eps": (1e-4, 1e-2), "d": 1.5},
    {"lr": 0.05, "eps": (None, 0.5), "d": 10.0},
    {"lr": 0.05, "weight_decay": 0.2, "maximize": True, "foreach": True},
    {"lr": 0.05, "foreach": False, "beta2_decay": 0.0},
]
# Muon on matrices only: wide, tall (orthogonalized transposed) and square.
MUON_SHAPES = [(3, 4), (5, 2), (4, 4)]
MUON = [
    {},
    {"lr": 0.02, "weight_decay": 0.0},
    {"lr": 0.02, "nesterov": False, "momentum": 0.9},
    {"lr": 0.02, "momentum": 0.0, "adjust_lr_fn": "match_rms_adamw"},
    {"lr": 0.02, "adjust_lr_fn": "original", "ns_steps": 2, "eps": 1e-3},
    {"lr": 0.02, "ns_coefficients": (2.0, -1.5, 0.5), "ns_steps": 7, "weight_decay": 0.3},
]
CASES = [("Adafactor", kw) for kw in ADAFACTOR] + [("Muon", kw) for kw in MUON]
IDS = [f"{name}-{'-'.join(kw) or 'default'}" for name, kw in CASES]

# float32: the two libraries round norms and sums in a different order, and Muon's
# bfloat16 update can then round the other way, so only a few digits are kept.
DTYPES = [("float64", 1e-10), ("float32", 1e-5)]


def _arrays(name: str, seed: int = 0) -> list[np.ndarray]:
    if name == "Muon":
        rng = np.random.default_rng(seed)
        return [rng.standard_normal(s) for s in MUON_SHAPES]
    return initial(seed)


def _optimizer(lib, name, kw, ps):
    """Two parameter groups, the second with a third of the learning rate."""
    lr = kw.get("lr", 1e-2)
    groups = [{"params": ps[:2]}, {"params": ps[2:], "lr": lr / 3}]
    return getattr(lib.optim, name)(groups, **kw)


def _gradients(name: str, seed: int, n: int) -> list[list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [[rng.standard_normal(a.shape) for a in _arrays(name)] for _ in range(n)]


@pytest.mark.parametrize("dtype,rtol", DTYPES)
@pytest.mark.parametrize("name,kw", CASES, ids=IDS)
def test_trajectory(name, kw, dtype, rtol):
    """Steps from the same start and gradients equal torch's; a state dict taken halfway
    (same keys, shapes and dtypes as torch's) is loaded into fresh optimizers across
    libraries and continues the same way."""

    def make(lib, ps, lr=None):
        return _optimizer(lib, name, kw if lr is None else {**kw, "lr": lr}, ps)

    trajectory_across_libraries(
        make, _arrays(name), _gradients(name, 1, STEPS), STEPS // 2, dtype, rtol
    )


def test_adafactor_state_layout():
    """Factored state for tensors of 2+ dims (``row_var`` with the last dim 1, ``col_var``
    with the second to last 1), ``variance`` for vectors and scalars; a float ``step``."""

    def run(lib):
        ps = params(lib, initial())
        opt = lib.optim.Adafactor(ps)
        for p in ps:
            p.grad = lib.ones_like(p)
        opt.step()
        return [{k: (tuple(v.shape), str(v.dtype)) for k, v in opt.state[p].items()} for p in ps]

    got, want = run(chainrule), run(torch)
    assert got == want
    assert want[0]["row_var"][0] == (3, 1) and want[2]["col_var"][0] == (2, 1, 2)


def test_adafactor_tensor_lr():
    """A one-element tensor learning rate acts as its number."""

    def run(lib):
        ps = params(lib, initial())
        opt = lib.optim.Adafactor(ps, lr=lib.tensor(0.05, dtype=lib.float64))
        for g in _gradients("Adafactor", 2, 4):
            step(lib, opt, ps, g, "float64")
        return [numpy_of(p) for p in ps]

    for c, t in zip(run(chainrule), run(torch)):
        np.testing.assert_allclose(c, t, rtol=1e-10, atol=1e-12)


def test_adafactor_float_step_loads_as_tensor():
    """A state dict whose ``step`` is a Python number loads with ``step`` as a tensor."""

    def run(lib):
        ps = params(lib, initial())
        opt = lib.optim.Adafactor(ps)
        step(lib, opt, ps, _gradients("Adafactor", 3, 1)[0], "float64")
        sd = opt.state_dict()
        for s in sd["state"].values():
            s["step"] = 1.0
        opt2 = lib.optim.Adafactor(params(lib, initial()))
        opt2.load_state_dict(sd)
        step(lib, opt2, opt2.param_groups[0]["params"], _gradients("Adafactor", 4, 1)[0], "float64")
        return plain(opt2.state_dict())

    assert_same_plain(run(chainrule), run(torch), 1e-10)


# float32: the distance moved (about 1e-2) is compared, so one ulp of a parameter near 1
# is about 1e-5 of it.
TINY = [("float64", 1e-20, 1e-10), ("float32", 1e-9, 1e-4)]


@pytest.mark.parametrize("dtype,scale,rtol", TINY)
@pytest.mark.parametrize("eps", [(None, 1e-3), (1e-12, 1e-3)], ids=["eps1-None", "eps1-set"])
def test_adafactor_tiny_gradients(dtype, scale, rtol, eps):
    """Gradients so small that ``g^2`` falls under ``eps1^2``: the clamps decide the
    update, with ``eps1 = None`` meaning the parameter dtype's machine epsilon."""
    grads = [[g * scale for g in gs] for gs in _gradients("Adafactor", 6, 4)]

    def run(lib):
        ps = params(lib, initial(), dtype)
        opt = lib.optim.Adafactor(ps, lr=0.05, eps=eps)
        for g in grads:
            step(lib, opt, ps, g, dtype)
        return [numpy_of(p) - a.astype(dtype) for p, a in zip(ps, initial())]

    for c, t in zip(run(chainrule), run(torch)):
        assert np.abs(t).max() > 0
        np.testing.assert_allclose(c, t, rtol=rtol, atol=0)


# ----- a small model trained with a closure ------------------------------------------------

MODEL_CASES = [
    ("Adafactor", {"lr": 0.05}),
    ("Adafactor", {"lr": 0.05, "weight_decay": 0.05, "foreach": True}),
    ("Muon", {"lr": 0.02}),
    ("Muon", {"lr": 0.02, "nesterov": False, "adjust_lr_fn": "match_rms_adamw"}),
]


@pytest.mark.parametrize("name,kw", MODEL_CASES, ids=[f"{n}-{'-'.join(k)}" for n, k in MODEL_CASES])
def test_two_layer_fit_with_closure(name, kw):
    """A two-layer least-squares fit: ``step(closure)`` runs the closure with grad enabled
    (under no_grad outside) and returns its loss; losses and weights follow torch's."""
    rng = np.random.default_rng(5)
    x, y = rng.standard_normal((16, 3)), rng.standard_normal((16, 2))
    w1, w2 = rng.standard_normal((3, 4)) * 0.5, rng.standard_normal((4, 2)) * 0.5

    def run(lib):
        a, b = params(lib, [w1, w2])
        opt = getattr(lib.optim, name)([a, b], **kw)
        xs, ys = lib.tensor(x), lib.tensor(y)
        enabled = []

        def closure():
            enabled.append(lib.is_grad_enabled())
            opt.zero_grad()
            loss = ((lib.tanh(xs @ a) @ b - ys) ** 2).mean()
            loss.backward()
            return loss

        losses = []
        for _ in range(15):
            with lib.no_grad():
                losses.append(opt.step(closure).item())
        return losses, numpy_of(a), numpy_of(b), enabled

    got, want = run(chainrule), run(torch)
    assert got[3] == want[3] == [True] * 15
    np.testing.assert_allclose(got[0], want[0], rtol=1e-10)
    assert want[0][-1] < want[0][0]
    for g, t in zip(got[1:3], want[1:3]):
        np.testing.assert_allclose(g, t, rtol=1e-10, atol=1e-12)


# ----- reprs, defaults and errors ----------------------------------------------------------


@pytest.mark.parametrize("name", ["Adafactor", "Muon"])
def test_repr_and_defaults(name):
    def make(lib):
        ps = params(lib, _arrays(name))
        return getattr(lib.optim, name)([{"params": ps[:2]}, {"params": ps[2:], "lr": 0.125}])

    c, t = make(chainrule), make(torch)
    assert repr(c) == repr(t)
    assert c.defaults == t.defaults
    assert [{k: v for k, v in g.items() if k != "params"} for g in c.param_groups] == [
        {k: v for k, v in g.items() if k != "params"} for g in t.param_groups
    ]


BAD = [
    ("Adafactor", {"lr": -1.0}),
    ("Adafactor", {"beta2_decay": 0.5}),
    ("Adafactor", {"eps": (-1e-3, 1e-3)}),
    ("Adafactor", {"eps": (None, -1.0)}),
    ("Adafactor", {"d": 0.5}),
    ("Adafactor", {"weight_decay": -0.1}),
    ("Muon", {"lr": -0.1}),
    ("Muon", {"momentum": -0.5}),
    ("Muon", {"weight_decay": -1.0}),
    ("Muon", {"adjust_lr_fn": "spectral"}),
]


@pytest.mark.parametrize("name,kw", BAD, ids=[f"{n}-{k}" for n, k in BAD])
def test_bad_hyperparameters(name, kw):
    assert_same_error(lambda lib: getattr(lib.optim, name)(params(lib, _arrays(name)), **kw))


def test_tensor_lr_must_have_one_element():
    for name in ("Adafactor", "Muon"):
        assert_same_error(
            lambda lib, name=name: getattr(lib.optim, name)(
                params(lib, _arrays(name)), lr=lib.tensor([0.1, 0.2])
            )
        )


@pytest.mark.parametrize("shape", [(4,), (2, 3, 2), ()])
def test_muon_refuses_non_matrix_parameters(shape):
    assert_same_error(
        lambda lib: lib.optim.Muon(params(lib, _arrays("Muon")) + params(lib, [np.ones(shape)]))
    )


def _muon_step_with(lib, kw=None, extra_shape=None):
    """One Muon step with options ``kw``, or with a non-matrix parameter added to the
    optimizer after construction (which PyTorch only refuses at the step)."""
    ps = params(lib, _arrays("Muon"))
    opt = lib.optim.Muon(ps, **(kw or {}))
    if extra_shape is not None:
        extra = params(lib, [np.ones(extra_shape)])
        opt.add_param_group({"params": extra})
        ps += extra
    for p in ps:
        p.grad = lib.ones_like(p)
    opt.step()


STEP_ERRORS = {
    "ns_steps": {"kw": {"ns_steps": 100}},
    "coefficients": {"kw": {"ns_coefficients": (1.0, 2.0)}},
    "vector added later": {"extra_shape": (3,)},
}


@pytest.mark.parametrize("case", list(STEP_ERRORS))
def test_muon_step_errors(case):
    assert_same_error(lambda lib: _muon_step_with(lib, **STEP_ERRORS[case]))


def test_newton_schulz_orthogonalizes():
    """The orthogonalized update of a well-conditioned matrix has singular values near 1
    (within the spread the quintic iteration leaves), whatever its scale."""
    from chainrule.optim.muon import newton_schulz

    rng = np.random.default_rng(7)
    g = rng.standard_normal((4, 6)) * 1e3
    s = np.linalg.svd(newton_schulz(g, (3.4445, -4.7750, 2.0315), 5, 1e-7), compute_uv=False)
    assert np.all((s > 0.6) & (s < 1.3)), s
