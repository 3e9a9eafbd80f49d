"""Forward mode: every op has a JVP rule, tangents equal PyTorch's, and each forward-mode
rule torch lacks (``oracle.KNOWN_TORCH_FORWARD_GAPS``, where ``oracle.check`` compares no
tangent) is really missing in torch."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import chainrule as cr
import oracle
from chainrule.autograd.registry import REGISTRY
from oracle import compare_tangents, tangent

# Each case: a function of (lib, *tensors) and the input shapes. Inputs are positive
# where the function needs it (log, sqrt, pow).
CASES = {
    "add": (lambda L, a, b: a + b, [(3, 1), (4,)]),
    "add_alpha": (lambda L, a, b: L.add(a, b, alpha=2.5), [(3,), (3,)]),
    "sub": (lambda L, a, b: a - b, [(2, 3), (3,)]),
    "rsub": (lambda L, a: 2 - a, [(3,)]),
    "mul": (lambda L, a, b: a * b, [(2, 1), (1, 3)]),
    "div": (lambda L, a, b: a / b, [(3,), (3,)]),
    "rdiv": (lambda L, a: 2 / a, [(3,)]),
    "neg": (lambda L, a: -a, [(3,)]),
    "pow_scalar": (lambda L, a: a**3, [(3,)]),
    "pow_tensor": (lambda L, a, b: a**b, [(3,), (3,)]),
    "pow_scalar_base": (lambda L, a: 2.5**a, [(3,)]),
    "exp": (lambda L, a: a.exp(), [(3,)]),
    "log": (lambda L, a: a.log(), [(3,)]),
    "sin": (lambda L, a: a.sin(), [(3,)]),
    "cos": (lambda L, a: a.cos(), [(3,)]),
    "tanh": (lambda L, a: a.tanh(), [(3,)]),
    "sigmoid": (lambda L, a: a.sigmoid(), [(3,)]),
    "sqrt": (lambda L, a: a.sqrt(), [(3,)]),
    "relu": (lambda L, a: (a - 1).relu(), [(5,)]),
    "abs": (lambda L, a: (a - 1).abs(), [(5,)]),
    "sign": (lambda L, a: (a - 1).sign() * a, [(5,)]),
    "where": (lambda L, a, b: L.where(a > 1, a, b), [(4,), (4,)]),
    "clone": (lambda L, a: a.clone(), [(3,)]),
    "to_dtype": (lambda L, a: a.float(), [(3,)]),
    "sum": (lambda L, a: a.sum(), [(2, 3)]),
    "sum_dim": (lambda L, a: a.sum(1, keepdim=True), [(2, 3)]),
    "mean": (lambda L, a: a.mean(0), [(2, 3)]),
    "norm": (lambda L, a: a.norm(), [(2, 3)]),
    "norm_dim": (lambda L, a: a.norm(dim=1), [(2, 3)]),
    "norm_1": (lambda L, a: a.norm(p=1), [(4,)]),
    "norm_3": (lambda L, a: L.linalg.vector_norm(a, 3), [(4,)]),
    "norm_inf": (lambda L, a: L.linalg.vector_norm(a, math.inf), [(4,)]),
    "matmul": (lambda L, a, b: a @ b, [(2, 3), (3, 4)]),
    "matmul_batched": (lambda L, a, b: a @ b, [(2, 2, 3), (3,)]),
    "mm": (lambda L, a, b: L.mm(a, b), [(2, 3), (3, 2)]),
    "view": (lambda L, a: a.view(3, 2), [(2, 3)]),
    "reshape_copy": (lambda L, a: a.t().reshape(6), [(2, 3)]),
    "expand": (lambda L, a: a.expand(3, 4), [(3, 1)]),
    "permute": (lambda L, a: a.permute(2, 0, 1), [(2, 3, 4)]),
    "t": (lambda L, a: a.t(), [(2, 3)]),
    "transpose": (lambda L, a: a.transpose(0, 2), [(2, 3, 4)]),
    "getitem": (lambda L, a: a[1:, [0, 0, 2]], [(3, 4)]),
    "setitem": (lambda L, a, b: _setitem(a, b), [(3, 4), (4,)]),
    "fill": (lambda L, a: _fill(a), [(3,)]),
    "copy": (lambda L, a, b: _copy(a, b), [(2, 3), (3,)]),
}


def _setitem(a, b):
    y = a * 1
    y[1] = b
    return y


def _fill(a):
    y = a * 2
    y.fill_(3.0)
    return y + a


def _copy(a, b):
    y = a * 1
    y.copy_(b)
    return y


def _inputs(shapes, seed):
    rng = np.random.default_rng(seed)
    return [rng.uniform(0.5, 2.0, s) for s in shapes], [rng.standard_normal(s) for s in shapes]


@pytest.mark.parametrize("name", sorted(CASES))
def test_tangent_matches_torch(name):
    fn, shapes = CASES[name]
    primals, tangents = _inputs(shapes, seed=len(name))
    compare_tangents(fn, primals, tangents)


def test_every_differentiable_op_has_a_jvp_rule():
    """An op with a VJP for an input must have a JVP for it: forward mode covers every op."""
    missing = [
        op.name
        for op in REGISTRY.values()
        for vjp, jvp in zip(op.raw_vjps, op.raw_jvps)
        if vjp is not None and jvp is None
    ]
    assert missing == []


def test_tangent_equals_jacobian_times_vector():
    """For the seed's doubling loop, the tangent is J v = 2^(c+1) v."""
    x = cr.tensor([0.3, -0.2, 0.1])
    v = cr.tensor([0.1, 1.0, 0.0001])
    fwd = cr.autograd.forward_ad
    with fwd.dual_level():
        y = fwd.make_dual(x, v) * 2
        c = 0
        while fwd.unpack_dual(y).primal.norm() < 1000:
            y = y * 2
            c += 1
        tangent = fwd.unpack_dual(y).tangent
    assert bool((tangent == v * 2 ** (c + 1)).all())


