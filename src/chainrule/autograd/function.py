"""Custom differentiable functions: ``torch.autograd.Function``.

A subclass gives a ``forward`` and a ``backward`` (static methods); ``apply`` runs
the forward under ``no_grad`` and records one node for all its outputs::

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

As in PyTorch, the ``ctx`` of forward *is* the node: ``y.grad_fn`` is an
instance of ``ExpBackward``, a Node subclass made for each Function subclass,
and the attributes set on ctx can be read on ``y.grad_fn``.

References still point backwards only. The node keeps its saved inputs, and for
a saved *output* only its array (rebuilt, reconnected to the node, when
unpacked, as ``Node`` does for ``ans``), so a graph with custom functions is
freed by reference counting like any other. ``save_for_backward``,
``mark_dirty`` and ``mark_non_differentiable`` are read once the forward
returns and then dropped from ctx, since they name outputs.

Nothing here imports ``_tensor`` or ``graph`` at module level: this module is
imported while ``_tensor`` itself is still loading. The Node subclasses are
made on first use.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from .._modes import set_enabled
from . import grad_mode, saved_hooks
from .function_transforms import check_transformable

__all__ = ["Function", "FunctionCtx", "once_differentiable"]

_state = grad_mode._state
_F = TypeVar("_F", bound=Callable[..., Any])

_ONCE_MESSAGE = "trying to differentiate twice a function that was marked with @once_differentiable"


class FunctionCtx:
    """What ``forward`` (or ``setup_context``) uses to pass information to ``backward``."""

    def save_for_backward(self, *tensors: Any) -> None:
        """Keep tensors (or None) for backward, where ``saved_tensors`` returns them.

        Saved tensors are checked when unpacked: modifying one in place in between
        raises. Call at most once, from ``forward`` or ``setup_context``.
        """
        _check_tensors("save_for_backward", tensors)
        self.to_save = tensors

    def save_for_forward(self, *tensors: Any) -> None:
        """Keep tensors for ``jvp`` (forward mode), where ``saved_tensors`` returns them."""
        _check_tensors("save_for_forward", tensors)
        self.saved_for_forward = tensors

    def mark_dirty(self, *args: Any) -> None:
        """Declare input tensors that forward modified in place (they must be returned)."""
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args: Any) -> None:
        """Declare outputs that do not require grad (backward still gets a gradient slot)."""
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        """With False, backward receives None (not zeros) for outputs that got no gradient."""
        self.materialize_grads = bool(value)


def _check_tensors(api: str, tensors: tuple) -> None:
    from .._tensor import Tensor

    for i, t in enumerate(tensors):
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(
                f"{api} can only save variables, but argument {i} is of type {type(t).__name__}"
            )


class _SavedTensor:
    """One value of ``save_for_backward``, with its version at save time.

    An output of the node is kept as its array only (``tensor`` is None) and rebuilt
    on unpacking, so the node never refers to its own outputs.
    """

    __slots__ = ("tensor", "data", "dtype", "vc", "version", "output_nr", "requires_grad")

    def __init__(self, t: Any, output_nr: int | None) -> None:
        from .._tensor import INFERENCE_SAVED, InferenceCounter, _counter

        vc = _counter(t)
        if vc.__class__ is InferenceCounter:
            raise RuntimeError(INFERENCE_SAVED)
        self.vc = vc
        self.version = vc[0]
        self.data = t._data
        self.dtype = t._dtype
        if output_nr is None:
            self.tensor = t
            self.output_nr = 0
            self.requires_grad = False
        else:
            self.tensor = None
            self.output_nr = output_nr
            self.requires_grad = t._requires_grad

    def unpack(self, node: Any) -> Any:
        from .._tensor import _make
        from .graph import _modified_message

        now = self.vc[0]
        if now != self.version:
            saved = self.data if self.tensor is None else self.tensor
            raise RuntimeError(_modified_message(node, saved, now, self.version))
        if self.tensor is not None:
            return self.tensor
        if self.requires_grad:
            return _make(self.data, self.dtype, True, node, self.output_nr, self.vc)
        return _make(self.data, self.dtype, vc=self.vc)


class _PackedSavedTensor:
    """One value of ``save_for_backward`` under ``saved_tensors_hooks``: what the pack hook
    made of it, unpacked by the unpack hook when read (no version checked, as in PyTorch);
    an output of the node comes back as that output again (its ``grad_fn`` the node)."""

    __slots__ = ("packed", "output_nr", "requires_grad")

    def __init__(self, t: Any, output_nr: int | None, hooks: tuple) -> None:
        self.packed = saved_hooks.pack(t, hooks)
        self.output_nr = output_nr
        self.requires_grad = t._requires_grad

    def unpack(self, node: Any) -> Any:
        from .._tensor import _make

        t = self.packed.unpack()
        if not self.requires_grad:
            return t
        if self.output_nr is None:  # an input: in its place in the graph (saved_hooks.Packed)
            return self.packed.reconnected(t)
        return _make(t._data, t._dtype, True, node, self.output_nr)


class FunctionMeta(type):
    """Gives each Function subclass its own node class, ``<Name>Backward`` (made on first use)."""

    def __init__(cls, name: str, bases: tuple, attrs: dict) -> None:
        super().__init__(name, bases, attrs)
        cls._backward_cls_ = None

    @property
    def _backward_cls(cls) -> type:
        bw = cls.__dict__.get("_backward_cls_")
        if bw is None:
            bw = type(
                cls.__name__ + "Backward",
                (_backward_base(),),
                {"_forward_cls": cls, "__module__": "chainrule.autograd.function"},
            )
            cls._backward_cls_ = bw
        return bw


class Function(metaclass=FunctionMeta):
    """Base class of custom differentiable operations (use ``MyFunction.apply(...)``).

    Define static ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)``
    (one gradient per forward argument, None where there is none); or a
    ``forward(*args)`` without ctx plus ``setup_context(ctx, inputs, output)``.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn(
            f"{type(self)} should not be instantiated. Methods on autograd functions are all "
            "static, so you should invoke them on the class itself. Instantiating an autograd "
            "function will raise an error in a future version of PyTorch.",
            DeprecationWarning,
            stacklevel=2,
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please "
            "use new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        """The computation, on tensors, run without recording; override it."""
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> Any:
        """Fill ``ctx`` from the inputs and output, for a ``forward`` written without ctx."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        """The gradient of each forward input from the gradients of the outputs; override it."""
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    vjp = backward

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        """Forward mode: the tangent of each output from the tangents of the inputs."""
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it "
            "with forward mode AD."
        )

    generate_vmap_rule = False  # (True: vmap may run forward once per sample)

    @staticmethod
    def vmap(info: Any, in_dims: Any, *args: Any) -> Any:
        """The rule under ``torch.vmap``: override it or set ``generate_vmap_rule``."""
        raise NotImplementedError(
            "To use autograd.Function with vmap, you must either override the vmap "
            "staticmethod or set generate_vmap_rule=True."
        )

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run ``forward`` on ``args`` and connect its outputs to the graph."""
        setup = cls.setup_context is not Function.setup_context
        check_transformable(cls, setup)
        if setup:
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        if kwargs:
            args, kwargs = _bind_keywords(cls.forward, args, kwargs, skip=0 if setup else 1)
        return _apply(cls, args, kwargs, setup)


def _bind_keywords(forward: Callable, args: tuple, kwargs: dict, skip: int) -> tuple:
    """Keyword arguments as positional ones, as PyTorch passes them (no gaps allowed)."""
    params = [
        p
        for p in inspect.signature(forward).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ][skip:]
    kwargs = dict(kwargs)
    args = list(args)
    for i in range(len(args), len(params)):
        if not kwargs:
            break
        name = params[i].name
        if name not in kwargs:
            raise TypeError(f"forward() missing required argument: '{name}' (position {i})")
        args.append(kwargs.pop(name))
    for name in kwargs:
        raise TypeError(f"forward() got an unexpected keyword argument '{name}'")
    return tuple(args), {}


def _apply(cls: FunctionMeta, args: tuple, kwargs: dict, setup: bool) -> Any:
    from .._tensor import Tensor
    from . import forward_ad
    from .anomaly_mode import _anomaly, record_creation
    from .graph import new_node
    from .recording import edges_of, save_plan

    ctx = new_node(cls._backward_cls)
    bits, nxt, meta = edges_of(args)
    ctx._op = None
    ctx._saved = ()
    ctx._checks = ()
    # one edge per tensor argument (other arguments get no gradient slot)
    is_tensor = tuple(isinstance(a, Tensor) for a in args)
    ctx._set_inputs(
        tuple(e for e, t in zip(nxt, is_tensor) if t),
        tuple(m for m, t in zip(meta, is_tensor) if t),
    )
    ctx._plan = save_plan(("ctx",), (None,), ())  # non-empty: the engine frees _saved
    ctx._is_tensor = is_tensor
    ctx.needs_input_grad = tuple(m is not None for m in meta)
    executable = _state.enabled and bits != 0

    tangents = _tangents(args) if forward_ad.state.level else None
    enabled = _state.enabled
    set_enabled(False)
    try:
        with forward_ad.paused():  # tangents go through jvp, not through the ops of forward
            if setup:
                raw = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, raw)
            else:
                raw = cls.forward(ctx, *args, **kwargs)
    finally:
        set_enabled(enabled)

    dirty = () if tangents is None else {id(t) for t in ctx.__dict__.get("dirty_tensors", ())}
    outputs = _wrap_outputs(ctx, args, raw, executable)
    if executable and _anomaly.record:
        record_creation(ctx)
    if tangents is not None:
        _forward_ad(cls, ctx, args, tangents, outputs, dirty)
    return outputs if isinstance(raw, tuple) else outputs[0]


