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

from .._backend import ndarray
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
    (``chainrule.explain`` uses it).
    """
    deps = _count_dependencies([n for n, _ in roots])
    buffers: dict[Node, list] = {}
    for (node, nr), g in zip(roots, grads):
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * node.n_outputs
        buf[nr] = g if buf[nr] is None else buf[nr] + g
    ready = [n for n in buffers if deps[n] == 0]
    ready.reverse()
    prev_enabled = _state.enabled
    _state.enabled = create_graph
    try:
        while ready:
            node = ready.pop()
            grad_outputs = buffers.pop(node, None)
            if grad_outputs is not None:
                extra = node._extra
                if extra is not None:
                    if extra.pre is not None or extra.retained is not None:
                        grad_outputs = _tensor_hooks(node, grad_outputs, create_graph)
                    if extra.prehooks:
                        grad_outputs = _node_prehooks(node, grad_outputs, create_graph)
                if capture is not None:
                    for nr, g in enumerate(grad_outputs):
                        key = (node, nr)
                        if key in capture and g is not None:
                            capture[key] = g
                    g = None
                if grad_outputs[0] is None and (
                    len(grad_outputs) == 1 or all(g is None for g in grad_outputs)
                ):
                    grad_outputs = None
            if type(node) is AccumulateGrad:
                if observe is not None and grad_outputs is not None:
                    observe(node, grad_outputs, ())
                if grad_outputs is not None and accumulate:
                    if restrict is None or node in restrict:
                        _accumulate(node, grad_outputs[0], create_graph)
                continue
            edges = node._next
            if grad_outputs is None:
                grad_inputs = (None,) * len(edges)
            else:
                grad_inputs = node.apply(grad_outputs, create_graph)
                if _anomaly.enabled:
                    check_gradients(node, grad_inputs)
                if observe is not None:
                    observe(node, grad_outputs, grad_inputs)
                if node._extra is not None and node._extra.hooks:
                    grad_inputs = _node_hooks(node, grad_inputs, grad_outputs, create_graph)
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
                        buf[nr] = g if old is None else old + g
                d = deps[nxt] - 1
                if d:
                    deps[nxt] = d
                else:
                    del deps[nxt]
                    ready.append(nxt)
            g = grad_inputs = None  # drop references: _accumulate counts them
    finally:
        _state.enabled = prev_enabled
    return capture


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


def _accumulate(acc: AccumulateGrad, grad: Any, create_graph: bool) -> None:
    """``variable.grad += grad``; the first gradient is stored without a copy when unshared."""
    from .._tensor import _make

    var = acc.variable
    if var._hooks:
        grad = _run_tensor_hooks(var._hooks.values(), grad, create_graph)
        if grad is None:
            return
    old = var._grad
    if create_graph:
        var._grad = grad if old is None else old + grad
    elif old is None:
        # Two references here (the local and getrefcount's argument) mean nobody else
        # holds this array: keep it. Otherwise copy, so .grad never aliases a user's tensor.
        if type(grad) is not ndarray or _refcount(grad) > 3 or not grad.flags.owndata:
            grad = grad.copy()
        var._grad = _make(grad, var._dtype)
    elif old._requires_grad:
        var._grad = old + _make(grad, var._dtype)
    else:
        old._data += grad
        old._bump()


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
        out = hook(_as_tensor(grad))
        if out is not None:
            grad = _as_raw(out, create_graph)
    return grad


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
        out = hook(tuple(_as_tensor(g) for g in grad_outputs))
        if out is not None:
            grad_outputs = [_as_raw(g, create_graph) for g in out]
    return grad_outputs


def _node_hooks(node: Node, grad_inputs: list, grad_outputs: list, create_graph: bool) -> list:
    for hook in list(node._extra.hooks.values()):
        out = hook(
            tuple(_as_tensor(g) for g in grad_inputs), tuple(_as_tensor(g) for g in grad_outputs)
        )
        if out is not None:
            grad_inputs = [_as_raw(g, create_graph) for g in out]
    return grad_inputs
