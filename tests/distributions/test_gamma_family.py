"""The gamma families (``Gamma``, ``Chi2``, ``Beta``, ``Dirichlet``, ``StudentT``,
``NegativeBinomial``) against ``torch.distributions``: log densities, entropies, CDFs,
moments and KL divergences with their gradients (float64), reprs, shapes, ``expand`` and
the errors of the parameter and value checks; samples by their shapes, support and moments
(the random streams differ); the reparameterized gradients of ``rsample`` against finite
differences of the CDFs and closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.special as sp
import torch

import chainrule as cr
from oracle import compare, error_of


def _t(lib, values, grad=True):
    return lib.tensor(np.asarray(values, dtype=np.float64), requires_grad=grad)


def _families(lib):
    D = lib.distributions
    return {
        "gamma": lambda: D.Gamma(_t(lib, [0.5, 3.0]), _t(lib, [2.0, 0.7])),
        "gamma of numbers": lambda: D.Gamma(2.5, 1.5),
        "chi2": lambda: D.Chi2(_t(lib, [[1.0, 4.5], [3.0, 0.6]])),
        "beta": lambda: D.Beta(_t(lib, [0.5, 3.0]), _t(lib, [2.0, 0.7])),
        "beta of numbers": lambda: D.Beta(2.0, 3.5),
        "dirichlet": lambda: D.Dirichlet(_t(lib, [[0.5, 2.0, 1.5], [0.3, 0.6, 0.9]])),
        "dirichlet of one": lambda: D.Dirichlet(_t(lib, [1.5, 2.0, 2.5, 1.25])),
        "student t": lambda: D.StudentT(
            _t(lib, [0.8, 1.5, 4.0]), _t(lib, [0.5, -1.0, 2.0]), _t(lib, [1.5, 0.3, 2.0])
        ),
        "student t of df": lambda: D.StudentT(_t(lib, [3.0, 7.5])),
        "negative binomial of probs": lambda: D.NegativeBinomial(
            _t(lib, [2.0, 5.5]), probs=_t(lib, [0.3, 0.8])
        ),
        "negative binomial of logits": lambda: D.NegativeBinomial(
            3.0, logits=_t(lib, [[0.5, -1.2], [2.0, 0.0]])
        ),
    }


VALUES = {
    "gamma": [[0.1, 2.5], [1.0, 7.0]],
    "gamma of numbers": [0.3, 4.0],
    "chi2": [[0.2, 3.0], [5.0, 0.01]],
    "beta": [[0.1, 0.6], [0.99, 0.3]],
    "beta of numbers": [0.2, 0.7],
    "dirichlet": [[0.2, 0.5, 0.3], [0.1, 0.1, 0.8]],
    "dirichlet of one": [[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25]],
    "student t": [[0.1, 0.2, -3.0], [1.0, -2.0, 8.0]],
    "student t of df": [0.5, -4.0],
    "negative binomial of probs": [[0.0, 3.0], [7.0, 12.0]],
    "negative binomial of logits": [[0.0, 3.0], [1.0, 2.0]],
}

CDFS = ("gamma", "chi2")


@pytest.mark.parametrize("family", list(VALUES))
def test_densities_moments_and_gradients_as_torch(family):
    def run(lib):
        d = _families(lib)[family]()
        value = _t(lib, VALUES[family], False)
        out = {
            "repr": repr(d),
            "shapes": (tuple(d.batch_shape), tuple(d.event_shape)),
            "log_prob": d.log_prob(value),
            "mean": d.mean,
            "mode": d.mode,
            "variance": d.variance,
            "stddev": d.stddev,
        }
        if not family.startswith("negative binomial"):  # (PyTorch has no entropy there)
            out["entropy"] = d.entropy()
        if family.startswith(CDFS):  # (kept out of the gradients: P(α, x) has none in α)
            cdf = d.cdf(value).detach()
        if family.startswith("negative binomial"):
            out["probs"], out["logits"] = d.probs, d.logits
        if family.startswith("beta"):
            out["concentrations"] = (d.concentration1, d.concentration0)
        if family == "chi2":
            out["df"] = d.df
        leaves = {id(v): v for v in _leaves(lib, d)}.values()
        leaves = [v for v in leaves if v.requires_grad]
        total = sum(
            v.nan_to_num(0.0, 0.0, 0.0).sum()  # (nan means and inf variances carry no gradient)
            for k, v in out.items()
            if isinstance(v, lib.Tensor) and v.is_floating_point()
        )
        grads = lib.autograd.grad(total, leaves, allow_unused=True) if leaves else ()
        if family.startswith(CDFS):
            out["cdf"] = cdf
        return out, grads

    _compare_values_and_gradients(run, float32=family.endswith("of numbers"))


def _compare_values_and_gradients(run, float32=False):
    # float64 values to 1e-12 (float32 ones, of numbers, to the dtype's 1e-6); gradients to
    # 1e-8 (1e-9 absolute): they go through ψ' (the derivative of digamma), which PyTorch's
    # trigamma gets right to ~5e-10 only (chainrule's polygamma to 1e-16)
    compare(lambda lib: run(lib)[0], rtol=1e-6 if float32 else 1e-12, atol=1e-14)
    compare(lambda lib: run(lib)[1], rtol=1e-8, atol=1e-9)


def _leaves(lib, d):
    for v in vars(d).values():
        if isinstance(v, lib.Tensor) and v.is_leaf:
            yield v
        elif isinstance(v, lib.distributions.Distribution):
            yield from _leaves(lib, v)
        elif isinstance(v, lib.Tensor) and v.grad_fn is not None:  # (Beta's stacked pair)
            for fn, _ in v.grad_fn.next_functions:
                if fn is not None and hasattr(fn, "variable"):
                    yield fn.variable


def test_gamma_cdf_is_the_regularized_incomplete_gamma():
    d = cr.distributions.Gamma(cr.tensor([0.5, 3.0], dtype=cr.float64), 2.0)
    x = np.array([0.4, 1.7])
    np.testing.assert_allclose(
        d.cdf(cr.tensor(x)).numpy(), sp.gammainc([0.5, 3.0], 2.0 * x), rtol=1e-13
    )


def test_dirichlet_mode_is_a_vertex_where_every_concentration_is_below_one():
    compare(
        lambda L: (
            L.distributions.Dirichlet(
                _t(L, [[0.5, 0.2, 0.9], [0.5, 2.0, 3.0], [0.1, 0.1, 0.1]])
            ).mode
        ),
        rtol=1e-14,
    )


def test_student_t_moments_by_degrees_of_freedom():
    # mean nan for ν <= 1; variance nan for ν <= 1, inf for 1 < ν <= 2, σ²ν/(ν - 2) above
    d = cr.distributions.StudentT(cr.tensor([0.5, 1.0, 1.5, 2.0, 4.0]), 1.0, 2.0)
    mean, var = d.mean.numpy(), d.variance.numpy()
    assert np.isnan(mean[:2]).all() and (mean[2:] == 1.0).all()
    assert np.isnan(var[:2]).all() and np.isinf(var[2:4]).all() and var[4] == 8.0


# ----- KL divergences -------------------------------------------------------------------------


def _gamma(L):
    return L.distributions.Gamma(_t(L, [0.5, 3.0]), _t(L, [2.0, 0.7]))


def _beta(L):
    return L.distributions.Beta(_t(L, [0.5, 3.0]), _t(L, [2.0, 0.7]))


KL = {
    "gamma gamma": lambda D, L: (_gamma(L), D.Gamma(_t(L, [1.5, 0.2]), _t(L, [1.0, 3.0]))),
    "chi2 gamma": lambda D, L: (D.Chi2(_t(L, [3.0, 1.0])), _gamma(L)),
    "beta beta": lambda D, L: (_beta(L), D.Beta(_t(L, [1.5, 0.2]), _t(L, [1.0, 3.0]))),
    "dirichlet dirichlet": lambda D, L: (
        D.Dirichlet(_t(L, [[0.5, 2.0, 1.5], [0.3, 0.6, 0.9]])),
        D.Dirichlet(_t(L, [1.0, 3.0, 0.4])),
    ),
    "exponential gamma": lambda D, L: (D.Exponential(_t(L, [0.5, 2.0])), _gamma(L)),
    "gamma exponential": lambda D, L: (_gamma(L), D.Exponential(_t(L, [0.5, 2.0]))),
    "gamma normal": lambda D, L: (_gamma(L), D.Normal(_t(L, [0.5, -1.0]), _t(L, [1.5, 0.3]))),
    "gamma uniform": lambda D, L: (_gamma(L), D.Uniform(0.0, 2.0)),
    "uniform gamma": lambda D, L: (D.Uniform(_t(L, [0.0, 1.0]), _t(L, [2.0, 4.0])), _gamma(L)),
    "uniform below zero gamma": lambda D, L: (D.Uniform(-1.0, 2.0), _gamma(L)),
    "normal gamma": lambda D, L: (D.Normal(0.0, 1.0), _gamma(L)),
    "laplace gamma": lambda D, L: (D.Laplace(_t(L, [0.0, 1.0]), 1.0), _gamma(L)),
    "beta exponential": lambda D, L: (_beta(L), D.Exponential(_t(L, [0.5, 2.0]))),
    "beta gamma": lambda D, L: (_beta(L), _gamma(L)),
    "beta normal": lambda D, L: (_beta(L), D.Normal(_t(L, [0.5, -1.0]), _t(L, [1.5, 0.3]))),
    "beta uniform": lambda D, L: (_beta(L), D.Uniform(_t(L, [-1.0, 0.5]), _t(L, [2.0, 4.0]))),
    "uniform beta": lambda D, L: (D.Uniform(_t(L, [0.1, 0.5]), _t(L, [0.6, 1.5])), _beta(L)),
    "exponential beta": lambda D, L: (D.Exponential(_t(L, [0.5, 2.0])), _beta(L)),
    "gamma beta": lambda D, L: (_gamma(L), _beta(L)),
    "normal beta": lambda D, L: (D.Normal(0.0, 1.0), _beta(L)),
    "laplace beta": lambda D, L: (D.Laplace(0.0, 1.0), _beta(L)),
}


@pytest.mark.parametrize("name", list(KL))
def test_kl_divergence_as_torch(name):
    def run(L):
        p, q = KL[name](L.distributions, L)
        kl = L.distributions.kl_divergence(p, q)
        leaves = [v for d in (p, q) for v in _leaves(L, d) if v.requires_grad]
        leaves = list({id(v): v for v in leaves}.values())
        finite = kl.isfinite()
        total = kl.masked_fill(~finite, 0.0).sum()
        grads = L.autograd.grad(total, leaves, allow_unused=True) if kl.requires_grad else ()
        return kl, grads

    _compare_values_and_gradients(run)


# ----- expand ---------------------------------------------------------------------------------

EXPAND = {
    "gamma": ((3, 2), [0.3, 1.5]),
    "chi2": ((4, 2, 2), [[0.3, 1.5], [2.0, 0.1]]),
    "beta": ((3, 2), [0.3, 0.5]),
    "dirichlet": ((4, 2), [[0.2, 0.5, 0.3], [0.1, 0.1, 0.8]]),
    "student t": ((2, 3), [0.1, 0.2, -3.0]),
    "negative binomial of logits": ((3, 2, 2), [[0.0, 3.0], [1.0, 2.0]]),
}


@pytest.mark.parametrize("family", list(EXPAND))
def test_expand_as_torch(family):
    shape, value = EXPAND[family]

    def run(lib):
        d = _families(lib)[family]().expand(shape)
        lp = d.log_prob(_t(lib, value, False))
        return repr(d), tuple(d.batch_shape), tuple(d.event_shape), lp, d.mean, d.variance

    compare(run, rtol=1e-12, atol=1e-14)


def test_expand_to_an_impossible_shape_raises_as_torch():
    fn = lambda L: L.distributions.Gamma(L.ones(2), 1.0).expand((3,))  # noqa: E731
    want, got = error_of(fn, torch), error_of(fn, cr)
    assert (type(got), str(got)) == (type(want), str(want))


# ----- errors -------------------------------------------------------------------------------

ERRORS = {
    "a negative concentration": lambda D, L: D.Gamma(L.tensor([1.0, -1.0]), 1.0),
    "a zero rate": lambda D, L: D.Gamma(1.0, L.tensor([0.0])),
    "a negative df": lambda D, L: D.Chi2(L.tensor([-2.0])),
    "a negative value for a gamma": lambda D, L: D.Gamma(1.0, 1.0).log_prob(L.tensor([-1.0])),
    "a negative beta concentration": lambda D, L: D.Beta(L.tensor([1.0]), L.tensor([-0.5])),
    "a value above 1 for a beta": lambda D, L: D.Beta(1.0, 2.0).log_prob(L.tensor([1.5])),
    "a number as a beta value": lambda D, L: D.Beta(1.0, 2.0).log_prob(0.5),
    "a scalar dirichlet": lambda D, L: D.Dirichlet(L.tensor(1.0)),
    "a negative dirichlet concentration": lambda D, L: D.Dirichlet(L.tensor([1.0, -1.0])),
    "a value off the simplex": lambda D, L: D.Dirichlet(L.ones(3)).log_prob(
        L.tensor([0.5, 0.5, 0.5])
    ),
    "a value of another event shape": lambda D, L: D.Dirichlet(L.ones(3)).log_prob(L.ones(2)),
    "a negative student scale": lambda D, L: D.StudentT(2.0, 0.0, L.tensor([-1.0])),
    "a zero student df": lambda D, L: D.StudentT(L.tensor([0.0])),
    "probs of 1": lambda D, L: D.NegativeBinomial(3.0, probs=L.tensor([1.0])),
    "a negative total count": lambda D, L: D.NegativeBinomial(L.tensor([-1.0]), logits=L.zeros(1)),
    "neither probs nor logits": lambda D, L: D.NegativeBinomial(3.0),
    "both probs and logits": lambda D, L: D.NegativeBinomial(
        3.0, probs=L.tensor([0.5]), logits=L.zeros(1)
    ),
    "a count that is not an integer": lambda D, L: D.NegativeBinomial(
        3.0, probs=L.tensor([0.5])
    ).log_prob(L.tensor([1.5])),
    "an unregistered pair": lambda D, L: D.kl_divergence(D.StudentT(L.ones(3)), D.Gamma(1.0, 1.0)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name):
    fn = lambda L: ERRORS[name](L.distributions, L)  # noqa: E731
    want, got = error_of(fn, torch), error_of(fn, cr)
    assert (type(got), str(got)) == (type(want), str(want))


def test_gamma_log_prob_takes_a_number_as_torch():
    compare(lambda L: L.distributions.Gamma(_t(L, [0.5, 3.0]), 2.0).log_prob(1.5), rtol=1e-13)


# ----- samples ------------------------------------------------------------------------------

N = 20000

# name -> (the distribution (float32 parameters), whether it has rsample)
SAMPLES = {
    "gamma": (lambda D: D.Gamma(cr.tensor([0.3, 2.0, 40.0]), cr.tensor([1.0, 0.5, 4.0])), True),
    "chi2": (lambda D: D.Chi2(cr.tensor([1.0, 5.0, 0.4])), True),
    "beta": (lambda D: D.Beta(cr.tensor([0.3, 2.0, 40.0]), cr.tensor([1.0, 0.5, 4.0])), True),
    "dirichlet": (lambda D: D.Dirichlet(cr.tensor([0.3, 2.0, 5.0])), True),
    "student t": (lambda D: D.StudentT(cr.tensor([5.0, 9.0, 30.0]), 1.0, 2.0), True),
    "negative binomial": (
        lambda D: D.NegativeBinomial(cr.tensor([2.0, 0.5, 10.0]), probs=cr.tensor([0.3, 0.6, 0.5])),
        False,
    ),
}


@pytest.mark.parametrize("name", list(SAMPLES))
def test_samples_have_the_shape_support_mean_and_variance(name):
    make, has_rsample = SAMPLES[name]
    cr.manual_seed(0)
    d = make(cr.distributions)
    assert d.has_rsample == has_rsample
    s = d.sample((N,))
    assert tuple(s.shape) == (N, 3) and s.dtype == cr.float32 and not s.requires_grad
    assert bool(d.support.check(s).all())
    values = s.numpy().astype(np.float64)
    mean, var = d.mean.numpy(), d.variance.numpy()
    # within four standard errors: of the mean σ/√n, of the variance √((μ4 - σ⁴)/n),
    # bounded here by the sample's own fourth central moment
    assert (np.abs(values.mean(0) - mean) < 4 * np.sqrt(var / N)).all()
    fourth = ((values - values.mean(0)) ** 4).mean(0)
    assert (np.abs(values.var(0) - var) < 4 * np.sqrt((fourth - var**2) / N)).all()


def test_rsample_records_the_reparameterized_nodes_as_torch():
    def run(lib):
        a = _t(lib, [0.5, 2.0])
        D = lib.distributions
        x = D.Gamma(a, 2.0).rsample((3,))
        y = D.Dirichlet(_t(lib, [0.5, 2.0, 1.0])).rsample((2,))
        z = D.Beta(a, 1.0).rsample()
        return [
            (t.grad_fn.name(), t.grad_fn.next_functions[0][0].name(), t.shape, t.requires_grad)
            for t in (x, y, z)
        ]

    compare(run)


def _gamma_fd(alpha, x):
    """-(∂P(α, x)/∂α)/p(x; α) by central differences of chainrule's P, Richardson-extrapolated
    (the error of the differences is O(h⁴))."""
    h = 1e-4 * alpha
    P = lambda a: cr.special.gammainc(cr.tensor(a), cr.tensor(x)).numpy()  # noqa: E731
    d1 = (P(alpha + h) - P(alpha - h)) / (2 * h)
    d2 = (P(alpha + 2 * h) - P(alpha - 2 * h)) / (4 * h)
    density = np.exp((alpha - 1) * np.log(x) - x - sp.gammaln(alpha))
    return -(4 * d1 - d2) / 3 / density


def test_gamma_rsample_gradient_is_the_implicit_derivative_of_the_cdf():
    cr.manual_seed(3)
    alpha = cr.tensor([0.05, 0.7, 3.0, 250.0], dtype=cr.float64, requires_grad=True)
    rate = cr.tensor([2.0, 0.5, 1.0, 3.0], dtype=cr.float64, requires_grad=True)
    x = cr.distributions.Gamma(alpha, rate).rsample((5,))
    x.sum().backward()
    g = (x * rate).detach().numpy()  # the standard gamma draws
    a = np.broadcast_to(alpha.detach().numpy(), g.shape)
    want_alpha = (_gamma_fd(a, g) / rate.detach().numpy()).sum(0)
    np.testing.assert_allclose(alpha.grad.numpy(), want_alpha, rtol=1e-8)
    # d(G/β)/dβ = -G/β²
    np.testing.assert_allclose(
        rate.grad.numpy(), -(x.detach().numpy() / rate.detach().numpy()).sum(0), rtol=1e-13
    )


def test_student_t_rsample_gradient_in_all_three_parameters():
    # x = μ + σ y, y = X √(ν/Z), X ~ N(0, 1), Z = 2G ~ χ²(ν), G ~ Gamma(ν/2, 1):
    # dx/dμ = 1, dx/dσ = y, dx/dν = σ y (1/(2ν) - (dZ/dν)/(2Z)), dZ/dν = dG/dα at α = ν/2
    cr.manual_seed(4)
    loc = cr.tensor([0.5, -1.0], dtype=cr.float64, requires_grad=True)
    scale = cr.tensor([1.5, 0.3], dtype=cr.float64, requires_grad=True)
    df = cr.tensor([3.0, 8.0], dtype=cr.float64, requires_grad=True)
    x = cr.distributions.StudentT(df, loc, scale).rsample((4,))
    x.sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), [4.0, 4.0])
    y = ((x.detach() - loc.detach()) / scale.detach()).numpy()
    np.testing.assert_allclose(scale.grad.numpy(), y.sum(0), rtol=1e-13)
    cr.manual_seed(4)  # the same draws again: X first, then G
    cr.randn((4, 2), dtype=cr.float64)
    half = (df.detach() / 2).expand(4, 2)
    g = cr._standard_gamma(half)
    dz = cr._standard_gamma_grad(half, g).numpy()
    nu, z = df.detach().numpy(), 2 * g.numpy()
    want = (scale.detach().numpy() * y * (1 / (2 * nu) - dz / (2 * z))).sum(0)
    np.testing.assert_allclose(df.grad.numpy(), want, rtol=1e-12)


def _beta_fd(x, a, b):
    """-(∂I_x(a, b)/∂a)/(f(x; a, b)(1 - x)) by Richardson-extrapolated central differences
    of SciPy's regularized incomplete beta function."""
    h = 1e-4 * a
    d1 = (sp.betainc(a + h, b, x) - sp.betainc(a - h, b, x)) / (2 * h)
    d2 = (sp.betainc(a + 2 * h, b, x) - sp.betainc(a - 2 * h, b, x)) / (4 * h)
    density = np.exp((a - 1) * np.log(x) + (b - 1) * np.log1p(-x) - sp.betaln(a, b))
    return -(4 * d1 - d2) / 3 / density / (1 - x)


