"""ExportedProgram.run_decompositions against the real ``ep.run_decompositions()`` of the
same PyTorch module: the same node names, generated code and signature (buffer updates
of training-mode batch norm included); the decomposed program runs to PyTorch's outputs
on chainrule, and saved, in the real torch.export.load."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from export_checks import modules, same

import chainrule as cr
import chainrule.export as cexport

RNG = np.random.default_rng(5)


def _make(lib, kind):
    nn, F = lib.nn, lib.nn.functional

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 3)
            self.free = nn.Linear(4, 3, bias=False)
            self.mha = nn.MultiheadAttention(4, 2, batch_first=True)
            self.enc = nn.TransformerEncoderLayer(
                4, 2, dim_feedforward=8, dropout=0.0, batch_first=True
            )
            self.pre = nn.TransformerEncoderLayer(
                4, 2, dim_feedforward=8, dropout=0.0, activation="gelu", norm_first=True
            )
            self.emb = nn.Embedding(10, 4)

        def run(self, *args):
            return FORWARDS[kind](self, lib, F, *args)

    # (a forward of named arguments: PyTorch's loaded module takes no *args)
    class One(M):
        def forward(self, a):
            return self.run(a)

    class Two(M):
        def forward(self, a, b):
            return self.run(a, b)

    class Three(M):
        def forward(self, a, b, c):
            return self.run(a, b, c)

    class Four(M):
        def forward(self, a, b, c, d):
            return self.run(a, b, c, d)

    class Five(M):
        def forward(self, a, b, c, d, e):
            return self.run(a, b, c, d, e)

    arity = len(INPUTS[kind]())
    return [One, Two, Three, Four, Five][arity - 1]()


def _products(m, lib, F, a, b, c, d, v):
    return (
        a @ b,
        lib.matmul(c, d),
        lib.bmm(c, d),
        c @ b,
        c @ v,
        v @ v,
        a @ v,
        v @ b,
        b.t() @ c.transpose(1, 2),
        c.transpose(0, 1) @ v,
        c.unsqueeze(0) @ d.unsqueeze(1),
        c @ c[:1].transpose(1, 2),
    )


def _linears(m, lib, F, a, b, c, d, v):
    return (
        m.fc(c),
        m.free(c),
        m.fc(c.transpose(0, 1)),
        F.linear(c.transpose(0, 1), m.free.weight),
        c @ m.fc.weight.t(),
        m.fc.weight @ c.transpose(1, 2),
        c.transpose(1, 2).reshape(2, 12),
        c.reshape(-1, 4).flatten(),
        c.transpose(1, 2).contiguous().unsqueeze(2).squeeze(2),
    )


FORWARDS = {
    "products": _products,
    "linears": _linears,
    "sdpa": lambda m, lib, F, q, k, v, mask: (
        F.scaled_dot_product_attention(q, k, v),
        F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=0.3),
    ),
    "attention": lambda m, lib, F, x: (m.mha(x, x, x, need_weights=False)[0], m.enc(x)),
    "encoder": lambda m, lib, F, x: m.pre(x),
    "casts": lambda m, lib, F, x: (x.float(), x.to(lib.float32) * 2, x.int(), x.double()),
    "losses": lambda m, lib, F, x, t, y: (
        F.cross_entropy(x, t),
        F.cross_entropy(x, t, reduction="sum"),
        F.cross_entropy(x, t, reduction="none"),
        F.mse_loss(x, y),
        F.mse_loss(x, y, reduction="sum"),
        F.mse_loss(x, y, reduction="none"),
    ),
    "activations": lambda m, lib, F, x, t: (
        F.gelu(x),
        F.silu(x),
        F.gelu(x, approximate="tanh"),
        m.emb(t),
    ),
}

INPUTS = {
    "products": lambda: [
        RNG.standard_normal(s) for s in [(3, 4), (4, 5), (2, 3, 4), (2, 4, 5), (4,)]
    ],
    "linears": lambda: [
        RNG.standard_normal(s) for s in [(3, 4), (4, 5), (2, 3, 4), (2, 4, 5), (4,)]
    ],
    "sdpa": lambda: (
        [RNG.standard_normal((2, 2, 3, 4)) for _ in range(3)]
        + [np.where(RNG.random((3, 3)) < 0.3, -np.inf, 0.0)]
    ),
    "attention": lambda: [RNG.standard_normal((2, 3, 4))],
    "encoder": lambda: [RNG.standard_normal((3, 2, 4))],
    "casts": lambda: [RNG.standard_normal((2, 3))],
    "losses": lambda: [
        RNG.standard_normal((4, 3)),
        np.array([0, 2, 1, 1]),
        RNG.standard_normal((4, 3)),
    ],
    "activations": lambda: [RNG.standard_normal((4, 3)), np.array([[1, 2], [3, 9]])],
}


def _decompose(tm, cm, targs, cargs, table=None, ttable=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.export.export(tm, targs).run_decompositions(ttable)
    got = cexport.export(cm, cargs).run_decompositions(table)
    return want, got


def _same_program(want, got):
    assert [(n.op, n.name) for n in got.graph.nodes] == [(n.op, n.name) for n in want.graph.nodes]
    assert [str(n.target) for n in got.graph.nodes if n.op == "call_function"] == [
        str(n.target) for n in want.graph.nodes if n.op == "call_function"
    ]
    assert got.graph_module.code == want.graph_module.code
    assert str(got.graph_signature) == str(want.graph_signature)


def _runs_in_pytorch(got, want, targs, tmp_path):
    """The saved program, read by the real torch.export.load, is PyTorch's and runs."""
    cexport.save(got, tmp_path / "d.pt2")
    torch.export.save(want, tmp_path / "t.pt2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = torch.export.load(tmp_path / "d.pt2")
        reference = torch.export.load(tmp_path / "t.pt2")
        # (a loaded program reads the results nothing read: compare with PyTorch's own file)
        assert loaded.graph_module.code == reference.graph_module.code
        return loaded.module()(*targs)


@pytest.mark.parametrize("kind", list(FORWARDS))
def test_decomposed_program_is_pytorchs(tmp_path, kind):
    tm, cm = (m.eval() for m in modules(_make, kind))
    arrays = INPUTS[kind]()
    targs = tuple(torch.tensor(a) for a in arrays)
    cargs = tuple(cr.tensor(a) for a in arrays)
    want, got = _decompose(tm, cm, targs, cargs)
    _same_program(want, got)
    expected = tm(*targs)
    same(got.module()(*cargs), expected)
    same(_runs_in_pytorch(got, want, targs, tmp_path), expected)


def _training(lib):
    nn = lib.nn

    class Train(nn.Module):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm1d(3)
            self.bn2 = nn.BatchNorm2d(3)
            self.free = nn.BatchNorm1d(3, track_running_stats=False)
            self.drop = nn.Dropout(0.5)

        def forward(self, x, y):
            h = self.bn(x)
            # (F.dropout(x, 0.0, True), PyTorch's clone, is left out: chainrule's export
            # records later reads of x as reads of it)
            return h + self.bn(x * 2), self.bn2(y), self.free(x), self.drop(x)

    return Train()


def test_training_mode_batch_norm_updates_its_buffers_as_pytorch(tmp_path):
    torch.manual_seed(0)
    tm, cm = _training(torch).double(), _training(cr).double()
    cm.load_state_dict({k: cr.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    arrays = [RNG.standard_normal((4, 3)), RNG.standard_normal((2, 3, 4, 4))]
    targs = tuple(torch.tensor(a) for a in arrays)
    cargs = tuple(cr.tensor(a) for a in arrays)
    want, got = _decompose(tm, cm, targs, cargs)
    _same_program(want, got)
    assert [s.kind.name for s in got.graph_signature.output_specs][:6] == ["BUFFER_MUTATION"] * 6
    # dropout's mask is random: its output is left out; the rest and the buffers match
    run = got.module()
    expected = tm(*targs)
    same(run(*cargs)[:3], expected[:3])
    buffers = dict(run.named_buffers())
    for name, value in tm.named_buffers():
        same(buffers[name], value)
    ran = _runs_in_pytorch(got, want, targs, tmp_path)
    assert tuple(ran[3].shape) == (4, 3)


def test_a_table_without_an_op_keeps_its_calls_as_pytorch_does(tmp_path):
    tm, cm = (m.eval() for m in modules(_make, "linears"))
    arrays = INPUTS["linears"]()
    targs = tuple(torch.tensor(a) for a in arrays)
    cargs = tuple(cr.tensor(a) for a in arrays)
    ttable = torch.export.default_decompositions()
    del ttable[torch.ops.aten.linear.default]
    table = cexport.default_decompositions()
    del table[cr.ops.aten.linear.default]
    want, got = _decompose(tm, cm, targs, cargs, table, ttable)
    _same_program(want, got)
    assert "linear" in [
        str(n.target).split(".")[1] for n in got.graph.nodes if n.op == "call_function"
    ]
    same(got.module()(*cargs), tm(*targs))


def test_a_symbolic_program_decomposes_as_pytorch():
    """(More dynamic programs in test_export_decompositions_more.py.)"""

    def make(lib):
        class Double(lib.nn.Module):
            def forward(self, x):
                return x.view(x.size(0), -1).relu()

        return Double()

    x = RNG.standard_normal((3, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.export.export(
            make(torch), (torch.tensor(x),), dynamic_shapes=({0: torch.export.Dim("n")},)
        ).run_decompositions()
    spec = ({0: cexport.Dim("n")},)
    got = cexport.export(make(cr), (cr.tensor(x),), dynamic_shapes=spec).run_decompositions()
    assert got.graph_module.code == want.graph_module.code
    assert str(got.range_constraints) == str(want.range_constraints)
