"""Normalization layers: batch_norm, layer_norm, group_norm, each one op with PyTorch's fused
backward (NativeBatchNormBackward0, NativeLayerNormBackward0, NativeGroupNormBackward0).

Each normalizes x over a set of dims to x̂ = (x - mean)·invstd, invstd = 1/√(var + eps)
(the biased variance), then scales and shifts it per channel: y = x̂·weight + bias. Over
the normalized dims the map x ↦ x̂ has the symmetric Jacobian
invstd·(I - 1/n - x̂x̂ᵀ/n), so one rule gives both the VJP (applied to g·weight) and the
JVP. Backward recomputes the statistics from x with ops, so second derivatives come from
the same code. (instance_norm, local_response_norm and rms_norm are compositions:
``api/parsers/norm_layers.py``.)"""

from __future__ import annotations

import math

from .._backend import add_reduce, add_reduce_dims, ndarray, xp
from .._dtypes import not_implemented
from ..autograd.recording import array_of, defop
from ..autograd.sharing import shared
from . import reductions, shapes, unary

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


# ----- on arrays: the statistics ------------------------------------------------------------------

# On float32 and float64 host arrays (a forward, a backward without create_graph) each layer
# views x as rows and computes its statistics from Σx and Σx² by BLAS (row sums, a dot per
# row) and applies them as numbers per row or per column, in as few passes over x as it can.
#
# Where every group's mean² ≤ var, Σ x² and Σ v·x lose at most about a bit to cancellation
# against mean² and mean·Σ v: var = Σx²/L - mean², y = x·a + (bias - mean·a) (PyTorch's
# kernel), one pass over x fewer each way than forming x - mean first, which the other
# groups need (an input whose mean is far from 0 against its spread).


def _moments(total, squares, count: int, stats) -> bool:
    """mean = Σx/n into ``stats``, and var = Σx²/n - mean² where every group's mean² ≤ var
    (Σx² finite): whether so (else var is the caller's, from x - mean)"""
    mean, var = stats[0], stats[1]
    xp.divide(total, count, out=mean)  # (mean's steps: its sum, then / n)
    xp.divide(squares, count, out=var)
    square = mean * mean
    well = ((square + square <= var) & (var < xp.inf)).all()
    if well:
        var -= square
    return well


def _set_invstd(stats, eps: float) -> None:
    """invstd = 1/√(var + eps) into ``stats`` (rsqrt's steps, in place)"""
    invstd = stats[2]
    xp.add(stats[1], eps, out=invstd)
    xp.sqrt(invstd, out=invstd)
    xp.reciprocal(invstd, out=invstd)


def _well_conditioned(stats) -> bool:
    """Whether every group's mean² ≤ var, finite (the forward's test, on its ``stats``)"""
    mean, var = stats[0], stats[1]
    return bool(((mean * mean <= var) & (var < xp.inf)).all())


class _RowByRow:
    """A block in which NumPy's ufunc buffer is no longer than a row of ``length`` (when it
    is 128 or more): a ufunc between an (R, length) matrix and an (R, 1) column (or any
    longer rows) then runs along each row unbuffered, where NumPy (2.4 measured) first copies
    the column's numbers into its buffer, some twice the time (numpy/numpy#13307). Shorter
    rows keep the buffer: faster there; rows as long as NumPy's buffer (8192) need none."""

    __slots__ = ("size", "old")

    def __init__(self, length: int) -> None:
        self.size = length // 16 * 16 if 128 <= length < 8192 else 0  # (NumPy 1: 16s)

    def __enter__(self) -> None:
        if self.size:
            self.old = xp.setbufsize(self.size)

    def __exit__(self, *exc) -> None:
        if self.size:
            xp.setbufsize(self.old)


def _row_dots(a, b):
    """Σ a·b along the rows of two (R, L) matrices: a BLAS dot per row (matmul of (R, 1, L)
    by (R, L, 1)) for rows of 64 or more, where it beats forming a·b; else a·b summed."""
    if a.shape[1] >= 64:
        return xp.matmul(a[:, None, :], b[:, :, None]).reshape(-1)
    return add_reduce(a * b, 1)


