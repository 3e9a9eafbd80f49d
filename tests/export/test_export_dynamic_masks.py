"""Attention with a dynamic batch and sequence length beyond plain self-attention: key
padding and bool or float attention masks, cross-attention (a key of another length), the
Transformer decoder layer and stack, separate projection weights (kdim/vdim), bias_k/bias_v,
add_zero_attn and unbatched input. chainrule's export against the real torch.export.export
(node names with PyTorch's sym_size numbering, targets, code, signature, range
constraints), its saved file run by the real torch.export.load, and PyTorch's file run by
chainrule.export.load, at other sizes against PyTorch's eager outputs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from export_checks import printed, same

import chainrule as cr
import chainrule.export as cexport

RNG = np.random.default_rng(41)
BASE = {"b": 3, "t": 5, "s": 6}
OTHERS = ({"b": 2, "t": 4, "s": 7}, {"b": 5, "t": 7, "s": 3})


def _x(*dims: str) -> tuple:
    return ("x", dims)


def _pad(*dims: str) -> tuple:
    return ("pad", dims)


def _mask(*dims: str) -> tuple:
    return ("bool", dims)


def _float(*dims: str) -> tuple:
    return ("float", dims)


def _array(kind: str, dims: tuple, sizes: dict) -> np.ndarray:
    """An input of these sizes (names of BASE, or ints); masks never hide a whole row."""
    shape = [sizes[d] if isinstance(d, str) else d for d in dims]
    if kind == "x":
        return RNG.standard_normal(shape)
    if kind == "float":
        return RNG.standard_normal(shape) * (RNG.standard_normal(shape) > 0)
    hidden = RNG.standard_normal(shape) > 0.3
    hidden[..., 0] = False
    return hidden


def _module(n: int, build, call):
    """A module of ``n`` tensor inputs holding ``build(lib)`` as ``attn``."""

    def make(lib):
        class One(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.attn = build(lib)

            def forward(self, a):
                return call(self.attn, a)

        class Two(One):
            def forward(self, a, b):
                return call(self.attn, a, b)

        class Three(One):
            def forward(self, a, b, c):
                return call(self.attn, a, b, c)

        class Four(One):
            def forward(self, a, b, c, d):
                return call(self.attn, a, b, c, d)

        return {1: One, 2: Two, 3: Three, 4: Four}[n]().double().eval()

    return make


def _mha(n, call, **kwargs):
    return _module(n, lambda lib: lib.nn.MultiheadAttention(4, 2, batch_first=True, **kwargs), call)


def _decoder_layer(lib):
    return lib.nn.TransformerDecoderLayer(4, 2, 8, 0.0, batch_first=True)


def _decoder(lib):
    return lib.nn.TransformerDecoder(_decoder_layer(lib), 2)


def _encoder(lib):
    layer = lib.nn.TransformerEncoderLayer(4, 2, 8, 0.0, batch_first=True)
    return lib.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)


def _kpm(weights: bool = False):
    def call(m, x, p):
        out = m(x, x, x, key_padding_mask=p, need_weights=weights)
        return out if weights else out[0]

    return call


# name: (make, inputs (kind, dims))
CASES = {
    "key_padding_mask": (_mha(2, _kpm()), [_x("b", "t", 4), _pad("b", "t")]),
    "key_padding_mask, weights": (_mha(2, _kpm(True)), [_x("b", "t", 4), _pad("b", "t")]),
    "float key_padding_mask": (_mha(2, _kpm()), [_x("b", "t", 4), _float("b", "t")]),
    "key_padding_mask, dynamic batch": (_mha(2, _kpm()), [_x("b", 5, 4), _pad("b", 5)]),
    "key_padding_mask, dynamic length": (_mha(2, _kpm()), [_x(3, "t", 4), _pad(3, "t")]),
    "bool attn_mask": (
        _mha(2, lambda m, x, a: m(x, x, x, attn_mask=a, need_weights=False)[0]),
        [_x("b", "t", 4), _mask("t", "t")],
    ),
    "float attn_mask, weights": (
        _mha(2, lambda m, x, a: m(x, x, x, attn_mask=a)),
        [_x("b", "t", 4), _float("t", "t")],
    ),
    "both masks": (
        _mha(
            3, lambda m, x, a, p: m(x, x, x, attn_mask=a, key_padding_mask=p, need_weights=False)[0]
        ),
        [_x("b", "t", 4), _mask("t", "t"), _pad("b", "t")],
    ),
    "both masks, weights": (
        _mha(3, lambda m, x, a, p: m(x, x, x, attn_mask=a, key_padding_mask=p)),
        [_x("b", "t", 4), _mask("t", "t"), _pad("b", "t")],
    ),
    "is_causal with a mask": (
        _mha(2, lambda m, x, a: m(x, x, x, attn_mask=a, is_causal=True, need_weights=False)[0]),
        [_x("b", "t", 4), _mask("t", "t")],
    ),
    "cross-attention": (
        _mha(2, lambda m, q, kv: m(q, kv, kv, need_weights=False)[0]),
        [_x("b", "t", 4), _x("b", "s", 4)],
    ),
    "cross-attention, weights": (
        _mha(2, lambda m, q, kv: m(q, kv, kv)),
        [_x("b", "t", 4), _x("b", "s", 4)],
    ),
    "cross-attention, key_padding_mask": (
        _mha(3, lambda m, q, kv, p: m(q, kv, kv, key_padding_mask=p, need_weights=False)[0]),
        [_x("b", "t", 4), _x("b", "s", 4), _pad("b", "s")],
    ),
    "cross-attention, attn_mask": (
        _mha(3, lambda m, q, kv, a: m(q, kv, kv, attn_mask=a, need_weights=False)[0]),
        [_x("b", "t", 4), _x("b", "s", 4), _mask("t", "s")],
    ),
    "key and value apart": (
        _mha(3, lambda m, q, k, v: m(q, k, v, need_weights=False)[0]),
        [_x("b", "t", 4), _x("b", "s", 4), _x("b", "s", 4)],
    ),
    "kdim/vdim": (
        _mha(3, lambda m, q, k, v: m(q, k, v), kdim=3, vdim=5),
        [_x("b", "t", 4), _x("b", "s", 3), _x("b", "s", 5)],
    ),
    "kdim/vdim, key_padding_mask": (
        _mha(
            4,
            lambda m, q, k, v, p: m(q, k, v, key_padding_mask=p, need_weights=False)[0],
            kdim=3,
            vdim=5,
        ),
        [_x("b", "t", 4), _x("b", "s", 3), _x("b", "s", 5), _pad("b", "s")],
    ),
    "bias_k/bias_v": (
        _mha(1, lambda m, x: m(x, x, x, need_weights=False)[0], add_bias_kv=True),
        [_x("b", "t", 4)],
    ),
    "bias_k/bias_v and add_zero_attn, weights": (
        _mha(1, lambda m, x: m(x, x, x), add_bias_kv=True, add_zero_attn=True),
        [_x("b", "t", 4)],
    ),
    "add_zero_attn": (
        _mha(1, lambda m, x: m(x, x, x, need_weights=False)[0], add_zero_attn=True),
        [_x("b", "t", 4)],
    ),
    "add_zero_attn, cross-attention": (
        _mha(2, lambda m, q, kv: m(q, kv, kv), add_zero_attn=True),
        [_x("b", "t", 4), _x("b", "s", 4)],
    ),
    "unbatched": (_mha(1, lambda m, x: m(x, x, x)), [_x("t", 4)]),
    "unbatched, key_padding_mask": (_mha(2, _kpm()), [_x("t", 4), _pad("t")]),
    "decoder layer": (
        _module(2, _decoder_layer, lambda m, t, mem: m(t, mem)),
        [_x("b", "t", 4), _x("b", "s", 4)],
    ),
    "decoder layer, causal tgt_mask": (
        _module(3, _decoder_layer, lambda m, t, mem, a: m(t, mem, tgt_mask=a, tgt_is_causal=True)),
        [_x("b", "t", 4), _x("b", "s", 4), _float("t", "t")],
    ),
    "decoder of two layers, padding masks": (
        _module(
            4,
            _decoder,
            lambda m, t, mem, tp, mp: m(
                t, mem, tgt_key_padding_mask=tp, memory_key_padding_mask=mp
            ),
        ),
        [_x("b", "t", 4), _x("b", "s", 4), _pad("b", "t"), _pad("b", "s")],
    ),
    "encoder of two layers, src_key_padding_mask": (
        _module(2, _encoder, lambda m, x, p: m(x, src_key_padding_mask=p)),
        [_x("b", "t", 4), _pad("b", "t")],
    ),
}


def _pair(make):
    torch.manual_seed(0)
    tm, cm = make(torch), make(cr)
    cm.load_state_dict({k: cr.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return tm, cm


def _dynamic(lib, inputs) -> list:
    found: dict[str, object] = {}
    return [
        {d: found.setdefault(n, lib.Dim(n)) for d, n in enumerate(dims) if isinstance(n, str)}
        for _, dims in inputs
    ]


@pytest.mark.parametrize("case", list(CASES))
def test_dynamic_attention_form_exports_as_pytorch(tmp_path, case):
    make, inputs = CASES[case]
    tm, cm = _pair(make)
    arrays = [_array(kind, dims, BASE) for kind, dims in inputs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.export.export(
            tm,
            tuple(torch.tensor(a) for a in arrays),
            dynamic_shapes=_dynamic(torch.export, inputs),
        )
    got = cexport.export(
        cm, tuple(cr.tensor(a) for a in arrays), dynamic_shapes=_dynamic(cexport, inputs)
    )
    assert [(n.op, n.name) for n in got.graph.nodes] == [(n.op, n.name) for n in want.graph.nodes]
    assert [str(n.target) for n in got.graph.nodes] == [str(n.target) for n in want.graph.nodes]
    assert got.graph_module.code == want.graph_module.code
    assert str(got.graph_signature) == str(want.graph_signature)
    assert str(got.range_constraints) == str(want.range_constraints)
    assert printed(got) == printed(want)
    cexport.save(got, tmp_path / "chainrule.pt2")
    torch.export.save(want, tmp_path / "pytorch.pt2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = torch.export.load(tmp_path / "chainrule.pt2")
    theirs = cexport.load(tmp_path / "pytorch.pt2")
    assert loaded.graph_module.code == want.graph_module.code
    assert theirs.graph_module.code == want.graph_module.code
    for sizes in OTHERS:
        other = [_array(kind, dims, sizes) for kind, dims in inputs]
        expected = tm(*(torch.tensor(a) for a in other))
        same(loaded.module()(*(torch.tensor(a) for a in other)), expected)
        same(got.module()(*(cr.tensor(a) for a in other)), expected)
        same(theirs.module()(*(cr.tensor(a) for a in other)), expected)


REFUSED = {
    "bias_k/bias_v and a mask": (
        _mha(2, _kpm(), add_bias_kv=True),
        [_x("b", "t", 4), _pad("b", "t")],
    ),
    "bias_k/bias_v and a key other than the query": (
        _mha(2, lambda m, q, kv: m(q, kv, kv)[0], add_bias_kv=True),
        [_x("b", "t", 4), _x("b", "s", 4)],
    ),
    "add_zero_attn and a mask": (
        _mha(2, lambda m, x, a: m(x, x, x, attn_mask=a)[0], add_zero_attn=True),
        [_x("b", "t", 4), _float("t", "t")],
    ),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_dynamic_attention_forms_not_modelled_are_refused(case):
    """Forms whose dynamic sizes PyTorch writes with nodes this export does not model yet
    (or that PyTorch's own export refuses) raise rather than give another program."""
    make, inputs = REFUSED[case]
    _, cm = _pair(make)
    arrays = [cr.tensor(_array(kind, dims, BASE)) for kind, dims in inputs]
    with pytest.raises(NotImplementedError, match=case):
        cexport.export(cm, tuple(arrays), dynamic_shapes=_dynamic(cexport, inputs))
