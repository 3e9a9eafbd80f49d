"""``chainrule.explain(output, gradient)``: the chain rule behind a backward call, step by step.

It runs the same engine loop ``backward`` would, with the same root gradient,
watching every step (``run_backward(observe=...)``), but accumulates into no
``.grad`` and frees nothing: a later ``backward()`` still works.

The steps are data (``Explanation.steps``); the text, Markdown, DOT and HTML views
all show the same *items*: single steps, runs of alike steps folded into one
("MulBackward0 x 10000"), and, for very long graphs, one gap in the middle, so every
view stays short whatever the graph's size.
"""

from __future__ import annotations

import html
import json
import math
import os
import shutil
import subprocess
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._backend import xp
from ._tensor import Tensor, _make
from .autograd import grad as _grad  # bound at import: `chainrule explain` wraps the public one
from .autograd.anomaly_mode import _anomaly
from .autograd.graph import AccumulateGrad, Node

if TYPE_CHECKING:
    from traceback import FrameSummary

    from .autograd.recording import Op

MAX_JACOBIAN = 1_000_000  # entries of a dense Jacobian explain will build
RUN = 4  # a run of more than this many alike steps is folded into one item
PERIOD = 8  # the longest repeating pattern of steps that is folded ("Mul, Add" x 5000)
MAX_ITEMS = 40  # more items than this: the middle ones become one gap
MAX_LEAVES = 12  # leaves listed one by one in the summary
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
_INSTALL = (
    "rendering DOT to {fmt} needs Graphviz's `dot` program, which was not found: install "
    "Graphviz (Debian/Ubuntu: apt-get install graphviz; macOS: brew install graphviz; "
    "conda: conda install graphviz) and, for the Python interface, pip install graphviz. "
    "to_dot() gives the DOT text and to_html() a page that need neither."
)


@dataclass
class Step:
    """One backward step: a node turning the gradient of its output into its inputs'."""

    index: int
    node: str  # MulBackward0
    op: str  # mul, or "accumulate" for a leaf
    forward: str  # the forward operation the node undoes, as an op: "out = a * 2"
    source: str | None  # "script.py:7" where the node was recorded, if recording was on
    input_shapes: list[tuple | None]
    output_shape: tuple
    local: str  # the local derivative, in words and symbols
    grad_in: Tensor  # the gradient arriving at the node's output
    grads_out: list[Tensor | None]  # the gradient sent to each input
    leaf: Tensor | None = None  # for an AccumulateGrad step: the leaf
    factor: float | None = None  # when the step only scales by a number
    elementwise: bool = False
    node_id: int = 0
    next_ids: list[int] = field(default_factory=list)
    code: str | None = None  # the text of the user's line that made the node: "y = y * 2"
    name: str | None = None  # for an AccumulateGrad step: the leaf's variable name
    fan_in: int = 1  # how many edges brought gradient to this node (their sum is grad_in)
    same_inputs: bool = False  # both inputs are one tensor: y * y
    broadcast: list[int] = field(default_factory=list)  # inputs broadcast by an elementwise op


@dataclass
class Item:
    """What the text, Markdown, DOT and HTML views show: a step, a run of alike steps
    (``reps`` repetitions of a pattern of ``period`` steps) or a gap of omitted steps."""

    kind: str  # "step", "run" or "gap"
    steps: list[Step]
    period: int = 1

    @property
    def reps(self) -> int:
        return len(self.steps) // self.period

    @property
    def first(self) -> int:
        return self.steps[0].index

    @property
    def last(self) -> int:
        return self.steps[-1].index


