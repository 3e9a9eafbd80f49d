"""``torch.ops.aten``: the ATen overloads chainrule.export runs, called directly, as
PyTorch's (same values, same gradients)."""

from __future__ import annotations

import numpy as np
import torch

import chainrule


def _pair(*arrays):
    return [chainrule.tensor(a, requires_grad=True) for a in arrays], [
        torch.tensor(a, requires_grad=True) for a in arrays
    ]


def test_aten_overloads_compute_as_torchs():
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal((2, 4)), rng.standard_normal((3, 4)), rng.standard_normal(3)
    ours, theirs = _pair(x, w, b)
    results = []
    for lib, (xx, ww, bb) in ((chainrule, ours), (torch, theirs)):
        aten = lib.ops.aten
        y = aten.linear.default(xx, ww, bb)
        y = aten.add.Tensor(aten.relu.default(y), y, alpha=2)
        y = aten.sum.dim_IntList(aten.mul.Tensor(y, y), [-1])
        y.sum().backward()
        results.append([y.detach().numpy(), xx.grad.numpy(), ww.grad.numpy(), bb.grad.numpy()])
    for a, b_ in zip(*results):
        np.testing.assert_allclose(a, b_, rtol=1e-12, atol=1e-12)


def test_aten_namespace_as_torchs():
    aten = chainrule.ops.aten
    assert str(aten.linear.default) == str(torch.ops.aten.linear.default) == "aten.linear.default"
    assert aten.linear.default.name() == torch.ops.aten.linear.default.name() == "aten::linear"
    assert aten.add.Tensor.name() == torch.ops.aten.add.Tensor.name() == "aten::add.Tensor"
    assert not hasattr(aten, "not_an_op") and not hasattr(torch.ops.aten, "not_an_op")


def test_elu_with_its_scales_as_torchs():
    """``aten.elu`` with ``scale`` and ``input_scale`` (selu's and celu's form): values
    and gradients."""
    x = np.random.default_rng(1).standard_normal(40)
    for args in [(1.0,), (1.6732632423543772, 1.0507009873554805), (0.5, 1.0, 2.0)]:
        (ours,), (theirs,) = _pair(x)
        y, want = (
            chainrule.ops.aten.elu.default(ours, *args),
            torch.ops.aten.elu.default(theirs, *args),
        )
        y.sum().backward()
        want.sum().backward()
        np.testing.assert_allclose(
            y.detach().numpy(), want.detach().numpy(), rtol=1e-14, atol=1e-15
        )
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-14, atol=1e-15)
