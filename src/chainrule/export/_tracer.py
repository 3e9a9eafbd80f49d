"""``torch.export.export``: a chainrule module run once on its example inputs under a
``TorchFunctionMode`` that writes each torch-level call on a traced tensor as an ATen
overload node (``_translations``); parameters, buffers and constants become the graph's
first inputs, named as PyTorch names them (``p_fc_weight``, ``b_bn_running_mean``,
``c_lifted_tensor_0``)."""

from __future__ import annotations

import inspect
import operator
from typing import Any

from .. import overrides
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..fx import Graph, Node
from ..nn import Module
from . import _schema_args
from ._reader import ATEN, TensorMeta
from ._translations import TRANSLATIONS
from ._treespec import TreeSpec
from .exported_program import ExportedProgram, ModuleCallEntry
from .graph_signature import (
    ExportGraphSignature,
    InputKind,
    InputSpec,
    OutputKind,
    OutputSpec,
    TensorArgument,
)

_PREFIXES = ("torch.nn.functional.", "torch.Tensor.", "torch.")


def _short(func: Any) -> str:
    full = overrides.resolve_name(func) or getattr(func, "__name__", repr(func))
    for prefix in _PREFIXES:
        if full.startswith(prefix):
            return full[len(prefix) :]
    return full


def _tensors(obj: Any) -> list[Tensor]:
    if isinstance(obj, Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for item in obj for t in _tensors(item)]
    if isinstance(obj, dict):
        return [t for item in obj.values() for t in _tensors(item)]
    return []


def _meta(t: Tensor) -> TensorMeta:
    return TensorMeta(t.dtype, list(t.shape), t.requires_grad)


def spec_of(value: Any) -> TreeSpec:
    """The pytree spec of a structure of tuples, lists and dicts."""
    if isinstance(value, dict):
        return TreeSpec("builtins.dict", list(value), [spec_of(v) for v in value.values()])
    if isinstance(value, list):
        return TreeSpec("builtins.list", None, [spec_of(v) for v in value])
    if isinstance(value, tuple):
        return TreeSpec("builtins.tuple", None, [spec_of(v) for v in value])
    return TreeSpec(None)


class _Recorder(overrides.TorchFunctionMode):
    """Records each call on a traced tensor as a node of ``graph``."""

    def __init__(self, graph: Graph, nodes: dict[int, Node], first_user: Node | None) -> None:
        self.graph = graph
        self.nodes = nodes
        self.first_user = first_user
        self.alive: list[Any] = []
        self.constants: list[tuple[Node, str, Tensor]] = []

    def node_of(self, t: Tensor) -> Node:
        """The node of ``t``; a tensor the trace did not make becomes a lifted constant."""
        if id(t) not in self.nodes:
            index = len(self.constants)
            with self.graph.inserting_before(self.first_user):
                node = self.graph.placeholder(f"c_lifted_tensor_{index}")
            node.meta["tensor_meta"] = _meta(t)
            self.constants.append((node, f"lifted_tensor_{index}", t))
            self.nodes[id(t)] = node
            self.alive.append(t)
        return self.nodes[id(t)]

    def arg(self, value: Any) -> Any:
        if isinstance(value, Tensor):
            return self.node_of(value)
        if isinstance(value, (list, tuple)):
            return [self.arg(v) for v in value]
        return value

    def __torch_function__(
        self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None
    ) -> Any:
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if not any(id(t) in self.nodes for t in _tensors((args, kwargs))):
            return out
        if not _tensors(out):
            return out  # sizes, dtypes, numbers: constants of this trace
        name = _short(func)
        translate = TRANSLATIONS.get(name)
        if translate is None:
            raise NotImplementedError(f"chainrule.export cannot export the call {name}")
        overload, targs, tkwargs = translate(*args, **kwargs)
        target = ATEN.overload(f"aten.{overload}")
        node = self.graph.create_node(
            "call_function",
            target,
            tuple(self.arg(a) for a in targs),
            {k: self.arg(v) for k, v in tkwargs.items()},
            name=overload.partition(".")[0],
        )
        node.meta["arg_names"] = _schema_args.names(overload)[: len(targs)]
        self.alive.append(out)
        if isinstance(out, Tensor):
            node.meta["tensor_meta"] = _meta(out)
            if not overload.partition(".")[0].endswith("_"):
                # (an in-place op's result is its input: later reads name the input's node)
                self.nodes[id(out)] = node
            return out
        node.meta["returns_list"] = isinstance(out, list)
        for i, t in enumerate(out):
            item = self.graph.create_node("call_function", operator.getitem, (node, i))
            item.meta["tensor_meta"] = _meta(t)
            self.nodes[id(t)] = item
        return out


