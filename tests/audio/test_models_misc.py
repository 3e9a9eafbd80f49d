"""torchaudio's Wav2Letter, DeepSpeech, ConvTasNet, WaveRNN, HDemucs and Squim models
against the real torchaudio: state-dict layouts (keys and shapes) of every class and
builder, and for small configurations the float64 outputs and parameter gradients after
loading torchaudio's randomised state dict into chainrule's model."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule
from chainrule.audio import models as cm


def _layout(module):
    return [(k, tuple(v.shape)) for k, v in module.state_dict().items()]


def _randomize(model, seed=0):
    """Every parameter perturbed and random batch-norm statistics, in float64."""
    model = model.double()
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(
                torch.randn(p.shape, generator=gen, dtype=p.dtype) * 0.1 * (p.abs().mean() + 0.1)
            )
        for name, b in model.named_buffers():
            if name.endswith("running_mean"):
                b.copy_(torch.randn(b.shape, generator=gen) * 0.1)
            elif name.endswith("running_var"):
                b.copy_(torch.rand(b.shape, generator=gen) + 0.5)
    return model


def _pair(theirs, ours):
    """``ours`` in float64 holding ``theirs``' (randomised) state dict; layouts asserted equal."""
    theirs = _randomize(theirs)
    ours = ours.double()
    assert _layout(ours) == _layout(theirs)
    state = {k: chainrule.from_numpy(v.numpy().copy()) for k, v in theirs.state_dict().items()}
    ours.load_state_dict(state)
    return theirs, ours


def _t(a):
    return torch.from_numpy(np.array(a))


def _c(a):
    return chainrule.from_numpy(np.array(a))


def _close(ours, theirs, tol=1e-9):
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tol, atol=tol)


def _compare(theirs, ours, inputs, train=False, tol=1e-9, out=lambda y: y):
    """Outputs and parameter gradients of ``sum(w * out(model(*inputs)))`` equal."""
    theirs.train(train)
    ours.train(train)
    y_t = out(theirs(*[_t(a) for a in inputs]))
    y_c = out(ours(*[_c(a) for a in inputs]))
    _close(y_c, y_t, tol)
    w = np.random.default_rng(1).standard_normal(tuple(y_t.shape))
    (y_t * _t(w)).sum().backward()
    (y_c * _c(w)).sum().backward()
    grads_c = dict(ours.named_parameters())
    for name, p in theirs.named_parameters():
        if p.grad is None:
            assert grads_c[name].grad is None, name
            continue
        _close(grads_c[name].grad, p.grad, tol)


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


# --- Wav2Letter ---------------------------------------------------------------------


@pytest.mark.parametrize("input_type", ["waveform", "mfcc", "power_spectrum"])
def test_wav2letter_layout(ta, input_type):
    with torch.device("meta"):
        theirs = ta.models.Wav2Letter(num_classes=29, input_type=input_type, num_features=13)
    with chainrule.device("meta"):
        ours = cm.Wav2Letter(num_classes=29, input_type=input_type, num_features=13)
    assert repr(ours) == repr(theirs)
    assert _layout(ours) == _layout(theirs)


def test_wav2letter_matches(ta):
    """The waveform model holds every layer of the feature model and one more; its
    ~26M parameters make this the only numeric Wav2Letter comparison."""
    torch.manual_seed(0)
    theirs, ours = _pair(ta.models.Wav2Letter(num_classes=4), cm.Wav2Letter(num_classes=4))
    _compare(theirs, ours, [_rand(1, 1, 700)], train=True, tol=1e-8)


# --- DeepSpeech ---------------------------------------------------------------------


def test_deepspeech_layout(ta):
    with torch.device("meta"):
        theirs = ta.models.DeepSpeech(n_feature=40)
    with chainrule.device("meta"):
        ours = cm.DeepSpeech(n_feature=40)
    assert _layout(ours) == _layout(theirs)


def test_deepspeech_matches(ta):
    torch.manual_seed(0)
    theirs, ours = _pair(
        ta.models.DeepSpeech(6, n_hidden=8, n_class=5, dropout=0.3), cm.DeepSpeech(6, 8, 5, 0.3)
    )
    _compare(theirs, ours, [_rand(2, 1, 7, 6) * 3])


