"""The same seed gives PyTorch's numbers: chainrule's generator is PyTorch's Mersenne Twister
and its samplers PyTorch's CPU algorithms (chainrule/_sampling.py), checked against the
real PyTorch draw by draw.

Draws made of words and uniforms only (integers, uniforms, Bernoulli, permutations,
multinomial) are equal to the bit everywhere. Draws through log, sin and cos (normal,
exponential, Cauchy, log-normal) are equal to the bit where PyTorch runs its AVX2 kernels
(AVX2 and AVX-512 machines, where the float64 draws need NumPy's log to be the C library's:
not on AVX-512, where the tests' draws happen to match; docs/random.md), within 2 units
in the last place elsewhere. The Bernoulli of one probability for all elements
(``bernoulli_(p)``, dropout) is PyTorch's on Intel processors too: PyTorch 2.13 no longer
takes MKL's generator there (checked on an Intel Xeon with AVX-512 and MKL).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr

BIT_EXACT_TRIG = torch.backends.cpu.get_cpu_capability() in ("AVX2", "AVX512")


def _array(x):
    if isinstance(x, (list, tuple)):
        return np.concatenate([_array(v).ravel().astype(np.float64) for v in x])
    if hasattr(x, "detach"):
        x = x.detach()
        if x.dtype in (torch.bfloat16, cr.bfloat16):
            x = x.float()
        return x.numpy()
    return np.asarray(x)


def _both(fn, seed=7):
    torch.manual_seed(seed)
    expected = _array(fn(torch))
    cr.manual_seed(seed)
    got = _array(fn(cr))
    assert got.shape == expected.shape
    return got, expected


def assert_exact(fn, seed=7):
    got, expected = _both(fn, seed)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def assert_trig(fn, seed=7):
    """Equal to the bit on an AVX2 machine, within 2 ulp elsewhere."""
    got, expected = _both(fn, seed)
    if BIT_EXACT_TRIG:
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_array_max_ulp(got, expected, maxulp=2)


WORDS = {
    "rand": lambda L: L.rand(3, 7),
    "rand_float64": lambda L: L.rand(5, 9, dtype=L.float64),
    "rand_float16": lambda L: L.rand(300, dtype=L.float16),
    "rand_bfloat16": lambda L: L.rand(2000, dtype=L.bfloat16),  # (rounded up to 1: 0)
    "rand_complex": lambda L: L.view_as_real(L.rand(20, dtype=L.complex64)),
    "uniform_": lambda L: L.empty(100).uniform_(-2, 3),
    "uniform_float64": lambda L: L.empty(100, dtype=L.float64).uniform_(-0.3, 0.7),
    "uniform_transposed": lambda L: L.empty(8, 5).t().uniform_(),
    "randint": lambda L: L.randint(-5, 17, (3, 40)),
    "randint_int32": lambda L: L.randint(0, 10, (30,), dtype=L.int32),
    "randint_wide": lambda L: L.randint(0, 2**40, (30,)),
    "randint_like": lambda L: L.randint_like(L.zeros(4, 3), 3, 9),
    "randperm": lambda L: L.randperm(100),
    "randperm_int32": lambda L: L.randperm(37, dtype=L.int32),
    "random_int64": lambda L: L.empty(7, dtype=L.int64).random_(),
    "random_uint8": lambda L: L.empty(7, dtype=L.uint8).random_(),
    "random_int16": lambda L: L.empty(7, dtype=L.int16).random_(),
    "random_bool": lambda L: L.empty(9, dtype=L.bool).random_(),
    "random_float32": lambda L: L.empty(7).random_(),
    "random_float64": lambda L: L.empty(7, dtype=L.float64).random_(),
    "random_to": lambda L: L.empty(7).random_(10),
    "random_from_to": lambda L: L.empty(3, 4, dtype=L.int64).random_(-3, 3),
    "bernoulli_probs_float32": lambda L: L.bernoulli(L.linspace(0, 1, 50)),
    "bernoulli_probs_float64": lambda L: L.bernoulli(L.linspace(0, 1, 50, dtype=L.float64)),
    "bernoulli_tensor_p": lambda L: L.empty(5, 10).bernoulli_(L.linspace(0, 1, 10)),
    "multinomial_one": lambda L: L.multinomial(L.rand(4, 30), 1),
    "multinomial_without": lambda L: L.multinomial(L.rand(4, 30), 5),
    "multinomial_with": lambda L: L.multinomial(L.rand(4, 30), 50, True),
    "multinomial_float64": lambda L: L.multinomial(L.rand(30, dtype=L.float64), 20, True),
    "generator": lambda L: L.rand(5, generator=L.Generator().manual_seed(3)),
    "generator_default_seed": lambda L: L.rand(5, generator=L.Generator()),
    "generator_high_seed_bits": lambda L: L.rand(5, generator=L.Generator().manual_seed(2**40 + 3)),
    "linear_init": lambda L: list(L.nn.Linear(20, 7).parameters()),
    "conv_init": lambda L: list(L.nn.Conv2d(3, 8, 3).parameters()),
    "lstm_init": lambda L: list(L.nn.LSTM(5, 6, 2).parameters()),
    "sparse_init": lambda L: L.nn.init.sparse_(L.empty(6, 5), 0.5),
    "categorical": lambda L: L.distributions.Categorical(L.tensor([0.2, 0.3, 0.5])).sample((10,)),
    "bernoulli_distribution": lambda L: L.distributions.Bernoulli(0.3 * L.ones(10)).sample(),
    "uniform_distribution": lambda L: L.distributions.Uniform(0.0, 3.0).sample((5,)),
}


@pytest.mark.parametrize("name", list(WORDS))
def test_words_and_uniforms(name):
    assert_exact(WORDS[name])


TRIG = {
    "randn_small": lambda L: L.randn(5),
    "randn_cached_sine": lambda L: L.cat([L.randn(5), L.randn(3)]),
    "randn_blocks": lambda L: L.randn(1000),
    "randn_tail": lambda L: L.randn(37),
    "randn_float64": lambda L: L.randn(37, dtype=L.float64),
    "randn_complex": lambda L: L.view_as_real(L.randn(20, dtype=L.complex64)),
    "randn_complex_small": lambda L: L.view_as_real(L.randn(3, dtype=L.complex128)),
    "randn_float16_blocks": lambda L: L.randn(64, dtype=L.float16),
    "randn_float16_tail": lambda L: L.cat([L.randn(37, dtype=L.float16).float(), L.rand(3)]),
    "randn_bfloat16_tail": lambda L: L.cat([L.randn(50, dtype=L.bfloat16).float(), L.rand(3)]),
    "randn_like": lambda L: L.randn_like(L.zeros(3, 7)),
    "normal_": lambda L: L.empty(40).normal_(3, 2),
    "normal_float64": lambda L: L.empty(40, dtype=L.float64).normal_(3, 2),
    "normal_transposed": lambda L: L.empty(8, 5).t().normal_(),
    "normal_numbers": lambda L: L.normal(2.0, 3.0, (4, 5)),
    "normal_tensors": lambda L: L.normal(L.arange(20.0), L.arange(20.0) / 7 + 0.1),
    "normal_tensor_mean": lambda L: L.normal(L.arange(20.0), 0.3),
    "normal_tensor_std": lambda L: L.normal(1.5, L.arange(20.0) / 7),
    "exponential_": lambda L: L.empty(50).exponential_(1.7),
    "geometric_": lambda L: L.empty(50).geometric_(0.3),
    "cauchy_": lambda L: L.empty(50).cauchy_(0.4, 1.7),
    "log_normal_": lambda L: L.empty(50).log_normal_(0.4, 0.7),
    "transformer_init": lambda L: list(L.nn.TransformerEncoderLayer(8, 2, 16).parameters()),
    "embedding_init": lambda L: list(L.nn.Embedding(10, 4).parameters()),
    "trunc_normal_": lambda L: L.nn.init.trunc_normal_(L.empty(300), std=0.02),
    "trunc_normal_tail": lambda L: L.nn.init.trunc_normal_(L.empty(300), a=2.0, b=3.0),
    "xavier_normal_": lambda L: L.nn.init.xavier_normal_(L.empty(30, 40)),
    "kaiming_normal_float64": lambda L: L.nn.init.kaiming_normal_(L.empty(30, 40, dtype=L.float64)),
    "normal_distribution": lambda L: L.distributions.Normal(L.zeros(20), L.ones(20)).sample(),
    "normal_rsample": lambda L: L.distributions.Normal(0.0, 2.0).rsample((3,)),
    "exponential_distribution": lambda L: L.distributions.Exponential(L.ones(5)).sample(),
}


@pytest.mark.parametrize("name", list(TRIG))
def test_through_log_sin_cos(name):
    assert_trig(TRIG[name])


def test_rrelu_slopes():
    """One float64 uniform per element <= 0, on bounds rounded to the input's dtype."""
    assert_exact(lambda L: L.nn.functional.rrelu(L.linspace(-1, 1, 30), training=True))


