"""Every op family in bfloat16 against PyTorch: the families' own case tables (imported from
their test files, not rewritten), with bfloat16 inputs in both libraries.

Each case makes its float32 inputs as its table does, rounds them to bfloat16 in both
libraries (``oracle.bf16``: float32 arrays, then ``.to(bfloat16)``), runs forward and
backward (one random bfloat16 gradient for both), and compares values, result dtypes,
``requires_grad`` and the inputs' gradients (whose dtype is their input's). Forward mode is
not run: its tangents are the float32 computation's, which the families' own tests
compare; the sweep is about the bfloat16 boundary (inputs widened to float32, results
rounded once) and the VJPs on bfloat16 arrays.

Tolerances:

- elementwise ops (unary and binary math, activations, clamp, where, comparisons, the
  in-place variants) and the ops that only move values (shapes, indexing, joining,
  scatter, padding, copies) are asserted bit-exact forward, on 32 contiguous elements:
  PyTorch's vectorized CPU kernels load bfloat16, compute in float32 and round once, as
  chainrule's boundary does (and PyTorch's xlogy, logit and ldexp round an intermediate
  to bfloat16, as chainrule's ops do by computing those on the bfloat16 arrays);
  ``NOT_EXACT`` lists the few that are not, and why;
- everything else forward (sums, means, scans, softmax, norms, products, convolutions,
  pooling, losses, normalizations) at PyTorch's bfloat16 rtol (1.6e-2,
  ``torch.testing.assert_close``'s) with an absolute tolerance of 2 bfloat16 ulps of the
  output's largest value, and every gradient at 4 such ulps (``ulps_of_largest``): the
  summation orders differ, and PyTorch's composite backward formulas round after each of
  their steps where chainrule runs a bfloat16 node's VJPs in float32 and rounds each
  gradient once (as PyTorch's fused kernels do), so values that cancellation made small
  carry the rounding error of the large terms they came from.

Ops PyTorch refuses in bfloat16 on the CPU (``TORCH_REFUSES``) are compared with its
float32 result on the same values.
"""

from __future__ import annotations

import importlib.util
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import (
    NoGrad,
    assert_same,
    bf16,
    distinct,
    np_dtype,
    randn,
    to_lib,
    to_numpy,
    values,
)

TESTS = Path(__file__).resolve().parents[1]


def family(path: str) -> ModuleType:
    """A family's test module (``tests/<path>``), imported under its file name as pytest
    imports it (so a module pytest already collected is that one, not a second copy)."""
    name = Path(path).stem
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, TESTS / path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


unary = family("ops/test_unary.py")
binary = family("ops/test_binary.py")
arithmetic = family("ops/test_arithmetic.py")
special = family("ops/test_special.py")
activations = family("ops/test_activations.py")
reductions = family("ops/test_reductions.py")
scans = family("ops/test_scans.py")
sorting = family("ops/test_sorting.py")
shape = family("ops/test_shape.py")
indexing = family("ops/test_indexing.py")
joining = family("ops/test_joining.py")
scatter = family("ops/test_scatter.py")
copies = family("ops/test_copies.py")
logical = family("ops/test_logical.py")
products = family("ops/linalg/test_products.py")
losses = family("nn/functional/test_losses.py")
normalization = family("nn/functional/test_normalization.py")
convolution = family("nn/functional/test_convolution.py")
pooling = family("nn/functional/test_pooling.py")
linear = family("nn/functional/test_linear.py")
padding = family("nn/functional/test_padding.py")


# ----- the sweep's cases: id -> Case ---------------------------------------------------------


class Case:
    """One run: ``fn(lib, *inputs)``; ``exact``: the forward bit for bit; ``backward``:
    whether PyTorch has a derivative; ``ulps``: the forward's and the gradients' absolute
    tolerance, in bfloat16 ulps of their largest value (``ulps_of_largest``)."""

    def __init__(
        self,
        fn: Callable,
        inputs: list,
        *,
        exact: bool = False,
        backward: bool = True,
        ulps: tuple[float, float] = (2, 4),
    ) -> None:
        self.fn, self.inputs, self.exact, self.backward, self.ulps = (
            fn,
            inputs,
            exact,
            backward,
            ulps,
        )
        self.grad_atol: float | None = None  # an absolute bound, where the case says why


CASES: dict[str, Case] = {}


def add(prefix: str, cases: dict[str, Case]) -> None:
    for name, case in cases.items():
        CASES[f"{prefix}.{name}"] = case


