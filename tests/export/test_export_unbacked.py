"""``x.item()`` of a traced integer tensor in an exported forward: PyTorch keeps the value
as an unbacked symbol (``u0``, an ``aten.item`` node). chainrule's export writes the same
nodes, code and ranges when the value is a scalar operand of an elementwise op, takes
Python arithmetic with ints (``operator`` nodes), is checked (``torch._check``,
``torch._check_is_size``: ``ge``/``le`` nodes asserted by ``aten._assert_scalar``) and is a
size (``torch.zeros(n)``, ``y.new_zeros(n)``, ``y.narrow(0, 0, n)``, a checked ``y[:n]``);
the saved file runs in the real torch.export.load at other values, and PyTorch's such
programs load and run in chainrule. Other uses are refused."""

from __future__ import annotations

import pytest
import torch
from export_checks import printed

import chainrule as cr
import chainrule.export as cexport


def _checked(L, n, y):
    """``n`` checked to lie in ``[0, y.size(0)]``, as users write it before a slice."""
    L._check(n >= 0)
    L._check(n <= y.size(0))
    return n


def _is_size(L, n):
    L._check_is_size(n)
    return n


FORWARDS = {
    "scale": lambda L, n, y: y * n.item(),
    "two items": lambda L, n, y: (y + n.sum().item(), n.item() * y, y - n.item()),
    # Python arithmetic on the symbol: operator nodes (add = item + 1, mul_1 = 3 * item)
    "arithmetic": lambda L, n, y: y * (n.item() - 1) + 3 * n.item(),
    "shift": lambda L, n, y: y * (n.item() + 1) * (n.item() * 2),
    # sizes: the range checks PyTorch writes after the item node
    "zeros": lambda L, n, y: L.zeros(n.item()),
    "zeros checked": lambda L, n, y: L.zeros(_checked(L, n.item(), y), 2).sum(0) + 1,
    "is_size": lambda L, n, y: L.ones(_is_size(L, n.item())) * 2,
    "new_zeros": lambda L, n, y: y.new_zeros(n.item()),
    "full": lambda L, n, y: (L.full((n.item(),), 2.0), y * n.item()),
    "narrow": lambda L, n, y: y.narrow(0, 1, n.item()) * 2,
    "slice": lambda L, n, y: y[: _checked(L, n.item(), y)],
    "check only": lambda L, n, y: y * _is_size(L, n.item()),
}
# values of n in the range each program checks (other than the example's 3)
AT = {"narrow": (5, 0), "slice": (6, 0)}


def _module(lib, forward):
    class M(lib.nn.Module):
        def forward(self, n, y):
            return forward(lib, n, y)

    return M()


def _listed(out):
    return [t.tolist() for t in (out if isinstance(out, tuple) else (out,))]


@pytest.mark.filterwarnings("ignore:_check_is_size:FutureWarning")
@pytest.mark.parametrize("name", list(FORWARDS))
def test_item_exports_as_pytorch_and_runs_in_torch(tmp_path, name):
    forward = FORWARDS[name]
    want = torch.export.export(_module(torch, forward), (torch.tensor(3), torch.arange(6.0)))
    got = cexport.export(_module(cr, forward), (cr.tensor(3), cr.arange(6.0)))
    assert got.graph_module.code == want.graph_module.code
    assert printed(got) == printed(want)
    assert str(got.range_constraints) == str(want.range_constraints)
    cexport.save(got, tmp_path / "i.pt2")
    loaded = torch.export.load(tmp_path / "i.pt2")
    assert loaded.graph_module.code == want.graph_module.code
    assert str(loaded.range_constraints) == str(want.range_constraints)
    for n in AT.get(name, (5, 0)):
        expected = _listed(forward(torch, torch.tensor(n), torch.arange(6.0)))
        assert _listed(loaded.module()(torch.tensor(n), torch.arange(6.0))) == expected
        assert _listed(got.module()(cr.tensor(n), cr.arange(6.0))) == expected


@pytest.mark.parametrize("name", ["zeros", "narrow", "slice"])
def test_range_checks_fail_at_run_time_as_pytorchs(tmp_path, name):
    forward = FORWARDS[name]
    want = torch.export.export(_module(torch, forward), (torch.tensor(3), torch.arange(6.0)))
    got = cexport.export(_module(cr, forward), (cr.tensor(3), cr.arange(6.0)))
    cexport.save(got, tmp_path / "r.pt2")
    loaded = torch.export.load(tmp_path / "r.pt2")
    message = "Runtime assertion failed for expression u0 >= 0"
    for run, lib in ((want.module(), torch), (loaded.module(), torch), (got.module(), cr)):
        with pytest.raises(RuntimeError, match=message):
            run(lib.tensor(-1), lib.arange(6.0))
    if name != "zeros":
        with pytest.raises(RuntimeError, match="u0 <= "):
            got.module()(cr.tensor(7), cr.arange(6.0))


