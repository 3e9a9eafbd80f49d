"""Normalization layers: batch_norm, layer_norm, group_norm, each one op with PyTorch's fused
backward (NativeBatchNormBackward0, NativeLayerNormBackward0, NativeGroupNormBackward0).

Each normalizes x over a set of dims to x̂ = (x - mean)·invstd, invstd = 1/√(var + eps)
(the biased variance), then scales and shifts it per channel: y = x̂·weight + bias. Over
the normalized dims the map x ↦ x̂ has the symmetric Jacobian
invstd·(I - 1/n - x̂x̂ᵀ/n), so one rule gives both the VJP (applied to g·weight) and the
JVP. Backward recomputes the statistics from x with ops, so second derivatives come from
the same code. On host float arrays the forwards and the VJPs without create_graph take
the fast paths of ``norm_arrays`` (statistics by BLAS, fewest passes), pinned to these
rules. (instance_norm, local_response_norm and rms_norm are compositions:
``api/parsers/norm_layers.py``.)"""

from __future__ import annotations

import math

from .._backend import add_reduce, add_reduce_dims, ndarray, xp
from .._dtypes import not_implemented
from ..autograd import bfloat16
from ..autograd.recording import array_of, defop
from ..autograd.sharing import shared
from . import norm_arrays, reductions, shapes, unary

_batch_axes = norm_arrays.batch_axes  # (every dim but the channels')

# ----- the shared rules ------------------------------------------------------------------------


def normalized(x, axes: tuple, eps: float, stats=None):
    """x̂ = (x - mean)·invstd over ``axes`` and invstd = 1/√(var + eps) (biased variance),
    with ops: on arrays in a forward, recorded on tensors for create_graph. ``stats``, a
    (3, m) array given with a float32 or float64 array x, receives the m means, biased
    variances and invstds (batch_norm's running statistics and backward read them)."""
    if x.__class__ is ndarray:  # arrays: the ops' forwards called directly, x̂ in place
        if x.dtype.char in "fd":  # (mean's steps: its sum, then / n; float16 widens)
            n = math.prod(x.shape[a] for a in axes)
            mean = _sum_over(x, axes) / n
            centred = x - mean
            var = _sum_over(centred * centred, axes) / n
            if stats is not None:
                stats[0] = mean.reshape(-1)
                stats[1] = var.reshape(-1)
                var += eps
                invstd = unary.rsqrt.forward(var)
                stats[2] = invstd.reshape(-1)
                centred *= invstd
                return centred, invstd
        else:
            mean = reductions.mean.forward
            centred = x - mean(x, dim=axes, keepdim=True)
            var = mean(centred * centred, dim=axes, keepdim=True)
        var += eps
        invstd = unary.rsqrt.forward(var)
        centred *= invstd
        return centred, invstd
    centred = x - reductions.mean(x, dim=axes, keepdim=True)
    invstd = unary.rsqrt(reductions.mean(centred * centred, dim=axes, keepdim=True) + eps)
    return centred * invstd, invstd


# the VJPs' x̂ and invstd: computed once for the gradients of x and of the weight (a forward
# writes into its own x̂: it calls normalized itself)
_normalized_once = shared(normalized)


def _sum_over(x, axes: tuple):
    """Σ x over ``axes``, kept as dims, as mean's forward sums (``reductions._mean``): one
    axis by ``_backend.add_reduce`` (BLAS where faster), several by add.reduce."""
    if len(axes) == 1:
        return add_reduce(x, axes[0], True)
    out = add_reduce_dims(x, axes, True)  # (as mean's forward sums several dims)
    return xp.add.reduce(x, axis=axes, keepdims=True) if out is None else out