def _wrap_outputs(ctx: Any, args: tuple, raw: Any, executable: bool) -> tuple:
    """Connect forward's outputs to the node ``ctx``; keep what was saved for backward."""
    from .._backend import xp_of
    from .._tensor import Tensor, _counter, _make
    from .views import custom_function_view

    state = ctx.__dict__
    dirty = state.pop("dirty_tensors", ())
    nondiff = {id(t) for t in state.pop("non_differentiable", ())}
    to_save = state.pop("to_save", ())
    if not executable:  # (no backward can run: PyTorch keeps nothing, checks nothing)
        to_save = ()
    outs = raw if isinstance(raw, tuple) else (raw,)
    inputs = {id(a) for a in args if isinstance(a, Tensor)}
    dirty_ids = {id(t) for t in dirty}
    returned = {id(o) for o in outs}
    if any(i not in returned for i in dirty_ids):
        raise RuntimeError(
            "Some elements marked as dirty during the forward method were not returned as "
            "output. The inputs that are modified inplace must all be outputs of the Function."
        )

    results = []
    info = []
    dirty_views: list = []
    seen: set[int] = set()
    for nr, o in enumerate(outs):
        if not isinstance(o, Tensor):
            results.append(o)
            info.append(None)
            continue
        key = id(o)
        source = None  # (the input or earlier output o aliases)
        if key in dirty_ids and key not in seen:
            if executable and o._grad_fn is None and o._requires_grad:
                raise RuntimeError(
                    "a leaf Variable that requires grad has been used in an in-place operation."
                )
            if executable and o._view is not None:
                _check_dirty_view(o)
                dirty_views.append(o)
            o._bump()  # as PyTorch does for every tensor marked dirty
        elif key in inputs or key in seen or o._requires_grad:
            source = o
            o = _make(o._data, o._dtype, vc=_counter(o))  # an alias (PyTorch: a view)
            o._cf_version = o._vc[0]  # an in-place change to it later forbids its grad_fn
        seen.add(key)
        if executable and key not in nondiff and o._dtype._category >= 2:
            if source is not None or o._view is not None and key not in dirty_ids:
                # an alias, or a view made in the forward: writes into it are refused
                o._view = custom_function_view(o, source, len(outs) > 1)
            o._requires_grad = True
            o._grad_fn = ctx
            o._output_nr = nr
            o._retains_grad = False
        results.append(o)
        info.append((o._data.shape, o._dtype, xp_of(o._data)))  # (zeros made there)
    ctx.n_outputs = len(outs)
    for o in dirty_views:
        _rebase_dirty_view(o)
    ctx._out_info = tuple(info)

    # a saved output (a dirty input among them) is kept as its array, not as itself
    outputs = {id(o): nr for nr, o in enumerate(results) if isinstance(o, Tensor)}
    hooks = saved_hooks.current() if executable and saved_hooks.hooked[0] else None
    saved = []
    for t in to_save:
        if t is None:
            saved.append(None)
        elif hooks is not None:  # saved_tensors_hooks: kept as the pack hook made it
            saved.append(_PackedSavedTensor(t, outputs.get(id(t)), hooks))
        else:
            saved.append(_SavedTensor(t, outputs.get(id(t))))
    ctx._saved = tuple(saved)
    return tuple(results)


