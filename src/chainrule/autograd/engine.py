"""The reverse-mode engine: one dependency count, one loop, no recursion.

``run_backward`` takes root nodes and their output gradients, counts for every
reachable node how many edges lead into it, then runs nodes whose count has
dropped to zero. Each node turns the gradients of its outputs into gradients
of its inputs (its VJP); the engine adds those into the buffers of the next
nodes. AccumulateGrad nodes add into a leaf's ``.grad``. A million-node chain
takes a million loop iterations and no stack.

The schedule is PyTorch's: of the nodes ready to run, the one made last (the highest
creation number, ``Node._seq``; a leaf's AccumulateGrad highest of all) runs first, from a
binary heap that behaves as PyTorch's ready queue (nodes of one number, leaves', keep its
order). So hooks run, and gradients arriving at a node add up, in PyTorch's order.

Two loops run that schedule. ``_run_plain`` serves ``backward()``: a node with
one consumer gets its gradient handed straight on (no buffer, and no trip through the
queue while nothing else waits there), and hooks, retained gradients and leaf hooks are handled by ``_hooked_step``,
called only for a node that has any. ``_run_general`` serves the rest: ``grad()``
and ``backward(inputs=...)`` (gradients captured, only the nodes leading to an input
run), an observer (``chainrule.explain``) and anomaly detection.
``tests/autograd/test_engine_paths.py`` pins the first to the second. While a
multi-grad hook lives (``autograd.graph.register_multi_grad_hook``), every backward takes
the second as a ``GraphTask`` the hook can ask about; otherwise that costs one test.
"""

from __future__ import annotations

import sys
import threading
from heapq import heappop, heappush
from typing import Any

from .. import _memory_format
from .._backend import current as _current
from .._backend import is_lent, loud, ndarray, quiet, unlend, unlend_waiting, xp
from .._backend import live as _live
from .._backend import use as _use
from .._dtypes import _FROM_NP as _from_np
from .._meta import follow_grads as _follow_grads
from .._modes import set_enabled
from .._tensor import GRAD_DTYPES, Tensor, _make, wrap
from . import grad_mode
from .anomaly_mode import _anomaly, check_gradients
from .graph import AccumulateGrad, Node, accumulator
from .recording import PROFILER

_state = grad_mode._state
_refcount = sys.getrefcount

# Tests turn this off to run every backward through the general loop.
_plain_enabled = True


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
    if _tracked:  # a multi-grad hook lives: it asks which backward runs and what it runs
        return _run_tracked(
            roots, grads, retain_graph, create_graph, capture, accumulate, restrict, observe
        )
    if (
        restrict is None
        and observe is None
        and _plain_enabled
        and not _anomaly.enabled
        and PROFILER[0] is None  # (a profiler records each node: the general loop)
        and (capture is None or not accumulate)
    ):
        if capture is not None:
            return _run_grad(roots, grads, retain_graph, create_graph, capture)
        if len(roots) == 1:
            (node, nr), g = roots[0], grads[0]
            n = node.n_outputs
            ready = [(-node._seq, node, [g] if n == 1 else _slot(n, nr, g))]
            _run_plain(ready, _count_dependencies([node], True), retain_graph, create_graph)
            return None
        deps = _count_dependencies([n for n, _ in roots], True)
        buffers = _root_buffers(roots, grads)
        if all(deps[n] == 0 for n in buffers):  # (else a root is reached from another one)
            _run_plain(_queue(buffers), deps, retain_graph, create_graph)
            return None
    return _run_general(
        roots, grads, retain_graph, create_graph, capture, accumulate, restrict, observe
    )


# Multi-grad hooks (multi_grad_hook.py) ask which backward is running (a graph task) and
# whether it will run a node. While one lives (``_tracked`` counts them) every backward runs
# as a task on the general loop; otherwise nothing here is touched.
_tracked = 0
_task_ids = iter(range(1 << 62))


class _Tasks(threading.local):
    running: list | None = None  # this thread's tasks, innermost last


_tasks = _Tasks()


class GraphTask:
    """One run of the engine: its id, the nodes it will run (those reachable from the
    roots, or with ``grad()`` and ``inputs=`` those that lead to an input), and whether it
    is a ``grad()`` (which refuses to say whether it runs a leaf's node that is one of its
    inputs, as PyTorch does)."""

    __slots__ = ("id", "will_run", "is_grad")

    def __init__(self, will_run: set, is_grad: bool) -> None:
        self.id = next(_task_ids)
        self.will_run = will_run
        self.is_grad = is_grad

    def will_execute(self, node: Node) -> bool:
        """Whether this run will run ``node`` (PyTorch's ``_will_engine_execute_node``)."""
        runs = node in self.will_run
        if runs and self.is_grad and node.__class__ is AccumulateGrad:  # (an input of grad())
            raise RuntimeError(
                "A leaf node was passed to _will_engine_execute_node but we are currently "
                "running autograd.grad(). This is currently not supported."
            )
        return runs