class Explanation:
    """What ``backward(gradient)`` from ``output`` computes, as data, text and pictures."""

    def __init__(
        self,
        output: Tensor,
        v: Tensor,
        steps: list[Step],
        gradients: dict,
        names: dict | None = None,
        diagonals: dict | None = None,
    ) -> None:
        self.output = output
        self.v = v
        self.steps = steps
        self.gradients = gradients  # leaf (or input) -> the gradient backward would accumulate
        self._names = names or {}
        self._diagonals = diagonals or {}  # leaf -> diagonal of J, for elementwise graphs
        # what each .grad held when explained (backward adds to it), for the text
        self._held = {id(t): t._grad._data.copy() for t in gradients if t._grad is not None}
        self.items = _items(steps)
        # Checked now, while the graph is alive: the user's backward() may free it later.
        entries = sum(output.numel() * leaf.numel() for leaf in gradients)
        small = 0 < entries <= 256 and len(gradients) <= MAX_LEAVES
        self._check = self.check_jacobian() if small else None

    def name(self, t: Tensor) -> str:
        """The user's variable name for a leaf (or input), as the text uses it."""
        return self._names.get(id(t), "leaf")

    # ----- the Jacobian -------------------------------------------------------------

    def jacobian(self, leaf: Tensor | None = None) -> Tensor | dict:
        """d output / d leaf as a dense tensor of shape output.shape + leaf.shape.

        backward never builds it: it computes vᵀJ directly. Here J is built row by row
        (one backward per output element), so ``v @ J`` can be checked against it. With
        one leaf (or ``leaf`` given) the tensor, else a dict leaf -> tensor.
        """
        from .autograd import _edge

        leaves = [leaf] if leaf is not None else list(self.gradients)
        out = self.output
        result = {}
        with _keeping_retained_grads([_edge(out)]):
            for x in leaves:
                result[x] = self._jacobian(x)
        return result[leaves[0]] if leaf is not None or len(leaves) == 1 else result

    def _jacobian(self, x: Tensor) -> Tensor:
        out = self.output
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
        return _make(arr, x._dtype)

    def check_jacobian(self) -> str:
        """A sentence per leaf saying whether ``v @ J`` equals the accumulated gradient."""
        lines = []
        for x, g in self.gradients.items():
            j = self.jacobian(x)._data.reshape(self.output.numel(), x.numel())
            vj = self.v._data.reshape(-1).astype(xp.float64) @ j.astype(xp.float64)
            same = bool(xp.allclose(vj, g._data.reshape(-1), rtol=1e-5, atol=1e-8))
            lines.append(
                f"v @ J = {_values(vj.astype(g._data.dtype).reshape(g._data.shape))} "
                f"{'equals' if same else 'DIFFERS FROM'} the gradient for {self.name(x)} "
                f"= {_values(g._data)}"
            )
        return "\n".join(lines)

    # ----- text ---------------------------------------------------------------------

    def __str__(self) -> str:
        return _narrative(self)

    def __repr__(self) -> str:
        return f"<Explanation of {len(self.steps)} backward steps>"

    def to_markdown(self) -> str:
        """The narrative and a table of the steps (runs folded, as in the text)."""
        rows = [
            "| # | node | forward | local derivative | incoming gradient | outgoing gradients |",
            "|---|---|---|---|---|---|",
        ]
        for item in self.items:
            cells = _cells(item)
            cells = [c.replace("|", "\\|") for c in cells]
            rows.append(
                f"| {cells[0]} | `{cells[1]}` | `{cells[2]}` | {cells[3]} | {cells[4]} | "
                f"{cells[5]} |"
            )
        return f"## What backward computes\n\n{_narrative(self)}\n\n## Steps\n\n" + "\n".join(rows)

    def to_dot(self) -> str:
        """Graphviz DOT: one box per node (or folded run), each edge labelled by its gradient."""
        lines = [
            "digraph backward {",
            "  rankdir=LR;",
            '  node [shape=box, style="rounded,filled", fillcolor="#eef4ff", fontname="monospace"];',
        ]
        for k, item in enumerate(self.items):
            label = f"{_box_title(item)}\\n{_box_sub(item)}".replace('"', '\\"')
            lines.append(f'  i{k} [label="{label}"];')
        for (a, b), g in _item_edges(self.items).items():
            lines.append(f'  i{a} -> i{b} [label="{_values(g._data, 3)}"];')
        lines.append("}")
        return "\n".join(lines)

    def render(self, path: str, format: str = "svg") -> str:  # noqa: A002 - graphviz's name
        """Draw the DOT graph into ``path.<format>`` (svg, png, pdf) with Graphviz.

        Uses the ``graphviz`` Python package when it is installed, else Graphviz's ``dot``
        program directly; raises a RuntimeError saying how to install them when absent.
        Returns the path of the file written.
        """
        try:
            import graphviz  # type: ignore[import-not-found]
        except ImportError:
            graphviz = None
        if graphviz is not None:
            try:
                return graphviz.Source(self.to_dot()).render(path, format=format, cleanup=True)
            except graphviz.ExecutableNotFound:
                raise RuntimeError(_INSTALL.format(fmt=format)) from None
        dot = shutil.which("dot")
        if dot is None:
            raise RuntimeError(_INSTALL.format(fmt=format))
        target = f"{path}.{format}"
        subprocess.run(
            [dot, f"-T{format}", "-o", target], input=self.to_dot(), text=True, check=True
        )
        return target

    def to_html(self) -> str:
        """One self-contained page (inline CSS and script, no network requests): the
        narrative, the graph drawn in SVG, and the table of steps; clicking a node
        shows its step."""
        return _html(self)


