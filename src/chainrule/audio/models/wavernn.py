"""WaveRNN (Kalchbrenner et al., 2018, after fatchord/WaveRNN): a mel spectrogram is
upsampled to the sample rate (nearest-neighbour stretches smoothed by box filters) and
summarised by a residual network; two GRUs and three linear layers then predict the
class (quantised amplitude) of each sample from the previous sample and those features."""

from __future__ import annotations

import math

import chainrule
from chainrule import Tensor, nn
from chainrule.nn import functional as F

__all__ = ["ResBlock", "MelResNet", "Stretch2d", "UpsampleNetwork", "WaveRNN"]


class ResBlock(nn.Module):
    """``x + BN(conv1x1(relu(BN(conv1x1(x)))))`` over ``(n_batch, n_freq, n_time)``.

    Args:
        n_freq: number of channels.
    """

    def __init__(self, n_freq: int = 128) -> None:
        super().__init__()
        self.resblock_model = nn.Sequential(
            nn.Conv1d(n_freq, n_freq, kernel_size=1, bias=False),
            nn.BatchNorm1d(n_freq),
            nn.ReLU(inplace=True),
            nn.Conv1d(n_freq, n_freq, kernel_size=1, bias=False),
            nn.BatchNorm1d(n_freq),
        )

    def forward(self, specgram: Tensor) -> Tensor:
        """The block's output, same shape as ``specgram``."""
        return self.resblock_model(specgram) + specgram


class MelResNet(nn.Module):
    """A valid convolution (``kernel_size``), BN and ReLU, ``n_res_block`` ResBlocks and a
    1x1 output convolution: ``(n_batch, n_freq, n_time) -> (n_batch, n_output, n_time - kernel_size + 1)``.

    Args:
        n_res_block: number of ResBlocks.
        n_freq: input channels.
        n_hidden: hidden channels.
        n_output: output channels.
        kernel_size: kernel of the first convolution.
    """

    def __init__(
        self,
        n_res_block: int = 10,
        n_freq: int = 128,
        n_hidden: int = 128,
        n_output: int = 128,
        kernel_size: int = 5,
    ) -> None:
        super().__init__()
        blocks = [ResBlock(n_hidden) for _ in range(n_res_block)]  # drawn first, as torchaudio
        self.melresnet_model = nn.Sequential(
            nn.Conv1d(n_freq, n_hidden, kernel_size=kernel_size, bias=False),
            nn.BatchNorm1d(n_hidden),
            nn.ReLU(inplace=True),
            *blocks,
            nn.Conv1d(n_hidden, n_output, kernel_size=1),
        )

    def forward(self, specgram: Tensor) -> Tensor:
        """The network's output ``(n_batch, n_output, n_time - kernel_size + 1)``."""
        return self.melresnet_model(specgram)


class Stretch2d(nn.Module):
    """Nearest-neighbour upscaling: each frequency bin repeated ``freq_scale`` times and
    each frame ``time_scale`` times.

    Args:
        time_scale: factor along the last dimension.
        freq_scale: factor along the second-to-last dimension.
    """

    def __init__(self, time_scale: int, freq_scale: int) -> None:
        super().__init__()
        self.freq_scale = freq_scale
        self.time_scale = time_scale

    def forward(self, specgram: Tensor) -> Tensor:
        """``(..., n_freq, n_time) -> (..., n_freq * freq_scale, n_time * time_scale)``."""
        return specgram.repeat_interleave(self.freq_scale, -2).repeat_interleave(
            self.time_scale, -1
        )


