"""The oracle: run the same code on chainrule and on PyTorch and compare what comes out.
Every test file takes its comparison helpers from here.

A test function takes the library first: ``fn(lib, *tensors)``, where ``lib`` is either
``chainrule`` or ``torch``, so ``lib.where`` or ``lib.linalg.vector_norm`` name the same
function in both. Inputs are given as NumPy arrays (or anything else, passed through
unchanged: Python scalars, slices, lists):

- a floating NumPy array becomes a tensor that requires grad (cast to ``dtype`` when one
  is given); wrap it in ``NoGrad`` to keep it out of the gradient;
- an integer or bool NumPy array becomes a tensor of its own dtype (indices, masks);
- ``dtype=bf16()`` (ml_dtypes' bfloat16) rounds floating inputs to bfloat16 through float32,
  and a bfloat16 array becomes a float32 tensor cast with ``.to(bfloat16)`` in both
  libraries (neither takes ml_dtypes' arrays); ``to_numpy`` gives a bfloat16 tensor's
  values in float32 (exactly), ``np_dtype`` its NumPy dtype.

``check`` compares forward values, shapes and dtypes (``str(dtype)``: chainrule's dtypes
print as ``torch.float32``), whether the output requires grad, then runs backward with a
random non-scalar ``gradient`` of the output's shape and compares every input's ``.grad``,
then the forward-mode tangent for random tangents on every float input. Where torch itself
cannot run forward mode (``KNOWN_TORCH_FORWARD_GAPS``), ``check`` records the case in
``TORCH_FORWARD_GAPS``, which the terminal summary counts and lists (conftest.py); any
other failure of torch's forward mode fails the test.
``check_raises`` checks that both libraries raise the same exception type,
``check_same_error`` the type and message. ``check_fd`` is a float64 central-difference
check of chainrule's VJP alone. ``check_double_backward`` compares first and second
derivatives taken with ``create_graph=True`` against PyTorch's.

For code that is not one op: ``assert_same`` (one tensor, the dtype's tolerance),
``assert_close``/``compare`` (nested results: tensors, tuples, dicts, numbers),
``compare_logs`` (event logs), ``same_node`` (the output's node), ``error_of`` and
``assert_same_error`` (exceptions), ``tangent``/``compare_tangents`` (forward mode).
The data section makes inputs: ``randn``, ``positive``, ``nonzero``, ``values`` (an op's
domain), ``distinct`` (no ties), ``R``/``L64`` (shape-op cases), ``well``/``spd``/``sym``
(matrices).
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
import torch

import chainrule as cr

LIBS = (cr, torch)

# (rtol, atol) per floating dtype; integer and bool results must match exactly
TOLERANCES = {
    "torch.float16": (1e-3, 1e-3),
    # torch.testing.assert_close's bf16 defaults: about two ulps (bf16 keeps 8 bits)
    "torch.bfloat16": (1.6e-2, 1e-5),
    "torch.float32": (2e-5, 2e-5),
    "torch.float64": (1e-10, 1e-12),
    "torch.complex64": (2e-5, 2e-5),
    "torch.complex128": (1e-10, 1e-12),
}


# the float dtypes most cases run in, and their test ids
FLOATS = [np.float32, np.float64]
DT_IDS = ["f32", "f64"]


def shape_id(shape) -> str:
    """A test id for a shape: ``3x4``, ``0d`` for ()."""
    return "x".join(map(str, shape)) if shape else "0d"


def pair_id(pair) -> str:
    return f"{shape_id(pair[0])}_{shape_id(pair[1])}"


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


def values(kind: str, shape=(), seed: int = 0) -> np.ndarray:
    """float64 inputs in an op's domain, kept away from its kinks and domain edges."""
    r = np.random.default_rng(seed)
    if kind == "any":
        v = r.standard_normal(shape)
    elif kind == "wide":  # erf, erfc: the tails too
        v = r.uniform(-3.0, 3.0, shape)
    elif kind == "pos":
        v = r.uniform(0.5, 2.0, shape)
    elif kind == "gt-1":
        v = r.uniform(-0.6, 2.0, shape)
    elif kind == "prob":  # logit: inside (0, 1), away from both ends
        v = r.uniform(0.1, 0.9, shape)
    elif kind == "unit":
        v = r.uniform(-0.9, 0.9, shape)
    elif kind == "gt1":
        v = r.uniform(1.2, 3.0, shape)
    elif kind == "tan":
        v = r.uniform(-1.2, 1.2, shape)
    elif kind == "nonzero":
        v = r.uniform(0.5, 2.0, shape) * r.choice([-1.0, 1.0], shape)
    elif kind.startswith("away"):  # k + u, u away from 0, 1/2 and 1: no rounding edge near
        u = r.choice([r.uniform(0.15, 0.35), r.uniform(0.65, 0.85)], shape)
        v = (r.integers(-4, 4, shape) + u) * {"away": 1, "away10": 0.1, "away_10": 10}[kind]
    elif kind == "clamp":  # away from the bounds ±0.5
        v = r.uniform(0.1, 0.4, shape) * r.choice([-1.0, 1.0], shape)
        v = v + r.choice([-0.5, 0.5, 0.0], shape) * 2
    else:
        raise ValueError(kind)
    return np.asarray(v, dtype=np.float64)


