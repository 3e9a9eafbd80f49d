"""In-place ops: how ``x.add_(y)``, ``x[0] = v`` and ``x.copy_(y)`` are recorded.

Every in-place op runs the out-of-place op, writes the result into the tensor's
array and bumps its version counter. Under grad mode the out-of-place op's node
becomes the tensor's ``grad_fn``, so backward sees the same graph as for
``y = op(y)``. Ops that saved the old value for backward notice the bump and
raise rather than give a wrong gradient.

A write into a view also changes its base: the base's new value is "the old base
with the view's region replaced", recorded as one CopySlices node (``view_scatter``,
defined here), and the other views of that memory are re-derived from the base
when next used (recording.refresh_view).
"""

from __future__ import annotations

from typing import Any

from .._backend import ndarray, xp
from .._promotion import can_cast, result_type
from .._tensor import Tensor, _counter, _make, check_inference_write
from . import forward_ad, grad_mode
from .graph import OUTPUT_CHECK
from .recording import KEEP, defop, np_dtype, refresh_view, regraph
from .saved_hooks import PACKED
from .views import alias, check_custom_view, check_view_place, node_kind, replay_view


def check_inplace(t: Tensor) -> None:
    """PyTorch's refusals to write in place into a leaf that requires grad (under grad mode)
    and into an inference tensor outside inference mode."""
    check_inference_write(t)
    if t._requires_grad and t._grad_fn is None and grad_mode._state.enabled:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )


def inplace(self: Tensor, op: Any, args: tuple, kwargs: dict) -> Tensor:
    """Run ``op`` out of place, write the result into ``self`` and make self its output.

    This is how every in-place op is recorded: the node of the out-of-place op
    becomes self's ``grad_fn``, so backward sees the same graph as for ``y = op(y)``.
    """
    check_inplace(self)
    if not self._data.flags.writeable and not _writable_again(self):
        view = self._view  # (PyTorch refuses a view of a leaf that requires grad first)
        if view is not None and grad_mode._state.enabled and view[0] is not None:
            base = view[0]
            if base._requires_grad and base._grad_fn is None:
                raise RuntimeError(
                    "a view of a leaf Variable that requires grad is being used in an "
                    "in-place operation."
                )
        raise RuntimeError(_read_only(self._data))
    check_no_grad_view(self)
    recording = grad_mode._state.enabled and any(
        isinstance(a, Tensor) and a._requires_grad for a in args
    )
    if recording and self._view is not None:
        return _inplace_on_view(self, op, args, kwargs)
    if recording:
        args = _operands(self, args, snapshot(self))
    try:
        out = op(*args, **kwargs)
    except NotImplementedError:  # (a |= 1.5: PyTorch refuses the cast before the kernel)
        _check_cast(result_type(args), self)
        raise
    if self._dtype._category == 3 and out._dtype._category == 2:  # (abs_: a real result)
        raise RuntimeError(f"In-place {op.__name__} is not supported for complex tensors.")
    _check_cast(out._dtype, self, op, (*args, *kwargs.values()))
    if out._data.shape != self._data.shape:
        raise RuntimeError(
            f"output with shape {list(self.shape)} doesn't match the broadcast shape "
            f"{list(out.shape)}"
        )
    xp.copyto(self._data, out._data, casting="unsafe")
    self._bump()
    if out._grad_fn is not None:
        _saved_output_is(self, out)
        self._requires_grad = True
        regraph(self, out._grad_fn, out._output_nr)  # (a retained gradient is the new value's)
        self._vc[1] = self._vc[0]  # views made before this write now have stale graphs
    tangent = getattr(out, "_fw", None)
    if tangent is not None:  # forward mode: self now carries the result's tangent
        write_tangent(self, tangent)
    return self


def _check_cast(dtype: Any, self: Tensor, op: Any = None, args: tuple = ()) -> None:
    """PyTorch's refusal to write a result of ``dtype`` into ``self`` of a lower category."""
    if dtype is not self._dtype and not can_cast(dtype, self._dtype):
        name = self._dtype.scalar_name
        if getattr(op, "__name__", None) in _CLAMPS and not any(
            isinstance(a, Tensor) for a in args[1:]
        ):  # (clamp's overloads of number bounds name the C type)
            name = _C_NAMES.get(name, name)
        raise RuntimeError(
            f"result type {dtype.scalar_name} can't be cast to the desired output type {name}"
        )


_CLAMPS = frozenset({"clamp", "clamp_min", "clamp_max"})
_C_NAMES = {
    "Bool": "bool",
    "Byte": "unsigned char",
    "Char": "signed char",
    "Short": "short int",
    "Int": "int",
    "Long": "long int",
    "UInt16": "short unsigned int",
    "UInt32": "unsigned int",
    "UInt64": "long unsigned int",
}


