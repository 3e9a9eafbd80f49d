"""A recorded trace (an exported ATen graph) written as TorchScript: the source of the
``forward`` method (``.code``, and the text saved in ``code/__torch__/...``) and the
graph's IR text (``.graph``). Every ATen overload ``aten.<op>.<overload>`` is written as
``torch.<op>(...)``, which TorchScript resolves by the arguments' types; parameters and
buffers are read from ``self``, lifted tensors are ``CONSTANTS.c<i>``."""

from __future__ import annotations

import keyword
import math
import operator
from typing import Any

from ... import _dtypes
from ..._missing import NotImplementedInChainrule
from ..._tensor import device as Device
from ...fx import Node
from ._inline import CALL, LIST, RETURN, UNPACK, Item, Result, place_inline, write
from ._sizes import SizeExpr

# c10's ScalarType numbers (how TorchScript source writes a dtype)
_SCALAR_TYPE = {
    "uint8": 0, "int8": 1, "int16": 2, "int32": 3, "int64": 4, "float16": 5, "float32": 6,
    "float64": 7, "complex64": 9, "complex128": 10, "bool": 11, "bfloat16": 15,
}  # fmt: skip
# the names TorchScript's IR gives tensor types of each dtype
_IR_TYPE = {
    "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
    "float16": "Half", "float32": "Float", "float64": "Double", "bool": "Bool",
    "bfloat16": "BFloat16", "complex64": "ComplexFloat", "complex128": "ComplexDouble",
}  # fmt: skip
# c10's MemoryFormat numbers
_MEMORY_FORMAT = {
    "torch.contiguous_format": 0, "torch.preserve_format": 1, "torch.channels_last": 2,
    "torch.channels_last_3d": 3,
}  # fmt: skip
_RESERVED = {
    "self", "torch", "ops", "CONSTANTS", "annotate", "getattr", "float", "int", "bool",
    "str", "list", "tuple", "dict", "len", "range", "print", "inf", "nan", "math", "uninitialized",
}  # fmt: skip


SIZE_LOCALS = {0: "_size0", 1: "_size1"}  # (the locals holding the first input's sizes)


def local_name(name: str) -> str:
    """A graph value's name as a TorchScript local variable."""
    if keyword.iskeyword(name) or name in _RESERVED or name.startswith("__"):
        return name.strip("_") + "_"
    return name


def literal(value: Any, names: dict[Node, str]) -> str:
    """A node argument as TorchScript source."""
    if isinstance(value, Node):
        return names[value]
    if isinstance(value, SizeExpr):
        return value.source(SIZE_LOCALS)
    if value is None or isinstance(value, (bool, int, str)):
        return repr(value) if not isinstance(value, str) else '"' + _escaped(value) + '"'
    if isinstance(value, float):
        if math.isnan(value):
            return 'float("nan")'
        if math.isinf(value):
            return 'float("inf")' if value > 0 else '-float("inf")'
        return repr(value)
    if isinstance(value, (list, tuple)):
        if not value:
            return "annotate(List[int], [])"
        return "[" + ", ".join(literal(v, names) for v in value) + "]"
    if isinstance(value, _dtypes.dtype):
        if value.name not in _SCALAR_TYPE:
            raise NotImplementedInChainrule(
                f"torch.jit: the dtype {value} has no TorchScript ScalarType in chainrule"
            )
        return str(_SCALAR_TYPE[value.name])
    if isinstance(value, Device):
        return f'torch.device("{value}")'
    text = repr(value)
    if text in _MEMORY_FORMAT:
        return str(_MEMORY_FORMAT[text])
    if text == "torch.strided":
        return "0"
    raise NotImplementedInChainrule(
        f"torch.jit: an argument of type {type(value).__name__} ({text}) cannot be written "
        "in TorchScript by chainrule"
    )


def _escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _mutates(op: str) -> bool:
    """Whether the operator writes into an argument (its call stays though unread)."""
    return op.endswith("_") or op in ("batch_norm", "instance_norm", "_native_batch_norm_legit")


