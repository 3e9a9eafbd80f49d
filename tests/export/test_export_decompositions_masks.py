"""ExportedProgram.run_decompositions of masked attention: MultiheadAttention and the
Transformer layers with boolean and float masks (the mask's ``masked_fill_`` view chains
written again at each read, as PyTorch's functionalization writes them), the weights
path's ``baddbmm``, and ``scaled_dot_product_attention`` on 3-D and 5-D inputs: the same
code, node names and signature as the real ``ep.run_decompositions()``, the same outputs
(float64) on chainrule and in the real ``torch.export.load`` of the saved file."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from export_checks import decomposed_program_runs, decomposed_programs

import chainrule as cr
import chainrule.export as cexport

RNG = np.random.default_rng(11)


def _n(*shape):
    return RNG.standard_normal(shape)


def _keep(*shape):
    return RNG.random(shape) < 0.7


_PADDING = np.array([[False, False, True], [False, True, True]])
_CAUSAL = np.triu(np.ones((3, 3), bool), 1)


def _sdpa(lib, *args, **kwargs):
    return lib.nn.functional.scaled_dot_product_attention(*args, **kwargs)


# name -> (forward of (lib, module, *inputs), the inputs)
CASES = {
    "mha_key_padding_mask": (
        lambda lib, m, x, b: m.mha(x, x, x, key_padding_mask=b, need_weights=False)[0],
        lambda: [_n(2, 3, 4), _PADDING],
    ),
    "mha_bool_mask": (
        lambda lib, m, x, b: m.mha(x, x, x, attn_mask=b, need_weights=False)[0],
        lambda: [_n(2, 3, 4), _CAUSAL],
    ),
    "encoder_bool_mask": (
        lambda lib, m, x, b: m.enc(x, src_mask=b),
        lambda: [_n(2, 3, 4), _CAUSAL],
    ),
    "mha_float_masks": (
        lambda lib, m, x, a, b: (
            m.mha(x, x, x, attn_mask=a, need_weights=False)[0],
            m.mha(x, x, x, key_padding_mask=b, need_weights=False)[0],
            m.mha(x, x, x, attn_mask=a, key_padding_mask=b, need_weights=False)[0],
        ),
        lambda: [_n(2, 3, 4), _n(3, 3), _n(2, 3)],
    ),
    "mha_both_bool_masks": (
        lambda lib, m, x, a, b: m.mha(x, x, x, attn_mask=a, key_padding_mask=b, need_weights=False)[
            0
        ],
        lambda: [_n(2, 3, 4), _CAUSAL, _PADDING],
    ),
    "mha_causal_with_key_padding": (
        lambda lib, m, x, a, b: m.mha(
            x, x, x, attn_mask=a, key_padding_mask=b, is_causal=True, need_weights=False
        )[0],
        lambda: [_n(2, 3, 4), _CAUSAL, _PADDING],
    ),
    "mha_memory_padding_per_head_mask": (
        lambda lib, m, x, y, a, b: (
            m.mha(x, y, y, key_padding_mask=b, need_weights=False)[0],
            m.mha(x, x, x, attn_mask=a, need_weights=False)[0],
        ),
        lambda: [_n(2, 3, 4), _n(2, 5, 4), _keep(4, 3, 3), _keep(2, 5)],
    ),
    "mha_weights_with_masks": (
        lambda lib, m, x, a, b: (
            m.mha(x, x, x, key_padding_mask=b),
            m.mha(x, x, x, attn_mask=a, key_padding_mask=b, average_attn_weights=False),
        ),
        lambda: [_n(2, 3, 4), _CAUSAL, _PADDING],
    ),
    "encoder_masks": (
        lambda lib, m, x, a, b: (
            m.enc(x, src_key_padding_mask=b),
            m.enc(x, src_mask=a, src_key_padding_mask=b),
            m.enc(x, src_mask=a, src_key_padding_mask=b, is_causal=True),
        ),
        lambda: [_n(2, 3, 4), _CAUSAL, _PADDING],
    ),
    "decoder_masks": (
        lambda lib, m, x, y, a, b, c: (
            m.dec(x, y, tgt_mask=a, tgt_key_padding_mask=b, memory_key_padding_mask=c),
            m.dec(x, y, tgt_mask=a, tgt_is_causal=True),
        ),
        lambda: [_n(2, 3, 4), _n(2, 3, 4), _CAUSAL, _PADDING, _PADDING[::-1].copy()],
    ),
    "sdpa_3d": (
        lambda lib, m, q, k, v, b: (
            _sdpa(lib, q, k, v),
            _sdpa(lib, q, k, v, attn_mask=b),
            _sdpa(lib, q, k, v, is_causal=True, scale=0.3),
        ),
        lambda: [_n(2, 3, 4), _n(2, 5, 4), _n(2, 5, 4), _keep(3, 5)],
    ),
    "sdpa_5d_and_negative_scale": (
        lambda lib, m, q, k, v, b: (
            _sdpa(lib, q, k, v, attn_mask=b),
            _sdpa(lib, q[0], k[0], v[0], scale=-0.5),
        ),
        lambda: [_n(2, 2, 2, 3, 4), _n(2, 2, 2, 5, 4), _n(2, 2, 2, 5, 4), _n(3, 5)],
    ),
    "baddbmm": (
        lambda lib, m, x, a, b: (
            lib.baddbmm(x, a, b),
            lib.baddbmm(x, a, b, beta=0.5, alpha=2),
            lib.baddbmm(x[0, 0], a, b, beta=0),
        ),
        lambda: [_n(2, 3, 5), _n(2, 3, 4), _n(2, 4, 5)],
    ),
}


def _module(lib, name: str, count: int):
    nn, forward = lib.nn, CASES[name][0]

    class Layers(nn.Module):
        def __init__(self):
            super().__init__()
            self.mha = nn.MultiheadAttention(4, 2, batch_first=True)
            self.enc = nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, batch_first=True)
            self.dec = nn.TransformerDecoderLayer(4, 2, 8, dropout=0.0, batch_first=True)

    def run(self, *inputs):
        return forward(lib, self, *inputs)

    forwards = {
        2: lambda self, a, b: run(self, a, b),
        3: lambda self, a, b, c: run(self, a, b, c),
        4: lambda self, a, b, c, d: run(self, a, b, c, d),
        5: lambda self, a, b, c, d, e: run(self, a, b, c, d, e),
    }
    return type("Case", (Layers,), {"forward": forwards[count]})()


def _programs(name: str):
    arrays = CASES[name][1]()
    return decomposed_programs(lambda lib: _module(lib, name, len(arrays)), arrays)


@pytest.mark.parametrize("name", list(CASES))
def test_masked_attention_decomposes_to_pytorchs_program_and_runs_in_pytorch(name):
    tm, want, got, targs, cargs = _programs(name)
    assert [(n.op, n.name, str(n.target)) for n in got.graph.nodes] == [
        (n.op, n.name, str(n.target)) for n in want.graph.nodes
    ]
    assert got.graph_module.code == want.graph_module.code
    assert str(got.graph_signature) == str(want.graph_signature)
    decomposed_program_runs(tm, got, targs, cargs)


def test_a_mask_view_read_later_is_written_again_from_the_filled_mask():
    # PyTorch's numbering: the first view of the filled mask is dropped, its name kept
    _, want, got, _, _ = _programs("mha_key_padding_mask")
    names = [n.name for n in got.graph.nodes]
    assert names == [n.name for n in want.graph.nodes]
    mask_view = next(n for n in got.graph.nodes if n.name == "view_9")
    assert mask_view.args[0].name == "where"
    assert "view_7" not in names and "view_8" not in names


def test_baddbmm_is_in_both_default_tables():
    assert "aten.baddbmm.default" in {str(k) for k in torch.export.default_decompositions()}
    assert "aten.baddbmm.default" in {str(k) for k in cexport.default_decompositions()}


@pytest.mark.parametrize(
    "shapes, kwargs",
    [
        ([(2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4)], {}),
        ([(4, 3, 4), (2, 5, 4), (2, 5, 4)], {"enable_gqa": True}),
    ],
)
def test_attention_of_mixed_ranks_or_3d_gqa_is_refused_naming_the_case(shapes, kwargs):
    class M(cr.nn.Module):
        def forward(self, q, k, v):
            return cr.nn.functional.scaled_dot_product_attention(q, k, v, **kwargs)

    ep = cexport.export(M(), tuple(cr.tensor(_n(*s)) for s in shapes))
    with pytest.raises(NotImplementedError, match="of one rank"):
        ep.run_decompositions()
