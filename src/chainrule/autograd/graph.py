"""Nodes of the backward graph.

A ``Node`` is made by an op when it records: it keeps the values the op's VJPs
asked for and one edge ``(node, output_nr)`` per input. Each op has its own
Node subclass, so nodes print as PyTorch's do (``<MulBackward0 object at 0x...>``).

References point backwards only (output tensor -> node -> input nodes and saved
inputs), never from a node to its outputs, so a graph is freed by reference
counting as soon as nothing refers to it.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable
from typing import Any

from .. import _backend
from .._backend import ndarray, xp
from .._dtypes import _FROM_NP as _from_np
from .._dtypes import from_numpy_dtype
from .._tensor import Tensor, _make
from ..utils.hooks import RemovableHandle
from .anomaly_mode import _anomaly
from .registry import op as _op
from .saved_hooks import (  # noqa: F401 - torch.autograd.graph's names for them
    PACKED,
    Packed,
    disable_saved_tensors_hooks,
    pack,
    save_on_cpu,
    saved_tensors_hooks,
)
from .sharing import close_memo, open_memo

_RELEASED = None  # _saved after backward without retain_graph

SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


class _Extras:
    """The rarely used parts of a node, kept apart so recording a node stays cheap."""

    __slots__ = (
        "pre",
        "retained",
        "hooks",
        "prehooks",
        "metadata",
        "ans_tangent",
        "scope",
        "checks",
    )

    def __init__(self) -> None:
        self.ans_tangent: tuple | None = None  # (dual level, tangent of the saved output)
        self.pre: dict | None = None  # output_nr -> {handle id: tensor hook}
        self.retained: dict | None = None  # output_nr -> weakref of a tensor retaining grad
        self.hooks: dict | None = None  # {handle id: hook(grad_inputs, grad_outputs)}
        self.prehooks: dict | None = None  # {handle id: prehook(grad_outputs)}
        self.metadata: dict = {}
        self.scope: Any = None  # while recording: the scope the node was made in (anomaly_mode)
        # a node some of whose saved tensors got their own hooks (_RawSaved.register_hooks):
        # its checks from before, for the tensors still saved as they are
        self.checks: tuple | None = None


# Nodes PyTorch implements as C++ classes of torch::autograd, whose name() says so
_CPP_PREFIX = "torch::autograd::"
_CPP_NODES = frozenset({"AccumulateGrad", "CopySlices", "CopyBackwards", "Error", "NotImplemented"})


# A node's ``_checks`` when it saved its one output and checks it through its ``_out_*``
# slots: the collector then tracks the node alone, not a tuple of checks and a counter.
OUTPUT_CHECK = ("the output, through the node's _out_* slots",)


# Nodes are numbered as they are made (every place that makes one sets ``_seq``); a leaf's
# AccumulateGrad has the highest number, as PyTorch's (UINT64_MAX).
next_seq = itertools.count().__next__
LEAF_SEQ = (1 << 64) - 1


class Node:
    """One step of backward: maps gradients of an op's outputs to gradients of its inputs.

    A node is one object: its edges and its inputs' metadata live in its own slots (the first
    two inputs' inline, any further ones in ``_rest``), so the cyclic collector tracks one
    object per recorded op, not a tuple per edge. ``_next`` and ``_meta`` are built from the
    slots when read. The edge of a leaf is recorded as the leaf tensor itself: its
    AccumulateGrad is made (or found) when the edges are first read, so recording an op on
    leaves makes no node for them. Saved input tensors live in slots too (``_in0``,
    ``_in1``), with the version they had, read from the tensor at backward.
    """

    __slots__ = (
        "_op",  # the Op whose VJPs this node runs
        "_saved",  # values the VJPs asked for, in op.saves order; None once freed
        "_checks",  # (version counter, version at save, index into _saved) per saved tensor
        "_plan",  # the op's SavePlan for the inputs that need gradients
        "_extra",  # hooks, retained grads and metadata (_Extras), or None: rarely used
        "_arity",  # the number of inputs
        # input 0 and input 1: the edge (node, output_nr) their gradient flows along and
        # their (shape, dtype); node and shape None for an input that needs no gradient
        "_fn0",
        "_nr0",
        "_shape0",
        "_dtype0",
        "_fn1",
        "_nr1",
        "_shape1",
        "_dtype1",
        "_rest",  # inputs 2, 3, ...: ((node, output_nr, shape, dtype), ...)
        # the first two inputs the VJPs read (the plan's "arg" entries: a tensor, a number),
        # kept here rather than in _saved (which holds None in their places), and the
        # versions of the tensors when saved
        "_in0",
        "_v0",
        "_in1",
        "_v1",
        # an op that saved its one output (``_checks`` is OUTPUT_CHECK): the output's version
        # counter (None until the output has one: Node._counter_made), its version when
        # saved, and the output tensor's id (the node cannot hold the tensor: a cycle)
        "_out_vc",
        "_out_v",
        "_out_id",
        # the node's creation number (PyTorch's sequence_nr): of the nodes ready to run in
        # backward the engine runs the one made last (``next_seq`` numbers them)
        "_seq",
        "__weakref__",
    )
    n_outputs = 1

    def _sequence_nr(self) -> int:
        """The node's creation number: of ready nodes, backward runs the highest first."""
        return self._seq

    def __lt__(self, other: object) -> bool:
        # (two entries of the engine's ready queue with one priority, leaves' nodes: equal,
        # as in PyTorch's queue, so the queue keeps its order among them)
        return False

    def name(self) -> str:
        n = type(self).__name__
        return _CPP_PREFIX + n if n in _CPP_NODES else n

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"

    @property
    def next_functions(self) -> tuple:
        """Per differentiable input, the edge ``(node, output_nr)``: an index or a mask, an
        input with no VJP, is no edge (as in PyTorch, whose node has none for it)."""
        hidden = self._hidden()
        if not hidden:
            return self._next
        return tuple(e for i, e in enumerate(self._next) if i not in hidden)

    def _hidden(self) -> tuple:
        """The positions of the inputs the op has no VJP for (indices, masks): inputs of
        the node, kept for their values, that ``next_functions`` and hooks do not show."""
        vjps = getattr(getattr(self, "_op", None), "raw_vjps", None)
        return () if vjps is None else tuple(i for i, v in enumerate(vjps) if v is None)

    @property
    def _next(self) -> tuple:
        """Per input, the edge ``(node, output_nr)``; ``(None, 0)`` where no gradient flows."""
        n = self._arity
        if n == 0:
            return ()
        fn = self._fn0
        if isinstance(fn, Tensor):  # a leaf: its AccumulateGrad, made on first read
            fn = self._fn0 = accumulator(fn)
        if n == 1:
            return ((fn, self._nr0),)
        fn1 = self._fn1
        if isinstance(fn1, Tensor):
            fn1 = self._fn1 = accumulator(fn1)
        edges = ((fn, self._nr0), (fn1, self._nr1))
        if n == 2:
            return edges
        rest = self._rest
        if any(isinstance(r[0], Tensor) for r in rest):
            rest = self._rest = tuple(
                (accumulator(f), nr, shape, dt) if isinstance(f, Tensor) else (f, nr, shape, dt)
                for f, nr, shape, dt in rest
            )
        return edges + tuple((f, nr) for f, nr, _, _ in rest)

    @property
    def _meta(self) -> tuple:
        """Per input, ``(shape, dtype)`` if it needs a gradient, else None."""
        n = self._arity
        out = [] if n == 0 else [None if self._shape0 is None else (self._shape0, self._dtype0)]
        if n > 1:
            out.append(None if self._shape1 is None else (self._shape1, self._dtype1))
            out += [None if shape is None else (shape, dt) for _, _, shape, dt in self._rest]
        return tuple(out)

    def _set_inputs(self, edges: tuple, meta: tuple) -> None:
        """Store per input its edge ``(node, output_nr)`` and its ``(shape, dtype)`` or None."""
        self._arity = n = len(edges)
        if n:
            (self._fn0, self._nr0), m = edges[0], meta[0]
            self._shape0, self._dtype0 = (None, None) if m is None else m
        if n > 1:
            (self._fn1, self._nr1), m = edges[1], meta[1]
            self._shape1, self._dtype1 = (None, None) if m is None else m
            self._rest = tuple(
                (fn, nr, *((None, None) if m is None else m))
                for (fn, nr), m in zip(edges[2:], meta[2:])
            )

    @property
    def _extras(self) -> _Extras:
        if self._extra is None:
            self._extra = _Extras()
        return self._extra

    def _retain(self, output_nr: int, ref: Callable[[], Tensor | None]) -> None:
        extra = self._extras
        if extra.retained is None:
            extra.retained = {}
        extra.retained[output_nr] = ref

    def _tensor_pre_hook(self, output_nr: int, hook: Callable) -> RemovableHandle:
        extra = self._extras
        if extra.pre is None:
            extra.pre = {}
        return RemovableHandle(extra.pre.setdefault(output_nr, {}), hook)

    def register_hook(self, fn: Callable) -> RemovableHandle:
        """Call ``fn(grad_inputs, grad_outputs)`` after this node runs; it may return new grad_inputs."""
        extra = self._extras
        if extra.hooks is None:
            extra.hooks = {}
        return RemovableHandle(extra.hooks, fn)

    def register_prehook(self, fn: Callable) -> RemovableHandle:
        """Call ``fn(grad_outputs)`` before this node runs; it may return new grad_outputs."""
        extra = self._extras
        if extra.prehooks is None:
            extra.prehooks = {}
        return RemovableHandle(extra.prehooks, fn)

    def _counter_made(self, t: Tensor, vc: list) -> None:
        """``t``, an output of this node, got a version counter (``_tensor._counter``): if
        this node saved it without one, its later versions are checked against it now. A
        tensor has no counter until it is viewed, detached, saved or written in place, so
        every write to the saved output is seen."""
        if self._checks is OUTPUT_CHECK and self._out_vc is None and self._out_id == id(t):
            self._out_vc = vc

    def _saved_values(self, create_graph: bool) -> list:
        """The saved values as the VJPs take them: arrays, or tensors when recording."""
        saved = self._saved
        if saved is None:
            raise RuntimeError(SECOND_BACKWARD)
        if self._checks is PACKED:
            return self._unpacked(create_graph)
        if self._checks is OUTPUT_CHECK:
            vc = self._out_vc
            if vc is not None and vc[0] != self._out_v:
                out = saved[self._plan.ans]
                raise RuntimeError(_modified_message(self, out, vc[0], self._out_v))
        elif self._checks:
            for k, (vc, version, i) in enumerate(self._checks):
                if vc[0] != version:
                    value, nr = saved[i], 0
                    if type(value) is tuple:  # the outputs of a multi-output op: which one
                        nr = [c[2] for c in self._checks[:k]].count(i)
                        reads = getattr(self._op, "ans_reads", None)
                        nr = reads[nr] if reads else nr
                        value = value[nr]
                    raise RuntimeError(_modified_message(self, value, vc[0], version, nr))
        reads = self._plan.args
        if reads:  # the inputs kept in slots; a tensor read now (as PyTorch's saved variables)
            saved = list(saved)
            for i, t, version in zip(reads, (self._in0, self._in1), (self._v0, self._v1)):
                if isinstance(t, Tensor):
                    vc = t._vc
                    now = 0 if vc is None else vc[0]
                    if now != version:
                        raise RuntimeError(_modified_message(self, t, now, version))
                    if not create_graph:
                        t = t._data
                saved[i] = t
        if create_graph:
            ans = self._plan.ans
            if ans >= 0:  # the output, reconnected to this node for higher order
                if saved.__class__ is tuple:
                    saved = list(saved)
                saved[ans] = self._rebuilt(saved[ans])
            return saved
        if self._plan.unwrapped:
            return saved
        wrapped = self._plan.wrapped
        if reads and wrapped is not None:  # (a list already: only these may be tensors)
            for i in wrapped:
                v = saved[i]
                if isinstance(v, Tensor):
                    saved[i] = v._data
            return saved
        return [v._data if isinstance(v, Tensor) else v for v in saved]

    def _saved_names(self) -> dict:
        """PyTorch's name of each entry of the save plan: {name: place in the plan}, for
        ``grad_fn._saved_<name>`` (the properties ``saved_properties`` gives node classes)."""
        try:
            plan, op = self._plan, self._op
        except AttributeError:
            return {}
        if op is None:
            return {}
        names = {}
        args = _saved_arg_names(type(self).__name__, op.args)
        for i, (kind, key) in enumerate(zip(plan.kinds, plan.keys)):
            if kind == "arg":
                names[args[key] if key < len(args) else f"arg{key}"] = i
            elif kind == "ans" and self.n_outputs == 1:
                names["result"] = i
            elif kind == "param":
                names[key] = i
            elif kind == "shape":
                names[(args[key] if key < len(args) else f"arg{key}") + "_sym_sizes"] = i
        return names

    def _saved_named(self, name: str) -> Any:
        where = self._saved_names().get(name)
        if where is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '_saved_{name}'")
        value = self._saved_values(True)[where]
        if type(value) is ndarray:  # (a parameter held as an array: a where's condition)
            return _make(value, _from_np[value.dtype])
        return value

    def _unpacked(self, create_graph: bool) -> list:
        """The saved values as the VJPs take them, where a saved_tensors_hooks pack hook
        packed the tensors (saved_hooks.py): each unpacked by its unpack hook, in the save
        plan's order, no version checked (as in PyTorch); the output rebuilt as this node's
        when recording."""
        values = list(self._stored())
        extra = self._extra
        if extra is not None and extra.checks is not None:  # per-tensor hooks on some only
            self._check_unhooked(values, extra.checks)
        for i, kind in enumerate(self._plan.kinds):
            v = values[i]
            if v.__class__ is Packed:
                t = v.unpack()
                values[i] = v.reconnected(t) if create_graph and kind == "arg" else t._data
            elif kind == "ans" and type(v) is tuple:
                values[i] = tuple(o.unpack()._data if o.__class__ is Packed else o for o in v)
            elif isinstance(v, Tensor) and not create_graph:
                values[i] = v._data
        ans = self._plan.ans
        if create_graph and ans >= 0:
            values[ans] = self._rebuilt(values[ans])
        return values

    def _check_unhooked(self, values: list, checks: tuple) -> None:
        """The version checks of the saved tensors that kept no hooks of their own (a tensor
        with hooks is whatever its unpack hook gives: not checked, as in PyTorch)."""
        slots = self._plan.args
        if slots:
            for t, version in zip((self._in0, self._in1)[: len(slots)], (self._v0, self._v1)):
                if isinstance(t, Tensor):
                    now = 0 if t._vc is None else t._vc[0]
                    if now != version:
                        raise RuntimeError(_modified_message(self, t, now, version))
        if checks is OUTPUT_CHECK:
            vc = self._out_vc
            out = values[self._plan.ans]
            if vc is not None and vc[0] != self._out_v and out.__class__ is not Packed:
                raise RuntimeError(_modified_message(self, out, vc[0], self._out_v))
            return
        for vc, version, i in checks:
            if vc[0] != version and values[i].__class__ is not Packed:
                raise RuntimeError(_modified_message(self, values[i], vc[0], version))

    def _stored(self) -> tuple | None:
        """The saved values as stored, in the plan's order, the inputs kept in slots put in
        their places (tensors as tensors, unchecked); None once freed."""
        saved = self._saved
        if saved is None or not self._plan.args:
            return saved
        saved = list(saved)
        for i, v in zip(self._plan.args, (self._in0, self._in1)):
            saved[i] = v
        return tuple(saved)

    def _rebuilt(self, v: Any) -> Any:
        """The saved output (a tuple of them for a multi-output node) as tensors that are
        this node's outputs again, with their tangents in forward-over-reverse."""
        saved = self._extra.ans_tangent if self._extra is not None else None
        if type(v) is tuple:
            outs = []
            for nr, o in enumerate(v):
                dtype = _from_np[o.dtype]
                if dtype._category != 2:  # an index: no gradient, no node
                    outs.append(_make(o, dtype))
                    continue
                t = _make(o, dtype, True, self, nr)
                if saved is not None and saved[1][nr] is not None:
                    _restore_tangent(t, (saved[0], saved[1][nr]))
                outs.append(t)
            return tuple(outs)
        v = _make(v, _from_np[v.dtype], True, self, 0)
        if saved is not None:
            _restore_tangent(v, saved)
        return v

    def apply(self, grad_outputs: list, create_graph: bool) -> list:
        """The gradient for each input (None where an input needs none)."""
        values = self._saved
        if create_graph or self._checks or values is None:
            values = self._saved_values(create_graph)
        elif self._plan.args:  # the first two inputs the VJPs read live in slots
            in0 = self._in0
            if len(values) == 1 and not isinstance(in0, Tensor):
                values = (in0,)  # a number (``y * 2``): nothing to check or unwrap
            else:
                values = self._saved_values(False)
        # (else nothing to check or unwrap: only numbers, shapes and parameters were saved)
        g = grad_outputs[0] if self.n_outputs == 1 else tuple(grad_outputs)
        only = self._plan.only0
        if only is not None:  # input 0 alone: the loop below, unrolled
            vjp, idx = only
            n = len(idx)
            if n == 1:
                grad = vjp(g, values[idx[0]])
            elif n:
                grad = vjp(g, *[values[j] for j in idx])
            else:  # (a VJP that reads nothing saved: t's, neg's)
                grad = vjp(g)
            shape, dtype = self._shape0, self._dtype0
            if create_graph:
                if (
                    grad.__class__ is not Tensor
                    or grad._data.shape != shape
                    or grad._dtype is not dtype
                ):
                    grad = _fit_tensor(self, 0, grad, (shape, dtype))
            else:
                if grad.__class__ is not ndarray:
                    grad = _backend.asanyarray(grad)  # (a MetaArray or device array stays one)
                gshape = grad.shape
                if gshape != shape:
                    grad = _sum_to(self, 0, grad, shape, gshape)
                npd = dtype.np
                if grad.dtype is not npd and grad.dtype != npd:
                    grad = _cast_grad(grad, npd)
            n = self._arity
            return [grad] if n == 1 else [grad, None] if n == 2 else [grad] + [None] * (n - 1)
        grads = []
        i = -1
        plan = self._plan
        shares = plan.shares
        if shares:  # the VJPs compute values alike: each once (autograd/sharing.py)
            previous = open_memo()
        try:
            for vjp, idx in plan.vjps:
                i += 1
                if vjp is None:
                    grads.append(None)
                    continue
                if len(idx) == 1:
                    grad = vjp(g, values[idx[0]])
                else:
                    grad = vjp(g, *[values[j] for j in idx])
                # the input's (shape, dtype), read from the slots (the _meta property, inlined)
                if i == 0:
                    shape, dtype = self._shape0, self._dtype0
                elif i == 1:
                    shape, dtype = self._shape1, self._dtype1
                else:
                    shape, dtype = self._rest[i - 2][2:]
                if create_graph:
                    if (
                        grad.__class__ is not Tensor
                        or grad._data.shape != shape
                        or grad._dtype is not dtype
                    ):
                        grad = _fit_tensor(self, i, grad, (shape, dtype))
                else:
                    if grad.__class__ is not ndarray:
                        grad = _backend.asanyarray(grad)  # (a MetaArray or device array stays one)
                    gshape = grad.shape
                    if gshape != shape:
                        grad = _sum_to(self, i, grad, shape, gshape)
                    npd = dtype.np
                    if grad.dtype is not npd and grad.dtype != npd:
                        grad = _cast_grad(grad, npd)
                grads.append(grad)
        finally:
            if shares:
                close_memo(previous)
        return grads

    def _release(self) -> None:
        if self._plan.frees:
            self._saved = _RELEASED
            self._in0 = self._in1 = None  # the input tensors saved in slots

    @property
    def metadata(self) -> dict:
        return self._extras.metadata