def _live(graph: Any) -> set[Node]:
    """The nodes the output or a writing call depends on."""
    live: set[Node] = set()
    stack = [n for n in graph.nodes if n.op == "output"]
    stack += [
        n for n in graph.nodes
        if n.op == "call_function" and str(n.target).startswith("aten.") and _mutates(op_name(n.target))
    ]  # fmt: skip
    while stack:
        node = stack.pop()
        if node not in live:
            live.add(node)
            stack.extend(node.all_input_nodes)
    return live


# sizes of a tensor, and arithmetic on them, as TorchScript's int operators write them
_SIZE_OPS = {"sym_size": "size", "sym_numel": "numel", "sym_stride": "stride"}
_INT_OPS = {
    operator.add: "add", operator.sub: "sub", operator.mul: "mul",
    operator.floordiv: "floordiv", operator.mod: "remainder", operator.neg: "neg",
}  # fmt: skip


def op_name(target: Any) -> str:
    """``conv2d`` for ``aten.conv2d.default`` (``size`` for ``sym_size``, ``add`` for
    ``operator.add`` on sizes); NotImplementedInChainrule for a call that is no ATen
    overload."""
    if target in _INT_OPS:
        return _INT_OPS[target]
    full = str(target)
    if not full.startswith("aten."):
        raise NotImplementedInChainrule(
            f"torch.jit: the traced call {full} has no TorchScript translation in chainrule"
        )
    name = full.split(".")[1]
    return _SIZE_OPS.get(name, name)


def unpacked(node: Node) -> int:
    """How many results a call of several results (``_unique2``, ``nonzero_numpy``,
    ``lstm``) gives, when every use takes one of them (``getitem``); 0 otherwise. Such a
    call is written as PyTorch writes it, ``_0, _1, _2 = torch._unique2(x)``."""
    results = node.meta.get("output_metas")
    if not results or any(u.target is not operator.getitem for u in node.users):
        return 0
    return max([len(results)] + [u.args[1] + 1 for u in node.users])


def return_type(spec: Any) -> str:
    """The TorchScript type of an output of this pytree spec (leaves are tensors)."""
    if spec.type is None:
        return "Tensor"
    inner = [return_type(c) for c in spec.children]
    if spec.type == "builtins.tuple":
        return "Tuple[" + ", ".join(inner) + "]" if inner else "Tuple[()]"
    if spec.type == "builtins.list":
        if len(set(inner)) > 1:
            raise NotImplementedInChainrule(
                "torch.jit: a traced list output must hold values of one type"
            )
        return f"List[{inner[0] if inner else 'Tensor'}]"
    if dict_like(spec.type):
        if not all(isinstance(k, str) for k in spec.context) or len(set(inner)) > 1:
            raise NotImplementedInChainrule(
                "torch.jit: a traced dict output needs string keys and values of one type"
            )
        return f"Dict[str, {inner[0] if inner else 'Tensor'}]"
    raise NotImplementedInChainrule(f"torch.jit: cannot write an output of type {spec.type}")


def dict_like(type_name: str) -> bool:
    """Whether outputs of this pytree type are TorchScript dicts: dicts, and the dict
    subclasses registered as pytree nodes (a model's output class)."""
    from ...utils import _pytree

    cls = _pytree.SERIALIZED_TYPE_TO_PYTHON_TYPE.get(type_name)
    return type_name == "builtins.dict" or (isinstance(cls, type) and issubclass(cls, dict))


def output_expression(spec: Any, leaves: list[str]) -> str:
    """The returned value rebuilt from the graph's flat outputs."""
    if spec.type is None:
        return leaves.pop(0)
    items = [output_expression(c, leaves) for c in spec.children]
    if spec.type == "builtins.tuple":
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if spec.type == "builtins.list":
        return "[" + ", ".join(items) + "]"
    pairs = [f'"{_escaped(k)}": {v}' for k, v in zip(spec.context, items)]
    return "{" + ", ".join(pairs) + "}"


