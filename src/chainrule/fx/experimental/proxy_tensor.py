"""``chainrule.fx.experimental.proxy_tensor`` (PyTorch's ``torch.fx.experimental.proxy_tensor``).

PyTorch's ``make_fx`` traces a function by running it on proxy tensors under a dispatch
mode. chainrule has no ``make_fx``, so that mode is never active: ``get_proxy_mode`` is
``None``, as it is in PyTorch outside ``make_fx``. ``make_fx`` raises a clear error.
"""

from __future__ import annotations

from typing import Any

from ..._missing import missing

__all__ = ["get_proxy_mode"]


def get_proxy_mode() -> None:
    """The active proxy-tensor tracing mode: none, since chainrule has no ``make_fx``."""
    return None


def __getattr__(name: str) -> Any:
    raise missing("torch.fx.experimental.proxy_tensor", name)
