"""The building blocks of wav2vec 2.0 / HuBERT / WavLM: a strided convolutional feature
extractor on the raw waveform, a projection to the encoder width, a convolutional
positional embedding and a stack of Transformer layers; plus the masking and logit heads
that HuBERT's pre-training uses. Module and attribute names follow torchaudio, so the
state_dicts are interchangeable."""

from __future__ import annotations

from collections.abc import Callable

import chainrule
from chainrule import Tensor, nn
from chainrule.nn import Module, Parameter

from .wavlm_attention import WavLMSelfAttention

__all__: list[str] = []


def _init_transformer_params(module: Module) -> None:
    """BERT-style initialisation: Linear and Embedding weights ~ N(0, 0.02^2), biases 0,
    the padding row of an Embedding 0."""
    if isinstance(module, nn.Linear):
        nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
    if isinstance(module, nn.Embedding):
        nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if module.padding_idx is not None:
            with chainrule.no_grad():
                module.weight[module.padding_idx].zero_()


class LayerNorm(nn.LayerNorm):
    """Layer normalisation over the channel axis of a ``(batch, channel, frame)`` tensor."""

    def forward(self, input: Tensor) -> Tensor:
        """``LayerNorm`` applied to ``input.transpose(-2, -1)``, transposed back."""
        x = input.transpose(-2, -1)
        x = nn.functional.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        return x.transpose(-2, -1)


class ConvLayerBlock(Module):
    """One feature-extractor stage: Conv1d, optional normalisation, GELU."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int,
        stride: int,
        bias: bool,
        layer_norm: Module | None,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride
        self.layer_norm = layer_norm
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, stride=stride, bias=bias)

    def forward(self, x: Tensor, length: Tensor | None) -> tuple[Tensor, Tensor | None]:
        """``gelu(norm(conv(x)))``; valid lengths become ``max(0, floor((L - k) / s) + 1)``."""
        x = self.conv(x)
        if self.layer_norm is not None:
            x = self.layer_norm(x)
        x = nn.functional.gelu(x)
        if length is not None:
            length = (
                chainrule.div(length - self.kernel_size, self.stride, rounding_mode="floor") + 1
            )
            length = chainrule.max(chainrule.zeros_like(length), length)
        return x, length


class FeatureExtractor(Module):
    """The convolutional front end: ``(batch, time)`` audio to ``(batch, frame, feature)``."""

    def __init__(self, conv_layers: nn.ModuleList) -> None:
        super().__init__()
        self.conv_layers = conv_layers

    def forward(self, x: Tensor, length: Tensor | None) -> tuple[Tensor, Tensor | None]:
        """The conv stack applied to ``x[:, None, :]``, frames moved to axis 1."""
        if x.ndim != 2:
            raise ValueError(
                f"Expected the input Tensor to be 2D (batch, time). Found: {list(x.shape)}"
            )
        x = x.unsqueeze(1)
        for layer in self.conv_layers:
            x, length = layer(x, length)
        return x.transpose(1, 2), length


class FeatureProjection(Module):
    """LayerNorm, Linear to the encoder width, dropout."""

    def __init__(self, in_features: int, out_features: int, dropout: float) -> None:
        super().__init__()
        self.layer_norm = nn.LayerNorm(in_features)
        self.projection = nn.Linear(in_features, out_features)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: Tensor) -> Tensor:
        """``dropout(W layer_norm(x) + b)``."""
        return self.dropout(self.projection(self.layer_norm(x)))


class ConvolutionalPositionalEmbedding(Module):
    """A grouped, weight-normalised (over the kernel axis) convolution over time, followed
    by GELU: the relative positional signal added to the Transformer input."""

    def __init__(self, embed_dim: int, kernel_size: int, groups: int) -> None:
        super().__init__()
        self.embed_dim = embed_dim
        self.kernel_size = kernel_size
        conv = nn.Conv1d(embed_dim, embed_dim, kernel_size, padding=kernel_size // 2, groups=groups)
        self.conv = nn.utils.parametrizations.weight_norm(conv, name="weight", dim=2)
        # an even kernel with padding k // 2 yields one extra frame, dropped at the end
        self.num_remove: int = 1 if kernel_size % 2 == 0 else 0

    def forward(self, x: Tensor) -> Tensor:
        """``gelu(conv(x))`` on ``(batch, frame, feature)``, trimmed to the input length."""
        x = self.conv(x.transpose(-2, -1))
        if self.num_remove > 0:
            x = x[..., : -self.num_remove]
        return nn.functional.gelu(x).transpose(-2, -1)


class SelfAttention(Module):
    """Multi-head scaled dot-product self-attention with separate q/k/v projections."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0) -> None:
        super().__init__()
        head_dim = embed_dim // num_heads
        if head_dim * num_heads != embed_dim:
            raise ValueError(
                f"`embed_dim ({embed_dim})` is not divisible by `num_heads ({num_heads})`"
            )
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.head_dim = head_dim
        self.scaling = self.head_dim**-0.5
        self.k_proj = nn.Linear(embed_dim, embed_dim, bias=True)
        self.v_proj = nn.Linear(embed_dim, embed_dim, bias=True)
        self.q_proj = nn.Linear(embed_dim, embed_dim, bias=True)
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=True)

    def forward(
        self,
        x: Tensor,
        attention_mask: Tensor | None = None,
        position_bias: Tensor | None = None,
        key_padding_mask: Tensor | None = None,
    ) -> tuple[Tensor, Tensor | None]:
        """``out_proj(softmax(q k^T / sqrt(d) + mask) v)`` per head; returns ``(out, None)``
        (``position_bias`` and ``key_padding_mask`` are accepted for WavLM compatibility)."""
        if x.ndim != 3 or x.shape[2] != self.embed_dim:
            raise ValueError(
                f"The expected input shape is (batch, sequence, embed_dim=={self.embed_dim}). "
                f"Found {x.shape}."
            )
        batch_size, length, _ = x.size()
        if attention_mask is not None:
            shape_ = (batch_size, 1, length, length)
            if attention_mask.size() != shape_:
                raise ValueError(
                    f"The expected attention mask shape is {shape_}. Found {attention_mask.size()}."
                )
        shape = (batch_size, length, self.num_heads, self.head_dim)
        q = self.q_proj(x).view(*shape).transpose(2, 1)
        k = self.k_proj(x).view(*shape).transpose(2, 1)
        v = self.v_proj(x).view(*shape).transpose(2, 1)
        dropout = self.dropout if self.training else 0.0
        out = nn.functional.scaled_dot_product_attention(
            q, k, v, attn_mask=attention_mask, dropout_p=dropout, is_causal=False
        )
        out = out.transpose(1, 2).reshape(batch_size, -1, self.num_heads * self.head_dim)
        return self.out_proj(out), None


