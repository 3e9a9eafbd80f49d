"""Activations: softmax, log_softmax, logsumexp, gelu, softplus, elu, ... as ops.

Each entry: a forward on arrays, then one VJP and one JVP per input, written in
chainrule's own ops (so ``create_graph=True`` gives every higher derivative). These
are elementwise or act along one dim, so for the elementwise ones the JVP multiplies
the tangent by the same local derivative the VJP multiplies the gradient by, and one
function serves as both.

Stability: every forward is arranged so that no exponent overflows where the value
is finite (softplus and log-sigmoid as max(z, 0) + log1p(e^-|z|), softmax and
log-softmax shifted by the max, logsumexp shifted by a finite max), and every
derivative is arranged the same way, including the branches ``where`` discards
(an inf there would turn into 0 * inf = nan in a second derivative).

Masks (``x > 0``) carry no gradient, so they are computed on the arrays (``_arr``).

At the bottom: the public functions PyTorch has at top level (``torch.softmax``,
``torch.logsumexp``, ``torch.selu`` ...); ``chainrule.nn.functional`` has the rest.
"""

from __future__ import annotations

import math
import warnings

from .._backend import xp
from .._promotion import result_type
from .._tensor import Tensor
from ..autograd.inplace import inplace as _inplace
from ..autograd.recording import FLOAT, defop
from . import elementwise as ew
from . import reductions as red
from . import shape as sh
from .elementwise import exp, sigmoid, tanh, where

# ----- helpers -----------------------------------------------------------------------


def _arr(x):
    """x's array: masks carry no gradient, so they are computed on arrays."""
    return x._data if isinstance(x, Tensor) else x


def _select(cond, a, b):
    """a where cond else b: an op when a or b is a tensor, else NumPy's where (backward
    without create_graph, where everything is an array)."""
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return where(cond, a, b)
    return xp.where(cond, a, b)


_TYPE_NAMES = {
    "bool": "Bool",
    "uint8": "Byte",
    "int8": "Char",
    "int16": "Short",
    "int32": "Int",
    "int64": "Long",
}


def _floating(kernel: str):
    """A dtype rule: PyTorch's promotion, but integer and bool inputs raise, as PyTorch's
    floating-only kernels do (``"silu_cpu" not implemented for 'Long'``)."""

    def rule(args, params):
        target = result_type(args)
        if target._category != 2:
            name = _TYPE_NAMES.get(target.name, target.name)
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{name}'")
        return target

    return rule


def _floating_along_dim(name: str):
    """``_floating`` with the kernel PyTorch names: ``..._lastdim_...`` along the last dim."""
    rules = {last: _floating(f"{name}{'_lastdim' if last else ''}_kernel_impl") for last in (0, 1)}

    def rule(args, params):
        ndim = args[0]._data.ndim
        return rules[params.get("dim", -1) in (ndim - 1, -1) or ndim == 0](args, params)

    return rule


def _axis(dim, ndim: int):
    """A NumPy axis for one (already wrapped) dim; None for a 0-d array."""
    return dim if ndim else None


# ----- erf (float64, W. J. Cody's rational approximations) ----------------------------
#
# W. J. Cody, "Rational Chebyshev approximations for the error function", Math. Comp. 23
# (1969), as in SPECFUN's CALERF: |error| ~ 1e-16 relative over the whole line, erfc
# accurate in its tail (no 1 - erf cancellation). NumPy has no erf; this one is private
# to the activations (GELU's normal CDF).

_ERF_A = (
    3.16112374387056560e00,
    1.13864154151050156e02,
    3.77485237685302021e02,
    3.20937758913846947e03,
    1.85777706184603153e-1,
)
_ERF_B = (
    2.36012909523441209e01,
    2.44024637934444173e02,
    1.28261652607737228e03,
    2.84423683343917062e03,
)
_ERF_C = (
    5.64188496988670089e-1,
    8.88314979438837594e00,
    6.61191906371416295e01,
    2.98635138197400131e02,
    8.81952221241769090e02,
    1.71204761263407058e03,
    2.05107837782607147e03,
    1.23033935479799725e03,
    2.15311535474403846e-8,
)
_ERF_D = (
    1.57449261107098347e01,
    1.17693950891312499e02,
    5.37181101862009858e02,
    1.62138957456669019e03,
    3.29079923573345963e03,
    4.36261909014324716e03,
    3.43936767414372164e03,
    1.23033935480374942e03,
)
_ERF_P = (
    3.05326634961232344e-1,
    3.60344899949804439e-1,
    1.25781726111229246e-1,
    1.60837851487422766e-2,
    6.58749161529837803e-4,
    1.63153871373020978e-2,
)
_ERF_Q = (
    2.56852019228982242e00,
    1.87295284992346047e00,
    5.27905102951428412e-1,
    6.05183413124413191e-2,
    2.33520497626869185e-3,
)
_INV_SQRT_PI = 5.6418958354775628695e-1
_ERFC_UNDERFLOW = 26.543  # erfc(y) < the smallest double beyond this