def test_dirichlet_rsample_gradient_is_torchs_formula():
    # ∂L/∂α_j = D_j (g_j - Σ_i x_i g_i), D_j the implicit derivative of the Beta(α_j, Σα - α_j)
    # marginal draw (what PyTorch's Dirichlet.rsample takes)
    cr.manual_seed(5)
    alpha = cr.tensor([[0.5, 2.0, 1.5], [3.0, 0.2, 7.0]], dtype=cr.float64, requires_grad=True)
    x = cr.distributions.Dirichlet(alpha).rsample()
    w = np.array([[1.0, -2.0, 0.5], [0.3, 0.1, 2.0]])
    (x * cr.tensor(w)).sum().backward()
    xv, av = x.detach().numpy(), alpha.detach().numpy()
    total = av.sum(-1, keepdims=True)
    d = _beta_fd(xv, av, total - av)
    want = d * (w - (xv * w).sum(-1, keepdims=True))
    np.testing.assert_allclose(alpha.grad.numpy(), want, rtol=1e-7, atol=1e-12)


def test_beta_rsample_gradient_through_the_dirichlet():
    # x ~ Beta(α, β) as the first coordinate of Dirichlet(α, β): dx/dα = D(x; α, α + β)(1 - x)
    cr.manual_seed(6)
    a = cr.tensor([0.7, 4.0], dtype=cr.float64, requires_grad=True)
    b = cr.tensor([2.0, 1.5], dtype=cr.float64, requires_grad=True)
    x = cr.distributions.Beta(a, b).rsample()
    x.sum().backward()
    xv, av, bv = x.detach().numpy(), a.detach().numpy(), b.detach().numpy()
    np.testing.assert_allclose(a.grad.numpy(), _beta_fd(xv, av, bv) * (1 - xv), rtol=1e-7)
    # dx/dβ: by symmetry 1 - x ~ Beta(β, α), so dx/dβ = -D(1 - x; β, α + β) x
    np.testing.assert_allclose(b.grad.numpy(), -_beta_fd(1 - xv, bv, av) * xv, rtol=1e-7)


def test_negative_binomial_has_no_rsample_and_samples_integers():
    cr.manual_seed(7)
    d = cr.distributions.NegativeBinomial(cr.tensor([3.0]), logits=cr.tensor([0.4]))
    s = d.sample((100,))
    assert (s.numpy() == np.floor(s.numpy())).all() and (s.numpy() >= 0).all()
    with pytest.raises(NotImplementedError):
        d.rsample()
    assert math.isclose(float(d.mean), 3.0 * math.exp(0.4), rel_tol=1e-6)
