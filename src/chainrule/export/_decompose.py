"""``ExportedProgram.run_decompositions``: the training-IR calls written as core ATen, as
PyTorch writes them (``linear`` -> ``permute`` + ``addmm``, ``conv2d`` ->
``convolution``, eval ``batch_norm`` -> ``_native_batch_norm_legit_no_training``,
``softmax`` -> ``_softmax`` ...). The graph is written anew, node by node, each value
computed on the program's example inputs for its sizes; then the values nothing reads
are dropped (their names stay taken, as in PyTorch's)."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import chainrule

from ..fx import Graph, Node
from . import _schema_args
from ._reader import ATEN, TensorMeta
from .graph_signature import ExportGraphSignature, InputKind, OutputSpec, TensorArgument


class _Writer:
    """Writes nodes into a new graph, computing each one's value."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.values: dict[Node, Any] = {}

    def value(self, arg: Any) -> Any:
        if isinstance(arg, Node):
            return self.values[arg]
        if isinstance(arg, (list, tuple)):
            return [self.value(a) for a in arg]
        return arg

    def call(self, overload: str, *args: Any) -> Any:
        """A node calling ``aten.<overload>``: its node, or a list of getitem nodes."""
        from ._tracer import _node_name

        target = ATEN.overload(f"aten.{overload}")
        result = target(*[self.value(a) for a in args])
        node = self.graph.create_node(
            "call_function", target, tuple(args), {}, name=_node_name(overload)
        )
        node.meta["arg_names"] = _schema_args.names(overload)[: len(args)]
        if isinstance(result, chainrule.Tensor):
            node.meta["tensor_meta"] = _meta(result)
            self.values[node] = result
            return node
        node.meta["returns_list"] = _schema_args.returns_list(overload)
        node.meta["output_metas"] = [_meta(t) for t in result]
        items = []
        for i, t in enumerate(result):
            item = self.graph.create_node("call_function", operator.getitem, (node, i))
            item.meta["tensor_meta"] = _meta(t)
            self.values[item] = t
            items.append(item)
        return items


def _meta(t: Any) -> TensorMeta:
    return TensorMeta(t.dtype, list(t.shape), t.requires_grad)


def _linear(w: _Writer, x: Node, weight: Node, bias: Node | None = None) -> Node:
    """x Wᵀ + b: ``addmm`` over the rows (a contiguous input folded to 2-D), else a
    batched ``bmm`` and an ``add``."""
    shape = list(w.values[x].shape)
    wt = w.call("permute.default", weight, [1, 0])
    if len(shape) > 2 and not w.values[x].is_contiguous():
        batch, rows, cols = shape[:-2], shape[-2], shape[-1]
        outs = int(w.values[weight].shape[0])
        n = math.prod(batch)
        a = w.call("view.default", w.call("expand.default", x, shape), [n, rows, cols])
        b = w.call("expand.default", wt, batch + [cols, outs])
        b = w.call("view.default", b, [n, cols, outs])
        out = w.call("view.default", w.call("bmm.default", a, b), batch + [rows, outs])
        return out if bias is None else w.call("add.Tensor", out, bias)
    flat = x if len(shape) == 2 else w.call("view.default", x, [math.prod(shape[:-1]), shape[-1]])
    out = (
        w.call("mm.default", flat, wt) if bias is None else w.call("addmm.default", bias, flat, wt)
    )
    if len(shape) == 2:
        return out
    return w.call("view.default", out, shape[:-1] + [int(w.values[weight].shape[0])])


def _conv(n: int) -> Callable[..., Node]:
    def write(
        w: _Writer,
        x: Node,
        weight: Node,
        bias: Node | None = None,
        stride: Any = None,
        padding: Any = None,
        dilation: Any = None,
        groups: int = 1,
    ) -> Node:
        if isinstance(padding, str):
            raise NotImplementedError("run_decompositions: conv with string padding")
        ones, zeros = [1] * n, [0] * n
        args = [stride or ones, padding or zeros, dilation or ones, False, zeros, groups]
        return w.call("convolution.default", x, weight, bias, *args)

    return write


def _batch_norm(
    w: _Writer,
    x: Node,
    weight: Any,
    bias: Any,
    mean: Any,
    var: Any,
    training: bool,
    momentum: float,
    eps: float,
    cudnn: bool = False,
) -> Node:
    if training or mean is None:
        raise NotImplementedError(
            "run_decompositions: batch_norm in training (buffer mutations) is not written yet"
        )
    overload = "_native_batch_norm_legit_no_training.default"
    return w.call(overload, x, weight, bias, mean, var, momentum, eps)[0]


def _max_pool2d(w: _Writer, x: Node, *args: Any) -> Node:
    return w.call("max_pool2d_with_indices.default", x, *args)[0]


def _flatten(w: _Writer, x: Node, start: int = 0, end: int = -1) -> Node:
    shape = list(w.values[x].shape)
    if not shape:
        return w.call("view.default", x, [1])
    start, end = start % len(shape), end % len(shape)
    return w.call(
        "view.default", x, shape[:start] + [math.prod(shape[start : end + 1])] + shape[end + 1 :]
    )


def _dropout(w: _Writer, x: Node, p: float, train: bool) -> Node:
    if train and p > 0:
        raise NotImplementedError("run_decompositions: dropout in training is not written yet")
    return w.call("clone.default", x)


