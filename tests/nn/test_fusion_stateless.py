"""``nn.utils.fusion``, ``nn.utils.stateless.functional_call`` and ``nn.utils.skip_init``
side by side with PyTorch: fused weights and biases (values, dtypes, Parameters,
requires_grad), the fused layers on stand-in layers and batch norms built the same way on
both libraries, the deprecation warning and the errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from nn_models import affine, arr
from oracle import assert_same_error, compare


def positive(*shape, seed=0):
    return np.random.default_rng(seed).uniform(0.5, 2.0, shape).astype(np.float32)


def bn_state(lib, n, affine_params=True):
    """running mean, running var, eps, weight, bias of a batch norm over ``n`` channels."""
    t = lib.tensor
    w = t(arr(n, seed=3)) if affine_params else None
    b = t(arr(n, seed=4)) if affine_params else None
    return t(arr(n, seed=1)), t(positive(n, seed=2)), 1e-3, w, b


@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("affine_params", [True, False])
def test_fuse_conv_bn_weights_as_torch(transpose, bias, affine_params):
    def fn(lib):
        shape = (4, 3, 2, 2) if transpose else (3, 4, 2, 2)
        w = lib.nn.Parameter(lib.tensor(arr(*shape, seed=5)))
        b = lib.nn.Parameter(lib.tensor(arr(3, seed=6))) if bias else None
        fw, fb = lib.nn.utils.fuse_conv_bn_weights(
            w, b, *bn_state(lib, 3, affine_params), transpose
        )
        return fw, fb, type(fw).__name__, type(fb).__name__

    compare(fn, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("bias", [True, False])
def test_fuse_linear_bn_weights_as_torch(bias):
    def fn(lib):
        w = lib.tensor(arr(3, 4, seed=5))
        b = lib.tensor(arr(3, seed=6)) if bias else None
        fw, fb = lib.nn.utils.fuse_linear_bn_weights(w, b, *bn_state(lib, 3))
        return fw, fb, type(fw).__name__, fw.requires_grad, fb.requires_grad

    compare(fn, rtol=1e-6, atol=1e-6)


def stand_ins(lib, n_out=3):
    """A linear layer (nn_models.Affine with out_features) and a batch norm's state."""
    nn = lib.nn

    class BN(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.num_features = n
            self.eps = 1e-3
            self.weight = nn.Parameter(lib.tensor(arr(n, seed=3)))
            self.bias = nn.Parameter(lib.tensor(arr(n, seed=4)))
            self.register_buffer("running_mean", lib.tensor(arr(n, seed=1)))
            self.register_buffer("running_var", lib.tensor(positive(n, seed=2)))

        def forward(self, x):
            return (x - self.running_mean) / (self.running_var + self.eps).sqrt() * (
                self.weight
            ) + self.bias

    lin = affine(lib, 4, n_out)
    lin.out_features = n_out
    return lin, BN(n_out)


def test_fuse_linear_bn_eval_as_torch():
    def fn(lib):
        lin, bn = stand_ins(lib)
        lin.eval()
        bn.eval()
        fused = lib.nn.utils.fuse_linear_bn_eval(lin, bn)
        x = lib.tensor(arr(2, 4, seed=9))
        return fused(x), bn(lin(x)), fused is not lin, type(fused.weight).__name__

    compare(fn, rtol=1e-5, atol=1e-5)


def test_fuse_conv_bn_eval_as_torch():
    def fn(lib):
        lin, bn = stand_ins(lib)
        lin.eval()
        bn.eval()
        fused = lib.nn.utils.fuse_conv_bn_eval(lin, bn)
        return fused.weight, fused.bias

    compare(fn, rtol=1e-6, atol=1e-6)


def _training(lib):
    lin, bn = stand_ins(lib)
    bn.eval()
    lib.nn.utils.fuse_linear_bn_eval(lin, bn)


def _mismatch(lib):
    lin, bn = stand_ins(lib)
    lin.out_features = 5
    lin.eval()
    bn.eval()
    lib.nn.utils.fuse_linear_bn_eval(lin, bn)


def _conv_training(lib):
    lin, bn = stand_ins(lib)
    lib.nn.utils.fuse_conv_bn_eval(lin, bn)


def _skip_init_no_device(lib):
    lib.nn.utils.skip_init(lib.nn.ReLU)


def _skip_init_not_a_module(lib):
    lib.nn.utils.skip_init(int)


@pytest.mark.parametrize(
    "fn", [_training, _mismatch, _conv_training, _skip_init_no_device, _skip_init_not_a_module]
)
def test_errors_as_torch(fn):
    assert_same_error(fn)


def test_skip_init_builds_the_module():
    def fn(lib):
        m = lib.nn.utils.skip_init(lib.nn.PReLU, 4, device="cpu")
        return type(m).__name__, str(m), list(m.state_dict()), tuple(m.weight.shape)

    compare(fn)


def test_stateless_functional_call_warns_and_calls():
    def fn(lib):
        m = affine(lib, 2, 3)
        params = {"weight": lib.ones(3, 2), "bias": lib.zeros(3)}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = lib.nn.utils.stateless.functional_call(m, params, (lib.tensor(arr(4, 2)),))
        return out, [(str(w.message), w.category.__name__) for w in caught], m.weight

    compare(fn, rtol=1e-6)
