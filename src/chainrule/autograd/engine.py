"""The reverse-mode engine: one dependency count, one loop, no recursion.

``run_backward`` takes root nodes and their output gradients, counts for every
reachable node how many edges lead into it, then runs nodes whose count has
dropped to zero. Each node turns the gradients of its outputs into gradients
of its inputs (its VJP); the engine adds those into the buffers of the next
nodes. AccumulateGrad nodes add into a leaf's ``.grad``. A million-node chain
takes a million loop iterations and no stack.
"""

from __future__ import annotations

import sys
from typing import Any

from .._backend import current as _current
from .._backend import live as _live
from .._backend import loud, ndarray, quiet, xp
from .._backend import use as _use
from . import grad_mode
from .anomaly_mode import _anomaly, check_gradients
from .graph import AccumulateGrad, Node

_state = grad_mode._state
_refcount = sys.getrefcount


def run_backward(
    roots: list[tuple[Node, int]],
    grads: list[Any],
    retain_graph: bool,
    create_graph: bool,
    capture: dict | None = None,
    accumulate: bool = True,
    restrict: set | None = None,
    observe: Any = None,
) -> dict | None:
    """Backpropagate ``grads`` from ``roots`` (each a (node, output_nr)).

    ``capture`` maps (node, output_nr) pairs to a slot: the total gradient arriving
    there is stored instead of (or as well as) being accumulated. ``restrict``, when
    given, is the set of AccumulateGrad nodes allowed to accumulate (``inputs=``).
    ``observe(node, grad_outputs, grad_inputs)``, when given, sees every step
    (``chainrule.explain`` uses it). Otherwise, with ``capture`` or ``restrict``, only
    the nodes that lead to a captured or allowed node run, as in PyTorch.
    """
    deps = _count_dependencies([n for n, _ in roots])
    wanted = None  # with grad() or inputs=: the nodes that lead to an input
    if (capture is not None or restrict is not None) and observe is None:
        targets = {n for n, _ in capture} if capture is not None else set()
        if restrict is not None:
            targets |= restrict
        wanted = _leading_to(deps, targets)
    buffers: dict[Node, list] = {}
    for (node, nr), g in zip(roots, grads):
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * node.n_outputs
        buf[nr] = g if buf[nr] is None else _sum(buf[nr], g)
    ready = [n for n in buffers if deps[n] == 0]
    ready.reverse()
    prev_enabled = _state.enabled
    _state.enabled = create_graph
    # VJPs produce inf and nan where the math does (sqrt'(0), log'(0)): silently, as PyTorch
    token = quiet()
    previous = _current[0]
    try:
        while ready:
            node = ready.pop()
            grad_outputs = buffers.pop(node, None)
            if wanted is not None and node not in wanted:
                continue  # leads to no input: not run, as in PyTorch (nor are its hooks)
            if grad_outputs is not None:
                if type(node) is AccumulateGrad and node.variable._hooks:
                    if restrict is None or node in restrict:  # a leaf's hooks run first
                        grad_outputs = _leaf_hooks(node, grad_outputs, create_graph)
                extra = node._extra
                if extra is not None and (extra.pre is not None or extra.retained is not None):
                    grad_outputs = _tensor_hooks(node, grad_outputs, create_graph)
                if capture is not None:
                    for nr, g in enumerate(grad_outputs):
                        key = (node, nr)
                        if key in capture and g is not None:
                            capture[key] = g
                    g = None
                    if wanted is not None and not _runs(node, wanted, accumulate, restrict):
                        grad_outputs = None  # only read here: the node itself is not run
                if grad_outputs is not None and extra is not None and extra.prehooks:
                    grad_outputs = _node_prehooks(node, grad_outputs, create_graph)
            if grad_outputs is not None:
                if grad_outputs[0] is None and (
                    len(grad_outputs) == 1 or all(g is None for g in grad_outputs)
                ):
                    grad_outputs = None
            if type(node) is AccumulateGrad:
                if observe is not None and grad_outputs is not None:
                    observe(node, grad_outputs, ())
                if grad_outputs is not None:
                    if accumulate and (restrict is None or node in restrict):
                        _accumulate(node, grad_outputs[0], create_graph)
                    if node._extra is not None and node._extra.hooks:
                        _node_hooks(node, (), grad_outputs, create_graph)
                continue
            edges = node._next
            if grad_outputs is None:
                grad_inputs = (None,) * len(edges)
            else:
                # a VJP may write its result into a gradient nothing else holds
                # (ops/_scratch.py): hold the ones that observers and hooks read after it
                held = tuple(grad_outputs) if observe or (node._extra and node._extra.hooks) else ()
                if _live[0]:  # on a device: its module is current while the VJPs run
                    _use(grad_outputs)
                grad_inputs = node.apply(grad_outputs, create_graph)
                if _anomaly.enabled:
                    check_gradients(node, grad_inputs)
                if observe is not None:
                    observe(node, grad_outputs, grad_inputs)
                if node._extra is not None and node._extra.hooks:
                    grad_inputs = _node_hooks(node, grad_inputs, grad_outputs, create_graph)
                del held
                if not retain_graph and node._plan.frees:
                    node._saved = None  # free what was saved (nodes that saved none can rerun)
            for (nxt, nr), g in zip(edges, grad_inputs):
                if nxt is None:
                    continue
                if g is not None:
                    buf = buffers.get(nxt)
                    if buf is None:
                        buffers[nxt] = [g] if nxt.n_outputs == 1 else _slot(nxt.n_outputs, nr, g)
                    else:
                        old = buf[nr]
                        buf[nr] = g if old is None else _sum(old, g)
                d = deps[nxt] - 1
                if d:
                    deps[nxt] = d
                else:
                    del deps[nxt]
                    ready.append(nxt)
            g = grad_inputs = None  # drop references: _accumulate counts them
    finally:
        loud(token)
        _state.enabled = prev_enabled
        _current[0] = previous
    return capture


