"""chainrule.audio.models' wav2vec 2.0 / HuBERT / WavLM against the real torchaudio:
state_dict layouts of the builders, and outputs and gradients of small configurations
in float64 after loading torchaudio's weights."""

from __future__ import annotations

import inspect
import warnings
from types import SimpleNamespace

import numpy as np
import pytest
import torch

import chainrule
import chainrule.audio.models as cm
from chainrule.audio.models.wav2vec2 import components as c_components
from chainrule.audio.models.wav2vec2 import model as c_model

BUILDERS = [
    "wav2vec2_base",
    "wav2vec2_large",
    "wav2vec2_large_lv60k",
    "wav2vec2_xlsr_300m",
    "wav2vec2_xlsr_1b",
    "wav2vec2_xlsr_2b",
    "hubert_base",
    "hubert_large",
    "hubert_xlarge",
    "hubert_pretrain_base",
    "hubert_pretrain_large",
    "hubert_pretrain_xlarge",
    "wavlm_base",
    "wavlm_large",
]
CONV = [(8, 10, 5), (8, 3, 2), (8, 2, 2)]


def _layout(module) -> list[tuple[str, tuple[int, ...]]]:
    return [(k, tuple(v.shape)) for k, v in module.state_dict().items()]


def _pair(ta, name: str, *args, **kwargs):
    """torchaudio's and chainrule's model, float64, eval mode, same weights."""
    ours = getattr(cm, name)(*args, **kwargs).double().eval()
    theirs = getattr(ta.models, name)(*args, **kwargs).double().eval()
    assert _layout(ours) == _layout(theirs)
    assert repr(ours) == repr(theirs)
    ours.load_state_dict(
        {k: chainrule.from_numpy(v.numpy().copy()) for k, v in theirs.state_dict().items()}
    )
    return theirs, ours


def _close(ours, theirs, tol: float = 1e-10) -> None:
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tol, atol=tol)


def _close_grads(ours, theirs, tol: float = 1e-9) -> None:
    reference = dict(theirs.named_parameters())
    checked = 0
    for name, p in ours.named_parameters():
        if reference[name].grad is None:
            assert p.grad is None or not p.grad.numpy().any(), name
            continue
        np.testing.assert_allclose(
            p.grad.numpy(), reference[name].grad.numpy(), rtol=tol, atol=tol, err_msg=name
        )
        checked += 1
    assert checked > 0


def _wave(batch: int = 2, time: int = 600, seed: int = 0) -> np.ndarray:
    return np.random.RandomState(seed).randn(batch, time)


@pytest.mark.parametrize("name", BUILDERS)
def test_signature_matches(ta, name):
    assert inspect.signature(getattr(cm, name)).parameters.keys() == (
        inspect.signature(getattr(ta.models, name)).parameters.keys()
    )
    ours = {k: p.default for k, p in inspect.signature(getattr(cm, name)).parameters.items()}
    theirs = {
        k: p.default for k, p in inspect.signature(getattr(ta.models, name)).parameters.items()
    }
    assert ours == theirs


@pytest.mark.parametrize("name", BUILDERS)
def test_builder_config_matches(ta, monkeypatch, name):
    """Every builder passes torchaudio's hyper-parameters to the generic factory."""
    calls = {}
    for module, side in ((ta.models.wav2vec2.model, "theirs"), (c_model, "ours")):
        for factory in ("wav2vec2_model", "hubert_pretrain_model", "wavlm_model"):
            monkeypatch.setattr(
                module,
                factory,
                lambda *a, _s=side, _f=factory, **k: calls.setdefault(_s, (_f, a, k)),
            )
    getattr(ta.models, name)()
    getattr(cm, name)()
    assert calls["ours"] == calls["theirs"]


