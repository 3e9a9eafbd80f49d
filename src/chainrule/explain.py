"""``chainrule.explain(output, gradient)``: the chain rule behind a backward call, step by step.

It runs the same engine loop ``backward`` would, with the same root gradient,
watching every step (``run_backward(observe=...)``), but accumulates into no
``.grad`` and frees nothing: a later ``backward()`` still works.
"""

from __future__ import annotations

import html
import json
import math
import sys
import types
from dataclasses import dataclass, field
from typing import Any

from ._backend import xp
from ._tensor import Tensor, _make
from .autograd import grad as _grad  # bound at import: `chainrule explain` wraps the public one
from .autograd.anomaly_mode import _anomaly
from .autograd.graph import AccumulateGrad, Node

MAX_JACOBIAN = 1_000_000  # entries of a dense Jacobian explain will build
RUN = 4  # a run of more than this many alike steps is summarised


@dataclass
class Step:
    """One backward step: a node turning the gradient of its output into its inputs'."""

    index: int
    node: str  # MulBackward0
    op: str  # mul, or "accumulate" for a leaf
    forward: str  # the forward operation the node undoes: "y = y * 2"
    source: str | None  # "script.py:7" where the node was recorded, if recording was on
    input_shapes: list[tuple]
    output_shape: tuple
    local: str  # the local derivative, in words and symbols
    grad_in: Tensor  # the gradient arriving at the node's output
    grads_out: list[Tensor | None]  # the gradient sent to each input
    leaf: Tensor | None = None  # for an AccumulateGrad step: the leaf
    factor: float | None = None  # when the step only scales by a number
    elementwise: bool = False
    node_id: int = 0
    next_ids: list[int] = field(default_factory=list)


