"""Activation functions: relu, sigmoid, hardtanh, leaky_relu, hardsigmoid,
hardswish, elu, selu, celu, gelu, softplus, logsigmoid, silu, mish, threshold, the
shrinkages, glu, prelu, rrelu.

Where PyTorch's in-place kernel saves its output rather than its input (leaky_relu_, elu_,
celu_, threshold_, rrelu_), a ``..._result`` op computes the derivative from the output, as
PyTorch's ``...Backward1`` nodes do."""

from __future__ import annotations

import math

from .. import _dtypes
from .._backend import clip_ufunc, ndarray, xp
from .._promotion import result_type
from ..autograd.recording import FLOAT, KEEP, array_of, defop, floating_only, no_bool
from . import copies, indexing, logical, reductions, shapes, special, unary
from ._scratch import writable


def _sigmoid(x):
    """1 / (1 + e^-x); e^-x overflowing to inf gives the right limit, 0"""
    return 1 / (1 + xp.exp(-x))


sigmoid = defop(
    "sigmoid",
    _sigmoid,
    dtypes=FLOAT,
    complex="holomorphic",
    vjp=lambda g, ans: g * ((1 - ans) * ans),  # d/dx σ(x) = σ(x)(1 - σ(x))
    jvp=lambda t, ans: t * ((1 - ans) * ans),  # as the VJP
)


# ----- the backward kernels of the piecewise-linear activations -----------------------------
# PyTorch computes these gradients with kernels of their own (threshold_backward, ...): linear
# in the output gradient and, with derivative 0, differentiable in the input. So a gradient
# taken with create_graph=True still depends on x, as in PyTorch, and a gradient penalty
# through relu backpropagates (a zero gradient) rather than finding nothing to differentiate.
# Their masks are PyTorch's, nan included: relu passes the gradient at nan (not nan <= 0).


def _zero_in_x(g, x):
    """∂/∂x = 0: the kernel is piecewise constant in x"""
    return copies.zero(x)


def _threshold_backward(grad, x, threshold=0.0):
    """grad where x > threshold (and where x is nan), else 0"""
    return _select(grad, ~(x <= threshold))


def _select(values, keep):
    """``values`` where ``keep``, else +0: ``xp.where(keep, values, 0)`` without its branch
    per element (on a random mask several times slower). The bits of a float times 0 or 1 are
    the float or +0, exactly, inf and nan included."""
    dtype = values.dtype
    if dtype.kind != "f":
        return xp.where(keep, values, xp.zeros((), dtype))
    return xp.asarray(xp.multiply(values.view(f"i{dtype.itemsize}"), keep)).view(dtype)


# ----- branch-free selects on host float arrays, in place (the fast paths on arrays) ---------
_INTS = {2: xp.int16, 4: xp.int32, 8: xp.int64}


def host_floats(x, *others) -> bool:
    """Whether ``x`` is a host NumPy float array of at least one dim and each of ``others``
    an array of its shape and dtype: what the in-place fast paths below take."""
    if x.__class__ is not ndarray or not x.ndim or x.dtype.kind != "f":
        return False
    for a in others:
        if a.__class__ is not ndarray or a.shape != x.shape or a.dtype != x.dtype:
            return False
    return True


def _bits(a):
    """A float array's bits, as integers of its width (a view)."""
    return a.view(_INTS[a.dtype.itemsize])


def zero_where_not(out, keep) -> None:
    """``out`` kept where ``keep``, +0 elsewhere, in place: ``_select``'s bits."""
    bits = _bits(out)
    xp.multiply(bits, keep, out=bits)


def put_where(out, keep, values) -> None:
    """``values`` written into ``out`` where ``keep``, in place, without where's branch per
    element: out ^= (out ^ values)·keep on their bits, so each element is exactly one of
    the two (``values`` of out's dtype: an array of its shape, or 0-d)."""
    bits = _bits(out)
    flips = xp.bitwise_xor(bits, _bits(values))
    flips *= keep
    bits ^= flips


threshold_backward = defop(
    "threshold_backward",
    _threshold_backward,
    args=("grad", "x"),
    node="ThresholdBackwardBackward0",
    dtypes=KEEP,
    vjp=(
        lambda g, x, threshold: threshold_backward(
            g, x, threshold=threshold
        ),  # ∂/∂grad = [x > threshold]
        _zero_in_x,
    ),
    jvp=(
        lambda t, x, threshold: threshold_backward(t, x, threshold=threshold),  # as the VJP
        lambda t, x: copies.zero(x),  # J t = 0
    ),
)


def _hardtanh_backward(grad, x, min_val=-1.0, max_val=1.0):
    """grad where min_val < x < max_val (and where x is nan), else 0"""
    return xp.where((x <= min_val) | (x >= max_val), xp.zeros((), grad.dtype), grad)


