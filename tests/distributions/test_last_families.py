"""``FisherSnedecor``, ``GeneralizedPareto``, ``InverseGamma``, ``LKJCholesky`` and
``Wishart`` against ``torch.distributions``: log densities, entropies, moments, CDFs and
the KL divergence of two Wisharts with their gradients (float64), reprs, shapes,
``expand``, supports and the errors and warnings of the checks; samples by their shapes,
supports and moments (the random streams differ), LKJ samples against the Beta marginal of
a correlation; the reparameterized gradients of ``rsample`` against closed forms and
finite differences, and Wishart's redraws of singular samples."""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pytest
import scipy.stats as st
import torch

import chainrule as cr
from oracle import compare, error_of


def _t(lib, values, grad=True):
    return lib.tensor(np.asarray(values, dtype=np.float64), requires_grad=grad)


SIGMA = [[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 1.5]]
PRECISION = [[1.0, -0.4], [-0.4, 0.5]]


def _corr_cholesky(matrix):
    return np.linalg.cholesky(np.asarray(matrix, dtype=np.float64))


CORR3 = [[1.0, 0.3, -0.2], [0.3, 1.0, 0.5], [-0.2, 0.5, 1.0]]
CORR3B = [[1.0, -0.6, 0.1], [-0.6, 1.0, 0.0], [0.1, 0.0, 1.0]]


def _families(lib):
    D = lib.distributions
    return {
        "fisher snedecor": lambda: D.FisherSnedecor(
            _t(lib, [1.5, 3.0, 6.0, 0.7]), _t(lib, [2.5, 4.5, 9.0, 1.5])
        ),
        "fisher snedecor of numbers": lambda: D.FisherSnedecor(4.0, 7.5),
        "generalized pareto": lambda: D.GeneralizedPareto(
            _t(lib, [0.1, 0.0, -1.0, 0.5]),
            _t(lib, [2.0, 1.0, 0.5, 1.5]),
            _t(lib, [0.4, -0.5, 0.0, 1.2]),
        ),
        "generalized pareto uniform": lambda: D.GeneralizedPareto(
            _t(lib, [0.0, 1.0]), _t(lib, [2.0, 3.0]), _t(lib, [-1.0, -1.0])
        ),
        "inverse gamma": lambda: D.InverseGamma(
            _t(lib, [0.5, 1.5, 3.0, 5.0]), _t(lib, [2.0, 0.7, 1.0, 4.0])
        ),
        "inverse gamma of numbers": lambda: D.InverseGamma(3.5, 2.0),
        "lkj cholesky": lambda: D.LKJCholesky(3, _t(lib, [0.5, 1.0, 2.5])),
        "lkj cholesky of dim 2": lambda: D.LKJCholesky(2, _t(lib, 1.7)),
        "wishart of a covariance": lambda: D.Wishart(
            _t(lib, [3.5, 4.5, 7.0]), covariance_matrix=_t(lib, SIGMA)
        ),
        "wishart of a precision": lambda: D.Wishart(
            _t(lib, 3.5), precision_matrix=_t(lib, PRECISION)
        ),
        "wishart of a scale tril": lambda: D.Wishart(
            6.0, scale_tril=_t(lib, np.linalg.cholesky(np.asarray(SIGMA)))
        ),
    }


_S = np.asarray(SIGMA)
_P = np.asarray(PRECISION)
VALUES = {
    "fisher snedecor": [[0.5, 1.0, 3.0, 0.01], [2.0, 0.2, 0.9, 7.0]],
    "fisher snedecor of numbers": [0.3, 4.0],
    "generalized pareto": [[0.5, 1.0, -0.2, 0.5], [10.0, 0.1, 3.0, 40.0]],
    "generalized pareto uniform": [[0.5, 3.9], [1.5, 2.0]],
    "inverse gamma": [[0.5, 1.0, 3.0, 0.1], [2.0, 0.2, 0.9, 7.0]],
    "inverse gamma of numbers": [0.3, 4.0],
    "lkj cholesky": [[_corr_cholesky(CORR3)], [_corr_cholesky(CORR3B)]],
    "lkj cholesky of dim 2": [np.eye(2), _corr_cholesky([[1.0, 0.7], [0.7, 1.0]])],
    "wishart of a covariance": [[_S], [2 * _S + np.eye(3)]],
    "wishart of a precision": [np.eye(2), [[3.0, 1.0], [1.0, 0.6]]],
    "wishart of a scale tril": [_S, np.diag([1.0, 2.0, 3.0])],
}