class Explanation:
    """What ``backward(gradient)`` from ``output`` computes, as data, text and pictures."""

    def __init__(self, output: Tensor, v: Tensor, steps: list[Step], gradients: dict) -> None:
        self.output = output
        self.v = v
        self.steps = steps
        self.gradients = gradients  # leaf (or input) -> the gradient backward would accumulate
        # Checked now, while the graph is alive: the user's backward() may free it later.
        small = all(output.numel() * leaf.numel() <= 64 for leaf in gradients)
        self._check = self.check_jacobian() if small and gradients else None

    # ----- the Jacobian -------------------------------------------------------------

    def jacobian(self, leaf: Tensor | None = None) -> Tensor | dict:
        """d output / d leaf as a dense tensor of shape output.shape + leaf.shape.

        backward never builds it: it computes vᵀJ directly. Here J is built row by row
        (one backward per output element), so ``v @ J`` can be checked against it.
        """
        leaves = [leaf] if leaf is not None else list(self.gradients)
        out = self.output
        result = {}
        for x in leaves:
            if out.numel() * x.numel() > MAX_JACOBIAN:
                raise RuntimeError(
                    f"explain: the Jacobian would have {out.numel() * x.numel()} entries, more "
                    f"than {MAX_JACOBIAN}; backward itself never forms it (it computes vᵀJ)."
                )
            rows = []
            for i in range(out.numel()):
                e = xp.zeros(out._data.size, dtype=out._dtype.np)
                e[i] = 1
                (g,) = _grad(
                    out,
                    x,
                    _make(e.reshape(out._data.shape), out._dtype),
                    retain_graph=True,
                    allow_unused=True,
                    materialize_grads=True,
                )
                rows.append(g._data)
            arr = (
                xp.stack(rows).reshape(out._data.shape + x._data.shape)
                if rows
                else xp.zeros(out._data.shape + x._data.shape, dtype=x._dtype.np)
            )
            result[x] = _make(arr, x._dtype)
        return result[leaves[0]] if leaf is not None or len(leaves) == 1 else result

    def check_jacobian(self) -> str:
        """A sentence checking ``v @ J`` against the accumulated gradient, for each leaf."""
        lines = []
        for x, g in self.gradients.items():
            j = self.jacobian(x)._data.reshape(self.output.numel(), x.numel())
            vj = self.v._data.reshape(-1).astype(xp.float64) @ j.astype(xp.float64)
            same = bool(xp.allclose(vj, g._data.reshape(-1), rtol=1e-5, atol=1e-8))
            lines.append(
                f"v @ J = {_values(vj.astype(g._data.dtype))} "
                f"{'equals' if same else 'DIFFERS FROM'} {_leaf_name(self, x)}.grad "
                f"= {_values(g._data)}"
            )
        return "\n".join(lines)

    # ----- text ---------------------------------------------------------------------

    def __str__(self) -> str:
        return _narrative(self)

    def __repr__(self) -> str:
        return f"<Explanation of {len(self.steps)} backward steps>"

    def to_markdown(self) -> str:
        rows = [
            "| # | node | forward | local derivative | incoming gradient | outgoing gradients |",
            "|---|---|---|---|---|---|",
        ]
        for s in self.steps:
            outs = "; ".join(_values(g._data) if g is not None else "-" for g in s.grads_out)
            rows.append(
                f"| {s.index} | `{s.node}` | `{s.forward}` | {s.local} | "
                f"{_values(s.grad_in._data)} | {outs or '(into .grad)'} |"
            )
        return f"## What backward computes\n\n{_narrative(self)}\n\n## Steps\n\n" + "\n".join(rows)

    def to_dot(self) -> str:
        """Graphviz DOT: one box per node, each edge labelled by the gradient it carries."""
        lines = ["digraph backward {", "  rankdir=LR;", '  node [shape=box, fontname="monospace"];']
        for s in self.steps:
            label = f"{s.node}\\n{s.forward}".replace('"', '\\"')
            lines.append(f'  n{s.node_id} [label="{label}"];')
        by_id = {s.node_id: s for s in self.steps}
        for s in self.steps:
            for nxt, g in zip(s.next_ids, s.grads_out):
                if nxt in by_id and g is not None:
                    lines.append(f'  n{s.node_id} -> n{nxt} [label="{_values(g._data, 3)}"];')
        lines.append("}")
        return "\n".join(lines)

    def render(self, path: str, format: str = "svg") -> str:  # noqa: A002
        """Render the DOT graph to SVG/PNG with Graphviz (the ``graphviz`` package and ``dot``)."""
        try:
            import graphviz  # type: ignore[import-not-found]
        except ImportError:
            raise RuntimeError(
                "rendering needs the graphviz Python package and Graphviz's `dot` program: "
                "pip install graphviz, and apt-get install graphviz (or brew install graphviz); "
                "to_dot() and to_html() work without them"
            ) from None
        return graphviz.Source(self.to_dot()).render(path, format=format, cleanup=True)

    def to_html(self) -> str:
        """One self-contained page: the graph drawn in SVG and the table of steps."""
        return _html(self)


# ----- walking the graph -------------------------------------------------------------


def explain(output: Tensor, gradient: Tensor | None = None, inputs: Any = None) -> Explanation:
    """Explain ``output.backward(gradient)``: every step of the vector-Jacobian product."""
    from .autograd import _as_list, _roots_and_grads
    from .autograd.engine import run_backward

    roots, grads = _roots_and_grads(
        [output], None if gradient is None else [gradient], False, "explain"
    )
    v = _make(xp.array(grads[0]), output._dtype)
    steps: list[Step] = []
    ids: dict[Node, int] = {}
    gradients: dict[Tensor, Tensor] = {}
    wanted = None if inputs is None else _as_list(inputs)

    def node_id(n: Node) -> int:
        return ids.setdefault(n, len(ids))

    def observe(node, grad_outputs, grad_inputs) -> None:
        g_in = _as_tensor(grad_outputs[0], output._dtype)
        if type(node) is AccumulateGrad:
            leaf = node.variable
            gradients[leaf] = g_in if leaf not in gradients else gradients[leaf] + g_in
            steps.append(
                Step(
                    len(steps) + 1,
                    "AccumulateGrad",
                    "accumulate",
                    f"{_leaf_name_raw(leaf)} (a leaf)",
                    None,
                    [],
                    tuple(leaf.shape),
                    f"{_leaf_name_raw(leaf)}.grad += incoming gradient",
                    g_in,
                    [],
                    leaf=leaf,
                    node_id=node_id(node),
                )
            )
            return
        outs = [None if g is None else _as_tensor(g, output._dtype) for g in grad_inputs]
        factor, elementwise, local, fwd = _describe(node)
        steps.append(
            Step(
                len(steps) + 1,
                node.name(),
                node._op.name if hasattr(node, "_op") else node.name(),
                _source_text(node) or fwd,
                _source_place(node),
                [m[0] if m else None for m in node._meta] if hasattr(node, "_meta") else [],
                tuple(g_in.shape),
                local,
                g_in,
                outs,
                factor=factor,
                elementwise=elementwise,
                node_id=node_id(node),
                next_ids=[node_id(n) if n is not None else -1 for n, _ in node._next],
            )
        )

    run_backward(roots, grads, True, False, accumulate=False, observe=observe)
    if wanted is not None:
        gradients = {t: gradients[t] for t in wanted if t in gradients}
    return Explanation(output, v, steps, gradients)


