"""chainrule.explain knows modules: the steps made inside a module's forward carry the
module's qualified name and class (``fc1 (Dense)``), parameters are named ``fc1.weight``,
in the text, Markdown, DOT and HTML views and in ``chainrule explain script.py``.

The test modules are written here on both libraries (``_classes(lib)``), with parameters
from fixed NumPy arrays, so the gradients and node names are PyTorch's (the oracle): the
same model on torch, run forward and backward, gives each parameter's ``.grad`` and the
graph's node names. The cost when nothing is explained is pinned by counting calls.
"""

from __future__ import annotations

import functools
import gc
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
import torch

import chainrule as cr
from chainrule.autograd.anomaly_mode import _anomaly

ROOT = Path(__file__).resolve().parent.parent
DTYPES = [np.float32, np.float64]


@functools.cache
def _classes(lib: Any) -> SimpleNamespace:
    nn, F = lib.nn, lib.nn.functional

    def param(shape: tuple, seed: int) -> Any:
        a = 0.5 * np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
        return nn.Parameter(lib.tensor(a))

    class Dense(nn.Module):
        """x @ weight.T + bias through F.linear."""

        def __init__(self, n_in: int, n_out: int, seed: int = 0) -> None:
            super().__init__()
            self.weight = param((n_out, n_in), seed)
            self.bias = param((n_out,), seed + 1)

        def forward(self, x: Any) -> Any:
            return F.linear(x, self.weight, self.bias)

    class Act(nn.Module):
        def forward(self, x: Any) -> Any:
            return F.relu(x)

    class Block(nn.Module):
        """fc2(act(fc1(x))) + x: two children called, one op of its own."""

        def __init__(self, n: int, seed: int) -> None:
            super().__init__()
            self.fc1 = Dense(n, n, seed)
            self.act = Act()
            self.fc2 = Dense(n, n, seed + 2)

        def forward(self, x: Any) -> Any:
            return self.fc2(self.act(self.fc1(x))) + x

    class Encoder(nn.Module):
        """Blocks in a ModuleList, which is never called itself."""

        def __init__(self, n: int, depth: int) -> None:
            super().__init__()
            self.layers = nn.ModuleList([Block(n, 10 * k) for k in range(depth)])

        def forward(self, x: Any) -> Any:
            for layer in self.layers:
                x = layer(x)
            return x

    class Model(nn.Module):
        def __init__(self, n: int = 3, depth: int = 2) -> None:
            super().__init__()
            self.encoder = Encoder(n, depth)
            self.head = nn.Sequential(Dense(n, 4, 100), Act(), Dense(4, 2, 102))

        def forward(self, x: Any) -> Any:
            return self.head(self.encoder(x)).tanh()

    class Twice(nn.Module):
        """The same child called twice."""

        def __init__(self) -> None:
            super().__init__()
            self.fc = Dense(3, 3, 5)

        def forward(self, x: Any) -> Any:
            return self.fc(self.fc(x).sigmoid())

    return SimpleNamespace(Dense=Dense, Act=Act, Block=Block, Model=Model, Twice=Twice)


def _x(lib: Any, dtype: Any, shape: tuple = (5, 3)) -> Any:
    a = np.random.default_rng(42).standard_normal(shape).astype(dtype)
    return lib.tensor(a, requires_grad=True)


