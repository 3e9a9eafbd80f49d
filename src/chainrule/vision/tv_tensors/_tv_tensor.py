"""``TVTensor``: a chainrule tensor that says what it holds (an image, a mask, boxes), so
v2 transforms know how to transform it. Ops on one return plain tensors (the meaning may
not survive the op), except ``clone``, ``to``, ``detach`` and ``requires_grad_``, which
keep the type and its metadata; ``set_return_type("TVTensor")`` keeps it everywhere."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import chainrule
from chainrule import Tensor

_KEEP_TYPE = {"clone", "to", "detach", "requires_grad_", "pin_memory"}
_return_type = {"value": "Tensor"}


def _to_tensor(
    data: Any, dtype: Any = None, device: Any = None, requires_grad: bool | None = None
) -> Tensor:
    if requires_grad is None:
        requires_grad = data.requires_grad if isinstance(data, Tensor) else False
    return chainrule.as_tensor(data, dtype=dtype, device=device).requires_grad_(requires_grad)


class TVTensor(Tensor):
    """The base of the tensor types v2 transforms recognize."""

    # __torch_function__ dispatch turns on when the first one is made, not on import: a
    # program that imports transforms.v2 but makes none runs its ops undispatched
    _dispatch_when_made = True

    @classmethod
    def _wrap(cls, tensor: Tensor, **metadata: Any) -> Any:
        out = tensor.as_subclass(cls)
        for key, value in metadata.items():
            setattr(out, key, value)
        return out

    def _metadata(self) -> dict[str, Any]:
        return {}

    @classmethod
    def __torch_function__(
        cls, func: Callable, types: Any, args: tuple = (), kwargs: dict | None = None
    ) -> Any:
        with chainrule._C.DisableTorchFunctionSubclass():
            out = func(*args, **(kwargs or {}))
        name = getattr(func, "__name__", "")
        first = args[0] if args else None
        keep = _return_type["value"] == "TVTensor" or name in _KEEP_TYPE
        if (
            keep
            and isinstance(first, TVTensor)
            and isinstance(out, Tensor)
            and not isinstance(out, TVTensor)
        ):
            return type(first)._wrap(out, **first._metadata())
        if not keep and isinstance(out, TVTensor):
            # an op that returned its input unchanged (``x.float()`` of a float tensor)
            return out.as_subclass(Tensor)
        return out

    def __repr__(self, *, tensor_contents: Any = None) -> str:
        # the tensor's repr under this class's name, the rows after the first moved with it
        text = Tensor.__repr__(self)
        name = type(self).__name__
        return name + text[len("tensor") :].replace(
            "\n" + " " * len("tensor("), "\n" + " " * (len(name) + 1)
        )

    def _make_repr(self) -> str:
        """The repr with the metadata (``Image(..., )`` has none) before the parenthesis."""
        extra = ", ".join(f"{k}={v}" for k, v in self._metadata().items())
        return f"{TVTensor.__repr__(self)[:-1]}, {extra})"


def wrap(wrappee: Tensor, *, like: TVTensor, **kwargs: Any) -> Any:
    """``wrappee`` as the TVTensor type of ``like``, with its metadata (``kwargs`` override)."""
    metadata = {**like._metadata(), **kwargs} if isinstance(like, TVTensor) else kwargs
    return type(like)._wrap(wrappee, **metadata)


def set_return_type(return_type: str) -> _ReturnTypeCM:
    """What ops on TVTensors return from now on: ``"Tensor"`` (default) or ``"TVTensor"``;
    as a context manager, the previous setting comes back on exit."""
    allowed = {"tensor": "Tensor", "tvtensor": "TVTensor"}
    if return_type.lower() not in allowed:
        raise ValueError(f"return_type must be 'TVTensor' or 'Tensor', got {return_type}") from None
    previous = _return_type["value"]
    _return_type["value"] = allowed[return_type.lower()]
    return _ReturnTypeCM(previous)


class _ReturnTypeCM:
    """Restores the return type it was made with on exit."""

    def __init__(self, previous: str) -> None:
        self._previous = previous

    def __enter__(self) -> None:
        return None

    def __exit__(self, *args: Any) -> None:
        _return_type["value"] = self._previous
