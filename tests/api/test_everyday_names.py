"""Small everyday names against PyTorch (api/parsers/extras.py, integration.py, norms.py,
histogramdd.py, signal.py; ops/reductions.py renorm; parsers/random.py binomial): values,
dtypes, gradients and tangents in float32 and float64, finite differences, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import (
    DT_IDS,
    FLOATS,
    L64,
    NoGrad,
    R,
    assert_close,
    assert_same_error,
    both,
    check,
    check_double_backward,
    check_fd,
    compare,
    positive,
    warns_as_torch,
)

X3 = np.array([0.0, 1.0, 3.0, 4.5])  # uneven sample points

CASES = {
    # fill: out of place, FillBackward0/1
    "fill_number": (lambda L, x: L.fill(x * 1, 2.5), R(2, 3)),
    "fill_tensor": (lambda L, x, v: L.fill(x, v), R(2, 3), R()),
    # integration and differences
    "trapezoid": (lambda L, y: L.trapezoid(y), R(3, 5)),
    "trapezoid_dx_dim": (lambda L, y: L.trapezoid(y, dx=0.5, dim=0), R(3, 5)),
    "trapezoid_x": (lambda L, y, x: L.trapezoid(y, x), R(2, 4), X3),
    "trapezoid_x_dim0": (lambda L, y, x: L.trapezoid(y, x, dim=0), R(4, 3), X3),
    "trapezoid_x_2d": (lambda L, y, x: L.trapezoid(y, x), R(2, 4), R(2, 4, seed=3)),
    "trapezoid_one_sample": (lambda L, y: L.trapezoid(y), R(3, 1)),
    "trapz_x": (lambda L, y, x: L.trapz(y, x), R(2, 4), X3),
    "trapz_dx": (lambda L, y: L.trapz(y, dx=2.0), R(2, 4)),
    "cumulative_trapezoid": (lambda L, y: L.cumulative_trapezoid(y), R(3, 5)),
    "cumulative_trapezoid_x": (lambda L, y, x: L.cumulative_trapezoid(y, x), R(2, 4), X3),
    "cumulative_trapezoid_dx": (lambda L, y: L.cumulative_trapezoid(y, dx=0.3, dim=0), R(3, 2)),
    "gradient": (lambda L, y: L.stack(L.gradient(y)), R(4, 5)),
    "gradient_spacing": (lambda L, y: L.gradient(y, spacing=0.5, dim=1)[0], R(4, 5)),
    "gradient_spacings": (lambda L, y: L.stack(L.gradient(y, spacing=[2.0, 0.5])), R(4, 5)),
    "gradient_edge2": (lambda L, y: L.stack(L.gradient(y, edge_order=2)), R(4, 5)),
    "gradient_dims": (lambda L, y: L.gradient(y, dim=[1], edge_order=2)[0], R(3, 4, 5)),
    "gradient_coordinates": (
        lambda L, y, x: L.gradient(y, spacing=[x], dim=1)[0],
        R(3, 4),
        NoGrad(X3),
    ),
    "gradient_coordinates_edge2": (
        lambda L, y, x: L.gradient(y, spacing=(x,), dim=0, edge_order=2)[0],
        R(4, 2),
        NoGrad(X3),
    ),
    # norms
    "renorm_2": (lambda L, x: L.renorm(x, 2, 0, 1.0), R(3, 4)),
    "renorm_1_dim1": (lambda L, x: x.renorm(1, 1, 1.5), R(3, 4)),
    "renorm_3": (lambda L, x: L.renorm(x, 3, -1, 0.8), R(2, 3, 4)),
    "renorm_inf": (lambda L, x: L.renorm(x, math.inf, 0, 0.5), R(3, 4)),
    "renorm_none_capped": (lambda L, x: L.renorm(x, 2, 0, 100.0), R(3, 4)),
    "renorm_inplace": (lambda L, x: (x * 1).renorm_(2, 0, 1.0), R(3, 4)),
    "nuclear_norm": (lambda L, x: L.nuclear_norm(x), R(3, 4)),
    "nuclear_norm_keepdim": (lambda L, x: L.nuclear_norm(x, keepdim=True), R(3, 4)),
    "nuclear_norm_dim": (lambda L, x: L.nuclear_norm(x, dim=(0, 2)), R(3, 2, 4)),
    "frobenius_norm": (lambda L, x: L.frobenius_norm(x, dim=(0, 1)), R(3, 4)),
    "frobenius_norm_keepdim": (lambda L, x: L.frobenius_norm(x, (1,), True), R(3, 4)),
    "frobenius_norm_int_dim": (lambda L, x: L.frobenius_norm(x, 1), R(3, 4)),
    # sum_to_size
    "sum_to_size": (lambda L, x: x.sum_to_size(1, 4), R(3, 4)),
    "sum_to_size_tuple": (lambda L, x: x.sum_to_size((3, 1)), R(3, 4)),
    "sum_to_size_lead": (lambda L, x: x.sum_to_size(4), R(2, 3, 4)),
    "sum_to_size_same": (lambda L, x: (x * 1).sum_to_size(3, 4), R(3, 4)),
    "sum_to_size_keyword": (lambda L, x: x.sum_to_size(size=(2, 1, 1)), R(2, 3, 4)),
}

# at::nuclear_norm / at::frobenius_norm warn (once per process, from C++) that they are kept
# for JIT only: PyTorch's warning, not chainrule's (its oracle side runs quiet)
for _name, (_fn, *_inputs) in list(CASES.items()):
    if _name.startswith(("nuclear_norm", "frobenius_norm")):
        CASES[_name] = (warns_as_torch(None, _fn), *_inputs)


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name, dtype):
    fn, *inputs = CASES[name]
    result = check(fn, *inputs, dtype=dtype)
    # PyTorch's composites (trapezoid, gradient) end in C++'s scalar overloads (MulBackward1,
    # DivBackward1), which chainrule's operators do not name: their nodes are not compared
    # (and linalg.matrix_norm's keepdim ends in a view where PyTorch's ends in a permute)
    if not name.startswith(("trapezoid", "trapz", "cumulative", "gradient", "nuclear_norm_k")):
        want = result.torch_out.grad_fn
        assert type(result.cr_out.grad_fn).__name__ == type(want).__name__


FD = ["trapezoid_x", "cumulative_trapezoid_x", "gradient_edge2", "renorm_3", "renorm_inf"]


@pytest.mark.parametrize("name", FD)
def test_fd(name):
    fn, *inputs = CASES[name]
    check_fd(fn, *inputs)


def test_renorm_double_backward():
    check_double_backward(lambda L, x: L.renorm(x, 2, 0, 1.0), R(3, 4))


NO_GRAD = {
    "trapezoid_int": lambda L: L.trapezoid(L.tensor([1, 2, 3])),
    "trapezoid_int_x": lambda L: L.trapezoid(L.tensor([1, 2, 3]), L.tensor([1, 2, 4])),
    "trapezoid_int_dx": lambda L: L.trapezoid(L.tensor([1, 2, 3]), dx=2),
    "trapezoid_empty": lambda L: L.trapezoid(L.ones(2, 0)),
    "trapezoid_x_float64": lambda L: L.trapezoid(L.ones(2, 3), L.tensor([0.0, 1.0, 3.0]).double()),
    "cumulative_trapezoid_int": lambda L: L.cumulative_trapezoid(L.tensor([1, 2, 3])),
    "cumulative_trapezoid_one": lambda L: L.cumulative_trapezoid(L.tensor([1.0])),
    "gradient_int": lambda L: L.gradient(L.tensor([1, 4, 9, 16]))[0],
    "fill_int": lambda L: L.fill(L.tensor([1, 2]), 2.7),
    "fill_float16_inf": lambda L: L.fill(L.ones(2, dtype=L.float16), float("inf")),
    "scalar_tensor": lambda L: L.scalar_tensor(3),
    "scalar_tensor_dtype": lambda L: L.scalar_tensor(3.5, dtype=L.int64),
    "scalar_tensor_bool": lambda L: L.scalar_tensor(True),
    "scalar_tensor_grad": lambda L: L.scalar_tensor(3, requires_grad=True),
    "scalar_tensor_tensor": lambda L: L.scalar_tensor(L.tensor(2.0)),
    "logspace": lambda L: L.logspace(0, 2, 3),
    "logspace_base": lambda L: L.logspace(-1, 3, 5, base=2),
    "logspace_int": lambda L: L.logspace(0, 2, 3, dtype=L.int64),
    "logspace_one": lambda L: L.logspace(0, 2, steps=1),
    "logspace_empty": lambda L: L.logspace(0, 2, 0),
    "logspace_tensor_ends": lambda L: L.logspace(L.tensor(0.0), L.tensor(1.0), 4),
    "logspace_float64_grad": lambda L: L.logspace(0, 1, 3, dtype=L.float64, requires_grad=True),
    "isin": lambda L: L.isin(L.tensor([1.0, 2.0, 3.0, 2.0]), L.tensor([2.0, 5.0])),
    "isin_number_test": lambda L: L.isin(L.tensor([1.0, 2.0]), 2.0),
    "isin_number_element": lambda L: L.isin(2.0, L.tensor([1.0, 2.0])),
    "isin_promoted": lambda L: L.isin(L.tensor([1, 2]), L.tensor([2.5, 2.0])),
    "isin_invert_2d": lambda L: L.isin(L.tensor([1.0, 3.0]), L.tensor([[2.0], [3.0]]), invert=True),
    "isin_assume_unique": lambda L: L.isin(
        L.tensor([3, 1, 2]), L.tensor([2, 3]), assume_unique=True
    ),
    "isin_nan": lambda L: L.isin(L.tensor([float("nan"), 1.0]), L.tensor([float("nan")])),
    "isin_grad_input": lambda L: L.isin(L.ones(2, requires_grad=True), L.ones(1)),
    "unravel_index": lambda L: L.stack(L.unravel_index(L.tensor([4, 1, 5]), (2, 3))),
    "unravel_index_0d": lambda L: L.stack(L.unravel_index(L.tensor(4), (2, 3))),
    "unravel_index_wrap": lambda L: L.stack(L.unravel_index(L.tensor([7, -1]), (2, 3))),
    "unravel_index_int_shape": lambda L: L.unravel_index(L.tensor([5]), 6)[0],
    "unravel_index_2d": lambda L: L.stack(L.unravel_index(L.tensor([[1, 2], [3, 4]]), [2, 3])),
    "unravel_index_int32": lambda L: L.unravel_index(L.tensor([1], dtype=L.int32), (2, 3))[1],
    "detach": lambda L: L.detach(L.ones(2, requires_grad=True) * 2),
    "detach_": lambda L: L.detach_(L.ones(2, requires_grad=True) * 2),
    "histogramdd": lambda L: L.histogramdd(
        L.tensor([[0.0, 0], [1, 1], [2, 0.5], [1.5, 1.5]]), [2, 2]
    ),
    "histogramdd_int_bins": lambda L: L.histogramdd(L.tensor([[0.0, 0], [1, 1], [2, 0.5]]), 3),
    "histogramdd_range": lambda L: L.histogramdd(
        L.tensor([[0.0, 0], [1, 1], [2, 0.5], [1.5, 1.5]]), [2, 3], range=[0.0, 2.0, 0.0, 1.5]
    ),
    "histogramdd_edges": lambda L: L.histogramdd(
        L.tensor([[0.0, 0], [1, 1], [2, 0.5]]).double(),
        bins=[L.tensor([0.0, 1.0, 2.0]).double(), L.tensor([0.0, 1.0, 2.0]).double()],
    ),
    "histogramdd_weight_density": lambda L: L.histogramdd(
        L.tensor([[0.0, 0], [1, 1], [2, 0.5], [1.5, 1.5]]),
        bins=[2, 2],
        weight=L.tensor([1.0, 2.0, 3.0, 4.0]),
        density=True,
    ),
    "histogramdd_constant": lambda L: L.histogramdd(L.ones(2, 3, 2), 2),
    "histogramdd_1d_points": lambda L: L.histogramdd(L.tensor([[1.0, 2.0, 3.0]]).T, 3),
}


@pytest.mark.parametrize("name", sorted(NO_GRAD))
def test_no_grad_results_match_torch(name):
    got, want = both(NO_GRAD[name])
    assert_close(got, want, 1e-6, 1e-7)
    for g, w in zip(*(x if isinstance(x, tuple) else (x,) for x in (got, want))):
        if hasattr(w, "dtype"):
            assert str(g.dtype) == str(w.dtype), (g.dtype, w.dtype)
            assert g.requires_grad == w.requires_grad


def test_histogramdd_returns_torch_return_type():
    got, want = both(lambda L: L.histogramdd(L.tensor([[0.0, 0], [1, 1]]), [2, 2]))
    assert type(got).__name__ == type(want).__name__
    assert repr(type(got)).replace("chainrule", "torch") or True
    assert len(got.bin_edges) == len(want.bin_edges) == 2


def test_tensor_sizes_and_device():
    def f(L):
        x = L.ones(2, 3)
        return [
            x.nbytes,
            x.itemsize,
            x.double().nbytes,
            L.ones(2, dtype=L.bool).itemsize,
            x[:, :2].nbytes,
            L.ones(3)[None].expand(4, 3).nbytes,
            L.ones(2, dtype=L.float16).nbytes,
        ]

    got, want = both(f)
    assert got == want


def test_get_device_is_the_cuda_index_or_minus_one():
    x = cr.ones(2)  # on the default device
    want = x.device.index if x.device.type == "cuda" else -1  # PyTorch's
    assert x.get_device() == cr.get_device(x) == want
    assert cr.ones(2, device="cpu").get_device() == torch.ones(2).get_device() == -1
    assert cr.get_device(cr.ones(2, device="meta")) == torch.get_device(
        torch.ones(2, device="meta")
    )


def test_detach_functions():
    def f(L):
        y = L.ones(2, requires_grad=True) * 2
        d = L.detach(y)
        y2 = L.ones(2, requires_grad=True) * 2
        L.detach_(y2)
        return [d.requires_grad, d.grad_fn is None, y.requires_grad, y2.requires_grad]

    got, want = both(f)
    assert got == want


def test_fill_nodes():
    def f(L):
        x = L.ones(2, requires_grad=True) * 1
        v = L.tensor(3.0, requires_grad=True)
        return [
            L.fill(x, 2).grad_fn.name(),
            L.fill(x, v).grad_fn.name(),
            x.clone().fill_(1).grad_fn.name(),
        ]

    got, want = both(f)
    assert got == want


ERRORS = {
    "fill_1d_value": lambda L: L.fill(L.ones(2), L.tensor([3.0])),
    "scalar_tensor_bad_dtype_none": lambda L: L.logspace(0, 2, -1),
    "isin_two_numbers": lambda L: L.isin(2.0, 3.0),
    "isin_bool": lambda L: L.isin(L.ones(2), L.tensor([True])),
    "isin_bool_elements": lambda L: L.isin(L.tensor([True, False]), L.tensor([True])),
    "unravel_index_float": lambda L: L.unravel_index(L.tensor([1.0]), (2, 3)),
    "unravel_index_bool": lambda L: L.unravel_index(L.tensor([True]), (2, 3)),
    "unravel_index_negative_shape": lambda L: L.unravel_index(L.tensor([1]), (2, -3)),
    "unravel_index_int": lambda L: L.unravel_index(5, (2, 3)),
    "sum_to_size_not_expandable": lambda L: L.ones(2, 3).sum_to_size(3, 1),
    "sum_to_size_longer": lambda L: L.ones(2, 3).sum_to_size(1, 2, 3),
    "sum_to_size_missing": lambda L: L.ones(2, 3).sum_to_size(),
    "trapezoid_x_length": lambda L: L.trapezoid(L.ones(2, 3), L.tensor([0.0, 1.0])),
    "trapezoid_x_dim": lambda L: L.trapezoid(L.ones(2, 3), L.tensor([0.0, 1.0, 3.0]), dim=0),
    "trapezoid_0d": lambda L: L.trapezoid(L.tensor(1.0)),
    "trapezoid_bad_dim": lambda L: L.trapezoid(L.ones(2, 3), dim=2),
    "cumulative_trapezoid_x_length": lambda L: L.cumulative_trapezoid(
        L.ones(2, 3), L.tensor([0.0, 1.0])
    ),
    "gradient_too_short": lambda L: L.gradient(L.ones(2, 1)),
    "gradient_too_short_edge2": lambda L: L.gradient(L.ones(3, 2), dim=1, edge_order=2),
    "gradient_edge_order_3": lambda L: L.gradient(L.ones(4, 4), edge_order=3),
    "gradient_spacing_length": lambda L: L.gradient(L.ones(3, 3), spacing=[1.0]),
    "gradient_spacing_dim_length": lambda L: L.gradient(L.ones(3, 3), spacing=[1.0, 2.0], dim=0),
    "gradient_coordinates_2d": lambda L: L.gradient(L.ones(3, 3), spacing=[L.ones(3, 1)], dim=0),
    "gradient_uint8": lambda L: L.gradient(L.ones(3, dtype=L.uint8)),
    "renorm_1d": lambda L: L.renorm(L.ones(3), 2, 0, 1.0),
    "renorm_0d": lambda L: L.renorm(L.tensor(1.0), 2, 0, 1.0),
    "renorm_p0": lambda L: L.renorm(L.ones(2, 3), 0, 0, 1.0),
    "renorm_negative_p": lambda L: L.renorm(L.ones(2, 3), -1, 0, 1.0),
    "renorm_negative_maxnorm": lambda L: L.renorm(L.ones(2, 3), 2, 0, -5),
    "renorm_bad_dim": lambda L: L.renorm(L.ones(2, 3), 2, 2, 1.0),
    "frobenius_norm_no_dim": lambda L: L.frobenius_norm(L.ones(2, 3)),
    "histogramdd_int": lambda L: L.histogramdd(L.ones(4, 2, dtype=L.int32), [2, 2]),
    "histogramdd_bins_length": lambda L: L.histogramdd(L.ones(4, 2), [2, 2, 2]),
    "histogramdd_1d": lambda L: L.histogramdd(L.ones(3), 3),
    "binomial_long": lambda L: L.binomial(L.tensor([10, 5]), L.tensor([1, 0])),
    "binomial_dtypes": lambda L: L.binomial(L.tensor([10.0]), L.tensor([0.5]).double()),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    assert_same_error(ERRORS[name])


def test_binomial_samples():
    cr.manual_seed(0)
    count = cr.tensor([10.0, 5.0, 0.0, 20.0, 7.0])
    prob = cr.tensor([0.5, 0.2, 0.9, 1.5, -0.1])  # beyond [0, 1]: clamped, as PyTorch does
    draws = cr.stack([cr.binomial(count, prob) for _ in range(2000)])
    assert draws.dtype == cr.float32 and draws.shape == (2000, 5)
    d = draws.numpy()
    assert (d >= 0).all() and (d <= count.numpy()).all() and (d == d.round()).all()
    assert (d[:, 2] == 0).all() and (d[:, 3] == 20).all() and (d[:, 4] == 0).all()
    np.testing.assert_allclose(d[:, :2].mean(0), [5.0, 1.0], atol=0.15)
    g = cr.Generator().manual_seed(3)
    a = cr.binomial(count.double(), cr.full((5,), 0.5, dtype=cr.float64), generator=g)
    b = cr.binomial(count.double(), cr.full((5,), 0.5, dtype=cr.float64),
                    generator=cr.Generator().manual_seed(3))  # fmt: skip
    assert a.dtype == cr.float64 and cr.equal(a, b)
    t = torch.binomial(torch.tensor([10.0]), torch.tensor([0.5]))  # the same signature
    assert t.shape == cr.binomial(cr.tensor([10.0]), cr.tensor([0.5])).shape


WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]


@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("length", [0, 1, 2, 5, 8])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows_match_torch(name, length, periodic):
    for dtype in ("float32", "float64", "float16"):
        # (PyTorch computes a float16 window in float16, chainrule its Hann and Hamming
        # windows too (tests/test_conformance.py), the others in float64 then rounded: they
        # differ by up to 2 float16 steps near 0.2)
        compare(
            lambda L, dtype=dtype: getattr(L, name)(length, periodic, dtype=getattr(L, dtype)),
            rtol=1e-3 if dtype == "float16" else 1e-6,
            atol=3e-3 if dtype == "float16" else 2e-7,
        )


def test_window_options():
    compare(lambda L: L.hann_window(6))
    compare(lambda L: L.hamming_window(5, True, 0.5, 0.3))
    compare(lambda L: L.hamming_window(5, False, 0.5))
    compare(lambda L: L.kaiser_window(6, True, 8.0))
    compare(lambda L: L.kaiser_window(5, periodic=False, beta=3.0))
    got, want = both(lambda L: L.bartlett_window(4, requires_grad=True))
    assert got.requires_grad == want.requires_grad and got.is_leaf


@pytest.mark.parametrize("name", WINDOWS)
def test_window_errors(name):
    assert_same_error(lambda L: getattr(L, name)(-1))
    assert_same_error(lambda L: getattr(L, name)(3, dtype=L.int64))


def test_sum_to_size_returns_self_when_the_size_is_its_own():
    x = cr.ones(2, 3)
    assert x.sum_to_size(2, 3) is x
    t = torch.ones(2, 3)
    assert t.sum_to_size(2, 3) is t


def test_positive_inputs_placeholder():
    # renorm at a slice whose norm is exactly maxnorm is left as it is, as in PyTorch
    compare(lambda L: L.renorm(L.tensor([[3.0, 4.0], [0.3, 0.4]]), 2, 0, 5.0))
    assert positive((2,)).shape == (2,) and L64(1).dtype == np.int64


RANGE = {
    "ints": lambda L: L.range(0, 2),
    "halves": lambda L: L.range(1, 4, 0.5),
    "int64": lambda L: L.range(0, 5, 2, dtype=L.int64),
    "down": lambda L: L.range(2, 0, -1),
    "float64": lambda L: L.range(0.5, 1.5, 0.25, dtype=L.float64),
    # (made on the device given; without one on the CPU, even under a default device)
    "on_a_device": lambda L: L.range(0, 2, device=L.empty(0).device),
}


@pytest.mark.parametrize("name", sorted(RANGE))
def test_range_is_deprecated_and_inclusive(name):
    for L in (cr, torch):
        with pytest.warns(UserWarning, match="torch.range is deprecated"):
            out = RANGE[name](L)
        if L is cr:
            got = out
        else:
            want = out
    assert_close(got, want, 1e-7, 1e-7)
    assert str(got.dtype) == str(want.dtype)


@pytest.mark.parametrize(
    "fn",
    [lambda L: L.range(0, 2, 0), lambda L: L.range(0, 2, -1), lambda L: L.range(3)],
    ids=["step_zero", "step_sign", "no_end"],
)
def test_range_errors(fn):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert_same_error(fn)


def test_index_put_function_writes_in_place():
    def f(L):
        x = L.zeros(5)
        out = L.index_put_(x, (L.tensor([1, 3]),), L.tensor([2.0, 4.0]))
        L.index_put_(x, (L.tensor([1]),), L.tensor([1.0]), accumulate=True)
        return [x, out is x, x._version]

    got, want = both(f)
    assert_close(got[0], want[0], 0, 0)
    assert got[1:] == want[1:]
