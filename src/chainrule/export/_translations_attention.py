"""``F.multi_head_attention_forward`` as the ATen calls PyTorch's export writes for it,
step by step as PyTorch's function takes them: an unbatched input ``unsqueeze``-d to a
batch of one; the input projection (self-attention: one packed ``linear`` split into q,
k, v by ``unflatten``/``select``; key and value one tensor: the weights
``split_with_sizes`` into the query's and the key-value's; all three different: the
weights ``chunk``-ed in three; separate projection weights: the bias ``chunk``-ed);
``bias_k``/``bias_v`` ``repeat``-ed over the batch and ``cat``-ed to k and v, a zero
attention column ``cat``-ed after the heads are made (``view``/``transpose``), each
``pad``-ding the masks by one column; a key padding mask spread over the heads and added
to the attention mask; then ``scaled_dot_product_attention`` when no weights are asked
for, else the scaled ``bmm``/``baddbmm``, ``softmax`` and ``bmm`` with the weights
(averaged over the heads). A bool mask becomes an additive one (``zeros_like``,
``masked_fill_``).

Under ``dynamic_shapes`` the sizes are read as PyTorch's function reads them (recorded,
``WriteNow.shape``), so the views' sizes are written as its ``sym_size``/``mul``/``add``
nodes, and the names its trace took and dropped are taken too: the packed projection's
``contiguous`` check, and the ``sym_size`` reads of its shape checks (each input's sizes
once, a new mask's or key's every time). Not yet with dynamic sizes: ``bias_k`` or
``add_zero_attn`` with a mask, ``bias_k`` with another key, a 3-D mask with a dynamic
batch.

The calls are written as they are made (``WriteNow``), since later ones read single
results of a ``chunk``; the last ones, giving the outputs, form the returned chain."""

from __future__ import annotations

import math
from typing import Any

from ._translations_factories import factory_kwargs
from ._translations_more import PREV, Chain, Step, trim
from ._translations_now import WriteNow


def _refuse(why: str) -> None:
    raise NotImplementedError(f"chainrule.export exports multi_head_attention_forward {why}")


def _linear(input: Any, weight: Any, bias: Any) -> tuple:
    return "linear.default", [input, weight] + ([] if bias is None else [bias]), {}


class _PackedChecks:
    """The nodes PyTorch's trace makes and drops checking the strides of the packed
    (3, length, batch, embed) projection made ``contiguous``, by which of length and
    batch are dynamic: once for each pattern of sizes, but again each time when both
    are dynamic (its trace keeps no result of those checks)."""

    def __repr__(self) -> str:
        return "packed checks"

    @staticmethod
    def repeats(dynamic: tuple[bool, ...]) -> bool:
        return all(dynamic)

    def __call__(self, dynamic: tuple[bool, ...]) -> list[str]:
        if dynamic[1]:
            return ["sym_numel_default", "sym_size_int", "mul", "sym_stride_int", "mul", "mul"]
        return ["sym_numel_default", "mul", "mul"]


class _Reads:
    """The sizes PyTorch's shape checks compare, each read once per tensor and dim (a
    ``sym_size`` node it makes and drops); ``tags`` names each size's tensor and dim. The
    sizes passed to ops count one read per distinct expression; the reads beyond those
    are taken here. ``fresh``: the sizes of a new tensor, read every time."""

    by_text = True  # (``SizeRecord.dropped`` gives the sizes' expressions)

    def __init__(self, tags: tuple[str, ...], fresh: bool = False) -> None:
        self.tags = tags
        self.fresh = fresh

    def __repr__(self) -> str:
        return f"reads {id(self)}" if self.fresh else f"reads {self.tags}"

    def __call__(self, dynamic: tuple[bool, ...], texts: tuple[str, ...]) -> list[str]:
        tags = {t for t, d in zip(self.tags, dynamic) if d}
        known = set() if self.fresh else {x for x, d in zip(texts, dynamic) if d}
        return ["sym_size_int"] * (len(tags) - len(known))


def _checked(call: WriteNow, tensors: dict[str, Any]) -> None:
    """The reads of PyTorch's checks of the shapes of ``tensors`` (by tag; one tensor
    under two tags is read once)."""
    sizes: list = []
    tags: list[str] = []
    seen: dict[int, str] = {}
    for tag, t in tensors.items():
        if t is None:
            continue
        tag = seen.setdefault(id(t), tag)
        for d, size in enumerate(call.shape(t)):
            sizes.append(size)
            tags.append(f"{tag}{d}")
    call.dropped(tuple(sizes), _Reads(tuple(tags)))


