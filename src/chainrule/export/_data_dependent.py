"""Calls whose result's size depends on the input's values (``torch.nonzero``, ``argwhere``,
``masked_select``, boolean-mask indexing ``x[x > 0]``, ``bincount``, ``repeat_interleave``
by a tensor): PyTorch's export gives the size an unbacked symbol (``u0``), read back by an
``aten.sym_size.int`` node right after the call and checked to lie in its range
(``u0 >= 0``, ``u0 <= numel``) by ``aten._assert_scalar`` nodes.

The symbols are numbered with ``item()`` values in trace order (``_unbacked``); the sizes of
the values that follow one are found by traces with the result one longer (or shorter),
as for an ``item()`` size. ``nonzero``, ``argwhere`` and indexing by one mask share the
mask's symbol, as PyTorch's fake tensors remember a mask's count. A read of the size
(``r.shape[0]``, ``r.size(0)``, ``r.numel()`` of a 1-d result) is the symbol's
``sym_size`` node, usable where an ``item()`` value is. Calls of several results
(``unique``, ``nonzero(as_tuple=True)``: ``_unique``) are written here too, their checks
reading a ``getitem`` node of their own, merged with the result's after the code is made."""

from __future__ import annotations

import copy
import operator
from collections.abc import Callable
from typing import Any

import chainrule as torch

from . import _unique
from ._translations_more import trim
from ._unique import UNIQUE_ARGS, UNIQUE_CALLS, UNIQUE_TABLE

Call = tuple[str, list, dict]
Tensor = torch.Tensor

# the overloads of a data-dependent size, by how they are written
_NONZERO = ("nonzero.default", "argwhere.default")  # (a count of the input's nonzeros)
_UNBOUNDED = ("bincount.default", "repeat_interleave.Tensor", "repeat_interleave.self_Tensor")
READS = frozenset(("size", "shape.__get__", "numel", "nelement"))


def _nonzero(input: Any, *, out: Any = None, as_tuple: bool = False) -> Call:
    return ("nonzero_numpy.default" if as_tuple else "nonzero.default"), [input], {}


def _bincount(input: Any, weights: Any = None, minlength: int = 0) -> Call:
    return "bincount.default", trim([input, weights, minlength], [None, 0]), {}


def _repeat_interleave(
    input: Any, repeats: Any = None, dim: Any = None, *, output_size: Any = None
) -> Any:
    if repeats is None:  # (``repeat_interleave(counts)``: each index counts times)
        return "repeat_interleave.Tensor", [input], {}
    if isinstance(repeats, Tensor) and output_size is None:
        return "repeat_interleave.self_Tensor", trim([input, repeats, dim], [None]), {}
    from ._translations_direct import DIRECT

    return DIRECT["repeat_interleave"](input, repeats, dim, output_size=output_size)


DATA_DEPENDENT: dict[str, Callable[..., Any]] = {
    "nonzero": _nonzero,
    "argwhere": lambda input: ("argwhere.default", [input], {}),
    "masked_select": lambda input, mask, *, out=None: (
        "masked_select.default",
        [input, mask],
        {},
    ),
    "bincount": _bincount,
    "repeat_interleave": _repeat_interleave,
    **UNIQUE_CALLS,
}


def _repeat_interleave_run(self: Tensor, repeats: Tensor, dim: Any = None, **_: Any) -> Tensor:
    return torch.repeat_interleave(self, repeats, dim)


DATA_DEPENDENT_TABLE: dict[str, Callable] = {
    "nonzero.default": torch.nonzero,
    "argwhere.default": torch.argwhere,
    "masked_select.default": torch.masked_select,
    "bincount.default": lambda self, weights=None, minlength=0: torch.bincount(
        self, weights, minlength
    ),
    "repeat_interleave.Tensor": lambda repeats, **_: torch.repeat_interleave(repeats),
    "repeat_interleave.self_Tensor": _repeat_interleave_run,
    **UNIQUE_TABLE,
}

DATA_DEPENDENT_ARGS = {
    "nonzero.default": "self",
    "argwhere.default": "self",
    "masked_select.default": "self mask",
    "bincount.default": "self weights minlength",
    "repeat_interleave.Tensor": "repeats",
    "repeat_interleave.self_Tensor": "self repeats dim",
    **UNIQUE_ARGS,
}


def _mask_index(targs: list) -> tuple[int, Any] | None:
    """For ``index.Tensor`` by one boolean mask after full slices (``x[m]``, ``x[:, m]``):
    the result's dim of the count, and the mask."""
    indices = targs[1]
    tensors = [i for i in indices if i is not None]
    if not any(t.dtype == torch.bool for t in tensors):
        return None
    if len(tensors) != 1 or indices[-1] is None:
        raise NotImplementedError(
            "chainrule.export exports boolean-mask indexing by one mask after full slices "
            "only (x[m], x[:, m]) yet; PyTorch writes other mixes with more symbols"
        )
    return len(indices) - 1, indices[-1]


