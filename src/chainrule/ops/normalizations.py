"""Normalizations along a dim: softmax, log_softmax, logsumexp, normalize.

Their Jacobians couple the entries of a slice: the VJP of softmax is y ⊙ (g - Σ g y), of
log_softmax g - e^y Σ g, of logsumexp g e^(x - y)."""

from __future__ import annotations

from .._backend import add_reduce, max_reduce, ndarray, xp
from ..autograd.recording import FLOAT, array_of, contiguous, defop, floating_only
from . import activations, binary, reductions, shapes, unary


def _floating_along_dim(name: str):
    """``_floating`` with the kernel PyTorch names: ``..._lastdim_...`` along the last dim."""
    rules = {
        last: floating_only(f"{name}{'_lastdim' if last else ''}_kernel_impl") for last in (0, 1)
    }

    def rule(args, params):
        ndim = args[0]._data.ndim
        return rules[params.get("dim", -1) in (ndim - 1, -1) or ndim == 0](args, params)

    return rule


# ----- along a dim: softmax, log_softmax, logsumexp ------------------------------------


def _softmax(x, dim=-1):
    """e^x / Σ_dim e^x, with x shifted by its max along dim (no exponent overflows)"""
    if x.size == 0:
        return x.copy()
    return softmax_along(x, activations._axis(dim, x.ndim))


def softmax_along(x, axis: int):
    """``_softmax`` of a non-empty array along a non-negative ``axis``: the forward a caller
    that has checked both runs directly (api/parsers/activations.py)."""
    if x.__class__ is ndarray:  # (the ufuncs' reductions: the methods' Python wrappers skipped)
        e = x - max_reduce(x, axis, True)  # (by columns where faster)
        if e.__class__ is ndarray:  # (not a 0-d input's NumPy scalar)
            xp.exp(e, out=e)  # (e is fresh: written in place, as the division below)
            e /= add_reduce(e, axis, True)  # (by BLAS where faster)
            return e
        e = xp.exp(e)
        return e / _add_reduce(e, axis, None, None, True)
    e = xp.exp(x - xp.max(x, axis=axis, keepdims=True))
    return e / xp.sum(e, axis=axis, keepdims=True)


_add_reduce = xp.add.reduce


def _softmax_grad(g, ans, dim):
    """∂y_i/∂x_j = y_i(δ_ij - y_j), y = softmax(x): vᵀJ = J v = y ⊙ (v - Σ_dim v ⊙ y)"""
    if _float_arrays(g, ans):
        # arrays (backward without create_graph): the same ufuncs and sum, no op called,
        # written into g ⊙ y (the bits of the line below: tests/ops/test_activations.py)
        gy = xp.multiply(g, ans)
        xp.subtract(g, add_reduce(gy, dim, True), out=gy)
        gy *= ans
        return gy
    return ans * (g - reductions.sum(g * ans, dim=dim, keepdim=True))


def _float_arrays(g, ans) -> bool:
    """Whether the VJP's gradient and output are float32 or float64 host arrays of one
    shape and dtype, of at least one dim (its sum a reduction along an axis: ``add_reduce``,
    as ``reductions.sum`` sums them)."""
    return (
        g.__class__ is ndarray
        and ans.__class__ is ndarray
        and g.ndim
        and g.dtype.char in "fd"
        and g.dtype == ans.dtype
        and g.shape == ans.shape
    )


softmax = defop(
    "softmax",
    contiguous(_softmax),
    dtypes=_floating_along_dim("softmax"),
    vjp=_softmax_grad,
    jvp=_softmax_grad,  # the Jacobian is symmetric: J v = vᵀ J
)


def _log_softmax(x, dim=-1):
    """x - log Σ_dim e^x, computed as s - log Σ e^s with s = x - max_dim x"""
    if x.size == 0:
        return x.copy()
    return log_softmax_along(x, activations._axis(dim, x.ndim))


