"""``ExportedProgram.validate()``: the checks of PyTorch's export verifier that hold for
any program, raising its ``SpecViolationError``.

- each graph (the program's and its control-flow subgraphs) is well formed (fx's
  ``lint``: arguments defined before use, unique names) and calls only ATen overloads,
  higher-order operators and the ``operator``/``math`` functions of symbolic sizes; no
  ``call_module``/``call_method`` nodes; a ``get_attr`` names a subgraph;
- the signature's input specs are the placeholders, in order and by name; a parameter's
  target is a Parameter of the state dict, a persistent buffer's in the state dict (a
  non-persistent one not), a constant's in the constants;
- the signature's output specs are the output node's values, in order; a buffer or user
  input update names an input of that kind;
- the module call graph's signatures name nodes of the graph.
"""

from __future__ import annotations

import math
import operator
from typing import Any

from ..fx import Graph
from . import _higher_order
from ._aten import AtenOverload
from .graph_signature import InputKind, OutputKind, SymIntArgument, TensorArgument

_NAMED = (TensorArgument, SymIntArgument)


class SpecViolationError(Exception):
    """An exported program breaks the rules of its dialect (``torch._export.verifier``)."""


# the Python functions a graph may call on symbolic sizes, as PyTorch's verifier allows
_BUILTINS = frozenset(
    (
        operator.getitem,
        operator.add,
        operator.mul,
        operator.sub,
        operator.truediv,
        operator.ge,
        operator.le,
        operator.gt,
        operator.lt,
        operator.eq,
        operator.ne,
        operator.floordiv,
        operator.mod,
        operator.and_,
        operator.or_,
        operator.not_,
        operator.pow,
        operator.neg,
        operator.abs,
        operator.lshift,
        operator.rshift,
        math.ceil,
        math.floor,
        math.trunc,
        round,
    )
)
_TENSOR_INPUTS = {
    InputKind.PARAMETER: "Parameter",
    InputKind.BUFFER: "Buffer",
    InputKind.CONSTANT_TENSOR: "Constant tensor",
}


def validate(ep: Any) -> None:
    """Raises SpecViolationError where ``ep``'s graphs or signature break the rules."""
    _check_graph(ep.graph, "the program's graph")
    _check_module_call_graph(ep)
    _check_inputs(ep)
    _check_outputs(ep)


def _check_graph(graph: Graph, where: str) -> None:
    """``graph`` well formed, calling only allowed targets; its subgraphs too."""
    try:
        graph.lint()
    except RuntimeError as e:
        raise SpecViolationError(f"{where} is malformed: {e}") from e
    nodes = list(graph.nodes)
    if not nodes or nodes[-1].op != "output":
        raise SpecViolationError(f"{where} must end with its output node")
    for node in nodes:
        if node.op in ("call_module", "call_method"):
            raise SpecViolationError(
                f"{node.op} is not valid in an exported program: got {node.target!r} "
                f"(node {node.name} of {where}); call an ATen overload instead"
            )
        if node.op == "call_function" and not _allowed(node.target):
            raise SpecViolationError(
                f"Operator '{node.target}' (node {node.name} of {where}) is not an allowed "
                "operator type: an exported graph calls torch.ops.aten overloads "
                "(torch.ops.aten.sin.default), torch.ops.higher_order operators and the "
                "operator functions of symbolic sizes"
            )
        if node.op == "get_attr":
            if not isinstance(node.target, str) or not _higher_order.is_subgraph(node):
                raise SpecViolationError(
                    f"Invalid get_attr {node.name} of {where}: an exported graph's get_attr "
                    "reads a control-flow subgraph; pass tensors as inputs of the signature"
                )
            _check_graph(node.meta["subgraph"], f"subgraph {node.target}")


def _allowed(target: Any) -> bool:
    if isinstance(target, (AtenOverload, _higher_order.HigherOrderOperator)):
        return True
    try:
        return target in _BUILTINS
    except TypeError:  # (an unhashable target)
        return False