hardtanh_backward = defop(
    "hardtanh_backward",
    _hardtanh_backward,
    args=("grad", "x"),
    node="HardtanhBackwardBackward0",
    dtypes=KEEP,
    vjp=(
        lambda g, x, min_val, max_val: hardtanh_backward(
            g, x, min_val=min_val, max_val=max_val
        ),  # ∂/∂grad = [min_val < x < max_val]
        _zero_in_x,
    ),
    jvp=(
        lambda t, x, min_val, max_val: hardtanh_backward(
            t, x, min_val=min_val, max_val=max_val
        ),  # as the VJP
        lambda t, x: copies.zero(x),  # J t = 0
    ),
)


def _leaky_relu_backward(grad, x, negative_slope=0.01):
    """grad where x > 0, negative_slope · grad elsewhere (nan included)"""
    if 0 <= negative_slope <= 1 and x.__class__ is ndarray and x.dtype.kind == "f" and x.ndim:
        # grad times 1 where x > 0, else the slope: max(x > 0, slope) is exactly one of
        # them, without where's branch per element (on a random mask several times slower)
        factor = xp.maximum(x > 0, xp.asarray(negative_slope, x.dtype))
        return (
            xp.multiply(grad, factor, out=factor) if factor.dtype == grad.dtype else grad * factor
        )
    return xp.where(x > 0, grad, grad * negative_slope)


leaky_relu_backward = defop(
    "leaky_relu_backward",
    _leaky_relu_backward,
    args=("grad", "x"),
    node="LeakyReluBackwardBackward0",
    dtypes=KEEP,
    vjp=(
        lambda g, x, negative_slope: leaky_relu_backward(
            g, x, negative_slope=negative_slope
        ),  # ∂/∂grad = 1 for x > 0, negative_slope elsewhere
        _zero_in_x,
    ),
    jvp=(
        lambda t, x, negative_slope: leaky_relu_backward(
            t, x, negative_slope=negative_slope
        ),  # as the VJP
        lambda t, x: copies.zero(x),  # J t = 0
    ),
)


def _shrink_backward(grad, x, lambd=0.5):
    """grad where |x| > lambd (and where x is nan), else 0"""
    return xp.where((x >= -lambd) & (x <= lambd), xp.zeros((), grad.dtype), grad)


hardshrink_backward = defop(
    "hardshrink_backward",
    _shrink_backward,
    args=("grad", "x"),
    node="HardshrinkBackwardBackward0",
    dtypes=KEEP,
    vjp=(
        lambda g, x, lambd: hardshrink_backward(g, x, lambd=lambd),  # ∂/∂grad = [|x| > λ]
        _zero_in_x,
    ),
    jvp=(
        lambda t, x, lambd: hardshrink_backward(t, x, lambd=lambd),  # as the VJP
        lambda t, x: copies.zero(x),  # J t = 0
    ),
)

softshrink_backward = defop(
    "softshrink_backward",
    _shrink_backward,
    args=("grad", "x"),
    node="SoftshrinkBackwardBackward0",
    dtypes=KEEP,
    vjp=(
        lambda g, x, lambd: softshrink_backward(g, x, lambd=lambd),  # ∂/∂grad = [|x| > λ]
        _zero_in_x,
    ),
    jvp=(
        lambda t, x, lambd: softshrink_backward(t, x, lambd=lambd),  # as the VJP
        lambda t, x: copies.zero(x),  # J t = 0
    ),
)


# relu as x clipped to [0, inf] by NumPy's clip ufunc (not np.clip's Python wrapper), with a
# cached 0-d zero and inf of x's dtype (a Python number is converted on every call): one pass
# and faster than maximum. PyTorch keeps x where it is not below 0, so relu(-0.0) is -0.0 and
# a nan keeps its sign, as clip does (tests/autograd/test_recording_cost.py pins this to
# PyTorch bit for bit). Without that ufunc, maximum: NumPy's float32 and float64 loops return
# their second operand on a tie, the others their first.
_BOUNDS: dict = {}  # dtype -> (zero, inf) or (zero, None)


def _relu(x):
    """max(x, 0)"""
    if x.__class__ is not ndarray:  # a meta or device array: its library's maximum
        return xp.maximum(x, 0)
    bounds = _BOUNDS.get(x.dtype)
    if bounds is None:
        bounds = _BOUNDS[x.dtype] = _relu_bounds(x.dtype)
    zero, inf = bounds
    if inf is not None:
        return clip_ufunc(x, zero, inf)
    if x.dtype == xp.float32 or x.dtype == xp.float64:
        return xp.maximum(zero, x)
    return xp.maximum(x, zero)


