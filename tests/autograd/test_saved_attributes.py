"""``grad_fn._saved_<name>`` against PyTorch: what a node saved, under PyTorch's names, the
same objects for saved inputs, the output given back as the node's output, the checks (a
freed graph, an in-place change) and the saved-tensor hooks' unpacking."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import compare_logs, error_of


def _inputs(lib):
    a = lib.tensor([[0.5, -1.0], [2.0, 0.3]], dtype=lib.float64, requires_grad=True)
    b = lib.tensor([[1.5, 2.0], [-0.5, 1.0]], dtype=lib.float64, requires_grad=True) * 1
    m = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
    v = lib.ones(2, dtype=lib.float64, requires_grad=True)
    return a, b, m, v


CASES = {
    "mul": (lambda L, a, b, m, v: a * b, ["self", "other"]),
    "div": (lambda L, a, b, m, v: a / b, ["self", "other"]),
    "pow": (lambda L, a, b, m, v: a.pow(3), ["self", "exponent"]),
    "exp": (lambda L, a, b, m, v: a.exp(), ["result"]),
    "sin": (lambda L, a, b, m, v: a.sin(), ["self"]),
    "tanh": (lambda L, a, b, m, v: a.tanh(), ["result"]),
    "relu": (lambda L, a, b, m, v: a.relu(), ["result"]),
    "sigmoid": (lambda L, a, b, m, v: a.sigmoid(), ["result"]),
    "sum": (lambda L, a, b, m, v: a.sum(), ["self_sym_sizes"]),
    "mm": (lambda L, a, b, m, v: a @ m, ["self", "mat2"]),
    "mv": (lambda L, a, b, m, v: a @ v, ["self", "vec"]),
    "dot": (lambda L, a, b, m, v: v @ v, ["self", "tensor"]),
    "softmax": (lambda L, a, b, m, v: a.softmax(1), ["result", "dim"]),
    "log_softmax": (lambda L, a, b, m, v: a.log_softmax(0), ["result", "dim"]),
    "add": (lambda L, a, b, m, v: L.add(a, b, alpha=2), ["alpha"]),
    "clamp": (lambda L, a, b, m, v: a.clamp(-0.5, 0.5), ["self", "min", "max"]),
    "gelu": (lambda L, a, b, m, v: L.nn.functional.gelu(a), ["self", "approximate"]),
    "mse_loss": (lambda L, a, b, m, v: L.nn.functional.mse_loss(a, b), ["self", "target"]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_saved_values_as_torch(name):
    fn, names = CASES[name]

    def run(lib, log):
        a, b, m, v = _inputs(lib)
        y = fn(lib, a, b, m, v)
        for n in names:
            value = getattr(y.grad_fn, "_saved_" + n)
            if isinstance(value, lib.Tensor):
                origin = type(value.grad_fn).__name__ if value.grad_fn is not None else None
                log.append((n, np.round(value.detach().numpy(), 12).tolist(), value is a,
                            value is b, value is y, origin))  # fmt: skip
            else:
                log.append((n, repr(value)))

    compare_logs(run)


def test_the_saved_output_is_the_output_again_not_itself():
    for lib in (torch, cr):
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        y = x.exp()
        saved = y.grad_fn._saved_result
        assert saved.equal(y) and saved is not y and saved.grad_fn is y.grad_fn


ERRORS = {
    "after backward": lambda L: _after_backward(L),
    "an unknown name": lambda L: L.ones(2, requires_grad=True).exp().grad_fn._saved_nothing,
    "changed in place": lambda L: _changed(L),
}


def _after_backward(L):
    y = L.ones(2, requires_grad=True).exp()
    y.sum().backward()
    return y.grad_fn._saved_result


def _changed(L):
    z = L.ones(2, requires_grad=True) * 1
    y = z.sin()
    with L.no_grad():
        z.add_(1)
    return y.grad_fn._saved_self


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name):
    want, got = error_of(ERRORS[name], torch), error_of(ERRORS[name], cr)
    assert type(got) is type(want)
    assert str(got).replace("chainrule", "torch") == str(want) or name == "an unknown name"


def test_reading_a_packed_tensor_unpacks_it():
    def run(lib, log):
        a = lib.tensor([0.5, 1.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(
            lambda t: (log.append("pack"), t.detach())[1],
            lambda t: (log.append("unpack"), t)[1],
        ):
            y = a.sin()
        log.append(y.grad_fn._saved_self.tolist())

    compare_logs(run)


def test_raw_saved_hooks_say_they_are_missing():
    y = cr.ones(2, requires_grad=True).pow(2)
    raw = y.grad_fn._raw_saved_self
    with pytest.raises(NotImplementedError, match="per-tensor saved-tensor hooks"):
        raw.register_hooks(lambda t: t, lambda t: t)
