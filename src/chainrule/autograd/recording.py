"""Recording: how an op runs and leaves a node in the graph. One op, one definition.

An op is one call to ``defop``::

    exp = defop(
        "exp", xp.exp, dtypes=FLOAT,
        vjp=lambda g, ans: g * ans,          # d/dx e^x = e^x
    )

- ``forward`` works on backend arrays, with PyTorch's parameter names.
- ``vjp`` is one function per input (a tuple for several inputs, ``None`` for an
  input with no gradient). Its first parameter is the output gradient ``g``; the
  names of the others say what the op must save: an input by its name (``x``,
  ``a``, ``b``), the output as ``ans``, an input's shape as ``x_shape``, an input's
  memory layout as ``x_layout`` (``"F"`` for a matrix stored transposed, else ``"C"``),
  or a keyword parameter of ``forward`` by its name (``dim``). Only those are saved.
- VJPs are written with chainrule's own ops and operators. Called with arrays,
  an op runs its forward on the arrays directly, so backward without
  ``create_graph`` costs little more than the NumPy calls; called with tensors
  (``create_graph=True``) the same code records a graph, so every op has
  derivatives of every order without extra code.
- Broadcasting is undone and gradients are cast back to their input's dtype
  in one place, ``Node.apply`` (graph.py), not in each VJP.

Every node of the graph is connected to its inputs by one function, ``edges_of``:
for ops (``Op``), ops over a sequence of tensors (``SequenceOp``: cat, stack) and
custom ``autograd.Function``s alike.
"""

from __future__ import annotations

import functools
import inspect
import types
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from .. import _dtypes, _meta
from .._backend import (
    IGNORE,
    in_use,
    is_array,
    loud,
    ndarray,
    quiet_call,
    quietly,
    set_errstate,
    xp,
)
from .._backend import align as _align
from .._backend import asanyarray as _asanyarray
from .._backend import current as _current
from .._backend import use as _use
from .._dtypes import dtype as DType
from .._meta import live as _meta_live
from .._modes import usual as _usual
from .._promotion import _NP_SCALAR, as_number, numbers_in, result_type
from .._tensor import INFERENCE_SAVED, Tensor, _counter, _make
from . import bfloat16, forward_ad, grad_mode
from .anomaly_mode import _anomaly, record_creation
from .graph import Node, accumulator, saved_properties
from .graph import next_seq as _next_seq
from .registry import REGISTRY
from .saved_hooks import hooked as _hooked
from .saved_hooks import pack_node
from .saving import _SHAPES, _saver, kept_shape, layout
from .views import alias, check_custom_view, check_view_place, replay_view, view_record

_new = object.__new__

# dtype rules: how the output dtype follows from the inputs'
PROMOTE = "promote"  # PyTorch's type promotion; inputs cast to the result type
FLOAT = "float"  # promoted, then integers and bools become the default float dtype
KEEP = "keep"  # forward decides (reductions, casts, shape ops); no casting of inputs

_state = grad_mode._state
_fw_state = forward_ad.state
_from_np = _dtypes._FROM_NP
_BF16_LIVE = _dtypes.BFLOAT16_LIVE
_REDUCED = _dtypes._Reduced
_NO_EDGE = (None, 0)
# autocast's hook, set while some thread has autocast on (amp/policy.py, with _modes.usual
# False): (op, args, params) -> (args, params) with the inputs cast per the autocast policy
# (the same args object when none is); None otherwise
AUTOCAST: list = [None]
# the profiler's collector, set while a profiler records (chainrule/profiler/collector.py,
# with _modes.usual False): its ``call(op, args, params)`` runs the op inside an event, its
# ``wrap(op, args, arrays, params, out)`` records one whose forward its caller ran, and its
# ``open(op)`` says whether this thread is inside op's event already; None otherwise
PROFILER: list = [None]


def floating_only(kernel: str):
    """A dtype rule: PyTorch's promotion, and its NotImplementedError where the result is
    not floating (``"erf_vml_cpu" not implemented for 'Long'``)."""

    def rule(args, params):
        dtype = result_type(args)
        if dtype._category != 2:
            raise _dtypes.not_implemented(kernel, dtype)
        return dtype

    return rule


def no_bool(message: str, error: type = RuntimeError):
    """A dtype rule: the input's dtype, with PyTorch's error for a bool input."""

    def rule(args, params):
        if args[0]._dtype is _dtypes.bool:
            raise error(message)
        return args[0]._dtype

    return rule


def not_differentiable(name: str) -> tuple:
    """(vjp, jvp) of an op PyTorch has no derivative for: its output requires grad, and
    backward (or forward mode) raises PyTorch's error."""

    def vjp(g):
        """No derivative: raises PyTorch's RuntimeError, "derivative ... is not implemented"."""
        raise RuntimeError(f"derivative for aten::{name} is not implemented")

    def jvp(t):
        """No derivative: raises PyTorch's NotImplementedError (no forward AD)."""
        raise NotImplementedError(
            f"Trying to use forward AD with aten::{name} that does not support it."
        )

    return vjp, jvp


def no_forward_ad(name: str) -> Callable:
    """The JVP of an op PyTorch has a derivative for but no forward mode: its
    NotImplementedError, word for word."""

    def jvp(t):
        """No forward mode: raises PyTorch's NotImplementedError."""
        raise NotImplementedError(
            f"Trying to use forward AD with {name} that does not support it because it has "
            "not been implemented yet.\nPlease file an issue to PyTorch at "
            "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so "
            "that we can prioritize its implementation or submit a PR adding the "
            "implementation to derivatives.yaml"
        )

    return jvp


def array_of(x: Any) -> Any:
    """x's array when x is a tensor, else x itself: what a VJP computes masks and indices
    on (they carry no gradient), whether it runs on arrays or, for create_graph, tensors."""
    return x._data if isinstance(x, Tensor) else x


def np_dtype(x: Any) -> Any:
    """The backend dtype of a tensor, an array or a number."""
    return x._data.dtype if isinstance(x, Tensor) else xp.asarray(x).dtype


