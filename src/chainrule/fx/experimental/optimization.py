"""``torch.fx.experimental.optimization``: inference passes over traced modules.

``fuse(model)`` folds each eval-mode batch norm into the convolution or linear layer that
feeds only it (``nn.utils.fusion``), removing the batch norm from the graph;
``remove_dropout`` drops ``nn.Dropout`` calls; ``extract_subgraph`` makes a GraphModule of
some Nodes. PyTorch's MKLDNN layout passes (``optimize_for_inference``,
``modules_to_mkldnn``) have no counterpart: chainrule runs on NumPy.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from ... import nn
from ..._missing import missing
from ...nn.utils.fusion import fuse_conv_bn_eval, fuse_linear_bn_eval
from .._symbolic_trace import symbolic_trace
from ..graph import Graph
from ..graph_module import GraphModule
from ..interpreter import Transformer
from ..node import Node

__all__ = [
    "matches_module_pattern",
    "replace_node_module",
    "fuse",
    "remove_dropout",
    "extract_subgraph",
    "UnionFind",
]


def _parent_name(target: str) -> tuple[str, str]:
    """``"a.b.c"`` -> ``("a.b", "c")``."""
    parent, _, name = target.rpartition(".")
    return parent, name


def matches_module_pattern(
    pattern: Iterable[type], node: Node, modules: dict[str, nn.Module]
) -> bool:
    """Whether ``node`` and its first argument call modules of exactly the types of the
    two-entry ``pattern`` (first argument first)."""
    if len(node.args) == 0:
        return False
    for expected_type, current in zip(pattern, (node.args[0], node)):
        if not isinstance(current, Node) or current.op != "call_module":
            return False
        if not isinstance(current.target, str) or current.target not in modules:
            return False
        if type(modules[current.target]) is not expected_type:
            return False
    return True


def replace_node_module(node: Node, modules: dict[str, nn.Module], new_module: nn.Module) -> None:
    """Put ``new_module`` at the path ``node`` calls (in ``modules`` and in the model)."""
    if not isinstance(node.target, str):
        raise AssertionError(f"Expected str target, got {type(node.target)}")
    parent_name, name = _parent_name(node.target)
    modules[node.target] = new_module
    setattr(modules[parent_name], name, new_module)


def fuse(model: nn.Module, inplace: bool = False, no_trace: bool = False) -> nn.Module:
    """``model`` traced, with every batch norm that follows a convolution (1d, 2d, 3d) or a
    linear layer (``BatchNorm1d``) folded into it; for inference (both in eval mode).

    The model is deep-copied first unless ``inplace``; ``no_trace`` uses a GraphModule as
    it is. A layer whose result is read elsewhere too, or a batch norm without running
    statistics, is left alone.
    """
    patterns = [
        (nn.Conv1d, nn.BatchNorm1d),
        (nn.Conv2d, nn.BatchNorm2d),
        (nn.Conv3d, nn.BatchNorm3d),
        (nn.Linear, nn.BatchNorm1d),
    ]
    if not inplace:
        model = copy.deepcopy(model)
    fx_model = model if no_trace and isinstance(model, GraphModule) else symbolic_trace(model)
    modules = dict(fx_model.named_modules())
    new_graph = copy.deepcopy(fx_model.graph)
    for pattern in patterns:
        for node in list(new_graph.nodes):
            if not matches_module_pattern(pattern, node, modules):
                continue
            if len(node.args[0].users) > 1:
                continue
            first_layer = modules[node.args[0].target]
            bn = modules[node.target]
            if not bn.track_running_stats:
                continue
            if pattern[0] is nn.Linear:
                fused = fuse_linear_bn_eval(first_layer, bn)
            else:
                fused = fuse_conv_bn_eval(first_layer, bn)
            replace_node_module(node.args[0], modules, fused)
            node.replace_all_uses_with(node.args[0])
            new_graph.erase_node(node)
    return GraphModule(fx_model, new_graph)


class _DropoutRemover(Transformer):
    def call_module(self, target: Any, args: tuple, kwargs: dict[str, Any]) -> Any:
        if isinstance(self.submodules[target], nn.Dropout):
            if len(args) != 1:
                raise AssertionError(f"Expected 1 arg for Dropout, got {len(args)}")
            return args[0]
        return super().call_module(target, args, kwargs)


def remove_dropout(model: nn.Module) -> nn.Module:
    """``model`` traced without its ``nn.Dropout`` calls (each passes its input on)."""
    return _DropoutRemover(symbolic_trace(model)).transform()


def extract_subgraph(
    orig_module: nn.Module, nodes: list[Node], inputs: list[Node], outputs: list[Node]
) -> GraphModule:
    """A GraphModule running ``nodes`` on ``inputs`` and returning the list of ``outputs``."""
    new_graph = Graph()
    env: dict[Node, Node] = {}
    for node in inputs:
        env[node] = new_graph.placeholder(node.name)
    for node in nodes:
        env[node] = new_graph.node_copy(node, lambda x: env[x])
    new_graph.output([env[node] for node in outputs])
    new_graph.lint()
    return GraphModule(orig_module, new_graph)


class UnionFind:
    """Disjoint sets of ``0 .. n-1``, by union by size and path compression."""

    def __init__(self, n: int) -> None:
        self.parent: list[int | None] = [None] * n
        self.size: list[int] = [0] * n

    def make_set(self, v: int) -> None:
        """Make ``{v}`` a set."""
        self.parent[v] = v
        self.size[v] = 1

    def find(self, v: int) -> int:
        """The representative of ``v``'s set."""
        parent = self.parent[v]
        if parent is None:
            raise AssertionError("Parent is None")
        if parent == v:
            return v
        root = self.find(parent)
        self.parent[v] = root
        return root

    def join(self, a: int, b: int) -> int | None:
        """Merge the sets of ``a`` and ``b``."""
        a, b = self.find(a), self.find(b)
        if a == b:
            return a
        if self.size[a] < self.size[b]:
            a, b = b, a
        self.parent[b] = a
        self.size[a] += self.size[b]
        return None


def __getattr__(name: str) -> Any:
    raise missing("torch.fx.experimental.optimization", name)
