"""``torch.cond``, ``torch.while_loop``, ``scan`` and ``map`` under ``export``: each function recorded as a
graph of its own, as PyTorch's program keeps it.

Each function runs once under the trace with its nodes written into a fresh Graph (a
:class:`_Scope`): a tensor of the enclosing program it reads (an operand, a parameter, a
closure's tensor) becomes one of its placeholders, named as the enclosing node. As
PyTorch's capture (dynamo), the read tensors are the operator's operands: those both
functions read first, then those only the first reads, then the second's, each group in
the order of dynamo's names for them (``l_args_1_closure_0_cell_contents_parameters_w_``:
where the tensor was found from the call's arguments). ``cond``'s branches both take all
of them; ``while_loop``'s functions take the carried values and then them, named
``arg0_1`` ... . The enclosing graph calls ``torch.ops.higher_order.<op>`` on the function
graphs (``get_attr`` nodes) and reads each result with a ``getitem``; the forward goes on
with the values of the branch the sample input takes, or of the loop run to its end.
``scan`` and ``map`` are traced on the first slice of their inputs; their extra operands
come in the order first read, as dynamo lifts them. An operator nested in another names
its operands within the outermost one (dynamo captures that whole).
"""

from __future__ import annotations

import contextlib
import copy
import operator
import re
from collections.abc import Callable, Iterator
from typing import Any

from .. import overrides
from .._tensor import Tensor
from ..fx import Graph, Node
from ..fx.node import map_arg
from ..nn import Module
from ..utils import _pytree as pytree
from . import _higher_order
from ._reader import TensorMeta

_PAUSED: set[int] = set()  # (recorders running the real loop: nothing is recorded)
_LOOPS: dict[int, int] = {}  # recorder id -> how many while loop bodies it is inside
_CONDS: dict[int, int] = {}  # recorder id -> how many cond branches it is inside
# recorder id -> dynamo's names of the tensors the outermost operator being recorded reads
# (dynamo captures it whole: the operators nested in it name their values within it)
_NAMES: dict[int, dict[int, str]] = {}


def active() -> Any | None:
    """The export trace's recorder a control-flow call is written by (None outside one)."""
    from .. import compiler
    from ._tracer import _Recorder

    if not compiler.is_exporting():
        return None
    for mode in reversed(overrides._get_current_function_mode_stack()):
        if isinstance(mode, _Recorder):
            return None if id(mode) in _PAUSED else mode
    return None


class _Scope(dict):
    """A function's nodes by tensor id. A tensor of the enclosing graph read here becomes
    a placeholder of this one (a free variable), remembered in the order first read."""

    def __init__(self, outer: dict) -> None:
        super().__init__()
        self.outer = outer
        self.graph = Graph()
        self.free: dict[int, Node] = {}  # tensor id -> the enclosing graph's node

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or key in self.outer

    def __missing__(self, key: int) -> Node:
        outer = self.outer[key]
        node = self.graph.placeholder(outer.name)
        node.meta.update(outer.meta)
        self[key] = node
        self.free[key] = outer
        return node


@contextlib.contextmanager
def _recording_into(recorder: Any, scope: _Scope) -> Iterator[None]:
    saved = recorder.graph, recorder.nodes, recorder.lift

    def lift(t: Tensor) -> Node:
        # a tensor the trace has not seen: the enclosing graph's (a lifted constant)
        recorder.graph, recorder.nodes, recorder.lift = saved
        try:
            recorder.node_of(t)
        finally:
            recorder.graph, recorder.nodes, recorder.lift = scope.graph, scope, lift
        return scope[id(t)]

    recorder.graph, recorder.nodes, recorder.lift = scope.graph, scope, lift
    try:
        yield
    finally:
        recorder.graph, recorder.nodes, recorder.lift = saved


@contextlib.contextmanager
def _paused(recorder: Any) -> Iterator[None]:
    """Nothing recorded: what runs here computes values only (a branch's choice, the
    loop's iterations)."""
    saved = recorder.graph, recorder.nodes, recorder.lift
    scratch = Graph()
    recorder.graph, recorder.nodes = scratch, {}
    recorder.lift = lambda t: scratch.placeholder("unused")
    _PAUSED.add(id(recorder))
    try:
        yield
    finally:
        _PAUSED.discard(id(recorder))
        recorder.graph, recorder.nodes, recorder.lift = saved


