"""``torch.fx.graph``: a Graph, the list of Nodes of a traced program, and the Python code
made from it.

The code is PyTorch's text: a ``forward`` with one line per Node, operators written as
operators (``add = x + 1``), methods as methods, submodules and attributes through
``self``, and each value set to None after its last use.
"""

from __future__ import annotations

import builtins
import copy
import inspect
import keyword
import operator
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .node import Argument, Node, _get_qualified_name, _type_repr, has_side_effect, map_arg

__all__ = ["Graph", "PythonCode"]

_LEGAL_OPS = ("placeholder", "get_attr", "call_function", "call_method", "call_module", "output")

# operator -> the Python expression it is written as
_BINARY = {
    "add": "+",
    "sub": "-",
    "mul": "*",
    "truediv": "/",
    "floordiv": "//",
    "mod": "%",
    "pow": "**",
    "matmul": "@",
    "lshift": "<<",
    "rshift": ">>",
    "and_": "&",
    "or_": "|",
    "xor": "^",
    "eq": "==",
    "ne": "!=",
    "lt": "<",
    "le": "<=",
    "gt": ">",
    "ge": ">=",
}
_UNARY = {"neg": "-", "pos": "+", "invert": "~"}
# operators PyTorch calls through a global of their own (``_operator_abs(x)``)
_UNARY_CALLS = frozenset({"abs", "not_", "truth", "index"})
_NO_STACKTRACE = "# No stacktrace found for following nodes"


def _assert(condition: Any, message: str = "") -> None:
    """``torch._assert``: AssertionError(message) unless ``condition``; a traced condition
    (a Proxy) records the call instead, as PyTorch's."""
    if type(condition) is not bool:
        from .. import overrides

        if overrides.has_torch_function((condition,)):
            return overrides.handle_torch_function(_assert, (condition,), condition, message)
    if not condition:
        raise AssertionError(message)


has_side_effect(_assert)

_TABULATE_MISSING = (
    "`print_tabular` relies on the library `tabulate`, which could not be found on this "
    "machine. Run `pip install tabulate` to install the library."
)


# ----- names -----------------------------------------------------------------------------

_ILLEGAL = set(keyword.kwlist) | set(vars(builtins)) | {"inf", "nan", "NoneType", "torch"}


def _snake_case(s: str) -> str:
    """``MyFunc`` -> ``my_func``."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", s).lower()


class _Namespace:
    """The names of a Graph's Nodes: each new name is made legal and unique by a suffix."""

    def __init__(self) -> None:
        self._used: set[str] = set()
        self._base_count: dict[str, int] = {}

    def create_name(self, candidate: str) -> str:
        candidate = re.sub(r"[^0-9a-zA-Z_]+", "_", candidate)
        if not candidate:
            candidate = "_unnamed"
        if candidate[0].isdigit():
            candidate = f"_{candidate}"
        match = re.match(r"(.*)_(\d+)$", candidate)
        if match is not None:
            base, num = match.group(1), int(match.group(2))
        else:
            base, num = candidate, self._base_count.get(candidate, 0)
        while candidate in self._used or candidate in _ILLEGAL:
            num += 1
            candidate = f"{base}_{num}"
        self._used.add(candidate)
        self._base_count[base] = max(num, self._base_count.get(base, 0))
        return candidate


def _target_to_str(target: Any) -> str:
    """The name a Node is given after its target (``layers.0`` -> ``layers_0``)."""
    op = target.__name__ if callable(target) else str(target)
    if op.startswith("__") and op.endswith("__"):
        op = op[2:-2]
    return _snake_case(op)


# ----- the list of Nodes -------------------------------------------------------------------


class _NodeList:
    """``graph.nodes``: iterable (forwards and reversed) while Nodes are erased."""

    def __init__(self, graph: Graph, reverse: bool = False) -> None:
        self._graph = graph
        self._reverse = reverse

    def __len__(self) -> int:
        return self._graph._len

    def __iter__(self) -> Iterator[Node]:
        root = self._graph._root
        cur = root._prev if self._reverse else root._next
        while cur is not root:
            if not cur._erased:
                yield cur
            cur = cur._prev if self._reverse else cur._next

    def __reversed__(self) -> Iterator[Node]:
        return iter(_NodeList(self._graph, not self._reverse))


