"""``run_decompositions`` of a program with symbolic sizes (``dynamic_shapes``): the
graph is decomposed at the example sizes, with each symbol grown by one, and with all
grown by two (a check); each size a call is given, and each value's shape, is the
polynomial of the symbols fitted to these writes. A size that is a symbol is its input's
``sym_size`` node (a symbol shared by inputs: of the input PyTorch reads it from), written
after the placeholders; the program's own size arithmetic stays in its place, and another
multiple of a symbol is an ``operator`` node written before its first reader, read again
wherever the same size is given, as PyTorch's common subexpressions are. A product of
symbols is refused: PyTorch numbers such programs' names after sizes its retrace drops."""

from __future__ import annotations

import operator
from typing import Any

import chainrule

from ..fx import Graph, Node
from ._decompose import _SIZE_ARITHMETIC, inputs_of, program, write
from ._dynamic import symbol_id
from ._reader import ATEN
from ._sym_sizes import Poly, fitted, match
from .graph_signature import InputKind


def _places(ep: Any) -> dict[str, list[tuple[str, int]]]:
    """Each symbol's places: (user input placeholder, dim) whose size it is."""
    symbols = [str(k) for k in ep.range_constraints]
    if any(not s.startswith("s") for s in symbols):
        raise NotImplementedError(
            "run_decompositions of a program with sizes from Tensor.item (unbacked "
            "symbols) is not written yet; decompose a program without them"
        )
    user = {s.arg.name for s in ep.graph_signature.input_specs if s.kind == InputKind.USER_INPUT}
    places: dict[str, list[tuple[str, int]]] = {s: [] for s in symbols}
    for node in ep.graph.nodes:
        meta = node.meta.get("tensor_meta")
        if node.op != "placeholder" or node.name not in user or meta is None:
            continue
        for d, size in enumerate(meta.shape):
            if isinstance(size, str) and size in places:
                places[size].append((node.name, d))
    return {s: sorted(p, key=lambda place: place != _read_at(s, p)) for s, p in places.items()}


def _read_at(symbol: str, places: list[tuple[str, int]]) -> tuple[str, int] | None:
    """The place PyTorch reads a shared symbol's size at: the one whose source
    (``L['x'].size()[0]``) gave the symbol its number, the lowest of its sources."""
    numbers = [(symbol_id(f"L['{name}'].size()[{d}]", set()), (name, d)) for name, d in places]
    found = [place for number, place in numbers if f"s{number}" == symbol]
    return found[0] if found else None


def _grown(
    values: dict[str, Any], places: dict[str, list[tuple[str, int]]], by: dict[str, int]
) -> dict[str, Any]:
    """The inputs with each symbol's sizes larger by ``by[symbol]`` (the first slice
    repeated at the end)."""
    grown = dict(values)
    for symbol, extra in by.items():
        for name, d in places[symbol]:
            t = grown[name]
            index = list(range(int(t.shape[d]))) + [0] * extra
            grown[name] = t.index_select(d, chainrule.tensor(index)).detach()
    return grown


class _Fit:
    """Fits the values of the writes, position by position, to polynomials."""

    def __init__(self, sizes: list[dict[str, int]], names: list[str]) -> None:
        self.sizes = sizes
        self.names = names

    def poly(self, values: list[int], what: str) -> Poly:
        poly = fitted(values, self.sizes, self.names, [])
        products = [Poly.symbol(a) * Poly.symbol(b) for a in self.names for b in self.names]
        product = match(values, self.sizes, products) if poly is None else None
        if product is not None:
            # (PyTorch's retrace computes and drops sizes of each value's storage, and its
            # names, mul_85 ..., count them: not followed yet, so not written)
            raise NotImplementedError(
                f"run_decompositions: the size {product} of {what} is a product of dynamic "
                "sizes (attention over a dynamic batch and length); PyTorch names such a "
                "program's nodes after size computations its retrace drops, which "
                "chainrule does not follow yet; decompose a program exported with static "
                "shapes"
            )
        if poly is None:
            raise NotImplementedError(
                f"run_decompositions: a size of {what} is not a sum of multiples of the "
                "dynamic sizes; decompose a program exported with static shapes"
            )
        return poly

    def arg(self, values: list[Any], what: str) -> Any:
        """The argument: as in the first write, a non-constant int as its ``Poly``."""
        first = values[0]
        if isinstance(first, Node):
            if any(not isinstance(v, Node) or v.name != first.name for v in values):
                raise _differs(what)
            return first
        if isinstance(first, (list, tuple)):
            if any(not isinstance(v, (list, tuple)) or len(v) != len(first) for v in values):
                raise _differs(what)
            items = [self.arg([v[i] for v in values], what) for i in range(len(first))]
            return type(first)(items)
        if isinstance(first, dict):
            return {k: self.arg([v[k] for v in values], what) for k in first}
        if all(type(v) is type(first) and v == first for v in values):
            return first
        if type(first) is int and all(type(v) is int for v in values):
            poly = self.poly(values, what)
            return poly.terms.get((), 0) if poly.is_constant() else poly
        raise _differs(what)

    def shape(self, shapes: list[list[int]], what: str) -> list[Any]:
        out: list[Any] = []
        for d in range(len(shapes[0])):
            poly = self.poly([int(s[d]) for s in shapes], what)
            out.append(poly.terms.get((), 0) if poly.is_constant() else str(poly))
        return out