# PyTorch's names of the inputs a node saves, where they are not self and other
_SAVED_ARG_NAMES = {
    "MmBackward0": ["self", "mat2"],
    "BmmBackward0": ["self", "mat2"],
    "MvBackward0": ["self", "vec"],
    "DotBackward0": ["self", "tensor"],
    "AddmmBackward0": ["self", "mat1", "mat2"],
}


def _saved_arg_names(node_name: str, args: tuple) -> list:
    """PyTorch's names of an op's inputs as its node saves them: self, other, or the
    input's own name (mm's mat2, ...)."""
    return _SAVED_ARG_NAMES.get(node_name) or [
        "self" if i == 0 else "other" if a in ("b", "y", "other") else a for i, a in enumerate(args)
    ]


def saved_properties(node_name: str, op: Any) -> dict:
    """``_saved_<name>`` and ``_raw_saved_<name>`` properties for a node class of ``op``:
    PyTorch's ``grad_fn._saved_self`` and kin, one per name the op's plans can save (a
    name the node at hand did not save raises AttributeError). Properties on the class,
    not ``__getattr__``: a class with ``__getattr__`` loses CPython's fast attribute reads
    for every slot (the engine's loop read 9% slower)."""
    args = _saved_arg_names(node_name, op.args)
    names = {"result", *args, *(f"{a}_sym_sizes" for a in args), *op.params}

    def saved(name: str) -> property:
        return property(lambda self: self._saved_named(name), doc=f"the saved {name}")

    def raw(name: str) -> property:
        def get(self: Node) -> SavedTensor:
            if name not in self._saved_names():
                raise AttributeError(
                    f"'{type(self).__name__}' object has no attribute '_raw_saved_{name}'"
                )
            return SavedTensor(self, name)

        return property(get)

    out: dict = {}
    for name in names:
        out["_saved_" + name] = saved(name)
        out["_raw_saved_" + name] = raw(name)
    return out