def _normalize_rule(v, xhat, invstd, axes: tuple):
    """Jᵀv = J v of x ↦ x̂ over ``axes``: invstd·(v - mean v - x̂·mean(v·x̂))"""
    if v.__class__ is ndarray and xhat.__class__ is ndarray and v.dtype.char in "fd":
        # arrays (no create_graph): the line below's steps, mean's own (add.reduce, / n),
        # the temporaries written in place (the same bits: tests/ops/test_norm_arrays.py)
        n = math.prod(v.shape[a] for a in axes)
        out = v - _sum_over(v, axes) / n
        vx = v * xhat
        out -= xhat * (_sum_over(vx, axes) / n)
        out *= invstd
        return out
    return invstd * (
        v
        - reductions.mean(v, dim=axes, keepdim=True)
        - xhat * reductions.mean(v * xhat, dim=axes, keepdim=True)
    )


def _scaled(v, weight, shape):
    """v·weight, weight viewed as ``shape`` to broadcast (v itself without a weight)"""
    return v if weight is None else v * shapes.reshape(weight, shape)


def _affine(xhat, weight, bias, shape):
    """x̂·weight + bias, each viewed as ``shape`` to broadcast"""
    if xhat.__class__ is ndarray:  # a forward's private x̂ (normalized's): written in place
        if weight is not None:
            xhat *= weight.reshape(shape)
        if bias is not None:
            xhat += bias.reshape(shape)
        return xhat
    y = _scaled(xhat, weight, shape)
    return y if bias is None else y + shapes.reshape(bias, shape)


def _norm_dtype(kernel: str):
    """x's dtype (floating only); weight and bias must have it (PyTorch's CPU errors)."""

    def rule(args, params):
        dtype = args[0]._dtype
        if dtype._category != 2:
            raise not_implemented(kernel, dtype)
        for a in args[1:]:
            if a is not None and a._dtype is not dtype:
                raise RuntimeError(mixed_dtypes(dtype))
        return dtype

    return rule


def mixed_dtypes(dtype) -> str:
    """PyTorch's error for a parameter of another dtype than the input's."""
    if dtype.name == "float32":
        return "mixed dtype (CPU): expect parameter to have scalar type of Float"
    return "mixed dtype (CPU): all inputs must share same datatype."


def _channels_bias_grad(g, x_shape, stats):
    """∂/∂bias = Σ g

    Over all dims but 1 (group_norm's and batch_norm's): on arrays, where the forward kept
    its ``stats``, the sums per channel the x rule takes."""
    if stats is not None and g.__class__ is ndarray and g.dtype == stats.dtype:
        return norm_arrays.channel_totals(g, x_shape)
    return reductions.sum(g, dim=_batch_axes(len(x_shape)))


# ----- batch_norm: per channel (dim 1), over the batch and every spatial dim ----------------------


def _channels(ndim: int) -> tuple:
    """The shape a per-channel vector takes to broadcast along dim 1."""
    return (1, -1) + (1,) * (ndim - 2)


def _bn_hat(x, training, eps, running_mean, running_var, stats=None):
    """x̂ and invstd: from the batch in training (its mean and invstd as the forward kept
    them in ``stats``, on arrays), from the running statistics otherwise."""
    ndim = array_of(x).ndim
    if training:
        if stats is not None and x.__class__ is ndarray:  # (the forward's steps, its bits)
            shape = _channels(ndim)
            invstd = stats[2].reshape(shape)
            centred = x - stats[0].reshape(shape)
            centred *= invstd
            return centred, invstd
        return normalized(x, _batch_axes(ndim), eps)
    shape = _channels(ndim)
    # (float16/bfloat16 running statistics are parameters, not widened with x: in float32,
    # as PyTorch's kernel reads them, rather than NumPy's float16 sum rounded)
    running_mean, running_var = bfloat16.wide(running_mean), bfloat16.wide(running_var)
    invstd = unary.rsqrt(running_var.reshape(shape) + eps)
    return (x - running_mean.reshape(shape)) * invstd, invstd


_bn_hat_once = shared(_bn_hat)  # (for the VJPs: once per node)


