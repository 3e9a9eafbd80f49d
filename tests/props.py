"""Hypothesis strategies and settings shared by the property tests (random shapes,
broadcasting shape pairs, dims and keepdim): chainrule's forward values and gradients must
equal PyTorch's (float64) on all of them.

Shapes come from Hypothesis; values from a NumPy generator seeded by Hypothesis, so a
failing example shrinks to a small shape and a reproducible seed.
"""

from __future__ import annotations

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

SETTINGS = settings(max_examples=40, deadline=None)

seeds = st.integers(0, 2**32 - 1)

shapes = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4)

nonempty_shapes = hnp.array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=4)

broadcast_pairs = hnp.mutually_broadcastable_shapes(
    num_shapes=2, min_dims=0, max_dims=4, min_side=0, max_side=4
)


def values_for(shape, seed: int, kind: str) -> np.ndarray:
    r = np.random.default_rng(seed)
    if kind == "positive":
        return np.asarray(r.uniform(0.3, 2.5, shape))
    if kind == "nonzero":
        return np.asarray(r.uniform(0.5, 2.0, shape) * r.choice([-1.0, 1.0], shape))
    return np.asarray(r.standard_normal(shape))


@st.composite
def shape_and_dim(draw, base=shapes):
    """A shape and a ``dim`` for it: None, an int or a tuple of distinct dims, negatives too."""
    shape = draw(base)
    n = len(shape)
    if n == 0:
        dim = draw(st.sampled_from([None, 0, -1]))
        return shape, dim
    axes = st.integers(-n, n - 1)
    dim = draw(
        st.one_of(
            st.none(),
            axes,
            st.lists(axes, min_size=1, max_size=n, unique_by=lambda d: d % n).map(tuple),
        )
    )
    return shape, dim


@st.composite
def shape_and_dims(draw, max_dims=3):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=max_dims)))
    ndim = len(shape)
    dims = draw(
        st.lists(
            st.integers(-ndim, ndim - 1), min_size=1, max_size=ndim, unique_by=lambda d: d % ndim
        )
    )
    keepdim = draw(st.booleans())
    seed = draw(st.integers(0, 2**16))
    return shape, tuple(dims), keepdim, seed
