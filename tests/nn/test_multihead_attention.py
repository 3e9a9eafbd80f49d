"""nn.MultiheadAttention side by side with torch.nn: outputs and attention weights, the
gradients of the inputs and of every parameter, node names, reprs and state dicts (packed
and separate projections, no bias, bias_k/bias_v, add_zero_attn, kdim/vdim, batch_first,
masks, unbatched input), PyTorch's fused inference path, dropout in training mode, the
default initialisation's distributions, PyTorch's errors and warnings."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
from nn_layers import check_module, pair, uniform_stats
from oracle import DT_IDS, FLOATS, R, assert_same_error, to_numpy

E, H, L, S, N = 4, 2, 3, 5, 2


def _bool(*shape, seed=0):
    m = np.random.default_rng(seed).random(shape) > 0.6
    m[..., 0] = False
    return m


def mha(**kw):
    return lambda lib: lib.nn.MultiheadAttention(E, H, **kw)


def self_call(**kw):
    return lambda m, x: m(x, x, x, **kw)


def enc_dec_call(**kw):
    return lambda m, x, mem: m(x, mem, mem, **kw)


def masked_call(**kw):
    return lambda m, q, k, v, am, kpm: m(q, k, v, attn_mask=am, key_padding_mask=kpm, **kw)


QKV = (R(L, N, E), R(S, N, E, seed=1), R(S, N, E, seed=2))
QKV_BF = (R(N, L, E), R(N, S, E, seed=1), R(N, S, E, seed=2))
MASKS = (_bool(L, S, seed=3), _bool(N, S, seed=4))
NW = dict(need_weights=False)

CASES = {
    "default": (mha(), None, QKV),
    "no_weights": (mha(), lambda m, q, k, v: m(q, k, v, **NW), QKV),
    "per_head_weights": (mha(), lambda m, q, k, v: m(q, k, v, average_attn_weights=False), QKV),
    "self": (mha(), self_call(), QKV[:1]),
    "self_no_weights": (mha(), self_call(**NW), QKV[:1]),
    "enc_dec": (mha(), enc_dec_call(), QKV[:2]),
    "no_bias": (mha(bias=False), None, QKV),
    "bias_kv": (mha(add_bias_kv=True), None, QKV),
    "zero_attn": (mha(add_zero_attn=True), None, QKV),
    "bias_kv_zero_attn_masked": (
        mha(add_bias_kv=True, add_zero_attn=True),
        masked_call(),
        QKV + MASKS,
    ),
    "kdim_vdim": (
        mha(kdim=3, vdim=5),
        None,
        (QKV[0], R(S, N, 3, seed=1), R(S, N, 5, seed=2)),
    ),
    "kdim_vdim_no_bias_no_weights": (
        mha(kdim=3, vdim=5, bias=False),
        lambda m, q, k, v: m(q, k, v, **NW),
        (QKV[0], R(S, N, 3, seed=1), R(S, N, 5, seed=2)),
    ),
    "batch_first": (mha(batch_first=True), None, QKV_BF),
    "batch_first_self": (mha(batch_first=True), self_call(), QKV_BF[:1]),
    "batch_first_enc_dec_no_weights": (mha(batch_first=True), enc_dec_call(**NW), QKV_BF[:2]),
    "batch_first_masked": (mha(batch_first=True), masked_call(), QKV_BF + MASKS),
    "masks": (mha(), masked_call(), QKV + MASKS),
    "masks_no_weights": (mha(), masked_call(**NW), QKV + MASKS),
    "float_masks": (
        mha(),
        masked_call(),
        QKV + tuple(np.where(m, -5.0, 0.3) for m in MASKS),
    ),
    "mask_3d": (
        mha(),
        lambda m, q, k, v, am: m(q, k, v, attn_mask=am),
        QKV + (_bool(N * H, L, S, seed=5),),
    ),
    "causal": (
        mha(),
        lambda m, x, am: m(x, x, x, attn_mask=am, is_causal=True, **NW),
        (QKV[0], np.triu(np.ones((L, L), dtype=bool), 1)),
    ),
    "unbatched": (mha(), None, tuple(a[:, 0] for a in QKV)),
    "unbatched_batch_first_masked": (
        mha(batch_first=True),
        masked_call(average_attn_weights=False),
        tuple(a[:, 0] for a in QKV) + (MASKS[0], MASKS[1][0]),
    ),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch_nn(name, dtype):
    ctor, call, inputs = CASES[name]
    # float32: the key bias's gradient is zero in exact arithmetic (softmax's shift)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype is np.float32 else {}
    check_module(ctor, *inputs, dtype=dtype, train=False, call=call, **tol)


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("masks", [False, True])
def test_values_of_torch_fused_path(need_weights, masks):
    """In eval mode under no_grad, torch takes _native_multi_head_attention for a batch-first
    self-attention: the same values."""
    cm, tm = pair(mha(batch_first=True), np.float64)
    cm.eval(), tm.eval()
    x = R(N, L, E)
    am, kpm = _bool(L, L, seed=6), _bool(N, L, seed=7)

    def run(lib, m):
        t = lib.tensor(x)
        kw = dict(attn_mask=lib.tensor(am), key_padding_mask=lib.tensor(kpm)) if masks else {}
        with lib.no_grad():
            return m(t, t, t, need_weights=need_weights, **kw)

    (c_out, c_w), (t_out, t_w) = run(cr, cm), run(torch, tm)
    np.testing.assert_allclose(to_numpy(c_out), to_numpy(t_out), rtol=1e-10, atol=1e-12)
    if need_weights:
        np.testing.assert_allclose(to_numpy(c_w), to_numpy(t_w), rtol=1e-10, atol=1e-12)
    else:
        assert c_w is None and t_w is None


def test_dropout_in_training_mode():
    m = cr.nn.MultiheadAttention(E, H, dropout=0.5)
    q, k, v = (cr.tensor(a, dtype=cr.float32) for a in QKV)
    m.eval()
    plain_out, plain_w = (t.detach() for t in m(q, k, v, average_attn_weights=False))
    m.train()
    cr.manual_seed(0)
    out, w = (t.detach() for t in m(q, k, v, average_attn_weights=False))
    assert tuple(out.shape) == (L, N, E) and tuple(w.shape) == (N, H, L, S)
    kept = w.numpy() != 0
    assert 0 < kept.mean() < 1
    np.testing.assert_allclose(w.numpy()[kept], 2 * plain_w.numpy()[kept], rtol=1e-5)
    fast, none = m(q, k, v, need_weights=False)
    assert none is None and not np.allclose(fast.detach().numpy(), plain_out.numpy())


def test_attributes_as_torch():
    for kw in ({}, dict(kdim=3, vdim=5, bias=False, add_bias_kv=True, batch_first=True)):
        c, t = cr.nn.MultiheadAttention(8, 2, **kw), torch.nn.MultiheadAttention(8, 2, **kw)
        for name in ("embed_dim", "kdim", "vdim", "_qkv_same_embed_dim", "num_heads"):
            assert getattr(c, name) == getattr(t, name), name
        for name in ("dropout", "batch_first", "head_dim", "add_zero_attn"):
            assert getattr(c, name) == getattr(t, name), name
        assert type(c.out_proj).__name__ == type(t.out_proj).__name__
        assert isinstance(c.out_proj, cr.nn.Linear)
        assert [n for n, _ in c.named_parameters()] == [n for n, _ in t.named_parameters()]
        assert repr(c) == repr(t)


def test_default_initialisation():
    cr.manual_seed(0)
    m = cr.nn.MultiheadAttention(256, 4, add_bias_kv=True)
    uniform_stats(m.in_proj_weight, np.sqrt(6 / (256 + 3 * 256)))
    assert not m.in_proj_bias.detach().numpy().any() and not m.out_proj.bias.detach().numpy().any()
    w = m.out_proj.weight.detach().numpy()  # Linear's own: U(±1/√fan_in)
    assert np.abs(w).max() <= 1 / 16 and np.abs(w).max() > 0.95 / 16
    both = np.concatenate([m.bias_k.detach().numpy().ravel(), m.bias_v.detach().numpy().ravel()])
    assert abs(both.std() - np.sqrt(2 / (2 * 256))) < 0.15 * np.sqrt(1 / 256)
    sep = cr.nn.MultiheadAttention(256, 4, kdim=128, vdim=64)
    uniform_stats(sep.q_proj_weight, np.sqrt(6 / 512))
    uniform_stats(sep.k_proj_weight, np.sqrt(6 / (256 + 128)))
    uniform_stats(sep.v_proj_weight, np.sqrt(6 / (256 + 64)))
    assert sep.in_proj_weight is None
    assert m.in_proj_weight.dtype is cr.float32
    assert cr.nn.MultiheadAttention(4, 2, dtype=cr.float64).in_proj_weight.dtype is cr.float64


def test_mismatched_mask_types_warn_as_torch():
    def run(lib):
        m = lib.nn.MultiheadAttention(E, H)
        q, k, v = (lib.tensor(a, dtype=lib.float32) for a in QKV)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m(q, k, v, attn_mask=lib.zeros(L, S), key_padding_mask=lib.tensor(MASKS[1]))
        return [str(w.message) for w in caught]

    msgs = run(cr)
    assert msgs == run(torch) and len(msgs) == 1


ERRORS = {
    "not_divisible": lambda lib: lib.nn.MultiheadAttention(5, 2),
    "zero_embed_dim": lambda lib: lib.nn.MultiheadAttention(0, 2),
    "negative_heads": lambda lib: lib.nn.MultiheadAttention(4, -1),
    "query_width": lambda lib: lib.nn.MultiheadAttention(4, 2)(
        lib.ones(3, 2, 5), lib.ones(4, 2, 5), lib.ones(4, 2, 5)
    ),
    "query_rank": lambda lib: lib.nn.MultiheadAttention(4, 2)(
        lib.ones(4), lib.ones(4), lib.ones(4)
    ),
    "key_rank": lambda lib: lib.nn.MultiheadAttention(4, 2)(
        lib.ones(3, 2, 4), lib.ones(4, 4), lib.ones(4, 4)
    ),
    "kdim": lambda lib: lib.nn.MultiheadAttention(4, 2, kdim=3)(
        lib.ones(3, 2, 4), lib.ones(4, 2, 4), lib.ones(4, 2, 4)
    ),
    "integer_mask": lambda lib: lib.nn.MultiheadAttention(4, 2)(
        lib.ones(3, 2, 4), lib.ones(4, 2, 4), lib.ones(4, 2, 4), attn_mask=lib.zeros(3, 4).long()
    ),
    "mask_shape": lambda lib: lib.nn.MultiheadAttention(4, 2)(
        lib.ones(3, 2, 4), lib.ones(4, 2, 4), lib.ones(4, 2, 4), attn_mask=lib.zeros(3, 3)
    ),
    "padding_shape": lambda lib: lib.nn.MultiheadAttention(4, 2)(
        lib.ones(3, 2, 4),
        lib.ones(4, 2, 4),
        lib.ones(4, 2, 4),
        key_padding_mask=lib.zeros(2, 3, dtype=lib.bool),
    ),
    "causal_without_mask": lambda lib: lib.nn.MultiheadAttention(4, 2)(
        lib.ones(3, 2, 4), lib.ones(4, 2, 4), lib.ones(4, 2, 4), is_causal=True
    ),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name):
    assert_same_error(ERRORS[name])