def current_task() -> GraphTask | None:
    """The innermost backward running in this thread, or None outside backward."""
    return _tasks.running[-1] if _tasks.running else None


def _run_tracked(
    roots: list,
    grads: list,
    retain_graph: bool,
    create_graph: bool,
    capture: dict | None,
    accumulate: bool,
    restrict: set | None,
    observe: Any,
) -> dict | None:
    """``run_backward`` as a task others can ask about, on the general loop."""
    deps = _count_dependencies([n for n, _ in roots])
    if (capture is not None or restrict is not None) and observe is None:
        targets = {n for n, _ in capture} if capture is not None else set()
        will_run = _leading_to(deps, targets | restrict if restrict is not None else targets)
    else:
        will_run = set(deps)
    if _tasks.running is None:
        _tasks.running = []
    running = _tasks.running
    running.append(GraphTask(will_run, capture is not None and not accumulate))
    try:
        return _run_general(
            roots, grads, retain_graph, create_graph, capture, accumulate, restrict, observe, deps
        )
    finally:
        running.pop()


def _run_grad(
    roots: list, grads: list, retain_graph: bool, create_graph: bool, capture: dict
) -> dict:
    """``grad()``: on ``_run_plain`` where the general loop would leave no node out
    (``_captures_every_leaf``), else on ``_run_general`` with the counts made here."""
    deps = _count_dependencies([n for n, _ in roots])
    if _captures_every_leaf(deps, capture):
        buffers = _root_buffers(roots, grads)
        if all(deps[n] == 0 for n in buffers):  # (else a root is reached from another one)
            _run_plain(_queue(buffers), deps, retain_graph, create_graph, capture)
            return capture
    return _run_general(roots, grads, retain_graph, create_graph, capture, False, None, None, deps)


def _captures_every_leaf(deps: dict[Node, int], capture: dict) -> bool:
    """Whether ``grad()`` may run on ``_run_plain``: its inputs are leaves without hooks
    (their AccumulateGrad nodes, captured instead of accumulated) and include every leaf
    the graph reaches, and every other node has an edge on. Then every node leads to an
    input and ``_run_general`` would leave none out (a Hessian-vector product's two
    ``grad`` calls over all the weights)."""
    for node, _ in capture:
        if node.__class__ is not AccumulateGrad or node._extra is not None or node.variable._hooks:
            return False
    for node in deps:
        if node.__class__ is AccumulateGrad:
            if (node, 0) not in capture:
                return False
            continue
        arity = node._arity
        if arity == 1:
            if node._fn0 is None:
                return False
        elif arity == 2:
            if node._fn0 is None and node._fn1 is None:
                return False
        elif arity == 0 or (
            node._fn0 is None and node._fn1 is None and all(r[0] is None for r in node._rest)
        ):
            return False  # no edge on (_next, read from the slots)
    return True


def _queue(buffers: dict) -> list:
    """The ready queue of the roots: (-creation number, node, gradients), a heap, the roots
    pushed in order (as PyTorch's graph root hands them on)."""
    ready: list = []
    for node, buf in buffers.items():
        heappush(ready, (-node._seq, node, buf))
    return ready


def _root_buffers(roots: list, grads: list) -> dict:
    """Per root node, the gradients of its outputs (summed where a root repeats)."""
    buffers: dict[Node, list] = {}
    for (node, nr), g in zip(roots, grads):
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * node.n_outputs
        buf[nr] = g if buf[nr] is None else _sum(buf[nr], g)
    return buffers


