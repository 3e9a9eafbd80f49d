"""Tacotron 2 (Shen et al., 2018, after NVIDIA's DeepLearningExamples): text tokens are
embedded and encoded (convolutions, then a bidirectional LSTM); an autoregressive decoder
with location-sensitive attention predicts one mel frame and one stop-token logit per
step; a convolutional postnet adds a residual correction to the predicted spectrogram."""

from __future__ import annotations

import warnings

import chainrule
from chainrule import Tensor, nn
from chainrule.nn import functional as F

__all__ = ["Tacotron2"]


def _get_linear_layer(
    in_dim: int, out_dim: int, bias: bool = True, w_init_gain: str = "linear"
) -> nn.Linear:
    """A Linear layer with Xavier-uniform weights scaled by ``calculate_gain(w_init_gain)``."""
    linear = nn.Linear(in_dim, out_dim, bias=bias)
    nn.init.xavier_uniform_(linear.weight, gain=nn.init.calculate_gain(w_init_gain))
    return linear


def _get_conv1d_layer(
    in_channels: int,
    out_channels: int,
    kernel_size: int = 1,
    stride: int = 1,
    padding: str | int | tuple[int] | None = None,
    dilation: int = 1,
    bias: bool = True,
    w_init_gain: str = "linear",
) -> nn.Conv1d:
    """A Conv1d with Xavier-uniform weights; ``padding=None`` keeps the length (odd kernels only)."""
    if padding is None:
        if kernel_size % 2 != 1:
            raise ValueError("kernel_size must be odd")
        padding = int(dilation * (kernel_size - 1) / 2)
    conv1d = nn.Conv1d(
        in_channels,
        out_channels,
        kernel_size=kernel_size,
        stride=stride,
        padding=padding,
        dilation=dilation,
        bias=bias,
    )
    nn.init.xavier_uniform_(conv1d.weight, gain=nn.init.calculate_gain(w_init_gain))
    return conv1d


def _get_mask_from_lengths(lengths: Tensor) -> Tensor:
    """The padding mask ``(n_batch, max(lengths))``: True where ``j >= lengths[i]``."""
    max_len = int(chainrule.max(lengths).item())
    ids = chainrule.arange(0, max_len, device=lengths.device, dtype=lengths.dtype)
    return ids >= lengths.unsqueeze(1)


class _LocationLayer(nn.Module):
    """Location features of the attention: a convolution over the previous and cumulative
    attention weights ``(n_batch, 2, T_in)``, then a linear map to the attention dimension."""

    def __init__(
        self, attention_n_filter: int, attention_kernel_size: int, attention_hidden_dim: int
    ) -> None:
        super().__init__()
        padding = int((attention_kernel_size - 1) / 2)
        self.location_conv = _get_conv1d_layer(
            2,
            attention_n_filter,
            kernel_size=attention_kernel_size,
            padding=padding,
            bias=False,
            stride=1,
            dilation=1,
        )
        self.location_dense = _get_linear_layer(
            attention_n_filter, attention_hidden_dim, bias=False, w_init_gain="tanh"
        )

    def forward(self, attention_weights_cat: Tensor) -> Tensor:
        """Location features ``(n_batch, T_in, attention_hidden_dim)``."""
        return self.location_dense(self.location_conv(attention_weights_cat).transpose(1, 2))


