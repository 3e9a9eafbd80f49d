"""create_graph=True: every op in scope differentiates again, matching PyTorch.

``oracle.check_double_backward`` takes ``g = wᵀJ`` with ``create_graph=True`` and
differentiates ``Σ u·g`` once more with respect to every input (a Hessian-vector product)
and to ``w`` (a Jacobian-vector product, so linear ops are checked too). Further tests
compare full Hessians and Hessian-vector products of matmul/norm/sum chains with torch's,
and high-order derivatives with their closed forms.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import (
    NoGrad,
    assert_same,
    check_double_backward,
    nonzero,
    positive,
    randn,
    to_lib,
    to_numpy,
)

# ----- every op, twice differentiated ----------------------------------------------------


def _inplace(method: str):
    def fn(lib, x, b):
        y = x.sin()
        getattr(y, method)(b)
        return y * x

    return fn


def _augmented(op: str):
    def fn(lib, x, b):
        y = x * x
        if op == "+":
            y += b
        elif op == "-":
            y -= b
        elif op == "*":
            y *= b
        else:
            y /= b
        return y

    return fn


def _setitem(lib, x, v):
    y = x * x
    y[1:, 0] = v * v
    y[0] = 2.0
    return y.sin()


def _setitem_mask(lib, x, v, m):
    y = x.sin()
    y[m] = v.exp()
    return y * x


CASES = {
    # binary, tensors with broadcasting
    "add": (lambda lib, a, b: (a + b) * a, [randn((3, 1)), randn((1, 4), seed=1)]),
    "add_alpha": (lambda lib, a, b: lib.add(a, b, alpha=2) ** 2, [randn((3, 1)), randn((4,))]),
    "sub": (lambda lib, a, b: (a - b) ** 2, [randn((3, 1)), randn((1, 4), seed=1)]),
    "mul": (lambda lib, a, b: a * b, [randn((3, 1)), randn((1, 4), seed=1)]),
    "mul_0d": (lambda lib, a, b: a * b * a, [randn(()), randn((3,), seed=1)]),
    "div": (lambda lib, a, b: a / b, [randn((2, 3, 4)), nonzero((4,), seed=1)]),
    "div_0d": (lambda lib, a, b: a / b, [randn((5,)), nonzero((), seed=1)]),
    "pow": (lambda lib, a, b: a**b, [positive((3, 1)), randn((1, 4), seed=1)]),
    "pow_self": (lambda lib, a: a**a, [positive((4,))]),
    # with Python scalars
    "add_scalar": (lambda lib, x: (x + 2) * (3.5 + x), [randn((3,))]),
    "rsub": (lambda lib, x: (2 - x) * (1.5 - x) * x, [randn((3,))]),
    "mul_scalar": (lambda lib, x: (x * 2.5) * (3 * x), [randn((3,))]),
    "div_scalar": (lambda lib, x: (x / 3) * x, [randn((3,))]),
    "rdiv": (lambda lib, x: 2.5 / x + 1 / x, [nonzero((3,))]),
    "pow_2": (lambda lib, x: x**2, [randn((3,))]),
    "pow_3": (lambda lib, x: x**3, [randn((3,))]),
    "pow_2.5": (lambda lib, x: x**2.5, [positive((3,))]),
    "pow_-1": (lambda lib, x: x**-1, [nonzero((3,))]),
    "pow_0": (lambda lib, x: x**0 * x, [randn((3,))]),
    "pow_fn": (lambda lib, x: lib.pow(x, 3), [randn((3,))]),
    "rpow": (lambda lib, x: 2**x, [randn((3,))]),
    "rpow_float": (lambda lib, x: lib.pow(2.5, x), [randn((3,))]),
    "neg": (lambda lib, x: -x * x, [randn((3,))]),
    # unary
    "exp": (lambda lib, x: lib.exp(x), [randn((2, 3))]),
    "log": (lambda lib, x: lib.log(x), [positive((2, 3))]),
    "sin": (lambda lib, x: lib.sin(x), [randn((2, 3))]),
    "cos": (lambda lib, x: lib.cos(x), [randn((2, 3))]),
    "tanh": (lambda lib, x: lib.tanh(x), [randn((2, 3))]),
    "sigmoid": (lambda lib, x: lib.sigmoid(x), [randn((2, 3))]),
    "relu": (lambda lib, x: lib.relu(x) * x, [nonzero((2, 3))]),
    "relu_at_0": (lambda lib, x: lib.relu(x) * x, [np.array([0.0, -1.0, 2.0])]),
    "sqrt": (lambda lib, x: lib.sqrt(x), [positive((2, 3))]),
    "abs": (lambda lib, x: lib.abs(x) * x, [nonzero((2, 3))]),
    "abs_at_0": (lambda lib, x: abs(x) * x, [np.array([0.0, -1.0, 2.0])]),
    # reductions
    "sum": (lambda lib, x: (x * x).sum(), [randn((2, 3))]),
    "sum_dim": (lambda lib, x: (x * x).sum(dim=1) ** 2, [randn((2, 3))]),
    "sum_dims_keepdim": (lambda lib, x: x.sin().sum((0, -1), keepdim=True), [randn((2, 3, 2))]),
    "mean": (lambda lib, x: (x * x).mean() ** 2, [randn((2, 3))]),
    "mean_dim": (lambda lib, x: x.exp().mean(dim=-1), [randn((2, 3))]),
    "mean_keepdim": (lambda lib, x: x.exp().mean(0, keepdim=True) * x, [randn((2, 3))]),
    "norm": (lambda lib, x: x.norm(), [randn((2, 3))]),
    "norm_dim": (lambda lib, x: x.norm(dim=1), [randn((2, 3))]),
    "norm_1": (lambda lib, x: x.norm(p=1) * x, [nonzero((4,))]),
    "norm_inf": (lambda lib, x: x.norm(p=math.inf, dim=0) * x, [randn((3, 2))]),
    "norm_3": (lambda lib, x: x.norm(p=3), [nonzero((2, 3))]),
    "norm_3_dim": (lambda lib, x: x.norm(p=3, dim=0, keepdim=True), [nonzero((2, 3))]),
    "vector_norm": (lambda lib, x: lib.linalg.vector_norm(x, dim=(0, 1)), [randn((2, 3))]),
    "norm_fn": (lambda lib, x: lib.norm(x, 2, -1), [randn((2, 3))]),
    "norm_at_0": (lambda lib, x: x.norm() * x, [np.zeros(3)]),
    "norm_dim_zero_row": (
        lambda lib, x: x.norm(dim=1, keepdim=True) * x,
        [np.array([[0.0, 0.0], [3.0, -4.0]])],
    ),
    "norm_1_at_0": (lambda lib, x: x.norm(p=1) * x, [np.zeros(3)]),
    "norm_3_at_0": (lambda lib, x: x.norm(p=3) * x, [np.zeros(3)]),
    "norm_inf_at_0": (lambda lib, x: x.norm(p=math.inf) * x, [np.zeros(3)]),
    "pow_zero_base_exponent": (
        lambda lib, a, b: a**b,
        [np.array([0.0, 2.0, 1.5]), np.array([0.0, 0.0, 3.0])],
    ),
    "pow_0_at_0": (lambda lib, x: x**0 * x, [np.zeros(2)]),
    # matrix products
    "dot": (lambda lib, a, b: (a @ b) * a, [randn((3,)), randn((3,), seed=1)]),
    "mv": (lambda lib, a, b: (a @ b) ** 2, [randn((2, 3)), randn((3,), seed=1)]),
    "vm": (lambda lib, a, b: (a @ b) ** 2, [randn((3,)), randn((3, 4), seed=1)]),
    "mm": (lambda lib, a, b: (a @ b).sin(), [randn((2, 3)), randn((3, 4), seed=1)]),
    "mm_fn": (lambda lib, a, b: lib.mm(a, b) ** 2, [randn((2, 3)), randn((3, 4), seed=1)]),
    "bmm": (lambda lib, a, b: lib.matmul(a, b).tanh(), [randn((2, 2, 3)), randn((2, 3, 2), 1)]),
    "matmul_bcast": (lambda lib, a, b: (a @ b) ** 2, [randn((2, 1, 2, 3)), randn((3, 3, 2), 1)]),
    "matmul_1d_batch": (lambda lib, a, b: (a @ b) ** 2, [randn((3,)), randn((2, 3, 2), seed=1)]),
    "matmul_batch_1d": (lambda lib, a, b: (a @ b) ** 2, [randn((2, 2, 3)), randn((3,), seed=1)]),
    "gram": (lambda lib, x: x @ x.T, [randn((2, 3))]),
    # shape ops
    "t": (lambda lib, x: x.t() * x.t().sin(), [randn((2, 3))]),
    "T": (lambda lib, x: x.T**2, [randn((2, 3))]),
    "transpose": (lambda lib, x: x.transpose(0, 2).exp(), [randn((2, 3, 2))]),
    "permute": (lambda lib, x: x.permute(2, 0, 1) ** 3, [randn((2, 3, 2))]),
    "reshape": (lambda lib, x: x.reshape(3, 2) @ x, [randn((2, 3))]),
    "reshape_copy": (lambda lib, x: x.t().reshape(-1) ** 2, [randn((2, 3))]),
    "view": (lambda lib, x: x.view(-1).sin(), [randn((2, 3))]),
    "expand": (lambda lib, x: x.expand(2, 3, 4) * x.sin(), [randn((3, 1))]),
    "flatten": (lambda lib, x: x.flatten(1) ** 2, [randn((2, 3, 2))]),
    # indexing
    "getitem_int": (lambda lib, x: x[1] ** 2, [randn((3, 4))]),
    "getitem_slice": (lambda lib, x: x[::2, 1:] ** 2, [randn((5, 4))]),
    "getitem_none_ellipsis": (lambda lib, x: x[None, ..., 0] ** 3, [randn((2, 3, 4))]),
    "getitem_list": (lambda lib, x: x[[0, 2, 2]] ** 2, [randn((3, 2))]),
    "getitem_tensor": (lambda lib, x, i: x[i].exp(), [randn((4,)), np.array([1, 1, 3])]),
    "getitem_mask": (lambda lib, x, m: x[m] ** 2, [randn((2, 3)), randn((2, 3), seed=5) > 0]),
    "setitem": (_setitem, [randn((3, 2)), randn((2,), seed=1)]),
    "setitem_mask": (
        _setitem_mask,
        [randn((2, 3)), randn((), seed=1), np.array([[True, False, True], [False, True, False]])],
    ),
    # copies and casts
    "clone": (lambda lib, x: x.clone() * x, [randn((3,))]),
    "to_float32": (lambda lib, x: x.to(lib.float32).double() * x, [randn((3,))]),
    "double": (lambda lib, x: x.float().double() ** 2, [randn((3,))]),
    "where": (
        lambda lib, c, a, b: lib.where(c, a * a, b.exp()),
        [randn((3, 1)) > 0, randn((1, 4)), randn((4,), seed=1)],
    ),
    "where_scalar": (lambda lib, c, a: lib.where(c, a**3, 0.0), [randn((4,)) > 0, randn((4,))]),
    # in-place on non-leaf tensors
    "add_": (_inplace("add_"), [randn((3,)), randn((3,), seed=1)]),
    "sub_": (_inplace("sub_"), [randn((3,)), randn((3,), seed=1)]),
    "mul_": (_inplace("mul_"), [randn((3,)), randn((3,), seed=1)]),
    "div_": (_inplace("div_"), [randn((3,)), nonzero((3,), seed=1)]),
    "iadd": (_augmented("+"), [randn((2, 3)), randn((3,), seed=1)]),
    "isub": (_augmented("-"), [randn((2, 3)), randn((3,), seed=1)]),
    "imul": (_augmented("*"), [randn((2, 3)), randn((3,), seed=1)]),
    "idiv": (_augmented("/"), [randn((2, 3)), nonzero((3,), seed=1)]),
    "imul_scalar": (_augmented("*"), [randn((2, 3)), 2.5]),
    "inplace_no_grad_operand": (_inplace("mul_"), [randn((3,)), NoGrad(randn((3,), seed=1))]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_double_backward_matches_torch(name):
    fn, inputs = CASES[name]
    check_double_backward(fn, *inputs)


@pytest.mark.parametrize("name", ["mul", "div", "pow", "exp", "tanh", "mm", "norm_3", "setitem"])
def test_double_backward_float32(name):
    """Second derivatives keep float32 (and match torch's at float32 tolerances)."""
    fn, inputs = CASES[name]
    check_double_backward(fn, *inputs, dtype=np.float32)


# ----- second derivatives of elementwise functions against closed forms ------------------

SECOND = {
    "exp": (lambda x: x.exp(), lambda x: np.exp(x), "any"),
    "log": (lambda x: x.log(), lambda x: -1 / x**2, "pos"),
    "sin": (lambda x: x.sin(), lambda x: -np.sin(x), "any"),
    "cos": (lambda x: x.cos(), lambda x: -np.cos(x), "any"),
    "tanh": (lambda x: x.tanh(), lambda x: -2 * np.tanh(x) * (1 - np.tanh(x) ** 2), "any"),
    "sigmoid": (
        lambda x: x.sigmoid(),
        lambda x: (s := 1 / (1 + np.exp(-x))) * (1 - s) * (1 - 2 * s),
        "any",
    ),
    "sqrt": (lambda x: x.sqrt(), lambda x: -0.25 * x**-1.5, "pos"),
    "cube": (lambda x: x**3, lambda x: 6 * x, "any"),
    "reciprocal": (lambda x: 1 / x, lambda x: 2 / x**3, "nonzero"),
    "rpow": (lambda x: 2**x, lambda x: math.log(2) ** 2 * 2**x, "any"),
    "pow_tensor": (lambda x: (x * 0 + 1.5) ** x, lambda x: math.log(1.5) ** 2 * 1.5**x, "any"),
    "relu": (lambda x: x.relu(), lambda x: 0 * x, "nonzero"),
    "abs": (lambda x: abs(x), lambda x: 0 * x, "nonzero"),
    "norm_1d": (lambda x: x[:1].norm() * 1, lambda x: 0 * x, "nonzero"),
}


def _domain(kind, shape=(5,)):
    return {"pos": positive, "nonzero": nonzero}.get(kind, randn)(shape, seed=3)


def nth_derivative(lib, f, x, n: int):
    """d^n f / dx^n elementwise, for f acting elementwise on x (grad_outputs of ones)."""
    y = f(x)
    for _ in range(n):
        if not y.requires_grad:
            return lib.zeros_like(x)
        (y,) = lib.autograd.grad(
            y, x, grad_outputs=lib.ones_like(y), create_graph=True, allow_unused=True
        )
        if y is None:
            return lib.zeros_like(x)
    return y


@pytest.mark.parametrize("name", list(SECOND))
def test_second_derivative_closed_form(name):
    f, d2, kind = SECOND[name]
    x = _domain(kind)
    if name == "norm_1d":  # |x0| as a norm; its second derivative is 0
        x = np.abs(x)
    got = nth_derivative(cr, f, to_lib(cr, x), 2)
    want = nth_derivative(torch, f, to_lib(torch, x), 2)
    np.testing.assert_allclose(
        to_numpy(got), d2(x) if name != "norm_1d" else 0 * x, rtol=1e-10, atol=1e-12
    )
    assert_same(got, want, "second derivative")


# ----- high-order derivatives ------------------------------------------------------------

X = np.linspace(-2.0, 2.0, 9)


def test_third_derivative_sin_exp():
    """d³/dx³ e^x sin x = 2 e^x (cos x - sin x)."""
    x = to_lib(cr, X)
    d = [nth_derivative(cr, lambda t: t.sin() * t.exp(), x, n) for n in range(4)]
    e = np.exp(X)
    closed = [
        e * np.sin(X),
        e * (np.sin(X) + np.cos(X)),
        2 * e * np.cos(X),
        2 * e * (np.cos(X) - np.sin(X)),
    ]
    for n, (got, want) in enumerate(zip(d, closed, strict=True)):
        np.testing.assert_allclose(to_numpy(got), want, rtol=1e-12, atol=1e-12, err_msg=f"d{n}")
    t = to_lib(torch, X)
    assert_same(d[3], nth_derivative(torch, lambda t: t.sin() * t.exp(), t, 3), "third derivative")


def test_fourth_derivative_x4():
    """d/dx x⁴ = 4x³, then 12x², 24x, 24, and the fifth derivative is 0."""
    x = to_lib(cr, X)
    closed = [X**4, 4 * X**3, 12 * X**2, 24 * X, 24 + 0 * X, 0 * X]
    for n, want in enumerate(closed):
        got = nth_derivative(cr, lambda t: t**4, x, n)
        np.testing.assert_allclose(to_numpy(got), want, rtol=1e-12, atol=1e-12, err_msg=f"d{n}")
        assert str(got.dtype) == "torch.float64"
    fourth = nth_derivative(cr, lambda t: t**4, x, 4)
    assert_same(fourth, nth_derivative(torch, lambda t: t**4, to_lib(torch, X), 4), "fourth")


def test_fourth_derivative_x4_via_pow_function_and_mul_chain():
    x = to_lib(cr, X)
    for f in (lambda t: cr.pow(t, 4), lambda t: t * t * t * t, lambda t: (t * t) ** 2):
        np.testing.assert_allclose(to_numpy(nth_derivative(cr, f, x, 4)), 24.0, rtol=1e-12)


def test_high_order_mixed_partial():
    """∂³(x² y³)/∂x∂y² = 12 x y, through grad of grad of grad."""
    xv, yv = np.array([1.5, -0.5]), np.array([2.0, 0.25])
    results = []
    for lib in (cr, torch):
        x, y = to_lib(lib, xv), to_lib(lib, yv)
        f = x**2 * y**3
        (fx,) = lib.autograd.grad(f.sum(), x, create_graph=True)
        (fxy,) = lib.autograd.grad(fx.sum(), y, create_graph=True)
        (fxyy,) = lib.autograd.grad(fxy.sum(), y)
        results.append(fxyy)
    np.testing.assert_allclose(to_numpy(results[0]), 12 * xv * yv, rtol=1e-12)
    assert_same(results[0], results[1], "third mixed partial")


# ----- full Hessians and Hessian-vector products of chains -------------------------------


def hessian(lib, f, arrays):
    """The full Hessian of scalar f with respect to each input pair, by rows of HVPs."""
    xs = [to_lib(lib, a) for a in arrays]
    out = f(lib, *xs)
    grads = lib.autograd.grad(out, xs, create_graph=True)
    flat = [g.reshape(-1) for g in grads]
    blocks = []
    for gi, xi in zip(flat, xs, strict=True):
        rows = []
        for k in range(xi.numel()):
            row = lib.autograd.grad(gi[k], xs, retain_graph=True, allow_unused=True)
            rows.append(
                np.concatenate(
                    [
                        np.zeros(x.numel()) if r is None else to_numpy(r).reshape(-1)
                        for r, x in zip(row, xs, strict=True)
                    ]
                )
            )
        blocks.append(np.stack(rows))
    return np.concatenate(blocks)


def hvp(lib, f, arrays, vectors):
    """Σ_j H_ij v_j for every input i: grad of (∇f · v)."""
    xs = [to_lib(lib, a) for a in arrays]
    out = f(lib, *xs)
    grads = lib.autograd.grad(out, xs, create_graph=True)
    dot = sum((g * _tensor(lib, v)).sum() for g, v in zip(grads, vectors, strict=True))
    return lib.autograd.grad(dot, xs, allow_unused=True)


def _tensor(lib, a):
    return to_lib(lib, NoGrad(a))


CHAINS = {
    "norm_of_matvec": (lambda lib, A, x: (A @ x).norm(), [randn((3, 4)), randn((4,), seed=1)]),
    "squared_norm_residual": (
        lambda lib, A, x, b: ((A @ x - b) ** 2).sum() / 2,
        [randn((3, 4)), randn((4,), seed=1), randn((3,), seed=2)],
    ),
    "tanh_layer": (
        lambda lib, X, W: (X @ W).tanh().sum(),
        [randn((4, 3)), randn((3, 2), seed=1)],
    ),
    "two_layer_mse": (
        lambda lib, X, W1, W2: ((X @ W1).sigmoid() @ W2).pow(2).mean(),
        [randn((4, 3)), randn((3, 3), seed=1), randn((3, 2), seed=2)],
    ),
    "norm_p3_of_product": (
        lambda lib, a, b: (a * b).norm(p=3) + a.norm(p=1, dim=0).sum(),
        [nonzero((2, 3)), nonzero((2, 3), seed=1)],
    ),
    "inf_norm_rows": (
        lambda lib, A, x: (A @ x).norm(p=math.inf, dim=-1).sum(),
        [randn((2, 3, 4)), randn((4, 2), seed=1)],
    ),
    "batched_quadratic": (
        lambda lib, A, x: (x.transpose(-1, -2) @ A @ x).sum(),
        [randn((2, 3, 3)), randn((2, 3, 1), seed=1)],
    ),
    "mean_of_exp_dims": (
        lambda lib, x: x.exp().mean(dim=(0, 2)).log().sum(),
        [randn((2, 3, 2))],
    ),
    "logsumexp_by_hand": (
        lambda lib, x, W: (x @ W).exp().sum(dim=-1).log().mean(),
        [randn((3, 4)), randn((4, 5), seed=1)],
    ),
    "where_relu_chain": (
        lambda lib, x, W: (
            lib.where(x @ W > 0, (x @ W) ** 2, (x @ W).relu()).sum() + (x @ W).relu().pow(3).sum()
        ),
        [randn((3, 2)), randn((2, 4), seed=1)],
    ),
    "indexing_chain": (
        lambda lib, x: (x[1:, ::2] @ x[:2, 1::2].T).sin().sum() + (x[[0, 0, 2], 1] ** 3).sum(),
        [randn((3, 4))],
    ),
}


@pytest.mark.parametrize("name", list(CHAINS))
def test_full_hessian_matches_torch(name):
    f, arrays = CHAINS[name]
    got = hessian(cr, f, arrays)
    want = torch.autograd.functional.hessian(
        lambda *xs: f(torch, *xs), tuple(torch.from_numpy(a.copy()) for a in arrays)
    )
    want = np.concatenate(
        [
            np.concatenate(
                [to_numpy(b).reshape(ai.size, aj.size) for b, aj in zip(row, arrays, strict=True)],
                1,
            )
            for row, ai in zip(want, arrays, strict=True)
        ]
    )
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(got, got.T, rtol=1e-9, atol=1e-11)  # a Hessian is symmetric


@pytest.mark.parametrize("name", list(CHAINS))
def test_hvp_matches_torch(name):
    f, arrays = CHAINS[name]
    vs = [randn(a.shape, seed=50 + i) for i, a in enumerate(arrays)]
    got = hvp(cr, f, arrays, vs)
    want = hvp(torch, f, arrays, vs)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        if w is None:
            assert g is None or not to_numpy(g).any(), f"HVP {i}: torch has none"
            continue
        assert_same(g, w, f"HVP {i}")


# ----- the create_graph API itself ---------------------------------------------------------


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True:UserWarning")
def test_backward_create_graph_then_grad_of_grad():
    """y.backward(create_graph=True) leaves a differentiable x.grad."""
    results = []
    for lib in (cr, torch):
        x = to_lib(lib, np.array([0.5, -1.0, 2.0]))
        y = (x**3).sum() + (x.sin() * x).sum()
        y.backward(create_graph=True)
        g = x.grad
        assert g.requires_grad
        (gg,) = lib.autograd.grad(g.sum(), x)
        results.append((g, gg))
    assert_same(results[0][0], results[1][0], "x.grad")
    assert_same(results[0][1], results[1][1], "grad of x.grad")
    xv = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(
        to_numpy(results[0][1]), 6 * xv + 2 * np.cos(xv) - xv * np.sin(xv), rtol=1e-12
    )


def test_grad_without_create_graph_is_not_differentiable():
    for lib in (cr, torch):
        x = to_lib(lib, np.array([1.0, 2.0]))
        (g,) = lib.autograd.grad((x**3).sum(), x)
        assert not g.requires_grad
        assert g.grad_fn is None
        np.testing.assert_allclose(to_numpy(g), [3.0, 12.0])


def test_gradient_penalty_pattern():
    """WGAN-GP style: the norm of an input gradient, differentiated with respect to weights."""
    Xv, Wv = randn((4, 3)), randn((3, 2), seed=1)
    results = []
    for lib in (cr, torch):
        X, W = to_lib(lib, Xv), to_lib(lib, Wv)
        out = (X @ W).tanh().sum()
        (gX,) = lib.autograd.grad(out, X, create_graph=True)
        penalty = ((gX.norm(dim=1) - 1) ** 2).mean()
        penalty.backward()
        results.append((penalty, W.grad, X.grad))
    for what, c, t in zip(("penalty", "W.grad", "X.grad"), *results, strict=True):
        assert_same(c, t, what)


# ----- gradients of piecewise-linear activations stay differentiable -------------------------

PIECEWISE = {
    "relu": lambda L, x: x.relu(),
    "relu_function": lambda L, x: L.relu(x),
    "relu6": lambda L, x: L.nn.functional.relu6(x),
    "leaky_relu": lambda L, x: L.nn.functional.leaky_relu(x, 0.2),
    "hardtanh": lambda L, x: L.nn.functional.hardtanh(x, -0.5, 0.5),
    "threshold": lambda L, x: L.nn.functional.threshold(x, 0.1, 2.0),
    "hardshrink": lambda L, x: L.nn.functional.hardshrink(x),
    "softshrink": lambda L, x: L.nn.functional.softshrink(x),
    "relu_inplace": lambda L, x: (x * 1).relu_(),
    "leaky_relu_inplace": lambda L, x: L.nn.functional.leaky_relu(x * 1, 0.2, inplace=True),
}


@pytest.mark.parametrize("name", sorted(PIECEWISE))
def test_a_gradient_penalty_through_a_piecewise_linear_activation(name):
    """grad(relu(x).sum(), x, create_graph=True) depends on x, as PyTorch's backward kernels
    (ThresholdBackwardBackward0, ...) make it: a gradient penalty (‖g‖ - 1)² backpropagates
    to a zero gradient instead of raising "element 0 ... does not require grad"."""
    fn = PIECEWISE[name]
    x0 = np.array([[-1.5, -0.3, 0.2, 1.7], [0.05, -0.7, 0.9, 3.0]])
    results = []
    for lib in (cr, torch):
        x = lib.tensor(x0, requires_grad=True)
        (g,) = lib.autograd.grad(fn(lib, x).sum(), x, create_graph=True)
        node = g.grad_fn.name() if g.grad_fn is not None else None
        (g.norm() - 1).pow(2).backward()
        results.append((g.requires_grad, node, x.grad))
    (ours_rg, ours_node, ours_grad), (rg, node, grad) = results
    assert ours_rg == rg
    assert ours_node == node
    assert_same(ours_grad, grad, "gradient of the penalty")


@pytest.mark.parametrize("name", ["relu", "relu6", "leaky_relu", "hardtanh", "softshrink"])
def test_second_derivatives_of_piecewise_linear_activations(name):
    check_double_backward(PIECEWISE[name], randn((3, 4), seed=5))