def _run_plain(
    ready: list, deps: dict, retain_graph: bool, create_graph: bool, capture: dict | None = None
) -> None:
    """``backward()`` without captures, observer or anomaly detection; ``grad()`` whose
    inputs are every leaf reached (``_captures_every_leaf``), their gradients stored in
    ``capture`` rather than accumulated.

    ``ready`` is the queue, a heap of (-creation number, node, gradients of its outputs). A
    node one edge leads into (``deps`` 1) gets its gradients as soon as that edge delivers
    them; only nodes several edges lead into keep a buffer (and a count of edges still to
    come). The nodes a step makes ready go into the queue in the order of the edges, and
    the queue's first runs next, except that a lone ready node runs at once while the queue
    is empty (pushing and popping it would change nothing): the schedule of
    ``_run_general``.
    """
    buffers: dict[Node, list] = {}  # nodes several edges lead into: their gradients so far
    left: dict[Node, int] = {}  # ... and the number of those edges yet to deliver
    prev_enabled = _state.enabled
    set_enabled(create_graph)
    token = quiet()  # (VJPs make inf and nan where the math does, silently as PyTorch)
    previous = _current[0]
    prev_lending = _state.lending
    # VJPs may lend saved arrays: copied before user code sees them, and those still waiting
    # in ``ready`` and ``buffers`` before user code runs (_backend.unlend_waiting)
    _state.lending = (ready, buffers)
    try:
        _, node, grad_outputs = heappop(ready)
        while True:
            if grad_outputs is not None and grad_outputs[0] is None:
                if len(grad_outputs) == 1 or all(g is None for g in grad_outputs):
                    grad_outputs = None  # nothing arrived: the node passes None on
            if node._extra is not None:  # hooks, a retained gradient
                grad_inputs = _hooked_step(node, grad_outputs, retain_graph, create_graph)
                if grad_inputs is None:  # (a leaf's node)
                    if not ready:
                        break
                    _, node, grad_outputs = heappop(ready)
                    continue
            elif node.__class__ is AccumulateGrad:
                if grad_outputs is not None:
                    if capture is not None:  # grad(): (no hooks: _captures_every_leaf)
                        capture[(node, 0)] = unlend(grad_outputs[0])
                    elif node.variable._hooks:
                        _hooked_step(node, grad_outputs, retain_graph, create_graph)
                    else:
                        _accumulate(node, grad_outputs[0], create_graph)
                elif _listens(node):  # (its hooks see None, as PyTorch's)
                    _hooked_step(node, None, retain_graph, create_graph)
                if not ready:
                    break
                _, node, grad_outputs = heappop(ready)
                continue
            elif grad_outputs is None:
                if _listens(node):  # a custom Function's backward runs on no gradient
                    grad_inputs = _hooked_step(node, None, retain_graph, create_graph)
                else:
                    grad_inputs = (None,) * node._arity
            else:
                if _live[0]:  # on a device: its module is current while the VJPs run
                    _use(grad_outputs)
                    grad_inputs = _follow_grads(
                        grad_outputs, node.apply(grad_outputs, create_graph)
                    )
                else:
                    grad_inputs = node.apply(grad_outputs, create_graph)
                if not retain_graph and node._plan.frees:
                    node._saved = node._in0 = node._in1 = (
                        None  # free what was saved (nodes that saved none can rerun)
                    )
            grad_outputs = None  # (_add_into counts the references to a gradient)
            arity = node._arity
            if arity == 1 or (arity == 2 and node._fn1 is None):  # one edge
                nxt = node._fn0
                if nxt is not None and (nxt not in deps or deps[nxt] == 1):  # ... its only one
                    n = nxt.n_outputs
                    g = grad_inputs[0]
                    grad_outputs = [g] if n == 1 else _slot(n, node._nr0, g)
                    g = grad_inputs = None  # (_accumulate counts the references to a gradient)
                    if ready:  # (others wait: the queue says which runs next)
                        heappush(ready, (-nxt._seq, nxt, grad_outputs))
                        _, node, grad_outputs = heappop(ready)
                    else:
                        node = nxt
                    continue
            if arity == 1:
                edges = ((node._fn0, node._nr0),)
            elif arity == 2:
                edges = ((node._fn0, node._nr0), (node._fn1, node._nr1))
            elif arity == 3:  # (the walk that counted the edges made the leaves' nodes)
                edges = ((node._fn0, node._nr0), (node._fn1, node._nr1), node._rest[0][:2])
            else:
                edges = node._next
            # a lone node this step makes ready runs next while the queue is empty
            following = following_grads = None
            for (nxt, nr), g in zip(edges, grad_inputs):
                if nxt is None:
                    continue
                d = deps.get(nxt, 1)
                if d == 1:
                    n = nxt.n_outputs
                    got = [g] if n == 1 else _slot(n, nr, g)
                else:
                    if g is not None:
                        buf = buffers.get(nxt)
                        if buf is None:
                            n = nxt.n_outputs
                            buffers[nxt] = [g] if n == 1 else _slot(n, nr, g)
                        else:
                            old = buf[nr]
                            buf[nr] = g if old is None else _add_into(old, g)
                    d = left.get(nxt, d) - 1
                    if d:
                        left[nxt] = d
                        continue
                    del left[nxt]
                    got = buffers.pop(nxt, None)
                if following is None and not ready:
                    following, following_grads = nxt, got
                    continue
                if following is not None:  # (a second one: both go into the queue, in order)
                    heappush(ready, (-following._seq, following, following_grads))
                    following = following_grads = None
                heappush(ready, (-nxt._seq, nxt, got))
            g = got = grad_inputs = old = None  # (_accumulate counts the references)
            if following is not None:
                node, grad_outputs = following, following_grads
                following = following_grads = None  # (_accumulate counts the references)
                continue
            if not ready:
                break
            _, node, grad_outputs = heappop(ready)
    finally:
        loud(token)
        set_enabled(prev_enabled)
        _current[0] = previous
        _state.lending = prev_lending


