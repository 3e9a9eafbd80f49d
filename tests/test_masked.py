"""``chainrule.masked`` against ``torch.masked``: values, dtypes and gradients (float64) of
every masked reduction and normalization, over many masks (random, all true, slices with no
element masked in, broadcast, integer, None), dims (None, int, negative, tuples, ``()``)
and ``keepdim``; the dtype rules; the errors.

``check`` compares the forward value, the gradient of the input for a random output
gradient (masked-out elements get zeros, fully masked-out slices whatever torch gives) and
the forward-mode tangent.

``MaskedTensor`` (the prototype): construction, checks, warnings, printout; elementwise,
reduction, softmax and shape ops on it (data, mask, printout and the gradient at the
masked-in elements); ``torch.masked``'s functions on a MaskedTensor.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import chainrule as cr
import chainrule.masked  # noqa: F401  (cr.masked)
from chainrule import overrides
from oracle import assert_same, assert_same_error, check, error_of, randn

SHAPE = (3, 4, 5)
X = randn(SHAPE, seed=3)


def _masks() -> dict:
    """Masks for SHAPE, by name (arrays, or None)."""
    r = np.random.default_rng(11)
    holes = r.random(SHAPE) > 0.4
    holes[1] = False  # a slice with nothing masked in, along every dim
    holes[:, 2, :] = False
    holes[:, :, 3] = False
    return {
        "none": None,
        "random": r.random(SHAPE) > 0.5,
        "all_true": np.ones(SHAPE, dtype=bool),
        "all_false": np.zeros(SHAPE, dtype=bool),
        "holes": holes,
        "last_dim": r.random(SHAPE[-1:]) > 0.5,
        "keepdims": r.random((SHAPE[0], 1, SHAPE[2])) > 0.3,
        "int64": (r.random(SHAPE) > 0.5).astype(np.int64),
    }


MASKS = _masks()
MASK_IDS = list(MASKS)


def _mask(lib, m):
    return None if m is None else lib.tensor(m)


REDUCTIONS = ["sum", "prod", "amax", "amin", "mean", "logsumexp", "var", "std"]
DIMS = [None, 0, -1, (0, 2), (-1, 1), [1], ()]


@pytest.mark.parametrize("mask", MASK_IDS)
@pytest.mark.parametrize("dim", DIMS, ids=str)
@pytest.mark.parametrize("op", REDUCTIONS)
def test_reduction(op, dim, mask):
    check(lambda L, x: getattr(L.masked, op)(x, dim, mask=_mask(L, MASKS[mask])), X)


@pytest.mark.parametrize("mask", ["random", "holes", "keepdims"])
@pytest.mark.parametrize("dim", [None, 1, (0, -1)], ids=str)
@pytest.mark.parametrize("op", REDUCTIONS)
def test_reduction_keepdim(op, dim, mask):
    check(lambda L, x: getattr(L.masked, op)(x, dim, keepdim=True, mask=_mask(L, MASKS[mask])), X)


@pytest.mark.parametrize(
    "op", REDUCTIONS + ["norm", "softmax", "log_softmax", "softmin", "cumsum", "normalize"]
)
def test_float32(op):
    m = MASKS["holes"]
    args = {"norm": (2.0, 1), "normalize": (2.0, 1)}.get(op, (1,))
    check(lambda L, x: getattr(L.masked, op)(x, *args, mask=L.tensor(m)), X, dtype=np.float32)


def test_prod_gradient_with_zeros():
    x = X.copy()
    x[0, 0, :2] = 0.0  # two zeros in a slice, one masked out
    x[2, 1, 1] = 0.0
    m = MASKS["random"].copy()
    m[0, 0, 0] = False
    m[0, 0, 1] = True
    check(lambda L, x: L.masked.prod(x, -1, mask=L.tensor(m)), x)


@pytest.mark.parametrize("mask", MASK_IDS)
@pytest.mark.parametrize("ord", [2.0, 1, 3, 0.5, math.inf, -math.inf, 0])
def test_norm(ord, mask):
    # ord=0: torch leaves the gradient None, chainrule's vector_norm gives zeros; ord=0.5
    # and -inf: chainrule's vector_norm tangent is NaN at zeros (0.5) and in a slice of
    # infs (-inf), where torch's is finite. Both are vector_norm's, not the masking's.
    check(
        lambda L, x: L.masked.norm(x, ord, (0, -1), mask=_mask(L, MASKS[mask])),
        X,
        backward=ord != 0,
        forward=ord not in (0.5, -math.inf),
    )


@pytest.mark.parametrize("mask", ["none", "random", "holes"])
def test_norm_defaults_and_keepdim(mask):
    m = MASKS[mask]
    check(lambda L, x: L.masked.norm(x, mask=_mask(L, m)), X)
    check(lambda L, x: L.masked.norm(x, 2.0, 1, keepdim=True, mask=_mask(L, m)), X)


@pytest.mark.parametrize("mask", MASK_IDS)
@pytest.mark.parametrize(
    "kw",
    [{"unbiased": False}, {"unbiased": True}, {"correction": 0}, {"correction": 2.5}],
    ids=str,
)
@pytest.mark.parametrize("op", ["var", "std"])
def test_var_std_correction(op, kw, mask):
    check(lambda L, x: getattr(L.masked, op)(x, 1, mask=_mask(L, MASKS[mask]), **kw), X)


@pytest.mark.parametrize("mask", MASK_IDS)
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("op", ["cumsum", "cumprod", "softmax", "log_softmax", "softmin"])
def test_normalization(op, dim, mask):
    check(lambda L, x: getattr(L.masked, op)(x, dim, mask=_mask(L, MASKS[mask])), X)


@pytest.mark.parametrize("mask", MASK_IDS)
@pytest.mark.parametrize("ord", [2.0, 1, math.inf])
@pytest.mark.parametrize("dim", [0, -1])
def test_normalize(dim, ord, mask):
    check(lambda L, x: L.masked.normalize(x, ord, dim, mask=_mask(L, MASKS[mask])), X)


def test_normalize_eps():
    m = MASKS["holes"]
    check(lambda L, x: L.masked.normalize(x, 2, 1, eps=0.5, mask=L.tensor(m)), X)


@pytest.mark.parametrize("mask", MASK_IDS)
@pytest.mark.parametrize("dim", [None, 0, -1, (1,)], ids=str)
def test_median(dim, mask):
    if dim is None:  # the default dim is -1
        check(lambda L, x: L.masked.median(x, mask=_mask(L, MASKS[mask])), X)
    else:
        d = dim[0] if isinstance(dim, tuple) else dim
        check(lambda L, x: L.masked.median(x, d, keepdim=True, mask=_mask(L, MASKS[mask])), X)


@pytest.mark.parametrize("mask", MASK_IDS)
@pytest.mark.parametrize("dim", [None, 0, -1])
@pytest.mark.parametrize("op", ["argmax", "argmin"])
def test_argmax_argmin(op, dim, mask):
    """The index, as a float64 tensor (PyTorch casts it to the dtype of the input)."""
    check(lambda L, x: getattr(L.masked, op)(x, dim, mask=_mask(L, MASKS[mask])), X)
    check(lambda L, x: getattr(L.masked, op)(x, dim, keepdim=True, mask=_mask(L, MASKS[mask])), X)


@pytest.mark.parametrize("masks", [("random", "holes"), ("none", "last_dim"), ("holes", "none")])
def test_logaddexp(masks):
    a, b = (MASKS[k] for k in masks)
    y = randn(SHAPE, seed=5)
    check(
        lambda L, x, y: L.masked.logaddexp(x, y, input_mask=_mask(L, a), other_mask=_mask(L, b)),
        X,
        y,
    )


# ----- dtypes ----------------------------------------------------------------------------


INTS = np.arange(-6, 6).reshape(3, 4)
IMASK = MASKS["holes"][:, :4, 0]


def _same(fn, rtol=None, atol=None):
    assert_same(fn(cr), fn(torch), rtol=rtol, atol=atol)


INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, bool]
# (PyTorch's cumsum and cumprod raise for bool, chainrule's do not: not compared)
INT_CASES = [(op, t) for op in ["sum", "prod"] for t in INT_DTYPES] + [
    (op, t) for op in ["cumsum", "cumprod"] for t in INT_DTYPES[:-1]
]


@pytest.mark.parametrize("op,np_dtype", INT_CASES, ids=lambda v: getattr(v, "__name__", v))
@pytest.mark.parametrize("dim", [1, (0,), None], ids=str)
def test_integer_dtypes(op, np_dtype, dim):
    """sum and prod promote small integers and bool to int64; cumsum and cumprod keep the
    dtype of the input."""
    a = (INTS % 3 if np_dtype in (np.uint8, bool) else INTS).astype(np_dtype)
    d = 1 if op.startswith("cum") else dim
    _same(lambda L: getattr(L.masked, op)(L.tensor(a), d, mask=L.tensor(IMASK)))


@pytest.mark.parametrize("np_dtype", [np.int8, np.int32, np.int64, np.uint8])
@pytest.mark.parametrize("dim", [None, 0, 1])
@pytest.mark.parametrize("op", ["amax", "amin", "argmax", "argmin", "logsumexp"])
def test_integer_extremes(op, dim, np_dtype):
    """Integer inputs are filled with the dtype's least or largest value."""
    a = (INTS % 5 if np_dtype == np.uint8 else INTS).astype(np_dtype)
    _same(lambda L: getattr(L.masked, op)(L.tensor(a), dim, mask=L.tensor(IMASK)))


