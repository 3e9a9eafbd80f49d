"""Operator schemas: parsing ``define``'s strings and inferring one from type hints.

A schema reads ``name.overload(Type arg=default, *, Type kwarg) -> Returns``. Parsing keeps
each argument's type as written (``Tensor(a!)?``), its default as a Python value, and
whether it is keyword-only; ``str`` prints it back as PyTorch's ``FunctionSchema`` does
(floats in full precision: ``1.``, ``1.0000000000000001e-05``).
"""

from __future__ import annotations

import collections.abc
import inspect
import re
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Argument", "FunctionSchema", "infer_schema", "parse"]

_BASES = (
    "Tensor SymInt int float bool str Scalar ScalarType Device Layout MemoryFormat Generator "
    "Dimname complex"
).split()
_TYPE = re.compile(r"^([A-Za-z]+)(\([a-z0-9]+!?\))?((?:\?|\[\d*\])*)$")
_NO_DEFAULT = object()
_UNKNOWN_TYPE = (
    "\nunknown type specifier. Common valid schema types include Tensor, SymInt, int, float, "
    "bool, Scalar; for a full list, please see "
    "https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/README.md#func :\n"
)


@dataclass
class Argument:
    """One argument (or return) of a schema: its type as written, name and default."""

    name: str
    type: str
    default: Any = _NO_DEFAULT
    kwarg_only: bool = False

    @property
    def has_default(self) -> bool:
        """Whether the argument may be left out."""
        return self.default is not _NO_DEFAULT

    @property
    def is_write(self) -> bool:
        """Whether the op writes into it (``Tensor(a!)``)."""
        return "!" in self.type

    @property
    def is_tensor(self) -> bool:
        """Whether it holds tensors (``Tensor``, ``Tensor?``, ``Tensor[]``)."""
        return self.type.startswith("Tensor")

    def __str__(self) -> str:
        text = f"{self.type} {self.name}".strip()
        if self.has_default:
            text += "=" + _default_text(self.default)
        return text


@dataclass
class FunctionSchema:
    """A parsed operator schema, printed as PyTorch prints ``op._schema``."""

    name: str
    overload_name: str
    arguments: list[Argument]
    returns: list[Argument] = field(default_factory=list)

    def __str__(self) -> str:
        name = self.name + (f".{self.overload_name}" if self.overload_name else "")
        return f"{name}({_arguments_text(self.arguments)}) -> {_returns_text(self.returns)}"


def _float_text(x: float) -> str:
    """A float as C++ prints a schema default: 17 significant digits, a point kept."""
    text = f"{x:.17g}"
    return text if any(c in text for c in ".en") else text + "."


def _default_text(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, float):
        return _float_text(value)
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        return "[" + ", ".join(_default_text(v) for v in value) + "]"
    return str(value)


def _arguments_text(arguments: list[Argument]) -> str:
    parts = []
    for i, a in enumerate(arguments):
        if a.kwarg_only and (i == 0 or not arguments[i - 1].kwarg_only):
            parts.append("*")
        parts.append(str(a))
    return ", ".join(parts)


def _returns_text(returns: list[Argument]) -> str:
    if len(returns) == 1 and not returns[0].name:
        return returns[0].type
    return "(" + ", ".join(str(r) for r in returns) + ")"


def _split(text: str) -> list[str]:
    """``text`` cut at its top-level commas."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += c in "([" and 1 or 0
        depth -= c in ")]" and 1 or 0
        if c == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    last = text[start:].strip()
    return parts + [last] if last else parts


def _default_value(text: str) -> Any:
    if text in ("True", "False"):
        return text == "True"
    if text == "None":
        return None
    if text[:1] in "\"'":
        return text[1:-1]
    if text.startswith("["):
        return [_default_value(p) for p in _split(text[1:-1])]
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text  # (an enum default: contiguous_format, float32)


def _check_type(type_: str, schema: str) -> None:
    """Raise PyTorch's error for a type it does not know."""
    match = _TYPE.match(type_)
    if match is None or match.group(1) not in _BASES:
        start = schema.find(type_)
        base = match.group(1) if match else type_
        marker = " " * max(start, 0) + "~" * len(base) + " <--- HERE\n"
        raise RuntimeError(_UNKNOWN_TYPE + schema + "\n" + marker)


