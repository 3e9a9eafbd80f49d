"""``torch.fx.experimental.const_fold``: run the parts of a graph that read only attributes
once, and keep their results as parameters.

``split_const_subgraphs(module)`` finds the Nodes whose inputs are all attributes
(``get_attr``) or other such Nodes, splits them off with ``split_module`` into a constant
subgraph, and returns a :class:`FoldedGraphModule` whose graph reads that subgraph's results
from the attribute ``_FX_CONST_FOLDED_ATTRS`` (a Parameter, or a ParameterList when there
are several); the first call (or ``run_folding()``) computes them.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from typing import Any

from ... import nn
from ..._creation import tensor
from ..._tensor import Tensor
from .._symbolic_trace import symbolic_trace
from ..graph import Graph
from ..graph_module import GraphModule
from ..node import Node, map_arg
from ..passes.split_module import split_module

__all__ = ["FoldedGraphModule", "get_unique_attr_name_in_module", "split_const_subgraphs"]


class FoldedGraphModule(GraphModule):
    """A GraphModule with a constant subgraph (``const_subgraph_module``) run once, before
    the first call, to set the attribute ``fx_const_folded_attrs_name``."""

    def __init__(
        self,
        root: nn.Module,
        graph: Graph,
        const_subgraph: Graph | None = None,
        fx_const_folded_attrs_name: str | None = None,
        device_for_folded_attrs: str = "cuda",
    ) -> None:
        super().__init__(root, graph)
        self.const_subgraph_module = (
            None if const_subgraph is None else GraphModule(root, const_subgraph)
        )
        self.has_folding_been_run = False
        self.fx_const_folded_attrs_name = fx_const_folded_attrs_name
        self.device_for_folded_attrs = device_for_folded_attrs

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not self.has_folding_been_run:
            self.run_folding()
        return super().__call__(*args)

    def run_folding(self) -> None:
        """Compute the constant subgraph and store its results as the folded attribute."""
        if self.const_subgraph_module is None or self.fx_const_folded_attrs_name is None:
            return
        if self.has_folding_been_run:
            raise AssertionError("Folding has already been run")
        self.has_folding_been_run = True
        folded = self.const_subgraph_module()

        def as_parameter(value: Tensor | int) -> nn.Parameter:
            if isinstance(value, Tensor):
                return nn.Parameter(value.detach().clone(), requires_grad=value.requires_grad)
            return nn.Parameter(
                tensor([float(value)]).to(device=self.device_for_folded_attrs),
                requires_grad=False,
            )

        params: Any = (
            nn.ParameterList([as_parameter(v) for v in folded])
            if isinstance(folded, tuple)
            else as_parameter(folded)
        )
        setattr(self, self.fx_const_folded_attrs_name, params)


def _inline_module(gm: GraphModule, inline_mod_name: str, run_dce: bool = True) -> dict:
    """Put the Nodes of the GraphModule ``gm`` calls as ``inline_mod_name`` in place of that
    call; the map from the inlined Graph's Nodes to their copies."""
    inline_mod = dict(gm.named_modules())[inline_mod_name]
    if not isinstance(inline_mod, GraphModule):
        raise AssertionError(f"Expected GraphModule, got {type(inline_mod)}")
    call = next(
        (n for n in gm.graph.nodes if n.op == "call_module" and n.target == inline_mod_name),
        None,
    )
    if call is None:
        raise AssertionError(f"Could not find call_module node for {inline_mod_name}")

    mapping: dict[Node, Any] = {}
    placeholder_count = 0

    def replace(node: Node) -> Any:
        new_node = mapping[node]
        new_node.meta = node.meta.copy()
        return new_node

    for node in inline_mod.graph.nodes:
        if node.op == "placeholder":
            in_kwargs = node.name in call.kwargs
            mapping[node] = call.kwargs[node.name] if in_kwargs else call.args[placeholder_count]
            placeholder_count += 1
        elif node.op == "output":
            outputs = map_arg(node.args[0], replace)
            getitems = []
            if isinstance(outputs, (list, tuple)):
                getitems = [
                    u
                    for u in call.users
                    if u.op == "call_function"
                    and u.target is operator.getitem
                    and isinstance(u.args[1], int)
                ]
            call.replace_all_uses_with(outputs)
            for user in getitems:
                user.replace_all_uses_with(outputs[user.args[1]])
                gm.graph.erase_node(user)
                mapping[user] = outputs[user.args[1]]
        else:
            with gm.graph.inserting_before(call):
                mapping[node] = gm.graph.node_copy(node, replace)
    gm.graph.erase_node(call)
    if run_dce:
        gm.graph.eliminate_dead_code()
    return mapping