def edges_of(inputs) -> tuple[int, tuple, tuple]:
    """How a node connects to its inputs: (bits, edges, metadata).

    Per input, the edge its gradient flows along, ``(node, output_nr)`` (the leaf's
    AccumulateGrad for a leaf), and its (shape, dtype); ``(None, 0)`` and None for an
    input that needs no gradient. Bit i of ``bits`` is set when input i needs one. A view
    whose base was written in place since it was taken is re-derived first.
    """
    bits = 0
    nxt = []
    meta = []
    for i, a in enumerate(inputs):
        if isinstance(a, Tensor) and (a._requires_grad or a._view is not None):
            if a._view is not None and a._vc[1] > a._view[2]:
                refresh_view(a)  # its base was changed in place: re-derive its graph
            if a._requires_grad:
                bits |= 1 << i
                fn = a._grad_fn
                nxt.append((accumulator(a) if fn is None else fn, a._output_nr))
                meta.append((a._data.shape, a._dtype))
                continue
        nxt.append(_NO_EDGE)
        meta.append(None)
    return bits, tuple(nxt), tuple(meta)


def grad_bits(inputs) -> int:
    """Bit i set when input i needs a gradient (``edges_of``'s bits, without the edges). A
    view whose base was written in place since it was taken is re-derived first."""
    bits = 0
    for i, a in enumerate(inputs):
        if isinstance(a, Tensor):
            if a._view is not None and a._vc[1] > a._view[2]:
                refresh_view(a)
            if a._requires_grad:
                bits |= 1 << i
    return bits


_NO_INPUT = (None, 0, None, None)


def _input(a: Any) -> tuple:
    """(node, output_nr, shape, dtype) of an input: the edge its gradient flows along (a leaf
    itself, for its AccumulateGrad made when the edges are read: Node._next) and its
    metadata; ``_NO_INPUT`` if it needs none."""
    if isinstance(a, Tensor) and a._requires_grad:
        fn = a._grad_fn
        return (a if fn is None else fn, a._output_nr, a._data.shape, a._dtype)
    return _NO_INPUT


def connect(node: Node, inputs) -> None:
    """Store in ``node``'s slots, per input, the edge its gradient flows along and its
    (shape, dtype), as ``edges_of`` describes them (after ``grad_bits``)."""
    n = node._arity = len(inputs)
    node._fn0, node._nr0, node._shape0, node._dtype0 = _input(inputs[0])
    if n > 1:
        node._fn1, node._nr1, node._shape1, node._dtype1 = _input(inputs[1])
        node._rest = tuple(_input(a) for a in inputs[2:]) if n > 2 else ()


def refresh_view(t: Tensor) -> Tensor:
    """``t`` itself, or, if its base changed in place since, t re-derived from the base
    (its graph and, in forward mode, its tangent)."""
    base, steps, version = t._view
    if t._vc[1] <= version:
        return t
    check_custom_view(t, steps, rebased=True)  # (a custom Function's output)
    check_view_place(t, base, steps)
    fresh = replay_view(alias(base), steps)
    t._requires_grad = fresh._requires_grad
    regraph(t, fresh._grad_fn, fresh._output_nr)
    forward_ad.refresh_tangent(t)  # before t is marked fresh
    t._view = (base, steps, t._vc[0])
    return t


def regraph(t: Tensor, fn: Node | None, output_nr: int) -> None:
    """``t`` is now output ``output_nr`` of node ``fn`` (written in place, or a view
    re-derived): a gradient it retains (``retain_grad``) moves with it, as in PyTorch."""
    retains = t._retains_grad
    if retains:
        extra = t._grad_fn._extra if t._grad_fn is not None else None
        if extra is not None and extra.retained is not None:
            extra.retained.pop(t._output_nr, None)
        t._retains_grad = False
    t._grad_fn, t._output_nr = fn, output_nr
    if retains and fn is not None:
        t.retain_grad()


class SavePlan(NamedTuple):
    """For one pattern of inputs needing grad: what to save, and each VJP's arguments."""

    kinds: tuple  # "arg", "ans", "shape" or "param", per saved value
    keys: tuple  # the input index or parameter name, per saved value
    vjps: tuple  # (vjp or None, indices into the saved values), per input
    frees: bool  # whether backward frees what was saved (see save_plan)
    args: tuple  # where the first two "arg" entries sit in the saved values (node slots)
    # save(node, plan, args, arrays, params, out, result): keeps what the plan asks for,
    # specialised to its pattern (``_saver``); None when nothing is saved
    save: Callable | None = None
    # what ``save`` keeps in ``_saved`` when the call gives no parameters and the plan saves
    # parameters only (their defaults, ``x + y``), or nothing (``()``); else None
    fixed: tuple | None = None
    # (vjp, indices) when input 0 is the only input with a VJP (``y * 2``, ``relu``), else
    # None: Node.apply's short path
    only0: tuple | None = None
    # where the output sits in the saved values ("ans"), else -1: read by Node._saved_values
    ans: int = -1
    # whether no saved value is a tensor once the inputs in the node's slots are read (at
    # most two inputs saved, no parameter): Node._saved_values then unwraps nothing more
    unwrapped: bool = False
    # with at most two inputs saved (in the node's slots), the places of the saved values
    # that may hold a tensor besides them (parameters given as tensors, the output): what
    # Node._saved_values unwraps once the slots are read; None with more inputs saved
    wrapped: tuple | None = None
    # whether the VJPs share what they compute alike (an op defined with shares=True):
    # Node.apply keeps the results of their ``sharing.shared`` helpers while they run
    shares: bool = False


def save_plan(kinds: tuple, keys: tuple, vjps: tuple, shares: bool = False) -> SavePlan:
    """A SavePlan; backward frees what it saved when that includes inputs or outputs, not
    when only shapes and parameters (as in PyTorch, a node that saved no tensor can run
    again). Stored, not recomputed: the engine reads it once per node. A tensor saved for
    one of the first two "arg" entries lives in a slot of the node (``_in0``, ``_in1``),
    so that a node saving its inputs is still one object for the collector."""
    frees = any(k not in _METADATA for k in kinds)
    args = tuple(i for i, k in enumerate(kinds) if k == "arg")[:2]
    only0 = None
    if vjps and vjps[0][0] is not None and all(v is None for v, _ in vjps[1:]):
        only0 = vjps[0]
    ans = kinds.index("ans") if "ans" in kinds else -1
    unwrapped = kinds.count("arg") <= 2 and "param" not in kinds
    wrapped = None
    if kinds.count("arg") <= 2:
        wrapped = tuple(i for i, k in enumerate(kinds) if k == "param" or k == "ans")
    return SavePlan(
        kinds,
        keys,
        vjps,
        frees,
        args,
        only0=only0,
        ans=ans,
        unwrapped=unwrapped,
        wrapped=wrapped,
        shares=shares,
    )


