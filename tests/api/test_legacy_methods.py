"""The legacy Tensor methods against PyTorch: ``new`` (the legacy constructor in self's
dtype), the Python element loops ``apply_``, ``map_`` and ``map2_`` (values, dtype
conversion of the callback's results, PyTorch's errors), and ``output_nr``, ``name``,
``is_pinned()``, ``is_shared()``."""

from __future__ import annotations

import pytest
import torch

import chainrule as cr
from oracle import compare, error_of


def test_element_loops_match_torch():
    def run(L):
        x = L.tensor([1.0, 2.0, 3.0])
        a = x.clone().apply_(lambda v: v * 2)
        m = x.clone().map_(L.tensor([1.0, -1.0, 0.5]), lambda u, v: u * v + 1)
        m2 = x.clone().map2_(L.ones(3), L.tensor([2.0]), lambda u, v, w: u + v * w)
        n = L.ones(2, 3, dtype=L.long).apply_(lambda v: v / 2 + 3)
        b = L.tensor([True, False]).apply_(lambda v: not v)
        return [a, m, m2, n, b]

    compare(run)


def test_new_and_attributes_match_torch():
    def run(L):
        x = L.tensor([1.0, 2.0, 3.0], dtype=L.float64)
        w = L.ones(2, 2, requires_grad=True)
        parts = (w * 2).unbind()
        return [
            x.new(2, 3).shape,
            x.new([1, 2]),
            x.new().shape,
            x.new(L.Size([4])).shape,
            str(L.ones(2, dtype=L.long).new([1.5]).dtype),
            [x.output_nr, parts[0].output_nr, parts[1].output_nr],
            [x.name, x.is_pinned(), x.is_shared()],
            [x.clone().share_memory_().tolist(), x.share_memory_() is x],
        ]

    compare(run)


@pytest.mark.parametrize(
    "case",
    ["apply_grad", "map_grad_other", "map_shape", "apply_str", "new_str"],
)
def test_errors_match_torch(case):
    def run(L):
        x = L.tensor([1.0, 2.0, 3.0])
        z = L.ones(2, requires_grad=True)
        if case == "apply_grad":
            z.apply_(lambda v: v)
        if case == "map_grad_other":
            x[:2].map_(z, lambda a, b: a)
        if case == "map_shape":
            x.map_(L.ones(2), lambda a, b: a)
        if case == "apply_str":
            x.apply_(lambda v: "a")
        if case == "new_str":
            x.new("a")

    mine, theirs = error_of(run, cr), error_of(run, torch)
    assert (type(mine), str(mine)) == (type(theirs), str(theirs))


def test_set_resize_and_record_stream_match_torch():
    """set_ shares another tensor's (or a storage's) memory, the deprecated resize and
    resize_as view the tensor with another shape (same number of elements), with PyTorch's
    warnings and errors."""
    import warnings

    def run(L):
        x = L.arange(6.0)
        y = L.zeros(2).set_(x)
        y.add_(1)
        z = L.zeros(3).set_(x.untyped_storage(), 1, (2, 2), (2, 1))
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            r = L.arange(4.0).resize(2, 2)
            ra = L.arange(4.0).resize_as(L.zeros(2, 2))
        said = [str(w.message) for w in seen]
        return [x, y, y.is_set_to(x), z, L.zeros(3).set_(), r, ra, said]

    compare(run)
    for code in (
        lambda L: L.arange(4.0).resize_as(L.zeros(3)),
        lambda L: L.arange(4.0).record_stream(None),
        lambda L: L.ones(2, requires_grad=True).set_(L.zeros(3)),
        lambda L: L.zeros(2).set_(L.arange(3)),
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got, expected = error_of(code, cr), error_of(code, torch)
        assert type(got) is type(expected) and str(got) == str(expected)
