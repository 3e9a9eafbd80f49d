"""chainrule.export.export of common models against the real torch.export.export of the
same PyTorch models: the same node names, targets, generated code and signature; and the
saved program, read by the real torch.export.load, runs to PyTorch's outputs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from export_checks import export_is_pytorchs, pair, same

import chainrule as cr
import chainrule.export as cexport

RNG = np.random.default_rng(3)


def _make(lib, kind):
    nn, F = lib.nn, lib.nn.functional

    class LSTMNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.LSTM(4, 5, batch_first=True)
            self.fc = nn.Linear(5, 2)

        def forward(self, x):
            out, (h, c) = self.rnn(x)
            return self.fc(out[:, -1]) + h.sum() + c.mean()

    class GRUNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.GRU(4, 5, num_layers=2)

        def forward(self, x):
            out, h = self.rnn(x)
            return out, h

    class Attn(nn.Module):
        def __init__(self):
            super().__init__()
            self.mha = nn.MultiheadAttention(8, 2, batch_first=True)

        def forward(self, x):
            return self.mha(x, x, x, need_weights=False)[0]

    class Enc(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = nn.TransformerEncoderLayer(
                8, 2, dim_feedforward=16, dropout=0.0, batch_first=True
            )

        def forward(self, x):
            return self.layer(x)

    class GeluEnc(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = nn.TransformerEncoderLayer(
                8, 4, dim_feedforward=16, dropout=0.0, activation="gelu", norm_first=True
            )

        def forward(self, x):
            return self.layer(x)

    class Weights(nn.Module):
        def __init__(self):
            super().__init__()
            self.mha = nn.MultiheadAttention(8, 2)

        def forward(self, x, m):
            return self.mha(x, x, x, attn_mask=m), self.mha(x, x, x)

    class Loss(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 3)

        def forward(self, x, y):
            logits = self.fc(x)
            return F.cross_entropy(logits, y), F.log_softmax(logits, 1), F.softmax(logits, dim=-1)

    class Inplace(nn.Module):
        def forward(self, x, y):
            z = x.clone()
            z.add_(y)
            z.mul_(2.0)
            z = F.relu_(z)
            z.sub_(1)
            z.div_(3)
            return z

    class Math(nn.Module):
        def forward(self, x, y):
            a = lib.clamp(x, -0.5, 0.5) + lib.maximum(x, y) - lib.minimum(x, y)
            b = lib.where(x > 0, x, y) * lib.exp(-x.abs())
            c = (
                x.max(),
                x.amax(1),
                x.min(dim=0)[0],
                x.argmax(1),
                x.var(1),
                x.std(),
                x.prod(1),
                x.norm(),
            )
            return (
                a,
                b,
                c,
                lib.erf(x),
                F.leaky_relu(x, 0.1),
                F.elu(x),
                F.softplus(x),
                lib.sign(x),
                x.pow(2),
                2**x,
                x.clamp(min=0),
            )

    class Shapes(nn.Module):
        def forward(self, x, idx):
            a, b = x.split(2, 1)
            c = x.chunk(2, 0)
            d = x[:, 1:3]
            e = x[0]
            f = x[idx]
            g = x[..., None]
            h = lib.stack([a, b], 0)
            i = x.reshape(-1).unsqueeze(0).squeeze(0)
            return a, b, c, d, e, f, g, h, i, x.flatten(), x.T, x.expand(2, 3, 4)

    class Factories(nn.Module):
        def __init__(self):
            super().__init__()
            self.act = nn.ReLU(inplace=True)

        def forward(self, x):
            a = lib.arange(3) + lib.arange(1, 4, dtype=lib.float64) + lib.arange(0, 6, 2)
            b = lib.zeros(2, 3) + lib.ones(2, 3, dtype=lib.float64) + lib.full((2, 3), 3.0)
            b = b + lib.zeros_like(x) + lib.ones_like(x)
            c = self.act(x * 2)
            d = F.gelu(x, approximate="tanh") + F.silu(x) + F.hardtanh(x) + F.relu6(x)
            return a, b, c, d, x.masked_fill(x > 0, 0.0), x.repeat(2, 1)

    class Slicing(nn.Module):
        def forward(self, x, idx):
            a = x[1:], x[:2], x[::2], x[-1], x[:, -1], x[1:, 0], x[:, idx], x[None, 1]
            b = x[0, ..., 1:], x[-2:], x[:, :-1], x.var(), x.max(1), x.min(), x.amin()
            c = x.argmin(), x.split([1, 2]), lib.max(x, x * 2), x.prod(), x.std(1, keepdim=True)
            return a, b, c, x.var(1, unbiased=False), x.norm(dim=1), (x < 0.5) | (x >= 1)

    return {
        "slicing": Slicing,
        "factories": Factories,
        "lstm": LSTMNet,
        "gru": GRUNet,
        "attn": Attn,
        "enc": Enc,
        "gelu_enc": GeluEnc,
        "weights": Weights,
        "loss": Loss,
        "inplace": Inplace,
        "math": Math,
        "shapes": Shapes,
    }[kind]()


_INPUTS = {
    "factories": lambda: (RNG.standard_normal((2, 3)),),
    "slicing": lambda: (RNG.standard_normal((3, 4)), np.array([1, 0])),
    "lstm": lambda: (RNG.standard_normal((2, 3, 4)),),
    "gru": lambda: (RNG.standard_normal((3, 2, 4)),),
    "attn": lambda: (RNG.standard_normal((2, 3, 8)),),
    "gelu_enc": lambda: (RNG.standard_normal((3, 2, 8)),),
    "weights": lambda: (RNG.standard_normal((3, 2, 8)), RNG.standard_normal((3, 3))),
    "enc": lambda: (RNG.standard_normal((2, 3, 8)),),
    "loss": lambda: (RNG.standard_normal((5, 4)), np.array([0, 2, 1, 1, 0])),
    "inplace": lambda: (RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))),
    "math": lambda: (RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))),
    "shapes": lambda: (RNG.standard_normal((3, 4)), np.array([2, 0])),
}


KINDS = [
    "lstm",
    "gru",
    "attn",
    "enc",
    "gelu_enc",
    "weights",
    "loss",
    "inplace",
    "math",
    "shapes",
    "slicing",
    "factories",
]


@pytest.mark.parametrize("kind", KINDS)
def test_export_matches_pytorch_and_runs_there(tmp_path, kind):
    export_is_pytorchs(*pair(_make, _INPUTS, kind), tmp_path)


def test_lstm_with_given_state_and_batch_first_gru():
    """A given initial state is passed as is (no ``zeros`` node); batch_first is the
    node's last argument."""
    torch.manual_seed(0)
    tm = torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True).double()
    cm = cr.nn.LSTM(3, 4, num_layers=2, bidirectional=True).double()
    cm.load_state_dict({k: cr.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    x, h, c = (
        RNG.standard_normal((5, 2, 3)),
        RNG.standard_normal((4, 2, 4)),
        RNG.standard_normal((4, 2, 4)),
    )
    targs = (torch.tensor(x), (torch.tensor(h), torch.tensor(c)))
    cargs = (cr.tensor(x), (cr.tensor(h), cr.tensor(c)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.export.export(tm, targs)
    got = cexport.export(cm, cargs)
    assert got.graph_module.code == want.graph_module.code
    assert str(got.graph_signature) == str(want.graph_signature)
    same(got.module()(*cargs), tm(*targs))


def test_unsupported_index_is_refused():
    class Odd(cr.nn.Module):
        def forward(self, x, idx):
            return x[1:, idx]

    with pytest.raises(NotImplementedError, match="tensor indexing"):
        cexport.export(Odd(), (cr.ones(3, 4), cr.tensor([0, 1])))


def _decomposable(lib, kind):
    nn, F = lib.nn, lib.nn.functional

    class Conv(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, padding=1)
            self.bn = nn.BatchNorm2d(4)
            self.conv1 = nn.Conv1d(4, 2, 2, stride=2)
            self.fc = nn.Linear(4, 5)
            self.drop = nn.Dropout(0.3)

        def forward(self, x):
            y = F.adaptive_avg_pool2d(F.max_pool2d(self.bn(self.conv(x)).relu(), 2), (2, 2))
            z = self.conv1(y.flatten(2))
            return F.log_softmax(self.drop(self.fc(z.flatten(1))), 1)

    class Seq(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln = nn.LayerNorm(6)
            self.fc = nn.Linear(6, 4, bias=False)
            self.out = nn.Linear(4, 2)

        def forward(self, x):
            h = self.fc(self.ln(x)).transpose(0, 1).tanh()
            return F.softmax(self.out(h), -1), h.t() if h.dim() == 2 else h.sum(0)

    return {"conv": Conv, "seq": Seq}[kind]().double().eval()


@pytest.mark.parametrize("kind", ["conv", "seq"])
def test_run_decompositions_matches_pytorch(tmp_path, kind):
    torch.manual_seed(0)
    tm, cm = _decomposable(torch, kind), _decomposable(cr, kind)
    cm.load_state_dict({k: cr.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    shape = (2, 3, 8, 8) if kind == "conv" else (3, 2, 6)
    x = RNG.standard_normal(shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.export.export(tm, (torch.tensor(x),)).run_decompositions()
    got = cexport.export(cm, (cr.tensor(x),)).run_decompositions()
    assert [(n.op, n.name) for n in got.graph.nodes] == [(n.op, n.name) for n in want.graph.nodes]
    assert got.graph_module.code == want.graph_module.code
    assert str(got.graph_signature) == str(want.graph_signature)
    expected = tm(torch.tensor(x))
    same(got.module()(cr.tensor(x)), expected)
    cexport.save(got, tmp_path / "d.pt2")
    torch.export.save(want, tmp_path / "t.pt2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = torch.export.load(tmp_path / "d.pt2")
        # (a loaded program reads the results nothing read: compare with PyTorch's own file)
        reference = torch.export.load(tmp_path / "t.pt2")
    assert loaded.graph_module.code == reference.graph_module.code
    same(loaded.module()(torch.tensor(x)), expected)


def test_a_value_computed_out_of_sight_is_refused_not_frozen():
    """A tensor made from traced values by a call the trace does not see (here the
    function behind ``F.relu``, called directly) would be a frozen constant: refused."""
    from chainrule.api.parsers.functional import relu as hidden_relu

    class Hidden(cr.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = cr.nn.Linear(3, 3)

        def forward(self, x):
            return hidden_relu(self.fc(x)) * 2

    with pytest.raises(NotImplementedError, match="frozen"):
        cexport.export(Hidden(), (cr.ones(2, 3),))


def test_identity_dropout_is_a_value_of_its_own(tmp_path):
    """A dropout of p = 0 in training gives back its input itself, eagerly in both
    libraries; PyTorch's export still writes it as a value of its own, and later reads of
    the input read the input."""

    def make(lib):
        class Identity(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.drop = lib.nn.Dropout(0.0)

            def forward(self, x):
                y = lib.nn.functional.dropout(x, 0.0, True)
                return x + 1, y * 2, self.drop(x)

        return Identity().train()

    x = RNG.standard_normal(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.export.export(make(torch), (torch.tensor(x),))
    got = cexport.export(make(cr), (cr.tensor(x),))
    assert got.graph_module.code == want.graph_module.code
    same(got.module()(cr.tensor(x)), want.module()(torch.tensor(x)))


def test_none_and_number_outputs_are_constants_of_the_program(tmp_path):
    """A forward returning None or numbers beside tensors (``MultiheadAttention`` without
    weights: ``(out, None)``): PyTorch's program returns them as constants, and its
    signature lists them; the saved file gives them back in the real torch.export.load."""

    def make(lib):
        class Constants(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.mha = lib.nn.MultiheadAttention(4, 2, batch_first=True)

            def forward(self, x):
                return x * 2, None, 3, self.mha(x, x, x, need_weights=False)

        return Constants().double()

    tm, cm = make(torch), make(cr)
    cm.load_state_dict({k: cr.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    x = RNG.standard_normal((2, 3, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.export.export(tm, (torch.tensor(x),))
    got = cexport.export(cm, (cr.tensor(x),))
    assert got.graph_module.code == want.graph_module.code
    assert str(got.graph_signature) == str(want.graph_signature)
    out = got.module()(cr.tensor(x))
    assert out[1:3] == (None, 3) and out[3][1] is None
    cexport.save(got, tmp_path / "c.pt2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ran = torch.export.load(tmp_path / "c.pt2").module()(torch.tensor(x))
    assert ran[1:3] == (None, 3) and ran[3][1] is None
    same((out[0], out[3][0]), (ran[0], ran[3][0]))


@pytest.mark.parametrize("star", ["args", "x, *rest"])
def test_a_forward_of_star_args_runs_in_pytorch(tmp_path, star):
    """``forward(self, *args)``: PyTorch names the values ``args_0, args_1``; its loader
    binds the inputs by those names."""

    def make(lib):
        class Star(lib.nn.Module):
            if star == "args":

                def forward(self, *args):
                    return args[0] + args[1] * args[2]

            else:

                def forward(self, x, *rest):
                    return x + rest[0] * rest[1]

        return Star()

    arrays = [RNG.standard_normal(3) for _ in range(3)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.export.export(make(torch), tuple(torch.tensor(a) for a in arrays))
    got = cexport.export(make(cr), tuple(cr.tensor(a) for a in arrays))
    assert got.graph_module.code == want.graph_module.code
    cexport.save(got, tmp_path / "s.pt2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = torch.export.load(tmp_path / "s.pt2")
    same(
        loaded.module()(*(torch.tensor(a) for a in arrays)),
        want.module()(*(torch.tensor(a) for a in arrays)),
    )
