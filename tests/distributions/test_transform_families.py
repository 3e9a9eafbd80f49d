"""The families built on transforms (``Cauchy``, ``HalfNormal``, ``HalfCauchy``,
``Gumbel``, ``Pareto``, ``Weibull``, ``Kumaraswamy``, ``LogisticNormal``) against
``torch.distributions``: reprs, shapes, supports, log densities, entropies, moments,
CDFs and their inverses with gradients (float64), ``expand``, KL divergences, the errors
of the checks; samples by their shapes, supports and moments (the random streams differ),
reparameterized samples by their gradients."""

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
        "cauchy": lambda: D.Cauchy(_t(lib, [0.5, -1.0]), _t(lib, [1.5, 0.3])),
        "cauchy of numbers": lambda: D.Cauchy(0.0, 2.0),
        "half normal": lambda: D.HalfNormal(_t(lib, [1.5, 0.3])),
        "half cauchy": lambda: D.HalfCauchy(_t(lib, [1.5, 0.3])),
        "gumbel": lambda: D.Gumbel(_t(lib, [0.5, -1.0]), _t(lib, [1.5, 0.3])),
        "gumbel of numbers": lambda: D.Gumbel(1.0, 2.0),
        "pareto": lambda: D.Pareto(_t(lib, [1.0, 0.5]), _t(lib, [3.0, 1.5])),
        "pareto without moments": lambda: D.Pareto(_t(lib, [1.0, 2.0]), _t(lib, [0.5, 1.5])),
        "weibull": lambda: D.Weibull(_t(lib, [1.5, 0.7]), _t(lib, [2.0, 0.8])),
        "kumaraswamy": lambda: D.Kumaraswamy(_t(lib, [2.0, 0.7]), _t(lib, [3.0, 1.5])),
        "logistic normal": lambda: D.LogisticNormal(
            _t(lib, [[0.5, -1.0, 0.2], [0.0, 1.0, 2.0]]),
            _t(lib, [[1.5, 0.3, 1.0], [1.0, 2.0, 0.5]]),
        ),
        "logistic normal of numbers": lambda: D.LogisticNormal(0.3, 1.2),
    }


VALUES = {
    "cauchy": [[0.1, 0.2], [4.0, -2.0]],
    "cauchy of numbers": [0.3, -12.0],
    "half normal": [[0.1, 0.2], [4.0, 0.0]],
    "half cauchy": [[0.1, 0.2], [4.0, 0.0]],
    "gumbel": [[0.1, 0.2], [4.0, -2.0]],
    "gumbel of numbers": [0.3, -1.2],
    "pareto": [[1.0, 0.6], [4.0, 2.0]],
    "pareto without moments": [3.0, 2.5],
    "weibull": [[0.1, 0.2], [4.0, 1.3]],
    "kumaraswamy": [[0.1, 0.2], [0.9, 0.5]],
    "logistic normal": [[0.1, 0.2, 0.3, 0.4], [0.7, 0.1, 0.15, 0.05]],
    "logistic normal of numbers": [[0.25, 0.75], [0.5, 0.5]],
}

# families with cdf/icdf of their own or through monotone transforms
WITH_CDF = ("cauchy", "half", "gumbel", "pareto", "weibull", "kumaraswamy")


def _leaves(lib, d):
    found = {}
    todo = [d]
    while todo:  # (a family built on a base keeps its parameters there)
        obj = todo.pop()
        for v in vars(obj).values():
            if isinstance(v, lib.Tensor) and v.is_leaf and v.requires_grad:
                found[id(v)] = v
            elif isinstance(v, lib.distributions.Distribution):
                todo.append(v)
    return list(found.values())


def _floats(out):
    return [v for v in out.values() if isinstance(v, (cr.Tensor, torch.Tensor))]


def _finite_sum(lib, values):
    # nan/inf moments (Cauchy's mean, Pareto's variance for small α) are compared as
    # values, but kept out of the sum whose gradient is compared
    return sum(lib.where(v.isfinite(), v, 0).sum() for v in values)


