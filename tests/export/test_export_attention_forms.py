"""chainrule.export.export of the forms of attention against the real torch.export.export
of the same PyTorch modules: nn.MultiheadAttention with separate projection weights
(kdim/vdim), bias_k/bias_v, add_zero_attn, is_causal, unbatched inputs and 3-D masks,
with and without the weights; F.scaled_dot_product_attention with is_causal, masks,
scale and enable_gqa; nn.TransformerDecoderLayer, nn.TransformerDecoder and
nn.Transformer. Node names, targets, generated code and signature match; the saved
program, read by the real torch.export.load, runs to PyTorch's outputs; and
chainrule.export.load of PyTorch's own export of each runs to its outputs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from export_checks import export_is_pytorchs, pair, same

import chainrule as cr
import chainrule.export as cexport

RNG = np.random.default_rng(11)


def _x(*shape):
    return RNG.standard_normal(shape)


def _pad(batch, source, padded):
    """A key padding mask: the last ``padded`` keys of the first sample masked."""
    mask = np.zeros((batch, source), dtype=bool)
    mask[0, source - padded :] = True
    return mask


def _causal(n):
    return np.triu(np.ones((n, n), dtype=bool), 1)


def _given(*inputs):
    """The inputs given (a forward of named inputs, as PyTorch's unlifting needs)."""
    return [x for x in inputs if x is not None]


def _make(lib, kind):
    nn, F = lib.nn, lib.nn.functional

    class Attention(nn.Module):
        """One attention module, called as ``call`` says."""

        def __init__(self, call, **options):
            super().__init__()
            self.mha = nn.MultiheadAttention(8, 2, **options)
            self.call = call

        def forward(self, a, b=None, c=None, d=None):
            return self.call(self.mha, *_given(a, b, c, d))

    class Functional(nn.Module):
        def forward(self, q, k, v, mask, bool_mask, kg, vg):
            sdpa = F.scaled_dot_product_attention
            return (
                sdpa(q, k, v, is_causal=True),
                sdpa(q, k, v, attn_mask=mask),
                sdpa(q, k, v, bool_mask, scale=0.3),
                sdpa(q, k, v, scale=0.25),
                sdpa(q, kg, vg, enable_gqa=True),
                sdpa(q, kg, vg, is_causal=True, scale=0.5, enable_gqa=True),
                sdpa(q[0], k[0], v[0]),
            )

    class Wrapped(nn.Module):
        def __init__(self, module, call):
            super().__init__()
            self.m = module
            self.call = call

        def forward(self, a, b, c=None, d=None, e=None):
            return self.call(self.m, *_given(a, b, c, d, e))

    def decoder_layer(**options):
        return nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, dropout=0.0, **options)

    makers = {
        "separate_weights": lambda: Attention(
            lambda m, q, k, v, pad: (
                m(q, k, v, key_padding_mask=pad),
                m(q, k, v, need_weights=False)[0],
            ),
            kdim=6,
            vdim=4,
        ),
        "separate_shared_key_value": lambda: Attention(
            lambda m, q, kv: (m(q, kv, kv), m(q, kv, kv, need_weights=False)[0]),
            kdim=6,
            vdim=6,
            batch_first=True,
            bias=False,
        ),
        "bias_kv_zero_attn": lambda: Attention(
            lambda m, x, pad, mask: (
                m(x, x, x, key_padding_mask=pad, attn_mask=mask, average_attn_weights=False),
                m(x, x, x, key_padding_mask=pad, attn_mask=mask, need_weights=False)[0],
            ),
            add_bias_kv=True,
            add_zero_attn=True,
        ),
        "bias_kv": lambda: Attention(
            lambda m, x: (m(x, x, x), m(x, x, x, need_weights=False)[0]), add_bias_kv=True
        ),
        "zero_attn": lambda: Attention(
            lambda m, q, kv, mask: (
                m(q, kv, kv, attn_mask=mask),
                m(q, kv, kv, need_weights=False)[0],
            ),
            add_zero_attn=True,
        ),
        "causal": lambda: Attention(
            lambda m, x, pad, mask: (
                m(x, x, x, attn_mask=mask, is_causal=True),
                m(x, x, x, attn_mask=mask, is_causal=True, need_weights=False)[0],
                m(x, x, x, key_padding_mask=pad, attn_mask=mask, is_causal=True)[0],
                m(
                    x,
                    x,
                    x,
                    key_padding_mask=pad,
                    attn_mask=mask,
                    is_causal=True,
                    need_weights=False,
                )[0],  # fmt: skip
            ),
            batch_first=True,
        ),
        "unbatched": lambda: Attention(
            lambda m, x, pad: (
                m(x, x, x, key_padding_mask=pad),
                m(x, x, x, need_weights=False)[0],
            )
        ),
        "unbatched_separate": lambda: Attention(
            lambda m, q, k, v: (m(q, k, v), m(q, k, v, need_weights=False)[0]),
            kdim=6,
            vdim=4,
        ),
        "mask_3d": lambda: Attention(
            lambda m, x, mask: (
                m(x, x, x, attn_mask=mask),
                m(x, x, x, attn_mask=mask, need_weights=False)[0],
            )
        ),
        "sdpa": Functional,
        "decoder_layer": lambda: Wrapped(decoder_layer(), lambda m, t, s: m(t, s)),
        "decoder_layer_masks": lambda: Wrapped(
            decoder_layer(batch_first=True, norm_first=True, activation="gelu"),
            lambda m, t, s, tm, tp, mp: (
                m(t, s, tgt_mask=tm, tgt_key_padding_mask=tp, memory_key_padding_mask=mp),
                m(t, s, tgt_mask=tm, tgt_is_causal=True),
            ),
        ),
        "decoder": lambda: Wrapped(
            nn.TransformerDecoder(decoder_layer(), 2, norm=nn.LayerNorm(8)),
            lambda m, t, s: m(t, s),
        ),
        "transformer": lambda: Wrapped(
            nn.Transformer(8, 2, 2, 2, 16, dropout=0.0, batch_first=True),
            lambda m, s, t: (
                m(s, t),
                m(s, t, tgt_mask=m.generate_square_subsequent_mask(3), tgt_is_causal=True),
            ),
        ),
    }
    return makers[kind]()


