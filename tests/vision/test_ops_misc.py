"""``torchvision.ops.misc`` and ``ops.stochastic_depth`` against the real torchvision:
module trees, outputs and gradients with the same parameters, errors, and the
distribution of stochastic depth's mask."""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest
import torch

import chainrule
from chainrule.vision.ops import misc
from chainrule.vision.ops.stochastic_depth import StochasticDepth, stochastic_depth


def _to_cr(state):
    return {k: chainrule.tensor(v.detach().numpy().copy()) for k, v in state.items()}


def _randomize(module):
    """Random values in every float parameter and buffer (BN statistics included)."""
    gen = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for name, t in list(module.named_parameters()) + list(module.named_buffers()):
            if t.dtype.is_floating_point:
                values = (
                    torch.rand(t.shape, generator=gen) + 0.5
                    if "var" in name
                    else torch.randn(t.shape, generator=gen)
                )
                t.copy_(values)
    return module


def _compare(tv_module, cr_module, shape, train=False, rtol=1e-10):
    """Same repr; after loading the oracle's state, the same output and input gradient
    (float64)."""
    assert repr(cr_module) == repr(tv_module)
    _randomize(tv_module)
    cr_module.load_state_dict(_to_cr(tv_module.state_dict()))
    tv_module.train(train)
    cr_module.train(train)
    x = np.random.default_rng(1).standard_normal(shape)
    xt = torch.tensor(x, requires_grad=True)
    xc = chainrule.tensor(x, requires_grad=True)
    tv_module.double()
    cr_module.double()
    yt, yc = tv_module(xt), cr_module(xc)
    np.testing.assert_allclose(yc.detach().numpy(), yt.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = np.random.default_rng(2).standard_normal(tuple(yt.shape))
    (yt * torch.tensor(g)).sum().backward()
    (yc * chainrule.tensor(g)).sum().backward()
    np.testing.assert_allclose(xc.grad.numpy(), xt.grad.numpy(), rtol=rtol, atol=rtol / 100)
    params = dict(cr_module.named_parameters())
    for name, p in tv_module.named_parameters():
        np.testing.assert_allclose(
            params[name].grad.numpy(), p.grad.numpy(), rtol=rtol, atol=rtol / 100
        )


@pytest.fixture(scope="module")
def tvmisc(tv):
    return importlib.import_module("torchvision.ops.misc")


def test_conv2d_norm_activation_matches(tvmisc):
    _compare(
        tvmisc.Conv2dNormActivation(3, 8, 3, stride=2),
        misc.Conv2dNormActivation(3, 8, 3, stride=2),
        (2, 3, 9, 9),
        train=True,
    )


def test_conv2d_norm_activation_options(tvmisc):
    kwargs = dict(
        kernel_size=(3, 5), dilation=2, groups=2, activation_layer=torch.nn.Hardswish, inplace=None
    )
    ckwargs = dict(kwargs, activation_layer=chainrule.nn.Hardswish)
    _compare(
        tvmisc.Conv2dNormActivation(4, 6, **kwargs),
        misc.Conv2dNormActivation(4, 6, **ckwargs),
        (1, 4, 10, 11),
    )
    t = tvmisc.Conv2dNormActivation(3, 4, 1, norm_layer=None, activation_layer=None)
    c = misc.Conv2dNormActivation(3, 4, 1, norm_layer=None, activation_layer=None)
    assert repr(c) == repr(t) and c.out_channels == t.out_channels == 4
    assert list(c.state_dict()) == list(t.state_dict()) == ["0.weight", "0.bias"]


def test_conv3d_norm_activation_matches(tvmisc):
    _compare(
        tvmisc.Conv3dNormActivation(2, 4, (3, 1, 3)),
        misc.Conv3dNormActivation(2, 4, (3, 1, 3)),
        (2, 2, 4, 5, 5),
        train=True,
    )


def test_conv_norm_activation_warns_when_used_directly():
    with pytest.warns(UserWarning, match="Don't use ConvNormActivation directly"):
        misc.ConvNormActivation(3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        misc.Conv2dNormActivation(3, 4)


def test_squeeze_excitation_matches(tvmisc):
    _compare(tvmisc.SqueezeExcitation(8, 2), misc.SqueezeExcitation(8, 2), (2, 8, 5, 5))
    t = tvmisc.SqueezeExcitation(
        8, 3, activation=torch.nn.SiLU, scale_activation=torch.nn.Hardsigmoid
    )
    c = misc.SqueezeExcitation(
        8, 3, activation=chainrule.nn.SiLU, scale_activation=chainrule.nn.Hardsigmoid
    )
    # PyTorch's hardsigmoid backward uses 1/6 rounded to float32 even in float64
    _compare(t, c, (2, 8, 3, 4), rtol=1e-6)


def test_mlp_matches(tvmisc):
    t = tvmisc.MLP(
        4, [8, 6, 3], norm_layer=torch.nn.LayerNorm, activation_layer=torch.nn.GELU, dropout=0.0
    )
    c = misc.MLP(
        4,
        [8, 6, 3],
        norm_layer=chainrule.nn.LayerNorm,
        activation_layer=chainrule.nn.GELU,
        dropout=0.0,
    )
    _compare(t, c, (5, 4))
    t = tvmisc.MLP(4, [3], inplace=True, bias=False, dropout=0.25)
    c = misc.MLP(4, [3], inplace=True, bias=False, dropout=0.25)
    assert repr(c) == repr(t)


def test_permute_matches(tvmisc):
    _compare(tvmisc.Permute([0, 2, 3, 1]), misc.Permute([0, 2, 3, 1]), (2, 3, 4, 5))


def test_frozen_batch_norm_matches_and_loads_batch_norm_state(tvmisc):
    t, c = tvmisc.FrozenBatchNorm2d(5, eps=1e-3), misc.FrozenBatchNorm2d(5, eps=1e-3)
    assert repr(c) == repr(t) == "FrozenBatchNorm2d(5, eps=0.001)"
    assert list(c.state_dict()) == list(t.state_dict())
    assert list(c.parameters()) == []
    _compare(t, c, (2, 5, 3, 3))
    c = misc.FrozenBatchNorm2d(5)
    bn = _randomize(torch.nn.BatchNorm2d(5))
    result = c.load_state_dict(_to_cr(bn.state_dict()))  # num_batches_tracked dropped
    assert result.missing_keys == [] and result.unexpected_keys == []
    x = np.random.default_rng(3).standard_normal((2, 5, 3, 3)).astype(np.float32)
    expected = bn.eval()(torch.tensor(x)).detach().numpy()
    np.testing.assert_allclose(
        c.float()(chainrule.tensor(x)).numpy(), expected, rtol=1e-5, atol=1e-5
    )


def test_stochastic_depth_repr_and_identity_cases(tv):
    tvsd = importlib.import_module("torchvision.ops.stochastic_depth")
    assert (
        repr(StochasticDepth(0.2, "row"))
        == repr(tvsd.StochasticDepth(0.2, "row"))
        == "StochasticDepth(p=0.2, mode=row)"
    )
    x = chainrule.randn(4, 3)
    assert stochastic_depth(x, 0.5, "row", training=False) is x
    assert stochastic_depth(x, 0.0, "batch") is x
    module = StochasticDepth(0.7, "row").eval()
    assert module(x) is x
    np.testing.assert_array_equal(stochastic_depth(x, 1.0, "row").numpy(), np.zeros((4, 3)))


@pytest.mark.parametrize(
    ("p", "mode", "message"),
    [
        (-0.1, "row", "drop probability has to be between 0 and 1, but got -0.1"),
        (1.5, "row", "drop probability has to be between 0 and 1, but got 1.5"),
        (0.1, "foo", "mode has to be either 'batch' or 'row', but got foo"),
    ],
)
def test_stochastic_depth_errors(tv, p, mode, message):
    tvsd = importlib.import_module("torchvision.ops.stochastic_depth")
    with pytest.raises(ValueError) as expected:
        tvsd.stochastic_depth(torch.ones(2, 3), p, mode)
    assert str(expected.value) == message
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        stochastic_depth(chainrule.ones(2, 3), p, mode)


def test_stochastic_depth_row_mode_distribution():
    chainrule.manual_seed(0)
    x = chainrule.ones(4000, 2, 3)
    y = stochastic_depth(x, 0.25, "row").numpy()
    rows = y.reshape(4000, -1)
    # each row is all zeros or all 1 / (1 - p)
    assert set(np.unique(rows)) <= {0.0, np.float32(1 / 0.75)}
    assert np.all(rows.min(axis=1) == rows.max(axis=1))
    kept = (rows[:, 0] > 0).mean()
    assert abs(kept - 0.75) < 0.03
    assert abs(y.mean() - 1.0) < 0.04


def test_stochastic_depth_batch_mode_and_gradient():
    chainrule.manual_seed(1)
    outcomes = []
    for _ in range(400):
        x = chainrule.ones(3, 2, requires_grad=True)
        y = stochastic_depth(x, 0.5, "batch")
        values = np.unique(y.detach().numpy())
        assert len(values) == 1 and values[0] in (0.0, 2.0)
        y.sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), y.detach().numpy())
        outcomes.append(values[0] > 0)
    assert abs(np.mean(outcomes) - 0.5) < 0.1