@pytest.mark.parametrize(
    "name, kwargs",
    [("wav2vec2_base", {"aux_num_out": 32}), ("hubert_pretrain_base", {}), ("wavlm_base", {})],
)
def test_base_builder_state_dict_layout(ta, name, kwargs):
    ours = getattr(cm, name)(**kwargs)
    theirs = getattr(ta.models, name)(**kwargs)
    assert _layout(ours) == _layout(theirs)
    assert repr(ours) == repr(theirs)


W2V_CONFIGS = {
    "base_like_aux": (
        "group_norm",
        CONV,
        False,
        16,
        0.1,
        8,
        4,
        2,
        2,
        0.1,
        24,
        0.1,
        0.1,
        False,
        0.1,
        5,
    ),
    "large_like": (
        "layer_norm",
        CONV,
        True,
        16,
        0.1,
        7,
        4,
        2,
        2,
        0.1,
        24,
        0.1,
        0.1,
        True,
        0.1,
        None,
    ),
}


@pytest.mark.parametrize("config", sorted(W2V_CONFIGS))
@pytest.mark.parametrize("with_lengths", [False, True])
def test_wav2vec2_forward_and_gradients(ta, config, with_lengths):
    theirs, ours = _pair(ta, "wav2vec2_model", *W2V_CONFIGS[config])
    x = _wave()
    lengths = np.array([600, 430]) if with_lengths else None
    xt = torch.tensor(x, requires_grad=True)
    xc = chainrule.tensor(x, requires_grad=True)
    out_t, len_t = theirs(xt, None if lengths is None else torch.tensor(lengths))
    out_c, len_c = ours(xc, None if lengths is None else chainrule.tensor(lengths))
    _close(out_c, out_t)
    if with_lengths:
        assert len_c.tolist() == len_t.tolist() == [29, 21]
    else:
        assert len_c is None and len_t is None
    weight = np.random.RandomState(1).randn(*out_t.shape)
    (out_t * torch.tensor(weight)).sum().backward()
    (out_c * chainrule.tensor(weight)).sum().backward()
    _close_grads(ours, theirs)
    _close(xc.grad, xt.grad, 1e-9)


@pytest.mark.parametrize("num_layers", [None, 1])
def test_extract_features(ta, num_layers):
    theirs, ours = _pair(ta, "wav2vec2_model", *W2V_CONFIGS["large_like"])
    x = _wave(seed=3)
    lengths = np.array([510, 600])
    feats_t, len_t = theirs.extract_features(torch.tensor(x), torch.tensor(lengths), num_layers)
    feats_c, len_c = ours.extract_features(
        chainrule.tensor(x), chainrule.tensor(lengths), num_layers
    )
    assert len(feats_c) == len(feats_t) == (num_layers or 2)
    for a, b in zip(feats_c, feats_t):
        _close(a, b)
    assert len_c.tolist() == len_t.tolist()


def test_extract_features_num_layers_out_of_range():
    model = cm.wav2vec2_model(*W2V_CONFIGS["large_like"])
    with pytest.raises(ValueError, match=r"`num_layers` must be between \[1, 2\]"):
        model.extract_features(chainrule.zeros(1, 600), num_layers=3)


def test_training_mode_layer_drop_and_dropout_change_output():
    chainrule.manual_seed(0)
    model = cm.wav2vec2_model(*W2V_CONFIGS["base_like_aux"][:-2], 0.9, None).train()
    x = chainrule.tensor(_wave()).float()
    outputs = {tuple(np.round(model(x)[0].detach().numpy().ravel()[:4], 12)) for _ in range(4)}
    assert len(outputs) > 1
    model.eval()
    assert np.array_equal(model(x)[0].detach().numpy(), model(x)[0].detach().numpy())


WAVLM_CONFIGS = {
    "post_norm": (
        "group_norm",
        CONV,
        False,
        16,
        0.1,
        8,
        4,
        2,
        2,
        8,
        6,
        0.1,
        24,
        0.1,
        0.1,
        False,
        0.1,
        None,
    ),
    "pre_norm_aux": (
        "layer_norm",
        CONV,
        False,
        16,
        0.1,
        8,
        4,
        2,
        2,
        10,
        12,
        0.1,
        24,
        0.1,
        0.1,
        True,
        0.1,
        3,
    ),
}


