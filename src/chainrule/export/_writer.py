"""``torch.export.save``: an ExportedProgram as a ``.pt2`` archive PyTorch's
``torch.export.load`` reads: the program in PyTorch's export schema (JSON), the weights
and constants as raw bytes with their metadata, the sample inputs as a torch.save record."""

from __future__ import annotations

import io
import json
import operator
import os
import secrets
from typing import IO, Any

import chainrule

from ..fx import Node
from ..serialization._archive import ArchiveWriter, archive_name
from . import _higher_order, _schema
from ._archive import ARCHIVE_VERSION, SCHEMA_MAJOR
from ._aten import AtenOverload
from ._reader import TensorMeta
from ._treespec import TreeSpec
from .graph_signature import (
    ConstantArgument,
    ExportGraphSignature,
    InputKind,
    OutputKind,
    TensorArgument,
)

SCHEMA_MINOR = 20
ATEN_OPSET = 10
_DEVICE = {"type": "cpu", "index": None}


def tensor_meta_record(meta: TensorMeta) -> dict:
    """A ``TensorMeta`` record of a contiguous CPU tensor (symbolic sizes as sympy's
    text)."""
    if any(isinstance(s, str) for s in meta.shape):
        return {
            "dtype": _schema.scalar_type_of(meta.dtype),
            "sizes": [_sym(s) for s in meta.shape],
            "requires_grad": bool(meta.requires_grad),
            "device": _DEVICE,
            "strides": _symbolic_strides(meta.shape),
            "storage_offset": {"as_int": 0},
            "layout": 7,
        }
    strides, step = [], 1
    for size in reversed(meta.shape):
        strides.append(step)
        step *= max(int(size), 1)
    return {
        "dtype": _schema.scalar_type_of(meta.dtype),
        "sizes": [{"as_int": int(s)} for s in meta.shape],
        "requires_grad": bool(meta.requires_grad),
        "device": _DEVICE,
        "strides": [{"as_int": s} for s in reversed(strides)],
        "storage_offset": {"as_int": 0},
        "layout": 7,
    }


def _sym(size: Any) -> dict:
    if isinstance(size, str):
        return {"as_expr": {"expr_str": size, "hint": None}}
    return {"as_int": int(size)}


def _symbolic_strides(shape: list) -> list[dict]:
    """Contiguous strides over sizes some of which are sympy texts (products written as
    ``Mul`` of the factors)."""
    strides: list[dict] = []
    factors: list[str] = []
    step = 1
    for size in reversed(shape):
        if factors:
            parts = [f"Integer({step})"] * (step != 1) + factors
            text = parts[0] if len(parts) == 1 else f"Mul({', '.join(parts)})"
            strides.append({"as_expr": {"expr_str": text, "hint": None}})
        else:
            strides.append({"as_int": step})
        if isinstance(size, str):
            factors.append(size)
        else:
            step *= max(int(size), 1)
    return list(reversed(strides))


def _name(node: Node) -> str:
    """A value's serialized name (a placeholder's own name: fx may have renamed the node
    of an input called ``input``, a builtin's name, to ``input_1``)."""
    return node.target if node.op == "placeholder" else node.name