class SavedTensor:
    """``grad_fn._raw_saved_<name>``, PyTorch's SavedTensor: ``register_hooks(pack,
    unpack)`` gives this one saved tensor its own hooks, as ``saved_tensors_hooks`` gives
    every tensor saved inside it: ``pack`` runs now, on the tensor, and the node keeps what
    it returns; backward (and ``_saved_<name>``) gets ``unpack`` of that. A hooked tensor's
    version is not checked (what unpack returns is what backward uses)."""

    def __init__(self, node: Node, name: str) -> None:
        self._node = node
        self._name = name

    def register_hooks(self, pack_hook: Callable, unpack_hook: Callable) -> None:
        if not (callable(pack_hook) and callable(unpack_hook)):
            raise TypeError(
                "register_hooks(): incompatible function arguments. The following argument "
                "types are supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: "
                "collections.abc.Callable, arg1: collections.abc.Callable) -> None\n"
            )
        node = self._node
        stored = node._stored()
        if stored is None:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through "
                "the graph a second time or if you need to access saved variables after "
                "calling backward."
            )
        place = node._saved_names()[self._name]
        value = stored[place]
        if value.__class__ is Packed or node._checks is PACKED and not _own_hooks(node):
            raise RuntimeError(
                "Calling register_hooks on a saved tensor whose hooks have already been set. "
                "Hint: only one pair of hooks is allowed at a time."
            )
        if node._plan.kinds[place] == "ans":  # the output, kept as its array
            value = _saved_output(node, value)
        if not isinstance(value, Tensor):  # (a number saved as one: nothing to pack)
            raise RuntimeError(
                f"{type(node).__name__}._raw_saved_{self._name}: only saved tensors take hooks"
            )
        packed = pack(value.detach(), (pack_hook, unpack_hook), value)  # (an alias, as PyTorch)
        if node._checks is not PACKED:
            node._extras.checks = node._checks
            node._checks = PACKED
        slots = node._plan.args
        if place in slots[:2]:
            if slots.index(place) == 0:
                node._in0 = packed
            else:
                node._in1 = packed
        else:
            saved = list(node._saved)
            saved[place] = packed
            node._saved = tuple(saved)


