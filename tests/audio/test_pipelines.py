"""chainrule.audio.pipelines against the real torchaudio: every bundle's class, fields and
data (paths, builder arguments, labels, sample rates), and, for small stand-ins of the
models, ``get_model()`` in both libraries reading the same checkpoint from a temporary
hub cache and giving the same outputs."""

from __future__ import annotations

import dataclasses
import inspect
import json
import math
from functools import partial

import numpy as np
import pytest
import torch

import chainrule
import chainrule.audio.models as cm
import chainrule.audio.pipelines as cp
from chainrule import hub as chub

SMALL_W2V2 = {
    "extractor_conv_layer_config": [(8, 10, 5), (8, 3, 2), (8, 2, 2)],
    "encoder_embed_dim": 16,
    "encoder_pos_conv_kernel": 4,
    "encoder_pos_conv_groups": 2,
    "encoder_num_layers": 2,
    "encoder_num_heads": 2,
    "encoder_ff_interm_features": 24,
}


@pytest.fixture(scope="module")
def tp(ta):
    """The real ``torchaudio.pipelines``."""
    import torchaudio.pipelines

    return torchaudio.pipelines


@pytest.fixture(scope="module")
def hub_dir(tmp_path_factory):
    """One temporary hub cache for both libraries (``torch.hub`` and ``chainrule.hub``)."""
    d = tmp_path_factory.mktemp("hub")
    old_t, old_c = torch.hub._hub_dir, chub._hub_dir
    torch.hub.set_dir(str(d))
    chub.set_dir(str(d))
    yield d
    torch.hub._hub_dir, chub._hub_dir = old_t, old_c


