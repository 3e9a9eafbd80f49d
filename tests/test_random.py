"""Random numbers against PyTorch: Generator objects (seeding, state, independence),
``generator=`` on every sampler, the in-place samplers and normal/bernoulli/poisson/
multinomial, the reparameterized gamma and Dirichlet draws and their gradients (against
finite differences of the CDFs, and PyTorch's approximations). chainrule's streams are not PyTorch's, so the distributions are compared by
statistics (mean, variance, range, dtype) over many samples, and reproducibility by
drawing twice; node names, gradients (zero) and errors against torch directly."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import assert_same_error

N = 200_000  # samples for the statistics: the standard error of a mean is ~0.002σ


def _stats(t) -> tuple[float, float]:
    a = np.asarray(t.numpy(), dtype=np.float64)
    return float(a.mean()), float(a.var())


# ----- Generator --------------------------------------------------------------------------


def test_generator_own_stream_and_reproducible():
    g = cr.Generator().manual_seed(7)
    a = cr.rand(5, generator=g)
    cr.manual_seed(7)
    b = cr.rand(5)  # the global stream seeded alike gives the same numbers
    g.manual_seed(7)
    c = cr.rand(5, generator=g)
    assert np.array_equal(a.numpy(), c.numpy())
    assert np.array_equal(a.numpy(), b.numpy())


def test_generators_are_independent():
    g1, g2 = cr.Generator().manual_seed(1), cr.Generator().manual_seed(1)
    first = cr.randn(4, generator=g1)
    cr.randn(100)  # the global stream moves; g2 does not
    assert np.array_equal(first.numpy(), cr.randn(4, generator=g2).numpy())
    g1.manual_seed(2)
    assert not np.array_equal(cr.randn(4, generator=g1).numpy(), first.numpy())


def test_generator_state_roundtrip():
    g = cr.Generator().manual_seed(11)
    cr.rand(3, generator=g)
    state = g.get_state()
    assert state.dtype == cr.uint8 and state.ndim == 1
    a = cr.randn(6, generator=g)
    g.set_state(state)
    assert np.array_equal(a.numpy(), cr.randn(6, generator=g).numpy())
    assert g.initial_seed() == 11


def test_global_generator_functions():
    assert isinstance(cr.default_generator, cr.Generator)
    assert cr.manual_seed(5) is cr.default_generator
    assert cr.initial_seed() == 5
    s = cr.get_rng_state()
    a = cr.rand(4)
    cr.set_rng_state(s)
    assert np.array_equal(a.numpy(), cr.rand(4).numpy())
    new = cr.seed()
    assert cr.initial_seed() == new


@pytest.mark.parametrize("lib", [cr, torch], ids=["cr", "torch"])
def test_generator_attributes(lib):
    g = lib.Generator()
    assert g.initial_seed() == 67280421310721
    assert str(g.device) == "cpu"
    assert g.manual_seed(-1).initial_seed() == 2**64 - 1
    assert isinstance(g.seed(), int)


GENERATOR_ERRORS = {
    "set_state_not_bytes": lambda L: L.Generator().set_state(L.zeros(3)),
    "set_state_wrong_size": lambda L: L.Generator().set_state(L.zeros(3, dtype=L.uint8)),
    "seed_float": lambda L: L.Generator().manual_seed(1.5),
    "seed_overflow": lambda L: L.Generator().manual_seed(2**64),
}


@pytest.mark.parametrize("name", list(GENERATOR_ERRORS))
def test_generator_errors(name):
    assert_same_error(GENERATOR_ERRORS[name])


# every sampler that takes generator=: the same seed gives the same numbers
SAMPLERS = {
    "rand": lambda L, g: L.rand(3, 2, generator=g),
    "randn": lambda L, g: L.randn(3, generator=g),
    "randint": lambda L, g: L.randint(0, 9, (4,), generator=g),
    "randperm": lambda L, g: L.randperm(6, generator=g),
    "rand_like": lambda L, g: L.rand_like(L.zeros(3), generator=g),
    "randn_like": lambda L, g: L.randn_like(L.zeros(3), generator=g),
    "randint_like": lambda L, g: L.randint_like(L.zeros(3), 5, generator=g),
    "normal": lambda L, g: L.normal(L.zeros(3), L.ones(3), generator=g),
    "normal_size": lambda L, g: L.normal(1.0, 2.0, (3,), generator=g),
    "bernoulli": lambda L, g: L.bernoulli(L.full((5,), 0.5), generator=g),
    "multinomial": lambda L, g: L.multinomial(L.ones(5), 3, generator=g),
    "poisson": lambda L, g: L.poisson(L.full((5,), 3.0), generator=g),
    "_standard_gamma": lambda L, g: L._standard_gamma(L.full((5,), 2.5), generator=g),
    "_sample_dirichlet": lambda L, g: L._sample_dirichlet(L.ones(2, 3), generator=g),
    "uniform_": lambda L, g: L.zeros(4).uniform_(generator=g),
    "normal_": lambda L, g: L.zeros(4).normal_(generator=g),
    "random_": lambda L, g: L.zeros(4).random_(generator=g),
    "bernoulli_": lambda L, g: L.zeros(4).bernoulli_(generator=g),
    "exponential_": lambda L, g: L.zeros(4).exponential_(generator=g),
    "geometric_": lambda L, g: L.zeros(4).geometric_(0.3, generator=g),
    "cauchy_": lambda L, g: L.zeros(4).cauchy_(generator=g),
    "log_normal_": lambda L, g: L.zeros(4).log_normal_(generator=g),
    "init_uniform_": lambda L, g: L.nn.init.uniform_(L.zeros(4), generator=g),
    "init_normal_": lambda L, g: L.nn.init.normal_(L.zeros(4), generator=g),
}


@pytest.mark.parametrize("name", list(SAMPLERS))
def test_generator_keyword_reproducible(name):
    fn = SAMPLERS[name]
    want = fn(torch, torch.Generator().manual_seed(3))  # torch takes the same call
    a = fn(cr, cr.Generator().manual_seed(3))
    cr.rand(10)  # the global stream does not matter
    b = fn(cr, cr.Generator().manual_seed(3))
    assert np.array_equal(a.numpy(), b.numpy())
    assert a.shape == want.shape and a.dtype == getattr(cr, str(want.dtype)[6:])


# ----- every device draws the CPU's numbers -----------------------------------------------

# The values are drawn on the host for every device and copied where the tensor is, so the
# same seed gives the same numbers on each: every sampler above on the default device
# (the sweep of tests/test_cuda_standin.py runs this with 'cuda' as the default), and the
# samplers without generator= from the global stream.
ON_EVERY_DEVICE = {
    **SAMPLERS,
    "normal_mean": lambda L, g: L.normal(L.arange(3.0), 1.0, generator=g),
    "normal_std": lambda L, g: L.normal(0.0, L.arange(1.0, 4.0), generator=g),
    "bernoulli_p": lambda L, g: L.bernoulli(L.zeros(4), 0.5, generator=g),
    "bernoulli_tensor_p": lambda L, g: L.zeros(4).bernoulli_(L.full((4,), 0.5), generator=g),
    "multinomial_replacement": lambda L, g: L.multinomial(
        L.tensor([[1.0, 0.0, 3.0], [2.0, 2.0, 1.0]]), 4, True, generator=g
    ),
    "binomial": lambda L, g: L.binomial(L.full((5,), 9.0), L.full((5,), 0.3), generator=g),
    "random_to": lambda L, g: L.zeros(4, dtype=L.int32).random_(7, generator=g),
    "dropout": lambda L, g: L.nn.functional.dropout(L.ones(8), 0.5),
    "rrelu": lambda L, g: L.nn.functional.rrelu(-L.ones(4), training=True),
    "init_orthogonal_": lambda L, g: L.nn.init.orthogonal_(L.empty(3, 3), generator=g),
}


@pytest.mark.parametrize("name", list(ON_EVERY_DEVICE))
def test_the_same_seed_draws_the_same_numbers_on_every_device(name):
    fn = ON_EVERY_DEVICE[name]
    cr.manual_seed(5)
    here = fn(cr, cr.Generator().manual_seed(3))  # on the default device
    cr.manual_seed(5)
    with cr.device("cpu"):
        there = fn(cr, cr.Generator().manual_seed(3))
    assert here.device == cr.empty(0).device and there.device.type == "cpu"
    assert here.dtype == there.dtype and here.shape == there.shape
    assert np.array_equal(here.numpy(force=True), there.numpy())


# ----- distributions --------------------------------------------------------------------

# name -> (sampler, mean, variance) of the distribution
DISTRIBUTIONS = {
    "uniform_": (lambda L, d: L.empty(N, dtype=d).uniform_(-1, 3), 1.0, 16 / 12),
    "normal_": (lambda L, d: L.empty(N, dtype=d).normal_(2, 0.5), 2.0, 0.25),
    "exponential_": (lambda L, d: L.empty(N, dtype=d).exponential_(2.0), 0.5, 0.25),
    "geometric_": (lambda L, d: L.empty(N, dtype=d).geometric_(0.25), 4.0, 12.0),
    "log_normal_": (
        lambda L, d: L.empty(N, dtype=d).log_normal_(0.0, 0.5),
        np.exp(0.125),
        (np.exp(0.25) - 1) * np.exp(0.25),
    ),
    "bernoulli_": (lambda L, d: L.empty(N, dtype=d).bernoulli_(0.3), 0.3, 0.21),
    "random_to": (lambda L, d: L.empty(N, dtype=d).random_(10), 4.5, 99 / 12),
    "random_from_to": (lambda L, d: L.empty(N, dtype=d).random_(-3, 3), -0.5, 35 / 12),
    "normal_tensors": (
        lambda L, d: L.normal(L.full((N,), 1.0, dtype=d), L.full((N,), 2.0, dtype=d)),
        1.0,
        4.0,
    ),
    "normal_numbers": (lambda L, d: L.normal(-1.0, 3.0, (N,), dtype=d), -1.0, 9.0),
    "bernoulli": (lambda L, d: L.bernoulli(L.full((N,), 0.8, dtype=d)), 0.8, 0.16),
    "poisson": (lambda L, d: L.poisson(L.full((N,), 3.5, dtype=d)), 3.5, 3.5),
    "_standard_gamma": (lambda L, d: L._standard_gamma(L.full((N,), 2.5, dtype=d)), 2.5, 2.5),
    "_sample_dirichlet": (  # the first coordinate of Dirichlet(2, 3) is Beta(2, 3)
        lambda L, d: L._sample_dirichlet(L.tensor([2.0, 3.0], dtype=d).expand(N, 2))[:, 0],
        0.4,
        0.04,
    ),
    "rand": (lambda L, d: L.rand(N, dtype=d), 0.5, 1 / 12),
    "randn": (lambda L, d: L.randn(N, dtype=d), 0.0, 1.0),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(DISTRIBUTIONS))
def test_distribution_matches_torch(name, dtype):
    fn, mean, var = DISTRIBUTIONS[name]
    got = fn(cr, getattr(cr, dtype))
    want = fn(torch, getattr(torch, dtype))
    assert str(got.dtype) == str(want.dtype) and tuple(got.shape) == tuple(want.shape)
    for t in (got, want):
        m, v = _stats(t)
        assert abs(m - mean) < 6 * np.sqrt(var / N) + 1e-6, (m, mean)
        assert abs(v - var) < 0.05 * var, (v, var)


def test_cauchy_quartiles():
    for lib in (cr, torch):
        x = lib.empty(N, dtype=lib.float64).cauchy_(1.0, 2.0).numpy()
        q1, q2, q3 = np.quantile(x, [0.25, 0.5, 0.75])
        assert abs(q2 - 1.0) < 0.05 and abs(q1 + 1.0) < 0.05 and abs(q3 - 3.0) < 0.05


RANGES = {  # the values random_() and friends take, by dtype
    "random_float32": lambda L: L.zeros(N).random_(),
    "random_uint8": lambda L: L.zeros(N, dtype=L.uint8).random_(),
    "random_int8": lambda L: L.zeros(N, dtype=L.int8).random_(-3, 3),
    "random_bool": lambda L: L.zeros(N, dtype=L.bool).random_(),
    "random_int32": lambda L: L.zeros(N, dtype=L.int32).random_(),
    "geometric_int": lambda L: L.zeros(N, dtype=L.int64).geometric_(0.5).clamp(max=5),
    "bernoulli_int": lambda L: L.zeros(N, dtype=L.int64).bernoulli_(0.5),
    "bernoulli_tensor_p": lambda L: L.zeros(N).bernoulli_(L.tensor([0.0, 1.0]).repeat(N // 2)),
    "randint_like": lambda L: L.randint_like(L.zeros(N, dtype=L.int16), -2, 5),
}


@pytest.mark.parametrize("name", list(RANGES))
def test_ranges_match_torch(name):
    got, want = RANGES[name](cr), RANGES[name](torch)
    assert str(got.dtype) == str(want.dtype)
    g, w = got.numpy().astype(np.float64), want.numpy().astype(np.float64)
    lo, hi = w.min(), w.max()  # the same support (both reach the ends over N draws)
    if hi - lo < 1000:
        assert g.min() == lo and g.max() == hi, (g.min(), g.max(), lo, hi)
    else:  # a wide range: both spread over it alike
        span = hi - lo
        assert lo - 0.001 * span <= g.min() and g.max() <= hi + 0.001 * span
        assert abs(g.mean() - w.mean()) < 0.02 * span


@pytest.mark.parametrize("replacement", [False, True])
def test_multinomial_frequencies(replacement):
    w = [0.1, 0.0, 0.6, 0.3]
    for lib in (cr, torch):
        p = lib.tensor([w, w[::-1]])
        s = lib.multinomial(p, 2 if not replacement else 4000, replacement)
        assert s.dtype == lib.int64
        a = s.numpy()
        if replacement:
            for row, ws in zip(a, ([0.1, 0.0, 0.6, 0.3], w[::-1]), strict=True):
                freq = np.bincount(row, minlength=4) / row.size
                assert np.allclose(freq, ws, atol=0.03), freq
        else:
            assert (a[:, 0] != a[:, 1]).all()  # no category twice
            assert 1 not in a[0] and 2 not in a[1]  # a zero weight is not drawn


def test_multinomial_without_replacement_first_draw():
    # the first draw without replacement has the weights' distribution
    w = cr.tensor([1.0, 2.0, 7.0]).expand(20000, 3)
    first = cr.multinomial(w, 2)[:, 0].numpy()
    assert np.allclose(np.bincount(first, minlength=3) / first.size, [0.1, 0.2, 0.7], atol=0.02)


# ----- autograd: node names, zero gradients -----------------------------------------------

NODES = {
    "uniform_": lambda L, x: (x * 1).uniform_(),
    "normal_": lambda L, x: (x * 1).normal_(),
    "random_": lambda L, x: (x * 1).random_(),
    "random_to": lambda L, x: (x * 1).random_(4),
    "random_from_to": lambda L, x: (x * 1).random_(1, 4),
    "bernoulli_": lambda L, x: (x * 1).bernoulli_(),
    "bernoulli_tensor": lambda L, x: (x * 1).bernoulli_(L.full((3,), 0.5)),
    "exponential_": lambda L, x: (x * 1).exponential_(),
    "geometric_": lambda L, x: (x * 1).geometric_(0.5),
    "cauchy_": lambda L, x: (x * 1).cauchy_(),
    "log_normal_": lambda L, x: (x * 1).log_normal_(),
    "normal_mean": lambda L, x: L.normal(x, 1.0),
    "normal_std": lambda L, x: L.normal(0.0, x),
    "normal_both": lambda L, x: L.normal(x, x[:1]),
    "bernoulli": lambda L, x: L.bernoulli(x),
    "poisson": lambda L, x: L.poisson(x),
}


@pytest.mark.parametrize("name", list(NODES))
def test_nodes_and_zero_gradients(name):
    outs = {}
    for lib in (cr, torch):
        x = lib.tensor([0.2, 0.5, 0.7], requires_grad=True)
        y = NODES[name](lib, x)
        y.backward(lib.ones(y.shape))
        outs[lib.__name__] = (y.grad_fn.name(), y.requires_grad, x.grad.numpy(force=True))
    assert outs["chainrule"][0] == outs["torch"][0]
    assert outs["chainrule"][1] == outs["torch"][1]
    assert np.array_equal(outs["chainrule"][2], outs["torch"][2])


def test_inplace_sampler_on_leaf_requiring_grad():
    assert_same_error(lambda L: L.zeros(3, requires_grad=True).uniform_())
    for lib in (cr, torch):
        x = lib.zeros(3, requires_grad=True)
        with lib.no_grad():
            x.normal_()
        assert x.requires_grad and x.grad_fn is None and bool((x != 0).any())


# ----- reparameterized draws: gamma and Dirichlet ------------------------------------------


def test_standard_gamma_is_differentiable_with_its_implicit_gradient():
    # dx/dα of x ~ Gamma(α, 1) is _standard_gamma_grad(α, x); the node is PyTorch's
    for lib in (cr, torch):
        lib.manual_seed(0)
        a = lib.tensor([0.5, 2.0, 30.0], dtype=lib.float64, requires_grad=True)
        x = lib._standard_gamma(a)
        assert x.grad_fn.name() == "StandardGammaBackward0" and x.dtype == lib.float64
        x.backward(lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64))
        want = lib._standard_gamma_grad(a.detach(), x.detach()) * lib.tensor([1.0, 2.0, 3.0])
        np.testing.assert_allclose(a.grad.numpy(force=True), want.numpy(force=True), rtol=1e-15)


def test_sample_dirichlet_is_reparameterized_as_torchs_dirichlet():
    # PyTorch's own _sample_dirichlet has no derivative (its Dirichlet.rsample wraps it in a
    # Function, _DirichletBackward); chainrule's op is that Function: ∂L/∂α_j = D_j (g_j -
    # Σ_i x_i g_i), D_j = _dirichlet_grad(x_j, α_j, Σα)
    cr.manual_seed(1)
    a = cr.tensor([[0.5, 2.0, 1.0], [3.0, 0.2, 1.0]], dtype=cr.float64, requires_grad=True)
    x = cr._sample_dirichlet(a)
    assert x.grad_fn.name() == "_DirichletBackward"
    np.testing.assert_allclose(x.detach().sum(-1).numpy(force=True), [1.0, 1.0], rtol=1e-15)
    w = cr.tensor([[1.0, -2.0, 0.5], [0.3, 0.1, 2.0]], dtype=cr.float64)
    (x * w).sum().backward()
    d = cr._dirichlet_grad(x.detach(), a.detach(), a.detach().sum(-1, keepdim=True).expand(2, 3))
    want = d * (w - (x.detach() * w).sum(-1, keepdim=True))
    np.testing.assert_allclose(a.grad.numpy(force=True), want.numpy(force=True), rtol=1e-15)
    t = torch._sample_dirichlet(torch.ones(3, requires_grad=True))
    with pytest.raises(RuntimeError, match="derivative for aten::_sample_dirichlet"):
        t.sum().backward()


def test_sample_dirichlet_tangent_is_the_same_jacobian():
    # beyond PyTorch (no forward mode there): dx_i = D_i t_i - x_i Σ_j D_j t_j, the Jacobian
    # whose transpose the VJP applies
    fwd = cr.autograd.forward_ad
    a = cr.tensor([[0.5, 2.0, 1.0], [3.0, 0.2, 1.0]], dtype=cr.float64)
    t = cr.tensor([[1.0, -0.5, 0.25], [0.0, 2.0, -1.0]], dtype=cr.float64)
    with fwd.dual_level():
        x, dx = fwd.unpack_dual(cr._sample_dirichlet(fwd.make_dual(a, t)))
    d = cr._dirichlet_grad(x, a, a.sum(-1, keepdim=True).expand(2, 3)) * t
    want = d - x * d.sum(-1, keepdim=True)
    np.testing.assert_allclose(dx.numpy(force=True), want.numpy(force=True), rtol=1e-15)


def test_draws_where_the_concentration_is_not_positive_are_the_smallest_normal():
    for dt in ("float32", "float64"):
        a = [0.0, -1.0, float("nan")]
        got = cr._standard_gamma(cr.tensor(a, dtype=getattr(cr, dt)))
        want = torch._standard_gamma(torch.tensor(a, dtype=getattr(torch, dt)))
        assert np.array_equal(got.numpy(force=True), want.numpy())
    got = cr._sample_dirichlet(cr.tensor([[1e-3, 1e-3]]))  # (draws that underflow)
    assert got.dtype == cr.float32 and bool(((got > 0) & (got < 1)).all())
    assert cr._sample_dirichlet(cr.ones(0, 3)).shape == (0, 3)


# α from 1e-3 to 1e4, x at quantiles of Gamma(α, 1) (those of α = 1e-3 below 1/2 underflow)
_ALPHAS = np.array([1e-3, 0.05, 0.3, 1.0, 2.5, 10.0, 150.0, 3000.0, 1e4])
_QUANTILES = np.array([0.01, 0.3, 0.5, 0.7, 0.99])


def _gamma_points():
    import scipy.special as sp

    a, q = (v.ravel() for v in np.meshgrid(_ALPHAS, _QUANTILES, indexing="ij"))
    x = sp.gammaincinv(a, q)
    return a[x > 1e-300], x[x > 1e-300]


def _beta_points():
    import scipy.special as sp

    c = [0.05, 0.7, 2.0, 30.0, 800.0]
    a, b, q = (v.ravel() for v in np.meshgrid(c, c, [0.01, 0.3, 0.7, 0.99], indexing="ij"))
    x = sp.betaincinv(a, b, q)
    keep = (x > 1e-300) & (x < 1)
    return x[keep], a[keep], b[keep]


def test_standard_gamma_grad_is_the_implicit_derivative_of_the_cdf():
    # -(∂P(α, x)/∂α) / p(x; α) against central differences of chainrule's own P(α, x),
    # Richardson-extrapolated (an O(h⁴) error); the two agree to ~2e-10
    import scipy.special as sp

    a, x = _gamma_points()
    got = cr._standard_gamma_grad(cr.tensor(a), cr.tensor(x)).numpy(force=True)
    h = 1e-4 * a
    P = lambda s: cr.special.gammainc(cr.tensor(s), cr.tensor(x)).numpy(force=True)  # noqa: E731
    d1 = (P(a + h) - P(a - h)) / (2 * h)
    d2 = (P(a + 2 * h) - P(a - 2 * h)) / (4 * h)
    density = np.exp((a - 1) * np.log(x) - x - sp.gammaln(a))
    np.testing.assert_allclose(got, -(4 * d1 - d2) / 3 / density, rtol=2e-9)


def test_dirichlet_grad_is_the_implicit_derivative_of_the_beta_cdf():
    # -(∂I_x(a, b)/∂a) / (f(x; a, b)(1 - x)) against Richardson-extrapolated central
    # differences of SciPy's betainc
    import scipy.special as sp

    x, a, b = _beta_points()
    got = cr._dirichlet_grad(cr.tensor(x), cr.tensor(a), cr.tensor(a + b)).numpy(force=True)
    h = 1e-4 * a
    d1 = (sp.betainc(a + h, b, x) - sp.betainc(a - h, b, x)) / (2 * h)
    d2 = (sp.betainc(a + 2 * h, b, x) - sp.betainc(a - 2 * h, b, x)) / (4 * h)
    density = np.exp((a - 1) * np.log(x) + (b - 1) * np.log1p(-x) - sp.betaln(a, b))
    np.testing.assert_allclose(got, -(4 * d1 - d2) / 3 / density / (1 - x), rtol=1e-7)


# PyTorch's kernels are approximations (series, asymptotic and rational fits): on these
# points they are off from the exact values by up to 5.0e-4 (gamma, at α = 0.05) and
# 1.03e-3 (Dirichlet), in float32 and float64 alike
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gamma_and_dirichlet_grads_agree_with_torchs_approximations(dtype):
    a, x = _gamma_points()
    got = cr._standard_gamma_grad(
        cr.tensor(a, dtype=getattr(cr, dtype)), cr.tensor(x, dtype=getattr(cr, dtype))
    )
    want = torch._standard_gamma_grad(
        torch.tensor(a, dtype=getattr(torch, dtype)), torch.tensor(x, dtype=getattr(torch, dtype))
    )
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_allclose(got.numpy(force=True), want.numpy(), rtol=1e-3, atol=1e-30)
    x, a, b = _beta_points()
    args = [x, a, a + b]
    got = cr._dirichlet_grad(*(cr.tensor(v, dtype=getattr(cr, dtype)) for v in args))
    want = torch._dirichlet_grad(*(torch.tensor(v, dtype=getattr(torch, dtype)) for v in args))
    np.testing.assert_allclose(got.numpy(force=True), want.numpy(), rtol=2e-3, atol=1e-30)


def test_standard_gamma_grad_special_values_as_torch():
    # 0 at x = 0; nan where α <= 0, or x is inf or nan
    a = torch.tensor([2.0, 0.0, -1.0, 2.0, 2.0], dtype=torch.float64)
    x = torch.tensor([0.0, 1.0, 1.0, float("inf"), float("nan")], dtype=torch.float64)
    want = torch._standard_gamma_grad(a, x).numpy()
    got = cr._standard_gamma_grad(cr.tensor(a.numpy()), cr.tensor(x.numpy())).numpy(force=True)
    np.testing.assert_array_equal(got, want)


REPARAMETERIZED_ERRORS = {
    "gamma_int": lambda L: L._standard_gamma(L.tensor([1, 2])),
    "gamma_bool": lambda L: L._standard_gamma(L.tensor([True])),
    "gamma_half": lambda L: L._standard_gamma(L.ones(2, dtype=L.float16)),
    "gamma_number": lambda L: L._standard_gamma(1.0),
    "gamma_generator": lambda L: L._standard_gamma(L.ones(2), generator=3),
    "gamma_grad_int": lambda L: L._standard_gamma_grad(L.tensor([1, 2]), L.tensor([1, 2])),
    "gamma_grad_dtypes": lambda L: L._standard_gamma_grad(L.ones(1), L.ones(1, dtype=L.float64)),
    "gamma_grad_number": lambda L: L._standard_gamma_grad(L.ones(1), 1.0),
    "gamma_grad_backward": lambda L: (
        L._standard_gamma_grad(L.ones(2, requires_grad=True), L.ones(2)).sum().backward()
    ),
    "dirichlet_int": lambda L: L._sample_dirichlet(L.tensor([1, 2])),
    "dirichlet_half": lambda L: L._sample_dirichlet(L.ones(2, dtype=L.float16)),
    "dirichlet_list": lambda L: L._sample_dirichlet([1.0]),
    "dirichlet_grad_int": lambda L: L._dirichlet_grad(
        L.tensor([1, 2]), L.tensor([1, 2]), L.tensor([1, 2])
    ),
    "dirichlet_grad_dtypes": lambda L: L._dirichlet_grad(
        L.tensor([0.1]), L.ones(1), L.ones(1, dtype=L.float64)
    ),
    "dirichlet_grad_number": lambda L: L._dirichlet_grad(L.ones(1), 1.0, L.ones(1)),
    "dirichlet_grad_backward": lambda L: (
        L._dirichlet_grad(L.tensor([0.3]), L.ones(1, requires_grad=True), L.full((1,), 2.0))
        .sum()
        .backward()
    ),
}


@pytest.mark.parametrize("name", list(REPARAMETERIZED_ERRORS))
def test_reparameterized_draw_errors_as_torch(name):
    assert_same_error(REPARAMETERIZED_ERRORS[name])


@pytest.mark.parametrize("op", ["_standard_gamma", "_standard_gamma_grad"])
def test_no_forward_mode_as_torch(op):
    def fn(L):
        a = L.tensor([0.5, 2.0], dtype=L.float64)
        with L.autograd.forward_ad.dual_level():
            dual = L.autograd.forward_ad.make_dual(a, L.ones(2, dtype=L.float64))
            if op == "_standard_gamma":
                return L._standard_gamma(dual)
            return L._standard_gamma_grad(dual, a)

    assert_same_error(fn)


# ----- errors -----------------------------------------------------------------------------

ERRORS = {
    "uniform_bounds": lambda L: L.zeros(2).uniform_(1.5, 0.5),
    "uniform_int": lambda L: L.zeros(2, dtype=L.int64).uniform_(),
    "normal_std": lambda L: L.zeros(2).normal_(0, -1),
    "normal_int": lambda L: L.zeros(2, dtype=L.int64).normal_(),
    "exponential_lambda": lambda L: L.zeros(2).exponential_(0),
    "exponential_int": lambda L: L.zeros(2, dtype=L.int32).exponential_(),
    "geometric_p": lambda L: L.zeros(2).geometric_(1.5),
    "random_range": lambda L: L.zeros(2).random_(3, 2),
    "bernoulli_p": lambda L: L.zeros(2).bernoulli_(1.5),
    "cauchy_sigma": lambda L: L.zeros(2).cauchy_(0, -1),
    "cauchy_int": lambda L: L.zeros(2, dtype=L.int64).cauchy_(),
    "log_normal_std": lambda L: L.zeros(2).log_normal_(0, -1),
    "log_normal_int": lambda L: L.zeros(2, dtype=L.int64).log_normal_(),
    "normal_std_number": lambda L: L.normal(L.zeros(2), -1.0),
    "normal_std_tensor": lambda L: L.normal(0.0, L.tensor([-1.0])),
    "bernoulli_probs": lambda L: L.bernoulli(L.tensor([1.5])),
    "bernoulli_int": lambda L: L.bernoulli(L.tensor([1, 0])),
    "poisson_rate": lambda L: L.poisson(L.tensor([-1.0])),
    "poisson_int": lambda L: L.poisson(L.tensor([1, 2])),
    "multinomial_dim": lambda L: L.multinomial(L.rand(2, 3, 4), 2),
    "multinomial_too_many": lambda L: L.multinomial(L.rand(3), 4),
    "multinomial_zero_sum": lambda L: L.multinomial(L.zeros(3), 1),
    "multinomial_negative": lambda L: L.multinomial(L.tensor([1.0, -1.0]), 1),
    "multinomial_int": lambda L: L.multinomial(L.tensor([1, 2]), 1),
    "multinomial_no_samples": lambda L: L.multinomial(L.rand(3), 0),
    "randperm_negative": lambda L: L.randperm(-1),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name):
    assert_same_error(ERRORS[name])
