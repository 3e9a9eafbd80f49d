"""frexp, gcd, lcm, put/put_, as_strided, as_strided_scatter, storage_offset, dim_order,
view(dtype), resize_/resize_as_ (api/parsers/storage.py) against PyTorch: values, dtypes,
gradients, tangents and second derivatives where PyTorch has them, and PyTorch's errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as torch_fwad

import chainrule as cr
import chainrule.autograd.forward_ad as cr_fwad
from devices import torch_device
from oracle import (
    DT_IDS,
    FLOATS,
    NoGrad,
    check,
    check_double_backward,
    check_fd,
    check_same_error,
    randn,
    same_node,
)

# PyTorch's C++ note "index_reduce() is in beta" (once per process, attributed to
# whichever test calls index_reduce first): torch's, not chainrule's
pytestmark = pytest.mark.filterwarnings("ignore:index_reduce\\(\\) is in beta:UserWarning")

# ----- frexp ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_frexp_matches_torch(dtype):
    x = randn((3, 4), 1) * np.array([1e-3, 1.0, 7.0, 1e5])
    res = check(lambda L, x: L.frexp(x).mantissa * 1, x, dtype=dtype)
    check(lambda L, x: x.frexp()[1], x, dtype=dtype)
    check(lambda L, x: L.frexp(x)[0], x, dtype=dtype)
    same_node(check(lambda L, x: L.frexp(x)[0], x, dtype=dtype))
    assert res is not None


def test_frexp_special_values_errors_and_derivatives():
    x = np.array([0.0, -0.0, 3.0, -5.5, 1e-310, np.inf, -np.inf, np.nan])
    check(lambda L, x: L.frexp(x).mantissa, x)
    check(lambda L, x: L.frexp(x).exponent, x)
    # (PyTorch's float16 tangent of frexp is float32, chainrule's float16: not compared)
    check(lambda L, x: L.frexp(x).mantissa, x[:4], dtype=np.float16, backward=False, forward=False)
    check_same_error(lambda L, a: L.frexp(a), np.array([1, 2]))
    x = randn((2, 3), 2) * 3
    check_fd(lambda L, x: L.frexp(x)[0], x)
    check_double_backward(lambda L, x: L.frexp(x)[0] * x, x)
    assert type(cr.frexp(cr.ones(1))).__name__ == "frexp"


# ----- gcd, lcm ------------------------------------------------------------------------------


def test_gcd_lcm_match_torch():
    a = np.array([12, -18, 0, 0, 7, 2**62])
    b = np.array([8, 4, 0, -5, 13, 3])
    for fn in (
        lambda L, a, b: L.gcd(a, b),
        lambda L, a, b: L.lcm(a, b),
        lambda L, a, b: a.gcd(b),
        lambda L, a, b: a.clone().lcm_(b),
        lambda L, a, b: L.gcd(a.reshape(2, 3), b[:3]),
    ):
        check(fn, a, b)
    small = np.array([100, -7], dtype=np.int8)
    check(lambda L, a, b: L.lcm(a, b), small, np.array([3, 5], dtype=np.int8))
    check(lambda L, a, b: L.gcd(a, b), small, np.array([3, 5]))
    check_same_error(lambda L, a, b: L.gcd(a, b), np.array([1.0]), np.array([2.0]))
    check_same_error(lambda L, a, b: L.lcm(a, b), np.array([True]), np.array([True]))
    check_same_error(lambda L, a, b: L.gcd(a, 5), np.array([1]), np.array([2]))


# ----- put, put_ --------------------------------------------------------------------------------


PUT = {
    "put": lambda L, x, s: L.put(x, L.tensor([[0, 4], [-1, 2]]), s),
    "put_accumulate": lambda L, x, s: L.put(x, L.tensor([[0, 4], [0, 4]]), s, accumulate=True),
    "method": lambda L, x, s: x.put(L.tensor([[5, 1], [2, 3]]), s),
    "inplace": lambda L, x, s: (x * 1).put_(L.tensor([[5, 1], [2, 3]]), s * 2),
    "inplace_accumulate": lambda L, x, s: (x * 1).put_(L.tensor([[1, 1], [1, -6]]), s, True),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(PUT))
def test_put_matches_torch(name, dtype):
    res = check(PUT[name], randn((2, 3), 3), randn((2, 2), 4), dtype=dtype)
    if not name.startswith("inplace"):
        same_node(res)


def test_put_derivatives_and_errors():
    for name in ("put", "put_accumulate"):
        check_fd(PUT[name], randn((2, 3), 3), randn((2, 2), 4))
        check_double_backward(
            lambda L, x, s, f=PUT[name]: f(L, x, s) ** 2, randn((2, 3), 3), randn((2, 2), 4)
        )
    x, s = np.zeros((2, 3), np.float32), np.ones(2, np.float32)
    check_same_error(lambda L, x, s: x.put_(L.tensor([0, 10]), s), x, s)
    check_same_error(lambda L, x, s: x.put_(L.tensor([-7, 0]), s), x, s)
    check_same_error(lambda L, x, s: x.put_(L.tensor([0, 1]), L.ones(3)), x, s)
    check_same_error(lambda L, x, s: x.put_(L.tensor([0, 1], dtype=L.int32), s), x, s)
    check_same_error(lambda L, x, s: x.put_(L.tensor([0, 1]), s.double()), x, s)


# ----- as_strided, as_strided_scatter, storage_offset ---------------------------------------

STRIDED = {
    "overlapping": lambda L, x: x.as_strided((2, 2), (1, 1)),
    "every_other": lambda L, x: L.as_strided(x, (3,), (2,), 1),
    "windows": lambda L, x: x.as_strided((4, 3), (2, 1)) * 2,
    "of_a_view": lambda L, x: x.reshape(3, 4)[1:].as_strided((2, 2), (4, 1)),
    "of_a_view_offset0": lambda L, x: x.reshape(3, 4)[1:].as_strided((2, 3), (1, 2), 0),
    "transposed": lambda L, x: x.as_strided((3, 4), (1, 3)),
    "empty": lambda L, x: x.as_strided((0, 3), (3, 1)),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(STRIDED))
def test_as_strided_matches_torch(name, dtype):
    # of_a_view_offset0 reads storage before the view's first element: PyTorch's tangent
    # there comes from the base's tangent, chainrule's is 0 (its gradient, 0, is PyTorch's)
    res = check(STRIDED[name], randn((12,), 5), dtype=dtype, forward=name != "of_a_view_offset0")
    if name in ("overlapping", "every_other", "transposed"):
        same_node(res)


def test_as_strided_derivatives_memory_and_errors():
    x = randn((12,), 6)
    for name in ("overlapping", "windows", "of_a_view"):
        check_fd(STRIDED[name], x)
        check_double_backward(lambda L, x, f=STRIDED[name]: f(L, x) ** 2, x)
    base = cr.zeros(6)
    view = base.as_strided((2, 2), (1, 2), 1)
    view.add_(1)  # writes through to the storage
    assert base.tolist() == [0.0, 1.0, 1.0, 1.0, 1.0, 0.0]
    check_same_error(lambda L, x: x.as_strided((2, 2), (3, 3), 2), np.arange(8.0))
    check_same_error(lambda L, x: x.as_strided((2, 2), (3,)), np.arange(8.0))
    check_same_error(lambda L, x: x.as_strided((2, 2), (-1, 1)), np.arange(8.0))


SCATTER = {
    "plain": lambda L, x, s: L.as_strided_scatter(x, s, (2, 2), (1, 2), 1),
    "method": lambda L, x, s: (x * 2).as_strided_scatter(s, (2, 2), (3, 1)),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(SCATTER))
def test_as_strided_scatter_matches_torch_and_finite_differences(name, dtype):
    # PyTorch's gradient for input is wrong (torch.autograd.gradcheck fails on it: it
    # keeps the gradient where src landed and drops it elsewhere), so values and src's
    # gradient are compared with PyTorch, input's gradient with finite differences
    x, s = randn((6,), 7), randn((2, 2), 8)
    check(SCATTER[name], x, s, dtype=dtype, backward=False)
    check(lambda L, x, s: SCATTER[name](L, x.detach(), s), NoGrad(x), s, dtype=dtype)
    check_fd(SCATTER[name], x, s)


def test_as_strided_scatter_input_gradient():
    x = cr.ones(6, requires_grad=True)
    s = cr.ones(2, 2, requires_grad=True)
    cr.as_strided_scatter(x * 2, s * 3, (2, 2), (3, 1)).backward(cr.arange(6.0))
    assert x.grad.tolist() == [0.0, 0.0, 4.0, 0.0, 0.0, 10.0]  # 2g off the scattered places
    assert s.grad.tolist() == [[0.0, 3.0], [9.0, 12.0]]


def test_storage_offset_matches_torch():
    for fn in (
        lambda L: L.ones(2, 3)[:, 1:],
        lambda L: L.ones(4, 5)[1:, 2:][1:],
        lambda L: L.ones(3)[2:],
        lambda L: L.ones(3),
        lambda L: L.ones(2, 3).t()[1],
        lambda L: L.arange(12.0).reshape(3, 4)[1:].as_strided((2,), (1,), 3),
        lambda L: L.ones(4, 4).diagonal(offset=1),
        lambda L: L.ones(3, 4).narrow(1, 2, 2).unsqueeze(0),
    ):
        assert fn(cr).storage_offset() == fn(torch).storage_offset()


def test_dim_order_matches_torch(oracle_device):
    for fn in (
        lambda L: L.ones(2, 3, 4),
        lambda L: L.ones(2, 3, 4).permute(2, 0, 1),
        lambda L: L.ones(2, 3, 5, 7).transpose(1, 2),
        lambda L: L.ones(2, 3, 5, 7).permute(0, 2, 3, 1),
        lambda L: L.ones(3, 1).t(),
        lambda L: L.ones(1, 2, 3, 4),
        lambda L: L.ones(4, 5)[:, ::2],
        lambda L: L.ones(3).expand(2, 3),
        lambda L: L.ones(()),
        lambda L: L.ones(5),
    ):
        assert fn(cr).dim_order() == fn(torch).dim_order()
    # torch's default-device mode (set for the CUDA copy of this test) drops dim_order's
    # ambiguity_check: torch's errors are taken without it
    if oracle_device != "cpu":
        torch.set_default_device(None)
    try:
        check_same_error(lambda L, x: x.reshape(1, 2).dim_order(ambiguity_check=True), np.ones(2))
        check_same_error(lambda L, x: x.dim_order(ambiguity_check="no"), np.ones(2))
    finally:
        if oracle_device != "cpu":
            torch.set_default_device(torch_device(oracle_device))


# ----- view(dtype) ---------------------------------------------------------------------------

VIEW_DTYPE = {
    "same_size": (lambda L, x: x.view(L.int32), np.float32),
    "bigger": (lambda L, x: x.view(L.float64), np.float32),
    "smaller": (lambda L, x: x.view(L.float16), np.float32),
    "int8": (lambda L, x: x.view(L.int8), np.float64),
    "transposed_smaller": (lambda L, x: x.t().view(L.int32), np.float32),
    "narrowed": (lambda L, x: x[:, 2:].view(L.float64), np.float32),
}


@pytest.mark.parametrize("name", sorted(VIEW_DTYPE))
def test_view_dtype_matches_torch(name):
    fn, dtype = VIEW_DTYPE[name]
    x = NoGrad(randn((2, 4), 9).astype(dtype))
    check(fn, x, backward=False)
    t = cr.tensor(randn((2, 4), 9).astype(dtype), requires_grad=True)
    assert not fn(cr, t).requires_grad


def test_view_dtype_shares_memory_and_errors():
    x = cr.zeros(4)
    v = x.view(cr.int32)
    v[1] = 1065353216  # the bits of 1.0f
    assert x.tolist() == [0.0, 1.0, 0.0, 0.0]
    check(lambda L, b: b.view(L.uint8), np.array([True, False]))
    for fn in (
        lambda L, x: x.sum().view(L.float64),
        lambda L, x: x[:, :3].view(L.float64),
        lambda L, x: x.t().view(L.float16),
        lambda L, x: x.t().contiguous().t().view(L.float64),
        lambda L, x: x.reshape(-1)[1:5].view(L.float64),
        lambda L, x: x[:, ::2].view(L.float64),
    ):
        check_same_error(fn, np.ones((4, 4), np.float32))


# ----- resize_, resize_as_ ---------------------------------------------------------------------


def test_resize_matches_torch():
    def shrink(L):
        a = L.arange(6.0)
        a.resize_(2, 2)
        return a

    def shrink_view(L):
        a = L.arange(12.0).reshape(3, 4).t()
        a.resize_(5)
        return a

    def as_(L):
        a = L.arange(6.0)
        return a.resize_as_(L.ones(2, 1))

    for fn in (shrink, shrink_view, as_):
        np.testing.assert_array_equal(fn(cr).numpy(force=True), fn(torch).numpy(force=True))
    a = cr.arange(4.0)
    a.resize_(3, 3)  # grows: the first 4 elements are kept, the rest uninitialised
    assert a.shape == (3, 3) and a.reshape(-1)[:4].tolist() == [0.0, 1.0, 2.0, 3.0]
    check_same_error(lambda L, x: x.requires_grad_().resize_(3), np.ones(2))


# ----- index_reduce --------------------------------------------------------------------------


def _with_ties_and_zeros(shape, seed):
    """Values with repeats (ties for amax/amin) and zeros (prod's exclusive products)."""
    r = np.random.default_rng(seed)
    return r.choice([-1.5, 0.0, 0.5, 2.0, 2.0, 3.0], shape)


INDEX_REDUCE = {
    f"{reduce}{'' if include_self else '_exclude'}": (reduce, include_self)
    for reduce in ("prod", "mean", "amax", "amin")
    for include_self in (True, False)
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(INDEX_REDUCE))
def test_index_reduce_matches_torch(name, dtype):
    reduce, include_self = INDEX_REDUCE[name]

    def fn(L, x, s):
        index = L.tensor([0, 2, 0, 3, 2])
        return L.index_reduce(x, 1, index, s, reduce, include_self=include_self)

    # forward=False: PyTorch has no forward mode for index_reduce (both raise: tested below)
    x, s = randn((3, 5), 10), randn((3, 5), 11)
    same_node(check(fn, x, s, dtype=dtype, forward=False))
    ties = _with_ties_and_zeros((3, 5), 12), _with_ties_and_zeros((3, 5), 13)
    check(fn, *ties, dtype=dtype, forward=False)


@pytest.mark.parametrize("name", sorted(INDEX_REDUCE))
def test_index_reduce_derivatives(name):
    reduce, include_self = INDEX_REDUCE[name]

    def fn(L, x, s):
        return x.index_reduce(0, L.tensor([1, 0, 1]), s, reduce, include_self=include_self)

    x, s = randn((2, 3), 14), randn((3, 3), 15)
    check_fd(fn, x, s)
    check_double_backward(fn, x, s)


def test_index_reduce_inplace_integers_and_errors():
    def inplace(L, x, s):
        return (x * 1).index_reduce_(0, L.tensor([1, 1]), s, "amax", include_self=False)

    check(inplace, randn((3, 2), 16), randn((2, 2), 17), forward=False)
    for lib, fwad in ((torch, torch_fwad), (cr, cr_fwad)):
        with fwad.dual_level(), pytest.raises(NotImplementedError) as e:
            dual = fwad.make_dual(lib.ones(3), lib.ones(3))
            dual.index_reduce(0, lib.tensor([0, 1]), lib.ones(2), "prod")
        assert "Trying to use forward AD with index_reduce" in str(e.value)
    ints = np.array([4, 6, 9])
    for reduce in ("prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            check(
                lambda L, x, r=reduce, inc=include_self: x.index_reduce(
                    0, L.tensor([0, 0, 2]), L.tensor([2, 3, 2]), r, include_self=inc
                ),
                ints,
            )
    x, s = np.ones((3, 2), np.float32), np.ones((4, 2), np.float32)
    i = np.array([0, 2, 0, 1])
    for fn in (
        lambda L, x, s, i: x.index_reduce(0, i, s, "sum"),
        lambda L, x, s, i: x.index_reduce(0, i.reshape(1, 4), s, "prod"),
        lambda L, x, s, i: x.index_reduce(0, i[:3], s, "prod"),
        lambda L, x, s, i: x.index_reduce(0, i, s.double(), "mean"),
        lambda L, x, s, i: x.index_reduce(0, i * 2, s, "amax"),
        lambda L, x, s, i: x.index_reduce(2, i, s, "amax"),
    ):
        check_same_error(fn, x, s, i)


# ----- storage objects, frombuffer, layouts --------------------------------------------


def test_untyped_and_typed_storages_as_torch():
    for lib in (cr, torch):
        x = lib.arange(6.0).reshape(2, 3)[1:]
        s = x.untyped_storage()
        assert (s.nbytes(), s.size(), len(s), s.element_size()) == (24, 24, 24, 1)
        assert s.data_ptr() == x.data_ptr() - 12 and str(s.device) == "cpu"
        assert s.tolist()[4:8] == [0, 0, 128, 63] and s[7] == 63
        assert type(s).__name__ == "UntypedStorage" and not s.is_shared()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (TypedStorage is deprecated: its warning)
            ts = x.storage()
        assert (ts.size(), str(ts.dtype), ts.nbytes(), ts.element_size()) == (
            6,
            "torch.float32",
            24,
            4,
        )
        assert ts.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0] and ts[4] == 4.0
        assert ts.type() == "torch.FloatStorage" and ts.data_ptr() == s.data_ptr()
        # views share their base's storage; bfloat16's elements are two bytes
        y = lib.ones(4, dtype=lib.bfloat16)
        assert y[2:].untyped_storage().data_ptr() == y.untyped_storage().data_ptr()
        assert y.untyped_storage().nbytes() == 8
    assert repr(cr.tensor([1.5, 2.0]).untyped_storage()) == repr(
        torch.tensor([1.5, 2.0]).untyped_storage()
    )


