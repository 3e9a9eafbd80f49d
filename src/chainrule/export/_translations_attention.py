"""``F.multi_head_attention_forward`` as the ATen calls PyTorch's export writes for it
(self-attention with one packed input projection): the projection split into q, k, v by
``unflatten``/``select``, heads made by ``view``/``transpose``; then
``scaled_dot_product_attention`` when no weights are asked for, else the scaled
``bmm``/``baddbmm``, ``softmax`` and ``bmm`` with the weights averaged over the heads."""

from __future__ import annotations

import math
from typing import Any

from ._translations_more import PREV, Chain, Step


def _refuse(why: str) -> None:
    raise NotImplementedError(f"chainrule.export exports multi_head_attention_forward {why}")


def multi_head_attention_forward(
    query: Any,
    key: Any,
    value: Any,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Any,
    in_proj_bias: Any,
    bias_k: Any,
    bias_v: Any,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Any,
    out_proj_bias: Any,
    training: bool = True,
    key_padding_mask: Any = None,
    need_weights: bool = True,
    attn_mask: Any = None,
    use_separate_proj_weight: bool = False,
    q_proj_weight: Any = None,
    k_proj_weight: Any = None,
    v_proj_weight: Any = None,
    static_k: Any = None,
    static_v: Any = None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
) -> Chain:
    """The chain of calls for self-attention (``query is key is value``, batched, one
    packed in-projection, no key padding mask, no added key/value biases)."""
    if not (query is key and key is value) or query.dim() != 3:
        _refuse("for batched self-attention only (query, key and value one tensor)")
    if use_separate_proj_weight or bias_k is not None or add_zero_attn:
        _refuse("with one packed input projection and no bias_k/bias_v/add_zero_attn only")
    if key_padding_mask is not None or static_k is not None or static_v is not None:
        _refuse("without key_padding_mask or static keys")
    if is_causal:
        _refuse("without is_causal")
    if attn_mask is not None and (
        attn_mask.dim() != 2 or attn_mask.dtype.is_floating_point is False
    ):
        _refuse("with a 2-D float attn_mask only")
    length, batch, embed = query.shape
    heads = num_heads
    head_dim = embed // heads
    dropout = dropout_p if training else 0.0
    calls: list = [
        ("linear.default", [query, in_proj_weight, in_proj_bias], {}),
        ("unflatten.int", [PREV, -1, [3, embed]], {}),
        ("unsqueeze.default", [PREV, 0], {}),
        ("transpose.int", [PREV, 0, -2], {}),
        ("squeeze.dim", [PREV, -2], {}),
        ("contiguous.default", [PREV], {}),
        ("select.int", [Step(5), 0, 0], {}),
        ("select.int", [Step(5), 0, 1], {}),
        ("select.int", [Step(5), 0, 2], {}),
    ]
    if attn_mask is not None:
        calls.append(("unsqueeze.default", [attn_mask, 0], {}))
    mask = Step(len(calls) - 1) if attn_mask is not None else None
    heads_of = []  # q, k, v as (batch * heads, length, head_dim)
    for i in range(3):
        calls.append(("view.default", [Step(6 + i), [length, batch * heads, head_dim]], {}))
        calls.append(("transpose.int", [PREV, 0, 1], {}))
        heads_of.append(Step(len(calls) - 1))
    q, k, v = heads_of
    if not need_weights:
        if attn_mask is not None:
            _refuse("with an attn_mask only when need_weights is True")
        for part in heads_of:
            calls.append(("view.default", [part, [batch, heads, length, head_dim]], {}))
        n = len(calls)
        sdpa = [Step(n - 3), Step(n - 2), Step(n - 1)] + ([] if dropout == 0.0 else [None, dropout])
        calls.append(("scaled_dot_product_attention.default", sdpa, {}))
        calls.append(("permute.default", [PREV, [2, 0, 1, 3]], {}))
        calls.append(("reshape.default", [PREV, [batch * length, embed]], {}))
        calls.append(("linear.default", [PREV, out_proj_weight, out_proj_bias], {}))
        calls.append(("view.default", [PREV, [length, batch, embed]], {}))
        return Chain(calls)
    if dropout != 0.0 or not average_attn_weights:
        _refuse("with weights only without dropout and with averaged weights")
    calls.append(("mul.Tensor", [q, math.sqrt(1.0 / head_dim)], {}))
    scaled = Step(len(calls) - 1)
    calls.append(("transpose.int", [k, -2, -1], {}))
    if mask is None:
        calls.append(("bmm.default", [scaled, PREV], {}))
    else:
        calls.append(("baddbmm.default", [mask, scaled, PREV], {}))
    calls.append(("softmax.int", [PREV, -1], {}))
    weights = Step(len(calls) - 1)
    calls.append(("bmm.default", [weights, v], {}))
    calls.append(("transpose.int", [PREV, 0, 1], {}))
    calls.append(("reshape.default", [PREV, [length * batch, embed]], {}))
    calls.append(("linear.default", [PREV, out_proj_weight, out_proj_bias], {}))
    calls.append(("view.default", [PREV, [length, batch, embed]], {}))
    out = len(calls) - 1
    calls.append(("view.default", [weights, [batch, heads, length, length]], {}))
    calls.append(("mean.dim", [PREV, [1]], {}))
    return Chain(calls, [out, len(calls) - 1])


def canonical_mask(mask: Any, *args: Any, **kwargs: Any) -> list:
    """A float attention mask is used as it is: no node (a bool one is refused)."""
    if not mask.dtype.is_floating_point:
        _refuse("with float masks only")
    return []
