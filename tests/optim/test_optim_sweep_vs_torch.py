"""A compact sweep of chainrule.optim against torch.optim: every optimizer over a grid of
its options (two parameter groups, a 0-d and an empty parameter, gradients missing in some
steps, complex parameters), state dicts loaded from either library, and the cases a wider
sweep found apart: a 0-d tensor ``lr`` or tensor ``betas`` computed in their own dtype, the
foreach ASGD's step size, ``capturable`` on CPU, SGD's state with sparse gradients."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from optim_helpers import assert_same_plain, convert, numpy_of, plain

import chainrule
from oracle import assert_same_error

SHAPES = [(3, 4), (5,), (), (0,)]
RNG = np.random.default_rng(11)
START = [RNG.standard_normal(s) for s in SHAPES]
GRADS = [[RNG.standard_normal(s) for s in SHAPES] for _ in range(8)]
IMAG = [[RNG.standard_normal(s) for s in SHAPES] for _ in range(9)]

# (optimizer, keyword arguments): the options PyTorch's branches turn on, each at least once.
GRID = [
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.3, "maximize": True}),
    ("Adam", {"lr": 0.05, "amsgrad": True, "weight_decay": 0.1, "maximize": True}),
    ("Adam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("AdamW", {"lr": 0.05, "betas": (0.8, 0.9), "amsgrad": True}),
    ("Adamax", {"lr": 0.05, "weight_decay": 0.1, "maximize": True}),
    ("NAdam", {"lr": 0.05, "momentum_decay": 0.02, "decoupled_weight_decay": True}),
    ("NAdam", {"lr": 0.05, "weight_decay": 0.1, "maximize": True}),
    ("RAdam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.05, "initial_accumulator_value": 0.5}),
    ("Adadelta", {"lr": 0.5, "rho": 0.7, "weight_decay": 0.1, "maximize": True}),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.8, "weight_decay": 0.1}),
    ("Rprop", {"lr": 0.01, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.05), "maximize": True}),
    ("ASGD", {"lr": 0.05, "lambd": 0.01, "alpha": 0.5, "t0": 3, "weight_decay": 0.1}),
    ("Adafactor", {"lr": 0.01, "beta2_decay": -0.5, "d": 2.0, "eps": (1e-3, 1e-3)}),
]
IDS = [f"{name}-{'-'.join(kw)}" for name, kw in GRID]
REAL_ONLY = {"Adafactor"}


def _run(lib, name: str, kw: dict, dtype: str, foreach: bool, lr_tensor: bool = False):
    """Eight steps on two groups (the second at half the rate); parameter ``j`` has no
    gradient in the steps where ``i + j`` is a multiple of 3. Returns every step's
    parameters and the final state dict."""
    complex_ = dtype.startswith("complex")
    dt = getattr(lib, dtype)
    starts = [a + 1j * b for a, b in zip(START, IMAG[8])] if complex_ else START
    ps = [lib.nn.Parameter(lib.tensor(a, dtype=dt)) for a in starts]
    if name in REAL_ONLY:  # (both libraries' Adafactor divide by an empty parameter's size)
        ps = ps[:3]
    kw = dict(kw, foreach=foreach)
    if lr_tensor:
        kw["lr"] = lib.tensor(kw["lr"])
    opt = getattr(lib.optim, name)([{"params": ps[:2]}, {"params": ps[2:], "lr": 0.02}], **kw)
    trajectory = []
    for i, grads in enumerate(GRADS):
        for j, (p, g) in enumerate(zip(ps, grads)):
            value = g + 1j * IMAG[i][j] if complex_ else g
            p.grad = None if (i + j) % 3 == 0 else lib.tensor(value, dtype=dt)
        opt.step()
        trajectory.append([numpy_of(p) for p in ps])
    return trajectory, plain(opt.state_dict())


def _assert_same_run(got, want, rtol: float) -> None:
    for step_got, step_want in zip(got[0], want[0]):
        for c, t in zip(step_got, step_want):
            np.testing.assert_allclose(c, t, rtol=rtol, atol=rtol * 1e-2)
    assert_same_plain(got[1], want[1], rtol)


@pytest.mark.parametrize("foreach", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
@pytest.mark.parametrize("name,kw", GRID, ids=IDS)
def test_grid_trajectory_and_state_dict(name, kw, dtype, foreach):
    """Every step's parameters and the final state dict (keys, dtypes of ``step`` and the
    rest, values) equal torch's, in float64 to 1e-11."""
    if dtype == "complex128" and name in REAL_ONLY:
        dtype = "float64"
    rtol = 2e-5 if dtype == "float32" else 1e-11
    want = _run(torch, name, kw, dtype, foreach)
    _assert_same_run(_run(chainrule, name, kw, dtype, foreach), want, rtol)


