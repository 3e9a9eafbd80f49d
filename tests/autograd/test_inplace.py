"""In-place ops against PyTorch: every ``_`` variant of the elementwise ops and activations,
augmented assignment, ``zero_ fill_ copy_``, recorded on non-leaf tensors so that the
gradient is that of ``y = op(y)``; chains of in-place ops; the leaf error and in-place
updates of leaves under ``no_grad``; ``nn.functional``'s ``inplace=True``.

Version counters are tested in test_version_counters.py, writes through views in
test_views.py.
"""

from __future__ import annotations

import inspect
import operator

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import (
    DT_IDS,
    FLOATS,
    NoGrad,
    assert_close,
    assert_same_error,
    both,
    check,
    check_fd,
    check_raises,
    compare,
    error_of,
    nonzero,
    randn,
)


def values(kind: str, shape=(2, 3), seed: int = 0) -> np.ndarray:
    """float64 inputs in an op's domain, away from its kinks."""
    r = np.random.default_rng(seed)
    if kind == "pos":
        return r.uniform(0.5, 2.0, shape)
    if kind == "unit":
        return r.uniform(0.1, 0.9, shape)
    if kind == "nonzero":
        return r.uniform(0.5, 2.0, shape) * r.choice([-1.0, 1.0], shape)
    return r.standard_normal(shape)


def _ipow(y):
    y **= 2
    return y


def _iadd(y, w):
    y += w
    return y


def _isub(y, w):
    y -= w * 2
    return y


def _imul(y, w):
    y *= w
    return y


def _itruediv(y, w):
    y /= w
    return y


def _ifloordiv(y):
    z = y.detach().clone()  # floor_divide has no derivative: its result is used as a constant
    z //= 0.7
    return y * z


def _imod(y):
    y %= 0.7
    return y


