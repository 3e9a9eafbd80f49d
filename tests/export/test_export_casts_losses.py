"""chainrule.export.export of dtype casts, losses, nn.RNN and cross-attention against the
real torch.export.export of the same PyTorch modules (node names, targets, generated code
and signature; the saved program, read by the real torch.export.load, runs to PyTorch's
outputs); and chainrule.export.load of PyTorch's own export of each runs to its outputs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
import chainrule.export as cexport

RNG = np.random.default_rng(5)


def _make(lib, kind):
    nn, F = lib.nn, lib.nn.functional

    class Casts(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 3)

        def forward(self, x, i):
            y = self.fc(x)
            return (
                y.to(lib.float32),
                y.float(),
                y.double(),  # its own dtype: the node is written, later reads read it
                y.half(),
                y.long(),
                y.int(),
                y.bool(),
                i.type_as(y),
                y.to(i),
                y.type(lib.float32),
                y.to(dtype=lib.int64),
                y.float().double() * 2,
                y.type("torch.FloatTensor"),
                y.to(),
            )

    class Moves(nn.Module):
        def forward(self, x, i):
            return (
                x.to(device="cpu", dtype=lib.float32),
                x.to("cpu", lib.float32),
                x.to(lib.float32, non_blocking=True),
                x.short(),
                x.to(lib.device("cpu")) + 1,
                x.to(i, copy=True),
                x.to("cpu", copy=True),
                x.to(dtype=lib.float32, copy=True),
                x.to(lib.float64, copy=True),
                i.to(x),
                lib.as_tensor(x, dtype=lib.float32),
                x.type_as(x) - 1,
            )

    def losses(reduction):
        class Losses(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x, y, p, t, c):
                z = self.fc(x)
                return (
                    F.mse_loss(z, y, reduction=reduction),
                    F.l1_loss(z, y, reduction=reduction),
                    F.smooth_l1_loss(z, y, reduction=reduction),
                    F.smooth_l1_loss(z, y, reduction=reduction, beta=0.5),
                    F.huber_loss(z, y, reduction=reduction, delta=2.0),
                    F.binary_cross_entropy(p, t, reduction=reduction),
                    F.binary_cross_entropy(p, t, weight=y.abs(), reduction=reduction),
                    F.binary_cross_entropy_with_logits(z, t, reduction=reduction),
                    F.binary_cross_entropy_with_logits(z, t, y.abs(), pos_weight=p[0]),
                    F.nll_loss(F.log_softmax(z, 1), c, reduction=reduction),
                    F.nll_loss(z, c, weight=p[0], ignore_index=1, reduction=reduction),
                    F.kl_div(F.log_softmax(z, 1), p, reduction=reduction),
                    F.kl_div(z, y, reduction=reduction, log_target=True),
                    z * 2,  # (z read after the losses: the last broadcast's item)
                )

        return Losses

    class MoreLosses(nn.Module):
        def forward(self, x, y, p):
            return (
                F.kl_div(x, p, reduction="batchmean"),
                F.smooth_l1_loss(x, y, beta=0.0),
                F.mse_loss(x, y, size_average=False),
                F.l1_loss(x, y, reduce=False),
                nn.MSELoss()(x, y) + nn.BCEWithLogitsLoss()(x, p) + nn.L1Loss()(x, y),
                nn.HuberLoss()(x, y) + nn.SmoothL1Loss()(x, y) + nn.BCELoss()(p, p * 0.5),
            )

    def rnn(**options):
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = nn.RNN(4, 5, **options)
                self.fc = nn.Linear(5 * (2 if options.get("bidirectional") else 1), 2)

            def forward(self, x):
                out, h = self.rnn(x)
                return self.fc(out), h

        return Net

    class Cross(nn.Module):
        def __init__(self):
            super().__init__()
            self.mha = nn.MultiheadAttention(8, 2, batch_first=True)

        def forward(self, q, kv):
            return self.mha(q, kv, kv), self.mha(q, kv, kv, need_weights=False)[0]

    class Masked(nn.Module):
        def __init__(self):
            super().__init__()
            self.mha = nn.MultiheadAttention(8, 2)

        def forward(self, q, k, v, pad, mask):
            return (
                self.mha(q, k, v, key_padding_mask=pad, attn_mask=mask),
                self.mha(q, k, k, key_padding_mask=pad, need_weights=False)[0],
                self.mha(q, k, k, attn_mask=mask, need_weights=False)[0],
                self.mha(q, q, q, key_padding_mask=pad[:, :3], average_attn_weights=False),
            )

    class BoolMasks(nn.Module):
        def __init__(self):
            super().__init__()
            self.mha = nn.MultiheadAttention(8, 4, batch_first=True)

        def forward(self, x, pad, mask):
            return self.mha(x, x, x, key_padding_mask=pad, attn_mask=mask)

    class PaddedEncoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = nn.TransformerEncoderLayer(
                8, 2, dim_feedforward=16, dropout=0.0, batch_first=True
            )

        def forward(self, x, pad):
            return self.layer(x, src_key_padding_mask=pad)

    return {
        "padded_encoder": PaddedEncoder,
        "cross": Cross,
        "masked": Masked,
        "bool_masks": BoolMasks,
        "casts": Casts,
        "moves": Moves,
        "losses_mean": losses("mean"),
        "losses_sum": losses("sum"),
        "losses_none": losses("none"),
        "more_losses": MoreLosses,
        "rnn_tanh": rnn(),
        "rnn_relu": rnn(nonlinearity="relu", num_layers=2, batch_first=True, bidirectional=True),
    }[kind]()


def _loss_inputs():
    return (
        RNG.standard_normal((3, 4)),
        RNG.standard_normal((3, 4)),
        RNG.uniform(0.1, 0.9, (3, 4)),
        RNG.uniform(0.0, 1.0, (3, 4)),
        np.array([0, 3, 1]),
    )


_INPUTS = {
    "padded_encoder": lambda: (
        RNG.standard_normal((2, 3, 8)),
        np.array([[False, False, True], [False] * 3]),
    ),
    "cross": lambda: (RNG.standard_normal((2, 3, 8)), RNG.standard_normal((2, 5, 8))),
    "masked": lambda: (
        RNG.standard_normal((3, 2, 8)),
        RNG.standard_normal((5, 2, 8)),
        RNG.standard_normal((5, 2, 8)),
        np.array([[False, False, False, True, True], [False] * 5]),
        RNG.standard_normal((3, 5)),
    ),
    "bool_masks": lambda: (
        RNG.standard_normal((2, 4, 8)),
        np.array([[False, False, True, True], [False] * 4]),
        np.triu(np.ones((4, 4), dtype=bool), 1),
    ),
    "casts": lambda: (RNG.standard_normal((2, 3)) * 3, np.array([1, 2, 3])),
    "moves": lambda: (RNG.standard_normal((2, 3)), np.array([1, 2, 3])),
    "losses_mean": _loss_inputs,
    "losses_sum": _loss_inputs,
    "losses_none": _loss_inputs,
    "more_losses": lambda: _loss_inputs()[1:4],
    "rnn_tanh": lambda: (RNG.standard_normal((3, 2, 4)),),
    "rnn_relu": lambda: (RNG.standard_normal((2, 3, 4)),),
}

KINDS = list(_INPUTS)


def _flat(x):
    if isinstance(x, (list, tuple)):
        return [t for v in x for t in _flat(v)]
    return [x]


def _same(got, want):
    g, w = _flat(got), _flat(want)
    assert len(g) == len(w)
    for a, b in zip(g, w):
        assert tuple(a.shape) == tuple(b.shape)
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        np.testing.assert_allclose(
            a.detach().double().numpy(), b.detach().double().numpy(), rtol=1e-10, atol=1e-10
        )


def _pair(kind):
    torch.manual_seed(0)
    tm = _make(torch, kind).double().eval()
    cm = _make(cr, kind).double().eval()
    cm.load_state_dict({k: cr.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    arrays = _INPUTS[kind]()
    return tm, cm, tuple(torch.tensor(a) for a in arrays), tuple(cr.tensor(a) for a in arrays)


@pytest.mark.parametrize("kind", KINDS)
def test_export_matches_pytorch_and_runs_there(tmp_path, kind):
    tm, cm, targs, cargs = _pair(kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (kl_div's 'mean', legacy reduction flags)
        want = torch.export.export(tm, targs)
        got = cexport.export(cm, cargs)
        expected = tm(*targs)
        computed = got.module()(*cargs)
    assert [(n.op, n.name) for n in got.graph.nodes] == [(n.op, n.name) for n in want.graph.nodes]
    assert [str(n.target) for n in got.graph.nodes if n.op == "call_function"] == [
        str(n.target) for n in want.graph.nodes if n.op == "call_function"
    ]
    assert got.graph_module.code == want.graph_module.code
    assert str(got.graph_signature) == str(want.graph_signature)
    _same(computed, expected)
    cexport.save(got, tmp_path / "m.pt2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = torch.export.load(tmp_path / "m.pt2")
        ran = loaded.module()(*targs)
    assert loaded.graph_module.code == want.graph_module.code
    _same(ran, expected)


@pytest.mark.parametrize("kind", KINDS)
def test_pytorch_export_loads_and_runs(tmp_path, kind):
    tm, _, targs, cargs = _pair(kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.export.save(torch.export.export(tm, targs), tmp_path / "t.pt2")
        want = torch.export.load(tmp_path / "t.pt2")
        expected = want.module()(*targs)
        loaded = cexport.load(tmp_path / "t.pt2")
        got = loaded.module()(*cargs)
    assert [n.name for n in loaded.graph.nodes] == [n.name for n in want.graph.nodes]
    _same(got, expected)