# elementwise families: one shape, bit-exact forward. 32 contiguous elements, operands of
# the same shape: PyTorch's vectorized loops (32 bfloat16 lanes) compute each element in
# float32 and round once; its scalar loops (a remainder, a broadcast operand) round some
# intermediates of a fused formula (rsqrt as 1/sqrt, add's alpha * other, lerp's weight
# times the difference), which chainrule does not copy.
EW = (4, 8)
add("unary", {n: Case(f, [values(k, EW, len(n))], exact=True) for n, (f, k) in unary.UNARY.items()})
add(
    "unary.form",
    {
        n: Case(f, [unary.cases.form_input(d, EW)], exact=True)
        for n, (f, _, d) in unary.FORMS.items()
    },
)
add(
    "unary.inplace",
    {n: Case(f, [values(k, EW, len(n))], exact=True) for n, (f, k) in unary.INPLACE.items()},
)
add(
    "special",
    {n: Case(f, [values(k, EW, len(n))], exact=True) for n, (f, k) in special.UNARY.items()},
)
add(
    "special.inplace",
    {n: Case(f, [values(k, EW, len(n))], exact=True) for n, (f, k) in special.INPLACE.items()},
)
add(
    "clamp", {n: Case(f, [values(k, EW, len(n))], exact=True) for n, (f, k) in binary.UNARY.items()}
)
add(
    "binary.inplace",
    {n: Case(f, [values(k, EW, len(n))], exact=True) for n, (f, k) in binary.INPLACE.items()},
)
add(
    "arithmetic.unary",
    {n: Case(f, [values(k, EW, len(n))], exact=True) for n, (f, k) in arithmetic.UNARY.items()},
)
add(
    "arithmetic.inplace",
    {n: Case(f, [values(k, EW, len(n))], exact=True) for n, (f, k) in arithmetic.INPLACE.items()},
)


def _pair(table: dict, backward: bool = True) -> dict[str, Case]:
    return {
        n: Case(
            f, [values(ka, EW, len(n)), values(kb, EW, len(n) + 7)], exact=True, backward=backward
        )
        for n, (f, ka, kb) in table.items()
    }


add("binary", _pair(binary.BINARY))
add("arithmetic.binary", _pair(arithmetic.BINARY))
add("arithmetic.forward_only", _pair(arithmetic.FORWARD_ONLY_BINARY, backward=False))
add(
    "operators",
    {
        n: Case(f, list(arithmetic._binary_inputs(n, EW, EW)), exact=True)
        for n, f in arithmetic.OPERATORS.items()
    },
)
add(
    "scalar_ops",
    {
        f"{n}_{c}": Case(lambda L, x, f=f, c=c: f(L, x, c), [randn(EW, 3)], exact=True)
        for n, f in arithmetic.SCALAR_OPS.items()
        for c in arithmetic.SCALARS
    },
)
add(
    "binary.numbers",
    {
        n: Case(f, [values("nonzero", EW, len(n))], exact=True, backward=b)
        for n, (f, b) in binary.SCALAR_OPERANDS.items()
    },
)
add(
    "arithmetic.numbers",
    {
        n: Case(f, [values("nonzero", EW, len(n))], exact=True, backward=b)
        for n, (f, b) in arithmetic.SCALAR_OPERANDS.items()
    },
)
add(
    "where",
    {
        n: Case(f, [np.asarray(randn(sc, 28) > 0), randn(sa, 29), randn(sb, 30)], exact=True)
        for n, (f, (sc, sa, sb)) in arithmetic.WHERE_CASES.items()
    },
)
add(
    "activation",
    {
        n: Case(f, [activations._data(EW, len(n))], exact=True)
        for n, f in activations.ELEMENTWISE.items()
    },
)
add(
    "activation.inplace",
    {
        n: Case(lambda L, x, f=f: f(L, x * 1), [activations._data(EW, len(n))], exact=True)
        for n, f in activations.INPLACE.items()
    },
)
add(
    "logical", {n: Case(f, list(inputs), exact=True) for n, (f, *inputs) in logical.NO_GRAD.items()}
)
add(
    "binary.no_grad",
    {n: Case(f, list(inputs), exact=True) for n, (f, *inputs) in binary.NO_GRAD.items()},
)

# along a dim, reductions, scans, sorting: tie-free inputs, the bfloat16 tolerance
add(
    "dim",
    {
        n: Case(lambda L, x, f=f: f(L, x, -1), [activations._data((3, 4), 7)])
        for n, f in activations.DIM_CASES.items()
    },
)
add("glu", {n: Case(f, [activations._data(s, 3)]) for n, (f, s) in activations.GLU_PRELU.items()})
add(
    "reduction",
    {n: Case(f(1, False), [randn((2, 3, 4), 11)]) for n, f in reductions.REDUCTIONS.items()},
)
add(
    "reduction.selection",
    {n: Case(f, [distinct(s, len(n))]) for n, (f, s) in reductions.FORWARD.items()},
)
add("var", {n: Case(f("var"), [randn((2, 3, 4), 5)]) for n, f in reductions.VAR_CALLS.items()})
add("std", {n: Case(f("std"), [randn((2, 3, 4), 5)]) for n, f in reductions.VAR_CALLS.items()})
add("scan", {n: Case(f, [distinct(s, len(n)) * 0.3]) for n, (f, s) in scans.FORWARD.items()})
add("sorting", {n: Case(f, [distinct(s, len(n))]) for n, (f, s) in sorting.FORWARD.items()})

