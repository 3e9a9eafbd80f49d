"""Sizes a forward reads from a traced tensor under ``dynamic_shapes`` (``x.size(0)``,
``x.shape``, ``b * t``): ints that remember how they were made, so that a size passed to
an op is written as PyTorch writes it, an ``aten.sym_size.int`` node of the input the
symbol comes from and ``operator`` nodes for the arithmetic on it.

A trace records each size read (and each result of arithmetic on one) in order; the traces
at grown sizes give each one as a polynomial in the symbols (``Poly``). The last trace
writes the nodes: a size that is a constant stays an int, a symbol is its ``sym_size``
node, an expression is computed once (PyTorch's common subexpressions) where first used."""

from __future__ import annotations

import operator
from typing import Any

from ._reader import ATEN
from ._translations_more import FullEnd

Monomial = tuple[str, ...]  # the symbols multiplied, sorted (() for the constant)


class Poly:
    """An integer polynomial in the symbols (sizes are sums of products of symbols)."""

    def __init__(self, terms: dict[Monomial, int]) -> None:
        self.terms = {m: a for m, a in terms.items() if a != 0}

    @staticmethod
    def constant(value: int) -> Poly:
        return Poly({(): value})

    @staticmethod
    def symbol(name: str) -> Poly:
        return Poly({(name,): 1})

    def is_constant(self) -> bool:
        return all(m == () for m in self.terms)

    def value(self, sizes: dict[str, int]) -> int:
        total = 0
        for m, a in self.terms.items():
            for name in m:
                a *= sizes[name]
            total += a
        return total

    def __add__(self, other: Poly) -> Poly:
        terms = dict(self.terms)
        for m, a in other.terms.items():
            terms[m] = terms.get(m, 0) + a
        return Poly(terms)

    def __mul__(self, other: Poly) -> Poly:
        terms: dict[Monomial, int] = {}
        for m, a in self.terms.items():
            for n, b in other.terms.items():
                key = tuple(sorted(m + n))
                terms[key] = terms.get(key, 0) + a * b
        return Poly(terms)

    def scaled(self, factor: int) -> Poly:
        return Poly({m: a * factor for m, a in self.terms.items()})

    def divided(self, divisor: int) -> Poly | None:
        """The exact quotient, or None when some coefficient is not a multiple."""
        if divisor == 0 or any(a % divisor for a in self.terms.values()):
            return None
        return Poly({m: a // divisor for m, a in self.terms.items()})

    def __str__(self) -> str:
        """As sympy prints it: terms by descending lexicographic exponents of the sorted
        symbols (``s27*s77 + 2*s77 + 1``)."""
        names = sorted({n for m in self.terms for n in m})

        def key(m: Monomial) -> tuple[int, ...]:
            return tuple(m.count(n) for n in names)

        parts: list[str] = []
        for m in sorted(self.terms, key=key, reverse=True):
            a = self.terms[m]
            factor = "*".join(_power(n, m.count(n)) for n in sorted(set(m)))
            body = str(abs(a)) if not factor else factor if abs(a) == 1 else f"{abs(a)}*{factor}"
            if not parts:
                parts.append(body if a > 0 else f"-{body}")
            else:
                parts.append(f"{'+' if a > 0 else '-'} {body}")
        return " ".join(parts) if parts else "0"


def _power(name: str, n: int) -> str:
    return name if n == 1 else f"{name}**{n}"


# the arithmetic on sizes PyTorch writes as ``operator`` nodes
_ARITHMETIC = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "floordiv": operator.floordiv,
}


class SymSize(int):
    """A size read from a traced tensor, or computed from such sizes; ``how`` is
    ``("size",)`` for a read, ``(op, a, b)`` for arithmetic."""

    index: int
    how: tuple
    record: SizeRecord

    def __new__(cls, value: int, record: SizeRecord, how: tuple) -> SymSize:
        obj = super().__new__(cls, value)
        obj.record = record
        obj.how = how
        obj.index = record.add(obj)
        return obj

    def _op(self, op: str, other: Any, swap: bool = False) -> Any:
        if not isinstance(other, int):
            return NotImplemented  # (a tensor's reflected operator, or a float's)
        a, b = (other, self) if swap else (self, other)
        return SymSize(_ARITHMETIC[op](int(a), int(b)), self.record, (op, a, b))

    def __add__(self, o: Any) -> Any:
        return self._op("add", o)

    def __radd__(self, o: Any) -> Any:
        return self._op("add", o, True)

    def __sub__(self, o: Any) -> Any:
        return self._op("sub", o)

    def __rsub__(self, o: Any) -> Any:
        return self._op("sub", o, True)

    def __mul__(self, o: Any) -> Any:
        return self._op("mul", o)

    def __rmul__(self, o: Any) -> Any:
        return self._op("mul", o, True)

    def __floordiv__(self, o: Any) -> Any:
        return self._op("floordiv", o)

    def __rfloordiv__(self, o: Any) -> Any:
        return self._op("floordiv", o, True)


class SizeRecord:
    """The sizes one trace read, in order; for the writing trace, each one's polynomial
    (``plan``) and the nodes made so far (by the text of their expression)."""

    def __init__(
        self, plan: list[Poly] | None = None, full_slices: list[frozenset] | None = None
    ) -> None:
        self.sizes: list[SymSize] = []
        self.plan = plan
        self.indexed: list[tuple[int, ...]] = []  # (the shape of each x[...] indexed)
        self.full_slices = full_slices  # (per x[...]: its dynamic dims, from the traces)
        self.made: dict[str, Any] = {}
        self.by_index: dict[int, Any] = {}
        self.constants: list[tuple[str, SymSize]] = []  # (sizes given to untraced calls)
        self.guards: list[tuple[tuple[SymSize, ...], Any]] = []  # (see ``dropped``)
        self.guarded: set[tuple[str, ...]] = set()
        self.plus: set[int] = set()  # (reads an op's translation writes as ``c + s``)

    def full_slice_dims(self, shape: tuple) -> frozenset:
        """The dims of the tensor indexed by the forward's next ``x[...]`` whose size is
        dynamic (PyTorch's export writes a full ``:`` there as a ``slice`` node), known
        once the traces at grown sizes were compared; each call's shape is noted."""
        k = len(self.indexed)
        self.indexed.append(tuple(int(s) for s in shape))
        return self.full_slices[k] if self.full_slices is not None else frozenset()

    def dropped(self, sizes: tuple[SymSize, ...], names: Any, graph: Any) -> None:
        """A check PyTorch's trace makes on values of these sizes (a ``contiguous``'s
        strides): it makes nodes and then drops them, taking their names. ``names`` gives
        them from which of ``sizes`` are dynamic; the writing trace takes them now, once
        per pattern of sizes (PyTorch's trace keeps what its checks found)."""
        self.guards.append((sizes, names))
        if self.plan is None:
            return
        for name in self._names(sizes, names, self.plan, self.guarded):
            graph.erase_node(
                graph.create_node("call_function", operator.mul, (0, 0), {}, name=name)
            )

    def dropped_reads(self, polys: list[Poly]) -> int:
        """How many ``sym_size`` nodes the checks of this trace took (``dropped``)."""
        seen: set[tuple[str, ...]] = set()
        names = [n for sizes, rule in self.guards for n in self._names(sizes, rule, polys, seen)]
        return names.count("sym_size_int")

    @staticmethod
    def _names(sizes: tuple, rule: Any, polys: list[Poly], seen: set) -> list[str]:
        texts = tuple(str(polys[s.index]) for s in sizes)
        dynamic = tuple(not polys[s.index].is_constant() for s in sizes)
        # (a rule whose check PyTorch's trace makes again for these sizes is taken again)
        again = getattr(rule, "repeats", lambda dynamic: False)(dynamic)
        key = (repr(rule) + (f" {id(rule)}" if again else ""), *texts)
        if key in seen or not any(dynamic):
            return []
        seen.add(key)
        # (a rule that tells sizes apart by their expressions is given those too)
        return rule(dynamic, texts) if getattr(rule, "by_text", False) else rule(dynamic)

    def add(self, size: SymSize) -> int:
        self.sizes.append(size)
        return len(self.sizes) - 1

    def numel(self, out: int, shape: tuple, node: Any) -> SymSize:
        """``x.numel()``: ``node`` is the input placeholder it reads (PyTorch's
        ``sym_numel`` node), None for an intermediate value."""
        return SymSize(int(out), self, ("numel", node, tuple(int(s) for s in shape)))

    def read(self, out: Any) -> Any:
        """``x.size()``/``x.shape`` (a Size) or ``x.size(d)`` as recorded sizes."""
        if isinstance(out, tuple):
            return type(out)(SymSize(int(s), self, ("size",)) for s in out)
        return SymSize(int(out), self, ("size",))

    def written(self, size: SymSize, graph: Any) -> Any:
        """``size`` as a node argument of the writing trace: an int, or the node that
        computes it (made on first use, before the node that reads it)."""
        poly = self.plan[size.index]
        if poly.is_constant():
            return poly.terms.get((), 0)
        text = str(poly)
        if size.index in self.by_index:
            return self.by_index[size.index]
        if size.how[0] == "numel":
            return self._numel(size, poly, text, graph)
        if text in self.made:
            if size.how[0] != "size":
                # PyTorch's trace wrote this computation again before finding it a common
                # subexpression: its name is taken
                graph.erase_node(
                    graph.create_node(
                        "call_function", _ARITHMETIC[size.how[0]], (0, 0), {}, name=size.how[0]
                    )
                )
            self.by_index[size.index] = self.made[text]
            return self.made[text]
        if size.how[0] == "size":
            # a size of an intermediate value, ``a * s``: reified from the input's size
            plus = size.index in self.plus
            self.by_index[size.index] = self._monomial(poly, graph, plus)
            return self.by_index[size.index]
        else:
            op = _ARITHMETIC[size.how[0]]
            args = tuple(
                self.written(v, graph) if isinstance(v, SymSize) else v for v in size.how[1:]
            )
        node = graph.create_node("call_function", op, args, {}, name=op.__name__)
        node.meta["sym_expr"] = text
        node.meta["arg_names"] = ["a", "b"]
        self.made[text] = self.by_index[size.index] = node
        return node

    def _numel(self, size: SymSize, poly: Poly, text: str, graph: Any) -> Any:
        """A numel read: PyTorch's trace made a ``sym_numel`` node for it (taking its
        name), which stays for an input's numel that is no one symbol; otherwise the
        value already made, or one computed from the inputs' sizes."""
        node = graph.create_node(
            "call_function",
            ATEN.overload("aten.sym_numel.default"),
            (size.how[1],),
            {},
            name="sym_numel_default",
        )
        if text in self.made or not _kept_numel(size, poly):
            graph.erase_node(node)
            value = self.made[text] if text in self.made else self._monomial(poly, graph)
        else:
            node.meta["sym_expr"] = text
            node.meta["arg_names"] = ["self"]
            self.made[text] = value = node
        self.by_index[size.index] = value
        return value

    def _monomial(self, poly: Poly, graph: Any, plus: bool = False) -> Any:
        """``poly`` (``s``, ``a * s`` or ``s * t``) computed from the inputs' sizes; with
        ``plus``, ``s + c`` too (written ``c + s``, as PyTorch writes a size it found
        grown by a constant inside an op)."""
        text = str(poly)
        if text in self.made:
            return self.made[text]
        shift = poly.terms.get((), 0)
        if plus and shift > 0 and len(poly.terms) == 2:
            ((m, a),) = [(m, a) for m, a in poly.terms.items() if m]
            if a == 1 and len(m) == 1 and m[0] in self.made:
                args = (shift, self.made[m[0]])
                node = graph.create_node("call_function", operator.add, args, {}, name="add")
                node.meta["sym_expr"] = text
                node.meta["arg_names"] = ["a", "b"]
                self.made[text] = node
                return node
        ((m, a),) = poly.terms.items() if len(poly.terms) == 1 else ((("",), 0),)
        factors: list[Any] = ([a] if a != 1 else []) + [self.made.get(n) for n in m]
        if len(factors) != 2 or None in factors:
            raise NotImplementedError(
                f"chainrule.export: a size read by the forward is {text}, which this "
                "export writes only as a multiple of one dynamic size or a product of two; "
                "read the sizes from the input instead"
            )
        node = graph.create_node("call_function", operator.mul, tuple(factors), {}, name="mul")
        node.meta["sym_expr"] = text
        node.meta["arg_names"] = ["a", "b"]
        self.made[text] = node
        return node


def _kept_numel(size: SymSize, poly: Poly) -> bool:
    """Whether PyTorch keeps the ``sym_numel`` node of this read: an input's numel that is
    not one symbol (one symbol is that size's ``sym_size`` node)."""
    return size.how[1] is not None and not (
        len(poly.terms) == 1 and poly.terms.get((str(poly),)) == 1
    )


def polynomials(
    records: list[SizeRecord], symbol_values: list[dict[str, int]], grown: list[str]
) -> list[Poly]:
    """Each recorded size as a polynomial in the symbols, from the same reads in traces at
    the ``symbol_values`` of each record (base, one symbol grown by one each for the
    symbols ``grown``, then all grown by two as the check)."""
    base = records[0].sizes
    if any(len(r.sizes) != len(base) for r in records):
        raise NotImplementedError(
            "chainrule.export: the forward reads a different number of sizes at other "
            "dynamic sizes (a branch on a size?)"
        )
    polys: list[Poly] = []
    for i, size in enumerate(base):
        values = [int(r.sizes[i]) for r in records]
        if size.how[0] == "size":
            poly = fitted(values, symbol_values, grown, polys)
        elif size.how[0] == "numel":
            poly = Poly.constant(1)
            for d in range(len(size.how[2])):
                dims = [r.sizes[i].how[2][d] for r in records]
                factor = fitted(dims, symbol_values, grown, polys)
                poly = None if poly is None or factor is None else poly * factor
        else:
            operands = [
                polys[v.index] if isinstance(v, SymSize) else Poly.constant(v) for v in size.how[1:]
            ]
            poly = _combined(size.how[0], *operands)
        if poly is None or any(poly.value(s) != v for s, v in zip(symbol_values, values)):
            raise NotImplementedError(
                "chainrule.export: a size the forward reads or computes is not a polynomial "
                "of the dynamic sizes this export can write"
            )
        polys.append(poly)
    return polys


def _combined(op: str, a: Poly, b: Poly) -> Poly | None:
    if op == "add":
        return a + b
    if op == "sub":
        return a + b.scaled(-1)
    if op == "mul":
        return a * b
    if b.is_constant():  # floordiv: exact only
        return a.divided(b.terms.get((), 0))
    return None


def fitted(
    values: list[int], symbol_values: list[dict[str, int]], grown: list[str], known: list[Poly]
) -> Poly | None:
    """The affine polynomial through the values (or a known size with the same values,
    such as a product of symbols)."""
    base = values[0]
    steps = [v - base for v in values[1 : 1 + len(grown)]]
    poly = Poly.constant(base)
    for name, a in zip(grown, steps):
        poly = poly + Poly({(name,): a, (): -a * symbol_values[0][name]})
    if all(poly.value(s) == v for s, v in zip(symbol_values, values)):
        return poly
    return match(values, symbol_values, known)


def match(values: list[int], symbol_values: list[dict[str, int]], known: list[Poly]) -> Any:
    """A known polynomial taking ``values`` at every trace's symbol values, or None."""
    for poly in known:
        if all(poly.value(s) == v for s, v in zip(symbol_values, values)):
            return poly
    return None


def forced(graph: Any) -> list[SymSize]:
    """The recorded sizes a trace's nodes read, in order (what the writing trace makes
    nodes for)."""
    found: list[SymSize] = []

    def visit(value: Any) -> None:
        if isinstance(value, SymSize):
            found.append(value)
        elif isinstance(value, (list, tuple)):
            for v in value:
                visit(v)
        elif isinstance(value, dict):
            for v in value.values():
                visit(v)

    for node in graph.nodes:
        visit(node.args)
        visit(node.kwargs)
    return found


def leaf_count(sizes: list[SymSize], polys: list[Poly]) -> tuple[int, set[str]]:
    """How many distinct symbolic size reads the forced sizes reach (PyTorch's trace made a
    ``sym_size`` node for each, which numbers the ones it keeps), and the symbols they
    name."""
    reads: set[str] = set()
    symbols: set[str] = set()

    def visit(size: SymSize) -> None:
        poly = polys[size.index]
        if poly.is_constant() or (size.how[0] == "numel" and _kept_numel(size, poly)):
            return
        if size.how[0] in ("size", "numel"):
            symbols.update(n for m in poly.terms for n in m)
            if size.how[0] == "size":
                reads.add(str(poly))
            return
        for v in size.how[1:]:
            if isinstance(v, SymSize):
                visit(v)

    for size in sizes:
        visit(size)
    return len(reads), symbols


def sizes_in(value: Any) -> list[SymSize]:
    """The recorded sizes in a call's arguments (nested lists, tuples and dicts)."""
    if isinstance(value, SymSize):
        return [value]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in sizes_in(v)]
    if isinstance(value, dict):
        return [s for v in value.values() for s in sizes_in(v)]
    return []


