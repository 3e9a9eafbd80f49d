"""The Tensor class, dtypes and constructors, checked against PyTorch (the oracle).

Most tests run the same function on ``chainrule`` and on ``torch`` and compare what
comes out: values, shapes, dtypes (as printed: chainrule's print as ``torch.float32``),
exception types and messages.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import assert_close, assert_same_error, both, error_of

DTYPE_NAMES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]


@pytest.fixture(autouse=True)
def _restore_torch_default_dtype():
    dtype = torch.get_default_dtype()
    yield
    torch.set_default_dtype(dtype)


# ----- dtypes ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_dtype_names_print_like_torch(name):
    d, t = getattr(cr, name), getattr(torch, name)
    assert repr(d) == repr(t) == f"torch.{name}"
    assert str(d) == str(t)
    assert isinstance(d, cr.dtype)


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_dtype_attributes_match_torch(name):
    d, t = getattr(cr, name), getattr(torch, name)
    assert d.is_floating_point == t.is_floating_point
    assert d.is_signed == t.is_signed
    assert d.itemsize == t.itemsize


@pytest.mark.parametrize(
    "alias, target",
    [
        ("float", "float32"),
        ("double", "float64"),
        ("half", "float16"),
        ("int", "int32"),
        ("long", "int64"),
        ("short", "int16"),
    ],
)
def test_dtype_aliases(alias, target):
    assert getattr(cr, alias) is getattr(cr, target)
    assert repr(getattr(cr, alias)) == repr(getattr(torch, alias)) == f"torch.{target}"


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_tensor_of_each_dtype(name):
    c, t = both(lambda L: L.tensor([0, 1, 3], dtype=getattr(L, name)))
    assert c.dtype is getattr(cr, name)
    assert c.numpy().dtype == t.numpy().dtype
    assert_close(c, t, exact=True)
    assert c.element_size() == t.element_size()
    assert c.is_floating_point() == t.is_floating_point()


def test_default_dtype_is_float32():
    assert cr.get_default_dtype() is cr.float32
    assert repr(cr.get_default_dtype()) == repr(torch.get_default_dtype())


def test_set_default_dtype_float64_changes_float_constructors_only():
    def make(L):
        L.set_default_dtype(L.float64)
        try:
            return [
                L.tensor([1.5]),
                L.zeros(2),
                L.ones(1),
                L.arange(3.0),
                L.linspace(0, 1, 3),
                L.full((2,), 2.5),
                L.rand(2),
                L.tensor([1, 2]),
                L.tensor(True),
                L.eye(2),
                L.Tensor([1, 2]),
            ], L.get_default_dtype()
        finally:
            L.set_default_dtype(L.float32)

    (cs, cdef), (ts, tdef) = both(make)
    assert cdef is cr.float64 and repr(cdef) == repr(tdef)
    assert [str(c.dtype) for c in cs] == [str(t.dtype) for t in ts]
    assert cs[0].dtype is cr.float64 and cs[7].dtype is cr.int64
    assert cr.get_default_dtype() is cr.float32
    assert cr.tensor([1.5]).dtype is cr.float32


def test_set_default_dtype_rejects_integer_types():
    assert_same_error(
        lambda L: L.set_default_dtype(L.int64),
        "only floating-point types are supported as the default type",
    )
    assert cr.get_default_dtype() is cr.float32


# ----- autograd attributes -----------------------------------------------------------------


def test_data_is_detached_and_shares_memory():
    def f(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        d = x.data
        d[0] = 7.0
        return x, d, d.requires_grad, d.is_leaf, d.grad_fn is None, d is x

    (cx, cd, *crest), (tx, td, *trest) = both(f)
    assert crest == trest == [False, True, True, False]
    assert_close(cx, tx, exact=True)
    assert_close(cd, td, exact=True)


def test_data_setter_replaces_values_keeps_flags():
    def f(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        x.data = L.tensor([5.0, 6.0])
        return x, x.is_leaf

    (cx, cl), (tx, tl) = both(f)
    assert_close(cx, tx, exact=True)
    assert cl == tl is True


def test_data_does_not_share_the_version_counter():
    x = cr.tensor([1.0, 2.0])
    x.data.mul_(2)
    assert x._version == 0
    assert x.tolist() == [2.0, 4.0]


def test_grad_is_settable_and_resettable():
    x = cr.tensor([1.0, 2.0], requires_grad=True)
    assert x.grad is None
    g = cr.tensor([0.5, 0.25])
    x.grad = g
    assert x.grad is g
    (x * 3).sum().backward()
    assert x.grad is g  # accumulated in place, as in PyTorch
    assert g.tolist() == [3.5, 3.25]
    x.grad = None
    assert x.grad is None
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    del x.grad
    assert x.grad is None


def test_grad_assignment_wrong_shape():
    assert_same_error(lambda L: setattr(L.tensor([1.0, 2.0]), "grad", L.zeros(3)))


def test_grad_assignment_wrong_dtype():
    assert_same_error(
        lambda L: setattr(L.tensor([1.0, 2.0]), "grad", L.zeros(2, dtype=L.float64)),
        "attempting to assign a gradient with dtype",
    )


def test_grad_assignment_wrong_type():
    assert_same_error(lambda L: setattr(L.tensor([1.0, 2.0]), "grad", 3))
    assert_same_error(
        lambda L: setattr(L.tensor([1.0, 2.0]), "grad", np.zeros(2)),
        "assigned grad expected to be a Tensor or None but got grad of type",
    )


def test_requires_grad_settable_on_leaves():
    x = cr.tensor([1.0, 2.0])
    assert x.requires_grad is False
    x.requires_grad = True
    assert x.requires_grad is True and x.is_leaf
    x.requires_grad = False
    assert x.requires_grad is False
    assert x.requires_grad_() is x and x.requires_grad is True
    assert x.requires_grad_(False) is x and x.requires_grad is False


@pytest.mark.parametrize("name", ["int8", "int16", "int32", "int64", "uint8", "bool"])
def test_requires_grad_on_integer_tensor_raises(name):
    assert_same_error(lambda L: L.tensor([1, 0], dtype=getattr(L, name)).requires_grad_())
    assert_same_error(
        lambda L: setattr(L.tensor([1, 0], dtype=getattr(L, name)), "requires_grad", True),
        "can require gradients",
    )


def test_requires_grad_false_on_non_leaf_raises():
    assert_same_error(
        lambda L: setattr(L.tensor([1.0], requires_grad=True) * 2, "requires_grad", False)
    )
    y = cr.tensor([1.0], requires_grad=True) * 2
    assert y.requires_grad_(True) is y and y.requires_grad


def test_grad_fn_and_is_leaf():
    x = cr.tensor([1.0, 2.0], requires_grad=True)
    c = cr.tensor([1.0, 2.0])
    assert x.grad_fn is None and x.is_leaf
    assert c.grad_fn is None and c.is_leaf
    y = x * 2
    assert y.grad_fn is not None and not y.is_leaf and y.requires_grad
    z = c * 2
    assert z.grad_fn is None and z.is_leaf and not z.requires_grad
    with cr.no_grad():
        w = x * 2
    assert w.grad_fn is None and w.is_leaf and not w.requires_grad


# ----- metadata ----------------------------------------------------------------------------


def test_shape_is_a_size_tuple():
    c, t = both(lambda L: L.zeros(2, 3).shape)
    assert isinstance(c, tuple) and isinstance(c, cr.Size)
    assert type(c).__name__ == type(t).__name__ == "Size"
    assert repr(c) == repr(t) == "torch.Size([2, 3])"
    assert str(c) == str(t)
    assert c == (2, 3) and c == t
    assert c.numel() == 6
    assert repr(cr.zeros(()).shape) == repr(torch.zeros(()).shape) == "torch.Size([])"
    assert cr.Size([4, 5]) == (4, 5)
    assert repr(cr.Size([4, 5])) == "torch.Size([4, 5])"


def test_shape_slice_is_a_size():
    c, t = both(lambda L: L.zeros(2, 3, 4).shape[1:])
    assert repr(c) == repr(t) == "torch.Size([3, 4])"


def test_size_and_dims():
    x = cr.zeros(2, 3, 4)
    assert x.size() == (2, 3, 4) and repr(x.size()) == "torch.Size([2, 3, 4])"
    assert [x.size(d) for d in range(-3, 3)] == [2, 3, 4, 2, 3, 4]
    assert type(x.size(0)) is int
    assert x.dim() == x.ndim == x.ndimension() == 3
    assert x.numel() == 24 and x.nelement() == 24


@pytest.mark.parametrize("dim", [2, 3, -3, 100])
def test_size_out_of_range(dim):
    assert_same_error(lambda L: L.zeros(2, 3).size(dim))


@pytest.mark.parametrize("dim", [0, -1])
def test_size_of_0d_tensor(dim):
    assert_same_error(lambda L: L.tensor(1.0).size(dim))


@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 0), (2, 3, 4)])
def test_dim_numel(shape):
    c, t = both(lambda L: L.zeros(shape))
    assert (c.dim(), c.ndim, c.numel(), tuple(c.shape)) == (
        t.dim(),
        t.ndim,
        t.numel(),
        tuple(t.shape),
    )


def test_device():
    c, t = both(lambda L: L.zeros(2).device)
    assert str(c) == str(t) == "cpu"
    assert c.type == t.type == "cpu"
    assert repr(c) == repr(t)
    assert c == cr.device("cpu")
    assert cr.zeros(2).is_cuda is False


def test_T_transposes_a_matrix():
    c, t = both(lambda L: L.arange(6).reshape(2, 3).T)
    assert_close(c, t, exact=True)
    assert c.shape == (3, 2)


# ----- conversion to Python and NumPy --------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda L: L.tensor(3.5),
        lambda L: L.tensor([[2]]),
        lambda L: L.tensor(True),
        lambda L: L.tensor([7], dtype=L.uint8),
        lambda L: L.tensor(1.5, requires_grad=True),
    ],
)
def test_item(make):
    c, t = both(lambda L: make(L).item())
    assert c == t and type(c) is type(t)


@pytest.mark.parametrize("n", [0, 2])
def test_item_errors(n):
    assert_same_error(lambda L: L.zeros(n).item())


@pytest.mark.parametrize(
    "make",
    [
        lambda L: L.tensor([[1, 2], [3, 4]]),
        lambda L: L.tensor(1.5),
        lambda L: L.tensor([True]),
        lambda L: L.tensor([1.5, -2.0], dtype=L.float16),
        lambda L: L.zeros(2, 0),
    ],
)
def test_tolist(make):
    c, t = both(lambda L: make(L).tolist())
    assert c == t
    assert type(c) is type(t)


def test_numpy_shares_memory():
    x = cr.tensor([1.0, 2.0])
    a = x.numpy()
    assert isinstance(a, np.ndarray) and a.dtype == np.float32
    a[0] = 9.0
    assert x.tolist() == [9.0, 2.0]
    x.add_(1)
    assert a.tolist() == [10.0, 3.0]


def test_numpy_requires_grad_raises():
    assert_same_error(lambda L: L.zeros(2, requires_grad=True).numpy())
    x = cr.tensor([1.0, 2.0], requires_grad=True)
    a = x.detach().numpy()
    a[1] = 5.0
    assert x.tolist() == [1.0, 5.0]


def test_np_asarray_shares_memory():
    for name in ["float32", "float64", "int32", "bool"]:
        x = cr.tensor([1, 0], dtype=getattr(cr, name))
        a = np.asarray(x)
        assert a.dtype == np.asarray(torch.tensor([1, 0], dtype=getattr(torch, name))).dtype
        assert np.shares_memory(a, x.numpy())
    x = cr.tensor([1.0, 2.0])
    np.asarray(x)[0] = 4.0
    assert x.tolist() == [4.0, 2.0]


def test_np_asarray_of_tensor_requiring_grad_raises():
    assert_same_error(lambda L: np.asarray(L.tensor([1.0, 2.0], requires_grad=True)))


def test_detach_shares_memory_and_version_counter():
    x = cr.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    assert y.requires_grad and y.grad_fn is not None
    d[0] = 7.0
    assert y.tolist() == [7.0, 4.0]
    assert y._version == 1
    d.mul_(2)
    assert y._version == 2


def test_detach_in_place():
    def f(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        r = y.detach_()
        return r is y, y, y.is_leaf, y.grad_fn

    (cs, cy, cl, cg), (ts, ty, tl, tg) = both(f)
    assert cs == ts is True
    assert_close(cy, ty, exact=True)
    assert cl == tl is True and cg is None and tg is None


def test_detach_in_place_of_a_view_raises():
    def f(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        x.view(2).detach_()

    assert_same_error(f, "Can't detach views in-place. Use detach() instead.")


def test_retain_grad_and_retains_grad():
    x = cr.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    assert y.retains_grad is False
    y.retain_grad()
    assert y.retains_grad is True
    (y * y).sum().backward()
    assert y.grad.tolist() == [4.0, 8.0]
    x.retain_grad()  # a leaf: nothing to do
    assert x.retains_grad is False
    assert_same_error(lambda L: L.tensor(3.0).retain_grad())


@pytest.mark.parametrize(
    "op",
    [
        lambda t: t.zero_(),
        lambda t: t.fill_(1.0),
        lambda t: t.copy_(t.detach() + 1),
        lambda t: t.add_(1),
        lambda t: t.mul_(2),
    ],
)
def test_in_place_on_leaf_requiring_grad_raises(op):
    assert_same_error(lambda L: op(L.zeros(2, requires_grad=True)))


def test_in_place_on_leaf_under_no_grad():
    def f(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        with L.no_grad():
            x.zero_()
            x.fill_(3)
            x.copy_(L.tensor([4.0, 5.0]))
        return x

    c, t = both(f)
    assert_close(c, t, exact=True)
    assert c.is_leaf


# ----- dtype conversion ---------------------------------------------------------------------


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_type_string(name):
    c, t = both(lambda L: L.zeros(1, dtype=getattr(L, name)).type())
    assert c == t


# ----- Python protocols ----------------------------------------------------------------------


def test_len_and_iter():
    def f(L):
        t = L.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        return len(t), list(t), [float(r.sum()) for r in t]

    (cl, crows, csums), (tl, trows, tsums) = both(f)
    assert cl == tl == 3 and csums == tsums
    for c, t in zip(crows, trows, strict=True):
        assert_close(c, t, exact=True)


def test_0d_len_and_iter_raise():
    assert_same_error(lambda L: len(L.tensor(1.0)))
    assert_same_error(lambda L: iter(L.tensor(1.0)))


def test_scalar_conversions():
    c, t = both(
        lambda L: (
            int(L.tensor(2.7)),
            int(L.tensor(-2.7)),
            float(L.tensor(3)),
            int(L.tensor([[5]])),
            bool(L.tensor([0.0])),
            bool(L.tensor(2)),
            complex(L.tensor(1.5)),
            float(L.tensor([True])),
        )
    )
    assert c == t
    assert [type(v) for v in c] == [type(v) for v in t]


@pytest.mark.parametrize("fn", [bool, float, int])
def test_multi_element_scalar_conversion_raises(fn):
    assert_same_error(lambda L: fn(L.zeros(2)))


def test_bool_of_empty_tensor_raises():
    assert_same_error(lambda L: bool(L.zeros(0)))


def test_index():
    seq = [10, 20, 30]
    assert seq[cr.tensor(1)] == 20
    assert seq[cr.tensor(2, dtype=cr.int32)] == 30
    assert seq[cr.tensor([0], dtype=cr.uint8)] == 10
    assert range(10)[cr.tensor(3)] == 3
    assert cr.tensor(3).__index__() == 3
    assert_same_error(lambda L: seq[L.tensor(1.0)])
    assert_same_error(lambda L: seq[L.tensor([1, 2])])


def test_index_of_bool_tensor():
    c, t = both(lambda L: [10, 20, 30][L.tensor(True)])
    assert c == t == 20


def test_elementwise_eq_returns_a_tensor():
    def f(L):
        a = L.tensor([1, 2, 3])
        return [a == L.tensor([1, 0, 3]), a != 2, a == 2, L.tensor([1.0, 2.0]) == 1]

    cs, ts = both(f)
    for c, t in zip(cs, ts, strict=True):
        assert_close(c, t, exact=True)
    assert (cr.zeros(2) == None) is False  # noqa: E711 - PyTorch's answer


def test_identity_hashing():
    a = cr.tensor([1.0, 2.0])
    b = cr.tensor([1.0, 2.0])
    d = {a: "a", b: "b"}
    assert d[a] == "a" and d[b] == "b"
    s = {a, b, a}
    assert len(s) == 2 and a in s and b in s
    assert cr.tensor([1.0, 2.0]) not in s
    assert hash(a) == hash(a) != hash(b)


# ----- constructors: from data --------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        [1.5, 2.0],
        [1, 2],
        [True, False],
        3,
        3.5,
        True,
        [],
        [[1, 2], [3, 4]],
        [1, 2.0],
        [True, 2],
        [True, 1.5],
        np.array([1.5, 2.0]),
        np.float64(1.5),
        [np.float64(1.5)],
        np.float32(2.5),
        np.array([1, 2], dtype=np.int32),
        np.array([1.0], dtype=np.float32),
        np.array([True]),
        np.array([1, 2]),
        [np.float32(1.0), np.float32(2.0)],
    ],
    ids=repr,
)
def test_tensor_dtype_inference(data):
    c, t = both(lambda L: L.tensor(data))
    assert_close(c, t, exact=True)


def test_tensor_dtype_inference_numpy_integer_scalars():
    c, t = both(lambda L: L.tensor([np.int32(1), np.int32(2)]))
    assert_close(c, t, exact=True)


def test_tensor_inference_rules():
    assert cr.tensor([1.5]).dtype is cr.float32
    assert cr.tensor([1]).dtype is cr.int64
    assert cr.tensor([True]).dtype is cr.bool
    assert cr.tensor(np.array([1.5])).dtype is cr.float64


def test_tensor_copies_its_data():
    a = np.array([1.0, 2.0])
    t = cr.tensor(a)
    a[0] = 5.0
    assert t.tolist() == [1.0, 2.0]
    src = cr.tensor([1.0, 2.0])
    t2 = cr.tensor([src[0], src[1]])
    assert t2.tolist() == [1.0, 2.0]


def test_tensor_dtype_and_requires_grad_keywords():
    c, t = both(lambda L: L.tensor([1, 2], dtype=L.float64, requires_grad=True))
    assert_close(c, t, exact=True)
    assert c.is_leaf
    assert_same_error(lambda L: L.tensor([1, 2], requires_grad=True))


def test_tensor_invalid_data():
    assert_same_error(lambda L: L.tensor("a"))
    assert type(error_of(lambda L: L.tensor([[1, 2], [3]]), cr)) is ValueError


def test_as_tensor_shares_memory_for_same_dtype():
    a = np.array([1.0, 2.0])
    t = cr.as_tensor(a)
    assert t.dtype is cr.float64
    a[0] = 5.0
    assert t.tolist() == [5.0, 2.0]
    t32 = cr.as_tensor(a, dtype=cr.float32)  # a different dtype: a copy
    a[1] = 7.0
    assert t32.tolist() == [5.0, 2.0] and t32.dtype is cr.float32
    x = cr.tensor([1.0])
    assert cr.as_tensor(x) is x
    assert cr.as_tensor(x, dtype=cr.float64).dtype is cr.float64
    c, t_ = both(lambda L: L.as_tensor([1, 2]))
    assert_close(c, t_, exact=True)


def test_from_numpy_shares_memory_both_ways():
    a = np.array([1.0, 2.0])
    t = cr.from_numpy(a)
    assert t.dtype is cr.float64
    a[0] = 5.0
    t[1] = 6.0
    assert t.tolist() == [5.0, 6.0]
    assert a.tolist() == [5.0, 6.0]
    for dt in [np.float32, np.int32, np.int64, np.uint8, np.bool_, np.float16, np.int8, np.int16]:
        c, tt = both(lambda L: L.from_numpy(np.zeros(2, dtype=dt)))  # noqa: B023
        assert str(c.dtype) == str(tt.dtype)
    assert_same_error(lambda L: L.from_numpy([1, 2]))


# ----- constructors: filled ------------------------------------------------------------------


@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
@pytest.mark.parametrize("size", [(2, 3), ((2, 3),), ([2, 3],), (0,), ((),), (4,)], ids=repr)
def test_zeros_ones_empty(name, size):
    c, t = both(lambda L: getattr(L, name)(*size))
    assert tuple(c.shape) == tuple(t.shape) and str(c.dtype) == str(t.dtype)
    if name != "empty":
        assert_close(c, t, exact=True)


@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
def test_zeros_ones_empty_keywords(name):
    c, t = both(lambda L: getattr(L, name)(2, dtype=L.float64, requires_grad=True))
    assert tuple(c.shape) == tuple(t.shape) and str(c.dtype) == str(t.dtype)
    assert c.requires_grad and c.is_leaf
    c, t = both(lambda L: getattr(L, name)(2, 2, dtype=L.int32))
    assert str(c.dtype) == str(t.dtype)
    assert_same_error(lambda L: getattr(L, name)(2, dtype=L.int64, requires_grad=True))
    c, t = both(lambda L: getattr(L, name)(L.Size([3, 1])))
    assert tuple(c.shape) == tuple(t.shape) == (3, 1)


@pytest.mark.parametrize(
    "args, kwargs",
    [
        (((2,), 1), {}),
        (((2,), 1.0), {}),
        (((2,), True), {}),
        (((2, 2), 7.5), {}),
        (([3], -2), {}),
        (((2,), 1), {"dtype": "float64"}),
        (((2,), 2.5), {"dtype": "int32"}),
        (((2,), 7.0), {"requires_grad": True}),
    ],
    ids=repr,
)
def test_full(args, kwargs):
    def f(L):
        kw = {k: getattr(L, v) if k == "dtype" else v for k, v in kwargs.items()}
        return L.full(*args, **kw)

    c, t = both(f)
    assert_close(c, t, exact=True)
    assert_same_error(lambda L: L.full((2,), 7, requires_grad=True))


@pytest.mark.parametrize(
    "args, kwargs",
    [
        ((3,), {}),
        ((2, 3), {}),
        ((3, 2), {}),
        ((1,), {}),
        ((3,), {"dtype": "int32"}),
        ((2,), {"dtype": "float64"}),
        ((2,), {"requires_grad": True}),
        ((0,), {}),
    ],
    ids=repr,
)
def test_eye(args, kwargs):
    def f(L):
        kw = {k: getattr(L, v) if k == "dtype" else v for k, v in kwargs.items()}
        return L.eye(*args, **kw)

    c, t = both(f)
    assert_close(c, t, exact=True)


@pytest.mark.parametrize(
    "args, kwargs",
    [
        ((5,), {}),
        ((1, 4), {}),
        ((0, 1, 0.25), {}),
        ((1, 2.5, 0.5), {}),
        ((5.0,), {}),
        ((10, 0, -3), {}),
        ((0, 1, 0.1), {}),
        ((0.5, 3), {}),
        ((-1, 1, 0.5), {}),
        ((0, 5, 1.5), {}),
        ((0.0, 3), {}),
        ((1, 10, 2.5), {}),
        ((-5, 5, 3), {}),
        ((1, 1.3, 0.1), {}),
        ((0,), {}),
        ((0, 0.3, 0.1), {}),
        ((5,), {"dtype": "float64"}),
        ((0, 1, 0.1), {"dtype": "float64"}),
        ((3,), {"dtype": "int32"}),
        ((0, 10, 3), {"dtype": "float32"}),
        ((3.0,), {"requires_grad": True}),
        ((2.5, -1, -0.5), {}),
    ],
    ids=repr,
)
def test_arange(args, kwargs):
    def f(L):
        kw = {k: getattr(L, v) if k == "dtype" else v for k, v in kwargs.items()}
        return L.arange(*args, **kw)

    c, t = both(f)
    assert_close(c, t, exact=True)


def test_arange_tensor_arguments():
    c, t = both(lambda L: L.arange(L.tensor(3)))
    assert_close(c, t, exact=True)


def test_arange_zero_step_raises():
    assert_same_error(lambda L: L.arange(0, 10, 0))


def test_arange_inconsistent_bounds_raise():
    assert_same_error(lambda L: L.arange(3, 0))
    assert_same_error(lambda L: L.arange(0, 3, -1))


@pytest.mark.parametrize(
    "args, kwargs",
    [
        ((0, 1, 5), {}),
        ((0, 1, 11), {}),
        ((-1, 1, 7), {}),
        ((3, 3, 1), {}),
        ((0, 1, 0), {}),
        ((0, 1, 1), {}),
        ((0, 10, 3), {}),
        ((2, -3, 6), {}),
        ((-1, 1, 7), {"dtype": "float64"}),
        ((0, 10, 4), {"dtype": "int64"}),
        ((0, 10, 5), {"dtype": "int32"}),
        ((0, 1, 3), {"requires_grad": True}),
        ((0, 100, 1000), {}),
    ],
    ids=repr,
)
def test_linspace(args, kwargs):
    def f(L):
        kw = {k: getattr(L, v) if k == "dtype" else v for k, v in kwargs.items()}
        return L.linspace(*args, **kw)

    c, t = both(f)
    # PyTorch computes in the target dtype (first half from start, second from end):
    # values agree to rounding
    assert_close(c, t, exact=not c.dtype.is_floating_point)
    assert c.tolist()[:1] == t.tolist()[:1] and c.tolist()[-1:] == t.tolist()[-1:]


def test_linspace_negative_steps_raises():
    assert_same_error(lambda L: L.linspace(0, 1, -1))


@pytest.mark.parametrize("name, fill", [("zeros_like", 0), ("ones_like", 1), ("full_like", 2.5)])
@pytest.mark.parametrize("base", ["float32", "float64", "int32", "int64", "bool"])
def test_filled_like(name, fill, base):
    def f(L):
        x = L.tensor([[1, 0, 1], [0, 1, 1]], dtype=getattr(L, base))
        args = (x, fill) if name == "full_like" else (x,)
        return [
            getattr(L, name)(*args),
            getattr(L, name)(*args, dtype=L.float64),
            getattr(L, name)(*args, dtype=L.int16),
        ]

    cs, ts = both(f)
    for c, t in zip(cs, ts, strict=True):
        assert_close(c, t, exact=True)


def test_like_requires_grad():
    for name in ["zeros_like", "ones_like", "empty_like", "rand_like", "randn_like"]:
        c = getattr(cr, name)(cr.zeros(2, 3), requires_grad=True)
        assert c.requires_grad and c.is_leaf and c.shape == (2, 3) and c.dtype is cr.float32
    c, t = both(lambda L: L.full_like(L.zeros(2), 3.0, requires_grad=True))
    assert_close(c, t, exact=True)
    assert_same_error(lambda L: L.zeros_like(L.tensor([1, 2]), requires_grad=True))


@pytest.mark.parametrize("name", ["empty_like", "rand_like", "randn_like"])
@pytest.mark.parametrize("base", ["float16", "float32", "float64"])
def test_empty_and_random_like_keep_shape_and_dtype(name, base):
    c, t = both(lambda L: getattr(L, name)(L.zeros(2, 3, dtype=getattr(L, base))))
    assert tuple(c.shape) == tuple(t.shape) == (2, 3)
    assert str(c.dtype) == str(t.dtype)
    c, t = both(lambda L: getattr(L, name)(L.zeros(4), dtype=L.float64))
    assert str(c.dtype) == str(t.dtype) == "torch.float64"


# ----- random ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["rand", "randn"])
def test_rand_randn_shapes_dtypes(name):
    fn = getattr(cr, name)
    for size in [(3,), (2, 3), ((2, 3),), ([4],), ((),)]:
        c = fn(*size)
        t = getattr(torch, name)(*size)
        assert tuple(c.shape) == tuple(t.shape) and c.dtype is cr.float32
    assert fn(3, dtype=cr.float64).dtype is cr.float64
    assert fn(3, dtype=cr.float16).dtype is cr.float16
    x = fn(2, requires_grad=True)
    assert x.requires_grad and x.is_leaf


def test_rand_values():
    cr.manual_seed(0)
    u = cr.rand(10000).numpy()
    assert u.min() >= 0.0 and u.max() < 1.0
    assert abs(u.mean() - 0.5) < 0.02
    n = cr.randn(10000, dtype=cr.float64).numpy()
    assert abs(n.mean()) < 0.05 and abs(n.std() - 1.0) < 0.05


@pytest.mark.parametrize("name", ["rand", "randn"])
def test_rand_integer_dtype_raises(name):
    assert_same_error(lambda L: getattr(L, name)(2, dtype=L.int64), "not implemented for")


def test_randint():
    cr.manual_seed(0)
    for args in [(0, 10, (3,)), (10, (3,)), (3, 5, (1000,)), (-2, 2, (2, 3))]:
        c = cr.randint(*args)
        t = torch.randint(*args)
        assert tuple(c.shape) == tuple(t.shape) and c.dtype is cr.int64
    v = cr.randint(3, 5, (1000,)).numpy()
    assert set(v.tolist()) == {3, 4}
    assert set(cr.randint(4, (1000,)).tolist()) == {0, 1, 2, 3}
    assert cr.randint(0, 5, (3,), dtype=cr.int32).dtype is cr.int32
    assert cr.randint(0, 5, (3,), dtype=cr.float32).dtype is cr.float32
    assert_same_error(lambda L: L.randint(3, (2,), requires_grad=True))


def test_randint_empty_range_raises():
    assert_same_error(lambda L: L.randint(5, 5, (3,)))


@pytest.mark.parametrize(
    "draw",
    [
        lambda: cr.rand(5),
        lambda: cr.randn(2, 3),
        lambda: cr.randint(0, 1000, (8,)),
        lambda: cr.randn(4, dtype=cr.float64),
        lambda: cr.rand_like(cr.zeros(3)),
        lambda: cr.randn_like(cr.zeros(3)),
        lambda: cr.randperm(10),
    ],
)
def test_manual_seed_reproducibility(draw):
    cr.manual_seed(1234)
    a1, a2 = draw(), draw()
    cr.manual_seed(1234)
    b1, b2 = draw(), draw()
    np.testing.assert_array_equal(a1.numpy(), b1.numpy())
    np.testing.assert_array_equal(a2.numpy(), b2.numpy())
    assert not np.array_equal(a1.numpy(), a2.numpy())  # the stream moves on
    cr.manual_seed(4321)
    c1 = draw()
    assert not np.array_equal(a1.numpy(), c1.numpy())


def test_manual_seed_returns_generator_and_initial_seed():
    g = cr.manual_seed(123)
    assert type(g).__name__ == "Generator"
    assert cr.initial_seed() == 123
    cr.manual_seed(0)


# ----- legacy constructors ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "FloatTensor",
        "DoubleTensor",
        "LongTensor",
        "IntTensor",
        "BoolTensor",
        "HalfTensor",
        "ShortTensor",
        "CharTensor",
        "ByteTensor",
    ],
)
@pytest.mark.parametrize(
    "data", [[1, 0, 2], [[1.5, 0.0], [-2.0, 3.0]], [True, False], [0.1, 1.0, 0.0001]], ids=repr
)
def test_legacy_constructors_from_data(name, data):
    if name in ("ByteTensor", "CharTensor") and data and isinstance(data[0], list):
        data = [[1, 0], [2, 3]]  # no negative values for bytes
    c, t = both(lambda L: getattr(L, name)(data))
    assert_close(c, t, exact=True)


@pytest.mark.parametrize(
    "name", ["FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "BoolTensor"]
)
@pytest.mark.parametrize("sizes", [(2, 3), (4,), (0,), ()], ids=repr)
def test_legacy_constructors_from_sizes(name, sizes):
    c, t = both(lambda L: getattr(L, name)(*sizes))
    assert tuple(c.shape) == tuple(t.shape)
    assert str(c.dtype) == str(t.dtype)
    assert isinstance(c, getattr(cr, name)) and isinstance(c, cr.Tensor)


def test_legacy_isinstance():
    assert isinstance(cr.zeros(2), cr.FloatTensor)
    assert not isinstance(cr.zeros(2), cr.LongTensor)
    assert isinstance(cr.tensor([1]), cr.LongTensor)
    c, t = both(lambda L: L.Tensor([1, 2]))
    assert_close(c, t, exact=True)
    c, t = both(lambda L: L.Tensor(2, 3))
    assert tuple(c.shape) == tuple(t.shape) and str(c.dtype) == str(t.dtype)


def test_variable_requires_grad():
    def f(L):
        t = L.tensor([1.0, 2.0])
        v = L.autograd.Variable(t, requires_grad=True)
        return v, v.is_leaf, v.data_ptr() == t.data_ptr(), type(v).__name__

    (cv, *crest), (tv, *trest) = both(f)
    assert_close(cv, tv, exact=True)
    assert crest == trest == [True, True, "Tensor"]
    v = cr.autograd.Variable(cr.tensor([1.0]))
    assert v.requires_grad is False
    (v2 := cr.autograd.Variable(cr.tensor([3.0]), requires_grad=True)).backward(cr.ones(1))
    assert v2.grad.tolist() == [1.0]


def test_variable_does_not_change_its_argument():
    def f(L):
        t = L.tensor([1.0, 2.0])
        L.autograd.Variable(t, requires_grad=True)
        return t.requires_grad

    c, t = both(f)
    assert c == t is False


def test_repr_uses_torch_names():
    assert re.fullmatch(r"tensor\(\[1\., 2\.\]\)", repr(cr.tensor([1.0, 2.0])))


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: [lib.tensor(1.0), 2],
        lambda lib: [lib.tensor(1), 2.5],
        lambda lib: [lib.tensor(1.0, dtype=lib.float64), 2],
        lambda lib: [lib.tensor(1, dtype=lib.int32), 2],
        lambda lib: [lib.tensor(True), False],
        lambda lib: [[1, 2], [3.5, 4]],
        lambda lib: [True, 2],
        lambda lib: [np.float64(1.0), 2.0],
        lambda lib: [np.float32(1.0), 2],
        lambda lib: [np.int64(1), 2.5],
        lambda lib: [np.uint8(3), 2],
        lambda lib: np.float64(2.0),
        lambda lib: [],
    ],
)
def test_tensor_from_mixed_data_takes_torchs_dtype(make) -> None:
    """Each element brings its own dtype (a 0-d tensor or NumPy value its own, a Python
    float the default one), promoted over all elements, as torch.tensor infers it."""
    got, want = cr.tensor(make(cr)), torch.tensor(make(torch))
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_strides_of_empty_tensors_are_row_major_as_torch():
    """NumPy gives an empty array zero strides; PyTorch's constructors give row-major ones
    (a size 0 counting as 1)."""
    for shape in [(0, 3), (3, 0), (2, 0, 4), (0,)]:
        assert cr.zeros(*shape).stride() == torch.zeros(*shape).stride()


def test_to_dense_is_maia_and_init_num_threads_as_torch():
    for lib in (cr, torch):
        x = lib.ones(2, 3)
        assert x.to_dense() is x and not x.is_maia
        assert x.to_dense(dtype=lib.float64).dtype == lib.float64
        assert lib.init_num_threads() is None
