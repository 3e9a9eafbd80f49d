"""The public API, generated from one name table (``table.py``).

Each row of the table names a public function and its op (or the parser that calls
it) and says which variants PyTorch has: ``chainrule.<name>``, the method
``Tensor.<name>``, the in-place ``Tensor.<name>_`` and ``chainrule.<name>_``, and
``out=``. ``install()`` builds every namespace from the rows, in one pass, and
refuses to set a name twice: nothing is defined and then overwritten.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

from .args import op_function
from .variants import inplace_method, numpy_names, with_out

VARIANTS = {"f", "m", "m_", "f_", "out", "out!"}


def _function(target: Any, name: str) -> Callable:
    """A row's target as a function: ops are wrapped, functions are used as they are."""
    if callable(target) and not isinstance(target, (types.FunctionType, type, property)):
        return op_function(target, name)
    return target


def build() -> dict[str, dict[str, Any]]:
    """Every namespace as {name: object}: torch, Tensor, linalg, special, functional."""
    from . import table

    spaces: dict[str, dict[str, Any]] = {
        "torch": {},
        "Tensor": {},
        "linalg": {},
        "special": {},
        "functional": {},
    }

    def put(space: str, name: str, value: Any) -> None:
        if name in spaces[space]:
            raise RuntimeError(f"the name table sets {space}.{name} twice")
        spaces[space][name] = value

    for row in table.TORCH:
        name, target, where, *rest = row
        flags = where.split()
        unknown = set(flags) - VARIANTS
        if unknown:
            raise ValueError(f"table row {name!r}: unknown variants {sorted(unknown)}")
        function = numpy_names(_function(target, name))
        in_place = inplace_method(function) if "m_" in flags or "f_" in flags else None
        public = (
            with_out(function, exact="out!" in flags)
            if "out" in flags or "out!" in flags
            else function
        )
        for n in (name, *(rest[0].split() if rest else ())):
            if "f" in flags:
                put("torch", n, public)
            if "m" in flags:
                put("Tensor", n, function)
            if "m_" in flags:
                put("Tensor", n + "_", in_place)
            if "f_" in flags:
                put("torch", n + "_", in_place)
    for name, value in table.TENSOR:
        put("Tensor", name, value)
    for name, value in table.OPERATORS:
        put("Tensor", name, value)
    for space, rows in (
        ("linalg", table.LINALG),
        ("special", table.SPECIAL),
        ("functional", table.FUNCTIONAL),
    ):
        for name, target, *out in rows:
            function = _function(target, name)
            if out:
                function = with_out(function, name=out[0])
            put(space, name, function)
    return spaces


# the names install() put in each namespace (``overrides.enable`` wraps them on demand)
INSTALLED: dict[str, list[str]] = {}


def install() -> None:
    """Put every name of the table into its namespace (called once, by ``chainrule``), and
    start watching for the classes that override them (``chainrule.overrides``)."""
    import chainrule
    from chainrule import linalg, special
    from chainrule.nn import functional

    from .._tensor import Tensor

    spaces = build()
    for module, space in (
        (chainrule, "torch"),
        (linalg, "linalg"),
        (special, "special"),
        (functional, "functional"),
    ):
        for name, value in spaces[space].items():
            if name in vars(module):
                raise RuntimeError(f"{module.__name__}.{name} is defined outside the name table")
            setattr(module, name, value)
        INSTALLED[space] = list(spaces[space])
    for name, value in spaces["Tensor"].items():
        if name in vars(Tensor) and name not in _TENSOR_PLACEHOLDERS:
            raise RuntimeError(f"Tensor.{name} is defined outside the name table")
        setattr(Tensor, name, value)
    INSTALLED["Tensor"] = list(spaces["Tensor"])
    from .. import overrides  # noqa: F401  (torch.overrides; watches class statements)


# Tensor attributes Python itself gives the class, which the table replaces
_TENSOR_PLACEHOLDERS = {"__new__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"}
