"""torch._higher_order_ops.scan and map in exported programs, against the real
torch.export: PyTorch's .pt2 files loaded, printed and run with PyTorch's outputs and
gradients; chainrule's export written as PyTorch writes it (``scan_combine_graph_0``,
``body_graph_0``, operand order, code) and saved so that PyTorch's load runs it."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from export_checks import modules, printed
from torch._higher_order_ops import map as torch_map
from torch._higher_order_ops import scan as torch_scan

import chainrule as cr
import chainrule.export as cexport
from chainrule._higher_order_ops import map as cr_map
from chainrule._higher_order_ops import scan as cr_scan

RNG = np.random.default_rng(5)


def _make(L, kind):
    scan, map_ = (torch_scan, torch_map) if L is torch else (cr_scan, cr_map)

    class Scan(L.nn.Module):
        """An RNN-like scan: the carry through a layer, a number out per step."""

        def __init__(self):
            super().__init__()
            self.lin = L.nn.Linear(3, 3)

        def forward(self, init, xs):
            def combine(c, x):
                n = self.lin(c).tanh() + x
                return n, n.sum() * 2

            return scan(combine, init, xs)

    class ScanTrees(L.nn.Module):
        """Two carries and two outputs, reversed (along dim 1 for ``scan_dim``)."""

        def __init__(self, dim=0):
            super().__init__()
            self.w = L.nn.Parameter(L.ones(3) * 0.5)
            self.dim = dim

        def forward(self, h, s, xs):
            def combine(carry, x):
                h, s = carry
                h2 = (h * self.w + x).sin()
                return (h2, s + h2.sum()), {"h": h2 * 2, "s": s.clone()}

            return scan(combine, (h, s), xs, dim=self.dim, reverse=True)

    class Map(L.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = L.nn.Parameter(L.ones(3))

        def forward(self, xs, y):
            def f(x, y):
                return x.sin() * self.w + y

            return map_(f, xs, y)

    class MapTrees(L.nn.Module):
        """Two mapped inputs, an intermediate read through a closure, two outputs."""

        def __init__(self):
            super().__init__()
            self.lin = L.nn.Linear(3, 2)

        def forward(self, a, b):
            z = b.mean(0)

            def f(xs):
                u, v = xs
                return self.lin(u * v + z).relu(), u.sum()

            return map_(f, (a, b * 2))

    if kind == "scan_dim":
        return ScanTrees(dim=1)
    kinds = {"scan": Scan, "scan_trees": ScanTrees, "map": Map, "map_trees": MapTrees}
    return kinds[kind]()


def _inputs(kind):
    normal = RNG.standard_normal
    return {
        "scan": lambda: (normal((2, 3)), normal((4, 2, 3))),
        "scan_trees": lambda: (normal((2, 3)), normal(()), normal((5, 2, 3))),
        "scan_dim": lambda: (normal((2, 3)), normal(()), normal((2, 5, 3))),
        "map": lambda: (normal((4, 3)), normal(3)),
        "map_trees": lambda: (normal((5, 3)), normal((5, 3))),
    }[kind]()


KINDS = ["scan", "scan_trees", "scan_dim", "map", "map_trees"]
LOADED_KINDS = KINDS


def _quiet(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args)


def _leaves(x, lib):
    return lib.utils._pytree.tree_leaves(x)


def _same_values_and_grads(cmod, tmod, arrays):
    """Outputs of both modules, then gradients of their sum w.r.t. the inputs and the
    parameters."""
    targs = [torch.tensor(a, requires_grad=True) for a in arrays]
    cargs = [cr.tensor(a, requires_grad=True) for a in arrays]
    want, got = _leaves(tmod(*targs), torch), _leaves(cmod(*cargs), cr)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.detach().numpy(), w.detach().numpy(), rtol=1e-12)
    sum(w.sum() for w in want).backward()
    sum(g.sum() for g in got).backward()
    for c, t in zip(cargs, targs):
        np.testing.assert_allclose(c.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-14)
    tparams = dict(tmod.named_parameters())
    for name, p in cmod.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), tparams[name].grad.numpy(), rtol=1e-10)


def _saved_by_pytorch(tmp_path, kind):
    tm, _ = modules(_make, kind)
    ep = _quiet(torch.export.export, tm, tuple(torch.tensor(a) for a in _inputs(kind)))
    _quiet(torch.export.save, ep, tmp_path / "t.pt2")
    return _quiet(torch.export.load, tmp_path / "t.pt2"), cexport.load(tmp_path / "t.pt2")


@pytest.mark.parametrize("kind", LOADED_KINDS)
def test_loaded_program_prints_and_runs_as_pytorchs(tmp_path, kind):
    want, got = _saved_by_pytorch(tmp_path, kind)
    assert got.graph_module.code == want.graph_module.code
    for name, sub in want.graph_module.named_children():
        assert getattr(got.graph_module, name).code == sub.code
    assert printed(got) == printed(want)
    _same_values_and_grads(got.module(), want.module(), _inputs(kind))


@pytest.mark.parametrize("kind", KINDS)
def test_export_writes_pytorchs_program(kind):
    tm, cm = modules(_make, kind)
    arrays = _inputs(kind)
    want = _quiet(torch.export.export, tm, tuple(torch.tensor(a) for a in arrays))
    got = cexport.export(cm, tuple(cr.tensor(a) for a in arrays))
    assert [(n.op, n.name, str(n.target)) for n in got.graph.nodes] == [
        (n.op, n.name, str(n.target)) for n in want.graph.nodes
    ]
    assert got.graph_module.code == want.graph_module.code
    for name, sub in want.graph_module.named_children():
        assert getattr(got.graph_module, name).code == sub.code
    assert str(got.graph_signature) == str(want.graph_signature)
    assert printed(got) == printed(want)
    _same_values_and_grads(got.module(), tm, _inputs(kind))


@pytest.mark.parametrize("kind", KINDS)
def test_saved_program_runs_in_pytorch(tmp_path, kind):
    tm, cm = modules(_make, kind)
    ep = cexport.export(cm, tuple(cr.tensor(a) for a in _inputs(kind)))
    cexport.save(ep, tmp_path / "cr.pt2")
    loaded = _quiet(torch.export.load, tmp_path / "cr.pt2")
    theirs, _ = _saved_by_pytorch(tmp_path, kind)
    assert loaded.graph_module.code == theirs.graph_module.code
    for name, sub in theirs.graph_module.named_children():
        assert getattr(loaded.graph_module, name).code == sub.code
    _same_values_and_grads(ep.module(), loaded.module(), _inputs(kind))
