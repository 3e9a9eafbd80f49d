"""A model's graph for TensorBoard, from chainrule's autograd graph of one forward call.

PyTorch traces the model with TorchScript; chainrule has no tracer, so the graph drawn is
the one autograd records: the model runs once (in eval mode, under ``enable_grad``, its
floating inputs and parameters made to require grad for the call), and each backward node
reachable from the outputs becomes a node of the ``GraphDef``, with an edge from each
node its gradient flows to. Forward hooks on every submodule give each node the scope of
the innermost module that ran it (``Net/Linear[fc]/AddmmBackward0``), as PyTorch's scopes
read. Inputs are ``input/<argument name>`` and outputs ``output/output.<k>`` (PyTorch's
``IO Node``s); parameters are ``<scope>/<name>`` nodes of op ``Parameter``.

Not drawn: ops that record no backward node (integer results, comparisons, ``argmax``
and other non-differentiable ops cut the graph there), buffers, and constants.
"""

from __future__ import annotations

import inspect
from typing import Any

from tensorboard.compat.proto.attr_value_pb2 import AttrValue
from tensorboard.compat.proto.config_pb2 import RunMetadata
from tensorboard.compat.proto.graph_pb2 import GraphDef
from tensorboard.compat.proto.node_def_pb2 import NodeDef
from tensorboard.compat.proto.step_stats_pb2 import DeviceStepStats, StepStats
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto


def _tensors(value: Any) -> list:
    """The tensors in a (nested) tuple, list or dict of outputs or arguments."""
    from chainrule._tensor import Tensor

    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensors(v)]
    return []


def _node_def(name: str, op: str, inputs: list, shape: Any) -> NodeDef:
    attr = {"attr": AttrValue(s=b"")}
    if shape is not None:
        dims = TensorShapeProto(dim=[TensorShapeProto.Dim(size=int(d)) for d in shape])
        attr["_output_shapes"] = AttrValue(list=AttrValue.ListValue(shape=[dims]))
    return NodeDef(name=name, op=op, input=inputs, attr=attr)


class _Scopes:
    """Forward hooks that give each backward node the scope of the innermost module whose
    call recorded it: when a call ends, the nodes reachable from its outputs that are not
    claimed yet, back to its arguments and to nodes claimed before the call, are its own."""

    def __init__(self, model: Any) -> None:
        self.scope: dict = {}  # backward node -> scope name
        self.order: dict = {}  # backward node -> when it was claimed
        self._starts: list = []
        self._handles: list = []
        root = type(model).__name__
        names = {"": root}
        for path, module in model.named_modules():
            if path:
                parent, _, attr = path.rpartition(".")
                names[path] = f"{names[parent]}/{type(module).__name__}[{attr}]"
            self._handles.append(module.register_forward_pre_hook(self._enter))
            self._handles.append(module.register_forward_hook(self._exit_hook(names[path])))

    def _enter(self, module: Any, args: Any) -> None:
        self._starts.append(len(self.order))

    def _exit_hook(self, name: str) -> Any:
        def hook(module: Any, args: Any, output: Any) -> None:
            self.claim(output, args, name, self._starts.pop())

        return hook

    def claim(self, output: Any, args: Any, name: str, start: int) -> None:
        from chainrule.autograd.graph import AccumulateGrad

        stop = {id(t.grad_fn) for t in _tensors(args) if t.grad_fn is not None}
        todo = [t.grad_fn for t in _tensors(output) if t.grad_fn is not None]
        seen: set = set()
        while todo:
            node = todo.pop()
            if node is None or id(node) in stop or id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, AccumulateGrad):
                continue
            if node in self.order:
                if self.order[node] < start:  # recorded before this call
                    continue
            else:
                self.order[node] = len(self.order)
                self.scope[node] = name
            todo.extend(fn for fn, _ in node.next_functions)

    def remove(self) -> None:
        for handle in self._handles:
            handle.remove()