def _in_projection(
    call: WriteNow,
    query: Any,
    key: Any,
    value: Any,
    weight: Any,
    bias: Any,
    separate: list,
    sizes: tuple,
) -> list:
    """q, k, v projected, as PyTorch's packed or separate in-projection writes them
    (``sizes``: the key's length and batch)."""
    embed = int(query.shape[-1])
    if separate:
        biases = [None] * 3 if bias is None else list(call("chunk.default", [bias, 3]))
        return [call(*_linear(x, w, b)) for x, w, b in zip((query, key, value), separate, biases)]
    if query is key and key is value:
        packed = call(*_linear(query, weight, bias))
        packed = call("unflatten.int", [packed, -1, [3, embed]])
    elif key is value:
        w_q, w_kv = call("split_with_sizes.default", [weight, [embed, 2 * embed]])
        b_q, b_kv = (
            (None, None)
            if bias is None
            else call("split_with_sizes.default", [bias, [embed, 2 * embed]])
        )
        q = call(*_linear(query, w_q, b_q))
        packed = call(*_linear(key, w_kv, b_kv))
        packed = call("unflatten.int", [packed, -1, [2, embed]])
        call.dropped(sizes, _PackedChecks())
    else:
        weights = call("chunk.default", [weight, 3])
        biases = [None] * 3 if bias is None else call("chunk.default", [bias, 3])
        return [call(*_linear(x, w, b)) for x, w, b in zip((query, key, value), weights, biases)]
    packed = call("unsqueeze.default", [packed, 0])
    packed = call("transpose.int", [packed, 0, -2])
    packed = call("squeeze.dim", [packed, -2])
    if query is key:
        call.dropped(sizes, _PackedChecks())
    both = call("contiguous.default", [packed])
    parts = [call("select.int", [both, 0, i]) for i in range(3 if query is key else 2)]
    return parts if query is key else [q, *parts]


def _additive(call: WriteNow, mask: Any, dtype: Any) -> Any:
    """A bool mask as PyTorch's additive one: ``-inf`` where True, else 0."""
    if mask is None or mask.dtype.is_floating_point:
        return mask
    zeros = call("zeros_like.default", [mask], {"dtype": dtype, "pin_memory": False})
    return call("masked_fill_.Scalar", [zeros, mask, float("-inf")])


def _padded(call: WriteNow, *masks: Any) -> list:
    """Each mask given with one more (zero) column, for an added key."""
    return [None if m is None else call("pad.default", [m, [0, 1]]) for m in masks]


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
    """The calls of attention (the ones before the outputs written at once; the chain
    returned gives the outputs)."""
    if static_k is not None or static_v is not None:
        _refuse("without static keys")
    call = WriteNow("multi_head_attention_forward")
    batched = query.dim() == 3
    # (PyTorch's checks read the inputs' sizes: an unsqueezed input's are the same reads)
    given = {"q": query, "k": key, "v": value, "p": key_padding_mask}
    if not batched:
        query, key, value = (call("unsqueeze.default", [x, 1]) for x in (query, key, value))
        if key_padding_mask is not None:
            key_padding_mask = call("unsqueeze.default", [key_padding_mask, 0])
    length, batch, embed = call.shape(query)
    embed = int(embed)
    heads = num_heads
    head_dim = embed // heads
    _check_dynamic(call, (length, batch, *call.shape(key)[:2]), locals())
    padding = _additive(call, key_padding_mask, query.dtype)
    if is_causal and padding is None and not need_weights:
        mask = None  # (PyTorch's attention then makes the causal mask itself)
    else:
        mask = _additive(call, attn_mask, query.dtype)
        is_causal = is_causal and padding is None
    _checked(call, {**given, "a": mask})
    separate = [q_proj_weight, k_proj_weight, v_proj_weight] if use_separate_proj_weight else []
    q, k, v = _in_projection(
        call, query, key, value, in_proj_weight, in_proj_bias, separate, call.shape(key)[:2]
    )
    if mask is not None and mask.dim() == 2:
        mask = call("unsqueeze.default", [mask, 0])
    if bias_k is not None and bias_v is not None:
        k = call("cat.default", [[k, call("repeat.default", [bias_k, [1, batch, 1]])]])
        v = call("cat.default", [[v, call("repeat.default", [bias_v, [1, batch, 1]])]])
        mask, padding = _padded(call, mask, padding)
    sources = (call.shape(k, plus=True)[0], call.shape(v, plus=True)[0])
    if bias_k is not None:  # (the key's and the value's, each read from its new tensor)
        call.dropped(sources[1:], _Reads(("v0",), fresh=True))
    q, k, v = (
        call("transpose.int", [call("view.default", [x, [size, batch * heads, head_dim]]), 0, 1])
        for x, size in zip((q, k, v), (length, *sources))
    )  # fmt: skip
    if add_zero_attn:
        kwargs = factory_kwargs(k.dtype)
        zeros = [batch * heads, 1, head_dim]
        k, v = (
            call("cat.default", [[x, call("zeros.default", [zeros], kwargs)], 1]) for x in (k, v)
        )
        mask, padding = _padded(call, mask, padding)
    source = call.shape(k, plus=True)[1]
    if padding is not None:
        padding = call("view.default", [padding, [batch, 1, 1, source]])
        padding = call("expand.default", [padding, [-1, heads, -1, -1]])
        padding = call("reshape.default", [padding, [batch * heads, 1, source]])
        mask = padding if mask is None else call("add.Tensor", [mask, padding])
    dropout = dropout_p if training else 0.0
    if not need_weights:
        sizes = (batch, heads, embed, length, source)
        if padding is not None:  # (its check reads the new mask's size)
            call.dropped((call.shape(mask)[0],), _Reads(("m0",), fresh=True))
        out = _attention(call, q, k, v, mask, dropout, is_causal, sizes)
        calls: list = [_linear(out, out_proj_weight, out_proj_bias)]
        calls.append(("view.default", [PREV, [length, batch, embed]], {}))
        if not batched:
            calls.append(("squeeze.dim", [PREV, 1], {}))
        return Chain(calls)
    scaled = call("mul.Tensor", [q, math.sqrt(1.0 / head_dim)])
    keys = call("transpose.int", [k, -2, -1])
    if mask is None:
        weights = call("bmm.default", [scaled, keys])
    else:
        weights = call("baddbmm.default", [mask, scaled, keys])
    weights = call("softmax.int", [weights, -1])
    if dropout > 0.0:
        weights = call("dropout.default", [weights, dropout, True])
    out = call("bmm.default", [weights, v])
    out = call("transpose.int", [out, 0, 1])
    out = call("reshape.default", [out, [length * batch, embed]])
    calls = [_linear(out, out_proj_weight, out_proj_bias)]
    calls.append(("view.default", [PREV, [length, batch, embed]], {}))
    calls.append(("view.default", [weights, [batch, heads, length, source]], {}))
    if average_attn_weights:
        calls.append(("mean.dim", [PREV, [1]], {}))
    if batched:
        return Chain(calls, [1, len(calls) - 1])
    weights_at = len(calls) - 1
    calls.append(("squeeze.dim", [Step(1), 1], {}))
    calls.append(("squeeze.dim", [Step(weights_at), 0], {}))
    return Chain(calls, [len(calls) - 2, len(calls) - 1])


