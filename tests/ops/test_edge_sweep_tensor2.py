"""More edge cases of tensor ops from the differential sweep against PyTorch: several
Ellipsis in a key, integer-array indices out of range with an empty result, the gradient of
a skipped empty input of cat, histc's range, unique along a dim of an empty tensor,
gradients at singular points (x^(1/2) at -inf and -0, ψ at ±0, cumprod with zeros and
infinities) and the order of PyTorch's checks. Each case runs on both libraries."""

from __future__ import annotations

import pytest
import torch

import chainrule as cr
from oracle import assert_same_error, compare

NAN, INF = float("nan"), float("inf")
E = Ellipsis


def _x(L, shape=(2, 3, 4), grad=False):
    n = 1
    for s in shape:
        n *= s
    x = L.arange(float(n)).reshape(shape)
    return x.requires_grad_() if grad else x


def _index(L, shape, key):
    """The value, the gradient of its sum, and a setitem of -1 at the key."""
    k = tuple(L.tensor(p) if isinstance(p, list) else p for p in key)
    x = _x(L, shape, grad=True)
    y = x[k]
    y.sum().backward()
    z = _x(L, shape)
    z[k] = -1.0
    return y.detach(), x.grad, z


# ----- several Ellipsis ---------------------------------------------------------------------

ELLIPSES = [
    (E, E),
    (E, 0, E),
    (0, E, E),
    (E, None, E),
    (E, E, E),
    (None, E, E),
    (E, [0, 1], E),
    (0, E, 0, E),
    (E, 1, 1, E),
    (E, slice(1, None), E),
]


@pytest.mark.parametrize("key", ELLIPSES, ids=str)
def test_several_ellipsis(key):
    compare(lambda L: _index(L, (2, 3, 4), key))


def test_several_ellipsis_of_0d():
    compare(lambda L: (_x(L, ())[E, E], _x(L, ())[E, None, E]))


@pytest.mark.parametrize(
    "key", [(E, None, E, None), (E, 0, E, 0), (E, E, 0), (E, E, [0, 1]), (E, E, 1, 1, 1, 1)]
)
def test_several_ellipsis_errors(key):
    for L in (torch, cr):
        keyed = tuple(L.tensor(p) if isinstance(p, list) else p for p in key)
        with pytest.raises(IndexError):
            _x(L)[keyed]
        with pytest.raises(IndexError):
            _x(L)[keyed] = 1.0


# ----- integer arrays out of range, with an empty result -----------------------------------

EMPTY_KEYS = [
    ((2, 0, 3), ([2],)),
    ((2, 0, 3), ([7, -9],)),
    ((0, 3), (slice(None), [5])),
    ((2, 0, 3), ([5], slice(None), [7])),
    ((2, 0, 3), (0, slice(None), [7])),
    ((2, 0, 3), (E, [5])),
    ((3, 0), ([[1, 9]],)),
]


@pytest.mark.parametrize("shape,key", EMPTY_KEYS, ids=str)
def test_out_of_range_index_with_empty_result(shape, key):
    compare(lambda L: _index(L, shape, key))


@pytest.mark.parametrize(
    "shape,key", [((0, 3), ([2],)), ((2, 0, 3), (slice(None), [5])), ((2, 0, 3), (5,))]
)
def test_out_of_range_index_still_checked(shape, key):
    def read(L):
        return _x(L, shape)[tuple(L.tensor(p) if isinstance(p, list) else p for p in key)]

    assert_same_error(read, "out of bounds for dimension")


def test_index_put_out_of_range_with_empty_result():
    compare(
        lambda L: [
            L.index_put(L.zeros(2, 0, 3), (L.tensor([7, -9]),), L.tensor(1.0), accumulate=a)
            for a in (False, True)
        ]
    )


def test_setitem_out_of_range_empty_value_grad():
    def run(L):
        x = L.zeros(2, 0, 3, requires_grad=True)
        v = L.tensor(2.0, requires_grad=True)
        y = x.clone()
        y[L.tensor([7, -9])] = v
        y.sum().backward()
        return x.grad, v.grad

    compare(run)


# ----- cat: a skipped empty 1-D input gets an empty gradient --------------------------------