def _erf_small(x):
    """erf(x) for |x| <= 0.46875"""
    z = x * x
    num, den = _ERF_A[4] * z, z
    for i in range(3):
        num = (num + _ERF_A[i]) * z
        den = (den + _ERF_B[i]) * z
    return x * (num + _ERF_A[3]) / (den + _ERF_B[3])


def _exp_minus_square(y):
    """e^(-y²), with y² split as y₀² + (y - y₀)(y + y₀), y₀ = y to 1/16, as Cody does:
    the rounding error of y² is not amplified by the exponential."""
    y0 = xp.trunc(16.0 * y) / 16.0
    return xp.exp(-y0 * y0) * xp.exp(-(y - y0) * (y + y0))


def _erfc_large(y):
    """erfc(y) for y > 0.46875 (nan stays nan, inf gives 0)"""
    out = xp.where(xp.isnan(y), xp.nan, 0.0)
    mid = y <= 4.0
    ym = y[mid]
    num, den = _ERF_C[8] * ym, ym
    for i in range(7):
        num = (num + _ERF_C[i]) * ym
        den = (den + _ERF_D[i]) * ym
    out[mid] = _exp_minus_square(ym) * ((num + _ERF_C[7]) / (den + _ERF_D[7]))
    far = (y > 4.0) & (y < _ERFC_UNDERFLOW)
    yf = y[far]
    z = 1.0 / (yf * yf)
    num, den = _ERF_P[5] * z, z
    for i in range(4):
        num = (num + _ERF_P[i]) * z
        den = (den + _ERF_Q[i]) * z
    r = (_INV_SQRT_PI - z * (num + _ERF_P[4]) / (den + _ERF_Q[4])) / yf
    out[far] = _exp_minus_square(yf) * r
    return out


def _erf(x):
    """erf(x) in float64, elementwise (any shape)."""
    x = xp.asarray(x, dtype=xp.float64)
    flat = x.reshape(-1)
    out = xp.empty_like(flat)
    small = xp.abs(flat) <= 0.46875
    out[small] = _erf_small(flat[small])
    rest = flat[~small]
    out[~small] = xp.copysign(1.0 - _erfc_large(xp.abs(rest)), rest)
    return out.reshape(x.shape)


def _erfc(x):
    """erfc(x) = 1 - erf(x) in float64, elementwise, accurate in the tail."""
    x = xp.asarray(x, dtype=xp.float64)
    flat = x.reshape(-1)
    out = xp.empty_like(flat)
    small = xp.abs(flat) <= 0.46875
    out[small] = 1.0 - _erf_small(flat[small])
    rest = flat[~small]
    e = _erfc_large(xp.abs(rest))
    out[~small] = xp.where(rest < 0, 2.0 - e, e)
    return out.reshape(x.shape)


_SQRT1_2 = math.sqrt(0.5)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _ndtr(x):
    """Φ(x) = erfc(-x/√2)/2, the standard normal CDF (computed in float64)"""
    return (0.5 * _erfc(-xp.asarray(x, dtype=xp.float64) * _SQRT1_2)).astype(x.dtype, copy=False)


def _ndtr_grad(g, x):
    # Φ'(x) = φ(x) = e^(-x²/2)/√(2π)
    return g * (exp(-0.5 * (x * x)) * _INV_SQRT_2PI)


# private: GELU's derivative is Φ(x) + xφ(x), and Φ must be an op for create_graph
ndtr = defop(
    "_ndtr",
    _ndtr,
    node="SpecialNdtrBackward0",
    dtypes=_floating("ndtr"),
    vjp=_ndtr_grad,
    jvp=_ndtr_grad,
)

# ----- piecewise linear ----------------------------------------------------------------


def _hardtanh(x, min_val=-1.0, max_val=1.0):
    """x clipped to [min_val, max_val]"""
    out = xp.clip(x, min_val, max_val)
    return out.astype(x.dtype, copy=False)


def _hardtanh_grad(g, x, min_val, max_val):
    # d/dx clip(x, lo, hi) = [lo < x < hi]: 0 at both bounds
    xa = _arr(x)
    return _select((xa > min_val) & (xa < max_val), g, 0.0)


def _hardtanh_dtype(args, params):
    """The input's dtype; PyTorch refuses bool, and negative limits for uint8."""
    dtype = args[0]._dtype
    if dtype._category == 0:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if dtype.name == "uint8" and (
        params.get("min_val", -1.0) < 0 or params.get("max_val", 1.0) < 0
    ):
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    return dtype


