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

import os
import shutil
import subprocess
import sys
import types
from collections.abc import Callable
from typing import Any

from .._backend import xp
from .._tensor import Tensor, _make
from ..autograd import grad as _grad  # bound at import: `chainrule explain` wraps the public one
from ..autograd.anomaly_mode import _anomaly
from ..autograd.graph import AccumulateGrad, Node
from ._describe import _broadcast, _describe, _shapes_kept, _short_name, _source_place, _source_text
from ._modules import ModuleNames, graph_calls, held_modules, scope_of
from ._pictures import _cells, _dot, _has_modules, _html
from ._steps import MAX_LEAVES, Item, Step, _items
from ._text import _as_tensor, _narrative, _values

__all__ = ["Explanation", "Item", "Step", "explain", "record"]

MAX_JACOBIAN = 1_000_000  # entries of a dense Jacobian explain will build
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_INSTALL = (
    "rendering DOT to {fmt} needs Graphviz's `dot` program, which was not found: install "
    "Graphviz (Debian/Ubuntu: apt-get install graphviz; macOS: brew install graphviz; "
    "conda: conda install graphviz) and, for the Python interface, pip install graphviz. "
    "to_dot() gives the DOT text and to_html() a page that need neither."
)


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
        from ..autograd import _edge

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
        modules = _has_modules(self.items)
        rows = [
            "| # | node | "
            + ("module | " if modules else "")
            + "forward | local derivative | incoming gradient | outgoing gradients |",
            "|---|---|---|---|---|---|" + ("---|" if modules else ""),
        ]
        for item in self.items:
            cells = _cells(item, modules)
            cells = [c.replace("|", "\\|") for c in cells]
            code = [f"`{c}`" if i in (1, 2 + modules) else c for i, c in enumerate(cells)]
            rows.append("| " + " | ".join(code) + " |")
        return f"## What backward computes\n\n{_narrative(self)}\n\n## Steps\n\n" + "\n".join(rows)

    def to_dot(self) -> str:
        """Graphviz DOT: one box per node (or folded run), each edge labelled by its gradient;
        the nodes a module call made inside a cluster labelled by it (``fc1 (Linear)``)."""
        return _dot(self)

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
    from ..autograd import _as_list, _edge, _roots_and_grads
    from ..autograd.engine import run_backward

    roots, grads = _roots_and_grads(
        [output], None if gradient is None else [gradient], False, "explain"
    )
    v = _make(xp.array(grads[0]), output._dtype)
    steps: list[Step] = []
    ids: dict[Node, int] = {}
    gradients: dict[Tensor, Tensor] = {}
    wanted = None if inputs is None else _as_list(inputs)
    frames = _user_frames()
    names = _variable_names(frames)
    modules = ModuleNames(graph_calls(roots), held_modules(frames))
    names.update(modules.parameters())  # fc1.weight, rather than a variable's name
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
        call = scope_of(node)
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
                module=modules.base_label(call) if call is not None else None,
                call=modules.rank(call) if call is not None else None,
                calls=modules.chain(call),
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
    from ..autograd import _edge

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


def _user_frames() -> list[dict[str, Any]]:
    """The local variables of the calling frames, innermost first, chainrule's own skipped."""
    found = []
    frame = sys._getframe(1)
    while frame is not None:
        if not frame.f_code.co_filename.startswith(_PACKAGE):
            found.append(dict(frame.f_locals))
        frame = frame.f_back
    return found


def _variable_names(frames: list[dict[str, Any]]) -> dict[int, str]:
    """id(tensor) -> the name the user's code gives it, from the frames' variables."""
    names: dict[int, str] = {}
    held: dict[int, str] = {}  # tensors inside a dict, list or tuple: params[0], p['w1']
    for f_locals in frames:
        for name, value in f_locals.items():
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


class _ExplainModule(types.ModuleType):
    """So that ``chainrule.explain(y, v)`` and ``chainrule.explain.record()`` both work."""

    def __call__(
        self, output: Tensor, gradient: Tensor | None = None, inputs: Any = None
    ) -> Explanation:
        return explain(output, gradient, inputs)


sys.modules[__name__].__class__ = _ExplainModule
