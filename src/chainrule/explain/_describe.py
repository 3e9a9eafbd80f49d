"""Describing one node: the forward it undoes, its local derivative, its source line."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from .._backend import xp
from .._tensor import Tensor
from ..autograd.graph import Node

if TYPE_CHECKING:
    from traceback import FrameSummary

    from ..autograd.recording import Op


def _describe(node: Node) -> tuple[float | None, bool, str, str]:
    """(scaling factor or None, elementwise?, local derivative text, forward text)."""
    op = getattr(node, "_op", None)
    if op is None:  # a custom autograd.Function, or another node without an op entry
        return None, False, f"the backward of {node.name()}", f"{_short_name(node)} (custom)"
    name = op.name
    saved = dict(zip(zip(node._plan.kinds, node._plan.keys), node._stored() or ()))
    args = op.args
    tensors = [n for n, _ in node._next]
    number = next((v for (k, _), v in saved.items() if k == "arg" and _is_number(v)), None)
    same = len(tensors) == 2 and tensors[0] is not None and tensors[0] is tensors[1]
    shape = node._meta[0][0] if node._meta and node._meta[0] else None
    n_in = math.prod(shape) if shape is not None else 1
    if name == "mul":
        if same:
            return None, True, "d(y*y)/dy = 2y", "out = y * y"
        if number is not None:
            c = _num(number)
            return float(number), True, f"d(a*{c})/da = {c}", f"out = a * {c}"
        return None, True, "d(a*b)/da = b, d(a*b)/db = a", "out = a * b"
    if name == "div":
        if number is not None:
            c = _num(number)
            return 1 / float(number), True, f"d(a/{c})/da = 1/{c}", f"out = a / {c}"
        return None, True, "d(a/b)/da = 1/b, d(a/b)/db = -a/b²", "out = a / b"
    if name in ("add", "sub"):
        sign = "+" if name == "add" else "-"
        if number is not None or tensors.count(None) == 1:
            factor = -1.0 if name == "sub" and tensors[0] is None else 1.0
            return factor, True, f"d(a {sign} c)/da = 1", f"out = a {sign} c"
        other = "1" if sign == "+" else "-1"
        return None, True, f"d(a {sign} b)/da = 1, d(a {sign} b)/db = {other}", f"out = a {sign} b"
    if name == "neg":
        return -1.0, True, "d(-a)/da = -1", "out = -a"
    if name == "mean":
        dim = saved.get(("param", "dim"))
        count = n_in if dim is None else _count(shape, dim)
        text = "out = z.mean()" if dim is None else f"out = z.mean(dim={dim})"
        return None, False, f"d mean(z)/dz_i = 1/{count}", text
    if name == "sum":
        return None, False, "d sum(z)/dz_i = 1", "out = z.sum()"
    if name in ("matmul", "mm"):
        return None, False, "d(A@B)/dA = G @ Bᵀ, d(A@B)/dB = Aᵀ @ G", "out = A @ B"
    if name == "relu":
        return None, True, "d relu(x)/dx = 1 where x > 0, else 0", "out = relu(x)"
    if name == "pow":
        e = saved.get(("param", "exponent"))
        if e is not None:
            return (
                None,
                True,
                f"d(x^{_num(e)})/dx = {_num(e)}·x^{_num(e - 1)}",
                f"out = x ** {_num(e)}",
            )
    comment = _vjp_comment(op)
    return (
        None,
        _is_elementwise(op),
        comment or f"the VJP of {name}",
        f"out = {name}({', '.join(args)})",
    )


def _is_elementwise(op: Op) -> bool:
    """Whether each output element depends only on the same element of each input."""
    if isinstance(op.forward, xp.ufunc):
        return True
    module = getattr(op.forward, "__module__", "") or ""
    if module.endswith((".elementwise", ".pointwise")):
        return True
    return module.endswith(".activations") and op.name not in _NOT_ELEMENTWISE


_NOT_ELEMENTWISE = {"softmax", "log_softmax", "logsumexp"}


def _broadcast(node: Node, g_in: Tensor) -> list[int]:
    """The inputs (needing a gradient) whose shape an elementwise op broadcast."""
    metas = getattr(node, "_meta", None) or ()
    return [i for i, m in enumerate(metas) if m is not None and tuple(m[0]) != tuple(g_in.shape)]


def _shapes_kept(node: Node, g_in: Tensor) -> bool:
    """No input that needs a gradient was broadcast: its shape is the output's."""
    metas = getattr(node, "_meta", None) or ()
    return all(m is None or tuple(m[0]) == tuple(g_in.shape) for m in metas)


def _vjp_comment(op: Op) -> str:
    import inspect

    for f in op.raw_vjps:
        if f is None:
            continue
        try:
            lines, _ = inspect.getsourcelines(f)
        except (OSError, TypeError):
            continue
        for line in lines[:3]:
            if "#" in line:
                return line.split("#", 1)[1].strip()
        doc = inspect.getdoc(f)
        if doc:
            return doc.splitlines()[0]
    return ""


def _count(shape: tuple, dim: int | tuple) -> int:
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return math.prod(shape[d] for d in dims)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() and abs(v) < 1e16 else f"{v:g}"


def _source_place(node: Node) -> str | None:
    frame = _frame(node)
    return f"{frame.filename}:{frame.lineno}" if frame is not None else None


def _source_text(node: Node) -> str | None:
    frame = _frame(node)
    return _fit(frame.line.strip(), 120) if frame is not None and frame.line else None


def _frame(node: Node) -> FrameSummary | None:
    if node._extra is None:
        return None
    stack = node._extra.metadata.get("traceback_")
    return stack[-1] if stack else None


def _short_name(node: Node) -> str:
    """The node's class name: ``AccumulateGrad`` rather than name()'s C++ path."""
    return type(node).__name__


def _fit(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"
