"""The optimizers side by side with torch.optim: 50-step trajectories from the same
parameters and gradients (every optimizer, every flag), state dicts taken mid-run and
loaded across libraries, LBFGS on a Rosenbrock function, reprs, defaults and errors."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
import torch
from optim_helpers import (
    assert_same_plain,
    initial,
    numpy_of,
    params,
    plain,
    trajectory_across_libraries,
)

import chainrule
from oracle import assert_same_error, compare_logs

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


@pytest.mark.parametrize("dtype,rtol", [("float64", 1e-10), ("float32", 1e-4)])
@pytest.mark.parametrize("name,kw", CASES, ids=IDS)
def test_trajectory(name, kw, dtype, rtol):
    """50 steps from the same start and gradients equal torch's; a state dict taken at
    step 25 (and loaded into fresh optimizers across libraries) continues the same way."""

    def make(lib, ps, lr=None):
        return _optimizer(lib, name, kw if lr is None else {**kw, "lr": lr}, ps)

    trajectory_across_libraries(make, initial(), _gradients(1, STEPS), 25, dtype, rtol)


# ----- LBFGS -----------------------------------------------------------------------------


def _rosenbrock(lib, x, y):
    return (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum() + ((y - 2) ** 4).sum()


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
@pytest.mark.parametrize(
    "kw",
    [
        {"max_iter": 5},
        {"history_size": 3, "max_iter": 7, "lr": 0.5},
        {"tolerance_grad": 1e-1, "max_iter": 6, "max_eval": 8},
    ],
)
def test_lbfgs_rosenbrock(line_search_fn, kw):
    """LBFGS with a closure follows torch's iterates; the losses it returns too (a few
    outer steps: Rosenbrock's valley amplifies rounding differences over many)."""
    start = [np.array([-1.2, 1.0, 0.5, -0.3]), np.array([0.1, 0.7])]

    def run(lib):
        ps = params(lib, start)
        opt = lib.optim.LBFGS(ps, line_search_fn=line_search_fn, **kw)

        def closure():
            opt.zero_grad()
            loss = _rosenbrock(lib, *ps)
            loss.backward()
            return loss

        losses = [float(opt.step(closure).detach()) for _ in range(3)]
        state = opt.state[ps[0]]
        return losses, [numpy_of(p) for p in ps], state["func_evals"], state["n_iter"]

    (closs, cps, cev, cit), (tloss, tps, tev, tit) = run(chainrule), run(torch)
    np.testing.assert_allclose(closs, tloss, rtol=1e-9)
    for c, t in zip(cps, tps):
        np.testing.assert_allclose(c, t, rtol=1e-9, atol=1e-12)
    assert (cev, cit) == (tev, tit)


def test_lbfgs_errors():
    ps = lambda lib: params(lib, initial())  # noqa: E731
    assert_same_error(
        lambda lib: lib.optim.LBFGS([{"params": ps(lib)[:1]}, {"params": ps(lib)[1:]}])
    )
    assert_same_error(lambda lib: lib.optim.LBFGS(ps(lib), lr=-1))

    def bad_search(lib):
        p = params(lib, initial())
        opt = lib.optim.LBFGS(p, line_search_fn="armijo")

        def closure():
            loss = (p[0] ** 2).sum()
            loss.backward()
            return loss

        opt.step(closure)

    assert_same_error(bad_search)


# ----- reprs, defaults and errors ----------------------------------------------------------

ALL = [
    "SGD",
    "Adam",
    "AdamW",
    "Adamax",
    "NAdam",
    "RAdam",
    "RMSprop",
    "Adagrad",
    "Adadelta",
    "ASGD",
    "Rprop",
    "LBFGS",
    "SparseAdam",
]


@pytest.mark.parametrize("name", ALL)
def test_repr_and_defaults(name):
    """``repr`` (groups' keys sorted) and the defaults equal torch's."""

    def make(lib):
        ps = params(lib, initial())
        if name == "LBFGS":
            return lib.optim.LBFGS(ps)
        extra = {"lr": 0.3} if name == "SGD" else {}
        return getattr(lib.optim, name)(
            [{"params": ps[:2]}, {"params": ps[2:], "lr": 0.125}], **extra
        )

    c, t = make(chainrule), make(torch)
    assert repr(c) == repr(t)
    assert c.defaults == t.defaults
    assert [{k: v for k, v in g.items() if k != "params"} for g in c.param_groups] == [
        {k: v for k, v in g.items() if k != "params"} for g in t.param_groups
    ]