def _hooked_step(node: Node, grad_outputs: list | None, retain_graph: bool, create_graph: bool):
    """One step of ``_run_plain`` for a node with hooks or a retained gradient, or for a
    leaf's node whose leaf has hooks, as ``_run_general`` takes it: the gradients for the
    node's inputs, or None for a leaf's node."""
    unlend_waiting()  # (hooks may write into a forward tensor whose memory was lent)
    if grad_outputs is None and _listens(node):
        grad_outputs = [None] * node.n_outputs  # PyTorch runs it all the same: hooks see None
    if grad_outputs is not None:
        grad_outputs = _unlent(grad_outputs)  # (hooks may keep them or write into them)
        extra = node._extra
        if node.__class__ is AccumulateGrad and node.variable._hooks:
            grad_outputs = _leaf_hooks(node, grad_outputs, create_graph)  # a leaf's hooks first
        if extra is not None and (extra.pre is not None or extra.retained is not None):
            grad_outputs = _tensor_hooks(node, grad_outputs, create_graph)
        if extra is not None and extra.prehooks:
            grad_outputs = _node_prehooks(node, grad_outputs, create_graph)
    if node.__class__ is AccumulateGrad:
        if grad_outputs is not None:
            if grad_outputs[0] is None:
                _post_accumulate(node.variable)
            else:
                _accumulate(node, grad_outputs[0], create_graph)
            if node._extra is not None and node._extra.hooks:
                _node_hooks(node, (), grad_outputs, create_graph)
        return None
    if grad_outputs is None:
        return (None,) * node._arity
    hooked = node._extra is not None and node._extra.hooks
    if all(g is None for g in grad_outputs) and not _is_function_node(node):
        grad_inputs = [None] * node._arity  # (its VJPs give None for no gradient)
        if hooked:
            grad_inputs = _node_hooks(node, grad_inputs, grad_outputs, create_graph)
        return grad_inputs
    if _live[0]:
        _use(grad_outputs)
    # (the node's hooks read grad_outputs after the VJPs: held, so none writes into them,
    # ops/_scratch.py)
    held = tuple(grad_outputs) if hooked else ()
    grad_inputs = node.apply(grad_outputs, create_graph)
    if _live[0]:
        grad_inputs = _follow_grads(grad_outputs, grad_inputs)
    if hooked:
        unlend_waiting()
        grad_inputs = _unlent(grad_inputs)
        grad_inputs = _node_hooks(node, grad_inputs, grad_outputs, create_graph)
    del held
    if not retain_graph and node._plan.frees:
        node._saved = node._in0 = node._in1 = None
    return grad_inputs


def _unlent(grads: Any) -> Any:
    """``grads`` with its lent arrays copied (``_backend.lend``), the same list if none is."""
    for g in grads:
        if is_lent(g):
            return [unlend(h) for h in grads]
    return grads


