"""``chainrule.fx.experimental.const_fold`` against ``torch.fx.experimental.const_fold``: the
same modules give the same folded code, constant subgraph, printed module and outputs."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.fx.experimental.const_fold as torch_cf

import chainrule as cr
import chainrule.fx.experimental.const_fold as cr_cf

# torch warns when its constant subgraph reads attributes its GraphModule has not copied
pytestmark = pytest.mark.filterwarnings("ignore:Attempted to insert a get_attr Node")

X = np.random.default_rng(0).normal(size=(2, 4))


def build(lib, kind: str):
    """The module ``kind`` written with ``lib`` (torch or chainrule), in float64."""
    nn = lib.nn

    class Affine(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(lib.ones(4, 4))
            self.b = nn.Parameter(lib.ones(4))
            self.lin = nn.Linear(4, 4)

        def forward(self, x):
            w2 = (self.w * 2).t()
            return x @ w2 + self.b.exp() + self.lin(x)

    class Single(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(lib.ones(4, 4))

        def forward(self, x):
            return x @ self.w.relu()

    class NoConstants(nn.Module):
        def forward(self, x):
            return x.relu() + 1

    module = {"affine": Affine, "single": Single, "none": NoConstants}[kind]()
    return module.double()


def pair(kind: str):
    torch.manual_seed(0)
    t = build(torch, kind)
    c = build(cr, kind)
    state = {k: v.detach().numpy() + np.arange(v.numel()).reshape(v.shape) / 7 for k, v in
             t.state_dict().items()}  # fmt: skip
    t.load_state_dict({k: torch.tensor(v) for k, v in state.items()})
    c.load_state_dict({k: cr.tensor(v) for k, v in state.items()})
    return t, c


@pytest.mark.parametrize("kind", ["affine", "single", "none"])
def test_split_const_subgraphs_matches_torch(kind):
    t, c = pair(kind)
    tf, cf = torch_cf.split_const_subgraphs(t), cr_cf.split_const_subgraphs(c)
    assert isinstance(cf, cr_cf.FoldedGraphModule)
    assert cf.code == tf.code
    if tf.const_subgraph_module is None:
        assert cf.const_subgraph_module is None
    else:
        assert cf.const_subgraph_module.code == tf.const_subgraph_module.code
    assert cf.fx_const_folded_attrs_name == tf.fx_const_folded_attrs_name
    assert not cf.has_folding_been_run
    expected = tf(torch.tensor(X)).detach().numpy()
    np.testing.assert_allclose(cf(cr.tensor(X)).detach().numpy(), expected, rtol=1e-12)
    # after the first call the folded values are parameters of the module
    assert cf.has_folding_been_run == tf.has_folding_been_run == (kind != "none")
    assert str(cf) == str(tf)
    np.testing.assert_allclose(c(cr.tensor(X)).detach().numpy(), expected, rtol=1e-12)


def test_folded_parameters_hold_the_constant_results():
    _, c = pair("affine")
    folded = cr_cf.split_const_subgraphs(c)
    folded.run_folding()
    w2, exp_b = folded._FX_CONST_FOLDED_ATTRS
    np.testing.assert_allclose(w2.detach().numpy(), (c.w.detach().numpy() * 2).T)
    np.testing.assert_allclose(exp_b.detach().numpy(), np.exp(c.b.detach().numpy()))
    assert w2.requires_grad
    with pytest.raises(AssertionError, match="Folding has already been run"):
        folded.run_folding()


def test_skip_folding_node_fn_keeps_nodes_in_the_graph():
    codes = []
    for lib, cf, module in zip((torch, cr), (torch_cf, cr_cf), pair("affine")):
        folded = cf.split_const_subgraphs(module, skip_folding_node_fn=lambda n: n.name == "t")
        codes.append((folded.code, folded.const_subgraph_module.code))
        np.testing.assert_allclose(
            folded(lib.tensor(X)).detach().numpy(), module(lib.tensor(X)).detach().numpy()
        )
    assert codes[1] == codes[0]


def test_unique_attr_name():
    _, c = pair("single")
    traced = cr.fx.symbolic_trace(c)
    traced.a_1 = 1
    traced.a = 1
    assert cr_cf.get_unique_attr_name_in_module(traced, "a") == "a_2"
    assert cr_cf.get_unique_attr_name_in_module(traced, "1.x") == "_1_x"
