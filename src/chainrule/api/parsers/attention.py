"""``torch.nn.functional.scaled_dot_product_attention``: masks (bool: where to attend; or
float: added to the scores), the causal mask, dropout on the attention weights (PyTorch's
mask for the same seed), the scale, grouped-query attention; PyTorch's checks."""

from __future__ import annotations

import math

from ..._backend import asanyarray, like, on_device_of, xp
from ..._tensor import Tensor, wrap
from ...ops import attention, gather_scatter


def _check_dims(query: Tensor, key: Tensor, value: Tensor) -> None:
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {query.ndim} key.dim: {key.ndim} and value.dim: {value.ndim} instead."
        )


def _check(query: Tensor, key: Tensor, value: Tensor) -> None:
    if query.shape[-1] != key.shape[-1] or key.shape[-2] != value.shape[-2]:
        raise RuntimeError(
            "scaled_dot_product_attention: query and key need the same last size (the "
            "embedding), and key and value the same sequence length (dim -2), but got "
            f"query {list(query.shape)}, key {list(key.shape)} and value {list(value.shape)}"
        )


def _check_mask(attn_mask: Tensor, query: Tensor) -> None:
    """PyTorch's mask dtypes: bool, float32, or the query's dtype."""
    if attn_mask.dtype.name not in ("bool", "float32") and attn_mask.dtype != query.dtype:
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {attn_mask.dtype} and query.dtype: {query.dtype} instead: "
            "pass a bool mask (True: attend) or a float one added to the scores."
        )


def _check_mask_shape(attn_mask: Tensor, scores: tuple[int, ...]) -> None:
    """PyTorch's math kernel adds the mask to the scores in place: the mask must broadcast
    to the scores' shape without growing it."""
    mask = tuple(attn_mask.shape)
    nd = max(len(mask), len(scores))
    a, b = (1,) * (nd - len(scores)) + scores, (1,) * (nd - len(mask)) + mask
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                f"non-singleton dimension {i}"
            )
    out = tuple(max(x, y) if x != 1 and y != 1 else x * y for x, y in zip(a, b))
    if out != scores:
        raise RuntimeError(
            f"output with shape {list(scores)} doesn't match the broadcast shape {list(out)}"
        )


def _mask_fits_fused(attn_mask: Tensor | None, query: Tensor, key: Tensor) -> bool:
    """PyTorch's fused CPU kernel's masks: (L, S) or (1|N, 1|H, L, S), L and S may be 1."""
    if attn_mask is None:
        return True
    m = attn_mask.shape
    if m[-2] not in (query.shape[2], 1) or m[-1] not in (key.shape[2], 1):
        return False
    if attn_mask.ndim == 2:
        return True
    return attn_mask.ndim == 4 and m[0] in (1, query.shape[0]) and m[1] in (1, query.shape[1])