CDFS = ("generalized pareto",)
ICDF_AT = {
    "generalized pareto": [[0.1, 0.5, 0.9, 0.3], [0.99, 0.02, 0.6, 0.75]],
    "generalized pareto uniform": [[0.1, 0.5], [0.99, 0.02]],
}
NO_ENTROPY = ("fisher snedecor", "lkj cholesky")
MOMENTS = ("fisher snedecor", "generalized pareto", "inverse gamma", "wishart")


@contextlib.contextmanager
def _float64_by_default(lib, family):
    """PyTorch's GeneralizedPareto compares ξ with ``tensor(0.0)`` (the default dtype), so
    its log_prob and cdf run on float64 parameters only under a float64 default."""
    if not family.startswith("generalized pareto"):
        yield
        return
    before = lib.get_default_dtype()
    lib.set_default_dtype(lib.float64)
    try:
        yield
    finally:
        lib.set_default_dtype(before)


@pytest.mark.parametrize("family", list(VALUES))
def test_densities_moments_and_gradients_as_torch(family):
    def run(lib):
        with _float64_by_default(lib, family):
            d = _families(lib)[family]()
            value = _t(lib, VALUES[family], False)
            out = {
                "repr": repr(d),
                "shapes": (tuple(d.batch_shape), tuple(d.event_shape)),
                "has_rsample": d.has_rsample,
                "log_prob": d.log_prob(value),
            }
            if family.startswith(MOMENTS):
                out |= {"mean": d.mean, "mode": d.mode, "variance": d.variance}
                out["stddev"] = d.stddev
            if not family.startswith(NO_ENTROPY):
                out["entropy"] = d.entropy()
            if family.startswith(CDFS):
                u = _t(lib, ICDF_AT[family], False)
                out |= {"cdf": d.cdf(value), "icdf": d.icdf(u), "log_cdf": d.log_cdf(value)}
                out["log_survival_function"] = d.log_survival_function(value)
                out["support"] = repr(d.support)
            if family.startswith("inverse gamma"):
                out["parameters"] = (d.concentration, d.rate)
            if family.startswith("wishart"):
                out |= {"matrices": (d.covariance_matrix, d.precision_matrix, d.scale_tril)}
            leaves = [v for v in _leaves(lib, d) if v.requires_grad]
            leaves = list({id(v): v for v in leaves}.values())
            total = sum(
                v.nan_to_num(0.0, 0.0, 0.0).sum()  # (nan and inf moments carry no gradient)
                for k, v in out.items()
                if isinstance(v, lib.Tensor) and v.is_floating_point()
            )
            grads = lib.autograd.grad(total, leaves, allow_unused=True) if leaves else ()
            return out, grads

    # gradients to 1e-8 (1e-9 absolute): they go through ψ and ψ', which PyTorch's
    # digamma/trigamma get right to ~5e-10 only
    float32 = family.endswith("of numbers")
    compare(lambda lib: run(lib)[0], rtol=1e-6 if float32 else 1e-12, atol=1e-14)
    compare(lambda lib: run(lib)[1], rtol=1e-8, atol=1e-9)


def _leaves(lib, d):
    for v in vars(d).values():
        if isinstance(v, lib.Tensor) and v.is_leaf:
            yield v
        elif isinstance(v, lib.Tensor) and v.grad_fn is not None:  # (expanded parameters)
            stack = [v.grad_fn]
            while stack:
                fn = stack.pop()
                if hasattr(fn, "variable"):
                    yield fn.variable
                stack.extend(f for f, _ in fn.next_functions if f is not None)
        elif isinstance(v, lib.distributions.Distribution):
            yield from _leaves(lib, v)


