"""chainrule.audio's spectral functions and transforms against the real torchaudio 2.11:
outputs in float64 (tight, with identical windows or buffers copied from torchaudio's
state_dict) and float32, state_dict names, warnings, errors, and input gradients."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

import chainrule
from chainrule.audio import functional as CF
from chainrule.audio import transforms as CT

RNG = np.random.RandomState(1234)
WAVE = RNG.randn(2, 3, 1200)
MELSPEC = np.abs(RNG.randn(2, 24, 7))
GRAD_WEIGHTS = RNG.randn(10**5)


def as_both(array: np.ndarray, dtype: str = "float64") -> tuple:
    """The same array as a chainrule tensor and a torch tensor."""
    array = np.ascontiguousarray(array.astype(dtype))
    return chainrule.from_numpy(array.copy()), torch.from_numpy(array.copy())


def check(ours, theirs, rtol: float = 1e-10, atol: float = 1e-10) -> None:
    """Same shape and dtype, values close to torchaudio's."""
    a = ours.detach().numpy()
    b = theirs.detach().numpy()
    assert a.shape == b.shape
    assert a.dtype == b.dtype
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def scale_atol(theirs, rel: float) -> float:
    """An absolute tolerance relative to the output's largest magnitude."""
    return rel * float(theirs.detach().abs().max())


def copy_state(ours, theirs) -> None:
    """Load torchaudio's state_dict (buffers) into our module; the key sets must agree."""
    state = {
        k: chainrule.from_numpy(v.detach().numpy().copy()) for k, v in theirs.state_dict().items()
    }
    assert list(ours.state_dict()) == list(state)
    ours.load_state_dict(state)


def f64_window(ta_side: bool = False) -> dict:
    return {"dtype": torch.float64 if ta_side else chainrule.float64}


@pytest.fixture
def default_float64():
    """Both libraries with float64 as the default dtype (restored after)."""
    torch.set_default_dtype(torch.float64)
    chainrule.set_default_dtype(chainrule.float64)
    yield
    torch.set_default_dtype(torch.float32)
    chainrule.set_default_dtype(chainrule.float32)


# ----- filter banks and the DCT ----------------------------------------------------------

MEL_CASES = [
    (201, 0.0, 8000.0, 40, 16000, None, "htk"),
    (257, 20.0, 7600.0, 64, 16000, "slaney", "slaney"),
    (513, 0.0, 11025.0, 80, 22050, "slaney", "htk"),
    (129, 300.0, 4000.0, 23, 8000, None, "slaney"),
]


@pytest.mark.parametrize("case", MEL_CASES)
def test_melscale_fbanks_float32(ta, case):
    ours, theirs = CF.melscale_fbanks(*case), ta.functional.melscale_fbanks(*case)
    check(ours, theirs, rtol=1e-6, atol=scale_atol(theirs, 1e-5))


@pytest.mark.parametrize("case", MEL_CASES)
def test_melscale_fbanks_default_float64(ta, default_float64, case):
    check(CF.melscale_fbanks(*case), ta.functional.melscale_fbanks(*case), 1e-12, 1e-13)


def test_melscale_fbanks_all_zero_warning_and_errors(ta):
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        CF.melscale_fbanks(20, 0.0, 8000.0, 64, 16000)
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        ta.functional.melscale_fbanks(20, 0.0, 8000.0, 64, 16000)
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]
    assert ours[0].category is UserWarning
    with pytest.raises(ValueError, match='norm must be one of None or "slaney"'):
        CF.melscale_fbanks(201, 0.0, 8000.0, 40, 16000, norm="ortho")
    with pytest.raises(ValueError, match='mel_scale should be one of "htk" or "slaney".'):
        CF.melscale_fbanks(201, 0.0, 8000.0, 40, 16000, mel_scale="bark")


def test_linear_fbanks(ta):
    args = (201, 50.0, 7000.0, 30, 16000)
    check(CF.linear_fbanks(*args), ta.functional.linear_fbanks(*args), 1e-6, 1e-7)


@pytest.mark.parametrize("norm", ["ortho", None])
def test_create_dct(ta, norm):
    check(CF.create_dct(13, 40, norm), ta.functional.create_dct(13, 40, norm), 1e-6, 2e-7)
    with pytest.raises(ValueError, match='norm must be either "ortho" or None'):
        CF.create_dct(13, 40, "slaney")


