"""``torch._C._nn``'s names that Python code reaches for (``_parse_to``)."""

from __future__ import annotations

from typing import Any

__all__ = ["_parse_to"]


def _parse_to(*args: Any, **kwargs: Any) -> tuple[Any, Any, bool, Any]:
    """``Tensor.to``/``Module.to``'s arguments as ``(device, dtype, non_blocking,
    memory_format)``; each absent one is ``None`` (``non_blocking``: ``False``)."""
    from .nn.modules.module import _parse_to as parse

    memory_format = kwargs.pop("memory_format", None)
    return (*parse(*args, **kwargs), memory_format)
