"""Argument parsing shared by the public functions: PyTorch's conversions and type errors,
and the signatures most ops share (``unary``: ``f(input, *, out=None)``, ``tensors_only``,
``predicate``, ``bitwise``, ``compare``) as function builders for the name table."""

from __future__ import annotations

from typing import Any, NamedTuple

from .._tensor import Tensor


def tensor_arg(x: Any) -> Any:
    """Python numbers stay numbers; anything else array-like becomes a tensor."""
    if isinstance(x, (Tensor, int, float, bool)):
        return x
    from .._creation import as_tensor

    return as_tensor(x)


def op_function(op, name: str | None = None):
    """An op as a public function: its arguments passed through to the op."""

    def function(*args, **kwargs):
        return op(*args, **kwargs)

    doc = (op.doc or f"The op {op.name}.") + (f" {op.conventions}" if op.conventions else "")
    return named(function, name or op.name, doc)


def compare(op):
    def compare(input, other, *, out=None):
        return op(input, tensor_arg(other))

    compare.__name__ = op.name
    compare.__doc__ = f"Elementwise {op.name}; a bool tensor (no gradient)."
    return compare


def dim_arg(dim):
    if isinstance(dim, list):
        return tuple(dim)
    return dim


def shape_args(shape: tuple) -> tuple:
    if len(shape) == 1 and not isinstance(shape[0], int):
        return tuple(shape[0])
    return shape


def require_tensor(fn: str, value, position: int = 1, name: str = "input"):
    """PyTorch's TypeError for a Python number (or anything else) where a tensor must be."""
    if not isinstance(value, Tensor):
        raise TypeError(
            f"{fn}(): argument '{name}' (position {position}) must be Tensor, "
            f"not {type(value).__name__}"
        )
    return value


def return_type(name: str, fields: tuple = ("values", "indices")) -> type:
    """A named tuple that prints as PyTorch's ``torch.return_types.<name>``."""
    cls = NamedTuple(name, [(f, Tensor) for f in fields])

    def __repr__(self) -> str:  # noqa: N807
        body = ",\n".join(f"{f}={getattr(self, f)!r}" for f in fields)
        return f"torch.return_types.{name}(\n{body})"

    cls.__repr__ = __repr__
    cls.__module__ = "torch.return_types"
    return cls


def named(function, name: str, doc: str):
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


def unary(op):
    def function(input, *, out=None):  # noqa: A002
        return op(input)

    doc = f"Elementwise {op.name}." + (f" {op.conventions}" if op.conventions else "")
    return named(function, op.name, doc)


def tensors_only(op, name: str | None = None):
    name = name or op.name

    def function(input, other, *, out=None):  # noqa: A002
        require_tensor(name, input, 1, "input")
        require_tensor(name, other, 2, "other")
        return op(input, other)

    doc = f"Elementwise {name} of two tensors, broadcasting." + (
        f" {op.conventions}" if op.conventions else ""
    )
    return named(function, name, doc)


def predicate(op, doc: str | None = None):
    def function(input, *, out=None):  # noqa: A002
        return op(require_tensor(op.name, input, 1, "input"))

    return named(function, op.name, doc or f"{op.name}: a bool tensor.")


def bitwise(op):
    def function(input, other, *, out=None):  # noqa: A002
        return op(tensor_arg(input), tensor_arg(other))

    return named(function, op.name, f"{op.name}: logical on bools, bitwise on integers.")
