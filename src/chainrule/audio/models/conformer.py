"""Conformer (Gulati et al., 2020): a Transformer encoder whose layers sandwich
self-attention and a depthwise convolution module between two half-step ("macaron")
feed-forward modules."""

from __future__ import annotations

import chainrule
from chainrule import Tensor, nn

__all__ = ["Conformer"]


def _lengths_to_padding_mask(lengths: Tensor) -> Tensor:
    """``mask[b, t] = t >= lengths[b]`` over ``max(lengths)`` frames."""
    batch_size = lengths.shape[0]
    max_length = int(chainrule.max(lengths).item())
    frames = chainrule.arange(max_length, dtype=lengths.dtype).expand(batch_size, max_length)
    return frames >= lengths.unsqueeze(1)


class _ConvolutionModule(nn.Module):
    """LayerNorm, pointwise conv to ``2C`` + GLU, depthwise conv, Batch/GroupNorm, SiLU,
    pointwise conv back, dropout; on ``(batch, frame, dim)``."""

    def __init__(
        self,
        input_dim: int,
        num_channels: int,
        depthwise_kernel_size: int,
        dropout: float = 0.0,
        bias: bool = False,
        use_group_norm: bool = False,
    ) -> None:
        super().__init__()
        if (depthwise_kernel_size - 1) % 2 != 0:
            raise ValueError("depthwise_kernel_size must be odd to achieve 'SAME' padding.")
        self.layer_norm = nn.LayerNorm(input_dim)
        norm = (
            nn.GroupNorm(num_groups=1, num_channels=num_channels)
            if use_group_norm
            else nn.BatchNorm1d(num_channels)
        )
        self.sequential = nn.Sequential(
            nn.Conv1d(input_dim, 2 * num_channels, 1, stride=1, padding=0, bias=bias),
            nn.GLU(dim=1),
            nn.Conv1d(
                num_channels,
                num_channels,
                depthwise_kernel_size,
                stride=1,
                padding=(depthwise_kernel_size - 1) // 2,
                groups=num_channels,
                bias=bias,
            ),
            norm,
            nn.SiLU(),
            nn.Conv1d(num_channels, input_dim, kernel_size=1, stride=1, padding=0, bias=bias),
            nn.Dropout(dropout),
        )

    def forward(self, input: Tensor) -> Tensor:
        """The module on ``(batch, frame, dim)``, channels moved to axis 1 and back."""
        x = self.layer_norm(input).transpose(1, 2)
        return self.sequential(x).transpose(1, 2)


class _FeedForwardModule(nn.Module):
    """LayerNorm, Linear, SiLU, dropout, Linear, dropout."""

    def __init__(self, input_dim: int, hidden_dim: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.sequential = nn.Sequential(
            nn.LayerNorm(input_dim),
            nn.Linear(input_dim, hidden_dim, bias=True),
            nn.SiLU(),
            nn.Dropout(dropout),
            nn.Linear(hidden_dim, input_dim, bias=True),
            nn.Dropout(dropout),
        )

    def forward(self, input: Tensor) -> Tensor:
        """``W2 silu(W1 ln(x) + b1) + b2`` (with dropouts)."""
        return self.sequential(input)


class ConformerLayer(nn.Module):
    """``x + ff1/2 -> [conv] -> x + mhsa(ln x) -> [conv] -> x + ff2/2 -> ln``; the
    convolution module runs before attention when ``convolution_first``."""

    def __init__(
        self,
        input_dim: int,
        ffn_dim: int,
        num_attention_heads: int,
        depthwise_conv_kernel_size: int,
        dropout: float = 0.0,
        use_group_norm: bool = False,
        convolution_first: bool = False,
    ) -> None:
        super().__init__()
        self.ffn1 = _FeedForwardModule(input_dim, ffn_dim, dropout=dropout)
        self.self_attn_layer_norm = nn.LayerNorm(input_dim)
        self.self_attn = nn.MultiheadAttention(input_dim, num_attention_heads, dropout=dropout)
        self.self_attn_dropout = nn.Dropout(dropout)
        self.conv_module = _ConvolutionModule(
            input_dim=input_dim,
            num_channels=input_dim,
            depthwise_kernel_size=depthwise_conv_kernel_size,
            dropout=dropout,
            bias=True,
            use_group_norm=use_group_norm,
        )
        self.ffn2 = _FeedForwardModule(input_dim, ffn_dim, dropout=dropout)
        self.final_layer_norm = nn.LayerNorm(input_dim)
        self.convolution_first = convolution_first

    def _apply_convolution(self, input: Tensor) -> Tensor:
        # input is (frame, batch, dim); the module works batch-first
        return input + self.conv_module(input.transpose(0, 1)).transpose(0, 1)

    def forward(self, input: Tensor, key_padding_mask: Tensor | None) -> Tensor:
        """One layer on ``(frame, batch, dim)``; ``key_padding_mask`` is ``(batch, frame)``."""
        x = self.ffn1(input) * 0.5 + input
        if self.convolution_first:
            x = self._apply_convolution(x)
        residual = x
        x = self.self_attn_layer_norm(x)
        x, _ = self.self_attn(
            query=x, key=x, value=x, key_padding_mask=key_padding_mask, need_weights=False
        )
        x = self.self_attn_dropout(x) + residual
        if not self.convolution_first:
            x = self._apply_convolution(x)
        x = self.ffn2(x) * 0.5 + x
        return self.final_layer_norm(x)


class Conformer(nn.Module):
    """A stack of ``num_layers`` Conformer layers on ``(batch, frame, input_dim)``.

    Args:
        input_dim (int): Feature dimension.
        num_heads (int): Attention heads per layer.
        ffn_dim (int): Hidden width of the feed-forward modules.
        num_layers (int): Number of layers.
        depthwise_conv_kernel_size (int): Kernel of the depthwise convolution (odd).
        dropout (float, optional): Dropout probability. (Default: ``0.0``)
        use_group_norm (bool, optional): GroupNorm instead of BatchNorm1d in the
            convolution module. (Default: ``False``)
        convolution_first (bool, optional): Convolution before attention.
            (Default: ``False``)
    """

    def __init__(
        self,
        input_dim: int,
        num_heads: int,
        ffn_dim: int,
        num_layers: int,
        depthwise_conv_kernel_size: int,
        dropout: float = 0.0,
        use_group_norm: bool = False,
        convolution_first: bool = False,
    ) -> None:
        super().__init__()
        self.conformer_layers = nn.ModuleList(
            [
                ConformerLayer(
                    input_dim,
                    ffn_dim,
                    num_heads,
                    depthwise_conv_kernel_size,
                    dropout=dropout,
                    use_group_norm=use_group_norm,
                    convolution_first=convolution_first,
                )
                for _ in range(num_layers)
            ]
        )

    def forward(self, input: Tensor, lengths: Tensor) -> tuple[Tensor, Tensor]:
        """``(output, lengths)``: the encoded ``(batch, frame, input_dim)`` sequence, frames
        past ``lengths[b]`` excluded from attention as keys."""
        padding_mask = _lengths_to_padding_mask(lengths)
        x = input.transpose(0, 1)
        for layer in self.conformer_layers:
            x = layer(x, padding_mask)
        return x.transpose(0, 1), lengths
