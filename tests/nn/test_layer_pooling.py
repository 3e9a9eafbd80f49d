"""The pooling layers side by side with torch.nn: max pooling (return_indices, ceil_mode,
dilation, padding), average pooling (count_include_pad, divisor_override), LP pooling,
adaptive max and average pooling, max unpooling; outputs, indices, gradients, node names,
reprs and PyTorch's errors. Inputs have distinct values, so the maxima are unique."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from nn_layers import check_module
from oracle import DT_IDS, FLOATS, assert_same_error, distinct, positive

POOLS = [
    ("MaxPool1d", (3,), {}, (2, 3, 9)),
    ("MaxPool1d", (3, 2, 1), {"dilation": 2, "ceil_mode": True}, (2, 3, 10)),
    ("MaxPool1d", (2,), {"return_indices": True}, (3, 8)),
    ("MaxPool2d", (2,), {}, (2, 3, 6, 6)),
    ("MaxPool2d", ((3, 2), (2, 1), (1, 0)), {"return_indices": True}, (2, 2, 7, 5)),
    ("MaxPool2d", (3, 2), {"ceil_mode": True, "dilation": (1, 2)}, (1, 2, 8, 9)),
    ("MaxPool3d", (2,), {"return_indices": True}, (1, 2, 4, 4, 4)),
    ("MaxPool3d", (3, 2, 1), {"ceil_mode": True}, (2, 5, 4, 6)),
    ("AvgPool1d", (3,), {}, (2, 3, 9)),
    ("AvgPool1d", (3, 2, 1), {"count_include_pad": False, "ceil_mode": True}, (2, 3, 10)),
    ("AvgPool2d", (2,), {}, (2, 3, 6, 6)),
    ("AvgPool2d", ((3, 2), (2, 1), (1, 1)), {"count_include_pad": False}, (2, 2, 7, 5)),
    ("AvgPool2d", (3, 2, 1), {"divisor_override": 4, "ceil_mode": True}, (2, 7, 8)),
    ("AvgPool3d", (2,), {}, (1, 2, 4, 4, 4)),
    ("AvgPool3d", (3, 2, 1), {"count_include_pad": False, "divisor_override": 5}, (2, 5, 4, 6)),
    ("AdaptiveAvgPool1d", (4,), {}, (2, 3, 9)),
    ("AdaptiveAvgPool2d", ((3, None),), {}, (2, 3, 7, 5)),
    ("AdaptiveAvgPool2d", (1,), {}, (2, 3, 4, 4)),
    ("AdaptiveAvgPool3d", ((2, 3, 1),), {}, (2, 5, 4, 6)),
    ("AdaptiveMaxPool1d", (4,), {}, (2, 3, 9)),
    ("AdaptiveMaxPool1d", (3,), {"return_indices": True}, (3, 7)),
    ("AdaptiveMaxPool2d", ((3, None),), {"return_indices": True}, (2, 3, 7, 5)),
    ("AdaptiveMaxPool3d", (2,), {}, (1, 2, 5, 4, 3)),
    ("AdaptiveMaxPool3d", ((2, 1, 3),), {"return_indices": True}, (2, 3, 4, 6)),
]


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name,args,kw,x", POOLS, ids=lambda v: str(v))
def test_pool(name, args, kw, x, dtype):
    check_module(lambda lib: getattr(lib.nn, name)(*args, **kw), distinct(x), dtype=dtype)


LP = [
    ("LPPool1d", (2, 3), {}, (2, 3, 9)),
    ("LPPool1d", (3, 2, 1), {"ceil_mode": False}, (3, 7)),
    ("LPPool2d", (2, 2), {}, (2, 3, 6, 6)),
    ("LPPool2d", (1.5, (3, 2), (2, 1)), {"ceil_mode": True}, (2, 2, 7, 5)),
    ("LPPool3d", (2, 2), {}, (1, 2, 4, 4, 4)),
]


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name,args,kw,x", LP, ids=lambda v: str(v))
def test_lp_pool(name, args, kw, x, dtype):
    check_module(lambda lib: getattr(lib.nn, name)(*args, **kw), positive(x), dtype=dtype)


UNPOOL = [
    (1, 2, None, (2, 3, 8), None),
    (1, 3, 2, (2, 9), [9]),
    (2, 2, None, (2, 3, 6, 6), None),
    (2, (3, 2), (2, 1), (1, 2, 7, 5), [7, 5]),
    (3, 2, None, (1, 2, 4, 4, 4), [1, 2, 5, 4, 5]),
]


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("dims,kernel,stride,x,size", UNPOOL, ids=lambda v: str(v))
def test_max_unpool(dims, kernel, stride, x, size, dtype):
    """Unpool the output of a max pool at its indices (a pool, then the unpool under test)."""

    def call(m, t):
        lib = cr if isinstance(t, cr.Tensor) else torch
        pool = getattr(lib.nn, f"MaxPool{dims}d")(kernel, stride, return_indices=True)
        out, idx = pool(t)
        return m(out, idx) if size is None else m(out, idx, output_size=size)

    check_module(
        lambda lib: getattr(lib.nn, f"MaxUnpool{dims}d")(kernel, stride),
        distinct(x),
        dtype=dtype,
        call=call,
    )


def test_reprs():
    def mods(lib):
        nn = lib.nn
        return nn.Sequential(
            nn.MaxPool1d(3),
            nn.MaxPool2d((2, 3), stride=1, padding=1, dilation=2, return_indices=True),
            nn.MaxPool3d(2, ceil_mode=True),
            nn.AvgPool1d(3, 2, 1, True, False),
            nn.AvgPool2d((2, 3), divisor_override=3),
            nn.AvgPool3d(2, stride=1),
            nn.LPPool1d(2, 3),
            nn.LPPool2d(1.5, (2, 2), stride=1, ceil_mode=True),
            nn.LPPool3d(3, 2),
            nn.AdaptiveAvgPool1d(4),
            nn.AdaptiveAvgPool2d((None, 3)),
            nn.AdaptiveAvgPool3d(1),
            nn.AdaptiveMaxPool1d(4, True),
            nn.AdaptiveMaxPool2d((2, None)),
            nn.AdaptiveMaxPool3d((1, 2, 3)),
            nn.MaxUnpool1d(2),
            nn.MaxUnpool2d((2, 3), stride=1, padding=1),
            nn.MaxUnpool3d(2, 1),
        )

    assert str(mods(cr)) == str(mods(torch))
    assert mods(cr).state_dict() == {}


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib: lib.nn.MaxPool2d(3, padding=2)(lib.ones(1, 1, 6, 6)),
        lambda lib: lib.nn.MaxPool2d(3)(lib.ones(2, 2)),
        lambda lib: lib.nn.AvgPool2d(3, padding=2)(lib.ones(1, 1, 6, 6)),
        lambda lib: lib.nn.AvgPool1d(5)(lib.ones(1, 1, 3)),
        lambda lib: lib.nn.AdaptiveAvgPool2d(2)(lib.ones(5)),
        lambda lib: lib.nn.MaxUnpool2d(2)(
            lib.ones(1, 1, 2, 2), lib.zeros(1, 1, 2, 2, dtype=lib.int64), [3]
        ),
    ],
    ids=["pad-too-big", "ndim", "avg-pad", "avg-small", "adaptive-ndim", "unpool-size"],
)
def test_errors(fn):
    assert_same_error(fn)


def test_return_indices_dtype():
    for lib in (cr, torch):
        out, idx = lib.nn.MaxPool2d(2, return_indices=True)(lib.tensor(distinct((1, 1, 4, 4))))
        assert str(idx.dtype) == "torch.int64" and tuple(idx.shape) == (1, 1, 2, 2)
    np.testing.assert_array_equal(
        cr.nn.AdaptiveMaxPool1d(2, True)(cr.tensor(distinct((1, 1, 6))))[1].numpy(),
        torch.nn.AdaptiveMaxPool1d(2, True)(torch.tensor(distinct((1, 1, 6))))[1].numpy(),
    )