@pytest.mark.parametrize("config", sorted(WAVLM_CONFIGS))
def test_wavlm_forward_and_gradients(ta, config):
    """Gated relative position bias with log-spaced buckets (29 frames > max_distance)."""
    theirs, ours = _pair(ta, "wavlm_model", *WAVLM_CONFIGS[config])
    x = _wave(seed=5)
    out_t, _ = theirs(torch.tensor(x))
    out_c, _ = ours(chainrule.tensor(x))
    _close(out_c, out_t)
    out_t.pow(2).sum().backward()
    out_c.pow(2).sum().backward()
    _close_grads(ours, theirs)
    feats_t, _ = theirs.extract_features(torch.tensor(x), None, 1)
    feats_c, _ = ours.extract_features(chainrule.tensor(x), None, 1)
    _close(feats_c[0], feats_t[0])


def test_wavlm_attention_key_padding_mask(ta):
    ours = cm.wavlm_model(*WAVLM_CONFIGS["post_norm"]).double().eval()
    theirs = ta.models.wavlm_model(*WAVLM_CONFIGS["post_norm"]).double().eval()
    ours.load_state_dict(
        {k: chainrule.from_numpy(v.numpy().copy()) for k, v in theirs.state_dict().items()}
    )
    att_c = ours.encoder.transformer.layers[0].attention
    att_t = theirs.encoder.transformer.layers[0].attention
    x = np.random.RandomState(2).randn(2, 9, 16)
    pad = np.arange(9)[None, :] >= np.array([[9], [6]])
    out_t, bias_t = att_t(torch.tensor(x), key_padding_mask=torch.tensor(pad))
    out_c, bias_c = att_c(chainrule.tensor(x), key_padding_mask=chainrule.tensor(pad))
    _close(out_c, out_t)
    _close(bias_c, bias_t)


def test_wavlm_with_lengths_is_rejected_like_torchaudio(ta):
    """torchaudio's WavLM attention asserts that no attention mask is passed."""
    args = WAVLM_CONFIGS["post_norm"]
    x, lengths = _wave(), np.array([600, 400])
    with pytest.raises(AssertionError):
        ta.models.wavlm_model(*args).eval()(torch.tensor(x).float(), torch.tensor(lengths))
    with pytest.raises(AssertionError):
        cm.wavlm_model(*args).eval()(chainrule.tensor(x).float(), chainrule.tensor(lengths))


HUBERT_ARGS = (
    "group_norm", CONV, False, 16, 0.0, 8, 4, 2, 2, 0.0, 24, 0.0, 0.0, False, 0.0,
    0.8, "static", 0.0, 3, False, 1, 0.0, "static", 0.0, 2, False, 1,
    False, False, 6, 12, 0.1,
)  # fmt: skip


