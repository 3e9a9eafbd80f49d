"""Saving: what a node keeps for its VJPs, one function per pattern of save plan.

An op's save plan (``recording.SavePlan``) lists what its VJPs read: inputs (``arg``), the
output (``ans``), inputs' shapes and memory layouts, parameters. ``Op._save`` (recording.py)
keeps any plan; ``_saver`` gives a function specialised to the plan's pattern for the common
ones, its places and defaults read once (tests/autograd/test_recording_cost.py pins each to
``Op._save``). The first two inputs saved live in slots of the node (``_in0``, ``_in1``) and
the output's version in its ``_out_*`` slots, so that saving makes no object but the node.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from .._backend import ndarray
from .._tensor import INFERENCE_SAVED, Tensor
from .graph import OUTPUT_CHECK


def layout(a: Any) -> str:
    """``"F"`` for an array stored column-major and not row-major (a matrix seen through
    ``.t()``), else ``"C"``: what a VJP reads as ``x_layout`` to give its gradient the
    input's layout (PyTorch's mm backward reads the strides for the same reason)."""
    if isinstance(a, ndarray):
        flags = a.flags
        if flags.f_contiguous and not flags.c_contiguous:
            return "F"
    return "C"


# The shapes nodes keep of their inputs, one tuple per shape: NumPy makes a new tuple each
# time an array's shape is read, and a chain of a million ops would keep a million equal
# tuples (memory, and objects for the collector to count). Read as
# ``_SHAPES.get(shape) or kept_shape(shape)``.
_SHAPES: dict = {}


def kept_shape(shape: tuple) -> tuple:
    """The one tuple kept for ``shape`` (the set is cleared when it grows past 1024)."""
    if len(_SHAPES) >= 1024:
        _SHAPES.clear()
    _SHAPES[shape] = shape
    return shape


def _shape(a: Any) -> tuple:
    """An input's shape (``()`` for a number), the one tuple kept for it (``kept_shape``):
    a saved tuple of shapes and numbers is then one the collector stops tracking at once."""
    shape = getattr(a, "shape", ())
    return _SHAPES.get(shape) or kept_shape(shape)


def _saver(op: Any, kinds: tuple, keys: tuple) -> Callable | None:
    """The function that keeps what a save plan asks for: one specialised to the plan's
    pattern (an op's inputs, its output, shapes, layouts and parameters), else the general
    ``Op._save``. Each does what ``Op._save`` does for its pattern
    (tests/autograd/test_recording_cost.py pins them to it)."""
    if not kinds:
        return None
    n_args = kinds.count("arg")
    if n_args <= 2 and all(k == "arg" for k in kinds):
        return _inputs_saver(keys)
    if 0 < n_args <= 2 and all(k == "arg" or k == "layout" for k in kinds):
        return _inputs_layouts_saver(kinds, keys)
    if kinds == ("ans",):
        return _save_output
    if all(k == "shape" or k == "param" for k in kinds):
        return _static_saver(op, kinds, keys)
    if n_args <= 2 and kinds.count("ans") <= 1:
        return _mixed_saver(op, kinds, keys)
    return lambda node, plan, *rest: op._save(node, plan, *rest)


def _saved_version(t: Tensor) -> int:
    """The version of ``t`` as it is saved; an inference tensor cannot be saved."""
    vc = t._vc
    if vc is None:
        return 0
    if vc.__class__ is not list:  # an inference tensor's InferenceCounter
        raise RuntimeError(INFERENCE_SAVED)
    return vc[0]


_NONE1 = (None,)
_NONE2 = (None, None)


def _inputs_saver(keys: tuple) -> Callable:
    """Saving one or two inputs (``mul``, ``matmul``): each goes into the node's slot
    ``_in0``/``_in1``, a tensor with its version; ``_saved`` holds None in their places,
    one constant tuple, so that saving makes no object but the node."""
    first = keys[0]
    if len(keys) == 1:

        def save_input(node, plan, args, arrays, params, out, result) -> None:
            v = args[first]
            node._in0 = v
            node._in1 = None
            node._v1 = 0
            node._v0 = _saved_version(v) if isinstance(v, Tensor) and v._vc is not None else 0
            node._saved = _NONE1

        return save_input
    second = keys[1]

    def save_inputs(node, plan, args, arrays, params, out, result) -> None:
        v = args[first]
        w = args[second]
        node._in0 = v
        node._in1 = w
        node._v0 = _saved_version(v) if isinstance(v, Tensor) and v._vc is not None else 0
        node._v1 = _saved_version(w) if isinstance(w, Tensor) and w._vc is not None else 0
        node._saved = _NONE2

    return save_inputs


def _layout_of(a: Any) -> str:
    """``layout(a)``, at once for an array of fewer than two dims (always "C")."""
    return "C" if a.__class__ is ndarray and a.ndim < 2 else layout(a)


def _inputs_layouts_saver(kinds: tuple, keys: tuple) -> Callable:
    """Saving one or two inputs and the memory layouts of some of them, in any order (matmul,
    mm): the inputs as ``_inputs_saver`` saves them, the layouts in ``_saved`` in their
    places, None in the inputs' (one constant tuple per combination of layouts)."""
    save_inputs = _inputs_saver(tuple(key for kind, key in zip(kinds, keys) if kind == "arg"))
    layout_keys = tuple(key for kind, key in zip(kinds, keys) if kind == "layout")
    combos = {}
    for combo in itertools.product("CF", repeat=len(layout_keys)):
        letters = iter(combo)
        combos[combo] = tuple(next(letters) if kind == "layout" else None for kind in kinds)
    if len(layout_keys) == 1:
        (k,) = layout_keys
        one = {c[0]: t for c, t in combos.items()}

        def save_layout(node, plan, args, arrays, params, out, result) -> None:
            save_inputs(node, plan, args, arrays, params, out, result)
            node._saved = one[_layout_of(arrays[k])]

        return save_layout
    k0, k1 = layout_keys
    by_layouts = {p: {q: combos[p, q] for q in "CF"} for p in "CF"}  # (str keys: no tuple)
    arg_keys = tuple(key for kind, key in zip(kinds, keys) if kind == "arg")
    if len(arg_keys) == 2:  # (save_inputs, inlined: matmul's and mm's common case)
        first, second = arg_keys

        def save_both(node, plan, args, arrays, params, out, result) -> None:
            v = args[first]
            w = args[second]
            node._in0 = v
            node._in1 = w
            node._v0 = _saved_version(v) if isinstance(v, Tensor) and v._vc is not None else 0
            node._v1 = _saved_version(w) if isinstance(w, Tensor) and w._vc is not None else 0
            p = arrays[k0]
            q = arrays[k1]
            node._saved = by_layouts["C" if p.__class__ is ndarray and p.ndim < 2 else layout(p)][
                "C" if q.__class__ is ndarray and q.ndim < 2 else layout(q)
            ]

        return save_both

    def save_layouts(node, plan, args, arrays, params, out, result) -> None:
        save_inputs(node, plan, args, arrays, params, out, result)
        node._saved = by_layouts[_layout_of(arrays[k0])][_layout_of(arrays[k1])]

    return save_layouts


def _mixed_saver(op: Any, kinds: tuple, keys: tuple) -> Callable:
    """Saving at most two inputs (in the node's slots, as ``_inputs_saver``), at most the
    output (in the node's ``_out_*`` slots, as ``_save_output``) and any shapes, layouts and
    parameters (``threshold_backward``, ``addmm``, ``log_softmax``): the places and the
    parameters' defaults read once, here."""
    arg_keys = tuple(key for kind, key in zip(kinds, keys) if kind == "arg")
    save_inputs = _inputs_saver(arg_keys) if arg_keys else None
    ans = kinds.index("ans") if "ans" in kinds else -1
    # the values read from the call, by place: shapes and layouts always, the parameters
    # only when the call gives any (else their defaults, in ``fixed``)
    shapes = tuple(i for i, kind in enumerate(kinds) if kind == "shape")
    layouts = tuple(i for i, kind in enumerate(kinds) if kind == "layout")
    named = tuple(
        (i, key, op.params[key])
        for i, (kind, key) in enumerate(zip(kinds, keys))
        if kind == "param"
    )
    fixed = [op.params[key] if kind == "param" else None for kind, key in zip(kinds, keys)]
    if kinds == ("ans", "param"):  # the output and a parameter (log_softmax's, softmax's)
        key1 = keys[1]
        default1 = op.params[key1]

        def save_output_param(node, plan, args, arrays, params, out, result) -> None:
            vc = result._vc
            node._saved = (out, params.get(key1, default1))
            node._checks = OUTPUT_CHECK  # (_save_output)
            node._out_vc = vc
            node._out_v = 0 if vc is None else vc[0]
            node._out_id = id(result)

        return save_output_param

    def save_mixed(node, plan, args, arrays, params, out, result) -> None:
        if save_inputs is not None:
            save_inputs(node, plan, args, arrays, params, out, result)
        saved = fixed.copy()
        for i in shapes:
            saved[i] = _shape(arrays[keys[i]])
        for i in layouts:
            saved[i] = _layout_of(arrays[keys[i]])
        if params:
            for i, key, default in named:
                saved[i] = params.get(key, default)
        if ans >= 0:  # (_save_output)
            saved[ans] = out
            vc = result._vc
            node._checks = OUTPUT_CHECK
            node._out_vc = vc
            node._out_v = 0 if vc is None else vc[0]
            node._out_id = id(result)
        node._saved = tuple(saved)

    return save_mixed


def _save_output(node, plan, args, arrays, params, out, result) -> None:
    """Saving the output (``exp``, ``relu``): its array, and its version to check, in the
    node's slots. A fresh output has no version counter yet (version 0): the node gets it
    when one is made (``Node._counter_made``), so saving makes no object but the node."""
    vc = result._vc
    node._saved = (out,)
    node._checks = OUTPUT_CHECK
    node._out_vc = vc
    node._out_v = 0 if vc is None else vc[0]
    node._out_id = id(result)


def _static_saver(op: Any, kinds: tuple, keys: tuple) -> Callable:
    """Saving shapes of inputs and parameters only (``sum``, ``add``, ``x[1:]``): nothing to
    check. Without parameters given (``x + y``, ``x.sum()``) the parameters saved are the
    forward's defaults, a constant."""
    getters = tuple(
        _shape_getter(key) if kind == "shape" else _param_getter(key, op.params[key])
        for kind, key in zip(kinds, keys)
    )
    defaults = tuple(op.params[key] if kind == "param" else None for kind, key in zip(kinds, keys))
    if "shape" not in kinds:

        def save_params(node, plan, args, arrays, params, out, result) -> None:
            node._saved = tuple([g(arrays, params) for g in getters]) if params else defaults

        return save_params
    if kinds[0] == "shape" and "shape" not in kinds[1:]:
        first, rest = keys[0], defaults[1:]
        if len(kinds) == 2:  # (x_shape, a parameter): x[1:], ...
            key1, default1 = keys[1], defaults[1]

            def save_shape_param(node, plan, args, arrays, params, out, result) -> None:
                node._saved = (_shape(arrays[first]), params.get(key1, default1))

            return save_shape_param

        named = tuple(zip(keys[1:], rest))  # (the parameters' names and defaults)

        def save_shape(node, plan, args, arrays, params, out, result) -> None:
            if params:
                get = params.get
                node._saved = (_shape(arrays[first]), *[get(k, d) for k, d in named])
            else:
                node._saved = (_shape(arrays[first]), *rest)

        return save_shape

    def save_static(node, plan, args, arrays, params, out, result) -> None:
        node._saved = tuple([g(arrays, params) for g in getters])

    return save_static


def _shape_getter(i: int) -> Callable:
    """An input's shape (``()`` for a number)."""
    return lambda arrays, params: _shape(arrays[i])


def _param_getter(name: str, default: Any) -> Callable:
    """A forward parameter, as given or its default."""
    return lambda arrays, params: params.get(name, default)
