"""``torch.nn.attention.flex_attention``: the names exist; chainrule has no FlexAttention.

``BlockMask`` is there for ``isinstance`` checks (never true: none can be made);
``create_block_mask``, ``flex_attention`` and making a ``BlockMask`` raise
``NotImplementedError`` naming the gap. ``_DEFAULT_SPARSE_BLOCK_SIZE`` is PyTorch's 128.
"""

from __future__ import annotations

from typing import Any

__all__ = ["AuxRequest", "BlockMask", "create_block_mask", "flex_attention"]

_DEFAULT_SPARSE_BLOCK_SIZE = 128
_MISSING = "chainrule does not implement torch.nn.attention.flex_attention ({}) yet"


class BlockMask:
    """FlexAttention's block-sparse mask; not implemented by chainrule."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(_MISSING.format("BlockMask"))

    @classmethod
    def from_kv_blocks(cls, *args: Any, **kwargs: Any) -> BlockMask:
        """Not implemented by chainrule: raises ``NotImplementedError``."""
        raise NotImplementedError(_MISSING.format("BlockMask"))


class AuxRequest:
    """Which extra outputs ``flex_attention`` returns; not implemented by chainrule."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(_MISSING.format("AuxRequest"))


def create_block_mask(*args: Any, **kwargs: Any) -> BlockMask:
    """Not implemented by chainrule: raises ``NotImplementedError``."""
    raise NotImplementedError(_MISSING.format("create_block_mask"))


def flex_attention(*args: Any, **kwargs: Any) -> Any:
    """Not implemented by chainrule: raises ``NotImplementedError``."""
    raise NotImplementedError(_MISSING.format("flex_attention"))
