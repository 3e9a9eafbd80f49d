"""``chainrule.nn.attention.bias`` (PyTorch's ``torch.nn.attention.bias``): causal masks
for queries and keys of different lengths, given to ``scaled_dot_product_attention`` as
its ``attn_mask``.

Query i may attend key j when j ≤ i (``UPPER_LEFT``: the diagonal starts at the top
left) or when j ≤ i + (keys - queries) (``LOWER_RIGHT``: the diagonal ends at the bottom
right, the last query sees every key). ``CausalBias`` is a tensor subclass, as in
PyTorch, that attention answers through ``__torch_function__``."""

from __future__ import annotations

import enum
import warnings
from typing import Any

from ..._tensor import Tensor

__all__ = ["CausalBias", "CausalVariant", "causal_lower_right", "causal_upper_left"]


class CausalVariant(enum.IntEnum):
    """Where the causal diagonal is anchored."""

    UPPER_LEFT = 1
    LOWER_RIGHT = 2


class CausalBias(Tensor):
    """A causal mask of ``seq_len_q`` queries by ``seq_len_kv`` keys, made when used.

    As in PyTorch, it is a tensor subclass, built by the legacy constructor from its
    arguments (an uninitialised float tensor of shape ``(variant, seq_len_q,
    seq_len_kv)``, never read); ``scaled_dot_product_attention`` given one as its
    ``attn_mask`` is answered by ``__torch_function__``: causal attention for the upper
    left variant (or square masks), the materialised bool mask for the lower right."""

    def __init__(self, variant: CausalVariant, seq_len_q: int, seq_len_kv: int) -> None:
        if not isinstance(variant, CausalVariant):
            raise AssertionError(f"variant must be a CausalVariant, got {type(variant).__name__}")
        super().__init__()
        self.variant = variant
        self.seq_len_q = seq_len_q
        self.seq_len_kv = seq_len_kv
        if seq_len_q > seq_len_kv and variant == CausalVariant.LOWER_RIGHT:
            warnings.warn(
                "Lower right causal bias will produce NaNs in the output when "
                "seq_len_q > seq_len_kv!",
                stacklevel=2,
            )

    def _materialize(self, device: Any = None) -> Any:
        """The bool mask (True: attend), of shape (seq_len_q, seq_len_kv)."""
        from ... import ones

        mask = ones(self.seq_len_q, self.seq_len_kv, dtype=bool, device=device or "cpu")
        if self.variant == CausalVariant.UPPER_LEFT:
            return mask.tril(0)
        return mask.tril(self.seq_len_kv - self.seq_len_q)

    @staticmethod
    def _dispatch(
        query: Any,
        key: Any,
        value: Any,
        attn_mask: CausalBias,
        dropout_p: float = 0.0,
        is_causal: bool = False,
        scale: float | None = None,
        enable_gqa: bool = False,
    ) -> Any:
        """``scaled_dot_product_attention`` with this bias as its mask."""
        from ..functional import scaled_dot_product_attention as sdpa

        if is_causal:
            raise ValueError("CausalBias should not be used with causal=True")
        if attn_mask.variant not in (CausalVariant.UPPER_LEFT, CausalVariant.LOWER_RIGHT):
            raise ValueError(
                f"CausalBias.variant must be a CausalVariant type, but found: {attn_mask.variant}"
            )
        square = attn_mask.seq_len_q == attn_mask.seq_len_kv
        if square or attn_mask.variant == CausalVariant.UPPER_LEFT:
            mask, causal = None, True
        else:
            mask, causal = attn_mask._materialize(query.device), False
        return sdpa(
            query,
            key,
            value,
            attn_mask=mask,
            dropout_p=dropout_p,
            is_causal=causal,
            scale=scale,
            enable_gqa=enable_gqa,
        )

    @classmethod
    def __torch_function__(
        cls, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None
    ) -> Any:
        from ..functional import scaled_dot_product_attention

        if kwargs is None:
            kwargs = {}
        if func is scaled_dot_product_attention:
            return cls._dispatch(*args, **kwargs)
        return super().__torch_function__(func, types, args, kwargs)

    def __repr__(self) -> str:  # type: ignore[override]
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