class UpsampleNetwork(nn.Module):
    """Upsamples a spectrogram by ``prod(upsample_scales)`` along time two ways: by
    stretch-and-smooth (each scale ``s``: repeat ``s`` times, then a ``1 x (2s+1)`` box
    filter, cropped by ``indent`` at both ends) and by stretching the MelResNet output.

    Args:
        upsample_scales: the upsampling factors, applied in turn.
        n_res_block: number of ResBlocks of the MelResNet.
        n_freq: spectrogram bins.
        n_hidden: MelResNet hidden channels.
        n_output: MelResNet output channels.
        kernel_size: kernel of the MelResNet's first convolution.
    """

    def __init__(
        self,
        upsample_scales: list[int],
        n_res_block: int = 10,
        n_freq: int = 128,
        n_hidden: int = 128,
        n_output: int = 128,
        kernel_size: int = 5,
    ) -> None:
        super().__init__()
        self.total_scale: int = math.prod(upsample_scales)
        self.indent = (kernel_size - 1) // 2 * self.total_scale
        self.resnet = MelResNet(n_res_block, n_freq, n_hidden, n_output, kernel_size)
        self.resnet_stretch = Stretch2d(self.total_scale, 1)
        layers: list[nn.Module] = []
        for scale in upsample_scales:
            conv = nn.Conv2d(1, 1, kernel_size=(1, scale * 2 + 1), padding=(0, scale), bias=False)
            nn.init.constant_(conv.weight, 1.0 / (scale * 2 + 1))
            layers += [Stretch2d(scale, 1), conv]
        self.upsample_layers = nn.Sequential(*layers)

    def forward(self, specgram: Tensor) -> tuple[Tensor, Tensor]:
        """``(upsampled spectrogram (n_batch, n_freq, T'), stretched MelResNet output
        (n_batch, n_output, T'))`` with ``T' = (n_time - kernel_size + 1) * total_scale``."""
        resnet_output = self.resnet_stretch(self.resnet(specgram).unsqueeze(1)).squeeze(1)
        upsampled = self.upsample_layers(specgram.unsqueeze(1)).squeeze(1)
        return upsampled[:, :, self.indent : -self.indent], resnet_output


