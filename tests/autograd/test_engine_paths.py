"""The engine's fast paths pinned to its general loop, and both to PyTorch.

``backward()`` without captures, observer or anomaly detection runs ``_run_plain``: a node
one edge leads into gets its gradient handed straight on, a node with hooks or a retained
gradient takes a separate step. Everything else runs ``_run_general``. Each scenario here
runs three times: on the fast path, on the general loop (``engine._plain_enabled`` off) and
on PyTorch; the gradients, the hooks' logs and the errors must agree.
"""

from __future__ import annotations

import gc

import numpy as np
import pytest
import torch

import chainrule as cr
from chainrule.autograd import engine
from chainrule.autograd.graph import accumulator
from oracle import assert_close


def _v(t):
    if t is None:
        return None
    if isinstance(t, (tuple, list)):
        return tuple(_v(x) for x in t)
    if isinstance(t, (cr.Tensor, torch.Tensor)):
        return Values(t.detach().numpy())
    return t


class Values:
    """A gradient in a log: equal to another when bit for bit the same (the two paths) or,
    against PyTorch's, within float rounding (``close``)."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array.astype(np.float64)
        self.dtype = str(array.dtype)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Values)
            and self.dtype == other.dtype
            and np.array_equal(self.array, other.array, equal_nan=True)
        )

    def close(self, other: Values) -> bool:
        rtol = 1e-5 if self.dtype == "float32" else 1e-10
        return self.dtype == other.dtype and np.allclose(
            self.array, other.array, rtol=rtol, atol=rtol, equal_nan=True
        )

    def __repr__(self) -> str:
        return f"Values({self.array.tolist()}, {self.dtype})"


def _close(got, want) -> bool:
    """The same log, gradients compared with ``Values.close``; ``ordered=False``: the same
    events in any order."""
    if isinstance(want, Values):
        return isinstance(got, Values) and got.close(want)
    if isinstance(want, (tuple, list)):
        return (
            isinstance(got, (tuple, list))
            and len(got) == len(want)
            and all(_close(g, w) for g, w in zip(got, want))
        )
    return got == want


@pytest.fixture
def plain_runs(monkeypatch):
    """Counts the backward passes that take the fast path."""
    calls = []
    run = engine._run_plain

    def counted(*args, **kwargs):
        calls.append(1)
        return run(*args, **kwargs)

    monkeypatch.setattr(engine, "_run_plain", counted)
    return calls


def three_ways(fn, plain_runs, monkeypatch, fast: bool = True, torch_order: bool = True):
    """``fn(lib, log)`` on the fast path, on the general loop and on PyTorch: the logs
    (and what ``fn`` returns, appended to them) agree, the two paths' bit for bit; the fast
    run took the fast path (``fast``) or did not. ``torch_order=False``: PyTorch's log
    has the same events, in an order of its own."""
    logs = []
    for lib, plain in ((cr, True), (cr, False), (torch, None)):
        if plain is not None:
            monkeypatch.setattr(engine, "_plain_enabled", plain)
        before = len(plain_runs)
        log: list = []
        log.append(("result", _v(fn(lib, log))))
        if plain is not None:
            took = len(plain_runs) > before
            assert took == (plain and fast), (plain, took)
        logs.append(log)
    fast_log, general_log, torch_log = logs
    assert fast_log == general_log
    if not torch_order:
        fast_log = sorted(fast_log, key=repr)
        torch_log = sorted(torch_log, key=repr)
    assert _close(fast_log, torch_log), (fast_log, torch_log)


def leaf(lib, values=(1.0, -2.0, 3.0), dtype=None):
    return lib.tensor(list(values), requires_grad=True, dtype=dtype)


# ----- gradients: chains, fan-out, fan-in, several outputs, unused branches -------------


GRAPHS = {
    "one op": lambda L, x, w: x * 2,
    "chain": lambda L, x, w: ((x * 2 + 1) * 0.5 - w).exp() * 3,
    "reused input": lambda L, x, w: x * x + x,
    "diamond": lambda L, x, w: (lambda y: y.sin() * y.cos() + y)(x * w),
    "broadcast": lambda L, x, w: x.reshape(3, 1) * w + x,
    "two outputs of one node": lambda L, x, w: (lambda a, b: a * 2 - b)(*x.max(0, keepdim=True)),
    "split": lambda L, x, w: L.cat([p * (i + 1) for i, p in enumerate(L.split(x * w, 1))]),
    "one split output used": lambda L, x, w: L.split(x * w, 2)[1] * 4,
    "unused branch": lambda L, x, w: (x * 2, w.exp())[0] + 1,
    "constant factor first": lambda L, x, w: 2 * (3 * x),
    "many inputs": lambda L, x, w: L.stack([x, w, x * w, x + 1]).sum(0),
    "tanh and relu": lambda L, x, w: L.relu(x * w).tanh() + L.relu(-x),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("graph", GRAPHS)
def test_gradients_agree(graph, dtype, plain_runs, monkeypatch):
    def run(L, log):
        dt = getattr(L, dtype)
        x = leaf(L, dtype=dt)
        w = leaf(L, (0.5, 0.25, -1.5), dtype=dt)
        y = GRAPHS[graph](L, x, w)
        y.backward(L.linspace(-1, 2, y.numel(), dtype=dt).reshape(y.shape))
        log.append((str(x.grad.dtype), str(None if w.grad is None else w.grad.dtype)))
        return x.grad, w.grad

    three_ways(run, plain_runs, monkeypatch)


def test_several_roots(plain_runs, monkeypatch):
    def run(L, log):
        x, w = leaf(L), leaf(L, (0.5, 0.25, -1.5))
        y = x * w
        L.autograd.backward([(y * 2).sum(), (w.exp() * 3).sum(), y.sum()])
        return x.grad, w.grad

    three_ways(run, plain_runs, monkeypatch)


def test_a_root_reached_from_another_takes_the_general_loop(plain_runs, monkeypatch):
    def run(L, log):
        x = leaf(L)
        y = x * 3
        z = (y * y).sum()
        L.autograd.backward([z, y], [L.tensor(2.0), L.ones(3)])
        return x.grad

    three_ways(run, plain_runs, monkeypatch, fast=False)


def test_backward_of_a_leaf_and_of_a_multi_output_root(plain_runs, monkeypatch):
    def run(L, log):
        x = leaf(L)
        x.backward(L.tensor([1.0, 2.0, 3.0]))
        values, _ = (x * 2).max(0)
        values.backward()
        return x.grad

    three_ways(run, plain_runs, monkeypatch)


def _reachable(root) -> list:
    seen, stack = {root}, [root]
    while stack:
        for fn, _ in stack.pop()._next:
            if fn is not None and fn not in seen:
                seen.add(fn)
                stack.append(fn)
    return list(seen)


@pytest.mark.parametrize("graph", GRAPHS)
def test_counting_that_leaves_out_sole_nodes_gives_every_count(graph):
    """A node left out (nothing but one edge refers to it) has count 1: the full count's."""
    x, w = leaf(cr), leaf(cr, (0.5, 0.25, -1.5))
    kept = x * 3  # a node a tensor refers to as well: counted in full
    y = GRAPHS[graph](cr, kept, w) + GRAPHS[graph](cr, x * x, w)  # (x * x: two edges)
    root = y.grad_fn
    full = engine._count_dependencies([root])
    lean = engine._count_dependencies([root], True)
    assert {n: lean.get(n, 1) for n in _reachable(root)} == full
    assert lean[kept.grad_fn] == full[kept.grad_fn]