def _relu_bounds(dtype) -> tuple:
    """relu's cached 0-d bounds for ``dtype``: (0, inf) for clip on floats, (0, None) else."""
    zero = xp.zeros((), dtype)
    if clip_ufunc is None or dtype.kind != "f":
        return zero, None
    return zero, xp.full((), xp.inf, dtype)


def _relu_vjp(g, ans):
    """d/dx max(x, 0) = [x > 0]"""
    if g.__class__ is ndarray:  # arrays (backward without create_graph): the kernel itself
        if g.ndim and g.dtype.kind == "f" and writable(g, ans):  # private: masked in place
            keep = xp.less_equal(ans, 0)
            xp.logical_not(keep, out=keep)
            bits = g.view(f"i{g.dtype.itemsize}")
            xp.multiply(bits, keep, out=bits)  # (_select's bits: g or +0)
            return g
        return _threshold_backward(g, ans)
    return threshold_backward(g, ans, threshold=0.0)


relu = defop(
    "relu",
    _relu,
    fp_errors=False,  # maximum: no overflow, no invalid operation
    dtypes=unary.no_complex(
        "clamp is not supported for complex types",
        NotImplementedError,
        rule=no_bool("Boolean inputs not supported for relu"),
    ),
    vjp=_relu_vjp,
    jvp=lambda t, ans: threshold_backward(t, ans, threshold=0.0),  # J t = [x > 0] t
    conventions="relu'(0) = 0; at nan the gradient passes (PyTorch's: not x <= 0).",
)

# ----- helpers -----------------------------------------------------------------------


def _axis(dim, ndim: int):
    """A NumPy axis for one (already wrapped) dim; None for a 0-d array."""
    return dim if ndim else None


# ----- piecewise linear ----------------------------------------------------------------


def _hardtanh(x, min_val=-1.0, max_val=1.0):
    """x clipped to [min_val, max_val]"""
    out = xp.clip(x, min_val, max_val)
    return out.astype(x.dtype, copy=False)


def _hardtanh_grad(g, x, min_val, max_val):
    """d/dx clip(x, lo, hi) = [lo < x < hi]: 0 at both bounds"""
    return hardtanh_backward(g, x, min_val=min_val, max_val=max_val)


def _hardtanh_dtype(args, params):
    """The input's dtype; PyTorch refuses bool and complex, and negative limits for uint8."""
    dtype = args[0]._dtype
    if dtype._category == 0:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if dtype._category == 3:  # (PyTorch's hardtanh is a clamp)
        raise NotImplementedError("clamp is not supported for complex types")
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
        "hardtanh(0, 6), has gradient 0 at 0 and at 6. At nan it passes (PyTorch's)."
    ),
)


def _leaky_relu(x, negative_slope=0.01):
    """x for x > 0, negative_slope * x otherwise"""
    if negative_slope != 0 and x.__class__ is ndarray and x.dtype.kind == "f" and x.ndim:
        # max(x, slope·x) for a slope up to 1, min above: exactly x or slope·x (nan stays
        # nan, infinities keep their branch's value), without where's branch per element
        scaled = x * negative_slope
        pick = xp.maximum if negative_slope <= 1 else xp.minimum
        return pick(x, scaled, out=scaled) if scaled.dtype == x.dtype else pick(x, scaled)
    return xp.where(x > 0, x, x * negative_slope)


def _leaky_relu_grad(g, x, negative_slope):
    """d/dx leaky_relu(x) = 1 for x > 0, negative_slope for x <= 0"""
    return leaky_relu_backward(g, x, negative_slope=negative_slope)


