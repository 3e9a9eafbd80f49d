"""``chainrule.func`` against ``torch.func``: the transforms, their compositions, their errors.

Each case runs the same code with ``lib`` = chainrule and ``lib`` = torch and compares
values (float64, 1e-10), structure (tuples, dicts) and whether results carry a graph.
Higher derivatives are also checked against closed forms, and forward-mode tangents of
many ops against PyTorch's.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import compare, error_of, tangent

RTOL, ATOL = 1e-10, 1e-12
X = np.array([0.3, -0.7, 1.1])
A = np.array([[0.5, -0.2, 0.1], [0.3, 0.8, -0.4], [-0.6, 0.2, 0.9]])


def _t(lib, a):
    return lib.tensor(np.asarray(a, dtype=np.float64))


def scalar_f(x):
    return (x.sin() * x.exp()).sum() + (x**3).sum() * x[0]


def vector_f(x):
    return x.sin() * x.exp() * x[0] + x**2


def matrix_f(a, x):
    return (a @ x).tanh() * x.exp()


# ----- single transforms ----------------------------------------------------------------


def test_grad():
    compare(lambda L: L.func.grad(scalar_f)(_t(L, X)), RTOL, ATOL)


def test_grad_argnums_tuple_and_negative():
    def f(a, x):
        return ((a @ x).sin() * x).sum()

    compare(lambda L: L.func.grad(f, argnums=(0, 1))(_t(L, A), _t(L, X)), RTOL, ATOL)
    compare(lambda L: L.func.grad(f, argnums=-1)(_t(L, A), _t(L, X)), RTOL, ATOL)


def test_grad_has_aux_and_grad_and_value():
    def f(x):
        y = (x**2).sum()
        return y, {"y": y, "x2": x * 2}

    compare(lambda L: L.func.grad(f, has_aux=True)(_t(L, X)), RTOL, ATOL)
    compare(lambda L: L.func.grad_and_value(f, has_aux=True)(_t(L, X)), RTOL, ATOL)
    compare(lambda L: L.func.grad_and_value(scalar_f)(_t(L, X)), RTOL, ATOL)


def test_grad_of_a_dict_of_parameters():
    def loss(params, x):
        return ((params["w"] @ x + params["b"]).tanh() ** 2).sum()

    compare(lambda L: L.func.grad(loss)({"w": _t(L, A), "b": _t(L, X)}, _t(L, X)), RTOL, ATOL)


def test_grad_keeps_an_outer_graph_when_the_input_requires_grad():
    compare(lambda L: L.func.grad(scalar_f)(_t(L, X).requires_grad_()), RTOL, ATOL)


def test_grad_of_an_unused_input_is_zero():
    compare(
        lambda L: L.func.grad(lambda a, b: b.sum() * 2, argnums=0)(_t(L, X), _t(L, X)), RTOL, ATOL
    )


def test_vjp():
    def run(L):
        out, fn = L.func.vjp(matrix_f, _t(L, A), _t(L, X))
        return out, fn(_t(L, [1.0, -2.0, 0.5]))

    compare(run, RTOL, ATOL)


def test_vjp_with_several_outputs_and_aux():
    def f(a, x):
        return ((a @ x).sin(), (x * x).sum()), x.cos()

    def run(L):
        out, fn, aux = L.func.vjp(f, _t(L, A), _t(L, X), has_aux=True)
        return out, fn((_t(L, X), _t(L, 2.0))), aux

    compare(run, RTOL, ATOL)


def test_jvp():
    compare(
        lambda L: L.func.jvp(matrix_f, (_t(L, A), _t(L, X)), (_t(L, A.T), _t(L, -X))), RTOL, ATOL
    )


def test_jvp_with_several_outputs_and_aux():
    def f(x):
        return (x * 2, x.sum()), x.exp()

    compare(lambda L: L.func.jvp(f, (_t(L, X),), (_t(L, X),), has_aux=True), RTOL, ATOL)


@pytest.mark.parametrize("transform", ["jacrev", "jacfwd"])
def test_jacobians(transform):
    compare(lambda L: getattr(L.func, transform)(vector_f)(_t(L, X)), RTOL, ATOL)
    compare(
        lambda L: getattr(L.func, transform)(matrix_f, argnums=(0, 1))(_t(L, A), _t(L, X)),
        RTOL,
        ATOL,
    )
    compare(lambda L: getattr(L.func, transform)(lambda x: {"y": x.exp()})(_t(L, X)), RTOL, ATOL)
    compare(
        lambda L: getattr(L.func, transform)(lambda x: (x * 2, x), has_aux=True)(_t(L, X)),
        RTOL,
        ATOL,
    )


def test_hessian():
    compare(lambda L: L.func.hessian(scalar_f)(_t(L, X)), RTOL, ATOL)
    compare(
        lambda L: L.func.hessian(lambda a, x: (matrix_f(a, x) ** 2).sum(), argnums=(0, 1))(
            _t(L, A), _t(L, X)
        ),
        RTOL,
        ATOL,
    )


# ----- compositions ---------------------------------------------------------------------

COMPOSITIONS = {
    "jacfwd(jacrev)": lambda L: L.func.jacfwd(L.func.jacrev(scalar_f)),
    "jacrev(jacfwd)": lambda L: L.func.jacrev(L.func.jacfwd(scalar_f)),
    "jacrev(jacrev)": lambda L: L.func.jacrev(L.func.jacrev(scalar_f)),
    "jacfwd(jacfwd)": lambda L: L.func.jacfwd(L.func.jacfwd(scalar_f)),
    "jacfwd(jacrev)_vector": lambda L: L.func.jacfwd(L.func.jacrev(vector_f)),
    "jacfwd(jacfwd)_vector": lambda L: L.func.jacfwd(L.func.jacfwd(vector_f)),
    "jacrev(jacrev)_vector": lambda L: L.func.jacrev(L.func.jacrev(vector_f)),
    "jacfwd(grad)": lambda L: L.func.jacfwd(L.func.grad(scalar_f)),
    "grad(grad)": lambda L: (
        lambda x: L.func.grad(lambda y: L.func.grad(lambda z: (z**4).sum() * z[1])(y)[0])(x)
    ),
    "jvp(grad)": lambda L: lambda x: L.func.jvp(L.func.grad(scalar_f), (x,), (x.cos(),))[1],
    "grad(jvp)": lambda L: L.func.grad(lambda x: L.func.jvp(vector_f, (x,), (x.cos(),))[1].sum()),
    "jacfwd(jvp)": lambda L: L.func.jacfwd(lambda x: L.func.jvp(vector_f, (x,), (x.cos(),))[1]),
    "jacrev(vjp)": lambda L: L.func.jacrev(lambda x: L.func.vjp(vector_f, x)[1](x.cos())[0]),
    "jacfwd(vjp)": lambda L: L.func.jacfwd(lambda x: L.func.vjp(vector_f, x)[1](x.cos())[0]),
    "jacfwd(hessian)": lambda L: L.func.jacfwd(L.func.hessian(lambda x: (x.sin() * x**2).sum())),
}


@pytest.mark.parametrize("name", sorted(COMPOSITIONS))
def test_compositions_match_torch(name):
    compare(lambda L: COMPOSITIONS[name](L)(_t(L, X)), RTOL, ATOL)


def test_third_derivative_by_nested_grad():
    """d³/dx³ eˣ sin x = 2eˣ(cos x − sin x)."""
    f = cr.func.grad(cr.func.grad(cr.func.grad(lambda x: x.sin() * x.exp())))
    for x in (0.3, -1.2, 2.0):
        got = f(cr.tensor(x, dtype=cr.float64)).item()
        assert math.isclose(got, 2 * math.exp(x) * (math.cos(x) - math.sin(x)), rel_tol=1e-12)


def test_fourth_derivative_of_a_to_the_fourth():
    """d⁴/da⁴ a⁴ = 24, by grad nested four times and by jacfwd(jacrev(hessian))."""
    g4 = cr.func.grad(cr.func.grad(cr.func.grad(cr.func.grad(lambda a: a**4))))
    assert g4(cr.tensor(1.7, dtype=cr.float64)).item() == pytest.approx(24.0, rel=1e-12)
    d4 = cr.func.jacfwd(cr.func.jacrev(cr.func.hessian(lambda a: (a**4).sum())))(_t(cr, X))
    expected = np.zeros((3, 3, 3, 3))
    for i in range(3):
        expected[i, i, i, i] = 24.0
    np.testing.assert_allclose(d4.numpy(), expected, rtol=RTOL, atol=ATOL)


# ----- errors ---------------------------------------------------------------------------

ERRORS = {
    "grad_non_scalar": lambda L: L.func.grad(lambda a: a * 2)(_t(L, X)),
    "grad_argnum_out_of_range": lambda L: L.func.grad(lambda a: a.sum(), argnums=1)(_t(L, X)),
    "grad_argnums_repeated": lambda L: L.func.grad(lambda a: a.sum(), argnums=(0, 0))(_t(L, X)),
    "grad_argnums_float": lambda L: L.func.grad(lambda a: a.sum(), argnums=1.0)(_t(L, X)),
    "grad_has_aux_not_pair": lambda L: L.func.grad(lambda a: a.sum(), has_aux=True)(_t(L, X)),
    "grad_output_not_tensor": lambda L: L.func.grad(lambda a: 3)(_t(L, X)),
    "grad_input_not_tensor": lambda L: L.func.grad(lambda a: a.sum())(3.0),
    "grad_no_inputs": lambda L: L.func.grad(lambda a: a.sum())(),
    "jvp_primals_not_tuple": lambda L: L.func.jvp(lambda a: a * 2, _t(L, X), _t(L, X)),
    "jvp_tangent_wrong_size": lambda L: L.func.jvp(lambda a: a * 2, (_t(L, X),), (_t(L, X)[:2],)),
    "jvp_output_not_tensor": lambda L: L.func.jvp(lambda a: 3, (_t(L, X),), (_t(L, X),)),
    "vjp_cotangent_wrong_size": lambda L: L.func.vjp(lambda a: a * 2, _t(L, X))[1](L.ones(2)),
    "vjp_cotangent_wrong_structure": lambda L: L.func.vjp(lambda a: a * 2, _t(L, X))[1](
        (L.ones(3),)
    ),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name):
    ours, theirs = error_of(ERRORS[name], cr), error_of(ERRORS[name], torch)
    assert type(ours) is type(theirs)
    assert str(ours) == str(theirs)


def test_jvp_structure_mismatch_raises_like_torch():
    """PyTorch prints its pytree spec in the message; the error and its start are the same."""

    def run(L):
        return error_of(lambda L: L.func.jvp(lambda a: a, (_t(L, X),), (_t(L, X), _t(L, X))), L)

    ours, theirs = run(cr), run(torch)
    assert type(ours) is type(theirs)
    head = "Expected primals and tangents to have the same python structure"
    assert head in str(ours) and head in str(theirs)


# ----- forward-mode tangents of many ops ----------------------------------------------

P = np.array([[0.6, 1.3, 0.9], [1.7, 0.4, 1.1]])  # positive, away from kinks
Q = np.array([[-0.3, 0.8, 0.2], [0.5, -0.9, 0.4]])
SQ = np.array([[2.0, 0.3, -0.1], [0.3, 1.5, 0.2], [-0.1, 0.2, 1.8]])
U = np.array([[0.3, 0.6, 0.2], [0.7, 0.45, 0.85]])  # in (0, 1)
V3 = np.array([0.5, -1.0, 2.0])
IDX = np.array([[0, 2, 1], [1, 0, 2]])
MASK = np.array([[True, False, True], [False, True, False]])


def _setitem(a, b):
    y = a * 1
    y[1] = b
    return y


def _fill(a):
    y = a * 2
    y.zero_()
    z = a * 3
    z.fill_(a[0, 0])
    return y + z + a


TANGENT_CASES = {
    "exp": (lambda L, a: a.exp(), [Q]),
    "log": (lambda L, a: a.log(), [P]),
    "sqrt": (lambda L, a: a.sqrt(), [P]),
    "rsqrt": (lambda L, a: a.rsqrt(), [P]),
    "sin_cos_tan": (lambda L, a: a.sin() + a.cos() * a.tan(), [Q]),
    "tanh_sigmoid": (lambda L, a: a.tanh() * a.sigmoid(), [Q]),
    "asin_acos_atan": (lambda L, a: a.asin() + a.acos() * a.atan(), [Q]),
    "sinh_cosh": (lambda L, a: a.sinh() * a.cosh(), [Q]),
    "erf_erfc": (lambda L, a: a.erf() + a.erfc() ** 2, [Q]),
    "log1p_expm1": (lambda L, a: a.log1p() + a.expm1(), [P]),
    "log2_log10": (lambda L, a: a.log2() * a.log10(), [P]),
    "reciprocal_neg_abs": (lambda L, a: a.reciprocal() - a.abs(), [Q]),
    "relu_gelu_silu": (
        lambda L, a: L.nn.functional.relu(a) + L.nn.functional.gelu(a) + L.nn.functional.silu(a),
        [Q],
    ),
    "softplus_elu": (lambda L, a: L.nn.functional.softplus(a) + L.nn.functional.elu(a), [Q]),
    "pow_scalar": (lambda L, a: a**2.5 + a**-1, [P]),
    "pow_tensor": (lambda L, a, b: a**b, [P, Q]),
    "scalar_pow": (lambda L, a: 2.0**a, [Q]),
    "add_sub_mul_div": (lambda L, a, b: (a + b) * (a - b) / (a * a + 1), [Q, P]),
    "broadcast_mul": (lambda L, a, b: a * b, [Q, np.array([0.5, -1.0, 2.0])]),
    "maximum_minimum": (lambda L, a, b: L.maximum(a, b) + L.minimum(a, b) * 2, [Q, P - 1]),
    "atan2_hypot": (lambda L, a, b: L.atan2(a, b) + L.hypot(a, b), [Q, P]),
    "where": (lambda L, a, b: L.where(a > 0, a * 2, b), [Q, P]),
    "clamp": (lambda L, a: a.clamp(-0.25, 0.45), [Q]),
    "sum_mean": (lambda L, a: a.sum(dim=0) + a.mean(dim=1).sum(), [Q]),
    "prod_cumsum": (lambda L, a: a.prod(dim=1).sum() + a.cumsum(dim=1), [P]),
    "var_std": (lambda L, a: a.var(dim=1) + a.std(), [Q]),
    "amax_logsumexp": (lambda L, a: a.amax(dim=1) + a.logsumexp(dim=1), [Q]),
    "softmax_log_softmax": (
        lambda L, a: a.softmax(dim=1) + a.log_softmax(dim=0),
        [Q],
    ),
    "norm": (lambda L, a: L.linalg.vector_norm(a, dim=1), [Q]),
    "matmul": (lambda L, a, b: a @ b, [Q, SQ]),
    "mv_dot": (lambda L, a, b: a @ b + (b @ b), [SQ, np.array([0.5, -1.0, 2.0])]),
    "transpose_reshape": (lambda L, a: a.t().reshape(3, 2) * a.t(), [Q]),
    "permute_flatten": (lambda L, a: a.reshape(1, 2, 3).permute(2, 0, 1).flatten(), [Q]),
    "index_and_slice": (lambda L, a: a[1] * a[0, 1:].sum() + a[:, 0].sum(), [Q]),
    "expand_unsqueeze": (lambda L, a: a.unsqueeze(0).expand(2, 2, 3).sum(dim=0), [Q]),
    "diagonal_trace": (lambda L, a: a.diagonal() * a.trace(), [SQ]),
    "triu_tril": (lambda L, a: a.triu() + a.tril(-1) * 3, [SQ]),
    "det_inv": (lambda L, a: L.linalg.det(a) * L.linalg.inv(a), [SQ]),
    "solve": (lambda L, a, b: L.linalg.solve(a, b), [SQ, Q.T]),
    "cholesky": (lambda L, a: L.linalg.cholesky(a @ a.t() + L.eye(3, dtype=a.dtype)), [SQ]),
    "acosh_asinh_atanh": (lambda L, a, u: (a + 1).acosh() + a.asinh() + u.atanh(), [P, U]),
    "rounding": (lambda L, a: a.ceil() + a.floor() + a.round() + a.trunc() + a.frac() * a, [P]),
    "deg_rad": (lambda L, a: a.deg2rad() + a.rad2deg(), [Q]),
    "exp2_sinc": (lambda L, a: a.exp2() + L.sinc(a), [Q]),
    "logit_xlogy": (lambda L, u, a: u.logit() + L.xlogy(a, u), [U, P]),
    "logaddexp": (lambda L, a, b: L.logaddexp(a, b) + L.logaddexp2(a, b), [Q, P]),
    "copysign_fmod_remainder": (
        lambda L, a, b: L.copysign(a, b - 1) + L.fmod(a, 0.7) + L.remainder(a, 0.7),
        [P, Q],
    ),
    "fmax_fmin": (lambda L, a, b: L.fmax(a, b) + L.fmin(a, b), [Q, P - 1]),
    "lerp": (lambda L, a, b: L.lerp(a, b, 0.3) + L.lerp(a, b, b), [Q, U]),
    "ldexp_sgn": (lambda L, a: L.ldexp(a, L.tensor([1, 2, 3])) + a.sgn() * a, [Q]),
    "nan_to_num": (lambda L, a: L.nan_to_num(a.log()), [P]),
    "div_rounding": (lambda L, a: L.div(a, 0.3, rounding_mode="floor") * a, [P]),
    "clamp_variants": (
        lambda L, a, b: (
            a.clamp(min=0.1)
            + a.clamp(max=0.3)
            + L.clamp(a, min=b - 1, max=b)
            + a.clamp_min(b - 1)
            + a.clamp_max(b - 1)
        ),
        [Q, P],
    ),
    "activations_1": (
        lambda L, a: (
            L.nn.functional.hardtanh(a)
            + L.nn.functional.hardswish(a)
            + L.nn.functional.leaky_relu(a, 0.1)
        ),
        [Q],
    ),
    "activations_2": (
        lambda L, a: (
            L.nn.functional.celu(a)
            + L.nn.functional.mish(a)
            + L.nn.functional.logsigmoid(a)
            + L.nn.functional.softshrink(a, 0.25)
            + L.nn.functional.hardshrink(a, 0.25)
        ),
        [Q],
    ),
    "threshold_glu": (
        lambda L, a: L.nn.functional.threshold(a, 0.1, 2.0).sum() + L.nn.functional.glu(a, dim=0),
        [Q],
    ),
    "prelu": (lambda L, a, w: L.nn.functional.prelu(a, w), [Q, np.array([0.25])]),
    "min_max": (
        lambda L, a: (
            a.max()
            + a.min()
            + a.max(dim=1).values.sum()
            + a.min(dim=0).values.sum()
            + a.amin(dim=1).sum()
        ),
        [Q],
    ),
    "median_mode": (lambda L, a: a.median() + a.median(dim=1).values.sum() + a.nanmedian(), [Q]),
    "kthvalue_topk_sort": (
        lambda L, a: (
            a.kthvalue(2, dim=1).values.sum()
            + a.topk(2, dim=1).values.sum()
            + a.sort(dim=1).values * a
        ),
        [Q],
    ),
    "cumulative": (
        lambda L, a: (
            a.cumprod(dim=1)
            + a.cummax(dim=1).values
            + a.cummin(dim=0).values
            + a.logcumsumexp(dim=1)
        ),
        [P],
    ),
    "nansum_aminmax": (lambda L, a: a.nansum() + L.aminmax(a).max + L.aminmax(a).min, [Q]),
    "norms": (
        lambda L, a: (
            L.linalg.vector_norm(a, ord=float("inf"))
            + L.linalg.vector_norm(a, ord=float("-inf"))
            + a.norm()
        ),
        [Q],
    ),
    "cat_stack_split": (
        lambda L, a, b: (
            L.cat([a, b], dim=0).sum(dim=0)
            + L.stack([a, b]).prod(dim=0).sum(dim=0)
            + a.split(1, dim=0)[1].squeeze(0)
        ),
        [Q, P],
    ),
    "flip_roll_repeat": (lambda L, a: a.flip(0) + a.roll(1, dims=1) + a.repeat(2, 1)[1:3], [Q]),
    "narrow_squeeze": (
        lambda L, a: a.narrow(1, 1, 2).sum(dim=1) + a.unsqueeze(1).squeeze(1).sum(dim=1),
        [Q],
    ),
    "gather_scatter": (
        lambda L, a, b: (
            a.gather(1, L.tensor(IDX))
            + b.scatter(1, L.tensor(IDX[:, :2]), a[:, :2])
            + b.scatter_add(1, L.tensor(IDX), a)
        ),
        [Q, P],
    ),
    "index_select_take": (
        lambda L, a: a.index_select(1, L.tensor([2, 0])).sum() + a.take(L.tensor([0, 4, 5])).sum(),
        [Q],
    ),
    "index_add": (lambda L, a, b: a.index_add(1, L.tensor([2, 0]), b[:, :2]), [Q, P]),
    "masked": (
        lambda L, a, b: (
            a.masked_fill(L.tensor(MASK), 0.5)
            + a.masked_fill(L.tensor(MASK), b[0, 0])
            + a.masked_select(L.tensor(MASK)).sum()
        ),
        [Q, P],
    ),
    "setitem": (lambda L, a, b: _setitem(a, b), [Q, V3]),
    "diag_embed_cross": (lambda L, a, b: L.diag_embed(a).sum(dim=1) + L.linalg.cross(a, b), [Q, P]),
    "products": (
        lambda L, m, v: L.mv(m, v) + L.dot(v, v) + L.vdot(v, v * 2) + L.outer(v, v).sum(dim=0),
        [SQ, V3],
    ),
    "bmm_baddbmm": (
        lambda L, a, b: (
            L.bmm(a.reshape(1, 2, 3), b.reshape(1, 3, 2))
            + L.baddbmm(a.reshape(1, 2, 3)[:, :, :2], a.reshape(1, 2, 3), b.reshape(1, 3, 2))
        ),
        [Q, P.T.copy()],
    ),
    "addmm_addmv_addr": (
        lambda L, m, v: L.addmm(m, m, m) + L.addmv(v, m, v) + L.addr(m, v, v),
        [SQ, V3],
    ),
    "addbmm": (lambda L, m: L.addbmm(m, m.reshape(1, 3, 3), m.reshape(1, 3, 3)), [SQ]),
    "linalg_1": (
        lambda L, a: (
            L.linalg.slogdet(a).logabsdet
            + L.linalg.eigvalsh(a + a.t()).sum()
            + L.linalg.svdvals(a).sum()
            + L.linalg.pinv(a).sum()
        ),
        [SQ],
    ),
    "linalg_qr": (lambda L, a: L.linalg.qr(a).Q.sum() + L.linalg.qr(a).R.sum(), [SQ]),
    "solve_triangular": (
        lambda L, a, b: L.linalg.solve_triangular(a.triu(), b, upper=True),
        [SQ, Q.T.copy()],
    ),
    "lstsq": (lambda L, a, b: L.linalg.lstsq(a, b).solution, [SQ, Q.T.copy()]),
    "zero_fill": (lambda L, a: _fill(a), [Q]),
    "inplace_activations": (
        lambda L, a: (
            L.nn.functional.leaky_relu(a * 1, 0.1, inplace=True)
            + L.nn.functional.elu(a * 1, inplace=True)
            + L.nn.functional.celu(a * 1, inplace=True)
            + L.nn.functional.threshold(a * 1, 0.1, 2.0, inplace=True)
        ),
        [Q],
    ),
    "inplace_compare": (lambda L, a, b: (a * 1).lt_(b) + (a * 1).gt_(b) * a, [Q, P - 1]),
    "mode_nanmedian_dim": (
        lambda L, a: a.mode(dim=1).values + a.nanmedian(dim=1).values,
        [Q],
    ),
    "norm_amax_dim": (
        lambda L, a: (
            L.linalg.vector_norm(a, ord=float("inf"), dim=1)
            + L.linalg.vector_norm(a, ord=float("-inf"), dim=0).sum()
        ),
        [Q],
    ),
    "scatter_value": (lambda L, a: a.scatter(1, L.tensor(IDX[:, :1]), 0.5), [Q]),
    "clamp_min_max_scalar": (lambda L, a: L.clamp_min(a, 0.1) + L.clamp_max(a, 0.3), [Q]),
    "rrelu_eval": (lambda L, a: L.nn.functional.rrelu(a, training=False), [Q]),
    "svd_sign_free": (
        lambda L, a: L.linalg.svd(a).U ** 2 + L.linalg.svd(a).Vh ** 2,
        [SQ + np.diag([0.0, 1.0, 2.5])],
    ),
    "eigh_sign_free": (lambda L, a: L.linalg.eigh(a + a.t()).eigenvectors ** 2, [SQ]),
}


@pytest.mark.parametrize("name", sorted(TANGENT_CASES))
def test_forward_mode_tangents_match_torch(name):
    fn, primals = TANGENT_CASES[name]
    rng = np.random.default_rng(len(name))
    tangents = [rng.standard_normal(np.shape(p)) for p in primals]
    ours = tangent(cr, fn, primals, tangents)
    theirs = tangent(torch, fn, primals, tangents)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-9, atol=1e-11)


# ----- vmap ------------------------------------------------------------------------------

XS = np.array([[0.3, -0.7, 1.1], [0.5, 0.2, -0.4], [1.3, -0.1, 0.6], [0.05, 0.9, -1.2]])

VMAP_CASES = {
    "pointwise": lambda L: L.func.vmap(vector_f)(_t(L, XS)),
    "in_dims_none": lambda L: L.func.vmap(matrix_f, in_dims=(None, 0))(_t(L, A), _t(L, XS)),
    "in_dim_1": lambda L: L.func.vmap(vector_f, in_dims=1)(_t(L, XS.T)),
    "out_dims": lambda L: L.func.vmap(lambda x: (x * 2, x.sum()), out_dims=(1, 0))(_t(L, XS)),
    "jacrev_per_sample": lambda L: L.func.vmap(L.func.jacrev(vector_f))(_t(L, XS)),
    "grad_per_sample": lambda L: L.func.vmap(L.func.grad(scalar_f))(_t(L, XS)),
    "hessian_per_sample": lambda L: L.func.vmap(L.func.hessian(scalar_f))(_t(L, XS)),
    "nested": lambda L: L.func.vmap(L.func.vmap(lambda a: a.sin() * a))(_t(L, XS)),
    "jacfwd_of_vmap": lambda L: L.func.jacfwd(L.func.vmap(vector_f))(_t(L, XS[:2])),
    "jacrev_of_vmap": lambda L: L.func.jacrev(L.func.vmap(vector_f))(_t(L, XS[:2])),
    "dict_input": lambda L: L.func.vmap(lambda d: d["a"] * d["b"])(
        {"a": _t(L, XS), "b": _t(L, XS[::-1].copy())}
    ),
}


@pytest.mark.parametrize("name", sorted(VMAP_CASES))
def test_vmap_matches_torch(name):
    compare(VMAP_CASES[name], RTOL, ATOL)


def test_vmap_gradient_flows_to_the_batched_input():
    def run(L):
        xs = _t(L, XS).requires_grad_()
        L.func.vmap(scalar_f)(xs).sum().backward()
        return xs.grad

    compare(run, RTOL, ATOL)


VMAP_ERRORS = {
    "sizes_differ": lambda L: L.func.vmap(lambda a, b: a + b)(L.ones(3, 2), L.ones(4, 2)),
    "in_dim_out_of_range": lambda L: L.func.vmap(lambda a: a, in_dims=2)(L.ones(3, 2)),
    "in_dims_structure": lambda L: L.func.vmap(lambda a: a, in_dims=(0, 1))(L.ones(3, 2)),
    "in_dims_none": lambda L: L.func.vmap(lambda a: a, in_dims=None)(L.ones(3, 2)),
    "returns_non_tensor": lambda L: L.func.vmap(lambda a: 3)(L.ones(3, 2)),
    "out_dim_out_of_range": lambda L: L.func.vmap(lambda a: a, out_dims=3)(L.ones(3, 2)),
    "maps_a_float": lambda L: L.func.vmap(lambda a: a)(3.0),
}


@pytest.mark.parametrize("name", sorted(VMAP_ERRORS))
def test_vmap_errors_match_torch(name):
    ours, theirs = error_of(VMAP_ERRORS[name], cr), error_of(VMAP_ERRORS[name], torch)
    assert type(ours) is type(theirs)
    if name == "in_dims_structure":  # PyTorch prints its pytree spec
        assert str(ours).split(" in_dims has")[0] == str(theirs).split(" in_dims has")[0]
    else:
        assert str(ours) == str(theirs)


def test_hardsigmoid_tangent_matches_torch_to_its_float32_constant():
    """PyTorch's float64 hardsigmoid multiplies by the float32 constant 1/6 (see the op's
    conventions): equal to 1e-7, not 1e-10."""
    fn = lambda L, a: L.nn.functional.hardsigmoid(a)  # noqa: E731
    tangents = [np.random.default_rng(0).standard_normal(Q.shape)]
    ours, theirs = tangent(cr, fn, [Q], tangents), tangent(torch, fn, [Q], tangents)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-7)
    np.testing.assert_allclose(ours[1], tangents[0] / 6, rtol=1e-12)


@pytest.mark.parametrize(
    "fn",
    [
        lambda L, a: L.heaviside(a, L.tensor(0.5, dtype=a.dtype)),
        lambda L, a: L.floor_divide(a, 0.3),
        lambda L, a: L.remainder(2.0, a),
    ],
    ids=["heaviside", "floor_divide", "remainder_scalar_base"],
)
def test_ops_without_a_derivative_refuse_forward_mode_like_torch(fn):
    def run(L):
        return error_of(lambda L: tangent(L, fn, [Q], [Q]), L)

    ours, theirs = run(cr), run(torch)
    assert type(ours) is type(theirs) is NotImplementedError
    assert str(ours) == str(theirs)


def _hessian(lib, name: str, outer: str, inner: str) -> np.ndarray:
    """outer(inner(f)) at the case's first input, for f = sum(op(x) * sin(op(x)))."""
    fn, primals = TANGENT_CASES[name]
    args = [_t(lib, p) for p in primals]

    def f(x):
        out = fn(lib, x, *args[1:])
        return (out * out.sin()).sum()

    return getattr(lib.func, outer)(getattr(lib.func, inner)(f))(args[0]).numpy(force=True)