def test_an_edge_recorded_as_the_leaf_itself_is_counted_with_the_leafs_node(plain_runs):
    """An edge may hold the leaf tensor rather than its AccumulateGrad (made when read): the
    count makes the node, and counts it with the edges that already hold it."""
    x = leaf(cr)
    a, b = x * 2, x * 3
    a.grad_fn._fn0 = x  # as recorded on the leaf
    b.grad_fn._fn0 = accumulator(x)  # the node, which nothing else holds
    calls = []
    x.register_post_accumulate_grad_hook(lambda t: calls.append(t.grad.tolist()))
    (a + b).backward(cr.ones(3))
    assert a.grad_fn._fn0 is b.grad_fn._fn0
    assert calls == [[5.0, 5.0, 5.0]]  # the two gradients summed, then accumulated once
    assert plain_runs


def test_a_chain_nothing_else_refers_to_costs_no_counts():
    x = leaf(cr)
    y = x * 1
    for i in range(200):
        y = y * 2 if i % 2 else y.exp() - 1
    lean = engine._count_dependencies([y.grad_fn], True)
    assert len(lean) <= 2  # the root (and the leaf's node, whose leaf refers to it weakly)
    assert engine._SOLE >= 2


# ----- .grad: accumulation, aliasing, retain_graph, freed saved values ------------------


