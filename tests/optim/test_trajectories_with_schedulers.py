"""Every lr scheduler moves the parameters as torch's does: the optimizer of each
scheduler case of ``test_lr_scheduler.py`` (two param groups) steps on the same
gradients for 50 steps, float64, parameters at rtol 1e-10; at step 25 the optimizer's
and the scheduler's state dicts go into fresh objects of the other library, which go on
the same way. ReduceLROnPlateau (stepped on a metric) and LBFGS (one param group, a
closure) have their own runs here."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
from optim_helpers import assert_same_plain, convert, initial, numpy_of, plain
from test_lr_scheduler import SCHEDULES

import chainrule

STEPS, MIDDLE, RTOL = 50, 25, 1e-10


def _gradients(n: int) -> list[list[np.ndarray]]:
    rng = np.random.default_rng(7)
    return [[rng.standard_normal(a.shape) for a in initial()] for _ in range(n)]


def _params(opt) -> list:
    return [p for group in opt.param_groups for p in group["params"]]


def _step(lib, opt, grads, sched=None, metric=None):
    for p, g in zip(_params(opt), grads):
        p.grad = lib.tensor(g, dtype=lib.float64)
    opt.step()
    if sched is not None:
        sched.step() if metric is None else sched.step(metric)


def _assert_same_params(c_opt, t_opt):
    for c, t in zip(_params(c_opt), _params(t_opt)):
        np.testing.assert_allclose(numpy_of(c), numpy_of(t), rtol=RTOL, atol=RTOL)


@pytest.mark.parametrize("name", list(SCHEDULES))
def test_scheduled_parameters_follow_torch(name):
    make_opt, make_sched = SCHEDULES[name]
    grads = _gradients(STEPS)
    runs = {}
    for lib in (chainrule, torch):
        opt = make_opt(lib)
        sched = make_sched(lib, opt)
        for g in grads[:MIDDLE]:
            _step(lib, opt, g, sched)
        runs[lib] = (opt, sched)
    (c_opt, c_sched), (t_opt, t_sched) = runs[chainrule], runs[torch]
    _assert_same_params(c_opt, t_opt)
    # fresh objects of each library load the other library's state dicts
    fresh = {}
    for lib, (o_opt, o_sched) in ((chainrule, runs[torch]), (torch, runs[chainrule])):
        opt = make_opt(lib)
        sched = make_sched(lib, opt)
        with lib.no_grad():
            for p, q in zip(_params(opt), _params(o_opt)):
                p.copy_(lib.from_numpy(numpy_of(q)))
        opt.load_state_dict(convert(o_opt.state_dict(), lib))
        sched.load_state_dict(copy.deepcopy(o_sched.state_dict()))
        fresh[lib] = (opt, sched)
    for g in grads[MIDDLE:]:
        for opt, sched in (*runs.values(), *fresh.values()):
            _step(
                chainrule if isinstance(_params(opt)[0], chainrule.Tensor) else torch, opt, g, sched
            )
    _assert_same_params(c_opt, t_opt)
    _assert_same_params(fresh[chainrule][0], t_opt)
    _assert_same_params(fresh[torch][0], t_opt)
    assert_same_plain(plain(c_opt.state_dict()), plain(t_opt.state_dict()), RTOL)
    assert_same_plain(plain(c_sched.state_dict()), plain(t_sched.state_dict()), RTOL)


def _adam_groups(lib):
    from optim_helpers import params

    ps = params(lib, initial())
    return lib.optim.Adam([{"params": ps[:2]}, {"params": ps[2:], "lr": 0.02}], lr=0.05)


def test_reduce_lr_on_plateau_parameters_follow_torch():
    grads = _gradients(STEPS)
    metrics = [1.0 / (1 + i) if i < 10 else 0.1 + 0.01 * (i % 3) for i in range(STEPS)]
    runs = {}
    for lib in (chainrule, torch):
        opt = _adam_groups(lib)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=2)
        for g, m in zip(grads[:MIDDLE], metrics):
            _step(lib, opt, g, sched, m)
        runs[lib] = (opt, sched)
    _assert_same_params(runs[chainrule][0], runs[torch][0])
    # the state dicts cross over: each library continues from the other's
    states = {lib: (o.state_dict(), copy.deepcopy(s.state_dict())) for lib, (o, s) in runs.items()}
    for lib, other in ((chainrule, torch), (torch, chainrule)):
        opt, sched = runs[lib]
        opt.load_state_dict(convert(states[other][0], lib))
        sched.load_state_dict(states[other][1])
        for g, m in zip(grads[MIDDLE:], metrics[MIDDLE:]):
            _step(lib, opt, g, sched, m)
    _assert_same_params(runs[chainrule][0], runs[torch][0])
    c_lrs = [g["lr"] for g in runs[chainrule][0].param_groups]
    t_lrs = [g["lr"] for g in runs[torch][0].param_groups]
    assert c_lrs == t_lrs and c_lrs[0] < 0.05


def _quartic(lib, x):
    return ((x - 1) ** 4).sum() + (x * lib.arange(x.numel(), dtype=x.dtype)).pow(2).sum()


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_fifty_steps_with_a_state_dict_in_the_middle(line_search_fn):
    """LBFGS (one param group, as torch allows): 50 steps of one iteration each on a
    quartic; the state dict (history, direction, step size) taken at step 25 continues
    the run in a fresh optimizer of the other library."""
    start = np.linspace(-2.0, 3.0, 6)
    kw = {"lr": 0.5, "max_iter": 1, "history_size": 5, "line_search_fn": line_search_fn}
    runs = {}
    for lib in (chainrule, torch):
        x = lib.nn.Parameter(lib.tensor(start.copy(), dtype=lib.float64))
        opt = lib.optim.LBFGS([x], **kw)
        runs[lib] = (x, opt)

    def step(lib, x, opt):
        def closure():
            opt.zero_grad()
            loss = _quartic(lib, x)
            loss.backward()
            return loss

        return opt.step(closure).item()

    for _ in range(MIDDLE):
        for lib, (x, opt) in runs.items():
            step(lib, x, opt)
    np.testing.assert_allclose(numpy_of(runs[chainrule][0]), numpy_of(runs[torch][0]), rtol=RTOL)
    fresh = {}
    for lib, other in ((chainrule, torch), (torch, chainrule)):
        ox, oopt = runs[other]
        x = lib.nn.Parameter(lib.from_numpy(numpy_of(ox)))
        opt = lib.optim.LBFGS([x], **kw)
        opt.load_state_dict(convert(oopt.state_dict(), lib))
        fresh[lib] = (x, opt)
    losses = {}
    for lib in (chainrule, torch):
        for x, opt in (runs[lib], fresh[lib]):
            losses.setdefault(id(opt), [step(lib, x, opt) for _ in range(STEPS - MIDDLE)])
    t_x = numpy_of(runs[torch][0])
    assert np.abs(t_x - start).max() > 0.1  # the run moved
    for x, _ in (runs[chainrule], fresh[chainrule], fresh[torch]):
        np.testing.assert_allclose(numpy_of(x), t_x, rtol=RTOL, atol=1e-12)
    assert losses[id(runs[chainrule][1])] == pytest.approx(losses[id(runs[torch][1])], rel=RTOL)