def _own_hooks(node: Node) -> bool:
    """Whether ``node``'s packed tensors were packed one by one (SavedTensor), not all at once
    by saved_tensors_hooks."""
    extra = node._extra
    return extra is not None and extra.checks is not None


def _saved_output(node: Node, value: Any) -> Tensor:
    """The node's output as a tensor (the node keeps its array): for a pack hook."""
    if isinstance(value, Tensor):
        return value
    return _make(value, _from_np[value.dtype])


def _restore_tangent(ans: Tensor, saved: tuple) -> None:
    """Forward over reverse: the rebuilt output gets back its tangent while its level lives."""
    from .forward_ad import _levels

    level, tangent = saved
    if level is not None and _levels and _levels[-1] is level:
        ans._fw = tangent
        level.append(weakref.ref(ans))


def _fit_tensor(node: Node, i: int, grad: Any, meta: tuple) -> Tensor:
    """Undo broadcasting and cast to the input's dtype, recording (``create_graph``).

    With arrays the same two steps are inlined in ``Node.apply``: these are the only
    places where broadcasting is undone.
    """
    shape, dtype = meta
    if not isinstance(grad, Tensor):
        grad = _make(xp.asarray(grad), dtype)
    if grad._data.shape != shape:
        grad = _sum_to(node, i, grad, shape, grad._data.shape)
    if grad._dtype is not dtype:
        if grad._dtype._category == 3 and dtype._category != 3:
            grad = _op("real")(grad)  # a real input of a complex result: Re of its gradient
        grad = _op("to_dtype")(grad, dtype=dtype)
    return grad