# name: (fn(L, y, w) doing the in-place op on the non-leaf y, kind of y's values)
# y = x * 1.5 is a non-leaf; w = x + 1 another tensor in the graph.
UNARY_INPLACE = {
    "exp_": (lambda L, y, w: y.exp_(), "any"),
    "log_": (lambda L, y, w: y.log_(), "pos"),
    "sin_": (lambda L, y, w: y.sin_(), "any"),
    "cos_": (lambda L, y, w: y.cos_(), "any"),
    "tanh_": (lambda L, y, w: y.tanh_(), "any"),
    "sigmoid_": (lambda L, y, w: y.sigmoid_(), "any"),
    "sqrt_": (lambda L, y, w: y.sqrt_(), "pos"),
    "rsqrt_": (lambda L, y, w: y.rsqrt_(), "pos"),
    "abs_": (lambda L, y, w: y.abs_(), "nonzero"),
    "absolute_": (lambda L, y, w: y.absolute_(), "nonzero"),
    "neg_": (lambda L, y, w: y.neg_(), "any"),
    "negative_": (lambda L, y, w: y.negative_(), "any"),
    "sign_": (lambda L, y, w: y.sign_(), "nonzero"),
    "sgn_": (lambda L, y, w: y.sgn_(), "nonzero"),
    "reciprocal_": (lambda L, y, w: y.reciprocal_(), "nonzero"),
    "square_": (lambda L, y, w: y.square_(), "any"),
    "relu_": (lambda L, y, w: y.relu_(), "nonzero"),
    "exp2_": (lambda L, y, w: y.exp2_(), "any"),
    "expm1_": (lambda L, y, w: y.expm1_(), "any"),
    "log2_": (lambda L, y, w: y.log2_(), "pos"),
    "log1p_": (lambda L, y, w: y.log1p_(), "pos"),
    "erf_": (lambda L, y, w: y.erf_(), "any"),
    "atan_": (lambda L, y, w: y.atan_(), "any"),
    "logit_": (lambda L, y, w: ((y * 0.3).sigmoid() * 1).logit_(), "any"),
    "logit_eps_": (lambda L, y, w: (y.sigmoid() * 1).logit_(eps=0.2), "any"),
    "sinc_": (lambda L, y, w: y.sinc_(), "any"),
    "deg2rad_": (lambda L, y, w: y.deg2rad_(), "any"),
    "rad2deg_": (lambda L, y, w: y.rad2deg_(), "any"),
    "clamp_": (lambda L, y, w: y.clamp_(-0.5, 0.5), "any"),
    "clamp_min_": (lambda L, y, w: y.clamp_min_(0.2), "any"),
    "clamp_max_": (lambda L, y, w: y.clamp_max_(w), "any"),
    "clip_": (lambda L, y, w: y.clip_(min=w - 1.2), "any"),
    "nan_to_num_": (lambda L, y, w: y.nan_to_num_(), "any"),
    "pow_": (lambda L, y, w: y.pow_(3), "any"),
    "pow_tensor_": (lambda L, y, w: y.pow_(w), "pos"),
    "float_power_": (lambda L, y, w: y.double().float_power_(2), "any"),
    "zero_": (lambda L, y, w: y.zero_(), "any"),
    "fill_": (lambda L, y, w: y.fill_(2.5), "any"),
    "fill_0d_tensor": (lambda L, y, w: y.fill_(w.sum()), "any"),
    "copy_": (lambda L, y, w: y.copy_(w * 3), "any"),
    "copy_broadcast": (lambda L, y, w: y.copy_(w[0]), "any"),
    "torch.exp_": (lambda L, y, w: L.exp_(y), "any"),
    "torch.sigmoid_": (lambda L, y, w: L.sigmoid_(y), "any"),
    "torch.clamp_min_": (lambda L, y, w: L.clamp_min_(y, -0.1), "any"),
    "torch.relu_": (lambda L, y, w: L.relu_(y), "nonzero"),
}
BINARY_INPLACE = {
    "add_": (lambda L, y, w: y.add_(w), "any"),
    "add_alpha": (lambda L, y, w: y.add_(w, alpha=-0.5), "any"),
    "add_number": (lambda L, y, w: y.add_(2), "any"),
    "sub_": (lambda L, y, w: y.sub_(w, alpha=2), "any"),
    "subtract_": (lambda L, y, w: y.subtract_(w), "any"),
    "mul_": (lambda L, y, w: y.mul_(w), "any"),
    "multiply_": (lambda L, y, w: y.multiply_(3), "any"),
    "div_": (lambda L, y, w: y.div_(w), "any"),
    "divide_": (lambda L, y, w: y.divide_(2.0), "any"),
    "true_divide_": (lambda L, y, w: y.true_divide_(w), "any"),
    "div_floor": (lambda L, y, w: y.div_(0.3, rounding_mode="floor"), "any"),
    "maximum_into": (lambda L, y, w: y.copy_(L.maximum(y * 1, w)), "any"),
    "atan2_": (lambda L, y, w: y.atan2_(w), "any"),
    "hypot_": (lambda L, y, w: y.hypot_(w), "any"),
    "lerp_": (lambda L, y, w: y.lerp_(w, 0.3), "any"),
    "xlogy_": (lambda L, y, w: y.xlogy_(w.abs() + 1), "any"),
    "copysign_": (lambda L, y, w: y.copysign_(w), "nonzero"),
    "ldexp_": (lambda L, y, w: y.ldexp_(w), "any"),
    "fmod_": (lambda L, y, w: y.fmod_(0.7), "any"),
    "remainder_": (lambda L, y, w: y.remainder_(0.7), "any"),
    "eq_": (lambda L, y, w: y.eq_(y), "any"),
    "lt_": (lambda L, y, w: y.lt_(w), "any"),
    "ge_": (lambda L, y, w: y.ge_(0.0), "any"),
    "greater_": (lambda L, y, w: y.greater_(w), "any"),
    "not_equal_": (lambda L, y, w: y.not_equal_(w), "any"),
    "iadd": (lambda L, y, w: _iadd(y, w), "any"),
    "isub": (lambda L, y, w: _isub(y, w), "any"),
    "imul": (lambda L, y, w: _imul(y, w), "any"),
    "itruediv": (lambda L, y, w: _itruediv(y, w), "any"),
    "ipow": (lambda L, y, w: _ipow(y), "any"),
    "ifloordiv": (lambda L, y, w: _ifloordiv(y), "any"),
    "imod": (lambda L, y, w: _imod(y), "any"),
}
ALL_INPLACE = {**UNARY_INPLACE, **BINARY_INPLACE}