def _run_general(
    roots: list[tuple[Node, int]],
    grads: list[Any],
    retain_graph: bool,
    create_graph: bool,
    capture: dict | None,
    accumulate: bool,
    restrict: set | None,
    observe: Any,
    deps: dict | None = None,
) -> dict | None:
    """``run_backward`` with everything: captures, ``inputs=``, an observer, anomaly checks
    (``deps``: the dependency counts, where the caller has them)."""
    if deps is None:
        deps = _count_dependencies([n for n, _ in roots])
    wanted = None  # with grad() or inputs=: the nodes that lead to an input
    captured = {n for n, _ in capture} if capture is not None else set()
    targets = captured | restrict if restrict is not None else captured
    if (capture is not None or restrict is not None) and observe is None:
        wanted = _leading_to(deps, targets)
    buffers = _root_buffers(roots, grads)
    ready: list = []  # the queue: a heap of (-creation number, node)
    for n in buffers:
        if deps[n] == 0:
            heappush(ready, (-n._seq, n))
    prev_enabled = _state.enabled
    set_enabled(create_graph)
    # VJPs produce inf and nan where the math does (sqrt'(0), log'(0)): silently, as PyTorch
    token = quiet()
    previous = _current[0]
    prev_lending = _state.lending
    _state.lending = None  # (gradients reach user code at many points here: none is lent)
    try:
        while ready:
            _, node = heappop(ready)
            grad_outputs = buffers.pop(node, None)
            if wanted is not None and node not in wanted:
                if grad_outputs is not None and len(roots) == 1:  # PyTorch's lone root: its
                    _root_tensor_hooks(node, grad_outputs, create_graph)  # tensor hooks run
                continue  # leads to no input: not run, as in PyTorch (nor are its hooks)
            empty = False
            if grad_outputs is None and _listens(node):
                grad_outputs = [None] * node.n_outputs  # run all the same: hooks see None
                empty = True
            if grad_outputs is not None:
                # (a wanted node that is no target leads on to one: it runs)
                runs = wanted is None or node not in targets
                runs = runs or _runs(node, wanted, accumulate, restrict)
                if runs and node in captured:  # as PyTorch: a node that runs is captured
                    _capture(capture, node, grad_outputs)  # before its tensor hooks
                if type(node) is AccumulateGrad and node.variable._hooks:
                    if restrict is None or node in restrict:  # a leaf's hooks run first
                        grad_outputs = _leaf_hooks(node, grad_outputs, create_graph)
                extra = node._extra
                if extra is not None and (extra.pre is not None or extra.retained is not None):
                    grad_outputs = _tensor_hooks(node, grad_outputs, create_graph)
                if not runs:
                    if node in captured:  # ... one that does not, after them
                        _capture(capture, node, grad_outputs)
                    grad_outputs = None  # only read here: the node itself is not run
                    empty = False
                if grad_outputs is not None and extra is not None and extra.prehooks:
                    grad_outputs = _node_prehooks(node, grad_outputs, create_graph)
            if grad_outputs is not None:
                if grad_outputs[0] is None and (
                    len(grad_outputs) == 1 or all(g is None for g in grad_outputs)
                ):
                    if empty or _listens(node):
                        empty = True
                    else:
                        grad_outputs = None
            if type(node) is AccumulateGrad:
                if empty:
                    if accumulate and (restrict is None or node in restrict):
                        _post_accumulate(node.variable)
                    if node._extra is not None and node._extra.hooks:
                        _node_hooks(node, (), grad_outputs, create_graph)
                    continue
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
            elif empty and not _is_function_node(node):
                grad_inputs = [None] * len(edges)  # (its VJPs give None for no gradient)
                if node._extra is not None and node._extra.hooks:
                    grad_inputs = _node_hooks(node, grad_inputs, grad_outputs, create_graph)
            else:
                # a VJP may write its result into a gradient nothing else holds
                # (ops/_scratch.py): hold the ones that observers and hooks read after it
                held = tuple(grad_outputs) if observe or (node._extra and node._extra.hooks) else ()
                if _live[0]:  # on a device: its module is current while the VJPs run
                    _use(grad_outputs)
                if (
                    wanted is not None
                    and not _is_function_node(node)
                    and not any(n in wanted for n, _ in edges)
                ):
                    grad_inputs = [None] * len(edges)  # (a target that leads to no input)
                elif PROFILER[0] is None:
                    grad_inputs = node.apply(grad_outputs, create_graph)
                else:  # (an event per node: chainrule.profiler)
                    grad_inputs = PROFILER[0].node(node, grad_outputs, create_graph)
                if _live[0]:  # (the meta device: gradients of meta gradients are meta)
                    grad_inputs = _follow_grads(grad_outputs, grad_inputs)
                if wanted is not None:  # as PyTorch: None along edges that lead to no input
                    grad_inputs = [
                        g if n in wanted else None for (n, _), g in zip(edges, grad_inputs)
                    ]
                if _anomaly.enabled:
                    check_gradients(node, grad_inputs)
                if observe is not None:
                    observe(node, grad_outputs, grad_inputs)
                if node._extra is not None and node._extra.hooks:
                    grad_inputs = _node_hooks(node, grad_inputs, grad_outputs, create_graph)
                del held
                if not retain_graph and node._plan.frees:
                    node._saved = node._in0 = node._in1 = (
                        None  # free what was saved (nodes that saved none can rerun)
                    )
            for (nxt, nr), g in zip(edges, grad_inputs):
                if nxt is None:
                    continue
                if g is not None:
                    buf = buffers.get(nxt)
                    if buf is None:
                        buffers[nxt] = [g] if nxt.n_outputs == 1 else _slot(nxt.n_outputs, nr, g)
                    else:
                        old = buf[nr]
                        buf[nr] = g if old is None else _add_into(old, g)
                d = deps[nxt] - 1
                if d:
                    deps[nxt] = d
                else:
                    del deps[nxt]
                    heappush(ready, (-nxt._seq, nxt))
            g = grad_inputs = old = None  # drop references: _accumulate counts them
    finally:
        loud(token)
        set_enabled(prev_enabled)
        _current[0] = previous
        _state.lending = prev_lending
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


