"""Sorting and selection against PyTorch: sort (stable, descending, nan), argsort, msort,
topk, median, nanmedian, kthvalue, mode: values, indices, dtypes, node names, the
gradient at the returned index (or shared among ties where PyTorch shares it), finite
differences, tangents, second derivatives, errors.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import cases
import chainrule as cr
from oracle import (
    DT_IDS,
    FLOATS,
    check,
    check_fd,
    check_raises,
    cr_tangent,
    distinct,
    randn,
    same_node,
)

# ----- sort, argsort, topk ----------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_sort(dtype):
    x = distinct((3, 4, 5), seed=14)
    for dim in (-1, 0, 1):
        for descending in (False, True):
            same_node(
                check(
                    lambda L, x, descending=descending, dim=dim: L.sort(x, dim, descending)[0],
                    x,
                    dtype=dtype,
                )
            )
            check(
                lambda L, x, descending=descending, dim=dim: (
                    x.sort(dim=dim, descending=descending).indices
                ),
                x,
                dtype=dtype,
            )
            check(
                lambda L, x, descending=descending, dim=dim: x.argsort(dim, descending),
                x,
                dtype=dtype,
            )
    check(lambda L, x: x.sort(stable=True).values, x, dtype=dtype)
    check(lambda L, x: L.msort(x), x, dtype=dtype)
    check(lambda L, x: x.sort()[0], randn(()), dtype=dtype)
    check(lambda L, x: x.sort()[1], randn(()), dtype=dtype)
    check(lambda L, x: x.sort(0).values, randn((0, 3)), dtype=dtype)
    check(lambda L, x: x.sort().values, np.array([3, 1, 2]))
    check(lambda L, x: x.sort(descending=True).indices, np.array([True, False, True]))


def test_sort_ties_and_nan_are_stable():
    x = np.array([[2.0, 1.0, 2.0, 1.0, 2.0], [np.nan, 1.0, np.nan, 0.0, 1.0]])
    for descending in (False, True):
        for stable in (False, True):
            check(
                lambda L, x, descending=descending, stable=stable: (
                    x.sort(descending=descending, stable=stable).values
                ),
                x,
            )
            check(
                lambda L, x, descending=descending, stable=stable: (
                    x.sort(descending=descending, stable=stable).indices
                ),
                x,
            )
    r = cr.tensor(x).sort()
    assert repr(r).startswith("torch.return_types.sort(\nvalues=")


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_topk(dtype):
    x = distinct((3, 6), seed=15)
    for k, dim, largest in (
        (2, -1, True),
        (3, 1, False),
        (1, 0, True),
        (3, 0, False),
        (0, 1, True),
    ):
        same_node(
            check(
                lambda L, x, dim=dim, k=k, largest=largest: L.topk(x, k, dim, largest)[0],
                x,
                dtype=dtype,
            )
        )
        check(
            lambda L, x, dim=dim, k=k, largest=largest: x.topk(k, dim=dim, largest=largest).indices,
            x,
            dtype=dtype,
        )
    check(lambda L, x: x.topk(1).values, randn(()), dtype=dtype)
    check(lambda L, x: x.topk(4, sorted=True).values, x, dtype=dtype)
    check_raises(lambda L, x: x.topk(7), x)
    check(lambda L, x: x.topk(2).indices, np.array([[3, 1, 2], [9, 8, 7]]))


def test_topk_ties_convention():
    """chainrule's documented choice among ties: the lowest indices first. The values are
    PyTorch's; the gradient lands on the returned indices."""
    x = np.array([2.0, 1.0, 2.0, 1.0, 2.0])
    ours = cr.tensor(x, requires_grad=True)
    theirs = torch.tensor(x).topk(2)
    got = ours.topk(2)
    assert got.values.tolist() == theirs.values.tolist()
    assert got.indices.tolist() == [0, 2]
    got.values.sum().backward()
    assert ours.grad.tolist() == [1.0, 0.0, 1.0, 0.0, 0.0]


