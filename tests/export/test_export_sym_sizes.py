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
from export_checks import printed

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


def _numel(lib):
    class Numel(lib.nn.Module):
        def forward(self, x):
            flat = x.reshape(x.numel())
            pad = lib.zeros(x.numel() + 1, dtype=x.dtype)
            halves = x.view(x.numel() // 2, -1)
            return flat * x.numel(), pad, halves, x.reshape(-1)[: x.numel() - 1]

    return Numel().double()


def _intermediate_numel(lib):
    class IntermediateNumel(lib.nn.Module):
        def forward(self, x):
            h = x + 1
            cols = lib.zeros(x.sum(0).numel(), dtype=x.dtype)
            rows = lib.ones(x.size(0) * x.size(1) + x.numel(), dtype=x.dtype)
            return h.view(h.numel()), cols, rows

    return IntermediateNumel().double()


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
    "numel (sym_numel)": (_numel, (4, 6), lambda e: {"x": {0: e.Dim("b")}}),
    "numel of intermediates": (
        _intermediate_numel,
        (4, 3),
        lambda e: {"x": {0: e.Dim.AUTO, 1: e.Dim.AUTO}},
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


NARROWED = {
    "ones(s - 1)": lambda L, x: L.ones(x.size(0) - 1),
    "zeros(s - 2)": lambda L, x: L.zeros(x.size(0) - 2),
    "new_ones(s - 1)": lambda L, x: x.new_ones(x.size(0) - 1),
    "ones(s + 1)": lambda L, x: L.ones(x.size(0) + 1),
}


@pytest.mark.parametrize("name", list(NARROWED))
@pytest.mark.parametrize("dim", ["auto", "min=3"])
def test_ranges_narrowed_by_a_factory_of_size_s_minus_k(name, dim):
    """A 1-d factory of size ``s - k`` guards ``s >= k + 2`` in PyTorch's export."""
    forward = NARROWED[name]

    def spec(e):
        return {"x": {0: e.Dim.AUTO if dim == "auto" else e.Dim("b", min=3)}}

    outcomes = []
    for lib, ex in ((torch, torch.export), (cr, cexport)):

        class M(lib.nn.Module):
            def forward(self, x, lib=lib):
                return forward(lib, x)

        try:
            ep = ex.export(M(), (lib.ones(8, 4),), dynamic_shapes=spec(ex))
            outcomes.append(str(ep.range_constraints))
        except Exception as e:  # (both raise, a UserError)
            outcomes.append(type(e).__name__)
    assert outcomes[1] == outcomes[0]


_INDEXING = {
    "x[:, :3]": ((lambda x: x[:, :3]), (0,)),
    "x[:, 1]": ((lambda x: x[:, 1]), (0,)),
    "x[..., :3]": ((lambda x: x[..., :3]), (0,)),
    "x[:, None]": ((lambda x: x[:, None]), (0,)),
    "x[:, :]": ((lambda x: x[:, :]), (0,)),
    "x[:, :, :3] (dim 1)": ((lambda x: x[:, :, :3]), (1,)),
    "x[:, :, :3] (dims 0, 1)": ((lambda x: x[:, :, :3]), (0, 1)),
    "x[None, :, 2] (dim 1)": ((lambda x: x[None, :, 2]), (1,)),
    "x[:, -1]": ((lambda x: x[:, -1]), (0,)),
    "x[:, -3] (dim 1)": ((lambda x: x[:, -3]), (1,)),
    "x.select(1, 4) (dim 1)": ((lambda x: x.select(1, 4)), (1,)),
    "x[:, 2:4] (dim 1)": ((lambda x: x[:, 2:4]), (1,)),
    "x[:, :7] (dim 1)": ((lambda x: x[:, :7]), (1,)),
    "x[:, 1:] (dim 1)": ((lambda x: x[:, 1:]), (1,)),
    "x.narrow(1, 1, 3) (dim 1)": ((lambda x: x.narrow(1, 1, 3)), (1,)),
}


@pytest.mark.parametrize("case", list(_INDEXING))
def test_a_full_slice_of_a_dynamic_dim_is_written(tmp_path, case):
    """PyTorch's export writes a full ``:`` on a dim of dynamic size as a ``slice`` node
    (and none on a static dim, or for the dims ``...`` stands for)."""
    index, dims = _INDEXING[case]

    def make(lib):
        class Index(lib.nn.Module):
            def forward(self, x):
                return index(x) * 2

        return Index()

    x = RNG.standard_normal((4, 5, 6))

    def spec(export):
        return {"x": {d: export.Dim.AUTO for d in dims}}

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.export.export(
            make(torch), (torch.tensor(x),), dynamic_shapes=spec(torch.export)
        )
    got = cexport.export(make(cr), (cr.tensor(x),), dynamic_shapes=spec(cexport))
    assert got.graph_module.code == want.graph_module.code
    assert printed(got) == printed(want)
    assert str(got.range_constraints) == str(want.range_constraints)
    cexport.save(got, tmp_path / "i.pt2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = torch.export.load(tmp_path / "i.pt2")
    other = RNG.standard_normal((6 if 0 in dims else 4, 6 if 1 in dims else 5, 6))
    _same(loaded.module()(torch.tensor(other)), make(torch)(torch.tensor(other)))


@pytest.mark.parametrize("index", ["x[:, 2]", "x[:, 1:3]", "x[:, :4]"])
def test_indexing_a_named_dim_out_of_its_range_is_refused(index):
    """A named Dim whose range allows sizes the indexing's guards exclude: PyTorch's
    UserError, from both exports."""
    f = {
        "x[:, 2]": lambda x: x[:, 2],
        "x[:, 1:3]": lambda x: x[:, 1:3],
        "x[:, :4]": lambda x: x[:, :4],
    }[index]

    def make(lib):
        class Index(lib.nn.Module):
            def forward(self, x):
                return f(x) * 2

        return Index()

    x = RNG.standard_normal((4, 5, 6))
    with warnings.catch_warnings(), pytest.raises(Exception, match="Constraints violated") as want:
        warnings.simplefilter("ignore")
        torch.export.export(
            make(torch), (torch.tensor(x),), dynamic_shapes={"x": {1: torch.export.Dim("b", min=2)}}
        )
    with pytest.raises(Exception, match="Constraints violated") as got:
        cexport.export(
            make(cr), (cr.tensor(x),), dynamic_shapes={"x": {1: cexport.Dim("b", min=2)}}
        )
    assert type(got.value).__name__ == type(want.value).__name__ == "UserError"