def test_hubert_pretrain_forward_and_gradients(ta, monkeypatch):
    """Same fixed time mask in both (the masks are random): logits on masked and unmasked
    frames, the feature penalty, and gradients through GradMultiply."""
    theirs, ours = _pair(ta, "hubert_pretrain_model", *HUBERT_ARGS)
    fixed = np.zeros((2, 29), dtype=bool)
    fixed[0, 3:9] = fixed[1, 10:16] = True
    monkeypatch.setattr(
        ta.models.wav2vec2.components, "_compute_mask_indices", lambda *a, **k: torch.tensor(fixed)
    )
    monkeypatch.setattr(
        c_components, "_compute_mask_indices", lambda *a, **k: chainrule.tensor(fixed)
    )
    x = _wave()
    labels = np.random.RandomState(4).randint(0, 6, (2, 29))
    labels[1, 11] = labels[1, 12]
    lengths = np.array([600, 500])
    logit_m_t, logit_u_t, pen_t = theirs(
        torch.tensor(x), torch.tensor(labels), torch.tensor(lengths)
    )
    logit_m_c, logit_u_c, pen_c = ours(
        chainrule.tensor(x), chainrule.tensor(labels), chainrule.tensor(lengths)
    )
    assert logit_m_c.shape == logit_m_t.shape == (12, 7)
    assert logit_u_c.shape == logit_u_t.shape
    # torchaudio takes the cosine similarities in float32
    _close(logit_m_c, logit_m_t, 1e-5)
    _close(logit_u_c, logit_u_t, 1e-5)
    _close(pen_c, pen_t, 1e-6)  # float32 in both
    finite = np.isfinite(logit_u_t.detach().numpy())
    assert not finite.all()
    w = np.random.RandomState(6).randn(*logit_u_t.shape) * finite
    loss_t = (
        (torch.where(torch.tensor(finite), logit_u_t, 0.0) * torch.tensor(w)).sum()
        + logit_m_t.sum()
        + pen_t
    )
    loss_c = (chainrule.where(chainrule.tensor(finite), logit_u_c, 0.0) * chainrule.tensor(w)).sum()
    (loss_c + logit_m_c.sum() + pen_c).backward()
    loss_t.backward()
    _close_grads(ours, theirs, 1e-5)


def test_hubert_label_length_mismatch_raises():
    model = cm.hubert_pretrain_model(*HUBERT_ARGS)
    with pytest.raises(
        ValueError, match="The length of label must match that of HuBERT model output"
    ):
        model(chainrule.zeros(1, 600), chainrule.zeros(1, 5, dtype=chainrule.long))


def test_compute_mask_indices_properties():
    chainrule.manual_seed(3)
    padding = chainrule.tensor(np.arange(50)[None, :] >= np.array([[50], [40], [30]]))
    mask = c_components._compute_mask_indices((3, 50), padding, 0.5, 4, min_masks=2)
    assert mask.shape == (3, 50) and mask.dtype == chainrule.bool
    counts = mask.numpy().sum(1)
    assert len(set(counts.tolist())) == 1 and counts[0] >= 4
    assert not (mask.numpy() & padding.numpy()).any()
    chainrule.manual_seed(3)
    again = c_components._compute_mask_indices((3, 50), padding, 0.5, 4, min_masks=2)
    assert np.array_equal(mask.numpy(), again.numpy())
    spaced = c_components._compute_mask_indices((2, 60), None, 0.3, 3, no_overlap=True, min_space=1)
    assert spaced.shape == (2, 60) and spaced.numpy().any()


def test_errors_match_torchaudio():
    with pytest.raises(
        ValueError, match=r"Expected the input Tensor to be 2D \(batch, time\). Found: \[600\]"
    ):
        cm.wav2vec2_model(*W2V_CONFIGS["large_like"])(chainrule.zeros(600))
    with pytest.raises(ValueError, match="Invalid norm mode"):
        cm.wav2vec2_model("batch_norm", *W2V_CONFIGS["large_like"][1:])
    with pytest.raises(ValueError, match="must be ``None``or between"):
        cm.hubert_pretrain_model(*HUBERT_ARGS[:-1], 1.5)
    with pytest.raises(
        ValueError, match=r"`embed_dim \(16\)` is not divisible by `num_heads \(3\)`"
    ):
        c_components.SelfAttention(16, 3)


# ----- utils: import_huggingface_model / import_fairseq_model -------------------------------


