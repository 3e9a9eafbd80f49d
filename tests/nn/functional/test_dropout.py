"""The dropouts of nn.functional: dropout, dropout1d/2d/3d, alpha_dropout,
feature_alpha_dropout.

chainrule draws its masks from NumPy's generator, not PyTorch's stream, so the masks are
checked statistically (the rate of dropped elements or channels, the scale of the kept
ones, the mean and variance alpha dropout keeps), and the gradients exactly, given the mask
that was drawn; against PyTorch: node names, evaluation and the p = 0 and p = 1 cases
(deterministic), in-place versions, warnings and errors."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import assert_close, assert_same_error, check, randn, same_node, warns_as_torch

ALPHA = 1.7580993408473766  # SELU's -scale·alpha


def F(lib):
    return lib.nn.functional


def _rate_within(dropped: float, p: float, n: int) -> None:
    """The fraction dropped is p within 5 standard deviations of a binomial's."""
    assert abs(dropped - p) < 5 * math.sqrt(p * (1 - p) / n) + 1e-12, (dropped, p, n)


@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
def test_dropout_rate_and_scale(p):
    cr.manual_seed(0)
    x = cr.ones(40000, dtype=cr.float64)
    y = F(cr).dropout(x, p).numpy()
    kept = y != 0
    _rate_within(1 - kept.mean(), p, y.size)
    np.testing.assert_allclose(y[kept], 1 / (1 - p), rtol=1e-15)


CHANNELS = {  # name -> (fn, shape, the leading dims that name a channel)
    "1d": (lambda L, x: F(L).dropout1d(x, 0.4), (50, 40, 3), 2),
    "1d_unbatched": (lambda L, x: F(L).dropout1d(x, 0.4), (400, 3), 1),
    "2d": (lambda L, x: F(L).dropout2d(x, 0.4), (50, 40, 2, 2), 2),
    "3d": (lambda L, x: F(L).dropout3d(x, 0.4), (40, 50, 2, 1, 2), 2),
    "3d_unbatched": (lambda L, x: F(L).dropout3d(x, 0.4), (400, 2, 1, 2), 1),
    "feature_alpha": (
        lambda L, x: F(L).feature_alpha_dropout(x, 0.4, training=True),
        (50, 40, 3),
        2,
    ),
}


@pytest.mark.parametrize("name", list(CHANNELS))
def test_channel_dropouts_drop_whole_channels(name):
    fn, shape, lead = CHANNELS[name]
    cr.manual_seed(1)
    x = cr.tensor(np.random.default_rng(0).uniform(1.0, 2.0, shape))
    y = fn(cr, x).numpy()
    if name == "feature_alpha":  # y = a·x + b per channel: a dropped channel is constant
        per = y.reshape(shape[:lead] + (-1,))
        dropped = per.max(axis=-1) - per.min(axis=-1) < 1e-12
    else:  # y = x·m per channel
        per = (y / x.numpy()).reshape(shape[:lead] + (-1,))
        assert np.all(per.max(axis=-1) - per.min(axis=-1) < 1e-12)
        dropped = per[..., 0] == 0
        np.testing.assert_allclose(per[~dropped], 1 / 0.6, rtol=1e-15)
    _rate_within(dropped.mean(), 0.4, dropped.size)


def test_alpha_dropout_keeps_mean_and_variance():
    cr.manual_seed(2)
    x = cr.tensor(np.random.default_rng(3).standard_normal(200000))
    p = 0.3
    y = F(cr).alpha_dropout(x, p, training=True).numpy()
    a = 1 / math.sqrt((ALPHA**2 * p + 1) * (1 - p))
    dropped_value = a * ALPHA * (p - 1)  # a·(0) + b with the mask 0
    dropped = np.isclose(y, dropped_value, rtol=0, atol=1e-12)
    _rate_within(dropped.mean(), p, y.size)
    kept = ~dropped
    np.testing.assert_allclose(y[kept], x.numpy()[kept] * a + ALPHA * a * p, rtol=1e-12)
    assert abs(y.mean()) < 0.01 and abs(y.var() - 1) < 0.02


