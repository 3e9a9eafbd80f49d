"""A small signal-processing walk-through with ``torch.fft`` (written for ``import torch``):
two sines sampled on ``arange``, their spectrum by ``rfft``, the two peak frequencies found
with ``rfftfreq`` and ``topk`` on the magnitudes, the two-sided spectrum of a complex
exponential (``fft``, ``fftfreq``, ``fftshift``), a low-pass filter that zeroes the high
bins and goes back with ``irfft``, a spectrogram by ``stft`` with a Hann window and its
inverse by ``istft``, and the amplitude (then amplitude and phase, as one complex
parameter) of a sine recovered by gradient descent on a loss between spectra. Every
signal is deterministic, so both libraries print the same numbers. Runs unchanged with
PyTorch and with ``chainrule run``."""

import math

import torch

# ----- a signal and its spectrum -------------------------------------------------------------

fs = 64  # samples per second
n = 256  # four seconds
t = torch.arange(n) / fs
low = torch.sin(2 * math.pi * 5 * t)
high = 0.5 * torch.sin(2 * math.pi * 12 * t)
signal = low + high
print(t.shape, t.dtype, signal.shape)

spectrum = torch.fft.rfft(signal)
print(spectrum.shape, spectrum.dtype)
freqs = torch.fft.rfftfreq(n, d=1 / fs)
print(freqs.shape, freqs[:6], freqs[-1])

# ----- the peaks ----------------------------------------------------------------------------

magnitude = spectrum.abs()
peaks = magnitude.topk(2)
print(peaks.indices, freqs[peaks.indices])
print(peaks.values / (n / 2))  # a sine of amplitude A peaks at A * n / 2
print(torch.fft.rfft(signal, norm="forward").abs().topk(2).values * 2)
energy = spectrum.abs().pow(2)
print(torch.allclose((2 * energy[1:-1].sum() + energy[0] + energy[-1]) / n, signal.pow(2).sum()))

# A complex exponential has one peak, on the negative side for a negative frequency.
chirp = torch.exp(-2j * math.pi * 3 * t)
two_sided = torch.fft.fft(chirp)
all_freqs = torch.fft.fftfreq(n, d=1 / fs)
print(two_sided.dtype, all_freqs[two_sided.abs().argmax()])
print(torch.fft.fftshift(all_freqs)[:3], torch.fft.fftshift(two_sided.abs()).argmax())

# ----- a low-pass filter ------------------------------------------------------------------

filtered_spectrum = spectrum.clone()
filtered_spectrum[freqs > 8] = 0
filtered = torch.fft.irfft(filtered_spectrum, n=n)
print(filtered.shape, filtered.dtype)
print("error before filtering:", (signal - low).abs().max())
print("error after filtering:", (filtered - low).abs().max() < 1e-4)
masked = torch.fft.irfft(spectrum * (freqs <= 8), n=n)
print(torch.allclose(masked, filtered))
print(torch.allclose(torch.fft.ifft(torch.fft.fft(signal)).real, signal, atol=1e-5))

# ----- a spectrogram ------------------------------------------------------------------------

n_fft, hop = 64, 16
window = torch.hann_window(n_fft)
print(window.shape, window[:3], window[n_fft // 2])
frames = torch.stft(signal, n_fft=n_fft, hop_length=hop, window=window, return_complex=True)
print(frames.shape, frames.dtype)  # (n_fft // 2 + 1 frequencies, 1 + n // hop frames)
power = frames.abs().pow(2)
print(power.shape, power.sum(dim=1).argmax(), power[:, 8].argmax())
bin_width = fs / n_fft
print(power.sum(dim=1)[10:].argmax() + 10, bin_width)
restored = torch.istft(frames, n_fft=n_fft, hop_length=hop, window=window, length=n)
print(restored.shape, "round trip error below 1e-5:", (restored - signal).abs().max() < 1e-5)

# ----- recovering an amplitude through the FFT ---------------------------------------------

omega = 2 * math.pi * 5
recorded = torch.fft.rfft(3.0 * torch.sin(omega * t), norm="forward")
amplitude = torch.tensor(1.0, requires_grad=True)
optimizer = torch.optim.SGD([amplitude], lr=0.5)
for step in range(30):
    optimizer.zero_grad()
    guess = torch.fft.rfft(amplitude * torch.sin(omega * t), norm="forward")
    loss = (guess - recorded).abs().pow(2).sum()
    loss.backward()
    optimizer.step()
    if step % 10 == 0:
        print(f"step {step}: loss {loss.item():.6f}")
print(f"recovered amplitude {amplitude.item():.3f}", abs(amplitude.item() - 3.0) < 1e-3)

# Amplitude and phase at once: a complex parameter c with signal Re(c e^{i omega t}).
recorded = torch.fft.rfft(3.0 * torch.sin(omega * t + 0.7))
phasor = torch.exp(1j * omega * t)
print(phasor.dtype, phasor.shape)
c = torch.tensor(1 + 0j, requires_grad=True)
optimizer = torch.optim.SGD([c], lr=0.5)
for step in range(30):
    optimizer.zero_grad()
    guess = torch.fft.rfft((c * phasor).real)
    loss = (guess - recorded).abs().pow(2).sum() / n**2
    loss.backward()
    optimizer.step()
    if step % 10 == 0:
        print(f"step {step}: loss {loss.item():.6f}, grad", c.grad)
# sin(u + 0.7) = Re(e^{i(u + 0.7 - pi/2)}), so the phase found is the angle plus pi/2.
amplitude, phase = c.abs().item(), c.angle().item() + math.pi / 2
print(f"amplitude {amplitude:.3f}, phase {phase:.3f}")
print(abs(amplitude - 3.0) < 1e-2, abs(phase - 0.7) < 1e-2)