# ----- walking the graph -------------------------------------------------------------


def explain(output: Tensor, gradient: Tensor | None = None, inputs: Any = None) -> Explanation:
    """Explain ``output.backward(gradient)``: every step of the vector-Jacobian product.

    ``gradient`` follows backward's rules (implicitly 1 for a scalar output, required
    otherwise). With ``inputs`` (as ``backward(inputs=)`` or ``autograd.grad``), the
    gradients reported are those of the inputs, leaves or not. Nothing is accumulated
    into any ``.grad`` and the graph is kept.
    """
    from .autograd import _as_list, _edge, _roots_and_grads
    from .autograd.engine import run_backward

    roots, grads = _roots_and_grads(
        [output], None if gradient is None else [gradient], False, "explain"
    )
    v = _make(xp.array(grads[0]), output._dtype)
    steps: list[Step] = []
    ids: dict[Node, int] = {}
    gradients: dict[Tensor, Tensor] = {}
    wanted = None if inputs is None else _as_list(inputs)
    names = _variable_names()
    unnamed = [0]

    def leaf_name(t: Tensor) -> str:
        if id(t) not in names:
            unnamed[0] += 1
            names[id(t)] = f"leaf{unnamed[0]}"
        return names[id(t)]

    def node_id(n: Node) -> int:
        return ids.setdefault(n, len(ids))

    def observe(node: Node, grad_outputs: list, grad_inputs: list) -> None:
        g_in = _as_tensor(grad_outputs[0])
        if type(node) is AccumulateGrad:
            leaf = node.variable
            gradients[leaf] = g_in if leaf not in gradients else gradients[leaf] + g_in
            name = leaf_name(leaf)
            steps.append(
                Step(
                    len(steps) + 1,
                    "AccumulateGrad",
                    "accumulate",
                    f"{name} (a leaf)",
                    None,
                    [],
                    tuple(leaf.shape),
                    f"{name}.grad += incoming gradient",
                    g_in,
                    [],
                    leaf=leaf,
                    node_id=node_id(node),
                    name=name,
                )
            )
            return
        outs = [None if g is None else _as_tensor(g) for g in grad_inputs]
        factor, elementwise, local, fwd = _describe(node)
        tensors = [n for n, _ in node._next]
        steps.append(
            Step(
                len(steps) + 1,
                _short_name(node),
                node._op.name if getattr(node, "_op", None) is not None else _short_name(node),
                fwd,
                _source_place(node),
                [m[0] if m else None for m in getattr(node, "_meta", None) or ()],
                tuple(g_in.shape),
                local,
                g_in,
                outs,
                factor=factor,
                elementwise=elementwise and _shapes_kept(node, g_in),
                broadcast=_broadcast(node, g_in) if elementwise else [],
                node_id=node_id(node),
                next_ids=[node_id(n) if n is not None else -1 for n in tensors],
                code=_source_text(node),
                same_inputs=len(tensors) == 2
                and tensors[0] is not None
                and tensors[0] is tensors[1],
            )
        )

    capture = None if wanted is None else dict.fromkeys(_edge(t) for t in wanted)
    with _keeping_retained_grads(roots):
        run_backward(roots, grads, True, False, capture=capture, accumulate=False, observe=observe)
        return _finish(output, v, steps, gradients, wanted, capture, names, leaf_name)


