"""Padding with negative pads and antialiased resampling against PyTorch (cases a sweep of
about 10,000 calls of pad, interpolate, grid_sample, affine_grid, fold/unfold and the pixel
and channel shuffles found): reflection and replication refuse outputs with no element or a
negative size as PyTorch does, circular padding crops then wraps around what is kept, and
an antialiased resampling to one element along a dim resamples the other dim."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import check_raises, check_same_error

LIBS = (torch, cr)

REFUSED = [  # (shape, pad): every padded dim empty or negative, or one negative
    ((1, 3, 3), (-1, -2)),
    ((5, 1), (-2, -2)),
    ((1, 2, 2), (-1, -1, -1, -1)),
    ((2, 3, 4), (0, -4, -4, -4)),
    ((1, 2, 3, 2, 3), (-3, -1, -4, 1, -3, 0)),
    ((1, 2, 3), (0, 0, -1, -2)),
    ((2, 3, 1, 5), (-2, 3, 0, -2)),
    ((1, 2, 2, 2), (-1, -2, 0, 0, 0, 0)),
    ((1, 2, 2, 2), (0, 0, 0, 0, -1, -2)),
    ((3, 1, 5, 5), (1, 4, 2, 0, -2, -1)),
]


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("shape, pad", REFUSED, ids=str)
def test_reflection_and_replication_refuse_empty_or_negative_outputs_as_torch(shape, pad, mode):
    fn = lambda L, x: L.nn.functional.pad(x, pad, mode=mode)  # noqa: E731
    outs = [
        n + pad[2 * i] + pad[2 * i + 1] for i, n in enumerate(reversed(shape[-len(pad) // 2 :]))
    ]
    if mode == "reflect" and len(pad) == 4 and max(outs) >= 1:
        # PyTorch's 2-d reflection fails computing its size ("numel: integer multiplication
        # overflow"); chainrule names the negative size, as PyTorch's other kernels do
        check_raises(fn, np.ones(shape))
    else:
        check_same_error(fn, np.ones(shape))


KEPT = [  # (shape, pad, mode): outputs that keep some element, or are empty along a dim
    ((1, 2, 3), (0, 0, -1, -1), "reflect"),
    ((1, 3, 2), (-1, -1, 0, 0), "replicate"),
    ((1, 2, 2, 2), (0, 0, 0, 0, -1, -1), "reflect"),
    ((2, 1, 2, 3), (-1, -2, 0, 0), "replicate"),
    ((2, 3, 5), (-1, 2), "reflect"),
    ((2, 3, 5), (2, -3), "replicate"),
    ((1, 1, 3), (-1, -2), "circular"),
    ((1, 1, 3), (-2, 1), "circular"),
    ((1, 1, 3), (1, -2), "circular"),
    ((1, 4), (-1, 2), "circular"),
    ((1, 5), (2, -1), "circular"),
    ((1, 4), (-2, 1), "circular"),
    ((3, 1), (1, -2), "circular"),
    ((1, 2, 3), (-1, -1, -1, -1), "circular"),
    ((2, 3, 4), (-1, 1, 2, -1), "circular"),
]


@pytest.mark.parametrize("shape, pad, mode", KEPT, ids=str)
def test_negative_pads_crop_then_pad_as_torch(shape, pad, mode):
    a = np.random.RandomState(0).randn(*shape)
    got = []
    for L in (cr, torch):
        x = L.tensor(a, requires_grad=True)
        y = L.nn.functional.pad(x, pad, mode=mode)
        if y.numel():
            (y * L.arange(1.0, y.numel() + 1, dtype=y.dtype).reshape(y.shape)).sum().backward()
        grad = None if x.grad is None else x.grad.numpy().copy()
        got.append((tuple(y.shape), y.detach().numpy().copy(), grad))
    (shape_c, y_c, g_c), (shape_t, y_t, g_t) = got
    assert shape_c == shape_t
    np.testing.assert_allclose(y_c, y_t, rtol=1e-12)
    assert (g_c is None) == (g_t is None)
    if g_c is not None:
        np.testing.assert_allclose(g_c, g_t, rtol=1e-12)


@pytest.mark.parametrize(
    "shape, pad", [((1, 1, 3), (-2, -2)), ((1, 2, 3), (0, 0, -2, -1)), ((1, 1, 3), (4, 0))]
)
def test_circular_padding_refuses_as_torch(shape, pad):
    check_same_error(lambda L, x: L.nn.functional.pad(x, pad, mode="circular"), np.ones(shape))


@pytest.mark.parametrize(
    "shape, pad", [((3, 1), (-1, 1)), ((1, 1, 3), (-3, 1)), ((1, 1, 3), (-3, 3))]
)
def test_circular_padding_with_nothing_kept_to_wrap_around_is_refused(shape, pad):
    # PyTorch 2.13 returns memory it never wrote here (docs/architecture.md)
    with pytest.raises(RuntimeError, match="Negative padding value is resulting in an empty"):
        cr.nn.functional.pad(cr.ones(shape), pad, mode="circular")


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("shape, size", [((1, 1, 4, 1), (6, 1)), ((1, 1, 3, 3), (6, 1))])
def test_antialiased_resampling_to_one_column_resamples_the_rows(mode, shape, size):
    # PyTorch 2.13's kernel repeats the first row there; its result for two identical
    # columns resampled to two is the column chainrule gives (docs/architecture.md)
    a = np.arange(np.prod(shape), dtype=np.float64).reshape(shape) ** 1.5
    got = cr.nn.functional.interpolate(cr.tensor(a), size=size, mode=mode, antialias=True)
    if shape[-1] == 1:
        wide = torch.tensor(np.repeat(a, 2, axis=-1))
        want = torch.nn.functional.interpolate(wide, size=(size[0], 2), mode=mode, antialias=True)
        want = want[..., :1]
    else:  # one column out of three: the mean under the filter, as resampling rows of that
        want = torch.nn.functional.interpolate(
            torch.nn.functional.interpolate(
                torch.tensor(a), size=(3, 1), mode=mode, antialias=True
            ).expand(1, 1, 3, 2),
            size=(size[0], 2),
            mode=mode,
            antialias=True,
        )[..., :1]
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10)


@pytest.mark.parametrize("pad", [(1, 1), (1, 2, 0, 1), (0, 0, 0, 0, 1, 1)])
def test_constant_pad_nd_keeps_a_channels_last_layout_as_torch(pad):
    got = []
    for L in (cr, torch):
        x = L.ones(2, 3, 4, 5).to(memory_format=L.channels_last)
        y = L.constant_pad_nd(x, pad, 2.0)
        got.append((tuple(y.shape), y.stride()))
    assert got[0] == got[1]
