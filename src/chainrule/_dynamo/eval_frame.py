"""``torch._dynamo.eval_frame``: where PyTorch defines ``OptimizedModule``, the Module
wrapper ``torch.compile`` returns (chainrule/compiler.py; its compiled code runs eagerly)."""

from __future__ import annotations

from typing import Any

__all__ = ["OptimizedModule"]  # noqa: F822 (made by __getattr__)


def __getattr__(name: str) -> Any:
    if name == "OptimizedModule":  # (made on first use: it needs chainrule.nn)
        from ..compiler import _optimized

        return _optimized()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