_METADATA = ("shape", "layout", "param")  # saved kinds that hold no tensor


class Op:
    """A differentiable primitive: forward on arrays plus one VJP per input."""

    def __init__(
        self,
        name: str,
        forward: Callable,
        args: Sequence[str],
        vjp: Any,
        node: str | Callable[..., str] | None,
        dtypes: str,
        view: bool,
        doc: str,
        conventions: str,
        jvp: Any = None,
        ans_reads: tuple | None = None,
        fp_errors: bool = True,
        plain: Callable | None = None,
        shares: bool = False,
        complex: str | None = None,
        storage: bool = False,
    ) -> None:
        self.name = name
        if complex not in (None, "holomorphic", "wirtinger", "refuse"):
            raise ValueError(
                f"{name}: complex must be 'holomorphic', 'wirtinger', 'refuse' or None"
            )
        self.complex = complex  # (see defop)
        self._complex_plans: dict = {}
        self._bfloat16_plans: dict = {}
        # whether the forward computes on its inputs' values: a bfloat16 input is then given
        # to it in float32 and its result rounded (autograd/bfloat16.py); False for ops that
        # only move or copy elements (views, casts, clones, fills: ``storage``)
        self.widens = not (view or storage)
        # how __call__ dispatches an op that keeps its inputs' dtypes (KEEP) to _fast: it
        # takes a tensor whose dtype's ``_keep_lane`` is at most this: 1 real dtypes only (an
        # op without complex VJPs: a complex input goes the general way, to _wrap's complex
        # plans, which refuse it), 2 complex too (bfloat16, lane 4, never: its nodes need
        # their VJPs in float32, _wrap's plans); 0: not KEEP
        self._keep = 0 if dtypes is not KEEP else 1 if complex is None else 2
        self.shares = shares  # (see defop)
        # whether the forward computes numbers that may overflow or be invalid (inf, nan):
        # it runs with NumPy's floating-point warnings off; a view op, or one like maximum
        # that raises no floating-point error, leaves NumPy's error state alone
        self.quiet = fp_errors and not view
        self.ans_reads = ans_reads
        self.forward = forward
        # the forward for a call that gives no parameter (``x + y``): the same function, or
        # one with every parameter at its default, when that is cheaper to call (add's NumPy
        # add, without its Python wrapper for alpha)
        self.plain = plain or forward
        self.args = tuple(args)
        self.dtypes = dtypes
        self.view = view
        self.doc = doc
        self.conventions = conventions
        vjps = vjp if isinstance(vjp, tuple) else (vjp,)
        if len(vjps) != len(self.args):
            raise TypeError(f"{name}: {len(self.args)} inputs but {len(vjps)} VJPs")
        self.raw_vjps = vjps
        # no VJP at all: a function PyTorch does not differentiate, its output never
        # requires grad (no node is recorded)
        self.differentiable = any(v is not None for v in vjps)
        self.params = _forward_params(forward, self.args)
        # the parameters the forward also takes by position, after the inputs (a VJP's
        # ``sum_to(g, x_shape)``): passed so, they are parameters, not inputs of the node
        self._positional = _positional_params(forward, self.args)
        self.save_kinds, self.save_keys, self.vjps = self._plan_saves(vjps)
        jvps = jvp if isinstance(jvp, tuple) else (jvp,)
        if jvp is not None and len(jvps) != len(self.args):
            raise TypeError(f"{name}: {len(self.args)} inputs but {len(jvps)} JVPs")
        # per input: (jvp or None, what it reads); jvp None for an input with no gradient
        self.raw_jvps = jvps if jvp is not None else (None,) * len(self.args)
        self.jvps = tuple(
            (f, tuple(self._classify(n, i) for n in list(inspect.signature(f).parameters)[1:]))
            if f is not None
            else (None, ())
            for i, f in enumerate(self.raw_jvps)
        )
        self._node_name = node or _default_node_name(name)
        self._node_classes: dict[str, type] = {}
        self.node_class = None if callable(self._node_name) else self._class(self._node_name)
        REGISTRY[name] = self

    # ----- definition time -------------------------------------------------------

    def _plan_saves(self, vjps):
        """Read each VJP's parameter names: what it needs saved, by (kind, key)."""
        needs = []
        for i, vjp in enumerate(vjps):
            if vjp is None:
                needs.append(None)
                continue
            names = list(inspect.signature(vjp).parameters)[1:]
            needs.append(tuple(self._classify(n, i) for n in names))
        self._needs = tuple(needs)
        # one plan per bitmask of inputs that need gradients (bit i: input i)
        self._plans: list[SavePlan | None] = [None] * (1 << len(vjps))
        every = self.plan(tuple(v is not None for v in vjps))
        return every.kinds, every.keys, every.vjps

    def plan(self, mask: tuple) -> SavePlan:
        """What to save when the inputs in ``mask`` need gradients (cached per mask)."""
        bits = sum(1 << i for i, m in enumerate(mask) if m)
        plan = self._plans[bits]
        if plan is None:
            specs: list[tuple] = []
            vjps = []
            for need, vjp, spec in zip(mask, self.raw_vjps, self._needs):
                if not need or vjp is None:
                    vjps.append((None, ()))
                    continue
                idx = []
                for item in spec:
                    if item not in specs:
                        specs.append(item)
                    idx.append(specs.index(item))
                vjps.append((vjp, tuple(idx)))
            plan = save_plan(
                tuple(k for k, _ in specs), tuple(k for _, k in specs), tuple(vjps), self.shares
            )
            fixed = None
            if all(k == "param" for k in plan.kinds):
                fixed = tuple(self.params[key] for key in plan.keys)
            plan = plan._replace(save=_saver(self, plan.kinds, plan.keys), fixed=fixed)
            self._plans[bits] = plan
        return plan

    def complex_plan(self, bits: int, n: int) -> SavePlan:
        """The save plan for complex values when the inputs in ``bits`` (of ``n``) need
        gradients: the real plan's, each VJP conjugated for a holomorphic op (see defop);
        chainrule's error for an op without complex derivatives; PyTorch's for one it
        refuses to differentiate on complex values (``complex="refuse"``: its backward is
        refused, its forward mode runs the real JVPs, which hold for complex values)."""
        plan = self._complex_plans.get(bits)
        if plan is None:
            if self.complex is None:
                raise _dtypes.complex_error(self.name)
            if self.complex == "refuse":
                raise RuntimeError(
                    f"{self.name} does not support automatic differentiation for outputs "
                    "with complex dtype."
                )
            plan = self._plans[bits] or self.plan(tuple(bool(bits >> i & 1) for i in range(n)))
            if self.complex == "holomorphic":
                vjps = tuple((conjugated(v), idx) if v else (v, idx) for v, idx in plan.vjps)
                only0 = None if plan.only0 is None else vjps[0]
                plan = plan._replace(vjps=vjps, only0=only0)
            self._complex_plans[bits] = plan
        return plan

    def _special_plan(self, bits: int, n: int, dtype: DType, a: Any) -> SavePlan:
        """The plan of a node whose output or first input is complex or bfloat16."""
        if dtype._category == 3 or a.__class__ is Tensor and a._dtype._category == 3:
            return self.complex_plan(bits, n)
        return bfloat16.plan(self, bits, n, dtype)

    def _classify(self, n: str, i: int) -> tuple[str, Any]:
        if n == "ans":
            return ("ans", None)
        if n in self.args:
            return ("arg", self.args.index(n))
        if n.endswith("_shape") and n[:-6] in self.args:
            return ("shape", self.args.index(n[:-6]))
        if n.endswith("_layout") and n[:-7] in self.args:
            return ("layout", self.args.index(n[:-7]))
        if n in self.params:
            return ("param", n)
        raise TypeError(f"{self.name}: VJP {i} asks for {n!r}, which the op does not have")

    def _class(self, node_name: str) -> type:
        cls = self._node_classes.get(node_name)
        if cls is None:
            namespace = {"__slots__": (), "__module__": "chainrule.autograd"}
            namespace.update(saved_properties(node_name, self))  # (grad_fn._saved_self, ...)
            cls = type(node_name, (Node,), namespace)
            self._node_classes[node_name] = cls
        return cls

    def _dtype_of(self, arr) -> DType:
        return _from_np[arr.dtype]

    def __repr__(self) -> str:
        return f"<op {self.name}>"

    # ----- calling ----------------------------------------------------------------

    def __get__(self, obj, objtype=None):
        return self if obj is None else types.MethodType(self, obj)

    def __call__(self, *args: Any, **params: Any):
        """Run the forward on the inputs' arrays and, when grad is needed, record a node (one
        frame for the common calls: the dispatch to ``_fast`` is here)."""
        for a in args:
            if isinstance(a, Tensor):
                break
        else:
            # No tensor: a VJP running on arrays. Just the forward (a NumPy scalar, which
            # NumPy makes of 0-d arithmetic, becomes a 0-d array: later ops may write into it).
            if _meta_live[0]:  # on a device's arrays: its module is current while it runs
                previous = _use(args)
                if _current[0] is None:
                    _current[0] = previous
                try:
                    return self.forward(*args, **params)
                finally:
                    _current[0] = previous
            out = self.forward(*args, **params)
            return xp.asarray(out) if isinstance(out, xp.generic) else out
        if len(args) > len(self.args) and self._positional:
            args, params = self._by_name(args, params)
        if params:  # (a NumPy scalar parameter is the Python number it holds, as in PyTorch)
            for v in params.values():
                if isinstance(v, _NP_SCALAR):
                    params = numbers_in(params)
                    break
                if v.__class__ is _REDUCED:  # (dtype=torch.bfloat16: in float32, bfloat16.py)
                    return self._slow(args, params)
        # 1. the result dtype, and the inputs cast to it
        first = args[0]
        if first.__class__ is Tensor:
            if self._keep >= first._dtype._keep_lane:  # (no cast: _cast_inputs)
                if len(args) == 1:
                    return self._fast(args, (first._data,), params)
                if len(args) == 2:
                    other = args[1]
                    c = other.__class__
                    if c is Tensor:
                        return self._fast(args, (first._data, other._data), params)
                    if c is float or c is int:
                        return self._fast(args, (first._data, other), params)
            elif first._dtype._native:
                # a float tensor alone, or with a Python number or a tensor of its dtype: the
                # dtype is the tensor's (promotion and the dtype rule decide nothing here;
                # not bfloat16, which NumPy does not compute in: autograd/bfloat16.py)
                if len(args) == 1:
                    return self._fast(args, (first._data,), params)
                if len(args) == 2:
                    other = args[1]
                    c = other.__class__
                    if c is float or c is int:
                        return self._fast(args, (first._data, other), params)
                    if c is Tensor and other._dtype is first._dtype:
                        return self._fast(args, (first._data, other._data), params)
        return self._slow(args, params)

    def _apply(self, args: tuple, params: dict) -> Tensor:
        """``op(*args, **params)``, for a caller holding the arguments as a tuple and a dict."""
        return self(*args, **params)

    def _by_name(self, args: tuple, params: dict) -> tuple[tuple, dict]:
        """The arguments after the inputs, given by position, as the parameters they are."""
        n = len(self.args)
        if not params and len(args) == n + 1:  # (a VJP's ``sum_to(g, x_shape)``)
            return args[:n], {self._positional[0]: args[n]}
        extra = args[n:]
        if len(extra) > len(self._positional):
            return args, params  # (the forward raises Python's TypeError)
        named = dict(zip(self._positional, extra))
        for key in params:
            if key in named:
                raise TypeError(f"{self.name}() got multiple values for argument '{key}'")
        named.update(params)
        return args[:n], named

    def _slow(self, args: tuple, params: dict, profiled: bool = False) -> Any:
        """``_apply``'s general path: the inputs cast to the result dtype (on one device, once
        a device array exists: _backend.align), the forward, ``_wrap``. While a profiler
        records, the call runs inside its event (``profiled``: it is the profiler's call)."""
        if not _usual[0]:
            if PROFILER[0] is not None and not profiled:
                return PROFILER[0].call(self, args, params)
            if AUTOCAST[0] is not None:  # autocast's casts (amp/policy.py)
                args, params = AUTOCAST[0](self, args, params)
        # 2. the forward, on arrays (inf and nan arise silently, as in PyTorch:
        # _backend.quiet; a view op computes no number, so it leaves NumPy's error state alone)
        live = _meta_live[0]  # a device array exists: one device per op (_backend.align)
        if live:
            previous = _current[0]
        token = None if self.view else set_errstate(IGNORE)
        try:
            arrays = self._cast_inputs(args, params)
            if live:
                arrays = _align(arrays)
                _use(arrays)
            # bfloat16 inputs in float32, the results rounded back (autograd/bfloat16.py)
            rounds = None
            if _BF16_LIVE[0] and self.widens:
                rounds = bfloat16.widen(arrays, self.name, self.forward)
                if params:
                    params, rounds = bfloat16.widen_params(params, rounds, self.name)
            try:
                out = self.forward(*arrays, **params)
            except ValueError as exc:
                raise _translate(exc, arrays) from None
            if rounds is not None:
                out = bfloat16.narrow(out, rounds)
        finally:
            if token is not None:
                loud(token)
            if live:
                _current[0] = previous
        return self._wrap(args, arrays, params, out)

    def _fast(
        self, args: tuple, arrays: tuple, params: dict, cls: type | None = None, out: Any = None
    ) -> Any:
        """``_apply`` for one tensor, or a tensor and a number or a tensor of its dtype, whose
        arrays need no cast (``arrays``, given by the caller): the forward, and, when nothing
        else is recording (forward mode, anomaly mode, a meta tensor, a stale view), the
        output and its node made here as ``_wrap`` makes them, for one or two inputs
        (tests/autograd/test_recording_cost.py pins one to the other). A caller that knows
        the node's class passes it (``cls``), one that ran the forward itself its result
        (``out``: ``x.sum()``)."""
        usual = _usual[0]  # (nothing rare is on anywhere: _modes.usual)
        if out is None:
            if not usual and (_meta_live[0] or AUTOCAST[0] is not None or PROFILER[0] is not None):
                # a meta or device array exists (one device per op), autocast is on (the
                # inputs cast per its policy), or a profiler records (an event): in _slow
                return self._slow(args, params)
            # 2. the forward, on arrays (inf and nan arise silently, as in PyTorch:
            # _backend.quiet; an op that computes no number, or none that can raise a
            # floating-point error, leaves NumPy's error state alone)
            forward = self.forward
            try:
                if self.quiet:  # (floating-point errors ignored: _backend.quietly)
                    try:
                        out = quietly(forward, *arrays, **params)
                    except RuntimeError as exc:
                        if not in_use(exc):
                            raise
                        out = quiet_call(forward, *arrays, **params)
                else:
                    out = forward(*arrays, **params) if params else self.plain(*arrays)
            except ValueError as exc:
                raise _translate(exc, arrays) from None
        # 3. the output tensor, with a node when grad mode is on and an input needs a gradient
        if out.__class__ is not ndarray:
            if not isinstance(out, xp.generic):  # several outputs, a MetaArray
                return self._wrap(args, arrays, params, out)
            out = xp.asarray(out)  # a NumPy scalar (a full reduction): a 0-d array
        a = args[0]
        if (
            a._view is not None
            and a._vc[1] > a._view[2]  # its base was changed in place: re-derive its graph
            or not usual
            and (
                _meta_live[0]
                or _fw_state.level
                or _anomaly.record
                or _hooked[0]
                or AUTOCAST[0] is not None  # (autocast: _wrap consults its policy)
                or PROFILER[0] is not None  # (a profiler: _wrap records the call)
            )
        ):
            return self._wrap(args, arrays, params, out)
        vc = None
        if self.view:
            base = out.base  # (a basic-indexing view's base is its input or the input's base)
            if base is not None and (base is arrays[0] or base is arrays[0].base):
                vc = _counter(a)
            elif _is_view(out, arrays[0]):
                vc = _counter(a)
        dtype = _from_np[out.dtype]
        if (
            not usual
            and not _state.enabled
            or dtype._category != 2
            or not self.differentiable
            or not (a._requires_grad or len(args) == 2 and args[1].__class__ is Tensor)
        ):
            if dtype._category == 3:  # complex: the general path's complex plans
                return self._wrap(args, arrays, params, out)
            return _make(out, dtype) if vc is None else self._plain(a, params, out, dtype, vc)
        if cls is None:
            cls = self.node_class or self._class(self._node_name(*arrays, **params))
        if len(args) == 1:
            node = _new(cls)
            node._seq = _next_seq()
            node._arity = 1
            plan = node._plan = self._plans[1] or self.plan((True,))
        else:
            b = args[1]
            if b.__class__ is not Tensor:
                bits = 1
            elif b._view is not None and b._vc[1] > b._view[2]:
                return self._wrap(args, arrays, params, out)
            else:
                bits = a._requires_grad | b._requires_grad << 1
                if not bits:
                    return self._plain(a, params, out, dtype, vc)
            node = _new(cls)
            node._seq = _next_seq()
            node._arity = 2
            if bits & 2:
                fn = b._grad_fn
                node._fn1 = b if fn is None else fn  # a leaf: see Node._next
                node._nr1 = b._output_nr
                shape = arrays[1].shape
                node._shape1 = _SHAPES.get(shape) or kept_shape(shape)
                node._dtype1 = b._dtype
            else:
                node._fn1 = node._shape1 = node._dtype1 = None
                node._nr1 = 0
            node._rest = ()
            plan = node._plan = self._plans[bits] or self.plan((bool(bits & 1), bool(bits & 2)))
            if not bits & 1:
                node._fn0 = node._shape0 = node._dtype0 = None
                node._nr0 = 0
        if a._requires_grad:
            fn = a._grad_fn
            node._fn0 = a if fn is None else fn
            node._nr0 = a._output_nr
            shape = arrays[0].shape
            node._shape0 = _SHAPES.get(shape) or kept_shape(shape)
            node._dtype0 = a._dtype
        node._op = self
        node._checks = ()
        node._extra = None
        result = _make(out, dtype, True, node, 0, vc)
        if vc is not None:
            result._view = view_record(self, a, params, vc)
        if plan.save is None:
            node._saved = ()
        else:
            plan.save(node, plan, args, arrays, params, out, result)
        return result

    def _plain(self, a: Tensor, params: dict, out: ndarray, dtype: DType, vc: Any) -> Tensor:
        """The output tensor when nothing is recorded (a view still records its base)."""
        result = _make(out, dtype, vc=vc)
        if vc is not None:
            result._view = view_record(self, a, params, vc)
        return result

    def _wrap(self, args: tuple, arrays: Sequence, params: dict, out: Any) -> Any:
        """The forward's result ``out`` as the output tensor, with a node when grad mode is on
        and an input needs a gradient: an edge and (shape, dtype) per input in the node's
        slots (``connect`` and ``grad_bits``, inlined for the first two inputs: this runs
        once per op), and what the save plan of those inputs asks for. The one way an op's
        result becomes a tensor: fast paths that compute ``out`` themselves (``x.sum()``,
        ``x[1:]``) end here too."""
        if type(out) is not ndarray:
            if type(out) is tuple:
                return self._apply_multi(args, arrays, params, out)
            out = _asanyarray(out)  # (a MetaArray or a device array stays one)
        usual = _usual[0]  # (nothing rare is on anywhere: _modes.usual)
        if not usual:  # a caller that ran the forward itself (F.linear's addmm) ...
            if PROFILER[0] is not None and not PROFILER[0].open(self):
                # ... while a profiler records: recorded as a call
                return PROFILER[0].wrap(self, args, arrays, params, out)
            if AUTOCAST[0] is not None:
                # ... on inputs autocast would cast: the op again, on the cast inputs
                cast, cast_params = AUTOCAST[0](self, args, params)
                if cast is not args:
                    return self._slow(cast, cast_params)
            if _meta_live[0]:  # a meta input gives a meta output (_meta.py)
                out = _meta.follow(arrays, out)
        a = args[0]
        vc = _counter(a) if self.view and _is_view(out, arrays[0]) else None
        dtype = _from_np[out.dtype]
        bits = 0
        if (usual or _state.enabled) and dtype._category >= 2 and self.differentiable:
            n = len(args)
            if isinstance(a, Tensor):
                if a._view is not None and a._vc[1] > a._view[2]:
                    refresh_view(a)  # its base was changed in place: re-derive its graph
                if a._requires_grad:
                    bits = 1
            if n > 1:
                b = args[1]
                if isinstance(b, Tensor):
                    if b._view is not None and b._vc[1] > b._view[2]:
                        refresh_view(b)
                    if b._requires_grad:
                        bits |= 2
                if n == 3:  # (grad_bits, inlined: addmm, linear's op)
                    c = args[2]
                    if isinstance(c, Tensor):
                        if c._view is not None and c._vc[1] > c._view[2]:
                            refresh_view(c)
                        if c._requires_grad:
                            bits |= 4
                elif n > 3:
                    bits |= grad_bits(args[2:]) << 2
        if not bits:
            result = _make(out, dtype, vc=vc)
            if vc is not None:
                result._view = view_record(self, a, params, vc)
            if not usual and _fw_state.level and dtype._category >= 2:
                forward_ad.push_tangent(self, result, args, params)
            return result
        cls = self.node_class or self._class(self._node_name(*arrays, **params))
        node = _new(cls)
        node._seq = _next_seq()
        node._op = self
        node._arity = n
        if bits & 1:
            fn = a._grad_fn
            node._fn0 = a if fn is None else fn  # a leaf: see Node._next
            node._nr0 = a._output_nr
            node._shape0 = a._data.shape
            node._dtype0 = a._dtype
        else:
            node._fn0 = node._shape0 = node._dtype0 = None
            node._nr0 = 0
        if n > 1:
            if bits & 2:
                fn = b._grad_fn
                node._fn1 = b if fn is None else fn
                node._nr1 = b._output_nr
                node._shape1 = b._data.shape
                node._dtype1 = b._dtype
            else:
                node._fn1 = node._shape1 = node._dtype1 = None
                node._nr1 = 0
            node._rest = (
                ()
                if n == 2
                else (_input(args[2]),)
                if n == 3
                else tuple(_input(x) for x in args[2:])
            )
        if dtype._keep_lane != 1 or a.__class__ is Tensor and a._dtype._keep_lane != 1:
            plan = node._plan = self._special_plan(bits, n, dtype, a)  # (complex, bfloat16)
        else:
            plan = node._plan = self._plans[bits] or self.plan(
                tuple(bool(bits >> i & 1) for i in range(n))
            )
        node._checks = ()
        node._extra = None
        result = _make(out, dtype, True, node, 0, vc)
        if vc is not None:
            result._view = view_record(self, a, params, vc)
        if plan.save is None:
            node._saved = ()
        else:
            plan.save(node, plan, args, arrays, params, out, result)
        if not usual:
            if _hooked[0]:  # saved_tensors_hooks: the saved tensors through the pack hook
                pack_node(node, result)
            if _anomaly.record:
                record_creation(node)
            if _fw_state.level:
                forward_ad.push_tangent(self, result, args, params)
        return result

    def _node(self, args, arrays, params, cls: type | None = None) -> Node | None:
        """A node with an edge and (shape, dtype) per input; None if no input needs a gradient."""
        bits = grad_bits(args)
        if not bits or not self.differentiable:
            return None
        if cls is None:
            cls = self.node_class or self._class(self._node_name(*arrays, **params))
        node = _new(cls)
        node._seq = _next_seq()
        node._op = self
        connect(node, args)
        node._plan = self._plans[bits] or self.plan(
            tuple(bool(bits >> i & 1) for i in range(len(args)))
        )
        node._saved = ()
        node._checks = ()
        node._extra = None
        return node

    def _cast_inputs(self, args: tuple, params: dict) -> list:
        """The inputs' arrays, cast to the result dtype of the op's dtype rule (a NumPy
        scalar is the Python number it holds, as in PyTorch)."""
        rule = self.dtypes
        for a in args:
            if isinstance(a, _NP_SCALAR):
                args = tuple(as_number(a) for a in args)
                break
        if rule is KEEP:
            return [a._data if isinstance(a, Tensor) else a for a in args]
        target = rule(args, params) if callable(rule) else result_type(args)
        if rule is FLOAT:
            if target._category < 2:
                target = _dtypes.get_default_dtype()
            elif target._category == 3 and self.complex is None:  # a function of reals only
                raise _dtypes.not_implemented(self.name, target)
        return [
            (a._data if a._dtype is target else bfloat16.cast(a._data, target))
            if isinstance(a, Tensor)
            # a Python int wraps into an integer dtype, as PyTorch's does (uint8 + -1)
            else xp.asarray(a).astype(target.np)
            if a.__class__ is int and target._category == 1
            else a
            for a in args
        ]

    def _save(self, node, plan, args, arrays, params, out, result) -> None:
        """Keep what the VJPs of the inputs needing gradients asked for, and their versions.

        An input saved as one of the plan's first two "arg" entries goes into a slot of the
        node (``_in0``, ``_in1``), a tensor with its version, and is read back at backward
        (Node._saved_values); its place in ``_saved`` holds None."""
        saved = []
        checks = []
        if plan.args:
            node._in0 = node._in1 = None
            node._v0 = node._v1 = 0
        slot = 0
        for kind, key in zip(plan.kinds, plan.keys):
            if kind == "arg":
                v = args[key]
                tensor = isinstance(v, Tensor)
                if tensor:
                    vc = v._vc
                    if vc is not None and vc.__class__ is not list:
                        raise RuntimeError(INFERENCE_SAVED)  # an inference tensor
                if slot < 2:
                    version = 0 if not tensor or vc is None else vc[0]
                    if slot:
                        node._in1, node._v1 = v, version
                    else:
                        node._in0, node._v0 = v, version
                    slot += 1
                    saved.append(None)
                    continue
                if tensor:
                    vc = _counter(v)
                    checks.append((vc, vc[0], len(saved)))
                slot += 1
            elif kind == "param":
                v = params.get(key, self.params[key])
            elif kind == "ans":  # the output, or every output of a multi-output op
                v = out
                if type(result) is not tuple:
                    result = (result,)
                elif self.ans_reads is not None:  # only the outputs the VJPs read
                    result = tuple(result[i] for i in self.ans_reads)
                for r in result:
                    vc = _counter(r)
                    checks.append((vc, vc[0], len(saved)))
            elif kind == "shape":  # an input's shape
                a = arrays[key]
                v = a.shape if isinstance(a, ndarray) or is_array(a) else ()
            else:  # an input's layout
                v = layout(arrays[key])
            saved.append(v)
        node._saved = tuple(saved)
        if checks:
            node._checks = tuple(checks)

    def _apply_multi(self, args, arrays, params, outs) -> tuple:
        """Ops with several outputs (values and indices, say): only float outputs get grads.
        One node for all; a VJP gets the tuple of the outputs' gradients (None for one that
        got none) as ``g`` and the tuple of outputs as ``ans``; a JVP returns a tuple of
        tangents, one per output (None for none)."""
        results = []
        for o in outs:
            o = o if type(o) is ndarray else _asanyarray(o)
            if _meta_live[0]:
                o = _meta.follow(arrays, o)
            results.append(_make(o, _from_np[o.dtype]))
        results = tuple(results)
        node = None
        if _state.enabled:
            cls = self.node_class or self._class(self._node_name(*arrays, **params))
            node = self._node(args, arrays, params, _multi_class(cls, len(outs)))
        if node is not None:
            if any(r._dtype._category == 3 for r in results) or any(
                isinstance(a, Tensor) and a._dtype._category == 3 for a in args
            ):
                node._plan = self.complex_plan(grad_bits(args), len(args))
            elif any(r._dtype._keep_lane == 4 for r in results) or any(
                isinstance(a, Tensor) and a._dtype._keep_lane == 4 for a in args
            ):
                node._plan = bfloat16.plan(self, grad_bits(args), len(args), results[0]._dtype)
            for nr, r in enumerate(results):
                if r._dtype._category >= 2:
                    r._requires_grad = True
                    r._grad_fn = node
                    r._output_nr = nr
            if node._plan.kinds:
                saved = tuple(r._data for r in results)
                self._save(node, node._plan, args, arrays, params, saved, results)
                if _hooked[0]:  # saved_tensors_hooks (saved_hooks.py)
                    pack_node(node, results)
            if _anomaly.record:
                record_creation(node)
        if _fw_state.level:
            forward_ad.push_tangent(self, results, args, params)
        return results


