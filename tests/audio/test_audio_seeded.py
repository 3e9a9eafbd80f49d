"""Under one seed, torchaudio's random draws are chainrule.audio's: chainrule's generator
and samplers are PyTorch's (tests/test_random_streams.py), and chainrule.audio draws what
torchaudio draws, in its order: masks, dither, Griffin-Lim's initial phase,
SpeedPerturbation's choice, span masks, dropout and layer drop in training, WaveRNN's
sampling, Tacotron2's prenet dropout, and the models' initial weights."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import chainrule
import chainrule.audio.functional as CF
import chainrule.audio.transforms as CT
from chainrule.audio import models as cm
from chainrule.audio.compliance import kaldi as ck
from chainrule.audio.models.wav2vec2 import components as c_components

SPEC = np.random.default_rng(0).standard_normal((2, 3, 20, 30))
WAVE = np.random.default_rng(1).uniform(-1, 1, (2, 400))


def _seeded(seed, theirs, ours):
    """``theirs()`` after ``torch.manual_seed(seed)``, ``ours()`` after chainrule's, as arrays."""
    torch.manual_seed(seed)
    expected = theirs()
    chainrule.manual_seed(seed)
    actual = ours()
    pairs = zip(expected, actual) if isinstance(expected, tuple) else [(expected, actual)]
    return [(e.detach().numpy(), a.detach().numpy()) for e, a in pairs]


def _equal(seed, theirs, ours, tol=0.0):
    for expected, actual in _seeded(seed, theirs, ours):
        assert expected.shape == actual.shape
        np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol)


MASKS = {
    "mask_along_axis_iid": lambda f, x: f.mask_along_axis_iid(x, 8, 0.0, 3, p=0.6),
    "mask_along_axis": lambda f, x: f.mask_along_axis(x[0], 8, 0.0, 2),
}
MASK_MODULES = {
    "FrequencyMasking": lambda t: t.FrequencyMasking(6, iid_masks=True),
    "TimeMasking": lambda t: t.TimeMasking(6, p=0.5),
    "SpecAugment": lambda t: t.SpecAugment(2, 5, 2, 4, iid_masks=True, p=0.8),
}


@pytest.mark.parametrize("name", list(MASKS))
def test_functional_masks(ta, name):
    make = MASKS[name]
    for seed in range(3):
        _equal(
            seed,
            lambda: make(ta.functional, torch.tensor(SPEC)),
            lambda: make(CF, chainrule.tensor(SPEC)),
        )


@pytest.mark.parametrize("name", list(MASK_MODULES))
def test_mask_modules(ta, name):
    make = MASK_MODULES[name]
    theirs, ours = make(ta.transforms), make(CT)
    for seed in range(3):
        # SpecAugment fills with a mean: rounding only
        _equal(
            seed, lambda: theirs(torch.tensor(SPEC)), lambda: ours(chainrule.tensor(SPEC)), 1e-14
        )


def test_griffinlim_random_phase(ta):
    mag = np.abs(SPEC[0, :2, :9, :12])
    theirs, ours = ta.transforms.GriffinLim(n_fft=16, n_iter=2), CT.GriffinLim(n_fft=16, n_iter=2)
    _equal(0, lambda: theirs(torch.tensor(mag)), lambda: ours(chainrule.tensor(mag)), 1e-12)


@pytest.mark.parametrize("kind", ["TPDF", "RPDF", "GPDF"])
def test_dither(ta, kind):
    x = WAVE.astype(np.float32)
    for seed in range(3):
        _equal(
            seed,
            lambda: ta.functional.dither(torch.tensor(x), kind),
            lambda: CF.dither(chainrule.tensor(x), kind),
        )


def test_kaldi_dither(ta):
    x = WAVE[:1]
    _equal(
        0,
        lambda: ta.compliance.kaldi.spectrogram(torch.tensor(x), dither=1.0),
        lambda: ck.spectrogram(chainrule.tensor(x), dither=1.0),
        1e-9,
    )


def test_speed_perturbation(ta):
    x = WAVE.astype(np.float32)
    theirs = ta.transforms.SpeedPerturbation(16000, [0.9, 1.0, 1.1])
    ours = CT.SpeedPerturbation(16000, [0.9, 1.0, 1.1])
    lengths = set()
    for seed in range(4):
        [(expected, actual)] = _seeded(
            seed, lambda: theirs(torch.tensor(x))[0], lambda: ours(chainrule.tensor(x))[0]
        )
        lengths.add(expected.shape[-1])
        assert actual.shape == expected.shape
        np.testing.assert_allclose(actual, expected, atol=1e-6)
    assert len(lengths) > 1


PADDING = np.zeros((3, 50), dtype=bool)
PADDING[1, 40:] = PADDING[2, 30:] = True
SPANS = [
    {"mask_type": "static"},
    {"mask_type": "uniform", "mask_other": 1},
    {"mask_type": "normal", "mask_other": 2.0},
    {"mask_type": "static", "no_overlap": True, "min_space": 1},
]


@pytest.mark.parametrize("kwargs", SPANS)
@pytest.mark.parametrize("padded", [False, True])
def test_span_masks(ta, kwargs, padded):
    theirs = ta.models.wav2vec2.components._compute_mask_indices
    ours = c_components._compute_mask_indices

    def run(module, fn):
        padding = module.tensor(PADDING) if padded else None
        return fn((3, 50), padding, 0.5, 4, min_masks=2, **kwargs)

    for seed in range(2):
        _equal(seed, lambda: run(torch, theirs), lambda: run(chainrule, ours))


def _copy(theirs, ours):
    ours.load_state_dict(
        {k: chainrule.from_numpy(v.detach().numpy().copy()) for k, v in theirs.state_dict().items()}
    )
    return theirs, ours


