"""Hooks, against PyTorch: tensor hooks, node hooks and prehooks, post-accumulate-grad hooks,
and ``retain_grad``, in PyTorch's order, with their replacements and ``remove()``.

Each scenario records a log of (event, values) on both libraries; the logs must be equal
(``oracle.compare_logs``). The last section compares the gradients hooks replaced, and the
errors, directly (``oracle.compare``, ``oracle.assert_same_error``).
"""

from __future__ import annotations

import pytest
import torch

import chainrule as cr
from oracle import assert_same_error, compare, compare_logs
from oracle import nested_lists as _v


def leaf(L, values=(1.0, 2.0, 3.0)):
    return L.tensor(list(values), requires_grad=True)


# ----- tensor hooks and retain_grad ---------------------------------------------------


def test_non_leaf_hooks_retain_grad_and_node_hooks_in_order():
    def run(L, log):
        x = leaf(L)
        y = x * 2
        y.grad_fn.register_prehook(
            lambda go: (log.append(("prehook", _v(go))), tuple(g + 1 for g in go))[1]
        )
        y.retain_grad()
        y.register_hook(lambda g: (log.append(("tensor hook", _v(g))), g * 10)[1])
        y.grad_fn.register_hook(lambda gi, go: log.append(("hook", _v(gi), _v(go))))
        (y * y).sum().backward()
        log.append(("grads", _v(y.grad), _v(x.grad)))

    compare_logs(run)


def test_retain_grad_sees_hooks_registered_before_and_after_it():
    def run(L, log):
        x = leaf(L)
        y = x * 2
        y.register_hook(lambda g: (log.append(("first", _v(g))), g * 10)[1])
        y.retain_grad()
        y.register_hook(lambda g: (log.append(("second", _v(g))), g + 1)[1])
        (y**2).sum().backward()
        log.append(("grads", _v(y.grad), _v(x.grad)))

    compare_logs(run)


def test_leaf_order_tensor_hook_prehook_accumulate_post_hook_node_hook():
    def run(L, log):
        x = leaf(L)
        acc = (x * 2).grad_fn.next_functions[0][0]
        log.append(("node", type(acc).__name__))
        x.register_hook(lambda g: (log.append(("tensor hook", _v(g))), g * 10)[1])
        x.register_post_accumulate_grad_hook(lambda t: log.append(("post", _v(t.grad))))
        acc.register_prehook(lambda go: log.append(("prehook", _v(go))))
        acc.register_hook(lambda gi, go: log.append(("hook", _v(gi), _v(go))))
        (x * 2).sum().backward()
        log.append(("grad", _v(x.grad)))

    compare_logs(run)


def test_hook_returning_none_keeps_the_gradient():
    def run(L, log):
        x = leaf(L)
        y = x.exp()
        y.register_hook(lambda g: log.append(("saw", _v(g))))
        x.register_hook(lambda g: log.append(("leaf saw", [round(v, 5) for v in g.tolist()])))
        y.sum().backward()
        log.append(("grad", [round(v, 5) for v in x.grad.tolist()]))

    compare_logs(run)


def test_leaf_hooks_apply_in_autograd_grad():
    def run(L, log):
        x = leaf(L)
        x.register_hook(lambda g: g * 10)
        log.append(_v(L.autograd.grad((x * 2).sum(), x)))
        log.append(("grad", _v(x.grad)))

    compare_logs(run)


def test_removed_hooks_do_not_run():
    def run(L, log):
        x = leaf(L)
        y = x * 3
        h1 = y.register_hook(lambda g: g * 100)
        h2 = x.register_hook(lambda g: g * 100)
        h3 = x.register_post_accumulate_grad_hook(lambda t: log.append("post"))
        h4 = y.grad_fn.register_hook(lambda gi, go: log.append("hook"))
        h5 = y.grad_fn.register_prehook(lambda go: log.append("prehook"))
        for h in (h1, h2, h3, h4, h5):
            h.remove()
        y.sum().backward()
        log.append(_v(x.grad))

    compare_logs(run)


def test_handle_as_context_manager():
    def run(L, log):
        x = leaf(L)
        with x.register_hook(lambda g: g * 0):
            (x * 2).sum().backward()
        log.append(_v(x.grad))
        (x * 2).sum().backward()
        log.append(_v(x.grad))

    compare_logs(run)


# ----- node hooks replace gradients --------------------------------------------------


def test_node_hook_replaces_grad_inputs():
    def run(L, log):
        x = leaf(L)
        w = leaf(L, (0.5, -1.0, 2.0))
        y = x * w
        y.grad_fn.register_hook(lambda gi, go: (gi[0] * 2, gi[1] + 1))
        y.sum().backward()
        log.append((_v(x.grad), _v(w.grad)))

    compare_logs(run)