def _save(state_dict, path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(state_dict, str(path))


def _close(ours, theirs, tol: float = 1e-10) -> None:
    np.testing.assert_allclose(
        np.asarray(ours.detach().numpy()), theirs.detach().numpy(), rtol=tol, atol=tol
    )


def _bundle_names(tp) -> list[str]:
    return [n for n in tp.__all__ if not isinstance(getattr(tp, n), type)]


BUNDLES = [n for n in cp.__all__ if not isinstance(getattr(cp, n), type)]
CLASSES = [n for n in cp.__all__ if isinstance(getattr(cp, n), type)]


# --- names and data ----------------------------------------------------------------------


def test_all_matches(tp):
    assert cp.__all__ == tp.__all__
    assert len(BUNDLES) == 40 and len(CLASSES) == 8


def _fields(bundle) -> dict:
    return {f.name: getattr(bundle, f.name) for f in dataclasses.fields(bundle)}


def _plain(value):
    """Builder functions (partials) compared by name and arguments."""
    if isinstance(value, partial):
        return (value.func.__name__, value.args, value.keywords)
    return value


@pytest.mark.parametrize("name", BUNDLES)
def test_bundle_data_matches(tp, name):
    ours, theirs = getattr(cp, name), getattr(tp, name)
    assert type(ours).__name__ == type(theirs).__name__
    assert [c.__name__ for c in type(ours).__mro__] == [c.__name__ for c in type(theirs).__mro__]
    f_ours, f_theirs = _fields(ours), _fields(theirs)
    assert list(f_ours) == list(f_theirs)
    for key, value in f_theirs.items():
        assert _plain(f_ours[key]) == _plain(value), key
        if isinstance(value, dict):
            assert list(f_ours[key]) == list(value), key  # same key order
    if hasattr(theirs, "sample_rate"):
        assert ours.sample_rate == theirs.sample_rate
    if not any(isinstance(v, partial) for v in f_theirs.values()):
        assert repr(ours) == repr(theirs)
    assert ours.__doc__


@pytest.mark.parametrize(
    "name",
    [
        "CONVTASNET_BASE_LIBRI2MIX",
        "HDEMUCS_HIGH_MUSDB",
        "HDEMUCS_HIGH_MUSDB_PLUS",
        "EMFORMER_RNNT_BASE_LIBRISPEECH",
    ],
)
def test_bundle_factories_build_torchaudios_model(tp, name):
    """The full-size factories give torchaudio's module tree (built on the meta device)."""
    attr = "_rnnt_factory_func" if name.startswith("EMFORMER") else "_model_factory_func"
    with torch.device("meta"):
        theirs = getattr(getattr(tp, name), attr)()
    with chainrule.device("meta"):
        ours = getattr(getattr(cp, name), attr)()
    assert repr(ours) == repr(theirs)
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == [
        (k, tuple(v.shape)) for k, v in theirs.state_dict().items()
    ]


W2V_ASR = [n for n in BUNDLES if isinstance(getattr(cp, n), cp.Wav2Vec2ASRBundle)]


@pytest.mark.parametrize("name", W2V_ASR)
def test_labels_match(tp, name):
    ours, theirs = getattr(cp, name), getattr(tp, name)
    assert ours.get_labels() == theirs.get_labels()
    assert ours.get_labels(blank="<b>") == theirs.get_labels(blank="<b>")
    labels = ours.get_labels(star=None) if name == "MMS_FA" else ours.get_labels()
    assert len(labels) == ours._params["aux_num_out"]


def test_mms_fa_dicts_match(tp):
    ours, theirs = cp.MMS_FA, tp.MMS_FA
    for kwargs in ({}, {"star": None}, {"star": "<s>", "blank": "<b>"}):
        assert ours.get_labels(**kwargs) == theirs.get_labels(**kwargs)
        assert ours.get_dict(**kwargs) == theirs.get_dict(**kwargs)
    words = ["hello", "world"]
    assert ours.get_tokenizer()(words) == theirs.get_tokenizer()(words)


def test_rnnt_bundle_properties_match(tp):
    ours, theirs = cp.EMFORMER_RNNT_BASE_LIBRISPEECH, tp.EMFORMER_RNNT_BASE_LIBRISPEECH
    for attr in (
        "sample_rate",
        "n_fft",
        "n_mels",
        "hop_length",
        "segment_length",
        "right_context_length",
    ):
        assert getattr(ours, attr) == getattr(theirs, attr), attr


def _public_methods(cls) -> dict:
    return {
        n: inspect.signature(v)
        for n, v in inspect.getmembers(cls, inspect.isfunction)
        if not n.startswith("_") or n == "__call__"
    }


@pytest.mark.parametrize("name", CLASSES)
def test_class_methods_match(tp, name):
    ours, theirs = _public_methods(getattr(cp, name)), _public_methods(getattr(tp, name))
    assert ours.keys() == theirs.keys()
    for method, sig in theirs.items():
        params = [(p.name, p.kind, p.default) for p in sig.parameters.values()]
        assert [(p.name, p.kind, p.default) for p in ours[method].parameters.values()] == (
            params
        ), method
    nested = {n for n, v in vars(getattr(tp, name)).items() if isinstance(v, type)}
    assert nested == {n for n, v in vars(getattr(cp, name)).items() if isinstance(v, type)}


def test_tts_bundle_methods_match(tp):
    for name in BUNDLES:
        if name.startswith("TACOTRON2"):
            ours, theirs = (
                _public_methods(type(getattr(cp, name))),
                _public_methods(type(getattr(tp, name))),
            )
            assert {k: str(v) for k, v in ours.items()}.keys() == theirs.keys()
            for method, sig in theirs.items():
                assert list(ours[method].parameters) == list(sig.parameters), (name, method)


# --- wav2vec 2.0 bundles -----------------------------------------------------------------


def _small(bundle, aux: int | None = None, **extra):
    params = {**bundle._params, **SMALL_W2V2, **extra}
    if aux is not None:
        params["aux_num_out"] = aux
    return dataclasses.replace(bundle, _params=params)


def _checkpoint_w2v2(ta, hub_dir, bundle, rows: int | None, seed: int):
    """Write torchaudio's model (``rows`` output classes) as ``bundle``'s checkpoint."""
    torch.manual_seed(seed)
    params = {**bundle._params}
    if rows is not None:
        params["aux_num_out"] = rows
    factory = ta.models.wavlm_model if bundle._model_type == "WavLM" else ta.models.wav2vec2_model
    sd = factory(**params).state_dict()
    _save(sd, hub_dir / "checkpoints" / bundle._path.rsplit("/", 1)[-1])
    return sd


def _wave(batch: int, time: int, seed: int) -> np.ndarray:
    return np.random.RandomState(seed).randn(batch, time)


def test_asr_bundle_get_model_matches(ta, tp, hub_dir):
    """WAV2VEC2_ASR_BASE_960H with a small encoder: fairseq's unused rows 1-3 are dropped
    from a 32-class checkpoint; emissions equal torchaudio's."""
    ours_b, theirs_b = _small(cp.WAV2VEC2_ASR_BASE_960H), _small(tp.WAV2VEC2_ASR_BASE_960H)
    sd = _checkpoint_w2v2(ta, hub_dir, theirs_b, 32, seed=0)
    ours, theirs = ours_b.get_model(), theirs_b.get_model()
    assert not ours.training and type(ours).__name__ == "Wav2Vec2Model"
    kept = [0, *range(4, 32)]
    np.testing.assert_array_equal(ours.aux.weight.detach().numpy(), sd["aux.weight"][kept].numpy())
    np.testing.assert_array_equal(ours.aux.bias.detach().numpy(), sd["aux.bias"][kept].numpy())
    x = _wave(2, 400, 1)
    em_c, _ = ours(chainrule.tensor(x, dtype=chainrule.float32))
    with torch.no_grad():
        em_t, _ = theirs(torch.tensor(x, dtype=torch.float32))
    assert tuple(em_c.shape) == tuple(em_t.shape) and em_c.shape[-1] == len(ours_b.get_labels())
    _close(em_c, em_t, 1e-5)
    em_c, len_c = ours.double()(chainrule.tensor(x), chainrule.tensor([400, 300]))
    with torch.no_grad():
        em_t, len_t = theirs.double()(torch.tensor(x), torch.tensor([400, 300]))
    _close(em_c, em_t)
    assert len_c.tolist() == len_t.tolist()


def test_voxpopuli_extra_row_removed(ta, tp, hub_dir):
    """VoxPopuli English drops row 31 as well as 1-3."""
    ours_b = _small(cp.VOXPOPULI_ASR_BASE_10K_EN)
    sd = _checkpoint_w2v2(ta, hub_dir, _small(tp.VOXPOPULI_ASR_BASE_10K_EN), 32, seed=1)
    model = ours_b.get_model()
    kept = [0, *range(4, 31)]
    np.testing.assert_array_equal(model.aux.weight.detach().numpy(), sd["aux.weight"][kept].numpy())


@pytest.mark.parametrize("name", ["WAV2VEC2_LARGE_LV60K", "WAVLM_LARGE"])
def test_normalized_bundle_get_model_matches(ta, tp, hub_dir, name):
    """Bundles trained on layer-normalised input wrap the model; ``forward`` and
    ``extract_features`` equal torchaudio's."""
    extra = {"encoder_num_buckets": 8, "encoder_max_distance": 20} if "WAVLM" in name else {}
    ours_b, theirs_b = _small(getattr(cp, name), **extra), _small(getattr(tp, name), **extra)
    _checkpoint_w2v2(ta, hub_dir, theirs_b, None, seed=2)
    ours, theirs = ours_b.get_model().double(), theirs_b.get_model().double()
    assert type(ours).__name__ == type(theirs).__name__ == "_Wav2Vec2Model"
    assert repr(ours) == repr(theirs)
    assert not ours.training
    x = _wave(2, 400, 3) * 5 + 1
    out_c, _ = ours(chainrule.tensor(x))
    feats_c, _ = ours.extract_features(chainrule.tensor(x), num_layers=1)
    with torch.no_grad():
        out_t, _ = theirs(torch.tensor(x))
        feats_t, _ = theirs.extract_features(torch.tensor(x), num_layers=1)
    _close(out_c, out_t)
    assert len(feats_c) == len(feats_t) == 1
    _close(feats_c[0], feats_t[0])


def test_mms_fa_get_model_matches(ta, tp, hub_dir):
    """MMS_FA: log-softmax emission with a zero star column (or without)."""
    ours_b, theirs_b = _small(cp.MMS_FA), _small(tp.MMS_FA)
    _checkpoint_w2v2(ta, hub_dir, theirs_b, 31, seed=4)
    x = _wave(1, 400, 5)
    for with_star in (True, False):
        ours = ours_b.get_model(with_star=with_star).double()
        theirs = theirs_b.get_model(with_star=with_star).double()
        em_c, _ = ours(chainrule.tensor(x))
        with torch.no_grad():
            em_t, _ = theirs(torch.tensor(x))
        assert em_c.shape[-1] == len(ours_b.get_labels(star="*" if with_star else None))
        _close(em_c, em_t)
    np.testing.assert_allclose(em_c.exp().sum(-1).detach().numpy(), 1.0, rtol=1e-12)


def test_mms_fa_aligner_spans():
    """An emission that spells "-ab-b-" frame by frame aligns "ab b" to those frames."""
    bundle = cp.MMS_FA
    tokens = bundle.get_tokenizer()(["ab", "b"])
    a, b = bundle.get_dict()["a"], bundle.get_dict()["b"]
    assert tokens == [[a], [b]] or tokens == [[a, b], [b]]
    path = [0, a, a, b, 0, b, 0]
    emission = np.full((len(path), len(bundle.get_labels())), -20.0)
    emission[np.arange(len(path)), path] = 0.0
    spans = bundle.get_aligner()(chainrule.tensor(emission), tokens)
    assert [[(s.token, s.start, s.end) for s in w] for w in spans] == [
        [(a, 1, 3), (b, 3, 4)],
        [(b, 5, 6)],
    ]
    assert all(abs(s.score - 1.0) < 1e-6 for w in spans for s in w)
    with pytest.raises(ValueError, match="The input emission must be 2D"):
        bundle.get_aligner()(chainrule.tensor(emission[None]), tokens)


def test_model_type_error(tp):
    bad_c = dataclasses.replace(cp.WAV2VEC2_BASE, _model_type="Other")
    bad_t = dataclasses.replace(tp.WAV2VEC2_BASE, _model_type="Other")
    with pytest.raises(ValueError) as e_t:
        bad_t.get_model()
    with pytest.raises(ValueError, match=r"Supported model types are") as e_c:
        bad_c.get_model()
    assert str(e_c.value) == str(e_t.value)


# --- source separation and Squim -----------------------------------------------------------

CONVTASNET = dict(
    num_sources=2,
    enc_kernel_size=4,
    enc_num_feats=6,
    msk_kernel_size=3,
    msk_num_feats=5,
    msk_num_hidden_feats=7,
    msk_num_layers=2,
    msk_num_stacks=2,
)


def test_convtasnet_bundle_get_model_matches(ta, tp, hub_dir):
    torch.manual_seed(5)
    sd = ta.models.ConvTasNet(**CONVTASNET).state_dict()
    _save(sd, hub_dir / "torchaudio" / tp.CONVTASNET_BASE_LIBRI2MIX._model_path)
    ours_b = dataclasses.replace(
        cp.CONVTASNET_BASE_LIBRI2MIX, _model_factory_func=partial(cm.ConvTasNet, **CONVTASNET)
    )
    theirs_b = dataclasses.replace(
        tp.CONVTASNET_BASE_LIBRI2MIX,
        _model_factory_func=partial(ta.models.ConvTasNet, **CONVTASNET),
    )
    ours, theirs = ours_b.get_model().double(), theirs_b.get_model().double()
    assert not ours.training
    x = _wave(2, 64, 6)[:, None]
    with torch.no_grad():
        out_t = theirs(torch.tensor(x))
    _close(ours(chainrule.tensor(x)), out_t)


HDEMUCS = dict(
    audio_channels=2,
    channels=8,
    nfft=64,
    depth=3,
    norm_starts=1,
    dconv_comp=2,
    dconv_attn=1,
    dconv_lstm=1,
)


def test_hdemucs_bundle_get_model_matches(ta, tp, hub_dir):
    sources = ["drums", "bass", "other", "vocals"]
    torch.manual_seed(6)
    sd = ta.models.HDemucs(sources, **HDEMUCS).state_dict()
    _save(sd, hub_dir / "torchaudio" / tp.HDEMUCS_HIGH_MUSDB._model_path)
    ours = dataclasses.replace(
        cp.HDEMUCS_HIGH_MUSDB, _model_factory_func=partial(cm.HDemucs, sources, **HDEMUCS)
    ).get_model()
    theirs = dataclasses.replace(
        tp.HDEMUCS_HIGH_MUSDB, _model_factory_func=partial(ta.models.HDemucs, sources, **HDEMUCS)
    ).get_model()
    x = _wave(1, 2 * 300, 7).reshape(1, 2, 300)
    with torch.no_grad():
        out_t = theirs.double()(torch.tensor(x))
    _close(ours.double()(chainrule.tensor(x)), out_t, 1e-8)


SQUIM_OBJECTIVE = dict(
    feat_dim=6,
    win_len=8,
    d_model=8,
    nhead=2,
    hidden_dim=5,
    num_blocks=2,
    rnn_type="LSTM",
    chunk_size=7,
)


def test_squim_objective_bundle_get_model_matches(ta, tp, hub_dir, monkeypatch):
    """SQUIM_OBJECTIVE reads ``models/<_path>`` of torchaudio's assets (the builder swapped
    for a small configuration in both libraries)."""
    import torchaudio.pipelines._squim_pipeline as t_squim

    from chainrule.audio.pipelines import _squim_pipeline as c_squim

    monkeypatch.setattr(
        t_squim, "squim_objective_base", partial(ta.models.squim_objective_model, **SQUIM_OBJECTIVE)
    )
    monkeypatch.setattr(
        c_squim, "squim_objective_base", partial(cm.squim_objective_model, **SQUIM_OBJECTIVE)
    )
    torch.manual_seed(7)
    sd = ta.models.squim_objective_model(**SQUIM_OBJECTIVE).state_dict()
    _save(sd, hub_dir / "torchaudio" / "models" / tp.SQUIM_OBJECTIVE._path)
    ours, theirs = cp.SQUIM_OBJECTIVE.get_model(), tp.SQUIM_OBJECTIVE.get_model()
    assert not ours.training
    x = _wave(2, 150, 8)
    with torch.no_grad():
        out_t = theirs.double()(torch.tensor(x))
    out_c = ours.double()(chainrule.tensor(x))
    for c, t in zip(out_c, out_t, strict=True):
        _close(c, t, 1e-9)


# --- Tacotron2 ---------------------------------------------------------------------------

TEXTS = ["Hello world!", "Text-to-speech, 2 U; (ok)?", "ÀÉ unknown ~ chars"]


@pytest.mark.parametrize(
    "name", ["TACOTRON2_GRIFFINLIM_CHAR_LJSPEECH", "TACOTRON2_WAVERNN_CHAR_LJSPEECH"]
)
def test_char_text_processor_matches(tp, name):
    ours, theirs = getattr(cp, name).get_text_processor(), getattr(tp, name).get_text_processor()
    assert isinstance(ours, cp.Tacotron2TTSBundle.TextProcessor)
    assert ours.tokens == theirs.tokens
    for texts in (TEXTS, TEXTS[0]):
        ids_c, len_c = ours(texts)
        ids_t, len_t = theirs(texts)
        assert ids_c.dtype == chainrule.int64 and len_c.dtype == chainrule.int32
        assert ids_c.tolist() == ids_t.tolist()
        assert len_c.tolist() == len_t.tolist()


@pytest.mark.parametrize(
    "name", ["TACOTRON2_GRIFFINLIM_PHONE_LJSPEECH", "TACOTRON2_WAVERNN_PHONE_LJSPEECH"]
)
def test_phone_text_processor_needs_deep_phonemizer(tp, name):
    with pytest.raises(RuntimeError) as e_t:
        getattr(tp, name).get_text_processor()
    with pytest.raises(RuntimeError, match="DeepPhonemizer is not installed") as e_c:
        getattr(cp, name).get_text_processor()
    assert str(e_c.value) == str(e_t.value)


TACOTRON2 = dict(
    n_mels=4,
    symbol_embedding_dim=6,
    encoder_embedding_dim=6,
    encoder_n_convolution=2,
    encoder_kernel_size=3,
    decoder_rnn_dim=8,
    decoder_max_step=5,
    attention_rnn_dim=8,
    attention_hidden_dim=5,
    attention_location_n_filter=3,
    attention_location_kernel_size=3,
    prenet_dim=6,
    postnet_n_convolution=2,
    postnet_kernel_size=3,
    postnet_embedding_dim=6,
)


def test_get_tacotron2_matches(ta, tp, hub_dir):
    """Weights read from ``<hub>/checkpoints/<_tacotron2_path>``; the (deterministic)
    encoder of the text processor's ids equals torchaudio's."""
    name = "TACOTRON2_WAVERNN_CHAR_LJSPEECH"
    theirs_b, ours_b = getattr(tp, name), getattr(cp, name)
    params = {**theirs_b._tacotron2_params, **TACOTRON2}
    torch.manual_seed(8)
    sd = ta.models.Tacotron2(**params).state_dict()
    _save(sd, hub_dir / "checkpoints" / theirs_b._tacotron2_path)
    ours = dataclasses.replace(ours_b, _tacotron2_params=params).get_tacotron2().double()
    theirs = dataclasses.replace(theirs_b, _tacotron2_params=params).get_tacotron2().double()
    assert not ours.training
    ids, lengths = ours_b.get_text_processor()(TEXTS[1::-1])  # longest first
    ids_t, lengths_t = theirs_b.get_text_processor()(TEXTS[1::-1])
    enc_c = ours.encoder(ours.embedding(ids).transpose(1, 2), lengths)
    with torch.no_grad():
        enc_t = theirs.encoder(theirs.embedding(ids_t).transpose(1, 2), lengths_t)
    _close(enc_c, enc_t)


WAVERNN = dict(
    upsample_scales=[2, 3],
    n_classes=8,
    hop_length=6,
    n_res_block=2,
    n_rnn=5,
    n_fc=6,
    n_freq=4,
    n_hidden=5,
    n_output=8,
)


def test_wavernn_vocoder_matches(ta, tp, hub_dir):
    """``get_vocoder`` loads the WaveRNN from ``<hub>/checkpoints/<_wavernn_path>``: its
    teacher-forced output equals torchaudio's; generation with one class forced is
    deterministic and equals torchaudio's too (the mel rescaling and mu-law decoding)."""
    theirs_b = dataclasses.replace(tp.TACOTRON2_WAVERNN_CHAR_LJSPEECH, _wavernn_params=WAVERNN)
    ours_b = dataclasses.replace(cp.TACOTRON2_WAVERNN_CHAR_LJSPEECH, _wavernn_params=WAVERNN)
    torch.manual_seed(9)
    sd = ta.models.WaveRNN(**WAVERNN).state_dict()
    sd["fc3.bias"][5] += 1000.0
    _save(sd, hub_dir / "checkpoints" / theirs_b._wavernn_path)
    ours, theirs = ours_b.get_vocoder(), theirs_b.get_vocoder()
    assert isinstance(ours, cp.Tacotron2TTSBundle.Vocoder)
    assert ours.sample_rate == theirs.sample_rate == 22050
    assert not ours._model.training
    rs = np.random.RandomState(10)
    wave, spec = rs.randn(2, 1, 18), rs.randn(2, 1, 4, 7)
    with torch.no_grad():
        out_t = theirs._model.double()(torch.tensor(wave), torch.tensor(spec))
    _close(ours._model.double()(chainrule.tensor(wave), chainrule.tensor(spec)), out_t)
    mel = rs.randn(2, 4, 5) * 3
    with torch.no_grad():
        wav_t, len_t = theirs.float()(torch.tensor(mel, dtype=torch.float32))
    wav_c, len_c = ours.float()(chainrule.tensor(mel, dtype=chainrule.float32))
    assert len_c is None and len_t is None
    _close(wav_c, wav_t, 1e-6)


def test_griffinlim_vocoder_matches(ta, tp):
    """The Griffin-Lim vocoder: 22.05 kHz; its inverse mel scale equals torchaudio's and the
    waveform has torchaudio's shape."""
    ours = cp.TACOTRON2_GRIFFINLIM_CHAR_LJSPEECH.get_vocoder()
    theirs = tp.TACOTRON2_GRIFFINLIM_CHAR_LJSPEECH.get_vocoder()
    assert ours.sample_rate == theirs.sample_rate == 22050
    mel = np.abs(np.random.RandomState(11).randn(1, 80, 6))
    spec_t = theirs._inv_mel(torch.tensor(mel, dtype=torch.float32))
    spec_c = ours._inv_mel(chainrule.tensor(mel, dtype=chainrule.float32))
    _close(spec_c, spec_t, 1e-4)
    ours._griffin_lim.n_iter = theirs._griffin_lim.n_iter = 2
    wav_c, _ = ours(chainrule.tensor(np.log(mel), dtype=chainrule.float32))
    with torch.no_grad():
        wav_t, _ = theirs(torch.tensor(np.log(mel), dtype=torch.float32))
    assert tuple(wav_c.shape) == tuple(wav_t.shape)


# --- Emformer RNN-T ----------------------------------------------------------------------


def test_piecewise_linear_log_matches(ta):
    from torchaudio.pipelines.rnnt_pipeline import _piecewise_linear_log as theirs

    from chainrule.audio.pipelines.rnnt_pipeline import _gain, _piecewise_linear_log

    assert _gain == pytest.approx(32767.0**2, rel=1e-12)
    x = np.array([0.0, 0.5, 1.0, math.e, 2.8, 10.0, math.e**math.e, 16.0, 1e3, 1e9])
    _close(_piecewise_linear_log(chainrule.tensor(x)), theirs(torch.tensor(x)), 1e-15)


@pytest.fixture(scope="module")
def rnnt_assets(tp, hub_dir):
    bundle = tp.EMFORMER_RNNT_BASE_LIBRISPEECH
    rs = np.random.RandomState(12)
    stats = {"mean": (rs.randn(80) * 3).tolist(), "invstddev": rs.rand(80).tolist()}
    path = hub_dir / "torchaudio" / bundle._global_stats_path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(stats))
    (hub_dir / "torchaudio" / bundle._sp_model_path).write_bytes(b"not a model")
    return hub_dir