def attribute_path(path: str) -> str:
    """``self.conv.weight`` for ``conv.weight``; names that are no identifiers (the
    ``0`` of a Sequential) are read with ``getattr``."""
    expr = "self"
    for part in path.split("."):
        if part.isidentifier() and not keyword.iskeyword(part):
            expr = f"{expr}.{part}"
        else:
            expr = f'getattr({expr}, "{part}")'
    return expr


class ForwardSource:
    """The TorchScript text of one traced forward: its signature, its body (parameters
    and sizes read first, then the calls as PyTorch's printer writes them, ``_inline``)
    and what it returns."""

    def __init__(self, program: Any, constant_index: dict[str, int]) -> None:
        from ...export.graph_signature import InputKind

        graph = program.graph
        names: dict[Node, Any] = {}  # (a name, or the Item or Result that gives the value)
        live = _live(graph)
        self._taken = {local_name(n.name) for n in graph.nodes}
        sizes_pending = list(getattr(program, "size_dims", []))
        self.args: list[str] = []
        self.body: list[str] = []  # (the lines before the calls)
        self._items: list[Item] = []
        kinds = {s.arg.name: s for s in program.graph_signature.input_specs}
        for node in graph.nodes:
            if node.op == "placeholder":
                spec = kinds[node.target]
                names[node] = local_name(node.name)
                if spec.kind == InputKind.USER_INPUT:
                    names[node] = local_name(str(node.target))
                    self.args.append(names[node])
                elif node not in live:
                    continue
                elif spec.kind == InputKind.CONSTANT_TENSOR:
                    self.body.append(f"{names[node]} = CONSTANTS.c{constant_index[spec.target]}")
                else:
                    self.body.append(f"{names[node]} = {attribute_path(spec.target)}")
            elif node.op == "call_function":
                if sizes_pending and self.args:
                    first = self.args[0]
                    self.body += [
                        f"{SIZE_LOCALS[d]} = torch.size({first}, {d})" for d in sizes_pending
                    ]
                    sizes_pending = []
                if node in live:  # (else a value the traced code computed and dropped)
                    names[node] = self._call(node, names)
            elif node.op == "output":
                leaves = [names[n] for n in node.args[0]]
            else:
                raise NotImplementedInChainrule(
                    f"torch.jit: a graph node of kind {node.op} cannot be written in TorchScript"
                )
        self._taken |= set(self.args)
        self.params, unpack = _signature(program, self.args)
        self.body[:0] = unpack
        spec = program.call_spec.out_spec
        self.returns = return_type(spec)
        value = leaves[0] if spec.type is None else None
        if value is None:  # (a container, built from the leaves: ``(a, b)``)
            value = Item(LIST, leaves, lambda t: output_expression(spec, list(t)))
            self._items.append(value)
        self._items.append(Item(RETURN, [value], lambda t: t[0]))
        place_inline(self._items)

    def _call(self, node: Node, names: dict[Node, Any]) -> Any:
        """The Item of a call (the Result of a ``getitem`` of a call of several results),
        its list arguments' Items added before it."""
        if node.target is operator.getitem:
            source, index = node.args
            if isinstance(names[source], Item) and names[source].results:
                return Result(names[source], index)
            item = Item(CALL, [names[source]], lambda t: f"{t[0]}[{index}]")
            self._items.append(item)
            return item
        op = op_name(node.target)
        inputs: list[Any] = []
        parts = [self._argument(a, names, inputs, op, i) for i, a in enumerate(node.args)]
        parts += [self._argument(v, names, inputs, op, -1, f"{k}=") for k, v in node.kwargs.items()]

        def render(texts: list[str]) -> str:
            given = iter(texts)
            return f"torch.{op}({', '.join(part(given) for part in parts)})"

        item = Item(CALL, inputs, render)
        self._items.append(item)
        count = unpacked(node)
        if count and node.meta.get("returns_list"):  # (``_0, _1, = torch.where(c)``)
            unpack = Item(UNPACK, [item], lambda t: t[0], results=count)
            unpack.comma = ","
            self._items.append(unpack)
            return unpack
        item.results = count  # (``_0, _1, _2 = torch._unique2(x)``)
        item.comma = "," if count == 1 else ""
        item.bare = not node.users
        return item

    def _argument(
        self, value: Any, names: dict, inputs: list, op: str, at: int, key: str = ""
    ) -> Any:
        """A function writing one argument from the texts of the values read (a value
        read is added to ``inputs``; a list holding values is an Item of its own)."""
        if isinstance(value, Node):
            inputs.append(names[value])
            return lambda given: key + next(given)
        if isinstance(value, (list, tuple)) and any(isinstance(v, Node) for v in value):
            read = [names[v] for v in value if isinstance(v, Node)]
            fixed = [None if isinstance(v, Node) else literal(v, {}) for v in value]
            optional = op in _OPTIONAL_TENSOR_LISTS and at == 1

            def render(texts: list[str]) -> str:
                given = iter(texts)
                text = "[" + ", ".join(next(given) if f is None else f for f in fixed) + "]"
                return f"annotate(List[Optional[Tensor]], {text})" if optional else text

            item = Item(LIST, read, render)
            self._items.append(item)
            inputs.append(item)
            return lambda given: key + next(given)
        text = key + literal(value, {})
        return lambda given: text

    def _lines(self, level: int) -> list[str]:
        count = iter(range(1 << 30))

        def fresh() -> str:
            name = f"_{next(count)}"
            while name in self._taken:
                name = f"_{next(count)}"
            return name

        return self.body + write(self._items, level, fresh)

    def method(self, self_type: str | None, indent: str = "  ") -> str:
        """``def forward(self, x: Tensor) -> Tensor:`` and its body, indented by
        ``indent`` (the body by twice it); ``self`` annotated with ``self_type``."""
        first = "self" if self_type is None else f"self: {self_type}"
        params = [first] + self.params
        head = f"def forward({(',' + chr(10) + indent + '  ').join(params)}) -> {self.returns}:"
        return "\n".join([head] + [indent + line for line in self._lines(2)]) + "\n"

    def function(self, name: str) -> str:
        """The source of a traced function: ``def name(x: Tensor, ...) -> ...:``."""
        params = self.params
        head = f"def {name}({(',' + chr(10) + '    ').join(params)}) -> {self.returns}:"
        return "\n".join([head] + ["  " + line for line in self._lines(1)]) + "\n"


