"""torch.export.export and torch.export.save on chainrule: programs traced from chainrule
modules against the real torch.export.export of the same PyTorch modules (node names,
targets, signature, printed program), and chainrule's .pt2 files loaded and run by the
real torch.export.load."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from export_checks import printed

import chainrule as cr
import chainrule.export as cexport

RNG = np.random.default_rng(1)


def _make(lib, kind):
    nn, F = lib.nn, lib.nn.functional

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 8)
            self.fc2 = nn.Linear(8, 3)

        def forward(self, x):
            h = lib.relu(self.fc(x))
            return self.fc2(lib.sigmoid(h) * 2 - lib.tanh(h) / 3).sum(1)

    class CNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, padding=1)
            self.bn = nn.BatchNorm2d(4)
            self.pool = nn.MaxPool2d(2)
            self.avg = nn.AdaptiveAvgPool2d((2, 2))
            self.fc = nn.Linear(16, 5)
            self.drop = nn.Dropout(0.2)

        def forward(self, x):
            y = self.avg(self.pool(lib.relu(self.bn(self.conv(x)))))
            return self.drop(self.fc(lib.flatten(y, 1))).softmax(-1)

    class Mixer(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(7, 6)
            self.ln = nn.LayerNorm(6)
            self.proj = nn.Linear(6, 6)

        def forward(self, idx, x):
            e = self.ln(self.emb(idx))
            a = F.gelu(self.proj(e)).transpose(0, 1)
            b = lib.cat([a, x.view(2, 2, 6).permute(1, 0, 2)], 1)
            s = lib.matmul(b, b.transpose(1, 2)).softmax(-1)
            return {"s": s, "m": (b.unsqueeze(0) ** 2).mean((0, 1)), "e": -e.exp()}

    return {"mlp": MLP, "cnn": CNN, "mixer": Mixer}[kind]()


_INPUTS = {
    "mlp": lambda: (RNG.standard_normal((5, 4)),),
    "cnn": lambda: (RNG.standard_normal((2, 3, 8, 8)),),
    "mixer": lambda: (np.array([[1, 2], [3, 6]]), RNG.standard_normal((4, 6))),
}


def _pair(kind, train=False):
    torch.manual_seed(0)
    tm = _make(torch, kind).double().train(train)
    cm = _make(cr, kind).double().train(train)
    if train:
        tm.drop.p = cm.drop.p = 0.0
    state = {k: cr.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()}
    cm.load_state_dict(state)
    arrays = _INPUTS[kind]()
    return tm, cm, tuple(torch.tensor(a) for a in arrays), tuple(cr.tensor(a) for a in arrays)


def _torch_export(tm, targs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.export.export(tm, targs)


def _flat(x):
    if isinstance(x, (list, tuple)):
        return [t for v in x for t in _flat(v)]
    if isinstance(x, dict):
        return [t for v in x.values() for t in _flat(v)]
    return [x]


def _same(got, want, tol=1e-10):
    if isinstance(want, dict):
        assert list(got) == list(want)
    g, w = _flat(got), _flat(want)
    assert len(g) == len(w)
    for a, b in zip(g, w):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("kind", ["mlp", "cnn", "mixer"])
def test_export_graph_matches_pytorch(kind):
    tm, cm, targs, cargs = _pair(kind)
    want = _torch_export(tm, targs)
    got = cexport.export(cm, cargs)
    assert [(n.op, n.name) for n in got.graph.nodes] == [(n.op, n.name) for n in want.graph.nodes]
    assert [str(n.target) for n in got.graph.nodes if n.op == "call_function"] == [
        str(n.target) for n in want.graph.nodes if n.op == "call_function"
    ]
    assert got.graph_module.code == want.graph_module.code
    assert str(got.graph_signature) == str(want.graph_signature)
    assert list(got.state_dict) == list(want.state_dict)
    assert printed(got) == printed(want)
    _same(got.module()(*cargs), tm(*targs))


@pytest.mark.parametrize("kind", ["mlp", "cnn", "mixer"])
def test_saved_program_runs_in_pytorch(tmp_path, kind):
    tm, cm, targs, cargs = _pair(kind)
    ep = cexport.export(cm, cargs)
    cexport.save(ep, tmp_path / "cr.pt2", extra_files={"by.txt": "chainrule"})
    extra = {"by.txt": ""}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = torch.export.load(tmp_path / "cr.pt2", extra_files=extra)
    assert extra["by.txt"] == "chainrule"
    assert str(loaded.graph_signature) == str(ep.graph_signature)
    _same(loaded.module()(*targs), tm(*targs))
    args, kwargs = loaded.example_inputs
    assert kwargs == {} and len(args) == len(targs)
    for a, t in zip(args, targs):
        np.testing.assert_array_equal(a.numpy(), t.numpy())
    # and back: chainrule reads its own file
    again = cexport.load(tmp_path / "cr.pt2")
    _same(again.module()(*cargs), tm(*targs))


def test_input_named_input_and_gradients(tmp_path):
    """A forward whose argument is called ``input`` (a builtin's name: the code renames
    it, the signature keeps it), and gradients through the exported module."""
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh()).double()
    cm = cr.nn.Sequential(cr.nn.Linear(3, 4), cr.nn.Tanh()).double()
    cm.load_state_dict({k: cr.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    x = RNG.standard_normal((2, 3))
    want = _torch_export(tm, (torch.tensor(x),))
    got = cexport.export(cm, (cr.tensor(x),))
    assert str(got.graph_signature) == str(want.graph_signature)
    assert got.graph_module.code == want.graph_module.code
    cexport.save(got, tmp_path / "seq.pt2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        back = torch.export.load(tmp_path / "seq.pt2")
    assert str(back.graph_signature) == str(want.graph_signature)
    tmod, cmod = want.module(), got.module()
    (tmod(torch.tensor(x)) ** 2).sum().backward()
    (cmod(cr.tensor(x)) ** 2).sum().backward()
    for (name, p), (_, q) in zip(cmod.named_parameters(), tmod.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-10, err_msg=name)


def test_export_batch_norm_in_training(tmp_path):
    """Training mode: the running statistics and the batch count written in place, as
    PyTorch's training IR keeps them (``add_.Tensor``, ``batch_norm`` with training=True)."""
    tm, cm, targs, cargs = _pair("cnn", train=True)
    want = _torch_export(tm, targs)
    got = cexport.export(cm, cargs)
    assert got.graph_module.code == want.graph_module.code
    cexport.save(got, tmp_path / "cr.pt2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = torch.export.load(tmp_path / "cr.pt2").module()
    torch.manual_seed(0)
    fresh = _make(torch, "cnn").double().train()
    fresh.drop.p = 0.0
    _same(loaded(*targs), fresh(*targs))
    for (name, a), (_, b) in zip(loaded.named_buffers(), fresh.named_buffers()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, err_msg=name)


def test_resaving_a_pytorch_program(tmp_path):
    """PyTorch's file (decomposed: core ATen ops, buffer mutations), loaded by chainrule,
    saved again, is read by PyTorch with the same graph and outputs."""
    torch.manual_seed(0)
    tm = _make(torch, "cnn").double().train()
    tm.drop.p = 0.0
    x = torch.tensor(RNG.standard_normal((2, 3, 8, 8)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.export(tm, (x,)).run_decompositions()
        torch.export.save(ep, tmp_path / "t.pt2")
        want = torch.export.load(tmp_path / "t.pt2")
        cexport.save(cexport.load(tmp_path / "t.pt2"), tmp_path / "c.pt2")
        got = torch.export.load(tmp_path / "c.pt2")
    assert got.graph_module.code == want.graph_module.code
    assert str(got.graph_signature) == str(want.graph_signature)
    gm, wm = got.module(), want.module()
    _same(gm(x), wm(x))
    for (name, a), (_, b) in zip(gm.named_buffers(), wm.named_buffers()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, err_msg=name)


def test_export_refuses_unsupported_calls():
    class Odd(cr.nn.Module):
        def forward(self, x):
            return cr.special.erfcx(x)

    with pytest.raises(NotImplementedError, match="erfcx"):
        cexport.export(Odd(), (cr.ones(3),))


def test_dynamic_program_loads_prints_runs_and_resaves(tmp_path):
    """A program with a symbolic batch size (``sym_size.int`` feeding ``view``): printed
    as PyTorch prints it, run at other batch sizes, saved again with its constraints."""

    class Flat(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(12, 3)

        def forward(self, x):
            return self.fc(x.view(x.size(0), -1) * x.shape[0])

    torch.manual_seed(0)
    tm = Flat().double()
    batch = torch.export.Dim("b", min=2, max=50)
    x = torch.tensor(RNG.standard_normal((4, 3, 4)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.export(tm, (x,), dynamic_shapes={"x": {0: batch}})
        torch.export.save(ep, tmp_path / "t.pt2")
        want = torch.export.load(tmp_path / "t.pt2")
    got = cexport.load(tmp_path / "t.pt2")
    assert printed(got) == printed(want)
    for n in (2, 7):
        xn = torch.tensor(RNG.standard_normal((n, 3, 4)))
        _same(got.module()(cr.tensor(xn.numpy())), tm(xn))
    cexport.save(got, tmp_path / "c.pt2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        back = torch.export.load(tmp_path / "c.pt2")
    assert str(back.range_constraints) == str(want.range_constraints)
    assert back.graph_module.code == want.graph_module.code
    x9 = torch.tensor(RNG.standard_normal((9, 3, 4)))
    _same(back.module()(x9), tm(x9))