def _rtol(family):
    if family.endswith("of numbers"):
        # parameters given as numbers are float32, where chainrule's log (NumPy's) and
        # PyTorch's may round one ulp apart
        return 1e-6
    if family == "kumaraswamy":
        # the entropy's gradient is a trigamma, which PyTorch computes to about 1e-10
        # (chainrule's agrees with SciPy's to 1e-16)
        return 1e-9
    return 1e-12


@pytest.mark.parametrize("family", list(VALUES))
def test_densities_moments_and_gradients_as_torch(family):
    def run(lib):
        d = _families(lib)[family]()
        value = _t(lib, VALUES[family], False)
        out = {
            "repr": repr(d),
            "support": repr(d.support),
            "shapes": (tuple(d.batch_shape), tuple(d.event_shape)),
            "has_rsample": d.has_rsample,
            "log_prob": d.log_prob(value),
        }
        if not family.startswith("logistic"):
            out.update(
                entropy=d.entropy(), mean=d.mean, mode=d.mode, variance=d.variance, sd=d.stddev
            )
        if family.startswith(WITH_CDF):
            out["cdf"] = d.cdf(value)
            out["icdf"] = d.icdf(_t(lib, [0.1, 0.9], False))
        leaves = _leaves(lib, d)
        total = _finite_sum(lib, _floats(out))
        return out, lib.autograd.grad(total, leaves) if leaves else ()

    compare(run, rtol=_rtol(family), atol=1e-14)


def test_the_mode_where_it_does_not_exist_is_nan_as_in_torch():
    def run(lib):
        D = lib.distributions
        return (
            D.Kumaraswamy(_t(lib, [0.5, 2.0]), _t(lib, [2.0, 0.5])).mode,
            D.Weibull(_t(lib, [1.0]), _t(lib, [0.5])).mode,
            D.Cauchy(_t(lib, [0.0]), 1.0).mean,
            D.HalfCauchy(_t(lib, [1.0])).mean,
        )

    compare(run)


def test_log_prob_outside_the_half_line_is_minus_inf_without_validation():
    def run(lib):
        D = lib.distributions
        v = lib.tensor([-1.0, 1.0], dtype=lib.float64)
        return (
            D.HalfNormal(_t(lib, [1.0]), validate_args=False).log_prob(v),
            D.HalfCauchy(_t(lib, [1.0]), validate_args=False).log_prob(v),
        )

    compare(run, rtol=1e-12)


EXPANDED = {  # family: the new batch shape
    "cauchy": (3, 2),
    "half normal": (2, 2),
    "half cauchy": (2, 2),
    "gumbel": (3, 2),
    "gumbel of numbers": (2,),
    "pareto": (2, 2),
    "weibull": (3, 2),
    "kumaraswamy": (1, 2),
    "logistic normal": (3, 2),
}


@pytest.mark.parametrize("family", list(EXPANDED))
def test_expand_as_torch(family):
    def run(lib):
        d0 = _families(lib)[family]()
        d = d0.expand(EXPANDED[family])
        value = np.asarray(VALUES[family])
        if not family.startswith("logistic") and value.ndim == 2:
            value = value[0]  # (one row, to broadcast against the new batch)
        value = _t(lib, value, False)
        out = {
            "type": type(d).__name__,
            "shapes": (tuple(d.batch_shape), tuple(d.event_shape)),
            "sample shape": tuple(d.sample((2,)).shape),
            "log_prob": d.log_prob(value),
        }
        if not family.startswith("logistic"):
            out.update(entropy=d.entropy(), mean=d.mean, variance=d.variance)
        if family.startswith(WITH_CDF):
            out["cdf"] = d.cdf(value)
        leaves = _leaves(lib, d0)
        total = _finite_sum(lib, _floats(out))
        return out, lib.autograd.grad(total, leaves) if leaves else ()

    compare(run, rtol=_rtol(family), atol=1e-14)


