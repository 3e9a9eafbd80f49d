"""Forward-mode AD: tensors carry a tangent, and each op pushes it forward by its JVP.

Inside ``with dual_level():``, ``make_dual(x, t)`` gives x a tangent t; every op's
output then carries d(output) = Σ_i JVP_i(t_i), and ``unpack_dual(y).tangent`` is
the directional derivative J t, computed in the same pass as y.

This module holds forward mode's state (the active level and the tensors given a
tangent in it) and the one place where an op's JVPs are applied (``push_tangent``).
"""

from __future__ import annotations

import weakref
from typing import Any, NamedTuple

from .. import _dtypes, _modes
from .._backend import is_array, ndarray, on_device_of, xp
from .._tensor import Tensor, _counter, _make
from .registry import op as _op
from .views import alias, replay_view


class _State:
    level = 0  # the innermost active dual level; 0 when forward mode is off


def _set_level(level: int) -> None:
    """``state.level = level``, told to the hot paths' flag (``_modes.usual``)."""
    state.level = level
    _modes.mark("forward", level > 0)


state = _State()
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
    _set_level(len(_levels))
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
    _set_level(len(_levels))


def is_active() -> bool:
    """Whether a dual level is open."""
    return bool(_levels)


class paused:  # noqa: N801 - used as a statement: ``with paused():``
    """Compute on primals only: inside, ops push no tangents (JVPs themselves run so)."""

    __slots__ = ("level",)

    def __enter__(self) -> None:
        self.level = state.level
        _set_level(0)

    def __exit__(self, *exc) -> None:
        _set_level(self.level)


def attach(t: Tensor, tangent: Tensor) -> None:
    """Give ``t`` its tangent, dropped when the current level exits."""
    t._fw = tangent
    _levels[-1].append(weakref.ref(t))


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A view of ``tensor`` carrying ``tangent`` (same shape) as its forward derivative."""
    if not _levels:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first."
        )
    if not isinstance(tangent, Tensor):
        raise TypeError("make_dual: expected the tangent to be a Tensor")
    if tangent.shape != tensor.shape:
        raise RuntimeError(
            f"Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(tensor.shape)} "
            f"while the given forward gradient is of size {list(tangent.shape)}."
        )
    if tensor._dtype._category < 2:
        raise ValueError(
            f"Expected primal to be floating point or complex, but got: {tensor._dtype}"
        )
    if tangent._dtype._category < 2:
        raise ValueError(
            f"Expected tangent to be floating point or complex, but got: {tangent._dtype}"
        )
    with paused():
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
            root = alias(tensor)
            attach(root, tangent)
        dual = _op("view")(root, shape=tuple(tensor.shape))
    attach(dual, tangent)
    return dual


def unpack_dual(tensor: Any, *, level: int | None = None) -> UnpackedDualTensor:
    """(primal, tangent) of a dual tensor; tangent None for a tensor without one."""
    tangent = tangent_of(tensor) if isinstance(tensor, Tensor) else None
    return UnpackedDualTensor(primal(tensor) if tangent is not None else tensor, tangent)


def primal(t: Any) -> Any:
    """A tensor's primal: the tensor itself seen without its tangent."""
    if isinstance(t, Tensor) and getattr(t, "_fw", None) is not None:
        # (sharing t's version counter: a write through the primal is a write to t)
        a = _make(t._data, t._dtype, t._requires_grad, t._grad_fn, t._output_nr, _counter(t))
        a._acc = t._acc
        return a
    return t


def tangent_of(t: Tensor) -> Tensor | None:
    """t's tangent; a view's is re-derived from its base's when the base (or another view
    of it) was written in place since the view was taken."""
    if t._view is not None and t._vc[1] > t._view[2]:
        refresh_tangent(t)
    return getattr(t, "_fw", None)


def refresh_tangent(t: Tensor) -> None:
    """A view's tangent is the same view of its base's tangent."""
    base, steps, _ = t._view
    base_tangent = getattr(base, "_fw", None) if base is not None else None
    if base_tangent is None:
        return
    with paused():
        tangent = replay_view(base_tangent, steps)
    if getattr(t, "_fw", None) is None:
        attach(t, tangent)
    else:  # already registered with the level, which drops it on exit
        t._fw = tangent


def push_tangent(op: Any, result: Any, args: tuple, params: dict) -> None:
    """Forward mode for one op: the output's tangent is the sum of each input's JVP
    applied to that input's tangent. For an op with several outputs (``result`` a tuple)
    each JVP gives a tuple of tangents, one per output."""
    if len(args) > len(op.args):  # parameters given by position, as in expand(g, x_shape)
        params = {**dict(zip(op.params, args[len(op.args) :])), **params}
        args = args[: len(op.args)]
    tangents = [tangent_of(a) if isinstance(a, Tensor) else None for a in args]
    if all(t is None for t in tangents):
        return
    first = result[0] if type(result) is tuple else result
    if op.complex is None and (
        first._dtype._category == 3
        or any(isinstance(a, Tensor) and a._dtype._category == 3 for a in args)
    ):
        raise _dtypes.complex_error(op.name)  # (its JVPs are written for real values)
    with paused(), on_device_of(first._data):  # JVPs on primals, where the result is
        total = None
        for i, tangent in enumerate(tangents):
            if tangent is None:
                continue
            jvp, reads = op.jvps[i]
            if jvp is None:
                if op.raw_vjps[i] is None:
                    continue  # an input with no derivative (an index, a condition)
                raise NotImplementedError(
                    f"Trying to use forward AD with {op.name} that does not support it: "
                    "chainrule has no JVP rule for it yet."
                )
            values = []
            for kind, key in reads:
                if kind == "arg":
                    values.append(primal(args[key]))
                elif kind == "ans":
                    multi = type(result) is tuple
                    values.append(tuple(map(primal, result)) if multi else primal(result))
                elif kind == "shape":
                    a = args[key]
                    a = a._data if isinstance(a, Tensor) else a  # or an array, in a VJP
                    values.append(a.shape if isinstance(a, ndarray) or is_array(a) else ())
                else:
                    values.append(params.get(key, op.params[key]))
            part = jvp(tangent, *values)
            total = part if total is None else _add(total, part)
    if total is None:
        return
    if type(result) is tuple:
        totals = tuple(
            None if t is None or r._dtype._category < 2 else _attach_total(r, t)
            for r, t in zip(result, total)
        )
        node = result[0]._grad_fn
        if node is not None and "ans" in node._plan.kinds:  # for forward over reverse
            node._extras.ans_tangent = (_levels[-1], totals)
        return
    total = _attach_total(result, total)
    node = result._grad_fn
    if node is not None and "ans" in node._plan.kinds:  # for forward over reverse
        node._extras.ans_tangent = (_levels[-1], total)


def _add(total: Any, part: Any) -> Any:
    """Two tangents summed; tuples (several outputs) entry by entry, None as zero."""
    if type(total) is not tuple:
        return total + part
    return tuple(b if a is None else a if b is None else a + b for a, b in zip(total, part))


def _attach_total(result: Tensor, total: Any) -> Tensor:
    """``total`` as ``result``'s tangent: a tensor of its shape and dtype."""
    if not isinstance(total, Tensor):
        total = _make(xp.asarray(total, dtype=result._dtype.np), result._dtype)
    shape = result._data.shape
    if total._data.shape != shape:
        total = _op("expand")(total, shape=shape)
    if total._dtype is not result._dtype:
        total = total.to(result._dtype)
    attach(result, total)
    return total