def _is_view(out: ndarray, a: Any) -> bool:
    """Whether a view op's result is a view of its input ``a``'s memory. An empty result
    shares no memory but is still a view when NumPy made it one (``x[1:1]``: its base is
    a's memory), not when it is a copy (``x[x < 0]`` selecting nothing)."""
    base = out.base
    if base is not None and (base is a or base is a.base):  # (NumPy's base is the owner)
        return True
    if out.size:
        return xp.may_share_memory(out, a)
    return False


def _multi_class(cls: type, n: int) -> type:
    key = (cls, n)
    sub = _MULTI.get(key)
    if sub is None:
        sub = type(cls.__name__, (cls,), {"__slots__": (), "n_outputs": n})
        _MULTI[key] = sub
    return sub


_MULTI: dict = {}


def defop(
    name: str,
    forward: Callable,
    *,
    args: Sequence[str] = ("x",),
    vjp: Any,
    jvp: Any = None,
    node: str | Callable[..., str] | None = None,
    dtypes: str | Callable = PROMOTE,
    view: bool = False,
    doc: str | None = None,
    conventions: str = "",
    ans_reads: tuple | None = None,
    fp_errors: bool = True,
    plain: Callable | None = None,
    shares: bool = False,
    complex: str | None = None,
    storage: bool = False,
) -> Op:
    """Define a differentiable op: its forward on arrays, one VJP and one JVP per input.

    A VJP maps the output gradient ``g`` to an input's gradient; a JVP maps an
    input's tangent ``t`` to its contribution to the output's tangent. Both name
    the values they read (inputs, ``ans``, ``x_shape``, parameters) as their
    remaining parameters. Each states its formula: a lambda in the trailing comment on
    its line, a def in the first line of its docstring (the convention, in
    ``chainrule._opdocs``). Any subgradient convention goes in ``conventions``.

    ``ans_reads``, for an op with several outputs, names the outputs its VJPs read as
    ``ans``: only those are checked for in-place writes (all by default); the others are
    free to change, as outputs PyTorch does not save.

    ``fp_errors=False`` says the forward raises no floating-point error (no overflow, no
    invalid operation: maximum, comparisons), so it runs without switching NumPy's error
    state off and on; on arrays of the op's dtypes only (a cast may overflow).

    ``plain``, where given, is the forward for calls that give no parameter (every one at
    its default), cheaper to call than ``forward`` (a NumPy ufunc for a forward whose Python
    wrapper only handles a parameter); tests/autograd/test_recording_cost.py pins the two.

    ``shares=True`` says the VJPs compute some values alike, through helpers wrapped in
    ``sharing.shared`` (a layer norm's x̂ for the gradients of x and of the weight): while a
    node runs its VJPs, each such value is computed once.

    ``complex`` says how the VJPs serve complex inputs and outputs, where gradients follow
    PyTorch's convention (the conjugate Wirtinger derivative: for a real loss L of z = x + iy,
    the gradient is ∂L/∂x + i ∂L/∂y). ``"holomorphic"``: the op is analytic and its VJPs
    are the real formulas, which extend analytically (g · f'(z)), so on complex values they
    run conjugated, conj(vjp(conj(g))) = g · conj(f'(z)); ``"wirtinger"``: the VJPs are
    written for complex values already (maps linear over the reals: views, sums, copies;
    or real and imag, abs, angle, conj); ``"refuse"``: PyTorch differentiates the op on
    real values only, and recording it on complex values raises PyTorch's "does not
    support automatic differentiation for outputs with complex dtype" (forward mode runs).
    None: recording the op on complex values raises chainrule's error (no complex VJPs yet).

    ``storage=True`` says the forward moves or copies elements without computing on them (a
    cast, a clone, a fill; views say so already): it runs on bfloat16 arrays as they are;
    every other op computes bfloat16 values in float32 and rounds (autograd/bfloat16.py).

    ``doc`` describes what the op computes, in the math (``"e^x"``), where the forward's
    own docstring does not (a NumPy ufunc or function); by default it is the forward's
    docstring.
    """
    if doc is None:
        doc = forward.__doc__ or ""
    return Op(
        name,
        forward,
        args,
        vjp,
        node,
        dtypes,
        view,
        doc,
        conventions,
        jvp,
        ans_reads,
        fp_errors,
        plain,
        shares,
        complex,
        storage,
    )


