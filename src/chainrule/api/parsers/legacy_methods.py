"""The legacy Tensor methods PyTorch keeps: ``new`` (the legacy constructor in self's
dtype), the Python-callback element loops ``apply_``, ``map_`` and ``map2_`` (CPU only in
PyTorch, never differentiable), the attributes ``output_nr``, ``name``, ``is_pinned()``
(chainrule pins no memory: False), and ``share_memory_()``/``is_shared()``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ... import _creation
from ..._backend import to_host, xp
from ..._tensor import Tensor


def new(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``x.new(2, 3)``: an uninitialised (here zeroed) 2x3 tensor of x's dtype;
    ``x.new([1, 2])`` a copy of the data in x's dtype; ``x.new(size)`` for a torch.Size;
    ``x.new(storage)`` the 1-D tensor of x's dtype over a storage's memory; on x's device."""
    from ...storage import TypedStorage, UntypedStorage

    if len(args) == 1 and isinstance(args[0], (UntypedStorage, TypedStorage)) and not kwargs:
        return _over_storage(self, args[0])
    if len(args) == 1 and type(args[0]).__name__ == "Size":
        args = tuple(args[0])
    t = _creation._legacy_new(Tensor, self._dtype, args, kwargs)
    return t if self.device.type == "cpu" else t.to(self.device)


def _over_storage(self: Tensor, storage: Any) -> Tensor:
    """The 1-D tensor of self's dtype sharing ``storage``'s memory (its whole elements)."""
    from ...storage import TypedStorage, UntypedStorage
    from .creation import _from_storage

    if isinstance(storage, TypedStorage):
        if storage.dtype is not self._dtype:
            raise RuntimeError(
                f"Expected a Storage of type {_type_name(self._dtype)} or an UntypedStorage, "
                f"but got type {_type_name(storage.dtype)} for argument 1 'storage'"
            )
        storage = UntypedStorage._of(storage._array)
    return _from_storage(storage, self._dtype, copy=False, requires_grad=False)


def _type_name(dtype: Any) -> str:
    """PyTorch's scalar type name of ``dtype`` in messages: Float, Long, ..."""
    legacy = getattr(dtype, "legacy_type", None)
    return legacy.removeprefix("torch.").removesuffix("Tensor") if legacy else dtype.c_name


def _refuse_grad(name: str, *tensors: Tensor) -> None:
    if any(t._requires_grad for t in tensors):
        raise RuntimeError(
            f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() "
            "instead."
        )


def _loop(self: Tensor, fn: Callable, others: tuple[Tensor, ...], name: str) -> Tensor:
    """self[i] = fn(self[i], other[i], ...) elementwise, others broadcast to self's shape,
    each result converted to self's dtype as PyTorch converts a Python number."""
    if self.device.type != "cpu":
        raise RuntimeError(f"{name} is only implemented on CPU tensors")
    _refuse_grad(name, self, *others)
    data = self._data
    host = to_host(data)
    flat = host.reshape(-1).tolist()
    rows = [to_host(xp.broadcast_to(o._data, data.shape)).reshape(-1).tolist() for o in others]
    cast = float if data.dtype.kind == "f" else complex if data.dtype.kind == "c" else None
    out = []
    for i, v in enumerate(flat):
        r = fn(v, *(row[i] for row in rows))
        if cast is float and not isinstance(r, (int, float, bool)):
            raise TypeError(f"must be real number, not {type(r).__name__}")
        out.append(int(r) if cast is None and data.dtype.kind != "b" else r)
    data[...] = xp.asarray(out, dtype=data.dtype).reshape(data.shape)
    self._bump()
    return self


def apply_(self: Tensor, callable: Callable) -> Tensor:  # noqa: A002 - PyTorch's name
    """Each element replaced by ``callable(element)``, in place (a Python loop)."""
    return _loop(self, callable, (), "apply_")


def map_(self: Tensor, tensor: Tensor, callable: Callable) -> Tensor:  # noqa: A002
    """self[i] = callable(self[i], tensor[i]), tensor broadcast to self's shape, in place."""
    _check_expands(tensor, self)
    return _loop(self, callable, (tensor,), "map_")


def map2_(self: Tensor, x: Tensor, y: Tensor, callable: Callable) -> Tensor:  # noqa: A002
    """self[i] = callable(self[i], x[i], y[i]), x and y broadcast to self's shape, in place."""
    _check_expands(x, self)
    _check_expands(y, self)
    return _loop(self, callable, (x, y), "map2_")


def _check_expands(t: Tensor, target: Tensor) -> None:
    """PyTorch's error where ``t`` does not broadcast to ``target``'s shape."""
    shape, want = tuple(t.shape), tuple(target.shape)
    lead = len(want) - len(shape)
    for i, (s, w) in enumerate(zip(shape, want[lead:])):
        if s != 1 and s != w:
            raise RuntimeError(
                f"The expanded size of the tensor ({w}) must match the existing size ({s}) at "
                f"non-singleton dimension {i + lead}.  Target sizes: {list(want)}.  Tensor "
                f"sizes: {list(shape)}"
            )
    if lead < 0:
        raise RuntimeError(
            f"expand(torch.FloatTensor{{{list(shape)}}}, size={list(want)}): the number of "
            "sizes provided must be greater or equal to the number of dimensions in the tensor"
        )


def output_nr(self: Tensor) -> int:
    """Which output of its grad_fn this tensor is (0 without one)."""
    return self._output_nr if self._grad_fn is not None else 0


def name(self: Tensor) -> None:
    """A tensor's name: None (chainrule has no named tensors)."""
    return None


def is_pinned(self: Tensor, device: Any = None) -> bool:
    """False: chainrule pins no memory."""
    return False


def pin_memory(self: Tensor, device: Any = None) -> Tensor:
    """Page-locked memory needs an accelerator: without one, PyTorch's CPU build raises
    this RuntimeError, as chainrule does; with CuPy's GPU, pinning is not in chainrule."""
    from ..._backend import module_of_device

    if module_of_device("cuda") is None:
        raise RuntimeError("Cannot access accelerator device when none is available.")
    from ..._missing import missing

    raise missing("torch.Tensor", "pin_memory")


def is_shared(self: Tensor) -> bool:
    """Whether the tensor's values lie in memory shared between processes
    (``share_memory_``)."""
    from ... import _shared_memory

    return _shared_memory.is_shared(self._data)


def share_memory_(self: Tensor) -> Tensor:
    """Move the tensor's values into memory shared between processes (PyTorch's for a CPU
    tensor): a process forked after, or one it is sent to through ``torch.multiprocessing``,
    sees the same memory. The whole storage moves, with the tensors viewing it. A no-op if
    they are there already, and on a device (whose memory PyTorch shares by handle)."""
    from ... import _shared_memory

    _shared_memory.share_(self)
    return self
