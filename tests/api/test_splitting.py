"""tensor_split, hsplit, vsplit, dsplit, split_with_sizes, ravel, fliplr, flipud, adjoint and
the mT/mH/H properties against PyTorch (api/parsers/splitting.py): values, gradients and
tangents through every piece in float32 and float64, the pieces' shapes and nodes, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from oracle import DT_IDS, FLOATS, L64, R, assert_same_error, both, check, check_fd


def joined(pieces):
    """The pieces flattened and joined, each weighted by its position (so a wrong cut
    changes the gradient as well as the value)."""
    lib = pieces[0].__class__.__module__.split(".")[0]
    import importlib

    L = importlib.import_module(lib)
    return L.cat([p.reshape(-1) * (i + 1) for i, p in enumerate(pieces)])


SPLITS = {
    "tensor_split_sections": lambda L, x: L.tensor_split(x, 3),
    "tensor_split_uneven": lambda L, x: L.tensor_split(x, 4, dim=1),
    "tensor_split_more_than_size": lambda L, x: x.tensor_split(7),
    "tensor_split_indices": lambda L, x: L.tensor_split(x, [1, 4], dim=1),
    "tensor_split_indices_wrap_clamp": lambda L, x: L.tensor_split(x, (-2, 1, 9)),
    "tensor_split_one_index": lambda L, x: L.tensor_split(x, [2]),
    "tensor_split_no_index": lambda L, x: L.tensor_split(x, []),
    "tensor_split_tensor_sections": lambda L, x: L.tensor_split(x, L.tensor(2)),
    "tensor_split_tensor_indices": lambda L, x: L.tensor_split(x, L.tensor([1, 3]), -1),
    "tensor_split_keyword_sections": lambda L, x: L.tensor_split(x, sections=2),
    "tensor_split_keyword_indices": lambda L, x: L.tensor_split(x, indices=[1], dim=1),
    "hsplit": lambda L, x: L.hsplit(x, 5),
    "hsplit_indices": lambda L, x: x.hsplit([2, 3]),
    "hsplit_1d": lambda L, x: L.hsplit(x.reshape(-1), 4),
    "vsplit": lambda L, x: L.vsplit(x, 2),
    "vsplit_indices": lambda L, x: x.vsplit([1]),
    "dsplit": lambda L, x: L.dsplit(x.reshape(2, 2, 5), 5),
    "dsplit_indices": lambda L, x: x.reshape(2, 5, 2).dsplit([1]),
    "split_with_sizes": lambda L, x: L.split_with_sizes(x, [1, 3]),
    "split_with_sizes_dim": lambda L, x: x.split_with_sizes([2, 0, 3], dim=1),
    "split_with_sizes_keyword": lambda L, x: x.split_with_sizes(split_sizes=[4, 1], dim=-1),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(SPLITS))
def test_splits_match_torch(name, dtype):
    fn = SPLITS[name]
    x = R(4, 5)
    check(lambda L, x: joined(fn(L, x)), x, dtype=dtype)

    def pieces(L):
        t = L.tensor(x, requires_grad=True)
        out = fn(L, t)
        return [(tuple(p.shape), type(p.grad_fn).__name__, p.is_contiguous()) for p in out]

    got, want = both(pieces)
    assert got == want


def test_split_pieces_are_views():
    def f(L):
        x = L.arange(10.0).reshape(5, 2)
        a, b = L.tensor_split(x, [2])
        b.mul_(-1)  # a write into a piece is a write into x
        c, d = x.hsplit(2)
        return [x, a._version, x._version, c.reshape(-1)]

    got, want = both(f)
    np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())
    assert got[1:3] == want[1:3]


def test_split_fd():
    check_fd(lambda L, x: joined(L.tensor_split(x, [1, 3], dim=1)), R(3, 4))


SPLIT_ERRORS = {
    "sections_zero": lambda L: L.tensor_split(L.ones(5, 2), 0),
    "sections_negative": lambda L: L.tensor_split(L.ones(5, 2), -1),
    "tensor_float": lambda L: L.tensor_split(L.ones(5, 2), L.tensor([1.0, 3.0])),
    "tensor_2d": lambda L: L.tensor_split(L.ones(5, 2), L.tensor([[1, 3]])),
    "zero_dim_input": lambda L: L.tensor_split(L.tensor(1.0), 2),
    "bad_dim": lambda L: L.tensor_split(L.ones(5, 2), 2, dim=2),
    "hsplit_not_divisible": lambda L: L.hsplit(L.ones(5, 2), 3),
    "hsplit_0d": lambda L: L.hsplit(L.tensor(1.0), 3),
    "vsplit_1d": lambda L: L.vsplit(L.ones(6), 3),
    "vsplit_not_divisible": lambda L: L.vsplit(L.ones(5, 2), 2),
    "dsplit_2d": lambda L: L.dsplit(L.ones(5, 2), 2),
    "dsplit_tensor": lambda L: L.dsplit(L.ones(2, 2, 4), L.tensor([1])),
    "split_with_sizes_sum": lambda L: L.split_with_sizes(L.ones(5, 2), [2, 2]),
    "split_with_sizes_negative": lambda L: L.split_with_sizes(L.ones(5, 2), [2, -1, 4]),
    "adjoint_1d": lambda L: L.adjoint(L.ones(3)),
    "mH_1d": lambda L: L.ones(3).mH,
    "mT_1d": lambda L: L.ones(3).mT,
    "H_1d": lambda L: L.ones(3).H,
    "H_3d": lambda L: L.ones(3, 2, 2).H,
    "fliplr_1d": lambda L: L.fliplr(L.ones(3)),
    "flipud_0d": lambda L: L.flipud(L.tensor(1.0)),
}


@pytest.mark.parametrize("name", sorted(SPLIT_ERRORS))
def test_split_errors(name):
    assert_same_error(SPLIT_ERRORS[name])


REORDERS = {
    "ravel": (lambda L, x: L.ravel(x), R(3, 4)),
    "ravel_transposed": (lambda L, x: x.t().ravel(), R(3, 4)),
    "ravel_0d": (lambda L, x: x.ravel(), R()),
    "fliplr": (lambda L, x: L.fliplr(x), R(3, 4, 2)),
    "flipud": (lambda L, x: x.flipud(), R(3, 4)),
    "flipud_1d": (lambda L, x: L.flipud(x), R(5)),
    "adjoint": (lambda L, x: L.adjoint(x), R(2, 3, 4)),
    "adjoint_method": (lambda L, x: x.adjoint(), R(3, 4)),
    "mH": (lambda L, x: x.mH, R(2, 3, 4)),
    "mT": (lambda L, x: x.mT, R(3, 4)),
    "H": (lambda L, x: x.H, R(3, 4)),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(REORDERS))
def test_reorders_match_torch(name, dtype):
    fn, *inputs = REORDERS[name]
    result = check(fn, *inputs, dtype=dtype)
    assert type(result.cr_out.grad_fn).__name__ == type(result.torch_out.grad_fn).__name__


def test_reorders_on_integers():
    got, want = both(lambda L: [L.fliplr(L.tensor(L64(1, 2, 3).reshape(1, 3))), L.ravel(
        L.tensor(L64(1, 2)))])  # fmt: skip
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), w.numpy())
        assert str(g.dtype) == str(w.dtype)


def test_H_of_a_0d_tensor_warns_as_torch_does():
    for L in both(lambda L: L)[::1]:
        with pytest.warns(UserWarning, match="Tensor.H is deprecated on 0-D tensors"):
            out = L.tensor(2.0).H
        assert float(out) == 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        both(lambda L: L.ones(2, 2).H)  # no warning on a matrix