def _finish(
    output: Tensor,
    v: Tensor,
    steps: list[Step],
    gradients: dict[Tensor, Tensor],
    wanted: list | None,
    capture: dict,
    names: dict[int, str],
    leaf_name: Callable[[Tensor], str],
) -> Explanation:
    """Fan-in counts, the gradients of ``inputs``, diagonals of elementwise graphs."""
    from .autograd import _edge

    fan_in: dict[int, int] = {}
    for s in steps:
        for n in s.next_ids:
            fan_in[n] = fan_in.get(n, 0) + 1
    for s in steps:
        s.fan_in = fan_in.get(s.node_id, 1)
    if wanted is not None:
        gradients = {}
        for t in wanted:
            g = capture[_edge(t)]
            if g is not None:
                gradients[t] = _make(xp.array(g), t._dtype)
                leaf_name(t)
    compute = [s for s in steps if s.op != "accumulate"]
    diagonals = {}
    if compute and output.numel() > 1 and all(s.elementwise for s in compute):
        for t in gradients:
            if tuple(t.shape) == tuple(output.shape):
                ones = _make(xp.ones(output._data.shape, dtype=output._dtype.np), output._dtype)
                (d,) = _grad(output, t, ones, retain_graph=True, allow_unused=True)
                if d is not None:
                    diagonals[t] = d
    return Explanation(output, v, steps, gradients, names, diagonals)


class _keeping_retained_grads:  # noqa: N801 - a context manager
    """retain_grad()'s hook runs in explain's passes as in backward: undo what it stores."""

    def __init__(self, roots: list) -> None:
        self.saved = _retained_grads(roots)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        for t, g in self.saved:
            t._grad = g


def _retained_grads(roots: list) -> list:
    """Every tensor in the graph that retain_grad() watches, with its .grad now."""
    found, seen, stack = [], set(), [n for n, _ in roots]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        extra = node._extra
        if extra is not None and extra.retained is not None:
            for ref in extra.retained.values():
                t = ref()
                if t is not None:
                    found.append((t, t._grad))
        stack.extend(n for n, _ in node._next)
    return found


def _variable_names() -> dict[int, str]:
    """id(tensor) -> the name the user's code gives it, from the calling frames (innermost
    first, chainrule's own frames skipped)."""
    names: dict[int, str] = {}
    held: dict[int, str] = {}  # tensors inside a dict, list or tuple: params[0], p['w1']
    frame = sys._getframe(1)
    while frame is not None:
        if not frame.f_code.co_filename.startswith(_PACKAGE):
            for name, value in list(frame.f_locals.items()):
                if name.startswith("_"):
                    continue
                if isinstance(value, Tensor):
                    names.setdefault(id(value), name)
                elif isinstance(value, dict) and len(value) <= 1000:
                    for key, t in value.items():
                        if isinstance(t, Tensor) and isinstance(key, (str, int)):
                            held.setdefault(id(t), f"{name}[{key!r}]")
                elif isinstance(value, (list, tuple)) and len(value) <= 1000:
                    for i, t in enumerate(value):
                        if isinstance(t, Tensor):
                            held.setdefault(id(t), f"{name}[{i}]")
        frame = frame.f_back
    return {**held, **names}


class _Record:
    """``with chainrule.explain.record():`` nodes remember the source line that made them."""

    def __enter__(self) -> _Record:
        _anomaly.explaining += 1
        _anomaly.update()
        return self

    def __exit__(self, *exc: Any) -> None:
        _anomaly.explaining -= 1
        _anomaly.update()


def record() -> _Record:
    """Record, for each node made inside the block, the file, line and text that made it.

    Off by default, so the forward pass costs nothing extra; ``chainrule explain`` turns
    it on for the whole script.
    """
    return _Record()


# ----- describing one node ------------------------------------------------------------


