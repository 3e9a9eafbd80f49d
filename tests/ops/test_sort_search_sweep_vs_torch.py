"""Sorting, searching and counting ops against PyTorch, case by case where a sweep found
chainrule differing: searchsorted/bucketize with nan and mixed dtypes, unique's choice
between -0.0 and 0.0, bincount, histc/histogram/histogramdd binning and checks, diff with
n=0, the order of topk's and kthvalue's checks, and the gradients of the selections."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import assert_close, assert_same_error, compare

NAN, INF = float("nan"), float("inf")


# ----- searchsorted and bucketize --------------------------------------------------------------

SEARCHES = {
    # a nan value goes last (every comparison with it fails), batched boundaries too
    "nan values, 2-D": lambda t: t.searchsorted(
        t.tensor([[1.0, 2.0, 3.0], [0.0, 1.0, 2.0]]), t.tensor([[2.0, NAN], [NAN, 1.0]])
    ),
    "nan values, 2-D, right": lambda t: t.searchsorted(
        t.tensor([[1.0, 2.0, 3.0], [0.0, 1.0, 2.0]]), t.tensor([[NAN, INF], [NAN, 1.0]]), right=True
    ),
    "nan in rows and values": lambda t: t.searchsorted(
        t.tensor([[1.0, 2.0, NAN], [0.0, 1.0, 2.0]]), t.tensor([[2.0, NAN], [NAN, 1.0]])
    ),
    "bfloat16, nan last": lambda t: t.searchsorted(
        t.tensor([[-3.0, -1.0, NAN], [-1.0, 4.0, NAN]]).to(t.bfloat16),
        t.tensor([[1.0, 0.0, NAN], [INF, -0.0, NAN]]).to(t.bfloat16),
    ),
    "bucketize nan, right": lambda t: t.bucketize(
        t.tensor([[0.5, 2.0], [NAN, 3.5]]), t.tensor([1.0, 2.0, 3.0]), right=True
    ),
    "sorter, nan values": lambda t: t.searchsorted(
        t.tensor([3.0, 1.0, 2.0]), t.tensor([NAN, 2.0]), sorter=t.tensor([1, 2, 0])
    ),
    "empty boundaries, nan": lambda t: t.searchsorted(t.tensor([]), t.tensor([2.5, NAN])),
    "empty boundaries, number": lambda t: t.bucketize(NAN, t.tensor([]), out_int32=True),
    # a number (or 0-d value) is cast to the boundaries' dtype: it wraps into uint8
    "uint8, -1": lambda t: t.searchsorted(t.tensor([1, 2, 3], dtype=t.uint8), -1),
    "uint8, 0-d -1": lambda t: t.searchsorted(t.tensor([1, 2, 3], dtype=t.uint8), t.tensor(-1)),
    "uint8, [-1]": lambda t: t.searchsorted(t.tensor([1, 2, 3], dtype=t.uint8), t.tensor([-1])),
    "int8, -200": lambda t: t.searchsorted(t.tensor([1, 2, 3], dtype=t.int8), -200),
    "uint8, 2.5": lambda t: t.searchsorted(t.tensor([1, 2, 3], dtype=t.uint8), 2.5),
    # ... and rounds into float16
    "float16, 2.0001": lambda t: t.searchsorted(t.tensor([1.0, 2.0, 3.0], dtype=t.float16), 2.0001),
    "float16, 0-d float64": lambda t: t.searchsorted(
        t.tensor([1.0, 2.0, 3.0], dtype=t.float16), t.tensor(2.0001, dtype=t.float64)
    ),
    "float32, float64 values": lambda t: t.searchsorted(
        t.tensor([1.0, 1.0000001]), t.tensor([1.00000005], dtype=t.float64)
    ),
    "bool boundaries, float values": lambda t: t.searchsorted(t.tensor([True, True]), 1.5),
}


@pytest.mark.parametrize("case", SEARCHES)
def test_search_places(case):
    compare(SEARCHES[case], exact=True)


SEARCH_ERRORS = {
    "sorter float": lambda t: t.searchsorted(
        t.tensor([1.0, 2.0]), t.tensor([2.0]), sorter=t.tensor([0.0, 1.0])
    ),
    "sorter int32": lambda t: t.searchsorted(
        t.tensor([1.0, 2.0]), t.tensor([2.0]), sorter=t.tensor([0, 1], dtype=t.int32)
    ),
    "sorter size": lambda t: t.searchsorted(
        t.tensor([1.0, 2.0]), t.tensor([2.0]), sorter=t.tensor([0, 1, 2])
    ),
    "sorter out of range": lambda t: t.searchsorted(
        t.tensor([1.0, 2.0]), t.tensor([2.0]), sorter=t.tensor([0, 5])
    ),
    "sorter negative": lambda t: t.searchsorted(
        t.tensor([1.0, 2.0]), t.tensor([2.0]), sorter=t.tensor([0, -1])
    ),
    "sorter before shapes": lambda t: t.searchsorted(
        t.tensor([[1.0]]), t.tensor([[1.0], [2.0]]), sorter=t.tensor([[3]])
    ),
    "0-d boundaries": lambda t: t.searchsorted(t.tensor(1.0), t.tensor([1.0])),
    "0-d boundaries, number": lambda t: t.searchsorted(t.tensor(1.0), 1.0),
    "0-d value, 2-D boundaries": lambda t: t.searchsorted(t.tensor([[1.0, 2.0]]), t.tensor(1.5)),
    "bool": lambda t: t.searchsorted(t.tensor([False, True]), t.tensor([True])),
    "complex value": lambda t: t.searchsorted(t.tensor([1.0]), t.tensor(1j)),
}


@pytest.mark.parametrize("case", SEARCH_ERRORS)
def test_search_errors(case):
    assert_same_error(SEARCH_ERRORS[case])


OUT_DTYPES = {
    "searchsorted": lambda t, out: t.searchsorted(t.tensor([1.0, 2]), t.tensor([1.5]), out=out),
    "bucketize": lambda t, out: t.bucketize(t.tensor([1.5]), t.tensor([1.0, 2]), out=out),
}


@pytest.mark.parametrize("dtype", ["int32", "float32"])
@pytest.mark.parametrize("name", OUT_DTYPES)
def test_search_out_of_another_dtype(name, dtype):
    """An out that is not int64 (int32 with out_int32) is refused, as PyTorch refuses it."""
    phrase = f"but we got output tensor's dtype {dtype.title().replace('32', '')}"
    assert_same_error(lambda t: OUT_DTYPES[name](t, t.empty(1, dtype=getattr(t, dtype))), phrase)


def test_nonzero_out_of_another_dtype():
    assert_same_error(lambda t: t.nonzero(t.tensor([1.0, 0.0]), out=t.empty(0, dtype=t.int32)))


# ----- unique ---------------------------------------------------------------------------------

SIGNED_ZEROS = [[0.0, -0.0], [-0.0, 0.0], [1.0, -0.0, 0.0, -0.0], [0.0, 1.0, -1.0, -0.0, 1.0]]


@pytest.mark.parametrize("values", SIGNED_ZEROS, ids=str)
@pytest.mark.parametrize("dim", [None, 0])
def test_unique_keeps_the_first_of_equal_zeros(values, dim):
    """-0.0 == 0.0: the one kept is the first in the input (a stable sort), as PyTorch's."""

    def fn(t):
        return t.unique(t.tensor(values), return_inverse=True, return_counts=True, dim=dim)

    got, want = fn(cr), fn(torch)
    assert_close(got, want, exact=True)
    assert np.array_equal(np.signbit(got[0].numpy()), np.signbit(want[0].numpy()))