hardtanh = defop(
    "hardtanh",
    _hardtanh,
    node="HardtanhBackward0",
    dtypes=_hardtanh_dtype,
    vjp=_hardtanh_grad,
    jvp=_hardtanh_grad,
    conventions=(
        "The gradient is 0 at x = min_val and at x = max_val (PyTorch's); so relu6, "
        "hardtanh(0, 6), has gradient 0 at 0 and at 6."
    ),
)


def _leaky_relu(x, negative_slope=0.01):
    """x for x > 0, negative_slope * x otherwise"""
    return xp.where(x > 0, x, x * negative_slope)


def _leaky_relu_grad(g, x, negative_slope):
    # d/dx = 1 for x > 0, negative_slope for x <= 0
    return _select(_arr(x) > 0, g, g * negative_slope)


leaky_relu = defop(
    "leaky_relu",
    _leaky_relu,
    node="LeakyReluBackward0",
    dtypes=_floating("leaky_relu_cpu"),
    vjp=_leaky_relu_grad,
    jvp=_leaky_relu_grad,
    conventions="leaky_relu'(0) = negative_slope.",
)

_NEGATIVE_SLOPE_INPLACE = (
    "In-place leakyReLu backward calculation is triggered with a negative slope which is not "
    "supported. This is caused by calling in-place forward function with a negative slope, "
    "please call out-of-place version instead. File an issue at "
    "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
    "backward calculation with negative slope"
)


def _leaky_relu_result_grad(g, ans, negative_slope):
    # from the output y (the input is overwritten): d/dx = 1 for y > 0, else negative_slope;
    # with a negative slope y > 0 no longer tells x > 0, hence PyTorch's error
    if negative_slope < 0:
        raise RuntimeError(_NEGATIVE_SLOPE_INPLACE)
    return _select(_arr(ans) > 0, g, g * negative_slope)


# in place (F.leaky_relu(x, inplace=True)): saves its output, as PyTorch's does
leaky_relu_result = defop(
    "leaky_relu_",
    _leaky_relu,
    node="LeakyReluBackward1",
    dtypes=_floating("leaky_relu_cpu"),
    vjp=_leaky_relu_result_grad,
    jvp=_leaky_relu_result_grad,
    conventions="As leaky_relu; a negative slope raises in backward (PyTorch's error).",
)


def _hardsigmoid(x):
    """min(max(x + 3, 0), 6) / 6"""
    return xp.minimum(xp.maximum(x + 3, 0), 6) / 6


def _hardsigmoid_grad(g, x):
    # d/dx = 1/6 for -3 < x < 3, else 0
    xa = _arr(x)
    return _select((xa > -3) & (xa < 3), g / 6, 0.0)


hardsigmoid = defop(
    "hardsigmoid",
    _hardsigmoid,
    dtypes=_floating("hardsigmoid_cpu"),
    vjp=_hardsigmoid_grad,
    jvp=_hardsigmoid_grad,
    conventions=(
        "The gradient is 0 at x = ±3 (PyTorch's). Inside, it is 1/6 exactly; PyTorch's "
        "float64 kernel multiplies by the float32 constant 1/6f (0.1666666716...)."
    ),
)


def _hardswish(x):
    """x * min(max(x + 3, 0), 6) / 6"""
    return x * xp.minimum(xp.maximum(x + 3, 0), 6) / 6


def _hardswish_grad(g, x):
    # d/dx = 0 for x <= -3, x/3 + 1/2 for -3 < x < 3, 1 for x >= 3
    xa = _arr(x)
    mid = (xa > -3) & (xa < 3)
    return _select(mid, g * (x / 3 + 0.5), _select(xa >= 3, g, 0.0))


hardswish = defop(
    "hardswish",
    _hardswish,
    dtypes=_floating("hardswish_cpu"),
    vjp=_hardswish_grad,
    jvp=_hardswish_grad,
    conventions="hardswish'(-3) = 0 and hardswish'(3) = 1 (PyTorch's).",
)

# ----- exponential family: elu, selu, celu --------------------------------------------


def _elu(x, alpha=1.0, scale=1.0, input_scale=1.0):
    """scale·x for x > 0, alpha·scale·(e^(input_scale·x) - 1) for x <= 0"""
    neg = xp.expm1(xp.minimum(x, 0) * input_scale) * (alpha * scale)
    return xp.where(x > 0, x * scale, neg)


def _elu_grad(g, x, alpha, scale, input_scale):
    # d/dx = scale for x > 0, alpha·scale·input_scale·e^(input_scale·x) for x <= 0.
    # The exponential is taken at x where x < 0 and at 0 elsewhere: it never overflows,
    # even where discarded, and (as in PyTorch) the second derivative at 0 is 0
    xa = _arr(x)
    e = exp(_select(xa < 0, x, 0.0) * input_scale) * (alpha * scale * input_scale)
    return g * _select(xa > 0, scale, e)


