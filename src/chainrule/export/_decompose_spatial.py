"""``run_decompositions`` rules of the spatial layers PyTorch rewrites: transposed
convolutions (one ``convolution`` with ``transposed=True``), group norm
(``native_group_norm``), adaptive average pools (a ``mean`` over the pooled dimensions
for an output of ones, else ``_adaptive_avg_pool2d``/``3d``, 1-D ones through 2-D) and
the 1-D max pool (the 2-D ``max_pool2d_with_indices`` of an ``unsqueeze``-d input)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..fx import Node
from ._decompose import Writer


def _spread(value: Any, n: int) -> list[int]:
    """An int, or a one-element list, as ``n`` of it."""
    if isinstance(value, int):
        return [value] * n
    value = list(value)
    return value * n if len(value) == 1 else value


def _conv_transpose(n: int) -> Callable[..., Node]:
    def write(
        w: Writer,
        x: Node,
        weight: Node,
        bias: Node | None = None,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        dilation: Any = 1,
    ) -> Node:
        """``convolution(..., transposed=True, output_padding, groups)``, all given."""
        if isinstance(padding, str):
            raise NotImplementedError(
                "run_decompositions: a transposed convolution with string padding is not "
                "written yet; give the padding as numbers"
            )
        sizes = [_spread(v, n) for v in (stride, padding, dilation)]
        return w.call(
            "convolution.default", x, weight, bias, *sizes, True, _spread(output_padding, n), groups
        )

    return write


def _group_norm(
    w: Writer,
    x: Node,
    groups: int,
    weight: Node | None = None,
    bias: Node | None = None,
    eps: float = 1e-5,
    *_: Any,
) -> Node:
    """``native_group_norm(x, weight, bias, N, C, H*W..., groups, eps)``'s output."""
    shape = list(w.values[x].shape)
    spatial = math.prod(shape[2:])
    out = w.call(
        "native_group_norm.default", x, weight, bias, shape[0], shape[1], spatial, groups, eps
    )
    return out[0]


def _adaptive_avg_pool(n: int) -> Callable[..., Node]:
    def write(w: Writer, x: Node, size: Any) -> Node:
        """A ``mean`` over the last ``n`` dimensions (kept) for an output of ones, else
        ``_adaptive_avg_pool<n>d``."""
        size = _spread(size, n)
        if size == [1] * n:
            return w.call("mean.dim", x, [-d for d in range(1, n + 1)], True)
        return w.call(f"_adaptive_avg_pool{n}d.default", x, size)

    return write


def _through_2d(w: Writer, x: Node, pool: Callable[[Node], Any]) -> Any:
    """A 1-D pool as the 2-D ``pool`` of ``x`` with a height of one, then squeezed (each
    output: a pool with indices squeezes both)."""
    pooled = pool(w.call("unsqueeze.default", x, -2))
    if isinstance(pooled, list):
        return [w.call("squeeze.dims", p, [-2]) for p in pooled]
    return w.call("squeeze.dims", pooled, [-2])


def _adaptive_avg_pool1d(w: Writer, x: Node, size: Any) -> Node:
    return _through_2d(w, x, lambda u: _adaptive_avg_pool(2)(w, u, [1, *_spread(size, 1)]))


def _max_pool1d_args(
    kernel: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False
) -> list:
    """The 2-D arguments of a 1-D max pool: the stride the kernel where not given."""
    kernel = _spread(kernel, 1)
    stride = _spread(stride, 1) if stride not in ((), []) else kernel
    return [
        [1, *kernel],
        [1, *stride],
        [0, *_spread(padding, 1)],
        [1, *_spread(dilation, 1)],
        ceil_mode,
    ]


def _max_pool1d_pooled(w: Writer, x: Node, *args: Any) -> list[Node]:
    """Both outputs of the 2-D pool, as many of its arguments given as the call gave (the
    kernel and the stride always)."""
    given = _max_pool1d_args(*args)[: max(len(args), 2)]
    return _through_2d(w, x, lambda u: w.call("max_pool2d_with_indices.default", u, *given))


def _max_pool1d(w: Writer, x: Node, *args: Any) -> Node:
    return _max_pool1d_pooled(w, x, *args)[0]


SPATIAL: dict[str, Callable[..., Any]] = {
    "conv_transpose1d.default": _conv_transpose(1),
    "conv_transpose2d.input": _conv_transpose(2),
    "conv_transpose3d.input": _conv_transpose(3),
    "group_norm.default": _group_norm,
    "adaptive_avg_pool1d.default": _adaptive_avg_pool1d,
    "adaptive_avg_pool2d.default": _adaptive_avg_pool(2),
    "adaptive_avg_pool3d.default": _adaptive_avg_pool(3),
    "max_pool1d.default": _max_pool1d,
}
