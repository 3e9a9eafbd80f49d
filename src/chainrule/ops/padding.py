"""Padding: ``constant_pad_nd`` (any number of dims; negative pads crop), and padding by
reflection, replication and wrapping around (``reflection_pad``, ``replication_pad``,
``circular_pad``, each with its transpose).

``pad`` is PyTorch's flat list, last dim first: (before, after) of the last dim, then of
the one before it, ... The non-constant modes are gathers along each padded dim (an index
map per dim, ``windows.gather_axes``), so their VJPs sum each output's gradient back into
the element it copies (``windows.scatter_axes``)."""

from __future__ import annotations

from collections.abc import Sequence

from .._backend import xp
from ..autograd.recording import KEEP, defop
from .windows import axis_gather_pair

# ----- constant ------------------------------------------------------------------------------


def pairs(pad: Sequence[int], ndim: int) -> list[tuple[int, int]]:
    """PyTorch's flat pad (last dim first) as (before, after) per dim of an ndim array."""
    n = len(pad) // 2
    out = [(0, 0)] * (ndim - n)
    return out + [(pad[2 * (n - 1 - i)], pad[2 * (n - 1 - i) + 1]) for i in range(n)]


def _constant_pad_nd(x, pad=(), value=0.0):
    """x with pad[2i] elements of value before and pad[2i+1] after its i-th dim from the end
    (a negative pad crops that many instead)"""
    widths = pairs(pad, x.ndim)
    crop = tuple(slice(max(-lo, 0), n - max(-hi, 0)) for (lo, hi), n in zip(widths, x.shape))
    x = x[crop]
    grow = [(max(lo, 0), max(hi, 0)) for lo, hi in widths]
    if not any(lo or hi for lo, hi in grow):
        return x.copy()
    fill = xp.asarray(value).astype(x.dtype) if x.dtype.kind in "biu" else value
    # (a filled array with x written inside: what np.pad does, without its Python, 25 µs)
    out = xp.empty(tuple(n + lo + hi for n, (lo, hi) in zip(x.shape, grow)), dtype=x.dtype)
    out.fill(fill)
    out[tuple(slice(lo, lo + n) for n, (lo, _) in zip(x.shape, grow))] = x
    return out


constant_pad_nd = defop(
    "constant_pad_nd",
    _constant_pad_nd,
    dtypes=KEEP,
    node="ConstantPadNdBackward0",
    vjp=lambda g, pad: constant_pad_nd(
        g, pad=tuple(-p for p in pad), value=0.0
    ),  # Jᵀg = g cropped by the pads (and padded with 0 where x was cropped)
    jvp=lambda t, pad: constant_pad_nd(t, pad=pad, value=0.0),  # J t = t padded with 0
    conventions="The padding is constant: it has no gradient (value is a number, not a tensor).",
    complex="wirtinger",
)

# ----- reflection, replication, wrapping around ---------------------------------------------


def _index_taps(indices: list) -> tuple:
    """(index, None) per dim: one unweighted gather along each."""
    return tuple((xp.asarray(i, dtype=xp.intp)[None, :], None) for i in indices)


def reflect_taps(shape: Sequence[int], pad: Sequence[int]) -> tuple:
    """The gathers of reflection padding: j ↦ the mirror image of j - before in 0..n-1,
    about the first and the last element (which are not repeated)."""
    nd = len(pad) // 2
    widths = pairs(pad, nd)
    return _index_taps(
        [
            n - 1 - xp.abs(n - 1 - xp.abs(xp.arange(-lo, n + hi)))
            for (lo, hi), n in zip(widths, shape[len(shape) - nd :])
        ]
    )


def replicate_taps(shape: Sequence[int], pad: Sequence[int]) -> tuple:
    """The gathers of replication padding: j ↦ j - before clipped to 0..n-1."""
    nd = len(pad) // 2
    widths = pairs(pad, nd)
    return _index_taps(
        [
            xp.clip(xp.arange(-lo, n + hi), 0, n - 1)
            for (lo, hi), n in zip(widths, shape[len(shape) - nd :])
        ]
    )


def circular_taps(shape: Sequence[int], pad: Sequence[int]) -> tuple:
    """The gathers of circular padding: crop by the negative pads, then j ↦ (j - before)
    modulo the cropped length (the pads wrap around the cropped part)."""
    nd = len(pad) // 2
    widths = pairs(pad, nd)
    indices = []
    for (lo, hi), n in zip(widths, shape[len(shape) - nd :]):
        start, kept = max(-lo, 0), n - max(-lo, 0) - max(-hi, 0)
        j = xp.arange(kept + max(lo, 0) + max(hi, 0)) - max(lo, 0)
        indices.append(start + (j % kept if kept > 0 else j))
    return _index_taps(indices)


reflection_pad, reflection_pad_backward = axis_gather_pair(
    "reflection_pad",
    lambda nd: f"ReflectionPad{nd}DBackward0",
    "x padded by its mirror image about the edges (edge elements not repeated)",
)

replication_pad, replication_pad_backward = axis_gather_pair(
    "replication_pad",
    lambda nd: f"ReplicationPad{nd}DBackward0",
    "x padded by repeating its edge elements",
)

circular_pad, circular_pad_backward = axis_gather_pair(
    "circular_pad",
    lambda nd: "CopySlices",
    "x padded by wrapping around: the start's elements after the end, the end's before the start",
)
