"""Scans along a dim: cumsum, cumprod, cummax, cummin, logcumsumexp.

The VJP of a cumulative sum is the reversed cumulative sum of the gradient; cumprod's is
exact with zeros in the input; logcumsumexp's rules are formed in log space; cummax and
cummin send each gradient to the index they return (repeats add up)."""

from __future__ import annotations

from .._backend import ndarray, running_sums, xp
from .._dtypes import float64, from_numpy_dtype
from ..autograd.recording import KEEP, array_of, contiguous, defop, np_dtype
from . import (
    binary,
    complex_parts,
    copies,
    gather_scatter,
    joining,
    logical,
    reductions,
    shapes,
    sorting,
    unary,
)


def _cumulative_selecting(name: str, node: str, doc: str):
    """cummax / cummin values: entries read at indices that repeat, so gradients add up."""

    def forward(x, index=None, dim=0):
        return sorting._take_along(x, index=index, dim=dim, keepdim=True)

    forward.__doc__ = doc

    def vjp(g, x_shape, index, dim):
        """∂y_i/∂x_j = [index_i = j]: each g_i is added at the entry it was read from"""
        return gather_scatter.scatter_add(xp.zeros(x_shape, dtype=np_dtype(g)), index, g, dim=dim)

    return defop(
        name,
        contiguous(forward),
        dtypes=KEEP,
        node=node,
        vjp=vjp,
        jvp=lambda t, index, dim: sorting.gather_along(
            t, index, dim, True
        ),  # (J t)_i = t_(index_i)
        conventions="The gradient goes to the returned index: among ties, the latest entry "
        "(PyTorch's); after a nan, the latest nan.",
    )


cummax = _cumulative_selecting("cummax", "CummaxBackward0", "the running max along dim")

cummin = _cumulative_selecting("cummin", "CumminBackward0", "the running min along dim")


def _logcumsumexp(x, dim=0):
    """y_i = log Σ_(j≤i) e^(x_j) along dim, accumulated pairwise with logaddexp (stable;
    complex x: PyTorch's complex logaddexp, one step at a time)"""
    if x.ndim == 0:
        return x.copy()
    if x.dtype.kind == "c":
        return _complex_running_logaddexp(x, dim)
    if x.dtype == xp.float32 or x.dtype == xp.float16:
        # accumulated in float64, as PyTorch's CPU kernel: in float32 each step's rounding
        # at the running total's scale adds up along the dim
        return xp.logaddexp.accumulate(x.astype(xp.float64), axis=dim).astype(x.dtype)
    return xp.logaddexp.accumulate(x, axis=dim)


def _complex_running_logaddexp(x, dim: int):
    """y_0 = logaddexp(x_0, -inf), y_i = logaddexp(x_i, y_(i-1)) along dim for complex x
    (no ufunc accumulates the complex logaddexp: one step per entry along dim)"""
    pairwise = binary.logaddexp.forward
    steps = xp.moveaxis(x, dim, 0)
    out = xp.empty_like(steps)
    if steps.shape[0]:  # (PyTorch's start from -inf: y_0 = -inf+0j where x_0 = -inf+bj)
        out[0] = pairwise(steps[0], xp.full(steps.shape[1:], -xp.inf, dtype=steps.dtype))
    for i in range(1, steps.shape[0]):
        out[i] = pairwise(steps[i], out[i - 1])
    return xp.moveaxis(out, 0, dim)


def _exp_differences(x, ans, dim: int):
    """W[..., k, i] = e^(x_k - y_i) for k ≤ i, else 0, with dim moved last: ∂y_i/∂x_k of
    logcumsumexp, as one matrix per slice (complex x: analytic, n² values a slice)"""
    n = array_of(x).ndim
    order = [d for d in range(n) if d != dim] + [dim]
    xs = shapes.permute(x, dims=tuple(order))
    ys = shapes.permute(ans, dims=tuple(order))
    size = array_of(xs).shape[-1]
    below = xp.arange(size).reshape(size, 1) <= xp.arange(size).reshape(1, size)
    lead = array_of(xs).shape[:-1]
    diff = shapes.reshape(xs, lead + (size, 1)) - shapes.reshape(ys, lead + (1, size))
    return logical.where(below, unary.exp(diff), 0.0), order


def _back_to(t, order):
    """t with its dims (permuted by ``order``) put back in place"""
    back = [0] * len(order)
    for i, d in enumerate(order):
        back[d] = i
    return shapes.permute(t, dims=tuple(back))


def _logcumsumexp_complex_vjp(g, x, ans, dim):
    """Σ_(i≥k) g_i e^(x_k - y_i): the analytic rule (the engine conjugates it, see defop)"""
    w, order = _exp_differences(x, ans, dim)
    gs = shapes.permute(g, dims=tuple(order))
    lead = array_of(gs).shape[:-1]
    rows = shapes.reshape(gs, lead + (1, array_of(gs).shape[-1]))
    return _back_to(reductions.sum(w * rows, dim=len(order)), order)


