"""The flop formulas, by the aten op PyTorch names, and the helpers that print counts.

A formula takes the shapes of an op's tensor arguments (its other arguments as they are)
and the shape of its result (``out_shape``) and returns the op's floating-point operations:
2 per multiply-add, as PyTorch counts them. ``flop_registry`` maps each op to its formula;
ops not in it count nothing. chainrule has no ``torch.ops.aten``: ops are named by
``OpOverloadPacket`` stand-ins from the namespace ``aten`` here (``aten.mm``), which print
as PyTorch's do.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import wraps
from typing import Any, TypeVar

from ..._tensor import Tensor

_T = TypeVar("_T")
_Shape = Sequence[int]  # a tensor's shape: a Size, a tuple or a list

__all__ = ["register_flop_formula"]


# ----- the ops' names ----------------------------------------------------------------------


class OpOverloadPacket:
    """The name of an aten op, standing in for PyTorch's ``torch.ops.aten.<name>``: one
    object per name, printed as PyTorch prints it (``aten.mm``)."""

    __slots__ = ("_qualified_op_name", "__name__")

    def __init__(self, qualified_name: str) -> None:
        self._qualified_op_name = qualified_name  # "aten::mm", as PyTorch's
        self.__name__ = qualified_name.split("::")[-1]

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='{self}')>"

    def __str__(self) -> str:
        return self._qualified_op_name.replace("::", ".")


class _Namespace:
    """``aten.<name>``: the one OpOverloadPacket of each name."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._packets: dict[str, OpOverloadPacket] = {}

    def __getattr__(self, op: str) -> OpOverloadPacket:
        if op.startswith("__"):
            raise AttributeError(op)
        packet = self._packets.get(op)
        if packet is None:
            packet = self._packets[op] = OpOverloadPacket(f"{self._name}::{op}")
        return packet

    def __repr__(self) -> str:
        return f"'torch.ops.{self._name}'"


aten = _Namespace("aten")


# ----- shapes --------------------------------------------------------------------------------


def get_shape(i: Any) -> Any:
    """A tensor's shape; anything else as it is."""
    return i.shape if isinstance(i, Tensor) else i


def _tree_map(fn: Callable, tree: Any) -> Any:
    """``fn`` applied to each leaf of nested tuples, lists and dicts."""
    if isinstance(tree, (tuple, list)) and not hasattr(tree, "numel"):
        return type(tree)(_tree_map(fn, x) for x in tree)
    if isinstance(tree, dict):
        return {k: _tree_map(fn, v) for k, v in tree.items()}
    return fn(tree)


def shape_wrapper(f: Callable) -> Callable:
    """``f`` called with every tensor argument, and the result ``out_val``, as its shape
    (``out_shape``)."""

    @wraps(f)
    def nf(*args: Any, out_val: Any = None, **kwargs: Any) -> Any:
        args, kwargs, out_shape = _tree_map(get_shape, (args, kwargs, out_val))
        return f(*args, out_shape=out_shape, **kwargs)

    return nf


def normalize_tuple(x: Any) -> tuple:
    """``x`` if it is a tuple, else ``(x,)``."""
    return x if isinstance(x, tuple) else (x,)


# ----- the registry --------------------------------------------------------------------------

flop_registry: dict[Any, Callable] = {}


def register_flop_formula(targets: Any, get_raw: bool = False) -> Callable[[_T], _T]:
    """A decorator registering a flop formula for each op in ``targets`` (one op or a list
    of them); the formula gets shapes (it is returned wrapped by ``shape_wrapper``), or
    with ``get_raw`` the arguments as they come."""

    def register_fun(flop_formula: _T) -> _T:
        formula = flop_formula if get_raw else shape_wrapper(flop_formula)

        def register(target: Any) -> None:
            if not isinstance(target, OpOverloadPacket):
                raise ValueError(
                    "register_flop_formula(targets): expected each target to be "
                    "OpOverloadPacket (i.e. torch.ops.mylib.foo), JitFunction, or "
                    f"HigherOrderOperator, got {target} which is of type {type(target)}"
                )
            if target in flop_registry:
                raise RuntimeError(f"duplicate registrations for {target}")
            flop_registry[target] = formula

        for target in targets if isinstance(targets, (list, tuple)) else (targets,):
            register(target)
        return formula

    return register_fun