def _elu_result_grad(g, ans, alpha, scale, input_scale):
    # from the output y: d/dx = scale for y > 0, input_scale·(y + alpha·scale) for y <= 0
    # (the constant alpha·scale·input_scale at y = 0: second derivative 0 there, as PyTorch)
    if alpha < 0:
        raise RuntimeError(_NEGATIVE_ALPHA_INPLACE)
    ya = _arr(ans)
    c = alpha * scale * input_scale
    return g * _select(ya > 0, scale, _select(ya < 0, (ans + alpha * scale) * input_scale, c))


_NEGATIVE_ALPHA_INPLACE = (
    "In-place elu backward calculation is triggered with a negative slope which is not "
    "supported. This is caused by calling in-place forward function with a negative slope, "
    "please call out-of-place version instead."
)
_ELU_CONVENTIONS = (
    "At x = 0 the gradient is the left one, alpha·scale·input_scale, and the second "
    "derivative is 0 (PyTorch's)."
)

# elu and selu (scale, alpha fixed), both EluBackward0 as in PyTorch
elu = defop(
    "elu",
    _elu,
    node="EluBackward0",
    dtypes=_floating("elu_cpu"),
    vjp=_elu_grad,
    jvp=_elu_grad,
    conventions=_ELU_CONVENTIONS,
)
# in place: saves its output (EluBackward1); a negative alpha raises in backward
elu_result = defop(
    "elu_",
    _elu,
    node="EluBackward1",
    dtypes=_floating("elu_cpu"),
    vjp=_elu_result_grad,
    jvp=_elu_result_grad,
    conventions=_ELU_CONVENTIONS,
)


def _celu(x, alpha=1.0):
    """max(0, x) + min(0, alpha·(e^(x/alpha) - 1))"""
    return _elu(x, alpha, 1.0, 1.0 / alpha)


celu_op = defop(
    "celu",
    _celu,
    node="CeluBackward0",
    dtypes=_floating("elu_cpu"),
    # d/dx = 1 for x > 0, e^(x/alpha) for x <= 0
    vjp=lambda g, x, alpha: _elu_grad(g, x, alpha, 1.0, 1.0 / alpha),
    jvp=lambda t, x, alpha: _elu_grad(t, x, alpha, 1.0, 1.0 / alpha),
    conventions=(
        "celu'(0) = 1 (the left derivative, e^0). PyTorch's backward uses 1/float32(alpha), "
        "so its float64 gradient is off by ~1e-8 relative when alpha is not a float32; "
        "chainrule's uses 1/alpha."
    ),
)
celu_result = defop(
    "celu_",
    _celu,
    node="CeluBackward1",
    dtypes=_floating("elu_cpu"),
    # from the output y: d/dx = 1 for y > 0, y/alpha + 1 for y <= 0
    vjp=lambda g, ans, alpha: _elu_result_grad(g, ans, alpha, 1.0, 1.0 / alpha),
    jvp=lambda t, ans, alpha: _elu_result_grad(t, ans, alpha, 1.0, 1.0 / alpha),
    conventions="celu'(0) = 1; a negative alpha raises in backward (PyTorch's error).",
)

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946

# ----- smooth activations ---------------------------------------------------------------

_GELU_BETA = math.sqrt(2.0 / math.pi)  # √(2/π)
_GELU_KAPPA = 0.044715


def _gelu(x, approximate="none"):
    """x·Φ(x); with approximate='tanh', x/2·(1 + tanh(√(2/π)(x + 0.044715x³)))"""
    if approximate == "tanh":
        inner = _GELU_BETA * (x + _GELU_KAPPA * (x * x * x))
        return 0.5 * x * (1 + xp.tanh(inner))
    return x * _ndtr(x)


def _gelu_grad(g, x, approximate):
    if approximate == "tanh":
        # u = β(x + κx³): d/dx x/2·(1 + tanh u) = (1 + tanh u)/2 + x/2·(1 - tanh² u)·β(1 + 3κx²)
        x2 = x * x
        th = tanh((x + x2 * x * _GELU_KAPPA) * _GELU_BETA)
        du = (1 + x2 * (3 * _GELU_KAPPA)) * _GELU_BETA
        return g * (0.5 * (1 + th) + (0.5 * x) * ((1 - th * th) * du))
    # d/dx xΦ(x) = Φ(x) + xφ(x), φ(x) = e^(-x²/2)/√(2π)
    return g * (ndtr(x) + x * (exp(-0.5 * (x * x)) * _INV_SQRT_2PI))


gelu = defop(
    "gelu",
    _gelu,
    dtypes=_floating("GeluKernelImpl"),
    vjp=_gelu_grad,
    jvp=_gelu_grad,
)


def _softplus(x, beta=1.0, threshold=20.0):
    """log(1 + e^(βx))/β, as (max(βx, 0) + log(1 + e^-|βx|))/β; x where βx > threshold"""
    z = x * beta
    soft = (xp.maximum(z, 0) + xp.log1p(xp.exp(-xp.abs(z)))) / beta
    return xp.where(z > threshold, x, soft)