LR_TENSOR = ["Adam", "AdamW", "Adamax", "NAdam", "RAdam", "Adagrad", "ASGD", "SGD", "RMSprop"]


@pytest.mark.parametrize("name", LR_TENSOR)
def test_float32_lr_tensor_with_float64_parameters(name):
    """A 0-d float32 ``lr`` tensor: PyTorch computes the step sizes with the tensor, in
    float32, which moves float64 parameters by about 1e-8 from a Python float lr."""
    kw = next(kw for n, kw in GRID if n == name)
    want = _run(torch, name, kw, "float64", False, lr_tensor=True)
    _assert_same_run(_run(chainrule, name, kw, "float64", False, lr_tensor=True), want, 1e-12)


@pytest.mark.parametrize("kw", [{"alpha": 0.75}, {"alpha": 0.5, "t0": 3, "lambd": 0.01}])
def test_asgd_foreach_step_size(kw):
    """ASGD's foreach form computes the next eta with the float32 ``step`` tensor (its
    for-loop form with a Python float): float64 parameters follow whichever was asked."""
    kw = dict(kw, lr=0.05)
    for foreach in (False, True):
        want = _run(torch, "ASGD", kw, "float64", foreach)
        _assert_same_run(_run(chainrule, "ASGD", kw, "float64", foreach), want, 1e-12)


@pytest.mark.parametrize("name", ["Adam", "AdamW"])
@pytest.mark.parametrize("amsgrad", [False, True])
def test_tensor_betas(name, amsgrad):
    """Tensor betas stay 0-d tensors in the groups and state dict, and the steps use their
    float32 values as PyTorch does."""

    def run(lib):
        p = lib.nn.Parameter(lib.tensor(START[0], dtype=lib.float64))
        betas = (lib.tensor(0.8), lib.tensor(0.95))
        opt = getattr(lib.optim, name)([p], lr=0.05, betas=betas, amsgrad=amsgrad)
        out = []
        for grads in GRADS:
            p.grad = lib.tensor(grads[0], dtype=lib.float64)
            opt.step()
            out.append([numpy_of(p)])
        return out, plain(opt.state_dict())

    _assert_same_run(run(chainrule), run(torch), 1e-12)


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_float32_lr_tensor(line_search_fn):
    """LBFGS keeps a tensor lr as a tensor: its later steps ``t = lr`` are float32 and the
    line search computes with them, as PyTorch's."""

    def run(lib):
        x = lib.nn.Parameter(lib.tensor([-1.2, 1.0, 0.5], dtype=lib.float64))
        opt = lib.optim.LBFGS([x], lr=lib.tensor(0.8), line_search_fn=line_search_fn)

        def closure():
            opt.zero_grad()
            loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2 + (x[2] - x[1]) ** 2
            loss.backward()
            return loss

        out = []
        for _ in range(2):
            opt.step(closure)
            out.append(numpy_of(x))
        return out

    np.testing.assert_allclose(run(chainrule), run(torch), rtol=1e-9)


LOAD = [
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("Adam", {"lr": 0.05, "amsgrad": True}),
    ("NAdam", {"lr": 0.05}),
    ("ASGD", {"lr": 0.05, "t0": 2}),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5}),
    ("Rprop", {"lr": 0.01}),
    ("Adafactor", {"lr": 0.01}),
]


