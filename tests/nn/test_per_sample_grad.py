"""``nn.utils._per_sample_grad.call_for_per_sample_grads`` (expanded weights) side by side
with PyTorch: each parameter's ``grad_sample`` after backward (float64), ``.grad`` left
``None``, the "sum" and "mean" loss reductions, a weight used twice in one forward, keyword
arguments and the errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch.nn.utils._per_sample_grad  # noqa: F401 - (makes the attribute path below)

import chainrule.nn.utils._per_sample_grad  # noqa: F401
from oracle import assert_same_error, compare


def call(lib):
    return lib.nn.utils._per_sample_grad.call_for_per_sample_grads


def filled(lib, module):
    """``module`` in float64 with NumPy values in its parameters (the same on both sides)."""
    module = module.double()
    with lib.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(lib.tensor(np.random.default_rng(i + 10).standard_normal(tuple(p.shape))))
    return module


def inputs(shape, seed=0, ints=None):
    r = np.random.default_rng(seed)
    return r.integers(0, ints, shape) if ints else r.standard_normal(shape)


# name -> (module maker, input shape, index range for integer inputs)
MODULES = {
    "linear": (lambda nn: nn.Linear(4, 3), (5, 4), None),
    "linear_3d": (lambda nn: nn.Linear(4, 3), (5, 2, 4), None),
    "linear_no_bias": (lambda nn: nn.Linear(4, 3, bias=False), (5, 4), None),
    "conv1d": (lambda nn: nn.Conv1d(2, 3, 3, padding=1), (5, 2, 6), None),
    "conv2d_groups": (lambda nn: nn.Conv2d(4, 6, 3, stride=2, groups=2), (5, 4, 7, 7), None),
    "conv3d": (lambda nn: nn.Conv3d(2, 2, 2), (3, 2, 3, 3, 3), None),
    "embedding": (lambda nn: nn.Embedding(7, 3), (5, 4), 7),
    "layer_norm": (lambda nn: nn.LayerNorm(4), (5, 3, 4), None),
    "group_norm": (lambda nn: nn.GroupNorm(2, 4), (5, 4, 3), None),
    "instance_norm": (lambda nn: nn.InstanceNorm1d(4, affine=True), (5, 4, 6), None),
    "mlp": (
        lambda nn: nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.LayerNorm(6), nn.Linear(6, 2)),
        (5, 4),
        None,
    ),
}


@pytest.mark.parametrize("reduction", ["sum", "mean"])
@pytest.mark.parametrize("name", list(MODULES))
def test_grad_samples_as_torch(name, reduction):
    make, shape, ints = MODULES[name]

    def fn(lib):
        module = filled(lib, make(lib.nn))
        x = lib.tensor(inputs(shape, ints=ints))
        out = call(lib)(module, loss_reduction=reduction)(x)
        w = lib.tensor(inputs(tuple(out.shape), seed=1))
        loss = (out * w).sum()
        (loss / shape[0] if reduction == "mean" else loss).backward()
        return [(p.grad_sample, p.grad is None) for p in module.parameters()]

    compare(fn, rtol=1e-10, atol=1e-12)


def test_input_gradient_and_a_weight_used_twice():
    # the per-sample gradients of both uses add up; the input's gradient flows as usual
    def fn(lib):
        lin = filled(lib, lib.nn.Linear(3, 3))
        x = lib.tensor(inputs((4, 3)), dtype=lib.float64, requires_grad=True)

        class Twice(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = lin

            def forward(self, x):
                return self.lin(lib.tanh(self.lin(x)))

        twice = Twice()
        f = call(lib)(twice, batch_size=4)
        f(x).pow(2).sum().backward()
        return lin.weight.grad_sample, lin.bias.grad_sample, x.grad

    compare(fn, rtol=1e-10, atol=1e-12)


def test_keyword_weight_and_frozen_parameters():
    # a frozen parameter gets no grad_sample; F.linear given its weight by keyword is seen
    def fn(lib):
        class Keyword(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.weight = lib.nn.Parameter(lib.tensor(inputs((2, 3), seed=3)))
                self.frozen = filled(lib, lib.nn.Linear(3, 3)).requires_grad_(False)

            def forward(self, x):
                return lib.nn.functional.linear(self.frozen(x), weight=self.weight)

        m = Keyword()
        call(lib)(m)(lib.tensor(inputs((4, 3)))).sum().backward()
        return m.weight.grad_sample, [
            getattr(p, "grad_sample", None) for p in m.frozen.parameters()
        ]

    compare(fn, rtol=1e-10, atol=1e-12)


def test_errors_as_torch():
    def mismatch(lib):
        call(lib)(lib.nn.Linear(2, 2), batch_size=3)(lib.zeros(4, 2))

    def two_sizes(lib):
        lin = lib.nn.Linear(2, 2)

        class Two(lib.nn.Module):
            def forward(self, a, b):
                return lin(a) + lin(b)

        call(lib)(Two())(lib.zeros(4, 2), lib.zeros(3, 2))

    def reduction(lib):
        call(lib)(lib.nn.Linear(2, 2), loss_reduction="max")

    def not_cleared(lib):
        lin = lib.nn.Linear(2, 2)
        call(lib)(lin)(lib.zeros(3, 2)).sum().backward()
        call(lib)(lin)

    def bag(lib):
        m = lib.nn.EmbeddingBag(5, 2)
        call(lib)(m)(lib.tensor([[1, 2], [3, 4]]))

    def lstm(lib):
        call(lib)(lib.nn.LSTM(2, 3, batch_first=True))(lib.zeros(4, 5, 2))

    for fn in (mismatch, two_sizes, reduction, bag):
        assert_same_error(fn)
    # (PyTorch names its fused kernel, chainrule the LSTM)
    assert_same_error(lstm, "Expanded Weights encountered but cannot handle function")
    assert_same_error(not_cleared, "Current Expanded Weights accumulates the gradients")
