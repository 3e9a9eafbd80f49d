"""Sizes that stay symbolic: while a model with dynamic axes is traced, ``x.size(i)`` and
``x.shape`` give ``SymInt``s, ints that also know how the graph computes them (``Shape`` of
the value, and the arithmetic done on them since), so that ``x.view(x.size(0), -1)`` or
``t.expand(n, -1, -1)`` follow the input's size at run time instead of the traced one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._graph import Graph

Build = Callable[[Graph], str]  # writes the nodes of the size: a 1-D int64 of length 1


class SymInt(int):
    """An int read from (or computed from) a traced tensor's shape."""

    build: Build

    def __new__(cls, value: int, build: Build) -> SymInt:
        obj = super().__new__(cls, value)
        obj.build = build
        return obj

    def _binary(self, other: Any, op: str, value: int, swap: bool = False) -> Any:
        if not isinstance(other, int) or isinstance(other, bool):
            return value
        a, b = (other, self) if swap else (self, other)
        return SymInt(value, lambda g: g.op(op, size_value(g, a), size_value(g, b)))

    def __add__(self, o: Any) -> Any:
        return self._binary(o, "Add", int(self) + o) if isinstance(o, int) else int(self) + o

    __radd__ = __add__

    def __sub__(self, o: Any) -> Any:
        return self._binary(o, "Sub", int(self) - o) if isinstance(o, int) else int(self) - o

    def __rsub__(self, o: Any) -> Any:
        return self._binary(o, "Sub", o - int(self), True) if isinstance(o, int) else o - int(self)

    def __mul__(self, o: Any) -> Any:
        return self._binary(o, "Mul", int(self) * o) if isinstance(o, int) else int(self) * o

    __rmul__ = __mul__

    def __floordiv__(self, o: Any) -> Any:
        # sizes are not negative: ONNX's Div (truncating) is the floor division
        return self._binary(o, "Div", int(self) // o) if isinstance(o, int) else int(self) // o

    def __rfloordiv__(self, o: Any) -> Any:
        if isinstance(o, int):
            return self._binary(o, "Div", o // int(self), True)
        return o // int(self)


def size_value(g: Graph, v: Any) -> str:
    """A size (a SymInt or a plain int) as a 1-D int64 value of length 1."""
    if isinstance(v, SymInt):
        return v.build(g)
    return g.ints([int(v)])


def has_symbolic(values: Any) -> bool:
    if isinstance(values, SymInt):
        return True
    if isinstance(values, (list, tuple)):
        return any(has_symbolic(v) for v in values)
    if isinstance(values, dict):
        return any(has_symbolic(v) for v in values.values())
    return False


def shape_value(g: Graph, sizes: list[Any]) -> str:
    """A shape whose entries may be symbolic, as a 1-D int64 value."""
    if not has_symbolic(sizes):
        return g.ints([int(s) for s in sizes])
    return g.op("Concat", *[size_value(g, s) for s in sizes], axis=0, hint="shape")


def symbolic_sizes(name: str, shape: tuple[int, ...]) -> list[SymInt]:
    """The sizes of the value ``name`` as SymInts (each one ``Shape(name)[i]``)."""

    def dim(i: int) -> Build:
        def build(g: Graph) -> str:
            return g.op("Shape", name, start=i, end=i + 1, hint="sym_size")

        return build

    return [SymInt(s, dim(i)) for i, s in enumerate(shape)]
