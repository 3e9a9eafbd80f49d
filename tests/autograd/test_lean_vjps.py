"""The VJPs' fast paths, pinned to the general paths they shortcut and to PyTorch: a
weight's gradient computed in the weight's own layout (no copy into ``.grad``), gradients
kept as ``.grad`` without a copy only when nothing else can reach their memory, sum_to
owning its result, and nll_loss without weights (no per-sample weights built)."""

from __future__ import annotations

import numpy as np
import pytest

import chainrule as cr
from chainrule.ops import shapes
from oracle import compare, values

# ----- a weight's gradient in its own layout ------------------------------------------------


def _linear_net(lib, bias: bool):
    r = np.random.default_rng(0)
    w = lib.tensor(r.standard_normal((5, 7)), requires_grad=True)
    b = lib.tensor(r.standard_normal(5), requires_grad=True) if bias else None
    x = lib.tensor(r.standard_normal((4, 7)), requires_grad=True)
    return w, b, x


@pytest.mark.parametrize("bias", [True, False], ids=["addmm", "matmul"])
def test_linear_weight_grad_is_contiguous_and_matches_torch(bias):
    def run(lib):
        w, b, x = _linear_net(lib, bias)
        lib.nn.functional.linear(x, w, b).pow(2).sum().backward()
        assert w.grad.is_contiguous() and x.grad.is_contiguous()
        assert w.grad.view(-1).shape == (35,)  # PyTorch's layout: .view(-1) works
        return w.grad, x.grad, None if b is None else b.grad

    compare(run)


@pytest.mark.parametrize("bias", [True, False], ids=["addmm", "matmul"])
def test_weight_grad_layout_path_equals_the_plain_product(bias):
    """The product computed transposed (arrays) against the plain one (tensors, which
    create_graph=True runs), and the first-order result of either against PyTorch."""
    w, b, x = _linear_net(cr, bias)
    y = cr.nn.functional.linear(x, w, b)
    g = cr.tensor(values("any", (4, 5), 3))
    fast = cr.autograd.grad(y, (w, x), g, retain_graph=True)
    plain = cr.autograd.grad(y, (w, x), g, create_graph=True)
    for f, p in zip(fast, plain):
        np.testing.assert_allclose(f.numpy(), p.detach().numpy(), rtol=1e-13, atol=1e-13)
    assert [n.name() for n in (y.grad_fn, y.grad_fn.next_functions[-1][0])] == [
        "AddmmBackward0" if bias else "MmBackward0",
        "TBackward0",
    ]


def test_mm_of_a_transposed_input_gives_its_layout_back():
    """d/dA of A @ B with A stored transposed: the gradient of A.t()'s base comes out
    contiguous, as for B."""

    def run(lib):
        r = np.random.default_rng(1)
        a = lib.tensor(r.standard_normal((6, 3)), requires_grad=True)
        b = lib.tensor(r.standard_normal((6, 4)), requires_grad=True)
        lib.mm(a.t(), b).sum().backward()
        assert a.grad.is_contiguous() and b.grad.is_contiguous()
        return a.grad, b.grad

    compare(run)


@pytest.mark.parametrize("beta, alpha", [(1, 1), (0.5, 2.0), (0, 1), (1, -3)])
def test_addmm_alpha_beta_one_and_other_values_match_torch(beta, alpha):
    def run(lib):
        r = np.random.default_rng(2)
        m = lib.tensor(r.standard_normal((3, 4)), requires_grad=True)
        a = lib.tensor(r.standard_normal((3, 5)), requires_grad=True)
        w = lib.tensor(r.standard_normal((4, 5)), requires_grad=True)
        out = lib.addmm(m, a, w.t(), beta=beta, alpha=alpha)
        out.backward(lib.tensor(r.standard_normal((3, 4))))
        return out, m.grad, a.grad, w.grad

    compare(run)


# ----- gradients stored without a copy only when unshared -----------------------------------


