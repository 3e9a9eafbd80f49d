"""``nn.utils.stateless``: the deprecated ``functional_call`` (``torch.func.functional_call``
with PyTorch's FutureWarning)."""

from __future__ import annotations

import warnings
from typing import Any

from ..._tensor import Tensor

__all__ = ["functional_call"]


def functional_call(
    module: Any,
    parameters_and_buffers: dict[str, Tensor],
    args: Any = None,
    kwargs: dict[str, Any] | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """``module(*args, **kwargs)`` with its parameters and buffers replaced (see
    ``chainrule.func.functional_call``)."""
    from ...func import functional_call as func_functional_call

    warnings.warn(
        "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will "
        "be removed in a future version of PyTorch. Please use `torch.func.functional_call` "
        "instead which is a drop-in replacement.",
        FutureWarning,
        stacklevel=2,
    )
    return func_functional_call(
        module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict
    )