@pytest.mark.parametrize(
    "shapes,dim",
    [
        ([(2, 3), (0,), (0, 3)], 0),
        ([(0,), (2, 3)], 1),
        ([(0,), (2, 3, 4), (0,)], -1),
        ([(0,), (0,)], 0),
        ([(0,), (3,)], 0),
    ],
)
def test_cat_skipped_empty_input_gradient(shapes, dim):
    def run(L):
        ts = [L.zeros(s, requires_grad=True) for s in shapes]
        y = L.cat(ts, dim)
        (y * L.arange(float(y.numel())).reshape(y.shape)).sum().backward()
        return y, [t.grad for t in ts]

    compare(run)


def test_cat_skipped_empty_input_promotes_and_gets_its_dtype():
    def run(L):
        e = L.zeros(0, dtype=L.float64, requires_grad=True)
        a = L.ones(2, 3, requires_grad=True)
        y = L.cat([e, a], 1)
        y.sum().backward()
        return y, e.grad, a.grad

    compare(run)


# ----- histc: the range must be finite -------------------------------------------------------


@pytest.mark.parametrize(
    "data,kw",
    [
        ([1.0, NAN, 2.0], {}),
        ([1.0, INF, 2.0], {}),
        ([1.0, 2.0], {"min": INF, "max": 0}),
        ([1.0, 2.0], {"min": 3, "max": NAN}),
        ([], {"min": NAN, "max": NAN}),
    ],
)
def test_histc_range_not_finite(data, kw):
    assert_same_error(lambda L: L.histc(L.tensor(data), bins=4, **kw), "is not finite")


@pytest.mark.parametrize(
    "data,kw",
    [
        ([1.0, NAN, 2.0], {"min": 0, "max": 3}),
        ([1.0, 2.0], {"min": -INF, "max": -INF}),
        ([3.0, 3.0], {}),
        ([], {}),
    ],
)
def test_histc_finite_range(data, kw):
    compare(lambda L: L.histc(L.tensor(data), bins=4, **kw))


# ----- unique along a dim of an empty tensor ---------------------------------------------------


@pytest.mark.parametrize("fn", ["unique", "unique_consecutive"])
@pytest.mark.parametrize("shape,dim", [((2, 0, 3), 1), ((0, 3), 0), ((3, 0), -1), ((0,), 0)])
def test_unique_dim_empty(fn, shape, dim):
    compare(
        lambda L: getattr(L, fn)(L.zeros(shape), dim=dim, return_inverse=True, return_counts=True)
    )


@pytest.mark.parametrize("fn", ["unique", "unique_consecutive"])
@pytest.mark.parametrize(
    "shape,dim,phrase",
    [
        ((2, 0, 3), 0, "aren't selected"),
        ((0, 3), 1, "aren't selected"),
        ((0, 0), 0, "more than one"),
        ((0, 0, 2), 1, "more than one"),
    ],
)
def test_unique_dim_empty_errors(fn, shape, dim, phrase):
    assert_same_error(lambda L: getattr(L, fn)(L.zeros(shape), dim=dim), phrase)


# ----- gradients at singular points --------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_sqrt_power_at_minus_inf_and_minus_zero(dtype):
    def run(L):
        x = L.tensor([-INF, -0.0, 0.0, 4.0], dtype=getattr(L, dtype), requires_grad=True)
        y = L.pow(x, 0.5)
        y.sum().backward()
        return L.pow(x.detach(), -0.5), x.grad

    compare(run)


def test_sqrt_power_second_derivative():
    def run(L):
        x = L.tensor([-INF, -0.0, 0.0, 4.0], dtype=L.float64, requires_grad=True)
        (g,) = L.autograd.grad(L.pow(x, 0.5).sum(), x, create_graph=True)
        g.sum().backward()
        return g, x.grad

    compare(run)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_digamma_at_signed_zeros(dtype):
    def run(L):
        x = L.tensor([0.0, -0.0], dtype=getattr(L, dtype), requires_grad=True)
        L.lgamma(x).sum().backward()
        return L.digamma(x.detach()), L.polygamma(0, x.detach()), x.grad

    compare(run)