def _program(fn):
    """x -> y = 1.5 x (a non-leaf), the in-place op on y, then a use of the result."""

    def run(L, x):
        y = x * 1.5
        w = x + 1
        out = fn(L, y, w)
        return out * (w + 1) if out is y else out * 1

    return run


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name", sorted(ALL_INPLACE))
def test_inplace_on_a_non_leaf_matches_torch(name, dtype):
    fn, kind = ALL_INPLACE[name]
    check(_program(fn), values(kind, seed=len(name)), dtype=dtype)


# (logit_, float_power_ and ifloordiv write into a fresh tensor, not y: covered above)
ON_Y = sorted(n for n in ALL_INPLACE if not n.startswith(("logit", "float_power", "ifloordiv")))


@pytest.mark.parametrize("name", ON_Y)
def test_inplace_returns_self_records_the_op_and_bumps_the_version(name):
    fn, kind = ALL_INPLACE[name]
    for lib in (cr, torch):
        x = lib.tensor(values(kind, seed=1), requires_grad=True)
        y = x * 1.5
        w = x + 1
        before = y._version
        node = y.grad_fn
        out = fn(lib, y, w)
        assert out is y, name
        assert y._version > before, name
        assert y.grad_fn is not node, name  # the op's node is y's grad_fn now
        assert y.requires_grad


@pytest.mark.parametrize(
    "name", ["exp_", "sigmoid_", "div_", "pow_tensor_", "lerp_", "xlogy_", "copy_", "clamp_max_"]
)
def test_inplace_finite_differences(name):
    fn, kind = ALL_INPLACE[name]
    check_fd(_program(fn), values(kind, seed=3))


def test_a_chain_of_inplace_ops_is_differentiated_as_its_out_of_place_program():
    def chain(L, x, w):
        y = x * 1
        y.mul_(w).add_(1)
        y.sub_(w.sum(), alpha=0.25)
        y /= w.abs() + 1
        y **= 2  # pow saves its input: the value before this write
        y.clamp_(max=3.0).sin_()
        y.exp_()  # saves its output: nothing may change y after this
        return y

    check(chain, values("any", (3, 4), 5) * 0.5, values("any", (4,), 6))
    check(chain, values("any", (3, 4), 5) * 0.5, values("any", (4,), 6), dtype=np.float32)
    check_fd(chain, values("any", (2, 3), 7) * 0.5, values("any", (3,), 8))


def test_the_written_operand_and_the_other_both_get_gradients():
    def fn(L, x, w):
        y = x.sin()
        y.mul_(w)  # d/dx and d/dw of y = sin(x) w
        y.add_(w, alpha=3)
        return y

    res = check(fn, values("any", (2, 3), 9), values("any", (3,), 10))
    assert res.cr_inputs[1].grad.shape == (3,)


