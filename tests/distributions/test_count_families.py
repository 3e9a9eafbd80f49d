"""The count families of ``chainrule.distributions`` (Poisson, Binomial, Geometric,
Multinomial) against ``torch.distributions``: log probabilities, entropies, moments,
supports and KL divergences with their gradients (float64), reprs, shapes, ``expand``
and the errors of the checks; samples by their shapes, supports and moments (the random
streams differ)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import compare, error_of


def _t(lib, values, grad=True):
    return lib.tensor(np.asarray(values, dtype=np.float64), requires_grad=grad)


def _recording(lib, made):
    """``_t`` that also appends each parameter requiring grad to ``made``"""

    def t(values, grad=True):
        param = _t(lib, values, grad)
        if grad:
            made.append(param)
        return param

    return t


def _families(lib, made):
    """each family's maker; its parameters that require grad are appended to ``made``"""
    D = lib.distributions
    t = _recording(lib, made)
    return {
        "poisson": lambda: D.Poisson(t([0.5, 3.0])),
        "poisson of a number": lambda: D.Poisson(2.0),
        "poisson with rate zero": lambda: D.Poisson(t([0.0, 1.5])),
        "binomial of probs": lambda: D.Binomial(5, probs=t([0.2, 0.7])),
        "binomial of logits": lambda: D.Binomial(t([3.0, 3.0], False), logits=t([0.0, -2.0])),
        "binomial of large logits": lambda: D.Binomial(4, logits=t([40.0, -40.0])),
        "binomial with certain outcomes": lambda: D.Binomial(2, probs=t([0.0, 1.0])),
        "binomial of varied counts": lambda: D.Binomial(
            t([[5.0], [10.0]], False), probs=t([0.2, 0.7])
        ),
        "geometric of probs": lambda: D.Geometric(probs=t([0.2, 0.7])),
        "geometric of logits": lambda: D.Geometric(logits=t([0.3, -2.0])),
        "geometric of a number": lambda: D.Geometric(0.25),
        "geometric with a sure success": lambda: D.Geometric(probs=t([1.0, 0.5])),
        "multinomial of probs": lambda: D.Multinomial(
            4, probs=t([[0.2, 0.3, 0.5], [1.0, 1.0, 6.0]])
        ),
        "multinomial of logits": lambda: D.Multinomial(3, logits=t([0.1, 2.0, -1.0])),
        "multinomial with an impossible category": lambda: D.Multinomial(
            2, logits=t([-math.inf, 0.0, 1.0])
        ),
    }


VALUES = {
    "poisson": [[0.0, 1.0], [4.0, 2.0]],
    "poisson of a number": [0.0, 3.0],
    "poisson with rate zero": [[0.0, 0.0], [0.0, 2.0]],
    "binomial of probs": [[0.0, 1.0], [5.0, 2.0]],
    "binomial of logits": [3.0, 1.0],
    "binomial of large logits": [4.0, 0.0],
    "binomial with certain outcomes": [0.0, 2.0],
    "binomial of varied counts": [[[5.0, 1.0], [10.0, 3.0]]],
    "geometric of probs": [[0.0, 1.0], [4.0, 2.0]],
    "geometric of logits": [3.0, 0.0],
    "geometric of a number": [0.0, 7.0],
    "geometric with a sure success": [0.0, 2.0],
    "multinomial of probs": [
        [[1.0, 1.0, 2.0], [0.0, 0.0, 4.0]],
        [[4.0, 0.0, 0.0], [1.0, 3.0, 0.0]],
    ],
    "multinomial of logits": [[0.0, 3.0, 0.0], [1.0, 1.0, 1.0]],
    "multinomial with an impossible category": [0.0, 1.0, 1.0],
}

# what each family has beyond log_prob, mean, variance and stddev (as in PyTorch)
HAS_ENTROPY = ("binomial of probs", "binomial of logits", "binomial of large logits")
HAS_ENTROPY += ("binomial with certain outcomes", "geometric", "multinomial")


def _summary(lib, family, made):
    d = _families(lib, made)[family]()
    value = _t(lib, VALUES[family], False)
    out = {
        "repr": repr(d),
        "shapes": (tuple(d.batch_shape), tuple(d.event_shape), tuple(d.param_shape))
        if hasattr(d, "param_shape")
        else (tuple(d.batch_shape), tuple(d.event_shape)),
        "log_prob": d.log_prob(value),
        "mean": d.mean,
        "variance": d.variance,
        "stddev": d.stddev,
        "in support": d.support.check(value),
    }
    if family.startswith(HAS_ENTROPY):
        out["entropy"] = d.entropy()
    if not family.startswith("multinomial"):
        out["mode"] = d.mode
    if not family.startswith("poisson"):
        out["probs"], out["logits"] = d.probs, d.logits
    if family.startswith("binomial") and "varied" not in family:
        out["support"] = (d.enumerate_support(), d.enumerate_support(expand=False))
    return out


