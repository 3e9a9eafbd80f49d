"""Distances and attention of nn.functional against PyTorch: cosine_similarity,
pairwise_distance, pdist, scaled_dot_product_attention (bool and float masks, the causal
mask, the scale, grouped-query attention, fully masked rows, broadcasting batches, and
dropout checked statistically and through its realised mask); float32 and float64,
gradients, tangents, node names, finite differences, second derivatives, errors."""

from __future__ import annotations

import numpy as np
import pytest

import chainrule as cr
from chainrule.ops import attention
from oracle import (
    DT_IDS,
    FLOATS,
    NoGrad,
    assert_same_error,
    check,
    check_double_backward,
    check_fd,
    randn,
    same_node,
)


def F(lib):
    return lib.nn.functional


X, Y = randn((3, 4)), randn((3, 4), seed=1)

DISTANCES = {
    "cosine_similarity": (lambda L, a, b: F(L).cosine_similarity(a, b), X, Y),
    "cosine_similarity_dim0_broadcast": (
        lambda L, a, b: F(L).cosine_similarity(a, b, dim=0, eps=1e-3),
        X,
        Y[:, :1],
    ),
    "cosine_similarity_3d_last": (
        lambda L, a, b: F(L).cosine_similarity(a, b, dim=-1),
        randn((2, 3, 4)),
        randn((3, 4), seed=2),
    ),
    "cosine_similarity_tiny_norm": (
        lambda L, a, b: F(L).cosine_similarity(a * 1e-9, b),
        X,
        Y,
    ),
    "pairwise_distance": (lambda L, a, b: F(L).pairwise_distance(a, b), X, Y),
    "pairwise_distance_p1_keepdim": (
        lambda L, a, b: F(L).pairwise_distance(a, b, p=1.0, keepdim=True),
        X,
        Y,
    ),
    "pairwise_distance_p3_broadcast": (
        lambda L, a, b: F(L).pairwise_distance(a, b, p=3.0, eps=1e-3),
        randn((2, 3, 4)),
        Y[0],
    ),
    "pairwise_distance_inf": (lambda L, a, b: F(L).pairwise_distance(a, b, p=float("inf")), X, Y),
    "pdist": (lambda L, a: F(L).pdist(a), randn((4, 3))),
    "pdist_p1": (lambda L, a: F(L).pdist(a, p=1), randn((4, 3))),
    "pdist_p3": (lambda L, a: F(L).pdist(a, p=3), randn((5, 2))),
    "pdist_one_row": (lambda L, a: F(L).pdist(a), randn((1, 3))),
    "torch.cosine_similarity": (lambda L, a, b: L.cosine_similarity(a, b, 0), X, Y),
    "torch.pairwise_distance": (lambda L, a, b: L.pairwise_distance(a, b, 2.0, 0.0), X, Y),
    "torch.pdist": (lambda L, a: L.pdist(a, 2), randn((4, 3))),
}

Q4, K4, V4 = randn((2, 2, 3, 4)), randn((2, 2, 5, 4), seed=1), randn((2, 2, 5, 4), seed=2)
MASK = np.random.default_rng(3).random((3, 5)) > 0.3
MASK[:, 0] = True


def _sdpa(**kw):
    return lambda L, q, k, v: F(L).scaled_dot_product_attention(q, k, v, **kw)


def _sdpa_mask(**kw):
    return lambda L, q, k, v, m: F(L).scaled_dot_product_attention(q, k, v, attn_mask=m, **kw)


