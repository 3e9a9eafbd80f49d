"""Forward-mode AD: tensors carry a tangent, and each op pushes it forward by its JVP.

Inside ``with dual_level():``, ``make_dual(x, t)`` gives x a tangent t; every op's
output then carries d(output) = Σ_i JVP_i(t_i), and ``unpack_dual(y).tangent`` is
the directional derivative J t, computed in the same pass as y.
"""

from __future__ import annotations

import weakref
from typing import Any, NamedTuple

from .._op import _fw_state, _primal
from .._tensor import Tensor, _alias, _tangent_of

_levels: list[list] = []  # per active level: weak references to tensors given a tangent


class UnpackedDualTensor(NamedTuple):
    primal: Tensor
    tangent: Tensor | None


class dual_level:  # noqa: N801 - PyTorch's spelling
    """Context manager: the region in which tangents live; they are dropped on exit."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc) -> None:
        exit_dual_level()


def enter_dual_level() -> int:
    if _levels:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _levels.append([])
    _fw_state.level = len(_levels)
    return len(_levels) - 1


def exit_dual_level(*, level: int | None = None) -> None:
    if not _levels:
        raise RuntimeError("Trying to exit a forward AD level that was not entered")
    for ref in _levels.pop():
        t = ref()
        if t is not None:
            try:
                del t._fw
            except AttributeError:
                pass
    _fw_state.level = len(_levels)


def _attach(t: Tensor, tangent: Tensor) -> None:
    t._fw = tangent
    _levels[-1].append(weakref.ref(t))


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A view of ``tensor`` carrying ``tangent`` (same shape) as its forward derivative."""
    if not _levels:
        raise RuntimeError(
            "To create a dual Tensor, please enter a dual level first: "
            "with forward_ad.dual_level(): ..."
        )
    if not isinstance(tangent, Tensor):
        raise TypeError("make_dual: expected the tangent to be a Tensor")
    if tangent.shape != tensor.shape:
        raise RuntimeError(
            f"Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(tensor.shape)} "
            f"while the given forward gradient is of size {list(tangent.shape)}."
        )
    if not tensor.is_floating_point():
        raise ValueError("Expected primal to be floating point")
    from ..ops import shape as sh

    level_now = _fw_state.level
    _fw_state.level = 0
    try:
        if tangent.dtype is not tensor.dtype:
            tangent = tangent.to(tensor.dtype)
        # The dual is the root of its views' tangents (tensor itself gets none): it is a view
        # of an alias of tensor that carries the tangent, so that an in-place write through
        # one view of the dual reaches the dual's tangent and its other views', as in PyTorch.
        # Not when tensor requires grad: a write through the dual must rebase tensor's own
        # graph. (Limitation: a recorded write through the dual of a tensor that does not
        # require grad leaves tensor without the graph PyTorch would give it.)
        root = tensor
        if not tensor.requires_grad:
            root = _alias(tensor)
            _attach(root, tangent)
        dual = sh.view(root, shape=tuple(tensor.shape))
    finally:
        _fw_state.level = level_now
    _attach(dual, tangent)
    return dual


def unpack_dual(tensor: Any, *, level: int | None = None) -> UnpackedDualTensor:
    """(primal, tangent) of a dual tensor; tangent None for a tensor without one."""
    tangent = _tangent_of(tensor) if isinstance(tensor, Tensor) else None
    return UnpackedDualTensor(_primal(tensor) if tangent is not None else tensor, tangent)