def _grads(lib, params, out):
    """the gradient of the sum of the finite float outputs w.r.t. the parameters"""
    terms = [
        v.masked_fill(~v.isfinite(), 0).sum()
        for v in out.values()
        if isinstance(v, lib.Tensor) and v.is_floating_point() and v.requires_grad
    ]
    if not params or not terms:
        return ()
    return lib.autograd.grad(sum(terms), params, allow_unused=True, retain_graph=True)


@pytest.mark.parametrize("family", list(VALUES))
def test_probabilities_moments_and_gradients_as_torch(family):
    def run(lib):
        params = []
        out = _summary(lib, family, params)
        # (log_prob's alone too: at the edges of the parameter space, where some output's
        # gradient is nan, the sum's is nan throughout)
        return out, _grads(lib, params, out), _grads(lib, params, {"": out["log_prob"]})

    if family.endswith("of a number"):
        # (float32 parameters: NumPy's and PyTorch's float32 log1p may differ by an ulp)
        compare(run, rtol=2e-7, atol=1e-7)
    else:
        compare(run, rtol=1e-12, atol=1e-14)


def test_poisson_has_no_entropy_and_multinomial_no_mode_as_torch():
    for make in (
        lambda L: L.distributions.Poisson(L.tensor([1.0, 2.0])).entropy(),
        lambda L: L.distributions.Multinomial(2, L.tensor([0.5, 0.5])).mode,
    ):
        assert type(error_of(make, cr)) is type(error_of(make, torch)) is NotImplementedError


def test_supports_as_torch():
    def run(lib):
        D = lib.distributions
        binomial = D.Binomial(_t(lib, [2.0, 3.0], False), probs=_t(lib, [0.5, 0.5], False))
        multinomial = D.Multinomial(3, probs=_t(lib, [0.5, 0.5], False))
        return {
            "reprs": [
                repr(D.Poisson(1.0).support),
                repr(D.Geometric(0.5).support),
                repr(binomial.support),
                repr(multinomial.support),
            ],
            "binomial": binomial.support.check(_t(lib, [[0.0, 3.0], [3.0, 1.5]], False)),
            "multinomial": multinomial.support.check(
                _t(lib, [[1.0, 2.0], [2.0, 2.0], [-1.0, 1.0]], False)
            ),
            "discrete": [
                D.Binomial.support.is_discrete,
                D.Binomial.support.event_dim,
                D.Multinomial.support.is_discrete,
                D.Multinomial.support.event_dim,
                D.Poisson.support.is_discrete,
                D.Geometric.has_enumerate_support,
                D.Binomial.has_enumerate_support,
                D.Multinomial.has_rsample,
            ],
        }

    compare(run)


KL = {  # name: (p, q)
    "poisson": lambda D, t: (D.Poisson(t([0.5, 3.0])), D.Poisson(t([2.0]))),
    "bernoulli and poisson": lambda D, t: (
        D.Bernoulli(logits=t([0.3, -2.0])),
        D.Poisson(t([2.0, 0.5])),
    ),
    "poisson and bernoulli": lambda D, t: (
        D.Poisson(t([2.0, 0.5])),
        D.Bernoulli(probs=t([0.3, 0.6])),
    ),
    "poisson and binomial": lambda D, t: (
        D.Poisson(t([2.0, 0.5])),
        D.Binomial(3, probs=t([0.3, 0.6])),
    ),
    "binomial": lambda D, t: (
        D.Binomial(5, logits=t([0.3, -2.0])),
        D.Binomial(5, probs=t([0.2, 0.9])),
    ),
    "binomial of more trials": lambda D, t: (
        D.Binomial(t([5.0, 3.0], False), probs=t([0.3, 0.6])),
        D.Binomial(t([3.0, 3.0], False), probs=t([0.2, 0.9])),
    ),
    "geometric": lambda D, t: (
        D.Geometric(logits=t([0.3, -2.0])),
        D.Geometric(probs=t([0.2, 0.9])),
    ),
}


