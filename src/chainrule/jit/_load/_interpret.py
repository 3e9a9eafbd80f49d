"""A tree-walking interpreter for the TorchScript source of an archive's ``code/`` files.

The source is parsed with Python's ``ast`` module, never compiled or executed by Python:
each statement and expression of a method is walked here, over a whitelist of node kinds
(assignments, tuple unpacking, ``return``, ``if``/``else``, ``for`` over ranges and lists,
``while``, calls, attribute reads, subscripts, arithmetic, comparisons, literals). Calls go
to the operator tables of ``_builtins`` (``torch.<op>``, ``ops.aten.<op>``,
``ops.prim.<op>``), to methods of loaded modules, or to a short list of tensor and list
methods; any other node or name raises a RuntimeError naming it."""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

from ..._tensor import Tensor
from . import _builtins as B

_BINOPS: dict[type, Callable] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.MatMult: operator.matmul, ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
}  # fmt: skip
_CMPOPS: dict[type, Callable] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_,
    ast.IsNot: operator.is_not, ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}  # fmt: skip
_UNARY: dict[type, Callable] = {
    ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_,
    ast.Invert: operator.invert,
}  # fmt: skip

_LIST_METHODS = frozenset({"append", "extend", "insert", "pop", "index", "count", "copy",
                           "clear", "keys", "values", "items", "get", "join"})  # fmt: skip


def _unsupported(what: str, node: ast.AST | None = None) -> RuntimeError:
    where = f" (line {node.lineno})" if node is not None and hasattr(node, "lineno") else ""
    return RuntimeError(
        f"torch.jit.load: {what}{where} is not supported by chainrule's TorchScript "
        "interpreter (it runs a whitelist of statements and operators, and never runs "
        "Python code from the file)"
    )


class ClassInfo:
    """One TorchScript class of the archive: its qualified name, whether it is a module,
    the names of its parameters and buffers, its class-level constants
    (``out_features : Final[int] = 4``) and its methods, with the file's source text."""

    def __init__(self, qualname: str, node: ast.ClassDef, source: str) -> None:
        self.qualname = qualname
        self.name = node.name
        self.is_module = any(isinstance(b, ast.Name) and b.id == "Module" for b in node.bases)
        self.parameters: list[str] = []
        self.buffers: list[str] = []
        self.constants: dict[str, Any] = {}
        self.methods: dict[str, ast.FunctionDef] = {}
        self.source = source
        for stmt in node.body:
            if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
                name = stmt.targets[0].id
                if name in ("__parameters__", "__buffers__"):
                    values = _literal(stmt.value)
                    if not (isinstance(values, list) and all(isinstance(v, str) for v in values)):
                        raise _unsupported(f"{name} of {qualname} that is no list of names", stmt)
                    (self.parameters if name == "__parameters__" else self.buffers).extend(values)
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                if isinstance(stmt.target, ast.Name):
                    self.constants[stmt.target.id] = _literal(stmt.value)
            elif isinstance(stmt, ast.FunctionDef):
                self.methods[stmt.name] = stmt

    def method_source(self, name: str) -> str:
        """A method's source as PyTorch's ``.code`` shows it: dedented, with ``self`` left
        untyped."""
        node = self.methods[name]
        lines = self.source.splitlines()[node.lineno - 1 : node.end_lineno]
        indent = len(lines[0]) - len(lines[0].lstrip())
        body_start = node.body[0].lineno - node.lineno  # (signature lines keep their indent)
        lines = [
            line[indent:] if i == 0 or i >= body_start else line for i, line in enumerate(lines)
        ]
        first = node.args.args[0]
        head = f"def {name}({first.arg}: "
        if lines[0].startswith(head):  # (the type of self is dropped: up to "," or ")")
            rest = lines[0][len(head) :]
            cut = rest.find(",") if "," in rest else rest.find(")")
            lines[0] = f"def {name}({first.arg}" + rest[cut:]
        return "\n".join(lines) + "\n"


def _literal(node: ast.AST) -> Any:
    try:
        return ast.literal_eval(node)
    except ValueError:
        return None