def test_orthogonal_init():
    """The Gaussian matrix is PyTorch's; its QR goes through each library's LAPACK."""
    got, expected = _both(lambda L: L.nn.init.orthogonal_(L.empty(5, 8)))
    np.testing.assert_allclose(got, expected, atol=1e-5)


DROPOUTS = {
    "bernoulli_p": lambda L: L.empty(50).bernoulli_(0.3),
    "bernoulli_input_p": lambda L: L.bernoulli(L.zeros(50), 0.4),
    "dropout": lambda L: L.nn.functional.dropout(L.ones(4, 50), 0.3),
    "dropout2d": lambda L: L.nn.functional.dropout2d(L.ones(4, 6, 3, 3), 0.3),
    "dropout_channels_last": lambda L: L.nn.functional.dropout(
        L.ones(2, 3, 4, 5).to(memory_format=L.channels_last), 0.3
    ),
    "alpha_dropout": lambda L: L.nn.functional.alpha_dropout(L.ones(4, 50), 0.3, True),
    "dropout_module": lambda L: L.nn.Dropout(0.5)(L.ones(64)),
}


@pytest.mark.parametrize("name", list(DROPOUTS))
def test_bernoulli_of_one_probability(name):
    assert_exact(DROPOUTS[name])


def test_attention_dropout():
    def attend(L):
        q, k = L.ones(2, 3, 4, 8), L.ones(2, 3, 5, 8)
        v = L.arange(120.0).reshape(2, 3, 5, 4).repeat(1, 1, 1, 2)
        return L.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=0.4)

    got, expected = _both(attend)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def _epochs(L):
    data = L.utils.data.TensorDataset(L.arange(20))
    loader = L.utils.data.DataLoader(data, batch_size=6, shuffle=True)
    return [L.cat([b[0] for b in loader]) for _ in range(2)]


