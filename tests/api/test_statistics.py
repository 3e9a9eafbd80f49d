"""cdist, cov and corrcoef (api/parsers/statistics.py) against PyTorch: values, dtypes,
gradients and tangents in float32 and float64 (p-norms, batches, weights, 1-D inputs),
finite differences, errors."""

from __future__ import annotations

import numpy as np
import pytest

import cases
from oracle import DT_IDS, FLOATS, L64, NoGrad, R, check, check_fd, positive

CASES = {
    "cdist": (lambda L, a, b: L.cdist(a, b), R(3, 4), R(5, 4)),
    "cdist_p1": (lambda L, a, b: L.cdist(a, b, p=1), R(3, 4), R(2, 4)),
    "cdist_p3": (lambda L, a, b: L.cdist(a, b, 3.0), R(3, 4), R(2, 4)),
    "cdist_pinf": (lambda L, a, b: L.cdist(a, b, float("inf")), R(3, 4), R(2, 4)),
    "cdist_batch": (lambda L, a, b: L.cdist(a, b), R(2, 3, 4), R(2, 5, 4)),
    "cdist_broadcast": (lambda L, a, b: L.cdist(a, b), R(2, 3, 4), R(5, 4)),
    "cov": (lambda L, x: L.cov(x), R(3, 5)),
    "cov_method_1d": (lambda L, x: x.cov(), R(6)),
    "cov_correction0": (lambda L, x: L.cov(x, correction=0), R(2, 4)),
    "cov_fweights": (lambda L, x, f: L.cov(x, fweights=f), R(3, 4), L64(1, 2, 0, 3)),
    "cov_aweights": (lambda L, x, a: L.cov(x, aweights=a), R(3, 4), positive((4,))),
    "cov_both": (
        lambda L, x, f, a: L.cov(x, correction=2, fweights=f, aweights=a),
        R(2, 5),
        L64(1, 2, 1, 3, 1),
        NoGrad(positive((5,))),
    ),
    "corrcoef": (lambda L, x: L.corrcoef(x), R(3, 5)),
    "corrcoef_method_1d": (lambda L, x: x.corrcoef(), R(4)),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name, dtype):
    fn, *inputs = CASES[name]
    check(fn, *inputs, dtype=dtype)


@pytest.mark.parametrize("name", ["cdist", "cdist_p3", "cov_aweights", "corrcoef"])
def test_finite_differences(name):
    fn, *inputs = CASES[name]
    check_fd(fn, *inputs)


NO_GRAD = {
    "cov_int": (lambda L, x: L.cov(x), L64([1, 2, 4], [3, 1, 0])),
    "cdist_zero_distance": (lambda L, a: L.cdist(a, a), NoGrad(R(3, 2))),
}
test_no_grad_matches_torch = cases.matches_torch(NO_GRAD)

ERRORS = {
    "cdist_1d": (lambda L, a, b: L.cdist(a, b), [np.ones(3), np.ones((3, 3))]),
    "cdist_columns": (lambda L, a, b: L.cdist(a, b), [np.ones((2, 3)), np.ones((3, 4))]),
    "cdist_p": (lambda L, a, b: L.cdist(a, b, -1), [np.ones((2, 3)), np.ones((3, 3))]),
    "cdist_int": (lambda L, a, b: L.cdist(a, b), [L64([1, 2]), L64([1, 2])]),
    "cov_3d": (lambda L, x: L.cov(x), [np.ones((2, 2, 2))]),
    "cov_fweights_float": (lambda L, x, f: L.cov(x, fweights=f), [np.ones((2, 3)), np.ones(3)]),
    "cov_aweights_numel": (lambda L, x, a: L.cov(x, aweights=a), [np.ones((2, 3)), np.ones(2)]),
    "cov_negative": (lambda L, x, a: L.cov(x, aweights=a), [np.ones((2, 3)), -np.ones(3)]),
    "corrcoef_3d": (lambda L, x: L.corrcoef(x), [np.ones((2, 2, 2))]),
}
test_errors_as_torch = cases.same_errors_as_torch(ERRORS)
