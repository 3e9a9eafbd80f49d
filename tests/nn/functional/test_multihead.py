"""nn.functional.multi_head_attention_forward against PyTorch: packed projections
(self-attention, key is value, three inputs) and separate ones (kdim/vdim), bias_k/bias_v,
add_zero_attn, bool and float attention and padding masks (2-D and 3-D, merged), the causal
hint, need_weights with and without averaging, static keys and values, unbatched input;
float32 and float64, gradients of every input and weight, tangents, finite differences,
second derivatives; dropout in training mode; PyTorch's errors and warnings."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import (
    DT_IDS,
    FLOATS,
    NoGrad,
    assert_same_error,
    check,
    check_double_backward,
    check_fd,
    randn,
)

E, H, L, S, N = 4, 2, 3, 5, 2  # embed_dim, heads, target and source lengths, batch


def F(lib):
    return lib.nn.functional


def _bool(shape, seed):
    """A random bool mask (True: masked out) that leaves column 0 free in every row."""
    m = np.random.default_rng(seed).random(shape) > 0.6
    m[..., 0] = False
    return m


X = randn((L, N, E))
KEY, VALUE = randn((S, N, E), seed=1), randn((S, N, E), seed=2)
W_IN, B_IN = randn((3 * E, E), seed=3), randn((3 * E,), seed=4)
W_OUT, B_OUT = randn((E, E), seed=5), randn((E,), seed=6)
BIAS_K, BIAS_V = randn((1, 1, E), seed=7), randn((1, 1, E), seed=8)
PROJ = (W_IN, B_IN, W_OUT, B_OUT)
AM2, AM3 = _bool((L, S), 9), _bool((N * H, L, S), 10)
KPM = _bool((N, S), 11)
FLOAT_AM = NoGrad(np.where(AM2, -4.0, 0.5))
FLOAT_KPM = NoGrad(np.where(KPM, -3.0, 0.2))


def _flat(lib, out, weights):
    """Output and weights as one tensor, so that one check compares both."""
    if weights is None:
        return out
    return lib.cat([out.reshape(-1), weights.reshape(-1)])


def _mha(q, k, v, w, b, ow, ob, L_, bias_k=None, bias_v=None, zero=False, **kw):
    return F(L_).multi_head_attention_forward(
        q, k, v, E, H, w, b, bias_k, bias_v, zero, 0.0, ow, ob, **kw
    )


def cross(**kw):
    """Distinct query, key and value (three products)."""
    return lambda L_, q, k, v, w, b, ow, ob: _flat(L_, *_mha(q, k, v, w, b, ow, ob, L_, **kw))


def self_attn(**kw):
    """query is key is value: the packed projection as one product."""
    return lambda L_, x, w, b, ow, ob: _flat(L_, *_mha(x, x, x, w, b, ow, ob, L_, **kw))


def enc_dec(**kw):
    """key is value: the query's product and one for key and value."""
    return lambda L_, q, m, w, b, ow, ob: _flat(L_, *_mha(q, m, m, w, b, ow, ob, L_, **kw))


def masked(make, **kw):
    """The attention mask (and/or padding mask) given as the last inputs."""

    def fn(L_, *xs):
        return make(**kw, attn_mask=xs[-1])(L_, *xs[:-1])

    return fn


def padded(make, **kw):
    def fn(L_, *xs):
        return make(**kw, key_padding_mask=xs[-1])(L_, *xs[:-1])

    return fn


def both_masks(make, **kw):
    def fn(L_, *xs):
        return make(**kw, attn_mask=xs[-2], key_padding_mask=xs[-1])(L_, *xs[:-2])

    return fn


def with_bias_kv(zero=False, **kw):
    def fn(L_, q, k, v, w, b, ow, ob, bk, bv):
        return _flat(L_, *_mha(q, k, v, w, b, ow, ob, L_, bias_k=bk, bias_v=bv, zero=zero, **kw))

    return fn


