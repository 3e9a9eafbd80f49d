"""Joining and tiling: cat and stack (ops over a sequence of tensors, one edge
per tensor), repeat, flip, roll.

The VJP of a join cuts the gradient into the inputs' blocks; of repeat, sums the copies; of
flip and roll, flips or rolls it back."""

from __future__ import annotations

from .._backend import ndarray, xp
from ..autograd.recording import KEEP, contiguous, defop
from ..autograd.sequence_op import SequenceOp
from . import indexing, reductions, shapes

# ----- repeat, tile, flip, roll -----------------------------------------------------------


def _repeat(x, repeats=()):
    """x tiled repeats[i] times along dim i (leading size-1 dims added as needed)"""
    return xp.tile(x.reshape((1,) * (len(repeats) - x.ndim) + x.shape), repeats)


def _unrepeat(g, x_shape, repeats):
    """The VJP of repeat: view g as (r0, s0, r1, s1, ...) and sum over the repeats."""
    padded = (1,) * (len(repeats) - len(x_shape)) + tuple(x_shape)
    g = shapes.reshape(g, tuple(v for r, s in zip(repeats, padded) for v in (r, s)))
    if repeats:
        g = reductions.sum(g, dim=tuple(range(0, 2 * len(repeats), 2)))
    return shapes.reshape(g, tuple(x_shape))


repeat = defop(
    "repeat",
    contiguous(_repeat),
    dtypes=KEEP,
    vjp=lambda g, x_shape, repeats: _unrepeat(g, x_shape, repeats),  # Jᵀg = Σ g's copies of x
    jvp=lambda t, repeats: repeat(t, repeats=repeats),  # J t = t repeated
    complex="wirtinger",
)


def _flip(x, dims=()):
    """x reversed along dims (a copy, as in PyTorch)"""
    return xp.flip(x, axis=dims).copy() if x.ndim else x.copy()


flip = defop(
    "flip",
    _flip,
    dtypes=KEEP,
    vjp=lambda g, dims: flip(g, dims=dims),  # Jᵀg = g flipped back (a reversal undoes itself)
    jvp=lambda t, dims: flip(t, dims=dims),  # as the VJP
    complex="wirtinger",
)


def _roll(x, shifts=(), dims=None):
    """x shifted cyclically by shifts along dims (over the flattened tensor when dims is None)"""
    if dims is None:
        return xp.roll(x, shifts[0])
    return xp.roll(x, shifts, axis=dims)


roll = defop(
    "roll",
    contiguous(_roll),
    dtypes=KEEP,
    vjp=lambda g, shifts, dims: roll(
        g, shifts=tuple(-s for s in shifts), dims=dims
    ),  # Jᵀg = g rolled back by -shifts
    jvp=lambda t, shifts, dims: roll(t, shifts=shifts, dims=dims),  # J t = t rolled by shifts
    complex="wirtinger",
)

# ----- cat and stack: ops over a sequence of tensors ---------------------------------------


def _cat(arrays, dim=0, offsets=()):
    """the arrays joined along dim (1-D empty arrays are skipped, as in PyTorch)"""
    kept = [a for a in arrays if not (a.ndim == 1 and a.shape[0] == 0)] or arrays[:1]
    return xp.concatenate(kept, axis=dim)


def _cat_block(g, i: int, dim: int, offsets: tuple):
    """The i-th tensor's block of g along dim. A trailing frozenset in ``offsets`` names
    the 1-D empty tensors the forward skipped: theirs is a 1-D empty block, as in PyTorch."""
    block = indexing.getitem(g, key=shapes._key_of(dim, slice(offsets[i], offsets[i + 1])))
    if offsets[-1].__class__ is frozenset and i in offsets[-1]:
        return shapes.reshape(block, (0,))
    return block


cat = SequenceOp(
    "cat",
    contiguous(_cat),
    node="CatBackward0",
    vjp=lambda g, i, dim, offsets: _cat_block(
        g, i, dim, offsets
    ),  # Jᵢᵀg = the i-th tensor's block of g along dim
    jvp=lambda tangents, dim, offsets: cat(
        tangents, dim=dim, offsets=offsets
    ),  # J t = the tangents joined along dim
    plain=xp.concatenate,  # (the common case: no 1-D empty array to skip)
)


def _stack(arrays, dim=0):
    """the arrays stacked along a new dim"""
    shape = arrays[0].shape if arrays else None
    if shape is not None and all(a.__class__ is ndarray and a.shape == shape for a in arrays):
        return _stack_plain(arrays, dim)
    return xp.stack(arrays, axis=dim)


def _stack_plain(arrays, dim):
    """ndarrays of one shape stacked along a new dim: NumPy's stack without its Python
    wrapper's steps (the same copy)"""
    key = _NEW_AXIS[dim]
    return xp.concatenate([a[key] for a in arrays], axis=dim)


# per dim d, the index that views an array with a size-1 dim inserted at d (NumPy's arrays
# have at most 64 dims)
_NEW_AXIS = tuple((slice(None),) * d + (None,) for d in range(65))


stack = SequenceOp(
    "stack",
    contiguous(_stack),
    node="StackBackward0",
    vjp=lambda g, i, dim: indexing.getitem(
        g, key=shapes._key_of(dim, i)
    ),  # Jᵢᵀg = the i-th slice of g along dim
    jvp=lambda tangents, dim: stack(tangents, dim=dim),  # J t = the tangents stacked along dim
    plain=_stack_plain,
)
