"""The Tensor: an array from the backend, plus what autograd needs to know about it.

Ops are not defined here. Each op is one entry in ``chainrule/ops/``; the ones
that are Tensor methods are attached to this class by ``ops/methods.py``.
"""

from __future__ import annotations

import warnings
import weakref
from typing import Any

from . import _dtypes
from ._backend import ndarray, xp
from ._dtypes import dtype as DType
from .autograd import grad_mode

_new = object.__new__


class Size(tuple):
    """A tensor's shape: a tuple that prints as ``torch.Size([2, 3])``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    __str__ = __repr__

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, key):
        out = tuple.__getitem__(self, key)
        return Size(out) if isinstance(key, slice) else out

    def __add__(self, other: tuple) -> Size:
        return Size(tuple(self) + tuple(other))


class device:  # noqa: N801 - PyTorch's spelling
    """Where a tensor lives. chainrule has one: the CPU."""

    __slots__ = ("type", "index")

    def __init__(self, type: str | device = "cpu", index: int | None = None) -> None:  # noqa: A002
        if isinstance(type, device):
            type, index = type.type, type.index
        name, _, idx = str(type).partition(":")
        if name != "cpu":
            raise RuntimeError(
                f"chainrule runs on the CPU only; device {type!r} is not available "
                "(GPU arrays through CuPy are planned)."
            )
        self.type = name
        self.index = int(idx) if idx else index

    def __repr__(self) -> str:
        return f"device(type='{self.type}')"

    def __str__(self) -> str:
        return self.type

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and other.type == self.type

    def __hash__(self) -> int:
        return hash(self.type)


_CPU = device("cpu")


def _make(
    data: ndarray,
    dtype: DType,
    requires_grad: bool = False,
    grad_fn: Any = None,
    output_nr: int = 0,
    vc: list[int] | None = None,
) -> Tensor:
    """Build a Tensor around ``data`` without checks: the engine's and ops' fast path."""
    t = _new(Tensor)
    t._data = data
    t._dtype = dtype
    t._requires_grad = requires_grad
    t._grad_fn = grad_fn
    t._output_nr = output_nr
    t._grad = None
    t._vc = vc
    t._acc = None
    t._retains_grad = False
    t._hooks = None
    t._view = None
    return t


def _counter(t: Tensor) -> list[int]:
    """The tensor's version counter, made on first need (views and saves share it)."""
    vc = t._vc
    if vc is None:
        # [version, version after the last in-place op recorded in a graph]
        vc = t._vc = [0, -1]
    return vc


def wrap(data: Any) -> Tensor:
    """A Tensor around a backend array (or scalar), its dtype read off the array."""
    if type(data) is not ndarray:
        data = xp.asarray(data)
    return _make(data, _dtypes.from_numpy_dtype(data.dtype))


