"""``autograd.gradcheck`` and ``gradgradcheck`` against PyTorch's.

Both libraries must pass the same correct functions, reject the same wrong custom
Functions with the same error type and message (PyTorch's ``GradcheckError``, a
``RuntimeError``), and return False instead with ``raise_exception=False``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import error_of

X = [0.3, -0.8, 1.2]
A = [[0.5, -0.2], [0.3, 0.8]]


def _x(lib, values=X):
    return lib.tensor(values, dtype=lib.float64, requires_grad=True)


def _functions(lib):
    """Custom Functions with right and wrong backwards, for one library."""

    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x**2

    class WrongCube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 2 * x**2  # should be 3x²

    class WrongSecondInput(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g * b, g * b  # the second should be g * a

    class FirstOrderOnly(lib.autograd.Function):
        """Right first derivative of sin, but its backward is built from a constant cos."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.detach().cos()  # detached: second derivatives are lost

    class WrongJvp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_forward(x)
            ctx.save_for_backward(x)
            return x**2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

        @staticmethod
        def jvp(ctx, t):
            (x,) = ctx.saved_tensors
            return 3 * x * t  # should be 2x t

    return {
        "wrong_jvp": WrongJvp,
        "cube": Cube,
        "wrong_cube": WrongCube,
        "wrong_second": WrongSecondInput,
        "first_order": FirstOrderOnly,
    }


PASSING = {
    "pointwise": lambda L: L.autograd.gradcheck(lambda a: a.sin() * a.exp(), (_x(L),)),
    "tensor_not_tuple": lambda L: L.autograd.gradcheck(lambda a: a.tanh(), _x(L)),
    "several_outputs": lambda L: L.autograd.gradcheck(
        lambda a, b: (a * b, (a + b).sum()), (_x(L), _x(L, [0.1, 0.2, 0.3]))
    ),
    "non_tensor_argument": lambda L: L.autograd.gradcheck(lambda a, k: (a**k).sum(), (_x(L), 3)),
    "matrix": lambda L: L.autograd.gradcheck(
        lambda m: (m @ m).exp(), (L.tensor(A, dtype=L.float64, requires_grad=True),)
    ),
    "input_without_grad": lambda L: L.autograd.gradcheck(
        lambda a, b: a * b.exp(), (_x(L), L.tensor(X, dtype=L.float64))
    ),
    "custom_function": lambda L: L.autograd.gradcheck(_functions(L)["cube"].apply, (_x(L),)),
    "forward_ad": lambda L: L.autograd.gradcheck(
        lambda a: a.sin() * a, (_x(L),), check_forward_ad=True
    ),
    "gradgradcheck": lambda L: L.autograd.gradgradcheck(lambda a: a.sin() * a**3, (_x(L),)),
    "gradgradcheck_custom": lambda L: L.autograd.gradgradcheck(
        _functions(L)["cube"].apply, (_x(L),)
    ),
    "gradgradcheck_two_inputs": lambda L: L.autograd.gradgradcheck(
        lambda a, b: (a * b).tanh(), (_x(L), _x(L, [0.4, 0.5, -0.6]))
    ),
}


@pytest.mark.parametrize("name", sorted(PASSING))
def test_correct_gradients_pass(name):
    assert PASSING[name](cr) is True
    assert PASSING[name](torch) is True


FAILING = {
    "wrong_backward": lambda L, **kw: L.autograd.gradcheck(
        _functions(L)["wrong_cube"].apply, (_x(L),), **kw
    ),
    "wrong_second_input": lambda L, **kw: L.autograd.gradcheck(
        _functions(L)["wrong_second"].apply, (_x(L), _x(L, [0.5, 0.25, 2.0])), **kw
    ),
    "wrong_jvp": lambda L, **kw: L.autograd.gradcheck(
        _functions(L)["wrong_jvp"].apply, (_x(L),), check_forward_ad=True, **kw
    ),
    "detached_function": lambda L, **kw: L.autograd.gradcheck(
        lambda a: a * a.detach(), (_x(L),), **kw
    ),
    "output_without_graph": lambda L, **kw: L.autograd.gradcheck(
        lambda a: a.detach() * 2, (_x(L),), **kw
    ),
    "second_derivative_lost": lambda L, **kw: L.autograd.gradgradcheck(
        _functions(L)["first_order"].apply, (_x(L),), **kw
    ),
}


@pytest.mark.parametrize("name", sorted(FAILING))
def test_wrong_gradients_raise_gradcheck_error(name):
    ours, theirs = error_of(FAILING[name], cr), error_of(FAILING[name], torch)
    assert type(ours).__name__ == type(theirs).__name__ == "GradcheckError"
    assert isinstance(ours, RuntimeError)
    if name == "second_derivative_lost":  # random grad_outputs: the numbers differ
        assert str(ours).splitlines()[0] == str(theirs).splitlines()[0]
    else:
        assert str(ours) == str(theirs)


@pytest.mark.parametrize("name", sorted(FAILING))
def test_raise_exception_false_returns_false(name):
    assert FAILING[name](cr, raise_exception=False) is False
    assert FAILING[name](torch, raise_exception=False) is False


def test_gradcheck_error_class_is_importable_from_the_module():
    from chainrule.autograd.gradcheck import GradcheckError

    assert issubclass(GradcheckError, RuntimeError)
    with pytest.raises(GradcheckError):
        FAILING["wrong_backward"](cr)


def test_no_input_requiring_grad_raises_like_torch():
    def run(L):
        return error_of(lambda L: L.autograd.gradcheck(lambda a: a.sin(), (L.tensor(X),)), L)

    ours, theirs = run(cr), run(torch)
    assert type(ours) is type(theirs) is ValueError
    assert str(ours) == str(theirs)


def test_float32_input_warns_like_torch():
    def run(L):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            L.autograd.gradcheck(
                lambda a: a * 2, (L.tensor(X, requires_grad=True),), raise_exception=False
            )
        return [str(w.message) for w in caught if issubclass(w.category, UserWarning)]

    assert run(cr) == run(torch)
    assert "double precision" in run(cr)[0]


def test_tolerances_decide():
    """A 1% error in the derivative passes with rtol=0.1 and fails with the default rtol."""

    def run(L, **kw):
        class Off(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2.02

        return L.autograd.gradcheck(Off.apply, (_x(L),), raise_exception=False, **kw)

    for L in (cr, torch):
        assert run(L, rtol=0.1) is True
        assert run(L) is False


def test_gradcheck_leaves_inputs_unchanged():
    x = _x(cr)
    before = x.detach().numpy().copy()
    cr.autograd.gradcheck(lambda a: a.exp(), (x,))
    np.testing.assert_array_equal(x.detach().numpy(), before)
    assert x.grad is None