def test_reproducible_with_manual_seed():
    x = cr.ones(100)
    cr.manual_seed(5)
    a = F(cr).dropout(x, 0.5)
    cr.manual_seed(5)
    b = F(cr).dropout(x, 0.5)
    assert bool((a == b).all())


# ----- gradients: exact, given the mask drawn ----------------------------------------------

RANDOM = {
    "dropout": lambda L, x: F(L).dropout(x, 0.3),
    "dropout1d": lambda L, x: F(L).dropout1d(x, 0.3),
    "dropout2d": lambda L, x: F(L).dropout2d(x, 0.3),
    "dropout3d": lambda L, x: F(L).dropout3d(x, 0.3),
    "alpha_dropout": lambda L, x: F(L).alpha_dropout(x, 0.3, training=True),
    "feature_alpha_dropout": lambda L, x: F(L).feature_alpha_dropout(x, 0.3, training=True),
}
SHAPES = {"dropout1d": (3, 4, 5), "dropout2d": (3, 4, 2, 2), "dropout3d": (2, 3, 2, 2, 2)}


def _seeded(fn):
    def run(x):
        cr.manual_seed(7)
        return fn(cr, x)

    return run


@pytest.mark.parametrize("name", sorted(RANDOM))
def test_gradient_is_the_mask(name):
    """y = x·m (+ b): the gradient of x is g·m, m read off the output at two inputs."""
    shape = SHAPES.get(name, (4, 6))
    x = cr.tensor(randn(shape, seed=1) + 3.0, requires_grad=True)
    run = _seeded(RANDOM[name])
    y = run(x)
    y0 = run(cr.zeros(shape, dtype=cr.float64))
    mask = (y.detach().numpy() - y0.numpy()) / x.detach().numpy()
    g = randn(shape, seed=2)
    y.backward(cr.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), g * mask, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(RANDOM))
def test_gradcheck_and_gradgradcheck_given_the_mask(name):
    shape = SHAPES.get(name, (3, 4))
    x = cr.tensor(randn(shape, seed=3), requires_grad=True)
    run = _seeded(RANDOM[name])
    assert cr.autograd.gradcheck(run, (x,), check_forward_ad=True)
    assert cr.autograd.gradgradcheck(run, (x,))


@pytest.mark.parametrize("name", sorted(RANDOM))
def test_node_names_as_torch(name):
    shape = SHAPES.get(name, (3, 4))
    fn = RANDOM[name]
    ours = fn(cr, cr.ones(shape, requires_grad=True))
    theirs = fn(torch, torch.ones(shape, requires_grad=True))
    assert ours.grad_fn.name() == theirs.grad_fn.name()


# ----- deterministic cases against torch: evaluation, p = 0, p = 1 ------------------------------

DETERMINISTIC = {
    "dropout_eval": lambda L, x: F(L).dropout(x, 0.5, training=False),
    "dropout_p0": lambda L, x: F(L).dropout(x, 0.0),
    "dropout_p1": lambda L, x: F(L).dropout(x, 1.0),
    "dropout2d_p1": warns_as_torch(  # a 3-D input: PyTorch's warning, and chainrule's
        "Received a 3D input to dropout2d", lambda L, x: F(L).dropout2d(x.reshape(1, 3, 4), 1.0)
    ),
    "alpha_dropout_default_eval": lambda L, x: F(L).alpha_dropout(x, 0.5),
    "alpha_dropout_p1": lambda L, x: F(L).alpha_dropout(x, 1.0, training=True),
    "feature_alpha_dropout_p1": lambda L, x: F(L).feature_alpha_dropout(x, 1.0, training=True),
    "dropout1d_eval": lambda L, x: F(L).dropout1d(x, 0.5, training=False),
    "torch.dropout_p1": lambda L, x: L.dropout(x, 1.0, True),
    "torch.feature_dropout_eval": lambda L, x: L.feature_dropout(x, 0.5, False),
    "torch.alpha_dropout_p0": lambda L, x: L.alpha_dropout(x, 0.0, True),
    "torch.feature_alpha_dropout_p1": lambda L, x: L.feature_alpha_dropout(x, 1.0, True),
}


@pytest.mark.parametrize("name", sorted(DETERMINISTIC))
def test_deterministic_cases_match_torch(name):
    def fn(L, x):
        return DETERMINISTIC[name](L, x * 1)  # a non-leaf: evaluation returns it as it is

    same_node(check(fn, randn((3, 4))))


