"""Hooks for saved tensors (PyTorch's ``torch.autograd.graph.saved_tensors_hooks``).

Inside ``saved_tensors_hooks(pack, unpack)`` every tensor an op or a custom Function saves
for backward is handed to ``pack`` when it is saved, and the node keeps what ``pack``
returned instead of the tensor; when backward (or ``saved_tensors``) needs it, ``unpack``
turns that back into a tensor. What a hook keeps is its own business: a copy on another
device (``save_on_cpu``), a file, a recipe to recompute. A packed tensor is not checked
for in-place changes, as in PyTorch: what ``unpack`` returns is what backward uses.

The hooks are per thread, a stack of which the innermost pair applies. While any thread
has a pair pushed, ``_modes.usual`` is off, so the ops' fast paths hand every recording to
``Op._wrap`` (and a custom Function to its own saving), the two places that call
``pack_node``; nothing else pays for the feature.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import _modes

if TYPE_CHECKING:  # (imported where used: autograd/function.py loads before _tensor does)
    from .._tensor import Tensor

__all__ = ["disable_saved_tensors_hooks", "save_on_cpu", "saved_tensors_hooks"]


class _State(threading.local):
    stack: list | None = None  # this thread's (pack, unpack) pairs, innermost last
    disabled: str | None = None  # while disabled: the message entering hooks raises


state = _State()
hooked = [0]  # how many pairs are pushed, all threads together (0: no op checks anything)
_lock = threading.Lock()

# a node whose saved tensors were packed has this as its checks: backward unpacks them
# (Node._unpacked) and checks no versions
PACKED = ("the saved tensors, packed by a saved_tensors_hooks pack hook",)

_PACK_WROTE = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to "
    "pack hook cannot be modified by in-place operations as this can lead to unexpected "
    "side-effects. Please open an issue if you need to perform in-place operations on the "
    "input to a pack hook."
)


class Packed:
    """What a pack hook made of one saved tensor, with the unpack hook that reverses it, and
    where the tensor sat in the graph (``origin``: its node and output number, a weak
    reference to it for a leaf, None if it needed no gradient): backward with create_graph
    reconnects what unpack gives there, as PyTorch's saved variables do."""

    __slots__ = ("value", "unpack_hook", "origin")

    def __init__(
        self, value: Any, unpack_hook: Callable[[Any], Tensor], origin: Any = None
    ) -> None:
        self.value = value
        self.unpack_hook = unpack_hook
        self.origin = origin

    def reconnected(self, t: Tensor) -> Tensor:
        """Unpack's tensor ``t`` in the packed tensor's place in the graph: an alias of its
        data with the packed tensor's node (for a leaf, its AccumulateGrad), so that a
        derivative taken through backward reaches what the saved tensor depended on."""
        origin = self.origin
        if origin is None:
            return t
        from .._tensor import _counter, _make
        from .graph import accumulator

        fn, nr = origin
        if fn.__class__ is weakref.ref:  # a leaf
            leaf = fn()
            if leaf is None:
                return t
            fn, nr = accumulator(leaf), 0
        return _make(t._data, t._dtype, True, fn, nr, _counter(t))  # (t's versions: its alias)

    def unpack(self) -> Tensor:
        from .._tensor import Tensor

        t = self.unpack_hook(self.value)
        if not isinstance(t, Tensor):
            raise TypeError(
                "Output of saved tensor unpack_hook expected to be a Tensor but got result of "
                f"type {type(t).__name__}"
            )
        return t


def current() -> tuple | None:
    """This thread's innermost (pack, unpack) pair, or None."""
    stack = state.stack
    return stack[-1] if stack else None


def pack(t: Tensor, hooks: tuple, source: Tensor | None = None) -> Packed:
    """``t`` through the pack hook of ``hooks``, run with grad mode off (as PyTorch runs
    it); the hook must not write into ``t`` (its version counter, made now if it has none
    yet, tells). ``source``: the tensor whose place in the graph ``t`` stands for (t is
    an alias of it), if not t itself."""
    from .._tensor import _counter
    from .grad_mode import no_grad

    vc = _counter(t)
    before = vc[0]
    with no_grad():
        value = hooks[0](t)
    if vc[0] != before:
        raise RuntimeError(_PACK_WROTE)
    origin = None
    src = t if source is None else source
    if src._requires_grad:
        fn = src._grad_fn
        origin = (weakref.ref(src), 0) if fn is None else (fn, src._output_nr)
    return Packed(value, hooks[1], origin)