def check_constants(record: SizeRecord, polys: list[Poly]) -> None:
    """Refuses a tensor made by a call the export keeps as a constant (not one of its
    factories) from a size that changes with the dynamic sizes: the constant would keep
    the example's size."""
    for name, size in record.constants:
        if not polys[size.index].is_constant():
            raise NotImplementedError(
                f"chainrule.export cannot export the call {name} with a dynamic size "
                f"({polys[size.index]}): make the tensor with torch.zeros, ones, full or "
                "empty, or a traced tensor's new_zeros/new_ones/new_full/new_empty"
            )


def full_slices(records: list[SizeRecord]) -> list[frozenset]:
    """Per ``x[...]`` of the forward: the dims whose size changed between the traces."""
    base = records[0].indexed
    if any(len(r.indexed) != len(base) for r in records):
        raise NotImplementedError(
            "chainrule.export: the forward indexes a different number of times at other "
            "dynamic sizes (a branch on a size?)"
        )
    return [
        frozenset(d for d in range(len(shape)) if any(r.indexed[k][d] != shape[d] for r in records))
        for k, shape in enumerate(base)
    ]


def unmark_full_slices(graph: Any) -> list:
    """The ``slice`` nodes of full ``:`` on dynamic dims, in order, their ends made plain
    ints."""
    marked = []
    for node in graph.nodes:
        if node.op == "call_function" and len(node.args) == 4 and type(node.args[3]) is FullEnd:
            node.args = (*node.args[:3], int(node.args[3]))
            marked.append(node)
    return marked