@pytest.mark.parametrize("name", ["SGD", "Adam", "Adagrad", "Rprop", "ASGD"])
def test_repr_flags(name):
    """foreach, differentiable and the rest are accepted and printed as torch does."""
    kw = {"foreach": False, "differentiable": True, "maximize": True}

    def make(lib):
        return getattr(lib.optim, name)(params(lib, initial()), lr=0.5, **kw)

    assert repr(make(chainrule)) == repr(make(torch))


BAD = [
    ("SGD", {"lr": -1}),
    ("SGD", {"lr": 0.1, "momentum": -0.5}),
    ("SGD", {"lr": 0.1, "weight_decay": -1e-3}),
    ("SGD", {"lr": 0.1, "nesterov": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "nesterov": True}),
    ("SGD", {"lr": 0.1, "fused": True, "differentiable": True}),
    ("Adam", {"lr": -0.5}),
    ("Adam", {"eps": -1.0}),
    ("Adam", {"betas": (1.0, 0.9)}),
    ("Adam", {"betas": (0.9, -0.1)}),
    ("Adam", {"weight_decay": -2}),
    ("Adam", {"betas": (0.9, 1)}),
    ("Adam", {"fused": True, "foreach": True}),
    ("AdamW", {"betas": (1.5, 0.9)}),
    ("Adamax", {"eps": -1}),
    ("Adamax", {"betas": (0.9, 1.0)}),
    ("NAdam", {"momentum_decay": -1}),
    ("NAdam", {"weight_decay": -1}),
    ("RAdam", {"betas": (-0.1, 0.9)}),
    ("RMSprop", {"alpha": -1}),
    ("RMSprop", {"momentum": -1}),
    ("RMSprop", {"eps": -1}),
    ("Adagrad", {"lr_decay": -1}),
    ("Adagrad", {"initial_accumulator_value": -1}),
    ("Adagrad", {"eps": -1}),
    ("Adadelta", {"rho": 1.5}),
    ("Adadelta", {"eps": -1}),
    ("ASGD", {"weight_decay": -1}),
    ("Rprop", {"etas": (1.5, 1.2)}),
    ("Rprop", {"etas": (0.5, 0.9)}),
    ("SparseAdam", {"lr": 0.0}),
    ("SparseAdam", {"eps": 0.0}),
]


@pytest.mark.parametrize("name,kw", BAD, ids=[f"{n}-{k}" for n, k in BAD])
def test_bad_hyperparameters(name, kw):
    assert_same_error(lambda lib: getattr(lib.optim, name)(params(lib, initial()), **kw))


def _optimizer_module(lib):
    return importlib.import_module(f"{lib.__name__}.optim.optimizer")


def _dup(lib):
    p = params(lib, initial())
    return lib.optim.SGD([{"params": p[:2]}, {"params": p[1:]}], lr=0.1)


def _add_dup(lib):
    p = params(lib, initial())
    opt = lib.optim.SGD(p[:2], lr=0.1)
    opt.add_param_group({"params": p[1]})


def _names_mixed(lib):
    p = params(lib, initial())
    return lib.optim.SGD([("a", p[0]), p[1]], lr=0.1)


def _groups_mixed(lib):
    p = params(lib, initial())
    opt = lib.optim.SGD([("a", p[0])], lr=0.1)
    opt.add_param_group({"params": [p[1]]})


BAD_GROUPS = {
    "tensor": lambda lib: lib.optim.SGD(params(lib, initial())[0], lr=0.1),
    "empty": lambda lib: lib.optim.Adam([]),
    "set": lambda lib: lib.optim.Adam({"params": set(params(lib, initial()))}.values()),
    "non-tensor": lambda lib: lib.optim.Adam([params(lib, initial())[0], 3.0]),
    "non-leaf": lambda lib: lib.optim.Adam([params(lib, initial())[0] * 2]),
    "two groups": _dup,
    "add twice": _add_dup,
    "group not dict": lambda lib: lib.optim.Adam(params(lib, initial())).add_param_group(
        [params(lib, initial())[0]]
    ),
    "set group": lambda lib: lib.optim.Adam(params(lib, initial())).add_param_group(
        {"params": set(params(lib, initial()))}
    ),
    "names mixed": _names_mixed,
    "groups mixed": _groups_mixed,
    "required": lambda lib: lib.optim.Optimizer(
        params(lib, initial()), {"lr": _optimizer_module(lib).required}
    ),
}


