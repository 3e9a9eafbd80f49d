"""Run one function on chainrule and on PyTorch and compare everything that comes out.

A test function takes the library first: ``fn(lib, *tensors)``, where ``lib`` is either
``chainrule`` or ``torch``, so ``lib.where`` or ``lib.linalg.vector_norm`` name the same
function in both. Inputs are given as NumPy arrays (or anything else, passed through
unchanged: Python scalars, slices, lists):

- a floating NumPy array becomes a tensor that requires grad (cast to ``dtype`` when one
  is given); wrap it in ``NoGrad`` to keep it out of the gradient;
- an integer or bool NumPy array becomes a tensor of its own dtype (indices, masks).

``check`` compares forward values, shapes and dtypes (``str(dtype)``: chainrule's dtypes
print as ``torch.float32``), whether the output requires grad, then runs backward with a
random non-scalar ``gradient`` of the output's shape and compares every input's ``.grad``.
``check_raises`` checks that both libraries raise the same exception type.
``check_fd`` is a float64 central-difference check of chainrule's VJP alone.
``check_double_backward`` compares first and second derivatives taken with
``create_graph=True`` against PyTorch's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

import chainrule as cr

LIBS = (cr, torch)

# (rtol, atol) per floating dtype; integer and bool results must match exactly
TOLERANCES = {
    "torch.float16": (1e-3, 1e-3),
    "torch.float32": (2e-5, 2e-5),
    "torch.float64": (1e-10, 1e-12),
}


class NoGrad:
    """A floating input that becomes a tensor without ``requires_grad``."""

    def __init__(self, array: Any) -> None:
        self.array = np.asarray(array)  # NumPy scalars become 0-d arrays


# ----- data ----------------------------------------------------------------------------


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def randn(shape: tuple = (), seed: int = 0) -> np.ndarray:
    """Standard normal float64 values of ``shape`` (a 0-d array for ``()``)."""
    return np.asarray(rng(seed).standard_normal(shape), dtype=np.float64)


def positive(shape: tuple = (), seed: int = 0, low: float = 0.5, high: float = 2.0) -> np.ndarray:
    """Values in [low, high): for log, sqrt, pow bases, divisors."""
    return np.asarray(rng(seed).uniform(low, high, shape), dtype=np.float64)


def nonzero(shape: tuple = (), seed: int = 0) -> np.ndarray:
    """Values with |x| in [0.5, 2), random signs: divisors, kinks kept away."""
    r = rng(seed)
    return np.asarray(r.uniform(0.5, 2.0, shape) * r.choice([-1.0, 1.0], shape), dtype=np.float64)


# ----- conversion ----------------------------------------------------------------------


def _is_float_array(a: Any) -> bool:
    return isinstance(a, np.ndarray) and a.dtype.kind == "f"


def to_lib(lib, value: Any, dtype: Any = None) -> Any:
    """``value`` as ``lib``'s input: NumPy arrays become tensors, anything else stays."""
    if isinstance(value, np.generic):  # a 0-d computation's NumPy scalar
        value = np.asarray(value)
    if isinstance(value, NoGrad):
        arr = value.array
        if dtype is not None and arr.dtype.kind == "f":
            arr = arr.astype(dtype)
        return _tensor(lib, arr)
    if isinstance(value, np.ndarray):
        arr = value.astype(dtype) if dtype is not None and value.dtype.kind == "f" else value
        t = _tensor(lib, arr)
        if arr.dtype.kind == "f":
            t.requires_grad_(True)
        return t
    return value


def _tensor(lib, arr: np.ndarray):
    arr = np.array(arr, copy=True)
    if lib is torch:
        return torch.from_numpy(arr)
    return cr.tensor(arr)


def to_numpy(t: Any) -> np.ndarray:
    # force: torch's double backward can return a ZeroTensor, which numpy() refuses
    return np.array(t.detach().numpy(force=True), copy=True)


def is_tensor(t: Any) -> bool:
    return isinstance(t, (cr.Tensor, torch.Tensor))


# ----- comparison ----------------------------------------------------------------------


def assert_same(got: Any, want: Any, what: str = "output", rtol=None, atol=None) -> None:
    """chainrule tensor ``got`` equals torch tensor ``want``: shape, dtype and values."""
    assert isinstance(got, cr.Tensor), f"{what}: expected a chainrule Tensor, got {type(got)}"
    assert isinstance(want, torch.Tensor), f"{what}: torch gave {type(want)}"
    assert tuple(got.shape) == tuple(want.shape), (
        f"{what}: shape {tuple(got.shape)} != torch's {tuple(want.shape)}"
    )
    assert str(got.dtype) == str(want.dtype), f"{what}: dtype {got.dtype} != torch's {want.dtype}"
    g, w = to_numpy(got), to_numpy(want)
    key = str(want.dtype)
    if key in TOLERANCES:
        r, a = TOLERANCES[key]
        np.testing.assert_allclose(
            g,
            w,
            rtol=r if rtol is None else rtol,
            atol=a if atol is None else atol,
            equal_nan=True,
            err_msg=f"{what} differs from torch's",
        )
    else:
        np.testing.assert_array_equal(g, w, err_msg=f"{what} differs from torch's")


