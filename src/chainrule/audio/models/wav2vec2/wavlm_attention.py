"""WavLM's self-attention (Chen et al., 2022): multi-head attention whose logits get a
relative-position bias, looked up from log-spaced distance buckets and scaled per query
by a learnt gate (the "gated relative position bias")."""

from __future__ import annotations

import math

import chainrule
from chainrule import Tensor, nn

__all__: list[str] = []


class WavLMSelfAttention(nn.Module):
    """Self-attention with a gated relative position bias.

    Holds an ``nn.MultiheadAttention`` (for its packed in/out projections), the bucket
    embedding ``rel_attn_embed`` (first layer only) and the gate ``gru_rel_pos_linear``,
    ``gru_rel_pos_const``."""

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        has_relative_attention_bias: bool = False,
        num_buckets: int = 32,
        max_distance: int = 128,
        gru_rel_pos: bool = True,
    ) -> None:
        super().__init__()
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.has_relative_attention_bias = has_relative_attention_bias
        self.num_buckets = num_buckets
        self.max_distance = max_distance
        if has_relative_attention_bias:
            self.rel_attn_embed = nn.Embedding(num_buckets, num_heads)
        else:
            self.rel_attn_embed = None
        self.head_dim = embed_dim // num_heads
        assert self.head_dim * num_heads == self.embed_dim, (
            "embed_dim must be divisible by num_heads"
        )
        self.dropout = dropout
        self.attention = nn.MultiheadAttention(
            embed_dim, num_heads, dropout=dropout, bias=bias, batch_first=True
        )
        self.gru_rel_pos = gru_rel_pos
        if self.gru_rel_pos:
            self.gru_rel_pos_linear = nn.Linear(self.head_dim, 8)
            self.gru_rel_pos_const = nn.Parameter(chainrule.ones(1, num_heads, 1, 1))
        self.has_position_bias = True

    def compute_bias(self, query_length: int, key_length: int) -> Tensor:
        """``bias[h, i, j] = embed[bucket(j - i), h]``, shape ``(num_heads, query, key)``."""
        relative = chainrule.arange(key_length)[None, :] - chainrule.arange(query_length)[:, None]
        buckets = self._relative_positions_bucket(relative, bidirectional=True)
        return self.rel_attn_embed(buckets).permute([2, 0, 1])

    def _relative_positions_bucket(
        self, relative_positions: Tensor, bidirectional: bool = True
    ) -> Tensor:
        """Bucket of an offset ``r``: exact for ``|r| < n/2``, then log-spaced up to
        ``max_distance`` (clamped to the last bucket); with ``bidirectional`` the upper half
        of the buckets holds the positive offsets."""
        num_buckets = self.num_buckets
        buckets = chainrule.zeros_like(relative_positions, dtype=chainrule.long)
        if bidirectional:
            num_buckets = num_buckets // 2
            buckets = buckets + (relative_positions > 0).to(chainrule.long) * num_buckets
            distance = chainrule.abs(relative_positions)
        else:
            distance = -chainrule.clamp(relative_positions, max=0)
        max_exact = num_buckets // 2
        scaled = (
            chainrule.log(distance.clamp(min=1).float() / max_exact)
            / math.log(self.max_distance / max_exact)
            * (num_buckets - max_exact)
        )
        large = max_exact + scaled.to(chainrule.long)
        large = chainrule.clamp(large, max=num_buckets - 1)
        return buckets + chainrule.where(distance < max_exact, distance, large)

    def forward(
        self,
        query: Tensor,
        key_padding_mask: Tensor | None = None,
        attention_mask: Tensor | None = None,
        position_bias: Tensor | None = None,
    ) -> tuple[Tensor, Tensor | None]:
        """``out_proj(softmax(q k^T / sqrt(d) + g * bias + pad) v)``, with the per-query gate
        ``g = a (b c - 1) + 2`` (``a, b`` sigmoids of the summed ``gru_rel_pos_linear``
        outputs of the head's query slice). Returns the output and the ungated bias
        ``(batch, heads, L, L)`` for the next layer."""
        bsz, seq_len, embed_dim = query.size()
        assert embed_dim == self.embed_dim
        assert attention_mask is None
        if self.rel_attn_embed is not None and position_bias is None:
            position_bias = self.compute_bias(seq_len, seq_len)
            position_bias = position_bias.unsqueeze(0).repeat(bsz, 1, 1, 1)
        bias: Tensor | None = None
        if position_bias is not None:
            bias = position_bias
            if self.gru_rel_pos:
                heads = query.view(bsz, seq_len, self.num_heads, -1).permute(0, 2, 1, 3)
                gates = self.gru_rel_pos_linear(heads).view(bsz, self.num_heads, seq_len, 2, 4)
                gate_a, gate_b = chainrule.sigmoid(gates.sum(-1)).chunk(2, dim=-1)
                gate = gate_a * (gate_b * self.gru_rel_pos_const - 1.0) + 2.0
                bias = gate.view(bsz, self.num_heads, -1, 1) * position_bias
            bias = bias.view((bsz, self.num_heads, seq_len, seq_len))
            if key_padding_mask is not None:
                padded = key_padding_mask.view(bsz, 1, 1, seq_len).expand(
                    -1, self.num_heads, -1, -1
                )
                if padded.dtype == chainrule.bool:
                    padded = chainrule.zeros(padded.shape, dtype=query.dtype).masked_fill(
                        padded, float("-inf")
                    )
                bias = bias + padded
        projected = nn.functional.linear(
            query, self.attention.in_proj_weight, self.attention.in_proj_bias
        )
        q, k, v = projected.chunk(3, -1)
        shape = (bsz, seq_len, self.num_heads, self.head_dim)
        q = q.view(shape).transpose(2, 1)
        k = k.view(shape).transpose(2, 1)
        v = v.view(shape).transpose(2, 1)
        dropout = self.dropout if self.training else 0.0
        out = nn.functional.scaled_dot_product_attention(
            q, k, v, attn_mask=bias, dropout_p=dropout, is_causal=False
        )
        out = out.transpose(1, 2).reshape(bsz, -1, self.num_heads * self.head_dim)
        return self.attention.out_proj(out), position_bias
