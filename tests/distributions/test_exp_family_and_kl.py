"""``ExponentialFamily`` and the KL pairs against ``torch.distributions``: which families
are exponential families, their Bregman entropies (``ExponentialFamily.entropy``) and the
generic Bregman-divergence KL, with gradients (float64), the errors where neither applies;
the closed-form KL divergences of mixed pairs, their infinite cases and gradients; and
that chainrule registers every pair of families PyTorch registers."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import compare, error_of


def _leaf_maker(lib, leaves):
    """A maker of float64 leaves that require grad, each recorded in ``leaves``."""

    def t(values):
        leaf = lib.tensor(np.asarray(values, dtype=np.float64), requires_grad=True)
        leaves.append(leaf)
        return leaf

    return t


def _grads(lib, out, leaves):
    """The gradients of ``out.sum()`` w.r.t. ``leaves`` (None where one is unused), or None
    where ``out`` carries no graph (an infinite KL made by ``full_like``)."""
    if not out.requires_grad:
        return None
    return lib.autograd.grad(out.sum(), leaves, allow_unused=True)


def _rtol_of(case: str) -> float:
    """1e-12, but 1e-8 where the gradient goes through ψ' of a Gamma or Beta concentration:
    PyTorch's CPU trigamma is off by up to ~5e-10 relative (chainrule's agrees with scipy's
    polygamma(1, x) to 1e-15; checked at x = 0.5, 0.7, 1.5, 2.5)."""
    return 1e-8 if case.startswith(("gamma", "chi2", "beta")) else 1e-12


FAMILIES = {
    "bernoulli of probs": lambda D, t: D.Bernoulli(probs=t([0.2, 0.9])),
    "bernoulli of logits": lambda D, t: D.Bernoulli(logits=t([[0.3, -2.0], [1.0, 0.0]])),
    "beta": lambda D, t: D.Beta(t([0.5, 2.0]), t([1.5, 3.0])),
    "continuous bernoulli": lambda D, t: D.ContinuousBernoulli(probs=t([0.2, 0.7, 0.95])),
    # logits inside PyTorch's Taylor band of the log normalizer (|η| about 1e-3)
    "continuous bernoulli near 1/2": lambda D, t: D.ContinuousBernoulli(
        logits=t([0.0005, -0.0005, 0.001, -0.001])
    ),
    "dirichlet": lambda D, t: D.Dirichlet(t([[0.5, 2.0, 1.0], [3.0, 1.5, 0.7]])),
    "exponential": lambda D, t: D.Exponential(t([0.5, 2.0])),
    "gamma": lambda D, t: D.Gamma(t([0.7, 2.5]), t([1.3, 0.4])),
    "chi2": lambda D, t: D.Chi2(t([1.0, 3.5])),
    "normal": lambda D, t: D.Normal(t([0.5, -1.0]), t([1.5, 0.3])),
    "poisson": lambda D, t: D.Poisson(t([0.5, 4.0])),
}

# the same families with other parameters: the q of the Bregman KL
OTHERS = {
    "bernoulli of probs": lambda D, t: D.Bernoulli(logits=t([1.0, -0.5])),
    "bernoulli of logits": lambda D, t: D.Bernoulli(probs=t([0.4, 0.1])),
    "beta": lambda D, t: D.Beta(t([1.0, 0.8]), t([2.0, 0.5])),
    "continuous bernoulli": lambda D, t: D.ContinuousBernoulli(logits=t([0.5, -1.0, 0.0007])),
    "continuous bernoulli near 1/2": lambda D, t: D.ContinuousBernoulli(
        probs=t([0.3, 0.5, 0.8, 0.5002])
    ),
    "dirichlet": lambda D, t: D.Dirichlet(t([1.0, 1.0, 2.0])),
    "exponential": lambda D, t: D.Exponential(t([1.0, 1.5])),
    "gamma": lambda D, t: D.Gamma(t([1.5, 0.5]), t([0.8, 2.0])),
    "chi2": lambda D, t: D.Chi2(t([2.0, 0.5])),
    "normal": lambda D, t: D.Normal(t([0.0, 1.0]), t([1.0, 2.0])),
    "poisson": lambda D, t: D.Poisson(t([1.5, 3.0])),
}

# the families PyTorch gives no mean carrier measure: the Bregman entropy raises
NO_CARRIER_MEASURE = ("beta", "dirichlet", "poisson")


def test_the_exponential_families_are_torchs():
    # every torch family deriving from ExponentialFamily derives from chainrule's, and no
    # other; Normal keeps its location-scale base too
    def family_names(D):
        return {
            name
            for name in dir(D)
            if isinstance(getattr(D, name), type)
            and issubclass(getattr(D, name), D.ExponentialFamily)
        }

    assert family_names(cr.distributions) == family_names(torch.distributions)
    assert issubclass(cr.distributions.Normal, cr.distributions.distribution._LocationScale)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_instances_are_exponential_families(family):
    def run(lib):
        d = FAMILIES[family](lib.distributions, _leaf_maker(lib, []))
        return isinstance(d, lib.distributions.ExponentialFamily), d._mean_carrier_measure

    if family in NO_CARRIER_MEASURE:
        got = error_of(lambda lib: run(lib), cr)
        want = error_of(lambda lib: run(lib), torch)
        assert (type(got), str(got)) == (type(want), str(want))
    else:
        compare(run)


@pytest.mark.parametrize("family", [f for f in FAMILIES if f not in NO_CARRIER_MEASURE])
def test_bregman_entropy_as_torch(family):
    # ExponentialFamily.entropy against torch's, with the natural parameters and log
    # normalizer and the family's own entropy; the Bregman entropy detaches η, so its
    # gradient reaches no parameter (None in both), the explicit one's does
    def run(lib):
        leaves: list = []
        d = FAMILIES[family](lib.distributions, _leaf_maker(lib, leaves))
        bregman = lib.distributions.ExponentialFamily.entropy(d)
        explicit = d.entropy()
        etas = d._natural_params
        out = {
            "bregman": bregman,
            "explicit": explicit,
            "natural params": etas,
            "log normalizer": d._log_normalizer(*etas),
        }
        return out, _grads(lib, bregman, leaves), _grads(lib, explicit, leaves)

    compare(run, rtol=_rtol_of(family), atol=1e-14)


@pytest.mark.parametrize("family", NO_CARRIER_MEASURE)
def test_bregman_entropy_without_a_carrier_measure_raises_as_torch(family):
    def bregman(lib):
        d = FAMILIES[family](lib.distributions, _leaf_maker(lib, []))
        return lib.distributions.ExponentialFamily.entropy(d)

    got, want = error_of(bregman, cr), error_of(bregman, torch)
    assert (type(got), str(got)) == (type(want), str(want))


def test_poisson_entropy_raises_as_torch():
    def entropy(lib):
        return lib.distributions.Poisson(lib.tensor([1.0, 2.0])).entropy()

    got, want = error_of(entropy, cr), error_of(entropy, torch)
    assert type(want) is NotImplementedError
    assert (type(got), str(got)) == (type(want), str(want))


@pytest.mark.parametrize("family", list(FAMILIES))
def test_bregman_kl_as_torch(family):
    # the generic KL called directly; p's η is detached, so only q's parameters get a
    # gradient; the registered closed form where one exists must agree
    def run(lib):
        D = lib.distributions
        p_leaves: list = []
        q_leaves: list = []
        p = FAMILIES[family](D, _leaf_maker(lib, p_leaves))
        q = OTHERS[family](D, _leaf_maker(lib, q_leaves))
        kl = D.kl._kl_expfamily_expfamily(p, q)
        return kl, _grads(lib, kl, p_leaves + q_leaves)

    compare(run, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("family", ["normal", "exponential", "gamma", "beta", "dirichlet"])
def test_bregman_kl_agrees_with_the_closed_form(family):
    D, t = cr.distributions, _leaf_maker(cr, [])
    p, q = FAMILIES[family](D, t), OTHERS[family](D, t)
    generic = D.kl._kl_expfamily_expfamily(p, q)
    np.testing.assert_allclose(
        generic.detach().numpy(), D.kl_divergence(p, q).detach().numpy(), rtol=1e-12
    )


BREGMAN_ERRORS = {
    "two families, called directly": lambda L: L.distributions.kl._kl_expfamily_expfamily(
        L.distributions.Normal(0.0, 1.0), L.distributions.Exponential(1.0)
    ),
    "two families, dispatched": lambda L: L.distributions.kl_divergence(
        L.distributions.Exponential(L.tensor([1.0])), L.distributions.Poisson(L.tensor([1.0]))
    ),
    "a gamma and a chi2": lambda L: L.distributions.kl._kl_expfamily_expfamily(
        L.distributions.Gamma(1.0, 0.5), L.distributions.Chi2(2.0)
    ),
}


@pytest.mark.parametrize("name", list(BREGMAN_ERRORS))
def test_bregman_kl_refuses_two_families_as_torch(name):
    got, want = error_of(BREGMAN_ERRORS[name], cr), error_of(BREGMAN_ERRORS[name], torch)
    assert (type(got), str(got)) == (type(want), str(want))


KL_PAIRS = {
    "beta, continuous bernoulli": lambda D, t: (
        D.Beta(t([0.5, 2.0, 1.2]), t([1.5, 3.0, 0.9])),
        D.ContinuousBernoulli(probs=t([0.2, 0.7, 0.5])),
    ),
    "beta, pareto": lambda D, t: (D.Beta(t([0.5, 2.0]), t([1.5, 3.0])), D.Pareto(t(1.0), t(2.0))),
    "exponential, normal": lambda D, t: (
        D.Exponential(t([0.5, 2.0])),
        D.Normal(t([0.3, -1.0]), t([1.2, 0.4])),
    ),
    "exponential, uniform": lambda D, t: (D.Exponential(t([0.5, 2.0])), D.Uniform(0.0, 5.0)),
    "gamma, continuous bernoulli": lambda D, t: (
        D.Gamma(t([0.7, 2.5]), t([1.3, 0.4])),
        D.ContinuousBernoulli(probs=t([0.3, 0.6])),
    ),
    "gamma, gumbel": lambda D, t: (
        D.Gamma(t([0.7, 2.5]), t([1.3, 0.4])),
        D.Gumbel(t([0.2, -1.0]), t([1.5, 0.6])),
    ),
    "chi2, gumbel": lambda D, t: (D.Chi2(t([3.0])), D.Gumbel(t([0.5]), t([2.0]))),
    "gamma, pareto": lambda D, t: (D.Gamma(t([0.7, 2.5]), t([1.3, 0.4])), D.Pareto(1.0, 2.0)),
    "gumbel, beta": lambda D, t: (D.Gumbel(t([0.2, -1.0]), t([1.5, 0.6])), D.Beta(2.0, 3.0)),
    "gumbel, gamma": lambda D, t: (D.Gumbel(t([0.2, -1.0]), t([1.5, 0.6])), D.Gamma(2.0, 3.0)),
    "laplace, exponential": lambda D, t: (
        D.Laplace(t([0.5, -1.0]), t([1.5, 0.3])),
        D.Exponential(t([1.0, 2.0])),
    ),
    "laplace, normal": lambda D, t: (
        D.Laplace(t([0.5, -1.0]), t([1.5, 0.3])),
        D.Normal(t([0.0, 1.0]), t([1.0, 2.0])),
    ),
    "laplace, uniform": lambda D, t: (D.Laplace(t([0.5]), t([1.5])), D.Uniform(-1.0, 1.0)),
    "normal, exponential": lambda D, t: (
        D.Normal(t([0.5, -1.0]), t([1.5, 0.3])),
        D.Exponential(t([1.0, 2.0])),
    ),
    "normal, laplace": lambda D, t: (
        D.Normal(t([0.5, -1.0, 0.0]), t([1.5, 0.3, 1.0])),
        D.Laplace(t([0.0, 1.0, 0.0]), t([1.0, 2.0, 0.5])),
    ),
    "one hot categorical": lambda D, t: (
        D.OneHotCategorical(logits=t([[0.1, 2.0, -1.0], [0.0, 0.0, 0.0]])),
        D.OneHotCategorical(probs=t([0.2, 0.3, 0.5])),
    ),
    "one hot categorical with zeros": lambda D, t: (
        D.OneHotCategorical(probs=t([[0.0, 0.5, 0.5], [0.5, 0.5, 0.0]])),
        D.OneHotCategorical(probs=t([0.5, 0.0, 0.5])),
    ),
    "pareto, beta": lambda D, t: (D.Pareto(t([1.0, 2.0]), t([3.0, 0.5])), D.Beta(2.0, 3.0)),
    "pareto, gamma": lambda D, t: (
        D.Pareto(t([1.0, 2.0, 0.5]), t([3.0, 1.5, 4.0])),
        D.Gamma(t([0.7, 2.5, 1.0]), t([1.3, 0.4, 2.0])),
    ),
    # α <= 1: the mean diverges, the KL is inf (the entry at α = 1 is a 0/0 before masking;
    # its gradient is nan in both)
    "pareto, gamma, infinite": lambda D, t: (
        D.Pareto(t([1.0, 2.0]), t([0.5, 1.0])),
        D.Gamma(t([0.7, 2.5]), t([1.3, 0.4])),
    ),
    "uniform, exponential": lambda D, t: (
        D.Uniform(t([0.0, 0.5, -1.0]), t([1.0, 3.0, 1.0])),
        D.Exponential(t([1.0, 2.0, 0.5])),
    ),
    "uniform, normal": lambda D, t: (
        D.Uniform(t([0.0, 0.5, -1.0]), t([1.0, 3.0, 1.0])),
        D.Normal(t([0.0, 1.0, 2.0]), t([1.0, 2.0, 0.5])),
    ),
}


@pytest.mark.parametrize("pair", list(KL_PAIRS))
def test_new_kl_pairs_as_torch(pair):
    def run(lib):
        leaves: list = []
        p, q = KL_PAIRS[pair](lib.distributions, _leaf_maker(lib, leaves))
        kl = lib.distributions.kl_divergence(p, q)
        return kl, _grads(lib, kl, leaves)

    compare(run, rtol=_rtol_of(pair), atol=1e-14)


def test_every_pair_torch_registers_is_registered():
    theirs = {(p.__name__, q.__name__) for p, q in torch.distributions.kl._KL_REGISTRY}
    ours = {(p.__name__, q.__name__) for p, q in cr.distributions.kl._KL}
    assert theirs - ours == set()
    assert ours - theirs == set()


@pytest.mark.parametrize("family", ["continuous bernoulli near 1/2", "gamma", "normal"])
def test_bregman_entropy_and_kl_of_expanded_families_as_torch(family):
    # an expanded member keeps its natural parameters (as expanded views) and ``_lims``
    def run(lib):
        D = lib.distributions
        leaves: list = []
        t = _leaf_maker(lib, leaves)
        p = FAMILIES[family](D, t)
        p = p.expand((3, *p.batch_shape))
        q = OTHERS[family](D, t)
        kl = D.kl._kl_expfamily_expfamily(p, q)
        entropy = D.ExponentialFamily.entropy(p)
        return (p.batch_shape, entropy, kl), _grads(lib, kl, leaves)

    compare(run, rtol=1e-12, atol=1e-14)
