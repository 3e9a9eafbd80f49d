"""``torch.fx.passes.split_utils``: split a GraphModule by the ``tag`` of its Nodes.

``split_by_tags(gm, tags)`` puts the Nodes of each tag in a submodule named after the tag
(in the order of ``tags``, which must follow the data flow: a Node's tag may not come before
the tags of the Nodes it reads); placeholders and the output stay in the outer graph, and
each submodule reads the attributes it needs itself.
"""

from __future__ import annotations

import copy
import operator
from dataclasses import dataclass, field
from typing import Any

from ...nn import Module, ModuleList
from ..graph import Graph
from ..graph_module import GraphModule
from ..node import Argument, Node, map_arg
from .utils.common import HolderModule, lift_subgraph_as_module

__all__ = ["getattr_recursive", "setattr_recursive", "Component", "split_by_tags"]


def getattr_recursive(obj: object, name: str) -> Any:
    """The attribute at dotted path ``name`` of ``obj``; None when there is none."""
    for layer in name.split("."):
        if isinstance(obj, ModuleList):
            if layer not in obj._modules:
                return None
            obj = obj._modules[layer]
        elif hasattr(obj, layer):
            obj = getattr(obj, layer)
        else:
            return None
    return obj


def setattr_recursive(obj: object, attr: str, value: object) -> None:
    """Set the attribute at dotted path ``attr`` of ``obj``."""
    *path, leaf = attr.split(".")
    for layer in path:
        obj = getattr(obj, layer)
    setattr(obj, leaf, value)


@dataclass
class Component:
    """The subgraph of one tag while ``split_by_tags`` builds it."""

    graph: Graph
    order: int
    name: str
    # the component's placeholders, and the original Nodes they stand for
    input_placeholders: list[Node] = field(default_factory=list)
    orig_inputs: list[Node] = field(default_factory=list)
    # the original Nodes read outside the component
    orig_outputs: list[Node] = field(default_factory=list)
    # original get_attr Node -> its copy in the component
    getattr_maps: dict[Node, Node] = field(default_factory=dict)
    constructor_args: list[str] = field(default_factory=list)
    gm: GraphModule | None = None


def _flatten(x: Argument) -> list[Node]:
    nodes: list[Node] = []
    map_arg(x, nodes.append)
    return nodes


def split_by_tags(
    gm: GraphModule,
    tags: list[str],
    return_fqn_mapping: bool = False,
    return_tuple: bool = False,
    GraphModuleCls: type[GraphModule] = GraphModule,  # noqa: N803 - PyTorch's name
) -> GraphModule | tuple[GraphModule, dict[str, str]]:
    """A GraphModule calling one submodule per tag (``node.tag`` on every operation Node),
    in the order of ``tags``; with ``return_fqn_mapping``, also the map from each original
    submodule or attribute path to its path in the result. ``return_tuple`` makes every
    submodule return a tuple."""
    node_remapping: dict[Node, Node] = {}
    node_to_component: dict[Node, Component] = {}
    components = [Component(Graph(), i, f"{tag}") for i, tag in enumerate(tags)]
    tag_to_component = dict(zip(tags, components))
    used_in_main: dict[Node, None] = {}
    main_g = Graph()
    main_remapping: dict[Node, Node] = {}
    output_node: Node | None = None

    for node in gm.graph.nodes:
        if node.op == "output":
            if output_node is not None:
                raise RuntimeError("Multiple output nodes in graph!")
            output_node = node
            continue
        if node.op == "placeholder":
            main_remapping[node] = main_g.placeholder(node.name, type_expr=node.type)
            main_remapping[node].meta = copy.copy(node.meta)
            continue
        if node.op == "get_attr":
            continue
        if not hasattr(node, "tag"):
            raise AssertionError(f"Node does not have tag: {node.format_node()}")
        upstream = [
            node_to_component[x]
            for x in _flatten(node.args) + _flatten(node.kwargs)
            if x.op not in ("placeholder", "get_attr")
        ]
        comp = tag_to_component[node.tag]
        node_to_component[node] = comp
        latest = max((c.order for c in upstream), default=0)
        if comp.order < latest:
            raise AssertionError(
                f"Component {comp.name} order must be >= max of its upstream components, "
                f"order={comp.order} and max={latest}"
            )

        def remap(x: Node, comp: Component = comp) -> Node:
            if x.op == "get_attr":
                if x not in comp.getattr_maps:
                    comp.getattr_maps[x] = comp.graph.get_attr(x.target, type_expr=x.type)
                    comp.getattr_maps[x].meta = copy.copy(x.meta)
                return comp.getattr_maps[x]
            if x.op != "placeholder" and node_to_component[x] == comp:
                return node_remapping[x]
            if x not in comp.orig_inputs:
                comp.orig_inputs.append(x)
                placeholder = comp.graph.placeholder(x.name, type_expr=x.type)
                placeholder.meta = copy.copy(x.meta)
                comp.input_placeholders.append(placeholder)
                used_in_main[x] = None
            return comp.input_placeholders[comp.orig_inputs.index(x)]

        copied = comp.graph.node_copy(node, remap)
        copied.tag = node.tag  # type: ignore[attr-defined]
        node_remapping[node] = copied
        node_to_component[copied] = comp

    if output_node is None:
        raise RuntimeError("Graph had no output node!")

    for x in _flatten(output_node.args[0]):
        if x.op == "get_attr":
            main_remapping[x] = main_g.get_attr(x.name, type_expr=x.type)
        else:
            used_in_main[x] = None
    for n in used_in_main:
        if n.op != "placeholder":
            node_to_component[n].orig_outputs.append(n)

    fqn_mapping: dict[str, str] = {}
    for comp in components:
        outs = tuple(node_remapping[n] for n in comp.orig_outputs)
        comp.graph.output(outs if return_tuple or len(outs) != 1 else outs[0])
        comp.gm, comp_mapping = lift_subgraph_as_module(gm, comp.graph, comp_name=comp.name)
        fqn_mapping.update(comp_mapping)
        call = main_g.call_module(comp.name, tuple(main_remapping[n] for n in comp.orig_inputs))
        if len(outs) == 1 and not return_tuple:
            main_remapping[comp.orig_outputs[0]] = call
        else:
            for i, o in enumerate(comp.orig_outputs):
                main_remapping[o] = main_g.call_function(operator.getitem, (call, i))

    main_g.output(map_arg(output_node.args[0], main_remapping.__getitem__))
    main_root: Module = HolderModule({comp.name: comp.gm for comp in components})
    for x in _flatten(output_node.args[0]):
        if x.op == "get_attr":
            setattr(main_root, x.name, getattr_recursive(gm, x.target))
    result = GraphModuleCls(main_root, main_g)
    if return_fqn_mapping:
        return result, fqn_mapping
    return result