@pytest.mark.parametrize("source", ["torch", "chainrule"])
@pytest.mark.parametrize("name,kw", LOAD, ids=[n for n, _ in LOAD])
def test_state_dict_loaded_into_either_library(name, kw, source):
    """A state dict taken after four steps (float32 ``step``, ``mu_product``, ``eta`` ...),
    loaded into a fresh optimizer of each library: the loaded state (cast to the
    parameters' dtype but for ``step``) and the four steps after equal torch's."""
    src = torch if source == "torch" else chainrule
    ps = [src.nn.Parameter(src.tensor(a, dtype=src.float64)) for a in START[:3]]
    opt = getattr(src.optim, name)([{"params": ps[:1]}, {"params": ps[1:], "lr": 0.02}], **kw)
    for grads in GRADS[:4]:
        for p, g in zip(ps, grads):
            p.grad = src.tensor(g, dtype=src.float64)
        opt.step()
    now = [numpy_of(p) for p in ps]
    results = []
    for lib in (torch, chainrule):
        qs = [lib.nn.Parameter(lib.tensor(a, dtype=lib.float64)) for a in now]
        opt2 = getattr(lib.optim, name)([{"params": qs[:1]}, {"params": qs[1:]}], **kw)
        opt2.load_state_dict(convert(opt.state_dict(), lib))
        loaded = plain(opt2.state_dict())
        for grads in GRADS[4:]:
            for q, g in zip(qs, grads):
                q.grad = lib.tensor(g, dtype=lib.float64)
            opt2.step()
        results.append((loaded, [numpy_of(q) for q in qs], plain(opt2.state_dict())))
    (t_loaded, t_params, t_after), (c_loaded, c_params, c_after) = results
    assert_same_plain(c_loaded, t_loaded, 1e-12)
    for c, t in zip(c_params, t_params):
        np.testing.assert_allclose(c, t, rtol=1e-11)
    assert_same_plain(c_after, t_after, 1e-11)


@pytest.mark.parametrize("set_to_none", [True, False])
@pytest.mark.parametrize("name", ["SGD", "Adam", "Adagrad", "Rprop"])
def test_zero_grad_between_steps(name, set_to_none):
    """``zero_grad`` before each step, half the parameters then left without a new
    gradient: None skips them, zeros step them (Adam's moments still decay)."""

    def run(lib):
        ps = [lib.nn.Parameter(lib.tensor(a, dtype=lib.float64)) for a in START[:3]]
        opt = getattr(lib.optim, name)(ps, lr=0.05)
        for i, grads in enumerate(GRADS):
            opt.zero_grad(set_to_none=set_to_none)
            for j, (p, g) in enumerate(zip(ps, grads)):
                if (i + j) % 2:
                    p.grad = lib.tensor(g, dtype=lib.float64)
            opt.step()
        return [[numpy_of(p) for p in ps]], plain(opt.state_dict())

    _assert_same_run(run(chainrule), run(torch), 1e-12)


def test_add_param_group_mid_run():
    """A group added after two steps takes the defaults it does not set and starts its
    own state; the state dict numbers its parameters after the first group's."""

    def run(lib):
        p = lib.nn.Parameter(lib.tensor(START[0], dtype=lib.float64))
        q = lib.nn.Parameter(lib.tensor(START[1], dtype=lib.float64))
        opt = lib.optim.Adam([p], lr=0.05, weight_decay=0.1)
        out = []
        for i, grads in enumerate(GRADS):
            if i == 2:
                opt.add_param_group({"params": [q], "lr": 0.01, "amsgrad": True})
            p.grad = lib.tensor(grads[0], dtype=lib.float64)
            q.grad = lib.tensor(grads[1], dtype=lib.float64)
            opt.step()
            out.append([numpy_of(p), numpy_of(q)])
        return out, plain(opt.state_dict())

    _assert_same_run(run(chainrule), run(torch), 1e-12)


def _tensor_hyperparameter(lib, name: str, kw: dict) -> None:
    p = lib.nn.Parameter(lib.ones(2))
    getattr(lib.optim, name)([p], **{k: _in(lib, v) for k, v in kw.items()})


def _in(lib, value):
    """A torch tensor remade in ``lib`` (in tuples too); anything else as is."""
    if isinstance(value, torch.Tensor):
        return lib.tensor(value.tolist())
    if isinstance(value, tuple):
        return tuple(_in(lib, v) for v in value)
    return value


BAD = [
    ("Adam", {"lr": torch.tensor(0.01), "foreach": True}),
    ("AdamW", {"lr": torch.tensor(0.01), "foreach": True}),
    ("Adam", {"betas": (torch.tensor(0.9), torch.tensor(0.99)), "foreach": True}),
    ("Adam", {"betas": (torch.tensor([0.9, 0.8]), torch.tensor(0.99))}),
    ("Adam", {"betas": (torch.tensor(0.9), torch.tensor([0.9, 0.8]))}),
    ("Adam", {"betas": (0.9, torch.tensor(0.99))}),
]


@pytest.mark.parametrize("name,kw", BAD, ids=[f"{n}-{i}" for i, (n, _) in enumerate(BAD)])
def test_tensor_hyperparameter_errors(name, kw):
    """Tensor lr or betas where PyTorch refuses them: its type and message."""
    assert_same_error(lambda lib: _tensor_hyperparameter(lib, name, kw))


