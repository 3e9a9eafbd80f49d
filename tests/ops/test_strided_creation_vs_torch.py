"""Tensors made with given strides, and strides of empty views, against PyTorch:
``empty_strided``/``new_empty_strided`` (sizes, strides, storage, errors),
``as_strided_copy`` and the in-place ``as_strided_`` (values, gradients, tangents, node
names), and the strides of empty tensors that view a non-empty one."""

from __future__ import annotations

import pytest
import torch

import chainrule as cr
from oracle import DT_IDS, FLOATS, check, check_fd, check_same_error, randn, same_node

LIBS = (torch, cr)

LAYOUTS = [
    ((2, 3), (1, 2)),
    ((2, 3), (3, 1)),
    ((2, 3), (0, 1)),
    ((3, 1, 4), (4, 4, 1)),
    ((4,), (3,)),
    ((2, 0), (1, 2)),
    ((0, 3), (5, 7)),
    ((), ()),
]


def _layout(t, storage: bool) -> tuple:
    # (a device tensor's storage is not modelled: docs/cuda.md; its size is the CPU's alone)
    elements = t.untyped_storage().nbytes() // t.element_size() if storage else None
    return tuple(t.shape), t.stride(), t.is_contiguous(), elements, t.storage_offset()


@pytest.mark.parametrize("size, stride", LAYOUTS, ids=str)
def test_empty_strided_lays_out_its_storage_as_torch(size, stride, oracle_device):
    on_cpu = oracle_device == "cpu"
    got, want = (
        _layout(L.empty_strided(size, stride, dtype=L.float64), on_cpu) for L in (cr, torch)
    )
    assert got == want
    got, want = (_layout(L.ones(2).new_empty_strided(size, stride), on_cpu) for L in (cr, torch))
    assert got == want


def test_empty_strided_takes_dtype_and_requires_grad_and_writes_through_its_layout():
    for L in LIBS:
        t = L.empty_strided((2, 3), (1, 2), dtype=L.float64, requires_grad=True)
        assert t.is_leaf and t.requires_grad and t.dtype == L.float64
    got, want = (
        L.empty_strided((2, 3), (1, 2)).copy_(L.arange(6.0).reshape(2, 3)).tolist() for L in LIBS
    )
    assert got == want
    # the storage holds the elements in the layout's order
    got, want = (
        L.empty_strided((2, 3), (1, 2))
        .copy_(L.arange(6.0).reshape(2, 3))
        .untyped_storage()
        .tolist()
        for L in LIBS
    )
    assert got == want


@pytest.mark.parametrize(
    "args",
    [((2, 3), (1,)), ((2, 3), (1, -2)), ((2, -3), (1, 2))],
    ids=["rank", "negative-stride", "negative-size"],
)
def test_empty_strided_refuses_as_torch(args):
    check_same_error(lambda L: L.empty_strided(*args))


def test_empty_strided_refuses_requires_grad_for_integers_as_torch():
    check_same_error(lambda L: L.empty_strided((2,), (1,), dtype=L.int64, requires_grad=True))


STRIDED = {
    "windows": lambda L, x: L.as_strided_copy(x, (4, 3), (2, 1)),
    "transposed_offset": lambda L, x: L.as_strided_copy(x, (3, 2), (1, 3), 1),
    "overlapping": lambda L, x: L.as_strided_copy(x * 2, (2, 2), (1, 1)),
    "inplace": lambda L, x: (x * 1).as_strided_((2, 3), (1, 2), 1),
    "inplace_method_of_view": lambda L, x: (x * 1)[2:].as_strided_((2, 2), (1, 2)),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(STRIDED))
def test_as_strided_copy_and_in_place_match_torch(name, dtype):
    res = check(STRIDED[name], randn((12,), 3), dtype=dtype)
    same_node(res)
    assert res.cr_out.stride() == res.torch_out.stride()
    assert res.cr_out.is_contiguous() == res.torch_out.is_contiguous()


def test_as_strided_copy_is_a_copy_and_its_gradient_is_finite_differences():
    for L in LIBS:
        x = L.arange(6.0)
        y = L.as_strided_copy(x, (2, 2), (1, 2))
        y.add_(10)
        assert x.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    check_fd(STRIDED["overlapping"], randn((12,), 4))


def test_as_strided_in_place_bumps_the_version_and_refuses_a_leaf_as_torch():
    versions = []
    for L in LIBS:
        t = L.arange(6.0)
        before = t._version
        t.as_strided_((2, 2), (1, 2))
        versions.append((t._version - before, t.shape, t.stride()))
    assert versions[0] == versions[1]
    check_same_error(lambda L: L.ones(3, requires_grad=True).as_strided_((2,), (1,)))
    check_same_error(lambda L: L.arange(4.0).as_strided_((2, 2), (3, 3)))


EMPTY_VIEWS = {
    "columns_past_the_end": lambda L: L.ones(3, 4)[:, 5:],
    "rows_past_the_end": lambda L: L.ones(3, 4)[3:],
    "transposed_columns": lambda L: L.ones(3, 4).t()[:, 5:],
    "narrow_zero": lambda L: L.ones(2, 3, 4).narrow(1, 1, 0),
    "new_empty": lambda L: L.zeros(2, 0, 3),
}


@pytest.mark.parametrize("name", sorted(EMPTY_VIEWS))
def test_empty_views_keep_their_base_s_strides_as_torch(name):
    got, want = (EMPTY_VIEWS[name](L) for L in (cr, torch))
    assert (tuple(got.shape), got.stride()) == (tuple(want.shape), want.stride())


def test_new_empty_strided_takes_self_s_dtype():
    for L in LIBS:
        t = L.ones(2, dtype=L.float64).new_empty_strided((2, 2), (1, 2))
        assert t.dtype == L.float64 and t.stride() == (1, 2)
    assert cr.ones(2, dtype=cr.int32).new_empty_strided((3,), (2,)).tolist() == [0, 0, 0]
