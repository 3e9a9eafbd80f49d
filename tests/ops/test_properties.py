"""Property tests that span op families: over random shapes, broadcast-compatible shape
pairs, dims and keepdim (Hypothesis), chainrule's forward values and gradients equal
PyTorch's. One-family property tests live with their family.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from oracle import (
    FLOATS,
    NoGrad,
    check,
    distinct,
    randn,
    same_node,
    values,
)
from props import (
    SETTINGS,
    broadcast_pairs,
    seeds,
    shape_and_dims,
    shapes,
    values_for,
)

# ----- one-input ops and their compositions -----------------------------------------------


UNARY = {
    "exp": (lambda lib, x: lib.exp(x), "any"),
    "log": (lambda lib, x: lib.log(x), "positive"),
    "sin": (lambda lib, x: lib.sin(x), "any"),
    "cos": (lambda lib, x: lib.cos(x), "any"),
    "tanh": (lambda lib, x: lib.tanh(x), "any"),
    "sigmoid": (lambda lib, x: lib.sigmoid(x), "any"),
    "relu": (lambda lib, x: lib.relu(x), "nonzero"),
    "sqrt": (lambda lib, x: lib.sqrt(x), "positive"),
    "abs": (lambda lib, x: lib.abs(x), "nonzero"),
    "neg": (lambda lib, x: -x, "any"),
    "square": (lambda lib, x: x**2, "any"),
    "pow_frac": (lambda lib, x: x**1.5, "positive"),
    "exp2": (lambda lib, x: lib.exp2(x), "any"),
    "expm1": (lambda lib, x: x.expm1(), "any"),
    "log2": (lambda lib, x: lib.log2(x), "positive"),
    "log1p": (lambda lib, x: x.log1p(), "positive"),
    "rsqrt": (lambda lib, x: lib.rsqrt(x), "positive"),
    "reciprocal": (lambda lib, x: x.reciprocal(), "nonzero"),
    "tan": (lambda lib, x: lib.tan(x * 0.5), "any"),
    "atan": (lambda lib, x: lib.atan(x), "any"),
    "asinh": (lambda lib, x: x.asinh(), "any"),
    "sinh": (lambda lib, x: lib.sinh(x), "any"),
    "erf": (lambda lib, x: lib.erf(x), "any"),
    "erfc": (lambda lib, x: x.erfc(), "any"),
    "sign": (lambda lib, x: lib.sign(x) * x, "nonzero"),
    "clamp": (lambda lib, x: x.clamp(-0.5, 0.5), "any"),
    "nan_to_num": (lambda lib, x: lib.nan_to_num(x), "any"),
    "sinc": (lambda lib, x: lib.sinc(x), "any"),
    "logit": (lambda lib, x: lib.logit(lib.sigmoid(x)), "any"),
}


@SETTINGS
@given(op=st.sampled_from(sorted(UNARY)), shape=shapes, seed=seeds)
def test_unary_matches_torch(op, shape, seed):
    fn, kind = UNARY[op]
    check(fn, values_for(shape, seed, kind), dtype=np.float64)


@SETTINGS
@given(
    ops=st.lists(
        st.sampled_from(["exp", "sin", "cos", "tanh", "sigmoid", "neg", "square"]),
        min_size=2,
        max_size=5,
    ),
    shape=shapes,
    seed=seeds,
)
def test_unary_compositions_match_torch(ops, shape, seed):
    def fn(lib, x):
        for op in ops:
            x = UNARY[op][0](lib, x)
        return x

    x = values_for(shape, seed, "any") * 0.5
    # (exp of exp of exp ... grows past what sin or cos can take: a last-bit difference in
    # exp, within either library's error, then moves sin's value in its 7th digit)
    assume(_bounded_steps(ops, x, 100.0))
    check(fn, x, dtype=np.float64)


def _bounded_steps(ops: list, x: np.ndarray, bound: float) -> bool:
    """Whether every step of the composition on x (PyTorch's) stays within ±bound."""
    t = torch.from_numpy(np.asarray(x))
    for op in ops:
        t = UNARY[op][0](torch, t)
        if t.numel() and not bool((t.abs() <= bound).all()):
            return False
    return True


# ----- two-input ops over random broadcast shapes -----------------------------------------


MORE_BINARY = {
    "maximum": (lambda lib, a, b: lib.maximum(a, b), "any", "any"),
    "minimum": (lambda lib, a, b: lib.minimum(a, b), "any", "any"),
    "atan2": (lambda lib, a, b: lib.atan2(a, b), "any", "nonzero"),
    "hypot": (lambda lib, a, b: lib.hypot(a, b), "any", "nonzero"),
    "where": (lambda lib, a, b: lib.where(a > b, a, b * 2), "any", "any"),
    "lerp": (lambda lib, a, b: lib.lerp(a, b, 0.3), "any", "any"),
    "sub_alpha": (lambda lib, a, b: lib.sub(a, b, alpha=2.5), "any", "any"),
    "add_alpha": (lambda lib, a, b: a.add(b, alpha=-1), "any", "any"),
    "rdiv_pow": (lambda lib, a, b: b.abs() ** (a / 2), "any", "nonzero"),
    "logaddexp": (lambda lib, a, b: lib.logaddexp(a, b), "any", "any"),
    "xlogy": (lambda lib, a, b: lib.xlogy(a, b), "any", "positive"),
    "copysign": (lambda lib, a, b: lib.copysign(a, b), "nonzero", "nonzero"),
    "clamp_tensors": (lambda lib, a, b: lib.clamp(a, min=b), "any", "any"),
}


@SETTINGS
@given(op=st.sampled_from(sorted(MORE_BINARY)), shapes=broadcast_pairs, seed=seeds)
def test_more_binary_ops_broadcast_match_torch(op, shapes, seed):
    fn, ka, kb = MORE_BINARY[op]
    sa, sb = shapes.input_shapes
    check(fn, values_for(sa, seed, ka), values_for(sb, seed + 1, kb), dtype=np.float64)


PROPERTY_BINARY = {
    "maximum": (lambda L, a, b: L.maximum(a, b), "any", "any"),
    "minimum": (lambda L, a, b: L.minimum(a, b), "any", "any"),
    "fmax": (lambda L, a, b: L.fmax(a, b), "any", "any"),
    "fmin": (lambda L, a, b: L.fmin(a, b), "any", "any"),
    "atan2": (lambda L, a, b: L.atan2(a, b), "any", "nonzero"),
    "hypot": (lambda L, a, b: L.hypot(a, b), "any", "nonzero"),
    "remainder": (lambda L, a, b: L.remainder(a, b), "wide", "nonzero"),
    "fmod": (lambda L, a, b: L.fmod(a, b), "wide", "nonzero"),
    "div_floor": (lambda L, a, b: L.div(a, b, rounding_mode="floor"), "wide", "nonzero"),
    "div_trunc": (lambda L, a, b: L.div(a, b, rounding_mode="trunc"), "wide", "nonzero"),
    "lerp": (lambda L, a, b: L.lerp(a, b, 0.7), "any", "any"),
    "lerp_weight": (lambda L, a, w: L.lerp(a, a * 3, w), "any", "any"),
    "clamp": (lambda L, x, lo: L.clamp(x, lo, lo + 0.5), "any", "any"),
}


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(sorted(PROPERTY_BINARY)),
    shapes=hnp.mutually_broadcastable_shapes(
        num_shapes=2, min_dims=0, max_dims=4, min_side=0, max_side=4
    ),
    seed=st.integers(0, 2**32 - 1),
    dtype=st.sampled_from(FLOATS),
)
def test_binary_ops_over_random_broadcastable_shapes(name, shapes, seed, dtype):
    fn, ka, kb = PROPERTY_BINARY[name]
    sa, sb = shapes.input_shapes
    same_node(check(fn, values(ka, sa, seed), values(kb, sb, seed + 1), dtype=dtype))


