"""``t.item()`` of a traced integer tensor: PyTorch's unbacked symbol (``u0``), the value
of an ``aten.item`` node. The value may be a scalar operand of an elementwise op, take
Python arithmetic with ints (``operator`` nodes, ``item + 1``), be checked
(``torch._check(n >= 0)``, ``torch._check_is_size(n)``) and be a size (``torch.zeros(n)``,
``y.new_zeros(n)``, ``y.narrow(0, 0, n)``, ``y[:n]``).

A symbol's range is narrowed by the checks and by the sizes it gives (a size is at least
0, a narrowed length at most what is left of the dim); the trace ends with PyTorch's range
checks after each ``item`` node (``ge``/``le`` nodes, ``aten._assert_scalar``). The sizes
of the values made from a symbol come from traces with each symbol's value moved by one
(``fitted_shapes``)."""

from __future__ import annotations

import operator
from typing import Any

from ._reader import ATEN
from ._sym_sizes import Poly, SymSize

# the ops an ``item()`` value may be passed to, as a scalar operand (no size)
_ITEM_OPERANDS = frozenset(
    ("add.Tensor", "sub.Tensor", "mul.Tensor", "div.Tensor", "rsub.Scalar", "pow.Tensor_Scalar")
)
# the factories taking a size list: the position of the list
_FACTORIES = {
    "zeros.default": 0,
    "ones.default": 0,
    "empty.memory_format": 0,
    "full.default": 0,
    "new_zeros.default": 1,
    "new_ones.default": 1,
    "new_empty.default": 1,
    "new_full.default": 1,
}
_ARITHMETIC = {"add": operator.add, "sub": operator.sub, "mul": operator.mul}
_COMPARISONS = {"ge": (operator.ge, ">="), "le": (operator.le, "<=")}


class Unbacked:
    """One trace's ``item()`` symbols: their ``item`` nodes, ranges (None: unbounded) and
    the values they take in this trace (moved by ``shifts`` in the fitting traces)."""

    def __init__(self, graph: Any, shifts: dict[str, int] | None = None) -> None:
        self.graph = graph
        self.shifts = shifts or {}
        self.nodes: dict[str, Any] = {}
        self.lower: dict[str, int | None] = {}
        self.upper: dict[str, int | None] = {}
        self.values: dict[str, int] = {}
        self.sized = False  # (a symbol is a size: the fitting traces are needed)
        self.loops: list[str] = []  # (the symbols PyTorch leaves for while loops)
        self.outputs: dict[str, Any] = {}  # (sizes of nonzero, x[x > 0]: _data_dependent)

    @property
    def symbols(self) -> list[str]:
        return list(self.nodes)

    def _next(self) -> str:
        # (item() values and while loops share PyTorch's numbering, in trace order)
        return f"u{len(self.nodes) + len(self.loops)}"

    def reserve(self, count: int) -> None:
        """``count`` symbols for a while loop reading a parameter (``VR[1, int_oo]``)."""
        for _ in range(count):
            self.loops.append(self._next())

    def new(self, value: int, source: Any) -> ItemValue:
        """The symbol of a new ``aten.item`` node reading ``source``."""
        name = self._next()
        node = self.graph.create_node(
            "call_function", ATEN.overload("aten.item.default"), (source,), {}, name="item"
        )
        node.meta["sym_expr"] = name
        node.meta["arg_names"] = ["self"]
        self.nodes[name] = node
        self.lower[name] = self.upper[name] = None
        self.values[name] = value + self.shifts.get(name, 0)
        return ItemValue(self.values[name], node, Poly.symbol(name), self)

    def narrow(self, name: str, lower: int | None = None, upper: int | None = None) -> None:
        """The range of ``name`` intersected with ``[lower, upper]``."""
        if lower is not None:
            old = self.lower[name]
            self.lower[name] = lower if old is None else max(old, lower)
        if upper is not None:
            old = self.upper[name]
            self.upper[name] = upper if old is None else min(old, upper)

    def ranges(self) -> dict[str, tuple[Any, Any]]:
        """Each symbol's range as PyTorch prints it (``-int_oo``/``int_oo`` unbounded), a
        while loop's ``[1, int_oo]``, in PyTorch's order."""
        out: dict[str, tuple[Any, Any]] = {name: (1, "int_oo") for name in self.loops}
        for name in self.nodes:
            out[name] = (
                "-int_oo" if self.lower[name] is None else self.lower[name],
                "int_oo" if self.upper[name] is None else self.upper[name],
            )
        return dict(sorted(out.items(), key=lambda kv: int(kv[0][1:])))

    def write_checks(self) -> None:
        """PyTorch's runtime checks of each symbol's range, right after its ``item`` node:
        ``ge``/``le`` nodes asserted by ``aten._assert_scalar``."""
        assert_scalar = ATEN.overload("aten._assert_scalar.default")
        for name, item in self.nodes.items():
            if name in self.outputs:  # (a result's size: its sym_size node)
                item = self.nodes[name] = self.outputs[name].size_node(self.graph)
            last = item
            for op, bound in (("ge", self.lower[name]), ("le", self.upper[name])):
                if bound is None:
                    continue
                fn, sign = _COMPARISONS[op]
                with self.graph.inserting_after(last):
                    test = self.graph.create_node("call_function", fn, (item, bound), {}, name=op)
                test.meta.update(sym_expr=f"{name} {sign} {bound}", sym_bool=True)
                test.meta["arg_names"] = ["a", "b"]
                message = f"Runtime assertion failed for expression {name} {sign} {bound} on node "
                with self.graph.inserting_after(test):
                    last = self.graph.create_node(
                        "call_function",
                        assert_scalar,
                        (test, f"{message}'{test.name}'"),
                        {},
                        name="_assert_scalar_default",
                    )
                last.meta["arg_names"] = ["self", "assert_msg"]

    def shifted(self) -> list[dict[str, int]]:
        """Per symbol, the shift of its value for a fitting trace: one up, or one down
        where its range ends at the value."""
        out = []
        for name, value in self.values.items():
            upper, lower = self.upper[name], self.lower[name]
            step = 1 if upper is None or value + 1 <= upper else -1
            if lower is not None and value + step < lower:
                raise NotImplementedError(
                    f"chainrule.export: the range of {name} (Tensor.item) holds one value, "
                    "which this export does not write as a symbol; use the number itself"
                )
            out.append({name: step})
        return out