@pytest.mark.parametrize(
    "op", ["sum", "prod", "amax", "amin", "mean", "logsumexp", "norm", "var", "std"]
)
def test_dtype_argument_reductions(op):
    """``dtype`` casts the result, or the input before the reduction."""
    args = (2.0, 1) if op == "norm" else (1,)
    x32 = X[:, :4, 0].astype(np.float32)
    _same(
        lambda L: getattr(L.masked, op)(
            L.tensor(x32), *args, dtype=L.float64, mask=L.tensor(IMASK)
        ),
        1e-6,  # (some compute in float32, then cast)
        1e-6,
    )


@pytest.mark.parametrize("op", ["softmax", "log_softmax", "softmin", "cumsum", "cumprod"])
def test_dtype_argument_normalizations(op):
    _same(lambda L: getattr(L.masked, op)(L.tensor(X[0]), 0, dtype=L.float32))


@pytest.mark.parametrize("op", ["mean", "var", "std"])
def test_dtype_argument_int_input(op):
    """Integer input: mean needs a float ``dtype``; var and std default to float32."""
    a = INTS.astype(np.int32)
    _same(lambda L: getattr(L.masked, op)(L.tensor(a), 1, dtype=L.float64, mask=L.tensor(IMASK)))
    if op != "mean":
        _same(lambda L: getattr(L.masked, op)(L.tensor(a), 0, mask=L.tensor(IMASK)))


