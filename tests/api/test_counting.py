"""Finding, counting and binning against PyTorch (api/parsers/counting.py): nonzero,
argwhere, unique, unique_consecutive, bincount, histc, histogram, searchsorted, bucketize:
values, dtypes, the shapes of empty and 0-d cases, named tuples, errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import L64, assert_close, assert_same_error, to_lib

V = L64(3, 1, 2, 3, 1, 1)
M = L64([1, 2], [1, 2], [0, 5], [1, 2])
F = np.array([[0.5, 0.0, -2.0], [0.0, 1.5, 0.0]])
S = np.array([1.0, 3.0, 5.0, 7.0])
S2 = np.array([[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]])
X2 = np.array([[3.0, 6.0, 0.0], [4.0, 4.0, 9.0]])

CASES = {
    "nonzero": (lambda L, x: L.nonzero(x), F),
    "nonzero_method_tuple": (lambda L, x: x.nonzero(as_tuple=True), F),
    "nonzero_0d": (lambda L, x: L.nonzero(x), np.array(3.0)),
    "nonzero_0d_zero": (lambda L, x: L.nonzero(x), np.array(0.0)),
    "nonzero_0d_tuple": (lambda L, x: L.nonzero(x, as_tuple=True), np.array(2.0)),
    "nonzero_bool": (lambda L, x: L.nonzero(x), np.array([True, False, True])),
    "nonzero_empty": (lambda L, x: L.nonzero(x), np.zeros((0, 3))),
    "argwhere": (lambda L, x: L.argwhere(x), F),
    "argwhere_method": (lambda L, x: x.argwhere(), V),
    "unique": (lambda L, x: L.unique(x), V),
    "unique_all": (lambda L, x: L.unique(x, return_inverse=True, return_counts=True), V),
    "unique_2d": (lambda L, x: x.unique(return_inverse=True), M),
    "unique_dim0": (lambda L, x: L.unique(x, dim=0, return_inverse=True, return_counts=True), M),
    "unique_dim1": (lambda L, x: L.unique(x, dim=1, return_counts=True), M.T.copy()),
    "unique_float": (lambda L, x: L.unique(x, return_counts=True), F),
    "unique_consecutive": (
        lambda L, x: L.unique_consecutive(x, return_inverse=True, return_counts=True),
        V,
    ),
    "unique_consecutive_method": (lambda L, x: x.unique_consecutive(), F),
    "unique_consecutive_dim": (
        lambda L, x: L.unique_consecutive(x, return_inverse=True, return_counts=True, dim=0),
        M,
    ),
    "bincount": (lambda L, x: L.bincount(x), V),
    "bincount_minlength": (lambda L, x: x.bincount(minlength=7), V),
    "bincount_weights32": (
        lambda L, x, w: L.bincount(x, w),
        V,
        np.arange(6, dtype=np.float32),
    ),
    "bincount_weights64": (lambda L, x, w: L.bincount(x, w), V, np.arange(6.0)),
    "bincount_weights_int": (lambda L, x, w: L.bincount(x, w), V, np.arange(6, dtype=np.int32)),
    "bincount_empty": (lambda L, x: L.bincount(x), np.zeros(0, np.int64)),
    "histc": (lambda L, x: L.histc(x, bins=4), np.array([1.0, 2.0, 1.0, 1.7])),
    "histc_range": (lambda L, x: x.histc(5, -1, 1), np.array([-1.0, 1.0, 0.0, 2.0, -0.3])),
    "histc_constant": (lambda L, x: L.histc(x, 3), np.array([2.0, 2.0])),
    "histc_f32": (lambda L, x: L.histc(x, 3), np.array([2.0, 5.0, 3.0], dtype=np.float32)),
    "histogram": (lambda L, x: L.histogram(x, 4), np.array([1.0, 2.0, 1.0, 1.7])),
    "histogram_range_weight_density": (
        lambda L, x, w: L.histogram(x, 3, range=(0.0, 3.0), weight=w, density=True),
        np.array([0.5, 2.5, 1.0, 2.9]),
        np.array([1.0, 2.0, 0.5, 1.0]),
    ),
    "histogram_edges": (
        lambda L, x, e: x.histogram(e),
        np.array([0.5, 2.5, 1.0, 2.9]),
        np.array([0.0, 1.0, 2.5, 3.0]),
    ),
    "searchsorted": (lambda L, s, x: L.searchsorted(s, x), S, np.array([0.0, 3.0, 4.0, 9.0])),
    "searchsorted_right": (
        lambda L, s, x: L.searchsorted(s, x, right=True),
        S,
        np.array([[3.0, 7.0], [1.0, 2.0]]),
    ),
    "searchsorted_side": (lambda L, s, x: L.searchsorted(s, x, side="right"), S, S),
    "searchsorted_int32": (lambda L, s, x: L.searchsorted(s, x, out_int32=True), S, S),
    "searchsorted_scalar": (lambda L, s: L.searchsorted(s, 4.0), S),
    "searchsorted_nd": (lambda L, s, x: L.searchsorted(s, x), S2, X2),
    "searchsorted_nd_right": (lambda L, s, x: L.searchsorted(s, x, right=True), S2, X2),
    "searchsorted_sorter": (
        lambda L, s, x, k: L.searchsorted(s, x, sorter=k),
        np.array([5.0, 1.0, 3.0]),
        np.array([2.0, 5.0]),
        L64(1, 2, 0),
    ),
    "bucketize": (lambda L, x, b: L.bucketize(x, b), np.array([3.0, 6.0, 9.0]), S),
    "bucketize_right": (
        lambda L, x, b: L.bucketize(x, b, right=True, out_int32=True),
        np.array([[3.0], [7.0]]),
        S,
    ),
    "bucketize_int": (lambda L, x, b: L.bucketize(x, b), L64(3, 6), L64(1, 3, 5)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch(name):
    fn, *inputs = CASES[name]
    want = fn(torch, *[to_lib(torch, x) for x in inputs])
    got = fn(cr, *[to_lib(cr, x) for x in inputs])
    assert type(got).__name__ == type(want).__name__ or isinstance(want, tuple)
    assert_close(got, want, 1e-6, 1e-7, requires_grad=False)


def test_histogram_named_tuple():
    r = cr.histogram(cr.tensor([1.0, 2.0]), 2)
    assert repr(r).startswith("torch.return_types.histogram(")
    assert r.hist.shape == (2,) and r.bin_edges.shape == (3,)


def test_results_need_no_grad():
    x = cr.tensor([1.0, 0.0, 1.0], requires_grad=True)
    for out in (cr.nonzero(x), cr.histc(x, 3), cr.searchsorted(x.detach(), x)):
        assert not out.requires_grad


ERRORS = {
    "bincount_negative": lambda L: L.bincount(L.tensor([-1])),
    "bincount_float": lambda L: L.bincount(L.tensor([1.0])),
    "bincount_minlength": lambda L: L.bincount(L.tensor([1]), minlength=-1),
    "bincount_weights": lambda L: L.bincount(L.tensor([1, 2]), L.ones(3)),
    "bincount_2d": lambda L: L.bincount(L.ones(2, 2, dtype=L.int64)),
    "histc_bins": lambda L: L.histc(L.ones(3), bins=-1),
    "histc_range": lambda L: L.histc(L.ones(3), min=2, max=1),
    "histc_int": lambda L: L.histc(L.tensor([1, 2])),
    "searchsorted_shapes": lambda L: L.searchsorted(L.ones(2, 3), L.ones(3, 1)),
    "searchsorted_side_right": lambda L: L.searchsorted(
        L.ones(3), L.ones(3), side="left", right=True
    ),
    "searchsorted_side": lambda L: L.searchsorted(L.ones(3), L.ones(3), side="foo"),
    "bucketize_2d": lambda L: L.bucketize(L.ones(3), L.ones(2, 2)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name):
    assert_same_error(ERRORS[name])
