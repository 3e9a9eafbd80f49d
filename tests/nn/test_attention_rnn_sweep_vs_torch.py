"""Attention, transformer and recurrent layers against PyTorch, from an option sweep:
scaled_dot_product_attention's mask shapes (the math kernel adds the mask in place, so a
mask may not grow the scores), which kernel runs (the fused CPU kernel's masks and strides,
so its node and the causal-with-mask error), grouped-query attention of 2-D inputs, the
encoder's nested-tensor path with an unchecked padding mask that is not left-aligned, empty
sequences of the recurrent layers, the LSTM cell's check of its cell state; and a compact
sweep of values and float64 gradients of MultiheadAttention, the transformer layers and
the recurrent layers over their options."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
from nn_layers import check_module
from oracle import R, assert_close, assert_same_error, compare

F64 = np.float64


def _sdpa(q, k, v, **kw):
    return lambda lib: lib.nn.functional.scaled_dot_product_attention(
        *(lib.tensor(x) for x in (q, k, v)), **kw
    )


def _masked(q, k, v, mask, **kw):
    def run(lib):
        f = lib.nn.functional.scaled_dot_product_attention
        return f(*(lib.tensor(x) for x in (q, k, v)), attn_mask=lib.tensor(mask), **kw)

    return run


# ----- scaled_dot_product_attention: masks that do not fit the scores ---------------------


@pytest.mark.parametrize(
    "q_shape, mask",
    [
        ((3, 4), np.ones((1, 3, 3), bool)),  # would grow the 2-D scores to 3-D
        ((3, 4), np.ones((4, 3), bool)),  # 4 rows for 3 queries
        ((2, 3, 4), np.zeros((3, 3, 3))),  # 3 batches for 2
        ((2, 2, 1, 4), np.zeros((2, 3))),  # broadcasts one query to two
        ((2, 2, 3, 4), np.zeros((1, 2, 1, 3, 3))),  # one dim more than the scores
    ],
)
def test_sdpa_mask_that_does_not_fit_the_scores(q_shape, mask):
    q = R(*q_shape)
    kv = R(*q_shape[:-2], 3, 4, seed=1)
    assert_same_error(_masked(q, kv, kv, mask))


def test_sdpa_gqa_of_2d_inputs_raises_index_error():
    x = R(3, 4)
    assert_same_error(_sdpa(x, x, x, enable_gqa=True))


@pytest.mark.parametrize(
    "mask_shape, raises",
    [((3, 3), False), ((1, 1, 3, 3), False), ((2, 1, 1, 3), False), ((2, 3, 3), True)],
)
def test_sdpa_causal_with_mask_only_on_the_fused_kernel(mask_shape, raises):
    """4-D inputs take the fused kernel, which takes a mask with is_causal, for 2-D and 4-D
    masks only; a 3-D mask sends them to the math kernel, which refuses both."""
    q, k, v = R(2, 2, 3, 4), R(2, 2, 3, 4, seed=1), R(2, 2, 3, 4, seed=2)
    mask = np.random.default_rng(3).random(mask_shape) > 0.3
    run = _masked(q, k, v, mask, is_causal=True)
    if raises:
        assert_same_error(run)
    else:
        compare(run, rtol=1e-6, atol=1e-6)


def _strided(lib, x, unit):
    """x as a tensor requiring grad, with last stride 1 or not"""
    if unit:
        return lib.tensor(x).requires_grad_(True)
    return lib.tensor(np.swapaxes(x, -1, -2).copy()).transpose(-1, -2).requires_grad_(True)


@pytest.mark.parametrize("unit", [(1, 1, 1), (0, 1, 1), (1, 0, 1), (1, 1, 0)])
@pytest.mark.parametrize("causal", [False, True])
def test_sdpa_kernel_follows_the_strides_of_q_k_v(unit, causal):
    """A last stride other than 1 in query, key or value takes the math kernel (its node)."""
    xs = [R(2, 2, 3, 4, seed=s) for s in range(3)]

    def run(lib):
        q, k, v = (_strided(lib, x, u) for x, u in zip(xs, unit, strict=True))
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
        out.backward(lib.tensor(R(2, 2, 3, 4, seed=9)))
        return out, out.grad_fn.name(), q.grad, k.grad, v.grad

    compare(run, rtol=1e-6, atol=1e-6)


def test_sdpa_causal_with_a_strided_mask_stays_fused():
    q, k, v = R(2, 2, 3, 4), R(2, 2, 3, 4, seed=1), R(2, 2, 3, 4, seed=2)
    mask = np.ascontiguousarray(R(3, 3, seed=3).T)

    def run(lib):
        m = lib.tensor(mask.T.copy()).t()
        f = lib.nn.functional.scaled_dot_product_attention
        out = f(*(lib.tensor(x) for x in (q, k, v)), attn_mask=m, is_causal=True)
        return out

    compare(run, rtol=1e-6, atol=1e-6)


# ----- the encoder's nested-tensor path ----------------------------------------------------


@pytest.mark.parametrize("padding", [[[0, 1, 0, 0], [0, 0, 0, 1]], [[1, 0, 0, 0], [0, 0, 1, 0]]])
@pytest.mark.parametrize("as_float", [False, True])
def test_encoder_nested_path_without_mask_check(padding, as_float):
    """With mask_check=False PyTorch's nested tensor keeps each row's first (number of
    unpadded) tokens, wherever the padding mask puts them; the rest come back as zeros."""
    mask = np.array(padding, bool)
    src = R(2, 4, 8)

    def ctor(lib):
        layer = lib.nn.TransformerEncoderLayer(8, 2, 12, 0.0, batch_first=True)
        return lib.nn.TransformerEncoder(layer, 2, mask_check=False)

    def call(m, x):
        lib = torch if isinstance(x, torch.Tensor) else cr
        kpm = lib.tensor(np.where(mask, -np.inf, 0.0) if as_float else mask)
        with lib.no_grad():  # (the inference path: nothing to differentiate)
            return m(x, src_key_padding_mask=kpm)

    check_module(ctor, src, dtype=F64, train=False, call=call)


# ----- recurrent layers: empty sequences, the LSTM cell's state --------------------------


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize(
    "shape, batch_first", [((0, 2, 3), False), ((2, 0, 3), True), ((0, 3), False)]
)
def test_rnn_of_an_empty_sequence_raises(name, shape, batch_first):
    x = np.zeros(shape)
    assert_same_error(
        lambda lib: getattr(lib.nn, name)(3, 4, batch_first=batch_first, dtype=lib.float64)(
            lib.tensor(x)
        )
    )


@pytest.mark.parametrize(
    "x_shape, c_shape", [((2, 3), (7,)), ((2, 3), (3, 4)), ((2, 3), (2, 5)), ((3,), (7,))]
)
def test_lstm_cell_checks_the_cell_state(x_shape, c_shape):
    h_shape = x_shape[:-1] + (4,)

    def run(lib):
        cell = lib.nn.LSTMCell(3, 4, dtype=lib.float64)
        hx = (lib.tensor(R(*h_shape)), lib.tensor(R(*c_shape, seed=1)))
        return cell(lib.tensor(R(*x_shape, seed=2)), hx)

    assert_same_error(run)


# ----- values and gradients over the options ---------------------------------------------


def _mha_call(masks, need_weights, average, unbatched):
    rng = np.random.default_rng(5)
    kpm = rng.random((4,) if unbatched else (2, 4)) < 0.3
    kpm_float = np.where(kpm, -np.inf, 0.0)  # (with a float attn_mask: the same type)
    am = np.where(rng.random((3, 4)) < 0.3, -np.inf, rng.standard_normal((3, 4)))

    def call(m, q, k, v):
        lib = torch if isinstance(q, torch.Tensor) else cr
        kw = {}
        if "kpm" in masks:
            kw["key_padding_mask"] = lib.tensor(kpm_float if "am" in masks else kpm)
        if "am" in masks:
            kw["attn_mask"] = lib.tensor(am, dtype=q.dtype)
        if "causal" in masks:
            kw["attn_mask"] = lib.tensor(np.triu(np.ones((3, 4), bool), 1))
            kw["is_causal"] = True
        return m(q, k, v, need_weights=need_weights, average_attn_weights=average, **kw)

    return call


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"bias": False, "add_bias_kv": True},
        {"add_zero_attn": True, "kdim": 5, "vdim": 6},
        {"batch_first": True, "add_bias_kv": True, "add_zero_attn": True},
    ],
)
@pytest.mark.parametrize("masks", ["", "kpm", "am", "kpm+am", "causal"])
@pytest.mark.parametrize("need_weights, average", [(True, True), (True, False), (False, True)])
def test_multihead_attention_options(options, masks, need_weights, average):
    kd, vd = options.get("kdim", 8), options.get("vdim", 8)
    bf = options.get("batch_first", False)
    shape = (2, 3) if bf else (3, 2)
    kshape = (2, 4) if bf else (4, 2)
    check_module(
        lambda lib: lib.nn.MultiheadAttention(8, 2, **options),
        R(*shape, 8),
        R(*kshape, kd, seed=1),
        R(*kshape, vd, seed=2),
        dtype=F64,
        call=_mha_call(masks, need_weights, average, unbatched=False),
    )


@pytest.mark.parametrize("masks", ["", "kpm", "am"])
def test_multihead_attention_unbatched(masks):
    check_module(
        lambda lib: lib.nn.MultiheadAttention(8, 2, add_bias_kv=True),
        R(3, 8),
        R(4, 8, seed=1),
        R(4, 8, seed=2),
        dtype=F64,
        call=_mha_call(masks, True, False, unbatched=True),
    )


def _silu(x):
    return x * x.sigmoid()


@pytest.mark.parametrize("kind", ["encoder", "decoder", "transformer"])
@pytest.mark.parametrize(
    "options",
    [
        {"norm_first": True, "activation": "gelu"},
        {"bias": False, "batch_first": True},
        {"activation": _silu, "batch_first": True, "norm_first": True},
    ],
)
@pytest.mark.parametrize("masks", [False, True])
def test_transformer_options(kind, options, masks):
    bf = options.get("batch_first", False)
    src, tgt = R(*((2, 4) if bf else (4, 2)), 8), R(*((2, 3) if bf else (3, 2)), 8, seed=1)
    kpm = np.array([[0, 0, 1, 1], [0, 0, 0, 0]], bool)

    def ctor(lib):
        kw = dict(dim_feedforward=12, dropout=0.0, **options)
        if kind == "encoder":
            layer = lib.nn.TransformerEncoderLayer(8, 2, **kw)
            norm = lib.nn.LayerNorm(8)
            return lib.nn.TransformerEncoder(layer, 2, norm=norm, enable_nested_tensor=False)
        if kind == "decoder":
            layer = lib.nn.TransformerDecoderLayer(8, 2, **kw)
            return lib.nn.TransformerDecoder(layer, 2, norm=lib.nn.LayerNorm(8))
        with warnings.catch_warnings():  # (its encoder: no nested tensors for these options)
            warnings.simplefilter("ignore")
            return lib.nn.Transformer(8, 2, 1, 1, **kw)

    def call(m, s, t):
        lib = torch if isinstance(s, torch.Tensor) else cr
        if not masks:
            return m(s) if kind == "encoder" else m(t, s) if kind == "decoder" else m(s, t)
        k = lib.tensor(kpm)
        causal = lib.nn.Transformer.generate_square_subsequent_mask(3, dtype=s.dtype)
        if kind == "encoder":
            return m(s, src_key_padding_mask=k)
        if kind == "decoder":
            return m(t, s, tgt_mask=causal, memory_key_padding_mask=k, tgt_is_causal=True)
        return m(s, t, tgt_mask=causal, src_key_padding_mask=k, memory_key_padding_mask=k)

    check_module(ctor, src, tgt, dtype=F64, call=call)


@pytest.mark.parametrize(
    "name, options",
    [
        ("RNN", {"num_layers": 2, "nonlinearity": "relu", "bidirectional": True}),
        ("LSTM", {"num_layers": 2, "proj_size": 2, "bidirectional": True}),
        ("LSTM", {"bias": False, "batch_first": True}),
        ("GRU", {"num_layers": 3, "batch_first": True, "bidirectional": True}),
    ],
)
@pytest.mark.parametrize("packed", [False, True])
def test_recurrent_options_with_initial_state(name, options, packed):
    bf = options.get("batch_first", False)
    layers = options.get("num_layers", 1) * (2 if options.get("bidirectional") else 1)
    out = options.get("proj_size", 4)
    inputs = [R(*((3, 5) if bf else (5, 3)), 3), R(layers, 3, out, seed=1)]
    if name == "LSTM":
        inputs.append(R(layers, 3, 4, seed=2))

    def call(m, x, h, c=None):
        lib = torch if isinstance(x, torch.Tensor) else cr
        if packed:
            x = lib.nn.utils.rnn.pack_padded_sequence(
                x, lib.tensor([5, 2, 4]), batch_first=bf, enforce_sorted=False
            )
        output, hidden = m(x, h if c is None else (h, c))
        if packed:
            output = lib.nn.utils.rnn.pad_packed_sequence(output, batch_first=bf)[0]
        return output, hidden

    check_module(lambda lib: getattr(lib.nn, name)(3, 4, **options), *inputs, dtype=F64, call=call)


def test_sweep_helpers_agree_on_the_causal_mask():
    compare(lambda lib: lib.nn.Transformer.generate_square_subsequent_mask(4))
    assert_close(
        cr.nn.Transformer.generate_square_subsequent_mask(3, dtype=cr.float64),
        torch.nn.Transformer.generate_square_subsequent_mask(3, dtype=torch.float64),
    )


def _packed_lstm(h_shape, c_shape, num_layers=1):
    def run(lib):
        m = lib.nn.LSTM(3, 4, num_layers=num_layers, dtype=lib.float64)
        x = lib.tensor(R(5, 3, 3))
        packed = lib.nn.utils.rnn.pack_padded_sequence(
            x, lib.tensor([5, 2, 4]), enforce_sorted=False
        )
        return m(packed, (lib.tensor(R(*h_shape, seed=1)), lib.tensor(R(*c_shape, seed=2))))

    return run


@pytest.mark.parametrize(
    "h_shape, c_shape, num_layers",
    [((2, 3, 4), (2, 3, 4), 1), ((1, 3, 4), (1, 3, 4), 2), ((3, 3, 4), (3, 3, 4), 2)],
)
def test_packed_lstm_checks_the_number_of_layers_of_h(h_shape, c_shape, num_layers):
    assert_same_error(_packed_lstm(h_shape, c_shape, num_layers))


def test_packed_lstm_of_a_2d_state_raises_index_error():
    assert_same_error(_packed_lstm((3, 4), (3, 4)))


def test_packed_lstm_checks_the_hidden_size_of_c():
    """PyTorch raises a RuntimeError (of its parameter count); chainrule names the size."""
    with pytest.raises(RuntimeError):
        _packed_lstm((1, 3, 4), (1, 3, 5))(torch)
    with pytest.raises(
        RuntimeError, match=r"Expected hidden\[1\] size \(1, 3, 4\), got \[1, 3, 5\]"
    ):
        _packed_lstm((1, 3, 4), (1, 3, 5))(cr)


@pytest.mark.parametrize("name", ["RNN", "GRU"])
@pytest.mark.parametrize("x_shape, h_shape", [((5, 2, 3), (1, 2, 4)), ((5, 3), (1, 4))])
def test_recurrent_state_of_another_dtype_raises(name, x_shape, h_shape):
    """float32 weights and input, a float64 state: PyTorch's product refuses (no promotion)."""

    def run(lib):
        m = getattr(lib.nn, name)(3, 4)
        return m(lib.tensor(R(*x_shape), dtype=lib.float32), lib.ones(h_shape, dtype=lib.float64))

    assert_same_error(run)


def test_lstm_state_of_another_dtype_raises():
    """PyTorch's LSTM raises a RuntimeError of its kernel; chainrule names the dtypes."""
    for lib in (torch, cr):
        m = lib.nn.LSTM(3, 4)
        h = lib.ones(1, 2, 4, dtype=lib.float64)
        with pytest.raises(RuntimeError):
            m(lib.tensor(R(5, 2, 3), dtype=lib.float32), (h, h))
