"""Entries specialised per op: the hot calls of every training loop (``x + y``, ``y * 2``)
in one function each, the op's constants bound once.

Each does for its common case what ``Op._fast`` (recording.py) does, one or two calls less,
and hands every other case to the general path; tests/autograd/test_recording_cost.py pins
each to it (values, dtype, grad_fn, next_functions, saved values, gradients, errors).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import _dtypes, _tensor
from .._backend import in_use, ndarray, quiet_call, quietly, scalar, xp
from .._backend import mm as _mm
from .._meta import live as _meta_live
from .._modes import usual as _usual
from .._tensor import Tensor, _counter, _make
from . import forward_ad, grad_mode
from .anomaly_mode import _anomaly
from .graph import OUTPUT_CHECK
from .graph import next_seq as _next_seq
from .recording import PROFILER as _PROFILER
from .recording import Op, _translate
from .saved_hooks import hooked as _hooked
from .saving import _SHAPES as _shapes
from .saving import _save_output as save_output
from .saving import _saved_version, kept_shape

_new = object.__new__
param = _tensor.PARAMETER  # ([nn.Parameter]: taken as a plain tensor by the entries)
_state = grad_mode._state
_fw_state = forward_ad.state

_NO_PARAMS: dict = {}
_NONE1 = (None,)  # _saved of a plan saving one input, kept in its slot
_NONE2 = (None, None)  # ... two inputs


def _specialisable(op: Op, arity: int, named: bool = False) -> bool:
    """Whether an entry can stand for ``op`` with ``arity`` inputs (and its parameters'
    defaults): not a view (its output shares a version counter), its node class known
    before the call (not named per call, unless the entry is ``named``), differentiable."""
    return (
        not op.view
        and (named or op.node_class is not None)
        and op.differentiable
        and len(op.args) == arity
    )


def binary_entry(
    op: Op,
    general: Callable[[Any, Any], Any],
    numbers: bool = True,
    node_class: Callable[[Any, Any], type] | None = None,
) -> Callable[[Any, Any], Any]:
    """``a <op> b`` (an operator: ``x + y``, ``y * 2``, ``x @ w``) in one call for the common
    case, a float tensor with a tensor of its dtype or (``numbers``) a Python number: the
    forward, the output and its node made here as ``Op._fast`` makes them, the op's constants
    bound once. ``node_class(x, y)``, for an op whose node is named per call, gives its
    class from the arrays. Anything else (another dtype or operand, a stale view, forward or
    anomaly mode, a device array) goes to ``Op._fast`` or to ``general(a, b)``.
    tests/autograd/test_recording_cost.py pins it to the general path."""
    if not _specialisable(op, 2, node_class is not None):
        raise TypeError(f"{op.name}: no binary entry (see _specialisable)")
    forward = op.plain  # (no parameter is ever given here)
    quiet_ = op.quiet
    cls = op.node_class
    plans = op._plans
    plan_for = op.plan
    fast = op._fast
    state = _state
    fw_state = _fw_state
    anomaly = _anomaly
    meta_live = _meta_live
    usual_ = _usual
    tensor_mod = _tensor
    generic = xp.generic
    # per bits (which inputs need gradients): the inputs the plan saves when it saves inputs
    # alone (mul's: d(ab)/da = b), else ()
    saves_inputs: list = [()]
    for need in ((True, False), (False, True), (True, True)):
        plan = op.plan(need)
        alone = 0 < len(plan.kinds) <= 2 and all(k == "arg" for k in plan.kinds)
        saves_inputs.append(plan.keys if alone else ())
    # both inputs need gradients and the plan saves both (mul's): in which order, b first
    # or a first; None otherwise (both are tensors then: no number to check for)
    both = saves_inputs[3]
    b_first = None if len(both) != 2 else both == (1, 0) if set(both) == {0, 1} else None

    def entry(a: Tensor, b: Any) -> Tensor:
        c = b.__class__
        usual = usual_[0]  # (nothing below is on anywhere: _modes.usual)
        if (a.__class__ is not Tensor and a.__class__ is not param[0]) or (
            not usual and (meta_live[0] or _PROFILER[0] is not None)
        ):
            return general(a, b)
        dtype = a._dtype
        if c is Tensor:
            if b._dtype is not dtype:
                return general(a, b)
            y = b._data
        elif (c is float or c is int) and numbers:
            y = b  # (the forward gets it as a kept 0-d array: _backend.scalar)
        elif c is param[0]:  # (a Parameter: a tensor like any other here)
            if b._dtype is not dtype:
                return general(a, b)
            y = b._data
            c = Tensor
        else:
            return general(a, b)
        if not dtype._native:
            return general(a, b)
        x = a._data
        z = y if c is Tensor else scalar(b, x.dtype)
        try:
            if quiet_:  # (floating-point errors ignored: _backend.quietly)
                try:
                    out = quietly(forward, x, z)
                except RuntimeError as exc:
                    if not in_use(exc):
                        raise
                    out = quiet_call(forward, x, z)
            else:
                out = forward(x, z)
        except ValueError as exc:
            raise _translate(exc, (x, y)) from None
        if out.__class__ is not ndarray and isinstance(out, generic):
            out = xp.asarray(out)  # a 0-d result's NumPy scalar: a 0-d array
        view = a._view
        other = b._view if c is Tensor else None
        if (
            out.__class__ is not ndarray
            or out.dtype is not x.dtype
            or view is not None
            and a._vc[1] > view[2]  # a view whose base was written since: re-derived there
            or other is not None
            and b._vc[1] > other[2]
            or not usual
            and (
                _PROFILER[0] is not None
                or fw_state.level
                or anomaly.record
                or tensor_mod._inference_contexts  # (an inference tensor is made by _make)
                or _hooked[0]  # (saved_tensors_hooks: Op._wrap packs what is saved)
            )
        ):
            return fast((a, b), (x, y), _NO_PARAMS, cls, out)  # (it sees to these cases)
        if not usual and not state.enabled:
            return _make(out, dtype)
        if c is Tensor:
            bits = a._requires_grad | b._requires_grad << 1
        else:
            bits = 1 if a._requires_grad else 0
        if not bits:
            return _make(out, dtype)
        plan = plans[bits] or plan_for((bool(bits & 1), bool(bits & 2)))
        node = _new(cls if node_class is None else node_class(x, y))
        node._seq = _next_seq()
        node._op = op
        node._plan = plan
        node._arity = 2
        node._rest = ()
        node._checks = ()
        node._extra = None
        if bits & 1:
            fn = a._grad_fn
            node._fn0 = a if fn is None else fn  # a leaf: see Node._next
            node._nr0 = a._output_nr
            shape = x.shape
            node._shape0 = kept = _shapes.get(shape) or kept_shape(shape)
            node._dtype0 = dtype
        else:
            node._fn0 = node._shape0 = node._dtype0 = shape = kept = None
            node._nr0 = 0
        if bits & 2:
            fn = b._grad_fn
            node._fn1 = b if fn is None else fn
            node._nr1 = b._output_nr
            shape1 = y.shape  # (the kept tuple of the first, when they agree: no lookup)
            node._shape1 = kept if shape1 == shape else _shapes.get(shape1) or kept_shape(shape1)
            node._dtype1 = dtype
        else:
            node._fn1 = node._shape1 = node._dtype1 = None
            node._nr1 = 0
        # the output tensor, as _make makes it (inlined: this runs once per op; never an
        # inference tensor here, inference mode goes to Op._fast)
        result = _new(Tensor)
        result._data = out
        result._dtype = dtype
        result._requires_grad = True
        result._grad_fn = node
        result._output_nr = 0
        result._grad = result._vc = result._acc = result._hooks = result._post_hooks = None
        result._view = None
        result._retains_grad = False
        fixed = plan.fixed
        if fixed is not None:
            node._saved = fixed
        elif bits == 3 and b_first is not None:  # both tensors saved (_inputs_saver, inlined)
            if b_first:
                v = b
                w = a
            else:
                v = a
                w = b
            node._in0 = v
            node._in1 = w
            vc = v._vc
            node._v0 = 0 if vc is None else vc[0] if vc.__class__ is list else _saved_version(v)
            vc = w._vc
            node._v1 = 0 if vc is None else vc[0] if vc.__class__ is list else _saved_version(w)
            node._saved = _NONE2
        elif saves_inputs[bits]:  # the plan saves inputs alone (recording._inputs_saver, inlined)
            keys = saves_inputs[bits]
            v = b if keys[0] else a
            node._in0 = v
            vc = None if v.__class__ is float or v.__class__ is int else v._vc
            node._v0 = 0 if vc is None else vc[0] if vc.__class__ is list else _saved_version(v)
            if len(keys) == 1:
                node._in1 = None
                node._v1 = 0
                node._saved = _NONE1
            else:
                w = b if keys[1] else a
                node._in1 = w
                vc = None if w.__class__ is float or w.__class__ is int else w._vc
                node._v1 = 0 if vc is None else vc[0] if vc.__class__ is list else _saved_version(w)
                node._saved = _NONE2
        else:
            plan.save(node, plan, (a, b), (x, y), _NO_PARAMS, out, result)
        return result

    entry.__name__ = op.name
    return entry


_ndarray_dot = ndarray.dot  # (unbound: no method object made per call)


def matmul_entry(
    op: Op, general: Callable[[Any, Any], Any], node_class: Callable[[Any, Any], type]
) -> Callable[[Any, Any], Any]:
    """``a @ b`` for two float tensors of one dtype that are vectors of one length (a dot),
    matrices whose inner sizes agree (an mm) or a matrix and a vector (an mv), as
    ``binary_entry`` makes it for matmul, with
    the forward, node class and saved layouts chosen here by the number of dims: matmul's
    saves both inputs and the layouts of those needing a gradient (``x_layout``; a vector's
    is "C"). Anything else (other dims or dtypes, a stale view, any rare mode: not
    ``_modes.usual``) goes to ``general(a, b)``. tests/autograd/test_recording_cost.py pins
    it to the general path."""
    if not _specialisable(op, 2, True):
        raise TypeError(f"{op.name}: no matmul entry (see _specialisable)")
    plans = op._plans
    plan_for = op.plan
    for bits in (1, 2, 3):
        kinds = plan_for((bool(bits & 1), bool(bits & 2))).kinds
        if kinds != ("arg", "arg") + ("layout",) * (1 if bits < 3 else 2):
            raise TypeError(f"{op.name}: not matmul's save plans")
    quiet_ = op.quiet
    usual_ = _usual
    mm = _mm
    single = _dtypes.float32  # (a dot of these two: BLAS's; others, matmul's loops)
    double = _dtypes.float64
    one = xp.empty(1)
    dot_class = node_class(one, one)  # (the class depends on the dims alone)
    mm_class = node_class(one[None], one[None])
    mv_class = node_class(one[None], one)
    matmul = xp.matmul
    # the saved tuple per bits (which inputs need gradients) and layouts (a's, b's): the
    # inputs in the node's slots (None in theirs), the layouts of those needing gradients
    saved = [
        None,
        {(p, q): (None, None, p) for p in "CF" for q in "CF"},
        {(p, q): (None, None, q) for p in "CF" for q in "CF"},
        {(p, q): (None, None, p, q) for p in "CF" for q in "CF"},
    ]
    vectors = [None] + [table["C", "C"] for table in saved[1:]]

    def entry(a: Tensor, b: Any) -> Tensor:
        if (
            b.__class__ is not Tensor
            and b.__class__ is not param[0]
            or a.__class__ is not Tensor
            and a.__class__ is not param[0]
            or not usual_[0]
        ):
            return general(a, b)
        dtype = a._dtype
        view = a._view
        other = b._view
        if (
            b._dtype is not dtype
            or view is not None
            and a._vc[1] > view[2]  # a view whose base was written since: re-derived there
            or other is not None
            and b._vc[1] > other[2]
        ):
            return general(a, b)
        x = a._data
        y = b._data
        if x.ndim == 1:
            if (dtype is not single and dtype is not double) or y.ndim != 1 or len(x) != len(y):
                return general(a, b)
            try:  # (BLAS's dot, as _matmul; floating-point errors ignored: quietly)
                out = quietly(_ndarray_dot, x, y).__array__()
            except RuntimeError as exc:
                if not in_use(exc):
                    raise
                out = quiet_call(_ndarray_dot, x, y).__array__()
            cls = dot_class
            la = lb = "C"
            same = True  # (two vectors of one length: one kept shape for both)
        elif x.ndim == 2 and y.ndim <= 2 and x.shape[1] == y.shape[0] and dtype._native:
            # a matrix times a matrix (mm: _backend.mm's operand order) or a vector (mv)
            product = mm if y.ndim == 2 else matmul
            if quiet_:  # (floating-point errors ignored: _backend.quietly)
                try:
                    out = quietly(product, x, y)
                except RuntimeError as exc:
                    if not in_use(exc):
                        raise
                    out = quiet_call(product, x, y)
            else:
                out = product(x, y)
            flags = x.flags
            la = "F" if flags.f_contiguous and not flags.c_contiguous else "C"  # saving.layout
            if y.ndim == 2:
                cls = mm_class
                flags = y.flags
                lb = "F" if flags.f_contiguous and not flags.c_contiguous else "C"
            else:
                cls = mv_class
                lb = "C"
            same = False
        else:
            return general(a, b)
        bits = a._requires_grad | b._requires_grad << 1
        if not bits:
            return _make(out, dtype)
        node = _new(cls)
        node._seq = _next_seq()
        node._op = op
        node._plan = plans[bits] or plan_for((bool(bits & 1), bool(bits & 2)))
        node._arity = 2
        node._rest = ()
        node._checks = ()
        node._extra = None
        if bits & 1:
            fn = a._grad_fn
            node._fn0 = a if fn is None else fn  # a leaf: see Node._next
            node._nr0 = a._output_nr
            shape = x.shape
            node._shape0 = kept = _shapes.get(shape) or kept_shape(shape)
            node._dtype0 = dtype
        else:
            node._fn0 = node._shape0 = node._dtype0 = kept = None
            node._nr0 = 0
        if bits & 2:
            fn = b._grad_fn
            node._fn1 = b if fn is None else fn
            node._nr1 = b._output_nr
            if same and kept is not None:
                node._shape1 = kept
            else:
                shape = y.shape
                node._shape1 = _shapes.get(shape) or kept_shape(shape)
            node._dtype1 = dtype
        else:
            node._fn1 = node._shape1 = node._dtype1 = None
            node._nr1 = 0
        # both inputs saved (_inputs_layouts_saver, inlined)
        node._in0 = a
        node._in1 = b
        vc = a._vc
        node._v0 = 0 if vc is None else vc[0] if vc.__class__ is list else _saved_version(a)
        vc = b._vc
        node._v1 = 0 if vc is None else vc[0] if vc.__class__ is list else _saved_version(b)
        node._saved = vectors[bits] if cls is dot_class else saved[bits][la, lb]
        # the output tensor, as _make makes it (inlined, as in binary_entry)
        result = _new(Tensor)
        result._data = out
        result._dtype = dtype
        result._requires_grad = True
        result._grad_fn = node
        result._output_nr = 0
        result._grad = result._vc = result._acc = result._hooks = result._post_hooks = None
        result._view = None
        result._retains_grad = False
        return result

    entry.__name__ = op.name
    return entry


def unary_entry(op: Op, general: Callable[..., Any]) -> Callable[..., Any] | None:
    """``f(x)`` (``relu(x)``, ``x.exp()``) in one call for a float tensor, as ``binary_entry``
    for operators: everything else goes to ``Op._fast`` or to ``general(x, out=out)``. None
    for an op no entry can stand for (``_specialisable``)."""
    if not _specialisable(op, 1):
        return None
    forward = op.plain  # (no parameter is ever given here)
    quiet_ = op.quiet
    cls = op.node_class
    plans = op._plans
    plan_for = op.plan
    fast = op._fast
    state = _state
    fw_state = _fw_state
    anomaly = _anomaly
    meta_live = _meta_live
    usual_ = _usual
    tensor_mod = _tensor

    def entry(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
        usual = usual_[0]  # (nothing below is on anywhere: _modes.usual)
        if (
            input.__class__ is not Tensor
            and input.__class__ is not param[0]
            or out is not None
            or not usual
            and (meta_live[0] or _PROFILER[0] is not None)
        ):
            return general(input, out=out)
        dtype = input._dtype
        if not dtype._native:
            return general(input, out=out)
        x = input._data
        if quiet_:  # (floating-point errors ignored: _backend.quietly)
            try:
                y = quietly(forward, x)
            except RuntimeError as exc:
                if not in_use(exc):
                    raise
                y = quiet_call(forward, x)
        else:
            y = forward(x)
        if (
            y.__class__ is not ndarray
            or y.dtype is not x.dtype
            or input._view is not None
            or not usual
            and (
                _PROFILER[0] is not None
                or fw_state.level
                or anomaly.record
                or tensor_mod._inference_contexts  # (an inference tensor is made by _make)
                or _hooked[0]  # (saved_tensors_hooks: Op._wrap packs what is saved)
            )
        ):
            return fast((input,), (x,), _NO_PARAMS, cls, y)  # (it sees to these cases)
        if not input._requires_grad or not usual and not state.enabled:
            return _make(y, dtype)
        plan = plans[1] or plan_for((True,))
        node = _new(cls)
        node._seq = _next_seq()
        node._op = op
        node._plan = plan
        node._arity = 1
        node._checks = ()
        node._extra = None
        fn = input._grad_fn
        node._fn0 = input if fn is None else fn  # a leaf: see Node._next
        node._nr0 = input._output_nr
        shape = x.shape
        node._shape0 = _shapes.get(shape) or kept_shape(shape)
        node._dtype0 = dtype
        # the output tensor, as _make makes it (inlined: this runs once per op; never an
        # inference tensor here, inference mode goes to Op._fast)
        result = _new(Tensor)
        result._data = y
        result._dtype = dtype
        result._requires_grad = True
        result._grad_fn = node
        result._output_nr = 0
        result._grad = result._vc = result._acc = result._hooks = result._post_hooks = None
        result._view = None
        result._retains_grad = False
        fixed = plan.fixed
        if fixed is not None:
            node._saved = fixed
        elif plan.save is save_output:  # (inlined: a fresh output has no version counter yet)
            node._saved = (y,)
            node._checks = OUTPUT_CHECK
            node._out_vc = None
            node._out_v = 0
            node._out_id = id(result)
        else:
            plan.save(node, plan, (input,), (x,), _NO_PARAMS, y, result)
        return result

    entry.__name__ = op.name
    return entry


def unary_recorder(op: Op, cls: type) -> Callable[[Tensor, Any, Any], Tensor]:
    """``record(input, x, y)``: the output tensor of ``op`` (node class ``cls``) on a float
    tensor ``input`` (its array ``x``, no parameters given) whose forward its caller ran
    (``y``; ``x.sum()`` calls NumPy's reduction itself): what ``Op._fast`` makes of it, as
    ``unary_entry`` makes it, everything else handed to ``Op._fast``."""
    if op.view or not op.differentiable or len(op.args) != 1:
        raise TypeError(f"{op.name}: no recorder for a view or a non-differentiable op")
    plan = op.plan((True,))
    fast = op._fast
    state = _state
    fw_state = _fw_state
    anomaly = _anomaly
    tensor_mod = _tensor
    usual = _usual
    # a plan saving the input's shape and parameters (their defaults: none are given), as
    # sum's: the saved tuple is the shape and these, the shape the one read for _shape0
    rest = None
    if plan.kinds[:1] == ("shape",) and all(k == "param" for k in plan.kinds[1:]):
        rest = tuple(op.params[key] for key in plan.keys[1:])
    two = rest is not None and len(rest) == 2  # (sum's: dim and keepdim, read once here)
    r0, r1 = rest if two else (None, None)

    def record(input: Tensor, x: Any, y: Any) -> Tensor:
        if y.__class__ is not ndarray and isinstance(y, xp.generic):
            y = xp.asarray(y)  # a full reduction's NumPy scalar: a 0-d array
        if (
            y.__class__ is not ndarray
            or y.dtype is not x.dtype
            or input._view is not None
            or not usual[0]
            and (
                _PROFILER[0] is not None
                or fw_state.level
                or anomaly.record
                or tensor_mod._inference_contexts
                or _meta_live[0]
                or not state.enabled
                or _hooked[0]
            )
        ):
            return fast((input,), (x,), _NO_PARAMS, cls, y)  # (it sees to these cases)
        dtype = input._dtype
        if not input._requires_grad:
            return _make(y, dtype)
        node = _new(cls)
        node._seq = _next_seq()
        node._op = op
        node._plan = plan
        node._arity = 1
        node._checks = ()
        node._extra = None
        fn = input._grad_fn
        node._fn0 = input if fn is None else fn  # a leaf: see Node._next
        node._nr0 = input._output_nr
        shape = x.shape
        node._shape0 = shape = _shapes.get(shape) or kept_shape(shape)
        node._dtype0 = dtype
        # the output tensor, as _make makes it (inlined: this runs once per op; never an
        # inference tensor here, inference mode goes to Op._fast)
        result = _new(Tensor)
        result._data = y
        result._dtype = dtype
        result._requires_grad = True
        result._grad_fn = node
        result._output_nr = 0
        result._grad = result._vc = result._acc = result._hooks = result._post_hooks = None
        result._view = None
        result._retains_grad = False
        if two:
            node._saved = (shape, r0, r1)
        elif rest is not None:
            node._saved = (shape, *rest)
        elif plan.fixed is not None:
            node._saved = plan.fixed
        else:
            plan.save(node, plan, (input,), (x,), _NO_PARAMS, y, result)
        return result

    return record


def slice_entry(op: Op, cls: type) -> Callable[[Tensor, slice], Tensor]:
    """``input[key]`` for a tensor and a plain slice (``x[1:]``), ``op`` being getitem and
    ``cls`` its node class for a slice: the view, its version counter shared with the input,
    its view record (``views.view_record``, inlined) and its node, made as ``Op._fast``
    makes them; anything else (a stale view, forward or anomaly mode, a device array, a
    0-d input) is handed to ``Op._fast``."""
    plan = op.plan((True,))
    if plan.kinds != ("shape", "param") or plan.keys != (0, "key"):
        raise TypeError(f"{op.name}: not getitem's save plan")
    forward = op.forward
    fast = op._fast
    state = _state
    fw_state = _fw_state
    anomaly = _anomaly
    tensor_mod = _tensor
    usual = _usual

    def entry(input: Tensor, key: slice) -> Tensor:
        x = input._data
        params = {"key": key}
        view = input._view
        if (
            x.__class__ is not ndarray
            or not x.ndim
            or view is not None
            and input._vc[1] > view[2]
            or not usual[0]
            and (
                _PROFILER[0] is not None
                or _meta_live[0]
                or fw_state.level
                or anomaly.record
                or tensor_mod._inference_contexts
                or not state.enabled
            )
        ):
            return fast((input,), (x,), params, cls)
        y = forward(x, key=key)  # (a slice of an array is always a view of its memory)
        vc = input._vc
        if vc is None:
            vc = _counter(input)
        dtype = input._dtype
        if view is not None and view[0] is not None:  # (views.view_record)
            record = (view[0], view[1] + ((op, params),), vc[0])
        else:
            record = (input, ((op, params),), vc[0])
        if not input._requires_grad or dtype._category < 2:
            result = _make(y, dtype, vc=vc)
            result._view = record
            return result
        node = _new(cls)
        node._seq = _next_seq()
        node._op = op
        node._plan = plan
        node._arity = 1
        node._checks = ()
        node._extra = None
        fn = input._grad_fn
        node._fn0 = input if fn is None else fn  # a leaf: see Node._next
        node._nr0 = input._output_nr
        shape = x.shape
        node._shape0 = shape = _shapes.get(shape) or kept_shape(shape)
        node._dtype0 = dtype
        node._saved = (shape, key)
        # the output tensor, as _make makes it (inlined: this runs once per op; never an
        # inference tensor here, inference mode goes to Op._fast), a view of the input
        result = _new(Tensor)
        result._data = y
        result._dtype = dtype
        result._requires_grad = True
        result._grad_fn = node
        result._output_nr = 0
        result._grad = result._acc = result._hooks = result._post_hooks = None
        result._vc = vc
        result._view = record
        result._retains_grad = False
        return result

    return entry


def view_entry(op: Op, cls: type, ndim: int) -> Callable[[Any], Any]:
    """``op(input)`` for a view op given no parameter whose node saves nothing (``x.t()``,
    ``op`` being ``t`` and ``cls`` TBackward0), on a tensor of ``ndim`` dims: the view, its
    version counter shared with the input, its view record and its node, made as
    ``Op._fast`` makes them (``slice_entry``'s steps); anything else (an array, another
    number of dims, a stale view, a rare mode) goes to ``op`` itself."""
    plan = op.plan((True,))
    if not op.view or plan.kinds != () or plan.fixed is None:
        raise TypeError(f"{op.name}: not a view whose node saves nothing")
    forward = op.forward
    fixed = plan.fixed
    state = _state
    fw_state = _fw_state
    anomaly = _anomaly
    tensor_mod = _tensor
    usual = _usual
    step = ((op, _NO_PARAMS),)  # (the view record's step: op(base) with no parameter)

    def entry(input: Any) -> Any:
        if input.__class__ is not Tensor and input.__class__ is not param[0]:
            return op(input)  # (an array: a VJP on arrays; anything else: op's own errors)
        x = input._data
        view = input._view
        if (
            x.__class__ is not ndarray
            or x.ndim != ndim
            or view is not None
            and input._vc[1] > view[2]
            or not usual[0]
            and (
                _PROFILER[0] is not None
                or _meta_live[0]
                or fw_state.level
                or anomaly.record
                or tensor_mod._inference_contexts
                or not state.enabled
            )
        ):
            return op(input)
        y = forward(x)  # (a view of x's memory)
        vc = input._vc
        if vc is None:
            vc = _counter(input)
        dtype = input._dtype
        if view is not None and view[0] is not None:  # (views.view_record)
            record = (view[0], view[1] + step, vc[0])
        else:
            record = (input, step, vc[0])
        if not input._requires_grad or dtype._category < 2:
            result = _make(y, dtype, vc=vc)
            result._view = record
            return result
        node = _new(cls)
        node._seq = _next_seq()
        node._op = op
        node._plan = plan
        node._arity = 1
        node._checks = ()
        node._extra = None
        fn = input._grad_fn
        node._fn0 = input if fn is None else fn  # a leaf: see Node._next
        node._nr0 = input._output_nr
        shape = x.shape
        node._shape0 = _shapes.get(shape) or kept_shape(shape)
        node._dtype0 = dtype
        node._saved = fixed
        # the output tensor, as _make makes it (inlined), a view of the input
        result = _new(Tensor)
        result._data = y
        result._dtype = dtype
        result._requires_grad = True
        result._grad_fn = node
        result._output_nr = 0
        result._grad = result._acc = result._hooks = result._post_hooks = None
        result._vc = vc
        result._view = record
        result._retains_grad = False
        return result

    entry.__name__ = op.name
    return entry


def view_op_entry(op: Op, cls: type | None) -> Callable[..., Tensor]:
    """``op(input, **params)`` for a view op whose node saves the input's shape and parameters
    (``x.view(5, 4)``, ``x.unsqueeze(0)``, ``x.transpose(0, 1)``, ``x[0]``), called by a
    parser that has checked and normalised ``params`` and knows the node's class (``cls``, or
    ``node_class`` per call):
    the view, its version counter shared with the input, its view record and its node, made
    as ``Op._fast`` makes them (``slice_entry``'s steps); anything else (an array, a stale
    view, a rare mode, a forward whose result is not a view of the input) goes to
    ``Op._fast``. tests/autograd/test_recording_cost.py pins it to the general path."""
    plan = op.plan((True,))
    if not op.view or any(kind != "shape" and kind != "param" for kind in plan.kinds):
        raise TypeError(f"{op.name}: not a view whose node saves shapes and parameters")
    forward = op.forward
    fast = op._fast
    state = _state
    fw_state = _fw_state
    anomaly = _anomaly
    tensor_mod = _tensor
    usual = _usual
    # the saved tuple's items: the input's shape (True) or a parameter (its name, default)
    items = tuple(
        True if kind == "shape" else (key, op.params[key])
        for kind, key in zip(plan.kinds, plan.keys)
    )
    # the common plans' tuples made without a loop: the shape alone (view), one or two
    # parameters (unsqueeze, transpose), the shape and a parameter (getitem)
    pattern = tuple(item is True for item in items)
    one = (True,) == pattern
    first = items[0] if items and items[0] is not True else None
    second = items[1] if len(items) > 1 and items[1] is not True else None

    def entry(input: Tensor, params: dict, node_class: type | None = None) -> Tensor:
        x = input._data
        view = input._view
        kind = cls if node_class is None else node_class  # (a class named per call: getitem)
        if (
            x.__class__ is not ndarray
            or view is not None
            and input._vc[1] > view[2]
            or not usual[0]
            and (
                _PROFILER[0] is not None
                or _meta_live[0]
                or fw_state.level
                or anomaly.record
                or tensor_mod._inference_contexts
                or not state.enabled
            )
        ):
            return fast((input,), (x,), params, kind)
        y = forward(x, **params)
        base = y.base if y.__class__ is ndarray else None
        if base is None or base is not x and base is not x.base:  # (not plainly a view)
            return fast((input,), (x,), params, kind, y)
        vc = input._vc
        if vc is None:
            vc = _counter(input)
        dtype = input._dtype
        if view is not None and view[0] is not None:  # (views.view_record)
            record = (view[0], view[1] + ((op, params),), vc[0])
        else:
            record = (input, ((op, params),), vc[0])
        if not input._requires_grad or dtype._category < 2:
            result = _make(y, dtype, vc=vc)
            result._view = record
            return result
        node = _new(kind)
        node._seq = _next_seq()
        node._op = op
        node._plan = plan
        node._arity = 1
        node._checks = ()
        node._extra = None
        fn = input._grad_fn
        node._fn0 = input if fn is None else fn  # a leaf: see Node._next
        node._nr0 = input._output_nr
        shape = x.shape
        node._shape0 = shape = _shapes.get(shape) or kept_shape(shape)
        node._dtype0 = dtype
        get = params.get
        if one:
            node._saved = (shape,)
        elif pattern == (False,):
            node._saved = (get(*first),)
        elif pattern == (False, False):
            node._saved = (get(*first), get(*second))
        elif pattern == (True, False):
            node._saved = (shape, get(*second))
        else:
            node._saved = tuple([shape if item is True else get(*item) for item in items])
        # the output tensor, as _make makes it (inlined), a view of the input
        result = _new(Tensor)
        result._data = y
        result._dtype = dtype
        result._requires_grad = True
        result._grad_fn = node
        result._output_nr = 0
        result._grad = result._acc = result._hooks = result._post_hooks = None
        result._vc = vc
        result._view = record
        result._retains_grad = False
        return result

    entry.__name__ = op.name
    return entry