@pytest.mark.parametrize("streaming", [False, True])
def test_rnnt_feature_extractor_matches(tp, rnnt_assets, streaming):
    method = "get_streaming_feature_extractor" if streaming else "get_feature_extractor"
    ours = getattr(cp.EMFORMER_RNNT_BASE_LIBRISPEECH, method)()
    theirs = getattr(tp.EMFORMER_RNNT_BASE_LIBRISPEECH, method)()
    assert type(ours).__name__ == type(theirs).__name__ == "_ModuleFeatureExtractor"
    x = np.random.RandomState(13).randn(2000) * 0.1
    feats_t, len_t = theirs(torch.tensor(x, dtype=torch.float32))
    feats_c, len_c = ours(chainrule.tensor(x, dtype=chainrule.float32))
    assert tuple(feats_c.shape) == tuple(feats_t.shape) == (13 + (0 if streaming else 4), 80)
    assert len_c.tolist() == len_t.tolist()
    np.testing.assert_allclose(feats_c.numpy(), feats_t.numpy(), rtol=1e-4, atol=1e-4)


def test_rnnt_token_processor_needs_sentencepiece(tp, rnnt_assets):
    with pytest.raises(RuntimeError) as e_t:
        tp.EMFORMER_RNNT_BASE_LIBRISPEECH.get_token_processor()
    with pytest.raises(RuntimeError, match="SentencePiece is not available") as e_c:
        cp.EMFORMER_RNNT_BASE_LIBRISPEECH.get_token_processor()
    assert str(e_c.value) == str(e_t.value)


