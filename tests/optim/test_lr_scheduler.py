"""The learning-rate schedulers side by side with torch.optim.lr_scheduler: the rates (and
momenta) over 60 steps, state dicts taken mid-run and loaded across libraries, combined
schedulers, ReduceLROnPlateau on a metric sequence, warnings and errors."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
import torch
from optim_helpers import assert_same_plain, convert, initial, params, plain

import chainrule
from oracle import assert_same_error

STEPS = 60


def _sgd(lib, momentum=0.9):
    ps = params(lib, initial())
    return lib.optim.SGD(
        [{"params": ps[:2]}, {"params": ps[2:], "lr": 0.05}], lr=0.1, momentum=momentum
    )


def _adam(lib):
    ps = params(lib, initial())
    return lib.optim.Adam([{"params": ps[:2]}, {"params": ps[2:], "lr": 0.05}], lr=0.1)


def _s(lib):
    return lib.optim.lr_scheduler


class Scale:
    """A callable object (its state goes into the scheduler's state dict)."""

    def __init__(self, base):
        self.base = base

    def __call__(self, epoch):
        return self.base**epoch


# name -> (optimizer factory, scheduler factory)
SCHEDULES = {
    "LambdaLR": (_sgd, lambda lib, o: _s(lib).LambdaLR(o, lambda e: 0.97**e)),
    "LambdaLR-list": (
        _sgd,
        lambda lib, o: _s(lib).LambdaLR(o, [Scale(0.9), lambda e: 1 / (1 + e)]),
    ),
    "MultiplicativeLR": (_sgd, lambda lib, o: _s(lib).MultiplicativeLR(o, lambda e: 0.95)),
    "StepLR": (_sgd, lambda lib, o: _s(lib).StepLR(o, step_size=7, gamma=0.5)),
    "MultiStepLR": (
        _sgd,
        lambda lib, o: _s(lib).MultiStepLR(o, milestones=[5, 12, 12, 30], gamma=0.3),
    ),
    "ConstantLR": (_sgd, lambda lib, o: _s(lib).ConstantLR(o, factor=0.25, total_iters=9)),
    "LinearLR": (
        _sgd,
        lambda lib, o: _s(lib).LinearLR(o, start_factor=0.2, end_factor=0.9, total_iters=17),
    ),
    "ExponentialLR": (_sgd, lambda lib, o: _s(lib).ExponentialLR(o, gamma=0.93)),
    "PolynomialLR": (_sgd, lambda lib, o: _s(lib).PolynomialLR(o, total_iters=40, power=2.5)),
    "CosineAnnealingLR": (
        _sgd,
        lambda lib, o: _s(lib).CosineAnnealingLR(o, T_max=13, eta_min=0.001),
    ),
    "CosineAnnealingWarmRestarts": (
        _sgd,
        lambda lib, o: _s(lib).CosineAnnealingWarmRestarts(o, T_0=5, T_mult=2, eta_min=1e-3),
    ),
    "CyclicLR": (
        _sgd,
        lambda lib, o: _s(lib).CyclicLR(o, base_lr=0.01, max_lr=[0.1, 0.2], step_size_up=7),
    ),
    "CyclicLR-triangular2": (
        _sgd,
        lambda lib, o: _s(lib).CyclicLR(
            o, 0.01, 0.1, step_size_up=4, step_size_down=6, mode="triangular2"
        ),
    ),
    "CyclicLR-exp_range-adam": (
        _adam,
        lambda lib, o: _s(lib).CyclicLR(o, 0.01, 0.1, step_size_up=5, mode="exp_range", gamma=0.97),
    ),
    "CyclicLR-scale_fn": (
        _sgd,
        lambda lib, o: _s(lib).CyclicLR(
            o,
            0.01,
            0.1,
            step_size_up=3,
            scale_fn=Scale(0.9),
            scale_mode="iterations",
            cycle_momentum=False,
        ),
    ),
    "OneCycleLR": (_sgd, lambda lib, o: _s(lib).OneCycleLR(o, max_lr=0.5, total_steps=STEPS + 1)),
    "OneCycleLR-linear-adam": (
        _adam,
        lambda lib, o: _s(lib).OneCycleLR(
            o,
            max_lr=[0.5, 0.3],
            epochs=7,
            steps_per_epoch=9,
            anneal_strategy="linear",
            pct_start=0.4,
        ),
    ),
    "OneCycleLR-three-phase": (
        _sgd,
        lambda lib, o: _s(lib).OneCycleLR(
            o, max_lr=0.5, total_steps=70, three_phase=True, div_factor=10.0
        ),
    ),
    "ChainedScheduler": (
        _sgd,
        lambda lib, o: _s(lib).ChainedScheduler(
            [
                _s(lib).ExponentialLR(o, gamma=0.95),
                _s(lib).StepLR(o, step_size=10, gamma=0.5),
                _s(lib).ConstantLR(o, factor=0.5, total_iters=4),
            ]
        ),
    ),
    "SequentialLR": (
        _sgd,
        lambda lib, o: _s(lib).SequentialLR(
            o,
            [
                _s(lib).LinearLR(o, start_factor=0.1, total_iters=10),
                _s(lib).CosineAnnealingLR(o, T_max=20),
                _s(lib).ExponentialLR(o, gamma=0.9),
            ],
            milestones=[10, 35],
        ),
    ),
    "ChainedScheduler-of-sequential": (
        _sgd,
        lambda lib, o: _s(lib).ChainedScheduler(
            [
                _s(lib).SequentialLR(
                    o,
                    [
                        _s(lib).ConstantLR(o, factor=0.5, total_iters=3),
                        _s(lib).MultiStepLR(o, milestones=[5, 9]),
                    ],
                    milestones=[6],
                ),
                _s(lib).ExponentialLR(o, gamma=0.97),
            ]
        ),
    ),
}


def _record(opt, sched):
    """The scheduler's last rates and each group's lr and momentum."""
    out = [list(sched.get_last_lr())]
    for group in opt.param_groups:
        out.append((group["lr"], group.get("momentum"), group.get("betas")))
    return out


def _run(lib, name, start=0, stop=STEPS, state=None):
    make_opt, make_sched = SCHEDULES[name]
    opt = make_opt(lib)
    sched = make_sched(lib, opt)
    if state is not None:
        opt.load_state_dict(state[0])
        sched.load_state_dict(state[1])
    history = [_record(opt, sched)]
    for _ in range(start, stop):
        opt.step()
        sched.step()
        history.append(_record(opt, sched))
    return opt, sched, history


def _close(got, want):
    np.testing.assert_equal(
        [type(x).__name__ for x in np.ravel(np.array(got, dtype=object))],
        [type(x).__name__ for x in np.ravel(np.array(want, dtype=object))],
    )
    assert_same_plain(plain(got), plain(want), 1e-13)


@pytest.mark.parametrize("name", list(SCHEDULES))
def test_schedule(name):
    """The rates and momenta of 60 steps equal torch's; the state dicts too, and a state
    dict taken at step 30 continues the schedule in either library."""
    _, _, c = _run(chainrule, name)
    _, _, t = _run(torch, name)
    _close(c, t)
    copt, csched, _ = _run(chainrule, name, 0, 30)
    topt, tsched, _ = _run(torch, name, 0, 30)
    csd, tsd = copy.deepcopy(csched.state_dict()), copy.deepcopy(tsched.state_dict())
    assert_same_plain(plain(csd), plain(tsd), 1e-13)
    cstate = (convert(copt.state_dict(), torch), csd)
    tstate = (convert(topt.state_dict(), chainrule), tsd)
    _, _, c2 = _run(chainrule, name, 30, STEPS, state=tstate)
    _, _, t2 = _run(torch, name, 30, STEPS, state=cstate)
    _close(c2[1:], t[31:])
    _close(t2[1:], t[31:])


def test_initial_lr_and_base_lrs():
    def run(lib):
        opt = _sgd(lib)
        sched = _s(lib).StepLR(opt, 3)
        return [sorted(g) for g in opt.param_groups], sched.base_lrs, sched.last_epoch

    c, t = run(chainrule), run(torch)
    assert c == t


@pytest.mark.parametrize(
    "name",
    [
        "StepLR",
        "MultiStepLR",
        "ConstantLR",
        "LinearLR",
        "ExponentialLR",
        "PolynomialLR",
        "CosineAnnealingLR",
        "LambdaLR",
        "CosineAnnealingWarmRestarts",
    ],
)
def test_step_with_epoch(name):
    """``step(epoch)`` (deprecated, with its warning) uses the closed form."""

    def run(lib):
        opt = SCHEDULES[name][0](lib)
        sched = SCHEDULES[name][1](lib, opt)
        out = []
        for epoch in [3, 8, 2, 20, 41, 5]:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                sched.step(epoch)
            out.append((sched.get_last_lr(), [str(w.message)[:40] for w in caught]))
        return out

    _close(run(chainrule), run(torch))


def test_warns_when_scheduler_steps_first():
    def run(lib):
        opt = _sgd(lib)
        sched = _s(lib).StepLR(opt, 3)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sched.step()
            sched.step()
        messages = [str(w.message) for w in caught]
        opt2 = _sgd(lib)
        sched2 = _s(lib).StepLR(opt2, 3)
        with warnings.catch_warnings(record=True) as caught2:
            warnings.simplefilter("always")
            opt2.step()
            sched2.step()
            sched2.get_lr()
        return messages, [str(w.message) for w in caught2]

    assert run(chainrule) == run(torch)


def test_reduce_lr_on_plateau():
    metrics = [
        1.0,
        0.9,
        0.95,
        0.95,
        0.96,
        0.97,
        0.89,
        0.9,
        0.9,
        0.9,
        0.9,
        0.5,
        0.6,
        0.7,
        0.8,
        0.9,
        0.9,
        0.9,
        0.9,
        0.9,
        0.45,
        0.45,
        0.45,
        0.45,
        0.45,
        0.45,
        0.45,
    ]
    settings = [
        {"patience": 2},
        {"mode": "max", "factor": 0.5, "patience": 1, "cooldown": 2},
        {"threshold_mode": "abs", "threshold": 0.05, "patience": 0, "min_lr": [0.02, 0.001]},
        {"mode": "max", "threshold_mode": "abs", "patience": 3, "min_lr": 0.04, "eps": 1e-3},
    ]

    def run(lib, kw):
        opt = _sgd(lib)
        sched = _s(lib).ReduceLROnPlateau(opt, **kw)
        out = []
        for i, m in enumerate(metrics):
            sched.step(lib.tensor(m) if i % 2 else m)
            out.append(
                (
                    sched.get_last_lr(),
                    sched.num_bad_epochs,
                    sched.cooldown_counter,
                    sched.best,
                    sched.last_epoch,
                )
            )
            if i == 12:
                sd = copy.deepcopy(sched.state_dict())
                sched = _s(lib).ReduceLROnPlateau(opt, **kw)
                sched.load_state_dict(sd)
        return out, plain(sched.state_dict())

    for kw in settings:
        (c, csd), (t, tsd) = run(chainrule, kw), run(torch, kw)
        _close(c, t)
        assert_same_plain(csd, tsd, 1e-13)


ERRORS = {
    "not optimizer": lambda lib: _s(lib).StepLR("sgd", 3),
    "resume without initial_lr": lambda lib: _s(lib).StepLR(_sgd(lib), 3, last_epoch=4),
    "lambdas count": lambda lib: _s(lib).LambdaLR(_sgd(lib), [lambda e: 1.0]),
    "multiplicative not callable": lambda lib: _s(lib).MultiplicativeLR(_sgd(lib), [1, 2]),
    "constant factor": lambda lib: _s(lib).ConstantLR(_sgd(lib), factor=1.5),
    "linear start": lambda lib: _s(lib).LinearLR(_sgd(lib), start_factor=0),
    "linear end": lambda lib: _s(lib).LinearLR(_sgd(lib), end_factor=1.5),
    "warm T_0": lambda lib: _s(lib).CosineAnnealingWarmRestarts(_sgd(lib), T_0=0),
    "warm T_mult": lambda lib: _s(lib).CosineAnnealingWarmRestarts(_sgd(lib), 3, T_mult=0),
    "warm eta_min": lambda lib: _s(lib).CosineAnnealingWarmRestarts(_sgd(lib), 3, eta_min="a"),
    "warm epoch": lambda lib: _s(lib).CosineAnnealingWarmRestarts(_sgd(lib), 3).step(-1),
    "cyclic mode": lambda lib: _s(lib).CyclicLR(_sgd(lib), 0.1, 1.0, mode="zigzag"),
    "cyclic max_lr": lambda lib: _s(lib).CyclicLR(_sgd(lib), 0.1, [1.0, 2.0, 3.0]),
    "cyclic momentum": lambda lib: _s(lib).CyclicLR(
        lib.optim.Adagrad(params(lib, initial())), 0.1, 1.0
    ),
    "onecycle steps": lambda lib: _s(lib).OneCycleLR(_sgd(lib), 0.1),
    "onecycle total": lambda lib: _s(lib).OneCycleLR(_sgd(lib), 0.1, total_steps=0),
    "onecycle epochs": lambda lib: _s(lib).OneCycleLR(_sgd(lib), 0.1, epochs=0, steps_per_epoch=3),
    "onecycle per epoch": lambda lib: _s(lib).OneCycleLR(
        _sgd(lib), 0.1, epochs=2, steps_per_epoch=-1
    ),
    "onecycle pct": lambda lib: _s(lib).OneCycleLR(_sgd(lib), 0.1, 10, pct_start=1.5),
    "onecycle anneal": lambda lib: _s(lib).OneCycleLR(_sgd(lib), 0.1, 10, anneal_strategy="exp"),
    "onecycle overrun": lambda lib: [
        s.step() for s in [_s(lib).OneCycleLR(_sgd(lib), 0.1, 3)] for _ in range(4)
    ],
    "plateau factor": lambda lib: _s(lib).ReduceLROnPlateau(_sgd(lib), factor=1.0),
    "plateau mode": lambda lib: _s(lib).ReduceLROnPlateau(_sgd(lib), mode="up"),
    "plateau threshold mode": lambda lib: _s(lib).ReduceLROnPlateau(
        _sgd(lib), threshold_mode="pct"
    ),
    "plateau min_lrs": lambda lib: _s(lib).ReduceLROnPlateau(_sgd(lib), min_lr=[0.1]),
    "sequential empty": lambda lib: _s(lib).SequentialLR(_sgd(lib), [], []),
    "sequential milestones": lambda lib: (
        lambda o: _s(lib).SequentialLR(o, [_s(lib).StepLR(o, 2)], milestones=[3])
    )(_sgd(lib)),
    "sequential plateau": lambda lib: (
        lambda o: _s(lib).SequentialLR(o, [_s(lib).ReduceLROnPlateau(o)], milestones=[])
    )(_sgd(lib)),
    "chained empty": lambda lib: _s(lib).ChainedScheduler([]),
    "chained not scheduler": lambda lib: _s(lib).ChainedScheduler([3]),
}


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("case", list(ERRORS))
def test_errors(case):
    assert_same_error(ERRORS[case])


def test_different_optimizers_error():
    def run(lib):
        o1, o2 = _sgd(lib), _sgd(lib)
        _s(lib).ChainedScheduler([_s(lib).StepLR(o1, 2), _s(lib).StepLR(o2, 2)])

    assert_same_error(run, "expects all schedulers to belong to the same optimizer")