def _guard(what: str) -> Exception:
    from ..fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode

    return GuardOnDataDependentSymNode(
        what,
        f"Could not guard on data-dependent expression {what}: the forward reads the "
        "value of a Tensor.item into Python (a branch, int(), an index). Check its range "
        "with torch._check (torch._check(n >= 0)) or keep the computation in tensors.",
    )


def _plain_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, (bool, SymSize))


class ItemValue:
    """A value made from ``item()`` symbols: ``poly`` of them, the ``node`` computing it;
    ``value`` is this trace's number."""

    def __init__(self, value: int, node: Any, poly: Poly, unbacked: Unbacked) -> None:
        self.value = value
        self.node = node
        self.poly = poly
        self.unbacked = unbacked

    @property
    def symbol(self) -> str | None:
        """The symbol this value is, or None for arithmetic on symbols."""
        ((m, a),) = self.poly.terms.items() if len(self.poly.terms) == 1 else (((), 0),)
        return m[0] if len(m) == 1 and a == 1 else None

    def _arithmetic(self, op: str, other: Any, swap: bool = False) -> Any:
        from .._tensor import Tensor

        if isinstance(other, Tensor):
            return NotImplemented  # (the tensor's reflected operator records the call)
        if isinstance(other, ItemValue):
            b_poly, b_arg, b_value = other.poly, other.node, other.value
        elif _plain_int(other):
            b_poly, b_arg, b_value = Poly.constant(other), other, other
        else:
            raise NotImplementedError(
                f"chainrule.export cannot export Tensor.item's value {self.node.name} in "
                f"Python arithmetic with {type(other).__name__} {other!r} yet (PyTorch makes a "
                "float symbol, or reads a dynamic size); use ints, or keep it in tensors"
            )
        a, b = (b_poly, self.poly) if swap else (self.poly, b_poly)
        poly = a + b if op == "add" else a + b.scaled(-1) if op == "sub" else a * b
        args = (b_arg, self.node) if swap else (self.node, b_arg)
        values = (b_value, self.value) if swap else (self.value, b_value)
        graph = self.unbacked.graph
        node = graph.create_node("call_function", _ARITHMETIC[op], args, {}, name=op)
        node.meta["sym_expr"] = str(poly)
        node.meta["arg_names"] = ["a", "b"]
        return ItemValue(_ARITHMETIC[op](*values), node, poly, self.unbacked)

    def __add__(self, o: Any) -> Any:
        return self._arithmetic("add", o)

    def __radd__(self, o: Any) -> Any:
        return self._arithmetic("add", o, True)

    def __sub__(self, o: Any) -> Any:
        return self._arithmetic("sub", o)

    def __rsub__(self, o: Any) -> Any:
        return self._arithmetic("sub", o, True)

    def __mul__(self, o: Any) -> Any:
        return self._arithmetic("mul", o)

    def __rmul__(self, o: Any) -> Any:
        return self._arithmetic("mul", o, True)

    def _compared(self, op: str, other: Any) -> Any:
        from .._tensor import Tensor

        if isinstance(other, Tensor):
            return NotImplemented
        if self.symbol is None or not _plain_int(other):
            raise NotImplementedError(
                f"chainrule.export cannot export a comparison of {self.node.name} "
                "(Tensor.item) but of its symbol itself with an int (n >= 0, n <= 8; "
                "y.size(0) of a static size) yet"
            )
        fn, sign = _COMPARISONS[op]
        node = self.unbacked.graph.create_node("call_function", fn, (self.node, other), {}, name=op)
        node.meta.update(sym_expr=f"{self.symbol} {sign} {other}", sym_bool=True)
        node.meta["arg_names"] = ["a", "b"]
        return Condition(self, op, other, node)

    def __ge__(self, o: Any) -> Any:
        return self._compared("ge", o)

    def __le__(self, o: Any) -> Any:
        return self._compared("le", o)

    def __gt__(self, o: Any) -> Any:
        return _Strict(f"{self.poly} > {o}") if not _is_tensor(o) else NotImplemented

    def __lt__(self, o: Any) -> Any:
        return _Strict(f"{self.poly} < {o}") if not _is_tensor(o) else NotImplemented

    def __bool__(self) -> bool:
        raise _guard(f"Ne({self.poly}, 0)")

    def __index__(self) -> int:
        raise _guard(str(self.poly))

    __int__ = __index__

    def _refused(self, *other: Any) -> Any:
        from .._tensor import Tensor

        if other and isinstance(other[0], Tensor):
            return NotImplemented
        raise NotImplementedError(
            f"chainrule.export cannot export Tensor.item's value {self.node.name} in this "
            "Python arithmetic yet (PyTorch makes a float symbol or a floordiv node): use "
            "+, - and * with ints, or keep the computation in tensors"
        )

    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __pow__ = _refused
    __float__ = __neg__ = __mod__ = __rmod__ = _refused


