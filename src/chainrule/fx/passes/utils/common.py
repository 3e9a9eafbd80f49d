"""``torch.fx.passes.utils.common``: a Module that only holds others, and a GraphModule made
from a subgraph with the attributes it names taken from the parent module."""

from __future__ import annotations

from ....nn import Module
from ...graph import Graph
from ...graph_module import GraphModule

__all__ = ["HolderModule", "lift_subgraph_as_module"]


class HolderModule(Module):
    """A Module holding the given submodules (name -> Module) and nothing else."""

    def __init__(self, d: dict[str, Module | None]) -> None:
        super().__init__()
        for name, module in d.items():
            self.add_module(name, module)


def lift_subgraph_as_module(
    gm: GraphModule, subgraph: Graph, comp_name: str = "", class_name: str = "GraphModule"
) -> tuple[GraphModule, dict[str, str]]:
    """A GraphModule running ``subgraph`` (Nodes copied from ``gm``'s graph), holding the
    submodules and attributes it reads from ``gm`` at the same paths; and the map from each
    such path to ``"<comp_name>.<path>"``."""
    holder = HolderModule({})
    fqn_mapping: dict[str, str] = {}
    for node in subgraph.nodes:
        if node.op not in ("call_module", "get_attr"):
            continue
        target = node.target
        if not isinstance(target, str):
            raise AssertionError(f"Expected str target, got {type(target)}")
        *path, leaf = target.split(".")
        current: Module = holder
        source: Module = gm
        for name in path:
            if not hasattr(current, name):
                current.add_module(name, HolderModule({}))
            current = getattr(current, name)
            source = getattr(source, name)
        fqn_mapping[target] = f"{comp_name}.{target}"
        setattr(current, leaf, getattr(source, leaf))
    return GraphModule(holder, subgraph, class_name), fqn_mapping
