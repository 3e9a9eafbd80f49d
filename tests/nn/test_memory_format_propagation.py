"""How ops lay out their outputs for channels-last inputs, against PyTorch's CPU kernels: the
strides and ``is_contiguous(memory_format=...)`` of each output, for a row-major and a
channels-last input (and a channels-last convolution weight), with the values unchanged;
convolutions (2-d always follow x or the weight, 3-d only where PyTorch picks oneDNN),
pooling, normalization layers, upsampling, pixel shuffles, a converted model; and the
gradients through channels-last inputs."""

from __future__ import annotations

import numpy as np
import pytest

from oracle import check, compare, randn

X4 = (2, 3, 6, 8)
X5 = (2, 3, 4, 6, 8)
XL = (4, 16, 16, 16)
FORMATS = {4: "channels_last", 5: "channels_last_3d"}


def _t(L, shape, fmt=None, dtype=np.float64, seed=0):
    """A tensor of fixed values, laid out channels-last when ``fmt`` says so."""
    t = L.tensor(randn(shape, seed).astype(dtype))
    if not fmt or len(shape) not in FORMATS:
        return t
    return t.to(memory_format=getattr(L, FORMATS[len(shape)]))


def _facts(y, L):
    """What PyTorch's layout rules decide: the strides and the contiguity in each format."""
    if isinstance(y, tuple):
        return tuple(_facts(v, L) for v in y)
    return (
        y.stride(),
        y.is_contiguous(),
        y.is_contiguous(memory_format=L.channels_last),
        y.is_contiguous(memory_format=L.channels_last_3d),
    )


def _same_layout_and_values(fn, rtol=1e-6, atol=1e-7):
    def both(L):
        with L.no_grad():
            y = fn(L)
        return _facts(y, L), y

    compare(both, rtol=rtol, atol=atol)


def F(L):
    return L.nn.functional


# ----- convolutions --------------------------------------------------------------------------

# (x is channels-last, weight is channels-last)
WHICH = [(False, False), (True, False), (False, True), (True, True)]
WHICH_IDS = ["rowmajor", "x_cl", "w_cl", "both_cl"]