def _check_dirty_view(o: Any) -> None:
    """A view of a leaf that requires grad cannot be modified in place (PyTorch's check)."""
    base = o._view[0]
    if base is not None and base._requires_grad and base._grad_fn is None:
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place operation."
        )


def _rebase_dirty_view(o: Any) -> None:
    """A view marked dirty: its base becomes "the old base with the view's region from the
    Function" (CopySlices, as for any in-place write into a view), and the view is
    re-derived from that base."""
    from .inplace import view_scatter
    from .recording import regraph
    from .views import alias, replay_view

    base, steps, _ = o._view
    if base is None:
        return
    new_base = view_scatter(alias(base), o, steps=steps)
    vc = o._vc
    base._requires_grad = True
    regraph(base, new_base._grad_fn, new_base._output_nr)
    vc[1] = vc[0]  # every other view of this memory now has a stale graph
    fresh = replay_view(alias(base), steps)
    regraph(o, fresh._grad_fn, fresh._output_nr)
    o._view = (base, steps, vc[0])


def _tangents(args: tuple) -> list | None:
    """Forward mode: the tangent of each argument (None where none), or None if none has one."""
    tangents = [getattr(a, "_fw", None) for a in args]
    return tangents if any(t is not None for t in tangents) else None


def _forward_ad(
    cls: FunctionMeta, ctx: Any, args: tuple, tangents: list, outputs: tuple, dirty: Any
) -> None:
    """Push the inputs' tangents through the user's ``jvp`` and attach them to the outputs
    (the ids in ``dirty``, inputs modified in place, must get their own tangent back)."""
    from .._backend import xp_of
    from .._tensor import Tensor, _make
    from . import forward_ad

    if cls.jvp is Function.jvp:
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it "
            "with forward mode AD."
        )
    if ctx.__dict__.get("materialize_grads", True):
        tangents = [
            _make(xp_of(a._data).zeros(a._data.shape, a._dtype.np), a._dtype)
            if t is None and isinstance(a, Tensor)
            else t
            for t, a in zip(tangents, args)
        ]
    ctx._in_jvp = True
    try:
        with forward_ad.paused():
            result = cls.jvp(ctx, *tangents)
    finally:
        ctx._in_jvp = False
    result = result if isinstance(result, tuple) else (result,)
    if len(result) != len(outputs):
        raise RuntimeError(
            "Function's jvp returned an invalid number of forward gradients (expected "
            f"{len(outputs)} but got {len(result)})"
        )
    dirty = {id(a): t for a, t in zip(args, tangents) if id(a) in dirty}
    for o, t in zip(outputs, result):
        if t is None or not isinstance(o, Tensor) or o._dtype._category < 2:
            continue
        if not isinstance(t, Tensor):
            raise RuntimeError(f"expected Variable or None (got {type(t).__name__})")
        if id(o) in dirty and t is not dirty[id(o)]:
            raise RuntimeError(
                "An inplace custom Function is not modifying the forward mode gradients "
                "inplace. If the forward is modifying an input inplace, then the jvp function "
                "must modify the corresponding gradient inplace."
            )
        if t._data.shape != o._data.shape:
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of the "
                f"original Tensor, this is not supported. Tensor is of size {list(o.shape)} "
                f"while the given forward gradient is of size {list(t.shape)}."
            )
        forward_ad.attach(o, t if t._dtype is o._dtype else t.to(o._dtype))