def pack_node(node: Any, result: Any) -> None:
    """Pack what ``node`` saved of its inputs and outputs, in its save plan's order
    (PyTorch's order of saved variables for the ops whose order the tests compare), when
    this thread has hooks: the tensors an input entry holds, and ``result`` (the output
    tensor, or the tuple of outputs) for the output entry. Numbers, shapes and parameters
    stay as they are."""
    from .._tensor import Tensor

    hooks = current()
    if hooks is None:
        return
    plan = node._plan
    stored = node._stored()
    if not stored:
        return
    values = list(stored)
    packed_any = False
    for i, kind in enumerate(plan.kinds):
        v = values[i]
        if kind == "arg":
            if isinstance(v, Tensor):
                values[i] = pack(v, hooks)
                packed_any = True
        elif kind == "ans":
            if type(result) is tuple:  # several outputs: those the VJPs read
                reads = node._op.ans_reads
                if reads is None:
                    reads = range(len(result))
                values[i] = tuple(
                    pack(result[j], hooks) if j in reads else a for j, a in enumerate(v)
                )
            else:
                values[i] = pack(result, hooks)
            packed_any = True
    if not packed_any:
        return
    slots = plan.args
    for k, i in enumerate(slots[:2]):
        if k == 0:
            node._in0 = values[i]
        else:
            node._in1 = values[i]
        values[i] = None
    node._saved = tuple(values)
    node._checks = PACKED


def _changed(delta: int) -> None:
    with _lock:
        hooked[0] += delta
        on = hooked[0] > 0
    _modes.mark("saved_tensors_hooks", on)


class saved_tensors_hooks:  # noqa: N801 - PyTorch's spelling
    """Context manager: inside it, each tensor saved for backward is ``pack_hook(tensor)``
    (kept by the node instead of the tensor) and backward gets ``unpack_hook(packed)``
    back, which must be a tensor of the same value. Nested, the innermost pair applies.
    ``pack_hook`` must not modify its input in place, and what it returns should not
    refer to the input (``lambda x: x.detach()``, not ``lambda x: x``): a saved output
    would refer to its own node."""

    def __init__(
        self, pack_hook: Callable[[Tensor], Any], unpack_hook: Callable[[Any], Tensor]
    ) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        if state.disabled is not None:
            raise RuntimeError(state.disabled)
        if state.stack is None:
            state.stack = []
        state.stack.append((self.pack_hook, self.unpack_hook))
        _changed(1)

    def __exit__(self, *args: object) -> None:
        state.stack.pop()
        _changed(-1)


class save_on_cpu(saved_tensors_hooks):  # noqa: N801
    """Saved tensors kept in host memory and moved back to their device when backward
    needs them (GPU memory traded for transfers). ``pin_memory`` is accepted (chainrule
    has no pinned memory: the copies are ordinary host arrays)."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(t: Tensor) -> tuple:
            return t.device, t.detach().cpu() if t.device.type != "cpu" else t.detach()

        def unpack_from_cpu(packed: tuple) -> Tensor:
            device, t = packed
            return t.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)


class disable_saved_tensors_hooks:  # noqa: N801
    """Context manager: inside it, entering ``saved_tensors_hooks`` raises RuntimeError with
    ``error_message``; raises it at once if this thread already has hooks."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self) -> None:
        self._previous = state.disabled
        if state.stack:
            raise RuntimeError(self.error_message)
        state.disabled = self.error_message

    def __exit__(self, *args: object) -> None:
        state.disabled = self._previous

    def __call__(self, func: Callable) -> Callable:
        import functools

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with disable_saved_tensors_hooks(self.error_message):
                return func(*args, **kwargs)

        return wrapper