# the operators whose list argument at 1 holds optional tensors (``x[mask]``)
_OPTIONAL_TENSOR_LISTS = frozenset(
    {"index", "index_put", "index_put_", "_unsafe_index", "_unsafe_index_put", "_index_put_impl_"}
)


def _signature(program: Any, flat: list[str]) -> tuple[list[str], list[str]]:
    """The forward's parameters (``x: Tensor``, ``state: Tuple[Tensor, Tensor]``) and the
    lines taking the tensors out of tuple and list parameters (``state_0 = state[0]``),
    from the program's input spec; ``flat`` are the graph's flat input names."""
    in_spec = program.call_spec.in_spec
    root = program.module_call_graph[0].signature if program.module_call_graph else None
    names = list((root or {}).get("forward_arg_names") or [])
    specs = list(in_spec.children[0].children) + list(in_spec.children[1].children)
    if len(specs) != len(names) or in_spec.num_leaves != len(flat):
        return [f"{a}: Tensor" for a in flat], []
    params, unpack, at = [], [], 0
    for name, spec in zip(names, specs):
        if spec.type is None:
            params.append(f"{flat[at]}: Tensor")
            at += 1
            continue
        count = len(spec.children)
        kind = "Tuple[" + ", ".join(["Tensor"] * count) + "]"
        if spec.type == "builtins.list":
            kind = "List[Tensor]"
        local = local_name(name)
        params.append(f"{local}: {kind}")
        unpack += [f"{flat[at + i]} = {local}[{i}]" for i in range(count)]
        at += count
    return params, unpack