# shapes, indexing, joining, scatter, copies: they move values, so forward is exact too
for prefix, module in (
    ("shape", shape),
    ("indexing", indexing),
    ("joining", joining),
    ("scatter", scatter),
    ("copies", copies),
):
    add(prefix, {n: Case(f, list(inputs), exact=True) for n, (f, *inputs) in module.CASES.items()})
add(
    "indexing.inplace",
    {
        n: Case(f, [randn((3, 4), 1), randn((3, 2), 2)], exact=True)
        for n, f in indexing.INPLACE.items()
    },
)
add(
    "scatter.inplace",
    {
        n: Case(f, [randn((3, 4), 1), randn((3, 2), 2)], exact=True)
        for n, f in scatter.INPLACE.items()
    },
)
add("padding", {n: Case(f, list(inputs), exact=True) for n, (f, *inputs) in padding.PADS.items()})

# products, layers, losses, normalizations: sums of products, the bfloat16 tolerance
add("products", {n: Case(f, list(inputs)) for n, (f, inputs, _) in products.CASES.items()})
add("linear", {n: Case(f, list(inputs)) for n, (f, *inputs) in linear.CASES.items()})
add("conv", {n: Case(f, list(inputs)) for n, (f, *inputs) in convolution.CONV.items()})
add("pooling", {n: Case(f, list(inputs)) for n, (f, *inputs) in pooling.ALL.items()})
add("loss", {f"{n}-{r}": Case(*losses._bound(n, r)) for n, r in losses.CASES})
add("norm", {n: Case(f, list(inputs)) for n, (f, *inputs) in normalization.NORMS.items()})


# ----- where PyTorch's bfloat16 is not one rounding of the float32 computation ----------------

# forward compared at 2 ulps rather than bit for bit, and why
NOT_EXACT = {
    # the float32 gelu differs from PyTorch's far in the negative tail (values ~1e-6, where
    # erfc's relative accuracy matters), an ulp of bfloat16 there
    "activation.gelu": "float32 tails",
    # gelu(approximate='tanh') is x·σ(2u) in chainrule (PyTorch's x/2·(1 + tanh u) cancels
    # below x = -3): the two differ in the tail (values below 1e-6)
    "activation.gelu_tanh": "float32 tails",
    # PyTorch accumulates repeated indices one by one in bfloat16 (each sum rounded), chainrule
    # in float32, rounded once
    "indexing.index_put_accumulate": "sequential bfloat16 sums",
    "scatter.index_add_alpha": "sequential bfloat16 sums",
    "scatter.inplace.index_add_": "sequential bfloat16 sums",
}
for _name in NOT_EXACT:
    CASES[_name].exact = False
# two elements a group: the exact gradient is ~0 (each normalized pair is ±1: 0.004 here),
# so both libraries' gradients are rounding noise at the scale of g·w·invstd (an absolute
# bound)
CASES["norm.group_norm_2d"].grad_atol = 0.1
# fmod's gradient of the divisor is -g·trunc(a/b): PyTorch's formula rounds a/b to
# bfloat16 before trunc, chainrule's VJP runs in float32 (a bfloat16 node's VJPs do,
# autograd/bfloat16.py), so where a/b is just below an integer the two truncate to
# neighbours (a whole g apart): the forward is compared, the backward is not
CASES["arithmetic.binary.fmod"].backward = False
# sinc's and lp_pool's gradients are differences of nearly equal bfloat16 terms in
# PyTorch's formulas (cos x - sinc x; |x|^(p-1) ...): more ulps of the largest
for _name in ("unary.sinc", "unary.sinc_method", "pooling.lp_pool2d_p3", "dim.softmin"):
    CASES[_name].ulps = (2, 8)