def _logcumsumexp_complex_jvp(t, x, ans, dim):
    """J t = Σ_(k≤i) t_k e^(x_k - y_i), analytic"""
    w, order = _exp_differences(x, ans, dim)
    ts = shapes.permute(t, dims=tuple(order))
    lead = array_of(ts).shape[:-1]
    columns = shapes.reshape(ts, lead + (array_of(ts).shape[-1], 1))
    return _back_to(reductions.sum(w * columns, dim=len(order) - 1), order)


def _log_part(v, positive: bool):
    """log |v| where v has the wanted sign, else the dtype's lowest finite number (not -inf:
    -inf - -inf would be nan in the next derivative)."""
    a = array_of(v)
    keep = a > 0 if positive else a < 0
    lowest = float(xp.finfo(a.dtype).min) if a.dtype.kind == "f" else -1e308
    safe = logical.select(keep, v, 1.0) if positive else logical.select(keep, -v, 1.0)
    return logical.select(keep, unary.log(safe), lowest)


def _logcumsumexp_vjp(g, x, ans, dim):
    """∂y_i/∂x_k = e^(x_k - y_i) for k ≤ i: Σ_(i≥k) g_i e^(x_k - y_i), split by sign of g"""
    if array_of(x).ndim == 0:
        return g
    if complex_parts.is_complex_value(x):
        return _logcumsumexp_complex_vjp(g, x, ans, dim)
    if array_of(x).dtype != xp.float64:
        # formed in float64 and cast back, as the JVP (log|g_i| - y_i rounds at the scale
        # of y in float32)
        dtype = from_numpy_dtype(array_of(x).dtype)
        x, g = copies.to_dtype(x, dtype=float64), copies.to_dtype(g, dtype=float64)
        return copies.to_dtype(_logcumsumexp_vjp(g, x, logcumsumexp(x, dim=dim), dim), dtype=dtype)
    flipped = joining.flip(ans, dims=(dim,))
    total = 0.0
    for positive in (True, False):
        part = joining.flip(_log_part(g, positive), dims=(dim,)) - flipped
        rev = joining.flip(logcumsumexp(part, dim=dim), dims=(dim,))
        term = unary.exp(rev + x)
        total = total + term if positive else total - term
    return total


def _logcumsumexp_jvp(t, x, ans, dim):
    """J t = Σ_(k≤i) t_k e^(x_k - y_i), split by the sign of t"""
    if array_of(x).ndim == 0:
        return t
    if complex_parts.is_complex_value(x):
        return _logcumsumexp_complex_jvp(t, x, ans, dim)
    if array_of(x).dtype != xp.float64:
        # formed in float64 (the tangent is cast back to x's dtype): in float32,
        # log|t_k| + x_k and y_i round at the scale of x (~5e-4 near 1e4), and so
        # would every term, relatively
        x, t = copies.to_dtype(x, dtype=float64), copies.to_dtype(t, dtype=float64)
        ans = logcumsumexp(x, dim=dim)
    pos = logcumsumexp(_log_part(t, True) + x, dim=dim)
    neg = logcumsumexp(_log_part(t, False) + x, dim=dim)
    return unary.exp(pos - ans) - unary.exp(neg - ans)


logcumsumexp = defop(
    "logcumsumexp",
    contiguous(_logcumsumexp),
    dtypes=KEEP,
    vjp=_logcumsumexp_vjp,
    jvp=_logcumsumexp_jvp,
    complex="holomorphic",
    conventions="Stable for large |x|: the sums of the rules are formed in log space. "
    "Complex x: the rules are formed from e^(x_k - y_i) directly (n² values a slice).",
)

# ----- cumsum and cumprod ----------------------------------------------------------------------


def _cum_dtype(x, dtype):
    if dtype is not None:
        return dtype.np
    return xp.int64 if x.dtype.kind in "biu" else x.dtype


def _cumsum(x, dim=0, dtype=None):
    """y_i = Σ_(j≤i) x_j along dim; integers and bools add up in int64; floating and
    complex values from +0, as PyTorch's CPU kernel (float16 in float32, float32 in float64,
    complex64 in complex128)"""
    target = xp.dtype(_cum_dtype(x, dtype))
    if x.ndim == 0:
        return x.astype(target)
    if x.dtype == xp.float32 and target == xp.float32:
        return _float32_sums(x, dim % x.ndim)
    if target.kind not in "fc" or x.dtype.kind == "c" and target.kind != "c":
        return xp.cumsum(x, axis=dim, dtype=target)
    return _sums_from_zero(x, dim % x.ndim, target)


