"""``nn.Embedding`` and ``nn.EmbeddingBag`` side by side with torch.nn: lookups, padding_idx
(its row zero at initialisation, no gradient), max_norm (the weight renormalised in place),
norm_type, scale_grad_by_freq, the bag modes with offsets, per_sample_weights and
include_last_offset, ``from_pretrained`` (freeze), reprs, the initial distribution and
PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from nn_layers import check_module
from oracle import DT_IDS, FLOATS, L64, R, assert_same_error, compare, to_numpy, vjp_bits_on_arrays

IDX = np.array([[1, 2, 4, 5], [4, 3, 2, 9]], dtype=np.int64)

EMBEDDING = [
    ((10, 3), {}, IDX),
    ((10, 3), {"padding_idx": 2}, IDX),
    ((10, 3), {"padding_idx": -1}, IDX),
    ((10, 3), {"max_norm": 1.0}, IDX),
    ((10, 3), {"max_norm": 0.5, "norm_type": 1.0}, IDX),
    ((10, 3), {"scale_grad_by_freq": True}, IDX),
    ((10, 4), {}, L64(3, 3, 0)),
    ((10, 2), {}, np.array(7, dtype=np.int64)),
]


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("args,kw,idx", EMBEDDING, ids=lambda v: str(v).replace("\n", ""))
def test_embedding(args, kw, idx, dtype):
    check_module(lambda lib: lib.nn.Embedding(*args, **kw), idx, dtype=dtype)


BAG = [
    ((10, 3), {}, (IDX,)),
    ((10, 3), {"mode": "sum"}, (IDX,)),
    ((10, 3), {"mode": "max"}, (IDX,)),
    ((10, 3), {"mode": "sum"}, (L64(1, 2, 4, 5, 4, 3), L64(0, 2))),
    ((10, 3), {"mode": "mean", "include_last_offset": True}, (L64(1, 2, 4, 5, 4, 3), L64(0, 2, 6))),
    ((10, 3), {"mode": "max"}, (L64(1, 2, 4, 5, 4, 3), L64(0, 1, 4))),
    ((10, 3), {"mode": "sum"}, (IDX, None, R(2, 4))),
    ((10, 3), {"padding_idx": 4}, (IDX,)),
    ((10, 3), {"max_norm": 1.0, "mode": "sum"}, (IDX,)),
]


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("args,kw,inputs", BAG, ids=lambda v: str(v).replace("\n", ""))
def test_embedding_bag(args, kw, inputs, dtype):
    check_module(lambda lib: lib.nn.EmbeddingBag(*args, **kw), *inputs, dtype=dtype)


def test_padding_row_and_distribution():
    m = cr.nn.Embedding(3000, 8, padding_idx=-3)
    w = to_numpy(m.weight)
    assert m.padding_idx == 2997 and np.all(w[2997] == 0)
    rest = np.delete(w, 2997, axis=0)
    assert abs(rest.mean()) < 0.03 and abs(rest.std() - 1) < 0.03
    b = cr.nn.EmbeddingBag(5, 2, padding_idx=0)
    assert np.all(to_numpy(b.weight)[0] == 0)


@pytest.mark.parametrize("freeze", [True, False])
def test_from_pretrained(freeze):
    def run(lib):
        w = lib.tensor(R(4, 3))
        e = lib.nn.Embedding.from_pretrained(w, freeze=freeze, padding_idx=1, max_norm=2.0)
        b = lib.nn.EmbeddingBag.from_pretrained(w, freeze=freeze, mode="sum")
        idx = lib.tensor(IDX % 4)
        return [repr(e), repr(b), e.weight.requires_grad, b.weight.requires_grad, e(idx), b(idx)]

    compare(run, rtol=1e-10, atol=1e-12)


def test_reprs():
    def mods(lib):
        nn = lib.nn
        return nn.ModuleList(
            [
                nn.Embedding(10, 3),
                nn.Embedding(10, 3, padding_idx=-2, max_norm=1.0, norm_type=1.0),
                nn.Embedding(10, 3, scale_grad_by_freq=True, sparse=True),
                nn.EmbeddingBag(10, 3),
                nn.EmbeddingBag(10, 3, max_norm=2.0, norm_type=3, mode="max", padding_idx=1),
                nn.EmbeddingBag(10, 3, scale_grad_by_freq=True, include_last_offset=True),
            ]
        )

    assert str(mods(cr)) == str(mods(torch))
    assert list(mods(cr).state_dict()) == list(mods(torch).state_dict())


def test_sparse_gradient():
    """sparse=True: the weight's gradient is sparse in both (compared densified)."""
    x = IDX
    grads = []
    for lib in (cr, torch):
        m = lib.nn.Embedding(10, 3, sparse=True)
        with lib.no_grad():
            m.weight.copy_(lib.tensor(R(10, 3).astype(np.float32)))
        m(lib.tensor(x)).sum().backward()
        g = m.weight.grad
        assert g.is_sparse
        grads.append(to_numpy(g.to_dense()))
    np.testing.assert_allclose(grads[0], grads[1])


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib: lib.nn.Embedding(5, 2, padding_idx=5),
        lambda lib: lib.nn.Embedding(5, 2, padding_idx=-6),
        lambda lib: lib.nn.EmbeddingBag(5, 2, padding_idx=7),
        lambda lib: lib.nn.Embedding(5, 2, _weight=lib.ones(4, 2)),
        lambda lib: lib.nn.Embedding.from_pretrained(lib.ones(3)),
        lambda lib: lib.nn.EmbeddingBag.from_pretrained(lib.ones(2, 3, 4)),
        lambda lib: lib.nn.Embedding(5, 2)(lib.tensor([1.0, 2.0])),
        lambda lib: lib.nn.EmbeddingBag(5, 2)(lib.tensor([1, 2]), None),
    ],
)
def test_errors(fn):
    assert_same_error(fn)


@pytest.mark.parametrize("dt", FLOATS, ids=DT_IDS)
def test_embedding_gradient_on_arrays_gives_index_adds_bits(dt):
    """Embedding's weight gradient on arrays (the rows added into zeros directly) against
    create_graph=True (index_add into zeros, as an op): bit for bit, repeated indices and
    a -0, inf and nan in the output gradient included."""
    r = np.random.default_rng(10)
    weight = r.standard_normal((100, 32)).astype(dt)
    index = r.integers(0, 99, (16, 20))
    index[0, 0] = 99  # (read once: its -0 becomes +0, as 0 + -0 does)
    g = r.standard_normal((16, 20, 32)).astype(dt)
    g[0, :3, 0] = [-0.0, np.inf, np.nan]
    vjp_bits_on_arrays(lambda L, w, i: L.nn.functional.embedding(i, w), [weight, index], g)
