"""The pictures: Graphviz DOT and the self-contained HTML page."""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING, Any

from .._tensor import Tensor
from ._describe import _fit
from ._steps import Item, _counts
from ._text import _in, _in_module, _item_text, _narrative, _out, _summary, _values

if TYPE_CHECKING:
    from . import Explanation

# ----- pictures ------------------------------------------------------------------------


def _box_title(item: Item) -> str:
    if item.kind == "gap":
        return f"... {len(item.steps)} steps"
    if item.kind == "run":
        names = ", ".join(s.node for s in item.steps[: item.period])
        return f"{names} x {item.reps}"
    return item.steps[0].node


def _box_sub(item: Item) -> str:
    s = item.steps[0]
    if item.kind == "gap":
        return f"steps {item.first}-{item.last}"
    if s.op == "accumulate" and item.kind == "run" and item.period == 1:
        return _fit(f"{s.name}.grad ... {item.steps[-1].name}.grad", 30)
    if s.op == "accumulate":
        return f"{s.name}.grad"
    text = s.code or s.forward
    return text if len(text) <= 28 else text[:27] + "…"


def _item_edges(items: list[Item]) -> dict[tuple[int, int], Tensor]:
    """(item, item) -> the gradient carried by the first edge between them."""
    where: dict[int, int] = {}
    for k, item in enumerate(items):
        for s in item.steps:
            where[s.node_id] = k
    edges: dict[tuple[int, int], Tensor] = {}
    for k, item in enumerate(items):
        for s in item.steps:
            for nxt, g in zip(s.next_ids, s.grads_out):
                j = where.get(nxt)
                if j is not None and j != k and g is not None:
                    edges.setdefault((k, j), g)
    return edges


def _has_modules(items: list[Item]) -> bool:
    """Whether any step was made inside a module's forward (the views then name modules)."""
    return any(s.module is not None for item in items for s in item.steps)


def _where(item: Item) -> str:
    """The module call that made an item's steps ("fc1 (Linear)"), or ""."""
    return "" if item.kind == "gap" else _in_module(item.steps).removeprefix(" in ")


def _cells(item: Item, modules: bool = False) -> list[str]:
    """The table's cells for an item: #, node, (module,) forward, local derivative,
    gradients."""
    cells = _plain_cells(item)
    return cells[:2] + [_where(item)] + cells[2:] if modules else cells


def _plain_cells(item: Item) -> list[str]:
    s = item.steps[0]
    if item.kind == "gap":
        return [
            f"{item.first}-{item.last}",
            f"{len(item.steps)} steps",
            _counts(item.steps),
            "not shown: see explanation.steps",
            "",
            "",
        ]
    forward = s.code or s.forward
    if item.kind == "run":
        pattern = item.steps[: item.period]
        return [
            f"{item.first}-{item.last}",
            _box_title(item),
            "; ".join(p.code or p.forward for p in pattern),
            "; ".join(p.local for p in pattern),
            _values(s.grad_in._data),
            _out(item.steps[-1]),
        ]
    if s.op == "accumulate":
        return [str(s.index), s.node, f"{s.name} (a leaf)", s.local, _in(s), f"into {s.name}.grad"]
    return [str(s.index), s.node, forward, s.local, _in(s), _out(s)]


def _calls(item: Item) -> tuple:
    """The module calls every step of an item was made in: the common outer chain."""
    if item.kind == "gap":
        return ()
    chains = [s.calls for s in item.steps if s.op != "accumulate"]
    if not chains:
        return ()
    common = chains[0]
    for c in chains[1:]:
        n = 0
        while n < min(len(common), len(c)) and common[n] == c[n]:
            n += 1
        common = common[:n]
    return common