def _user_inputs(mod: Module, args: tuple, kwargs: dict) -> list[tuple[str, Tensor]]:
    """Each input tensor with PyTorch's placeholder name: the forward's parameter name,
    ``name_i`` inside a list or tuple."""
    try:
        bound = inspect.signature(mod.forward).bind(*args, **kwargs)
        items = list(bound.arguments.items())
    except (TypeError, ValueError):
        items = [(f"args_{i}", a) for i, a in enumerate(args)] + list(kwargs.items())
    named = []
    for pname, value in items:
        if isinstance(value, Tensor):
            named.append((pname, value))
        elif _tensors(value):
            named += [(f"{pname}_{i}", t) for i, t in enumerate(_tensors(value))]
        else:
            raise NotImplementedError(
                f"chainrule.export exports tensor inputs only (argument {pname!r} is "
                f"{type(value).__name__})"
            )
    return named


def export(
    mod: Module,
    args: tuple,
    kwargs: dict | None = None,
    *,
    dynamic_shapes: Any = None,
    strict: bool = False,
    preserve_module_call_signature: tuple = (),
) -> ExportedProgram:
    """The ExportedProgram of ``mod(*args, **kwargs)``: its forward as ATen overload
    calls on the example inputs' shapes (``dynamic_shapes`` is not supported)."""
    if dynamic_shapes is not None:
        raise NotImplementedError("chainrule.export.export does not support dynamic_shapes")
    if not isinstance(args, tuple):
        raise ValueError(
            f"Expecting `args` to be a tuple of example positional inputs, got {type(args)}"
        )
    kwargs = kwargs or {}
    graph = Graph()
    nodes: dict[int, Node] = {}
    specs: list[InputSpec] = []
    state: dict[str, Any] = {}
    constants: dict[str, Any] = {}
    persistent = {name for name in mod.state_dict()}
    for name, p in mod.named_parameters():
        node = graph.placeholder("p_" + name.replace(".", "_"))
        node.meta["tensor_meta"] = _meta(p)
        nodes[id(p)] = node
        specs.append(InputSpec(InputKind.PARAMETER, TensorArgument(node.name), name))
        state[name] = p
    for name, b in mod.named_buffers():
        node = graph.placeholder("b_" + name.replace(".", "_"))
        node.meta["tensor_meta"] = _meta(b)
        nodes[id(b)] = node
        keep = name in persistent
        specs.append(InputSpec(InputKind.BUFFER, TensorArgument(node.name), name, keep))
        (state if keep else constants)[name] = b
    users = []
    for name, t in _user_inputs(mod, args, kwargs):
        node = graph.placeholder(name)
        node.meta["tensor_meta"] = _meta(t)
        nodes[id(t)] = node
        users.append(InputSpec(InputKind.USER_INPUT, TensorArgument(node.target), None))
        users[-1].node = node
    first_user = users[0].node if users else None
    recorder = _Recorder(graph, nodes, first_user)
    # the trace runs the forward for real: what it writes into buffers (running
    # statistics) is undone, so the module is left as PyTorch's export leaves it
    before = [(b, b.detach().clone()) for _, b in mod.named_buffers()]
    try:
        with recorder:
            result = mod(*args, **kwargs)
    finally:
        with no_grad():
            for b, value in before:
                b.copy_(value)
    for node, target, t in recorder.constants:
        specs.append(InputSpec(InputKind.CONSTANT_TENSOR, TensorArgument(node.name), target))
        constants[target] = t
    for spec in users:
        del spec.node
    specs += users
    leaves = _tensors(result)
    outs = [recorder.node_of(t) for t in leaves]
    graph.output(tuple(outs))
    out_specs = [OutputSpec(OutputKind.USER_OUTPUT, TensorArgument(n.name), None) for n in outs]
    arg_names = list(inspect.signature(mod.forward).parameters)
    in_spec = spec_of((tuple(args), dict(kwargs)))
    root = {
        "inputs": [],
        "outputs": [],
        "in_spec": in_spec,
        "out_spec": spec_of(result),
        "forward_arg_names": arg_names[: len(args)] + list(kwargs),
    }
    calls = [ModuleCallEntry("", root)]
    calls += [ModuleCallEntry(name, None) for name, _ in mod.named_modules() if name]
    return ExportedProgram(
        graph,
        ExportGraphSignature(specs, out_specs),
        state,
        module_call_graph=calls,
        example_inputs=(tuple(args), dict(kwargs)),
        constants=constants,
        verifiers=["TRAINING"],
    )
