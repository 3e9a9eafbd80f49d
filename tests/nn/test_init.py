"""``nn.init``: gains, fans, the deterministic fills and their errors against PyTorch's, and
the random fills by their distributions.

chainrule's random stream is not PyTorch's, so the random initialisers are checked by
statistics on large samples with fixed seeds (bounds, mean, variance against the
formula's, orthogonality, sparsity per column) and against PyTorch's own samples of the
same distribution (the same moments within sampling error). Every initialiser writes in
place, under no_grad, and bumps the version counter, as PyTorch's do.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import assert_same_error, compare

init = cr.nn.init

# ----- gains and fans --------------------------------------------------------------------


def _gains(lib):
    g = lib.nn.init.calculate_gain
    names = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d"]
    names += ["conv_transpose3d", "sigmoid", "tanh", "relu", "leaky_relu", "selu"]
    return [g(n) for n in names] + [g("leaky_relu", 0.2), g("leaky_relu", 1), g("relu", 3)]


SHAPES = [(3, 4), (5, 2, 3), (6, 4, 3, 3), (2, 3, 1, 2, 2), (0, 3), (4, 0, 2)]


def _fans(lib):
    f = lib.nn.init._calculate_fan_in_and_fan_out
    c = lib.nn.init._calculate_correct_fan
    return [
        (f(lib.empty(*s)), c(lib.empty(*s), "fan_in"), c(lib.empty(*s), "Fan_Out")) for s in SHAPES
    ]


def _deterministic(lib):
    i = lib.nn.init
    out = [i.eye_(lib.empty(*s)) for s in [(2, 3), (3, 2), (2, 2)]]
    out += [
        i.dirac_(lib.empty(*s), groups)
        for s, groups in [((4, 2, 3), 1), ((6, 3, 3, 3), 2), ((4, 4, 1, 3, 2), 2), ((2, 5, 3), 1)]
    ]
    out += [i.constant_(lib.empty(2, 3), 2.5), i.ones_(lib.empty(3)), i.zeros_(lib.ones(2, 2))]
    out += [
        i.constant_(lib.empty(2, dtype=lib.int64), 3),
        i.eye_(lib.empty(2, 2, dtype=lib.float64)),
    ]
    return out


def _in_place(lib):
    """Each initialiser returns its argument, a Parameter stays a leaf that requires grad,
    and the version counter moves."""
    i = lib.nn.init
    p = lib.nn.Parameter(lib.empty(4, 3))
    out = []
    for f in [
        i.uniform_, i.normal_, i.trunc_normal_, i.xavier_uniform_, i.xavier_normal_,
        i.kaiming_uniform_, i.kaiming_normal_, i.orthogonal_, i.eye_, i.ones_, i.zeros_,
        lambda t: i.constant_(t, 1.5), lambda t: i.sparse_(t, 0.5),
    ]:  # fmt: skip
        before = p._version
        result = f(p)
        out.append((result is p, p._version > before, p.requires_grad, p.is_leaf, p.grad_fn))
    w = lib.nn.Parameter(lib.empty(2, 3, 3, 3))
    before = w._version
    out.append((i.dirac_(w) is w, w._version > before))
    return out


def _warnings(lib):
    i = lib.nn.init
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        i.kaiming_uniform_(lib.empty(0, 3))
        i.kaiming_normal_(lib.empty(3, 0))
        t = i.trunc_normal_(lib.empty(50), mean=10.0, std=1.0, a=-1.0, b=1.0)
        i.uniform(lib.empty(2))
        i.normal(lib.empty(2))
        i.constant(lib.empty(2), 1.0)
        i.xavier_normal(lib.empty(2, 2))
        i.kaiming_uniform(lib.empty(2, 2))
        i.orthogonal(lib.empty(2, 2))
    return [(w.category.__name__, str(w.message)) for w in caught] + [
        bool(((t >= -1) & (t <= 1)).all())
    ]


def _empty_tensors(lib):
    i = lib.nn.init
    return [
        tuple(i.orthogonal_(lib.empty(0, 3)).shape),
        tuple(i.uniform_(lib.empty(0)).shape),
        tuple(i.normal_(lib.empty(2, 0)).shape),
        tuple(i.trunc_normal_(lib.empty(0, 4)).shape),
    ]


SAME = {
    "gains": _gains,
    "fans": _fans,
    "deterministic": _deterministic,
    "in_place": _in_place,
    "warnings": _warnings,
    "empty_tensors": _empty_tensors,
}


@pytest.mark.parametrize("fn", SAME.values(), ids=SAME.keys())
def test_same_as_torch(fn):
    compare(fn, exact=True)


ERRORS = {
    "gain_unknown": lambda lib: lib.nn.init.calculate_gain("swish"),
    "gain_bad_slope": lambda lib: lib.nn.init.calculate_gain("leaky_relu", True),
    "gain_slope_string": lambda lib: lib.nn.init.calculate_gain("leaky_relu", "0.1"),
    "fan_1d": lambda lib: lib.nn.init._calculate_fan_in_and_fan_out(lib.empty(3)),
    "fan_mode": lambda lib: lib.nn.init._calculate_correct_fan(lib.empty(3, 3), "fan_avg"),
    "kaiming_mode": lambda lib: lib.nn.init.kaiming_normal_(lib.empty(3, 3), mode="x"),
    "kaiming_1d": lambda lib: lib.nn.init.kaiming_uniform_(lib.empty(3)),
    "kaiming_nonlinearity": lambda lib: lib.nn.init.kaiming_uniform_(
        lib.empty(3, 3), nonlinearity="x"
    ),
    "xavier_1d": lambda lib: lib.nn.init.xavier_uniform_(lib.empty(3)),
    "eye_3d": lambda lib: lib.nn.init.eye_(lib.empty(2, 3, 4)),
    "dirac_2d": lambda lib: lib.nn.init.dirac_(lib.empty(3, 3)),
    "dirac_groups": lambda lib: lib.nn.init.dirac_(lib.empty(3, 3, 3), 2),
    "orthogonal_1d": lambda lib: lib.nn.init.orthogonal_(lib.empty(3)),
    "sparse_3d": lambda lib: lib.nn.init.sparse_(lib.empty(3, 2, 2), 0.1),
    "uniform_int": lambda lib: lib.nn.init.uniform_(lib.empty(2, dtype=lib.int64)),
    "normal_int": lambda lib: lib.nn.init.normal_(lib.empty(2, dtype=lib.int32)),
    "leaf_in_place_outside": lambda lib: lib.nn.Parameter(lib.ones(2)).fill_(1.0),
}


@pytest.mark.parametrize("fn", ERRORS.values(), ids=ERRORS.keys())
def test_errors_as_torch(fn):
    assert_same_error(fn)


# ----- distributions ----------------------------------------------------------------------

N = 200_000  # samples: the standard error of a mean is about 0.2% of sigma


def sample(lib, fn, shape=(400, 500), dtype="float32", seed=0):
    lib.manual_seed(seed)
    t = lib.empty(*shape, dtype=getattr(lib, dtype))
    out = fn(lib, t)
    assert out is t
    return np.asarray(t.detach().numpy(), dtype=np.float64)


def moments_close(x: np.ndarray, mean: float, std: float, n_sigma: float = 6.0) -> None:
    """Mean and standard deviation within ``n_sigma`` standard errors of the given ones."""
    n = x.size
    assert abs(x.mean() - mean) < n_sigma * std / math.sqrt(n), (x.mean(), mean)
    # the standard error of a sample std is about std / sqrt(2n) (normal), a bit more otherwise
    assert abs(x.std() - std) < n_sigma * 1.5 * std / math.sqrt(2 * n), (x.std(), std)


def _fan_std(shape, gain, mode="fan_in"):
    fan_in = shape[1] * math.prod(shape[2:])
    fan_out = shape[0] * math.prod(shape[2:])
    return gain / math.sqrt(fan_in if mode == "fan_in" else fan_out)


UNIFORM_LIKE = {
    # name: (fn(lib, t), shape, lower bound, upper bound)
    "uniform": (lambda lib, t: lib.nn.init.uniform_(t, -0.5, 2.0), (400, 500), -0.5, 2.0),
    "uniform_default": (lambda lib, t: lib.nn.init.uniform_(t), (400, 500), 0.0, 1.0),
    "xavier_uniform": (
        lambda lib, t: lib.nn.init.xavier_uniform_(t, gain=2.0),
        (400, 500),
        -2.0 * math.sqrt(6 / 900),
        2.0 * math.sqrt(6 / 900),
    ),
    "xavier_uniform_conv": (
        lambda lib, t: lib.nn.init.xavier_uniform_(t),
        (40, 50, 5, 20),
        -math.sqrt(6 / (90 * 100)),
        math.sqrt(6 / (90 * 100)),
    ),
    "kaiming_uniform": (
        lambda lib, t: lib.nn.init.kaiming_uniform_(t, a=math.sqrt(5)),
        (400, 500),
        -math.sqrt(3) * _fan_std((400, 500), math.sqrt(2 / 6)),
        math.sqrt(3) * _fan_std((400, 500), math.sqrt(2 / 6)),
    ),
    "kaiming_uniform_fan_out_relu": (
        lambda lib, t: lib.nn.init.kaiming_uniform_(t, mode="fan_out", nonlinearity="relu"),
        (40, 50, 10, 10),
        -math.sqrt(3) * _fan_std((40, 50, 10, 10), math.sqrt(2), "fan_out"),
        math.sqrt(3) * _fan_std((40, 50, 10, 10), math.sqrt(2), "fan_out"),
    ),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("fn,shape,low,high", UNIFORM_LIKE.values(), ids=UNIFORM_LIKE.keys())
def test_uniform_distributions(fn, shape, low, high, dtype):
    """U(low, high): inside the bounds, reaching near both ends, with the uniform's moments;
    PyTorch's samples of the same call agree."""
    for lib in (cr, torch):
        x = sample(lib, fn, shape, dtype)
        assert x.min() >= low - 1e-6 * abs(low) and x.max() <= high + 1e-6 * abs(high)
        width = high - low
        assert x.min() < low + 0.001 * width and x.max() > high - 0.001 * width
        moments_close(x, (low + high) / 2, width / math.sqrt(12))
        # a flat histogram: each tenth of the range holds a tenth of the samples
        counts = np.histogram(x, bins=10, range=(low, high))[0] / x.size
        np.testing.assert_allclose(counts, 0.1, atol=0.005)