def _root_tensor_hooks(node: Node, grad_outputs: list, create_graph: bool) -> None:
    """The tensor hooks (and retain_grad) of a lone root's node that leads to no input."""
    if type(node) is AccumulateGrad and node.variable._hooks:
        _leaf_hooks(node, grad_outputs, create_graph)
    extra = node._extra
    if extra is not None and (extra.pre is not None or extra.retained is not None):
        _tensor_hooks(node, grad_outputs, create_graph)


def _capture(capture: dict, node: Node, grad_outputs: list) -> None:
    """Keep the gradients of the node's outputs that ``grad()`` returns."""
    for nr, g in enumerate(grad_outputs):
        key = (node, nr)
        if key in capture and g is not None:
            capture[key] = g


def _runs(node: Node, wanted: set, accumulate: bool, restrict: set | None) -> bool:
    """Whether a node whose gradient is captured also runs (it leads on to an input)."""
    if type(node) is AccumulateGrad:
        return accumulate and (restrict is None or node in restrict)
    if accumulate and restrict is not None:  # backward(inputs=): a non-leaf input's node runs
        return True
    return any(n in wanted for n, _ in node._next)


def _slot(n: int, nr: int, g: Any) -> list:
    buf = [None] * n
    buf[nr] = g
    return buf


def _count_dependencies(roots: list[Node], leave_out_sole: bool = False) -> dict[Node, int]:
    """For every node reachable from ``roots``, the number of edges that lead into it.

    With ``leave_out_sole``, a node of a chain that nothing but the edge the walk came along
    refers to (its reference count says so) is left out: one edge leads into it, and
    ``deps.get(node, 1)`` reads its count. A chain of such nodes then costs no dict entries.
    A leaf's AccumulateGrad is always counted: other edges may lead to it through the leaf
    tensor itself (an edge to a leaf may be recorded as the leaf, its node made when read).
    """
    sole = _SOLE if leave_out_sole else -1
    deps = dict.fromkeys(roots, 0)
    stack = list(deps)
    while stack:
        node = stack.pop()
        # a run of nodes with one edge (a chain) is followed without the stack
        while node._arity == 1 or (node._arity == 2 and node._fn1 is None):
            nxt = node._fn0
            if nxt is None:
                break
            if isinstance(nxt, Tensor):  # a leaf recorded as itself: its node, made now
                nxt = node._fn0 = accumulator(nxt)
            elif _refcount(nxt) == sole and nxt.__class__ is not AccumulateGrad:
                node = nxt
                continue
            node = nxt
            if node in deps:
                deps[node] += 1
                break
            deps[node] = 1
        else:
            arity = node._arity
            if arity == 0:  # (a leaf's AccumulateGrad: no edge on)
                continue
            if arity == 2:  # (the edges read from the slots: _next, inlined)
                fn0, fn1 = node._fn0, node._fn1
                if isinstance(fn0, Tensor):  # a leaf recorded as itself: its node, made now
                    fn0 = node._fn0 = accumulator(fn0)
                if isinstance(fn1, Tensor):
                    fn1 = node._fn1 = accumulator(fn1)
                edges = (fn0, fn1)
            elif arity == 3 and not isinstance(node._rest[0][0], Tensor):  # (addmm's, ...)
                fn0, fn1 = node._fn0, node._fn1
                if isinstance(fn0, Tensor):
                    fn0 = node._fn0 = accumulator(fn0)
                if isinstance(fn1, Tensor):
                    fn1 = node._fn1 = accumulator(fn1)
                edges = (fn0, fn1, node._rest[0][0])
            else:
                edges = [nxt for nxt, _ in node._next]
            for nxt in edges:
                if nxt is None:
                    continue
                if nxt in deps:
                    deps[nxt] += 1
                else:
                    deps[nxt] = 1
                    stack.append(nxt)
    return deps


def _sole_refcount() -> int:
    """What ``sys.getrefcount`` says, in the walk of ``_count_dependencies``, of a node that
    only the edge walked along refers to (measured on the same steps, not assumed)."""

    class Probe:
        __slots__ = ("_fn0",)

    node = Probe()
    node._fn0 = Probe()  # held by the slot alone
    nxt = node._fn0
    count = _refcount(nxt)
    return count if count >= 2 else -1


_SOLE = _sole_refcount()


def _sum(a: Any, b: Any) -> Any:
    """Two gradients of one output added (an array stays an array: NumPy makes a scalar of
    0-d arithmetic, and a later VJP may write into the sum)."""
    total = a + b
    return xp.asarray(total) if isinstance(total, xp.generic) else total


