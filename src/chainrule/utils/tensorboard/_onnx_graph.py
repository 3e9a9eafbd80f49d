"""An ONNX model's graph as TensorBoard's ``GraphDef`` (``SummaryWriter.add_onnx_graph``):
one ``Variable`` node per graph input and output, with its element type and shape, then
one node per ONNX node, named by its first output, its op type the ONNX op's and its
attributes written out as one string, as PyTorch draws it. Needs the optional ``onnx``
package to read the file."""

from __future__ import annotations

from typing import Any

from tensorboard.compat.proto.attr_value_pb2 import AttrValue
from tensorboard.compat.proto.graph_pb2 import GraphDef
from tensorboard.compat.proto.node_def_pb2 import NodeDef
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.compat.proto.versions_pb2 import VersionDef


def load_onnx_graph(fname: Any) -> GraphDef:
    """The ``GraphDef`` of the ONNX model stored at ``fname`` (a path or a file object)."""
    import onnx

    return parse(onnx.load(fname).graph)


def _variable(value: Any) -> NodeDef:
    """A graph input or output (an ONNX ValueInfo) as a ``Variable`` node."""
    tensor_type = value.type.tensor_type
    print(value.name)  # (PyTorch prints each name as it goes)
    dims = [TensorShapeProto.Dim(size=d.dim_value) for d in tensor_type.shape.dim]
    return NodeDef(
        name=value.name.encode("utf_8"),
        op="Variable",
        input=[],
        attr={
            "dtype": AttrValue(type=tensor_type.elem_type),
            "shape": AttrValue(shape=TensorShapeProto(dim=dims)),
        },
    )


def _operation(node: Any) -> NodeDef:
    """An ONNX node, named by its first output; its attributes as ``"name = value"`` strings
    joined by commas (each attribute's set fields, in order, joined by " = ")."""
    print(node.output[0])
    fields = (" = ".join(str(value) for _, value in a.ListFields()) for a in node.attribute)
    return NodeDef(
        name=node.output[0].encode("utf_8"),
        op=node.op_type,
        input=node.input,
        attr={"parameters": AttrValue(s=", ".join(fields).encode("utf_8"))},
    )


def parse(graph: Any) -> GraphDef:
    """An ONNX ``GraphProto`` as a ``GraphDef``: its inputs and outputs, then its nodes."""
    nodes = [_variable(v) for v in (*graph.input, *graph.output)]
    nodes += [_operation(n) for n in graph.node]
    return GraphDef(node=nodes, versions=VersionDef(producer=22))
