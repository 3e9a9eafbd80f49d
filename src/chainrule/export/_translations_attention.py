"""``F.multi_head_attention_forward`` as the ATen calls PyTorch's export writes for it:
the input projection (self-attention: one packed ``linear`` split into q, k, v by
``unflatten``/``select``; key and value one tensor: the weights ``split_with_sizes`` into
the query's and the key-value's; all three different: the weights ``chunk``-ed in three),
heads made by ``view``/``transpose``, a key padding mask spread over the heads and added to
the attention mask; then ``scaled_dot_product_attention`` when no weights are asked for,
else the scaled ``bmm``/``baddbmm``, ``softmax`` and ``bmm`` with the weights (averaged
over the heads). A bool mask becomes an additive one (``zeros_like``, ``masked_fill_``)."""

from __future__ import annotations

import math
from typing import Any

from ._translations_more import PREV, Chain, Step, current_recorder, trim


def _refuse(why: str) -> None:
    raise NotImplementedError(f"chainrule.export exports multi_head_attention_forward {why}")


def _split_now(overload: str, tensor: Any, how: Any) -> list:
    """The pieces of a weight (``split_with_sizes``/``chunk``), written at once: the chain's
    links then read them as tensors (a link reads a whole call, not one of its results)."""
    from ._reader import ATEN

    recorder = current_recorder()
    if recorder is None:
        _refuse("inside chainrule.export only")
    target = ATEN.overload(f"aten.{overload}")
    pieces = target(tensor, how)
    recorder._write(target, overload, [tensor, how], {}, [], pieces)
    return list(pieces)


def _linear(input: Any, weight: Any, bias: Any) -> tuple:
    return "linear.default", [input, weight] + ([] if bias is None else [bias]), {}


def _in_projection(query: Any, key: Any, value: Any, weight: Any, bias: Any, calls: list) -> list:
    """q, k, v projected (``calls`` grows by the links; the results as chain steps)."""
    embed = query.shape[-1]

    def add(call: tuple) -> Step:
        calls.append(call)
        return Step(len(calls) - 1)

    if query is key and key is value:
        packed = add(_linear(query, weight, bias))
        add(("unflatten.int", [packed, -1, [3, embed]], {}))
    elif key is value:
        w_q, w_kv = _split_now("split_with_sizes.default", weight, [embed, 2 * embed])
        b_q, b_kv = (
            (None, None)
            if bias is None
            else _split_now("split_with_sizes.default", bias, [embed, 2 * embed])
        )
        q = add(_linear(query, w_q, b_q))
        packed = add(_linear(key, w_kv, b_kv))
        add(("unflatten.int", [packed, -1, [2, embed]], {}))
    else:
        weights = _split_now("chunk.default", weight, 3)
        biases = [None] * 3 if bias is None else _split_now("chunk.default", bias, 3)
        return [add(_linear(x, w, b)) for x, w, b in zip((query, key, value), weights, biases)]
    add(("unsqueeze.default", [PREV, 0], {}))
    add(("transpose.int", [PREV, 0, -2], {}))
    add(("squeeze.dim", [PREV, -2], {}))
    both = add(("contiguous.default", [PREV], {}))
    parts = [add(("select.int", [both, 0, i], {})) for i in range(3 if query is key else 2)]
    return parts if query is key else [q, *parts]


