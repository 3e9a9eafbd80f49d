"""``torch.fx.passes.shape_prop``: ShapeProp, which runs a GraphModule and records each
Node's result as ``node.meta['tensor_meta']`` (a TensorMetadata) and ``node.meta['type']``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..._tensor import Tensor
from ..interpreter import Interpreter
from ..node import Node, map_aggregate

__all__ = ["ShapeProp", "TensorMetadata"]


class TensorMetadata(NamedTuple):
    """What ShapeProp records of a tensor."""

    shape: Any
    dtype: Any
    requires_grad: bool
    stride: tuple[int, ...]
    memory_format: Any
    is_quantized: bool
    qparams: dict[str, Any]


def _extract_tensor_metadata(result: Tensor) -> TensorMetadata:
    import chainrule

    memory_format = None
    for fmt in (chainrule.contiguous_format, chainrule.channels_last):
        if result.is_contiguous(memory_format=fmt):
            memory_format = fmt
            break
    return TensorMetadata(
        result.shape, result.dtype, result.requires_grad, result.stride(), memory_format, False, {}
    )


class ShapeProp(Interpreter):
    """An Interpreter that records the metadata of every tensor result."""

    def __init__(self, gm: Any, fake_mode: Any = None) -> None:
        super().__init__(gm)

    def run_node(self, n: Node) -> Any:
        """Run ``n`` and record its result's metadata in ``n.meta``."""
        result = super().run_node(n)
        found: list[bool] = []

        def extract(obj: Any) -> Any:
            if isinstance(obj, Tensor):
                found.append(True)
                return _extract_tensor_metadata(obj)
            return obj

        meta = map_aggregate(result, extract)
        if found:
            n.meta["tensor_meta"] = meta
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args: Any) -> Any:
        """Run the module on ``args``, recording metadata; its result."""
        return super().run(*args)
