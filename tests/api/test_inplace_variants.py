"""The in-place ``_`` variants as a mechanism: each returns the tensor it wrote into and
bumps its version, as PyTorch's. (Their values and gradients are tested with each op
family in tests/ops/, their recording in tests/autograd/test_inplace.py.)
"""

from __future__ import annotations

import torch

import chainrule as cr
from cases import GATHER_INDEX, MASK


def test_inplace_returns_self_and_bumps_the_version():
    y = cr.tensor([0.5, 2.0]) * 1
    v = y._version
    assert y.clamp_(0, 1) is y and y._version == v + 1
    assert y.tolist() == [0.5, 1.0]


def test_inplace_variants_bump_the_version_and_return_self():
    for lib in (cr, torch):
        x = lib.zeros(3, 4)
        assert x.scatter_(1, lib.tensor(GATHER_INDEX), 1.0) is x
        assert x.index_add_(0, lib.tensor([0]), lib.ones(1, 4)) is x
        assert x.masked_fill_(lib.tensor(MASK), 3.0) is x
        assert x.scatter_add_(0, lib.tensor([[1]]), lib.ones(1, 1)) is x
        assert x._version == 4
