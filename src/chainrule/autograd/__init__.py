"""``chainrule.autograd``: backward, grad, grad modes and the legacy ``Variable``."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from .._backend import ndarray, xp
from .._tensor import GRAD_DTYPES, Tensor, _make
from . import forward_ad, functional  # noqa: F401
from .anomaly_mode import (  # noqa: F401
    detect_anomaly,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_detect_anomaly,
)
from .edges import GradientEdge, edge_result, edge_root_grad
from .engine import _as_grad, run_backward
from .function import Function, FunctionCtx, once_differentiable  # noqa: F401
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
    set_multithreading_enabled,
)
from .gradcheck import gradcheck, gradgradcheck  # noqa: F401  (shadows the module, as in PyTorch)
from .graph import AccumulateGrad, accumulator
from .recording import refresh_view

__all__ = [
    "Variable",
    "backward",
    "grad",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "set_multithreading_enabled",
    "is_grad_enabled",
    "inference_mode",
    "detect_anomaly",
    "set_detect_anomaly",
    "Function",
    "FunctionCtx",
    "once_differentiable",
    "gradcheck",
    "gradgradcheck",
    "forward_ad",
    "functional",
]


def Variable(data: Any, requires_grad: bool = False, volatile: bool = False) -> Tensor:  # noqa: N802
    """The pre-0.4 wrapper: a new leaf sharing ``data``'s memory, with ``requires_grad`` set."""
    from .._creation import as_tensor
    from .._tensor import _counter, _make

    t = as_tensor(data)
    t = _make(t._data, t._dtype, vc=_counter(t))
    if requires_grad:
        t.requires_grad_(True)
    return t


def _as_list(tensors: Any) -> list:
    if isinstance(tensors, (Tensor, GradientEdge)):  # (an edge is a tuple: one of them)
        return [tensors]
    return list(tensors)


def _roots_and_grads(
    outputs: list, grad_outputs: list | None, create_graph: bool, api: str
) -> tuple[list, list]:
    """Check outputs and their gradients the way PyTorch does; return engine roots and grads."""
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grad_outputs)} gradients")
    roots, grads = [], []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        roots.append(_edge(out, i, api))
        if out.__class__ is GradientEdge:
            grads.append(edge_root_grad(out, g, i, create_graph))
        else:
            grads.append(_root_grad(out, g, i, create_graph))
    return roots, grads


def _edge(t: Tensor, i: int = 0, api: str = "") -> tuple[Any, int]:
    """The edge a root's gradient enters by: its node, or its leaf's AccumulateGrad."""
    if t.__class__ is not Tensor and not isinstance(t, Tensor):
        if isinstance(t, GradientEdge):  # (autograd.graph.get_gradient_edge)
            return (t.node, t.output_nr)
        raise TypeError(f"{api} expects tensors as outputs, got {type(t).__name__}")
    view = t._view
    if view is not None and view[0] is not None:  # a view whose base was written since
        refresh_view(t)  # enters by its graph re-derived, as PyTorch's grad_fn
    fn = t._grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    if not t._requires_grad:
        raise RuntimeError(
            f"element {i} of tensors does not require grad and does not have a grad_fn"
        )
    return (accumulator(t), t._output_nr)


_ONES: dict = {}  # dtype -> a 0-d one, copied for each scalar root's gradient


def _root_grad(out: Tensor, g: Any, i: int, create_graph: bool) -> Any:
    """The gradient backward starts from at root ``out``: ``g`` checked and cast to the
    root's dtype (ones for a scalar root without one), as an array, or a tensor when
    ``create_graph``."""
    if g is None:
        if out._data.size != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        if out._dtype._category == 3:
            raise RuntimeError(
                "grad can be implicitly created only for real scalar outputs but got "
                f"{out._dtype!r}"
            )
        data = out._data
        one = _ONES.get(data.dtype) if data.__class__ is ndarray and not data.ndim else None
        if one is None:
            arr = xp.ones_like(data)  # (meta for a meta output)
            if data.__class__ is ndarray and not data.ndim:
                one = _ONES[data.dtype] = arr.copy()
        else:
            arr = one.copy()  # (a tenth of ones_like's time: a scalar loss's backward)
    else:
        if g.__class__ is not Tensor and not isinstance(g, Tensor):
            raise TypeError(
                f"gradient must be a Tensor or None, got {type(g).__name__}: pass "
                "chainrule.tensor(...) of the output's shape"
            )
        if g._data.shape != out._data.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                f"output[{i}] has a shape of {out.shape}."
            )
        if create_graph:
            return g if g._dtype is out._dtype else g.to(out._dtype)
        arr = g._data if g._dtype is out._dtype else g._data.astype(out._dtype.np)
    return _make(arr, out._dtype) if create_graph else arr