@functools.cache
def _torch_hessian(name: str) -> np.ndarray:
    return _hessian(torch, name, "jacrev", "jacrev")


@pytest.mark.parametrize("order", ["jacfwd(jacrev)", "jacrev(jacfwd)"])
@pytest.mark.parametrize("name", sorted(TANGENT_CASES))
def test_mixed_mode_hessians_match_torch(name, order):
    """Forward mode through the backward pass of every op (jacfwd(jacrev), the Hessian of
    torch.func.hessian), and reverse mode through every JVP (jacrev(jacfwd)), against
    PyTorch's reverse-over-reverse Hessian."""
    ours = _hessian(cr, name, order[:6], order[7:13])
    np.testing.assert_allclose(ours, _torch_hessian(name), rtol=1e-8, atol=1e-10)


# ----- stack_module_state: ensembles for vmap over functional_call ------------------------


def _ensemble(lib, n=3):
    """n small MLPs with weights set from one seeded stream, the same on both libraries."""
    r = np.random.default_rng(7)
    models = []
    for _ in range(n):
        m = lib.nn.Sequential(lib.nn.Linear(4, 5), lib.nn.ReLU(), lib.nn.BatchNorm1d(5))
        with lib.no_grad():
            for p in m.parameters():
                p.copy_(lib.tensor(r.standard_normal(tuple(p.shape))))
        models.append(m.double())
    return models