CONV2D = {
    "conv2d": lambda L, x, w: F(L).conv2d(x, w(L, (4, 3, 3, 3)), w(L, (4,))),
    "strided_padded": lambda L, x, w: F(L).conv2d(x, w(L, (4, 3, 3, 3)), stride=2, padding=1),
    "depthwise": lambda L, x, w: F(L).conv2d(x, w(L, (3, 1, 3, 3)), groups=3),
    "pointwise": lambda L, x, w: F(L).conv2d(x, w(L, (4, 3, 1, 1))),
    "dilated": lambda L, x, w: F(L).conv2d(x, w(L, (4, 3, 2, 2)), dilation=2),
    "transposed": lambda L, x, w: F(L).conv_transpose2d(x, w(L, (3, 4, 3, 3)), stride=2),
    "transposed_output_padding": lambda L, x, w: F(L).conv_transpose2d(
        x, w(L, (3, 4, 3, 3)), output_padding=1, dilation=2
    ),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("which", WHICH, ids=WHICH_IDS)
@pytest.mark.parametrize("case", CONV2D)
def test_conv2d_output_is_channels_last_when_input_or_weight_is(case, which, dtype):
    x_cl, w_cl = which

    def fn(L):
        def w(L, shape):
            return _t(L, shape, w_cl, dtype, 1)

        return CONV2D[case](L, _t(L, X4, x_cl, dtype), w)

    _same_layout_and_values(fn, *((1e-4, 1e-5) if dtype == np.float32 else ()))


# 3-d convolutions: only PyTorch's oneDNN kernel keeps channels_last_3d (float32, complex64,
# where its size rules pick it); float64 and small single-sample float32 ones write row-major
CONV3D = {
    "f32": lambda L, c: F(L).conv3d(
        _t(L, X5, c, np.float32), _t(L, (4, 3, 2, 2, 2), 0, np.float32)
    ),
    "f64": lambda L, c: F(L).conv3d(_t(L, X5, c), _t(L, (4, 3, 2, 2, 2), 0)),
    "f32_one_small_sample": lambda L, c: F(L).conv3d(
        _t(L, (1, 3, 4, 5, 6), c, np.float32), _t(L, (4, 3, 4, 4, 1), 0, np.float32)
    ),
    "f32_one_sample_grouped": lambda L, c: F(L).conv3d(
        _t(L, (1, 3, 4, 5, 6), c, np.float32), _t(L, (6, 1, 4, 4, 1), 0, np.float32), groups=3
    ),
    "f32_dilated": lambda L, c: F(L).conv3d(
        _t(L, X5, c, np.float32), _t(L, (4, 3, 2, 2, 2), 0, np.float32), dilation=2
    ),
    "f32_transposed": lambda L, c: F(L).conv_transpose3d(
        _t(L, X5, c, np.float32), _t(L, (3, 4, 2, 2, 1), 0, np.float32)
    ),
    "f32_transposed_output_padding": lambda L, c: F(L).conv_transpose3d(
        _t(L, X5, c, np.float32),
        _t(L, (3, 4, 3, 3, 3), 0, np.float32),
        output_padding=1,
        dilation=2,
    ),  # fmt: skip
    "f64_weight_cl": lambda L, c: F(L).conv3d(_t(L, X5, 0), _t(L, (4, 3, 2, 2, 2), c)),
    "f32_weight_cl": lambda L, c: F(L).conv3d(
        _t(L, X5, 0, np.float32), _t(L, (4, 3, 2, 2, 2), c, np.float32)
    ),
}


@pytest.mark.parametrize("cl", [False, True], ids=["rowmajor", "cl3d"])
@pytest.mark.parametrize("case", CONV3D)
def test_conv3d_output_layout(case, cl):
    _same_layout_and_values(lambda L: CONV3D[case](L, cl), 1e-4, 1e-5)


OTHER_CONVS = {
    "conv1d_of_transposed_view": lambda L: F(L).conv1d(
        _t(L, (2, 7, 3)).transpose(1, 2), _t(L, (4, 3, 3), None, np.float64, 1)
    ),
    "unbatched_weight_cl": lambda L: F(L).conv2d(_t(L, (3, 5, 6)), _t(L, (4, 3, 3, 3), 1)),
    "batch_of_one_rowmajor": lambda L: F(L).conv2d(_t(L, (1, 3, 5, 6)), _t(L, (4, 3, 3, 3))),
    "batch_of_one_cl": lambda L: F(L).conv2d(_t(L, (1, 3, 5, 6), 1), _t(L, (4, 3, 3, 3))),
    "batch_of_one_3d": lambda L: F(L).conv3d(_t(L, (1, 3, 4, 5, 6)), _t(L, (4, 3, 2, 2, 2))),
    "one_by_one_output_cl": lambda L: F(L).conv2d(_t(L, (2, 3, 1, 1), 1), _t(L, (4, 3, 1, 1))),
    "complex128_cl": lambda L: F(L).conv2d(
        _t(L, X4, 1).to(L.complex128), _t(L, (4, 3, 3, 3)).to(L.complex128)
    ),
    "same_padding_cl": lambda L: F(L).conv2d(_t(L, X4, 1), _t(L, (4, 3, 3, 3)), padding="same"),
}


@pytest.mark.parametrize("case", OTHER_CONVS)
def test_other_convolution_layouts(case):
    _same_layout_and_values(OTHER_CONVS[case])


# ----- pooling, normalization, upsampling, shuffles ------------------------------------------

OPS = {
    "max_pool2d": (X4, lambda L, x: F(L).max_pool2d(x, 2)),
    "max_pool2d_indices": (X4, lambda L, x: F(L).max_pool2d(x, 3, 2, 1, return_indices=True)),
    "avg_pool2d": (X4, lambda L, x: F(L).avg_pool2d(x, 3, 2, 1)),
    "adaptive_avg_pool2d": (X4, lambda L, x: F(L).adaptive_avg_pool2d(x, (3, 5))),
    "adaptive_avg_pool2d_global": (X4, lambda L, x: F(L).adaptive_avg_pool2d(x, 1)),
    "adaptive_max_pool2d": (
        X4,
        lambda L, x: F(L).adaptive_max_pool2d(x, (3, 5), return_indices=True),
    ),
    "lp_pool2d": (X4, lambda L, x: F(L).lp_pool2d(x.abs(), 2, 2)),
    "fractional_max_pool2d": (
        X4,
        lambda L, x: F(L).fractional_max_pool2d(
            x, 2, output_size=(3, 4), _random_samples=L.full((2, 3, 2), 0.5, dtype=L.float64)
        ),
    ),
    "max_unpool2d": (
        X4,
        lambda L, x: F(L).max_unpool2d(*F(L).max_pool2d(x, 2, return_indices=True), 2),
    ),
    "max_unpool3d": (
        X5,
        lambda L, x: F(L).max_unpool3d(*F(L).max_pool3d(x, 2, return_indices=True), 2),
    ),
    "max_pool3d_indices": (X5, lambda L, x: F(L).max_pool3d(x, 2, return_indices=True)),
    "avg_pool3d": (X5, lambda L, x: F(L).avg_pool3d(x, 2)),
    "adaptive_avg_pool3d": (X5, lambda L, x: F(L).adaptive_avg_pool3d(x, (2, 3, 3))),
    "adaptive_max_pool3d": (X5, lambda L, x: F(L).adaptive_max_pool3d(x, 2, return_indices=True)),
    "batch_norm": (X4, lambda L, x: F(L).batch_norm(x, None, None, training=True)),
    "batch_norm_eval": (
        X4,
        lambda L, x: F(L).batch_norm(x, L.zeros(3, dtype=L.float64), L.ones(3, dtype=L.float64)),
    ),
    # (past the size where the norms run on their own array kernels)
    "batch_norm_large": (XL, lambda L, x: F(L).batch_norm(x, None, None, training=True)),
    "group_norm_large": (XL, lambda L, x: F(L).group_norm(x, 4)),
    "layer_norm_large": (XL, lambda L, x: F(L).layer_norm(x, (16, 16))),
    "instance_norm_large": (XL, lambda L, x: F(L).instance_norm(x)),
    "batch_norm3d": (X5, lambda L, x: F(L).batch_norm(x, None, None, training=True)),
    "instance_norm": (X4, lambda L, x: F(L).instance_norm(x)),
    "instance_norm3d": (X5, lambda L, x: F(L).instance_norm(x)),
    "group_norm": (X4, lambda L, x: F(L).group_norm(x, 3, L.ones(3, dtype=L.float64))),
    "group_norm3d": (X5, lambda L, x: F(L).group_norm(x, 1)),
    "layer_norm": (X4, lambda L, x: F(L).layer_norm(x, (6, 8))),
    "local_response_norm": (X4, lambda L, x: F(L).local_response_norm(x, 2)),
    "normalize": (X4, lambda L, x: F(L).normalize(x, dim=1)),
    "nearest": (X4, lambda L, x: F(L).interpolate(x, scale_factor=2)),
    "nearest_exact_down": (X4, lambda L, x: F(L).interpolate(x, (4, 5), mode="nearest-exact")),
    "bilinear": (X4, lambda L, x: F(L).interpolate(x, scale_factor=2, mode="bilinear")),
    "bilinear_align_corners": (
        X4,
        lambda L, x: F(L).interpolate(x, (4, 5), mode="bilinear", align_corners=True),
    ),
    "bilinear_antialias": (
        X4,
        lambda L, x: F(L).interpolate(x, (3, 4), mode="bilinear", antialias=True),
    ),
    "bicubic": (X4, lambda L, x: F(L).interpolate(x, (4, 5), mode="bicubic")),
    "area": (X4, lambda L, x: F(L).interpolate(x, (4, 5), mode="area")),
    "nearest3d": (X5, lambda L, x: F(L).interpolate(x, scale_factor=2)),
    "trilinear": (X5, lambda L, x: F(L).interpolate(x, (3, 4, 5), mode="trilinear")),
    "area3d": (X5, lambda L, x: F(L).interpolate(x, (3, 4, 5), mode="area")),
    "pixel_shuffle": ((2, 12, 3, 4), lambda L, x: F(L).pixel_shuffle(x, 2)),
    "pixel_unshuffle": (X4, lambda L, x: F(L).pixel_unshuffle(x, 2)),
    "dropout2d_eval": (X4, lambda L, x: F(L).dropout2d(x, 0.5, training=False)),
    "relu": (X4, lambda L, x: F(L).relu(x)),
    "gelu": (X4, lambda L, x: F(L).gelu(x)),
    "gelu_tanh": (X4, lambda L, x: F(L).gelu(x, approximate="tanh")),
    "gelu_recorded": (X4, lambda L, x: F(L).gelu(x.requires_grad_())),
    "gelu3d": (X5, lambda L, x: F(L).gelu(x)),
    "pad_constant": (X4, lambda L, x: F(L).pad(x, (1, 2, 0, 1), value=0.5)),
    "pad_last_dim": (X4, lambda L, x: F(L).pad(x, (1, 1))),
    "pad_crop": (X4, lambda L, x: F(L).pad(x, (-1, -1))),
    "pad_reflect": (X4, lambda L, x: F(L).pad(x, (1, 1, 2, 2), mode="reflect")),
    "pad_replicate": (X4, lambda L, x: F(L).pad(x, (1, 1, 2, 2), mode="replicate")),
    "pad_circular": (X4, lambda L, x: F(L).pad(x, (1, 1, 2, 2), mode="circular")),
    "pad3d": (X5, lambda L, x: F(L).pad(x, (1, 1, 1, 1, 1, 1))),
    "cat": (X4, lambda L, x: L.cat([x, x * 2])),
    "cat_channels": (X4, lambda L, x: L.cat([x, x], 1)),
    "cat_with_rowmajor": (X4, lambda L, x: L.cat([x, x.contiguous()])),
    "cat_rowmajor_first": (X4, lambda L, x: L.cat([x.contiguous(), x])),
    "cat3d": (X5, lambda L, x: L.cat([x, x], 2)),
    "cat_recorded": (X4, lambda L, x: L.cat([x.requires_grad_(), x * 2])),
}


@pytest.mark.parametrize("cl", [False, True], ids=["rowmajor", "cl"])
@pytest.mark.parametrize("case", OPS)
def test_op_output_layout(case, cl):
    shape, fn = OPS[case]
    _same_layout_and_values(lambda L: fn(L, _t(L, shape, cl)))


def test_dropout2d_training_keeps_the_format():
    # (random masks differ between the libraries: the layout only)
    compare(lambda L: _facts(F(L).dropout2d(_t(L, X4, 1), 0.5, training=True), L))


@pytest.mark.parametrize("kind", ["dropout", "alpha_dropout"])
@pytest.mark.parametrize("shape", [X4, X5], ids=["4d", "5d"])
@pytest.mark.parametrize("cl", [False, True], ids=["rowmajor", "cl"])
def test_dropout_training_keeps_the_format(kind, shape, cl):
    """(the layout only: the random masks differ between the libraries)"""
    compare(lambda L: _facts(getattr(F(L), kind)(_t(L, shape, cl), 0.5, training=True), L))


# ----- a model converted to channels_last ----------------------------------------------------


def _model(L):
    L.manual_seed(0)
    nn = L.nn
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 4, 3, stride=2, padding=1),
        nn.GroupNorm(2, 4),
        nn.Upsample(scale_factor=2, mode="bilinear"),
        nn.AdaptiveAvgPool2d(1),
    )