def _argument(text: str, kwarg_only: bool, schema: str) -> Argument:
    declared, _, default = text.partition("=")
    type_, _, name = declared.strip().rpartition(" ")
    if not type_:  # a return without a name
        type_, name = name, ""
    _check_type(type_, schema)
    value = _default_value(default.strip()) if default else _NO_DEFAULT
    return Argument(name, type_, value, kwarg_only)


def _arguments(text: str, schema: str) -> list[Argument]:
    arguments, kwarg_only = [], False
    for part in _split(text):
        if part == "*":
            kwarg_only = True
            continue
        arguments.append(_argument(part, kwarg_only, schema))
    return arguments


def parse(schema: str, namespace: str = "") -> FunctionSchema:
    """Parse ``name.overload(args) -> returns`` (PyTorch's schema language)."""
    head, arrow, returns = schema.partition("->")
    open_ = head.find("(")
    close = head.rfind(")")
    if not arrow or open_ < 0 or close < open_:
        raise RuntimeError(f"expected a schema of the form name(args) -> returns, got: {schema}")
    name, _, overload = head[:open_].strip().partition(".")
    if namespace and "::" not in name:
        name = f"{namespace}::{name}"
    returns = returns.strip()
    if returns.startswith("("):
        returns = returns[1:-1]
    outs = [_argument(p, False, schema) for p in _split(returns)]
    return FunctionSchema(name, overload, _arguments(head[open_ + 1 : close], schema), outs)


# ---- infer_schema: a schema from a function's type hints


def _tensor_cls() -> type:
    from .._tensor import Tensor

    return Tensor


def _scalar_types() -> dict:
    from .._dtypes import dtype
    from .._tensor import device

    return {
        _tensor_cls(): "Tensor",
        int: "SymInt",
        float: "float",
        bool: "bool",
        str: "str",
        dtype: "ScalarType",
        device: "Device",
    }


_SEQUENCES = (list, collections.abc.Sequence, typing.Sequence)


def _is_number(ann: Any) -> bool:
    return set(typing.get_args(ann)) == {int, float, bool}


def _optional_of(ann: Any) -> Any:
    """``T`` for ``Optional[T]``, else None."""
    if typing.get_origin(ann) not in (typing.Union, types.UnionType):
        return None
    rest = [a for a in typing.get_args(ann) if a is not type(None)]
    if len(rest) == len(typing.get_args(ann)):
        return None
    return rest[0] if len(rest) == 1 else typing.Union[tuple(rest)]  # noqa: UP007


def _list_of(ann: Any) -> Any:
    """The element type of ``list[T]``/``Sequence[T]``, else None."""
    origin = typing.get_origin(ann)
    if origin in _SEQUENCES or ann in _SEQUENCES:
        args = typing.get_args(ann)
        return args[0] if args else None
    return None


def _element_type(ann: Any) -> str | None:
    """The schema type of a list's element (Tensor, Tensor?, SymInt, float, bool, Scalar)."""
    if ann is _tensor_cls() or _optional_of(ann) is _tensor_cls():
        return "Tensor" if ann is _tensor_cls() else "Tensor?"
    if ann in (int, float, bool):
        return _scalar_types()[ann]
    return "Scalar" if _is_number(ann) else None


def _parameter_type(ann: Any) -> str | None:
    """The schema type of a parameter annotation, None where PyTorch has none."""
    scalars = _scalar_types()
    if isinstance(ann, type) and ann in scalars:
        return scalars[ann]
    if _is_number(ann):
        return "Scalar"
    inner = _optional_of(ann)
    if inner is not None:
        if _is_number(inner):
            return "Scalar?"
        element = _list_of(inner)
        if element is not None:
            t = _element_type(element)
            return t + "[]?" if t in ("SymInt", "float", "bool") else None
        t = scalars.get(inner) if isinstance(inner, type) else None
        return t + "?" if t else None
    element = _list_of(ann)
    if element is not None:
        t = _element_type(element)
        return t + "[]" if t else None
    return None