def test_median_integer_and_dtype():
    """An integer median goes through float32 and back; a float median keeps its dtype
    whatever ``dtype`` says (as in PyTorch)."""
    full = MASKS["holes"][0, :4, :]  # no fully masked-out row along the last dim
    full[:, 0] = True
    _same(lambda L: L.masked.median(L.tensor(INTS.T[:4]), mask=L.tensor(full[:, :3])))
    _same(lambda L: L.masked.median(L.tensor(X[0]), 0, dtype=L.float32, mask=L.tensor(full)))
    _same(lambda L: L.masked.median(L.tensor(X[0]), 0, dtype=L.float32))


@pytest.mark.parametrize("m", [None, np.array(False), np.array(True)], ids=str)
@pytest.mark.parametrize("op", ["sum", "prod", "amax", "amin", "mean", "logsumexp", "norm", "var"])
def test_zero_dim_input(op, m):
    check(lambda L, x: getattr(L.masked, op)(x, mask=_mask(L, m)), np.float64(1.5))


def test_zero_dim_input_dim():
    check(lambda L, x: L.masked.sum(x, 0, mask=L.tensor(False)), np.float64(1.5))
    check(lambda L, x: L.masked.softmax(x, 0, mask=L.tensor(True)), np.float64(1.5))


def test_grad_reaches_only_masked_in_elements():
    """The gradient of a masked sum is the mask (a value from the math, not only torch's)."""
    x = cr.tensor(X, requires_grad=True)
    m = MASKS["holes"]
    cr.masked.sum(x, mask=cr.tensor(m)).backward()
    np.testing.assert_array_equal(x.grad.numpy(), m.astype(np.float64))