WAVERNN = dict(
    upsample_scales=[2, 3], n_classes=8, hop_length=6, n_res_block=2, n_rnn=5, n_fc=6,
    n_freq=4, n_hidden=5, n_output=8,
)  # fmt: skip
TACOTRON2 = dict(
    n_mels=4, n_symbol=10, symbol_embedding_dim=6, encoder_embedding_dim=6,
    encoder_n_convolution=2, encoder_kernel_size=3, decoder_rnn_dim=7, decoder_max_step=6,
    attention_rnn_dim=5, attention_hidden_dim=4, attention_location_n_filter=3,
    attention_location_kernel_size=5, prenet_dim=5, postnet_n_convolution=3,
    postnet_kernel_size=3, postnet_embedding_dim=4,
)  # fmt: skip
CONV = [(8, 10, 5), (8, 3, 2), (8, 2, 2)]
WAV2VEC2 = ("group_norm", CONV, False, 16, 0.1, 8, 4, 2, 2, 0.1, 24, 0.1, 0.1, False, 0.3, 5)
WAVLM = ("group_norm", CONV, False, 16, 0.1, 8, 4, 2, 2, 8, 20, 0.1, 24, 0.1, 0.1, False, 0.3, 5)
HUBERT = (
    "group_norm", CONV, False, 16, 0.0, 8, 4, 2, 2, 0.0, 24, 0.0, 0.0, False, 0.0,
    0.8, "static", 0.0, 3, False, 1, 0.0, "static", 0.0, 2, False, 1,
    False, False, 6, 12, 0.1,
)  # fmt: skip
MODELS = {
    "WaveRNN": (lambda m: m.WaveRNN(**WAVERNN), 0.0),
    "Tacotron2": (lambda m: m.Tacotron2(**TACOTRON2), 0.0),
    "wav2vec2_model": (lambda m: m.wav2vec2_model(*WAV2VEC2), 0.0),
    "wavlm_model": (lambda m: m.wavlm_model(*WAVLM), 0.0),
    "hubert_pretrain_model": (lambda m: m.hubert_pretrain_model(*HUBERT), 0.0),
    "Conformer": (lambda m: m.Conformer(8, 2, 16, 2, 3), 0.0),
    "Emformer": (lambda m: m.Emformer(8, 2, 16, 2, 4), 0.0),
    "ConvTasNet": (lambda m: m.ConvTasNet(2, 8, 4, 6, 5, 3, 2, 2), 0.0),
    "squim_objective_model": (lambda m: m.squim_objective_model(8, 8, 8, 2, 8, 1, "LSTM", 6), 0.0),
    # the weight rescaling divides by a float32 standard deviation: rounding only
    "HDemucs": (lambda m: m.HDemucs(["a", "b"], channels=8, depth=2), 1e-7),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_initial_weights(ta, name):
    make, tol = MODELS[name]
    torch.manual_seed(5)
    expected = make(ta.models).state_dict()
    chainrule.manual_seed(5)
    actual = make(cm).state_dict()
    assert list(actual) == list(expected)
    for key, value in expected.items():
        np.testing.assert_allclose(actual[key].numpy(), value.numpy(), rtol=0, atol=tol)


def test_wavernn_sampling(ta):
    theirs, ours = _copy(ta.models.WaveRNN(**WAVERNN).eval(), cm.WaveRNN(**WAVERNN).eval())
    spec = SPEC[0, :2, :4, :5].astype(np.float32)
    with torch.no_grad():
        _equal(
            1,
            lambda: theirs.infer(torch.tensor(spec))[0],
            lambda: ours.infer(chainrule.tensor(spec))[0],
        )


def test_tacotron2_prenet_dropout(ta):
    theirs, ours = _copy(
        ta.models.Tacotron2(**TACOTRON2).double(), cm.Tacotron2(**TACOTRON2).double()
    )
    theirs.eval()
    ours.eval()
    tokens, lengths = np.array([[1, 4, 2, 7, 3], [5, 2, 9, 0, 0]]), np.array([5, 3])
    with torch.no_grad(), warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Reached max decoder steps")  # both warn
        _equal(
            3,
            lambda: theirs.infer(torch.tensor(tokens), torch.tensor(lengths)),
            lambda: ours.infer(chainrule.tensor(tokens), chainrule.tensor(lengths)),
            1e-12,
        )


def test_wav2vec2_training_dropout_and_layer_drop(ta):
    theirs, ours = _copy(
        ta.models.wav2vec2_model(*WAV2VEC2).double(), cm.wav2vec2_model(*WAV2VEC2).double()
    )
    x, lengths = WAVE[:, :300].repeat(2, axis=1), np.array([600, 500])
    for seed in range(3):
        _equal(
            seed,
            lambda: theirs(torch.tensor(x), torch.tensor(lengths))[0],
            lambda: ours(chainrule.tensor(x), chainrule.tensor(lengths))[0],
            1e-12,
        )


def test_hubert_pretrain_masks(ta):
    theirs, ours = _copy(
        ta.models.hubert_pretrain_model(*HUBERT).double(),
        cm.hubert_pretrain_model(*HUBERT).double(),
    )
    x, lengths = WAVE[:, :300].repeat(2, axis=1), np.array([600, 500])
    labels = np.random.RandomState(4).randint(0, 6, (2, 29))
    for seed in range(2):
        pairs = _seeded(
            seed,
            lambda: theirs(torch.tensor(x), torch.tensor(labels), torch.tensor(lengths)),
            lambda: ours(chainrule.tensor(x), chainrule.tensor(labels), chainrule.tensor(lengths)),
        )
        for expected, actual in pairs:  # masked and unmasked logits, the feature penalty
            assert actual.shape == expected.shape
            np.testing.assert_allclose(actual, expected, atol=1e-5)