def test_converted_model_keeps_channels_last_through_every_layer():
    def fn(L):
        m = _model(L).to(memory_format=L.channels_last)
        x = _t(L, (2, 3, 8, 8), 1, np.float32)
        facts, y = [], x
        with L.no_grad():
            for layer in m:
                y = layer(y)
                facts.append(_facts(y, L))
        return facts

    compare(fn)


def test_weight_alone_channels_last_makes_the_output_channels_last():
    def fn(L):
        m = _model(L)
        L.nn.utils.convert_conv2d_weight_memory_format(m, L.channels_last)
        with L.no_grad():
            return _facts(m[0](_t(L, (2, 3, 8, 8), 0, np.float32)), L)

    compare(fn)


# ----- values and gradients through channels-last inputs ------------------------------------

W = randn((4, 3, 3, 3), 3)


@pytest.mark.parametrize(
    "fn",
    [
        lambda L, x, w: F(L).conv2d(x.to(memory_format=L.channels_last), w),
        lambda L, x, w: F(L).conv2d(x, w.to(memory_format=L.channels_last), stride=2),
        lambda L, x, w: F(L).conv_transpose2d(
            F(L).conv2d(x.to(memory_format=L.channels_last), w), w
        ),
        lambda L, x, w: F(L).max_pool2d(x.to(memory_format=L.channels_last), 2) * w.sum(),
        lambda L, x, w: (
            F(L).interpolate(x.to(memory_format=L.channels_last), scale_factor=2, mode="bicubic")
            * w.sum()
        ),  # fmt: skip
        lambda L, x, w: F(L).instance_norm(x.to(memory_format=L.channels_last)) * w.sum(),
        lambda L, x, w: F(L).adaptive_avg_pool2d(x.to(memory_format=L.channels_last), 3),
    ],
    ids=[
        "conv",
        "conv_weight",
        "conv_then_transpose",
        "max_pool",
        "bicubic",
        "instance_norm",
        "adaptive_avg",
    ],  # fmt: skip
)
def test_values_and_gradients_through_channels_last(fn):
    check(fn, randn((2, 3, 6, 8), 4), W)


def test_grad_of_channels_last_leaf_has_its_strides():
    def fn(L):
        x = _t(L, X4, 1).requires_grad_()
        w = _t(L, (4, 3, 3, 3), 1, np.float64, 1).requires_grad_()
        (F(L).conv2d(x, w) ** 2).sum().backward()
        return x.grad.stride(), w.grad.stride()

    compare(fn)


def test_group_norm_gradients_through_channels_last():
    # (torch's forward mode refuses a channels-last group norm: reverse mode only)
    check(
        lambda L, x: F(L).group_norm(x.to(memory_format=L.channels_last), 3),
        randn((2, 3, 6, 8), 4),
        forward=False,
    )
