"""Normalization layers on host float32 and float64 arrays: the fast paths of
``norm_layers``' forwards and VJPs (a forward, or a backward without create_graph), pinned
there to the rules written with ops (tests/nn/functional/test_normalization.py).

Each layer views x as rows and computes its statistics from Σx and Σx² by BLAS (row sums,
a dot per row), then applies them as numbers per row or per column in as few passes over x
as it can; the statistics go into the ``stats`` buffer (mean, biased variance, invstd) the
parser gives the op, for the running statistics and the backward."""

from __future__ import annotations

import math

from .._backend import add_reduce, xp
from ..autograd.sharing import shared

# Up to this many values the rows by BLAS cost more to set up than they save: norm_layers'
# forwards keep ``normalized``'s few calls there, and batch norm's x rule broadcasts its
# channels' numbers (layer norm on (4, 5) 9.8 against 17.8 µs, (128, 64) 21 against 24,
# (64, 256) 30 against 29; batch norm on (64, 32) 23 against 36)
SHORT = 1 << 13


def batch_axes(ndim: int) -> tuple:
    """Every dim but the channels' (dim 1)."""
    return (0,) + tuple(range(2, ndim))


# ----- the statistics ----------------------------------------------------------------------------

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


def well_conditioned(stats) -> bool:
    """Whether every group's mean² ≤ var, finite (the forward's test, on its ``stats``)"""
    mean, var = stats[0], stats[1]
    return bool(((mean * mean <= var) & (var < xp.inf)).all())


class RowByRow:
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


# ----- group_norm's rows (instance_norm's too) ----------------------------------------------------

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