class _Capturing(threading.local):
    depth = 0  # grad() and backward(inputs=...) calls running in this thread


_capturing = _Capturing()


def _is_checkpoint_valid() -> bool:
    """Whether the backward running now may accumulate into leaves' ``.grad`` from inside
    (a reentrant checkpoint's backward does): not inside ``grad()`` or
    ``backward(inputs=...)``, as PyTorch's ``torch.autograd._is_checkpoint_valid``."""
    return _capturing.depth == 0


def backward(
    tensors: Tensor | Sequence[Tensor],
    grad_tensors: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables: Any = None,
    inputs: Tensor | Sequence[Tensor] | None = None,
) -> None:
    """Accumulate into each leaf's ``.grad`` the sum over roots of ``grad_tensorᵀ · d root/d leaf``."""
    outputs = _as_list(tensors)
    if grad_tensors is None:
        grad_tensors = grad_variables
    grads = None if grad_tensors is None else _as_list(grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    roots, root_grads = _roots_and_grads(outputs, grads, create_graph, "backward")
    if inputs is None:
        run_backward(roots, root_grads, retain_graph, create_graph)
        return
    inputs = _as_list(inputs)
    if not inputs:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    edges = [t for t in inputs if isinstance(t, GradientEdge)]
    inputs = [t for t in inputs if not isinstance(t, GradientEdge)]
    leaves = {accumulator(t) for t in inputs if t._grad_fn is None}
    nonleaf = {(t._grad_fn, t._output_nr): t for t in inputs if t._grad_fn is not None}
    capture = dict.fromkeys(nonleaf)
    for e in edges:  # a leaf's edge accumulates into it; another one only limits the run
        if e.node.__class__ is AccumulateGrad:
            leaves.add(e.node)
        else:
            capture.setdefault((e.node, e.output_nr), None)
    for t in nonleaf.values():  # as PyTorch: a non-leaf input retains its grad from now on
        t.retain_grad()
    _capturing.depth += 1  # (a reentrant checkpoint inside refuses: _is_checkpoint_valid)
    try:
        run_backward(roots, root_grads, retain_graph, create_graph, capture, True, leaves)
    finally:
        _capturing.depth -= 1


_backward = backward  # the function itself, even while a caller has wrapped the name


def tensor_backward(
    self: Tensor,
    gradient: Tensor | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Tensor | Sequence[Tensor] | None = None,
) -> None:
    """``Tensor.backward``: accumulate d(self)/d(leaf), contracted with ``gradient``, into
    each leaf's ``.grad``.

    For a non-scalar ``self`` this is the vector-Jacobian product ``gradientᵀ J``:
    the Jacobian itself is never formed.
    """
    if inputs is not None or backward is not _backward:  # (`chainrule explain` wraps it)
        backward(
            self,
            None if gradient is None else [gradient],
            retain_graph=retain_graph,
            create_graph=create_graph,
            inputs=inputs,
        )
        return
    root = _edge(self, 0, "backward")  # (backward() for one root, without its lists)
    grad = _root_grad(self, gradient, 0, create_graph)
    run_backward(
        [root], [grad], create_graph if retain_graph is None else retain_graph, create_graph
    )


def grad(
    outputs: Tensor | Sequence[Tensor],
    inputs: Tensor | Sequence[Tensor],
    grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple[Tensor, ...]:
    """The gradients of ``outputs`` with respect to ``inputs``, without touching any ``.grad``."""
    outs = _as_list(outputs)
    ins = _as_list(inputs)
    grads = None if grad_outputs is None else _as_list(grad_outputs)
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, "
            "but got: allow_unused=False."
        )
    if not only_inputs:
        import warnings

        warnings.warn(
            "only_inputs argument is deprecated and is ignored now (defaults to True). To "
            "accumulate gradient for other parts of the graph, please use "
            "torch.autograd.backward.",
            stacklevel=2,
        )
    if allow_unused is None:
        allow_unused = materialize_grads
    if is_grads_batched:
        return _batched_grad(
            outs, ins, grads, retain_graph, create_graph, allow_unused, materialize_grads
        )
    if retain_graph is None:
        retain_graph = create_graph
    sparse = {}  # position -> a sparse input, differentiated through its values' tensor
    for i, t in enumerate(ins):
        vals = getattr(t, "_vals", None)
        if vals is not None and hasattr(t, "_sparse_grad"):
            sparse[i], ins[i] = t, vals
    for t in ins:
        if isinstance(t, GradientEdge):
            continue
        if not isinstance(t, Tensor):
            raise TypeError(f"grad() expects tensors as inputs, got {type(t).__name__}")
    roots, root_grads = _roots_and_grads(outs, grads, create_graph, "grad")
    for t in ins:  # (after the outputs' checks, as PyTorch)
        if not isinstance(t, GradientEdge) and not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    keys = [_edge(t) for t in ins]
    capture = dict.fromkeys(keys)
    _capturing.depth += 1  # (a reentrant checkpoint inside refuses: _is_checkpoint_valid)
    try:
        if roots:  # (no outputs: every input unused)
            run_backward(roots, root_grads, retain_graph, create_graph, capture, accumulate=False)
    finally:
        _capturing.depth -= 1
    result = []
    for i, (t, key) in enumerate(zip(ins, keys)):
        g = capture[key]
        if t.__class__ is GradientEdge:
            if g is None and materialize_grads:
                raise RuntimeError(
                    "materialize_grads cannot be used when the given input is a GradientEdge"
                )
            if g is None and not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior."
                )
            result.append(None if g is None else edge_result(g, create_graph))
        elif g is None:
            if materialize_grads:
                g = xp.zeros(t._data.shape, dtype=t._dtype.np)
                result.append(_make(g, t._dtype, create_graph))
                continue
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior."
                )
            result.append(None)
        elif create_graph:
            result.append(g)
        else:
            result.append(_as_grad(g, t._dtype))  # (an embedding's sparse gradient: sparse)
        if i in sparse and result[-1] is not None:  # (a sparse input's: at its indices)
            result[-1] = sparse[i]._sparse_grad(result[-1]).coalesce()
        if GRAD_DTYPES and id(t) in GRAD_DTYPES and GRAD_DTYPES[id(t)][1] is not None:
            result[-1] = result[-1].to(GRAD_DTYPES[id(t)][1])  # (a leaf's grad_dtype)
    return tuple(result)