class _Attention(nn.Module):
    """Location-sensitive attention: energies ``e_j = v . tanh(W q + L f_j + M m_j)``,
    masked at padding, weights ``softmax(e)`` and context ``sum_j w_j m_j``."""

    def __init__(
        self,
        attention_rnn_dim: int,
        encoder_embedding_dim: int,
        attention_hidden_dim: int,
        attention_location_n_filter: int,
        attention_location_kernel_size: int,
    ) -> None:
        super().__init__()
        self.query_layer = _get_linear_layer(
            attention_rnn_dim, attention_hidden_dim, bias=False, w_init_gain="tanh"
        )
        self.memory_layer = _get_linear_layer(
            encoder_embedding_dim, attention_hidden_dim, bias=False, w_init_gain="tanh"
        )
        self.v = _get_linear_layer(attention_hidden_dim, 1, bias=False)
        self.location_layer = _LocationLayer(
            attention_location_n_filter, attention_location_kernel_size, attention_hidden_dim
        )
        self.score_mask_value = -float("inf")

    def _get_alignment_energies(
        self, query: Tensor, processed_memory: Tensor, attention_weights_cat: Tensor
    ) -> Tensor:
        """The energies ``(n_batch, T_in)``."""
        processed_query = self.query_layer(query.unsqueeze(1))
        location = self.location_layer(attention_weights_cat)
        return self.v(chainrule.tanh(processed_query + location + processed_memory)).squeeze(2)

    def forward(
        self,
        attention_hidden_state: Tensor,
        memory: Tensor,
        processed_memory: Tensor,
        attention_weights_cat: Tensor,
        mask: Tensor,
    ) -> tuple[Tensor, Tensor]:
        """``(context (n_batch, encoder_embedding_dim), weights (n_batch, T_in))``."""
        alignment = self._get_alignment_energies(
            attention_hidden_state, processed_memory, attention_weights_cat
        )
        attention_weights = F.softmax(alignment.masked_fill(mask, self.score_mask_value), dim=1)
        attention_context = chainrule.bmm(attention_weights.unsqueeze(1), memory).squeeze(1)
        return attention_context, attention_weights


class _Prenet(nn.Module):
    """Bias-free linear layers, each followed by ReLU and dropout with ``p = 0.5`` that
    stays on in evaluation mode too (Tacotron 2's source of output variation)."""

    def __init__(self, in_dim: int, out_sizes: list[int]) -> None:
        super().__init__()
        in_sizes = [in_dim] + out_sizes[:-1]
        self.layers = nn.ModuleList(
            [_get_linear_layer(n_in, n_out, bias=False) for n_in, n_out in zip(in_sizes, out_sizes)]
        )

    def forward(self, x: Tensor) -> Tensor:
        """``(..., in_dim) -> (..., out_sizes[-1])``."""
        for linear in self.layers:
            x = F.dropout(F.relu(linear(x)), p=0.5, training=True)
        return x


class _Postnet(nn.Module):
    """``postnet_n_convolution`` convolution + batch-norm layers (tanh between them),
    each followed by dropout 0.5 when training; maps ``n_mels`` channels back to ``n_mels``."""

    def __init__(
        self,
        n_mels: int,
        postnet_embedding_dim: int,
        postnet_kernel_size: int,
        postnet_n_convolution: int,
    ) -> None:
        super().__init__()
        self.convolutions = nn.ModuleList()
        for i in range(postnet_n_convolution):
            last = i == postnet_n_convolution - 1
            in_channels = n_mels if i == 0 else postnet_embedding_dim
            out_channels = n_mels if last else postnet_embedding_dim
            conv = _get_conv1d_layer(
                in_channels,
                out_channels,
                kernel_size=postnet_kernel_size,
                stride=1,
                padding=int((postnet_kernel_size - 1) / 2),
                dilation=1,
                w_init_gain="linear" if last else "tanh",
            )
            self.convolutions.append(nn.Sequential(conv, nn.BatchNorm1d(out_channels)))
        self.n_convs = len(self.convolutions)

    def forward(self, x: Tensor) -> Tensor:
        """The correction ``(n_batch, n_mels, T)`` of a spectrogram ``x`` of the same shape."""
        for i, conv in enumerate(self.convolutions):
            x = conv(x)
            if i < self.n_convs - 1:
                x = chainrule.tanh(x)
            x = F.dropout(x, 0.5, training=self.training)
        return x