# ----- leaves ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fn",
    [
        lambda L, x: x.add_(1),
        lambda L, x: x.exp_(),
        lambda L, x: x.zero_(),
        lambda L, x: x.fill_(1.0),
        lambda L, x: x.copy_(x * 2),
        lambda L, x: x.clamp_(0, 1),
        lambda L, x: x.sigmoid_(),
        lambda L, x: _iadd(x, 1.0),
        lambda L, x: _ipow(x),
        lambda L, x: L.relu_(x),
        lambda L, x: L.nn.functional.relu(x, inplace=True),
        lambda L, x: L.nn.functional.threshold_(x, 0.0, 1.0),
    ],
)
def test_inplace_on_a_leaf_requiring_grad_raises(fn):
    assert check_raises(fn, values("any", (3,), 11)) is RuntimeError


def test_inplace_on_a_leaf_under_no_grad_updates_it_and_keeps_it_a_leaf():
    for lib in (cr, torch):
        w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        (w * w).sum().backward()
        with lib.no_grad():
            w -= 0.1 * w.grad
            w.mul_(2)
        assert w.is_leaf and w.requires_grad and w.grad_fn is None
        assert w._version == 2
        np.testing.assert_allclose(w.detach().numpy(), [1.6, 3.2, 4.8], rtol=1e-6)


def test_augmented_assignment_keeps_the_object():
    x = cr.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    ident = id(y)
    y += 1
    y -= 0.5
    y *= 2
    y /= 4
    y **= 2
    assert id(y) == ident and y.grad_fn.name() == "PowBackward0"
    i = cr.tensor([5, 6, 7])
    ident = id(i)
    i //= 2
    i %= 2
    i &= 1
    i |= 2
    i ^= 1
    assert id(i) == ident and i.tolist() == [3, 2, 2]  # [2 3 3] [0 1 1] [0 1 1] [2 3 3]


def test_integer_and_bool_augmented_assignment_match_torch():
    def ints(L, a, b):
        a = a.clone()
        a += b
        a -= 1
        a *= b
        a //= 2
        a %= 5
        a **= 2
        a &= 6
        a |= 1
        a ^= b
        return a

    check(ints, np.array([[3, -2, 0], [7, -5, 1]]), np.array([2, 3, 4]))

    def bools(L, a, b):
        a = a.clone()
        a &= b
        a |= ~b
        a ^= True
        return a

    check(bools, np.array([True, False, True]), np.array([False, False, True]))


@pytest.mark.parametrize(
    "fn, inputs",
    [
        (lambda L, a: a.add_(1.5), (np.array([1, 2]),)),  # Float can't be cast to Long
        (lambda L, a: a.exp_(), (np.array([1, 2]),)),
        (lambda L, a: _itruediv(a, 2), (np.array([1, 2]),)),
        (lambda L, a: a.mul_(L.ones(2, 3)), (NoGrad(np.ones(3)),)),  # doesn't broadcast to a
        (lambda L, a: a.add_(L.ones(2, dtype=L.float64)), (np.array([True, False]),)),
        (lambda L, a: a.float_power_(2), (NoGrad(np.ones(3, dtype=np.float32)),)),
        (lambda L, a: a.sub_(True), (NoGrad(np.ones(3)),)),
    ],
)
def test_inplace_errors_as_torch(fn, inputs):
    assert check_raises(fn, *inputs) is RuntimeError


def test_inplace_dtype_results_match_torch():
    def fn(L, a, f):
        a = a.clone()
        a.add_(True)  # int += bool stays int
        a.mul_(3)
        b = f.clone()
        b.add_(a)  # float += int stays float
        b.lt_(2)  # a comparison written as 1.0 / 0.0
        c = a.clone()
        c.eq_(4.0)  # int compared with a float, written as 1 / 0
        return b + c

    check(fn, np.array([1, 2, 3]), NoGrad(np.array([0.5, 4.0, -1.0], dtype=np.float32)))


# ----- in-place ops on leaves (the engine's scenarios) ------------------------------------


LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."


def test_in_place_on_leaves_under_no_grad():
    def f(L):
        w = L.tensor([1.0, 2.0], requires_grad=True)
        (w * w).sum().backward()
        with L.no_grad():
            w.add_(1)
            w.sub_(0.5)
            w.mul_(2)
            w.div_(4)
            w -= 0.1 * w.grad
            w += 1
            w *= 3
            w /= 2
        return w, w.is_leaf, w.requires_grad, w.grad_fn

    compare(f)


