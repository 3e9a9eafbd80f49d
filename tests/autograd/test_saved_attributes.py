"""``grad_fn._saved_<name>`` against PyTorch: what a node saved, under PyTorch's names, the
same objects for saved inputs, the output given back as the node's output, the checks (a
freed graph, an in-place change) and the saved-tensor hooks' unpacking."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import compare, compare_logs, error_of


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


def test_per_tensor_saved_hooks_pack_now_and_unpack_in_backward():
    """``grad_fn._raw_saved_<name>.register_hooks(pack, unpack)``: pack runs at once (grad
    mode off, on an alias of the tensor), backward gets unpack's tensor: here a constant in
    place of one of mul's two saved inputs, so the gradient shows which one was replaced."""

    def run(lib, log):
        a = lib.tensor([0.5, 1.0, -2.0], requires_grad=True)
        y = a * a.exp()
        raw = y.grad_fn._raw_saved_self
        log.append(type(raw).__name__)
        raw.register_hooks(
            lambda t: (log.append(["pack", lib.is_grad_enabled(), t.requires_grad]), "kept")[1],
            lambda p: (log.append(["unpack", p]), lib.full((3,), 5.0))[1],
        )
        log.append(y.grad_fn._saved_self.tolist())  # (reading it unpacks it)
        y.sum().backward()
        log.append([round(v, 3) for v in a.grad.tolist()])
        z = a.exp()
        z.grad_fn._raw_saved_result.register_hooks(lambda t: t.clone(), lambda t: t * 2)
        z.sum().backward()
        log.append([round(v, 3) for v in a.grad.tolist()])

    compare_logs(run)


def test_a_hooked_saved_tensor_skips_its_version_check_and_the_others_keep_theirs():
    def run(lib, log):
        a = lib.tensor([0.5, 1.0], requires_grad=True)
        b = a * 1
        c = a * 1
        y = b * c
        y.grad_fn._raw_saved_self.register_hooks(lambda t: t.clone(), lambda t: t)
        with lib.no_grad():
            b.mul_(3)  # (the hooked self: its clone is what backward reads)
        y.sum().backward(retain_graph=True)
        log.append(a.grad.tolist())
        with lib.no_grad():
            c.mul_(3)  # (other, still saved as it is: checked)
        log.append(type(error_of(lambda lib: y.sum().backward(), lib)).__name__)

    compare_logs(run)


@pytest.mark.parametrize(
    "case",
    ["twice", "freed", "context_hooked", "not_callable", "pack_writes", "unpack_not_tensor"],
)
def test_per_tensor_saved_hooks_errors_match_torch(case):
    def run(lib):
        a = lib.tensor([0.5, 1.0], requires_grad=True)
        if case == "context_hooked":
            with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                y = a.exp()
        else:
            y = a.exp()
        raw = y.grad_fn._raw_saved_result
        if case == "twice":
            raw.register_hooks(lambda t: t, lambda t: t)
        if case == "freed":
            y.sum().backward()
        if case == "not_callable":
            raw.register_hooks(lambda t: t, 5)
        if case == "pack_writes":
            y.grad_fn._raw_saved_result.register_hooks(lambda t: t.mul_(2), lambda t: t)
        if case == "unpack_not_tensor":
            raw.register_hooks(lambda t: t, lambda t: 3)
            y.sum().backward()
        raw.register_hooks(lambda t: t, lambda t: t)

    mine, theirs = error_of(run, cr), error_of(run, torch)
    assert type(mine) is type(theirs)
    assert str(mine).split("\n")[0] == str(theirs).split("\n")[0]


def test_second_order_through_a_tensor_with_its_own_saved_hooks():
    def run(lib):
        x = lib.tensor([0.5, 1.0, -0.3], dtype=lib.float64, requires_grad=True)
        h = x * 2
        y = (h.exp() * h).sum()
        y.grad_fn.next_functions[0][0]._raw_saved_self.register_hooks(
            lambda t: t.clone(), lambda t: t
        )
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (g2,) = lib.autograd.grad(g.sum(), x)
        return g, g2

    compare(run, rtol=1e-12)
