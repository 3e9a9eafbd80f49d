"""Complex values through the pointwise ops against PyTorch: the analytic functions (exp2
... atanh, sigmoid, sinc, pow in its three forms, logaddexp, lerp, addcmul, addcdiv) with
their values, gradients for a random complex output gradient, tangents and second
derivatives, mixed with real tensors and Python complex numbers; their branch cuts and
special values; the ops PyTorch computes on complex values but refuses to differentiate
(nan_to_num, silu); and the ops PyTorch refuses complex values for, with its exception and
message (comparisons, rounding, the special functions, clamp and the piecewise-linear
activations, maximum and minimum, the rounding divisions, bitwise ops)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import cases
import chainrule as cr
from oracle import NoGrad, check, check_double_backward, crandn, randn, tangent

Z = crandn((3, 4), 20)
W = crandn((3, 4), 21)
V = crandn((3, 4), 22) * 0.4  # small: inside the unit disc (asin, atanh, lerp weights)
X = randn((3, 4), 23)
# (exponents of ldexp >= 0: PyTorch's gradient is 0 for negative ones, 2^n taken in integers)
N = np.array([[1, 2, 0, 3], [4, 1, 2, 0], [0, 3, 2, 1]], dtype=np.int64)
COND = np.array([[True, False, True, False], [False, False, True, True], [True, True, False, True]])

INF, NAN = float("inf"), float("nan")
# on and around the branch cuts, with signed zeros: the principal values PyTorch gives
CUTS = np.array([-2 + 0j, -2 - 0j, 2 + 0j, 2 - 0j, 0.5 + 0j, 3j, -3j, 0j, -0.5 - 0j, 1 + 1e-30j])
SPECIAL = np.array([complex(INF, 1), complex(-INF, 1), complex(1, INF), complex(NAN, 0), 0j])


def unary(name: str):
    return lambda L, z: getattr(L, name)(z)


CASES = {
    **{
        name: (unary(name), [Z])
        for name in (
            "exp2",
            "expm1",
            "log2",
            "log10",
            "log1p",
            "rsqrt",
            "square",
            "tan",
            "sinh",
            "cosh",
            "asinh",
            "acosh",
            "atan",
            "sigmoid",
            "sinc",
        )
    },
    **{name: (unary(name), [V]) for name in ("asin", "acos", "atanh", "arcsin")},
    "acosh_left_half_plane": (lambda L, z: L.acosh(z - 2), [Z]),
    "expit": (lambda L, z: L.special.expit(z), [Z]),
    "special_log1p": (lambda L, z: L.special.log1p(z), [Z]),
    "functional_sigmoid": (lambda L, z: L.nn.functional.sigmoid(z), [Z]),
    "method_and_in_place": (lambda L, z: (z * 1).tan_() + z.exp2() + (z * 1).rsqrt_(), [V]),
    # powers: tensor ** tensor, ** number, number ** tensor, with real operands mixed in
    "pow_tensors": (lambda L, a, b: a**b, [Z, W]),
    "pow_real_base": (lambda L, x, b: L.pow(x, b), [X, W]),
    "pow_real_exponent": (lambda L, a, x: L.pow(a, x), [Z, X]),
    "pow_int": (lambda L, z: z**2 + L.pow(z, 3), [Z]),
    "pow_fractional": (lambda L, z: z**0.5 + z**-1.5, [Z]),
    "pow_complex_number": (lambda L, z: z ** (2 - 1j), [Z]),
    "pow_real_tensor_complex_number": (lambda L, x: x ** (0.5 + 1j), [X]),
    "rpow": (lambda L, z: 2**z, [Z]),
    "rpow_complex_base": (lambda L, z: (1 + 1j) ** z, [Z]),
    "rpow_negative_base_real_exponent_tensor": (lambda L, x: (-2 + 0j) ** x, [X]),
    "pow_scalar_base": (lambda L, z: L.pow(1j, z), [Z]),
    "float_power": (lambda L, a, b: L.float_power(a, b), [Z, W]),
    "float_power_real_tensor_complex_number": (lambda L, x: L.float_power(x, 1j), [X]),
    "float_power_number_base": (lambda L, z: L.float_power(2, z), [Z]),
    "float_power_in_place": (lambda L, z: (z * 1).to(L.complex128).float_power_(2), [Z]),
    # linear maps with a complex factor: the gradient takes its conjugate
    "add_complex_alpha": (lambda L, a, b: L.add(a, b, alpha=2 - 1j), [Z, W]),
    "sub_complex_alpha": (lambda L, a, b: L.sub(a, b, alpha=0.5 + 2j), [Z, W]),
    "rsub_complex": (lambda L, z: L.rsub(z, 1j, alpha=2j), [Z]),
    "add_in_place_complex_alpha": (lambda L, a, b: (a * 1).add_(b, alpha=1j), [Z, W]),
    "addcmul": (lambda L, a, b, c: L.addcmul(a, b, c, value=0.5 - 1j), [Z, W, V]),
    "addcmul_real_tensor": (lambda L, a, b, x: L.addcmul(a, b, x), [Z, W, X]),
    "addcdiv": (lambda L, a, b, c: L.addcdiv(a, b, c, value=0.5 - 1j), [Z, W, Z]),
    "addcdiv_real_tensor": (lambda L, a, b, x: L.addcdiv(a, b, x * 2 + 5), [Z, W, X]),
    "lerp": (lambda L, a, b: L.lerp(a, b, 0.3), [Z, W]),
    "lerp_large_weight": (lambda L, a, b: L.lerp(a, b, 0.8), [Z, W]),
    "lerp_complex_weight": (lambda L, a, b: L.lerp(a, b, 0.3 + 0.2j), [Z, W]),
    "lerp_tensor_weight": (lambda L, a, b, w: L.lerp(a, b, w), [Z, W, V]),
    "logaddexp": (lambda L, a, b: L.logaddexp(a, b), [Z, W]),
    "logaddexp_far_apart": (lambda L, a, b: L.logaddexp(a * 30, b), [Z, W]),
    "ldexp": (lambda L, z: L.ldexp(z, L.tensor(N)), [Z]),
    "where_number": (lambda L, z: L.where(L.tensor(COND), z, 1j), [Z]),
    "where_numbers": (lambda L: L.where(L.tensor(COND), 1j, 2.0), []),
    "python_complex_with_integers": (
        lambda L: L.stack([L.tensor(N) + 1j, L.tensor(N) / (1 - 1j), (L.tensor(N) > 0) * 1j]),
        [],
    ),
    "cast_methods": (lambda L, x: x.cfloat() * (1 + 1j) + x.double().cdouble(), [X]),
    "true_divide_number": (lambda L, z: L.true_divide(z, 2 - 3j), [Z]),
    # values only (no gradient): branch cuts, signed zeros, infinities, nan
    **{
        f"{name}_branch_cuts": ((lambda n: lambda L, z: getattr(L, n)(z))(name), [NoGrad(CUTS)])
        for name in ("sqrt", "log", "log1p", "asin", "acos", "atan", "asinh", "acosh", "atanh")
    },
    "rsqrt_log2_at_zero_and_cut": (lambda L, z: L.rsqrt(z) + L.log2(z), [NoGrad(CUTS)]),
    "exp_sigmoid_tanh_special": (
        lambda L, z: L.stack([L.exp(z), L.sigmoid(z), L.tanh(z), L.expm1(z)]),
        [NoGrad(SPECIAL)],
    ),
    "sigmoid_large": (
        lambda L, z: L.sigmoid(z),
        [NoGrad(np.array([800 + 0j, -800 + 0j, 50 + 1j, -50 + 1j, 1 + np.pi * 1j]))],
    ),
    "sinc_at_zero": (lambda L, z: L.sinc(z), [NoGrad(np.array([0j, 1e-20 + 0j, 1 + 1j, 2j]))]),
    "pow_zero_base": (
        lambda L, a, b: a**b,
        [NoGrad(np.array([0j, 0j, 0j, 1j, -1 + 0j])), NoGrad(np.array([0j, 1 + 1j, -1, 2, 0.5]))],
    ),
    "pow_special_exponents": (
        lambda L, z: L.stack([z**c for c in (0, 1, 2, 3, 0.5, -0.5, -1, -2, -3, 1.5, 2 + 1j)]),
        [NoGrad(np.concatenate([CUTS, SPECIAL]))],
    ),
    "rpow_special_bases": (
        lambda L, z: L.stack([c**z for c in (0, 0j, -2, 2, 1j)]),
        [NoGrad(np.concatenate([CUTS, SPECIAL]))],
    ),
    "logaddexp_special": (
        lambda L, a, b: L.logaddexp(a, b),
        [NoGrad(SPECIAL), NoGrad(np.array([complex(INF, 2), complex(-INF, 3), 1, 2, 0]))],
    ),
    "nan_to_num": (lambda L, z: L.nan_to_num(z), [NoGrad(SPECIAL)]),
    "nan_to_num_values": (lambda L, z: L.nan_to_num(z, 1.0, 2.0, -3.0), [NoGrad(SPECIAL)]),
    "silu_without_grad": (lambda L, z: L.nn.functional.silu(z), [NoGrad(Z)]),
    "isreal": (lambda L, z: L.isreal(L.real(z) + 0j * (z.real > 0)), [NoGrad(Z)]),
    "isreal_real_tensor": (lambda L, x: L.isreal(x), [NoGrad(X)]),
    "isnan_isinf_isfinite": (
        lambda L, z: L.stack([L.isnan(z), L.isinf(z), L.isfinite(z)]),
        [NoGrad(SPECIAL)],
    ),
    "isclose": (lambda L, a, b: L.isclose(a, a + b * 1e-6), [NoGrad(Z), NoGrad(W)]),
    "eq_ne": (lambda L, a: L.stack([a == a[0], L.ne(a, 2j), L.eq(a, a.conj())]), [NoGrad(Z)]),
    "logical": (
        lambda L, a: L.stack([L.logical_and(a, a * 0), L.logical_not(a), L.logical_xor(a, a)]),
        [NoGrad(Z)],
    ),
}


# PyTorch's forward mode drops the imaginary part of a real operand's tangent through pow
# (its formula takes the real part, as its backward does for a real input's gradient):
# chainrule's tangent is the derivative itself (test_tangent_of_a_real_base_is_complex)
TORCH_TANGENT_REAL_PART = {
    "pow_real_base",
    "pow_real_exponent",
    "pow_real_tensor_complex_number",
    "rpow_negative_base_real_exponent_tensor",
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", CASES)
def test_matches_torch(name, dtype):
    fn, inputs = CASES[name]
    check(fn, *inputs, dtype=dtype, forward=name not in TORCH_TANGENT_REAL_PART)


@pytest.mark.parametrize("name", sorted(TORCH_TANGENT_REAL_PART))
def test_tangent_of_a_real_operand_is_the_complex_derivative(name):
    """Forward mode where PyTorch's tangent is wrong: chainrule's tangent along a random
    direction equals central differences of PyTorch's own values."""
    fn, inputs = CASES[name]
    r = np.random.default_rng(5)
    tangents = [r.standard_normal(a.shape) * (1 + 1j if a.dtype.kind == "c" else 1) for a in inputs]
    _, got = tangent(cr, fn, inputs, tangents)
    h = 1e-6

    def at(step):
        moved = [torch.tensor(a + step * t) for a, t in zip(inputs, tangents)]
        return fn(torch, *moved).numpy()

    np.testing.assert_allclose(got, (at(h) - at(-h)) / (2 * h), rtol=1e-6, atol=1e-6)


