"""Views: tensors that share memory with a base, and how they are re-derived from it.

A view made by an op (``view``, ``transpose``, ``x[1:]``, ...) shares its base's version
counter and keeps a record ``(base, steps, version)``: the base it was taken from, the
ops that lead from the base to it (``((op, params), ...)``) and the version at which its
graph was last derived. When the base, or another view of it, is written in place, the
view's graph is stale: the next op that uses the view re-derives it by replaying the
steps on the base (recording.refresh_view), as PyTorch re-derives its views' grad_fn.
"""

from __future__ import annotations

from typing import Any

from .. import _backend
from .._tensor import Tensor, _make


def view_record(op: Any, source: Tensor, params: dict, vc: list) -> tuple:
    """(base, steps from base to the view, version): the record of ``op(source, **params)``."""
    if source._view is not None and source._view[0] is not None:
        base, steps, _ = source._view
    else:
        base, steps = source, ()
    return (base, steps + ((op, params),), vc[0])


def replay_view(base: Any, steps: tuple) -> Any:
    """Apply the recorded view steps ((op, params), ...) to ``base``: the view, re-derived."""
    out = base
    for op, params in steps:
        out = op(out, **params)
    return out


def check_view_place(view: Tensor, base: Tensor, steps: tuple) -> None:
    """Refuse to re-derive a view whose steps no longer lead to its memory (the base
    changed its layout in place since: t_, squeeze_, ...)."""
    arr = base._data
    for op, params in steps:
        arr = op.forward(arr, **params)
    data = view._data
    if (
        arr.shape != data.shape
        or arr.strides != data.strides
        or _backend.address(arr) != _backend.address(data)
    ):
        raise RuntimeError(
            "This view's base changed its layout in place (t_, transpose_, squeeze_, "
            "unsqueeze_, or .data =) after the view was taken, so chainrule cannot tell which "
            "of the base's elements the view covers. Take the view after the change, or "
            "clone() it."
        )


def alias(t: Tensor) -> Tensor:
    """The same tensor (memory, graph position, versions) as a new object."""
    a = _make(t._data, t._dtype, t._requires_grad, t._grad_fn, t._output_nr, t._vc)
    a._acc = t._acc
    return a
