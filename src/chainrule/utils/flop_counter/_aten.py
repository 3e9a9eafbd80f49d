"""chainrule's op calls as the aten calls PyTorch makes for them, forward and backward.

chainrule runs ``matmul`` as one op where PyTorch's decomposes it into ``mm``, ``bmm``,
``mv`` or ``dot`` (which one depends on the ranks, on which operands require grad and on
their strides), and runs a node's backward on arrays where PyTorch's calls aten ops. So
the counter asks this module, for each op call, which aten calls PyTorch would make: in
forward (``forward_calls``) and, for the node the call records, in its backward (the
gradient products of the inputs that require grad).

A call is ``(op, args, out_shape)``: an ``aten`` packet, the arguments a flop formula
takes (shapes for tensors) and the result's shape.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from ..._tensor import Size, Tensor
from ._formulas import aten


class Call(NamedTuple):
    op: Any  # an OpOverloadPacket
    args: tuple
    out_shape: Any


class _Operand(NamedTuple):
    """What matmul's decomposition looks at in an operand."""

    shape: tuple
    strides: tuple
    requires_grad: bool


def _operand(t: Tensor) -> _Operand:
    return _Operand(tuple(t.shape), tuple(t.stride()), bool(t.requires_grad))


def _contiguous(shape: tuple, requires_grad: bool) -> _Operand:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return _Operand(tuple(shape), tuple(reversed(strides)), requires_grad)


def _mT(x: _Operand) -> _Operand:  # noqa: N802 - the math's name
    s, st = x.shape, x.strides
    return _Operand(s[:-2] + (s[-1], s[-2]), st[:-2] + (st[-1], st[-2]), x.requires_grad)


# ----- products and their gradients -------------------------------------------------------


def _product(op: Any, a: tuple, b: tuple, out: tuple) -> Call:
    return Call(op, (Size(a), Size(b)), Size(out))


def _mm_grads(op: Any, a: tuple, b: tuple, grads: tuple[bool, bool]) -> list[Call]:
    """The backward of ``a @ b`` (mm or bmm): G bᵀ for a, aᵀ G for b, where required."""
    out = a[:-1] + b[-1:]
    calls = []
    if grads[0]:
        calls.append(_product(op, out, b[:-2] + (b[-1], b[-2]), a))
    if grads[1]:
        calls.append(_product(op, a[:-2] + (a[-1], a[-2]), out, b))
    return calls


class Plan(NamedTuple):
    """A call's aten calls in forward and in its node's backward."""

    forward: list
    backward: list


def _mm_plan(op: Any, a: tuple, b: tuple, grads: tuple[bool, bool]) -> Plan:
    return Plan([_product(op, a, b, a[:-1] + b[-1:])], _mm_grads(op, a, b, grads))


def _folds(t1: _Operand, t2: _Operand, first_is_t1: bool) -> bool:
    """Whether PyTorch's matmul folds the larger operand ``t1`` (the first operand, or the
    second transposed) into a matrix, for mm or mv: when the other operand requires grad,
    or when the fold needs no copy (t1 contiguous in its batch dims, and the first operand
    not a matrix)."""
    if not (len(t1.shape) >= 3 and len(t2.shape) <= 2):
        return False
    if t2.requires_grad:
        return True
    if not first_is_t1 and len(t2.shape) == 2:
        return False
    if math.prod(t1.shape) == 0:
        return True
    s, st = t1.shape, t1.strides
    return all(st[i] == st[i + 1] * s[i + 1] for i in range(len(s) - 2))


def _squeeze_unit_batch(a: _Operand, b: _Operand) -> tuple[_Operand, _Operand]:
    """Two 3-D operands, one of batch 1 and the other not: the first as a matrix."""
    if len(a.shape) == 3 and len(b.shape) == 3:
        if a.shape[0] == 1 and b.shape[0] != 1:
            a = _Operand(a.shape[1:], a.strides[1:], a.requires_grad)
        elif b.shape[0] == 1 and a.shape[0] != 1:
            b = _Operand(b.shape[1:], b.strides[1:], b.requires_grad)
    return a, b


def matmul_plan(a: _Operand, b: _Operand) -> Plan:
    """PyTorch's matmul of ``a`` and ``b`` as its aten calls: dot, mv, mm (of a matrix, of
    a vector as a row, or of the larger operand folded into a matrix) or bmm (of the batch
    dims broadcast and flattened)."""
    a, b = _squeeze_unit_batch(a, b)
    da, db = len(a.shape), len(b.shape)
    grads = (a.requires_grad, b.requires_grad)
    if da == 1 and db == 1:
        return Plan([_product(aten.dot, a.shape, b.shape, ())], [])
    if da == 2 and db == 1:
        return Plan([_product(aten.mv, a.shape, b.shape, a.shape[:1])], [])
    if da == 1 and db == 2:
        return _mm_plan(aten.mm, (1,) + a.shape, b.shape, grads)
    if da == 2 and db == 2:
        return _mm_plan(aten.mm, a.shape, b.shape, grads)
    if da >= db and _folds(a, b, True):
        return _folded(a, b, grads)
    if db > da and _folds(_mT(b), a, False):
        t2 = a.shape if da == 1 else (a.shape[1], a.shape[0])
        return _folded(_mT(b), _Operand(t2, (), a.requires_grad), grads[::-1])
    return _batched(a, b, grads)


def _folded(t1: _Operand, t2: _Operand, grads: tuple[bool, bool]) -> Plan:
    """mm (or mv) of t1 folded to (rows, k) and t2."""
    rows = (math.prod(t1.shape[:-1]), t1.shape[-1])
    if len(t2.shape) == 1:
        return Plan([_product(aten.mv, rows, t2.shape, rows[:1])], [])
    return _mm_plan(aten.mm, rows, t2.shape, grads)