def _kl_cases():
    def p(L, name):
        D = L.distributions
        return {
            "cauchy": lambda: D.Cauchy(_t(L, [0.5, -1.0]), _t(L, [1.5, 0.3])),
            "gumbel": lambda: D.Gumbel(_t(L, [0.5, -1.0]), _t(L, [1.5, 0.3])),
            "half normal": lambda: D.HalfNormal(_t(L, [1.5, 0.3])),
            "pareto": lambda: D.Pareto(_t(L, [1.0, 0.5]), _t(L, [3.0, 1.5])),
            "normal": lambda: D.Normal(_t(L, [0.5, -1.0]), _t(L, [1.5, 0.3])),
            "uniform": lambda: D.Uniform(_t(L, [1.0, 0.2]), _t(L, [2.0, 4.0])),
            "exponential": lambda: D.Exponential(_t(L, [0.5, 2.0])),
            "laplace": lambda: D.Laplace(_t(L, [0.5, -1.0]), _t(L, [1.5, 0.3])),
        }[name]()

    def q(L, name):
        D = L.distributions
        return {
            "cauchy": lambda: D.Cauchy(_t(L, [0.0, 1.0]), _t(L, [1.0, 2.0])),
            "gumbel": lambda: D.Gumbel(_t(L, [0.2, 1.0]), _t(L, [1.0, 2.0])),
            "half normal": lambda: D.HalfNormal(_t(L, [1.0, 2.0])),
            "pareto": lambda: D.Pareto(_t(L, [0.8, 1.0]), _t(L, [2.0, 2.5])),
            "normal": lambda: D.Normal(_t(L, [0.2, 1.0]), _t(L, [1.0, 2.0])),
            "uniform": lambda: D.Uniform(_t(L, [-1.0, 0.0]), _t(L, [2.0, 3.0])),
            "exponential": lambda: D.Exponential(_t(L, [1.0, 1.5])),
        }[name]()

    pairs = [
        ("cauchy", "cauchy"),
        ("gumbel", "gumbel"),
        ("half normal", "half normal"),
        ("pareto", "pareto"),
        ("exponential", "gumbel"),
        ("exponential", "pareto"),
        ("gumbel", "exponential"),
        ("gumbel", "normal"),
        ("gumbel", "pareto"),
        ("gumbel", "uniform"),
        ("laplace", "pareto"),
        ("normal", "gumbel"),
        ("normal", "pareto"),
        ("pareto", "exponential"),
        ("pareto", "normal"),
        ("pareto", "uniform"),
        ("uniform", "gumbel"),
        ("uniform", "pareto"),
    ]
    return {f"{a} and {b}": (lambda L, a=a, b=b: (p(L, a), q(L, b))) for a, b in pairs}


KL = _kl_cases()


@pytest.mark.parametrize("name", list(KL))
def test_kl_divergence_as_torch(name):
    def run(lib):
        p, q = KL[name](lib)
        kl = lib.distributions.kl_divergence(p, q)
        leaves = _leaves(lib, p) + _leaves(lib, q)
        total = lib.where(kl.isfinite(), kl, 0).sum()
        grads = lib.autograd.grad(total, leaves, allow_unused=True) if total.requires_grad else ()
        return kl, grads

    compare(run, rtol=1e-12, atol=1e-14)


def test_kl_where_the_supports_leave_each_other_is_inf_as_in_torch():
    def run(lib):
        D = lib.distributions
        return (
            D.kl_divergence(D.Pareto(_t(lib, [1.0, 2.0]), _t(lib, [3.0, 3.0])), D.Pareto(1.5, 2.0)),
            D.kl_divergence(D.Pareto(_t(lib, [1.0, 2.0]), _t(lib, [0.5, 3.0])), D.Exponential(1.0)),
            D.kl_divergence(D.Pareto(_t(lib, [1.0, 2.0]), _t(lib, [1.5, 3.0])), D.Normal(0.0, 1.0)),
            D.kl_divergence(D.Uniform(_t(lib, [0.5, 2.0]), 3.0), D.Pareto(1.0, 2.0)),
            D.kl_divergence(D.Gumbel(_t(lib, [0.5]), 1.0), D.ContinuousBernoulli(0.3)),
            D.kl_divergence(D.ContinuousBernoulli(_t(lib, [0.3])), D.Pareto(1.0, 2.0)),
        )

    compare(run, rtol=1e-12)


