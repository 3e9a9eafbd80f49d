"""``torch.fx.passes.split_module``: split a GraphModule into one submodule per partition.

``split_module(m, root_m, split_callback)`` asks ``split_callback`` for the partition of each
operation Node (placeholders, ``get_attr`` Nodes and the output stay in the outer graph).
Each partition becomes a GraphModule ``submod_<partition>`` whose inputs are the values it
reads from outside (original placeholders, parameters and other partitions' results) and
whose outputs are the values read outside it (a tuple when more than one, unpacked with
``getitem`` in the outer graph). The outer graph calls the submodules in a topological order
of their dependencies, or in the order the partitions first appear
(``keep_original_order``).
"""

from __future__ import annotations

import inspect
import operator
from collections.abc import Callable
from typing import Any

from ...nn import Module
from ..graph import Graph
from ..graph_module import GraphModule
from ..node import Node, map_arg

__all__ = ["Partition", "split_module", "split_module_simple"]


class Partition:
    """One partition of a split: its Nodes, the values crossing its boundary, and the Graph
    of its submodule."""

    def __init__(self, name: str) -> None:
        self.name: str = name
        self.submod_name = f"submod_{name}"
        self.node_names: list[str] = []
        self.inputs: dict[str, None] = {}
        self.outputs: dict[str, None] = {}
        self.dependencies: dict[str, None] = {}
        self.dependents: dict[str, None] = {}
        self.graph: Graph = Graph()
        self.environment: dict[Node, Node] = {}
        self.targets: dict[str, Any] = {}

    def __repr__(self) -> str:
        return (
            f"name: {self.name},\n"
            f" nodes: {self.node_names},\n"
            f" inputs: {self.inputs},\n"
            f" outputs: {self.outputs},\n"
            f" partitions depended on: {self.dependencies},\n"
            f" partition dependents: {self.dependents}"
        )


def _get_attr_from_qualname(mod: Module, qualname: str) -> Any:
    value: Any = mod
    for atom in qualname.split("."):
        if not hasattr(value, atom):
            raise AttributeError(f"Node target {qualname} not found!")
        value = getattr(value, atom)
    return value


def _topological_order(partitions: dict[str, Partition]) -> list[str]:
    """The partitions, each after those it depends on (RuntimeError on a cycle)."""
    ready = [name for name, p in partitions.items() if not p.dependencies]
    pending = {name: dict(p.dependencies) for name, p in partitions.items()}
    order: list[str] = []
    while ready:
        name = ready.pop()
        order.append(name)
        for dependent in partitions[name].dependents:
            pending[dependent].pop(name)
            if not pending[dependent]:
                ready.append(dependent)
    if len(order) != len(partitions):
        raise RuntimeError("cycle exists between partitions!")
    return order