def log_softmax_along(x, axis: int):
    """``_log_softmax`` of a non-empty array along a non-negative ``axis`` (as
    ``softmax_along``)."""
    if x.__class__ is ndarray:  # (the ufuncs' reductions: the methods' Python wrappers skipped)
        s = x - max_reduce(x, axis, True)  # (by columns where faster)
        total = add_reduce(xp.exp(s), axis, True)  # (by BLAS where faster)
        if total.__class__ is ndarray:  # (not a 0-d input's NumPy scalar)
            xp.log(total, out=total)
        else:
            total = xp.log(total)
        s -= total
        return s
    s = x - x.max(axis=axis, keepdims=True)
    s -= xp.log(xp.exp(s).sum(axis=axis, keepdims=True))  # (s is fresh: written in place)
    return s


def _log_softmax_vjp(g, ans, dim):
    """∂y_i/∂x_j = δ_ij - e^(y_j), y = log_softmax(x): gᵀJ = g - e^y Σ_dim g"""
    if g.__class__ is ndarray and ans.__class__ is ndarray and g.ndim and g.dtype.char in "fd":
        # arrays (backward without create_graph): the same ufuncs, no op called, e^y written
        # into (the bits of the line below: tests/nn/test_mlp_fast_paths.py)
        e = xp.exp(ans)
        e *= add_reduce(g, dim, True)
        return xp.subtract(g, e, out=e)
    if g.ndim and array_of(g).dtype.char in "fd":
        # create_graph: one node (PyTorch's LogSoftmaxBackwardDataBackward0), not the four
        # of exp, sum, mul and sub, for a Hessian-vector product to walk back through
        return log_softmax_backward_data(g, ans, dim=dim)
    return g - unary.exp(ans) * reductions.sum(g, dim=dim, keepdim=True)


def _log_softmax_backward_data(grad, output, dim):
    """grad - e^output Σ_dim grad: log_softmax's VJP (output = log_softmax(x)) as one op"""
    e = xp.exp(output)
    e *= add_reduce(grad, dim, True)
    return xp.subtract(grad, e, out=e)


def _log_softmax_backward_grad(g, output, dim):
    """∂/∂grad: Jᵀg = g - Σ_dim g ⊙ e^output"""
    if g.__class__ is ndarray and output.__class__ is ndarray:  # arrays: the ufuncs alone
        e = xp.exp(output)
        e *= g
        return g - add_reduce(e, dim, True)
    return g - reductions.sum(g * unary.exp(output), dim=dim, keepdim=True)


def _log_softmax_backward_output(g, grad, output, dim):
    """∂/∂output (grad - e^output Σ_dim grad) = -e^output Σ_dim grad (a diagonal Jacobian)"""
    if g.__class__ is ndarray and grad.__class__ is ndarray and output.__class__ is ndarray:
        e = xp.exp(output)  # arrays: the ufuncs alone, in the order of the line below
        e *= add_reduce(grad, dim, True)
        e *= g
        return xp.negative(e, out=e)
    return g * -(unary.exp(output) * reductions.sum(grad, dim=dim, keepdim=True))


log_softmax_backward_data = defop(
    "log_softmax_backward_data",
    _log_softmax_backward_data,
    args=("grad", "output"),
    node="LogSoftmaxBackwardDataBackward0",
    dtypes=_floating_along_dim("log_softmax_backward"),
    vjp=(_log_softmax_backward_grad, _log_softmax_backward_output),
    jvp=(
        lambda t, output, dim: log_softmax_backward_data(
            t, output, dim=dim
        ),  # J t = t - e^output Σ_dim t (linear in grad)
        _log_softmax_backward_output,  # J t = -e^output Σ_dim grad ⊙ t
    ),
)


log_softmax = defop(
    "log_softmax",
    contiguous(_log_softmax),
    dtypes=_floating_along_dim("log_softmax"),
    vjp=_log_softmax_vjp,
    jvp=lambda t, ans, dim: (
        t - reductions.sum(unary.exp(ans) * t, dim=dim, keepdim=True)
    ),  # J t = t - Σ_dim e^y ⊙ t
)