def _softplus_grad(g, x, beta, threshold):
    # d/dx log(1 + e^(βx))/β = σ(βx); 1 where βx > threshold (there the function is x).
    # At βx = threshold it is σ(threshold), a constant: second derivative 0 there, as PyTorch.
    # A nan x fails both comparisons and reaches σ(nan): its derivative is nan, as PyTorch's
    z = x * beta
    za = _arr(z)
    return _select(za > threshold, g, g * sigmoid(_select(za >= threshold, threshold, z)))


softplus = defop(
    "softplus",
    _softplus,
    dtypes=_floating("softplus_cpu"),
    vjp=_softplus_grad,
    jvp=_softplus_grad,
    conventions=(
        "At βx = threshold the gradient is σ(threshold) (the log1p branch) and the second "
        "derivative 0, as PyTorch."
    ),
)


def _log_sigmoid(x):
    """log σ(x) = min(x, 0) - log(1 + e^-|x|)"""
    return xp.minimum(x, 0) - xp.log1p(xp.exp(-xp.abs(x)))


log_sigmoid = defop(
    "log_sigmoid",
    _log_sigmoid,
    node="LogSigmoidBackward0",
    dtypes=_floating("log_sigmoid_cpu"),
    vjp=lambda g, x: g * sigmoid(-x),  # d/dx log σ(x) = 1 - σ(x) = σ(-x)
    jvp=lambda t, x: t * sigmoid(-x),
)


def _silu(x):
    """x·σ(x) = x / (1 + e^-x)"""
    return x / (1 + xp.exp(-x))


def _silu_grad(g, x):
    # d/dx xσ(x) = σ(x)(1 + x(1 - σ(x)))
    s = sigmoid(x)
    return g * (s * (1 + x * (1 - s)))


silu = defop("silu", _silu, dtypes=_floating("silu_cpu"), vjp=_silu_grad, jvp=_silu_grad)


def _mish(x):
    """x·tanh(softplus(x))"""
    return x * xp.tanh(_softplus(x, 1.0, math.inf))


def _mish_grad(g, x):
    # with s = softplus(x), s' = σ(x): d/dx x·tanh(s) = tanh(s) + x·σ(x)·(1 - tanh² s)
    th = tanh(softplus(x, beta=1.0, threshold=math.inf))
    return g * (th + x * (sigmoid(x) * (1 - th * th)))


mish = defop("mish", _mish, dtypes=_floating("mish_cpu"), vjp=_mish_grad, jvp=_mish_grad)

# ----- along a dim: softmax, log_softmax, logsumexp ------------------------------------


def _softmax(x, dim=-1):
    """e^x / Σ_dim e^x, with x shifted by its max along dim (no exponent overflows)"""
    if x.size == 0:
        return x.copy()
    axis = _axis(dim, x.ndim)
    e = xp.exp(x - xp.max(x, axis=axis, keepdims=True))
    return e / xp.sum(e, axis=axis, keepdims=True)


def _softmax_grad(g, ans, dim):
    # y = softmax(x): vᵀ ∂y/∂x = y ⊙ (v - Σ_dim v ⊙ y)   (∂y_i/∂x_j = y_i(δ_ij - y_j))
    return ans * (g - red.sum(g * ans, dim=dim, keepdim=True))


softmax_op = defop(
    "softmax",
    _softmax,
    dtypes=_floating_along_dim("softmax"),
    vjp=_softmax_grad,
    jvp=_softmax_grad,  # the Jacobian is symmetric: J v = vᵀ J
)


def _log_softmax(x, dim=-1):
    """x - log Σ_dim e^x, computed as s - log Σ e^s with s = x - max_dim x"""
    if x.size == 0:
        return x.copy()
    axis = _axis(dim, x.ndim)
    s = x - xp.max(x, axis=axis, keepdims=True)
    return s - xp.log(xp.sum(xp.exp(s), axis=axis, keepdims=True))


log_softmax_op = defop(
    "log_softmax",
    _log_softmax,
    dtypes=_floating_along_dim("log_softmax"),
    # y = log_softmax(x): ∂y_i/∂x_j = δ_ij - e^(y_j),
    # so vᵀJ = v - e^y Σ_dim v and J t = t - Σ_dim e^y t
    vjp=lambda g, ans, dim: g - exp(ans) * red.sum(g, dim=dim, keepdim=True),
    jvp=lambda t, ans, dim: t - red.sum(exp(ans) * t, dim=dim, keepdim=True),
)


