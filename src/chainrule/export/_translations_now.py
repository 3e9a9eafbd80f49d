"""Calls a translation writes at once, as nodes of the export in progress, before the
calls it returns: for links that read one result of a call with several (a ``chunk``'s
piece, a ``broadcast_tensors`` item), which a chain's links cannot name."""

from __future__ import annotations

from typing import Any

from ._translations_more import current_recorder


class WriteNow:
    """Each call writes one node now and gives its value; a later call (or a returned
    chain) given that value reads the node (a result list's items, its items' nodes)."""

    def __init__(self, what: str) -> None:
        self.recorder = current_recorder()
        if self.recorder is None:
            raise NotImplementedError(f"chainrule.export writes {what} inside an export only")

    def __call__(self, overload: str, args: list, kwargs: dict | None = None) -> Any:
        from ._reader import ATEN

        kwargs = kwargs or {}
        target = ATEN.overload(f"aten.{overload}")
        value = target(*args, **kwargs)
        self.recorder._write(target, overload, args, kwargs, [], value)
        return value