def test_unique_rows_keep_the_first_of_equal_zeros():
    def fn(t):
        return t.unique(t.tensor([[0.0, 1.0], [-0.0, 1.0], [2.0, 0.0]]), dim=0)

    got, want = fn(cr), fn(torch)
    assert_close(got, want, exact=True)
    assert np.array_equal(np.signbit(got.numpy()), np.signbit(want.numpy()))


@pytest.mark.parametrize("name", ["unique", "unique_consecutive"])
def test_unique_dim_of_a_0d_tensor(name):
    assert_same_error(lambda t: getattr(t, name)(t.tensor(1.0), dim=0))


# ----- bincount, histc --------------------------------------------------------------------------

COUNTS = {
    "empty, weights": lambda t: t.bincount(t.tensor([], dtype=t.int64), t.ones(3), minlength=3),
    "empty, float weights": lambda t: t.bincount(t.tensor([], dtype=t.int16), t.tensor([])),
    "histc float16": lambda t: t.histc(
        t.tensor([0.3713, 3.105, 0.6933, -1.5768, -2.4818], dtype=t.float16), bins=10
    ),
    "histc bfloat16": lambda t: t.histc(
        t.tensor([-0.401, 0.21998, 3.6008, -2.349, 5.0533]).to(t.bfloat16), bins=10
    ),
    "histc bfloat16, range": lambda t: t.histc(
        t.tensor([0.37, 3.1, 0.69, -1.58, -2.48, 1.0]).to(t.bfloat16), 7, min=-1.5, max=2.25
    ),
}