leaky_relu = defop(
    "leaky_relu",
    _leaky_relu,
    node="LeakyReluBackward0",
    dtypes=floating_only("leaky_relu_cpu"),
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
    """d/dx leaky_relu(x) from the output y (x is overwritten): 1 for y > 0, else negative_slope"""
    # with a negative slope y > 0 no longer tells x > 0, hence PyTorch's error
    if negative_slope < 0:
        raise RuntimeError(_NEGATIVE_SLOPE_INPLACE)
    return leaky_relu_backward(g, ans, negative_slope=negative_slope)


# in place (F.leaky_relu(x, inplace=True)): saves its output, as PyTorch's does
leaky_relu_result = defop(
    "leaky_relu_",
    _leaky_relu,
    node="LeakyReluBackward1",
    dtypes=floating_only("leaky_relu_cpu"),
    vjp=_leaky_relu_result_grad,
    jvp=_leaky_relu_result_grad,
    conventions="As leaky_relu; a negative slope raises in backward (PyTorch's error).",
)


def _hardsigmoid(x):
    """min(max(x + 3, 0), 6) / 6"""
    return xp.minimum(xp.maximum(x + 3, 0), 6) / 6


def _hardsigmoid_grad(g, x):
    """d/dx hardsigmoid(x) = 1/6 for -3 < x < 3, else 0 (g times 1/6 rounded to g's dtype,
    as PyTorch's kernel multiplies)"""
    xa = array_of(x)
    return logical.select((xa > -3) & (xa < 3), g * (1 / 6), 0.0)


hardsigmoid = defop(
    "hardsigmoid",
    _hardsigmoid,
    dtypes=floating_only("hardsigmoid_cpu"),
    vjp=_hardsigmoid_grad,
    jvp=_hardsigmoid_grad,
    conventions=(
        "The gradient is 0 at x = ±3 (PyTorch's). Inside, g times 1/6 rounded to g's dtype "
        "(float32: PyTorch's bits); PyTorch's float64 kernel multiplies by the float32 "
        "constant 1/6f (0.1666666716...), chainrule by the float64 1/6."
    ),
)


def _hardswish(x):
    """x * min(max(x + 3, 0), 6) / 6"""
    if clip_ufunc is not None and host_floats(x):
        # x + 3 clipped by one ufunc, then times x and / 6, written in place: the same bits
        # (clip and max differ only at -0, which x + 3 never is)
        h = x + 3
        clip_ufunc(h, 0, 6, out=h)
        h *= x
        h /= 6
        return h
    return x * xp.minimum(xp.maximum(x + 3, 0), 6) / 6


def _hardswish_grad(g, x):
    """d/dx hardswish(x) = 0 for x <= -3, x/3 + 1/2 for -3 < x < 3, 1 for x >= 3"""
    if host_floats(x, g):
        # arrays: g·(x/3 + 1/2), g put where x >= 3 (or nan), +0 where x <= -3, by integer
        # masks on the bits: the selects' bits below without where's branch per element
        out = x / 3
        out += 0.5
        out *= g
        put_where(out, ~(x < 3), g)
        zero_where_not(out, ~(x <= -3))
        return out
    xa = array_of(x)  # (a nan x takes the last branch, as in PyTorch)
    return logical.select(xa <= -3, 0.0, logical.select(xa < 3, g * (x / 3 + 0.5), g))


hardswish = defop(
    "hardswish",
    _hardswish,
    dtypes=floating_only("hardswish_cpu"),
    vjp=_hardswish_grad,
    jvp=_hardswish_grad,
    conventions="hardswish'(-3) = 0 and hardswish'(3) = 1 (PyTorch's).",
)

# ----- exponential family: elu, selu, celu --------------------------------------------


def _elu(x, alpha=1.0, scale=1.0, input_scale=1.0):
    """scale·x for x > 0, alpha·scale·(e^(input_scale·x) - 1) for x <= 0"""
    if alpha > 0 and scale > 0 and input_scale > 0 and host_floats(x):
        # max(x, 0)·scale + neg: one of the two is +0 (neg is expm1(+0)·... where x > 0),
        # so the sum is where's value, without its branch per element (where's bits pinned;
        # with a parameter not positive a zero's sign could differ: where's path); written
        # in place, a product by 1 skipped (it is the number itself)
        neg = xp.minimum(x, 0)
        _scale(neg, input_scale)
        xp.expm1(neg, out=neg)
        _scale(neg, alpha * scale)
        pos = xp.maximum(x, 0)
        _scale(pos, scale)
        pos += neg
        return pos
    neg = xp.expm1(xp.minimum(x, 0) * input_scale) * (alpha * scale)
    return xp.where(x > 0, x * scale, neg)


def _scale(out, factor: float) -> None:
    """``out`` times ``factor``, in place; nothing to do for 1."""
    if factor != 1:
        out *= factor


def _elu_grad(g, x, alpha, scale, input_scale):
    """d/dx elu(x) = scale for x > 0, alpha·scale·input_scale·e^(input_scale·x) for x <= 0"""
    # The exponential is taken at x where x < 0 and at 0 elsewhere: it never overflows,
    # even where discarded, and (as in PyTorch) the second derivative at 0 is 0
    positive = alpha > 0 and scale > 0 and input_scale > 0  # (no signed zero in e: see _elu)
    if (
        positive
        and g.__class__ is ndarray
        and x.__class__ is ndarray
        and x.ndim
        and g.dtype == x.dtype
    ):
        # arrays: the same factor without where's branch per element: e where x <= 0 (e's
        # bits kept by an integer product with the mask, +0 elsewhere) plus scale elsewhere
        e = xp.minimum(x, 0)  # (where x > 0, or nan, e is masked out below)
        _scale(e, input_scale)
        xp.exp(e, out=e)
        _scale(e, alpha * scale * input_scale)
        keep = x <= 0
        zero_where_not(e, keep)
        away = xp.logical_not(keep)  # (1 times scale: the bool's 1 itself)
        e += away if scale == 1 else away * xp.asarray(scale, x.dtype)
        e *= g
        return e
    xa = array_of(x)  # (a nan x takes the x > 0 branch, as in PyTorch)
    e = unary.exp(logical.select(xa < 0, x, 0.0) * input_scale) * (alpha * scale * input_scale)
    return g * logical.select(xa <= 0, e, scale)


def _elu_result_grad(g, ans, alpha, scale, input_scale):
    """d/dx elu(x) from the output y: scale for y > 0, input_scale·(y + alpha·scale) for y <= 0"""
    # (the constant alpha·scale·input_scale at y = 0: second derivative 0 there, as PyTorch)
    if alpha < 0:
        raise RuntimeError(_NEGATIVE_ALPHA_INPLACE)
    ya = array_of(ans)
    c = alpha * scale * input_scale
    return g * logical.select(
        ya > 0, scale, logical.select(ya < 0, (ans + alpha * scale) * input_scale, c)
    )


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
    dtypes=floating_only("elu_cpu"),
    vjp=_elu_grad,
    jvp=_elu_grad,
    conventions=_ELU_CONVENTIONS,
)