def _logsumexp(x, dim=None, keepdim=False):
    """log Σ_dim e^x = m + log Σ e^(x - m), m the max over dim (0 where it is ±inf)"""
    axes = red.dims_of(dim, x.ndim)
    m = xp.max(x, axis=axes, keepdims=True, initial=-xp.inf)
    m = xp.where(xp.isinf(m), 0, m)
    out = xp.log(xp.sum(xp.exp(x - m), axis=axes, keepdims=True)) + m
    if not keepdim:
        out = out.reshape(out.shape if x.ndim == 0 else _reduced_shape(x.shape, axes))
    return out


def _reduced_shape(shape: tuple, axes) -> tuple:
    if axes is None:
        return ()
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def _softmax_of(x, ans, x_shape, dim, keepdim):
    """e^(x - logsumexp(x)) with the output broadcast back over the reduced dims"""
    return exp(x - red.unreduce(ans, x_shape, dim, keepdim))


def _logsumexp_jvp(t, x, dim, keepdim):
    """J t = Σ_dim t ⊙ softmax(x), the softmax as e^(x - m) / Σ_dim e^(x - m), m = max_dim x"""
    # m is 0 where it is ±inf, as in the forward. Not e^(x - logsumexp(x)): in float32 a
    # result near 1e4 is rounded by ~5e-4, and every weight is off by as much relatively
    # (the VJP keeps that form, which is PyTorch's backward)
    xa = _arr(x)
    m = xp.max(xa, axis=red.dims_of(dim, xa.ndim), keepdims=True, initial=-xp.inf)
    e = exp(x - xp.where(xp.isinf(m), 0, m))
    return red.sum(t * (e / red.sum(e, dim=dim, keepdim=True)), dim=dim, keepdim=keepdim)


logsumexp_op = defop(
    "logsumexp",
    _logsumexp,
    dtypes=FLOAT,
    # ∂/∂x_i log Σ e^x = e^(x_i - logsumexp(x)) = softmax(x)_i
    vjp=lambda g, x, ans, x_shape, dim, keepdim: (
        red.unreduce(g, x_shape, dim, keepdim) * _softmax_of(x, ans, x_shape, dim, keepdim)
    ),
    jvp=_logsumexp_jvp,
)


def _clamp_min(x, min=0.0):  # noqa: A002 - PyTorch's name
    """max(x, min)"""
    return xp.maximum(x, min)


def _clamp_min_grad(g, x, min):  # noqa: A002
    # d/dx max(x, m) = [x >= m]
    return _select(_arr(x) >= min, g, 0.0)


# private, for normalize: the norm clamped from below by eps
clamp_min = defop(
    "_clamp_min",
    _clamp_min,
    node="ClampMinBackward0",
    vjp=_clamp_min_grad,
    jvp=_clamp_min_grad,
    conventions="The gradient passes where x >= min, x = min included (PyTorch's).",
)

# ----- threshold, shrinkage, glu, prelu, rrelu ------------------------------------------


def _threshold(x, threshold=0.0, value=0.0):
    """x where x > threshold, else value"""
    return xp.where(x > threshold, x, xp.asarray(value).astype(x.dtype))


def _threshold_dtype(args, params):
    dtype = args[0]._dtype
    if dtype._category == 0:
        raise NotImplementedError("\"threshold_cpu\" not implemented for 'Bool'")
    return dtype


def _threshold_grad(g, x, threshold):
    # d/dx = [x > threshold]
    return _select(_arr(x) > threshold, g, 0.0)


_THRESHOLD = "The gradient is 0 at x = threshold (the value branch), as in PyTorch."
threshold_op = defop(
    "threshold",
    _threshold,
    dtypes=_threshold_dtype,
    vjp=_threshold_grad,
    jvp=_threshold_grad,
    conventions=_THRESHOLD,
)
# in place (ThresholdBackward1): the gradient is still [x > threshold], from x's copy
threshold_result = defop(
    "threshold_",
    _threshold,
    node="ThresholdBackward1",
    dtypes=_threshold_dtype,
    vjp=_threshold_grad,
    jvp=_threshold_grad,
    conventions=_THRESHOLD,
)


def _hardshrink(x, lambd=0.5):
    """x where |x| > lambd, else 0"""
    return xp.where((x > lambd) | (x < -lambd), x, xp.zeros_like(x))


def _shrink_grad(g, x, lambd):
    # d/dx = [|x| > lambd] for both hardshrink and softshrink
    xa = _arr(x)
    return _select((xa > lambd) | (xa < -lambd), g, 0.0)


hardshrink_op = defop(
    "hardshrink",
    _hardshrink,
    dtypes=_floating("hardshrink_cpu"),
    vjp=_shrink_grad,
    jvp=_shrink_grad,
    conventions="The gradient is 0 at |x| = lambd.",
)


def _softshrink(x, lambd=0.5):
    """x - lambd for x > lambd, x + lambd for x < -lambd, 0 between"""
    return xp.where(x > lambd, x - lambd, xp.where(x < -lambd, x + lambd, xp.zeros_like(x)))


