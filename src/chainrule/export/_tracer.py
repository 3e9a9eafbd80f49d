"""``torch.export.export``: a chainrule module run once on its example inputs under a
``TorchFunctionMode`` that writes each torch-level call on a traced tensor as an ATen
overload node (``_translations``); parameters, buffers and constants become the graph's
first inputs, named as PyTorch names them (``p_fc_weight``, ``b_bn_running_mean``,
``c_lifted_tensor_0``)."""

from __future__ import annotations

import contextlib
import inspect
import operator
import re
from typing import Any

from .. import compiler, overrides
from .._dtypes import bool as dtype_bool
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..fx import Graph, Node
from ..nn import Module
from . import _data_dependent as _data_sized
from . import _dynamic, _naming, _schema_args, _sym_sizes, _unbacked
from ._module_stack import module_stacks
from ._reader import ATEN, TensorMeta
from ._sym_sizes import SizeRecord, SymSize
from ._translations import TRANSLATIONS
from ._translations_factories import FACTORIES, new_methods_seen
from ._translations_more import _END, PREV, Step
from ._translations_rnn import rnns_as_nodes
from ._treespec import TreeSpec
from ._unbacked import ItemValue
from .exported_program import ExportedProgram, ModuleCallEntry, ValueRanges, _Symbol
from .graph_signature import (
    ConstantArgument,
    ExportGraphSignature,
    InputKind,
    InputSpec,
    OutputKind,
    OutputSpec,
    TensorArgument,
)

_PREFIXES = ("torch.nn.functional.", "torch.Tensor.", "torch.")


def _short(func: Any) -> str:
    full = overrides.resolve_name(func) or getattr(func, "__name__", repr(func))
    for prefix in _PREFIXES:
        if full.startswith(prefix):
            return full[len(prefix) :]
    return full


def _node_name(overload: str) -> str:
    """PyTorch's name for a node calling ``overload``: the operator, lower case, without
    the dunder of ``__or__``, snake-cased (fx numbers it when the name is taken or
    reserved)."""
    op = overload.partition(".")[0]
    if op.startswith("__") and op.endswith("__"):
        op = op[2:-2]
    return re.sub(r"(?<=[a-z])([A-Z])", r"_\1", op).lower()  # (``mT``: ``m_t``)


def _tensors(obj: Any) -> list[Tensor]:
    if isinstance(obj, Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for item in obj for t in _tensors(item)]
    if isinstance(obj, dict):
        return [t for item in obj.values() for t in _tensors(item)]
    return []


def _meta(t: Tensor) -> TensorMeta:
    return TensorMeta(t.dtype, list(t.shape), t.requires_grad)


def spec_of(value: Any) -> TreeSpec:
    """The pytree spec of a structure of tuples, lists, dicts and the node types
    registered (with a serialized name) in ``torch.utils._pytree``."""
    registered = _registered(type(value))
    if registered is not None:
        children, context = registered[1].flatten_fn(value)
        return TreeSpec(registered[0], context, [spec_of(c) for c in children])
    if isinstance(value, dict):
        return TreeSpec("builtins.dict", list(value), [spec_of(v) for v in value.values()])
    if isinstance(value, list):
        return TreeSpec("builtins.list", None, [spec_of(v) for v in value])
    if isinstance(value, tuple):
        return TreeSpec("builtins.tuple", None, [spec_of(v) for v in value])
    return TreeSpec(None)


def _leaves(value: Any) -> list[Any]:
    """The leaves of ``value`` in ``spec_of``'s order (None, numbers and tensors alike)."""
    registered = _registered(type(value))
    if registered is not None:
        return [leaf for c in registered[1].flatten_fn(value)[0] for leaf in _leaves(c)]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def _registered(cls: type) -> tuple[str, Any] | None:
    """The serialized name and node definition of ``cls`` when it is a pytree node type
    registered with a name (a model's output class), not a builtin container."""
    from ..utils import _pytree

    node = _pytree.SUPPORTED_NODES.get(cls)
    serialized = _pytree.SUPPORTED_SERIALIZED_TYPES.get(cls)
    if node is None or serialized is None or cls in _pytree.BUILTIN_TYPES:
        return None
    if serialized.serialized_type_name == _pytree.NO_SERIALIZED_TYPE_NAME_FOUND:
        return None
    return serialized.serialized_type_name, node