def test_tutorial_weight_update():
    def f(L):
        w = L.tensor([1.0, -2.0], requires_grad=True)
        b = L.tensor(0.5, requires_grad=True)
        xs = L.tensor([[1.0, 2.0], [3.0, 4.0], [-1.0, 0.5]])
        ys = L.tensor([1.0, 0.0, 2.0])
        lr = 0.05
        losses = []
        for _ in range(8):
            loss = ((xs @ w + b - ys) ** 2).mean()
            loss.backward()
            with L.no_grad():
                w -= lr * w.grad
                b -= lr * b.grad
                w.grad.zero_()
                b.grad = None
            losses.append(loss.item())
        return w, b, losses

    c, t = both(f)
    assert_close(c[:2], t[:2])
    np.testing.assert_allclose(c[2], t[2], rtol=1e-6)
    assert c[2][-1] < c[2][0]


@pytest.mark.parametrize(
    "op",
    [
        lambda t: t.add_(1),
        lambda t: t.sub_(1),
        lambda t: t.mul_(2),
        lambda t: t.div_(2),
        lambda t: operator.iadd(t, 1),
        lambda t: operator.isub(t, 1),
        lambda t: operator.imul(t, 2),
        lambda t: operator.itruediv(t, 2),
        lambda t: t.zero_(),
        lambda t: t.fill_(1.0),
    ],
    ids=["add_", "sub_", "mul_", "div_", "iadd", "isub", "imul", "itruediv", "zero_", "fill_"],
)
def test_in_place_on_leaf_requiring_grad_raises(op):
    assert_same_error(lambda L: op(L.tensor([1.0, 2.0], requires_grad=True)))