def _hf_config(wavlm: bool, stable: bool) -> SimpleNamespace:
    return SimpleNamespace(
        feat_extract_norm="layer" if stable else "group",
        conv_dim=[c[0] for c in CONV],
        conv_kernel=[c[1] for c in CONV],
        conv_stride=[c[2] for c in CONV],
        conv_bias=stable,
        hidden_size=16,
        feat_proj_dropout=0.1,
        num_conv_pos_embeddings=8,
        num_conv_pos_embedding_groups=4,
        num_hidden_layers=2,
        num_attention_heads=2,
        attention_dropout=0.1,
        intermediate_size=24,
        activation_dropout=0.0,
        hidden_dropout=0.1,
        do_stable_layer_norm=stable,
        layerdrop=0.05,
        vocab_size=5,
        num_buckets=8,
        max_bucket_distance=6,
    )


class _StateDict:
    """Stands in for a module of which only ``state_dict()`` is read."""

    def __init__(self, state: dict) -> None:
        self.state = state

    def state_dict(self) -> dict:
        return dict(self.state)


def _fake_huggingface(ta, class_name: str, stable: bool):
    """A ``transformers``-like model (class name, config, submodules with HF's key names),
    made from a random torchaudio model."""
    wavlm = class_name.startswith("WavLM")
    ctc = class_name.endswith("ForCTC")
    cfg = _hf_config(wavlm, stable)
    args = ta.models.wav2vec2.utils.import_huggingface._get_config_wavlm(cfg) if wavlm else None
    if wavlm:
        source = ta.models.wavlm_model(**args, aux_num_out=5 if ctc else None)
    else:
        source = ta.models.wav2vec2_model(
            **ta.models.wav2vec2.utils.import_huggingface._get_config(cfg),
            aux_num_out=5 if ctc else None,
        )
    encoder_state = dict(source.encoder.transformer.state_dict())
    if wavlm:
        for i in range(2):
            p = f"layers.{i}.attention."
            for kind in ("weight", "bias"):
                q, k, v = encoder_state.pop(f"{p}attention.in_proj_{kind}").chunk(3)
                encoder_state.update(
                    {f"{p}q_proj.{kind}": q, f"{p}k_proj.{kind}": k, f"{p}v_proj.{kind}": v}
                )
                encoder_state[f"{p}out_proj.{kind}"] = encoder_state.pop(
                    f"{p}attention.out_proj.{kind}"
                )
    body = SimpleNamespace(
        feature_extractor=source.feature_extractor,
        feature_projection=source.encoder.feature_projection,
        encoder=_StateDict(encoder_state),
    )
    fake = type(class_name, (), {})()
    fake.config = cfg
    if ctc:
        fake.wav2vec2, fake.lm_head = body, source.aux
    else:
        vars(fake).update(vars(body))
    return fake


@pytest.mark.parametrize(
    "class_name, stable",
    [
        ("Wav2Vec2ForCTC", False),
        ("Wav2Vec2Model", True),
        ("HubertModel", False),
        ("WavLMForCTC", True),
        ("WavLMModel", False),
    ],
)
def test_import_huggingface_model_matches(ta, class_name, stable):
    fake = _fake_huggingface(ta, class_name, stable)
    theirs = ta.models.wav2vec2.utils.import_huggingface_model(fake).double().eval()
    ours = cm.wav2vec2.utils.import_huggingface_model(fake).double().eval()
    assert repr(ours) == repr(theirs)
    reference = theirs.state_dict()
    for key, value in ours.state_dict().items():
        np.testing.assert_array_equal(value.numpy(), reference[key].numpy(), err_msg=key)
    assert ours.state_dict().keys() == reference.keys()
    x = _wave(1, 500, seed=9)
    _close(ours(chainrule.tensor(x))[0], theirs(torch.tensor(x))[0])


class _FairseqAttention(torch.nn.Module):
    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.num_heads = heads
        self.dropout_module = torch.nn.Dropout(0.1)
        for name in ("k_proj", "v_proj", "q_proj", "out_proj"):
            setattr(self, name, torch.nn.Linear(dim, dim))


