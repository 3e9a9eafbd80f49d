"""``functorch.experimental``: the transforms PyTorch keeps here under their old names, and
``chunk_vmap``, vmap over chunks of the batch (chainrule's vmap runs the function once per
element, so chunking changes nothing: it is ``vmap``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...func import functionalize, hessian, jacfwd, jvp, replace_all_batch_norm_modules_, vmap

__all__ = [
    "chunk_vmap",
    "functionalize",
    "hessian",
    "jacfwd",
    "jvp",
    "replace_all_batch_norm_modules_",
]


def chunk_vmap(
    func: Callable,
    in_dims: Any = 0,
    out_dims: Any = 0,
    randomness: str = "error",
    chunks: int = 2,
) -> Callable:
    """``vmap(func, in_dims, out_dims, randomness)`` run ``chunks`` pieces of the batch at a
    time (the same results: see the module's docstring)."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(
            "Only allowed values for randomness are 'error', 'different', or 'same'. "
            f"Got {randomness}"
        )
    return vmap(func, in_dims=in_dims, out_dims=out_dims, randomness=randomness)
