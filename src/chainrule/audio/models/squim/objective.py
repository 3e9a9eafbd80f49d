"""SQUIM objective: a learned convolutional encoder, a dual-path RNN over chunks of the
encoded sequence, and one transformer branch per metric (STOI, PESQ, SI-SDR), each
pooled over time by auto-pooling and mapped to a score."""

from __future__ import annotations

import math

import chainrule
from chainrule import Tensor, nn
from chainrule.nn import functional as F

__all__ = ["SquimObjective", "squim_objective_model", "squim_objective_base"]


def transform_wb_pesq_range(x: float) -> float:
    """Wide-band PESQ (ITU-T P.862.2) of a narrow-band PESQ score ``x``:
    ``0.999 + 4 / (1 + exp(-1.3669 x + 3.8224))``."""
    return 0.999 + (4.999 - 0.999) / (1 + math.exp(-1.3669 * x + 3.8224))


# the range of wide-band PESQ scores: P.862.2's lower bound is 1.0, the upper one maps 4.5
PESQRange: tuple[float, float] = (1.0, transform_wb_pesq_range(4.5))


class RangeSigmoid(nn.Module):
    """``lo + (hi - lo) * sigmoid(x)`` for ``val_range = (lo, hi)``."""

    def __init__(self, val_range: tuple[float, float] = (0.0, 1.0)) -> None:
        super().__init__()
        assert isinstance(val_range, tuple) and len(val_range) == 2
        self.val_range: tuple[float, float] = val_range
        self.sigmoid: nn.Module = nn.Sigmoid()

    def forward(self, x: Tensor) -> Tensor:
        """``x`` squashed into ``val_range``."""
        return self.sigmoid(x) * (self.val_range[1] - self.val_range[0]) + self.val_range[0]


