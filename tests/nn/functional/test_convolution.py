"""Convolutions against PyTorch: F.conv1d/2d/3d (stride, padding as ints, tuples, 'same'
and 'valid', dilation, groups, bias, unbatched inputs), F.conv_transpose1d/2d/3d
(stride, padding, output_padding, groups, dilation), torch.convolution, F.unfold and
F.fold: values, dtypes, gradients of input, weight and bias, forward-mode tangents and
node names in float32 and float64; finite differences and second derivatives in
float64; PyTorch's errors for bad input.

Each case is ``fn(lib, *tensors)`` run on both libraries by ``oracle.check``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import cases
import chainrule as cr
from chainrule.ops import windows
from oracle import check, randn, same_node


def F(lib):
    return lib.nn.functional


def R(*shape, seed=0):
    return randn(shape, seed=seed + sum(shape))


# ----- convolutions: name -> (fn, *inputs) ---------------------------------------------------

CONV = {
    # conv1d
    "conv1d": (lambda L, x, w, b: F(L).conv1d(x, w, b), R(2, 3, 7), R(4, 3, 3), R(4)),
    "conv1d_stride_pad_dil": (
        lambda L, x, w, b: F(L).conv1d(x, w, b, stride=2, padding=2, dilation=2),
        R(2, 3, 9),
        R(4, 3, 3),
        R(4),
    ),  # fmt: skip
    "conv1d_groups": (
        lambda L, x, w: F(L).conv1d(x, w, groups=3, padding=1),
        R(2, 6, 5),
        R(9, 2, 3),
    ),
    "conv1d_same_even": (lambda L, x, w: F(L).conv1d(x, w, padding="same"), R(2, 3, 6), R(2, 3, 4)),
    "conv1d_same_dilated": (
        lambda L, x, w, b: F(L).conv1d(x, w, b, padding="same", dilation=2),
        R(1, 2, 7),
        R(3, 2, 3),
        R(3),
    ),  # fmt: skip
    "conv1d_valid": (lambda L, x, w: F(L).conv1d(x, w, padding="valid"), R(2, 3, 6), R(2, 3, 2)),
    "conv1d_unbatched": (lambda L, x, w, b: F(L).conv1d(x, w, b), R(3, 7), R(4, 3, 3), R(4)),
    # conv2d
    "conv2d": (lambda L, x, w, b: F(L).conv2d(x, w, b), R(2, 3, 6, 5), R(4, 3, 3, 2), R(4)),
    "conv2d_no_bias": (lambda L, x, w: F(L).conv2d(x, w), R(1, 2, 5, 5), R(3, 2, 3, 3)),
    "conv2d_stride_padding": (
        lambda L, x, w, b: F(L).conv2d(x, w, b, stride=(2, 1), padding=(1, 2)),
        R(2, 3, 7, 6),
        R(4, 3, 3, 3),
        R(4),
    ),  # fmt: skip
    "conv2d_dilation": (
        lambda L, x, w: F(L).conv2d(x, w, dilation=(2, 1), padding=1),
        R(2, 2, 7, 6),
        R(3, 2, 2, 3),
    ),  # fmt: skip
    "conv2d_groups": (
        lambda L, x, w, b: F(L).conv2d(x, w, b, groups=2, stride=2),
        R(2, 4, 7, 7),
        R(6, 2, 3, 3),
        R(6),
    ),  # fmt: skip
    "conv2d_depthwise": (
        lambda L, x, w: F(L).conv2d(x, w, groups=3, padding=1),
        R(2, 3, 5, 4),
        R(3, 1, 3, 3),
    ),
    "conv2d_same_even": (
        lambda L, x, w, b: F(L).conv2d(x, w, b, padding="same"),
        R(2, 3, 5, 6),
        R(4, 3, 2, 4),
        R(4),
    ),  # fmt: skip
    "conv2d_same_odd": (
        lambda L, x, w: F(L).conv2d(x, w, padding="same"),
        R(1, 3, 5, 6),
        R(2, 3, 3, 5),
    ),
    "conv2d_unbatched": (lambda L, x, w: F(L).conv2d(x, w, stride=2), R(3, 7, 6), R(2, 3, 3, 3)),
    "conv2d_1x1": (lambda L, x, w: F(L).conv2d(x, w), R(3, 4, 3, 2), R(5, 4, 1, 1)),
    "conv2d_kernel_is_input": (lambda L, x, w: F(L).conv2d(x, w), R(2, 2, 3, 4), R(3, 2, 3, 4)),
    # rows of 32 outputs or more: worked in x's own layout (short rows go batch last)
    "conv1d_long_rows": (
        lambda L, x, w, b: F(L).conv1d(x, w, b, padding=1),
        R(2, 3, 36),
        R(4, 3, 3),
        R(4),
    ),
    "conv2d_long_rows_groups": (
        lambda L, x, w: F(L).conv2d(x, w, groups=2, dilation=(1, 2), padding=(1, 0)),
        R(1, 4, 3, 38),
        R(4, 2, 2, 3),
    ),  # fmt: skip
    "conv_transpose1d_long_rows": (
        lambda L, x, w: F(L).conv_transpose1d(x, w, stride=2, padding=1),
        R(2, 3, 33),
        R(3, 2, 3),
    ),
    # conv3d
    "conv3d": (lambda L, x, w, b: F(L).conv3d(x, w, b), R(2, 2, 4, 5, 4), R(3, 2, 2, 3, 2), R(3)),
    "conv3d_stride_groups": (
        lambda L, x, w: F(L).conv3d(x, w, stride=(1, 2, 2), padding=1, groups=2),
        R(1, 4, 4, 5, 5),
        R(4, 2, 3, 3, 3),
    ),  # fmt: skip
    # transposed
    "conv_transpose1d": (
        lambda L, x, w, b: F(L).conv_transpose1d(x, w, b, stride=2, padding=1, output_padding=1),
        R(2, 3, 5),
        R(3, 4, 3),
        R(4),
    ),  # fmt: skip
    "conv_transpose1d_dilation": (
        lambda L, x, w: F(L).conv_transpose1d(x, w, dilation=3, output_padding=2),
        R(2, 2, 4),
        R(2, 3, 3),
    ),  # fmt: skip
    "conv_transpose2d": (
        lambda L, x, w, b: F(L).conv_transpose2d(x, w, b),
        R(2, 3, 4, 5),
        R(3, 2, 3, 2),
        R(2),
    ),
    "conv_transpose2d_stride_groups": (
        lambda L, x, w, b: F(L).conv_transpose2d(
            x, w, b, stride=(2, 3), padding=(1, 0), output_padding=(1, 2), groups=2, dilation=2
        ),
        R(2, 4, 3, 4),
        R(4, 3, 2, 3),
        R(6),
    ),  # fmt: skip
    "conv_transpose2d_unbatched": (
        lambda L, x, w: F(L).conv_transpose2d(x, w, stride=2),
        R(2, 3, 3),
        R(2, 3, 2, 2),
    ),
    "conv_transpose3d": (
        lambda L, x, w: F(L).conv_transpose3d(x, w, stride=2, padding=1, output_padding=1),
        R(1, 2, 3, 2, 3),
        R(2, 2, 2, 3, 2),
    ),  # fmt: skip
    # torch-level names
    "torch.conv2d": (
        lambda L, x, w, b: L.conv2d(x, w, b, 1, 1),
        R(2, 2, 4, 4),
        R(3, 2, 3, 3),
        R(3),
    ),
    "torch.convolution": (
        lambda L, x, w, b: L.convolution(x, w, b, [2, 1], [0, 1], [1, 1], True, [1, 0], 1),
        R(2, 3, 3, 4),
        R(3, 2, 2, 2),
        R(2),
    ),  # fmt: skip
    "torch.conv_transpose1d": (
        lambda L, x, w: L.conv_transpose1d(x, w, None, 2),
        R(2, 2, 4),
        R(2, 3, 3),
    ),
    # im2col, col2im
    "unfold": (
        lambda L, x: F(L).unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
        R(2, 3, 5, 6),
    ),  # fmt: skip
    "unfold_unbatched": (lambda L, x: F(L).unfold(x, 2), R(2, 4, 3)),
    "fold": (
        lambda L, x: F(L).fold(x, (5, 6), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
        R(2, 18, 12),
    ),  # fmt: skip
    "fold_overlapping": (lambda L, x: F(L).fold(x, 4, 2), R(3 * 4, 9)),
}

# float64 finite differences and second derivatives: a case of each kind
SECOND_ORDER = [
    "conv1d_stride_pad_dil",
    "conv1d_same_even",
    "conv1d_long_rows",
    "conv2d_long_rows_groups",
    "conv_transpose1d_long_rows",
    "conv2d",
    "conv2d_groups",
    "conv2d_depthwise",
    "conv3d_stride_groups",
    "conv_transpose1d_dilation",
    "conv_transpose2d_stride_groups",
    "conv_transpose3d",
    "unfold",
    "fold",
]


def _quiet(fn):
    """padding='same' with an even kernel warns, in both libraries alike."""

    def run(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return fn(*args)

    return run


test_convolutions_match_torch = cases.index_matches_torch(
    {name: (_quiet(fn), *inputs) for name, (fn, *inputs) in CONV.items()}
)
test_convolution_finite_differences = cases.index_finite_differences(
    {name: (_quiet(fn), *inputs) for name, (fn, *inputs) in CONV.items()}, SECOND_ORDER
)
test_convolution_second_derivatives = cases.index_second_derivatives(
    {name: (_quiet(fn), *inputs) for name, (fn, *inputs) in CONV.items()}, SECOND_ORDER
)


def test_same_padding_warns_for_an_even_kernel():
    x, w = cr.tensor(R(1, 2, 6)), cr.tensor(R(2, 2, 4))
    with pytest.warns(UserWarning, match="padding='same' with even kernel lengths"):
        y = F(cr).conv1d(x, w, padding="same")
    assert y.shape == (1, 2, 6)
    assert y.grad_fn is None
    xg = x.requires_grad_()
    with pytest.warns(UserWarning):
        y = F(cr).conv1d(xg, w, padding="same")
    # the input is padded on the right first, as PyTorch does
    assert y.grad_fn.next_functions[0][0].name() == "ConstantPadNdBackward0"


def test_empty_batch_and_integer_inputs():
    same_node(check(lambda L, x, w: F(L).conv2d(x, w), R(0, 2, 4, 4), R(3, 2, 2, 2)))
    ints = np.arange(2 * 2 * 4 * 4).reshape(2, 2, 4, 4) % 5
    weights = np.arange(3 * 2 * 2 * 2).reshape(3, 2, 2, 2) % 3 - 1
    check(lambda L, x, w: F(L).conv2d(x, w, padding=1), ints, weights)


@pytest.mark.parametrize(
    "shapes",
    [
        ((40, 1, 12, 12), (2, 1, 3, 3), 1),  # rows of 10: batch last
        ((2, 2, 50, 50), (4, 1, 3, 3), 2),  # rows of 48: x's own layout, groups
    ],
)
def test_weight_gradient_over_a_long_contraction(shapes):
    """More than 2048 batch positions: the weight's gradient is summed slice by slice
    (``windows._product_nt``), and matches PyTorch's in float64."""
    x_shape, w_shape, groups = shapes
    fn = lambda L, x, w: F(L).conv2d(x, w, groups=groups)  # noqa: E731
    # forward=False: the tangents are convolutions, not the sliced weight product pinned here
    same_node(check(fn, R(*x_shape), R(*w_shape), forward=False))


