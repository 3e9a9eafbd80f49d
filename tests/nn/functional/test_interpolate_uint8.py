"""F.interpolate on uint8 images (bilinear, bicubic, antialiased lanczos): PyTorch resamples
them in fixed point, and chainrule must give its values bit for bit (they can differ from
rounding the float result), its layout, and its refusals."""

import itertools

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import chainrule
import chainrule.nn.functional as CF

_RNG = np.random.default_rng(20)


def _pair(shape, channels_last=False):
    a = _RNG.integers(0, 256, shape, dtype=np.uint8)
    t, c = torch.from_numpy(a.copy()), chainrule.from_numpy(a.copy())
    if channels_last:
        t = t.contiguous(memory_format=torch.channels_last)
        c = c.contiguous(memory_format=chainrule.channels_last)
    return t, c


def _same(t, c):
    assert c.dtype == chainrule.uint8
    assert tuple(c.shape) == tuple(t.shape)
    assert c.stride() == t.stride()
    np.testing.assert_array_equal(c.numpy(), t.numpy())


# (mode, antialias, align_corners): every combination PyTorch computes on uint8
_KINDS = [
    (m, aa, ac)
    for m, aa, ac in itertools.product(("bilinear", "bicubic"), (False, True), (False, True))
] + [("lanczos", True, False)]

# up, down, mixed, unchanged dims, and the edges (1 pixel in or out)
_SIZES = [((7, 9), (16, 20)), ((32, 24), (9, 7)), ((5, 33), (12, 4)), ((8, 10), (8, 3)),
          ((1, 6), (4, 1)), ((16, 16), (1, 1))]  # fmt: skip


@pytest.mark.parametrize("mode, antialias, align_corners", _KINDS)
@pytest.mark.parametrize("sizes", _SIZES)
def test_size_matches_torch_bit_for_bit(mode, antialias, align_corners, sizes):
    (hi, wi), out = sizes
    kw = dict(size=out, mode=mode, antialias=antialias, align_corners=align_corners)
    # (3 row-major channels to 1×1 trip an internal assert in PyTorch's AVX2 kernel)
    for channels, channels_last in ((1, False), (3, True), (4, False), (5, True)):
        t, c = _pair((2, channels, hi, wi), channels_last)
        _same(F.interpolate(t, **kw), CF.interpolate(c, **kw))


@pytest.mark.parametrize("mode, antialias, align_corners", _KINDS)
@pytest.mark.parametrize("recompute", [None, True])
def test_scale_factor_matches_torch(mode, antialias, align_corners, recompute):
    # the scale given is the one the weights use (1.05 keeps 10 pixels: no pass at all)
    for size, factor in (((10, 10), 1.05), ((7, 9), 2.5), ((16, 12), (0.3, 1.7)), ((9, 9), 0.5)):
        kw = dict(
            scale_factor=factor,
            mode=mode,
            antialias=antialias,
            align_corners=align_corners,
            recompute_scale_factor=recompute,
        )
        t, c = _pair((1, 3) + size)
        _same(F.interpolate(t, **kw), CF.interpolate(c, **kw))


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_large_downscale_caps_the_precision(mode):
    # weights near 1/2000: their precision stops at 2^22 (a wider one rounds differently)
    a = np.where(np.arange(7777) % 2 == 0, 255, 0).astype(np.uint8).reshape(1, 1, 1, -1)
    for out in (1, 3, 7):
        kw = dict(size=(1, out), mode=mode, antialias=True)
        _same(
            F.interpolate(torch.from_numpy(a), **kw), CF.interpolate(chainrule.from_numpy(a), **kw)
        )


def test_fixed_point_differs_from_rounded_float():
    # the point of the fixed-point path: not the float result rounded
    t, c = _pair((1, 3, 13, 11))
    kw = dict(size=(29, 6), mode="bicubic", antialias=True)
    ours = CF.interpolate(c, **kw).numpy().astype(int)
    rounded = F.interpolate(t.double(), **kw).round().clamp(0, 255).numpy().astype(int)
    assert (ours != rounded).any()
    np.testing.assert_array_equal(ours, F.interpolate(t, **kw).numpy())


def test_empty_batch_and_unchanged_size():
    for shape, size in (((0, 3, 5, 9), (3, 4)), ((2, 3, 5, 9), (5, 9))):
        t, c = _pair(shape)
        _same(
            F.interpolate(t, size=size, mode="bilinear"),
            CF.interpolate(c, size=size, mode="bilinear"),
        )


def test_no_gradient_through_integers():
    _, c = _pair((1, 1, 4, 4))
    out = CF.interpolate(c, size=(6, 6), mode="bilinear")
    assert not out.requires_grad and out.grad_fn is None


def _raises_like(f, *args, **kwargs):
    with pytest.raises(Exception) as expected:
        f(torch, F)(*args, **kwargs)
    with pytest.raises(type(expected.value)) as got:
        f(chainrule, CF)(*args, **kwargs)
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize(
    "dtype, shape, kw",
    [
        ("uint8", (1, 3, 7), dict(size=5, mode="linear")),
        ("uint8", (1, 3, 4, 5, 6), dict(size=(3, 4, 5), mode="trilinear")),
        ("uint8", (2, 0, 7, 9), dict(size=(3, 4), mode="bilinear")),
        ("uint8", (2, 0, 7, 9), dict(size=(3, 4), mode="bicubic", antialias=True)),
        ("uint8", (1, 2, 0, 9), dict(size=(3, 4), mode="bilinear")),
        ("float32", (2, 0, 5, 5), dict(size=(3, 4), mode="bicubic")),
        ("float32", (2, 0, 5), dict(size=4, mode="nearest")),
        ("int8", (1, 3, 7, 9), dict(size=(3, 4), mode="bilinear")),
        ("int16", (1, 3, 7, 9), dict(size=(3, 4), mode="bicubic")),
        ("int32", (1, 3, 7, 9), dict(size=(3, 4), mode="bilinear", antialias=True)),
        ("int64", (1, 3, 7), dict(size=5, mode="linear")),
        ("bool", (1, 3, 7, 9), dict(size=(3, 4), mode="lanczos", antialias=True)),
    ],
)
def test_refusals_match_torch(dtype, shape, kw):
    def call(lib, functional):
        return lambda: functional.interpolate(lib.zeros(shape, dtype=getattr(lib, dtype)), **kw)

    _raises_like(call)
