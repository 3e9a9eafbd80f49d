"""Hybrid Demucs (Défossez, 2021): music source separation with two U-Nets that share
their innermost layers. A frequency branch encodes the normalised STFT (real and
imaginary parts as channels) and a time branch the normalised waveform; the deepest
time layer is injected into the frequency branch, and after decoding each source is the
sum of the time-branch waveform and the inverse STFT of the frequency-branch output.
Encoder layers carry a residual ``_DConv`` branch (dilated convolutions, optionally a
bidirectional LSTM and a local attention)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import chainrule
from chainrule import Tensor, nn
from chainrule.nn import functional as F

__all__ = ["HDemucs", "hdemucs_low", "hdemucs_medium", "hdemucs_high"]


def _norm_factory(norm_type: str, groups: int) -> Callable[[int], nn.Module]:
    """``GroupNorm(groups, d)`` for ``"group_norm"``, else the identity."""
    if norm_type == "group_norm":
        return lambda d: nn.GroupNorm(groups, d)
    return lambda d: nn.Identity()


class _ScaledEmbedding(nn.Module):
    """An embedding stored divided by ``scale`` and multiplied back on use (a ``scale``
    times larger learning rate); ``smooth`` starts it as a running mean over rows,
    ``cumsum(W)_i / sqrt(i + 1)``."""

    def __init__(
        self, num_embeddings: int, embedding_dim: int, scale: float = 10.0, smooth: bool = False
    ) -> None:
        super().__init__()
        self.embedding = nn.Embedding(num_embeddings, embedding_dim)
        with chainrule.no_grad():
            weight = self.embedding.weight
            if smooth:
                rows = chainrule.arange(1, num_embeddings + 1, device=weight.device).sqrt()[:, None]
                weight.copy_(chainrule.cumsum(weight, dim=0) / rows)
            weight.div_(scale)
        self.scale = scale

    @property
    def weight(self) -> Tensor:
        """The effective embedding matrix ``scale * W``."""
        return self.embedding.weight * self.scale

    def forward(self, x: Tensor) -> Tensor:
        """``scale * W[x]``."""
        return self.embedding(x) * self.scale


class _LayerScale(nn.Module):
    """Per-channel scaling ``scale[c] * x[:, c]`` (Touvron et al., 2021), started at ``init``."""

    def __init__(self, channels: int, init: float = 0) -> None:
        super().__init__()
        self.scale = nn.Parameter(chainrule.full((channels,), float(init)))

    def forward(self, x: Tensor) -> Tensor:
        """``x`` ``(B, C, T)`` scaled per channel."""
        return self.scale[:, None] * x


def _unfold(a: Tensor, kernel_size: int, stride: int) -> Tensor:
    """Frames ``(*, ceil(T / stride), kernel_size)`` of ``a`` ``(*, T)`` taken every
    ``stride`` samples, the end zero-padded so that the last frame is full."""
    length = int(a.shape[-1])
    n_frames = math.ceil(length / stride)
    a = F.pad(a, [0, (n_frames - 1) * stride + kernel_size - length])
    return a.unfold(-1, kernel_size, stride)


class _BLSTM(nn.Module):
    """A bidirectional LSTM over ``(B, dim, T)`` followed by a linear map back to ``dim``
    (plus the input when ``skip``); sequences longer than 200 steps are cut into
    half-overlapping frames of 200, run separately and stitched from their middles."""

    def __init__(self, dim: int, layers: int = 1, skip: bool = False) -> None:
        super().__init__()
        self.max_steps = 200
        self.lstm = nn.LSTM(bidirectional=True, num_layers=layers, hidden_size=dim, input_size=dim)
        self.linear = nn.Linear(2 * dim, dim)
        self.skip = skip

    def forward(self, x: Tensor) -> Tensor:
        """The output ``(B, dim, T)``."""
        B, C, T = x.shape
        y = x
        framed = self.max_steps is not None and T > self.max_steps
        if framed:
            width = self.max_steps
            stride = width // 2
            frames = _unfold(x, width, stride)
            nframes = frames.shape[2]
            x = frames.permute(0, 2, 1, 3).reshape(-1, C, width)
        x = self.linear(self.lstm(x.permute(2, 0, 1))[0]).permute(1, 2, 0)
        if framed:
            frames = x.reshape(B, -1, C, width)
            limit = stride // 2
            pieces = []
            for k in range(nframes):
                start = 0 if k == 0 else limit
                stop = width if k == nframes - 1 else width - limit
                pieces.append(frames[:, k, :, start:stop])
            x = chainrule.cat(pieces, -1)[..., :T]
        if self.skip:
            x = x + y
        return x


class _LocalState(nn.Module):
    """Multi-head self-attention over time without positional embedding, penalised by
    distance: ``dots[t, s] = k_t . q_s / sqrt(d) - sum_f sigmoid(qd_f[s]) / 2 * f |t - s| / sqrt(ndecay)``,
    the diagonal set to -100, softmax over ``t``; returns ``x + proj(attended content)``."""

    def __init__(self, channels: int, heads: int = 4, ndecay: int = 4) -> None:
        super().__init__()
        if channels % heads != 0:
            raise ValueError("Channels must be divisible by heads.")
        self.heads = heads
        self.ndecay = ndecay
        self.content = nn.Conv1d(channels, channels, 1)
        self.query = nn.Conv1d(channels, channels, 1)
        self.key = nn.Conv1d(channels, channels, 1)
        self.query_decay = nn.Conv1d(channels, heads * ndecay, 1)
        if ndecay:
            with chainrule.no_grad():
                self.query_decay.weight.mul_(0.01)
                if self.query_decay.bias is None:
                    raise ValueError("bias must not be None.")
                self.query_decay.bias.fill_(-2)
        self.proj = nn.Conv1d(channels, channels, 1)

    def forward(self, x: Tensor) -> Tensor:
        """The output ``(B, C, T)`` of ``x`` ``(B, C, T)``."""
        B, C, T = x.shape
        heads = self.heads
        indexes = chainrule.arange(T, device=x.device, dtype=x.dtype)
        delta = indexes[:, None] - indexes[None, :]
        queries = self.query(x).view(B, heads, -1, T)
        keys = self.key(x).view(B, heads, -1, T)
        dots = chainrule.einsum("bhct,bhcs->bhts", keys, queries) / math.sqrt(keys.shape[2])
        if self.ndecay:
            decays = chainrule.arange(1, self.ndecay + 1, device=x.device, dtype=x.dtype)
            decay_q = chainrule.sigmoid(self.query_decay(x).view(B, heads, -1, T)) / 2
            decay_kernel = -decays.view(-1, 1, 1) * delta.abs() / math.sqrt(self.ndecay)
            dots = dots + chainrule.einsum("fts,bhfs->bhts", decay_kernel, decay_q)
        dots = dots.masked_fill(chainrule.eye(T, device=dots.device, dtype=chainrule.bool), -100)
        weights = chainrule.softmax(dots, dim=2)
        content = self.content(x).view(B, heads, -1, T)
        result = chainrule.einsum("bhts,bhct->bhcs", weights, content).reshape(B, -1, T)
        return x + self.proj(result)


class _DConv(nn.Module):
    """Residual branches ``x <- x + layer(x)``: each layer is a dilated convolution to
    ``channels / compress`` (dilation ``2**d`` when ``depth > 0``), norm, GELU, optional
    BLSTM and local attention, a 1x1 convolution to ``2 * channels``, norm, GLU and a
    LayerScale."""

    def __init__(
        self,
        channels: int,
        compress: float = 4,
        depth: int = 2,
        init: float = 1e-4,
        norm_type: str = "group_norm",
        attn: bool = False,
        heads: int = 4,
        ndecay: int = 4,
        lstm: bool = False,
        kernel_size: int = 3,
    ) -> None:
        super().__init__()
        if kernel_size % 2 == 0:
            raise ValueError("Kernel size should not be divisible by 2")
        self.channels = channels
        self.compress = compress
        self.depth = abs(depth)
        norm_fn = _norm_factory(norm_type, 1)
        hidden = int(channels / compress)
        self.layers = nn.ModuleList([])
        for d in range(self.depth):
            dilation = 2**d if depth > 0 else 1
            mods: list[nn.Module] = [
                nn.Conv1d(
                    channels,
                    hidden,
                    kernel_size,
                    dilation=dilation,
                    padding=dilation * (kernel_size // 2),
                ),
                norm_fn(hidden),
                nn.GELU(),
                nn.Conv1d(hidden, 2 * channels, 1),
                norm_fn(2 * channels),
                nn.GLU(1),
                _LayerScale(channels, init),
            ]
            # attention, then the LSTM, are built last and put before the second
            # convolution (torchaudio's order of building, so one seed gives its weights)
            if attn:
                mods.insert(3, _LocalState(hidden, heads=heads, ndecay=ndecay))
            if lstm:
                mods.insert(3, _BLSTM(hidden, layers=2, skip=True))
            self.layers.append(nn.Sequential(*mods))

    def forward(self, x: Tensor) -> Tensor:
        """``x`` ``(B, channels, T)`` through the residual layers."""
        for layer in self.layers:
            x = x + layer(x)
        return x


class _HEncLayer(nn.Module):
    """An encoder layer of either branch: a strided convolution (2-D with kernel
    ``(kernel_size, 1)`` over frequency when ``freq``, 1-D over time otherwise), plus an
    optional injection, norm, GELU, the DConv branch, a ``1 + 2 context`` convolution to
    twice the channels, norm and GLU. ``empty`` keeps only the strided convolution."""

    def __init__(
        self,
        chin: int,
        chout: int,
        kernel_size: int = 8,
        stride: int = 4,
        norm_groups: int = 4,
        empty: bool = False,
        freq: bool = True,
        norm_type: str = "group_norm",
        context: int = 0,
        dconv_kw: dict[str, Any] | None = None,
        pad: bool = True,
    ) -> None:
        super().__init__()
        dconv_kw = {} if dconv_kw is None else dconv_kw
        norm_fn = _norm_factory(norm_type, norm_groups)
        pad_val = kernel_size // 4 if pad else 0
        self.freq = freq
        self.kernel_size = kernel_size
        self.stride = stride
        self.empty = empty
        self.pad = pad_val
        if freq:
            klass: type[nn.Module] = nn.Conv2d
            self.conv = nn.Conv2d(chin, chout, [kernel_size, 1], [stride, 1], [pad_val, 0])
        else:
            klass = nn.Conv1d
            self.conv = nn.Conv1d(chin, chout, kernel_size, stride, pad_val)
        self.norm1 = norm_fn(chout)
        if self.empty:
            self.rewrite = nn.Identity()
            self.norm2 = nn.Identity()
            self.dconv = nn.Identity()
        else:
            self.rewrite = klass(chout, 2 * chout, 1 + 2 * context, 1, context)
            self.norm2 = norm_fn(2 * chout)
            self.dconv = _DConv(chout, **dconv_kw)

    def forward(self, x: Tensor, inject: Tensor | None = None) -> Tensor:
        """``(B, C, F, T) -> (B, C', F / stride, T)`` (frequency) or ``(B, C, T) ->
        (B, C', ceil(T / stride))`` (time, zero-padded to a multiple of the stride)."""
        if not self.freq and x.dim() == 4:
            x = x.view(x.shape[0], -1, x.shape[-1])
        if not self.freq:
            length = x.shape[-1]
            if length % self.stride != 0:
                x = F.pad(x, (0, self.stride - length % self.stride))
        y = self.conv(x)
        if self.empty:
            return y
        if inject is not None:
            if inject.shape[-1] != y.shape[-1]:
                raise ValueError("Injection shapes do not align")
            if inject.dim() == 3 and y.dim() == 4:
                inject = inject[:, :, None]
            y = y + inject
        y = F.gelu(self.norm1(y))
        if self.freq:
            B, C, Fr, T = y.shape
            y = self.dconv(y.permute(0, 2, 1, 3).reshape(-1, C, T))
            y = y.view(B, Fr, C, T).permute(0, 2, 1, 3)
        else:
            y = self.dconv(y)
        return F.glu(self.norm2(self.rewrite(y)), dim=1)


class _HDecLayer(nn.Module):
    """A decoder layer of either branch: add the skip, a ``1 + 2 context`` convolution to
    twice the channels, norm, GLU, then a strided transposed convolution, norm, the
    padding cropped, and GELU unless ``last``. ``empty`` keeps only the transposed
    convolution. Returns the output and the input of the transposed convolution."""

    def __init__(
        self,
        chin: int,
        chout: int,
        last: bool = False,
        kernel_size: int = 8,
        stride: int = 4,
        norm_groups: int = 1,
        empty: bool = False,
        freq: bool = True,
        norm_type: str = "group_norm",
        context: int = 1,
        dconv_kw: dict[str, Any] | None = None,
        pad: bool = True,
    ) -> None:
        super().__init__()
        norm_fn = _norm_factory(norm_type, norm_groups)
        if pad:
            if (kernel_size - stride) % 2 != 0:
                raise ValueError("Kernel size and stride do not align")
            self.pad = (kernel_size - stride) // 2
        else:
            self.pad = 0
        self.last = last
        self.freq = freq
        self.chin = chin
        self.empty = empty
        self.stride = stride
        self.kernel_size = kernel_size
        if freq:
            klass: type[nn.Module] = nn.Conv2d
            self.conv_tr = nn.ConvTranspose2d(chin, chout, [kernel_size, 1], [stride, 1])
        else:
            klass = nn.Conv1d
            self.conv_tr = nn.ConvTranspose1d(chin, chout, kernel_size, stride)
        self.norm2 = norm_fn(chout)
        if self.empty:
            self.rewrite = nn.Identity()
            self.norm1 = nn.Identity()
        else:
            self.rewrite = klass(chin, 2 * chin, 1 + 2 * context, 1, context)
            self.norm1 = norm_fn(2 * chin)

    def forward(self, x: Tensor, skip: Tensor | None, length: int) -> tuple[Tensor, Tensor]:
        """``(output, pre)``: frequency ``(B, C, F, T) -> (B, C', F * stride, T)``; time
        ``(B, C, T) -> (B, C', length)``."""
        if self.freq and x.dim() == 3:
            B, C, T = x.shape
            x = x.view(B, self.chin, -1, T)
        if not self.empty:
            y = F.glu(self.norm1(self.rewrite(x + skip)), dim=1)
        else:
            y = x
            if skip is not None:
                raise ValueError("Skip must be none when empty is true.")
        z = self.norm2(self.conv_tr(y))
        if self.freq:
            if self.pad:
                z = z[..., self.pad : -self.pad, :]
        else:
            z = z[..., self.pad : self.pad + length]
            if z.shape[-1] != length:
                raise ValueError("Last index of z must be equal to length")
        if not self.last:
            z = F.gelu(z)
        return z, y


def _rescale_module(module: nn.Module) -> None:
    """Divide every (transposed) convolution's weight and bias by ``sqrt(std(weight) / 0.1)``."""
    kinds = (nn.Conv1d, nn.ConvTranspose1d, nn.Conv2d, nn.ConvTranspose2d)
    with chainrule.no_grad():
        for sub in module.modules():
            if isinstance(sub, kinds):
                scale = (sub.weight.std() / 0.1) ** 0.5
                sub.weight.div_(scale)
                if sub.bias is not None:
                    sub.bias.div_(scale)


def _spectro(x: Tensor, n_fft: int = 512, hop_length: int = 0, pad: int = 0) -> Tensor:
    """Normalised centred STFT (Hann window, reflect padding) over the last dimension."""
    other = list(x.shape[:-1])
    x = x.reshape(-1, int(x.shape[-1]))
    z = chainrule.stft(
        x,
        n_fft * (1 + pad),
        hop_length,
        window=chainrule.hann_window(n_fft).to(x),
        win_length=n_fft,
        normalized=True,
        center=True,
        return_complex=True,
        pad_mode="reflect",
    )
    return z.view(other + list(z.shape[-2:]))


def _ispectro(z: Tensor, hop_length: int = 0, length: int = 0, pad: int = 0) -> Tensor:
    """Inverse of :func:`_spectro`, ``length`` samples long."""
    other = list(z.shape[:-2])
    freqs, frames = int(z.shape[-2]), int(z.shape[-1])
    n_fft = 2 * freqs - 2
    win_length = n_fft // (1 + pad)
    x = chainrule.istft(
        z.view(-1, freqs, frames),
        n_fft,
        hop_length,
        window=chainrule.hann_window(win_length).to(z.real),
        win_length=win_length,
        normalized=True,
        length=length,
        center=True,
    )
    return x.view(other + [x.shape[-1]])


class HDemucs(nn.Module):
    """Hybrid Demucs.

    Args:
        sources: names of the sources to separate.
        audio_channels: input/output audio channels.
        channels: hidden channels of the first layer.
        growth: channel growth factor per layer.
        nfft: FFT size (hop ``nfft // 4``).
        depth: number of encoder (and decoder) layers.
        freq_emb: weight of the frequency embedding added after the first frequency layer (0: none).
        emb_scale: learning-rate scale of that embedding.
        emb_smooth: start the embedding smooth along frequency.
        kernel_size: encoder/decoder kernel size.
        time_stride: stride of the time layer after the branches merge.
        stride: encoder/decoder stride.
        context: context of the decoders' 1x1 convolutions.
        context_enc: context of the encoders' 1x1 convolutions.
        norm_starts: first layer using group norm.
        norm_groups: groups of the group norms.
        dconv_depth: layers of each DConv branch.
        dconv_comp: channel compression of the DConv branches.
        dconv_attn: first layer whose DConv has local attention.
        dconv_lstm: first layer whose DConv has a BLSTM.
        dconv_init: initial LayerScale of the DConv branches.
    """

    def __init__(
        self,
        sources: list[str],
        audio_channels: int = 2,
        channels: int = 48,
        growth: int = 2,
        nfft: int = 4096,
        depth: int = 6,
        freq_emb: float = 0.2,
        emb_scale: int = 10,
        emb_smooth: bool = True,
        kernel_size: int = 8,
        time_stride: int = 2,
        stride: int = 4,
        context: int = 1,
        context_enc: int = 0,
        norm_starts: int = 4,
        norm_groups: int = 4,
        dconv_depth: int = 2,
        dconv_comp: int = 4,
        dconv_attn: int = 4,
        dconv_lstm: int = 4,
        dconv_init: float = 1e-4,
    ) -> None:
        super().__init__()
        self.depth = depth
        self.nfft = nfft
        self.audio_channels = audio_channels
        self.sources = sources
        self.kernel_size = kernel_size
        self.context = context
        self.stride = stride
        self.channels = channels
        self.hop_length = self.nfft // 4
        self.freq_emb = None
        self.freq_encoder = nn.ModuleList()
        self.freq_decoder = nn.ModuleList()
        self.time_encoder = nn.ModuleList()
        self.time_decoder = nn.ModuleList()

        chin, chin_z = audio_channels, audio_channels * 2  # the frequency branch has re/im channels
        chout, chout_z = channels, channels
        freqs = self.nfft // 2
        for index in range(self.depth):
            freq = freqs > 1
            ker, stri = kernel_size, stride
            if not freq:
                if freqs != 1:
                    raise ValueError("When freq is false, freqs must be 1.")
                ker, stri = time_stride * 2, time_stride
            last_freq = freq and freqs <= kernel_size
            if last_freq:
                ker = freqs
            kw = {
                "kernel_size": ker,
                "stride": stri,
                "freq": freq,
                "pad": not last_freq,
                "norm_type": "group_norm" if index >= norm_starts else "none",
                "norm_groups": norm_groups,
                "dconv_kw": {
                    "lstm": index >= dconv_lstm,
                    "attn": index >= dconv_attn,
                    "depth": dconv_depth,
                    "compress": dconv_comp,
                    "init": dconv_init,
                },
            }
            kwt = dict(kw, freq=0, kernel_size=kernel_size, stride=stride, pad=True)
            if last_freq:
                chout_z = max(chout, chout_z)
                chout = chout_z
            self.freq_encoder.append(_HEncLayer(chin_z, chout_z, context=context_enc, **kw))
            if freq:
                if last_freq and nfft == 2048:
                    kwt["stride"], kwt["kernel_size"] = 2, 4
                self.time_encoder.append(
                    _HEncLayer(chin, chout, context=context_enc, empty=last_freq, **kwt)
                )
            if index == 0:
                chin = self.audio_channels * len(self.sources)
                chin_z = chin * 2
            self.freq_decoder.insert(
                0, _HDecLayer(chout_z, chin_z, last=index == 0, context=context, **kw)
            )
            if freq:
                tdec = _HDecLayer(
                    chout, chin, empty=last_freq, last=index == 0, context=context, **kwt
                )
                self.time_decoder.insert(0, tdec)
            chin, chin_z = chout, chout_z
            chout, chout_z = int(growth * chout), int(growth * chout_z)
            if freq:
                freqs = 1 if freqs <= kernel_size else freqs // stride
            if index == 0 and freq_emb:
                self.freq_emb = _ScaledEmbedding(freqs, chin_z, smooth=emb_smooth, scale=emb_scale)
                self.freq_emb_scale = freq_emb
        _rescale_module(self)

    def _spec(self, x: Tensor) -> Tensor:
        """The STFT of ``x`` cut to ``ceil(T / hop)`` frames and ``nfft / 2`` bins, after
        reflect padding that centres the frames on the signal."""
        hl = self.hop_length
        if hl != self.nfft // 4:
            raise ValueError("Hop length must be nfft // 4")
        le = int(math.ceil(x.shape[-1] / hl))
        pad = hl // 2 * 3
        x = self._pad1d(x, pad, pad + le * hl - x.shape[-1], mode="reflect")
        z = _spectro(x, self.nfft, hl)[..., :-1, :]
        if z.shape[-1] != le + 4:
            raise ValueError(
                "Spectrogram's last dimension must be 4 + input size divided by stride"
            )
        return z[..., 2 : 2 + le]

    def _ispec(self, z: Tensor, length: int | None = None) -> Tensor:
        """The waveform ``length`` samples long whose :meth:`_spec` is ``z``."""
        hl = self.hop_length
        z = F.pad(F.pad(z, [0, 0, 0, 1]), [2, 2])
        pad = hl // 2 * 3
        le = hl * int(math.ceil(length / hl)) + 2 * pad
        return _ispectro(z, hl, length=le)[..., pad : pad + length]

    def _pad1d(
        self,
        x: Tensor,
        padding_left: int,
        padding_right: int,
        mode: str = "zero",
        value: float = 0.0,
    ) -> Tensor:
        """``F.pad``, first zero-padding the end when reflect padding needs more samples than there are."""
        length = x.shape[-1]
        if mode == "reflect":
            max_pad = max(padding_left, padding_right)
            if length <= max_pad:
                x = F.pad(x, (0, max_pad - length + 1))
        if mode == "zero":
            mode = "constant"
        return F.pad(x, (padding_left, padding_right), mode, value)

    def _magnitude(self, z: Tensor) -> Tensor:
        """Complex ``(B, C, F, T)`` to real ``(B, 2C, F, T)`` (real and imaginary parts per channel)."""
        B, C, Fr, T = z.shape
        return chainrule.view_as_real(z).permute(0, 1, 4, 2, 3).reshape(B, C * 2, Fr, T)

    def _mask(self, m: Tensor) -> Tensor:
        """Real ``(B, S, 2C, F, T)`` back to complex ``(B, S, C, F, T)``."""
        B, S, C, Fr, T = m.shape
        out = m.view(B, S, -1, 2, Fr, T).permute(0, 1, 2, 4, 5, 3)
        return chainrule.view_as_complex(out.contiguous())

    def forward(self, input: Tensor) -> Tensor:
        """Separated sources ``(batch, num_sources, channel, frames)`` of the mixture
        ``input`` ``(batch, channel, frames)``."""
        if input.ndim != 3:
            raise ValueError(
                f"Expected 3D tensor with dimensions (batch, channel, frames). Found: {input.shape}"
            )
        if input.shape[1] != self.audio_channels:
            raise ValueError(
                "The channel dimension of input Tensor must match `audio_channels` of HDemucs model. "
                f"Found:{input.shape[1]}."
            )
        length = input.shape[-1]
        x = self._magnitude(self._spec(input))
        B, C, Fq, T = x.shape
        mean = x.mean(dim=(1, 2, 3), keepdim=True)
        std = x.std(dim=(1, 2, 3), keepdim=True)
        x = (x - mean) / (1e-5 + std)
        meant = input.mean(dim=(1, 2), keepdim=True)
        stdt = input.std(dim=(1, 2), keepdim=True)
        xt = (input - meant) / (1e-5 + stdt)

        saved: list[Tensor] = []
        saved_t: list[Tensor] = []
        lengths: list[int] = []
        lengths_t: list[int] = []
        for idx, encode in enumerate(self.freq_encoder):
            lengths.append(x.shape[-1])
            inject = None
            if idx < len(self.time_encoder):
                lengths_t.append(xt.shape[-1])
                tenc = self.time_encoder[idx]
                xt = tenc(xt)
                if tenc.empty:
                    inject = xt
                else:
                    saved_t.append(xt)
            x = encode(x, inject)
            if idx == 0 and self.freq_emb is not None:
                frs = chainrule.arange(x.shape[-2], device=x.device)
                emb = self.freq_emb(frs).t()[None, :, :, None].expand_as(x)
                x = x + self.freq_emb_scale * emb
            saved.append(x)

        x = chainrule.zeros_like(x)
        xt = chainrule.zeros_like(x)
        offset = self.depth - len(self.time_decoder)
        for idx, decode in enumerate(self.freq_decoder):
            x, pre = decode(x, saved.pop(-1), lengths.pop(-1))
            if idx >= offset:
                tdec = self.time_decoder[idx - offset]
                length_t = lengths_t.pop(-1)
                if tdec.empty:
                    if pre.shape[2] != 1:
                        raise ValueError(
                            f"If tdec empty is True, pre shape does not match {pre.shape}"
                        )
                    xt, _ = tdec(pre[:, :, 0], None, length_t)
                else:
                    xt, _ = tdec(xt, saved_t.pop(-1), length_t)
        if len(saved) != 0:
            raise AssertionError("saved is not empty")
        if len(lengths_t) != 0:
            raise AssertionError("lengths_t is not empty")
        if len(saved_t) != 0:
            raise AssertionError("saved_t is not empty")

        S = len(self.sources)
        x = x.view(B, S, -1, Fq, T) * std[:, None] + mean[:, None]
        x = self._ispec(self._mask(x), length)
        xt = xt.view(B, S, -1, length) * stdt[:, None] + meant[:, None]
        return xt + x


def hdemucs_low(sources: list[str]) -> HDemucs:
    """HDemucs with ``nfft=1024, depth=5``, for sample rates around 8 kHz."""
    return HDemucs(sources=sources, nfft=1024, depth=5)


def hdemucs_medium(sources: list[str]) -> HDemucs:
    """HDemucs with ``nfft=2048, depth=6``, for sample rates of 16-32 kHz."""
    return HDemucs(sources=sources, nfft=2048, depth=6)


def hdemucs_high(sources: list[str]) -> HDemucs:
    """HDemucs with ``nfft=4096, depth=6``, for sample rates of 44.1-48 kHz."""
    return HDemucs(sources=sources, nfft=4096, depth=6)