# reads of a traced tensor's values into Python: PyTorch's fake tensors have none to give
# (``item`` and ``tolist`` PyTorch keeps as symbols: chainrule's trace does for an integer
# ``item`` passed to an elementwise op, ``_Recorder._item``)
# calls that may give back their input itself (a dropout of p = 0) whose result PyTorch's
# export still writes as a value of its own: later reads of the input read the input
_FRESH = frozenset(
    ("dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d", "dropout3d")
)
_VALUE_READS = frozenset(
    ("__bool__", "__float__", "__int__", "__index__", "__complex__", "item", "tolist", "numpy")
)


def _data_dependent(name: str) -> Exception:
    """PyTorch's error for a read of a traced value (``bool(x.sum() > 0)``,
    ``float(x.max())``); for ``item`` and ``tolist``, which PyTorch exports as symbols
    (``aten.item`` nodes), chainrule's refusal."""
    from ..fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode

    if name in ("item", "tolist"):
        return NotImplementedError(
            f"chainrule.export cannot export Tensor.{name} of a traced tensor yet: "
            "PyTorch's export keeps the value as a symbol (an aten.item node), chainrule's "
            "trace would keep this input's number for every input. Keep the computation in "
            "tensors (a 0-d tensor instead of a Python number)."
        )
    return GuardOnDataDependentSymNode(
        name,
        f"Could not guard on data-dependent expression: the forward reads a traced "
        f"tensor's value into Python (Tensor.{name}), so the exported program would keep "
        "this input's branch or number for every input. Keep the computation in tensors "
        "(torch.where for a branch, a tensor instead of a Python number).",
    )


