"""nn.TransformerEncoderLayer, TransformerDecoderLayer, TransformerEncoder,
TransformerDecoder and Transformer side by side with torch.nn: outputs, the gradients of
the inputs and of every parameter, node names, reprs and state dicts in eval mode
(activations relu/gelu/callable, norm_first, batch_first, layer_norm_eps, bias, masks of
every kind, the causal hint and its detection, unbatched input); torch's fused and nested
inference paths; dropout in training mode; the causal mask; initialisation; deep copies;
PyTorch's warnings and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
from nn_layers import check_module, pair, uniform_stats
from oracle import DT_IDS, FLOATS, R, assert_same_error, to_numpy

D, H, FF, L, S, N = 4, 2, 6, 3, 5, 2  # d_model, heads, feed-forward, tgt/src lengths, batch

# TransformerEncoder's note (both libraries; asserted equal in
# test_nested_tensor_warnings_as_torch) is not what the other tests here check. A mark, not a
# module-level filter: pytest's per-test filters (and `-W error`) would override that one.
pytestmark = pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning")


def _bool(*shape, seed=0):
    m = np.random.default_rng(seed).random(shape) > 0.6
    m[..., 0] = False
    return m


def causal(n):
    return np.triu(np.ones((n, n), dtype=bool), 1)


def enc_layer(**kw):
    return lambda lib: lib.nn.TransformerEncoderLayer(D, H, FF, **kw)


def dec_layer(**kw):
    return lambda lib: lib.nn.TransformerDecoderLayer(D, H, FF, **kw)


def encoder(num_layers=2, norm=True, layer=None, **kw):
    def ctor(lib):
        n = lib.nn.LayerNorm(D) if norm else None
        return lib.nn.TransformerEncoder((layer or enc_layer())(lib), num_layers, n, **kw)

    return ctor


def decoder(num_layers=2, norm=True, layer=None):
    def ctor(lib):
        n = lib.nn.LayerNorm(D) if norm else None
        return lib.nn.TransformerDecoder((layer or dec_layer())(lib), num_layers, n)

    return ctor


def transformer(**kw):
    def ctor(lib):
        return lib.nn.Transformer(D, H, 2, 1, FF, **kw)

    return ctor


SRC, TGT = R(S, N, D), R(L, N, D, seed=1)
SRC_BF, TGT_BF = R(N, S, D), R(N, L, D, seed=1)
SRC_MASK, SRC_KPM = _bool(S, S, seed=2), _bool(N, S, seed=3)
TGT_KPM = _bool(N, L, seed=4)
FLOAT = lambda m: np.where(m, -6.0, 0.25)  # noqa: E731


def src_masks(**kw):
    return lambda m, x, am, kpm: m(x, src_mask=am, src_key_padding_mask=kpm, **kw)


def enc_masks(**kw):
    return lambda m, x, am, kpm: m(x, mask=am, src_key_padding_mask=kpm, **kw)


def dec_masks(**kw):
    def call(m, x, mem, tm, mm, tk, mk):
        return m(
            x,
            mem,
            tgt_mask=tm,
            memory_mask=mm,
            tgt_key_padding_mask=tk,
            memory_key_padding_mask=mk,
            **kw,
        )

    return call


DEC_MASKS = (causal(L), _bool(L, S, seed=5), TGT_KPM, SRC_KPM)


def full_masks(m, src, tgt, sm, tm, mm, sk, tk, mk):
    return m(
        src,
        tgt,
        src_mask=sm,
        tgt_mask=tm,
        memory_mask=mm,
        src_key_padding_mask=sk,
        tgt_key_padding_mask=tk,
        memory_key_padding_mask=mk,
    )


CASES = {
    "enc_layer": (enc_layer(), None, (SRC,)),
    "enc_layer_gelu": (enc_layer(activation="gelu"), None, (SRC,)),
    "enc_layer_callable": (
        lambda lib: lib.nn.TransformerEncoderLayer(D, H, FF, activation=lib.tanh),
        None,
        (SRC,),
    ),
    "enc_layer_norm_first": (enc_layer(norm_first=True), None, (SRC,)),
    "enc_layer_batch_first": (enc_layer(batch_first=True), None, (SRC_BF,)),
    "enc_layer_eps_no_bias": (enc_layer(layer_norm_eps=1e-2, bias=False), None, (SRC,)),
    "enc_layer_masks": (enc_layer(), src_masks(), (SRC, SRC_MASK, SRC_KPM)),
    "enc_layer_float_masks": (
        enc_layer(norm_first=True),
        src_masks(),
        (SRC, FLOAT(SRC_MASK), FLOAT(SRC_KPM)),
    ),
    "enc_layer_causal": (
        enc_layer(batch_first=True),
        lambda m, x, am: m(x, src_mask=am, is_causal=True),
        (SRC_BF, causal(S)),
    ),
    "enc_layer_unbatched": (enc_layer(), src_masks(), (SRC[:, 0], SRC_MASK, SRC_KPM[0])),
    "dec_layer": (dec_layer(), None, (TGT, SRC)),
    "dec_layer_gelu_norm_first": (dec_layer(activation="gelu", norm_first=True), None, (TGT, SRC)),
    "dec_layer_batch_first_no_bias": (
        dec_layer(batch_first=True, bias=False),
        None,
        (TGT_BF, SRC_BF),
    ),
    "dec_layer_masks": (dec_layer(), dec_masks(), (TGT, SRC) + DEC_MASKS),
    "dec_layer_causal": (dec_layer(), dec_masks(tgt_is_causal=True), (TGT, SRC) + DEC_MASKS),
    "dec_layer_unbatched": (
        dec_layer(),
        dec_masks(),
        (TGT[:, 0], SRC[:, 0], causal(L), DEC_MASKS[1], TGT_KPM[0], SRC_KPM[0]),
    ),
    "encoder": (encoder(), None, (SRC,)),
    "encoder_no_norm_one_layer": (encoder(1, norm=False), None, (SRC,)),
    "encoder_masks": (encoder(), enc_masks(), (SRC, SRC_MASK, SRC_KPM)),
    "encoder_detects_causal": (
        encoder(layer=enc_layer(batch_first=True)),
        lambda m, x, am: m(x, mask=am),
        (SRC_BF, causal(S)),
    ),
    "encoder_batch_first_padding": (
        encoder(layer=enc_layer(batch_first=True), enable_nested_tensor=False),
        lambda m, x, kpm: m(x, src_key_padding_mask=kpm),
        (SRC_BF, SRC_KPM),
    ),
    "decoder": (decoder(), None, (TGT, SRC)),
    "decoder_masks": (decoder(1, norm=False), dec_masks(), (TGT, SRC) + DEC_MASKS),
    "transformer": (transformer(), None, (SRC, TGT)),
    "transformer_masks": (
        transformer(),
        full_masks,
        (SRC, TGT, SRC_MASK, causal(L), DEC_MASKS[1], SRC_KPM, TGT_KPM, SRC_KPM),
    ),
    "transformer_batch_first_norm_first_gelu": (
        transformer(batch_first=True, norm_first=True, activation="gelu"),
        None,
        (SRC_BF, TGT_BF),
    ),
    "transformer_unbatched": (transformer(), None, (SRC[:, 0], TGT[:, 0])),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch_nn(name, dtype):
    ctor, call, inputs = CASES[name]
    tol = dict(rtol=1e-4, atol=1e-4) if dtype is np.float32 else {}
    check_module(ctor, *inputs, dtype=dtype, train=False, call=call, **tol)


# ----- torch's inference paths -------------------------------------------------------------

FAST = {
    "layer": (enc_layer(batch_first=True), lambda m, x, kpm: m(x)),
    "layer_padding": (
        enc_layer(batch_first=True, activation="gelu"),
        lambda m, x, kpm: m(x, src_key_padding_mask=kpm),
    ),
    "layer_both_masks": (
        enc_layer(batch_first=True),
        lambda m, x, kpm: m(x, src_mask=m_mask(x), src_key_padding_mask=kpm),
    ),
    "encoder_nested": (
        encoder(layer=enc_layer(batch_first=True)),
        lambda m, x, kpm: m(x, src_key_padding_mask=kpm),
    ),
    "encoder_nested_float_padding": (
        encoder(layer=enc_layer(batch_first=True)),
        lambda m, x, kpm: m(x, src_key_padding_mask=kpm.float() * -1e9),
    ),
    "encoder_not_left_aligned": (
        encoder(layer=enc_layer(batch_first=True)),
        lambda m, x, kpm: m(x, src_key_padding_mask=kpm.flip(-1)),
    ),
    "encoder_no_mask_check": (
        encoder(layer=enc_layer(batch_first=True), mask_check=False),
        lambda m, x, kpm: m(x, src_key_padding_mask=kpm),
    ),
}


def m_mask(x):
    lib = cr if isinstance(x, cr.Tensor) else torch
    return lib.tensor(_bool(S, S, seed=9))


@pytest.mark.parametrize("name", list(FAST))
def test_values_of_torch_inference_paths(name):
    """In eval mode under no_grad torch takes _transformer_encoder_layer_fwd, and the
    encoder with a left-aligned padding mask its nested-tensor path (zeros at padded
    tokens before the final norm)."""
    ctor, call = FAST[name]
    cm, tm = pair(ctor, np.float64)
    cm.eval(), tm.eval()
    kpm = np.zeros((N, S), dtype=bool)
    kpm[0, 3:] = True  # left-aligned: the last two tokens of the first sequence are padding

    def run(lib, m):
        with lib.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return to_numpy(call(m, lib.tensor(SRC_BF), lib.tensor(kpm)))

    np.testing.assert_allclose(run(cr, cm), run(torch, tm), rtol=1e-10, atol=1e-12)


def test_encoder_with_gradients_does_not_zero_padding():
    """With gradients to compute torch takes the plain path: padded tokens keep values."""
    cm, tm = pair(encoder(layer=enc_layer(batch_first=True)), np.float64)
    cm.eval(), tm.eval()
    kpm = np.zeros((N, S), dtype=bool)
    kpm[0, 3:] = True
    c = cm(cr.tensor(SRC_BF), src_key_padding_mask=cr.tensor(kpm))
    t = tm(torch.tensor(SRC_BF), src_key_padding_mask=torch.tensor(kpm))
    np.testing.assert_allclose(to_numpy(c), to_numpy(t), rtol=1e-10, atol=1e-12)
    assert np.abs(to_numpy(c)[0, 3:]).min() > 0


# ----- training mode -----------------------------------------------------------------------


def test_dropout_in_training_mode():
    cr.manual_seed(0)
    model = cr.nn.Transformer(D, H, 1, 1, FF, dropout=0.5)
    src, tgt = cr.tensor(SRC, dtype=cr.float32), cr.tensor(TGT, dtype=cr.float32)
    model.eval()
    plain = model(src, tgt).detach().numpy()
    np.testing.assert_array_equal(model(src, tgt).detach().numpy(), plain)
    model.train()
    cr.manual_seed(1)
    a = model(src, tgt)
    cr.manual_seed(1)
    b = model(src, tgt)
    assert tuple(a.shape) == (L, N, D)
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    assert not np.allclose(a.detach().numpy(), plain)
    a.sum().backward()
    assert all(p.grad is not None for p in model.parameters())


def test_dropout_modules_follow_train_and_eval():
    layer = cr.nn.TransformerEncoderLayer(D, H, FF, dropout=0.3)
    drops = [layer.dropout, layer.dropout1, layer.dropout2]
    assert all(d.p == 0.3 for d in drops) and layer.self_attn.dropout == 0.3
    layer.eval()
    assert not any(d.training for d in drops) and not layer.self_attn.training


# ----- the causal mask, construction, initialisation -----------------------------------------


@pytest.mark.parametrize("dtype", [None, "float64"])
def test_generate_square_subsequent_mask(dtype):
    def run(lib):
        kw = {} if dtype is None else dict(dtype=getattr(lib, dtype))
        return lib.nn.Transformer.generate_square_subsequent_mask(4, **kw)

    c, t = run(cr), run(torch)
    assert str(c.dtype) == str(t.dtype)
    np.testing.assert_array_equal(to_numpy(c), to_numpy(t))


def test_layers_are_independent_copies():
    layer = cr.nn.TransformerEncoderLayer(D, H, FF)
    enc = cr.nn.TransformerEncoder(layer, 3, enable_nested_tensor=False)
    weights = [m.linear1.weight for m in enc.layers]
    assert len({id(w) for w in weights}) == 3 and all(
        w is not layer.linear1.weight for w in weights
    )
    np.testing.assert_array_equal(weights[0].detach().numpy(), weights[2].detach().numpy())
    with cr.no_grad():
        weights[0].add_(1.0)
    assert not np.allclose(weights[0].detach().numpy(), weights[1].detach().numpy())
    assert enc.num_layers == 3 and enc.norm is None and enc.mask_check


def test_attributes_as_torch():
    for kw in ({}, dict(activation="gelu", norm_first=True, batch_first=True, bias=False)):
        c = cr.nn.TransformerEncoderLayer(D, H, FF, **kw)
        t = torch.nn.TransformerEncoderLayer(D, H, FF, **kw)
        assert c.activation_relu_or_gelu == t.activation_relu_or_gelu
        assert c.norm_first == t.norm_first and c.norm1.eps == t.norm1.eps
        assert (c.activation is cr.nn.functional.relu) == (t.activation is torch.nn.functional.relu)
    c = cr.nn.TransformerEncoderLayer(D, H, activation=cr.tanh)
    assert c.activation is cr.tanh and c.activation_relu_or_gelu == 0
    assert (
        cr.nn.TransformerDecoderLayer(D, H, activation="gelu").activation is cr.nn.functional.gelu
    )
    model = cr.nn.Transformer(D, H, 1, 1, FF, batch_first=True)
    assert (model.d_model, model.nhead, model.batch_first) == (D, H, True)


def test_transformer_initialisation():
    cr.manual_seed(0)
    model = cr.nn.Transformer(64, 2, 1, 1, 128)
    uniform_stats(model.encoder.layers[0].linear1.weight, np.sqrt(6 / (64 + 128)))
    uniform_stats(model.decoder.layers[0].self_attn.in_proj_weight, np.sqrt(6 / (64 + 192)))
    uniform_stats(model.decoder.layers[0].multihead_attn.out_proj.weight, np.sqrt(6 / 128))
    norm = model.encoder.norm
    assert np.all(norm.weight.detach().numpy() == 1) and not norm.bias.detach().numpy().any()
    assert not model.encoder.layers[0].self_attn.in_proj_bias.detach().numpy().any()


def test_custom_encoder_and_decoder():
    def ctor(lib):
        enc = lib.nn.TransformerEncoder(
            lib.nn.TransformerEncoderLayer(D, H, FF), 1, enable_nested_tensor=False
        )
        dec = lib.nn.TransformerDecoder(lib.nn.TransformerDecoderLayer(D, H, FF), 1)
        return lib.nn.Transformer(D, H, custom_encoder=enc, custom_decoder=dec)

    check_module(ctor, SRC, TGT, dtype=np.float64, train=False)


WARNINGS = {
    "batch_first": dict(),
    "norm_first": dict(batch_first=True, norm_first=True),
    "odd_heads": dict(batch_first=True, nhead=1),
    "bias": dict(batch_first=True, bias=False),
    "activation": dict(batch_first=True, activation="tanh"),
    "none": dict(batch_first=True),
    "disabled": dict(enable_nested_tensor=False),
}


@pytest.mark.parametrize("name", list(WARNINGS))
def test_nested_tensor_warnings_as_torch(name):
    kw = dict(WARNINGS[name])
    enable = kw.pop("enable_nested_tensor", True)
    heads = kw.pop("nhead", H)

    def run(lib):
        if kw.get("activation") == "tanh":
            kw["activation"] = lib.tanh
        layer = lib.nn.TransformerEncoderLayer(D, heads, FF, **kw)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            enc = lib.nn.TransformerEncoder(layer, 1, enable_nested_tensor=enable)
        return [str(w.message) for w in caught], enc.use_nested_tensor

    assert run(cr) == run(torch)


ERRORS = {
    "activation": lambda lib: lib.nn.TransformerEncoderLayer(D, H, activation="tanh"),
    "decoder_activation": lambda lib: lib.nn.TransformerDecoderLayer(D, H, activation="swish"),
    "heads": lambda lib: lib.nn.TransformerEncoderLayer(5, 2),
    "batch": lambda lib: lib.nn.Transformer(D, H, 1, 1, FF)(lib.ones(3, 2, D), lib.ones(3, 1, D)),
    "batch_first_batch": lambda lib: lib.nn.Transformer(D, H, 1, 1, FF, batch_first=True)(
        lib.ones(2, 3, D), lib.ones(1, 3, D)
    ),
    "d_model": lambda lib: lib.nn.Transformer(D, H, 1, 1, FF)(
        lib.ones(3, 2, D), lib.ones(3, 2, D + 1)
    ),
    "integer_mask": lambda lib: lib.nn.TransformerEncoderLayer(D, H, FF)(
        lib.ones(3, 2, D), src_mask=lib.zeros(3, 3).long()
    ),
    "mask_shape": lambda lib: lib.nn.TransformerEncoderLayer(D, H, FF)(
        lib.ones(3, 2, D), src_mask=lib.zeros(2, 3, dtype=lib.bool)
    ),
    "memory_width": lambda lib: lib.nn.TransformerDecoderLayer(D, H, FF)(
        lib.ones(3, 2, D), lib.ones(4, 2, D + 2)
    ),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name):
    assert_same_error(ERRORS[name])


def test_mismatched_mask_types_warn_as_torch():
    def run(lib):
        layer = lib.nn.TransformerEncoderLayer(D, H, FF)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            layer(
                lib.ones(S, N, D),
                src_mask=lib.zeros(S, S),
                src_key_padding_mask=lib.tensor(SRC_KPM),
            )
        return [str(w.message) for w in caught]

    msgs = run(cr)
    assert msgs == run(torch) and len(msgs) == 1