@pytest.mark.parametrize("case", COUNTS)
def test_counts(case):
    compare(COUNTS[case], exact=True)


COUNT_ERRORS = {
    "bincount: minlength before sign": lambda t: t.bincount(t.tensor([-1, 2]), minlength=-1),
    "bincount: dtype first": lambda t: t.bincount(t.tensor([1.0]), minlength=-1),
    "histc int: range first": lambda t: t.histc(t.tensor([1, 2]), 3, min=2, max=-2),
    "histc int": lambda t: t.histc(t.tensor([1, 2]), 3, min=0, max=0),
    "histc uint8 edges": lambda t: t.histc(t.tensor([1, 2], dtype=t.uint8), 3, min=-1.5, max=3),
    "histc uint8 widened": lambda t: t.histc(t.zeros(2, dtype=t.uint8), 3),
    "histc bool": lambda t: t.histc(t.tensor([True]), 3),
}


@pytest.mark.parametrize("case", COUNT_ERRORS)
def test_count_errors(case):
    assert_same_error(COUNT_ERRORS[case])


def test_histc_of_ints_checks_the_range_first():
    phrase = "torch.histc: range of [nan, 1] is not finite"
    assert_same_error(lambda t: t.histc(t.tensor([1, 2]), 3, min=NAN, max=1), phrase)


# ----- histogram, histogramdd -------------------------------------------------------------------

X = [-3.36, 0.05, 3.7, -4.88, -4.11, 1.0, 3.37, -3.29, -1.24, -2.74, 2.5, -1.0]
W = [0.3, 0.9, 0.1, 0.5, 0.25, 0.7, 0.8, 0.2, 0.6, 0.4, 1.5, 0.05]
EDGES = [-2.4814, -1.9565, -0.0876, 0.8915, 1.0823]


HISTOGRAMS = {
    "empty input: range [0, 1]": lambda t: t.histogram(t.tensor([]), 4),
    "empty input, density": lambda t: t.histogram(t.tensor([]), 4, density=True),
    "empty points: range [0, 1]": lambda t: t.histogramdd(t.zeros(0, 2), 3),
    "no coordinates": lambda t: t.histogramdd(t.zeros(3, 0), 3),
    "bfloat16 edges, weights": lambda t: t.histogram(
        t.tensor(X).to(t.bfloat16),
        t.tensor(EDGES).to(t.bfloat16),
        weight=t.tensor(W).to(t.bfloat16),
    ),
    "float16 edges, weights, density": lambda t: t.histogram(
        t.tensor(X).half(), t.tensor(EDGES).half(), weight=t.tensor(W).half(), density=True
    ),
    "float16 with range": lambda t: t.histogram(t.tensor(X).half(), 4, range=(-2.0, 2.0)),
    "unsorted edges": lambda t: t.histogram(t.tensor([1.0, 2, 0.5, 3]), t.tensor([0.0, 2, 1, 3])),
    "nan skipped": lambda t: t.histogram(t.tensor([1.0, NAN, 2.0]), 3, range=(0.0, 3.0)),
    "weights, density": lambda t: t.histogram(t.tensor(X), 5, weight=t.tensor(W), density=True),
    "dd weights, density": lambda t: t.histogramdd(
        t.tensor(X).reshape(6, 2), [3, 2], weight=t.tensor(W[:6]), density=True
    ),
    "dd bfloat16 edges": lambda t: t.histogramdd(
        t.tensor([[1.0, 2.0]]).to(t.bfloat16),
        [t.tensor([0.0, 1.5]).to(t.bfloat16), t.tensor([1.0, 2.5]).to(t.bfloat16)],
    ),
}


@pytest.mark.parametrize("case", HISTOGRAMS)
def test_histograms(case):
    compare(HISTOGRAMS[case], rtol=1e-6, atol=1e-6)


