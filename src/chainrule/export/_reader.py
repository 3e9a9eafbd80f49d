"""A saved program's JSON (PyTorch's export schema) as a chainrule fx Graph and an
ExportGraphSignature: each serialized node becomes a ``call_function`` Node of its ATen
overload, a multi-output node is followed by ``getitem`` Nodes named as its outputs."""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any

from ..fx import Graph, Node
from . import _higher_order, _naming, _schema
from ._aten import AtenNamespace
from ._aten_table import PYTHON_TARGETS, TABLE
from .graph_signature import (
    ConstantArgument,
    CustomObjArgument,
    ExportGraphSignature,
    InputKind,
    InputSpec,
    OutputKind,
    OutputSpec,
    SymIntArgument,
    TensorArgument,
    TokenArgument,
)

ATEN = AtenNamespace(TABLE)


@dataclass
class TensorMeta:
    """What a graph value is: dtype and sizes (ints, or the text of a symbolic size)."""

    dtype: Any
    shape: list[Any]
    requires_grad: bool = False


def tensor_meta(meta: dict) -> TensorMeta:
    """A serialized ``TensorMeta`` record."""
    sizes = [s["as_int"] if "as_int" in s else s["as_expr"]["expr_str"] for s in meta["sizes"]]
    return TensorMeta(_schema.dtype_of(meta["dtype"]), sizes, meta.get("requires_grad", False))


def target_of(name: str) -> Any:
    """The callable of a serialized node target; NotImplementedError naming it if none."""
    if name.startswith("torch.ops.aten."):
        return ATEN.overload(name[len("torch.ops.") :])
    if name in PYTHON_TARGETS:
        return PYTHON_TARGETS[name]
    if name.startswith(_higher_order.PREFIX):
        return _higher_order.target_of(name)
    raise NotImplementedError(f"chainrule.export cannot run the operator {name}")


class _GraphReader:
    """Builds one Graph from its serialized record."""

    def __init__(self, record: dict) -> None:
        self.record = record
        self.graph = Graph()
        self.values: dict[str, Node] = {}
        self.metas = {k: tensor_meta(v) for k, v in record.get("tensor_values", {}).items()}

    def arg(self, a: dict) -> Any:
        """One serialized Argument as a Node, a value or a container of them."""
        ((kind, v),) = a.items()
        if kind == "as_tensor":
            return self.values[v["name"]]
        if kind == "as_tensors":
            return [self.values[t["name"]] for t in v]
        if kind in ("as_optional_tensors",):
            return [self.optional(t) for t in v]
        if kind == "as_optional_tensor":
            return self.optional(v)
        if kind == "as_nested_tensors":
            return [[self.values[t["name"]] for t in row] for row in v]
        if kind in ("as_sym_int", "as_sym_float", "as_sym_bool"):
            return self.symbolic(v)
        if kind in ("as_sym_ints", "as_sym_floats", "as_sym_bools"):
            return [self.symbolic(s) for s in v]
        if kind == "as_none":
            return None
        if kind == "as_scalar_type":
            return _schema.dtype_of(v)
        if kind == "as_memory_format":
            return _schema.memory_format_of(v)
        if kind == "as_layout":
            return _schema.layout_of(v)
        if kind == "as_device":
            return _schema.device_of(v)
        if kind == "as_complex":
            return complex(v["real"], v["imag"])
        if kind == "as_string_to_argument":
            return {k: self.arg(x) for k, x in v.items()}
        if kind == "as_graph":  # (a control-flow operator's function: a get_attr node)
            node = self.graph.create_node("get_attr", v["name"], name=v["name"])
            node.meta["subgraph"] = read_graph(v["graph"])
            return node
        if kind == "as_custom_obj":
            raise NotImplementedError(f"chainrule.export cannot read a {kind[3:]} argument")
        if kind == "as_float":
            return _float(v)
        if kind == "as_floats":
            return [_float(x) for x in v]
        return v  # as_int(s), as_bool(s), as_string(s), as_operator, as_int_lists, ...

    def optional(self, v: dict) -> Node | None:
        return self.values[v["as_tensor"]["name"]] if "as_tensor" in v else None

    def symbolic(self, v: dict) -> Any:
        ((kind, x),) = v.items()
        return self.values[x] if kind == "as_name" else x

    def placeholder(self, a: dict) -> None:
        ((kind, v),) = a.items()
        if kind in ("as_tensor", "as_token"):
            name = v["name"]
        elif kind in ("as_sym_int", "as_sym_float", "as_sym_bool"):
            name = v.get("as_name", f"const_{len(self.values)}")
        elif kind == "as_custom_obj":
            name = v["name"]
        else:
            name = f"const_{len(self.values)}"
        node = _naming.placeholder(self.graph, name)
        self.remember(name, node)

    def remember(self, name: str, node: Node) -> None:
        self.values[name] = node
        if name in self.metas:
            node.meta["tensor_meta"] = self.metas[name]
        sym = self.record.get("sym_int_values", {}).get(name)
        if name in self.record.get("sym_bool_values", {}):  # (a range check's ``u0 >= 0``)
            sym = self.record["sym_bool_values"][name]
            node.meta["sym_bool"] = True
        if sym is not None:
            node.meta["sym_expr"] = (
                sym["as_expr"]["expr_str"] if "as_expr" in sym else str(sym["as_int"])
            )

    def node(self, record: dict) -> None:
        target = target_of(record["target"])
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for named in record["inputs"]:
            value = self.arg(named["arg"])
            if named.get("kind") == 2:
                kwargs[named["name"]] = value
            else:
                args.append(value)
        outputs = record["outputs"]
        name = record.get("name") or None
        positional = [a["name"] for a in record["inputs"] if a.get("kind") != 2]
        single = len(outputs) == 1 and next(iter(outputs[0])) in (
            "as_tensor",
            "as_sym_int",
            "as_sym_float",
            "as_sym_bool",
        )
        if (
            single
            and target is not operator.getitem
            and not record.get("is_hop_single_tensor_return")
            and not isinstance(target, _higher_order.HigherOrderOperator)  # (getitems)
        ):
            ((kind, v),) = outputs[0].items()
            out_name = v["name"] if kind == "as_tensor" else v.get("as_name", name)
            n = self.graph.create_node("call_function", target, tuple(args), kwargs, name=out_name)
            self._meta(n, record)
            n.meta["arg_names"] = positional
            self.remember(out_name, n)
            return
        n = self.graph.create_node("call_function", target, tuple(args), kwargs, name=name)
        self._meta(n, record)
        n.meta["arg_names"] = positional
        n.meta["returns_list"] = len(outputs) == 1 and "as_tensors" in outputs[0]
        if len(outputs) == 1 and "as_tensors" in outputs[0]:
            outputs = [{"as_tensor": t} for t in outputs[0]["as_tensors"]]
        for i, out in enumerate(outputs):
            ((kind, v),) = out.items()
            if kind != "as_tensor":
                continue
            g = self.graph.create_node("call_function", operator.getitem, (n, i), name=v["name"])
            self.remember(v["name"], g)

    def _meta(self, n: Node, record: dict) -> None:
        for key in ("stack_trace", "nn_module_stack", "torch_fn"):
            if key in record.get("metadata", {}):
                n.meta[key] = record["metadata"][key]

    def read(self) -> Graph:
        for a in self.record["inputs"]:
            self.placeholder(a)
        for record in self.record["nodes"]:
            self.node(record)
        outs = tuple(self.arg(a) for a in self.record["outputs"])
        # (a while loop's condition returns its one tensor, not a tuple)
        self.graph.output(outs[0] if self.record.get("is_single_tensor_return") else outs)
        return self.graph