def distinct(shape, seed=0) -> np.ndarray:
    """float64 values with no ties (a random permutation of spread-out numbers)."""
    n = int(np.prod(shape)) if shape else 1
    r = np.random.default_rng(seed)
    v = r.permutation(n).astype(np.float64) * 0.37 - n * 0.15 + r.uniform(0, 0.1, n)
    return v.reshape(shape)


def R(*shape, seed=0) -> np.ndarray:
    """Standard normal values of ``shape``, seeded by the shape (the shape-op cases)."""
    return randn(shape, seed=seed + 7 * len(shape) + sum(shape))


def L64(*values) -> np.ndarray:
    """An int64 index array."""
    return np.array(values, dtype=np.int64)


def well(shape, seed=0) -> np.ndarray:
    """Square matrices with well-separated singular values: random plus 3 I."""
    n = shape[-1]
    return randn(shape, seed) * 0.5 + 3 * np.eye(n)


def spd(lib, x):
    """x xᵀ + n I: symmetric positive-definite, differentiable in x."""
    n = x.shape[-1]
    return x @ x.mT + n * lib.eye(n, dtype=x.dtype)


def sym(lib, x):
    """(x + xᵀ) / 2 plus a spread diagonal: symmetric with well-separated eigenvalues."""
    n = x.shape[-1]
    spread = lib.diag(lib.arange(n, dtype=x.dtype) * 3.0)
    return (x + x.mT) * 0.5 + spread


# ----- conversion ----------------------------------------------------------------------


def _is_float_array(a: Any) -> bool:
    """A floating or complex array: an input that requires grad."""
    return isinstance(a, np.ndarray) and (a.dtype.kind in "fc" or is_bf16(a.dtype))


def bf16() -> np.dtype:
    """ml_dtypes' bfloat16 NumPy dtype: ``dtype=bf16()`` runs a case in bfloat16."""
    import ml_dtypes

    return np.dtype(ml_dtypes.bfloat16)


def is_bf16(dtype: Any) -> bool:
    """Whether ``dtype`` (a NumPy dtype or type) is ml_dtypes' bfloat16."""
    return dtype is not None and np.dtype(dtype).kind == "V" and np.dtype(dtype).name == "bfloat16"


def _cast(arr: np.ndarray, dtype: Any) -> np.ndarray:
    """A floating array cast to ``dtype``, a complex one to the complex dtype of its parts;
    to bfloat16 through float32 (the float32 inputs the tables make, then rounded)."""
    if dtype is None or arr.dtype.kind not in "fc":
        return arr
    if is_bf16(dtype):
        return arr if arr.dtype.kind == "c" else arr.astype(np.float32).astype(dtype)
    if arr.dtype.kind == "c":
        return arr.astype(np.result_type(dtype, np.complex64))
    return arr.astype(dtype)