def assert_same_grad(got: Any, want: Any, what: str, rtol=None, atol=None) -> None:
    """Gradients: both None, or equal tensors."""
    if want is None:
        assert got is None, f"{what}: torch has no gradient but chainrule has {got}"
        return
    assert got is not None, f"{what}: chainrule has no gradient, torch has {want}"
    assert_same(got, want, what, rtol, atol)


class Result:
    """What ``check`` ran: both libraries' inputs and outputs, for further asserts."""

    def __init__(self, cr_inputs, torch_inputs, cr_out, torch_out) -> None:
        self.cr_inputs = cr_inputs
        self.torch_inputs = torch_inputs
        self.cr_out = cr_out
        self.torch_out = torch_out


def check(
    fn: Callable,
    *inputs: Any,
    dtype: Any = None,
    backward: bool = True,
    seed: int = 1234,
    rtol: float | None = None,
    atol: float | None = None,
    forward: bool = True,
) -> Result:
    """Run ``fn(lib, *inputs)`` on both libraries; compare forward and gradients, and
    (``forward=True``) forward-mode tangents.

    ``dtype`` (a NumPy float dtype) casts every floating input. The backward pass uses
    a random ``gradient`` of the output's shape (a non-scalar VJP), in the output's dtype.
    """
    cr_in = [to_lib(cr, v, dtype) for v in inputs]
    t_in = [to_lib(torch, v, dtype) for v in inputs]
    t_out = fn(torch, *t_in)
    c_out = fn(cr, *cr_in)
    assert_same(c_out, t_out, "forward", rtol, atol)
    assert c_out.requires_grad == t_out.requires_grad, (
        f"output requires_grad {c_out.requires_grad} != torch's {t_out.requires_grad}"
    )
    if backward and t_out.requires_grad:
        g = np.asarray(rng(seed).standard_normal(tuple(t_out.shape)))
        g = g.astype(to_numpy(t_out).dtype)
        t_out.backward(torch.from_numpy(g.copy()))
        c_out.backward(cr.tensor(g.copy()))
        for i, (c, t) in enumerate(zip(cr_in, t_in, strict=True)):
            if isinstance(t, torch.Tensor) and t.requires_grad:
                assert_same_grad(c.grad, t.grad, f"grad of input {i}", rtol, atol)
    if forward:
        check_tangents(fn, inputs, dtype, seed, rtol, atol)
    return Result(cr_in, t_in, c_out, t_out)


def check_tangents(fn: Callable, inputs: Sequence[Any], dtype: Any, seed: int, rtol, atol):
    """Forward mode: with a random tangent on every floating input, the output's tangent
    equals torch's. Where torch has no forward-mode rule for the function, nothing is
    compared."""
    r = rng(seed + 1)
    tangents = [
        r.standard_normal(np.shape(v.array if isinstance(v, NoGrad) else v))
        if _is_float_array(v)
        else None
        for v in inputs
    ]
    if all(t is None for t in tangents):
        return

    def run(lib):
        fwd = lib.autograd.forward_ad
        with fwd.dual_level():
            args = []
            for v, t in zip(inputs, tangents):
                x = to_lib(lib, v, dtype)
                if t is not None:
                    x = x.detach()
                    x = fwd.make_dual(x, _tensor(lib, t.astype(to_numpy(x).dtype)))
                args.append(x)
            out = fn(lib, *args)
            if not is_tensor(out) or not out.dtype.is_floating_point:
                return None
            return fwd.unpack_dual(out).tangent

    try:
        want = run(torch)
    except (RuntimeError, NotImplementedError, IndexError):
        return  # torch has no forward-mode rule here (or refuses this case)
    got = run(cr)
    if want is None:
        return
    assert got is not None, "forward mode: torch gives a tangent, chainrule none"
    assert_same(got, want, "forward-mode tangent", rtol, atol)


def check_raises(fn: Callable, *inputs: Any, dtype: Any = None) -> type:
    """Both libraries raise, and chainrule's exception is of torch's type."""
    t_in = [to_lib(torch, v, dtype) for v in inputs]
    try:
        fn(torch, *t_in)
    except Exception as e:  # noqa: BLE001 - any exception torch raises is the spec
        want = type(e)
    else:
        raise AssertionError("torch did not raise: the test case is wrong")
    cr_in = [to_lib(cr, v, dtype) for v in inputs]
    try:
        out = fn(cr, *cr_in)
    except Exception as e:  # noqa: BLE001
        assert isinstance(e, want), (
            f"chainrule raised {type(e).__name__}({e}); torch raises {want.__name__}"
        )
        return want
    raise AssertionError(f"chainrule did not raise (torch raises {want.__name__}); got {out!r}")


