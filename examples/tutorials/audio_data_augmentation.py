"""The steps of torchaudio's "Audio Data Augmentation" tutorial (written for ``import
torch`` and ``torchaudio``): room reverberation by convolving with a normalised room
impulse response (``F.fftconvolve``); background noise added at several signal-to-noise
ratios with ``F.add_noise`` (and the ratios checked); band filtering with
``F.lowpass_biquad`` / ``F.highpass_biquad``; resampling (``F.resample``); and the
SpecAugment-style spectrogram augmentations ``T.TimeStretch`` (on a complex
spectrogram), ``T.FrequencyMasking`` and ``T.TimeMasking``, plus
``T.SpeedPerturbation``. Runs unchanged with PyTorch and with ``chainrule run``.

What differs from the tutorial: no sample download, so the speech is a 220 Hz tone and
the room impulse response three echoes; the codec and ``AudioEffector`` parts (which need
FFmpeg) are left out; nothing is plotted or played, shapes and checks are printed."""

import torch
import torchaudio.functional as F
import torchaudio.transforms as T

torch.manual_seed(0)
sample_rate = 16000
t = torch.arange(0, 0.5, 1 / sample_rate)
speech = (0.5 * torch.sin(2 * torch.pi * 220 * t)).unsqueeze(0)

# Simulating room reverberation
rir_raw = torch.zeros(1, 800)
rir_raw[0, 0], rir_raw[0, 400], rir_raw[0, 799] = 1.0, 0.5, 0.25
rir = rir_raw / torch.linalg.vector_norm(rir_raw, ord=2)
augmented = F.fftconvolve(speech, rir)
print(augmented.shape, torch.allclose(augmented[:, :400], speech[:, :400] * rir[0, 0], atol=1e-5))
print(torch.allclose(augmented, F.convolve(speech, rir), atol=1e-4))

# Adding background noise
noise = torch.randn_like(speech) * 0.1
snr_dbs = torch.tensor([20, 10, 3])
noisy_speeches = F.add_noise(speech.expand(3, -1), noise.expand(3, -1), snr_dbs)
print(noisy_speeches.shape)
signal_power = speech.pow(2).sum()
for snr_db, noisy in zip(snr_dbs, noisy_speeches):
    noise_power = (noisy - speech[0]).pow(2).sum()
    print(snr_db.item(), round((10 * torch.log10(signal_power / noise_power)).item()))

# Filtering
low = F.lowpass_biquad(speech, sample_rate, 300.0)
high = F.highpass_biquad(speech, sample_rate, 3000.0)
print(low.shape, high.shape, bool(high.abs().max() < low.abs().max()))

# Resampling
print(F.resample(speech, sample_rate, 8000).shape)

# SpecAugment
spec = T.Spectrogram(n_fft=400, power=None)(speech)
stretch = T.TimeStretch(hop_length=200, n_freq=201, fixed_rate=1.2)
print(spec.shape, stretch(spec).shape, stretch(spec).dtype)
power_spec = T.Spectrogram()(speech)
freq_masked = T.FrequencyMasking(freq_mask_param=20)(power_spec)
time_masked = T.TimeMasking(time_mask_param=10)(power_spec)
print(freq_masked.shape, time_masked.shape)
print(bool((freq_masked <= power_spec).all()), bool((time_masked <= power_spec).all()))

# Speed perturbation: a factor drawn from the list, lengths scaled accordingly
perturbed, lengths = T.SpeedPerturbation(sample_rate, [0.9, 1.1])(speech)
print(perturbed.shape[0], lengths is None)
