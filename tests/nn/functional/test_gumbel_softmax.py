"""``F.gumbel_softmax``: its formula on chainrule's noise, the straight-through hard sample,
its gradients (finite differences with the noise held fixed), its graph and warning as
PyTorch's, and its distribution against PyTorch's (the streams differ, the law does not)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import check

LOGITS = np.array([[0.5, -1.0, 2.0, 0.1], [1.5, 1.4, -0.3, 0.0]])


def _logits(lib, dtype=None):
    return lib.tensor(LOGITS, dtype=dtype or lib.float64, requires_grad=True)


@pytest.mark.parametrize("dim", [-1, 0])
def test_the_soft_sample_is_softmax_of_logits_plus_gumbel_noise_over_tau(dim):
    logits = _logits(cr)
    cr.manual_seed(3)
    exp1 = cr.empty_like(logits).exponential_()
    want = ((logits.detach() - exp1.log()) / 0.7).softmax(dim)
    cr.manual_seed(3)
    got = cr.nn.functional.gumbel_softmax(logits, tau=0.7, dim=dim)
    assert np.array_equal(got.detach().numpy(), want.numpy())
    np.testing.assert_allclose(got.detach().numpy().sum(dim), 1.0, rtol=1e-12)


@pytest.mark.parametrize("dim", [-1, 0])
def test_the_hard_sample_is_one_hot_with_the_soft_gradient(dim):
    weights = cr.tensor(np.arange(8.0).reshape(2, 4))
    logits = _logits(cr)
    cr.manual_seed(5)
    soft = cr.nn.functional.gumbel_softmax(logits, tau=0.5, dim=dim)
    (soft_grad,) = cr.autograd.grad((soft * weights).sum(), logits)
    cr.manual_seed(5)
    hard = cr.nn.functional.gumbel_softmax(logits, tau=0.5, hard=True, dim=dim)
    (hard_grad,) = cr.autograd.grad((hard * weights).sum(), logits)
    values = hard.detach().numpy()
    assert set(np.unique(values)) <= {0.0, 1.0}
    assert (values.sum(dim) == 1).all()
    argmax = soft.detach().numpy().argmax(dim)
    assert (values.argmax(dim) == argmax).all()
    np.testing.assert_allclose(hard_grad.numpy(), soft_grad.numpy(), rtol=1e-12, atol=1e-15)


def test_gradients_match_finite_differences_with_the_noise_fixed():
    def sample(logits):
        cr.manual_seed(11)  # (the same noise at every evaluation)
        return cr.nn.functional.gumbel_softmax(logits, tau=0.8)

    assert cr.autograd.gradcheck(sample, (_logits(cr),))
    assert cr.autograd.gradgradcheck(sample, (_logits(cr),))


@pytest.mark.parametrize("hard", [False, True])
def test_graph_and_dtype_as_torch(hard):
    names = []
    for lib in (torch, cr):
        y = lib.nn.functional.gumbel_softmax(_logits(lib, lib.float32), hard=hard)
        names.append((type(y.grad_fn).__name__, str(y.dtype), tuple(y.shape)))
    assert names[0] == names[1]


def test_eps_warns_as_torch():
    messages = []
    for lib in (torch, cr):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.functional.gumbel_softmax(_logits(lib), eps=1e-5)
        messages.append([(w.category, str(w.message)) for w in caught])
    assert messages[0] == messages[1] and messages[0]


def test_hard_samples_follow_softmax_of_the_logits_as_torch():
    # the argmax of logits + Gumbel noise is distributed as softmax(logits), whatever tau
    n = 20000
    logits = np.tile(LOGITS[:1], (n, 1))
    probs = np.exp(LOGITS[0]) / np.exp(LOGITS[0]).sum()
    for lib in (torch, cr):
        lib.manual_seed(0)
        hard = lib.nn.functional.gumbel_softmax(lib.tensor(logits), tau=0.3, hard=True)
        freq = hard.detach().numpy().mean(0)
        np.testing.assert_allclose(freq, probs, atol=0.015)


@pytest.mark.parametrize("hard", [False, True])
def test_logits_far_apart_give_torch_values_and_gradients(hard):
    # logits 60 apart: the Gumbel noise (beyond 60 with probability e^-60) cannot change
    # the winner, so the sample is the one-hot of the largest logit (to e^-60), on both
    # libraries and any device, whatever their random streams
    spread = np.array([[0.0, 60.0, -60.0], [120.0, 0.0, 60.0]])

    def fn(L, x):
        return L.nn.functional.gumbel_softmax(x + L.tensor(spread, dtype=x.dtype), hard=hard)

    check(fn, np.zeros((2, 3)), rtol=1e-12, atol=1e-12)
