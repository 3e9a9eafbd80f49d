"""The normalisation layers side by side with torch.nn: ``LayerNorm``, ``GroupNorm``,
``RMSNorm``, ``LocalResponseNorm``, ``CrossMapLRN2d``, ``BatchNorm1d/2d/3d`` and
``InstanceNorm1d/2d/3d``: outputs, gradients of inputs and parameters, running statistics
in training and eval mode, reprs, state dicts, initial values, PyTorch's errors."""

from __future__ import annotations

import pytest
import torch

import chainrule as cr
from nn_layers import check_module
from oracle import DT_IDS, FLOATS, R, assert_same_error

LAYER_NORM = [
    ((3,), {}, (2, 3)),
    ([2, 3], {}, (4, 2, 3)),
    (4, {"elementwise_affine": False}, (3, 4)),
    ((4,), {"bias": False}, (2, 5, 4)),
    ((2, 2), {"eps": 1e-3}, (2, 2)),
    (torch.Size([3]), {}, (3,)),
]


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("shape,kw,x", LAYER_NORM, ids=lambda v: str(v))
def test_layer_norm(shape, kw, x, dtype):
    check_module(lambda lib: lib.nn.LayerNorm(shape, **kw), R(*x), dtype=dtype)


def test_layer_norm_parameters():
    m = cr.nn.LayerNorm([2, 3], dtype=cr.float64)
    assert m.normalized_shape == (2, 3) and m.eps == 1e-5 and m.elementwise_affine
    assert cr.equal(m.weight, cr.ones(2, 3, dtype=cr.float64))
    assert cr.equal(m.bias, cr.zeros(2, 3, dtype=cr.float64))
    assert cr.nn.LayerNorm(3, elementwise_affine=False).weight is None
    assert list(cr.nn.LayerNorm(3, bias=False).state_dict()) == ["weight"]


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib: lib.nn.LayerNorm(3)(lib.ones(2, 4)),
        lambda lib: lib.nn.LayerNorm([2, 3])(lib.ones(3, 2)),
    ],
)
def test_layer_norm_errors(fn):
    assert_same_error(fn)