def _identifier(source: str) -> str:
    """Dynamo's graph name of a value found at ``source`` (``L['args'][3][0]`` ->
    ``l_args_3_0_``)."""
    return re.sub(r"[^0-9a-zA-Z]+", "_", source).lower()


def _source_names(fn: Callable, index: int, extra: tuple = ()) -> dict[int, str]:
    """Tensor id -> dynamo's name for it, found from ``extra`` (``(value, source)``
    pairs: the operands) or from ``fn`` (the call's argument ``index``): its closure's
    cells, a bound method's object, a module's parameters, buffers and submodules."""
    names: dict[int, str] = {}
    seen: set[int] = set()

    def visit(value: Any, source: str) -> None:
        if isinstance(value, Tensor):
            names.setdefault(id(value), _identifier(source))
            return
        if id(value) in seen:
            return
        seen.add(id(value))
        if isinstance(value, Module):
            for kind in ("_parameters", "_buffers", "_modules"):
                for key, item in getattr(value, kind, {}).items():
                    if item is not None:
                        visit(item, f"{source}.{kind}[{key!r}]")
        elif isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                visit(item, f"{source}[{i}]")
        elif isinstance(value, dict):
            for key, item in value.items():
                visit(item, f"{source}[{key!r}]")
        elif callable(value):  # (a function the call's function calls: its closure)
            visit_closure(value, source)

    def visit_closure(fn: Any, source: str) -> None:
        if getattr(fn, "__self__", None) is not None:
            visit(fn.__self__, f"{source}.__self__")
        cells = getattr(getattr(fn, "__func__", fn), "__closure__", None) or ()
        for k, cell in enumerate(cells):
            try:
                contents = cell.cell_contents
            except ValueError:  # (a cell not yet filled)
                continue
            visit(contents, f"{source}.__closure__[{k}].cell_contents")

    for value, source in extra:
        visit(value, source)
    here = f"L['args'][{index}]"
    if isinstance(fn, Module):
        visit(fn, here)
    else:
        seen.add(id(fn))
        visit_closure(fn, here)
    return names


@contextlib.contextmanager
def _naming(recorder: Any, names: tuple[dict, dict]) -> Iterator[dict[int, str] | None]:
    """Within it, the names of the outermost operator being recorded (``names``, the
    first function's first); it gives those of an enclosing operator (None if none)."""
    enclosing = _NAMES.get(id(recorder))
    if enclosing is None:
        _NAMES[id(recorder)] = {**names[1], **names[0]}
    try:
        yield enclosing
    finally:
        if enclosing is None:
            del _NAMES[id(recorder)]


def _ordered(
    first: _Scope, second: _Scope, names: tuple[dict, dict], enclosing: dict | None
) -> list[int]:
    """The read tensors as the operator's operands: both functions', the first's, the
    second's, each group in the order of dynamo's names. Outermost, a tensor without one
    goes last; nested in another operator, a value computed there is named by its node
    (``mul``), as dynamo's graph names it."""
    outer = {**second.free, **first.free}

    def by_name(keys: list[int], found: dict[int, str]) -> list[int]:
        if enclosing is not None:
            return sorted(keys, key=lambda k: enclosing.get(k) or outer[k].name)
        return sorted(keys, key=lambda k: (k not in found, found.get(k, "")))

    shared = [k for k in first.free if k in second.free]
    only_first = [k for k in first.free if k not in second.free]
    only_second = [k for k in second.free if k not in first.free]
    return (
        by_name(shared, names[0]) + by_name(only_first, names[0]) + by_name(only_second, names[1])
    )


def _base(name: str) -> str:
    """The name fx was asked for (``sum_1`` -> ``sum``), to be numbered again."""
    return re.sub(r"_\d+$", "", name)


