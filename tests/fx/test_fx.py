"""``chainrule.fx`` against ``torch.fx``: the same modules traced by both give the same
printed graphs, generated code, readable modules, nodes and outputs; Interpreter,
Transformer, graph surgery and the tracing errors behave the same."""

from __future__ import annotations

import copy
import math
import operator
import re
import sys
import typing
from math import sqrt

import numpy as np
import pytest
import torch
import torch.fx

import chainrule as cr
import chainrule.fx
from chainrule.fx.node import _get_qualified_name

LIBS = {"torch": torch, "chainrule": cr}


def scaled_sum(x, k):
    """A function made a leaf of tracing by ``wrap`` (in both libraries)."""
    return x * k + x.sum()


torch.fx.wrap("scaled_sum")
chainrule.fx.wrap("scaled_sum")


def build(lib, kind: str):
    """The module ``kind`` written with ``lib`` (torch or chainrule)."""
    nn, F = lib.nn, lib.nn.functional

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(4, 8)
            self.fc2 = nn.Linear(8, 3)

        def forward(self, x):
            return self.fc2(lib.relu(self.fc1(x)))

    class ConvNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, 4, 3)
            self.pool = nn.MaxPool2d(2)
            self.fc = nn.Linear(4 * 3 * 3, 5)

        def forward(self, x):
            x = self.pool(F.relu(self.conv(x)))
            x = F.max_pool2d(x, 1)
            x = lib.flatten(x, 1)
            return F.log_softmax(self.fc(x), dim=1)

    class Ops(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(lib.ones(4, 4) * 0.5)
            self.register_buffer("b", lib.ones(4))

        def forward(self, x, y):
            z = lib.cat([x, y], dim=0)
            n = z.size(0)
            z = z.view(n, -1) @ self.w
            z = z + self.b * 2 - 1 + self.b
            z = -z / 3
            s = z.shape
            return z.relu().sum(dim=1, keepdim=True), s[0], z[:, 1:3], lib.ones(4) + z[0]

    class Residual(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4))
            self.norm = nn.LayerNorm(4)

        def forward(self, x):
            y = self.layers(x) + self.layers[0].weight.sum()
            return F.gelu(self.norm(x + y)) + scaled_sum(x, 2)

    class Flow(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x, scale=1.0, activate=True):
            y = self.fc(x) * scale
            if activate:
                y = lib.sigmoid(y)
            return y

    return {"mlp": MLP, "conv": ConvNet, "ops": Ops, "residual": Residual, "flow": Flow}[kind]()


INPUTS = {
    "mlp": [(5, 4)],
    "conv": [(2, 1, 8, 8)],
    "ops": [(2, 4), (1, 4)],
    "residual": [(3, 4)],
    "flow": [(3, 4)],
}