def _batched_grad(
    outs: list,
    ins: list,
    grads: list | None,
    retain_graph: bool | None,
    create_graph: bool,
    allow_unused: bool,
    materialize_grads: bool,
) -> tuple:
    """``is_grads_batched=True``: one ``grad`` per slice of the grad_outputs' first dim, stacked."""
    from .functional import _stack

    if grads is None or any(g is None for g in grads):
        raise RuntimeError(
            "If `is_grads_batched=True`, we interpret the first dimension of each grad_output "
            "as the batch dimension. The sizes of the remaining dimensions are expected to "
            "match the shape of corresponding output, but a mismatch was detected"
        )
    n = grads[0].shape[0]
    per_slice = [
        grad(
            outs,
            ins,
            [g[b] for g in grads],
            retain_graph=True if b < n - 1 else retain_graph,
            create_graph=create_graph,
            allow_unused=allow_unused,
            materialize_grads=materialize_grads,
        )
        for b in range(n)
    ]
    result = []
    for j in range(len(ins)):
        column = [r[j] for r in per_slice]
        result.append(None if any(c is None for c in column) else _stack(column))
    return tuple(result)


from .variable import variable  # noqa: E402, F401 (hides the module, as in PyTorch)


def __getattr__(name: str) -> Any:
    if name == "profiler":  # (loaded on first use: torch.autograd.profiler)
        import importlib

        return importlib.import_module(f"{__name__}.profiler")
    if name in ("_profiler_enabled", "_disable_profiler"):  # (autograd/_profiler_state.py)
        from . import _profiler_state

        return getattr(_profiler_state, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