def test_fully_masked_values():
    """What a slice with nothing masked in gives: the identity of the reduction (sum 0,
    prod 1, amax -inf, amin inf, logsumexp -inf, norm 0), NaN for mean, var, std and
    median, NaN for softmax."""
    x = cr.tensor(X[0])
    m = cr.zeros(X[0].shape, dtype=cr.bool)
    want = {"sum": 0.0, "prod": 1.0, "amax": -math.inf, "amin": math.inf}
    want |= {"logsumexp": -math.inf, "norm": 0.0}
    for op, v in want.items():
        assert getattr(cr.masked, op)(x, dim=1, mask=m).tolist() == [v] * 4
    for op in ["mean", "var", "std", "median", "softmax"]:
        assert getattr(cr.masked, op)(x, dim=1, mask=m).isnan().all().item()


# ----- errors ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fn",
    [
        lambda L: L.masked.sum(L.zeros(3, 4), mask=L.ones(1, 3, 4, dtype=L.bool)),
        lambda L: L.masked.sum(L.zeros(3, 4), mask=L.ones(3, 3, dtype=L.bool)),
        lambda L: L.masked.sum(L.zeros(3, 4), (1, -1)),
        lambda L: L.masked.amax(L.zeros(3, 4), 2),
        lambda L: L.masked.softmax(L.zeros(3, 4), -3),
        lambda L: L.masked.mean(L.arange(3)),
        lambda L: L.masked.mean(L.zeros(3), dtype=L.int64),
        lambda L: L.masked.median(
            L.arange(6).reshape(2, 3), mask=L.tensor([True, False, True])[None].T
        ),
        lambda L: L.masked.var(L.zeros(3, 4), 1, True, correction=1),
    ],
    ids=[
        "mask_ndim",
        "mask_shape",
        "dim_repeated",
        "dim_range",
        "dim_range_normalization",
        "mean_int",
        "mean_int_dtype",
        "median_int_fully_masked",
        "unbiased_and_correction",
    ],
)
def test_errors(fn):
    assert_same_error(fn)


@pytest.mark.usefixtures("dispatch")  # (reading MaskedTensor defines it)
def test_namespace():
    assert sorted(cr.masked.__all__) == sorted(torch.masked.__all__)
    for name in cr.masked.__all__:
        assert callable(getattr(cr.masked, name))
    with pytest.raises(cr._missing.NotImplementedInChainrule):
        cr.masked.masked_fill  # noqa: B018  (a name torch.masked lacks too)


# ----- MaskedTensor ----------------------------------------------------------------------------


@pytest.fixture
def dispatch():
    """``__torch_function__`` dispatch on for the test (defining MaskedTensor turned it on
    for the process) and off again after it, so that no other test runs with it (as
    tests/test_overrides.py leaves it)."""
    overrides._class_defined(cr.masked.MaskedTensor)
    yield
    overrides._reset()


MT = pytest.mark.usefixtures("dispatch")

D = X[0]  # 4x5 float64
DMASK = MASKS["holes"][0].copy()  # row 2 and column 3 fully masked out
DMASK[0, 0] = True


def _mt(L, data=D, mask=DMASK, requires_grad=False):
    data = L.tensor(data) if isinstance(data, np.ndarray) else data
    return L.masked.masked_tensor(data, L.tensor(mask), requires_grad=requires_grad)


def _same_mt(got, want):
    """The same MaskedTensor: data (masked-out elements included), mask and printout."""
    assert type(got).__name__ == type(want).__name__ == "MaskedTensor"
    assert_same(got.get_data().detach(), want.get_data().detach(), "data")
    assert_same(got.get_mask(), want.get_mask(), "mask")
    assert str(got) == str(want)


def _compare_mt(fn):
    _same_mt(fn(cr), fn(torch))