class _Record:
    """``with chainrule.explain.record():`` nodes remember the source line that made them."""

    def __enter__(self) -> None:
        _anomaly.explaining += 1
        _anomaly.update()

    def __exit__(self, *exc: Any) -> None:
        _anomaly.explaining -= 1
        _anomaly.update()


def record() -> _Record:
    return _Record()


# ----- describing one node ------------------------------------------------------------


def _describe(node: Node) -> tuple[float | None, bool, str, str]:
    """(scaling factor or None, elementwise?, local derivative text, forward text)."""
    op = getattr(node, "_op", None)
    name = op.name if op is not None else node.name()
    saved = dict(zip(zip(node._plan.kinds, node._plan.keys), node._saved or ())) if op else {}
    args = op.args if op else ()
    tensors = [n for n, _ in node._next]
    number = next((v for (k, _), v in saved.items() if k == "arg" and _is_number(v)), None)
    same = len(tensors) == 2 and tensors[0] is not None and tensors[0] is tensors[1]
    shape = node._meta[0][0] if node._meta and node._meta[0] else None
    n_in = math.prod(shape) if shape is not None else 1
    if name == "mul":
        if same:
            return None, True, "d(y*y)/dy = 2y", "out = y * y"
        if number is not None:
            return (
                float(number),
                True,
                f"d(a*{_num(number)})/da = {_num(number)}",
                (f"out = a * {_num(number)}"),
            )
        return None, True, "d(a*b)/da = b, d(a*b)/db = a", "out = a * b"
    if name == "div":
        if number is not None:
            return (
                1 / float(number),
                True,
                f"d(a/{_num(number)})/da = 1/{_num(number)}",
                (f"out = a / {_num(number)}"),
            )
        return None, True, "d(a/b)/da = 1/b, d(a/b)/db = -a/b²", "out = a / b"
    if name in ("add", "sub"):
        sign = "+" if name == "add" else "-"
        if number is not None or tensors.count(None) == 1:
            return 1.0, True, f"d(a {sign} c)/da = 1", f"out = a {sign} c"
        return (
            None,
            True,
            f"d(a {sign} b)/da = 1, d(a {sign} b)/db = {'' if sign == '+' else '-'}1",
            (f"out = a {sign} b"),
        )
    if name == "neg":
        return -1.0, True, "d(-a)/da = -1", "out = -a"
    if name == "mean":
        dim = saved.get(("param", "dim"))
        count = n_in if dim is None else _count(shape, dim)
        return (
            None,
            False,
            f"d mean(z)/dz_i = 1/{count}",
            "out = z.mean()" if dim is None else (f"out = z.mean(dim={dim})"),
        )
    if name == "sum":
        return None, False, "d sum(z)/dz_i = 1", "out = z.sum()"
    if name == "matmul" or name == "mm":
        return None, False, "d(A@B)/dA: G @ Bᵀ, d(A@B)/dB: Aᵀ @ G", "out = A @ B"
    if name == "pow":
        e = saved.get(("param", "exponent"))
        if e is not None:
            return (
                None,
                True,
                f"d(x^{_num(e)})/dx = {_num(e)}·x^{_num(e - 1)}",
                f"out = x ** {_num(e)}",
            )
    comment = _vjp_comment(op) if op else ""
    elementwise = op is not None and len(args) <= 2 and name in _ELEMENTWISE
    return None, elementwise, comment or f"the VJP of {name}", f"out = {name}({', '.join(args)})"