def _differs(what: str) -> NotImplementedError:
    return NotImplementedError(
        f"run_decompositions: the decomposition of {what} is not the same at other "
        "dynamic sizes (a size of 1, or a branch on a size?); decompose a program "
        "exported with static shapes"
    )


def _metas(node: Node) -> list[Any]:
    meta = node.meta.get("tensor_meta")
    return ([meta] if meta is not None else []) + list(node.meta.get("output_metas", ()))


class _Sizes:
    """The nodes of the symbolic sizes in the graph, one per expression."""

    def __init__(
        self, graph: Graph, places: dict[str, list[tuple[str, int]]], names: dict[str, str]
    ) -> None:
        self.graph = graph
        self.places = places
        self.names = names  # (the program's own sym_size node of a symbol keeps its name)
        self.made: dict[str, Node] = {}
        self.symbols: list[str] = []

    def symbol(self, name: str) -> Node:
        """The ``sym_size`` node of the symbol (placed later, after the placeholders)."""
        if name not in self.made:
            placeholder, d = self.places[name][0]
            x = next(n for n in self.graph.nodes if n.name == placeholder)
            node = self.graph.create_node(
                "call_function",
                ATEN.overload("aten.sym_size.int"),
                (x, d),
                {},
                name=self.names.get(name, "sym_size_int"),
            )
            node.meta["sym_expr"] = name
            node.meta["arg_names"] = ["self", "dim"]
            self.made[name] = node
            self.symbols.append(name)
        return self.made[name]

    def node(self, poly: Poly) -> Node:
        """``poly`` as a node (``s``, ``s * a``, ``s * t``, plus a constant)."""
        text = str(poly)
        if text in self.made:
            return self.made[text]
        constant = poly.terms.get((), 0)
        if constant:
            rest = Poly({m: a for m, a in poly.terms.items() if m != ()})
            return self._arithmetic(operator.add, self.node(rest), constant, text)
        if len(poly.terms) != 1:
            raise NotImplementedError(
                f"run_decompositions: the size {text} is a sum of several dynamic sizes, "
                "which this decomposition does not write yet"
            )
        ((m, a),) = poly.terms.items()
        if a == 1 and len(m) == 1:
            return self.symbol(m[0])
        if a != 1:
            return self._arithmetic(operator.mul, self.node(Poly({m: 1})), a, text)
        head, last = Poly({m[:-1]: 1}), Poly.symbol(m[-1])
        return self._arithmetic(operator.mul, self.node(head), self.node(last), text)

    def _arithmetic(self, op: Any, a: Any, b: Any, text: str) -> Node:
        node = self.graph.create_node("call_function", op, (a, b), {}, name=op.__name__)
        node.meta["sym_expr"] = text
        node.meta["arg_names"] = ["a", "b"]
        self.made[text] = node
        return node


def _resolved(value: Any, sizes: _Sizes) -> Any:
    if isinstance(value, Poly):
        return sizes.node(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_resolved(v, sizes) for v in value)
    if isinstance(value, dict):
        return {k: _resolved(v, sizes) for k, v in value.items()}
    return value


def _has_poly(value: Any) -> bool:
    if isinstance(value, Poly):
        return True
    if isinstance(value, (list, tuple)):
        return any(_has_poly(v) for v in value)
    if isinstance(value, dict):
        return any(_has_poly(v) for v in value.values())
    return False