HISTOGRAM_ERRORS = {
    "range of 3": lambda t: t.histogram(t.tensor([1.0, 2]), 3, range=(0.0, 1.0, 2.0)),
    "range inf": lambda t: t.histogram(t.tensor([1.0, 2]), 3, range=(0.0, INF)),
    "data inf": lambda t: t.histogram(t.tensor([1.0, INF]), 3),
    "data nan": lambda t: t.histogram(t.tensor([1.0, NAN]), 3),
    "min > max": lambda t: t.histogram(t.tensor([1.0, 2]), 3, range=(2.0, 1.0)),
    "weight dtype": lambda t: t.histogram(
        t.tensor([1.0, 2]), 3, weight=t.tensor([1.0, 2], dtype=t.float64)
    ),
    "weight int64": lambda t: t.histogram(t.tensor([1.0, 2]), 3, weight=t.tensor([1, 2])),
    "weight shape": lambda t: t.histogram(t.tensor([1.0, 2]), 3, weight=t.tensor([1.0, 2, 3])),
    "edges 2-D": lambda t: t.histogram(t.tensor([1.0, 2]), t.tensor([[0.0, 1, 2]])),
    "edges 0-d": lambda t: t.histogram(t.tensor([1.0, 2]), t.tensor(1.0)),
    "edges empty": lambda t: t.histogram(t.tensor([1.0, 2]), t.tensor([])),
    "edges one": lambda t: t.histogram(t.tensor([1.0, 2]), t.tensor([1.0])),
    "float16 own range": lambda t: t.histogram(t.tensor([1.0, 2], dtype=t.float16), 3),
    "int edges": lambda t: t.histogram(t.tensor([1, 2]), t.tensor([0, 1, 2])),
    "dd bins 0": lambda t: t.histogramdd(t.tensor([[1.0, 2]]), [3, 0]),
    "dd bins -1": lambda t: t.histogramdd(t.tensor([[1.0, 2]]), -1),
    "dd range of 2": lambda t: t.histogramdd(t.tensor([[1.0, 2]]), 3, range=[0.0, 1.0]),
    "dd min > max": lambda t: t.histogramdd(t.tensor([[1.0, 2]]), 3, range=[0.0, 1.0, 3.0, 2.0]),
    "dd data inf": lambda t: t.histogramdd(t.tensor([[1.0, INF]]), 3),
    "dd weight dtype": lambda t: t.histogramdd(
        t.tensor([[1.0, 2]]), 3, weight=t.tensor([1.0], dtype=t.float64)
    ),
    "dd weight shape": lambda t: t.histogramdd(t.tensor([[1.0, 2]]), 3, weight=t.tensor([1.0, 2])),
    "dd edges dtype": lambda t: t.histogramdd(
        t.tensor([[1.0, 2]]), [t.tensor([0.0, 1]), t.tensor([0.0, 1], dtype=t.float64)]
    ),
    "dd edges count": lambda t: t.histogramdd(t.tensor([[1.0, 2]]), [t.tensor([0.0, 1])]),
    "dd edges 2-D": lambda t: t.histogramdd(
        t.tensor([[1.0, 2]]), [t.tensor([0.0, 1]), t.tensor([[0.0, 1]])]
    ),
    "dd edges one": lambda t: t.histogramdd(
        t.tensor([[1.0, 2]]), [t.tensor([0.0, 1]), t.tensor([1.0])]
    ),
    "dd float16 own range": lambda t: t.histogramdd(t.tensor([[1.0, 2]], dtype=t.float16), 3),
}


@pytest.mark.parametrize("case", HISTOGRAM_ERRORS)
def test_histogram_errors(case):
    assert_same_error(HISTOGRAM_ERRORS[case])


# ----- diff, topk, kthvalue ---------------------------------------------------------------------


@pytest.mark.parametrize("where", ["prepend", "append"])
def test_diff_of_order_0_is_the_input_alone(where):
    compare(lambda t: t.diff(t.tensor([1.0, 2.0, 4.0]), n=0, **{where: t.tensor([5.0, 6.0])}))


@pytest.mark.parametrize("n", [0, 1])
def test_diff_refuses_a_0d_prepend(n):
    assert_same_error(lambda t: t.diff(t.tensor([1.0, 2.0]), n=n, prepend=t.tensor(0.0)))


@pytest.mark.parametrize("k", [3, -1])
def test_topk_of_bool_checks_k_first(k):
    assert_same_error(lambda t: t.topk(t.tensor([True, False]), k))