def crandn(shape: tuple = (), seed: int = 0) -> np.ndarray:
    """Complex values with standard normal real and imaginary parts (complex128)."""
    r = rng(seed)
    return np.asarray(r.standard_normal(shape) + 1j * r.standard_normal(shape))


def _random_like(r: np.random.Generator, shape: tuple, dtype: Any) -> np.ndarray:
    """Standard normal values of ``shape`` in ``dtype`` (complex: both parts drawn)."""
    if np.dtype(dtype).kind == "c":
        return (r.standard_normal(shape) + 1j * r.standard_normal(shape)).astype(dtype)
    return np.asarray(r.standard_normal(shape)).astype(dtype)


def to_lib(lib, value: Any, dtype: Any = None) -> Any:
    """``value`` as ``lib``'s input: NumPy arrays become tensors, anything else stays."""
    if isinstance(value, np.generic):  # a 0-d computation's NumPy scalar
        value = np.asarray(value)
    if isinstance(value, NoGrad):
        return _tensor(lib, _cast(value.array, dtype))
    if isinstance(value, np.ndarray):
        arr = _cast(value, dtype)
        t = _tensor(lib, arr)
        if _is_float_array(arr):
            t.requires_grad_(True)
        return t
    return value


# the device of the case running (tests/ops/conftest.py parametrises it): chainrule's
# tensors are made there, PyTorch's on its default device (CUDA, or the CPU where chainrule's
# 'cuda' is the stand-in)
DEVICE = "cpu"


def _tensor(lib, arr: np.ndarray):
    arr = np.array(arr, copy=True)
    if is_bf16(arr.dtype):  # neither library takes ml_dtypes' arrays: float32, then cast
        return _tensor(lib, arr.astype(np.float32)).to(lib.bfloat16)
    if lib is torch:
        t = torch.from_numpy(arr)
        return t if DEVICE == "cpu" else t.to(torch.get_default_device())
    return cr.tensor(arr)


def to_numpy(t: Any) -> np.ndarray:
    """A tensor's values as a NumPy array (a bfloat16 tensor's in float32, exactly)."""
    if str(t.dtype) == "torch.bfloat16":
        t = t.float()
    # force: torch's double backward can return a ZeroTensor, which numpy() refuses
    return np.array(t.detach().numpy(force=True), copy=True)


def np_dtype(t: Any) -> np.dtype:
    """The NumPy dtype of a tensor's values (ml_dtypes' bfloat16 for a bfloat16 tensor)."""
    return bf16() if str(t.dtype) == "torch.bfloat16" else to_numpy(t).dtype


def is_tensor(t: Any) -> bool:
    return isinstance(t, (cr.Tensor, torch.Tensor))


# ----- comparison ----------------------------------------------------------------------


def nested_lists(t: Any) -> Any:
    """A tensor's values as nested lists, a sequence's as a tuple of them, None as None:
    what hook logs and gradients are compared as."""
    if t is None:
        return None
    if isinstance(t, (tuple, list)):
        return tuple(nested_lists(x) for x in t)
    return t.tolist()


def assert_on_the_case_device(got: Any, what: str = "output") -> None:
    """On a device's case (``DEVICE``), chainrule's result is on that device: an op whose
    result is left on the CPU fails there (PyTorch's, compared on the CPU, says nothing)."""
    if DEVICE != "cpu":
        assert got.device.type == DEVICE.partition(":")[0], (
            f"{what}: on {got.device}, but the case runs on {DEVICE}"
        )


def assert_same(got: Any, want: Any, what: str = "output", rtol=None, atol=None) -> None:
    """chainrule tensor ``got`` equals torch tensor ``want``: shape, dtype and values."""
    assert isinstance(got, cr.Tensor), f"{what}: expected a chainrule Tensor, got {type(got)}"
    assert isinstance(want, torch.Tensor), f"{what}: torch gave {type(want)}"
    assert_on_the_case_device(got, what)
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


def relative_atol(want: Any, atol: float) -> float:
    """``atol`` scaled by the size of torch's finite values: ``atol * (1 + max |want|)``
    (nan and inf, compared as such, do not scale it)."""
    w = to_numpy(want) if is_tensor(want) else np.asarray(want)
    finite = np.abs(w[np.isfinite(w)]) if w.dtype.kind in "fc" else np.abs(w)
    return atol * (1.0 + float(np.max(finite))) if finite.size else atol


