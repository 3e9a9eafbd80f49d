"""``chainrule.autograd``: backward, grad, grad modes and the legacy ``Variable``."""

from __future__ import annotations

from typing import Any

from .anomaly_mode import (  # noqa: F401
    detect_anomaly,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_detect_anomaly,
)
from .function import Function, FunctionCtx, once_differentiable  # noqa: F401
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)

__all__ = [
    "Variable",
    "backward",
    "grad",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "is_grad_enabled",
    "inference_mode",
    "detect_anomaly",
    "set_detect_anomaly",
    "Function",
    "FunctionCtx",
    "once_differentiable",
]


def Variable(data: Any, requires_grad: bool = False, volatile: bool = False):  # noqa: N802
    """The pre-0.4 wrapper: a new leaf sharing ``data``'s memory, with ``requires_grad`` set."""
    from .._creation import as_tensor
    from .._tensor import _counter, _make

    t = as_tensor(data)
    t = _make(t._data, t._dtype, vc=_counter(t))
    if requires_grad:
        t.requires_grad_(True)
    return t


def _as_list(tensors: Any) -> list:
    from .._tensor import Tensor

    if isinstance(tensors, Tensor):
        return [tensors]
    return list(tensors)


def _roots_and_grads(outputs: list, grad_outputs: list | None, create_graph: bool, api: str):
    """Check outputs and their gradients the way PyTorch does; return engine roots and grads."""
    from .._tensor import Tensor

    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"{api} got {len(outputs)} tensors and {len(grad_outputs)} gradients")
    roots, grads = [], []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if not isinstance(out, Tensor):
            raise TypeError(f"{api} expects tensors as outputs, got {type(out).__name__}")
        if not out._requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
        if g is None:
            if out._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            from .._backend import xp

            arr = xp.ones(out._data.shape, dtype=out._dtype.np)
        else:
            if not isinstance(g, Tensor):
                raise TypeError(
                    f"gradient must be a Tensor or None, got {type(g).__name__}: pass "
                    "chainrule.tensor(...) of the output's shape"
                )
            if g._data.shape != out._data.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                    f"output[{i}] has a shape of {out.shape}."
                )
            arr = g._data if g._dtype is out._dtype else g._data.astype(out._dtype.np)
            if create_graph:
                grads.append(g if g._dtype is out._dtype else g.to(out._dtype))
                roots.append(_edge(out))
                continue
        if create_graph:
            from .._tensor import _make

            grads.append(_make(arr, out._dtype))
        else:
            grads.append(arr)
        roots.append(_edge(out))
    return roots, grads


def _edge(t):
    fn = t._grad_fn
    return (t._accumulator() if fn is None else fn, t._output_nr)


def backward(
    tensors: Any,
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables: Any = None,
    inputs: Any = None,
) -> None:
    """Accumulate into each leaf's ``.grad`` the sum over roots of ``grad_tensorᵀ · d root/d leaf``."""
    from .engine import run_backward

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
    leaves = {t._accumulator() for t in inputs if t._grad_fn is None}
    nonleaf = {(t._grad_fn, t._output_nr): t for t in inputs if t._grad_fn is not None}
    capture = dict.fromkeys(nonleaf)
    run_backward(roots, root_grads, retain_graph, create_graph, capture, True, leaves)
    from .._tensor import _make

    for key, t in nonleaf.items():
        g = capture[key]
        if g is None:
            continue
        g = g if create_graph else _make(g.copy(), t._dtype)
        t._grad = g if t._grad is None else t._grad + g


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple:
    """The gradients of ``outputs`` with respect to ``inputs``, without touching any ``.grad``."""
    from .._tensor import Tensor, _make
    from .engine import run_backward

    outs = _as_list(outputs)
    ins = _as_list(inputs)
    grads = None if grad_outputs is None else _as_list(grad_outputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    if retain_graph is None:
        retain_graph = create_graph
    for t in ins:
        if not isinstance(t, Tensor):
            raise TypeError(f"grad() expects tensors as inputs, got {type(t).__name__}")
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    roots, root_grads = _roots_and_grads(outs, grads, create_graph, "grad")
    keys = [_edge(t) for t in ins]
    capture = dict.fromkeys(keys)
    run_backward(roots, root_grads, retain_graph, create_graph, capture, accumulate=False)
    result = []
    for t, key in zip(ins, keys):
        g = capture[key]
        if g is None:
            if materialize_grads:
                from .._backend import xp

                g = xp.zeros(t._data.shape, dtype=t._dtype.np)
                result.append(_make(g, t._dtype))
                continue
            if not allow_unused:
                raise RuntimeError(
                    "One of the differentiated Tensors appears to not have been used in the "
                    "graph. Set allow_unused=True if this is the desired behavior."
                )
            result.append(None)
        elif create_graph:
            result.append(g)
        else:
            result.append(_make(g, t._dtype))
    return tuple(result)