def _argument(value: Any) -> dict:
    """One argument value as a serialized ``Argument``."""
    if _higher_order.is_subgraph(value):  # (a control-flow operator's function)
        return {"as_graph": {"name": value.name, "graph": graph_record(value.meta["subgraph"])}}
    if isinstance(value, Node):
        if "sym_expr" in value.meta:
            return {_sym_kind(value): {"as_name": value.name}}
        return {"as_tensor": {"name": _name(value)}}
    if value is None:
        return {"as_none": True}
    if isinstance(value, bool):
        return {"as_bool": value}
    if isinstance(value, int):
        return {"as_int": value}
    if isinstance(value, float):
        return {"as_float": value}
    if isinstance(value, complex):
        return {"as_complex": {"real": value.real, "imag": value.imag}}
    if isinstance(value, str):
        return {"as_string": value}
    if isinstance(value, chainrule.dtype):
        return {"as_scalar_type": _schema.scalar_type_of(value)}
    if isinstance(value, chainrule.device):
        return {"as_device": {"type": value.type, "index": value.index}}
    if value is chainrule.strided:
        return {"as_layout": 7}
    for number, name in _schema._MEMORY_FORMATS.items():
        if value is getattr(chainrule, name):
            return {"as_memory_format": number}
    if isinstance(value, (list, tuple)):
        items = list(value)
        if any(isinstance(v, Node) and "sym_expr" in v.meta for v in items):
            return {
                "as_sym_ints": [
                    {"as_name": v.name} if isinstance(v, Node) else {"as_int": v} for v in items
                ]
            }
        if items and all(isinstance(v, Node) for v in items):
            return {"as_tensors": [{"name": _name(v)} for v in items]}
        if any(isinstance(v, Node) for v in items):
            return {
                "as_optional_tensors": [
                    {"as_tensor": {"name": _name(v)}} if isinstance(v, Node) else {"as_none": True}
                    for v in items
                ]
            }
        if items and all(isinstance(v, bool) for v in items):
            return {"as_bools": items}
        if all(isinstance(v, int) and not isinstance(v, bool) for v in items):
            return {"as_ints": items}
        if all(isinstance(v, (int, float)) for v in items):
            return {"as_floats": [float(v) for v in items]}
        if all(isinstance(v, str) for v in items):
            return {"as_strings": items}
    raise NotImplementedError(f"chainrule.export.save cannot serialize the argument {value!r}")


def _sym_kind(node: Node) -> str:
    """A symbolic value's argument kind: a condition (``u0 >= 0``) or an int."""
    return "as_sym_bool" if node.meta.get("sym_bool") else "as_sym_int"


def _target(target: Any) -> str:
    if isinstance(target, AtenOverload):
        return f"torch.ops.{target}"
    if isinstance(target, _higher_order.HigherOrderOperator):
        return f"{_higher_order.PREFIX}{target.name()}"
    if getattr(operator, getattr(target, "__name__", ""), None) is target:
        return f"_operator.{target.__name__}"
    raise NotImplementedError(f"chainrule.export.save cannot serialize the target {target!r}")


def _node(node: Node) -> dict:
    names = node.meta.get("arg_names") or [f"arg{i}" for i in range(len(node.args))]
    inputs = [{"name": name, "arg": _argument(a), "kind": 1} for name, a in zip(names, node.args)]
    hop = isinstance(node.target, _higher_order.HigherOrderOperator)
    if hop:  # (operands, none or some: a list of tensors)
        for item, a in zip(inputs, node.args):
            if isinstance(a, tuple) and not a:
                item["arg"] = {"as_tensors": []}
    inputs += [{"name": k, "arg": _argument(v), "kind": 2} for k, v in node.kwargs.items()]
    items = {
        u.args[1]: u for u in node.users if u.op == "call_function" and u.target is operator.getitem
    }
    if items:
        # every result is written, read or not (a single one would read as one tensor)
        size = max(max(items) + 1, len(node.meta.get("output_metas", ())))
        named = [
            {"name": items[i].name} if i in items else {"name": f"{node.name}_unused_{i}"}
            for i in range(size)
        ]
        if node.meta.get("returns_list"):
            outputs = [{"as_tensors": named}]
        else:
            outputs = [{"as_tensor": n} for n in named]
    elif "sym_expr" in node.meta:
        outputs = [{_sym_kind(node): {"as_name": node.name}}]
    elif node.meta.get("tensor_meta") is not None:
        outputs = [{"as_tensor": {"name": node.name}}]
    else:
        outputs = []
    return {
        "target": _target(node.target),
        "inputs": inputs,
        "outputs": outputs,
        "metadata": {k: node.meta[k] for k in ("stack_trace", "nn_module_stack") if k in node.meta},
        "is_hop_single_tensor_return": False if hop else None,
        "name": node.name,
    }


def _is_folded(node: Node) -> bool:
    """A getitem of a multi-output node: it is the node's output, not a node of its own."""
    return (
        node.op == "call_function"
        and node.target is operator.getitem
        and isinstance(node.args[0], Node)
        and node.args[0].op == "call_function"
    )