# in place: saves its output (EluBackward1); a negative alpha raises in backward
elu_result = defop(
    "elu_",
    _elu,
    node="EluBackward1",
    dtypes=floating_only("elu_cpu"),
    vjp=_elu_result_grad,
    jvp=_elu_result_grad,
    conventions=_ELU_CONVENTIONS,
)


def _celu(x, alpha=1.0):
    """max(0, x) + min(0, alpha·(e^(x/alpha) - 1))"""
    return _elu(x, alpha, 1.0, 1.0 / alpha)


celu = defop(
    "celu",
    _celu,
    node="CeluBackward0",
    dtypes=floating_only("elu_cpu"),
    vjp=lambda g, x, alpha: _elu_grad(
        g, x, alpha, 1.0, 1.0 / alpha
    ),  # d/dx celu(x) = 1 for x > 0, e^(x/alpha) for x <= 0
    jvp=lambda t, x, alpha: _elu_grad(t, x, alpha, 1.0, 1.0 / alpha),  # as the VJP
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
    dtypes=floating_only("elu_cpu"),
    vjp=lambda g, ans, alpha: _elu_result_grad(
        g, ans, alpha, 1.0, 1.0 / alpha
    ),  # d/dx celu(x) from the output y: 1 for y > 0, y/alpha + 1 for y <= 0
    jvp=lambda t, ans, alpha: _elu_result_grad(t, ans, alpha, 1.0, 1.0 / alpha),  # as the VJP
    conventions="celu'(0) = 1; a negative alpha raises in backward (PyTorch's error).",
)

# ----- smooth activations ---------------------------------------------------------------

_GELU_BETA = math.sqrt(2.0 / math.pi)  # √(2/π)

_GELU_KAPPA = 0.044715


def _gelu(x, approximate="none", value=None, cdf=None):
    """x·Φ(x); with approximate='tanh', x/2·(1 + tanh(√(2/π)(x + 0.044715x³))); ``value``
    where its caller evaluated it (with ``cdf``, Φ(x): ``special.gelu_and_cdf``)"""
    if value is not None:
        return value
    if approximate == "tanh":
        # x/2·(1 + tanh u) = x·σ(2u) = x / (1 + e^(-2u)): no cancellation of 1 + tanh u
        # where u is very negative (the tail the tanh form loses entirely)
        minus_2u = x * x
        minus_2u *= _GELU_KAPPA
        minus_2u += 1
        minus_2u *= x * (-2 * _GELU_BETA)
        denominator = xp.exp(minus_2u)
        denominator += 1
        return x / denominator
    return special._gelu_none(x)


