"""``torch.distributed.rpc``: not available in chainrule.

PyTorch builds without the RPC framework still have this module, holding only
:func:`is_available` (False); chainrule answers the same way, so libraries that check
``rpc.is_available()`` or ``hasattr(rpc, "api")`` take their no-RPC paths.
"""

from __future__ import annotations

__all__ = ["is_available"]


def is_available() -> bool:
    """Whether the RPC framework is available: never in chainrule."""
    return False


def __getattr__(name: str):
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from chainrule._missing import missing

    raise missing("torch.distributed.rpc", name)