def test_stack_module_state_runs_an_ensemble_as_torch():
    def run(lib):
        models = _ensemble(lib)
        params, buffers = lib.func.stack_module_state(models)
        base = models[0]
        x = lib.tensor(np.linspace(-1, 1, 8).reshape(2, 4))

        def f(p, b, x):
            return lib.func.functional_call(base, (p, b), (x,))

        out = lib.func.vmap(f, in_dims=(0, 0, None))(params, buffers, x)
        out.sum().backward()  # the stacked parameters are leaves an optimizer can train
        names = sorted(params), sorted(buffers)
        grads = [params[k].grad for k in names[0]]
        flags = [(params[k].is_leaf, params[k].requires_grad) for k in names[0]]
        flags += [(buffers[k].is_leaf, buffers[k].requires_grad) for k in names[1]]
        return out, names, grads, flags, [tuple(params[k].shape) for k in names[0]]

    compare(run, rtol=RTOL, atol=ATOL)


def test_stack_module_state_leaves_the_models_alone():
    models = _ensemble(cr, 2)
    params, _ = cr.func.stack_module_state(models)
    params["0.weight"].sum().backward()
    assert models[0][0].weight.grad is None
    assert params["0.weight"].grad is not None


@pytest.mark.parametrize("case", ["empty", "modes", "classes", "requires_grad"])
def test_stack_module_state_errors_match_torch(case):
    def run(lib):
        if case == "empty":
            return lib.func.stack_module_state([])
        a, b = lib.nn.Linear(2, 2), lib.nn.Linear(2, 2)
        if case == "modes":
            b.eval()
        elif case == "classes":
            b = lib.nn.Sequential(lib.nn.Linear(2, 2))
        else:
            b.bias.requires_grad_(False)
        return lib.func.stack_module_state([a, b])

    want, got = error_of(run, torch), error_of(run, cr)
    assert (type(got), str(got)) == (type(want), str(want))