def split_module(
    m: GraphModule,
    root_m: Module,
    split_callback: Callable[[Node], int],
    qualname_map: dict[str, str] | None = None,
    keep_original_order: bool | None = False,
    keep_original_node_name: bool | None = False,
    keep_original_input_name: bool = True,
    *,
    partition_affix: str | None = None,
    tuple_return: bool = False,
) -> GraphModule:
    """A GraphModule computing ``m`` that calls one submodule per partition.

    ``split_callback(node)`` gives each operation Node's partition (called once per Node, in
    program order). ``qualname_map``, when given, is filled with each submodule target's
    original name (``"submod_0.linear" -> "linear"``). ``keep_original_node_name`` keeps the
    Node names inside the submodules; ``keep_original_input_name=False`` names their inputs
    ``arg_0, arg_1, ...``; ``partition_affix`` names them ``submod_<affix>_<partition>``;
    ``tuple_return`` makes every submodule return a tuple. ``root_m`` is not used.
    """
    partitions: dict[str, Partition] = {}
    partition_of: dict[Node, str] = {}
    orig_nodes: dict[str, Node] = {n.name: n for n in m.graph.nodes}

    for node in m.graph.nodes:
        if node.op in ("placeholder", "get_attr", "output"):
            continue
        name = str(split_callback(node))
        if partition_affix is not None:
            name = f"{partition_affix}_{name}"
        partition = partitions.get(name)
        if partition is None:
            partitions[name] = partition = Partition(name)
        partition.node_names.append(node.name)
        partition_of[node] = name

    def record_use(def_node: Node, use_node: Node | None) -> Node:
        defined = partition_of.get(def_node)
        used = partition_of.get(use_node) if use_node is not None else None
        if defined == used:
            return def_node
        if defined is not None:
            partitions[defined].outputs.setdefault(def_node.name)
            if used is not None:
                partitions[defined].dependents.setdefault(used)
        if used is not None:
            partitions[used].inputs.setdefault(def_node.name)
            if defined is not None:
                partitions[used].dependencies.setdefault(defined)
        return def_node

    for node in m.graph.nodes:
        if node.op in ("placeholder", "get_attr"):
            continue
        if node.op == "output":
            map_arg(node.args[0], lambda n: record_use(n, None))
            continue
        map_arg(node.args, lambda n, user=node: record_use(n, user))
        map_arg(node.kwargs, lambda n, user=node: record_use(n, user))

    original_partition_order = list(partitions)
    sorted_partitions = _topological_order(partitions)

    # each partition's inputs: placeholders, except submodules read by get_attr, which the
    # partition reads itself
    for name in sorted_partitions:
        partition = partitions[name]
        plain: list[str] = []
        modules: list[str] = []
        for inp in partition.inputs:
            orig = orig_nodes[inp]
            is_module = orig.op == "get_attr" and isinstance(
                _get_attr_from_qualname(m, orig.target), Module
            )
            (modules if is_module else plain).append(inp)
        new_inputs: dict[str, None] = {}
        for inp in plain + modules:
            orig = orig_nodes[inp]
            if inp in modules:
                new_node = partition.graph.get_attr(orig.target)
                partition.targets[orig.target] = _get_attr_from_qualname(m, orig.target)
            else:
                input_name = inp if keep_original_input_name else f"arg_{len(new_inputs)}"
                new_node = partition.graph.placeholder(input_name, type_expr=orig.type)
                new_inputs[inp] = None
            new_node.meta = orig.meta.copy()
            partition.environment[orig] = new_node
        partition.inputs = new_inputs

    for node in m.graph.nodes:
        if node not in partition_of:
            continue
        partition = partitions[partition_of[node]]
        env = partition.environment
        args = map_arg(node.args, lambda n, env=env: env[n])
        kwargs = map_arg(node.kwargs, lambda n, env=env: env[n])
        target = node.target
        if node.op in ("call_module", "get_attr"):
            target = node.target.replace(".", "_")
            partition.targets[target] = _get_attr_from_qualname(m, node.target)
            if qualname_map is not None:
                qualname_map[f"{partition.submod_name}.{target}"] = node.target
        new_node = partition.graph.create_node(
            node.op,
            target,
            args,
            kwargs,
            name=node.name if keep_original_node_name else None,
            type_expr=node.type,
        )
        new_node.meta = node.meta.copy()
        env[node] = new_node

    base_graph = Graph()
    base_env: dict[str, Node] = {}
    base_attrs: dict[str, Any] = {}

    def copy_to_base(node: Node) -> None:
        if node.name in base_env:
            return
        if node.op == "placeholder":
            if keep_original_node_name:
                base_env[node.name] = base_graph.create_node(
                    "placeholder", node.name, tuple(node.args), type_expr=node.type
                )
            else:
                default = node.args[0] if node.args else inspect.Signature.empty
                base_env[node.name] = base_graph.placeholder(
                    node.target, type_expr=node.type, default_value=default
                )
        elif node.op == "get_attr":
            base_env[node.name] = base_graph.get_attr(node.target)
            base_attrs[node.target] = _get_attr_from_qualname(m, node.target)
        else:
            return
        base_env[node.name].meta = node.meta.copy()

    placeholders = [n for n in m.graph.nodes if n.op == "placeholder"]
    if not keep_original_order:
        for node in m.graph.nodes:
            copy_to_base(node)

    for name in original_partition_order if keep_original_order else sorted_partitions:
        partition = partitions[name]
        outputs = tuple(partition.environment[orig_nodes[o]] for o in partition.outputs)
        partition.graph.output(outputs[0] if len(outputs) == 1 and not tuple_return else outputs)
        if keep_original_order:
            # the inputs first, then the parameters this partition reads, as they are needed
            for node in placeholders:
                copy_to_base(node)
            for inp in partition.inputs:
                copy_to_base(orig_nodes[inp])
        base_attrs[partition.submod_name] = GraphModule(partition.targets, partition.graph)
        call = base_graph.call_module(
            partition.submod_name, tuple(base_env[i] for i in partition.inputs)
        )
        if len(partition.outputs) > 1 or (partition.outputs and tuple_return):
            for i, out in enumerate(partition.outputs):
                base_env[out] = base_graph.call_function(operator.getitem, (call, i))
        elif partition.outputs:
            base_env[next(iter(partition.outputs))] = call

    if keep_original_order and not base_env:
        for node in m.graph.nodes:
            copy_to_base(node)

    for node in m.graph.nodes:
        if node.op == "output":
            base_graph.output(map_arg(node.args[0], lambda n: base_env[n.name]))

    result = GraphModule(base_attrs, base_graph)
    result.meta = {"partition_names": {p.submod_name for p in partitions.values()}}
    return result