@pytest.mark.parametrize("name", ["two items", "shift", "zeros checked", "slice"])
def test_pytorch_program_with_item_loads_and_runs(tmp_path, name):
    forward = FORWARDS[name]
    ep = torch.export.export(_module(torch, forward), (torch.tensor(3), torch.arange(6.0)))
    torch.export.save(ep, tmp_path / "p.pt2")
    loaded = cexport.load(tmp_path / "p.pt2")
    assert loaded.graph_module.code == ep.graph_module.code
    expected = _listed(forward(torch, torch.tensor(5), torch.arange(6.0)))
    assert _listed(loaded.module()(cr.tensor(5), cr.arange(6.0))) == expected
    if name in ("zeros checked", "slice"):  # (the range checks run in chainrule too)
        with pytest.raises(RuntimeError, match="Runtime assertion failed"):
            loaded.module()(cr.tensor(-1), cr.arange(6.0))


REFUSED = {
    # PyTorch makes a second symbol (u1) for the size of an unchecked slice
    "unchecked slice": (lambda L, n, y: y[: n.item()], "second symbol"),
    # PyTorch writes a check of u0 + 1 >= 0 beside the range
    "arithmetic as size": (lambda L, n, y: L.zeros(n.item() + 1), "as a size"),
    # PyTorch keeps a strict comparison as an assertion beside the range
    "strict check": (lambda L, n, y: (L._check(n.item() > 0), y)[1], "strict comparison"),
    # PyTorch keeps a float symbol (zuf0)
    "float": (lambda L, n, y: y * y.sum().item(), "float symbol"),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_other_uses_of_item_are_refused(name):
    forward, message = REFUSED[name]
    torch.export.export(_module(torch, forward), (torch.tensor(3), torch.arange(6.0)))
    with pytest.raises(NotImplementedError, match=message):
        cexport.export(_module(cr, forward), (cr.tensor(3), cr.arange(6.0)))


GUARDS = {
    "branch": lambda L, n, y: y * 2 if n.item() > 0 else y,
    "int": lambda L, n, y: y * int(n.item()),
    "checked branch": lambda L, n, y: y * 2 if n.item() >= 0 else y,
}


@pytest.mark.parametrize("name", list(GUARDS))
def test_item_in_a_branch_is_pytorchs_guard_error(name):
    from chainrule.fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode

    forward = GUARDS[name]
    with pytest.raises(torch.fx.experimental.symbolic_shapes.GuardOnDataDependentSymNode):
        torch.export.export(_module(torch, forward), (torch.tensor(3), torch.arange(6.0)))
    with pytest.raises(GuardOnDataDependentSymNode, match="data-dependent"):
        cexport.export(_module(cr, forward), (cr.tensor(3), cr.arange(6.0)))


def _with_loop(L):
    """``item()`` values before and after a while loop reading a parameter: PyTorch
    numbers the loop's symbol (``u1: VR[1, int_oo]``) between theirs."""

    class M(L.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = L.nn.Parameter(L.ones(6) * 0.5)

        def forward(self, n, y):
            k = n.item()
            L._check(k >= 0)
            _, z = L.while_loop(lambda c, z: c < 3, lambda c, z: (c + 1, z * self.w), (n * 0, y))
            m = (n + 1).item()
            return y * k + m, z, L.zeros(k)

    return M()


def test_item_values_and_loops_are_numbered_together(tmp_path):
    want = torch.export.export(_with_loop(torch), (torch.tensor(3), torch.arange(6.0)))
    got = cexport.export(_with_loop(cr), (cr.tensor(3), cr.arange(6.0)))
    assert got.graph_module.code == want.graph_module.code
    assert printed(got) == printed(want)
    assert str(got.range_constraints) == str(want.range_constraints)
    cexport.save(got, tmp_path / "l.pt2")
    torch.export.save(want, tmp_path / "t.pt2")
    loaded = torch.export.load(tmp_path / "l.pt2")
    assert loaded.graph_module.code == torch.export.load(tmp_path / "t.pt2").graph_module.code
    expected = _listed(want.module()(torch.tensor(4), torch.arange(6.0)))
    assert _listed(loaded.module()(torch.tensor(4), torch.arange(6.0))) == expected
    assert _listed(got.module()(cr.tensor(4), cr.arange(6.0))) == expected