def test_tangents_are_dropped_after_the_level():
    fwd = cr.autograd.forward_ad
    with fwd.dual_level():
        y = fwd.make_dual(cr.ones(2), cr.ones(2)) * 3
    assert fwd.unpack_dual(y).tangent is None


def test_make_dual_outside_a_level_raises():
    with pytest.raises(RuntimeError, match="no level exists"):
        cr.autograd.forward_ad.make_dual(cr.ones(2), cr.ones(2))


# ----- the forward-mode rules torch lacks ----------------------------------------------

TORCH_GAP_EXAMPLES = {
    "aten::floor_divide": lambda L, x: L.floor_divide(x, 0.7),
    "aten::remainder": lambda L, x: L.remainder(2.5, x),
    "cholesky": lambda L, x: L.cholesky(x @ x.mT + 3 * L.eye(3, dtype=x.dtype)),
    "rrelu_with_noise_": lambda L, x: L.nn.functional.rrelu(x * 1, inplace=True),
    "grid_sampler_2d": lambda L, x: L.nn.functional.grid_sample(
        x[None, None], L.stack([x, x], -1)[None] * 0.3, align_corners=False
    ),
    "grid_sampler_3d": lambda L, x: L.nn.functional.grid_sample(
        x[None, None, None], L.stack([x, x, x], -1)[None, None] * 0.3, align_corners=False
    ),
    "multi_margin_loss": lambda L, x: L.nn.functional.multi_margin_loss(x, L.tensor([0, 2, 1])),
    "multilabel_margin_loss_forward": lambda L, x: L.nn.functional.multilabel_margin_loss(
        x, L.tensor([[0, -1, 0], [2, 1, -1], [1, 0, 2]])
    ),
    "_pdist_forward": lambda L, x: L.nn.functional.pdist(x),
    "_cdist_forward": lambda L, x: L.cdist(x, x),
    "_scaled_dot_product_flash_attention_for_cpu": lambda L, x: (
        L.nn.functional.scaled_dot_product_attention(x[None, None], x[None, None], x[None, None])
    ),
    "_ctc_loss": lambda L, x: L.nn.functional.ctc_loss(
        x[:, None].log_softmax(2), L.tensor([[1, 2]]), L.tensor([3]), L.tensor([2])
    ),
    "_embedding_bag": lambda L, x: L.nn.functional.embedding_bag(
        L.tensor([0, 2, 1]), x, L.tensor([0, 1])
    ),
    "_weight_norm_interface": lambda L, x: L._weight_norm(x, L.ones(3, 1, dtype=x.dtype), 0),
}


@pytest.mark.parametrize("op", sorted(oracle.KNOWN_TORCH_FORWARD_GAPS))
def test_known_torch_forward_gaps_are_real(op):
    """Each gap oracle.check accepts (and lists at the end of the run) is one torch really
    has: its forward mode raises, naming the op, so the list cannot go stale."""
    x = np.random.default_rng(0).uniform(0.5, 2.0, (3, 3))
    with pytest.raises(NotImplementedError, match=f"forward AD with {op} that does not"):
        tangent(torch, TORCH_GAP_EXAMPLES[op], [x], [np.ones((3, 3))])