class FeedForward(Module):
    """Position-wise ``Linear -> GELU -> dropout -> Linear -> dropout``."""

    def __init__(
        self,
        io_features: int,
        intermediate_features: int,
        intermediate_dropout: float,
        output_dropout: float,
    ) -> None:
        super().__init__()
        self.intermediate_dense = nn.Linear(io_features, intermediate_features)
        self.intermediate_dropout = nn.Dropout(intermediate_dropout)
        self.output_dense = nn.Linear(intermediate_features, io_features)
        self.output_dropout = nn.Dropout(output_dropout)

    def forward(self, x: Tensor) -> Tensor:
        """``W2 gelu(W1 x + b1) + b2`` with dropouts."""
        x = self.intermediate_dropout(nn.functional.gelu(self.intermediate_dense(x)))
        return self.output_dropout(self.output_dense(x))


class EncoderLayer(Module):
    """Self-attention and feed-forward with residuals; layer norms before each sub-block
    (``layer_norm_first``) or after them (post-norm, the Base configuration)."""

    def __init__(
        self,
        attention: Module,
        dropout: float,
        layer_norm_first: bool,
        feed_forward: Module,
    ) -> None:
        super().__init__()
        self.attention = attention
        self.dropout = nn.Dropout(dropout)
        self.layer_norm = nn.LayerNorm(attention.embed_dim)
        self.layer_norm_first = layer_norm_first
        self.feed_forward = feed_forward
        self.final_layer_norm = nn.LayerNorm(attention.embed_dim)

    def forward(
        self,
        x: Tensor,
        attention_mask: Tensor | None = None,
        position_bias: Tensor | None = None,
        key_padding_mask: Tensor | None = None,
    ) -> tuple[Tensor, Tensor | None]:
        """Pre-norm: ``x + attn(ln(x))`` then ``+ ff(ln'(.))``; post-norm:
        ``ln(x + attn(x))`` then ``ln'(. + ff(.))``. Returns the position bias too."""
        residual = x
        if self.layer_norm_first:
            x = self.layer_norm(x)
        x, position_bias = self.attention(
            x,
            attention_mask=attention_mask,
            position_bias=position_bias,
            key_padding_mask=key_padding_mask,
        )
        x = residual + self.dropout(x)
        if self.layer_norm_first:
            x = x + self.feed_forward(self.final_layer_norm(x))
        else:
            x = self.layer_norm(x)
            x = self.final_layer_norm(x + self.feed_forward(x))
        return x, position_bias


