"""The dropout layers beside torch.nn: ``Dropout``, ``Dropout1d/2d/3d``, ``AlphaDropout``
and ``FeatureAlphaDropout``. Their masks are random (chainrule's stream is not
PyTorch's), so training mode is checked by its laws: kept elements (or channels) scaled by
1/(1-p), dropped ones zero (or SELU's saturation for alpha dropout), the gradient the same
mask; eval mode is the identity, and reprs and errors are PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from nn_layers import check_module
from oracle import DT_IDS, FLOATS, R, assert_same_error, to_numpy

DROPOUTS = [
    ("Dropout", (4, 5)),
    ("Dropout1d", (2, 3, 4)),
    ("Dropout2d", (2, 3, 4, 4)),
    ("Dropout3d", (2, 3, 2, 2, 2)),
    ("AlphaDropout", (4, 5)),
    ("FeatureAlphaDropout", (2, 3, 4, 4)),
]


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name,shape", DROPOUTS, ids=lambda v: str(v))
def test_eval_is_identity(name, shape, dtype):
    cm, _ = check_module(
        lambda lib: getattr(lib.nn, name)(0.3), R(*shape), dtype=dtype, train=False
    )
    x = cr.tensor(R(*shape))
    assert cr.equal(cm(x), x)


@pytest.mark.parametrize("name,shape", DROPOUTS, ids=lambda v: str(v))
@pytest.mark.parametrize("p", [0.0, 1.0], ids=["p0", "p1"])
def test_edge_probabilities(name, shape, p):
    """p = 0 keeps everything; p = 1 drops everything (same values as torch's)."""
    check_module(lambda lib: getattr(lib.nn, name)(p), R(*shape))


@pytest.mark.parametrize("name", ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d"])
def test_training_mask(name):
    shape = {"Dropout": (400, 50), "Dropout1d": (40, 50, 3), "Dropout2d": (40, 50, 2, 2)}
    shape = shape.get(name, (40, 50, 2, 1, 2))
    x = cr.tensor(np.abs(R(*shape)) + 0.5, requires_grad=True)
    y = getattr(cr.nn, name)(p=0.25)(x)
    kept = to_numpy(y) != 0
    if name != "Dropout":  # whole channels are kept or dropped
        per_channel = kept.reshape(shape[0], shape[1], -1)
        assert np.all(per_channel.all(-1) | ~per_channel.any(-1))
    assert abs(kept.mean() - 0.75) < 0.05
    np.testing.assert_allclose(to_numpy(y)[kept], to_numpy(x)[kept] / 0.75, rtol=1e-6)
    y.backward(cr.ones_like(y))
    np.testing.assert_allclose(to_numpy(x.grad), kept / 0.75, rtol=1e-6)
    assert y.grad_fn is not None


def test_inplace():
    for lib in (cr, torch):
        x = lib.ones(20, 30)
        y = lib.nn.Dropout(0.5, inplace=True)(x)
        assert y is x or y.data_ptr() == x.data_ptr()
        assert float((x == 0).float().mean()) > 0.3


@pytest.mark.parametrize("name", ["AlphaDropout", "FeatureAlphaDropout"])
def test_alpha_dropout_statistics(name):
    """Alpha dropout keeps a standard normal input's mean and variance."""
    x = cr.randn(200, 200, 4) if name == "AlphaDropout" else cr.randn(100, 400, 2)
    y = to_numpy(getattr(cr.nn, name)(0.2)(x))
    assert abs(y.mean()) < 0.05 and abs(y.std() - 1) < 0.05


@pytest.mark.parametrize("name", [n for n, _ in DROPOUTS])
def test_repr(name):
    for args in [(), (0.2,), (0.1, True)]:
        assert repr(getattr(cr.nn, name)(*args)) == repr(getattr(torch.nn, name)(*args))


@pytest.mark.parametrize("p", [-0.1, 1.5])
def test_bad_probability(p):
    assert_same_error(lambda lib: lib.nn.Dropout2d(p))


def test_train_eval_switch():
    m = cr.nn.Dropout(0.999)
    x = cr.ones(50, 50)
    assert int((m(x) == 0).sum()) > 2400
    m.eval()
    assert cr.equal(m(x), x)
    m.train()
    assert m.training