def test_grad_from_a_view_of_a_users_tensor_is_copied():
    """x.t()'s backward hands a transposed view of the caller's gradient on; .grad must not
    alias it (a later write into the caller's tensor leaves .grad alone)."""
    x = cr.zeros(3, 2, dtype=cr.float64, requires_grad=True)
    g = cr.tensor(values("any", (2, 3), 4))  # float64: no cast, the view itself arrives
    x.t().backward(g)
    before = x.grad.numpy().copy()
    np.testing.assert_array_equal(before, g.numpy().T)
    g.add_(1.0)
    np.testing.assert_array_equal(x.grad.numpy(), before)


def test_grad_from_a_view_of_a_private_product_is_kept():
    """A linear layer's weight gradient is a transposed view of a fresh product nothing else
    holds: stored as .grad as it is, and accumulating into it on a second backward."""
    w, b, x = _linear_net(cr, True)
    cr.nn.functional.linear(x, w, b).sum().backward()
    # kept, not copied: a copy would own its memory (the engine's hand-off to the weight's
    # TBackward0 must not keep the product's transposed view alive: that read as shared)
    assert not w.grad.numpy().flags.owndata
    first = w.grad.numpy().copy()
    cr.nn.functional.linear(x, w, b).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * first, rtol=1e-15)
    assert w.grad.is_contiguous()


def test_same_gradient_to_two_leaves_is_not_shared():
    """add's VJP hands one array to both inputs: each .grad is its own memory."""
    a = cr.zeros(3, requires_grad=True)
    b = cr.zeros(3, requires_grad=True)
    (a + b).t().backward(cr.ones(3))
    a.grad.add_(1.0)
    np.testing.assert_array_equal(b.grad.numpy(), np.ones(3, np.float32))


# ----- sum_to -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shape, to",
    [((4, 3), (3,)), ((4, 3), (1, 3)), ((4, 3), (4, 1)), ((2, 4, 3), (4, 1)), ((4, 3), ())],
)
def test_sum_to_owns_its_result_and_sums_as_numpy(shape, to):
    x = values("any", shape, 5)
    got = shapes._sum_to(x, to)
    lead = len(shape) - len(to)
    want = x.sum(axis=tuple(range(lead))).reshape(shape[lead:])
    want = want.sum(axis=tuple(i for i, s in enumerate(to) if s == 1), keepdims=True)
    assert np.asarray(got).shape == to
    np.testing.assert_allclose(np.asarray(got), want.reshape(to), rtol=1e-15)
    if isinstance(got, np.ndarray) and (lead == 0 or all(s != 1 for s in to)):
        assert got.flags.owndata


def test_bias_grad_matches_torch_under_broadcasting():
    def run(lib):
        x = lib.tensor(values("any", (2, 4, 3), 6), requires_grad=True)
        b = lib.tensor(values("any", (4, 1), 7), requires_grad=True)
        c = lib.tensor(values("any", (3,), 8), requires_grad=True)
        ((x + b) * c).sum().backward()
        return b.grad, c.grad

    compare(run)


# ----- nll_loss without weights -----------------------------------------------------------------


def _nll_case(lib, shape, reduction, ignore, weighted):
    r = np.random.default_rng(9)
    x = lib.tensor(r.standard_normal(shape), requires_grad=True)
    classes = shape[1] if len(shape) > 1 else shape[0]
    t = r.integers(0, classes, shape[:1] if len(shape) > 1 else ())
    if ignore and t.size > 1:
        t[1] = -100
    kw = {"weight": lib.ones(classes, dtype=x.dtype)} if weighted else {}
    loss = lib.nn.functional.nll_loss(x, lib.tensor(t), reduction=reduction, **kw)
    g = lib.ones_like(loss) * 0.5
    loss.backward(g)
    return loss, x.grad