def _check_module_call_graph(ep: Any) -> None:
    names = {node.name for node in ep.graph.nodes}
    for entry in ep.module_call_graph:
        signature = entry.signature or {}
        for kind in ("inputs", "outputs"):
            for arg in signature.get(kind, ()) if isinstance(signature, dict) else ():
                name = getattr(arg, "name", None)
                if name and name not in names:
                    word = "Input" if kind == "inputs" else "Output"
                    raise SpecViolationError(f"{word} {name} does not exist in the graph.")


def _check_inputs(ep: Any) -> None:
    from ..nn import Parameter

    specs = ep.graph_signature.input_specs
    # (a placeholder's target is the name asked for: PyTorch's node name, where
    # chainrule's fx renamed one shadowing a builtin, ``input`` -> ``input_1``)
    nodes = [n for n in ep.graph.nodes if n.op == "placeholder"]
    placeholders = [n.target for n in nodes]
    if len(placeholders) != len(specs):
        named = {getattr(s.arg, "name", None) for s in specs}
        raise SpecViolationError(
            f"Number of graph inputs ({len(placeholders)}) does not match number of inputs "
            f"in the graph signature ({len(specs)}): placeholders missing input specs "
            f"{sorted(set(placeholders) - named)}, input specs missing placeholders "
            f"{sorted(n for n in named - set(placeholders) if n)}"
        )
    for spec, name, node in zip(specs, placeholders, nodes):
        if isinstance(spec.arg, _NAMED) and spec.arg.name not in (name, node.name):
            raise SpecViolationError(
                f"Input spec name {spec.arg.name} does not match node name {name}"
            )
        what = _TENSOR_INPUTS.get(spec.kind)
        if what is None:
            continue
        if not isinstance(spec.arg, TensorArgument):
            raise SpecViolationError(
                f"{what} {spec.arg.name} is not a tensor argument. Found {spec.arg} instead."
            )
        if spec.target is None:
            raise SpecViolationError(f"InputSpec for {spec.arg.name} has no target.")
        target = spec.target
        if spec.kind == InputKind.PARAMETER:
            if target not in ep.state_dict:
                raise SpecViolationError(f"Parameter {target} is not in the state dict.")
            if not isinstance(ep.state_dict[target], Parameter):
                raise SpecViolationError(
                    f"State dict entry for parameter {target} is not an instance of "
                    "torch.nn.Parameter."
                )
        elif spec.kind == InputKind.BUFFER:
            if spec.persistent is None:
                raise SpecViolationError(f"Buffer {target} is missing a persistence flag")
            held = target in ep.state_dict
            if spec.persistent and not held and target not in ep.constants:
                raise SpecViolationError(f"Buffer {target} is not in the state dict.")
            if not spec.persistent and held:
                raise SpecViolationError(
                    f"Non-persistent buffer {target} is in the state dict, it should not be."
                )
        elif target not in ep.constants:
            raise SpecViolationError(
                f"Constant tensor {target} is not in the constants dictionary."
            )


def _check_outputs(ep: Any) -> None:
    gs = ep.graph_signature
    output = list(ep.graph.nodes)[-1]
    values = output.args[0] if output.args else ()
    values = values if isinstance(values, (list, tuple)) else (values,)
    names = [getattr(v, "name", v) for v in values]
    specs = gs.output_specs
    if len(names) != len(specs):
        raise SpecViolationError(
            f"Number of output nodes {len(names)} is different than the number of outputs "
            f"specified by the graph signature: {len(specs)}"
        )
    inputs = {
        OutputKind.BUFFER_MUTATION: ("Buffer", set(gs.buffers)),
        OutputKind.USER_INPUT_MUTATION: ("User input", set(gs.user_inputs)),
        OutputKind.PARAMETER_MUTATION: ("Parameter", set(gs.parameters)),
    }
    for spec, name in zip(specs, names):
        if isinstance(spec.arg, _NAMED) and spec.arg.name != name:
            raise SpecViolationError(
                f"User output {name} is not in the correct order or is not found in the "
                f"exported program's output specs ({spec.arg.name} is there)."
            )
        if spec.kind in inputs:
            word, targets = inputs[spec.kind]
            if spec.target not in targets:
                raise SpecViolationError(
                    f"{word} output {name} does not point to a {word.lower()} that exists: "
                    f"{spec.target!r} is not among {sorted(targets)}"
                )