@functools.cache
def _backward_base() -> type:
    """``BackwardCFunction``: the Node class of custom functions (needs ``graph``, loaded late)."""
    from .. import _backend
    from .._backend import ndarray
    from .._dtypes import _FROM_NP
    from .._tensor import Tensor, _make
    from .graph import SECOND_BACKWARD, Node, _fit_tensor, _sum_to

    class BackwardCFunction(FunctionCtx, Node):
        """The node of a custom Function's outputs, and the ``ctx`` its forward was given."""

        _forward_cls: type

        @property
        def saved_tensors(self) -> tuple:
            """The tensors given to ``save_for_backward``, checked against in-place changes."""
            if self.__dict__.get("_in_jvp"):
                return tuple(self.__dict__.get("saved_for_forward", ()))
            saved = self._saved
            if saved is None:
                raise RuntimeError(SECOND_BACKWARD)
            return tuple(None if s is None else s.unpack(self) for s in saved)

        def _user_backward(self) -> Callable:
            fwd = self._forward_cls
            backward, vjp = fwd.backward, fwd.vjp
            if backward is not Function.backward and vjp is not Function.vjp:
                raise RuntimeError(
                    "Implementing both 'backward' and 'vjp' for a custom Function is not "
                    "allowed. You should only implement one of them."
                )
            return vjp if vjp is not Function.vjp else backward

        def apply(self, grad_outputs: list, create_graph: bool) -> list:
            """Run the user's backward; one gradient per edge in ``_next``."""
            materialize = self.__dict__.get("materialize_grads", True)
            grads = []
            for g, info in zip(grad_outputs, self._out_info):
                if g is None:
                    if materialize and info is not None:
                        g = _make(info[2].zeros(info[0], info[1].np), info[1])
                elif not isinstance(g, Tensor):
                    if type(g) is not ndarray:
                        g = _backend.asanyarray(g)
                    g = _make(_backend.unlend(g), _FROM_NP[g.dtype])  # (user code: no lent array)
                grads.append(g)
            fn = self._user_backward()
            _backend.unlend_waiting()  # (user code may write into a lent tensor)
            enabled = _state.enabled
            set_enabled(create_graph)
            try:
                result = fn(self, *grads)
            finally:
                set_enabled(enabled)
            return self._check_gradients(result, create_graph, grads)

        def _check_gradients(self, result: Any, create_graph: bool, grads: list) -> list:
            """PyTorch's checks of what backward returned; then fit each to its input."""
            if not isinstance(result, tuple):
                result = (result,)
            n = len(self._is_tensor)
            if len(result) > n and all(r is None for r in result[n:]):
                result = result[:n]
            if len(result) != n:
                raise RuntimeError(
                    f"function {self.name()} returned an incorrect number of gradients "
                    f"(expected {n}, got {len(result)})"
                )
            tensor_grads = []
            for i, (g, is_tensor) in enumerate(zip(result, self._is_tensor)):
                if g is not None and not isinstance(g, Tensor):
                    raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
                if is_tensor:
                    tensor_grads.append(g)
                elif g is not None:
                    raise RuntimeError(
                        f"function {self.name()} returned a gradient different than None at "
                        f"position {i + 1}, but the corresponding forward input was not a "
                        "Variable"
                    )
            out = []
            for i, (g, meta) in enumerate(zip(tensor_grads, self._meta)):
                if g is None or meta is None:
                    out.append(None)
                    continue
                if g.is_meta and not any(isinstance(a, Tensor) and a.is_meta for a in grads):
                    device = next((a.device for a in grads if isinstance(a, Tensor)), "cpu")
                    raise RuntimeError(
                        f"Function {self.name()} returned an invalid gradient at index {i} - "
                        f"expected device {device} but got meta"
                    )
                if g._dtype._category == 3 and meta[1]._category != 3:
                    raise RuntimeError(
                        f"Function {self.name()} returned an invalid gradient at index {i} - "
                        f"got a complex gradient ({g._dtype}) for a real input "
                        f"({meta[1]}); return a real gradient, e.g. grad.real"
                    )
                elif create_graph:
                    out.append(_fit_tensor(self, i, g, meta))
                else:
                    arr = g._data
                    shape, dtype = meta
                    if arr.shape != shape:
                        arr = _sum_to(self, i, arr, shape, arr.shape)
                    if arr.dtype != dtype.np:
                        arr = arr.astype(dtype.np)
                    out.append(arr)
            return out

    BackwardCFunction.__module__ = __name__
    BackwardCFunction.__qualname__ = "BackwardCFunction"
    return BackwardCFunction