class _FairseqLayer(torch.nn.Module):
    def __init__(self, dim: int, heads: int, ff: int) -> None:
        super().__init__()
        self.self_attn = _FairseqAttention(dim, heads)
        self.dropout2, self.dropout3 = torch.nn.Dropout(0.0), torch.nn.Dropout(0.1)
        self.self_attn_layer_norm = torch.nn.LayerNorm(dim)
        self.fc1, self.fc2 = torch.nn.Linear(dim, ff), torch.nn.Linear(ff, dim)
        self.final_layer_norm = torch.nn.LayerNorm(dim)


class _FairseqEncoder(torch.nn.Module):
    def __init__(self, dim: int, layer_norm_first: bool) -> None:
        super().__init__()
        conv = torch.nn.Conv1d(dim, dim, 8, padding=4, groups=4)
        with (
            warnings.catch_warnings()
        ):  # fairseq's checkpoints use the old weight_g / weight_v names
            warnings.simplefilter("ignore", FutureWarning)
            conv = torch.nn.utils.weight_norm(conv, name="weight", dim=2)
        self.pos_conv = torch.nn.Sequential(conv, torch.nn.GELU())
        self.layers = torch.nn.ModuleList([_FairseqLayer(dim, 2, 24) for _ in range(2)])
        self.layer_norm = torch.nn.LayerNorm(dim)
        self.layer_norm_first = layer_norm_first
        self.layerdrop = 0.05


class _FairseqExtractor(torch.nn.Module):
    def __init__(self, layer_norm: bool) -> None:
        super().__init__()
        blocks, cin = [], 1
        for i, (cout, k, s) in enumerate(CONV):
            if layer_norm:
                norm = torch.nn.Sequential(torch.nn.Identity(), torch.nn.LayerNorm(cout))
            else:
                norm = torch.nn.GroupNorm(cout, cout) if i == 0 else torch.nn.GELU()
            blocks.append(
                torch.nn.Sequential(
                    torch.nn.Conv1d(cin, cout, k, stride=s, bias=layer_norm),
                    torch.nn.Dropout(0.0),
                    norm,
                )
            )
            cin = cout
        self.conv_layers = torch.nn.ModuleList(blocks)


def _fake_fairseq_pretrained(class_name: str, layer_norm: bool) -> torch.nn.Module:
    model = type(class_name, (torch.nn.Module,), {})()
    model.feature_extractor = _FairseqExtractor(layer_norm)
    model.post_extract_proj = torch.nn.Linear(8, 16)
    model.dropout_input = torch.nn.Dropout(0.1)
    model.layer_norm = torch.nn.LayerNorm(8)
    model.encoder = _FairseqEncoder(16, layer_norm)
    model.mask_emb = torch.nn.Parameter(torch.rand(16))
    model.final_proj = torch.nn.Linear(16, 4)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn(p.shape) * 0.1)
    return model


@pytest.mark.parametrize(
    "class_name, layer_norm",
    [
        ("Wav2Vec2Model", False),
        ("HubertModel", True),
        ("Wav2VecEncoder", True),
        ("HubertEncoder", False),
    ],
)
def test_import_fairseq_model_matches(ta, class_name, layer_norm):
    if class_name.endswith("Encoder"):
        fake = type(class_name, (torch.nn.Module,), {})()
        fake.w2v_model = _fake_fairseq_pretrained("Wav2Vec2Model", layer_norm)
        fake.proj = torch.nn.Linear(16, 5)
    else:
        fake = _fake_fairseq_pretrained(class_name, layer_norm)
    theirs = ta.models.wav2vec2.utils.import_fairseq_model(fake).double().eval()
    ours = cm.wav2vec2.utils.import_fairseq_model(fake).double().eval()
    assert repr(ours) == repr(theirs)
    reference = theirs.state_dict()
    for key, value in ours.state_dict().items():
        np.testing.assert_allclose(value.numpy(), reference[key].numpy(), rtol=1e-7, err_msg=key)
    x = _wave(1, 500, seed=10)
    _close(ours(chainrule.tensor(x))[0], theirs(torch.tensor(x))[0], 1e-8)


