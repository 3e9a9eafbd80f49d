"""``chainrule.distributions`` against ``torch.distributions``: log densities, entropies,
CDFs, moments and KL divergences with their gradients (float64), reprs, shapes and the
errors of the parameter and value checks; samples by their shapes and moments (the random
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


def _families(lib):
    D = lib.distributions
    return {
        "normal": lambda: D.Normal(_t(lib, [0.5, -1.0]), _t(lib, [1.5, 0.3])),
        "normal of numbers": lambda: D.Normal(0.0, 1.0),
        "uniform": lambda: D.Uniform(_t(lib, [0.0, 1.0]), _t(lib, [2.0, 4.0])),
        "bernoulli of logits": lambda: D.Bernoulli(logits=_t(lib, [0.3, -2.0])),
        "bernoulli of probs": lambda: D.Bernoulli(probs=_t(lib, [0.2, 0.9])),
        "categorical of logits": lambda: D.Categorical(
            logits=_t(lib, [[0.1, 2.0, -1.0], [0.5, 0.5, 0.5]])
        ),
        "categorical of probs": lambda: D.Categorical(probs=_t(lib, [0.2, 0.3, 0.5])),
        "exponential": lambda: D.Exponential(_t(lib, [0.5, 2.0])),
        "laplace": lambda: D.Laplace(_t(lib, [0.5, -1.0]), _t(lib, [1.5, 0.3])),
        "mvn of a covariance": lambda: D.MultivariateNormal(
            _t(lib, [[0.5, -1.0], [0.0, 2.0]]), _t(lib, [[2.0, 0.3], [0.3, 1.0]])
        ),
        "mvn of a precision": lambda: D.MultivariateNormal(
            _t(lib, [0.5, -1.0]), precision_matrix=_t(lib, [[2.0, 0.3], [0.3, 1.0]])
        ),
        "mvn of a scale_tril": lambda: D.MultivariateNormal(
            _t(lib, [0.5, -1.0]), scale_tril=_t(lib, [[[1.5, 0.0], [0.4, 0.7]]] * 2)
        ),
        "one hot categorical": lambda: D.OneHotCategorical(
            logits=_t(lib, [[0.1, 2.0, -1.0], [0.5, 0.5, 0.5]])
        ),
        "independent normal": lambda: D.Independent(
            D.Normal(_t(lib, [[0.5, -1.0], [0.0, 2.0]]), _t(lib, [[1.5, 0.3], [1.0, 0.7]])), 1
        ),
    }


VALUES = {
    "normal": [[0.1, 0.2], [1.0, -2.0]],
    "normal of numbers": [0.3, -1.2],
    "uniform": [1.0, 3.5],
    "bernoulli of logits": [1.0, 0.0],
    "bernoulli of probs": [[0.0, 1.0], [1.0, 1.0]],
    "categorical of logits": [1, 2],
    "categorical of probs": [2, 0, 1],
    "exponential": [0.3, 1.7],
    "laplace": [[0.1, 0.2], [1.0, -2.0]],
    "independent normal": [[0.1, 0.2], [1.0, -2.0]],
    "mvn of a covariance": [[[0.1, 0.2], [1.0, -2.0]], [[0.3, 0.3], [0.0, 0.0]]],
    "mvn of a precision": [[0.1, 0.2], [1.0, -2.0]],
    "mvn of a scale_tril": [[0.1, 0.2], [1.0, -2.0]],
    "one hot categorical": [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
}


@pytest.mark.parametrize("family", list(VALUES))
def test_densities_moments_and_gradients_as_torch(family):
    def run(lib):
        d = _families(lib)[family]()
        discrete = family.startswith("categorical")
        value = lib.tensor(VALUES[family]) if discrete else _t(lib, VALUES[family], False)
        out = {
            "repr": repr(d),
            "shapes": (tuple(d.batch_shape), tuple(d.event_shape)),
            "log_prob": d.log_prob(value),
            "entropy": d.entropy(),
        }
        if not discrete:
            out.update(mean=d.mean, variance=d.variance, stddev=d.stddev)
        if family.startswith(("normal", "uniform", "exponential", "laplace")):
            out["cdf"] = d.cdf(value)
            out["icdf"] = d.icdf(_t(lib, [0.1, 0.9], False))
        if family.startswith(("bernoulli", "one hot")) or discrete:
            out["probs"], out["logits"] = d.probs, d.logits
        if family.startswith("mvn"):
            out["matrices"] = (d.covariance_matrix, d.precision_matrix, d.scale_tril)
        leaves = [v for v in vars(d).values() if isinstance(v, lib.Tensor) and v.is_leaf]
        leaves = list({id(v): v for v in leaves if v.requires_grad}.values())
        total = sum(
            v.sum() for k, v in out.items() if isinstance(v, lib.Tensor) and v.is_floating_point()
        )
        grads = lib.autograd.grad(total, leaves) if leaves else ()
        return out, grads

    compare(run, rtol=1e-12, atol=1e-14)


KL = {
    "normal": lambda D, L: D.kl_divergence(
        D.Normal(_t(L, [0.5, -1.0]), _t(L, [1.5, 0.3])), D.Normal(0.0, 1.0)
    ),
    "categorical": lambda D, L: D.kl_divergence(
        D.Categorical(logits=_t(L, [[0.1, 2.0, -1.0], [0.0, 0.0, 0.0]])),
        D.Categorical(probs=_t(L, [0.2, 0.3, 0.5])),
    ),
    "categorical with a zero": lambda D, L: D.kl_divergence(
        D.Categorical(probs=_t(L, [0.0, 0.5, 0.5])), D.Categorical(probs=_t(L, [0.5, 0.0, 0.5]))
    ),
    "bernoulli": lambda D, L: D.kl_divergence(
        D.Bernoulli(logits=_t(L, [0.3, -2.0])), D.Bernoulli(probs=_t(L, [0.2, 0.9]))
    ),
    "uniform": lambda D, L: D.kl_divergence(D.Uniform(0.0, 1.0), D.Uniform(-1.0, 2.0)),
    "uniform outside": lambda D, L: D.kl_divergence(D.Uniform(0.0, 3.0), D.Uniform(-1.0, 2.0)),
    "normal and uniform": lambda D, L: D.kl_divergence(D.Normal(0.0, 1.0), D.Uniform(-1.0, 2.0)),
    "exponential": lambda D, L: D.kl_divergence(
        D.Exponential(_t(L, [0.5, 2.0])), D.Exponential(_t(L, [1.0, 1.5]))
    ),
    "laplace": lambda D, L: D.kl_divergence(
        D.Laplace(_t(L, [0.5, -1.0]), _t(L, [1.5, 0.3])), D.Laplace(0.0, 1.0)
    ),
    "multivariate normal": lambda D, L: D.kl_divergence(
        D.MultivariateNormal(_t(L, [[0.5, -1.0], [0.0, 2.0]]), _t(L, [[2.0, 0.3], [0.3, 1.0]])),
        D.MultivariateNormal(
            L.zeros(2, dtype=L.float64), scale_tril=_t(L, [[1.0, 0.0], [0.5, 2.0]])
        ),
    ),
    "independent": lambda D, L: D.kl_divergence(
        D.Independent(D.Normal(_t(L, [[0.5, -1.0]]), _t(L, [[1.5, 0.3]])), 1),
        D.Independent(D.Normal(L.zeros(1, 2, dtype=L.float64), 1.0), 1),
    ),
}


@pytest.mark.parametrize("name", list(KL))
def test_kl_divergence_as_torch(name):
    compare(lambda L: KL[name](L.distributions, L), rtol=1e-12)


ERRORS = {
    "a negative scale": lambda L: L.distributions.Normal(L.zeros(2), L.tensor([1.0, -1.0])),
    "low above high": lambda L: L.distributions.Uniform(1.0, 0.0),
    "probs above 1": lambda L: L.distributions.Bernoulli(probs=L.tensor([1.5])),
    "neither probs nor logits": lambda L: L.distributions.Bernoulli(),
    "both probs and logits": lambda L: L.distributions.Categorical(
        probs=L.ones(2) / 2, logits=L.zeros(2)
    ),
    "a value outside the support": lambda L: L.distributions.Uniform(0.0, 1.0).log_prob(
        L.tensor([2.0])
    ),
    "a category out of range": lambda L: L.distributions.Categorical(logits=L.zeros(2, 3)).log_prob(
        L.tensor([5, 0])
    ),
    "a value not broadcastable": lambda L: L.distributions.Normal(L.zeros(3), 1.0).log_prob(
        L.zeros(2)
    ),
    "a number as the value": lambda L: L.distributions.Normal(0.0, 1.0).log_prob(0.5),
    "reinterpreting too many dims": lambda L: L.distributions.Independent(
        L.distributions.Normal(L.zeros(2), 1.0), 2
    ),
    "a negative value for an exponential": lambda L: L.distributions.Exponential(2.0).log_prob(
        L.tensor([-1.0])
    ),
    "a covariance not positive definite": lambda L: L.distributions.MultivariateNormal(
        L.zeros(2), L.tensor([[1.0, 2.0], [2.0, 1.0]])
    ),
    "no covariance": lambda L: L.distributions.MultivariateNormal(L.zeros(2)),
    "a scale_tril not lower": lambda L: L.distributions.MultivariateNormal(
        L.zeros(2), scale_tril=L.tensor([[1.0, 1.0], [0.0, 1.0]])
    ),
    "a value of another event shape": lambda L: L.distributions.MultivariateNormal(
        L.zeros(2), L.eye(2)
    ).log_prob(L.zeros(3)),
    "not one hot": lambda L: L.distributions.OneHotCategorical(logits=L.zeros(3)).log_prob(
        L.tensor([1.0, 1.0, 0.0])
    ),
    "an unregistered pair": lambda L: L.distributions.kl_divergence(
        L.distributions.Categorical(logits=L.zeros(3)), L.distributions.Normal(0.0, 1.0)
    ),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name):
    want, got = error_of(ERRORS[name], torch), error_of(ERRORS[name], cr)
    assert (type(got), str(got)) == (type(want), str(want))


def test_validation_can_be_turned_off():
    d = cr.distributions.Normal(0.0, -1.0, validate_args=False)
    assert math.isnan(d.log_prob(cr.tensor(0.5)).item())
    cr.distributions.Distribution.set_default_validate_args(False)
    try:
        cr.distributions.Uniform(1.0, 0.0)
    finally:
        cr.distributions.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        cr.distributions.Uniform(1.0, 0.0)


MOMENTS = {
    "normal": (lambda D: D.Normal(cr.tensor([0.5, -1.0]), cr.tensor([1.5, 0.3])), [0.5, -1.0]),
    "uniform": (lambda D: D.Uniform(cr.tensor([0.0, 1.0]), cr.tensor([2.0, 4.0])), [1.0, 2.5]),
    "bernoulli": (lambda D: D.Bernoulli(probs=cr.tensor([0.2, 0.9])), [0.2, 0.9]),
    "exponential": (lambda D: D.Exponential(cr.tensor([0.5, 2.0])), [2.0, 0.5]),
    "laplace": (lambda D: D.Laplace(cr.tensor([0.5, -1.0]), cr.tensor([1.5, 0.3])), [0.5, -1.0]),
    "independent": (
        lambda D: D.Independent(D.Normal(cr.tensor([0.5, -1.0]), cr.tensor([1.5, 0.3])), 1),
        [0.5, -1.0],
    ),
}


@pytest.mark.parametrize("name", list(MOMENTS))
def test_samples_have_the_shapes_and_means(name):
    make, mean = MOMENTS[name]
    cr.manual_seed(0)
    d = make(cr.distributions)
    s = d.sample((20000,))
    assert tuple(s.shape) == (20000, 2) and s.dtype == cr.float32 and not s.requires_grad
    bound = 4 * d.stddev.numpy() / math.sqrt(20000)  # (four standard errors of the mean)
    assert (np.abs(s.numpy().mean(0) - mean) < bound).all()


def test_categorical_samples_follow_the_probabilities():
    cr.manual_seed(1)
    d = cr.distributions.Categorical(probs=cr.tensor([[0.2, 0.3, 0.5], [0.7, 0.2, 0.1]]))
    s = d.sample((20000,))
    assert tuple(s.shape) == (20000, 2) and s.dtype == cr.int64
    freq = np.stack([np.bincount(s.numpy()[:, i], minlength=3) / 20000 for i in range(2)])
    np.testing.assert_allclose(freq, [[0.2, 0.3, 0.5], [0.7, 0.2, 0.1]], atol=0.02)


def test_rsample_is_differentiable_in_the_parameters():
    # d/dμ of a reparameterized sample is 1, d/dσ the standard normal draw itself
    cr.manual_seed(2)
    loc = cr.tensor([0.5, -1.0], requires_grad=True)
    scale = cr.tensor([1.5, 0.3], requires_grad=True)
    x = cr.distributions.Normal(loc, scale).rsample((3,))
    assert tuple(x.shape) == (3, 2) and x.requires_grad
    x.sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), [3.0, 3.0])
    eps = (x.detach() - loc.detach()) / scale.detach()
    np.testing.assert_allclose(scale.grad.numpy(), eps.numpy().sum(0), rtol=1e-5)
    u = cr.distributions.Uniform(loc, loc + scale).rsample()
    assert u.requires_grad


def test_enumerate_support_as_torch():
    def run(lib):
        D = lib.distributions
        return (
            D.Categorical(logits=lib.zeros(2, 3)).enumerate_support(),
            D.Bernoulli(probs=lib.tensor([0.3, 0.6])).enumerate_support(expand=False),
        )

    compare(run)


def test_multivariate_samples_have_the_covariance():
    cr.manual_seed(4)
    cov = np.array([[2.0, 0.6], [0.6, 1.0]])
    d = cr.distributions.MultivariateNormal(
        cr.tensor([0.5, -1.0], dtype=cr.float64), cr.tensor(cov)
    )
    s = d.rsample((40000,)).numpy().astype(np.float64)
    assert s.shape == (40000, 2)
    np.testing.assert_allclose(s.mean(0), [0.5, -1.0], atol=0.04)
    np.testing.assert_allclose(np.cov(s.T), cov, atol=0.06)


def test_one_hot_samples_are_one_hot():
    cr.manual_seed(5)
    d = cr.distributions.OneHotCategorical(probs=cr.tensor([[0.2, 0.3, 0.5], [0.7, 0.2, 0.1]]))
    s = d.sample((20000,)).numpy()
    assert s.shape == (20000, 2, 3) and set(np.unique(s)) == {0.0, 1.0}
    assert (s.sum(-1) == 1).all()
    np.testing.assert_allclose(s.mean(0), [[0.2, 0.3, 0.5], [0.7, 0.2, 0.1]], atol=0.02)


EXPANDED = {  # family: the new batch shape
    "normal": (2, 2),
    "normal of numbers": (2,),
    "uniform": (2, 2),
    "bernoulli of logits": (3, 2),
    "categorical of logits": (5, 2),
    "categorical of probs": (3,),
    "exponential": (1, 2),
    "laplace": (2, 2),
    "mvn of a covariance": (2, 2),
    "mvn of a precision": (2,),
    "mvn of a scale_tril": (2, 2),
    "one hot categorical": (3, 2),
    "independent normal": (3, 2),
}


@pytest.mark.parametrize("family", list(EXPANDED))
def test_expand_as_torch(family):
    # the expanded distribution's shapes, densities, moments and their gradients back to
    # the original parameters, as PyTorch's
    def run(lib):
        d0 = _families(lib)[family]()
        d = d0.expand(EXPANDED[family])
        discrete = family.startswith("categorical")
        value = lib.tensor(VALUES[family]) if discrete else _t(lib, VALUES[family], False)
        out = {
            "shapes": (tuple(d.batch_shape), tuple(d.event_shape)),
            "sample shape": tuple(d.sample((2,)).shape),
            "log_prob": d.log_prob(value),
            "entropy": d.entropy(),
        }
        if not discrete:
            out.update(mean=d.mean, variance=d.variance)
        leaves = [v for v in vars(d0).values() if isinstance(v, lib.Tensor) and v.is_leaf]
        leaves = list({id(v): v for v in leaves if v.requires_grad}.values())
        total = sum(v.sum() for v in out.values() if isinstance(v, lib.Tensor))
        return out, lib.autograd.grad(total, leaves) if leaves else ()

    compare(run, rtol=1e-12, atol=1e-14)


def test_expand_keeps_the_checks_and_refuses_a_batch_it_cannot_broadcast_to():
    d = cr.distributions.Normal(cr.zeros(2), 1.0, validate_args=False).expand((3, 2))
    assert not d._validate_args and type(d) is cr.distributions.Normal
    e = cr.distributions.Normal(cr.zeros(2), 1.0).expand((3, 2))
    with pytest.raises(ValueError, match="within the support|broadcastable"):
        e.log_prob(cr.zeros(4))
    want = error_of(lambda L: L.distributions.Normal(L.zeros(2), 1.0).expand((3,)), torch)
    got = error_of(lambda L: L.distributions.Normal(L.zeros(2), 1.0).expand((3,)), cr)
    assert (type(got), str(got)) == (type(want), str(want))
