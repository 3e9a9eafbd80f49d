"""torch.stft and torch.istft against PyTorch (api/parsers/spectral.py, the frames and
overlap_add ops of ops/spectral.py): audio-style calls (n_fft 16, hop 4, a Hann window),
centred with each pad mode or not, one-sided or not, normalized, batched, real and complex
signals, float32 and float64: values, gradients for the signal and the window, forward-mode
tangents, second derivatives; istft(stft(x)) gives x back; PyTorch's errors and warnings."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import (
    assert_same_error,
    check,
    check_double_backward,
    compare,
    crandn,
    randn,
    to_numpy,
    warns_as_torch,
)

SIGNAL = randn((40,), 0)
BATCH = randn((2, 37), 1)
CSIGNAL = crandn((40,), 2)
HANN = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(16) / 16)  # (periodic, as hann_window's)
SHORT = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(10) / 10) + 0.1
RAISED = HANN + 0.1  # (not centred, istft needs a window nonzero at the ends: NOLA)


def _stft(**kw):
    def fn(L, x, w):
        return L.stft(x, 16, 4, window=w, return_complex=True, **kw)

    return fn


CASES = {
    "stft": (_stft(), [SIGNAL, HANN]),
    "not_centred": (_stft(center=False), [SIGNAL, HANN]),
    "constant": (_stft(pad_mode="constant"), [SIGNAL, HANN]),
    "replicate": (_stft(pad_mode="replicate"), [SIGNAL, HANN]),
    "circular": (_stft(pad_mode="circular"), [SIGNAL, HANN]),
    "normalized": (_stft(normalized=True), [SIGNAL, HANN]),
    "twosided": (_stft(onesided=False), [SIGNAL, HANN]),
    "batch": (_stft(), [BATCH, HANN]),
    "complex_signal": (_stft(), [CSIGNAL, HANN]),
    "short_window": (
        lambda L, x, w: L.stft(x, 16, 3, 10, w, center=False, return_complex=True),
        [BATCH, SHORT],
    ),
    "aligned": (
        lambda L, x, w: L.stft(
            x, 16, 2, 10, w, center=False, return_complex=True, align_to_window=True
        ),
        [SIGNAL, SHORT],
    ),
    "method_real_pairs": (
        warns_as_torch(
            "return_complex=False is deprecated",
            lambda L, x, w: x.stft(16, 4, window=w, return_complex=False),
        ),
        [SIGNAL, HANN],
    ),
    "spectrogram": (lambda L, x, w: _stft()(L, x, w).abs() ** 2, [BATCH, HANN]),
}

SPEC = np.fft.rfft(randn((2, 11, 16), 3), axis=-1).transpose(0, 2, 1)  # (2, 9, 11): a spectrogram
CSPEC = crandn((16, 11), 4)


def _istft(**kw):
    def fn(L, s, w):
        return L.istft(s, 16, 4, window=w, **kw)

    return fn


INVERSE = {
    "istft": (_istft(), [SPEC, HANN]),
    "not_centred": (_istft(center=False), [SPEC, RAISED]),
    "normalized": (_istft(normalized=True), [SPEC, HANN]),
    "length_cut": (_istft(length=30), [SPEC, HANN]),
    "length_padded": (
        warns_as_torch("shorter than the length parameter", _istft(length=50)),
        [SPEC[0], HANN],
    ),
    "twosided": (_istft(onesided=False), [np.fft.fft(randn((16, 11), 5), axis=0), HANN]),
    "return_complex": (_istft(onesided=False, return_complex=True), [CSPEC, HANN]),
    "short_window": (
        lambda L, s, w: L.istft(s, 16, 3, 10, w),
        [SPEC[:, :, :8], SHORT],
    ),
    "method": (lambda L, s, w: s.istft(16, 4, window=w, center=False), [SPEC, RAISED]),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", CASES)
def test_matches_torch(name, dtype):
    fn, inputs = CASES[name]
    check(fn, *inputs, dtype=dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", INVERSE)
def test_istft_matches_torch(name, dtype):
    fn, inputs = INVERSE[name]
    check(fn, *inputs, dtype=dtype)


@pytest.mark.parametrize("name", ["stft", "complex_signal", "spectrogram"])
def test_second_derivatives_match_torch(name):
    fn, inputs = CASES[name]
    check_double_backward(fn, *inputs)


def test_istft_second_derivatives_match_torch():
    fn, inputs = INVERSE["istft"]
    check_double_backward(fn, *inputs)


@pytest.mark.parametrize("center", [True, False], ids=["centred", "not_centred"])
@pytest.mark.parametrize("normalized", [False, True], ids=["plain", "normalized"])
def test_istft_inverts_stft(center, normalized):
    x = cr.tensor(BATCH)
    w = cr.tensor(RAISED)
    spec = cr.stft(x, 16, 4, window=w, center=center, normalized=normalized, return_complex=True)
    length = 37 if center else None  # (not centred: 36, the last sample in no frame)
    back = cr.istft(spec, 16, 4, window=w, center=center, normalized=normalized, length=length)
    np.testing.assert_allclose(to_numpy(back), BATCH[:, : back.shape[1]], rtol=1e-10, atol=1e-12)
    assert back.shape == (2, 37 if center else 36)


def test_the_window_s_absence_warns_as_torch():
    """A rectangular window, with PyTorch's warnings (which PyTorch gives once a process, so
    the messages are PyTorch's text, not read from a call here)."""
    with pytest.warns(UserWarning, match=r"applied,which is known to cause spectral leakage"):
        spec = cr.stft(cr.tensor(SIGNAL), 16, 4, return_complex=True)
    with pytest.warns(UserWarning, match=r"use a rectangular window, explicitly set `window="):
        back = cr.istft(spec, 16, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want_spec = torch.stft(torch.tensor(SIGNAL), 16, 4, return_complex=True)
        want_back = torch.istft(want_spec, 16, 4)
    np.testing.assert_allclose(to_numpy(spec), want_spec.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(to_numpy(back), want_back.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "fn",
    [
        lambda L: L.stft(L.tensor(SIGNAL), 16),
        lambda L: L.stft(L.tensor(SIGNAL), 100, 4, return_complex=True),
        lambda L: L.stft(L.tensor(SIGNAL), 64, 4, return_complex=True, center=False),
        lambda L: L.stft(L.tensor(SIGNAL), 16, 0, window=L.ones(16), return_complex=True),
        lambda L: L.stft(L.tensor(SIGNAL), 16, 4, win_length=20, return_complex=True),
        lambda L: L.stft(L.tensor(SIGNAL), 16, 4, window=L.ones(10), return_complex=True),
        lambda L: L.stft(L.arange(40), 16, 4, window=L.ones(16), return_complex=True),
        lambda L: L.stft(L.ones(2, 3, 40), 16, 4, window=L.ones(16), return_complex=True),
        lambda L: L.stft(L.ones(40), 16, 4, window=L.ones(16), return_complex=True, pad_mode="x"),
        lambda L: L.stft(L.ones(3), 8, 2, return_complex=True, pad_mode="circular"),
        lambda L: L.stft(L.tensor(CSIGNAL), 16, 4, window=L.ones(16), onesided=True),
        lambda L: L.stft(
            L.ones(40), 8, window=L.ones(8), return_complex=True, align_to_window=True
        ),
        lambda L: L.stft(
            L.ones(20), 8, 3, 5, center=False, return_complex=True, align_to_window=True
        ),
        lambda L: L.istft(L.tensor(SPEC).real, 16, 4, window=L.ones(16)),
        lambda L: L.istft(L.tensor(SPEC), 16, 4, window=L.ones(16), onesided=False),
        lambda L: L.istft(L.tensor(SPEC), 16, 20, window=L.ones(16)),
        lambda L: L.istft(L.tensor(SPEC), 16, 4, win_length=20),
        lambda L: L.istft(L.tensor(SPEC), 16, 4, window=L.ones(10)),
        lambda L: L.istft(L.tensor(SPEC)[:, :, :0], 16, 4, window=L.ones(16)),
        lambda L: L.istft(L.tensor(SPEC)[0, 0], 16, 4, window=L.ones(16)),
        lambda L: L.istft(L.tensor(SPEC)[None, None], 16, 4, window=L.ones(16)),
        lambda L: L.istft(L.tensor(SPEC), 16, 4, window=L.ones(16), return_complex=True),
        lambda L: L.istft(L.tensor(SPEC), 16, 4, window=L.zeros(16), center=False),
        lambda L: L.istft(
            L.tensor(CSPEC), 16, 4, window=L.ones(16, dtype=L.complex128), onesided=False
        ),
    ],
)
def test_errors_match_torch(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_error(fn)


def test_outputs_require_grad_as_torch():
    def fn(L):
        x = L.tensor(SIGNAL)
        w = L.tensor(HANN, requires_grad=True)
        spec = L.stft(x, 16, 4, window=w, return_complex=True)
        return [spec.requires_grad, str(spec.dtype), L.istft(spec.detach(), 16, 4, window=w).shape]

    compare(fn)


def test_float32_signal_with_a_float64_window_promotes():
    def fn(L):
        x = L.tensor(SIGNAL.astype(np.float32))
        return L.stft(x, 16, 4, window=L.tensor(HANN), return_complex=True)

    compare(fn, rtol=1e-6, atol=1e-6)


def test_torch_reads_the_same_spectrogram():
    """The fixtures: SPEC is a one-sided spectrogram PyTorch's istft takes."""
    assert torch.istft(torch.tensor(SPEC), 16, 4, window=torch.tensor(HANN)).shape == (2, 40)
