"""A random-program differential test: Hypothesis writes short programs of elementwise ops,
broadcasting binary ops, reductions (sum and mean over dims, max/min/amax/amin, prod,
var/std, cumsum/cumprod, norms), softmax-like ops along a dim, shape ops, matmul,
activations, in-place ops on copies and in-place writes through views, on random
broadcast-compatible float64 inputs (empty ones included); chainrule and PyTorch run each
program, backpropagate the same random non-scalar gradient, and must agree on the output
and on every input's gradient to ~1e-9 relative.

A program is built by running it on PyTorch while it is drawn (each step sees the shapes
so far); the recorded steps are then replayed on chainrule and on a fresh PyTorch graph.
Domains are kept safe by construction (log of |x| + 1, division by x² + 1, exp of tanh x),
so every value stays finite.

Programs also index (integers, slices, None and Ellipsis, boolean masks, index tensors)
and write through indices (``y[key] = value``, ``index_put_`` with accumulation). Further
tests run the same programs through ``autograd.grad`` over all inputs, a backward kept
with ``retain_graph`` and repeated, and a second derivative through ``create_graph``; and
programs that modify a value in place after an op saved it, where chainrule must raise
exactly when PyTorch does. Hypothesis shrinks a failing program to a minimal one, printed
step by step (``Program.__repr__``).

A last test runs smooth programs on mixed float32/float64 inputs: every value's dtype
and every gradient's dtype must be PyTorch's, the values equal to float32 accuracy.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import chainrule as cr
from oracle import assert_same, relative_atol, to_numpy


def F(lib):
    return lib.nn.functional


UNARY = {
    "sin": lambda L, x: x.sin(),
    "cos": lambda L, x: L.cos(x),
    "tanh": lambda L, x: L.tanh(x),
    "sigmoid": lambda L, x: x.sigmoid(),
    "neg": lambda L, x: -x,
    "abs": lambda L, x: x.abs(),
    "exp_tanh": lambda L, x: L.exp(L.tanh(x)),
    "log_abs": lambda L, x: L.log(x.abs() + 1),
    "log1p_abs": lambda L, x: L.log1p(x.abs()),
    "sqrt": lambda L, x: L.sqrt(x * x + 1),
    "rsqrt": lambda L, x: (x * x + 0.5).rsqrt(),
    "reciprocal": lambda L, x: L.reciprocal(x * x + 1),
    "square_tanh": lambda L, x: L.square(L.tanh(x)),
    "pow_frac": lambda L, x: (x.abs() + 0.5) ** 1.5,
    "rpow": lambda L, x: 2.0 ** L.tanh(x),
    "erf": lambda L, x: L.erf(x),
    "atan": lambda L, x: L.atan(x),
    "asinh": lambda L, x: L.asinh(x),
    "expm1_tanh": lambda L, x: L.expm1(L.tanh(x)),
    "clamp": lambda L, x: x.clamp(-0.7, 0.9),
    "relu": lambda L, x: L.relu(x),
    "leaky_relu": lambda L, x: F(L).leaky_relu(x, 0.1),
    "elu": lambda L, x: F(L).elu(x),
    "selu": lambda L, x: F(L).selu(x),
    "gelu": lambda L, x: F(L).gelu(x),
    "gelu_tanh": lambda L, x: F(L).gelu(x, approximate="tanh"),
    "silu": lambda L, x: F(L).silu(x),
    "mish": lambda L, x: F(L).mish(x),
    "softplus": lambda L, x: F(L).softplus(x),
    "softsign": lambda L, x: F(L).softsign(x),
    "logsigmoid": lambda L, x: F(L).logsigmoid(x),
    "hardtanh": lambda L, x: F(L).hardtanh(x),
    "hardswish": lambda L, x: F(L).hardswish(x),
    "tanhshrink": lambda L, x: F(L).tanhshrink(x),
    "scale": lambda L, x: x * 0.5 + 0.25,
}
BINARY = {
    "add": lambda L, a, b: a + b,
    "sub": lambda L, a, b: L.sub(a, b, alpha=0.5),
    "mul": lambda L, a, b: a * b,
    "div": lambda L, a, b: a / (b * b + 1),
    "maximum": lambda L, a, b: L.maximum(a, b),
    "minimum": lambda L, a, b: L.minimum(a, b),
    "where": lambda L, a, b: L.where(a > b, a, b * 2),
    "atan2": lambda L, a, b: L.atan2(a, b * b + 0.5),
    "lerp": lambda L, a, b: L.lerp(a, b, 0.3),
    "logaddexp": lambda L, a, b: L.logaddexp(a, b),
    "xlogy": lambda L, a, b: L.xlogy(a, b * b + 1),
    "hypot": lambda L, a, b: L.hypot(a, b * b + 0.5),
    "pow": lambda L, a, b: (a.abs() + 0.5) ** L.tanh(b),
}


# reductions along one dim (the reductions family, ops/reduction_fns.py)
def _nonempty(f):
    """f along d, or a sum where d is empty (max and min of nothing raise)."""
    return lambda L, x, d: f(L, x, d) if x.shape[d] else x.sum(d)


MORE_REDUCTIONS = {
    "amax": _nonempty(lambda L, x, d: x.amax(d)),
    "amin_keepdim": _nonempty(lambda L, x, d: L.amin(x, d, keepdim=True)),
    "max_values": _nonempty(lambda L, x, d: x.max(d).values),
    "min_values": _nonempty(lambda L, x, d: L.min(x, dim=d, keepdim=True)[0]),
    "prod": lambda L, x, d: L.prod(x, d),
    "var": lambda L, x, d: x.var(d),
    "std_keepdim": lambda L, x, d: L.std(x, d, keepdim=True, correction=0),
    "cumsum": lambda L, x, d: x.cumsum(d),
    "cumprod": lambda L, x, d: L.cumprod(x, d),
    "norm": lambda L, x, d: x.norm(dim=d),
    "vector_norm_1": lambda L, x, d: L.linalg.vector_norm(x, 1, dim=d),
}

# in place on a copy y = x * 1 (a non-leaf), with another value b that broadcasts to y
INPLACE = {
    "add_": lambda L, y, b: y.add_(b, alpha=0.5),
    "mul_": lambda L, y, b: y.mul_(b),
    "isub": lambda L, y, b: _isub(y, b),
    "div_": lambda L, y, b: y.div_(b * b + 1),
    "copy_": lambda L, y, b: y.copy_(b.tanh()),
    "exp_": lambda L, y, b: y.sin_().exp_(),
    "sigmoid_": lambda L, y, b: y.sigmoid_(),
    "clamp_": lambda L, y, b: y.clamp_(-0.5, 0.8),
    "relu_": lambda L, y, b: F(L).relu(y, inplace=True),
    "elu_": lambda L, y, b: F(L).elu(y, inplace=True),
    "ipow": lambda L, y, b: _ipow(y),
}


# in place through a view of a copy y = x * 1: y[key].op_(...), or y[key] = value
VIEW_INPLACE = {
    "mul_": lambda view, b: view.mul_(2.5),
    "add_": lambda view, b: view.add_(b.sum()),
    "sigmoid_": lambda view, b: view.sigmoid_(),
    "clamp_": lambda view, b: view.clamp_(-0.3, 0.4),
    "zero_": lambda view, b: view.zero_(),
}


def _through_view(x, key, op, b, assign):
    y = x * 1
    if assign:
        y[key] = b.sum().tanh()
    else:
        VIEW_INPLACE[op](y[key], b)
    return y


def _isub(y, b):
    y -= b
    return y


def _ipow(y):
    y.abs_().add_(0.5)
    y **= 1.5
    return y


def _draw_dim(draw, ndim: int) -> int:
    return draw(st.integers(-ndim, ndim - 1))


# ----- indexing: keys are drawn as plain descriptions and built per library ---------------


def _draw_positions(draw, n: int, unique: bool) -> list[int]:
    """Up to 4 positions along a dimension of size n (negative ones too)."""
    if n == 0:
        return []
    idx = draw(st.lists(st.integers(-n, n - 1), max_size=4))
    if unique:
        seen: dict[int, int] = {}
        for k in idx:
            seen.setdefault(k % n, k)
        idx = list(seen.values())
    return idx


def _draw_key(draw, shape: tuple, unique: bool = False) -> list:
    """A key for ``x[key]``: basic (ints, slices, None, Ellipsis), a boolean mask of x,
    or one or two index tensors (for writes, without repeated positions)."""
    ndim = len(shape)
    choice = draw(st.sampled_from(["basic", "basic", "mask", "long", "long2"]))
    if choice == "mask":
        return [("mask",)]
    if ndim == 0:
        return [draw(st.sampled_from([("ellipsis",), ("none",)]))]
    if choice == "long" or (choice == "long2" and ndim < 2):
        return [("long", _draw_positions(draw, shape[0], unique))]
    if choice == "long2":
        rows = _draw_positions(draw, shape[0], unique)
        cols = [draw(st.integers(-shape[1], shape[1] - 1)) for _ in rows] if shape[1] else []
        if not shape[1]:
            rows = []
        return [("long", rows), ("long", cols)]
    key: list = []
    for d in range(draw(st.integers(1, ndim))):
        n = shape[d]
        if n and draw(st.booleans()):
            key.append(("int", draw(st.integers(-n, n - 1))))
        else:
            start = draw(st.integers(0, n))
            key.append(("slice", start, draw(st.integers(start, n)), draw(st.integers(1, 3))))
    if draw(st.booleans()):
        key.insert(draw(st.integers(0, len(key))), ("none",))
    if len(key) < ndim and draw(st.booleans()):
        key.append(("ellipsis",))
    return key


def _build_key(L, x, key: list):
    def item(k):
        if k[0] == "int":
            return k[1]
        if k[0] == "slice":
            return slice(k[1], k[2], k[3])
        if k[0] == "none":
            return None
        if k[0] == "ellipsis":
            return ...
        if k[0] == "mask":
            return x > 0
        return L.tensor(k[1], dtype=L.long)

    return tuple(item(k) for k in key)


def _index_put(L, y, key: list, value, how: str):
    """Write ``value`` into a copy of y at ``key``: assignment or index_put_."""
    y = y * 1
    built = _build_key(L, y, key)
    if how == "assign":
        y[built] = value
    else:
        y.index_put_(built, value, accumulate=True)
    return y


TRIGGERED = re.compile(r" \(Triggered internally at .*\)$", re.DOTALL)


class Program:
    """Steps recorded while drawing: each maps the value list to a new value."""

    def __init__(self, inputs: list[np.ndarray]) -> None:
        self.inputs = list(inputs)
        self.n_first = len(inputs)  # the weights matmul steps add come after these
        self.steps: list = []
        self.text: list[str] = []  # what each step does, for a failure's report
        self.warned: dict = {}

    def __repr__(self) -> str:
        shapes = [a.shape for a in self.inputs]
        return f"Program(inputs {shapes}: " + "; ".join(self.text) + ")"

    def run(self, lib):
        """The program on ``lib``; the warnings it gave (e.g. var's "degrees of freedom is
        <= 0"), without C++'s "(Triggered internally at ...)", in ``self.warned[lib]``."""
        xs = [lib.tensor(a.copy(), requires_grad=True) for a in self.inputs]
        values = xs[: self.n_first]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for step in self.steps:
                values.append(step(lib, values, xs))
        self.warned[lib] = [TRIGGERED.sub("", str(w.message)) for w in caught]
        return xs, values[-1]

    def run_both(self):
        """torch's and chainrule's runs, which give the same warnings."""
        t_xs, t_out = self.run(torch)
        c_xs, c_out = self.run(cr)
        assert self.warned[cr] == self.warned[torch]
        return t_xs, t_out, c_xs, c_out


def _step(draw, prog: Program, values: list, xs: list):
    """Draw one step that makes sense for the current (torch) values; record and apply it."""
    i = draw(st.integers(0, len(values) - 1))
    x = values[i]
    kinds = ["unary", "unary", "binary", "binary", "reduce", "reduce_more", "dim_op", "shape"]
    kinds += ["inplace", "index", "index_put"]
    if x.ndim >= 1:
        kinds += ["matmul", "view_inplace"]
    kind = draw(st.sampled_from(kinds))
    if kind == "unary":
        name = draw(st.sampled_from(sorted(UNARY)))
        step = lambda L, v, _, i=i, f=UNARY[name]: f(L, v[i])  # noqa: E731
    elif kind == "binary":
        j = draw(st.integers(0, len(values) - 1))
        try:
            np.broadcast_shapes(tuple(x.shape), tuple(values[j].shape))
        except ValueError:
            j = i  # not broadcastable: the value with itself
        name = draw(st.sampled_from(sorted(BINARY)))
        swap = draw(st.booleans())
        a, b = (j, i) if swap else (i, j)
        step = lambda L, v, _, a=a, b=b, f=BINARY[name]: f(L, v[a], v[b])  # noqa: E731
    elif kind == "inplace":
        j = draw(st.integers(0, len(values) - 1))
        try:
            fits = np.broadcast_shapes(tuple(x.shape), tuple(values[j].shape)) == tuple(x.shape)
        except ValueError:
            fits = False
        j = j if fits else i
        f = INPLACE[draw(st.sampled_from(sorted(INPLACE)))]
        step = lambda L, v, _, i=i, j=j, f=f: f(L, v[i] * 1, v[j])  # noqa: E731
    elif kind == "view_inplace":
        n = x.shape[0]
        start = draw(st.integers(0, max(n - 1, 0)))
        key = draw(
            st.sampled_from(
                [
                    slice(start, None, draw(st.integers(1, 2))),
                    (slice(None), ..., 0) if x.ndim >= 2 and x.shape[-1] else start,
                ]
            )
        )
        if key == start and not n:
            key = slice(None)
        op = draw(st.sampled_from(sorted(VIEW_INPLACE)))
        assign = draw(st.booleans())
        j = draw(st.integers(0, len(values) - 1))
        step = lambda L, v, _, i=i, j=j, key=key, op=op, a=assign: _through_view(  # noqa: E731
            v[i], key, op, v[j], a
        )
    elif kind == "index":
        key = _draw_key(draw, tuple(x.shape))
        step = lambda L, v, _, i=i, key=key: v[i][_build_key(L, v[i], key)]  # noqa: E731
    elif kind == "index_put":
        accumulate = draw(st.booleans())
        key = _draw_key(draw, tuple(x.shape), unique=not accumulate)
        if accumulate and key[0][0] != "long":
            key = [("long", _draw_positions(draw, x.shape[0], False))] if x.ndim else key
            accumulate = bool(x.ndim)
        target = tuple(x[_build_key(torch, x, key)].shape)
        j = draw(st.integers(0, len(values) - 1))
        try:
            fits = np.broadcast_shapes(tuple(values[j].shape), target) == target
        except ValueError:
            fits = False
        how = "accumulate" if accumulate else "assign"
        if fits and draw(st.booleans()):
            value = lambda L, v, j=j: v[j].tanh()  # noqa: E731
        else:
            value = lambda L, v, j=j: v[j].sum().tanh()  # noqa: E731
        step = lambda L, v, _, i=i, key=key, val=value, how=how: _index_put(  # noqa: E731
            L, v[i], key, val(L, v), how
        )
    elif kind == "reduce":
        op = draw(st.sampled_from(["sum", "mean", "sum_all", "mean_all"]))
        if x.ndim == 0 or op.endswith("_all"):
            op = op.removesuffix("_all")
            step = lambda L, v, _, i=i, op=op: getattr(v[i], op)()  # noqa: E731
        else:
            dims = draw(
                st.lists(st.integers(0, x.ndim - 1), min_size=1, max_size=x.ndim, unique=True)
            )
            dim = tuple(d - x.ndim if draw(st.booleans()) else d for d in dims)
            keepdim = draw(st.booleans())
            step = lambda L, v, _, i=i, op=op, dim=dim, k=keepdim: getattr(L, op)(  # noqa: E731
                v[i], dim, k
            )
    elif kind == "reduce_more":
        if x.ndim == 0:
            step = lambda L, v, _, i=i: v[i].amax() + v[i].prod()  # noqa: E731
        else:
            dim = _draw_dim(draw, x.ndim)
            op = draw(st.sampled_from(sorted(MORE_REDUCTIONS)))
            step = lambda L, v, _, i=i, d=dim, f=MORE_REDUCTIONS[op]: f(L, v[i], d)  # noqa: E731
    elif kind == "dim_op":
        if x.ndim == 0:
            step = lambda L, v, _, i=i: v[i] * v[i]  # noqa: E731
        else:
            dim = _draw_dim(draw, x.ndim)
            op = draw(st.sampled_from(["softmax", "log_softmax", "logsumexp", "normalize"]))
            if op == "logsumexp":
                step = lambda L, v, _, i=i, d=dim: L.logsumexp(v[i], d)  # noqa: E731
            elif op == "normalize":
                step = lambda L, v, _, i=i, d=dim: F(L).normalize(v[i], dim=d)  # noqa: E731
            else:
                step = lambda L, v, _, i=i, d=dim, op=op: getattr(F(L), op)(v[i], dim=d)  # noqa: E731
    elif kind == "shape":
        if x.ndim >= 2 and draw(st.booleans()):
            d0, d1 = _draw_dim(draw, x.ndim), _draw_dim(draw, x.ndim)
            step = lambda L, v, _, i=i, d0=d0, d1=d1: v[i].transpose(d0, d1) * 1  # noqa: E731
        else:
            step = lambda L, v, _, i=i: v[i].reshape(-1)  # noqa: E731
    else:  # matmul with a fresh weight input, or the Gram matrix of a matrix
        if x.ndim >= 2 and draw(st.booleans()):
            step = lambda L, v, _, i=i: v[i] @ v[i].transpose(-1, -2)  # noqa: E731
        else:
            k = draw(st.integers(1, 3))
            vector = draw(st.booleans())
            w_shape = (x.shape[-1],) if vector else (x.shape[-1], k)
            seed = draw(st.integers(0, 2**31))
            prog.inputs.append(np.random.default_rng(seed).standard_normal(w_shape) * 0.5)
            w = len(prog.inputs) - 1
            step = lambda L, v, xs, i=i, w=w: L.matmul(v[i], xs[w])  # noqa: E731
    xs.extend(
        torch.tensor(a, requires_grad=True) for a in prog.inputs[len(xs) :]
    )  # a new weight, if the step added one
    shown = ("name", "op", "dim", "key", "assign", "f", "how")
    names = {k: v for k, v in locals().items() if k in shown}
    prog.text.append(f"v{len(values)} = {kind}(v{i}, {names})")
    with warnings.catch_warnings():  # drawing; the runs compare the warnings
        warnings.simplefilter("ignore")
        values.append(step(torch, values, xs))
    prog.steps.append(step)


@st.composite
def programs(draw):
    n = draw(st.integers(1, 3))
    shapes = draw(
        hnp.mutually_broadcastable_shapes(
            num_shapes=n, min_dims=0, max_dims=3, min_side=0, max_side=4
        )
    ).input_shapes
    seed = draw(st.integers(0, 2**31))
    r = np.random.default_rng(seed)
    prog = Program([r.standard_normal(s) for s in shapes])
    xs = [torch.tensor(a, requires_grad=True) for a in prog.inputs]
    values = list(xs)
    for _ in range(draw(st.integers(1, 8))):
        _step(draw, prog, values, xs)
    return prog, seed


# derandomize: CI draws the same programs every run (a failure is then a change in the code,
# not a new draw); database=None: no replay of a local checkout's past failures. A program
# found by a randomized run (HYPOTHESIS seeds) goes into the notes and a test of its own.
@settings(max_examples=800, deadline=None, derandomize=True, database=None)
@given(case=programs())
def test_random_programs_agree_with_torch(case):
    prog, seed = case
    t_xs, t_out, c_xs, c_out = prog.run_both()
    assert tuple(c_out.shape) == tuple(t_out.shape)
    assert str(c_out.dtype) == str(t_out.dtype) == "torch.float64"
    assert_same(c_out, t_out, "output", rtol=1e-9, atol=relative_atol(t_out, 1e-10))
    g = np.random.default_rng(seed + 1).standard_normal(tuple(t_out.shape))
    t_out.backward(torch.tensor(g))
    c_out.backward(cr.tensor(g))
    for k, (c, t) in enumerate(zip(c_xs, t_xs, strict=True)):
        if t.grad is None:
            assert c.grad is None, f"input {k}: torch has no gradient"
            continue
        assert c.grad is not None, f"input {k}: chainrule has no gradient"
        assert str(c.grad.dtype) == "torch.float64"
        what = f"gradient of input {k}"
        assert_same(c.grad, t.grad, what, rtol=1e-9, atol=relative_atol(t.grad, 1e-10))


# ----- the same programs through autograd.grad, retain_graph and create_graph ------------------


def _grads(lib, out, xs, g, **kwargs):
    return lib.autograd.grad(out, xs, lib.tensor(g), allow_unused=True, **kwargs)


def _assert_grads(c_grads, t_grads, what: str) -> None:
    for k, (c, t) in enumerate(zip(c_grads, t_grads, strict=True)):
        if t is None:
            assert c is None, f"{what} {k}: torch has none"
            continue
        assert c is not None, f"{what} {k}: chainrule has none"
        if t.numel():  # (an empty gradient's requires_grad can differ from torch's: a known gap)
            assert c.requires_grad == t.requires_grad, f"{what} {k}: requires_grad"
        assert_same(c, t, f"{what} {k}", rtol=1e-8, atol=relative_atol(t, 1e-9))


@settings(max_examples=600, deadline=None, derandomize=True, database=None)
@given(case=programs(), mode=st.sampled_from(["grad", "retain_twice", "second_order"]))
def test_random_programs_grad_retain_and_second_order_agree_with_torch(case, mode):
    """``autograd.grad`` over every input; backward twice with ``retain_graph`` (the
    gradients accumulate); and a second derivative: the gradients, taken with
    ``create_graph``, dotted with fixed weights and differentiated again."""
    prog, seed = case
    t_xs, t_out, c_xs, c_out = prog.run_both()
    g = np.random.default_rng(seed + 1).standard_normal(tuple(t_out.shape))
    if mode == "retain_twice":
        for lib, out in ((torch, t_out), (cr, c_out)):
            out.backward(lib.tensor(g), retain_graph=True)
            out.backward(lib.tensor(g))
        _assert_grads([x.grad for x in c_xs], [x.grad for x in t_xs], "twice, input")
        return
    create = mode == "second_order"
    t_grads = _grads(torch, t_out, t_xs, g, create_graph=create)
    c_grads = _grads(cr, c_out, c_xs, g, create_graph=create)
    _assert_grads(c_grads, t_grads, "autograd.grad, input")
    if not create:
        return
    r = np.random.default_rng(seed + 2)
    weights = [r.standard_normal(tuple(x.shape)) for x in t_xs]

    def dot(lib, grads):
        terms = [(gr * lib.tensor(w)).sum() for gr, w in zip(grads, weights, strict=True)]
        terms = [t for t in terms if t.requires_grad]
        return sum(terms[1:], terms[0]) if terms else None

    t_s = dot(torch, [gr if gr is not None else torch.zeros(()) for gr in t_grads])
    c_s = dot(cr, [gr if gr is not None else cr.zeros(()) for gr in c_grads])
    assert (c_s is None) == (t_s is None), "whether the gradients depend on the inputs"
    if t_s is None:
        return
    try:
        t_second = torch.autograd.grad(t_s, t_xs, allow_unused=True)
    except NotImplementedError:  # torch lacks this double backward; chainrule may have it
        return
    c_second = cr.autograd.grad(c_s, c_xs, allow_unused=True)
    for k, (c, t) in enumerate(zip(c_second, t_second, strict=True)):
        if t is None or c is None:  # unused in one graph, zeros in the other: compare values
            t = torch.zeros(t_xs[k].shape, dtype=torch.float64) if t is None else t
            c = cr.zeros(tuple(c_xs[k].shape), dtype=cr.float64) if c is None else c
        assert_same(c, t, f"second derivative, input {k}", rtol=1e-7, atol=relative_atol(t, 1e-8))


# ----- in place after a save: chainrule raises exactly when PyTorch does ----------------------

SAVING = {  # op on y, and whether PyTorch saves y (or its result) for the backward
    "sin": lambda L, y, b: y.sin(),  # saves y
    "exp": lambda L, y, b: y.exp(),  # saves the result
    "scale": lambda L, y, b: y * 2,  # saves nothing of y
    "shift": lambda L, y, b: y + b,  # saves nothing
    "square": lambda L, y, b: y**2,  # saves y
    "relu": lambda L, y, b: y.relu(),  # saves the result
    "sigmoid": lambda L, y, b: y.sigmoid(),  # saves the result
    "times_b": lambda L, y, b: y * b,  # saves y and b
    "view": lambda L, y, b: y.view(-1),  # a view: shares y's version counter
    "sum": lambda L, y, b: y.sum(),  # saves only the shape
    "matmul": lambda L, y, b: y.reshape(-1) @ b.reshape(-1),  # saves both
}
MODIFY = {
    "mul_": lambda y: y.mul_(2),
    "add_": lambda y: y.add_(1),
    "exp_": lambda y: y.exp_(),
    "sigmoid_": lambda y: y.sigmoid_(),
    "zero_": lambda y: y.zero_(),
    "setitem": lambda y: y.__setitem__(0, 5.0) if y.ndim else y.fill_(5.0),
    "imul_self": lambda y: y.mul_(y),
}


def _hazard(lib, a, b, first: str, modify: list[str], which: str):
    """y = a * 1; z = first(y); modify y (or z) in place; return z + y summed."""
    y = a * 1
    z = SAVING[first](lib, y, b)
    target = y if which == "input" else z
    for m in modify:
        MODIFY[m](target)
    return (z.sum() + y.sum()) if z.ndim or y.ndim else z + y


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(
    shape=hnp.array_shapes(min_dims=1, max_dims=2, max_side=3),
    first=st.sampled_from(sorted(SAVING)),
    modify=st.lists(st.sampled_from(sorted(MODIFY)), min_size=1, max_size=2),
    which=st.sampled_from(["input", "output"]),
    seed=st.integers(0, 2**31),
)
def test_in_place_after_a_save_raises_exactly_when_torch_does(shape, first, modify, which, seed):
    r = np.random.default_rng(seed)
    a, b = r.standard_normal(shape), r.standard_normal(shape)
    outcome = {}
    for lib in (torch, cr):
        x = lib.tensor(a, requires_grad=True)
        w = lib.tensor(b, requires_grad=True)
        try:
            out = _hazard(lib, x, w, first, modify, which)
            out.backward()
        except RuntimeError as exc:
            outcome[lib.__name__] = ("raises", "modified by an inplace operation" in str(exc))
        else:
            grads = [None if t.grad is None else to_numpy(t.grad) for t in (x, w)]
            outcome[lib.__name__] = ("runs", *grads)
    t, c = outcome["torch"], outcome["chainrule"]
    assert c[0] == t[0], f"torch {t[0]}, chainrule {c[0]}"
    if t[0] == "raises":
        assert c[1] == t[1], "the message names the in-place modification"
    else:
        for got, want in zip(c[1:], t[1:], strict=True):
            assert (got is None) == (want is None)
            if want is not None:
                np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


# ----- mixed float32 / float64 programs: dtypes flow as in PyTorch ------------------------------

SMOOTH_UNARY = ["sin", "tanh", "sigmoid", "exp_tanh", "log_abs", "sqrt", "erf", "gelu", "silu"]
SMOOTH_BINARY = ["add", "sub", "mul", "div", "atan2", "logaddexp", "xlogy"]


@st.composite
def mixed_programs(draw):
    """Smooth ops only (no kinks or ties, where an ulp of float32 could flip a branch)."""
    n = draw(st.integers(2, 3))
    shapes = draw(
        hnp.mutually_broadcastable_shapes(num_shapes=n, min_dims=0, max_dims=3, max_side=3)
    ).input_shapes
    dtypes = [draw(st.sampled_from([np.float32, np.float64])) for _ in range(n)]
    seed = draw(st.integers(0, 2**31))
    r = np.random.default_rng(seed)
    inputs = [r.standard_normal(s).astype(d) for s, d in zip(shapes, dtypes, strict=True)]
    steps = []
    count = n
    for _ in range(draw(st.integers(1, 6))):
        if draw(st.booleans()):
            f = UNARY[draw(st.sampled_from(SMOOTH_UNARY))]
            i = draw(st.integers(0, count - 1))
            steps.append(lambda L, v, i=i, f=f: f(L, v[i]))
        else:
            f = BINARY[draw(st.sampled_from(SMOOTH_BINARY))]
            i, j = draw(st.integers(0, count - 1)), draw(st.integers(0, count - 1))
            steps.append(lambda L, v, i=i, j=j, f=f: f(L, v[i], v[j]))
        count += 1
    return inputs, steps, seed


def _run_mixed(lib, inputs, steps):
    xs = [lib.tensor(a.copy(), requires_grad=True) for a in inputs]
    values = list(xs)
    for step in steps:
        values.append(step(lib, values))
    return xs, values[-1]


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(case=mixed_programs())
def test_mixed_precision_programs_agree_with_torch(case):
    """Each value's dtype as PyTorch's (float32 with float64 promotes; a 0-d operand of the
    same category does not), and each gradient in its input's dtype, to float32 accuracy."""
    inputs, steps, seed = case
    t_xs, t_out = _run_mixed(torch, inputs, steps)
    c_xs, c_out = _run_mixed(cr, inputs, steps)
    assert str(c_out.dtype) == str(t_out.dtype)
    assert tuple(c_out.shape) == tuple(t_out.shape)
    want = t_out.detach().double().numpy()
    scale = 1.0 + float(np.max(np.abs(want))) if want.size else 1.0
    np.testing.assert_allclose(c_out.detach().numpy(), want, rtol=1e-4, atol=1e-5 * scale)
    g = np.random.default_rng(seed + 1).standard_normal(tuple(t_out.shape))
    t_out.backward(torch.tensor(g).to(t_out.dtype))
    c_out.backward(cr.tensor(g).to(c_out.dtype))
    for k, (c, t) in enumerate(zip(c_xs, t_xs, strict=True)):
        if t.grad is None:
            assert c.grad is None, f"input {k}: torch has no gradient"
            continue
        assert str(c.grad.dtype) == str(t.grad.dtype) == str(t.dtype)
        w = t.grad.double().numpy()
        scale = 1.0 + float(np.max(np.abs(w))) if w.size else 1.0
        np.testing.assert_allclose(c.grad.numpy(), w, rtol=1e-4, atol=1e-5 * scale)
