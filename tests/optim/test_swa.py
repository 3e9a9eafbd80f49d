"""Weight averaging side by side with torch.optim.swa_utils: ``AveragedModel`` (SWA,
``avg_fn``, ``multi_avg_fn``, EMA helpers, ``use_buffers``), ``SWALR``'s rates and state
dicts, and ``update_bn`` recomputing batch-norm statistics."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
from optim_helpers import assert_same_plain, plain

import chainrule
from oracle import assert_same_error

RNG = np.random.default_rng(7)
SNAPSHOTS = [
    {"w": RNG.standard_normal((3, 4)), "b": RNG.standard_normal(4), "r": RNG.standard_normal(4)}
    for _ in range(6)
]


def _model(lib):
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = lib.nn.Parameter(lib.zeros(3, 4, dtype=lib.float64))
            self.b = lib.nn.Parameter(lib.zeros(4, dtype=lib.float64))
            self.register_buffer("r", lib.zeros(4, dtype=lib.float64))

        def forward(self, x):
            return x @ self.w + self.b + self.r

    return Net()


def _load(lib, model, snap):
    with lib.no_grad():
        for name, value in snap.items():
            getattr(model, name).copy_(lib.tensor(value))


def _fns(lib):
    swa = lib.optim.swa_utils
    return {
        "default": {},
        "avg_fn ema": {"avg_fn": swa.get_ema_avg_fn(0.9)},
        "avg_fn swa": {"avg_fn": swa.get_swa_avg_fn()},
        "multi ema": {"multi_avg_fn": swa.get_ema_multi_avg_fn(0.8)},
        "multi swa": {"multi_avg_fn": swa.get_swa_multi_avg_fn()},
        "buffers": {"use_buffers": True},
        "buffers ema": {"use_buffers": True, "multi_avg_fn": swa.get_ema_multi_avg_fn(0.5)},
    }


@pytest.mark.parametrize("case", list(_fns(torch)))
def test_averaged_model(case):
    """The averaged parameters and buffers, ``n_averaged``, the state dict and the forward
    equal torch's after each update."""

    def run(lib):
        model = _model(lib)
        averaged = lib.optim.swa_utils.AveragedModel(model, **_fns(lib)[case])
        out = []
        for snap in SNAPSHOTS:
            _load(lib, model, snap)
            averaged.update_parameters(model)
            out.append(plain(dict(averaged.state_dict())))
        x = lib.tensor(np.ones((2, 3)))
        out.append(plain(averaged(x)))
        out.append([name for name, _ in averaged.named_parameters()])
        out.append(str(averaged.n_averaged.dtype))
        return out

    assert_same_plain(run(chainrule), run(torch), 1e-12)


def test_averaged_model_errors():
    def both_fns(lib):
        swa = lib.optim.swa_utils
        swa.AveragedModel(
            _model(lib), avg_fn=swa.get_swa_avg_fn(), multi_avg_fn=swa.get_swa_multi_avg_fn()
        )

    assert_same_error(both_fns)
    assert_same_error(lambda lib: lib.optim.swa_utils.get_ema_avg_fn(1.5))
    assert_same_error(lambda lib: lib.optim.swa_utils.get_ema_multi_avg_fn(-0.1))


def _sgd(lib):
    ps = [lib.nn.Parameter(lib.zeros(2)), lib.nn.Parameter(lib.zeros(3))]
    return lib.optim.SGD([{"params": ps[:1]}, {"params": ps[1:], "lr": 0.3}], lr=0.1)


SWALRS = [
    {"swa_lr": 0.05},
    {"swa_lr": [0.01, 0.5], "anneal_epochs": 4, "anneal_strategy": "linear"},
    {"swa_lr": 0.02, "anneal_epochs": 0},
    {"swa_lr": 0.02, "anneal_epochs": 7, "anneal_strategy": "cos"},
]


