"""ONNX translations of the shape and indexing ops (``reshape``, ``permute``, ``cat``,
slicing, ``gather``, ...), registered in ``_ops.TABLE`` (see ``_ops.py`` for what a
translation gets and returns)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._tensor import Tensor
from ._graph import INT64_MAX, Graph, array_of
from ._ops import (
    TABLE,
    Translation,
    _arg,
    _axis,
    _dims,
    _dtype,
    _register,
    _reshape_kept,
    _shape,
    _sizes,
    _unsupported,
)
from ._symint import SymInt, has_symbolic, shape_value

# ----- shapes ------------------------------------------------------------------------------


@_register("reshape", "view")
def _reshape(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x = args[0]
    if len(args) == 1:
        rest = (kwargs.get("shape", kwargs.get("size")),)
    else:
        rest = args[1:]
    if len(rest) == 1 and not isinstance(rest[0], (int, list, tuple)):
        raise _unsupported(g, "view (dtype)")  # a reinterpretation of the bytes
    sizes = _sizes(rest)
    if has_symbolic(sizes):
        return g.op("Reshape", g.value(x), shape_value(g, sizes), hint="view")
    return _reshape_kept(g, g.value(x), _shape(x), sizes)


@_register("view_as", "reshape_as")
def _view_as(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    other = args[1]
    if g.tracked(other):
        return g.op("Reshape", g.value(args[0]), g.op("Shape", g.value(other)), hint="view")
    return _reshape_kept(g, g.value(args[0]), _shape(args[0]), list(_shape(other)))


@_register("flatten")
def _flatten(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x = args[0]
    shape = _shape(x)
    rank = len(shape)
    if rank == 0:
        return g.op("Reshape", g.value(x), g.ints([1]), hint="flatten")
    start = _axis(int(_arg(args, kwargs, 1, "start_dim", 0)), rank)
    end = _axis(int(_arg(args, kwargs, 2, "end_dim", -1)), rank)
    if start == end:
        return g.value(x)
    if end == rank - 1 and start > 0:
        if start == 1:
            return g.op("Flatten", g.value(x), axis=1, hint="flatten")
    spec = [0] * start + [-1] + list(shape[end + 1 :])
    return g.op("Reshape", g.value(x), g.ints(spec), hint="flatten")


@_register("unflatten")
def _unflatten(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    return _reshape_kept(g, g.value(args[0]), _shape(args[0]), list(_shape(out)))


@_register("permute")
def _permute(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x = args[0]
    rank = len(_shape(x))
    dims = _sizes(args[1:]) if len(args) > 1 else list(kwargs["dims"])
    return g.op("Transpose", g.value(x), perm=[_axis(d, rank) for d in dims], hint="permute")


def _swap(rank: int, a: int, b: int) -> list[int]:
    perm = list(range(rank))
    a, b = _axis(a, rank), _axis(b, rank)
    perm[a], perm[b] = perm[b], perm[a]
    return perm


@_register("transpose", "swapaxes", "swapdims")
def _transpose(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x = args[0]
    d0 = int(_arg(args, kwargs, 1, "dim0"))
    d1 = int(_arg(args, kwargs, 2, "dim1"))
    return g.op("Transpose", g.value(x), perm=_swap(len(_shape(x)), d0, d1), hint="transpose")


@_register("t", "T.__get__", "mT.__get__", "adjoint", "mH.__get__", "H.__get__")
def _t(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x = args[0]
    rank = len(_shape(x))
    if rank < 2:
        return g.value(x)
    if rank == 2:
        perm = [1, 0]
    else:  # T reverses every dimension, mT swaps the last two
        perm = _swap(rank, -2, -1)
    return g.op("Transpose", g.value(x), perm=perm, hint="t")


@_register("unsqueeze")
def _unsqueeze(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x = args[0]
    dim = _axis(int(_arg(args, kwargs, 1, "dim")), len(_shape(x)) + 1)
    return g.op("Unsqueeze", g.value(x), g.ints([dim]), hint="unsqueeze")


@_register("squeeze")
def _squeeze(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x = args[0]
    shape = _shape(x)
    dims = _dims(_arg(args, kwargs, 1, "dim"), len(shape))
    if dims is None:
        dims = list(range(len(shape)))
    dims = [d for d in dims if shape[d] == 1]
    if not dims:
        return g.value(x)
    return g.op("Squeeze", g.value(x), g.ints(dims), hint="squeeze")


@_register("cat", "concat", "concatenate")
def _cat(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    tensors = list(args[0] if args else kwargs["tensors"])
    rank = len(_shape(out))
    dim = _axis(int(_arg(args, kwargs, 1, "dim", kwargs.get("axis", 0))), rank)
    dt = _dtype(out)
    parts = [g.as_type(t, dt) for t in tensors if not (t.dim() == 1 and t.shape[0] == 0)]
    return g.op("Concat", *parts, axis=dim, hint="cat")


@_register("stack")
def _stack(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    tensors = list(args[0] if args else kwargs["tensors"])
    rank = len(_shape(out))
    dim = _axis(int(_arg(args, kwargs, 1, "dim", 0)), rank)
    dt = _dtype(out)
    parts = [g.op("Unsqueeze", g.as_type(t, dt), g.ints([dim])) for t in tensors]
    return g.op("Concat", *parts, axis=dim, hint="stack")


@_register("expand")
def _expand(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x = args[0]
    shape = _shape(x)
    target = _sizes(args[1:]) if len(args) > 1 else list(kwargs["size"])
    spec = list(target)
    offset = len(target) - len(shape)
    for i, s in enumerate(shape):  # keep (1: broadcast leaves it) the dims that stay as they are
        t = target[offset + i]
        if t == -1 or (t == s and not isinstance(t, SymInt)):
            spec[offset + i] = 1
    return g.op("Expand", g.value(x), shape_value(g, spec), hint="expand")


@_register("expand_as", "broadcast_to")
def _expand_as(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    other = args[1]
    if isinstance(other, Tensor) and g.tracked(other):
        return g.op("Expand", g.value(args[0]), g.op("Shape", g.value(other)), hint="expand")
    return g.op("Expand", g.value(args[0]), g.ints(_shape(out)), hint="expand")


@_register("repeat")
def _repeat(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x = args[0]
    reps = _sizes(args[1:])
    xn = g.value(x)
    extra = len(reps) - len(_shape(x))
    if extra > 0:
        xn = g.op("Unsqueeze", xn, g.ints(range(extra)))
    return g.op("Tile", xn, shape_value(g, reps), hint="repeat")


def _factory_shape(args: tuple, kwargs: dict, n_fixed: int = 0) -> list[Any]:
    rest = args[: len(args) - n_fixed] if n_fixed else args
    if not rest:
        rest = (kwargs["size"],)
    return _sizes(rest)


@_register("zeros", "ones", "empty", "full")
def _factory(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    from onnx import numpy_helper

    is_full = "fill_value" in kwargs or (
        len(args) == 2 and isinstance(args[0], (list, tuple)) and not isinstance(args[1], list)
    )
    sizes = _factory_shape(args, kwargs, 1 if is_full and len(args) == 2 else 0)
    fill = array_of(out).reshape(-1)[:1]
    if fill.size == 0:
        return g.const(array_of(out))
    value = numpy_helper.from_array(fill.copy(), "value")
    return g.op("ConstantOfShape", shape_value(g, sizes), value=value, hint="full")


@_register("arange")
def _arange(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    dt = _dtype(out)
    if len(args) == 1:
        start, end, step = 0, args[0], 1
    else:
        start, end = args[0], args[1]
        step = args[2] if len(args) > 2 else kwargs.get("step", 1)

    def scalar(v: Any) -> str:
        if isinstance(v, SymInt):
            return g.as_type(g.op("Squeeze", v.build(g), g.ints([0])), dt)
        return g.const(np.asarray(v, dtype=dt))

    return g.op("Range", scalar(start), scalar(end), scalar(step), hint="arange", dtype=dt)


@_register("zeros_like", "ones_like", "full_like")
def _full_like(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    from onnx import numpy_helper

    fill = array_of(out).reshape(-1)[:1]
    if fill.size == 0:
        return g.const(array_of(out))
    value = numpy_helper.from_array(fill.copy(), "value")
    return g.op("ConstantOfShape", g.op("Shape", g.value(args[0])), value=value, hint="full")


# ----- indexing ----------------------------------------------------------------------------


@_register("__getitem__")
def _getitem(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x, index = args
    shape = _shape(x)
    items = list(index) if isinstance(index, tuple) else [index]
    consumed = sum(
        1
        if isinstance(i, (int, slice, list)) or (isinstance(i, Tensor) and i.dtype != _bool())
        else (i.dim() if isinstance(i, Tensor) else 0)
        for i in items
        if i is not None and i is not Ellipsis
    )
    if any(i is Ellipsis for i in items):
        at = items.index(Ellipsis)
        items[at : at + 1] = [slice(None)] * (len(shape) - consumed)
    items += [slice(None)] * (len(shape) - consumed - sum(i is Ellipsis for i in items))
    name = g.value(x)
    starts, ends, axes, steps = [], [], [], []
    picks: list[tuple[int, Any]] = []  # (axis, int or index tensor)
    nones: list[int] = []
    axis = 0  # axis of x
    out_pos = 0  # axis of the result
    for item in items:
        if item is None:
            nones.append(out_pos)
            out_pos += 1
        elif isinstance(item, slice):
            if item != slice(None):
                step = 1 if item.step is None else int(item.step)
                starts.append(0 if item.start is None else _index(item.start))
                ends.append(INT64_MAX if item.stop is None else _index(item.stop))
                axes.append(axis)
                steps.append(step)
            axis += 1
            out_pos += 1
        elif isinstance(item, bool):
            raise _unsupported(g, "index")
        elif isinstance(item, int):
            picks.append((axis, int(item)))
            axis += 1
        elif isinstance(item, (Tensor, list)):
            if isinstance(item, Tensor) and item.dtype == _bool():
                raise _unsupported(g, "index")
            picks.append((axis, item))
            axis += 1
            out_pos += item.dim() if isinstance(item, Tensor) else 1
        else:
            raise _unsupported(g, "index")
    if sum(not isinstance(p, int) for _, p in picks) > 1:
        raise _unsupported(g, "index")
    if axes:
        name = g.op(
            "Slice",
            name,
            shape_value(g, starts),
            shape_value(g, ends),
            g.ints(axes),
            g.ints(steps),
            hint="slice",
        )
    for ax, p in sorted(picks, key=lambda a: -a[0]):
        if isinstance(p, int):
            idx = g.const(np.int64(p))
        elif isinstance(p, list):
            idx = g.ints(p)
        else:
            idx = g.as_type(p, np.int64)
        name = g.op("Gather", name, idx, axis=ax, hint="select")
    if nones:
        name = g.op("Unsqueeze", name, g.ints(nones), hint="unsqueeze")
    if name == g.value(x):
        name = g.op("Identity", name, hint="getitem")
    return name


def _index(v: Any) -> Any:
    return v if isinstance(v, SymInt) else int(v)


def _bool() -> Any:
    import chainrule

    return chainrule.bool


@_register("select")
def _select(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x, dim, index = args[0], _arg(args, kwargs, 1, "dim"), _arg(args, kwargs, 2, "index")
    return g.op(
        "Gather",
        g.value(x),
        g.const(np.int64(index)),
        axis=_axis(int(dim), len(_shape(x))),
        hint="select",
    )


@_register("narrow")
def _narrow(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x = args[0]
    dim = _axis(int(_arg(args, kwargs, 1, "dim")), len(_shape(x)))
    start = int(_arg(args, kwargs, 2, "start"))
    length = int(_arg(args, kwargs, 3, "length"))
    return g.op(
        "Slice",
        g.value(x),
        g.ints([start]),
        g.ints([start + length]),
        g.ints([dim]),
        hint="narrow",
    )


_SPLIT_DIM = {"split": 2, "chunk": 2, "tensor_split": 2, "split_with_sizes": 2, "unbind": 1}


def _split(name: str) -> Translation:
    def tr(g: Graph, args: tuple, kwargs: dict, out: Any) -> list[str]:
        x = args[0]
        rank = len(_shape(x))
        dim = _axis(int(_arg(args, kwargs, _SPLIT_DIM[name], "dim", 0)), rank)
        parts = list(out)
        if name == "unbind":
            sizes = [1] * len(parts)
        else:
            sizes = [_shape(p)[dim] for p in parts]
        names = g.node("Split", [g.value(x), g.ints(sizes)], n_out=len(parts), axis=dim, hint=name)
        if name == "unbind":
            names = [g.op("Squeeze", n, g.ints([dim])) for n in names]
        return names

    return tr


for _name in _SPLIT_DIM:
    TABLE[_name] = _split(_name)


@_register("roll")
def _roll(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x = args[0]
    shape = _shape(x)
    shifts = _arg(args, kwargs, 1, "shifts")
    dims = _arg(args, kwargs, 2, "dims")
    shifts = list(shifts) if isinstance(shifts, (list, tuple)) else [shifts]
    y = g.value(x)
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        y = g.op("Reshape", y, g.ints([-1]))
        dims, size = [0], [math.prod(shape)]
    else:
        dims = list(dims) if isinstance(dims, (list, tuple)) else [dims]
        dims = [_axis(int(d), len(shape)) for d in dims]
        size = [shape[d] for d in dims]
    for shift, d, n in zip(shifts, dims, size):
        k = int(shift) % n if n else 0
        if k == 0:
            continue
        tail = g.op("Slice", y, g.ints([n - k]), g.ints([n]), g.ints([d]))
        head = g.op("Slice", y, g.ints([0]), g.ints([n - k]), g.ints([d]))
        y = g.op("Concat", tail, head, axis=d)
    if len(shape) != 1 and _arg(args, kwargs, 2, "dims") in (None, [], ()):
        y = g.op("Reshape", y, g.ints(shape))
    return g.op("Identity", y, hint="roll")


@_register("gather")
def _gather(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x = args[0]
    dim = _axis(int(_arg(args, kwargs, 1, "dim")), len(_shape(x)))
    index = _arg(args, kwargs, 2, "index")
    return g.op("GatherElements", g.value(x), g.as_type(index, np.int64), axis=dim, hint="gather")


@_register("index_select")
def _index_select(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x = args[0]
    dim = _axis(int(_arg(args, kwargs, 1, "dim")), len(_shape(x)))
    index = _arg(args, kwargs, 2, "index")
    return g.op("Gather", g.value(x), g.as_type(index, np.int64), axis=dim, hint="index_select")


@_register("embedding")
def _embedding(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    ids, weight = args[0], _arg(args, kwargs, 1, "weight")
    if _arg(args, kwargs, 3, "max_norm") is not None:
        raise _unsupported(g, "embedding_renorm")
    return g.op("Gather", g.value(weight), g.as_type(ids, np.int64), axis=0, hint="embedding")


def _trilu(upper: int) -> Translation:
    def tr(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
        k = int(_arg(args, kwargs, 1, "diagonal", 0))
        return g.op("Trilu", g.value(args[0]), g.const(np.int64(k)), upper=upper)

    return tr


_register("tril")(_trilu(0))
_register("triu")(_trilu(1))