def _final(
    scope: _Scope,
    inputs: list[tuple[int, str, Any]],
    results: list,
    single: bool,
    as_list: bool = False,
) -> Graph:
    """The function's graph: ``inputs`` (tensor id, name, meta) as its placeholders, in
    order, then its nodes, named afresh after them; returning ``results`` (one, a tuple
    or, ``as_list``, a list)."""
    graph = Graph()
    env: dict[Node, Node] = {}
    for key, name, meta in inputs:
        node = graph.placeholder(name)
        if meta is not None:
            node.meta["tensor_meta"] = TensorMeta(meta.dtype, list(meta.shape), False)
        if dict.__contains__(scope, key):
            env[dict.__getitem__(scope, key)] = node
    for node in scope.graph.nodes:
        if node.op == "placeholder":
            continue
        new = graph.create_node(
            node.op,
            node.target,
            map_arg(node.args, env.__getitem__),
            map_arg(node.kwargs, env.__getitem__),
            # (a nested function's attribute keeps its name: true_graph_0)
            name=node.name if node.op == "get_attr" else _base(node.name),
        )
        new.meta = copy.copy(node.meta)
        env[node] = new
    outputs = [env[n] for n in results]
    graph.output(outputs[0] if single else list(outputs) if as_list else tuple(outputs))
    for node in list(graph.nodes):  # (a nested operator's unread result, as PyTorch drops)
        if node.target is operator.getitem and not node.users:
            graph.erase_node(node)
    return graph


def _record(recorder: Any, scope: _Scope, op: str, fn: Callable, args: tuple) -> tuple:
    """``fn(*args)`` recorded into ``scope``: its output and its tensors' nodes there."""
    from .._higher_order_ops import _subgraph

    with _recording_into(recorder, scope):
        out = _subgraph.call(op, fn, args)
        leaves = pytree.tree_leaves(out)
        if not all(isinstance(t, Tensor) for t in leaves):
            raise NotImplementedError(
                f"chainrule.export writes {op} functions returning tensors only (PyTorch "
                "keeps a returned number as a symbol); return a tensor instead"
            )
        return out, [recorder.node_of(t) for t in leaves]


def _meta(t: Tensor) -> TensorMeta:
    return TensorMeta(t.dtype, list(t.shape), t.requires_grad)


def _call(recorder: Any, op: Any, args: tuple, values: list[Tensor]) -> None:
    """The operator's node in the enclosing graph, each of ``values`` read by a getitem."""
    graph = recorder.graph
    node = graph.create_node("call_function", op, args, {}, name=op.name())
    node.meta["arg_names"] = [""] * len(args)
    node.meta["output_metas"] = [_meta(t) for t in values]
    node.meta["returns_list"] = False
    for i, t in enumerate(values):
        item = graph.create_node("call_function", operator.getitem, (node, i))
        item.meta["tensor_meta"] = _meta(t)
        recorder.nodes[id(t)] = item
        recorder.alive.append(t)


def export_cond(
    recorder: Any, pred: Tensor, true_fn: Callable, false_fn: Callable, operands: tuple
) -> Any:
    """``torch.cond`` written as ``torch.ops.higher_order.cond`` with both branches as
    subgraphs; the values of the branch ``pred`` takes."""
    from .._higher_order_ops.cond import _check_agree

    extra = ((operands, "L['args'][3]"),)
    names = (_source_names(true_fn, 1, extra), _source_names(false_fn, 2, extra))
    scopes = [_Scope(recorder.nodes), _Scope(recorder.nodes)]
    _CONDS[id(recorder)] = _CONDS.get(id(recorder), 0) + 1
    try:
        with _naming(recorder, names) as enclosing:
            recorded = [
                _record(recorder, scope, "torch.cond", fn, operands)
                for scope, fn in zip(scopes, (true_fn, false_fn))
            ]
    finally:
        _CONDS[id(recorder)] -= 1
    _check_agree(recorded[0][0], recorded[1][0])
    lifted = _ordered(scopes[0], scopes[1], names, enclosing)
    outer = {**scopes[1].free, **scopes[0].free}
    # (inside a while loop PyTorch retraces the body: its conds' placeholders are argN_1)
    looped = _LOOPS.get(id(recorder), 0) > 0
    inputs = [
        (k, f"arg{j}_1" if looped else outer[k].name, outer[k].meta.get("tensor_meta"))
        for j, k in enumerate(lifted)
    ]
    graphs = [_final(s, inputs, results, False) for s, (_, results) in zip(scopes, recorded)]
    with _paused(recorder):
        taken = 0 if bool(pred) else 1
    pred_node = recorder.node_of(pred)
    true_attr = _higher_order.add_subgraph(recorder.graph, "true_graph", graphs[0])
    false_attr = _higher_order.add_subgraph(recorder.graph, "false_graph", graphs[1])
    out = recorded[taken][0]
    args = (pred_node, true_attr, false_attr, tuple(outer[k] for k in lifted))
    _call(recorder, _higher_order.COND, args, pytree.tree_leaves(out))
    return out


