"""``ExportedProgram.run_decompositions``: the training-IR calls written as core ATen, as
PyTorch writes them (``linear`` -> ``permute`` + ``addmm``, ``matmul`` -> ``mm`` or
``expand`` + ``view`` + ``bmm``, ``conv2d`` -> ``convolution``, eval ``batch_norm`` ->
``_native_batch_norm_legit_no_training`` ...). The graph is written anew, node by node,
each value computed on the program's example inputs for its sizes (and strides: a
``reshape`` is a ``view`` where the strides allow one); then the values nothing reads are
dropped (their names stay taken, as in PyTorch's).

In-place updates of buffers (training-mode batch norm's running statistics, its
``num_batches_tracked += 1``) become functional calls whose results are the program's
``BUFFER_MUTATION`` outputs, listed first, in the order of the buffers' inputs."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import chainrule

from ..fx import Graph, Node
from . import _decompose_aliases, _decompose_order, _naming, _schema_args
from ._reader import ATEN, TensorMeta
from .graph_signature import (
    ExportGraphSignature,
    InputKind,
    OutputKind,
    OutputSpec,
    TensorArgument,
)


class Writer:
    """Writes nodes into a new graph, computing each one's value; keeps the buffers'
    latest values (``mutated``: the buffer's target -> the node holding its new value)."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.values: dict[Node, Any] = {}
        self.buffers: dict[Node, str] = {}
        self.mutated: dict[str, Node] = {}
        # views of a value updated in place: node -> its chain of views from the base
        self.aliases: dict[Node, list[Node]] = {}

    def value(self, arg: Any) -> Any:
        if isinstance(arg, Node):
            return self.values[arg]
        if isinstance(arg, (list, tuple)):
            return [self.value(a) for a in arg]
        return arg

    def call(self, overload: str, *args: Any, **kwargs: Any) -> Any:
        """A node calling ``aten.<overload>``: its node, or a list of getitem nodes."""
        from ._tracer import _node_name

        target = ATEN.overload(f"aten.{overload}")
        result = target(
            *[self.value(a) for a in args], **{k: self.value(v) for k, v in kwargs.items()}
        )
        node = self.graph.create_node(
            "call_function", target, tuple(args), dict(kwargs), name=_node_name(overload)
        )
        node.meta["arg_names"] = _schema_args.names(overload)[: len(args)]
        if result is None:  # (a check: kept though nothing reads it)
            self.values[node] = None
            return node
        if isinstance(result, chainrule.Tensor):
            node.meta["tensor_meta"] = _meta(result)
            self.values[node] = result
            return node
        node.meta["returns_list"] = _schema_args.returns_list(overload)
        node.meta["output_metas"] = [_meta(t) for t in result]
        items = []
        for i, t in enumerate(result):
            item = self.graph.create_node("call_function", operator.getitem, (node, i))
            item.meta["tensor_meta"] = _meta(t)
            self.values[item] = t
            items.append(item)
        return items

    def mutate(self, buffer: Node, new: Node) -> None:
        """Records ``new`` as the value of the buffer ``buffer`` holds from now on."""
        target = self.buffers.get(buffer)
        if target is None:
            raise NotImplementedError(
                "run_decompositions: an in-place update of a value that is not a buffer "
                "(write it out of place)"
            )
        self.mutated[target] = new
        self.buffers[new] = target


def _meta(t: Any) -> TensorMeta:
    return TensorMeta(t.dtype, list(t.shape), t.requires_grad)


def _in_place(op: str) -> Callable[..., Node]:
    """``buffer.<op>_(...)``: ``<op>(buffer, ...)``, the buffer's new value."""

    def write(w: Writer, buffer: Node, *args: Any) -> Node:
        new = w.call(f"{op}.Tensor", buffer, *args)
        w.mutate(buffer, new)
        return new

    return write


def _rules() -> dict[str, Callable[..., Any]]:
    from ._decompose_activations import ACTIVATIONS
    from ._decompose_attention import ATTENTION
    from ._decompose_layers import LAYERS
    from ._decompose_losses import LOSSES
    from ._decompose_norms import NORMS
    from ._decompose_pointwise_losses import POINTWISE_LOSSES
    from ._decompose_products import PRODUCTS
    from ._decompose_shapes import SHAPES
    from ._decompose_spatial import SPATIAL

    rules = {**LAYERS, **PRODUCTS, **ATTENTION, **LOSSES, **ACTIVATIONS, **SHAPES, **SPATIAL}
    rules.update(POINTWISE_LOSSES)
    rules.update(NORMS)
    rules.update({f"{op}_.Tensor": _in_place(op) for op in ("add", "sub", "mul", "div")})
    return rules


# The overloads PyTorch writes whatever the table (composite ones, not in
# ``torch.export.default_decompositions()``); a table without one of the others keeps it.
IMPLICIT = frozenset(
    {
        "batch_norm.default",
        "dropout.default",
        "flatten.using_ints",
        "reshape.default",
        "contiguous.default",
        "unflatten.int",
        "_assert_tensor_metadata.default",
        "to.dtype",
        "add_.Tensor",
        "sub_.Tensor",
        "mul_.Tensor",
        "div_.Tensor",
        "expand_as.default",
        "chunk.default",
        "var.correction",
        "where.self",
    }
)


def default_decompositions() -> dict[Any, Callable[..., Any]]:
    """``torch.export.default_decompositions()``: the decompositions ``run_decompositions``
    applies, keyed by ATen overload (``torch.ops.aten.linear.default``); remove an op to
    keep its calls as they are."""
    return {
        ATEN.overload(f"aten.{name}"): rule
        for name, rule in _rules().items()
        if name not in IMPLICIT
    }


def _table(decomp_table: dict | None) -> dict[str, Callable[..., Any]]:
    """The rules by overload name: all, or the implicit ones and those ``decomp_table``
    names (an ATen overload or its name -> a rule or anything else, e.g. PyTorch's own)."""
    rules = _rules()
    if decomp_table is None:
        return rules
    named = {str(k).removeprefix("aten."): v for k, v in decomp_table.items()}
    table = {name: rule for name, rule in rules.items() if name in IMPLICIT or name in named}
    for name, rule in named.items():
        if name not in rules:
            if not callable(rule):
                raise TypeError(f"run_decompositions: the rule for {name} is not callable")
            table[name] = rule
    return table


def inputs_of(ep: Any) -> dict[str, Any]:
    """Each placeholder's value: the state, constants and example inputs."""
    values: dict[str, Any] = {}
    args = list(ep.example_inputs[0]) if ep.example_inputs else []
    kwargs = dict(ep.example_inputs[1]) if ep.example_inputs else {}
    users = iter(_flat((args, kwargs)))
    for spec in ep.graph_signature.input_specs:
        if spec.kind in (InputKind.PARAMETER, InputKind.BUFFER):
            source = ep.state_dict if spec.target in ep.state_dict else ep.constants
            values[spec.arg.name] = source[spec.target]
        elif spec.kind == InputKind.CONSTANT_TENSOR:
            values[spec.arg.name] = ep.constants[spec.target]
        elif spec.kind == InputKind.USER_INPUT:
            values[spec.arg.name] = next(users)
    return values


def _flat(value: Any) -> list:
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _flat(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _flat(v)]
    return [value] if isinstance(value, chainrule.Tensor) else []


def run_decompositions(ep: Any, decomp_table: dict | None = None) -> Any:
    """``ep`` with its calls written as core ATen calls by the rules of
    ``default_decompositions()`` (or those ``decomp_table`` keeps; an entry of an op with
    no rule here is a function of a ``Writer`` and the call's arguments)."""
    table = _table(decomp_table)
    if ep.range_constraints:
        from ._decompose_symbolic import symbolic

        return symbolic(ep, table)
    return program(ep, *write(ep, table, inputs_of(ep)))


_SIZE_ARITHMETIC = frozenset({operator.add, operator.sub, operator.mul, operator.floordiv})


def write(
    ep: Any, table: dict[str, Callable[..., Any]], inputs: dict[str, Any]
) -> tuple[Graph, list[tuple[str, Node]], list[Node]]:
    """``ep``'s graph decomposed on the placeholders' values ``inputs``: the new graph,
    the buffers' updates (target, node) and the outputs. Sizes the program reads
    (``sym_size`` and arithmetic nodes) are plain ints here."""
    graph = Graph()
    writer = Writer(graph)
    specs = _decompose_order.input_specs(list(ep.graph_signature.input_specs))
    buffers = {s.arg.name: s.target for s in specs if s.kind == InputKind.BUFFER}
    rank = {getattr(s.arg, "name", None): i for i, s in enumerate(specs)}
    env: dict[Node, Any] = {}
    placeholders: dict[str, Node] = {}

    def new(arg: Any) -> Any:
        if isinstance(arg, Node):
            return env[arg]
        if isinstance(arg, (list, tuple)):
            return [new(a) for a in arg]
        return arg

    outputs: list[Node] = []
    nodes = list(ep.graph.nodes)
    first = sorted((n for n in nodes if n.op == "placeholder"), key=lambda n: rank[n.name])
    for node in first + [n for n in nodes if n.op != "placeholder"]:
        if node.op == "placeholder":
            copy = _naming.placeholder(graph, node.name)
            copy.meta.update(node.meta)
            writer.values[copy] = inputs[node.name]
            if node.name in buffers:
                writer.buffers[copy] = buffers[node.name]
            placeholders[node.name] = node
            env[node] = copy
        elif node.op == "output":
            outputs = [env[n] for n in node.args[0]]
        elif node.target is operator.getitem:
            env[node] = env[node.args[0]][node.args[1]]
        elif str(node.target) == "aten.sym_size.int":
            x, d = node.args
            env[node] = int(writer.values[env[x]].shape[d])
        elif node.target in _SIZE_ARITHMETIC:
            env[node] = node.target(*new(list(node.args)))
        else:
            overload = str(node.target).removeprefix("aten.")
            decompose = table.get(overload)
            args, kwargs = new(list(node.args)), new(dict(node.kwargs))
            args, kwargs = _decompose_aliases.synced(writer, args, kwargs)
            before, after = dict(writer.mutated), _decompose_aliases.last(writer)
            mark = graph._root.prev
            env[node] = (
                writer.call(overload, *args, **kwargs)
                if decompose is None
                else decompose(writer, *args, **kwargs)
            )
            _tag(graph, mark, node.name)
            _decompose_aliases.extend(writer, after, env[node])
            for target, value in writer.mutated.items():
                if before.get(target) is not value:
                    # later reads of the buffer read its new value
                    name = next(n for n, t in buffers.items() if t == target)
                    env[placeholders[name]] = value
    mutations = [
        (target, writer.mutated[target]) for target in buffers.values() if target in writer.mutated
    ]
    graph.output(tuple([n for _, n in mutations] + outputs))
    _drop_unread(graph)
    return graph, mutations, outputs


def _tag(graph: Graph, mark: Node, name: str) -> None:
    """Marks the nodes written after ``mark`` as the decomposition of the node ``name``."""
    node = mark.next
    while node is not graph._root:
        node.meta.setdefault("decomposed_from", name)
        node = node.next


def program(ep: Any, graph: Graph, mutations: list[tuple[str, Node]], outputs: list[Node]) -> Any:
    """The decomposed ``ExportedProgram``: buffer updates first among its outputs."""
    from .exported_program import ExportedProgram

    for node in graph.nodes:
        node.meta.pop("decomposed_from", None)
    names = iter(n.name for n in outputs)
    specs = [
        OutputSpec(OutputKind.BUFFER_MUTATION, TensorArgument(n.name), target)
        for target, n in mutations
    ] + [
        OutputSpec(s.kind, TensorArgument(next(names)), s.target)
        for s in ep.graph_signature.output_specs
    ]
    return ExportedProgram(
        graph,
        ExportGraphSignature(
            _decompose_order.input_specs(list(ep.graph_signature.input_specs)), specs
        ),
        ep.state_dict,
        range_constraints=ep.range_constraints,
        module_call_graph=ep.module_call_graph,
        example_inputs=ep.example_inputs,
        constants=ep.constants,
        verifiers=["ATEN"],
    )


_CHECKS = (ATEN.overload("aten._assert_tensor_metadata.default"),)


def _drop_unread(graph: Graph) -> None:
    """Drops the calls nothing reads (getitems first, then what they came from)."""
    for node in reversed(list(graph.nodes)):
        if node.op == "call_function" and not node.users and node.target not in _CHECKS:
            graph.erase_node(node)
