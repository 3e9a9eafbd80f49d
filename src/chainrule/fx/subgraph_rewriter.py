"""``torch.fx.subgraph_rewriter``: ``replace_pattern``, which finds every place a pattern's
graph occurs in a GraphModule's Graph and puts the replacement's graph there.

A pattern Node matches a Node of the same op and target whose arguments match in turn;
a pattern placeholder matches any value (the same one wherever it is used). A match
whose inner Nodes are also used outside it, or that overlaps an earlier match, is skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from ..nn import Module
from .graph import Graph
from .graph_module import GraphModule, _copy_attr
from .node import Node

__all__ = ["Match", "replace_pattern"]


class Match(NamedTuple):
    """One occurrence: the pattern's last Node, and pattern Node -> Node of the graph."""

    anchor: Node
    nodes_map: dict[Node, Node]


def _graph_of(fn: Callable | GraphModule) -> Graph:
    if isinstance(fn, GraphModule):
        return fn.graph
    from ._symbolic_trace import symbolic_trace

    return symbolic_trace(fn).graph


class _Matcher:
    """Matches one pattern Graph against Nodes of another, one anchor at a time."""

    def __init__(self, pattern: Graph, gm: GraphModule) -> None:
        self.gm = gm
        output = next(n for n in pattern.nodes if n.op == "output")
        self.anchor = output.args[0]
        self.placeholders = [n for n in pattern.nodes if n.op == "placeholder"]

    def match_at(self, gn: Node) -> Match | None:
        nodes_map: dict[Node, Node] = {}
        if not self._match(self.anchor, gn, nodes_map):
            return None
        inner = [g for p, g in nodes_map.items() if p.op != "placeholder" and p is not self.anchor]
        matched = {g for p, g in nodes_map.items() if p.op != "placeholder"}
        if any(user not in matched for g in inner for user in g.users):
            return None
        return Match(self.anchor, nodes_map)

    def _match(self, pn: Node, gn: Any, nodes_map: dict[Node, Node]) -> bool:
        if pn in nodes_map:
            return nodes_map[pn] is gn
        if pn.op == "placeholder":
            nodes_map[pn] = gn
            return True
        if not isinstance(gn, Node) or gn in nodes_map.values():
            return False
        if pn.op != gn.op or pn.target != gn.target:
            return False
        nodes_map[pn] = gn
        if self._match_args(pn.args, gn.args, nodes_map) and self._match_args(
            pn.kwargs, gn.kwargs, nodes_map
        ):
            return True
        del nodes_map[pn]
        return False

    def _match_args(self, pa: Any, ga: Any, nodes_map: dict[Node, Node]) -> bool:
        if isinstance(pa, Node):
            return self._match(pa, ga, nodes_map)
        if isinstance(pa, (list, tuple)):
            return (
                isinstance(ga, (list, tuple))
                and len(pa) == len(ga)
                and all(self._match_args(p, g, nodes_map) for p, g in zip(pa, ga))
            )
        if isinstance(pa, dict):
            return (
                isinstance(ga, dict)
                and pa.keys() == ga.keys()
                and all(self._match_args(pa[k], ga[k], nodes_map) for k in pa)
            )
        return not isinstance(ga, Node) and type(pa) is type(ga) and pa == ga


def replace_pattern(
    gm: GraphModule,
    pattern: Callable[..., Any] | GraphModule,
    replacement: Callable[..., Any] | GraphModule,
) -> list[Match]:
    """Replace each occurrence of ``pattern``'s graph in ``gm`` by ``replacement``'s; the
    matches (``gm`` is recompiled)."""
    pattern_graph = _graph_of(pattern)
    replacement_graph = _graph_of(replacement)
    matches = _find_matches(_Matcher(pattern_graph, gm), gm.graph)
    replaced: dict[Node, Any] = {}
    for match in matches:
        _replace_one(gm, match, pattern_graph, replacement_graph, replaced)
    if isinstance(replacement, Module):
        for node in replacement_graph.nodes:
            if node.op in ("get_attr", "call_module") and not _has_path(gm, node.target):
                _copy_attr(replacement, gm, node.target)
    gm.graph.lint()
    gm.recompile()
    return matches


def _has_path(m: Module, target: str) -> bool:
    for part in target.split("."):
        if not hasattr(m, part):
            return False
        m = getattr(m, part)
    return True


def _find_matches(matcher: _Matcher, graph: Graph) -> list[Match]:
    """The matches in graph order, each sharing no inner Node with an earlier one."""
    matches: list[Match] = []
    taken: set[Node] = set()
    for gn in graph.nodes:
        match = matcher.match_at(gn)
        if match is None:
            continue
        own = {g for p, g in match.nodes_map.items() if p.op != "placeholder"}
        if own & taken:
            continue
        taken |= own
        matches.append(match)
    return matches


def _replace_one(
    gm: GraphModule,
    match: Match,
    pattern_graph: Graph,
    replacement_graph: Graph,
    replaced: dict[Node, Any],
) -> None:
    """Put the replacement's Nodes before the first user of the match's anchor, route the anchor's users to
    the replacement's result and erase the matched Nodes."""

    def current(value: Any) -> Any:
        while isinstance(value, Node) and value in replaced:
            value = replaced[value]
        return value

    for p in list(match.nodes_map):
        match.nodes_map[p] = current(match.nodes_map[p])
    pattern_inputs = [n for n in pattern_graph.nodes if n.op == "placeholder"]
    replacement_inputs = [n for n in replacement_graph.nodes if n.op == "placeholder"]
    val_map = {
        r: match.nodes_map[p] for r, p in zip(replacement_inputs, pattern_inputs, strict=True)
    }
    anchor = match.nodes_map[match.anchor]
    graph = gm.graph
    order = {n: i for i, n in enumerate(graph.nodes)}
    first_user = min(anchor.users, key=order.__getitem__, default=anchor)
    with graph.inserting_before(first_user):
        result = graph.graph_copy(replacement_graph, val_map)
    anchor.replace_all_uses_with(result)
    replaced[anchor] = result
    inner = [g for p, g in match.nodes_map.items() if p.op != "placeholder"]
    for g in reversed(list(graph.nodes)):
        if g in inner and not g.users:
            graph.erase_node(g)