# ops PyTorch refuses in bfloat16 on the CPU (its error's phrase): chainrule computes them
# anyway (its float32 computation rounded once, as for every op), compared with PyTorch's
# float32 result on the same bfloat16 values, rounded to bfloat16. (The same error would
# need a refusal per op and kernel name: not worth copying.)
TORCH_REFUSES = {
    "loss.multi_margin_loss-mean": "not implemented for 'BFloat16'",
    "loss.multi_margin_loss-none": "not implemented for 'BFloat16'",
    "loss.multi_margin_loss-sum": "not implemented for 'BFloat16'",
    "loss.multi_margin_loss_p2-mean": "not implemented for 'BFloat16'",
    "loss.multi_margin_loss_p2-none": "not implemented for 'BFloat16'",
    "loss.multi_margin_loss_p2-sum": "not implemented for 'BFloat16'",
    "loss.multilabel_margin_loss-mean": "not implemented for 'BFloat16'",
    "loss.multilabel_margin_loss-none": "not implemented for 'BFloat16'",
    "loss.multilabel_margin_loss-sum": "not implemented for 'BFloat16'",
    "norm.local_response_norm_4d": "not implemented for 'BFloat16'",  # (its avg_pool3d)
    "norm.local_response_norm_5d_wide": "not implemented for 'BFloat16'",
    "pooling.avg_pool3d": "not implemented for 'BFloat16'",
    "products.matrix_power_neg": "Low precision dtypes not supported. Got BFloat16",  # (inv)
}
# not swept, and why: PyTorch's float32 -> bfloat16 cast (``.to``) gives nan the bits
# 0xFFFF, sign bit set, where ml_dtypes' (and PyTorch's own tensor([nan], dtype=bfloat16))
# give 0x7FC0: signbit of a cast nan differs (a cast is the lead's, _dtypes.py)
NOT_SWEPT = {"logical.signbit": "the sign of a cast nan"}
for _name in NOT_SWEPT:
    del CASES[_name]


def ulps_of_largest(want: torch.Tensor, k: float) -> float:
    """``k`` bfloat16 ulps of the largest finite |value| of ``want``: the absolute
    tolerance for a value that cancellation made small (the rounding error of a sum or a
    difference is that of its largest terms, not of its result)."""
    w = to_numpy(want)
    finite = np.abs(w[np.isfinite(w)])
    top = float(finite.max()) if finite.size else 0.0
    return k * 2.0 ** (np.floor(np.log2(top)) - 7) if top > 0 else 1e-5


def compare(got: Any, want: torch.Tensor, what: str, k: float, exact: bool = False) -> None:
    """dtype, shape and values: within PyTorch's bfloat16 rtol or ``k`` ulps of the
    largest value (``ulps_of_largest``); ``exact`` (a bfloat16, bool or integer result):
    bit for bit."""
    assert_same(got, want, what, rtol=1.6e-2, atol=ulps_of_largest(want, k))
    if exact and not (want.dtype.is_floating_point and want.dtype != torch.bfloat16):
        np.testing.assert_array_equal(to_numpy(got), to_numpy(want), err_msg=f"{what} bits")


def _float32(lib, inputs: list) -> list:
    """The bfloat16 tensors among ``inputs`` as float32 leaves (the same values)."""
    return [
        x.detach().float().requires_grad_(x.requires_grad)
        if isinstance(x, (cr.Tensor, torch.Tensor)) and str(x.dtype) == "torch.bfloat16"
        else x
        for x in inputs
    ]


def run(case: Case, refused: str | None = None) -> None:
    """Forward in both libraries on the same bfloat16 inputs, then backward with the same
    random bfloat16 gradient; values, dtypes and every input's gradient compared. Where
    PyTorch refuses the op in bfloat16 (``refused``, its message's phrase), its float32
    computation on the same values is the reference, rounded to bfloat16."""
    ours = [to_lib(cr, v, bf16()) for v in case.inputs]
    theirs = [to_lib(torch, v, bf16()) for v in case.inputs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the tables' deprecations and padding warnings)
        if refused is not None:
            with pytest.raises((NotImplementedError, RuntimeError), match=refused):
                case.fn(torch, *theirs)
            theirs = _float32(torch, theirs)
        want = case.fn(torch, *theirs)
        got = case.fn(cr, *ours)
    if refused is not None:
        want = want.to(torch.bfloat16) if want.dtype == torch.float32 else want
    fwd, grad = case.ulps
    compare(got, want, "forward", fwd, case.exact)
    assert got.requires_grad == want.requires_grad
    if not (case.backward and want.requires_grad):
        return
    g = np.random.default_rng(1234).standard_normal(tuple(want.shape)).astype(np_dtype(want))
    want.backward(to_lib(torch, NoGrad(g)))
    got.backward(to_lib(cr, NoGrad(g)))
    for i, (c, t) in enumerate(zip(ours, theirs, strict=True)):
        if isinstance(t, torch.Tensor) and t.requires_grad:
            assert (c.grad is None) == (t.grad is None), f"grad of input {i}: {c.grad}, {t.grad}"
            if t.grad is None:
                continue
            w = t.grad.to(torch.bfloat16) if refused is not None else t.grad
            if case.grad_atol is None:
                compare(c.grad, w, f"grad of input {i}", grad)
            else:
                assert_same(c.grad, w, f"grad of input {i}", rtol=1.6e-2, atol=case.grad_atol)


@pytest.mark.parametrize("name", sorted(CASES))
def test_bfloat16_matches_torch(name):
    run(CASES[name], TORCH_REFUSES.get(name))