def _ir_type(node: Node) -> str:
    meta = node.meta.get("tensor_meta")
    if meta is None:
        return "(Tensor, ...)" if node.meta.get("output_metas") else "Tensor"
    return _meta_type(meta)


def _meta_type(meta: Any) -> str:
    """``Long(3, *)``: the dtype and sizes, a size known only when run (a count of
    ``nonzero``) as ``*``."""
    kind = _IR_TYPE.get(getattr(meta.dtype, "name", ""), "Tensor")
    sizes = [str(s) if isinstance(s, int) else "*" for s in meta.shape]
    return f"{kind}({', '.join(sizes)})"


def _ir_results(node: Node, ir: dict[Node, str]) -> list[str]:
    """The typed IR values of a call of several results (its ``getitem`` nodes' names)."""
    metas = node.meta["output_metas"]
    taken = {u.args[1]: u for u in node.users}
    values = []
    for i in range(unpacked(node)):
        if i in taken:
            ir[taken[i]] = "%" + taken[i].name
        name = ir[taken[i]] if i in taken else f"%{node.name}.{i}"
        kind = _meta_type(metas[i]) if i < len(metas) and metas[i] is not None else "Tensor"
        values.append(f"{name} : {kind}")
    return values


def graph_text(program: Any, self_type: str | None) -> str:
    """The recorded graph in the form of TorchScript's IR: typed values, each call an
    ``aten::`` operator, parameters and buffers read with ``prim::GetAttr``."""
    from ...export.graph_signature import InputKind

    kinds = {s.arg.name: s for s in program.graph_signature.input_specs}
    inputs = [] if self_type is None else [f"%self : {self_type}"]
    lines = []
    ir: dict[Node, str] = {}
    live = _live(program.graph)
    for node in program.graph.nodes:
        if node.op == "call_function" and node not in live:
            continue
        ir.setdefault(node, "%" + node.name)
        if node.op == "placeholder":
            spec = kinds[node.target]
            if spec.kind == InputKind.USER_INPUT:
                ir[node] = f"%{node.target}"
                inputs.append(f"{ir[node]} : {_ir_type(node)}")
            elif spec.kind == InputKind.CONSTANT_TENSOR:
                lines.append(f"{ir[node]} : {_ir_type(node)} = prim::Constant[value=<Tensor>]()")
            else:
                where = f'prim::GetAttr[name="{spec.target}"](%self)'
                lines.append(f"{ir[node]} : {_ir_type(node)} = {where}")
        elif node.op == "call_function":
            if node.target is operator.getitem and unpacked(node.args[0]):
                continue  # (a result named where its call is)
            args = [_ir_arg(a, ir) for a in node.args]
            args += [f"{k}={_ir_arg(v, ir)}" for k, v in node.kwargs.items()]
            if node.target is operator.getitem:
                call = f"prim::TupleIndex({args[0]}, {args[1]})"
            else:
                call = f"aten::{op_name(node.target)}({', '.join(args)})"
            if not unpacked(node):
                lines.append(f"{ir[node]} : {_ir_type(node)} = {call}")
            elif node.meta.get("returns_list"):  # (a Tensor[] and its items)
                lines.append(f"{ir[node]} : Tensor[] = {call}")
                lines.append(f"{', '.join(_ir_results(node, ir))} = prim::ListUnpack({ir[node]})")
            else:
                lines.append(f"{', '.join(_ir_results(node, ir))} = {call}")
        elif node.op == "output":
            lines.append(f"return ({', '.join(ir[n] for n in node.args[0])})")
    head = "graph(" + ",\n      ".join(inputs) + "):"
    return "\n".join([head] + ["  " + line for line in lines]) + "\n"


def _ir_arg(value: Any, ir: dict[Node, str]) -> str:
    if isinstance(value, Node):
        return ir[value]
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_ir_arg(v, ir) for v in value) + "]"
    return str(value)