softshrink_op = defop(
    "softshrink",
    _softshrink,
    dtypes=_floating("softshrink_check"),
    vjp=_shrink_grad,
    jvp=_shrink_grad,
    conventions="The gradient is 0 at |x| = lambd.",
)


def _halves(shape: tuple, dim: int) -> tuple:
    """The index keys of the two halves of ``shape`` along ``dim``."""
    half = shape[dim] // 2
    lead = (slice(None),) * dim
    return lead + (slice(0, half),), lead + (slice(half, None),)


def _glu(x, dim=-1):
    """a · σ(b), a and b the first and second halves of x along dim"""
    first, second = _halves(x.shape, dim)
    return x[first] / (1 + xp.exp(-x[second]))


def _glu_grad(g, x, x_shape, dim):
    # d/da a σ(b) = σ(b), d/db a σ(b) = a σ(b)(1 - σ(b)): the two halves of the gradient
    first, second = _halves(x_shape, dim)
    a, b = sh.getitem(x, key=first), sh.getitem(x, key=second)
    s = sigmoid(b)
    return sh.index_into_zeros(g * s, shape=x_shape, key=first) + sh.index_into_zeros(
        g * (a * (s * (1 - s))), shape=x_shape, key=second
    )


def _glu_jvp(t, x, x_shape, dim):
    # J t = σ(b) t_a + a σ(b)(1 - σ(b)) t_b
    first, second = _halves(x_shape, dim)
    a, b = sh.getitem(x, key=first), sh.getitem(x, key=second)
    s = sigmoid(b)
    return s * sh.getitem(t, key=first) + (a * (s * (1 - s))) * sh.getitem(t, key=second)


glu_op = defop(
    "glu",
    _glu,
    dtypes=_floating("glu_cpu"),
    vjp=_glu_grad,
    jvp=_glu_jvp,
)


def _channel_shape(x_shape: tuple) -> tuple:
    """The shape PReLU's weight takes to broadcast along dim 1 (the channels)."""
    if len(x_shape) < 2:
        return (-1,) if x_shape else ()
    return (-1,) + (1,) * (len(x_shape) - 2)


def _prelu(x, weight):
    """x for x > 0, weight · x otherwise, weight one value per channel (dim 1)"""
    w = weight.reshape(_channel_shape(x.shape)) if weight.ndim else weight
    return xp.where(x > 0, x, w * x)


def _prelu_w(weight, x_shape):
    return sh.reshape(weight, _channel_shape(x_shape)) if _arr(weight).ndim else weight


def _prelu_x_grad(g, x, weight):
    # d/dx = 1 for x > 0, weight for x <= 0
    return _select(_arr(x) > 0, g, g * _prelu_w(weight, tuple(_arr(x).shape)))


def _prelu_weight_grad(g, x, weight_shape):
    # d/dweight = x for x <= 0, summed over every dim but the channels
    xs = tuple(_arr(x).shape)
    part = _select(_arr(x) > 0, 0.0, g * x)
    if len(xs) >= 2 and math.prod(weight_shape) > 1:
        return red.sum(part, dim=tuple(d for d in range(len(xs)) if d != 1))
    return sh.reshape(red.sum(part), weight_shape)


def _prelu_dtype(args, params):
    dtype = result_type(args)
    if dtype._category != 2:
        raise NotImplementedError(f"\"prelu_cpu\" not implemented for '{_TYPE_NAMES[dtype.name]}'")
    return dtype


prelu_op = defop(
    "prelu",
    _prelu,
    args=("x", "weight"),
    node="PreluKernelBackward0",
    dtypes=_prelu_dtype,
    vjp=(_prelu_x_grad, _prelu_weight_grad),
    jvp=(
        _prelu_x_grad,
        lambda t, x, weight: _select(_arr(x) > 0, 0.0, x * _prelu_w(t, tuple(_arr(x).shape))),
    ),
    conventions="prelu'(0) = weight (x = 0 takes the negative branch).",
)


def _rrelu(x, noise=None):
    """x for x > 0, noise · x otherwise (noise: the sampled slopes, or one slope)"""
    return xp.where(x > 0, x, x * noise)


def _rrelu_grad(g, x, noise):
    # d/dx = 1 for x > 0, the slope for x <= 0
    return _select(_arr(x) > 0, g, g * noise)


def _rrelu_result_grad(g, ans, noise):
    # in place, from the output (slopes are positive, so y > 0 iff x > 0)
    return _select(_arr(ans) > 0, g, g * noise)


rrelu_op = defop(
    "rrelu",
    _rrelu,
    node="RreluWithNoiseBackward0",
    dtypes=_floating("rrelu_with_noise_cpu"),
    vjp=_rrelu_grad,
    jvp=_rrelu_grad,
    conventions="rrelu'(0) = the slope (x = 0 takes the negative branch), as PyTorch.",
)
rrelu_result = defop(
    "rrelu_",
    _rrelu,
    node="RreluWithNoiseBackward1",
    dtypes=_floating("rrelu_with_noise_cpu"),
    vjp=_rrelu_result_grad,
    jvp=_rrelu_result_grad,
    conventions="rrelu'(0) = the slope (x = 0 takes the negative branch), as PyTorch.",
)