NORMAL_LIKE = {
    # name: (fn(lib, t), shape, mean, std)
    "normal": (lambda lib, t: lib.nn.init.normal_(t, 1.5, 0.25), (400, 500), 1.5, 0.25),
    "normal_default": (lambda lib, t: lib.nn.init.normal_(t), (400, 500), 0.0, 1.0),
    "xavier_normal": (
        lambda lib, t: lib.nn.init.xavier_normal_(t, gain=0.5),
        (400, 500),
        0.0,
        0.5 * math.sqrt(2 / 900),
    ),
    "kaiming_normal": (
        lambda lib, t: lib.nn.init.kaiming_normal_(t),
        (40, 50, 10, 10),
        0.0,
        _fan_std((40, 50, 10, 10), math.sqrt(2 / (1 + 0.01**2))),
    ),
    "kaiming_normal_fan_out_tanh": (
        lambda lib, t: lib.nn.init.kaiming_normal_(t, mode="fan_out", nonlinearity="tanh"),
        (400, 500),
        0.0,
        _fan_std((400, 500), 5 / 3, "fan_out"),
    ),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("fn,shape,mean,std", NORMAL_LIKE.values(), ids=NORMAL_LIKE.keys())
def test_normal_distributions(fn, shape, mean, std, dtype):
    """N(mean, std^2): the moments, and the normal's share within one and two sigmas."""
    for lib in (cr, torch):
        x = sample(lib, fn, shape, dtype)
        moments_close(x, mean, std)
        z = np.abs(x - mean) / std
        assert abs((z < 1).mean() - 0.6826895) < 0.005
        assert abs((z < 2).mean() - 0.9544997) < 0.003


def _truncated_moments(mean, std, a, b):
    """Mean and standard deviation of N(mean, std^2) truncated to [a, b]."""
    alpha, beta = (a - mean) / std, (b - mean) / std
    pdf = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda z: (1 + math.erf(z / math.sqrt(2))) / 2  # noqa: E731
    Z = cdf(beta) - cdf(alpha)
    m = mean + std * (pdf(alpha) - pdf(beta)) / Z
    var = std**2 * (
        1 + (alpha * pdf(alpha) - beta * pdf(beta)) / Z - ((pdf(alpha) - pdf(beta)) / Z) ** 2
    )
    return m, math.sqrt(var)


TRUNCATED = {
    # (mean, std, a, b): the default, a wide one, a one-sided tail (rejection from the
    # uniform, since [a, b] holds little of the normal's mass), a narrow window off-centre
    "default": (0.0, 1.0, -2.0, 2.0),
    "scaled": (0.5, 2.0, -3.0, 1.0),
    "tail": (0.0, 1.0, 2.0, 4.0),
    "narrow": (1.0, 0.5, 0.0, 0.2),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mean,std,a,b", TRUNCATED.values(), ids=TRUNCATED.keys())
def test_trunc_normal(mean, std, a, b, dtype):
    """Within [a, b], with the truncated normal's mean and standard deviation (both
    libraries)."""
    want_mean, want_std = _truncated_moments(mean, std, a, b)
    for lib in (cr, torch):
        x = sample(lib, lambda L, t: L.nn.init.trunc_normal_(t, mean, std, a, b), (400, 500), dtype)
        assert x.min() >= a - 1e-6 and x.max() <= b + 1e-6
        moments_close(x, want_mean, want_std)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(5, 5), (3, 7), (7, 3), (4, 2, 3, 3), (1, 6), (6, 1)])