def sized_by_data(overload: str, targs: list) -> bool:
    """Whether the call's result has a size given by the input's values."""
    if overload == "index.Tensor":
        return _mask_index(targs) is not None
    return (
        overload in _NONZERO
        or overload in _UNBOUNDED
        or overload == "masked_select.default"
        or overload in _unique.SEVERAL
    )


def _size_of(overload: str, targs: list) -> tuple[int, Any, int, int | None]:
    """The result's dim of a data-dependent size, the tensor whose count PyTorch remembers
    (None: not remembered), and the size's range."""
    if overload == "index.Tensor":
        dim, mask = _mask_index(targs)
        return dim, mask, 0, mask.numel()
    if overload in _NONZERO:
        return 0, targs[0], 0, targs[0].numel()
    if overload == "masked_select.default":
        return 0, None, 0, torch.broadcast_shapes(targs[0].shape, targs[1].shape).numel()
    lower = targs[2] if overload == "bincount.default" and len(targs) > 2 else 0
    return 0, None, lower, None


class OutputSize:
    """The symbol ``name`` of dim ``dim`` of ``source``'s result; ``read`` is the
    ``sym_size`` node of the forward's read of it, ``taken`` whether that read took the
    first name (a ``size``/``shape`` read: PyTorch's check writes a node of its own).

    For a call of several results (``_unique2``), ``source`` is the call, ``index`` the
    result the checks read through a ``getitem`` node of their own, and ``reads`` the
    result nodes whose sizes are the symbol (by their dim)."""

    def __init__(
        self, name: str, source: Any, dim: int, key: Any, index: int | None = None
    ) -> None:
        self.name = name
        self.source = source
        self.dim = dim
        self.key = key
        self.index = index
        self.reads: dict[Any, int] = {} if index is not None else {source: dim}
        self.check: Any = None  # (the checks' getitem node, for several results)
        self.read: Any = None
        self.taken = False
        self.value: Any = None  # (the ItemValue the reads give)

    def size_node(self, graph: Any) -> Any:
        """The ``sym_size`` node PyTorch's checks read, right after the call."""
        source = self.source
        if self.index is not None:
            source = self.check = _getitem(graph, self.source, self.index)
        if self.read is not None and not self.taken:
            if self.index is not None:  # (a numel read: moved to read the checks' getitem)
                self.read.args = (source, self.dim)
                source.append(self.read)
            return self.read
        node = _sym_size(graph, source, self.dim, self.name)
        if self.read is not None:
            self.read.replace_all_uses_with(node)
            graph.erase_node(self.read)
        return node


def _getitem(graph: Any, call: Any, index: int) -> Any:
    """A ``getitem`` node of ``call``'s result ``index`` right after the call."""
    like = [u for u in call.users if u.target is operator.getitem and u.args[1] == index]
    with graph.inserting_after(call):
        node = graph.create_node("call_function", operator.getitem, (call, index), {})
    node.meta["tensor_meta"] = copy.copy(like[0].meta["tensor_meta"])
    return node


def merge_getitems(program: Any) -> None:
    """PyTorch's program after its code was made: a result node of a call of several
    results read by the checks' ``getitem`` too is replaced by that one (its code, made
    before, still shows both)."""
    outputs = program._unbacked.outputs.values()
    renamed = {}
    for size in outputs:
        if size.check is None:
            continue
        for user in list(size.source.users):
            if user is not size.check and user.args[1] == size.index:
                user.replace_all_uses_with(size.check)
                renamed[user.name] = size.check.name
                program.graph.erase_node(user)
    for spec in program.graph_signature.output_specs:
        if getattr(spec.arg, "name", None) in renamed:
            spec.arg.name = renamed[spec.arg.name]


def _sym_size(graph: Any, source: Any, dim: int, name: str) -> Any:
    from ._reader import ATEN

    with graph.inserting_after(source):
        node = graph.create_node(
            "call_function",
            ATEN.overload("aten.sym_size.int"),
            (source, dim),
            {},
            name="sym_size_int",
        )
    node.meta["sym_expr"] = name
    node.meta["arg_names"] = ["self", "dim"]
    return node


def _moved(out: Tensor, dim: int, shift: int) -> Tensor:
    """``out`` longer (zeros appended) or shorter by ``shift`` along ``dim``: a fitting
    trace's result (its values are never compared)."""
    if shift == 0:
        return out
    if shift < 0:
        return out.narrow(dim, 0, out.shape[dim] + shift)
    shape = list(out.shape)
    shape[dim] = shift
    return torch.cat([out, torch.zeros(shape, dtype=out.dtype)], dim)