def _cast_grad(grad: Any, npd: Any) -> Any:
    """An input's gradient array in the input's dtype: for a real input of a complex
    result, the real part of its complex gradient (PyTorch's, for z = x + iy with x real:
    ∂L/∂x)."""
    if grad.dtype.kind == "c" and npd.kind != "c":
        grad = grad.real
    return grad.astype(npd)


def _sum_to(node: Node, i: int, grad: Tensor, shape: tuple, gshape: tuple) -> Tensor:
    """Sum ``grad`` down to ``shape`` over the dims broadcasting added or stretched."""
    lead = len(gshape) - len(shape)
    if lead == 1 and grad.__class__ is ndarray and gshape[1:] == shape:
        return _op("sum_to").forward(grad, shape=shape)  # a batch summed (a bias's gradient)
    fits = lead >= 0
    if fits:
        for s, gs in zip(shape, gshape[lead:]):  # (a loop: no generator made per gradient)
            if s != 1 and s != gs:
                fits = False
                break
    if not fits:
        raise RuntimeError(
            f"Function {node.name()} returned an invalid gradient at index {i} - got "
            f"{list(gshape)} but expected shape compatible with {list(shape)}"
        )
    op = _op("sum_to")
    if grad.__class__ is ndarray:  # arrays (backward without create_graph): its forward
        return _backend.asanyarray(op.forward(grad, shape=shape))
    return op(grad, shape=shape)


