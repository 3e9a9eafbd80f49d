"""Calls whose ATen operator gives several results, exported as PyTorch's export writes
them: max pools with ``return_indices`` (``max_pool{n}d_with_indices`` and its ``getitem``
nodes), adaptive max pools (both results written, the indices read or not),
``max_unpool1d/2d/3d`` fed by them, ``embedding_bag`` (``embedding_bag.padding_idx``),
``local_response_norm``, the matrix views ``mT``/``mH``/``H`` and ``rand_like`` (its values
random: shapes compared). Each as functional calls and as nn modules: the same code, node
names, printed program (with every result's shape) and signature, the outputs of
PyTorch's module, the saved file run by the real ``torch.export.load``, and PyTorch's own
saved program run by chainrule's load."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from export_checks import (
    export_is_pytorchs,
    modules,
    one_call_module,
    one_call_pair,
    printed,
    same,
)

import chainrule as cr
import chainrule.export as cexport

_R = np.random.default_rng(3)

ARRAYS = {
    "s": _R.standard_normal((2, 3, 6)),  # (N, C, L)
    "x": _R.standard_normal((2, 3, 4, 6)),  # (N, C, H, W): windows of 2 cover it
    "t": _R.standard_normal((2, 3, 4, 4, 6)),  # (N, C, D, H, W)
    "u": _R.standard_normal((3, 5, 7)),  # an odd-sized (C, H, W) image, no batch
    "m": _R.standard_normal((3, 4)),
    "b": _R.standard_normal((2, 3, 4)),
    "w": _R.standard_normal((6, 4)),  # an embedding table
    "i": np.array([[1, 0, 5], [2, 2, 4]], dtype=np.int64),  # bags of indices
    "j": np.array([1, 0, 5, 2, 2, 4, 3], dtype=np.int64),  # indices cut at offsets
    "p": _R.uniform(0.5, 1.5, (2, 3)),  # per-sample weights of "i"
}

# (id, the forward's expression of L (the library) and F (its nn.functional) on the
# inputs a, b, c, their letters)
CASES = [
    ("max_pool1d indices", "F.max_pool1d(a, 2, return_indices=True)", "s"),
    ("max_pool1d indices args", "F.max_pool1d(a, 3, 1, 1, 1, True, True)", "s"),
    ("max_pool2d indices", "F.max_pool2d(a, 2, return_indices=True)", "x"),
    (
        "max_pool2d indices ceil",
        "F.max_pool2d(a, (3, 2), 2, 1, ceil_mode=True, return_indices=True)",
        "x",
    ),
    ("max_pool2d indices dilated", "F.max_pool2d(a, 2, 1, 0, 2, return_indices=True)", "u"),
    ("max_pool3d indices", "F.max_pool3d(a, 2, return_indices=True)", "t"),
    ("max_pool2d no indices", "F.max_pool2d(a, 2, return_indices=False)", "x"),
    ("max_pool2d_with_indices", "F.max_pool2d_with_indices(a, 2)", "x"),
    ("adaptive_max_pool1d", "F.adaptive_max_pool1d(a, 4)", "s"),
    ("adaptive_max_pool1d indices", "F.adaptive_max_pool1d(a, 4, return_indices=True)", "s"),
    ("adaptive_max_pool2d", "F.adaptive_max_pool2d(a, (3, 4))", "x"),
    ("adaptive_max_pool2d None", "F.adaptive_max_pool2d(a, (None, 3))", "x"),
    ("adaptive_max_pool2d indices", "F.adaptive_max_pool2d(a, 2, True)", "u"),
    ("adaptive_max_pool3d", "F.adaptive_max_pool3d(a, 2)", "t"),
    ("adaptive_max_pool3d indices", "F.adaptive_max_pool3d(a, (1, 2, 3), True)", "t"),
    ("adaptive_max_pool2d values used", "F.adaptive_max_pool2d(a, 2).relu()", "x"),
    ("max_unpool1d", "F.max_unpool1d(*F.max_pool1d(a, 2, return_indices=True), 2)", "s"),
    ("max_unpool2d", "F.max_unpool2d(*F.max_pool2d(a, 2, return_indices=True), 2)", "x"),
    (
        "max_unpool2d output_size",
        "F.max_unpool2d(*F.max_pool2d(a, 2, return_indices=True), 2, output_size=[2, 3, 5, 7])",
        "x",
    ),
    ("max_unpool3d", "F.max_unpool3d(*F.max_pool3d(a, 2, return_indices=True), 2)", "t"),
    ("embedding_bag", "F.embedding_bag(b, a)", "wi"),
    ("embedding_bag sum padding", "F.embedding_bag(b, a, mode='sum', padding_idx=2)", "wi"),
    ("embedding_bag weights", "F.embedding_bag(b, a, mode='sum', per_sample_weights=c)", "wip"),
    ("embedding_bag offsets", "F.embedding_bag(b, a, c, mode='max')", "wjc"),
    ("local_response_norm 3d", "F.local_response_norm(a, 3, alpha=0.5, beta=1, k=2.0)", "s"),
    ("local_response_norm 4d", "F.local_response_norm(a, 2)", "x"),
    ("local_response_norm 5d", "F.local_response_norm(a, 4)", "t"),
    ("mT", "a.mT", "b"),
    ("mT twice", "a.mT.mT + a", "b"),
    ("mH", "a.mH", "m"),
    ("H", "a.H", "m"),
    ("rand_like zeroed", "L.rand_like(a) * 0", "m"),
    ("randn_like zeroed", "L.randn_like(a) * 0", "m"),
]
ARRAYS["c"] = np.array([0, 3, 4], dtype=np.int64)  # offsets into "j"

# the same program, but the shapes of results nothing reads: PyTorch's export gives
# include_last_offset's bag sizes one per offset, its kernel (and chainrule) one per bag
UNREAD_SHAPES_DIFFER = [
    ("embedding_bag last offset", "F.embedding_bag(b, a, c, include_last_offset=True)", "wjc"),
]


def _pair(expr: str, letters: str, plain: bool = False) -> tuple:
    return one_call_pair(expr, [ARRAYS[c] for c in letters], plain)


def _exports(tm, cm, targs, cargs) -> tuple:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.export.export(tm, targs), cexport.export(cm, cargs)


@pytest.mark.parametrize(("expr", "letters"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_export_matches_pytorch_and_runs_there(tmp_path, expr, letters):
    tm, cm, targs, cargs = _pair(expr, letters)
    export_is_pytorchs(tm, cm, targs, cargs, tmp_path)
    want, got = _exports(tm, cm, targs, cargs)
    assert printed(got) == printed(want)  # (every result's shape and dtype, used or not)


@pytest.mark.parametrize(
    ("expr", "letters"),
    [c[1:] for c in UNREAD_SHAPES_DIFFER],
    ids=[c[0] for c in UNREAD_SHAPES_DIFFER],
)
def test_export_matches_pytorch_but_unread_shapes(tmp_path, expr, letters):
    export_is_pytorchs(*_pair(expr, letters), tmp_path)


@pytest.mark.parametrize(
    ("expr", "letters"),
    [c[1:] for c in CASES + UNREAD_SHAPES_DIFFER],
    ids=[c[0] for c in CASES + UNREAD_SHAPES_DIFFER],
)
def test_pytorch_export_loads_and_runs(tmp_path, expr, letters):
    tm, _, targs, cargs = _pair(expr, letters, plain=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.export.save(torch.export.export(tm, targs), tmp_path / "t.pt2")
        want = torch.export.load(tmp_path / "t.pt2")
        expected = want.module()(*targs)
        loaded = cexport.load(tmp_path / "t.pt2")
        got = loaded.module()(*cargs)
    assert [n.name for n in loaded.graph.nodes] == [n.name for n in want.graph.nodes]
    same(got, expected)


def _pool_module(lib, kind: str):
    nn = lib.nn

    class Pools(nn.Module):
        """A max pool with indices, its unpool, and an adaptive max pool."""

        def __init__(self):
            super().__init__()
            if kind == "1d":
                self.pool = nn.MaxPool1d(2, return_indices=True)
                self.unpool = nn.MaxUnpool1d(2)
                self.adaptive = nn.AdaptiveMaxPool1d(2)
            else:
                self.pool = nn.MaxPool2d(2, return_indices=True)
                self.unpool = nn.MaxUnpool2d(2)
                self.adaptive = nn.AdaptiveMaxPool2d((2, 3), return_indices=kind == "both")

        def forward(self, x):
            values, indices = self.pool(x)
            return self.unpool(values, indices), self.adaptive(x), indices

    return Pools()


def _bag_module(lib, kind: str):
    nn = lib.nn

    class Bags(nn.Module):
        """Embedding bags of a 2-d input, and a local response norm after a linear map."""

        def __init__(self):
            super().__init__()
            self.bag = nn.EmbeddingBag(6, 4, mode=kind)
            self.norm = nn.LocalResponseNorm(2)

        def forward(self, i):
            bags = self.bag(i)
            return bags, self.norm(bags.unsqueeze(0).mT)

    return Bags()


_MODULES = [
    ("pools 1d", _pool_module, "1d", "s"),
    ("pools 2d", _pool_module, "2d", "x"),
    ("pools 2d adaptive indices", _pool_module, "both", "x"),
    ("bags mean", _bag_module, "mean", "i"),
    ("bags max", _bag_module, "max", "i"),
]


@pytest.mark.parametrize(
    ("make", "kind", "letters"), [c[1:] for c in _MODULES], ids=[c[0] for c in _MODULES]
)
def test_modules_export_as_pytorch(tmp_path, make, kind, letters):
    tm, cm = modules(make, kind)
    targs = tuple(torch.tensor(ARRAYS[c]) for c in letters)
    cargs = tuple(cr.tensor(ARRAYS[c]) for c in letters)
    export_is_pytorchs(tm, cm, targs, cargs, tmp_path)
    want, got = _exports(tm, cm, targs, cargs)
    assert printed(got) == printed(want)


@pytest.mark.parametrize("op", ["rand_like", "randn_like"])
def test_random_like_is_written_and_runs_after_loading(tmp_path, op):
    """``rand_like``'s values differ run to run: its node, its result's shape and dtype,
    and its range in the real ``torch.export.load``."""
    expr = f"L.{op}(a, dtype=L.float32) + 1"
    tm, cm, targs, cargs = _pair(expr, "m")
    want, got = _exports(tm, cm, targs, cargs)
    assert got.graph_module.code == want.graph_module.code
    assert printed(got) == printed(want)
    cexport.save(got, tmp_path / "m.pt2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ran = torch.export.load(tmp_path / "m.pt2").module()(*targs)
    computed = got.module()(*cargs)
    for out in (ran, computed):
        assert tuple(out.shape) == (3, 4) and str(out.dtype).endswith("float32")
    if op == "rand_like":
        assert ((ran >= 1) & (ran < 2)).all() and bool(((computed >= 1) & (computed < 2)).all())


def test_embedding_bag_max_norm_is_refused():
    cm = one_call_module(cr, "F.embedding_bag(b, a, max_norm=1.0)", 2)
    with pytest.raises(NotImplementedError, match="max_norm"):
        cexport.export(cm, (cr.tensor(ARRAYS["w"]), cr.tensor(ARRAYS["i"])))