def test_generalized_pareto_in_float64_is_scipys_genpareto():
    # PyTorch's fails here without a float64 default (see the class docstring); SciPy's
    # genpareto has shape c = ξ, loc μ, scale σ
    loc, scale, xi = (
        np.array([0.1, 0.0, -1.0]),
        np.array([2.0, 1.0, 0.5]),
        np.array([0.4, -0.5, 0.0]),
    )
    d = cr.distributions.GeneralizedPareto(cr.tensor(loc), cr.tensor(scale), cr.tensor(xi))
    x = np.array([1.5, 1.2, 0.3])
    law = st.genpareto(xi, loc=loc, scale=scale)
    np.testing.assert_allclose(d.log_prob(cr.tensor(x)).numpy(), law.logpdf(x), rtol=1e-13)
    np.testing.assert_allclose(d.cdf(cr.tensor(x)).numpy(), law.cdf(x), rtol=1e-13)
    u = np.array([0.2, 0.5, 0.95])
    np.testing.assert_allclose(d.icdf(cr.tensor(u)).numpy(), law.ppf(u), rtol=1e-13)
    np.testing.assert_allclose(d.entropy().numpy(), law.entropy(), rtol=1e-13)
    with pytest.raises(RuntimeError, match="Double did not match Float"):
        torch.distributions.GeneralizedPareto(
            torch.tensor(loc), torch.tensor(scale), torch.tensor(xi)
        ).log_prob(torch.tensor(x))


def test_generalized_pareto_support_ends_where_the_concentration_is_negative():
    d = cr.distributions.GeneralizedPareto(
        cr.tensor([0.0, 1.0, 1.0]), cr.tensor([1.0, 2.0, 2.0]), cr.tensor([0.5, 0.0, -0.5])
    )
    support = d.support
    np.testing.assert_array_equal(support.lower_bound.numpy(), [0.0, 1.0, 1.0])
    np.testing.assert_array_equal(support.upper_bound.numpy(), [np.inf, np.inf, 5.0])
    inside = support.check(cr.tensor([[0.0, 1e6, 5.0], [-0.1, 0.9, 5.1]])).numpy()
    np.testing.assert_array_equal(inside, [[True, True, True], [False, False, False]])


def test_inverse_gamma_and_fisher_snedecor_are_scipys():
    ig = cr.distributions.InverseGamma(_t(cr, [0.5, 3.0], False), _t(cr, [2.0, 1.5], False))
    x = np.array([0.7, 2.5])
    want = st.invgamma([0.5, 3.0], scale=[2.0, 1.5])
    np.testing.assert_allclose(ig.log_prob(cr.tensor(x)).numpy(), want.logpdf(x), rtol=1e-13)
    np.testing.assert_allclose(ig.entropy().numpy(), want.entropy(), rtol=1e-13)
    f = cr.distributions.FisherSnedecor(_t(cr, [1.5, 6.0], False), _t(cr, [2.5, 9.0], False))
    law = st.f([1.5, 6.0], [2.5, 9.0])
    np.testing.assert_allclose(f.log_prob(cr.tensor(x)).numpy(), law.logpdf(x), rtol=1e-13)


def test_wishart_is_scipys():
    W = cr.distributions.Wishart(_t(cr, 4.5, False), covariance_matrix=_t(cr, SIGMA, False))
    x = 2 * _S + np.eye(3)
    law = st.wishart(df=4.5, scale=_S)
    np.testing.assert_allclose(float(W.log_prob(cr.tensor(x))), law.logpdf(x), rtol=1e-13)
    np.testing.assert_allclose(float(W.entropy()), law.entropy(), rtol=1e-13)


def test_lkj_log_prob_of_dim_2_is_the_beta_density_of_the_correlation():
    # for d = 2, r = L_10 has (r + 1)/2 ~ Beta(η, η); L_11 = √(1 - r²), and the density of
    # the factor, as a density of r, is the Beta's times 1/2
    eta, r = np.array([0.5, 1.0, 3.0]), np.array([0.3, -0.8, 0.6])
    L = np.zeros((3, 2, 2))
    L[:, 0, 0], L[:, 1, 0], L[:, 1, 1] = 1.0, r, np.sqrt(1 - r**2)
    d = cr.distributions.LKJCholesky(2, cr.tensor(eta))
    want = st.beta(eta, eta).logpdf((r + 1) / 2) - np.log(2)
    np.testing.assert_allclose(d.log_prob(cr.tensor(L)).numpy(), want, rtol=1e-13)


