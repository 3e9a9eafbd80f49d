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
from export_printing import printed

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

    return {"cond": Cond, "branches": Branches, "loop": Loop}[kind]()


def _inputs(kind, sign=1.0):
    if kind == "cond":
        return (sign * np.abs(RNG.standard_normal((2, 3))),)
    if kind == "branches":
        return (sign * np.abs(RNG.standard_normal(3)), RNG.standard_normal(2))
    return (np.array(0), sign * np.abs(RNG.standard_normal((2, 3))))


def _pair(kind):
    torch.manual_seed(0)
    tm = _make(torch, kind).double()
    cm = _make(cr, kind).double()
    cm.load_state_dict({k: cr.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return tm, cm


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
    tm, _ = _pair(kind)
    ep = _torch_export(tm, tuple(torch.tensor(a) for a in _inputs(kind)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.export.save(ep, tmp_path / "t.pt2")
        return torch.export.load(tmp_path / "t.pt2"), cexport.load(tmp_path / "t.pt2")


@pytest.mark.parametrize("kind", ["cond", "branches", "loop"])
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


@pytest.mark.parametrize("kind", ["cond", "branches", "loop"])
def test_export_writes_pytorchs_program(kind):
    tm, cm = _pair(kind)
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


@pytest.mark.parametrize("kind", ["cond", "branches", "loop"])
def test_saved_program_runs_in_pytorch(tmp_path, kind):
    tm, cm = _pair(kind)
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
    tm, cm = _pair("branches")
    ep = cexport.export(cm, tuple(cr.tensor(a) for a in _inputs("branches")))
    _same_values_and_grads(ep.module(), tm, _inputs("branches", sign))
