"""``torch._dynamo._trace_wrapped_higher_order_op``: :class:`TransformGetItemToIndex`.

chainrule captures no graphs; the mode is here for code (transformers' attention masks)
that indexes with scalar tensors inside it, with PyTorch's meaning.
"""

from __future__ import annotations

from typing import Any

from .. import overrides
from .._tensor import Tensor

__all__ = ["TransformGetItemToIndex"]


def _leaves(key: Any) -> list:
    if isinstance(key, (tuple, list)):
        return [leaf for item in key for leaf in _leaves(item)]
    return [] if key is None else [key]


class TransformGetItemToIndex(overrides.TorchFunctionMode):
    """While active, ``t[i, j]`` with only integer and tensor indices indexes with tensors
    (python ints become 0-d int64 tensors): the result is a new tensor gathered by advanced
    indexing, never a view chosen by the value of a scalar tensor."""

    def __torch_function__(
        self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None
    ) -> Any:
        if func == Tensor.__getitem__:
            target = args[0]
            if not isinstance(target, Tensor):
                raise AssertionError(f"expected torch.Tensor, got {type(target)}")
            leaves = _leaves(args[1])
            if leaves and all(isinstance(x, (Tensor, int)) for x in leaves):
                from .. import tensor as make_tensor
                from .._dtypes import int64

                index = tuple(
                    x
                    if isinstance(x, Tensor)
                    else make_tensor(x, dtype=int64, device=target.device)
                    for x in leaves
                )
                return target[index]
        return func(*args, **(kwargs or {}))