def check_no_grad_view(t: Tensor) -> None:
    """PyTorch's refusal to write under grad mode into a view made under no_grad of a base
    that requires grad (seen as a view that does not require grad while its base does; not
    one whose base was written since, which gets its graph when next used)."""
    view = t._view
    if view is not None and not t._requires_grad and grad_mode._state.enabled:
        base = view[0]
        if base is not None and base._requires_grad and t._vc[1] <= view[2]:
            raise RuntimeError(NO_GRAD_VIEW)


NO_GRAD_VIEW = (
    "A view was created in no_grad mode and is being modified inplace with grad mode "
    "enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You can "
    "clarify your code by moving both the view and the inplace either both inside the "
    "no_grad block (if you don't want the inplace to be tracked) or both outside (if you "
    "want the inplace to be tracked)."
)


def _writable_again(t: Tensor) -> bool:
    """Whether a read-only view of an expand or unfold that has no two elements at one
    place (``x.expand(2, 3)[0]``) was made writable: PyTorch writes there. Its array is
    replaced by a writable view of the same memory."""
    alias = writable_alias(t._data)
    if alias is None:
        return False
    t._data = alias
    return True


def writable_alias(arr: Any, overlap: bool = False) -> Any:
    """A writable view of a read-only view ``arr`` of writable memory (an expand, an
    unfold, a view of them), where no two of its elements are at one place (with
    ``overlap``: even where some are, for a write of one value everywhere); else None."""
    owner = arr
    while getattr(owner, "base", None) is not None:
        owner = owner.base
    if arr.__class__ is not ndarray or not (isinstance(owner, ndarray) and owner.flags.writeable):
        return None
    if not overlap:
        places = xp.zeros(1, dtype=xp.int64)  # each element's byte offset
        for n, stride in zip(arr.shape, arr.strides):
            if n > 1 and stride == 0:
                return None
            places = (places[:, None] + xp.arange(n, dtype=xp.int64) * stride).ravel()
        if xp.unique(places).size < places.size:
            return None
    start = arr.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
    return ndarray(arr.shape, arr.dtype, owner, start, arr.strides)


def constant_write(t: Tensor, op: Any, args: tuple, kwargs: dict) -> Tensor:
    """``inplace`` of an op that writes one value everywhere (``fill_``, ``zero_``) into a
    tensor whose elements share memory (an expand): PyTorch writes it where nothing is
    recorded (the tensor stays read-only for other writes); otherwise ``inplace``'s
    refusal."""
    alias = None if t._requires_grad else writable_alias(t._data, overlap=True)
    if alias is None:
        return inplace(t, op, args, kwargs)
    kept, t._data = t._data, alias
    try:
        return inplace(t, op, args, kwargs)
    finally:
        t._data = kept


def _read_only(arr: Any) -> str:
    """Why a tensor's array cannot be written: a view whose elements share memory (expand,
    unfold), or memory that is read-only (a non-writable NumPy array over memory NumPy does
    not own)."""
    owner = arr
    while getattr(owner, "base", None) is not None:  # (through as_strided's DummyArray too)
        owner = owner.base
    if isinstance(owner, ndarray) and owner.flags.writeable:  # a view: expand, unfold
        return (
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation."
        )
    return (
        "the tensor's memory is read-only: it comes from a non-writable NumPy array whose "
        "memory NumPy does not own (np.frombuffer of bytes, say). Please clone() the tensor, "
        "or copy the array, before writing into it."
    )


def _inplace_on_view(self: Tensor, op: Any, args: tuple, kwargs: dict) -> Tensor:
    """An in-place op on a view, recorded as PyTorch does (CopySlices).

    The base's new value is "the old base with the view's region replaced by
    op(view)"; that becomes the base's graph, and the view is re-derived from it.
    """
    base, steps, _ = self._view
    check_custom_view(self, steps, rebased=False)  # (a custom Function's output)
    for step_op, params in steps:  # views sharing one node with others (split) refuse
        refuse = getattr(step_op, "refuse_inplace", None)
        if refuse is not None:
            fn = self._grad_fn  # (PyTorch names the view's own node: "Output 0 of Select")
            if fn is not None:
                params = {"output": self._output_nr, "kind": node_kind(fn)}
            raise RuntimeError(refuse(params))
    if base._requires_grad and base._grad_fn is None:
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place operation."
        )
    check_view_place(self, base, steps)
    out = op(*_operands(self, args, snapshot(refresh_view(self))), **kwargs)
    if out._data.shape != self._data.shape:
        raise RuntimeError(
            f"output with shape {list(self.shape)} doesn't match the broadcast shape "
            f"{list(out.shape)}"
        )
    new_base = view_scatter(alias(base), out, steps=steps)
    xp.copyto(self._data, out._data, casting="unsafe")
    self._bump()
    _saved_output_is(self, out)
    vc = self._vc
    base._requires_grad = True
    regraph(base, new_base._grad_fn, new_base._output_nr)
    vc[1] = vc[0]  # every other view of this memory now has a stale graph
    fresh = replay_view(alias(base), steps)
    self._requires_grad = True
    regraph(self, fresh._grad_fn, fresh._output_nr)
    self._view = (base, steps, vc[0])
    tangent = getattr(out, "_fw", None)
    if tangent is not None:
        write_tangent(self, tangent)
    return self