def separate(**kw):
    """Separate q/k/v weights, key and value of other widths (kdim 3, vdim 5)."""

    def fn(L_, q, k, v, wq, wk, wv, b, ow, ob):
        out = F(L_).multi_head_attention_forward(
            q,
            k,
            v,
            E,
            H,
            None,
            b,
            None,
            None,
            False,
            0.0,
            ow,
            ob,
            use_separate_proj_weight=True,
            q_proj_weight=wq,
            k_proj_weight=wk,
            v_proj_weight=wv,
            **kw,
        )
        return _flat(L_, *out)

    return fn


def static(**kw):
    def fn(L_, q, k, v, w, b, ow, ob, sk, sv):
        return _flat(L_, *_mha(q, k, v, w, b, ow, ob, L_, static_k=sk, static_v=sv, **kw))

    return fn


QKV = (X, KEY, VALUE)
SEP = (X, randn((S, N, 3), seed=12), randn((S, N, 5), seed=13))
SEP_W = (randn((E, E), seed=14), randn((E, 3), seed=15), randn((E, 5), seed=16))
STATIC = (randn((N * H, 6, E // H), seed=17), randn((N * H, 6, E // H), seed=18))
NW = dict(need_weights=False)

CASES = {
    "self": (self_attn(), X, *PROJ),
    "self_no_weights": (self_attn(**NW), X, *PROJ),
    "self_per_head_weights": (self_attn(average_attn_weights=False), X, *PROJ),
    "enc_dec": (enc_dec(), X, KEY, *PROJ),
    "enc_dec_no_weights": (enc_dec(**NW), X, KEY, *PROJ),
    "cross": (cross(), *QKV, *PROJ),
    "cross_no_bias": (cross(), *QKV, W_IN, None, W_OUT, None),
    "cross_no_weights": (cross(**NW), *QKV, *PROJ),
    "bool_mask_2d": (masked(cross), *QKV, *PROJ, AM2),
    "bool_mask_2d_no_weights": (masked(cross, **NW), *QKV, *PROJ, AM2),
    "bool_mask_3d": (masked(cross), *QKV, *PROJ, AM3),
    "bool_mask_3d_no_weights": (masked(cross, **NW), *QKV, *PROJ, AM3),
    "float_mask_2d": (masked(cross), *QKV, *PROJ, FLOAT_AM),
    "float_mask_grad": (masked(cross), *QKV, *PROJ, randn((N * H, L, S), seed=19)),
    "float_mask_no_weights": (masked(cross, **NW), *QKV, *PROJ, FLOAT_AM),
    "padding_bool": (padded(cross), *QKV, *PROJ, KPM),
    "padding_bool_no_weights": (padded(cross, **NW), *QKV, *PROJ, KPM),
    "padding_float": (padded(cross), *QKV, *PROJ, FLOAT_KPM),
    "both_bool": (both_masks(cross), *QKV, *PROJ, AM3, KPM),
    "both_bool_no_weights": (both_masks(cross, **NW), *QKV, *PROJ, AM2, KPM),
    "both_float": (both_masks(cross), *QKV, *PROJ, FLOAT_AM, FLOAT_KPM),
    "causal_no_weights": (
        masked(self_attn, is_causal=True, **NW),
        X,
        *PROJ,
        NoGrad(np.triu(np.full((L, L), -np.inf), 1)),
    ),
    "causal_with_weights": (
        masked(self_attn, is_causal=True),
        X,
        *PROJ,
        np.triu(np.ones((L, L), dtype=bool), 1),
    ),
    "causal_and_padding": (
        both_masks(self_attn, is_causal=True, **NW),
        X,
        *PROJ,
        np.triu(np.ones((L, L), dtype=bool), 1),
        _bool((N, L), 20),
    ),
    "bias_kv": (with_bias_kv(), *QKV, *PROJ, BIAS_K, BIAS_V),
    "bias_kv_zero_attn_no_weights": (with_bias_kv(True, **NW), *QKV, *PROJ, BIAS_K, BIAS_V),
    "zero_attn": (cross(zero=True), *QKV, *PROJ),
    "bias_kv_zero_attn_masks": (
        lambda L_, q, k, v, w, b, ow, ob, bk, bv, am, kpm: with_bias_kv(
            True, attn_mask=am, key_padding_mask=kpm
        )(L_, q, k, v, w, b, ow, ob, bk, bv),
        *QKV,
        *PROJ,
        BIAS_K,
        BIAS_V,
        AM2,
        KPM,
    ),
    "separate": (separate(), *SEP, *SEP_W, B_IN, W_OUT, B_OUT),
    "separate_no_weights_padded": (
        lambda L_, *xs: separate(key_padding_mask=xs[-1], **NW)(L_, *xs[:-1]),
        *SEP,
        *SEP_W,
        B_IN,
        W_OUT,
        B_OUT,
        KPM,
    ),
    "static_kv": (static(), *QKV, *PROJ, *STATIC),
    "static_kv_no_weights": (static(**NW), *QKV, *PROJ, *STATIC),
    "unbatched": (cross(), X[:, 0], KEY[:, 0], VALUE[:, 0], *PROJ),
    "unbatched_no_weights": (cross(**NW), X[:, 0], KEY[:, 0], VALUE[:, 0], *PROJ),
    "unbatched_masks": (
        both_masks(cross, average_attn_weights=False),
        X[:, 0],
        KEY[:, 0],
        VALUE[:, 0],
        *PROJ,
        AM3[:H],
        KPM[0],
    ),
    "unbatched_self_masks_no_weights": (
        both_masks(self_attn, **NW),
        X[:, 0],
        *PROJ,
        _bool((H, L, L), 21),
        _bool((L,), 22),
    ),
}

# torch's fused CPU attention kernel (need_weights=False) has no second derivative
NO_TORCH_DOUBLE_BACKWARD = {
    n for n in CASES if "no_weights" in n or n.startswith("causal_no") or n == "causal_and_padding"
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name, dtype):
    fn, *inputs = CASES[name]
    # the key bias has a zero gradient (softmax is shift-invariant): float32 rounding there
    tol = dict(rtol=1e-4, atol=1e-4) if dtype is np.float32 else {}
    check(fn, *inputs, dtype=dtype, **tol)


@pytest.mark.parametrize(
    "name", ["self", "cross_no_weights", "both_bool", "bias_kv_zero_attn_masks", "separate"]
)
def test_finite_differences(name):
    fn, *inputs = CASES[name]
    check_fd(fn, *inputs)


@pytest.mark.parametrize(
    "name", ["self", "both_float", "bias_kv", "unbatched_masks", "float_mask_grad"]
)
def test_second_derivatives_match_torch(name):
    assert name not in NO_TORCH_DOUBLE_BACKWARD
    fn, *inputs = CASES[name]
    check_double_backward(fn, *inputs, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("need_weights", [True, False])
def test_output_nodes_and_shapes(need_weights):
    def run(lib):
        x = lib.tensor(X, requires_grad=True)
        args = [lib.tensor(a) for a in PROJ]
        out, w = _mha(x, x, x, *args, lib, need_weights=need_weights, average_attn_weights=False)
        return out, w

    (c_out, c_w), (t_out, t_w) = run(cr), run(torch)
    assert c_out.grad_fn.name() == t_out.grad_fn.name()
    assert tuple(c_out.shape) == tuple(t_out.shape) == (L, N, E)
    if need_weights:
        assert c_w.grad_fn.name() == t_w.grad_fn.name()
        assert tuple(c_w.shape) == tuple(t_w.shape) == (N, H, L, L)
    else:
        assert c_w is None and t_w is None


# ----- dropout of the attention weights in training mode ------------------------------------


def test_dropout_applies_in_training_only():
    q, k, v = (cr.tensor(a, dtype=cr.float64) for a in QKV)
    w, b, ow, ob = (cr.tensor(a, dtype=cr.float64) for a in PROJ)

    def run(training, p, need_weights=True):
        cr.manual_seed(0)
        return F(cr).multi_head_attention_forward(
            q,
            k,
            v,
            E,
            H,
            w,
            b,
            None,
            None,
            False,
            p,
            ow,
            ob,
            training=training,
            need_weights=need_weights,
            average_attn_weights=False,
        )

    plain_out, plain_w = run(False, 0.0)
    eval_out, eval_w = run(False, 0.5)
    np.testing.assert_allclose(eval_out.numpy(), plain_out.numpy())
    np.testing.assert_allclose(eval_w.numpy(), plain_w.numpy())
    out, weights = run(True, 0.5)
    assert tuple(out.shape) == (L, N, E) and tuple(weights.shape) == (N, H, L, S)
    kept = weights.numpy() != 0
    assert 0 < kept.mean() < 1
    np.testing.assert_allclose(weights.numpy()[kept], 2 * plain_w.numpy()[kept], rtol=1e-12)
    fast, none = run(True, 0.5, need_weights=False)
    assert none is None and tuple(fast.shape) == (L, N, E)
    assert not np.allclose(fast.numpy(), plain_out.numpy())


def test_dropout_gradients_given_the_mask():
    def run(x, w):
        cr.manual_seed(3)
        args = [cr.tensor(a, dtype=cr.float64) for a in (W_OUT, B_OUT)]
        return F(cr).multi_head_attention_forward(
            x, x, x, E, H, w, None, None, None, False, 0.3, *args
        )[0]

    xs = (
        cr.tensor(X[:2, :1], dtype=cr.float64, requires_grad=True),
        cr.tensor(W_IN, dtype=cr.float64, requires_grad=True),
    )
    assert cr.autograd.gradcheck(run, xs)


# ----- PyTorch's warnings and errors -----------------------------------------------------


def test_mismatched_mask_types_warn_as_torch():
    def run(lib):
        args = [lib.tensor(a) for a in (*QKV, *PROJ)]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out, _ = _mha(
                *args,
                lib,
                attn_mask=lib.tensor(np.where(AM2, -1e9, 0.0)),
                key_padding_mask=lib.tensor(KPM),
            )
        return out, [str(w.message) for w in caught]

    (c_out, c_msgs), (t_out, t_msgs) = run(cr), run(torch)
    assert c_msgs == t_msgs and len(t_msgs) == 1
    np.testing.assert_allclose(c_out.numpy(), t_out.numpy(), rtol=1e-5, atol=1e-6)


def _call(lib, q=(L, N, E), k=(S, N, E), v=(S, N, E), e=E, h=H, w=(3 * E, E), **kw):
    args = dict(
        bias_k=None,
        bias_v=None,
        add_zero_attn=False,
        dropout_p=0.0,
        out_proj_weight=lib.ones(E, E),
        out_proj_bias=None,
    )
    for name, value in kw.items():
        args[name] = value(lib) if callable(value) else value
    return F(lib).multi_head_attention_forward(
        lib.ones(*q),
        lib.ones(*k),
        lib.ones(*v),
        e,
        h,
        None if w is None else lib.ones(*w),
        None,
        **args,
    )


def _t(*shape, dtype="float32"):
    return lambda lib: lib.ones(*shape, dtype=getattr(lib, dtype))


ERRORS = {
    "query_4d": dict(q=(1, L, N, E)),
    "batched_key_2d": dict(k=(S, E)),
    "batched_padding_1d": dict(key_padding_mask=_t(S, dtype="bool")),
    "batched_mask_4d": dict(attn_mask=_t(1, 1, L, S, dtype="bool")),
    "unbatched_key_3d": dict(q=(L, E)),
    "unbatched_padding_2d": dict(
        q=(L, E), k=(S, E), v=(S, E), key_padding_mask=_t(1, S, dtype="bool")
    ),
    "unbatched_mask_1d": dict(q=(L, E), k=(S, E), v=(S, E), attn_mask=_t(S, dtype="bool")),
    "unbatched_mask_3d_shape": dict(
        q=(L, E), k=(S, E), v=(S, E), attn_mask=_t(H + 1, L, S, dtype="bool")
    ),
    "embed_dim": dict(e=E + 1),
    "not_divisible": dict(h=3),
    "key_value_shapes": dict(v=(S + 1, N, E)),
    "no_in_proj_weight": dict(w=None),
    "integer_padding_mask": dict(key_padding_mask=_t(N, S, dtype="long")),
    "integer_attn_mask": dict(attn_mask=_t(L, S, dtype="long")),
    "causal_without_mask": dict(is_causal=True),
    "mask_2d_shape": dict(attn_mask=_t(L, S + 1)),
    "mask_3d_shape": dict(attn_mask=_t(N * H + 1, L, S)),
    "padding_batch": dict(key_padding_mask=_t(N + 1, S, dtype="bool")),
    "padding_length": dict(key_padding_mask=_t(N, S + 1, dtype="bool")),
    "bias_k_only": dict(bias_k=_t(1, 1, E)),
    "bias_v_only": dict(bias_v=_t(1, 1, E)),
    "bias_and_static_k": dict(
        bias_k=_t(1, 1, E), bias_v=_t(1, 1, E), static_k=_t(N * H, S, E // H)
    ),
    "bias_and_static_v": dict(
        bias_k=_t(1, 1, E), bias_v=_t(1, 1, E), static_v=_t(N * H, S, E // H)
    ),
    "static_k_batch": dict(static_k=_t(N * H + 1, S, E // H)),
    "static_k_head_dim": dict(static_k=_t(N * H, S, E)),
    "static_v_batch": dict(static_v=_t(N, S, E // H)),
    "static_v_head_dim": dict(static_v=_t(N * H, S, 1)),
    "separate_missing_q": dict(w=None, use_separate_proj_weight=True),
    "separate_missing_v": dict(
        w=None, use_separate_proj_weight=True, q_proj_weight=_t(E, E), k_proj_weight=_t(E, E)
    ),
    "separate_key_shape": dict(
        w=None,
        use_separate_proj_weight=True,
        q_proj_weight=_t(E, E),
        k_proj_weight=_t(E, E + 1),
        v_proj_weight=_t(E, E),
    ),
    "separate_query_shape": dict(
        w=None,
        use_separate_proj_weight=True,
        q_proj_weight=_t(E, E + 1),
        k_proj_weight=_t(E, E),
        v_proj_weight=_t(E, E),
    ),
    "separate_lengths": dict(
        w=None,
        v=(S + 1, N, E),
        use_separate_proj_weight=True,
        q_proj_weight=_t(E, E),
        k_proj_weight=_t(E, E),
        v_proj_weight=_t(E, E),
    ),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name):
    assert_same_error(lambda lib: _call(lib, **ERRORS[name]))


def test_separate_bias_shape_error_as_torch():
    def run(lib):
        return F(lib).multi_head_attention_forward(
            lib.ones(L, N, E),
            lib.ones(S, N, E),
            lib.ones(S, N, E),
            E,
            H,
            None,
            lib.ones(3 * E + 3),
            None,
            None,
            False,
            0.0,
            lib.ones(E, E),
            None,
            use_separate_proj_weight=True,
            q_proj_weight=lib.ones(E, E),
            k_proj_weight=lib.ones(E, E),
            v_proj_weight=lib.ones(E, E),
        )

    assert_same_error(run)


@pytest.mark.parametrize("name", ["cross_no_weights", "both_bool_no_weights", "causal_no_weights"])
def test_tangents_where_torch_has_none(name):
    """torch's fused attention kernel (need_weights=False) has no forward mode: chainrule's
    tangents and second derivatives are checked against finite differences instead."""
    fn, *inputs = CASES[name]
    at = [i for i, v in enumerate(inputs) if isinstance(v, np.ndarray) and v.dtype.kind == "f"]
    fixed = [
        None if v is None else cr.tensor(v.array if isinstance(v, NoGrad) else v) for v in inputs
    ]

    def run(*xs):
        args = list(fixed)
        for i, x in zip(at, xs):
            args[i] = x
        return fn(cr, *args)

    xs = tuple(cr.tensor(inputs[i], requires_grad=True) for i in at[:3])
    assert cr.autograd.gradcheck(run, xs, check_forward_ad=True)
    if name == "causal_no_weights":  # the slowest check, once
        assert cr.autograd.gradgradcheck(run, xs[:1])
