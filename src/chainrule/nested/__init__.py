"""``torch.nested``: nested tensors, a batch of tensors of different sizes, in PyTorch's two
layouts: ``torch.strided`` (the default of ``nested_tensor``) and ``torch.jagged``
(``layout=torch.jagged``, ``nested_tensor_from_jagged``).

The tensor type and its ops are in ``_tensor.py`` and ``_ops.py``, imported on the first
nested tensor (see their docstrings for how they work and where they differ from
PyTorch's): defining a Tensor subclass turns on ``__torch_function__`` dispatch, which
programs without nested tensors do not pay for."""

from __future__ import annotations

from typing import Any

__all__ = [
    "as_nested_tensor",
    "masked_select",
    "narrow",
    "nested_tensor",
    "nested_tensor_from_jagged",
    "to_padded_tensor",
]


def _impl() -> Any:
    return _ops


def nested_tensor(
    tensor_list: Any,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Any:
    """A nested tensor of copies of ``tensor_list``'s tensors (a leaf)."""
    return _impl().nested_tensor(
        tensor_list, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad
    )


def as_nested_tensor(ts: Any, dtype: Any = None, device: Any = None, layout: Any = None) -> Any:
    """A nested tensor of ``ts`` (a list of tensors, or a tensor's slices along dim 0), in
    their graph: the gradient reaches them."""
    return _impl().as_nested_tensor(ts, dtype=dtype, device=device, layout=layout)


def nested_tensor_from_jagged(
    values: Any,
    offsets: Any = None,
    lengths: Any = None,
    jagged_dim: int | None = None,
    min_seqlen: int | None = None,
    max_seqlen: int | None = None,
) -> Any:
    """The jagged nested tensor whose component i is ``values[offsets[i]:offsets[i + 1]]``
    (``lengths[i]`` rows from ``offsets[i]`` when given), a view of ``values``."""
    return _impl().from_jagged(values, offsets, lengths, jagged_dim)


def to_padded_tensor(input: Any, padding: float, output_size: Any = None) -> Any:
    """The dense tensor of the components, each padded with ``padding`` to the largest size
    (or ``output_size``), stacked."""
    return _impl().to_padded_tensor(input, padding, output_size)


def narrow(tensor: Any, dim: int, start: Any, length: Any, layout: Any = None) -> Any:
    """Rows ``start[i] : start[i] + length[i]`` of each ``tensor[i]`` along ``dim`` (1), as a
    jagged nested tensor viewing ``tensor`` (strided: a nested tensor of the slices)."""
    return _impl().narrow(tensor, dim, start, length, layout)


def masked_select(tensor: Any, mask: Any) -> Any:
    """The elements of each ``tensor[i]`` where ``mask`` (broadcast to it) holds, as a
    jagged nested tensor."""
    return _impl().masked_select(tensor, mask)


# (the tensor type, defined now: from here on the public functions dispatch on it)
from . import _ops  # noqa: E402, F401
