"""Custom ``autograd.Function`` and forward-mode AD edge cases, each checked against PyTorch:
the same case runs on both libraries and the values, gradients, tangents, exception types
and messages must agree."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr


def _fn(lib, forward, backward, jvp=None):
    attrs = {"forward": staticmethod(forward), "backward": staticmethod(backward)}
    if jvp is not None:
        attrs["jvp"] = staticmethod(jvp)
    return type("MyFn", (lib.autograd.Function,), attrs)


def _x(lib, *shape, requires_grad=True):
    n = int(np.prod(shape))
    x = lib.arange(n, dtype=lib.float32).reshape(shape) / 3 + 0.5
    return x.requires_grad_(requires_grad)


def _dirty(ctx, x):
    x.mul_(2)
    ctx.mark_dirty(x)
    return x


def _complex_grad(lib):
    f = _fn(lib, lambda ctx, x: x * 2, lambda ctx, g: lib.ones(3, dtype=lib.complex64))
    f.apply(_x(lib, 3)).sum().backward()


def _meta_grad(lib):
    f = _fn(lib, lambda ctx, x: x * 2, lambda ctx, g: lib.ones(3, device="meta"))
    f.apply(_x(lib, 3)).sum().backward()


def _dirty_view_of_leaf(lib):
    _fn(lib, _dirty, lambda ctx, g: g * 2).apply(_x(lib, 4)[:2])


def _fwd(lib, jvp, primal=None):
    fa = lib.autograd.forward_ad
    f = _fn(lib, lambda ctx, x: x * 2, lambda ctx, g: g, jvp)
    with fa.dual_level():
        x = fa.make_dual(_x(lib, 3, requires_grad=False), lib.ones(3))
        f.apply(x)


def _dirty_jvp_new_tangent(lib):
    fa = lib.autograd.forward_ad
    f = _fn(lib, _dirty, lambda ctx, g: g * 2, lambda ctx, t: t * 2)
    with fa.dual_level():
        f.apply(fa.make_dual(_x(lib, 3, requires_grad=False), lib.ones(3)))


def _make_dual(primal, tangent, level=True):
    def case(lib):
        fa = lib.autograd.forward_ad
        p = lib.ones(3, dtype=getattr(lib, primal))
        t = lib.ones(3, dtype=getattr(lib, tangent))
        if not level:
            fa.make_dual(p, t)
            return
        with fa.dual_level():
            fa.make_dual(p, t)

    return case


ERRORS = {
    "complex_grad_for_real_input": (_complex_grad, RuntimeError, None),
    "meta_grad": (_meta_grad, RuntimeError, "expected device cpu but got meta"),
    "dirty_view_of_leaf": (_dirty_view_of_leaf, RuntimeError, None),
    "jvp_wrong_shape": (lambda lib: _fwd(lib, lambda ctx, t: lib.ones(2)), RuntimeError, None),
    "jvp_wrong_count": (lambda lib: _fwd(lib, lambda ctx, t: (t, t)), RuntimeError, None),
    "dirty_jvp_new_tangent": (_dirty_jvp_new_tangent, RuntimeError, None),
    "make_dual_int_tangent": (_make_dual("float64", "int64"), ValueError, None),
    "make_dual_int_primal": (_make_dual("int64", "float64"), ValueError, None),
    "make_dual_no_level": (_make_dual("float64", "float64", level=False), RuntimeError, None),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error_matches_torch(name):
    case, kind, fragment = ERRORS[name]
    with pytest.raises(kind) as expected:
        case(torch)
    with pytest.raises(kind) as got:
        case(cr)
    if name == "complex_grad_for_real_input":  # (PyTorch's text is an internal check)
        assert "complex gradient" in str(got.value) and "index 0" in str(got.value)
    elif fragment is not None:
        assert fragment in str(expected.value) and fragment in str(got.value)
    else:
        assert str(got.value) == str(expected.value)


def _dirty_view_case(lib, make_view):
    f = _fn(lib, _dirty, lambda ctx, g: g * 3)
    a = _x(lib, 2, 3)
    base = a * 1
    view = make_view(base)
    y = f.apply(view)
    (base * base).sum().backward()
    return y is view, base.grad_fn.name(), base.detach().numpy(), a.grad.numpy()


@pytest.mark.parametrize(
    "make_view",
    [lambda b: b[0], lambda b: b.t()[1], lambda b: b.view(-1)[1:4]],
    ids=["row", "transposed_column", "flat_slice"],
)
def test_mark_dirty_on_a_view_rebases_the_base(make_view):
    """An input view marked dirty: its base's grad_fn becomes CopySlices and the gradient
    flows into the region through the Function's backward, outside it unchanged."""
    want = _dirty_view_case(torch, make_view)
    got = _dirty_view_case(cr, make_view)
    assert got[:2] == want[:2]
    np.testing.assert_allclose(got[2], want[2], rtol=1e-6)
    np.testing.assert_allclose(got[3], want[3], rtol=1e-6)


def _dirty_jvp_in_place(lib):
    fa = lib.autograd.forward_ad

    def jvp(ctx, t):
        return t.mul_(2)

    f = _fn(lib, _dirty, lambda ctx, g: g * 2, jvp)
    with fa.dual_level():
        x = fa.make_dual(_x(lib, 3, requires_grad=False), lib.ones(3))
        y = f.apply(x)
        return y is x, fa.unpack_dual(y).tangent.numpy()


def test_dirty_input_with_tangent_written_in_place_matches_torch():
    want, got = _dirty_jvp_in_place(torch), _dirty_jvp_in_place(cr)
    assert got[0] == want[0]
    np.testing.assert_array_equal(got[1], want[1])
