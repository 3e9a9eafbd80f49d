"""``torch.nn.functional.multi_head_attention_forward``: the computation of
``nn.MultiheadAttention``, composed of ops as PyTorch composes it: the input projections
(packed or separate), the optional key/value biases and zero attention, the padding and
attention masks merged into one additive mask, then either the explicit attention weights
(``need_weights``: baddbmm, softmax, dropout, bmm; returned averaged over the heads or not)
or scaled_dot_product_attention, and the output projection. Its derivative is that of the
ops it is made of."""

from __future__ import annotations

import math
import warnings
from typing import Any

from ..._backend import xp
from ..._creation import zeros
from ..._dtypes import bool as bool_
from ..._tensor import Tensor, _make
from .attention import scaled_dot_product_attention
from .dropout import dropout
from .linear import linear
from .shapes import cat


def _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads: int) -> bool:
    """Whether the inputs are batched (3-D), with PyTorch's assertions on the ranks."""
    if query.ndim == 3:
        if key.ndim != 3 or value.ndim != 3:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                f"{key.ndim}-D and {value.ndim}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.ndim != 2:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D "
                f"but found {key_padding_mask.ndim}-D tensor instead"
            )
        if attn_mask is not None and attn_mask.ndim not in (2, 3):
            raise AssertionError(
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                f"found {attn_mask.ndim}-D tensor instead"
            )
        return True
    if query.ndim == 2:
        if key.ndim != 2 or value.ndim != 2:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                f"{key.ndim}-D and {value.ndim}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.ndim != 1:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D "
                f"but found {key_padding_mask.ndim}-D tensor instead"
            )
        if attn_mask is not None:
            if attn_mask.ndim not in (2, 3):
                raise AssertionError(
                    "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                    f"but found {attn_mask.ndim}-D tensor instead"
                )
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.ndim == 3 and tuple(attn_mask.shape) != expected:
                raise AssertionError(
                    f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}"
                )
        return False
    raise AssertionError(
        "query should be unbatched 2D or batched 3D tensor but received "
        f"{query.ndim}-D query tensor"
    )


def _canonical_mask(
    mask: Tensor | None,
    mask_name: str,
    other_type: Any,
    other_name: str,
    target_type: Any,
    check_other: bool = True,
) -> Tensor | None:
    """A bool mask (True: masked out) as an additive one (-inf there, 0 elsewhere, of
    ``target_type``); a float mask as it is; PyTorch's check of the mask's type and its
    warning when it differs from the other mask's (``other_type``)."""
    if mask is None:
        return None
    if mask.dtype != bool_ and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(
            f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same "
            "type for both instead.",
            stacklevel=3,
        )
    if mask.is_floating_point():
        return mask
    # (where the mask is, as PyTorch's zeros_like(mask).masked_fill_(mask, -inf))
    return _make(xp.where(mask._data, -xp.inf, 0.0).astype(target_type.np), target_type)


def _none_or_dtype(input: Tensor | None) -> Any:
    """The tensor's dtype, or None."""
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _pad_one(mask: Tensor | None) -> Tensor | None:
    """The mask with one more (unmasked, zero) column at the end of its last dim."""
    if mask is None:
        return None
    return cat([mask, zeros(tuple(mask.shape[:-1]) + (1,), dtype=mask.dtype)], dim=-1)


def _packed_projection(query, key, value, weight, bias):
    """q, k, v from the packed (3E, E) weight: one product when query, key and value are
    the same tensor, two when key and value are, three otherwise."""
    e = query.shape[-1]
    if key is value:
        if query is key:
            proj = linear(query, weight, bias)
            return proj[..., :e], proj[..., e : 2 * e], proj[..., 2 * e :]
        w_q, w_kv = weight.split([e, 2 * e])
        b_q, b_kv = (None, None) if bias is None else bias.split([e, 2 * e])
        kv = linear(key, w_kv, b_kv)
        return linear(query, w_q, b_q), kv[..., :e], kv[..., e:]
    w_q, w_k, w_v = weight.chunk(3)
    b_q, b_k, b_v = (None, None, None) if bias is None else bias.chunk(3)
    return linear(query, w_q, b_q), linear(key, w_k, b_k), linear(value, w_v, b_v)


def _separate_projection(query, key, value, w_q, w_k, w_v, bias):
    """q, k, v from three weights (E, E), (E, kdim), (E, vdim), with PyTorch's checks."""
    for name, w in (("q", w_q), ("k", w_k), ("v", w_v)):
        if w is None:
            raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
    b_q, b_k, b_v = (None, None, None) if bias is None else bias.chunk(3)
    eq, ek, ev = query.shape[-1], key.shape[-1], value.shape[-1]
    shapes = (("query", w_q, (eq, eq)), ("key", w_k, (eq, ek)), ("value", w_v, (eq, ev)))
    for name, w, shape in shapes:
        if tuple(w.shape) != shape:
            raise AssertionError(f"expecting {name} weights shape of {shape}, but got {w.shape}")
    for name, b in (("query", b_q), ("key", b_k), ("value", b_v)):
        if b is not None and tuple(b.shape) != (eq,):
            raise AssertionError(f"expecting {name} bias shape of {(eq,)}, but got {b.shape}")
    return linear(query, w_q, b_q), linear(key, w_k, b_k), linear(value, w_v, b_v)


