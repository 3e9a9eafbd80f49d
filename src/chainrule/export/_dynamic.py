"""``dynamic_shapes``: ``Dim`` and its hints, and sizes that are symbols in an exported
program. A size marked dynamic becomes a symbol named as PyTorch names it (``s`` and a
number from the sha256 of its source, ``L['x'].size()[0]``); the sizes of every graph
value, and the sizes the forward reads and passes to ops, are found as polynomials of the
symbols by tracing again with each symbol grown by one (and all grown by two, as a check):
``_sym_sizes`` writes the sizes read as PyTorch's ``sym_size`` and arithmetic nodes."""

from __future__ import annotations

import hashlib
from typing import Any

INT_OO = "int_oo"


class ConstraintViolationError(RuntimeError):
    """A dynamic size's example value or behaviour breaks its constraint."""


class UserError(RuntimeError):
    """A dynamic_shapes specification that does not fit the inputs or the program."""


class _DimHint:
    """``Dim.AUTO``, ``Dim.DYNAMIC``, ``Dim.STATIC``."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __repr__(self) -> str:
        return f"DimHint({self.kind})"


class Dim:
    """A named dynamic size with an inclusive range ``[min, max]`` (``max``: ``int_oo``
    when unbounded); the same ``Dim`` on two inputs makes their sizes one symbol."""

    AUTO = _DimHint("AUTO")
    DYNAMIC = _DimHint("DYNAMIC")
    STATIC = _DimHint("STATIC")

    def __init__(self, name: str, *, min: int | None = None, max: int | None = None) -> None:
        self.__name__ = name
        self.min = 0 if min is None else min
        self.max = INT_OO if max is None else max
        if self.max != INT_OO and self.max < self.min:
            raise UserError(f"Cannot create Dim with inconsistent min={min}, max={max}")

    def __repr__(self) -> str:
        bounds = f", min={self.min}" + ("" if self.max == INT_OO else f", max={self.max}")
        return f"Dim('{self.__name__}'{bounds})"


def dims(*names: str, min: int | None = None, max: int | None = None) -> tuple[Dim, ...]:
    """One ``Dim`` per name, all with the range ``[min, max]``."""
    return tuple(Dim(name, min=min, max=max) for name in names)


def symbol_id(source: str, used: set[int]) -> int:
    """PyTorch's number for the symbol of ``source``: sha256 mod 100, the next free one."""
    number = int(hashlib.sha256(source.encode()).hexdigest(), 16) % 100
    while number in used:
        number += 1
    used.add(number)
    return number


class Symbol:
    """One symbolic size: where it is (input index, dim) and its range."""

    def __init__(self, name: str, lower: int, upper: Any) -> None:
        self.name = name
        self.lower = lower
        self.upper = upper
        self.places: list[tuple[int, int]] = []
        self.dim: Dim | None = None  # (the named Dim it comes from)
        # (the place of the source that names it, the lowest number: PyTorch's program
        # reads the size there)
        self.read_at: tuple[int, int] | None = None


# factories PyTorch's export narrows a symbol's range for: a 1-d tensor of size ``s - k``
# is guarded to be no empty and no single-element tensor, so ``s >= k + 2``
_FACTORIES = frozenset(
    (
        "zeros.default",
        "ones.default",
        "empty.memory_format",
        "full.default",
        "new_zeros.default",
        "new_ones.default",
        "new_empty.default",
    )
)


def narrowed(found: list[Symbol], nodes: Any, poly_of: Any) -> None:
    """Raises each symbol's lower bound as PyTorch's guards do for a 1-d factory of size
    ``s - k`` (``torch.ones(x.size(0) - 1)``: ``s >= 3``); a named ``Dim`` whose range
    allows smaller sizes is refused as PyTorch refuses it."""
    by_name = {s.name: s for s in found}
    for node in nodes:
        overload = str(node.target).removeprefix("aten.")
        if node.op != "call_function" or overload not in _FACTORIES:
            continue
        sizes = node.args[1 if overload.startswith("new_") else 0]
        if not isinstance(sizes, (list, tuple)) or len(sizes) != 1:
            continue
        poly = poly_of(sizes[0])
        if poly is None or len(poly.terms) != 2 or poly.terms.get((), 0) >= 0:
            continue
        ((m, a),) = [(m, a) for m, a in poly.terms.items() if m != ()]
        if a != 1 or len(m) != 1:
            continue
        symbol, lower = by_name[m[0]], 2 - poly.terms[()]
        _guard(symbol, lower, None, f"the size {poly} of {overload.partition('.')[0]}")


def _guard(symbol: Symbol, lower: int | None, upper: int | None, why: str) -> None:
    """``symbol`` kept within ``lower`` and ``upper`` (None: unbounded there), as PyTorch's
    guards keep it; a named ``Dim`` whose range allows more is refused as PyTorch does."""
    name = None if symbol.dim is None else symbol.dim.__name__
    if lower is not None and symbol.lower < lower:
        if name is not None:
            raise UserError(
                f"Constraints violated ({name})! Not all values of {name} in the specified "
                f"range {symbol.lower} <= {name} satisfy the generated guard {lower} <= "
                f"{name} ({why}); give the Dim min={lower}"
            )
        symbol.lower = lower
    if upper is not None and (symbol.upper == INT_OO or symbol.upper > upper):
        if name is not None:
            raise UserError(
                f"Constraints violated ({name})! Not all values of {name} in the specified "
                f"range {name} <= {symbol.upper} satisfy the generated guard {name} <= "
                f"{upper} ({why}); give the Dim max={upper}"
            )
        symbol.upper = upper


