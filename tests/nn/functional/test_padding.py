"""F.pad against PyTorch in every mode: constant (any number of padded dims, a fill value,
negative pads that crop), reflect, replicate and circular (1, 2 and 3 padded dims,
batched and unbatched, negative pads), and torch.constant_pad_nd: values, dtypes,
gradients, forward-mode tangents and node names (ConstantPadNdBackward0,
ReflectionPad2DBackward0, ..., CopySlices for circular) in float32 and float64; finite
differences and second derivatives in float64; PyTorch's errors.
"""

from __future__ import annotations

import numpy as np
import pytest

import cases
from oracle import check, randn, same_bits_as_replaced


def F(lib):
    return lib.nn.functional


def R(*shape, seed=0):
    return randn(shape, seed=seed + sum(shape))


def pad(p, mode="constant", value=None):
    return lambda L, x: F(L).pad(x, p, mode=mode, value=value)


PADS = {
    # constant
    "constant_last": (pad((1, 2)), R(2, 3, 4)),
    "constant_value": (pad((1, 2, 0, 1), value=1.5), R(2, 3, 4)),
    "constant_every_dim": (pad((1, 0, 2, 1, 1, 1)), R(2, 3, 4)),
    "constant_crop": (pad((-1, 2, 1, -2)), R(2, 5, 4)),
    "constant_crop_to_empty": (pad((-2, -2)), R(2, 3, 4)),
    "constant_1d": (pad((2, 3)), R(4)),
    "constant_0d": (pad(()), R()),
    "constant_5d": (pad((1, 1, 0, 2, 1, 0, 1, 1)), R(1, 2, 2, 3, 2)),
    "torch.constant_pad_nd": (lambda L, x: L.constant_pad_nd(x, [1, -1, 2, 0], 0.5), R(2, 4, 3)),
    # reflect
    "reflect_1d": (pad((2, 1), "reflect"), R(2, 3, 5)),
    "reflect_1d_unbatched": (pad((3, 4), "reflect"), R(3, 5)),
    "reflect_2d": (pad((1, 2, 3, 1), "reflect"), R(2, 2, 4, 5)),
    "reflect_2d_unbatched": (pad((2, 0, 1, 1), "reflect"), R(2, 4, 3)),
    "reflect_3d": (pad((1, 1, 2, 0, 1, 2), "reflect"), R(1, 2, 3, 4, 3)),
    "reflect_crop": (pad((-1, 2), "reflect"), R(2, 3, 5)),
    # replicate
    "replicate_1d": (pad((2, 1), "replicate"), R(2, 3, 5)),
    "replicate_1d_wide": (pad((7, 6), "replicate"), R(3, 4)),
    "replicate_2d": (pad((1, 2, 3, 1), "replicate"), R(2, 2, 4, 5)),
    "replicate_3d": (pad((1, 1, 2, 0, 1, 2), "replicate"), R(1, 2, 3, 4, 3)),
    "replicate_3d_unbatched": (pad((0, 1, 1, 0, 2, 2), "replicate"), R(2, 3, 2, 3)),
    "replicate_crop": (pad((2, -1, -1, 1), "replicate"), R(2, 2, 4, 5)),
    # circular
    "circular_1d": (pad((2, 1), "circular"), R(2, 3, 5)),
    "circular_1d_whole": (pad((4, 4), "circular"), R(2, 4)),
    "circular_2d": (pad((1, 2, 3, 1), "circular"), R(2, 2, 4, 5)),
    "circular_3d": (pad((1, 1, 2, 0, 1, 2), "circular"), R(1, 2, 3, 4, 3)),
    "circular_crop": (pad((-1, 2, 2, -1), "circular"), R(2, 2, 4, 5)),
}

SECOND_ORDER = [
    "constant_crop",
    "constant_every_dim",
    "reflect_2d",
    "reflect_3d",
    "replicate_1d_wide",
    "replicate_3d",
    "circular_2d",
    "circular_crop",
]

test_padding_matches_torch = cases.index_matches_torch(PADS)
test_padding_finite_differences = cases.index_finite_differences(PADS, SECOND_ORDER)
test_padding_second_derivatives = cases.index_second_derivatives(PADS, SECOND_ORDER)


def test_integer_inputs():
    x = np.arange(24).reshape(2, 3, 4)
    for mode in ("constant", "reflect", "replicate", "circular"):
        check(pad((1, 2), mode), x)
    check(pad((1, 1), value=2.7), x)  # the value is cast to the input's dtype (2)


# ----- errors -----------------------------------------------------------------------------------

X3 = np.zeros((2, 3, 4))
X4 = np.zeros((2, 3, 4, 5))

ERRORS = {
    "odd_length": (pad((1, 2, 3)), [X3]),
    "too_long": (pad((1,) * 8), [X3]),
    "mode": (pad((1, 1), "wrap"), [X3]),
    "value_with_reflect": (pad((1, 1), "reflect", 2.0), [X3]),
    "crop_too_much": (pad((-3, -2)), [X3]),
    "reflect_1d_input": (pad((1, 1), "reflect"), [np.zeros(4)]),
    "reflect_4d_one_dim": (pad((1, 1), "reflect"), [X4]),
    "reflect_2d_input_two_dims": (pad((1, 1, 1, 1), "reflect"), [np.zeros((3, 4))]),
    "replicate_6d": (pad((1,) * 6, "replicate"), [np.zeros((1, 1, 2, 3, 4, 5))]),
    "circular_1d_input": (pad((1, 1), "circular"), [np.zeros(4)]),
    "reflect_too_wide": (pad((4, 1), "reflect"), [X3]),
    "reflect_too_wide_height": (pad((1, 1, 4, 1), "reflect"), [X4]),
    "reflect_too_wide_width": (pad((1, 5, 1, 1), "reflect"), [X4]),
    "circular_wraps_twice": (pad((1, 1, 5, 1), "circular"), [X4]),
    "reflect_empty_dim": (pad((1, 1), "reflect"), [np.zeros((2, 0, 4))]),
    "replicate_empty_dim": (pad((1, 1, 1, 1), "replicate"), [np.zeros((2, 4, 0, 5))]),
    "reflect_bool": (lambda L, x: F(L).pad(x > 0, (1, 1), mode="reflect"), [X3]),
    "constant_pad_nd_odd": (lambda L, x: L.constant_pad_nd(x, [1, 2, 3]), [X3]),
}

test_errors_match_torch = cases.same_errors_as_torch(ERRORS)


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("mode", ["reflect", "circular", "replicate"])
@pytest.mark.parametrize("pads", [(1, 1, 1, 1), (2, 1, 0, 2), (2, 2, 2, 2)], ids=str)
def test_padding_backward_by_edges_is_the_sorted_sums_bits(monkeypatch, pads, mode, dt):
    """A padding's gradient where x is read once in order plus a few edge positions, each
    on a different input position (windows._padded_run): x's part copied and the edges
    added in add.reduceat's order, the bits of sorting and reduceat (pads wider than that,
    and replication, take that path)."""
    from chainrule.ops import windows

    x = np.random.default_rng(10).standard_normal((2, 3, 6, 5)).astype(dt)
    same_bits_as_replaced(
        monkeypatch,
        windows,
        "_padded_run",
        lambda index, size: None,
        lambda L, t: L.nn.functional.pad(t, pads, mode=mode),
        x,
    )