def _dot(e: Explanation) -> str:
    """The DOT text: items as boxes, nested in a cluster per module call that made them."""
    lines = [
        "digraph backward {",
        "  rankdir=LR;",
        '  node [shape=box, style="rounded,filled", fillcolor="#eef4ff", fontname="monospace"];',
    ]
    tree: dict = {}  # (call number, label) -> {"items": [...], "calls": {...}}
    top: list[int] = []
    for k, item in enumerate(e.items):
        chain = _calls(item)
        if not chain:
            top.append(k)
            continue
        level = tree
        for call in chain:
            node = level.setdefault(call, {"items": [], "calls": {}})
            level = node["calls"]
        node["items"].append(k)

    def box(k: int, indent: str) -> str:
        item = e.items[k]
        label = f"{_dot_text(_box_title(item))}\\n{_dot_text(_box_sub(item))}"
        return f'{indent}i{k} [label="{label}"];'

    def cluster(call: tuple, node: dict, indent: str) -> None:
        lines.append(f"{indent}subgraph cluster_m{call[0]} {{")
        lines.append(
            f'{indent}  label="{_dot_text(call[1])}"; style="rounded,dashed"; color="#7a4fcf";'
            ' fontname="monospace";'
        )
        lines.extend(box(k, indent + "  ") for k in node["items"])
        for inner, child in sorted(node["calls"].items()):
            cluster(inner, child, indent + "  ")
        lines.append(f"{indent}}}")

    lines.extend(box(k, "  ") for k in top)
    for call, node in sorted(tree.items()):
        cluster(call, node, "  ")
    for (a, b), g in _item_edges(e.items).items():
        lines.append(f'  i{a} -> i{b} [label="{_values(g._data, 3)}"];')
    lines.append("}")
    return "\n".join(lines)


