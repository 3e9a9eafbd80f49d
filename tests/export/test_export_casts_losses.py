"""chainrule.export.export of dtype casts, losses, nn.RNN and cross-attention against the
real torch.export.export of the same PyTorch modules (node names, targets, generated code
and signature; the saved program, read by the real torch.export.load, runs to PyTorch's
outputs); and chainrule.export.load of PyTorch's own export of each runs to its outputs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from export_checks import export_is_pytorchs, pair, same

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

    class BroadcastLosses(nn.Module):
        def forward(self, x, y):
            return (
                F.mse_loss(x, y),
                F.l1_loss(x, y, reduction="none"),
                F.huber_loss(x, y, delta=0.5),
                F.smooth_l1_loss(x, y, reduction="sum"),
                F.l1_loss(y, x),
                x * 2,  # (x read after the losses: the last broadcast's item)
                y + 1,  # (y, broadcast to another size, read as itself)
            )

    class WeightedLosses(nn.Module):
        def forward(self, x, y, w):
            return (
                F.mse_loss(x, y, weight=w),
                F.mse_loss(x, y, weight=w, reduction="sum"),
                F.mse_loss(x, y, weight=w, reduction="none"),
                F.huber_loss(x, y, weight=w),
                F.huber_loss(x, y, weight=w, reduction="sum", delta=0.5),
                F.huber_loss(x, y, weight=w, reduction="none"),
            )

    class MarginLosses(nn.Module):
        def forward(self, x, y, sign, rows, labels, classes, w):
            return (
                F.cosine_embedding_loss(x, y, rows),
                F.cosine_embedding_loss(x, y, rows, margin=1, reduction="none"),
                F.margin_ranking_loss(x, y, sign),
                F.margin_ranking_loss(x, y, sign, margin=0.5, reduce=False),
                F.hinge_embedding_loss(x, sign),
                F.hinge_embedding_loss(x, sign, margin=2, reduction="sum"),
                F.soft_margin_loss(x, sign),
                F.soft_margin_loss(x, sign, reduction="none"),
                F.triplet_margin_loss(x, y, y * 2),
                F.triplet_margin_loss(x, y, y * 2, margin=0.5, p=1, swap=True, reduction="none"),
                F.multi_margin_loss(x, classes),
                F.multi_margin_loss(x, classes, p=2, margin=0.5, weight=w, reduction="sum"),
                F.multilabel_margin_loss(x, labels),
                F.multilabel_soft_margin_loss(x, (sign + 1) / 2),
                F.multilabel_soft_margin_loss(x, (sign + 1) / 2, weight=w, reduction="none"),
                F.multilabel_soft_margin_loss(x[0], (sign[0] + 1) / 2, reduction="sum"),
                F.poisson_nll_loss(x, y.abs()),
                F.poisson_nll_loss(x.exp(), y.abs(), log_input=False, full=True, reduction="sum"),
                F.gaussian_nll_loss(x, y, 0.5),
                F.gaussian_nll_loss(x, y, 2.0, full=True, eps=0.1, reduction="none"),
                nn.CosineEmbeddingLoss()(x, y, rows) + nn.SoftMarginLoss()(x, sign),
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
        "broadcast_losses": BroadcastLosses,
        "weighted_losses": WeightedLosses,
        "margin_losses": MarginLosses,
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
    "broadcast_losses": lambda: (RNG.standard_normal((2, 3, 4)), RNG.standard_normal((3, 1))),
    "weighted_losses": lambda: _loss_inputs()[:3],
    "margin_losses": lambda: (
        RNG.standard_normal((3, 4)),
        RNG.standard_normal((3, 4)),
        np.where(RNG.uniform(size=(3, 4)) > 0.5, 1.0, -1.0),
        np.array([1.0, -1.0, 1.0]),
        np.array([[0, 3, -1, 0], [1, -1, 0, 0], [2, 1, 0, 3]]),
        np.array([0, 3, 1]),
        RNG.uniform(0.5, 1.0, 4),
    ),
    "rnn_tanh": lambda: (RNG.standard_normal((3, 2, 4)),),
    "rnn_relu": lambda: (RNG.standard_normal((2, 3, 4)),),
}

KINDS = list(_INPUTS)


@pytest.mark.parametrize("kind", KINDS)
def test_export_matches_pytorch_and_runs_there(tmp_path, kind):
    export_is_pytorchs(*pair(_make, _INPUTS, kind), tmp_path)


@pytest.mark.parametrize("kind", KINDS)
def test_pytorch_export_loads_and_runs(tmp_path, kind):
    tm, _, targs, cargs = pair(_make, _INPUTS, kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.export.save(torch.export.export(tm, targs), tmp_path / "t.pt2")
        want = torch.export.load(tmp_path / "t.pt2")
        expected = want.module()(*targs)
        loaded = cexport.load(tmp_path / "t.pt2")
        got = loaded.module()(*cargs)
    assert [n.name for n in loaded.graph.nodes] == [n.name for n in want.graph.nodes]
    same(got, expected)


def _loss_net(lib, loss):
    class Net(lib.nn.Module):
        def forward(self, *inputs):
            return loss(lib, *inputs)

    return Net()


def test_a_target_of_another_size_warns_as_pytorch():
    x, y = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((3, 1))

    def loss(lib, a, b):
        return lib.nn.functional.mse_loss(a, b)

    with pytest.warns(UserWarning) as theirs:
        torch.export.export(_loss_net(torch, loss), (torch.tensor(x), torch.tensor(y)))
    with pytest.warns(UserWarning) as ours:
        cexport.export(_loss_net(cr, loss), (cr.tensor(x), cr.tensor(y)))
    said = [str(w.message) for w in theirs if "target size" in str(w.message)]
    assert said and [str(w.message) for w in ours] == said


def test_l1_loss_with_a_weight_is_refused():
    """PyTorch's export leaves l1_loss's weight out (the node reads no weight): chainrule
    refuses rather than write a program computing the unweighted loss."""
    x, y, w = _loss_inputs()[:3]

    def loss(lib, a, b, c):
        return lib.nn.functional.l1_loss(a, b, weight=c)

    ep = torch.export.export(_loss_net(torch, loss), tuple(torch.tensor(v) for v in (x, y, w)))
    (node,) = [n for n in ep.graph.nodes if n.target is torch.ops.aten.l1_loss.default]
    assert "inputs_2" in [n.name for n in ep.graph.nodes if n.op == "placeholder"]
    assert all(arg.name != "inputs_2" for arg in node.args if hasattr(arg, "name"))
    with pytest.raises(NotImplementedError, match="l1_loss with a weight"):
        cexport.export(_loss_net(cr, loss), tuple(cr.tensor(v) for v in (x, y, w)))


def test_losses_pytorchs_export_refuses_are_refused():
    """gaussian_nll_loss of a tensor variance reads its values (a data-dependent guard);
    ctc_loss's output size depends on the lengths' values."""
    from chainrule.fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode

    def gaussian(lib, a, b, v):
        return lib.nn.functional.gaussian_nll_loss(a, b, v)

    def ctc(lib, a, b, n, m):
        return lib.nn.functional.ctc_loss(a.log_softmax(2), b, n, m)

    x, y, v = _loss_inputs()[1:4]
    ctc_inputs = (
        RNG.standard_normal((6, 2, 5)),
        np.array([[1, 2, 3], [2, 4, 1]]),
        np.array([6, 5]),
        np.array([3, 2]),
    )
    for loss, inputs, theirs, ours in (
        (gaussian, (x, y, v), RuntimeError, GuardOnDataDependentSymNode),
        (ctc, ctc_inputs, RuntimeError, NotImplementedError),
    ):
        with pytest.raises(theirs):
            torch.export.export(_loss_net(torch, loss), tuple(torch.tensor(a) for a in inputs))
        with pytest.raises(ours, match="PyTorch's export refuses"):
            cexport.export(_loss_net(cr, loss), tuple(cr.tensor(a) for a in inputs))


def test_packed_sequences_into_an_rnn_are_refused_as_by_pytorch():
    def make(lib):
        from importlib import import_module

        rnn = import_module(f"{lib.__name__}.nn.utils.rnn")

        class Net(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.gru = lib.nn.GRU(4, 5, batch_first=True)

            def forward(self, x, lengths):
                packed = rnn.pack_padded_sequence(x, lengths, True, enforce_sorted=False)
                return rnn.pad_packed_sequence(self.gru(packed)[0], batch_first=True)[0]

        return Net()

    x, lengths = RNG.standard_normal((2, 3, 4)), np.array([2, 3])
    with pytest.raises(TypeError), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (PyTorch's note on the weights it reassigns)
        torch.export.export(make(torch), (torch.tensor(x), torch.tensor(lengths)))
    with pytest.raises(NotImplementedError, match="packed sequence"):
        cexport.export(make(cr), (cr.tensor(x), cr.tensor(lengths)))