def _argument_names(model: Any, n: int) -> list:
    """The names of the first ``n`` positional parameters of ``model``'s forward."""
    try:
        params = list(inspect.signature(getattr(model, "forward", model)).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return [names[i] if i < len(names) else f"input.{i}" for i in range(n)]


def _backward_nodes(outputs: list) -> list:
    """Every backward node reachable from ``outputs``, each after the nodes it reaches
    (a topological order of the forward computation)."""
    order: list = []
    done: set = set()
    todo = [(t.grad_fn, False) for t in reversed(outputs) if t.grad_fn is not None]
    while todo:
        node, expanded = todo.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in done:
            continue
        done.add(id(node))
        todo.append((node, True))
        todo.extend((fn, False) for fn, _ in reversed(node.next_functions) if fn is not None)
    return order


def graph(model: Any, args: Any, verbose: bool = False) -> tuple[GraphDef, RunMetadata]:
    """The ``GraphDef`` of ``model(*args)`` and the (empty, CPU) run metadata to go with
    it, as ``FileWriter.add_graph`` takes them."""
    import chainrule
    from chainrule._tensor import Tensor
    from chainrule.autograd.graph import AccumulateGrad, accumulator

    if args is None:
        args = ()
    elif not isinstance(args, (tuple, list)):
        args = (args,)

    def traced(a: Any) -> Any:
        if isinstance(a, Tensor) and (a.is_floating_point() or a.is_complex()):
            return a.detach().requires_grad_(True)
        return a

    args = tuple(traced(a) for a in args)
    is_module = isinstance(model, chainrule.nn.Module)
    params = dict(model.named_parameters()) if is_module else {}
    frozen = [p for p in params.values() if not p.requires_grad and p.is_floating_point()]
    scopes = _Scopes(model) if is_module else None
    training = model.training if is_module else None
    root = type(model).__name__ if is_module else getattr(model, "__name__", "model")
    try:
        for p in frozen:
            p.requires_grad_(True)
        if is_module:
            model.train(False)
        with chainrule.enable_grad():
            output = model(*args)
    finally:
        if scopes is not None:
            scopes.remove()
        if is_module:
            model.train(training)
        for p in frozen:
            p.requires_grad_(False)
    outputs = _tensors(output)

    # the shape of each node's outputs: read off the inputs' metadata of its consumers
    shapes: dict = {}
    nodes = _backward_nodes(outputs)
    for node in nodes:
        for (fn, nr), meta in zip(node._next, node._meta):
            if fn is not None and meta is not None:
                shapes.setdefault((id(fn), nr), tuple(meta[0]))
    for t in outputs:
        if t.grad_fn is not None:
            shapes.setdefault((id(t.grad_fn), t._output_nr), tuple(t.shape))

    names: dict = {}  # backward node -> graph node name (holding the node alive)
    defs: list = []
    input_names = _argument_names(model, len(args))
    for a, arg_name in zip(args, input_names):
        name = "input/" + arg_name
        if isinstance(a, Tensor):
            defs.append(_node_def(name, "IO Node", [], tuple(a.shape)))
            if a.requires_grad:
                names[accumulator(a)] = name
    param_names = {id(p): n for n, p in params.items()}
    scope_of = scopes.scope if scopes is not None else {}
    used: dict = {}

    def unique(base: str) -> str:
        k = used.get(base, 0)
        used[base] = k + 1
        return base if k == 0 else f"{base}.{k}"

    body: list = []
    for node in nodes:
        if isinstance(node, AccumulateGrad):
            if node in names:
                continue
            leaf = node.variable
            if id(leaf) in param_names:
                path = param_names[id(leaf)].split(".")
                module_scope = _module_scope(model, path[:-1], root)
                names[node] = unique(f"{module_scope}/{path[-1]}")
                op = "Parameter"
            else:
                names[node] = unique(f"{root}/leaf")
                op = "Leaf"
            body.append(_node_def(names[node], op, [], tuple(leaf.shape)))
            continue
        names[node] = unique(f"{scope_of.get(node, root)}/{node.name()}")
        inputs = [
            names[fn] + (f":{nr}" if nr else "")
            for fn, nr in node.next_functions
            if fn is not None and fn in names
        ]
        body.append(_node_def(names[node], node.name(), inputs, shapes.get((id(node), 0))))

    for k, t in enumerate(outputs, 1):
        if t.grad_fn is not None and t.grad_fn in names:
            nr = t._output_nr
            producer = [names[t.grad_fn] + (f":{nr}" if nr else "")]
        elif t.requires_grad and t.grad_fn is None and accumulator(t) in names:
            producer = [names[accumulator(t)]]
        else:
            producer = []
        defs.append(_node_def(f"output/output.{k}", "IO Node", producer, tuple(t.shape)))
    graph_def = GraphDef(node=defs + body)
    graph_def.versions.producer = 22
    if verbose:
        print(graph_def)
    stepstats = RunMetadata(
        step_stats=StepStats(dev_stats=[DeviceStepStats(device="/device:CPU:0")])
    )
    return graph_def, stepstats


def _module_scope(model: Any, path: list, root: str) -> str:
    """``Net/Linear[fc]`` for the submodule at attribute path ``["fc"]`` of ``model``."""
    scope, module = root, model
    for attr in path:
        module = getattr(module, attr)
        scope += f"/{type(module).__name__}[{attr}]"
    return scope
