"""torch.cond and torch.while_loop in exported programs, against the real torch.export:
PyTorch's .pt2 files with higher-order ops loaded, printed and run (both branches, any
number of steps) with PyTorch's outputs and gradients; chainrule's export of a forward
calling them written as PyTorch writes it (subgraph attributes, node names, code) and
saved so that PyTorch's torch.export.load runs it."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from export_checks import modules, printed

import chainrule as cr
import chainrule.export as cexport

RNG = np.random.default_rng(3)


def _make(L, kind):
    class Cond(L.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = L.nn.Linear(3, 3)
            self.w = L.nn.Parameter(L.ones(3))

        def forward(self, x):
            def true_fn(x):
                return self.lin(x).sin() * self.w

            def false_fn(x):
                return x.cos() + self.w

            return L.cond(x.sum() > 0, true_fn, false_fn, (x,))

    class Branches(L.nn.Module):
        """Two conds: tuple results, closures over an intermediate and a buffer."""

        def __init__(self):
            super().__init__()
            self.a = L.nn.Parameter(L.ones(3) * 0.5)
            self.register_buffer("b", L.ones(3) * 2)

        def forward(self, x, y):
            z = x * 3

            def true_fn(x, y):
                return (x + self.a, y.sum() + z.sum())

            def false_fn(x, y):
                return (x * self.b, y.mean() + 0)

            r = L.cond(x.sum() > 0, true_fn, false_fn, (x, y))
            r2 = L.cond(r[0].sum() > 1, lambda u: u.sin(), lambda u: u.cos().clone(), (r[0],))
            mul = r2 * 2
            return r[1], mul

    class Loop(L.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = L.nn.Linear(3, 3)
            self.w = L.nn.Parameter(L.ones(3))

        def forward(self, i, x):
            limit = x.abs().sum()

            def cond_fn(i, x):
                return (i < 4) & (x.sum() < limit * self.w.sum())

            def body_fn(i, x):
                return i + 1, self.lin(x).tanh() + 0.5

            return L.while_loop(cond_fn, body_fn, (i, x))

    class CondInCond(L.nn.Module):
        """A cond in a branch, its branches reading a parameter and a closure's input."""

        def __init__(self):
            super().__init__()
            self.lin = L.nn.Linear(3, 3)
            self.w = L.nn.Parameter(L.ones(3) * 1.5)

        def forward(self, x, y):
            def inner_true(u):
                return u.sin() * self.w

            def inner_false(u):
                return u.cos() + y

            def true_fn(x):
                return L.cond(x.mean() > 0.5, inner_true, inner_false, (self.lin(x),))

            def false_fn(x):
                return x * 2

            return L.cond(x.sum() > 0, true_fn, false_fn, (x,))

    class CondInLoop(L.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = L.nn.Linear(3, 3)

        def forward(self, i, x):
            def cond_fn(i, x):
                return i < 3

            def body_fn(i, x):
                y = L.cond(x.sum() > 0, lambda u: self.lin(u).tanh(), lambda u: u.cos(), (x,))
                return i + 1, y

            return L.while_loop(cond_fn, body_fn, (i, x))

    class LoopInCond(L.nn.Module):
        """A loop in a branch, its result's counter unread."""

        def __init__(self):
            super().__init__()
            self.lin = L.nn.Linear(3, 3)

        def forward(self, i, x):
            def true_fn(i, x):
                body = lambda i, x: (i + 1, self.lin(x).tanh())  # noqa: E731
                return L.while_loop(lambda i, x: i < 3, body, (i, x))[1]

            return L.cond(x.sum() > 0, true_fn, lambda i, x: x.cos(), (i, x))

    class CondInCondInLoop(L.nn.Module):
        """The innermost cond's operand is a carried value (dynamo's clone of it)."""

        def __init__(self):
            super().__init__()
            self.w = L.nn.Parameter(L.ones(3) * 0.5)

        def forward(self, i, x):
            def body_fn(i, x):
                def inner(x):
                    return L.cond(x.mean() > 1, lambda u: u * self.w, lambda u: u + self.w, (x,))

                return i + 1, L.cond(x.sum() > 0, inner, lambda u: u.cos(), (x,))

            return L.while_loop(lambda i, x: i < 3, body_fn, (i, x))

    kinds = {
        "loop_in_cond": LoopInCond,
        "cond_in_cond_in_loop": CondInCondInLoop,
        "cond": Cond,
        "branches": Branches,
        "loop": Loop,
        "cond_in_cond": CondInCond,
        "cond_in_loop": CondInLoop,
    }
    return kinds[kind]()


def _inputs(kind, sign=1.0):
    if kind == "cond":
        return (sign * np.abs(RNG.standard_normal((2, 3))),)
    if kind == "branches":
        return (sign * np.abs(RNG.standard_normal(3)), RNG.standard_normal(2))
    if kind == "cond_in_cond":
        return (sign * np.abs(RNG.standard_normal((2, 3))), RNG.standard_normal(3))
    return (np.array(0), sign * np.abs(RNG.standard_normal((2, 3))))


# (the nested cond's three paths: outer true and inner true, outer true and inner false,
# outer false)
NESTED_PATHS = {"both_true": 2.0, "inner_false": 0.05, "outer_false": -1.0}
KINDS = [
    "cond",
    "branches",
    "loop",
    "cond_in_cond",
    "cond_in_loop",
    "loop_in_cond",
    "cond_in_cond_in_loop",
]


def _torch_export(tm, args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.export.export(tm, args)


def _leaves(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _floating(args):
    return [i for i, a in enumerate(args) if a.dtype.kind == "f"]


def _same_values_and_grads(cmod, tmod, arrays):
    """Outputs of both modules, then gradients of their sum w.r.t. the floating inputs
    and the parameters."""
    targs = [torch.tensor(a) for a in arrays]
    cargs = [cr.tensor(a) for a in arrays]
    for i in _floating(arrays):
        targs[i].requires_grad_(True)
        cargs[i].requires_grad_(True)
    want, got = _leaves(tmod(*targs)), _leaves(cmod(*cargs))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.detach().numpy(), w.detach().numpy(), rtol=1e-12)
    sum(w.double().sum() for w in want).backward()
    sum(g.double().sum() for g in got).backward()
    for i in _floating(arrays):
        np.testing.assert_allclose(cargs[i].grad.numpy(), targs[i].grad.numpy(), rtol=1e-12)
    tparams = dict(tmod.named_parameters())
    for name, p in cmod.named_parameters():
        want_grad = tparams[name].grad
        assert (p.grad is None) == (want_grad is None), name
        if want_grad is not None:
            np.testing.assert_allclose(p.grad.numpy(), want_grad.numpy(), rtol=1e-12)


def _saved_by_pytorch(tmp_path, kind):
    tm, _ = modules(_make, kind)
    ep = _torch_export(tm, tuple(torch.tensor(a) for a in _inputs(kind)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.export.save(ep, tmp_path / "t.pt2")
        return torch.export.load(tmp_path / "t.pt2"), cexport.load(tmp_path / "t.pt2")


@pytest.mark.parametrize("kind", KINDS)
def test_loaded_program_prints_as_pytorch(tmp_path, kind):
    want, got = _saved_by_pytorch(tmp_path, kind)
    assert got.graph_module.code == want.graph_module.code
    assert "torch.ops.higher_order." in got.graph_module.code
    for name, sub in want.graph_module.named_children():
        assert getattr(got.graph_module, name).code == sub.code
    assert printed(got) == printed(want)
    assert [(n.op, n.name, str(n.target)) for n in got.graph.nodes] == [
        (n.op, n.name, str(n.target)) for n in want.graph.nodes
    ]


@pytest.mark.parametrize("sign", [1.0, -1.0], ids=["true", "false"])
@pytest.mark.parametrize("kind", ["cond", "branches"])
def test_loaded_cond_runs_each_branch_with_pytorchs_gradients(tmp_path, kind, sign):
    want, got = _saved_by_pytorch(tmp_path, kind)
    _same_values_and_grads(got.module(), want.module(), _inputs(kind, sign))


@pytest.mark.parametrize("start", [0, 2, 3], ids=["steps", "two_steps", "one_step"])
def test_loaded_while_loop_runs_with_pytorchs_gradients(tmp_path, start):
    want, got = _saved_by_pytorch(tmp_path, "loop")
    arrays = (np.array(start), np.abs(RNG.standard_normal((2, 3))))
    _same_values_and_grads(got.module(), want.module(), arrays)


def test_loaded_while_loop_of_no_step_returns_its_input(tmp_path):
    """No step: the carried values, d out / d x = I (PyTorch 2.13's backward of a loop
    that ran no step gives another gradient; the math gives ones)."""
    want, got = _saved_by_pytorch(tmp_path, "loop")
    x = np.abs(RNG.standard_normal((2, 3)))
    cx = cr.tensor(x, requires_grad=True)
    i, out = got.module()(cr.tensor(4), cx)
    t_i, t_out = want.module()(torch.tensor(4), torch.tensor(x))
    assert i.item() == t_i.item() == 4
    np.testing.assert_array_equal(out.detach().numpy(), t_out.detach().numpy())
    out.sum().backward()
    np.testing.assert_array_equal(cx.grad.numpy(), np.ones((2, 3)))


@pytest.mark.parametrize("kind", KINDS)
def test_export_writes_pytorchs_program(kind):
    tm, cm = modules(_make, kind)
    arrays = _inputs(kind)
    want = _torch_export(tm, tuple(torch.tensor(a) for a in arrays))
    got = cexport.export(cm, tuple(cr.tensor(a) for a in arrays))
    assert [(n.op, n.name, str(n.target)) for n in got.graph.nodes] == [
        (n.op, n.name, str(n.target)) for n in want.graph.nodes
    ]
    assert got.graph_module.code == want.graph_module.code
    names = [name for name, _ in want.graph_module.named_children()]
    assert names == [n.target for n in got.graph.nodes if n.op == "get_attr"]
    for name in names:
        assert getattr(got.graph_module, name).code == getattr(want.graph_module, name).code
    assert str(got.graph_signature) == str(want.graph_signature)
    assert printed(got) == printed(want)
    assert repr(got.range_constraints) == repr(want.range_constraints)


@pytest.mark.parametrize("kind", KINDS)
def test_saved_program_runs_in_pytorch(tmp_path, kind):
    tm, cm = modules(_make, kind)
    arrays = _inputs(kind)
    ep = cexport.export(cm, tuple(cr.tensor(a) for a in arrays))
    cexport.save(ep, tmp_path / "cr.pt2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = torch.export.load(tmp_path / "cr.pt2")
        torch.export.save(
            _torch_export(tm, tuple(torch.tensor(a) for a in arrays)), tmp_path / "t.pt2"
        )
        theirs = torch.export.load(tmp_path / "t.pt2")
    assert loaded.graph_module.code == theirs.graph_module.code
    for name, sub in theirs.graph_module.named_children():
        assert getattr(loaded.graph_module, name).code == sub.code
    for sign in (1.0, -1.0):  # (each branch; the loop from other starts)
        case = _inputs(kind, sign)
        targs = tuple(torch.tensor(a) for a in case)
        for g, w in zip(_leaves(loaded.module()(*targs)), _leaves(tm(*targs))):
            np.testing.assert_allclose(g.detach().numpy(), w.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("sign", [1.0, -1.0], ids=["true", "false"])
def test_exported_program_runs_both_ways_in_chainrule(sign):
    tm, cm = modules(_make, "branches")
    ep = cexport.export(cm, tuple(cr.tensor(a) for a in _inputs("branches")))
    _same_values_and_grads(ep.module(), tm, _inputs("branches", sign))


@pytest.mark.parametrize("scale", NESTED_PATHS.values(), ids=NESTED_PATHS.keys())
def test_nested_cond_takes_each_path_with_pytorchs_gradients(tmp_path, scale):
    """PyTorch's file and chainrule's export, each run on the three paths."""
    want, got = _saved_by_pytorch(tmp_path, "cond_in_cond")
    x = np.abs(RNG.standard_normal((2, 3)))
    arrays = (scale * x / x.mean(), RNG.standard_normal(3))
    _same_values_and_grads(got.module(), want.module(), arrays)
    tm, cm = modules(_make, "cond_in_cond")
    ep = cexport.export(cm, tuple(cr.tensor(a) for a in _inputs("cond_in_cond")))
    _same_values_and_grads(ep.module(), tm, arrays)


@pytest.mark.parametrize("start", [0, 1, 2], ids=["three_steps", "two_steps", "one_step"])
@pytest.mark.parametrize("sign", [1.0, -1.0], ids=["true_first", "false_first"])
def test_cond_in_loop_runs_with_pytorchs_gradients(tmp_path, start, sign):
    want, got = _saved_by_pytorch(tmp_path, "cond_in_loop")
    arrays = (np.array(start), sign * np.abs(RNG.standard_normal((2, 3))))
    _same_values_and_grads(got.module(), want.module(), arrays)
    tm, cm = modules(_make, "cond_in_loop")
    ep = cexport.export(cm, tuple(cr.tensor(a) for a in _inputs("cond_in_loop")))
    _same_values_and_grads(ep.module(), tm, arrays)


@pytest.mark.parametrize("kind", ["loop_in_cond", "cond_in_cond_in_loop"])
@pytest.mark.parametrize("sign", [1.0, -1.0], ids=["true", "false"])
def test_deeper_nesting_runs_with_pytorchs_gradients(tmp_path, kind, sign):
    want, got = _saved_by_pytorch(tmp_path, kind)
    arrays = (np.array(0), sign * 2 * np.abs(RNG.standard_normal((2, 3))))
    _same_values_and_grads(got.module(), want.module(), arrays)
    tm, cm = modules(_make, kind)
    ep = cexport.export(cm, tuple(cr.tensor(a) for a in _inputs(kind)))
    _same_values_and_grads(ep.module(), tm, arrays)