def _torch_graph_names(t: torch.Tensor) -> list[str]:
    """The names of every node of torch's graph behind t (the oracle's node names)."""
    names, seen, stack = [], set(), [t.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        names.append(fn.name().removeprefix("torch::autograd::"))
        stack.extend(f for f, _ in fn.next_functions)
    return sorted(names)


def _explained(model_name: str, dtype: Any, record: bool = True, **kw: Any) -> tuple:
    """The model's loss explained on chainrule, and the same model run on torch."""
    model = getattr(_classes(cr), model_name)(**kw).to(getattr(cr, np.dtype(dtype).name))
    x = _x(cr, dtype)
    if record:
        with cr.explain.record():
            loss = (model(x) ** 2).mean()
    else:
        loss = (model(x) ** 2).mean()
    e = cr.explain(loss)
    reference = getattr(_classes(torch), model_name)(**kw).to(getattr(torch, np.dtype(dtype).name))
    tx = _x(torch, dtype)
    tloss = (reference(tx) ** 2).mean()
    names = _torch_graph_names(tloss)
    tloss.backward()
    return model, e, reference, names


# ----- steps carry the module call ------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_steps_name_the_module_calls_and_parameters(dtype):
    model, e, reference, torch_names = _explained("Model", dtype)
    # the gradients and the graph are torch's
    assert sorted(s.node for s in e.steps) == torch_names
    found = {e.name(t): g for t, g in e.gradients.items()}
    for name, p in reference.named_parameters():
        expected = p.grad.numpy()
        tol = (1e-4 if dtype == np.float32 else 1e-10) * np.abs(expected).max()
        np.testing.assert_allclose(found[name].numpy(), expected, rtol=0, atol=tol)
        assert found[name].dtype == getattr(cr, np.dtype(dtype).name)
    wheres = {s.where for s in e.steps}
    assert {
        "encoder.layers.0.fc1 (Dense)",  # through the ModuleList, which is never called
        "encoder.layers.0.act (Act)",
        "encoder.layers.1.fc2 (Dense)",
        "encoder.layers.1 (Block)",  # the residual add, in Block's own forward
        "head.0 (Dense)",  # Sequential's children by index
        "head.1 (Act)",
        "model (Model)",  # the root: the user's variable name and the class
        None,  # pow and mean, outside any module
    } <= wheres
    by_node = {}
    for s in e.steps:
        by_node.setdefault(s.node, set()).add(s.where)
    assert by_node["MeanBackward0"] == {None} and by_node["PowBackward0"] == {None}
    assert by_node["TanhBackward0"] == {"model (Model)"}
    assert by_node["ReluBackward0"] == {
        "encoder.layers.0.act (Act)",
        "encoder.layers.1.act (Act)",
        "head.1 (Act)",
    }
    assert by_node["AccumulateGrad"] == {None}  # leaves are not made in a forward
    # the chain of calls, outermost first, numbered in forward order
    relu = next(s for s in e.steps if s.where == "head.1 (Act)")
    labels = [label for _, label in relu.calls]
    assert labels == ["model (Model)", "head (Sequential)", "head.1 (Act)"]
    numbers = [n for n, _ in relu.calls]
    assert numbers == sorted(numbers)
    # every parameter by its qualified name, in the text
    text = str(e)
    for name in ("encoder.layers.0.fc2.weight", "head.0.bias"):
        assert f"{name}.grad would receive" in text
    assert "in encoder.layers.0.fc1 (Dense): AddmmBackward0 undoes" in text
    assert re.search(r"Step \d+: MeanBackward0 undoes", text)  # outside any module: as before


def test_root_without_a_variable_is_named_by_its_class():
    def run():
        with cr.explain.record():
            return (_classes(cr).Block(3, 0)(_x(cr, np.float32)) ** 2).sum()

    e = cr.explain(run())
    wheres = {s.where for s in e.steps}
    assert {"Block", "fc1 (Dense)", "act (Act)", "fc2 (Dense)"} <= wheres


def test_parameters_are_named_without_recording():
    """Parameters get their qualified names from the modules the user's code holds, even
    when nothing was recorded; the steps then name no module."""
    _, e, reference, _ = _explained("Model", np.float64, record=False)
    assert {s.where for s in e.steps} == {None}
    names = {e.name(t) for t in e.gradients}
    assert names == {n for n, _ in reference.named_parameters()} | {"x"}


def test_a_module_called_twice_has_two_numbered_calls():
    model, e, reference, torch_names = _explained("Twice", np.float32)
    assert sorted(s.node for s in e.steps) == torch_names
    dense = [s for s in e.steps if s.module == "fc (Dense)"]
    assert {s.call for s in dense} == {1, 2}
    assert {s.where for s in dense} == {"fc (Dense), call 1", "fc (Dense), call 2"}
    # backward meets the second call first
    assert dense[0].call == 2 and dense[-1].call == 1
    grad = next(g for t, g in e.gradients.items() if e.name(t) == "fc.weight")
    np.testing.assert_allclose(grad.numpy(), reference.fc.weight.grad.numpy(), rtol=1e-5)
    weight = next(s for s in e.steps if s.name == "fc.weight")
    assert weight.fan_in == 2  # both calls send fc.weight a gradient
    text = str(e)
    assert "in fc (Dense), call 1:" in text and "in fc (Dense), call 2:" in text
    dot = _parse_dot(e.to_dot())
    clusters = set(dot.clusters.values())
    assert {"fc (Dense), call 1", "fc (Dense), call 2", "model (Twice)"} <= clusters


def test_a_module_called_in_a_loop_folds_into_one_run():
    cell = _classes(cr).Dense(3, 3, 1)
    x = _x(cr, np.float32)
    with cr.explain.record():
        h = x
        for _ in range(12):
            h = cell(h).tanh()
    e = cr.explain(h.sum())
    (run,) = [item for item in e.items if item.kind == "run"]
    # sum, the run of the last 11 calls, then the first call's steps apart: its Addmm makes
    # x's and the bias's AccumulateGrad ready with its T, and leaves run first (PyTorch's
    # order), then T, then the weight's AccumulateGrad
    assert run.reps == 11 and len(e.items) == 8
    assert [s.node for s in e.steps[-6:]] == [
        "TanhBackward0",
        "AddmmBackward0",
        "AccumulateGrad",
        "AccumulateGrad",
        "TBackward0",
        "AccumulateGrad",
    ]
    text = str(e)
    assert re.search(
        r"Steps 2-34: the pattern TanhBackward0 -> AddmmBackward0 -> TBackward0 repeated 11 "
        r"times .*In each: TanhBackward0 undoes .*; AddmmBackward0 in cell \(Dense\) undoes",
        text,
    )
    # a root's own parameters: by the variable holding the root
    assert "cell.weight.grad would receive" in text and "cell.bias.grad" in text
    # every step of the loop's Dense calls names its call
    assert {s.call for s in e.steps if s.module == "cell (Dense)"} == set(range(1, 13))


# ----- the views ----------------------------------------------------------------------------


def test_markdown_has_a_module_column_only_when_modules_made_steps():
    _, e, _, _ = _explained("Model", np.float32)
    md = e.to_markdown()
    header = next(line for line in md.splitlines() if line.startswith("| # |"))
    assert header.split(" | ")[:3] == ["| #", "node", "module"]
    rows = [line for line in md.splitlines() if line.startswith("| ") and "`" in line]
    assert all(line.count(" | ") == 6 for line in rows)  # 7 cells each
    assert any("| head.0 (Dense) |" in line for line in rows)
    assert any("`head.0.weight (a leaf)`" in line for line in rows)
    plain = cr.explain((cr.ones(2, requires_grad=True) * 2).sum()).to_markdown()
    assert "module" not in plain.split("## Steps")[1]


def test_dot_is_valid_and_nests_clusters_by_module_call():
    _, e, _, _ = _explained("Model", np.float32)
    dot = _parse_dot(e.to_dot())
    labels = dot.clusters
    assert "model (Model)" in labels.values()
    # a node made in encoder.layers.0.fc1 sits in that cluster, inside layers.0's, inside
    # encoder's, inside the model's
    k = next(
        i for i, item in enumerate(e.items) if item.steps[0].where == "encoder.layers.0.fc1 (Dense)"
    )
    path = [labels[c] for c in dot.nodes[f"i{k}"]]
    assert path == [
        "model (Model)",
        "encoder (Encoder)",
        "encoder.layers.0 (Block)",
        "encoder.layers.0.fc1 (Dense)",
    ]
    # nodes outside modules (mean, pow, the leaves) are outside every cluster
    for i, item in enumerate(e.items):
        if item.steps[0].where is None:
            assert dot.nodes[f"i{i}"] == []
    assert set(dot.nodes) == {f"i{i}" for i in range(len(e.items))}
    assert all(a in dot.nodes and b in dot.nodes for a, b in dot.edges)
    assert any("head.0.weight.grad" in label for label in dot.labels.values())


def test_dot_escapes_quotes_and_backslashes():
    x = cr.ones(2, requires_grad=True)
    with cr.explain.record():
        y = x * 2  # "\q": the line's text goes into a DOT label
    dot = _parse_dot(cr.explain(y.sum()).to_dot())
    assert any('# "\\q"' in label for label in dot.labels.values())


def test_html_names_modules():
    _, e, _, _ = _explained("Model", np.float32)
    page = e.to_html()
    assert "<th>module</th>" in page
    assert 'data-module="encoder.layers.0.fc1 (Dense)"' in page
    assert '<text class="module"' in page
    assert "head.0.weight.grad" in page
    plain = cr.explain((cr.ones(2, requires_grad=True) * 2).sum()).to_html()
    assert "<th>module</th>" not in plain and 'class="module"' not in plain


# ----- what it costs, and what it leaves as it was -----------------------------------------


def _calls_made(fn: Any) -> list[str]:
    """The Python functions fn calls (sys.setprofile), by qualified name."""
    called: list[str] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            called.append(f"{frame.f_code.co_filename}:{frame.f_code.co_qualname}")

    gc.disable()  # no collector callbacks in the count
    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
        gc.enable()
    return called


def test_recording_an_op_does_no_extra_work_inside_a_module():
    """Not explaining, an op made inside a module's forward calls exactly the functions
    the same op makes outside, and nothing that records where nodes were made."""
    x = cr.ones(3, requires_grad=True)

    class Chain(cr.nn.Module):
        def forward(self, y: Any) -> Any:
            for _ in range(50):
                y = y * 2
            return y

    chain = Chain()
    chain(x)  # the ops' first calls fill caches
    inside = _calls_made(lambda: chain(x))
    outside = _calls_made(lambda: chain.forward(x))
    # the module call adds only what it did before modules were recorded: Module.__call__
    # and its look for global hooks
    module_calls = [c for c in inside if c.endswith((":Module.__call__", ":has_global_hooks"))]
    assert len(module_calls) == 2
    assert [c for c in inside if c not in module_calls] == outside
    assert len(outside) > 50  # the profile did see the ops' calls
    assert not [c for c in inside if "record_creation" in c or "_scope" in c]
    y = chain(x)
    assert y.grad_fn._extra is None  # nothing was kept on the node


def test_recording_keeps_the_call_and_restores_the_scope():
    dense = _classes(cr).Dense(3, 3)
    x = _x(cr, np.float32)
    assert _anomaly.scope is None
    with cr.explain.record():
        y = dense(x)
        assert _anomaly.scope is None  # restored after the call
        z = y * 2  # made outside: no scope
    assert y.grad_fn._extra.scope.module is dense
    assert z.grad_fn._extra.scope is None

    class Broken(cr.nn.Module):
        def forward(self, x: Any) -> Any:
            x = dense(x)
            raise ValueError("in forward")

    with cr.explain.record(), pytest.raises(ValueError, match="in forward"):
        Broken()(x)
    assert _anomaly.scope is None  # restored after an error too


def test_hooks_still_run_while_recording():
    dense = _classes(cr).Dense(3, 3)
    seen = []
    dense.register_forward_pre_hook(lambda m, args: seen.append("pre"))
    dense.register_forward_hook(lambda m, args, out: seen.append("post") or out * 2)
    with cr.explain.record():
        out = dense(_x(cr, np.float32))
    assert seen == ["pre", "post"]
    e = cr.explain(out.sum())
    mul = next(s for s in e.steps if s.node == "MulBackward0")
    assert mul.where == "dense (Dense)"  # the forward hook ran inside the call


# ----- the command line ---------------------------------------------------------------------


def test_cli_explains_a_script_training_a_model():
    proc = subprocess.run(
        [sys.executable, "-m", "chainrule", "explain", str(ROOT / "examples" / "tiny_model.py")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "=== chainrule explain: backward call 1 of" in out
    assert "in layers.0 (Dense): AddmmBackward0 undoes" in out
    assert "in layers.1 (Act): ReluBackward0 undoes" in out
    for name in ("layers.0.weight", "layers.0.bias", "layers.2.weight", "layers.2.bias"):
        assert f"{name}.grad would receive" in out


# ----- a small DOT parser -------------------------------------------------------------------

_TOKEN = re.compile(r'\s*(?:("(?:[^"\\]|\\.)*")|(->|[{}\[\];=,])|([A-Za-z0-9_.#]+))')


class _Dot(SimpleNamespace):
    nodes: dict  # node id -> the cluster ids it sits in, outermost first
    labels: dict  # node id -> its label
    clusters: dict  # cluster id -> its label
    edges: list


def _parse_dot(text: str) -> _Dot:
    """Parse the DOT language's grammar (the subset of graphs, subgraphs, attribute lists,
    node and edge statements explain writes); raise on anything else."""
    tokens, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        assert m and m.end() > pos, f"bad DOT at {text[pos : pos + 30]!r}"
        tokens.append(m.group(1) or m.group(2) or m.group(3))
        pos = m.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    dot = _Dot(nodes={}, labels={}, clusters={}, edges=[])
    i = 0

    def take(expected: str | None = None) -> str:
        nonlocal i
        tok = tokens[i]
        assert expected is None or tok == expected, (expected, tok, i)
        i += 1
        return tok

    def value(tok: str) -> str:
        return tok[1:-1].replace('\\"', '"').replace("\\\\", "\\") if tok[0] == '"' else tok

    def attrs() -> dict:
        found = {}
        take("[")
        while tokens[i] != "]":
            key = take()
            take("=")
            found[key] = value(take())
            if tokens[i] == ",":
                take(",")
        take("]")
        return found

    def statements(path: list[str]) -> None:
        while tokens[i] != "}":
            tok = take()
            if tok == "subgraph":
                name = take()
                take("{")
                statements([*path, name])
                take("}")
                assert name in dot.clusters, f"cluster {name} has no label"
            elif tok in ("node", "edge", "graph"):
                attrs()
            elif tokens[i] == "=":
                take("=")
                label = value(take())
                if tok == "label" and path:
                    dot.clusters[path[-1]] = label
            elif tokens[i] == "->":
                take("->")
                dot.edges.append((tok, take()))
                if tokens[i] == "[":
                    attrs()
            else:
                assert tok not in dot.nodes, f"node {tok} declared twice"
                dot.nodes[tok] = list(path)
                dot.labels[tok] = attrs().get("label", tok) if tokens[i] == "[" else tok
            if tokens[i] == ";":
                take(";")

    take("digraph")
    take()
    take("{")
    statements([])
    take("}")
    assert i == len(tokens), "text after the graph"
    return dot