def parse_classes(
    sources: dict[str, str],
) -> tuple[dict[str, ClassInfo], dict[str, ast.FunctionDef]]:
    """Every class and free function of the archive's code files, by qualified name. The
    files are parsed, never run; a file with other top-level statements than classes and
    functions (and imports of ``__torch__`` names, which PyTorch writes) is refused."""
    classes: dict[str, ClassInfo] = {}
    functions: dict[str, ast.FunctionDef] = {}
    for module, source in sources.items():
        try:
            tree = ast.parse(source, filename=f"code/{module}.py")
        except SyntaxError as exc:
            raise RuntimeError(f"torch.jit.load: code/{module}.py does not parse: {exc}") from exc
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                classes[f"{module}.{node.name}"] = ClassInfo(f"{module}.{node.name}", node, source)
            elif isinstance(node, ast.FunctionDef):
                functions[f"{module}.{node.name}"] = node
            elif isinstance(node, (ast.Import, ast.ImportFrom)) and all(
                a.name.startswith("__torch__") for a in node.names
            ):
                continue
            elif isinstance(node, ast.Assign) and all(
                isinstance(t, ast.Name) for t in node.targets
            ):
                continue  # (module-level type aliases of the code printer)
            else:
                raise _unsupported(f"a top-level {type(node).__name__} in code/{module}.py", node)
    return classes, functions


class _Flow(Exception):
    """``break`` or ``continue`` leaving a loop body."""

    def __init__(self, kind: str) -> None:
        self.kind = kind


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


class CodeCallable:
    """A whitelisted function held as a value by code (``_0 = torch.ne``)."""

    def __init__(self, name: str, fn: Callable) -> None:
        self.name, self.fn = name, fn

    def __repr__(self) -> str:
        return f"<function {self.name}>"


class _Constants:
    """``CONSTANTS``: the archive's constants tuple, read as ``CONSTANTS.c<i>``."""

    def __init__(self, values: tuple) -> None:
        self.values = values

    def get(self, name: str) -> Any:
        if name.startswith("c") and name[1:].isdigit() and int(name[1:]) < len(self.values):
            return self.values[int(name[1:])]
        raise _unsupported(f"CONSTANTS.{name} (the archive has {len(self.values)} constants)")