@MT
@pytest.mark.parametrize(
    "data,mask",
    [
        (D, DMASK),
        (D[0], DMASK[0]),
        (np.float64(2.5), np.array(True)),
        (np.float64(2.5), np.array(False)),
        (X[:2, :3, :2], MASKS["random"][:2, :3, :2]),
        (INTS, IMASK),
        (INTS[0].astype(np.int32), IMASK[0]),
        (INTS[0] > 0, IMASK[0]),
        (np.array([12345.678, -0.001, np.nan, np.inf]), np.array([True, True, True, False])),
        (D.astype(np.float16), DMASK),
    ],
    ids=["2d", "1d", "0d", "0d_out", "3d", "int64", "int32", "bool", "wide", "f16"],
)
@pytest.mark.filterwarnings("ignore:The PyTorch API of MaskedTensors:UserWarning")
def test_masked_tensor_print_and_parts(data, mask):
    """The printout (``--`` where masked out), the data, the mask and ``to_tensor``."""
    _compare_mt(lambda L: _mt(L, np.asarray(data), mask))
    _same(lambda L: _mt(L, np.asarray(data), mask).to_tensor(0))
    _same(lambda L: L.masked.as_masked_tensor(L.tensor(data), L.tensor(mask)).to_tensor(-1))


@MT
def test_masked_tensor_warns():
    with pytest.warns(UserWarning, match="prototype stage"):
        mt = cr.masked.masked_tensor(cr.tensor(D), cr.tensor(DMASK))
    with pytest.warns(UserWarning, match="prototype stage"):
        mt.exp()
    with pytest.warns(UserWarning) as record:
        cr.masked.as_masked_tensor(cr.tensor(D, requires_grad=True), cr.tensor(DMASK))
    messages = [str(w.message) for w in record]
    assert len(messages) == 2 and "prototype stage" in messages[0]
    assert messages[1].startswith("It is not recommended to create a MaskedTensor")


@MT
@pytest.mark.parametrize(
    "fn",
    [
        lambda L: L.masked.masked_tensor([1.0], L.tensor([True])),
        lambda L: L.masked.masked_tensor(L.tensor([1.0]), [True]),
        lambda L: L.masked.masked_tensor(L.tensor([1.0]), L.tensor([1])),
        lambda L: L.masked.masked_tensor(L.tensor([1], dtype=L.uint8), L.tensor([True])),
        lambda L: L.masked.masked_tensor(L.ones(2, 1), L.tensor([True, False])),
        lambda L: L.masked.masked_tensor(L.ones(2), L.tensor([True, False, True])),
        lambda L: _mt(L) + L.masked.masked_tensor(L.tensor(D), L.tensor(~DMASK)),
        lambda L: _mt(L).max(),
        lambda L: _mt(L).permute(1, 0),
    ],
    ids=["data", "mask", "mask_dtype", "uint8", "dim", "size", "masks_differ", "max", "permute"],
)
@pytest.mark.filterwarnings("ignore:The PyTorch API of MaskedTensors:UserWarning")
def test_masked_tensor_errors(fn):
    """PyTorch's checks; ops MaskedTensor does not handle raise TypeError."""
    want, got = error_of(fn, torch), error_of(fn, cr)
    assert type(got) is type(want)
    if "Multiple dispatch failed" not in str(want):  # (torch names its aten op there)
        assert str(got) == str(want)


ELEMENTWISE = {
    "exp": lambda L, a: a.exp(),
    "torch.sin": lambda L, a: L.sin(a),
    "neg": lambda L, a: -a,
    "abs": lambda L, a: abs(a),
    "clamp": lambda L, a: L.clamp(a, min=-0.5),
    "pow": lambda L, a: a**2,
    "sqrt_abs": lambda L, a: a.abs().sqrt(),
    "add_scalar": lambda L, a: a + 1.5,
    "rtruediv": lambda L, a: 1 / a,
    "mul_self": lambda L, a: a * a,
    "sub_tensor": lambda L, a: a - L.tensor(D[::-1].copy()),
    "tensor_div": lambda L, a: L.tensor(D[::-1].copy()) / a,
    "lt": lambda L, a: a < 0.2,
    "eq": lambda L, a: a == a,
    "and": lambda L, a: (a > -1) & (a < 1),
    "maximum": lambda L, a: L.maximum(a, a * 0.5),
    "double": lambda L, a: a.to(L.float32).double(),
    "detach_clone": lambda L, a: a.detach().clone(),
    "where": lambda L, a: L.where(L.tensor(D > 0), a, 0.0),
}