# ----- the formulas --------------------------------------------------------------------------


def _mm_count(a_shape: _Shape, b_shape: _Shape) -> int:
    """(m, k) @ (k, n): 2·m·n·k."""
    m, k = a_shape
    k2, n = b_shape
    assert k == k2, f"matmul: inner dimensions must match (k == k2), got {k} and {k2}"
    return m * n * 2 * k


def _bmm_count(a_shape: _Shape, b_shape: _Shape) -> int:
    """(b, m, k) @ (b, k, n): b·2·m·n·k."""
    b, m, k = a_shape
    b2, k2, n = b_shape
    assert b == b2, f"bmm: batch dimensions must match (b == b2), got {b} and {b2}"
    assert k == k2, f"bmm: inner dimensions must match (k == k2), got {k} and {k2}"
    return b * m * n * 2 * k


@register_flop_formula(aten.mm)
def mm_flop(
    a_shape: _Shape, b_shape: _Shape, *args: Any, out_shape: Any = None, **kwargs: Any
) -> int:
    """Count flops for matmul: (m, k) @ (k, n) is 2·m·n·k."""
    return _mm_count(a_shape, b_shape)


@register_flop_formula(aten.addmm)
def addmm_flop(
    self_shape: _Shape, a_shape: _Shape, b_shape: _Shape, out_shape: Any = None, **kwargs: Any
) -> int:
    """Count flops for addmm: the product's (the addition is not counted)."""
    return _mm_count(a_shape, b_shape)


@register_flop_formula(aten.bmm)
def bmm_flop(a_shape: _Shape, b_shape: _Shape, out_shape: Any = None, **kwargs: Any) -> int:
    """Count flops for the bmm operation: b·(2·m·n·k) for (b, m, k) @ (b, k, n)."""
    return _bmm_count(a_shape, b_shape)


@register_flop_formula(aten.baddbmm)
def baddbmm_flop(
    self_shape: _Shape, a_shape: _Shape, b_shape: _Shape, out_shape: Any = None, **kwargs: Any
) -> int:
    """Count flops for the baddbmm operation: the batched product's."""
    return _bmm_count(a_shape, b_shape)


def conv_flop_count(
    x_shape: _Shape, w_shape: _Shape, out_shape: _Shape, transposed: bool = False
) -> int:
    """Count flops for convolution: 2 per multiply-add of each weight entry with each input
    position it meets, 2·N·prod(w_shape)·prod(spatial sizes), the spatial sizes being the
    output's (the input's for a transposed convolution)."""
    batch = x_shape[0]
    spatial = (x_shape if transposed else out_shape)[2:]
    return 2 * batch * math.prod(w_shape) * math.prod(spatial)


@register_flop_formula(
    [
        aten.convolution,
        aten._convolution,
        aten.cudnn_convolution,
        aten.convolution_overrideable,
        aten._slow_conv2d_forward,
    ]
)
def conv_flop(
    x_shape: _Shape,
    w_shape: _Shape,
    _bias: Any,
    _stride: Any,
    _padding: Any,
    _dilation: Any,
    transposed: bool,
    *args: Any,
    out_shape: Any = None,
    **kwargs: Any,
) -> int:
    """Count flops for convolution."""
    return conv_flop_count(x_shape, w_shape, out_shape, transposed=transposed)


@register_flop_formula(aten.convolution_backward)
def conv_backward_flop(
    grad_out_shape: _Shape,
    x_shape: _Shape,
    w_shape: _Shape,
    _bias: Any,
    _stride: Any,
    _padding: Any,
    _dilation: Any,
    transposed: bool,
    _output_padding: Any,
    _groups: int,
    output_mask: Sequence[bool],
    out_shape: Any,
) -> int:
    """Count flops for convolution's backward: for the input's gradient, the transposed
    convolution of grad_out by the weight; for the weight's, the convolution of the input by
    grad_out over the batch (every channel with every channel, whatever the groups)."""
    flop_count = 0
    if output_mask[0]:
        flop_count += conv_flop_count(grad_out_shape, w_shape, out_shape[0], not transposed)
    if output_mask[1]:
        batch, channels_x, channels_out = x_shape[0], x_shape[1], grad_out_shape[1]
        spatial = (x_shape if transposed else grad_out_shape)[2:]
        kernel = out_shape[1][2:]
        flop_count += 2 * batch * channels_x * channels_out * math.prod(kernel) * math.prod(spatial)
    return flop_count