def _return_type(ann: Any) -> str | None:
    if ann is None or ann is type(None):
        return "()"
    if typing.get_origin(ann) is tuple:
        parts = [_return_type(a) for a in typing.get_args(ann)]
        return None if None in parts else "(" + ", ".join(parts) + ")"  # type: ignore[arg-type]
    if _list_of(ann) is _tensor_cls():
        return "Tensor[]"
    if _is_number(ann):
        return "Scalar"
    types_ = {
        k: v for k, v in _scalar_types().items() if v in ("Tensor", "SymInt", "float", "bool")
    }
    return types_.get(ann) if isinstance(ann, type) else None


def _default_of(value: Any) -> str:
    """A parameter default as infer_schema writes it."""
    if isinstance(value, str):
        return f'"{value}"'
    text = str(value)
    return text[len("torch.") :] if text.startswith("torch.") else text


def _mutated(mutates_args: Any, params: list[inspect.Parameter], error: Any) -> set[str]:
    if mutates_args == "unknown":
        return {"unknown"}
    if isinstance(mutates_args, str):
        raise ValueError(
            "mutates_args must either be a sequence of the names of the arguments that are "
            "mutated or the string 'unknown'. "
        )
    names = set(mutates_args)
    unknown = names - {p.name for p in params}
    names.discard("unknown")
    if unknown:
        error(
            f"{unknown} in mutates_args were not found in the custom op's signature. "
            "mutates_args should contain the names of all args that the custom op mutates, "
            "or just the string 'unknown' if you don't know."
        )
    return names


def _hints(fn: Callable) -> dict:
    try:
        return typing.get_type_hints(fn)
    except Exception:  # (unresolvable names: the raw annotations)
        return dict(getattr(fn, "__annotations__", {}))


def _mark_write(type_: str, index: int) -> str:
    """``Tensor?`` -> ``Tensor(a0!)?``."""
    return f"Tensor(a{index}!)" + type_[len("Tensor") :]


def infer_schema(
    prototype_function: Callable,
    /,
    *,
    mutates_args: Any,
    op_name: str | None = None,
    tags: Any = (),
) -> str:
    """The schema of ``prototype_function`` from its type hints (PyTorch's rules)."""
    sig = inspect.signature(prototype_function)

    def error(what: str) -> None:
        raise ValueError(f"infer_schema(func): {what} Got func with signature {sig})")

    hints = _hints(prototype_function)
    params = list(sig.parameters.values())
    mutated = _mutated(mutates_args, params, error)
    parts, seen_kwonly = [], False
    for index, p in enumerate(params):  # (a written Tensor's alias set is its position)
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            error("We do not support positional-only args, varargs, or varkwargs.")
        if p.annotation is p.empty:
            error(f"Parameter {p.name} must have a type annotation.")
        ann = hints.get(p.name, p.annotation)
        type_ = _parameter_type(ann)
        if type_ is None:
            error(
                f"Parameter {p.name} has unsupported type {ann}. The valid types are: "
                "Tensor, Optional[Tensor], Sequence[Tensor], Sequence[Optional[Tensor]], "
                "int, float, bool, str, Number and torch.dtype / torch.device "
                "(and their Optional and Sequence forms)."
            )
        if "unknown" in mutated and type_.startswith("Tensor"):  # type: ignore[union-attr]
            type_ = _mark_write(type_, index)  # type: ignore[arg-type]
        elif p.name in mutated:
            if not type_.startswith("Tensor"):  # type: ignore[union-attr]
                error(
                    f"Parameter {p.name} is in mutable_args but only Tensors or collections "
                    "of Tensors can be mutated"
                )
            type_ = _mark_write(type_, index)  # type: ignore[arg-type]
        if p.kind == p.KEYWORD_ONLY and not seen_kwonly:
            parts.append("*")
            seen_kwonly = True
        text = f"{type_} {p.name}"
        if p.default is not p.empty:
            text += "=" + _default_of(p.default)
        parts.append(text)
    if sig.return_annotation is sig.empty:
        error("No return type annotation was provided. Please add one.")
    ret_ann = hints.get("return", sig.return_annotation)
    returns = _return_type(ret_ann)
    if returns is None:
        error(
            f"Return has unsupported type {ret_ann}. The valid types are: Tensor, "
            "list[Tensor], int, float, bool, Number (and tuples of them)."
        )
    return f"{op_name or ''}({', '.join(parts)}) -> {returns}"
