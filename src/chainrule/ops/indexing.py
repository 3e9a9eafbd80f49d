"""indexing: TODO docstring."""

from __future__ import annotations

import math

import numpy

from .._backend import xp
from ..autograd.recording import KEEP, array_of, defop
from . import shapes

# ----- masked_fill, masked_select, take ---------------------------------------------------


def _masked_fill(x, mask, value=0.0):
    """x with value where mask is True (mask broadcasts)"""
    return xp.where(mask, xp.asarray(value, dtype=x.dtype), x)


masked_fill = defop(
    "masked_fill",
    _masked_fill,
    args=("x", "mask"),
    dtypes=KEEP,
    vjp=(lambda g, mask: masked_fill(g, mask, value=0.0), None),  # filled places lose x
    jvp=(lambda t, mask: masked_fill(t, mask, value=0.0), None),
)


def _masked_fill_tensor(x, mask, value):
    """x with the 0-d value where mask is True (mask broadcasts)"""
    return xp.where(mask, value.astype(x.dtype), x)


masked_fill_tensor = defop(
    "masked_fill_tensor",
    _masked_fill_tensor,
    args=("x", "mask", "value"),
    dtypes=KEEP,
    node="MaskedFillBackward1",
    vjp=(
        lambda g, mask: masked_fill(g, mask, value=0.0),
        None,
        lambda g, mask: masked_fill(g, ~mask, value=0.0),  # summed to the 0-d value
    ),
    jvp=(
        lambda t, mask: masked_fill(t, mask, value=0.0),
        None,
        lambda t, mask: t * mask,
    ),
)


def _masked_select(x, mask):
    """x's elements where mask is True, in order, as a 1-D tensor (both broadcast)"""
    x, mask = xp.broadcast_arrays(x, mask)
    return x[mask]


def _unmask(g, x_shape, mask):
    """The VJP of masked_select: g put back where the mask is True, in mask's broadcast shape."""
    shape = numpy.broadcast_shapes(tuple(x_shape), array_of(mask).shape)
    return shapes.index_into_zeros(g, shape=shape, key=xp.broadcast_to(array_of(mask), shape))


masked_select = defop(
    "masked_select",
    _masked_select,
    args=("x", "mask"),
    dtypes=KEEP,
    vjp=(lambda g, x_shape, mask: _unmask(g, x_shape, mask), None),
    jvp=(lambda t, mask: masked_select(t, mask), None),
)


def _take(x, index):
    """x's elements at index (into the flattened x), in index's shape"""
    return x.reshape(-1)[index]


take = defop(
    "take",
    _take,
    args=("x", "index"),
    dtypes=KEEP,
    vjp=(
        lambda g, x_shape, index: shapes.reshape(
            shapes.index_into_zeros(g, shape=(math.prod(x_shape),), key=array_of(index)), x_shape
        ),  # repeated indices add up
        None,
    ),
    jvp=(lambda t, index: take(t, index), None),
)