def test_index_assignment_on_leaf_requiring_grad_raises():
    def f(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        x[0] = 1.0

    assert_same_error(f, LEAF_INPLACE)


# ----- gradients through chains of in-place ops on non-leaves -----------------------------


def _chain_add_mul(L, x, w):
    y = x * 2
    y.add_(1)
    y.mul_(3)
    return y


def _chain_sub_div_add(L, x, w):
    y = x * 2
    y.sub_(1)
    y.div_(4)
    y.add_(x)
    return y


def _chain_augmented(L, x, w):
    y = x * 2
    y += 1
    y -= 3
    y *= 4
    y /= 2
    return y


def _chain_sin_then_mul(L, x, w):
    y = x.sin()
    y.mul_(2)
    return y


def _chain_add_tensor(L, x, w):
    y = x * 1
    y.add_(w)
    y.sub_(w * 0.5)
    return y


def _chain_index_assignment(L, x, w):
    y = x * 2
    y[0] = x[1] * 10
    return y


def _chain_fill(L, x, w):
    y = x * 3
    y.fill_(2)
    return y * x


def _chain_zero(L, x, w):
    y = x * 3
    y.zero_()
    return y + x


def _chain_copy(L, x, w):
    y = L.zeros(2)
    y.copy_(x * 3)
    return y * y


def _chain_mul_tensor(L, x, w):
    y = x * 1
    y.mul_(w)
    return y


def _chain_mul_self_input(L, x, w):
    y = x * 1
    y.mul_(x)
    return y


def _chain_div_tensor(L, x, w):
    y = x * 1
    y.div_(w)
    return y


def _chain_mul_sub_div(L, x, w):
    y = x * 1
    y.mul_(w)
    y.sub_(x)
    y.div_(2)
    return y


IN_PLACE_CHAINS = [
    _chain_add_mul,
    _chain_sub_div_add,
    _chain_augmented,
    _chain_sin_then_mul,
    _chain_add_tensor,
    _chain_index_assignment,
    _chain_fill,
    _chain_zero,
    _chain_copy,
]


IN_PLACE_CHAINS_WITH_GRAD_ARGS = [
    _chain_mul_tensor,
    _chain_mul_self_input,
    _chain_div_tensor,
    _chain_mul_sub_div,
]


def _run_chain(chain):
    def f(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        w = L.tensor([3.0, 5.0], requires_grad=True)
        y = chain(L, x, w)
        y.backward(L.tensor([1.0, 0.5]))
        return y, y.requires_grad, y.is_leaf, x.grad, w.grad

    compare(f)


@pytest.mark.parametrize("chain", IN_PLACE_CHAINS)
def test_gradient_through_in_place_ops(chain):
    _run_chain(chain)


@pytest.mark.parametrize("chain", IN_PLACE_CHAINS_WITH_GRAD_ARGS)
def test_gradient_through_in_place_ops_with_grad_requiring_argument(chain):
    _run_chain(chain)


# ----- in-place arithmetic on non-leaves and leaves (the first ops) -----------------------


def _inplace_fns():
    def add_(lib, x, b):
        y = x * 1.0
        y.add_(b)
        return y

    def sub_(lib, x, b):
        y = x.sin()
        y.sub_(b)
        return y

    def mul_(lib, x, b):
        y = x * 1.0
        y.mul_(b)
        return y

    def div_(lib, x, b):
        y = x * 1.0
        y.div_(b)
        return y

    def iadd(lib, x, b):
        y = x.sin()
        y += b
        return y

    def isub(lib, x, b):
        y = x * 2.0
        y -= b
        return y

    def imul(lib, x, b):
        y = x * 2.0
        y *= b
        return y

    def idiv(lib, x, b):
        y = x * 2.0
        y /= b
        return y

    def chain(lib, x, b):
        y = x * 1.0
        y += b
        y *= 2
        y -= 1.5
        y /= 4
        y.mul_(b)
        y.sub_(x)
        return y

    def add_alpha_(lib, x, b):
        y = x.clone()
        y.add_(b, alpha=3)
        return y

    return {
        f.__name__: f for f in (add_, sub_, mul_, div_, iadd, isub, imul, idiv, chain, add_alpha_)
    }


INPLACE = _inplace_fns()

INPLACE_OPERANDS = {
    "tensor": lambda: nonzero((3, 4), seed=32),
    "broadcast": lambda: nonzero((4,), seed=32),
    "0d": lambda: nonzero((), seed=32),
    "no_grad_tensor": lambda: NoGrad(nonzero((4,), seed=32)),
    "int": lambda: 3,
    "float": lambda: -2.5,
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("operand", list(INPLACE_OPERANDS))
@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_on_nonleaf(name, operand, dtype):
    """In-place ops on a non-leaf are recorded: gradients reach x and the operand."""
    check(INPLACE[name], randn((3, 4), seed=33), INPLACE_OPERANDS[operand](), dtype=dtype)


@pytest.mark.parametrize("operand", ["tensor", "broadcast", "0d", "float"])
@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_on_nonleaf_fd(name, operand):
    check_fd(INPLACE[name], randn((3, 4), seed=33), INPLACE_OPERANDS[operand]())


def test_inplace_operand_of_other_dtype():
    """y (float32) += b (float64): y stays float32, b's grad is float64."""
    x = randn((3, 4), seed=34).astype(np.float32)
    b = nonzero((4,), seed=35)
    for fn in INPLACE.values():
        if fn.__name__ != "add_alpha_":
            check(fn, x, b)


def test_inplace_version_and_grad_fn():
    """After y.add_(b) the result is y itself, with a new grad_fn and a bumped version."""
    for lib in (cr, torch):
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        before = y._version
        out = y.add_(1.0)
        assert out is y
        assert y._version == before + 1
        assert y.grad_fn is not None
        assert y.grad_fn.name() == "AddBackward0"


def _sgd_step(lib, w, g):
    """An optimizer step on a leaf, under no_grad; then the leaf is used again."""
    with lib.no_grad():
        w -= 0.1 * g
        w.add_(g, alpha=0.5)
        w.mul_(0.9)
        w *= 1.1
        w.div_(2.0)
        w /= 0.5
        w += 1
        w.sub_(0.25)
    assert w.is_leaf and w.requires_grad
    return (w * w).sum() * w


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_inplace_on_leaf_under_no_grad(dtype):
    # forward=False: _sgd_step asserts w.requires_grad, which a dual input does not have
    res = check(
        _sgd_step, randn((3,), seed=36), NoGrad(randn((3,), seed=37)), dtype=dtype, forward=False
    )
    assert res.cr_inputs[0].grad_fn is None


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
def test_inplace_on_leaf_under_no_grad_updates_values(dtype):
    def fn(lib, w):
        with lib.no_grad():
            w.add_(lib.ones_like(w))
            w -= 0.5
        return w.clone()

    res = check(fn, randn((2, 2), seed=38), dtype=dtype)
    np.testing.assert_allclose(
        res.cr_inputs[0].detach().numpy(), res.torch_inputs[0].detach().numpy(), rtol=1e-6
    )


INPLACE_RAISES = {
    "leaf_add_": lambda lib, x: x.add_(1.0),
    "leaf_iadd": lambda lib, x: x.__iadd__(1.0),
    "leaf_mul_": lambda lib, x: x.mul_(2),
    "int_iadd_float": lambda lib, x: (x.detach().to(lib.int64)).add_(1.5),
    "int_idiv": lambda lib, x: (x.detach().to(lib.int64)).div_(2),
    "broadcast_self": lambda lib, x: (x * 1)[0:1].add_(x),
    "saved_then_modified": lambda lib, x: _modify_saved(lib, x),
}


def _modify_saved(lib, x):
    y = x.exp()  # exp saves its output
    y.mul_(2)
    y.sum().backward()


@pytest.mark.parametrize("name", list(INPLACE_RAISES))
def test_inplace_raises(name):
    check_raises(INPLACE_RAISES[name], randn((3, 2), seed=39))


# ----- nn.functional's inplace=True --------------------------------------------------------------


def _inplace_functionals() -> list[str]:
    tf = torch.nn.functional
    names = []
    for name in dir(tf):
        fn = getattr(tf, name)
        if name.startswith("_") or not callable(fn):
            continue
        try:
            params = inspect.signature(fn).parameters
        except (TypeError, ValueError):
            continue
        training = params.get("training")
        if training is not None and training.default is True:
            continue  # random by default (the dropouts): tests/nn/functional/test_dropout.py
        if "inplace" in params and hasattr(cr.nn.functional, name):
            names.append(name)
    return sorted(names)


INPLACE_FUNCTIONALS = _inplace_functionals()


def test_every_activation_with_inplace_has_it():
    for name in (
        "relu relu6 leaky_relu elu selu celu silu mish hardtanh hardsigmoid hardswish "
        "threshold rrelu"
    ).split():
        assert name in INPLACE_FUNCTIONALS, name
        assert "inplace" in inspect.signature(getattr(cr.nn.functional, name)).parameters


@pytest.mark.parametrize("name", INPLACE_FUNCTIONALS)
def test_functional_inplace_true_matches_torch(name):
    extra = {"threshold": (0.2, -1.0)}.get(name, ())

    def fn(L, x):
        y = x * 1.5
        out = getattr(L.nn.functional, name)(y, *extra, inplace=True)
        assert out is y
        return y * x

    # PyTorch's float64 hardsigmoid backward multiplies by the float32 constant 1/6f
    rtol = 1e-6 if name == "hardsigmoid" else None
    check(fn, randn((3, 4), 15) * 2, rtol=rtol)
    check(fn, randn((3, 4), 15) * 2, dtype=np.float32)

    def out_of_place(L, x):
        return getattr(L.nn.functional, name)(x * 1.5, *extra, inplace=False) * x

    check(out_of_place, randn((3, 4), 15) * 2, rtol=rtol)


def test_overwritten_values_get_a_zero_gradient_even_from_nan():
    """copy_, fill_, zero_ (and sign, x ** 0) give zeros, not g * 0: a nan never leaks."""
    g = np.array([np.nan, 1.0, np.inf])
    for fn in (
        lambda L, y: y.copy_(L.ones(3, dtype=y.dtype)),
        lambda L, y: y.fill_(2.0),
        lambda L, y: y.zero_(),
        lambda L, y: y.sign(),
        lambda L, y: y**0,
    ):
        grads = []
        for lib in (cr, torch):
            x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
            fn(lib, x * 1).backward(lib.tensor(g))
            grads.append(x.grad.numpy())
        np.testing.assert_array_equal(grads[0], grads[1])
        np.testing.assert_array_equal(grads[0], 0.0)


def test_inplace_cast_error_messages_as_torch():
    for expr in (
        lambda L: L.tensor([1, 2]).add_(1.5),
        lambda L: L.tensor([True]).add_(L.tensor([2])),
        lambda L: L.tensor([1], dtype=L.uint8).mul_(2.5),
        lambda L: L.tensor([1], dtype=L.int16).exp_(),
    ):
        messages = []
        for lib in (cr, torch):
            with pytest.raises(RuntimeError) as info:
                expr(lib)
            messages.append(str(info.value))
        assert messages[0] == messages[1]


@pytest.mark.parametrize(
    "write",
    [
        lambda L, v: v.__setitem__(v < -10, v[v < -10] * 2),
        lambda L, v: v[v < -10].mul_(2),
        lambda L, v: v[:, [0, 2]][2:].zero_(),
        lambda L, v: v[1:1].mul_(2),
    ],
)
def test_in_place_through_a_selection_of_nothing(write):
    """An in-place op on an empty selection is a no-op; a boolean or integer index makes a
    copy even when empty, so no "view's base changed its layout" error."""

    def fn(L, x):
        v = x * 1
        write(L, v)
        return v

    check(fn, randn((2, 3)))
    compare(lambda L: L.ones(1, 3, requires_grad=True)[1:, [0, 2]].zero_())


def test_augmented_assignment_through_an_empty_mask():
    def fn(L, x):
        v = x * 1
        v[v < -10] *= 2
        return v

    check(fn, randn((2, 3)))


def test_increment_version_as_torch():
    # a write autograd cannot see, counted by hand, makes backward refuse the saved value
    def run(lib):
        x = lib.ones(2)
        versions = [x._version]
        lib.autograd.graph.increment_version(x)
        lib.autograd.graph.increment_version([x, x])
        versions.append(x._version)
        a = lib.ones(2, requires_grad=True)
        b = a * 1
        c = b * b
        lib.autograd.graph.increment_version(b)
        with lib.inference_mode():
            i = lib.ones(2)
        lib.autograd.graph.increment_version(i)  # (no version: left alone)
        return (
            versions,
            error_of(lambda L: c.sum().backward(), lib),
            error_of(lambda L: L.autograd.graph.increment_version(3), lib),
        )

    got, want = run(cr), run(torch)
    assert got[0] == want[0] == [0, 3]
    for g, w in zip(got[1:], want[1:]):
        assert (type(g), str(g)) == (type(w), str(w))


def test_set_multithreading_enabled_is_a_context_manager_as_torch():
    for lib in (cr, torch):
        with lib.autograd.set_multithreading_enabled(False):
            x = lib.ones(2, requires_grad=True)
            (x * x).sum().backward()
        lib.autograd.set_multithreading_enabled(True)
        assert x.grad.tolist() == [2.0, 2.0]
