"""Sizes a forward reads and passes to an op under dynamic_shapes (``x.view(x.size(0), -1)``,
an LSTM's default state, attention's head reshapes): chainrule's export against the real
torch.export.export (``sym_size`` and ``operator`` nodes, their names, the generated code,
the printed program, range constraints), the saved file run by the real torch.export.load
at other sizes, and PyTorch's such programs loaded and run by chainrule."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from export_printing import printed

import chainrule as cr
import chainrule.export as cexport

RNG = np.random.default_rng(11)


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


def _cnn(flat):
    def make(lib):
        class CNN(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = lib.nn.Conv2d(1, 2, 3)
                self.fc = lib.nn.Linear(2 * 4 * 4, 3)

            def forward(self, x):
                h = self.conv(x).relu()
                if flat == "view":
                    h = h.view(h.size(0), -1)
                elif flat == "reshape":
                    h = h.reshape(x.shape[0], -1)
                else:
                    h = h.flatten(1)
                return self.fc(h)

        return CNN().double()

    return make


def _lstm(lib):
    class Tagger(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = lib.nn.LSTM(3, 4, batch_first=True)
            self.fc = lib.nn.Linear(4, 2)

        def forward(self, x):
            h = lib.zeros(1, x.size(0), 4, dtype=x.dtype)
            c = lib.zeros(1, x.size(0), 4, dtype=x.dtype)
            out, _ = self.rnn(x, (h, c))
            default, _ = self.rnn(x)  # (its default state: zeros of the input's batch)
            return self.fc(out.sum(1) + default.sum(1))

    return Tagger().double()


def _attention(lib):
    class SelfAttention(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.heads = 2
            self.qkv = lib.nn.Linear(8, 24)
            self.out = lib.nn.Linear(8, 8)

        def forward(self, x):
            b, t, c = x.size()
            q, k, v = self.qkv(x).split(c, dim=2)
            q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
            k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
            v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
            scores = (q @ k.transpose(-2, -1)).softmax(-1)
            y = (scores @ v).transpose(1, 2).reshape(b, t, c)
            return self.out(y)

    return SelfAttention().double()


def _arithmetic(lib):
    class Sizes(lib.nn.Module):
        def forward(self, x):
            pairs = x.reshape(x.size(0) * 2, -1)
            doubled = lib.cat([x, x]).view(2 * x.size(0), -1)
            rows = x.reshape(x.size(0) * x.size(1), -1)
            pad = lib.zeros(x.shape[0] + 1, 3, dtype=x.dtype)
            return pairs * 2, doubled, rows.sum(1), pad, lib.arange(x.size(0)) + x.sum((1, 2))

    return Sizes().double()


CASES = {
    "cnn view(x.size(0), -1)": (_cnn("view"), (5, 1, 6, 6), lambda e: {"x": {0: e.Dim("batch")}}),
    "cnn reshape(x.shape[0], -1)": (
        _cnn("reshape"),
        (5, 1, 6, 6),
        lambda e: {"x": {0: e.Dim.AUTO}},
    ),
    "cnn flatten(1)": (_cnn("flatten"), (5, 1, 6, 6), lambda e: {"x": {0: e.Dim.AUTO}}),
    "lstm zeros(1, x.size(0), h)": (_lstm, (4, 5, 3), lambda e: {"x": {0: e.Dim("batch", max=64)}}),
    "attention heads (b, t, h, d)": (
        _attention,
        (3, 5, 8),
        lambda e: {"x": {0: e.Dim("b"), 1: e.Dim("t")}},
    ),
    "arithmetic on sizes": (
        _arithmetic,
        (4, 3, 2),
        lambda e: {"x": {0: e.Dim.AUTO, 1: e.Dim.AUTO}},
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_read_sizes_export_as_pytorch_and_run_at_other_sizes(tmp_path, case):
    make, shape, spec = CASES[case]
    tm, cm = _pair(make)
    x = RNG.standard_normal(shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.export.export(tm, (torch.tensor(x),), dynamic_shapes=spec(torch.export))
    got = cexport.export(cm, (cr.tensor(x),), dynamic_shapes=spec(cexport))
    assert got.graph_module.code == want.graph_module.code
    assert printed(got) == printed(want)
    assert str(got.range_constraints) == str(want.range_constraints)
    assert [n.name for n in got.graph.nodes] == [n.name for n in want.graph.nodes]
    cexport.save(got, tmp_path / "s.pt2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = torch.export.load(tmp_path / "s.pt2")
    assert loaded.graph_module.code == want.graph_module.code
    assert str(loaded.range_constraints) == str(want.range_constraints)
    for grow in (-2, 3):
        other = RNG.standard_normal((shape[0] + grow, *shape[1:]))
        if case.startswith("attention"):
            other = RNG.standard_normal((shape[0] + grow, shape[1] - grow, shape[2]))
        _same(loaded.module()(torch.tensor(other)), tm(torch.tensor(other)))
        _same(got.module()(cr.tensor(other)), tm(torch.tensor(other)))


def test_pytorch_program_with_sym_sizes_loads_and_runs_at_other_sizes(tmp_path):
    tm, _ = _pair(_arithmetic)
    x = torch.tensor(RNG.standard_normal((4, 3, 2)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.export(tm, (x,), dynamic_shapes={"x": {0: torch.export.Dim.AUTO}})
        torch.export.save(ep, tmp_path / "p.pt2")
    loaded = cexport.load(tmp_path / "p.pt2")
    assert loaded.graph_module.code == ep.graph_module.code
    targets = [str(n.target) for n in loaded.graph.nodes if n.op == "call_function"]
    assert "aten.sym_size.int" in targets
    for n in (2, 7):
        other = RNG.standard_normal((n, 3, 2))
        _same(loaded.module()(cr.tensor(other)), tm(torch.tensor(other)))


def test_sizes_it_cannot_write_are_refused():
    """A size of an intermediate value that is not a multiple of one symbol (PyTorch
    writes ``sym_size_int_1 + 1``) is refused rather than baked in."""

    class Grown(cr.nn.Module):
        def forward(self, x):
            y = cr.cat([x, x[:1]])
            return y.view(y.size(0), -1)

    with pytest.raises(NotImplementedError, match="multiple of one dynamic size"):
        cexport.export(Grown(), (cr.ones(4, 2, 3),), dynamic_shapes={"x": {0: cexport.Dim("b")}})