def test_import_fairseq_model_rejects_unknown_class():
    with pytest.raises(
        ValueError,
        match="Expected an instance of `Wav2Vec2Model` or `Wav2VecEncoder`. Found: Linear",
    ):
        cm.wav2vec2.utils.import_fairseq_model(torch.nn.Linear(2, 2))


@pytest.mark.parametrize(
    "cls, method",
    [
        ("Wav2Vec2Model", "__init__"),
        ("Wav2Vec2Model", "forward"),
        ("Wav2Vec2Model", "extract_features"),
        ("HuBERTPretrainModel", "__init__"),
        ("HuBERTPretrainModel", "forward"),
    ],
)
def test_method_signature_matches(ta, cls, method):
    ours = inspect.signature(getattr(getattr(cm, cls), method)).parameters
    theirs = inspect.signature(getattr(getattr(ta.models, cls), method)).parameters
    assert [(k, p.default) for k, p in ours.items()] == [(k, p.default) for k, p in theirs.items()]


def test_hubert_pretrain_initialisation():
    """BERT-style N(0, 0.02^2) Transformer weights with zero biases; uniform [0, 1) label
    embeddings and mask embedding."""
    chainrule.manual_seed(0)
    args = list(HUBERT_ARGS)
    args[3], args[10] = 64, 256  # encoder_embed_dim, encoder_ff_interm_features
    model = cm.hubert_pretrain_model(*args)
    layer = model.wav2vec2.encoder.transformer.layers[0]
    weight = layer.feed_forward.intermediate_dense.weight.detach().numpy()
    assert abs(weight.std() - 0.02) < 0.002 and abs(weight.mean()) < 0.002
    assert not layer.attention.q_proj.bias.detach().numpy().any()
    labels = model.logit_generator.label_embeddings.detach().numpy()
    assert labels.min() >= 0.0 and labels.max() < 1.0
    mask = model.mask_generator.mask_embedding.detach().numpy()
    assert mask.shape == (64,) and mask.min() >= 0.0 and mask.max() < 1.0


@pytest.mark.parametrize("bidirectional", [True, False])
def test_wavlm_relative_position_buckets(ta, bidirectional):
    ours = c_components.WavLMSelfAttention(
        16, 2, has_relative_attention_bias=True, num_buckets=12, max_distance=20
    )
    theirs = ta.models.wav2vec2.wavlm_attention.WavLMSelfAttention(
        16, 2, has_relative_attention_bias=True, num_buckets=12, max_distance=20
    )
    offsets = np.arange(-40, 41)[None, :] - np.arange(0, 5)[:, None]
    got = ours._relative_positions_bucket(chainrule.tensor(offsets), bidirectional=bidirectional)
    want = theirs._relative_positions_bucket(torch.tensor(offsets), bidirectional=bidirectional)
    assert got.tolist() == want.tolist()


def test_mask_generator_replaces_frames_and_zeroes_channels():
    chainrule.manual_seed(1)
    generator = c_components.MaskGenerator(
        16, 0.5, "static", 0.0, 3, False, 1, 0.4, "static", 0.0, 2, False, 1
    )
    x = chainrule.tensor(np.random.RandomState(0).randn(2, 30, 16) + 5.0).float()
    out, mask = generator(x, None)
    out, mask = out.detach().numpy(), mask.numpy()
    assert mask.shape == (2, 30) and mask.sum(1)[0] == mask.sum(1)[1] >= 6
    zero_channels = (out == 0).all(axis=1)
    assert zero_channels.any()
    embedding = generator.mask_embedding.detach().numpy()
    for b in range(2):
        kept = ~zero_channels[b]
        np.testing.assert_array_equal(
            out[b][mask[b]][:, kept], np.broadcast_to(embedding[kept], (mask[b].sum(), kept.sum()))
        )
        np.testing.assert_array_equal(out[b][~mask[b]][:, kept], x.numpy()[b][~mask[b]][:, kept])
