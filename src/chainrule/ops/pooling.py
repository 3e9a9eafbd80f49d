"""Pooling: max pooling (plain and adaptive) as a pick of x at the indices of each window's
max, max unpooling (the indices' values put back), and average pooling (plain and
adaptive) as a separable weighted sum of each window.

- **Max.** The parser finds each window's max and its index (``max_pool_indices``,
  ``adaptive_max_indices``: flat indices into the spatial dims, as PyTorch returns them);
  the op reads x there. Its VJP adds each output's gradient at its index (windows that pick
  the same element add up), so the gradient goes to the index returned, as in PyTorch.
- **Average.** A window's mean is separable: along each spatial dim, a weighted sum of the
  window's taps (``windows.gather_axes``), the weights 1/(the window's length along that
  dim). So average pooling and its VJP are ``windows.axis_gather_pair``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

from .._backend import like, xp
from .._memory_format import follow
from ..autograd.recording import KEEP, defop
from . import copies
from .windows import gather_axes, pad_array, scatter_axes, windows

# ----- output sizes and windows --------------------------------------------------------------


def pool_out_size(n: int, kernel: int, stride: int, pad: int, dilation: int, ceil: bool) -> int:
    """PyTorch's pooling_output_shape: ⌊(n + 2p - d(k-1) - 1 (+ s-1 with ceil))/s⌋ + 1, and
    with ceil one less if the last window would start past the input and its left pad."""
    span = n + 2 * pad - dilation * (kernel - 1) - 1 + (stride - 1 if ceil else 0)
    out = span // stride + 1
    if ceil and (out - 1) * stride >= n + pad:
        out -= 1
    return out


def _flat_strides(spatial: Sequence[int]) -> list[int]:
    """How far apart, in a flattened spatial index, consecutive positions of each dim are."""
    return [math.prod(spatial[i + 1 :]) for i in range(len(spatial))]


def _grid(parts: Sequence[Any]) -> Any:
    """Σ_d parts[d] on the outer grid: parts[d] (a 1-d array) along dim d."""
    nd = len(parts)
    total = xp.zeros((1,) * nd, dtype=xp.int64)
    for d, p in enumerate(parts):
        total = total + xp.asarray(p, dtype=xp.int64).reshape((-1,) + (1,) * (nd - 1 - d))
    return total


def _lowest(dtype) -> Any:
    return -xp.inf if dtype.kind in "fV" else xp.iinfo(dtype).min  # (bfloat16: kind V)


def _running_argmax(candidates, first_index, lowest, floating: bool):
    """The index of the max over the candidates (values, flat index): the first strict max
    in order, and the last nan (PyTorch's `val > max || isnan(val)`)."""
    best = arg = None
    for values, index in candidates:
        if best is None:
            best = xp.full(values.shape, lowest, dtype=values.dtype)
            arg = xp.broadcast_to(first_index, values.shape).copy()
        better = values > best
        if floating:
            better |= values != values
        xp.copyto(best, values, where=better)
        xp.copyto(arg, index, where=better)
    return arg


def max_pool_indices(x: Any, kernel, stride, padding, dilation, ceil_mode: bool) -> Any:
    """The flat spatial index of each window's max (int64, shaped like the output): the
    first maximum among the window's elements inside x, in row-major order, or the last nan
    (PyTorch's choice). The max is taken over strided views of the windows, one per tap."""
    nd = len(kernel)
    spatial = x.shape[x.ndim - nd :]
    out = [
        pool_out_size(n, k, s, p, d, ceil_mode)
        for n, k, s, p, d in zip(spatial, kernel, stride, padding, dilation)
    ]
    lead = x.shape[: x.ndim - nd]
    if not all(out) or not math.prod(lead):
        return xp.zeros(tuple(lead) + tuple(out), dtype=xp.int64)
    # pad with the lowest value: enough on the right for windows that ceil_mode lets run past
    right = [max(p, (o - 1) * s + d * (k - 1) + 1 - n - p)
             for n, k, s, p, d, o in zip(spatial, kernel, stride, padding, dilation, out)]  # fmt: skip
    win = windows(
        pad_array(x, list(zip(padding, right)), _lowest(x.dtype)), kernel, stride, dilation, out
    )  # (..., *kernel, *out)
    every = (slice(None),) * len(lead)
    taps = list(itertools.product(*(range(k) for k in kernel)))
    views = [win[every + tap] for tap in taps]
    best = views[0]
    for v in views[1:]:
        best = xp.maximum(best, v)  # a nan anywhere in the window wins
    # where each window's position p·s - pad + t·d falls inside x, per tap (None: always)
    starts = [xp.arange(o) * s - p for o, s, p in zip(out, stride, padding)]
    inside = _tap_masks(taps, starts, spatial, dilation) if any(padding) or ceil_mode else None
    # the number of the first tap that reaches the max, m_i = [tap i misses it]:
    # m_0 (1 + m_1 (1 + ... (1 + m_{T-2}))), branch-free from the inside out (the last tap
    # needs no test: some tap inside x reaches the max, and if none before it, that one)
    code = xp.full(
        best.shape, min(1, len(taps) - 1), dtype=xp.int8 if len(taps) < 128 else xp.int32
    )
    for i in range(len(taps) - 2, -1, -1):
        miss = views[i] != best
        if inside is not None:
            miss |= ~inside[i]
        if i < len(taps) - 2:
            code += 1
        code *= miss
    if x.dtype.kind in "fV":  # (bfloat16: kind V)
        nan = best != best
        if nan.any():
            for i, v in enumerate(views):  # the last nan writes last
                xp.copyto(code, i, where=nan & (v != v))
    mult = _flat_strides(spatial)
    offsets = xp.array([sum(t * d * m for t, d, m in zip(tap, dilation, mult)) for tap in taps])
    index = xp.take(offsets, code)  # (several times faster than offsets[code])
    index += _grid([st * m for st, m in zip(starts, mult)])
    return index


def empty_windows(spatial, kernel, stride, padding, dilation, out) -> tuple | None:
    """The windows with no tap inside x (padding and ceil_mode can leave a window wholly
    in the padding: its max is -inf), as a bool array of the out shape, and the index
    PyTorch reports for them (each dim's first tap at or past 0, flattened); None where
    every window reads x."""
    empties, firsts = [], []
    for n, k, s, p, d, o in zip(spatial, kernel, stride, padding, dilation, out):
        start = xp.arange(o) * s - p
        first = start + (xp.maximum(-start, 0) + d - 1) // d * d  # (first tap ≥ 0)
        empties.append((first >= n) | (first > start + d * (k - 1)))
        firsts.append(first)
    if not any(e.any() for e in empties):
        return None
    empty = _grid([e.astype(xp.int64) for e in empties]) > 0
    mult = _flat_strides(spatial)
    return empty, _grid([f * m for f, m in zip(firsts, mult)])


def _tap_masks(taps, starts, spatial, dilation) -> list:
    """Per tap, whether it falls inside x for each window (a bool array of the out shape)."""
    masks = []
    for tap in taps:
        pos = [st + t * d for st, t, d in zip(starts, tap, dilation)]
        outside = _grid([((p < 0) | (p >= n)).astype(xp.int64) for p, n in zip(pos, spatial)])
        masks.append(outside == 0)
    return masks


def adaptive_windows(n: int, out: int) -> tuple[Any, Any]:
    """The start and end of each adaptive window: ⌊o·n/out⌋ to ⌈(o+1)·n/out⌉."""
    o = xp.arange(out)
    return (o * n) // out, ((o + 1) * n + out - 1) // out


def adaptive_max_indices(x: Any, output_size: Sequence[int]) -> Any:
    """The flat spatial index of each adaptive window's max (int64, shaped like the output)."""
    nd = len(output_size)
    spatial = x.shape[x.ndim - nd :]
    mult = _flat_strides(spatial)
    bounds = [adaptive_windows(n, o) for n, o in zip(spatial, output_size)]
    longest = [int((e - s).max()) if len(s) else 0 for s, e in bounds]
    lead = x.shape[: x.ndim - nd]
    if not all(output_size) or not math.prod(lead):
        return xp.zeros(tuple(lead) + tuple(output_size), dtype=xp.int64)
    flat = x.reshape(tuple(lead) + (math.prod(spatial),))
    first_index = _grid([s * m for (s, _), m in zip(bounds, mult)])
    lowest = _lowest(x.dtype)

    def candidates():
        for tap in itertools.product(*(range(k) for k in longest)):
            pos = [s + t for (s, _), t in zip(bounds, tap)]
            valid = _grid([(p >= e).astype(xp.int64) for p, (_, e) in zip(pos, bounds)]) == 0
            index = _grid([xp.minimum(p, n - 1) * m for p, n, m in zip(pos, spatial, mult)])
            values = xp.take(flat, index, axis=-1)
            yield xp.where(valid, values, lowest), index

    return _running_argmax(candidates(), first_index, lowest, x.dtype.kind in "fV")


# ----- fractional max pooling: pseudo-random windows -----------------------------------------


def fractional_starts(samples: Any, n_in: int, n_out: int, kernel: int) -> Any:
    """Where each of the n_out windows of ``kernel`` taps starts along a dim of n_in, one
    row per sample u in [0, 1): ⌊(i + u)α⌋ - ⌊uα⌋ for i < n_out - 1 and n_in - kernel for
    the last, α = (n_in - kernel)/(n_out - 1), in the samples' float dtype and truncated
    as PyTorch's kernel does (so the windows are its windows, bit for bit)."""
    u = samples if samples.dtype != xp.float16 else samples.astype(xp.float32)
    starts = xp.empty((u.shape[0], n_out), dtype=xp.int64)
    if n_out > 1:
        alpha = u.dtype.type(n_in - kernel) / u.dtype.type(n_out - 1)
        steps = xp.arange(n_out - 1, dtype=u.dtype)
        first = ((steps[None, :] + u[:, None]) * alpha).astype(xp.int64)
        starts[:, :-1] = first - (u * alpha).astype(xp.int64)[:, None]
    if n_out > 0:
        starts[:, -1] = n_in - kernel
    return starts


def fractional_max_indices(x: Any, kernel: Sequence[int], output_size: Sequence[int],
                           samples: Any) -> Any:  # fmt: skip
    """The flat spatial index of each fractional window's max (int64, shaped like the
    output): x (N, C, *S) or (C, *S), samples (N or more, C, nd) in x's dtype, a plane's
    samples placing its windows as PyTorch's kernels read them: in 2-d the first along
    the width and the second along the height, in 3-d one per dim in order."""
    nd = len(kernel)
    spatial = x.shape[x.ndim - nd :]
    lead = x.shape[: x.ndim - nd]
    planes = math.prod(lead)
    flat = x.reshape(planes, math.prod(spatial))
    u = samples.reshape(-1, nd)[:planes] if x.ndim == nd + 2 else samples[0].reshape(-1, nd)
    mult = _flat_strides(spatial)
    # the start of each window along each dim, per plane: (planes, out_d)
    which = [nd - 1 - d for d in range(nd)] if nd == 2 else list(range(nd))
    starts = [
        fractional_starts(u[:, which[d]], spatial[d], output_size[d], kernel[d]) for d in range(nd)
    ]

    def along(d: int, values: Any) -> Any:  # (planes, out_d) on the plane's output grid
        shape = [planes] + [1] * nd
        shape[d + 1] = output_size[d]
        return values.reshape(shape)

    first_index = sum(along(d, starts[d] * mult[d]) for d in range(nd))
    lowest = _lowest(x.dtype)
    out_shape = (planes, *output_size)

    def candidates():
        for tap in itertools.product(*(range(k) for k in kernel)):
            index = xp.broadcast_to(
                sum(along(d, (starts[d] + tap[d]) * mult[d]) for d in range(nd)), out_shape
            )
            values = xp.take_along_axis(flat, index.reshape(planes, -1), axis=1)
            yield values.reshape(out_shape), index

    if not planes or not math.prod(output_size):
        return xp.zeros(tuple(lead) + tuple(output_size), dtype=xp.int64)
    arg = _running_argmax(candidates(), first_index, lowest, x.dtype.kind in "fV")
    return arg.reshape(tuple(lead) + tuple(output_size))


# ----- picking at indices, and adding back -----------------------------------------------------


def _global(index, spatial: int, plane: int) -> Any:
    """index (..., *out) as indices into the whole flattened array: the i-th plane's
    indices shifted by i·plane."""
    lead = math.prod(index.shape[: index.ndim - spatial])
    flat = index.reshape(lead, math.prod(index.shape[index.ndim - spatial :]))
    return (flat + xp.arange(0, lead * plane, plane)[:, None]).reshape(-1)


def _pick(x, index=None, spatial=2):
    """x[..., index]: the elements of x's spatial dims (flattened) at index"""
    plane = math.prod(x.shape[x.ndim - spatial :])
    picked = xp.take(x.reshape(-1), _global(index, spatial, plane)).reshape(index.shape)
    return follow(picked, index)  # (laid out as the parser laid the indices out)


def _add_at(x, index=None, spatial=2, shape=()):
    """zeros of ``shape`` with each element of x added at its index (repeats add up)"""
    out = xp.zeros(math.prod(shape), dtype=x.dtype)
    plane = math.prod(shape[len(shape) - spatial :])
    xp.add.at(out, _global(index, spatial, plane), x.reshape(-1))
    return follow(out.reshape(shape), index)


def _add_at_input(grad, x, index=None, spatial=2):
    """zeros shaped like x with each element of grad added at its index (repeats add up)"""
    return _add_at(grad, index=index, spatial=spatial, shape=x.shape)


def _put(x, index=None, spatial=2, shape=()):
    """zeros of ``shape`` with each element of x written at its index"""
    out = xp.zeros(math.prod(shape), dtype=x.dtype)
    plane = math.prod(shape[len(shape) - spatial :])
    out[_global(index, spatial, plane)] = x.reshape(-1)
    if spatial == 2:  # (PyTorch's 2-d kernel keeps x's format, its 3-d one writes row-major)
        return follow(out.reshape(shape), x)
    return out.reshape(shape)


def _picking_pair(name: str, node: str, doc: str, conventions: str = "",
                  reads_x: bool = True) -> tuple:  # fmt: skip
    """An op that reads x at indices (``node`` names it, with the spatial dims' count in
    ``{}``), and its transpose, which adds each value back at its index. With ``reads_x``
    the transpose takes x as an input too, constant in it (∂/∂x = 0), as PyTorch's pooling
    backward kernels do: a gradient taken with create_graph then requires grad through x
    (its derivative in x is zero) even where the upstream gradient does not."""

    def forward(x, index=None, spatial=2):
        return _pick(x, index=index, spatial=spatial)

    forward.__doc__ = doc
    backward_node = node + "BackwardBackward0"
    if reads_x:
        pick_vjp = lambda g, x, index, spatial: add(  # noqa: E731
            g, x, index=index, spatial=spatial
        )  # ∂y/∂x = 1 at the picked index: g added back there (repeats add up)
    else:
        pick_vjp = lambda g, x_shape, index, spatial: add(  # noqa: E731
            g, index=index, spatial=spatial, shape=x_shape
        )  # ∂y/∂x = 1 at the picked index: g added back there (repeats add up)
    pick = defop(
        name,
        forward,
        dtypes=KEEP,
        node=lambda x, index=None, spatial=2: node.format(spatial) + "Backward0",
        vjp=pick_vjp,
        jvp=lambda t, index, spatial: pick(t, index=index, spatial=spatial),  # J t = t[index]
        conventions=conventions,
    )
    if reads_x:
        add = defop(
            name + "_backward",
            _add_at_input,
            args=("grad", "x"),
            dtypes=KEEP,
            node=lambda grad, x, index=None, spatial=2: backward_node.format(spatial),
            vjp=(
                lambda g, index, spatial: pick(g, index=index, spatial=spatial),  # Jᵀg = g[index]
                _zero_in_x,
            ),
            jvp=(
                lambda t, x, index, spatial: add(
                    t, x, index=index, spatial=spatial
                ),  # J t = t added at index
                lambda t, x: copies.zero(x),  # J t = 0
            ),
        )
        return pick, add
    add = defop(
        name + "_backward",
        _add_at,
        dtypes=KEEP,
        node=lambda x, index=None, spatial=2, shape=(): backward_node.format(spatial),
        vjp=lambda g, index, spatial: pick(g, index=index, spatial=spatial),  # Jᵀg = g[index]
        jvp=lambda t, index, spatial, shape: add(
            t, index=index, spatial=spatial, shape=shape
        ),  # J t = t added at index
    )
    return pick, add


def _zero_in_x(g, x):
    """∂/∂x = 0: x sets only the shape and where grad goes (piecewise constant in x)"""
    return copies.zero(x)


_AT_INDEX = (
    "The gradient goes to the index returned: the first maximum of the window in row-major "
    "order (or its last nan), as PyTorch; windows that pick the same element add up."
)

max_pool, max_pool_backward = _picking_pair(
    "max_pool",
    "MaxPool{}DWithIndices",
    "each window's max: x at the index of the window's (first) maximum",
    _AT_INDEX,
)

adaptive_max_pool, adaptive_max_pool_backward = _picking_pair(
    "adaptive_max_pool",
    "AdaptiveMaxPool{}D",
    "each adaptive window's max: x at the index of the window's (first) maximum",
    _AT_INDEX,
)

fractional_max_pool, fractional_max_pool_backward = _picking_pair(
    "fractional_max_pool",
    "FractionalMaxPool{}D",
    "each pseudo-random window's max: x at the index of the window's (first) maximum",
    _AT_INDEX,
)

# max_unpool's VJP reads g at the indices (PyTorch's formula, even where indices repeat)
max_unpool_backward, max_unpool_backward_backward = _picking_pair(
    "max_unpool_backward",
    "MaxUnpool{}DBackward",
    "the gradient of max_unpool: g read at the indices",
    reads_x=False,
)

max_unpool = defop(
    "max_unpool",
    _put,
    dtypes=KEEP,
    node=lambda x, index=None, spatial=2, shape=(): f"MaxUnpool{spatial}DBackward0",
    vjp=lambda g, index, spatial: max_unpool_backward(
        g, index=index, spatial=spatial
    ),  # Jᵀg = g read at the indices x was written to
    jvp=lambda t, index, spatial, shape: max_unpool(
        t, index=index, spatial=spatial, shape=shape
    ),  # J t = t written at the indices
    conventions=(
        "Where indices repeat, the last write wins and every repeat gets the gradient (as PyTorch)."
    ),
)

# ----- average pooling: separable window means ---------------------------------------------------


def _taps(index, weight) -> tuple:
    return (xp.asarray(index, dtype=xp.intp), xp.asarray(weight, dtype=xp.float64))


def _avg_windows(shape, kernel, stride, padding, ceil_mode, count_include_pad):
    """Per spatial dim: the positions each window reads (k, out), whether they fall in the
    input, and the window's length (clipped to the padded input with count_include_pad,
    else to the input; at least 1)."""
    nd = len(kernel)
    for n, k, s, p in zip(shape[len(shape) - nd :], kernel, stride, padding):
        out = pool_out_size(n, k, s, p, 1, ceil_mode)
        start = xp.arange(out) * s - p
        pos = start[None, :] + xp.arange(k)[:, None]  # (k, out)
        if count_include_pad:
            length = xp.minimum(start + k, n + p) - start
        else:
            length = xp.minimum(start + k, n) - xp.maximum(start, 0)
        yield xp.clip(pos, 0, max(n - 1, 0)), (pos >= 0) & (pos < n), xp.maximum(length, 1)


def avg_pool_taps(shape, kernel, stride, padding, ceil_mode, count_include_pad,
                  divisor_override) -> tuple:  # fmt: skip
    """The taps of average pooling along each spatial dim: tap t of output o reads
    o·stride - padding + t with weight 1/(the window's length), 0 outside the input. The
    length is the window clipped to the padded input (count_include_pad) or to the input;
    divisor_override replaces their product."""
    taps = []
    for pos, inside, length in _avg_windows(
        shape, kernel, stride, padding, ceil_mode, count_include_pad
    ):
        scale = 1.0 if divisor_override else 1.0 / length
        taps.append(_taps(pos, xp.where(inside, scale, 0.0)))
    if divisor_override:
        index, weight = taps[0]
        taps[0] = (index, weight / divisor_override)
    return tuple(taps)


def integer_avg_pool(x: Any, kernel, stride, padding, ceil_mode, count_include_pad,
                     divisor_override) -> Any:  # fmt: skip
    """Average pooling of int64 x as PyTorch's kernel computes it: each window's integer
    sum divided by the divisor, truncated toward zero (an integer result: no gradient)."""
    taps, divisor = [], xp.ones((), dtype=xp.int64)
    for pos, inside, length in _avg_windows(
        x.shape, kernel, stride, padding, ceil_mode, count_include_pad
    ):
        taps.append((pos.astype(xp.intp), inside.astype(x.dtype)))
        divisor = divisor[..., None] * length  # the outer product of the lengths
    sums = gather_axes(x, taps)  # weights 0 or 1: exact integer sums
    if divisor_override:
        divisor = xp.asarray(divisor_override, dtype=xp.int64)
    divisor = like(sums, divisor)  # (made on the host: to the sums' device)
    quotient = xp.abs(sums) // xp.abs(divisor)
    return (quotient * xp.sign(sums) * xp.sign(divisor)).astype(x.dtype)


def adaptive_avg_taps(shape, output_size) -> tuple:
    """The taps of adaptive average pooling along each spatial dim: window o runs from
    ⌊o·n/out⌋ to ⌈(o+1)·n/out⌉, each tap weighted 1/(its length)."""
    nd = len(output_size)
    taps = []
    for n, out in zip(shape[len(shape) - nd :], output_size):
        start, end = adaptive_windows(n, out)
        length = end - start
        k = int(length.max()) if out else 1
        pos = start[None, :] + xp.arange(k)[:, None]
        valid = pos < end[None, :]
        weight = xp.where(valid, 1.0 / xp.where(length > 0, length, 1)[None, :], 0.0)
        taps.append(_taps(xp.minimum(pos, max(n - 1, 0)), weight))
    return tuple(taps)


def window_sums(x: Any, taps: Sequence) -> Any:
    """``gather_axes``, where a tap of weight 0 (a position outside the window) adds exactly
    0: an inf or NaN it points at must not leak in as 0·inf = NaN. Only an output that is not
    all finite is summed again, tap by tap, without those taps."""
    y = gather_axes(x, taps)
    if x.dtype.kind in "iub" or xp.isfinite(y).all():
        return y
    nd = len(taps)
    for i, (index, weight) in enumerate(taps):
        axis = x.ndim - nd + i
        picked = xp.take(x, like(x, index).reshape(-1), axis=axis)
        picked = picked.reshape(x.shape[:axis] + index.shape + x.shape[axis + 1 :])
        w = like(x, weight).astype(x.dtype).reshape(weight.shape + (1,) * (x.ndim - 1 - axis))
        x = xp.where(w != 0, picked * w, 0).astype(x.dtype).sum(axis=axis)
    return x


def _window_mean_pair(name: str, node: Callable[[int], str], doc: str) -> tuple:
    """A linear op that maps x along its trailing dims by taps (``window_sums``), and its
    transpose (``scatter_axes``), which takes x as an input too, constant in it (∂/∂x = 0),
    as PyTorch's pooling backward kernels do (so a gradient taken with create_graph requires
    grad through x). ``node(nd)`` is PyTorch's node name for ``nd`` mapped dims."""

    def forward(x, taps=()):
        return window_sums(x, taps)

    def adjoint(grad, x, taps=()):
        return scatter_axes(grad, taps, x.shape)

    forward.__doc__ = doc
    adjoint.__doc__ = f"the transpose of {name}: each output summed back into its sources"
    op = defop(
        name,
        forward,
        dtypes=KEEP,
        node=lambda x, taps=(): node(len(taps)),
        vjp=lambda g, x, taps: back(
            g, x, taps=taps
        ),  # Jᵀg = each output's gradient, times its weight, added back where it was taken from
        jvp=lambda t, taps: op(t, taps=taps),  # J t = the same map applied to t (it is linear)
        complex="wirtinger",  # (real weights: linear over the reals)
    )
    back = defop(
        name + "_backward",
        adjoint,
        args=("grad", "x"),
        dtypes=KEEP,
        node=lambda grad, x, taps=(): node(len(taps)).replace("Backward0", "BackwardBackward0"),
        vjp=(
            lambda g, taps: op(g, taps=taps),  # Jᵀg = the forward map applied to g
            _zero_in_x,
        ),
        jvp=(
            lambda t, x, taps: back(t, x, taps=taps),  # J t = the same sum of t
            lambda t, x: copies.zero(x),  # J t = 0
        ),
        complex="wirtinger",
    )
    return op, back


avg_pool, avg_pool_backward = _window_mean_pair(
    "avg_pool",
    lambda nd: f"AvgPool{nd}DBackward0",
    "each window's mean (its sum over the divisor: the window's size, clipped as the "
    "arguments say, or divisor_override)",
)

adaptive_avg_pool, adaptive_avg_pool_backward = _window_mean_pair(
    "adaptive_avg_pool",
    lambda nd: f"AdaptiveAvgPool{nd}DBackward0",
    "each adaptive window's mean: window o along a dim of n runs from ⌊o·n/out⌋ to ⌈(o+1)·n/out⌉",
)
