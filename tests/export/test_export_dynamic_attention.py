"""MultiheadAttention and the Transformer encoder with a dynamic batch (and sequence
length) under dynamic_shapes: chainrule's export against the real torch.export.export
(the views' ``sym_size``/``mul`` nodes and their names, the generated code, the printed
program, range constraints), the saved file run by the real torch.export.load at other
sizes against PyTorch's outputs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from export_checks import printed

import chainrule as cr
import chainrule.export as cexport

RNG = np.random.default_rng(23)


def _attention(batch_first: bool, need_weights: bool):
    def make(lib):
        class Attention(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.attn = lib.nn.MultiheadAttention(4, 2, batch_first=batch_first)

            def forward(self, x):
                out, weights = self.attn(x, x, x, need_weights=need_weights)
                return (out, weights) if need_weights else out

        return Attention().double()

    return make


def _encoder_layer(activation: str, norm_first: bool):
    def make(lib):
        class Encoder(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.layer = lib.nn.TransformerEncoderLayer(
                    4, 2, 8, 0.0, activation, batch_first=True, norm_first=norm_first
                )

            def forward(self, x):
                return self.layer(x)

        return Encoder().double()

    return make


def _encoder(lib):
    layer = lib.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, batch_first=True)
    return lib.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).double()


def _dims(e, names: dict[int, str]) -> list:
    return [{d: e.Dim(name) for d, name in names.items()}]


# name: (make, input shape, dynamic dims)
CASES = {
    "mha batch_first, dynamic batch": (_attention(True, False), (3, 5, 4), {0: "b"}),
    "mha batch_first, weights, dynamic batch": (_attention(True, True), (3, 5, 4), {0: "b"}),
    "mha (L, N, E), dynamic batch": (_attention(False, False), (5, 3, 4), {1: "b"}),
    "mha (L, N, E), weights, dynamic batch": (_attention(False, True), (5, 3, 4), {1: "b"}),
    "mha batch_first, dynamic length": (_attention(True, False), (3, 5, 4), {1: "t"}),
    "mha batch_first, weights, dynamic length": (_attention(True, True), (3, 5, 4), {1: "t"}),
    "mha batch_first, dynamic batch and length": (
        _attention(True, True),
        (3, 5, 4),
        {0: "b", 1: "t"},
    ),
    "encoder layer relu": (_encoder_layer("relu", False), (3, 5, 4), {0: "b"}),
    "encoder layer gelu norm_first": (_encoder_layer("gelu", True), (3, 5, 4), {0: "b"}),
    "encoder layer, dynamic length": (_encoder_layer("relu", False), (3, 5, 4), {1: "t"}),
    "encoder of two layers": (_encoder, (3, 5, 4), {0: "b"}),
    "encoder of two layers, dynamic length": (_encoder, (3, 5, 4), {1: "t"}),
}


def _pair(make):
    torch.manual_seed(0)
    tm, cm = make(torch), make(cr)
    cm.load_state_dict({k: cr.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return tm.eval(), cm.eval()


def _same(got, want):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", list(CASES))
def test_dynamic_attention_exports_as_pytorch_and_runs_at_other_sizes(tmp_path, case):
    make, shape, names = CASES[case]
    tm, cm = _pair(make)
    x = RNG.standard_normal(shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.export.export(
            tm, (torch.tensor(x),), dynamic_shapes=_dims(torch.export, names)
        )
    got = cexport.export(cm, (cr.tensor(x),), dynamic_shapes=_dims(cexport, names))
    assert got.graph_module.code == want.graph_module.code
    assert printed(got) == printed(want)
    assert str(got.range_constraints) == str(want.range_constraints)
    assert [n.name for n in got.graph.nodes] == [n.name for n in want.graph.nodes]
    cexport.save(got, tmp_path / "attention.pt2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = torch.export.load(tmp_path / "attention.pt2")
    assert loaded.graph_module.code == want.graph_module.code
    for grow in (-1, 4):
        other = RNG.standard_normal([n + grow if d in names else n for d, n in enumerate(shape)])
        _same(loaded.module()(torch.tensor(other)), tm(torch.tensor(other)))
        _same(got.module()(cr.tensor(other)), tm(torch.tensor(other)))