# ----- on arrays: group_norm's rows (instance_norm's too) -----------------------------------------

# x is viewed as rows: (N·groups, L), a group's L values a row, for the statistics; (N, C, S),
# a channel's S values a row, for what is per channel (the weight, the bias, the gradients'
# sums). A row's number meets the row by broadcasting.


def _per_channel(numbers, n: int, c: int, by=None):
    """Each group's number (N·groups of them) for each of its channels, (N, C), times ``by``
    where given (per channel, C, or per sample and channel, (N, C))"""
    groups = numbers.reshape(n, -1, 1)
    if by is None:
        return groups.repeat(c // groups.shape[1], axis=2).reshape(n, c)
    return (groups * by.reshape(by.shape[:-1] + (groups.shape[1], -1))).reshape(n, c)


def _gn_arrays(x, weight, bias, num_groups, eps, stats):
    """``_group_norm`` on a float32 or float64 array: per group of L values mean = Σx/L and
    the biased var into ``stats`` with invstd, then y = (x - mean)·a + bias per channel,
    a = invstd·weight (PyTorch's scale): x·a + (bias - mean·a) where the groups are well
    conditioned, else written into x - mean."""
    n, c = x.shape[:2]
    groups = x.reshape(n * num_groups, -1)
    length = groups.shape[1]
    mean = stats[0]
    with _RowByRow(x.size // (n * c)):
        well = _moments(add_reduce(groups, 1), _row_dots(groups, groups), length, stats)
        if not well:
            centred = groups - mean[:, None]
            xp.divide(_row_dots(centred, centred), length, out=stats[1])
        _set_invstd(stats, eps)
        a = _per_channel(stats[2], n, c, weight)
        if not well:
            rows = centred.reshape(n, c, -1)
            return _affine_rows(rows, a, bias, out=rows).reshape(x.shape)
        shift = _per_channel(mean, n, c, a)  # (mean·a, then bias - mean·a)
        if bias is None:
            xp.negative(shift, out=shift)
        else:
            xp.subtract(bias, shift, out=shift)
        return _affine_rows(x.reshape(n, c, -1), a, shift).reshape(x.shape)


def _affine_rows(rows, a, shift, out=None):
    """rows·a + shift for (N, C, S) rows, a per sample and channel (N, C), shift per channel
    (C) or per sample and channel (N, C) or None"""
    y = xp.multiply(rows, a[:, :, None], out=out)
    if shift is not None:
        y += shift[..., None]
    return y


@shared
def _channel_sums(v, shape: tuple):
    """Σ v per sample and channel over the spatial dims of an input of ``shape``, (N, C)"""
    n, c = shape[:2]
    return add_reduce(v.reshape(n * c, -1), 1).reshape(n, c)


@shared
def _gn_channel_sums(v, x, stats):
    """Per sample and channel Σ v and Σ v·(x - mean) over the spatial dims, (N, C) each,
    and x - mean as (N·groups, L) rows where formed (groups not well conditioned; else
    None), the x rule's to write into: no other VJP reads it. What the gradients of x, of
    the weight and of the bias share."""
    n, c = x.shape[:2]
    v2 = v.reshape(n * c, -1)
    s1 = _channel_sums(v, x.shape)
    if _well_conditioned(stats):  # (Σ v·x - mean·Σ v)
        s2 = _row_dots(v2, x.reshape(n * c, -1)).reshape(n, c)
        s2 -= _per_channel(stats[0], n, c, s1)
        return s1, s2, None
    groups = x.reshape(stats.shape[1], -1)
    with _RowByRow(groups.shape[1]):
        centred = groups - stats[0][:, None]
    return s1, _row_dots(v2, centred.reshape(n * c, -1)).reshape(n, c), centred


def _gn_x_rule_arrays(v, x, weight, stats):
    """``_gn_x_rule`` on arrays from the channels' sums: Jᵀv = a·v - (k1 + k2·(x - mean)),
    a = weight·invstd per sample and channel, k1 = invstd·Σu/L and k2 = invstd³·Σ u·(x -
    mean)/L per group of L values (u = v·weight; x̂ = (x - mean)·invstd substituted)"""
    n, c = x.shape[:2]
    s1, s2, centred = _gn_channel_sums(v, x, stats)
    mean, invstd = stats[0], stats[2]
    if weight is not None:
        s1, s2 = s1 * weight, s2 * weight
    size = x.size // invstd.size
    k1 = invstd * (xp.add.reduce(s1.reshape(invstd.size, -1), 1) / size)
    k2 = invstd * invstd * invstd * (xp.add.reduce(s2.reshape(invstd.size, -1), 1) / size)
    with _RowByRow(x.size // (n * c)):
        if centred is None:  # (k2·x + (k1 - k2·mean))
            k1 -= k2 * mean
            shifts = x.reshape(invstd.size, -1) * k2[:, None]
        else:  # (in the x rule's own x - mean)
            shifts = centred
            shifts *= k2[:, None]
        shifts += k1[:, None]
        out = v.reshape(n, c, -1) * _per_channel(invstd, n, c, weight)[:, :, None]
    out -= shifts.reshape(out.shape)
    return out.reshape(x.shape)


def _gn_weight_arrays(g, x, stats):
    """``_gn_weight_grad`` on arrays: Σ_n invstd·Σ g·(x - mean), the x rule's sums"""
    n, c = x.shape[:2]
    s2 = _gn_channel_sums(g, x, stats)[1]
    return xp.add.reduce(_per_channel(stats[2], n, c, s2), 0)


def _channels_bias_grad(g, x_shape, stats):
    """∂/∂bias = Σ g

    Over all dims but 1 (group_norm's and batch_norm's): on arrays, where the forward kept
    its ``stats``, the sums per channel the x rule takes."""
    if stats is not None and g.__class__ is ndarray and g.dtype == stats.dtype:
        return _channel_totals(g, x_shape)
    return reductions.sum(g, dim=_batch_axes(len(x_shape)))


@shared
def _channel_totals(v, shape: tuple):
    """Σ v per channel over every dim but 1 of an input of ``shape``, (C,): from the sums per
    sample and channel that group_norm's x rule shares"""
    if len(shape) == 2:
        return add_reduce(v, 0)
    return add_reduce(_channel_sums(v, shape), 0)


# ----- on arrays: batch_norm's channels --------------------------------------------------------

# x (N, C, S...) is viewed as rows of k whole samples, (N/k, k·C·S), as long as N allows up
# to _ROW values: a channel's number, repeated over its S values and the k samples once
# (``_spread``), meets every row alike, a product along long rows (NumPy's cost per row,
# numpy/numpy#13307, paid N/k times). The statistics: Σx and Σx² per channel (per sample and
# channel by BLAS, then over the samples).

_ROW = 1 << 13  # (rows of samples up to NumPy's ufunc buffer: from there none is needed)


def _samples_per_row(shape: tuple) -> int:
    """k, the samples in a row: the greatest divisor of N whose samples fill at most _ROW
    values (1 at least)"""
    n = shape[0]
    most = max(1, _ROW * n // max(math.prod(shape), 1))
    if most >= n:
        return n
    k = math.gcd(n, most)  # (a batch of a power of 2: the greatest already)
    if 2 * k >= most:
        return k
    pairs = (i for i in range(1, math.isqrt(n) + 1) if n % i == 0)
    return max(d for i in pairs for d in (i, n // i) if d <= most)


def _spread(numbers, shape: tuple, k: int):
    """Per channel ``numbers``, (C,) or (m, C), as rows of k samples of ``shape``: each
    repeated over its channel's values, the whole k times ((k·C·S,) or (m, k·C·S))"""
    lead = numbers.shape[:-1]
    out = xp.empty(lead + (k, shape[1], math.prod(shape[2:])), numbers.dtype)
    out[...] = numbers[..., None, :, None]
    return out.reshape(lead + (-1,))


def _totals(v):
    """Σ v per channel (dim 1) over every other dim, (C,): per sample and channel by BLAS,
    then over the samples"""
    if v.ndim == 2:
        return add_reduce(v, 0)
    n, c = v.shape[:2]
    return add_reduce(add_reduce(v.reshape(n * c, -1), 1).reshape(n, c), 0)


def _bn_arrays(x, weight, bias, eps, stats):
    """``_batch_norm`` in training on a float32 or float64 array of 2 samples or more: per
    channel mean = Σx/n and the biased var into ``stats`` with invstd, then y = (x - mean)·a
    + bias, a = invstd·weight: x·a + (bias - mean·a) where the channels are well
    conditioned, else written into x - mean."""
    k = _samples_per_row(x.shape)
    rows = x.reshape(x.shape[0] // k, -1)
    y = xp.multiply(rows, rows)  # (x², then y written over it)
    count = x.size // x.shape[1]
    mean, invstd = stats[0], stats[2]
    well = _moments(_totals(x), _totals(y.reshape(x.shape)), count, stats)
    with _RowByRow(rows.shape[1]):
        if not well:
            centred = xp.subtract(rows, _spread(mean, x.shape, k), out=y)
            xp.divide(_totals((centred * centred).reshape(x.shape)), count, out=stats[1])
        _set_invstd(stats, eps)
        numbers = xp.empty((2, x.shape[1]), x.dtype)  # (a, then the shift)
        a, shift = numbers
        if weight is None:
            a[...] = invstd
        else:
            xp.multiply(invstd, weight, out=a)
        if well:  # (bias - mean·a)
            xp.multiply(mean, a, out=shift)
            if bias is None:
                xp.negative(shift, out=shift)
            else:
                xp.subtract(bias, shift, out=shift)
        elif bias is not None:
            shift[...] = bias
        a, shift = _spread(numbers, x.shape, k)
        xp.multiply(rows if well else y, a, out=y)
        if well or bias is not None:
            y += shift
    return y.reshape(x.shape)


@shared
def _bn_batch_sums(v, x, stats):
    """Σ v and Σ v·(x - mean) per channel, (C,) each, an array of x's size as rows of samples,
    the x rule's to write into (no other VJP reads it), and whether the channels are well
    conditioned: the array v·x if so, else x - mean. What the gradients of x, of the weight
    and of the bias share."""
    s1 = _channel_totals(v, x.shape)
    mean = stats[0]
    k = _samples_per_row(x.shape)
    rows = x.reshape(x.shape[0] // k, -1)
    if _well_conditioned(stats):  # (Σ v·x - mean·Σ v)
        vx = xp.multiply(v.reshape(rows.shape), rows)
        s2 = _totals(vx.reshape(x.shape))
        s2 -= mean * s1
        return s1, s2, vx, True
    with _RowByRow(rows.shape[1]):
        centred = rows - _spread(mean, x.shape, k)
    return s1, _totals((v.reshape(rows.shape) * centred).reshape(x.shape)), centred, False


def _bn_x_rule_arrays(v, x, weight, stats):
    """``_bn_x_rule`` in training on arrays from the channels' sums, PyTorch's kernel:
    Jᵀv = (v - Σv/n - (x - mean)·invstd²·Σ v·(x - mean)/n)·invstd·weight per channel of n
    values (x̂ = (x - mean)·invstd substituted)"""
    s1, s2, room, well = _bn_batch_sums(v, x, stats)
    mean, invstd = stats[0], stats[2]
    count = x.size // x.shape[1]
    numbers = xp.empty((3, x.shape[1]), x.dtype)  # (k2, k1, the scale)
    k2, k1, a = numbers
    xp.divide(s1, count, out=k1)
    xp.multiply(invstd * invstd, s2 / count, out=k2)
    if weight is None:
        a[...] = invstd
    else:
        xp.multiply(invstd, weight, out=a)
    if well:  # (k2·x + (k1 - k2·mean))
        k1 -= k2 * mean
    k = _samples_per_row(x.shape)
    k2, k1, a = _spread(numbers, x.shape, k)
    with _RowByRow(room.shape[1]):
        out = xp.multiply(x.reshape(room.shape) if well else room, k2, out=room)
        out += k1
        xp.subtract(v.reshape(out.shape), out, out=out)
        out *= a
    return out.reshape(x.shape)


# ----- batch_norm: per channel (dim 1), over the batch and every spatial dim ----------------------


def _channels(ndim: int) -> tuple:
    """The shape a per-channel vector takes to broadcast along dim 1."""
    return (1, -1) + (1,) * (ndim - 2)


def _batch_axes(ndim: int) -> tuple:
    return (0,) + tuple(range(2, ndim))


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
        if x.shape[0] == 1:  # (one sample, instance_norm's: a group norm, a group a channel)
            return _gn_arrays(x, weight, bias, x.shape[1], eps, stats)
        if x.size:
            return _bn_arrays(x, weight, bias, eps, stats)
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
            return _gn_x_rule_arrays(v, x, weight, stats)
        return _bn_x_rule_arrays(v, x, weight, stats)
    ndim = array_of(x).ndim
    xhat, invstd = _bn_hat_once(x, training, eps, running_mean, running_var, stats)
    u = _scaled(v, weight, _channels(ndim))
    return _normalize_rule(u, xhat, invstd, _batch_axes(ndim)) if training else u * invstd


def _bn_weight_grad(g, x, training, eps, running_mean, running_var, stats):
    """∂/∂weight = Σ g·x̂ over all dims but 1"""
    if training and _with_statistics(g, x, None, stats) and x.size:  # (invstd·Σ g·(x - mean))
        if x.shape[0] == 1:  # (as the forward: a group norm)
            return _gn_weight_arrays(g, x, stats)
        return stats[2] * _bn_batch_sums(g, x, stats)[1]
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
        return _ln_arrays(x, weight, bias, eps, stats)
    xhat, _ = normalized(x, _trailing(x.ndim, normalized_ndim), eps)
    return _affine(xhat, weight, bias, x.shape[x.ndim - normalized_ndim :])


# On arrays x is viewed as rows (R, L), the normalized values of a row together: a row's
# numbers (mean, invstd) and a column's (weight, bias) meet as outer products, each made by
# one BLAS product (``_outer_sum``), where a product along rows as short as a transformer's
# pays NumPy's cost per row (numpy/numpy#13307): y = x·(invstd⊗weight) + (1⊗bias -
# (mean·invstd)⊗weight) where every row's mean² ≤ var, else from x - mean.


def _outer_sum(u1, v1, u2=None, v2=None, out=None):
    """u1⊗v1 + u2⊗v2 (or u1⊗v1), (R, L) from R- and L-vectors (into ``out`` where given):
    one BLAS product of an (R, 2) by a (2, L) matrix (NumPy multiplies over an inner length
    of 1 without BLAS, some ten times slower)"""
    left = xp.empty((u1.shape[0], 2), u1.dtype)
    right = xp.empty((2, v1.shape[0]), u1.dtype)
    left[:, 0], right[0] = u1, v1
    if u2 is None:
        left[:, 1], right[1] = 0, 0
    else:
        left[:, 1], right[1] = u2, v2
    return xp.matmul(left, right, out=out)


def _ln_arrays(x, weight, bias, eps, stats):
    """``_layer_norm`` on a float32 or float64 array: per row of L values mean = Σx/L and
    the biased var into ``stats`` with invstd, then y = (x - mean)·(invstd⊗weight) + bias:
    x·(invstd⊗weight) + (1⊗bias - (mean·invstd)⊗weight) where the rows are well
    conditioned, else written into x - mean."""
    mean, invstd = stats[0], stats[2]
    rows = x.reshape(mean.shape[0], -1)
    length = rows.shape[1]
    well = _moments(add_reduce(rows, 1), _row_dots(rows, rows), length, stats)
    if not well:
        with _RowByRow(length):
            centred = rows - mean[:, None]
        xp.divide(_row_dots(centred, centred), length, out=stats[1])
    _set_invstd(stats, eps)
    w = xp.ones(length, x.dtype) if weight is None else weight.reshape(-1)
    y = _outer_sum(invstd, w)
    y *= rows if well else centred
    ones = None if bias is None else xp.ones(mean.shape[0], x.dtype)
    b = None if bias is None else bias.reshape(-1)
    if well:
        y += _outer_sum(-mean * invstd, w, ones, b)
    elif bias is not None:
        y += b
    return y.reshape(x.shape)


@shared
def _ln_row_sums(v, x, weight, stats):
    """Per row Σ u and Σ u·(x - mean) (u = v·weight), with a weight its gradient Σ over the
    rows of v·x̂, x - mean as (R, L) rows where formed (rows not well conditioned; else
    None), and room of x's size the x rule may write into (x - mean or v·x): what the
    gradients of x and of the weight share (products with the weight: BLAS)"""
    mean, invstd = stats[0], stats[2]
    x2, v2 = x.reshape(mean.shape[0], -1), v.reshape(mean.shape[0], -1)
    well = _well_conditioned(stats)
    centred = None
    if not well:
        with _RowByRow(x2.shape[1]):
            centred = x2 - mean[:, None]
    vx = v2 * (x2 if well else centred)  # (v·x, or v·(x - mean))
    if weight is None:
        s1, s2, weight_grad = add_reduce(v2, 1), add_reduce(vx, 1), None
    else:
        w = weight.reshape(-1)
        s1, s2 = v2 @ w, vx @ w
        weight_grad = invstd @ vx  # (Σ invstd·v·x, less Σ (mean·invstd)·v)
        if well:
            weight_grad -= (mean * invstd) @ v2
    if well:
        s2 -= mean * s1
    return s1, s2, weight_grad, centred, (vx if well else centred)


def _ln_x_rule_arrays(v, x, weight, stats):
    """``_ln_x_rule`` on arrays from the rows' sums: Jᵀv = invstd·u - (k1 + k2·(x - mean)),
    u = v·weight, k1 = invstd·Σu/L and k2 = invstd³·Σ u·(x - mean)/L per row of L values
    (x̂ = (x - mean)·invstd substituted)"""
    s1, s2, _, centred, room = _ln_row_sums(v, x, weight, stats)
    mean, invstd = stats[0], stats[2]
    rows = x.reshape(mean.shape[0], -1)
    length = rows.shape[1]
    k1 = invstd * (s1 / length)
    k2 = invstd * invstd * invstd * (s2 / length)
    ones = xp.ones(length, x.dtype)
    out = _outer_sum(invstd, ones if weight is None else weight.reshape(-1))
    out *= v.reshape(rows.shape)
    if centred is None:  # (k2·x + (k1 - k2·mean))
        k1 -= k2 * mean
        shifts = xp.multiply(rows, _outer_sum(k2, ones, out=room), out=room)
    else:  # (in the x rule's own x - mean)
        shifts = centred
        shifts *= _outer_sum(k2, ones)
    out -= shifts
    out -= _outer_sum(k1, ones, out=room)
    return out.reshape(x.shape)


def _ln_x_rule(v, x, weight, normalized_ndim, eps, stats):
    """Jᵀu = invstd·(u - mean u - x̂·mean(u·x̂)) over the normalized dims (u = v·weight)"""
    if _with_statistics(v, x, weight, stats):
        return _ln_x_rule_arrays(v, x, weight, stats)
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
        return _ln_row_sums(g, x, weight, stats)[2].reshape(x.shape[x.ndim - normalized_ndim :])
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
    shape = array_of(x).shape
    return shapes.reshape(x, (shape[0], num_groups, -1))


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
        return _gn_arrays(x, weight, bias, num_groups, eps, stats)
    xhat, _, _ = _gn_hat(x, num_groups, eps)
    return _affine(xhat, weight, bias, _channels(x.ndim))


def _gn_x_rule(v, x, weight, num_groups, eps, stats):
    """Jᵀu = invstd·(u - mean u - x̂·mean(u·x̂)) over each group (u = v·weight per channel)"""
    if _with_statistics(v, x, weight, stats):
        return _gn_x_rule_arrays(v, x, weight, stats)
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
        return _gn_weight_arrays(g, x, stats)
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