ATTENTION = {
    "4d": (_sdpa(), Q4, K4, V4),
    "4d_scale": (_sdpa(scale=0.7), Q4, K4, V4),
    "4d_causal": (_sdpa(is_causal=True), Q4, K4, V4),
    "4d_bool_mask": (_sdpa_mask(), Q4, K4, V4, MASK),
    "4d_float_mask": (_sdpa_mask(), Q4, K4, V4, NoGrad(randn((3, 5), seed=4))),
    "4d_float_mask_grad": (_sdpa_mask(), Q4, K4, V4, randn((2, 1, 3, 5), seed=4)),
    "4d_value_size": (_sdpa(), Q4, K4, randn((2, 2, 5, 6), seed=2)),
    "4d_gqa": (_sdpa(enable_gqa=True), randn((1, 4, 3, 4)), K4[:1, :1], V4[:1, :1]),
    "4d_gqa_two_groups": (_sdpa(enable_gqa=True), randn((1, 4, 3, 4)), K4[:1], V4[:1]),
    "3d": (_sdpa(), Q4[0], K4[0], V4[0]),
    "3d_causal_scale": (_sdpa(is_causal=True, scale=0.2), Q4[0], K4[0], V4[0]),
    "2d": (_sdpa(), Q4[0, 0], K4[0, 0], V4[0, 0]),
    "2d_bool_mask": (_sdpa_mask(), Q4[0, 0], K4[0, 0], V4[0, 0], MASK),
    "broadcast_batch": (_sdpa(), randn((2, 1, 3, 4)), K4[0], V4[0]),
    "fully_masked_row": (
        _sdpa_mask(),
        Q4,
        K4,
        V4,
        np.vstack([MASK[:2], np.zeros((1, 5), dtype=bool)]),
    ),
}

CASES = {**DISTANCES, **{f"sdpa_{k}": v for k, v in ATTENTION.items()}}

# torch has no forward mode and no second derivative for its fused CPU kernel (4-D inputs)
# nor for pdist: chainrule's are checked against finite differences (gradgradcheck) instead
FUSED = {
    f"sdpa_{k}"
    for k in ATTENTION
    if k.startswith("4d") and k not in ("4d_float_mask_grad", "4d_value_size")
} | {"sdpa_fully_masked_row"}
NO_TORCH_DOUBLE_BACKWARD = FUSED | {n for n in DISTANCES if "pdist" in n}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name, dtype):
    fn, *inputs = CASES[name]
    tol = dict(rtol=1e-4, atol=1e-5) if dtype is np.float32 else {}
    same_node(check(fn, *inputs, dtype=dtype, **tol))


# the norm clamped at eps without a gradient (PyTorch's): there the gradient is not the
# derivative of the clamped function
NOT_THE_DERIVATIVE = {"cosine_similarity_tiny_norm"}


@pytest.mark.parametrize("name", sorted(set(CASES) - NOT_THE_DERIVATIVE))
def test_finite_differences(name):
    fn, *inputs = CASES[name]
    check_fd(fn, *inputs)


@pytest.mark.parametrize("name", sorted(set(CASES) - NO_TORCH_DOUBLE_BACKWARD))
def test_second_derivatives_match_torch(name):
    fn, *inputs = CASES[name]
    check_double_backward(fn, *inputs, rtol=1e-8, atol=1e-10)


def _on_chainrule(fn, inputs):
    """fn on chainrule's tensors of the float inputs (those requiring grad) and the rest."""
    at = [i for i, v in enumerate(inputs) if isinstance(v, np.ndarray) and v.dtype.kind == "f"]
    fixed = [cr.tensor(v.array if isinstance(v, NoGrad) else v) for v in inputs]

    def run(*xs):
        args = list(fixed)
        for i, x in zip(at, xs):
            args[i] = x
        return fn(cr, *args)

    return run, tuple(cr.tensor(inputs[i], requires_grad=True) for i in at)


@pytest.mark.parametrize("name", sorted(NO_TORCH_DOUBLE_BACKWARD))
def test_gradgradcheck_where_torch_has_none(name):
    fn, *inputs = CASES[name]
    run, xs = _on_chainrule(fn, inputs)
    if name not in NOT_THE_DERIVATIVE:
        assert cr.autograd.gradcheck(run, xs, check_forward_ad=True)
    assert cr.autograd.gradgradcheck(run, xs)


# ----- dropout of the attention weights -----------------------------------------------------