def test_frombuffer_shares_the_buffer_as_torch():
    for lib in (cr, torch):
        b = bytearray(8)
        t = lib.frombuffer(b, dtype=lib.int32)
        t[1] = 7
        assert list(b) == [0, 0, 0, 0, 7, 0, 0, 0] and t.dtype == lib.int32
        t = lib.frombuffer(bytearray(b"\x00\x00\x80?\x00\x00\x00@"), dtype=lib.float32, count=1,
                           offset=4, requires_grad=True)  # fmt: skip
        assert t.tolist() == [2.0] and t.requires_grad
        assert t.untyped_storage().nbytes() == 4
    data = bytes([0, 0, 128, 63, 0, 0, 0, 64])
    for kwargs in (
        {"dtype": "float32", "count": 3},
        {"dtype": "float32", "offset": 9},
        {"dtype": "float64", "offset": 1},
    ):
        messages = []
        for lib in (cr, torch):
            args = dict(kwargs, dtype=getattr(lib, kwargs["dtype"]))
            with pytest.raises(ValueError) as info:
                lib.frombuffer(bytearray(data), **args)
            messages.append(str(info.value))
        assert messages[0] == messages[1]
    with pytest.raises(ValueError, match=r"both buffer length \(0\) and count \(-1\)"):
        cr.frombuffer(bytearray(), dtype=cr.float32)


def test_layouts_as_torch():
    for name in ("strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "jagged"):
        assert repr(getattr(cr, name)) == repr(getattr(torch, name))
    x = cr.ones(2)
    assert x.layout is cr.strided and x.layout != cr.sparse_coo
    assert isinstance(cr.strided, cr.layout)
    assert cr.zeros(2, layout=cr.strided).tolist() == [0.0, 0.0]
