"""special.entr and special.xlog1py (ops/special.py) against PyTorch: values, dtypes,
node names, gradients and tangents in float32 and float64 with broadcasting and Python
numbers, the points 0, negative and nan, finite differences, second derivatives."""

from __future__ import annotations

import numpy as np
import pytest

import cases
from oracle import (
    DT_IDS,
    FLOATS,
    NoGrad,
    check,
    check_double_backward,
    check_fd,
    positive,
    same_node,
    values,
)

CASES = {
    "entr": (lambda L, x: L.special.entr(x), positive((2, 3))),
    "entr_0d": (lambda L, x: L.special.entr(x), positive(())),
    "xlog1py": (
        lambda L, a, b: L.special.xlog1py(a, b),
        values("any", (2, 3)),
        values("gt-1", (3,)),
    ),
    "xlog1py_number_a": (lambda L, b: L.special.xlog1py(2.5, b), values("gt-1", (4,))),
    "xlog1py_number_b": (lambda L, a: L.special.xlog1py(a, 0.75), values("any", (4,))),
    "xlog1py_empty": (lambda L, a, b: L.special.xlog1py(a, b), np.zeros((0, 2)), positive((2,))),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name, dtype):
    fn, *inputs = CASES[name]
    same_node(check(fn, *inputs, dtype=dtype))


@pytest.mark.parametrize("name", ["entr", "xlog1py", "xlog1py_number_a"])
def test_finite_differences(name):
    fn, *inputs = CASES[name]
    check_fd(fn, *inputs)


@pytest.mark.parametrize("name", ["entr", "xlog1py"])
def test_second_derivatives(name):
    fn, *inputs = CASES[name]
    check_double_backward(fn, *inputs)


EDGES = {  # 0, negative, nan: values, and the gradients PyTorch gives there (inf, nan, 0)
    "entr_edges": (lambda L, x: L.special.entr(x), np.array([0.0, -1.0, np.nan, np.inf, 2.0])),
    "xlog1py_zero_a": (
        lambda L, a, b: L.special.xlog1py(a, b),
        np.array([0.0, 0.0, 1.0, 2.0]),
        np.array([-1.0, np.nan, -1.0, 0.5]),
    ),
    "entr_int": (lambda L, x: L.special.entr(x), np.array([0, 1, 3])),
    "xlog1py_int": (
        lambda L, a, b: L.special.xlog1py(a, b),
        np.array([0, 2]),
        NoGrad(positive((2,))),
    ),
}
test_edges_match_torch = cases.matches_torch(EDGES)