def inplace_view(self: Tensor, out: Tensor) -> Tensor:
    """An in-place view op (``squeeze_``, ``t_``): self becomes the view ``out`` (same memory,
    new shape), with its node and tangent; the version is bumped."""
    self._data = out._data
    if out._grad_fn is not None:
        self._requires_grad = True
        regraph(self, out._grad_fn, out._output_nr)
    if self._view is not None and out._view is not None:
        self._view = out._view
    tangent = getattr(out, "_fw", None)
    if tangent is not None:
        forward_ad.attach(self, tangent)
    self._bump()
    return self


def write_tangent(t: Tensor, tangent: Tensor) -> None:
    """Forward mode: an in-place write gives ``t`` the result's tangent (in t's dtype, as the
    value is cast), writes it into its base's, and leaves the other views of that memory to
    re-derive theirs from the base's (they are marked stale, as for their graphs)."""
    if tangent._dtype is not t._dtype:
        with forward_ad.paused():
            tangent = tangent.to(t._dtype)
    forward_ad.attach(t, tangent)
    if t._view is not None:
        _tangent_into_base(t, tangent)
    t._vc[1] = t._vc[0]


def _tangent_into_base(view: Tensor, tangent: Tensor) -> None:
    """Forward mode: an in-place write into a view writes its tangent into the base's."""
    base, steps, _ = view._view
    if base is None:
        return
    base_tangent = getattr(base, "_fw", None)
    with forward_ad.paused():
        if base_tangent is None:
            base_tangent = _make(xp.zeros_like(base._data), base._dtype)
        forward_ad.attach(base, view_scatter(base_tangent, tangent, steps=steps))


def _operands(self: Tensor, args: tuple, snap: Tensor) -> tuple:
    """An in-place op's inputs: in self's place (the first), the snapshot of self's value;
    where self is another operand too (``x.mul_(x)``), that value at self's version, so that
    what the op saves of it sees the write, as PyTorch's saved ``other`` does."""
    tied = None
    out = []
    for i, a in enumerate(args):
        if a is self and i:
            if tied is None:
                tied = _make(
                    snap._data,
                    snap._dtype,
                    snap._requires_grad,
                    snap._grad_fn,
                    snap._output_nr,
                    _counter(self),
                )
                tied._acc = snap._acc
            a = tied
        elif a is self:
            a = snap
        out.append(a)
    return tuple(out)


def _saved_output_is(self: Tensor, out: Tensor) -> None:
    """The op's output, if its node saved it, is now ``self`` (written in place): a later
    write to self makes backward raise, as PyTorch's in-place ops save ``result``, self."""
    node = out._grad_fn
    if node._checks is PACKED:  # (packed by a saved_tensors_hooks hook: nothing checked)
        return
    if node._checks is OUTPUT_CHECK:  # checked through the node's slots
        vc = _counter(self)
        node._out_vc, node._out_v, node._out_id = vc, vc[0], id(self)
    elif out._vc is not None and node._checks:
        vc = _counter(self)
        node._checks = tuple(
            (vc, vc[0], i) if counter is out._vc else (counter, version, i)
            for counter, version, i in node._checks
        )


def snapshot(t: Tensor) -> Tensor:
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


# ----- CopySlices: the base with a view's region replaced ---------------------------------


def _view_scatter(base, src, steps=()):
    """base with the region that ``steps`` view replaced by src (a copy)"""
    out = xp.array(base)  # a copy, and an array even where base is a NumPy scalar
    region = out
    for op, params in steps:
        region = op.forward(region, **params)
    if region.size and not xp.may_share_memory(region, out):
        raise RuntimeError("this view cannot be written into in place (it is not a view)")
    region[...] = src
    return out


view_scatter = defop(
    "view_scatter",
    _view_scatter,
    args=("base", "src"),
    dtypes=KEEP,
    node="CopySlices",
    complex="wirtinger",  # (a write into a region: linear over the reals)
    vjp=(
        lambda g, steps: view_scatter(g, 0, steps=steps),  # ∂/∂base = [outside the region]
        lambda g, steps: replay_view(g, steps),  # ∂/∂src: g's region (summed to src's shape)
    ),
    jvp=(
        lambda t, steps: view_scatter(t, 0, steps=steps),  # as the VJP
        lambda t, base_shape, steps: view_scatter(
            xp.zeros(base_shape, dtype=np_dtype(t)), t, steps=steps
        ),  # J t = zeros of base's shape with t in the region
    ),
)