class _InsertPoint:
    def __init__(self, graph: Graph, insert: Callable[[Node], None]) -> None:
        self.graph = graph
        self.orig, graph._insert = graph._insert, insert

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        self.graph._insert = self.orig


@dataclass
class PythonCode:
    """The code of a Graph: its text and the globals it runs in."""

    src: str
    globals: dict[str, Any] = field(default_factory=dict)
    _lineno_map: dict[int, int | None] | None = None


# ----- the Graph ---------------------------------------------------------------------------


class Graph:
    """A program as a list of Nodes (see the ``torch.fx`` docs)."""

    def __init__(
        self,
        owning_module: Any | None = None,
        tracer_cls: type | None = None,
        tracer_extras: dict[str, Any] | None = None,
    ) -> None:
        self._root = Node(self, "", "root", "", (), {})
        self._namespace = _Namespace()
        self._insert: Callable[[Node], None] = self._root.prepend
        self._len = 0
        self._owning_module = owning_module
        self._tracer_cls = tracer_cls
        self._tracer_extras = tracer_extras

    @property
    def owning_module(self) -> Any:
        """The GraphModule this Graph belongs to, if any."""
        return self._owning_module

    @owning_module.setter
    def owning_module(self, mod: Any) -> None:
        self._owning_module = mod

    @property
    def nodes(self) -> _NodeList:
        """The Nodes, in program order."""
        return _NodeList(self)

    def find_nodes(self, *, op: str, target: Any = None, sort: bool = True) -> list[Node]:
        """The Nodes with ``op`` (and ``target``, when given)."""
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    # ----- making Nodes -------------------------------------------------------------

    def create_node(
        self,
        op: str,
        target: Any,
        args: tuple | None = None,
        kwargs: dict | None = None,
        name: str | None = None,
        type_expr: Any | None = None,
    ) -> Node:
        """A new Node at the insertion point (the end, unless ``inserting_before/after``)."""
        assert op in _LEGAL_OPS, op
        candidate = name if name is not None else _target_to_str(target)
        n = Node(
            self,
            self._namespace.create_name(candidate),
            op,
            target,
            args or (),
            kwargs or {},
            type_expr,
        )
        self._insert(n)
        self._len += 1
        return n

    def placeholder(
        self, name: str, type_expr: Any | None = None, default_value: Any = inspect.Signature.empty
    ) -> Node:
        """An input of the program (``default_value``: its default)."""
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args, type_expr=type_expr)

    def get_attr(self, qualified_name: str, type_expr: Any | None = None) -> Node:
        """A parameter, buffer or attribute of the module, by dotted name."""
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(
        self,
        module_name: str,
        args: tuple | None = None,
        kwargs: dict | None = None,
        type_expr: Any | None = None,
    ) -> Node:
        """A call of the submodule ``module_name``."""
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(
        self,
        method_name: str,
        args: tuple | None = None,
        kwargs: dict | None = None,
        type_expr: Any | None = None,
    ) -> Node:
        """A call ``args[0].method_name(*args[1:], **kwargs)``."""
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(
        self,
        the_function: Callable[..., Any],
        args: tuple | None = None,
        kwargs: dict | None = None,
        type_expr: Any | None = None,
        name: str | None = None,
    ) -> Node:
        """A call ``the_function(*args, **kwargs)``."""
        return self.create_node("call_function", the_function, args, kwargs, name, type_expr)

    def output(self, result: Argument, type_expr: Any | None = None) -> Node:
        """The program's result."""
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    def inserting_before(self, n: Node | None = None) -> _InsertPoint:
        """A context in which new Nodes go just before ``n`` (the start when None)."""
        if n is None:
            return self.inserting_after(self._root)
        return _InsertPoint(self, n.prepend)

    def inserting_after(self, n: Node | None = None) -> _InsertPoint:
        """A context in which new Nodes go just after ``n`` (the end when None)."""
        if n is None:
            return self.inserting_before(self._root)
        return _InsertPoint(self, n.append)

    def erase_node(self, to_erase: Node) -> None:
        """Remove a Node that nothing uses."""
        if len(to_erase.users) > 0:
            raise RuntimeError(
                f"Tried to erase Node {to_erase} but it still had {len(to_erase.users)} "
                f"users in the graph: {to_erase.users}!"
            )
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            return
        to_erase._remove_from_list()
        to_erase._erased = True
        self._len -= 1
        to_erase._update_args_kwargs((), {})

    def node_copy(
        self, node: Node, arg_transform: Callable[[Node], Argument] = lambda x: x
    ) -> Node:
        """A copy of ``node`` (from any Graph) here, its input Nodes mapped by
        ``arg_transform``."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        result = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        result.meta = copy.copy(node.meta)
        return result

    def graph_copy(
        self, g: Graph, val_map: dict[Node, Node], return_output_node: bool = False
    ) -> Any:
        """Copy every Node of ``g`` but its output here (``val_map``: old Node -> new, filled
        in); the copied output value."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                rv = map_arg(node.args[0], lambda n: val_map[n])
                return (rv, node) if return_output_node else rv
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def __deepcopy__(self, memo: dict) -> Graph:
        g = Graph(tracer_cls=self._tracer_cls)
        output_vals = g.graph_copy(self, {}, return_output_node=True)
        if output_vals is not None:
            value, node = output_vals
            g.output(value, type_expr=node.type)
        return g

    # ----- passes ----------------------------------------------------------------------

    def eliminate_dead_code(self, is_impure_node: Callable[[Node], bool] | None = None) -> bool:
        """Erase the Nodes nothing uses that have no side effect; whether any were."""
        self.lint()
        impure = is_impure_node or (lambda n: n.is_impure())
        changed = False
        for node in reversed(self.nodes):
            if not impure(node) and len(node.users) == 0:
                self.erase_node(node)
                changed = True
        return changed

    def lint(self) -> None:
        """Check that each Node's inputs belong to this Graph and come before it, and that
        the names are unique."""
        seen: set[Node] = set()
        names: set[str] = set()
        for node in self.nodes:
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
            for arg in node.all_input_nodes:
                if arg.graph is not self:
                    raise RuntimeError(
                        f"Argument '{arg}' of Node '{node}' does not belong to this Graph, "
                        "but was used as an argument! If you are copying nodes from another "
                        "graph, make sure to use ``arg_transform`` on node_copy() to remap "
                        f"values\n{self}"
                    )
                if arg not in seen:
                    raise RuntimeError(
                        f"Argument '{arg}' of Node '{node}' was used before it has been "
                        "defined! Please check that Nodes in the graph are topologically "
                        f"ordered\n{self}"
                    )
            if node.name in names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            seen.add(node)
            names.add(node.name)

    # ----- printing --------------------------------------------------------------------

    def __str__(self) -> str:
        return "\n".join(["graph():", *("    " + n.format_node() for n in self.nodes)])

    def print_tabular(self) -> None:
        """Print the Nodes as a table (opcode, name, target, args, kwargs); PyTorch's uses
        the ``tabulate`` package."""
        try:
            from tabulate import tabulate
        except ImportError:
            print(_TABULATE_MISSING)
            raise
        rows = [[n.op, n.name, n.target, n.args, n.kwargs] for n in self.nodes]
        print(tabulate(rows, headers=["opcode", "name", "target", "args", "kwargs"]))

    def python_code(self, root_module: str, *, verbose: bool = False, **_: Any) -> PythonCode:
        """The Python source of the Graph's ``forward`` (``root_module``: the name of the
        module, ``self``) and the globals it needs."""
        return _CodeGen(self, root_module, verbose).generate()