class Interpreter:
    """Runs methods of the archive's classes on loaded objects. ``objects`` says how to
    read an attribute of a loaded object and how to call its methods (``_module``)."""

    def __init__(
        self, constants: tuple, objects: Any, functions: dict[str, ast.FunctionDef]
    ) -> None:
        self.constants = _Constants(constants)
        self.objects = objects
        self.functions = functions

    # -- calls ----------------------------------------------------------------------------

    def call_method(self, info: ClassInfo, obj: Any, name: str, args: tuple, kwargs: dict) -> Any:
        """Run method ``name`` of ``obj`` (of class ``info``) with the arguments."""
        node = info.methods.get(name)
        if node is None and f"{name}__0" in info.methods:  # an overloaded method
            node = self.pick_overload(info, name, args, kwargs)
        if node is None:
            raise _unsupported(
                f"the method {name} of {info.qualname} (the archive has no code for it)"
            )
        return self.run_function(node, (obj, *args), kwargs)

    def pick_overload(
        self, info: ClassInfo, name: str, args: tuple, kwargs: dict
    ) -> ast.FunctionDef | None:
        """The first overload ``name__<i>`` whose parameter annotations admit the arguments
        (``Tensor`` a tensor, a ``__torch__`` class an object of it)."""
        i = 0
        while f"{name}__{i}" in info.methods:
            node = info.methods[f"{name}__{i}"]
            params = node.args.args[1:]
            given = list(zip(params, args)) + [
                (p, kwargs[p.arg]) for p in params if p.arg in kwargs
            ]
            if all(_admits(p.annotation, v) for p, v in given):
                return node
            i += 1
        return None

    def run_function(self, node: ast.FunctionDef, args: tuple, kwargs: dict) -> Any:
        """Run a function of the code (a method takes its object first) with the arguments,
        its defaults filling the rest."""
        name = node.name
        if node.args.vararg or node.args.kwarg:
            raise _unsupported(f"*args or **kwargs in {name}", node)
        positional = node.args.args
        names = [p.arg for p in positional] + [p.arg for p in node.args.kwonlyargs]
        if len(args) > len(positional):
            raise TypeError(
                f"{name}() expected at most {len(positional)} argument(s) but received "
                f"{len(args)} argument(s)"
            )
        env: dict[str, Any] = {}
        env.update(zip(names, args))
        for key, value in kwargs.items():
            if key not in names or key in env:
                raise TypeError(f"{name}() got an unexpected or repeated argument '{key}'")
            env[key] = value
        defaults = dict(zip([p.arg for p in positional[len(positional) - len(node.args.defaults):]],
                            node.args.defaults))  # fmt: skip
        for p, d in zip(node.args.kwonlyargs, node.args.kw_defaults):
            if d is not None:
                defaults[p.arg] = d
        for key in names:
            if key not in env:
                if key not in defaults:
                    raise TypeError(f"{name}() is missing value for argument '{key}'")
                env[key] = self.eval(defaults[key], env)
        try:
            self.run_block(node.body, env)
        except _Return as ret:
            return ret.value
        return None

    # -- statements -----------------------------------------------------------------------

    def run_block(self, body: list[ast.stmt], env: dict[str, Any]) -> None:
        """Run statements in order (``return`` leaves by raising _Return)."""
        for stmt in body:
            self.run(stmt, env)

    def run(self, stmt: ast.stmt, env: dict[str, Any]) -> None:
        if isinstance(stmt, ast.Assign):
            value = self.eval(stmt.value, env)
            for target in stmt.targets:
                self.assign(target, value, env)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self.assign(stmt.target, self.eval(stmt.value, env), env)
        elif isinstance(stmt, ast.AugAssign):
            op = _BINOPS.get(type(stmt.op))
            if op is None or not isinstance(stmt.target, ast.Name):
                raise _unsupported("this augmented assignment", stmt)
            env[stmt.target.id] = op(self.eval(stmt.target, env), self.eval(stmt.value, env))
        elif isinstance(stmt, ast.Return):
            raise _Return(None if stmt.value is None else self.eval(stmt.value, env))
        elif isinstance(stmt, ast.If):
            self.run_block(stmt.body if self.truth(self.eval(stmt.test, env)) else stmt.orelse, env)
        elif isinstance(stmt, ast.For):
            self.run_for(stmt, env)
        elif isinstance(stmt, ast.While):
            while self.truth(self.eval(stmt.test, env)):
                try:
                    self.run_block(stmt.body, env)
                except _Flow as flow:
                    if flow.kind == "break":
                        break
        elif isinstance(stmt, ast.Expr):
            self.eval(stmt.value, env)
        elif isinstance(stmt, ast.Pass):
            pass
        elif isinstance(stmt, ast.Break):
            raise _Flow("break")
        elif isinstance(stmt, ast.Continue):
            raise _Flow("continue")
        elif isinstance(stmt, ast.Assert):
            if not self.truth(self.eval(stmt.test, env)):
                msg = "" if stmt.msg is None else self.eval(stmt.msg, env)
                raise AssertionError(msg)
        else:
            raise _unsupported(f"the statement {type(stmt).__name__}", stmt)

    def run_for(self, stmt: ast.For, env: dict[str, Any]) -> None:
        iterable = self.eval(stmt.iter, env)
        if isinstance(iterable, Tensor):
            iterable = list(iterable.unbind(0))
        if not isinstance(iterable, (range, list, tuple, dict, str)):
            raise _unsupported(f"a for loop over {type(iterable).__name__}", stmt)
        for item in iterable:
            self.assign(stmt.target, item, env)
            try:
                self.run_block(stmt.body, env)
            except _Flow as flow:
                if flow.kind == "break":
                    break

    def assign(self, target: ast.expr, value: Any, env: dict[str, Any]) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = list(value)
            if len(items) != len(target.elts):
                raise RuntimeError(
                    f"torch.jit.load: cannot unpack {len(items)} values into {len(target.elts)}"
                )
            for t, v in zip(target.elts, items):
                self.assign(t, v, env)
        elif isinstance(target, ast.Subscript):
            container = self.eval(target.value, env)
            if not isinstance(container, (list, dict, Tensor)):
                raise _unsupported(f"item assignment on {type(container).__name__}", target)
            container[self.eval(target.slice, env)] = value
        elif isinstance(target, ast.Attribute):
            self.objects.set_attr(self.eval(target.value, env), target.attr, value)
        else:
            raise _unsupported(f"assignment to {type(target).__name__}", target)

    @staticmethod
    def truth(value: Any) -> bool:
        return bool(value)

    # -- expressions ----------------------------------------------------------------------

    def eval(self, node: ast.expr, env: dict[str, Any]) -> Any:
        """The value of an expression node (whitelisted kinds only)."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self.name(node, env)
        if isinstance(node, ast.Call):
            return self.call(node, env)
        if isinstance(node, ast.Attribute):
            return self.attribute(node, env)
        if isinstance(node, ast.Subscript):
            value = self.eval(node.value, env)
            index = self.eval(node.slice, env)
            if not isinstance(value, (list, tuple, dict, str, Tensor)):
                raise _unsupported(f"indexing {type(value).__name__}", node)
            return value[index]
        if isinstance(node, ast.Slice):
            parts = (node.lower, node.upper, node.step)
            return slice(*(None if p is None else self.eval(p, env) for p in parts))
        if isinstance(node, ast.Tuple):
            return tuple(self.eval(e, env) for e in node.elts)
        if isinstance(node, ast.List):
            return [self.eval(e, env) for e in node.elts]
        if isinstance(node, ast.Dict):
            if any(k is None for k in node.keys):
                raise _unsupported("** in a dict literal", node)
            return {self.eval(k, env): self.eval(v, env) for k, v in zip(node.keys, node.values)}
        if isinstance(node, ast.BinOp):
            op = _BINOPS.get(type(node.op))
            if op is None:
                raise _unsupported(f"the operator {type(node.op).__name__}", node)
            return op(self.eval(node.left, env), self.eval(node.right, env))
        if isinstance(node, ast.UnaryOp):
            return _UNARY[type(node.op)](self.eval(node.operand, env))
        if isinstance(node, ast.BoolOp):
            is_and = isinstance(node.op, ast.And)
            value: Any = is_and
            for e in node.values:
                value = self.eval(e, env)
                if self.truth(value) != is_and:
                    return value
            return value
        if isinstance(node, ast.Compare):
            left = self.eval(node.left, env)
            for op, right_node in zip(node.ops, node.comparators):
                right = self.eval(right_node, env)
                if not self.truth(_CMPOPS[type(op)](left, right)):
                    return False
                left = right
            return True
        if isinstance(node, ast.IfExp):
            branch = node.body if self.truth(self.eval(node.test, env)) else node.orelse
            return self.eval(branch, env)
        raise _unsupported(f"the expression {type(node).__name__}", node)

    def name(self, node: ast.Name, env: dict[str, Any]) -> Any:
        if node.id in env:
            return env[node.id]
        if node.id == "CONSTANTS":
            return self.constants
        if node.id in ("None", "True", "False"):
            return {"None": None, "True": True, "False": False}[node.id]
        raise _unsupported(f"the name {node.id!r}", node)

    def attribute(self, node: ast.Attribute, env: dict[str, Any]) -> Any:
        dotted = _dotted(node)
        if dotted is not None and dotted.split(".")[0] not in env:
            return self.global_attribute(dotted, node)
        value = self.eval(node.value, env)
        if isinstance(value, _Constants):
            return value.get(node.attr)
        if isinstance(value, Tensor):
            if node.attr not in B.TENSOR_ATTRS:
                raise _unsupported(f"the tensor attribute .{node.attr}", node)
            return getattr(value, node.attr)
        return self.objects.get_attr(value, node.attr)

    def global_attribute(self, dotted: str, node: ast.AST) -> Any:
        """A value named from a namespace: ``math.pi``, a dtype (``torch.float64``)."""
        root, _, rest = dotted.partition(".")
        if root == "CONSTANTS" and "." not in rest:
            return self.constants.get(rest)
        if root == "math" and rest in B.MATH_OPS:
            return B.MATH_OPS[rest]
        dtypes = {str(d).removeprefix("torch."): d for d in B.DTYPES.values()}
        if root == "torch" and rest in dtypes:
            return dtypes[rest]
        # a function as a value (``_0 = torch.ne``, ``_1 = __torch__.torch.nn.functional.relu``)
        return CodeCallable(dotted, self.namespace_function(dotted, node))

    def call(self, node: ast.Call, env: dict[str, Any]) -> Any:
        func = node.func
        if isinstance(func, ast.Name) and func.id not in env:
            return self.global_call(func.id, node, env)
        dotted = _dotted(func) if isinstance(func, ast.Attribute) else None
        if dotted is not None and dotted.split(".")[0] not in env:
            fn = self.namespace_function(dotted, node)
            return fn(*self.args(node, env), **self.kwargs(node, env))
        if not isinstance(func, ast.Attribute):
            value = self.eval(func, env)
            if not isinstance(value, CodeCallable):  # (only functions the whitelist gave)
                raise _unsupported(f"calling a {type(value).__name__}", node)
            return value.fn(*self.args(node, env), **self.kwargs(node, env))
        target = self.eval(func.value, env)
        args, kwargs = self.args(node, env), self.kwargs(node, env)
        if isinstance(target, Tensor):
            if func.attr not in B.TENSOR_METHODS:
                raise _unsupported(f"the tensor method .{func.attr}()", node)
            if "dtype" in kwargs:
                kwargs["dtype"] = B.to_dtype(kwargs["dtype"])
            return getattr(target, func.attr)(*args, **kwargs)
        if isinstance(target, str) and func.attr == "format":
            return B.safe_format(target, *args)
        if isinstance(target, (list, dict, str)):
            if func.attr not in _LIST_METHODS:
                raise _unsupported(f"the method .{func.attr}() of {type(target).__name__}", node)
            return getattr(target, func.attr)(*args, **kwargs)
        return self.objects.call_method(target, func.attr, args, kwargs)

    def args(self, node: ast.Call, env: dict[str, Any]) -> list[Any]:
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise _unsupported("*args in a call", node)
        return [self.eval(a, env) for a in node.args]

    def kwargs(self, node: ast.Call, env: dict[str, Any]) -> dict[str, Any]:
        if any(k.arg is None for k in node.keywords):
            raise _unsupported("**kwargs in a call", node)
        return {k.arg: self.eval(k.value, env) for k in node.keywords}

    def namespace_function(self, dotted: str, node: ast.AST) -> Callable:
        """The function ``torch.<op>``, ``ops.aten.<op>``, ``ops.prim.<op>`` or
        ``math.<fn>`` names, from the whitelist."""
        parts = dotted.split(".")
        if len(parts) == 2 and parts[0] == "torch":
            return B.torch_op(parts[1])
        if len(parts) == 3 and parts[:2] == ["ops", "aten"]:
            return B.torch_op(parts[2])
        if len(parts) == 3 and parts[:2] == ["ops", "prim"]:
            return B.prim_op(parts[2])
        if len(parts) == 2 and parts[0] == "math" and callable(B.MATH_OPS.get(parts[1])):
            return B.MATH_OPS[parts[1]]
        if dotted in self.functions:  # a function of the archive's code files
            function = self.functions[dotted]
            return lambda *args, **kwargs: self.run_function(function, args, kwargs)
        raise _unsupported(f"the function {dotted}", node)

    def global_call(self, name: str, node: ast.Call, env: dict[str, Any]) -> Any:
        """The builtins TorchScript code calls by bare name."""
        if name in ("annotate", "unchecked_cast"):  # (the type argument is not evaluated)
            return self.eval(node.args[1], env)
        if name == "uninitialized":
            return None
        if name == "isinstance":
            raise _unsupported("isinstance", node)
        args, kwargs = self.args(node, env), self.kwargs(node, env)
        if name == "getattr" and len(args) == 2 and isinstance(args[1], str):
            return self.objects.get_attr(args[0], args[1])
        simple: dict[str, Callable] = {
            "int": int, "float": float, "bool": bool, "str": str, "len": B._len,
            "range": range, "list": list, "tuple": tuple, "print": print, "abs": abs,
            "min": min, "max": max, "round": round,
        }  # fmt: skip
        if name not in simple:
            raise _unsupported(f"the function {name}()", node)
        return simple[name](*args, **kwargs)


def _admits(annotation: ast.expr | None, value: Any) -> bool:
    """Whether a value may be passed to a parameter of this annotation (checked for tensors
    and ``__torch__`` classes; other annotations admit anything)."""
    if annotation is None:
        return True
    name = _dotted(annotation)
    if name == "Tensor":
        return isinstance(value, Tensor)
    if name is not None and name.startswith("__torch__."):
        info = getattr(value, "_script_class", None)
        return info is not None and info.qualname == name
    return True


def _dotted(node: ast.expr) -> str | None:
    """``a.b.c`` for an attribute chain on a bare name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))