class _Recorder(overrides.TorchFunctionMode):
    """Records each call on a traced tensor as a node of ``graph``."""

    def __init__(
        self,
        graph: Graph,
        nodes: dict[int, Node],
        first_user: Node | None,
        sizes: SizeRecord | None = None,
        shifts: dict[str, int] | None = None,
    ) -> None:
        self.graph = graph
        self.nodes = nodes
        self.first_user = first_user
        self.sizes = sizes  # (under dynamic_shapes: the sizes read, and how to write them)
        self.lift: Any = None  # (in a cond/while_loop function: reads an outer tensor)
        self.alive: list[Any] = []
        self.constants: list[tuple[Node, str, Tensor]] = []
        self.unbacked = _unbacked.Unbacked(graph, shifts)  # (item() values: u0, u1, ...)
        self.items: dict[Node, ItemValue] = {}

    def node_of(self, t: Tensor) -> Node:
        """The node of ``t``; a tensor the trace did not make becomes a lifted constant."""
        if id(t) not in self.nodes and self.lift is not None:
            return self.lift(t)  # (_control_flow: the constant is the outer graph's)
        if id(t) not in self.nodes:
            if t.grad_fn is not None:
                # computed from traced values by a call the trace did not see: as a
                # constant it would be silently wrong
                raise NotImplementedError(
                    "chainrule.export: a tensor was computed by a call the trace cannot "
                    f"see ({type(t.grad_fn).__name__}); its computation would be frozen"
                )
            index = len(self.constants)
            with self.graph.inserting_before(self.first_user):
                node = self.graph.placeholder(f"c_lifted_tensor_{index}")
            node.meta["tensor_meta"] = _meta(t)
            self.constants.append((node, f"lifted_tensor_{index}", t))
            self.nodes[id(t)] = node
            self.alive.append(t)
        return self.nodes[id(t)]

    def arg(self, value: Any, chain: list | None = None) -> Any:
        """A call's argument as a graph argument: tensors as their nodes, links of a
        chain as the chain's nodes."""
        if value is PREV:
            return chain[-1]
        if isinstance(value, Step):
            return chain[value.index]
        if isinstance(value, SymSize) and self.sizes is not None and self.sizes.plan:
            return self.sizes.written(value, self.graph)
        if isinstance(value, Tensor):
            return self.node_of(value)
        if isinstance(value, ItemValue):
            return value.node
        if isinstance(value, (list, tuple)):
            return [self.arg(v, chain) for v in value]
        return value

    def __torch_function__(
        self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None
    ) -> Any:
        kwargs = kwargs or {}
        name = _short(func)
        traced = any(id(t) in self.nodes for t in _tensors((args, kwargs)))
        if traced and name == "item" and compiler.is_exporting():
            return self._item(args[0], func(*args, **kwargs))
        if traced and name in _VALUE_READS and compiler.is_exporting():
            raise _data_dependent(name)  # (torch.jit.trace's recording warns instead)
        out = func(*_ints(args), **_ints(kwargs))
        if traced and self.sizes is not None and name in ("size", "shape.__get__"):
            return self.sizes.read(out)
        if traced and self.sizes is not None and name in ("numel", "nelement"):
            node = self.node_of(args[0])
            return self.sizes.numel(out, args[0].shape, node if node.op == "placeholder" else None)
        if not traced and not (name in FACTORIES and isinstance(out, Tensor)):
            if _tensors(out) and self.sizes is not None:  # (kept as a constant: checked)
                self.sizes.constants += [(name, s) for s in _sym_sizes.sizes_in((args, kwargs))]
            return out
        if traced and name in _data_sized.READS and self.unbacked.outputs:
            read = _data_sized.read(self, name, args, out)  # (r.shape[0] of nonzero(x))
            if read is not None:
                return read
        if not _tensors(out):
            return out  # sizes, dtypes, numbers: constants of this trace
        if name not in _unbacked.ITEM_CALLS and _unbacked.inside((args, kwargs)):
            _unbacked.check_item_use(name, [args], kwargs)  # (refuses)
        translate = TRANSLATIONS.get(name)
        if translate is None:
            raise NotImplementedError(f"chainrule.export cannot export the call {name}")
        calls = translate(*args, **kwargs)
        if name in _FRESH and isinstance(out, Tensor) and any(out is t for t in _tensors(args)):
            out = out.view_as(out)  # (an identity dropout: a value of its own, as PyTorch's)
        if not isinstance(calls, list):
            calls = [calls]
        if not calls:  # (``x[:]``: nothing to write, the result reads as its input)
            self.nodes[id(out)] = self.node_of(_tensors((args, kwargs))[0])
            self.alive.append(out)
            return out
        if len(calls) == 1 and not getattr(calls, "results", None):
            overload, targs, tkwargs = calls[0]
            if _data_sized.sized_by_data(overload, targs):  # (nonzero, x[x > 0], ...)
                return _data_sized.write(self, overload, targs, tkwargs, out)
            target = ATEN.overload(f"aten.{overload}")
            self._write(target, overload, targs, tkwargs, [], out)
            return out
        # a chain: each link computed here (for its sizes and the next links' inputs)
        values: list[Any] = []
        written: list[Node] = []
        for overload, targs, tkwargs in calls:
            target = ATEN.overload(f"aten.{overload}")
            value = target(*_resolve(targs, values), **_resolve(tkwargs, values))
            self.alive.append(value)
            values.append(value)
            written.append(self._write(target, overload, targs, tkwargs, written, value))
        results = getattr(calls, "results", None) or [len(calls) - 1]
        for t, index in zip(_tensors(out), results):
            if isinstance(index, tuple):  # (link, item): one result of a link giving several
                self.nodes[id(t)] = self.nodes[id(values[index[0]][index[1]])]
            else:
                self.nodes[id(t)] = written[index]
        self.alive.append(out)
        return out

    def _item(self, t: Tensor, value: Any) -> ItemValue:
        """``t.item()``: an ``aten.item`` node, its value PyTorch's unbacked ``u<k>``."""
        if t.dtype.is_floating_point or t.dtype.is_complex or t.dtype == dtype_bool:
            raise NotImplementedError(
                f"chainrule.export cannot export Tensor.item of a traced {t.dtype} tensor yet "
                "(PyTorch keeps it as a float symbol); only of an integer tensor. Keep the "
                "computation in tensors (a 0-d tensor instead of a Python number)."
            )
        source = self.node_of(t)
        if source in self.items:
            return self.items[source]  # (PyTorch's trace reads one tensor's value once)
        self.items[source] = self.unbacked.new(value, source)
        return self.items[source]

    def _write(
        self, target: Any, overload: str, targs: list, tkwargs: dict, chain: list, out: Any
    ) -> Node:
        """One node calling ``target``; its result ``out`` (a tensor or several) is
        what later calls on ``out`` read (``chain``: the nodes of the chain so far)."""
        _unbacked.check_item_use(overload, targs, tkwargs)
        node = self.graph.create_node(
            "call_function",
            target,
            tuple(self.arg(a, chain) for a in targs),
            {k: self.arg(v, chain) for k, v in tkwargs.items()},
            name=_node_name(overload),
        )
        node.meta["arg_names"] = _schema_args.names(overload)[: len(targs)]
        self.alive.append(out)
        if isinstance(out, Tensor):
            node.meta["tensor_meta"] = _meta(out)
            # an in-place op's result is its input: later reads of it name this node
            self.nodes[id(out)] = node
            return node
        node.meta["returns_list"] = _schema_args.returns_list(overload)
        node.meta["output_metas"] = [_meta(t) for t in out]
        for i, t in enumerate(out):
            item = self.graph.create_node("call_function", operator.getitem, (node, i))
            item.meta["tensor_meta"] = _meta(t)
            self.nodes[id(t)] = item
        return node