@pytest.mark.parametrize("value", [True, 1j])
def test_kthvalue_of_a_0d_tensor_of_any_dtype(value):
    compare(lambda t: t.kthvalue(t.tensor(value), 1, keepdim=True), exact=True)


def test_kthvalue_of_a_0d_complex_refuses_autograd():
    def fn(t):
        x = t.tensor(1 + 2j, requires_grad=True)
        return t.kthvalue(x, 1).values

    assert_same_error(fn)


# ----- gradients of the selections (float64, a weighted sum) ------------------------------------

TIED = np.array([[2.0, -1.0, 2.0, 0.0, -1.0, 2.0], [0.0, 0.0, -0.0, 3.0, 1.0, 0.0]])
DISTINCT = np.array([[0.3, -1.2, 2.5, 0.7, -0.4, 1.1], [1.9, -2.2, 0.05, 3.3, -0.8, 0.6]])

SELECTIONS = {
    "sort stable, ties": (TIED, lambda t, x: t.sort(x, dim=1, stable=True).values),
    "sort stable descending, ties": (
        TIED,
        lambda t, x: t.sort(x, dim=1, descending=True, stable=True).values,
    ),
    "sort dim 0, ties": (TIED, lambda t, x: t.sort(x, dim=0).values),
    "msort": (TIED, lambda t, x: t.msort(x)),
    "topk": (DISTINCT, lambda t, x: t.topk(x, 3, dim=1).values),
    "topk smallest unsorted": (
        DISTINCT,
        lambda t, x: t.topk(x, 2, dim=1, largest=False, sorted=False).values.sum(1),
    ),
    "kthvalue": (DISTINCT, lambda t, x: t.kthvalue(x, 4, dim=1).values),
    "kthvalue keepdim dim 0": (DISTINCT, lambda t, x: t.kthvalue(x, 2, dim=0, keepdim=True).values),
}


@pytest.mark.parametrize("case", SELECTIONS)
def test_selection_gradients(case):
    data, fn = SELECTIONS[case]
    grads = []
    for t in (cr, torch):
        x = t.tensor(data, requires_grad=True)
        y = fn(t, x)
        w = t.tensor(np.arange(1.0, y.numel() + 1).reshape(tuple(y.shape)) ** 0.5)
        (y * w).sum().backward()
        grads.append(x.grad)
    assert_close(grads[0], grads[1], rtol=1e-12, atol=1e-12, requires_grad=False)


# ----- results PyTorch records without a derivative ---------------------------------------------

UNDERIVABLE = {
    "unique": lambda t, x: t.unique(x, return_inverse=True),
    "unique dim": lambda t, x: t.unique(x.reshape(2, 2), dim=0),
    "unique_consecutive": lambda t, x: t.unique_consecutive(x, return_counts=True),
    "histogram": lambda t, x: t.histogram(x, 3),
    "histogram, weight": lambda t, x: t.histogram(x.detach(), 3, weight=x),
    "histogram, edges": lambda t, x: t.histogram(x.detach(), t.stack([x[1], x[0] + 2])),
    "histogramdd": lambda t, x: t.histogramdd(x.reshape(2, 2), [2, 3]),
    "histogramdd, edges": lambda t, x: t.histogramdd(x.detach().reshape(2, 2), [x[:2], x[2:]]),
    "bincount": lambda t, x: t.bincount(t.tensor([0, 1, 1, 3]), x),
    "histc": lambda t, x: t.histc(x, 3),
}


def _flat(result):
    if isinstance(result, (tuple, list)):
        return [u for r in result for u in _flat(r)]
    return [result]


@pytest.mark.parametrize("case", UNDERIVABLE)
def test_results_require_grad_and_backward_raises(case):
    """The results require grad where PyTorch's do, and backward raises PyTorch's error
    (no gradient that silently leaves their path out)."""
    outcomes = []
    for t in (cr, torch):
        x = t.tensor([3.0, 1.0, 2.0, 1.0], requires_grad=True)
        results = _flat(UNDERIVABLE[case](t, x))
        flags = [(r.requires_grad, str(r.dtype)) for r in results]
        try:
            (x.sum() + results[0].sum()).backward()
            error = None
        except (RuntimeError, NotImplementedError) as e:
            error = (type(e), str(e))
        outcomes.append((flags, error))
    assert outcomes[0] == outcomes[1]
