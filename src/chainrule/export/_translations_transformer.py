"""Torch-level calls of transformer code (x-transformers' attention, masks, rotary
embeddings and norms) as ATen overload calls (see ``_translations``): ``einsum``,
``unbind``, ``subtract``, ``full_like``, ``scaled_dot_product_attention``, ``any`` and
``all``, ``~``, ``reshape_as`` and ``F.normalize`` (a chain: the norm, clamped, expanded,
dividing), written with the arguments PyTorch's export writes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._translations_more import PREV, Chain

Call = tuple[str, list, dict]


def _einsum(equation: Any, *operands: Any) -> Call:
    """An equation (or the sublist format) and the operands, listed or not."""
    from ..ops.linalg.products import _sublist_equation

    if not isinstance(equation, str):
        equation, operands = _sublist_equation((equation, *operands))
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return "einsum.default", [equation, list(operands)], {}


def _unbind(input: Any, dim: int = 0) -> Call:
    return "unbind.int", [input] if dim == 0 else [input, dim], {}


def _subtract(input: Any, other: Any, *, alpha: Any = 1, out: Any = None) -> Call:
    return "subtract.Tensor", [input, other], {} if alpha == 1 else {"alpha": alpha}


def _full_like(input: Any, fill_value: Any, *, dtype: Any = None, **_: Any) -> Call:
    kwargs = {} if dtype is None else {"dtype": dtype}
    return "full_like.default", [input, fill_value], {**kwargs, "pin_memory": False}


def _sdpa(query: Any, key: Any, value: Any, attn_mask: Any = None, dropout_p: float = 0.0,
          is_causal: bool = False, scale: Any = None, enable_gqa: bool = False) -> Call:  # fmt: skip
    args = [query, key, value, attn_mask, dropout_p, is_causal]
    if not is_causal:  # (trailing arguments at their defaults left out)
        args.pop()
        if dropout_p == 0.0:
            args.pop()
            if attn_mask is None:
                args.pop()
    kwargs: dict = {} if scale is None else {"scale": scale}
    if enable_gqa:
        kwargs["enable_gqa"] = True
    return "scaled_dot_product_attention.default", args, kwargs


def _normalize(
    input: Any, p: Any = 2.0, dim: Any = 1, eps: float = 1e-12, out: Any = None
) -> Chain:
    dims = [dim] if isinstance(dim, int) else list(dim)
    return Chain(
        [
            ("linalg_vector_norm.default", [input, p, dims, True], {}),
            ("clamp_min.default", [PREV, eps], {}),
            ("expand_as.default", [PREV, input], {}),
            ("div.Tensor", [input, PREV], {}),
        ]
    )


def _any_all(op: str) -> Callable[..., Call]:
    """``any``/``all``: over everything, one dim (``.dim``) or several (``.dims``)."""

    def call(input: Any, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Call:
        if dim is None:
            return f"{op}.default", [input], {}
        overload = f"{op}.dim" if isinstance(dim, int) else f"{op}.dims"
        args = [input, dim if isinstance(dim, int) else list(dim)]
        return overload, args + [True] if keepdim else args, {}

    return call


TRANSFORMER: dict[str, Callable[..., Call]] = {
    "einsum": _einsum,
    "unbind": _unbind,
    "subtract": _subtract,
    "full_like": _full_like,
    "scaled_dot_product_attention": _sdpa,
    "normalize": _normalize,
    "any": _any_all("any"),
    "all": _any_all("all"),
    "__invert__": lambda input: ("bitwise_not.default", [input], {}),
    "reshape_as": lambda input, other: ("reshape_as.default", [input, other], {}),
}