@pytest.mark.parametrize("kw", SWALRS, ids=[str(i) for i in range(len(SWALRS))])
def test_swalr(kw):
    """SWALR after a cosine schedule: the rates of 30 steps, and a state dict at step 12
    that continues them."""

    def run(lib, resume=None):
        opt = _sgd(lib)
        s = lib.optim.lr_scheduler
        cosine = s.CosineAnnealingLR(opt, T_max=10)
        swa = lib.optim.swa_utils.SWALR(opt, **kw)
        if resume is not None:
            opt.load_state_dict(resume[0])
            swa.load_state_dict(resume[1])
        rates, saved = [], None
        for i in range(30 if resume is None else 18):
            opt.step()
            (cosine if i < 5 and resume is None else swa).step()
            rates.append(swa.get_last_lr())
            if i == 11 and resume is None:
                saved = (copy.deepcopy(opt.state_dict()), copy.deepcopy(swa.state_dict()))
        return rates, saved

    (c, csaved), (t, tsaved) = run(chainrule), run(torch)
    assert_same_plain(plain(c), plain(t), 1e-13)
    assert_same_plain(plain(csaved[1]), plain(tsaved[1]), 1e-13)
    c2, _ = run(chainrule, tsaved)
    t2, _ = run(torch, csaved)
    assert_same_plain(plain(c2), plain(t[12:]), 1e-13)
    assert_same_plain(plain(t2), plain(t[12:]), 1e-13)


@pytest.mark.parametrize(
    "kw", [{"anneal_strategy": "exp"}, {"anneal_epochs": -1}, {"anneal_epochs": 2.5}]
)
def test_swalr_errors(kw):
    assert_same_error(lambda lib: lib.optim.swa_utils.SWALR(_sgd(lib), 0.1, **kw))


def _cr_batchnorm():
    """A batch-norm layer on chainrule's ``F.batch_norm`` (chainrule's BatchNorm modules
    come with the layers): ``update_bn`` knows batch norms by their ``_BatchNorm`` base."""
    nn, F = chainrule.nn, chainrule.nn.functional

    class _BatchNorm(nn.Module):
        def __init__(self, n, momentum=0.1):
            super().__init__()
            self.momentum, self.eps = momentum, 1e-5
            self.weight = nn.Parameter(chainrule.ones(n, dtype=chainrule.float64))
            self.bias = nn.Parameter(chainrule.zeros(n, dtype=chainrule.float64))
            self.register_buffer("running_mean", chainrule.zeros(n, dtype=chainrule.float64))
            self.register_buffer("running_var", chainrule.ones(n, dtype=chainrule.float64))
            self.register_buffer("num_batches_tracked", chainrule.tensor(0))

        def reset_running_stats(self):
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

        def forward(self, x):
            factor = self.momentum
            if self.training:
                self.num_batches_tracked.add_(1)
                if self.momentum is None:
                    factor = 1.0 / float(self.num_batches_tracked)
            return F.batch_norm(
                x,
                self.running_mean,
                self.running_var,
                self.weight,
                self.bias,
                self.training,
                factor,
                self.eps,
            )

    return _BatchNorm


@pytest.mark.parametrize("tuples", [False, True])
def test_update_bn(tuples):
    """The running statistics become the plain average over the loader's batches; the
    model's mode and the momentum are restored."""
    batches = [np.random.default_rng(i).standard_normal((5, 3)) * (i + 1) for i in range(4)]

    def run(lib, bn_class):
        model = lib.nn.Sequential(bn_class(3), bn_class(3, momentum=0.3))
        model = model.double() if lib is torch else model
        model(lib.tensor(batches[0]) + 1)  # stale statistics, then recomputed
        model.eval()
        loader = [(lib.tensor(b), lib.tensor(0)) if tuples else lib.tensor(b) for b in batches]
        lib.optim.swa_utils.update_bn(loader, model)
        return (
            plain({k: v for k, v in model.state_dict().items() if "batches" not in k}),
            model.training,
            [m.momentum for m in model],
        )

    c = run(chainrule, _cr_batchnorm())
    t = run(torch, torch.nn.BatchNorm1d)
    assert_same_plain(c[0], t[0], 1e-12)
    assert c[1:] == t[1:]


def test_update_bn_without_batch_norm_is_a_no_op():
    for lib in (chainrule, torch):
        model = _model(lib)
        model.eval()
        lib.optim.swa_utils.update_bn([lib.ones(2, 3, dtype=lib.float64)], model)
        assert not model.training
