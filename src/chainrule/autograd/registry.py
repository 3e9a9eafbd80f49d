"""Every op, by name.

An op registers itself when it is defined (``defop``). The core calls the few ops
its own mechanics need by name, at call time: ``op("sum_to")`` undoes broadcasting
and ``op("to_dtype")`` casts a gradient back to its input's dtype (graph.py),
``op("expand")`` broadcasts a tangent and ``op("view")`` makes a dual (forward_ad.py).
So the core imports no op family, and the op families import the core.
"""

from __future__ import annotations

from typing import Any

REGISTRY: dict[str, Any] = {}


def op(name: str) -> Any:
    """The op registered as ``name``."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise RuntimeError(
            f"the op {name!r} is not defined: import chainrule, which loads every op family"
        ) from None