def contiguous(forward: Callable) -> Callable:
    """``forward`` with its result laid out contiguously, as PyTorch allocates the results of
    reductions, scans, softmax, triu, cat, ...: NumPy keeps its input's memory order, so
    the result for a transposed input would refuse a ``view(-1)`` that PyTorch's takes."""

    @functools.wraps(forward)
    def laid_out(*args: Any, **params: Any) -> Any:
        out = forward(*args, **params)
        if type(out) is ndarray and not out.flags.c_contiguous:
            return xp.ascontiguousarray(out)
        return out

    return laid_out


def _forward_params(forward: Callable, args: tuple) -> dict:
    """The forward's keyword parameters and their defaults (none for a ufunc: its out=,
    where=, ... are NumPy's, not the op's)."""
    if isinstance(forward, xp.ufunc):
        return {}
    try:
        sig = inspect.signature(forward)
    except (TypeError, ValueError):
        return {}
    return {
        n: p.default
        for n, p in sig.parameters.items()
        if n not in args and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
    }


def _positional_params(forward: Callable, args: tuple) -> tuple:
    """The forward's parameters after its inputs that may be given by position (none for a
    ufunc, or a forward whose first parameters are not the op's inputs)."""
    if isinstance(forward, xp.ufunc):
        return ()
    try:
        sig = inspect.signature(forward)
    except (TypeError, ValueError):
        return ()
    ps = list(sig.parameters.values())
    if [p.name for p in ps[: len(args)]] != list(args):
        return ()
    names = []
    for p in ps[len(args) :]:
        if p.kind is not p.POSITIONAL_OR_KEYWORD:
            break
        names.append(p.name)
    return tuple(names)


