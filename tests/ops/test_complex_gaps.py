"""The complex-number gaps closed against PyTorch 2.13: complex ``logspace`` and
``scalar_tensor``; ``F.unfold``/``F.fold`` and the ``*_copy`` view forms on complex input
(values, gradients, tangents); ``F.pad``'s real ``value`` and ``constant_pad_nd``'s checked
one; the norms' ``dtype=`` checks and ``out=``; the backward PyTorch refuses on complex
values (select_scatter, slice_scatter, scatter_reduce, index_reduce, select_copy, slice_copy,
geqrf) word for word, while forward mode runs; the Bessel, zeta, multigammaln and
orthogonal-polynomial errors naming PyTorch's kernels; the signs of zeros of
``cholesky(upper=True)``; and the odds and ends a sweep over the torch namespace found
(``result_type`` of a complex number, ``view_as_complex``'s and ``kl_div``'s messages,
in-place comparisons keeping a zero gradient, ``svd_lowrank``/``pca_lowrank`` of complex
matrices)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import L64, assert_close, check, compare, crandn, error_of

Z = crandn((2, 3, 5, 6), 0)
COLS = crandn((2, 12, 18), 1)
M = crandn((3, 4), 2)


def _same_outcome(run) -> None:
    """``run(lib)`` raises the same error in both libraries, or returns the same values."""
    try:
        want = run(torch)
    except Exception as exc:  # noqa: BLE001 - the exception is what is compared
        got = error_of(run, cr)
        assert type(got) is type(exc), (got, exc)
        assert str(got) == str(exc)
        return
    assert_close(run(cr), want, 1e-6, 1e-7, exact=False)


# ----- logspace and scalar_tensor ------------------------------------------------------------


def test_complex_logspace_matches_torch():
    compare(
        lambda L: [
            L.logspace(0, 1 + 1j, 3),
            L.logspace(1j, 2, 4),
            L.logspace(0, 1, 3, dtype=L.cfloat),
            L.logspace(0, 1, 3, dtype=L.cdouble),
            L.logspace(0, 1 + 1j, 3, base=2),
            L.logspace(0, 1, 3, base=-2.0, dtype=L.cfloat),  # the principal branch
            L.logspace(0.5, 1j, 5, dtype=L.complex128),
            L.logspace(L.tensor(1j), 2, 3),
            L.logspace(0, L.tensor(1 + 2j), 3),
            L.logspace(0, 1j, 1),
            L.logspace(0, 1j, 0),
            L.logspace(0, 40, 2, dtype=L.cfloat),  # beyond complex64: inf
            L.logspace(0, 1j, 4, requires_grad=True),
        ],
        rtol=2e-6,
        atol=1e-6,
    )


LOGSPACE_ERRORS = {
    "complex_end_real_dtype": lambda L: L.logspace(0, 1 + 1j, 3, dtype=L.float64),
    "complex_end_int_dtype": lambda L: L.logspace(0, 3 + 1j, 4, dtype=L.int64),
    "complex_base": lambda L: L.logspace(0, 1, 3, base=1j),
    "string_base": lambda L: L.logspace(0, 1, 3, base="a"),
}


@pytest.mark.parametrize("name", LOGSPACE_ERRORS)
def test_logspace_refuses_as_torch(name):
    _same_outcome(LOGSPACE_ERRORS[name])


def test_logspace_inferred_dtype_follows_the_default_dtype():
    def run(L):
        L.set_default_dtype(L.float64)
        try:
            return [str(L.logspace(0, 1j, 3).dtype), str(error_of(_float32_logspace, L))]
        finally:
            L.set_default_dtype(L.float32)

    assert run(cr) == run(torch)


def _float32_logspace(L):
    return L.logspace(0, 1j, 3, dtype=L.float32)


SCALAR_TENSOR = {
    "complex": lambda L: L.scalar_tensor(1j),
    "complex_zero_imag": lambda L: L.scalar_tensor(1 + 0j),
    "cfloat": lambda L: L.scalar_tensor(1j, dtype=L.cfloat),
    "cdouble": lambda L: L.scalar_tensor(1j, dtype=L.cdouble),
    "int_into_cfloat": lambda L: L.scalar_tensor(2, dtype=L.cfloat),
    "complex_into_double": lambda L: L.scalar_tensor(1j, dtype=L.float64),
    "complex_into_int": lambda L: L.scalar_tensor(1j, dtype=L.int64),
    "complex_into_bool": lambda L: L.scalar_tensor(1j, dtype=L.bool),
    "zero_into_bool": lambda L: L.scalar_tensor(0j, dtype=L.bool),
    "complex_tensor": lambda L: L.scalar_tensor(L.tensor(1j)),
    "complex_tensor_cfloat": lambda L: L.scalar_tensor(L.tensor(1j), dtype=L.cfloat),
    "real_tensor_cfloat": lambda L: L.scalar_tensor(L.tensor(1.5), dtype=L.cfloat),
    "requires_grad": lambda L: L.scalar_tensor(1j, dtype=L.cfloat, requires_grad=True),
    "float32_overflow": lambda L: L.scalar_tensor(1e300),
    "nan_into_int": lambda L: L.scalar_tensor(float("nan"), dtype=L.int64),
    "uint8_overflow": lambda L: L.scalar_tensor(300, dtype=L.uint8),
    "string": lambda L: L.scalar_tensor("a"),
    "none": lambda L: L.scalar_tensor(None),
    "one_element_tensor": lambda L: L.scalar_tensor(L.tensor([3.0])),
    "tensor_requiring_grad": lambda L: L.scalar_tensor(L.tensor(2.0, requires_grad=True)),
}


@pytest.mark.parametrize("name", SCALAR_TENSOR)
def test_scalar_tensor_matches_torch(name):
    _same_outcome(SCALAR_TENSOR[name])


# ----- ops whose VJPs serve complex values: values, gradients, tangents ---------------------

CASES = {
    "unfold": (
        lambda L, z: L.nn.functional.unfold(z, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
        [Z],
    ),
    "unfold_3d_input": (lambda L, z: L.nn.functional.unfold(z[0], 2), [Z]),
    "fold": (
        lambda L, c: L.nn.functional.fold(c, (5, 4), (2, 2), padding=(1, 0)),
        [COLS],
    ),
    "fold_unfold": (
        lambda L, z: L.nn.functional.fold(L.nn.functional.unfold(z, 2), (5, 6), 2),
        [Z],
    ),
    "alias_copy": (lambda L, z: L.alias_copy(z), [M]),
    "t_copy": (lambda L, z: L.t_copy(z), [M]),
    "transpose_copy": (lambda L, z: L.transpose_copy(z, 0, 1), [M]),
    "permute_copy": (lambda L, z: L.permute_copy(z, (1, 0)), [M]),
    "squeeze_copy": (lambda L, z: L.squeeze_copy(z[None]), [M]),
    "unsqueeze_copy": (lambda L, z: L.unsqueeze_copy(z, 1), [M]),
    "view_copy": (lambda L, z: L.view_copy(z, (6, 2)), [M]),
    "expand_copy": (lambda L, z: L.expand_copy(z, (2, 3, 4)), [M]),
    "unbind_copy": (lambda L, z: L.unbind_copy(z)[1], [M]),
    "split_copy": (lambda L, z: L.split_copy(z, 2, 1)[1], [M]),
    "split_with_sizes_copy": (lambda L, z: L.split_with_sizes_copy(z, [1, 3], 1)[1], [M]),
    "unfold_copy": (lambda L, z: L.unfold_copy(z, 1, 2, 1), [M]),
    "narrow_copy": (lambda L, z: L.narrow_copy(z, 1, 1, 2), [M]),
    "diagonal_scatter": (lambda L, z: L.diagonal_scatter(z, z[0, :3] * 2), [M]),
    # PyTorch refuses bilinear's backward on complex values (_trilinear); chainrule's is its
    # einsum composition's, which PyTorch differentiates
    "bilinear": (
        lambda L, a, b, w, c: (
            L.nn.functional.bilinear(a, b, w, c)
            if L is cr
            else L.einsum("ni,oij,nj->no", a, w, b) + c
        ),
        [crandn((2, 3), 10), crandn((2, 4), 11), crandn((5, 3, 4), 12), crandn((5,), 13)],
    ),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", CASES)
def test_matches_torch(name, dtype):
    fn, inputs = CASES[name]
    check(fn, *inputs, dtype=dtype)


@pytest.mark.parametrize("name", ["eq_", "ne_", "not_equal_"])
def test_in_place_comparisons_of_complex_values_have_zero_gradients_as_torch(name):
    """x.eq_(y) writes 1 and 0 into a complex x and records a node whose gradient is 0
    (before, the values were written but the graph still led through the old values)."""

    def run(L):
        a = L.tensor([1 + 1j, 2, 3j], requires_grad=True)
        b = a * 1
        getattr(b, name)(L.tensor([1 + 1j, 0, 3j]))
        (b * L.tensor([1, 2j, 3])).real.sum().backward()
        return [b.detach(), a.grad]

    compare(run, exact=True)


# ----- F.pad's value and constant_pad_nd's -------------------------------------------------

ONES = np.ones((2, 3))

PADS = {
    "complex_value": lambda L, z, x: L.nn.functional.pad(z, (1, 1), value=1 + 1j),
    "complex_value_by_position": lambda L, z, x: L.nn.functional.pad(z, (1, 1), "constant", 1j),
    "complex_zero_imag": lambda L, z, x: L.nn.functional.pad(z, (1, 1), value=1 + 0j),
    "complex_into_real": lambda L, z, x: L.nn.functional.pad(x, (1, 1), value=1j),
    "reflect_complex_value": lambda L, z, x: L.nn.functional.pad(z, (1, 1), "reflect", value=1j),
    "reflect_real_value": lambda L, z, x: L.nn.functional.pad(z, (1, 1), "reflect", value=0.5),
    "string_value": lambda L, z, x: L.nn.functional.pad(z, (1, 1), value="a"),
    "list_value": lambda L, z, x: L.nn.functional.pad(x, (1, 1), value=[1]),
    "bool_value": lambda L, z, x: L.nn.functional.pad(z, (1, 1), value=True),
    "int_value": lambda L, z, x: L.nn.functional.pad(z, (1, 1), value=2),
    "tensor_value": lambda L, z, x: L.nn.functional.pad(z, (1, 1), value=L.tensor(1.5)),
    "complex_tensor_value": lambda L, z, x: L.nn.functional.pad(z, (1, 1), value=L.tensor(1j)),
    "complex_tensor_zero_imag": lambda L, z, x: L.nn.functional.pad(
        x, (1, 1), value=L.tensor(2 + 0j)
    ),
    "one_element_tensor_value": lambda L, z, x: L.nn.functional.pad(
        z, (1, 1), value=L.tensor([1.0])
    ),
    "tensor_value_requiring_grad": lambda L, z, x: L.nn.functional.pad(
        x, (1, 1), value=L.tensor(1.0, requires_grad=True)
    ),
    "float32_overflow": lambda L, z, x: L.nn.functional.pad(x, (1, 1), value=1e300),
    "int64_overflow": lambda L, z, x: L.nn.functional.pad(x.long(), (1, 1), value=2**70),
    "module": lambda L, z, x: L.nn.ConstantPad1d(1, 1j)(z),
    "constant_pad_nd_complex": lambda L, z, x: L.constant_pad_nd(z, (1, 1), 1j),
    "constant_pad_nd_complex_tensor": lambda L, z, x: L.constant_pad_nd(z, (1, 1), L.tensor(1j)),
    "constant_pad_nd_complex_into_real": lambda L, z, x: L.constant_pad_nd(x, (1, 1), 1j),
    "constant_pad_nd_one_element": lambda L, z, x: L.constant_pad_nd(x, (1, 1), L.tensor([1.5])),
    "constant_pad_nd_string": lambda L, z, x: L.constant_pad_nd(x, (1, 1), "a"),
    "constant_pad_nd_none": lambda L, z, x: L.constant_pad_nd(x, (1, 1), None),
    "constant_pad_nd_overflow": lambda L, z, x: L.constant_pad_nd(x, (1, 1), 1e300),
    "constant_pad_nd_int_overflow": lambda L, z, x: L.constant_pad_nd(x.long(), (1, 1), 2**70),
    "constant_pad_nd_nan_into_int": lambda L, z, x: L.constant_pad_nd(
        x.long(), (1, 1), float("nan")
    ),
}


@pytest.mark.parametrize("name", PADS)
def test_pad_values_as_torch(name):
    _same_outcome(lambda L: PADS[name](L, L.tensor(ONES, dtype=L.cfloat), L.tensor(ONES)))


def test_complex_pad_gradient_matches_torch():
    check(lambda L, z: L.nn.functional.pad(z, (2, 1, 1, 0), value=-0.5), M, dtype=np.float64)


# ----- the norms' dtype= and out= ----------------------------------------------------------


def _norm_cases(L):
    z = L.ones(2, 3, dtype=L.cfloat) * (1 + 1j)
    x = L.ones(2, 3)
    la = L.linalg
    return {
        "vector_complex_to_real": lambda: la.vector_norm(z, dtype=L.float64),
        "vector_real_to_complex": lambda: la.vector_norm(x, dtype=L.cfloat),
        "vector_complex_widened": lambda: la.vector_norm(z, dtype=L.cdouble),
        "vector_complex_narrowed": lambda: la.vector_norm(z.cdouble(), dtype=L.cfloat),
        "vector_real_narrowed": lambda: la.vector_norm(x.double(), dtype=L.float32),
        "vector_to_half": lambda: la.vector_norm(x, dtype=L.float16),
        "vector_half_widened": lambda: la.vector_norm(x.half(), dtype=L.float32),
        "vector_int_dtype": lambda: la.vector_norm(z, dtype=L.int64),
        "vector_bool_dtype": lambda: la.vector_norm(z, dtype=L.bool),
        "vector_int_input": lambda: la.vector_norm(x.long(), dtype=L.float32),
        "vector_inf_complex_to_real": lambda: la.vector_norm(z, float("inf"), dtype=L.float64),
        "vector_string_ord": lambda: la.vector_norm(x, "fro"),
        "matrix_complex_to_real": lambda: la.matrix_norm(z, dtype=L.float64),
        "matrix_real_to_complex": lambda: la.matrix_norm(x, dtype=L.cfloat),
        "matrix_complex_widened": lambda: la.matrix_norm(z, dtype=L.cdouble),
        "matrix_nuc_widened": lambda: la.matrix_norm(z, "nuc", dtype=L.cdouble),
        "matrix_2_widened": lambda: la.matrix_norm(z, 2, dtype=L.cdouble),
        "matrix_1_complex_to_real": lambda: la.matrix_norm(z, 1, dtype=L.float64),
        "matrix_nuc_real_to_complex": lambda: la.matrix_norm(x, "nuc", dtype=L.cdouble),
        "matrix_narrowed": lambda: la.matrix_norm(x.double(), dtype=L.float32),
        "matrix_nuc_to_half": lambda: la.matrix_norm(x, "nuc", dtype=L.float16),
        "matrix_int_dtype": lambda: la.matrix_norm(x, "nuc", dtype=L.int64),
        "matrix_int_input": lambda: la.matrix_norm(x.long(), dtype=L.int64),
        "matrix_order_first": lambda: la.matrix_norm(x, 3, dtype=L.int64),
        "matrix_dims_before_dtype": lambda: la.matrix_norm(x, dim=(0, 0), dtype=L.int64),
        "matrix_half_fro": lambda: la.matrix_norm(x.half()),
        "matrix_half_1": lambda: la.matrix_norm(x.half(), 1),
        "matrix_half_nuc": lambda: la.matrix_norm(x.half(), "nuc"),
        "norm_complex_to_real": lambda: la.norm(z, dtype=L.float64),
        "norm_fro_complex_to_real": lambda: la.norm(z, "fro", dtype=L.float64),
        "norm_dim_complex_to_real": lambda: la.norm(z, 2, dim=1, dtype=L.float64),
        "norm_nuc_complex_to_real": lambda: la.norm(z, "nuc", dtype=L.float64),
        "norm_widened": lambda: la.norm(z, dtype=L.cdouble),
        "torch_norm_complex_to_real": lambda: L.norm(z, dtype=L.float64),
        "torch_norm_real_to_complex": lambda: L.norm(x, dtype=L.cfloat),
        "torch_norm_fro_complex_to_real": lambda: L.norm(z, p="fro", dtype=L.float64),
        "torch_norm_nuc_widened": lambda: L.norm(z, p="nuc", dtype=L.cdouble),
        "torch_norm_nuc_complex_to_real": lambda: L.norm(z, p="nuc", dtype=L.float64),
        "torch_norm_narrowed": lambda: L.norm(x.double(), dtype=L.float32),
        "torch_norm_int_input": lambda: L.norm(x.long(), dtype=L.float32),
        "method_real_to_complex": lambda: x.norm(dtype=L.cfloat),
        "method_complex_to_real": lambda: z.norm(dtype=L.float32),
    }


@pytest.mark.parametrize("name", list(_norm_cases(torch)))
def test_norm_dtypes_as_torch(name):
    _same_outcome(lambda L: _norm_cases(L)[name]())


def _norm_outs(L):
    z = L.ones(2, 3, dtype=L.cfloat) * (1 + 1j)
    x = L.tensor([[1.0, 2, 3], [4, 5, 6]])
    la = L.linalg

    def into(out, f):
        result = f(out)
        return [result is out, out]

    return {
        "vector_real_into_complex": lambda: la.vector_norm(x, out=L.empty(0, dtype=L.cfloat)),
        "vector_complex_into_double": lambda: la.vector_norm(z, out=L.empty(0, dtype=L.float64)),
        "vector_complex_into_complex": lambda: la.vector_norm(z, out=L.empty(0, dtype=L.cfloat)),
        "vector_widened_into_float": lambda: la.vector_norm(z, dtype=L.cdouble, out=L.empty(0)),
        "vector_into": lambda: into(
            L.empty(0, dtype=L.float64),
            lambda o: la.vector_norm(x.double(), 3, dim=1, keepdim=True, out=o),
        ),
        "vector_widened_into_double": lambda: into(
            L.empty(0, dtype=L.float64), lambda o: la.vector_norm(z, dtype=L.cdouble, out=o)
        ),
        "vector_requires_grad": lambda: la.vector_norm(x.requires_grad_(), out=L.empty(0)),
        "vector_out_list": lambda: la.vector_norm(x, out=[1]),
        "matrix_into_double": lambda: la.matrix_norm(x, out=L.empty(0, dtype=L.float64)),
        "matrix_nuc_into_complex": lambda: la.matrix_norm(x, "nuc", out=L.empty(0, dtype=L.cfloat)),
        "matrix_into": lambda: into(L.empty(0), lambda o: la.matrix_norm(x, 1, out=o)),
        "matrix_complex_into": lambda: into(L.empty(0), lambda o: la.matrix_norm(z, out=o)),
        "norm_into_double": lambda: la.norm(x, out=L.empty(0, dtype=L.float64)),
        "norm_dim_into": lambda: into(L.empty(0), lambda o: la.norm(x, dim=0, out=o)),
        "torch_norm_into_double": lambda: L.norm(x, out=L.empty(0, dtype=L.float64)),
        "torch_norm_nuc_into": lambda: into(L.empty(0), lambda o: L.norm(x, p="nuc", out=o)),
        "torch_norm_complex_into": lambda: into(L.empty(0), lambda o: L.norm(z, 1, out=o)),
    }


@pytest.mark.parametrize("name", list(_norm_outs(torch)))
def test_norm_outs_as_torch(name):
    _same_outcome(lambda L: _norm_outs(L)[name]())


def test_matrix_norm_out_records_the_copy_as_torch():
    def run(L):
        x = L.tensor([[1.0, 2, 3], [4, 5, 6]], requires_grad=True)
        out = L.empty(0)
        result = L.linalg.matrix_norm(x, out=out)
        out.backward()
        return [result is out, out.detach(), x.grad, out.grad_fn.name()]

    compare(run)


# ----- the backward PyTorch refuses on complex values; forward mode runs --------------------


def _refused(L):
    z = L.tensor(M, requires_grad=True)
    s = L.tensor(crandn((3, 4), 3))
    idx = L.tensor(L64([0, 1], [1, 1], [2, 0]))
    return {
        "select_scatter": lambda: L.select_scatter(z, s[0], 0, 1),
        "slice_scatter": lambda: L.slice_scatter(z, s[:, :2], 1, 0, 2),
        "scatter_reduce_sum": lambda: z.scatter_reduce(1, idx, s[:, :2], "sum"),
        "scatter_reduce_prod": lambda: z.scatter_reduce(1, idx, s[:, :2], "prod"),
        "scatter_reduce_mean": lambda: z.scatter_reduce(1, idx, s[:, :2], "mean"),
        "scatter_reduce_src": lambda: s.scatter_reduce(1, idx, z[:, :2], "sum"),
        "index_reduce_prod": lambda: z.index_reduce(0, L.tensor([0, 2]), s[:2], "prod"),
        "index_reduce_mean": lambda: z.index_reduce(0, L.tensor([0, 2]), s[:2], "mean"),
        "select_copy": lambda: L.select_copy(z, 0, 1),
        "slice_copy": lambda: L.slice_copy(z, 0, 0, 1),
        "geqrf": lambda: L.geqrf(z),
        "embedding": lambda: L.nn.functional.embedding(L.tensor([[0, 1], [1, 2]]), z),
    }


# (index_reduce's beta warning comes once per process, in both libraries)
@pytest.mark.filterwarnings("ignore:index_reduce")
@pytest.mark.parametrize("name", list(_refused(torch)))
def test_backward_refused_on_complex_values_as_torch(name):
    t, c = (
        error_of(lambda L: _refused(L)[name](), torch),
        error_of(lambda L: _refused(L)[name](), cr),
    )
    assert "does not support automatic differentiation for outputs with complex dtype" in str(t)
    assert type(c) is type(t) and str(c) == str(t)


@pytest.mark.filterwarnings("ignore:index_reduce")
def test_refused_ops_compute_without_grad():
    def run(L):
        calls = _refused(L)
        with L.no_grad():
            return [calls[name]() for name in calls if name != "geqrf"]

    compare(run, rtol=1e-12, atol=1e-12)


def _tangents(L):
    fwd = L.autograd.forward_ad
    r = np.random.default_rng(4)
    z, s, tz, ts = (
        L.tensor(r.standard_normal((3, 4)) + 1j * r.standard_normal((3, 4))) for _ in range(4)
    )
    idx = L.tensor(L64([0, 1], [1, 1], [2, 0]))
    calls = {
        "select_scatter": lambda d, e: L.select_scatter(d, e[0], 0, 1),
        "slice_scatter": lambda d, e: L.slice_scatter(d, e[:, :2], 1, 0, 2),
        "scatter_reduce_sum": lambda d, e: d.scatter_reduce(1, idx, e[:, :2], "sum"),
        "scatter_reduce_mean": lambda d, e: d.scatter_reduce(
            1, idx, e[:, :2], "mean", include_self=False
        ),
        "select_copy": lambda d, e: L.select_copy(d, 0, 1),
        "slice_copy": lambda d, e: L.slice_copy(d, 1, 1, 3),
        "embedding": lambda d, e: L.nn.functional.embedding(L.tensor([[0, 1], [1, 2]]), d),
    }
    out = []
    with fwd.dual_level():
        d, e = fwd.make_dual(z, tz), fwd.make_dual(s, ts)
        for f in calls.values():
            out.append(fwd.unpack_dual(f(d, e)).tangent)
    return out


def test_refused_ops_forward_mode_matches_torch():
    compare(_tangents, rtol=1e-12, atol=1e-12)


def test_complex_scatter_reduce_prod_tangent_is_the_derivative():
    """PyTorch gives no tangent here (None); chainrule's is the directional derivative."""
    fwd = cr.autograd.forward_ad
    z, s, tz, ts = (cr.tensor(crandn((3, 4), seed)) for seed in (5, 6, 7, 8))
    idx = cr.tensor(L64([0, 1], [1, 1], [2, 0]))

    def f(a, b):
        return a.scatter_reduce(1, idx, b[:, :2], "prod")

    with fwd.dual_level():
        got = fwd.unpack_dual(f(fwd.make_dual(z, tz), fwd.make_dual(s, ts))).tangent
    h = 1e-6
    want = (f(z + h * tz, s + h * ts) - f(z - h * tz, s - h * ts)) / (2 * h)
    np.testing.assert_allclose(got.cpu().numpy(), want.cpu().numpy(), rtol=1e-7, atol=1e-8)