def _describe(node: Node) -> tuple[float | None, bool, str, str]:
    """(scaling factor or None, elementwise?, local derivative text, forward text)."""
    op = getattr(node, "_op", None)
    if op is None:  # a custom autograd.Function, or another node without an op entry
        return None, False, f"the backward of {node.name()}", f"{_short_name(node)} (custom)"
    name = op.name
    saved = dict(zip(zip(node._plan.kinds, node._plan.keys), node._saved or ()))
    args = op.args
    tensors = [n for n, _ in node._next]
    number = next((v for (k, _), v in saved.items() if k == "arg" and _is_number(v)), None)
    same = len(tensors) == 2 and tensors[0] is not None and tensors[0] is tensors[1]
    shape = node._meta[0][0] if node._meta and node._meta[0] else None
    n_in = math.prod(shape) if shape is not None else 1
    if name == "mul":
        if same:
            return None, True, "d(y*y)/dy = 2y", "out = y * y"
        if number is not None:
            c = _num(number)
            return float(number), True, f"d(a*{c})/da = {c}", f"out = a * {c}"
        return None, True, "d(a*b)/da = b, d(a*b)/db = a", "out = a * b"
    if name == "div":
        if number is not None:
            c = _num(number)
            return 1 / float(number), True, f"d(a/{c})/da = 1/{c}", f"out = a / {c}"
        return None, True, "d(a/b)/da = 1/b, d(a/b)/db = -a/b²", "out = a / b"
    if name in ("add", "sub"):
        sign = "+" if name == "add" else "-"
        if number is not None or tensors.count(None) == 1:
            factor = -1.0 if name == "sub" and tensors[0] is None else 1.0
            return factor, True, f"d(a {sign} c)/da = 1", f"out = a {sign} c"
        other = "1" if sign == "+" else "-1"
        return None, True, f"d(a {sign} b)/da = 1, d(a {sign} b)/db = {other}", f"out = a {sign} b"
    if name == "neg":
        return -1.0, True, "d(-a)/da = -1", "out = -a"
    if name == "mean":
        dim = saved.get(("param", "dim"))
        count = n_in if dim is None else _count(shape, dim)
        text = "out = z.mean()" if dim is None else f"out = z.mean(dim={dim})"
        return None, False, f"d mean(z)/dz_i = 1/{count}", text
    if name == "sum":
        return None, False, "d sum(z)/dz_i = 1", "out = z.sum()"
    if name in ("matmul", "mm"):
        return None, False, "d(A@B)/dA = G @ Bᵀ, d(A@B)/dB = Aᵀ @ G", "out = A @ B"
    if name == "relu":
        return None, True, "d relu(x)/dx = 1 where x > 0, else 0", "out = relu(x)"
    if name == "pow":
        e = saved.get(("param", "exponent"))
        if e is not None:
            return (
                None,
                True,
                f"d(x^{_num(e)})/dx = {_num(e)}·x^{_num(e - 1)}",
                f"out = x ** {_num(e)}",
            )
    comment = _vjp_comment(op)
    return (
        None,
        _is_elementwise(op),
        comment or f"the VJP of {name}",
        f"out = {name}({', '.join(args)})",
    )


def _is_elementwise(op: Op) -> bool:
    """Whether each output element depends only on the same element of each input."""
    if isinstance(op.forward, xp.ufunc):
        return True
    module = getattr(op.forward, "__module__", "") or ""
    if module.endswith((".elementwise", ".pointwise")):
        return True
    return module.endswith(".activations") and op.name not in _NOT_ELEMENTWISE


_NOT_ELEMENTWISE = {"softmax", "log_softmax", "logsumexp"}


def _broadcast(node: Node, g_in: Tensor) -> list[int]:
    """The inputs (needing a gradient) whose shape an elementwise op broadcast."""
    metas = getattr(node, "_meta", None) or ()
    return [i for i, m in enumerate(metas) if m is not None and tuple(m[0]) != tuple(g_in.shape)]


def _shapes_kept(node: Node, g_in: Tensor) -> bool:
    """No input that needs a gradient was broadcast: its shape is the output's."""
    metas = getattr(node, "_meta", None) or ()
    return all(m is None or tuple(m[0]) == tuple(g_in.shape) for m in metas)


def _vjp_comment(op: Op) -> str:
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


def _count(shape: tuple, dim: int | tuple) -> int:
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return math.prod(shape[d] for d in dims)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() and abs(v) < 1e16 else f"{v:g}"


def _source_place(node: Node) -> str | None:
    frame = _frame(node)
    return f"{frame.filename}:{frame.lineno}" if frame is not None else None


def _source_text(node: Node) -> str | None:
    frame = _frame(node)
    return _fit(frame.line.strip(), 120) if frame is not None and frame.line else None


def _frame(node: Node) -> FrameSummary | None:
    if node._extra is None:
        return None
    stack = node._extra.metadata.get("traceback_")
    return stack[-1] if stack else None


# ----- folding steps into items --------------------------------------------------------