# ----- public functions with PyTorch's top-level signatures ----------------------------


def _wrap_dim(dim, ndim: int) -> int:
    """dim as a non-negative int (0 for a 0-d tensor); IndexError when out of range."""
    if not isinstance(dim, int):
        raise TypeError(f"softmax(): argument 'dim' must be int, not {type(dim).__name__}")
    axes = red.dims_of(dim, ndim)
    return 0 if axes is None else axes[0]


def _implicit_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to "
        "include dim=X as an argument.",
        UserWarning,
        stacklevel=stacklevel + 1,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim, dtype=None):
    """e^x / Σ_dim e^x (input cast to ``dtype`` first when given)."""
    if dtype is not None:
        input = input.to(dtype)
    return softmax_op(input, dim=_wrap_dim(dim, input.ndim))


def log_softmax(input, dim, dtype=None):
    """x - log Σ_dim e^x (input cast to ``dtype`` first when given)."""
    if dtype is not None:
        input = input.to(dtype)
    return log_softmax_op(input, dim=_wrap_dim(dim, input.ndim))


def logsumexp(input, dim, keepdim=False, *, out=None):
    """log Σ_dim e^x, stable for large |x|; ``dim`` an int or a sequence of ints."""
    if isinstance(dim, list):
        dim = tuple(dim)
    red.dims_of(dim, input.ndim)  # range check, PyTorch's IndexError
    return logsumexp_op(input, dim=dim, keepdim=keepdim)


def selu(input):
    """scale·elu(x, alpha) with SELU's fixed alpha and scale."""
    return elu(input, alpha=SELU_ALPHA, scale=SELU_SCALE, input_scale=1.0)


def selu_(input):
    return _inplace(input, elu_result, (input,), _SELU_PARAMS)


_SELU_PARAMS = {"alpha": SELU_ALPHA, "scale": SELU_SCALE, "input_scale": 1.0}


def _check_celu_alpha(alpha) -> None:
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")


def celu(input, alpha=1.0):
    """max(0, x) + min(0, alpha·(e^(x/alpha) - 1))."""
    _check_celu_alpha(alpha)
    return celu_op(input, alpha=alpha)


def celu_(input, alpha=1.0):
    _check_celu_alpha(alpha)
    return _inplace(input, celu_result, (input,), {"alpha": alpha})


def relu_(input):
    """relu written into input."""
    return _inplace(input, ew.relu, (input,), {})


def threshold(input, threshold, value):  # noqa: A002
    """value where input <= threshold, else input."""
    return threshold_op(input, threshold=threshold, value=value)


def threshold_(input, threshold, value):  # noqa: A002
    """threshold written into input (ThresholdBackward1)."""
    return _inplace(input, threshold_result, (input,), {"threshold": threshold, "value": value})


def hardshrink(input, lambd=0.5):
    """input where |input| > lambd, else 0."""
    return hardshrink_op(input, lambd=lambd)


def prelu(input, weight):
    """input for input > 0, weight · input otherwise; weight one value or one per channel."""
    if weight.ndim > 1:
        raise RuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}"
        )
    n = weight.numel()
    channels = input.shape[1] if input.ndim >= 2 else 1
    if n != 1 and n != channels:
        raise RuntimeError(
            "Mismatch of parameter numbers and input channel size. Found parameter numbers = "
            f"{n} and channel size = {channels}."
        )
    return prelu_op(input, weight)


def _rrelu_noise(input, lower: float, upper: float, training: bool):
    """The slopes: (lower + upper)/2 in evaluation; in training, drawn uniformly from
    [lower, upper) for each element <= 0 (1 elsewhere) from chainrule's generator."""
    if not training:
        return (lower + upper) / 2
    from .._random import _gen

    draw = _gen[0].uniform(lower, upper, input._data.shape).astype(input._data.dtype)
    return xp.where(input._data > 0, input._data.dtype.type(1), draw)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """Randomized leaky ReLU: slope (lower + upper)/2 in evaluation, random in training."""
    return rrelu_op(input, noise=_rrelu_noise(input, lower, upper, training))


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """rrelu written into input (saves its output: RreluWithNoiseBackward1)."""
    noise = _rrelu_noise(input, lower, upper, training)
    return _inplace(input, rrelu_result, (input,), {"noise": noise})


__all__ = [
    "celu",
    "celu_",
    "hardshrink",
    "log_softmax",
    "logsumexp",
    "prelu",
    "relu_",
    "rrelu",
    "rrelu_",
    "selu",
    "selu_",
    "softmax",
    "threshold",
    "threshold_",
]
