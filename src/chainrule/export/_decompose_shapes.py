"""``run_decompositions`` rules of joins, splits and spread statistics, written as
PyTorch's core ATen programs write them: ``stack`` (a ``cat`` and a ``view``, or
``unsqueeze``-d inputs where the new dimension is last), ``chunk`` and ``split`` (one
``split_with_sizes``), ``unbind`` (a ``slice`` per index, then a ``squeeze`` of each),
``var``/``std`` (``var.correction``, and its ``sqrt``), ``sum()`` (``sum.dim_IntList``
over ``[]``) and ``where`` with a number (a ``scalar_tensor``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import chainrule

from ..fx import Node
from ._decompose import Writer


def _wrap(dim: int, rank: int) -> int:
    return dim + rank if dim < 0 else dim


def _stack(w: Writer, tensors: list[Node], dim: int = 0) -> Node:
    """A ``cat`` along ``dim`` viewed with the new size there; where ``dim`` is the new
    last one, each input ``unsqueeze``-d and joined along ``dim`` as given."""
    shape = list(w.values[tensors[0]].shape)
    new = _wrap(dim, len(shape) + 1)
    if new == len(shape):
        return w.call("cat.default", [w.call("unsqueeze.default", t, new) for t in tensors], dim)
    joined = w.call("cat.default", tensors, *([new] if new else []))
    return w.call("view.default", joined, shape[:new] + [len(tensors)] + shape[new:])


def _split_with_sizes(w: Writer, x: Node, sizes: list[int], dim: int) -> list[Node]:
    return w.call("split_with_sizes.default", x, sizes, *([dim] if dim else []))


def _chunk(w: Writer, x: Node, chunks: int, dim: int = 0) -> list[Node]:
    """Pieces of ceil(n / chunks) along ``dim``, the last one shorter."""
    n = w.values[x].shape[dim]
    size = -(-n // chunks)
    return _split_with_sizes(w, x, [min(size, n - i) for i in range(0, n, size)], dim)


def _split(w: Writer, x: Node, size: Any, dim: int = 0) -> list[Node]:
    """Pieces of ``size`` along ``dim``, the last one shorter (sizes given: kept)."""
    if isinstance(size, (list, tuple)):
        return _split_with_sizes(w, x, list(size), dim)
    n = w.values[x].shape[dim]
    return _split_with_sizes(w, x, [min(size, n - i) for i in range(0, n, size)], dim)


def _unbind(w: Writer, x: Node, dim: int = 0) -> list[Node]:
    """Each index's one-wide ``slice``, all first, then each ``squeeze``-d."""
    dim = _wrap(dim, w.values[x].dim())
    n = w.values[x].shape[dim]
    pieces = [w.call("slice.Tensor", x, dim, i, i + 1) for i in range(n)]
    return [w.call("squeeze.dims", p, [dim]) for p in pieces]


def _variance(w: Writer, x: Node, dim: Any, correction: float, keepdim: bool, root: bool) -> Node:
    """``var.correction`` (its arguments as PyTorch's decompositions give them), and its
    ``sqrt`` for the standard deviation."""
    args = [] if dim is None else [dim]
    kwargs: dict[str, Any] = {"correction": correction}
    if keepdim:
        kwargs["keepdim"] = True
    var = w.call("var.correction", x, *args, **kwargs)
    return w.call("sqrt.default", var) if root else var


def _var_dim(root: bool) -> Callable[..., Node]:
    """var(x, dim, unbiased, keepdim) = var.correction with correction = unbiased (an int
    for var, a float for std)."""

    def write(w: Writer, x: Node, dim: Any, unbiased: bool = True, keepdim: bool = False) -> Node:
        correction = float(unbiased) if root else int(unbiased)
        return _variance(w, x, dim, correction, keepdim, root)

    return write


def _var_all(root: bool) -> Callable[..., Node]:
    def write(w: Writer, x: Node, unbiased: bool = True) -> Node:
        correction = float(unbiased) if root else int(unbiased)
        return _variance(w, x, None, correction, False, root)

    return write


def _std_correction(
    w: Writer, x: Node, dim: Any = None, *, correction: Any = None, keepdim: bool = False
) -> Node:
    """sqrt(var.correction), the correction a float (1.0 where not given)."""
    return _variance(w, x, dim, float(1 if correction is None else correction), keepdim, True)


def _var_correction(
    w: Writer, x: Node, dim: Any = None, *, correction: Any = None, keepdim: bool = False
) -> Node:
    """``var.correction`` as written by the dispatcher: no ``None`` dimensions, the
    correction only where given."""
    args = [] if dim is None else [dim]
    kwargs: dict[str, Any] = {} if correction is None else {"correction": correction}
    if keepdim:
        kwargs["keepdim"] = True
    return w.call("var.correction", x, *args, **kwargs)


def _sum(w: Writer, x: Node, *, dtype: Any = None) -> Node:
    """sum(x) = sum over the dimensions ``[]``."""
    return w.call("sum.dim_IntList", x, [], **({} if dtype is None else {"dtype": dtype}))


def _where(w: Writer, condition: Node, x: Any, y: Any) -> Node:
    """``where`` with a number: the number as a ``scalar_tensor`` of the result's dtype,
    tensors of another dtype cast to it (``_to_copy``) after it."""
    if isinstance(x, Node) and isinstance(y, Node):
        return w.call("where.self", condition, x, y)
    dtype = chainrule.where(w.value(condition), w.value(x), w.value(y)).dtype
    cpu = chainrule.device("cpu")
    branches = []
    for value in (x, y):
        if not isinstance(value, Node):
            value = w.call(
                "scalar_tensor.default", value, dtype=dtype, layout=chainrule.strided, device=cpu
            )
        branches.append(value)
    branches = [
        b if w.values[b].dtype == dtype else w.call("_to_copy.default", b, dtype=dtype)
        for b in branches
    ]
    return w.call("where.self", condition, *branches)


SHAPES: dict[str, Callable[..., Any]] = {
    "stack.default": _stack,
    "chunk.default": _chunk,
    "split.Tensor": _split,
    "unbind.int": _unbind,
    "var.dim": _var_dim(False),
    "var.default": _var_all(False),
    "std.dim": _var_dim(True),
    "std.default": _var_all(True),
    "std.correction": _std_correction,
    "var.correction": _var_correction,
    "sum.default": _sum,
    "where.self": _where,
    "where.ScalarOther": _where,
    "where.ScalarSelf": _where,
}