def _items(steps: list[Step]) -> list[Item]:
    """Steps, with runs of a repeating pattern folded, and the middle of a long list cut."""
    kinds: dict[tuple, int] = {}
    sigs = [
        kinds.setdefault(
            ("leaf", s.output_shape) if s.op == "accumulate" else (s.node, s.forward, s.code),
            len(kinds),
        )
        for s in steps
    ]
    items: list[Item] = []
    i, n = 0, len(steps)
    while i < n:
        best_p, best_len = 0, 0
        for p in range(1, PERIOD + 1):
            if i + 2 * p > n:
                break
            block = sigs[i : i + p]
            reps = 1
            while sigs[i + reps * p : i + (reps + 1) * p] == block:
                reps += 1
            if reps >= (2 if p == 1 else 3) and reps * p > RUN and reps * p > best_len:
                best_p, best_len = p, reps * p
        if best_p:
            items.append(Item("run", steps[i : i + best_len], best_p))
            i += best_len
        else:
            items.append(Item("step", [steps[i]]))
            i += 1
    if len(items) > MAX_ITEMS:
        head, tail = MAX_ITEMS * 2 // 3, MAX_ITEMS // 3 - 1
        middle = [s for item in items[head:-tail] for s in item.steps]
        items = items[:head] + [Item("gap", middle)] + items[-tail:]
    return items


def _counts(steps: list[Step]) -> str:
    counts: dict[str, int] = {}
    for s in steps:
        counts[s.node] = counts.get(s.node, 0) + 1
    return ", ".join(f"{k} x {v}" for k, v in counts.items())


# ----- formatting ----------------------------------------------------------------------


def _as_tensor(g: Any) -> Tensor:
    if isinstance(g, Tensor):
        return g.detach()
    arr = xp.asarray(g)
    from ._dtypes import from_numpy_dtype

    return _make(arr, from_numpy_dtype(arr.dtype))


def _values(arr: Any, limit: int = 6) -> str:
    """Values of a gradient, short: all of them up to ``limit``, else the first few and the shape."""
    arr = xp.asarray(arr)
    flat = arr.reshape(-1)
    text = ", ".join(_fmt(v) for v in flat[:limit])
    if flat.size > limit:
        return f"[{text}, ...] (shape {list(arr.shape)})"
    return f"[{text}]" if arr.ndim else text


def _fmt(v: Any) -> str:
    v = float(v)
    if math.isnan(v) or math.isinf(v):
        return str(v)
    if v == 0 or 1e-4 <= abs(v) < 1e6:
        return f"{v:.4g}" if not v.is_integer() else f"{int(v)}."
    return f"{v:.4e}"


def _undoes(s: Step) -> str:
    """`y = y * 2` (line 15; the op out = a * 2), or `out = a * 2` when no line was recorded."""
    if s.code:
        line = s.source.rsplit(":", 1)[-1] if s.source else "?"
        op = s.forward.split(" = ", 1)[-1]
        same = s.code.replace(" ", "").endswith(op.replace(" ", ""))
        return f"`{s.code}` (line {line}" + ("" if same else f"; the op: {s.forward}") + ")"
    return f"`{s.forward}`"


def _out(s: Step) -> str:
    outs = [g for g in s.grads_out if g is not None]
    if s.same_inputs and len(outs) == 2:
        return f"{_values(outs[0]._data)} along each of its two edges (both inputs are the same tensor)"
    text = "; ".join(_values(g._data) for g in outs[:4])
    if len(outs) > 4:
        text = "; ".join(_values(g._data) for g in outs[:3]) + f"; ... ({len(outs)} gradients)"
    return text or "-"


def _in(s: Step) -> str:
    values = _values(s.grad_in._data)
    if s.fan_in > 1:
        return f"{values} (the sum of the gradients from its {s.fan_in} uses)"
    return values


def _step_text(s: Step) -> str:
    if s.op == "accumulate":
        return (
            f"Step {s.index}: AccumulateGrad adds the incoming gradient {_in(s)} into "
            f"{s.name}.grad."
        )
    shapes = [str(list(sh)) if sh is not None else "(constant)" for sh in s.input_shapes]
    if len(shapes) > 4:
        shapes = shapes[:3] + [f"... ({len(shapes)} inputs)"]
    broadcast = "".join(
        f" Input {i + 1} was broadcast from {list(s.input_shapes[i])} to {list(s.output_shape)}, "
        f"so its gradient is summed back to {list(s.input_shapes[i])}."
        for i in s.broadcast
    )
    return (
        f"Step {s.index}: {s.node} undoes {_undoes(s)}; inputs {', '.join(shapes) or '-'} -> "
        f"output {list(s.output_shape)}. Local derivative: {s.local}.{broadcast} Gradient in: "
        f"{_in(s)}; gradient out: {_out(s)}."
    )


