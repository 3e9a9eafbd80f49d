"""quantile and nanquantile (api/parsers/counting.py, a composition of sort, gather and
lerp) against PyTorch: every interpolation, q a number, 0-d or 1-D tensor, dim and
keepdim, nans; values, dtypes, gradients and tangents in float32 and float64, finite
differences, errors."""

from __future__ import annotations

import numpy as np
import pytest

import cases
from oracle import DT_IDS, FLOATS, NoGrad, check, check_fd, distinct

X = distinct((3, 5))
NAN = distinct((3, 4))
NAN[0, 1] = np.nan
NAN[2, :] = np.nan
Q = np.array([0.0, 0.25, 0.6, 1.0])

CASES = {
    f"{interp}_{tag}": (fn, X)
    for interp in ("linear", "lower", "higher", "midpoint", "nearest")
    for tag, fn in {
        "all": lambda L, x, i=interp: L.quantile(x, 0.3, interpolation=i),
        "dim": lambda L, x, i=interp: x.quantile(0.55, dim=1, interpolation=i),
        "q_tensor_keepdim": lambda L, x, i=interp: L.quantile(
            x, L.tensor([0.1, 0.5, 0.9], dtype=x.dtype), 0, True, interpolation=i
        ),
    }.items()
}
CASES["q_0d_tensor"] = (lambda L, x: L.quantile(x, L.tensor(0.4, dtype=x.dtype), -1), X)
CASES["keepdim_all"] = (lambda L, x: L.quantile(x, 0.5, keepdim=True), X)
CASES["input_0d"] = (lambda L, x: L.quantile(x, 0.5, dim=0), np.array(1.5))


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name, dtype):
    fn, *inputs = CASES[name]
    check(fn, *inputs, dtype=dtype)


@pytest.mark.parametrize("name", ["linear_q_tensor_keepdim", "midpoint_dim", "nearest_all"])
def test_finite_differences(name):
    fn, *inputs = CASES[name]
    check_fd(fn, *inputs)


NANS = {  # nan slices: values only (the gradient of a nan result is nan in both)
    "quantile_nan": (lambda L, x: L.quantile(x, 0.5, dim=1), NoGrad(NAN)),
    "nanquantile": (lambda L, x, q: L.nanquantile(x, q, dim=1), NoGrad(NAN), NoGrad(Q)),
    "nanquantile_all": (lambda L, x: x.nanquantile(0.3), NoGrad(NAN)),
    "nanquantile_lower": (
        lambda L, x: L.nanquantile(x, 0.7, 1, interpolation="lower"),
        NoGrad(NAN),
    ),
}
test_nans_match_torch = cases.matches_torch(NANS)


def test_nanquantile_gradient_matches_torch():
    x = NAN[:2].copy()  # a nan in row 0, none in row 1: finite results
    check(lambda L, x: L.nanquantile(x, 0.5, dim=1), x)


ERRORS = {
    "int_input": (lambda L, x: L.quantile(x, 0.5), [np.array([1, 2])]),
    "q_2d": (lambda L, x, q: L.quantile(x, q), [np.ones(3), np.ones((2, 2))]),
    "q_range": (lambda L, x: L.quantile(x, 1.5), [np.ones(3)]),
    "q_dtype": (lambda L, x, q: L.quantile(x, q), [np.ones(3), np.ones(2, np.float32)]),
    "empty": (lambda L, x: L.quantile(x, 0.5), [np.ones(0)]),
    "interpolation": (lambda L, x: L.nanquantile(x, 0.5, interpolation="foo"), [np.ones(3)]),
}
test_errors_as_torch = cases.same_errors_as_torch(ERRORS)
