"""Edge cases of tensor ops found by a differential sweep against PyTorch: empty and 0-d
tensors, nan, integer powers, dtype promotion of skipped inputs, and the exception types
PyTorch raises. Each case runs on both libraries and compares."""

from __future__ import annotations

import pytest
import torch

import chainrule as cr
from oracle import assert_close, assert_same_error, compare, warns_as_torch

NAN, INF = float("nan"), float("inf")


# ----- values --------------------------------------------------------------------------


VALUE_CASES = {
    "narrow_start_at_size": lambda L: L.arange(3).narrow(0, 3, 0),
    "narrow_negative_start": lambda L: L.arange(3).narrow(0, -1, 1),
    "cat_skipped_empty_promotes": lambda L: L.cat([L.tensor([1, 2]), L.tensor([])]),
    "cat_skipped_empty_promotes_2d": lambda L: L.cat(
        [L.tensor([[1, 2]]), L.tensor([], dtype=L.float64), L.tensor([[True, False]])]
    ),
    "cat_only_empty_any_dim": lambda L: L.cat([L.zeros(0), L.zeros(0)], dim=5),
    "rpow_int_negative_exponent": lambda L: L.pow(2, L.tensor([-1, -2, 0, 3])),
    "rpow_minus_one_negative_exponent": lambda L: (-1) ** L.tensor([-1, -2, -3, 2]),
    "rpow_int32": lambda L: 3 ** L.tensor([-1, 2], dtype=L.int32),
    "rpow_bool_base": lambda L: True ** L.tensor([-1, 2]),
    "topk_k0_0d": lambda L: tuple(L.topk(L.tensor(3), 0)),
    "all_dim_empty_tuple": lambda L: L.all(L.tensor([[0, 2], [1, 1]]), dim=()),
    "any_dim_empty_list_uint8": lambda L: L.any(L.tensor([0, 3], dtype=L.uint8), dim=[]),
    "all_dim_empty_tuple_keepdim": lambda L: L.all(L.zeros(2, 0, 3), dim=(), keepdim=True),
    "quantile_0d_keepdim": lambda L: L.quantile(L.tensor(1.5), 0.3, dim=-1, keepdim=True),
    "nanquantile_0d_keepdim": lambda L: L.nanquantile(L.tensor(1.5), 0.3, dim=0, keepdim=True),
    "median_empty_int64": lambda L: L.median(L.zeros(0, dtype=L.int64)),
    "nanmedian_empty_int32": lambda L: L.nanmedian(L.zeros(2, 0, dtype=L.int32)),
    "median_empty_uint8": lambda L: L.median(L.zeros(0, dtype=L.uint8)),
    "unique_nan_each_its_own": lambda L: L.unique(
        L.tensor([NAN, 1.0, NAN, 2.0, 1.0, NAN]), return_inverse=True, return_counts=True
    ),
    "searchsorted_nan_in_sequence": lambda L: L.searchsorted(
        L.tensor([-INF, -1.0, 0.0, 1.0, INF, INF, NAN, NAN]),
        L.tensor([NAN, INF, -INF, 0.0, 5.0, -5.0]),
    ),
    "searchsorted_nan_in_sequence_right": lambda L: L.searchsorted(
        L.tensor([-INF, -1.0, 0.0, 1.0, INF, INF, NAN, NAN]),
        L.tensor([NAN, INF, -INF, 0.0, 5.0, -5.0]),
        right=True,
    ),
    "searchsorted_nan_rows": lambda L: L.searchsorted(
        L.tensor([[0.0, 0.0, 0.0, NAN], [-3.0, -2.0, -1.0, 0.0], [0.0, NAN, NAN, NAN]]),
        L.tensor([[NAN, 0.0], [INF, -1.0], [0.0, 1.0]]),
        side="right",
    ),
    "bucketize_nan_boundaries": lambda L: L.bucketize(
        L.tensor([NAN, 0.0, 3.0]), L.tensor([-1.0, 0.0, 1.0, NAN])
    ),
    "scatter_reduce_bool_amax": lambda L: L.scatter_reduce(
        L.ones(2, dtype=L.bool),
        0,
        L.zeros(2, dtype=L.long),
        L.tensor([True, False]),
        "amax",
        include_self=False,
    ),
    "scatter_reduce_bool_amin": lambda L: L.scatter_reduce(
        L.ones(2, dtype=L.bool),
        0,
        L.zeros(2, dtype=L.long),
        L.tensor([False, False]),
        "amin",
        include_self=False,
    ),
    "scatter_add_bool_0d": lambda L: L.scatter_add(L.tensor(False), 0, L.tensor(0), L.tensor(True)),
}


@pytest.mark.parametrize("case", list(VALUE_CASES))
def test_value_matches_torch(case):
    compare(VALUE_CASES[case], exact=True)


# ----- gradients -----------------------------------------------------------------------


def _grads(fn, *arrays):
    """fn(lib, *leaves) on both libraries: its value and the gradients of a weighted sum."""

    def run(lib):
        leaves = [lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in arrays]
        out = fn(lib, *leaves)
        w = lib.arange(out.numel(), dtype=lib.float64).reshape(out.shape) + 1
        grads = lib.autograd.grad((out * w).sum(), leaves, allow_unused=True)
        return out.detach(), *grads

    return run


