"""Recurrent neural network transducer (Graves, 2012): a transcription network over the
acoustic frames (here an Emformer encoder), a prediction network over the emitted tokens
(an LSTM stack) and a joiner giving logits for every (frame, token-prefix) pair."""

from __future__ import annotations

from abc import ABC, abstractmethod

import chainrule
from chainrule import Tensor, nn

from .emformer import Emformer

__all__ = ["RNNT", "emformer_rnnt_base", "emformer_rnnt_model"]


class _TimeReduction(nn.Module):
    """Stacks ``stride`` consecutive frames: ``(B, T, D) -> (B, T // stride, D * stride)``;
    lengths are divided by ``stride`` (truncated)."""

    def __init__(self, stride: int) -> None:
        super().__init__()
        self.stride = stride

    def forward(self, input: Tensor, lengths: Tensor) -> tuple[Tensor, Tensor]:
        """The stacked frames and the reduced lengths."""
        B, T, D = input.shape
        num_frames = T - T % self.stride
        lengths = lengths.div(self.stride, rounding_mode="trunc")
        output = input[:, :num_frames, :].reshape(B, num_frames // self.stride, D * self.stride)
        return output.contiguous(), lengths


class _CustomLSTM(nn.Module):
    """One LSTM layer on ``(T, B, input_dim)`` with optional LayerNorm on the gates and the
    cell: ``g = norm(W_x x_t + W_h h_{t-1})``, ``c_t = norm(f c_{t-1} + i tanh(g_c))``,
    ``h_t = o tanh(c_t)``."""

    def __init__(
        self,
        input_dim: int,
        hidden_dim: int,
        layer_norm: bool = False,
        layer_norm_epsilon: float = 1e-5,
    ) -> None:
        super().__init__()
        self.x2g = nn.Linear(input_dim, 4 * hidden_dim, bias=not layer_norm)
        self.p2g = nn.Linear(hidden_dim, 4 * hidden_dim, bias=False)
        if layer_norm:
            self.c_norm = nn.LayerNorm(hidden_dim, eps=layer_norm_epsilon)
            self.g_norm = nn.LayerNorm(4 * hidden_dim, eps=layer_norm_epsilon)
        else:
            self.c_norm = nn.Identity()
            self.g_norm = nn.Identity()
        self.hidden_dim = hidden_dim

    def forward(self, input: Tensor, state: list[Tensor] | None) -> tuple[Tensor, list[Tensor]]:
        """The hidden states ``(T, B, hidden_dim)`` and the final ``[h, c]``."""
        if state is None:
            B = input.size(1)
            h = chainrule.zeros(B, self.hidden_dim, dtype=input.dtype)
            c = chainrule.zeros(B, self.hidden_dim, dtype=input.dtype)
        else:
            h, c = state
        outputs = []
        for gates in self.x2g(input).unbind(0):
            gates = self.g_norm(gates + self.p2g(h))
            input_gate, forget_gate, cell_gate, output_gate = gates.chunk(4, 1)
            c = self.c_norm(forget_gate.sigmoid() * c + input_gate.sigmoid() * cell_gate.tanh())
            h = output_gate.sigmoid() * c.tanh()
            outputs.append(h)
        return chainrule.stack(outputs, dim=0), [h, c]


class _Transcriber(ABC):
    """The interface of a transcription network: ``forward`` and streaming ``infer``."""

    @abstractmethod
    def forward(self, input: Tensor, lengths: Tensor) -> tuple[Tensor, Tensor]:
        """Encode a whole utterance."""

    @abstractmethod
    def infer(
        self, input: Tensor, lengths: Tensor, states: list[list[Tensor]] | None
    ) -> tuple[Tensor, Tensor, list[list[Tensor]]]:
        """Encode one chunk, carrying states."""


class _EmformerEncoder(nn.Module, _Transcriber):
    """Linear, time reduction, Emformer, Linear, LayerNorm."""

    def __init__(
        self,
        *,
        input_dim: int,
        output_dim: int,
        segment_length: int,
        right_context_length: int,
        time_reduction_input_dim: int,
        time_reduction_stride: int,
        transformer_num_heads: int,
        transformer_ffn_dim: int,
        transformer_num_layers: int,
        transformer_left_context_length: int,
        transformer_dropout: float = 0.0,
        transformer_activation: str = "relu",
        transformer_max_memory_size: int = 0,
        transformer_weight_init_scale_strategy: str = "depthwise",
        transformer_tanh_on_mem: bool = False,
    ) -> None:
        super().__init__()
        self.input_linear = nn.Linear(input_dim, time_reduction_input_dim, bias=False)
        self.time_reduction = _TimeReduction(time_reduction_stride)
        transformer_input_dim = time_reduction_input_dim * time_reduction_stride
        self.transformer = Emformer(
            transformer_input_dim,
            transformer_num_heads,
            transformer_ffn_dim,
            transformer_num_layers,
            segment_length // time_reduction_stride,
            dropout=transformer_dropout,
            activation=transformer_activation,
            left_context_length=transformer_left_context_length,
            right_context_length=right_context_length // time_reduction_stride,
            max_memory_size=transformer_max_memory_size,
            weight_init_scale_strategy=transformer_weight_init_scale_strategy,
            tanh_on_mem=transformer_tanh_on_mem,
        )
        self.output_linear = nn.Linear(transformer_input_dim, output_dim)
        self.layer_norm = nn.LayerNorm(output_dim)

    def forward(self, input: Tensor, lengths: Tensor) -> tuple[Tensor, Tensor]:
        """``(encodings (B, T', output_dim), lengths)`` for a whole utterance."""
        x, lengths = self.time_reduction(self.input_linear(input), lengths)
        x, lengths = self.transformer(x, lengths)
        return self.layer_norm(self.output_linear(x)), lengths

    def infer(
        self, input: Tensor, lengths: Tensor, states: list[list[Tensor]] | None
    ) -> tuple[Tensor, Tensor, list[list[Tensor]]]:
        """One streaming chunk: encodings, lengths and the Emformer states."""
        x, lengths = self.time_reduction(self.input_linear(input), lengths)
        x, lengths, states = self.transformer.infer(x, lengths, states)
        return self.layer_norm(self.output_linear(x)), lengths, states


class _Predictor(nn.Module):
    """Embedding, LayerNorm, LSTM stack (with dropout), Linear, LayerNorm over the
    ``(B, U)`` token sequences."""

    def __init__(
        self,
        num_symbols: int,
        output_dim: int,
        symbol_embedding_dim: int,
        num_lstm_layers: int,
        lstm_hidden_dim: int,
        lstm_layer_norm: bool = False,
        lstm_layer_norm_epsilon: float = 1e-5,
        lstm_dropout: float = 0.0,
    ) -> None:
        super().__init__()
        self.embedding = nn.Embedding(num_symbols, symbol_embedding_dim)
        self.input_layer_norm = nn.LayerNorm(symbol_embedding_dim)
        self.lstm_layers = nn.ModuleList(
            [
                _CustomLSTM(
                    symbol_embedding_dim if i == 0 else lstm_hidden_dim,
                    lstm_hidden_dim,
                    layer_norm=lstm_layer_norm,
                    layer_norm_epsilon=lstm_layer_norm_epsilon,
                )
                for i in range(num_lstm_layers)
            ]
        )
        self.dropout = nn.Dropout(p=lstm_dropout)
        self.linear = nn.Linear(lstm_hidden_dim, output_dim)
        self.output_layer_norm = nn.LayerNorm(output_dim)
        self.lstm_dropout = lstm_dropout

    def forward(
        self,
        input: Tensor,
        lengths: Tensor,
        state: list[list[Tensor]] | None = None,
    ) -> tuple[Tensor, Tensor, list[list[Tensor]]]:
        """``(encodings (B, U, output_dim), lengths, per-layer [h, c])``."""
        x = self.input_layer_norm(self.embedding(input.permute(1, 0)))
        state_out: list[list[Tensor]] = []
        for i, lstm in enumerate(self.lstm_layers):
            x, layer_state = lstm(x, None if state is None else state[i])
            x = self.dropout(x)
            state_out.append(layer_state)
        x = self.output_layer_norm(self.linear(x))
        return x.permute(1, 0, 2), lengths, state_out


class _Joiner(nn.Module):
    """``linear(act(source[:, t] + target[:, u]))`` for every ``(t, u)``."""

    def __init__(self, input_dim: int, output_dim: int, activation: str = "relu") -> None:
        super().__init__()
        self.linear = nn.Linear(input_dim, output_dim, bias=True)
        if activation == "relu":
            self.activation = nn.ReLU()
        elif activation == "tanh":
            self.activation = nn.Tanh()
        else:
            raise ValueError(f"Unsupported activation {activation}")

    def forward(
        self,
        source_encodings: Tensor,
        source_lengths: Tensor,
        target_encodings: Tensor,
        target_lengths: Tensor,
    ) -> tuple[Tensor, Tensor, Tensor]:
        """``(logits (B, T, U, num_symbols), source_lengths, target_lengths)``."""
        joint = (
            source_encodings.unsqueeze(2).contiguous() + target_encodings.unsqueeze(1).contiguous()
        )
        return self.linear(self.activation(joint)), source_lengths, target_lengths


class RNNT(nn.Module):
    """Recurrent neural network transducer: transcriber, predictor and joiner.

    Args:
        transcriber (torch.nn.Module): Transcription network.
        predictor (torch.nn.Module): Prediction network.
        joiner (torch.nn.Module): Joint network.
    """

    def __init__(self, transcriber: _Transcriber, predictor: _Predictor, joiner: _Joiner) -> None:
        super().__init__()
        self.transcriber = transcriber
        self.predictor = predictor
        self.joiner = joiner

    def forward(
        self,
        sources: Tensor,
        source_lengths: Tensor,
        targets: Tensor,
        target_lengths: Tensor,
        predictor_state: list[list[Tensor]] | None = None,
    ) -> tuple[Tensor, Tensor, Tensor, list[list[Tensor]]]:
        """``(joint logits (B, T, U, num_symbols), source_lengths, target_lengths,
        predictor_state)`` for training with the RNN-T loss."""
        source_encodings, source_lengths = self.transcriber(input=sources, lengths=source_lengths)
        target_encodings, target_lengths, predictor_state = self.predictor(
            input=targets, lengths=target_lengths, state=predictor_state
        )
        output, source_lengths, target_lengths = self.joiner(
            source_encodings=source_encodings,
            source_lengths=source_lengths,
            target_encodings=target_encodings,
            target_lengths=target_lengths,
        )
        return output, source_lengths, target_lengths, predictor_state

    def transcribe_streaming(
        self,
        sources: Tensor,
        source_lengths: Tensor,
        state: list[list[Tensor]] | None,
    ) -> tuple[Tensor, Tensor, list[list[Tensor]]]:
        """The transcriber on one chunk, carrying its state."""
        return self.transcriber.infer(sources, source_lengths, state)

    def transcribe(self, sources: Tensor, source_lengths: Tensor) -> tuple[Tensor, Tensor]:
        """The transcriber on whole utterances."""
        return self.transcriber(sources, source_lengths)

    def predict(
        self,
        targets: Tensor,
        target_lengths: Tensor,
        state: list[list[Tensor]] | None,
    ) -> tuple[Tensor, Tensor, list[list[Tensor]]]:
        """The predictor on token sequences, carrying its state."""
        return self.predictor(input=targets, lengths=target_lengths, state=state)

    def join(
        self,
        source_encodings: Tensor,
        source_lengths: Tensor,
        target_encodings: Tensor,
        target_lengths: Tensor,
    ) -> tuple[Tensor, Tensor, Tensor]:
        """The joiner on transcriber and predictor encodings."""
        return self.joiner(
            source_encodings=source_encodings,
            source_lengths=source_lengths,
            target_encodings=target_encodings,
            target_lengths=target_lengths,
        )


def emformer_rnnt_model(
    *,
    input_dim: int,
    encoding_dim: int,
    num_symbols: int,
    segment_length: int,
    right_context_length: int,
    time_reduction_input_dim: int,
    time_reduction_stride: int,
    transformer_num_heads: int,
    transformer_ffn_dim: int,
    transformer_num_layers: int,
    transformer_dropout: float,
    transformer_activation: str,
    transformer_left_context_length: int,
    transformer_max_memory_size: int,
    transformer_weight_init_scale_strategy: str,
    transformer_tanh_on_mem: bool,
    symbol_embedding_dim: int,
    num_lstm_layers: int,
    lstm_layer_norm: bool,
    lstm_layer_norm_epsilon: float,
    lstm_dropout: float,
) -> RNNT:
    """An RNN-T with an Emformer transcriber and an LSTM predictor of any size."""
    encoder = _EmformerEncoder(
        input_dim=input_dim,
        output_dim=encoding_dim,
        segment_length=segment_length,
        right_context_length=right_context_length,
        time_reduction_input_dim=time_reduction_input_dim,
        time_reduction_stride=time_reduction_stride,
        transformer_num_heads=transformer_num_heads,
        transformer_ffn_dim=transformer_ffn_dim,
        transformer_num_layers=transformer_num_layers,
        transformer_dropout=transformer_dropout,
        transformer_activation=transformer_activation,
        transformer_left_context_length=transformer_left_context_length,
        transformer_max_memory_size=transformer_max_memory_size,
        transformer_weight_init_scale_strategy=transformer_weight_init_scale_strategy,
        transformer_tanh_on_mem=transformer_tanh_on_mem,
    )
    predictor = _Predictor(
        num_symbols,
        encoding_dim,
        symbol_embedding_dim=symbol_embedding_dim,
        num_lstm_layers=num_lstm_layers,
        lstm_hidden_dim=symbol_embedding_dim,
        lstm_layer_norm=lstm_layer_norm,
        lstm_layer_norm_epsilon=lstm_layer_norm_epsilon,
        lstm_dropout=lstm_dropout,
    )
    return RNNT(encoder, predictor, _Joiner(encoding_dim, num_symbols))


def emformer_rnnt_base(num_symbols: int) -> RNNT:
    """The Emformer RNN-T of torchaudio's LibriSpeech recipe: 80 mel inputs, 20 Emformer
    layers of width 512 (stride-4 time reduction), 3 LSTM layers, 1024-dim joint."""
    return emformer_rnnt_model(
        input_dim=80,
        encoding_dim=1024,
        num_symbols=num_symbols,
        segment_length=16,
        right_context_length=4,
        time_reduction_input_dim=128,
        time_reduction_stride=4,
        transformer_num_heads=8,
        transformer_ffn_dim=2048,
        transformer_num_layers=20,
        transformer_dropout=0.1,
        transformer_activation="gelu",
        transformer_left_context_length=30,
        transformer_max_memory_size=0,
        transformer_weight_init_scale_strategy="depthwise",
        transformer_tanh_on_mem=True,
        symbol_embedding_dim=512,
        num_lstm_layers=3,
        lstm_layer_norm=True,
        lstm_layer_norm_epsilon=1e-3,
        lstm_dropout=0.3,
    )