def _grouped(query: Tensor, t: Tensor) -> Tensor:
    """key or value with each head repeated to query's number of heads (dim -3)."""
    heads, groups = query.shape[-3], t.shape[-3]
    if heads % groups:
        raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
    if heads == groups:
        return t
    with on_device_of(t._data):  # the index where t is
        index = xp.repeat(xp.arange(groups), heads // groups)
    return gather_scatter.index_select(t, index, dim=t.ndim - 3)


def _bias(attn_mask: Tensor | None, is_causal: bool, q_len: int, k_len: int, like: Tensor):
    """The additive bias on the scores: -inf where a bool mask (or the causal one) forbids,
    a float mask as it is; None without a mask. Both (PyTorch's fused kernel): the mask's
    bias, -inf above the causal diagonal."""
    with on_device_of(like._data):  # the bias where the query is
        if is_causal:
            allowed = xp.tril(xp.ones((q_len, k_len), dtype=bool))
            if attn_mask is None:
                return wrap(xp.where(allowed, 0.0, -xp.inf).astype(like._data.dtype))
            mask = asanyarray(attn_mask._data)
            if attn_mask.dtype.name == "bool":
                mask = xp.where(mask, 0.0, -xp.inf)
            return wrap(xp.where(allowed, mask, -xp.inf).astype(like._data.dtype))
        if attn_mask is None:
            return None
        if attn_mask.dtype.name == "bool":
            mask = asanyarray(attn_mask._data)
            return wrap(xp.where(mask, 0.0, -xp.inf).astype(like._data.dtype))
    return attn_mask


def _unit_last_strides(*tensors: Tensor | None) -> bool:
    """Whether each tensor's last dim has stride 1 (PyTorch's fused CPU kernel needs it)."""
    return all(t is None or t.stride(-1) == 1 for t in tensors)


def _empty(query: Tensor, key: Tensor, value: Tensor) -> Tensor:
    """PyTorch's result without queries or values (no other check, the mask unread): zeros
    of query's shape with value's last size, plus 0·(Σq + Σk + Σv) (so in the graph of all
    three, with zero gradients)."""
    attention.check_dtypes(query, key, value)
    zeros = query.new_zeros(tuple(query.shape[:-1]) + (value.shape[-1],))
    return zeros + (query.sum() + key.sum() + value.sum()) * 0


def _fused(query, key, value, attn_mask, dropout_p: float, enable_gqa: bool) -> bool:
    """Whether PyTorch takes its fused CPU kernel (so names the node after it): 4-D inputs
    of one head size and one batch, key and value of one number of heads (query's, or a
    multiple with enable_gqa), no dropout, no mask that needs a gradient or has a shape the
    kernel does not take, query, key and value with unit last strides."""
    if not query.ndim == key.ndim == value.ndim == 4:
        return False
    same_heads = query.shape[1] == key.shape[1] or (
        enable_gqa and query.shape[1] % key.shape[1] == 0
    )
    return (
        query.shape[-1] == key.shape[-1] == value.shape[-1]
        and query.shape[0] == key.shape[0] == value.shape[0]
        and key.shape[1] == value.shape[1]
        and same_heads
        and dropout_p == 0
        and not (attn_mask is not None and attn_mask.requires_grad)
        and _mask_fits_fused(attn_mask, query, key)
        and _unit_last_strides(query, key, value)
    )


KERNEL_ENABLED = [True]  # False inside nn.attention.sdpa_kernel without the math kernel


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    """softmax(query keyᵀ·scale + mask) value, scale = 1/√(query's last size) by default;
    a bool mask (True: attend) or a float one (added to the scores), or is_causal; dropout
    of the attention weights with probability dropout_p; with enable_gqa, key and value
    heads shared among groups of query heads."""
    if not KERNEL_ENABLED[0]:
        raise RuntimeError(
            "No viable backend for scaled_dot_product_attention was found. This is likely due "
            "to turning off both the math kernel and the fused kernels."
        )
    if attn_mask is not None and hasattr(attn_mask, "_materialize"):  # nn.attention.bias
        attn_mask = attn_mask._materialize(query.device)
    _check_dims(query, key, value)
    if attn_mask is not None:
        _check_mask(attn_mask, query)
    if not query.shape[-2] or not value.numel():
        return _empty(query, key, value)
    _check(query, key, value)
    if dropout_p < 0 or dropout_p > 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    fused = _fused(query, key, value, attn_mask, dropout_p, enable_gqa)
    if is_causal and attn_mask is not None and not fused:
        # (PyTorch's fused CPU kernel takes both; its math kernel refuses)
        raise RuntimeError(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
            "is_causal=True"
        )
    if enable_gqa:
        if query.ndim < 3:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [-{query.ndim}, "
                f"{query.ndim - 1}], but got -3)"
            )
        key, value = _grouped(query, key), _grouped(query, value)
    q_len, k_len = query.shape[-2], key.shape[-2]
    if attn_mask is not None and not fused:
        try:
            batch = xp.broadcast_shapes(tuple(query.shape[:-2]), tuple(key.shape[:-2]))
        except ValueError:  # (the product's own error, from the op)
            batch = None
        if batch is not None:
            _check_mask_shape(attn_mask, (*batch, q_len, k_len))
    bias = _bias(attn_mask, is_causal, q_len, k_len, query)
    if scale is None:  # (no embedding: the scores are empty sums, 0 at any scale)
        scale = 1.0 / math.sqrt(query.shape[-1]) if query.shape[-1] else 1.0
    mask = None
    if dropout_p > 0:
        from .dropout import _bernoulli

        batch = xp.broadcast_shapes(tuple(query.shape[:-2]), tuple(key.shape[:-2]))
        keep = _bernoulli(batch + (q_len, k_len), 1 - dropout_p, query)  # PyTorch's draws
        mask = (keep / (1 - dropout_p) if dropout_p < 1 else keep * 0.0).astype(query._data.dtype)
        mask = like(query._data, mask)  # drawn on the host, as chainrule's random numbers are
    scale = float(scale)
    # P computed here on the arrays (where it can be), kept by the op for its backward
    p = attention.probabilities_of(
        query._data, key._data, None if bias is None else bias._data, scale
    )
    return attention.scaled_dot_product_attention(
        query, key, value, bias, scale=scale, dropout_mask=mask, fused=fused, probabilities=p
    )