def _ints(value: Any) -> Any:
    """``value`` with recorded sizes as plain ints, for the call itself (a Python int,
    not an int-like object, to the dtype rules)."""
    if isinstance(value, SymSize):
        return int(value)
    if isinstance(value, ItemValue):
        return value.value
    if isinstance(value, slice):
        return slice(_ints(value.start), _ints(value.stop), _ints(value.step))
    if isinstance(value, (list, tuple)) and not isinstance(value, Tensor):
        items = [_ints(v) for v in value]
        return items if type(value) is list else tuple(items) if type(value) is tuple else value
    if isinstance(value, dict):
        return {k: _ints(v) for k, v in value.items()}
    return value


def _unbacked_ranges(items: _unbacked.Unbacked) -> dict:
    """PyTorch's unbacked symbols: the ``item()`` values' (narrowed by checks and uses as
    sizes) and its while loops' (``VR[1, int_oo]`` for a loop reading a parameter),
    numbered ``u0, u1, ...`` together in the order the trace made them."""
    return {_Symbol(name): ValueRanges(*r) for name, r in items.ranges().items()}


def _resolve(value: Any, values: list) -> Any:
    """``value`` with the links of a chain replaced by their computed results."""
    if value is PREV:
        return values[-1]
    if isinstance(value, Step):
        return values[value.index]
    if isinstance(value, list):
        return [_resolve(v, values) for v in value]
    if isinstance(value, tuple):
        return tuple(_resolve(v, values) for v in value)
    if isinstance(value, dict):
        return {k: _resolve(v, values) for k, v in value.items()}
    return value


def _user_inputs(mod: Module, args: tuple, kwargs: dict) -> list[tuple[str, Tensor]]:
    """Each input tensor with PyTorch's placeholder name: the forward's parameter name,
    ``name_i`` inside a list or tuple."""
    try:
        bound = inspect.signature(mod.forward).bind(*args, **kwargs)
        items = list(bound.arguments.items())
    except (TypeError, ValueError):
        items = [(f"args_{i}", a) for i, a in enumerate(args)] + list(kwargs.items())
    named = []
    for pname, value in items:
        if isinstance(value, Tensor):
            named.append((pname, value))
        elif _tensors(value):
            named += [(f"{pname}_{i}", t) for i, t in enumerate(_tensors(value))]
        else:
            raise NotImplementedError(
                f"chainrule.export exports tensor inputs only (argument {pname!r} is "
                f"{type(value).__name__})"
            )
    return named


def export(
    mod: Module,
    args: tuple,
    kwargs: dict | None = None,
    *,
    dynamic_shapes: Any = None,
    strict: bool = False,
    preserve_module_call_signature: tuple = (),
) -> ExportedProgram:
    """The ExportedProgram of ``mod(*args, **kwargs)``: its forward as ATen overload
    calls; sizes marked in ``dynamic_shapes`` (``Dim``, ``Dim.AUTO``/``DYNAMIC``) are
    symbols with their ranges in ``range_constraints``."""
    if not isinstance(args, tuple):
        raise ValueError(
            f"Expecting `args` to be a tuple of example positional inputs, got {type(args)}"
        )
    kwargs = kwargs or {}
    if dynamic_shapes is None:
        return _item_sizes(mod, args, kwargs)
    inputs = _user_inputs(mod, args, kwargs)
    arg_names = list(inspect.signature(mod.forward).parameters)
    found = _dynamic.symbols(inputs, dynamic_shapes, arg_names)
    if not found:
        return _item_sizes(mod, args, kwargs)
    return _symbolic(mod, args, kwargs, inputs, found)


