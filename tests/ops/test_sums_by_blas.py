"""Sums by BLAS (``_backend.add_reduce``, ``_backend.whole_sum``): a float array summed along
its first or last axis as a product with ones, from 512 elements; add.reduce elsewhere.
Pinned to add.reduce within float rounding, to PyTorch through the ops that sum this way
(sum and mean along a dim, a bias's gradient, softmax and log_softmax and their backward),
and to its own rules: which arrays take BLAS, and +0 for a sum of negative zeros. Maxima by
columns (``_backend.max_reduce``): maximum.reduce's values exactly, nan included."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chainrule as cr
from chainrule import _backend
from oracle import DT_IDS, FLOATS, check, randn, same_node

SHAPES = [(64, 128), (128, 256), (8, 16, 64), (4096, 2), (2, 4096), (30, 30), (20, 20), (4096,)]


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("keepdims", [False, True], ids=["", "keepdims"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_add_reduce_is_add_reduce(shape, keepdims, dtype):
    """Every axis, negative ones too: add.reduce's shape, dtype and values to rounding (the
    error a sum of this length makes in the dtype, relative to Σ|x|)."""
    x = (randn(shape, seed=2) + 0.5).astype(dtype)
    eps = np.finfo(dtype).eps
    for axis in range(-x.ndim, x.ndim):
        got = _backend.add_reduce(x, axis, keepdims)
        want = np.add.reduce(x.astype(np.float64), axis, keepdims=keepdims)
        assert isinstance(got, np.ndarray) or x.ndim == 1 and not keepdims  # (NumPy's scalar)
        got = np.asarray(got)
        assert got.dtype == x.dtype
        assert got.shape == want.shape and got.flags.c_contiguous
        scale = np.add.reduce(np.abs(x).astype(np.float64), axis, keepdims=keepdims)
        assert np.all(np.abs(got - want) <= 16 * eps * scale + 1e-30)


def test_which_arrays_take_blas(monkeypatch):
    """From 512 elements, float32 or float64, C-contiguous, two dims or more, along the
    first or the last axis, at most 2^14 long; everything else is add.reduce's."""
    calls = []

    def dot(a, b):
        calls.append(1)
        return np.dot(a, b)

    monkeypatch.setattr(_backend, "_dot", dot)

    def uses_blas(x: np.ndarray, axis: int) -> bool:
        calls.clear()
        _backend.add_reduce(x, axis)
        return bool(calls)

    big = np.zeros((64, 8, 16), np.float32)
    assert uses_blas(big, 0) and uses_blas(big, 2) and uses_blas(big, -1)
    assert not uses_blas(big, 1)  # (a middle axis)
    assert uses_blas(big.astype(np.float64), 0)
    assert not uses_blas(np.zeros((20, 25), np.float32), 0)  # (500 elements)
    assert uses_blas(np.zeros((128, 4), np.float32), 1)
    assert not uses_blas(np.zeros((64, 128), np.float16), 0)
    assert not uses_blas(np.zeros((128, 64), np.float32).T, 0)  # (not contiguous)
    assert not uses_blas(np.zeros(8192, np.float32), 0)  # (one dim: whole_sum's)
    assert not uses_blas(np.zeros((2, (1 << 14) + 1), np.float32), 1)  # (too long)
    assert uses_blas(np.zeros((2, 1 << 14), np.float32), 1)


def test_axes_out_of_range_raise_as_add_reduce():
    """An axis out of range is add.reduce's AxisError, not some other axis's sum."""
    x = np.zeros((64, 32), np.float32)
    for axis in (2, -3, 5):
        for fn in (_backend.add_reduce, _backend.max_reduce):
            with pytest.raises(np.exceptions.AxisError):
                fn(x, axis)


def test_whole_sum_range():
    """A dot with ones for up to 2^14 contiguous elements; None elsewhere."""
    for n, blas in ((0, True), (1, True), (3, True), (1 << 14, True), ((1 << 14) + 1, False)):
        x = np.full(n, 0.5, np.float32)
        got = _backend.whole_sum(x)
        assert (got is not None) == blas
        if blas:
            assert got.shape == () and got == n / 2
    assert _backend.whole_sum(np.zeros((100, 100), np.float32).T) is None


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize(
    "call",
    [
        lambda L, x: x.sum(0),
        lambda L, x: x.sum(-1, keepdim=True),
        lambda L, x: L.sum(x, 1),
        lambda L, x: x.mean(0),
        lambda L, x: x.mean(-1, keepdim=True),
        lambda L, x: L.softmax(x, 1),
        lambda L, x: L.log_softmax(x, -1),
        lambda L, x: L.nn.functional.softmax(x, 0),
        lambda L, x: L.nn.functional.log_softmax(x, 0),
    ],
    ids=["sum0", "sum-1", "sum1", "mean0", "mean-1", "softmax1", "log_softmax-1", "sm0", "lsm0"],
)
def test_ops_that_sum_by_blas_match_torch(call, dtype):
    """The ops on a 64 x 96 input (6,144 elements: BLAS along both axes): PyTorch's values,
    nodes and gradients, and forward-mode tangents."""
    same_node(check(call, randn((64, 96), seed=3), dtype=dtype))


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_bias_gradient_by_blas_matches_torch(dtype):
    """A bias's gradient, the batch summed (shapes.sum_to on 128 x 256): PyTorch's."""
    check(
        lambda L, x, w, b: L.nn.functional.linear(x, w, b),
        randn((128, 32), seed=4),
        randn((256, 32), seed=5),
        randn((256,), seed=6),
        dtype=dtype,
    )