class Condition:
    """``n >= c`` or ``n <= c`` of an ``item()`` symbol (its node a ``ge``/``le``); what
    ``torch._check`` takes: the symbol's range is narrowed."""

    def __init__(self, value: ItemValue, op: str, bound: int, node: Any) -> None:
        self.value = value
        self.op = op
        self.bound = bound
        self.node = node

    def _export_check(self) -> None:
        """``torch._check(cond)``: the range the exported program checks at run time."""
        name = self.value.symbol
        if self.op == "ge":
            self.value.unbacked.narrow(name, lower=self.bound)
        else:
            self.value.unbacked.narrow(name, upper=self.bound)

    def __bool__(self) -> bool:
        raise _guard(self.node.meta["sym_expr"])


class _Strict:
    """``n > c`` or ``n < c``: a branch on it is PyTorch's guard error; a check of it is
    refused (PyTorch keeps it as an assertion beside the range)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def _export_check(self) -> None:
        raise NotImplementedError(
            f"chainrule.export cannot export the strict comparison {self.text} of a "
            "Tensor.item value in torch._check yet (PyTorch keeps it as an assertion beside "
            "the range): write n >= k + 1 or n <= k - 1"
        )

    def __bool__(self) -> bool:
        raise _guard(self.text)


def _is_tensor(value: Any) -> bool:
    from .._tensor import Tensor

    return isinstance(value, Tensor)


# the calls that take an ``item()`` value (their ATen overloads are checked again)
ITEM_CALLS = frozenset(
    "mul __mul__ __rmul__ add __add__ __radd__ sub __sub__ __rsub__ div __truediv__ "
    "pow __pow__ zeros ones empty full new_zeros new_ones new_empty new_full narrow "
    "__getitem__".split()
)


def check_item_use(overload: str, args: list, kwargs: dict) -> None:
    """Narrows the range of an ``item()`` symbol given as a size; refuses one anywhere
    but as a scalar operand of an elementwise op or a size of a factory, ``narrow`` or a
    slice's end."""
    if not inside([args, kwargs]):
        return
    if overload in _ITEM_OPERANDS and not inside(args[:1]) and not inside([args[2:], kwargs]):
        return
    if overload in _FACTORIES and not inside([kwargs, args[: _FACTORIES[overload]]]):
        sizes = args[_FACTORIES[overload]]
        if not inside(args[_FACTORIES[overload] + 1 :]):
            for size in sizes if isinstance(sizes, (list, tuple)) else [sizes]:
                if isinstance(size, ItemValue):
                    _sized(size, overload).unbacked.narrow(size.symbol, lower=0)
            return
    if overload == "narrow.default" and len(args) == 4 and not inside(args[:3]) and not kwargs:
        length, dim, start = args[3], args[1], args[2]
        if isinstance(length, ItemValue) and _plain_int(start) and start >= 0:
            left = int(args[0].shape[dim]) - start
            _sized(length, overload).unbacked.narrow(length.symbol, lower=0, upper=left)
            return
    if overload == "slice.Tensor" and len(args) == 4 and args[2] is None and not kwargs:
        end, dim = args[3], args[1]
        if isinstance(end, ItemValue) and hasattr(args[0], "shape"):
            value = _sized(end, overload)
            size = int(args[0].shape[dim])
            lower, upper = value.unbacked.lower[end.symbol], value.unbacked.upper[end.symbol]
            if lower is not None and upper is not None and 0 <= lower and upper <= size:
                return
            raise NotImplementedError(
                f"chainrule.export cannot export the slice y[:{end.symbol}] of a Tensor.item "
                f"value {end.symbol} not checked to lie in [0, {size}] yet (PyTorch makes a "
                f"second symbol for its size): check it first, torch._check({end.symbol} >= "
                f"0) and torch._check({end.symbol} <= y.size({dim}))"
            )
    raise NotImplementedError(
        f"chainrule.export: a Tensor.item value of a traced tensor is passed to "
        f"{overload} as a size or index, which this export cannot write yet (PyTorch "
        "checks its range with _assert_scalar nodes); pass it as a scalar operand of an "
        "elementwise op (y * x.item()), a size of torch.zeros/ones/full/empty or new_*, "
        "a length of narrow or the end of a slice y[:n]"
    )