def export_while_loop(
    recorder: Any, cond_fn: Callable, body_fn: Callable, carried_inputs: tuple, run: Callable
) -> Any:
    """``torch.while_loop`` written as ``torch.ops.higher_order.while_loop`` with its
    condition and body as subgraphs; the values of the loop ``run`` to its end."""
    from .._higher_order_ops.while_loop import _check_same, _holds

    carried = tuple(carried_inputs)
    leaves = pytree.tree_leaves(carried)
    if not all(isinstance(t, Tensor) for t in leaves):
        raise NotImplementedError(
            "chainrule.export writes torch.while_loop over tensors only (PyTorch carries a "
            "number as an unbacked symbol, and its torch.export.save cannot write such a "
            "program); carry a 0-d tensor instead"
        )
    scopes = [_Scope(recorder.nodes), _Scope(recorder.nodes)]
    for scope in scopes:
        for i, t in enumerate(leaves):
            node = scope.graph.placeholder(f"arg{i}_1")
            node.meta["tensor_meta"] = _meta(t)
            dict.__setitem__(scope, id(t), node)
    names = (_source_names(cond_fn, 0), _source_names(body_fn, 1))
    # (dynamo's body reads clones of the carried values: clone_5, clone_7 ... for two)
    n = len(leaves)
    clones = {id(t): f"clone_{2 * n + 2 * i + 1}" for i, t in enumerate(leaves)}
    _LOOPS[id(recorder)] = _LOOPS.get(id(recorder), 0) + 1
    try:
        with _naming(recorder, ({**names[0], **clones}, names[1])) as enclosing:
            (pred, pred_nodes), (body, body_nodes) = (
                _record(recorder, scope, "torch.while_loop", fn, carried)
                for scope, fn in zip(scopes, (cond_fn, body_fn))
            )
    finally:
        _LOOPS[id(recorder)] -= 1
    with _paused(recorder):
        _holds(pred)  # (refuses what is not a bool tensor)
    _check_same(tuple(body) if isinstance(body, (tuple, list)) else (body,), carried)
    lifted = _ordered(scopes[0], scopes[1], names, enclosing)
    if _LOOPS.get(id(recorder), 0) == 0 and _reads_parameter(recorder, lifted):
        # (PyTorch leaves an unbacked symbol for such a loop, two inside a cond's branch)
        recorder.unbacked.reserve(2 if _CONDS.get(id(recorder), 0) else 1)
    outer = {**scopes[1].free, **scopes[0].free}
    inputs = [(id(t), f"arg{i}_1", _meta(t)) for i, t in enumerate(leaves)]
    inputs += [
        (k, f"arg{len(leaves) + j}_1", outer[k].meta.get("tensor_meta"))
        for j, k in enumerate(lifted)
    ]
    cond_graph = _final(scopes[0], inputs, pred_nodes, True)
    body_graph = _final(scopes[1], inputs, body_nodes, False)
    carried_nodes = tuple(recorder.node_of(t) for t in leaves)
    with _paused(recorder):
        out = run(cond_fn, body_fn, carried_inputs)
    graph = recorder.graph
    cond_attr = _higher_order.add_subgraph(graph, "while_loop_cond_graph", cond_graph)
    body_attr = _higher_order.add_subgraph(graph, "while_loop_body_graph", body_graph)
    args = (cond_attr, body_attr, carried_nodes, tuple(outer[k] for k in lifted))
    _call(recorder, _higher_order.WHILE_LOOP, args, pytree.tree_leaves(out))
    return out


def _reads_parameter(recorder: Any, keys: list[int]) -> bool:
    """Whether one of the tensors ``keys`` (ids) is a parameter of the exported module:
    a ``p_`` placeholder of the program ahead of its user inputs."""
    root = recorder.nodes
    while isinstance(root, _Scope):
        root = root.outer
    params: set[Node] = set()
    for node in next(iter(root.values())).graph.nodes if root else ():
        if node is recorder.first_user or node.op != "placeholder":
            break
        if node.name.startswith("p_"):
            params.add(node)
    return any(root.get(k) in params for k in keys)