def _batch_norm(
    x, weight, bias, training=True, eps=1e-5, running_mean=None, running_var=None, stats=None
):
    """(x - mean)/√(var + eps)·weight + bias per channel (dim 1): the batch's mean and
    biased variance over every other dim in training (written into ``stats`` when given),
    the running ones otherwise"""
    if training and stats is not None and x.__class__ is ndarray and x.dtype.char in "fd":
        if x.size > norm_arrays.SHORT:
            if x.shape[0] == 1:  # (one sample, instance_norm's: a group norm, a group a channel)
                return norm_arrays.group_norm(x, weight, bias, x.shape[1], eps, stats)
            return norm_arrays.batch_norm(x, weight, bias, eps, stats)
        xhat, _ = normalized(x, _batch_axes(x.ndim), eps, stats)
    else:
        xhat, _ = _bn_hat(x, training, eps, running_mean, running_var)
    return _affine(xhat, weight, bias, _channels(x.ndim))


def _with_statistics(v, x, weight, stats) -> bool:
    """Whether a norm layer's VJP takes its path on arrays: the forward kept its statistics
    (``stats``), and v, x and the weight (if any) are arrays (backward without
    create_graph), v of x's dtype."""
    return (
        stats is not None
        and v.__class__ is ndarray
        and x.__class__ is ndarray
        and v.dtype == x.dtype
        and (weight is None or weight.__class__ is ndarray)
    )


def _bn_x_rule(v, x, weight, training, eps, running_mean, running_var, stats):
    """training: Jᵀu = invstd·(u - mean u - x̂·mean(u·x̂)) over all dims but 1 (u = v·weight);
    evaluation: v·weight·invstd"""
    if training and _with_statistics(v, x, weight, stats) and x.size:
        if x.shape[0] == 1:  # (as the forward: a group norm)
            return norm_arrays.group_norm_x_rule(v, x, weight, stats)
        return norm_arrays.batch_norm_x_rule(v, x, weight, stats)
    ndim = array_of(x).ndim
    xhat, invstd = _bn_hat_once(x, training, eps, running_mean, running_var, stats)
    u = _scaled(v, weight, _channels(ndim))
    return _normalize_rule(u, xhat, invstd, _batch_axes(ndim)) if training else u * invstd


def _bn_weight_grad(g, x, training, eps, running_mean, running_var, stats):
    """∂/∂weight = Σ g·x̂ over all dims but 1"""
    if training and _with_statistics(g, x, None, stats) and x.size:  # (invstd·Σ g·(x - mean))
        if x.shape[0] == 1:  # (as the forward: a group norm)
            return norm_arrays.group_norm_weight_rule(g, x, stats)
        return stats[2] * norm_arrays.batch_sums(g, x, stats)[1]
    xhat, _ = _bn_hat_once(x, training, eps, running_mean, running_var, stats)
    return reductions.sum(g * xhat, dim=_batch_axes(array_of(x).ndim))


def _bn_weight_tangent(t, x, training, eps, running_mean, running_var, stats):
    """J t = x̂·t per channel"""
    xhat, _ = _bn_hat(x, training, eps, running_mean, running_var, stats)
    return xhat * shapes.reshape(t, _channels(array_of(x).ndim))


batch_norm = defop(
    "batch_norm",
    _batch_norm,
    args=("x", "weight", "bias"),
    node="NativeBatchNormBackward0",
    dtypes=_norm_dtype("batch_norm"),
    vjp=(_bn_x_rule, _bn_weight_grad, _channels_bias_grad),
    jvp=(
        _bn_x_rule,
        _bn_weight_tangent,
        lambda t, x_shape: shapes.reshape(t, _channels(len(x_shape))),  # J t = t per channel
    ),
    shares=True,  # (x̂ once for the gradients of x and of the weight)
)

# ----- layer_norm: over the trailing dims ---------------------------------------------------------


def _trailing(ndim: int, normalized_ndim: int) -> tuple:
    return tuple(range(ndim - normalized_ndim, ndim))