def test_tensor_lr_in_a_foreach_group_refused_at_step():
    """A tensor lr given to a foreach group (not through the constructor) is refused at
    the step, as in PyTorch."""

    def run(lib):
        p = lib.nn.Parameter(lib.ones(3))
        opt = lib.optim.Adam([{"params": [p], "lr": lib.tensor(0.1)}], foreach=True)
        p.grad = lib.ones(3)
        opt.step()

    assert_same_error(run)


CAPTURABLE = ["Adam", "AdamW", "Adamax", "NAdam", "RAdam", "Adadelta", "RMSprop", "ASGD"]


@pytest.mark.parametrize("foreach", [False, True])
@pytest.mark.parametrize("name", CAPTURABLE)
def test_capturable_step_on_cpu_refused(name, foreach):
    """``capturable=True`` steps are for accelerators: on CPU parameters PyTorch's
    AssertionError, naming the supported devices."""

    def run(lib):
        p = lib.nn.Parameter(lib.ones(2))
        opt = getattr(lib.optim, name)([p], capturable=True, foreach=foreach)
        p.grad = lib.ones(2)
        opt.step()

    assert_same_error(run)


@pytest.mark.parametrize("kw", [{"lr": 0.1}, {"lr": 0.1, "maximize": True}])
def test_sgd_sparse_gradients_leave_no_state_without_momentum(kw):
    """SGD with an embedding's sparse gradients: the same rows move, and without momentum
    the state stays empty."""

    def run(lib):
        emb = lib.nn.Embedding(6, 3, sparse=True)
        with lib.no_grad():
            emb.weight.copy_(lib.tensor(np.arange(18.0).reshape(6, 3) / 10))
        opt = lib.optim.SGD(emb.parameters(), **kw)
        for i in range(4):
            opt.zero_grad()
            (emb(lib.tensor([[i % 6, 2 * i % 6, 1]])) ** 2).sum().backward()
            opt.step()
        return [[numpy_of(emb.weight)]], plain(opt.state_dict())

    _assert_same_run(run(chainrule), run(torch), 1e-6)


SCHEDULERS = [
    ("StepLR", {"step_size": 5, "gamma": 0.5}),
    ("MultiStepLR", {"milestones": [3, 10, 10, 25]}),
    ("ConstantLR", {"factor": 0.5, "total_iters": 10}),
    ("LinearLR", {"start_factor": 0.1, "end_factor": 0.8, "total_iters": 13}),
    ("ExponentialLR", {"gamma": 0.9}),
    ("PolynomialLR", {"total_iters": 17, "power": 2.5}),
    ("CosineAnnealingLR", {"T_max": 7, "eta_min": 0.01}),
    ("CosineAnnealingWarmRestarts", {"T_0": 3, "T_mult": 2, "eta_min": 0.001}),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 4, "mode": "exp_range"}),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 3, "mode": "triangular2"}),
    ("OneCycleLR", {"max_lr": [0.1, 0.2], "total_steps": 40, "three_phase": True}),
    ("OneCycleLR", {"max_lr": 0.1, "total_steps": 45, "anneal_strategy": "linear"}),
]


@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
@pytest.mark.parametrize("name,kw", SCHEDULERS, ids=[n for n, _ in SCHEDULERS])
def test_scheduler_grid(name, kw, optimizer):
    """40 steps: ``get_last_lr()``, each group's lr and momentum (or betas) and
    ``last_epoch`` after every step, and the final state dict, as torch's."""

    def run(lib):
        p, q = lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(3))
        extra = {"momentum": 0.9} if optimizer == "SGD" else {}
        groups = [{"params": [p]}, {"params": [q], "lr": 0.05}]
        opt = getattr(lib.optim, optimizer)(groups, lr=0.1, **extra)
        sched = getattr(lib.optim.lr_scheduler, name)(opt, **kw)
        log = []
        for _ in range(40):
            p.grad, q.grad = lib.ones(2), lib.ones(3)
            opt.step()
            sched.step()
            key = "momentum" if optimizer == "SGD" else "betas"
            groups = [np.hstack([g["lr"], g[key]]) for g in opt.param_groups]
            log.append((sched.get_last_lr(), groups, sched.last_epoch))
        return log, sched.state_dict()

    got, want = run(chainrule), run(torch)
    for g, w in zip(got[0], want[0]):
        np.testing.assert_allclose(g[0], w[0], rtol=1e-12)
        np.testing.assert_allclose(np.hstack(g[1]), np.hstack(w[1]), rtol=1e-12)
        assert g[2] == w[2]
    assert_same_plain(got[1], want[1], 1e-12)
