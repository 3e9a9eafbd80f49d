"""Emformer (Shi et al., 2021): a streaming Transformer that splits the utterance into
segments, lets each segment attend to itself, a left context, a look-ahead right context
and a bank of memory vectors (the averaged "summaries" of earlier segments). ``forward``
processes a whole utterance with one block-structured attention mask; ``infer`` processes
one segment at a time and carries the memory and left-context keys/values as states."""

from __future__ import annotations

import math

import numpy as np

import chainrule
from chainrule import Tensor, nn

__all__ = ["Emformer"]


def _lengths_to_padding_mask(lengths: Tensor) -> Tensor:
    """``mask[b, t] = t >= lengths[b]`` over ``max(lengths)`` frames."""
    batch_size = lengths.shape[0]
    max_length = int(chainrule.max(lengths).item())
    frames = chainrule.arange(max_length, dtype=lengths.dtype).expand(batch_size, max_length)
    return frames >= lengths.unsqueeze(1)


def _right_context_blocks_length(total: int, lengths: Tensor, summary_length: int) -> int:
    """Rows of right context in ``[right_context, utterance, summary]`` when the utterance
    spans ``max(lengths)`` frames."""
    return total - int(chainrule.max(lengths).item()) - summary_length


def _gen_padding_mask(
    utterance: Tensor,
    right_context: Tensor,
    summary: Tensor,
    lengths: Tensor,
    mems: Tensor,
    left_context_key: Tensor | None = None,
) -> Tensor | None:
    """Key padding mask over ``[mems, right_context, left_context, utterance]`` (``None``
    for a batch of one)."""
    B = right_context.size(1)
    if B == 1:
        return None
    T = right_context.size(0) + utterance.size(0) + summary.size(0)
    rc_length = _right_context_blocks_length(T, lengths, summary.size(0))
    lc_length = left_context_key.size(0) if left_context_key is not None else 0
    return _lengths_to_padding_mask(lengths + mems.size(0) + rc_length + lc_length)


def _get_activation_module(activation: str) -> nn.Module:
    if activation == "relu":
        return nn.ReLU()
    if activation == "gelu":
        return nn.GELU()
    if activation == "silu":
        return nn.SiLU()
    raise ValueError(f"Unsupported activation {activation}")


def _get_weight_init_gains(
    weight_init_scale_strategy: str | None, num_layers: int
) -> list[float | None]:
    """Xavier gains per layer: none, ``1/sqrt(l+1)`` (depthwise) or ``1/sqrt 2`` (constant)."""
    if weight_init_scale_strategy is None:
        return [None] * num_layers
    if weight_init_scale_strategy == "depthwise":
        return [1.0 / math.sqrt(i + 1) for i in range(num_layers)]
    if weight_init_scale_strategy == "constant":
        return [1.0 / math.sqrt(2)] * num_layers
    raise ValueError(f"Unsupported weight_init_scale_strategy value {weight_init_scale_strategy}")


def _empty(like: Tensor) -> Tensor:
    return chainrule.zeros(0, like.size(1), like.size(2), dtype=like.dtype)