# ----- KL divergences -------------------------------------------------------------------------


def test_kl_of_two_wisharts_as_torch():
    def run(L):
        D = L.distributions
        p = D.Wishart(_t(L, [4.5, 7.0]), covariance_matrix=_t(L, SIGMA))
        q = D.Wishart(_t(L, 3.5), scale_tril=_t(L, np.diag([1.0, 0.5, 2.0])))
        kl = D.kl_divergence(p, q)
        leaves = [v for d in (p, q) for v in _leaves(L, d) if v.requires_grad]
        leaves = list({id(v): v for v in leaves}.values())
        return kl, L.autograd.grad(kl.sum(), leaves, allow_unused=True)

    compare(lambda L: run(L)[0], rtol=1e-12, atol=1e-14)
    compare(lambda L: run(L)[1], rtol=1e-8, atol=1e-9)


# ----- expand ---------------------------------------------------------------------------------

EXPAND = {
    "fisher snedecor": ((3, 4), [0.5, 1.0, 3.0, 0.01]),
    "generalized pareto": ((2, 4), [0.5, 1.0, -0.2, 0.5]),
    "inverse gamma": ((3, 4), [0.5, 1.0, 3.0, 0.1]),
    "inverse gamma of numbers": ((2, 3), [0.3, 4.0, 1.0]),
    "lkj cholesky": ((2, 3), _corr_cholesky(CORR3)),
    "lkj cholesky of dim 2": ((4,), np.eye(2)),
    "wishart of a covariance": ((2, 3), _S),
    "wishart of a precision": ((4,), np.eye(2)),
}


@pytest.mark.parametrize("family", list(EXPAND))
def test_expand_as_torch(family):
    shape, value = EXPAND[family]

    def run(lib):
        with _float64_by_default(lib, family):
            d = _families(lib)[family]().expand(shape)
            out = [repr(d), tuple(d.batch_shape), tuple(d.event_shape)]
            out.append(d.log_prob(_t(lib, value, False)))
            if family.startswith(MOMENTS):
                out += [d.mean, d.variance]
            if not family.startswith(NO_ENTROPY):
                out.append(d.entropy())
            with warnings.catch_warnings():
                # (PyTorch's Wishart warns "Singular sample detected." on regular samples)
                warnings.simplefilter("ignore")
                out.append(tuple(d.sample((2,)).shape))
            return out

    compare(run, rtol=1e-12, atol=1e-14)


def test_expand_to_an_impossible_shape_raises_as_torch():
    for make in (
        lambda L: L.distributions.FisherSnedecor(L.ones(2), 1.0),
        lambda L: L.distributions.LKJCholesky(2, L.ones(2)),
        lambda L: L.distributions.Wishart(L.ones(2) * 3, covariance_matrix=L.eye(2)),
    ):
        fn = lambda L, make=make: make(L).expand((3,))  # noqa: E731
        want, got = error_of(fn, torch), error_of(fn, cr)
        assert (type(got), str(got)) == (type(want), str(want))


# ----- errors and warnings ----------------------------------------------------------------