def _modified_message(node: Node, value: Any, now: int, expected: int, nr: int = 0) -> str:
    """PyTorch's error for a saved tensor changed in place since it was saved. It names the
    tensor's producer: for a saved input, the tensor's own grad_fn now (none for a leaf);
    for a saved output (kept as its array), the node that saved it."""
    arr = value._data if isinstance(value, Tensor) else value
    kind = from_numpy_dtype(arr.dtype).legacy_type
    if isinstance(value, Tensor):
        producer, output_nr = value._grad_fn, value._output_nr
    else:
        producer, output_nr = node, nr
    which = f", which is output {output_nr} of {_short_name(producer)}," if producer else ""
    if _anomaly.enabled:
        hint = (
            "Hint: the backtrace further above shows the operation that failed to compute its "
            "gradient. The variable in question was changed in there or anywhere later. Good "
            "luck!"
        )
    else:
        hint = (
            "Hint: enable anomaly detection to find the operation that failed to compute its "
            "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
        )
    return (
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: [{kind} {list(arr.shape)}]{which} is at version {now}; expected "
        f"version {expected} instead. {hint}"
    )


def _short_name(node: Node) -> str:
    """A node's name as PyTorch's version error prints it: ``Add`` for AddBackward0,
    ``Threshold1`` for ThresholdBackward1."""
    name = node.name()
    if name.endswith("Backward0"):
        return name[: -len("Backward0")]
    return name.replace("Backward", "", 1)