_ELEMENTWISE = {
    "exp",
    "log",
    "sin",
    "cos",
    "tanh",
    "sigmoid",
    "sqrt",
    "relu",
    "abs",
    "sign",
    "reciprocal",
    "pow",
    "pow_tensor",
    "pow_scalar_base",
    "rsub",
    "clone",
    "where",
}


def _vjp_comment(op) -> str:
    import inspect

    for f in op.raw_vjps:
        if f is None:
            continue
        try:
            lines, _ = inspect.getsourcelines(f)
        except (OSError, TypeError):
            continue
        for line in lines[:3]:
            if "#" in line:
                return line.split("#", 1)[1].strip()
        doc = inspect.getdoc(f)
        if doc:
            return doc.splitlines()[0]
    return ""


def _count(shape, dim) -> int:
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return math.prod(shape[d] for d in dims)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def _source_place(node: Node) -> str | None:
    frame = _frame(node)
    return f"{frame.filename}:{frame.lineno}" if frame is not None else None


def _source_text(node: Node) -> str | None:
    frame = _frame(node)
    return frame.line.strip() if frame is not None and frame.line else None


def _frame(node: Node):
    if node._extra is None:
        return None
    stack = node._extra.metadata.get("traceback_")
    return stack[-1] if stack else None


# ----- formatting ----------------------------------------------------------------------


def _as_tensor(g: Any, dtype) -> Tensor:
    if isinstance(g, Tensor):
        return g.detach()
    arr = xp.asarray(g)
    from ._dtypes import from_numpy_dtype

    return _make(arr, from_numpy_dtype(arr.dtype))


def _values(arr, limit: int = 6) -> str:
    """Values of a gradient, short: all of them up to ``limit``, else the first few and the shape."""
    arr = xp.asarray(arr)
    flat = arr.reshape(-1)
    text = ", ".join(_fmt(v) for v in flat[:limit])
    if flat.size > limit:
        return f"[{text}, ...] (shape {list(arr.shape)})"
    return f"[{text}]" if arr.ndim else text


def _fmt(v) -> str:
    v = float(v)
    if v == 0 or 1e-4 <= abs(v) < 1e6:
        return f"{v:.4g}" if not v.is_integer() else f"{int(v)}."
    return f"{v:.4e}"


def _leaf_name_raw(t: Tensor) -> str:
    """The user's variable name for ``t``, looked up in the calling frames, else 'x'."""
    frame = sys._getframe(1)
    while frame is not None:
        for name, value in frame.f_locals.items():
            if value is t and not name.startswith("_") and name not in ("t", "leaf", "x_"):
                return name
        frame = frame.f_back
    return "leaf"


def _leaf_name(expl: Explanation, t: Tensor) -> str:
    for s in expl.steps:
        if s.leaf is t:
            return s.forward.split(" ")[0]
    return "leaf"


def _narrative(e: Explanation) -> str:
    out = e.output
    lines = [
        f"backward(v) from an output of shape {list(out.shape)} computes the vector-Jacobian "
        "product vᵀJ, where J = d output / d leaves. It never forms J: each node multiplies the "
        "gradient arriving at its output by its own local derivative (the chain rule), from "
        "the output back to the leaves.",
        f"v = {_values(e.v._data)}"
        + (" (implicitly 1: the output is a scalar)" if gradient_is_implicit(e) else ""),
        "",
    ]
    for group in _groups(e.steps):
        s = group[0]
        if len(group) > RUN:
            total = math.prod(x.factor for x in group) if all(x.factor for x in group) else None
            lines.append(
                f"Steps {group[0].index}-{group[-1].index}: {s.node} x {len(group)}, each undoing "
                f"`{s.forward}` (local derivative {s.local})"
                + (f"; together they scale the gradient by {_num(total)}" if total else "")
                + f". Gradient in: {_values(group[0].grad_in._data)}; out of the last: "
                + f"{_out(group[-1])}."
            )
            continue
        for s in group:
            lines.append(_step_text(s))
    lines += [""] + _summary(e)
    return "\n".join(lines)