def test_accumulates_into_grad_in_place_and_never_aliases_the_gradient(plain_runs, monkeypatch):
    def run(L, log):
        x = leaf(L)
        g = L.tensor([1.0, 10.0, 100.0])
        x.backward(g)  # the leaf's own gradient: .grad must be a copy
        first = x.grad
        g.mul_(2)
        log.append(("after the user's write", _v(x.grad)))
        (x * 3).backward(g)
        log.append(("same tensor", x.grad is first))
        y = x * 2
        y.backward(g, retain_graph=True)
        y.backward(g)
        return x.grad

    three_ways(run, plain_runs, monkeypatch)


def test_grad_of_a_fresh_array_is_kept_without_a_copy():
    x = cr.randn(1000, requires_grad=True)
    (x * 2).backward(cr.ones(1000))
    # the gradient the VJP made is nobody else's: .grad holds it (no copy was made)
    assert x.grad.numpy().base is None and x.grad.numpy().flags.owndata
    np.testing.assert_array_equal(x.grad.numpy(), np.full(1000, 2, np.float32))


def test_second_backward_raises_and_retain_graph_allows_it(plain_runs, monkeypatch):
    def run(L, log):
        x = leaf(L)
        y = (x * x).exp()
        z = y.sum()
        z.backward(retain_graph=True)
        z.backward()
        log.append(("twice", _v(x.grad)))
        try:
            z.backward()
        except RuntimeError as exc:
            log.append(("error", str(exc)))
        return x.grad

    three_ways(run, plain_runs, monkeypatch)


def test_saved_values_are_freed_and_nodes_without_them_rerun(monkeypatch):
    for plain in (True, False):
        monkeypatch.setattr(engine, "_plain_enabled", plain)
        x = leaf(cr)
        y = x.exp()
        s = x + 1  # saves nothing: may run again
        z = (y * s).sum()
        z.backward(retain_graph=True)
        assert y.grad_fn._saved is not None
        z.backward()
        assert y.grad_fn._saved is None
        assert s.grad_fn._saved == ()
        (s * 1).sum().backward()
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second"):
            y.sum().backward()