def group_norm(x, weight, bias, num_groups, eps, stats):
    """``_group_norm`` on a float32 or float64 array: per group of L values mean = Σx/L and
    the biased var into ``stats`` with invstd, then y = (x - mean)·a + bias per channel,
    a = invstd·weight (PyTorch's scale): x·a + (bias - mean·a) where the groups are well
    conditioned, else written into x - mean."""
    n, c = x.shape[:2]
    groups = x.reshape(n * num_groups, -1)
    length = groups.shape[1]
    mean = stats[0]
    with RowByRow(x.size // (n * c)):
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
def channel_sums(v, shape: tuple):
    """Σ v per sample and channel over the spatial dims of an input of ``shape``, (N, C)"""
    n, c = shape[:2]
    return add_reduce(v.reshape(n * c, v.size // (n * c) if n * c else 0), 1).reshape(n, c)


@shared
def group_channel_sums(v, x, stats):
    """Per sample and channel Σ v and Σ v·(x - mean) over the spatial dims, (N, C) each,
    and x - mean as (N·groups, L) rows where formed (groups not well conditioned; else
    None), the x rule's to write into: no other VJP reads it. What the gradients of x, of
    the weight and of the bias share."""
    n, c = x.shape[:2]
    v2 = v.reshape(n * c, -1)
    s1 = channel_sums(v, x.shape)
    if well_conditioned(stats):  # (Σ v·x - mean·Σ v)
        s2 = _row_dots(v2, x.reshape(n * c, -1)).reshape(n, c)
        s2 -= _per_channel(stats[0], n, c, s1)
        return s1, s2, None
    groups = x.reshape(stats.shape[1], -1)
    with RowByRow(groups.shape[1]):
        centred = groups - stats[0][:, None]
    return s1, _row_dots(v2, centred.reshape(n * c, -1)).reshape(n, c), centred


def group_norm_x_rule(v, x, weight, stats):
    """``_gn_x_rule`` on arrays from the channels' sums: Jᵀv = a·v - (k1 + k2·(x - mean)),
    a = weight·invstd per sample and channel, k1 = invstd·Σu/L and k2 = invstd³·Σ u·(x -
    mean)/L per group of L values (u = v·weight; x̂ = (x - mean)·invstd substituted)"""
    n, c = x.shape[:2]
    s1, s2, centred = group_channel_sums(v, x, stats)
    mean, invstd = stats[0], stats[2]
    if weight is not None:
        s1, s2 = s1 * weight, s2 * weight
    size = x.size // invstd.size
    k1 = invstd * (xp.add.reduce(s1.reshape(invstd.size, -1), 1) / size)
    k2 = invstd * invstd * invstd * (xp.add.reduce(s2.reshape(invstd.size, -1), 1) / size)
    with RowByRow(x.size // (n * c)):
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


def group_norm_weight_rule(g, x, stats):
    """``_gn_weight_grad`` on arrays: Σ_n invstd·Σ g·(x - mean), the x rule's sums"""
    n, c = x.shape[:2]
    s2 = group_channel_sums(g, x, stats)[1]
    return xp.add.reduce(_per_channel(stats[2], n, c, s2), 0)


@shared
def channel_totals(v, shape: tuple):
    """Σ v per channel over every dim but 1 of an input of ``shape``, (C,): from the sums per
    sample and channel that group_norm's x rule shares"""
    if len(shape) == 2:
        return add_reduce(v, 0)
    return add_reduce(channel_sums(v, shape), 0)


# ----- batch_norm's channels ---------------------------------------------------------------------

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


def batch_norm(x, weight, bias, eps, stats):
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
    with RowByRow(rows.shape[1]):
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
def batch_sums(v, x, stats):
    """Σ v and Σ v·(x - mean) per channel, (C,) each, an array of x's size as rows of samples,
    the x rule's to write into (no other VJP reads it), and whether the channels are well
    conditioned: the array v·x if so, else x - mean. What the gradients of x, of the weight
    and of the bias share."""
    s1 = channel_totals(v, x.shape)
    mean = stats[0]
    k = _samples_per_row(x.shape)
    rows = x.reshape(x.shape[0] // k, -1)
    if well_conditioned(stats):  # (Σ v·x - mean·Σ v)
        vx = xp.multiply(v.reshape(rows.shape), rows)
        s2 = _totals(vx.reshape(x.shape))
        s2 -= mean * s1
        return s1, s2, vx, True
    with RowByRow(rows.shape[1]):
        centred = rows - _spread(mean, x.shape, k)
    return s1, _totals((v.reshape(rows.shape) * centred).reshape(x.shape)), centred, False


def batch_norm_x_rule(v, x, weight, stats):
    """``_bn_x_rule`` in training on arrays from the channels' sums, PyTorch's kernel:
    Jᵀv = (v - Σv/n - (x - mean)·invstd²·Σ v·(x - mean)/n)·invstd·weight per channel of n
    values (x̂ = (x - mean)·invstd substituted)"""
    s1, s2, room, well = batch_sums(v, x, stats)
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
    if x.size <= SHORT:  # (few values: the numbers broadcast, fewer calls)
        k2, k1, a = numbers.reshape((3, 1, -1) + (1,) * (x.ndim - 2))
        out = xp.multiply(x if well else room.reshape(x.shape), k2)
        out += k1
        xp.subtract(v, out, out=out)
        out *= a
        return out
    k = _samples_per_row(x.shape)
    k2, k1, a = _spread(numbers, x.shape, k)
    with RowByRow(room.shape[1]):
        out = xp.multiply(x.reshape(room.shape) if well else room, k2, out=room)
        out += k1
        xp.subtract(v.reshape(out.shape), out, out=out)
        out *= a
    return out.reshape(x.shape)


# ----- layer_norm's rows --------------------------------------------------------------------------

# On arrays x is viewed as rows (R, L), the normalized values of a row together: a row's
# numbers (mean, invstd) and a column's (weight, bias) meet as outer products, each made by
# one BLAS product (``_outer_sum``), where a product along rows as short as a transformer's
# pays NumPy's cost per row (numpy/numpy#13307): y = x·(invstd⊗weight) + (1⊗bias -
# (mean·invstd)⊗weight) where every row's mean² ≤ var, else from x - mean.


_SMALL = 1 << 12  # (entries of an outer product made by broadcasting)


def _outer_sum(u1, v1, u2=None, v2=None, out=None):
    """u1⊗v1 + u2⊗v2 (or u1⊗v1), (R, L) from R- and L-vectors (into ``out`` where given):
    one BLAS product of an (R, 2) by a (2, L) matrix (NumPy multiplies over an inner length
    of 1 without BLAS, some ten times slower); below _SMALL entries by broadcasting (the
    product's setup costs more there: a (4, 5) layer norm's backward 25 -> 14 µs)"""
    if u1.shape[0] * v1.shape[0] < _SMALL:
        made = xp.multiply(u1[:, None], v1, out=out)
        if u2 is not None:
            made += u2[:, None] * v2
        return made
    left = xp.empty((u1.shape[0], 2), u1.dtype)
    right = xp.empty((2, v1.shape[0]), u1.dtype)
    left[:, 0], right[0] = u1, v1
    if u2 is None:
        left[:, 1], right[1] = 0, 0
    else:
        left[:, 1], right[1] = u2, v2
    return xp.matmul(left, right, out=out)


def layer_norm(x, weight, bias, eps, stats):
    """``_layer_norm`` on a float32 or float64 array: per row of L values mean = Σx/L and
    the biased var into ``stats`` with invstd, then y = (x - mean)·(invstd⊗weight) + bias:
    x·(invstd⊗weight) + (1⊗bias - (mean·invstd)⊗weight) where the rows are well
    conditioned, else written into x - mean."""
    mean, invstd = stats[0], stats[2]
    rows = x.reshape(mean.shape[0], -1)
    length = rows.shape[1]
    well = _moments(add_reduce(rows, 1), _row_dots(rows, rows), length, stats)
    if not well:
        with RowByRow(length):
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
def row_sums(v, x, weight, stats):
    """Per row Σ u and Σ u·(x - mean) (u = v·weight), with a weight its gradient Σ over the
    rows of v·x̂, x - mean as (R, L) rows where formed (rows not well conditioned; else
    None), and room of x's size the x rule may write into (x - mean or v·x): what the
    gradients of x and of the weight share (products with the weight: BLAS)"""
    mean, invstd = stats[0], stats[2]
    x2, v2 = x.reshape(mean.shape[0], -1), v.reshape(mean.shape[0], -1)
    well = well_conditioned(stats)
    centred = None
    if not well:
        with RowByRow(x2.shape[1]):
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


def layer_norm_x_rule(v, x, weight, stats):
    """``_ln_x_rule`` on arrays from the rows' sums: Jᵀv = invstd·u - (k1 + k2·(x - mean)),
    u = v·weight, k1 = invstd·Σu/L and k2 = invstd³·Σ u·(x - mean)/L per row of L values
    (x̂ = (x - mean)·invstd substituted)"""
    s1, s2, _, centred, room = row_sums(v, x, weight, stats)
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
