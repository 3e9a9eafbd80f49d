"""``chainrule.nn.attention.bias`` (PyTorch's ``torch.nn.attention.bias``): causal masks
for queries and keys of different lengths, given to ``scaled_dot_product_attention`` as
its ``attn_mask``.

Query i may attend key j when j ≤ i (``UPPER_LEFT``: the diagonal starts at the top
left) or when j ≤ i + (keys - queries) (``LOWER_RIGHT``: the diagonal ends at the bottom
right, the last query sees every key). PyTorch's ``CausalBias`` is a tensor subclass;
here it is a small object that attention turns into its bool mask."""

from __future__ import annotations

import enum
from typing import Any

__all__ = ["CausalBias", "CausalVariant", "causal_lower_right", "causal_upper_left"]


class CausalVariant(enum.IntEnum):
    """Where the causal diagonal is anchored."""

    UPPER_LEFT = 1
    LOWER_RIGHT = 2


class CausalBias:
    """A causal mask of ``seq_len_q`` queries by ``seq_len_kv`` keys, made when used."""

    def __init__(self, variant: CausalVariant, seq_len_q: int, seq_len_kv: int) -> None:
        if not isinstance(variant, CausalVariant):
            raise AssertionError(f"variant must be a CausalVariant, got {variant!r}")
        self.variant = variant
        self.seq_len_q = seq_len_q
        self.seq_len_kv = seq_len_kv

    def _materialize(self, device: Any = None) -> Any:
        """The bool mask (True: attend), of shape (seq_len_q, seq_len_kv)."""
        from ... import ones

        mask = ones(self.seq_len_q, self.seq_len_kv, dtype=bool, device=device)
        if self.variant == CausalVariant.UPPER_LEFT:
            return mask.tril(0)
        return mask.tril(self.seq_len_kv - self.seq_len_q)

    def __repr__(self) -> str:
        return repr(self._materialize())


def _causal(variant: CausalVariant, name: str, size: tuple) -> CausalBias:
    if len(size) != 2:
        raise AssertionError(f"{name} only supports 2D tensors")
    return CausalBias(variant, int(size[0]), int(size[1]))


def causal_upper_left(*size: int) -> CausalBias:
    """The causal mask anchored at the top left: query i attends keys 0..i."""
    return _causal(CausalVariant.UPPER_LEFT, "causal_upper_left", size)


def causal_lower_right(*size: int) -> CausalBias:
    """The causal mask anchored at the bottom right: query i attends keys
    0..i + (keys - queries)."""
    return _causal(CausalVariant.LOWER_RIGHT, "causal_lower_right", size)