def split_module_simple(
    m: GraphModule, node_to_partition: dict[Node, int], *, partition_affix: str | None = None
) -> GraphModule:
    """``m`` split by a given map from each operation Node to its partition, for graphs
    whose partitions already come in an order their data flows in (no ``get_attr`` Nodes):
    the submodules are called in the order the partitions first appear, without the
    topological sort of ``split_module``."""
    order: list[int] = []
    inputs: dict[int, dict[str, Node]] = {}
    outputs: dict[int, dict[str, Node]] = {}
    partition_of: dict[Node, int] = {}
    for node in m.graph.nodes:
        if node.op == "placeholder":
            continue
        if node.op == "output":
            for n in _flat_nodes(node.args[0]):
                if n in partition_of:
                    outputs[partition_of[n]].setdefault(n.name, n)
            continue
        pid = node_to_partition[node]
        partition_of[node] = pid
        if pid not in inputs:
            order.append(pid)
            inputs[pid], outputs[pid] = {}, {}
        for n in _flat_nodes((node.args, node.kwargs)):
            if partition_of.get(n) != pid:
                if n in partition_of:
                    outputs[partition_of[n]].setdefault(n.name, n)
                inputs[pid].setdefault(n.name, n)

    graphs = {pid: Graph() for pid in order}
    envs: dict[int, dict[Node, Node]] = {pid: {} for pid in order}
    for pid in order:
        for name, orig in inputs[pid].items():
            placeholder = graphs[pid].placeholder(name, type_expr=orig.type)
            placeholder.meta = orig.meta.copy()
            envs[pid][orig] = placeholder
    for node in m.graph.nodes:
        if node not in partition_of:
            continue
        env = envs[partition_of[node]]
        new_node = graphs[partition_of[node]].create_node(
            node.op,
            node.target,
            map_arg(node.args, env.__getitem__),
            map_arg(node.kwargs, env.__getitem__),
            type_expr=node.type,
        )
        new_node.meta = node.meta.copy()
        env[node] = new_node
    for pid in order:
        values = tuple(envs[pid][n] for n in outputs[pid].values())
        graphs[pid].output(values[0] if len(values) == 1 else values)

    base_graph = Graph()
    base_env: dict[str, Node] = {}
    for node in m.graph.find_nodes(op="placeholder"):
        base_env[node.name] = base_graph.placeholder(node.target, type_expr=node.type)
        base_env[node.name].meta = node.meta.copy()
    modules: dict[str, Any] = {}
    for pid in order:
        name = f"submod_{partition_affix}_{pid}" if partition_affix is not None else f"submod_{pid}"
        modules[name] = _lite_graph_module({}, graphs[pid])
        call = base_graph.call_module(name, tuple(base_env[i] for i in inputs[pid]))
        names = list(outputs[pid])
        if len(names) > 1:
            for i, out in enumerate(names):
                base_env[out] = base_graph.call_function(operator.getitem, (call, i))
        elif names:
            base_env[names[0]] = call
    for node in m.graph.find_nodes(op="output"):
        base_graph.output(map_arg(node.args[0], lambda n: base_env[n.name]))
    return _lite_graph_module(modules, base_graph)


def _flat_nodes(arg: Any) -> list[Node]:
    nodes: list[Node] = []
    map_arg(arg, nodes.append)
    return nodes


def _lite_graph_module(modules: dict[str, Any], graph: Graph) -> GraphModule:
    """A GraphModule in eval mode named as PyTorch's lightweight ones (``GraphModuleImpl``)."""
    gm = GraphModule(modules, graph, class_name="GraphModuleImpl")
    gm.training = False
    return gm