COMPARISONS = {
    "eq": lambda lib, a, b: a == b,
    "ne": lambda lib, a, b: lib.ne(a, b),
    "lt": lambda lib, a, b: a < b,
    "le": lambda lib, a, b: a.le(b),
    "gt": lambda lib, a, b: lib.gt(a, b),
    "ge": lambda lib, a, b: a >= b,
    "logical_and": lambda lib, a, b: lib.logical_and(a > 0, b),
    "logical_xor": lambda lib, a, b: lib.logical_xor(a, b > 0),
    "isclose": lambda lib, a, b: lib.isclose(a, b, atol=0.5),
}


@SETTINGS
@given(op=st.sampled_from(sorted(COMPARISONS)), shapes=broadcast_pairs, seed=seeds)
def test_comparisons_broadcast_match_torch(op, shapes, seed):
    """bool results, no gradient; rounded values so that ties (a == b) occur."""
    sa, sb = shapes.input_shapes
    a = np.round(values_for(sa, seed, "any"))
    b = np.round(values_for(sb, seed + 1, "any"))
    check(COMPARISONS[op], a, b, dtype=np.float64)


FLOAT_DTYPES = [np.float16, np.float32, np.float64]

MIXED = {
    "add": lambda lib, a, b: a + b,
    "mul": lambda lib, a, b: a * b,
    "div": lambda lib, a, b: a / b,
    "maximum": lambda lib, a, b: lib.maximum(a, b),
    "where": lambda lib, a, b: lib.where(a > 0, a, b),
}