def _dot_text(text: str) -> str:
    """Text inside a DOT string: its backslashes and quotes escaped."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


_CSS = """
body { font-family: sans-serif; margin: 2em; color: #222; }
#narrative { white-space: pre-wrap; font-family: monospace; font-size: 13px;
  background: #fafafa; border: 1px solid #ddd; padding: 1em; }
#graph-box { overflow-x: auto; border: 1px solid #ddd; }
.node rect { fill: #eef4ff; stroke: #3366cc; stroke-width: 1.5; cursor: pointer; }
.node.leaf rect { fill: #e8f7e8; stroke: #2e8b57; }
.node.run rect { fill: #f3ecff; stroke: #7a4fcf; }
.node.gap rect { fill: #f2f2f2; stroke: #999; stroke-dasharray: 4 3; }
.node.selected rect { fill: #ffe9a8; stroke: #c08a00; }
.node text { font: 12px monospace; pointer-events: none; }
.node text.sub { font-size: 10px; fill: #555; }
.node text.module { font-size: 10px; fill: #7a4fcf; }
.edge { font: 10px monospace; fill: #555; }
table { border-collapse: collapse; font-size: 13px; }
td, th { border: 1px solid #ccc; padding: 4px 8px; vertical-align: top; }
th { background: #f0f0f0; }
tr.selected { background: #ffe9a8; }
#summary { white-space: pre-wrap; font-family: monospace; font-size: 13px; font-weight: bold;
  background: #eefaf0; border: 1px solid #9c9; padding: 1em; margin-top: 0.5em; }
#detail { padding: 1em; margin: 1em 0; background: #fff8e0; border: 1px solid #e6d28c;
  min-height: 1.5em; font-family: monospace; font-size: 13px; }
"""

_SCRIPT = """
function show(k) {
  document.getElementById("detail").textContent = details[k];
  document.querySelectorAll(".selected").forEach(function (el) {
    el.classList.remove("selected");
  });
  document.getElementById("row-" + k).classList.add("selected");
  document.querySelector('.node[data-item="' + k + '"]').classList.add("selected");
}
document.querySelectorAll(".node").forEach(function (el) {
  el.addEventListener("click", function () { show(el.getAttribute("data-item")); });
});
"""

_W, _H, _DX, _DY = 210, 46, 250, 96  # box size and spacing in the drawn graph


def _layout(items: list[Item], edges: Any) -> dict[int, tuple[int, int]]:
    """Each item's (x, y): one row per distance from the output (the output on top); a node
    sits below the first node that feeds it, leaves one column to the right."""
    depth = [0] * len(items)
    parent: dict[int, int] = {}
    for a, b in sorted(edges):  # a < b: items are in the order backward ran them
        depth[b] = max(depth[b], depth[a] + 1)
        parent.setdefault(b, a)
    leaf = [it.kind == "step" and it.steps[0].op == "accumulate" for it in items]
    taken: set[tuple[int, int]] = set()
    col: dict[int, int] = {}
    for k in sorted(range(len(items)), key=lambda k: leaf[k]):  # the leaves last
        c = col.get(parent[k], 0) + leaf[k] if k in parent else 0
        while (depth[k], c) in taken:
            c += 1
        taken.add((depth[k], c))
        col[k] = c
    return {k: (20 + col[k] * _DX, 20 + depth[k] * _DY) for k in range(len(items))}


def _html(e: Explanation) -> str:
    items = e.items
    edges = _item_edges(items)
    pos = _layout(items, edges)
    width = max((x for x, _ in pos.values()), default=0) + _W + 40
    modules = _has_modules(items)
    h = _H + 14 * modules  # a third line names the module
    height = max((y for _, y in pos.values()), default=0) + h + 40
    svg = [
        f'<svg id="graph" width="{width}" height="{height}" xmlns="http://www.w3.org/2000/svg">',
        '<defs><marker id="arrow" markerWidth="8" markerHeight="8" refX="8" refY="4" '
        'orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#888"/></marker></defs>',
    ]
    for (a, b), g in edges.items():
        (x1, y1), (x2, y2) = pos[a], pos[b]
        x1, y1, x2 = x1 + _W // 2, y1 + h, x2 + _W // 2
        svg.append(
            f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#888" '
            'marker-end="url(#arrow)"/>'
            f'<text class="edge" x="{x1 + 0.8 * (x2 - x1) + 8:.0f}" y="{y1 + 28 + 12 * (x1 != x2)}">'
            f"{html.escape(_fit(_values(g._data, 3), 30))}</text>"
        )
    for k, item in enumerate(items):
        x, y = pos[k]
        s = item.steps[0]
        cls = "leaf" if item.kind == "step" and s.op == "accumulate" else item.kind
        svg.append(
            f'<g class="node {cls}" data-item="{k}" data-step="{s.index}"'
            + (f' data-module="{html.escape(_where(item))}"' if _where(item) else "")
            + ">"
            f"<title>{html.escape(_item_text(item))}</title>"
            f'<rect x="{x}" y="{y}" width="{_W}" height="{h}" rx="6"/>'
            f'<text x="{x + _W // 2}" y="{y + 19}" text-anchor="middle">'
            f"{html.escape(_fit(_box_title(item), 28))}</text>"
            f'<text class="sub" x="{x + _W // 2}" y="{y + 36}" text-anchor="middle">'
            f"{html.escape(_box_sub(item))}</text>"
            + (
                f'<text class="module" x="{x + _W // 2}" y="{y + 51}" text-anchor="middle">'
                f"{html.escape(_fit(_where(item), 32))}</text>"
                if _where(item)
                else ""
            )
            + "</g>"
        )
    svg.append("</svg>")
    rows = "".join(
        f'<tr id="row-{k}">'
        + "".join(f"<td>{html.escape(c)}</td>" for c in _cells(item, modules))
        + "</tr>"
        for k, item in enumerate(items)
    )
    details = json.dumps({str(k): _item_text(item) for k, item in enumerate(items)})
    details = details.replace("</", "<\\/")  # never close the script element early
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>chainrule: explain backward</title>
<style>{_CSS}</style></head><body>
<h1>What backward computes</h1>
<div id="summary">{html.escape(chr(10).join([f"v = {_values(e.v._data)}", *_summary(e)]))}</div>
<h2>The graph</h2>
<p>Backward runs from the output (top) to the leaves (bottom); each arrow carries the
gradient sent along it. Click a node to see its step.</p>
<div id="graph-box">{"".join(svg)}</div>
<div id="detail">Click a node to see its step.</div>
<h2>Steps</h2>
<table id="steps"><thead><tr><th>#</th><th>node</th>{"<th>module</th>" if modules else ""}
<th>forward</th><th>local derivative</th>
<th>gradient in</th><th>gradients out</th></tr></thead><tbody>{rows}</tbody></table>
<h2>The whole story</h2>
<div id="narrative">{html.escape(_narrative(e, summary=False))}</div>
<script>
const details = {details};
{_SCRIPT}
</script></body></html>
"""