class Transformer(Module):
    """Positional convolution, then the encoder layers (with LayerDrop when training)."""

    def __init__(
        self,
        pos_conv_embed: Module,
        dropout: float,
        layers: Module,
        layer_norm_first: bool,
        layer_drop: float,
    ) -> None:
        super().__init__()
        self.pos_conv_embed = pos_conv_embed
        self.layer_norm = nn.LayerNorm(pos_conv_embed.embed_dim)
        self.layer_norm_first = layer_norm_first
        self.layer_drop = layer_drop
        self.dropout = nn.Dropout(dropout)
        self.layers = layers

    def _preprocess(self, x: Tensor) -> Tensor:
        x = x + self.pos_conv_embed(x)
        if self.layer_norm_first:
            x = self.layer_norm(x)
        return self.dropout(x)

    def forward(
        self,
        x: Tensor,
        attention_mask: Tensor | None = None,
        position_bias: Tensor | None = None,
    ) -> Tensor:
        """The layer stack on ``x + pos_conv(x)``; each layer is skipped with probability
        ``layer_drop`` in training mode."""
        x = self._preprocess(x)
        for layer in self.layers:
            if not (self.training and chainrule.rand(1).item() <= self.layer_drop):
                x, position_bias = layer(x, attention_mask, position_bias=position_bias)
        if not self.layer_norm_first:
            x = self.layer_norm(x)
        return x

    def get_intermediate_outputs(
        self,
        x: Tensor,
        attention_mask: Tensor | None = None,
        num_layers: int | None = None,
    ) -> list[Tensor]:
        """The outputs of the first ``num_layers`` layers (all when ``None``)."""
        if num_layers is not None:
            if not 0 < num_layers <= len(self.layers):
                raise ValueError(f"`num_layers` must be between [1, {len(self.layers)}]")
        outputs: list[Tensor] = []
        position_bias = None
        x = self._preprocess(x)
        for layer in self.layers:
            x, position_bias = layer(x, attention_mask, position_bias=position_bias)
            outputs.append(x)
            if num_layers is not None and len(outputs) >= num_layers:
                break
        return outputs


class Encoder(Module):
    """Feature projection followed by the Transformer; padded frames are zeroed and masked
    out of attention with an additive ``-10000``."""

    def __init__(self, feature_projection: Module, transformer: Module) -> None:
        super().__init__()
        self.feature_projection = feature_projection
        self.transformer = transformer

    def _preprocess(
        self, features: Tensor, lengths: Tensor | None = None
    ) -> tuple[Tensor, Tensor | None]:
        x = self.feature_projection(features)
        mask: Tensor | None = None
        if lengths is not None:
            batch_size, max_len, _ = x.shape
            padded = chainrule.arange(max_len).expand(batch_size, max_len) >= lengths[:, None]
            x = x.masked_fill(padded[:, :, None], 0.0)
            mask = -10000.0 * padded[:, None, None, :].to(dtype=features.dtype)
            mask = mask.expand(batch_size, 1, max_len, max_len)
        return x, mask

    def forward(self, features: Tensor, lengths: Tensor | None = None) -> Tensor:
        """The last layer's output, ``(batch, frame, embed_dim)``."""
        x, mask = self._preprocess(features, lengths)
        return self.transformer(x, attention_mask=mask)

    def extract_features(
        self,
        features: Tensor,
        lengths: Tensor | None = None,
        num_layers: int | None = None,
    ) -> list[Tensor]:
        """Every layer's output up to ``num_layers``."""
        x, masks = self._preprocess(features, lengths)
        return self.transformer.get_intermediate_outputs(
            x, attention_mask=masks, num_layers=num_layers
        )