SECOND = [
    "tan",
    "asin",
    "acosh_left_half_plane",
    "sigmoid",
    "sinc",
    "rsqrt",
    "log1p",
    "pow_tensors",
    "pow_real_base",
    "pow_complex_number",
    "rpow_complex_base",
    "lerp_tensor_weight",
    "addcmul",
    "addcdiv",
    "logaddexp",
    "add_complex_alpha",
]


@pytest.mark.parametrize("name", SECOND)
def test_second_derivatives_match_torch(name):
    fn, inputs = CASES[name]
    check_double_backward(fn, *inputs, dtype=np.float64)


# ops whose PyTorch backward fails (an internal check) for a real input beside a complex one
MIXED = {
    "where": lambda L, x, w: L.where(L.tensor(COND), w, x),
    "logaddexp": lambda L, x, w: L.logaddexp(x, w),
    "ldexp": lambda L, x, w: L.ldexp(x, w),
}


@pytest.mark.parametrize("name", MIXED)
def test_a_real_input_beside_a_complex_one_gets_the_real_part_of_its_gradient(name):
    """PyTorch's gradient with the real input made complex, its real part (∂L/∂x)."""
    fn, g = MIXED[name], crandn((3, 4), 30)
    x, w = cr.tensor(X, requires_grad=True), cr.tensor(W, requires_grad=True)
    fn(cr, x, w).backward(cr.tensor(g))
    xt = torch.tensor(X).to(torch.complex128).requires_grad_()
    wt = torch.tensor(W, requires_grad=True)
    fn(torch, xt, wt).backward(torch.tensor(g))
    assert x.grad.dtype == cr.float64
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.real.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), wt.grad.numpy(), rtol=1e-10, atol=1e-12)