ERRORS = {
    "a negative cauchy scale": lambda L: L.distributions.Cauchy(0.0, -1.0),
    "a zero half normal scale": lambda L: L.distributions.HalfNormal(L.tensor([1.0, 0.0])),
    "a negative value for a half cauchy": lambda L: L.distributions.HalfCauchy(1.0).log_prob(
        L.tensor([-1.0])
    ),
    "a negative gumbel scale": lambda L: L.distributions.Gumbel(0.0, L.tensor([-1.0])),
    "a pareto value below its scale": lambda L: L.distributions.Pareto(2.0, 1.0).log_prob(
        L.tensor([1.0])
    ),
    "a negative pareto alpha": lambda L: L.distributions.Pareto(1.0, -1.0),
    "a negative weibull concentration": lambda L: L.distributions.Weibull(1.0, -2.0),
    "a kumaraswamy value above 1": lambda L: L.distributions.Kumaraswamy(1.0, 2.0).log_prob(
        L.tensor([1.5])
    ),
    "a value off the simplex": lambda L: L.distributions.LogisticNormal(
        L.zeros(2), L.ones(2)
    ).log_prob(L.tensor([0.5, 0.2, 0.2])),
    "a logistic normal value of another event shape": lambda L: L.distributions.LogisticNormal(
        L.zeros(2), L.ones(2)
    ).log_prob(L.tensor([0.5, 0.5])),
    "an unregistered pair": lambda L: L.distributions.kl_divergence(
        L.distributions.Cauchy(0.0, 1.0), L.distributions.Normal(0.0, 1.0)
    ),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name):
    want, got = error_of(ERRORS[name], torch), error_of(ERRORS[name], cr)
    assert (type(got), str(got)) == (type(want), str(want))


# family, the law's mean (finite), its standard deviation
MOMENTS = {
    "half normal": (lambda D: D.HalfNormal(cr.tensor([1.5, 0.3]))),
    "gumbel": (lambda D: D.Gumbel(cr.tensor([0.5, -1.0]), cr.tensor([1.5, 0.3]))),
    "pareto": (lambda D: D.Pareto(cr.tensor([1.0, 0.5]), cr.tensor([5.0, 6.5]))),
    "weibull": (lambda D: D.Weibull(cr.tensor([1.5, 0.7]), cr.tensor([2.0, 0.8]))),
    "kumaraswamy": (lambda D: D.Kumaraswamy(cr.tensor([2.0, 0.7]), cr.tensor([3.0, 1.5]))),
}


@pytest.mark.parametrize("name", list(MOMENTS))
def test_samples_have_the_shapes_support_and_mean(name):
    cr.manual_seed(0)
    d = MOMENTS[name](cr.distributions)
    s = d.sample((20000,))
    assert tuple(s.shape) == (20000, 2) and s.dtype == cr.float32 and not s.requires_grad
    assert bool(d.support.check(s).all())
    bound = 4 * d.stddev.numpy() / math.sqrt(20000)  # (four standard errors of the mean)
    assert (np.abs(s.numpy().astype(np.float64).mean(0) - d.mean.numpy()) < bound).all()


def test_cauchy_samples_have_the_quartiles():
    # no mean to test: the quartiles are x₀ ∓ γ; the sample quartile's standard error is
    # √(p(1-p)/n)/f(q) = (π/2)γ·√(3/16)/√n·2 ... about 1.36γ/√n
    cr.manual_seed(1)
    d = cr.distributions.Cauchy(cr.tensor([0.5, -1.0]), cr.tensor([1.5, 0.3]))
    s = d.sample((20000,)).numpy().astype(np.float64)
    assert s.shape == (20000, 2)
    q1, q3 = np.quantile(s, [0.25, 0.75], axis=0)
    bound = 4 * 1.37 * np.array([1.5, 0.3]) / math.sqrt(20000)
    assert (np.abs(q1 - np.array([-1.0, -1.3])) < bound).all()
    assert (np.abs(q3 - np.array([2.0, -0.7])) < bound).all()
    h = cr.distributions.HalfCauchy(cr.tensor([1.5])).sample((20000,)).numpy()
    assert (h >= 0).all() and abs(np.median(h) - 1.5) < 4 * 1.37 * 1.5 / math.sqrt(20000)