def _gelu_grad(g, x, approximate, cdf=None):
    """d/dx xΦ(x) = Φ(x) + xφ(x), φ(x) = e^(-x²/2)/√(2π); with approximate='tanh',
    d/dx x/2·(1 + tanh u) = d/dx x·σ(2u) = σ(2u) + x·σ(2u)σ(-2u)·2β(1 + 3κx²),
    u = β(x + κx³) (β = √(2/π), κ = 0.044715)"""
    if cdf is not None and g.__class__ is ndarray and x.__class__ is ndarray and x.ndim:
        # arrays, Φ(x) from the forward: φ in x's dtype, as PyTorch's kernel computes it
        slope = xp.multiply(x, x)
        slope *= -0.5
        xp.exp(slope, out=slope)
        slope *= x
        slope *= special._INV_SQRT_2PI
        slope += cdf
        slope *= g
        return slope
    if approximate == "tanh" and host_floats(x, g):
        # arrays: the line below's value, one exponential e = e^(-2u) for both σ(2u) =
        # 1/(1 + e) and σ(-2u) = 1/(1 + 1/e) (e = inf or 0 gives each its limit)
        x2 = xp.multiply(x, x)
        e = x2 * _GELU_KAPPA
        e += 1
        e *= x * (-2 * _GELU_BETA)
        xp.exp(e, out=e)
        out = xp.divide(1, e)
        out += 1
        xp.divide(1, out, out=out)  # σ(-2u)
        e += 1
        xp.divide(1, e, out=e)  # σ(2u)
        out *= e
        out *= x
        x2 *= 3 * _GELU_KAPPA
        x2 += 1
        x2 *= 2 * _GELU_BETA  # 2u'
        out *= x2
        out += e
        out *= g
        return out
    if approximate == "tanh":
        # (1 + tanh u)/2 = σ(2u) and (1 - tanh² u)/2 = 2σ(2u)σ(-2u), each σ computed
        # directly: no cancellation in either tail. σ(2u)σ(-2u) first: it is 0 in both
        # tails, so the product with x·2u' (inf beyond |x| = 1e15 in float32) stays 0
        x2 = x * x
        two_u = (x + x2 * x * _GELU_KAPPA) * (2 * _GELU_BETA)
        du = (1 + x2 * (3 * _GELU_KAPPA)) * (2 * _GELU_BETA)
        s = sigmoid(two_u)
        return g * (s + s * sigmoid(-two_u) * x * du)
    return g * special.gelu_slope(x)


gelu = defop(
    "gelu",
    _gelu,
    dtypes=floating_only("GeluKernelImpl"),
    vjp=_gelu_grad,
    jvp=_gelu_grad,
)


def _softplus(x, beta=1.0, threshold=20.0):
    """log(1 + e^(βx))/β, as (max(βx, 0) + log(1 + e^-|βx|))/β; x where βx > threshold"""
    if host_floats(x):
        # the same ufuncs written in place (a product or quotient by 1 is skipped: it is
        # the number itself), x put where βx > threshold only if it is anywhere
        z = x if beta == 1 else x * beta
        soft = xp.abs(z)
        xp.negative(soft, out=soft)
        xp.exp(soft, out=soft)
        xp.log1p(soft, out=soft)
        soft += xp.maximum(z, 0)
        if beta != 1:
            soft /= beta
        _put_if_any(soft, z > threshold, x)
        return soft
    z = x * beta
    soft = (xp.maximum(z, 0) + xp.log1p(xp.exp(-xp.abs(z)))) / beta
    return xp.where(z > threshold, x, soft)


def _put_if_any(out, keep, values) -> None:
    """``put_where(out, keep, values)`` when ``keep`` holds anywhere (often nowhere)."""
    if keep.any():
        put_where(out, keep, values)


def _softplus_grad(g, x, beta, threshold):
    """d/dx log(1 + e^(βx))/β = σ(βx); 1 where βx > threshold (there the function is x)"""
    # At βx = threshold it is σ(threshold), a constant: second derivative 0 there, as PyTorch.
    # A nan x fails both comparisons and reaches σ(nan): its derivative is nan, as PyTorch's
    if host_floats(x, g):  # arrays: the ufuncs of the line below, written in place
        z = x if beta == 1 else x * beta
        at = z >= threshold
        s = _logistic_into(xp.where(at, threshold, z) if at.any() else z.copy())
        s *= g
        _put_if_any(s, z > threshold, g)
        return s
    z = x * beta
    za = array_of(z)
    return logical.select(
        za > threshold, g, g * _logistic(logical.select(za >= threshold, threshold, z))
    )


def _logistic_into(w):
    """σ(w) of a fresh array ``w``, as 1/(1 + e^-w) where w >= 0 and e^w/(1 + e^w) where
    w < 0: the latter keeps the subnormal σ(w) below w ≈ -87 (float32) that 1/(1 + e^-w)
    flushes to 0 when e^-w overflows, as PyTorch's softplus and log_sigmoid gradients keep
    it. The ufuncs of ``_logistic``, in place."""
    below = w < 0
    xp.abs(w, out=w)
    xp.negative(w, out=w)
    xp.exp(w, out=w)  # e^-|w|
    s = w + 1
    xp.divide(1, s, out=s, where=~below)
    return xp.divide(w, s, out=s, where=below)


def _logistic(w):
    """σ(w) as ``_logistic_into``, by differentiable ops: e^-|w| is e^(±w) by a select, so
    its derivative at w = 0 is -e^-w (the branch w >= 0), not abs's 0."""
    at_or_above = array_of(w) >= 0
    e = unary.exp(logical.select(at_or_above, -w, w))
    return logical.select(at_or_above, 1 / (1 + e), e / (1 + e))