def test_a_sum_of_negative_zeros_is_positive_as_in_torch():
    """PyTorch's sums start from +0; so does a product with ones (add.reduce's is -0)."""
    import torch

    x = np.full((4096, 2), -0.0, np.float32)
    for axis in (0, 1):
        got = cr.from_numpy(x).sum(axis).numpy()
        want = torch.from_numpy(x).sum(axis).numpy()
        assert np.array_equal(np.signbit(got), np.signbit(want))
    for n in (2, 3, 100, 5000):  # over every element (whole_sum), as x.sum() and the op
        x = np.full(n, -0.0, np.float32)
        for got in (cr.from_numpy(x).sum(), cr.from_numpy(x).sum(dim=None)):
            assert np.signbit(got.numpy()) == np.signbit(torch.from_numpy(x).sum().numpy())


@pytest.mark.parametrize("dtype", FLOATS + [np.float16, np.int64], ids=DT_IDS + ["f16", "i64"])
@pytest.mark.parametrize("keepdims", [False, True], ids=["", "keepdims"])
@pytest.mark.parametrize(
    "shape",
    [
        (128, 10),
        (32, 32),
        (4, 16, 4),
        (8, 100),
        (16, 16),
        (64, 0),
        (64, 256),
        (256, 64),
        (3, 4, 80),
    ],
)
def test_max_reduce_is_maximum_reduce(shape, keepdims, dtype):
    """Every axis: maximum.reduce's shape, dtype and bits, with nan entries (floats)."""
    x = (randn(shape, seed=7) * 10).astype(dtype)
    if x.dtype.kind == "f" and x.size:
        x.reshape(-1)[::7] = np.nan
    for axis in range(-x.ndim, x.ndim):
        if x.shape[axis] == 0:
            continue
        got = _backend.max_reduce(x, axis, keepdims)
        want = np.maximum.reduce(x, axis, keepdims=keepdims)
        assert got.shape == want.shape and got.dtype == want.dtype
        assert np.array_equal(got, want, equal_nan=x.dtype.kind == "f")


def test_which_maxima_go_by_columns(monkeypatch):
    """Along the last axis of a float C-contiguous array of at least 32 rows and no longer
    rows than there are rows, but rows of 64 to 2048 (read at their argmax); the rest is
    maximum.reduce's as it stands."""
    calls = []
    copy = np.ascontiguousarray

    def ascontiguousarray(a):
        calls.append(1)
        return copy(a)

    monkeypatch.setattr(_backend.numpy, "ascontiguousarray", ascontiguousarray)

    def by_columns(x: np.ndarray, axis: int = -1) -> bool:
        calls.clear()
        _backend.max_reduce(x, axis)
        return bool(calls)

    assert by_columns(np.zeros((128, 10), np.float32))
    assert by_columns(np.zeros((4, 16, 4)))  # (64 rows of 4)
    assert by_columns(np.zeros((32, 32), np.float32))
    assert not by_columns(np.zeros((16, 16), np.float32))  # (16 rows)
    assert not by_columns(np.zeros((8, 100), np.float32))  # (rows longer than their count)
    assert not by_columns(np.zeros((256, 64), np.float32))  # (rows of 64 to 2048: by argmax)
    assert not by_columns(np.zeros((128, 10), np.float32), 0)
    assert not by_columns(np.zeros((10, 128), np.float32).T)  # (not contiguous)
    assert not by_columns(np.zeros((128, 10), np.int64))


@settings(max_examples=60, deadline=None)
@given(
    shape=st.lists(st.integers(1, 40), min_size=2, max_size=3),
    axis=st.integers(-3, 2),
    layout=st.sampled_from(["C", "T", "sliced"]),
    dtype=st.sampled_from([np.float32, np.float64]),
)
def test_sums_and_maxima_match_numpy_on_any_shape_and_layout(shape, axis, layout, dtype):
    """Any shape, axis and layout (contiguous, transposed, sliced): add.reduce's result to
    rounding and maximum.reduce's exactly, or the same AxisError."""
    x = np.random.default_rng(len(shape)).standard_normal(shape).astype(dtype) + 0.25
    if layout == "T":
        x = x.T
    elif layout == "sliced":
        x = x[..., ::2]
    if not -x.ndim <= axis < x.ndim:
        with pytest.raises(np.exceptions.AxisError):
            _backend.add_reduce(x, axis)
        return
    got = _backend.add_reduce(x, axis)
    want = np.add.reduce(x.astype(np.float64), axis)
    scale = np.add.reduce(np.abs(x).astype(np.float64), axis)
    assert got.shape == want.shape and got.dtype == x.dtype
    assert np.all(np.abs(got - want) <= 16 * np.finfo(dtype).eps * scale)
    assert np.array_equal(_backend.max_reduce(x, axis), np.maximum.reduce(x, axis))