class WaveRNN(nn.Module):
    """WaveRNN: class logits of each sample given the previous samples and the upsampled
    conditioning features; the auxiliary features are split in four quarters ``a1..a4``
    that feed the input layer, the second GRU and the two hidden linear layers.

    Args:
        upsample_scales: upsampling factors; their product must equal ``hop_length``.
        n_classes: number of output classes (``2**n_bits``).
        hop_length: samples per spectrogram frame.
        n_res_block: number of ResBlocks.
        n_rnn: GRU size.
        n_fc: hidden linear size.
        kernel_size: kernel of the MelResNet's first convolution.
        n_freq: spectrogram bins.
        n_hidden: MelResNet hidden channels.
        n_output: MelResNet output channels.
    """

    def __init__(
        self,
        upsample_scales: list[int],
        n_classes: int,
        hop_length: int,
        n_res_block: int = 10,
        n_rnn: int = 512,
        n_fc: int = 512,
        kernel_size: int = 5,
        n_freq: int = 128,
        n_hidden: int = 128,
        n_output: int = 128,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self._pad = (kernel_size - 1 if kernel_size % 2 else kernel_size) // 2
        self.n_rnn = n_rnn
        self.n_aux = n_output // 4
        self.hop_length = hop_length
        self.n_classes = n_classes
        self.n_bits: int = int(math.log2(self.n_classes))
        total_scale = math.prod(upsample_scales)
        if total_scale != self.hop_length:
            raise ValueError(
                f"Expected: total_scale == hop_length, but found {total_scale} != {hop_length}"
            )
        self.upsample = UpsampleNetwork(
            upsample_scales, n_res_block, n_freq, n_hidden, n_output, kernel_size
        )
        self.fc = nn.Linear(n_freq + self.n_aux + 1, n_rnn)
        self.rnn1 = nn.GRU(n_rnn, n_rnn, batch_first=True)
        self.rnn2 = nn.GRU(n_rnn + self.n_aux, n_rnn, batch_first=True)
        self.relu1 = nn.ReLU(inplace=True)
        self.relu2 = nn.ReLU(inplace=True)
        self.fc1 = nn.Linear(n_rnn + self.n_aux, n_fc)
        self.fc2 = nn.Linear(n_fc + self.n_aux, n_fc)
        self.fc3 = nn.Linear(n_fc, self.n_classes)

    def _aux_quarters(self, aux: Tensor, dim: int) -> list[Tensor]:
        """The four ``n_aux``-wide slices of ``aux`` along ``dim``."""
        return [aux.narrow(dim, self.n_aux * i, self.n_aux) for i in range(4)]

    def forward(self, waveform: Tensor, specgram: Tensor) -> Tensor:
        """Logits ``(n_batch, 1, T', n_classes)`` of ``waveform`` ``(n_batch, 1, T')`` and
        ``specgram`` ``(n_batch, 1, n_freq, n_time)``, ``T' = (n_time - kernel_size + 1) * hop_length``."""
        if waveform.size(1) != 1:
            raise ValueError("Require the input channel of waveform is 1")
        if specgram.size(1) != 1:
            raise ValueError("Require the input channel of specgram is 1")
        waveform, specgram = waveform.squeeze(1), specgram.squeeze(1)
        batch_size = waveform.size(0)
        h1 = chainrule.zeros(
            1, batch_size, self.n_rnn, dtype=waveform.dtype, device=waveform.device
        )
        h2 = chainrule.zeros(
            1, batch_size, self.n_rnn, dtype=waveform.dtype, device=waveform.device
        )
        specgram, aux = self.upsample(specgram)
        specgram, aux = specgram.transpose(1, 2), aux.transpose(1, 2)
        a1, a2, a3, a4 = self._aux_quarters(aux, 2)

        x = self.fc(chainrule.cat([waveform.unsqueeze(-1), specgram, a1], dim=-1))
        res = x
        x, _ = self.rnn1(x, h1)
        x = x + res
        res = x
        x, _ = self.rnn2(chainrule.cat([x, a2], dim=-1), h2)
        x = x + res
        x = self.relu1(self.fc1(chainrule.cat([x, a3], dim=-1)))
        x = self.relu2(self.fc2(chainrule.cat([x, a4], dim=-1)))
        return self.fc3(x).unsqueeze(1)

    def infer(
        self, specgram: Tensor, lengths: Tensor | None = None
    ) -> tuple[Tensor, Tensor | None]:
        """Autoregressive sampling of a waveform ``(n_batch, 1, T)`` from ``specgram``
        ``(n_batch, n_freq, n_time)``: each sample's class is drawn from the softmax of the
        logits and mapped to ``2 c / (2**n_bits - 1) - 1``; ``lengths`` are scaled by the
        hop length."""
        device, dtype = specgram.device, specgram.dtype
        specgram = F.pad(specgram, (self._pad, self._pad))
        specgram, aux = self.upsample(specgram)
        if lengths is not None:
            lengths = lengths * self.upsample.total_scale
        b_size, _, seq_len = specgram.size()
        h1 = chainrule.zeros((1, b_size, self.n_rnn), device=device, dtype=dtype)
        h2 = chainrule.zeros((1, b_size, self.n_rnn), device=device, dtype=dtype)
        x = chainrule.zeros((b_size, 1), device=device, dtype=dtype)
        quarters = self._aux_quarters(aux, 1)
        output: list[Tensor] = []
        for i in range(seq_len):
            a1_t, a2_t, a3_t, a4_t = [a[:, :, i] for a in quarters]
            x = self.fc(chainrule.cat([x, specgram[:, :, i], a1_t], dim=1))
            _, h1 = self.rnn1(x.unsqueeze(1), h1)
            x = x + h1[0]
            _, h2 = self.rnn2(chainrule.cat([x, a2_t], dim=1).unsqueeze(1), h2)
            x = x + h2[0]
            x = F.relu(self.fc1(chainrule.cat([x, a3_t], dim=1)))
            x = F.relu(self.fc2(chainrule.cat([x, a4_t], dim=1)))
            posterior = F.softmax(self.fc3(x), dim=1)
            x = chainrule.multinomial(posterior, 1).float()
            x = 2 * x / (2**self.n_bits - 1.0) - 1.0
            output.append(x)
        return chainrule.stack(output).permute(1, 2, 0), lengths