def _item_sizes(mod: Module, args: tuple, kwargs: dict) -> ExportedProgram:
    """The program of one trace; where an ``item()`` value is a size, the sizes that
    follow it are its symbol, found by traces with each value moved by one."""
    base = _trace(mod, args, kwargs)
    unbacked = base._unbacked
    if not unbacked.sized:
        return base
    moved = unbacked.shifted()
    traces = [base] + [_trace(mod, args, kwargs, shifts=shift) for shift in moved]
    values = [t._unbacked.values for t in traces]
    _unbacked.fitted_shapes(base, traces, values)
    if unbacked.outputs:
        _data_sized.same_arguments(traces)
    return base


def _symbolic(
    mod: Module, args: tuple, kwargs: dict, inputs: list, found: list[_dynamic.Symbol]
) -> ExportedProgram:
    """The program with the ``found`` symbols: traced at the example sizes, with each
    symbol grown by one, and all grown by two (a check); the sizes of every value and of
    every size the forward reads are polynomials fitted to these traces, and a last trace
    writes the sizes passed to ops as ``sym_size`` and arithmetic nodes."""
    start = {s.name: _size_of(s, inputs) for s in found}
    runs = [(args, kwargs, start)]
    for symbol in found:
        grown = {**start, symbol.name: start[symbol.name] + 1}
        runs.append((*_grow(args, kwargs, inputs, {symbol: 1}), grown))
    check = {name: size + 2 for name, size in start.items()}
    runs.append((*_grow(args, kwargs, inputs, {symbol: 2 for symbol in found}), check))
    records = [SizeRecord() for _ in runs]
    traces = [_trace(mod, a, k, record) for (a, k, _), record in zip(runs, records)]
    if traces[0]._unbacked.sized:
        raise NotImplementedError(
            "chainrule.export cannot export a Tensor.item value as a size, or a call of a "
            "data-dependent size (nonzero, x[mask]), together with dynamic_shapes yet; "
            "export without dynamic_shapes, or keep the value a scalar"
        )
    for other in traces[1:]:
        _same_program(traces[0], other)
    values = [sizes for *_, sizes in runs]
    names = [s.name for s in found]
    polys = _sym_sizes.polynomials(records, values, names)
    _sym_sizes.check_constants(records[0], polys)
    forced = _sym_sizes.forced(traces[0].graph)
    full = _sym_sizes.full_slices(records)
    base = traces[0]
    if not forced and any(full):  # (a full ``:`` on a dynamic dim: a slice node)
        base = _trace(mod, args, kwargs, SizeRecord(polys, full))
    if forced:
        # PyTorch's trace numbered a sym_size node for each size read, then wrote one for
        # each dynamic size of the inputs (in their order), keeping the one of each used
        # symbol's naming source
        reads, used = _sym_sizes.leaf_count(forced, polys)
        reads += records[0].dropped_reads(polys)  # (reads its checks made and dropped)
        places = sorted(p for s in found for p in s.places)
        reified = [
            ("sym_size_int" + (f"_{reads + j}" if reads + j else ""), *s.read_at, s.name)
            for s in sorted(found, key=lambda s: s.read_at)
            if s.name in used
            for j in [places.index(s.read_at)]
        ]
        base = _trace(mod, args, kwargs, SizeRecord(polys, full), reified)
    slices = _sym_sizes.unmark_full_slices(base.graph)
    plain = [n for n in base.graph.nodes if "sym_expr" not in n.meta and n not in slices]
    for node, *others in zip(plain, *(t.graph.nodes for t in traces)):
        for meta, *other_metas in zip(_metas(node), *(_metas(o) for o in others)):
            shape = []
            for d in range(len(meta.shape)):
                sizes = [int(m.shape[d]) for m in other_metas]
                poly = _sym_sizes.fitted(sizes, values, names, polys)
                if poly is None:
                    raise NotImplementedError(
                        f"chainrule.export: the size of {node.name} is not a polynomial of "
                        "the dynamic sizes this export finds (sums of multiples, or a size "
                        "the forward computed)"
                    )
                shape.append(poly.terms.get((), 0) if poly.is_constant() else str(poly))
            meta.shape = shape
    for node in slices:  # (the shape of what it slices)
        node.meta["tensor_meta"].shape = list(node.args[0].meta["tensor_meta"].shape)
    _dynamic.narrowed(
        found,
        traces[0].graph.nodes,
        lambda v: polys[v.index] if isinstance(v, SymSize) else None,
    )
    _dynamic.narrowed_by_indexing(found, base.graph.nodes, _END, start)
    unbacked = {k: v for k, v in base.range_constraints.items() if str(k).startswith("u")}
    base._range_constraints = {_Symbol(s.name): ValueRanges(s.lower, s.upper) for s in found}
    base._range_constraints.update(unbacked)
    return base