def _leading_to(deps: dict[Node, int], targets: set) -> set:
    """The nodes among ``deps`` (all reachable ones) from which a node in ``targets`` is
    reached: the only ones ``grad()`` or ``backward(inputs=...)`` needs to run."""
    parents: dict[Node, list] = {}
    for node in deps:
        for nxt, _ in node._next:
            if nxt is not None:
                p = parents.get(nxt)
                if p is None:
                    parents[nxt] = [node]
                else:
                    p.append(node)
    wanted = {t for t in targets if t in deps}
    stack = list(wanted)
    while stack:
        for p in parents.get(stack.pop(), ()):
            if p not in wanted:
                wanted.add(p)
                stack.append(p)
    return wanted


def _runs(node: Node, wanted: set, accumulate: bool, restrict: set | None) -> bool:
    """Whether a node whose gradient is captured also runs (it leads on to an input)."""
    if type(node) is AccumulateGrad:
        return accumulate and (restrict is None or node in restrict)
    return any(n in wanted for n, _ in node._next)


def _slot(n: int, nr: int, g: Any) -> list:
    buf = [None] * n
    buf[nr] = g
    return buf


def _count_dependencies(roots: list[Node]) -> dict[Node, int]:
    """For every node reachable from ``roots``, the number of edges that lead into it."""
    deps = dict.fromkeys(roots, 0)
    stack = list(deps)
    while stack:
        for nxt, _ in stack.pop()._next:
            if nxt is None:
                continue
            if nxt in deps:
                deps[nxt] += 1
            else:
                deps[nxt] = 1
                stack.append(nxt)
    return deps


def _sum(a: Any, b: Any) -> Any:
    """Two gradients of one output added (an array stays an array: NumPy makes a scalar of
    0-d arithmetic, and a later VJP may write into the sum)."""
    total = a + b
    return xp.asarray(total) if isinstance(total, xp.generic) else total


def _accumulate(acc: AccumulateGrad, grad: Any, create_graph: bool) -> None:
    """``variable.grad += grad``; the first gradient is stored without a copy when unshared."""
    from .._tensor import _make

    var = acc.variable
    if grad is None:
        return
    old = var._grad
    if create_graph:
        var._grad = grad if old is None else old + grad
    elif old is None:
        # Two references here (the local and getrefcount's argument) mean nobody else
        # holds this array: keep it. Otherwise copy, so .grad never aliases a user's tensor.
        if type(grad) is not ndarray or _refcount(grad) > 3 or not _owns_memory(grad):
            grad = grad.copy()
        var._grad = _make(grad, var._dtype)
    elif old._requires_grad:
        var._grad = old + _make(grad, var._dtype)
    else:
        old._data += grad
        old._bump()
    post = getattr(var, "_post_hooks", None)
    if post:
        for hook in list(post.values()):
            hook(var)