def assert_close(
    got: Any,
    want: Any,
    rtol: float = 1e-6,
    atol: float = 1e-7,
    *,
    exact: bool = False,
    requires_grad: bool = True,
    what: str = "value",
) -> None:
    """What chainrule returned equals what torch returned, recursively.

    Tensors: a chainrule Tensor of torch's shape, dtype and (unless ``requires_grad`` is
    False) ``requires_grad``, with values within ``rtol``/``atol`` (``exact``: equal);
    dicts: the same keys; tuples and lists: the same length; anything else (None, numbers,
    strings): equal.
    """
    if isinstance(want, torch.Tensor):
        assert isinstance(got, cr.Tensor), f"{what}: expected a chainrule Tensor, got {got!r}"
        assert_on_the_case_device(got, what)
        assert tuple(got.shape) == tuple(want.shape), (
            f"{what}: shape {tuple(got.shape)} != torch's {tuple(want.shape)}"
        )
        assert str(got.dtype) == str(want.dtype), f"{what}: dtype {got.dtype} != {want.dtype}"
        assert got.requires_grad == want.requires_grad or not requires_grad, (
            f"{what}: requires_grad {got.requires_grad} != torch's {want.requires_grad}"
        )
        g, w = to_numpy(got), to_numpy(want)
        if exact:
            np.testing.assert_array_equal(g, w, err_msg=what)
        else:
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=what)
    elif isinstance(want, dict):
        assert isinstance(got, dict) and got.keys() == want.keys(), (what, got, want)
        for k in want:
            assert_close(
                got[k],
                want[k],
                rtol,
                atol,
                exact=exact,
                requires_grad=requires_grad,
                what=f"{what}[{k!r}]",
            )
    elif isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), (what, got, want)
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_close(
                g, w, rtol, atol, exact=exact, requires_grad=requires_grad, what=f"{what}[{i}]"
            )
    else:
        assert got == want, (what, got, want)


def warns_as_torch(
    match: str | None, fn: Callable, category: type[Warning] = UserWarning
) -> Callable:
    """``fn(lib, *args)`` where PyTorch warns (``match``, a regex): every chainrule call must
    give that warning (``pytest.warns``); torch's calls run with warnings ignored (the
    oracle's C++ warnings come once per process and are attributed to the test file).
    ``match=None``: only torch warns (a deprecation chainrule does not repeat)."""

    def warned(lib, *args, **kwargs):
        if lib is torch:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return fn(lib, *args, **kwargs)
        if match is None:
            return fn(lib, *args, **kwargs)
        with pytest.warns(category, match=match):
            return fn(lib, *args, **kwargs)

    return warned


def torch_quiet(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args)`` (a torch call, the oracle side) with its warnings ignored."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def both(fn: Callable[[Any], Any]) -> tuple[Any, Any]:
    """``fn(chainrule)`` and ``fn(torch)``."""
    return fn(cr), fn(torch)


def compare(fn: Callable[[Any], Any], rtol: float = 1e-6, atol: float = 1e-7, **kw) -> None:
    """``fn(lib)`` returns the same (nested) values on both libraries: ``assert_close``."""
    got, want = both(fn)
    assert_close(got, want, rtol, atol, **kw)


def compare_logs(fn: Callable[[Any, list], Any]) -> None:
    """``fn(lib, log)`` appends the same events to ``log`` on both libraries (and some)."""
    ours: list = []
    theirs: list = []
    fn(cr, ours)
    fn(torch, theirs)
    assert ours == theirs
    assert ours  # every scenario logs something


def graph_names(t: Any) -> list:
    """The graph under ``t``: each node's name with its edges' (name, output number), a
    leaf's node as ("leaf", the id of its tensor); what the fast-path tests compare."""
    out, todo, seen = [], [t.grad_fn], set()
    while todo:
        fn = todo.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        if fn.name() == "torch::autograd::AccumulateGrad":
            out.append(("leaf", id(fn.variable)))
            continue
        out.append(
            (fn.name(), [(None if f is None else f.name(), nr) for f, nr in fn.next_functions])
        )
        todo.extend(f for f, _ in fn.next_functions)
    return out