def _forward_arg_names(mod: Module, args: tuple, kwargs: dict) -> list[str]:
    """The names PyTorch's program gives the forward's arguments: a parameter's name, each
    value of ``*args`` as ``args_0, args_1, ...``, then the keywords given."""
    signature = inspect.signature(mod.forward)
    names: list[str] = []
    for name, value in signature.bind_partial(*args).arguments.items():
        star = signature.parameters[name].kind is inspect.Parameter.VAR_POSITIONAL
        names += [f"{name}_{i}" for i in range(len(value))] if star else [name]
    return names + list(kwargs)


def _metas(node: Node) -> list[TensorMeta]:
    meta = node.meta.get("tensor_meta")
    return ([meta] if meta is not None else []) + list(node.meta.get("output_metas", ()))


def _size_of(symbol: _dynamic.Symbol, inputs: list[tuple[str, Tensor]]) -> int:
    index, d = symbol.places[0]
    return int(inputs[index][1].shape[d])


def _grow(
    args: tuple, kwargs: dict, inputs: list[tuple[str, Tensor]], by: dict
) -> tuple[tuple, dict]:
    """``args`` and ``kwargs`` with each symbol's sizes larger by ``by[symbol]`` (the
    first slices repeated at the end)."""
    import chainrule

    new: dict[int, Tensor] = {}
    for symbol, extra in by.items():
        for index, d in symbol.places:
            t = new.get(id(inputs[index][1]), inputs[index][1])
            with no_grad():
                bigger = chainrule.cat([t.detach(), t.detach().narrow(d, 0, extra)], d)
            new[id(inputs[index][1])] = bigger.requires_grad_(t.requires_grad)
    swap = lambda v: new.get(id(v), v)  # noqa: E731
    return tuple(swap(a) for a in args), {k: swap(v) for k, v in kwargs.items()}


def _plain(value: Any) -> Any:
    if isinstance(value, SymSize):
        return ("size", value.index)
    if isinstance(value, ItemValue):
        return ("item", value.node.name)
    if isinstance(value, Node):
        return ("node", value.name)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _same_program(base: ExportedProgram, other: ExportedProgram) -> None:
    """Refuses a program whose nodes change with the dynamic sizes (beyond their sizes)."""
    a, b = list(base.graph.nodes), list(other.graph.nodes)
    for n, m in zip(a, b):
        if (n.op, n.name, n.target) != (m.op, m.name, m.target):
            break
        if _plain(n.args) != _plain(m.args) or _plain(n.kwargs) != _plain(m.kwargs):
            raise NotImplementedError(
                f"chainrule.export: the arguments of {n.name} ({n.target}) change with a "
                "dynamic size (PyTorch writes them with sym_size nodes, which this export "
                "does not write yet)"
            )
    else:
        if len(a) == len(b):
            return
    raise NotImplementedError("chainrule.export: the program's nodes change with a dynamic size")


def _exporting() -> Any:
    """``compiler.is_exporting()`` True for an export's trace, not for the recording of a
    ``torch.jit.trace`` (which runs this one)."""
    from ..jit._trace._record import is_tracing

    return contextlib.nullcontext() if is_tracing() else compiler._exporting()