# ----- finite differences --------------------------------------------------------------


def check_fd(
    fn: Callable,
    *inputs: Any,
    eps: float = 1e-6,
    rtol: float = 1e-6,
    atol: float = 1e-6,
    seed: int = 4321,
) -> None:
    """Compare chainrule's VJP ``vᵀJ`` with central differences, in float64.

    For every floating input ``x`` and every element ``i``:
    ``(vᵀJ)_i ≈ Σ v · (f(x + eps eᵢ) - f(x - eps eᵢ)) / (2 eps)``.
    """
    arrays = [np.asarray(v) if isinstance(v, np.generic) else v for v in inputs]
    arrays = [v.astype(np.float64) if _is_float_array(v) else v for v in arrays]
    xs = [to_lib(cr, v) for v in arrays]
    out = fn(cr, *xs)
    assert str(out.dtype) == "torch.float64", f"fd check needs a float64 output, got {out.dtype}"
    v = np.asarray(rng(seed).standard_normal(tuple(out.shape)))
    out.backward(cr.tensor(v.copy()))

    def value(args: Sequence[Any]) -> np.ndarray:
        with cr.no_grad():
            return to_numpy(fn(cr, *[to_lib(cr, a) for a in args]))

    checked = 0
    for k, a in enumerate(arrays):
        if not _is_float_array(a):
            continue
        checked += 1
        numeric = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            args = list(arrays)
            plus, minus = a.copy(), a.copy()
            plus[idx] += eps
            minus[idx] -= eps
            args[k] = plus
            f_plus = value(args)
            args[k] = minus
            f_minus = value(args)
            numeric[idx] = np.sum((f_plus - f_minus) * v) / (2 * eps)
        grad = xs[k].grad
        if grad is None:
            analytic = np.zeros_like(a)
        else:
            assert tuple(grad.shape) == a.shape, f"grad {k} shape {grad.shape} != {a.shape}"
            analytic = to_numpy(grad)
        np.testing.assert_allclose(
            analytic,
            numeric,
            rtol=rtol,
            atol=atol,
            err_msg=f"VJP of input {k} vs finite differences",
        )
    assert checked, "no floating input to check"


# ----- higher order --------------------------------------------------------------------


def _double_backward(lib, fn, inputs, dtype, seed):
    xs = [to_lib(lib, v, dtype) for v in inputs]
    diff = [x for x in xs if is_tensor(x) and x.requires_grad]
    out = fn(lib, *xs)
    r = rng(seed)
    np_dtype = to_numpy(out).dtype
    w = _tensor(
        lib, np.asarray(r.standard_normal(tuple(out.shape))).astype(np_dtype)
    ).requires_grad_(True)
    first = lib.autograd.grad(out, diff, grad_outputs=w, create_graph=True, allow_unused=True)
    targets = diff + [w]
    us = [np.asarray(r.standard_normal(tuple(x.shape))).astype(to_numpy(x).dtype) for x in diff]
    pairs = [
        (g, _tensor(lib, u))
        for g, u in zip(first, us, strict=True)
        if g is not None and g.requires_grad
    ]
    if pairs:
        second = lib.autograd.grad(
            [g for g, _ in pairs],
            targets,
            grad_outputs=[u for _, u in pairs],
            allow_unused=True,
        )
    else:
        second = (None,) * len(targets)
    return first, second, targets


def check_double_backward(
    fn: Callable, *inputs: Any, dtype: Any = np.float64, seed: int = 99, rtol=None, atol=None
) -> None:
    """First and second derivatives through ``create_graph=True`` equal torch's.

    With ``g = vjp(w) = wᵀJ`` (``w`` random, itself requiring grad), differentiate
    ``Σ uₖ · gₖ`` (random ``u``) again with respect to every input and to ``w``: that is
    the Hessian-vector product ``Σ_out w · H u`` for each input, and ``J u`` (a JVP) for
    ``w``, so even linear ops are checked at second order. A missing gradient counts as 0.
    """
    c_first, c_second, c_targets = _double_backward(cr, fn, inputs, dtype, seed)
    t_first, t_second, t_targets = _double_backward(torch, fn, inputs, dtype, seed)
    for i, (c, t) in enumerate(zip(c_first, t_first, strict=True)):
        assert_same_grad(c, t, f"first derivative {i}", rtol, atol)
    for i, (c, t, ct, tt) in enumerate(zip(c_second, t_second, c_targets, t_targets, strict=True)):
        what = f"second derivative wrt target {i}"
        if t is None:
            t = torch.zeros_like(tt)
        if c is None:
            c = cr.zeros_like(ct)
        assert_same(c, t, what, rtol, atol)
