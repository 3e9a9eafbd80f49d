"""Tensor.grad_dtype (PyTorch 2.9+): a leaf's gradient kept in another dtype (a bfloat16
parameter's gradient accumulated in float32), or in any (None), against PyTorch."""

from __future__ import annotations

import pytest
import torch

import chainrule as cr


def test_a_bfloat16_leaf_accumulates_in_float32_as_torch():
    results = []
    for lib in (cr, torch):
        x = lib.tensor([1.1, 2.2], dtype=lib.bfloat16, requires_grad=True)
        assert x.grad_dtype == lib.bfloat16
        x.grad_dtype = lib.float32
        for _ in range(3):
            (x * 1.01).sum().backward()
        results.append((str(x.grad.dtype), x.grad.tolist(), str(x.grad_dtype)))
    assert results[0] == results[1]
    assert results[0][0] == "torch.float32"


def test_autograd_grad_and_none_as_torch():
    for lib in (cr, torch):
        w = lib.ones(2, requires_grad=True)
        w.grad_dtype = lib.float64
        (g,) = lib.autograd.grad((w * 2).sum(), w)
        assert g.dtype == lib.float64 and g.tolist() == [2.0, 2.0]
        z = lib.ones(2, requires_grad=True)
        z.grad_dtype = None
        assert z.grad_dtype is None
        (z.double() * 2).sum().backward()
        assert z.grad.dtype == lib.float32  # (the cast back to z's dtype is the graph's)
        y = lib.ones(2)
        y.grad_dtype = lib.float16
        assert y.grad_dtype == lib.float16


def test_errors_as_torch():
    messages = []
    for lib in (cr, torch):
        w = lib.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError, match="grad_dtype can only be set on leaf tensors"):
            (w * 2).grad_dtype = lib.float64
        x = lib.ones(2, dtype=lib.bfloat16, requires_grad=True)
        x.grad_dtype = lib.float32
        with pytest.raises(RuntimeError) as bad:
            x.grad = lib.zeros(2, dtype=lib.bfloat16)
        x.grad = lib.zeros(2)
        with pytest.raises(RuntimeError) as default:
            lib.ones(2, requires_grad=True).grad = lib.ones(2, dtype=lib.float64)
        messages.append((str(bad.value), str(default.value)))
    assert messages[0] == messages[1]
