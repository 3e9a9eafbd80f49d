"""Compositions of shape ops against PyTorch (api/parsers/combining.py): broadcast_to,
broadcast_tensors, broadcast_shapes, meshgrid, block_diag, cartesian_prod, combinations,
kron, diff, rot90, vander, repeat_interleave: values, dtypes, gradients, tangents in
float32 and float64, finite differences, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import DT_IDS, FLOATS, L64, NoGrad, R, assert_close, assert_same_error, check, check_fd

CASES = {
    "broadcast_to": (lambda L, x: L.broadcast_to(x, (2, 3, 4)), R(3, 1)),
    "broadcast_to_method_keep": (lambda L, x: x.broadcast_to((-1, 4)), R(3, 1)),
    "broadcast_tensors": (
        lambda L, x, y: L.stack(L.broadcast_tensors(x, y)),
        R(3, 1),
        R(4),
    ),
    "meshgrid_ij": (lambda L, x, y: L.stack(L.meshgrid(x, y, indexing="ij")), R(3), R(3)),
    "meshgrid_xy": (lambda L, x, y: L.stack(L.meshgrid([x, y], indexing="xy")), R(2), R(2)),
    "meshgrid_3": (lambda L, x, y, z: L.meshgrid(x, y, z, indexing="xy")[2], R(2), R(3), R(4)),
    "meshgrid_0d": (lambda L, x, y: L.meshgrid(x, y, indexing="ij")[0], R(), R(3)),
    "block_diag": (lambda L, a, b, c: L.block_diag(a, b, c), R(2, 3), R(), R(4)),
    "block_diag_one": (lambda L, a: L.block_diag(a), R(2, 2)),
    "cartesian_prod": (lambda L, a, b: L.cartesian_prod(a, b), R(3), R(2)),
    "cartesian_prod_3": (lambda L, a, b, c: L.cartesian_prod(a, b, c), R(2), R(2), R(3)),
    "combinations": (lambda L, a: L.combinations(a), R(4)),
    "combinations_r3": (lambda L, a: L.combinations(a, 3), R(5)),
    "combinations_replacement": (lambda L, a: L.combinations(a, 2, True), R(3)),
    "kron": (lambda L, a, b: L.kron(a, b), R(2, 3), R(3, 2)),
    "kron_mixed_dims": (lambda L, a, b: a.kron(b), R(2), R(2, 3, 2)),
    "kron_0d": (lambda L, a, b: L.kron(a, b), R(), R(3)),
    "diff": (lambda L, x: L.diff(x), R(3, 5)),
    "diff_n2_dim0": (lambda L, x: x.diff(n=2, dim=0), R(4, 3)),
    "diff_prepend_append": (
        lambda L, x, p, a: L.diff(x, 1, -1, prepend=p, append=a),
        R(3, 4),
        R(3, 1),
        R(3, 2),
    ),
    "diff_n_too_large": (lambda L, x: L.diff(x, n=5), R(2, 3)),
    "rot90": (lambda L, x: L.rot90(x), R(3, 4)),
    "rot90_k2": (lambda L, x: x.rot90(2, [1, 2]), R(2, 3, 4)),
    "rot90_k3_neg": (lambda L, x: L.rot90(x, -1, (0, 1)), R(3, 4)),
    "rot90_k4": (lambda L, x: L.rot90(x, 4), R(3, 4)),
    "repeat_interleave": (lambda L, x: L.repeat_interleave(x, 2), R(2, 3)),
    "repeat_interleave_dim": (lambda L, x: x.repeat_interleave(3, dim=1), R(2, 3)),
    "repeat_interleave_tensor": (
        lambda L, x, r: L.repeat_interleave(x, r, dim=0),
        R(3, 2),
        L64(1, 0, 2),
    ),
    "repeat_interleave_0d": (lambda L, x: L.repeat_interleave(x, 3), R()),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name, dtype):
    fn, *inputs = CASES[name]
    check(fn, *inputs, dtype=dtype)


# PyTorch's own backward of vander fails (its decomposition writes in place into a tensor
# it saved), so vander's values are compared with torch and its gradients with finite
# differences, at x = 0 too
VANDER = {
    "vander": (lambda L, x: L.vander(x), R(4)),
    "vander_increasing_n": (lambda L, x: L.vander(x, 3, increasing=True), R(4)),
    "vander_zero": (lambda L, x: L.vander(x, 4), np.array([0.0, 1.5, -2.0])),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", list(VANDER))
def test_vander_values_match_torch(name, dtype):
    fn, *inputs = VANDER[name]
    check(fn, *[NoGrad(x) for x in inputs], dtype=dtype)


FD = ["kron", "diff_prepend_append", "block_diag", "rot90_k2", "combinations_r3"]


@pytest.mark.parametrize("name", FD)
def test_finite_differences(name):
    fn, *inputs = CASES[name]
    check_fd(fn, *inputs)


@pytest.mark.parametrize("name", list(VANDER))
def test_vander_finite_differences(name):
    fn, *inputs = VANDER[name]
    check_fd(fn, *inputs)


NO_GRAD = {  # integer and bool inputs: values and dtypes
    "kron_int": (lambda L, a, b: L.kron(a, b), L64([1, 2], [3, 4]), L64(1, -1)),
    "diff_bool": (lambda L, a: L.diff(a), np.array([True, False, False, True])),
    "diff_int": (lambda L, a: L.diff(a, 2), L64(1, 4, 9, 16)),
    "vander_int": (lambda L, a: L.vander(a), L64(1, 2, 3)),
    "vander_bool": (lambda L, a: L.vander(a, 2), np.array([True, False])),
    "vander_n0": (lambda L, a: L.vander(a, 0), L64(1, 2)),
    "repeats_only": (lambda L, r: L.repeat_interleave(r), L64(2, 0, 3)),
    "block_diag_promote": (lambda L, a, b: L.block_diag(a, b), L64([1]), NoGrad(R(2))),
    "combinations_r0": (lambda L, a: L.combinations(a, 0), L64(1, 2)),
    "combinations_r_large": (lambda L, a: L.combinations(a, 3), L64(1, 2)),
    "cartesian_prod_one": (lambda L, a: L.cartesian_prod(a), L64(1, 2)),
    "broadcast_shapes": (lambda L: L.tensor(L.broadcast_shapes((2, 1), 3, (5, 1, 1))),),
    "broadcast_shapes_zero": (lambda L: L.tensor(L.broadcast_shapes((0, 1), (1, 3))),),
    "rot90_int": (lambda L, a: L.rot90(a, 1, [1, 0]), L64([1, 2, 3], [4, 5, 6])),
}


@pytest.mark.parametrize("name", list(NO_GRAD))
def test_no_grad_inputs_match_torch(name):
    fn, *inputs = NO_GRAD[name]
    check(fn, *inputs)


def test_broadcast_shapes_is_a_size():
    assert isinstance(cr.broadcast_shapes((2, 1), (3,)), cr.Size)
    assert cr.broadcast_shapes() == torch.broadcast_shapes() == ()


def test_meshgrid_warns_without_indexing():
    for lib in (cr, torch):
        with pytest.warns(UserWarning, match="indexing argument"):
            out = lib.meshgrid(lib.arange(2), lib.arange(3))
        assert tuple(out[0].shape) == (2, 3)


def test_views_share_memory():
    x = cr.zeros(3, 1)
    y = cr.broadcast_to(x, (2, 3, 4))
    x[1, 0] = 5.0
    assert y[1, 1, 2].item() == 5.0
    a, b = cr.meshgrid(cr.arange(2.0), cr.arange(3.0), indexing="ij")
    assert a.grad_fn is None and np.shares_memory(a.numpy(), a.numpy())


def test_node_names():
    """The nodes PyTorch also records where the composition ends in its op."""
    for fn in (
        lambda L, x: L.broadcast_to(x, (2, 3)),
        lambda L, x: L.meshgrid(x, x, indexing="ij")[0],
        lambda L, x: L.diff(x),
        lambda L, x: L.cartesian_prod(x, x),
        lambda L, x: L.combinations(x),
        lambda L, x: L.repeat_interleave(x, L.tensor([1, 2, 0])),
    ):
        names = [fn(L, L.ones(3, requires_grad=True)).grad_fn.name() for L in (cr, torch)]
        assert names[0] == names[1], names


ERRORS = {
    "broadcast_shapes": lambda L: L.broadcast_shapes((2,), (3,)),
    "broadcast_to": lambda L: L.broadcast_to(L.ones(3), (2, 2)),
    "broadcast_to_fewer": lambda L: L.broadcast_to(L.ones(3, 2), (2,)),
    "broadcast_to_keep": lambda L: L.broadcast_to(L.ones(3, 2), (4, -1, 1)),
    "broadcast_tensors": lambda L: L.broadcast_tensors(L.ones(3), L.ones(2)),
    "expand": lambda L: L.ones(2, 1).expand(3, 1),
    "expand_fewer": lambda L: L.ones(2, 1).expand(3),
    "expand_leading_keep": lambda L: L.ones(2, 1).expand(-1, 2, 3),
    "expand_grad": lambda L: L.ones(2, requires_grad=True).expand((3,)),
    "meshgrid_indexing": lambda L: L.meshgrid(L.ones(2), indexing="foo"),
    "block_diag_3d": lambda L: L.block_diag(L.ones(2), L.ones(1, 2, 3)),
    "combinations_2d": lambda L: L.combinations(L.ones(2, 2)),
    "cartesian_prod_2d": lambda L: L.cartesian_prod(L.ones(2, 2), L.ones(2)),
    "diff_0d": lambda L: L.diff(L.tensor(1.0)),
    "diff_order": lambda L: L.diff(L.ones(3), n=-1),
    "rot90_dims": lambda L: L.rot90(L.ones(2, 2), 1, [0, 1, 2]),
    "rot90_1d": lambda L: L.rot90(L.ones(2)),
    "rot90_same": lambda L: L.rot90(L.ones(2, 2), 1, [0, 0]),
    "vander_2d": lambda L: L.vander(L.ones(2, 2)),
    "vander_negative": lambda L: L.vander(L.ones(2), -1),
    "repeat_negative": lambda L: L.repeat_interleave(L.ones(2), -1),
    "repeat_size": lambda L: L.repeat_interleave(L.ones(3), L.tensor([1, 2])),
    "repeat_2d": lambda L: L.repeat_interleave(L.ones(3), L.ones(2, 2, dtype=L.int64)),
    "repeats_only_negative": lambda L: L.repeat_interleave(L.tensor([1, -1])),
    "repeat_tensor_negative": lambda L: L.repeat_interleave(L.ones(2), L.tensor([1, -1])),
    "repeat_float": lambda L: L.repeat_interleave(L.ones(2), L.tensor([1.0, 1.0])),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name):
    assert_same_error(ERRORS[name])


def test_meshgrid_2d_raises():
    for lib in (cr, torch):
        with pytest.raises(RuntimeError, match="Expected 0D or 1D tensor"):
            lib.meshgrid(lib.ones(2, 2), indexing="ij")


def test_double_backward():
    for fn in (
        lambda L, x: (L.diff(x, 2) ** 2).sum(),
        lambda L, x: (L.kron(x, x) ** 2).sum(),
    ):
        outs = []
        for L in (cr, torch):
            x = L.tensor([0.5, -1.0, 2.0], dtype=L.float64, requires_grad=True)
            (g,) = L.autograd.grad(fn(L, x), x, create_graph=True)
            (h,) = L.autograd.grad(g.sum(), x)
            outs.append((g, h))
        with warnings.catch_warnings():
            assert_close(outs[0], outs[1], 1e-10, 1e-12, requires_grad=False)


def test_broadcast_tensors_gives_back_a_tensor_already_of_the_shape():
    for lib in (torch, cr):
        a = lib.zeros(2, requires_grad=True)
        b = lib.ones((), requires_grad=True)
        x, y = lib.broadcast_tensors(a, b)
        assert x is a and type(y.grad_fn).__name__ == "ExpandBackward0"
