"""The ``torch.*`` forms of nn.functional ops and the private helpers PyTorch's own modules
call (torch.conv1d, torch.max_pool3d, torch.bilinear, torch.embedding_renorm_,
F._canonical_mask ...): values, dtypes and gradients as PyTorch's. The functional forms
are tested in their families' files; these are the other names of the same ops."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import cases
import chainrule as cr
from oracle import L64, NoGrad, R, assert_close, distinct

B = np.array([[True, False, True], [False, False, True]])

FORMS = {
    "torch.conv1d": (lambda L, x, w, b: L.conv1d(x, w, b, 1, 1), R(2, 2, 5), R(3, 2, 3), R(3)),
    "torch.conv3d": (
        lambda L, x, w: L.conv3d(x, w, None, 1, 1),
        R(1, 2, 3, 3, 3),
        R(2, 2, 2, 2, 2),
    ),
    "torch.conv_transpose2d": (
        lambda L, x, w, b: L.conv_transpose2d(x, w, b, 2),
        R(1, 2, 3, 3),
        R(2, 3, 2, 2),
        R(3),
    ),
    "torch.conv_transpose3d": (
        lambda L, x, w: L.conv_transpose3d(x, w, None, 1),
        R(1, 2, 2, 2, 2),
        R(2, 1, 2, 2, 2),
    ),
    "torch.max_pool1d": (lambda L, x: L.max_pool1d(x, 2), distinct((2, 3, 6))),
    "torch.max_pool3d": (lambda L, x: L.max_pool3d(x, 2), distinct((1, 2, 4, 4, 4))),
    "torch.pixel_shuffle": (lambda L, x: L.pixel_shuffle(x, 2), R(1, 8, 2, 3)),
    "torch.bilinear": (
        lambda L, a, b, w, c: L.bilinear(a, b, w, c),
        R(3, 2),
        R(3, 4),
        R(5, 2, 4),
        R(5),
    ),
    "torch.native_channel_shuffle": (
        lambda L, x: L.native_channel_shuffle(x, 3),
        NoGrad(R(1, 6, 2)),
    ),
    "functional.native_channel_shuffle": (
        lambda L, x: L.nn.functional.native_channel_shuffle(x, 2),
        NoGrad(R(2, 4, 3)),
    ),
    "torch.embedding_renorm_": (
        lambda L, w, i: L.embedding_renorm_(w.clone(), i, 1.0, 2.0),
        NoGrad(R(5, 3) * 2),
        L64(0, 3, 3),
    ),
    "functional._canonical_mask": (
        lambda L, m: L.nn.functional._canonical_mask(
            mask=m, mask_name="attn_mask", other_type=None, other_name="", target_type=L.float32
        ),
        B,
    ),
}

test_matches_torch = cases.matches_torch(FORMS)


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_none_or_dtype_as_torch(dtype):
    got = cr.nn.functional._none_or_dtype(cr.zeros(2, dtype=getattr(cr, dtype)))
    want = torch.nn.functional._none_or_dtype(torch.zeros(2, dtype=getattr(torch, dtype)))
    assert str(got) == str(want)
    assert_close(cr.nn.functional._none_or_dtype(None), None)
