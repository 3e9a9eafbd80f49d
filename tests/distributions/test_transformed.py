"""``TransformedDistribution``, the elementwise transforms and ``LogNormal`` against
PyTorch: log densities pulled back through the transforms, their gradients, entropies and
moments, supports, the inverse transforms and their cache, KL, errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import compare, error_of


def _t(lib, values):
    return lib.tensor(np.asarray(values, dtype=np.float64), requires_grad=True)


def _params(lib):
    return _t(lib, [0.5, -1.0]), _t(lib, [1.5, 0.3])


def _T(lib):
    return lib.distributions.transforms


CASES = {
    "lognormal": (
        lambda L, loc, scale: L.distributions.LogNormal(loc, scale),
        [[0.5, 2.0], [1.3, 0.1]],
    ),
    "tanh of a normal": (
        lambda L, loc, scale: L.distributions.TransformedDistribution(
            L.distributions.Normal(loc, scale), [_T(L).TanhTransform()]
        ),
        [[0.3, -0.9], [0.99, 0.0]],
    ),
    "affine then exp": (
        lambda L, loc, scale: L.distributions.TransformedDistribution(
            L.distributions.Normal(loc, scale),
            [_T(L).AffineTransform(1.0, 2.0), _T(L).ExpTransform()],
        ),
        [[0.5, 2.0], [1.3, 0.1]],
    ),
    "tensor affine": (
        lambda L, loc, scale: L.distributions.TransformedDistribution(
            L.distributions.Normal(loc, scale), _T(L).AffineTransform(loc * 0 + 0.5, scale * 2)
        ),
        [[0.5, 2.0], [-1.3, 0.1]],
    ),
    "logit of a uniform": (
        lambda L, loc, scale: L.distributions.TransformedDistribution(
            L.distributions.Uniform(loc - 2, loc + 2), [_T(L).SigmoidTransform()]
        ),
        [[0.3, 0.2], [0.9, 0.05]],
    ),
    "a composition": (
        lambda L, loc, scale: L.distributions.TransformedDistribution(
            L.distributions.Normal(loc, scale),
            _T(L).ComposeTransform([_T(L).AffineTransform(0.0, 3.0), _T(L).SigmoidTransform()]),
        ),
        [[0.3, 0.6], [0.01, 0.99]],
    ),
    "an inverse": (
        lambda L, loc, scale: L.distributions.TransformedDistribution(
            L.distributions.Uniform(loc * 0, loc * 0 + 1), [_T(L).SigmoidTransform().inv]
        ),
        [[0.3, -0.2], [4.0, -3.0]],
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_log_prob_and_gradients_as_torch(name):
    make, values = CASES[name]

    def run(lib):
        loc, scale = _params(lib)
        d = make(lib, loc, scale)
        lp = d.log_prob(lib.tensor(np.asarray(values)))
        out = [repr(d), repr(d.support), tuple(d.batch_shape), tuple(d.event_shape), lp]
        if name == "lognormal":
            out += [d.entropy(), d.mean, d.mode, d.variance]
        total = sum(v.sum() for v in out if isinstance(v, lib.Tensor))
        return out, lib.autograd.grad(total, [loc, scale], allow_unused=True)

    compare(run, rtol=1e-12, atol=1e-14)


def test_lognormal_kl_as_torch():
    def run(lib):
        loc, scale = _params(lib)
        D = lib.distributions
        return D.kl_divergence(D.LogNormal(loc, scale), D.LogNormal(0.0, 1.0))

    compare(run, rtol=1e-12)


def test_the_cache_gives_back_the_exact_input():
    for lib in (torch, cr):
        t = _T(lib).TanhTransform(cache_size=1)
        x = lib.tensor([20.0], dtype=lib.float64)
        y = t(x)
        assert t.inv(y) is x and t.inv.inv is t
        assert repr(t.inv) == "_InverseTransform(TanhTransform())"


def test_samples_lie_in_the_support_and_rsample_is_differentiable():
    cr.manual_seed(0)
    loc, scale = _params(cr)
    d = cr.distributions.TransformedDistribution(
        cr.distributions.Normal(loc, scale), [_T(cr).TanhTransform()]
    )
    s = d.sample((1000,))
    assert tuple(s.shape) == (1000, 2) and (s.abs() < 1).all() and not s.requires_grad
    r = cr.distributions.LogNormal(loc, scale).rsample((5,))
    assert r.requires_grad and (r > 0).all()
    r.sum().backward()
    assert loc.grad is not None and scale.grad is not None


ERRORS = {
    "not a transform": lambda L: L.distributions.TransformedDistribution(
        L.distributions.Normal(0.0, 1.0), 3
    ),
    "a list of other things": lambda L: L.distributions.TransformedDistribution(
        L.distributions.Normal(0.0, 1.0), [3]
    ),
    "a negative scale": lambda L: L.distributions.LogNormal(0.0, -1.0),
    "a value outside the support": lambda L: L.distributions.LogNormal(0.0, 1.0).log_prob(
        L.tensor([-1.0])
    ),
    "a cache of 2": lambda L: _T(L).TanhTransform(cache_size=2),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name):
    want, got = error_of(ERRORS[name], torch), error_of(ERRORS[name], cr)
    assert (type(got), str(got)) == (type(want), str(want))