def get_unique_attr_name_in_module(mod_traced: GraphModule, name: str) -> str:
    """``name`` made a legal attribute name that ``mod_traced`` does not have yet (by a
    numeric suffix)."""
    name = re.sub("[^0-9a-zA-Z_]+", "_", name)
    if name[0].isdigit():
        name = f"_{name}"
    while hasattr(mod_traced, name):
        match = re.match(r"(.*)_(\d+)$", name)
        name = f"{name}_1" if match is None else f"{match.group(1)}_{int(match.group(2)) + 1}"
    return name


def _has_impure_ops(module: GraphModule) -> bool:
    for node in module.graph.nodes:
        if node.op == "call_function" and node.is_impure():
            return True
        if node.op == "call_module":
            sub = module.get_submodule(node.target)
            if isinstance(sub, GraphModule):
                return _has_impure_ops(sub)
    return False


def _constant_nodes(
    mod_traced: GraphModule, skip_folding_node_fn: Callable[[Node], bool] | None
) -> set[Node]:
    """The Nodes computed from attributes only (the ``get_attr`` Nodes included)."""
    const_nodes: set[Node] = set()
    for node in mod_traced.graph.nodes:
        if node.op in ("placeholder", "output"):
            continue
        if node.op != "get_attr" and not set(node.all_input_nodes) <= const_nodes:
            continue
        if skip_folding_node_fn is not None and skip_folding_node_fn(node):
            continue
        if node.is_impure():
            continue
        if node.op == "call_module":
            sub = mod_traced.get_submodule(node.target)
            if isinstance(sub, GraphModule) and _has_impure_ops(sub):
                continue
        const_nodes.add(node)
    return const_nodes


def split_const_subgraphs(
    module: nn.Module | GraphModule,
    skip_folding_node_fn: Callable[[Node], bool] | None = None,
    device_for_folded_attrs: str = "cpu",
) -> FoldedGraphModule:
    """``module`` (traced unless a GraphModule) with its attribute-only computations split
    off into a constant subgraph run once (``skip_folding_node_fn(node)``: keep ``node``
    out of it)."""
    mod_traced = module if isinstance(module, GraphModule) else symbolic_trace(module)
    const_nodes = _constant_nodes(mod_traced, skip_folding_node_fn)
    if all(n.op == "get_attr" for n in const_nodes):
        return FoldedGraphModule(mod_traced, mod_traced.graph)

    split = split_module(mod_traced, module, lambda n: 0 if n in const_nodes else 1)
    const_gm: GraphModule = split.submod_0
    non_const_gm: GraphModule | None = getattr(split, "submod_1", None)

    # the submodules the two parts call move up to the split module
    for part in (non_const_gm, const_gm):
        if part is None:
            continue
        for node in part.graph.nodes:
            if node.op == "call_module":
                setattr(split, node.target, getattr(part, node.target))

    call_const_args = next(
        n.args for n in split.graph.nodes if n.op == "call_module" and n.target == "submod_0"
    )

    # the constant subgraph reads its attributes itself instead of taking them as inputs
    root_const_gm = GraphModule(split, const_gm.graph)
    inputs = iter(call_const_args)
    multiple_outputs = False
    for node in list(root_const_gm.graph.nodes):
        if node.op == "output":
            multiple_outputs = isinstance(node.args[0], tuple)
            continue
        if node.op != "placeholder":
            continue
        in_node = next(inputs)
        if in_node.op != "get_attr":
            raise AssertionError(f"Expected get_attr, got {in_node.op}")
        with root_const_gm.graph.inserting_before(node):
            new_node = root_const_gm.graph.get_attr(in_node.target)
        new_node.meta = node.meta.copy()
        node.replace_all_uses_with(new_node)
        root_const_gm.graph.erase_node(node)

    attrs_name = get_unique_attr_name_in_module(mod_traced, "_FX_CONST_FOLDED_ATTRS")
    setattr(split, attrs_name, nn.ParameterList() if multiple_outputs else nn.Parameter())
    for node in split.graph.nodes:
        if node.op == "call_module" and node.target == "submod_0":
            with split.graph.inserting_before(node):
                folded_attrs = split.graph.get_attr(attrs_name)
            folded_attrs.meta = node.meta.copy()
            node.replace_all_uses_with(folded_attrs)
            break

    if hasattr(split, "submod_1"):
        _inline_module(split, "submod_1")
    split.graph.eliminate_dead_code()
    return FoldedGraphModule(
        split, split.graph, root_const_gm.graph, attrs_name, device_for_folded_attrs
    )