def test_attention_dropout_rate_and_scale():
    """With value the identity the output is the dropped-out weights themselves."""
    cr.manual_seed(0)
    q = cr.tensor(randn((200, 1, 6, 4)))
    k = cr.tensor(randn((200, 1, 8, 4), seed=1))
    eye = cr.eye(8, dtype=cr.float64).expand(200, 1, 8, 8)
    p = 0.25
    out = F(cr).scaled_dot_product_attention(q, k, eye, dropout_p=p).numpy()
    weights = F(cr).scaled_dot_product_attention(q, k, eye).numpy()
    kept = out != 0
    assert abs((1 - kept.mean()) - p) < 5 * np.sqrt(p * (1 - p) / out.size)
    np.testing.assert_allclose(out[kept], weights[kept] / (1 - p), rtol=1e-12)


def test_attention_dropout_gradients_given_the_mask():
    def run(q, k, v):
        cr.manual_seed(4)
        return F(cr).scaled_dot_product_attention(q, k, v, dropout_p=0.3)

    xs = tuple(cr.tensor(a[0], requires_grad=True) for a in (Q4, K4, V4))
    assert run(*xs).grad_fn.name() == "UnsafeViewBackward0"
    assert cr.autograd.gradcheck(run, xs, check_forward_ad=True)
    assert cr.autograd.gradgradcheck(run, xs)


ERRORS = {
    "mask_and_causal": lambda L: F(L).scaled_dot_product_attention(
        L.ones(1, 2, 4),
        L.ones(1, 3, 4),
        L.ones(1, 3, 4),
        attn_mask=L.ones(2, 3, dtype=L.bool),
        is_causal=True,
    ),
    "dtypes": lambda L: F(L).scaled_dot_product_attention(
        L.ones(2, 4, dtype=L.float64), L.ones(3, 4), L.ones(3, 4, dtype=L.float64)
    ),
    "1d": lambda L: F(L).scaled_dot_product_attention(L.ones(4), L.ones(4), L.ones(4)),
    "dropout_p": lambda L: F(L).scaled_dot_product_attention(
        L.ones(2, 4), L.ones(3, 4), L.ones(3, 4), dropout_p=1.5
    ),
    "gqa_heads": lambda L: F(L).scaled_dot_product_attention(
        L.ones(1, 4, 2, 4), L.ones(1, 3, 3, 4), L.ones(1, 3, 3, 4), enable_gqa=True
    ),
    "pdist_3d": lambda L: F(L).pdist(L.ones(2, 3, 4)),
    "pdist_integer": lambda L: F(L).pdist(L.ones(3, 4, dtype=L.long)),
    "pdist_negative_p": lambda L: F(L).pdist(L.ones(3, 4), p=-1),
    "cosine_similarity_integers": lambda L: F(L).cosine_similarity(
        L.ones(3, dtype=L.long), L.ones(3, dtype=L.long), dim=0
    ),
    "cosine_similarity_shapes": lambda L: F(L).cosine_similarity(L.ones(3, 4), L.ones(2, 4)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name):
    assert_same_error(ERRORS[name])


# ----- the path on arrays: the key dim first (ops/attention.py) -----------------------------


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize(
    "shapes",
    [((2, 3, 4, 5), (2, 3, 6, 5)), ((4, 5), (6, 5)), ((2, 1, 4, 5), (3, 6, 5))],
    ids=["4d", "2d", "broadcast"],
)
def test_probabilities_keys_first_are_the_general_paths(shapes, dtype):
    """P on arrays, laid out keys first, has the values of the ops' path (to rounding: the
    products and sums run in another order), with a bias holding -inf; a row that is -inf
    throughout is left to the general path (None)."""
    q, k = (randn(s, seed=i).astype(dtype) for i, s in enumerate(shapes))
    bias = np.zeros((4, 6), dtype)
    bias[1, 2] = bias[3, :5] = -np.inf
    tol = 1e-6 if dtype == np.float32 else 1e-14
    for b in (None, bias):
        got = attention._probabilities_of_arrays(q, k, b, 0.3)
        want = attention._probabilities(
            cr.tensor(q), cr.tensor(k), None if b is None else cr.tensor(b), 0.3
        )
        np.testing.assert_allclose(got, want.numpy(), rtol=tol, atol=tol)
        assert got.shape == want.shape and got.dtype == dtype
    bias[2] = -np.inf
    assert attention._probabilities_of_arrays(q, k, bias, 0.3) is None
    assert attention._probabilities_of_arrays(q, k, bias.astype(np.float16), 0.3) is None
