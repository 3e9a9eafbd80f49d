"""Resampling against PyTorch: F.interpolate in every mode (nearest, nearest-exact,
linear, bilinear, bicubic, trilinear, area, antialiased bilinear, bicubic and lanczos; size
or scale_factor, align_corners, recompute_scale_factor), the deprecated F.upsample*, F.pixel_shuffle,
F.pixel_unshuffle, F.channel_shuffle, F.grid_sample (bilinear, nearest and bicubic, 4-D and 5-D,
padding_mode zeros, border and reflection, align_corners) and F.affine_grid: values,
dtypes, gradients, forward-mode tangents and node names in float32 and float64; finite
differences and second derivatives in float64; PyTorch's errors.

PyTorch has no forward mode for grid_sample (oracle.KNOWN_TORCH_FORWARD_GAPS): its
tangents are checked against finite differences here.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import cases
import chainrule as cr
from oracle import assert_same_error, check, randn, same_bits_as_replaced, same_node, tangent


def F(lib):
    return lib.nn.functional


def R(*shape, seed=0):
    return randn(shape, seed=seed + sum(shape))


def U(*shape, low=-1.3, high=1.3, seed=0):
    """Grid points, a little past [-1, 1] on both sides (padding_mode matters there)."""
    return np.random.default_rng(seed + sum(shape)).uniform(low, high, shape)


def interp(**kw):
    return lambda L, x: F(L).interpolate(x, **kw)


RESAMPLE = {
    # nearest
    "nearest_1d_double": (interp(scale_factor=2), R(2, 3, 5)),
    "nearest_1d_size": (interp(size=7), R(2, 3, 5)),
    "nearest_2d_fraction": (interp(scale_factor=1.7), R(2, 2, 5, 4)),
    "nearest_2d_down": (interp(size=(3, 2)), R(2, 2, 7, 5)),
    "nearest_3d": (interp(scale_factor=(2, 1.5, 0.5)), R(1, 2, 3, 4, 6)),
    "nearest_recompute": (interp(scale_factor=1.7, recompute_scale_factor=True), R(2, 2, 5, 4)),
    "nearest_exact_2d": (interp(scale_factor=1.7, mode="nearest-exact"), R(2, 2, 5, 4)),
    "nearest_exact_1d_down": (interp(size=3, mode="nearest-exact"), R(2, 3, 8)),
    "nearest_exact_3d": (interp(size=(4, 3, 5), mode="nearest-exact"), R(1, 2, 3, 4, 3)),
    # linear
    "linear": (interp(scale_factor=2, mode="linear"), R(2, 3, 5)),
    "linear_align": (interp(size=8, mode="linear", align_corners=True), R(2, 3, 5)),
    "linear_down": (interp(scale_factor=0.6, mode="linear"), R(2, 3, 9)),
    "bilinear": (interp(scale_factor=(1.5, 2.5), mode="bilinear"), R(2, 2, 4, 5)),
    "bilinear_align": (interp(size=(7, 3), mode="bilinear", align_corners=True), R(2, 2, 4, 5)),
    "bilinear_same_size": (interp(size=(4, 5), mode="bilinear"), R(1, 2, 4, 5)),
    "bilinear_double": (interp(scale_factor=2, mode="bilinear"), R(2, 3, 5, 4)),
    "linear_quadruple": (interp(scale_factor=4, mode="linear"), R(2, 3, 5)),
    "bilinear_recompute": (
        interp(scale_factor=1.7, mode="bilinear", recompute_scale_factor=True),
        R(1, 2, 4, 5),
    ),
    "trilinear": (interp(scale_factor=1.5, mode="trilinear"), R(1, 2, 3, 4, 3)),
    "trilinear_double": (interp(scale_factor=(2, 1, 2), mode="trilinear"), R(1, 2, 3, 4, 3)),
    "trilinear_align": (
        interp(size=(2, 5, 4), mode="trilinear", align_corners=True),
        R(1, 2, 3, 4, 3),
    ),
    "bicubic": (interp(scale_factor=2, mode="bicubic"), R(2, 2, 4, 5)),
    "bicubic_align": (interp(size=(6, 3), mode="bicubic", align_corners=True), R(1, 2, 4, 5)),
    "bicubic_down": (interp(scale_factor=0.6, mode="bicubic"), R(1, 2, 7, 6)),
    # antialiased (4-D only)
    "bilinear_antialias": (
        interp(scale_factor=0.4, mode="bilinear", antialias=True),
        R(1, 2, 9, 8),
    ),
    "bilinear_antialias_align": (
        interp(size=(3, 6), mode="bilinear", antialias=True, align_corners=True),
        R(2, 1, 8, 5),
    ),
    "bicubic_antialias": (interp(size=(4, 2), mode="bicubic", antialias=True), R(1, 2, 9, 7)),
    "bicubic_antialias_up": (
        interp(scale_factor=1.5, mode="bicubic", antialias=True, align_corners=True),
        R(1, 1, 4, 3),
    ),
    "lanczos": (interp(size=(3, 5), mode="lanczos", antialias=True), R(1, 2, 10, 4)),
    # area
    "area_1d": (interp(size=3, mode="area"), R(2, 3, 7)),
    "area_2d": (interp(scale_factor=0.5, mode="area"), R(2, 2, 6, 5)),
    "area_3d": (interp(size=(2, 3, 2), mode="area"), R(1, 2, 4, 5, 3)),
    # shuffles
    "pixel_shuffle": (lambda L, x: F(L).pixel_shuffle(x, 2), R(2, 8, 3, 4)),
    "pixel_shuffle_5d": (lambda L, x: F(L).pixel_shuffle(x, 3), R(2, 1, 9, 2, 2)),
    "pixel_unshuffle": (lambda L, x: F(L).pixel_unshuffle(x, 2), R(2, 3, 4, 6)),
    "torch.pixel_unshuffle": (lambda L, x: L.pixel_unshuffle(x, 3), R(1, 6, 3)),
    "channel_shuffle": (lambda L, x: F(L).channel_shuffle(x, 3), R(2, 6, 4)),
    "channel_shuffle_4d": (lambda L, x: F(L).channel_shuffle(x, 2), R(2, 4, 3, 2)),
    "torch.channel_shuffle": (lambda L, x: L.channel_shuffle(x, 4), R(1, 8, 2)),
    # affine_grid
    "affine_grid": (
        lambda L, t: F(L).affine_grid(t, (2, 3, 4, 5), align_corners=False),
        R(2, 2, 3),
    ),
    "affine_grid_align": (
        lambda L, t: F(L).affine_grid(t, [2, 1, 3, 2], align_corners=True),
        R(2, 2, 3),
    ),
    "affine_grid_3d": (
        lambda L, t: F(L).affine_grid(t, (1, 2, 3, 4, 2), align_corners=False),
        R(1, 3, 4),
    ),
    "torch.affine_grid_generator": (
        lambda L, t: L.affine_grid_generator(t, [2, 3, 3, 4], False),
        R(2, 2, 3),
    ),
}


def sample(mode="bilinear", padding_mode="zeros", align_corners=False):
    return lambda L, x, g: F(L).grid_sample(
        x, g, mode=mode, padding_mode=padding_mode, align_corners=align_corners
    )


GRID = {
    "bilinear_zeros": (sample(), R(2, 3, 5, 6), U(2, 4, 3, 2)),
    "bilinear_border": (sample(padding_mode="border"), R(2, 3, 5, 6), U(2, 4, 3, 2)),
    "bilinear_reflection": (sample(padding_mode="reflection"), R(2, 2, 5, 6), U(2, 3, 3, 2)),
    "bilinear_reflection_far": (
        sample(padding_mode="reflection"),
        R(1, 2, 4, 3),
        U(1, 3, 4, 2, low=-3.5, high=3.5),
    ),
    "bilinear_align": (sample(align_corners=True), R(2, 2, 5, 6), U(2, 3, 3, 2)),
    "bilinear_border_align": (
        sample(padding_mode="border", align_corners=True),
        R(2, 2, 4, 6),
        U(2, 3, 2, 2),
    ),
    "bilinear_reflection_align": (
        sample(padding_mode="reflection", align_corners=True),
        R(2, 2, 4, 6),
        U(2, 3, 2, 2),
    ),
    "nearest_zeros": (sample("nearest"), R(2, 3, 5, 6), U(2, 4, 3, 2)),
    "nearest_reflection": (sample("nearest", "reflection", True), R(1, 2, 5, 6), U(1, 4, 3, 2)),
    "bicubic_zeros": (sample("bicubic"), R(2, 2, 5, 6), U(2, 3, 3, 2)),
    "bicubic_border": (sample("bicubic", "border"), R(1, 2, 4, 5), U(1, 3, 3, 2)),
    "bicubic_reflection_align": (
        sample("bicubic", "reflection", True),
        R(1, 2, 4, 5),
        U(1, 3, 3, 2, low=-3, high=3),
    ),
    "trilinear_zeros": (sample(), R(1, 2, 3, 4, 5), U(1, 2, 3, 2, 3)),
    "trilinear_border": (sample(padding_mode="border"), R(1, 2, 3, 4, 5), U(1, 2, 3, 2, 3)),
    "trilinear_reflection_align": (
        sample(padding_mode="reflection", align_corners=True),
        R(2, 1, 3, 4, 3),
        U(2, 2, 2, 2, 3),
    ),
    "torch.grid_sampler": (
        lambda L, x, g: L.grid_sampler(x, g, 0, 1, False),
        R(1, 2, 4, 4),
        U(1, 3, 3, 2),
    ),
}

SECOND_ORDER = [
    "nearest_2d_fraction",
    "nearest_exact_3d",
    "linear_down",
    "bilinear",
    "bilinear_double",
    "trilinear_align",
    "bicubic",
    "bilinear_antialias",
    "lanczos",
    "area_2d",
    "pixel_shuffle",
    "pixel_unshuffle",
    "channel_shuffle",
    "affine_grid",
    "affine_grid_3d",
]

GRID_SECOND_ORDER = [
    "bilinear_zeros",
    "bilinear_border",
    "bilinear_reflection_align",
    "nearest_zeros",
    "bicubic_reflection_align",
    "trilinear_zeros",
]

test_resampling_matches_torch = cases.index_matches_torch(RESAMPLE)
test_resampling_finite_differences = cases.index_finite_differences(RESAMPLE, SECOND_ORDER)
test_resampling_second_derivatives = cases.index_second_derivatives(RESAMPLE, SECOND_ORDER)

test_grid_sample_matches_torch = cases.index_matches_torch(GRID)
test_grid_sample_finite_differences = cases.index_finite_differences(GRID, GRID_SECOND_ORDER)
test_grid_sample_second_derivatives = cases.index_second_derivatives(GRID, GRID_SECOND_ORDER)


@pytest.mark.parametrize("name", GRID_SECOND_ORDER + ["bilinear_reflection_far"])
def test_grid_sample_tangents_match_finite_differences(name):
    """PyTorch has no forward mode for grid_sample: chainrule's tangent (in input and grid
    together) against central differences of the forward."""
    fn, x, g = GRID[name]
    rng = np.random.default_rng(7)
    tx, tg = rng.standard_normal(x.shape), rng.standard_normal(g.shape)
    _, got = tangent(cr, fn, [x, g], [tx, tg])
    eps = 1e-6

    def value(a, b):
        with cr.no_grad():
            return fn(cr, cr.tensor(a), cr.tensor(b)).numpy()

    want = (value(x + eps * tx, g + eps * tg) - value(x - eps * tx, g - eps * tg)) / (2 * eps)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    "name, fn, message",
    [
        ("upsample", lambda L, x: F(L).upsample(x, scale_factor=2), "upsample` is deprecated"),
        (
            "upsample_nearest",
            lambda L, x: F(L).upsample_nearest(x, size=(5, 3)),
            "upsample_nearest` is deprecated",
        ),
        (
            "upsample_bilinear",
            lambda L, x: F(L).upsample_bilinear(x, scale_factor=1.5),
            "upsample_bilinear` is deprecated",
        ),
    ],
)
def test_deprecated_upsample_warns_and_interpolates(name, fn, message):
    x = R(2, 2, 3, 4)
    with pytest.warns(UserWarning, match=message):
        same_node(check(fn, x))


def test_align_corners_default_warns():
    x, g = cr.tensor(R(1, 1, 3, 3)), cr.tensor(U(1, 2, 2, 2))
    with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior"):
        F(cr).grid_sample(x, g)
    with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior"):
        F(cr).affine_grid(cr.tensor(R(1, 2, 3)), (1, 1, 2, 2))


def test_native_channel_shuffle_has_no_derivative():
    x = R(2, 6, 3)
    for lib in (cr, torch):
        y = lib.native_channel_shuffle(lib.tensor(x, requires_grad=True), 3)
        assert y.grad_fn.name() == "torch::autograd::NotImplemented"
        np.testing.assert_array_equal(
            y.detach().numpy(), F(lib).channel_shuffle(lib.tensor(x), 3).numpy()
        )
    assert_same_error(
        lambda L: L.native_channel_shuffle(L.tensor(x, requires_grad=True), 3).sum().backward()
    )


def test_integer_shuffles():
    x = np.arange(2 * 4 * 2 * 3).reshape(2, 4, 2, 3)
    for fn in (
        lambda L, t: F(L).pixel_shuffle(t, 2),
        lambda L, t: F(L).pixel_unshuffle(t[..., :2], 2),
        lambda L, t: F(L).channel_shuffle(t, 2),
    ):
        check(fn, x)


# ----- errors ---------------------------------------------------------------------------------------

X3 = np.zeros((2, 3, 5))
X4 = np.zeros((2, 3, 4, 5))
THETA = np.zeros((2, 2, 3))

ERRORS = {
    "both_size_and_scale": (interp(size=3, scale_factor=2), [X3]),
    "neither": (interp(), [X3]),
    "size_length": (interp(size=(3, 4)), [X3]),
    "scale_length": (interp(scale_factor=(2, 2)), [X3]),
    "size_floats": (interp(size=(3.0, 4.0)), [X4]),
    "align_corners_nearest": (interp(scale_factor=2, align_corners=True), [X3]),
    "recompute_with_size": (interp(size=3, recompute_scale_factor=True), [X3]),
    "bilinear_3d": (interp(scale_factor=2, mode="bilinear"), [X3]),
    "linear_4d": (interp(scale_factor=2, mode="linear"), [X4]),
    "bicubic_5d": (interp(scale_factor=2, mode="bicubic"), [np.zeros((1, 1, 2, 2, 2))]),
    "mode": (interp(scale_factor=2, mode="cubic"), [X3]),
    "two_d_input": (interp(scale_factor=2), [np.zeros((3, 4))]),
    "antialias_nearest": (interp(scale_factor=2, antialias=True), [X4]),
    "integer_nearest_1d": (interp(scale_factor=2), [np.zeros((2, 3, 5), np.int64)]),
    "integer_nearest_2d": (interp(scale_factor=2), [np.zeros((2, 3, 4, 5), np.int64)]),
    "integer_area_3d": (interp(size=2, mode="area"), [np.zeros((1, 2, 3, 4, 5), np.int64)]),
    "lanczos_align_corners": (interp(size=2, mode="lanczos", align_corners=True), [X4]),
    "lanczos_without_antialias": (interp(size=2, mode="lanczos"), [X4]),
    "zero_output": (interp(size=0), [X3]),
    "zero_output_2d": (interp(size=(0, 2), mode="bilinear"), [X4]),
    "pixel_shuffle_channels": (lambda L, x: F(L).pixel_shuffle(x, 2), [np.zeros((2, 3, 4, 4))]),
    "pixel_shuffle_rank": (lambda L, x: F(L).pixel_shuffle(x, 2), [np.zeros((4, 4))]),
    "pixel_shuffle_factor": (lambda L, x: F(L).pixel_shuffle(x, 0), [np.zeros((2, 4, 4, 4))]),
    "pixel_unshuffle_height": (lambda L, x: F(L).pixel_unshuffle(x, 2), [np.zeros((1, 2, 5, 4))]),
    "pixel_unshuffle_width": (lambda L, x: F(L).pixel_unshuffle(x, 2), [np.zeros((1, 2, 4, 5))]),
    "channel_shuffle_groups": (lambda L, x: F(L).channel_shuffle(x, 2), [np.zeros((2, 3, 4))]),
    "channel_shuffle_rank": (lambda L, x: F(L).channel_shuffle(x, 3), [np.zeros((2, 6))]),
    "channel_shuffle_zero": (lambda L, x: F(L).channel_shuffle(x, 0), [np.zeros((2, 6, 4))]),
    "grid_mode": (
        lambda L, x, g: F(L).grid_sample(x, g, mode="area"),
        [X4, np.zeros((2, 3, 3, 2))],
    ),
    "grid_padding_mode": (
        lambda L, x, g: F(L).grid_sample(x, g, padding_mode="wrap"),
        [X4, np.zeros((2, 3, 3, 2))],
    ),
    "grid_batch": (
        lambda L, x, g: F(L).grid_sample(x, g, align_corners=False),
        [X4, np.zeros((3, 3, 3, 2))],
    ),
    "grid_last_dim": (
        lambda L, x, g: F(L).grid_sample(x, g, align_corners=False),
        [X4, np.zeros((2, 3, 3, 3))],
    ),
    "grid_rank": (
        lambda L, x, g: F(L).grid_sample(x, g, align_corners=False),
        [X3, np.zeros((2, 3, 2))],
    ),
    "grid_empty": (
        lambda L, x, g: F(L).grid_sample(x, g, align_corners=False),
        [np.zeros((2, 3, 0, 5)), np.zeros((2, 3, 3, 2))],
    ),
    "grid_dtype": (
        lambda L, x, g: F(L).grid_sample(x, g.float(), align_corners=False),
        [X4, np.zeros((2, 3, 3, 2))],
    ),
    "grid_bicubic_5d": (
        lambda L, x, g: F(L).grid_sample(x, g, mode="bicubic", align_corners=False),
        [np.zeros((1, 1, 2, 2, 2)), np.zeros((1, 1, 1, 1, 3))],
    ),
    "affine_theta_shape": (
        lambda L, t: F(L).affine_grid(t, (2, 3, 4, 5), align_corners=False),
        [np.zeros((2, 3, 3))],
    ),
    "affine_theta_3d_shape": (
        lambda L, t: F(L).affine_grid(t, (2, 3, 4, 5, 6), align_corners=False),
        [THETA],
    ),
    "affine_size": (lambda L, t: F(L).affine_grid(t, (2, 3, 4), align_corners=False), [THETA]),
    "affine_zero_size": (
        lambda L, t: F(L).affine_grid(t, (2, 3, 0, 5), align_corners=False),
        [THETA],
    ),
    "affine_integer_theta": (
        lambda L, t: F(L).affine_grid(t.long(), (2, 3, 4, 5), align_corners=False),
        [THETA],
    ),
}


def _quiet(fn):
    def run(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return fn(*args)

    return run


test_errors_match_torch = cases.same_errors_as_torch(
    {name: (_quiet(fn), inputs) for name, (fn, inputs) in ERRORS.items()}
)


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize(
    "case",
    [
        lambda L, x: F(L).interpolate(x, scale_factor=2, mode="nearest"),
        lambda L, x: F(L).interpolate(x, scale_factor=(3, 1), mode="nearest"),
        lambda L, x: F(L).interpolate(x, size=(10, 9), mode="nearest"),
        lambda L, x: F(L).interpolate(x, scale_factor=(8, 9), mode="nearest"),
    ],
    ids=["2x", "3x1", "uneven", "8x9"],
)
def test_nearest_upsampling_backward_is_the_sorted_sums_bits(monkeypatch, case, dt):
    """Where each input position is read k times in a row (an integer scale up to 8), the
    backward sums k strided slices (windows._repeats) instead of sorting and add.reduceat:
    the same bits (its order: a segment's first element plus the others' sum)."""
    from chainrule.ops import windows

    x = np.random.default_rng(8).standard_normal((2, 3, 5, 3)).astype(dt)
    same_bits_as_replaced(monkeypatch, windows, "_repeats", lambda index, size: 0, case, x)


def _counted(fn, calls: list):
    def counted(*args):
        calls.append(fn.__name__)
        return fn(*args)

    return counted


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize(
    "case",
    [
        interp(scale_factor=2, mode="bilinear"),
        interp(scale_factor=(4, 2), mode="bilinear"),
        interp(scale_factor=8, mode="bilinear"),
        interp(size=(5, 6), mode="bilinear"),
        interp(scale_factor=2, mode="bicubic"),
        lambda L, x: F(L).interpolate(x.flatten(2), scale_factor=4, mode="linear"),
        lambda L, x: F(L).interpolate(x[:, :1, None], scale_factor=(2, 1, 2), mode="trilinear"),
        lambda L, x: F(L).interpolate(x[:, :, :1], scale_factor=2, mode="bilinear"),
        lambda L, x: F(L).interpolate(x.transpose(2, 3), scale_factor=2, mode="bilinear"),
    ],
    ids=["2x", "4x2", "8x", "same", "bicubic", "1d", "3d", "one_row", "transposed"],
)
def test_integer_upsampling_is_the_gather_paths_bits(monkeypatch, case, dt):
    """An integer upsampling (linear or cubic taps at scale p) reads each phase's taps as x
    shifted by whole rows, sums the gradient back the same way, and makes the outputs and
    inputs at the edges column by column (ops/upsampling_rows.py): the values and gradients of the
    gathers and sorted sums it replaces, bit for bit (at 8x, only the forward: an input's
    sum of 16 values is add.reduceat's own)."""
    from chainrule.ops import windows

    calls: list = []
    for name in ("gather_phases", "scatter_phases"):
        monkeypatch.setattr(windows, name, _counted(getattr(windows, name), calls))
    x = np.random.default_rng(5).standard_normal((2, 3, 5, 6)).astype(dt)
    # -0 and products that round to -0: NumPy's sum over the taps gives +0 where all are -0
    x[:, :2, :2, :3], x[:, 1:, 3, 3:] = -0.0, -np.finfo(dt).smallest_subnormal
    same_bits_as_replaced(monkeypatch, windows, "phases", lambda index, weight, n: None, case, x)
    assert "gather_phases" in calls


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_integer_upsampling_spreads_inf_and_nan_as_torch(monkeypatch, mode):
    """inf and nan in x and in the output's gradient reach the outputs and inputs they reach
    in PyTorch and in the gathers the fast path replaces (the tap past the edge, weight 0,
    makes inf a nan there)."""
    from chainrule.ops import windows

    rng = np.random.default_rng(6)
    x = rng.standard_normal((1, 2, 4, 5)).astype(np.float32)
    x[0, 0, 1, 2], x[0, 1, 3, 4], x[0, 1, 0, 0] = np.inf, -np.inf, np.nan
    g = rng.standard_normal((1, 2, 8, 10)).astype(np.float32)
    g[0, 0, 0, 0], g[0, 1, 7, 9], g[0, 0, 5, 3] = np.inf, np.nan, -np.inf

    def run(lib):
        t = lib.tensor(x, requires_grad=True)
        y = F(lib).interpolate(t, scale_factor=2, mode=mode)
        y.backward(lib.tensor(g))
        return y.detach().numpy(), t.grad.numpy()

    fast, want = run(cr), run(torch)
    monkeypatch.setattr(windows, "phases", lambda index, weight, n: None)
    gathered = run(cr)
    for a, b, c in zip(fast, want, gathered):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5)
        np.testing.assert_array_equal(a, c)


@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_nearest_rounds_float32_ties_as_torch(align_corners):
    # y = ((0.5294118 + 1) * 17 - 1) / 2 is 12.5 exactly in float32 (12.50000023 in
    # float64): PyTorch rounds the float32 tie to even, 12
    rng = np.random.default_rng(0)
    grid = np.concatenate([[[0.10882351, 0.5294118]], rng.uniform(-1.1, 1.1, (63, 2))])
    grid = grid.astype(np.float32).reshape(1, 8, 8, 2)
    outs = [
        L.nn.functional.grid_sample(
            L.arange(391.0).reshape(1, 1, 17, 23),
            L.tensor(grid),
            mode="nearest",
            align_corners=align_corners,
        ).numpy()
        for L in (cr, torch)
    ]
    np.testing.assert_array_equal(*outs)