@pytest.mark.parametrize("ignore", [False, True], ids=["all", "ignored"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", [(6, 4), (4,), (0, 3)], ids=["batch", "one", "empty"])
def test_nll_loss_without_weights_matches_weights_of_one_and_torch(shape, reduction, ignore):
    """Without weights and with no target ignored, no per-sample weights are built: the
    same values as weights of one (the general path) and as PyTorch."""
    compare(lambda lib: _nll_case(lib, shape, reduction, ignore, False))
    plain = _nll_case(cr, shape, reduction, ignore, False)
    weighted = _nll_case(cr, shape, reduction, ignore, True)
    for p, w in zip(plain, weighted):
        np.testing.assert_array_equal(p.detach().numpy(), w.detach().numpy())


def test_nll_loss_out_of_range_target_is_torchs_error():
    x = cr.zeros(3, 4)
    for bad in (4, -1):
        with pytest.raises(IndexError, match=f"Target {bad} is out of bounds."):
            cr.nn.functional.nll_loss(x, cr.tensor([0, bad, 1]))
    assert cr.nn.functional.nll_loss(x, cr.tensor([0, -100, 1])).item() == 0.0


def test_cross_entropy_hvp_matches_torch():
    """Second order through linear, relu, log_softmax and nll: the MLP's Hessian-vector
    product, against PyTorch."""

    def run(lib):
        r = np.random.default_rng(10)
        x = lib.tensor(r.standard_normal((5, 6)))
        t = lib.tensor(r.integers(0, 3, 5))
        w1 = lib.tensor(r.standard_normal((4, 6)), requires_grad=True)
        b1 = lib.tensor(r.standard_normal(4), requires_grad=True)
        w2 = lib.tensor(r.standard_normal((3, 4)), requires_grad=True)
        params = (w1, b1, w2)
        F = lib.nn.functional
        loss = F.cross_entropy(F.linear(F.relu(F.linear(x, w1, b1)), w2), t)
        grads = lib.autograd.grad(loss, params, create_graph=True)
        dot = sum((g * lib.ones_like(g)).sum() for g in grads)
        return lib.autograd.grad(dot, params)

    compare(run, rtol=1e-10, atol=1e-12)


# ----- VJPs writing into a private output gradient (ops/_scratch.py) --------------------------


def _expression(lib, x):
    """The issue's 4M-element expression: tanh's and mul-by-a-number's VJPs write into the
    gradient they are handed."""
    return ((x * 2 + 1).tanh() * x).sum()


def test_private_gradients_are_written_into_peak_memory():
    """tanh's VJP writes into its private gradient: at most four arrays of x's size alive at
    once (x itself not counted; five if it allocated, or if a node kept its saved inputs
    after running). Fails if the VJPs stop finding their gradients private (a change in how
    the engine hands them over: _scratch.PRIVATE_REFS). (x * 2's gradient is seen with one
    more reference through the engine's one-edge hand-off and is not written into:
    hand-written NumPy's three arrays are not reached yet.)"""
    import tracemalloc

    n = 1 << 18
    x_np = np.random.default_rng(11).standard_normal(n).astype(np.float32)
    x = cr.from_numpy(x_np).requires_grad_()
    tracemalloc.start()
    try:
        _expression(cr, x).backward()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4.5 * x_np.nbytes
    c = np.tanh(x_np * 2 + 1)
    np.testing.assert_allclose(x.grad.numpy(), c + x_np * (1 - c * c) * 2, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("shape", [(3, 50), (3, 200)], ids=["small", "lent"])
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_in_place_vjps_give_the_general_paths_bits(dt, shape):
    """The same bits whether the VJPs write into g (backward) or compute as written (the
    tensors of create_graph=True); from 256 elements mul's VJPs lend x and the tanh's output
    (ops/_scratch.py)."""
    x_np = values("any", shape, 12).astype(dt)
    fast = cr.from_numpy(x_np.copy()).requires_grad_()
    _expression(cr, fast).backward()
    plain = cr.from_numpy(x_np.copy()).requires_grad_()
    (got,) = cr.autograd.grad(_expression(cr, plain), plain, create_graph=True)
    np.testing.assert_array_equal(fast.grad.numpy(), got.detach().numpy())


SHARED = {
    # add's VJP hands one private array to both tanh nodes: neither may write into it
    "fan-out": lambda lib, x, w: ((x.tanh() + w.tanh()) * 3).sum(),
    "fan-out mul": lambda lib, x, w: ((x * 2.0 + w * 3.0) * 3).sum(),
    # one tensor used twice: two gradients summed into one buffer, then handed on
    "reuse": lambda lib, x, w: ((x.tanh() * 2.0) * (x.tanh() * 0.5) + w).sum(),
}


@pytest.mark.parametrize("case", SHARED)
def test_shared_gradients_are_not_written_into(case):
    def run(lib):
        x = lib.tensor(values("any", (4, 5), 13), requires_grad=True)
        w = lib.tensor(values("any", (4, 5), 14), requires_grad=True)
        SHARED[case](lib, x, w).backward()
        return x.grad, w.grad

    compare(run)


def test_callers_gradient_hooks_and_retained_grads_see_their_own_values():
    def run(lib):
        x = lib.tensor(values("any", (6,), 15), requires_grad=True)
        t = x.tanh()
        t.retain_grad()
        m = t * 2.0
        seen = []
        m.register_hook(lambda g: seen.append(g))
        node_saw = []
        t.grad_fn.register_hook(lambda gi, go: node_saw.append((gi[0].clone(), go[0].clone())))
        given = lib.tensor(values("any", (6,), 16))
        kept = given.clone()
        m.backward(given)
        assert (given == kept).all()  # the caller's gradient is left alone
        return x.grad, t.grad, seen[0], node_saw[0][0], node_saw[0][1]

    compare(run)


# ----- two gradients of one output added into the first (autograd/engine.py) -------------------


def test_second_gradient_is_added_into_a_private_first_one():
    """x used twice: the first gradient to reach x's buffer is a fresh product only the buffer
    holds, and the second is added into it (two arrays of x's size at most, three if the sum
    allocated). Fails if the engine stops finding it private (engine._BUFFERED_ONLY)."""
    import tracemalloc

    n = 1 << 18
    x_np = np.random.default_rng(19).standard_normal(n).astype(np.float32)
    x = cr.from_numpy(x_np).requires_grad_()
    y = (x * 2.0 + x * 3.0).sum()
    tracemalloc.start()
    try:
        y.backward()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2.5 * x_np.nbytes
    np.testing.assert_array_equal(x.grad.numpy(), np.full(n, 5.0, np.float32))


def _full_size_allocations(fn, nbytes: int) -> int:
    """How many times memory NumPy holds grows by about ``nbytes`` between two function
    returns (Python's and C's) while ``fn`` runs: the arrays of that size it allocates."""
    import sys
    import tracemalloc

    grew = []
    last = [0]

    def watch(frame, event, arg):
        if event in ("return", "c_return"):
            now = tracemalloc.get_traced_memory()[0]
            if now - last[0] > 0.9 * nbytes:
                grew.append(now - last[0])
            last[0] = now

    tracemalloc.start()
    sys.setprofile(watch)
    try:
        fn()
    finally:
        sys.setprofile(None)
        tracemalloc.stop()
    return len(grew)


@pytest.mark.parametrize("loop", ["plain", "general"])
def test_gradient_summed_in_place_is_kept_as_grad_without_a_copy(loop):
    """x used twice: the two products are the only arrays of x's size backward allocates;
    neither the sum (written into the first) nor .grad (the sum itself: the engine's loop
    lets go of it before AccumulateGrad counts its references) makes another. In both of
    the engine's loops (backward(inputs=...) takes the general one)."""
    n = 1 << 18
    x = cr.from_numpy(np.random.default_rng(25).standard_normal(n).astype(np.float32))
    x.requires_grad_()
    y = (x * 2.0 + x * 3.0).sum()
    run = y.backward if loop == "plain" else lambda: y.backward(inputs=[x])
    assert _full_size_allocations(run, 4 * n) == 2
    np.testing.assert_array_equal(x.grad.numpy(), np.full(n, 5.0, np.float32))


def test_first_gradient_kept_by_a_node_hook_is_not_added_into():
    """A node's hook keeps the gradient it hands to x: the other branch's gradient is added
    into a new array, and the kept one stays as it was."""

    def run(lib):
        x = lib.tensor(values("any", (4, 5), 20), requires_grad=True)
        u, v = x * 3.0, x * 5.0
        kept = []
        for node in (u.grad_fn, v.grad_fn):
            node.register_hook(lambda gi, go: kept.append((gi[0], gi[0].clone())))
        (u + v).backward(lib.tensor(values("any", (4, 5), 21)))
        for seen, copy in kept:
            assert (seen == copy).all()
        return x.grad, kept[0][0], kept[1][0]

    compare(run)


def test_callers_gradient_reaching_a_leaf_twice_is_left_alone():
    """add's VJP hands the caller's gradient itself to both of its inputs, here one leaf: the
    sum is a new array."""

    def run(lib):
        x = lib.tensor(values("any", (6,), 22), requires_grad=True)
        given = lib.tensor(values("any", (6,), 23))
        kept = given.clone()
        (x + x).backward(given)
        assert (given == kept).all()
        return x.grad

    compare(run)


def test_gradient_summed_into_a_buffer_then_kept_by_a_tensor_hook():
    """The sum of two gradients of an intermediate, handed to a tensor hook that keeps it:
    later VJPs leave it alone (it is shared from then on)."""

    def run(lib):
        x = lib.tensor(values("any", (5,), 24), requires_grad=True)
        t = x * 1.5
        seen = []
        t.register_hook(lambda g: seen.append((g, g.clone())))
        (t.tanh() * 2.0 + t.tanh() * 3.0).sum().backward()
        assert (seen[0][0] == seen[0][1]).all()
        return x.grad, seen[0][0]

    compare(run)


# ----- lent gradients: a saved array handed on as g · a (ops/_scratch.py) --------------------


def test_a_sums_product_lends_its_factors():
    """In the 4M-element expression mul's two gradients are x and the tanh's output
    themselves (lent), tanh's VJP writes into one new array, x * 2's VJP into that, and the
    lent one is added into it: backward allocates one array of x's size (three if mul
    computed 1 · x and 1 · tanh, or if the sum made a new array)."""
    n = 1 << 18
    x_np = np.random.default_rng(26).standard_normal(n).astype(np.float32)
    x = cr.from_numpy(x_np).requires_grad_()
    y = _expression(cr, x)
    assert _full_size_allocations(y.backward, 4 * n) == 1
    c = np.tanh(x_np * 2 + 1)
    np.testing.assert_allclose(x.grad.numpy(), c + x_np * (1 - c * c) * 2, rtol=1e-6, atol=1e-6)
    assert x.grad.numpy().flags.writeable


@pytest.mark.parametrize("order", ["lent first", "lent second"])
def test_a_lent_gradient_is_added_into_the_other_one(order):
    """x reached twice, once by a lent gradient (w itself): the sum is written into the other
    gradient, in one order as it arrives after the lent one (engine._ARRIVING_ONLY), and w is
    left alone."""
    n = 1 << 18
    x_np = np.random.default_rng(27).standard_normal(n).astype(np.float32)
    w_np = np.random.default_rng(28).standard_normal(n).astype(np.float32)
    x = cr.from_numpy(x_np).requires_grad_()
    w = cr.from_numpy(w_np.copy())
    y = (x * w + x * 3.0).sum() if order == "lent first" else (x * 3.0 + x * w).sum()
    assert _full_size_allocations(y.backward, 4 * n) == 1
    np.testing.assert_array_equal(x.grad.numpy(), w_np + np.float32(3))
    np.testing.assert_array_equal(w.numpy(), w_np)


class _Twice:
    """A custom Function whose backward doubles the gradient it is handed, in place."""

    @staticmethod
    def define(lib):
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1.0

            @staticmethod
            def backward(ctx, g):
                return g.mul_(2)

        return Twice


def _leaf_hook(lib, x, w):
    x.register_hook(lambda g: g.mul_(2))
    (x * w).sum().backward()
    return [x.grad]


def _intermediate_hook_and_retained(lib, x, w):
    t = x.tanh()
    t.retain_grad()
    t.register_hook(lambda g: g.add_(1))
    (t * w).sum().backward()
    return [x.grad, t.grad]


def _grad_result_written(lib, x, w):
    (g,) = lib.autograd.grad((x * w).sum(), x)
    kept = g.clone()
    g.mul_(0)
    return [kept]


def _grad_written(lib, x, w):
    (x * w).sum().backward()
    kept = x.grad.clone()
    x.grad.zero_()
    return [kept, x.grad]


def _grad_of_a_temporary_written(lib, x, w):
    (x * (w * 1.0)).sum().backward()  # (.grad would be the lent product's memory, if kept)
    kept = x.grad.clone()
    x.grad.add_(1)
    return [kept, x.grad]


def _node_hooks(lib, x, w):
    t = x.tanh()
    y = t * w
    y.grad_fn.register_hook(lambda gi, go: (gi[0].mul_(2), None))
    t.grad_fn.register_prehook(lambda go: (go[0].add_(1),))
    y.sum().backward()
    return [x.grad]


def _custom_function(lib, x, w):
    (_Twice.define(lib).apply(x) * w).sum().backward()
    return [x.grad]


def _twice_retained(lib, x, w):
    y = (x * w).sum()
    y.backward(retain_graph=True)
    y.backward()
    return [x.grad]


def _forward_changed_after(lib, x, w):
    t = w * 1.0
    (x * t).sum().backward()
    t.add_(1)
    return [x.grad, t]


LENT_SEEN = {
    "leaf hook writes": _leaf_hook,
    "tensor hook and retain_grad": _intermediate_hook_and_retained,
    "grad() result written": _grad_result_written,
    ".grad written": _grad_written,
    ".grad of a temporary written": _grad_of_a_temporary_written,
    "node hook and prehook write": _node_hooks,
    "custom Function writes": _custom_function,
    "backward twice": _twice_retained,
    "forward tensor changed after": _forward_changed_after,
}


@pytest.mark.parametrize("case", LENT_SEEN)
def test_user_code_never_sees_a_lent_array(case):
    """Where a gradient that is a saved array itself (w, lent by mul's VJP) reaches user code,
    the code sees a writable copy: writing into it leaves w and the graph alone, as PyTorch's
    fresh product does."""

    def run(lib):
        x = lib.tensor(values("any", (3, 200), 29), requires_grad=True)
        w_np = values("any", (3, 200), 30)
        w = lib.tensor(w_np)
        out = LENT_SEEN[case](lib, x, w)
        np.testing.assert_array_equal(w.numpy(), w_np)
        return out

    compare(run)


def _factor_written_during_backward(lib, x, w, how):
    """``(x * v).sum()``, where user code run in backward after mul's VJP writes into v in
    place: v's node runs before x's AccumulateGrad, x's gradient (v itself, lent) waiting."""

    def write(*_):
        v.data.mul_(0.0)

    if how == "optimizer step in a post-accumulate hook":
        v = w.requires_grad_()
        v.register_post_accumulate_grad_hook(write)
    elif how == "tensor hook":
        v = w.requires_grad_() * 1.0
        v.register_hook(write)
    else:

        class Writes(lib.autograd.Function):
            @staticmethod
            def forward(ctx, z):
                return z * 1.0

            @staticmethod
            def backward(ctx, g):
                write()
                return g

        v = Writes.apply(w.requires_grad_())
    (x * v).sum().backward()
    return [x.grad]


@pytest.mark.parametrize(
    "how", ["optimizer step in a post-accumulate hook", "tensor hook", "custom Function"]
)
def test_a_lent_gradient_keeps_the_values_its_vjp_saw(how):
    """User code run during backward writes into v after mul's VJP lent v as x's gradient:
    x's gradient is v's values when the VJP ran (the lent arrays still waiting are copied
    before any user code runs: _backend.unlend_waiting), as PyTorch's product is."""

    def run(lib):
        x = lib.tensor(values("any", (3, 200), 31), requires_grad=True)
        w = lib.tensor(values("any", (3, 200), 32))
        return _factor_written_during_backward(lib, x, w, how)

    compare(run)


def test_retain_graph_backward_twice_gives_the_same_gradient():
    x = cr.tensor(values("any", (5,), 17), requires_grad=True)
    y = _expression(cr, x)
    y.backward(retain_graph=True)
    first = x.grad.clone()
    x.grad = None
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), first.numpy())


@pytest.mark.parametrize(
    "bias", [(4,), (3, 4), (1, 4), (3, 1), (5,), (2, 4), (1, 3, 4), ()], ids=str
)
def test_addmm_input_shapes_fit_or_raise_as_torch(bias):
    """The broadcast check of beta·input + alpha·product (without xp.broadcast_shapes)."""
    from oracle import assert_same_error

    def run(lib):
        r = np.random.default_rng(18)
        x = lib.tensor(r.standard_normal(bias))
        return lib.addmm(
            x, lib.tensor(r.standard_normal((3, 5))), lib.tensor(r.standard_normal((5, 4)))
        )

    fits = len(bias) <= 2 and all(s in (1, p) for s, p in zip(bias[::-1], (4, 3)))
    if fits:
        compare(run)
    else:
        assert_same_error(run)


def test_saved_input_tensors_are_freed_once_their_node_has_run():
    """A node keeps the input tensors its VJP reads in slots; backward without retain_graph
    lets go of them as soon as the node has run, as PyTorch frees its saved variables."""
    import weakref

    x = cr.randn(3, requires_grad=True)
    y = x * 2
    z = y * x  # saves y and x
    gone = weakref.ref(y)
    del y
    assert gone() is not None  # held by z's node
    z.sum().backward()
    assert gone() is None
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        z.sum().backward()


# ----- matmul of two vectors through ndarray.dot ---------------------------------------------


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("n", [0, 3, 1000])
def test_vector_dot_vector_is_numpys_matmul_bit_for_bit(dt, n):
    """x @ y of two vectors takes ndarray.dot (half the call cost): the same bits as matmul,
    strided operands included, and its gradients PyTorch's."""
    r = np.random.default_rng(n)
    a, b = (r.standard_normal(2 * n).astype(dt) for _ in range(2))
    for u, v in ((a[:n], b[:n]), (a[::2], b[1::2])):
        got = (cr.from_numpy(u) @ cr.from_numpy(v)).numpy()
        assert got.shape == () and got.dtype == np.dtype(dt)
        np.testing.assert_array_equal(got, np.matmul(u, v))

    def run(lib):
        x = lib.tensor(a[:n], requires_grad=True)
        y = lib.tensor(b[:n], requires_grad=True)
        out = x @ y
        out.backward()
        return out, x.grad, y.grad

    compare(run)


# ----- a product with few rows times a transposed matrix, in OpenBLAS's faster order -------


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("m", [1, 4, 16, 32, 33, 64, 65])
@pytest.mark.parametrize("n", [64, 128, 512])
@pytest.mark.parametrize("k", [200, 512])
def test_mm_in_the_faster_order_is_the_plain_product(dt, m, n, k):
    """_backend.mm computes x @ wᵀ as (w xᵀ)ᵀ copied back to rows where OpenBLAS runs that
    faster (float32, n >= 128, m <= 32 or m <= 64 with k >= 512): the plain product's values
    (the same bits on the machines measured; a BLAS may sum a dot product in another order
    in the other operand order, so to float32's rounding here), a row-major result, and the
    plain product itself everywhere else (other layouts, dtypes and shapes)."""
    from chainrule import _backend

    r = np.random.default_rng(m * n + k)
    x = r.standard_normal((m, k)).astype(dt)
    w = r.standard_normal((n, k)).astype(dt)
    for a, b in ((x, w.T), (x, np.ascontiguousarray(w.T)), (x[:, ::2], w[:, ::2].T)):
        got = _backend.mm(a, b)
        assert got.flags.c_contiguous and got.dtype == np.dtype(dt)
        np.testing.assert_allclose(got, np.matmul(a, b), rtol=1e-4, atol=1e-4)
        few = m <= 32 or m <= 64 and a.shape[1] >= 512
        if dt == "float64" or not few or n < 128:  # (the plain product: its bits)
            np.testing.assert_array_equal(got, np.matmul(a, b))


@pytest.mark.parametrize("m", [4, 16, 64])
def test_linear_with_few_rows_matches_torch(m):
    """linear's forward on batch m (784 -> 256, the order switched for m <= 32), its .view
    and the gradients: PyTorch's, in float32."""

    def run(lib):
        r = np.random.default_rng(m)
        x = lib.from_numpy(r.standard_normal((m, 784)).astype(np.float32)).requires_grad_()
        w = lib.from_numpy((r.standard_normal((256, 784)) / 28).astype(np.float32))
        w.requires_grad_()
        b = lib.from_numpy(r.standard_normal(256).astype(np.float32)).requires_grad_()
        y = lib.nn.functional.linear(x, w, b)
        assert y.is_contiguous() and y.view(-1).shape == (m * 256,)
        (x @ w.t()).pow(2).sum().backward()
        y.sum().backward()
        return y, x.grad, w.grad, b.grad

    compare(run, rtol=1e-4, atol=1e-4)  # (float32 sums over 784 terms)


@pytest.mark.parametrize("transposed", [False, True], ids=["w.t()", "w"])
def test_create_graph_weight_gradient_has_the_weights_layout_as_torch(transposed):
    """With create_graph the gradient of a weight seen through .t() is computed as (Gᵀ A)ᵀ,
    as PyTorch's mm backward does: contiguous like the weight (an elementwise op between
    the two, a Hessian-vector product's g * v, runs on one layout), PyTorch's nodes, and the
    second derivative PyTorch's."""

    def run(lib):
        r = np.random.default_rng(3)
        x = lib.tensor(r.standard_normal((6, 5)))
        w = lib.tensor(r.standard_normal((5, 4) if transposed else (4, 5)), requires_grad=True)
        a = lib.tensor(r.standard_normal((3, 6)), requires_grad=True)
        y = (a @ x @ (w if transposed else w.t())).tanh().sum()
        gw, ga = lib.autograd.grad(y, (w, a), create_graph=True)
        assert gw.is_contiguous() and ga.is_contiguous()
        names = (gw.grad_fn.name(), ga.grad_fn.name())
        hv = lib.autograd.grad((gw * gw).sum() + (ga * ga).sum(), (w, a))
        return gw, ga, *hv, names

    compare(run)


def _names_behind(grads) -> list:
    """The names of every node the gradients' graphs hold, sorted (each node once)."""
    seen, names, stack = set(), [], [g.grad_fn for g in grads]
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        names.append(fn.name())
        stack.extend(n for n, _ in fn.next_functions)
    return sorted(names)


@pytest.mark.parametrize("product", ["mm", "mm of w.t()", "addmm", "mv", "addr"])
def test_create_graph_product_vjps_record_torchs_nodes(product):
    """Under create_graph the products' VJPs transpose with ``t`` (TBackward0), as PyTorch's
    mm, mv and addr backward do: the same nodes behind every gradient, and the same values."""

    def run(lib):
        r = np.random.default_rng(4)
        a = lib.tensor(r.standard_normal((3, 4)), requires_grad=True)
        b = lib.tensor(r.standard_normal((4, 5)), requires_grad=True)
        u = lib.tensor(r.standard_normal(3), requires_grad=True)
        v = lib.tensor(r.standard_normal(4), requires_grad=True)
        c = lib.tensor(r.standard_normal((3, 4)), requires_grad=True)
        if product == "mm":
            ins, y = (a, b), lib.mm(a, b)
        elif product == "mm of w.t()":
            ins, y = (a, c), lib.mm(a.t(), c)
        elif product == "addmm":
            ins, y = (c, a, b), lib.addmm(c @ b, a, b)
        elif product == "mv":
            ins, y = (a, v), lib.mv(a, v)
        else:
            ins, y = (c, u, v), lib.addr(c, u, v)
        grads = lib.autograd.grad((y * y).sum(), ins, create_graph=True)
        return _names_behind(grads), grads

    compare(run, rtol=1e-12, atol=1e-12)