def _float(v: Any) -> float:
    # JSON has no inf or nan: PyTorch writes them as strings
    return float(v) if isinstance(v, str) else v


def read_graph(record: dict) -> Graph:
    """The chainrule fx Graph of a serialized ``Graph`` record."""
    return _GraphReader(record).read()


def _argument_spec(a: dict) -> Any:
    ((kind, v),) = a.items()
    if kind == "as_tensor":
        return TensorArgument(v["name"])
    if kind == "as_sym_int":
        return SymIntArgument(v["as_name"]) if "as_name" in v else ConstantArgument("", v["as_int"])
    if kind == "as_custom_obj":
        return CustomObjArgument(v["name"], v["class_fqn"])
    if kind == "as_none":
        return ConstantArgument("", None)
    return ConstantArgument("", v)


def read_signature(record: dict) -> ExportGraphSignature:
    """The ExportGraphSignature of a serialized ``GraphSignature`` record."""
    inputs: list[InputSpec] = []
    for spec in record["input_specs"]:
        ((kind, v),) = spec.items()
        if kind == "user_input":
            inputs.append(InputSpec(InputKind.USER_INPUT, _argument_spec(v["arg"]), None))
        elif kind == "parameter":
            inputs.append(
                InputSpec(
                    InputKind.PARAMETER, TensorArgument(v["arg"]["name"]), v["parameter_name"]
                )
            )
        elif kind == "buffer":
            inputs.append(
                InputSpec(
                    InputKind.BUFFER,
                    TensorArgument(v["arg"]["name"]),
                    v["buffer_name"],
                    v.get("persistent", True),
                )
            )
        elif kind == "tensor_constant":
            inputs.append(
                InputSpec(
                    InputKind.CONSTANT_TENSOR,
                    TensorArgument(v["arg"]["name"]),
                    v["tensor_constant_name"],
                )
            )
        elif kind == "custom_obj":
            arg = CustomObjArgument(v["arg"]["name"], v["arg"]["class_fqn"])
            inputs.append(InputSpec(InputKind.CUSTOM_OBJ, arg, v["custom_obj_name"]))
        elif kind == "token":
            inputs.append(InputSpec(InputKind.TOKEN, TokenArgument(v["arg"]["name"]), None))
        elif kind == "constant_input":
            value = next(iter(v["value"].values()))
            value = None if "as_none" in v["value"] else value
            inputs.append(InputSpec(InputKind.USER_INPUT, ConstantArgument(v["name"], value), None))
    outputs: list[OutputSpec] = []
    for spec in record["output_specs"]:
        ((kind, v),) = spec.items()
        out_kind = OutputKind[kind.upper()]
        if kind in ("user_output",):
            arg = _argument_spec(v["arg"])
        elif kind == "token":
            arg = TokenArgument(v["arg"]["name"])
        else:
            arg = TensorArgument(v["arg"]["name"])
        target = None
        for key in ("buffer_name", "parameter_name", "user_input_name"):
            if key in v:
                target = v[key]
        outputs.append(OutputSpec(out_kind, arg, target))
    return ExportGraphSignature(inputs, outputs)
