"""Calls a translation writes at once, as nodes of the export in progress, before the
calls it returns: for links that read one result of a call with several (a ``chunk``'s
piece, a ``broadcast_tensors`` item), which a chain's links cannot name. Under
``dynamic_shapes`` the sizes a translation reads are recorded as the forward's are
(``_sym_sizes``), so the ones it passes to a call are written as ``sym_size`` nodes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._translations_more import current_recorder


class WriteNow:
    """Each call writes one node now and gives its value; a later call (or a returned
    chain) given that value reads the node (a result list's items, its items' nodes)."""

    def __init__(self, what: str) -> None:
        self.recorder = current_recorder()
        if self.recorder is None:
            raise NotImplementedError(f"chainrule.export writes {what} inside an export only")
        self.sizes = self.recorder.sizes  # (a SizeRecord under dynamic_shapes, else None)

    def __call__(self, overload: str, args: list, kwargs: dict | None = None) -> Any:
        from ._reader import ATEN
        from ._tracer import _ints

        kwargs = kwargs or {}
        target = ATEN.overload(f"aten.{overload}")
        value = target(*_ints(args), **_ints(kwargs))
        self.recorder._write(target, overload, args, kwargs, [], value)
        return value

    def shape(self, t: Any, plus: bool = False) -> tuple:
        """``t.shape``, read as the forward reads it (recorded under dynamic_shapes);
        ``plus``: a size ``s + c`` among them is written ``c + s``."""
        if self.sizes is None:
            return t.shape
        shape = self.sizes.read(t.shape)
        if plus:
            self.sizes.plus.update(s.index for s in shape)
        return shape

    def dynamic(self, *sizes: Any) -> bool:
        """Whether one of ``sizes`` (from ``shape``) changes with the dynamic sizes; known
        in the trace that writes the program only (False before)."""
        plan = None if self.sizes is None else self.sizes.plan
        return plan is not None and any(not plan[s.index].is_constant() for s in sizes)

    def dropped(self, sizes: tuple, names: Callable[[tuple[bool, ...]], list[str]]) -> None:
        """The names PyTorch's trace took for the nodes of a check on ``sizes`` that it
        dropped (``SizeRecord.dropped``); nothing without dynamic_shapes."""
        if self.sizes is not None:
            self.sizes.dropped(sizes, names, self.recorder.graph)