_INPUTS = {
    "separate_weights": lambda: (_x(3, 2, 8), _x(5, 2, 6), _x(5, 2, 4), _pad(2, 5, 2)),
    "separate_shared_key_value": lambda: (_x(2, 3, 8), _x(2, 5, 6)),
    "bias_kv_zero_attn": lambda: (_x(3, 2, 8), _pad(2, 3, 1), _causal(3)),
    "bias_kv": lambda: (_x(3, 2, 8),),
    "zero_attn": lambda: (_x(3, 2, 8), _x(4, 2, 8), _causal(4)[:3]),
    "causal": lambda: (_x(2, 4, 8), _pad(2, 4, 1), _causal(4)),
    "unbatched": lambda: (_x(3, 8), np.array([False, True, False])),
    "unbatched_separate": lambda: (_x(3, 8), _x(5, 6), _x(5, 4)),
    "mask_3d": lambda: (_x(3, 2, 8), _x(4, 3, 3)),
    "sdpa": lambda: (
        _x(2, 4, 3, 8),
        _x(2, 4, 5, 8),
        _x(2, 4, 5, 8),
        _x(3, 5),
        RNG.uniform(size=(2, 1, 3, 5)) > 0.3,
        _x(2, 2, 5, 8),
        _x(2, 2, 5, 8),
    ),
    "decoder_layer": lambda: (_x(3, 2, 8), _x(5, 2, 8)),
    "decoder_layer_masks": lambda: (
        _x(2, 3, 8),
        _x(2, 5, 8),
        _causal(3),
        _pad(2, 3, 1),
        _pad(2, 5, 2),
    ),
    "decoder": lambda: (_x(3, 2, 8), _x(5, 2, 8)),
    "transformer": lambda: (_x(2, 5, 8), _x(2, 3, 8)),
}

KINDS = list(_INPUTS)


@pytest.mark.parametrize("kind", KINDS)
def test_export_matches_pytorch_and_runs_there(tmp_path, kind):
    export_is_pytorchs(*pair(_make, _INPUTS, kind), tmp_path)


@pytest.mark.parametrize("kind", KINDS)
def test_pytorch_export_loads_and_runs(tmp_path, kind):
    tm, _, targs, cargs = pair(_make, _INPUTS, kind)
    torch.export.save(torch.export.export(tm, targs), tmp_path / "t.pt2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.export.load(tmp_path / "t.pt2")
    loaded = cexport.load(tmp_path / "t.pt2")
    assert [n.name for n in loaded.graph.nodes] == [n.name for n in want.graph.nodes]
    same(loaded.module()(*cargs), want.module()(*targs))


def test_attention_weights_with_dropout_in_training_as_pytorchs():
    """In training, the weights' dropout is a ``dropout`` node after the softmax (its
    values are random: the program, not its outputs, is compared)."""

    def make(lib):
        class Net(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.mha = lib.nn.MultiheadAttention(8, 2, dropout=0.25)

            def forward(self, x):
                return self.mha(x, x, x), self.mha(x, x, x, need_weights=False)[0]

        return Net().double()

    x = _x(3, 2, 8)
    want = torch.export.export(make(torch), (torch.tensor(x),))
    got = cexport.export(make(cr), (cr.tensor(x),))
    assert got.graph_module.code == want.graph_module.code
    assert "torch.ops.aten.dropout.default(softmax, 0.25, True)" in got.graph_module.code


def test_static_keys_are_refused():
    mha = cr.nn.MultiheadAttention(8, 2).double()

    class Net(cr.nn.Module):
        def forward(self, x, k):
            return cr.nn.functional.multi_head_attention_forward(
                x, x, x, 8, 2, mha.in_proj_weight, mha.in_proj_bias, None, None, False, 0.0,
                mha.out_proj.weight, mha.out_proj.bias, static_k=k,
            )[0]  # fmt: skip

    with pytest.raises(NotImplementedError, match="static keys"):
        cexport.export(Net(), (cr.tensor(_x(3, 2, 8)), cr.tensor(_x(4, 3, 4))))