RNNT_KWARGS = {
    "input_dim": 80,
    "encoding_dim": 8,
    "num_symbols": 5,
    "segment_length": 4,
    "right_context_length": 2,
    "time_reduction_input_dim": 4,
    "time_reduction_stride": 2,
    "transformer_num_heads": 2,
    "transformer_ffn_dim": 16,
    "transformer_num_layers": 2,
    "transformer_dropout": 0.1,
    "transformer_activation": "gelu",
    "transformer_left_context_length": 3,
    "transformer_max_memory_size": 0,
    "transformer_weight_init_scale_strategy": "depthwise",
    "transformer_tanh_on_mem": True,
    "symbol_embedding_dim": 6,
    "num_lstm_layers": 2,
    "lstm_layer_norm": True,
    "lstm_layer_norm_epsilon": 1e-3,
    "lstm_dropout": 0.1,
}


def test_rnnt_decoder_matches(ta, tp, rnnt_assets):
    """``get_decoder``: beam search over the checkpoint's RNN-T (a small one), blank 4 here."""
    hub_dir = rnnt_assets
    torch.manual_seed(14)
    sd = ta.models.emformer_rnnt_model(**RNNT_KWARGS).state_dict()
    _save(sd, hub_dir / "torchaudio" / tp.EMFORMER_RNNT_BASE_LIBRISPEECH._rnnt_path)
    ours_b = dataclasses.replace(
        cp.EMFORMER_RNNT_BASE_LIBRISPEECH,
        _rnnt_factory_func=partial(cm.emformer_rnnt_model, **RNNT_KWARGS),
        _blank=4,
    )
    theirs_b = dataclasses.replace(
        tp.EMFORMER_RNNT_BASE_LIBRISPEECH,
        _rnnt_factory_func=partial(ta.models.emformer_rnnt_model, **RNNT_KWARGS),
        _blank=4,
    )
    ours, theirs = ours_b.get_decoder(), theirs_b.get_decoder()
    assert not ours.model.training
    x = np.random.RandomState(15).randn(2000) * 0.1
    feats_t, len_t = theirs_b.get_feature_extractor()(torch.tensor(x, dtype=torch.float32))
    feats_c, len_c = ours_b.get_feature_extractor()(chainrule.tensor(x, dtype=chainrule.float32))
    with torch.no_grad():
        hyps_t = theirs(feats_t, len_t, 3)
    with chainrule.no_grad():
        hyps_c = ours(feats_c, len_c, 3)
    assert [h[0] for h in hyps_c] == [h[0] for h in hyps_t]
    for h_c, h_t in zip(hyps_c, hyps_t, strict=True):
        assert abs(h_c[3] - h_t[3]) < 1e-3