def test_node_prehook_replaces_grad_outputs():
    def run(L, log):
        x = leaf(L)
        y = x.sin()
        z = y * 3
        z.grad_fn.register_prehook(lambda go: (go[0] * 0 + 1,))
        z.sum().backward()
        log.append([round(v, 6) for v in x.grad.tolist()])

    compare_logs(run)


def test_node_hooks_with_create_graph_see_tensors_with_graphs():
    def run(L, log):
        x = leaf(L)
        y = x**3
        y.grad_fn.register_hook(lambda gi, go: log.append(("hook", gi[0].requires_grad)))
        (g,) = L.autograd.grad(y.sum(), x, create_graph=True)
        log.append(_v(g))
        (g2,) = L.autograd.grad(g.sum(), x)
        log.append(_v(g2))

    compare_logs(run)


# ----- post-accumulate-grad hooks ---------------------------------------------------


def test_post_accumulate_grad_hook_can_update_the_parameter():
    """The optimizer-in-backward pattern: the hook sees the accumulated .grad and steps."""

    def run(L, log):
        w = leaf(L)

        def step(p):
            with L.no_grad():
                p -= 0.1 * p.grad
            p.grad = None

        w.register_post_accumulate_grad_hook(step)
        for _ in range(2):
            (w * w).sum().backward()
            log.append(([round(v, 6) for v in w.tolist()], w.grad))

    compare_logs(run)


def test_post_accumulate_grad_hook_runs_once_per_accumulation():
    def run(L, log):
        x = leaf(L)
        x.register_post_accumulate_grad_hook(lambda t: log.append(("post", _v(t.grad))))
        (x * 2).sum().backward()
        (x * 3).sum().backward()
        y = leaf(L)
        (x * y).sum().backward(inputs=[y])  # x is not accumulated into: no call
        L.autograd.grad((x * 4).sum(), x)  # autograd.grad accumulates nothing: no call
        log.append(("grad", _v(x.grad)))

    compare_logs(run)


ERRORS = {
    "post_hook_on_non_leaf": lambda L: (leaf(L) * 2).register_post_accumulate_grad_hook(
        lambda t: None
    ),
    "post_hook_without_grad": lambda L: L.tensor([1.0]).register_post_accumulate_grad_hook(
        lambda t: None
    ),
    "hook_without_grad": lambda L: L.tensor([1.0]).register_hook(lambda g: g),
    "hook_changes_size": lambda L: _backward_with_hook(L, lambda g: L.ones(3)),
    "hook_changes_dtype": lambda L: _backward_with_hook(L, lambda g: g.double()),
    "hook_returns_a_number": lambda L: _backward_with_hook(L, lambda g: 3),
    "leaf_hook_changes_size": lambda L: _backward_with_hook(L, lambda g: L.ones(3), on_leaf=True),
    "node_hook_wrong_count": lambda L: _backward_with_node_hook(L, lambda gi, go: (gi[0],)),
    "node_hook_wrong_size": lambda L: _backward_with_node_hook(
        L, lambda gi, go: (L.ones(3), gi[1])
    ),
    "prehook_wrong_count": lambda L: _backward_with_node_hook(
        L, lambda go: (go[0], go[0]), pre=True
    ),
}


def _backward_with_hook(L, hook, on_leaf=False):
    x = leaf(L, (1.0, 2.0))
    y = x * 2
    (x if on_leaf else y).register_hook(hook)
    y.sum().backward()


def _backward_with_node_hook(L, hook, pre=False):
    x = leaf(L, (1.0, 2.0))
    w = leaf(L, (3.0, 4.0))
    y = x * w
    if pre:
        y.grad_fn.register_prehook(hook)
    else:
        y.grad_fn.register_hook(hook)
    y.sum().backward()


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name):
    def error(L):
        try:
            ERRORS[name](L)
        except Exception as exc:  # noqa: BLE001 - the exception itself is what is compared
            return exc
        raise AssertionError(f"{L.__name__} raised nothing")

    ours, theirs = error(cr), error(torch)
    assert type(ours) is type(theirs)
    assert str(ours) == str(theirs)


# ----- autograd.grad and backward(inputs=) run only the nodes leading to their inputs -----


