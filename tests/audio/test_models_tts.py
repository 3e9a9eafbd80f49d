"""torchaudio's Tacotron2 against the real torchaudio: state-dict layout of the default
model, and for a small configuration the float64 outputs of ``forward`` (eval and train
mode) and ``infer`` and the parameter gradients after loading torchaudio's randomised
state dict. Dropout is random in both libraries with different streams, and the prenet's
dropout is on even in eval mode, so the exact comparisons patch ``dropout`` to the
identity in both; the prenet's dropout itself is checked by its statistics."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import chainrule
from chainrule.audio import models as cm
from chainrule.audio.models import tacotron2 as ours_module

CONFIG = dict(
    n_mels=4,
    n_symbol=10,
    symbol_embedding_dim=6,
    encoder_embedding_dim=6,
    encoder_n_convolution=2,
    encoder_kernel_size=3,
    decoder_rnn_dim=7,
    decoder_max_step=6,
    attention_rnn_dim=5,
    attention_hidden_dim=4,
    attention_location_n_filter=3,
    attention_location_kernel_size=5,
    prenet_dim=5,
    postnet_n_convolution=3,
    postnet_kernel_size=3,
    postnet_embedding_dim=4,
)
TOKENS = np.array([[1, 4, 2, 7, 3], [5, 2, 9, 0, 0]])
TOKEN_LENGTHS = np.array([5, 3])
MEL = np.random.default_rng(0).standard_normal((2, 4, 6))
MEL_LENGTHS = np.array([6, 4])


def _layout(module):
    return [(k, tuple(v.shape)) for k, v in module.state_dict().items()]


@pytest.fixture
def no_dropout(monkeypatch):
    """``F.dropout`` as the identity in torch and chainrule."""

    def identity(x, p=0.5, training=True, inplace=False):
        return x

    monkeypatch.setattr(torch.nn.functional, "dropout", identity)
    monkeypatch.setattr(chainrule.nn.functional, "dropout", identity)


def _pair(ta, **extra):
    torch.manual_seed(0)
    theirs = ta.models.Tacotron2(**CONFIG, **extra).double()
    gen = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for p in theirs.parameters():
            p.add_(torch.randn(p.shape, generator=gen, dtype=p.dtype) * 0.3)
        for name, b in theirs.named_buffers():
            if name.endswith("running_mean"):
                b.copy_(torch.randn(b.shape, generator=gen) * 0.1)
            elif name.endswith("running_var"):
                b.copy_(torch.rand(b.shape, generator=gen) + 0.5)
    ours = cm.Tacotron2(**CONFIG, **extra).double()
    assert _layout(ours) == _layout(theirs)
    ours.load_state_dict(
        {k: chainrule.from_numpy(v.numpy().copy()) for k, v in theirs.state_dict().items()}
    )
    return theirs, ours


def _close(ours, theirs, tol=1e-9):
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tol, atol=tol)


def test_tacotron2_default_layout(ta):
    with torch.device("meta"):
        theirs = ta.models.Tacotron2()
    with chainrule.device("meta"):
        ours = cm.Tacotron2()
    assert _layout(ours) == _layout(theirs)
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("train", [False, True])
def test_tacotron2_forward_matches(ta, no_dropout, train):
    theirs, ours = _pair(ta)
    theirs.train(train)
    ours.train(train)
    args = [TOKENS, TOKEN_LENGTHS, MEL, MEL_LENGTHS]
    out_t = theirs(*[torch.from_numpy(a) for a in args])
    out_c = ours(*[chainrule.from_numpy(a) for a in args])
    rng = np.random.default_rng(1)
    loss_t, loss_c = 0, 0
    for y_c, y_t in zip(out_c, out_t):
        _close(y_c, y_t)
        w = rng.standard_normal(tuple(y_t.shape))
        loss_t = loss_t + (y_t * torch.from_numpy(w)).sum()
        loss_c = loss_c + (y_c * chainrule.from_numpy(w)).sum()
    loss_t.backward()
    loss_c.backward()
    grads_c = dict(ours.named_parameters())
    for name, p in theirs.named_parameters():
        _close(grads_c[name].grad, p.grad)


def test_tacotron2_mask_padding_matches(ta, no_dropout):
    theirs, ours = _pair(ta, mask_padding=True)
    theirs.eval()
    ours.eval()
    args = [TOKENS, TOKEN_LENGTHS, MEL, MEL_LENGTHS]
    with torch.no_grad():
        out_t = theirs(*[torch.from_numpy(a) for a in args])
    with chainrule.no_grad():
        out_c = ours(*[chainrule.from_numpy(a) for a in args])
    for y_c, y_t in zip(out_c, out_t):
        _close(y_c, y_t)
    assert float(out_c[2][1, 5]) == 1e3 and float(out_c[1][1, :, 4:].abs().sum()) == 0.0


@pytest.mark.parametrize("gate_bias", [-5.0, -0.5, -0.37, 30.0])
def test_tacotron2_infer_matches(ta, no_dropout, gate_bias):
    theirs, ours = _pair(ta)
    theirs.eval()
    ours.eval()
    with torch.no_grad():
        theirs.decoder.gate_layer.bias.fill_(gate_bias)
    ours.decoder.gate_layer.bias.data.fill_(gate_bias)
    with warnings.catch_warnings(record=True) as caught_t, torch.no_grad():
        warnings.simplefilter("always")
        out_t = theirs.infer(torch.from_numpy(TOKENS), torch.from_numpy(TOKEN_LENGTHS))
    with warnings.catch_warnings(record=True) as caught_c:
        warnings.simplefilter("always")
        out_c = ours.infer(chainrule.from_numpy(TOKENS), chainrule.from_numpy(TOKEN_LENGTHS))
    assert [str(w.message) for w in caught_c] == [str(w.message) for w in caught_t]
    _close(out_c[0], out_t[0])
    assert out_c[1].dtype == chainrule.int32
    np.testing.assert_array_equal(out_c[1].numpy(), out_t[1].numpy())
    _close(out_c[2], out_t[2])


def test_tacotron2_infer_without_lengths_matches(ta, no_dropout):
    theirs, ours = _pair(ta, decoder_early_stopping=False)
    theirs.eval()
    ours.eval()
    tokens = TOKENS[:, :3]
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out_t = theirs.infer(torch.from_numpy(tokens))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out_c = ours.infer(chainrule.from_numpy(tokens))
    for y_c, y_t in zip(out_c, out_t):
        _close(y_c, y_t)


def test_prenet_dropout_is_always_on():
    """Half the prenet's units dropped and the rest doubled, in eval mode too."""
    chainrule.manual_seed(0)
    prenet = ours_module._Prenet(3, [400]).double().eval()
    with chainrule.no_grad():
        prenet.layers[0].weight.fill_(1.0)
        y = prenet(chainrule.ones(50, 3, dtype=chainrule.float64)).numpy()
    assert set(np.unique(y)) == {0.0, 6.0}
    assert abs((y == 0).mean() - 0.5) < 0.01


def test_mask_and_conv_helpers():
    mask = ours_module._get_mask_from_lengths(chainrule.tensor([3, 1]))
    np.testing.assert_array_equal(mask.numpy(), [[False, False, False], [False, True, True]])
    with pytest.raises(ValueError, match="kernel_size must be odd"):
        ours_module._get_conv1d_layer(2, 2, kernel_size=4)
