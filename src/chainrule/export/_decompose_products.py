"""``run_decompositions`` rules of products and reshapes: ``matmul`` (as ``mm``, a folded
``mm``, or ``expand`` + ``view`` + ``bmm``), ``linear``, ``reshape`` (a ``view`` where the
strides allow one, else a contiguous ``clone`` and a ``view``), ``contiguous``,
transposes, ``flatten``, ``unflatten`` and ``squeeze``."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import chainrule

from ..fx import Node
from ._decompose import Writer


def _shape(w: Writer, x: Node) -> list[int]:
    return [int(s) for s in w.values[x].shape]


def _is_contiguous(t: Any) -> bool:
    """Row-major strides on every dimension longer than 1 (PyTorch's definition)."""
    expected = 1
    for size, stride in reversed(list(zip(t.shape, t.stride()))):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def _viewable(t: Any, shape: list[int]) -> bool:
    """Whether ``t`` can be viewed as ``shape`` without a copy: each run of its
    dimensions that merges into (or splits from) a run of the new ones is contiguous
    within itself."""
    if t.numel() == 0:
        return True
    old = [(s, st) for s, st in zip(t.shape, t.stride()) if s != 1]
    new = [s for s in shape if s != 1]
    i = j = 0
    while i < len(old) and j < len(new):
        first, size, target = i, old[i][0], new[j]
        while size != target:
            if size < target:
                i += 1
                size *= old[i][0]
            else:
                j += 1
                target *= new[j]
        if any(old[k][1] != old[k + 1][1] * old[k + 1][0] for k in range(first, i)):
            return False
        i, j = i + 1, j + 1
    return True


def _infer(t: Any, shape: list[int]) -> list[int]:
    """``shape`` with its ``-1`` worked out."""
    shape = [int(s) for s in shape]
    if -1 in shape:
        known = math.prod(s for s in shape if s != -1)
        shape[shape.index(-1)] = t.numel() // known if known else 0
    return shape


def reshape(w: Writer, x: Node, shape: list[int]) -> Node:
    """A ``view`` where the strides allow one, else a contiguous ``clone`` viewed (the
    shape as given, ``-1`` kept)."""
    t = w.values[x]
    if not _viewable(t, _infer(t, shape)):
        x = w.call("clone.default", x, memory_format=chainrule.contiguous_format)
    return w.call("view.default", x, list(shape))


def contiguous(w: Writer, x: Node, *_: Any, **__: Any) -> Node:
    """``x`` itself where contiguous, else its contiguous ``clone``."""
    if _is_contiguous(w.values[x]):
        return x
    return w.call("clone.default", x, memory_format=chainrule.contiguous_format)


def transpose(w: Writer, x: Node, a: int, b: int) -> Node:
    rank = w.values[x].dim()
    order = list(range(rank))
    order[a % rank], order[b % rank] = order[b % rank], order[a % rank]
    return w.call("permute.default", x, order)


def _mT(w: Writer, x: Node) -> Node:
    return transpose(w, x, -2, -1)


def _flatten(w: Writer, x: Node, start: int = 0, end: int = -1) -> Node:
    shape = _shape(w, x)
    if not shape:
        return w.call("view.default", x, [1])
    start, end = start % len(shape), end % len(shape)
    merged = shape[:start] + [math.prod(shape[start : end + 1])] + shape[end + 1 :]
    return reshape(w, x, merged)


def _unflatten(w: Writer, x: Node, dim: int, sizes: list[int]) -> Node:
    shape = _shape(w, x)
    dim %= len(shape)
    sizes = list(sizes)
    if -1 in sizes:
        known = math.prod(s for s in sizes if s != -1)
        sizes[sizes.index(-1)] = shape[dim] // known
    return w.call("view.default", x, shape[:dim] + sizes + shape[dim + 1 :])


def _should_fold(a: Any, b: Any, grad: bool) -> bool:
    """Whether ``a @ b`` folds the batch of the operand of 3 or more dimensions into
    the rows of one ``mm`` (the other operand being a matrix or vector)."""
    big, small = (a, b) if a.dim() >= b.dim() else (b, a)
    if big.dim() < 3 or small.dim() > 2:
        return False
    if grad and small.requires_grad:
        return True
    if a.dim() == 2:
        return False
    return big.numel() == 0 or _is_contiguous(big)


def matmul(w: Writer, a: Node, b: Node, grad: bool = True) -> Node:
    """``a @ b`` as PyTorch's decomposition writes it (``grad``: whether operands that
    require grad change the plan, as they do for ``matmul`` but not inside ``linear``)."""
    ta, tb = w.values[a], w.values[b]
    da, db = ta.dim(), tb.dim()
    if da == 1 and db == 1:
        return w.call("sum.dim_IntList", w.call("mul.Tensor", a, b), [])
    if da == 2 and db == 1:
        return w.call("sum.dim_IntList", w.call("mul.Tensor", a, b), [1])
    if da == 1 and db == 2:
        row = w.call("mm.default", w.call("unsqueeze.default", a, 0), b)
        return w.call("squeeze.dims", row, [0])
    if da == 2 and db == 2:
        return w.call("mm.default", a, b)
    if _should_fold(ta, tb, grad):
        return _folded(w, a, b)
    return _batched(w, a, b, grad)


def _folded(w: Writer, a: Node, b: Node) -> Node:
    """The operand of 3 or more dimensions as the rows of one ``mm`` (or ``mv``); when it
    is the right one, ``(bᵀ aᵀ)ᵀ`` made contiguous."""
    da, db = w.values[a].dim(), w.values[b].dim()
    flip = db > da
    left = _mT(w, b) if flip else a
    right = (w.call("permute.default", a, [1, 0]) if da == 2 else a) if flip else b
    sizes = _shape(w, left)
    out_shape = sizes[:-1]
    rows = reshape(w, left, [math.prod(out_shape), sizes[-1]])
    if w.values[right].dim() == 1:
        product = w.call("sum.dim_IntList", w.call("mul.Tensor", rows, right), [1])
        return w.call("view.default", product, out_shape)
    out = w.call(
        "view.default", w.call("mm.default", rows, right), out_shape + _shape(w, right)[1:]
    )
    return contiguous(w, _mT(w, out)) if flip else out


def _batched(w: Writer, a: Node, b: Node, grad: bool) -> Node:
    """Both operands expanded to the broadcast batch, flattened to 3-D, one ``bmm``."""
    sa, sb = _shape(w, a), _shape(w, b)
    da, db = len(sa), len(sb)
    n, m1 = (sa[-2] if da > 1 else 1), sa[-1]
    m2, p = (sb[-2], sb[-1]) if db > 1 else (sb[-1], 1)
    batch_a, batch_b = sa[:-2], sb[:-2]
    if grad and da == 3 and db == 3 and batch_a[0] != batch_b[0]:
        # a batch of one that requires grad is squeezed and folded instead
        if batch_a[0] == 1 and w.values[a].requires_grad:
            return matmul(w, w.call("squeeze.dims", a, [0]), b, grad)
        if batch_b[0] == 1 and w.values[b].requires_grad:
            return matmul(w, a, w.call("squeeze.dims", b, [0]), grad)
    batch = list(chainrule.broadcast_shapes(tuple(batch_a), tuple(batch_b)))
    count = math.prod(batch)
    left = reshape(w, w.call("expand.default", a, batch + [n, m1]), [count, n, m1])
    if db == 1:
        right = reshape(w, w.call("expand.default", b, batch + [m2]), [count, m2])
        right = w.call("unsqueeze.default", right, 2)
    else:
        right = reshape(w, w.call("expand.default", b, batch + [m2, p]), [count, m2, p])
    out_shape = batch + ([n] if da > 1 else []) + ([p] if db > 1 else [])
    out = w.call("bmm.default", left, right)
    if db == 1:
        out = w.call("squeeze.dims", out, [-1])
    return w.call("view.default", out, out_shape)


def _linear(w: Writer, x: Node, weight: Node, bias: Node | None = None) -> Node:
    """x Wᵀ + b: ``addmm`` (a contiguous input of more than 2 dimensions folded to rows
    first), else ``x @ Wᵀ`` (plus ``b``)."""
    shape = _shape(w, x)
    if bias is not None and len(shape) > 2 and _is_contiguous(w.values[x]):
        rows = w.call("view.default", x, [math.prod(shape[:-1]), shape[-1]])
        out = w.call("addmm.default", bias, rows, w.call("permute.default", weight, [1, 0]))
        return w.call("view.default", out, shape[:-1] + [_shape(w, weight)[0]])
    wt = w.call("permute.default", weight, [1, 0])
    if bias is not None and len(shape) == 2:
        return w.call("addmm.default", bias, x, wt)
    out = matmul(w, x, wt, grad=False)
    return out if bias is None else w.call("add.Tensor", out, bias)


def _baddbmm(w: Writer, x: Node, b1: Node, b2: Node, *, beta: Any = 1, alpha: Any = 1) -> Node:
    """beta x + alpha (b1 @ b2), each factor written only where it is not 1 (and x not
    at all where beta is 0)."""
    if not (w.values[x].is_floating_point() or w.values[x].is_complex()):
        beta, alpha = int(beta), int(alpha)
    product = w.call("bmm.default", b1, b2)
    if alpha != 1:
        product = w.call("mul.Tensor", product, alpha)
    if beta == 0:
        return product
    if beta != 1:
        x = w.call("mul.Tensor", x, beta)
    return w.call("add.Tensor", x, product)


PRODUCTS: dict[str, Callable[..., Any]] = {
    "baddbmm.default": _baddbmm,
    "linear.default": _linear,
    "matmul.default": matmul,
    "reshape.default": reshape,
    "contiguous.default": contiguous,
    "flatten.using_ints": _flatten,
    "unflatten.int": _unflatten,
    "transpose.int": transpose,
    "t.default": lambda w, x: w.call("permute.default", x, [1, 0]),
    "squeeze.dim": lambda w, x, dim: w.call("squeeze.dims", x, [dim]),
}