# ----- spectrograms ----------------------------------------------------------------------

SPEC_CASES = [
    {},
    {"power": None},
    {"power": 1.0, "normalized": True, "pad": 5},
    {"normalized": "frame_length", "center": False, "hop_length": 50},
    {"win_length": 100, "pad_mode": "constant", "power": 0.5},
]


@pytest.mark.parametrize("kwargs", SPEC_CASES)
def test_spectrogram_float64(ta, kwargs):
    ours = CT.Spectrogram(n_fft=128, wkwargs=f64_window(), **kwargs)
    theirs = ta.transforms.Spectrogram(n_fft=128, wkwargs=f64_window(True), **kwargs)
    x, y = as_both(WAVE)
    check(ours(x), theirs(y))
    assert list(ours.state_dict()) == ["window"]


@pytest.mark.parametrize("kwargs", SPEC_CASES)
def test_spectrogram_float32(ta, kwargs):
    ours, theirs = (
        CT.Spectrogram(n_fft=128, **kwargs),
        ta.transforms.Spectrogram(n_fft=128, **kwargs),
    )
    check(ours.window, theirs.window, 0, 3e-7)
    x, y = as_both(WAVE, "float32")
    expected = theirs(y)
    check(ours(x), expected, 1e-4, scale_atol(expected, 2e-6))


def test_spectrogram_functional_errors_and_warning():
    x = chainrule.from_numpy(WAVE[0, 0].copy())
    window = chainrule.hann_window(64, dtype=chainrule.float64)
    with pytest.raises(ValueError, match="Invalid normalized parameter: frame"):
        CF.spectrogram(x, 0, window, 64, 32, 64, 2.0, "frame")
    with pytest.raises(TypeError, match="Input type not supported"):
        CF.spectrogram(x, 0, window, 64, 32, 64, 2.0, 1)
    with pytest.warns(UserWarning, match="`return_complex` argument is now deprecated"):
        CF.spectrogram(x, 0, window, 64, 32, 64, 2.0, False, return_complex=True)


@pytest.mark.parametrize("normalized", [False, True, "frame_length"])
def test_inverse_spectrogram(ta, normalized):
    spec = RNG.randn(2, 65, 20) + 1j * RNG.randn(2, 65, 20)
    x, y = as_both(spec, "complex128")
    ours = CT.InverseSpectrogram(n_fft=128, pad=3, normalized=normalized, wkwargs=f64_window())
    theirs = ta.transforms.InverseSpectrogram(
        n_fft=128, pad=3, normalized=normalized, wkwargs=f64_window(True)
    )
    check(ours(x, 1200), theirs(y, 1200))
    check(ours(x), theirs(y))
    with pytest.raises(ValueError, match="Expected `spectrogram` to be complex dtype."):
        ours(x.abs())


def test_griffinlim_deterministic(ta):
    spec = np.abs(RNG.randn(2, 65, 12)) ** 2
    x, y = as_both(spec)
    for momentum in (0.99, 0.0):
        kwargs = {"n_fft": 128, "n_iter": 4, "momentum": momentum, "rand_init": False}
        ours = CT.GriffinLim(length=704, wkwargs=f64_window(), **kwargs)
        theirs = ta.transforms.GriffinLim(length=704, wkwargs=f64_window(True), **kwargs)
        check(ours(x), theirs(y), 1e-9, 1e-11)
    with pytest.raises(ValueError, match=r"momentum must be in the range \[0, 1\). Found: 1.5"):
        CT.GriffinLim(momentum=1.5)


def test_griffinlim_random_init_is_seeded():
    x = chainrule.from_numpy(np.abs(RNG.randn(65, 12)).astype("float32"))
    module = CT.GriffinLim(n_fft=128, n_iter=2)
    chainrule.manual_seed(0)
    first = module(x)
    chainrule.manual_seed(0)
    second = module(x)
    assert first.shape == (11 * 64,)
    assert first.dtype == chainrule.float32
    np.testing.assert_array_equal(first.numpy(), second.numpy())


# ----- decibels --------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(24, 7), (3, 24, 7), (2, 3, 24, 7)])
@pytest.mark.parametrize("stype,top_db", [("power", None), ("power", 20.0), ("magnitude", 30.0)])
def test_amplitude_to_db(ta, shape, stype, top_db):
    data = np.abs(RNG.randn(*shape)) ** 3
    data.flat[0] = 0.0
    x, y = as_both(data)
    check(CT.AmplitudeToDB(stype, top_db)(x), ta.transforms.AmplitudeToDB(stype, top_db)(y))
    with pytest.raises(ValueError, match="top_db must be positive value"):
        CT.AmplitudeToDB(top_db=-1.0)