# ----- code generation ----------------------------------------------------------------------


def _format_target(base: str, target: str) -> str:
    """``self.layers.0`` written so Python can read it: ``getattr(self.layers, "0")``."""
    r = base
    for part in target.split("."):
        r = f"{r}.{part}" if part.isidentifier() else f'getattr({r}, "{part}")'
    return r


def _torch_globals() -> dict[str, Any]:
    import math

    import chainrule

    return {
        "torch": _torch_view(),
        "operator": operator,
        "builtins": builtins,
        "inf": math.inf,
        "nan": math.nan,
        "NoneType": type(None),
        "device": chainrule.device,
    }


class _TorchView:
    """``torch`` in generated code: chainrule, with ``torch._assert`` added where
    chainrule has none."""

    def __getattr__(self, name: str) -> Any:
        import chainrule

        if name == "_assert" and not hasattr(chainrule, "_assert"):
            return _assert
        if name == "fx":
            from .. import fx

            return fx
        if name == "_C":
            return _CView()
        value = getattr(chainrule, name, None)
        if value is None:
            return getattr(chainrule.nn.functional, name)
        return value


class _CView:
    """``torch._C`` in generated code: ``torch._C._nn.gelu`` is ``nn.functional.gelu``."""

    @property
    def _nn(self) -> Any:
        return _CNNView()

    def __getattr__(self, name: str) -> Any:
        import chainrule

        return getattr(chainrule._C, name)


