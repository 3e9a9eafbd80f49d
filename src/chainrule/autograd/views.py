"""Views: tensors that share memory with a base, and how they are re-derived from it.

A view made by an op (``view``, ``transpose``, ``x[1:]``, ...) shares its base's version
counter and keeps a record ``(base, steps, version)``: the base it was taken from, the
ops that lead from the base to it (``((op, params), ...)``) and the version at which its
graph was last derived. When the base, or another view of it, is written in place, the
view's graph is stale: the next op that uses the view re-derives it by replaying the
steps on the base (recording.refresh_view), as PyTorch re-derives its views' grad_fn.
"""

from __future__ import annotations

import re
from typing import Any

from .. import _backend
from .._tensor import Tensor, _counter, _make


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
    a = _make(t._data, t._dtype, t._requires_grad, t._grad_fn, t._output_nr, _counter(t))
    a._acc = t._acc
    return a


class CustomFunctionStep:
    """The last step of a view a custom Function returned (an input returned as-is, or a
    view of one made in its forward): the same memory, with the Function's own backward,
    which the view machinery (CopySlices, a view re-derived from its base) would replace.
    So writing into such a view, or using it once its base was written, raises, as in
    PyTorch. ``multiple``: the Function returned several outputs (PyTorch's other message)."""

    __slots__ = ("multiple",)

    def __init__(self, multiple: bool) -> None:
        self.multiple = multiple

    def forward(self, arr: Any) -> Any:
        return arr

    def __call__(self, t: Any) -> Any:
        return t


def custom_function_view(o: Tensor, source: Tensor | None, multiple: bool) -> tuple:
    """The view record of a custom Function's output ``o``: an alias of the input ``source``,
    or (``source`` None) a view made in the forward, ending in a ``CustomFunctionStep``."""
    record = o._view if source is None else source._view
    if record is not None and record[0] is not None:
        base, steps = record[0], record[1]
    else:
        base, steps = source, ()
    return (base, steps + ((CustomFunctionStep(multiple), {}),), o._vc[0])


def node_kind(fn: Any) -> str:
    """The name PyTorch's view errors give a node: its name without "Backward0" (a numbered
    variant keeps its number: "SqueezeBackward2" is "Squeeze2"; "FBackward" is "F")."""
    return re.sub(r"Backward(\d*)$", lambda m: m[1].lstrip("0"), fn.name())


def check_custom_view(t: Tensor, steps: tuple, rebased: bool) -> None:
    """Raise PyTorch's error for writing into a view a custom Function returned (``rebased``:
    for using it after its base, or another view of the base, was written); any other view
    passes."""
    step = next((op for op, _ in steps if op.__class__ is CustomFunctionStep), None)
    if step is None:
        if rebased and t._grad_fn is not None:  # a view sharing its node with others (split)
            for op, params in steps:
                refuse = getattr(op, "refuse_inplace", None)
                if refuse is not None:  # (named by the view's own node, as PyTorch)
                    params = {"output": t._output_nr, "kind": node_kind(t._grad_fn)}
                    raise RuntimeError(
                        refuse(params).replace(
                            "is being modified inplace",
                            "its base or another view of its base has been modified inplace",
                            1,
                        )
                    )
        return
    name = node_kind(t._grad_fn) if t._grad_fn is not None else "?"
    what = (
        "its base or another view of its base has been modified inplace"
        if rebased
        else "is being modified inplace"
    )
    why = (
        "This view is the output of a function that returns multiple views. Such functions "
        "do not allow the output views to be modified inplace. You should replace the "
        "inplace operation by an out-of-place one."
        if step.multiple
        else "This view was created inside a custom Function (or because an input was "
        "returned as-is) and the autograd logic to handle view+inplace would override the "
        "custom backward associated with the custom Function, leading to incorrect "
        "gradients. This behavior is forbidden. You can fix this by cloning the output of "
        "the custom Function."
    )
    raise RuntimeError(f"Output {t._output_nr} of {name} is a view and {what}. {why}")