def _item_text(item: Item) -> str:
    if item.kind == "step":
        return _step_text(item.steps[0])
    steps = item.steps
    if item.kind == "gap":
        return (
            f"Steps {item.first}-{item.last} ({len(steps)} steps: {_counts(steps)}) are not "
            "shown here; they are all in explanation.steps."
        )
    pattern = steps[: item.period]
    if all(s.op == "accumulate" for s in pattern):
        leaves = ", ".join(f"{s.name}.grad" for s in steps[:3])
        return (
            f"Steps {item.first}-{item.last}: AccumulateGrad x {len(steps)}, adding the "
            f"incoming gradients into {leaves}, ..., {steps[-1].name}.grad."
        )
    scale = _run_factor(item)
    tail = (
        (f"; together they scale the gradient by {_num(scale)}" if scale is not None else "")
        + f". Gradient in: {_values(steps[0].grad_in._data)}; out of the last: "
        + f"{_out(steps[-1])}."
    )
    if item.period == 1:
        s = steps[0]
        return (
            f"Steps {item.first}-{item.last}: {s.node} x {len(steps)}, each undoing "
            f"{_undoes(s)}, local derivative {s.local}" + tail
        )
    each = "; ".join(
        "AccumulateGrad adds its gradient into a leaf's .grad"
        if s.op == "accumulate"
        else f"{s.node} undoes {_undoes(s)} (local derivative {s.local})"
        for s in pattern
    )
    names = " -> ".join(s.node for s in pattern)
    return (
        f"Steps {item.first}-{item.last}: the pattern {names} repeated {item.reps} times "
        f"({_counts(steps)}). In each: {each}" + tail
    )


def _run_factor(item: Item) -> float | None:
    if all(s.factor is not None for s in item.steps):
        return math.prod(s.factor for s in item.steps)
    return None


def _narrative(e: Explanation, summary: bool = True) -> str:
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
    lines += [_item_text(item) for item in e.items]
    if summary:
        lines += [""] + _summary(e)
    return "\n".join(lines)


def gradient_is_implicit(e: Explanation) -> bool:
    return e.output.numel() == 1 and bool((e.v._data == 1).all())


def _summary(e: Explanation) -> list[str]:
    lines = []
    compute = [s for s in e.steps if s.op != "accumulate"]
    scalings = bool(compute) and all(s.factor is not None for s in compute)
    out_name = e._names.get(id(e.output), "out")
    leaves = list(e.gradients.items())
    if e.output.numel() == 1 and leaves and float(e.v._data.reshape(-1)[0]) != 0:
        lines.append(
            f"The output is a scalar, so J = d{out_name}/d(leaves) is a single row, and vᵀJ is "
            + ("that row itself (v = 1)" if gradient_is_implicit(e) else "v times that row")
            + ": each leaf's .grad receives its part of the row"
            + ("." if gradient_is_implicit(e) else f" times {_values(e.v._data)}.")
        )
    for leaf, g in leaves[:MAX_LEAVES]:
        name = e.name(leaf)
        if scalings and len(e.gradients) == 1 and leaf.shape == e.output.shape:
            factor = math.prod(s.factor for s in compute)
            power = _power_of_two(factor)
            scaled = (
                f"{name} * 2^{power} = {_num(factor)} * {name}"
                if power is not None
                else f"{_num(factor)} * {name}"
            )
            lines.append(
                f"Folded: every step only scales, so {out_name} = {scaled}; so "
                f"d{out_name}/d{name} = {_num(factor)} * I (a diagonal Jacobian), and "
                f"{name}.grad = v * {_num(factor)} = {_values(g._data)}."
            )
        elif len(leaves) == 1 and _chain(e):
            lines.append(_chain(e))
        elif leaf in e._diagonals:
            lines.append(
                f"Every step is elementwise, so the Jacobian is diagonal: d{out_name}/d{name} = "
                f"diag({_values(e._diagonals[leaf]._data)}), and {name}.grad = v * that "
                f"diagonal = {_values(g._data)}."
            )
        held = e._held.get(id(leaf))
        lines.append(
            f"{name}.grad would receive {_values(g._data)}"
            + (f" (added to what it already holds, {_values(held)})." if held is not None else ".")
        )
    if len(leaves) > MAX_LEAVES:
        lines.append(f"... and {len(leaves) - MAX_LEAVES} more leaves (see explanation.gradients).")
    if e._check:
        lines.append("Check with the dense Jacobian J (built row by row; backward never forms it):")
        lines += ["  " + line for line in e._check.split("\n")]
    return lines


