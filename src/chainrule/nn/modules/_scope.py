"""Which module's forward is running, for ``chainrule.explain``.

While nodes remember where they were made (``chainrule.explain.record()``, which
``chainrule explain script.py`` turns on, or anomaly detection), calling a module sets
the autograd core's generic scope slot (``_anomaly.scope``) to a :class:`ModuleCall` for
the length of its forward, and each node made meanwhile keeps it. Explain reads the chain
of calls back from a node (``fc1 (Linear)`` inside ``Net``) and names it from the module
tree. When nothing records, ``Module.__call__`` only reads one flag, and recording an op
does no extra work at all.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from ...autograd.anomaly_mode import _anomaly
from . import _hooks

if TYPE_CHECKING:
    from .module import Module

_numbers = itertools.count(1)


class ModuleCall:
    """One call of a module: the module, the call it was made from (None at the top), and
    a number that grows with each call, so calls are ordered as forward made them."""

    __slots__ = ("module", "parent", "number")

    def __init__(self, module: Module, parent: ModuleCall | None, number: int) -> None:
        self.module = module
        self.parent = parent
        self.number = number

    def chain(self) -> list[ModuleCall]:
        """The calls from the outermost to this one."""
        calls = []
        call: ModuleCall | None = self
        while call is not None:
            calls.append(call)
            call = call.parent
        return calls[::-1]

    def __repr__(self) -> str:
        return f"<ModuleCall {self.number} of {type(self.module).__name__}>"


def recorded_call(module: Module, args: tuple, kwargs: dict) -> Any:
    """``module(*args, **kwargs)`` (with its hooks) as the current scope of recording."""
    previous = _anomaly.scope
    parent = previous if isinstance(previous, ModuleCall) else None  # another user's value
    _anomaly.scope = ModuleCall(module, parent, next(_numbers))
    try:
        return _hooks.call_with_hooks(module, args, kwargs)
    finally:
        _anomaly.scope = previous
