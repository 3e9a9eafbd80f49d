"""Every differentiable function of ``chainrule.nn.functional``, in one table: float64
``gradcheck`` and ``gradgradcheck`` (chainrule's own, central finite differences) and the
second derivatives against PyTorch's double backward.

``test_every_function_has_a_case`` walks ``dir(chainrule.nn.functional)``: a public
function with neither a case here nor a reasoned entry in ``EXCLUDED`` fails it. A case is
named ``"<function>"`` or ``"<function>:<variant>"`` and is ``fn(lib, *inputs)`` on NumPy
inputs (``oracle``'s convention: a float array requires grad, ``NoGrad`` and integer
arrays do not). Shapes are tiny: every check is a few hundred function calls.

Random functions (the dropouts, rrelu) have two cases: a deterministic one (``training``
off or ``p=0``) compared with PyTorch, and one with a fixed generator state
(``manual_seed`` inside the function, so each call draws the same mask), checked by
finite differences on chainrule alone (PyTorch's random stream differs).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import chainrule as cr
from oracle import L64, NoGrad, check_double_backward, distinct, randn


def F(lib):
    return lib.nn.functional


def R(*shape, seed=0):
    return randn(shape, seed=seed + 7 * len(shape) + sum(shape))


def D(*shape, seed=0):
    """Tie-free values, at least 0.03 apart (max pooling's gradient is then defined)."""
    return distinct(shape, seed=seed + sum(shape)) * 0.3


def U(*shape, seed=0, low=0.1, high=0.9):
    return np.random.default_rng(seed + sum(shape)).uniform(low, high, shape)


def C(lib, arr):
    """A constant tensor (no gradient) made inside a case."""
    return lib.tensor(np.array(arr, copy=True))


def seeded(fn, seed=0):
    """``fn`` drawing the same random numbers at every call (chainrule only)."""

    def run(lib, *xs):
        lib.manual_seed(seed)
        return fn(lib, *xs)

    return run


X23 = R(2, 3)
IDX = L64([0, 2, 4], [1, 1, 3])  # embedding indices into 5 rows
T3 = L64(1, 3, 0)  # class indices of a (3, 4) input
P34, Q34 = U(3, 4, seed=1), U(3, 4, seed=2)  # probabilities
SIGNS3 = NoGrad(np.array([1.0, -1.0, 1.0]))
W4 = NoGrad(U(4, seed=3, low=0.5, high=2.0))


def _unpool(dims, make):
    """max_unpool of a differentiable input at the indices a max pooling picked."""
    name = {1: "1d", 2: "2d", 3: "3d"}[dims]

    def run(lib, x):
        _, idx = getattr(F(lib), f"max_pool{name}")(C(lib, make), 2, return_indices=True)
        return getattr(F(lib), f"max_unpool{name}")(x, idx, 2)

    return run


def _mha(lib, q, w_in, b_in, w_out, b_out):
    out, weights = F(lib).multi_head_attention_forward(
        q, q, q, 4, 2, w_in, b_in, None, None, False, 0.0, w_out, b_out
    )
    return lib.cat([out.reshape(-1), weights.reshape(-1)])


def _ctc(lib, x):
    log_probs = x.log_softmax(2)
    targets = C(lib, np.array([[1, 2], [2, 2]]))
    return F(lib).ctc_loss(log_probs, targets, [4, 4], [2, 2], reduction="sum")


def _batch_norm(training):
    def run(lib, x, w, b):
        mean, var = C(lib, np.zeros(2)), C(lib, np.ones(2) * 1.5)
        return F(lib).batch_norm(x, mean, var, w, b, training=training)

    return run


def _instance_norm(lib, x, w, b):
    return F(lib).instance_norm(x, weight=w, bias=b)


CASES = {
    # ----- activations -----
    "celu": (lambda L, x: F(L).celu(x, 0.7), X23),
    "celu_": (lambda L, x: F(L).celu_(x * 1), X23),
    "elu": (lambda L, x: F(L).elu(x, 1.3), X23),
    "elu_": (lambda L, x: F(L).elu_(x * 1), X23),
    "gelu": (lambda L, x: F(L).gelu(x), X23),
    "gelu:tanh": (lambda L, x: F(L).gelu(x, approximate="tanh"), X23),
    "glu": (lambda L, x: F(L).glu(x, 1), R(2, 4)),
    "hardshrink": (lambda L, x: F(L).hardshrink(x, 0.3), X23),
    "hardsigmoid": (lambda L, x: F(L).hardsigmoid(x * 4), X23),
    "hardswish": (lambda L, x: F(L).hardswish(x * 4), X23),
    "hardtanh": (lambda L, x: F(L).hardtanh(x, -0.5, 0.8), X23),
    "hardtanh_": (lambda L, x: F(L).hardtanh_(x * 1), X23),
    "leaky_relu": (lambda L, x: F(L).leaky_relu(x, 0.2), X23),
    "leaky_relu_": (lambda L, x: F(L).leaky_relu_(x * 1, 0.2), X23),
    "logsigmoid": (lambda L, x: F(L).logsigmoid(x), X23),
    "mish": (lambda L, x: F(L).mish(x), X23),
    "prelu": (lambda L, x, w: F(L).prelu(x, w), R(2, 3, 2), R(3)),
    "relu": (lambda L, x: F(L).relu(x), X23),
    "relu_": (lambda L, x: F(L).relu_(x * 1), X23),
    "relu6": (lambda L, x: F(L).relu6(x * 4), X23),
    "rrelu": (lambda L, x: F(L).rrelu(x, 0.1, 0.3, training=False), X23),
    "rrelu:seeded": (seeded(lambda L, x: F(L).rrelu(x, 0.1, 0.3, training=True)), X23),
    "rrelu_": (lambda L, x: F(L).rrelu_(x * 1, 0.1, 0.3, training=False), X23),
    "selu": (lambda L, x: F(L).selu(x), X23),
    "selu_": (lambda L, x: F(L).selu_(x * 1), X23),
    "sigmoid": (lambda L, x: F(L).sigmoid(x), X23),
    "silu": (lambda L, x: F(L).silu(x), X23),
    "softmax": (lambda L, x: F(L).softmax(x, dim=1), X23),
    "softmin": (lambda L, x: F(L).softmin(x, dim=0), X23),
    "gumbel_softmax:seeded": (seeded(lambda L, x: F(L).gumbel_softmax(x, tau=0.7)), X23),
    "log_softmax": (lambda L, x: F(L).log_softmax(x, dim=1), X23),
    "softplus": (lambda L, x: F(L).softplus(x, beta=2.0, threshold=1.0), X23),
    "softshrink": (lambda L, x: F(L).softshrink(x, 0.3), X23),
    "softsign": (lambda L, x: F(L).softsign(x), X23),
    "tanh": (lambda L, x: F(L).tanh(x), X23),
    "tanhshrink": (lambda L, x: F(L).tanhshrink(x), X23),
    "threshold": (lambda L, x: F(L).threshold(x, 0.1, 2.0), X23),
    "threshold_": (lambda L, x: F(L).threshold_(x * 1, 0.1, 2.0), X23),
    "normalize": (lambda L, x: F(L).normalize(x, p=3.0, dim=1), X23),
    # ----- linear, convolution, folding -----
    "linear": (lambda L, x, w, b: F(L).linear(x, w, b), X23, R(4, 3), R(4)),
    "bilinear": (lambda L, a, b, w, c: F(L).bilinear(a, b, w, c), X23, R(2, 2), R(2, 3, 2), R(2)),
    "conv1d": (lambda L, x, w, b: F(L).conv1d(x, w, b, 2, 1), R(1, 2, 5), R(3, 2, 2), R(3)),
    "conv_tbc": (lambda L, x, w, b: F(L).conv_tbc(x, w, b, 1), R(5, 1, 2), R(2, 2, 3), R(3)),
    "conv2d": (
        lambda L, x, w, b: F(L).conv2d(x, w, b, padding=1, dilation=(1, 2)),
        R(1, 2, 3, 4),
        R(2, 2, 2, 2),
        R(2),
    ),
    "conv2d:groups": (lambda L, x, w: F(L).conv2d(x, w, groups=2), R(1, 2, 3, 3), R(2, 1, 2, 2)),
    "conv3d": (lambda L, x, w, b: F(L).conv3d(x, w, b), R(1, 1, 3, 2, 3), R(2, 1, 2, 2, 2), R(2)),
    "conv_transpose1d": (
        lambda L, x, w, b: F(L).conv_transpose1d(x, w, b, stride=2, output_padding=1),
        R(1, 2, 3),
        R(2, 2, 2),
        R(2),
    ),
    "conv_transpose2d": (
        lambda L, x, w, b: F(L).conv_transpose2d(x, w, b, padding=1),
        R(1, 2, 3, 3),
        R(2, 1, 2, 2),
        R(1),
    ),
    "conv_transpose3d": (
        lambda L, x, w: F(L).conv_transpose3d(x, w, stride=(1, 2, 1)),
        R(1, 1, 2, 2, 2),
        R(1, 2, 2, 1, 2),
    ),
    "unfold": (lambda L, x: F(L).unfold(x, 2, dilation=(1, 2), padding=1), R(1, 2, 3, 3)),
    "fold": (lambda L, x: F(L).fold(x, (3, 4), 2), R(1, 4, 6)),
    # ----- pooling -----
    "avg_pool1d": (lambda L, x: F(L).avg_pool1d(x, 2, 1, padding=1), R(1, 2, 4)),
    "avg_pool2d": (lambda L, x: F(L).avg_pool2d(x, 2, ceil_mode=True), R(1, 2, 3, 3)),
    "avg_pool3d": (lambda L, x: F(L).avg_pool3d(x, 2, 1), R(1, 1, 3, 2, 3)),
    "adaptive_avg_pool1d": (lambda L, x: F(L).adaptive_avg_pool1d(x, 3), R(1, 2, 5)),
    "adaptive_avg_pool2d": (lambda L, x: F(L).adaptive_avg_pool2d(x, (2, 3)), R(1, 2, 3, 4)),
    "adaptive_avg_pool3d": (lambda L, x: F(L).adaptive_avg_pool3d(x, 2), R(1, 1, 3, 3, 2)),
    "adaptive_max_pool1d": (lambda L, x: F(L).adaptive_max_pool1d(x, 3), D(1, 2, 5)),
    "adaptive_max_pool1d_with_indices": (
        lambda L, x: F(L).adaptive_max_pool1d_with_indices(x, 2)[0],
        D(1, 2, 5),
    ),
    "fractional_max_pool2d": (
        lambda L, x: F(L).fractional_max_pool2d(x, 2, (2, 3), _random_samples=C(L, U(1, 2, 2))),
        D(1, 2, 4, 5),
    ),
    "fractional_max_pool3d": (
        lambda L, x: F(L).fractional_max_pool3d(x, 2, 2, _random_samples=C(L, U(1, 2, 3))),
        D(1, 2, 4, 5, 4),
    ),
    "fractional_max_pool2d_with_indices": (
        lambda L, x: F(L).fractional_max_pool2d_with_indices(
            x, (2, 1), (3, 3), _random_samples=C(L, U(1, 2, 2, seed=1))
        )[0],
        D(1, 2, 4, 5),
    ),
    "fractional_max_pool3d_with_indices": (
        lambda L, x: F(L).fractional_max_pool3d_with_indices(
            x, 2, (2, 3, 2), _random_samples=C(L, U(1, 2, 3, seed=1))
        )[0],
        D(1, 2, 4, 5, 4),
    ),
    "adaptive_max_pool2d": (lambda L, x: F(L).adaptive_max_pool2d(x, (2, 3)), D(1, 2, 3, 4)),
    "adaptive_max_pool2d_with_indices": (
        lambda L, x: F(L).adaptive_max_pool2d_with_indices(x, 2)[0],
        D(1, 1, 3, 4),
    ),
    "adaptive_max_pool3d": (lambda L, x: F(L).adaptive_max_pool3d(x, 2), D(1, 1, 3, 3, 2)),
    "adaptive_max_pool3d_with_indices": (
        lambda L, x: F(L).adaptive_max_pool3d_with_indices(x, 2)[0],
        D(1, 1, 3, 2, 3),
    ),
    "max_pool1d": (lambda L, x: F(L).max_pool1d(x, 2, 1), D(1, 2, 5)),
    "max_pool1d_with_indices": (lambda L, x: F(L).max_pool1d_with_indices(x, 2)[0], D(1, 2, 5)),
    "max_pool2d": (lambda L, x: F(L).max_pool2d(x, 2, 1, padding=1), D(1, 2, 3, 3)),
    "max_pool2d_with_indices": (
        lambda L, x: F(L).max_pool2d_with_indices(x, 2, ceil_mode=True)[0],
        D(1, 1, 3, 5),
    ),
    "max_pool3d": (lambda L, x: F(L).max_pool3d(x, 2, 1), D(1, 1, 3, 2, 3)),
    "max_pool3d_with_indices": (
        lambda L, x: F(L).max_pool3d_with_indices(x, 2)[0],
        D(1, 1, 2, 4, 3),
    ),
    "max_unpool1d": (_unpool(1, D(1, 2, 4)), R(1, 2, 2)),
    "max_unpool2d": (_unpool(2, D(1, 1, 4, 4)), R(1, 1, 2, 2)),
    "max_unpool3d": (_unpool(3, D(1, 1, 2, 2, 4)), R(1, 1, 1, 1, 2)),
    "lp_pool1d": (lambda L, x: F(L).lp_pool1d(x, 2.0, 2), R(1, 2, 4)),
    "lp_pool2d": (lambda L, x: F(L).lp_pool2d(x, 3.0, 2), U(1, 1, 4, 4)),
    "lp_pool3d": (lambda L, x: F(L).lp_pool3d(x, 2.0, 2), R(1, 1, 2, 2, 4)),
    # ----- normalization -----
    "batch_norm": (_batch_norm(True), R(3, 2), R(2), R(2)),
    "batch_norm:eval": (_batch_norm(False), R(3, 2), R(2), R(2)),
    "group_norm": (lambda L, x, w, b: F(L).group_norm(x, 2, w, b), R(2, 4, 2), R(4), R(4)),
    "instance_norm": (_instance_norm, R(2, 2, 3), R(2), R(2)),
    "layer_norm": (lambda L, x, w, b: F(L).layer_norm(x, (3,), w, b), X23, R(3), R(3)),
    "local_response_norm": (lambda L, x: F(L).local_response_norm(x, 2), R(1, 3, 4)),
    "rms_norm": (lambda L, x, w: F(L).rms_norm(x, (3,), w), X23, R(3)),
    # ----- dropout -----
    "dropout": (lambda L, x: F(L).dropout(x, 0.4, training=False), X23),
    "dropout:seeded": (seeded(lambda L, x: F(L).dropout(x, 0.4)), R(3, 4)),
    "dropout1d": (lambda L, x: F(L).dropout1d(x, 0.0), R(2, 3, 2)),
    "dropout1d:seeded": (seeded(lambda L, x: F(L).dropout1d(x, 0.5)), R(2, 3, 2)),
    "dropout2d": (lambda L, x: F(L).dropout2d(x, 0.5, training=False), R(1, 3, 2, 2)),
    "dropout2d:seeded": (seeded(lambda L, x: F(L).dropout2d(x, 0.5)), R(1, 3, 2, 2)),
    "dropout3d": (lambda L, x: F(L).dropout3d(x, 0.0), R(1, 2, 2, 1, 2)),
    "dropout3d:seeded": (seeded(lambda L, x: F(L).dropout3d(x, 0.5)), R(1, 3, 2, 1, 2)),
    "alpha_dropout": (lambda L, x: F(L).alpha_dropout(x, 0.3, training=False), X23),
    "alpha_dropout:seeded": (seeded(lambda L, x: F(L).alpha_dropout(x, 0.3, True)), R(3, 4)),
    "feature_alpha_dropout": (lambda L, x: F(L).feature_alpha_dropout(x, 0.0), R(2, 3, 2)),
    "feature_alpha_dropout:seeded": (
        seeded(lambda L, x: F(L).feature_alpha_dropout(x, 0.5, True)),
        R(2, 3, 2),
    ),
    # ----- embedding -----
    "embedding": (lambda L, i, w: F(L).embedding(i, w), IDX, R(5, 3)),
    "embedding_bag": (
        lambda L, i, w: F(L).embedding_bag(i.reshape(-1), w, C(L, [0, 2]), mode="mean"),
        IDX,
        R(5, 3),
    ),
    # ----- padding and resampling -----
    "pad": (lambda L, x: F(L).pad(x, (1, 2), value=0.5), R(1, 2, 3)),
    "pad:reflect": (lambda L, x: F(L).pad(x, (1, 2, 2, 1), mode="reflect"), R(1, 1, 3, 4)),
    "pad:replicate": (lambda L, x: F(L).pad(x, (2, 1), mode="replicate"), R(1, 2, 3)),
    "pad:circular": (lambda L, x: F(L).pad(x, (1, 1, 2, 0), mode="circular"), R(1, 1, 3, 3)),
    "interpolate": (lambda L, x: F(L).interpolate(x, scale_factor=2), R(1, 2, 3)),
    "interpolate:nearest-exact": (
        lambda L, x: F(L).interpolate(x, size=(3, 5), mode="nearest-exact"),
        R(1, 1, 2, 3),
    ),
    "interpolate:linear": (
        lambda L, x: F(L).interpolate(x, size=5, mode="linear", align_corners=True),
        R(1, 2, 3),
    ),
    "interpolate:bilinear": (
        lambda L, x: F(L).interpolate(x, scale_factor=1.5, mode="bilinear"),
        R(1, 1, 3, 2),
    ),
    "interpolate:bicubic": (
        lambda L, x: F(L).interpolate(x, size=(4, 3), mode="bicubic"),
        R(1, 1, 3, 3),
    ),
    "interpolate:trilinear": (
        lambda L, x: F(L).interpolate(x, size=(2, 3, 3), mode="trilinear"),
        R(1, 1, 2, 2, 2),
    ),
    "interpolate:area": (lambda L, x: F(L).interpolate(x, size=(2, 3), mode="area"), R(1, 1, 3, 4)),
    "interpolate:antialias": (
        lambda L, x: F(L).interpolate(x, size=(2, 2), mode="bilinear", antialias=True),
        R(1, 1, 4, 3),
    ),
    "upsample": (lambda L, x: F(L).upsample(x, size=4, mode="linear"), R(1, 2, 3)),
    "upsample_bilinear": (lambda L, x: F(L).upsample_bilinear(x, scale_factor=2), R(1, 1, 2, 2)),
    "upsample_nearest": (lambda L, x: F(L).upsample_nearest(x, size=(3, 4)), R(1, 1, 2, 2)),
    "grid_sample": (
        lambda L, x, g: F(L).grid_sample(x, g.tanh(), align_corners=False),
        R(1, 2, 3, 3),
        R(1, 2, 2, 2),
    ),
    "grid_sample:nearest_border": (
        lambda L, x, g: F(L).grid_sample(x, g.tanh(), "nearest", "border", align_corners=True),
        R(1, 1, 3, 3),
        R(1, 2, 2, 2),
    ),
    "affine_grid": (
        lambda L, t: F(L).affine_grid(t, [1, 1, 2, 3], align_corners=False),
        R(1, 2, 3),
    ),
    "pixel_shuffle": (lambda L, x: F(L).pixel_shuffle(x, 2), R(1, 4, 1, 2)),
    "pixel_unshuffle": (lambda L, x: F(L).pixel_unshuffle(x, 2), R(1, 1, 2, 4)),
    "channel_shuffle": (lambda L, x: F(L).channel_shuffle(x, 2), R(1, 4, 1, 2)),
    # ----- distances and attention -----
    "cosine_similarity": (lambda L, a, b: F(L).cosine_similarity(a, b), X23, R(1, 3)),
    "pairwise_distance": (
        lambda L, a, b: F(L).pairwise_distance(a, b, p=3.0),
        X23,
        R(2, 3, seed=1),
    ),
    "pdist": (lambda L, x: F(L).pdist(x), R(3, 2)),
    "scaled_dot_product_attention": (
        lambda L, q, k, v: F(L).scaled_dot_product_attention(q, k, v, scale=0.7),
        R(1, 2, 3),
        R(1, 3, 3),
        R(1, 3, 2),
    ),
    "scaled_dot_product_attention:seeded": (
        seeded(lambda L, q, k, v: F(L).scaled_dot_product_attention(q, k, v, dropout_p=0.3)),
        R(1, 2, 3),
        R(1, 3, 3),
        R(1, 3, 2),
    ),
    "multi_head_attention_forward": (_mha, R(2, 1, 4), R(12, 4), R(12), R(4, 4), R(4)),
    # ----- losses -----
    "binary_cross_entropy": (
        lambda L, p, q, w: F(L).binary_cross_entropy(p, q, w),
        P34,
        Q34,
        NoGrad(U(3, 4, seed=4)),
    ),
    "binary_cross_entropy_with_logits": (
        lambda L, x, q, w: F(L).binary_cross_entropy_with_logits(x, q, pos_weight=w),
        R(3, 4),
        Q34,
        W4,
    ),
    "cosine_embedding_loss": (
        lambda L, a, b, y: F(L).cosine_embedding_loss(a, b, y, margin=-0.5),
        R(3, 4),
        R(3, 4, seed=1),
        SIGNS3,
    ),
    "cross_entropy": (
        lambda L, x, t: F(L).cross_entropy(x, t, weight=C(L, [1, 2, 1, 3.0])),
        R(3, 4),
        T3,
    ),
    "cross_entropy:probs": (
        lambda L, x, p: F(L).cross_entropy(x, p, label_smoothing=0.2),
        R(3, 4),
        P34,
    ),
    "ctc_loss": (_ctc, R(4, 2, 3)),
    "gaussian_nll_loss": (
        lambda L, x, y, v: F(L).gaussian_nll_loss(x, y, v),
        R(3, 4),
        R(3, 4, seed=1),
        U(3, 4, seed=5, low=0.5, high=1.5),
    ),
    "hinge_embedding_loss": (
        lambda L, x, y: F(L).hinge_embedding_loss(x, y, margin=0.8),
        R(3),
        SIGNS3,
    ),
    "huber_loss": (lambda L, x, y: F(L).huber_loss(x, y, delta=0.7), R(3, 4), R(3, 4, seed=1)),
    "kl_div": (
        lambda L, x, y: F(L).kl_div(x, y, reduction="batchmean"),
        R(3, 4),
        P34,
    ),
    "kl_div:log_target": (
        lambda L, x, y: F(L).kl_div(x, y, reduction="sum", log_target=True),
        R(3, 4),
        R(3, 4, seed=1),
    ),
    "l1_loss": (lambda L, x, y: F(L).l1_loss(x, y), R(3, 4), R(3, 4, seed=1)),
    "linear_cross_entropy": (
        lambda L, x, w, b, t: F(L).linear_cross_entropy(
            x, w, t, linear_bias=b, weight=C(L, [1, 2, 1, 3.0]), label_smoothing=0.1
        ),
        R(3, 2),
        R(4, 2),
        R(4),
        T3,
    ),
    "margin_ranking_loss": (
        lambda L, a, b, y: F(L).margin_ranking_loss(a, b, y, margin=0.1),
        R(3),
        R(3, seed=1),
        SIGNS3,
    ),
    "mse_loss": (lambda L, x, y: F(L).mse_loss(x, y, reduction="sum"), R(3, 4), R(3, 4, seed=1)),
    "multi_margin_loss": (
        lambda L, x, t: F(L).multi_margin_loss(x, t, p=2, margin=0.7),
        R(3, 4),
        T3,
    ),
    "multilabel_margin_loss": (
        lambda L, x, t: F(L).multilabel_margin_loss(x, t),
        R(3, 4),
        L64([1, 2, -1, 0], [0, -1, 0, 0], [3, 2, 1, 0]),
    ),
    "multilabel_soft_margin_loss": (
        lambda L, x, y: F(L).multilabel_soft_margin_loss(x, y),
        R(3, 4),
        NoGrad(np.array([[1.0, 0, 1, 0], [0, 0, 1, 1], [1, 1, 1, 0]])),
    ),
    "nll_loss": (lambda L, x, t: F(L).nll_loss(x, t, ignore_index=3), R(3, 4), T3),
    "poisson_nll_loss": (
        lambda L, x, y: F(L).poisson_nll_loss(x, y, log_input=False, full=True),
        U(3, 4, seed=6, low=0.5, high=2.0),
        U(3, 4, seed=7, low=1.5, high=3.0),
    ),
    "smooth_l1_loss": (
        lambda L, x, y: F(L).smooth_l1_loss(x, y, beta=0.5),
        R(3, 4),
        R(3, 4, seed=1),
    ),
    "soft_margin_loss": (
        lambda L, x, y: F(L).soft_margin_loss(x, y),
        R(3, 4),
        NoGrad(np.sign(R(3, 4, seed=2))),
    ),
    "triplet_margin_loss": (
        lambda L, a, p, n: F(L).triplet_margin_loss(a, p, n, margin=2.0, swap=True),
        R(3, 4),
        R(3, 4, seed=1),
        R(3, 4, seed=2),
    ),
    "triplet_margin_with_distance_loss": (
        lambda L, a, p, n: F(L).triplet_margin_with_distance_loss(
            a, p, n, distance_function=lambda u, v: (u - v).pow(2).sum(-1), margin=3.0
        ),
        R(3, 4),
        R(3, 4, seed=1),
        R(3, 4, seed=2),
    ),
}

# public names of chainrule.nn.functional with no case, and why
EXCLUDED = {
    "one_hot": "integer in, integer out: not differentiable",
    "annotations": "not a function: the module's `from __future__ import annotations`",
    "native_channel_shuffle": "no derivative in PyTorch (chainrule raises its error)",
}

# first derivatives only: PyTorch has no second derivative here either, and chainrule raises
# PyTorch's error (a gap shared with PyTorch, checked below)
FIRST_ORDER_ONLY = {
    "ctc_loss": "derivative for aten::_ctc_loss_backward is not implemented",
}

# chainrule only: PyTorch has no second derivative here, or its random stream differs
NOT_VS_TORCH = {
    **{
        n: "torch's random stream differs: the same seed draws another mask"
        for n in CASES
        if n.endswith(":seeded")
    },
    "embedding_bag": "torch: the derivative for '_embedding_bag_backward' is not implemented",
    "pdist": "torch: the derivative for '_pdist_backward' is not implemented",
    "hardsigmoid": "torch: the derivative for 'hardsigmoid_backward' is not implemented",
    "multi_margin_loss": "torch: the derivative for 'multi_margin_loss_backward' ...",
    "multilabel_margin_loss": "torch: the derivative for 'multilabel_margin_loss_backward' ...",
    **FIRST_ORDER_ONLY,
}


def _functional_names() -> list[str]:
    ns = cr.nn.functional
    return sorted(n for n in dir(ns) if not n.startswith("_"))


def test_every_function_has_a_case():
    covered = {name.split(":")[0] for name in CASES}
    missing = [n for n in _functional_names() if n not in covered and n not in EXCLUDED]
    assert not missing, f"nn.functional functions with no gradgradcheck case: {missing}"
    stale = [n for n in list(covered) + list(EXCLUDED) if n not in _functional_names()]
    assert not stale, f"cases for names nn.functional does not have: {stale}"


def _on_chainrule(fn, inputs):
    """``fn`` as a function of chainrule tensors of its float inputs (the others fixed)."""
    at = [i for i, v in enumerate(inputs) if isinstance(v, np.ndarray) and v.dtype.kind == "f"]
    fixed = [cr.tensor(np.array(v.array if isinstance(v, NoGrad) else v)) for v in inputs]

    def run(*xs):
        args = list(fixed)
        for i, x in zip(at, xs, strict=True):
            args[i] = x
        return fn(cr, *args)

    return run, tuple(cr.tensor(np.array(inputs[i]), requires_grad=True) for i in at)


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():  # upsample*'s deprecation warnings
        warnings.simplefilter("ignore")
        yield


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck_and_gradgradcheck(name):
    fn, *inputs = CASES[name]
    run, xs = _on_chainrule(fn, inputs)
    assert cr.autograd.gradcheck(run, xs)
    if name in FIRST_ORDER_ONLY:
        with pytest.raises(RuntimeError, match=FIRST_ORDER_ONLY[name]):
            cr.autograd.gradgradcheck(run, xs)
    else:
        assert cr.autograd.gradgradcheck(run, xs)


@pytest.mark.parametrize("name", sorted(set(CASES) - set(NOT_VS_TORCH)))
def test_second_derivatives_match_torch(name):
    fn, *inputs = CASES[name]
    check_double_backward(fn, *inputs, rtol=1e-7, atol=1e-9)


# ----- the checks themselves fail on wrong derivatives -------------------------------------


class _WrongSecond(cr.autograd.Function):
    """x³ with a right first derivative whose own derivative is wrong (6x replaced by 5x)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * _Square.apply(x) * 3


class _Square(cr.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x * 5 / 3  # wrong: d(x²)/dx = 2x


def test_gradcheck_and_gradgradcheck_catch_wrong_derivatives():
    x = cr.tensor(R(3), requires_grad=True)
    assert cr.autograd.gradcheck(_WrongSecond.apply, (x,))
    assert not cr.autograd.gradgradcheck(_WrongSecond.apply, (x,), raise_exception=False)
    with pytest.raises(RuntimeError, match="Jacobian mismatch"):
        cr.autograd.gradcheck(_Square.apply, (x,))