def test_grad_runs_no_hook_of_nodes_that_lead_to_no_input():
    def run(L, log):
        x = leaf(L)
        acc = (x * 2).grad_fn.next_functions[0][0]
        acc.register_hook(lambda gi, go: log.append("leaf node hook"))
        acc.register_prehook(lambda go: log.append("leaf node prehook"))
        x.register_post_accumulate_grad_hook(lambda t: log.append("post"))
        y = x * 2
        z = y * 3
        y.grad_fn.register_hook(lambda gi, go: log.append("y node hook"))
        y.grad_fn.register_prehook(lambda go: log.append("y node prehook"))
        y.register_hook(lambda g: log.append(("y tensor hook", _v(g))))
        log.append(_v(L.autograd.grad(z.sum(), y, retain_graph=True)))
        log.append("--")
        log.append(_v(L.autograd.grad(z.sum(), x, retain_graph=True)))
        log.append("--")
        w = leaf(L)
        (z * w).sum().backward(inputs=[w])
        log.append((_v(w.grad), _v(x.grad)))

    compare_logs(run)


def test_grad_captures_before_the_node_prehooks():
    def run(L, log):
        x = leaf(L)
        y = x * 2
        z = y * 3
        y.grad_fn.register_prehook(lambda go: (go[0] * 100,))
        log.append(_v(L.autograd.grad(z.sum(), [y, x])))

    compare_logs(run)


def test_grad_leaves_unrun_nodes_able_to_run_later():
    """Nodes grad() did not need keep their saved values for a later backward."""

    def run(L, log):
        x = L.tensor([1.0, 2.0, 3.0], dtype=L.float64, requires_grad=True)
        y = x.exp()
        z = (y * y).sum()
        log.append([round(v, 4) for v in L.autograd.grad(z, y)[0].tolist()])
        u = y.sin().sum()
        u.backward()
        log.append([round(v, 4) for v in x.grad.tolist()])

    compare_logs(run)


# ----- hooks on tensors in the engine's own scenarios -------------------------------------


def test_leaf_hook_sees_and_replaces_the_gradient():
    def f(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        seen = []
        h = x.register_hook(lambda g: seen.append(g.clone()))
        (x * 3).sum().backward()
        h.remove()
        (x * 3).sum().backward()
        g1 = x.grad.clone()
        x.grad = None
        h2 = x.register_hook(lambda g: g * 10)
        (x * 3).sum().backward()
        g2 = x.grad.clone()
        h2.remove()
        h2.remove()  # a second remove does nothing
        x.grad = None
        (x * 3).sum().backward()
        return seen, g1, g2, x.grad

    compare(f)


def test_non_leaf_hook_replaces_the_gradient():
    def f(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        h = y.register_hook(lambda g: g * 10)
        (y * y).sum().backward()
        g1 = x.grad.clone()
        h.remove()
        x.grad = None
        y2 = x * 2
        (y2 * y2).sum().backward()
        return g1, x.grad

    compare(f)


def test_hooks_run_in_order_and_before_retain_grad():
    def f(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.retain_grad()
        y.register_hook(lambda g: g + 1)
        y.register_hook(lambda g: g * 10)
        y.register_hook(lambda g: None)
        (y * y).sum().backward()
        x2 = L.tensor([1.0, 2.0], requires_grad=True)
        x2.register_hook(lambda g: g * 2)
        x2.register_hook(lambda g: g + 1)
        (x2 * 3).sum().backward()
        return x.grad, y.grad, x2.grad

    compare(f)


def test_hooks_on_one_tensor_see_one_gradient_object():
    """The hooks of a tensor get the same gradient object until one returns another, which
    the next ones get: an attribute a later hook sets on it is seen through an earlier
    hook's reference (captum's LRP passes its relevance on this way)."""

    def run(L, log):
        x = L.tensor([1.0, -2.0], requires_grad=True)
        y = x * 3
        seen = []

        def mark(g):
            seen.append(g)
            g.marked = g * 10
            return g.marked

        y.register_hook(seen.append)
        y.register_hook(lambda g: seen.append(g))
        y.register_hook(mark)
        y.register_hook(seen.append)
        x.register_hook(seen.append)
        x.register_hook(lambda g: g + 1)
        x.register_hook(seen.append)
        (y * L.tensor([1.0, 2.0])).sum().backward()
        log.append([s is seen[0] for s in seen[:3]])
        log.append((seen[3] is seen[2].marked, _v(seen[0].marked), _v(seen[3])))
        log.append((seen[4] is not seen[5], _v(seen[4]), _v(seen[5]), _v(x.grad)))

    compare_logs(run)


def test_retain_grad_then_in_place_op():
    """.grad of a tensor retaining grad is the gradient of its current value."""

    def f(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.retain_grad()
        y.mul_(3)
        (y * y).sum().backward()
        return y.grad, y.retains_grad, x.grad

    compare(f)


def test_hook_on_tensor_not_requiring_grad_raises():
    assert_same_error(lambda L: L.tensor([1.0, 2.0]).register_hook(lambda g: g))


def test_hook_handle_context_manager():
    x = cr.tensor([1.0, 2.0], requires_grad=True)
    with x.register_hook(lambda g: g * 0):
        (x * 3).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