ERRORS = {
    "a negative df1": lambda D, L: D.FisherSnedecor(L.tensor([-1.0]), 2.0),
    "a zero df2": lambda D, L: D.FisherSnedecor(1.0, L.tensor([0.0])),
    "a negative value for an F": lambda D, L: D.FisherSnedecor(1.0, 2.0).log_prob(L.tensor([-1.0])),
    "a negative generalized pareto scale": lambda D, L: D.GeneralizedPareto(
        0.0, L.tensor([-1.0]), 0.5
    ),
    "a value below the generalized pareto loc": lambda D, L: D.GeneralizedPareto(
        1.0, 1.0, 0.5
    ).log_prob(L.tensor([0.5])),
    "a value above the bounded support": lambda D, L: D.GeneralizedPareto(
        L.tensor([0.0]), L.tensor([1.0]), L.tensor([-0.5])
    ).log_prob(L.tensor([2.5])),
    "a negative inverse gamma concentration": lambda D, L: D.InverseGamma(L.tensor([-1.0]), 1.0),
    "a zero inverse gamma rate": lambda D, L: D.InverseGamma(1.0, L.tensor([0.0])),
    "a negative value for an inverse gamma": lambda D, L: D.InverseGamma(2.0, 1.0).log_prob(
        L.tensor([-1.0])
    ),
    "an lkj of dim 1": lambda D, L: D.LKJCholesky(1),
    "a negative lkj concentration": lambda D, L: D.LKJCholesky(3, L.tensor([-1.0])),
    "a factor whose rows are not unit": lambda D, L: D.LKJCholesky(2).log_prob(
        L.tensor([[1.0, 0.0], [0.5, 0.5]])
    ),
    "an upper factor": lambda D, L: D.LKJCholesky(2).log_prob(L.tensor([[1.0, 0.5], [0.0, 1.0]])),
    "a wishart of two matrices": lambda D, L: D.Wishart(
        3.0, covariance_matrix=L.eye(2), scale_tril=L.eye(2)
    ),
    "a wishart of no matrix": lambda D, L: D.Wishart(3.0),
    "a wishart of a vector": lambda D, L: D.Wishart(3.0, covariance_matrix=L.ones(2)),
    "a wishart df too small": lambda D, L: D.Wishart(1.0, covariance_matrix=L.eye(3)),
    "a wishart df tensor too small": lambda D, L: D.Wishart(
        L.tensor([4.0, 2.0]), covariance_matrix=L.eye(3)
    ),
    "a covariance that is not positive definite": lambda D, L: D.Wishart(
        3.0, covariance_matrix=L.tensor([[1.0, 2.0], [2.0, 1.0]])
    ),
    "a scale tril with a negative diagonal": lambda D, L: D.Wishart(
        3.0, scale_tril=L.tensor([[1.0, 0.0], [0.5, -1.0]])
    ),
    "a wishart value that is not positive definite": lambda D, L: D.Wishart(
        3.0, covariance_matrix=L.eye(2)
    ).log_prob(L.tensor([[1.0, 2.0], [2.0, 1.0]])),
    "a wishart value of another shape": lambda D, L: D.Wishart(
        3.0, covariance_matrix=L.eye(2)
    ).log_prob(L.eye(3)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name):
    fn = lambda L: ERRORS[name](L.distributions, L)  # noqa: E731
    want, got = error_of(fn, torch), error_of(fn, cr)
    assert want is not None
    if name == "a negative lkj concentration":
        # raised (in both) by the Beta of the onion method, whose first concentrations
        # differ from PyTorch's (see LKJCholesky's docstring): all but the values shown
        want, got = (ValueError(str(e).split("found invalid values")[0]) for e in (want, got))
    assert (type(got), str(got)) == (type(want), str(want))


def test_a_low_wishart_df_warns_as_torch():
    def warned(L):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            L.distributions.Wishart(L.tensor([2.5, 3.5]), covariance_matrix=L.eye(3))
        return [(w.category, str(w.message)) for w in caught]

    assert (
        warned(cr)
        == warned(torch)
        == [
            (
                UserWarning,
                "Low df values detected. Singular samples are highly likely to occur for "
                "ndim - 1 < df < ndim.",
            )
        ]
    )


# ----- samples ------------------------------------------------------------------------------

N = 20000

# name -> the distribution (float32 parameters) with finite fourth moments
SAMPLES = {
    "fisher snedecor": lambda D: D.FisherSnedecor(
        cr.tensor([1.0, 5.0, 30.0]), cr.tensor([12.0, 20.0, 40.0])
    ),
    "generalized pareto": lambda D: D.GeneralizedPareto(
        cr.tensor([0.0, 1.0, -2.0]), cr.tensor([1.0, 2.0, 0.5]), cr.tensor([0.2, 0.0, -0.7])
    ),
    "inverse gamma": lambda D: D.InverseGamma(
        cr.tensor([6.0, 9.0, 30.0]), cr.tensor([1.0, 0.5, 4.0])
    ),
}


def _within_four_standard_errors(values, mean, var):
    # of the mean σ/√n, of the variance √((μ4 - σ⁴)/n), bounded by the sample's fourth
    # central moment
    n = values.shape[0]
    assert (np.abs(values.mean(0) - mean) < 4 * np.sqrt(var / n)).all()
    fourth = ((values - values.mean(0)) ** 4).mean(0)
    assert (np.abs(values.var(0) - var) < 4 * np.sqrt((fourth - var**2) / n)).all()


@pytest.mark.parametrize("name", list(SAMPLES))
def test_samples_have_the_shape_support_mean_and_variance(name):
    cr.manual_seed(0)
    d = SAMPLES[name](cr.distributions)
    assert d.has_rsample
    s = d.sample((N,))
    assert tuple(s.shape) == (N, 3) and s.dtype == cr.float32 and not s.requires_grad
    assert bool(d.support.check(s).all())
    _within_four_standard_errors(s.numpy().astype(np.float64), d.mean.numpy(), d.variance.numpy())


def test_wishart_samples_are_positive_definite_with_the_mean_and_variance():
    cr.manual_seed(1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no singular samples, no warning)
        d = cr.distributions.Wishart(cr.tensor([3.5, 8.0]), covariance_matrix=cr.tensor(SIGMA))
        s = d.sample((N // 2,))
    assert tuple(s.shape) == (N // 2, 2, 3, 3) and s.dtype == cr.float32
    assert not s.requires_grad and bool(d.support.check(s).all())
    values = s.numpy().astype(np.float64).reshape(N // 2, 2, 9)
    mean = d.mean.numpy().reshape(2, 9)
    var = d.variance.numpy().reshape(2, 9)
    _within_four_standard_errors(values, mean, var)


@pytest.mark.parametrize("dim,eta", [(2, 0.6), (2, 3.0), (4, 1.0), (5, 2.5)])
def test_lkj_samples_are_correlation_factors_with_the_beta_marginal(dim, eta):
    # every off-diagonal correlation r of LKJ(d, η) has (r + 1)/2 ~ Beta(β, β),
    # β = η - 1 + d/2 (Lewandowski, Kurowicka and Joe 2009, section 3.2)
    cr.manual_seed(0)
    d = cr.distributions.LKJCholesky(dim, cr.tensor([eta, eta], dtype=cr.float64))
    assert not d.has_rsample
    with pytest.raises(NotImplementedError):
        d.rsample()
    s = d.sample((4000,))
    assert tuple(s.shape) == (4000, 2, dim, dim) and s.dtype == cr.float64
    assert not s.requires_grad and bool(d.support.check(s).all())
    L = s.numpy()
    corr = L @ np.swapaxes(L, -1, -2)
    np.testing.assert_allclose(np.diagonal(corr, axis1=-2, axis2=-1), 1.0, rtol=1e-12)
    b = eta - 1 + dim / 2
    law = st.beta(b, b)
    i, j = np.tril_indices(dim, -1)
    for k in range(len(i)):
        r = corr[..., i[k], j[k]].reshape(-1)
        assert st.kstest((r + 1) / 2, law.cdf).pvalue > 1e-4
        _within_four_standard_errors(r.reshape(-1, 1), 0.0, 1.0 / (2 * b + 1))


# ----- reparameterized gradients ----------------------------------------------------------


def test_fisher_snedecor_rsample_gradient_through_both_gammas():
    # y = (g1/d1)/(g2/d2), g_i ~ Gamma(d_i/2, 1):
    # dy/dd1 = y (g1'/(2 g1) - 1/d1), dy/dd2 = y (1/d2 - g2'/(2 g2)), g' = dg/dα
    cr.manual_seed(3)
    df1 = cr.tensor([1.5, 6.0], dtype=cr.float64, requires_grad=True)
    df2 = cr.tensor([2.5, 9.0], dtype=cr.float64, requires_grad=True)
    y = cr.distributions.FisherSnedecor(df1, df2).rsample((4,))
    y.sum().backward()
    cr.manual_seed(3)  # the same draws again: g1 first, then g2
    a1, a2 = (df1.detach() / 2).expand(4, 2), (df2.detach() / 2).expand(4, 2)
    g1 = cr._standard_gamma(a1)
    g2 = cr._standard_gamma(a2)
    dg1, dg2 = cr._standard_gamma_grad(a1, g1).numpy(), cr._standard_gamma_grad(a2, g2).numpy()
    g1, g2, yv = g1.numpy(), g2.numpy(), y.detach().numpy()
    d1, d2 = df1.detach().numpy(), df2.detach().numpy()
    np.testing.assert_allclose(yv, (g1 / d1) / (g2 / d2), rtol=1e-13)
    np.testing.assert_allclose(
        df1.grad.numpy(), (yv * (dg1 / (2 * g1) - 1 / d1)).sum(0), rtol=1e-11
    )
    np.testing.assert_allclose(
        df2.grad.numpy(), (yv * (1 / d2 - dg2 / (2 * g2))).sum(0), rtol=1e-11
    )


def test_inverse_gamma_rsample_gradient_through_the_gamma():
    # x = β/g, g ~ Gamma(α, 1): dx/dβ = 1/g, dx/dα = -β g'/g²
    cr.manual_seed(4)
    a = cr.tensor([0.7, 4.0], dtype=cr.float64, requires_grad=True)
    b = cr.tensor([2.0, 1.5], dtype=cr.float64, requires_grad=True)
    x = cr.distributions.InverseGamma(a, b).rsample((3,))
    x.sum().backward()
    cr.manual_seed(4)
    g = cr._standard_gamma(a.detach().expand(3, 2))
    dg = cr._standard_gamma_grad(a.detach().expand(3, 2), g).numpy()
    g, bv = g.numpy(), b.detach().numpy()
    np.testing.assert_allclose(x.detach().numpy(), bv / g, rtol=1e-13)
    np.testing.assert_allclose(b.grad.numpy(), (1 / g).sum(0), rtol=1e-12)
    np.testing.assert_allclose(a.grad.numpy(), (-bv * dg / g**2).sum(0), rtol=1e-11)


def test_generalized_pareto_rsample_gradient_is_that_of_the_icdf():
    # x = μ + σ ((1 - u)^(-ξ) - 1)/ξ: dx/dμ = 1, dx/dσ = (x - μ)/σ,
    # dx/dξ = σ (ξℓ e^(ξℓ) - (e^(ξℓ) - 1))/ξ², ℓ = -log(1 - u)
    cr.manual_seed(5)
    loc = cr.tensor([0.5, -1.0, 0.0], dtype=cr.float64, requires_grad=True)
    scale = cr.tensor([1.5, 0.3, 2.0], dtype=cr.float64, requires_grad=True)
    xi = cr.tensor([0.4, -0.3, 0.0], dtype=cr.float64, requires_grad=True)
    x = cr.distributions.GeneralizedPareto(loc, scale, xi).rsample((4,))
    x.sum().backward()
    cr.manual_seed(5)
    u = cr.rand((4, 3), dtype=cr.float64).numpy()
    ell = -np.log1p(-u)
    m, s, k = loc.detach().numpy(), scale.detach().numpy(), np.array([0.4, -0.3, 1.0])
    want_x = m + s * np.expm1(k * ell) / k  # (ξ = 1 stands in for 0 in the third column)
    want_x[:, 2] = m[2] + s[2] * ell[:, 2]  # (ξ = 0: the exponential, μ + σℓ)
    np.testing.assert_allclose(x.detach().numpy(), want_x, rtol=1e-13)
    np.testing.assert_allclose(loc.grad.numpy(), [4.0, 4.0, 4.0])
    np.testing.assert_allclose(scale.grad.numpy(), ((want_x - m) / s).sum(0), rtol=1e-13)
    dxi = s * (ell * np.exp(k * ell) * k - np.expm1(k * ell)) / k**2
    dxi[:, 2] = 0.0  # (the exponential branch does not depend on ξ)
    np.testing.assert_allclose(xi.grad.numpy(), dxi.sum(0), rtol=1e-12, atol=1e-15)


def test_wishart_rsample_gradient_in_the_scale_and_the_df():
    # p = 2, L lower: X = L A Aᵀ Lᵀ, A = [[a, 0], [n, b]], a = √(2 g1), b = √(2 g2),
    # g1 ~ Gamma(ν/2, 1), g2 ~ Gamma((ν - 1)/2, 1), n ~ N(0, 1)
    cr.manual_seed(6)
    df = cr.tensor(3.5, dtype=cr.float64, requires_grad=True)
    L = cr.tensor([[1.2, 0.0], [0.4, 0.7]], dtype=cr.float64, requires_grad=True)
    X = cr.distributions.Wishart(df, scale_tril=L).rsample((3,))
    W = np.array([[1.0, -0.5], [0.3, 2.0]])
    (X * cr.tensor(W)).sum().backward()
    cr.manual_seed(6)  # the same draws: the χ² gammas, then the normals
    alpha = cr.tensor([3.5 / 2, 2.5 / 2], dtype=cr.float64).expand(3, 2)
    g = cr._standard_gamma(alpha)
    dg = cr._standard_gamma_grad(alpha, g).numpy()
    n = cr.randn((3, 1), dtype=cr.float64).numpy()[:, 0]
    g = g.numpy()
    a, b = np.sqrt(2 * g[:, 0]), np.sqrt(2 * g[:, 1])
    A = np.zeros((3, 2, 2))
    A[:, 0, 0], A[:, 1, 0], A[:, 1, 1] = a, n, b
    Lv = L.detach().numpy()
    np.testing.assert_allclose(X.detach().numpy(), Lv @ A @ A.transpose(0, 2, 1) @ Lv.T, rtol=1e-13)
    # d tr(Wᵀ L M Lᵀ)/dL = (W + Wᵀ) L M, M = A Aᵀ (symmetric)
    M = A @ A.transpose(0, 2, 1)
    np.testing.assert_allclose(L.grad.numpy(), ((W + W.T) @ Lv @ M).sum(0), rtol=1e-12)
    # dA/dν: da/dν = g1'/(2a), db/dν = g2'/(2b); d tr(Wᵀ L A Aᵀ Lᵀ) = tr(G (dA Aᵀ + A dAᵀ)),
    # G = Lᵀ W L, = tr((G + Gᵀ) A dAᵀ)
    G = Lv.T @ W @ Lv
    dA = np.zeros_like(A)
    dA[:, 0, 0], dA[:, 1, 1] = dg[:, 0] / (2 * a), dg[:, 1] / (2 * b)
    want = np.einsum("ij,sjk,sik->", G + G.T, A, dA)
    np.testing.assert_allclose(float(df.grad), want, rtol=1e-11)


def test_wishart_redraws_singular_samples_with_a_warning():
    d = cr.distributions.Wishart(cr.tensor([4.0, 5.0]), covariance_matrix=cr.eye(2))
    good = d._bartlett_sampling((3,))
    singular = good.clone()
    singular[1, 0] = 0.0  # (one matrix of the second sample's batch)
    draws = []

    def bartlett(sample_shape=()):
        draws.append(tuple(sample_shape))
        return singular.clone() if not draws[1:] else good[: sample_shape[0]].clone()

    d._bartlett_sampling = bartlett
    with pytest.warns(UserWarning, match="^Singular sample detected.$"):
        s = d.rsample((3,))
    assert draws == [(3,), (1,)] and bool(d.support.check(s).all())
    np.testing.assert_array_equal(s[1].numpy(), good[0].numpy())

    draws.clear()
    with pytest.warns(UserWarning, match="Singular sample detected."):
        s = d.rsample((3,), max_try_correction=0)  # (kept as drawn, singular)
    assert draws == [(3,)] and not bool(d.support.check(s[1]).all())


def test_lkj_and_wishart_samples_of_an_expanded_batch():
    cr.manual_seed(7)
    lkj = cr.distributions.LKJCholesky(3, 2.0).expand((2, 5))
    s = lkj.sample((4,))
    assert tuple(s.shape) == (4, 2, 5, 3, 3) and s.dtype == cr.float32
    assert bool(lkj.support.check(s).all())
    w = cr.distributions.Wishart(4.0, covariance_matrix=cr.eye(3)).expand((2,))
    assert tuple(w.rsample((4,)).shape) == (4, 2, 3, 3)