# the types PyTorch's CPU kernel accumulates these in
_WIDER = {
    xp.dtype(xp.float16): xp.dtype(xp.float32),
    xp.dtype(xp.complex64): xp.dtype(xp.complex128),
}


def _sums_from_zero(x, axis: int, target):
    """The running sums of x along axis in ``target`` (a floating or complex type), from +0
    (a -0 becomes +0) and accumulated in PyTorch's wider type where it has one."""
    wide = _WIDER.get(target, target)
    sums = xp.add(x, 0.0, dtype=wide)
    if sums.__class__ is ndarray:
        xp.cumsum(sums, axis=axis, out=sums)
    else:  # (a device's cumsum: not asked to write over its input)
        sums = xp.cumsum(sums, axis=axis)
    return sums if wide == target else sums.astype(target)


def _float32_sums(x, axis: int):
    """The running sums of float32 values as PyTorch's CPU kernel makes them: from +0, in
    float64, each rounded once to float32 (more accurate than NumPy's float32 cumsum, and
    never -0). By blocks and BLAS where ``_backend.running_sums`` takes the array (the same
    float32 values: the two float64 sums differ far below float32's rounding)."""
    sums = running_sums(x, axis)
    if sums is None:
        sums = xp.add(x, 0.0, dtype=xp.float64)  # (+0 added: a -0 becomes +0, PyTorch's start)
        if sums.__class__ is ndarray:
            xp.cumsum(sums, axis=axis, out=sums)
        else:  # (a device's cumsum: not asked to write over its input)
            sums = xp.cumsum(sums, axis=axis)
    return sums.astype(xp.float32)


def _reverse_cumsum(g, dim: int):
    """Σ_(i≥j) g_i along dim: the VJP of a cumulative sum."""
    return joining.flip(cumsum(joining.flip(g, dims=(dim,)), dim=dim), dims=(dim,))


def _cumsum_vjp(g, dim):
    """∂y_i/∂x_j = [j ≤ i]: Σ_(i≥j) g_i"""
    if g.__class__ is ndarray and g.ndim and g.dtype.kind in "fc":
        # arrays: g reversed along dim summed, the same sums in the same order as flip,
        # cumsum, flip (tests/ops/test_scans.py); float32's by blocks on a reversed copy,
        # else without the flips' copies
        axis = dim % g.ndim
        backwards = (slice(None),) * axis + (slice(None, None, -1),)
        if g.dtype == xp.float32:
            sums = _float32_sums(xp.ascontiguousarray(g[backwards]), axis)
            return xp.ascontiguousarray(sums[backwards])
        if g.dtype in _WIDER:
            sums = _sums_from_zero(xp.ascontiguousarray(g[backwards]), axis, g.dtype)
            return xp.ascontiguousarray(sums[backwards])
        out = xp.empty(g.shape, g.dtype)
        xp.add(g[backwards], 0.0, out=out[backwards])  # (from +0, as the forward)
        xp.cumsum(out[backwards], axis=dim, out=out[backwards])
        return out
    return _reverse_cumsum(g, dim)


cumsum = defop(
    "cumsum",
    contiguous(_cumsum),
    dtypes=KEEP,
    vjp=_cumsum_vjp,
    jvp=lambda t, dim, dtype: cumsum(t, dim=dim, dtype=dtype),  # J t = cumsum t
    complex="wirtinger",
)


def _cumprod(x, dim=0, dtype=None):
    """y_i = Π_(j≤i) x_j along dim; integers and bools multiply in int64 (complex: from
    1 + 0i, as PyTorch's kernel, which sets the signs of zeros in the first product)"""
    if x.ndim == 0:
        return x.astype(_cum_dtype(x, dtype))
    target = _cum_dtype(x, dtype)
    if xp.dtype(target).kind == "c" and x.shape[dim]:
        x = x.astype(target)  # (a copy: its first slice is replaced)
        first = (slice(None),) * (dim % x.ndim) + (0,)
        x[first] = x[first] * x.dtype.type(1)
    if target == xp.float32 or target == xp.float16:
        # multiplied in float64, as PyTorch's CPU kernel accumulates: float32 running
        # products gain an ulp of relative error a step); x is cast to target first
        x = x.astype(target, copy=False)
        return xp.cumprod(x, axis=dim, dtype=xp.float64).astype(target)
    return xp.cumprod(x, axis=dim, dtype=target)


def _last_axis_order(ndim: int, dim: int):
    """A permutation moving dim to the end, and its inverse."""
    order = [d for d in range(ndim) if d != dim] + [dim]
    back = [0] * ndim
    for i, d in enumerate(order):
        back[d] = i
    return tuple(order), tuple(back)


