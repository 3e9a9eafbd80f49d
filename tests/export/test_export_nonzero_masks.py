"""Calls whose result's size depends on the input's values, in an exported forward:
``torch.nonzero``, ``argwhere``, ``masked_select``, boolean-mask indexing ``x[x > 0]``,
``bincount`` and ``repeat_interleave`` by a tensor. PyTorch's export gives the size an
unbacked symbol (``u0``), read by a ``sym_size`` node after the call and checked to lie
in its range (``u0 <= 6`` for a mask of 6 elements) by ``_assert_scalar`` nodes; the
sizes made from it are ``u0``, and a read of it (``r.shape[0]``) is that node. chainrule's
export writes the same program (names, code, ranges, signature); the saved file runs in the
real torch.export.load at inputs of other counts, and PyTorch's programs run in chainrule."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from export_checks import forward_module, listed, printed

import chainrule as cr
import chainrule.export as cexport

FORWARDS = {
    "nonzero": lambda L, x: L.nonzero(x),
    "nonzero method": lambda L, x: (x > 0).nonzero() * 2,
    "argwhere": lambda L, x: L.argwhere(x),
    "mask": lambda L, x: x[x > 0],
    "mask of rows": lambda L, x: x[x[:, 0] > 0],
    "mask of columns": lambda L, x: x[:, x[0] > 0] + 1,
    "two masks": lambda L, x: (x[x > 0], x[x < 0]),
    "masked_select": lambda L, x: L.masked_select(x, x > 0) * 3,
    # downstream uses: sizes u0, reductions, casts
    "mask sum": lambda L, x: x[x > 0].sum(),
    "mask cumsum": lambda L, x: x[x > 0].cumsum(0),
    "nonzero mean": lambda L, x: L.nonzero(x).float().mean(0),
    # the size read back: PyTorch's sym_size node (sym_size_int_1 after a shape read)
    "count as size": lambda L, x: x.new_ones(L.nonzero(x).shape[0]),
    "count as scalar": lambda L, x: L.nonzero(x).size(0) + x,
    "count read twice": lambda L, x: (lambda n: x.new_zeros(n.shape[0]) * n.size(0))(L.nonzero(x)),
    "numel": lambda L, x: x[x > 0].numel() * x,
    # one mask's count is remembered: nonzero, argwhere and indexing by it share u0
    "shared mask": lambda L, x: (lambda m: (x[m], (x * 2)[m], L.nonzero(m)))(x > 0),
    "masked_select and mask": lambda L, x: (lambda m: (L.masked_select(x, m), x[m]))(x > 0),
    # sizes without an upper bound (u0: VR[0, int_oo]), a minlength as the lower one
    "bincount": lambda L, x: L.bincount((x > 0).long().view(-1)),
    "bincount minlength": lambda L, x: L.bincount((x > 0).long().view(-1), minlength=4),
    "repeat_interleave counts": lambda L, x: L.repeat_interleave((x > 0).long().sum(1)),
    "repeat_interleave rows": lambda L, x: L.repeat_interleave(x, (x[:, 0] > 0).long() + 1, 0),
    # an item() value and a mask's count, numbered together in trace order
    "item and mask": lambda L, x: x[x > 0] * (x > 1).long().sum().item(),
}
INPUTS = (
    [[1.0, -2.0, 0.0], [3.0, 0.5, -1.0]],
    [[-1.0, -2.0, 0.0], [-3.0, 0.0, -1.0]],
    [[1.0, 2.0, 4.0], [3.0, 0.5, 1.5]],
    [[0.0, 2.0, -4.0], [-3.0, 0.0, 1.5]],
)


def _close(got, want):
    assert [g[:2] for g in got] == [w[:2] for w in want]
    for (_, _, g), (_, _, w) in zip(got, want):
        np.testing.assert_allclose(np.array(g, dtype=float), np.array(w, dtype=float), rtol=1e-6)


@pytest.mark.parametrize("name", list(FORWARDS))
def test_data_dependent_sizes_export_as_pytorch_and_run_in_torch(tmp_path, name):
    forward = FORWARDS[name]
    want = torch.export.export(forward_module(torch, forward), (torch.tensor(INPUTS[0]),))
    got = cexport.export(forward_module(cr, forward), (cr.tensor(INPUTS[0]),))
    assert [(n.op, n.name) for n in got.graph.nodes] == [(n.op, n.name) for n in want.graph.nodes]
    assert got.graph_module.code == want.graph_module.code
    assert printed(got) == printed(want)
    assert str(got.range_constraints) == str(want.range_constraints)
    assert str(got.graph_signature) == str(want.graph_signature)
    cexport.save(got, tmp_path / "d.pt2")
    loaded = torch.export.load(tmp_path / "d.pt2")
    assert loaded.graph_module.code == want.graph_module.code
    assert str(loaded.range_constraints) == str(want.range_constraints)
    for x in INPUTS:
        expected = listed(forward(torch, torch.tensor(x)))
        _close(listed(loaded.module()(torch.tensor(x))), expected)
        _close(listed(got.module()(cr.tensor(x))), expected)


@pytest.mark.parametrize("name", ["mask", "nonzero mean", "count as size", "bincount"])
def test_pytorch_program_of_data_dependent_sizes_loads_and_runs(tmp_path, name):
    forward = FORWARDS[name]
    ep = torch.export.export(forward_module(torch, forward), (torch.tensor(INPUTS[0]),))
    torch.export.save(ep, tmp_path / "p.pt2")
    loaded = cexport.load(tmp_path / "p.pt2")
    assert loaded.graph_module.code == ep.graph_module.code
    assert str(loaded.range_constraints) == str(ep.range_constraints)
    for x in INPUTS:
        expected = listed(forward(torch, torch.tensor(x)))
        _close(listed(loaded.module()(cr.tensor(x))), expected)


def test_gradient_flows_through_a_mask():
    class M(cr.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = cr.nn.Parameter(cr.tensor([1.0, 2.0, 3.0]))

        def forward(self, x):
            return (x * self.w)[x > 0].sum()

    m = M()
    ep = cexport.export(m, (cr.tensor(INPUTS[0]),))
    ep.module()(cr.tensor(INPUTS[3])).backward()
    x = torch.tensor(INPUTS[3])
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * w)[x > 0].sum().backward()
    grads = [p.grad for p in ep.module().parameters() if p.grad is not None]
    assert [g.tolist() for g in grads] == [w.grad.tolist()]


REFUSED = {
    # (nonzero(as_tuple=True) and unique: tests/export/test_export_unique.py)
    # a size read from a value made from the result (PyTorch's symbol, chainrule's number)
    "derived size": (
        lambda L, x: (lambda r: x.new_zeros(r.shape[0]))(x[x > 0] * 2),
        "other than the call's result",
    ),
    # PyTorch multiplies the symbol (mul_1 = 2 * sym_size_int)
    "numel of rows": (lambda L, x: L.nonzero(x).numel() * x, "numel"),
    # two masks in one index: more symbols in PyTorch's program
    "two mask index": (lambda L, x: x[x[:, 0] > 0, x[0] > 0], "one mask"),
    # a size of the symbol plus a number (PyTorch's u0 + 6)
    "cat": (lambda L, x: L.cat([x[x > 0], x.view(-1)]), "data-dependent size"),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_other_data_dependent_calls_are_refused(name):
    forward, message = REFUSED[name]
    with pytest.raises(NotImplementedError, match=message):
        cexport.export(forward_module(cr, forward), (cr.tensor(INPUTS[0]),))


def test_with_dynamic_shapes_is_refused():
    forward = FORWARDS["mask"]
    batch = cexport.Dim("batch")
    with pytest.raises(NotImplementedError, match="dynamic_shapes"):
        cexport.export(
            forward_module(cr, forward), (cr.tensor(INPUTS[0]),), dynamic_shapes={"x": {0: batch}}
        )
