"""``x.item()`` of a traced integer tensor in an exported forward: PyTorch keeps the value
as an unbacked symbol (``u0``, an ``aten.item`` node) with the range ``[-int_oo, int_oo]``;
chainrule's export writes the same nodes, code and ranges when the value is a scalar
operand of an elementwise op, the saved file runs in the real torch.export.load, and
PyTorch's such programs load and run in chainrule. Other uses are refused."""

from __future__ import annotations

import pytest
import torch
from export_checks import printed

import chainrule as cr
import chainrule.export as cexport

FORWARDS = {
    "scale": lambda L, n, y: y * n.item(),
    "two items": lambda L, n, y: (y + n.sum().item(), n.item() * y, y - n.item()),
}


def _module(lib, forward):
    class M(lib.nn.Module):
        def forward(self, n, y):
            return forward(lib, n, y)

    return M()


def _listed(out):
    return [t.tolist() for t in (out if isinstance(out, tuple) else (out,))]


@pytest.mark.parametrize("name", list(FORWARDS))
def test_item_exports_as_pytorch_and_runs_in_torch(tmp_path, name):
    forward = FORWARDS[name]
    want = torch.export.export(_module(torch, forward), (torch.tensor(3), torch.arange(4.0)))
    got = cexport.export(_module(cr, forward), (cr.tensor(3), cr.arange(4.0)))
    assert got.graph_module.code == want.graph_module.code
    assert printed(got) == printed(want)
    assert str(got.range_constraints) == str(want.range_constraints)
    cexport.save(got, tmp_path / "i.pt2")
    loaded = torch.export.load(tmp_path / "i.pt2")
    assert loaded.graph_module.code == want.graph_module.code
    assert str(loaded.range_constraints) == str(want.range_constraints)
    for n in (5, -2):
        expected = _listed(forward(torch, torch.tensor(n), torch.arange(4.0)))
        assert _listed(loaded.module()(torch.tensor(n), torch.arange(4.0))) == expected
        assert _listed(got.module()(cr.tensor(n), cr.arange(4.0))) == expected


def test_pytorch_program_with_item_loads_and_runs(tmp_path):
    forward = FORWARDS["two items"]
    ep = torch.export.export(_module(torch, forward), (torch.tensor(3), torch.arange(4.0)))
    torch.export.save(ep, tmp_path / "p.pt2")
    loaded = cexport.load(tmp_path / "p.pt2")
    assert loaded.graph_module.code == ep.graph_module.code
    expected = _listed(forward(torch, torch.tensor(7), torch.arange(4.0)))
    assert _listed(loaded.module()(cr.tensor(7), cr.arange(4.0))) == expected


REFUSED = {
    # PyTorch writes range checks (_assert_scalar) for a size, unbacked sizes for a slice
    "size": (lambda L, n, y: L.zeros(n.item()), "as a size"),
    "slice": (lambda L, n, y: y[: n.item()], "as a size"),
    # PyTorch writes operator nodes on u0
    "arithmetic": (lambda L, n, y: y * (n.item() + 1), "Python arithmetic"),
    # PyTorch keeps a float symbol (zuf0)
    "float": (lambda L, n, y: y * y.sum().item(), "float symbol"),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_other_uses_of_item_are_refused(name):
    forward, message = REFUSED[name]
    torch.export.export(_module(torch, forward), (torch.tensor(3), torch.arange(4.0)))
    with pytest.raises(NotImplementedError, match=message):
        cexport.export(_module(cr, forward), (cr.tensor(3), cr.arange(4.0)))