def _additive(mask: Any, dtype: Any, calls: list) -> Any:
    """A bool mask as PyTorch's additive one: ``-inf`` where True, else 0."""
    if mask is None or mask.dtype.is_floating_point:
        return mask
    calls.append(("zeros_like.default", [mask], {"dtype": dtype, "pin_memory": False}))
    calls.append(("masked_fill_.Scalar", [PREV, mask, float("-inf")], {}))
    return Step(len(calls) - 1)


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
    """The chain of calls for batched attention with the packed in-projection (no added
    key/value biases, zero attention or static keys)."""
    if query.dim() != 3:
        _refuse("for batched attention only")
    if use_separate_proj_weight or bias_k is not None or add_zero_attn:
        _refuse("with one packed input projection and no bias_k/bias_v/add_zero_attn only")
    if static_k is not None or static_v is not None:
        _refuse("without static keys")
    if is_causal:
        _refuse("without is_causal")
    length, batch, embed = query.shape
    source = key.shape[0]
    heads = num_heads
    head_dim = embed // heads
    dropout = dropout_p if training else 0.0
    calls: list = []
    padding = _additive(key_padding_mask, query.dtype, calls)
    mask = _additive(attn_mask, query.dtype, calls)
    projected = _in_projection(query, key, value, in_proj_weight, in_proj_bias, calls)
    if mask is not None:
        if attn_mask.dim() == 2:
            calls.append(("unsqueeze.default", [mask, 0], {}))
            mask = Step(len(calls) - 1)
        elif attn_mask.dim() != 3:
            _refuse("with a 2-D or 3-D attn_mask only")
    heads_of = []  # q, k, v as (batch * heads, length, head_dim)
    for part, size in zip(projected, (length, source, source)):
        calls.append(("view.default", [part, [size, batch * heads, head_dim]], {}))
        calls.append(("transpose.int", [PREV, 0, 1], {}))
        heads_of.append(Step(len(calls) - 1))
    q, k, v = heads_of
    if padding is not None:
        calls.append(("view.default", [padding, [batch, 1, 1, source]], {}))
        calls.append(("expand.default", [PREV, [-1, heads, -1, -1]], {}))
        calls.append(("reshape.default", [PREV, [batch * heads, 1, source]], {}))
        if mask is not None:
            calls.append(("add.Tensor", [mask, PREV], {}))
        mask = Step(len(calls) - 1)
    if not need_weights:
        if mask is not None:
            # (the mask's first size: 1 for a 2-D attn_mask alone, else batch * heads)
            first = 1 if padding is None and attn_mask.dim() == 2 else batch * heads
            if first == 1:
                calls.append(("unsqueeze.default", [mask, 0], {}))
            else:
                calls.append(("view.default", [mask, [batch, heads, -1, source]], {}))
            mask = Step(len(calls) - 1)
        for part, size in zip(heads_of, (length, source, source)):
            calls.append(("view.default", [part, [batch, heads, size, head_dim]], {}))
        n = len(calls)
        sdpa = [Step(n - 3), Step(n - 2), Step(n - 1), mask, dropout]
        calls.append(("scaled_dot_product_attention.default", trim(sdpa, [None, 0.0]), {}))
        calls.append(("permute.default", [PREV, [2, 0, 1, 3]], {}))
        calls.append(("reshape.default", [PREV, [batch * length, embed]], {}))
        calls.append(_linear(PREV, out_proj_weight, out_proj_bias))
        calls.append(("view.default", [PREV, [length, batch, embed]], {}))
        return Chain(calls)
    if dropout != 0.0:
        _refuse("with weights only without dropout")
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
    calls.append(_linear(PREV, out_proj_weight, out_proj_bias))
    calls.append(("view.default", [PREV, [length, batch, embed]], {}))
    out = len(calls) - 1
    calls.append(("view.default", [weights, [batch, heads, length, source]], {}))
    if average_attn_weights:
        calls.append(("mean.dim", [PREV, [1]], {}))
    return Chain(calls, [out, len(calls) - 1])


def canonical_mask(
    mask: Any = None,
    mask_name: str = "",
    other_type: Any = None,
    other_name: str = "",
    target_type: Any = None,
    check_other: bool = True,
) -> Any:
    """A float attention mask is used as it is (no node); a bool one becomes PyTorch's
    additive mask: ``zeros_like`` of ``target_type``, ``masked_fill_`` with ``-inf``."""
    calls: list = []
    _additive(mask, target_type, calls)
    return Chain(calls) if calls else []