def _trace(
    mod: Module,
    args: tuple,
    kwargs: dict,
    sizes: SizeRecord | None = None,
    reified: list[tuple[str, int, int, str]] = (),
    shifts: dict[str, int] | None = None,
) -> ExportedProgram:
    """One trace of ``mod(*args, **kwargs)`` on the inputs' sizes; ``sizes`` records the
    sizes the forward reads (under dynamic_shapes), ``reified`` names the ``sym_size``
    nodes written after the inputs (name, input, dim, symbol), ``shifts`` moves ``item()``
    values (``_unbacked``)."""
    graph = Graph()
    nodes: dict[int, Node] = {}
    specs: list[InputSpec] = []
    state: dict[str, Any] = {}
    constants: dict[str, Any] = {}
    persistent = {name for name in mod.state_dict()}
    for name, p in mod.named_parameters():
        node = graph.placeholder("p_" + name.replace(".", "_"))
        node.meta["tensor_meta"] = _meta(p)
        nodes[id(p)] = node
        specs.append(InputSpec(InputKind.PARAMETER, TensorArgument(node.name), name))
        state[name] = p
    for name, b in mod.named_buffers():
        node = graph.placeholder("b_" + name.replace(".", "_"))
        node.meta["tensor_meta"] = _meta(b)
        nodes[id(b)] = node
        keep = name in persistent
        specs.append(InputSpec(InputKind.BUFFER, TensorArgument(node.name), name, keep))
        (state if keep else constants)[name] = b
    users = []
    for name, t in _user_inputs(mod, args, kwargs):
        node = _naming.placeholder(graph, name)
        node.meta["tensor_meta"] = _meta(t)
        nodes[id(t)] = node
        users.append(InputSpec(InputKind.USER_INPUT, TensorArgument(node.target), None))
        users[-1].node = node
    for name, index, d, symbol in reified:
        size = ATEN.overload("aten.sym_size.int")
        node = graph.create_node("call_function", size, (users[index].node, d), {}, name=name)
        node.meta["sym_expr"] = symbol
        node.meta["arg_names"] = _schema_args.names("sym_size.int")
        sizes.made[symbol] = node
    first_user = users[0].node if users else None
    recorder = _Recorder(graph, nodes, first_user, sizes, shifts)
    # the trace runs the forward for real: what it writes into buffers (running
    # statistics) is undone, so the module is left as PyTorch's export leaves it
    before = [(b, b.detach().clone()) for _, b in mod.named_buffers()]
    before += [(t, t.detach().clone()) for t in _tensors((args, kwargs))]
    try:
        with rnns_as_nodes(mod, recorder), new_methods_seen(), recorder, _exporting():
            with module_stacks(mod, graph):  # (nodes' nn_module_stack, for unflatten)
                result = mod(*args, **kwargs)
    finally:
        with no_grad():
            for b, value in before:
                b.copy_(value)
    for node, target, t in recorder.constants:
        specs.append(InputSpec(InputKind.CONSTANT_TENSOR, TensorArgument(node.name), target))
        constants[target] = t
    for spec in users:
        del spec.node
    specs += users
    outs = [recorder.node_of(v) if isinstance(v, Tensor) else v for v in _leaves(result)]
    graph.output(tuple(outs))  # (None and numbers among them: constant outputs)
    recorder.unbacked.write_checks()
    for node in list(reversed(graph.nodes)):  # (last first: what read only them goes too)
        if "sym_expr" in node.meta and not node.users:
            graph.erase_node(node)  # (a size found equal to another one computed first)
    out_specs = [
        OutputSpec(
            OutputKind.USER_OUTPUT,
            TensorArgument(n.name) if isinstance(n, Node) else ConstantArgument("", n),
            None,
        )
        for n in outs
    ]
    in_spec = spec_of((tuple(args), dict(kwargs)))
    root = {
        "inputs": [],
        "outputs": [],
        "in_spec": in_spec,
        "out_spec": spec_of(result),
        "forward_arg_names": _forward_arg_names(mod, args, kwargs),
    }
    calls = [ModuleCallEntry("", root)]
    calls += [ModuleCallEntry(name, None) for name, _ in mod.named_modules() if name]
    program = ExportedProgram(
        graph,
        ExportGraphSignature(specs, out_specs),
        state,
        range_constraints=_unbacked_ranges(recorder.unbacked),
        module_call_graph=calls,
        example_inputs=(tuple(args), dict(kwargs)),
        constants=constants,
        verifiers=["TRAINING"],
    )
    program._unbacked = recorder.unbacked  # (for the traces of item() sizes: export)
    if recorder.unbacked.outputs:
        _data_sized.merge_getitems(program)  # (_unique2's getitems, after the code)
    return program
