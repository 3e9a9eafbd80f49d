"""ExportedProgram.run_decompositions of single ops PyTorch rewrites into core ATen (joins
and splits, var/std, group norm, transposed convolutions, adaptive and 1-D pools, the
losses, mish): the same code, node names and signature as the real
``ep.run_decompositions()``, the same outputs (float64) on chainrule and in the real
``torch.export.load`` of the saved file. (tools/decomposition_sweep.py runs more.)"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from export_checks import decomposed_program_runs, decomposed_programs

import chainrule as cr
import chainrule.export as cexport

RNG = np.random.default_rng(5)


def _n(*shape):
    return RNG.standard_normal(shape)


def _u(*shape):
    return RNG.random(shape)


_TARGETS = np.array([0, 2, 1, 1])
_GRID_TARGETS = np.array([[0, 2], [1, 1], [2, 0], [1, 0]])

# name -> (forward of (lib, F, module, *inputs), the inputs)
CASES = {
    "stack": (
        lambda lib, F, m, x, y: (lib.stack([x, y]), lib.stack([x, y], 1), lib.stack([x, y], -1)),
        lambda: [_n(3, 4), _n(3, 4)],
    ),
    "chunk_split_unbind": (
        lambda lib, F, m, x: (x.chunk(2, 1), x.chunk(2), x.split(2, -1), x.unbind(-1)),
        lambda: [_n(3, 5)],
    ),
    "var_std_sum": (
        lambda lib, F, m, x: (
            x.var(0),
            x.var(1, unbiased=False, keepdim=True),
            x.var(unbiased=False),
            x.std(),
            x.std(1, correction=0),
            x.std(-1, keepdim=True),
            x.sum(),
        ),
        lambda: [_n(3, 4)],
    ),
    "where_number": (
        lambda lib, F, m, x, i: (lib.where(x > 0, x, 0.0), lib.where(i > 0, i, 2.5)),
        lambda: [_n(3, 4), np.array([[1, -2], [3, 0]])],
    ),
    "group_norm": (lambda lib, F, m, x: (m.gn(x), F.group_norm(x, 2)), lambda: [_n(2, 4, 3, 2)]),
    "conv_transpose": (
        lambda lib, F, m, x, s: (
            m.convt(x),
            F.conv_transpose2d(x, m.convt.weight, None, 2, 1, 1),
            m.convt1(s),
        ),
        lambda: [_n(1, 2, 3, 3), _n(1, 2, 5)],
    ),
    "adaptive_pools": (
        lambda lib, F, m, x, s: (
            F.adaptive_avg_pool2d(x, (1, 1)),
            F.adaptive_avg_pool2d(x, 3),
            F.adaptive_avg_pool1d(s, 2),
            F.adaptive_avg_pool1d(s, 1),
            F.adaptive_avg_pool3d(x, 2),
        ),
        lambda: [_n(2, 4, 6, 6), _n(2, 3, 8)],
    ),
    "max_pool1d": (
        lambda lib, F, m, x: (
            F.max_pool1d(x, 2),
            F.max_pool1d(x, 3, 2, 1),
            F.max_pool1d(x, 2, 2, 0, 2),
            F.max_pool1d(x, 3, ceil_mode=True),
        ),
        lambda: [_n(2, 3, 8)],
    ),
    "regression_losses": (
        lambda lib, F, m, x, y: (
            F.l1_loss(x, y),
            F.l1_loss(x, y, reduction="none"),
            F.smooth_l1_loss(x, y),
            F.smooth_l1_loss(x, y, beta=0.5, reduction="sum"),
            F.huber_loss(x, y, delta=0.5, reduction="none"),
        ),
        lambda: [_n(3, 4), _n(3, 4)],
    ),
    "binary_losses": (
        lambda lib, F, m, x, y, w, p: (
            F.binary_cross_entropy(lib.sigmoid(x), y),
            F.binary_cross_entropy(lib.sigmoid(x), y, weight=w, reduction="sum"),
            F.binary_cross_entropy_with_logits(x, y),
            F.binary_cross_entropy_with_logits(x, y, weight=w, pos_weight=p, reduction="none"),
        ),
        lambda: [_n(3, 4), _u(3, 4), _u(4), _u(4) + 0.5],
    ),
    "kl_div": (
        lambda lib, F, m, x, y, z: (
            F.kl_div(x, y),
            F.kl_div(x, y, reduction="batchmean"),
            F.kl_div(x, z, reduction="sum", log_target=True),
        ),
        lambda: [_n(3, 4), _u(3, 4), _n(3, 4)],
    ),
    "nll": (
        lambda lib, F, m, x, t, w: (
            F.nll_loss(F.log_softmax(x, 1), t),
            F.nll_loss(x, t, weight=w),
            F.nll_loss(x, t, ignore_index=1, reduction="none"),
            F.nll_loss(x, t, weight=w, reduction="sum"),
        ),
        lambda: [_n(4, 3), _TARGETS, _u(3)],
    ),
    "cross_entropy": (
        lambda lib, F, m, x, t, w: (
            F.cross_entropy(x, t, weight=w),
            F.cross_entropy(x, t, label_smoothing=0.1),
        ),
        lambda: [_n(4, 3), _TARGETS, _u(3)],
    ),
    "cross_entropy_nd": (
        lambda lib, F, m, x, t: (
            F.cross_entropy(x, t),
            F.cross_entropy(x, t, reduction="none"),
            F.cross_entropy(x[..., None], t[..., None], reduction="sum"),
        ),
        lambda: [_n(4, 3, 2), _GRID_TARGETS],
    ),
    "activations": (
        lambda lib, F, m, x, y: (
            F.mish(x),
            F.logsigmoid(x),
            y.expand_as(x) * 1,
            F.glu(x),
            F.normalize(x),
        ),
        lambda: [_n(3, 4), _n(1, 4)],
    ),
}


def _module(lib, name: str, count: int):
    nn, forward = lib.nn, CASES[name][0]

    class Layers(nn.Module):
        def __init__(self):
            super().__init__()
            self.gn = nn.GroupNorm(2, 4)
            self.convt = nn.ConvTranspose2d(2, 3, 2)
            self.convt1 = nn.ConvTranspose1d(2, 3, 3, stride=2)

    def run(self, *inputs):
        return forward(lib, lib.nn.functional, self, *inputs)

    forwards = {
        1: lambda self, a: run(self, a),
        2: lambda self, a, b: run(self, a, b),
        3: lambda self, a, b, c: run(self, a, b, c),
        4: lambda self, a, b, c, d: run(self, a, b, c, d),
    }
    return type("Case", (Layers,), {"forward": forwards[count]})()


def _programs(name: str):
    arrays = CASES[name][1]()
    return decomposed_programs(lambda lib: _module(lib, name, len(arrays)), arrays)


@pytest.mark.parametrize("name", list(CASES))
def test_a_decomposed_op_is_pytorchs_program_and_runs_in_pytorch(name):
    tm, want, got, targs, cargs = _programs(name)
    assert got.graph_module.code == want.graph_module.code
    assert str(got.graph_signature) == str(want.graph_signature)
    decomposed_program_runs(tm, got, targs, cargs)


def test_the_default_table_holds_the_new_rules_pytorch_holds():
    ours = {str(k) for k in cexport.default_decompositions()}
    theirs = {str(k) for k in torch.export.default_decompositions()}
    for name in (
        "stack.default",
        "split.Tensor",
        "unbind.int",
        "var.dim",
        "std.correction",
        "sum.default",
        "group_norm.default",
        "conv_transpose2d.input",
        "adaptive_avg_pool1d.default",
        "max_pool1d.default",
        "l1_loss.default",
        "binary_cross_entropy_with_logits.default",
        "nll_loss_nd.default",
        "kl_div.default",
        "mish.default",
    ):
        assert f"aten.{name}" in theirs
        assert f"aten.{name}" in ours


def test_a_table_without_group_norm_keeps_it_as_pytorch_does():
    arrays = CASES["group_norm"][1]()
    torch.manual_seed(0)
    tm = _module(torch, "group_norm", 1).double()
    cm = _module(cr, "group_norm", 1).double()
    cm.load_state_dict({k: cr.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    ttable = torch.export.default_decompositions()
    del ttable[torch.ops.aten.group_norm.default]
    table = cexport.default_decompositions()
    del table[cr.ops.aten.group_norm.default]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's deprecation notes
        want = torch.export.export(tm, (torch.tensor(arrays[0]),)).run_decompositions(ttable)
        got = cexport.export(cm, (cr.tensor(arrays[0]),)).run_decompositions(table)
    assert got.graph_module.code == want.graph_module.code
    assert "aten.group_norm.default" in [str(n.target) for n in got.graph.nodes]


def test_label_smoothing_with_class_weights_is_refused_naming_the_case():
    class M(cr.nn.Module):
        def forward(self, x, t, w):
            return cr.nn.functional.cross_entropy(x, t, weight=w, label_smoothing=0.1)

    args = (cr.tensor(_n(4, 3)), cr.tensor(_TARGETS), cr.tensor(_u(3)))
    ep = cexport.export(M(), args)
    with pytest.raises(NotImplementedError, match="label smoothing"):
        ep.run_decompositions()