_INDEXING = ("select.int", "slice.Tensor", "narrow.default")


def narrowed_by_indexing(
    found: list[Symbol], nodes: Any, end: int, example: dict[str, int]
) -> None:
    """Raises (or lowers) each symbol's bound as PyTorch's guards do for indexing a dim of
    that size by constants: ``select`` of i needs ``s >= i + 1`` (``s >= -i`` for a
    negative i), ``narrow`` from ``start >= 0`` for ``length`` needs ``s >= start +
    length``; a ``slice`` ending at ``0 < stop < end`` needs ``s >= stop`` where the
    example's size reaches it, ``s <= stop - 1`` where it does not."""
    by_name = {s.name: s for s in found}
    for node in nodes:
        overload = str(node.target).removeprefix("aten.")
        if node.op != "call_function" or overload not in _INDEXING:
            continue
        meta = node.args[0].meta.get("tensor_meta") if hasattr(node.args[0], "meta") else None
        d = node.args[1] if len(node.args) > 1 else 0
        if meta is None or not isinstance(d, int) or str(meta.shape[d]) not in by_name:
            continue
        symbol = by_name[str(meta.shape[d])]
        if overload == "select.int" and type(node.args[2]) is int:
            i = node.args[2]
            _guard(symbol, i + 1 if i >= 0 else -i, None, f"the index {i} of {node.name}")
        elif overload == "narrow.default" and all(type(v) is int for v in node.args[2:4]):
            start, length = node.args[2:4]
            if start >= 0:
                _guard(symbol, start + length, None, f"the end {start + length} of {node.name}")
        elif overload == "slice.Tensor" and len(node.args) > 3 and type(node.args[3]) is int:
            stop, size = node.args[3], example[symbol.name]
            if 0 < stop < end:
                why = f"the end {stop} of {node.name}"
                if stop <= size:
                    _guard(symbol, stop, None, why)
                else:
                    _guard(symbol, None, stop - 1, why)


def _per_input(dynamic_shapes: Any, names: list[str], arg_names: list[str]) -> list[Any]:
    """The spec of each user input (by the forward's parameter names, or in order)."""
    if isinstance(dynamic_shapes, dict):
        unknown = [k for k in dynamic_shapes if k not in arg_names]
        if unknown:
            raise UserError(
                f"dynamic_shapes names {unknown} that are not arguments of the forward "
                f"({arg_names})"
            )
        return [dynamic_shapes.get(n) for n in names]
    specs = list(dynamic_shapes)
    if len(specs) != len(names):
        raise UserError(f"dynamic_shapes has {len(specs)} entries for {len(names)} tensor inputs")
    return specs


def symbols(
    inputs: list[tuple[str, Any]], dynamic_shapes: Any, arg_names: list[str]
) -> list[Symbol]:
    """The symbols ``dynamic_shapes`` makes for ``inputs`` (name, tensor)."""
    names = [n for n, _ in inputs]
    for name in names:
        if name not in arg_names:
            raise NotImplementedError(
                "chainrule.export takes dynamic_shapes for top-level tensor arguments only"
            )
    specs = _per_input(dynamic_shapes, names, arg_names)
    used: set[int] = set()
    found: list[Symbol] = []
    by_dim: dict[int, Symbol] = {}
    for index, ((name, t), spec) in enumerate(zip(inputs, specs)):
        if spec is None:
            continue
        items = spec.items() if isinstance(spec, dict) else enumerate(spec)
        for d, how in items:
            if how is None or how is Dim.STATIC:
                continue
            if d >= t.dim():
                raise UserError(f"dynamic_shapes marks dim {d} of {name!r}, of {t.dim()} dims")
            size = int(t.shape[d])
            source = f"L['{name}'].size()[{d}]"
            if isinstance(how, Dim):
                _check_range(how, size)
                number = symbol_id(source, used)
                if id(how) in by_dim:
                    symbol = by_dim[id(how)]
                    first = symbol.places[0]
                    if int(inputs[first[0]][1].shape[first[1]]) != size:
                        raise UserError(
                            f"the dim {how.__name__} is {size} in {name!r} but another "
                            "size elsewhere"
                        )
                    # the shared symbol takes the lowest number among its sources
                    if number < int(symbol.name[1:]):
                        symbol.name, symbol.read_at = f"s{number}", (index, d)
                else:
                    symbol = Symbol(f"s{number}", how.min, how.max)
                    symbol.dim, symbol.read_at = how, (index, d)
                    by_dim[id(how)] = symbol
                    found.append(symbol)
                symbol.places.append((index, d))
            elif how is Dim.AUTO or how is Dim.DYNAMIC:
                if size < 2:
                    if how is Dim.DYNAMIC:
                        raise UserError(
                            f"Constraints violated: {source} was marked dynamic but the "
                            f"code specialized it to be a constant ({size})"
                        )
                    continue
                symbol = Symbol(f"s{symbol_id(source, used)}", 2, INT_OO)
                symbol.places.append((index, d))
                symbol.read_at = (index, d)
                found.append(symbol)
            else:
                raise UserError(f"dynamic_shapes: unexpected spec {how!r} for dim {d} of {name!r}")
    return found


def _check_range(dim: Dim, size: int) -> None:
    if size < 2:
        raise UserError(
            f"Constraints violated ({dim.__name__})! You marked {dim.__name__} as dynamic "
            f"but your code specialized it to be a constant ({size})."
        )
    if size < dim.min or (dim.max != INT_OO and size > dim.max):
        raise ConstraintViolationError(f"{size} not in range [{dim.min}, {dim.max}]")
