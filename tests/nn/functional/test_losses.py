"""The losses of nn.functional against PyTorch: every reduction, float32 and float64,
values, gradients of every differentiable input, forward-mode tangents, node names,
finite differences and second derivatives, weights, ignored classes, label smoothing,
class probabilities, any number of dims, broadcasting, the legacy ``size_average`` and
``reduce``, and PyTorch's errors.

Each case is ``fn(lib, *inputs)`` run on both libraries by ``oracle.check``; ``F(lib)`` is
``lib.nn.functional``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import (
    DT_IDS,
    FLOATS,
    L64,
    NoGrad,
    assert_close,
    assert_same_bits,
    assert_same_error,
    check,
    check_double_backward,
    check_fd,
    randn,
    same_node,
    vjp_bits_on_arrays,
)


def F(lib):
    return lib.nn.functional


def uniform(shape, seed=0, low=0.1, high=0.9):
    return np.random.default_rng(seed).uniform(low, high, shape)


X = randn((3, 4))  # predictions, logits, log-probabilities
Y = randn((3, 4), seed=1)  # regression targets, a second input
Z = randn((3, 4), seed=2)
P = uniform((3, 4), seed=3)  # probabilities
Q = uniform((3, 4), seed=4)
SIGNS = NoGrad(np.sign(randn((3, 4), seed=5)))  # labels ±1
T = L64(1, 3, 0)  # class indices of a (3, 4) input
W4 = NoGrad(uniform((4,), seed=6, low=0.5, high=2.0))  # class weights
LABELS = L64([1, 2, -1, 0], [0, -1, 0, 0], [3, 2, 1, 0])  # multilabel targets
PAIR = L64(1, -1, 1)  # cosine_embedding targets
RANK = NoGrad(np.array([1.0, -1.0, 1.0, -1.0]))  # margin_ranking targets

# ----- every reduction: name -> (fn(lib, *inputs, reduction), *inputs) ------------------------

REDUCED = {
    "mse_loss": (lambda L, a, b, r: F(L).mse_loss(a, b, reduction=r), X, Y),
    "l1_loss": (lambda L, a, b, r: F(L).l1_loss(a, b, reduction=r), X, Y),
    "smooth_l1_loss": (lambda L, a, b, r: F(L).smooth_l1_loss(a, b, reduction=r), X * 2, Y),
    "smooth_l1_loss_beta": (
        lambda L, a, b, r: F(L).smooth_l1_loss(a, b, reduction=r, beta=0.4),
        X,
        Y,
    ),
    "huber_loss": (lambda L, a, b, r: F(L).huber_loss(a, b, reduction=r, delta=0.8), X * 2, Y),
    "binary_cross_entropy": (
        lambda L, a, b, r: F(L).binary_cross_entropy(a, b, reduction=r),
        P,
        Q,
    ),
    "binary_cross_entropy_weight": (
        lambda L, a, b, w: F(L).binary_cross_entropy(a, b, weight=w, reduction="sum"),
        P,
        Q,
        W4,
    ),
    "bce_with_logits": (
        lambda L, a, b, r: F(L).binary_cross_entropy_with_logits(a, b, reduction=r),
        X * 3,
        Q,
    ),
    "bce_with_logits_weights": (
        lambda L, a, b, w, pw, r: F(L).binary_cross_entropy_with_logits(
            a, b, weight=w, pos_weight=pw, reduction=r
        ),
        X * 3,
        Q,
        NoGrad(P),
        W4,
    ),
    "soft_margin_loss": (lambda L, a, b, r: F(L).soft_margin_loss(a, b, reduction=r), X, SIGNS),
    "kl_div": (lambda L, a, b, r: F(L).kl_div(a, b, reduction=r), X, Q),
    "kl_div_log_target": (
        lambda L, a, b, r: F(L).kl_div(a, b, reduction=r, log_target=True),
        X,
        Y,
    ),
    "poisson_nll_loss": (lambda L, a, b, r: F(L).poisson_nll_loss(a, b, reduction=r), X, Q * 3),
    "poisson_nll_loss_full": (
        lambda L, a, b, r: F(L).poisson_nll_loss(a, b, log_input=False, full=True, reduction=r),
        P,
        Q * 3,
    ),
    "gaussian_nll_loss": (
        lambda L, a, b, v, r: F(L).gaussian_nll_loss(a, b, v, reduction=r),
        X,
        Y,
        P,
    ),
    "gaussian_nll_loss_full": (
        lambda L, a, b, v, r: F(L).gaussian_nll_loss(a, b, v, full=True, reduction=r),
        X,
        Y,
        P[:, :1],  # one variance per sample (heteroscedastic)
    ),
    "nll_loss": (lambda L, a, t, r: F(L).nll_loss(a, t, reduction=r), X, T),
    "nll_loss_weight_ignore": (
        lambda L, a, t, w, r: F(L).nll_loss(a, t, weight=w, ignore_index=3, reduction=r),
        X,
        T,
        W4,
    ),
    "cross_entropy": (lambda L, a, t, r: F(L).cross_entropy(a, t, reduction=r), X, T),
    "cross_entropy_probabilities": (
        lambda L, a, p, r: F(L).cross_entropy(a, p, reduction=r),
        X,
        Q,
    ),
    "cross_entropy_smoothing": (
        lambda L, a, t, w, r: F(L).cross_entropy(
            a, t, weight=w, label_smoothing=0.2, ignore_index=0, reduction=r
        ),
        X,
        T,
        W4,
    ),
    "multi_margin_loss": (lambda L, a, t, r: F(L).multi_margin_loss(a, t, reduction=r), X, T),
    "multi_margin_loss_p2": (
        lambda L, a, t, w, r: F(L).multi_margin_loss(a, t, p=2, margin=0.6, weight=w, reduction=r),
        X,
        T,
        W4,
    ),
    "multilabel_margin_loss": (
        lambda L, a, t, r: F(L).multilabel_margin_loss(a, t, reduction=r),
        X,
        LABELS,
    ),
    "multilabel_soft_margin_loss": (
        lambda L, a, t, w, r: F(L).multilabel_soft_margin_loss(a, t, weight=w, reduction=r),
        X,
        Q,
        W4,
    ),
    "cosine_embedding_loss": (
        lambda L, a, b, t, r: F(L).cosine_embedding_loss(a, b, t, margin=0.1, reduction=r),
        X,
        Y,
        PAIR,
    ),
    "margin_ranking_loss": (
        lambda L, a, b, t, r: F(L).margin_ranking_loss(a, b, t, margin=0.2, reduction=r),
        X[0],
        Y[0],
        RANK,
    ),
    "hinge_embedding_loss": (
        lambda L, a, t, r: F(L).hinge_embedding_loss(a, t, margin=0.5, reduction=r),
        X,
        SIGNS,
    ),
    "triplet_margin_loss": (
        lambda L, a, p, n, r: F(L).triplet_margin_loss(a, p, n, reduction=r),
        X,
        Y,
        Z,
    ),
    "triplet_margin_loss_swap_p1": (
        lambda L, a, p, n, r: F(L).triplet_margin_loss(
            a, p, n, margin=2.0, p=1, swap=True, reduction=r
        ),
        X,
        Y,
        Z,
    ),
    "triplet_margin_with_distance_loss": (
        lambda L, a, p, n, r: F(L).triplet_margin_with_distance_loss(a, p, n, reduction=r),
        X,
        Y,
        Z,
    ),
    "triplet_margin_with_cosine_distance": (
        lambda L, a, p, n, r: F(L).triplet_margin_with_distance_loss(
            a,
            p,
            n,
            distance_function=lambda u, v: 1 - F(L).cosine_similarity(u, v),
            swap=True,
            reduction=r,
        ),
        X,
        Y,
        Z,
    ),
}
# a case without a reduction argument (its reduction is fixed) runs once
FIXED = {"binary_cross_entropy_weight"}
REDUCTIONS = ["none", "mean", "sum"]

# where torch's graph ends in a node chainrule names otherwise, and why
NODE_DIFFERS = {
    # PyTorch's C++ divides by a Scalar (DivBackward1); dividing by a number is DivBackward0
    ("cross_entropy_probabilities", "mean"),
}
# second derivatives torch does not have ("derivative for aten::..._backward is not
# implemented"): checked against finite differences of chainrule's gradient instead
NO_TORCH_DOUBLE_BACKWARD = {"multi_margin_loss", "multi_margin_loss_p2", "multilabel_margin_loss"}
# torch's second derivative of binary_cross_entropy adds its 1e-12 to x and 1 - x, where
# chainrule differentiates max(x(1 - x), 1e-12) exactly: they differ by ~1e-11 relative
LOOSE_DOUBLE_BACKWARD = {"binary_cross_entropy", "binary_cross_entropy_weight"}


def _cases():
    for name in REDUCED:
        for r in ["sum"] if name in FIXED else REDUCTIONS:
            yield name, r


CASES = list(_cases())
CASE_IDS = [f"{n}-{r}" for n, r in CASES]


def _bound(name: str, reduction: str):
    fn, *inputs = REDUCED[name]
    if name in FIXED:
        return fn, inputs
    return (lambda L, *xs: fn(L, *xs, reduction)), inputs


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_losses_match_torch(case, dtype):
    name, reduction = case
    fn, inputs = _bound(name, reduction)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # kl_div's 'mean' warns on both sides
        res = check(fn, *inputs, dtype=dtype)
    if case not in NODE_DIFFERS:
        same_node(res)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_losses_finite_differences(case):
    fn, inputs = _bound(*case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_fd(fn, *inputs)


@pytest.mark.parametrize(
    "case", [c for c in CASES if c[0] not in NO_TORCH_DOUBLE_BACKWARD], ids=lambda c: "-".join(c)
)
def test_losses_second_derivatives_match_torch(case):
    fn, inputs = _bound(*case)
    tol = dict(rtol=1e-8, atol=1e-10) if case[0] in LOOSE_DOUBLE_BACKWARD else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_double_backward(fn, *inputs, **tol)


@pytest.mark.parametrize(
    "case", [c for c in CASES if c[0] in NO_TORCH_DOUBLE_BACKWARD], ids=lambda c: "-".join(c)
)
def test_margin_losses_gradgradcheck(case):
    """torch has no second derivative nor forward mode here: chainrule's, and its
    forward-mode Jacobian, against finite differences."""
    fn, inputs = _bound(*case)
    x = cr.tensor(inputs[0], dtype=cr.float64, requires_grad=True)
    rest = [cr.tensor(v.array if isinstance(v, NoGrad) else v) for v in inputs[1:]]
    assert cr.autograd.gradcheck(lambda a: fn(cr, a, *rest), (x,), check_forward_ad=True)
    assert cr.autograd.gradgradcheck(lambda a: fn(cr, a, *rest), (x,))


# ----- shapes: batches, images, one sample, broadcasting ------------------------------------

SHAPES = {
    "nll_loss_1d": (lambda L, a, t: F(L).nll_loss(a, t), X[0], L64(2).reshape(())),
    "nll_loss_3d_none": (
        lambda L, a, t: F(L).nll_loss(a, t, reduction="none"),
        randn((2, 4, 3)),
        L64([0, 3, 1], [2, 2, 0]),
    ),
    "nll_loss_4d_weight": (
        lambda L, a, t, w: F(L).nll_loss(a, t, weight=w, ignore_index=1),
        randn((2, 4, 3, 2)),
        np.random.default_rng(1).integers(0, 4, (2, 3, 2)),
        W4,
    ),
    "nll_loss_5d_none": (
        lambda L, a, t: F(L).nll_loss(a, t, reduction="none"),
        randn((2, 4, 2, 2, 2)),
        np.random.default_rng(2).integers(0, 4, (2, 2, 2, 2)),
    ),
    "nll_loss_5d_sum": (
        lambda L, a, t: F(L).nll_loss(a, t, reduction="sum"),
        randn((2, 4, 2, 2, 2)),
        np.random.default_rng(2).integers(0, 4, (2, 2, 2, 2)),
    ),
    "nll_loss_byte_target": (lambda L, a, t: F(L).nll_loss(a, t), X, T.astype(np.uint8)),
    "nll_loss_all_ignored": (lambda L, a, t: F(L).nll_loss(a, t, ignore_index=1), X, L64(1, 1, 1)),
    "cross_entropy_1d": (lambda L, a, t: F(L).cross_entropy(a, t), X[0], L64(3).reshape(())),
    "cross_entropy_1d_probabilities": (lambda L, a, p: F(L).cross_entropy(a, p), X[0], Q[0]),
    "cross_entropy_4d": (
        lambda L, a, t: F(L).cross_entropy(a, t),
        randn((2, 4, 3, 2)),
        np.random.default_rng(3).integers(0, 4, (2, 3, 2)),
    ),
    "cross_entropy_3d_smoothing_none": (
        lambda L, a, t: F(L).cross_entropy(a, t, label_smoothing=0.3, reduction="none"),
        randn((2, 4, 3)),
        L64([0, 3, 1], [2, 2, 0]),
    ),
    "cross_entropy_3d_probabilities_weight": (
        lambda L, a, p, w: F(L).cross_entropy(a, p, weight=w, label_smoothing=0.1),
        randn((2, 4, 3)),
        uniform((2, 4, 3)),
        W4,
    ),
    "cross_entropy_smoothing_none_ignored": (
        lambda L, a, t: F(L).cross_entropy(a, t, label_smoothing=0.5, reduction="none"),
        X,
        L64(1, -100, 0),
    ),
    "mse_loss_broadcast": (lambda L, a, b: F(L).mse_loss(a, b), X, Y[:1]),
    "mse_loss_weight": (lambda L, a, b, w: F(L).mse_loss(a, b, weight=w), X, Y, P),
    "l1_loss_weight_none": (
        lambda L, a, b, w: F(L).l1_loss(a, b, reduction="none", weight=w),
        X,
        Y,
        P,
    ),
    "huber_loss_weight": (lambda L, a, b, w: F(L).huber_loss(a, b, weight=w), X, Y, P),
    "smooth_l1_loss_beta_0": (lambda L, a, b: F(L).smooth_l1_loss(a, b, beta=0.0), X, Y),
    "mse_loss_0d": (lambda L, a, b: F(L).mse_loss(a, b), X[0, 0], Y[0, 0]),
    "bce_with_logits_0d": (
        lambda L, a, b: F(L).binary_cross_entropy_with_logits(a, b),
        X[0, 0],
        Q[0, 0],
    ),
    "multi_margin_loss_1d": (
        lambda L, a, t: F(L).multi_margin_loss(a, t, reduction="none"),
        X[0],
        L64(2),
    ),
    "multi_margin_loss_1d_0d_target": (
        lambda L, a, t: F(L).multi_margin_loss(a, t, reduction="none"),
        X[0],
        L64(2).reshape(()),
    ),
    "multilabel_margin_loss_1d": (
        lambda L, a, t: F(L).multilabel_margin_loss(a, t, reduction="none"),
        X[0],
        LABELS[0],
    ),
    "cosine_embedding_loss_0d_target": (
        lambda L, a, b, t: F(L).cosine_embedding_loss(a, b, t),
        X[0],
        Y[0],
        L64(-1).reshape(()),
    ),
    "kl_div_batchmean_3d": (
        lambda L, a, b: F(L).kl_div(a, b, reduction="batchmean"),
        randn((2, 3, 4)),
        uniform((2, 3, 4)),
    ),
    "triplet_margin_loss_1d": (
        lambda L, a, p, n: F(L).triplet_margin_loss(a, p, n),
        X[0],
        Y[0],
        Z[0],
    ),
    "margin_ranking_loss_2d": (
        lambda L, a, b, t: F(L).margin_ranking_loss(a, b, t),
        X,
        Y,
        SIGNS,
    ),
}


# the mean over class probabilities: DivBackward1 in torch (see NODE_DIFFERS)
SHAPES_NODE_DIFFERS = {"cross_entropy_1d_probabilities", "cross_entropy_3d_probabilities_weight"}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_shapes_match_torch(name, dtype):
    fn, *inputs = SHAPES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # mse's broadcasting warning: checked below
        res = check(fn, *inputs, dtype=dtype)
    if name not in SHAPES_NODE_DIFFERS:
        same_node(res)


@pytest.mark.parametrize("name", sorted(set(SHAPES) - {"nll_loss_all_ignored"}))
def test_shapes_finite_differences(name):
    """(With every target ignored the loss is nan: no finite differences.)"""
    fn, *inputs = SHAPES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_fd(fn, *inputs)


def test_targets_of_class_probabilities_get_gradients():
    """cross_entropy's probabilities, kl_div's and bce's targets are differentiable."""

    def fn(L, a, p):
        return F(L).cross_entropy(a, p) + F(L).kl_div(a, p, reduction="sum")

    check(fn, X, Q)


