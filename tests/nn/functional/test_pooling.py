"""Pooling against PyTorch: F.max_pool1d/2d/3d (kernel_size, stride, padding, dilation,
ceil_mode, return_indices), F.avg_pool1d/2d/3d (ceil_mode, count_include_pad,
divisor_override), F.adaptive_avg_pool1d/2d/3d, F.adaptive_max_pool1d/2d/3d (with
indices), F.max_unpool1d/2d/3d and F.lp_pool1d/2d: values, indices, dtypes, gradients,
forward-mode tangents and node names in float32 and float64; finite differences and
second derivatives in float64; ties and nan as PyTorch (the gradient goes to the index
returned); PyTorch's errors.

Max pooling's inputs are tie-free (``distinct``) where gradients are compared, except in
the tie tests, whose integer-valued inputs make every window tie.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import cases
import chainrule as cr
from oracle import assert_close, check, distinct, randn, same_bits_as_replaced, same_node


def F(lib):
    return lib.nn.functional


def D(*shape, seed=0):
    """Tie-free values (max pooling's gradient is then defined)."""
    return distinct(shape, seed=seed + sum(shape)) * 0.3


def R(*shape, seed=0):
    return randn(shape, seed=seed + sum(shape))


# ----- max pooling: name -> (fn, *inputs) -----------------------------------------------------

MAX = {
    "max_pool1d": (lambda L, x: F(L).max_pool1d(x, 2), D(2, 3, 7)),
    "max_pool1d_options": (
        lambda L, x: F(L).max_pool1d(x, 3, stride=2, padding=1, dilation=2, ceil_mode=True),
        D(2, 3, 9),
    ),  # fmt: skip
    "max_pool1d_unbatched": (lambda L, x: F(L).max_pool1d(x, 3, 1), D(3, 6)),
    "max_pool2d": (lambda L, x: F(L).max_pool2d(x, 2), D(2, 3, 6, 7)),
    "max_pool2d_overlapping": (lambda L, x: F(L).max_pool2d(x, 3, 1, 1), D(2, 2, 5, 6)),
    "max_pool2d_rect": (
        lambda L, x: F(L).max_pool2d(x, (2, 3), (1, 2), (1, 1), (2, 1)),
        D(2, 3, 7, 8),
    ),
    "max_pool2d_ceil": (lambda L, x: F(L).max_pool2d(x, 3, 2, ceil_mode=True), D(1, 2, 8, 7)),
    "max_pool2d_ceil_padded": (
        lambda L, x: F(L).max_pool2d(x, 3, 2, 1, ceil_mode=True),
        D(2, 2, 6, 6),
    ),
    "max_pool2d_unbatched": (lambda L, x: F(L).max_pool2d(x, 2, 1), D(3, 4, 5)),
    "max_pool2d_values": (
        lambda L, x: F(L).max_pool2d(x, 2, return_indices=True)[0],
        D(2, 2, 4, 6),
    ),
    "max_pool2d_with_indices": (
        lambda L, x: F(L).max_pool2d_with_indices(x, 3, 2, 1)[0],
        D(1, 3, 7, 7),
    ),
    "max_pool3d": (lambda L, x: F(L).max_pool3d(x, 2), D(2, 2, 4, 5, 4)),
    "max_pool3d_options": (
        lambda L, x: F(L).max_pool3d(x, (2, 3, 2), 1, (1, 1, 0), ceil_mode=True),
        D(1, 2, 4, 5, 3),
    ),  # fmt: skip
    "torch.max_pool2d": (lambda L, x: L.max_pool2d(x, [2, 2], [1, 1]), D(2, 2, 5, 5)),
    "torch.max_pool1d_with_indices": (lambda L, x: L.max_pool1d_with_indices(x, 2)[0], D(2, 3, 6)),
    "adaptive_max_pool1d": (lambda L, x: F(L).adaptive_max_pool1d(x, 4), D(2, 3, 9)),
    "adaptive_max_pool2d": (lambda L, x: F(L).adaptive_max_pool2d(x, (3, 4)), D(2, 3, 7, 9)),
    "adaptive_max_pool2d_up": (lambda L, x: F(L).adaptive_max_pool2d(x, (5, 4)), D(2, 2, 3, 3)),
    "adaptive_max_pool2d_none": (
        lambda L, x: F(L).adaptive_max_pool2d(x, (None, 2)),
        D(2, 2, 3, 5),
    ),
    "adaptive_max_pool3d": (lambda L, x: F(L).adaptive_max_pool3d(x, 2), D(1, 2, 3, 5, 4)),
    "torch.adaptive_max_pool1d": (lambda L, x: L.adaptive_max_pool1d(x, 3)[0], D(2, 2, 7)),
}

# the indices max pooling returns: name -> (fn returning (values, indices), input)
INDICES = {
    "max_pool1d": (lambda L, x: F(L).max_pool1d(x, 3, 2, 1, return_indices=True), D(2, 3, 8)),
    "max_pool2d": (
        lambda L, x: F(L).max_pool2d(x, 3, 2, 1, ceil_mode=True, return_indices=True),
        D(2, 2, 7, 6),
    ),  # fmt: skip
    "max_pool2d_dilated": (
        lambda L, x: F(L).max_pool2d(x, 2, 1, 1, 2, return_indices=True),
        D(1, 2, 5, 6),
    ),
    "max_pool3d": (lambda L, x: F(L).max_pool3d(x, 2, 1, return_indices=True), D(1, 2, 3, 4, 3)),
    # the first maximum among T taps is m_0 (1 + m_1 (1 + ...)): one tap, two, four
    "max_pool2d_one_tap": (
        lambda L, x: F(L).max_pool2d(x, 1, 2, return_indices=True),
        D(1, 2, 5, 4),
    ),
    "max_pool1d_two_taps": (lambda L, x: F(L).max_pool1d(x, 2, return_indices=True), D(2, 3, 7)),
    "max_pool2d_lenet": (lambda L, x: F(L).max_pool2d(x, 2, return_indices=True), D(3, 4, 8, 8)),
    "adaptive_max_pool1d": (
        lambda L, x: F(L).adaptive_max_pool1d(x, 4, return_indices=True),
        D(2, 2, 9),
    ),
    "adaptive_max_pool2d": (
        lambda L, x: F(L).adaptive_max_pool2d(x, (3, 2), return_indices=True),
        D(2, 2, 7, 5),
    ),
    "adaptive_max_pool3d": (
        lambda L, x: F(L).adaptive_max_pool3d_with_indices(x, (2, 1, 3)),
        D(1, 2, 3, 4, 5),
    ),
}

# ----- average, power and unpooling: name -> (fn, *inputs) -------------------------------------

MEAN = {
    "avg_pool1d": (lambda L, x: F(L).avg_pool1d(x, 3), R(2, 3, 7)),
    "avg_pool1d_options": (
        lambda L, x: F(L).avg_pool1d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
        R(2, 3, 8),
    ),  # fmt: skip
    "avg_pool2d": (lambda L, x: F(L).avg_pool2d(x, 2), R(2, 3, 6, 5)),
    "avg_pool2d_padded": (lambda L, x: F(L).avg_pool2d(x, 3, 1, 1), R(2, 2, 5, 6)),
    "avg_pool2d_exclude_pad": (
        lambda L, x: F(L).avg_pool2d(x, (3, 2), 2, (1, 1), count_include_pad=False),
        R(2, 2, 7, 6),
    ),  # fmt: skip
    "avg_pool2d_ceil": (lambda L, x: F(L).avg_pool2d(x, 3, 2, 1, ceil_mode=True), R(1, 2, 6, 7)),
    "avg_pool2d_ceil_exclude_pad": (
        lambda L, x: F(L).avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
        R(1, 2, 6, 7),
    ),  # fmt: skip
    "avg_pool2d_divisor": (
        lambda L, x: F(L).avg_pool2d(x, 2, 1, 1, divisor_override=3),
        R(2, 2, 4, 5),
    ),
    "avg_pool2d_unbatched": (lambda L, x: F(L).avg_pool2d(x, 2), R(3, 4, 6)),
    "avg_pool3d": (lambda L, x: F(L).avg_pool3d(x, 2, 1, 1), R(1, 2, 3, 4, 5)),
    "torch.avg_pool1d": (lambda L, x: L.avg_pool1d(x, 2, 1), R(2, 2, 5)),
    "adaptive_avg_pool1d": (lambda L, x: F(L).adaptive_avg_pool1d(x, 4), R(2, 3, 9)),
    "adaptive_avg_pool2d": (lambda L, x: F(L).adaptive_avg_pool2d(x, (3, 4)), R(2, 3, 7, 9)),
    "adaptive_avg_pool2d_up": (lambda L, x: F(L).adaptive_avg_pool2d(x, (5, 7)), R(2, 2, 3, 4)),
    "adaptive_avg_pool2d_global": (lambda L, x: F(L).adaptive_avg_pool2d(x, 1), R(2, 3, 4, 5)),
    "adaptive_avg_pool2d_unbatched": (lambda L, x: F(L).adaptive_avg_pool2d(x, 2), R(3, 5, 5)),
    "adaptive_avg_pool3d": (lambda L, x: F(L).adaptive_avg_pool3d(x, (2, 3, 1)), R(1, 2, 3, 5, 4)),
    "adaptive_avg_pool3d_global": (lambda L, x: F(L).adaptive_avg_pool3d(x, 1), R(2, 2, 2, 3, 2)),
    "torch.adaptive_avg_pool1d": (lambda L, x: L.adaptive_avg_pool1d(x, 1), R(2, 2, 5)),
    "lp_pool1d": (lambda L, x: F(L).lp_pool1d(x, 2, 3, 2), R(2, 3, 8)),
    "lp_pool2d": (lambda L, x: F(L).lp_pool2d(x, 2, 2), R(2, 2, 4, 6)),
    "lp_pool2d_p3": (lambda L, x: F(L).lp_pool2d(x, 3, (2, 3), 1), R(1, 2, 4, 5) ** 2 + 0.5),
    "lp_pool2d_inf": (lambda L, x: F(L).lp_pool2d(x, float("inf"), 2), D(2, 2, 4, 4)),
    "max_unpool1d": (
        lambda L, x: F(L).max_unpool1d(*F(L).max_pool1d(x, 2, return_indices=True), 2),
        D(2, 3, 8),
    ),  # fmt: skip
    "max_unpool2d": (
        lambda L, x: F(L).max_unpool2d(*F(L).max_pool2d(x, 2, return_indices=True), 2),
        D(2, 2, 4, 6),
    ),  # fmt: skip
    "max_unpool2d_output_size": (
        lambda L, x: F(L).max_unpool2d(
            *F(L).max_pool2d(x, 3, 2, 1, return_indices=True), 3, 2, 1, output_size=(5, 6)
        ),
        D(1, 2, 5, 6),
    ),  # fmt: skip
    "max_unpool3d": (
        lambda L, x: F(L).max_unpool3d(*F(L).max_pool3d(x, 2, return_indices=True), 2),
        D(1, 2, 4, 4, 2),
    ),  # fmt: skip
}

# float64 finite differences and second derivatives: a case of each kind
SECOND_ORDER = [
    "max_pool1d_options",
    "max_pool2d_overlapping",
    "max_pool2d_ceil_padded",
    "max_pool3d",
    "adaptive_max_pool2d",
    "avg_pool1d_options",
    "avg_pool2d_ceil_exclude_pad",
    "avg_pool2d_divisor",
    "avg_pool3d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "lp_pool2d",
    "max_unpool2d",  # (with repeated indices PyTorch's gradient is not the derivative)
]

ALL = {**MAX, **MEAN}

test_pooling_matches_torch = cases.index_matches_torch(ALL)
test_pooling_finite_differences = cases.index_finite_differences(ALL, SECOND_ORDER)
test_pooling_second_derivatives = cases.index_second_derivatives(ALL, SECOND_ORDER)


@pytest.mark.parametrize("name", list(INDICES))
def test_indices_match_torch(name):
    fn, x = INDICES[name]
    ours, theirs = fn(cr, cr.tensor(x)), fn(torch, torch.tensor(x))
    assert_close(ours, theirs, exact=True)


# ----- ties and nan: the gradient goes to the index returned ----------------------------------

TIES = {
    "max_pool2d": lambda L, x: F(L).max_pool2d(x, 2, return_indices=True),
    "max_pool2d_overlapping": lambda L, x: F(L).max_pool2d(x, 3, 1, 1, return_indices=True),
    "max_pool1d_padded": lambda L, x: F(L).max_pool1d(x[:, 0], 3, 2, 1, return_indices=True),
    "adaptive_max_pool2d": lambda L, x: F(L).adaptive_max_pool2d(x, (2, 3), return_indices=True),
}


@pytest.mark.parametrize("name", list(TIES))
def test_ties_take_the_first_maximum(name):
    """Integer-valued inputs: windows tie, and the index (and the gradient) is the first
    maximum in row-major order, as PyTorch's."""
    x = np.round(randn((2, 3, 6, 6), seed=3))
    result = check(lambda L, t: TIES[name](L, t)[0], x)
    ours = TIES[name](cr, cr.tensor(x))[1]
    theirs = TIES[name](torch, torch.tensor(x))[1]
    assert_close(ours, theirs, exact=True)
    same_node(result)


def test_ties_among_many_taps_take_the_first_maximum():
    """Rounded inputs with many ties, 1 to 9 taps a window: the index is PyTorch's."""
    x = np.round(randn((2, 3, 9, 8), seed=5) * 0.7)
    for kernel, stride in ((1, 1), (2, 2), (3, 3), (2, 1), (3, 2), ((1, 3), (1, 2))):
        ours = F(cr).max_pool2d(cr.tensor(x), kernel, stride, return_indices=True)
        theirs = F(torch).max_pool2d(torch.tensor(x), kernel, stride, return_indices=True)
        assert_close(ours, theirs, exact=True)


def test_nan_wins_and_its_last_index_is_returned():
    x = D(1, 1, 4, 4)
    x[0, 0, 0, 1] = x[0, 0, 1, 0] = np.nan  # two nans in the first window
    x[0, 0, 3, 3] = np.nan
    for fn in (
        lambda L, t: F(L).max_pool2d(t, 2, return_indices=True),
        lambda L, t: F(L).max_pool2d(t, 3, 1, 1, return_indices=True),
        lambda L, t: F(L).adaptive_max_pool2d(t, 3, return_indices=True),
    ):
        ours, theirs = fn(cr, cr.tensor(x)), fn(torch, torch.tensor(x))
        np.testing.assert_array_equal(ours[0].numpy(), theirs[0].numpy())
        assert_close(ours[1], theirs[1], exact=True)


def test_minus_infinity_windows_point_inside_the_input():
    """A window that is all -inf (with padding around it) returns its first element inside x."""
    x = np.full((1, 1, 3, 3), -np.inf)
    fn = lambda L, t: F(L).max_pool2d(t, 3, 2, 1, ceil_mode=True, return_indices=True)  # noqa: E731
    assert_close(fn(cr, cr.tensor(x)), fn(torch, torch.tensor(x)), exact=True)


def test_empty_batches():
    for fn in (
        lambda L, x: F(L).max_pool2d(x, 2),
        lambda L, x: F(L).avg_pool2d(x, 2),
        lambda L, x: F(L).adaptive_max_pool2d(x, 3),
        lambda L, x: F(L).max_unpool2d(*F(L).max_pool2d(x, 2, return_indices=True), 2),
    ):
        same_node(check(fn, np.zeros((0, 3, 4, 4))))


def test_integer_max_pooling():
    x = (np.arange(2 * 3 * 5 * 4).reshape(2, 3, 5, 4) * 7) % 11
    fn = lambda L, t: F(L).max_pool2d(t, 2, 1, 1, return_indices=True)  # noqa: E731
    assert_close(fn(cr, cr.tensor(x)), fn(torch, torch.tensor(x)), exact=True)


@pytest.mark.parametrize(
    "fn",
    [
        lambda L, t: F(L).avg_pool2d(t, 2, 1, 1),
        lambda L, t: F(L).avg_pool2d(t, 3, 2, 1, ceil_mode=True, count_include_pad=False),
        lambda L, t: F(L).avg_pool2d(t, (2, 3), 1, divisor_override=-2),
        lambda L, t: F(L).avg_pool1d(t[0], 3, 2),
        lambda L, t: F(L).avg_pool3d(t[None], (1, 2, 2)),
    ],
)
def test_integer_average_pooling_truncates(fn):
    """int64 windows: the integer sum over the divisor, truncated toward zero (PyTorch's)."""
    x = np.round(randn((2, 3, 5, 6), seed=5) * 7).astype(np.int64)
    assert_close(fn(cr, cr.tensor(x)), fn(torch, torch.tensor(x)), exact=True)


def test_unpooling_overlapping_indices():
    """With overlapping windows the indices repeat: unpooling writes each once, and its
    gradient reads each place for every repeat (PyTorch's formula)."""
    fn = lambda L, x: F(L).max_unpool2d(*F(L).max_pool2d(x, 3, 1, 1, return_indices=True), 3, 1, 1)  # noqa: E731
    same_node(check(fn, D(1, 2, 4, 4)))


# ----- errors: name -> (fn, [inputs]) ---------------------------------------------------------

X4 = np.zeros((2, 3, 8, 8))
X3 = np.zeros((2, 3, 8))

ERRORS = {
    "max_rank": (lambda L, x: F(L).max_pool2d(x, 2), [np.zeros((8, 8))]),
    "max_rank_5d": (lambda L, x: F(L).max_pool2d(x, 2), [np.zeros((1, 2, 3, 8, 8))]),
    "max_kernel_zero": (lambda L, x: F(L).max_pool2d(x, 0), [X4]),
    "max_kernel_zero_stride": (lambda L, x: F(L).max_pool2d(x, 0, 1), [X4]),
    "max_stride_zero": (lambda L, x: F(L).max_pool2d(x, 2, 0), [X4]),
    "max_pad_too_big": (lambda L, x: F(L).max_pool2d(x, 2, padding=2), [X4]),
    "max_pad_negative": (lambda L, x: F(L).max_pool2d(x, 2, padding=-1), [X4]),
    "max_dilation_zero": (lambda L, x: F(L).max_pool2d(x, 2, dilation=0), [X4]),
    "max_too_big": (lambda L, x: F(L).max_pool2d(x, 9), [X4]),
    "max_kernel_tuple": (lambda L, x: F(L).max_pool2d(x, (2, 2, 2)), [X4]),
    "max_zero_channels": (lambda L, x: F(L).max_pool2d(x, 2), [np.zeros((2, 0, 8, 8))]),
    "max_bool": (lambda L, x: F(L).max_pool2d(x > 0, 2), [X4]),
    "max1d_rank": (lambda L, x: F(L).max_pool1d(x, 2), [np.zeros((1, 3, 3, 8))]),
    "max1d_kernel_zero": (lambda L, x: F(L).max_pool1d(x, 0), [X3]),
    "max1d_pad": (lambda L, x: F(L).max_pool1d(x, 2, padding=2), [X3]),
    "max1d_too_big": (lambda L, x: F(L).max_pool1d(x, 9), [X3]),
    "max3d_rank": (lambda L, x: F(L).max_pool3d(x, 2), [X3]),
    "avg_rank": (lambda L, x: F(L).avg_pool2d(x, 2), [np.zeros((8, 8))]),
    "avg_pad_too_big": (lambda L, x: F(L).avg_pool2d(x, 2, padding=2), [X4]),
    "avg_divisor_zero": (lambda L, x: F(L).avg_pool2d(x, 2, divisor_override=0), [X4]),
    "avg_too_big": (lambda L, x: F(L).avg_pool2d(x, 9), [X4]),
    "avg_kernel_zero": (lambda L, x: F(L).avg_pool2d(x, 0), [X4]),
    "avg_int32": (lambda L, x: F(L).avg_pool2d(x.int(), 2), [X4]),
    "avg1d_rank": (lambda L, x: F(L).avg_pool1d(x, 2), [np.zeros((1, 3, 3, 8))]),
    "avg1d_too_big": (lambda L, x: F(L).avg_pool1d(x, 9), [np.zeros((3, 8))]),
    "adaptive_avg_negative": (lambda L, x: F(L).adaptive_avg_pool2d(x, -1), [X4]),
    "adaptive_avg_size": (lambda L, x: F(L).adaptive_avg_pool2d(x, (1, 2, 3)), [X4]),
    "adaptive_avg_rank": (lambda L, x: F(L).adaptive_avg_pool2d(x, 2), [np.zeros((8, 8))]),
    "adaptive_avg_empty": (lambda L, x: F(L).adaptive_avg_pool2d(x, 2), [np.zeros((2, 3, 0, 4))]),
    "adaptive_avg_long": (
        lambda L, x: F(L).adaptive_avg_pool2d(x, 2),
        [np.zeros((2, 3, 4, 4), np.int64)],
    ),
    "adaptive_max_rank": (lambda L, x: F(L).adaptive_max_pool2d(x, 2), [np.zeros((8, 8))]),
    "adaptive_avg1d_rank": (lambda L, x: F(L).adaptive_avg_pool1d(x, 3), [np.zeros((2, 8, 8, 8))]),
    "adaptive_max1d_rank": (lambda L, x: F(L).adaptive_max_pool1d(x, 3), [np.zeros((2, 8, 8, 8))]),
    "unpool_indices_dtype": (
        lambda L, x, i: F(L).max_unpool2d(x, i.int(), 2),
        [np.zeros((1, 1, 2, 2)), np.zeros((1, 1, 2, 2), np.int64)],
    ),
    "unpool_shapes": (
        lambda L, x, i: F(L).max_unpool2d(x, i, 2),
        [np.zeros((1, 1, 2, 2)), np.zeros((1, 1, 2, 3), np.int64)],
    ),
    "unpool_index_range": (
        lambda L, x, i: F(L).max_unpool2d(x, i, 2),
        [np.zeros((1, 1, 2, 2)), np.full((1, 1, 2, 2), 16, np.int64)],
    ),
    "unpool_output_size": (
        lambda L, x, i: F(L).max_unpool2d(x, i, 2, output_size=(9, 9)),
        [np.zeros((1, 1, 2, 2)), np.zeros((1, 1, 2, 2), np.int64)],
    ),
}

test_errors_match_torch = cases.same_errors_as_torch(ERRORS)


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize(
    "case",
    [
        lambda L, x: F(L).avg_pool2d(x, 2),
        lambda L, x: F(L).avg_pool2d(x, (3, 2)),
        lambda L, x: F(L).avg_pool2d(x, 2, divisor_override=3),
        lambda L, x: F(L).adaptive_avg_pool2d(x, (3, 1)),
        lambda L, x: F(L).avg_pool1d(x.flatten(2), 4),
    ],
    ids=["2x2", "3x2_uneven", "divisor", "adaptive", "1d"],
)
def test_block_pooling_is_the_gather_paths_bits(monkeypatch, case, dt):
    """Windows that are the input's consecutive blocks (kernel = stride, from the start)
    are read as strided views and written back by slices (windows._block_size): the values
    and gradients of the gathers and sums they replace, bit for bit."""
    from chainrule.ops import windows

    x = np.random.default_rng(4).standard_normal((2, 3, 7, 6)).astype(dt)
    same_bits_as_replaced(monkeypatch, windows, "_block_size", lambda index, n: 0, case, x)
