"""ExportedProgram.run_decompositions against the real ``ep.run_decompositions()``: programs
with a dynamic batch (PyTorch's ``sym_size`` and size arithmetic nodes, run by the real
torch.export.load at other sizes), ``scaled_dot_product_attention`` with ``is_causal`` and
boolean masks (so attention layers with masks), and activations written as PyTorch's
decompositions write them."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
import torch
from export_checks import same

import chainrule as cr
import chainrule.export as cexport

RNG = np.random.default_rng(11)


def _layers(lib, kind):
    nn, F = lib.nn, lib.nn.functional

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, 2, 3)
            self.fc = nn.Linear(32, 3)
            self.mlp = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
            self.mha = nn.MultiheadAttention(4, 2, batch_first=True)
            self.enc = nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, batch_first=True)

    def cnn(m, x):
        h = m.conv(x).relu()
        return m.fc(h.view(h.size(0), -1)).softmax(-1)

    forwards = {
        "mlp": lambda m, x: m.mlp(x),
        "cnn": cnn,
        "linear_3d": lambda m, x: m.mlp(x),
        "sdpa": lambda m, q, k, v, b: (
            F.scaled_dot_product_attention(q, k, v, is_causal=True),
            F.scaled_dot_product_attention(q, k, v, attn_mask=b, scale=0.4),
        ),
        "causal_layers": lambda m, x, b: (
            m.enc(x, src_mask=b, is_causal=True),
            m.mha(x, x, x, attn_mask=b, is_causal=True, need_weights=False)[0],
        ),
        "padding_mask": lambda m, x, b: m.mha(x, x, x, key_padding_mask=b, need_weights=False)[0],
        "activations": lambda m, x: (
            F.hardswish(x),
            F.hardsigmoid(x),
            F.softplus(x),
            F.relu6(x),
        ),
    }

    class One(M):
        def forward(self, a):
            return forwards[kind](self, a)

    class Two(M):
        def forward(self, a, b):
            return forwards[kind](self, a, b)

    class Four(M):
        def forward(self, a, b, c, d):
            return forwards[kind](self, a, b, c, d)

    return {1: One, 2: Two, 4: Four}[len(INPUTS[kind]())]()


_CAUSAL = np.triu(np.ones((3, 3), bool), 1)
INPUTS = {
    "mlp": lambda: [RNG.standard_normal((3, 4))],
    "cnn": lambda: [RNG.standard_normal((3, 1, 6, 6))],
    "linear_3d": lambda: [RNG.standard_normal((2, 3, 4))],
    "sdpa": lambda: [
        RNG.standard_normal((2, 2, 3, 4)),
        RNG.standard_normal((2, 2, 5, 4)),
        RNG.standard_normal((2, 2, 5, 4)),
        RNG.random((3, 5)) < 0.7,
    ],
    "causal_layers": lambda: [RNG.standard_normal((2, 3, 4)), _CAUSAL],
    "padding_mask": lambda: [
        RNG.standard_normal((2, 3, 4)),
        np.array([[False, False, True], [False, True, True]]),
    ],
    "activations": lambda: [RNG.standard_normal((3, 4)) * 4],
}


def _modules(kind):
    torch.manual_seed(0)
    tm = _layers(torch, kind).double().eval()
    cm = _layers(cr, kind).double().eval()
    cm.load_state_dict({k: cr.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return tm, cm


def _programs(kind, dynamic=False):
    tm, cm = _modules(kind)
    arrays = INPUTS[kind]()
    targs = tuple(torch.tensor(a) for a in arrays)
    cargs = tuple(cr.tensor(a) for a in arrays)
    tspec = ({0: torch.export.Dim("batch")},) if dynamic else None
    cspec = ({0: cexport.Dim("batch")},) if dynamic else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.export.export(tm, targs, dynamic_shapes=tspec).run_decompositions()
    got = cexport.export(cm, cargs, dynamic_shapes=cspec).run_decompositions()
    return tm, want, got, targs, cargs


def _loaded(got, path):
    cexport.save(got, path / "d.pt2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.export.load(path / "d.pt2")


@pytest.mark.parametrize("kind", ["mlp", "cnn"])
def test_a_dynamic_batch_decomposes_as_pytorch(tmp_path, kind):
    """The same code, names, signature and range constraints; saved, the real
    torch.export.load runs it at another batch size."""
    tm, want, got, _, _ = _programs(kind, dynamic=True)
    assert got.graph_module.code == want.graph_module.code
    assert str(got.graph_signature) == str(want.graph_signature)
    assert str(got.range_constraints) == str(want.range_constraints)
    other = RNG.standard_normal((5, *INPUTS[kind]()[0].shape[1:]))
    same(_loaded(got, tmp_path).module()(torch.tensor(other)), tm(torch.tensor(other)))
    same(got.module()(cr.tensor(other)), tm(torch.tensor(other)))


def _numbers_dropped(code: str) -> str:
    """The code with fx's numbering of names dropped (``mul_4`` -> ``mul``)."""
    return re.sub(r"\b([a-z_]+?)_\d+\b", r"\1", code)


def test_a_dynamic_batch_through_3d_linears_writes_pytorchs_size_arithmetic(tmp_path):
    """``view(x, [s * 3, 4])`` + ``addmm`` + ``view(.., [s, 3, n])``: PyTorch's calls and
    ``sym_size``/``mul`` nodes (PyTorch numbers these names after the sizes its retrace
    computed and dropped); saved, it runs at another batch size."""
    tm, want, got, _, _ = _programs("linear_3d", dynamic=True)
    code = got.graph_module.code
    assert "sym_size_int * 3" in code
    assert _numbers_dropped(code) == _numbers_dropped(want.graph_module.code)
    assert str(got.range_constraints) == str(want.range_constraints)
    other = torch.tensor(RNG.standard_normal((6, 3, 4)))
    same(_loaded(got, tmp_path).module()(other), tm(other))


@pytest.mark.parametrize("kind", ["sdpa", "causal_layers", "activations"])
def test_masks_and_activations_decompose_as_pytorch(tmp_path, kind):
    """``is_causal`` (a lower-triangular mask of ``arange``s) and boolean masks (0 or
    -inf by ``where``), hardswish/hardsigmoid/relu6 (clamps), softplus (``log1p`` of
    ``exp``, ``x`` above the threshold): PyTorch's code, run to its outputs."""
    tm, want, got, targs, cargs = _programs(kind)
    assert [(n.op, n.name) for n in got.graph.nodes] == [(n.op, n.name) for n in want.graph.nodes]
    assert got.graph_module.code == want.graph_module.code
    expected = tm(*targs)
    same(got.module()(*cargs), expected)
    same(_loaded(got, tmp_path).module()(*targs), expected)


def test_a_key_padding_mask_decomposes_to_pytorchs_calls(tmp_path):
    """MultiheadAttention's key padding mask (``zeros_like`` + ``masked_fill_``) as
    ``full_like`` + ``where``: PyTorch's calls in order (its names after the mask are
    numbered past names its functionalization took)."""
    tm, want, got, targs, cargs = _programs("padding_mask")
    assert _numbers_dropped(got.graph_module.code) == _numbers_dropped(want.graph_module.code)
    expected = tm(*targs)
    same(got.module()(*cargs), expected)
    same(_loaded(got, tmp_path).module()(*targs), expected)