def test_data_order():
    """DataLoader's shuffles, WeightedRandomSampler and random_split draw PyTorch's."""
    assert_exact(_epochs)
    assert_exact(
        lambda L: L.tensor(list(L.utils.data.WeightedRandomSampler([0.1, 0.5, 0.2, 0.9], 12)))
    )
    assert_exact(lambda L: L.tensor(L.utils.data.random_split(range(10), [0.3, 0.7])[0].indices))


def test_states_move_between_libraries():
    """get_rng_state is PyTorch's 5056 bytes: a state moves either way, the kept normal of
    a Box-Muller pair with it."""
    for seed in (0, 11):
        torch.manual_seed(seed)
        torch.randn(3)  # (leaves the pair's sine kept)
        cr.manual_seed(seed)
        cr.randn(3)
        assert np.array_equal(cr.get_rng_state().numpy(), torch.get_rng_state().numpy())
    cr.set_rng_state(cr.tensor(torch.get_rng_state().numpy()))
    assert np.array_equal(cr.randn(50).numpy(), torch.randn(50).numpy())
    torch.set_rng_state(torch.from_numpy(cr.get_rng_state().numpy()))
    assert np.array_equal(cr.randint(0, 100, (20,)).numpy(), torch.randint(0, 100, (20,)).numpy())
    for lib in (cr, torch):  # just seeded: the state says so (next word 0, not 624)
        lib.manual_seed(3)
    assert np.array_equal(cr.get_rng_state().numpy(), torch.get_rng_state().numpy())