def _get_feature_extractor(
    norm_mode: str, shapes: list[tuple[int, int, int]], bias: bool
) -> FeatureExtractor:
    """Conv blocks ``(out_channels, kernel, stride)``; ``group_norm`` normalises only the
    first block (one group per channel), ``layer_norm`` every block."""
    if norm_mode not in ["group_norm", "layer_norm"]:
        raise ValueError("Invalid norm mode")
    blocks = []
    in_channels = 1
    for i, (out_channels, kernel_size, stride) in enumerate(shapes):
        normalization: Module | None = None
        if norm_mode == "group_norm" and i == 0:
            normalization = nn.GroupNorm(out_channels, out_channels, affine=True)
        elif norm_mode == "layer_norm":
            normalization = LayerNorm(normalized_shape=out_channels, elementwise_affine=True)
        blocks.append(
            ConvLayerBlock(in_channels, out_channels, kernel_size, stride, bias, normalization)
        )
        in_channels = out_channels
    return FeatureExtractor(nn.ModuleList(blocks))


def _build_encoder(
    make_attention: Callable[[int], Module],
    num_layers: int,
    in_features: int,
    embed_dim: int,
    dropout_input: float,
    pos_conv_kernel: int,
    pos_conv_groups: int,
    ff_interm_features: int,
    ff_interm_dropout: float,
    dropout: float,
    layer_norm_first: bool,
    layer_drop: float,
) -> Encoder:
    # built in torchaudio's order, so one seed gives torchaudio's initial weights
    projection = FeatureProjection(in_features, embed_dim, dropout_input)
    pos_conv = ConvolutionalPositionalEmbedding(embed_dim, pos_conv_kernel, pos_conv_groups)
    layers = nn.ModuleList()
    for i in range(num_layers):
        attention = make_attention(i)
        feed_forward = FeedForward(embed_dim, ff_interm_features, ff_interm_dropout, dropout)
        layers.append(EncoderLayer(attention, dropout, layer_norm_first, feed_forward))
    transformer = Transformer(
        pos_conv_embed=pos_conv,
        dropout=dropout,
        layers=layers,
        layer_norm_first=not layer_norm_first,
        layer_drop=layer_drop,
    )
    return Encoder(projection, transformer)


def _get_encoder(
    in_features: int,
    embed_dim: int,
    dropout_input: float,
    pos_conv_kernel: int,
    pos_conv_groups: int,
    num_layers: int,
    num_heads: int,
    attention_dropout: float,
    ff_interm_features: int,
    ff_interm_dropout: float,
    dropout: float,
    layer_norm_first: bool,
    layer_drop: float,
) -> Encoder:
    """The wav2vec 2.0 / HuBERT encoder (plain multi-head self-attention)."""
    return _build_encoder(
        lambda i: SelfAttention(embed_dim, num_heads, dropout=attention_dropout),
        num_layers,
        in_features,
        embed_dim,
        dropout_input,
        pos_conv_kernel,
        pos_conv_groups,
        ff_interm_features,
        ff_interm_dropout,
        dropout,
        layer_norm_first,
        layer_drop,
    )


def _get_wavlm_encoder(
    in_features: int,
    embed_dim: int,
    dropout_input: float,
    pos_conv_kernel: int,
    pos_conv_groups: int,
    num_layers: int,
    num_heads: int,
    num_buckets: int,
    max_distance: int,
    attention_dropout: float,
    ff_interm_features: int,
    ff_interm_dropout: float,
    dropout: float,
    layer_norm_first: bool,
    layer_drop: float,
) -> Encoder:
    """The WavLM encoder: gated relative-position attention; only the first layer owns the
    bucket embedding, later layers reuse its bias."""
    return _build_encoder(
        lambda i: WavLMSelfAttention(
            embed_dim=embed_dim,
            num_heads=num_heads,
            num_buckets=num_buckets,
            max_distance=max_distance,
            dropout=attention_dropout,
            has_relative_attention_bias=(i == 0),
        ),
        num_layers,
        in_features,
        embed_dim,
        dropout_input,
        pos_conv_kernel,
        pos_conv_groups,
        ff_interm_features,
        ff_interm_dropout,
        dropout,
        layer_norm_first,
        layer_drop,
    )


def _span_lengths(mask_type: str, num_mask: int, mask_length: int, mask_other: float) -> list[int]:
    if mask_type == "static":
        return [mask_length] * num_mask
    if mask_type == "uniform":
        return chainrule.randint(int(mask_other), mask_length * 2 + 1, (num_mask,)).tolist()
    if mask_type == "normal":
        drawn = chainrule.normal(float(mask_length), float(mask_other), size=(num_mask,))
        return [max(1, int(round(v))) for v in drawn.tolist()]
    if mask_type == "poisson":
        drawn = chainrule.poisson(chainrule.full((num_mask,), float(mask_length)))
        return [int(round(v)) for v in drawn.tolist()]
    raise Exception(f"unknown mask selection: {mask_type}")