def test_db_to_amplitude(ta):
    x, y = as_both(RNG.randn(3, 5) * 20)
    for ref, power in ((1.0, 1.0), (2.0, 0.5)):
        check(CF.DB_to_amplitude(x, ref, power), ta.functional.DB_to_amplitude(y, ref, power))


# ----- mel spectrogram, MFCC, LFCC, inverse mel ------------------------------------------

MEL_KWARGS = {"n_fft": 256, "n_mels": 32, "hop_length": 100}


def test_melscale_module(ta):
    ours, theirs = (
        CT.MelScale(32, 16000, 20.0, None, 129),
        ta.transforms.MelScale(32, 16000, 20.0, None, 129),
    )
    check(ours.fb, theirs.fb, 2e-5, 2e-6)
    copy_state(ours, theirs)
    x, y = as_both(np.abs(RNG.randn(2, 129, 9)))
    check(ours(x.float()), theirs(y.float()), 1e-6, 1e-6)
    with pytest.raises(ValueError, match="Require f_min: 9000.0 <= f_max: 8000.0"):
        CT.MelScale(f_min=9000.0)


@pytest.mark.parametrize("norm,mel_scale", [(None, "htk"), ("slaney", "slaney")])
def test_mel_spectrogram_float64(ta, norm, mel_scale):
    kwargs = {**MEL_KWARGS, "norm": norm, "mel_scale": mel_scale}
    ours = CT.MelSpectrogram(16000, **kwargs).double()
    theirs = ta.transforms.MelSpectrogram(16000, **kwargs).double()
    copy_state(ours, theirs)
    assert list(ours.state_dict()) == ["spectrogram.window", "mel_scale.fb"]
    x, y = as_both(WAVE)
    check(ours(x), theirs(y))


def test_mel_spectrogram_float32(ta):
    ours, theirs = (
        CT.MelSpectrogram(16000, **MEL_KWARGS),
        ta.transforms.MelSpectrogram(16000, **MEL_KWARGS),
    )
    x, y = as_both(WAVE, "float32")
    expected = theirs(y)
    check(ours(x), expected, 1e-4, scale_atol(expected, 1e-5))
    with pytest.warns(UserWarning, match="Argument 'onesided' has been deprecated"):
        CT.MelSpectrogram(n_mels=40, onesided=True)


@pytest.mark.parametrize("log_mels", [False, True])
def test_mfcc_float64(ta, log_mels):
    kwargs = {"n_mfcc": 13, "log_mels": log_mels, "melkwargs": MEL_KWARGS}
    ours = CT.MFCC(16000, **kwargs).double()
    theirs = ta.transforms.MFCC(16000, **kwargs).double()
    copy_state(ours, theirs)
    x, y = as_both(WAVE)
    check(ours(x), theirs(y))


def test_mfcc_float32_and_errors(ta):
    ours = CT.MFCC(16000, n_mfcc=13, melkwargs=MEL_KWARGS)
    theirs = ta.transforms.MFCC(16000, n_mfcc=13, melkwargs=MEL_KWARGS)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    x, y = as_both(WAVE, "float32")
    expected = theirs(y)
    check(ours(x), expected, 1e-4, scale_atol(expected, 1e-5))
    with pytest.raises(ValueError, match="DCT type not supported: 3"):
        CT.MFCC(dct_type=3)
    with pytest.raises(ValueError, match="Cannot select more MFCC coefficients than # mel bins"):
        CT.MFCC(n_mfcc=40, melkwargs={"n_mels": 20})