def _needs_grad(fn):
    """fn with its first input requiring grad (check_same_error's tensors need none)."""
    return lambda L, z, *rest: fn(L, z.requires_grad_(), *rest)


z = np.array([1 + 2j, -0.5 - 0.5j, 0.3j])
x = np.array([1.0, -2.0, 0.5])
n = np.array([1, 2, 3])

# PyTorch's exception and message for the ops it refuses complex values for
ERRORS = {
    **{
        name: (unary(name), [z])
        for name in (
            "floor",
            "ceil",
            "trunc",
            "round",
            "sign",
            "frac",
            "erf",
            "erfc",
            "erfinv",
            "lgamma",
            "digamma",
            "i0",
            "logit",
            "deg2rad",
            "rad2deg",
            "relu",
            "isposinf",
            "isneginf",
            "signbit",
            "bitwise_not",
        )
    },
    **{
        f"special_{name}": ((lambda n: lambda L, z: getattr(L.special, n)(z))(name), [z])
        for name in ("i0e", "i1", "i1e", "ndtr", "ndtri", "log_ndtr", "erfcx", "entr", "gammaln")
    },
    **{
        f"functional_{name}": ((lambda n: lambda L, z: getattr(L.nn.functional, n)(z))(name), [z])
        for name in (
            "relu6",
            "hardtanh",
            "rrelu",
            "gelu",
            "elu",
            "selu",
            "softplus",
            "leaky_relu",
            "hardsigmoid",
            "logsigmoid",
            "softshrink",
        )
    },
    **{
        name: ((lambda n: lambda L, a, b: getattr(L, n)(a, b))(name), [z, z])
        for name in (
            "maximum",
            "minimum",
            "fmax",
            "fmin",
            "atan2",
            "hypot",
            "xlogy",
            "copysign",
            "heaviside",
            "nextafter",
            "remainder",
            "fmod",
            "floor_divide",
            "logaddexp2",
            "lt",
            "le",
            "gt",
            "ge",
            "bitwise_and",
            "bitwise_or",
            "bitwise_xor",
            "bitwise_left_shift",
        )
    },
    "round_decimals": (lambda L, z: L.round(z, decimals=2), [z]),
    "polygamma_1": (lambda L, z: L.polygamma(1, z), [z]),
    "polygamma_2": (lambda L, z: L.polygamma(2, z), [z]),
    "special_xlog1py_number": (lambda L, z: L.special.xlog1py(z, 2.0), [z]),
    "threshold": (lambda L, z: L.nn.functional.threshold(z, 0.1, 2.0), [z]),
    "rrelu_training": (lambda L, z: L.nn.functional.rrelu(z, training=True), [z]),
    "clamp": (lambda L, z: L.clamp(z, 0, 1), [z]),
    "clamp_min_number": (lambda L, z: L.clamp_min(z, 0.5), [z]),
    "clamp_tensors": (lambda L, z: L.clamp(z, z, z), [z]),
    "clamp_min_tensor": (lambda L, z: L.clamp_min(z, z), [z]),
    "clamp_max_tensor": (lambda L, z: L.clamp_max(z, z), [z]),
    "clamp_real_complex_bound": (lambda L, x: L.clamp(x, 0, 1j), [x]),
    "clamp_complex_bound": (lambda L, z: L.clamp(z, min=1j), [z]),
    "clamp_min_real_complex_bound": (lambda L, x: L.clamp_min(x, 1j), [x]),
    "maximum_real_and_complex": (lambda L, x, z: L.maximum(x, z), [x, z]),
    "heaviside_real_and_complex": (lambda L, x, z: L.heaviside(x, z), [x, z]),
    "lt_number": (lambda L, z: z < 1.0, [z]),
    "lt_real_tensor_complex_number": (lambda L, x: x < 1j, [x]),
    "ge_in_place": (lambda L, z: z.ge_(z), [z]),
    "floor_divide_operator": (lambda L, z: z // 2, [z]),
    "remainder_operator": (lambda L, z: z % 2, [z]),
    "remainder_number_dividend": (lambda L, z: L.remainder(2.0, z), [z]),
    "div_trunc": (lambda L, a, b: L.div(a, b, rounding_mode="trunc"), [z, z]),
    "div_floor": (lambda L, a, b: L.div(a, b, rounding_mode="floor"), [z, z]),
    "invert": (lambda L, z: ~z, [z]),
    "add_real_complex_alpha": (lambda L, x: L.add(x, x, alpha=1j), [x]),
    "add_int_complex_alpha": (lambda L, n: L.add(n, n, alpha=1j), [n]),
    "lerp_real_complex_weight": (lambda L, x: L.lerp(x, x, 0.5 + 1j), [x]),
    "lerp_mixed_dtypes": (lambda L, z, x: L.lerp(z, x.to(z.real.dtype), 0.5), [z, x]),
    "float_power_in_place_real_base": (lambda L, x: x.double().float_power_(1j), [x]),
    "float_power_in_place_complex64": (lambda L, z: z.float_power_(2), [z.astype(np.complex64)]),
    "fill_real_complex_value": (lambda L, x: x.fill_(1 + 1j), [x]),
    "nan_to_num_requires_grad": (_needs_grad(lambda L, z: L.nan_to_num(z)), [z]),
    "silu_requires_grad": (_needs_grad(lambda L, z: L.nn.functional.silu(z)), [z]),
    "equal_number": (lambda L, z: L.equal(z, 1j), [z]),
    "addcmul_real_complex_value": (lambda L, x: L.addcmul(x, x, x, value=1j), [x]),
    "addcdiv_real_complex_value": (lambda L, x: L.addcdiv(x, x, x, value=1j), [x]),
}

test_errors_match_torch = cases.same_errors_as_torch(ERRORS)