GRAD_CASES = {
    "nextafter_equal_operands_no_gradient": (
        lambda L, a, b: L.nextafter(a, b),
        [1.0, 2.0, 3.0, 0.0, -0.0, NAN, INF],
        [1.5, 2.0, -3.0, -0.0, 0.0, NAN, INF],
    ),
    "scatter_reduce_0d_amax": (
        lambda L, x: L.scatter_reduce(
            L.ones_like(x), 0, L.tensor(0), x, "amax", include_self=False
        ),
        1.5,
    ),
    "scatter_reduce_0d_amax_self": (
        lambda L, x: L.scatter_reduce(x * 0 + 1.5, 0, L.tensor(0), x, "amax"),
        1.5,
    ),
    "cat_with_empty_float64": (
        lambda L, x: L.cat([x.float(), L.zeros(0, dtype=L.float64)]),
        [[1.0, 2.0]],
    ),
}


@pytest.mark.parametrize("case", list(GRAD_CASES))
def test_gradient_matches_torch(case):
    fn, *arrays = GRAD_CASES[case]
    compare(_grads(fn, *arrays), exact=False, requires_grad=False)


# ----- errors --------------------------------------------------------------------------


ERROR_CASES = {
    "narrow_past_the_end": lambda L: L.ones(1, 3).narrow(0, 1, 1),
    "narrow_past_the_end_longer": lambda L: L.arange(3).narrow(0, 3, 1),
    "flatten_0d_start_dim": lambda L: L.tensor(2.0).flatten(1),
    "flatten_0d_end_dim": lambda L: L.flatten(L.tensor(2.0), 0, -2),
    "repeat_without_sizes": lambda L: L.tensor([1.0, 2.0]).repeat(),
    "diagonal_0d": lambda L: L.tensor(2.0).diagonal(),
    "diagonal_0d_same_dims": lambda L: L.diagonal(L.tensor(2.0), 0, 0, -1),
    "kthvalue_empty": lambda L: L.kthvalue(L.zeros(0), 1),
    "kthvalue_empty_dim": lambda L: L.zeros(2, 0).kthvalue(1, dim=1),
    "mean_integer_dtype": lambda L: L.mean(L.ones(3), dtype=L.int32),
    "mean_bool_dtype": lambda L: L.ones(3, dtype=L.long).mean(dtype=L.bool),
    "nanmean_integer_input_float_dtype": lambda L: L.nanmean(
        L.ones(3, dtype=L.long), dtype=L.float64
    ),
    "nanmean_integer_dtype": lambda L: L.nanmean(L.ones(3), dtype=L.int32),
    "sum_int_dtype_requires_grad": lambda L: L.ones(3, requires_grad=True).sum(dtype=L.int32),
    "sum_dim_bool_dtype_requires_grad": lambda L: L.ones(2, 3, requires_grad=True).sum(
        1, dtype=L.bool
    ),
    "prod_long_dtype_requires_grad": lambda L: L.prod(L.ones(3, requires_grad=True), dtype=L.long),
    "nansum_int_dtype_requires_grad": lambda L: L.nansum(
        L.ones(3, requires_grad=True), dtype=L.int32
    ),
    "cumsum_long_dtype_requires_grad": lambda L: L.cumsum(
        L.ones(3, requires_grad=True), 0, dtype=L.long
    ),
    "cumprod_int_dtype_requires_grad": lambda L: L.ones(3, requires_grad=True).cumprod(
        0, dtype=L.int32
    ),
    "index_select_dim0": lambda L: L.ones(3, 4).index_select(0, L.tensor([5])),
    "index_select_last_dim_3d": lambda L: L.ones(2, 3, 4).index_select(2, L.tensor([9])),
    "index_select_dim1": lambda L: L.ones(3, 4).index_select(1, L.tensor([4])),
    "index_select_negative_index": lambda L: L.ones(3).index_select(0, L.tensor([-1])),
    "index_select_0d": lambda L: L.tensor(1.0).index_select(0, L.tensor([1])),
    "index_select_empty_dim": lambda L: L.ones(2, 0, 4).index_select(1, L.tensor([9])),
    "index_select_empty_other_dim": lambda L: L.ones(2, 0, 4).index_select(2, L.tensor([9])),
}


@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_error_matches_torch(case):
    assert_same_error(ERROR_CASES[case])


def test_sum_int_dtype_without_grad_mode_computes():
    def fn(lib):
        with lib.no_grad():
            return lib.ones(3, requires_grad=True).sum(dtype=lib.int32)

    compare(fn, exact=True)


# ----- 0-d transposes: PyTorch's deprecation warning, the identity ----------------------


@pytest.mark.parametrize(
    ("what", "match"),
    [
        ("mT", "Tensor.mT is deprecated on 0-D tensors"),
        ("mH", "Tensor.mH is deprecated on 0-D tensors"),
        ("adjoint", r"adjoint\(\) is deprecated on 0-D tensors"),
    ],
)
@pytest.mark.parametrize("value", [2.5, 2.0 + 1.0j])
def test_matrix_transposes_of_0d(what, match, value):
    def fn(lib):
        x = lib.tensor(value)
        out = x.adjoint() if what == "adjoint" else getattr(x, what)
        return out.resolve_conj(), (out is x)

    got = warns_as_torch(match, fn)(cr)
    want = warns_as_torch(match, fn)(torch)
    assert_close(got, want)