def _layer_norm(x, weight, bias, normalized_ndim=1, eps=1e-5, stats=None):
    """(x - mean)/√(var + eps)·weight + bias, mean and biased variance over the last
    normalized_ndim dims, weight and bias of their shape (the rows' mean, variance and
    invstd written into ``stats`` when given)"""
    if stats is not None and x.__class__ is ndarray and x.dtype.char in "fd":
        if x.size > norm_arrays.SHORT:
            return norm_arrays.layer_norm(x, weight, bias, eps, stats)
        xhat, _ = normalized(x, _trailing(x.ndim, normalized_ndim), eps, stats)
    else:
        xhat, _ = normalized(x, _trailing(x.ndim, normalized_ndim), eps)
    return _affine(xhat, weight, bias, x.shape[x.ndim - normalized_ndim :])


def _ln_x_rule(v, x, weight, normalized_ndim, eps, stats):
    """Jᵀu = invstd·(u - mean u - x̂·mean(u·x̂)) over the normalized dims (u = v·weight)"""
    if _with_statistics(v, x, weight, stats):
        return norm_arrays.layer_norm_x_rule(v, x, weight, stats)
    axes = _trailing(array_of(x).ndim, normalized_ndim)
    xhat, invstd = _normalized_once(x, axes, eps)
    return _normalize_rule(v if weight is None else v * weight, xhat, invstd, axes)


def _ln_x_tangent(t, x, weight, normalized_ndim, eps, stats):
    """J t = weight·invstd·(t - mean t - x̂·mean(t·x̂)) over the normalized dims"""
    axes = _trailing(array_of(x).ndim, normalized_ndim)
    xhat, invstd = normalized(x, axes, eps)
    jt = _normalize_rule(t, xhat, invstd, axes)
    return jt if weight is None else jt * weight


def _leading(ndim: int, normalized_ndim: int) -> tuple:
    return tuple(range(ndim - normalized_ndim))


def _ln_weight_grad(g, x, weight, normalized_ndim, eps, stats):
    """∂/∂weight = Σ g·x̂ over the leading (batch) dims"""
    if _with_statistics(g, x, weight, stats):  # (invstdᵀ (g·(x - mean)): products by BLAS)
        return norm_arrays.row_sums(g, x, weight, stats)[2].reshape(
            x.shape[x.ndim - normalized_ndim :]
        )
    ndim = array_of(x).ndim
    xhat, _ = _normalized_once(x, _trailing(ndim, normalized_ndim), eps)
    return _sum_leading(g * xhat, ndim, normalized_ndim)


def _ln_bias_grad(g, x_shape, normalized_ndim):
    """∂/∂bias = Σ g over the leading dims"""
    if g.__class__ is ndarray and g.size and len(x_shape) > normalized_ndim:  # (BLAS)
        shape = x_shape[len(x_shape) - normalized_ndim :]
        return add_reduce(g.reshape(-1, math.prod(shape)), 0).reshape(shape)
    return _sum_leading(g, len(x_shape), normalized_ndim)


def _sum_leading(v, ndim: int, normalized_ndim: int):
    axes = _leading(ndim, normalized_ndim)
    return reductions.sum(v, dim=axes) if axes else v


layer_norm = defop(
    "layer_norm",
    _layer_norm,
    args=("x", "weight", "bias"),
    node="NativeLayerNormBackward0",
    dtypes=_norm_dtype("LayerNormKernelImpl"),
    vjp=(
        _ln_x_rule,
        _ln_weight_grad,
        _ln_bias_grad,
    ),
    jvp=(
        _ln_x_tangent,
        lambda t, x, normalized_ndim, eps: (
            normalized(x, _trailing(array_of(x).ndim, normalized_ndim), eps)[0] * t
        ),  # J t = x̂·t
        lambda t: t,  # J t = t (broadcast over the leading dims)
    ),
    shares=True,  # (x̂ once for the gradients of x and of the weight)
)

# ----- group_norm: per sample, over groups of channels and the spatial dims ------------------------