def pair(kind: str):
    """The torch module and the chainrule module with the same parameters."""
    torch.manual_seed(0)
    tm = build(torch, kind)
    cm = build(cr, kind)
    cm.load_state_dict({k: cr.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return tm, cm


def inputs(kind: str):
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in INPUTS[kind]]
    return [torch.tensor(a) for a in arrays], [cr.tensor(a) for a in arrays]


def as_numpy(out):
    if isinstance(out, (tuple, list)):
        return [as_numpy(o) for o in out]
    if isinstance(out, (int, float, np.ndarray)):
        return out
    return out.detach().numpy()


def assert_same_values(c, t) -> None:
    c, t = as_numpy(c), as_numpy(t)
    if isinstance(t, list):
        assert len(c) == len(t)
        for a, b in zip(c, t):
            assert_same_values(a, b)
    else:
        np.testing.assert_allclose(c, t, rtol=1e-5, atol=1e-6)


def torch_target(target) -> str:
    """PyTorch's name of a target as its graphs print it (``operator.add``)."""
    if isinstance(target, str):
        return target
    name = torch.fx.node._get_qualified_name(target).replace("_operator.", "operator.")
    return name if "." in name else f"builtins.{name}"


def cr_target(target) -> str:
    return target if isinstance(target, str) else _get_qualified_name(target)


def node_table(graph, name_of) -> list[tuple]:
    return [
        (n.op, n.name, name_of(n.target), len(n.users), [str(a) for a in n.all_input_nodes])
        for n in graph.nodes
    ]


def assert_same_module(cg, tg) -> None:
    """The same graph, code, readable text, printed module and nodes."""
    assert str(cg.graph) == str(tg.graph)
    assert cg.code == tg.code
    assert cg.print_readable(print_output=False) == tg.print_readable(print_output=False)
    assert str(cg) == str(tg)
    assert node_table(cg.graph, cr_target) == node_table(tg.graph, torch_target)


@pytest.mark.parametrize("kind", ["mlp", "conv", "ops", "residual"])
def test_symbolic_trace_matches_torch(kind):
    tm, cm = pair(kind)
    tg, cg = torch.fx.symbolic_trace(tm), cr.fx.symbolic_trace(cm)
    assert_same_module(cg, tg)
    assert type(cg).__name__ == type(tg).__name__ == type(tm).__name__
    t_in, c_in = inputs(kind)
    assert_same_values(cg(*c_in), tm(*t_in))
    assert_same_values(cm(*c_in), tg(*t_in))


@pytest.mark.parametrize("concrete", [{"activate": True}, {"activate": False, "scale": 2.0}])
def test_concrete_args_specialize_control_flow(concrete):
    tm, cm = pair("flow")
    tg = torch.fx.symbolic_trace(tm, concrete_args=concrete)
    cg = cr.fx.symbolic_trace(cm, concrete_args=concrete)
    assert_same_module(cg, tg)
    t_in, c_in = inputs("flow")
    expected = tm(*t_in, **concrete)
    assert_same_values(cg(*c_in, **{f"{k}_1": v for k, v in concrete.items()}), expected)
    with pytest.raises(AssertionError) as c_err:
        cg(*c_in, activate_1=not concrete["activate"])
    with pytest.raises(AssertionError) as t_err:
        tg(*t_in, activate_1=not concrete["activate"])
    assert str(c_err.value) == str(t_err.value)


def test_data_dependent_control_flow_raises_trace_error():
    def branchy(x):
        if x.sum() > 0:
            return x
        return -x

    with pytest.raises(torch.fx.proxy.TraceError) as t_err:
        torch.fx.symbolic_trace(branchy)
    with pytest.raises(cr.fx.proxy.TraceError) as c_err:
        cr.fx.symbolic_trace(branchy)
    assert str(c_err.value) == str(t_err.value)
    assert "symbolically traced variables cannot be used as inputs to control flow" in str(
        c_err.value
    )
    assert isinstance(c_err.value, ValueError)


@pytest.mark.parametrize(
    "fn",
    [lambda x: [a for a in x], lambda x: len(x), lambda x: int(x)],
    ids=["iterate", "len", "int"],
)
def test_untraceable_uses_raise_as_torch(fn):
    with pytest.raises(Exception) as t_err:
        torch.fx.symbolic_trace(fn)
    with pytest.raises(Exception) as c_err:
        cr.fx.symbolic_trace(fn)
    assert type(c_err.value).__name__ == type(t_err.value).__name__
    assert str(c_err.value) == str(t_err.value).replace("Proxy'", "Proxy'")


def test_unpacking_and_attribute_chains_trace():
    def fn(x):
        a, b = x
        return abs(x), a, x.foo.bar, b.relu()

    assert cr.fx.symbolic_trace(fn).code == torch.fx.symbolic_trace(fn).code


def test_custom_leaf_module_tracer():
    def tracer_for(lib, base):
        class LeafSequential(base):
            def is_leaf_module(self, m, qualname):
                return isinstance(m, lib.nn.Sequential) or super().is_leaf_module(m, qualname)

        return LeafSequential()

    tm, cm = pair("residual")
    tgraph = tracer_for(torch, torch.fx.Tracer).trace(tm)
    cgraph = tracer_for(cr, cr.fx.Tracer).trace(cm)
    assert str(cgraph) == str(tgraph)
    assert cgraph.python_code("self").src == tgraph.python_code("self").src
    tg, cg = torch.fx.GraphModule(tm, tgraph), cr.fx.GraphModule(cm, cgraph)
    assert str(cg) == str(tg)
    t_in, c_in = inputs("residual")
    assert_same_values(cg(*c_in), tm(*t_in))


def test_tracer_subclass_overrides_create_node_and_call_module():
    def tracer_for(base):
        class Counting(base):
            seen: list

            def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
                node = super().create_node(kind, target, args, kwargs, name, type_expr)
                node.meta["tag"] = kind
                return node

            def call_module(self, m, forward, args, kwargs):
                self.seen.append(type(m).__name__)
                return super().call_module(m, forward, args, kwargs)

        tracer = Counting()
        tracer.seen = []
        return tracer

    tm, cm = pair("residual")
    tt, ct = tracer_for(torch.fx.Tracer), tracer_for(cr.fx.Tracer)
    tgraph, cgraph = tt.trace(tm), ct.trace(cm)
    assert ct.seen == tt.seen
    assert [n.meta["tag"] for n in cgraph.nodes] == [n.meta["tag"] for n in tgraph.nodes]


def test_wrapped_function_is_one_call_function_node():
    tm, cm = pair("residual")
    cg = cr.fx.symbolic_trace(cm)
    wrapped = [n for n in cg.graph.nodes if n.target is scaled_sum]
    assert len(wrapped) == 1 and wrapped[0].op == "call_function"
    assert 'torch.fx._symbolic_trace.wrap("test_fx_scaled_sum")' in cg.code or (
        "scaled_sum" in cg.code
    )
    assert cg.code == torch.fx.symbolic_trace(tm).code


def test_interpreter_runs_the_graph():
    for kind in ("mlp", "ops", "residual"):
        tm, cm = pair(kind)
        t_in, c_in = inputs(kind)
        cg = cr.fx.symbolic_trace(cm)
        tg = torch.fx.symbolic_trace(tm)
        assert_same_values(cr.fx.Interpreter(cg).run(*c_in), torch.fx.Interpreter(tg).run(*t_in))


def test_interpreter_subclass_changes_one_op():
    def interpreter_for(lib, base):
        class NegateRelu(base):
            def call_function(self, target, args, kwargs):
                if target == lib.relu:
                    return -lib.relu(*args, **kwargs)
                return super().call_function(target, args, kwargs)

        return NegateRelu

    tm, cm = pair("mlp")
    t_in, c_in = inputs("mlp")
    t_out = interpreter_for(torch, torch.fx.Interpreter)(torch.fx.symbolic_trace(tm)).run(*t_in)
    c_out = interpreter_for(cr, cr.fx.Interpreter)(cr.fx.symbolic_trace(cm)).run(*c_in)
    assert_same_values(c_out, t_out)


def test_interpreter_missing_input_error():
    tm, cm = pair("mlp")
    with pytest.raises(RuntimeError) as t_err:
        torch.fx.Interpreter(torch.fx.symbolic_trace(tm)).run()
    with pytest.raises(RuntimeError) as c_err:
        cr.fx.Interpreter(cr.fx.symbolic_trace(cm)).run()
    assert str(c_err.value) == str(t_err.value)


def test_transformer_swaps_relu_for_gelu():
    def transformer_for(lib, base):
        class ReluToGelu(base):
            def call_function(self, target, args, kwargs):
                if target == lib.relu:
                    target = lib.nn.functional.gelu
                return super().call_function(target, args, kwargs)

        return ReluToGelu

    tm, cm = pair("mlp")
    tg = transformer_for(torch, torch.fx.Transformer)(torch.fx.symbolic_trace(tm)).transform()
    cg = transformer_for(cr, cr.fx.Transformer)(cr.fx.symbolic_trace(cm)).transform()
    assert_same_module(cg, tg)
    t_in, c_in = inputs("mlp")
    assert_same_values(cg(*c_in), tg(*t_in))
    expected = tm.fc2(torch.nn.functional.gelu(tm.fc1(t_in[0])))
    assert_same_values(cg(*c_in), expected)


def test_identity_transformer_keeps_the_code():
    for kind in ("ops", "residual"):
        tm, cm = pair(kind)
        tg = torch.fx.Transformer(torch.fx.symbolic_trace(tm)).transform()
        cg = cr.fx.Transformer(cr.fx.symbolic_trace(cm)).transform()
        assert cg.code == tg.code
        t_in, c_in = inputs(kind)
        assert_same_values(cg(*c_in), tg(*t_in))


def surgery(lib, gm):
    """Insert a node after relu, route relu's users to it, add and erase nodes, and clean up
    (the same steps on either library's GraphModule)."""
    graph = gm.graph
    relu = next(n for n in graph.nodes if n.target == lib.relu)
    with graph.inserting_after(relu):
        neg = graph.call_function(lib.neg, (relu,))
    relu.replace_all_uses_with(neg, delete_user_cb=lambda user: user is not neg)
    with graph.inserting_before(neg):
        dead = graph.call_method("sin", (relu,))
        graph.call_function(operator.mul, (dead, 2))
    erased = []
    for node in list(graph.nodes):
        if node.op == "call_method" and node.target == "sin":
            try:
                graph.erase_node(node)
            except RuntimeError as e:
                erased.append(str(e))
    changed = graph.eliminate_dead_code()
    graph.lint()
    gm.recompile()
    return erased, changed


def test_graph_surgery_matches_torch():
    tm, cm = pair("mlp")
    tg, cg = torch.fx.symbolic_trace(tm), cr.fx.symbolic_trace(cm)
    assert surgery(cr, cg) == surgery(torch, tg)
    assert_same_module(cg, tg)
    t_in, c_in = inputs("mlp")
    assert_same_values(cg(*c_in), tg(*t_in))


def test_node_api():
    tm, cm = pair("ops")
    tg, cg = torch.fx.symbolic_trace(tm), cr.fx.symbolic_trace(cm)
    for cn, tn in zip(cg.graph.nodes, tg.graph.nodes, strict=True):
        assert repr(cn) == repr(tn)
        assert [repr(u) for u in cn.users] == [repr(u) for u in tn.users]
        assert str(cn.args) == str(tn.args) and str(cn.kwargs) == str(tn.kwargs)
        assert repr(cn.next) == repr(tn.next) and repr(cn.prev) == repr(tn.prev)
        assert cn.format_node() == tn.format_node()
    # replace_input_with, prepend and append
    for g in (tg.graph, cg.graph):
        nodes = list(g.nodes)
        view = next(n for n in nodes if n.name == "view")
        cat = next(n for n in nodes if n.name == "cat")
        x = nodes[0]
        view.replace_input_with(cat, x)
        nodes[1].append(view.args[1])
        nodes[0].prepend(nodes[1])
    assert str(cg.graph) == str(tg.graph)


def test_graph_by_hand_and_copies():
    def build_graph(lib):
        g = lib.fx.Graph()
        x = g.placeholder("x")
        y = g.placeholder("y", default_value=3)
        m = g.call_function(operator.mul, (x, x))
        s = g.call_function(lib.sum, (m,), {"dim": 0})
        t = g.call_method("add", (s, y))
        g.get_attr("weight")
        g.output((t, m))
        copy = lib.fx.Graph()
        val_map = {}
        out = copy.graph_copy(g, val_map)
        copy.output(out)
        single = lib.fx.Graph()
        p = single.placeholder("p")
        n2 = single.node_copy(m, lambda n: p)
        n3 = single.node_copy(n2, lambda n: n2)
        single.output(n3)
        return g, copy, single

    for cg, tg in zip(build_graph(cr), build_graph(torch), strict=True):
        assert str(cg) == str(tg)
        assert cg.python_code("self").src == tg.python_code("self").src
    cg = build_graph(cr)[0]
    mul = next(n for n in cg.nodes if n.name == "mul")
    with pytest.raises(RuntimeError) as c_err:
        cg.erase_node(mul)
    tg = build_graph(torch)[0]
    with pytest.raises(RuntimeError) as t_err:
        tg.erase_node(next(n for n in tg.nodes if n.name == "mul"))
    assert str(c_err.value) == str(t_err.value)


def test_graph_module_from_dict_runs():
    for lib in (torch, cr):
        g = lib.fx.Graph()
        x = g.placeholder("x")
        w = g.get_attr("lin.weight")
        g.output(g.call_function(lib.matmul, (x, w)))
        weight = lib.ones(2, 2)
        gm = lib.fx.GraphModule({"lin.weight": weight}, g)
        np.testing.assert_allclose(as_numpy(gm(lib.ones(1, 2) * 3)), [[6.0, 6.0]])
    assert gm.code == torch.fx.GraphModule({"lin.weight": torch.ones(2, 2)}, _graph(torch)).code


def _graph(lib):
    g = lib.fx.Graph()
    x = g.placeholder("x")
    w = g.get_attr("lin.weight")
    g.output(g.call_function(lib.matmul, (x, w)))
    return g


def test_print_tabular_without_tabulate(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "tabulate", None)  # (absent, whether installed or not)
    tm, cm = pair("mlp")
    with pytest.raises(ModuleNotFoundError) as t_err:
        torch.fx.symbolic_trace(tm).graph.print_tabular()
    t_printed = capsys.readouterr().out
    with pytest.raises(ModuleNotFoundError) as c_err:
        cr.fx.symbolic_trace(cm).graph.print_tabular()
    assert capsys.readouterr().out == t_printed
    assert str(c_err.value) == str(t_err.value)


def test_print_tabular_with_tabulate(capsys):
    pytest.importorskip("tabulate")  # (the test extra installs it, with skorch)
    tm, cm = pair("mlp")
    torch.fx.symbolic_trace(tm).graph.print_tabular()
    expected = capsys.readouterr().out
    cr.fx.symbolic_trace(cm).graph.print_tabular()
    got = capsys.readouterr().out

    def cells(table: str) -> list[list[str]]:
        """The table's cells, a function's repr (its address, and PyTorch's built-ins
        print as such) read as one token."""
        table = re.sub(r"<[^<>]*>", "<function>", table)
        return [line.split() for line in table.splitlines() if not line.startswith("-")]

    assert cells(got) == cells(expected)


def test_traced_module_trains():
    tm, cm = pair("mlp")
    cg = cr.fx.symbolic_trace(cm)
    tg = torch.fx.symbolic_trace(tm)
    t_in, c_in = inputs("mlp")
    tg(*t_in).sum().backward()
    cg(*c_in).sum().backward()
    for (tn, tp), (cn, cp) in zip(tg.named_parameters(), cg.named_parameters(), strict=True):
        assert cn == tn
        np.testing.assert_allclose(cp.grad.numpy(), tp.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_sequential_root_and_shape_prop():
    from torch.fx.passes.shape_prop import ShapeProp as TorchShapeProp

    from chainrule.fx.passes.shape_prop import ShapeProp

    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU())
    cm = cr.nn.Sequential(cr.nn.Linear(3, 2), cr.nn.ReLU())
    cm.load_state_dict({k: cr.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    tg, cg = torch.fx.symbolic_trace(tm), cr.fx.symbolic_trace(cm)
    assert_same_module(cg, tg)
    t_out = TorchShapeProp(tg).propagate(torch.ones(4, 3))
    c_out = ShapeProp(cg).propagate(cr.ones(4, 3))
    assert_same_values(c_out, t_out)
    for cn, tn in zip(cg.graph.nodes, tg.graph.nodes, strict=True):
        c_meta, t_meta = cn.meta["tensor_meta"], tn.meta["tensor_meta"]
        assert tuple(c_meta.shape) == tuple(t_meta.shape)
        assert str(c_meta.dtype) == str(t_meta.dtype)
        assert c_meta.requires_grad == t_meta.requires_grad
        assert c_meta.stride == t_meta.stride
        assert str(c_meta.memory_format) == str(t_meta.memory_format)
        assert (c_meta.is_quantized, c_meta.qparams) == (t_meta.is_quantized, t_meta.qparams)


def rewrite(lib, fn, pattern, replacement):
    """``fn`` traced by ``lib``, rewritten: the matches (as printed) and the new code."""
    gm = lib.fx.symbolic_trace(fn)
    matches = lib.fx.replace_pattern(gm, pattern, replacement)
    return str(matches), str(gm.graph), gm.code, gm


def test_replace_pattern_matches_torch():
    def model(lib):
        def fn(x, w1, w2):
            a = lib.cat([w1, w2]).sum()
            b = lib.cat([w1, w2]).sum()
            return x + lib.max(a) + lib.max(b)

        def pattern(w1, w2):
            return lib.cat([w1, w2]).sum()

        def replacement(w1, w2):
            return lib.stack([w1, w2])

        return fn, pattern, replacement

    t_matches, t_graph, t_code, tg = rewrite(torch, *model(torch))
    c_matches, c_graph, c_code, cg = rewrite(cr, *model(cr))
    assert (c_matches, c_graph, c_code) == (t_matches, t_graph, t_code)
    args = [np.ones(3, np.float32) * k for k in (1, 2, 3)]
    assert_same_values(cg(*[cr.tensor(a) for a in args]), tg(*[torch.tensor(a) for a in args]))


def test_replace_pattern_chained_and_shared_matches():
    def model(lib):
        def nested(x):
            return lib.relu(lib.relu(x) + 1) + 1, lib.relu(x) + 2

        def shared(x):
            r = lib.relu(x)
            return r + 1, r

        def pattern(x):
            return lib.relu(x) + 1

        def replacement(x):
            return lib.sigmoid(x) * 2

        return nested, shared, pattern, replacement

    tn, ts, tp, tr = model(torch)
    cn, cs, cp, cr_ = model(cr)
    for c_fn, t_fn in ((cn, tn), (cs, ts)):
        t_matches, t_graph, t_code, tg = rewrite(torch, t_fn, tp, tr)
        c_matches, c_graph, c_code, cg = rewrite(cr, c_fn, cp, cr_)
        assert (c_matches, c_graph, c_code) == (t_matches, t_graph, t_code)
        assert_same_values(cg(cr.ones(2) * 0.5), tg(torch.ones(2) * 0.5))


def test_edit_targets_deepcopy_and_module_stack():
    def build_fused(lib):
        nn = lib.nn

        class Inner(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(4, 4)

            def forward(self, x):
                return lib.add(self.lin(x).relu(), 1)

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = Inner()
                self.bn = nn.BatchNorm1d(4)

            def forward(self, x):
                return self.bn(self.inner(x)) * 2

        return Net().eval()

    results = []
    for lib in (torch, cr):
        lib.manual_seed(0)
        gm = lib.fx.symbolic_trace(build_fused(lib))
        stacks = [list(n.meta.get("nn_module_stack", {})) for n in gm.graph.nodes]
        modules = dict(gm.named_modules())
        for node in gm.graph.nodes:
            if node.op == "call_function" and node.target == lib.add:
                node.target = lib.mul
            if node.op == "call_module" and isinstance(modules[node.target], lib.nn.BatchNorm1d):
                node.replace_all_uses_with(node.args[0])
                gm.graph.erase_node(node)
        gm.recompile()
        clone = copy.deepcopy(gm)
        before = str(clone)
        gm.delete_all_unused_submodules()
        renamed = lib.fx.GraphModule(gm, gm.graph, "Renamed")
        results.append((stacks, gm.code, before, str(gm), str(renamed), type(clone).__name__))
    assert results[1] == results[0]


def test_math_functions_are_autowrapped():
    def fn(x):
        return x / math.sqrt(x.size(-1)) + sqrt(x.size(0)) + math.floor(2.5) + math.pi

    tg, cg = torch.fx.symbolic_trace(fn), cr.fx.symbolic_trace(fn)
    assert_same_module(cg, tg)
    assert_same_values(cg(cr.ones(4, 9)), tg(torch.ones(4, 9)))


def test_annotations_in_graph_and_code():
    def build_annotated(lib, annotations):
        class Annotated(lib.nn.Module):
            def forward(self, x, n=2, y=None):
                return x * n

        Annotated.forward.__annotations__ = annotations
        return Annotated()

    for written in (
        {"x": "Tensor", "n": "int"},  # (strings, as under ``from __future__ import annotations``)
        {"x": "lib.Tensor", "n": int, "y": typing.Optional[int], "return": "lib.Tensor"},  # noqa: UP045
    ):
        tg = torch.fx.symbolic_trace(build_annotated(torch, written))
        cg = cr.fx.symbolic_trace(build_annotated(cr, written))
        assert_same_module(cg, tg)
        assert_same_values(cg(cr.ones(2), 3), tg(torch.ones(2), 3))
    tg = torch.fx.symbolic_trace(
        build_annotated(torch, {"x": torch.Tensor, "y": typing.Optional[torch.Tensor]})  # noqa: UP045
    )
    cg = cr.fx.symbolic_trace(
        build_annotated(cr, {"x": cr.Tensor, "y": typing.Optional[cr.Tensor]})  # noqa: UP045
    )
    assert_same_module(cg, tg)


def test_torch_assert_runs_and_is_traced():
    """torch._assert raises AssertionError(message) on a false condition, and a traced one is
    recorded (call_function torch._assert), as PyTorch's."""
    import torch as real

    import chainrule as cr

    def run(lib):
        lib._assert(True, "fine")
        try:
            lib._assert(False, "bad value")
        except AssertionError as e:
            said = str(e)

        class Checked(lib.nn.Module):
            def forward(self, x):
                lib._assert(x.dim() == 2, "2-D please")
                return x * 2

        gm = lib.fx.symbolic_trace(Checked())
        return said, gm.code, gm(lib.ones(2, 2)).tolist()

    assert run(cr) == run(real)
