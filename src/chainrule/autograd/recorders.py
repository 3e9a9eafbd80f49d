"""Recorders for ops with parameters whose callers run the forward themselves: a reduction
along a dim (``x.sum(1)``, ``x.mean()``), softmax and log_softmax, ``x.norm()``, ``x.max(1)``.

A parser that has checked the common case (a float tensor, an int dim in range, no dtype)
calls the op's forward on the array itself, without ``Op.__call__``'s dispatch or NumPy's
Python wrappers, and hands the result here: ``record(input, x, y, params)`` makes the output
and its node as ``Op._fast`` makes them for one input, the op's constants bound once, as
``entries.unary_recorder`` does for calls without parameters. Every other case (a stale
view, another output dtype, forward or anomaly mode, inference mode, grad mode off, a device
array) goes to ``Op._fast`` with the result. tests/autograd/test_reduce_cost.py pins each
caller to the general path (values, dtype, grad_fn, next_functions, saved values, gradients,
errors).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import _tensor
from .._backend import ndarray, xp
from .._meta import live as _meta_live
from .._modes import usual as _usual
from .._tensor import Tensor, _make
from . import forward_ad, grad_mode
from .anomaly_mode import _anomaly
from .graph import OUTPUT_CHECK
from .graph import next_seq as _next_seq
from .recording import PROFILER as _PROFILER
from .recording import Op
from .saved_hooks import hooked as _hooked
from .saving import _SHAPES as _shapes
from .saving import kept_shape

_new = object.__new__


def recorder(op: Op, cls: type) -> Callable[[Tensor, Any, Any, dict], Tensor]:
    """``record(input, x, y, params)``: the output tensor of ``op`` (node class ``cls``) on a
    float tensor ``input`` (its array ``x``) called with ``params``, whose forward the caller
    ran (``y``): what ``Op._fast`` makes of it, everything else handed to ``Op._fast``.

    The saved values are the op's save plan's for one input needing a gradient; a plan of the
    input's shape and parameters (sum's, mean's) or of the output and one parameter
    (softmax's) is written here, any other by the plan's saver (``saving._saver``)."""
    if op.view or not op.differentiable or len(op.args) != 1:
        raise TypeError(f"{op.name}: no recorder for a view or a non-differentiable op")
    plan = op.plan((True,))
    kinds, keys = plan.kinds, plan.keys
    fast = op._fast
    save = plan.save
    state = grad_mode._state
    fw_state = forward_ad.state
    anomaly = _anomaly
    tensor_mod = _tensor
    usual = _usual
    meta_live = _meta_live
    generic = xp.generic
    # (the shape, then parameters): their names and defaults; (the output, a parameter)
    shape_params = None
    if kinds[:1] == ("shape",) and all(k == "param" for k in kinds[1:]):
        shape_params = tuple((key, op.params[key]) for key in keys[1:])
    two = None
    if shape_params is not None and len(shape_params) == 2:
        two = (*shape_params[0], *shape_params[1])
    output_param = None
    if kinds == ("ans", "param"):
        output_param = (keys[1], op.params[keys[1]])

    def record(input: Tensor, x: Any, y: Any, params: dict) -> Tensor:
        if y.__class__ is not ndarray and isinstance(y, generic):
            y = xp.asarray(y)  # a full reduction's NumPy scalar: a 0-d array
        view = input._view
        if (
            y.__class__ is not ndarray
            or y.dtype is not x.dtype
            or view is not None
            and input._vc[1] > view[2]  # a view whose base was written since: re-derived there
            or not usual[0]
            and (
                _PROFILER[0] is not None
                or fw_state.level
                or anomaly.record
                or tensor_mod._inference_contexts
                or meta_live[0]
                or not state.enabled
                or _hooked[0]  # (saved_tensors_hooks: Op._wrap packs what is saved)
            )
        ):
            return fast((input,), (x,), params, cls, y)  # (it sees to these cases)
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
        # the output tensor, as _make makes it (inlined: never an inference tensor here,
        # inference mode goes to Op._fast)
        result = _new(Tensor)
        result._data = y
        result._dtype = dtype
        result._requires_grad = True
        result._grad_fn = node
        result._output_nr = 0
        result._grad = result._vc = result._acc = result._hooks = result._post_hooks = None
        result._view = None
        result._retains_grad = False
        if two is not None:  # (saving's save_shape, for two parameters: sum's, mean's)
            get = params.get
            node._saved = (shape, get(two[0], two[1]), get(two[2], two[3]))
        elif shape_params is not None:  # (saving's save_shape)
            get = params.get
            node._saved = (shape, *[get(k, d) for k, d in shape_params])
        elif output_param is not None:  # (saving's save_output_param: a fresh output)
            node._saved = (y, params.get(output_param[0], output_param[1]))
            node._checks = OUTPUT_CHECK
            node._out_vc = None
            node._out_v = 0
            node._out_id = id(result)
        else:
            save(node, plan, (input,), (x,), params, y, result)
        return result

    record.__name__ = f"record_{op.name}"
    return record