def _cumprod_jacobian(xs):
    """W[..., k, i] = ∂y_i/∂x_k = Π_(j≤i, j≠k) x_j for k ≤ i, else 0, along the last dim:
    (Π_(j<k) x_j)(Π_(k<j≤i) x_j), products only, so exact with zeros (n² values a slice)."""
    last = array_of(xs).ndim - 1
    n = array_of(xs).shape[-1]
    k = xp.arange(n).reshape(n, 1)
    i = xp.arange(n).reshape(1, n)
    rows = shapes.reshape(xs, array_of(xs).shape[:-1] + (1, n))
    after_k = cumprod(logical.select(i > k, rows, 1.0), dim=last + 1)  # [k, i] = Π_(k<j≤i) x_j
    before = sorting.shift_along(cumprod(xs, dim=last), dim=last, fill=1.0)  # Π_(j<k) x_j
    before = shapes.reshape(before, array_of(xs).shape + (1,))
    return logical.select(i >= k, before * after_k, 0.0)


def _cumprod_vjp(g, x, ans, dim):
    """∂y_i/∂x_k = Π_(j≤i, j≠k) x_j (k ≤ i): (Σ_(i≥k) g_i y_i) / x_k without zeros"""
    # as PyTorch computes it; with zeros, the Jacobian itself (no division) when the
    # gradient is recorded (create_graph), else PyTorch's linear-time rule. Along a dim of
    # size 1 the output is x itself: the gradient is g, not a function of x (PyTorch's)
    a = array_of(x)
    if a.ndim == 0 or a.shape[dim] == 1:
        return g
    if not (a == 0).any():
        return _reverse_cumsum(g * ans, dim) / x
    if g.__class__ is ndarray:
        return _cumprod_vjp_zeros(g, a, array_of(ans), dim % a.ndim)
    order, back = _last_axis_order(a.ndim, dim)
    w = _cumprod_jacobian(shapes.permute(x, dims=order))
    gs = shapes.permute(g, dims=order)
    gk = shapes.reshape(gs, array_of(gs).shape[:-1] + (1, a.shape[dim]))
    return shapes.permute(reductions.sum(w * gk, dim=a.ndim), dims=back)


def _cumprod_vjp_zeros(g, x, ans, dim: int):
    """The VJP on arrays where a slice holds zeros, by PyTorch's linear-time rule (its
    backward without create_graph): with z and z' a slice's first and second zeros,
    (Σ_(k≤i<z) g_i y_i) / x_k before z; at z, y_(z-1) Σ_(z≤i≤z') g_i Π_(z<j≤i) x_j; after
    z, 0. The products past another zero are left out, not multiplied by 0, so an inf or
    nan beyond it does not reach the gradient (the Jacobian's sums would be nan)."""
    zero = x == 0
    seen = xp.cumsum(zero, axis=dim)
    before = seen == 0  # k < z
    first = zero & (seen == 1)  # k = z
    one = x.dtype.type(1)
    with xp.errstate(all="ignore"):
        head = xp.flip(xp.cumsum(xp.flip(xp.where(before, g * ans, 0), dim), axis=dim), dim)
        head = head / xp.where(before, x, one)
        prefix = xp.prod(xp.where(before, x, one), axis=dim, keepdims=True)  # y_(z-1)
        after = xp.cumprod(xp.where(before | first, one, x), axis=dim)  # Π_(z<j≤i) x_j
        upto = (seen == 1) | zero & (seen == 2)  # z ≤ i ≤ z'
        at = prefix * xp.sum(xp.where(upto, g * after, 0), axis=dim, keepdims=True)
    return xp.where(first, at, xp.where(before, head, 0)).astype(g.dtype, copy=False)


def _cumprod_jvp(t, x, ans, dim):
    """J t = y_i Σ_(k≤i) t_k / x_k without zeros; with zeros, Σ_k (∂y_i/∂x_k) t_k"""
    a = array_of(x)
    if a.ndim == 0 or a.shape[dim] == 1:
        return t
    if not (a == 0).any():
        return ans * cumsum(t / x, dim=dim)
    order, back = _last_axis_order(a.ndim, dim)
    w = _cumprod_jacobian(shapes.permute(x, dims=order))
    ts = shapes.permute(t, dims=order)
    tk = shapes.reshape(ts, array_of(ts).shape + (1,))
    return shapes.permute(reductions.sum(w * tk, dim=a.ndim - 1), dims=back)


cumprod = defop(
    "cumprod",
    contiguous(_cumprod),
    dtypes=KEEP,
    vjp=_cumprod_vjp,
    jvp=lambda t, x, ans, dim, dtype: _cumprod_jvp(t, x, ans, dim),  # J t = Σ_k (∂y_i/∂x_k) t_k
    conventions="Exact with zeros (no division where an entry is 0).",
    complex="holomorphic",
)