def _heads(t: Tensor, batch_heads: int, head_dim: int) -> Tensor:
    """(length, batch, E) as (batch·heads, length, head_dim)."""
    return t.reshape(t.shape[0], batch_heads, head_dim).transpose(0, 1)


def _static(t: Tensor, name: str, batch_heads: int, head_dim: int) -> Tensor:
    """A given (batch·heads, S, head_dim) key or value, with PyTorch's checks."""
    if t.shape[0] != batch_heads:
        raise AssertionError(
            f"expecting static_{name}.size(0) of {batch_heads}, but got {t.shape[0]}"
        )
    if t.shape[2] != head_dim:
        raise AssertionError(f"expecting static_{name}.size(2) of {head_dim}, but got {t.shape[2]}")
    return t


def _check_attn_mask(attn_mask: Tensor, tgt_len: int, src_len: int, batch_heads: int) -> Tensor:
    """attn_mask (L, S) or (N·heads, L, S), as 3-D, with PyTorch's errors."""
    if attn_mask.ndim == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError(
                f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                f"{(tgt_len, src_len)}."
            )
        return attn_mask.unsqueeze(0)
    if tuple(attn_mask.shape) != (batch_heads, tgt_len, src_len):
        raise RuntimeError(
            f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
            f"{(batch_heads, tgt_len, src_len)}."
        )
    return attn_mask


def _merge_padding(attn_mask, key_padding_mask, bsz: int, num_heads: int, src_len: int):
    """The additive attention mask plus the padding mask repeated over the heads."""
    if key_padding_mask.shape[0] != bsz:
        raise AssertionError(
            f"Expected key_padded_mask.shape[0] to be {bsz}, but got {key_padding_mask.shape[0]}"
        )
    if key_padding_mask.shape[1] != src_len:
        raise AssertionError(
            f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
            f"{key_padding_mask.shape[1]}"
        )
    padding = (
        key_padding_mask.view(bsz, 1, 1, src_len)
        .expand(-1, num_heads, -1, -1)
        .reshape(bsz * num_heads, 1, src_len)
    )
    return padding if attn_mask is None else attn_mask + padding


def multi_head_attention_forward(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Tensor | None,
    in_proj_bias: Tensor | None,
    bias_k: Tensor | None,
    bias_v: Tensor | None,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias: Tensor | None,
    training: bool = True,
    key_padding_mask: Tensor | None = None,
    need_weights: bool = True,
    attn_mask: Tensor | None = None,
    use_separate_proj_weight: bool = False,
    q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None,
    v_proj_weight: Tensor | None = None,
    static_k: Tensor | None = None,
    static_v: Tensor | None = None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """Multi-head attention of (L, N, E) queries over (S, N, E) keys and values (or 2-D,
    unbatched): the output (L, N, E) and, with need_weights, the attention weights (N, L, S)
    averaged over the heads ((N, heads, L, S) without averaging), else None."""
    batched = _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(
        key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask", query.dtype
    )
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the hint alone: scaled_dot_product_attention's own causal mask
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, False)
        if key_padding_mask is not None:
            is_causal = False  # the merged mask is no longer causal
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(
                f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                f"{value.shape[:2]}"
            )
        q, k, v = _separate_projection(
            query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, in_proj_bias
        )
    else:
        if key.shape != value.shape:
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _packed_projection(query, key, value, in_proj_weight, in_proj_bias)
    batch_heads = bsz * num_heads
    if attn_mask is not None:
        attn_mask = _check_attn_mask(attn_mask, tgt_len, src_len, batch_heads)
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask, key_padding_mask = _pad_one(attn_mask), _pad_one(key_padding_mask)
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")
    q = _heads(q, batch_heads, head_dim)
    k = (
        _heads(k, batch_heads, head_dim)
        if static_k is None
        else _static(static_k, "k", batch_heads, head_dim)
    )
    v = (
        _heads(v, batch_heads, head_dim)
        if static_v is None
        else _static(static_v, "v", batch_heads, head_dim)
    )
    if add_zero_attn:
        k = cat([k, zeros((batch_heads, 1, head_dim), dtype=k.dtype)], dim=1)
        v = cat([v, zeros((batch_heads, 1, head_dim), dtype=v.dtype)], dim=1)
        attn_mask, key_padding_mask = _pad_one(attn_mask), _pad_one(key_padding_mask)
    src_len = k.shape[1]
    if key_padding_mask is not None:
        attn_mask = _merge_padding(attn_mask, key_padding_mask, bsz, num_heads, src_len)
    if not training:
        dropout_p = 0.0
    if need_weights:
        scaled = q * math.sqrt(1.0 / float(q.shape[-1]))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        k_t = k.transpose(-2, -1)
        scores = scaled.bmm(k_t) if attn_mask is None else attn_mask.baddbmm(scaled, k_t)
        weights = scores.softmax(dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = weights.bmm(v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias)
        out = out.view(tgt_len, bsz, out.shape[1])
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.ndim == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    out = scaled_dot_product_attention(
        q.view(bsz, num_heads, tgt_len, head_dim),
        k.view(bsz, num_heads, src_len, head_dim),
        v.view(bsz, num_heads, src_len, head_dim),
        attn_mask,
        dropout_p,
        is_causal,
    )
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.shape[1])
    return (out if batched else out.squeeze(1)), None