def gradient_is_implicit(e: Explanation) -> bool:
    return e.output.numel() == 1 and bool((e.v._data == 1).all())


def _groups(steps: list[Step]) -> list[list[Step]]:
    groups: list[list[Step]] = []
    for s in steps:
        if (
            groups
            and groups[-1][0].node == s.node
            and groups[-1][0].forward == s.forward
            and s.node != "AccumulateGrad"
        ):
            groups[-1].append(s)
        else:
            groups.append([s])
    return groups


def _out(s: Step) -> str:
    outs = [_values(g._data) for g in s.grads_out if g is not None]
    return "; ".join(outs) if outs else "-"


def _step_text(s: Step) -> str:
    if s.node == "AccumulateGrad":
        return (
            f"Step {s.index}: AccumulateGrad adds the incoming gradient "
            f"{_values(s.grad_in._data)} into {s.forward.split(' ')[0]}.grad."
        )
    where = f" (line {s.source.rsplit(':', 1)[-1]})" if s.source else ""
    shapes = ", ".join(str(list(sh)) for sh in s.input_shapes if sh is not None)
    return (
        f"Step {s.index}: {s.node} undoes `{s.forward}`{where}; inputs {shapes} -> output "
        f"{list(s.output_shape)}. Local derivative: {s.local}. Gradient in: "
        f"{_values(s.grad_in._data)}; gradient out: {_out(s)}."
    )


def _summary(e: Explanation) -> list[str]:
    lines = []
    compute = [s for s in e.steps if s.node != "AccumulateGrad"]
    scalings = all(s.factor is not None for s in compute) and compute
    for leaf, g in e.gradients.items():
        name = _leaf_name(e, leaf)
        if scalings and len(e.gradients) == 1:
            factor = math.prod(s.factor for s in compute)
            power = _power_of_two(factor)
            scaled = (
                f"{name} * 2^{power} = {_num(factor)} * {name}"
                if power is not None
                else f"{_num(factor)} * {name}"
            )
            lines.append(
                f"Folded: every step only scales, so y = {scaled}; so dy/d{name} = "
                f"{_num(factor)} * I (a diagonal Jacobian), and {name}.grad = v * "
                f"{_num(factor)} = {_values(g._data)}."
            )
        elif all(s.elementwise for s in compute) and compute and leaf.shape == e.output.shape:
            diag = xp.divide(
                g._data, e.v._data, out=xp.full(g._data.shape, xp.nan), where=e.v._data != 0
            )
            lines.append(
                f"Every step is elementwise, so the Jacobian is diagonal: "
                f"dy/d{name} = diag({_values(diag)}), and {name}.grad = v * that diagonal."
            )
        lines.append(f"{name}.grad would receive {_values(g._data)}.")
    if e._check:
        lines.append("Check with the dense Jacobian: " + e._check.replace("\n", "; "))
    return lines


def _power_of_two(f: float) -> int | None:
    if f <= 0:
        return None
    k = math.log2(f)
    return int(round(k)) if abs(k - round(k)) < 1e-12 and abs(k) >= 2 else None