@pytest.mark.parametrize("case", list(BAD_GROUPS))
def test_bad_param_groups(case):
    assert_same_error(BAD_GROUPS[case])


def test_duplicate_parameter_warns():
    for lib in (chainrule, torch):
        p = params(lib, initial())
        with pytest.warns(UserWarning, match="duplicate parameters"):
            lib.optim.SGD([p[0], p[0]], lr=0.1)


def test_named_parameters_and_state_dict():
    """(name, tensor) pairs: ``param_names`` in the groups and in the state dict."""

    def run(lib):
        layer = {"w": lib.nn.Parameter(lib.ones(2, 3)), "b": lib.nn.Parameter(lib.zeros(3))}
        opt = lib.optim.SGD(list(layer.items()), lr=0.1, momentum=0.5)
        for p in layer.values():
            p.grad = lib.ones_like(p)
        opt.step()
        opt.add_param_group({"params": [("c", lib.nn.Parameter(lib.ones(1)))], "lr": 0.2})
        return plain(opt.state_dict()), repr(opt)

    c, t = run(chainrule), run(torch)
    assert_same_plain(c[0], t[0], 1e-7)
    assert c[1] == t[1]


LOAD_ERRORS = {
    "groups": lambda lib, opt, p: opt.load_state_dict(
        lib.optim.SGD([{"params": p[:1]}, {"params": p[1:]}], lr=0.1).state_dict()
    ),
    "sizes": lambda lib, opt, p: opt.load_state_dict(lib.optim.SGD(p[:1], lr=0.1).state_dict()),
}


@pytest.mark.parametrize("case", list(LOAD_ERRORS))
def test_load_state_dict_errors(case):
    def run(lib):
        p = params(lib, initial())
        LOAD_ERRORS[case](lib, lib.optim.SGD(p, lr=0.1), p)

    assert_same_error(run)


def test_load_casts_state_to_parameter_dtype():
    """State tensors take the parameter's dtype on load; ``step`` keeps its own."""

    def run(lib):
        p64 = params(lib, initial())
        opt = lib.optim.Adam(p64)
        for p in p64:
            p.grad = lib.ones_like(p)
        opt.step()
        p32 = params(lib, initial(), "float32")
        opt32 = lib.optim.Adam(p32)
        opt32.load_state_dict(opt.state_dict())
        return plain(opt32.state_dict())

    assert_same_plain(run(chainrule), run(torch), 1e-7)


# ----- step, closure, hooks, zero_grad, versions ----------------------------------------------


def test_closure_and_hooks():
    """The closure runs with grad enabled (its loss returned); per-optimizer and global
    pre/post hooks run in torch's order and a pre hook may replace the arguments."""

    def run(lib, log):
        p = params(lib, initial())
        opt = lib.optim.SGD(p, lr=0.1)
        opt.register_step_pre_hook(lambda o, a, k: log.append(("pre", len(a), dict(k))))
        h = opt.register_step_post_hook(lambda o, a, k: log.append(("post", len(a))))
        g1 = _optimizer_module(lib).register_optimizer_step_pre_hook(
            lambda o, a, k: log.append(("global pre", type(o).__name__))
        )
        g2 = _optimizer_module(lib).register_optimizer_step_post_hook(
            lambda o, a, k: log.append(("global post",))
        )

        def closure():
            log.append(("closure", lib.is_grad_enabled()))
            loss = sum((q**2).sum() for q in p)
            loss.backward()
            return loss

        with lib.no_grad():
            loss = opt.step(closure)
        log.append(round(float(loss.detach()), 6))
        h.remove()
        g1.remove()
        g2.remove()
        opt.step()
        log.append(numpy_of(p[0]).round(8).tolist())
        opt.register_step_pre_hook(lambda o, a, k: ((a[0],), {"closure": closure}))
        log.append(round(float(opt.step().detach()), 6))
        opt.register_step_pre_hook(lambda o, a, k: 5)
        try:
            opt.step()
        except RuntimeError as exc:
            log.append(type(exc).__name__)

    compare_logs(run)


