"""Property tests: over random shapes, broadcast-compatible shape pairs, dims and keepdim,
chainrule's forward values and gradients equal PyTorch's (float64).

Shapes come from Hypothesis; values from a NumPy generator seeded by Hypothesis, so a
failing example shrinks to a small shape and a reproducible seed.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from oracle import check

SETTINGS = settings(max_examples=40, deadline=None)

seeds = st.integers(0, 2**32 - 1)
shapes = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4)
nonempty_shapes = hnp.array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=4)
broadcast_pairs = hnp.mutually_broadcastable_shapes(
    num_shapes=2, min_dims=0, max_dims=4, min_side=0, max_side=4
)


def _values(shape, seed: int, kind: str) -> np.ndarray:
    r = np.random.default_rng(seed)
    if kind == "positive":
        return np.asarray(r.uniform(0.3, 2.5, shape))
    if kind == "nonzero":
        return np.asarray(r.uniform(0.5, 2.0, shape) * r.choice([-1.0, 1.0], shape))
    return np.asarray(r.standard_normal(shape))


# ----- elementwise binary ops ----------------------------------------------------------

BINARY = {
    "add": (lambda lib, a, b: a + b, "any", "any"),
    "sub": (lambda lib, a, b: a - b, "any", "any"),
    "mul": (lambda lib, a, b: a * b, "any", "any"),
    "div": (lambda lib, a, b: a / b, "any", "nonzero"),
    "pow": (lambda lib, a, b: a**b, "positive", "any"),
}


@SETTINGS
@given(op=st.sampled_from(sorted(BINARY)), shapes=broadcast_pairs, seed=seeds)
def test_binary_broadcast_matches_torch(op, shapes, seed):
    fn, ka, kb = BINARY[op]
    sa, sb = shapes.input_shapes
    check(fn, _values(sa, seed, ka), _values(sb, seed + 1, kb), dtype=np.float64)


@SETTINGS
@given(
    op=st.sampled_from(sorted(BINARY)),
    shape=shapes,
    scalar=st.one_of(
        st.integers(-3, 3), st.floats(-3, 3, allow_nan=False).map(lambda f: round(f, 3))
    ),
    left=st.booleans(),
    seed=seeds,
)
def test_binary_with_python_scalar_matches_torch(op, shape, scalar, left, seed):
    fn, ka, kb = BINARY[op]
    if left:  # scalar op tensor
        if op == "pow" and scalar <= 0:
            scalar = abs(scalar) + 0.5
        x = _values(shape, seed, kb)
        check(lambda lib, x: fn(lib, scalar, x), x, dtype=np.float64)
    else:  # tensor op scalar
        if op == "div" and scalar == 0:
            scalar = 1.5
        x = _values(shape, seed, ka)
        check(lambda lib, x: fn(lib, x, scalar), x, dtype=np.float64)


# ----- unary ops ------------------------------------------------------------------------

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
    check(fn, _values(shape, seed, kind), dtype=np.float64)


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

    check(fn, _values(shape, seed, "any") * 0.5, dtype=np.float64)


# ----- reductions -----------------------------------------------------------------------


@st.composite
def shape_and_dim(draw, base=shapes):
    """A shape and a ``dim`` for it: None, an int or a tuple of distinct dims, negatives too."""
    shape = draw(base)
    n = len(shape)
    if n == 0:
        dim = draw(st.sampled_from([None, 0, -1]))
        return shape, dim
    axes = st.integers(-n, n - 1)
    dim = draw(
        st.one_of(
            st.none(),
            axes,
            st.lists(axes, min_size=1, max_size=n, unique_by=lambda d: d % n).map(tuple),
        )
    )
    return shape, dim


def _reduced_sizes(shape, dim) -> list[int]:
    if dim is None or not shape:
        return list(shape)
    dims = (dim,) if isinstance(dim, int) else dim
    return [shape[d] for d in dims]


@SETTINGS
@given(
    op=st.sampled_from(["sum", "mean"]),
    case=shape_and_dim(),
    keepdim=st.booleans(),
    method=st.booleans(),
    seed=seeds,
)
def test_sum_mean_match_torch(op, case, keepdim, method, seed):
    shape, dim = case
    x = _values(shape, seed, "any")
    if dim is None:
        fn = (lambda lib, x: getattr(x, op)()) if method else (lambda lib, x: getattr(lib, op)(x))
    elif method:
        fn = lambda lib, x: getattr(x, op)(dim=dim, keepdim=keepdim)
    else:
        fn = lambda lib, x: getattr(lib, op)(x, dim, keepdim)
    check(fn, x, dtype=np.float64)


@SETTINGS
@given(
    p=st.sampled_from([None, 2, 1, math.inf, 3]),
    case=shape_and_dim(),
    keepdim=st.booleans(),
    kind=st.sampled_from(["method", "function", "vector_norm"]),
    seed=seeds,
)
def test_norm_matches_torch(p, case, keepdim, kind, seed):
    shape, dim = case
    if p == math.inf and 0 in _reduced_sizes(shape, dim):
        # torch refuses the inf norm of an empty reduction; test_ops_oracle covers that
        p = 2
    x = _values(shape, seed, "nonzero")
    ord_ = 2 if p is None else p
    if kind == "method":
        fn = lambda lib, x: x.norm(p=ord_, dim=dim, keepdim=keepdim)
    elif kind == "function":
        fn = lambda lib, x: lib.norm(x, ord_, dim, keepdim)
    else:
        fn = lambda lib, x: lib.linalg.vector_norm(x, ord=ord_, dim=dim, keepdim=keepdim)
    check(fn, x, dtype=np.float64)


@SETTINGS
@given(case=shape_and_dim(nonempty_shapes), keepdim=st.booleans(), seed=seeds)
def test_reduction_chain_matches_torch(case, keepdim, seed):
    """sum/mean/norm of an elementwise product: gradients flow through both factors."""
    shape, dim = case
    a, b = _values(shape, seed, "any"), _values(shape, seed + 1, "nonzero")

    def fn(lib, a, b):
        y = a * b
        if dim is None:
            return y.sum() + y.mean() * 2 + (y / b).norm()
        return (
            y.sum(dim=dim, keepdim=keepdim)
            + y.mean(dim=dim, keepdim=keepdim) * 2
            + (y / b).norm(2, dim=dim, keepdim=keepdim)
        )

    check(fn, a, b, dtype=np.float64)


# ----- matmul and shape ops ---------------------------------------------------------------


@st.composite
def matmul_shapes(draw):
    """Operand shapes for matmul: 1-D or matrices with broadcast-compatible batch dims."""
    n, k, m = (draw(st.integers(0, 3)) for _ in range(3))
    batch = draw(
        hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, max_side=3)
    )
    ba, bb = batch.input_shapes
    a = (k,) if draw(st.booleans()) and not ba else ba + (n, k)
    b = (k,) if draw(st.booleans()) and not bb else bb + (k, m)
    return a, b


@SETTINGS
@given(shapes=matmul_shapes(), seed=seeds)
def test_matmul_matches_torch(shapes, seed):
    sa, sb = shapes
    check(
        lambda lib, a, b: a @ b,
        _values(sa, seed, "any"),
        _values(sb, seed + 1, "any"),
        dtype=np.float64,
    )


@SETTINGS
@given(shape=nonempty_shapes.filter(lambda s: len(s) >= 1), data=st.data(), seed=seeds)
def test_shape_ops_match_torch(shape, data, seed):
    """permute, transpose, reshape, flatten and expand composed, on random shapes."""
    n = len(shape)
    perm = tuple(data.draw(st.permutations(range(n))))
    d0, d1 = data.draw(st.integers(-n, n - 1)), data.draw(st.integers(-n, n - 1))
    start = data.draw(st.integers(0, n - 1))
    lead = data.draw(st.integers(1, 3))

    def fn(lib, x):
        y = x.permute(*perm).transpose(d0, d1)
        y = y.reshape(-1).reshape(y.shape).flatten(start)
        return y.expand(lead, *y.shape) * y.sin()

    check(fn, _values(shape, seed, "any"), dtype=np.float64)


# ----- more of the elementwise family over random broadcast shapes ---------------------------

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
    check(fn, _values(sa, seed, ka), _values(sb, seed + 1, kb), dtype=np.float64)


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
    a = np.round(_values(sa, seed, "any"))
    b = np.round(_values(sb, seed + 1, "any"))
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
    a = _values(sa, seed, "nonzero").astype(da)
    b = _values(sb, seed + 1, "nonzero").astype(db)
    tol = 2e-3 if np.float16 in (da, db) else 2e-5 if np.float32 in (da, db) else None
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

    check(fn, _values(sy, seed, "any"), _values(sb, seed + 1, "nonzero"), dtype=np.float64)


ACTIVATIONS = {
    "relu": lambda lib, x: lib.nn.functional.relu(x),
    "leaky_relu": lambda lib, x: lib.nn.functional.leaky_relu(x, 0.2),
    "elu": lambda lib, x: lib.nn.functional.elu(x),
    "selu": lambda lib, x: lib.nn.functional.selu(x),
    "celu": lambda lib, x: lib.nn.functional.celu(x, 0.5),
    "gelu": lambda lib, x: lib.nn.functional.gelu(x),
    "gelu_tanh": lambda lib, x: lib.nn.functional.gelu(x, approximate="tanh"),
    "silu": lambda lib, x: lib.nn.functional.silu(x),
    "mish": lambda lib, x: lib.nn.functional.mish(x),
    "softplus": lambda lib, x: lib.nn.functional.softplus(x, beta=2.0),
    "softsign": lambda lib, x: lib.nn.functional.softsign(x),
    "hardtanh": lambda lib, x: lib.nn.functional.hardtanh(x),
    "relu6": lambda lib, x: lib.nn.functional.relu6(x * 4),
    "hardswish": lambda lib, x: lib.nn.functional.hardswish(x * 3),
    "logsigmoid": lambda lib, x: lib.nn.functional.logsigmoid(x),
    "hardshrink": lambda lib, x: lib.nn.functional.hardshrink(x),
    "softshrink": lambda lib, x: lib.nn.functional.softshrink(x),
    "tanhshrink": lambda lib, x: lib.nn.functional.tanhshrink(x),
    "threshold": lambda lib, x: lib.nn.functional.threshold(x, 0.1, -1.0),
}


@SETTINGS
@given(op=st.sampled_from(sorted(ACTIVATIONS)), shape=shapes, seed=seeds)
def test_activations_match_torch(op, shape, seed):
    check(ACTIVATIONS[op], _values(shape, seed, "any") * 2, dtype=np.float64)


@SETTINGS
@given(
    op=st.sampled_from(["softmax", "log_softmax", "softmin", "logsumexp", "normalize"]),
    case=shape_and_dim(nonempty_shapes),
    seed=seeds,
)
def test_softmax_family_over_random_dims_match_torch(op, case, seed):
    shape, dim = case
    if not isinstance(dim, int):  # these take one dim (logsumexp also takes a tuple)
        dim = -1 if dim is None or op != "logsumexp" else dim
    if op == "logsumexp":
        fn = lambda lib, x: lib.logsumexp(x, dim if dim is not None else -1)  # noqa: E731
    elif op == "normalize" and len(shape) == 0:
        fn = lambda lib, x: lib.nn.functional.normalize(x, dim=0)  # noqa: E731
    else:
        fn = lambda lib, x: getattr(lib.nn.functional, op)(x, dim=dim)  # noqa: E731
    check(fn, _values(shape, seed, "any") * 3, dtype=np.float64)
