"""Embeddings against PyTorch: embedding (padding_idx, max_norm's in-place
renormalization, scale_grad_by_freq, sparse gradients),
embedding_bag (sum, mean, max; offsets, empty bags, 2-D inputs, per_sample_weights,
include_last_offset, padding_idx), one_hot; float32 and float64, gradients, tangents,
node names, finite differences, second derivatives, errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import (
    DT_IDS,
    FLOATS,
    L64,
    assert_close,
    assert_same,
    assert_same_error,
    check,
    check_double_backward,
    check_fd,
    randn,
    same_node,
)


def F(lib):
    return lib.nn.functional


WEIGHT = randn((6, 3))
IDX = L64([1, 3, 3], [0, 5, 1])

EMBEDDING = {
    "1d": (lambda L, i, w: F(L).embedding(i, w), L64(2, 0, 2, 5), WEIGHT),
    "2d": (lambda L, i, w: F(L).embedding(i, w), IDX, WEIGHT),
    "0d": (lambda L, i, w: F(L).embedding(i, w), L64(4).reshape(()), WEIGHT),
    "int32": (lambda L, i, w: F(L).embedding(i, w), IDX.astype(np.int32), WEIGHT),
    "padding_idx": (lambda L, i, w: F(L).embedding(i, w, padding_idx=3), IDX, WEIGHT),
    "negative_padding_idx": (lambda L, i, w: F(L).embedding(i, w, padding_idx=-1), IDX, WEIGHT),
    "scale_grad_by_freq": (
        lambda L, i, w: F(L).embedding(i, w, scale_grad_by_freq=True),
        IDX,
        WEIGHT,
    ),
    "scale_and_padding": (
        lambda L, i, w: F(L).embedding(i, w, padding_idx=1, scale_grad_by_freq=True),
        IDX,
        WEIGHT,
    ),
    "torch.embedding": (lambda L, i, w: L.embedding(w, i, 5), IDX, WEIGHT),
}

OFFSETS = L64(0, 2, 2, 5)  # four bags of a 7-index input, the second empty
BAG_IDX = L64(1, 3, 0, 5, 3, 2, 4)
DISTINCT = (np.arange(18.0).reshape(6, 3) * 0.37) % 1.9 - 0.9  # no ties for max


def _bag(**kw):
    return lambda L, i, w, o: F(L).embedding_bag(i, w, o, **kw)


BAGS = {
    "mean": (_bag(), BAG_IDX, WEIGHT, OFFSETS),
    "sum": (_bag(mode="sum"), BAG_IDX, WEIGHT, OFFSETS),
    "max": (_bag(mode="max"), BAG_IDX, DISTINCT, OFFSETS),
    "mean_padding": (_bag(padding_idx=3), BAG_IDX, WEIGHT, OFFSETS),
    "max_padding": (_bag(mode="max", padding_idx=1), BAG_IDX, DISTINCT, OFFSETS),
    "sum_last_offset": (
        _bag(mode="sum", include_last_offset=True),
        BAG_IDX,
        WEIGHT,
        L64(0, 2, 2, 7),
    ),
    "mean_last_offset_all": (
        _bag(include_last_offset=True),
        BAG_IDX,
        WEIGHT,
        L64(0, 2, 7),
    ),
    "sum_per_sample_weights": (
        lambda L, i, w, o, p: F(L).embedding_bag(i, w, o, mode="sum", per_sample_weights=p),
        BAG_IDX,
        WEIGHT,
        OFFSETS,
        randn((7,), seed=3),
    ),
    "sum_per_sample_weights_padding": (
        lambda L, i, w, o, p: F(L).embedding_bag(
            i, w, o, mode="sum", per_sample_weights=p, padding_idx=3
        ),
        BAG_IDX,
        WEIGHT,
        OFFSETS,
        randn((7,), seed=3),
    ),
    "2d_input_mean": (lambda L, i, w: F(L).embedding_bag(i, w), IDX, WEIGHT),
    "2d_input_max": (lambda L, i, w: F(L).embedding_bag(i, w, mode="max"), IDX, DISTINCT),
    "2d_input_per_sample_weights": (
        lambda L, i, w, p: F(L).embedding_bag(i, w, mode="sum", per_sample_weights=p),
        IDX,
        WEIGHT,
        randn((2, 3), seed=4),
    ),
}

EMBEDDING_CASES = {f"embedding_{k}": v for k, v in EMBEDDING.items()}
BAG_CASES = {f"bag_{k}": v for k, v in BAGS.items()}
CASES = {**EMBEDDING_CASES, **BAG_CASES}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name, dtype):
    fn, *inputs = CASES[name]
    same_node(check(fn, *inputs, dtype=dtype))


# padding_idx and scale_grad_by_freq change the gradient on purpose (no gradient to the
# padding row, each index's ÷ its count): it is not the derivative, so no finite differences
NOT_THE_DERIVATIVE = {
    "embedding_padding_idx",
    "embedding_negative_padding_idx",
    "embedding_scale_grad_by_freq",
    "embedding_scale_and_padding",
    "embedding_torch.embedding",
}


@pytest.mark.parametrize("name", sorted(set(CASES) - NOT_THE_DERIVATIVE))
def test_finite_differences(name):
    fn, *inputs = CASES[name]
    check_fd(fn, *inputs)


# torch's second derivative of embedding takes the gradient's rows back at the indices,
# leaving out the padding_idx and scale_grad_by_freq it applied in the first: chainrule
# differentiates its own first derivative (checked by gradgradcheck below)
TORCH_SECOND_DERIVATIVE_DIFFERS = {"embedding_scale_grad_by_freq", "embedding_scale_and_padding"}


@pytest.mark.parametrize("name", sorted(set(EMBEDDING_CASES) - TORCH_SECOND_DERIVATIVE_DIFFERS))
def test_second_derivatives_match_torch(name):
    fn, *inputs = CASES[name]
    check_double_backward(fn, *inputs)


@pytest.mark.parametrize("name", sorted(set(BAG_CASES) | TORCH_SECOND_DERIVATIVE_DIFFERS))
def test_gradgradcheck(name):
    """torch has no second derivative of embedding_bag: chainrule's, and its forward mode
    (torch has none for embedding_bag either), against finite differences."""
    fn, *inputs = CASES[name]
    float_at = [i for i, v in enumerate(inputs) if v.dtype.kind == "f"]
    fixed = [cr.tensor(v) for v in inputs]

    def run(*xs):
        args = list(fixed)
        for i, x in zip(float_at, xs):
            args[i] = x
        return fn(cr, *args)

    xs = tuple(cr.tensor(inputs[i], requires_grad=True) for i in float_at)
    if name in BAG_CASES:  # (scale_grad_by_freq's first derivative is not the derivative)
        assert cr.autograd.gradcheck(run, xs, check_forward_ad=True)
    assert cr.autograd.gradgradcheck(run, xs)


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_bag_scale_grad_by_freq_divides_by_each_index_count(mode):
    """Each index's gradient ÷ its count among the indices: the bag of embedding's rows
    (PyTorch's embedding does this right; its embedding_bag kernel of 2.13 gives some
    indices another index's count, e.g. 1/2 to the 4 of [1, 1, 0, 4])."""
    offsets, n_bags = OFFSETS, 4
    bags = np.searchsorted(offsets, np.arange(BAG_IDX.size), side="right") - 1
    g = randn((n_bags, 3), seed=8)
    w = cr.tensor(WEIGHT, requires_grad=True)
    F(cr).embedding_bag(
        cr.tensor(BAG_IDX), w, cr.tensor(offsets), mode=mode, scale_grad_by_freq=True
    ).backward(cr.tensor(g))
    counts = np.bincount(bags, minlength=n_bags)
    share = 1.0 / counts[bags] if mode == "mean" else np.ones(BAG_IDX.size)
    wt = torch.tensor(WEIGHT, requires_grad=True)
    rows = F(torch).embedding(torch.tensor(BAG_IDX), wt, scale_grad_by_freq=True)
    rows.backward(torch.tensor(g[bags] * share[:, None]))
    np.testing.assert_allclose(w.grad.numpy(), wt.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("norm_type", [2.0, 1.0])
def test_max_norm_renormalizes_the_rows_read_in_place(norm_type):
    """The rows of weight the input reads are scaled to norm max_norm where larger, in
    place (the version bumps), and the gradient is taken at the new weight."""
    w0 = randn((6, 3)) * 2

    def fn(L, i, w):
        return F(L).embedding(i, w, max_norm=1.5, norm_type=norm_type)

    res = check(fn, IDX, w0)
    assert_same(res.cr_inputs[1].detach(), res.torch_inputs[1].detach(), "weight after")
    assert res.cr_inputs[1]._version == res.torch_inputs[1]._version == 1
    assert not np.allclose(res.cr_inputs[1].detach().numpy(), w0)  # some row was too long


def test_embedding_bag_max_norm():
    res = check(
        lambda L, i, w, o: F(L).embedding_bag(i, w, o, max_norm=1.0),
        BAG_IDX,
        randn((6, 3)) * 2,
        OFFSETS,
    )
    assert_same(res.cr_inputs[1].detach(), res.torch_inputs[1].detach(), "weight after")


def test_sparse_gives_a_sparse_gradient():
    """sparse=True: the gradient is sparse, one element per index read (tests/test_sparse.py
    has more)."""
    grads = []
    for lib in (cr, torch):
        w = lib.tensor(WEIGHT, requires_grad=True)
        F(lib).embedding(lib.tensor(IDX), w, sparse=True).sum().backward()
        assert w.grad.is_sparse
        grads.append(w.grad.to_dense())
    assert_close(grads[0], grads[1], requires_grad=False)


def test_padding_row_is_read_but_gets_no_gradient():
    w = cr.tensor(WEIGHT, requires_grad=True)
    y = F(cr).embedding(cr.tensor(L64(2, 2, 0)), w, padding_idx=2)
    np.testing.assert_array_equal(y.detach().numpy()[0], WEIGHT[2])
    y.sum().backward()
    assert not w.grad.numpy()[2].any() and w.grad.numpy()[0].all()


# ----- one_hot ---------------------------------------------------------------------------------

ONE_HOT = {
    "default": lambda L: F(L).one_hot(L.tensor([1, 0, 3])),
    "num_classes": lambda L: F(L).one_hot(L.tensor([[1, 0], [2, 2]]), 5),
    "0d": lambda L: F(L).one_hot(L.tensor(2), 3),
    "empty_with_classes": lambda L: F(L).one_hot(L.zeros(0, dtype=L.long), 4),
}


@pytest.mark.parametrize("name", list(ONE_HOT))
def test_one_hot_matches_torch(name):
    ours, theirs = ONE_HOT[name](cr), ONE_HOT[name](torch)
    assert_close(ours, theirs, exact=True)


ERRORS = {
    "embedding_float_indices": lambda L: F(L).embedding(L.tensor([1.0, 2.0]), L.ones(5, 3)),
    "embedding_out_of_range": lambda L: F(L).embedding(L.tensor([1, 7]), L.ones(5, 3)),
    "embedding_negative_index": lambda L: F(L).embedding(L.tensor([1, -1]), L.ones(5, 3)),
    "embedding_1d_weight": lambda L: F(L).embedding(L.tensor([1, 2]), L.ones(5)),
    "embedding_padding_too_big": lambda L: F(L).embedding(
        L.tensor([1]), L.ones(5, 3), padding_idx=5
    ),
    "embedding_padding_too_small": lambda L: F(L).embedding(
        L.tensor([1]), L.ones(5, 3), padding_idx=-6
    ),
    "bag_first_offset": lambda L: F(L).embedding_bag(
        L.tensor([1, 2, 0, 3]), L.ones(5, 3), L.tensor([1, 2])
    ),
    "bag_last_offset": lambda L: F(L).embedding_bag(
        L.tensor([1, 2, 0, 3]), L.ones(5, 3), L.tensor([0, 5])
    ),
    "bag_mode": lambda L: F(L).embedding_bag(
        L.tensor([1, 2]), L.ones(5, 3), L.tensor([0]), mode="median"
    ),
    "bag_max_per_sample_weights": lambda L: F(L).embedding_bag(
        L.tensor([1, 2]), L.ones(5, 3), L.tensor([0]), mode="max", per_sample_weights=L.ones(2)
    ),
    "bag_per_sample_weights_shape": lambda L: F(L).embedding_bag(
        L.tensor([1, 2]), L.ones(5, 3), L.tensor([0]), mode="sum", per_sample_weights=L.ones(3)
    ),
    "bag_2d_with_offsets": lambda L: F(L).embedding_bag(
        L.tensor([[1, 2]]), L.ones(5, 3), L.tensor([0])
    ),
    "bag_1d_without_offsets": lambda L: F(L).embedding_bag(L.tensor([1, 2]), L.ones(5, 3)),
    "bag_2d_offsets": lambda L: F(L).embedding_bag(L.tensor([1, 2]), L.ones(5, 3), L.tensor([[0]])),
    "bag_3d_input": lambda L: F(L).embedding_bag(L.zeros(1, 1, 1, dtype=L.long), L.ones(5, 3)),
    "bag_1d_weight": lambda L: F(L).embedding_bag(L.tensor([1, 2]), L.ones(5), L.tensor([0])),
    "bag_out_of_range": lambda L: F(L).embedding_bag(
        L.tensor([1, 2, 0, 7]), L.ones(5, 3, dtype=L.float64), L.tensor([0, 2]), mode="sum"
    ),
    "bag_float_indices": lambda L: F(L).embedding_bag(
        L.tensor([1.0, 2.0]), L.ones(5, 3), L.tensor([0])
    ),
    "bag_max_scale_grad": lambda L: F(L).embedding_bag(
        L.tensor([1, 2]), L.ones(5, 3), L.tensor([0]), mode="max", scale_grad_by_freq=True
    ),
    "one_hot_negative": lambda L: F(L).one_hot(L.tensor([1, -1])),
    "one_hot_too_big": lambda L: F(L).one_hot(L.tensor([1, 3]), 3),
    "one_hot_float": lambda L: F(L).one_hot(L.tensor([1.0, 2.0])),
    "one_hot_int32": lambda L: F(L).one_hot(L.tensor([1, 2], dtype=L.int32)),
    "one_hot_empty": lambda L: F(L).one_hot(L.zeros(0, dtype=L.long)),
    "one_hot_num_classes_below_minus_1": lambda L: F(L).one_hot(L.tensor([1, 2]), -2),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name):
    assert_same_error(ERRORS[name])


def test_no_gradient_to_the_indices():
    y = F(cr).embedding(cr.tensor(IDX), cr.tensor(WEIGHT, requires_grad=True))
    assert len(y.grad_fn.next_functions) == 1