def _sliced(recorder: Any, scope: _Scope, xs: list, names: list[str]) -> list[Tensor]:
    """The first slices of ``xs`` (what the function is traced on), placeholders of
    ``scope`` named ``names``."""
    with _paused(recorder):
        slices = [x.select(0, 0) for x in xs]
    for t, name in zip(slices, names):
        node = scope.graph.placeholder(name)
        node.meta["tensor_meta"] = _meta(t)
        dict.__setitem__(scope, id(t), node)
    return slices


def export_scan(
    recorder: Any, combine_fn: Callable, init: list, xs: list, run: Callable
) -> list[Tensor]:
    """``scan`` over leaves (``combine_fn(*carry, *x_i)`` -> carry and outputs, flat)
    written as ``torch.ops.higher_order.scan(combine_graph, init, xs, additional)``: its
    placeholders ``arg0_1`` ... (the carry, a slice of each of ``xs``, then what it reads,
    in the order first read, as dynamo lifts them); the values of ``run``."""
    scope = _Scope(recorder.nodes)
    for i, t in enumerate(init):
        node = scope.graph.placeholder(f"arg{i}_1")
        node.meta["tensor_meta"] = _meta(t)
        dict.__setitem__(scope, id(t), node)
    slices = _sliced(recorder, scope, xs, [f"arg{len(init) + j}_1" for j in range(len(xs))])
    _LOOPS[id(recorder)] = _LOOPS.get(id(recorder), 0) + 1
    try:
        with _naming(recorder, ({}, {})):
            _, results = _record(recorder, scope, "torch.scan", combine_fn, (*init, *slices))
    finally:
        _LOOPS[id(recorder)] -= 1
    lifted = list(scope.free)
    inputs = [(id(t), f"arg{i}_1", _meta(t)) for i, t in enumerate([*init, *slices])]
    n = len(inputs)
    inputs += [
        (k, f"arg{n + j}_1", scope.free[k].meta.get("tensor_meta")) for j, k in enumerate(lifted)
    ]
    graph = _final(scope, inputs, results, False, as_list=True)
    with _paused(recorder):
        out = run()
    attr = _higher_order.add_subgraph(recorder.graph, "scan_combine_graph", graph)
    args = (
        attr,
        [recorder.node_of(t) for t in init],
        [recorder.node_of(t) for t in xs],
        tuple(scope.free[k] for k in lifted),
    )
    _call(recorder, _higher_order.SCAN, args, out)
    return out


def export_map(recorder: Any, fn: Callable, xs: list, args: list, run: Callable) -> list[Tensor]:
    """``map`` over leaves (``fn(*x_i, *args)`` -> outputs, flat) written as
    ``torch.ops.higher_order.map_impl(body_graph, xs, [*args, *read])``: its placeholders
    named as the values they take (the enclosing graph's), what it reads after ``args`` in
    the order first read; the values of ``run``."""
    scope = _Scope(recorder.nodes)
    outer_xs = [recorder.node_of(t) for t in xs]
    slices = _sliced(recorder, scope, xs, [n.name for n in outer_xs])
    outer_args = [recorder.node_of(t) for t in args]
    for t in args:
        scope[id(t)]  # noqa: B018 - (an argument: a placeholder, read or not)
    with _naming(recorder, ({}, {})):
        _, results = _record(recorder, scope, "torch.map", fn, (*slices, *args))
    lifted = [k for k in scope.free if k not in {id(t) for t in args}]
    inputs = [(id(t), n.name, _meta(t)) for t, n in zip(slices, outer_xs)]
    inputs += [(id(t), n.name, n.meta.get("tensor_meta")) for t, n in zip(args, outer_args)]
    inputs += [(k, scope.free[k].name, scope.free[k].meta.get("tensor_meta")) for k in lifted]
    graph = _final(scope, inputs, results, False)
    with _paused(recorder):
        out = run()
    attr = _higher_order.add_subgraph(recorder.graph, "body_graph", graph)
    operands = [*outer_args, *(scope.free[k] for k in lifted)]
    _call(recorder, _higher_order.MAP, (attr, outer_xs, operands), out)
    return out