def graph_record(graph: Any) -> dict:
    """A chainrule fx Graph of ATen overloads as a serialized ``Graph``."""
    nodes, metas, syms, bools = [], {}, {}, {}
    inputs, outputs, single = [], [], False
    for node in graph.nodes:
        if "sym_expr" in node.meta:
            sym = {"as_expr": {"expr_str": node.meta["sym_expr"], "hint": None}}
            (bools if node.meta.get("sym_bool") else syms)[node.name] = sym
        meta = node.meta.get("tensor_meta")
        if meta is not None:
            metas[_name(node)] = tensor_meta_record(meta)
        read = {u.args[1] for u in node.users if u.target is operator.getitem}
        for i, result in enumerate(node.meta.get("output_metas", ())):
            if i not in read:  # (the results nothing reads are written too)
                metas[f"{node.name}_unused_{i}"] = tensor_meta_record(result)
        if node.op == "placeholder":
            inputs.append({"as_tensor": {"name": _name(node)}})
        elif node.op == "output":
            single = isinstance(node.args[0], Node)  # (a while loop's condition)
            outputs = [_argument(v) for v in ([node.args[0]] if single else node.args[0])]
        elif node.op == "call_function" and not _is_folded(node):
            nodes.append(_node(node))
    return {
        "inputs": inputs,
        "outputs": outputs,
        "nodes": nodes,
        "tensor_values": metas,
        "sym_int_values": syms,
        "sym_bool_values": bools,
        "is_single_tensor_return": single,
        "custom_obj_values": {},
        "sym_float_values": {},
    }


def _user_arg(arg: Any) -> dict:
    if isinstance(arg, TensorArgument):
        return {"as_tensor": {"name": arg.name}}
    if isinstance(arg, ConstantArgument):
        return _argument(arg.value)
    raise NotImplementedError(f"chainrule.export.save cannot serialize {arg!r}")


def signature_record(sig: ExportGraphSignature) -> dict:
    """A serialized ``GraphSignature``."""
    inputs = []
    for s in sig.input_specs:
        name = {"name": s.arg.name}
        if s.kind == InputKind.USER_INPUT:
            inputs.append({"user_input": {"arg": _user_arg(s.arg)}})
        elif s.kind == InputKind.PARAMETER:
            inputs.append({"parameter": {"arg": name, "parameter_name": s.target}})
        elif s.kind == InputKind.BUFFER:
            inputs.append(
                {
                    "buffer": {
                        "arg": name,
                        "buffer_name": s.target,
                        "persistent": s.persistent is not False,
                    }
                }
            )
        elif s.kind == InputKind.CONSTANT_TENSOR:
            inputs.append({"tensor_constant": {"arg": name, "tensor_constant_name": s.target}})
        else:
            raise NotImplementedError(f"chainrule.export.save cannot serialize {s.kind}")
    outputs = []
    for s in sig.output_specs:
        if s.kind == OutputKind.USER_OUTPUT:
            outputs.append({"user_output": {"arg": _user_arg(s.arg)}})
        elif s.kind == OutputKind.LOSS_OUTPUT:
            outputs.append({"loss_output": {"arg": {"name": s.arg.name}}})
        elif s.kind == OutputKind.BUFFER_MUTATION:
            outputs.append(
                {"buffer_mutation": {"arg": {"name": s.arg.name}, "buffer_name": s.target}}
            )
        elif s.kind == OutputKind.PARAMETER_MUTATION:
            outputs.append(
                {"parameter_mutation": {"arg": {"name": s.arg.name}, "parameter_name": s.target}}
            )
        elif s.kind == OutputKind.USER_INPUT_MUTATION:
            outputs.append(
                {"user_input_mutation": {"arg": {"name": s.arg.name}, "user_input_name": s.target}}
            )
        else:
            raise NotImplementedError(f"chainrule.export.save cannot serialize {s.kind}")
    return {"input_specs": inputs, "output_specs": outputs}