STRIDE_ONE = [
    ((2, 3, 6, 5), (4, 3, 3, 2), {}),
    ((2, 4, 7, 6), (6, 2, 2, 3), {"groups": 2, "dilation": (2, 1), "padding": 1}),
    ((1, 2, 4, 5, 4), (3, 2, 2, 3, 2), {"padding": (1, 0, 1)}),
    ((0, 2, 5, 5), (3, 2, 2, 2), {}),
    ((3, 6, 12, 12), (16, 6, 5, 5), {}),  # LeNet's second convolution
    ((2, 3, 8, 7), (4, 3, 3, 3), {"dilation": (2, 1), "padding": (2, 0)}),
    ((2, 3, 8, 7), (4, 3, 3, 3), {"dilation": (1, 2)}),  # the last dim dilated: tap by tap
    ((2, 3, 9), (4, 3, 3), {"padding": 1}),
    ((1, 2, 6, 6), (64, 2, 3, 3), {}),  # many filters: tap by tap
]


@pytest.mark.parametrize("case", STRIDE_ONE)
@pytest.mark.parametrize("path", ["general", "tap_by_tap"])
def test_stride_one_input_gradient_is_the_general_path(case, path, monkeypatch):
    """At stride 1 with short rows, the input's gradient adds each tap's products in one
    shifted run: position major with the last dim's taps in the product
    (``windows._correlate_transpose_rows``: no groups, the last dim undilated, under
    ``_POSITION_FILTERS`` filters), else batch last tap by tap
    (``windows._correlate_transpose_wide``). Each gives the same values as the other and as
    the general col2im (taken by sending every row down the long-row path)."""
    x_shape, w_shape, kwargs = case
    conv = {3: F(cr).conv1d, 4: F(cr).conv2d, 5: F(cr).conv3d}[len(x_shape)]

    def input_grad():
        x = cr.tensor(R(*x_shape), requires_grad=True)
        conv(x, cr.tensor(R(*w_shape)), **kwargs).sum().backward()
        return x.grad.cpu().numpy()

    fast = input_grad()
    if path == "general":
        monkeypatch.setattr(windows, "_SHORT_ROW_BACKWARD", 0)
    else:
        monkeypatch.setattr(windows, "_POSITION_FILTERS", 0)
    np.testing.assert_allclose(fast, input_grad(), rtol=1e-12, atol=1e-12)