def _logsumexp(x, dim=None, keepdim=False):
    """log Σ_dim e^x = m + log Σ e^(x - m), m the max over dim (0 where it is ±inf)"""
    axes = reductions.dims_of(dim, x.ndim)
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
    return unary.exp(x - reductions.unreduce(ans, x_shape, dim, keepdim))


def _logsumexp_jvp(t, x, dim, keepdim):
    """J t = Σ_dim t ⊙ softmax(x), the softmax as e^(x - m) / Σ_dim e^(x - m), m = max_dim x"""
    # m is 0 where it is ±inf, as in the forward. Not e^(x - logsumexp(x)): in float32 a
    # result near 1e4 is rounded by ~5e-4, and every weight is off by as much relatively
    # (the VJP keeps that form, which is PyTorch's backward)
    xa = array_of(x)
    m = xp.max(xa, axis=reductions.dims_of(dim, xa.ndim), keepdims=True, initial=-xp.inf)
    e = unary.exp(x - xp.where(xp.isinf(m), 0, m))
    return reductions.sum(
        t * (e / reductions.sum(e, dim=dim, keepdim=True)), dim=dim, keepdim=keepdim
    )


logsumexp = defop(
    "logsumexp",
    contiguous(_logsumexp),
    dtypes=FLOAT,
    vjp=lambda g, x, ans, x_shape, dim, keepdim: (
        reductions.unreduce(g, x_shape, dim, keepdim) * _softmax_of(x, ans, x_shape, dim, keepdim)
    ),  # ∂/∂x_i log Σ e^x = e^(x_i - logsumexp(x)) = softmax(x)_i
    jvp=_logsumexp_jvp,
)


def normalize(input, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None):
    """x / max(‖x‖_p over dim, eps) (PyTorch's graph: Div, Expand, ClampMin, norm)."""
    if out is not None:
        raise NotImplementedError("normalize(out=...) is not implemented in chainrule yet")
    norm = reductions.vector_norm(input, ord=p, dim=dim, keepdim=True)
    denom = shapes.expand(binary.clamp_min_scalar(norm, min=eps), shape=tuple(input.shape))
    return input / denom


# ----- weight normalization: w = g·v/‖v‖ --------------------------------------------------


def _other_dims(dim: int, ndim: int) -> tuple:
    """Every dim of an ``ndim``-dim tensor but ``dim``: the norm's dims."""
    return tuple(i for i in range(ndim) if i != dim % max(ndim, 1))


def _sum_except(x, dim):
    """Σ over every dim but ``dim``, keeping dims (x itself where there is no other dim)."""
    dims = _other_dims(dim, x.ndim)
    return reductions.sum(x, dim=dims, keepdim=True) if dims else x


def _weight_norm(v, mag, dim=0):
    """v·mag/‖v‖, the 2-norm over every dim of v but dim (mag has that norm's shape)"""
    dims = _other_dims(dim, v.ndim)
    norm = xp.sqrt(xp.sum(v * v, axis=dims, keepdims=True))
    return v * (mag / norm)


def _weight_norm_dv(g, v, mag, dim):
    """(mag/‖v‖)(g - v·Σ(g·v)/‖v‖²), the sums over every dim but dim"""
    sq = _sum_except(v * v, dim)
    return (mag / unary.sqrt(sq)) * (g - v * (_sum_except(g * v, dim) / sq))


def _weight_norm_dmag(g, v, dim):
    """Σ(g·v)/‖v‖ over every dim but dim"""
    return _sum_except(g * v, dim) / unary.sqrt(_sum_except(v * v, dim))


weight_norm_interface = defop(
    "weight_norm_interface",
    _weight_norm,
    args=("v", "mag"),
    node="WeightNormInterfaceBackward0",
    dtypes=FLOAT,
    vjp=(_weight_norm_dv, _weight_norm_dmag),
    # the Jacobian in v, (mag/‖v‖)(I - v vᵀ/‖v‖²) per slice, is symmetric: J t = tᵀJ
    jvp=(
        _weight_norm_dv,
        lambda t, v, dim: v * t / unary.sqrt(_sum_except(v * v, dim)),  # J t = v·t/‖v‖
    ),
)
