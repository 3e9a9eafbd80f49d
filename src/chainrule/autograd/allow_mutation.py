"""``allow_mutation_on_saved_tensors``: in-place changes to tensors saved for backward.

Inside the context every tensor an op saves for backward goes through a pack hook
(``saved_tensors_hooks``) that keeps the tensor and a copy of its values; backward then
uses the tensor where it is unchanged since it was saved (its version says so), and the
copy where it was changed in place. So ``b.sin_()`` after ``out = (b ** 2).sum()`` is no
error, and the gradient is ``2 b`` for the ``b`` before the change. A graph recorded inside
cannot be used after the context exits (its copies are gone), as in PyTorch.

Where chainrule differs from PyTorch: PyTorch copies a saved tensor lazily, just before
the first in-place op that would change it (a dispatch mode sees the write); chainrule
has no hook before an in-place write, so it copies every saved tensor when it is saved.
The gradients are the same; the memory is that of one more copy of each saved tensor
while the graph lives. And a write through a view made after the save (``y[1:].mul_(2)``)
leaves backward the saved values here, where PyTorch 2.13's backward reads the changed ones
(its copy before the write misses such a view).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from .._tensor import Tensor, _make
from .saved_hooks import saved_tensors_hooks

OUTSIDE = (
    # (PyTorch's message, without a space between its two parts)
    "Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
    "in which the graph was originally recorded."
)

_enabled = [False]  # whether a context is open (PyTorch allows one at a time)


class _Handle:
    """What a node keeps for one saved tensor inside the context."""

    __slots__ = ("__weakref__",)


def _version(t: Tensor) -> int:
    vc = t._vc
    return 0 if vc is None else vc[0]


class _AllowMutationOnSavedContext:
    """The context's saved tensors: per handle the tensor, its version when saved, and a
    copy of its values then (what backward uses once the tensor has changed)."""

    def __init__(self) -> None:
        self.original: dict[_Handle, Tensor] = {}
        self.cloned: dict[_Handle, tuple[int, Tensor]] = {}
        self._by_tensor: dict[tuple[int, int], _Handle] = {}  # (id, version) -> its handle

    def clear(self) -> None:
        self.original.clear()
        self.cloned.clear()
        self._by_tensor.clear()

    def pack(self, tensor: Tensor) -> _Handle:
        key = (id(tensor), _version(tensor))
        handle = self._by_tensor.get(key)
        if handle is not None and self.original.get(handle) is tensor:
            return handle  # the same tensor, unchanged, saved again: one copy
        handle = self._by_tensor[key] = _Handle()
        self.original[handle] = tensor
        self.cloned[handle] = (key[1], _make(tensor._data.copy(), tensor._dtype))
        return handle

    def unpack(self, handle: _Handle) -> Tensor:
        if not _enabled[0] or handle not in self.original:
            raise AssertionError(OUTSIDE)
        tensor = self.original[handle]
        version, copy = self.cloned[handle]
        return tensor if _version(tensor) == version else copy


@contextmanager
def allow_mutation_on_saved_tensors() -> Iterator[_AllowMutationOnSavedContext]:
    """Inside it, tensors saved for backward may be changed in place: backward uses their
    values from when they were saved."""
    ctx = _AllowMutationOnSavedContext()
    with saved_tensors_hooks(ctx.pack, ctx.unpack):
        try:
            if _enabled[0]:
                raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
            _enabled[0] = True
            yield ctx
        finally:
            ctx.clear()
            _enabled[0] = False