@pytest.mark.parametrize("name", list(KL))
def test_kl_divergence_as_torch(name):
    def run(lib):
        params = []
        p, q = KL[name](lib.distributions, _recording(lib, params))
        kl = lib.distributions.kl_divergence(p, q)
        return kl, _grads(lib, params, {"kl": kl})

    compare(run, rtol=1e-12, atol=1e-14)


ERRORS = {
    "a negative rate": lambda L: L.distributions.Poisson(L.tensor([1.0, -1.0])),
    "a fractional count for a poisson": lambda L: L.distributions.Poisson(2.0).log_prob(
        L.tensor([1.5])
    ),
    "a fractional total_count": lambda L: L.distributions.Binomial(2.5, L.tensor([0.3])),
    "binomial probs above 1": lambda L: L.distributions.Binomial(2, L.tensor([1.5])),
    "a binomial of neither probs nor logits": lambda L: L.distributions.Binomial(3),
    "more successes than trials": lambda L: L.distributions.Binomial(
        5, L.tensor([0.3, 0.6])
    ).log_prob(L.tensor([6.0, 1.0])),
    "the entropy of varied counts": lambda L: L.distributions.Binomial(
        L.tensor([2.0, 3.0]), L.tensor([0.3, 0.6])
    ).entropy(),
    "the support of varied counts": lambda L: L.distributions.Binomial(
        L.tensor([2.0, 3.0]), L.tensor([0.3, 0.6])
    ).enumerate_support(),
    "a geometric that never succeeds": lambda L: L.distributions.Geometric(
        L.tensor([0.0, 0.5, 0.0])
    ),
    "geometric probs below 0": lambda L: L.distributions.Geometric(L.tensor([-0.5])),
    "a geometric of both": lambda L: L.distributions.Geometric(0.5, 0.0),
    "a negative count for a geometric": lambda L: L.distributions.Geometric(0.5).log_prob(
        L.tensor([-1.0])
    ),
    "a tensor total_count": lambda L: L.distributions.Multinomial(
        L.tensor(3), L.tensor([0.2, 0.8])
    ),
    "multinomial counts above the total": lambda L: L.distributions.Multinomial(
        3, L.tensor([0.2, 0.8])
    ).log_prob(L.tensor([2.0, 2.0])),
    "negative multinomial probs": lambda L: L.distributions.Multinomial(3, L.tensor([-0.5, 1.5])),
    "multinomial probs of no dims": lambda L: L.distributions.Multinomial(3, L.tensor(1.0)),
    "multinomial counts of another event shape": lambda L: L.distributions.Multinomial(
        3, L.tensor([0.2, 0.8])
    ).log_prob(L.tensor([1.0, 1.0, 1.0])),
    "a kl to a binomial of more trials": lambda L: L.distributions.kl_divergence(
        L.distributions.Binomial(2, L.tensor([0.3])),
        L.distributions.Binomial(3, L.tensor([0.3])),
    ),
    "a kl of a poisson to a geometric": lambda L: L.distributions.kl_divergence(
        L.distributions.Poisson(1.0), L.distributions.Geometric(0.5)
    ),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name):
    want, got = error_of(ERRORS[name], torch), error_of(ERRORS[name], cr)
    assert (type(got), str(got)) == (type(want), str(want))


EXPANDED = {  # family: the new batch shape
    "poisson": (2, 2),
    "poisson of a number": (2,),
    "binomial of probs": (2, 2),
    "binomial of logits": (1, 2),
    "binomial of varied counts": (3, 2, 2),
    "geometric of probs": (2, 2),
    "geometric of logits": (3, 2),
    "multinomial of probs": (2, 2),
    "multinomial of logits": (2,),
}


@pytest.mark.parametrize("family", list(EXPANDED))
def test_expand_as_torch(family):
    # the expanded distribution's shapes, probabilities, moments and their gradients back
    # to the original parameters, as PyTorch's
    def run(lib):
        params = []
        d = _families(lib, params)[family]().expand(EXPANDED[family])
        value = _t(lib, VALUES[family], False)
        out = {
            "type": type(d).__name__,
            "shapes": (tuple(d.batch_shape), tuple(d.event_shape)),
            "sample shape": tuple(d.sample((2,)).shape),
            "log_prob": d.log_prob(value),
            "mean": d.mean,
            "variance": d.variance,
            "checks": d._validate_args,
        }
        if family.startswith(("binomial of p", "binomial of l", "geometric")):
            out["entropy"] = d.entropy()
        if family.startswith("binomial"):
            out["total_count"] = d.total_count
        if family.startswith("multinomial"):
            out["total_count"], out["probs"] = d.total_count, d.probs
        return out, _grads(lib, params, out)

    tolerance = (2e-7, 1e-7) if family.endswith("of a number") else (1e-12, 1e-14)
    compare(run, *tolerance)


