"""More torch-level calls as ATen overload calls (see ``_translations``; dtype casts are
in ``_translations_casts``): cumulative sums, padding, transposed and 1-d/3-d
convolutions and pools, group norm, more activations and elementwise functions, flips and
rolls."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._translations_more import trim

Call = tuple[str, list, dict]


def _cumsum(input: Any, dim: int, *, dtype: Any = None, out: Any = None) -> Call:
    return "cumsum.default", [input, dim], ({} if dtype is None else {"dtype": dtype})


def _pad(input: Any, pad: Any, mode: str = "constant", value: Any = None) -> Call:
    args = [input, list(pad)]
    if mode != "constant" or value is not None:
        args.append(mode)
    if value is not None:
        args.append(value)
    return "pad.default", args, {}


def _n(value: Any, n: int) -> list:
    return [value] * n if isinstance(value, int) else list(value)


def _conv(n: int) -> Callable[..., Call]:
    def call(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
             dilation: Any = 1, groups: int = 1) -> Call:  # fmt: skip
        if isinstance(padding, str):
            raise NotImplementedError(
                f"chainrule.export cannot export conv{n}d with padding={padding!r}"
            )
        args = [input, weight, bias, _n(stride, n), _n(padding, n), _n(dilation, n), groups]
        return f"conv{n}d.default", trim(args, [None, [1] * n, [0] * n, [1] * n, 1]), {}

    return call


def _conv_transpose(n: int) -> Callable[..., Call]:
    def call(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
             output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Call:  # fmt: skip
        args = [input, weight, bias, _n(stride, n), _n(padding, n), _n(output_padding, n),
                groups, _n(dilation, n)]  # fmt: skip
        defaults = [None, [1] * n, [0] * n, [0] * n, 1, [1] * n]
        return f"conv_transpose{n}d.{'default' if n == 1 else 'input'}", trim(args, defaults), {}

    return call


def _pool(kind: str, n: int) -> Callable[..., Call]:
    def call(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
             *rest: Any, **options: Any) -> Call:  # fmt: skip
        strides = [] if stride is None else _n(stride, n)
        head = [input, _n(kernel_size, n), strides, _n(padding, n)]
        if kind == "max":
            dilation = rest[0] if rest else options.get("dilation", 1)
            ceil = rest[1] if len(rest) > 1 else options.get("ceil_mode", False)
            if rest[2] if len(rest) > 2 else options.get("return_indices", False):
                raise NotImplementedError(
                    f"chainrule.export cannot export max_pool{n}d with indices"
                )
            args = head + [_n(dilation, n), ceil]
            return f"max_pool{n}d.default", trim(args, [[], [0] * n, [1] * n, False]), {}
        names = ["ceil_mode", "count_include_pad", "divisor_override"]
        values = [False, True, None]
        for i, name in enumerate(names):
            values[i] = rest[i] if len(rest) > i else options.get(name, values[i])
        if n == 1:
            args = head + values[:2]
            return "avg_pool1d.default", trim(args, [[], [0], False, True]), {}
        return f"avg_pool{n}d.default", trim(head + values, [[], [0] * n, False, True, None]), {}

    return call


def _adaptive(kind: str, n: int) -> Callable[..., Call]:
    def call(input: Any, output_size: Any, return_indices: bool = False) -> Call:
        if return_indices:
            raise NotImplementedError("chainrule.export cannot export an adaptive pool's indices")
        return f"adaptive_{kind}_pool{n}d.default", [input, _n(output_size, n)], {}

    return call


def _group_norm(input: Any, num_groups: int, weight: Any = None, bias: Any = None,
                eps: float = 1e-5) -> Call:  # fmt: skip
    # F.group_norm passes every argument (cudnn off on CPU)
    return "group_norm.default", [input, num_groups, weight, bias, eps, False], {}


def _unary(op: str) -> Callable[..., Call]:
    return lambda input, *_, **__: (f"{op}.default", [input], {})


def _flip(input: Any, *dims: Any) -> Call:
    return "flip.default", [input, _n(dims[0], 1) if len(dims) == 1 else list(dims)], {}


def _roll(input: Any, shifts: Any, dims: Any = None) -> Call:
    args = [input, _n(shifts, 1)] + ([] if dims is None else [_n(dims, 1)])
    return "roll.default", args, {}


def _floor_divide(input: Any, other: Any) -> Call:
    return "div.Tensor_mode", [input, other], {"rounding_mode": "floor"}


def _diagonal(input: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Call:
    return "diagonal.default", trim([input, offset, dim1, dim2], [0, 0, 1]), {}


def _triangle(op: str) -> Callable[..., Call]:
    return lambda input, diagonal=0: (f"{op}.default", trim([input, diagonal], [0]), {})


EXTRA: dict[str, Callable[..., Any]] = {
    "cumsum": _cumsum,
    "pad": _pad,
    "conv1d": _conv(1),
    "conv3d": _conv(3),
    "conv_transpose1d": _conv_transpose(1),
    "conv_transpose2d": _conv_transpose(2),
    "conv_transpose3d": _conv_transpose(3),
    "max_pool1d": _pool("max", 1),
    "max_pool3d": _pool("max", 3),
    "avg_pool1d": _pool("avg", 1),
    "avg_pool3d": _pool("avg", 3),
    "adaptive_avg_pool1d": _adaptive("avg", 1),
    "adaptive_avg_pool3d": _adaptive("avg", 3),
    "group_norm": _group_norm,
    "hardswish": _unary("hardswish"),
    "hardsigmoid": _unary("hardsigmoid"),
    "mish": _unary("mish"),
    "flip": _flip,
    "roll": _roll,
    "floor_divide": _floor_divide,
    "__floordiv__": _floor_divide,
    "diagonal": _diagonal,
    "tril": _triangle("tril"),
    "triu": _triangle("triu"),
    "detach": _unary("detach"),
    "index_select": lambda input, dim, index: ("index_select.default", [input, dim, index], {}),
}
