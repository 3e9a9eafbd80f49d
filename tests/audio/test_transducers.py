"""chainrule.audio.models' Conformer, Emformer, RNNT and RNNTBeamSearch against the real
torchaudio: state_dict layouts, outputs, streaming states and gradients in float64 after
loading torchaudio's weights, and beam-search hypotheses on a tiny transducer."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
import torch

import chainrule
import chainrule.audio.models as cm

# Emformer's attention softmax runs in float32 in torchaudio (``.float()``), so its
# float64 outputs agree to float32 precision only.
EMFORMER_TOL = 2e-6


def _layout(module) -> list[tuple[str, tuple[int, ...]]]:
    return [(k, tuple(v.shape)) for k, v in module.state_dict().items()]


def _load(ours, theirs) -> None:
    ours.load_state_dict(
        {k: chainrule.from_numpy(v.numpy().copy()) for k, v in theirs.state_dict().items()}
    )


def _pair(ta, name: str, *args, **kwargs):
    ours = getattr(cm, name)(*args, **kwargs).double().eval()
    theirs = getattr(ta.models, name)(*args, **kwargs).double().eval()
    assert _layout(ours) == _layout(theirs)
    assert repr(ours) == repr(theirs)
    _load(ours, theirs)
    return theirs, ours


def _close(ours, theirs, tol: float = 1e-10) -> None:
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tol, atol=tol)


def _close_grads(ours, theirs, tol: float = 1e-9) -> None:
    reference = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        np.testing.assert_allclose(
            p.grad.numpy(), reference[name].grad.numpy(), rtol=tol, atol=tol, err_msg=name
        )


@pytest.mark.parametrize(
    "name",
    [
        "Conformer",
        "Emformer",
        "RNNT",
        "RNNTBeamSearch",
        "emformer_rnnt_model",
        "emformer_rnnt_base",
    ],
)
def test_signature_matches(ta, name):
    ours = inspect.signature(getattr(cm, name)).parameters
    theirs = inspect.signature(getattr(ta.models, name)).parameters
    assert [(k, p.default, p.kind) for k, p in ours.items()] == [
        (k, p.default, p.kind) for k, p in theirs.items()
    ]


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"use_group_norm": True, "convolution_first": True}],
)
def test_conformer_forward_and_gradients(ta, kwargs):
    theirs, ours = _pair(ta, "Conformer", 8, 2, 16, 2, 3, dropout=0.1, **kwargs)
    x = np.random.RandomState(0).randn(3, 7, 8)
    lengths = np.array([7, 5, 3])
    xt, xc = torch.tensor(x, requires_grad=True), chainrule.tensor(x, requires_grad=True)
    out_t, len_t = theirs(xt, torch.tensor(lengths))
    out_c, len_c = ours(xc, chainrule.tensor(lengths))
    _close(out_c, out_t)
    assert len_c.tolist() == len_t.tolist()
    w = np.random.RandomState(1).randn(3, 7, 8)
    (out_t * torch.tensor(w)).sum().backward()
    (out_c * chainrule.tensor(w)).sum().backward()
    _close_grads(ours, theirs)
    _close(xc.grad, xt.grad)


def test_conformer_even_kernel_rejected():
    with pytest.raises(
        ValueError, match="depthwise_kernel_size must be odd to achieve 'SAME' padding."
    ):
        cm.Conformer(8, 2, 16, 1, 4)


EMFORMER_CONFIGS = {
    "memory_left_right": {
        "left_context_length": 3,
        "right_context_length": 2,
        "max_memory_size": 2,
    },
    "right_only_gelu": {"right_context_length": 1, "activation": "gelu"},
    "left_tanh_silu": {
        "left_context_length": 2,
        "tanh_on_mem": True,
        "activation": "silu",
        "max_memory_size": 3,
    },
}


@pytest.mark.parametrize("config", sorted(EMFORMER_CONFIGS))
def test_emformer_forward_and_gradients(ta, config):
    kwargs = EMFORMER_CONFIGS[config]
    theirs, ours = _pair(ta, "Emformer", 8, 2, 16, 2, 4, dropout=0.1, **kwargs)
    rc = kwargs.get("right_context_length", 0)
    x = np.random.RandomState(2).randn(3, 11 + rc, 8)
    lengths = np.array([11, 9, 6])
    xt, xc = torch.tensor(x, requires_grad=True), chainrule.tensor(x, requires_grad=True)
    out_t, len_t = theirs(xt, torch.tensor(lengths))
    out_c, len_c = ours(xc, chainrule.tensor(lengths))
    assert out_c.shape == out_t.shape == (3, 11, 8)
    _close(out_c, out_t, EMFORMER_TOL)
    assert len_c.tolist() == len_t.tolist()
    w = np.random.RandomState(3).randn(3, 11, 8)
    (out_t * torch.tensor(w)).sum().backward()
    (out_c * chainrule.tensor(w)).sum().backward()
    _close_grads(ours, theirs, 1e-5)
    _close(xc.grad, xt.grad, 1e-5)


@pytest.mark.parametrize("config", sorted(EMFORMER_CONFIGS))
def test_emformer_infer_streams_states(ta, config):
    kwargs = EMFORMER_CONFIGS[config]
    theirs, ours = _pair(ta, "Emformer", 8, 2, 16, 2, 4, **kwargs)
    rc = kwargs.get("right_context_length", 0)
    rs = np.random.RandomState(4)
    states_t = states_c = None
    for _ in range(3):
        x = rs.randn(2, 4 + rc, 8)
        lengths = np.array([4 + rc, 3 + rc])
        out_t, len_t, states_t = theirs.infer(torch.tensor(x), torch.tensor(lengths), states_t)
        out_c, len_c, states_c = ours.infer(
            chainrule.tensor(x), chainrule.tensor(lengths), states_c
        )
        _close(out_c, out_t, EMFORMER_TOL)
        assert len_c.tolist() == len_t.tolist()
        for layer_t, layer_c in zip(states_t, states_c, strict=True):
            for s_t, s_c in zip(layer_t, layer_c, strict=True):
                assert s_c.shape == s_t.shape
                _close(s_c, s_t, EMFORMER_TOL)


def test_emformer_infer_rejects_wrong_chunk():
    model = cm.Emformer(8, 2, 16, 1, 4, right_context_length=2)
    with pytest.raises(ValueError, match="expected size of 6 for dimension 1 of input, but got 5"):
        model.infer(chainrule.zeros(1, 5, 8), chainrule.tensor([5]))


def test_emformer_errors():
    with pytest.raises(ValueError, match=r"input_dim \(8\) is not a multiple of num_heads \(3\)"):
        cm.Emformer(8, 3, 16, 1, 4)
    with pytest.raises(ValueError, match="Unsupported activation tanh"):
        cm.Emformer(8, 2, 16, 1, 4, activation="tanh")
    with pytest.raises(ValueError, match="Unsupported weight_init_scale_strategy value other"):
        cm.Emformer(8, 2, 16, 1, 4, weight_init_scale_strategy="other")


RNNT_KWARGS = {
    "input_dim": 6,
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


@pytest.fixture(scope="module")
def rnnt_pair(ta):
    return _pair(ta, "emformer_rnnt_model", **RNNT_KWARGS)


def test_emformer_rnnt_base_layout(ta):
    ours, theirs = cm.emformer_rnnt_base(4097), ta.models.emformer_rnnt_base(4097)
    assert _layout(ours) == _layout(theirs)
    assert repr(ours) == repr(theirs)


def test_rnnt_forward_and_gradients(rnnt_pair):
    theirs, ours = rnnt_pair
    theirs.zero_grad()
    ours.zero_grad()
    rs = np.random.RandomState(5)
    x, lengths = rs.randn(2, 18, 6), np.array([18, 15])
    y, y_lengths = rs.randint(0, 4, (2, 3)), np.array([3, 2])
    out_t = theirs(torch.tensor(x), torch.tensor(lengths), torch.tensor(y), torch.tensor(y_lengths))
    out_c = ours(
        chainrule.tensor(x),
        chainrule.tensor(lengths),
        chainrule.tensor(y),
        chainrule.tensor(y_lengths),
    )
    assert out_c[0].shape == out_t[0].shape == (2, 8, 3, 5)
    _close(out_c[0], out_t[0], EMFORMER_TOL)
    assert out_c[1].tolist() == out_t[1].tolist() == [9, 7]
    assert out_c[2].tolist() == out_t[2].tolist()
    for layer_t, layer_c in zip(out_t[3], out_c[3], strict=True):
        for s_t, s_c in zip(layer_t, layer_c, strict=True):
            _close(s_c, s_t)
    w = rs.randn(2, 8, 3, 5)
    (out_t[0] * torch.tensor(w)).sum().backward()
    (out_c[0] * chainrule.tensor(w)).sum().backward()
    _close_grads(ours, theirs, 1e-5)


def test_rnnt_streaming_and_predictor_state(rnnt_pair):
    theirs, ours = rnnt_pair
    rs = np.random.RandomState(6)
    state_t = state_c = None
    for _ in range(2):
        x = rs.randn(1, 6, 6)
        enc_t, len_t, state_t = theirs.transcribe_streaming(
            torch.tensor(x), torch.tensor([6]), state_t
        )
        enc_c, len_c, state_c = ours.transcribe_streaming(
            chainrule.tensor(x), chainrule.tensor([6]), state_c
        )
        _close(enc_c, enc_t, EMFORMER_TOL)
        assert len_c.tolist() == len_t.tolist() == [2]
    tokens = np.array([[1, 2]])
    pred_t, _, pstate_t = theirs.predict(torch.tensor(tokens), torch.tensor([2]), None)
    pred_c, _, pstate_c = ours.predict(chainrule.tensor(tokens), chainrule.tensor([2]), None)
    pred2_t, _, _ = theirs.predict(torch.tensor([[3]]), torch.tensor([1]), pstate_t)
    pred2_c, _, _ = ours.predict(chainrule.tensor([[3]]), chainrule.tensor([1]), pstate_c)
    _close(pred_c, pred_t)
    _close(pred2_c, pred2_t)
    joint_t = theirs.join(enc_t, len_t, pred_t, torch.tensor([2]))[0]
    joint_c = ours.join(enc_c, len_c, pred_c, chainrule.tensor([2]))[0]
    _close(joint_c, joint_t, EMFORMER_TOL)


def _same_hypotheses(hyps_c, hyps_t) -> None:
    assert [h[0] for h in hyps_c] == [h[0] for h in hyps_t]
    for h_c, h_t in zip(hyps_c, hyps_t, strict=True):
        assert abs(h_c[3] - h_t[3]) < 1e-6
        _close(h_c[1], h_t[1], 1e-9)
        assert len(h_c[2]) == len(h_t[2])


@pytest.mark.parametrize("beam_width", [1, 3])
def test_beam_search_hypotheses(ta, rnnt_pair, beam_width):
    theirs, ours = rnnt_pair
    search_t = ta.models.RNNTBeamSearch(theirs, 4)
    search_c = cm.RNNTBeamSearch(ours, 4)
    x = np.random.RandomState(7).randn(18, 6)
    with torch.no_grad():
        hyps_t = search_t(torch.tensor(x), torch.tensor(18), beam_width)
    with chainrule.no_grad():
        hyps_c = search_c(chainrule.tensor(x), chainrule.tensor(18), beam_width)
    assert len(hyps_c) == beam_width
    _same_hypotheses(hyps_c, hyps_t)


def test_beam_search_streaming_infer(ta, rnnt_pair):
    theirs, ours = rnnt_pair
    search_t = ta.models.RNNTBeamSearch(theirs, 4, temperature=0.7, step_max_tokens=2)
    search_c = cm.RNNTBeamSearch(ours, 4, temperature=0.7, step_max_tokens=2)
    rs = np.random.RandomState(8)
    hyps_t = hyps_c = state_t = state_c = None
    for _ in range(3):
        x = rs.randn(1, 6, 6)
        with torch.no_grad():
            hyps_t, state_t = search_t.infer(torch.tensor(x), torch.tensor(6), 3, state_t, hyps_t)
        with chainrule.no_grad():
            hyps_c, state_c = search_c.infer(
                chainrule.tensor(x), chainrule.tensor(6), 3, state_c, hyps_c
            )
        _same_hypotheses(hyps_c, hyps_t)


def test_beam_search_input_checks():
    search = cm.RNNTBeamSearch(cm.emformer_rnnt_model(**RNNT_KWARGS), 4)
    with pytest.raises(ValueError, match=r"input must be of shape \(T, D\) or \(1, T, D\)"):
        search(chainrule.zeros(2, 18, 6), chainrule.tensor(18), 2)
    with pytest.raises(ValueError, match=r"length must be of shape \(\) or \(1,\)"):
        search(chainrule.zeros(18, 6), chainrule.tensor([18, 18]), 2)


def test_hypothesis_alias(ta):
    assert cm.Hypothesis.__origin__ is ta.models.Hypothesis.__origin__ is tuple
    assert len(cm.Hypothesis.__args__) == 4
    assert cm.Hypothesis.__args__[3] is float


@pytest.mark.parametrize(
    "cls, method",
    [
        ("Conformer", "forward"),
        ("Emformer", "forward"),
        ("Emformer", "infer"),
        ("RNNT", "forward"),
        ("RNNT", "transcribe_streaming"),
        ("RNNT", "transcribe"),
        ("RNNT", "predict"),
        ("RNNT", "join"),
        ("RNNTBeamSearch", "forward"),
        ("RNNTBeamSearch", "infer"),
    ],
)
def test_method_signature_matches(ta, cls, method):
    ours = inspect.signature(getattr(getattr(cm, cls), method)).parameters
    theirs = inspect.signature(getattr(getattr(ta.models, cls), method)).parameters
    assert [(k, p.default) for k, p in ours.items()] == [(k, p.default) for k, p in theirs.items()]
