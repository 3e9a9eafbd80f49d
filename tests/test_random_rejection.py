"""The rejection samplers draw PyTorch's numbers: ``_standard_gamma``, ``_sample_dirichlet``,
``poisson`` and ``binomial`` (chainrule/_sampling_rejection.py), and the distributions built
on them, checked against the real PyTorch under the same seed.

Each case also checks that both generators end in the same state, so every element's loop
took the same number of draws (accepted and rejected the same proposals). Integer draws
(Poisson, binomial) are equal everywhere; gamma and Dirichlet values go through the C
library's log and pow, the same functions as PyTorch's on Linux x86-64, where they are equal
to the bit (within 2 units in the last place elsewhere).
"""

from __future__ import annotations

import platform

import numpy as np
import pytest
import torch

import chainrule as cr

BIT_EXACT = platform.system() == "Linux" and platform.machine() in ("x86_64", "AMD64")
NAN, INF = float("nan"), float("inf")
SEEDS = (0, 1, 7, 123)


def _both(fn, seed):
    """fn's draws from each library after the same seed, and the two states after."""
    out = []
    for lib in (torch, cr):
        lib.manual_seed(seed)
        values = fn(lib).numpy()
        out.append((values, lib.get_rng_state().numpy()))
    (expected, torch_state), (got, cr_state) = out
    np.testing.assert_array_equal(cr_state, torch_state)  # the same draws consumed
    assert got.dtype == expected.dtype and got.shape == expected.shape
    return got, expected


def assert_same(fn, seeds=SEEDS, exact=False):
    for seed in seeds:
        got, expected = _both(fn, seed)
        if exact or BIT_EXACT:
            np.testing.assert_array_equal(got, expected)
        else:
            np.testing.assert_array_max_ulp(got, expected, maxulp=2)


def _t(lib, values, dt):
    return lib.tensor(values, dtype=getattr(lib, dt))


DTYPES = ("float32", "float64")
ALPHAS = {
    "below one": [0.01, 0.3, 0.5, 0.999] * 8,
    "one and above": [1.0, 1.5, 2.0, 3.0] * 8,
    "large and tiny": [10.0, 100.0, 1e4, 1e-3, 1e-8, 3.4e38] * 4,
    "edges": [NAN, -2.0, -0.5, INF, 0.0, 1e-40],
}


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("case", list(ALPHAS))
def test_standard_gamma(case, dt):
    assert_same(lambda L: L._standard_gamma(_t(L, ALPHAS[case], dt)))


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("n", [1, 3, 5, 10, 300])
def test_sample_dirichlet(n, dt):
    # rows summed in PyTorch's order: value by value, by vectors, by cascaded chunks (300)
    alpha = np.linspace(0.05, 4.0, 6 * n).reshape(6, n).tolist()
    assert_same(lambda L: L._sample_dirichlet(_t(L, alpha, dt)), seeds=SEEDS[:2])


def test_dirichlet_clamps_to_the_open_interval():
    alpha = [[1e-3, 1e-3, 5.0], [1e-4, 1e-2, 1e-3]] * 5
    assert_same(lambda L: L._sample_dirichlet(_t(L, alpha, "float32")))


RATES = [0.0, 1e-300, 0.1, 1.0, 5.0, 9.99, 10.0, 12.5, 50.0, 1e3, 1e6, 3e9, INF]


@pytest.mark.parametrize("dt", ("float16", "float32", "float64"))
def test_poisson(dt):
    rates = RATES[:-3] + [7e4] if dt == "float16" else RATES  # (7e4: inf in float16)
    assert_same(lambda L: L.poisson(_t(L, rates * 3, dt)).double(), exact=True)


COUNTS = [0.0, 1.0, 5.0, 10.0, 20.0, 25.0, 100.0, 1000.0, 1e5, 7.5, 1e9, 37.3]
PROBS = [0.5, 0.3, 0.9, 0.05, 0.5, 0.6, 0.1, 0.99, 0.4, 0.7, 1e-9, 0.77]


@pytest.mark.parametrize("dt", DTYPES)
def test_binomial_inversion_and_btrs(dt):
    # n·min(p, 1 - p) below 10 by inversion, from 10 by BTRS; p > 1/2 as n - draw(1 - p)
    assert_same(lambda L: L.binomial(_t(L, COUNTS * 3, dt), _t(L, PROBS * 3, dt)), exact=True)
    probs = np.linspace(0, 1, 101).tolist()
    assert_same(lambda L: L.binomial(_t(L, [40.0] * 101, dt), _t(L, probs, dt)), exact=True)


@pytest.mark.parametrize("dt", DTYPES)
def test_binomial_edges(dt):
    counts = [5.5, -3.0, 30.0, 30.0, 5.0, INF, 15.0]
    probs = [0.3, 0.3, 1.5, -0.5, NAN, 0.3, 0.7]
    assert_same(lambda L: L.binomial(_t(L, counts, dt), _t(L, probs, dt)), exact=True)