def test_a_gradient_of_none_reaches_no_leaf(plain_runs, monkeypatch):
    class Drop(cr.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return None, g  # no gradient for a

    def run(L, log):
        x, w = leaf(L), leaf(L, (0.5, 0.25, -1.5))
        fn = Drop if L is cr else _torch_drop()
        fn.apply(x.exp(), w).sum().backward()
        return x.grad, w.grad

    three_ways(run, plain_runs, monkeypatch)


def _torch_drop():
    class Drop(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return None, g

    return Drop


# ----- hooks, retain_grad: the separate step, in PyTorch's order ------------------------


def test_hooks_and_retain_grad_in_order(plain_runs, monkeypatch):
    def run(L, log):
        x = leaf(L)
        w = leaf(L, (0.5, 0.25, -1.5))
        y = x * w
        y.retain_grad()
        y.register_hook(lambda g: (log.append(("y hook", _v(g))), g * 10)[1])
        y.grad_fn.register_prehook(lambda go: log.append(("prehook", _v(go))))
        y.grad_fn.register_hook(lambda gi, go: log.append(("node hook", _v(gi), _v(go))))
        x.register_hook(lambda g: (log.append(("x hook", _v(g))), g + 1)[1])
        x.register_post_accumulate_grad_hook(lambda t: log.append(("post", _v(t.grad))))
        acc = y.grad_fn.next_functions[1][0]
        acc.register_prehook(lambda go: log.append(("w prehook", _v(go))))
        acc.register_hook(lambda gi, go: log.append(("w hook", _v(gi), _v(go))))
        z = (y.exp() * 2).sum()
        z.backward()
        return y.grad, x.grad, w.grad

    # (x's and w's nodes are both ready after MulBackward0: chainrule runs w's first)
    three_ways(run, plain_runs, monkeypatch, torch_order=False)


def test_hooks_across_branches_run_in_the_general_loops_order(plain_runs, monkeypatch):
    def run(L, log):
        a, b, c, d = (leaf(L, (1.0 + i, 2.0, -1.0)) for i in range(4))
        for name, t in zip("abcd", (a, b, c, d)):
            t.register_hook(lambda g, name=name: log.append((name, _v(g))))
        ab, cd = a * b, c.exp() * d
        ab.register_hook(lambda g: log.append(("ab", _v(g))))
        cd.register_hook(lambda g: log.append(("cd", _v(g))))
        (ab + cd * 2 + a).sum().backward()
        return a.grad, b.grad, c.grad, d.grad

    # (PyTorch orders ready nodes by when they were made; chainrule's loop is a stack)
    three_ways(run, plain_runs, monkeypatch, torch_order=False)


def test_retain_grad_of_non_leaves_accumulates_across_backward_calls(plain_runs, monkeypatch):
    def run(L, log):
        x = leaf(L)
        a = x * 2
        b = a.exp()  # a chain: each node hands its gradient on to the next
        c = (b * a).sum()
        a.retain_grad()
        b.retain_grad()
        c.backward(retain_graph=True)
        log.append(("once", _v(a.grad), _v(b.grad)))
        c.backward()
        return a.grad, b.grad, x.grad

    three_ways(run, plain_runs, monkeypatch)


def test_hooks_on_a_chain_run_once_each_in_order(plain_runs, monkeypatch):
    def run(L, log):
        x = leaf(L)
        y = x
        for i in range(6):
            y = y * 2 if i % 2 else y + 1
            if i in (1, 4):
                y.register_hook(lambda g, i=i: (log.append((i, _v(g))), g * 0.5)[1])
        y.sum().backward()
        return x.grad

    three_ways(run, plain_runs, monkeypatch)


def test_prehook_replacing_gradients_with_none(plain_runs, monkeypatch):
    def run(L, log):
        x = leaf(L)
        w = leaf(L, (0.5, 0.25, -1.5))
        y = x * 3
        y.grad_fn.register_prehook(lambda go: (log.append("zeroed"), (None,))[1])
        (y * w).sum().backward()
        return x.grad, w.grad

    three_ways(run, plain_runs, monkeypatch)


def test_leaf_hook_result_is_kept_as_the_grad(plain_runs, monkeypatch):
    def run(L, log):
        x = leaf(L)
        kept = []
        x.register_hook(lambda g: (kept.append(g * 5), kept[-1])[1])
        (x * 2).sum().backward()
        kept[0].mul_(0)  # the hook's tensor is the user's: .grad must not be it
        return x.grad

    three_ways(run, plain_runs, monkeypatch)


# ----- reentrant backward, create_graph, double backward -------------------------------


def test_backward_inside_a_custom_backward(plain_runs, monkeypatch):
    def run(L, log):
        inner = leaf(L, (2.0, 3.0, 4.0))

        class Reenter(L.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, g):
                with L.enable_grad():
                    (inner * inner).sum().backward()  # a second engine run, nested
                return g * 2

        x = leaf(L)
        (Reenter.apply(x) * 3).sum().backward()
        return x.grad, inner.grad

    three_ways(run, plain_runs, monkeypatch)


def test_create_graph_and_double_backward(plain_runs, monkeypatch):
    def run(L, log):
        x = leaf(L)
        w = leaf(L, (0.5, 0.25, -1.5))
        y = ((x * w).tanh() * x).sum()
        y.backward(create_graph=True)
        gx, gw = x.grad, w.grad
        log.append(("requires grad", gx.requires_grad, gw.requires_grad))
        x.grad = w.grad = None
        (gx * gx).sum().backward(inputs=[x, w], retain_graph=True)  # (the general loop)
        first = (_v(x.grad), _v(w.grad))
        x.grad = w.grad = None
        (gx.sum() + gw.sum()).backward()
        return first, x.grad, w.grad

    three_ways(run, plain_runs, monkeypatch)


def test_backward_through_a_grad_taken_with_create_graph(plain_runs, monkeypatch):
    def run(L, log):
        x = leaf(L)
        (g,) = L.autograd.grad((x.exp() * x).sum(), x, create_graph=True)
        (g * g).sum().backward()
        return g, x.grad

    three_ways(run, plain_runs, monkeypatch)


# ----- grad(): captures, unused inputs, non-leaf inputs --------------------------------


def test_grad_of_unused_inputs_and_non_leaves(plain_runs, monkeypatch):
    def run(L, log):
        x, w = leaf(L), leaf(L, (0.5, 0.25, -1.5))
        unused = leaf(L, (1.0, 1.0, 1.0))
        y = x * w
        z = (y.exp() + x).sum()
        got = L.autograd.grad(z, [x, unused, y], allow_unused=True, retain_graph=True)
        log.append(("grads", _v(got)))
        try:
            L.autograd.grad(z, [x, unused], retain_graph=True)
        except RuntimeError as exc:
            log.append(("error", str(exc)))
        log.append(("no .grad touched", x.grad is None, w.grad is None))
        return L.autograd.grad(z, [w], materialize_grads=True)

    three_ways(run, plain_runs, monkeypatch, fast=False)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("graph", GRAPHS)
def test_grad_of_every_leaf_takes_the_plain_loop(graph, dtype, plain_runs, monkeypatch):
    """grad() over every leaf the graph reaches: every node leads to an input, so the plain
    loop runs it, capturing the leaves' gradients; .grad untouched."""

    def run(L, log):
        dt = getattr(L, dtype)
        x = leaf(L, dtype=dt)
        w = leaf(L, (0.5, 0.25, -1.5), dtype=dt)
        y = GRAPHS[graph](L, x, w)
        g = L.linspace(-1, 2, y.numel(), dtype=dt).reshape(y.shape)
        got = L.autograd.grad(y, [x, w], g, allow_unused=True)
        log.append(("no .grad touched", x.grad is None, w.grad is None))
        return got

    three_ways(run, plain_runs, monkeypatch)


def test_grad_of_some_leaves_or_hooked_leaves_takes_the_general_loop(plain_runs, monkeypatch):
    """A leaf reached but not asked for (its branch is left out), a leaf with a hook (its
    gradient is the hook's), a root reached from another: the general loop."""

    def run(L, log):
        x, w = leaf(L), leaf(L, (0.5, 0.25, -1.5))
        y = (x * w).exp().sum()
        log.append(("x only", _v(L.autograd.grad(y, x, retain_graph=True))))
        h = w.register_hook(lambda g: g * 10)
        log.append(("hooked", _v(L.autograd.grad(y, [x, w], retain_graph=True))))
        h.remove()
        z = x * 2
        roots = [(z * z).sum(), z]  # z is reached from the first root too
        got = L.autograd.grad(roots, [x, w], [None, L.ones_like(z)], allow_unused=True)
        log.append(("roots", _v(got)))
        return x.grad, w.grad

    three_ways(run, plain_runs, monkeypatch, fast=False)


def test_grad_of_every_leaf_with_intermediate_hooks_and_twice(plain_runs, monkeypatch):
    """On the plain loop: a tensor hook and a retained gradient on the way, grad() over the
    same leaf twice, and a second grad() of a freed graph raising PyTorch's error."""

    def run(L, log):
        x, w = leaf(L), leaf(L, (0.5, 0.25, -1.5))
        y = x * w
        y.register_hook(lambda g: log.append(("hook", _v(g))) or g * 2)
        y.retain_grad()
        z = (y.tanh() * x).sum()
        got = L.autograd.grad(z, [x, w, x])
        log.append(("retained", _v(y.grad)))
        try:
            L.autograd.grad(z, [x, w])
        except RuntimeError as exc:
            log.append(("error", str(exc).split(".")[0]))
        return got

    three_ways(run, plain_runs, monkeypatch)


def test_hessian_vector_product_on_the_plain_loop(plain_runs, monkeypatch):
    """Both grad() calls of a Hessian-vector product over every weight: the plain loop,
    create_graph included, the same bits as the general loop's."""

    def run(L, log):
        r = np.random.default_rng(5)
        x = L.tensor(r.standard_normal((5, 6)))
        t = L.tensor(r.integers(0, 3, 5))
        w1 = L.tensor(r.standard_normal((4, 6)), requires_grad=True)
        b1 = L.tensor(r.standard_normal(4), requires_grad=True)
        w2 = L.tensor(r.standard_normal((3, 4)), requires_grad=True)
        params = (w1, b1, w2)
        F = L.nn.functional
        loss = F.cross_entropy(F.linear(F.relu(F.linear(x, w1, b1)), w2), t)
        grads = L.autograd.grad(loss, params, create_graph=True)
        log.append(("first", _v(grads), [g.requires_grad for g in grads]))
        dot = sum((g * L.ones_like(g)).sum() for g in grads)
        return L.autograd.grad(dot, params)

    three_ways(run, plain_runs, monkeypatch)


def test_errors_leave_grad_mode_as_it_was(plain_runs, monkeypatch):
    def run(L, log):
        x = leaf(L)
        y = x * 2
        z = y.exp()
        y.mul_(2)  # exp saved its output; y's change is not z's, but x * 2 -> mul_ is
        w = (y * y).sum()
        with L.no_grad():
            pass
        try:
            y.add_(1)
            w.backward()
        except RuntimeError as exc:
            log.append(("error", str(exc).split(".")[0]))
        log.append(("grad mode", L.is_grad_enabled()))
        z.sum().backward()
        return x.grad

    three_ways(run, plain_runs, monkeypatch)


# ----- no reference cycles: a step leaves nothing for the collector --------------------


def test_hessian_vector_product_step_leaves_no_cycles():
    F = cr.nn.functional
    cr.manual_seed(0)
    w1 = cr.randn(16, 20, requires_grad=True)
    w2 = cr.randn(4, 16, requires_grad=True)
    x, target = cr.randn(8, 20), cr.randint(0, 4, (8,))
    params = [w1, w2]

    def loss():
        return F.cross_entropy(F.linear(F.relu(F.linear(x, w1)), w2), target)

    def step():
        grads = cr.autograd.grad(loss(), params, create_graph=True)
        dot = sum((g * g).sum() for g in grads)
        hv = cr.autograd.grad(dot, params)
        loss().backward()  # and a plain backward into .grad
        for p in params:
            p.grad = None
        return hv

    step()
    gc.collect()
    gc.disable()
    try:
        step()
        step()
        found = gc.collect()
    finally:
        gc.enable()
    assert found == 0


def test_the_fast_path_matches_torch_on_a_training_step(plain_runs):
    def run(L):
        L.manual_seed(0)
        w1 = L.tensor(np.linspace(-1, 1, 60).reshape(6, 10), requires_grad=True)
        w2 = L.tensor(np.linspace(1, -1, 18).reshape(3, 6), requires_grad=True)
        x = L.tensor(np.linspace(-2, 2, 40).reshape(4, 10))
        target = L.tensor([0, 2, 1, 2])
        F = L.nn.functional
        F.cross_entropy(F.linear(F.relu(F.linear(x, w1)), w2), target).backward()
        return w1.grad, w2.grad

    assert_close(run(cr), run(torch), 1e-10, 1e-12)
    assert plain_runs
