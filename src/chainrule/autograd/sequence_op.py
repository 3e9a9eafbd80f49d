"""Ops over a sequence of tensors (cat, stack): one input edge per tensor, recorded as
``recording.Op`` records a fixed number of inputs."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from .. import _meta
from .._backend import align as _align
from .._backend import current as _current
from .._backend import loud, quiet, xp
from .._backend import use as _use
from .._dtypes import dtype as DType
from .._meta import live as _meta_live
from .._modes import usual as _usual
from .._promotion import result_type
from .._tensor import Tensor, _make
from . import forward_ad
from .anomaly_mode import _anomaly, record_creation
from .graph import Node
from .graph import next_seq as _next_seq
from .recording import (
    _NO_INPUT,
    PROFILER,
    SavePlan,
    _fw_state,
    _new,
    _state,
    edges_of,
    save_plan,
)
from .registry import REGISTRY


class SequenceOp:
    """An op over a sequence of tensors (cat, stack): one input edge per tensor.

    ``vjp(g, i, ...)`` gives the gradient of the i-th tensor; its other parameters name
    forward parameters, which are saved. ``jvp(tangents, ...)`` maps the list of tangents
    (zeros for tensors without one) to the output's tangent. The forward takes the list of
    arrays. Listed in the op registry like every op.
    """

    view = False
    args = ("tensors",)
    # complex values: cat's and stack's VJPs cut the gradient into blocks, a map linear over
    # the reals with real coefficients, right for complex values as it is (recording.defop)
    complex = "wirtinger"

    def __init__(
        self,
        name: str,
        forward: Callable,
        vjp: Callable,
        jvp: Callable,
        node: str,
        plain: Callable | None = None,
    ):
        self.name = name
        self.forward = forward
        # the forward of the common case, ``plain(arrays, dim)``: ndarrays of one dtype that
        # the caller checked join (``_fast``); its result may be laid out non-contiguously
        self.plain = plain
        self.raw_vjps = (vjp,)
        self.raw_jvps = (jvp,)
        self.doc = forward.__doc__ or ""
        self.conventions = ""
        self._node_name = node
        self.node_class = type(node, (Node,), {"__slots__": (), "__module__": "chainrule.autograd"})
        self._reads = tuple(list(inspect.signature(vjp).parameters)[2:])
        self._vjps: dict[int, Callable] = {}
        self._plans: dict[tuple, SavePlan] = {}  # per (number of inputs, grad bits)
        REGISTRY[name] = self

    def __repr__(self) -> str:
        return f"<op {self.name}>"

    def _vjp_for(self, i: int) -> Callable:
        vjp = self._vjps.get(i)
        if vjp is None:
            raw = self.raw_vjps[0]

            def vjp(g, *saved):
                return raw(g, i, *saved)

            self._vjps[i] = vjp
        return vjp

    def __call__(self, tensors: Sequence, **params: Any):
        tensors = list(tensors)
        if not _usual[0] and PROFILER[0] is not None and not PROFILER[0].open(self):
            # a profiler records: the call inside an event (the profiler calls it again)
            return PROFILER[0].run(self, lambda: self(tensors, **params), (tensors,))
        if not any(isinstance(t, Tensor) for t in tensors):
            return self.forward([xp.asarray(t) for t in tensors], **params)
        dtype = result_type([t for t in tensors if isinstance(t, Tensor)])
        token = quiet()
        try:
            arrays = [
                (t._data if t._dtype is dtype else t._data.astype(dtype.np))
                if isinstance(t, Tensor)
                else xp.asarray(t, dtype=dtype.np)
                for t in tensors
            ]
            if _meta_live[0]:  # a device array exists: one device per op
                arrays = _align(arrays)
                previous = _use(arrays)
                try:
                    out = self.forward(arrays, **params)
                finally:
                    _current[0] = previous
            else:
                out = self.forward(arrays, **params)
        finally:
            loud(token)
        if _meta_live[0]:
            out = _meta.follow(arrays, out)
        node = None
        if _state.enabled and dtype._category >= 2:
            node = self._node(tensors, params)
        if node is None:
            result = _make(out, dtype)
        else:
            result = _make(out, dtype, True, node, 0)
            if _anomaly.record:
                record_creation(node)
        if _fw_state.level and dtype._category >= 2:
            self._tangent(result, tensors, arrays, params)
        return result

    def _plan(self, n: int, bits: int) -> SavePlan:
        """The save plan when the inputs in ``bits`` (bit i: input i) of ``n`` need gradients:
        every VJP reads the saved parameters."""
        key = (n, bits)  # which of how many inputs need gradients: the plan
        plan = self._plans.get(key)
        if plan is None:
            reads = tuple(range(len(self._reads)))
            vjps = tuple(
                (self._vjp_for(i), reads) if bits >> i & 1 else (None, ()) for i in range(n)
            )
            plan = save_plan(("param",) * len(self._reads), self._reads, vjps)
            if len(self._plans) < 256:  # (kept for the lists a program stacks again and again)
                self._plans[key] = plan
        return plan

    def _node(self, tensors: list, params: dict) -> Node | None:
        bits, nxt, meta = edges_of(tensors)
        if not bits:
            return None
        plan = self._plans.get((len(meta), bits)) or self._plan(len(meta), bits)
        node = _new(self.node_class)
        node._seq = _next_seq()
        node._op = self
        node._set_inputs(nxt, meta)
        node._plan = plan
        node._saved = tuple(params[k] for k in self._reads)
        node._checks = ()
        node._extra = None
        return node

    def _fast(self, tensors: Sequence, arrays: list, dtype: DType, dim: int, saved: tuple):
        """``self(tensors, **params)`` for the common case, which the caller has checked:
        nothing rare on anywhere (``_modes.usual``: grad mode on, no forward or anomaly mode,
        no inference mode, no meta or device array), every input a Tensor (not a subclass)
        of float ``dtype``, none a view whose base was written since, their ``arrays``
        joining with no cast and no 1-D empty array to skip. The forward is ``plain``; the
        output and its node are made here as ``__call__`` makes them, the edge of a leaf
        recorded as the leaf itself (``connect``). ``saved``: the values of the parameters
        the VJP reads, in its order. tests/autograd/test_join_cost.py pins the two paths."""
        out = self.plain(arrays, dim)
        if not out.flags.c_contiguous:  # (laid out as PyTorch allocates it: ``contiguous``)
            out = xp.ascontiguousarray(out)
        result = _new(Tensor)  # (as _make makes it: never an inference tensor here)
        result._data = out
        result._dtype = dtype
        result._output_nr = 0
        result._grad = result._vc = result._acc = result._hooks = result._post_hooks = None
        result._view = None
        result._retains_grad = False
        n = len(tensors)
        bits = 0
        bit = 1
        inputs = []
        append = inputs.append
        for t, a in zip(tensors, arrays):
            if t._requires_grad:
                bits |= bit
                fn = t._grad_fn
                append((t if fn is None else fn, t._output_nr, a.shape, dtype))
            else:
                append(_NO_INPUT)
            bit <<= 1
        if not bits:
            result._requires_grad = False
            result._grad_fn = None
            return result
        node = _new(self.node_class)
        node._seq = _next_seq()
        node._op = self
        node._plan = self._plans.get((n, bits)) or self._plan(n, bits)
        node._arity = n
        node._fn0, node._nr0, node._shape0, node._dtype0 = inputs[0]
        if n > 1:
            node._fn1, node._nr1, node._shape1, node._dtype1 = inputs[1]
            node._rest = tuple(inputs[2:]) if n > 2 else ()
        node._saved = saved
        node._checks = ()
        node._extra = None
        result._requires_grad = True
        result._grad_fn = node
        return result

    def _tangent(self, result: Tensor, tensors: list, arrays: list, params: dict) -> None:
        tangents = [forward_ad.tangent_of(t) if isinstance(t, Tensor) else None for t in tensors]
        if all(t is None for t in tangents):
            return
        with forward_ad.paused():
            # (zeros as tensors: an array beside the tangents would be taken for host data)
            filled = [
                _make(xp.zeros_like(a), result._dtype) if t is None else t
                for t, a in zip(tangents, arrays)
            ]
            tangent = self.raw_jvps[0](filled, **params)
        if not isinstance(tangent, Tensor):
            tangent = _make(tangent, result._dtype)
        forward_ad.attach(result, tangent.to(result._dtype))