class AccumulateGrad(Node):
    """The node of a leaf: adds the incoming gradient into ``variable.grad``."""

    __slots__ = ("variable",)
    _seq = LEAF_SEQ  # (runs as soon as it is ready, as PyTorch's: the highest number)

    def __init__(self, variable: Tensor) -> None:
        self.variable = variable
        self._arity = 0
        self._extra = None

    def _release(self) -> None:
        pass


def accumulator(t: Tensor) -> AccumulateGrad:
    """The AccumulateGrad node of leaf ``t``: made on first use, and kept (the leaf holds it
    weakly) while a graph refers to it."""
    ref = t._acc
    if ref is not None:
        acc = ref()
        if acc is not None:
            return acc
    acc = AccumulateGrad(t)
    t._acc = weakref.ref(acc)
    return acc


def new_node(cls: type) -> Node:
    """A blank node of class ``cls`` (its slots filled in by the op that records it)."""
    node = object.__new__(cls)
    node._extra = None
    node._arity = 0
    node._seq = next_seq()
    return node


def increment_version(tensor: Any) -> None:
    """Count an in-place change autograd cannot see (a write through the array) on a
    tensor or each of several, so that a graph which saved the old value refuses to use it.
    A tensor made under ``inference_mode`` has no version and is left alone."""
    from .._tensor import InferenceCounter, _counter

    tensors = [tensor] if isinstance(tensor, Tensor) else tensor
    try:
        tensors = list(tensors)
    except TypeError:
        raise RuntimeError("increment_version expect a Iterable[Tensor] as input") from None
    for t in tensors:
        if not isinstance(t, Tensor):
            raise RuntimeError("increment_version expect a Iterable[Tensor] as input")
        if t._vc.__class__ is not InferenceCounter:
            _counter(t)[0] += 1


# torch.autograd.graph's other names (imported last: these modules import this one)
from .allow_mutation import allow_mutation_on_saved_tensors  # noqa: E402, F401
from .edges import GradientEdge, get_gradient_edge  # noqa: E402, F401
from .multi_grad_hook import register_multi_grad_hook  # noqa: E402, F401