def _softmax(op: str) -> Callable[..., Node]:
    def write(w: _Writer, x: Node, dim: int, dtype: Any = None) -> Node:
        if dtype is not None:
            raise NotImplementedError(f"run_decompositions: {op} with a dtype")
        return w.call(f"{op}.default", x, dim, False)

    return write


def _layer_norm(
    w: _Writer,
    x: Node,
    shape: list,
    weight: Any = None,
    bias: Any = None,
    eps: float = 1e-5,
    *_: Any,
) -> Node:
    return w.call("native_layer_norm.default", x, shape, weight, bias, eps)[0]


def _transpose(w: _Writer, x: Node, a: int, b: int) -> Node:
    rank = w.values[x].dim()
    order = list(range(rank))
    order[a % rank], order[b % rank] = order[b % rank], order[a % rank]
    return w.call("permute.default", x, order)


DECOMPOSITIONS: dict[str, Callable[..., Any]] = {
    "linear.default": _linear,
    "conv1d.default": _conv(1),
    "conv2d.default": _conv(2),
    "batch_norm.default": _batch_norm,
    "max_pool2d.default": _max_pool2d,
    "adaptive_avg_pool2d.default": lambda w, x, size: w.call(
        "_adaptive_avg_pool2d.default", x, size
    ),
    "flatten.using_ints": _flatten,
    "dropout.default": _dropout,
    "softmax.int": _softmax("_softmax"),
    "log_softmax.int": _softmax("_log_softmax"),
    "layer_norm.default": _layer_norm,
    "transpose.int": _transpose,
    "t.default": lambda w, x: w.call("permute.default", x, [1, 0]),
}


def _inputs(ep: Any) -> dict[str, Any]:
    """Each placeholder's value: the state, constants and example inputs."""
    values: dict[str, Any] = {}
    args = list(ep.example_inputs[0]) if ep.example_inputs else []
    kwargs = dict(ep.example_inputs[1]) if ep.example_inputs else {}
    flat = [t for t in _flat((args, kwargs))]
    users = iter(flat)
    for spec in ep.graph_signature.input_specs:
        if spec.kind in (InputKind.PARAMETER, InputKind.BUFFER):
            source = ep.state_dict if spec.target in ep.state_dict else ep.constants
            values[spec.arg.name] = source[spec.target]
        elif spec.kind == InputKind.CONSTANT_TENSOR:
            values[spec.arg.name] = ep.constants[spec.target]
        elif spec.kind == InputKind.USER_INPUT:
            values[spec.arg.name] = next(users)
    return values


def _flat(value: Any) -> list:
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _flat(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _flat(v)]
    return [value] if isinstance(value, chainrule.Tensor) else []


def run_decompositions(ep: Any, decomp_table: dict | None = None) -> Any:
    """``ep`` with the calls of ``DECOMPOSITIONS`` (or of ``decomp_table``: overload name
    -> function of a writer and the call's arguments) written as core ATen calls."""
    from .exported_program import ExportedProgram

    if ep.range_constraints:
        raise NotImplementedError("run_decompositions of a program with symbolic sizes")
    table = DECOMPOSITIONS if decomp_table is None else decomp_table
    graph = Graph()
    writer = _Writer(graph)
    inputs = _inputs(ep)
    env: dict[Node, Any] = {}

    def new(arg: Any) -> Any:
        if isinstance(arg, Node):
            return env[arg]
        if isinstance(arg, (list, tuple)):
            return [new(a) for a in arg]
        return arg

    outputs: list[Node] = []
    for node in ep.graph.nodes:
        if node.op == "placeholder":
            copy = graph.placeholder(node.name)
            copy.meta.update(node.meta)
            writer.values[copy] = inputs[node.name]
            env[node] = copy
        elif node.op == "output":
            outputs = [env[n] for n in node.args[0]]
        elif node.target is operator.getitem:
            env[node] = env[node.args[0]][node.args[1]]
        else:
            overload = str(node.target).removeprefix("aten.")
            decompose = table.get(overload)
            args, kwargs = new(list(node.args)), new(dict(node.kwargs))
            if decompose is None:
                if kwargs:
                    raise NotImplementedError(
                        f"run_decompositions: keyword arguments of {overload}"
                    )
                env[node] = writer.call(overload, *args)
            else:
                env[node] = decompose(writer, *args, **kwargs)
    graph.output(tuple(outputs))
    _drop_unread(graph)
    names = iter(n.name for n in outputs)
    specs = [
        OutputSpec(s.kind, TensorArgument(next(names)), s.target)
        for s in ep.graph_signature.output_specs
    ]
    return ExportedProgram(
        graph,
        ExportGraphSignature(list(ep.graph_signature.input_specs), specs),
        ep.state_dict,
        range_constraints=ep.range_constraints,
        module_call_graph=ep.module_call_graph,
        example_inputs=ep.example_inputs,
        constants=ep.constants,
        verifiers=["ATEN"],
    )


def _drop_unread(graph: Graph) -> None:
    """Drops the calls nothing reads (getitems first, then what they came from)."""
    for node in reversed(list(graph.nodes)):
        if node.op == "call_function" and not node.users:
            graph.erase_node(node)
