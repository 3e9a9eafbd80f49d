"""Gradient clipping: scale the gradients so their total norm is at most ``max_norm``
(``clip_grad_norm_``), or clamp each element to ``[-clip_value, clip_value]``
(``clip_grad_value_``). Both work in place on ``.grad`` under ``no_grad``."""

from __future__ import annotations

import types
import warnings
from collections.abc import Iterable

import chainrule

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "get_total_norm",
]

TensorOrTensors = Tensor | Iterable[Tensor]


def _as_list(tensors: TensorOrTensors) -> list[Tensor]:
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def get_total_norm(
    tensors: TensorOrTensors,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """The ``norm_type``-norm of all the tensors together: the norm of their norms (the
    largest absolute value for ``inf``). 0 for no tensors."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return chainrule.tensor(0.0)
    if foreach is not False and norm_type == float("inf") and any(t.numel() == 0 for t in tensors):
        # PyTorch's default (foreach) path on CPU names its foreach kernel
        raise RuntimeError(
            "_foreach_norm cannot compute the infinity norm on an empty tensor because the "
            "operation does not have an identity"
        )
    with no_grad():
        norms = [chainrule.linalg.vector_norm(t, norm_type) for t in tensors]
        total = chainrule.linalg.vector_norm(chainrule.stack(norms), norm_type)
    if error_if_nonfinite and bool(chainrule.logical_or(total.isnan(), total.isinf())):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return total


def clip_grads_with_norm_(
    parameters: TensorOrTensors,
    max_norm: float,
    total_norm: Tensor,
    foreach: bool | None = None,
) -> None:
    """Scale every gradient by min(1, max_norm / (total_norm + 1e-6)), in place."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return
    with no_grad():
        coef = chainrule.clamp(float(max_norm) / (total_norm + 1e-6), max=1.0)
        for g in grads:
            g.mul_(coef.to(g.dtype))


def clip_grad_norm_(
    parameters: TensorOrTensors,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Scale the gradients of ``parameters`` in place so that their total ``norm_type``-norm
    is at most ``max_norm``; returns the total norm before clipping (a tensor).
    ``foreach`` is accepted (chainrule has one implementation)."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn(
                "`parameters` is an empty generator, no gradient clipping will occur.",
                stacklevel=2,
            )
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(
    parameters: TensorOrTensors,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Deprecated: ``clip_grad_norm_``."""
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(
    parameters: TensorOrTensors, clip_value: float, foreach: bool | None = None
) -> None:
    """Clamp every gradient element to [-clip_value, clip_value], in place."""
    clip_value = float(clip_value)
    with no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
