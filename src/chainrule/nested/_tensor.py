"""Nested tensors: the tensor type, what it says about itself (sizes, printing, PyTorch's
errors) and its dispatch (the ops are in ``_ops.py``).

A nested tensor is a Tensor (a subclass, made only here) that holds its components as
ordinary tensors, graph and all: a strided one the list of components (``_parts``), a
jagged one the components concatenated along the ragged dim (``_vals``, PyTorch's
``values()``) with their offsets into it (and lengths, for one with holes). Every op is
written with dense ops on those tensors, so gradients need no rule of their own: they
reach the components, and a nested leaf's ``.grad`` is the nested tensor of the
components' gradients. The class's ``__torch_function__`` routes each public function to
its nested form (``HANDLERS``) and raises PyTorch's NotImplementedError for the others.

The jagged size prints its ragged dim as PyTorch's symbolic ``j1``, ``j2`` ...: one new
number per offsets made, kept by the ops that keep the offsets.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import chainrule as cr

from .. import overrides
from .._tensor import Size, Tensor, _new

_J_NUMBERS = itertools.count(1)
HANDLERS: dict[str, Callable] = {}


class JaggedInt:
    """The size of a ragged dim: PyTorch's nested int, printed ``j<n>``; equal only to
    itself (the same offsets)."""

    __slots__ = ("n",)

    def __init__(self) -> None:
        self.n = next(_J_NUMBERS)

    def __repr__(self) -> str:
        return f"j{self.n}"


def sizes_error() -> RuntimeError:
    return RuntimeError(
        "Internal error: NestedTensorImpl doesn't support sizes. Please file an issue."
    )


class NestedTensor(Tensor):
    """A nested tensor in the ``torch.strided`` or ``torch.jagged`` layout (see the
    module's docstring)."""

    __slots__ = ("_parts", "_vals", "_offsets", "_lengths", "_ragged", "_j", "_kind")

    # ----- what a nested tensor is ------------------------------------------------------

    @property
    def layout(self) -> Any:
        return cr.jagged if self._kind == "jagged" else cr.strided

    @property
    def is_nested(self) -> bool:
        return True

    @property
    def is_sparse(self) -> bool:
        return False

    @property
    def shape(self) -> Size:
        if self._kind == "strided":
            raise sizes_error()
        sizes: list[Any] = [len(self._offsets) - 1, *self._vals.shape]
        sizes[self._ragged] = self._j
        return Size(sizes)

    @property
    def dtype(self) -> Any:
        if self._kind == "jagged":
            return self._vals.dtype
        return self._parts[0].dtype if self._parts else cr.get_default_dtype()

    @property
    def device(self) -> Any:
        return cr.device("cpu")

    @property
    def is_cuda(self) -> bool:
        return False

    @property
    def ndim(self) -> int:
        return dim(self)

    @property
    def mT(self) -> NestedTensor:  # noqa: N802 - PyTorch's name
        return HANDLERS["transpose"](self, -2, -1)

    @property
    def data(self) -> NestedTensor:
        return HANDLERS["detach"](self)

    # ----- autograd: the components' ----------------------------------------------------

    @property
    def requires_grad(self) -> bool:
        return any(t.requires_grad for t in tensors(self))

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        for t in tensors(self):
            t.requires_grad = value

    @property
    def grad_fn(self) -> Any:
        for t in tensors(self):
            if t.grad_fn is not None:
                return t.grad_fn
        return None

    @property
    def is_leaf(self) -> bool:
        return all(t.is_leaf for t in tensors(self))

    @property
    def grad(self) -> NestedTensor | None:
        grads = [t.grad for t in tensors(self)]
        if all(g is None for g in grads):
            return None
        grads = [cr.zeros_like(t) if g is None else g for t, g in zip(tensors(self), grads)]
        if self._kind == "jagged":
            return same_offsets(self, grads[0])
        return strided(grads)

    @grad.setter
    def grad(self, value: Any) -> None:
        if value is None:
            for t in tensors(self):
                t.grad = None
            return
        for t, g in zip(tensors(self), tensors(value)):
            t.grad = g.detach()

    # ----- dispatch ---------------------------------------------------------------------

    def __getattr__(self, name: str) -> Any:
        """The nested-only methods (``values``, ``offsets``, ``to_padded_tensor`` ...)."""
        handler = HANDLERS.get(name)
        if handler is None:
            return Tensor.__getattr__(self, name)
        return lambda *args, **kwargs: handler(self, *args, **kwargs)

    @classmethod
    def __torch_function__(
        cls, func: Callable, types: Any, args: tuple = (), kwargs: dict | None = None
    ) -> Any:
        name = _name(func)
        handler = HANDLERS.get(name)
        if handler is None:
            from . import _ops

            return _ops.dispatch(name, func, args, kwargs or {})
        return handler(*args, **(kwargs or {}))


def _name(func: Callable) -> str:
    """The public name of ``func`` (operators' functions are named by ``overrides``)."""
    name = getattr(func, "__name__", "")
    if name == "__get__":  # a Tensor property this class does not define
        return func.__self__.fget.__name__
    full = overrides.resolve_name(func)
    return full.rsplit(".", 1)[-1] if full else name


def _fresh() -> NestedTensor:
    if not overrides._state.classes:  # (dispatch was reset since the class was defined)
        overrides._class_defined(NestedTensor)
    t = _new(NestedTensor)
    t._data = None
    t._dtype = None
    t._requires_grad = False
    t._grad_fn = None
    t._output_nr = 0
    t._grad = None
    t._vc = None
    t._acc = None
    t._retains_grad = False
    t._hooks = None
    t._post_hooks = None
    t._view = None
    t._parts = None
    t._vals = None
    t._offsets = None
    t._lengths = None
    t._ragged = 1
    t._j = None
    return t


def strided(parts: list[Tensor]) -> NestedTensor:
    """The strided nested tensor of the components ``parts`` (kept with their graph)."""
    t = _fresh()
    t._kind = "strided"
    t._parts = list(parts)
    if parts:
        t._dtype = parts[0].dtype
    return t


def jagged(
    values: Tensor,
    offsets: Tensor,
    lengths: Tensor | None = None,
    ragged: int = 1,
    j: JaggedInt | None = None,
) -> NestedTensor:
    """The jagged nested tensor of ``values`` cut at ``offsets`` along dim ``ragged - 1``;
    a new ragged size ``j<n>`` unless ``j`` is given."""
    t = _fresh()
    t._kind = "jagged"
    t._vals = values
    t._dtype = values.dtype
    t._offsets = offsets
    t._lengths = lengths
    t._ragged = ragged
    t._j = JaggedInt() if j is None else j
    return t


def same_offsets(nt: NestedTensor, values: Tensor, ragged: int | None = None) -> NestedTensor:
    """A jagged nested tensor of ``values`` with ``nt``'s offsets (and ragged size)."""
    r = nt._ragged if ragged is None else ragged
    return jagged(values, nt._offsets, nt._lengths, r, nt._j)


def tensors(nt: NestedTensor) -> list[Tensor]:
    """The tensors that hold ``nt``'s elements: the values, or the strided components."""
    return [nt._vals] if nt._kind == "jagged" else nt._parts


def lengths(nt: NestedTensor) -> list[int]:
    """Each component's size along the ragged dim (jagged)."""
    if nt._lengths is not None:
        return [int(n) for n in nt._lengths.tolist()]
    off = nt._offsets.tolist()
    return [int(b - a) for a, b in zip(off[:-1], off[1:])]


def components(nt: NestedTensor) -> list[Tensor]:
    """The components, in the graph (views of the values for a jagged tensor)."""
    if nt._kind == "strided":
        return list(nt._parts)
    starts = nt._offsets.tolist()
    return [nt._vals.narrow(nt._ragged - 1, int(s), n) for s, n in zip(starts, lengths(nt))]


def dim(nt: NestedTensor) -> int:
    if nt._kind == "jagged":
        return nt._vals.dim() + 1
    return nt._parts[0].dim() + 1 if nt._parts else 1


# ----- printing -------------------------------------------------------------------------


def _indent(text: str, n: int) -> str:
    return "\n".join(" " * n + line for line in text.split("\n"))


def _grad_suffix(nt: NestedTensor, object_form: bool) -> list[str]:
    fn = nt.grad_fn
    if fn is not None:
        return [f"grad_fn={fn!r}" if object_form else f"grad_fn=<{type(fn).__name__}>"]
    return ["requires_grad=True"] if nt.requires_grad else []


def nested_repr(nt: NestedTensor, *, tensor_contents: Any = None) -> str:
    """PyTorch's print of a nested tensor: the components one per line (strided), or the
    size and offsets (jagged)."""
    if nt._kind == "jagged":
        size = "(" + ", ".join(repr(s) for s in nt.shape) + ")"
        items = [f"size={size}", f"offsets={nt._offsets!r}", *_grad_suffix(nt, True)]
        items.append(f"contiguous={HANDLERS['is_contiguous'](nt)}")
        return "NestedTensor(" + ", ".join(items) + ")"
    grad = nt.requires_grad
    rows = []
    for p in nt._parts:
        q = p.detach()
        rows.append(_indent(repr(q.requires_grad_() if grad else q), 2))
    body = ",\n".join(rows)
    tail = "".join(", " + s for s in _grad_suffix(nt, False))
    return "nested_tensor([\n" + body + "\n]" + tail + ")"