# ----- the legacy size_average and reduce, and the warnings ------------------------------


def _warned(fn, lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn(lib)
    return out, [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


LEGACY = [
    (None, False, "none"),
    (False, None, "sum"),
    (True, True, "mean"),
    (False, False, "none"),
]


@pytest.mark.parametrize("size_average, reduce, _", LEGACY, ids=[c[2] for c in LEGACY])
@pytest.mark.parametrize(
    "loss",
    [
        "mse_loss",
        "l1_loss",
        "nll_loss",
        "cross_entropy",
        "soft_margin_loss",
        "kl_div",
        "binary_cross_entropy",
        "multilabel_soft_margin_loss",
        "hinge_embedding_loss",
    ],
)
def test_legacy_size_average_and_reduce(loss, size_average, reduce, _):
    inputs = {
        "nll_loss": (X, T),
        "cross_entropy": (X, T),
        "soft_margin_loss": (X, SIGNS.array),
        "binary_cross_entropy": (P, Q),
        "hinge_embedding_loss": (X, SIGNS.array),
        "multilabel_soft_margin_loss": (X, Q),
        "kl_div": (X, Q),
    }.get(loss, (X, Y))

    def fn(L):
        args = [L.tensor(v) for v in inputs]
        return getattr(F(L), loss)(*args, size_average=size_average, reduce=reduce)

    (ours, our_warnings), (theirs, their_warnings) = _warned(fn, cr), _warned(fn, torch)
    assert_close(ours, theirs, rtol=1e-12, atol=1e-12, requires_grad=False)
    assert our_warnings == their_warnings


WARNINGS = {
    "mse_broadcast": lambda L: F(L).mse_loss(L.zeros(3, 4), L.zeros(3, 1)),
    "l1_broadcast": lambda L: F(L).l1_loss(L.zeros(3, 4), L.zeros(4)),
    "kl_div_mean": lambda L: F(L).kl_div(L.zeros(3, 4), L.ones(3, 4)),
    "elementwise_mean": lambda L: F(L).mse_loss(
        L.zeros(3), L.ones(3), reduction="elementwise_mean"
    ),
}


@pytest.mark.parametrize("name", list(WARNINGS))
def test_warnings_as_torch(name):
    (ours, our_warnings), (theirs, their_warnings) = (
        _warned(WARNINGS[name], cr),
        _warned(WARNINGS[name], torch),
    )
    assert_close(ours, theirs, requires_grad=False)
    assert our_warnings == their_warnings


# ----- errors ---------------------------------------------------------------------------------


def _t(L, v, **kw):
    return L.tensor(v, **kw)


ERRORS = {
    "nll_target_out_of_range": lambda L: F(L).nll_loss(_t(L, X), _t(L, [1, 5, 0])),
    "nll_negative_target": lambda L: F(L).nll_loss(_t(L, X), _t(L, [1, -1, 0])),
    "nll_target_out_of_range_none": lambda L: F(L).nll_loss(
        _t(L, X), _t(L, [4, 0, 0]), reduction="none"
    ),
    "nll_2d_out_of_range": lambda L: F(L).nll_loss(
        _t(L, randn((2, 4, 3, 3))), L.full((2, 3, 3), 7)
    ),
    "nll_batch_mismatch": lambda L: F(L).nll_loss(_t(L, X), _t(L, [1, 2])),
    "nll_0d_input": lambda L: F(L).nll_loss(_t(L, 1.0), _t(L, 1)),
    "nll_weight_size": lambda L: F(L).nll_loss(
        _t(L, X), _t(L, T), weight=L.ones(3, dtype=L.float64)
    ),
    "nll_float_target": lambda L: F(L).nll_loss(_t(L, X), _t(L, [1.0, 2.0, 0.0])),
    "nll_int32_target": lambda L: F(L).nll_loss(_t(L, X), _t(L, [1, 2, 0], dtype=L.int32)),
    "nll_2d_target_shape": lambda L: F(L).nll_loss(
        _t(L, randn((2, 4, 3, 3))), L.zeros((2, 3, 2), dtype=L.long)
    ),
    "nll_3d_target_shape": lambda L: F(L).nll_loss(
        _t(L, randn((2, 4, 3))), L.zeros((2, 2), dtype=L.long)
    ),
    "nll_1d_target_2": lambda L: F(L).nll_loss(_t(L, X[0]), _t(L, [1, 2])),
    "nll_multi_target": lambda L: F(L).nll_loss(_t(L, X), L.zeros((3, 2), dtype=L.long)),
    "nll_weight_requires_grad": lambda L: F(L).nll_loss(
        _t(L, X), _t(L, T), weight=L.ones(4, dtype=L.float64, requires_grad=True)
    ),
    "nll_weight_dtype": lambda L: F(L).nll_loss(_t(L, X), _t(L, T), weight=L.ones(4)),
    "nll_bad_reduction": lambda L: F(L).nll_loss(_t(L, X), _t(L, T), reduction="avg"),
    "cross_entropy_out_of_range": lambda L: F(L).cross_entropy(_t(L, X), _t(L, [1, 4, 0])),
    "cross_entropy_smoothing_out_of_range": lambda L: F(L).cross_entropy(
        _t(L, X), _t(L, [1, 9, 0]), label_smoothing=0.1
    ),
    "cross_entropy_probabilities_ignore_index": lambda L: F(L).cross_entropy(
        _t(L, X), _t(L, Q), ignore_index=1
    ),
    "cross_entropy_smoothing_above_1": lambda L: F(L).cross_entropy(
        _t(L, X), _t(L, Q), label_smoothing=1.5
    ),
    "cross_entropy_integer_input": lambda L: F(L).cross_entropy(
        _t(L, [[1, 2], [3, 4]]), _t(L, [1, 0])
    ),
    "cross_entropy_long_probabilities": lambda L: F(L).cross_entropy(_t(L, 1.0), _t(L, 1)),
    "cross_entropy_probabilities_weight": lambda L: F(L).cross_entropy(
        _t(L, X), _t(L, Q), weight=L.ones(3, dtype=L.float64)
    ),
    "bce_outside_0_1": lambda L: F(L).binary_cross_entropy(_t(L, [0.5, 1.5]), _t(L, [0.5, 0.5])),
    "bce_size": lambda L: F(L).binary_cross_entropy(L.rand(3, 4), L.rand(3, 1)),
    "bce_dtypes": lambda L: F(L).binary_cross_entropy(_t(L, P), _t(L, P, dtype=L.float32)),
    "bce_integer": lambda L: F(L).binary_cross_entropy(_t(L, [1, 0]), _t(L, [1, 0])),
    "bce_weight_requires_grad": lambda L: F(L).binary_cross_entropy(
        _t(L, P), _t(L, Q), weight=L.ones(4, dtype=L.float64, requires_grad=True)
    ),
    "bce_logits_size": lambda L: F(L).binary_cross_entropy_with_logits(L.rand(3, 4), L.rand(4)),
    "bce_logits_pos_weight_requires_grad": lambda L: F(L).binary_cross_entropy_with_logits(
        _t(L, X), _t(L, Q), pos_weight=L.ones(4, dtype=L.float64, requires_grad=True)
    ),
    "mse_shapes": lambda L: F(L).mse_loss(L.zeros(3, 4), L.zeros(2, 4)),
    "mse_bad_reduction": lambda L: F(L).mse_loss(L.zeros(3), L.zeros(3), reduction="bad"),
    "mse_integer": lambda L: F(L).mse_loss(_t(L, [1, 2]), _t(L, [1, 2])),
    "mse_weight_size": lambda L: F(L).mse_loss(L.zeros(3), L.zeros(3), weight=L.ones(2)),
    "l1_weight_size": lambda L: F(L).l1_loss(L.zeros(3), L.zeros(3), weight=L.ones(1)),
    "huber_weight_bad_reduction": lambda L: F(L).huber_loss(
        L.zeros(3), L.zeros(3), weight=L.ones(3), reduction="x"
    ),
    "smooth_l1_negative_beta": lambda L: F(L).smooth_l1_loss(L.zeros(3), L.zeros(3), beta=-1.0),
    "smooth_l1_integer": lambda L: F(L).smooth_l1_loss(_t(L, [1]), _t(L, [1])),
    "huber_zero_delta": lambda L: F(L).huber_loss(L.zeros(3), L.zeros(3), delta=0.0),
    "huber_integer": lambda L: F(L).huber_loss(_t(L, [1]), _t(L, [1])),
    "soft_margin_target_requires_grad": lambda L: F(L).soft_margin_loss(
        L.zeros(3), L.ones(3, requires_grad=True)
    ),
    "soft_margin_integer": lambda L: F(L).soft_margin_loss(_t(L, [1]), _t(L, [1])),
    "multi_margin_p3": lambda L: F(L).multi_margin_loss(_t(L, X), _t(L, T), p=3),
    "multi_margin_out_of_range": lambda L: F(L).multi_margin_loss(_t(L, X), _t(L, [1, 5, 0])),
    "multi_margin_weight_size": lambda L: F(L).multi_margin_loss(
        _t(L, X), _t(L, T), weight=L.ones(3, dtype=L.float64)
    ),
    "multi_margin_weight_2d": lambda L: F(L).multi_margin_loss(
        _t(L, X), _t(L, T), weight=L.ones(1, 4, dtype=L.float64)
    ),
    "multi_margin_target_size": lambda L: F(L).multi_margin_loss(_t(L, X), _t(L, [1, 2])),
    "multi_margin_3d": lambda L: F(L).multi_margin_loss(L.zeros(2, 3, 4), _t(L, [1, 2])),
    "multi_margin_integer": lambda L: F(L).multi_margin_loss(_t(L, [[1, 2]]), _t(L, [1])),
    "multilabel_margin_out_of_range": lambda L: F(L).multilabel_margin_loss(
        _t(L, X), _t(L, [[1, 7, -1, 0], [0, -1, 0, 0], [3, 2, 1, 0]])
    ),
    "multilabel_margin_below_minus_1": lambda L: F(L).multilabel_margin_loss(
        _t(L, X), _t(L, [[1, -2, -1, 0], [0, -1, 0, 0], [3, 2, 1, 0]])
    ),
    "multilabel_margin_target_shape": lambda L: F(L).multilabel_margin_loss(
        _t(L, X), _t(L, [[1, 2, -1], [0, -1, 0], [3, 2, 1]])
    ),
    "multilabel_soft_margin_bad_reduction": lambda L: F(L).multilabel_soft_margin_loss(
        _t(L, X), _t(L, Q), reduction="bad"
    ),
    "cosine_embedding_2d_target": lambda L: F(L).cosine_embedding_loss(
        _t(L, X), _t(L, Y), _t(L, [[1, 1]])
    ),
    "cosine_embedding_1d_inputs": lambda L: F(L).cosine_embedding_loss(
        _t(L, X[0]), _t(L, Y[0]), _t(L, [1])
    ),
    "cosine_embedding_2d_inputs": lambda L: F(L).cosine_embedding_loss(
        _t(L, X), _t(L, Y), _t(L, 1)
    ),
    "margin_ranking_dims": lambda L: F(L).margin_ranking_loss(L.zeros(3), L.zeros(3, 1), L.ones(3)),
    "triplet_margin_zero": lambda L: F(L).triplet_margin_loss(
        L.zeros(3, 4), L.zeros(3, 4), L.zeros(3, 4), margin=0
    ),
    "triplet_dims": lambda L: F(L).triplet_margin_loss(L.zeros(3, 4), L.zeros(3, 4), L.zeros(4)),
    "triplet_distance_bad_reduction": lambda L: F(L).triplet_margin_with_distance_loss(
        L.zeros(3, 4), L.zeros(3, 4), L.zeros(3, 4), reduction="avg"
    ),
    "triplet_distance_margin": lambda L: F(L).triplet_margin_with_distance_loss(
        L.zeros(3, 4), L.zeros(3, 4), L.zeros(3, 4), margin=-1.0
    ),
    "gaussian_negative_var": lambda L: F(L).gaussian_nll_loss(
        L.zeros(3, 4), L.zeros(3, 4), -L.ones(3, 4)
    ),
    "gaussian_negative_float_var": lambda L: F(L).gaussian_nll_loss(
        L.zeros(3, 4), L.zeros(3, 4), -1.0
    ),
    "gaussian_var_size": lambda L: F(L).gaussian_nll_loss(
        L.zeros(3, 4), L.zeros(3, 4), L.ones(3, 3)
    ),
    "gaussian_bad_reduction": lambda L: F(L).gaussian_nll_loss(
        L.zeros(3, 4), L.zeros(3, 4), L.ones(3, 4), reduction="x"
    ),
    "poisson_bad_reduction": lambda L: F(L).poisson_nll_loss(L.zeros(3), L.zeros(3), reduction="x"),
    "kl_div_integer": lambda L: F(L).kl_div(_t(L, [1, 2]), _t(L, [1, 2])),
    "kl_div_bad_reduction": lambda L: F(L).kl_div(L.zeros(3), L.zeros(3), reduction="x"),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_error(ERRORS[name])


def test_no_grad_allows_a_weight_that_requires_grad():
    """PyTorch refuses a weight that requires grad only when grad mode is on."""

    def fn(L):
        with L.no_grad():
            w = L.ones(4, dtype=L.float64, requires_grad=True)
            return F(L).nll_loss(L.tensor(X), L.tensor(T), weight=w)

    assert_close(fn(cr), fn(torch), requires_grad=False)


# ----- the torch.<name> forms: ATen's signatures, the reduction as an int -----------------------

TORCH_FORMS = {
    "kl_div": (lambda L, a, b: L.kl_div(a, b, 2), X, Q),
    "kl_div_log_target": (lambda L, a, b: L.kl_div(a, b, 0, log_target=True), X, Y),
    "poisson_nll_loss": (lambda L, a, b: L.poisson_nll_loss(a, b, True, False, 1e-8, 1), X, Q),
    "bce_with_logits": (
        lambda L, a, b, pw: L.binary_cross_entropy_with_logits(a, b, None, pw, 2),
        X,
        Q,
        W4,
    ),
    "cosine_embedding_loss": (
        lambda L, a, b, t: L.cosine_embedding_loss(a, b, t, 0.1, 0),
        X,
        Y,
        PAIR,
    ),
    "margin_ranking_loss": (
        lambda L, a, b, t: L.margin_ranking_loss(a, b, t, 0.2, 1),
        X[0],
        Y[0],
        RANK,
    ),
    "hinge_embedding_loss": (lambda L, a, t: L.hinge_embedding_loss(a, t, 0.5, 2), X, SIGNS),
    "triplet_margin_loss": (
        lambda L, a, p, n: L.triplet_margin_loss(a, p, n, 1.0, 2, 1e-6, True, 0),
        X,
        Y,
        Z,
    ),
}


@pytest.mark.parametrize("name", sorted(TORCH_FORMS))
def test_torch_forms_match_torch(name):
    fn, *inputs = TORCH_FORMS[name]
    same_node(check(fn, *inputs))


def test_torch_form_with_another_int_reduces_nothing():
    ours, theirs = (lib.kl_div(lib.zeros(3), lib.ones(3) * 2, 5) for lib in (cr, torch))
    assert_close(ours, theirs, requires_grad=False)


# ----- ctc_loss --------------------------------------------------------------------------------

LOGITS = randn((6, 3, 5), seed=9)  # (time, batch, classes)
TARGETS = L64([1, 2, 2], [3, 1, 0], [4, 4, 4])  # padded; the second has 2 labels, the third 1
IN_LENS, TARGET_LENS = L64(6, 5, 4), L64(3, 2, 1)


def _ctc(**kw):
    def fn(L, x, t, il, tl):
        return F(L).ctc_loss(x.log_softmax(-1), t, il, tl, **kw)

    return fn


CTC = {
    "mean": (_ctc(), LOGITS, TARGETS, IN_LENS, TARGET_LENS),
    "sum": (_ctc(reduction="sum"), LOGITS, TARGETS, IN_LENS, TARGET_LENS),
    "none": (_ctc(reduction="none"), LOGITS, TARGETS, IN_LENS, TARGET_LENS),
    "blank_4": (
        _ctc(blank=4, reduction="none"),
        LOGITS,
        TARGETS - (TARGETS == 4),
        IN_LENS,
        TARGET_LENS,
    ),
    "concatenated": (_ctc(), LOGITS, L64(1, 2, 2, 3, 1, 4), IN_LENS, TARGET_LENS),
    "empty_target": (_ctc(reduction="none"), LOGITS, TARGETS, IN_LENS, L64(3, 0, 1)),
    "unbatched": (
        lambda L, x, t: F(L).ctc_loss(x.log_softmax(-1), t, L.tensor(6), L.tensor(3)),
        LOGITS[:, 0],
        TARGETS[0],
    ),
    "unbatched_none": (
        lambda L, x, t: F(L).ctc_loss(x.log_softmax(-1), t, (6,), (3,), reduction="none"),
        LOGITS[:, 0],
        TARGETS[0],
    ),
    "lengths_as_tuples": (
        lambda L, x, t: F(L).ctc_loss(x.log_softmax(-1), t, (6, 5, 4), [3, 2, 1]),
        LOGITS,
        TARGETS,
    ),
    "torch.ctc_loss": (
        lambda L, x, t, il, tl: L.ctc_loss(x.log_softmax(-1), t, il, tl, 0, 2),
        LOGITS,
        TARGETS,
        IN_LENS,
        TARGET_LENS,
    ),
    "impossible": (  # loss inf, gradient nan, as PyTorch's
        _ctc(reduction="none"),
        LOGITS,
        TARGETS,
        L64(2, 5, 4),
        TARGET_LENS,
    ),
    "zero_infinity": (  # the first target needs 4 steps (1 2 _ 2) but has 2
        _ctc(zero_infinity=True),
        LOGITS,
        TARGETS,
        L64(2, 5, 4),
        TARGET_LENS,
    ),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(CTC))
def test_ctc_loss_matches_torch(name, dtype):
    fn, *inputs = CTC[name]
    same_node(check(fn, *inputs, dtype=dtype))


@pytest.mark.parametrize("name", sorted(set(CTC) - {"impossible"}))
def test_ctc_loss_finite_differences(name):
    fn, *inputs = CTC[name]
    check_fd(fn, *inputs)


def test_ctc_loss_gradient_of_log_probs_is_the_derivative():
    """On log_probs themselves chainrule's gradient is the derivative (finite differences);
    PyTorch's adds exp(log_probs)·g, which cancels through a log_softmax."""
    log_probs = torch.tensor(LOGITS).log_softmax(-1).numpy()

    def fn(L, lp):
        return F(L).ctc_loss(
            lp, L.tensor(TARGETS), L.tensor(IN_LENS), L.tensor(TARGET_LENS), reduction="sum"
        )

    check_fd(fn, log_probs)
    ours = cr.tensor(log_probs, requires_grad=True)
    theirs = torch.tensor(log_probs, requires_grad=True)
    fn(cr, ours).backward()
    fn(torch, theirs).backward()
    live = (np.arange(6)[:, None] < IN_LENS)[:, :, None]
    np.testing.assert_allclose(
        theirs.grad.numpy(), ours.grad.numpy() + np.exp(log_probs) * live, rtol=1e-10, atol=1e-12
    )


def test_ctc_loss_has_no_second_derivative_as_torch():
    def fn(L):
        x = L.tensor(LOGITS, requires_grad=True)
        loss = CTC["sum"][0](L, x, L.tensor(TARGETS), L.tensor(IN_LENS), L.tensor(TARGET_LENS))
        (g,) = L.autograd.grad(loss, x, create_graph=True)
        return L.autograd.grad(g.sum(), x)

    assert_same_error(fn)


CTC_ERRORS = {
    "blank": lambda L: F(L).ctc_loss(
        L.zeros(5, 2, 4), L.ones(2, 2, dtype=L.long), (5, 5), (2, 2), blank=4
    ),
    "input_lengths_size": lambda L: F(L).ctc_loss(
        L.zeros(5, 2, 4), L.ones(2, 2, dtype=L.long), (5, 5, 5), (2, 2)
    ),
    "target_lengths_size": lambda L: F(L).ctc_loss(
        L.zeros(5, 2, 4), L.ones(2, 2, dtype=L.long), (5, 5), (2,)
    ),
    "input_too_long": lambda L: F(L).ctc_loss(
        L.zeros(5, 2, 4), L.ones(2, 2, dtype=L.long), (6, 5), (2, 2)
    ),
    "negative_input_length": lambda L: F(L).ctc_loss(
        L.zeros(5, 2, 4), L.ones(2, 2, dtype=L.long), (5, -1), (2, 2)
    ),
    "target_too_short": lambda L: F(L).ctc_loss(
        L.zeros(5, 2, 4), L.ones(2, 2, dtype=L.long), (5, 5), (3, 2)
    ),
    "concatenated_size": lambda L: F(L).ctc_loss(
        L.zeros(5, 2, 4), L.ones(3, dtype=L.long), (5, 5), (2, 2)
    ),
    "float_lengths": lambda L: F(L).ctc_loss(
        L.zeros(5, 2, 4), L.ones(2, 2, dtype=L.long), L.tensor([5.0, 5.0]), L.tensor([2, 2])
    ),
    "bad_reduction": lambda L: F(L).ctc_loss(
        L.zeros(5, 2, 4), L.ones(2, 2, dtype=L.long), (5, 5), (2, 2), reduction="avg"
    ),
}


@pytest.mark.parametrize("name", list(CTC_ERRORS))
def test_ctc_loss_errors_as_torch(name):
    assert_same_error(CTC_ERRORS[name])


# ----- smooth_l1's fast paths on arrays ------------------------------------------------------


def _smooth_l1_inputs(dt):
    """x and target whose differences cross ±beta, with signed zeros, ±inf and nan."""
    r = np.random.default_rng(5)
    x = r.standard_normal(300) * 2
    x[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40]
    target = r.standard_normal(300)
    target[6:12] = x[6:12] - np.array([0.4, -0.4, 1.0, -1.0, 2.0, -2.0])
    return x.astype(dt), target.astype(dt)


@pytest.mark.parametrize("dt", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("beta", [1.0, 0.4, 2.0])
def test_smooth_l1_on_arrays_has_the_wheres_bits(beta, dt):
    """The loss per element (the branch beyond beta put in by its bits) against where's
    formula; its VJPs in x and target (d/beta clipped to ±1) against create_graph=True's
    selects, for every reduction."""
    from chainrule.ops import losses

    x, target = _smooth_l1_inputs(dt)
    with np.errstate(all="ignore"):
        d = x - target
        want = np.where(np.abs(d) < beta, 0.5 * d * d / beta, np.abs(d) - 0.5 * beta)
        assert_same_bits(losses._smooth_l1_loss(x, target, "none", beta), want)
    g = np.random.default_rng(6).standard_normal(300).astype(dt)
    g[[20, 21, 22]] = [np.inf, np.nan, -0.0]
    for reduction, grad in (("none", g), ("mean", g[:1].reshape(())), ("sum", g[1:2].reshape(()))):
        vjp_bits_on_arrays(
            lambda L, a, b, r=reduction: F(L).smooth_l1_loss(a, b, reduction=r, beta=beta),
            [x, target],
            grad,
        )