def test_orthogonal(shape, dtype):
    """Rows (or columns, whichever are fewer) orthonormal, times the gain."""
    t = cr.empty(*shape, dtype=getattr(cr, dtype))
    init.orthogonal_(t, gain=2.0)
    m = t.numpy().reshape(shape[0], -1).astype(np.float64)
    rows, cols = m.shape
    gram = m @ m.T if rows <= cols else m.T @ m
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(gram, 4.0 * np.eye(min(rows, cols)), atol=tol * 10)


def test_orthogonal_is_uniform_over_the_group():
    """Sign-corrected QR gives Haar-distributed matrices: each entry of a random n x n
    orthogonal matrix has mean 0 and variance 1/n (and the diagonal is not biased)."""
    cr.manual_seed(3)
    n = 4
    draws = np.stack(
        [init.orthogonal_(cr.empty(n, n, dtype=cr.float64)).numpy() for _ in range(4000)]
    )
    np.testing.assert_allclose(draws.mean(0), 0.0, atol=0.06)
    np.testing.assert_allclose(draws.var(0), 1.0 / n, atol=0.03)


@pytest.mark.parametrize("sparsity", [0.0, 0.1, 0.25, 0.5, 1.0])
def test_sparse(sparsity):
    """ceil(sparsity * rows) zeros in every column, at rows that vary between columns; the
    rest from N(0, std^2)."""
    rows, cols = 40, 2000
    for lib in (cr, torch):
        lib.manual_seed(1)
        t = lib.nn.init.sparse_(lib.empty(rows, cols), sparsity, std=0.3)
        x = t.numpy().astype(np.float64)
        zeros = x == 0
        assert (zeros.sum(0) == math.ceil(sparsity * rows)).all()
        if 0 < sparsity < 1:
            # each row is zero in about a `sparsity` share of the columns
            np.testing.assert_allclose(zeros.mean(1), sparsity, atol=0.06)
        if sparsity < 1:
            moments_close(x[~zeros], 0.0, 0.3)


