"""Calls of several results, some of a data-dependent size, in an exported forward:
``torch.unique`` (ATen's ``_unique2``, ``unique_dim`` with a ``dim``),
``torch.unique_consecutive``, ``torch.nonzero(x, as_tuple=True)`` (``nonzero_numpy``) and
``torch.where(condition)`` (``where.default``). PyTorch's export writes a ``getitem`` node
per result, read or not, gives the count an unbacked symbol checked by ``_assert_scalar``
nodes on a ``getitem`` of its own, then merges the result's first ``getitem`` into that one
after making the code (so the program's ``code`` shows both). chainrule's export writes the same program (nodes, code,
printed program, ranges, signature); each one's saved file loads and runs in the other."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from export_checks import forward_module, listed, printed

import chainrule as cr
import chainrule.export as cexport

FORWARDS = {
    "unique": lambda L, x: L.unique(x),
    "inverse and counts": lambda L, x: L.unique(x, return_inverse=True, return_counts=True),
    "counts": lambda L, x: L.unique(x, return_counts=True),
    "unsorted": lambda L, x: L.unique(x, sorted=False),
    "method": lambda L, x: x.unique(return_inverse=True),
    "of a mask": lambda L, x: L.unique(x > 1),
    "values used": lambda L, x: L.unique(x) * 2,
    "dim": lambda L, x: L.unique(x, dim=0, return_inverse=True, return_counts=True),
    "negative dim": lambda L, x: L.unique(x, dim=-1, sorted=False),
    "consecutive": lambda L, x: L.unique_consecutive(x, return_inverse=True, return_counts=True),
    "consecutive dim": lambda L, x: L.unique_consecutive(x, dim=1),
    "consecutive method": lambda L, x: x.unique_consecutive(return_counts=True),
    # the count read back: the checks' sym_size node (sym_size_int_1 after a shape read)
    "count as size": lambda L, x: x.new_ones(L.unique(x).shape[0]),
    "count of counts": lambda L, x: (lambda r: x.new_zeros(r[1].size(0)))(
        L.unique(x, return_counts=True)
    ),
    "numel": lambda L, x: L.unique(x).numel() * x,
    # one input's count is remembered by kind: unique and unique_consecutive apart
    "twice": lambda L, x: (L.unique(x), L.unique(x * 2)),
    "same input": lambda L, x: (L.unique(x), L.unique(x, return_counts=True)),
    "consecutive and unique": lambda L, x: (
        L.unique_consecutive(x),
        L.unique_consecutive(x, return_counts=True),
        L.unique(x),
    ),
    "nonzero and unique": lambda L, x: (L.nonzero(x), L.unique(x)),
    # nonzero(as_tuple=True): nonzero_numpy, sharing nonzero's count of the same input
    "as_tuple": lambda L, x: L.nonzero(x, as_tuple=True),
    "as_tuple method": lambda L, x: [t * 2 for t in x.nonzero(as_tuple=True)],
    "as_tuple index": lambda L, x: x[L.nonzero(x, as_tuple=True)],
    "as_tuple of a vector": lambda L, x: L.nonzero(x[0], as_tuple=True),
    "as_tuple and nonzero": lambda L, x: (L.nonzero(x), L.nonzero(x, as_tuple=True)),
    "as_tuple and mask": lambda L, x: (L.nonzero(x, as_tuple=True), x[x != 0]),
    # where(condition): where.default, as nonzero_numpy
    "where of a condition": lambda L, x: L.where(x > 1),
    "where and nonzero": lambda L, x: (L.nonzero(x), L.where(x)),
    "where of three": lambda L, x: L.where(x > 1, x, 0.0),
}
INPUTS = (
    [[1.0, 0.0, 2.0], [1.0, 0.0, 3.0]],
    [[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]],
    [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]],
    [[3.0, 3.0, 0.0], [1.0, 1.0, 0.0]],
)


def _same(got, want):
    assert [g[:2] for g in got] == [w[:2] for w in want]
    for (_, _, g), (_, _, w) in zip(got, want):
        np.testing.assert_allclose(np.array(g, dtype=float), np.array(w, dtype=float))


def _nodes(ep):
    return [(n.op, n.name, str(n.target)) for n in ep.graph.nodes]


@pytest.mark.parametrize("name", list(FORWARDS))
def test_unique_and_as_tuple_export_as_pytorch_and_run_in_torch(tmp_path, name):
    forward = FORWARDS[name]
    want = torch.export.export(forward_module(torch, forward), (torch.tensor(INPUTS[0]),))
    got = cexport.export(forward_module(cr, forward), (cr.tensor(INPUTS[0]),))
    assert _nodes(got) == _nodes(want)
    assert got.graph_module.code == want.graph_module.code
    assert printed(got) == printed(want)
    assert str(got.range_constraints) == str(want.range_constraints)
    assert str(got.graph_signature) == str(want.graph_signature)
    cexport.save(got, tmp_path / "u.pt2")
    torch.export.save(want, tmp_path / "want.pt2")
    loaded = torch.export.load(tmp_path / "u.pt2")
    reference = torch.export.load(tmp_path / "want.pt2")
    assert _nodes(loaded) == _nodes(reference)
    assert loaded.graph_module.code == reference.graph_module.code
    assert str(loaded.range_constraints) == str(want.range_constraints)
    for x in INPUTS:
        expected = listed(forward(torch, torch.tensor(x)))
        _same(listed(loaded.module()(torch.tensor(x))), expected)
        _same(listed(got.module()(cr.tensor(x))), expected)


@pytest.mark.parametrize(
    "name",
    [
        "unique",
        "inverse and counts",
        "dim",
        "consecutive",
        "count as size",
        "as_tuple",
        "where of a condition",
    ],
)
def test_pytorch_programs_of_unique_load_and_run(tmp_path, name):
    forward = FORWARDS[name]
    ep = torch.export.export(forward_module(torch, forward), (torch.tensor(INPUTS[0]),))
    torch.export.save(ep, tmp_path / "p.pt2")
    reference = torch.export.load(tmp_path / "p.pt2")
    loaded = cexport.load(tmp_path / "p.pt2")
    assert _nodes(loaded) == _nodes(reference)
    assert loaded.graph_module.code == reference.graph_module.code
    assert str(loaded.range_constraints) == str(ep.range_constraints)
    for x in INPUTS:
        expected = listed(forward(torch, torch.tensor(x)))
        _same(listed(loaded.module()(cr.tensor(x))), expected)


def test_unique_of_an_empty_tensor_is_refused():
    # (PyTorch writes a count of 0 there, no symbol)
    with pytest.raises(NotImplementedError, match="empty"):
        cexport.export(forward_module(cr, FORWARDS["unique"]), (cr.zeros(0),))
