"""The ATen operator overloads an exported graph calls, as chainrule callables.

``torch.ops.aten.linear.default`` in a loaded graph is an :class:`AtenOverload` named
``aten.linear.default`` whose function takes the overload's schema arguments in order
(with its defaults) and computes with chainrule's ops, so autograd runs through them.
The functions live in ``_aten_table``; this module holds the namespace objects.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class AtenOverload:
    """One operator overload (``aten.linear.default``): a name and a chainrule function."""

    def __init__(self, op: str, overload: str, fn: Callable) -> None:
        self._op = op
        self._overloadname = overload
        self._fn = fn
        # read by fx's code generator: the overload is written ``torch.ops.aten.<op>.<ov>``
        self.__module__ = "torch.ops.aten"
        self.__qualname__ = self.__name__ = f"{op}.{overload}"

    def name(self) -> str:
        """``aten::op`` (``aten::op.overload`` for a named overload), as PyTorch."""
        return f"aten::{self._op}" + (
            "" if self._overloadname == "default" else f".{self._overloadname}"
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._fn(*args, **kwargs)

    def __str__(self) -> str:
        return f"aten.{self._op}.{self._overloadname}"

    def __repr__(self) -> str:
        return f"<OpOverload(op='aten.{self._op}', overload='{self._overloadname}')>"


class AtenPacket:
    """Every overload of one ATen operator (``torch.ops.aten.add``)."""

    def __init__(self, op: str, overloads: dict[str, AtenOverload]) -> None:
        self._op = op
        self._overloads = overloads

    def overloads(self) -> list[str]:
        """The overload names this table implements."""
        return list(self._overloads)

    def __getattr__(self, name: str) -> AtenOverload:
        if name.startswith("__"):
            raise AttributeError(name)
        if name not in self._overloads:
            raise NotImplementedError(
                f"chainrule.export has no implementation of the ATen operator aten.{self._op}.{name}"
            )
        return self._overloads[name]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        first = self._overloads.get("default") or next(iter(self._overloads.values()))
        return first(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='aten.{self._op}')>"


class AtenNamespace:
    """``torch.ops.aten``: the ATen overloads chainrule can run."""

    def __init__(self, table: dict[str, Callable]) -> None:
        packets: dict[str, dict[str, AtenOverload]] = {}
        self._by_name: dict[str, AtenOverload] = {}
        for full, fn in table.items():
            op, _, overload = full.partition(".")
            ov = AtenOverload(op, overload, fn)
            packets.setdefault(op, {})[overload] = ov
            self._by_name[f"aten.{full}"] = ov
        self._packets = {op: AtenPacket(op, ovs) for op, ovs in packets.items()}

    def overload(self, name: str) -> AtenOverload:
        """The overload ``aten.<op>.<overload>``; NotImplementedError naming it if the table
        has none."""
        if name not in self._by_name:
            raise NotImplementedError(
                f"chainrule.export has no implementation of the ATen operator {name}"
            )
        return self._by_name[name]

    def __contains__(self, name: str) -> bool:
        return name in self._by_name

    def __getattr__(self, op: str) -> AtenPacket:
        if op.startswith("__") and op not in self.__dict__.get("_packets", {}):
            raise AttributeError(op)  # (``aten.__or__`` is an operator: it is found)
        if op not in self._packets:  # (an AttributeError, as PyTorch's, for hasattr)
            raise AttributeError(
                f"'_OpNamespace' 'aten' object has no attribute '{op}' (chainrule runs the "
                "ATen overloads of chainrule/export/_aten_table.py)"
            )
        return self._packets[op]


class OpsNamespace:
    """``torch.ops`` as generated code reads it: ``aten`` here, other namespaces from
    chainrule's ``torch.library``."""

    def __init__(self, aten: AtenNamespace) -> None:
        self.aten = aten

    def __getattr__(self, ns: str) -> Any:
        import chainrule

        return getattr(chainrule.ops, ns)