def test_state_dict_hooks():
    def run(lib, log):
        p = params(lib, initial())
        opt = lib.optim.Adam(p)
        opt.register_state_dict_pre_hook(lambda o: log.append("sd pre"))
        opt.register_state_dict_pre_hook(lambda o: log.append("sd pre first"), prepend=True)
        opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
        sd = opt.state_dict()
        log.append(sorted(sd))

        def pre(o, sd):
            log.append(("load pre", sorted(sd)))
            return {k: v for k, v in sd.items() if k != "extra"}

        opt.register_load_state_dict_pre_hook(pre)
        opt.register_load_state_dict_post_hook(lambda o: log.append("load post"))
        opt.load_state_dict(sd)

    compare_logs(run)


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    def run(lib):
        p = params(lib, initial())
        opt = lib.optim.SGD(p, lr=0.1)
        (p[0] * 3).sum().backward(create_graph=True)
        opt.zero_grad(set_to_none=set_to_none)
        g = p[0].grad
        return None if g is None else (numpy_of(g).tolist(), g.requires_grad, p[1].grad)

    assert run(chainrule) == run(torch)


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Rprop"])
def test_step_bumps_versions(name):
    """The step writes in place: the version goes up and a graph that saved the
    parameter refuses backward, as in torch."""

    def run(lib):
        p = params(lib, initial())[0]
        opt = getattr(lib.optim, name)([p], lr=0.1)
        y = (p * p).sum()
        before = p._version
        p.grad = lib.ones_like(p)
        opt.step()
        assert p._version > before
        y.backward()

    assert_same_error(run, "modified by an inplace operation")


def test_step_skips_parameters_without_grad():
    def run(lib):
        p = params(lib, initial())
        opt = lib.optim.Adam(p, lr=0.1)
        p[0].grad = lib.ones_like(p[0])
        opt.step()
        return [numpy_of(q) for q in p], sorted(opt.state_dict()["state"])

    (cp, cs), (tp, ts) = run(chainrule), run(torch)
    assert cs == ts
    for a, b in zip(cp, tp):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_sparse_adam_refuses_dense_gradients():
    def run(lib):
        p = params(lib, initial())
        opt = lib.optim.SparseAdam(p)
        p[0].grad = lib.ones_like(p[0])
        opt.step()

    assert_same_error(run)


# ----- a training loop: gradients from a loss, a scheduler, zero_grad ----------------------

LOOPS = [
    ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True}, "StepLR", {"step_size": 5}),
    ("Adam", {"lr": 0.05, "amsgrad": True}, "OneCycleLR", {"max_lr": 0.1, "total_steps": 40}),
    ("AdamW", {"lr": 0.05}, "CosineAnnealingLR", {"T_max": 10}),
    ("RMSprop", {"lr": 0.01, "centered": True}, "ExponentialLR", {"gamma": 0.95}),
]


@pytest.mark.parametrize("name,kw,sched,skw", LOOPS, ids=[n for n, *_ in LOOPS])
def test_training_loop(name, kw, sched, skw):
    """A least-squares fit trained for 40 steps (backward through the loss, zero_grad,
    optimizer then scheduler) follows torch's losses and parameters."""
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((16, 3)), rng.standard_normal((16, 2))

    def run(lib):
        w, b = params(lib, [np.full((3, 2), 0.1), np.zeros(2)])
        opt = getattr(lib.optim, name)([{"params": [w]}, {"params": [b], "lr": 0.02}], **kw)
        scheduler = getattr(lib.optim.lr_scheduler, sched)(opt, **skw)
        xs, ys = lib.tensor(x), lib.tensor(y)
        losses = []
        for _ in range(40):
            opt.zero_grad()
            loss = ((xs @ w + b - ys) ** 2).mean()
            loss.backward()
            opt.step()
            scheduler.step()
            losses.append(loss.item())
        return losses, numpy_of(w), numpy_of(b)

    got, want = run(chainrule), run(torch)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-10)
    for g, t in zip(got[1:], want[1:]):
        np.testing.assert_allclose(g, t, rtol=1e-10, atol=1e-12)