# ----- adjacent leading or trailing dims (``_backend.add_reduce_run``) ----------------------

RUNS = [
    ((16, 32, 64), (0, 1)),
    ((16, 32, 64), (1, 2)),
    ((4, 5, 6, 7), (0, 1, 2)),
    ((4, 5, 6, 7), (2, 3)),
    ((3, 0, 5), (0, 1)),
    ((200, 100, 3), (0, 1)),  # (20,000 rows: longer than BLAS sums)
]


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("keepdims", [False, True], ids=["", "keepdims"])
@pytest.mark.parametrize("case", RUNS, ids=str)
def test_add_reduce_run_is_add_reduce(case, keepdims, dtype):
    shape, axes = case
    x = (randn(shape, seed=5) + 0.5).astype(dtype)
    got = _backend.add_reduce_run(x, axes, keepdims)
    want = np.add.reduce(x.astype(np.float64), axes, keepdims=keepdims)
    if np.prod([shape[a] for a in axes]) > 1 << 14:
        assert got is None  # (the caller sums with add.reduce)
        return
    assert got.dtype == x.dtype and got.shape == want.shape and got.flags.c_contiguous
    scale = np.add.reduce(np.abs(x).astype(np.float64), axes, keepdims=keepdims)
    assert np.all(np.abs(got - want) <= 16 * np.finfo(dtype).eps * scale + 1e-30)


def test_add_reduce_run_takes_only_adjacent_outer_dims():
    x = np.zeros((4, 5, 6, 7), np.float32)
    for axes in [(0, 2), (1, 2), (0, 1, 2, 3), (1,)]:
        assert _backend.add_reduce_run(x, axes) is None
    assert _backend.add_reduce_run(x.transpose(1, 0, 2, 3), (0, 1)) is None  # (a view)
    assert _backend.add_reduce_run(x.astype(np.float16), (0, 1)) is None
    assert _backend.add_reduce_run(x, (0, 1)) is not None


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_sums_over_batch_and_time_match_torch(dtype):
    """The ops that sum over adjacent outer dims: sum over several dims, layer norm's weight
    and bias gradients, a broadcast bias's gradient (sum_to)."""
    x = randn((16, 32, 64), seed=6)
    check(lambda L, x: x.sum((0, 1)), x, dtype=dtype)
    check(lambda L, x: x.sum((1, 2), keepdim=True), x, dtype=dtype)
    check(lambda L, x: x.mean((0, 1)), x, dtype=dtype)
    w, b = randn((64,), seed=7), randn((64,), seed=8)
    check(lambda L, x, w, b: L.nn.functional.layer_norm(x, (64,), w, b), x, w, b, dtype=dtype)
    check(lambda L, x, b: x * 2 + b, x, b, dtype=dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("keepdims", [False, True], ids=["", "keepdims"])
@pytest.mark.parametrize("shape", [(32, 16, 16, 16), (8, 3, 50), (2, 5, 3, 4, 6)], ids=str)
def test_add_reduce_dims_over_a_batch_of_channels(shape, keepdims, dtype):
    """Every dim but the channels (1): the rows of (N·C, S) summed by BLAS, then the batch;
    add.reduce's shape and values to rounding."""
    x = (randn(shape, seed=9) + 0.5).astype(dtype)
    axes = (0, *range(2, len(shape)))
    got = _backend.add_reduce_dims(x, axes, keepdims)
    want = np.add.reduce(x.astype(np.float64), axes, keepdims=keepdims)
    assert got.dtype == x.dtype and got.shape == want.shape
    scale = np.add.reduce(np.abs(x).astype(np.float64), axes, keepdims=keepdims)
    assert np.all(np.abs(got - want) <= 16 * np.finfo(dtype).eps * scale + 1e-30)


def test_add_reduce_dims_leaves_other_cases_to_add_reduce():
    x = np.zeros((4, 3, 5, 6), np.float32)
    assert _backend.add_reduce_dims(x, (0, 2)) is None  # (not every other dim)
    assert _backend.add_reduce_dims(x, (1, 3)) is None
    assert _backend.add_reduce_dims(x.astype(np.float16), (0, 2, 3)) is None
    assert _backend.add_reduce_dims(x.transpose(0, 1, 3, 2), (0, 2, 3)) is None
    assert _backend.add_reduce_dims(np.zeros((0, 3, 5), np.float32), (0, 2)) is None
    assert _backend.add_reduce_dims(np.zeros((2, 3, 1 << 15), np.float32), (0, 2)) is None
    assert _backend.add_reduce_dims(x, (0, 2, 3)) is not None
    assert _backend.add_reduce_dims(x, (0, 1)) is not None  # (adjacent leading: the run)