# ----- the functions of real numbers name PyTorch's kernels --------------------------------

SPECIAL_ONE = [
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "spherical_bessel_j0",
    "airy_ai",
]
POLYNOMIALS = [
    f"{kind}_polynomial_{letter}"
    for kind, letters in (("chebyshev", "tuvw"), ("shifted_chebyshev", "tuvw"))
    for letter in letters
] + [
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
]


def _special_calls(L, name, dtype):
    z = L.tensor([1 + 1j, 2 - 0.5j], dtype=getattr(L, dtype))
    n = L.tensor([1.0, 2.0])
    f = getattr(L.special, name)
    if name in SPECIAL_ONE:
        return [lambda: f(z), lambda: f(z.requires_grad_())]
    if name == "zeta":
        return [
            lambda: f(z, z),
            lambda: f(z, n),
            lambda: f(n, z),
            lambda: f(n, 1j),
            lambda: f(2.0, z),
        ]
    if name == "multigammaln":
        return [lambda: f(z, 2), lambda: L.mvlgamma(z, 1), lambda: z.mvlgamma(1), lambda: f(z, 0)]
    return [lambda: f(z, n), lambda: f(n, z), lambda: f(z, 2), lambda: f(n, 2j)]


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name", SPECIAL_ONE + POLYNOMIALS + ["zeta", "multigammaln"])
def test_functions_of_reals_refuse_complex_input_as_torch(name, dtype):
    for i in range(len(_special_calls(torch, name, dtype))):
        t = error_of(lambda L, i=i: _special_calls(L, name, dtype)[i](), torch)
        c = error_of(lambda L, i=i: _special_calls(L, name, dtype)[i](), cr)
        assert type(c) is type(t) and str(c) == str(t), (i, c, t)