def _grouped(x, num_groups):
    """x viewed as (N, groups, the rest): statistics over dim 2"""
    shape = array_of(x).shape  # (the rest's size spelled out: -1 is ambiguous for N = 0)
    return shapes.reshape(x, (shape[0], num_groups, math.prod(shape[1:]) // num_groups))


def _gn_hat(x, num_groups, eps):
    """x̂ (of x's shape) and the grouped x̂ and invstd"""
    xhat, invstd = normalized(_grouped(x, num_groups), (2,), eps)
    return shapes.reshape(xhat, array_of(x).shape), xhat, invstd


_gn_hat_once = shared(_gn_hat)  # (for the VJPs: once per node)


def _group_norm(x, weight, bias, num_groups=1, eps=1e-5, stats=None):
    """(x - mean)/√(var + eps)·weight + bias, mean and biased variance per sample over each
    group of channels and the spatial dims, weight and bias per channel (the groups' mean,
    variance and invstd written into ``stats`` when given)"""
    if stats is not None and x.__class__ is ndarray and x.dtype.char in "fd":
        if x.size > norm_arrays.SHORT:
            return norm_arrays.group_norm(x, weight, bias, num_groups, eps, stats)
        xhat, _ = normalized(x.reshape(x.shape[0], num_groups, -1), (2,), eps, stats)
        return _affine(xhat.reshape(x.shape), weight, bias, _channels(x.ndim))
    xhat, _, _ = _gn_hat(x, num_groups, eps)
    return _affine(xhat, weight, bias, _channels(x.ndim))


def _gn_x_rule(v, x, weight, num_groups, eps, stats):
    """Jᵀu = invstd·(u - mean u - x̂·mean(u·x̂)) over each group (u = v·weight per channel)"""
    if _with_statistics(v, x, weight, stats):
        return norm_arrays.group_norm_x_rule(v, x, weight, stats)
    shape = array_of(x).shape
    _, xhat, invstd = _gn_hat_once(x, num_groups, eps)
    u = _grouped(_scaled(v, weight, _channels(len(shape))), num_groups)
    return shapes.reshape(_normalize_rule(u, xhat, invstd, (2,)), shape)


def _gn_x_tangent(t, x, weight, num_groups, eps, stats):
    """J t = weight·invstd·(t - mean t - x̂·mean(t·x̂)) over each group, weight per channel"""
    shape = array_of(x).shape
    _, xhat, invstd = _gn_hat(x, num_groups, eps)
    jt = shapes.reshape(_normalize_rule(_grouped(t, num_groups), xhat, invstd, (2,)), shape)
    return _scaled(jt, weight, _channels(len(shape)))


def _gn_weight_grad(g, x, weight, num_groups, eps, stats):
    """∂/∂weight = Σ g·x̂ over all dims but 1"""
    if _with_statistics(g, x, weight, stats):  # (= Σ_n invstd·Σ g·(x - mean): the x rule's sums)
        return norm_arrays.group_norm_weight_rule(g, x, stats)
    xhat, _, _ = _gn_hat_once(x, num_groups, eps)
    return reductions.sum(g * xhat, dim=_batch_axes(array_of(x).ndim))


group_norm = defop(
    "group_norm",
    _group_norm,
    args=("x", "weight", "bias"),
    node="NativeGroupNormBackward0",
    dtypes=_norm_dtype("GroupNormKernelImpl"),
    vjp=(_gn_x_rule, _gn_weight_grad, _channels_bias_grad),
    jvp=(
        _gn_x_tangent,
        lambda t, x, num_groups, eps: (
            _gn_hat(x, num_groups, eps)[0] * shapes.reshape(t, _channels(array_of(x).ndim))
        ),  # J t = x̂·t per channel
        lambda t, x_shape: shapes.reshape(t, _channels(len(x_shape))),  # J t = t per channel
    ),
    shares=True,  # (x̂ once for the gradients of x and of the weight)
)