def _check_dynamic(call: WriteNow, sizes: tuple, arguments: dict) -> None:
    """Refuses, when the lengths or the batch are dynamic, the forms whose sizes this
    export does not write as PyTorch does yet (``sizes``: the query's length and batch,
    the key's length and batch)."""
    if not call.dynamic(*sizes):
        return
    a = arguments
    mask = a["attn_mask"]
    masked = mask is not None or a["key_padding_mask"] is not None
    forms = {
        "bias_k/bias_v and a mask": a["bias_k"] is not None and masked,
        "bias_k/bias_v and a key other than the query": (
            a["bias_k"] is not None and a["given"]["k"] is not a["given"]["q"]
        ),
        "add_zero_attn and a mask": a["add_zero_attn"] and masked,
        "a 3-D attn_mask and a dynamic batch": (
            mask is not None and mask.dim() == 3 and a["batched"] and call.dynamic(sizes[1])
        ),
    }
    for form, present in forms.items():
        if present:
            _refuse(
                f"with {form} with static sizes only (not yet with a dynamic batch or "
                "length): export with these dims static"
            )


def _attention(
    call: WriteNow,
    q: Any,
    k: Any,
    v: Any,
    mask: Any,
    dropout: float,
    is_causal: bool,
    sizes: tuple,
) -> Any:
    """Attention without weights: heads as (batch, heads, length, head_dim) into
    ``scaled_dot_product_attention``, the result as (length * batch, embed)."""
    batch, heads, embed, length, source = sizes
    head_dim = int(q.shape[2])
    if mask is not None:
        if mask.shape[0] == 1 and mask.dim() == 3:
            mask = call("unsqueeze.default", [mask, 0])
        else:
            mask = call("view.default", [mask, [batch, heads, -1, source]])
    q, k, v = (
        call("view.default", [x, [batch, heads, size, head_dim]])
        for x, size in zip((q, k, v), (length, source, source))
    )
    args = trim([q, k, v, mask, dropout, is_causal], [None, 0.0, False])
    out = call("scaled_dot_product_attention.default", args)
    out = call("permute.default", [out, [2, 0, 1, 3]])
    return call("reshape.default", [out, [batch * length, embed]])


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
    if mask is None or mask.dtype.is_floating_point:
        return []
    return Chain(
        [
            ("zeros_like.default", [mask], {"dtype": target_type, "pin_memory": False}),
            ("masked_fill_.Scalar", [PREV, mask, float("-inf")], {}),
        ]
    )
