"""The steps of torchaudio's "Audio Resampling" tutorial (written for ``import torch`` and
``torchaudio``): a logarithmic sine sweep resampled with ``F.resample`` and
``T.Resample`` (whose kernel is cached, so repeated calls are cheaper); the parameters
that shape the anti-aliasing filter: ``lowpass_filter_width``, ``rolloff``, and the
``resampling_method`` (``sinc_interp_hann`` and ``sinc_interp_kaiser`` with ``beta``);
the librosa-like ``kaiser_best`` and ``kaiser_fast`` settings; and the error of
resampling down and back up. Runs unchanged with PyTorch and with ``chainrule run``.

What differs from the tutorial: nothing is plotted and no timing table is printed; the
sweep is shorter; each result is checked by its shape and by how well it matches the
sweep after a round trip, where the tutorial shows spectrograms."""

import math

import torch
import torchaudio.functional as F
import torchaudio.transforms as T

DEFAULT_OFFSET = 201


def _get_log_freq(sample_rate, max_sweep_rate, offset):
    """Get freqs evenly spaced out in log-scale, between [0, max_sweep_rate // 2]

    offset is used to avoid negative infinity `log(offset + x)`.

    """
    start, stop = math.log(offset), math.log(offset + max_sweep_rate // 2)
    return torch.exp(torch.linspace(start, stop, sample_rate, dtype=torch.double)) - offset


def get_sine_sweep(sample_rate, offset=DEFAULT_OFFSET):
    max_sweep_rate = sample_rate
    freq = _get_log_freq(sample_rate, max_sweep_rate, offset)
    delta = 2 * math.pi * freq / sample_rate
    cummulative = torch.cumsum(delta, dim=0)
    signal = torch.sin(cummulative).unsqueeze(dim=0)
    return signal


sample_rate = 16000
resample_rate = 8000
waveform = get_sine_sweep(sample_rate)
print(waveform.shape, waveform.dtype)

resampled_waveform = F.resample(waveform, sample_rate, resample_rate)
print(resampled_waveform.shape)
resampler = T.Resample(sample_rate, resample_rate, dtype=waveform.dtype)
print(torch.allclose(resampler(waveform), resampled_waveform))


def round_trip_error(**kwargs):
    down = F.resample(waveform, sample_rate, resample_rate, **kwargs)
    up = F.resample(down, resample_rate, sample_rate, **kwargs)
    # compare on the first half of the sweep, below the new Nyquist frequency
    n = waveform.shape[-1] // 4
    return (up[:, 100:n] - waveform[:, 100:n]).abs().max().item()


for width in (6, 128):
    out = F.resample(waveform, sample_rate, resample_rate, lowpass_filter_width=width)
    print(
        "lowpass_filter_width", width, out.shape, round_trip_error(lowpass_filter_width=width) < 0.1
    )

for rolloff in (0.99, 0.8):
    out = F.resample(waveform, sample_rate, resample_rate, rolloff=rolloff)
    print("rolloff", rolloff, out.shape, round_trip_error(rolloff=rolloff) < 0.1)

out_hann = F.resample(waveform, sample_rate, resample_rate, resampling_method="sinc_interp_hann")
out_kaiser = F.resample(
    waveform, sample_rate, resample_rate, resampling_method="sinc_interp_kaiser", beta=14.0
)
print(out_hann.shape, out_kaiser.shape, bool((out_hann - out_kaiser).abs().max() < 0.5))

# kaiser_best
kaiser_best = F.resample(
    waveform,
    sample_rate,
    resample_rate,
    lowpass_filter_width=64,
    rolloff=0.9475937167399596,
    resampling_method="sinc_interp_kaiser",
    beta=14.769656459379492,
)
# kaiser_fast
kaiser_fast = F.resample(
    waveform,
    sample_rate,
    resample_rate,
    lowpass_filter_width=16,
    rolloff=0.85,
    resampling_method="sinc_interp_kaiser",
    beta=8.555504641634386,
)
print(kaiser_best.shape, kaiser_fast.shape, kaiser_best.dtype)

# upsampling, and a rate ratio that is not an integer
print(F.resample(waveform, sample_rate, 44100).shape, F.resample(waveform, 44100, 48000).shape)
try:
    F.resample(waveform, sample_rate, resample_rate, resampling_method="linear")
except ValueError as e:
    print("ValueError:", e)