class _EmformerAttention(nn.Module):
    """Attention of ``[right_context, utterance, summary]`` queries over
    ``[memory, right_context, (left_context), utterance]`` keys; the summary rows produce
    the next memory vectors (``tanh`` or clamped to ``[-10, 10]``)."""

    def __init__(
        self,
        input_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        weight_init_gain: float | None = None,
        tanh_on_mem: bool = False,
        negative_inf: float = -1e8,
    ) -> None:
        super().__init__()
        if input_dim % num_heads != 0:
            raise ValueError(
                f"input_dim ({input_dim}) is not a multiple of num_heads ({num_heads})."
            )
        self.input_dim = input_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.tanh_on_mem = tanh_on_mem
        self.negative_inf = negative_inf
        self.scaling = (self.input_dim // self.num_heads) ** -0.5
        self.emb_to_key_value = nn.Linear(input_dim, 2 * input_dim, bias=True)
        self.emb_to_query = nn.Linear(input_dim, input_dim, bias=True)
        self.out_proj = nn.Linear(input_dim, input_dim, bias=True)
        if weight_init_gain:
            nn.init.xavier_uniform_(self.emb_to_key_value.weight, gain=weight_init_gain)
            nn.init.xavier_uniform_(self.emb_to_query.weight, gain=weight_init_gain)

    def _gen_attention_probs(
        self, attention_weights: Tensor, attention_mask: Tensor, padding_mask: Tensor | None
    ) -> Tensor:
        """Masked softmax (computed in float32, as torchaudio does) with dropout."""
        weights = attention_weights.float().masked_fill(
            attention_mask.unsqueeze(0), self.negative_inf
        )
        T = attention_weights.size(1)
        B = attention_weights.size(0) // self.num_heads
        if padding_mask is not None:
            weights = weights.view(B, self.num_heads, T, -1)
            weights = weights.masked_fill(
                padding_mask[:, None, None, :].to(chainrule.bool), self.negative_inf
            )
            weights = weights.view(B * self.num_heads, T, -1)
        probs = nn.functional.softmax(weights, dim=-1).type_as(attention_weights)
        return nn.functional.dropout(probs, p=float(self.dropout), training=self.training)

    def _forward_impl(
        self,
        utterance: Tensor,
        lengths: Tensor,
        right_context: Tensor,
        summary: Tensor,
        mems: Tensor,
        attention_mask: Tensor,
        left_context_key: Tensor | None = None,
        left_context_val: Tensor | None = None,
    ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        B = utterance.size(1)
        T = right_context.size(0) + utterance.size(0) + summary.size(0)
        head_dim = self.input_dim // self.num_heads
        query = self.emb_to_query(chainrule.cat([right_context, utterance, summary]))
        key, value = self.emb_to_key_value(chainrule.cat([mems, right_context, utterance])).chunk(
            2, dim=2
        )
        if left_context_key is not None and left_context_val is not None:
            split = mems.size(0) + _right_context_blocks_length(T, lengths, summary.size(0))
            key = chainrule.cat([key[:split], left_context_key, key[split:]])
            value = chainrule.cat([value[:split], left_context_val, value[split:]])
        q, k, v = (
            t.contiguous().view(-1, B * self.num_heads, head_dim).transpose(0, 1)
            for t in (query, key, value)
        )
        weights = chainrule.bmm(q * self.scaling, k.transpose(1, 2))
        padding_mask = _gen_padding_mask(
            utterance, right_context, summary, lengths, mems, left_context_key
        )
        probs = self._gen_attention_probs(weights, attention_mask, padding_mask)
        attention = chainrule.bmm(probs, v)
        if attention.shape != (B * self.num_heads, T, head_dim):
            raise AssertionError("Computed attention has incorrect dimensions")
        attention = attention.transpose(0, 1).contiguous().view(T, B, self.input_dim)
        projected = self.out_proj(attention)
        S = summary.size(0)
        output_right_context = projected[: T - S]
        output_mems = projected[T - S :]
        if self.tanh_on_mem:
            output_mems = chainrule.tanh(output_mems)
        else:
            output_mems = chainrule.clamp(output_mems, min=-10, max=10)
        return output_right_context, output_mems, key, value

    def forward(
        self,
        utterance: Tensor,
        lengths: Tensor,
        right_context: Tensor,
        summary: Tensor,
        mems: Tensor,
        attention_mask: Tensor,
    ) -> tuple[Tensor, Tensor]:
        """``(output for [right_context, utterance], next memory without the last
        segment's)``."""
        output, output_mems, _, _ = self._forward_impl(
            utterance, lengths, right_context, summary, mems, attention_mask
        )
        return output, output_mems[:-1]

    def infer(
        self,
        utterance: Tensor,
        lengths: Tensor,
        right_context: Tensor,
        summary: Tensor,
        mems: Tensor,
        left_context_key: Tensor,
        left_context_val: Tensor,
    ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """One segment: ``(output, next memory, keys and values of [left_context,
        utterance])``; the summary query does not see the memory."""
        query_dim = right_context.size(0) + utterance.size(0) + summary.size(0)
        key_dim = (
            right_context.size(0) + utterance.size(0) + mems.size(0) + left_context_key.size(0)
        )
        mask = np.zeros((query_dim, key_dim), dtype=bool)
        mask[-1, : mems.size(0)] = True
        output, output_mems, key, value = self._forward_impl(
            utterance,
            lengths,
            right_context,
            summary,
            mems,
            chainrule.from_numpy(mask),
            left_context_key=left_context_key,
            left_context_val=left_context_val,
        )
        start = mems.size(0) + right_context.size(0)
        return output, output_mems, key[start:], value[start:]


class _EmformerLayer(nn.Module):
    """Pre-norm Emformer attention plus a residual position-wise feed-forward and an
    output LayerNorm."""

    def __init__(
        self,
        input_dim: int,
        num_heads: int,
        ffn_dim: int,
        segment_length: int,
        dropout: float = 0.0,
        activation: str = "relu",
        left_context_length: int = 0,
        max_memory_size: int = 0,
        weight_init_gain: float | None = None,
        tanh_on_mem: bool = False,
        negative_inf: float = -1e8,
    ) -> None:
        super().__init__()
        self.attention = _EmformerAttention(
            input_dim=input_dim,
            num_heads=num_heads,
            dropout=dropout,
            weight_init_gain=weight_init_gain,
            tanh_on_mem=tanh_on_mem,
            negative_inf=negative_inf,
        )
        self.dropout = nn.Dropout(dropout)
        self.memory_op = nn.AvgPool1d(
            kernel_size=segment_length, stride=segment_length, ceil_mode=True
        )
        self.pos_ff = nn.Sequential(
            nn.LayerNorm(input_dim),
            nn.Linear(input_dim, ffn_dim),
            _get_activation_module(activation),
            nn.Dropout(dropout),
            nn.Linear(ffn_dim, input_dim),
            nn.Dropout(dropout),
        )
        self.layer_norm_input = nn.LayerNorm(input_dim)
        self.layer_norm_output = nn.LayerNorm(input_dim)
        self.left_context_length = left_context_length
        self.segment_length = segment_length
        self.max_memory_size = max_memory_size
        self.input_dim = input_dim
        self.use_mem = max_memory_size > 0

    def _init_state(self, batch_size: int, dtype: chainrule.dtype) -> list[Tensor]:
        """``[memory (M, B, D), left keys (L, B, D), left values (L, B, D), frames seen (1, B)]``."""
        return [
            chainrule.zeros(self.max_memory_size, batch_size, self.input_dim, dtype=dtype),
            chainrule.zeros(self.left_context_length, batch_size, self.input_dim, dtype=dtype),
            chainrule.zeros(self.left_context_length, batch_size, self.input_dim, dtype=dtype),
            chainrule.zeros(1, batch_size, dtype=chainrule.int32),
        ]

    def _unpack_state(self, state: list[Tensor]) -> tuple[Tensor, Tensor, Tensor]:
        """The filled tails of the memory and left-context buffers."""
        past_length = int(state[3][0][0].item())
        lc = min(self.left_context_length, past_length)
        mem = min(self.max_memory_size, math.ceil(past_length / self.segment_length))
        return (
            state[0][self.max_memory_size - mem :],
            state[1][self.left_context_length - lc :],
            state[2][self.left_context_length - lc :],
        )

    def _pack_state(
        self, next_k: Tensor, next_v: Tensor, update_length: int, mems: Tensor, state: list[Tensor]
    ) -> list[Tensor]:
        """Append and keep the last ``max_memory_size`` memories and
        ``left_context_length`` keys/values; count the new frames."""
        new_k = chainrule.cat([state[1], next_k])
        new_v = chainrule.cat([state[2], next_v])
        state[0] = chainrule.cat([state[0], mems])[-self.max_memory_size :]
        state[1] = new_k[new_k.shape[0] - self.left_context_length :]
        state[2] = new_v[new_v.shape[0] - self.left_context_length :]
        state[3] = state[3] + update_length
        return state

    def _pre_norm(self, utterance: Tensor, right_context: Tensor) -> tuple[Tensor, Tensor]:
        normed = self.layer_norm_input(chainrule.cat([right_context, utterance]))
        return normed[right_context.size(0) :], normed[: right_context.size(0)]

    def _post_attention(
        self, rc_output: Tensor, utterance: Tensor, right_context: Tensor
    ) -> tuple[Tensor, Tensor]:
        result = self.dropout(rc_output) + chainrule.cat([right_context, utterance])
        result = self.layer_norm_output(self.pos_ff(result) + result)
        return result[right_context.size(0) :], result[: right_context.size(0)]

    def _summary(self, utterance: Tensor) -> Tensor:
        if not self.use_mem:
            return _empty(utterance)
        return self.memory_op(utterance.permute(1, 2, 0)).permute(2, 0, 1)

    def forward(
        self,
        utterance: Tensor,
        lengths: Tensor,
        right_context: Tensor,
        mems: Tensor,
        attention_mask: Tensor,
    ) -> tuple[Tensor, Tensor, Tensor]:
        """``(utterance, right_context, memory)`` after one layer (whole utterance)."""
        if attention_mask is None:
            raise ValueError("attention_mask must be not None when for_inference is False")
        norm_utterance, norm_right_context = self._pre_norm(utterance, right_context)
        summary = self._summary(norm_utterance)
        rc_output, output_mems = self.attention(
            utterance=norm_utterance,
            lengths=lengths,
            right_context=norm_right_context,
            summary=summary,
            mems=mems,
            attention_mask=attention_mask,
        )
        output_utterance, output_right_context = self._post_attention(
            rc_output, utterance, right_context
        )
        return output_utterance, output_right_context, output_mems

    def infer(
        self,
        utterance: Tensor,
        lengths: Tensor,
        right_context: Tensor,
        state: list[Tensor] | None,
        mems: Tensor,
    ) -> tuple[Tensor, Tensor, list[Tensor], Tensor]:
        """``(utterance, right_context, state, memory)`` after one layer on one segment."""
        norm_utterance, norm_right_context = self._pre_norm(utterance, right_context)
        if state is None:
            state = self._init_state(utterance.size(1), utterance.dtype)
        pre_mems, lc_key, lc_val = self._unpack_state(state)
        summary = self._summary(norm_utterance)[:1]
        rc_output, output_mems, next_k, next_v = self.attention.infer(
            utterance=norm_utterance,
            lengths=lengths,
            right_context=norm_right_context,
            summary=summary,
            mems=pre_mems,
            left_context_key=lc_key,
            left_context_val=lc_val,
        )
        state = self._pack_state(next_k, next_v, utterance.size(0), mems, state)
        output_utterance, output_right_context = self._post_attention(
            rc_output, utterance, right_context
        )
        return output_utterance, output_right_context, state, output_mems


class _EmformerImpl(nn.Module):
    """The layer stack with the segment bookkeeping (right-context blocks, attention mask,
    initial memory)."""

    def __init__(
        self,
        emformer_layers: nn.ModuleList,
        segment_length: int,
        left_context_length: int = 0,
        right_context_length: int = 0,
        max_memory_size: int = 0,
    ) -> None:
        super().__init__()
        self.use_mem = max_memory_size > 0
        self.memory_op = nn.AvgPool1d(
            kernel_size=segment_length, stride=segment_length, ceil_mode=True
        )
        self.emformer_layers = emformer_layers
        self.left_context_length = left_context_length
        self.right_context_length = right_context_length
        self.segment_length = segment_length
        self.max_memory_size = max_memory_size

    def _gen_right_context(self, input: Tensor) -> Tensor:
        """The ``right_context_length`` frames after each segment, stacked."""
        T = input.shape[0]
        rc = self.right_context_length
        num_segs = math.ceil((T - rc) / self.segment_length)
        blocks = [
            input[(i + 1) * self.segment_length : (i + 1) * self.segment_length + rc]
            for i in range(num_segs - 1)
        ]
        blocks.append(input[T - rc :])
        return chainrule.cat(blocks)

    def _gen_attention_mask(self, input: Tensor) -> Tensor:
        """``True`` where attention is blocked. Rows ``[right-context blocks, utterance,
        summaries]``, columns ``[memories, right-context blocks, utterance]``: segment ``i``
        (its right-context block and frames) sees memories ``max(0, i - M) .. i - 1``, its
        own right-context block and frames ``max(0, i s - left) .. (i + 1) s``; its summary
        sees the same minus the memories."""
        U = input.size(0)
        seg, rc, lc = self.segment_length, self.right_context_length, self.left_context_length
        num_segs = math.ceil(U / seg)
        num_mems = num_segs - 1 if self.use_mem else 0
        rc_cols, utt_cols = num_mems, num_mems + rc * num_segs
        width = utt_cols + U
        rc_rows, utt_rows, summary_rows = [], [], []
        for i in range(num_segs):
            seen = np.zeros(width, dtype=bool)
            seen[rc_cols + i * rc : rc_cols + (i + 1) * rc] = True
            seen[utt_cols + max(i * seg - lc, 0) : utt_cols + min((i + 1) * seg, U)] = True
            summary_rows.append(seen.copy())
            if self.use_mem:
                seen[max(i - self.max_memory_size, 0) : i] = True
            rc_rows.extend([seen] * rc)
            utt_rows.extend([seen] * min(seg, U - i * seg))
        rows = rc_rows + utt_rows + (summary_rows if self.use_mem else [])
        return chainrule.from_numpy(~np.array(rows, dtype=bool).reshape(len(rows), width))

    def forward(self, input: Tensor, lengths: Tensor) -> tuple[Tensor, Tensor]:
        """``(output, lengths)``: ``input`` is ``(batch, frames + right_context_length,
        dim)`` (the utterance padded with the final look-ahead); ``output`` is ``(batch,
        frames, dim)``."""
        input = input.permute(1, 0, 2)
        right_context = self._gen_right_context(input)
        utterance = input[: input.size(0) - self.right_context_length]
        attention_mask = self._gen_attention_mask(utterance)
        if self.use_mem:
            mems = self.memory_op(utterance.permute(1, 2, 0)).permute(2, 0, 1)[:-1]
        else:
            mems = _empty(input)
        output = utterance
        for layer in self.emformer_layers:
            output, right_context, mems = layer(
                output, lengths, right_context, mems, attention_mask
            )
        return output.permute(1, 0, 2), lengths

    def infer(
        self,
        input: Tensor,
        lengths: Tensor,
        states: list[list[Tensor]] | None = None,
    ) -> tuple[Tensor, Tensor, list[list[Tensor]]]:
        """One streaming step on ``(batch, segment_length + right_context_length, dim)``:
        ``(output (batch, segment_length, dim), output lengths, per-layer states)``."""
        if input.size(1) != self.segment_length + self.right_context_length:
            raise ValueError(
                "Per configured segment_length and right_context_length, expected size of "
                f"{self.segment_length + self.right_context_length} for dimension 1 of input, "
                f"but got {input.size(1)}."
            )
        input = input.permute(1, 0, 2)
        start = input.size(0) - self.right_context_length
        right_context = input[start:]
        utterance = input[:start]
        output_lengths = chainrule.clamp(lengths - self.right_context_length, min=0)
        if self.use_mem:
            mems = self.memory_op(utterance.permute(1, 2, 0)).permute(2, 0, 1)
        else:
            mems = _empty(input)
        output = utterance
        output_states: list[list[Tensor]] = []
        for i, layer in enumerate(self.emformer_layers):
            output, right_context, state, mems = layer.infer(
                output, output_lengths, right_context, None if states is None else states[i], mems
            )
            output_states.append(state)
        return output.permute(1, 0, 2), output_lengths, output_states


class Emformer(_EmformerImpl):
    """Emformer encoder (Shi et al., 2021).

    Args:
        input_dim (int): Input (and output) feature dimension.
        num_heads (int): Attention heads per layer.
        ffn_dim (int): Hidden width of the feed-forward networks.
        num_layers (int): Number of layers.
        segment_length (int): Frames per segment.
        dropout (float, optional): Dropout probability. (Default: 0.0)
        activation (str, optional): ``relu``, ``gelu`` or ``silu``. (Default: ``relu``)
        left_context_length (int, optional): Left-context frames. (Default: 0)
        right_context_length (int, optional): Look-ahead frames. (Default: 0)
        max_memory_size (int, optional): Memory vectors used. (Default: 0)
        weight_init_scale_strategy (str or None, optional): ``depthwise``, ``constant`` or
            ``None``. (Default: ``depthwise``)
        tanh_on_mem (bool, optional): ``tanh`` instead of clamping on memory vectors.
            (Default: ``False``)
        negative_inf (float, optional): Value of masked attention logits. (Default: -1e8)
    """

    def __init__(
        self,
        input_dim: int,
        num_heads: int,
        ffn_dim: int,
        num_layers: int,
        segment_length: int,
        dropout: float = 0.0,
        activation: str = "relu",
        left_context_length: int = 0,
        right_context_length: int = 0,
        max_memory_size: int = 0,
        weight_init_scale_strategy: str | None = "depthwise",
        tanh_on_mem: bool = False,
        negative_inf: float = -1e8,
    ) -> None:
        gains = _get_weight_init_gains(weight_init_scale_strategy, num_layers)
        layers = nn.ModuleList(
            [
                _EmformerLayer(
                    input_dim,
                    num_heads,
                    ffn_dim,
                    segment_length,
                    dropout=dropout,
                    activation=activation,
                    left_context_length=left_context_length,
                    max_memory_size=max_memory_size,
                    weight_init_gain=gains[i],
                    tanh_on_mem=tanh_on_mem,
                    negative_inf=negative_inf,
                )
                for i in range(num_layers)
            ]
        )
        super().__init__(
            layers,
            segment_length,
            left_context_length=left_context_length,
            right_context_length=right_context_length,
            max_memory_size=max_memory_size,
        )