def _batched(a: _Operand, b: _Operand, grads: tuple[bool, bool]) -> Plan:
    """bmm of the operands expanded to one batch, flattened (a vector as a row or a
    column)."""
    sa = a.shape if len(a.shape) > 1 else (1,) + a.shape
    sb = b.shape if len(b.shape) > 1 else b.shape + (1,)
    batch = math.prod(_broadcast(sa[:-2], sb[:-2]))
    return _mm_plan(aten.bmm, (batch,) + sa[-2:], (batch,) + sb[-2:], grads)


def _broadcast(s: tuple, t: tuple) -> tuple:
    n = max(len(s), len(t))
    s, t = (1,) * (n - len(s)) + s, (1,) * (n - len(t)) + t
    return tuple(max(x, y) if min(x, y) != 0 else 0 for x, y in zip(s, t))


def _joined(*plans: Plan) -> Plan:
    return Plan([c for p in plans for c in p.forward], [c for p in plans for c in p.backward])


# ----- the ops ----------------------------------------------------------------------------


def _plan_matmul(inputs: tuple, params: dict, out: Any) -> Plan:
    return matmul_plan(_operand(inputs[0]), _operand(inputs[1]))


def _plan_mm(inputs: tuple, params: dict, out: Any) -> Plan:
    a, b = inputs
    grads = (a.requires_grad, b.requires_grad)
    return _mm_plan(aten.mm if a.ndim == 2 else aten.bmm, tuple(a.shape), tuple(b.shape), grads)


def _plan_addmm(inputs: tuple, params: dict, out: Any) -> Plan:
    """addmm (baddbmm): the product's gradients by mm (bmm) in backward."""
    x, a, b = inputs
    three_d = a.ndim == 3
    op, grad_op = (aten.baddbmm, aten.bmm) if three_d else (aten.addmm, aten.mm)
    sa, sb = tuple(a.shape), tuple(b.shape)
    forward = Call(op, (Size(x.shape), Size(sa), Size(sb)), Size(sa[:-1] + sb[-1:]))
    return Plan([forward], _mm_grads(grad_op, sa, sb, (a.requires_grad, b.requires_grad)))


def _tuple(v: Any, n: int) -> list:
    return list(v) * (n if len(v) == 1 else 1) if isinstance(v, (tuple, list)) else [v] * n


def _plan_convolution(inputs: tuple, params: dict, out: Any) -> Plan:
    """convolution forward; convolution_backward with PyTorch's output_mask: which of
    input, weight and bias require grad."""
    x, w = inputs[0], inputs[1]
    bias = inputs[2] if len(inputs) > 2 else None
    n = x.ndim - 2
    stride = _tuple(params.get("stride", 1), n)
    padding = _tuple(params.get("padding", 0), n)
    dilation = _tuple(params.get("dilation", 1), n)
    output_padding = _tuple(params.get("output_padding", 0), n)
    transposed = bool(params.get("transposed", False))
    groups = params.get("groups", 1)
    bias_shape = None if bias is None else Size(bias.shape)
    settings = (stride, padding, dilation, transposed, output_padding, groups)
    forward = Call(aten.convolution, (Size(x.shape), Size(w.shape), bias_shape, *settings),
                   Size(out.shape))  # fmt: skip
    mask = [x.requires_grad, w.requires_grad, bias is not None and bias.requires_grad]
    if not any(mask):
        return Plan([forward], [])
    grad_shapes = (
        Size(x.shape) if mask[0] else None,
        Size(w.shape) if mask[1] else None,
        bias_shape if mask[2] else None,
    )
    bias_sizes = None if bias is None else [bias.shape[0]]
    backward = Call(
        aten.convolution_backward,
        (Size(out.shape), Size(x.shape), Size(w.shape), bias_sizes, *settings, mask),
        grad_shapes,
    )
    return Plan([forward], [backward])


def _plan_attention(inputs: tuple, params: dict, out: Any) -> Plan:
    """PyTorch's CPU kernel where it takes its fused one (named, counted by no formula),
    else its math: matmul(q·scale, kᵀ), softmax, matmul(P, v)."""
    q, k, v = inputs[:3]
    bias = inputs[3] if len(inputs) > 3 else None
    if params.get("fused"):
        shapes = (Size(q.shape), Size(k.shape), Size(v.shape))
        op = aten._scaled_dot_product_flash_attention_for_cpu
        backward = aten._scaled_dot_product_flash_attention_for_cpu_backward
        needs_grad = q.requires_grad or k.requires_grad or v.requires_grad
        return Plan(
            [Call(op, shapes, Size(out.shape))],
            [Call(backward, (Size(out.shape), *shapes), shapes)] if needs_grad else [],
        )
    qs = _contiguous(tuple(q.shape), q.requires_grad)
    kt = _mT(_contiguous(tuple(k.shape), k.requires_grad))
    batch = _broadcast(tuple(q.shape[:-2]), tuple(k.shape[:-2]))
    p_grad = q.requires_grad or k.requires_grad or (bias is not None and bias.requires_grad)
    p = _contiguous(batch + (q.shape[-2], k.shape[-2]), p_grad)
    return _joined(matmul_plan(qs, kt), matmul_plan(p, _operand(v)))


PLANNERS = {
    "matmul": _plan_matmul,
    "mm": _plan_mm,
    "bmm": _plan_mm,
    "addmm": _plan_addmm,
    "baddbmm": _plan_addmm,
    "convolution": _plan_convolution,
    "scaled_dot_product_attention": _plan_attention,
}