def _custom_functions(lib):
    """A cube with ``setup_context`` and no vmap rule, with ``generate_vmap_rule``, with
    both a rule and ``generate_vmap_rule``, and one with ``forward(ctx, ...)``."""

    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x**3

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])
            ctx.save_for_forward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * g * x**2

        @staticmethod
        def jvp(ctx, t):
            (x,) = ctx.saved_tensors
            return 3 * t * x**2

    class Generated(Cube):
        generate_vmap_rule = True

    class Ruled(Cube):
        @staticmethod
        def vmap(info, in_dims, x):
            return Cube.apply(x), in_dims[0]

    class Twice(Generated):
        vmap = Ruled.vmap

    class Old(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    return Cube, Generated, Ruled, Twice, Old


def test_custom_functions_under_transforms_with_rules_match_torch():
    def run(lib):
        Cube, Generated, Ruled, _, Old = _custom_functions(lib)
        x = _t(lib, X)
        return [
            lib.func.grad(lambda v: Cube.apply(v).sum())(x),
            lib.func.jacrev(Cube.apply)(x),
            lib.func.jvp(Cube.apply, (x,), (x,)),
            lib.vmap(Generated.apply)(x),
            lib.vmap(Ruled.apply)(x),
            lib.func.jacfwd(Generated.apply)(x),
            lib.vmap(lib.func.grad(lambda v: Generated.apply(v).sum()))(x.reshape(3, 1)),
            Old.apply(x),
            (lib.autograd.Function.generate_vmap_rule,),
        ]

    compare(run, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize(
    "case", ["vmap_no_rule", "jacfwd_no_rule", "vmap_both", "grad_old", "vmap_old", "base_vmap"]
)
def test_custom_function_transform_errors_match_torch(case):
    def run(lib):
        Cube, _, _, Twice, Old = _custom_functions(lib)
        x = _t(lib, X)
        if case == "vmap_no_rule":
            return lib.vmap(Cube.apply)(x)
        if case == "jacfwd_no_rule":
            return lib.func.jacfwd(Cube.apply)(x)
        if case == "vmap_both":
            return lib.vmap(Twice.apply)(x)
        if case == "grad_old":
            return lib.func.grad(lambda v: Old.apply(v).sum())(x)
        if case == "vmap_old":
            return lib.vmap(Old.apply)(x)
        return lib.autograd.Function.vmap(None, (0,), x)

    want, got = error_of(run, torch), error_of(run, cr)
    assert (type(got), str(got)) == (type(want), str(want))