def test_logistic_normal_samples_lie_on_the_simplex_with_the_normal_behind_them():
    cr.manual_seed(2)
    loc, scale = cr.tensor([0.5, -1.0, 0.2]), cr.tensor([1.5, 0.3, 1.0])
    d = cr.distributions.LogisticNormal(loc, scale)
    s = d.sample((20000,))
    assert tuple(s.shape) == (20000, 4) and bool(d.support.check(s).all())
    # the stick-breaking inverse gives back normal draws of (loc, scale)
    y = cr.distributions.transforms.StickBreakingTransform().inv(s.double()).numpy()
    np.testing.assert_allclose(y.mean(0), loc.numpy(), atol=4 * 1.5 / math.sqrt(20000))
    np.testing.assert_allclose(y.std(0), scale.numpy(), rtol=0.03)


def test_rsample_gradients_are_the_derivatives_of_the_icdf():
    # x = F⁻¹(u; θ) for a fixed draw u, so dx/dθ is ∂F⁻¹/∂θ at the u the sample came from
    cr.manual_seed(3)
    loc = cr.tensor([0.5, -1.0], dtype=cr.float64, requires_grad=True)
    scale = cr.tensor([1.5, 0.3], dtype=cr.float64, requires_grad=True)
    x = cr.distributions.Cauchy(loc, scale).rsample()
    assert x.requires_grad
    x.sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), [1.0, 1.0])
    z = (x.detach() - loc.detach()) / scale.detach()  # tan(π(u - 1/2))
    np.testing.assert_allclose(scale.grad.numpy(), z.numpy(), rtol=1e-12)

    # Weibull: x = λ E^(1/k): dx/dλ = x/λ, dx/dk = -x log(E)/k² with E = (x/λ)^k
    lam = cr.tensor([1.5, 0.7], dtype=cr.float64, requires_grad=True)
    k = cr.tensor([2.0, 0.8], dtype=cr.float64, requires_grad=True)
    x = cr.distributions.Weibull(lam, k).rsample()
    x.sum().backward()
    xv, lv, kv = x.detach().numpy(), lam.detach().numpy(), k.detach().numpy()
    e = (xv / lv) ** kv
    np.testing.assert_allclose(lam.grad.numpy(), xv / lv, rtol=1e-10)
    np.testing.assert_allclose(k.grad.numpy(), -xv * np.log(e) / kv**2, rtol=1e-10)


@pytest.mark.parametrize(
    "make",
    [
        lambda D, a, b: D.Gumbel(a, b),
        lambda D, a, b: D.HalfNormal(b),
        lambda D, a, b: D.HalfCauchy(b),
        lambda D, a, b: D.Pareto(b, a + 2.0),
        lambda D, a, b: D.Kumaraswamy(a + 1.0, b),
        lambda D, a, b: D.LogisticNormal(a, b),
    ],
    ids=["gumbel", "half normal", "half cauchy", "pareto", "kumaraswamy", "logistic normal"],
)
def test_rsample_gradients_match_a_finite_difference(make):
    # the same uniform stream (same seed) makes the sample a function of the parameters
    a0, b0 = np.array([0.5, 1.2]), np.array([1.5, 0.3])

    def sample(a, b, grad=False):
        cr.manual_seed(7)
        ta = cr.tensor(a, dtype=cr.float64, requires_grad=grad)
        tb = cr.tensor(b, dtype=cr.float64, requires_grad=grad)
        return make(cr.distributions, ta, tb).rsample(), ta, tb

    x, ta, tb = sample(a0, b0, grad=True)
    x.sum().backward()
    h = 1e-6
    for which, t in ((0, ta), (1, tb)):
        if t.grad is None:
            continue
        fd = np.zeros(2)
        for i in range(2):
            step = np.zeros(2)
            step[i] = h
            args_p = (a0 + step, b0) if which == 0 else (a0, b0 + step)
            args_m = (a0 - step, b0) if which == 0 else (a0, b0 - step)
            up = sample(*args_p)[0].sum().item()
            down = sample(*args_m)[0].sum().item()
            fd[i] = (up - down) / (2 * h)
        np.testing.assert_allclose(t.grad.numpy(), fd, rtol=1e-5, atol=1e-8)
