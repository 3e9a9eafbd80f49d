"""chainrule.audio.functional's filters and effects against the real torchaudio."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule
import chainrule.audio.functional as CF

RNG = np.random.default_rng(1234)
WAVE = RNG.standard_normal((2, 3, 600)) * 0.3


@pytest.fixture(scope="module")
def taf(ta):
    """torchaudio.functional, whose pure-Python IIR loop (used without the compiled
    extension) writes into its input in place; it is run on a copy so that gradients
    through the oracle work."""
    filtering = ta.functional.filtering
    loop = filtering._lfilter_core_generic_loop
    saved = filtering._lfilter_core_loop
    filtering._lfilter_core_loop = lambda x, a, out: loop(x.clone(), a, out)
    yield ta.functional
    filtering._lfilter_core_loop = saved


def both(array: np.ndarray, dtype=np.float64, grad: bool = False):
    """The same data as a torch and a chainrule tensor."""
    array = np.asarray(array, dtype=dtype)
    return (
        torch.tensor(array, requires_grad=grad),
        chainrule.tensor(array, requires_grad=grad),
    )


def close(c_out, t_out, atol=1e-10, rtol=1e-10):
    assert tuple(c_out.shape) == tuple(t_out.shape)
    np.testing.assert_allclose(c_out.detach().numpy(), t_out.detach().numpy(), atol=atol, rtol=rtol)


A2 = np.array([[1.0, -1.6, 0.8], [2.0, -0.5, 0.1], [1.0, 0.3, -0.2]])
B2 = RNG.standard_normal((3, 3)) * 0.3


@pytest.mark.parametrize("clamp", [True, False])
def test_lfilter_one_filter(taf, clamp):
    (xt, xc), (at, ac), (bt, bc) = both(WAVE * 3), both(A2[0]), both(B2[0])
    close(CF.lfilter(xc, ac, bc, clamp=clamp), taf.lfilter(xt, at, bt, clamp=clamp))


def test_lfilter_normalises_a0_and_high_order(taf):
    a = np.array([2.0, -0.4, 0.3, -0.1, 0.05, 0.02])
    b = np.array([0.5, 0.2, -0.1, 0.0, 0.3, 0.1])
    (xt, xc), (at, ac), (bt, bc) = both(WAVE), both(a), both(b)
    close(CF.lfilter(xc, ac, bc, clamp=False), taf.lfilter(xt, at, bt, clamp=False))


def test_lfilter_fir_only(taf):
    (xt, xc), (at, ac), (bt, bc) = both(WAVE), both([1.0]), both([0.7])
    close(CF.lfilter(xc, ac, bc), taf.lfilter(xt, at, bt))


@pytest.mark.parametrize("batching", [True, False])
def test_lfilter_filter_bank(taf, batching):
    (xt, xc), (at, ac), (bt, bc) = both(WAVE), both(A2), both(B2)
    close(
        CF.lfilter(xc, ac, bc, clamp=False, batching=batching),
        taf.lfilter(xt, at, bt, clamp=False, batching=batching),
    )


def test_lfilter_long_signal_float32(taf):
    x = RNG.standard_normal((2, 5000)) * 0.3
    (xt, xc), (at, ac), (bt, bc) = (
        both(x, np.float32),
        both(A2[0], np.float32),
        both(B2[0], np.float32),
    )
    out = CF.lfilter(xc, ac, bc, clamp=False)
    assert out.dtype == chainrule.float32
    close(out, taf.lfilter(xt, at, bt, clamp=False), atol=2e-5, rtol=1e-4)


@pytest.mark.parametrize("coeffs", ["one", "bank"])
def test_lfilter_gradients(taf, coeffs):
    a, b = (A2[0], B2[0]) if coeffs == "one" else (A2, B2)
    (xt, xc), (at, ac), (bt, bc) = both(WAVE, grad=True), both(a, grad=True), both(b, grad=True)
    weight = RNG.standard_normal(WAVE.shape)
    (taf.lfilter(xt, at, bt, clamp=False) * torch.tensor(weight)).sum().backward()
    (CF.lfilter(xc, ac, bc, clamp=False) * chainrule.tensor(weight)).sum().backward()
    for c_leaf, t_leaf in ((xc, xt), (ac, at), (bc, bt)):
        np.testing.assert_allclose(c_leaf.grad.numpy(), t_leaf.grad.numpy(), rtol=1e-9, atol=1e-9)


def test_lfilter_errors(taf):
    xc = chainrule.tensor(WAVE)
    with pytest.raises(ValueError, match="Expected coeffs to be the same size"):
        CF.lfilter(xc, chainrule.tensor([1.0, 0.5]), chainrule.tensor([1.0]))
    with pytest.raises(ValueError, match="Expected number of batches"):
        CF.lfilter(xc, chainrule.tensor(np.ones((2, 2))), chainrule.tensor(np.ones((2, 2))))


def test_filtfilt(taf):
    (xt, xc), (at, ac), (bt, bc) = both(WAVE, grad=True), both(A2, grad=True), both(B2)
    yt, yc = taf.filtfilt(xt, at, bt), CF.filtfilt(xc, ac, bc)
    close(yc, yt)
    yt.sum().backward()
    yc.sum().backward()
    np.testing.assert_allclose(ac.grad.numpy(), at.grad.numpy(), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(xc.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-9)


BIQUADS = [
    ("allpass_biquad", (16000, 1000.0, 0.5), {}),
    ("band_biquad", (16000, 1000.0, 0.5), {}),
    ("band_biquad", (16000, 1200.0), {"noise": True}),
    ("bandpass_biquad", (16000, 1000.0, 0.5), {}),
    ("bandpass_biquad", (16000, 1000.0, 0.5), {"const_skirt_gain": True}),
    ("bandreject_biquad", (16000, 1000.0, 0.5), {}),
    ("bass_biquad", (16000, 5.0, 200.0), {}),
    ("treble_biquad", (16000, -5.0, 2000.0, 0.9), {}),
    ("deemph_biquad", (44100,), {}),
    ("deemph_biquad", (48000,), {}),
    ("equalizer_biquad", (16000, 1000.0, 3.0), {}),
    ("highpass_biquad", (16000, 1000.0), {}),
    ("lowpass_biquad", (16000, 1000.0, 1.2), {}),
    ("riaa_biquad", (44100,), {}),
    ("riaa_biquad", (96000,), {}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), BIQUADS)
def test_biquads(taf, name, args, kwargs):
    xt, xc = both(WAVE)
    close(getattr(CF, name)(xc, *args, **kwargs), getattr(taf, name)(xt, *args, **kwargs))


def test_biquad_plain_and_float32(taf):
    xt, xc = both(WAVE, np.float32)
    coeffs = (0.3, 0.2, 0.1, 1.0, -0.5, 0.2)
    close(CF.biquad(xc, *coeffs), taf.biquad(xt, *coeffs), atol=1e-6, rtol=1e-5)


def test_lowpass_gradient_wrt_cutoff(taf):
    xt, xc = both(WAVE)
    (ft, fc), (qt, qc) = both(1500.0, grad=True), both(0.8, grad=True)
    taf.lowpass_biquad(xt, 16000, ft, qt).pow(2).sum().backward()
    CF.lowpass_biquad(xc, 16000, fc, qc).pow(2).sum().backward()
    np.testing.assert_allclose(fc.grad.item(), ft.grad.item(), rtol=1e-8)
    np.testing.assert_allclose(qc.grad.item(), qt.grad.item(), rtol=1e-8)


def test_biquad_sample_rate_errors():
    xc = chainrule.tensor(WAVE)
    with pytest.raises(ValueError, match="Sample rate must be 44100"):
        CF.deemph_biquad(xc, 16000)
    with pytest.raises(ValueError, match="Sample rate must be 44.1k"):
        CF.riaa_biquad(xc, 16000)


EFFECTS = [
    ("gain", (3.0,), {}),
    ("gain", (0.0,), {}),
    ("contrast", (60.0,), {}),
    ("dcshift", (0.5,), {}),
    ("dcshift", (0.5, 0.05), {}),
    ("dcshift", (-0.4, 0.1), {}),
    ("overdrive", (10.0, 30.0), {}),
    ("phaser", (8000,), {}),
    ("phaser", (8000, 0.6, 0.9, 4.0, 0.5, 1.0, False), {}),
    ("flanger", (8000,), {}),
    (
        "flanger",
        (8000,),
        {"delay": 2.0, "regen": 30.0, "modulation": "triangular", "interpolation": "quadratic"},
    ),
    ("dither", (), {}),
    ("dither", (), {"noise_shaping": True}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), EFFECTS)
def test_effects(taf, name, args, kwargs):
    xt, xc = both(WAVE.copy())
    close(getattr(CF, name)(xc, *args, **kwargs), getattr(taf, name)(xt, *args, **kwargs))


@pytest.mark.parametrize(
    ("name", "args", "kwargs"),
    [
        ("overdrive", (10.0, 30.0), {}),
        ("phaser", (8000, 0.6, 0.9, 4.0, 0.5), {}),
        ("flanger", (8000,), {"regen": -40.0, "interpolation": "quadratic"}),
        ("contrast", (40.0,), {}),
    ],
)
def test_effect_gradients(taf, name, args, kwargs):
    x = WAVE[0] * 0.5
    weight = RNG.standard_normal(x.shape)
    xt, xc = both(x, grad=True)
    (getattr(taf, name)(xt, *args, **kwargs) * torch.tensor(weight)).sum().backward()
    (getattr(CF, name)(xc, *args, **kwargs) * chainrule.tensor(weight)).sum().backward()
    np.testing.assert_allclose(xc.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_effect_errors():
    xc = chainrule.tensor(WAVE)
    with pytest.raises(ValueError, match="enhancement_amount"):
        CF.contrast(xc, 120.0)
    with pytest.raises(ValueError, match="Max 4 channels allowed"):
        CF.flanger(chainrule.zeros(5, 10), 8000)
    with pytest.raises(ValueError, match="modulation allowed"):
        CF.flanger(xc, 8000, modulation="square")


@pytest.mark.parametrize("density", ["RPDF", "GPDF"])
def test_random_dither_quantises(density):
    x = chainrule.tensor(WAVE * 0.5)
    chainrule.manual_seed(0)
    out = CF.dither(x, density)
    chainrule.manual_seed(0)
    again = CF.dither(x, density)
    np.testing.assert_array_equal(out.numpy(), again.numpy())
    steps = out.numpy() * 2**15
    np.testing.assert_allclose(steps, np.round(steps), atol=1e-9)
    # The dither is one constant per call, at most 7 samples (GPDF) of |x| < 2 in size.
    offset = steps - WAVE * 0.5 * (2**15 - 2)
    assert np.ptp(offset) <= 1.0 + 1e-9
    assert np.abs(offset).max() <= 8.5


def speech_like(seconds: float, sample_rate: int, onset: float) -> np.ndarray:
    """Low noise, then harmonic bursts with a 140 Hz pitch from ``onset`` seconds on."""
    t = np.arange(int(seconds * sample_rate)) / sample_rate
    voiced = sum(np.sin(2 * np.pi * 140 * k * t) / k for k in range(1, 12))
    envelope = (t > onset) * (0.6 + 0.4 * np.sin(2 * np.pi * 3 * t))
    return 0.002 * RNG.standard_normal(t.shape) + 0.3 * envelope * voiced


@pytest.mark.parametrize(
    ("channels", "kwargs"),
    [(1, {}), (2, {}), (1, {"pre_trigger_time": 0.1, "trigger_level": 5.0})],
)
def test_vad(ta, channels, kwargs):
    x = np.stack([speech_like(2.0, 8000, 0.8 + 0.1 * i) for i in range(channels)])
    x = x[0] if channels == 1 else x
    for dtype in (np.float32, np.float64):
        xt, xc = both(x, dtype)
        expected = ta.functional.vad(xt, 8000, **kwargs)
        assert expected.shape[-1] < x.shape[-1]
        close(CF.vad(xc, 8000, **kwargs), expected, atol=0, rtol=0)


def test_vad_silence_and_transform(ta):
    silent = 0.001 * RNG.standard_normal(8000)
    xt, xc = both(silent)
    close(CF.vad(xc, 8000), ta.functional.vad(xt, 8000), atol=0, rtol=0)
    from chainrule.audio import transforms

    x = speech_like(2.0, 8000, 0.7)
    xt, xc = both(x)
    kwargs = {"sample_rate": 8000, "trigger_level": 6.0, "noise_reduction_amount": 1.0}
    close(transforms.Vad(**kwargs)(xc), ta.transforms.Vad(**kwargs)(xt), atol=0, rtol=0)


def test_lfilter_double_backward(taf):
    (xt, xc), (at, ac), (bt, bc) = both(WAVE[0, 0], grad=True), both(A2[0], grad=True), both(B2[0])
    gt = torch.autograd.grad(
        taf.lfilter(xt, at, bt, clamp=False).pow(2).sum(), at, create_graph=True
    )
    gc = chainrule.autograd.grad(
        CF.lfilter(xc, ac, bc, clamp=False).pow(2).sum(), ac, create_graph=True
    )
    close(gc[0], gt[0], rtol=1e-9)
    gt[0].sum().backward()
    gc[0].sum().backward()
    np.testing.assert_allclose(xc.grad.numpy(), xt.grad.numpy(), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(ac.grad.numpy(), at.grad.numpy(), rtol=1e-8, atol=1e-10)


def test_lfilter_one_dimensional_waveform_through_bank(taf):
    (xt, xc), (at, ac), (bt, bc) = both(WAVE[0, 0]), both(A2), both(B2)
    close(
        CF.lfilter(xc, ac, bc, batching=False),
        taf.lfilter(xt, at, bt, batching=False),
    )


@pytest.mark.parametrize("module", ["filtering", "_multi_channel"])
def test_names_and_signatures_as_torchaudio(ta, module):
    import inspect

    ours = getattr(CF, module)
    for name in ours.__all__:
        theirs = getattr(ta.functional, name)
        mine = getattr(CF, name)
        assert mine is getattr(ours, name)
        got = [(p.name, p.default, p.kind) for p in inspect.signature(mine).parameters.values()]
        want = [(p.name, p.default, p.kind) for p in inspect.signature(theirs).parameters.values()]
        assert got == want, name


def test_lfilter_order_longer_than_block(taf):
    radius = 0.9 * np.exp(1j * np.linspace(0.1, 3.0, 20))
    a = np.real(np.poly(np.concatenate([radius, np.conj(radius)])))  # order 40, stable
    b = RNG.standard_normal(a.shape) * 0.01
    (xt, xc), (at, ac), (bt, bc) = both(WAVE[0]), both(a), both(b)
    close(CF.lfilter(xc, ac, bc, clamp=False), taf.lfilter(xt, at, bt, clamp=False), atol=1e-9)


def test_lfilter_non_finite_input_stays_causal(taf):
    x = WAVE[0].copy()
    x[1, 300] = np.inf
    x[2, 100] = np.nan
    (xt, xc), (at, ac), (bt, bc) = both(x), both(A2[0]), both(B2[0])
    close(CF.lfilter(xc, ac, bc, clamp=False), taf.lfilter(xt, at, bt, clamp=False))
