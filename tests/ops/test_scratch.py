"""An expression's temporary reused by the forward (ops/_scratch.py ``reusable``): a one-input
ufunc op whose derivative reads its output writes into its input's memory only when nothing
else can reach that input; every other holder leaves the input as it was. The same values,
gradients and node names as the general path, and as PyTorch."""

from __future__ import annotations

import sys
import tracemalloc
import weakref

import numpy as np
import pytest

import chainrule as cr
from chainrule.ops import _scratch
from oracle import compare

N = 1 << 17  # float32: 512 KiB, above _scratch.MIN_BYTES
SMALL = 1 << 10


def _x(n: int = N, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(n).astype(np.float32)


def test_the_probe_reads_cpythons_count():
    """CPython hands an expression's value to the called function: the parameter and
    getrefcount's argument alone (a named one reads one more)."""
    assert sys.implementation.name == "cpython"
    assert _scratch.TEMPORARY == 2


def test_ops_that_may_reuse_their_input():
    """Only ufuncs whose VJP and JVP read the output: sin (its VJP reads x) and abs are not."""
    names = {op.name for op in (cr.ops.unary.tanh, cr.ops.unary.exp, cr.ops.unary.sin)}
    assert names == {"tanh", "exp", "sin"}
    assert _scratch.reusable_ufunc(cr.ops.unary.tanh) is not None
    assert _scratch.reusable_ufunc(cr.ops.unary.exp) is not None
    assert _scratch.reusable_ufunc(cr.ops.unary.sin) is None
    assert _scratch.reusable_ufunc(cr.ops.unary.abs) is None


def _peak(fn) -> float:
    """Peak memory of ``fn`` in arrays of N float32."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / (4 * N)
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("grad", [True, False], ids=["grad", "no_grad"])
def test_a_temporary_holds_the_output(grad):
    """(x * 2).tanh(): one array of x's size, two if tanh allocated."""
    x = cr.from_numpy(_x()).requires_grad_(grad)
    out = []
    assert _peak(lambda: out.append((x * 2).tanh())) < 1.5
    np.testing.assert_array_equal(out[0].detach().numpy(), np.tanh(_x() * 2))
    assert out[0].requires_grad is grad
    if grad:
        assert out[0].grad_fn.name() == "TanhBackward0"


def test_a_small_temporary_is_not_reused():
    x = cr.from_numpy(_x(SMALL))
    y = (x * 2).tanh()
    np.testing.assert_array_equal(y.numpy(), np.tanh(_x(SMALL) * 2))


def _expression(lib, x):
    return ((x * 2 + 1).tanh() * x).sum()


def test_the_issues_expression_gives_the_general_paths_bits():
    """Reused (the forward's tanh writes into x * 2 + 1) against the general path (each op
    through torch.tanh, whose out= wrapper holds the input: nothing reused)."""
    fast = cr.from_numpy(_x()).requires_grad_()
    y = _expression(cr, fast)
    y.backward()
    plain = cr.from_numpy(_x()).requires_grad_()
    z = (cr.tanh(plain * 2 + 1) * plain).sum()
    z.backward()
    assert y.item() == z.item()
    np.testing.assert_array_equal(fast.grad.numpy(), plain.grad.numpy())


def test_the_issues_expression_matches_torch():
    def run(lib):
        x = lib.from_numpy(_x(seed=1)).requires_grad_()
        y = _expression(lib, x)
        y.backward()
        return y, x.grad

    compare(run, rtol=1e-5, atol=1e-5)


# ----- every other holder of the input leaves it alone ------------------------------------------


def test_a_named_input_is_left_alone():
    x = cr.from_numpy(_x())
    y = x * 2
    y.tanh()
    np.testing.assert_array_equal(y.numpy(), _x() * 2)


def test_inputs_held_by_a_list_or_a_c_caller_are_left_alone():
    x = cr.from_numpy(_x())
    ys = [x * 2, x * 3]
    list(map(cr.Tensor.tanh, ys))
    [y.exp() for y in ys]
    np.testing.assert_array_equal(ys[0].numpy(), _x() * 2)
    np.testing.assert_array_equal(ys[1].numpy(), _x() * 3)


def test_an_input_a_bound_method_holds_is_left_alone():
    x = cr.from_numpy(_x())
    method = (x * 2).tanh
    method()
    np.testing.assert_array_equal(method.__self__.numpy(), _x() * 2)


def test_a_leaf_its_node_keeps_is_left_alone():
    """A temporary leaf that requires grad lives on in its AccumulateGrad."""
    y = cr.from_numpy(_x() * 2).requires_grad_().tanh()
    leaf = y.grad_fn.next_functions[0][0].variable
    np.testing.assert_array_equal(leaf.detach().numpy(), _x() * 2)
    y.sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), 1 - np.tanh(_x() * 2) ** 2, rtol=1e-6)


def test_memory_another_tensor_shares_is_left_alone():
    """x.numpy() shares x's memory: a tensor made from it is a temporary, its array not."""
    x = cr.from_numpy(_x()) * 2
    cr.from_numpy(x.numpy()).tanh()
    np.testing.assert_array_equal(x.numpy(), _x() * 2)


def test_a_view_and_its_base_are_left_alone():
    x = cr.from_numpy(_x()) * 2
    x[: N // 2].tanh()  # the view is a temporary, its memory x's
    np.testing.assert_array_equal(x.numpy(), _x() * 2)
    view = x[: N // 2]
    (view * 1).tanh()
    np.testing.assert_array_equal(view.numpy(), _x()[: N // 2] * 2)


def test_a_weakly_referenced_array_is_left_alone():
    kept = []

    def make():
        a = _x() * 2
        kept.append(weakref.ref(a))
        return a

    y = cr.from_numpy(make()).tanh()
    a = kept[0]()
    assert a is None or np.array_equal(a, _x() * 2)
    np.testing.assert_array_equal(y.numpy(), np.tanh(_x() * 2))


def test_an_output_saved_for_backward_is_left_alone():
    """exp saves its output for its VJP: tanh of it must not write there (the gradient
    would read tanh's values)."""

    def run(lib):
        x = lib.from_numpy(_x(seed=2) * 0.1).requires_grad_()
        y = (x * 2).exp().tanh()
        y.sum().backward()
        return y, x.grad

    compare(run, rtol=1e-5, atol=1e-6)


def test_an_op_that_reads_its_input_does_not_reuse_it():
    """sin's VJP reads x: sin of a temporary allocates, and the gradient is cos(2x) * 2."""

    def run(lib):
        x = lib.from_numpy(_x(seed=3)).requires_grad_()
        y = (x * 2).sin()
        y.sum().backward()
        return y, x.grad

    compare(run, rtol=1e-5, atol=1e-6)


def test_forward_mode_tangents_are_kept():
    """Under forward mode nothing is reused; the tangent of tanh(2x) is 2(1 - tanh²(2x))."""
    import chainrule.autograd.forward_ad as fwad

    x_np = _x(seed=4)
    with fwad.dual_level():
        x = fwad.make_dual(cr.from_numpy(x_np), cr.ones(N))
        y = (x * 2).tanh()
        tangent = fwad.unpack_dual(y).tangent
    want = 2 * (1 - np.tanh(x_np * 2) ** 2)
    np.testing.assert_allclose(tangent.numpy(), want, rtol=1e-5, atol=1e-6)