@SETTINGS
@given(
    op=st.sampled_from(sorted(MIXED)),
    shapes=broadcast_pairs,
    da=st.sampled_from(FLOAT_DTYPES),
    db=st.sampled_from(FLOAT_DTYPES),
    seed=seeds,
)
def test_mixed_float_dtypes_broadcast_match_torch(op, shapes, da, db, seed):
    """Promotion with broadcasting; each gradient in its input's dtype."""
    sa, sb = shapes.input_shapes
    a = values_for(sa, seed, "nonzero").astype(da)
    b = values_for(sb, seed + 1, "nonzero").astype(db)
    tol = 2e-3 if np.float16 in (da, db) else 2e-5 if np.float32 in (da, db) else None
    if np.float16 in (da, db):
        # a broadcast operand's gradient sums products made in float16, each library
        # rounding at its own steps (PyTorch at each of -g·a/(b·b)): an error that grows
        # with the count summed (div on (4, 2, 1, 1) float16 and a float32 scalar: 0.0047)
        out = math.prod(shapes.result_shape)
        tol *= max(out // max(math.prod(s), 1) for s in (sa, sb))
    check(MIXED[op], a, b, rtol=tol, atol=tol)


INT_DTYPES = [np.uint8, np.int8, np.int16, np.int32, np.int64, np.bool_]

INT_OPS = {
    "add": lambda lib, a, b: a + b,
    "mul": lambda lib, a, b: a * b,
    "div": lambda lib, a, b: a / (b.abs() + 1),
    "floor_divide": lambda lib, a, b: a // (b.abs() + 1),
    "remainder": lambda lib, a, b: a % (b.abs() + 1),
    "maximum": lambda lib, a, b: lib.maximum(a, b),
    "lt": lambda lib, a, b: a < b,
    "bitwise_and": lambda lib, a, b: a & b,
    "where": lambda lib, a, b: lib.where(a > 1, a, b),
}


@SETTINGS
@given(
    op=st.sampled_from(sorted(INT_OPS)),
    shapes=broadcast_pairs,
    da=st.sampled_from(INT_DTYPES),
    db=st.sampled_from(INT_DTYPES),
    seed=seeds,
)
def test_integer_dtypes_broadcast_match_torch(op, shapes, da, db, seed):
    sa, sb = shapes.input_shapes
    r = np.random.default_rng(seed)
    a = np.asarray(r.integers(0, 5, sa)).astype(da)
    b = np.asarray(r.integers(0, 5, sb)).astype(db)
    if op in ("floor_divide", "remainder", "div") and np.bool_ in (da, db):
        a, b = a.astype(np.int16), b.astype(np.int16)  # abs of a bool: no kernel in torch
    check(INT_OPS[op], a, b)


@st.composite
def inplace_pairs(draw):
    """(y shape, operand shape): the operand broadcasts to y's shape."""
    shape = draw(shapes)
    n = draw(st.integers(0, len(shape)))
    other = tuple(1 if draw(st.booleans()) else s for s in shape[len(shape) - n :])
    return shape, other


INPLACE_BINARY = {
    "add_": lambda lib, y, b: y.add_(b, alpha=2),
    "sub_": lambda lib, y, b: y.sub_(b),
    "mul_": lambda lib, y, b: y.mul_(b),
    "div_": lambda lib, y, b: y.div_(b),
    "pow_": lambda lib, y, b: y.abs_().add_(0.5).pow_(b),
    "copy_": lambda lib, y, b: y.copy_(b),
    "clamp_": lambda lib, y, b: y.clamp_(min=b),
    "maximum": lambda lib, y, b: y.copy_(lib.maximum(y * 1, b)),
    "lerp_": lambda lib, y, b: y.lerp_(b * 2, 0.25),
    "atan2_": lambda lib, y, b: y.atan2_(b),
}


@SETTINGS
@given(op=st.sampled_from(sorted(INPLACE_BINARY)), case=inplace_pairs(), seed=seeds)
def test_inplace_binary_broadcast_match_torch(op, case, seed):
    """y.op_(b), b broadcasting to y: the gradient of b is summed over the broadcast dims."""
    sy, sb = case

    def fn(lib, x, b):
        y = x * 1
        INPLACE_BINARY[op](lib, y, b)
        return y * x

    check(fn, values_for(sy, seed, "any"), values_for(sb, seed + 1, "nonzero"), dtype=np.float64)


# ----- reductions, scans and selections over random shapes and dims -----------------------


@settings(max_examples=25, deadline=None)
@given(
    shape_and_dims(),
    st.sampled_from(["sum", "mean", "amax", "amin", "var", "std", "logsumexp", "nansum"]),
)
def test_property_multi_dim_reductions(case, name):
    shape, dims, keepdim, seed = case
    x = distinct(shape, seed)
    if name in ("var", "std"):
        fn = lambda L, x: getattr(x, name)(dims, keepdim=keepdim, correction=0)  # noqa: E731
    else:
        fn = lambda L, x: getattr(L, name)(x, dims, keepdim)  # noqa: E731
    check(fn, x)


@settings(max_examples=25, deadline=None)
@given(shape_and_dims(), st.sampled_from(["prod", "cumsum", "cumprod"]), st.booleans())
def test_property_one_dim_reductions(case, name, zero):
    shape, dims, keepdim, seed = case
    x = np.random.default_rng(seed).uniform(0.5, 1.5, shape)
    if zero:
        x.reshape(-1)[seed % x.size] = 0.0
    dim = dims[0]
    if name == "prod":
        check(lambda L, x: x.prod(dim, keepdim=keepdim), x)
    else:
        check(lambda L, x: getattr(L, name)(x, dim), x)


@settings(max_examples=25, deadline=None)
@given(shape_and_dims(), st.sampled_from(["max", "median", "sort", "topk", "cummax"]))
def test_property_selecting_reductions(case, name):
    """Values, indices and the gradient at the returned index, on inputs with many ties."""
    shape, dims, keepdim, seed = case
    x = np.random.default_rng(seed).integers(0, 3, shape).astype(np.float64)
    dim = dims[0]
    if name in ("max", "median"):
        fns = [lambda L, x, k=k: getattr(x, name)(dim, keepdim)[k] for k in (0, 1)]
    elif name == "sort":  # stable=True: PyTorch's unstable order differs among ties
        fns = [lambda L, x, k=k: x.sort(dim=dim, stable=True)[k] for k in (0, 1)]
    elif name == "topk":  # the values only: among ties the indices are not PyTorch's
        x = NoGrad(x)
        fns = [lambda L, x: x.topk(max(1, shape[dim] // 2), dim).values]
    else:
        fns = [lambda L, x, k=k: x.cummax(dim)[k] for k in (0, 1)]
    for fn in fns:
        check(fn, x)


# ----- shape, joining and indexing ops over random shapes ---------------------------------


SHAPE_OPS = {
    "movedim": lambda L, x, r: x.movedim(r % x.ndim, -1 - (r % x.ndim)),
    "flip": lambda L, x, r: x.flip(r % x.ndim),
    "roll": lambda L, x, r: x.roll(r - 2, r % x.ndim),
    "repeat": lambda L, x, r: x.repeat(*([1] * (x.ndim - 1)), r % 3 + 1),
    "split_cat": lambda L, x, r: L.cat(x.split(r % 3 + 1, -1)[::-1], -1),
    "chunk_stack": lambda L, x, r: L.stack([c.sum(0) for c in x.chunk(r % 4 + 1)], -1),
    "unbind_stack": lambda L, x, r: L.stack(x.unbind(r % x.ndim)[::-1], 0),
    "narrow": lambda L, x, r: x.narrow(-1, r % x.shape[-1], x.shape[-1] - r % x.shape[-1]),
    "flatten_unflatten": lambda L, x, r: x.flatten().unflatten(0, x.shape[::-1]),
    "squeeze_unsqueeze": lambda L, x, r: x.unsqueeze(r % (x.ndim + 1)).squeeze(),
    "gather": lambda L, x, r: x.gather(-1, (x.detach().abs() * 10).long() % x.shape[-1]),
    "masked": lambda L, x, r: x.masked_fill(x > 0.5, r).masked_select(x < 1),
}


@settings(max_examples=25, deadline=None)
@given(
    shape=hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=4),
    r=st.integers(0, 11),
    name=st.sampled_from(sorted(SHAPE_OPS)),
)
def test_shape_ops_on_random_shapes_match_torch(shape, r, name):
    fn = SHAPE_OPS[name]
    same_node(check(lambda L, x: fn(L, x, r), randn(shape, seed=r)))
