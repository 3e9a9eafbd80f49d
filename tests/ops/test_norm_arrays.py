"""The norm layers' array path (a forward, a backward without create_graph) pinned to the
recorded ops it shortcuts: ``normalized`` on arrays calls the ops' forwards directly and
scales in place; ``_affine`` writes into the private x̂. Same values, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

import chainrule as cr
from chainrule.ops import norm_layers

# (the last two: one axis of 512 elements or more, summed by BLAS, _backend.add_reduce)
CASES = [
    ((3, 4, 5, 6), (1,)),
    ((3, 4, 5, 6), (0, 2, 3)),
    ((3, 4, 5, 6), (2, 3)),
    ((32, 64), (1,)),
    ((4, 8, 32), (2,)),
]


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize(("shape", "axes"), CASES)
def test_normalized_on_arrays_is_the_recorded_ops_bits(dt, shape, axes):
    x = np.random.default_rng(0).standard_normal(shape).astype(dt) * 3 + 1
    xhat, invstd = norm_layers.normalized(x, axes, 1e-5)
    t = cr.from_numpy(x.copy()).requires_grad_()
    want_hat, want_inv = norm_layers.normalized(t, axes, 1e-5)  # recorded: the ops' path
    np.testing.assert_array_equal(xhat, want_hat.detach().numpy())
    np.testing.assert_array_equal(invstd, want_inv.detach().numpy())
    assert xhat.dtype == x.dtype and invstd.dtype == x.dtype


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("weight", [True, False])
def test_affine_in_place_is_the_products_bits(weight, bias):
    r = np.random.default_rng(1)
    xhat = r.standard_normal((4, 6)).astype(np.float32)
    w = r.standard_normal(6).astype(np.float32) if weight else None
    b = r.standard_normal(6).astype(np.float32) if bias else None
    want = xhat * (1 if w is None else w) + (0 if b is None else b)
    got = norm_layers._affine(xhat.copy(), w, b, (1, 6))
    np.testing.assert_array_equal(got, want.astype(np.float32))


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize(("shape", "axes"), [c for c in CASES if c[1] != (2, 3)])
def test_normalize_rule_on_arrays_is_the_recorded_ops_bits(dt, shape, axes):
    r = np.random.default_rng(2)
    x = r.standard_normal(shape).astype(dt)
    v = r.standard_normal(shape).astype(dt)
    xhat, invstd = norm_layers.normalized(x, axes, 1e-5)
    got = norm_layers._normalize_rule(v, xhat, invstd, axes)
    t = [cr.from_numpy(a.copy()) for a in (v, xhat, invstd)]
    want = norm_layers._normalize_rule(*t, axes)  # on tensors: the ops' path
    np.testing.assert_array_equal(got, want.numpy())