# ----- median, nanmedian, kthvalue, mode --------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_median(dtype):
    x = distinct((3, 5), seed=16)
    same_node(check(lambda L, x: x.median(), x, dtype=dtype))
    same_node(check(lambda L, x: L.median(x[:, :4]), x, dtype=dtype))  # the lower median
    for dim, keepdim in ((1, False), (-1, True), (0, False)):
        same_node(
            check(
                lambda L, x, dim=dim, keepdim=keepdim: L.median(x, dim, keepdim)[0], x, dtype=dtype
            )
        )
        check(
            lambda L, x, dim=dim, keepdim=keepdim: x.median(dim=dim, keepdim=keepdim).indices,
            x,
            dtype=dtype,
        )
        check(
            lambda L, x, dim=dim, keepdim=keepdim: x[:2].median(dim, keepdim=keepdim).values,
            x,
            dtype=dtype,
        )
    check(lambda L, x: x.median(), randn(()), dtype=dtype)
    check(lambda L, x: x.median(0).values, randn(()), dtype=dtype)
    check(lambda L, x: x.median(), randn((0,)), dtype=dtype)
    check(lambda L, x: x.median(1).values, randn((0, 3)), dtype=dtype)
    check_raises(lambda L, x: x.median(0), randn((0, 3)))
    check(lambda L, x: x.median(1).values, np.array([[3, 1, 2, 7], [9, 8, 7, 7]]))


def test_median_ties_and_nan():
    x = np.array([[2.0, 1.0, 2.0, 2.0, 3.0], [5.0, 5.0, 5.0, 5.0, 5.0], [1.0, 2.0, 1.0, 2.0, 0.0]])
    check(lambda L, x: x.median(), x)  # ties share the gradient
    check(lambda L, x: x.median(1).values, x)  # the gradient goes to the index
    check(lambda L, x: x.median(1).indices, x)
    check(lambda L, x: x.median(0).indices, x)
    n = np.array([[2.0, np.nan, 1.0, np.nan], [0.0, 1.0, 2.0, 3.0]])
    # torch's forward-mode median() gives nan at a nan result, while its own backward
    # shares the gradient among the nan entries; chainrule's JVP shares as its VJP does
    check(lambda L, x: x.median(), n, forward=False)
    t = randn(n.shape, seed=5)
    np.testing.assert_allclose(cr_tangent(lambda L, x: x.median(), n, t), (t[0, 1] + t[0, 3]) / 2)
    check(lambda L, x: x.median(1).values, n)
    check(lambda L, x: x.median(1).indices, n)


def test_nanmedian():
    x = np.array(
        [
            [3.0, np.nan, 1.0, np.nan, 2.0],
            [np.nan] * 5,
            [2.0, 2.0, np.nan, 2.0, 1.0],
            [5.0, 4.0, 3.0, 2.0, 1.0],
        ]
    )
    for dtype in FLOATS:
        same_node(check(lambda L, x: x.nanmedian(), x, dtype=dtype))
        same_node(check(lambda L, x: L.nanmedian(x, 1)[0], x, dtype=dtype))
        check(lambda L, x: x.nanmedian(1, keepdim=True).indices, x, dtype=dtype)
        check(lambda L, x: x.nanmedian(dim=0).values, x, dtype=dtype)
        # all nan: torch's forward mode gives nan, its backward shares the gradient among
        # the nan entries, as chainrule's JVP shares the tangents (pinned below)
        check(lambda L, x: x.nanmedian(), np.array([np.nan, np.nan]), dtype=dtype, forward=False)
        check(lambda L, x: x.nanmedian(), np.array([2.0, np.nan, 2.0, 1.0]), dtype=dtype)
    np.testing.assert_allclose(
        cr_tangent(lambda L, x: x.nanmedian(), np.array([np.nan, np.nan]), np.array([1.0, 2.0])),
        1.5,
    )
    check(lambda L, x: x.nanmedian(0).values, np.array([[3, 1, 2], [1, 1, 1]]))
    check_fd(lambda L, x: x.nanmedian(1).values + x.nanmedian(), distinct((3, 5), seed=29))


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_kthvalue(dtype):
    x = distinct((3, 5), seed=23)
    for k, dim, keepdim in ((1, -1, False), (3, 1, True), (2, 0, False), (5, 1, False)):
        same_node(
            check(lambda L, x, k=k, d=dim, kd=keepdim: L.kthvalue(x, k, d, kd)[0], x, dtype=dtype)
        )
        check(lambda L, x, k=k, d=dim, kd=keepdim: x.kthvalue(k, d, kd).indices, x, dtype=dtype)
    check(lambda L, x: x.kthvalue(1).values, randn(()), dtype=dtype)
    check_raises(lambda L, x: x.kthvalue(6), x)
    check_raises(lambda L, x: x.kthvalue(0), x)
    ties = np.array([[3.0, 1.0, 3.0, 1.0, 2.0]])  # distinct ranks for k = 1..5 in PyTorch too
    for k in (1, 2, 3, 4, 5):
        check(lambda L, x, k=k: x.kthvalue(k).values, ties)
    check_fd(lambda L, x: x.kthvalue(2, 0).values, x)