def _chain(e: Explanation) -> str | None:
    """For a graph that is one path from the output to one leaf, where every local
    derivative is one number: the chain rule as a product of those numbers."""
    steps = e.steps
    if len(steps) < 2 or steps[-1].op != "accumulate" or len(steps) > 12:
        return None
    factors = []
    for s, nxt in zip(steps, steps[1:]):
        if s.op == "accumulate" or {n for n in s.next_ids if n >= 0} != {nxt.node_id}:
            return None
        g_in = s.grad_in._data.astype(xp.float64)
        g_out = sum(g._data.astype(xp.float64) for g in s.grads_out if g is not None)
        if xp.any(g_in == 0):
            return None
        if g_in.shape != g_out.shape and g_in.size != 1:
            return None  # a broadcast or a reduction: not one number per element
        ratio = g_out / g_in
        if not xp.allclose(ratio, ratio.reshape(-1)[0], rtol=1e-6, atol=0):
            return None
        factors.append((s, float(ratio.reshape(-1)[0])))
    leaf = steps[-1]
    product = math.prod(f for _, f in factors)
    terms = " × ".join(
        f"{_fmt(f).rstrip('.')} ({s.node}: {s.local})" if len(s.local) < 40 else _fmt(f)
        for s, f in factors
    )
    v = "" if gradient_is_implicit(e) else "v × "
    return (
        f"One path leads from the output to {leaf.name}, so each element of {leaf.name}.grad "
        f"is {v}the product of the local derivatives along it: {v}{terms} = "
        f"{v}{_fmt(product).rstrip('.')}."
    )


def _power_of_two(f: float) -> int | None:
    if f <= 0:
        return None
    k = math.log2(f)
    return int(round(k)) if abs(k - round(k)) < 1e-12 and abs(k) >= 2 else None


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


def _cells(item: Item) -> list[str]:
    """The table's cells for an item: #, node, forward, local derivative, gradients."""
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
    height = max((y for _, y in pos.values()), default=0) + _H + 40
    svg = [
        f'<svg id="graph" width="{width}" height="{height}" xmlns="http://www.w3.org/2000/svg">',
        '<defs><marker id="arrow" markerWidth="8" markerHeight="8" refX="8" refY="4" '
        'orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#888"/></marker></defs>',
    ]
    for (a, b), g in edges.items():
        (x1, y1), (x2, y2) = pos[a], pos[b]
        x1, y1, x2 = x1 + _W // 2, y1 + _H, x2 + _W // 2
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
            f'<g class="node {cls}" data-item="{k}" data-step="{s.index}">'
            f"<title>{html.escape(_item_text(item))}</title>"
            f'<rect x="{x}" y="{y}" width="{_W}" height="{_H}" rx="6"/>'
            f'<text x="{x + _W // 2}" y="{y + 19}" text-anchor="middle">'
            f"{html.escape(_fit(_box_title(item), 28))}</text>"
            f'<text class="sub" x="{x + _W // 2}" y="{y + 36}" text-anchor="middle">'
            f"{html.escape(_box_sub(item))}</text></g>"
        )
    svg.append("</svg>")
    rows = "".join(
        f'<tr id="row-{k}">' + "".join(f"<td>{html.escape(c)}</td>" for c in _cells(item)) + "</tr>"
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
<table id="steps"><thead><tr><th>#</th><th>node</th><th>forward</th><th>local derivative</th>
<th>gradient in</th><th>gradients out</th></tr></thead><tbody>{rows}</tbody></table>
<h2>The whole story</h2>
<div id="narrative">{html.escape(_narrative(e, summary=False))}</div>
<script>
const details = {details};
{_SCRIPT}
</script></body></html>
"""


def _fit(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


class _ExplainModule(types.ModuleType):
    """So that ``chainrule.explain(y, v)`` and ``chainrule.explain.record()`` both work."""

    def __call__(
        self, output: Tensor, gradient: Tensor | None = None, inputs: Any = None
    ) -> Explanation:
        return explain(output, gradient, inputs)


sys.modules[__name__].__class__ = _ExplainModule


def _short_name(node: Node) -> str:
    """The node's class name: ``AccumulateGrad`` rather than name()'s C++ path."""
    return type(node).__name__
