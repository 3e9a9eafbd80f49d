"""Custom autograd Functions (``chainrule.autograd.Function``), checked against PyTorch.

Most tests define the same Function subclass against both libraries (``make(lib)``),
run the same code with each and compare values, error messages and graph structure.
The rest check against closed forms (the Legendre polynomial P3 and its derivatives)
or against central finite differences in float64.
"""

from __future__ import annotations

import gc
import math
import re
import subprocess
import sys
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

import chainrule as cr
from chainrule.autograd import Function, FunctionCtx, once_differentiable
from chainrule.autograd.graph import SECOND_BACKWARD
from oracle import assert_close, both

LIBS = (cr, torch)
ROOT = Path(__file__).resolve().parents[2]
X = np.array([-1.5, -0.25, 0.5, 2.0], dtype=np.float32)


def tensor(lib, value: Any, requires_grad: bool = False, dtype: Any = None):
    """``value`` as a tensor of ``lib`` (float32 unless ``dtype``; a fresh copy)."""
    arr = np.array(value, dtype=np.float32 if dtype is None else dtype)
    t = lib.tensor(arr)
    return t.requires_grad_(True) if requires_grad else t


def numpy(t: Any) -> np.ndarray:
    return np.array(t.detach().numpy(), copy=True)


def message(fn: Callable[[], Any], exc: type = RuntimeError) -> str:
    with pytest.raises(exc) as info:
        fn()
    return str(info.value)


def output_nr(t: Any) -> int:
    """Which output of its grad_fn ``t`` is (chainrule's Tensor has no public ``output_nr``)."""
    return t._output_nr if isinstance(t, cr.Tensor) else t.output_nr


def edges(node: Any) -> list:
    """A node's next_functions as (class name or None, output_nr), comparable across libs."""
    return [(None if n is None else type(n).__name__, nr) for n, nr in node.next_functions]


# ----- the Legendre polynomial P3 (PyTorch's tutorial) -------------------------------------


