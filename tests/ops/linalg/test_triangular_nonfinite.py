"""linalg.solve_triangular where the general solve would differ from LAPACK's triangular
solve: a zero on the diagonal (PyTorch gives infinities, not an error), infinities and
NaNs in A or B (PyTorch's values row by row, not NaN everywhere), and the shape errors
naming solve_triangular. Real dtypes, every triangle, side and unit-diagonal choice."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import assert_same_error


def _cases():
    rng = np.random.default_rng(7)
    out = []
    for i in range(24):
        n, k = int(rng.integers(1, 5)), int(rng.integers(1, 3))
        batch = [(), (2,)][i % 2]
        a, b = rng.standard_normal(batch + (n, n)), rng.standard_normal(batch + (n, k))
        for arr in (a, b):
            m = rng.random(arr.shape)
            arr[m < 0.12] = np.inf
            arr[(m > 0.12) & (m < 0.17)] = -np.inf
            arr[(m > 0.17) & (m < 0.25)] = 0.0
            arr[(m > 0.25) & (m < 0.27)] = np.nan
        out.append((a, b))
    return out


CASES = _cases()
OPTIONS = list(itertools.product([False, True], [True, False], [False, True]))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("upper,left,unit", OPTIONS)
def test_nonfinite_and_singular_as_pytorch(dtype, upper, left, unit):
    for a, b in CASES:
        rhs = b if left else np.swapaxes(b, -1, -2).copy()
        want, got = (
            L.linalg.solve_triangular(
                L.tensor(a.astype(dtype)),
                L.tensor(rhs.astype(dtype)),
                upper=upper,
                left=left,
                unitriangular=unit,
            ).numpy()
            for L in (torch, cr)
        )
        tol = 1e-4 if dtype == "float32" else 1e-10
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_zero_pivot_gives_infinities():
    a = [[2.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.5, 1.0, 4.0]]
    got = cr.linalg.solve_triangular(cr.tensor(a), cr.ones(3, 1), upper=False)
    want = torch.linalg.solve_triangular(torch.tensor(a), torch.ones(3, 1), upper=False)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("left,b_shape", [(True, (4, 2)), (False, (2, 4))])
def test_shape_error_names_solve_triangular(left, b_shape):
    assert_same_error(
        lambda L: L.linalg.solve_triangular(L.eye(3), L.ones(*b_shape), upper=False, left=left)
    )