class _Encoder(nn.Module):
    """Convolution + batch-norm + ReLU (+ dropout 0.5 when training) layers, then a
    bidirectional LSTM over the valid part of each sequence (packed by length)."""

    def __init__(
        self, encoder_embedding_dim: int, encoder_n_convolution: int, encoder_kernel_size: int
    ) -> None:
        super().__init__()
        self.convolutions = nn.ModuleList()
        for _ in range(encoder_n_convolution):
            conv = _get_conv1d_layer(
                encoder_embedding_dim,
                encoder_embedding_dim,
                kernel_size=encoder_kernel_size,
                stride=1,
                padding=int((encoder_kernel_size - 1) / 2),
                dilation=1,
                w_init_gain="relu",
            )
            self.convolutions.append(nn.Sequential(conv, nn.BatchNorm1d(encoder_embedding_dim)))
        self.lstm = nn.LSTM(
            encoder_embedding_dim,
            int(encoder_embedding_dim / 2),
            1,
            batch_first=True,
            bidirectional=True,
        )

    def forward(self, x: Tensor, input_lengths: Tensor) -> Tensor:
        """Encodings ``(n_batch, n_seq, encoder_embedding_dim)`` of ``x``
        ``(n_batch, encoder_embedding_dim, n_seq)``; zero past each length (lengths must
        be in decreasing order)."""
        for conv in self.convolutions:
            x = F.dropout(F.relu(conv(x)), 0.5, self.training)
        packed = nn.utils.rnn.pack_padded_sequence(
            x.transpose(1, 2), input_lengths.cpu(), batch_first=True
        )
        outputs, _ = self.lstm(packed)
        outputs, _ = nn.utils.rnn.pad_packed_sequence(outputs, batch_first=True)
        return outputs