def same_bits_as_replaced(monkeypatch, target, name: str, off, fn, x: np.ndarray) -> None:
    """A fast path pinned to the path it stands in for: ``fn(chainrule, tensor)``'s output
    and the input's gradient (for a random output gradient), with ``target.name`` as it is
    and then replaced by ``off`` (which turns the fast path away), equal bit for bit."""
    results, g = [], None
    for fast in (True, False):
        if not fast:
            monkeypatch.setattr(target, name, off)
        t = cr.tensor(x, requires_grad=True)
        y = fn(cr, t)
        if g is None:
            g = np.random.default_rng(1).standard_normal(tuple(y.shape)).astype(x.dtype)
        y.backward(cr.tensor(g))
        results.append((y.detach().numpy(), t.grad.numpy()))
    for a, b in zip(*results):
        np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))


def assert_same_bits(got: np.ndarray, want: np.ndarray) -> None:
    """Equal bit for bit (signed zeros included), nan where ``want`` is nan."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    keep = ~np.isnan(want)
    np.testing.assert_array_equal(got[keep].view(np.uint8), want[keep].view(np.uint8))


def vjp_bits_on_arrays(fn: Callable, inputs: Sequence[Any], g: np.ndarray) -> None:
    """VJPs' fast paths on arrays pinned to the ops they stand in for: the gradients of
    ``fn(chainrule, *tensors)`` for the output gradient ``g``, by backward (the VJPs given
    arrays) and by create_graph=True (the VJPs' ops on tensors), equal bit for bit. Float
    arrays among ``inputs`` become tensors that require grad; the rest pass as they are."""
    tensors = [to_lib(cr, a) for a in inputs]
    wrt = [t for t in tensors if is_tensor(t) and t.requires_grad]
    y = fn(cr, *tensors)
    grad = cr.tensor(g)
    fast = cr.autograd.grad(y, wrt, grad, retain_graph=True)
    plain = cr.autograd.grad(y, wrt, grad, create_graph=True)
    for a, b in zip(fast, plain):
        assert_same_bits(to_numpy(a), to_numpy(b))


def same_node(result: Result) -> None:
    """chainrule's output node is PyTorch's: both None, or the same class name and name()
    (the class name is name() without the ``torch::autograd::`` of C++ nodes)."""
    want = result.torch_out.grad_fn
    got = result.cr_out.grad_fn
    assert (got is None) == (want is None), (got, want)
    if want is not None:
        assert got.name() == want.name(), (got.name(), want.name())
        assert type(got).__name__ == type(want).__name__, (type(got), type(want))
        assert type(got).__name__ == want.name().split("::")[-1], (type(got), want.name())


# ----- errors --------------------------------------------------------------------------


def error_of(fn: Callable[[Any], Any], lib) -> BaseException:
    """The exception ``fn(lib)`` raises (it must raise)."""
    try:
        fn(lib)
    except Exception as exc:  # noqa: BLE001 - the exception itself is what is compared
        return exc
    raise AssertionError(f"{lib.__name__} raised nothing")


def assert_same_error(fn: Callable[[Any], Any], phrase: str | None = None) -> None:
    """Both libraries raise the same exception type with the same message (or phrase)."""
    expected = error_of(fn, torch)
    got = error_of(fn, cr)
    assert type(got) is type(expected), (type(got), got, type(expected), expected)
    if phrase is None:
        assert str(got) == str(expected)
    else:
        assert phrase in str(expected), f"phrase not in torch's message: {expected}"
        assert phrase in str(got), f"{phrase!r} not in {got}"


def check_same_error(fn: Callable, *inputs: Any) -> None:
    """``fn(lib, *tensors)`` raises on both libraries with the same message; the type is
    torch's where that is a builtin exception, a RuntimeError (or subclass) where torch's
    is its own (``torch.linalg.LinAlgError``)."""
    with pytest.raises(Exception) as want:  # noqa: B017 - the type is compared below
        fn(torch, *[_tensor(torch, np.asarray(x)) for x in inputs])
    with pytest.raises(want.type if want.type.__module__ == "builtins" else RuntimeError) as got:
        fn(cr, *[cr.tensor(np.asarray(x)) for x in inputs])
    assert str(got.value) == str(want.value)


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
        g = _random_like(rng(seed), tuple(t_out.shape), np_dtype(t_out))
        t_out.backward(_tensor(torch, g))
        c_out.backward(_tensor(cr, g))
        for i, (c, t) in enumerate(zip(cr_in, t_in, strict=True)):
            if isinstance(t, torch.Tensor) and t.requires_grad:
                assert_same_grad(c.grad, t.grad, f"grad of input {i}", rtol, atol)
    if forward:
        check_tangents(fn, inputs, dtype, seed, rtol, atol)
    else:  # the test's own choice, with its reason in a comment there: counted, not listed
        FORWARD_OFF.append(_current_test())
    return Result(cr_in, t_in, c_out, t_out)


def check_tangents(fn: Callable, inputs: Sequence[Any], dtype: Any, seed: int, rtol, atol):
    """Forward mode: with a random tangent on every floating input, the output's tangent
    equals torch's. Where torch has no forward-mode rule for the function, nothing is
    compared."""
    r = rng(seed + 1)
    tangents = [
        _random_like(r, np.shape(v), _cast(v, dtype).dtype) if _is_float_array(v) else None
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
                    x = fwd.make_dual(x, _tensor(lib, t.astype(np_dtype(x))))
                args.append(x)
            out = fn(lib, *args)
            if not is_tensor(out) or not (out.dtype.is_floating_point or out.dtype.is_complex):
                return None
            return fwd.unpack_dual(out).tangent

    try:
        want = run(torch)
    except (RuntimeError, NotImplementedError, IndexError) as exc:
        record_torch_forward_gap(exc)  # listed at the end of the run, never silent
        return
    got = run(cr)
    if want is None:
        return
    assert got is not None, "forward mode: torch gives a tangent, chainrule none"
    assert_same(got, want, "forward-mode tangent", rtol, atol)


def tangent(lib, fn: Callable, primals: Sequence[Any], tangents: Sequence[Any]):
    """Forward mode: ``fn(lib, *inputs)`` where each primal with a tangent is a dual
    tensor, the others plain tensors (a ``NoGrad`` primal is one). Returns the output's
    primal and tangent as NumPy arrays."""
    fwd = lib.autograd.forward_ad
    with fwd.dual_level():
        args = []
        for p, t in zip(primals, tangents, strict=True):
            x = lib.tensor(np.array(p.array if isinstance(p, NoGrad) else p, copy=True))
            args.append(x if t is None else fwd.make_dual(x, lib.tensor(np.array(t, copy=True))))
        primal, tan = fwd.unpack_dual(fn(lib, *args))
        assert tan is not None, f"{lib.__name__}: the output has no tangent"
        return to_numpy(primal), to_numpy(tan)


def compare_tangents(
    fn: Callable,
    primals: Sequence[Any],
    tangents: Sequence[Any],
    rtol: float = 1e-10,
    atol: float = 1e-12,
    primal_rtol: float = 1e-12,
    primal_atol: float = 1e-12,
):
    """chainrule's forward-mode primal and tangent equal torch's (``tangent`` on both);
    returns both libraries' (primal, tangent)."""
    ours, theirs = tangent(cr, fn, primals, tangents), tangent(torch, fn, primals, tangents)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=primal_rtol, atol=primal_atol)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=rtol, atol=atol)
    return ours, theirs