# --- the tutorial, under ``chainrule run`` -------------------------------------------------

TUTORIAL = """
import numpy as np
import torch
import torchaudio

bundle = torchaudio.pipelines.WAV2VEC2_ASR_BASE_960H
model = bundle.get_model()
waveform = torch.tensor(np.load({wave!r}), dtype=torch.float32)
with torch.inference_mode():
    emission, _ = model(waveform)
labels = bundle.get_labels()
assert torch.__spec__.name == "chainrule" and torchaudio.__name__ == "chainrule.audio"
np.save({out!r}, emission.numpy())
print("".join(labels))
"""


def test_tutorial_asr_runs_under_chainrule(ta, tp, tmp_path):
    """torchaudio's ASR tutorial lines under ``chainrule run``, the full-size
    WAV2VEC2_ASR_BASE_960H (random weights) read from ``$TORCH_HOME/hub/checkpoints``:
    the emission equals torchaudio's (float32)."""
    import os
    import subprocess
    import sys

    bundle = tp.WAV2VEC2_ASR_BASE_960H
    checkpoint = tmp_path / "hub" / "checkpoints" / bundle._path
    try:
        torch.manual_seed(16)
        theirs = ta.models.wav2vec2_model(**{**bundle._params, "aux_num_out": 32})
        _save(theirs.state_dict(), checkpoint)
        kept = [0, *range(4, 32)]
        with torch.no_grad():
            theirs.aux.weight.data = theirs.aux.weight[kept]
            theirs.aux.bias.data = theirs.aux.bias[kept]
        theirs.eval()
        wave = np.random.RandomState(17).randn(1, 4000)
        np.save(tmp_path / "wave.npy", wave)
        with torch.no_grad():
            expected, _ = theirs(torch.tensor(wave, dtype=torch.float32))
        del theirs
        script = tmp_path / "tutorial.py"
        script.write_text(
            TUTORIAL.format(wave=str(tmp_path / "wave.npy"), out=str(tmp_path / "em.npy"))
        )
        env = {**os.environ, "TORCH_HOME": str(tmp_path)}
        env.pop("TORCH_HUB", None)
        done = subprocess.run(
            [sys.executable, "-m", "chainrule", "run", str(script)],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "".join(bundle.get_labels())
        np.testing.assert_allclose(np.load(tmp_path / "em.npy"), expected.numpy(), atol=2e-5)
    finally:
        checkpoint.unlink(missing_ok=True)
