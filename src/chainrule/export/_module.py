"""The GraphModules of an exported program: the graph as saved (``ep.graph_module``,
state as inputs) and the runnable module (``ep.module()``, state as attributes, the
call's arguments flattened by the program's input spec and its outputs rebuilt)."""

from __future__ import annotations

from typing import Any

from ..fx import Graph, GraphModule, Node
from ..fx.graph import PythonCode, _torch_view
from ..nn import Module
from . import _treespec
from ._aten import OpsNamespace
from ._higher_order import HIGHER_ORDER, subgraphs
from ._reader import ATEN
from .graph_signature import ExportGraphSignature, InputKind, OutputKind

_OPS = OpsNamespace(ATEN)
_OPS.higher_order = HIGHER_ORDER  # (the control-flow operators: cond, while_loop)


class _TorchWithOps:
    """``torch`` in the generated code, with ``torch.ops.aten`` the table of overloads."""

    def __getattr__(self, name: str) -> Any:
        if name == "ops":
            return _OPS
        return getattr(_torch_view(), name)


_TORCH = _TorchWithOps()


class ExportGraphModule(GraphModule):
    """A GraphModule whose code calls ``torch.ops.aten.*`` overloads."""

    def recompile(self) -> PythonCode:
        """Make ``forward`` from the Graph's code, ``torch.ops.aten`` resolved."""
        python_code = self._graph.python_code(root_module="self")
        object.__setattr__(self, "_code", python_code.src)
        namespace = dict(python_code.globals)
        namespace["torch"] = _TORCH
        exec(compile(python_code.src, f"<eval_with_key>.{id(self)}", "exec"), namespace)
        type(self).forward = namespace["forward"]
        return python_code


class StatefulGraphModule(ExportGraphModule):
    """``ep.module()``: called with the original forward's arguments; returns the
    original structure of outputs."""

    _in_spec: Any = None
    _out_spec: Any = None
    _arg_names: list[str] = []

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        leaves = self._flat_inputs(args, kwargs)
        outputs = super().__call__(*leaves)
        if self._out_spec is None:
            return outputs
        return _treespec.unflatten(list(outputs), self._out_spec)

    def _flat_inputs(self, args: tuple, kwargs: dict) -> list[Any]:
        if self._in_spec is None:
            return [*args, *kwargs.values()]
        args_spec, kwargs_spec = self._in_spec.children
        n = len(args_spec.children)
        positional = list(args[:n])
        kwargs = dict(kwargs)
        for name in self._arg_names[len(positional) : n]:
            if name in kwargs:
                positional.append(kwargs.pop(name))
        keys = kwargs_spec.context or []
        extra = list(args[n:])
        named = {}
        for k in keys:
            if k in kwargs:
                named[k] = kwargs.pop(k)
            elif extra:
                named[k] = extra.pop(0)
        return _treespec.flatten((tuple(positional), named), self._in_spec)


def graph_module(graph: Graph) -> ExportGraphModule:
    """``ep.graph_module``: the saved graph, parameters and buffers as its inputs, the
    functions of its control-flow operators as GraphModule attributes (``true_graph_0``)."""
    return ExportGraphModule(subgraph_modules(graph), graph)


def subgraph_modules(graph: Graph) -> dict[str, ExportGraphModule]:
    """The GraphModule of each subgraph ``graph`` reads, by attribute name."""
    return {name: graph_module(sub) for name, sub in subgraphs(graph).items()}


def _attr_name(target: str) -> str:
    return target.replace(".", "_")


def unlift(
    graph: Graph,
    signature: ExportGraphSignature,
    state: dict[str, Any],
    constants: dict[str, Any],
    in_spec: Any,
    out_spec: Any,
    arg_names: list[str],
) -> StatefulGraphModule:
    """The runnable module of a program: its state read as attributes, buffer mutations
    written back with ``copy_``, user outputs only."""
    new = Graph()
    env: dict[Node, Node] = {}
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    lifted: list[tuple[Node, str]] = []
    for node, spec in zip(placeholders, signature.input_specs):
        if spec.kind == InputKind.USER_INPUT:
            env[node] = new.placeholder(node.target)
            env[node].meta.update(node.meta)
        else:
            lifted.append((node, spec.target))
    for node, target in lifted:
        attr = new.create_node("get_attr", target, name=_attr_name(target))
        attr.meta.update(node.meta)
        env[node] = attr
    output = None
    for node in graph.nodes:
        if node.op == "placeholder":
            continue
        if node.op == "output":
            output = node
            continue
        env[node] = new.node_copy(node, lambda n: env[n])
    values = list(output.args[0]) if output is not None else []
    user_outputs = []
    by_name = {n.target: env[n] for n in placeholders if n in env}
    for spec, value in zip(signature.output_specs, values):
        if spec.kind in (OutputKind.BUFFER_MUTATION, OutputKind.PARAMETER_MUTATION):
            dest = next(env[n] for n, t in lifted if t == spec.target)
            new.call_function(ATEN.overload("aten.copy_.default"), (dest, env[value]))
        elif spec.kind == OutputKind.USER_INPUT_MUTATION:
            dest = by_name[spec.target]
            new.call_function(ATEN.overload("aten.copy_.default"), (dest, env[value]))
        elif spec.kind in (OutputKind.USER_OUTPUT, OutputKind.LOSS_OUTPUT):
            user_outputs.append(env[value] if isinstance(value, Node) else value)
    new.output(tuple(user_outputs))
    root: dict[str, Any] = {t: state[t] if t in state else constants[t] for _, t in lifted}
    root.update(subgraph_modules(new))
    module = StatefulGraphModule(root, new)
    _restore_kinds(module, signature)
    module._in_spec = in_spec
    module._out_spec = out_spec
    module._arg_names = list(arg_names)
    return module


def _restore_kinds(module: Module, signature: ExportGraphSignature) -> None:
    """Non-persistent buffers out of the state dict; tensor constants as plain
    attributes (GraphModule registered both as buffers)."""
    for spec in signature.input_specs:
        if spec.kind == InputKind.BUFFER and spec.persistent is False:
            owner, field = _owner(module, spec.target)
            owner.register_buffer(field, owner._buffers[field], persistent=False)
        elif spec.kind == InputKind.CONSTANT_TENSOR:
            owner, field = _owner(module, spec.target)
            value = owner._buffers.pop(field)
            object.__setattr__(owner, field, value)


def _owner(module: Module, target: str) -> tuple[Module, str]:
    *path, field = target.split(".")
    for p in path:
        module = getattr(module, p)
    return module, field