def treespec_text(spec: TreeSpec) -> str:
    """PyTorch's serialized treespec (protocol 1)."""

    def node(s: TreeSpec) -> dict:
        if s.type is None:
            return {"type": None, "context": None, "children_spec": []}
        return {
            "type": s.type,
            "context": json.dumps(s.context),
            "children_spec": [node(c) for c in s.children],
        }

    return json.dumps([1, node(spec)])


def program_record(ep: Any, opset_version: dict[str, int] | None = None) -> dict:
    """A serialized ``ExportedProgram``."""
    calls = []
    for entry in ep.module_call_graph:
        sig = entry.signature
        if sig is not None:
            sig = {
                "inputs": sig.get("inputs", []),
                "outputs": sig.get("outputs", []),
                "in_spec": treespec_text(sig["in_spec"]),
                "out_spec": treespec_text(sig["out_spec"]),
                "forward_arg_names": sig.get("forward_arg_names"),
            }
        calls.append({"fqn": entry.fqn, "signature": sig})
    ranges = {
        str(k): {
            "min_val": v.lower if isinstance(v.lower, int) else None,
            "max_val": v.upper if isinstance(v.upper, int) else None,
        }
        for k, v in ep.range_constraints.items()
    }
    return {
        "graph_module": {
            "graph": graph_record(ep.graph),
            "signature": signature_record(ep.graph_signature),
            "module_call_graph": calls,
            "metadata": {},
            "treespec_namedtuple_fields": {},
        },
        "opset_version": {"aten": ATEN_OPSET, **(opset_version or {})},
        "range_constraints": ranges,
        "schema_version": {"major": SCHEMA_MAJOR, "minor": SCHEMA_MINOR},
        "verifiers": list(ep.verifiers) or ["TRAINING"],
        "torch_version": "2.13.0+cpu",
        "guards_code": [],
    }


def _payload(writer: ArchiveWriter, folder: str, stem: str, tensors: dict[str, Any]) -> None:
    config = {}
    for i, (name, t) in enumerate(tensors.items()):
        path = f"{stem}_{i}"
        data = t.detach().contiguous().numpy()
        writer.write(f"data/{folder}/{path}", data.tobytes(), aligned=True)
        meta = TensorMeta(t.dtype, list(t.shape), t.requires_grad)
        config[name] = {
            "path_name": path,
            "is_param": isinstance(t, chainrule.nn.Parameter),
            "use_pickle": False,
            "tensor_meta": tensor_meta_record(meta),
        }
    writer.write(
        f"data/{folder}/model_{folder}_config.json", json.dumps({"config": config}).encode()
    )


def save(
    ep: Any,
    f: str | os.PathLike | IO[bytes],
    *,
    extra_files: dict[str, Any] | None = None,
    opset_version: dict[str, int] | None = None,
    pickle_protocol: int = 2,
) -> None:
    """Write ``ep`` to ``f`` in PyTorch's ``.pt2`` format."""
    # (the program's record first: what cannot be serialized raises before a file is made)
    record = json.dumps(program_record(ep, opset_version)).encode()
    opened = isinstance(f, (str, os.PathLike))
    stream = open(f, "wb") if opened else f
    try:
        writer = ArchiveWriter(stream, archive_name(f) if opened else "archive")
        try:
            _payload(writer, "weights", "weight", dict(ep.state_dict))
            _payload(writer, "constants", "tensor", dict(ep.constants))
            writer.write("models/model.json", record)
            if ep.example_inputs is not None:
                buf = io.BytesIO()
                chainrule.save(ep.example_inputs, buf)
                writer.write("data/sample_inputs/model.pt", buf.getvalue())
            for key, value in (extra_files or {}).items():
                data = value.encode() if isinstance(value, str) else value
                writer.write(f"extra/{key}", data)
            writer.write("archive_format", b"pt2")
            writer.write("archive_version", ARCHIVE_VERSION.encode())
            writer.write(".data/version", b"6\n")
            writer.write("byteorder", b"little")
            serial = str(secrets.randbits(128)).zfill(40).encode()
            writer.write(".data/serialization_id", serial)
        finally:
            writer.zip.close()
    finally:
        if opened:
            stream.close()