class Tensor:
    """A multi-dimensional array that can record the operations applied to it."""

    __slots__ = (
        "_data",  # the backend array
        "_dtype",  # chainrule dtype
        "_requires_grad",
        "_grad_fn",  # the Node that made this tensor (None for leaves)
        "_output_nr",  # which output of _grad_fn this tensor is
        "_grad",
        "_vc",  # version counter: a one-element list shared with views, or None (version 0)
        "_acc",  # weak reference to this leaf's AccumulateGrad node
        "_retains_grad",
        "_hooks",  # gradient hooks on a leaf
        "_post_hooks",  # hooks run after a leaf's .grad is updated; unset until one is added
        "_fw",  # forward-mode tangent; set only inside a dual level (read with getattr)
        "_view",  # for a view: (base, ((op, params), ...) from base to view, version), else None
        "_cf_version",  # for an input a custom Function returned as-is: the version then (getattr)
        "__weakref__",
    )

    # The legacy constructor: Tensor(2, 3) is uninitialised, Tensor([1, 2]) copies data.
    def __new__(cls, *args: Any, **kwargs: Any) -> Tensor:
        from ._creation import _legacy_new

        return _legacy_new(cls, _dtypes.get_default_dtype(), args, kwargs)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    # ----- autograd attributes -------------------------------------------------

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` in place on a leaf; returns self."""
        if self._grad_fn is not None:
            if requires_grad:
                return self
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to "
                "use a computed variable in a subgraph that doesn't require differentiation "
                "use var_no_grad = var.detach()."
            )
        if requires_grad and not self._dtype.is_floating_point:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad_fn(self):
        fn = self._grad_fn
        made_at = getattr(self, "_cf_version", None) if fn is not None else None
        if made_at is not None and made_at != self._vc[0]:
            raise RuntimeError(
                f"Output {self._output_nr} of {fn.name()[: -len('Backward')]} is a view and its "
                "base or another view of its base has been modified inplace. This view was "
                "created inside a custom Function (or because an input was returned as-is) and "
                "the autograd logic to handle view+inplace would override the custom backward "
                "associated with the custom Function, leading to incorrect gradients. This "
                "behavior is forbidden. You can fix this by cloning the output of the custom "
                "Function."
            )
        return fn

    @property
    def is_leaf(self) -> bool:
        return self._grad_fn is None

    @property
    def grad(self) -> Tensor | None:
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
                "Its .grad attribute won't be populated during autograd.backward(). If you "
                "indeed want the .grad field to be populated for a non-leaf Tensor, use "
                ".retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by "
                "mistake, make sure you access the leaf Tensor instead.",
                UserWarning,
                stacklevel=2,
            )
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    "assigned grad expected to be a Tensor or None but got grad of type "
                    f"{type(value).__name__}"
                )
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value.shape)}' to a "
                    f"tensor of size '{list(self.shape)}'. Please ensure that the gradient "
                    "and the tensor are the same size"
                )
            if value._dtype is not self._dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{value._dtype.name}' to a "
                    f"tensor with dtype '{self._dtype.name}'. The gradient must match the "
                    "tensor's dtype."
                )
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def retain_grad(self) -> None:
        """Keep this non-leaf tensor's gradient in ``.grad`` during backward."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self._retains_grad:
            return
        self._retains_grad = True
        self._grad_fn._retain(self._output_nr, weakref.ref(self))

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; it may return a new one."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        from .autograd.graph import RemovableHandle

        if self._grad_fn is None:
            if self._hooks is None:
                self._hooks = {}
            return RemovableHandle(self._hooks, hook)
        return self._grad_fn._tensor_pre_hook(self._output_nr, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Call ``hook(self)`` after backward has accumulated into this leaf's ``.grad``."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        from .autograd.graph import RemovableHandle

        if getattr(self, "_post_hooks", None) is None:
            self._post_hooks = {}
        return RemovableHandle(self._post_hooks, hook)

    def backward(
        self,
        gradient: Tensor | None = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        inputs: Any = None,
    ) -> None:
        """Accumulate d(self)/d(leaf), contracted with ``gradient``, into each leaf's ``.grad``.

        For a non-scalar ``self`` this is the vector-Jacobian product ``gradientᵀ J``:
        the Jacobian itself is never formed.
        """
        from .autograd import backward

        backward(
            self,
            None if gradient is None else [gradient],
            retain_graph=retain_graph,
            create_graph=create_graph,
            inputs=inputs,
        )

    def _accumulator(self):
        """This leaf's AccumulateGrad node, made on first use and kept while the graph lives."""
        ref = self._acc
        if ref is not None:
            acc = ref()
            if acc is not None:
                return acc
        from .autograd.graph import AccumulateGrad

        acc = AccumulateGrad(self)
        self._acc = weakref.ref(acc)
        return acc

    # ----- data views ------------------------------------------------------------

    @property
    def data(self) -> Tensor:
        """A tensor sharing this one's memory, detached from the graph (no version tracking)."""
        return _make(self._data, self._dtype)

    @data.setter
    def data(self, value: Tensor) -> None:
        self._data = value._data
        self._dtype = value._dtype

    def detach(self) -> Tensor:
        """A new leaf sharing memory (and the version counter) with this tensor."""
        return _make(self._data, self._dtype, vc=_counter(self))

    def detach_(self) -> Tensor:
        """Detach in place: this tensor becomes a leaf that does not require grad."""
        if self._view is not None and self._requires_grad:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self._grad_fn = None
        self._requires_grad = False
        return self

    @property
    def _version(self) -> int:
        return 0 if self._vc is None else self._vc[0]

    def _bump(self) -> None:
        _counter(self)[0] += 1

    # ----- metadata --------------------------------------------------------------

    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: int | None = None):
        if dim is None:
            return Size(self._data.shape)
        if self._data.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    @property
    def dtype(self) -> DType:
        return self._dtype

    @property
    def device(self) -> device:
        return _CPU

    @property
    def is_cuda(self) -> bool:
        return False

    @property
    def layout(self) -> str:
        return "torch.strided"

    def dim(self) -> int:
        return self._data.ndim

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def ndimension(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return self._data.size

    nelement = numel

    def element_size(self) -> int:
        return self._data.itemsize

    def is_floating_point(self) -> bool:
        return self._dtype.is_floating_point

    def is_contiguous(self) -> bool:
        return bool(self._data.flags.c_contiguous)

    def stride(self, dim: int | None = None):
        strides = tuple(s // self._data.itemsize for s in self._data.strides)
        return strides if dim is None else strides[_wrap_dim(dim, self._data.ndim)]

    def data_ptr(self) -> int:
        return self._data.__array_interface__["data"][0]

    # ----- conversion to Python and NumPy ----------------------------------------

    def item(self):
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self._data.reshape(()).item()

    def tolist(self):
        return self._data.tolist()

    def numpy(self, *, force: bool = False) -> ndarray:
        """The backend array itself (shared memory)."""
        if self._requires_grad and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. "
                "Use tensor.detach().numpy() instead."
            )
        return self._data

    def __array__(self, dtype=None, copy=None):
        if self._requires_grad:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. "
                "Use tensor.detach().numpy() instead."
            )
        if dtype is None:
            return self._data
        return self._data.astype(dtype, copy=False)

    def _scalar(self, kind: str):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self._data.reshape(()).item()

    def __bool__(self) -> bool:
        if self._data.size != 1:
            many = "more than one value" if self._data.size else "no values"
            raise RuntimeError(f"Boolean value of Tensor with {many} is ambiguous")
        return bool(self._data.reshape(()))

    def __float__(self) -> float:
        return float(self._scalar("float"))

    def __int__(self) -> int:
        return int(self._scalar("int"))

    def __index__(self) -> int:
        if self._data.size != 1 or self._dtype.is_floating_point:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.reshape(()))

    def __complex__(self) -> complex:
        return complex(self._scalar("complex"))

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __contains__(self, element) -> bool:
        value = element._data if isinstance(element, Tensor) else element
        return bool((self._data == value).any())

    __hash__ = object.__hash__

    def __reduce_ex__(self, protocol):
        return (_rebuild, (self._data, self._dtype.name, self._requires_grad))

    def __deepcopy__(self, memo):
        if self._grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the "
                "deepcopy protocol at the moment."
            )
        t = _make(self._data.copy(), self._dtype, self._requires_grad)
        if self._grad is not None:
            t._grad = _make(self._grad._data.copy(), self._grad._dtype)
        memo[id(self)] = t
        return t

    # ----- printing ----------------------------------------------------------------

    def __repr__(self, *, tensor_contents=None) -> str:
        from ._printing import format_tensor

        return format_tensor(self._data, self._print_suffixes())

    def _print_suffixes(self) -> list[str]:
        suffixes = []
        dt = self._dtype
        shown = dt is _dtypes.get_default_dtype() or dt is _dtypes.int64 or dt is _dtypes.bool
        if self._data.size == 0:
            shown = dt is _dtypes.get_default_dtype()
        if not shown:
            suffixes.append(f"dtype={dt!r}")
        if self._grad_fn is not None:
            suffixes.append(f"grad_fn=<{self._grad_fn.name()}>")
        elif self._requires_grad:
            suffixes.append("requires_grad=True")
        return suffixes

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:
            return format(self._data.item(), spec)
        return object.__format__(self, spec)

    # ----- dtype conversion --------------------------------------------------------

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """Convert dtype (``to(torch.float64)``); devices other than 'cpu' are refused."""
        target = kwargs.pop("dtype", None)
        copy = kwargs.pop("copy", False)
        kwargs.pop("non_blocking", None)
        dev = kwargs.pop("device", None)
        for a in args:
            if isinstance(a, DType):
                target = a
            elif isinstance(a, Tensor):
                target = a._dtype
            elif isinstance(a, (str, device)):
                dev = a
            elif a is not None:
                target = _dtypes.to_dtype(a)
        if dev is not None:
            device(dev)
        if target is None or target is self._dtype:
            return self.clone() if copy else self
        from .ops.elementwise import to_dtype

        return to_dtype(self, dtype=target)

    def type(self, dtype: Any = None, **kwargs: Any):
        if dtype is None:
            return _TYPE_NAMES[self._dtype]
        if isinstance(dtype, str):
            dtype = _FROM_TYPE_NAME[dtype]
        return self.to(dtype)

    def float(self) -> Tensor:
        return self.to(_dtypes.float32)

    def double(self) -> Tensor:
        return self.to(_dtypes.float64)

    def half(self) -> Tensor:
        return self.to(_dtypes.float16)

    def long(self) -> Tensor:
        return self.to(_dtypes.int64)

    def int(self) -> Tensor:
        return self.to(_dtypes.int32)

    def short(self) -> Tensor:
        return self.to(_dtypes.int16)

    def char(self) -> Tensor:
        return self.to(_dtypes.int8)

    def byte(self) -> Tensor:
        return self.to(_dtypes.uint8)

    def bool(self) -> Tensor:
        return self.to(_dtypes.bool)

    def cpu(self) -> Tensor:
        return self

    def cuda(self, *args: Any, **kwargs: Any) -> Tensor:
        raise RuntimeError("chainrule runs on the CPU only: Tensor.cuda() is not available.")

    def type_as(self, other: Tensor) -> Tensor:
        return self.to(other._dtype)

    # ----- in-place writes that are not ops ---------------------------------------

    def _check_inplace(self) -> None:
        if self._requires_grad and self._grad_fn is None and grad_mode._state.enabled:
            raise RuntimeError(
                "a leaf Variable that requires grad is being used in an in-place operation."
            )

    def zero_(self) -> Tensor:
        """Fill with zeros in place (bumps the version counter)."""
        from .ops.elementwise import zero

        return _inplace(self, zero, (self,), {})

    def fill_(self, value: Any) -> Tensor:
        """Fill with ``value`` in place; under grad mode a non-leaf's gradient becomes zero."""
        from .ops.elementwise import fill

        return _inplace(self, fill, (self, value), {})

    def copy_(self, src: Tensor, non_blocking: bool = False) -> Tensor:
        """Copy ``src`` (broadcast, cast) into self in place; the gradient flows to ``src``."""
        from .ops.elementwise import copy_from

        return _inplace(self, copy_from, (self, src), {})


def _inplace(self: Tensor, op, args: tuple, kwargs: dict) -> Tensor:
    """Run ``op`` out of place, write the result into ``self`` and make self its output.

    This is how every in-place op is recorded: the node of the out-of-place op
    becomes self's ``grad_fn``, so backward sees the same graph as for ``y = op(y)``.
    """
    self._check_inplace()
    if not self._data.flags.writeable:  # an expanded view: elements share memory
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation."
        )
    recording = grad_mode._state.enabled and any(
        isinstance(a, Tensor) and a._requires_grad for a in args
    )
    if recording and self._view is not None:
        return _inplace_on_view(self, op, args, kwargs)
    if recording:
        snapshot = _snapshot(self)
        args = tuple(snapshot if a is self else a for a in args)
    out = op(*args, **kwargs)
    if out._dtype is not self._dtype and not _can_cast(out._dtype, self._dtype):
        raise RuntimeError(
            f"result type {_TYPE_NAMES[out._dtype][6:-6]} can't be cast to the desired output "
            f"type {_TYPE_NAMES[self._dtype][6:-6]}"  # "torch.FloatTensor" -> "Float"
        )
    if out._data.shape != self._data.shape:
        raise RuntimeError(
            f"output with shape {list(self.shape)} doesn't match the broadcast shape "
            f"{list(out.shape)}"
        )
    xp.copyto(self._data, out._data, casting="unsafe")
    self._bump()
    if out._grad_fn is not None:
        retains = self._retains_grad
        if retains:  # the retained gradient is now the new value's: move the retain
            self._grad_fn._extra.retained.pop(self._output_nr, None)
            self._retains_grad = False
        self._grad_fn = out._grad_fn
        self._output_nr = out._output_nr
        self._requires_grad = True
        self._vc[1] = self._vc[0]  # views made before this write now have stale graphs
        if retains:
            self.retain_grad()
    tangent = getattr(out, "_fw", None)
    if tangent is not None:  # forward mode: self now carries the result's tangent
        _write_tangent(self, tangent)
    return self


def _inplace_on_view(self: Tensor, op, args: tuple, kwargs: dict) -> Tensor:
    """An in-place op on a view, recorded as PyTorch does (CopySlices).

    The base's new value is "the old base with the view's region replaced by
    op(view)"; that becomes the base's graph, and the view is re-derived from it.
    """
    from .ops.shape import replay_view, view_scatter

    base, steps, _ = self._view
    for step_op, params in steps:  # views sharing one node with others (split) refuse
        refuse = getattr(step_op, "refuse_inplace", None)
        if refuse is not None:
            raise RuntimeError(refuse(params))
    if base._requires_grad and base._grad_fn is None:
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place operation."
        )
    from .ops.shape import check_view_place

    check_view_place(self, base, steps)
    snapshot = _snapshot(_refresh_view(self))
    out = op(*(snapshot if a is self else a for a in args), **kwargs)
    if out._data.shape != self._data.shape:
        raise RuntimeError(
            f"output with shape {list(self.shape)} doesn't match the broadcast shape "
            f"{list(out.shape)}"
        )
    new_base = view_scatter(_alias(base), out, steps=steps)
    xp.copyto(self._data, out._data, casting="unsafe")
    self._bump()
    vc = self._vc
    base._grad_fn, base._output_nr = new_base._grad_fn, new_base._output_nr
    base._requires_grad = True
    vc[1] = vc[0]  # every other view of this memory now has a stale graph
    fresh = replay_view(_alias(base), steps)
    self._grad_fn, self._output_nr = fresh._grad_fn, fresh._output_nr
    self._requires_grad = True
    self._view = (base, steps, vc[0])
    tangent = getattr(out, "_fw", None)
    if tangent is not None:
        _write_tangent(self, tangent)
    return self


def _write_tangent(t: Tensor, tangent: Tensor) -> None:
    """Forward mode: an in-place write gives ``t`` the result's tangent (in t's dtype, as the
    value is cast), writes it into its base's, and leaves the other views of that memory to
    re-derive theirs from the base's (they are marked stale, as for their graphs)."""
    from ._op import _fw_state
    from .autograd.forward_ad import _attach

    if tangent._dtype is not t._dtype:
        level, _fw_state.level = _fw_state.level, 0
        try:
            tangent = tangent.to(t._dtype)
        finally:
            _fw_state.level = level
    _attach(t, tangent)
    if t._view is not None:
        _tangent_into_base(t, tangent)
    t._vc[1] = t._vc[0]


def _tangent_of(t: Tensor) -> Tensor | None:
    """Forward mode: t's tangent; a view's is re-derived from its base's when the base (or
    another view of it) was written in place since the view was taken."""
    if t._view is not None and t._vc[1] > t._view[2]:
        _refresh_tangent(t)
    return getattr(t, "_fw", None)


def _refresh_tangent(t: Tensor) -> None:
    """A view's tangent is the same view of its base's tangent."""
    base, steps, _ = t._view
    base_tangent = getattr(base, "_fw", None) if base is not None else None
    if base_tangent is None:
        return
    from ._op import _fw_state
    from .autograd.forward_ad import _attach
    from .ops.shape import replay_view

    level, _fw_state.level = _fw_state.level, 0
    try:
        tangent = replay_view(base_tangent, steps)
    finally:
        _fw_state.level = level
    if getattr(t, "_fw", None) is None:
        _attach(t, tangent)
    else:  # already registered with the level, which drops it on exit
        t._fw = tangent


def _tangent_into_base(view: Tensor, tangent: Tensor) -> None:
    """Forward mode: an in-place write into a view writes its tangent into the base's."""
    from ._op import _fw_state
    from .autograd.forward_ad import _attach
    from .ops.shape import view_scatter

    base, steps, _ = view._view
    if base is None:
        return
    base_tangent = getattr(base, "_fw", None)
    level, _fw_state.level = _fw_state.level, 0
    try:
        if base_tangent is None:
            base_tangent = _make(xp.zeros_like(base._data), base._dtype)
        _attach(base, view_scatter(base_tangent, tangent, steps=steps))
    finally:
        _fw_state.level = level


def _snapshot(t: Tensor) -> Tensor:
    """t's current value, copied, at t's place in the graph.

    An in-place op's inputs include the tensor it overwrites; the op may save that
    input for backward, so it gets this copy rather than memory about to change.
    """
    snap = _make(t._data.copy(), t._dtype, t._requires_grad, t._grad_fn, t._output_nr)
    if t._grad_fn is None and t._requires_grad:
        snap._acc = t._acc
    tangent = getattr(t, "_fw", None)
    if tangent is not None:
        snap._fw = tangent
    return snap


def _alias(t: Tensor) -> Tensor:
    """The same tensor (memory, graph position, versions) as a new object."""
    a = _make(t._data, t._dtype, t._requires_grad, t._grad_fn, t._output_nr, t._vc)
    a._acc = t._acc
    return a


def _refresh_view(t: Tensor) -> Tensor:
    """``t`` itself, or, if its base changed in place since, t re-derived from the base."""
    base, steps, version = t._view
    if t._vc[1] <= version:
        return t
    from .ops.shape import check_view_place, replay_view

    check_view_place(t, base, steps)
    fresh = replay_view(_alias(base), steps)
    t._grad_fn, t._output_nr = fresh._grad_fn, fresh._output_nr
    t._requires_grad = fresh._requires_grad
    _refresh_tangent(t)  # before t is marked fresh
    t._view = (base, steps, t._vc[0])
    return t


def _can_cast(src: DType, dst: DType) -> bool:
    return src._category <= dst._category


def _wrap_dim(dim: int, ndim: int) -> int:
    """A dim in [-ndim, ndim) as a non-negative index, with PyTorch's IndexError otherwise."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim % n


def _rebuild(data, dtype_name, requires_grad):
    return _make(data, getattr(_dtypes, dtype_name), requires_grad)


_TYPE_NAMES = {
    _dtypes.float16: "torch.HalfTensor",
    _dtypes.float32: "torch.FloatTensor",
    _dtypes.float64: "torch.DoubleTensor",
    _dtypes.int8: "torch.CharTensor",
    _dtypes.int16: "torch.ShortTensor",
    _dtypes.int32: "torch.IntTensor",
    _dtypes.int64: "torch.LongTensor",
    _dtypes.uint8: "torch.ByteTensor",
    _dtypes.bool: "torch.BoolTensor",
}
_FROM_TYPE_NAME = {v: k for k, v in _TYPE_NAMES.items()}