# References to the gradient a buffer holds while ``_add_into`` adds the next one, when
# nothing else holds it: the buffer (a list), the loop's ``old``, ``_add_into``'s parameter
# and getrefcount's argument. More means it is shared (a hook kept it, the caller passed it,
# a node still has it saved, a view of it exists): it is left alone. The gradient arriving
# has five when only the loop holds it: the VJPs' results (a list), zip's tuple, the loop's
# ``g``, the parameter and getrefcount's argument (six while the node's output gradients,
# still held, are the same array: a VJP that wrote into them). The first is written into
# where it can be, else the second (the first one lent: ops/_scratch.py).
# tests/autograd/test_lean_vjps.py pins both sides.
_BUFFERED_ONLY = 4
_ARRIVING_ONLY = 5


def _add_into(old: Any, g: Any) -> Any:
    """A node's buffered gradient plus the next one to arrive, written into the first one's
    memory when only the buffer holds it, else into the second one's when only the loop
    holds it (no array of the full size allocated; the bits of ``old + g``: addition
    commutes); otherwise as ``_sum``."""
    if (
        type(old) is ndarray
        and type(g) is ndarray
        and old.shape == g.shape
        and old.dtype == g.dtype
    ):
        if _refcount(old) == _BUFFERED_ONLY:
            flags = old.flags
            if flags.owndata and flags.writeable:
                old += g
                return old
        if _refcount(g) == _ARRIVING_ONLY:
            flags = g.flags
            if flags.owndata and flags.writeable:
                g += old
                return g
    return _sum(old, g)


def _accumulate(acc: AccumulateGrad, grad: Any, create_graph: bool) -> None:
    """``variable.grad += grad``; the first gradient is stored without a copy when unshared."""
    var = acc.variable
    if grad is None:
        return
    if not var._requires_grad:  # (requires_grad_(False) since it was used): no .grad
        _post_accumulate(var)
        return
    dtype = var._dtype
    if GRAD_DTYPES and id(var) in GRAD_DTYPES:  # (a leaf whose grad_dtype was set)
        grad, dtype = _in_grad_dtype(var, grad, create_graph)
    old = var._grad
    if create_graph:
        if old is None and grad.__class__ is Tensor and grad.shape == var.shape:
            # a copy laid out as the leaf (CopyBackwards, as PyTorch): never a view or an
            # alias of a gradient that flows on
            fresh = _make(xp.empty_like(var._data, dtype=grad._data.dtype), grad._dtype)
            var._grad = fresh.copy_(grad)
        else:
            var._grad = grad if old is None else old + grad
    elif old is None:
        # Three references (the engine's list of gradients, this argument and getrefcount's)
        # mean nobody else holds this array: keep it. Otherwise copy, so .grad never
        # aliases a user's tensor.
        if type(grad) is not ndarray or _refcount(grad) > 3 or not _owns_memory(grad):
            grad = grad.copy()
        if type(grad) is ndarray:
            if grad.strides != var._data.strides:
                grad = _memory_format.as_leaf_grad(grad, var._data)  # (laid out as its leaf)
            var._grad = _make(grad, dtype)
        else:
            var._grad = _as_grad(grad, dtype)
    elif old.__class__ is not Tensor and old.is_sparse:  # (dense + sparse: dense)
        var._grad = _as_grad(grad, dtype) + old
    else:  # (a sparse gradient adds into a dense .grad in place too: sparse/_coo.py)
        # in place also into a .grad that requires grad (made by a create_graph backward, its
        # graph kept), as PyTorch without grad mode
        old._data += grad
        vc = old._vc
        if vc.__class__ is list:  # (Tensor._bump, inlined: the common case)
            vc[0] += 1
        else:
            old._bump()
    _post_accumulate(var)


def _post_accumulate(var: Tensor) -> None:
    """The leaf's post-accumulate-grad hooks (run even when no gradient arrived)."""
    try:
        post = var._post_hooks
    except AttributeError:  # (a tensor made without _make may lack the slot)
        post = None
    if post:
        unlend_waiting()  # (a hook may step an optimizer: write into a lent tensor)
        for hook in list(post.values()):
            hook(var)


def _is_function_node(node: Node) -> bool:
    """A custom Function's node: its backward runs even on no gradient (zeros, as PyTorch)."""
    return getattr(node.__class__, "_forward_cls", None) is not None


def _listens(node: Node) -> bool:
    """Whether a node that no gradient reached still runs for the user to see: it has hooks
    (tensor hooks, prehooks, hooks; a leaf's tensor or post-accumulate hooks) or is a custom
    Function's. PyTorch runs every reached node; for others that changes nothing."""
    extra = node._extra
    if extra is not None and (extra.pre or extra.prehooks or extra.hooks):
        return True
    if node.__class__ is AccumulateGrad:
        var = node.variable
        return bool(var._hooks or getattr(var, "_post_hooks", None))
    return _is_function_node(node)