def _spans_without_overlap(sz: int, lengths: list[int], min_space: int) -> list[int]:
    """Place spans one by one (longest first) in free intervals chosen with probability
    proportional to their usable length, keeping ``min_space`` frames between spans."""
    indices: list[int] = []
    parts = [(0, sz)]
    keep_length = min(lengths)
    for length in sorted(lengths, reverse=True):
        usable = [e - s if e - s >= length + min_space else 0 for s, e in parts]
        total = sum(usable)
        if total == 0:
            break
        probs = chainrule.tensor([u / total for u in usable], dtype=chainrule.float64)
        s, e = parts.pop(int(chainrule.multinomial(probs, 1).item()))
        start = int(chainrule.randint(s, e - length, (1,)).item())
        indices.extend(start + i for i in range(length))
        if start - s - min_space >= keep_length:
            parts.append((s, start - min_space + 1))
        if e - start - keep_length - min_space > keep_length:
            parts.append((start + length + min_space, e))
    return indices


def _compute_mask_indices(
    shape: tuple[int, int],
    padding_mask: Tensor | None,
    mask_prob: float,
    mask_length: int,
    mask_type: str = "static",
    mask_other: float = 0.0,
    min_masks: int = 0,
    no_overlap: bool = False,
    min_space: int = 0,
) -> Tensor:
    """A random ``(batch, frame)`` boolean mask of spans: about ``mask_prob * frames /
    mask_length`` span starts per row (at least ``min_masks``), every row trimmed to the
    same number of masked frames."""
    batch_size, frame = shape
    mask = chainrule.full((batch_size, frame), False)
    all_num_mask = max(
        min_masks, int(mask_prob * frame / float(mask_length) + chainrule.rand(1).item())
    )
    rows: list[list[int]] = []
    for i in range(batch_size):
        if padding_mask is not None:
            sz = frame - int(padding_mask[i].long().sum().item())
            num_mask = int(mask_prob * sz / float(mask_length) + chainrule.rand(1).item())
            num_mask = max(min_masks, num_mask)
        else:
            sz = frame
            num_mask = all_num_mask
        lengths = _span_lengths(mask_type, num_mask, mask_length, mask_other)
        if sum(lengths) == 0:
            lengths[0] = min(mask_length, sz - 1)
        if no_overlap:
            indices = _spans_without_overlap(sz, lengths, min_space)
        else:
            min_len = min(lengths)
            if sz - min_len <= num_mask:
                min_len = sz - num_mask - 1
            starts = chainrule.randperm(sz - min_len)[:num_mask].tolist()
            indices = [start + offset for start, n in zip(starts, lengths) for offset in range(n)]
        rows.append(sorted({j for j in indices if j < sz}))
    min_len = min(len(row) for row in rows)
    for i, row in enumerate(rows):
        if len(row) > min_len:
            keep = chainrule.randperm(len(row))[:min_len].tolist()
            row = [row[j] for j in keep]
        if row:
            mask[i, chainrule.tensor(row, dtype=chainrule.long)] = True
    return mask


def _get_padding_mask(input: Tensor, lengths: Tensor) -> Tensor:
    """``mask[b, t] = t >= lengths[b]`` for a ``(batch, frame, feature)`` input."""
    batch_size, max_len, _ = input.shape
    return chainrule.arange(max_len).expand(batch_size, max_len) >= lengths[:, None]


