"""``register_multi_grad_hook``: one hook over the gradients of several tensors.

Mode ``"all"``: in each backward, once the gradients of all the tensors that backward
reaches are computed, ``fn(grads)`` is called with one entry per tensor (None for a tensor
it does not reach). Mode ``"any"``: ``fn(grad)`` with the first of them to be computed,
once per backward. Both are tensor hooks on each tensor that tell backwards apart by the
engine's graph task, and mode ``"all"`` asks the task which of the tensors' nodes it will
run (``engine.GraphTask.will_execute``) when the first gradient arrives.

While such a hook lives the engine runs every backward as a task (``engine._tracked``):
until the hook is removed or the tensors it was registered on are freed. The hooks hold
the tensors' nodes weakly, so that they are freed with their graph.

Where chainrule differs from PyTorch: the order in which two leaves of one node get their
gradients is the engine's (``a * b``: b's first here, a's in PyTorch), so mode ``"any"``
may pick the other of two such leaves; and a hook registered while a backward runs that
began with no multi-grad hook alive cannot tell that backward apart (it raises the
AssertionError PyTorch raises outside backward).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence

from .._tensor import Tensor
from ..utils.hooks import RemovableHandle
from . import engine
from .graph import Node, accumulator


class _Tracking:
    """One live multi-grad hook, counted in ``engine._tracked`` until it is removed or
    nothing refers to it any more (its tensor hooks and its handle gone)."""

    __slots__ = ("on",)

    def __init__(self) -> None:
        self.on = True
        engine._tracked += 1

    def stop(self) -> None:
        if self.on:
            self.on = False
            engine._tracked -= 1

    def __del__(self) -> None:
        self.stop()


class _MultiHandle(RemovableHandle):
    """The handles of the tensor hooks one multi-grad hook is made of (a RemovableHandle, as
    in PyTorch); ``remove()`` removes them all."""

    __slots__ = ("handles", "_tracking")

    def __init__(self, handles: tuple, tracking: _Tracking) -> None:
        super().__init__({})
        self.handles = handles
        self._tracking = tracking

    def remove(self) -> None:
        for h in self.handles:
            h.remove()
        self._tracking.stop()


def _node_of(t: Tensor) -> Callable[[], Node | None]:
    """The node a tensor's gradient enters by, held weakly: its grad_fn, or for a leaf its
    AccumulateGrad as it is when asked (made anew when the last one was freed)."""
    if t._grad_fn is not None:
        return weakref.ref(t._grad_fn)
    ref = weakref.ref(t)
    return lambda: None if ref() is None else accumulator(ref())


def register_multi_grad_hook(
    tensors: Sequence[Tensor], fn: Callable, *, mode: str = "all"
) -> _MultiHandle:
    """Call ``fn`` once per backward with the gradients of ``tensors``: all of those the
    backward computes (mode ``"all"``, None for the others), or the first (``"any"``)."""
    supported_modes = ("all", "any")
    if mode not in supported_modes:
        raise ValueError(f"Expects mode to be one of {supported_modes} but got {mode}")
    tensors = list(tensors)
    tracking = _Tracking()
    if mode == "all":
        for t in tensors:
            if t._grad_fn is None and not t._requires_grad:
                tracking.stop()
                raise AssertionError("Expected gradient function to be set")
        nodes = [_node_of(t) for t in tensors]
        n = len(tensors)  # (the hooks hold no tensor: the tensors hold the hooks)
        pending: dict[int, list] = {}  # task id -> [gradients so far, how many expected, seen]

        def hook_for(i: int) -> Callable:
            def hook(grad: Tensor) -> None:
                tracking  # noqa: B018 - (held: the hook counts as live while it is)
                task = engine.current_task()
                if task is None:
                    raise AssertionError("expected this hook to be called inside a backward call")
                state = pending.get(task.id)
                if state is None:
                    expected = sum(task.will_execute(n()) for n in nodes)
                    state = pending[task.id] = [[None] * n, expected, 0]
                state[0][i] = grad
                state[2] += 1
                if state[2] == state[1]:
                    del pending[task.id]
                    fn(state[0])

            return hook

        hooks = [hook_for(i) for i in range(n)]
        handles = tuple(t.register_hook(h) for t, h in zip(tensors, hooks))
    else:
        fired: set[int] = set()  # the tasks the hook has run in

        def first(grad: Tensor) -> None:
            tracking  # noqa: B018 - (held: the hook counts as live while it is)
            task = engine.current_task()
            if task is None:
                raise AssertionError("expected this hook to be called inside a backward call")
            if task.id in fired:
                return
            fired.add(task.id)
            fn(grad)

        handles = tuple(t.register_hook(first) for t in tensors if t._requires_grad)
    return _MultiHandle(handles, tracking)
