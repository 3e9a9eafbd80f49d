"""torch.func.linearize against PyTorch: the output and the JVP function for one and
several inputs, tuple outputs, repeated calls, and the error for a mis-shaped tangent."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import assert_close, assert_same_error

X = np.linspace(-1.0, 2.0, 6).reshape(2, 3)
T1 = np.arange(6.0).reshape(2, 3) / 5
T2 = np.ones((2, 3))

FUNCS = {
    "one_input": (lambda L, a: (a.sin() * a).sum(-1), (X,), [(T1,), (T2,)]),
    "two_inputs": (lambda L, a, b: a @ b.mT + b.exp().sum(), (X, X * 0.5), [(T1, T2), (T2, T1)]),
    "tuple_output": (lambda L, a, b: (a * b, L.tanh(a - b)), (X, X + 1), [(T1, T2)]),
}


@pytest.mark.parametrize("name", list(FUNCS))
def test_linearize_matches_torch(name):
    fn, primals, tangent_sets = FUNCS[name]
    results = []
    for L in (cr, torch):
        ps = tuple(L.tensor(p) for p in primals)
        out, jvp_fn = L.func.linearize(lambda *a, L=L: fn(L, *a), *ps)
        results.append((out, [jvp_fn(*(L.tensor(t) for t in ts)) for ts in tangent_sets]))
    assert_close(results[0], results[1], 1e-10, 1e-12)


def test_linearize_tangent_shape_error():
    def run(L):
        _, jvp_fn = L.func.linearize(lambda a: a.sin(), L.ones(3))
        return jvp_fn(L.ones(2))

    for L in (cr, torch):
        with pytest.raises(RuntimeError, match="doesn't match the shape"):
            run(L)


EINSUM = {
    "matmul": lambda L, a, b: L.einsum(a, [0, 1], b, [1, 2], [0, 2]),
    "implicit_output": lambda L, a, b: L.einsum(a, [0, 1], b, [1, 2]),
    "ellipsis_high_labels": lambda L, a, b: L.einsum(a, [..., 1], b, [1, 30], [..., 30]),
    "trace": lambda L, a, b: L.einsum(a[:, :2], [5, 5]),
    "outer": lambda L, a, b: L.einsum(a[0], [51], b[0], [0], [0, 51]),
}


@pytest.mark.parametrize("name", list(EINSUM))
def test_einsum_sublist_matches_torch(name):
    from oracle import check

    check(
        EINSUM[name],
        np.random.default_rng(1).standard_normal((2, 3)),
        np.random.default_rng(2).standard_normal((3, 4)),
    )


def test_einsum_sublist_label_range():
    assert_same_error(lambda L: L.einsum(L.ones(2), [52]))
