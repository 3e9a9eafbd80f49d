"""The steps of torchaudio's "Audio Feature Extractions" tutorial (written for ``import
torch`` and ``torchaudio``): a ``Spectrogram`` (power, and complex with ``power=None``,
inverted by ``InverseSpectrogram``); ``GriffinLim`` reconstruction from a power
spectrogram; a mel filter bank from ``F.melscale_fbanks``; ``MelSpectrogram`` with the
HTK and Slaney mel scales; ``MFCC`` and ``LFCC``; ``AmplitudeToDB``; and pitch
detection with ``F.detect_pitch_frequency``. Runs unchanged with PyTorch and with
``chainrule run``.

What differs from the tutorial: no sample download, so the "speech" is a 220 Hz tone
with noise; nothing is plotted or played; the filter bank is checked by its shape and
its row sums, the round trip and the pitch by tolerances, where the tutorial plots."""

import torch
import torchaudio.functional as F
import torchaudio.transforms as T

torch.manual_seed(0)

SAMPLE_RATE = 16000
t = torch.arange(0, 1.0, 1 / SAMPLE_RATE)
SPEECH_WAVEFORM = (0.5 * torch.sin(2 * torch.pi * 220 * t) + 0.05 * torch.randn_like(t)).unsqueeze(
    0
)
print(SPEECH_WAVEFORM.shape, SPEECH_WAVEFORM.dtype)

# Define transform
spectrogram = T.Spectrogram(n_fft=512)

# Perform transform
spec = spectrogram(SPEECH_WAVEFORM)
print(spectrogram, spec.shape, spec.dtype)

n_ffts = [32, 128, 512, 2048]
hop_length = 64
specs = []
for n_fft in n_ffts:
    spectrogram = T.Spectrogram(n_fft=n_fft, hop_length=hop_length)
    spec = spectrogram(SPEECH_WAVEFORM)
    specs.append(spec)
print([tuple(s.shape) for s in specs])

# complex spectrogram and its inverse
n_fft = 1024
complex_spec = T.Spectrogram(n_fft=n_fft, power=None)(SPEECH_WAVEFORM)
print(complex_spec.dtype, complex_spec.shape)
inverse = T.InverseSpectrogram(n_fft=n_fft)(complex_spec, length=SPEECH_WAVEFORM.shape[-1])
print(inverse.shape, torch.allclose(inverse, SPEECH_WAVEFORM, atol=1e-4))

# GriffinLim
n_fft = 1024
spectrogram = T.Spectrogram(n_fft=n_fft)
griffin_lim = T.GriffinLim(n_fft=n_fft)
spec = spectrogram(SPEECH_WAVEFORM)
reconstructed_waveform = griffin_lim(spec)
print(reconstructed_waveform.shape)

# Mel filter bank
n_fft = 256
n_mels = 64
sample_rate = 6000

mel_filters = F.melscale_fbanks(
    int(n_fft // 2 + 1),
    n_mels=n_mels,
    f_min=0.0,
    f_max=sample_rate / 2.0,
    sample_rate=sample_rate,
    norm="slaney",
)
print(mel_filters.shape, bool((mel_filters >= 0).all()), bool((mel_filters.sum(0) > 0).all()))

# MelSpectrogram
n_fft = 1024
win_length = None
hop_length = 512
n_mels = 128

mel_spectrogram = T.MelSpectrogram(
    sample_rate=SAMPLE_RATE,
    n_fft=n_fft,
    win_length=win_length,
    hop_length=hop_length,
    center=True,
    pad_mode="reflect",
    power=2.0,
    norm="slaney",
    n_mels=n_mels,
    mel_scale="htk",
)

melspec = mel_spectrogram(SPEECH_WAVEFORM)
print(melspec.shape)
slaney = T.MelSpectrogram(
    sample_rate=SAMPLE_RATE, n_fft=n_fft, hop_length=hop_length, n_mels=n_mels, mel_scale="slaney"
)(SPEECH_WAVEFORM)
print(slaney.shape, bool((slaney >= 0).all()))

# MFCC
n_fft = 2048
win_length = None
hop_length = 512
n_mels = 256
n_mfcc = 256

mfcc_transform = T.MFCC(
    sample_rate=SAMPLE_RATE,
    n_mfcc=n_mfcc,
    melkwargs={
        "n_fft": n_fft,
        "n_mels": n_mels,
        "hop_length": hop_length,
        "mel_scale": "htk",
    },
)

mfcc = mfcc_transform(SPEECH_WAVEFORM)
print(mfcc.shape)

# LFCC
n_fft = 2048
win_length = None
hop_length = 512
n_lfcc = 256

lfcc_transform = T.LFCC(
    sample_rate=SAMPLE_RATE,
    n_lfcc=n_lfcc,
    speckwargs={
        "n_fft": n_fft,
        "win_length": win_length,
        "hop_length": hop_length,
    },
)

lfcc = lfcc_transform(SPEECH_WAVEFORM)
print(lfcc.shape)

db = T.AmplitudeToDB(stype="power", top_db=80)(melspec)
print(db.shape, bool(db.max() - db.min() <= 80 + 1e-3))

# Pitch
pitch = F.detect_pitch_frequency(SPEECH_WAVEFORM, SAMPLE_RATE)
print(pitch.shape, bool((pitch.median() - 220).abs() < 10))
