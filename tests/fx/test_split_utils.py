"""``chainrule.fx.passes.split_utils.split_by_tags`` against torch's: the same tagged graphs
give the same outer code, submodule code, printed module, path map and outputs (float64)."""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
from chainrule.fx.passes import split_utils as cr_split_utils
from chainrule.fx.passes.utils import HolderModule, lift_subgraph_as_module

with warnings.catch_warnings():
    # torch's module imports its splitter machinery, which warns on import
    warnings.simplefilter("ignore")
    torch_split_utils = importlib.import_module("torch.fx.passes.split_utils")

RNG = np.random.default_rng(0)
IN1, IN2 = RNG.normal(size=(2, 3)), RNG.normal(size=(2, 3))


def tagged(lib, tag_of):
    """A traced module (two inputs, a parameter, a nested Sequential) in ``lib``, each
    operation Node tagged by ``tag_of(node)``."""
    nn = lib.nn

    class SimpleModule(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear1 = nn.Linear(3, 3)
            self.linear2 = nn.Linear(3, 3)
            self.sub = nn.Sequential(nn.Linear(3, 3))
            self.p = nn.Parameter(lib.ones(3))

        def forward(self, in1, in2):
            r1 = self.linear1(in1)
            r2 = self.linear2(in2) + self.p
            r3 = lib.cat([r1, r2])
            return self.sub(r3), r1, self.p

    torch.manual_seed(0)
    module = SimpleModule().double()
    if lib is cr:
        state = tagged(torch, tag_of).state_dict()
        module.load_state_dict({k: cr.tensor(v.detach().numpy()) for k, v in state.items()})
    gm = lib.fx.symbolic_trace(module)
    for node in gm.graph.nodes:
        if node.op not in ("placeholder", "get_attr", "output"):
            node.tag = tag_of(node)
    return gm


def request_only(node):
    return "ro" if node.name == "linear1" else "main"


def three_stages(node):
    return {"linear1": "a", "linear2": "a", "add": "b"}.get(node.name, "c")


@pytest.mark.parametrize("tag_of, tags", [(request_only, ["ro", "main"]),
                                          (three_stages, ["a", "b", "c"])])  # fmt: skip
@pytest.mark.parametrize("return_tuple", [False, True])
def test_split_by_tags_matches_torch(tag_of, tags, return_tuple):
    results = []
    for lib, split_utils in ((torch, torch_split_utils), (cr, cr_split_utils)):
        gm = tagged(lib, tag_of)
        split, mapping = split_utils.split_by_tags(
            gm, tags, return_fqn_mapping=True, return_tuple=return_tuple
        )
        codes = {name: sub.code for name, sub in split.named_children()}
        out = split(lib.tensor(IN1), lib.tensor(IN2))
        values = [v.detach().numpy() for v in out]
        results.append((split.code, codes, str(split), mapping, values))
    (t_code, t_codes, t_str, t_map, t_vals), (c_code, c_codes, c_str, c_map, c_vals) = results
    assert c_code == t_code
    assert c_codes == t_codes
    assert c_str == t_str
    assert c_map == t_map
    for c_val, t_val in zip(c_vals, t_vals):
        np.testing.assert_allclose(c_val, t_val, rtol=1e-12)


def test_split_by_tags_errors():
    gm = tagged(cr, three_stages)
    with pytest.raises(AssertionError, match="order must be >= max of its upstream"):
        cr_split_utils.split_by_tags(gm, ["c", "b", "a"])
    untagged = cr.fx.symbolic_trace(cr.nn.Linear(2, 2))
    with pytest.raises(AssertionError, match="Node does not have tag"):
        cr_split_utils.split_by_tags(untagged, ["a"])


def test_getattr_and_setattr_recursive():
    model = cr.nn.Sequential(cr.nn.ModuleList([cr.nn.Linear(2, 2)]))
    linear = model[0][0]
    assert cr_split_utils.getattr_recursive(model, "0.0") is linear
    assert cr_split_utils.getattr_recursive(model, "0.1") is None
    assert cr_split_utils.getattr_recursive(model, "0.0.weight") is linear.weight
    cr_split_utils.setattr_recursive(model, "0.0.tag", "x")
    assert linear.tag == "x"


def test_lift_subgraph_as_module_copies_what_it_reads():
    gm = tagged(cr, request_only)
    module, mapping = lift_subgraph_as_module(gm, gm.graph, comp_name="all")
    assert mapping == {"linear1": "all.linear1", "linear2": "all.linear2", "p": "all.p",
                       "sub.0": "all.sub.0"}  # fmt: skip
    assert module.linear1 is gm.linear1
    assert isinstance(HolderModule({"a": cr.nn.ReLU()}).a, cr.nn.ReLU)
