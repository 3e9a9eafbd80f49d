"""Shape ops against PyTorch: view, reshape, expand, permute, transpose, t, squeeze,
unsqueeze, movedim, flatten, unflatten, narrow, select, split, chunk, unbind, unfold,
atleast_*d, contiguous, and their in-place forms (``squeeze_``, ``t_``, ...).

Values, dtypes, node names and gradients (float32 and float64, negative dims, 0-d and
empty tensors), finite differences, tangents, second derivatives, errors and messages.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import cases
import chainrule as cr
from chainrule import _backend
from oracle import (
    DT_IDS,
    FLOATS,
    NoGrad,
    R,
    assert_same_error,
    check,
    check_fd,
    randn,
    shape_id,
    to_lib,
)
from props import (
    SETTINGS,
    nonempty_shapes,
    seeds,
    values_for,
)

# ----- the first shape ops ----------------------------------------------------------------


SHAPE_OPS = {
    "t_2d": (lambda lib, x: x.t(), (3, 4)),
    "t_fn": (lambda lib, x: lib.t(x), (3, 4)),
    "t_1d": (lambda lib, x: x.t(), (5,)),
    "t_0d": (lambda lib, x: x.t(), ()),
    "T_2d": (lambda lib, x: x.T, (3, 4)),
    "transpose": (lambda lib, x: x.transpose(0, 1), (3, 4)),
    "transpose_3d": (lambda lib, x: x.transpose(0, 2), (2, 3, 4)),
    "transpose_neg": (lambda lib, x: x.transpose(-1, -2), (2, 3, 4)),
    "transpose_same": (lambda lib, x: x.transpose(1, 1), (2, 3, 4)),
    "transpose_fn": (lambda lib, x: lib.transpose(x, 1, 0), (3, 4)),
    "permute": (lambda lib, x: x.permute(2, 0, 1), (2, 3, 4)),
    "permute_tuple": (lambda lib, x: x.permute((1, 2, 0)), (2, 3, 4)),
    "permute_neg": (lambda lib, x: x.permute(-1, 0, -2), (2, 3, 4)),
    "permute_fn": (lambda lib, x: lib.permute(x, (1, 0)), (3, 4)),
    "reshape": (lambda lib, x: x.reshape(4, 3), (3, 4)),
    "reshape_tuple": (lambda lib, x: x.reshape((2, -1)), (3, 4)),
    "reshape_flat": (lambda lib, x: x.reshape(-1), (2, 3, 4)),
    "reshape_0d": (lambda lib, x: x.reshape(1, 1), ()),
    "reshape_to_0d": (lambda lib, x: x.reshape(()), (1,)),
    "reshape_empty": (lambda lib, x: x.reshape(0, 3), (3, 0)),
    "reshape_fn": (lambda lib, x: lib.reshape(x, (6, 2)), (3, 4)),
    "reshape_noncontig": (lambda lib, x: x.t().reshape(-1), (3, 4)),
    "reshape_perm": (lambda lib, x: x.permute(2, 0, 1).reshape(4, 6), (2, 3, 4)),
    "view": (lambda lib, x: x.view(2, 6), (3, 4)),
    "view_infer": (lambda lib, x: x.view(-1, 2), (3, 4)),
    "view_tuple": (lambda lib, x: x.view((12,)), (3, 4)),
    "view_0d": (lambda lib, x: x.view(1), ()),
    "expand": (lambda lib, x: x.expand(3, 4), (3, 1)),
    "expand_new_dims": (lambda lib, x: x.expand(2, 3, 4), (4,)),
    "expand_minus1": (lambda lib, x: x.expand(2, -1, 4), (3, 1)),
    "expand_0d": (lambda lib, x: x.expand(2, 3), ()),
    "expand_tuple": (lambda lib, x: x.expand((2, 5)), (1, 5)),
    "expand_to_empty": (lambda lib, x: x.expand(0, 4), (1, 4)),
    "expand_as": (lambda lib, x: x.expand_as(x * lib.ones(2, 3, dtype=x.dtype)), (3,)),
    "flatten": (lambda lib, x: x.flatten(), (2, 3, 4)),
    "flatten_start": (lambda lib, x: x.flatten(1), (2, 3, 4)),
    "flatten_range": (lambda lib, x: x.flatten(0, 1), (2, 3, 4)),
    "flatten_neg": (lambda lib, x: lib.flatten(x, -2, -1), (2, 3, 4)),
    "flatten_0d": (lambda lib, x: x.flatten(), ()),
    "flatten_empty": (lambda lib, x: x.flatten(), (2, 0, 3)),
    "view_as": (lambda lib, x: x.view_as(lib.ones(6, 2)), (3, 4)),
    "reshape_as": (lambda lib, x: x.reshape_as(lib.ones(2, 6)), (3, 4)),
    "mT": (lambda lib, x: x.mT, (2, 3, 4)),
    "chain": (lambda lib, x: x.t().reshape(2, 6).permute(1, 0).flatten().view(3, 4), (3, 4)),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", list(SHAPE_OPS))
def test_shape_op(name, dtype):
    fn, shape = SHAPE_OPS[name]
    check(fn, randn(shape, seed=18), dtype=dtype)


@pytest.mark.parametrize("name", [n for n, (_, s) in SHAPE_OPS.items() if 0 not in s])
def test_shape_op_fd(name):
    fn, shape = SHAPE_OPS[name]
    # multiply by a function of x so that the gradient depends on the layout
    check_fd(lambda lib, x: fn(lib, x) * fn(lib, x.sin()), randn(shape, seed=18))


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("shape", [(2, 3, 4), (5,), ()], ids=shape_id)
def test_T_not_2d_warns_like_torch(shape, dtype):
    """x.T on a tensor that is not 2-D reverses its dims, with torch's deprecation warning
    (torch 2.13 warns for 0-d tensors too, once per process, so only chainrule's is
    asserted here)."""
    x = randn(shape, seed=40)
    with pytest.warns(UserWarning, match="T"):
        assert to_lib(cr, x).T.shape == x.shape[::-1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check(lambda lib, x: x.T, x, dtype=dtype)


# ----- reshaping, views and pieces --------------------------------------------------------


CASES = {
    # reshaping
    "reshape": (lambda L, x: x.reshape(4, -1), R(2, 3, 2)),
    "reshape_fn": (lambda L, x: L.reshape(x, (3, 4)), R(2, 6)),
    "reshape_copy": (lambda L, x: x.t().reshape(-1), R(3, 4)),
    "reshape_0d": (lambda L, x: x.reshape(1, 1), R()),
    "view": (lambda L, x: x.view(2, 2, 3), R(3, 4)),
    "view_tuple": (lambda L, x: x.view((6, 2)), R(3, 4)),
    "view_as": (lambda L, x, y: x.view_as(y), R(3, 4), NoGrad(R(2, 6))),
    "flatten": (lambda L, x: L.flatten(x), R(2, 3, 4)),
    "flatten_dims": (lambda L, x: x.flatten(1, -1), R(2, 3, 4)),
    "flatten_neg": (lambda L, x: x.flatten(-3, -2), R(2, 3, 4)),
    "flatten_noncontig": (lambda L, x: x.transpose(0, 2).flatten(), R(2, 3, 4)),
    "flatten_0d": (lambda L, x: x.flatten(), R()),
    "unflatten": (lambda L, x: x.unflatten(1, (2, 2)), R(3, 4)),
    "unflatten_neg": (lambda L, x: L.unflatten(x, -1, (-1, 2)), R(3, 4)),
    "squeeze": (lambda L, x: x.squeeze(), R(3, 1, 4, 1)),
    "squeeze_dim": (lambda L, x: L.squeeze(x, 1), R(3, 1, 4)),
    "squeeze_neg_dim": (lambda L, x: x.squeeze(-1), R(3, 4, 1)),
    "squeeze_dim_not_one": (lambda L, x: x.squeeze(0), R(3, 1, 4)),
    "squeeze_tuple": (lambda L, x: x.squeeze((1, -1, 0)), R(3, 1, 4, 1)),
    "squeeze_0d": (lambda L, x: x.squeeze(0), R()),
    "unsqueeze": (lambda L, x: x.unsqueeze(1), R(3, 4)),
    "unsqueeze_neg": (lambda L, x: L.unsqueeze(x, -1), R(3, 4)),
    "unsqueeze_0d": (lambda L, x: x.unsqueeze(0), R()),
    "permute": (lambda L, x: x.permute(2, 0, 1), R(2, 3, 4)),
    "permute_neg": (lambda L, x: L.permute(x, (-1, 0, -2)), R(2, 3, 4)),
    "transpose": (lambda L, x: x.transpose(0, -1), R(2, 3, 4)),
    "transpose_fn": (lambda L, x: L.transpose(x, 1, 2), R(2, 3, 4)),
    "swapaxes": (lambda L, x: L.swapaxes(x, 0, 1), R(2, 3)),
    "swapdims": (lambda L, x: x.swapdims(-1, 0), R(2, 3)),
    "t": (lambda L, x: x.t(), R(2, 3)),
    "movedim": (lambda L, x: x.movedim(0, -1), R(2, 3, 4)),
    "movedim_identity": (lambda L, x: x.movedim((0, 1), (0, 1)), R(2, 3)),
    "movedim_0d": (lambda L, x: L.movedim(x, 0, -1), R()),
    "transpose_0d": (lambda L, x: x.transpose(0, -1), R()),
    "t_0d": (lambda L, x: x.t(), R()),
    "permute_0d": (lambda L, x: x.permute(()), R()),
    "squeeze_0d_none": (lambda L, x: x.squeeze(), R()),
    "movedim_tuple": (lambda L, x: L.movedim(x, (0, 1), (2, 0)), R(2, 3, 4)),
    "moveaxis": (lambda L, x: L.moveaxis(x, -1, 0), R(2, 3, 4)),
    "expand": (lambda L, x: x.expand(2, 3, 4), R(3, 1)),
    "expand_minus_one": (lambda L, x: x.expand(-1, 4), R(3, 1)),
    "expand_as": (lambda L, x, y: x.expand_as(y), R(1, 4), NoGrad(R(3, 4))),
    "contiguous": (lambda L, x: x.t().contiguous(), R(3, 4)),
    "contiguous_already": (lambda L, x: (x * 1).contiguous(), R(3, 4)),
    # slicing pieces
    "narrow": (lambda L, x: x.narrow(1, 1, 2), R(3, 4)),
    "narrow_neg": (lambda L, x: L.narrow(x, -1, -3, 2), R(3, 4)),
    "narrow_empty": (lambda L, x: x.narrow(0, 3, 0), R(3, 4)),
    "select": (lambda L, x: L.select(x, 1, -1), R(3, 4)),
    "select_method": (lambda L, x: x.select(0, 2), R(3, 4)),
    "split": (lambda L, x: L.split(x, 2)[1], R(5, 3)),
    "split_last": (lambda L, x: x.split(2, dim=-1)[-1] * 2, R(3, 5)),
    "split_sizes": (lambda L, x: L.split(x, [1, 3, 1], 1)[1], R(2, 5)),
    "chunk": (lambda L, x: x.chunk(3, -1)[0], R(2, 5)),
    "unbind": (lambda L, x: L.unbind(x, 1)[2], R(3, 4)),
    "unbind_method": (lambda L, x: x.unbind()[0], R(3, 4)),
    "split_sum": (lambda L, x: sum(p.sum(0) for p in x.split(2, 0)), R(5, 3)),
    "split_all_used": (lambda L, x: L.cat(x.split([2, 1], 1)[::-1], 1), R(3, 3)),
    "unbind_all_used": (lambda L, x: L.stack(x.unbind(0), 1), R(3, 4)),
    "unfold": (lambda L, x: x.unfold(1, 2, 1), R(3, 4)),
    "unfold_step": (lambda L, x: x.unfold(0, 2, 2) * 1, R(5, 3)),
    "unfold_overlap": (lambda L, x: x.unfold(-1, 3, 1), R(2, 5)),
    "atleast_1d": (lambda L, x: L.atleast_1d(x), R()),
    "atleast_2d": (lambda L, x: L.atleast_2d(x), R(3)),
    "atleast_3d": (lambda L, x: L.atleast_3d(x), R(3, 4)),
    "atleast_3d_many": (lambda L, a, b: L.cat(L.atleast_3d(a, b), 2), R(3), R(1, 3)),
    "split_empty": (lambda L, x: x.split(2, 1)[0], R(0, 3)),
    "chunk_empty_dim": (lambda L, x: x.chunk(2)[1], R(0, 3)),
    "unsqueeze_empty": (lambda L, x: x.unsqueeze(1).squeeze(), R(0, 2)),
}

test_matches_torch = cases.index_matches_torch(CASES)

FD = [
    "unfold_overlap",
    "reshape_copy",
    "squeeze_tuple",
    "unsqueeze_neg",
    "movedim_tuple",
    "narrow_neg",
    "split_sum",
    "chunk",
    "unbind_all_used",
    "expand",
]

test_finite_differences = cases.index_finite_differences(CASES, FD)

DOUBLE = [
    "unfold_overlap",
    "split_all_used",
    "unbind_all_used",
]

test_second_derivatives = cases.index_second_derivatives(CASES, DOUBLE)

TANGENTS = [
    "unfold_step",
    "squeeze_tuple",
    "unsqueeze",
    "movedim",
    "flatten_noncontig",
    "narrow",
    "split",
    "chunk",
    "unbind",
]

test_tangents_match_torch = cases.index_tangents_match_torch(CASES, TANGENTS)


# ----- 0-d inputs -------------------------------------------------------------------------


SCALAR_INPUT = {
    "unfold": lambda L, x: x.unfold(0, 1, 1),
    "movedim": lambda L, x: x.movedim(0, 0),
    "flatten": lambda L, x: x.flatten(0, 0),
}

test_scalar_inputs_match_torch = cases.scalar_inputs_match_torch(SCALAR_INPUT)

SCALAR_INPUT_ERRORS = {
    "unflatten": lambda L, x: x.unflatten(0, (1,)),
    "narrow": lambda L, x: x.narrow(0, 0, 1),
    "split": lambda L, x: x.split(1),
}

test_scalar_input_errors_match_torch = cases.scalar_input_errors_match_torch(SCALAR_INPUT_ERRORS)


# ----- errors -----------------------------------------------------------------------------


ERRORS = {
    "squeeze_dim": lambda L, x: x.squeeze(3),
    "squeeze_repeated": lambda L, x: x.squeeze((0, 0)),
    "unsqueeze_dim": lambda L, x: x.unsqueeze(-4),
    "permute_repeated": lambda L, x: x.permute(0, 0),
    "permute_count": lambda L, x: x.permute(0),
    "transpose_dim": lambda L, x: x.transpose(0, 2),
    "movedim_count": lambda L, x: x.movedim((0,), (1, 0)),
    "movedim_repeated": lambda L, x: x.movedim((0, 1), (1, 1)),
    "flatten_order": lambda L, x: x.flatten(1, 0),
    "flatten_dim": lambda L, x: x.flatten(0, 5),
    "unflatten_sizes": lambda L, x: x.unflatten(1, (3, 2)),
    "view_size": lambda L, x: x.view(5),
    "view_noncontiguous": lambda L, x: x.t().view(12),
    "reshape_size": lambda L, x: x.reshape(5, -1),
    "expand_shrink": lambda L, x: x.expand(3, 2),
    "narrow_too_long": lambda L, x: x.narrow(1, 3, 2),
    "narrow_start": lambda L, x: x.narrow(1, 5, 0),
    "narrow_negative_length": lambda L, x: x.narrow(1, 1, -1),
    "split_zero": lambda L, x: x.split(0, 1),
    "split_sizes_sum": lambda L, x: x.split([1, 2], 1),
    "chunk_zero": lambda L, x: x.chunk(0),
    "unbind_dim": lambda L, x: x.unbind(2),
    "unbind_0d": lambda L, x: x.sum().unbind(),
    "unfold_too_big": lambda L, x: x.unfold(1, 5, 1),
    "unfold_step": lambda L, x: x.unfold(1, 2, 0),
}

test_errors_match_torch = cases.raises_like_torch(ERRORS, R(3, 4), sort=True)

ERROR_MESSAGES = [
    (
        lambda L, x: x.squeeze(3),
        r"Dimension out of range \(expected to be in range of \[-2, 1\]",
    ),
    (
        lambda L, x: x.split([1, 2], 1),
        "split_with_sizes expects split_sizes to sum exactly to 4",
    ),
    (
        lambda L, x: x.narrow(1, 3, 2),
        r"start \(3\) \+ length \(2\) exceeds dimension size \(4\)",
    ),
]

test_error_messages_are_torch_messages = cases.error_messages_as_torch(ERROR_MESSAGES)

RAISES = {
    "view_noncontiguous": (lambda lib, a: a.t().view(-1), randn((2, 3))),
    "t_3d": (lambda lib, a: a.t(), randn((2, 3, 4))),
    "expand_bad": (lambda lib, a: a.expand(3, 3), randn((2, 3))),
    "reshape_two_minus1": (lambda lib, a: a.reshape(-1, -1), randn((2, 3))),
    "reshape_bad_size": (lambda lib, a: a.reshape(4, 2), randn((2, 3))),
    "permute_wrong_len": (lambda lib, a: a.permute(1, 0), randn((2, 3, 4))),
}

test_raises_like_torch = cases.raises_like_torch(RAISES)


# ----- pieces and in-place shape changes --------------------------------------------------


def test_split_pieces_share_one_node():
    y = cr.randn(4, 3, requires_grad=True) * 1
    a, b = y.split(2)
    assert a.grad_fn is b.grad_fn
    assert a.grad_fn.next_functions[0][0] is y.grad_fn


def test_inplace_shape_methods():
    for lib in (cr, torch):
        x = lib.randn(3, 1, 4, requires_grad=True)
        y = x * 1
        assert y.squeeze_() is y and tuple(y.shape) == (3, 4)
        assert y.grad_fn.name() == "SqueezeBackward3" and y._version == 1
        y.unsqueeze_(0)
        assert tuple(y.shape) == (1, 3, 4) and y.grad_fn.name() == "UnsqueezeBackward1"
        y.squeeze_(0)
        assert y.grad_fn.name() == "SqueezeBackward4"
        y.transpose_(0, -1)
        assert tuple(y.shape) == (4, 3) and y.grad_fn.name() == "TransposeBackward1"
        y.t_()
        assert tuple(y.shape) == (3, 4) and y.grad_fn.name() == "TBackward1"
        y.unsqueeze_(1).unsqueeze_(0).squeeze_((0, 2))
        assert y.grad_fn.name() == "SqueezeBackward5"
        y.swapdims_(0, 1)
        y.swapaxes_(0, 1)
        assert y._version == 10
        (y * lib.arange(12.0).view(3, 4)).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(force=True), np.arange(12.0).reshape(3, 1, 4))
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            x.squeeze_()
        with pytest.raises(RuntimeError, match="expects a tensor with <= 2 dimensions"):
            lib.zeros(2, 2, 2).t_()


def test_write_into_a_view_whose_base_changed_layout_raises():
    """After y.t_(), a view of y taken before no longer sits where its steps say: refused
    rather than given a wrong gradient (PyTorch tracks raw strides instead)."""
    y = cr.randn(3, 3, requires_grad=True) * 1
    v = y[0]
    y.t_()
    with pytest.raises(RuntimeError, match="changed its layout in place"):
        v.mul_(2)
    w = y[0]  # taken after the change: fine
    w.mul_(2)
    assert w.grad_fn is not None


def test_inplace_shape_method_on_a_view_updates_the_base():
    for lib in (cr, torch):
        x = lib.arange(6.0, requires_grad=True)
        y = x * 1
        v = y.view(2, 3)
        v.t_()
        v.mul_(lib.tensor([[1.0, 10.0], [2.0, 20.0], [3.0, 30.0]]))
        assert y.tolist() == [0.0, 2.0, 6.0, 30.0, 80.0, 150.0]
        y.sum().backward()
        assert x.grad.tolist() == [1.0, 2.0, 3.0, 10.0, 20.0, 30.0]


# ----- property tests: random shapes ------------------------------------------------------


@SETTINGS
@given(shape=nonempty_shapes.filter(lambda s: len(s) >= 1), data=st.data(), seed=seeds)
def test_shape_ops_match_torch(shape, data, seed):
    """permute, transpose, reshape, flatten and expand composed, on random shapes."""
    n = len(shape)
    perm = tuple(data.draw(st.permutations(range(n))))
    d0, d1 = data.draw(st.integers(-n, n - 1)), data.draw(st.integers(-n, n - 1))
    start = data.draw(st.integers(0, n - 1))
    lead = data.draw(st.integers(1, 3))

    def fn(lib, x):
        y = x.permute(*perm).transpose(d0, d1)
        y = y.reshape(-1).reshape(y.shape).flatten(start)
        return y.expand(lead, *y.shape) * y.sin()

    check(fn, values_for(shape, seed, "any"), dtype=np.float64)


@pytest.mark.parametrize(
    "shape, target",
    [
        ((), (2, 3)),  # a 0-d gradient (a sum's) to its input's shape
        ((3,), (2, 3)),
        ((1, 3), (4, 3)),
        ((3, 1), (3, 4)),
        ((2, 1, 3), (5, 2, 4, 3)),
        ((1, 3), (4, -1)),
    ],
)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "read-only"])
def test_expand_on_arrays_is_numpys_broadcast_to(shape, target, layout):
    """expand's forward on a contiguous array makes the view itself (shapes._expand): the
    same view np.broadcast_to makes, read-only, of the same memory, with the same strides."""
    from chainrule.autograd.recording import _is_view
    from chainrule.ops.shapes import _expand

    x = np.arange(1.0, 1.0 + np.prod(shape, dtype=int)).reshape(shape)
    if layout == "transposed":
        x = np.ascontiguousarray(x.T).T  # (not row-major when 2-D: NumPy's own path)
    elif layout == "read-only":
        x.flags.writeable = False
    want = np.broadcast_to(x, tuple(x.shape[i - 2] if s == -1 else s for i, s in enumerate(target)))
    got = _expand(x, target)
    assert got.shape == want.shape and got.strides == want.strides and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    assert not got.flags.writeable
    assert np.shares_memory(got, x) and _is_view(got, x)


def test_expand_on_arrays_that_do_not_broadcast_raises_numpys_error():
    from chainrule.ops.shapes import _expand

    x = np.ones((2, 3))
    with pytest.raises(ValueError) as want:
        np.broadcast_to(x, (4, 3))
    with pytest.raises(ValueError) as got:
        _expand(x, (4, 3))
    assert str(got.value) == str(want.value)


def test_viewable_is_numpys_rule():
    """``_backend.viewable`` (a host array's reshape asked not to copy) says what setting the
    shape of a view of it says (its path for other arrays, here an ndarray subclass), on
    contiguous, sliced, transposed and broadcast arrays."""
    sub = type("Sub", (np.ndarray,), {})
    base = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    arrays = [
        base,
        base[:, 1:],
        base[..., :3],
        base[:, :, ::2],
        base.transpose(1, 0, 2, 3),
        base.transpose(0, 1, 3, 2),
        np.broadcast_to(base[:1], (4, 3, 4, 5)),
        base[0, 0, 0, :1],
    ]
    for a in arrays:
        n = a.size
        for shape in [(n,), (a.shape[0], -1), (-1, a.shape[-1]), a.shape[::-1], (1, n, 1)]:
            shape = tuple(n // max(1, -np.prod(shape)) if s == -1 else s for s in shape)
            want = _backend.viewable(a.view(sub), shape)
            assert _backend.viewable(a, shape) == want, (a.shape, a.strides, shape)


def test_size_and_dim_keywords_and_numpy_axis() -> None:
    """The keyword forms PyTorch's argument parser takes: ``x.flip(dims=...)``,
    ``x.permute(dims=...)``, ``x.tile(dims=...)``, ``x.reshape(shape=...)``,
    ``x.repeat(repeats=...)``, ``x.expand(size=...)``, ``torch.flip/tile(dims=...)``, and
    NumPy's ``axis=`` for ``torch.cat/concat/stack``; both a size and its keyword is
    PyTorch's TypeError."""
    a = np.arange(6.0).reshape(2, 3)
    calls = [
        lambda t, lib: t.flip(dims=(0,)),
        lambda t, lib: lib.flip(t, dims=[1]),
        lambda t, lib: t.permute(dims=(1, 0)),
        lambda t, lib: t.tile(dims=(2,)),
        lambda t, lib: lib.tile(t, dims=(2, 1)),
        lambda t, lib: t.reshape(shape=(3, 2)),
        lambda t, lib: t.repeat(repeats=(2, 1)),
        lambda t, lib: t[:1].expand(size=(4, 3)),
        lambda t, lib: lib.stack([t, t], axis=-1),
        lambda t, lib: lib.cat([t, t], axis=1),
        lambda t, lib: lib.concat([t, t], axis=0),
    ]
    for call in calls:
        want = call(torch.tensor(a), torch)
        got = call(cr.tensor(a), cr)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    for lib in (torch, cr):
        with pytest.raises(TypeError, match="flip\\(\\) got multiple values for argument 'dims'"):
            lib.tensor(a).flip(0, dims=(1,))
        with pytest.raises(TypeError, match="reshape\\(\\) got multiple values for argument"):
            lib.tensor(a).reshape(2, 3, shape=(3, 2))


@pytest.mark.parametrize(
    "call",
    [
        lambda L, x: L.flip(x, 0),
        lambda L, x: L.flip(x, 0, 1),
        lambda L, x: L.flip(x, dims=0),
        lambda L, x: L.flip(x),
        lambda L, x: L.flip(x, (0.5,)),
        lambda L, x: L.flip(x, L.tensor([0])),
        lambda L, x: x.flip(dims=0),
        lambda L, x: x.flip(),
        lambda L, x: L.tile(x, 2),
        lambda L, x: L.tile(x, dims=2),
        lambda L, x: x.tile(dims=2),
    ],
)
def test_flip_and_tile_take_dims_as_one_sequence_as_pytorch(call):
    """The functions take ``dims`` as one sequence of ints; the methods take ints as
    varargs, but their keyword is a sequence too."""
    assert_same_error(lambda L: call(L, L.arange(6.0).reshape(2, 3)))


@pytest.mark.parametrize(
    "call",
    [
        lambda L, x: L.flip(x, (0,)),
        lambda L, x: L.flip(x, dims=[1, 0]),
        lambda L, x: x.flip(0, 1),
        lambda L, x: x.flip([1]),
        lambda L, x: x.flip(dims=(0,)),
        lambda L, x: L.tile(x, (2, 1)),
        lambda L, x: x.tile(2, 1),
        lambda L, x: x.tile((1, 2)),
    ],
)
def test_flip_and_tile_spellings_pytorch_takes(call):
    got, expected = (call(L, L.arange(6.0).reshape(2, 3)) for L in (cr, torch))
    np.testing.assert_array_equal(got.numpy(), expected.numpy())