def symbolic(ep: Any, table: dict) -> Any:
    """``run_decompositions`` of ``ep``, whose sizes are symbols."""
    places = _places(ep)
    names = list(places)
    if any(not p for p in places.values()):
        raise NotImplementedError(
            "run_decompositions: a symbol of the program is no input's size; decompose a "
            "program exported with static shapes"
        )
    values = inputs_of(ep)
    start = {s: int(values[p[0][0]].shape[p[0][1]]) for s, p in places.items()}
    runs = [start] + [{**start, s: start[s] + 1} for s in names]
    runs.append({s: v + 2 for s, v in start.items()})
    writes = []
    for sizes in runs:
        by = {s: sizes[s] - start[s] for s in names if sizes[s] != start[s]}
        writes.append(write(ep, table, _grown(values, places, by)))
    graph, mutations, outputs = writes[0]
    fit = _Fit(runs, names)
    others = [list(w[0].nodes) for w in writes[1:]]
    nodes = list(graph.nodes)
    if any(len(o) != len(nodes) for o in others):
        raise _differs("the program")
    rewritten: list[tuple[Node, Any, Any]] = []
    for i, node in enumerate(nodes):
        same = [o[i] for o in others]
        if any(o.name != node.name or o.target != node.target for o in same):
            raise _differs(node.name)
        if node.op == "call_function":
            args = fit.arg([node.args] + [o.args for o in same], node.name)
            kwargs = fit.arg([node.kwargs] + [o.kwargs for o in same], node.name)
            if _has_poly(args) or _has_poly(kwargs):
                rewritten.append((node, args, kwargs))
        if node.op != "call_function":
            continue  # (the placeholders' shapes are the program's own)
        for j, meta in enumerate(_metas(node)):
            shapes = [list(meta.shape)] + [list(_metas(o)[j].shape) for o in same]
            meta.shape = fit.shape(shapes, node.name)
    own = {
        n.meta["sym_expr"]: n.name
        for n in ep.graph.nodes
        if str(n.target) == "aten.sym_size.int" and n.meta.get("sym_expr") in places
    }
    sizes = _Sizes(graph, places, own)
    kept = _kept_arithmetic(ep, graph, sizes)
    for node, args, kwargs in rewritten:
        with graph.inserting_before(node):
            node.args, node.kwargs = _resolved(args, sizes), _resolved(kwargs, sizes)
    _settle(graph, kept)
    _place_symbols(graph, sizes)
    return program(ep, graph, mutations, outputs)


def _kept_arithmetic(ep: Any, graph: Graph, sizes: _Sizes) -> list[Node]:
    """The program's own size arithmetic (``5 * sym_size_int``), written as PyTorch's
    retrace runs it again: in its place, before the calls of the node after it, with its
    operands in their order; a size it computes is read from it."""
    first: dict[str, Node] = {}
    for node in graph.nodes:
        first.setdefault(node.meta.get("decomposed_from"), node)
    own = list(ep.graph.nodes)
    kept: list[Node] = []
    written: dict[Node, Node] = {}
    for i, node in enumerate(own):
        if node.target not in _SIZE_ARITHMETIC or "sym_expr" not in node.meta:
            continue
        after = next((n for n in own[i + 1 :] if n.name in first), None)
        anchor = first[after.name] if after is not None else _output(graph)
        args = []
        for a in node.args:
            if isinstance(a, Node) and a in written:
                args.append(written[a])
            elif isinstance(a, Node) and str(a.target) == "aten.sym_size.int":
                with graph.inserting_before(anchor):
                    args.append(sizes.symbol(a.meta["sym_expr"]))
            elif isinstance(a, Node):
                break  # (an operand this decomposition does not know)
            else:
                args.append(a)
        else:
            text = node.meta["sym_expr"]
            if text not in sizes.made:
                with graph.inserting_before(anchor):
                    kept.append(sizes._arithmetic(node.target, *args, text))
            written[node] = sizes.made[text]
    return kept


def _output(graph: Graph) -> Node:
    return next(n for n in graph.nodes if n.op == "output")


def _settle(graph: Graph, kept: list[Node]) -> None:
    """Drops the kept arithmetic nothing reads; one read before its place moves there."""
    for node in reversed(kept):
        if not node.users:
            graph.erase_node(node)
    order = {n: i for i, n in enumerate(graph.nodes)}
    for node in kept:
        if node.users:
            reader = min(node.users, key=lambda n: order[n])
            if order[reader] < order[node]:
                reader.prepend(node)


def _place_symbols(graph: Graph, sizes: _Sizes) -> None:
    """The ``sym_size`` nodes moved to just after the placeholders, in order."""
    symbols = [sizes.made[name] for name in sizes.symbols]
    first = next(n for n in graph.nodes if n.op != "placeholder" and n not in symbols)
    for node in symbols:
        first.prepend(node)