def test_an_expanded_multinomial_has_the_entropy_of_the_original():
    # PyTorch's expand leaves out the Binomial its entropy uses (AttributeError there)
    probs = cr.tensor([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]], dtype=cr.float64)
    d = cr.distributions.Multinomial(4, probs)
    want = torch.distributions.Multinomial(4, torch.tensor(probs.numpy())).entropy()
    got = d.expand((3, 2)).entropy()
    assert tuple(got.shape) == (3, 2)
    np.testing.assert_allclose(got.numpy(), np.broadcast_to(want.numpy(), (3, 2)), rtol=1e-12)


def _assert_moments(s, mean, variance):
    """the sample mean and variance within four standard errors of the given ones (the
    standard error of the variance from the sample's fourth central moment)"""
    s = s.astype(np.float64)
    n = s.shape[0]
    centred = s - s.mean(0)
    var = (centred**2).mean(0)
    m4 = (centred**4).mean(0)
    assert (np.abs(s.mean(0) - mean) <= 4 * np.sqrt(np.asarray(variance) / n) + 1e-12).all()
    assert (np.abs(var - variance) <= 4 * np.sqrt(np.maximum(m4 - var**2, 0) / n) + 1e-12).all()


SAMPLED = {  # name: (the distribution, its support's upper end, or None if unbounded)
    "poisson": (lambda D, p: D.Poisson(p([0.5, 3.0, 20.0, 0.0])), None),
    "binomial of probs": (lambda D, p: D.Binomial(7, probs=p([0.2, 0.5, 0.9, 1.0])), 7.0),
    "binomial of logits and counts": (
        lambda D, p: D.Binomial(p([1.0, 4.0, 30.0, 2.0]), logits=p([0.3, -2.0, 1.0, 0.0])),
        np.array([1.0, 4.0, 30.0, 2.0]),
    ),
    "geometric of probs": (lambda D, p: D.Geometric(probs=p([0.2, 0.7, 1.0, 0.5])), None),
    "geometric of logits": (lambda D, p: D.Geometric(logits=p([0.3, -2.0, 4.0, 0.0])), None),
}


@pytest.mark.parametrize("name", list(SAMPLED))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_samples_are_counts_with_the_moments(name, dtype):
    make, upper = SAMPLED[name]
    cr.manual_seed(7)
    dt = getattr(cr, dtype)
    d = make(cr.distributions, lambda v: cr.tensor(v, dtype=dt, requires_grad=True))
    s = d.sample((20000,))
    assert tuple(s.shape) == (20000, 4) and s.dtype == dt and not s.requires_grad
    x = s.numpy()
    assert (x == np.floor(x)).all() and (x >= 0).all()
    if upper is not None:
        assert (x <= upper).all()
    assert d.support.check(s).all().item()
    _assert_moments(x, d.mean.detach().numpy(), d.variance.detach().numpy())


def test_multinomial_samples_count_the_draws():
    cr.manual_seed(8)
    probs = np.array([[0.2, 0.3, 0.5], [0.0, 0.1, 0.9]])
    d = cr.distributions.Multinomial(6, cr.tensor(probs, requires_grad=True))
    s = d.sample((20000,))
    assert tuple(s.shape) == (20000, 2, 3) and s.dtype == cr.float64 and not s.requires_grad
    x = s.numpy()
    assert (x.sum(-1) == 6).all() and (x[..., 0, 0] >= 0).all() and (x[:, 1, 0] == 0).all()
    assert d.support.check(s).all().item()
    _assert_moments(x, 6 * probs, 6 * probs * (1 - probs))
    assert tuple(d.sample().shape) == (2, 3) and tuple(d.sample((2, 5)).shape) == (2, 5, 2, 3)


def test_samples_of_an_expanded_distribution_vary_along_the_new_dims():
    cr.manual_seed(9)
    s = cr.distributions.Poisson(cr.tensor([50.0])).expand((1000,)).sample()
    assert tuple(s.shape) == (1000,) and len(np.unique(s.numpy())) > 10
    m = cr.distributions.Multinomial(10, cr.tensor([0.5, 0.5])).expand((1000,)).sample()
    assert tuple(m.shape) == (1000, 2) and len(np.unique(m.numpy()[:, 0])) > 3
