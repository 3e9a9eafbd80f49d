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
``sym_size`` node, usable where an ``item()`` value is."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import chainrule as torch

from ._translations_more import trim

Call = tuple[str, list, dict]
Tensor = torch.Tensor

# the overloads of a data-dependent size, by how they are written
_NONZERO = ("nonzero.default", "argwhere.default")  # (a count of the input's nonzeros)
_UNBOUNDED = ("bincount.default", "repeat_interleave.Tensor", "repeat_interleave.self_Tensor")
READS = frozenset(("size", "shape.__get__", "numel", "nelement"))


def _nonzero(input: Any, *, out: Any = None, as_tuple: bool = False) -> Call:
    if as_tuple:
        raise NotImplementedError(
            "chainrule.export cannot export torch.nonzero(x, as_tuple=True) yet (PyTorch "
            "writes nonzero_numpy with getitem nodes of a data-dependent size); use "
            "torch.nonzero(x).unbind(1)"
        )
    return "nonzero.default", [input], {}


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


def _unique(input: Any, *args: Any, **kwargs: Any) -> Call:
    raise NotImplementedError(
        "chainrule.export cannot export torch.unique yet: PyTorch writes _unique2 with "
        "getitem nodes of a data-dependent size (u0), and its printed code differs from "
        "its graph; sort the values and compare neighbours in tensors instead"
    )


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
    "unique": _unique,
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
}

DATA_DEPENDENT_ARGS = {
    "nonzero.default": "self",
    "argwhere.default": "self",
    "masked_select.default": "self mask",
    "bincount.default": "self weights minlength",
    "repeat_interleave.Tensor": "repeats",
    "repeat_interleave.self_Tensor": "self repeats dim",
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
    return overload in _NONZERO or overload in _UNBOUNDED or overload == "masked_select.default"


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
    first name (a ``size``/``shape`` read: PyTorch's check writes a node of its own)."""

    def __init__(self, name: str, source: Any, dim: int, key: Any) -> None:
        self.name = name
        self.source = source
        self.dim = dim
        self.key = key
        self.read: Any = None
        self.taken = False
        self.value: Any = None  # (the ItemValue the reads give)

    def size_node(self, graph: Any) -> Any:
        """The ``sym_size`` node PyTorch's checks read, right after the call."""
        if self.read is not None and not self.taken:
            return self.read
        node = _sym_size(graph, self.source, self.dim, self.name)
        if self.read is not None:
            self.read.replace_all_uses_with(node)
            graph.erase_node(self.read)
        return node


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


def write(recorder: Any, overload: str, targs: list, tkwargs: dict, out: Tensor) -> Tensor:
    """The call's node, its result's size a new symbol (or the remembered count of the
    same mask's); the result as this trace sees it (moved in a fitting trace)."""
    from ._reader import ATEN

    unbacked = recorder.unbacked
    dim, counted, lower, upper = _size_of(overload, targs)
    key = None if counted is None else recorder.node_of(counted)
    known = [s for s in unbacked.outputs.values() if key is not None and s.key is key]
    name = known[0].name if known else unbacked._next()
    out = _moved(out, dim, unbacked.shifts.get(name, 0))
    node = recorder._write(ATEN.overload(f"aten.{overload}"), overload, targs, tkwargs, [], out)
    if not known:
        unbacked.nodes[name] = None  # (the sym_size node, written with the checks)
        unbacked.lower[name], unbacked.upper[name] = lower, upper
        unbacked.values[name] = int(out.shape[dim])
        unbacked.outputs[name] = OutputSize(name, node, dim, key)
        unbacked.sized = True
    return out


def read(recorder: Any, name: str, args: tuple, out: Any) -> Any:
    """A read of a data-dependent size of a call's result (``r.shape[0]``, ``r.size()``,
    ``r.numel()``): its symbol as an ``item()``-like value; None for other tensors."""
    from ._sym_sizes import Poly
    from ._unbacked import ItemValue

    node = recorder.nodes.get(id(args[0]))
    found = [s for s in recorder.unbacked.outputs.values() if s.source is node]
    if not found:
        return None
    size = found[0]
    t = args[0]
    if name in ("numel", "nelement"):
        if t.numel() != t.shape[size.dim]:
            raise NotImplementedError(
                f"chainrule.export cannot export numel() of {node.name}, a result of a "
                "data-dependent size with other dims, yet (PyTorch multiplies the symbol); "
                f"read {node.name}.shape[{size.dim}] instead"
            )
    if size.value is None:
        size.read = _sym_size(recorder.graph, node, size.dim, size.name)
        size.taken = name not in ("numel", "nelement")
        unbacked = recorder.unbacked
        value = unbacked.values[size.name]
        size.value = ItemValue(value, size.read, Poly.symbol(size.name), unbacked)
    if name in ("numel", "nelement"):
        return size.value
    if isinstance(out, int):  # (``size(d)``)
        d = args[1] if len(args) > 1 else None
        return size.value if d is not None and d % t.dim() == size.dim else out
    items = list(out)
    items[size.dim] = size.value
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