def assert_same_tangent(fn: Callable, *primals: Any, seed: int = 0):
    """``compare_tangents`` at float64 ``primals`` with standard normal tangents."""
    r = np.random.default_rng(seed)
    primals = [np.asarray(p, dtype=np.float64) for p in primals]
    return compare_tangents(fn, primals, [r.standard_normal(p.shape) for p in primals])


def cr_tangent(fn: Callable, x: np.ndarray, t: np.ndarray) -> np.ndarray:
    """chainrule's forward-mode tangent of ``fn(cr, x)`` along ``t``: for pinning the
    cases where PyTorch's forward mode is not the spec."""
    return tangent(cr, fn, [x], [t])[1]


# ----- forward mode that torch itself cannot run ----------------------------------------

# The forward-mode rules torch 2.13 lacks, by the name its NotImplementedError gives
# ("Trying to use forward AD with <name> that does not support it"). Where torch raises
# one of these, ``check`` records the case and compares no tangent; any other failure of
# torch's forward mode fails the test, so that a new gap is added here deliberately.
KNOWN_TORCH_FORWARD_GAPS = {
    "aten::floor_divide": "floor_divide (and //): no derivative in either mode",
    "aten::remainder": "remainder(number, tensor), the Scalar_Tensor overload (and number % x)",
    "cholesky": "the deprecated torch.cholesky (torch.linalg.cholesky has a rule)",
    "rrelu_with_noise_": "the in-place rrelu (nn.functional.rrelu(inplace=True), rrelu_)",
    "grid_sampler_2d": "nn.functional.grid_sample on 4-D input (tangents: finite differences)",
    "grid_sampler_3d": "nn.functional.grid_sample on 5-D input (tangents: finite differences)",
    "multi_margin_loss": "nn.functional.multi_margin_loss",
    "multilabel_margin_loss_forward": "nn.functional.multilabel_margin_loss",
    "_pdist_forward": "nn.functional.pdist",
    "_cdist_forward": "torch.cdist (its VJP: finite differences)",
    "_embedding_bag": "nn.functional.embedding_bag",
    "_scaled_dot_product_flash_attention_for_cpu": "scaled_dot_product_attention, 4-D inputs",
    "_ctc_loss": "nn.functional.ctc_loss",
    "_weight_norm_interface": "torch._weight_norm along the first or last dim (weight_norm)",
}
_FORWARD_GAP = re.compile(r"Trying to use forward AD with (\S+) that does not support it")


