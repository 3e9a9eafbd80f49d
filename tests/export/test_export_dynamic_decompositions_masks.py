"""``run_decompositions`` of attention programs exported with dynamic sizes, against the
real PyTorch. Over a dynamic batch and length the decomposed program has sizes that are
products of symbols, and PyTorch names its nodes after the size computations its retrace
drops (``mul_85``): chainrule refuses these, naming why. With one dynamic size shared by
the input and its mask, the size is read from the input PyTorch reads it from (the source
that numbers the shared symbol), the program's own size arithmetic stays in its place, and
the program runs in the real torch.export.load (fx's numbering of its names aside)."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
import torch
from export_checks import same

import chainrule as cr
import chainrule.export as cexport

RNG = np.random.default_rng(53)


def _pad(b: int, t: int) -> np.ndarray:
    """A key padding mask hiding the last key of each row (never a whole row)."""
    mask = np.zeros((b, t), bool)
    mask[:, -1] = True
    return mask


def _attention(lib, call):
    class Attention(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = lib.nn.MultiheadAttention(4, 2, batch_first=True)

        def forward(self, a, b):
            return call(self.attn, a, b)

    return Attention()


def _kpm(lib):
    return _attention(lib, lambda m, x, p: m(x, x, x, key_padding_mask=p)[0])


def _bool_mask(lib):
    return _attention(lib, lambda m, x, a: m(x, x, x, attn_mask=a, need_weights=False)[0])


def _cross(lib):
    return _attention(lib, lambda m, q, kv: m(q, kv, kv, need_weights=False)[0])


def _encoder_layer(lib):
    class Encoder(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = lib.nn.TransformerEncoderLayer(4, 2, 8, 0.0, batch_first=True)

        def forward(self, x, p):
            return self.layer(x, src_key_padding_mask=p)

    return Encoder()


# name: (make, inputs, dims of each input by name)
FORMS = {
    "key_padding_mask": (
        _kpm,
        lambda: [RNG.standard_normal((3, 5, 4)), _pad(3, 5)],
        [{0: "b", 1: "t"}, {0: "b", 1: "t"}],
    ),
    "bool attn_mask": (
        _bool_mask,
        lambda: [RNG.standard_normal((3, 5, 4)), RNG.random((5, 5)) < 0.3],
        [{0: "b", 1: "t"}, {0: "t", 1: "t"}],
    ),
    "cross-attention": (
        _cross,
        lambda: [RNG.standard_normal((3, 5, 4)), RNG.standard_normal((3, 6, 4))],
        [{0: "b", 1: "t"}, {0: "b", 1: "s"}],
    ),
    "encoder layer, src_key_padding_mask": (
        _encoder_layer,
        lambda: [RNG.standard_normal((3, 5, 4)), _pad(3, 5)],
        [{0: "b", 1: "t"}, {0: "b", 1: "t"}],
    ),
}


def _pair(make):
    torch.manual_seed(0)
    tm, cm = make(torch).double().eval(), make(cr).double().eval()
    cm.load_state_dict({k: cr.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return tm, cm


def _spec(lib, dims):
    found: dict[str, object] = {}
    return [{d: found.setdefault(n, lib.Dim(n)) for d, n in named.items()} for named in dims]


def _programs(make, arrays, dims):
    tm, cm = _pair(make)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.export.export(
            tm, tuple(torch.tensor(a) for a in arrays), dynamic_shapes=_spec(torch.export, dims)
        ).run_decompositions()
    got = cexport.export(
        cm, tuple(cr.tensor(a) for a in arrays), dynamic_shapes=_spec(cexport, dims)
    )
    return tm, want, got


@pytest.mark.parametrize("form", list(FORMS))
def test_a_product_of_dynamic_sizes_is_refused_naming_why(form):
    """PyTorch's decomposition reads a product of two symbols (``sym_size_int_10 *
    sym_size_int_11``), its names numbered past dropped size computations: refused."""
    make, inputs, dims = FORMS[form]
    _, want, got = _programs(make, inputs(), dims)
    assert re.search(r"= sym_size_int_\d+ \* sym_size_int_\d+\n", want.graph_module.code)
    with pytest.raises(NotImplementedError, match="is a product of dynamic sizes"):
        got.run_decompositions()


def _numbers_dropped(code: str) -> str:
    """The code with fx's numbering of names dropped (``mul_72`` -> ``mul``)."""
    return re.sub(r"\b([a-z_]+?)_\d+\b", r"\1", code)


def _reads(ep) -> list[tuple[str, int]]:
    return [
        (n.args[0].name, n.args[1]) for n in ep.graph.nodes if str(n.target) == "aten.sym_size.int"
    ]


@pytest.mark.parametrize("d", [0, 1])
def test_a_shared_dynamic_size_is_read_from_the_input_pytorch_reads(tmp_path, d):
    """The batch (or length) of the input and of its key padding mask is one symbol;
    PyTorch reads it from the input whose source numbers the symbol (the lower number),
    and so does chainrule; the key padding mask's view chains and the out projection's
    ``5 * s`` (in its place, before the ``clone``) are PyTorch's, its fx numbering of
    names aside. Saved, the real torch.export.load runs it at other sizes."""
    x, pad = RNG.standard_normal((3, 5, 4)), _pad(3, 5)
    dims = [{d: "n"}, {d: "n"}]
    tm, want, got = _programs(_kpm, [x, pad], dims)
    got = got.run_decompositions()
    assert _reads(got) == _reads(want)
    assert [str(n.target) for n in got.graph.nodes] == [str(n.target) for n in want.graph.nodes]
    assert _numbers_dropped(got.graph_module.code) == _numbers_dropped(want.graph_module.code)
    assert str(got.graph_signature) == str(want.graph_signature)
    assert str(got.range_constraints) == str(want.range_constraints)
    cexport.save(got, tmp_path / "d.pt2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = torch.export.load(tmp_path / "d.pt2")
    for n in (2, 6):
        b, t = (n, 5) if d == 0 else (3, n)
        other = [torch.tensor(RNG.standard_normal((b, t, 4))), torch.tensor(_pad(b, t))]
        expected = tm(*other)
        same(loaded.module()(*other), expected)
        same(got.module()(*(cr.tensor(a.numpy()) for a in other)), expected)