def _owns_memory(grad: ndarray) -> bool:
    """Whether ``grad`` is the only way to its memory: it owns it, or it is a contiguous view
    of all of an array nothing else refers to (a weight's gradient computed transposed and
    transposed back, a gradient reinterpreted from integer bits)."""
    if grad.flags.owndata:
        return True
    base = grad.base
    return (
        type(base) is ndarray
        and _refcount(base) == 3  # grad's reference, the local and getrefcount's argument
        and base.flags.owndata
        and grad.flags.c_contiguous
        and grad.nbytes == base.nbytes
    )


def _leaf_hooks(acc: AccumulateGrad, grad_outputs: list, create_graph: bool) -> list:
    """A leaf's tensor hooks, before its node's prehooks and before ``autograd.grad`` reads."""
    return [_run_tensor_hooks(acc.variable._hooks.values(), grad_outputs[0], create_graph)]


def _as_tensor(g: Any):
    from .._tensor import Tensor, wrap

    return g if isinstance(g, Tensor) or g is None else wrap(g)


def _as_raw(g: Any, create_graph: bool):
    from .._tensor import Tensor

    if g is None or create_graph:
        return g
    return g._data if isinstance(g, Tensor) else g


def _run_tensor_hooks(hooks, grad, create_graph: bool):
    for hook in list(hooks):
        before = _as_tensor(grad)
        out = hook(before)
        if out is not None:
            _check_hook_value(hook, before, out)
            grad = _as_raw(out, create_graph)
    return grad


def _check_hook_value(hook, before, out) -> None:
    """A hook's replacement gradient keeps the tensor type and size, as PyTorch requires."""
    from .._tensor import Tensor

    name = getattr(hook, "__name__", repr(hook))
    if not isinstance(out, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(out).__name__}'")
    if before is None:
        return
    if out.dtype is not before.dtype:
        raise RuntimeError(
            f"hook '{name}' has changed the type of value (was {before.dtype.legacy_type} "
            f"got {out.dtype.legacy_type})"
        )
    if out.shape != before.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value")


def _check_hook_count(hook, out, expected: int) -> None:
    if len(out) != expected:
        name = getattr(hook, "__name__", repr(hook))
        raise RuntimeError(
            f"hook '{name}' has returned an incorrect number of values (got {len(out)}, but "
            f"expected {expected})"
        )


def _tensor_hooks(node: Node, grad_outputs: list, create_graph: bool) -> list:
    """Tensor hooks of non-leaf outputs, then retain_grad (always last, as in PyTorch)."""
    from .._tensor import _make

    grad_outputs = list(grad_outputs)
    extra = node._extra
    if extra.pre is not None:
        for nr, hooks in extra.pre.items():
            if grad_outputs[nr] is not None and hooks:
                grad_outputs[nr] = _run_tensor_hooks(hooks.values(), grad_outputs[nr], create_graph)
    if extra.retained is not None:
        for nr, ref in extra.retained.items():
            t = ref()
            g = grad_outputs[nr]
            if t is None or g is None:
                continue
            if create_graph:
                t._grad = g if t._grad is None else t._grad + g
            elif t._grad is None:
                t._grad = _make(g.copy(), t._dtype)
            else:
                t._grad = _make(t._grad._data + g, t._dtype)
    return grad_outputs


def _node_prehooks(node: Node, grad_outputs: list, create_graph: bool) -> list:
    for hook in list(node._extra.prehooks.values()):
        before = tuple(_as_tensor(g) for g in grad_outputs)
        out = hook(before)
        if out is not None:
            _check_hook_count(hook, out, len(before))
            for b, g in zip(before, out):
                if g is not None:
                    _check_hook_value(hook, b, g)
            grad_outputs = [_as_raw(g, create_graph) for g in out]
    return grad_outputs


def _node_hooks(node: Node, grad_inputs: list, grad_outputs: list, create_graph: bool) -> list:
    for hook in list(node._extra.hooks.values()):
        before = tuple(_as_tensor(g) for g in grad_inputs)
        out = hook(before, tuple(_as_tensor(g) for g in grad_outputs))
        if out is not None:
            _check_hook_count(hook, out, len(before))
            for b, g in zip(before, out):
                if g is not None:
                    _check_hook_value(hook, b, g)
            grad_inputs = [_as_raw(g, create_graph) for g in out]
    return grad_inputs
