"""Memory formats (_memory_format.py and the methods that take ``memory_format=``) against
PyTorch: the format objects, strides and ``is_contiguous`` for row-major and channels-last
layouts, values and gradients through ``to``/``contiguous``, constructors and ``*_like``,
``Module.to``, ``nn.utils.convert_conv*_weight_memory_format``, and PyTorch's errors."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import assert_same_error, check, compare, randn

FORMATS = ["contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]

# ----- the format objects --------------------------------------------------------------------


@pytest.mark.parametrize("name", [*FORMATS, "legacy_contiguous_format"])
def test_format_objects_print_as_torch(name):
    assert repr(getattr(cr, name)) == repr(getattr(torch, name))
    assert str(getattr(cr, name)) == str(getattr(torch, name))
    assert isinstance(getattr(cr, name), cr.memory_format)


def test_legacy_contiguous_format_is_contiguous_format():
    assert cr.legacy_contiguous_format is cr.contiguous_format
    assert torch.legacy_contiguous_format is torch.contiguous_format


def test_formats_are_singletons_under_copy_and_pickle():
    fmt = cr.channels_last
    assert copy.deepcopy(fmt) is fmt
    assert pickle.loads(pickle.dumps(fmt)) is fmt
    assert cr.channels_last != cr.contiguous_format


def test_memory_format_cannot_be_instantiated():
    assert_same_error(lambda L: L.memory_format())


# ----- strides and is_contiguous -------------------------------------------------------------

# size-1 dims take any stride in PyTorch's channels-last rule; (0, 3, 4, 5) has no strides
# to compare (chainrule reports a zero-size array's strides as 0), only contiguity
SHAPES_4D = [(2, 3, 4, 5), (2, 1, 4, 5), (1, 3, 1, 1), (2, 3, 1, 5), (2, 3, 4, 1), (1, 1, 1, 1)]


def _layout_facts(t, L):
    return (
        t.stride(),
        t.is_contiguous(),
        t.is_contiguous(memory_format=L.contiguous_format),
        t.is_contiguous(memory_format=L.channels_last),
        t.is_contiguous(memory_format=L.channels_last_3d),
        t.is_contiguous(memory_format=L.preserve_format),
    )


@pytest.mark.parametrize("shape", SHAPES_4D, ids=str)
def test_channels_last_strides_and_contiguity(shape):
    compare(lambda L: _layout_facts(L.zeros(shape), L))
    compare(lambda L: _layout_facts(L.zeros(shape).to(memory_format=L.channels_last), L))
    compare(lambda L: _layout_facts(L.zeros(shape).contiguous(memory_format=L.channels_last), L))


def test_empty_tensor_contiguity():
    # NumPy gives a zero-size array zero strides, so only row-major contiguity is compared
    compare(lambda L: _layout_facts(L.zeros(0, 3, 4, 5), L)[1:3])
    compare(lambda L: _layout_facts(L.zeros(0, 3, 4, 5).to(memory_format=L.channels_last), L)[1:3])


@pytest.mark.parametrize("shape", [(2, 3, 4, 5, 6), (1, 2, 1, 3, 1)], ids=str)
def test_channels_last_3d_strides_and_contiguity(shape):
    compare(lambda L: _layout_facts(L.zeros(shape).to(memory_format=L.channels_last_3d), L))
    compare(lambda L: _layout_facts(L.zeros(shape), L))


def test_is_contiguous_other_ranks_and_views():
    compare(lambda L: _layout_facts(L.zeros(2, 3, 4), L))
    compare(lambda L: _layout_facts(L.zeros(2, 3, 4, 5).permute(0, 2, 3, 1), L))
    # an NHWC array viewed as NCHW, made by hand: channels-last without any format call
    compare(lambda L: _layout_facts(L.zeros(2, 4, 5, 3).permute(0, 3, 1, 2), L))
    compare(lambda L: _layout_facts(L.zeros(2, 3, 4, 10)[..., ::2], L))


# ----- values and gradients -----------------------------------------------------------------


def test_to_channels_last_values_gradients_and_node():
    x = randn((2, 3, 4, 5), 1)
    check(lambda L, x: x.to(memory_format=L.channels_last), x)
    compare(
        lambda L: (
            L.ones(2, 3, 4, 5, requires_grad=True).to(memory_format=L.channels_last).grad_fn.name()
        )
    )


def test_contiguous_round_trip_values_and_gradients():
    x = randn((2, 3, 4, 5), 2)
    check(lambda L, x: x.contiguous(memory_format=L.channels_last).contiguous() * 2, x)
    check(lambda L, x: x.to(memory_format=L.channels_last).contiguous().flatten(), x)
    check(lambda L, x: x.to(L.float64, memory_format=L.channels_last).sum(1), x)
    x5 = randn((2, 3, 2, 2, 3), 3)
    check(lambda L, x: x.to(memory_format=L.channels_last_3d) * x, x5)


def test_gradient_is_contiguous_and_node_names():
    def fn(L):
        a = L.arange(120.0).reshape(2, 3, 4, 5).requires_grad_()
        b = a.to(memory_format=L.channels_last)
        c = a.contiguous(memory_format=L.channels_last)
        w = L.arange(120.0).reshape(2, 3, 4, 5)
        ((b + c) * w).sum().backward()
        return a.grad, a.grad.stride(), b.grad_fn.name(), c.grad_fn.name()

    compare(fn)


def test_to_returns_self_when_already_in_format():
    def fn(L):
        x = L.zeros(2, 3, 4, 5)
        y = x.to(memory_format=L.channels_last)
        return (
            y.to(memory_format=L.channels_last) is y,
            x.to(memory_format=L.contiguous_format) is x,
            y.contiguous(memory_format=L.channels_last) is y,
            y.contiguous() is y,
            x.contiguous(memory_format=L.preserve_format) is x,
            y.to(memory_format=L.channels_last, copy=True) is y,
            x.to(memory_format=L.preserve_format).stride(),
            y.to(L.float64).stride(),
            y.to(L.float64, memory_format=L.contiguous_format).stride(),
        )

    compare(fn)


# ----- constructors and *_like ---------------------------------------------------------------


def test_empty_with_memory_format():
    compare(lambda L: L.empty(2, 3, 4, 5, memory_format=L.channels_last).stride())
    compare(lambda L: L.empty((2, 3, 4, 5), memory_format=L.contiguous_format).stride())
    compare(lambda L: L.empty(2, 3, 4, 5, 6, memory_format=L.channels_last_3d).stride())
    compare(lambda L: L.empty(2, 3, 4, 5, memory_format=L.channels_last).shape)


@pytest.mark.parametrize(
    "like", ["zeros_like", "ones_like", "empty_like", "randn_like", "rand_like"]
)
def test_like_keeps_or_sets_the_layout(like):
    def fn(L):
        y = L.zeros(2, 3, 4, 5).to(memory_format=L.channels_last)
        make = getattr(L, like)
        return (
            make(y).stride(),
            make(y, memory_format=L.preserve_format).stride(),
            make(y, memory_format=L.contiguous_format).stride(),
            make(L.zeros(2, 3, 4, 5), memory_format=L.channels_last).stride(),
            make(y).shape,
        )

    compare(fn)


def test_like_values_and_integer_likes():
    def fn(L):
        y = L.arange(120.0).reshape(2, 3, 4, 5).to(memory_format=L.channels_last)
        return (
            L.full_like(y, 7.0),
            L.full_like(y, 7.0).stride(),
            L.ones_like(y, dtype=L.float64, memory_format=L.contiguous_format),
            L.randint_like(y, 5).stride(),
            L.zeros_like(L.zeros(4, 6)[:, ::2].t()).stride(),  # not dense: compact, same order
        )

    compare(fn)


# ----- modules --------------------------------------------------------------------------------


def _net(L):
    L.manual_seed(0)
    return L.nn.Sequential(L.nn.Conv2d(3, 4, 3), L.nn.BatchNorm2d(4), L.nn.Linear(5, 2))


def _strides(m):
    return {n: t.stride() for n, t in [*m.named_parameters(), *m.named_buffers()]}


def test_module_to_channels_last_converts_4d_tensors_only():
    def fn(L):
        m = _net(L).to(memory_format=L.channels_last)
        return _strides(m), m[0].weight.is_contiguous(memory_format=L.channels_last)

    compare(fn)
    compare(lambda L: _strides(_net(L).to(L.float64, memory_format=L.channels_last)))


def test_module_to_channels_last_keeps_the_forward_values():
    x = np.random.default_rng(4).standard_normal((2, 3, 7, 7)).astype(np.float32)

    w = np.random.default_rng(5).standard_normal((4, 3, 3, 3)).astype(np.float32)

    def fn(L):
        m = L.nn.Conv2d(3, 4, 3)
        with L.no_grad():
            m.weight.copy_(L.tensor(w))
            m.bias.zero_()
        m = m.to(memory_format=L.channels_last)
        out = m(L.tensor(x).to(memory_format=L.channels_last))
        out.sum().backward()
        return out.detach().contiguous(), m.weight.grad

    got, want = fn(cr), fn(torch)
    np.testing.assert_allclose(got[0].numpy(), want[0].numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[1].numpy(), want[1].numpy(), rtol=1e-4, atol=1e-4)


def test_module_to_channels_last_refuses_5d_parameters():
    assert_same_error(lambda L: L.nn.Conv3d(2, 3, 2).to(memory_format=L.channels_last))


def test_convert_conv2d_weight_memory_format():
    def fn(L):
        m = L.nn.Sequential(L.nn.Conv2d(3, 4, 3), L.nn.Sequential(L.nn.ConvTranspose2d(4, 2, 2)))
        w = m[0].weight
        out = L.nn.utils.convert_conv2d_weight_memory_format(m, L.channels_last)
        return out is m, m[0].weight is w, _strides(m)

    compare(fn)


def test_convert_conv3d_weight_memory_format():
    def fn(L):
        m = L.nn.Sequential(L.nn.Conv3d(3, 4, 2), L.nn.Conv2d(2, 2, 1))
        L.nn.utils.convert_conv3d_weight_memory_format(m, L.channels_last_3d)
        return _strides(m)

    compare(fn)


def test_convert_keeps_values():
    def fn(L):
        L.manual_seed(0)
        conv = L.nn.Conv2d(3, 4, 3)
        before = conv.weight.detach().clone()
        L.nn.utils.convert_conv2d_weight_memory_format(conv, L.channels_last)
        return bool(L.equal(conv.weight, before)), conv.weight.requires_grad

    compare(fn)


# ----- errors ----------------------------------------------------------------------------------

ERRORS = {
    "contiguous_3d": lambda L: L.zeros(2, 3, 4).contiguous(memory_format=L.channels_last),
    "to_3d": lambda L: L.zeros(2, 3, 4).to(memory_format=L.channels_last),
    "to_4d_cl3d": lambda L: L.zeros(2, 3, 4, 5).to(memory_format=L.channels_last_3d),
    "contiguous_preserve": lambda L: (
        L.zeros(2, 3, 4, 5)
        .to(memory_format=L.channels_last)
        .contiguous(memory_format=L.preserve_format)
    ),
    "empty_3d": lambda L: L.empty(2, 3, 4, memory_format=L.channels_last),
    "empty_preserve": lambda L: L.empty(2, 3, 4, 5, memory_format=L.preserve_format),
    "zeros": lambda L: L.zeros(2, 3, 4, 5, memory_format=L.channels_last),
    "empty_like_3d": lambda L: L.empty_like(L.zeros(2, 3, 4), memory_format=L.channels_last),
}


@pytest.mark.parametrize("case", ERRORS)
def test_errors_match_torch(case):
    assert_same_error(ERRORS[case])


# ----- which layout an op's output follows (_memory_format.channels_last_of, as_format) -------

# arrays laid out every which way, as (shape made, permutation back to NCHW, slice)
LAYOUTS = {
    "nhwc": ((2, 4, 5, 3), (0, 3, 1, 2), None),
    "nwhc": ((2, 5, 4, 3), (0, 3, 2, 1), None),
    "hwnc": ((4, 5, 2, 3), (2, 3, 0, 1), None),
    "chwn": ((3, 4, 5, 2), (3, 0, 1, 2), None),
    "nhwc_sliced": ((2, 4, 10, 3), (0, 3, 1, 2), (slice(None),) * 3 + (slice(None, None, 2),)),
    "nhwc_channel_slice": ((2, 4, 5, 6), (0, 3, 1, 2), (slice(None), slice(0, 3))),
    "nhwc_one_channel": ((2, 4, 5, 1), (0, 3, 1, 2), None),
    "nhwc_one_pixel": ((2, 1, 1, 3), (0, 3, 1, 2), None),
    "nhwc_one_sample": ((1, 4, 5, 3), (0, 3, 1, 2), None),
    "nchw_one_pixel": ((2, 3, 1, 1), (0, 1, 2, 3), None),
}


def _laid(L, case):
    shape, perm, key = LAYOUTS[case]
    x = L.arange(float(np.prod(shape))).reshape(shape).permute(*perm)
    return x if key is None else x[key]


@pytest.mark.parametrize("case", LAYOUTS)
def test_op_output_follows_the_format_the_input_strides_suggest(case):
    # a 1x1 max pooling keeps the format PyTorch's suggest_memory_format reads off x
    compare(lambda L: L.nn.functional.max_pool2d(_laid(L, case), 1).stride())
    compare(lambda L: L.nn.functional.max_pool2d(_laid(L, case), 1))


@pytest.mark.parametrize("shape", SHAPES_4D, ids=str)
def test_as_format_gives_size_one_dims_torch_strides(shape):
    from chainrule import _memory_format

    a = np.arange(float(np.prod(shape)), dtype=np.float32).reshape(shape)
    got = _memory_format.as_format(a, _memory_format.channels_last)
    want = torch.empty(shape, memory_format=torch.channels_last).stride()
    assert tuple(s // a.itemsize for s in got.strides) == want
    np.testing.assert_array_equal(got, a)


LEAVES = {
    "channels_last": lambda t, L: t.to(memory_format=L.channels_last),
    "transposed": lambda t, L: t.transpose(2, 3),
    "sliced": lambda t, L: t[..., ::2],  # not dense: a row-major .grad
    "row_major": lambda t, L: t,
}


@pytest.mark.parametrize("case", LEAVES)
def test_as_leaf_grad_lays_a_gradient_out_as_torch_stores_grad(case):
    # (for AccumulateGrad: PyTorch gives .grad the strides of a dense leaf)
    from chainrule import _memory_format

    base = np.arange(240.0).reshape(2, 3, 5, 8)
    x = LEAVES[case](torch.tensor(base), torch).detach().requires_grad_()
    (torch.relu(x) * 2).sum().backward()
    leaf = LEAVES[case](cr.tensor(base), cr)._data
    grad = (leaf > 0) * 2.0  # (a row-major gradient of the same values)
    got = _memory_format.as_leaf_grad(np.ascontiguousarray(grad), leaf)
    assert tuple(s // got.itemsize for s in got.strides) == x.grad.stride()
    np.testing.assert_array_equal(got, x.grad.numpy())