class _CNNView:
    def __getattr__(self, name: str) -> Any:
        import chainrule

        return getattr(chainrule.nn.functional, "logsigmoid" if name == "log_sigmoid" else name)


_VIEW = _TorchView()


def _torch_view() -> _TorchView:
    return _VIEW


class _CodeGen:
    """The text of one Graph's ``forward``."""

    def __init__(self, graph: Graph, root_module: str, verbose: bool) -> None:
        self.graph = graph
        self.root = root_module
        self.verbose = verbose
        self.globals = _torch_globals()
        self.wrapped: list[str] = []
        self._names: dict[Node, str] | None = None

    def name(self, node: Node) -> str:
        """``node``'s name in the text: its own, made legal as PyTorch's code makes it (an
        exported placeholder ``input`` is written ``input_1``)."""
        if self._names is None:
            namespace = _Namespace()
            self._names = {n: namespace.create_name(n.name) for n in self.graph.nodes}
        return self._names[node]

    # names of callables and values in the text

    def global_name(self, obj: Any) -> str:
        """How ``obj`` (a function or type) is named in the code, registered as a global."""
        if isinstance(obj, type) or callable(obj):
            name = _type_repr(obj) if isinstance(obj, type) else _get_qualified_name(obj)
            head = name.split(".")[0]
            if head == "operator" and name[len("operator.") :] in _UNARY_CALLS:
                self.globals[f"_operator_{obj.__name__}"] = obj
                return f"_operator_{obj.__name__}"
            if head in ("torch", "operator", "builtins"):
                if name.startswith("builtins."):
                    return name[len("builtins.") :]
                return name
            flat = name.replace(".", "_")
            self.globals[flat] = obj
            return flat
        return repr(obj)

    def value(self, arg: Any) -> str:
        """An argument as Python source."""
        if isinstance(arg, Node):
            return self.name(arg)
        if isinstance(arg, tuple) and not hasattr(arg, "_fields"):
            items = ", ".join(self.value(a) for a in arg)
            return f"({items},)" if len(arg) == 1 else f"({items})"
        if isinstance(arg, list):
            return "[" + ", ".join(self.value(a) for a in arg) + "]"
        if isinstance(arg, dict):
            return "{" + ", ".join(f"{k!r}: {self.value(v)}" for k, v in arg.items()) + "}"
        if isinstance(arg, slice):
            parts = (self.value(arg.start), self.value(arg.stop), self.value(arg.step))
            return "slice({}, {}, {})".format(*parts)
        if isinstance(arg, (type, Callable)) and not _is_tensor(arg):  # type: ignore[arg-type]
            return self.global_name(arg)
        return repr(arg)

    def call_args(self, args: tuple, kwargs: dict) -> str:
        parts = [self.value(a) for a in args]
        parts += [f"{k} = {self.value(v)}" for k, v in kwargs.items()]
        return ", ".join(parts)

    # the lines

    def expression(self, node: Node) -> str | None:
        """The right-hand side of ``node``'s line (None: it has no line)."""
        op, target, args, kwargs = node.op, node.target, node.args, node.kwargs
        if op == "get_attr":
            return _format_target(self.root, target)
        if op == "call_module":
            return f"{_format_target(self.root, target)}({self.call_args(args, kwargs)})"
        if op == "call_method":
            return f"{self.value(args[0])}.{target}({self.call_args(args[1:], kwargs)})"
        if op == "call_function":
            return self.function_call(node)
        return None

    def function_call(self, node: Node) -> str:
        target, args, kwargs = node.target, node.args, node.kwargs
        name = getattr(target, "__name__", "")
        is_operator = getattr(operator, name, None) is target
        if is_operator and name in _BINARY and len(args) == 2 and not kwargs:
            return f"{self.value(args[0])} {_BINARY[name]} {self.value(args[1])}"
        if is_operator and name in _UNARY and len(args) == 1 and not kwargs:
            return f"{_UNARY[name]}{self.value(args[0])}"
        if is_operator and name == "getitem" and len(args) == 2 and not kwargs:
            return f"{self.value(args[0])}[{self.value(args[1])}]"
        if (
            target is builtins.getattr
            and len(args) == 2
            and isinstance(args[1], str)
            and args[1].isidentifier()
        ):
            return f"{self.value(args[0])}.{args[1]}"
        fn = self.global_name(target)
        if node.meta.get("is_wrapped") and fn not in self.wrapped:
            self.wrapped.append(fn)
        return f"{fn}({self.call_args(args, kwargs)})"

    def last_uses(self) -> dict[Node, list[Node]]:
        """For each Node, the values whose last use it is (then itself, when unused)."""
        seen: set[Node] = set()
        frees: dict[Node, list[Node]] = {}
        for node in reversed(self.graph.nodes):
            for n in node.all_input_nodes:
                if n not in seen:
                    seen.add(n)
                    frees.setdefault(node, []).append(n)
        return frees

    def signature(self) -> list[str]:
        params: list[str] = []
        for node in self.graph.nodes:
            if node.op != "placeholder":
                continue
            name = node.target
            if name.startswith("*"):
                params.append(name)
                continue
            text = name
            if node.type is not None:
                text += f" : {self.annotation(node.type)}"
            if node.args:
                text += f" = {self.value(node.args[0])}"
            params.append(text)
        return params

    def annotation(self, t: Any) -> str:
        """A type annotation as code (``typing.Optional[X]`` as PyTorch writes it:
        ``typing_Union[X,NoneType]``)."""
        if isinstance(t, str):  # (an annotation under ``from __future__ import annotations``)
            name = "_" + re.sub(r"[^0-9a-zA-Z_]", "_", t) + "_"
            self.globals[name] = t
            return name
        origin = getattr(t, "__origin__", None)
        args = getattr(t, "__args__", None)
        if origin is None or args is None:
            return _type_repr(t)
        name = getattr(origin, "_name", None) or getattr(origin, "__name__", repr(origin))
        self.globals[f"typing_{name}"] = origin
        return f"typing_{name}[{','.join(self.annotation(a) for a in args)}]"

    def body(self) -> list[str]:
        frees = self.last_uses()
        lines: list[str] = []
        commented = not self.verbose
        for node in self.graph.nodes:
            if node.op == "placeholder":
                if self.name(node) != node.target:  # (``input`` is a builtin's name)
                    lines.append(f"{self.name(node)} = {node.target.lstrip('*')}")
                continue
            if not commented:  # PyTorch's note where the (absent) stack traces start
                lines += ["", _NO_STACKTRACE] if lines else [_NO_STACKTRACE]
                commented = True
            if node.op == "output":
                lines.append(f"return {self.value(node.args[0])}")
                continue
            line = f"{self.name(node)} = {self.expression(node)}"
            dead = [self.name(n) for n in frees.get(node, [])]
            if not node.users:
                dead.append(self.name(node))
            if dead:
                line += ";  " + " = ".join(dead) + " = None"
            lines.append(line)
        if not lines or not lines[-1].startswith("return"):
            lines.append("return None")
        return lines

    def generate(self) -> PythonCode:
        body = self.body()
        params = ", ".join([self.root, *self.signature()])
        output = next((n for n in self.graph.nodes if n.op == "output"), None)
        if output is not None and output.type is not None:
            params += f") -> {self.annotation(output.type)}"
        else:
            params += ")"
        prologue = "\n".join(f'torch.fx._symbolic_trace.wrap("{w}")' for w in self.wrapped)
        text = f"\n{prologue}\n\ndef forward({params}:\n"
        text += "".join(f"    {line}\n" if line else "\n" for line in body) + "    "
        return PythonCode(text, self.globals)


def _is_tensor(x: Any) -> bool:
    from .._tensor import Tensor

    return isinstance(x, Tensor)
