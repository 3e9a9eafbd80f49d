"""``torch._higher_order_ops.associative_scan``: the inclusive scan of an associative
``combine_fn`` along ``dim`` (``out_i = x_0 ∘ x_1 ∘ … ∘ x_i``).

As PyTorch's ``combine_mode="generic"``, the scan is the parallel one (pairs of neighbours
combined, the half-length scan of those, the even places filled from it), which associates
the terms as PyTorch does, so floating-point results round as PyTorch's; ``combine_fn``
sees single elements (it is vmapped over the slices). ``combine_mode="pointwise"`` is
PyTorch's compiled kernel, on CUDA or XPU only. It is built of ordinary ops: their
gradients are the scan's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._tensor import Tensor
from ..utils import _pytree as pytree

__all__ = ["associative_scan"]


def associative_scan(
    combine_fn: Callable[[Any, Any], Any],
    xs: Any,
    dim: int,
    reverse: bool = False,
    combine_mode: str = "pointwise",
) -> Any:
    """The inclusive scan of ``combine_fn`` over ``xs`` (a tensor or a pytree of them)
    along ``dim``."""
    from .. import flip, movedim
    from ..func import vmap

    leaves, spec = pytree.tree_flatten(xs)
    _validate(combine_fn, leaves, dim, reverse, combine_mode)
    dim = dim + leaves[0].dim() if dim < 0 else dim
    leaves = [movedim(t, dim, 0) for t in leaves]
    if reverse:
        leaves = [flip(t, [0]) for t in leaves]
    spec_dims = pytree.tree_unflatten([0] * len(leaves), spec)
    batched = vmap(combine_fn, in_dims=(spec_dims, spec_dims), out_dims=0)
    n = len(leaves)

    def combine(*flat: Tensor) -> list:
        if flat[0].shape[0] == 0:  # (no pairs: a scan's results are its elements' shapes)
            return [t[0:0] for t in flat[:n]]
        lhs = pytree.tree_unflatten(list(flat[:n]), spec)
        rhs = pytree.tree_unflatten(list(flat[n:]), spec)
        return pytree.tree_leaves(batched(lhs, rhs))

    out = _scan(combine, leaves)
    if reverse:
        out = [flip(t, [0]) for t in out]
    return pytree.tree_unflatten([movedim(t, 0, dim) for t in out], spec)


def _scan(combine: Callable, elems: list) -> list:
    """The parallel inclusive scan along dim 0 (recursive on halving lengths: depth
    log2(n))."""
    from .. import cat, stack

    length = elems[0].shape[0]
    if length < 2:
        return elems
    # neighbours combined: (x0∘x1, x2∘x3, ...), then their scan
    odd = _scan(combine, combine(*[e[0:-1:2] for e in elems], *[e[1::2] for e in elems]))
    # the even places after the first: each odd result combined with the next element
    if length % 2 == 0:
        even = combine(*[o[:-1] for o in odd], *[e[2::2] for e in elems])
    else:
        even = combine(*odd, *[e[2::2] for e in elems])
    even = [cat([e[0:1], r]) if r.numel() > 0 else e[0:1] for e, r in zip(elems, even)]
    out = []
    for a, b in zip(even, odd):  # interleaved: a0 b0 a1 b1 ...
        pairs = stack([a[: b.shape[0]], b], 1).flatten(0, 1)
        out.append(cat([pairs, a[b.shape[0] :]]) if a.shape[0] > b.shape[0] else pairs)
    return out


def _validate(fn: Any, leaves: list, dim: Any, reverse: Any, mode: Any) -> None:
    if not callable(fn):
        raise ValueError(f"Combine_fn must be a callable, but got {fn}")
    if not isinstance(dim, int):
        raise ValueError("Dim must be an int, but got " + str(type(dim)))
    if not isinstance(reverse, bool):
        raise RuntimeError("Reverse must be a bool, but got " + str(type(reverse)))
    if mode not in ("pointwise", "generic"):
        raise ValueError(f"Combine_mode must either 'pointwise' or 'generic', but got {mode}")
    if mode == "pointwise" and not all(
        isinstance(t, Tensor) and t.device.type in ("cuda", "xpu") for t in leaves
    ):
        raise ValueError(
            "For combine_mode='pointwise', all input tensors need to be on CUDA or XPU"
        )
    if not leaves:
        raise ValueError("Expected at least 1 xs leaf")
    if any(not isinstance(t, Tensor) for t in leaves):
        raise ValueError("xs leaves must be a Tensor")
    if any(t.is_sparse for t in leaves):
        raise ValueError("xs leaves must dense Tensors, consider using `to_dense()`")
    d = dim + leaves[0].dim() if dim < 0 else dim
    if any(t.dim() <= d or t.shape[d] == 0 for t in leaves):
        raise ValueError(
            "All xs leaves must at least have 'dim' number of dimensions and scan dimension > 0"
        )