class Encoder(nn.Module):
    """``relu(conv1d(x))`` with ``feat_dim`` filters of length ``win_len`` and stride ``win_len // 2``."""

    def __init__(self, feat_dim: int = 512, win_len: int = 32) -> None:
        super().__init__()
        self.conv1d = nn.Conv1d(1, feat_dim, win_len, stride=win_len // 2, bias=False)

    def forward(self, x: Tensor) -> Tensor:
        """Features ``(batch, feat_dim, frames)`` of waveforms ``(batch, time)``."""
        return F.relu(self.conv1d(x.unsqueeze(dim=1)))


class SingleRNN(nn.Module):
    """A one-layer bidirectional ``rnn_type`` (``"RNN"``, ``"LSTM"`` or ``"GRU"``) and a
    linear projection back to ``input_size``."""

    def __init__(
        self, rnn_type: str, input_size: int, hidden_size: int, dropout: float = 0.0
    ) -> None:
        super().__init__()
        self.rnn_type = rnn_type
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.rnn: nn.Module = getattr(nn, rnn_type)(
            input_size, hidden_size, 1, dropout=dropout, batch_first=True, bidirectional=True
        )
        self.proj = nn.Linear(hidden_size * 2, input_size)

    def forward(self, x: Tensor) -> Tensor:
        """``(batch, time, input_size) -> (batch, time, input_size)``."""
        out, _ = self.rnn(x)
        return self.proj(out)


class DPRNN(nn.Module):
    """Dual-path RNN (Luo et al., 2020): the sequence is cut into half-overlapping chunks;
    each block runs a bidirectional RNN within chunks and one across chunks, each added
    back after a global layer norm; a 1x1 convolution with PReLU maps to ``d_model`` and
    overlap-add merges the chunks.

    Args:
        feat_dim: input features.
        hidden_dim: RNN hidden size.
        num_blocks: number of dual-path blocks.
        rnn_type: ``"RNN"``, ``"LSTM"`` or ``"GRU"``.
        d_model: output features.
        chunk_size: chunk length.
        chunk_stride: hop between chunks.
    """

    def __init__(
        self,
        feat_dim: int = 64,
        hidden_dim: int = 128,
        num_blocks: int = 6,
        rnn_type: str = "LSTM",
        d_model: int = 256,
        chunk_size: int = 100,
        chunk_stride: int = 50,
    ) -> None:
        super().__init__()
        self.num_blocks = num_blocks
        self.row_rnn = nn.ModuleList([])
        self.col_rnn = nn.ModuleList([])
        self.row_norm = nn.ModuleList([])
        self.col_norm = nn.ModuleList([])
        for _ in range(num_blocks):
            self.row_rnn.append(SingleRNN(rnn_type, feat_dim, hidden_dim))
            self.col_rnn.append(SingleRNN(rnn_type, feat_dim, hidden_dim))
            self.row_norm.append(nn.GroupNorm(1, feat_dim, eps=1e-8))
            self.col_norm.append(nn.GroupNorm(1, feat_dim, eps=1e-8))
        self.conv = nn.Sequential(nn.Conv2d(feat_dim, d_model, 1), nn.PReLU())
        self.chunk_size = chunk_size
        self.chunk_stride = chunk_stride

    def pad_chunk(self, x: Tensor) -> tuple[Tensor, int]:
        """``x`` zero-padded by ``chunk_stride`` in front and ``rest + chunk_stride`` behind,
        ``rest`` making the padded length a whole number of chunks; returns ``rest`` too."""
        seq_len = x.shape[-1]
        rest = self.chunk_size - (self.chunk_stride + seq_len % self.chunk_size) % self.chunk_size
        return F.pad(x, [self.chunk_stride, rest + self.chunk_stride]), rest

    def chunking(self, x: Tensor) -> tuple[Tensor, int]:
        """Chunks ``(batch, feat, chunk_size, n_chunks)``: the chunks starting at 0 and at
        ``chunk_stride`` of the padded sequence, interleaved."""
        out, rest = self.pad_chunk(x)
        batch_size, feat_dim, _ = out.shape
        first = (
            out[:, :, : -self.chunk_stride]
            .contiguous()
            .view(batch_size, feat_dim, -1, self.chunk_size)
        )
        second = (
            out[:, :, self.chunk_stride :]
            .contiguous()
            .view(batch_size, feat_dim, -1, self.chunk_size)
        )
        out = chainrule.cat([first, second], dim=3)
        out = out.view(batch_size, feat_dim, -1, self.chunk_size).transpose(2, 3).contiguous()
        return out, rest

    def merging(self, x: Tensor, rest: int) -> Tensor:
        """Overlap-add of the chunks back to ``(batch, dim, time)`` (inverse of :meth:`chunking`)."""
        batch_size, dim, _, _ = x.shape
        out = x.transpose(2, 3).contiguous().view(batch_size, dim, -1, self.chunk_size * 2)
        first = (
            out[:, :, :, : self.chunk_size]
            .contiguous()
            .view(batch_size, dim, -1)[:, :, self.chunk_stride :]
        )
        second = (
            out[:, :, :, self.chunk_size :]
            .contiguous()
            .view(batch_size, dim, -1)[:, :, : -self.chunk_stride]
        )
        out = first + second
        if rest > 0:
            out = out[:, :, :-rest]
        return out.contiguous()

    def forward(self, x: Tensor) -> Tensor:
        """``(batch, feat_dim, time) -> (batch, time, d_model)``."""
        x, rest = self.chunking(x)
        batch_size, _, dim1, dim2 = x.shape
        out = x
        for row_rnn, row_norm, col_rnn, col_norm in zip(
            self.row_rnn, self.row_norm, self.col_rnn, self.col_norm
        ):
            row_in = out.permute(0, 3, 2, 1).contiguous().view(batch_size * dim2, dim1, -1)
            row_out = (
                row_rnn(row_in).view(batch_size, dim2, dim1, -1).permute(0, 3, 2, 1).contiguous()
            )
            out = out + row_norm(row_out)
            col_in = out.permute(0, 2, 3, 1).contiguous().view(batch_size * dim1, dim2, -1)
            col_out = (
                col_rnn(col_in).view(batch_size, dim1, dim2, -1).permute(0, 3, 1, 2).contiguous()
            )
            out = out + col_norm(col_out)
        out = self.merging(self.conv(out), rest)
        return out.transpose(1, 2).contiguous()


class AutoPool(nn.Module):
    """Auto-pooling: ``sum_t x_t softmax_t(alpha x)_t`` along ``pool_dim`` with a learned ``alpha``."""

    def __init__(self, pool_dim: int = 1) -> None:
        super().__init__()
        self.pool_dim: int = pool_dim
        self.softmax: nn.Module = nn.Softmax(dim=pool_dim)
        self.register_parameter("alpha", nn.Parameter(chainrule.ones(1)))

    def forward(self, x: Tensor) -> Tensor:
        """``x`` pooled over ``pool_dim``."""
        weight = self.softmax(chainrule.mul(x, self.alpha))
        return chainrule.sum(chainrule.mul(x, weight), dim=self.pool_dim)


class SquimObjective(nn.Module):
    """SQUIM objective model: scores ``[STOI, PESQ, SI-SDR]``, each ``(batch,)``.

    Args:
        encoder: waveform encoder.
        dprnn: the dual-path RNN.
        branches: one module per metric.
    """

    def __init__(self, encoder: nn.Module, dprnn: nn.Module, branches: nn.ModuleList) -> None:
        super().__init__()
        self.encoder = encoder
        self.dprnn = dprnn
        self.branches = branches

    def forward(self, x: Tensor) -> list[Tensor]:
        """Scores of waveforms ``x`` ``(batch, time)``, first scaled to RMS 1/20."""
        if x.ndim != 2:
            raise ValueError(f"The input must be a 2D Tensor. Found dimension {x.ndim}.")
        x = x / (chainrule.mean(x**2, dim=1, keepdim=True) ** 0.5 * 20)
        out = self.dprnn(self.encoder(x))
        return [branch(out).squeeze(dim=1) for branch in self.branches]


def _create_branch(d_model: int, nhead: int, metric: str) -> nn.Module:
    """A transformer encoder layer, auto-pooling over time, and a two-layer head; the head
    ends in a sigmoid onto [0, 1] for ``"stoi"`` and onto :data:`PESQRange` for ``"pesq"``."""
    # the attention layer is built (drawn) before the head, as torchaudio
    layer = nn.TransformerEncoderLayer(d_model, nhead, d_model * 4, dropout=0.0, batch_first=True)
    head: list[nn.Module] = [nn.Linear(d_model, d_model), nn.PReLU(), nn.Linear(d_model, 1)]
    if metric == "stoi":
        head.append(RangeSigmoid())
    elif metric == "pesq":
        head.append(RangeSigmoid(val_range=PESQRange))
    return nn.Sequential(layer, AutoPool(), nn.Sequential(*head))


def squim_objective_model(
    feat_dim: int,
    win_len: int,
    d_model: int,
    nhead: int,
    hidden_dim: int,
    num_blocks: int,
    rnn_type: str,
    chunk_size: int,
    chunk_stride: int | None = None,
) -> SquimObjective:
    """A :class:`SquimObjective` of the given sizes (``chunk_stride`` defaults to ``chunk_size // 2``)."""
    if chunk_stride is None:
        chunk_stride = chunk_size // 2
    encoder = Encoder(feat_dim, win_len)
    dprnn = DPRNN(feat_dim, hidden_dim, num_blocks, rnn_type, d_model, chunk_size, chunk_stride)
    branches = nn.ModuleList(
        [_create_branch(d_model, nhead, metric) for metric in ("stoi", "pesq", "sisdr")]
    )
    return SquimObjective(encoder, dprnn, branches)


def squim_objective_base() -> SquimObjective:
    """The published SQUIM objective configuration: ``feat_dim=256, win_len=64, d_model=256,
    nhead=4, hidden_dim=256, num_blocks=2, rnn_type="LSTM", chunk_size=71``."""
    return squim_objective_model(
        feat_dim=256,
        win_len=64,
        d_model=256,
        nhead=4,
        hidden_dim=256,
        num_blocks=2,
        rnn_type="LSTM",
        chunk_size=71,
    )