@dataclass(frozen=True)
class ForwardGap:
    """A forward-mode comparison ``check`` could not make: torch itself raised."""

    test: str  # the pytest node id of the test that ran the check
    op: str  # the name in torch's message (a key of KNOWN_TORCH_FORWARD_GAPS)
    error: str  # torch's exception type
    message: str  # the first line of torch's message


# Every comparison not made because torch raised, in the order met; conftest.py counts
# and lists them in the terminal summary ("forward-mode checks torch could not run: N").
TORCH_FORWARD_GAPS: list[ForwardGap] = []
# The tests that called check(..., forward=False), once per call (the summary counts them)
FORWARD_OFF: list[str] = []


def _current_test() -> str:
    return os.environ.get("PYTEST_CURRENT_TEST", "(outside a test)").rsplit(" (", 1)[0]


def record_torch_forward_gap(exc: BaseException) -> ForwardGap:
    """Record that torch raised ``exc`` in forward mode; fail unless it is a known gap."""
    test = _current_test()
    lines = str(exc).strip().splitlines()
    message = lines[0] if lines else ""
    match = _FORWARD_GAP.search(message)
    op = match.group(1) if match else ""
    if op not in KNOWN_TORCH_FORWARD_GAPS:
        raise AssertionError(
            "torch's forward mode raised where no gap is known, so no tangent was compared: "
            f"{type(exc).__name__}: {message} (a real gap goes into "
            "oracle.KNOWN_TORCH_FORWARD_GAPS; a case torch refuses takes forward=False)"
        ) from exc
    gap = ForwardGap(test, op, type(exc).__name__, message)
    TORCH_FORWARD_GAPS.append(gap)
    return gap


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
    out_dtype = np_dtype(out)
    w = _tensor(
        lib, np.asarray(r.standard_normal(tuple(out.shape))).astype(out_dtype)
    ).requires_grad_(True)
    first = lib.autograd.grad(out, diff, grad_outputs=w, create_graph=True, allow_unused=True)
    targets = diff + [w]
    us = [np.asarray(r.standard_normal(tuple(x.shape))).astype(np_dtype(x)) for x in diff]
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
