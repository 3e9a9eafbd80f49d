"""Strided convolutions as unstrided ones: the polyphase decomposition.

Along a dim of stride s, where the kernel has k = s·J taps, tap s·j + r reads the padded x
at o·s + s·j + r = s·(o + j) + r: the r-th phase of x (its elements r, r + s, r + 2s, ...)
at position o + j. So the convolution is an unstrided one with J taps of x's s phases,
stacked as channels (space to depth, ``phases``), by the kernel's taps regrouped the same
way (``regroup``). Its transpose in x (``correlate_transpose``) is the unstrided transpose
followed by the phases laid back (``unphase``, depth to space), and the weight's gradient
the unstrided one with its taps laid back (``ungroup``).

The products are the same ones; what changes is how x's windows are copied: NumPy copies
a strided convolution's windows element by element (every s-th one), the phases in long
runs, and the unstrided layouts of ``windows`` are the tuned ones (4x4 kernels at stride 2,
DCGAN's: Conv2d(16, 32) on (16, 16, 32, 32) forward and backward 5.6 -> 5.0 ms, its
ConvTranspose2d(32, 16) 5.8 -> 5.1 ms; PyTorch's 2.5 and 2.6).
Taken where every strided dim's kernel is a multiple of its stride, at least twice it, and
nothing is dilated (``applies``); elsewhere the phases would add zero taps to the products
(or, for a kernel as long as the stride, gain nothing)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

from .._backend import ndarray, xp
from .windows import correlate, correlate_transpose, correlate_weight, out_size


def applies(x: Any, kernel: Sequence[int], stride: Sequence[int], dilation: Sequence[int]) -> bool:
    """Whether the decomposition runs the same products, and is the faster: a host array,
    some stride above 1, no dilation, each strided dim's kernel a multiple of its stride and
    at least twice it (windows as long as the stride do not overlap: the strided windows are
    read once, and are the faster, 1.2x, for DCGAN's k = s = 2)."""
    return (
        x.__class__ is ndarray
        and any(s > 1 for s in stride)
        and all(d == 1 for d in dilation)
        and all(s == 1 or (k % s == 0 and k >= 2 * s) for k, s in zip(kernel, stride))
    )


def _phase_runs(r: int, s: int, p: int, length: int, m: int) -> tuple[slice, slice, int]:
    """Along one dim, phase r's part of x: (the positions of x in it, where they go in the
    phase, how many of x's positions the phase should hold), for x ``length`` long padded by
    ``p`` and a phase ``m`` long."""
    i0 = (r - p) % s  # x's first position i with (i + p) % s == r
    m0 = (i0 + p - r) // s  # ... at this position of the phase
    wanted = max(0, -(-(length - i0) // s))
    count = max(0, min(wanted, m - m0))
    return slice(i0, i0 + s * count, s), slice(m0, m0 + count), wanted - count


def phases(x: Any, stride: Sequence[int], padding: Sequence[int], size: Sequence[int]) -> Any:
    """x (N, C, *L) zero-padded by ``padding`` and split into its phases along each dim:
    X[n, (c, r), m] = x_padded[n, c, s·m + r] (channels outer, phases inner), m < size."""
    n, c = x.shape[:2]
    spatial = x.shape[2:]
    out = xp.zeros((n, c, *stride, *size), dtype=x.dtype)
    for r in itertools.product(*(range(s) for s in stride)):
        runs = [_phase_runs(*a) for a in zip(r, stride, padding, spatial, size)]
        if all(src.stop > src.start for src, _, _ in runs):
            out[(slice(None), slice(None), *r, *(dst for _, dst, _ in runs))] = x[
                (slice(None), slice(None), *(src for src, _, _ in runs))
            ]
    return out.reshape((n, c * math.prod(stride), *size))


def unphase(gx: Any, stride: Sequence[int], padding: Sequence[int], length: Sequence[int]) -> Any:
    """The transpose of ``phases``: gx (N, C·∏s, *M) laid back as (N, C, *length), each
    position taken from its one phase (0 where its phase ends first)."""
    n = gx.shape[0]
    c = gx.shape[1] // math.prod(stride)
    size = gx.shape[2:]
    gx = gx.reshape((n, c, *stride, *size))
    runs_of = {
        r: [_phase_runs(*a) for a in zip(r, stride, padding, length, size)]
        for r in itertools.product(*(range(s) for s in stride))
    }
    short = any(left for runs in runs_of.values() for _, _, left in runs)
    out = (xp.zeros if short else xp.empty)((n, c, *length), dtype=gx.dtype)
    for r, runs in runs_of.items():
        if all(src.stop > src.start for src, _, _ in runs):
            out[(slice(None), slice(None), *(src for src, _, _ in runs))] = gx[
                (slice(None), slice(None), *r, *(dst for _, dst, _ in runs))
            ]
    return out


def regroup(w: Any, stride: Sequence[int]) -> Any:
    """The kernel (F, Cg, *k) as the phases' (F, Cg·∏s, *J), k = s·J:
    W[f, (c, r), j] = w[f, c, s·j + r]."""
    f, cg = w.shape[:2]
    taps = [k // s for k, s in zip(w.shape[2:], stride)]
    nd = len(stride)
    split = w.reshape((f, cg, *itertools.chain(*zip(taps, stride))))  # (F, Cg, J0, s0, ...)
    order = (0, 1, *range(3, 2 + 2 * nd, 2), *range(2, 2 + 2 * nd, 2))
    return xp.ascontiguousarray(split.transpose(order)).reshape((f, cg * math.prod(stride), *taps))


def ungroup(w: Any, stride: Sequence[int]) -> Any:
    """The transpose (and inverse) of ``regroup``: (F, Cg·∏s, *J) as (F, Cg, *k)."""
    f = w.shape[0]
    nd = len(stride)
    taps = w.shape[2:]
    cg = w.shape[1] // math.prod(stride)
    split = w.reshape((f, cg, *stride, *taps))  # (F, Cg, s0, s1, ..., J0, J1, ...)
    order = (0, 1, *itertools.chain(*((2 + nd + d, 2 + d) for d in range(nd))))
    kernel = [j * s for j, s in zip(taps, stride)]
    return xp.ascontiguousarray(split.transpose(order)).reshape((f, cg, *kernel))


def _sizes(spatial, kernel, stride, padding) -> tuple[list[int], list[int]]:
    """The output's length and the phases' length (the output's plus J - 1) per dim."""
    out = [out_size(n, k, s, p, p, 1) for n, k, s, p in zip(spatial, kernel, stride, padding)]
    return out, [o + k // s - 1 for o, k, s in zip(out, kernel, stride)]


def _ones(nd: int) -> tuple:
    return (1,) * nd


def strided_correlate(x: Any, w: Any, stride, padding, groups: int, bias: Any = None) -> Any:
    """``windows.correlate`` undilated at a stride: the unstrided one on x's phases."""
    nd = len(stride)
    _, size = _sizes(x.shape[2:], w.shape[2:], stride, padding)
    cols = phases(x, stride, padding, size)
    return correlate(cols, regroup(w, stride), _ones(nd), (0,) * nd, _ones(nd), groups, bias)


def strided_correlate_transpose(y: Any, w: Any, stride, padding, groups: int,
                                output_padding) -> Any:  # fmt: skip
    """``windows.correlate_transpose`` undilated at a stride: the unstrided one, laid back
    from the phases."""
    nd = len(stride)
    kernel = w.shape[2:]
    gx = correlate_transpose(
        y, regroup(w, stride), _ones(nd), (0,) * nd, _ones(nd), groups, (0,) * nd
    )
    length = [
        (o - 1) * s + k + op - 2 * p
        for o, s, k, op, p in zip(y.shape[2:], stride, kernel, output_padding, padding)
    ]
    return unphase(gx, stride, padding, length)


def strided_correlate_weight(x: Any, y: Any, stride, padding, groups: int, kernel) -> Any:
    """``windows.correlate_weight`` undilated at a stride: the unstrided one on x's phases,
    its taps laid back."""
    nd = len(stride)
    taps = tuple(k // s for k, s in zip(kernel, stride))
    size = [o + j - 1 for o, j in zip(y.shape[2:], taps)]
    cols = phases(x, stride, padding, size)
    gw = correlate_weight(cols, y, _ones(nd), (0,) * nd, _ones(nd), groups, taps)
    return ungroup(gw, stride)