# where torch's MaskedTensor cannot run backward (RecursionError, unsupported aten ops) or
# the result has no gradient (bool, detached): the forward alone is compared
NO_GRAD = {"clamp", "maximum", "detach_clone", "where", "unsqueeze", "split", "lt", "eq", "and"}


@MT
@pytest.mark.parametrize("op", list(ELEMENTWISE))
@pytest.mark.filterwarnings("ignore:The PyTorch API of MaskedTensors:UserWarning")
def test_masked_tensor_elementwise(op):
    """Elementwise ops run on the data and keep the mask; gradients reach the leaf, equal
    to torch's at the masked-in elements."""
    _check_mt(lambda L, a: ELEMENTWISE[op](L, a), grad=op not in NO_GRAD)


def _check_mt(fn, grad=True):
    """``fn(lib, masked_tensor)`` gives the same MaskedTensor on both libraries and
    (``grad``) the same gradient at the masked-in elements for a random output gradient."""
    out = []
    for L in (cr, torch):
        leaf = _mt(L, requires_grad=True)
        result = fn(L, leaf)
        out.append((leaf, result))
    (c_leaf, c_out), (t_leaf, t_out) = out
    _same_mt(c_out, t_out)
    if not grad:
        return
    g = np.random.default_rng(5).standard_normal(tuple(t_out.shape))
    for L, result in ((cr, c_out), (torch, t_out)):
        result.get_data().backward(L.tensor(g, dtype=result.dtype))
    assert type(c_leaf.grad).__name__ == "MaskedTensor"
    np.testing.assert_array_equal(c_leaf.grad.get_mask().numpy(), DMASK)  # (the leaf's)
    # masked-out elements of the gradient are 0 in chainrule (where the masked reductions
    # send nothing), while torch's hold what its pass-through computed, and torch's mask is
    # the one its backward made (False outside a slice): the masked-in values compare
    assert_same(c_leaf.grad.to_tensor(0.0), t_leaf.grad.to_tensor(0.0), "grad")


MT_REDUCTIONS = ["sum", "mean", "amin", "amax", "argmin", "argmax", "prod", "var", "std"]


@MT
@pytest.mark.parametrize(
    "call", [(), (1,), (0, True), ((0, 1),)], ids=["all", "dim", "keepdim", "dims"]
)
@pytest.mark.parametrize("op", MT_REDUCTIONS)
@pytest.mark.filterwarnings("ignore:The PyTorch API of MaskedTensors:UserWarning")
@pytest.mark.filterwarnings("ignore:It is not recommended to create a MaskedTensor")
def test_masked_tensor_reductions(op, call):
    """``mt.sum()``, ``mt.sum(dim, keepdim)``...: the masked reduction of the data; the
    result is masked out where every element was."""
    if op in ("argmax", "argmin", "prod") and call == ((0, 1),):
        call = (-1,)  # (one dim only, in torch's MaskedTensor)
    # (argmax and argmin: chainrule's result does not require grad, torch's does)
    _check_mt(lambda L, a: getattr(a, op)(*call), grad=not op.startswith("arg"))


@MT
@pytest.mark.filterwarnings("ignore:The PyTorch API of MaskedTensors:UserWarning")
@pytest.mark.filterwarnings("ignore:It is not recommended to create a MaskedTensor")
def test_masked_tensor_reduction_spellings():
    _check_mt(lambda L, a: L.sum(a, dim=1, keepdim=True))
    _check_mt(lambda L, a: L.amax(a, 0))
    _check_mt(lambda L, a: a.sum(1, dtype=L.float32))
    _check_mt(lambda L, a: (a > 0).all(), grad=False)
    _check_mt(lambda L, a: (a > 0).all(1), grad=False)
    _check_mt(lambda L, a: (a * 2).sum() + a.mean())


@MT
@pytest.mark.parametrize(
    "fn",
    [
        lambda L, a: L.softmax(a, -1),
        lambda L, a: a.softmax(0),
        lambda L, a: L.nn.functional.softmax(a, dim=1),
    ],
    ids=["torch", "method", "functional"],
)
@pytest.mark.filterwarnings("ignore:The PyTorch API of MaskedTensors:UserWarning")
def test_masked_tensor_softmax(fn):
    _check_mt(fn)