# --- ConvTasNet ---------------------------------------------------------------------


def test_conv_tasnet_base_layout(ta):
    with torch.device("meta"):
        theirs = ta.models.conv_tasnet_base(num_sources=3)
    with chainrule.device("meta"):
        ours = cm.conv_tasnet_base(num_sources=3)
    assert repr(ours) == repr(theirs)
    assert _layout(ours) == _layout(theirs)
    assert ours.mask_generator.receptive_field == theirs.mask_generator.receptive_field


@pytest.mark.parametrize(
    ("kernel", "frames", "activate"), [(8, 50, "sigmoid"), (5, 41, "relu"), (4, 40, "relu")]
)
def test_conv_tasnet_matches(ta, kernel, frames, activate):
    config = dict(
        num_sources=2,
        enc_kernel_size=kernel,
        enc_num_feats=6,
        msk_kernel_size=3,
        msk_num_feats=4,
        msk_num_hidden_feats=5,
        msk_num_layers=2,
        msk_num_stacks=2,
        msk_activate=activate,
    )
    torch.manual_seed(0)
    theirs, ours = _pair(ta.models.ConvTasNet(**config), cm.ConvTasNet(**config))
    _compare(theirs, ours, [_rand(2, 1, frames)], train=True)


def test_conv_tasnet_errors(ta):
    with pytest.raises(ValueError, match="Unsupported activation tanh"):
        cm.ConvTasNet(msk_activate="tanh", enc_num_feats=4, msk_num_hidden_feats=4, msk_num_feats=4)
    model = cm.ConvTasNet(
        enc_num_feats=4, msk_num_hidden_feats=4, msk_num_feats=4, msk_num_layers=1, msk_num_stacks=1
    )
    with pytest.raises(ValueError, match=r"Expected 3D tensor \(batch, channel==1, frames\)"):
        model(chainrule.zeros(1, 2, 40))


# --- WaveRNN ------------------------------------------------------------------------

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


def test_wavernn_layout(ta):
    with torch.device("meta"):
        theirs = ta.models.WaveRNN(upsample_scales=[5, 5, 8], n_classes=512, hop_length=200)
    with chainrule.device("meta"):
        ours = cm.WaveRNN(upsample_scales=[5, 5, 8], n_classes=512, hop_length=200)
    assert repr(ours) == repr(theirs)
    assert _layout(ours) == _layout(theirs)


@pytest.mark.parametrize("train", [False, True])
def test_wavernn_forward_matches(ta, train):
    torch.manual_seed(0)
    theirs, ours = _pair(ta.models.WaveRNN(**WAVERNN), cm.WaveRNN(**WAVERNN))
    n_time = 7
    waveform = _rand(2, 1, (n_time - 4) * 6, seed=2)
    specgram = _rand(2, 1, 4, n_time, seed=3)
    _compare(theirs, ours, [waveform, specgram], train=train)


def test_wavernn_infer_matches_when_certain(ta):
    """With one class far more likely than the rest, sampling is deterministic."""
    torch.manual_seed(0)
    theirs, ours = _pair(ta.models.WaveRNN(**WAVERNN), cm.WaveRNN(**WAVERNN))
    theirs.eval()
    ours.eval()
    with torch.no_grad():
        theirs.fc3.bias[5] += 1000.0
    ours.fc3.bias.data[5] += 1000.0
    specgram = _rand(2, 4, 3, seed=4)
    lengths = np.array([3, 2])
    wave_t, len_t = theirs.infer(_t(specgram), _t(lengths))
    wave_c, len_c = ours.infer(_c(specgram), _c(lengths))
    assert tuple(wave_c.shape) == tuple(wave_t.shape) == (2, 1, 18)
    _close(wave_c, wave_t, 1e-12)
    np.testing.assert_array_equal(len_c.numpy(), len_t.numpy())
    assert ours.infer(_c(specgram))[1] is None


def test_wavernn_infer_samples_every_class(ta):
    chainrule.manual_seed(0)
    model = cm.WaveRNN(**WAVERNN).eval()
    with chainrule.no_grad():
        model.fc3.weight.zero_()
        model.fc3.bias.zero_()
        wave, _ = model.infer(chainrule.randn(1, 4, 30))
    values = np.unique(wave.numpy())
    np.testing.assert_allclose(values, 2 * np.arange(8) / 7 - 1, atol=1e-6)