def test_invalid_state():
    state = torch.get_rng_state()
    state[8:12] = 0  # left = 0
    for lib in (cr, torch):
        with pytest.raises(RuntimeError, match="Invalid mt19937 state"):
            lib.set_rng_state(lib.tensor(state.numpy()) if lib is cr else state)


# float64 draws through the C library's log, log1p, tan and exp, at sizes up to a chunk:
# PyTorch's CPU formulas (exponential by log1p(-u), geometric over log1p(-p)), with the C
# library's values even where NumPy runs its own (AVX-512: chainrule/_sampling.c_library)
FLOAT64_DRAWS = {
    "randn": lambda L, n: L.randn(n, dtype=L.float64),
    "normal_transposed": lambda L, n: L.empty(3, n, dtype=L.float64).t().normal_(0.5, 2.0),
    "exponential": lambda L, n: L.empty(n, dtype=L.float64).exponential_(2.0),
    "geometric": lambda L, n: L.empty(n, dtype=L.float64).geometric_(0.3),
    "cauchy": lambda L, n: L.empty(n, dtype=L.float64).cauchy_(1.0, 2.0),
    "log_normal": lambda L, n: L.empty(n, dtype=L.float64).log_normal_(0.1, 0.5),
}


@pytest.mark.parametrize("n", [12, 15, 1000, 40000])
@pytest.mark.parametrize("name", list(FLOAT64_DRAWS))
def test_float64_draws_through_the_c_library(name, n):
    assert_exact(lambda L: FLOAT64_DRAWS[name](L, n), seed=n)


@pytest.mark.parametrize("p", [0.0, 1.0, 0.5, 0.1, 1e-300, 2.0**-53, 3 * 2.0**-53, 1 - 2.0**-53])
def test_bernoulli_of_one_probability_compares_words(p):
    """One probability for all draws is compared on the words (w < ⌈p·2^53⌉, no floats):
    pinned to u < p with u = w·2^-53, the general path, on the same words; and at ties of
    the high 21 bits, which the draws above almost never meet."""
    from chainrule import _sampling
    from chainrule._random import Generator

    first, second = Generator().manual_seed(3), Generator().manual_seed(3)
    fast = _sampling.bernoulli(first, p, 100_001)
    general = _sampling.uniform01(second, 100_001, cr.float64) < p
    np.testing.assert_array_equal(fast, general)
    assert first._bits.random_raw(1) == second._bits.random_raw(1)  # (as many words)
    threshold = int(np.ceil(p * 2.0**53))
    high, low = threshold >> 32, threshold & 0xFFFFFFFF
    pairs = [[high, low - 1], [high, low], [high, low + 1], [high | 1 << 25, low - 1]]
    words = np.array([w for pair in pairs if all(0 <= v < 1 << 32 for v in pair) for w in pair])
    words = words.astype(np.uint64)
    w53 = ((words[0::2] << np.uint64(32)) | words[1::2]) & np.uint64((1 << 53) - 1)
    np.testing.assert_array_equal(
        _sampling._below(words, threshold), w53.astype(np.float64) * 2.0**-53 < p
    )
