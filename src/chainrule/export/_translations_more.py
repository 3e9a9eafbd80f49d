"""More torch-level calls as ATen overload calls (see ``_translations``): comparisons,
clamps and selections, reductions with indices, more activations, in-place arithmetic
(kept in place, as PyTorch's training IR keeps it), splits, expands, losses, and
indexing (``x[1:, 0]``, ``x[idx]``), which becomes a chain of ``slice``/``select``/
``unsqueeze`` nodes or one ``index.Tensor``."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from ._translations_factories import FACTORY_CALLS
from ._translations_factories import size_list as _size_list

Call = tuple[str, list, dict]
_END = 9223372036854775807  # what PyTorch writes for an open slice end


class _Prev:
    """In a chain of calls: the result of the call before."""

    def __repr__(self) -> str:
        return "PREV"


PREV = _Prev()


class Step:
    """In a chain of calls: the result of call ``index`` of the chain."""

    def __init__(self, index: int) -> None:
        self.index = index

    def __repr__(self) -> str:
        return f"Step({self.index})"


class Chain(list):
    """Calls written one after the other for one torch-level call; ``results`` are the
    indices of the calls giving the call's tensors, in order (the last call's, if none)."""

    def __init__(self, calls: list, results: list[int] | None = None) -> None:
        super().__init__(calls)
        self.results = results


# the recorder of the export in progress, for a translation that writes a node of its
# own before its call's (a cast's metadata check, attention's weight splits)
_RECORDERS: list[Any] = []


@contextlib.contextmanager
def recording(recorder: Any) -> Iterator[None]:
    """While open, ``current_recorder()`` is ``recorder``."""
    _RECORDERS.append(recorder)
    try:
        yield
    finally:
        _RECORDERS.pop()


class FullEnd(int):
    """The end of a full ``:`` written as a ``slice`` node on a dynamic dim (PyTorch's
    INT64_MAX): marks the node, which the traces at grown sizes did not write."""


def current_recorder() -> Any:
    """The recorder of the export in progress, or None."""
    return _RECORDERS[-1] if _RECORDERS else None


def _is_tensor(value: Any) -> bool:
    from chainrule import Tensor

    return isinstance(value, Tensor)


def trim(args: list, defaults: list) -> list:
    """``args`` without the trailing ones equal to their defaults (``defaults`` lines up
    with the last ``len(defaults)`` arguments): what PyTorch leaves out of a call."""
    args = list(args)
    first = len(args) - len(defaults)
    while len(args) > first and args[-1] == defaults[len(args) - 1 - first]:
        args.pop()
    return args


def _dims(dim: Any) -> list:
    return [dim] if isinstance(dim, int) else list(dim)


def _compare(op: str) -> Callable[..., Call]:
    def call(input: Any, other: Any, *, out: Any = None) -> Call:
        return f"{op}.{'Tensor' if _is_tensor(other) else 'Scalar'}", [input, other], {}

    return call


def _bitwise(op: str) -> Callable[..., Call]:
    def call(input: Any, other: Any) -> Call:
        return f"{op}.{'Tensor' if _is_tensor(other) else 'Scalar'}", [input, other], {}

    return call


def _inplace(op: str) -> Callable[..., Call]:
    def call(input: Any, other: Any, *, alpha: Any = 1) -> Call:
        return f"{op}.Tensor", [input, other], {} if alpha == 1 else {"alpha": alpha}

    return call


def _clamp(input: Any, min: Any = None, max: Any = None) -> Call:
    overload = "Tensor" if _is_tensor(min) or _is_tensor(max) else "default"
    return f"clamp.{overload}", trim([input, min, max], [None, None]), {}


def _extreme(op: str) -> Callable[..., Call]:
    """``max``/``min``: of all elements, along a dim (values and indices), or of two."""

    def call(input: Any, dim: Any = None, keepdim: bool = False) -> Call:
        if dim is None:
            return f"{op}.default", [input], {}
        if _is_tensor(dim):
            return f"{op}.other", [input, dim], {}
        return f"{op}.dim", trim([input, dim, keepdim], [False]), {}

    return call


def _amax(op: str) -> Callable[..., Call]:
    def call(input: Any, dim: Any = (), keepdim: bool = False) -> Call:
        return f"{op}.default", trim([input, _dims(dim), keepdim], [[], False]), {}

    return call


def _argmax(op: str) -> Callable[..., Call]:
    def call(input: Any, dim: int | None = None, keepdim: bool = False) -> Call:
        return f"{op}.default", trim([input, dim, keepdim], [None, False]), {}

    return call


def _spread(op: str) -> Callable[..., Call]:
    """``var``/``std`` as PyTorch's export writes them: ``.dim`` with a dim and
    ``unbiased``, ``.default`` with ``unbiased`` alone, ``.correction`` otherwise."""

    def call(
        input: Any,
        dim: Any = None,
        unbiased: Any = None,
        keepdim: bool = False,
        *,
        correction: Any = None,
    ) -> Call:
        if isinstance(dim, bool):
            dim, unbiased = None, dim
        if correction is None and dim is not None:
            flag = True if unbiased is None else unbiased
            return f"{op}.dim", trim([input, _dims(dim), flag, keepdim], [True, False]), {}
        if dim is None and unbiased is None and correction is None and not keepdim:
            return f"{op}.correction", [input], {}
        if correction is None and unbiased is not None:  # (no dim: ``x.var(unbiased=False)``)
            if keepdim:
                return f"{op}.dim", [input, None, unbiased, True], {}
            return f"{op}.default", trim([input, unbiased], [True]), {}
        kwargs = {"correction": correction} if correction is not None else {}
        if keepdim:
            kwargs["keepdim"] = True
        return f"{op}.correction", [input] + ([] if dim is None else [_dims(dim)]), kwargs

    return call


def _prod(input: Any, dim: int | None = None, keepdim: bool = False, *, dtype: Any = None) -> Call:
    kwargs = {} if dtype is None else {"dtype": dtype}
    if dim is None:
        return "prod.default", [input], kwargs
    return "prod.dim_int", trim([input, dim, keepdim], [False]), kwargs


def _norm(
    input: Any, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Any = None
) -> Call:
    if p not in ("fro", 2, 2.0) and not isinstance(p, (int, float)):
        raise NotImplementedError(f"chainrule.export cannot export norm with p={p!r}")
    ord_ = 2 if p == "fro" else p
    dims = None if dim is None else _dims(dim)
    return "linalg_vector_norm.default", trim([input, ord_, dims, keepdim], [2, None, False]), {}


def _leaky_relu(input: Any, negative_slope: float = 0.01, inplace: bool = False) -> Call:
    return "leaky_relu.default", trim([input, negative_slope], [0.01]), {}


def _elu(input: Any, alpha: float = 1.0, inplace: bool = False) -> Call:
    return "elu.default", [input, alpha], {}


def _softplus(input: Any, beta: float = 1.0, threshold: float = 20.0) -> Call:
    return "softplus.default", trim([input, beta, threshold], [1, 20]), {}


def _where(condition: Any, input: Any, other: Any) -> Call:
    return "where.self", [condition, input, other], {}


def _rpow(input: Any, other: Any) -> Call:
    return "pow.Scalar", [other, input], {}


def _split(tensor: Any, split_size_or_sections: Any, dim: int = 0) -> Call:
    if isinstance(split_size_or_sections, int):
        return "split.Tensor", trim([tensor, split_size_or_sections, dim], [0]), {}
    return "split_with_sizes.default", trim([tensor, list(split_size_or_sections), dim], [0]), {}


def _chunk(input: Any, chunks: int, dim: int = 0) -> Call:
    return "chunk.default", trim([input, chunks, dim], [0]), {}


def _expand(input: Any, *sizes: Any) -> Call:
    if len(sizes) == 1 and not isinstance(sizes[0], int):
        sizes = tuple(sizes[0])
    return "expand.default", [input, [s if isinstance(s, int) else int(s) for s in sizes]], {}


_REDUCTION = {"none": 0, "mean": 1, "sum": 2}


def _cross_entropy(
    input: Any,
    target: Any,
    weight: Any = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Call:
    args = [input, target, weight, _REDUCTION[reduction], ignore_index, label_smoothing]
    return "cross_entropy_loss.default", trim(args, [None, 1, -100, 0.0]), {}


def _getitem(input: Any, index: Any) -> list[Call]:
    """``input[index]`` as PyTorch's export writes it: basic indexing as one ``slice``,
    ``select`` or ``unsqueeze`` per indexed dim (a full ``:`` writes nothing), tensor
    indexing as ``index.Tensor`` with ``None`` for the dims before the indexed ones."""
    items = list(index) if isinstance(index, tuple) else [index]
    if any(_is_tensor(item) for item in items):
        return [_advanced(input, items)]
    spread = range(0)  # (the items ``...`` stands for: never written)
    if Ellipsis in items:
        at = items.index(Ellipsis)
        used = sum(1 for item in items if item is not None and item is not Ellipsis)
        items[at : at + 1] = [slice(None)] * (input.dim() - used)
        spread = range(at, at + input.dim() - used)
    calls: list[Call] = []
    dim = 0
    sizes = getattr(current_recorder(), "sizes", None)  # (under dynamic_shapes)
    dynamic = frozenset() if sizes is None else sizes.full_slice_dims(input.shape)
    read = 0  # (the dims of input indexed so far)
    for i, item in enumerate(items):
        source = input if not calls else PREV
        read += item is not None
        if item is None:
            calls.append(("unsqueeze.default", [source, dim], {}))
            dim += 1
        elif isinstance(item, bool) or not isinstance(item, (int, slice)):
            raise NotImplementedError(f"chainrule.export cannot export the index {item!r}")
        elif isinstance(item, int):
            calls.append(("select.int", [source, dim, item], {}))
        else:
            if item == slice(None) and read - 1 in dynamic and i not in spread:  # (a symbol's)
                calls.append(("slice.Tensor", [source, dim, 0, FullEnd(_END)], {}))
            elif item != slice(None):
                start = 0 if item.start is None else item.start
                stop = _END if item.stop is None else item.stop
                args = [source, dim, start, stop] + ([] if item.step in (None, 1) else [item.step])
                if any(type(v) not in (int, type(None)) for v in (item.start, item.stop)):
                    # (a symbolic bound: PyTorch keeps the others as given)
                    args[2:4] = [item.start, item.stop]
                    if item.stop is None and len(args) == 4:
                        args.pop()
                calls.append(("slice.Tensor", args, {}))
            dim += 1
    return calls


def _advanced(input: Any, items: list) -> Call:
    last = max(i for i, item in enumerate(items) if _is_tensor(item))
    indices = []
    for item in items[: last + 1]:
        if _is_tensor(item):
            indices.append(item)
        elif item == slice(None):
            indices.append(None)
        else:
            raise NotImplementedError(
                "chainrule.export exports tensor indexing with full slices beside it only"
            )
    if any(item != slice(None) for item in items[last + 1 :]):
        raise NotImplementedError(
            "chainrule.export exports tensor indexing with full slices beside it only"
        )
    return "index.Tensor", [input, indices], {}


def _hardtanh(
    input: Any, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Call:
    return "hardtanh.default", [input, float(min_val), float(max_val)], {}


def _masked_fill(input: Any, mask: Any, value: Any) -> Call:
    return f"masked_fill.{'Tensor' if _is_tensor(value) else 'Scalar'}", [input, mask, value], {}


def _repeat(input: Any, *sizes: Any) -> Call:
    return "repeat.default", [input, _size_list(sizes)], {}


def _relu(input: Any, inplace: bool = False) -> Call:
    return ("relu_.default" if inplace else "relu.default"), [input], {}


MORE: dict[str, Callable[..., Any]] = {
    **FACTORY_CALLS,
    "hardtanh": _hardtanh,
    "relu": _relu,
    "relu6": lambda input, inplace=False: ("relu6.default", [input], {}),
    "masked_fill": _masked_fill,
    "repeat": _repeat,
    **{op: _compare(op) for op in ("gt", "lt", "ge", "le", "eq", "ne")},
    **{f"__{op}__": _compare(op) for op in ("gt", "lt", "ge", "le", "eq", "ne")},
    **{op: _inplace(op) for op in ("mul_", "sub_", "div_")},
    **{f"__{op}__": _bitwise(f"__{op}__") for op in ("and", "or")},
    **{f"bitwise_{op}": _bitwise(f"bitwise_{op}") for op in ("and", "or")},
    "relu_": lambda input: ("relu_.default", [input], {}),
    "clamp": _clamp,
    "clip": _clamp,
    "maximum": lambda input, other: ("maximum.default", [input, other], {}),
    "minimum": lambda input, other: ("minimum.default", [input, other], {}),
    "where": _where,
    "max": _extreme("max"),
    "min": _extreme("min"),
    "amax": _amax("amax"),
    "amin": _amax("amin"),
    "argmax": _argmax("argmax"),
    "argmin": _argmax("argmin"),
    "var": _spread("var"),
    "std": _spread("std"),
    "prod": _prod,
    "norm": _norm,
    "erf": lambda input: ("erf.default", [input], {}),
    "sign": lambda input: ("sign.default", [input], {}),
    "leaky_relu": _leaky_relu,
    "elu": _elu,
    "softplus": _softplus,
    "__rpow__": _rpow,
    "split": _split,
    "chunk": _chunk,
    "expand": _expand,
    "broadcast_tensors": lambda *tensors: ("broadcast_tensors.default", [list(tensors)], {}),
    "T.__get__": lambda input: ("numpy_T.default", [input], {}),
    "cross_entropy": _cross_entropy,
    "__getitem__": _getitem,
    "select": lambda input, dim, index: ("select.int", [input, dim, index], {}),
    "movedim": lambda input, source, destination: (
        f"movedim.{'int' if isinstance(source, int) else 'intlist'}",
        [input, source, destination],
        {},
    ),
    "narrow": lambda input, dim, start, length: (
        "narrow.default",
        [input, dim, start, length],
        {},
    ),
}