def test_broadcast_scalar_and_strided_inputs():
    assert_same(lambda L: L.binomial(L.full((3, 4), 50.0), L.tensor([0.1, 0.5, 0.7, 0.95])))
    assert_same(lambda L: L.poisson(L.tensor(20.5)))
    assert_same(lambda L: L._standard_gamma(L.tensor(2.5)))
    # elements drawn in the output's (row-major) order
    grid = lambda L: L.linspace(0.1, 5, 30, dtype=L.float64).reshape(5, 6).t()  # noqa: E731
    assert_same(lambda L: L._standard_gamma(grid(L)))
    assert_same(lambda L: L._sample_dirichlet(grid(L)))
    assert_same(lambda L: L._standard_gamma(L.tensor([0.3, 2.0]).expand(4, 2)))


def test_the_kept_normal_is_shared_with_randn():
    # gamma's normals are the generator's cached-pair draws: a kept sine is used, one left
    def fn(L):
        a = L.randn(3, dtype=L.float64)
        g = L._standard_gamma(L.tensor([2.0, 0.5, 3.0], dtype=L.float64))
        return L.cat([a, g, L.randn(1, dtype=L.float64)])

    assert_same(fn)


def test_generator_argument():
    def fn(L):
        g = L.Generator().manual_seed(123)
        a = L._standard_gamma(L.tensor([0.5, 2.0] * 5), generator=g)
        b = L.poisson(L.tensor([3.0, 30.0] * 5), generator=g)
        c = L.binomial(L.tensor([10.0, 100.0] * 5), L.tensor([0.2, 0.6] * 5), generator=g)
        d = L._sample_dirichlet(L.tensor([[0.5, 2.0, 1.0]] * 3), generator=g)
        return L.cat([a, b, c, d.reshape(-1), L.rand(2, generator=g)])

    assert_same(fn, seeds=SEEDS[:1])


def test_kernel_dtypes():
    with pytest.raises(RuntimeError, match="\"binomial_cpu\" not implemented for 'Half'"):
        cr.binomial(cr.tensor([3.0], dtype=cr.float16), cr.tensor([0.5], dtype=cr.float16))
    with pytest.raises(RuntimeError, match="\"gamma_cpu\" not implemented for 'Half'"):
        cr._standard_gamma(cr.tensor([3.0], dtype=cr.float16))


# ----- the distributions built on them --------------------------------------------------------

D = "distributions"
DISTRIBUTIONS = {
    "Gamma": lambda L: getattr(L, D).Gamma(L.tensor([0.5, 2.0, 7.0]), L.tensor([1.0, 3.0, 0.5])),
    "Beta": lambda L: getattr(L, D).Beta(L.tensor([0.5, 2.0]), L.tensor([3.0, 0.7])),
    "Dirichlet": lambda L: getattr(L, D).Dirichlet(L.tensor([0.5, 2.0, 1.0])),
    "Chi2": lambda L: getattr(L, D).Chi2(L.tensor([1.0, 4.0])),
    "StudentT": lambda L: getattr(L, D).StudentT(
        L.tensor([2.0, 5.0]), L.tensor([0.0, 1.0]), L.tensor([1.0, 2.0])
    ),
    "FisherSnedecor": lambda L: getattr(L, D).FisherSnedecor(
        L.tensor([2.0, 5.0]), L.tensor([3.0, 7.0])
    ),
    "InverseGamma": lambda L: getattr(L, D).InverseGamma(
        L.tensor([2.0, 5.0]), L.tensor([1.0, 2.0])
    ),
    "Poisson": lambda L: getattr(L, D).Poisson(L.tensor([0.5, 4.0, 30.0])),
    "Binomial": lambda L: getattr(L, D).Binomial(L.tensor([10.0, 100.0]), L.tensor([0.3, 0.6])),
    "NegativeBinomial": lambda L: getattr(L, D).NegativeBinomial(
        L.tensor([3.0, 20.0]), L.tensor([0.3, 0.6])
    ),
    "Gamma float64": lambda L: getattr(L, D).Gamma(
        L.tensor([0.5, 2.0], dtype=L.float64), L.tensor([1.0, 3.0], dtype=L.float64)
    ),
}


@pytest.mark.parametrize("name", list(DISTRIBUTIONS))
def test_distribution_samples(name):
    assert_same(lambda L: DISTRIBUTIONS[name](L).sample((5,)), seeds=SEEDS[:2])


# the same draws, then float32 square roots and products that may round otherwise
FURTHER_ROUNDED = {
    "LKJCholesky": lambda L: getattr(L, D).LKJCholesky(2, L.tensor([0.5, 3.0])).sample((3,)),
    "Wishart": lambda L: (
        getattr(L, D).Wishart(L.tensor(5.0), L.eye(3))._bartlett_sampling(L.Size((2,)))
    ),
}


@pytest.mark.parametrize("name", list(FURTHER_ROUNDED))
def test_distribution_samples_further_rounded(name):
    for seed in SEEDS[:2]:
        got, expected = _both(FURTHER_ROUNDED[name], seed)
        np.testing.assert_allclose(got, expected, rtol=2e-6, atol=1e-7)