def _sigmoid_into(minus_x) -> None:
    """σ(x) = 1 / (1 + e^-x) written into ``minus_x`` (a fresh array holding -x): the ufuncs
    of ``_sigmoid``, in place."""
    xp.exp(minus_x, out=minus_x)
    minus_x += 1
    xp.divide(1, minus_x, out=minus_x)


softplus = defop(
    "softplus",
    _softplus,
    dtypes=floating_only("softplus_cpu"),
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


def _log_sigmoid_grad(g, x):
    """d/dx log σ(x) = 1 - σ(x) = σ(-x)"""
    if host_floats(x, g):
        s = _logistic_into(xp.negative(x))
        s *= g
        return s
    return g * _logistic(-x)


log_sigmoid = defop(
    "log_sigmoid",
    _log_sigmoid,
    node="LogSigmoidBackward0",
    dtypes=floating_only("log_sigmoid_cpu"),
    vjp=_log_sigmoid_grad,
    jvp=_log_sigmoid_grad,
)


def _silu(x):
    """x·σ(x) = x / (1 + e^-x)"""
    if host_floats(x):  # the same ufuncs, written in place
        out = xp.negative(x)
        xp.exp(out, out=out)
        out += 1
        return xp.divide(x, out, out=out)
    return x / (1 + xp.exp(-x))


def _silu_grad(g, x):
    """d/dx xσ(x) = σ(x)(1 + x(1 - σ(x)))"""
    if host_floats(x, g):  # arrays: the ufuncs of the lines below, written in place
        s = xp.negative(x)
        _sigmoid_into(s)
        out = xp.subtract(1, s)
        out *= x
        out += 1
        out *= s
        out *= g
        return out
    s = sigmoid(x)
    return g * (s * (1 + x * (1 - s)))


silu = defop(
    "silu",
    _silu,
    # complex values: computed, but PyTorch refuses to differentiate them
    dtypes=unary.no_complex_grad("silu", rule=floating_only("silu_cpu")),
    vjp=_silu_grad,
    jvp=_silu_grad,
)


def _mish(x):
    """x·tanh(softplus(x))"""
    return x * xp.tanh(_softplus(x, 1.0, math.inf))


def _mish_grad(g, x):
    """d/dx x·tanh(s) = tanh(s) + x·σ(x)·(1 - tanh² s), with s = softplus(x), s' = σ(x)"""
    th = unary.tanh(softplus(x, beta=1.0, threshold=math.inf))
    return g * (th + x * (sigmoid(x) * (1 - th * th)))


mish = defop("mish", _mish, dtypes=floating_only("mish_cpu"), vjp=_mish_grad, jvp=_mish_grad)

# ----- threshold, shrinkage, glu, prelu, rrelu ------------------------------------------


def _threshold(x, threshold=0.0, value=0.0):
    """value where x <= threshold, else x (nan stays nan)"""
    return xp.where(x <= threshold, xp.asarray(value).astype(x.dtype), x)


def _threshold_dtype(args, params):
    dtype = args[0]._dtype
    if dtype._category == 0 or dtype._category == 3:
        raise _dtypes.not_implemented("threshold_cpu", dtype)
    return dtype


def _threshold_grad(g, x, threshold):
    """d/dx threshold(x) = [x > threshold]"""
    return threshold_backward(g, x, threshold=threshold)


_THRESHOLD = "The gradient is 0 at x = threshold (the value branch), as in PyTorch."

threshold = defop(
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
    """0 where |x| <= lambd, else x (nan stays nan)"""
    return xp.where((x >= -lambd) & (x <= lambd), xp.zeros((), x.dtype), x)


def _hardshrink_grad(g, x, lambd):
    """d/dx hardshrink(x) = [|x| > lambd]"""
    return hardshrink_backward(g, x, lambd=lambd)


def _softshrink_grad(g, x, lambd):
    """d/dx softshrink(x) = [|x| > lambd]"""
    return softshrink_backward(g, x, lambd=lambd)


hardshrink = defop(
    "hardshrink",
    _hardshrink,
    dtypes=floating_only("hardshrink_cpu"),
    vjp=_hardshrink_grad,
    jvp=_hardshrink_grad,
    conventions="The gradient is 0 at |x| = lambd.",
)


def _softshrink(x, lambd=0.5):
    """x - lambd for x > lambd, x + lambd for x < -lambd, 0 between (nan stays nan)"""
    return xp.where(
        (x >= -lambd) & (x <= lambd), xp.zeros((), x.dtype), x - xp.copysign(lambd, x)
    ).astype(x.dtype, copy=False)


softshrink = defop(
    "softshrink",
    _softshrink,
    dtypes=floating_only("softshrink_check"),
    vjp=_softshrink_grad,
    jvp=_softshrink_grad,
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
    """d/da a σ(b) = σ(b), d/db a σ(b) = a σ(b)(1 - σ(b)): the two halves of the gradient"""
    first, second = _halves(x_shape, dim)
    a, b = indexing.getitem(x, key=first), indexing.getitem(x, key=second)
    s = sigmoid(b)
    return indexing.index_into_zeros(g * s, shape=x_shape, key=first) + indexing.index_into_zeros(
        g * (a * (s * (1 - s))), shape=x_shape, key=second
    )


def _glu_jvp(t, x, x_shape, dim):
    """J t = σ(b) t_a + a σ(b)(1 - σ(b)) t_b, t_a and t_b the halves of t"""
    first, second = _halves(x_shape, dim)
    a, b = indexing.getitem(x, key=first), indexing.getitem(x, key=second)
    s = sigmoid(b)
    return s * indexing.getitem(t, key=first) + (a * (s * (1 - s))) * indexing.getitem(
        t, key=second
    )


glu = defop(
    "glu",
    _glu,
    dtypes=floating_only("glu_cpu"),
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
    return shapes.reshape(weight, _channel_shape(x_shape)) if array_of(weight).ndim else weight


def _prelu_x_grad(g, x, weight):
    """d/dx prelu(x) = 1 for x > 0, weight for x <= 0"""
    return logical.select(array_of(x) > 0, g, g * _prelu_w(weight, tuple(array_of(x).shape)))


def _prelu_weight_grad(g, x, weight_shape):
    """d/dweight prelu(x) = x for x <= 0, 0 for x > 0, summed over every dim but the channels"""
    xs = tuple(array_of(x).shape)
    part = logical.select(array_of(x) > 0, 0.0, g * x)
    if len(xs) >= 2 and math.prod(weight_shape) > 1:
        return reductions.sum(part, dim=tuple(d for d in range(len(xs)) if d != 1))
    return shapes.reshape(reductions.sum(part), weight_shape)


def _prelu_dtype(args, params):
    dtype = result_type(args)
    if dtype._category != 2:
        raise _dtypes.not_implemented("prelu_cpu", dtype)
    return dtype


prelu = defop(
    "prelu",
    _prelu,
    args=("x", "weight"),
    node="PreluKernelBackward0",
    dtypes=_prelu_dtype,
    vjp=(_prelu_x_grad, _prelu_weight_grad),
    jvp=(
        _prelu_x_grad,
        lambda t, x, weight: logical.select(
            array_of(x) > 0, 0.0, x * _prelu_w(t, tuple(array_of(x).shape))
        ),  # d/dweight prelu(x) = x for x <= 0, 0 for x > 0
    ),
    conventions="prelu'(0) = weight (x = 0 takes the negative branch).",
)


def _rrelu(x, noise=None):
    """x for x > 0, noise · x otherwise (noise: the sampled slopes, or one slope)"""
    return xp.where(x > 0, x, x * noise)


def _rrelu_dtype(args, params):
    """Floating inputs only, with PyTorch's kernel in the error: leaky_relu's in evaluation
    (one slope), rrelu_with_noise's in training (sampled slopes)."""
    training = hasattr(params.get("noise"), "shape")
    kernel = "rrelu_with_noise_out_cpu" if training else "leaky_relu_cpu"
    return floating_only(kernel)(args, params)


def _rrelu_grad(g, x, noise):
    """d/dx rrelu(x) = 1 for x > 0, the slope (noise) for x <= 0"""
    return logical.select(array_of(x) > 0, g, g * noise)


def _rrelu_result_grad(g, ans, noise):
    """d/dx rrelu(x) from the output y: 1 for y > 0, the slope for y <= 0 (y > 0 iff x > 0)"""
    return logical.select(array_of(ans) > 0, g, g * noise)


rrelu = defop(
    "rrelu",
    _rrelu,
    node="RreluWithNoiseBackward0",
    dtypes=_rrelu_dtype,
    vjp=_rrelu_grad,
    jvp=_rrelu_grad,
    conventions="rrelu'(0) = the slope (x = 0 takes the negative branch), as PyTorch.",
)

rrelu_result = defop(
    "rrelu_",
    _rrelu,
    node="RreluWithNoiseBackward1",
    dtypes=_rrelu_dtype,
    vjp=_rrelu_result_grad,
    jvp=_rrelu_result_grad,
    conventions="rrelu'(0) = the slope (x = 0 takes the negative branch), as PyTorch.",
)


def softsign(input):
    """x / (1 + |x|) (PyTorch's graph: DivBackward0 of AddBackward0 of AbsBackward0)."""
    return input / (unary.abs(input) + 1)


def tanhshrink(input):
    """input - tanh(input) (PyTorch's graph: SubBackward0 of TanhBackward0)."""
    return input - unary.tanh(input)
