"""ContinuousBernoulli, the relaxed Bernoulli and categorical families,
OneHotCategoricalStraightThrough, MixtureSameFamily, LowRankMultivariateNormal and VonMises
against ``torch.distributions``: densities, entropies, moments, CDFs, covariance matrices
and KL divergences with their gradients (float64), reprs, shapes, ``expand``, the errors
of the checks; samples by their shapes, supports and moments (the random streams differ),
reparameterized samples by finite differences."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import compare, error_of


class _Leaves:
    """Makes float64 tensors that require grad and remembers them (the gradients' inputs)."""

    def __init__(self, lib) -> None:
        self.lib, self.made = lib, []

    def __call__(self, values):
        t = self.lib.tensor(np.asarray(values, dtype=np.float64), requires_grad=True)
        self.made.append(t)
        return t


def _value(lib, values):
    return lib.tensor(np.asarray(values, dtype=np.float64))


def _log_simplex(rows):
    x = np.log(np.asarray(rows, dtype=np.float64))
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


# family: (maker(lib, leaf), the value for log_prob, what else to compare)
FAMILIES = {
    "continuous bernoulli of probs": (
        lambda L, P: L.distributions.ContinuousBernoulli(P([0.2, 0.4995, 0.8, 0.5])),
        [[0.3, 0.0, 1.0, 0.7], [0.9, 0.5, 0.2, 0.1]],
        ("entropy", "mean", "variance", "stddev", "cdf", "icdf", "probs", "logits", "param_shape"),
    ),
    "continuous bernoulli of logits": (
        lambda L, P: L.distributions.ContinuousBernoulli(logits=P([[0.3, -2.0], [0.001, 1.0]])),
        [[0.3, 0.0], [1.0, 0.7]],
        ("entropy", "mean", "variance", "stddev", "cdf", "icdf", "probs", "logits"),
    ),
    "continuous bernoulli of a number": (
        lambda L, P: L.distributions.ContinuousBernoulli(0.3),
        [0.25, 0.75],
        ("entropy", "mean", "variance", "cdf"),
    ),
    "logit relaxed bernoulli": (
        lambda L, P: L.distributions.relaxed_bernoulli.LogitRelaxedBernoulli(
            P(0.7), probs=P([0.2, 0.9])
        ),
        [[0.3, -4.0], [2.5, 0.0]],
        ("probs", "logits", "param_shape"),
    ),
    "relaxed bernoulli": (
        lambda L, P: L.distributions.RelaxedBernoulli(P([0.5, 2.0]), logits=P([0.3, -2.0])),
        [[0.3, 0.01], [0.999, 0.5]],
        ("probs", "logits", "temperature"),
    ),
    "exp relaxed categorical": (
        lambda L, P: L.distributions.relaxed_categorical.ExpRelaxedCategorical(
            P(0.8), logits=P([[0.1, 2.0, -1.0], [0.5, 0.5, 0.5]])
        ),
        _log_simplex([[0.2, 0.3, 0.5], [0.01, 0.9, 0.09]]),
        ("probs", "logits", "param_shape"),
    ),
    "relaxed one hot categorical": (
        lambda L, P: L.distributions.RelaxedOneHotCategorical(
            P([[1.5], [0.3]]), probs=P([0.2, 0.3, 0.5])
        ),
        [[0.2, 0.3, 0.5], [0.01, 0.9, 0.09]],
        ("probs", "logits", "temperature"),
    ),
    "one hot straight through": (
        lambda L, P: L.distributions.OneHotCategoricalStraightThrough(
            logits=P([[0.1, 2.0, -1.0], [0.5, 0.5, 0.5]])
        ),
        [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        ("entropy", "mean", "mode", "variance", "probs", "logits", "enumerate_support"),
    ),
    "mixture of normals": (
        lambda L, P: L.distributions.MixtureSameFamily(
            L.distributions.Categorical(logits=P([0.1, 2.0, -1.0])),
            L.distributions.Normal(P([0.5, -1.0, 2.0]), P([1.5, 0.3, 0.7])),
        ),
        [0.1, -0.9, 3.0],
        ("mean", "variance", "stddev", "cdf"),
    ),
    "batched mixture of vectors": (
        lambda L, P: L.distributions.MixtureSameFamily(
            L.distributions.Categorical(probs=P([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])),
            L.distributions.Independent(
                L.distributions.Normal(
                    P(np.arange(12.0).reshape(2, 3, 2) / 4 - 1),
                    P(np.linspace(0.5, 2.0, 12).reshape(2, 3, 2)),
                ),
                1,
            ),
        ),
        [[[0.1, -0.9], [1.0, 2.0]], [[0.0, 0.0], [-1.0, 0.5]]],
        ("mean", "variance", "stddev"),
    ),
    "one mixture for a batch of components": (
        lambda L, P: L.distributions.MixtureSameFamily(
            L.distributions.Categorical(logits=P([0.1, 2.0, -1.0])),
            L.distributions.Laplace(
                P([[0.5, -1.0, 2.0], [0.0, 1.0, 0.0]]), P([[1.5, 0.3, 0.7], [1.0, 2.0, 0.5]])
            ),
        ),
        [0.1, -0.9],
        ("mean", "variance", "cdf"),
    ),
    "low rank normal": (
        lambda L, P: L.distributions.LowRankMultivariateNormal(
            P([[0.5, -1.0, 0.0], [1.0, 2.0, -0.5]]),
            P([[1.0, 0.2], [0.3, -0.5], [0.0, 0.8]]),
            P([0.5, 1.5, 0.7]),
        ),
        [[0.1, 0.2, 0.3], [1.0, -2.0, 0.0]],
        ("entropy", "mean", "mode", "variance", "stddev", "matrices"),
    ),
    "low rank normal of a batched factor": (
        lambda L, P: L.distributions.LowRankMultivariateNormal(
            P([0.5, -1.0, 0.0]),
            P([[[1.0], [0.3], [0.0]], [[-0.4], [0.2], [1.1]]]),
            P([[0.5, 1.5, 0.7], [1.0, 0.2, 0.3]]),
        ),
        [[[0.1, 0.2, 0.3]], [[1.0, -2.0, 0.0]]],
        ("entropy", "mean", "variance", "matrices"),
    ),
    "von mises": (
        lambda L, P: L.distributions.VonMises(P([0.5, -1.0, 3.0]), P([0.5, 2.0, 10.0])),
        [[0.1, -0.9, 3.0], [7.0, 2.0, -3.0]],
        ("mean", "mode", "variance", "stddev"),
    ),
    "von mises of numbers": (
        lambda L, P: L.distributions.VonMises(1.0, 4.0),
        [0.3, -2.0],
        ("mean", "variance"),
    ),
}

# Families of Python numbers hold float32 parameters (the default dtype): PyTorch's float32
# log1p and its binary_cross_entropy_with_logits of float32 logits against a float64 value
# round differently from chainrule's (a few float32 ulps), so these compare at float32's
# tolerance.
FLOAT32 = {"continuous bernoulli of a number", "von mises of numbers"}


def _tolerance(family):
    return dict(rtol=1e-6, atol=1e-7) if family in FLOAT32 else dict(rtol=1e-12, atol=1e-14)


_ICDF_AT = [[[0.1]], [[0.5]], [[0.93]]]


def _outputs(lib, d, value, extras):
    out = {
        "repr": repr(d),
        "shapes": (tuple(d.batch_shape), tuple(d.event_shape)),
        "support": (repr(d.support), d.support.event_dim, d.support.is_discrete),
        "has": (d.has_rsample, d.has_enumerate_support),
        "log_prob": d.log_prob(value),
    }
    for name in extras:
        if name == "entropy":
            out[name] = d.entropy()
        elif name == "cdf":
            out[name] = d.cdf(value)
        elif name == "icdf":
            out[name] = d.icdf(_value(lib, _ICDF_AT))
        elif name == "enumerate_support":
            out[name] = (d.enumerate_support(), d.enumerate_support(expand=False))
        elif name == "matrices":
            out[name] = (d.covariance_matrix, d.precision_matrix, d.scale_tril)
        else:
            out[name] = getattr(d, name)
    return out


def _total(out):
    tensors = [v for v in out.values() if isinstance(v, (cr.Tensor, torch.Tensor))]
    tensors += list(out.get("matrices", ()))
    return sum(t.sum() for t in tensors if t.is_floating_point() and t.requires_grad)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_densities_moments_and_gradients_as_torch(family):
    make, values, extras = FAMILIES[family]

    def run(lib):
        P = _Leaves(lib)
        d = make(lib, P)
        out = _outputs(lib, d, _value(lib, values), extras)
        grads = lib.autograd.grad(_total(out), P.made) if P.made else ()
        return out, grads

    compare(run, **_tolerance(family))


EXPANDED = {  # family: the new batch shape
    "continuous bernoulli of probs": (2, 4),
    "continuous bernoulli of a number": (2,),
    "logit relaxed bernoulli": (2, 2),
    "relaxed bernoulli": (2, 2),
    "exp relaxed categorical": (3, 2),
    "relaxed one hot categorical": (2, 2),
    "one hot straight through": (3, 2),
    "mixture of normals": (3,),
    "batched mixture of vectors": (2, 2),
    "one mixture for a batch of components": (4, 2),
    "low rank normal": (3, 2),
    "low rank normal of a batched factor": (2, 2),
    "von mises": (2, 3),
    "von mises of numbers": (2,),
}


@pytest.mark.parametrize("family", list(EXPANDED))
def test_expand_as_torch(family):
    # the expanded distribution's shapes, densities, moments and their gradients back to
    # the original parameters, as PyTorch's
    make, values, extras = FAMILIES[family]

    def run(lib):
        P = _Leaves(lib)
        d = make(lib, P).expand(EXPANDED[family])
        out = _outputs(lib, d, _value(lib, values), extras)
        out["type"] = type(d).__name__
        out["sample shape"] = tuple(d.sample((2,)).shape)
        grads = lib.autograd.grad(_total(out), P.made) if P.made else ()
        return out, grads

    compare(run, **_tolerance(family))


def _cb(L, P):
    return L.distributions.ContinuousBernoulli(P([0.2, 0.4995, 0.8]))


KL = {
    "continuous bernoulli": lambda L, P: (
        _cb(L, P),
        L.distributions.ContinuousBernoulli(logits=P([1.0, 0.0005, -0.3])),
    ),
    "continuous bernoulli and exponential": lambda L, P: (
        _cb(L, P),
        L.distributions.Exponential(P([0.5, 2.0, 1.0])),
    ),
    "continuous bernoulli and normal": lambda L, P: (
        _cb(L, P),
        L.distributions.Normal(P([0.5, -1.0, 0.0]), P([1.5, 0.3, 1.0])),
    ),
    "continuous bernoulli and uniform": lambda L, P: (
        _cb(L, P),
        L.distributions.Uniform(P([-1.0, 0.0, -0.5]), P([2.0, 2.0, 1.0])),
    ),
    "uniform and continuous bernoulli": lambda L, P: (
        L.distributions.Uniform(P([0.2, 0.0, 0.5]), P([0.7, 0.5, 1.0])),
        _cb(L, P),
    ),
    "exponential and continuous bernoulli": lambda L, P: (
        L.distributions.Exponential(P([0.5, 2.0, 1.0])),
        _cb(L, P),
    ),
    "normal and continuous bernoulli": lambda L, P: (
        L.distributions.Normal(P([0.5, -1.0, 0.0]), 1.0),
        _cb(L, P),
    ),
    "laplace and continuous bernoulli": lambda L, P: (
        L.distributions.Laplace(P([0.5, -1.0, 0.0]), 1.0),
        _cb(L, P),
    ),
    "gumbel and continuous bernoulli": lambda L, P: (
        L.distributions.Gumbel(P([0.5, -1.0, 0.0]), 1.0),
        _cb(L, P),
    ),
    "pareto and continuous bernoulli": lambda L, P: (
        L.distributions.Pareto(P([0.5, 1.0, 0.1]), 2.0),
        _cb(L, P),
    ),
    "continuous bernoulli and pareto": lambda L, P: (
        _cb(L, P),
        L.distributions.Pareto(P([0.5, 1.0, 0.1]), 2.0),
    ),
    "low rank normals": lambda L, P: (
        L.distributions.LowRankMultivariateNormal(
            P([[0.5, -1.0, 0.0], [1.0, 2.0, -0.5]]),
            P([[1.0, 0.2], [0.3, -0.5], [0.0, 0.8]]),
            P([0.5, 1.5, 0.7]),
        ),
        L.distributions.LowRankMultivariateNormal(
            P([0.1, 0.0, 0.3]), P([[[0.4], [0.3], [-0.2]]]), P([1.0, 0.2, 0.3])
        ),
    ),
    "normal and low rank normal": lambda L, P: (
        L.distributions.MultivariateNormal(
            P([[0.5, -1.0, 0.0], [1.0, 2.0, -0.5]]),
            scale_tril=P([[1.5, 0.0, 0.0], [0.4, 0.7, 0.0], [-0.2, 0.1, 1.1]]),
        ),
        L.distributions.LowRankMultivariateNormal(
            P([0.1, 0.0, 0.3]), P([[0.4, 1.0], [0.3, 0.0], [-0.2, 0.5]]), P([1.0, 0.2, 0.3])
        ),
    ),
    "low rank normal and normal": lambda L, P: (
        L.distributions.LowRankMultivariateNormal(
            P([0.1, 0.0, 0.3]),
            P([[[0.4], [0.3], [-0.2]], [[1.0], [0.0], [0.5]]]),
            P([1.0, 0.2, 0.3]),
        ),
        L.distributions.MultivariateNormal(
            P([0.5, -1.0, 0.0]), P([[2.0, 0.3, 0.0], [0.3, 1.0, 0.2], [0.0, 0.2, 0.5]])
        ),
    ),
}


@pytest.mark.parametrize("name", list(KL))
def test_kl_divergence_as_torch(name):
    def run(lib):
        P = _Leaves(lib)
        p, q = KL[name](lib, P)
        kl = lib.distributions.kl_divergence(p, q)
        if not kl.requires_grad:  # (an infinite KL is a constant)
            return kl
        return kl, lib.autograd.grad(kl.sum(), P.made, allow_unused=True)

    compare(run, rtol=1e-12, atol=1e-14)


def _D(L):
    return L.distributions


ERRORS = {
    "neither probs nor logits": lambda L: _D(L).ContinuousBernoulli(),
    "probs above 1, checked before the clamp": lambda L: _D(L).ContinuousBernoulli(
        L.tensor([0.5, 1.5]), validate_args=True
    ),
    "nan logits": lambda L: _D(L).ContinuousBernoulli(logits=L.tensor([float("nan")])),
    "a value above 1": lambda L: (
        _D(L).ContinuousBernoulli(L.tensor([0.3])).log_prob(L.tensor([1.5]))
    ),
    "both probs and logits of a relaxed bernoulli": lambda L: _D(L).RelaxedBernoulli(
        L.tensor(0.5), probs=L.tensor([0.3]), logits=L.tensor([0.3])
    ),
    "relaxed bernoulli probs above 1": lambda L: _D(L).RelaxedBernoulli(
        L.tensor(0.5), probs=L.tensor([1.5])
    ),
    "a relaxed bernoulli value of 1.5": lambda L: (
        _D(L).RelaxedBernoulli(L.tensor(0.5), probs=L.tensor([0.3])).log_prob(L.tensor([1.5]))
    ),
    "relaxed categorical probs off the simplex": lambda L: _D(L).RelaxedOneHotCategorical(
        L.tensor(0.5), probs=L.tensor([-0.3, 1.3])
    ),
    "a relaxed categorical value off the simplex": lambda L: (
        _D(L)
        .RelaxedOneHotCategorical(L.tensor(0.5), probs=L.tensor([0.3, 0.7]))
        .log_prob(L.tensor([0.5, 0.6]))
    ),
    "a mixture of a normal": lambda L: _D(L).MixtureSameFamily(
        _D(L).Normal(0.0, 1.0), _D(L).Normal(L.zeros(2), 1.0)
    ),
    "components that are no distribution": lambda L: _D(L).MixtureSameFamily(
        _D(L).Categorical(logits=L.zeros(2)), L.zeros(2)
    ),
    "mixture and component batches that do not broadcast": lambda L: _D(L).MixtureSameFamily(
        _D(L).Categorical(logits=L.zeros(3, 2)), _D(L).Normal(L.zeros(4, 2), 1.0)
    ),
    "a component count that differs": lambda L: _D(L).MixtureSameFamily(
        _D(L).Categorical(logits=L.zeros(3)), _D(L).Normal(L.zeros(2), 1.0)
    ),
    "a mixture value of another event shape": lambda L: (
        _D(L)
        .MixtureSameFamily(
            _D(L).Categorical(logits=L.zeros(2)),
            _D(L).Independent(_D(L).Normal(L.zeros(2, 3), 1.0), 1),
        )
        .log_prob(L.zeros(2))
    ),
    "a mixture value outside the components' support": lambda L: (
        _D(L)
        .MixtureSameFamily(_D(L).Categorical(logits=L.zeros(2)), _D(L).Exponential(L.ones(2)))
        .log_prob(L.tensor([-1.0, 1.0]))
    ),
    "a scalar loc": lambda L: _D(L).LowRankMultivariateNormal(
        L.tensor(0.0), L.ones(2, 1), L.ones(2)
    ),
    "a vector cov_factor": lambda L: _D(L).LowRankMultivariateNormal(
        L.zeros(2), L.ones(2), L.ones(2)
    ),
    "a cov_factor of other rows": lambda L: _D(L).LowRankMultivariateNormal(
        L.zeros(2), L.ones(3, 1), L.ones(2)
    ),
    "a cov_diag of another length": lambda L: _D(L).LowRankMultivariateNormal(
        L.zeros(2), L.ones(2, 1), L.ones(3)
    ),
    "incompatible low rank batches": lambda L: _D(L).LowRankMultivariateNormal(
        L.zeros(3, 2), L.ones(4, 2, 1), L.ones(2)
    ),
    "a negative cov_diag": lambda L: _D(L).LowRankMultivariateNormal(
        L.zeros(2), L.zeros(2, 1), L.tensor([1.0, -1.0])
    ),
    "a low rank value of another event shape": lambda L: (
        _D(L).LowRankMultivariateNormal(L.zeros(2), L.ones(2, 1), L.ones(2)).log_prob(L.zeros(3))
    ),
    "low rank normals of other event shapes": lambda L: _D(L).kl_divergence(
        _D(L).LowRankMultivariateNormal(L.zeros(2), L.ones(2, 1), L.ones(2)),
        _D(L).LowRankMultivariateNormal(L.zeros(3), L.ones(3, 1), L.ones(3)),
    ),
    "a normal and a low rank normal of other event shapes": lambda L: _D(L).kl_divergence(
        _D(L).MultivariateNormal(L.zeros(2), L.eye(2)),
        _D(L).LowRankMultivariateNormal(L.zeros(3), L.ones(3, 1), L.ones(3)),
    ),
    "a nonpositive concentration": lambda L: _D(L).VonMises(L.zeros(2), L.tensor([1.0, 0.0])),
    "a nan angle": lambda L: _D(L).VonMises(0.0, 1.0).log_prob(L.tensor([float("nan")])),
    "an unregistered continuous bernoulli pair": lambda L: _D(L).kl_divergence(
        _D(L).ContinuousBernoulli(0.3), _D(L).Laplace(0.0, 1.0)
    ),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name):
    want, got = error_of(ERRORS[name], torch), error_of(ERRORS[name], cr)
    assert (type(got), str(got)) == (type(want), str(want))


def test_continuous_bernoulli_clamps_probs_unless_validate_args_is_given():
    # PyTorch checks probs against [0, 1] only when validate_args is passed; by default a
    # probability outside is clamped to [eps, 1 - eps] before the check, which then passes
    def run(lib):
        d = lib.distributions.ContinuousBernoulli(lib.tensor([1.5, -0.5], dtype=lib.float64))
        return d.probs, d.mean

    compare(run, rtol=1e-12, atol=1e-14)


def _assert_moments(samples, mean, variance):
    """The samples' mean and variance (along dim 0) within four standard errors of the
    distribution's, the standard errors estimated from the samples."""
    x = np.asarray(samples, dtype=np.float64)
    n = x.shape[0]
    centred = x - x.mean(0)
    se_mean = centred.std(0) / math.sqrt(n)
    se_var = (centred**2).std(0) / math.sqrt(n)
    assert (np.abs(x.mean(0) - mean) < 4 * se_mean).all(), (x.mean(0), mean)
    assert (np.abs(x.var(0) - variance) < 4 * se_var).all(), (x.var(0), variance)


def test_continuous_bernoulli_samples_have_the_moments():
    cr.manual_seed(0)
    d = cr.distributions.ContinuousBernoulli(cr.tensor([0.1, 0.4995, 0.9]))
    s = d.sample((20000,))
    assert tuple(s.shape) == (20000, 3) and s.dtype == cr.float32 and not s.requires_grad
    assert ((s >= 0) & (s <= 1)).all()
    _assert_moments(s.numpy(), d.mean.numpy(), d.variance.numpy())


def test_relaxed_bernoulli_samples_exceed_one_half_with_probability_p():
    # σ((logit u + η)/τ) > 1/2 exactly when u > 1 - p, whatever τ
    cr.manual_seed(1)
    probs = np.array([0.2, 0.7])
    d = cr.distributions.RelaxedBernoulli(cr.tensor([0.5, 3.0]), probs=cr.tensor(probs))
    s = d.sample((20000,))
    assert tuple(s.shape) == (20000, 2) and s.dtype == cr.float64 and not s.requires_grad
    assert ((s > 0) & (s < 1)).all()
    above = (s.numpy() > 0.5).mean(0)
    assert (np.abs(above - probs) < 4 * np.sqrt(probs * (1 - probs) / 20000)).all()


def test_relaxed_categorical_samples_lie_on_the_simplex_and_their_argmax_is_categorical():
    # the argmax of (η + g)/τ is the Gumbel-max draw: category k with probability p_k
    cr.manual_seed(2)
    probs = np.array([[0.2, 0.3, 0.5], [0.7, 0.2, 0.1]])
    d = cr.distributions.RelaxedOneHotCategorical(
        cr.tensor(0.7), probs=cr.tensor(probs, requires_grad=True)
    )
    s = d.rsample((20000,))
    assert tuple(s.shape) == (20000, 2, 3) and s.dtype == cr.float64 and s.requires_grad
    x = s.detach().numpy()
    assert (x >= 0).all() and np.allclose(x.sum(-1), 1.0)
    freq = np.stack([np.bincount(x[:, i].argmax(-1), minlength=3) / 20000 for i in range(2)])
    assert (np.abs(freq - probs) < 4 * np.sqrt(probs * (1 - probs) / 20000)).all()
    log_s = cr.distributions.relaxed_categorical.ExpRelaxedCategorical(
        cr.tensor(0.7), probs=cr.tensor(probs)
    ).sample((5,))
    np.testing.assert_allclose(np.log(np.exp(log_s.numpy()).sum(-1)), 0.0, atol=1e-12)


def test_mixture_samples_have_the_moments():
    cr.manual_seed(3)
    D = cr.distributions
    d = D.MixtureSameFamily(
        D.Categorical(probs=cr.tensor([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])),
        D.Independent(
            D.Normal(
                cr.tensor(np.arange(12.0).reshape(2, 3, 2) - 5),
                cr.tensor(np.linspace(0.5, 2.0, 12).reshape(2, 3, 2)),
            ),
            1,
        ),
    )
    s = d.sample((20000,))
    assert tuple(s.shape) == (20000, 2, 2) and s.dtype == cr.float64 and not s.requires_grad
    _assert_moments(s.numpy(), d.mean.numpy(), d.variance.numpy())


def test_low_rank_samples_have_the_covariance():
    cr.manual_seed(4)
    d = cr.distributions.LowRankMultivariateNormal(
        cr.tensor([0.5, -1.0, 0.0], dtype=cr.float64),
        cr.tensor(np.array([[1.0, 0.2], [0.3, -0.5], [0.0, 0.8]])),
        cr.tensor([0.5, 1.5, 0.7], dtype=cr.float64),
    )
    s = d.rsample((40000,)).numpy()
    assert s.shape == (40000, 3)
    _assert_moments(s, d.mean.numpy(), d.variance.numpy())
    np.testing.assert_allclose(np.cov(s.T), d.covariance_matrix.numpy(), atol=0.06)


def test_von_mises_samples_wrap_into_minus_pi_pi_with_the_circular_moments():
    # E cos(x - μ) = I₁(κ)/I₀(κ) = 1 - circular variance, E sin(x - μ) = 0
    cr.manual_seed(5)
    loc = np.array([0.5, 3.0, -2.0])
    d = cr.distributions.VonMises(cr.tensor(loc, dtype=cr.float32), cr.tensor([0.5, 4.0, 1e-6]))
    s = d.sample((20000,))
    assert tuple(s.shape) == (20000, 3) and s.dtype == cr.float32 and not s.requires_grad
    x = s.numpy().astype(np.float64)
    assert ((x >= -math.pi) & (x <= math.pi)).all()
    c, sn = np.cos(x - loc), np.sin(x - loc)
    bound = 4 * np.sqrt(np.maximum(c.var(0), sn.var(0)) / 20000)
    assert (np.abs(c.mean(0) - (1 - d.variance.numpy())) < bound).all()
    assert (np.abs(sn.mean(0)) < bound).all()


def _fd_gradient(make_sample, params, h=1e-6):
    """d Σ sample / d params by central differences, each sample drawn from one seed."""
    grads = []
    for i, p in enumerate(params):
        g = np.zeros_like(p)
        for j in np.ndindex(p.shape):
            sums = []
            for step in (h, -h):
                moved = [q.copy() for q in params]
                moved[i][j] += step
                cr.manual_seed(7)
                sums.append(make_sample([cr.tensor(q) for q in moved]).sum().item())
            g[j] = (sums[0] - sums[1]) / (2 * h)
        grads.append(g)
    return grads


RSAMPLES = {
    "continuous bernoulli": (
        lambda D, p: D.ContinuousBernoulli(p[0]).rsample((4,)),
        [[0.2, 0.4995, 0.8]],
    ),
    "logit relaxed bernoulli": (
        lambda D, p: D.relaxed_bernoulli.LogitRelaxedBernoulli(p[0], logits=p[1]).rsample((4,)),
        [0.7, [0.3, -2.0]],
    ),
    "relaxed bernoulli": (
        lambda D, p: D.RelaxedBernoulli(p[0], probs=p[1]).rsample((4,)),
        [[0.5, 2.0], [0.2, 0.9]],
    ),
    "exp relaxed categorical": (
        lambda D, p: (
            D.relaxed_categorical.ExpRelaxedCategorical(p[0], logits=p[1]).rsample((4,))
            * cr.tensor([1.0, 2.0, 3.0], dtype=cr.float64)
        ),
        [0.8, [0.1, 2.0, -1.0]],
    ),
    "relaxed one hot categorical": (
        lambda D, p: (
            D.RelaxedOneHotCategorical(p[0], probs=p[1]).rsample((4,))
            * cr.tensor([1.0, 2.0, 3.0], dtype=cr.float64)
        ),
        [1.5, [0.2, 0.3, 0.5]],
    ),
    "low rank normal": (
        lambda D, p: D.LowRankMultivariateNormal(p[0], p[1], p[2]).rsample((4,)).pow(2),
        [[0.5, -1.0, 0.0], [[1.0, 0.2], [0.3, -0.5], [0.0, 0.8]], [0.5, 1.5, 0.7]],
    ),
}


@pytest.mark.parametrize("name", list(RSAMPLES))
def test_rsample_gradients_match_finite_differences(name):
    make, values = RSAMPLES[name]
    params = [np.asarray(v, dtype=np.float64) for v in values]
    leaves = [cr.tensor(p, requires_grad=True) for p in params]
    cr.manual_seed(7)
    x = make(cr.distributions, leaves)
    assert x.requires_grad and x.dtype == cr.float64
    grads = cr.autograd.grad(x.sum(), leaves)
    want = _fd_gradient(lambda p: make(cr.distributions, p), params)
    for g, w in zip(grads, want):
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-5, atol=1e-6)


def test_straight_through_rsample_is_a_one_hot_draw_with_the_gradient_of_probs():
    # value: a one-hot draw; d(w · rsample)/dη = d(w · softmax(η))/dη
    cr.manual_seed(6)
    w = np.array([[1.0, -2.0, 0.5], [0.3, 0.0, 4.0]])
    logits = np.array([[0.1, 2.0, -1.0], [0.5, 0.5, 0.5]])
    eta = cr.tensor(logits, requires_grad=True)
    d = cr.distributions.OneHotCategoricalStraightThrough(logits=eta)
    x = d.rsample()
    assert tuple(x.shape) == (2, 3) and x.requires_grad and d.has_rsample
    np.testing.assert_array_equal(np.sort(x.detach().numpy(), -1), [[0, 0, 1], [0, 0, 1]])
    (got,) = cr.autograd.grad((x * cr.tensor(w)).sum(), [eta])
    t_eta = torch.tensor(logits, requires_grad=True)
    (want,) = torch.autograd.grad((t_eta.softmax(-1) * torch.tensor(w)).sum(), [t_eta])
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-14)


def test_von_mises_and_mixtures_have_no_rsample():
    D = cr.distributions
    assert not D.VonMises(0.0, 1.0).has_rsample
    mix = D.MixtureSameFamily(D.Categorical(logits=cr.zeros(2)), D.Normal(cr.zeros(2), 1.0))
    assert not mix.has_rsample
    with pytest.raises(NotImplementedError):
        mix.rsample()