def _as_grad(grad: Any, dtype: Any) -> Tensor:
    """A gradient as the tensor ``.grad`` holds: a sparse one (chainrule/sparse's COO arrays,
    an embedding's with ``sparse=True``) as a sparse tensor."""
    as_grad = getattr(grad, "as_grad", None)
    return _make(grad, dtype) if as_grad is None else as_grad(dtype)


def _in_grad_dtype(var: Tensor, grad: Any, create_graph: bool) -> tuple[Any, Any]:
    """A leaf's gradient cast to the leaf's grad_dtype (None: as it comes), and that dtype."""
    want = GRAD_DTYPES[id(var)][1]
    if create_graph:
        return (
            (grad, grad._dtype)
            if want is None or grad._dtype is want
            else (
                grad.to(want),
                want,
            )
        )
    if want is None:
        return grad, _from_np[grad.dtype]
    return (grad if grad.dtype == want.np else grad.astype(want.np)), want


def _owns_memory(grad: ndarray) -> bool:
    """Whether ``grad`` is the only way to its memory: it owns it, or it is a contiguous view
    of all of an array nothing else refers to (a weight's gradient computed transposed and
    transposed back, a gradient reinterpreted from integer bits)."""
    flags = grad.flags
    if flags.owndata:
        return flags.writeable
    base = grad.base
    return (
        type(base) is ndarray
        and _refcount(base) == 3  # grad's reference, the local and getrefcount's argument
        and base.flags.owndata
        and flags.c_contiguous
        and flags.writeable
        and grad.nbytes == base.nbytes
    )


def _leaf_hooks(acc: AccumulateGrad, grad_outputs: list, create_graph: bool) -> list:
    """A leaf's tensor hooks, before its node's prehooks and before ``autograd.grad`` reads."""
    return [_run_tensor_hooks(acc.variable._hooks.values(), grad_outputs[0], create_graph)]


def _as_tensor(g: Any):
    return g if isinstance(g, Tensor) or g is None else wrap(g)


def _as_raw(g: Any, create_graph: bool):
    if g is None or create_graph:
        return g
    return g._data if isinstance(g, Tensor) else g


def _run_tensor_hooks(hooks, grad, create_graph: bool):
    # every hook sees one tensor object until a hook returns another, which the next hooks
    # see itself (as in PyTorch: captum's LRP marks the gradient for a later hook with an
    # attribute)
    before = None
    for hook in list(hooks):
        if before is None:
            before = _as_tensor(grad)
        out = hook(before)
        if out is not None:
            if before is None:
                raise RuntimeError("can't replace a None gradient with a non-None value")
            _check_hook_value(hook, before, out)
            grad = _as_raw(out, create_graph)
            before = out
    return grad


def _check_hook_value(hook, before, out) -> None:
    """A hook's replacement gradient keeps the tensor type and size, as PyTorch requires."""
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
    grad_outputs = list(grad_outputs)
    extra = node._extra
    if extra.pre is not None:
        for nr, hooks in extra.pre.items():
            if hooks:  # (also on no gradient: the hooks see None, as PyTorch's)
                grad_outputs[nr] = _run_tensor_hooks(hooks.values(), grad_outputs[nr], create_graph)
    if extra.retained is not None:
        for nr, ref in extra.retained.items():
            t = ref()
            g = grad_outputs[nr]
            if t is None or g is None:
                continue
            if create_graph:  # (a clone, as PyTorch's: .grad never aliases the gradient)
                t._grad = g.clone() if t._grad is None else t._grad + g
            elif t._grad is None:
                t._grad = _make(g.copy(), t._dtype)
            else:  # (a 0-d sum is a NumPy scalar: made an array again)
                t._grad = _make(xp.asarray(t._grad._data + g), t._dtype)
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
    """The node's hooks, each given the gradients of the inputs ``next_functions`` shows
    (none for an index or a mask) and of the outputs; what one returns replaces them."""
    hidden = node._hidden() if grad_inputs else ()
    if hidden:
        grad_inputs = [g for i, g in enumerate(grad_inputs) if i not in hidden]
    for hook in list(node._extra.hooks.values()):
        before = tuple(_as_tensor(g) for g in grad_inputs)
        out = hook(before, tuple(_as_tensor(g) for g in grad_outputs))
        if out is not None:
            _check_hook_count(hook, out, len(before))
            for b, g in zip(before, out):
                if g is not None:
                    _check_hook_value(hook, b, g)
            grad_inputs = [_as_raw(g, create_graph) for g in out]
    if hidden:  # (the hidden inputs' places back: None, they take no gradient)
        shown = iter(grad_inputs)
        grad_inputs = [None if i in hidden else next(shown) for i in range(node._arity)]
    return grad_inputs