# ----- signs of zeros ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "matrix",
    [[[2, 1j], [-1j, 3]], [[4, 2], [2, 3]]],
    ids=["hermitian", "real_valued"],
)
def test_upper_cholesky_signs_its_zeros_as_torch(matrix):
    """PyTorch's upper factor comes from LAPACK directly: +0 imaginary parts on the
    diagonal and in the zeroed triangle, where conj(L)ᵀ would have -0."""

    def run(L):
        h = L.tensor(matrix, dtype=L.cdouble)
        factors = [
            L.linalg.cholesky(h, upper=True),
            L.linalg.cholesky_ex(h, upper=True).L,
            L.linalg.cholesky(h),
        ]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (torch.cholesky's deprecation)
            factors.append(L.cholesky(h, upper=True))
        return [L.signbit(L.view_as_real(f)) for f in factors] + factors

    compare(run, exact=True)


# ----- what the sweep over the torch namespace found ---------------------------------------


def test_result_type_takes_complex_numbers_as_torch():
    def run(L):
        z = L.ones(2, dtype=L.cfloat)
        x = L.ones(2)
        pairs = [(z, 2j), (x, 2j), (2j, x), (x.double(), 1j), (x.long(), 1j)]
        return [str(L.result_type(a, b)) for a, b in pairs]

    assert run(cr) == run(torch)


@pytest.mark.parametrize("dtype", ["int64", "complex64", "bool"])
def test_view_as_complex_refusal_as_torch(dtype):
    _same_outcome(lambda L: L.view_as_complex(L.ones(2, 2, dtype=getattr(L, dtype))))


@pytest.mark.parametrize("operands", ["zz", "zx", "xz", "lz", "lx"])
def test_kl_div_refuses_complex_before_integers_as_torch(operands):
    def run(L):
        z = L.ones(2, dtype=L.cfloat)
        pick = {"z": z, "x": L.ones(2), "l": L.ones(2, dtype=L.int64)}
        return L.nn.functional.kl_div(pick[operands[0]], pick[operands[1]], reduction="sum")

    _same_outcome(run)


@pytest.mark.parametrize("name", ["svd_lowrank", "pca_lowrank"])
def test_lowrank_of_complex_matrices_as_torch(name):
    """A full-rank sketch is exact: the singular values and the reconstruction are
    PyTorch's (the random bases differ, by their generators)."""
    a = crandn((4, 3), 9).astype(np.complex64)

    def run(L):
        A = L.tensor(a)
        U, S, V = getattr(L, name)(A, q=3, **({"center": False} if name == "pca_lowrank" else {}))
        return [str(U.dtype), str(S.dtype), str(V.dtype), S, (U * S) @ V.mH]

    compare(run, rtol=1e-5, atol=1e-5)


def _complex_parameters(L):
    """Complex numbers given where PyTorch takes real ones, and complex input where it
    refuses it."""
    x = L.tensor([[1.0, -0.5, 3.0], [0.0, -2.0, 1.5]])
    z = x.to(L.cfloat)
    F = L.nn.functional
    return {
        "isin_complex_test": lambda: L.isin(x, 2j),
        "isin_complex_element": lambda: L.isin(2j, x),
        "isin_complex_zero_imag": lambda: L.isin(x, 1 + 0j),
        "isin_int_complex": lambda: L.isin(x.long(), 2j),
        "isin_complex_tensor": lambda: L.isin(x, L.tensor(2j)),
        "norm_complex_order": lambda: L.norm(x, 2j),
        "norm_complex_order_zero_imag": lambda: L.linalg.vector_norm(x, 2 + 0j),
        "vector_norm_complex_order": lambda: L.linalg.vector_norm(z, 2j, dim=1),
        "matrix_norm_complex_order": lambda: L.linalg.matrix_norm(x, 2j),
        "linalg_norm_complex_order": lambda: L.linalg.norm(x, 2j),
        "linalg_norm_dim_complex_order": lambda: L.linalg.norm(x, 2j, dim=1),
        "method_norm_complex_order": lambda: x.norm(2j),
        "dist_complex_order": lambda: L.dist(x, x * 2, 2j),
        "normalize_complex_order": lambda: F.normalize(x, 2j),
        "renorm_complex_p": lambda: L.renorm(x, 2j, 0, 1.0),
        "renorm_complex_maxnorm": lambda: L.renorm(x, 2, 0, 1j),
        "renorm_complex_p_1d": lambda: L.renorm(x[0], 2j, 0, 1.0),
        "cdist_complex_p": lambda: L.cdist(x, x, 2j),
        "cdist_complex_input": lambda: L.cdist(z, z),
        "pdist_complex_p": lambda: F.pdist(x, 2j),
        "pdist_complex_input": lambda: F.pdist(z),
        "pairwise_distance_complex_p": lambda: F.pairwise_distance(x, x, 2j),
        "nan_to_num_complex_nan": lambda: L.nan_to_num(x, 1j),
        "nan_to_num_complex_posinf": lambda: L.nan_to_num(x, posinf=1j),
        "nan_to_num_complex_neginf": lambda: L.nan_to_num(z, neginf=1j),
        "hardshrink_complex_lambd": lambda: F.hardshrink(x, 2j),
        "hardshrink_complex_lambd_double": lambda: F.hardshrink(x.double(), 2j),
        "hardshrink_zero_imag": lambda: F.hardshrink(x, 1 + 0j),
        "threshold_complex_threshold": lambda: F.threshold(x, 2j, 1.0),
        "threshold_complex_value": lambda: F.threshold(x, 1.0, 2j),
        "threshold_inplace_complex": lambda: F.threshold(x.clone(), 1.0, 2j, inplace=True),
        "elu_complex_alpha": lambda: F.elu(x, 2j),
        "elu_complex_alpha_double": lambda: F.elu(x.double(), 2j),
        "elu_inplace_complex_alpha": lambda: F.elu_(x.clone(), 2j),
        "elu_zero_imag": lambda: F.elu(x, 1 + 0j),
        "leaky_relu_complex_slope": lambda: F.leaky_relu(x, 2j),
        "leaky_relu_inplace_complex_slope": lambda: F.leaky_relu_(x.clone(), 2j),
        "softplus_complex_beta": lambda: F.softplus(x, 2j),
        "softplus_complex_threshold": lambda: F.softplus(x.double(), 1, 2j),
        "softshrink_complex_lambd": lambda: F.softshrink(x, 2j),
        "softshrink_zero_imag": lambda: L.nn.Softshrink(1 + 0j)(x),
        "celu_complex_alpha": lambda: F.celu(x, 2j),
        "celu_inplace_complex_alpha": lambda: L.celu_(x.clone(), 2j),
        "celu_zero_imag": lambda: F.celu(x, 1 + 0j),
        "embedding_int_weight": lambda: F.embedding(L.tensor([0, 1]), x.long()),
        "embedding_bool_weight": lambda: F.embedding(L.tensor([0, 1]), x > 0),
        "embedding_complex_weight": lambda: F.embedding(L.tensor([[0, 1], [1, 0]]), z),
        "embedding_complex_max_norm": lambda: F.embedding(
            L.tensor([1, 0]), z.clone(), max_norm=1.0
        ),
    }


@pytest.mark.parametrize("name", list(_complex_parameters(torch)))
def test_complex_parameters_as_torch(name):
    _same_outcome(lambda L: _complex_parameters(L)[name]())


def _counting(L):
    x = L.tensor([[1.0, 2.0], [3.0, 4.0]])
    z = x.to(L.cfloat)
    calls = {
        "histc_complex": lambda: L.histc(z),
        "histc_bins_first": lambda: L.histc(z, 0),
        "histc_long": lambda: L.histc(x.long()),
        "histogram_complex": lambda: L.histogram(z),
        "histogram_bins_first": lambda: L.histogram(z, 0),
        "histogram_long": lambda: L.histogram(x.long()),
        "histogram_complex_edges": lambda: L.histogram(z, L.tensor([0.0, 1.0])),
        "histogram_double_edges": lambda: L.histogram(x, L.tensor([0.0, 1.0], dtype=L.float64)),
    }
    for fn in ("quantile", "nanquantile"):
        f = getattr(L, fn)
        calls.update(
            {
                f"{fn}_complex": lambda f=f: f(z, 0.5),
                f"{fn}_q_dims_first": lambda f=f: f(z, z),
                f"{fn}_q_dims": lambda f=f: f(x, x),
                f"{fn}_q_range": lambda f=f: f(x, 2.0),
                f"{fn}_q_dtype": lambda f=f: f(x, L.tensor([0.5], dtype=L.float64)),
                f"{fn}_long": lambda f=f: f(x.long(), 0.5),
                f"{fn}_complex_q_tensor": lambda f=f: f(z, L.tensor([0.5])),
                f"{fn}_q_values": lambda f=f: f(x, L.tensor([2.0])),
                f"{fn}_empty": lambda f=f: f(L.ones(0), 0.5),
            }
        )
    return calls


@pytest.mark.parametrize("name", list(_counting(torch)))
def test_histograms_and_quantiles_refuse_complex_input_as_torch(name):
    _same_outcome(lambda L: _counting(L)[name]())


def _ordered(L):
    """Ops that need an order, given complex values among their arguments."""
    x = L.tensor([1.0, 2.0, 3.0])
    z = x.to(L.cfloat)
    return {
        "searchsorted_complex_number": lambda: L.searchsorted(x, 1j),
        "searchsorted_complex_number_double": lambda: L.searchsorted(x.double(), 1j),
        "searchsorted_scalar_2d_first": lambda: L.searchsorted(z.reshape(1, 3), 0),
        "searchsorted_complex_sequence": lambda: L.searchsorted(z, 1.0),
        "bucketize_complex_number": lambda: L.bucketize(1j, x),
        "unique_consecutive": lambda: L.unique_consecutive(z),
        "unique_consecutive_dim": lambda: L.unique_consecutive(z, dim=0),
        "clamp_complex_bounds": lambda: L.clamp(x, z, z),
        "clamp_complex_min": lambda: L.clamp(x, min=z),
        "clamp_complex_max": lambda: L.clamp(x, max=z),
        "clamp_complex_input": lambda: L.clamp(z, x, x),
        "lerp_complex_end": lambda: L.lerp(x, z, 0.5),
        "bilinear_mixed_complex": lambda: L.nn.functional.bilinear(
            z[None], x[None].double(), L.ones(2, 3, 3, dtype=L.cfloat)
        ),
        "bilinear_mixed_precision": lambda: L.nn.functional.bilinear(
            z[None], z[None], L.ones(2, 3, 3, dtype=L.cdouble), L.ones(2)
        ),
        "scaled_dot_product_attention": lambda: L.nn.functional.scaled_dot_product_attention(
            z[None, None], z[None, None], z[None, None]
        ),
        "repeat_interleave_complex_repeats": lambda: L.repeat_interleave(z),
        "repeat_interleave_float_repeats": lambda: L.repeat_interleave(x),
        "repeat_interleave_complex_repeats_method": lambda: x.repeat_interleave(z),
    }


@pytest.mark.parametrize("name", list(_ordered(torch)))
def test_ordering_of_complex_arguments_refused_as_torch(name):
    _same_outcome(lambda L: _ordered(L)[name]())


def _products(L):
    """Products of operands of two dtypes (complex and real among them), refused as
    PyTorch refuses them."""
    a, b, v = L.ones(2, 3), L.ones(3, 4), L.ones(3)
    z = a.to(L.cfloat)
    md = L.linalg.multi_dot
    return {
        "multi_dot_complex_real": lambda: md([z, b, b.mT]),
        "multi_dot_dtypes": lambda: md([a, b.double()]),
        "multi_dot_shapes": lambda: md([a, a]),
        "multi_dot_last_3d": lambda: md([a, L.ones(3, 4, 1)]),
        "multi_dot_first_3d": lambda: md([L.ones(1, 2, 3), b]),
        "multi_dot_middle_1d": lambda: md([a, v, b]),
        "multi_dot_one": lambda: md([a]),
        "multi_dot_vectors": lambda: md([v, v]),
        "multi_dot_ints": lambda: md([a.long(), b.long()]),
        "chain_matmul_one": lambda: L.chain_matmul(a),
        "chain_matmul_none": lambda: L.chain_matmul(),
        "chain_matmul_vector": lambda: L.chain_matmul(a, v),
        "chain_matmul_shapes": lambda: L.chain_matmul(a, a),
        "chain_matmul_complex_real": lambda: L.chain_matmul(z, b.double()),
        "lerp_complex_start_long_end": lambda: L.lerp(z, a.long(), 0.5),
        "lerp_long_start_complex_end": lambda: L.lerp(a.long(), z, 0.5),
        "lerp_bool_start_complex_end": lambda: L.lerp(a.bool(), z, 0.5),
        "lerp_long": lambda: L.lerp(a.long(), a.long(), 0.5),
        "lerp_complex_weight_real": lambda: L.lerp(a, a, 1j),
        "lerp_real_weight_tensor": lambda: L.lerp(z, z, a),
    }


# (torch.chain_matmul's deprecation warning: once a process, in PyTorch alone)
@pytest.mark.filterwarnings("ignore:torch.chain_matmul is deprecated")
@pytest.mark.parametrize("name", list(_products(torch)))
def test_products_of_mixed_dtypes_as_torch(name):
    _same_outcome(lambda L: _products(L)[name]())