def test_wavernn_errors(ta):
    with pytest.raises(ValueError, match="Expected: total_scale == hop_length, but found 6 != 5"):
        cm.WaveRNN(upsample_scales=[2, 3], n_classes=8, hop_length=5)
    model = cm.WaveRNN(**WAVERNN)
    with pytest.raises(ValueError, match="Require the input channel of waveform is 1"):
        model(chainrule.zeros(1, 2, 18), chainrule.zeros(1, 1, 4, 7))
    with pytest.raises(ValueError, match="Require the input channel of specgram is 1"):
        model(chainrule.zeros(1, 1, 18), chainrule.zeros(1, 2, 4, 7))


# --- HDemucs ------------------------------------------------------------------------

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


@pytest.mark.parametrize("name", ["hdemucs_low", "hdemucs_medium", "hdemucs_high"])
def test_hdemucs_builder_layout(ta, name):
    sources = ["drums", "bass", "other", "vocals"]
    with torch.device("meta"):
        theirs = getattr(ta.models, name)(sources)
    with chainrule.device("meta"):
        ours = getattr(cm, name)(sources)
    assert repr(ours) == repr(theirs)
    assert _layout(ours) == _layout(theirs)


@pytest.fixture
def float64_hann(monkeypatch):
    """Hann windows made in float64 in both libraries: HDemucs makes its STFT window in
    float32 and casts it, and PyTorch's float32 window differs from the correctly
    rounded one (chainrule's) by up to one ulp."""
    torch_hann, chainrule_hann = torch.hann_window, chainrule.hann_window
    monkeypatch.setattr(torch, "hann_window", lambda n, **kw: torch_hann(n, dtype=torch.float64))
    monkeypatch.setattr(
        chainrule, "hann_window", lambda n, **kw: chainrule_hann(n, dtype=chainrule.float64)
    )


@pytest.mark.parametrize(("train", "length"), [(False, 200), (True, 157)])
def test_hdemucs_matches(ta, float64_hann, train, length):
    torch.manual_seed(0)
    theirs, ours = _pair(
        ta.models.HDemucs(["a", "b"], **HDEMUCS), cm.HDemucs(["a", "b"], **HDEMUCS)
    )
    _compare(theirs, ours, [_rand(2, 2, length, seed=5)], train=train, tol=1e-8)


def test_hdemucs_rescale_matches(ta):
    """``_rescale_module``: weight and bias divided by ``sqrt(std(weight) / 0.1)``."""
    from torchaudio.models._hdemucs import _rescale_module

    from chainrule.audio.models._hdemucs import _rescale_module as our_rescale

    torch.manual_seed(0)
    theirs = torch.nn.Sequential(
        torch.nn.Conv1d(3, 4, 5), torch.nn.ConvTranspose2d(2, 3, 3), torch.nn.Linear(2, 2)
    )
    theirs, ours = _pair(
        theirs,
        chainrule.nn.Sequential(
            chainrule.nn.Conv1d(3, 4, 5),
            chainrule.nn.ConvTranspose2d(2, 3, 3),
            chainrule.nn.Linear(2, 2),
        ),
    )
    _rescale_module(theirs)
    our_rescale(ours)
    for p, q in zip(theirs.state_dict().values(), ours.state_dict().values()):
        _close(q, p, 1e-12)


def test_hdemucs_smooth_embedding_statistics():
    """The smoothed embedding is ``cumsum(N(0, 1) rows) / sqrt(i + 1)``, stored over ``scale``."""
    chainrule.manual_seed(0)
    emb = cm._hdemucs._ScaledEmbedding(400, 50, scale=10.0, smooth=True)
    stored = emb.embedding.weight.detach().numpy()
    weight = emb.weight.detach().numpy()
    np.testing.assert_allclose(weight, stored * 10.0, rtol=1e-6)
    raw = np.diff(weight * np.sqrt(np.arange(1, 401))[:, None], axis=0, prepend=0.0)
    assert abs(raw.std() - 1.0) < 0.02 and abs(raw.mean()) < 0.02