@pytest.mark.parametrize("p, training", [(0.5, False), (0.0, True)])
def test_the_input_itself_comes_back(p, training):
    for lib in (cr, torch):
        x = lib.ones(3)
        assert F(lib).dropout(x, p, training) is x


INPLACE = {
    "dropout": lambda L, x: F(L).dropout(x, 0.5, inplace=True),
    "dropout2d": warns_as_torch(
        "Received a 3D input to dropout2d", lambda L, x: F(L).dropout2d(x, 0.5, inplace=True)
    ),
    "dropout1d_unbatched": lambda L, x: F(L).dropout1d(x, 0.5, inplace=True),
    "alpha_dropout": lambda L, x: F(L).alpha_dropout(x, 0.5, True, inplace=True),
    "torch.dropout_": lambda L, x: L.dropout_(x, 0.5, True),
    "torch.alpha_dropout_": lambda L, x: L.alpha_dropout_(x, 0.5, True),
    "torch.feature_dropout_": lambda L, x: L.feature_dropout_(x, 0.5, True),
    "torch.feature_alpha_dropout_": lambda L, x: L.feature_alpha_dropout_(x, 0.5, True),
}


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_writes_into_the_input(name):
    shape = (2, 3, 4) if "2d" in name else (3, 4)
    nodes = []
    for lib in (cr, torch):
        x = lib.ones(shape, requires_grad=True) * 2
        version = x._version
        y = INPLACE[name](lib, x)
        assert y is x or name == "dropout1d_unbatched"  # (unsqueezed, then squeezed back)
        assert x._version > version
        assert bool((y == x).all())
        nodes.append(y.grad_fn.name())
    assert nodes[0] == nodes[1]


def test_inplace_on_a_leaf_raises_as_torch():
    assert_same_error(lambda L: F(L).dropout(L.ones(3, requires_grad=True), 0.5, inplace=True))


def _warned(fn, lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(lib)
    return [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


WARNINGS = {
    "dropout2d_3d": lambda L: F(L).dropout2d(L.ones(2, 3, 4), 0.5, training=False),
    "dropout2d_2d": lambda L: F(L).dropout2d(L.ones(2, 3), 0.5, training=False),
    "dropout3d_3d": lambda L: F(L).dropout3d(L.ones(2, 3, 4), 0.5, training=False),
}


@pytest.mark.parametrize("name", list(WARNINGS))
def test_warnings_as_torch(name):
    assert _warned(WARNINGS[name], cr) == _warned(WARNINGS[name], torch)


ERRORS = {
    "p_above_1": lambda L: F(L).dropout(L.ones(3), 1.5),
    "p_below_0": lambda L: F(L).dropout(L.ones(3), -0.1, training=False),
    "alpha_p": lambda L: F(L).alpha_dropout(L.ones(3), 2.0),
    "feature_alpha_p": lambda L: F(L).feature_alpha_dropout(L.ones(3), -1.0),
    "dropout1d_p": lambda L: F(L).dropout1d(L.ones(3, 4), 1.2),
    "dropout2d_p": lambda L: F(L).dropout2d(L.ones(3, 4, 5), 1.2),
    "dropout3d_p": lambda L: F(L).dropout3d(L.ones(3, 4, 5, 6), 1.2),
    "dropout1d_4d": lambda L: F(L).dropout1d(L.ones(2, 3, 4, 5), 0.5),
    "feature_1d": lambda L: F(L).feature_alpha_dropout(L.ones(3), 0.5, training=True),
    "torch.dropout_p": lambda L: L.dropout(L.ones(3), 1.5, True),
    "torch.feature_dropout_1d": lambda L: L.feature_dropout(L.ones(3), 0.5, True),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name):
    assert_same_error(ERRORS[name])


def test_no_grad_output_for_a_no_grad_input():
    y = F(cr).dropout(cr.ones(3, 4), 0.5)
    assert not y.requires_grad and y.grad_fn is None
    assert_close(F(cr).dropout(cr.ones(2), 1.0), F(torch).dropout(torch.ones(2), 1.0))