def _html(e: Explanation) -> str:
    depth: dict[int, int] = {}
    for s in e.steps:
        depth.setdefault(s.node_id, 0)
        for n in s.next_ids:
            if n >= 0:
                depth[n] = max(depth.get(n, 0), depth[s.node_id] + 1)
    columns: dict[int, list[Step]] = {}
    for s in e.steps:
        columns.setdefault(depth[s.node_id], []).append(s)
    pos = {}
    for d, col in columns.items():
        for i, s in enumerate(col[:40]):
            pos[s.node_id] = (40 + d * 190, 40 + i * 70)
    width = 80 + 190 * (max(columns) + 1 if columns else 1)
    height = 80 + 70 * max((min(len(c), 40) for c in columns.values()), default=1)
    svg = [f'<svg id="graph" width="{width}" height="{height}" xmlns="http://www.w3.org/2000/svg">']
    for s in e.steps:
        for n, g in zip(s.next_ids, s.grads_out):
            if n in pos and s.node_id in pos and g is not None:
                (x1, y1), (x2, y2) = pos[s.node_id], pos[n]
                svg.append(
                    f'<line x1="{x1 + 150}" y1="{y1 + 20}" x2="{x2}" y2="{y2 + 20}" '
                    'stroke="#888" marker-end="url(#arrow)"/>'
                )
                svg.append(
                    f'<text class="edge" x="{(x1 + 150 + x2) / 2}" y="{(y1 + y2) / 2 + 14}">'
                    f"{html.escape(_values(g._data, 2))}</text>"
                )
    for s in e.steps:
        if s.node_id not in pos:
            continue
        x, y = pos[s.node_id]
        svg.append(
            f'<g class="node" data-step="{s.index}" onclick="show({s.index})">'
            f'<rect x="{x}" y="{y}" width="150" height="40" rx="6"/>'
            f'<text x="{x + 75}" y="{y + 25}" text-anchor="middle">{html.escape(s.node)}</text></g>'
        )
    svg.insert(
        1,
        '<defs><marker id="arrow" markerWidth="8" markerHeight="8" refX="8" refY="4" '
        'orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#888"/></marker></defs>',
    )
    svg.append("</svg>")
    rows = "".join(
        f'<tr id="step-{s.index}"><td>{s.index}</td><td>{html.escape(s.node)}</td>'
        f"<td><code>{html.escape(s.forward)}</code></td><td>{html.escape(s.local)}</td>"
        f"<td>{html.escape(_values(s.grad_in._data))}</td><td>{html.escape(_out(s))}</td></tr>"
        for s in e.steps
    )
    details = json.dumps({s.index: _step_text(s) for s in e.steps})
    narrative = html.escape(_narrative(e)).replace("\n", "<br>")
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>chainrule: explain backward</title>
<style>
body {{ font-family: sans-serif; margin: 2em; }}
.node rect {{ fill: #eef4ff; stroke: #3366cc; cursor: pointer; }}
.node.selected rect {{ fill: #ffe9a8; }}
.node text {{ font: 13px monospace; pointer-events: none; }}
.edge {{ font: 10px monospace; fill: #555; }}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #ccc; padding: 4px 8px; }}
tr.selected {{ background: #ffe9a8; }}
#detail {{ padding: 1em; background: #f6f6f6; min-height: 2em; }}
</style></head><body>
<h1>What backward computes</h1>
<p id="narrative">{narrative}</p>
<h2>The graph</h2>
{"".join(svg)}
<div id="detail">Click a node to see its step.</div>
<h2>Steps</h2>
<table id="steps"><tr><th>#</th><th>node</th><th>forward</th><th>local derivative</th>
<th>gradient in</th><th>gradients out</th></tr>{rows}</table>
<script>
const details = {details};
function show(i) {{
  document.getElementById("detail").textContent = details[i];
  document.querySelectorAll(".selected").forEach(el => el.classList.remove("selected"));
  document.getElementById("step-" + i).classList.add("selected");
  document.querySelector('.node[data-step="' + i + '"]').classList.add("selected");
}}
</script></body></html>
"""


class _ExplainModule(types.ModuleType):
    """So that ``chainrule.explain(y, v)`` and ``chainrule.explain.record()`` both work."""

    def __call__(self, output: Tensor, gradient: Tensor | None = None, inputs: Any = None):
        return explain(output, gradient, inputs)


sys.modules[__name__].__class__ = _ExplainModule