def _sized(value: ItemValue, overload: str) -> ItemValue:
    """``value`` given as a size: a symbol itself, in a trace without dynamic sizes."""
    if value.symbol is None:
        raise NotImplementedError(
            f"chainrule.export cannot export {value.poly} (arithmetic on a Tensor.item "
            f"value) as a size of {overload} yet (PyTorch writes the range checks of the "
            "result): give the item value itself"
        )
    value.unbacked.sized = True
    return value


def inside(value: Any) -> bool:
    """Whether ``value`` holds an ``item()`` value."""
    if isinstance(value, ItemValue):
        return True
    if isinstance(value, (list, tuple, slice)):
        items = (value.start, value.stop, value.step) if isinstance(value, slice) else value
        return any(inside(v) for v in items)
    return isinstance(value, dict) and any(inside(v) for v in value.values())


def fitted_shapes(base: Any, traces: list, values: list[dict[str, int]]) -> None:
    """The sizes of ``base``'s values that follow a symbol as the symbol's name, from the
    ``traces`` (base first) at each one's symbol ``values``."""
    nodes = [list(t.graph.nodes) for t in traces]
    if any(len(n) != len(nodes[0]) for n in nodes):
        raise NotImplementedError(
            "chainrule.export: the program's nodes change with a Tensor.item value"
        )
    for node, *others in zip(base.graph.nodes, *nodes):
        for meta, *other_metas in zip(_metas(node), *(_metas(o) for o in others)):
            shape = list(meta.shape)
            for d in range(len(shape)):
                sizes = [int(m.shape[d]) for m in other_metas]
                if len(set(sizes)) == 1:
                    continue
                names = [u for u in values[0] if all(v[u] == s for v, s in zip(values, sizes))]
                if not names:
                    raise NotImplementedError(
                        f"chainrule.export: a size of {node.name} follows a Tensor.item "
                        "value or a data-dependent size (nonzero, x[mask]) but is not that "
                        "value, which this export cannot write yet"
                    )
                shape[d] = names[0]
            meta.shape = shape


def _metas(node: Any) -> list:
    meta = node.meta.get("tensor_meta")
    return ([meta] if meta is not None else []) + list(node.meta.get("output_metas", ()))