def _default_node_name(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_")) + "Backward0"


def _translate(exc: ValueError, arrays) -> Exception:
    """NumPy's ValueError for shapes that do not broadcast, as PyTorch's RuntimeError."""
    if "broadcast" not in str(exc):
        return exc
    shapes = [a.shape for a in arrays if isinstance(a, ndarray) or is_array(a)]
    if len(shapes) >= 2:
        a, b = shapes[0], shapes[1]
        for i in range(1, max(len(a), len(b)) + 1):
            da = a[-i] if i <= len(a) else 1
            db = b[-i] if i <= len(b) else 1
            if da != db and da != 1 and db != 1:
                dim = max(len(a), len(b)) - i
                return RuntimeError(
                    f"The size of tensor a ({da}) must match the size of tensor b ({db}) at "
                    f"non-singleton dimension {dim}"
                )
    return RuntimeError(str(exc))


def conjugated(vjp: Callable) -> Callable:
    """A holomorphic op's VJP on complex values: conj(vjp(conj(g), ...)), which is
    g · conj(f'(z)) for the real formula g · f'(z) (PyTorch's convention: see defop)."""
    conj = REGISTRY["conj_physical"]

    def vjp_c(g, *values):
        return conj(vjp(conj(g) if g is not None else g, *values))

    vjp_c.__name__ = vjp_c.__qualname__ = getattr(vjp, "__name__", "vjp")
    vjp_c.__doc__ = vjp.__doc__
    return vjp_c