def test_dirac_makes_a_convolution_the_identity():
    """With groups, each group's first channels pass through: checked on the weight's meaning
    (output channel o reads input channel o % per_group at the kernel centre)."""
    w = init.dirac_(cr.empty(6, 3, 3, 5), groups=2).numpy()
    centre = w[:, :, 1, 2]
    np.testing.assert_array_equal(centre, np.vstack([np.eye(3), np.eye(3)]))
    assert w.sum() == 6


def test_fills_do_not_record_a_graph():
    """Under grad mode, an initialiser on a parameter does not make it a non-leaf."""
    p = cr.nn.Parameter(cr.empty(3, 3))
    for f in (
        init.uniform_,
        init.normal_,
        init.xavier_uniform_,
        init.kaiming_normal_,
        init.orthogonal_,
    ):
        f(p)
        assert p.is_leaf and p.grad_fn is None and p.requires_grad
    (p * 2).sum().backward()
    np.testing.assert_array_equal(p.grad.numpy(), np.full((3, 3), 2.0, dtype=np.float32))


def test_seeded_fills_are_reproducible():
    cr.manual_seed(5)
    a = init.kaiming_uniform_(cr.empty(8, 4)).numpy().copy()
    cr.manual_seed(5)
    b = init.kaiming_uniform_(cr.empty(8, 4), generator=cr.default_generator).numpy()
    np.testing.assert_array_equal(a, b)


def test_half_tensors():
    t = init.normal_(cr.empty(100, 100, dtype=cr.float16), 0.0, 2.0)
    assert t.dtype == cr.float16
    assert 1.8 < float(t.numpy().astype(np.float64).std()) < 2.2