def sdpa_flop_count(query_shape: _Shape, key_shape: _Shape, value_shape: _Shape) -> int:
    """Count flops for self-attention: the scores q kᵀ and their product with v, as bmm's
    over the batch and heads."""
    b, h, s_q, d_q = query_shape
    _b2, _h2, s_k, _d2 = key_shape
    _b3, _h3, _s3, d_v = value_shape
    assert b == _b2 == _b3 and h == _h2 == _h3 and d_q == _d2 and s_k == _s3, (
        "sdpa_flop_count: query/key/value shapes are incompatible: "
        f"q={query_shape}, k={key_shape}, v={value_shape}"
    )
    total = _bmm_count((b * h, s_q, d_q), (b * h, d_q, s_k))  # scores = q kᵀ
    total += _bmm_count((b * h, s_q, s_k), (b * h, s_k, d_v))  # out = scores v
    return total


@register_flop_formula(
    [
        aten._scaled_dot_product_efficient_attention,
        aten._scaled_dot_product_flash_attention,
        aten._scaled_dot_product_cudnn_attention,
    ]
)
def sdpa_flop(
    query_shape: _Shape,
    key_shape: _Shape,
    value_shape: _Shape,
    *args: Any,
    out_shape: Any = None,
    **kwargs: Any,
) -> int:
    """Count flops for self-attention."""
    return sdpa_flop_count(query_shape, key_shape, value_shape)


def sdpa_backward_flop_count(
    grad_out_shape: _Shape, query_shape: _Shape, key_shape: _Shape, value_shape: _Shape
) -> int:
    """Count flops for self-attention's backward: the scores again, the gradients of v and
    of the scores, and those of q and k."""
    b, h, s_q, d_q = query_shape
    _b2, _h2, s_k, _d2 = key_shape
    _b3, _h3, _s3, d_v = value_shape
    _b4, _h4, _s4, _d4 = grad_out_shape
    assert (
        b == _b2 == _b3 == _b4
        and h == _h2 == _h3 == _h4
        and d_q == _d2
        and d_v == _d4
        and s_k == _s3
        and s_q == _s4
    ), "sdpa_backward_flop_count: grad_out/value/key/query shapes are incompatible"
    bh = b * h
    scores = _bmm_count((bh, s_q, d_q), (bh, d_q, s_k))  # q kᵀ, and each of dq, dk
    out = _bmm_count((bh, s_q, s_k), (bh, s_k, d_v))  # dv = Pᵀ g, dP = g vᵀ
    return 3 * scores + 2 * out


@register_flop_formula(
    [
        aten._scaled_dot_product_efficient_attention_backward,
        aten._scaled_dot_product_flash_attention_backward,
        aten._scaled_dot_product_cudnn_attention_backward,
    ]
)
def sdpa_backward_flop(
    grad_out_shape: _Shape,
    query_shape: _Shape,
    key_shape: _Shape,
    value_shape: _Shape,
    *args: Any,
    out_shape: Any = None,
    **kwargs: Any,
) -> int:
    """Count flops for self-attention backward."""
    return sdpa_backward_flop_count(grad_out_shape, query_shape, key_shape, value_shape)


# ----- printing counts -----------------------------------------------------------------------

suffixes = ["", "K", "M", "B", "T"]


def get_suffix_str(number: float) -> str:
    """The suffix for printing ``number``: one step (K, M, B, T) per three digits past the
    fourth."""
    index = max(0, min(len(suffixes) - 1, (len(str(number)) - 2) // 3))
    return suffixes[index]


def convert_num_with_suffix(number: float, suffix: str) -> str:
    """``number`` in units of ``suffix``, to three decimals (``12.346M``)."""
    index = suffixes.index(suffix)
    return f"{number / 1000**index:.3f}" + suffix


def convert_to_percent_str(num: float, denom: float) -> str:
    """``num / denom`` as a percentage to two decimals; ``0%`` when denom is 0."""
    if denom == 0:
        return "0%"
    return f"{num / denom:.2%}"
