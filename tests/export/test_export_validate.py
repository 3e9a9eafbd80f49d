"""``ExportedProgram.validate()``: PyTorch's verifier checks of a program's graphs against
its signature and state. A program broken as a user might break it (a renamed input
spec, a dropped or unwrapped parameter, a placeholder or output without a spec, a call of
a plain function, a buffer update of no buffer) raises ``SpecViolationError`` in
chainrule where PyTorch's raises its own; exported and loaded programs pass."""

from __future__ import annotations

import operator
import warnings

import numpy as np
import pytest
import torch
from torch._export.verifier import SpecViolationError as TorchSpecViolationError

import chainrule as cr
import chainrule.export as cexport
from chainrule.export._verifier import SpecViolationError


def _make(L):
    class M(L.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = L.nn.Linear(3, 3)
            self.bn = L.nn.BatchNorm1d(3)

        def forward(self, x):
            return self.bn(self.fc(x)).relu()

    return M().train()


def _programs(decomposed=False):
    """PyTorch's and chainrule's exports of the module (after ``run_decompositions``,
    batch norm's running statistics are buffer updates among the outputs)."""
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    want = torch.export.export(_make(torch), (torch.tensor(x),))
    got = cexport.export(_make(cr), (cr.tensor(x),))
    if decomposed:
        with warnings.catch_warnings():  # (PyTorch's deprecation notes of its own pytree)
            warnings.simplefilter("ignore")
            want = want.run_decompositions()
        got = got.run_decompositions()
    return (want, torch), (got, cr)


def _rename_input(ep, L):
    ep.graph_signature.input_specs[0].arg.name = "renamed"


def _drop_parameter(ep, L):
    del ep.state_dict["fc.weight"]


def _unwrap_parameter(ep, L):
    ep.state_dict["fc.weight"] = ep.state_dict["fc.weight"].detach().clone()


def _extra_placeholder(ep, L):
    first = next(iter(ep.graph.nodes))
    with ep.graph.inserting_before(first):
        node = ep.graph.placeholder("extra")
    node.meta["val"] = first.meta.get("val")  # (what PyTorch's verifier reads first)


def _drop_output_spec(ep, L):
    ep.graph_signature.output_specs.pop()


def _plain_function(ep, L):
    output = list(ep.graph.nodes)[-1]
    value = output.args[0][-1]
    with ep.graph.inserting_before(output):
        node = ep.graph.call_function(L.sin, (value,))
    node.meta["val"] = value.meta.get("val")
    output.args = ((*output.args[0][:-1], node),)
    ep.graph_signature.output_specs[-1].arg.name = node.name


def _update_of_no_buffer(ep, L):
    kind = type(ep.graph_signature.output_specs[0].kind)
    spec = next(s for s in ep.graph_signature.output_specs if s.kind == kind.BUFFER_MUTATION)
    spec.target = "bn.missing"


BREAKS = {
    "renamed input spec": (_rename_input, "Input spec name renamed does not match node name"),
    "dropped parameter": (_drop_parameter, "Parameter fc.weight is not in the state dict"),
    "plain tensor as parameter": (_unwrap_parameter, "not an instance of torch.nn.Parameter"),
    "placeholder without spec": (_extra_placeholder, "Number of graph inputs"),
    "output without spec": (_drop_output_spec, "Number of output nodes"),
    "plain function": (_plain_function, "is not an allowed operator type"),
    "update of no buffer": (_update_of_no_buffer, "does not point to a buffer that exists"),
}


@pytest.mark.parametrize("name", list(BREAKS))
def test_broken_program_fails_validate_as_pytorchs(name):
    broken, message = BREAKS[name]
    (want, _), (got, _) = _programs(decomposed=name == "update of no buffer")
    want.validate()
    got.validate()
    broken(want, torch)
    broken(got, cr)
    with pytest.raises(TorchSpecViolationError, match=message):
        want.validate()
    with pytest.raises(SpecViolationError, match=message):
        got.validate()


def test_call_module_node_fails_validate():
    _, (got, _) = _programs()
    output = list(got.graph.nodes)[-1]
    with got.graph.inserting_before(output):
        got.graph.create_node("call_module", "fc", (output.args[0][-1],))
    with pytest.raises(SpecViolationError, match="call_module is not valid"):
        got.validate()


def test_node_used_before_defined_fails_validate():
    _, (got, _) = _programs()
    nodes = [n for n in got.graph.nodes if n.op == "call_function"]
    first, later = nodes[0], nodes[1]
    first.args = (later, *first.args[1:])
    with pytest.raises(SpecViolationError, match="used before it has been defined"):
        got.validate()


def test_loaded_and_control_flow_programs_validate(tmp_path):
    class Loop(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.ones(3) * 0.5)

        def forward(self, x):
            c = torch.cond(x.sum() > 0, lambda x: x * self.w, lambda x: x + 1, (x,))
            return torch.while_loop(
                lambda i, y: i < 3,
                lambda i, y: (i + 1, y * self.w),
                (torch.zeros((), dtype=torch.int64), c),
            )[1]

    ep = torch.export.export(Loop(), (torch.ones(2, 3),))
    torch.export.save(ep, tmp_path / "l.pt2")
    loaded = cexport.load(tmp_path / "l.pt2")
    loaded.validate()
    assert [n.target for n in loaded.graph.nodes if n.target is operator.getitem]
    sub = loaded.graph_module.while_loop_body_graph_0.graph
    output = list(sub.nodes)[-1]
    with sub.inserting_before(output):
        sub.create_node("call_method", "sin", (next(iter(sub.nodes)),))
    with pytest.raises(SpecViolationError, match="call_method is not valid"):
        loaded.validate()