@functools.cache
def _delayed_error_class() -> type:
    from .graph import Node

    class DelayedError(Node):
        """A node that raises when backward reaches it (``once_differentiable``)."""

        __slots__ = ("_msg", "n_outputs")

        def apply(self, grad_outputs: list, create_graph: bool) -> list:
            raise RuntimeError(self._msg)

    DelayedError.__name__ = DelayedError.__qualname__ = "Error"  # PyTorch's name
    DelayedError.__module__ = __name__
    return DelayedError


def _delayed_error(message: str, outputs: tuple) -> tuple:
    """``outputs`` as aliases that require grad through a node raising ``message``."""
    from .._tensor import Tensor, _make
    from .graph import new_node
    from .recording import save_plan

    node = new_node(_delayed_error_class())
    node._msg = message
    node.n_outputs = len(outputs)
    node._op = None
    node._saved = ()
    node._checks = ()
    node._arity = 0
    node._plan = save_plan((), (), ())
    return tuple(
        _make(o._data, o._dtype, True, node, nr) if isinstance(o, Tensor) else o
        for nr, o in enumerate(outputs)
    )


def once_differentiable(fn: _F) -> _F:
    """Decorate a ``backward`` that is not itself differentiable.

    It runs without recording; with ``create_graph=True`` its gradients still
    require grad, through a node that raises if backward ever reaches it.
    """

    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        from .._tensor import Tensor

        with grad_mode.no_grad():
            outputs = fn(ctx, *args, **kwargs)
        if not _state.enabled:
            return outputs
        if not any(isinstance(a, Tensor) and a._requires_grad for a in args):
            return outputs
        result = _delayed_error(
            _ONCE_MESSAGE, outputs if isinstance(outputs, tuple) else (outputs,)
        )
        return result if isinstance(outputs, tuple) else result[0]

    return wrapper  # type: ignore[return-value]


def __getattr__(name: str) -> Any:
    if name == "BackwardCFunction":
        return _backward_base()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