def test_hdemucs_blstm_frames_long_inputs(ta):
    """Sequences over 200 steps go through overlapping frames."""
    from torchaudio.models._hdemucs import _BLSTM

    from chainrule.audio.models._hdemucs import _BLSTM as OurBLSTM

    torch.manual_seed(0)
    theirs, ours = _pair(_BLSTM(3, layers=2, skip=True), OurBLSTM(3, layers=2, skip=True))
    _compare(theirs, ours, [_rand(2, 3, 450, seed=6)], train=True)


def test_hdemucs_errors(ta):
    model = cm.HDemucs(["a", "b"], **HDEMUCS)
    with pytest.raises(
        ValueError, match=r"Expected 3D tensor with dimensions \(batch, channel, frames\)"
    ):
        model(chainrule.zeros(2, 100))
    with pytest.raises(ValueError, match="must match `audio_channels` of HDemucs model. Found:1."):
        model(chainrule.zeros(1, 1, 100))


# --- Squim --------------------------------------------------------------------------

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


@pytest.mark.parametrize("name", ["squim_objective_base", "squim_subjective_base"])
def test_squim_builder_layout(ta, name):
    with torch.device("meta"):
        theirs = getattr(ta.models, name)()
    with chainrule.device("meta"):
        ours = getattr(cm, name)()
    assert repr(ours) == repr(theirs)
    assert _layout(ours) == _layout(theirs)


@pytest.mark.parametrize(
    ("rnn_type", "chunk_stride", "train"),
    [("LSTM", None, False), ("GRU", 3, True), ("RNN", 2, True)],
)
def test_squim_objective_matches(ta, rnn_type, chunk_stride, train):
    config = dict(SQUIM_OBJECTIVE, rnn_type=rnn_type, chunk_stride=chunk_stride)
    torch.manual_seed(0)
    theirs, ours = _pair(
        ta.models.squim_objective_model(**config), cm.squim_objective_model(**config)
    )
    _compare(
        theirs,
        ours,
        [_rand(2, 150, seed=7)],
        train=train,
        out=lambda ys: ys[0] + 2 * ys[1] + 3 * ys[2],
    )


def test_squim_objective_score_ranges(ta):
    from torchaudio.models.squim import objective as theirs

    from chainrule.audio.models.squim import objective

    assert objective.PESQRange == theirs.PESQRange
    assert objective.transform_wb_pesq_range(1.7) == theirs.transform_wb_pesq_range(1.7)
    model = cm.squim_objective_model(**SQUIM_OBJECTIVE)
    stoi, pesq, sisdr = model(chainrule.randn(3, 100))
    assert tuple(stoi.shape) == tuple(pesq.shape) == tuple(sisdr.shape) == (3,)
    assert bool(((stoi > 0) & (stoi < 1)).all()) and bool(
        ((pesq > 1.0) & (pesq < objective.PESQRange[1])).all()
    )
    with pytest.raises(ValueError, match="The input must be a 2D Tensor. Found dimension 1."):
        model(chainrule.randn(100))


def _ssl_pair():
    """A tiny stand-in for wav2vec 2.0 in both libraries: ``extract_features`` gives the
    per-layer features ``(batch, frames, 4)`` of two strided convolutions."""

    def make(lib):
        class TinySSL(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = lib.nn.Conv1d(1, 4, 10, stride=5)
                self.layer = lib.nn.Linear(4, 4)

            def extract_features(self, x):
                first = self.conv(x.unsqueeze(1)).transpose(1, 2)
                return [first, lib.tanh(self.layer(first))], None

        return TinySSL()

    return make(torch), make(chainrule)


@pytest.mark.parametrize("ref_len", [37, 120, 200])
def test_squim_subjective_matches(ta, ref_len):
    ssl_t, ssl_c = _ssl_pair()
    torch.manual_seed(0)
    from torchaudio.models.squim.subjective import Predictor

    from chainrule.audio.models.squim.subjective import Predictor as OurPredictor

    theirs = ta.models.SquimSubjective(ssl_t, torch.nn.Linear(4, 3), Predictor(6, 5))
    ours = cm.SquimSubjective(ssl_c, chainrule.nn.Linear(4, 3), OurPredictor(6, 5))
    theirs, ours = _pair(theirs, ours)
    _compare(theirs, ours, [_rand(2, 120, seed=8), _rand(2, ref_len, seed=9)], train=True)