@pytest.mark.parametrize("log_lf", [False, True])
def test_lfcc(ta, log_lf):
    kwargs = {"n_filter": 32, "n_lfcc": 13, "log_lf": log_lf, "speckwargs": {"n_fft": 256}}
    ours, theirs = CT.LFCC(16000, **kwargs).double(), ta.transforms.LFCC(16000, **kwargs).double()
    copy_state(ours, theirs)
    x, y = as_both(WAVE)
    check(ours(x), theirs(y))
    x, y = as_both(WAVE, "float32")
    ours, theirs = CT.LFCC(16000, **kwargs), ta.transforms.LFCC(16000, **kwargs)
    expected = theirs(y)
    check(ours(x), expected, 1e-4, scale_atol(expected, 1e-5))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_inverse_mel_scale(ta, dtype):
    ours = CT.InverseMelScale(129, 24, 16000).to(getattr(chainrule, dtype))
    theirs = ta.transforms.InverseMelScale(129, 24, 16000).to(getattr(torch, dtype))
    assert list(ours.state_dict()) == ["fb"]
    copy_state(ours, theirs)
    x, y = as_both(MELSPEC, dtype)
    tol = 1e-9 if dtype == "float64" else 2e-4
    check(ours(x), theirs(y), tol, tol)
    with pytest.raises(ValueError, match="Expected an input with 24 mel bins. Found: 7"):
        ours(x.transpose(-1, -2))
    with pytest.raises(ValueError, match="driver must be one of"):
        CT.InverseMelScale(129, driver="gelsx")


# ----- resampling ------------------------------------------------------------------------

RESAMPLE_CASES = [
    (16000, 8000),
    (16000, 44100),
    (8000, 12000, 4, 0.9, "sinc_interp_kaiser"),
    (44100, 16000, 6, 0.99, "sinc_interp_kaiser", 10.0),
    (3, 2, 8, 0.8),
]


@pytest.mark.parametrize("args", RESAMPLE_CASES)
def test_resample_float64(ta, args):
    x, y = as_both(WAVE)
    # a given beta goes through torchaudio's float32 i0(beta), which PyTorch rounds 2 ulp
    # away from the correctly rounded value chainrule gives (i0(10) = 2815.7163 vs 2815.7166)
    rtol = 2e-7 if len(args) > 5 else 1e-9
    check(CF.resample(x, *args), ta.functional.resample(y, *args), rtol, 1e-12)


@pytest.mark.parametrize("args", RESAMPLE_CASES[:3])
def test_resample_float32(ta, args):
    x, y = as_both(WAVE, "float32")
    check(CF.resample(x, *args), ta.functional.resample(y, *args), 1e-5, 5e-6)


