"""Edge cases of torch.nn.functional found by a differential sweep against PyTorch:
interpolate at a scale that keeps a dim's size (nearest in 1-d and 3-d reads by the
scale; antialiasing copies the dim), uint8 nearest upsampling, group_norm of an empty
batch, scaled_dot_product_attention's shape and mask-dtype errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import R, assert_same, check, error_of


def F(lib):
    return lib.nn.functional


# (shape, interpolate's keywords): a dim whose output size is its input's, or twice it, at
# a scale that is not 1 or 2
KEPT_SIZE = {
    "nearest 1d 3->3": ((1, 2, 3), {"scale_factor": 1.3}),
    "nearest 1d 3->6 at 2.1": ((1, 2, 3), {"scale_factor": 2.1}),
    "nearest 3d 3->3": ((1, 2, 3, 5, 2), {"scale_factor": 1.3}),
    "nearest 3d 3->6 at 2.1": ((1, 1, 3, 3, 3), {"scale_factor": 2.1}),
    "nearest 2d 3->3": ((1, 2, 3, 5), {"scale_factor": 1.3}),
    "nearest 2d 3->6 at 2.1": ((1, 2, 3, 3), {"scale_factor": 2.1}),
    "nearest-exact 1d 3->3": ((1, 2, 3), {"scale_factor": 1.3, "mode": "nearest-exact"}),
    "bilinear aa 3->3": (
        (1, 2, 3, 5),
        {"scale_factor": 1.3, "mode": "bilinear", "antialias": True},
    ),
    "bilinear aa 2->2 ac": (
        (1, 2, 2, 5),
        {"scale_factor": 1.4, "mode": "bilinear", "antialias": True, "align_corners": True},
    ),
    "bicubic aa 3->3": ((1, 2, 3, 3), {"scale_factor": 1.1, "mode": "bicubic", "antialias": True}),
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("case", list(KEPT_SIZE), ids=list(KEPT_SIZE))
def test_interpolate_kept_size_values(case, dtype):
    shape, kw = KEPT_SIZE[case]
    x = R(*shape).astype(dtype)
    got = F(cr).interpolate(cr.tensor(x), **kw)
    want = F(torch).interpolate(torch.tensor(x), **kw)
    assert_same(got, want)


@pytest.mark.parametrize("case", list(KEPT_SIZE), ids=list(KEPT_SIZE))
def test_interpolate_kept_size_gradient_is_the_forwards(case):
    # (PyTorch's backward of these cases is not the derivative of its forward: its
    # gradcheck fails; chainrule's is the transpose of the forward's taps)
    shape, kw = KEPT_SIZE[case]
    x = cr.tensor(R(*shape), requires_grad=True)
    assert cr.autograd.gradcheck(lambda t: F(cr).interpolate(t, **kw), (x,))


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
@pytest.mark.parametrize("shape", [(2, 3, 7), (2, 3, 5, 6), (1, 2, 3, 4, 5)], ids=str)
def test_interpolate_uint8_nearest(mode, shape):
    x = np.random.default_rng(0).integers(0, 256, size=shape).astype(np.uint8)
    got = F(cr).interpolate(cr.tensor(x), scale_factor=1.5, mode=mode)
    want = F(torch).interpolate(torch.tensor(x), scale_factor=1.5, mode=mode)
    assert_same(got, want)


@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("shape", [(0, 6, 3), (0, 6), (0, 6, 2, 2)], ids=str)
def test_group_norm_empty_batch(shape, affine):
    wb = (R(6, seed=1), R(6, seed=2)) if affine else ()
    check(lambda L, x, *wb: F(L).group_norm(x, 2, *wb), R(*shape), *wb)


SDPA_ERRORS = {
    "query and key embeddings differ": ((2, 3, 4, 6), (2, 3, 5, 5), (2, 3, 5, 3), None),
    "key and value lengths differ": ((2, 3, 4, 6), (2, 3, 5, 6), (2, 3, 4, 3), None),
    "int64 mask": ((2, 3, 4, 6), (2, 3, 5, 6), (2, 3, 5, 3), np.int64),
    "uint8 mask": ((2, 3, 4, 6), (2, 3, 5, 6), (2, 3, 5, 3), np.uint8),
    "float16 mask on float64": ((2, 3, 4, 6), (2, 3, 5, 6), (2, 3, 5, 3), np.float16),
}


@pytest.mark.parametrize("case", list(SDPA_ERRORS), ids=list(SDPA_ERRORS))
def test_sdpa_errors(case):
    qs, ks, vs, mask_dtype = SDPA_ERRORS[case]
    q, k, v = R(*qs), R(*ks, seed=1), R(*vs, seed=2)
    mask = None if mask_dtype is None else np.ones((qs[-2], ks[-2]), dtype=mask_dtype)

    def fn(L):
        m = None if mask is None else L.tensor(mask)
        return F(L).scaled_dot_product_attention(L.tensor(q), L.tensor(k), L.tensor(v), m)

    assert type(error_of(fn, cr)) is type(error_of(fn, torch)) is RuntimeError


@pytest.mark.parametrize("mask_dtype", [np.float32, np.float64, np.bool_])
def test_sdpa_mask_dtypes_allowed(mask_dtype):
    mask = (R(4, 5, seed=3) > -0.5).astype(mask_dtype)
    check(
        lambda L, q, k, v: F(L).scaled_dot_product_attention(q, k, v, L.tensor(mask)),
        R(2, 3, 4, 6),
        R(2, 3, 5, 6, seed=1),
        R(2, 3, 5, 3, seed=2),
    )
