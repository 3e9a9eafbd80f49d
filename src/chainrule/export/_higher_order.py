"""``torch.ops.higher_order``: the control-flow operators of an exported graph.

PyTorch's program calls ``torch.ops.higher_order.cond(pred, true_graph_0, false_graph_0,
operands)``, ``torch.ops.higher_order.while_loop(cond_graph, body_graph, carried,
additional)``, ``scan(combine_graph, init, xs, additional)`` and ``map_impl(body_graph,
xs, args)``, each function a GraphModule attribute of the program (a ``get_attr`` node,
here with the function's Graph in ``meta["subgraph"]``), its results read by ``getitem``
nodes. Here each operator runs chainrule's ``cond``/``while_loop``/``scan``/``map`` with the
subgraph modules as its functions, so autograd runs through the taken branch or the loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._tensor import Tensor
from ..autograd.function import Function
from ..fx import Graph, Node


class HigherOrderOperator:
    """One control-flow operator (``torch.ops.higher_order.cond``): a name and its runner."""

    def __init__(self, name: str, fn: Callable) -> None:
        self._name = name
        self._fn = fn
        # read by fx's code generator: written ``torch.ops.higher_order.<name>``
        self.__module__ = "torch.ops.higher_order"
        self.__qualname__ = self.__name__ = name

    def name(self) -> str:
        """The operator's name (``cond``), as PyTorch's."""
        return self._name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._fn(*args, **kwargs)

    def __str__(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return f"<HigherOrderOperator {self._name}>"


class _Operands(Function):
    """An operator's results hung from all its operands too: as PyTorch's, an operand the
    run did not read (a parameter of the other branch, of the condition only) gets a
    gradient of zeros, not None. d out / d out = I; d out / d operand = 0 beyond the
    run's own path."""

    @staticmethod
    def forward(ctx: Any, n: int, *tensors: Any) -> tuple:
        ctx.operands = [(t.shape, t.dtype) for t in tensors[n:]]
        return tuple(tensors[:n])

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> tuple:
        import chainrule

        zeros = [chainrule.zeros(shape, dtype=dtype) for shape, dtype in ctx.operands]
        return (None, *grads, *zeros)


def _hung(out: Any, operands: list) -> Any:
    """``out`` (a tuple or list of tensors) hung from the floating-point ``operands``."""
    from ..autograd import grad_mode

    differentiable = lambda t: isinstance(t, Tensor) and t.is_floating_point()  # noqa: E731
    ins = [t for t in operands if differentiable(t) and t.requires_grad]
    if not ins or not grad_mode.is_grad_enabled():
        return out
    leaves = list(out)
    where = [i for i, t in enumerate(leaves) if differentiable(t)]
    hung = _Operands.apply(len(where), *(leaves[i] for i in where), *ins)
    for i, t in zip(where, hung):
        leaves[i] = t
    return type(out)(leaves) if isinstance(out, (tuple, list)) else leaves


def _run_cond(pred: Any, true_fn: Callable, false_fn: Callable, operands: Any) -> Any:
    from .._higher_order_ops.cond import cond

    return _hung(cond(pred, true_fn, false_fn, tuple(operands)), list(operands))


def _run_while_loop(
    cond_fn: Callable, body_fn: Callable, carried: Any, additional: Any = (), **_: Any
) -> Any:
    """The loop over ``carried``; both functions also take ``additional`` (the tensors
    their bodies read from outside: parameters, closures) after the carried values."""
    from .._higher_order_ops.while_loop import while_loop

    extra = tuple(additional)
    out = while_loop(lambda *c: cond_fn(*c, *extra), lambda *c: body_fn(*c, *extra), tuple(carried))
    return _hung(out, [*carried, *extra])


def _run_scan(combine_fn: Callable, init: Any, xs: Any, additional: Any = ()) -> list:
    """The scan over ``xs`` along dim 0: ``combine_fn(*carry, *x_i, *additional)`` gives
    the next carry then the outputs; the last carry, then the outputs stacked."""
    from .._higher_order_ops.scan import scan

    extra, n = tuple(additional), len(init)

    def step(carry: list, x: list) -> tuple:
        out = list(combine_fn(*carry, *x, *extra))
        return out[:n], out[n:]

    carry, ys = scan(step, list(init), list(xs))
    return _hung([*carry, *ys], [*init, *xs, *extra])


def _run_map(body_fn: Callable, xs: Any, args: Any = ()) -> list:
    """``body_fn(*x_i, *args)`` for each slice of ``xs`` along dim 0, each output stacked."""
    from .._higher_order_ops.map import map as map_

    rest = tuple(args)
    out = map_(lambda x, *a: list(body_fn(*x, *a)), list(xs), *rest)
    return _hung(list(out), [*xs, *rest])


COND = HigherOrderOperator("cond", _run_cond)
WHILE_LOOP = HigherOrderOperator("while_loop", _run_while_loop)
SCAN = HigherOrderOperator("scan", _run_scan)
MAP = HigherOrderOperator("map_impl", _run_map)
OPERATORS = {op.name(): op for op in (COND, WHILE_LOOP, SCAN, MAP)}
PREFIX = "torch.ops.higher_order."


class HigherOrderNamespace:
    """``torch.ops.higher_order`` as generated code reads it."""

    def __getattr__(self, name: str) -> HigherOrderOperator:
        if name not in OPERATORS:
            raise AttributeError(
                f"chainrule.export runs the higher-order operators {sorted(OPERATORS)}, "
                f"not {name!r}"
            )
        return OPERATORS[name]


HIGHER_ORDER = HigherOrderNamespace()


def target_of(name: str) -> HigherOrderOperator:
    """The operator of a serialized target ``torch.ops.higher_order.<name>``."""
    op = OPERATORS.get(name[len(PREFIX) :])
    if op is None:
        raise NotImplementedError(
            f"chainrule.export cannot run the higher-order operator {name} (it runs "
            f"{', '.join(PREFIX + k for k in OPERATORS)})"
        )
    return op


def is_subgraph(value: Any) -> bool:
    """Whether ``value`` is the ``get_attr`` node of a subgraph."""
    return isinstance(value, Node) and value.op == "get_attr" and "subgraph" in value.meta


def subgraphs(graph: Graph) -> dict[str, Graph]:
    """The subgraphs ``graph`` reads, by attribute name."""
    return {n.target: n.meta["subgraph"] for n in graph.nodes if is_subgraph(n)}


def add_subgraph(graph: Graph, prefix: str, subgraph: Graph) -> Node:
    """A ``get_attr`` node of ``subgraph`` named ``<prefix>_<k>``, the first k free."""
    taken = {n.target for n in graph.nodes if n.op == "get_attr"}
    k = 0
    while f"{prefix}_{k}" in taken:
        k += 1
    node = graph.create_node("get_attr", f"{prefix}_{k}", name=f"{prefix}_{k}")
    node.meta["subgraph"] = subgraph
    return node


def appears(symbol: str, graph_record: dict) -> bool:
    """Whether a range constraint's symbol is in a serialized graph (storage offsets
    aside): PyTorch's load drops the others (the unbacked ``u0`` of a while loop's export,
    found in its results' storage offsets only)."""
    import json
    import re

    def text(value: Any) -> str:
        if isinstance(value, dict):
            return " ".join(text(v) for k, v in value.items() if k != "storage_offset")
        if isinstance(value, list):
            return " ".join(text(v) for v in value)
        return json.dumps(value)

    if not re.fullmatch(r"u\d+", symbol):
        return True
    return re.search(rf"\b{symbol}\b", text(graph_record)) is not None