def test_mode():
    x = np.array([[3.0, 1.0, 3.0, 1.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0], [1.0, 2.0, 3.0, 4.0, 5.0]])
    for dtype in FLOATS:
        same_node(check(lambda L, x: x.mode().values, x, dtype=dtype))
        check(lambda L, x: L.mode(x, 1, True).indices, x, dtype=dtype)
        check(lambda L, x: x.mode(0).values, x, dtype=dtype)
        check(lambda L, x: x.mode(dim=0).indices, x, dtype=dtype)
    check(lambda L, x: x.mode().values, np.array([1, 2, 2, 3, 3]))
    check(lambda L, x: x.mode().indices, np.array([1, 2, 2, 3, 3]))
    check(lambda L, x: x.mode(0).values, randn(()))


def _mode_by_rows(a: np.ndarray, axis: int) -> tuple:
    """mode along axis slice by slice: the smallest most frequent value (nans one value, the
    largest) and its last index."""
    moved = np.moveaxis(a, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    values, index = [], []
    for row in rows:
        keys, counts = np.unique(row, return_counts=True)  # (nan last, all nans one key)
        value = keys[np.argmax(counts)]
        same = (
            (row == value) | (np.isnan(row) & np.isnan(value))
            if row.dtype.kind == "f"
            else row == value
        )
        values.append(value)
        index.append(len(row) - 1 - np.argmax(same[::-1]))
    shape = moved.shape[:-1]
    return np.array(values, a.dtype).reshape(shape), np.array(index, np.int64).reshape(shape)


def test_mode_of_every_slice_at_once_is_the_slice_by_slice_mode():
    """mode's runs over all slices at once (``_mode_index``): each slice's own mode, with
    ties, nans, ints, bools and several dims."""
    rng = np.random.default_rng(5)
    for trial in range(200):
        shape = tuple(rng.integers(1, 6, rng.integers(1, 4)))
        axis = int(rng.integers(0, len(shape)))
        a = rng.integers(0, 3, shape).astype([np.float32, np.float64, np.int64, bool][trial % 4])
        if a.dtype.kind == "f":
            a[rng.random(shape) < 0.25] = np.nan
        got = cr.from_numpy(a).mode(axis)
        values, index = _mode_by_rows(a, axis)
        np.testing.assert_array_equal(got.values.numpy(), values)
        np.testing.assert_array_equal(got.indices.numpy(), index)


def test_selection_finite_differences():
    x = distinct((3, 4), seed=17)
    check_fd(lambda L, x: x.sort(1).values * L.arange(4.0, dtype=L.float64), x)
    check_fd(lambda L, x: x.sort(0, descending=True).values, x)
    check_fd(lambda L, x: x.topk(2).values, x)
    check_fd(lambda L, x: x.median(), x)
    check_fd(lambda L, x: x.median(0).values, x)


def test_bool_inputs():
    b = np.array([[True, False], [True, True]])
    for fn in (
        lambda L, x: x.mode(1).values,
        lambda L, x: x.sort(0).values,
    ):
        check(fn, b)
    for fn in (
        lambda L, x: x.median(),
        lambda L, x: x.median(0),
        lambda L, x: x.topk(1),
        lambda L, x: x.kthvalue(1),
    ):
        check_raises(fn, b)


# ----- forward mode and second derivatives ------------------------------------------------


FORWARD = {
    "sort": (lambda L, a: a.sort(1, descending=True).values, (3, 4)),
    "topk": (lambda L, a: a.topk(2).values, (3, 4)),
    "median": (lambda L, a: a.median(), (3, 4)),
    "median_dim": (lambda L, a: a.median(0).values, (3, 4)),
    "kthvalue": (lambda L, a: a.kthvalue(2, 0).values, (3, 4)),
    "mode": (lambda L, a: a.mode(1).values, (3, 4)),
}

test_forward_mode_tangents = cases.forward_mode_tangents(FORWARD)

DOUBLE_BACKWARD = {
    "sort": lambda L, x: x.sort(1).values ** 2,
}

test_double_backward = cases.double_backward(DOUBLE_BACKWARD)
