"""``torch.multiprocessing.reductions``: how a tensor is pickled for another process (the
reductions ``multiprocessing``'s ForkingPickler uses for Queues, Pipes, Pools and a spawned
Process's arguments), as PyTorch's for CPU tensors.

The tensor's storage moves to shared memory in place (``_shared_memory.share_``: after
``queue.put(t)`` the sender's ``t.is_shared()`` is True) and travels as a handle to it; the
receiver gets a tensor over the same memory, with the sender's shape, strides, storage
offset and ``requires_grad`` (a Parameter arrives as a Parameter; neither ``.grad``,
hooks, nor attributes set on a plain tensor travel). A non-leaf that requires grad is
refused: autograd does not cross processes. An empty storage, a device's or the meta
device's tensor, and one whose class has a ``__reduce_ex__`` of its own travel by value.
"""

from __future__ import annotations

import warnings
from multiprocessing.reduction import ForkingPickler
from typing import Any

import numpy as np

__all__ = ["init_reductions", "rebuild_tensor", "reduce_tensor"]


def _warn_if_has_hooks(t: Any) -> None:
    """PyTorch's warning for gradient hooks, which stay behind (unless marked unserializable)."""
    for hook in (t._hooks or {}).values():
        if not hasattr(hook, "__torch_unserializable__"):
            warnings.warn(
                f"backward hook {hook!r} on tensor will not be serialized.  If this is "
                "expected, you can decorate the function with "
                "@torch.utils.hooks.unserializable_hook to suppress this warning",
                stacklevel=2,
            )


def reduce_tensor(t: Any) -> tuple:
    """``t`` as ``(rebuild_tensor, args)``: a handle to its storage, moved to shared memory."""
    from .. import _shared_memory
    from .._tensor import Tensor
    from ..nn.parameter import Parameter
    from ..storage import owner

    plain = type(t) in (Tensor, Parameter)
    if plain and t.requires_grad and not t.is_leaf:  # (a subclass goes as PyTorch's: as it is)
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since "
            "autograd does not support crossing process boundaries.  If you just want to "
            "transfer the data, call detach() on the tensor before serializing (e.g., "
            "putting it on the queue)."
        )
    _warn_if_has_hooks(t)
    data = t._data
    if type(data) is np.ndarray and owner(data).nbytes > 0:
        _shared_memory.share_(t)
        handle = _shared_memory.shared_handle(t._data)
        if handle is not None:
            state = None if plain else _state(t)
            return (rebuild_tensor, (type(t), handle, t._dtype.name, t.requires_grad, state))
    return t.__reduce_ex__(4)


def _state(t: Any) -> dict:
    """A subclass instance's attributes, which travel with it as with PyTorch's: its
    ``__dict__`` and the slots its classes add."""
    from .._tensor import Tensor

    state = dict(t.__dict__)
    for klass in type(t).__mro__:
        if klass is Tensor:
            break
        slots = klass.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__") and hasattr(t, name):
                state[name] = getattr(t, name)
    return state


def rebuild_tensor(cls: type, handle: tuple, dtype: str, requires_grad: bool,
                   state: dict | None = None) -> Any:  # fmt: skip
    """The tensor ``reduce_tensor`` sent, on the receiver's side: over the same memory."""
    from .. import _shared_memory
    from .._tensor import Tensor, _rebuild
    from ..nn.parameter import Parameter

    t = _rebuild(_shared_memory.rebuild_shared(handle), dtype, False)
    if cls is Parameter:
        return Parameter(t, requires_grad)
    if requires_grad:
        t.requires_grad_(True)
    if cls is not Tensor:  # (an alias of the rebuilt tensor, as PyTorch's rebuild makes)
        t = t.as_subclass(cls)
        for name, value in (state or {}).items():
            setattr(t, name, value)
    return t


def _register(cls: type) -> None:
    """Send instances of ``cls`` (Tensor or a subclass) through shared memory, unless the
    class pickles itself (``__reduce_ex__`` of its own, as PyTorch's subclasses may)."""
    from .._tensor import Tensor
    from ..nn.parameter import Parameter

    if cls in (Tensor, Parameter) or cls.__reduce_ex__ is Tensor.__reduce_ex__:
        ForkingPickler.register(cls, reduce_tensor)


def init_reductions() -> None:
    """Register the tensor reductions with ForkingPickler (Tensor, Parameter, and every
    subclass defined now or later)."""
    from .. import _tensor

    def walk(cls: type) -> None:
        _register(cls)
        for sub in cls.__subclasses__():
            walk(sub)

    walk(_tensor.Tensor)
    if _register not in _tensor.SUBCLASS_HOOKS:
        _tensor.SUBCLASS_HOOKS.append(_register)