BIG_BATCH = {
    "lenet_conv2": ((64, 6, 12, 12), (16, 6, 5, 5), {}),
    "groups_stride_padding": (
        (64, 4, 7, 6),
        (6, 2, 3, 2),
        {"groups": 2, "stride": (2, 1), "padding": 1, "dilation": (1, 2)},
    ),
    "conv1d": ((64, 3, 9), (4, 3, 3), {"padding": 2}),
    "conv3d": ((64, 2, 4, 5, 4), (3, 2, 2, 3, 2), {"padding": (1, 0, 1)}),
}


@pytest.mark.parametrize("case", list(BIG_BATCH.values()), ids=list(BIG_BATCH))
def test_position_major_forward_is_the_general_path(case, monkeypatch):
    """A batch of at least ``_POSITION_BATCH`` with few filters and short rows: the forward
    is one product per output position, position major (``windows._windows_position_major``).
    Output, gradients (the input's gradient is a convolution too) and node names are
    PyTorch's, and the values are those of the batch-last and the long-row paths."""
    x_shape, w_shape, kwargs = case
    monkeypatch.setattr(windows, "_ROW_COLUMNS", 10**9)  # (2-d: not row major)
    conv = {3: F(cr).conv1d, 4: F(cr).conv2d, 5: F(cr).conv3d}[len(x_shape)]
    fn = lambda L, x, w, b: getattr(F(L), conv.__name__)(x, w, b, **kwargs)  # noqa: E731
    same_node(check(fn, R(*x_shape), R(*w_shape), R(w_shape[0])))

    def run():
        x = cr.tensor(R(*x_shape), requires_grad=True)
        w = cr.tensor(R(*w_shape), requires_grad=True)
        y = conv(x, w, **kwargs)
        (y * cr.tensor(R(*y.shape, seed=1))).sum().backward()
        return y.detach().cpu().numpy(), x.grad.cpu().numpy(), w.grad.cpu().numpy()

    fast = run()
    for name, value in (("_POSITION_BATCH", 10**9), ("_SHORT_ROW", 0)):  # batch last, long rows
        monkeypatch.setattr(windows, name, value)
        for got, want in zip(fast, run(), strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


FEW_FILTERS = {
    "lenet_conv1": ((3, 1, 28, 28), (6, 1, 5, 5), {}),
    "padding_dilation": ((2, 3, 14, 13), (4, 3, 3, 2), {"padding": 1, "dilation": (2, 1)}),
    "stride_along_rows": ((2, 2, 12, 30), (5, 2, 2, 3), {"stride": (1, 2), "padding": (0, 1)}),
    # (columns that read only padding, at both ends: windows._laid_rows' zeros)
    "padding_past_the_taps": (
        (2, 2, 6, 40),
        (3, 2, 2, 3),
        {"stride": (1, 3), "padding": (1, 4), "dilation": (1, 2)},
    ),
}


def _weight_grad(x_shape: tuple, w_shape: tuple, kwargs: dict) -> np.ndarray:
    """conv2d's weight gradient for a fixed upstream gradient, by whichever path applies."""
    w = cr.tensor(R(*w_shape), requires_grad=True)
    y = F(cr).conv2d(cr.tensor(R(*x_shape)), w, **kwargs)
    (y * cr.tensor(R(*y.shape, seed=1))).sum().backward()
    return w.grad.cpu().numpy()


@pytest.mark.parametrize("case", list(FEW_FILTERS.values()), ids=list(FEW_FILTERS))
def test_few_filters_weight_gradient_is_the_general_path(case, monkeypatch):
    """With long rows, at most ``_FEW_FILTERS`` filters and stride 1 down the rows, the
    2-d weight gradient copies x's windows along the last dim only and reads each row of
    taps as a shifted block (``windows._correlate_weight_rows``): PyTorch's gradients and
    node, and the values of the general path."""
    x_shape, w_shape, kwargs = case
    fn = lambda L, x, w: F(L).conv2d(x, w, **kwargs)  # noqa: E731
    same_node(check(fn, R(*x_shape), R(*w_shape)))

    fast = _weight_grad(x_shape, w_shape, kwargs)
    monkeypatch.setattr(windows, "_FEW_FILTERS", 0)
    np.testing.assert_allclose(fast, _weight_grad(x_shape, w_shape, kwargs), rtol=1e-12, atol=1e-12)


ROW_MAJOR = {
    "lenet_conv1": ((3, 1, 28, 28), (6, 1, 5, 5), {}),
    "lenet_conv2": ((3, 6, 12, 12), (16, 6, 5, 5), {}),  # short rows
    "stride_padding": ((2, 3, 15, 30), (4, 3, 3, 2), {"stride": (1, 2), "padding": (1, 2)}),
    "dilated_along_rows": ((1, 2, 9, 20), (3, 2, 2, 3), {"dilation": (1, 2), "padding": 1}),
    "padding_past_the_taps": (
        (2, 2, 6, 40),
        (3, 2, 2, 3),
        {"stride": (1, 3), "padding": (1, 4), "dilation": (1, 2)},
    ),
}


@pytest.mark.parametrize("case", list(ROW_MAJOR.values()), ids=list(ROW_MAJOR))
def test_row_major_forward_is_the_general_path(case, monkeypatch):
    """A 2-d forward without groups, undilated down the rows, with at least
    ``_ROWS_PER_FILTER`` window rows per filter and ``_ROW_COLUMNS`` columns per output row
    (here any) is one product per output row on x's windows along the last dim
    (``windows._correlate_rows``): PyTorch's values, gradients and node, and the values of
    the other paths, bias included."""
    x_shape, w_shape, kwargs = case
    monkeypatch.setattr(windows, "_ROW_COLUMNS", 0)
    fn = lambda L, x, w, b: F(L).conv2d(x, w, b, **kwargs)  # noqa: E731
    same_node(check(fn, R(*x_shape), R(*w_shape), R(w_shape[0])))
    x, w, b = (cr.tensor(R(*x_shape)), cr.tensor(R(*w_shape)), cr.tensor(R(w_shape[0])))
    fast = F(cr).conv2d(x, w, b, **kwargs).cpu().numpy()
    monkeypatch.setattr(windows, "_ROWS_PER_FILTER", 10**9)
    general = F(cr).conv2d(x, w, b, **kwargs).cpu().numpy()
    np.testing.assert_allclose(fast, general, rtol=1e-12, atol=1e-12)


SHORT_ROW_WEIGHT = {
    "lenet_conv2": ((3, 6, 12, 12), (16, 6, 5, 5), {}),
    "groups_dilation": (
        (2, 4, 9, 8),
        (6, 2, 2, 3),
        {"groups": 2, "dilation": (2, 1), "padding": 1},
    ),
    "stride_along_rows": ((2, 3, 7, 12), (4, 3, 3, 2), {"stride": (1, 2), "padding": (1, 0)}),
}


@pytest.mark.parametrize("case", list(SHORT_ROW_WEIGHT.values()), ids=list(SHORT_ROW_WEIGHT))
def test_short_row_weight_gradient_is_the_general_path(case, monkeypatch):
    """With short rows, stride 1 down the rows and at most ``_FEW_FILTERS`` filters (and a
    batch of ``_ROW_COLUMNS`` columns per row, here any), the 2-d weight gradient copies x's
    windows along the last dim only, batch last, and reads each row of taps as a shifted run of
    columns (``windows._correlate_weight_rows_batch_last``): PyTorch's gradients and node,
    and the values of the general long-row path."""
    x_shape, w_shape, kwargs = case
    monkeypatch.setattr(windows, "_ROW_COLUMNS", 0)  # (any batch)
    fn = lambda L, x, w: F(L).conv2d(x, w, **kwargs)  # noqa: E731
    same_node(check(fn, R(*x_shape), R(*w_shape)))

    fast = _weight_grad(x_shape, w_shape, kwargs)
    monkeypatch.setattr(windows, "_SHORT_ROW", 0)
    monkeypatch.setattr(windows, "_FEW_FILTERS", 0)  # (x's own layout, all the windows)
    np.testing.assert_allclose(fast, _weight_grad(x_shape, w_shape, kwargs), rtol=1e-12, atol=1e-12)


def test_double_backward_node_name():
    """The weight's gradient, taken with create_graph, is PyTorch's ConvolutionBackwardBackward0."""
    x = cr.tensor(R(2, 3, 5, 5), requires_grad=True)
    w = cr.tensor(R(4, 3, 3, 3), requires_grad=True)
    y = F(cr).conv2d(x, w)
    _, gw = cr.autograd.grad(y, (x, w), cr.ones_like(y), create_graph=True)
    assert gw.grad_fn.name() == "ConvolutionBackwardBackward0"


# ----- errors: name -> (fn, [inputs]), the same type and message as PyTorch -----------------

X4 = np.zeros((2, 3, 8, 8))
W4 = np.zeros((4, 3, 3, 3))

ERRORS = {
    "input_rank": (lambda L, x, w: F(L).conv2d(x, w), [np.zeros((3, 8)), W4]),
    "input_rank_5d": (lambda L, x, w: F(L).conv2d(x, w), [np.zeros((1, 2, 3, 8, 8)), W4]),
    "channels": (lambda L, x, w: F(L).conv2d(x, w), [np.zeros((2, 5, 8, 8)), W4]),
    "channels_unbatched": (lambda L, x, w: F(L).conv2d(x, w), [np.zeros((5, 8, 8)), W4]),
    "weight_rank": (lambda L, x, w: F(L).conv2d(x, w), [X4, np.zeros((4, 3, 3))]),
    "weight_too_small": (
        lambda L, x, w: F(L).conv1d(x, w),
        [np.zeros((2, 3, 8)), np.zeros((4, 3))],
    ),
    "kernel_too_big": (lambda L, x, w: F(L).conv2d(x, w), [X4, np.zeros((4, 3, 9, 9))]),
    "kernel_too_big_dilated": (
        lambda L, x, w: F(L).conv2d(x, w, dilation=4),
        [X4, np.zeros((4, 3, 3, 3))],
    ),
    "groups_channels": (lambda L, x, w: F(L).conv2d(x, w, groups=2), [X4, np.zeros((4, 1, 3, 3))]),
    "groups_weight": (
        lambda L, x, w: F(L).conv2d(x, w, groups=2),
        [np.zeros((2, 4, 8, 8)), np.zeros((3, 2, 3, 3))],
    ),
    "groups_zero": (lambda L, x, w: F(L).conv2d(x, w, groups=0), [X4, W4]),
    "negative_padding": (lambda L, x, w: F(L).conv2d(x, w, padding=-1), [X4, W4]),
    "zero_stride": (lambda L, x, w: F(L).conv2d(x, w, stride=0), [X4, W4]),
    "zero_dilation": (lambda L, x, w: F(L).conv2d(x, w, dilation=0), [X4, W4]),
    "padding_string": (lambda L, x, w: F(L).conv2d(x, w, padding="full"), [X4, W4]),
    "same_strided": (lambda L, x, w: F(L).conv2d(x, w, padding="same", stride=2), [X4, W4]),
    "padding_length": (lambda L, x, w: F(L).conv2d(x, w, padding=(1, 1, 1)), [X4, W4]),
    "stride_length": (lambda L, x, w: F(L).conv2d(x, w, stride=[1, 1, 1]), [X4, W4]),
    "dtypes": (lambda L, x, w: F(L).conv2d(x.double(), w.float()), [X4, W4]),
    "bias_dtype": (lambda L, x, w, b: F(L).conv2d(x, w, b), [X4, W4, np.zeros(4, np.float32)]),
    "bias_size": (lambda L, x, w, b: F(L).conv2d(x, w, b), [X4, W4, np.zeros(5)]),
    "transposed_channels": (
        lambda L, x, w: F(L).conv_transpose2d(x, w),
        [X4, np.zeros((4, 4, 3, 3))],
    ),
    "transposed_groups": (
        lambda L, x, w: F(L).conv_transpose2d(x, w, groups=2),
        [X4, np.zeros((3, 4, 3, 3))],
    ),
    "transposed_output_padding": (
        lambda L, x, w: F(L).conv_transpose2d(x, w, stride=2, output_padding=2),
        [X4, np.zeros((3, 4, 3, 3))],
    ),
    "transposed_too_small": (
        lambda L, x, w: F(L).conv_transpose2d(x, w, padding=2),
        [np.zeros((1, 3, 1, 1)), np.zeros((3, 4, 1, 1))],
    ),
    "transposed_bias": (
        lambda L, x, w, b: F(L).conv_transpose2d(x, w, b),
        [X4, np.zeros((3, 4, 3, 3)), np.zeros(3)],
    ),
    "unfold_5d": (lambda L, x: F(L).unfold(x, 2), [np.zeros((1, 2, 3, 4, 5))]),
    "unfold_2d": (lambda L, x: F(L).unfold(x, 2), [np.zeros((4, 5))]),
    "unfold_too_big": (lambda L, x: F(L).unfold(x, 9), [X4]),
    "fold_channels": (lambda L, x: F(L).fold(x, (4, 4), 2), [np.zeros((2, 7, 9))]),
    "fold_blocks": (lambda L, x: F(L).fold(x, (4, 4), 2), [np.zeros((2, 12, 10))]),
}

test_errors_match_torch = cases.same_errors_as_torch(ERRORS)


LONG_ROWS = {  # (at least 16 input channels, half the filters' or more)
    "same_3x3": ((2, 16, 3, 33), (8, 16, 3, 3), {"padding": 1}),
    "groups_5x5": ((1, 16, 3, 40), (8, 8, 5, 5), {"padding": 2, "groups": 2}),
    "dilated": ((1, 16, 5, 35), (6, 16, 3, 3), {"padding": 2, "dilation": 2}),
    "no_padding": ((2, 16, 3, 36), (3, 16, 2, 3), {}),
}


@pytest.mark.parametrize("case", list(LONG_ROWS.values()), ids=list(LONG_ROWS))
def test_long_row_input_gradient_runs_as_the_forward(case, monkeypatch):
    """An unstrided 2-d input gradient (a transposed convolution) with rows of at least
    ``_SHORT_ROW_BACKWARD`` and enough input channels runs as the forward convolution of g by
    the mirrored kernel, padded by d·(k - 1) - p (``windows._as_forward``): PyTorch's
    gradients and node, and the values of the transpose's own path; with 3 input channels
    it keeps its own path."""
    x_shape, w_shape, kwargs = case
    calls = []
    flipped = windows._flipped
    monkeypatch.setattr(windows, "_flipped", lambda *a: calls.append(1) or flipped(*a))
    fn = lambda L, x, w: F(L).conv2d(x, w, **kwargs)  # noqa: E731
    same_node(check(fn, R(*x_shape), R(*w_shape)))
    assert calls

    def input_grad():
        x, w = cr.tensor(R(*x_shape), requires_grad=True), cr.tensor(R(*w_shape))
        F(cr).conv2d(x, w, **kwargs).sum().backward()
        return x.grad.numpy()

    fast = input_grad()
    monkeypatch.setattr(windows, "_as_forward", lambda *args: False)
    np.testing.assert_allclose(fast, input_grad(), rtol=1e-12, atol=1e-12)


def test_few_input_channels_keep_the_transposes_path():
    w = np.zeros((32, 3, 3, 3))
    y = np.zeros((1, 32, 2, 64))
    assert not windows._as_forward(y, w, 1, (1, 1), (1, 1), (1, 1), (0, 0))
    assert windows._as_forward(y, np.zeros((32, 16, 3, 3)), 1, (1, 1), (1, 1), (1, 1), (0, 0))