class _Decoder(nn.Module):
    """The attention decoder: per step, prenet(previous frame) and the previous context
    feed the attention LSTM, whose output queries the attention; the decoder LSTM then
    sees the attention output and context, and two linear maps of (its output, context)
    give the next mel frame and the stop-token logit."""

    def __init__(
        self,
        n_mels: int,
        n_frames_per_step: int,
        encoder_embedding_dim: int,
        decoder_rnn_dim: int,
        decoder_max_step: int,
        decoder_dropout: float,
        decoder_early_stopping: bool,
        attention_rnn_dim: int,
        attention_hidden_dim: int,
        attention_location_n_filter: int,
        attention_location_kernel_size: int,
        attention_dropout: float,
        prenet_dim: int,
        gate_threshold: float,
    ) -> None:
        super().__init__()
        self.n_mels = n_mels
        self.n_frames_per_step = n_frames_per_step
        self.encoder_embedding_dim = encoder_embedding_dim
        self.attention_rnn_dim = attention_rnn_dim
        self.decoder_rnn_dim = decoder_rnn_dim
        self.prenet_dim = prenet_dim
        self.decoder_max_step = decoder_max_step
        self.gate_threshold = gate_threshold
        self.attention_dropout = attention_dropout
        self.decoder_dropout = decoder_dropout
        self.decoder_early_stopping = decoder_early_stopping
        self.prenet = _Prenet(n_mels * n_frames_per_step, [prenet_dim, prenet_dim])
        self.attention_rnn = nn.LSTMCell(prenet_dim + encoder_embedding_dim, attention_rnn_dim)
        self.attention_layer = _Attention(
            attention_rnn_dim,
            encoder_embedding_dim,
            attention_hidden_dim,
            attention_location_n_filter,
            attention_location_kernel_size,
        )
        self.decoder_rnn = nn.LSTMCell(
            attention_rnn_dim + encoder_embedding_dim, decoder_rnn_dim, True
        )
        self.linear_projection = _get_linear_layer(
            decoder_rnn_dim + encoder_embedding_dim, n_mels * n_frames_per_step
        )
        self.gate_layer = _get_linear_layer(
            decoder_rnn_dim + encoder_embedding_dim, 1, bias=True, w_init_gain="sigmoid"
        )

    def _get_initial_frame(self, memory: Tensor) -> Tensor:
        """The all-zero go frame ``(n_batch, n_mels * n_frames_per_step)``."""
        return chainrule.zeros(
            memory.size(0),
            self.n_mels * self.n_frames_per_step,
            dtype=memory.dtype,
            device=memory.device,
        )

    _get_go_frame = _get_initial_frame

    def _initialize_decoder_states(self, memory: Tensor) -> tuple[Tensor, ...]:
        """Zero LSTM states, attention weights and context, and the projected memory."""
        n_batch, max_time = memory.size(0), memory.size(1)
        kw = {"dtype": memory.dtype, "device": memory.device}
        return (
            chainrule.zeros(n_batch, self.attention_rnn_dim, **kw),
            chainrule.zeros(n_batch, self.attention_rnn_dim, **kw),
            chainrule.zeros(n_batch, self.decoder_rnn_dim, **kw),
            chainrule.zeros(n_batch, self.decoder_rnn_dim, **kw),
            chainrule.zeros(n_batch, max_time, **kw),
            chainrule.zeros(n_batch, max_time, **kw),
            chainrule.zeros(n_batch, self.encoder_embedding_dim, **kw),
            self.attention_layer.memory_layer(memory),
        )

    def _parse_decoder_inputs(self, decoder_inputs: Tensor) -> Tensor:
        """Teacher-forcing frames ``(n_batch, n_mels, T) -> (T / n_frames_per_step, n_batch, -1)``."""
        decoder_inputs = decoder_inputs.transpose(1, 2)
        decoder_inputs = decoder_inputs.view(
            decoder_inputs.size(0), int(decoder_inputs.size(1) / self.n_frames_per_step), -1
        )
        return decoder_inputs.transpose(0, 1)

    def _parse_decoder_outputs(
        self, mel_specgram: Tensor, gate_outputs: Tensor, alignments: Tensor
    ) -> tuple[Tensor, Tensor, Tensor]:
        """Step-major outputs to batch-major: mel ``(n_batch, n_mels, T)``, gate
        ``(n_batch, T)``, alignments ``(n_batch, T, T_in)``."""
        alignments = alignments.transpose(0, 1).contiguous()
        gate_outputs = gate_outputs.transpose(0, 1).contiguous()
        mel_specgram = mel_specgram.transpose(0, 1).contiguous()
        mel_specgram = mel_specgram.view(mel_specgram.shape[0], -1, self.n_mels).transpose(1, 2)
        return mel_specgram, gate_outputs, alignments

    def decode(
        self,
        decoder_input: Tensor,
        attention_hidden: Tensor,
        attention_cell: Tensor,
        decoder_hidden: Tensor,
        decoder_cell: Tensor,
        attention_weights: Tensor,
        attention_weights_cum: Tensor,
        attention_context: Tensor,
        memory: Tensor,
        processed_memory: Tensor,
        mask: Tensor,
    ) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
        """One decoder step: ``(mel frame, gate logit, attention_hidden, attention_cell,
        decoder_hidden, decoder_cell, attention_weights, attention_weights_cum,
        attention_context)``."""
        cell_input = chainrule.cat((decoder_input, attention_context), -1)
        attention_hidden, attention_cell = self.attention_rnn(
            cell_input, (attention_hidden, attention_cell)
        )
        attention_hidden = F.dropout(attention_hidden, self.attention_dropout, self.training)
        attention_weights_cat = chainrule.stack((attention_weights, attention_weights_cum), dim=1)
        attention_context, attention_weights = self.attention_layer(
            attention_hidden, memory, processed_memory, attention_weights_cat, mask
        )
        attention_weights_cum = attention_weights_cum + attention_weights
        decoder_input = chainrule.cat((attention_hidden, attention_context), -1)
        decoder_hidden, decoder_cell = self.decoder_rnn(
            decoder_input, (decoder_hidden, decoder_cell)
        )
        decoder_hidden = F.dropout(decoder_hidden, self.decoder_dropout, self.training)
        hidden_and_context = chainrule.cat((decoder_hidden, attention_context), dim=1)
        return (
            self.linear_projection(hidden_and_context),
            self.gate_layer(hidden_and_context),
            attention_hidden,
            attention_cell,
            decoder_hidden,
            decoder_cell,
            attention_weights,
            attention_weights_cum,
            attention_context,
        )

    def forward(
        self, memory: Tensor, mel_specgram_truth: Tensor, memory_lengths: Tensor
    ) -> tuple[Tensor, Tensor, Tensor]:
        """Teacher-forced decoding: step ``t`` sees the true frame ``t - 1`` (zeros at
        ``t = 0``). Returns mel ``(n_batch, n_mels, T)``, gate ``(n_batch, T)`` and
        alignments ``(n_batch, T, T_in)``."""
        go = self._get_initial_frame(memory).unsqueeze(0)
        decoder_inputs = chainrule.cat((go, self._parse_decoder_inputs(mel_specgram_truth)), dim=0)
        decoder_inputs = self.prenet(decoder_inputs)
        mask = _get_mask_from_lengths(memory_lengths)
        *state, processed_memory = self._initialize_decoder_states(memory)
        mel_outputs, gate_outputs, alignments = [], [], []
        for step in range(decoder_inputs.size(0) - 1):
            mel_output, gate_output, *state = self.decode(
                decoder_inputs[step], *state, memory, processed_memory, mask
            )
            mel_outputs.append(mel_output.squeeze(1))
            gate_outputs.append(gate_output.squeeze(1))
            alignments.append(state[4])
        return self._parse_decoder_outputs(
            chainrule.stack(mel_outputs), chainrule.stack(gate_outputs), chainrule.stack(alignments)
        )

    def infer(
        self, memory: Tensor, memory_lengths: Tensor
    ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """Free-running decoding from the go frame, each step fed its own previous frame,
        for at most ``decoder_max_step`` steps (fewer when every item's stop probability
        ``sigmoid(gate)`` has exceeded ``gate_threshold`` and early stopping is on).
        Returns mel ``(n_batch, n_mels, T)``, lengths ``(n_batch,)`` (int32: the steps up to
        and including each item's first stop), gate ``(n_batch, T)`` and the alignments
        step-major, ``(T_in, T * n_batch)``."""
        batch_size, device = memory.size(0), memory.device
        decoder_input = self._get_go_frame(memory)
        mask = _get_mask_from_lengths(memory_lengths)
        *state, processed_memory = self._initialize_decoder_states(memory)
        mel_specgram_lengths = chainrule.zeros([batch_size], dtype=chainrule.int32, device=device)
        finished = chainrule.zeros([batch_size], dtype=chainrule.bool, device=device)
        mel_specgrams: list[Tensor] = []
        gate_outputs: list[Tensor] = []
        alignments: list[Tensor] = []
        for _ in range(self.decoder_max_step):
            decoder_input = self.prenet(decoder_input)
            mel_specgram, gate_output, *state = self.decode(
                decoder_input, *state, memory, processed_memory, mask
            )
            mel_specgrams.append(mel_specgram.unsqueeze(0))
            gate_outputs.append(gate_output.transpose(0, 1))
            alignments.append(state[4])
            mel_specgram_lengths = mel_specgram_lengths + (~finished).to(chainrule.int32)
            finished = finished | (chainrule.sigmoid(gate_output.squeeze(1)) > self.gate_threshold)
            if self.decoder_early_stopping and bool(chainrule.all(finished)):
                break
            decoder_input = mel_specgram
        if len(mel_specgrams) == self.decoder_max_step:
            warnings.warn(
                "Reached max decoder steps. The generated spectrogram might not cover the whole transcript.",
                stacklevel=2,
            )
        mels, gates, aligns = self._parse_decoder_outputs(
            chainrule.cat(mel_specgrams, dim=0),
            chainrule.cat(gate_outputs, dim=0),
            chainrule.cat(alignments, dim=0),
        )
        return mels, mel_specgram_lengths, gates, aligns


class Tacotron2(nn.Module):
    """Tacotron 2: text tokens to a mel spectrogram.

    Args:
        mask_padding: zero the predicted spectrograms (and set the gate to 1e3) past each
            target length in :meth:`forward`.
        n_mels: number of mel bins.
        n_symbol: number of text symbols.
        n_frames_per_step: frames per decoder step (only 1 is supported).
        symbol_embedding_dim: symbol embedding size.
        encoder_embedding_dim: encoder size.
        encoder_n_convolution: encoder convolutions.
        encoder_kernel_size: encoder kernel size.
        decoder_rnn_dim: decoder LSTM size.
        decoder_max_step: maximum number of decoded frames in :meth:`infer`.
        decoder_dropout: dropout of the decoder LSTM output.
        decoder_early_stopping: stop decoding once every item has stopped.
        attention_rnn_dim: attention LSTM size.
        attention_hidden_dim: attention hidden size.
        attention_location_n_filter: location convolution filters.
        attention_location_kernel_size: location convolution kernel size.
        attention_dropout: dropout of the attention LSTM output.
        prenet_dim: prenet size.
        postnet_n_convolution: postnet convolutions.
        postnet_kernel_size: postnet kernel size.
        postnet_embedding_dim: postnet channels.
        gate_threshold: stop probability threshold.
    """

    def __init__(
        self,
        mask_padding: bool = False,
        n_mels: int = 80,
        n_symbol: int = 148,
        n_frames_per_step: int = 1,
        symbol_embedding_dim: int = 512,
        encoder_embedding_dim: int = 512,
        encoder_n_convolution: int = 3,
        encoder_kernel_size: int = 5,
        decoder_rnn_dim: int = 1024,
        decoder_max_step: int = 2000,
        decoder_dropout: float = 0.1,
        decoder_early_stopping: bool = True,
        attention_rnn_dim: int = 1024,
        attention_hidden_dim: int = 128,
        attention_location_n_filter: int = 32,
        attention_location_kernel_size: int = 31,
        attention_dropout: float = 0.1,
        prenet_dim: int = 256,
        postnet_n_convolution: int = 5,
        postnet_kernel_size: int = 5,
        postnet_embedding_dim: int = 512,
        gate_threshold: float = 0.5,
    ) -> None:
        super().__init__()
        self.mask_padding = mask_padding
        self.n_mels = n_mels
        self.n_frames_per_step = n_frames_per_step
        self.embedding = nn.Embedding(n_symbol, symbol_embedding_dim)
        nn.init.xavier_uniform_(self.embedding.weight)
        self.encoder = _Encoder(encoder_embedding_dim, encoder_n_convolution, encoder_kernel_size)
        self.decoder = _Decoder(
            n_mels,
            n_frames_per_step,
            encoder_embedding_dim,
            decoder_rnn_dim,
            decoder_max_step,
            decoder_dropout,
            decoder_early_stopping,
            attention_rnn_dim,
            attention_hidden_dim,
            attention_location_n_filter,
            attention_location_kernel_size,
            attention_dropout,
            prenet_dim,
            gate_threshold,
        )
        self.postnet = _Postnet(
            n_mels, postnet_embedding_dim, postnet_kernel_size, postnet_n_convolution
        )

    def forward(
        self,
        tokens: Tensor,
        token_lengths: Tensor,
        mel_specgram: Tensor,
        mel_specgram_lengths: Tensor,
    ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """Teacher-forced pass: ``(mel before postnet, mel after postnet (n_batch, n_mels, T),
        gate logits (n_batch, T), alignments (n_batch, T, T_in))`` for zero-padded
        ``tokens`` ``(n_batch, T_in)`` and target ``mel_specgram`` ``(n_batch, n_mels, T)``;
        ``token_lengths`` must be in decreasing order."""
        embedded_inputs = self.embedding(tokens).transpose(1, 2)
        encoder_outputs = self.encoder(embedded_inputs, token_lengths)
        mel_specgram, gate_outputs, alignments = self.decoder(
            encoder_outputs, mel_specgram, memory_lengths=token_lengths
        )
        mel_specgram_postnet = mel_specgram + self.postnet(mel_specgram)
        if self.mask_padding:
            mask = _get_mask_from_lengths(mel_specgram_lengths).unsqueeze(1)
            mel_specgram = mel_specgram.masked_fill(mask, 0.0)
            mel_specgram_postnet = mel_specgram_postnet.masked_fill(mask, 0.0)
            gate_outputs = gate_outputs.masked_fill(mask[:, 0, :], 1e3)
        return mel_specgram, mel_specgram_postnet, gate_outputs, alignments

    def infer(self, tokens: Tensor, lengths: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor]:
        """Synthesis: ``(mel after postnet (n_batch, n_mels, T), mel lengths (n_batch,),
        alignments (n_batch, T, T_in))``; ``lengths=None`` takes every token as valid."""
        n_batch, max_length = tokens.shape
        if lengths is None:
            lengths = chainrule.tensor([max_length]).expand(n_batch).to(tokens.device, tokens.dtype)
        embedded_inputs = self.embedding(tokens).transpose(1, 2)
        encoder_outputs = self.encoder(embedded_inputs, lengths)
        mel_specgram, mel_specgram_lengths, _, alignments = self.decoder.infer(
            encoder_outputs, lengths
        )
        mel_outputs_postnet = mel_specgram + self.postnet(mel_specgram)
        alignments = alignments.unfold(1, n_batch, n_batch).transpose(0, 2)
        return mel_outputs_postnet, mel_specgram_lengths, alignments