CUMPROD_ZEROS = [
    [2.0, 0.0, INF],
    [INF, 0.0, 3.0],
    [0.0, INF, 3.0],
    [1.0, 0.0, 2.0, 0.0, INF],
    [INF, 2.0, 0.0],
    [NAN, 0.0, 2.0],
    [0.0, INF, 0.0, 0.0],
    [-INF, 0.0, 0.5, 1.5, -2.0],
    [1.5, 0.0, 2.0, -1.0],
]


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("values", CUMPROD_ZEROS, ids=str)
def test_cumprod_gradient_with_zeros_and_infinities(values, create_graph):
    # PyTorch's values differ with create_graph (its dense rule) and without (its
    # linear-time rule): both are matched
    def run(L):
        x = L.tensor(values, dtype=L.float64, requires_grad=True)
        w = L.arange(1.0, len(values) + 1, dtype=L.float64)
        (g,) = L.autograd.grad((L.cumprod(x, 0) * w).sum(), x, create_graph=create_graph)
        return g

    compare(run)


def test_cumprod_gradient_with_zeros_along_a_dim():
    def run(L):
        x = L.tensor(
            [[1.5, 0.0, 2.0, -1.0], [0.0, 2.0, 0.0, 3.0], [INF, 3.0, 0.0, 1.0]],
            dtype=L.float64,
            requires_grad=True,
        )
        w = L.arange(12.0, dtype=L.float64).reshape(3, 4)
        return [L.autograd.grad((L.cumprod(x, d) * w).sum(), x)[0] for d in (0, 1)]

    compare(run)


def test_cumprod_second_derivative_with_zeros():
    def run(L):
        x = L.tensor([[1.5, 0.0, 2.0, -1.0], [0.0, 2.0, 0.0, 3.0]], dtype=L.float64)
        x.requires_grad_()
        w = L.tensor([[1.0, 2.0, 3.0, 4.0], [1.0, -1.0, 2.0, 0.5]], dtype=L.float64)
        (g,) = L.autograd.grad((L.cumprod(x, 1) * w).sum(), x, create_graph=True)
        (h,) = L.autograd.grad((g * g).sum(), x)
        return g, h

    compare(run)


# ----- which check PyTorch makes first -----------------------------------------------------------

ERROR_CASES = {
    "nansum_complex_bad_dim": lambda L: L.nansum(L.zeros(2, 3, dtype=L.complex64), dim=5),
    "nanmean_complex_bad_dim": lambda L: L.nanmean(L.zeros(2, 3, dtype=L.complex64), dim=5),
    "median_bool_empty_dim": lambda L: L.median(L.zeros(2, 0, dtype=L.bool), dim=1),
    "median_bool_dim": lambda L: L.median(L.zeros(2, 3, dtype=L.bool), dim=1),
    "kthvalue_bool_empty": lambda L: L.kthvalue(L.zeros(0, dtype=L.bool), 1),
    "kthvalue_bool_bad_k": lambda L: L.kthvalue(L.zeros(3, dtype=L.bool), 5),
    "kthvalue_bool": lambda L: L.kthvalue(L.zeros(3, dtype=L.bool), 1),
    "logcumsumexp_int_bad_dim": lambda L: L.logcumsumexp(L.zeros(2, 3, dtype=L.int64), dim=5),
    "dist_bool_bool": lambda L: L.dist(L.zeros(3, dtype=L.bool), L.ones(3, dtype=L.bool)),
    "dist_bool_float": lambda L: L.dist(L.zeros(3, dtype=L.bool), L.ones(3)),
    "uint8_setitem_overflow": lambda L: L.zeros(3, dtype=L.uint8).__setitem__(0, 256),
    "uint8_setitem_negative_float": lambda L: L.zeros(3, dtype=L.uint8).__setitem__(0, -1.5),
    "int8_setitem_overflow": lambda L: L.zeros(3, dtype=L.int8).__setitem__(0, -129),
    "uint8_index_fill_overflow": lambda L: L.zeros(3, dtype=L.uint8).index_fill(
        0, L.tensor([0]), 300
    ),
}


@pytest.mark.parametrize("name", list(ERROR_CASES))
def test_check_order(name):
    assert_same_error(ERROR_CASES[name])


def test_median_of_empty_bool():
    compare(lambda L: (L.median(L.zeros(0, dtype=L.bool)), L.nanmedian(L.zeros(0, dtype=L.bool))))


def test_integer_setitem_wraps_negatives_as_pytorch():
    def run(L):
        x = L.zeros(4, dtype=L.uint8)
        x[0] = -1
        x[1:3] = -129
        return x, L.zeros(3, dtype=L.uint8).index_fill(0, L.tensor([0, 2]), -2)

    compare(run)