def legendre(lib):
    class LegendrePolynomial3(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return 0.5 * (5 * input**3 - 3 * input)

        @staticmethod
        def backward(ctx, grad_output):
            (input,) = ctx.saved_tensors
            return grad_output * 1.5 * (5 * input**2 - 1)

    return LegendrePolynomial3


def test_legendre_forward_and_backward_are_p3_and_its_derivative() -> None:
    w = np.array([1.0, -2.0, 0.5, 3.0], dtype=np.float32)
    x = tensor(cr, X, requires_grad=True)
    y = legendre(cr).apply(x)
    np.testing.assert_allclose(numpy(y), 0.5 * (5 * X**3 - 3 * X), rtol=1e-6)
    y.backward(tensor(cr, w))
    np.testing.assert_allclose(numpy(x.grad), w * 1.5 * (5 * X**2 - 1), rtol=1e-6)
    assert x.grad.dtype is cr.float32


def test_legendre_matches_torch() -> None:
    def run(lib):
        x = tensor(lib, X, requires_grad=True)
        y = legendre(lib).apply(x * 0.5 + 0.1)
        (y * y).sum().backward()
        return y, x.grad

    got, want = both(run)
    assert_close(got, want)


def test_node_class_name_and_repr_match_torch() -> None:
    got, want = both(lambda lib: legendre(lib).apply(tensor(lib, X, requires_grad=True)))
    assert type(got.grad_fn).__name__ == "LegendrePolynomial3Backward"
    assert got.grad_fn.name() == want.grad_fn.name() == "LegendrePolynomial3Backward"
    assert repr(got) == repr(want)
    assert re.fullmatch(r"<LegendrePolynomial3Backward object at 0x[0-9a-f]+>", repr(got.grad_fn))
    assert isinstance(got.grad_fn, FunctionCtx)
    assert not got.is_leaf and got.requires_grad


def test_ctx_is_the_node_and_its_attributes_stay_readable() -> None:
    seen = []

    class Scale(Function):
        @staticmethod
        def forward(ctx, x, k):
            seen.append(ctx)
            ctx.k = k
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None

    x = tensor(cr, X, requires_grad=True)
    y = Scale.apply(x, 3.0)
    assert seen[0] is y.grad_fn and y.grad_fn.k == 3.0
    y.sum().backward()
    np.testing.assert_array_equal(numpy(x.grad), np.full(4, 3.0, np.float32))
    assert y.grad_fn.k == 3.0  # attributes outlive backward; only saved tensors are freed


# ----- edges and needs_input_grad -------------------------------------------------------------


def mixed(lib, log: list):
    class Mixed(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k, w, z):
            log.append(("forward", ctx.needs_input_grad, lib.is_grad_enabled()))
            return x * k + w * z

        @staticmethod
        def backward(ctx, g):
            log.append(("backward", ctx.needs_input_grad))
            return g * 2, None, g, g

    return Mixed


def test_next_functions_one_edge_per_tensor_input_as_torch() -> None:
    def run(lib):
        log: list = []
        x = tensor(lib, X, requires_grad=True)
        w = tensor(lib, X)  # no grad: (None, 0)
        z = tensor(lib, X, requires_grad=True) * 2  # a non-leaf: its node
        y = mixed(lib, log).apply(x, 3, w, z)
        y.sum().backward()
        return edges(y.grad_fn), log, x.grad

    (got_edges, got_log, got_grad), (want_edges, want_log, want_grad) = both(run)
    assert got_edges == want_edges == [("AccumulateGrad", 0), (None, 0), ("MulBackward0", 0)]
    assert got_log == want_log
    assert got_log == [
        ("forward", (True, False, False, True), False),
        ("backward", (True, False, False, True)),
    ]
    assert_close(got_grad, want_grad)


def test_needs_input_grad_under_no_grad_and_without_grad() -> None:
    def run(lib):
        log: list = []
        fn = mixed(lib, log)
        x = tensor(lib, X, requires_grad=True)
        w = tensor(lib, X)
        with lib.no_grad():
            y = fn.apply(x, 3, w, w)
        z = fn.apply(w, 3, w, w)
        return log, y.requires_grad, y.grad_fn is None, z.requires_grad

    got, want = both(run)
    assert got == want
    assert got[0][0] == ("forward", (True, False, False, False), False)


def test_keyword_arguments_bind_to_forward_positions_as_torch() -> None:
    def run(lib):
        log: list = []

        class K(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, k=2.0, w=None):
                log.append(ctx.needs_input_grad)
                return x * k + w

            @staticmethod
            def backward(ctx, g):
                return g * 2, None, g

        x = tensor(lib, X, requires_grad=True)
        w = tensor(lib, X, requires_grad=True)
        y = K.apply(x, w=w, k=2.0)
        y.sum().backward()
        errors = [message(lambda: K.apply(x, w=w), TypeError)]
        return log, edges(y.grad_fn), x.grad, w.grad, errors

    got, want = both(run)
    assert got[:2] == want[:2] and got[0] == [(True, False, True)]
    assert_close(got[2:4], want[2:4])
    assert got[4] == want[4] == ["forward() missing required argument: 'k' (position 1)"]


# ----- several outputs, non-tensor arguments and outputs ---------------------------------------


def multi(lib, log: list, materialize: bool = True):
    class Multi(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.set_materialize_grads(materialize)
            return x * 2, x * k, 7, (x > 0).long()

        @staticmethod
        def backward(ctx, a, b, c, d):
            log.append((a, b, c, d))
            a = 0 if a is None else a * 2
            b = 0 if b is None else b * ctx.needs_input_grad[0]
            return a + b, None

    return Multi


def test_several_outputs_share_one_node() -> None:
    def run(lib):
        log: list = []
        x = tensor(lib, X, requires_grad=True)
        a, b, c, d = multi(lib, log).apply(x, 3.0)
        (b * 5).sum().backward()
        return (
            a.grad_fn is b.grad_fn,
            [output_nr(t) for t in (a, b)],
            c,
            d.requires_grad,
            d.grad_fn is None,
            str(d.dtype),
            log,
            x.grad,
        )

    got, want = both(run)
    assert got[:6] == want[:6]
    assert got[0] and got[1] == [0, 1] and got[2] == 7
    # backward gets zeros for the unused float output and the int output, None for 7
    assert_close(got[6], want[6])
    assert got[6][0][2] is None and str(got[6][0][3].dtype) == "torch.int64"
    assert_close(got[7], want[7])


def test_several_outputs_with_autograd_grad_and_both_used() -> None:
    def run(lib):
        log: list = []
        x = tensor(lib, X, requires_grad=True)
        a, b, _, _ = multi(lib, log).apply(x, 3.0)
        return lib.autograd.grad((a * b).sum(), x)

    got, want = both(run)
    assert_close(got, want)


def test_non_tensor_output_and_arguments_pass_through() -> None:
    def run(lib):
        class Count(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, n, name):
                return x.sum() * n, f"{name}:{n}"

            @staticmethod
            def backward(ctx, g, g_name):
                assert g_name is None
                return g.expand(4) * 1.0, None, None

        x = tensor(lib, X, requires_grad=True)
        s, label = Count.apply(x, 2, "n")
        s.backward()
        return label, x.grad, edges(s.grad_fn)

    got, want = both(run)
    assert got[0] == want[0] == "n:2" and got[2] == want[2]
    assert_close(got[1], want[1])


def test_apply_without_tensors_just_runs_forward() -> None:
    got, want = both(lambda lib: mixed(lib, []).apply(1.5, 2, 3.0, 4.0))
    assert got == want == 15.0


def test_forward_runs_without_recording() -> None:
    def run(lib):
        inside = []

        class Probe(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x * 2
                inside.append((lib.is_grad_enabled(), y.requires_grad, x.requires_grad))
                return y

            @staticmethod
            def backward(ctx, g):
                return g * 2

        Probe.apply(tensor(lib, X, requires_grad=True))
        return inside

    got, want = both(run)
    assert got == want == [(False, False, True)]


def test_returning_an_input_gives_an_alias() -> None:
    def run(lib):
        class Identity(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 3

        x = tensor(lib, X, requires_grad=True)
        y = Identity.apply(x)
        name = type(y.grad_fn).__name__
        y.sum().backward()
        with lib.no_grad():
            z = Identity.apply(x)
            z.add_(1)  # shares memory and version counter with x
        # y is an alias of x made by a custom Function: its base changed in place, so its
        # custom backward no longer holds and PyTorch forbids reading its grad_fn
        late = message(lambda: y.grad_fn)
        return y is x, name, x.grad, z is x, z.requires_grad, x._version, x, late

    got, want = both(run)
    assert got[:2] == want[:2] == (False, "IdentityBackward")
    assert got[3:6] == want[3:6] == (False, False, 1)
    assert_close(got[2], want[2])
    assert_close(got[6], want[6])
    assert got[7] == want[7]
    assert got[7].startswith("Output 0 of Identity is a view and its base")


# ----- what backward returns --------------------------------------------------------------------


def returning(lib, fn: Callable, n_inputs: int = 1):
    class Returning(lib.autograd.Function):
        @staticmethod
        def forward(ctx, *args):
            return args[0] * 2

        @staticmethod
        def backward(ctx, g):
            return fn(lib, g)

    return Returning


def backward_error(fn: Callable, *extra: Any) -> tuple[str, str]:
    def run(lib):
        x = tensor(lib, X[:2], requires_grad=True)
        return message(lambda: returning(lib, fn).apply(x, *extra).sum().backward())

    return both(run)


def test_wrong_number_of_gradients_error() -> None:
    x = tensor(lib := cr, X[:2], requires_grad=True)
    fn = mixed(lib, [])
    got = message(lambda: returning(cr, lambda lib, g: g).apply(x, x).sum().backward())
    assert (
        got
        == "function ReturningBackward returned an incorrect number of gradients (expected 2, got 1)"
    )
    assert fn  # the class made above is unused; keep ruff quiet about lib
    got, want = backward_error(lambda lib, g: (g, g))
    assert (
        got
        == want
        == (
            "function ReturningBackward returned an incorrect number of gradients (expected 1, got 2)"
        )
    )
    got, want = backward_error(lambda lib, g: g, tensor(cr, [1.0]))
    assert got.replace("(expected 2, got 1)", "") == want.replace("(expected 2, got 1)", "")


def test_extra_none_gradients_are_allowed() -> None:
    def run(lib):
        x = tensor(lib, X, requires_grad=True)
        returning(lib, lambda lib, g: (g * 2, None, None)).apply(x).sum().backward()
        return x.grad

    got, want = both(run)
    assert_close(got, want)


def test_wrong_shape_error_and_broadcast_gradients_are_summed() -> None:
    got, want = backward_error(lambda lib, g: lib.ones(3))
    assert (
        got
        == want
        == (
            "Function ReturningBackward returned an invalid gradient at index 0 - got [3] but "
            "expected shape compatible with [2]"
        )
    )
    got, want = backward_error(lambda lib, g: lib.ones(()))
    assert got == want

    def run(lib):
        x = tensor(lib, X[:2], requires_grad=True)
        returning(lib, lambda lib, g: lib.ones(3, 2, dtype=lib.float64)).apply(x).sum().backward()
        return x.grad

    got, want = both(run)
    assert_close(got, want)  # summed to [3., 3.] and cast to float32


def test_non_tensor_gradient_and_gradient_for_a_non_tensor_errors() -> None:
    got, want = backward_error(lambda lib, g: 1.0)
    assert got == want == "expected Variable or None (got float)"

    def run(lib):
        x = tensor(lib, X[:2], requires_grad=True)
        return message(lambda: returning(lib, lambda lib, g: (g, g)).apply(x, 2).sum().backward())

    got, want = both(run)
    assert (
        got
        == want
        == (
            "function ReturningBackward returned a gradient different than None at position 2, "
            "but the corresponding forward input was not a Variable"
        )
    )


def test_none_gradients_and_gradients_for_inputs_not_requiring_grad() -> None:
    def run(lib):
        x = tensor(lib, X, requires_grad=True)
        w = tensor(lib, X)
        fn = returning(lib, lambda lib, g: (None, g * 5))
        y = fn.apply(x, w)
        unused = lib.autograd.grad(y.sum(), x, allow_unused=True)
        fn2 = returning(lib, lambda lib, g: (g, lib.ones(7)))  # a gradient for w is dropped
        fn2.apply(x, w).sum().backward()
        return unused, x.grad, w.grad

    got, want = both(run)
    assert got[0] == (None,) and want[0] == (None,)
    assert_close(got[1:], want[1:])


# ----- saved tensors ------------------------------------------------------------------------


def saving_output(lib):
    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y

    return Exp


def test_saved_input_modified_in_place_raises() -> None:
    x = tensor(cr, X, requires_grad=True)
    y = legendre(cr).apply(x)
    with cr.no_grad():
        x.add_(1)
    got = message(lambda: y.sum().backward())
    assert got.startswith(
        "one of the variables needed for gradient computation has been modified by an "
        "inplace operation: [torch.FloatTensor [4]]"
    )
    assert "is at version 1; expected version 0 instead" in got


def test_saved_output_modified_in_place_raises() -> None:
    def run(lib):
        x = tensor(lib, X, requires_grad=True)
        y = saving_output(lib).apply(x)
        node = y.grad_fn
        y.mul_(2)
        return message(lambda: node.saved_tensors)

    got, want = both(run)
    head = "one of the variables needed for gradient computation has been modified by an inplace"
    assert got.startswith(head) and want.startswith(head)
    assert "is at version 1; expected version 0 instead" in got


def test_saved_output_is_rebuilt_connected_to_the_node() -> None:
    def run(lib):
        x = tensor(lib, X, requires_grad=True)
        y = saving_output(lib).apply(x)
        (saved,) = y.grad_fn.saved_tensors
        return saved is y, saved.grad_fn is y.grad_fn, saved.requires_grad, saved

    got, want = both(run)
    assert got[:3] == want[:3] == (False, True, True)
    assert_close(got[3], want[3])


def test_save_for_backward_takes_tensors_and_none_only() -> None:
    def run(lib):
        class Saves(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, extra):
                ctx.save_for_backward(x, None, extra)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                x, none, extra = ctx.saved_tensors
                assert none is None
                return g * x, None

        x = tensor(lib, X, requires_grad=True)
        Saves.apply(x, tensor(lib, X)).sum().backward()
        return x.grad, message(lambda: Saves.apply(x, 3), TypeError)

    got, want = both(run)
    assert_close(got[0], want[0])
    assert (
        got[1]
        == want[1]
        == "save_for_backward can only save variables, but argument 2 is of type int"
    )


def test_second_backward_raises_and_retain_graph_allows_it() -> None:
    x = tensor(cr, X, requires_grad=True)
    y = legendre(cr).apply(x)
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    np.testing.assert_allclose(numpy(x.grad), 2 * 1.5 * (5 * X**2 - 1), rtol=1e-6)
    assert message(lambda: y.sum().backward()) == SECOND_BACKWARD
    assert message(lambda: y.grad_fn.saved_tensors) == SECOND_BACKWARD


def test_second_backward_as_torch_when_nothing_was_saved() -> None:
    def run(lib):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        class Peeks(Double):
            @staticmethod
            def backward(ctx, g):
                assert ctx.saved_tensors == ()
                return g * 2

        x = tensor(lib, X, requires_grad=True)
        y = Double.apply(x)
        y.sum().backward()
        y.sum().backward()  # nothing saved, saved_tensors not read: runs again
        z = Peeks.apply(x)
        z.sum().backward()
        return x.grad, message(lambda: z.sum().backward())

    got, want = both(run)
    assert_close(got[0], want[0])
    assert got[1] == want[1] == SECOND_BACKWARD


# ----- mark_dirty, mark_non_differentiable, set_materialize_grads ---------------------------------


def dirty(lib):
    class MulInPlace(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            x.mul_(k)
            ctx.mark_dirty(x)
            ctx.k = k
            return x

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None

    return MulInPlace


def test_mark_dirty_makes_the_input_the_output() -> None:
    def run(lib):
        leaf = tensor(lib, X, requires_grad=True)
        x = leaf * 1.0
        y = dirty(lib).apply(x, 3.0)
        (y * y).sum().backward()
        return y is x, type(x.grad_fn).__name__, x._version, edges(x.grad_fn), y, leaf.grad

    got, want = both(run)
    assert got[:4] == want[:4] == (True, "MulInPlaceBackward", 2, [("MulBackward0", 0)])
    assert_close(got[4:], want[4:])


def test_mark_dirty_errors() -> None:
    def run(lib):
        leaf = tensor(lib, X, requires_grad=True)
        a = message(lambda: dirty(lib).apply(leaf, 2.0))

        class NotReturned(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_dirty(x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        b = message(lambda: NotReturned.apply(leaf * 1))
        return a, b

    got, want = both(run)
    assert got == want
    assert got[0] == "a leaf Variable that requires grad has been used in an in-place operation."


def test_mark_dirty_on_a_tensor_not_requiring_grad() -> None:
    def run(lib):
        class AddInPlace(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                x.add_(y)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g, g

        base = tensor(lib, X)
        w = tensor(lib, X, requires_grad=True)
        out = AddInPlace.apply(base, w)
        out.sum().backward()
        return out is base, base.requires_grad, base.is_leaf, base._version, w.grad

    got, want = both(run)
    assert got[:4] == want[:4] == (True, True, False, 2)
    assert_close(got[4], want[4])


def test_saved_dirty_tensor_is_saved_as_an_output() -> None:
    def run(lib):
        class ExpInPlace(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.exp_() if hasattr(x, "exp_") else x.copy_(x.exp())
                ctx.mark_dirty(x)
                ctx.save_for_backward(x)
                return x

            @staticmethod
            def backward(ctx, g):
                (y,) = ctx.saved_tensors
                return g * y

        leaf = tensor(lib, X, requires_grad=True)
        y = ExpInPlace.apply(leaf * 1)
        (saved,) = y.grad_fn.saved_tensors
        y.sum().backward()
        return saved.grad_fn is y.grad_fn, leaf.grad

    got, want = both(run)
    assert got[0] and want[0]
    assert_close(got[1], want[1])


def test_mark_non_differentiable() -> None:
    def run(lib):
        received = []

        class SortAndIndex(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x * 2
                flags = (x > 0).to(x.dtype)
                ctx.mark_non_differentiable(flags)
                return y, flags

            @staticmethod
            def backward(ctx, g, g_flags):
                received.append(g_flags)
                return g * 2

        x = tensor(lib, X, requires_grad=True)
        y, flags = SortAndIndex.apply(x)
        y.sum().backward()
        return flags.requires_grad, flags.grad_fn is None, y.requires_grad, received, x.grad

    got, want = both(run)
    assert got[:3] == want[:3] == (False, True, True)
    assert_close(got[3:], want[3:])  # zeros for the non-differentiable output


def test_set_materialize_grads_false_passes_none() -> None:
    def run(lib):
        log: list = []
        x = tensor(lib, X, requires_grad=True)
        a, b, _, _ = multi(lib, log, materialize=False).apply(x, 3.0)
        b.sum().backward()
        return log, x.grad

    got, want = both(run)
    assert got[0][0][0] is None and want[0][0][0] is None
    assert got[0][0][2] is None and got[0][0][3] is None
    assert_close(got, want)


# ----- once_differentiable ---------------------------------------------------------------------


def once(lib):
    from_module = sys.modules[lib.autograd.Function.__module__].once_differentiable

    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**2

        @staticmethod
        @from_module
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            ctx.recorded = lib.is_grad_enabled()
            return 2 * x * g

    return Square


def test_once_differentiable_backward_runs_without_recording() -> None:
    def run(lib):
        x = tensor(lib, X, requires_grad=True)
        y = once(lib).apply(x)
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        return y.grad_fn.recorded, g.requires_grad, g

    got, want = both(run)
    assert got[:2] == want[:2] == (False, False)
    assert_close(got[2], want[2])


def test_once_differentiable_double_backward_raises() -> None:
    def run(lib):
        x = tensor(lib, X, requires_grad=True)
        v = tensor(lib, np.ones(4), requires_grad=True)
        (g,) = lib.autograd.grad(once(lib).apply(x), x, v, create_graph=True)
        return g.requires_grad, g.grad_fn.name(), g, message(lambda: g.sum().backward())

    got, want = both(run)
    assert got[:2] == want[:2] == (True, "torch::autograd::Error")
    assert_close(got[2], want[2])
    assert (
        got[3]
        == want[3]
        == ("trying to differentiate twice a function that was marked with @once_differentiable")
    )
    assert once_differentiable is sys.modules["chainrule.autograd.function"].once_differentiable


# ----- setup_context style ------------------------------------------------------------------


def setup_style(lib, log: list):
    class ScaleAndShift(lib.autograd.Function):
        @staticmethod
        def forward(x, k, shift=1.0):
            log.append(("forward", lib.is_grad_enabled()))
            return x * k, x + shift

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, k, shift = inputs
            log.append(("setup", len(inputs), shift, type(output).__name__, ctx.needs_input_grad))
            ctx.k = k
            ctx.save_for_backward(x, output[0])

        @staticmethod
        def backward(ctx, g1, g2):
            x, y1 = ctx.saved_tensors
            log.append(("backward", y1.grad_fn is ctx))
            return g1 * ctx.k + g2, None, None

    return ScaleAndShift


def test_setup_context_style() -> None:
    def run(lib):
        log: list = []
        x = tensor(lib, X, requires_grad=True)
        y1, y2 = setup_style(lib, log).apply(x, 3.0)
        (y1 * y2).sum().backward()
        return log, edges(y1.grad_fn), y1, y2, x.grad

    got, want = both(run)
    assert got[:2] == want[:2]
    assert got[0] == [
        ("forward", False),
        ("setup", 3, 1.0, "tuple", (True, False, False)),
        ("backward", True),
    ]
    assert_close(got[2:], want[2:])


# ----- double backward ------------------------------------------------------------------------


def test_double_backward_is_the_second_derivative() -> None:
    x64 = X.astype(np.float64)
    x = tensor(cr, x64, requires_grad=True, dtype=np.float64)
    y = legendre(cr).apply(x)
    (g,) = cr.autograd.grad(y.sum(), x, create_graph=True)
    np.testing.assert_allclose(numpy(g), 1.5 * (5 * x64**2 - 1), rtol=1e-12)
    (h,) = cr.autograd.grad(g.sum(), x, create_graph=True)
    np.testing.assert_allclose(numpy(h), 15 * x64, rtol=1e-12)  # P3'' = 15x
    (t,) = cr.autograd.grad(h.sum(), x)
    np.testing.assert_allclose(numpy(t), np.full(4, 15.0), rtol=1e-12)  # P3''' = 15


def test_double_backward_through_a_saved_output_matches_torch() -> None:
    def run(lib):
        x = tensor(lib, X, requires_grad=True)
        y = saving_output(lib).apply(x * 0.5)
        (g,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        (h,) = lib.autograd.grad(g.sum(), x)
        return g, h

    got, want = both(run)
    assert_close(got, want, rtol=1e-5)
    x = X * 0.5
    np.testing.assert_allclose(
        numpy(got[1]), np.exp(2 * x), rtol=1e-5
    )  # d²/dx² e^{2x/2}/... as 0.5²·4e^{x}


def test_backward_grad_mode_follows_create_graph() -> None:
    modes = []

    class Probe(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            modes.append((cr.is_grad_enabled(), type(g) is cr.Tensor))
            return g * 2

    x = tensor(cr, X, requires_grad=True)
    cr.autograd.grad(Probe.apply(x).sum(), x)
    cr.autograd.grad(Probe.apply(x).sum(), x, create_graph=True)
    assert modes == [(False, True), (True, True)]


# ----- finite differences ---------------------------------------------------------------------


class Bilinear(Function):
    """f(x, w, k) = sin(x) * w + k * x², with w broadcast over x's rows."""

    @staticmethod
    def forward(ctx, x, w, k):
        ctx.save_for_backward(x, w)
        ctx.k = k
        return x.sin() * w + k * x * x

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        gx = g * (x.cos() * w + 2 * ctx.k * x)
        gw = g * x.sin()  # broadcast shape: the node sums it down to w's
        return gx, gw, None


def finite_differences(f: Callable[[list], float], arrays: list, eps: float = 1e-6) -> list:
    """Central differences of the scalar ``f`` with respect to every element of ``arrays``."""
    grads = []
    for a in arrays:
        g = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            old = a[i]
            a[i] = old + eps
            hi = f(arrays)
            a[i] = old - eps
            lo = f(arrays)
            a[i] = old
            g[i] = (hi - lo) / (2 * eps)
        grads.append(g)
    return grads


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gradients_match_finite_differences_in_float64(seed: int) -> None:
    rng = np.random.default_rng(seed)
    xs = [rng.standard_normal((3, 4)), rng.standard_normal(4)]
    v = rng.standard_normal((3, 4))

    def f(arrays: list) -> float:
        x, w = (cr.tensor(a) for a in arrays)
        return float((Bilinear.apply(x, w, 0.7) * cr.tensor(v)).sum())

    x = cr.tensor(xs[0], requires_grad=True)
    w = cr.tensor(xs[1], requires_grad=True)
    (Bilinear.apply(x, w, 0.7) * cr.tensor(v)).sum().backward()
    assert x.grad.dtype is cr.float64 and tuple(w.grad.shape) == (4,)
    fx, fw = finite_differences(f, [a.copy() for a in xs])
    np.testing.assert_allclose(numpy(x.grad), fx, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(numpy(w.grad), fw, rtol=1e-6, atol=1e-8)


def test_second_derivative_matches_finite_differences() -> None:
    xs = np.array([-0.7, 0.2, 1.3])

    def first(x: np.ndarray) -> np.ndarray:
        t = cr.tensor(x, requires_grad=True)
        (g,) = cr.autograd.grad(Bilinear.apply(t, cr.tensor(2.0), 0.5).sum(), t)
        return numpy(g)

    t = cr.tensor(xs, requires_grad=True)
    (g,) = cr.autograd.grad(Bilinear.apply(t, cr.tensor(2.0), 0.5).sum(), t, create_graph=True)
    (h,) = cr.autograd.grad(g.sum(), t)
    eps = 1e-6
    fd = (first(xs + eps) - first(xs - eps)) / (2 * eps)  # elementwise f: the Hessian diagonal
    np.testing.assert_allclose(numpy(h), fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(numpy(h), -np.sin(xs) * 2 + 2 * 0.5, rtol=1e-12)


# ----- hooks ---------------------------------------------------------------------------------


def test_hooks_and_retain_grad_on_outputs() -> None:
    def run(lib):
        calls = []
        x = tensor(lib, X, requires_grad=True)
        y = legendre(lib).apply(x)
        y.retain_grad()
        y.register_hook(lambda g: g * 10)
        y.grad_fn.register_hook(lambda gi, go: calls.append((gi, go)))
        y.grad_fn.register_prehook(lambda go: calls.append(go))
        y.sum().backward()
        return x.grad, y.grad, calls

    got, want = both(run)
    assert_close(got, want)


# ----- forward mode ------------------------------------------------------------------------


def test_jvp_in_forward_mode_matches_torch() -> None:
    def run(lib):
        fwad = sys.modules[lib.__name__ + ".autograd.forward_ad"]
        base = legendre(lib)

        class WithJvp(base):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_forward(x)
                return 0.5 * (5 * x**3 - 3 * x)

            @staticmethod
            def jvp(ctx, t):
                (x,) = ctx.saved_tensors
                return t * 1.5 * (5 * x**2 - 1)

        with fwad.dual_level():
            x = fwad.make_dual(tensor(lib, X), tensor(lib, [1.0, 2.0, -1.0, 0.5]))
            out = fwad.unpack_dual(WithJvp.apply(x))
            error = message(lambda: base.apply(x), NotImplementedError)
        return out.primal, out.tangent, error

    import torch.autograd.forward_ad  # noqa: F401

    import chainrule.autograd.forward_ad  # noqa: F401

    got, want = both(run)
    assert_close(got[:2], want[:2])
    assert got[2] == want[2]


# ----- errors of the class itself -------------------------------------------------------------


def test_missing_forward_or_backward_and_instances() -> None:
    def run(lib):
        class NoBackward(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

        class NoForward(lib.autograd.Function):
            pass

        x = tensor(lib, X, requires_grad=True)
        a = message(lambda: NoBackward.apply(x).sum().backward(), NotImplementedError)
        b = message(lambda: NoForward.apply(x), NotImplementedError)
        with pytest.warns(DeprecationWarning):
            instance = NoBackward()
        c = message(lambda: instance(x))
        return a, b, c

    got, want = both(run)
    assert got == want


def test_backward_and_vjp_together_are_refused() -> None:
    class Both(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def vjp(ctx, g):
            return g * 2

    class OnlyVjp(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def vjp(ctx, g):
            return g * 4

    x = tensor(cr, X, requires_grad=True)
    assert "Implementing both 'backward' and 'vjp'" in message(
        lambda: Both.apply(x).sum().backward()
    )
    OnlyVjp.apply(x).sum().backward()
    np.testing.assert_array_equal(numpy(x.grad), np.full(4, 4.0, np.float32))


# ----- no reference cycles ------------------------------------------------------------------


def _setup_output(x):
    return setup_style(cr, [])(x, 2.0)[0]


@pytest.mark.parametrize(
    "make",
    [
        lambda x: legendre(cr).apply(x),
        lambda x: saving_output(cr).apply(x),
        lambda x: dirty(cr).apply(x * 1, 2.0),
        lambda x: multi(cr, []).apply(x, 2.0)[1],
        lambda x: setup_style(cr, []).apply(x, 2.0)[0],
        lambda x: once(cr).apply(x),
    ],
    ids=["saves-input", "saves-output", "mark-dirty", "several-outputs", "setup-context", "once"],
)
def test_no_reference_cycles(make: Callable) -> None:
    x = tensor(cr, X, requires_grad=True)
    gc.collect()
    gc.disable()
    try:
        y = make(x)
        node = weakref.ref(y.grad_fn)
        ctx_cls = type(y.grad_fn)
        del y
        assert node() is None, "the node outlived its output: a reference cycle"
        y = make(x)
        node = weakref.ref(y.grad_fn)
        (y * y).sum().backward(retain_graph=True)
        del y
        assert node() is None
        assert ctx_cls.__name__.endswith("Backward")
    finally:
        gc.enable()


# ----- the tutorial script under both libraries -----------------------------------------------


def _losses(stdout: str) -> tuple[list, list]:
    steps, losses = [], []
    for line in stdout.splitlines():
        if line.startswith("Result"):
            continue
        t, loss = line.split()
        steps.append(int(t))
        losses.append(float(loss))
    return steps, losses


def _result(stdout: str) -> list[float]:
    line = stdout.splitlines()[-1]
    nums = re.fullmatch(r"Result: y = (\S+) \+ (\S+) \* P3\((\S+) \+ (\S+) x\)", line)
    assert nums, line
    return [float(v) for v in nums.groups()]


def test_legendre_example_prints_torchs_losses() -> None:
    script = str(ROOT / "examples" / "legendre.py")
    runs = [
        subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
        for cmd in ([sys.executable, script], [sys.executable, "-m", "chainrule", "run", script])
    ]
    for proc in runs:
        assert proc.returncode == 0, proc.stderr
    (want_steps, want), (got_steps, got) = (_losses(p.stdout) for p in runs)
    assert got_steps == want_steps == list(range(99, 2000, 100))
    np.testing.assert_allclose(got, want, rtol=1e-4)
    assert want[-1] < want[0] / 10  # it does fit
    a, b, c, d = _result(runs[1].stdout)
    ta, tb, tc, td = _result(runs[0].stdout)
    np.testing.assert_allclose([b, d], [tb, td], rtol=1e-4)
    np.testing.assert_allclose([a, c], [ta, tc], atol=1e-6)
    assert math.isfinite(a + b + c + d)