class MaskGenerator(Module):
    """Replaces random time spans with a learnt ``mask_embedding`` and zeroes random
    channel spans (HuBERT / wav2vec 2.0 pre-training)."""

    def __init__(
        self,
        encoder_embed_dim: int,
        mask_prob: float,
        mask_selection: str,
        mask_other: float,
        mask_length: int,
        no_mask_overlap: bool,
        mask_min_space: int,
        mask_channel_prob: float,
        mask_channel_selection: str,
        mask_channel_other: float,
        mask_channel_length: int,
        no_mask_channel_overlap: bool,
        mask_channel_min_space: int,
    ) -> None:
        super().__init__()
        self.mask_prob = mask_prob
        self.mask_selection = mask_selection
        self.mask_other = mask_other
        self.mask_length = mask_length
        self.no_mask_overlap = no_mask_overlap
        self.mask_min_space = mask_min_space
        self.mask_channel_prob = mask_channel_prob
        self.mask_channel_selection = mask_channel_selection
        self.mask_channel_other = mask_channel_other
        self.mask_channel_length = mask_channel_length
        self.no_mask_channel_overlap = no_mask_channel_overlap
        self.mask_channel_min_space = mask_channel_min_space
        self.mask_embedding = Parameter(chainrule.empty(encoder_embed_dim))
        nn.init.uniform_(self.mask_embedding)

    def forward(self, x: Tensor, padding_mask: Tensor | None) -> tuple[Tensor, Tensor | None]:
        """``(masked x, time-mask indices or None)``."""
        B, T, C = x.shape
        mask_indices = None
        if self.mask_prob > 0:
            mask_indices = _compute_mask_indices(
                (B, T),
                padding_mask,
                self.mask_prob,
                self.mask_length,
                self.mask_selection,
                self.mask_other,
                min_masks=2,
                no_overlap=self.no_mask_overlap,
                min_space=self.mask_min_space,
            )
            x = chainrule.where(mask_indices[:, :, None], self.mask_embedding.to(x.dtype), x)
        if self.mask_channel_prob > 0:
            channel = _compute_mask_indices(
                (B, C),
                None,
                self.mask_channel_prob,
                self.mask_channel_length,
                self.mask_channel_selection,
                self.mask_channel_other,
                no_overlap=self.no_mask_channel_overlap,
                min_space=self.mask_channel_min_space,
            )
            x = x.masked_fill(channel.unsqueeze(1).expand(-1, T, -1), 0.0)
        return x, mask_indices


def _compute_logits(proj_x: Tensor, target: Tensor, label_embeddings: Parameter) -> Tensor:
    """``cos(proj_x, e_c) / 0.1`` for the target class (column 0) and every class (columns
    1..C); a class equal to the target is set to ``-inf`` among the negatives."""
    logit_temp = 0.1
    pos = chainrule.index_select(label_embeddings, 0, target.long())
    negs = label_embeddings.unsqueeze(1).expand(-1, proj_x.size(0), -1)
    neg_is_pos = (pos == negs).all(-1)
    targets = chainrule.cat([pos.unsqueeze(0), negs], dim=0)
    logits = chainrule.cosine_similarity(proj_x.float(), targets.float(), dim=-1).type_as(proj_x)
    logits = logits / logit_temp
    if neg_is_pos.any():
        blocked = chainrule.cat([chainrule.zeros_like(neg_is_pos[:1]), neg_is_pos], dim=0)
        logits = logits.masked_fill(blocked, float("-inf"))
    return logits.transpose(0, 1)


class LogitGenerator(Module):
    """Projects the encoder output to ``final_dim`` and scores it against the label
    embeddings, separately on masked and unmasked frames."""

    def __init__(
        self,
        encoder_embed_dim: int,
        num_classes: int,
        final_dim: int,
        skip_masked: bool,
        skip_nomask: bool,
    ) -> None:
        super().__init__()
        self.label_embeddings = Parameter(chainrule.empty(num_classes, final_dim))
        nn.init.uniform_(self.label_embeddings)
        self.final_proj = nn.Linear(encoder_embed_dim, final_dim)
        self.skip_masked = skip_masked
        self.skip_nomask = skip_nomask

    def forward(
        self, x: Tensor, label: Tensor, mask_m: Tensor, mask_u: Tensor
    ) -> tuple[Tensor | None, Tensor | None]:
        """``(logits on masked frames, logits on unmasked frames)``, each
        ``(frames, num_classes + 1)`` or ``None`` when skipped."""
        proj_x = self.final_proj(x)
        logit_m = None
        if not self.skip_masked:
            logit_m = _compute_logits(proj_x[mask_m], label[mask_m], self.label_embeddings)
        logit_u = None
        if not self.skip_nomask:
            logit_u = _compute_logits(proj_x[mask_u], label[mask_u], self.label_embeddings)
        return logit_m, logit_u


class GradMultiply(chainrule.autograd.Function):
    """Identity forward; the backward scales the gradient by ``scale``."""

    @staticmethod
    def forward(ctx: object, x: Tensor, scale: float) -> Tensor:
        """``y = x``."""
        ctx.scale = scale
        return x.clone()

    @staticmethod
    def backward(ctx: object, grad: Tensor) -> tuple[Tensor, None]:
        """``dL/dx = scale * dL/dy``."""
        return grad * ctx.scale, None