def write(recorder: Any, overload: str, targs: list, tkwargs: dict, out: Any) -> Any:
    """The call's node, its result's size a new symbol (or the remembered count of the
    same mask's); the result as this trace sees it (moved in a fitting trace)."""
    from ._reader import ATEN

    if overload in _unique.SEVERAL:
        return _write_several(recorder, overload, targs, tkwargs)
    unbacked = recorder.unbacked
    dim, counted, lower, upper = _size_of(overload, targs)
    key = None if counted is None else ("nonzero", recorder.node_of(counted))
    name, known = _symbol(unbacked, key)
    out = _moved(out, dim, unbacked.shifts.get(name, 0))
    node = recorder._write(ATEN.overload(f"aten.{overload}"), overload, targs, tkwargs, [], out)
    if not known:
        _new_symbol(unbacked, OutputSize(name, node, dim, key), lower, upper, out.shape[dim])
    return out


def _symbol(unbacked: Any, key: Any) -> tuple[str, bool]:
    """The symbol of a count PyTorch remembers under ``key``, or a new one; whether known."""
    known = [s for s in unbacked.outputs.values() if key is not None and s.key == key]
    return (known[0].name, True) if known else (unbacked._next(), False)


def _new_symbol(unbacked: Any, size: OutputSize, lower: int, upper: Any, value: int) -> None:
    unbacked.nodes[size.name] = None  # (the sym_size node, written with the checks)
    unbacked.lower[size.name], unbacked.upper[size.name] = lower, upper
    unbacked.values[size.name] = int(value)
    unbacked.outputs[size.name] = size
    unbacked.sized = True


def _write_several(recorder: Any, overload: str, targs: list, tkwargs: dict) -> Any:
    """A call of several results (``_unique2``, ``nonzero_numpy``): a ``getitem`` node for
    each, the sized ones moved together in a fitting trace."""
    from ._reader import ATEN

    unbacked = recorder.unbacked
    if targs[0].numel() == 0:
        raise NotImplementedError(
            f"chainrule.export cannot export {overload} of an empty tensor yet (PyTorch "
            "writes a count of 0, no symbol)"
        )
    memo = _unique.memo(overload, targs)
    key = None if memo is None else (memo, recorder.node_of(targs[0]))
    name, known = _symbol(unbacked, key)
    shift = unbacked.shifts.get(name, 0)
    values = _unique.results(overload, targs)
    sized = _unique.sized(overload, targs)
    for index, dim in sized:
        values[index] = _moved(values[index], dim, shift)
    target = ATEN.overload(f"aten.{overload}")
    node = recorder._write(target, overload, targs, tkwargs, [], values)
    if not known:
        index, dim = sized[0]
        size = OutputSize(name, node, dim, key, index)
        size.reads = {recorder.nodes[id(values[i])]: d for i, d in sized}
        _new_symbol(unbacked, size, 0, _unique.upper(overload, targs), values[index].shape[dim])
    return _unique.picked(overload, targs, values)


def read(recorder: Any, name: str, args: tuple, out: Any) -> Any:
    """A read of a data-dependent size of a call's result (``r.shape[0]``, ``r.size()``,
    ``r.numel()``): its symbol as an ``item()``-like value; None for other tensors."""
    from ._sym_sizes import Poly
    from ._unbacked import ItemValue

    node = recorder.nodes.get(id(args[0]))
    found = [s for s in recorder.unbacked.outputs.values() if node in s.reads]
    if not found:
        return None
    size = found[0]
    dim = size.reads[node]
    t = args[0]
    if name in ("numel", "nelement"):
        if t.numel() != t.shape[dim]:
            raise NotImplementedError(
                f"chainrule.export cannot export numel() of {node.name}, a result of a "
                "data-dependent size with other dims, yet (PyTorch multiplies the symbol); "
                f"read {node.name}.shape[{dim}] instead"
            )
    if size.value is None:
        size.read = _sym_size(recorder.graph, node, dim, size.name)
        size.taken = name not in ("numel", "nelement")
        unbacked = recorder.unbacked
        value = unbacked.values[size.name]
        size.value = ItemValue(value, size.read, Poly.symbol(size.name), unbacked)
    if name in ("numel", "nelement"):
        return size.value
    if isinstance(out, int):  # (``size(d)``)
        d = args[1] if len(args) > 1 else None
        return size.value if d is not None and d % t.dim() == dim else out
    items = list(out)
    items[dim] = size.value
    return tuple(items)


def same_arguments(traces: list) -> None:
    """Refuses a program whose node arguments change with a data-dependent size (a size
    read from a value made from the result, kept as this trace's number)."""
    for nodes in zip(*(t.graph.nodes for t in traces)):
        args = [_plain((n.args, n.kwargs)) for n in nodes]
        if any(a != args[0] for a in args[1:]):
            raise NotImplementedError(
                f"chainrule.export: the arguments of {nodes[0].name} ({nodes[0].target}) "
                "follow a data-dependent size read from a value other than the call's "
                "result itself, which this export cannot write yet; read the size of the "
                "nonzero/masked result directly (r.shape[0])"
            )


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if hasattr(value, "op") and hasattr(value, "name"):
        return ("node", value.name)
    return value