def test_resample_deprecated_names_and_errors(ta):
    x, y = as_both(WAVE[0, :1])
    for name in ("sinc_interpolation", "kaiser_window"):
        with pytest.warns(UserWarning, match="resampling method name is being deprecated"):
            ours = CF.resample(x, 4, 3, resampling_method=name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            check(ours, ta.functional.resample(y, 4, 3, resampling_method=name))
    with pytest.raises(ValueError, match="Invalid resampling method: linear"):
        CF.resample(x, 4, 3, resampling_method="linear")
    with pytest.raises(ValueError, match="should be positive"):
        CF.resample(x, 0, 3)
    with pytest.raises(ValueError, match="Low pass filter width should be positive."):
        CF.resample(x, 4, 3, lowpass_filter_width=0)
    with pytest.raises(Exception, match="Frequencies must be of integer type"):
        CF.resample(x, 4.5, 3)
    assert CF.resample(x, 4, 4) is x


def test_resample_module(ta):
    ours, theirs = CT.Resample(16000, 11025), ta.transforms.Resample(16000, 11025)
    assert list(ours.state_dict()) == ["kernel"]
    check(ours.kernel, theirs.kernel, 0, 1e-7)
    assert ours.width == theirs.width
    x, y = as_both(WAVE, "float32")
    check(ours(x), theirs(y), 1e-5, 5e-6)
    ours = CT.Resample(16000, 11025, dtype=chainrule.float64)
    theirs = ta.transforms.Resample(16000, 11025, dtype=torch.float64)
    x, y = as_both(WAVE)
    check(ours(x), theirs(y), 1e-9, 1e-12)
    assert CT.Resample(8000, 8000).state_dict() == {}


# ----- phase vocoder, centroid, pitch, speed ---------------------------------------------


@pytest.fixture(scope="module")
def complex_spec(ta):
    """A complex STFT (2, 3, 65, 19) from torchaudio, in float64 and float32."""
    out = {}
    for dtype in ("float64", "float32"):
        _, y = as_both(WAVE, dtype)
        window = torch.hann_window(128, dtype=y.dtype)
        spec = ta.functional.spectrogram(y, 0, window, 128, 64, 128, None, False)
        out[dtype] = (chainrule.from_numpy(spec.numpy().copy()), spec)
    return out


@pytest.mark.parametrize("rate", [1.3, 0.8, 1.0])
def test_time_stretch(ta, complex_spec, rate):
    x, y = complex_spec["float64"]
    ours = CT.TimeStretch(n_freq=65, fixed_rate=rate)
    theirs = ta.transforms.TimeStretch(n_freq=65, fixed_rate=rate)
    check(ours.phase_advance, theirs.phase_advance, 0, 1e-4)
    copy_state(ours, theirs)
    check(ours(x), theirs(y))
    x, y = complex_spec["float32"]
    expected = theirs(y, 1.1)
    # float32 phases accumulate to ~10³ rad, where one float32 ulp is ~1e-4 rad
    check(ours(x, 1.1), expected, 1e-3, scale_atol(expected, 1e-3))


def test_time_stretch_warning_and_error():
    module = CT.TimeStretch(n_freq=65)
    with pytest.raises(ValueError, match="If no fixed_rate is specified"):
        module(chainrule.zeros(65, 4, dtype=chainrule.complex64))
    with pytest.warns(UserWarning, match="The input to TimeStretch must be complex type."):
        module(chainrule.zeros(65, 4), 1.0)


def test_spectral_centroid(ta):
    x, y = as_both(WAVE)
    ours = CT.SpectralCentroid(16000, n_fft=128, pad=2, wkwargs=f64_window())
    theirs = ta.transforms.SpectralCentroid(16000, n_fft=128, pad=2, wkwargs=f64_window(True))
    check(ours(x), theirs(y), 1e-9, 1e-9)
    x, y = as_both(WAVE, "float32")
    ours, theirs = (
        CT.SpectralCentroid(16000, n_fft=128),
        ta.transforms.SpectralCentroid(16000, n_fft=128),
    )
    check(ours(x), theirs(y), 1e-5, 1e-3)


@pytest.mark.parametrize("n_steps", [3, -2])
def test_pitch_shift_float64(ta, n_steps):
    x, y = as_both(WAVE[0])
    ours = CF.pitch_shift(
        x, 200, n_steps, n_fft=256, window=chainrule.hann_window(256, dtype=chainrule.float64)
    )
    theirs = ta.functional.pitch_shift(
        y, 200, n_steps, n_fft=256, window=torch.hann_window(256, dtype=torch.float64)
    )
    check(ours, theirs, 1e-8, 1e-10)
    # the lazy kernel takes the parameter's dtype, so float64 needs .double() (as torchaudio)
    with pytest.raises(RuntimeError, match="expected scalar type Double but found Float"):
        CT.PitchShift(200, n_steps, n_fft=256, wkwargs=f64_window())(x)
    ours = CT.PitchShift(200, n_steps, n_fft=256).double()
    theirs = ta.transforms.PitchShift(200, n_steps, n_fft=256).double()
    ours.window = chainrule.from_numpy(theirs.window.numpy().copy())
    check(ours(x), theirs(y), 1e-8, 1e-10)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["kernel", "window"]
    check(ours.kernel, theirs.kernel, 1e-12, 1e-14)


def test_pitch_shift_float32(ta):
    x, y = as_both(WAVE[0], "float32")
    expected = ta.transforms.PitchShift(200, 4)(y)
    check(CT.PitchShift(200, 4)(x), expected, 1e-3, scale_atol(expected, 1e-4))


def test_speed(ta):
    x, y = as_both(WAVE)
    lengths = np.array([[1200, 900, 37], [5, 1200, 600]])
    lx, ly = chainrule.from_numpy(lengths.copy()), torch.from_numpy(lengths.copy())
    ours, ours_len = CF.speed(x, 16000, 1.1, lx)
    theirs, theirs_len = ta.functional.speed(y, 16000, 1.1, ly)
    check(ours, theirs, 1e-9, 1e-12)
    check(ours_len, theirs_len, 0, 0)
    assert CF.speed(x, 16000, 0.9)[1] is None
    ours, ours_len = CT.Speed(16000, 0.9).double()(x, lx)
    theirs, theirs_len = ta.transforms.Speed(16000, 0.9).double()(y, ly)
    check(ours, theirs, 1e-9, 1e-12)
    check(ours_len, theirs_len, 0, 0)


def test_speed_perturbation(ta):
    x = chainrule.from_numpy(WAVE[0].astype("float32"))
    module = CT.SpeedPerturbation(16000, [0.9, 1.1, 1.0])
    theirs = ta.transforms.SpeedPerturbation(16000, [0.9, 1.1, 1.0])
    assert list(module.state_dict()) == list(theirs.state_dict())
    lengths = {math.ceil(1200 / f) for f in (0.9, 1.1, 1.0)}
    chainrule.manual_seed(3)
    seen = [module(x)[0].shape[-1] for _ in range(12)]
    assert set(seen) <= lengths
    assert len(set(seen)) > 1
    chainrule.manual_seed(3)
    assert [module(x)[0].shape[-1] for _ in range(12)] == seen


# ----- gradients -------------------------------------------------------------------------


def grad_pair(ours_fn, theirs_fn, data: np.ndarray) -> tuple:
    """d/dx Re Σ w·f(x) from both libraries (w fixed random weights, complex where f is)."""
    x = chainrule.from_numpy(data.copy()).requires_grad_()
    y = torch.from_numpy(data.copy()).requires_grad_()
    out_x, out_y = ours_fn(x), theirs_fn(y)
    n = out_y.numel()
    weights = GRAD_WEIGHTS[:n].reshape(out_y.shape)
    if out_y.is_complex():
        weights = weights + 1j * GRAD_WEIGHTS[1 : n + 1].reshape(out_y.shape)
    (out_x * chainrule.from_numpy(weights.copy())).real.sum().backward()
    (out_y * torch.from_numpy(weights.copy())).real.sum().backward()
    return x.grad, y.grad


def test_gradients(ta):
    data = WAVE[0, :2, :600]
    pairs = [
        (
            CT.Spectrogram(n_fft=64, wkwargs=f64_window()),
            ta.transforms.Spectrogram(n_fft=64, wkwargs=f64_window(True)),
        ),
    ]
    mel = (
        CT.MelSpectrogram(16000, n_fft=64, n_mels=12).double(),
        ta.transforms.MelSpectrogram(16000, n_fft=64, n_mels=12).double(),
    )
    mfcc = (
        CT.MFCC(16000, n_mfcc=6, melkwargs={"n_fft": 64, "n_mels": 12}).double(),
        ta.transforms.MFCC(16000, n_mfcc=6, melkwargs={"n_fft": 64, "n_mels": 12}).double(),
    )
    for ours, theirs in (mel, mfcc):
        copy_state(ours, theirs)
        pairs.append((ours, theirs))
    pairs.append((lambda v: CF.resample(v, 5, 3), lambda v: ta.functional.resample(v, 5, 3)))
    for ours, theirs in pairs:
        gx, gy = grad_pair(ours, theirs, data)
        check(gx, gy, 1e-8, scale_atol(gy, 1e-10))


def test_gradients_of_the_other_transforms(ta):
    wave = WAVE[1, :2, :600]
    spec = RNG.randn(2, 65, 10) + 1j * RNG.randn(2, 65, 10)
    window = {"wkwargs": f64_window()}
    ta_window = {"wkwargs": f64_window(True)}
    cases = [
        (CT.AmplitudeToDB(top_db=20), ta.transforms.AmplitudeToDB(top_db=20), MELSPEC**2),
        (
            CT.SpectralCentroid(16000, n_fft=64, **window),
            ta.transforms.SpectralCentroid(16000, n_fft=64, **ta_window),
            wave,
        ),
        (
            CT.Spectrogram(64, power=None, **window),
            ta.transforms.Spectrogram(64, power=None, **ta_window),
            wave,
        ),
        (
            CT.InverseSpectrogram(128, **window),
            ta.transforms.InverseSpectrogram(128, **ta_window),
            spec,
        ),
        (
            CT.TimeStretch(n_freq=65, fixed_rate=1.3),
            ta.transforms.TimeStretch(n_freq=65, fixed_rate=1.3),
            spec,
        ),
        (
            CT.GriffinLim(128, n_iter=3, rand_init=False, **window),
            ta.transforms.GriffinLim(128, n_iter=3, rand_init=False, **ta_window),
            np.abs(spec),
        ),
    ]
    for ours, theirs, data in cases:
        if isinstance(theirs, ta.transforms.TimeStretch):
            copy_state(ours, theirs)
        gx, gy = grad_pair(ours, theirs, data)
        check(gx, gy, 1e-8, scale_atol(gy, 1e-11))
