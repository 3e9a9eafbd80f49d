"""What export does with a forward whose path or numbers depend on its input's values, against
the real torch.export.export: PyTorch's fake tensors have no values, so a Python branch on a
tensor or a Python number made of one raises GuardOnDataDependentSymNode; chainrule's trace
runs real tensors and raises the same error at the same reads instead of freezing this
input's path into the program. ``torch.compiler.is_exporting()`` is True inside the traced
forward, as in PyTorch's (default, non-strict) export."""

from __future__ import annotations

import pytest
import torch

import chainrule as cr

# forwards PyTorch refuses to export (a read of a traced value into Python)
REFUSED = {
    "branch": lambda L, x: x.sin() if x.sum() > 0 else x.cos(),
    "float": lambda L, x: x * float(x.max()),
    "int": lambda L, x: x[: int(x.argmax())],
    "index": lambda L, x: x * [1.0, 2.0, 3.0][x.argmax()],
}
# forwards both export: sizes and constants are no data of the input
EXPORTED = {
    "sizes": lambda L, x: x * x.shape[0] + x.numel(),
    "constant_item": lambda L, x: x * L.tensor(3.0).item(),
    "where": lambda L, x: L.where(x.sum() > 0, x.sin(), x.cos()),
}


def _module(lib, forward):
    class M(lib.nn.Module):
        def forward(self, x):
            return forward(lib, x)

    return M()


@pytest.mark.parametrize("name", list(REFUSED))
def test_reads_of_traced_values_are_refused_as_pytorch_refuses_them(name):
    forward = REFUSED[name]
    from torch.fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode as TorchGuard

    from chainrule.fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode

    with pytest.raises(TorchGuard):
        torch.export.export(_module(torch, forward), (torch.arange(3.0),))
    with pytest.raises(GuardOnDataDependentSymNode, match="data-dependent") as caught:
        cr.export.export(_module(cr, forward), (cr.arange(3.0),))
    assert isinstance(caught.value, RuntimeError)
    assert "torch.where" in str(caught.value)  # (how to fix it)


@pytest.mark.parametrize("name", list(EXPORTED))
def test_sizes_and_constants_export(name):
    forward = EXPORTED[name]
    want = torch.export.export(_module(torch, forward), (torch.arange(3.0),))
    got = cr.export.export(_module(cr, forward), (cr.arange(3.0),))
    for x in ([0.0, 1.0, 2.0], [-3.0, -1.0, 0.5]):
        expected = want.module()(torch.tensor(x)).numpy()
        assert got.module()(cr.tensor(x)).tolist() == pytest.approx(expected.tolist(), rel=1e-6)


def test_float_item_and_tolist_are_refused_where_pytorch_keeps_a_symbol():
    """PyTorch exports ``x.max().item()`` of a float tensor as an ``aten.item`` node (a
    float symbol) and ``tolist`` as item nodes; chainrule refuses them rather than keep
    this input's number (an integer ``item()``: tests/export/test_export_unbacked.py)."""
    forward = lambda L, x: x * x.max().item()  # noqa: E731
    ep = torch.export.export(_module(torch, forward), (torch.arange(3.0),))
    assert ep.module()(torch.tensor([1.0, 2.0, 0.5])).tolist() == [2.0, 4.0, 1.0]
    with pytest.raises(NotImplementedError, match="float symbol"):
        cr.export.export(_module(cr, forward), (cr.arange(3.0),))
    with pytest.raises(NotImplementedError, match="as a symbol"):
        cr.export.export(_module(cr, lambda L, x: x * x.tolist()[0]), (cr.arange(3.0),))


@pytest.mark.parametrize("which", ["cond", "while_loop"])
def test_control_flow_operators_are_kept_as_subgraphs_not_unrolled(which):
    """PyTorch keeps cond's branches and while_loop's body as subgraphs, and so does
    chainrule's export (tests/export/test_export_control_flow.py): no trace of this
    input's path, the program runs other inputs' paths as PyTorch's."""

    def forward(L, x):
        if which == "cond":
            return L.cond(x.sum() > 0, lambda x: x.sin(), lambda x: x.cos(), (x,))
        loop = L._higher_order_ops.while_loop
        return loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2), (x.sum() * 0, x))[1]

    ep = torch.export.export(_module(torch, forward), (torch.ones(3),))
    got = cr.export.export(_module(cr, forward), (cr.ones(3),))
    assert "torch.ops.higher_order" in ep.graph_module.code
    assert got.graph_module.code == ep.graph_module.code
    x = [-1.0, -2.0, 0.5]
    want = ep.module()(torch.tensor(x))
    assert got.module()(cr.tensor(x)).tolist() == pytest.approx(want.tolist())
    # eagerly, both run as PyTorch's
    want = _module(torch, forward)(torch.tensor(x)).tolist()
    assert _module(cr, forward)(cr.tensor(x)).tolist() == pytest.approx(want)


@pytest.mark.parametrize("lib", [torch, cr], ids=["torch", "chainrule"])
def test_is_exporting_inside_the_traced_forward(lib):
    seen = []

    def forward(L, x):
        seen.append(L.compiler.is_exporting())
        return x + 1

    lib.export.export(_module(lib, forward), (lib.ones(3),))
    _module(lib, forward)(lib.ones(3))
    assert seen == [True, False]
    assert lib.compiler.is_exporting() is False


@pytest.mark.filterwarnings("ignore:`torch.jit.trace")
@pytest.mark.parametrize("lib", [torch, cr], ids=["torch", "chainrule"])
def test_jit_trace_warns_where_export_refuses(lib):
    """torch.jit.trace keeps the path taken, with its TracerWarning, and is no export."""
    seen = []

    def forward(L, x):
        seen.append(L.compiler.is_exporting())
        return x.sin() if x.sum() > 0 else x.cos()

    with pytest.warns(lib.jit.TracerWarning, match="Python boolean"):
        traced = lib.jit.trace(_module(lib, forward), (lib.ones(3),))
    assert seen and not any(seen)
    assert traced(-lib.ones(1)).tolist() == pytest.approx([-0.8414709848])  # (the sine)