SHAPES = {
    "t": lambda L, a: a.t(),
    "transpose": lambda L, a: a.transpose(0, 1),
    "view": lambda L, a: a.view(2, 10),
    "reshape": lambda L, a: a.reshape(-1),
    "flatten": lambda L, a: a.flatten(),
    "getitem": lambda L, a: a[1:, ::2],
    "select": lambda L, a: a.select(1, 2),
    "unsqueeze": lambda L, a: a.unsqueeze(0),
    "expand": lambda L, a: a[:1].expand(3, 5),
    "cat": lambda L, a: L.cat([a, a * 2]),
    "stack": lambda L, a: L.stack([a, a], 1),
    "split": lambda L, a: a.split(2)[1],
}


@MT
@pytest.mark.parametrize("op", list(SHAPES))
@pytest.mark.filterwarnings("ignore:The PyTorch API of MaskedTensors:UserWarning")
def test_masked_tensor_shape_ops(op):
    """Shape ops apply to the data and the mask alike."""
    _check_mt(SHAPES[op], grad=op not in NO_GRAD)


@MT
@pytest.mark.filterwarnings("ignore:The PyTorch API of MaskedTensors:UserWarning")
@pytest.mark.filterwarnings("ignore:It is not recommended to create a MaskedTensor")
def test_masked_tensor_attributes_and_autograd():
    for L in (cr, torch):
        mt = _mt(L, requires_grad=True)
        assert (tuple(mt.shape), str(mt.dtype), mt.dim(), mt.numel(), len(mt)) == (
            (4, 5),
            "torch.float64",
            2,
            20,
            4,
        )
        assert mt.requires_grad and mt.is_leaf and mt.grad is None
        assert L.masked.is_masked_tensor(mt) and not L.masked.is_masked_tensor(mt.get_data())
        assert isinstance(mt, L.Tensor) and isinstance(mt, L.masked.MaskedTensor)
        total = mt.sum()
        assert total.requires_grad and not total.is_leaf
        assert float(total.detach()) == pytest.approx(float(D[DMASK].sum()), rel=1e-12)
    # as_masked_tensor stays in the graph of its data: the gradient reaches the plain tensor
    grads = []
    for L in (cr, torch):
        x = L.tensor(D, requires_grad=True)
        (L.masked.as_masked_tensor(x, L.tensor(DMASK)) * 3).sum().backward()
        g = x.grad.to_tensor(0.0) if L.masked.is_masked_tensor(x.grad) else x.grad
        grads.append(g)
    assert_same(grads[0], grads[1])
    # a masked_tensor of a tensor that requires grad is a new leaf that does not
    for L in (cr, torch):
        mt = _mt(L, L.tensor(D, requires_grad=True))
        assert not mt.requires_grad and mt.is_leaf


@MT
@pytest.mark.parametrize(
    "fn",
    [
        lambda L, a: L.masked.sum(a),
        lambda L, a: L.masked.sum(a, 1, mask=L.tensor(~DMASK)),  # (the MaskedTensor's wins)
        lambda L, a: L.masked.mean(a),  # (torch counts every element: mask is None)
        lambda L, a: L.masked.mean(a, 1, mask=a.get_mask()),
        lambda L, a: L.masked.var(a),
        lambda L, a: L.masked.amax(a, 0),
        lambda L, a: L.masked.softmax(a, 1),
        lambda L, a: L.masked.cumsum(a, 1),
        lambda L, a: L.masked.median(a, 1),
        lambda L, a: L.masked.norm(a, 2.0, 1),
        lambda L, a: L.masked.logaddexp(a, a),
    ],
    ids=[
        "sum",
        "sum_mask",
        "mean",
        "mean_mask",
        "var",
        "amax",
        "softmax",
        "cumsum",
        "median",
        "norm",
        "logaddexp",
    ],
)
@pytest.mark.filterwarnings("ignore:The PyTorch API of MaskedTensors:UserWarning")
def test_masked_ops_on_masked_tensor(fn):
    """``torch.masked``'s functions take a MaskedTensor (its own mask) and return a plain
    tensor."""
    got, want = fn(cr, _mt(cr)), fn(torch, _mt(torch))
    assert type(got) is cr.Tensor and type(want) is torch.Tensor
    assert_same(got.detach(), want.detach())
